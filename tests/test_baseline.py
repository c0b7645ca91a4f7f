"""The baseline (issue 10, part 3): accept today's findings, report only new ones.

Done-when test: a throwaway git repository with part of the shared corpus, a baseline written,
lines moved, one new bad hook added: ``hooklint lint --baseline`` reports exactly that hook's
findings."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.manifests import HL102_BAD, LATEST_TAG_HOOK

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "public" / "redhat-scholars__argocd-tutorial"
PARTS = ("apps/todo/src/main/kubernetes", "documentation/modules/ROOT/examples/syncwaves-hooks",
         "documentation/modules/ROOT/examples/todo-yaml")  # fmt: skip

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="the corpus lives in ../shared beside the clone")


def hooklint(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return subprocess.run([sys.executable, "-m", "hooklint", "lint", *args], cwd=cwd, env=env,
                          capture_output=True, text=True)  # fmt: skip


def finding_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if ": " in line and " HL" in line.split(": ", 1)[1][:20]]


@pytest.fixture
def repo(tmp_path) -> Path:
    root = tmp_path / "repo"
    for part in PARTS:
        shutil.copytree(CORPUS / part, root / part)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t.invalid", "commit", "-q", "-m", "corpus"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    return root


def test_baseline_reports_exactly_the_new_hook(repo):
    before = hooklint("--fail-on", "never", ".", cwd=repo)
    debt = finding_lines(before.stdout)
    assert len(debt) > 20, before.stdout
    written = hooklint("--write-baseline", ".hooklint-baseline.json", ".", cwd=repo)
    assert written.returncode == 0, written.stderr
    assert written.stderr == f"hooklint: wrote {len(debt)} findings to the baseline .hooklint-baseline.json\n"
    doc = json.loads((repo / ".hooklint-baseline.json").read_text())
    assert doc["version"] == 1 and len(doc["findings"]) == len(debt)
    assert not any(str(repo) in e["path"] for e in doc["findings"])  # paths relative to the repository

    clean = hooklint("--baseline", ".hooklint-baseline.json", ".", cwd=repo)
    assert clean.returncode == 0, clean.stdout
    assert finding_lines(clean.stdout) == []
    assert f", {len(debt)} suppressed\n" in clean.stdout

    # lines move (a comment and blank lines on top of every file), then one new bad hook
    for path in sorted(repo.rglob("*.yaml")):
        path.write_text("# reviewed 2026-12-01\n\n\n" + path.read_text())
    new = repo / "apps/todo/src/main/kubernetes/zz-new-hook.yaml"
    new.write_text(HL102_BAD)
    alone = finding_lines(hooklint("--fail-on", "never", ".", cwd=repo).stdout)
    expected = [line for line in alone if line.startswith("apps/todo/src/main/kubernetes/zz-new-hook.yaml:")]
    assert expected, alone
    result = hooklint("--baseline", ".hooklint-baseline.json", ".", cwd=repo)
    assert result.returncode == 1
    assert finding_lines(result.stdout) == expected
    # the same through the configuration's baseline key, from a subfolder
    (repo / ".hooklint.yaml").write_text("baseline: .hooklint-baseline.json\n")
    result = hooklint("--format", "json", "apps", cwd=repo)
    doc = json.loads(result.stdout)
    live = [f for f in doc["findings"] if f["suppression"] is None]
    assert {f["path"] for f in live} == {"apps/todo/src/main/kubernetes/zz-new-hook.yaml"}
    assert {f["suppression"]["kind"] for f in doc["findings"] if f["suppression"]} == {"baseline"}


def test_fixed_debt_is_counted(repo):
    assert hooklint("--write-baseline", "b.json", ".", cwd=repo).returncode == 0
    victim = next(p for p in sorted(repo.rglob("*.yaml")) if finding_lines(hooklint(str(p.relative_to(repo)), cwd=repo).stdout))
    fixed = len(finding_lines(hooklint(str(victim.relative_to(repo)), cwd=repo).stdout))
    victim.unlink()
    result = hooklint("--baseline", "b.json", ".", cwd=repo)
    assert result.returncode == 0
    word = "entry no longer matches" if fixed == 1 else "entries no longer match"
    assert result.stdout.splitlines()[-1].endswith(f" suppressed, {fixed} baseline {word}") or \
        f" suppressed, {fixed} baseline {word}\n" in result.stdout
    doc = json.loads(hooklint("--baseline", "b.json", "--format", "json", ".", cwd=repo).stdout)
    assert doc["summary"]["stale_baseline"] == fixed


def test_sarif_marks_baselined_results_external(repo):
    assert hooklint("--write-baseline", "b.json", ".", cwd=repo).returncode == 0
    doc = json.loads(hooklint("--baseline", "b.json", "--format", "sarif", ".", cwd=repo).stdout)
    results = doc["runs"][0]["results"]
    assert results and all(r["suppressions"] == [{"kind": "external", "status": "accepted"}] for r in results)


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "hooklint: error: b.json: cannot read baseline: No such file or directory\n"),
        ("[1", "hooklint: error: b.json: not a hooklint baseline (invalid JSON: Expecting ',' delimiter: line 1 column 3 (char 2))\n"),
        ('{"findings": []}', 'hooklint: error: b.json: not a hooklint baseline (no "version": 1); write one with --write-baseline\n'),
        ('{"version": 1, "findings": [1]}', 'hooklint: error: b.json: not a hooklint baseline ("findings" must be a list of objects with a "fingerprint")\n'),
    ],
)  # fmt: skip
def test_bad_baseline_is_one_line_and_exit_2(tmp_path, content, message):
    (tmp_path / "a.yaml").write_text(HL102_BAD)
    if content is not None:
        (tmp_path / "b.json").write_text(content)
    result = hooklint("--baseline", "b.json", "a.yaml", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (2, message)


def test_an_application_argo_cd_cannot_render_is_never_baselined_and_the_write_step_says_so(tmp_path):
    """HL007 is a broken application (Argo CD fails on it too), not debt, and names no object:
    baselining it would hide everything later added to that application, so a baseline neither
    records nor suppresses it; writing the baseline says what it left out, which still fails the run."""
    root = tmp_path / "repo"
    (root / "app").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "app" / "kustomization.yaml").write_text("resources:\n- missing.yaml\n")
    (root / "hooks.yaml").write_text(LATEST_TAG_HOOK)
    written = hooklint("--write-baseline", "baseline.json", "app", "hooks.yaml", cwd=root)
    assert written.returncode == 0, written.stderr
    assert written.stderr == (
        "hooklint: wrote 2 findings to the baseline baseline.json; 1 finding (HL007) is never baselined: fix the "
        "source, or ignore the rule for that path\n"
    )
    assert [e["rule_id"] for e in json.loads((root / "baseline.json").read_text())["findings"]] == ["HL102", "HL305"]
    checked = hooklint("--baseline", "baseline.json", "app", "hooks.yaml", cwd=root)
    assert checked.returncode == 1
    assert [line.split()[2] for line in finding_lines(checked.stdout)] == ["HL007"]


def test_a_source_only_argo_cd_renders_is_baselined(tmp_path):
    """HL009: the application syncs; not checking it is stable debt a team may accept. The entry
    stops matching once the base is vendored (fixed debt), and the application's findings come in new."""
    root = tmp_path / "repo"
    (root / "app").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "app" / "kustomization.yaml").write_text("resources:\n- https://github.com/acme/base//deploy?ref=v1\n")
    written = hooklint("--write-baseline", "baseline.json", "app", cwd=root)
    assert (written.returncode, written.stderr) == (0, "hooklint: wrote 1 finding to the baseline baseline.json\n")
    assert [(e["rule_id"], e["path"]) for e in json.loads((root / "baseline.json").read_text())["findings"]] == [
        ("HL009", "app/kustomization.yaml")]
    checked = hooklint("--baseline", "baseline.json", "app", cwd=root)
    assert (checked.returncode, finding_lines(checked.stdout)) == (0, [])
    (root / "app" / "kustomization.yaml").write_text("resources:\n- job.yaml\n")  # vendored
    (root / "app" / "job.yaml").write_text(LATEST_TAG_HOOK)
    vendored = hooklint("--baseline", "baseline.json", "app", cwd=root)
    assert vendored.returncode == 1
    assert [line.split()[2] for line in finding_lines(vendored.stdout)] == ["HL305", "HL102"]
    assert "1 baseline entry no longer matches" in vendored.stdout


