"""Inputs a new user's trial run showed mishandled: each case pins the fix."""

import json
import os
from pathlib import Path

import pytest

from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.loader import parse_text
from hooklint.sources.render.helm import find_helm
from hooklint.sources.render.kustomize import find_kustomize

runner = CliRunner()


def test_broken_json_is_a_syntax_error_not_an_unrelated_file(tmp_path, monkeypatch):
    """Argo CD decodes .json files with json.Unmarshal and fails on any error: no "unrelated file"
    pass as for YAML."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "job.json").write_text('{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "x"}, "spec": {')
    result = runner.invoke(app, ["lint", "job.json"])
    assert result.exit_code == 1
    assert result.output.startswith("job.json:1:78: error HL001 yaml-syntax-error: JSON syntax error: ")


def test_a_json_file_with_two_objects_says_so(tmp_path, monkeypatch):
    """repository.go getObjsFromYAMLOrJSON: "Found multiple objects in %q. Only single objects are
    allowed in JSON files." (argo-cd's own testdata/json-list/list.json)."""
    monkeypatch.chdir(tmp_path)
    one = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "%s"}}\n'
    (tmp_path / "two.json").write_text(one % "a" + one % "b")
    result = runner.invoke(app, ["lint", "two.json"])
    assert result.output.splitlines()[0] == (
        "two.json:2:1: error HL001 yaml-syntax-error: JSON syntax error: a second JSON value after the first "
        "object: Argo CD reads one object per .json file (\"Found multiple objects ... Only single objects are "
        "allowed in JSON files\"). Argo CD cannot render this document, so the whole application fails to "
        "sync; fix the JSON.")  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), [
    # items not a list: one object of kind List, with no name
    ("apiVersion: v1\nkind: List\nitems: 5\n", [("HL003", 3, 8, "List's items is an integer, not a list")]),
    # isNullList: items null, no spec, no status: Argo CD takes nothing from it
    ("apiVersion: v1\nkind: ConfigMapList\nitems: null\n", []),
    # IsList does not look at the kind: any document whose items is a sequence is a list
    ("apiVersion: example.com/v1\nkind: Bundle\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n"
     "    name: a\n    annotations:\n      argocd.argoproj.io/sync-wave: 1\n", [("HL004", 9, 37, "Annotation")]),
])  # fmt: skip
def test_lists_are_read_as_argo_cd_reads_them(tmp_path, monkeypatch, text, expected):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "list.yaml").write_text(text)
    doc = json.loads(runner.invoke(app, ["lint", "-f", "json", "list.yaml"]).stdout)
    got = [(f["rule_id"], f["line"], f["column"], f["message"]) for f in doc["findings"]]
    assert [(r, line, col) for r, line, col, _ in got] == [(r, line, col) for r, line, col, _ in expected]
    assert all(message.startswith(start) for (*_, message), (*_, start) in zip(got, expected))


def test_a_helm_chart_folder_is_rendered_and_reported_at_template_lines(tmp_path, monkeypatch):
    if find_helm() is None:
        pytest.skip("no Helm: neither a helm binary nor helm-python-sdk")
    monkeypatch.chdir(tmp_path)
    chart = tmp_path / "deploy" / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: shop\nversion: 1.0.0\n")
    # a template is not YAML until rendered: linted as written, this would be a syntax error
    (chart / "templates" / "cm.yaml").write_text("{{- if .Values.x }}\napiVersion: v1\nkind: ConfigMap\n{{- end }}\n")
    (chart / "templates" / "job.yaml").write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ .Release.Name }}-migrate\n  annotations:\n"
        "    argocd.argoproj.io/hook: PreSync\nspec:\n  backoffLimit: 1\n  activeDeadlineSeconds: 60\n"
        "  template:\n    spec:\n      serviceAccountName: migrate\n      automountServiceAccountToken: false\n"
        "      restartPolicy: Never\n      containers:\n        - name: m\n"
        '          image: "busybox:{{ .Values.tag | default "latest" }}"\n'
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"
    )
    for named in (["deploy"], ["deploy/chart/templates/cm.yaml"]):
        result = runner.invoke(app, ["lint", *named])
        assert result.exit_code == 1, named
        assert result.output.splitlines()[:3] == [
            "deploy/chart/templates/job.yaml:17:11: warning HL102 hook-image-mutable-tag: Image 'busybox:latest' of "
            "container 'm' of Job/chart-migrate uses the mutable tag ':latest': each sync may run different code "
            "than was reviewed. Pin a version tag or, better, an @sha256 digest.",
            "",
            "0 errors, 1 warning, 0 notes in 1 file",
        ], named


