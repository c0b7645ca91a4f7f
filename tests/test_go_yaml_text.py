"""Data hooklint writes again for a Go reader (Helm's values, a generated Application read back by
hooklint's go-typed reader, a SOPS file's placeholders, a kustomization) keeps its types (attack 10,
item 5).

Argo CD writes an Application's ``helm.valuesObject`` for Helm with ``sigs.k8s.io/yaml``
``JSONToYAML`` (``pkg/apis/application/v1alpha1/values.go`` ``ValuesYAML``, v3.5.1), which quotes
``"n"``; hooklint wrote it with PyYAML's ``safe_dump``, which writes ``debug: n``, and go-yaml v2
reads that as ``false``: a privileged hook under ``{{ if .Values.debug }}`` was never rendered. An
Application an ApplicationSet generates was written again the same way (``value: "n"`` became the
boolean ``false``, a false HL007). :func:`hooklint.yamlio.go_yaml_text` writes JSON instead."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.sources.render.helm import HelmOptions, find_helm, sops_placeholders
from hooklint.sources.render.kustomize import _dump as kustomization_text
from hooklint.sources.render.kustomize import _with_entries
from hooklint.yamlio import go_first_document, go_yaml_scalar, go_yaml_text, parse_documents

needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")
runner = CliRunner()
REPO = "https://example.com/acme/deploy.git"

#: Strings a YAML 1.1 reader (go-yaml v2), a YAML 1.2 one (go-yaml v3) or PyYAML would read as
#: something else when written plain.
TRICKY = ["n", "N", "y", "Y", "yes", "no", "on", "off", "On", "OFF", "true", "False", "~", "null", "Null", "",
          "1e3", "1E3", "-1e3", ".5", "1.", "0o17", "0x1f", "0b101", "010", "1_000", "+1", "-0", "1:30", "190:20:30",
          "2024-01-01", "2024-01-01T10:00:00Z", ".inf", "-.Inf", ".nan", "<<", "=", "!x", "&a", "*a", "- x", "a: b",
          "#c", "'q'", '"q"', "x\n y", " lead", "trail ", "\t", "a\u2028b", "a\u0085b", "a\u2029b", "\ufeffx",
          "\x7f", "\x80\x9f", "\U0001f600", "\\u0041", "{}", "[]", "%TAG", "---", "..."]  # fmt: skip

scalars = (st.sampled_from(TRICKY) | st.text(max_size=12) | st.booleans() | st.none()
           | st.integers(min_value=-(2**63), max_value=2**63 - 1)
           | st.floats(allow_nan=False, allow_infinity=False))
keys = st.sampled_from(TRICKY) | st.text(max_size=8)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
                      max_leaves=20)  # fmt: skip
mappings = st.dictionaries(keys, values, max_size=6)


def typed(value):
    """``value`` with each scalar's type beside it: ``1 == True`` and ``0 == 0.0`` in Python."""
    if isinstance(value, dict):
        return {k: typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [typed(v) for v in value]
    if isinstance(value, float):
        return ("float", value, math.copysign(1, value))
    return (type(value).__name__, value)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mappings)
@example({"debug": "n", "b": ["y", "on", "no", "~", "null", "1e3", "0o17", "010", "1:30", "2024-01-01", ".inf"]})
def test_what_go_reads_back_is_what_was_written(value):
    text = go_yaml_text(value)
    assert typed(go_first_document(text).value) == typed(value)  # as Helm and kustomize read it
    [document] = parse_documents(text)  # as hooklint reads a generated Application
    assert (document.issues, typed(document.value)) == ([], typed(value))


_GO_CHILD = r"""
import json, sys
try:
    import helm_python as helm
    helm.values_from_yaml("a: 1\n")
except Exception as exc:  # no SDK, or no library for this machine
    print(json.dumps({"unavailable": f"{type(exc).__name__}: {exc}"}), flush=True)
    sys.exit(0)
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    try:
        print(json.dumps({"value": helm.values_from_yaml(json.loads(line))}), flush=True)
    except Exception as exc:
        print(json.dumps({"error": str(exc)}), flush=True)
"""