def test_a_baseline_used_on_part_of_the_tree_calls_no_entry_of_another_part_stale(repo):
    assert hooklint("--write-baseline", "b.json", ".", cwd=repo).returncode == 0
    entries = json.loads((repo / "b.json").read_text())["findings"]
    outside = [e for e in entries if not e["path"].startswith("apps/")]
    assert outside and len(outside) < len(entries)
    part = json.loads(hooklint("--baseline", "b.json", "--format", "json", "apps", cwd=repo).stdout)
    assert part["summary"]["stale_baseline"] == 0
    assert part["summary"]["suppressed"] == len(entries) - len(outside)
    one = sorted({e["path"] for e in outside})[0]
    alone = json.loads(hooklint("--baseline", "b.json", "--format", "json", one, cwd=repo).stdout)
    assert alone["summary"]["stale_baseline"] == 0
    # run from a subfolder, the same
    sub = json.loads(hooklint("--baseline", "../b.json", "--format", "json", ".", cwd=repo / "apps").stdout)
    assert sub["summary"]["stale_baseline"] == 0
    # an excluded file is not in the run either; a file of the run that lost its findings is
    excluded = json.loads(hooklint("--baseline", "b.json", "--format", "json", "--exclude", "documentation/", ".",
                                   cwd=repo).stdout)  # fmt: skip
    assert excluded["summary"]["stale_baseline"] == 0
    victim = repo / sorted({e["path"] for e in entries if e["path"].startswith("apps/")})[0]
    fixed = sum(1 for e in entries if repo / e["path"] == victim)
    victim.unlink()
    assert json.loads(hooklint("--baseline", "b.json", "--format", "json", "apps", cwd=repo).stdout)[
        "summary"]["stale_baseline"] == fixed