def test_unclosed_bracket_at_the_end_points_inside_the_file():
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\nkind: [\n"
    [(issue, index)] = parse_text("x.yaml", text).issues
    assert (issue.kind, index, issue.span.line, issue.span.column) == ("syntax-error", 1, 5, 7)


def test_file_names_that_are_not_utf8_keep_reports_valid(tmp_path):
    os.chdir(tmp_path)
    name = os.fsdecode(b"bad\xffname.yaml")
    with open(name, "w") as handle:
        handle.write("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    x: 5\n")
    result = runner.invoke(app, ["lint", "--format", "json", "."])
    doc = json.loads(result.output)
    assert [f["path"] for f in doc["findings"]] == ["bad\ufffdname.yaml"]
    sarif = runner.invoke(app, ["lint", "--format", "sarif", "."])
    [run] = json.loads(sarif.output)["runs"]
    [location] = run["results"][0]["locations"]
    assert location["physicalLocation"]["artifactLocation"]["uri"] == "bad%EF%BF%BDname.yaml"


def test_a_named_file_argo_cd_never_renders_is_said_not_linted(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "values.yaml").write_text("image:\n  tag: 1.0.0\n")
    result = runner.invoke(app, ["lint", "values.yaml"])
    assert result.exit_code == 0
    assert result.output.splitlines()[:2] == [
        "0 errors, 0 warnings, 0 notes in 0 files",
        "note: 1 file not linted on its own (1 unrelated YAML); --show-skipped lists it.",
    ]


# --- issue 13 item 6: never pass silently on nothing ---------------------------------------------

NO_FILES = "no YAML or JSON file (*.yaml, *.yml, *.json) in this folder or below it; nothing to lint"


@pytest.mark.parametrize("content", [{}, {"README.md": "# app\n", ".github/ci.yaml": "kind: ConfigMap\n"}],
                         ids=["empty-folder", "only-other-files-and-hidden-folders"])  # fmt: skip
def test_a_folder_with_no_manifest_file_is_an_input_error(tmp_path, monkeypatch, content):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "deploy").mkdir()
    for name, text in content.items():
        (tmp_path / "deploy" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "deploy" / name).write_text(text)
    result = runner.invoke(app, ["lint", "--format", "json", "deploy"])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [f"hooklint: error: deploy: {NO_FILES}"]
    assert json.loads(result.stdout)["errors"] == [{"path": "deploy", "message": NO_FILES}]