@pytest.fixture(scope="module")
def helm_reads():
    """Helm's own value-file reader (``helm_python.values_from_yaml``: Helm's Go library, in a child
    process so that the Go runtime never enters the test process)."""
    proc = subprocess.Popen([sys.executable, "-c", _GO_CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    unavailable = json.loads(proc.stdout.readline() or '{"unavailable": "no answer"}').get("unavailable")
    if unavailable:
        proc.wait(10)
        pytest.skip(f"Helm's Go library does not load here: {unavailable}")

    def read(text: str) -> object:
        proc.stdin.write(json.dumps(text) + "\n")
        proc.stdin.flush()
        return json.loads(proc.stdout.readline())

    yield read
    proc.stdin.close()
    proc.wait(10)


def _numbers_as_floats(value):
    """``value`` with every number a float: Helm reads values through JSON, where 1 and 1.0 are one."""
    if isinstance(value, dict):
        return {k: _numbers_as_floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_numbers_as_floats(v) for v in value]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return ("number", float(value))
    return (type(value).__name__, value)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mappings)
@example({"debug": "n", "b": ["y", "on", "no", "~", "null", "1e3", "0o17", "010", "1:30", "2024-01-01", ".inf"]})
@example({"a": "x\u0085y\u2028z\U0001f600\x7f"})
def test_helm_reads_back_what_was_written(helm_reads, value):
    """The same property through Helm's own reader, when the Helm SDK is installed."""
    answer = helm_reads(go_yaml_text(value))
    assert "error" not in answer
    assert _numbers_as_floats(answer["value"]) == _numbers_as_floats(value)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mappings)
@example({"namePrefix": "n", "images": [{"name": "y", "newTag": "1e3"}], "x": ["0o17", "010", "1:30"]})
def test_a_kustomization_written_again_reads_back_as_it_was(value):
    assert typed(go_first_document(kustomization_text(value)).value) == typed(value)


@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan])
def test_a_number_json_cannot_hold_is_refused(bad):
    with pytest.raises(ValueError, match=r"^a number JSON cannot hold \(\.inf or \.nan\)$"):
        go_yaml_text({"a": [bad]})
    with pytest.raises(ValueError, match=r"^spec.source.helm.valuesObject holds a number JSON cannot hold"):
        HelmOptions.from_application({"valuesObject": {"a": bad}}, "app", None)


def test_values_object_strings_stay_strings_for_helm():
    options = HelmOptions.from_application({"valuesObject": {"debug": "n", "on": "yes", "n": [1e3, "1e3"]}}, "a", None)
    assert options.values == '{"debug": "n", "on": "yes", "n": [1000.0, "1e3"]}\n'
    assert go_first_document(options.values).value == {"debug": "n", "on": "yes", "n": [1000.0, "1e3"]}


def test_sops_placeholders_keep_a_quoted_string(tmp_path):
    path = tmp_path / "secrets.yaml"
    path.write_text('debug: "n"\nlevel: "0o17"\npassword: ENC[AES256_GCM,data:abc,type:str]\nsops:\n  mac: x\n')
    text = sops_placeholders(str(path), 1 << 20)
    assert go_first_document(text).value == {"debug": "n", "level": "0o17",
                                             "password": "hooklint-sops-encrypted-value"}  # fmt: skip


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


HOST_PID = ("c/templates/pod.yaml:10:3: error HL105 hook-privileged-pod: Pod/shell sets hostPID: true: a PreSync "
            "hook runs on every sync and then controls the node, not just its pod. Remove it, or do this work "
            "outside the cluster's workloads.")  # fmt: skip


def _errors(output: str) -> list[str]:
    return [line for line in output.splitlines() if ": error " in line]


@needs_helm
def test_a_values_object_string_n_renders_the_hook(repo):
    (repo / "apps/a.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: a\nspec:\n  project: p\n"
        f"  source:\n    repoURL: {REPO}\n    path: c\n    helm:\n      valuesObject:\n        debug: \"n\"\n"
        "  destination:\n    namespace: d\n")  # fmt: skip
    result = runner.invoke(app, ["lint", "."])
    assert (result.exit_code, _errors(result.output)) == (1, [HOST_PID])


