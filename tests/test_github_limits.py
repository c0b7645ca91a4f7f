"""GitHub's limits and parsers, as clients of hooklint's outputs meet them (issue 35, item 3):
code scanning's 25,000 results per run, the runner's ten annotations of each level per step, the
runner's legacy ``##[command]`` form read anywhere in a line, a review's own SARIF category, and the
composite action's versions, Helm extra and comment step."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from hooklint.catalog import load_catalog
from hooklint.cli import app
from hooklint.findings import Finding, InputError, ObjectRef, RunResult, Span, Suppression
from hooklint.reporters import github, sarif
from tests.manifests import HL102_BAD

REPO = Path(__file__).resolve().parents[1]
SCHEMAS = REPO.parent / "shared" / "schemas"
runner = CliRunner()


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """An empty repository (a folder with .git) as the current directory."""
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    return tmp_path


def finding(i: int, severity: str, suppressed: bool = False) -> Finding:
    """Finding number ``i`` of a large run: one per line, a hundred lines per file."""
    return Finding("HL102", "hook-image-mutable-tag", severity, f"Finding {i}.", f"deploy/app{i // 100:03d}/job.yaml",
                   Span(i % 100 + 1, 3, i % 100 + 1, 9), ObjectRef("batch/v1", "Job", f"job-{i}"),
                   field_path="spec.template.spec.containers[0].image",
                   suppression=Suppression("annotation", "accepted") if suppressed else None)  # fmt: skip


# --- SARIF: at most 25,000 results per run ----------------------------------------------------


def test_sarif_of_30000_findings_validates_and_holds_25000_results_errors_first(repo):
    """A run over 25,000 results is rejected whole by code scanning (hooklint wrote 30,001)."""
    assert sarif.MAX_RESULTS == 25_000
    severities = ["error" if i % 10 == 0 else "warning" if i % 10 < 4 else "note" for i in range(30_000)]
    findings = [finding(i, severity) for i, severity in enumerate(severities)]  # 3,000 e, 9,000 w, 18,000 n
    result = RunResult(findings=sorted(findings, key=Finding.sort_key), files=300)
    doc = json.loads(sarif.render(result, load_catalog()))
    run = doc["runs"][0]
    # the schemas bound no array's length: every 99th result, of every level, stands for the others
    # (validating all 25,000 took 40 s of CPU)
    sample = {**doc, "runs": [{**run, "results": run["results"][::99]}]}
    assert {r["level"] for r in sample["runs"][0]["results"]} == {"error", "warning", "note"}
    for name, cls in (("sarif-schema-2.1.0.json", jsonschema.Draft4Validator),
                      ("github-codeql-action-sarif-schema-2.1.0.json", jsonschema.Draft202012Validator)):  # fmt: skip
        schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
        assert "maxItems" not in json.dumps(schema), name
        validator = cls(schema)
        assert next(iter(validator.iter_errors(sample)), None) is None, name
    results = run["results"]
    assert len(results) == 25_000
    counts = {level: sum(1 for r in results if r["level"] == level) for level in ("error", "warning", "note")}
    assert counts == {"error": 3_000, "warning": 9_000, "note": 13_000}
    # kept in report order: the first notes of the report are the ones kept
    kept_notes = [int(r["message"]["text"].split()[1].rstrip(".")) for r in results if r["level"] == "note"]
    assert kept_notes == sorted(kept_notes) and kept_notes[-1] < 22_000
    message = ("SARIF: 25,000 of 30,000 results written, 5,000 notes left out (GitHub code scanning rejects a run "
               "of more than 25,000 results); 'hooklint lint --format json' lists every finding")  # fmt: skip
    assert run["invocations"] == [{"executionSuccessful": True, "toolExecutionNotifications": [
        {"level": "warning", "message": {"text": message + "."}}]}]  # fmt: skip
    assert run["properties"] == {"resultsLeftOut": {"note": 5_000}, "resultsLimit": 25_000}
    assert sarif.left_out_message(result) == message


def test_sarif_cap_keeps_live_findings_before_suppressed_ones(repo):
    findings = [finding(0, "note"), finding(1, "error", suppressed=True), finding(2, "warning"), finding(3, "error")]
    result = RunResult(findings=[findings[0], findings[2], findings[3]], suppressed=[findings[1]], files=1)
    run = json.loads(sarif.render(result, load_catalog(), limit=2))["runs"][0]
    assert [(r["message"]["text"], r["level"]) for r in run["results"]] == [("Finding 2.", "warning"), ("Finding 3.", "error")]
    assert run["properties"] == {"resultsLeftOut": {"error": 1, "note": 1}, "resultsLimit": 2}
    assert sarif.left_out_message(result, limit=2) == (
        "SARIF: 2 of 4 results written, 1 error, 1 note left out (GitHub code scanning rejects a run of more than 2 "
        "results); 'hooklint lint --format json' lists every finding")  # fmt: skip
    assert sarif.left_out_message(result) is None
    assert "properties" not in json.loads(sarif.render(result, load_catalog()))["runs"][0]


def test_lint_says_on_stderr_what_the_sarif_left_out(repo, monkeypatch):
    """End to end with the limit lowered to 2: the file holds 3 results, the log says so."""
    (repo / "deploy").mkdir()
    (repo / "deploy/job.yaml").write_text(HL102_BAD)
    monkeypatch.setattr(sarif, "MAX_RESULTS", 2)
    result = runner.invoke(app, ["lint", "-f", "sarif", "-o", "out.sarif", "--select", "HL102,HL201,HL202", "deploy"])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "hooklint: warning: SARIF: 2 of 3 results written, 1 warning left out (GitHub code scanning rejects a run of "
        "more than 2 results); 'hooklint lint --format json' lists every finding",
        "hooklint: 0 errors, 3 warnings, 0 notes in 1 file (report in out.sarif)",
    ]  # fmt: skip
    run = json.loads((repo / "out.sarif").read_text())["runs"][0]
    assert [r["ruleId"] for r in run["results"]] == ["HL201", "HL202"]
    assert run["properties"]["resultsLeftOut"] == {"warning": 1}


# --- -f github: at most ten annotations of each level --------------------------------------------


def test_github_prints_ten_annotations_of_each_level_errors_first(repo):
    findings = [finding(i, "warning") for i in range(12)] + [finding(100 + i, "error") for i in range(11)]
    findings += [finding(200 + i, "note") for i in range(3)]
    result = RunResult(findings=sorted(findings, key=Finding.sort_key), files=3,
                       errors=[InputError("deploy/missing.yaml", "no such file or directory")])  # fmt: skip
    lines = github.render(result, load_catalog()).splitlines()
    commands = [line.split(" ", 1)[0] for line in lines if line.startswith("::")]
    assert commands == ["::error"] * 10 + ["::warning"] * 10 + ["::notice"] * 3
    assert lines[0] == "::error file=deploy/missing.yaml,title=hooklint::deploy/missing.yaml: no such file or directory"
    assert lines[1].endswith("::Finding 100.") and lines[9].endswith("::Finding 108.")
    assert lines[10].endswith("::Finding 0.") and lines[19].endswith("::Finding 9.")
    assert lines[23:] == [
        "hooklint: 2 errors, 2 warnings not shown as annotations (GitHub shows 10 of each level per step); "
        "'hooklint lint --format text' lists every finding",
        "11 errors, 12 warnings, 3 notes in 3 files",
    ]  # fmt: skip


def test_github_under_the_limit_has_no_left_out_line(repo):
    result = RunResult(findings=[finding(i, "note") for i in range(10)], files=1)
    lines = github.render(result, load_catalog()).splitlines()
    assert len(lines) == 11 and lines[-1] == "0 errors, 0 warnings, 10 notes in 1 file"


# --- the runner's legacy ##[command] form, anywhere in a line ------------------------------------

FORGING_JOB = HL102_BAD.replace("name: db-migrate", "name: x##[warning]forged").replace(
    "image: ghcr.io/acme/migrate:latest", "image: ghcr.io/acme/##[error]forged:latest")
FORGING_APP = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: x##[warning]forged-app
  namespace: argocd
spec:
  project: default
  source:
    repoURL: https://github.com/acme/elsewhere.git
    path: deploy
    targetRevision: main
  destination:
    server: https://kubernetes.default.svc
    namespace: shop
"""


