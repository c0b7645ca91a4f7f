"""Documents are cut where Argo CD cuts them (attack round 14, break 1).

Argo CD reads every stream (a directory's files, ``helm template`` and ``kustomize build`` output)
with k8s.io/apimachinery ``pkg/util/yaml/decoder.go`` ``YAMLReader.Read`` (v0.36.1 at argo-cd
v3.5.1): a line whose first three bytes are ``---`` ends a document when what follows it,
``strings.TrimSpace``'d, is empty or starts with ``#``; anything else after ``---`` fails the
whole stream ("invalid Yaml document separator"). libyaml needs a blank after ``---``, so a line
``---#: "`` was a key to hooklint whose quoted value swallowed the privileged PreSync Job Argo CD
applies. Each chunk is then read by sigs.k8s.io/yaml, which keeps its first YAML document only
(a ``...`` line ends it). Every test here failed before the fix; the inputs are written from
scratch."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from conftest import git
from hooklint.cli import app
from hooklint.loader import cuts_like_libyaml, go_yaml_chunks, parse_text
from hooklint.sources.render.helm import find_helm

runner = CliRunner()
needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")

CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flags\ndata:\n  level: warn\n"
#: A hook Job with two HL105 errors (hostNetwork at its line 11, column 20; a privileged container
#: at line 18, column 15) among other findings.
HOOK_JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: sneaky
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  template:
    spec:
      restartPolicy: Never
      hostNetwork: true
      containers:
        - name: run
          image: registry.example.com/tool:1.2.3
          command: [sh]
          securityContext:
            privileged:
              true
"""