def test_a_folder_with_manifests_below_it_is_not_empty(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "apps" / "web").mkdir(parents=True)
    (tmp_path / "apps" / "web" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n")
    result = runner.invoke(app, ["lint", "apps"])
    assert (result.exit_code, result.stderr) == (0, "")


def test_files_not_linted_are_listed_in_json_and_with_show_skipped(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n")
    (tmp_path / "app" / "values.yaml").write_text("image:\n  tag: 1.0.0\n")
    (tmp_path / "app" / "draft.yaml").write_text("# +argocd:skip-file-rendering\napiVersion: v1\nkind: ConfigMap\n")
    doc = json.loads(runner.invoke(app, ["lint", "--format", "json", "app"]).stdout)
    assert doc["skipped"] == [
        {"path": "app/draft.yaml", "reason": "+argocd:skip-file-rendering marker: Argo CD never renders it"},
        {"path": "app/values.yaml", "reason": "unrelated YAML: its first document is no Kubernetes object and the file lacks apiVersion:, kind: or metadata:"},
    ]  # fmt: skip
    assert doc["summary"]["files"] == 1
    plain = runner.invoke(app, ["lint", "app"]).stdout.splitlines()
    assert plain[:2] == [
        "0 errors, 0 warnings, 0 notes in 1 file",
        "note: 2 files not linted on their own (1 marked +argocd:skip-file-rendering; 1 unrelated YAML); --show-skipped lists them.",
    ]  # fmt: skip
    assert not any(line.startswith("note: not linted:") for line in plain)
    listed = runner.invoke(app, ["lint", "--show-skipped", "app"]).stdout.splitlines()
    assert [line for line in listed if line.startswith("note: not linted:")] == [
        "note: not linted: app/draft.yaml: +argocd:skip-file-rendering marker: Argo CD never renders it",
        "note: not linted: app/values.yaml: unrelated YAML: its first document is no Kubernetes object and the file lacks apiVersion:, kind: or metadata:",
    ]  # fmt: skip


def test_an_over_size_file_is_counted_as_not_linted(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n")
    (tmp_path / "app" / "big.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n" + "#" * 5000 + "\n")
    (tmp_path / ".hooklint.yaml").write_text("max-file-size: 4096\n")
    result = runner.invoke(app, ["lint", "--format", "json", "app"])
    assert result.exit_code == 2  # still an input error, named on stderr
    doc = json.loads(result.stdout)
    assert doc["skipped"] == [{"path": "app/big.yaml", "reason": "larger than max-file-size (4,096 bytes)"}]
    assert doc["summary"]["files"] == 1
    text = runner.invoke(app, ["lint", "app"]).stdout.splitlines()
    assert text[:2] == ["0 errors, 0 warnings, 0 notes in 1 file", "note: 1 file not linted on its own (1 over max-file-size); --show-skipped lists it."]


# --- issue 13 item 1: a file on disk keeps its own path and lines ----------------------------------

COMMITTED_HELM_OUTPUT = """\
---
# Source: shop/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: shop-config
---
# Source: shop/templates/migrate.yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: shop-migrate
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 0
  activeDeadlineSeconds: 600
  template:
    spec:
      serviceAccountName: shop-migrate
      automountServiceAccountToken: false
      restartPolicy: Never
      containers:
        - name: migrate
          image: ghcr.io/acme/migrate:latest
"""


def test_committed_helm_template_output_keeps_the_files_own_paths_and_lines(tmp_path, monkeypatch):
    """The ``# Source:`` mapping is for piped output only: a folder holding committed ``helm
    template`` output is reported under the file's path and line numbers in every format and in
    the plan (whose rows give each object's first line, in the same file)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "rendered.yaml").write_text(COMMITTED_HELM_OUTPUT)
    text = runner.invoke(app, ["lint", "app"]).stdout
    assert text.startswith("app/rendered.yaml:26:18: warning HL102 hook-image-mutable-tag: ")
    [finding] = json.loads(runner.invoke(app, ["lint", "-f", "json", "app"]).stdout)["findings"]
    assert (finding["path"], finding["line"], finding["column"]) == ("app/rendered.yaml", 26, 18)
    [run] = json.loads(runner.invoke(app, ["lint", "-f", "sarif", "app"]).stdout)["runs"]
    [location] = run["results"][0]["locations"]
    assert location["physicalLocation"]["artifactLocation"]["uri"] == "app/rendered.yaml"
    assert location["physicalLocation"]["region"]["startLine"] == 26
    github = runner.invoke(app, ["lint", "-f", "github", "app"]).stdout
    assert github.startswith("::warning file=app/rendered.yaml,line=26,col=18,endLine=26,endColumn=45,title=HL102 ")
    [application] = json.loads(runner.invoke(app, ["plan", "-f", "json", "app"]).stdout)["applications"]
    rows = [(t["kind"], t["path"], t["line"]) for step in application["steps"] for t in step["tasks"]]
    assert rows == [("Job", "app/rendered.yaml", 9), ("ConfigMap", "app/rendered.yaml", 3)]
    # piped in, the same text is rendered output: the template names and its own lines
    piped = runner.invoke(app, ["lint", "-"], input=COMMITTED_HELM_OUTPUT).stdout
    assert piped.startswith("shop/templates/migrate.yaml:18:18: warning HL102 ")
    [application] = json.loads(runner.invoke(app, ["plan", "-f", "json", "-"], input=COMMITTED_HELM_OUTPUT).stdout)["applications"]
    rows = [(t["kind"], t["path"], t["line"]) for step in application["steps"] for t in step["tasks"]]
    assert rows == [("Job", "shop/templates/migrate.yaml", 1), ("ConfigMap", "shop/templates/configmap.yaml", 1)]


def test_empty_stdin_is_an_input_error_not_a_pass():
    """`helm template ... | hooklint lint -` whose helm failed gives hooklint nothing: exit 2."""
    for text in ("", "\n  \n"):
        result = runner.invoke(app, ["lint", "-"], input=text)
        assert result.exit_code == 2
        assert result.stderr == (
            "hooklint: error: -: standard input is empty: nothing to lint (did the command writing to the pipe fail?)\n")
        assert result.stdout == ""  # no "0 errors ... in 1 file": nothing was linted


def test_only_bad_paths_print_the_errors_alone(tmp_path, monkeypatch):
    """A wrong path in CI: one line per error and exit 2, with no summary claiming a clean run."""
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["lint", "nope.yaml", "gone/"])
    assert result.exit_code == 2
    assert result.stderr == ("hooklint: error: gone: no such file or directory\n"
                             "hooklint: error: nope.yaml: no such file or directory\n")  # fmt: skip
    assert result.stdout == ""
    # machine formats still carry the errors (a GitHub annotation, a JSON "errors" list)
    github = runner.invoke(app, ["lint", "-f", "github", "nope.yaml"])
    assert github.exit_code == 2
    assert github.stdout.splitlines()[0] == "::error file=nope.yaml,title=hooklint::nope.yaml: no such file or directory"


def test_an_unreadable_input_is_not_counted_as_a_linted_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")
    result = runner.invoke(app, ["lint", "cm.yaml", "nope.yaml"])
    assert result.exit_code == 2
    assert result.stdout.splitlines()[0] == "0 errors, 0 warnings, 0 notes in 1 file"


def test_jsonnet_files_of_a_folder_no_application_names_are_hl009(tmp_path, monkeypatch):
    """Argo CD evaluates *.jsonnet in a directory source; hooklint does not run jsonnet. With no
    Application naming the folder, the file is HL009 (tests/test_jsonnet_folders.py), no longer
    only listed as not linted (exit 0, issue 32 F15)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "guestbook.jsonnet").write_text("{ kind: 'ConfigMap' }\n")
    result = runner.invoke(app, ["lint", "--show-skipped", "app"])
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0].startswith(
        "app/guestbook.jsonnet:1:1: warning HL009 source-not-rendered: app/guestbook.jsonnet is jsonnet: no "
        "Application of this repository names app, but Argo CD evaluates the *.jsonnet files")
    assert "not linted" not in result.stdout


# Argo CD's getObjsFromYAMLOrJSON (reposerver/repository/repository.go, v3.5.1): decoding stops at the
# first document it cannot decode; with no object decoded before it, a file lacking any of
# apiVersion:, kind:, metadata: is ignored whole, later documents included.
@pytest.mark.parametrize(("text", "skipped", "rules"), [
    # the first document has no kind and the file has no "metadata:": the ConfigMap is never applied
    ("settings: {a: 1}\n---\napiVersion: v1\nkind: ConfigMap\ndata: {}\n", True, []),
    # the same with a syntax error first, in a text without the word kind, a backslash or a tag
    ("settings: [a\n---\napiVersion: v1\nitems: []\n", True, []),
    # ... with the word kind (here Argo CD passes over it too, but hooklint's reader is not Argo CD's,
    # and a file hooklint cannot read that may hold objects is reported, never passed over: trial 7 F4)
    ("settings: [a\n---\napiVersion: v1\nkind: ConfigMap\ndata: {}\n", False, ["HL001", "HL003"]),
    # all three markers: the decoding failure fails the application (HL003 says so)
    ("settings: {a: 1}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n", False, ["HL003"]),
    # an object decoded first: the later failure fails the application, markers or not
    ("kind: ConfigMap\napiVersion: v1\n---\nsettings: {a: 1}\n", False, ["HL003", "HL003"]),
    # nothing fails: an empty or comment-only file is read and holds nothing
    ("# nothing yet\n", False, []),
    # a byte order mark past the start (attacker trial 40, 4): after a leading --- line Kubernetes'
    # reader keeps it in the first key ("\ufeffx") and decodes one document, the privileged Job
    # (kubectl label --local -f), where libyaml reads a first document without a kind; the file has
    # no "metadata:" (written "metadata :"). Reported, never passed over
    ("---\n\ufeffx: 1\napiVersion: batch/v1\nkind: Job\nmetadata :\n  name: pwn\n  annotations:\n"
     "    argocd.argoproj.io/hook: PreSync\nspec:\n  template:\n    spec:\n      hostPID: true\n"
     "      restartPolicy: Never\n      containers: [{name: c, image: alpine}]\n", False, ["HL003", "HL001"]),
])  # fmt: skip
def test_unrelated_yaml_is_decided_by_the_first_document_argo_cd_cannot_decode(tmp_path, monkeypatch, text, skipped, rules):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "x.yaml").write_text(text)
    doc = json.loads(runner.invoke(app, ["lint", "--format", "json", "app"]).stdout)
    assert [s["path"] for s in doc["skipped"]] == (["app/x.yaml"] if skipped else [])
    assert [f["rule_id"] for f in doc["findings"]] == rules


@pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")
def test_a_marked_file_a_kustomization_lists_is_rendered_and_placed_at_its_own_lines(tmp_path, monkeypatch):
    """The skip marker counts in a directory source only: kustomize renders every file it lists."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "kustomization.yaml").write_text("resources: [cm.yaml]\n")
    (tmp_path / "app" / "cm.yaml").write_text(
        "# +argocd:skip-file-rendering\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n"
        "  annotations:\n    argocd.argoproj.io/sync-wave: \"soon\"\n"
    )
    doc = json.loads(runner.invoke(app, ["lint", "--format", "json", "app"]).stdout)
    assert doc["skipped"] == []
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in doc["findings"]] == [("HL012", "app/cm.yaml", 7, 35)]


def test_hidden_files_are_read_as_argo_cd_reads_them(tmp_path, monkeypatch):
    """findManifests walks with filepath.Walk, which does not pass over names starting with a dot."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app" / ".drafts").mkdir(parents=True)
    (tmp_path / "app" / ".job.yaml").write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  annotations:\n"
        "    argocd.argoproj.io/hook: Presync\n"
    )
    (tmp_path / "app" / ".drafts" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
    doc = json.loads(runner.invoke(app, ["lint", "--format", "json", "--select", "HL010", "app"]).stdout)
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in doc["findings"]] == [("HL010", "app/.job.yaml", 6, 30)]
    assert doc["summary"]["files"] == 1  # a hidden folder is walked only when named
    named = json.loads(runner.invoke(app, ["lint", "--format", "json", "app/.drafts"]).stdout)
    assert named["summary"]["files"] == 1


