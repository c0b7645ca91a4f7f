"""Argo CD passes ``helm.parameters`` to Helm as ``--set`` flags in random order (attack 10, item 7).

``reposerver/repository/repository.go`` ``helmTemplate`` fills the Go maps ``Set``, ``SetString`` and
``SetFile`` keyed by the parameter's name, and ``util/helm/cmd.go`` ``template`` ranges over each
(v3.5.1), writing ``--set name=cleanSetParameters(value)`` with the name not escaped. With
``{name: "x=1,debug", value: "true"}`` and ``{name: debug, value: "false"}`` Helm gets ``--set
x=1,debug=true`` and ``--set debug=false`` in either order: about half of Argo CD's renders hold the
privileged hook under ``{{ if .Values.debug }}``. hooklint rendered the written order only (exit 0);
it now refuses to pick one (HL009). :mod:`hooklint.sources.render.strvals` ports Helm's parser; it
is held to Helm's own (through Helm's Go library, in a child process) when the SDK is installed."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.sources.render import strvals
from hooklint.sources.render.helm import HelmOptions, find_helm, parameter_order_problem
from hooklint.sources.render.strvals import Assignment, StrvalsError, order_conflict

needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")
runner = CliRunner()
REPO = "https://example.com/acme/deploy.git"


# --- the parser ------------------------------------------------------------------------------------


def test_a_name_holding_a_comma_is_read_as_two_assignments():
    assert strvals.assignments("x=1,debug=true") == ([Assignment(("x",), "1"), Assignment(("debug",), "true")], False)
    assert strvals.assignments(r"x\=1\,debug=true") == ([Assignment(("x=1,debug",), "true")], False)
    assert strvals.assignments("a.b[2].c={1,2},d") == ([Assignment(("a", "b", 2, "c"), ("1", "2"))], True)


@pytest.mark.parametrize("flag, string, expected", [
    ("a=1,b.c=two,ports={80,443}", False, {"a": 1, "b": {"c": "two"}, "ports": [80, 443]}),
    ("a=1,b.c=two,ports={80,443}", True, {"a": "1", "b": {"c": "two"}, "ports": ["80", "443"]}),
    ("t=TRUE,f=fal\u017fe,n=Null,z=0,o=010,m=-5,p=+5,big=9223372036854775808", False,
     {"t": True, "f": False, "n": None, "z": 0, "o": "010", "m": -5, "p": 5, "big": "9223372036854775808"}),
    ("a[2].x=1", False, {"a": [None, None, {"x": 1}]}),
    ("a[0]", False, {"a": []}),
    ("a[0].", False, {"a": []}),
    ("a=\\", False, {"a": ""}),
    ("a={1,2}x=3", False, {"a": [1, 2], "x": 3}),
    ("=1", False, {}),
])  # fmt: skip
def test_the_parser_reads_as_helm_does(flag, string, expected):
    """Each case as ``helm_python.parse_set_string`` / ``parse_set_string_values`` (Helm v4.0's
    ``strvals.Parse`` / ``ParseString``) returned it."""
    assert strvals.parse(flag, string) == expected


@pytest.mark.parametrize("flag, message", [
    ("a.=1", 'key map "a" has no value'),
    ("a=1,a.b=2", 'unable to parse key: "a" is not a map'),
    ("a", 'key "a" has no value'),
    ("a,", 'key "a" has no value (cannot end with ,)'),
    ("a[x]=1", 'error parsing index: strconv.Atoi: parsing "x": invalid syntax'),
    ("a[65537]=1", "index of 65537 is greater than maximum supported index of 65536"),
    ("a={1,2", "list must terminate with '}'"),
    ("a[0]b=1", 'unexpected data at end of array index: "b"'),
])  # fmt: skip
def test_what_helm_refuses_is_refused(flag, message):
    """Helm's words (Go's %q), but where a Go type assertion panics ("interface conversion: ...")."""
    with pytest.raises(StrvalsError) as raised:
        strvals.parse(flag)
    assert str(raised.value) == message


_ORACLE = r"""
import json, sys
try:
    import helm_python as helm
    helm.parse_set_string("a=1")
except Exception as exc:  # no SDK, or no library for this machine
    print(json.dumps({"unavailable": f"{type(exc).__name__}: {exc}"}), flush=True)
    sys.exit(0)
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    flag, string = json.loads(line)
    try:
        value = (helm.parse_set_string_values if string else helm.parse_set_string)(flag)
        print(json.dumps({"value": value}), flush=True)
    except Exception as exc:
        print(json.dumps({"error": str(exc)}), flush=True)