def lint(*args: str) -> tuple[int, list[tuple[str, int, int, str]], str]:
    result = runner.invoke(app, ["lint", "--format", "json", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    doc = json.loads(result.stdout)
    found = sorted((f["path"], f["line"], f["column"], f["rule_id"]) for f in doc["findings"])
    return result.exit_code, found, "\n".join(f["message"] for f in doc["findings"])


def hl105(path: str, first_line: int) -> list[tuple[str, int, int, str]]:
    """HOOK_JOB's two HL105 errors when its first line is ``first_line`` of ``path``."""
    return [(path, first_line + 10, 20, "HL105"), (path, first_line + 17, 15, "HL105")]


def read_issues(loaded):
    """The issues of reading, without the SEPARATOR_TEXT notes for Argo CD before 2.2.0."""
    return [(issue, index) for issue, index in loaded.issues if issue.kind != "separator-text"]


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    (tmp_path / "app").mkdir()
    return tmp_path


# --- the cut itself ---------------------------------------------------------------------------


def test_hash_after_dashes_ends_the_document():
    text = CONFIG_MAP + '---#: "\n' + HOOK_JOB + '#"\n'
    loaded = parse_text("cm.yaml", text)
    assert [d.value["kind"] for d in loaded.documents] == ["ConfigMap", "Job"]
    job = loaded.documents[1].value
    assert (job.span.line, job.span.column) == (8, 1)  # its own lines, as written
    assert job.key_span("spec").line == 14
    assert read_issues(loaded) == []


@pytest.mark.parametrize("line", ["---#x", "---\t#x", "--- #x", "---\u3000", "---\u3000# x", "---\x0b", "---\r"])
def test_every_separator_go_takes_ends_the_document(line):
    text = "a: 1\n" + line + '\nb: "2\nkind: Job\n"\n'
    loaded = parse_text("x.yaml", text)
    assert [dict(d.value) for d in loaded.documents] == [{"a": 1}, {"b": "2 kind: Job "}]
    assert read_issues(loaded) == []


def test_a_separator_opening_an_empty_chunk_is_text_to_go():
    # YAMLReader writes a separator met with an empty buffer into the chunk: go-yaml reads it there
    text = '---#: "\n' + HOOK_JOB + '#"\n'
    loaded = parse_text("x.yaml", text)
    assert len(loaded.documents) == 1 and list(loaded.documents[0].value) == ["---#"]
    text = '---\n---#: "\n' + HOOK_JOB + '#"\n'  # the first "---" fills the buffer
    assert [d.value.get("kind") for d in parse_text("x.yaml", text).documents] == ["Job"]
    text = '\n---#: "\n' + HOOK_JOB + '#"\n'  # so does a blank line
    assert [d.value.get("kind") for d in parse_text("x.yaml", text).documents] == ["Job"]


def test_invalid_separator_is_hl001_where_it_is_written():
    text = CONFIG_MAP + "--- kind: Job\n" + HOOK_JOB
    loaded = parse_text("x.yaml", text)
    [(issue, _)] = read_issues(loaded)
    assert (issue.kind, issue.span.line, issue.span.column) == ("syntax-error", 7, 1)
    assert issue.detail == (
        "invalid Yaml document separator: kind: Job: a line that starts with '---' separates documents for Argo CD "
        "(k8s.io/apimachinery YAMLReader), and only spaces or a '#' comment may follow it, so Argo CD fails to read "
        "the whole source; put the text on its own line after a '---' line")
    # the documents on either side are still read (their findings are not lost)
    assert [d.value["kind"] for d in loaded.documents] == ["ConfigMap", "Job"]
    assert loaded.documents[1].value.span.line == 8


def test_document_after_dots_is_not_read_as_argo_cd_does_not():
    # no "---" after "...": one chunk for Go, whose first document only sigs.k8s.io/yaml reads
    loaded = parse_text("x.yaml", CONFIG_MAP + "...\n" + HOOK_JOB)
    assert [d.value["kind"] for d in loaded.documents] == ["ConfigMap"]
    assert read_issues(loaded) == []  # libyaml alone wants a "---" there ("did not find expected <document start>")
    loaded = parse_text("x.yaml", CONFIG_MAP + "...\n---\n" + HOOK_JOB)
    assert [d.value["kind"] for d in loaded.documents] == ["ConfigMap", "Job"]


def test_markers_after_other_line_breaks_do_not_cut_for_go():
    # CR alone, NEL, LS and PS end a line for libyaml, never for Go's line reader
    for brk in ("\r", "\x85", "\u2028", "\u2029"):
        loaded = parse_text("x.yaml", f"a: 1{brk}---{brk}b: 2\n")
        assert [dict(d.value) for d in loaded.documents] == [{"a": 1}], repr(brk)


def test_indented_dashes_and_dashes_in_text_do_not_cut():
    text = "a: |\n  x\n  ---#\n  --- y\nb: 2\n"
    loaded = parse_text("x.yaml", text)
    assert [dict(d.value) for d in loaded.documents] == [{"a": "x\n---#\n--- y\n", "b": 2}]
    assert cuts_like_libyaml(text)


def test_fast_path_only_where_libyaml_cuts_alike():
    assert cuts_like_libyaml("a: 1\n---\nb: 2\n--- # c\nc: 3\n---\r\nd: 4\n")
    for text in ("a: 1\n---#\nb: 2\n", "a: 1\n---x\n", "a: 1\n...\nb: 2\n", "a: 1\r---\rb: 2\n", "---#\na: 1\n"):
        assert not cuts_like_libyaml(text), repr(text)
    chunks = go_yaml_chunks("---\na: 1\n---#\nb: 2\n---x\nc: 3\n---")
    assert chunks.spans == [(0, 9), (14, 19), (24, 29), (32, 32)]
    assert chunks.invalid == [(19, "x")]


# --- the commands --------------------------------------------------------------------------


def test_lint_reads_the_job_hidden_behind_a_hash_separator(folder):
    (folder / "app" / "cm.yaml").write_text(CONFIG_MAP + '---#: "\n' + HOOK_JOB + '#"\n')
    code, found, _ = lint("app")
    assert code == 1
    assert [f for f in found if f[3] == "HL105"] == hl105("app/cm.yaml", 8)
    result = runner.invoke(app, ["plan", "app"])
    assert result.output.startswith("Application app: 2 objects, 2 steps"), result.output
    assert "  1     PreSync  0     Job        sneaky          PreSync" in result.output


def test_lint_reads_the_job_in_a_file_that_would_look_unrelated(folder):
    # a comment fills the buffer; "metadata :" keeps the literal "metadata:" out of the file
    job = HOOK_JOB.replace("metadata:\n", "metadata :\n")
    (folder / "app" / "job.yaml").write_text('# settings\n---#x: "\n' + job + '#"\n')
    code, found, _ = lint("app")
    assert code == 1
    assert [f for f in found if f[3] == "HL105"] == hl105("app/job.yaml", 3)


def test_lint_fails_closed_on_a_separator_argo_cd_refuses(folder):
    (folder / "app" / "cm.yaml").write_text(CONFIG_MAP + "---x\n" + CONFIG_MAP.replace("flags", "more"))
    code, found, messages = lint("app")
    assert code == 1
    assert found == [("app/cm.yaml", 7, 1, "HL001")]
    assert "invalid Yaml document separator: x:" in messages


def test_diff_reports_the_hidden_job_as_new(folder):
    repo = folder
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "ci@example.com")
    git(repo, "config", "user.name", "ci")
    (repo / "app" / "cm.yaml").write_text(CONFIG_MAP)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    (repo / "app" / "cm.yaml").write_text(CONFIG_MAP + '---#: "\n' + HOOK_JOB + '#"\n')
    git(repo, "commit", "-qam", "head")
    result = runner.invoke(app, ["diff", "--format", "json", "HEAD~1", "app"])
    assert result.exit_code == 1, result.output
    new = sorted((f["path"], f["line"], f["column"], f["rule_id"]) for f in json.loads(result.stdout)["new"])
    assert [f for f in new if f[3] == "HL105"] == hl105("app/cm.yaml", 8)


@needs_helm
def test_helm_template_opening_with_a_hash_separator(folder):
    chart = folder / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: chart\nversion: 0.1.0\n")
    # Helm's SplitManifests leaves the piece opening with '---#: "'; helm template prints it after
    # "# Source: ...", so Argo CD's YAMLReader ends a chunk there and reads the Job
    (chart / "templates" / "job.yaml").write_text('---\n---#: "\n' + HOOK_JOB + '#"\n')
    code, found, _ = lint("chart")
    assert code == 1
    assert ("chart/templates/job.yaml", 13, 7, "HL105") in found  # the template's hostNetwork: true
    assert not [f for f in found if f[3] in ("HL001", "HL003")]


def test_stdin_is_cut_as_argo_cd_cuts_it(folder):
    result = runner.invoke(app, ["lint", "--format", "json", "-"], input=CONFIG_MAP + '---#: "\n' + HOOK_JOB + '#"\n')
    assert result.exit_code == 1, result.output
    found = sorted((f["path"], f["line"], f["column"], f["rule_id"]) for f in json.loads(result.stdout)["findings"])
    assert [f for f in found if f[3] == "HL105"] == hl105("-", 8)


# --- the rule before Argo CD 2.2.0 -------------------------------------------------------------


@pytest.mark.parametrize(("line", "shown"), [("--- # note", "# note"), ("---#x", "#x"), ("---x", "x")])
def test_before_2_2_a_dashes_line_with_text_is_hl001(folder, line, shown):
    # k8s.io/apimachinery before v0.22.0 (argo-cd before v2.2.0): only "---" and spaces separate
    (folder / ".hooklint.yaml").write_text('argocd-version: "2.1.0"\n')
    (folder / "app" / "cm.yaml").write_text(CONFIG_MAP + line + "\n" + CONFIG_MAP.replace("flags", "more"))
    code, found, messages = lint("app")
    assert code == 1
    assert found == [("app/cm.yaml", 7, 1, "HL001")]
    assert messages == (
        f"'---' followed by '{shown}': hooklint cuts documents here as Argo CD reads them from 2.2 "
        "(k8s.io/apimachinery YAMLReader v0.22.0), but Argo CD 2.1 reads only '---' and spaces as a separator and "
        "this line as text in the document, so it may apply objects hooklint did not check. Put the text on its own "
        "line after a '---' line.")


@pytest.mark.parametrize("version", ["2.1.0", "2.2.0", "3.5.1"])
def test_plain_separators_are_fine_in_every_release(folder, version):
    (folder / ".hooklint.yaml").write_text(f'argocd-version: "{version}"\n')
    (folder / "app" / "cm.yaml").write_text(CONFIG_MAP + "---   \n" + CONFIG_MAP.replace("flags", "more"))
    assert lint("app")[:2] == (0, [])


def test_from_2_2_a_comment_after_dashes_is_no_finding(folder):
    (folder / ".hooklint.yaml").write_text('argocd-version: "2.2.0"\n')
    (folder / "app" / "cm.yaml").write_text(CONFIG_MAP + "--- # note\n" + CONFIG_MAP.replace("flags", "more"))
    assert lint("app")[:2] == (0, [])


def test_an_application_behind_a_hash_separator_is_on_the_map(folder):
    # discovery reads Applications with the same loader: the one Argo CD applies is found
    repo = folder
    git(repo, "init", "-q", "-b", "main")
    git(repo, "remote", "add", "origin", "https://github.com/acme/deploy.git")
    (repo / "apps").mkdir()
    (repo / "apps" / "app.yaml").write_text(CONFIG_MAP + '---#: "\n' + """apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: shop
  namespace: argocd
spec:
  project: default
  source:
    repoURL: https://github.com/acme/deploy.git
    path: app
    targetRevision: HEAD
  destination:
    server: https://kubernetes.default.svc
    namespace: shop
#"
""")
    (repo / "app" / "cm.yaml").write_text(CONFIG_MAP)
    result = runner.invoke(app, ["plan", "."])
    assert result.exit_code == 0, result.output
    assert "Application app: 1 object, 1 step (Argo CD 3.5.1, directory source of Application shop (apps/app.yaml:16))" \
        in result.output, result.output