def test_a_folder_whose_every_file_is_excluded_is_an_input_error(tmp_path, monkeypatch):
    """An over-broad exclude must not make a required check pass with nothing checked; a file
    named on its own and excluded (as pre-commit names them) is just not reported."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")
    result = runner.invoke(app, ["lint", "--exclude", "*.yaml", "app"])
    assert (result.exit_code, result.stderr) == (2, (
        "hooklint: error: app: every YAML or JSON file in this folder or below it is excluded (exclude, --exclude); "
        "nothing to lint\n"))
    assert runner.invoke(app, ["lint", "--exclude", "*.yaml", "app/cm.yaml"]).exit_code == 0


@pytest.mark.parametrize("device", ["/dev/null", "/dev/zero"])
def test_a_device_named_on_the_command_line_is_an_input_error(device):
    """``/dev/null`` passed as an empty manifest (exit 0), ``/dev/zero`` was read to max-file-size."""
    result = runner.invoke(app, ["lint", device])
    assert (result.exit_code, result.output) == (2, f"hooklint: error: {device}: not a regular file (a device); not read\n")


def test_an_empty_pipe_is_an_input_error_and_a_full_one_is_linted(tmp_path):
    """``hooklint lint <(false)``: the command writing to the pipe failed, which passed silently."""
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "HOOKLINT_CACHE_DIR"} | {"HOOKLINT_CACHE_DIR": "off"}
    outcomes = []
    for text in (b"", b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"):
        read, write = os.pipe()
        os.write(write, text)
        os.close(write)
        done = subprocess.run([sys.executable, "-m", "hooklint", "lint", f"/dev/fd/{read}"], pass_fds=(read,),
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)  # fmt: skip
        os.close(read)
        outcomes.append((done.returncode, done.stderr.replace(f"/dev/fd/{read}", "PIPE").splitlines()[:1]))
    assert outcomes[0] == (2, ["hooklint: error: PIPE: the pipe is empty: nothing to lint (did the "
                               "command writing to it fail?)"])  # fmt: skip
    assert outcomes[1] == (0, [])


def test_an_unpaired_surrogate_escape_is_read_as_go_reads_it():
    """A ``.json`` file, and a YAML file opening with ``{``, are decoded by Go's encoding/json, which
    reads ``\\ud800`` alone as U+FFFD (it was a false HL001, "found invalid Unicode character escape
    code"); go-yaml refuses the same escape in YAML, so a YAML document keeps its HL001. A pair is one
    character, an escaped backslash stays (tests/test_json_reading.py)."""
    from hooklint.loader import go_json_surrogates

    assert go_json_surrogates(r'["s\ud800", "\ud83d\ude00", "\\ud800", "\\\udc00x", "\ud800\u0041"]') == (
        r'["s\ufffd", "\U0001f600", "\\ud800", "\\\ufffdx", "\ufffd\u0041"]', [23])
    text = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": "s\\ud800"}}\n'
    for name in ("cm.json", "cm.yaml"):
        [doc] = parse_text(name, text).documents
        assert doc.value["data"]["k"] == "s\ufffd"
    yaml_text = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: "s\\ud800"}\n'
    assert [issue.kind for issue, _ in parse_text("cm.yaml", yaml_text).issues] == ["syntax-error"]


def test_dev_stdin_is_the_users_input_not_a_link_out_of_a_repository(tmp_path):
    """``hooklint lint /dev/stdin < job.yaml`` was HL007 "a symbolic link to .../job.yaml, outside
    the repository" (second helper trial): a stream named on the command line links to a
    descriptor, and is read as the input it is."""
    import subprocess
    import sys

    job = (Path(__file__).resolve().parents[1] / "examples/bad/migrate-job.yaml").read_bytes()
    env = {k: v for k, v in os.environ.items() if k != "HOOKLINT_CACHE_DIR"} | {"HOOKLINT_CACHE_DIR": "off"}
    done = subprocess.run([sys.executable, "-m", "hooklint", "lint", "-f", "json", "/dev/stdin"], input=job,
                          cwd=tmp_path, env=env, capture_output=True, timeout=60)  # fmt: skip
    found = sorted({f["rule_id"] for f in json.loads(done.stdout)["findings"]})
    assert done.returncode == 1 and "HL007" not in found and "HL102" in found, (done.returncode, found)