@pytest.mark.parametrize("fmt", ["text", "github", "markdown"])
def test_no_output_holds_the_runners_legacy_command_form(repo, fmt):
    """An Application named ``x##[warning]...`` forged a warning from a ``-f github`` note; an
    image holding ``##[error]`` forged an error from the text report."""
    assert "image: ghcr.io/acme/##[error]forged:latest" in FORGING_JOB
    (repo / "deploy").mkdir()
    (repo / "deploy/job.yaml").write_text(FORGING_JOB)
    (repo / "apps").mkdir()
    (repo / "apps/app.yaml").write_text(FORGING_APP)
    result = runner.invoke(app, ["lint", "-f", fmt, "--select", "HL102", "deploy", "apps"])
    assert result.exit_code == 1, result.output
    assert "##[" not in result.stdout and "##[" not in result.stderr
    assert "Job/x#\\x23[warning]forged" in result.stdout.replace("\\\\", "\\").replace("\\[", "[").replace("\\]", "]")
    if fmt == "text":
        assert result.stdout.splitlines()[0] == (
            "deploy/job.yaml:12:18: warning HL102 hook-image-mutable-tag: Image 'ghcr.io/acme/#\\x23[error]forged:latest' "
            "of container 'migrate' of Job/x#\\x23[warning]forged uses the mutable tag ':latest': each sync may run "
            "different code than was reviewed. Pin a version tag or, better, an @sha256 digest.")  # fmt: skip