@needs_helm
def test_a_values_object_boolean_n_does_not(repo):
    (repo / "apps/a.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: a\nspec:\n  project: p\n"
        f"  source:\n    repoURL: {REPO}\n    path: c\n    helm:\n      valuesObject:\n        debug: n\n"
        "  destination:\n    namespace: d\n")  # fmt: skip
    result = runner.invoke(app, ["lint", "."])
    assert (result.exit_code, _errors(result.output)) == (0, [])


@needs_helm
def test_a_generated_application_keeps_its_string_n(repo):
    (repo / "apps/set.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: s\nspec:\n  generators:\n"
        "  - list:\n      elements:\n      - env: prod\n  template:\n    metadata:\n      name: 'a-{{env}}'\n"
        f"    spec:\n      project: p\n      source:\n        repoURL: {REPO}\n        path: c\n        helm:\n"
        "          parameters:\n          - name: debug\n            value: \"n\"\n"
        "      destination:\n        namespace: d\n")  # fmt: skip
    result = runner.invoke(app, ["lint", "."])
    assert (result.exit_code, _errors(result.output)) == (1, [HOST_PID])


def test_a_kustomization_entry_written_in_place_keeps_a_character_beyond_the_bmp():
    """``json.dumps`` wrote U+1F600 as the surrogate pair ``\\ud83d\\ude00``, which go-yaml (and so
    kustomize) refuses: "found invalid Unicode character escape code"."""
    text = _with_entries("resources:\n- a\n- b\n", [("resources", 1, "./\U0001f600/x")])
    assert (text, go_first_document(text).value) == ('resources:\n- a\n- "./\U0001f600/x"\n',
                                                     {"resources": ["a", "./\U0001f600/x"]})  # fmt: skip
    assert go_yaml_scalar("\U0001f600\x85") == '"\U0001f600\\u0085"'


@needs_helm
def test_go_template_parameters_reach_helm_as_written():
    """An ApplicationSet's ``goTemplate`` is rendered by Helm's engine with the generator's
    parameters as values: ``json.dump`` wrote U+1F600 as a surrogate pair (Helm: "found invalid
    Unicode character escape code"), and the rendered text, written into a ConfigMap, held a raw
    DEL that Helm's YAML reader refuses; both failed the expansion."""
    from hooklint.sources.appmap.applicationsets import _go_render

    jobs = [("{{ .folder }}", {"folder": "\U0001f600"}), ("{{ .x }}", {"x": "a\x7fb\x85c\u2028"}),
            ("{{ .y }}-{{ .z }}", {"y": 1.5, "z": [1, "n"]})]  # fmt: skip
    assert _go_render(jobs, None) == ["\U0001f600", "a\x7fb\x85c\u2028", "1.5-[1 n]"]


@pytest.mark.parametrize("text, fast", [
    ("# Apps & services!\nresources:\n- a.yaml\n", True),  # a comment line: no token
    ("resources:\n  # IBM CP4BA & ODM\n- a.yaml\ndesc: |\n  # yes & no!\n", True),
    ("resources:\n- a.yaml # trailing & comment\n", False),  # after content: the plain pure-Python check
    ("# c\nbase: &b x\nother: *b\n", False),  # an anchor after a comment line
    ("# c\u2028base: &b x\nother: *b\n", False),  # U+2028 ends the comment: the anchor is a token
    ("# c\rname: !!str 1\n", False),  # so does a lone \r
    ("name: ! 1\n", False),
    ("name: x\n", True),
])
def test_go_composer_takes_libyaml_when_only_comment_lines_hold_a_tag_or_anchor_character(text, fast):
    """:func:`hooklint.yamlio.go_composer` takes libyaml's composer when ``!`` and ``&`` occur only on
    comment lines (a kustomization commented ``# IBM CP4BA & ODM`` took the pure-Python composer,
    about five times slower), and both composers read such a text alike."""
    from hooklint.yamlio import GoComposer, go_composer, go_value
    import yaml

    chosen = go_composer(text)
    assert (chosen is not GoComposer) is fast
    if fast:  # the pure-Python composer reads the same value
        slow = yaml.compose(text, Loader=GoComposer)
        quick = yaml.compose(text, Loader=chosen)
        assert go_value(quick) == go_value(slow)
    else:
        assert go_first_document(text).value == go_value(yaml.compose(text, Loader=GoComposer))