"""


@pytest.fixture(scope="module")
def helm_parser():
    """Helm's own ``--set`` parser (Helm's Go library through ``helm_python``) in a child process,
    so that the Go runtime never enters the test process."""
    proc = subprocess.Popen([sys.executable, "-c", _ORACLE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    unavailable = json.loads(proc.stdout.readline() or '{"unavailable": "no answer"}').get("unavailable")
    if unavailable:
        proc.wait(10)
        pytest.skip(f"Helm's Go library does not load here: {unavailable}")

    def parse(flag: str, string: bool) -> object:
        proc.stdin.write(json.dumps([flag, string]) + "\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        return StrvalsError if "error" in answer else answer["value"]

    yield parse
    proc.stdin.close()
    proc.wait(10)


flags = st.text(alphabet="ab0123=,.[]{}\\-+ \u017f", max_size=14)


def _ours(flag: str, string: bool) -> object:
    try:
        return strvals.parse(flag, string)
    except StrvalsError as error:
        return str(error) if str(error) == "error parsing index: EOF" else StrvalsError


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(flags, st.booleans())
@example("a[1][0]=x,a[1][2].b=y", False)
@example("a[0].b=1,a[0]=2,a[0].c=3", False)
def test_the_parser_agrees_with_helms(helm_parser, flag, string):
    """Where a flag ends inside an index (``a[``), Helm's ``parse`` fails (it compares the error
    with ``io.EOF``, and this one wraps it: ``helm template`` says "error parsing index: EOF"), while
    ``helm_python.parse_set_string`` returns what it parsed so far: that case is not compared."""
    ours = _ours(flag, string)
    if ours != "error parsing index: EOF":
        assert ours == helm_parser(flag, string)


# --- which orders matter -----------------------------------------------------------------------------


@pytest.mark.parametrize("flags, expected", [
    (["x=1,debug=true", "debug=false"], (0, 1, ("debug",))),
    (["debug=false", "x=1,debug=true"], (0, 1, ("debug",))),
    (["x=1,debug=true", "debug=true"], None),  # the same value either way
    (["image.tag=1", "image.repository=r", "a[0]=1", "a[1]=2"], None),
    (["a=1", "a.b=2"], (0, 1, ("a",))),  # a value, and one inside it
    (["a.b=2", "a=1"], (0, 1, ("a",))),
    (["a.b=1", "a[0]=1"], (0, 1, ("a", 0))),  # a map where the other makes a list
    (["a.=1", "a.b=2"], (0, 1, ("a", "b"))),  # an empty key fails only while its map is empty
    (["a[0]", "a[1]=2"], (0, 1, ("a",))),  # a list made without a value: unlike any other
    (["p=a\\,b", "q=c"], None),  # cleanSetParameters' escaped comma stays in the value
    (["p={a,b}", "p={a,b}"], None),
    (["a=", "a."], (0, 1, ("a",))),  # "a." fails after a value, sets nothing before one
])  # fmt: skip
def test_order_conflict(flags, expected):
    assert order_conflict(flags) == expected


def _outcome(order: tuple[str, ...]) -> object:
    """The values of ``--set`` flags applied in ``order`` (ParseInto, one after the other), or the
    error class."""
    data: dict = {}
    try:
        for flag in order:
            strvals.parse(flag, into=data)
    except StrvalsError:
        return StrvalsError
    return data


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(alphabet="ab01=,.[]", max_size=10), min_size=2, max_size=3))
@example(["x=1,debug=true", "debug=false"])
@example(["a[2]=x", "a[0]=y"])
@example(["0=", "0."])  # "0." sets nothing but fails where 0 is no map: found by this property
def test_flags_with_no_conflict_give_the_same_values_in_every_order(flag_list):
    if order_conflict(flag_list) is None:
        outcomes = {json.dumps(_outcome(order), sort_keys=True, default=str)
                    for order in itertools.permutations(flag_list)}  # fmt: skip
        assert len(outcomes) == 1


MESSAGE = ("spec.source.helm.parameters[0] (name 'x=1,debug') and [1] (name 'debug') both set debug, as Helm reads "
           "their --set flags, and Argo CD passes those flags in random order (util/helm/cmd.go ranges over a Go map): "
           "which value Helm renders with changes from one rendering to the next; set each value with one parameter "
           "(a name holding ',', '=', '.' or '[' is read as several: escape them with a backslash)")  # fmt: skip


def _options(parameters: list[dict], files: list[dict] | None = None) -> HelmOptions:
    return HelmOptions.from_application({"parameters": parameters, "fileParameters": files or []}, "a", None)


def test_the_problem_names_both_parameters_and_never_a_value():
    options = _options([{"name": "x=1,debug", "value": "true"}, {"name": "debug", "value": "false"}])
    assert parameter_order_problem(options) == MESSAGE


@pytest.mark.parametrize("parameters, files", [
    ([{"name": "x=1,debug", "value": "true"}, {"name": "debug", "value": "false", "forceString": True}], []),
    ([{"name": "debug", "value": "true"}, {"name": "debug", "value": "false"}], []),  # one map entry: the last
    ([{"name": "image.tag", "value": "1,2"}, {"name": "image.repository", "value": "r"}], []),
    ([{"name": "debug", "value": "true"}], [{"name": "debug", "path": "f.txt"}]),  # --set before --set-file
])  # fmt: skip
def test_a_fixed_order_is_no_problem(parameters, files):
    """Flags of different maps keep their order (all --set, then --set-string, then --set-file); a
    name written twice is one map entry."""
    assert parameter_order_problem(_options(parameters, files)) is None


def test_two_file_parameters_setting_one_value_are_a_problem():
    options = _options([], [{"name": "a=x,cfg", "path": "one.txt"}, {"name": "cfg", "path": "two.txt"}])
    assert parameter_order_problem(options) == (
        "spec.source.helm.fileParameters[0] (name 'a=x,cfg') and [1] (name 'cfg') both set cfg, as Helm reads "
        "their --set-file flags, and Argo CD passes those flags in random order (util/helm/cmd.go ranges over a "
        "Go map): which value Helm renders with changes from one rendering to the next; set each value with one "
        "parameter (a name holding ',', '=', '.' or '[' is read as several: escape them with a backslash)")


# --- the command line ----------------------------------------------------------------------------------

HOOK = """\
{{- if .Values.debug }}
apiVersion: v1
kind: Pod
metadata:
  name: shell
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  restartPolicy: Never
  hostPID: true
  containers:
  - name: c
    image: ghcr.io/acme/tools:1.0
{{- end }}
"""


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git/config").write_text(f'[remote "origin"]\n\turl = {REPO}\n')
    (tmp_path / "c/templates").mkdir(parents=True)
    (tmp_path / "c/Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 1.0.0\n")
    (tmp_path / "c/values.yaml").write_text("debug: false\n")
    (tmp_path / "c/templates/pod.yaml").write_text(HOOK)
    (tmp_path / "apps").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    return tmp_path


def _application(repo, parameters: str) -> None:
    (repo / "apps/a.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: a\nspec:\n  project: p\n"
        f"  source:\n    repoURL: {REPO}\n    path: c\n    helm:\n      parameters:\n{parameters}"
        "  destination:\n    namespace: d\n")  # fmt: skip


def test_parameters_whose_order_matters_are_not_rendered(repo):
    _application(repo, '      - name: "x=1,debug"\n        value: "true"\n      - name: debug\n        value: "false"\n')
    result = runner.invoke(app, ["lint", "."])
    assert (result.exit_code, result.output.splitlines()[0]) == (1, (
        f"c/Chart.yaml:1:1: warning HL009 source-not-rendered: Application a (apps/a.yaml:8): {MESSAGE}. Argo CD "
        "renders it, with the flags in an order it draws again each time. hooklint did not render c/, so none of "
        "its objects were checked, hooks included."))


@needs_helm
def test_an_escaped_name_renders_as_written(repo):
    """``x\\=1\\,debug`` is one key to Helm: debug is false in every order, and nothing is a hook."""
    _application(repo, '      - name: "x\\\\=1\\\\,debug"\n        value: "true"\n      - name: debug\n'
                       '        value: "false"\n')  # fmt: skip
    result = runner.invoke(app, ["lint", "."])
    assert (result.exit_code, result.output.splitlines()[0]) == (0, "0 errors, 0 warnings, 0 notes in 2 files")


JOBS = """\
{{- range .Values.jobs }}
{{- if .enabled }}
---
apiVersion: v1
kind: Pod
metadata:
  name: {{ .name }}
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  restartPolicy: Never
  hostPID: {{ .hostPID | default false }}
  containers:
  - name: c
    image: ghcr.io/acme/tools:1.0
{{- end }}
{{- end }}
"""


@needs_helm
def test_a_parameter_changes_one_item_of_a_list_a_value_file_wrote(repo):
    """``MergeValues`` parses each ``--set`` flag into the values the value files wrote
    (``strvals.ParseInto``): ``jobs[0].enabled=true`` turns on the first job as ``helm.values``
    wrote it, hostPID included. hooklint parsed the flag into a map of its own and merged it, which
    replaced the list: the job rendered without hostPID. (The chart's own values.yaml is not such a
    value file: Helm coalesces the user's values over it, and a user's list replaces the chart's.)"""
    (repo / "c/values.yaml").write_text("jobs: []\n")
    (repo / "c/templates/pod.yaml").write_text(JOBS)
    (repo / "apps/a.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: a\nspec:\n  project: p\n"
        f"  source:\n    repoURL: {REPO}\n    path: c\n    helm:\n      values: |\n        jobs:\n"
        "        - {name: shell, hostPID: true, enabled: false}\n      parameters:\n"
        "      - name: jobs[0].enabled\n        value: \"true\"\n  destination:\n    namespace: d\n")  # fmt: skip
    result = runner.invoke(app, ["lint", "."])
    assert (result.exit_code, [line for line in result.output.splitlines() if ": error " in line]) == (1, [
        "c/templates/pod.yaml:12:3: error HL105 hook-privileged-pod: Pod/shell sets hostPID: true: a PreSync hook "
        "runs on every sync and then controls the node, not just its pod. Remove it, or do this work outside the "
        "cluster's workloads."])