def test_legacy_command_escape_covers_every_occurrence():
    from hooklint.text import escape_commands, escape_controls

    assert escape_commands("a##[b ###[c ##x [") == "a#\\x23[b ##\\x23[c ##x ["
    assert escape_controls("x##[warning]y\x1b") == "x#\\x23[warning]y\\x1b"
    # a suppression's reason, from the repository, in the text report
    f = Finding("HL999", "some-rule", "warning", "m", "a.yaml", Span(1, 1, 1, 2), suppression=Suppression("comment", "##[error]x"))
    from hooklint.reporters import text

    assert text.render(RunResult(suppressed=[f], files=1), show_suppressed=True).splitlines()[0] == (
        "a.yaml:1:1: warning HL999 some-rule: m [suppressed by comment: #\\x23[error]x]")


# --- hooklint diff -f sarif has its own category --------------------------------------------------


def test_review_sarif_category_is_never_lints():
    from hooklint.review.report import diff_category

    assert diff_category("hooklint") == "hooklint/diff"
    assert diff_category("prod/") == "prod/diff"


@pytest.mark.parametrize("fmt", ["json", "gitlab", "sarif"])
def test_json_reports_hold_no_legacy_command_form_and_decode_to_the_values(repo, fmt):
    """JSON keeps values as the manifest holds them; its text writes the second # of ##[ as
    \\u0023, which decodes to the same value, so a JSON report printed in a step forges nothing."""
    (repo / "deploy").mkdir()
    (repo / "deploy/job.yaml").write_text(FORGING_JOB)
    result = runner.invoke(app, ["lint", "-f", fmt, "--select", "HL102", "deploy"])
    assert result.exit_code == 1
    assert "##[" not in result.stdout
    if fmt == "json":
        assert "#\\u0023[" in result.stdout
        assert json.loads(result.stdout)["findings"][0]["object"]["name"] == "x##[warning]forged"


@pytest.mark.parametrize("fmt", ["text", "concise", "markdown"])
def test_a_path_starting_with_two_colons_forges_no_workflow_command(repo, fmt):
    """The runner reads a command from any line that starts with :: after blanks (TryParseV2), and
    a text report's line starts with a path: a folder named ::error::x forged an error."""
    folder = repo / "::error::forged"
    folder.mkdir()
    (folder / "job.yaml").write_text(HL102_BAD)
    result = runner.invoke(app, ["lint", "-f", fmt, "--select", "HL102", "."])
    assert result.exit_code == 1
    assert not [line for line in result.stdout.splitlines() if line.lstrip().startswith("::")]
    if fmt != "markdown":
        assert result.stdout.startswith("\\x3a:error::forged/job.yaml:12:18: ")


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_the_plan_forges_no_workflow_command(repo, fmt):
    """Attacker trial: a plan row is indented, and the runner reads a command after a line's blanks:
    a hook whose kind is ``::error title=FORGED::x`` (and a folder so named, in a detail line) forged
    an error annotation from ``hooklint plan``; ``##[`` anywhere did too."""
    folder = repo / "::warning title=FORGED::pwned"
    folder.mkdir()
    (folder / "jobs.yaml").write_text(
        HL102_BAD + "---\n" + HL102_BAD.replace("kind: Job", 'kind: "::error title=FORGED::KIND"', 1)
        .replace("name: db-migrate", "name: zz##[error]x", 1))  # fmt: skip
    result = runner.invoke(app, ["plan", "-f", fmt, "."])
    assert result.exit_code == 0, result.output
    assert "FORGED" in result.stdout
    assert not [line for line in result.stdout.splitlines() if line.lstrip().startswith("::")]
    assert "##[" not in result.stdout
