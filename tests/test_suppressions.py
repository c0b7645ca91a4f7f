"""Suppressions with reasons (issue 10, part 2): the ``hooklint.io/ignore`` annotation and the
``# hooklint: ignore[...]`` comment, HL902 for a suppression without a reason, and how each report
shows (or leaves out) what a suppression hides."""

import json
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from hooklint.cli import app

SHARED = Path(__file__).resolve().parents[2] / "shared"
runner = CliRunner()

#: A privileged PreSync hook: HL105 at the privileged: true value (column 25), and nothing else.
PRIVILEGED = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: node-tuning
  annotations:
    argocd.argoproj.io/hook: PreSync
{annotation}spec:
  backoffLimit: 0
  activeDeadlineSeconds: 60
  template:
    spec:
      restartPolicy: Never
      automountServiceAccountToken: false
      serviceAccountName: tuning
      containers:
        - name: tune
          image: ghcr.io/acme/node-tuning:0.5.0
          securityContext:
{comment}            privileged: true{trailing}
"""


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def job(annotation: str = "", comment: str = "", trailing: str = "") -> str:
    if annotation:
        annotation = f"    hooklint.io/ignore: \"{annotation}\"\n"
    if comment:
        comment = f"            {comment}\n"
    return PRIVILEGED.format(annotation=annotation, comment=comment, trailing=trailing)


@pytest.fixture
def tree(tmp_path, monkeypatch):
    (tmp_path / ".hooklint.yaml").write_text("allowed-registries: [ghcr.io/acme]\n")
    (tmp_path / "app").mkdir()
    (tmp_path / "app/config.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def lint(tree: Path, text: str, *args: str):
    (tree / "app/job.yaml").write_text(text)
    return runner.invoke(app, ["lint", *args, "app"])


def test_the_unsuppressed_job_has_one_finding(tree):
    result = lint(tree, job())
    assert result.exit_code == 1
    assert [l.split(": ")[0] + ": " + l.split(": ")[1] for l in result.output.splitlines() if " HL" in l] == [
        "app/job.yaml:19:25: error HL105 hook-privileged-pod"]


@pytest.mark.parametrize(
    "text, kind, reason",
    [
        (job(annotation="HL105: tunes sysctls"), "annotation", "tunes sysctls"),
        (job(annotation="hook-privileged-pod: tunes sysctls; HL201"), "annotation", "tunes sysctls"),
        (job(trailing="  # hooklint: ignore[HL105] tunes sysctls"), "comment", "tunes sysctls"),
        (job(comment="# hooklint: ignore[HL104, hook-privileged-pod]   reviewed by platform"), "comment", "reviewed by platform"),
    ],
)  # fmt: skip
def test_suppressed_findings_are_counted_not_shown(tree, text, kind, reason):
    result = lint(tree, text, "--select", "HL105")
    line = line_of(text, "privileged: true")
    assert (result.exit_code, result.output) == (0, "0 errors, 0 warnings, 0 notes in 2 files, 1 suppressed\n")
    shown = lint(tree, text, "--select", "HL105", "--show-suppressed").output.splitlines()
    assert shown[0].startswith(f"app/job.yaml:{line}:25: error HL105 hook-privileged-pod: ")
    assert shown[0].endswith(f" [suppressed by {kind}: {reason}]")
    doc = json.loads(lint(tree, text, "--select", "HL105", "--format", "json").output)
    assert [(f["rule_id"], f["suppression"]) for f in doc["findings"]] == [("HL105", {"kind": kind, "reason": reason})]
    assert doc["summary"] == {"error": 0, "warning": 0, "note": 0, "files": 2, "suppressed": 1, "stale_baseline": 0}
    for fmt in ("github", "gitlab"):
        out = lint(tree, text, "--select", "HL105", "--format", fmt).output
        assert "HL105" not in out, fmt


def test_a_trailing_comment_on_the_line_above_does_not_reach_down(tree):
    text = job().replace("          securityContext:\n", "          securityContext:  # hooklint: ignore[HL105] no\n")
    result = lint(tree, text, "--select", "HL105,HL901")
    assert [l.split(": ")[1] for l in result.output.splitlines() if " HL" in l] == [
        "note HL901 unused-suppression", "error HL105 hook-privileged-pod"]


def test_comment_without_reason_still_applies_and_is_reported(tree):
    result = lint(tree, job(comment="# hooklint: ignore[HL105]"), "--select", "HL105,HL902")
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        "app/job.yaml:19:13: warning HL902 suppression-without-reason: Comment 'hooklint: ignore[HL105]' gives no "
        "reason: write why the finding is accepted after the ']' (\"# hooklint: ignore[HL105] reason\"). The "
        "suppression still applies.")
    assert result.output.endswith("0 errors, 1 warning, 0 notes in 2 files, 1 suppressed\n")


def test_annotation_entry_without_reason_still_applies_and_is_reported(tree):
    result = lint(tree, job(annotation="HL105"), "--select", "HL105,HL902")
    assert result.output.splitlines()[0] == (
        "app/job.yaml:7:25: warning HL902 suppression-without-reason: hooklint.io/ignore entry 'HL105' on "
        "Job/node-tuning gives no reason: write why the finding is accepted after a ':' (\"HL105: reason\"). "
        "The suppression still applies.")
    doc = json.loads(lint(tree, job(annotation="HL105"), "--select", "HL105,HL902", "--format", "json").output)
    assert [(f["rule_id"], f["suppression"]) for f in doc["findings"]] == [
        ("HL902", None), ("HL105", {"kind": "annotation", "reason": None})]


def test_stale_and_unknown_comment_entries_are_hl901(tree):
    text = job(comment="# hooklint: ignore[HL105, HL204, HL77] tuning")
    result = lint(tree, text, "--select", "HL105,HL204,HL901")
    assert [l for l in result.output.splitlines() if " HL" in l] == [
        "app/job.yaml:19:13: note HL901 unused-suppression: Comment 'hooklint: ignore[HL105, HL204, HL77]' entry "
        "'HL204' suppressed nothing: a stale suppression hides the next real finding. Remove the entry.",
        "app/job.yaml:19:13: note HL901 unused-suppression: Comment 'hooklint: ignore[HL105, HL204, HL77]' entry "
        "'HL77' names no hooklint rule: write rule ids or slugs, separated by commas, with an optional ': reason', "
        "and entries separated by ';'.",
    ]


@pytest.mark.skipif(not (SHARED / "schemas").is_dir(), reason="the SARIF schemas live in ../shared/schemas")
def test_sarif_keeps_suppressed_results_in_source(tree):
    text = job(trailing="  # hooklint: ignore[HL105] tunes sysctls")
    doc = json.loads(lint(tree, text, "--select", "HL105", "--format", "sarif").output)
    for name, cls in (("sarif-schema-2.1.0.json", jsonschema.Draft4Validator),
                      ("github-codeql-action-sarif-schema-2.1.0.json", jsonschema.Draft202012Validator)):  # fmt: skip
        schema = json.loads((SHARED / "schemas" / name).read_text(encoding="utf-8"))
        assert [e.message for e in cls(schema).iter_errors(doc)] == []
    results = doc["runs"][0]["results"]
    assert [(r["ruleId"], r["suppressions"]) for r in results] == [
        ("HL105", [{"kind": "inSource", "status": "accepted", "justification": "tunes sysctls"}])]
