"""hooklint diff and suppressions the change did not write (attack 13, item "supp"): an old
``# hooklint: ignore[HL105] reason`` comment covers, on the head, only the findings the base had
under it, matched with what they say; a stronger finding of the same rule under it is new."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import git
from hooklint.cli import app
from hooklint.review import _gist

runner = CliRunner()

COMMENT = "        # hooklint: ignore[HL105] needs NET_ADMIN for the iptables setup\n"
NET_ADMIN = "        securityContext: {capabilities: {add: [NET_ADMIN]}}\n"
HOOK = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: j
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 0
  activeDeadlineSeconds: 60
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: sa
      automountServiceAccountToken: false
      containers:
      - name: c
        image: busybox:1.36
{comment}{context}---
apiVersion: v1
kind: ConfigMap
metadata: {{name: cm}}
"""
TAIL = ("a PreSync hook runs on every sync and then controls the node, not just its pod. Remove it, or do this work "
        "outside the cluster's workloads.")  # fmt: skip
PRIVILEGED = f"The container 'c' of Job/j is privileged: {TAIL}"
ALL = f"The container 'c' of Job/j adds capability ALL, beyond the baseline set: {TAIL}"
WRITTEN_FOR = "HL105 The container 'c' of Job/j adds capability NET_ADMIN, beyond the baseline set"
NOT_COVERED = f"Not covered by the comment suppression at a.yaml:19: the base had no such finding under it; the comment was written for: {WRITTEN_FOR}."


def hook(context: str = NET_ADMIN, comment: str = COMMENT) -> str:
    return HOOK.format(comment=comment, context=context)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A repository whose ``base`` commit has the PreSync Job with the comment over NET_ADMIN."""
    repo = tmp_path / "repo"
    repo.mkdir()
    monkeypatch.chdir(repo)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "ci@example.com")
    git(repo, "config", "user.name", "ci")
    (repo / "a.yaml").write_text(hook())
    commit(repo, "base")
    return repo


def commit(repo: Path, name: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", name)
    git(repo, "tag", name)


def change(repo: Path, text: str, path: str = "a.yaml") -> None:
    (repo / path).write_text(text)
    commit(repo, "head")


def diff(*options: str) -> tuple[int, str]:
    result = runner.invoke(app, ["diff", "base", "--head", "head", *options])
    return result.exit_code, result.stdout


def diff_json(*paths: str) -> tuple[int, dict]:
    code, out = diff("-f", "json", *paths)
    return code, json.loads(out)


def new_of(doc: dict) -> list[tuple]:
    return [(f["path"], f["line"], f["column"], f["rule_id"], f["message"], f["suppression"], f.get("not_covered"))
            for f in doc["new"]]  # fmt: skip


@pytest.mark.parametrize("edited, column, message", [
    ("        securityContext: {capabilities: {add: [NET_ADMIN]}, privileged: true}\n", 73, PRIVILEGED),
    ("        securityContext: {capabilities: {add: [NET_ADMIN, ALL]}}\n", 59, ALL),
    # the same field as the base's NET_ADMIN (capabilities.add[0]): the same fingerprint, not the same finding
    ("        securityContext: {capabilities: {add: [ALL]}}\n", 48, ALL),
], ids=["privileged", "add-all", "all-in-place"])  # fmt: skip
def test_a_finding_the_base_did_not_have_under_an_old_comment_is_new(repo, edited, column, message):
    change(repo, hook(edited))
    code, doc = diff_json()
    assert code == 1
    assert new_of(doc) == [("a.yaml", 20, column, "HL105", message, None, NOT_COVERED)]
    assert (doc["suppressed"], doc["fixed"], doc["unchanged"]) == ([], [], 0)
    code, text = diff()
    assert (code, text) == (1, (
        "hooklint diff base -> head: 1 new finding, 0 fixed, 0 unchanged; no plan change\n\nNew findings:\n"
        f"  a.yaml:20:{column}: error HL105 hook-privileged-pod: {message}\n    {NOT_COVERED}\n"))  # fmt: skip


def test_every_format_says_the_comment_does_not_cover_it(repo):
    change(repo, hook("        securityContext: {capabilities: {add: [NET_ADMIN]}, privileged: true}\n"))
    code, sarif = diff("-f", "sarif")
    results = json.loads(sarif)["runs"][0]["results"]
    assert code == 1
    assert [(r["ruleId"], r["message"]["text"], r["locations"][0]["physicalLocation"]["region"]["startLine"],
             "suppressions" in r) for r in results] == [("HL105", f"{PRIVILEGED} {NOT_COVERED}", 20, False)]  # fmt: skip
    code, markdown = diff("-f", "markdown")
    assert code == 1
    assert markdown.splitlines()[1] == "### hooklint: 1 new finding, 0 fixed, 0 unchanged; no plan change"
    assert (
        "| 🛑 | `HL105` hook-privileged-pod | a.yaml:20 | The container 'c' of Job/j is privileged: "
        f"{TAIL} Not covered by the comment suppression at a.yaml:&#8203;19: the base had no such finding under it; the "
        "comment was written for: HL105 The container 'c' of Job/j adds capability NET\\_ADMIN, beyond the baseline set. |"
    ) in markdown.splitlines()
    assert "Suppressed by the change" not in markdown


def test_lint_still_honours_the_comment(repo):
    """Only a review judges the comment against the base: ``lint`` of the head is unchanged."""
    change(repo, hook("        securityContext: {capabilities: {add: [NET_ADMIN]}, privileged: true}\n"))
    result = runner.invoke(app, ["lint", "-f", "json", "a.yaml"])
    doc = json.loads(result.stdout)
    assert result.exit_code == 0
    assert [(f["line"], f["column"], f["suppression"]) for f in doc["findings"]] == [
        (20, 48, {"kind": "comment", "reason": "needs NET_ADMIN for the iptables setup"}),
        (20, 73, {"kind": "comment", "reason": "needs NET_ADMIN for the iptables setup"})]


def test_what_the_base_had_under_the_comment_stays_covered(repo):
    """Lines inserted above move the comment and its finding: still covered, nothing to review."""
    change(repo, hook().replace("  backoffLimit: 0\n", "  # retries\n  backoffLimit: 0\n"))
    code, doc = diff_json()
    assert (code, doc["new"], doc["suppressed"], doc["fixed"]) == (0, [], [], [])


def test_a_comment_the_change_writes_or_edits_is_the_changes_suppression(repo):
    """Today's rule for the change's own comment: listed as suppressed by the change, for a reviewer."""
    privileged = "        securityContext: {capabilities: {add: [NET_ADMIN]}, privileged: true}\n"
    edited = "        # hooklint: ignore[HL105] needs NET_ADMIN and a privileged pod for iptables\n"
    change(repo, hook(privileged, edited))
    code, doc = diff_json()
    assert (code, doc["new"]) == (0, [])
    assert [(f["line"], f["column"], f["suppression"]) for f in doc["suppressed"]] == [
        (20, 73, {"kind": "comment", "reason": "needs NET_ADMIN and a privileged pod for iptables"})]
    code, text = diff()
    assert (code, text.splitlines()[0]) == (
        0, "hooklint diff base -> head: 0 new findings, 0 fixed, 1 suppressed by the change, 0 unchanged; no plan change")
    assert "Not covered" not in text


def test_a_renamed_file_keeps_its_comment_and_its_limits(repo):
    """``git mv a.yaml b.yaml`` with the stronger finding: the comment is the base's, moved."""
    git(repo, "rm", "-q", "a.yaml")
    change(repo, hook("        securityContext: {capabilities: {add: [ALL]}}\n"), "b.yaml")
    code, doc = diff_json()
    assert code == 1
    assert new_of(doc) == [("b.yaml", 20, 48, "HL105", ALL, None, NOT_COVERED.replace("a.yaml:19", "b.yaml:19"))]
    assert doc["suppressed"] == []


def test_a_comment_that_suppressed_nothing_on_the_base_covers_nothing(repo):
    """A stale comment (HL901 on the base) that the change puts a finding under."""
    (repo / "a.yaml").write_text(hook("        securityContext: {runAsNonRoot: true}\n"))
    git(repo, "commit", "-qam", "stale")
    git(repo, "tag", "-f", "base")
    change(repo, hook("        securityContext: {runAsNonRoot: true, privileged: true}\n"))
    code, doc = diff_json()
    assert code == 1
    assert new_of(doc) == [("a.yaml", 20, 59, "HL105", PRIVILEGED, None,
                            "Not covered by the comment suppression at a.yaml:19: the base had no such finding under it; the "
                            "comment suppressed nothing on the base.")]  # fmt: skip


@pytest.mark.parametrize("message, gist", [
    (ALL, "The container 'c' of Job/j adds capability ALL, beyond the baseline set"),
    (f"Job/j sets hostNetwork: true: {TAIL}", "Job/j sets hostNetwork: true"),
    ("Job/j has no deadline.", "Job/j has no deadline"),
    ("Job/j has no deadline", "Job/j has no deadline"),
])  # fmt: skip
def test_gist_keeps_what_a_finding_says_without_why_and_how(message, gist):
    assert _gist(message) == gist


ANNOTATED = hook(comment="").replace(
    "    argocd.argoproj.io/hook: PreSync\n",
    "    argocd.argoproj.io/hook: PreSync\n    hooklint.io/ignore: \"HL105: needs NET_ADMIN for the iptables setup\"\n")  # fmt: skip


def test_an_old_annotation_covers_only_what_the_base_had_under_it(repo):
    """The same gap with ``hooklint.io/ignore`` (the whole object): treated the same way."""
    (repo / "a.yaml").write_text(ANNOTATED)
    git(repo, "commit", "-qam", "annotated")
    git(repo, "tag", "-f", "base")
    change(repo, ANNOTATED.replace("add: [NET_ADMIN]}}", "add: [NET_ADMIN]}, privileged: true}"))
    code, doc = diff_json()
    assert code == 1
    assert new_of(doc) == [("a.yaml", 20, 73, "HL105", PRIVILEGED, None, (
        "Not covered by the hooklint.io/ignore annotation at a.yaml:7: the base had no such finding under it; the annotation was "
        f"written for: {WRITTEN_FOR}."))]  # fmt: skip
    assert doc["suppressed"] == []


def test_an_annotation_that_suppressed_nothing_on_the_base_covers_nothing(repo):
    """A stale annotation (HL901, a note, on the base) that the change puts a finding under: it was
    "suppressed by the change" (exit 0), though the change never wrote it (attacker trial 19's
    helper noticed it with the comment's fix in place)."""
    (repo / "a.yaml").write_text(ANNOTATED.replace("securityContext: {capabilities: {add: [NET_ADMIN]}}",
                                                   "securityContext: {runAsNonRoot: true}"))  # fmt: skip
    git(repo, "commit", "-qam", "stale")
    git(repo, "tag", "-f", "base")
    change(repo, ANNOTATED.replace("securityContext: {capabilities: {add: [NET_ADMIN]}}",
                                   "securityContext: {runAsNonRoot: true, privileged: true}"))  # fmt: skip
    code, doc = diff_json()
    assert code == 1
    assert new_of(doc) == [("a.yaml", 20, 59, "HL105", PRIVILEGED, None, (
        "Not covered by the hooklint.io/ignore annotation at a.yaml:7: the base had no such finding under it; the "
        "annotation suppressed nothing on the base."))]  # fmt: skip
    assert doc["suppressed"] == []


def test_an_annotation_the_change_edits_is_the_changes_suppression(repo):
    (repo / "a.yaml").write_text(ANNOTATED)
    git(repo, "commit", "-qam", "annotated")
    git(repo, "tag", "-f", "base")
    change(repo, ANNOTATED.replace("add: [NET_ADMIN]}}", "add: [NET_ADMIN]}, privileged: true}").replace(
        "the iptables setup", "the iptables setup, privileged"))  # fmt: skip
    code, doc = diff_json()
    assert (code, doc["new"]) == (0, [])
    assert [(f["line"], f["column"], f["suppression"]["reason"]) for f in doc["suppressed"]] == [
        (20, 73, "needs NET_ADMIN for the iptables setup, privileged")]


def test_a_baselined_finding_made_stronger_in_place_is_new_not_unchanged(repo):
    """The baseline's form of the gap: ``hooklint diff`` applies no baseline (both sides' findings
    are compared live), but it matched findings by fingerprint alone, which leaves out what they
    say, so NET_ADMIN -> ALL at ``capabilities.add[0]`` was "unchanged" (exit 0) while a baseline
    recording NET_ADMIN hides ALL in ``lint --baseline``. Now ALL is new and NET_ADMIN fixed."""
    (repo / "a.yaml").write_text(hook(comment=""))
    (repo / ".hooklint.yaml").write_text("baseline: .hooklint-baseline.json\n")
    assert runner.invoke(app, ["lint", "--write-baseline", ".hooklint-baseline.json", "a.yaml"]).exit_code == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "baselined")
    git(repo, "tag", "-f", "base")
    change(repo, hook("        securityContext: {capabilities: {add: [ALL]}}\n", ""))
    code, doc = diff_json("a.yaml")  # the baseline file is no manifest
    assert code == 1
    assert new_of(doc) == [("a.yaml", 19, 48, "HL105", ALL, None, None)]
    assert [(f["line"], f["column"], f["message"]) for f in doc["fixed"]] == [
        (19, 48, f"The container 'c' of Job/j adds capability NET_ADMIN, beyond the baseline set: {TAIL}")]
    assert (doc["suppressed"], doc["unchanged"]) == ([], 0)
    code, text = diff("a.yaml")
    assert (code, text.splitlines()[0]) == (1, "hooklint diff base -> head: 1 new finding, 1 fixed, 0 unchanged; no plan change")


def test_a_renamed_file_whose_finding_got_stronger_is_new(repo):
    """The rename match (identity without the file) also asks that the finding say the same."""
    (repo / "a.yaml").write_text(hook(comment=""))
    git(repo, "commit", "-qam", "live")
    git(repo, "tag", "-f", "base")
    git(repo, "rm", "-q", "a.yaml")
    change(repo, hook("        securityContext: {capabilities: {add: [ALL]}}\n", ""), "b.yaml")
    code, doc = diff_json()
    assert code == 1
    assert new_of(doc) == [("b.yaml", 19, 48, "HL105", ALL, None, None)]
    assert [(f["path"], f["line"], f["column"]) for f in doc["fixed"]] == [("a.yaml", 19, 48)]


def test_readme_quotes_the_message_as_diff_prints_it():
    readme = " ".join((Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8").split())
    assert f"`{NOT_COVERED}`" in readme


def test_the_working_tree_as_head_is_judged_the_same(repo):
    (repo / "a.yaml").write_text(hook("        securityContext: {capabilities: {add: [NET_ADMIN]}, privileged: true}\n"))
    result = runner.invoke(app, ["diff", "base", "-f", "json"])
    doc = json.loads(result.stdout)
    assert result.exit_code == 1
    assert new_of(doc) == [("a.yaml", 20, 73, "HL105", PRIVILEGED, None, NOT_COVERED)]
    assert doc["suppressed"] == []


def test_a_finding_whose_message_names_a_line_that_moved_is_unchanged(repo):
    """What a finding says is compared without the lines it names (HL002's "first at line N"):
    lines added above a repeated key move it, and the finding stays the same one."""
    twice = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: x\n  a: y\n"
    (repo / "b.yaml").write_text(twice)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "repeated")
    git(repo, "tag", "-f", "base")
    change(repo, "# the settings\n# of the shop\n" + twice, "b.yaml")
    code, doc = diff_json("b.yaml")
    assert (code, doc["new"], doc["fixed"], doc["unchanged"]) == (0, [], [], 1)


def test_a_hook_that_changes_phase_keeps_its_findings(repo):
    """Why a finding matters follows the hook's phase ("a PreSync hook runs on every sync" ->
    "a PostSync hook ..."): what it says does not change, so nothing is new and nothing fixed."""
    (repo / "a.yaml").write_text(hook(comment=""))
    git(repo, "commit", "-qam", "live")
    git(repo, "tag", "-f", "base")
    change(repo, hook(comment="").replace("hook: PreSync", "hook: PostSync"))
    code, doc = diff_json("a.yaml")
    assert (code, doc["new"], doc["fixed"], doc["unchanged"]) == (0, [], [], 1)


@pytest.mark.parametrize("message, related, statement", [
    ("Key 'a' is repeated (first at line 6): the API server keeps the last.", (),
     "Key 'a' is repeated (first at line N): the API server keeps the last."),
    ("hookchart 1.3.0 templates/job.yaml:14: Image 'busybox:latest' of container 'c' of Job/j uses the mutable tag "
     "':latest': each sync may run different code.", ("hookchart 1.3.0 templates/job.yaml:14",),
     "Image 'busybox:latest' of container 'c' of Job/j uses the mutable tag ':latest': each sync may run different code."),
    ("Job/j waits for ConfigMap/c (apps/cm.yaml:12), applied later: the pod fails.", (),
     "Job/j waits for ConfigMap/c (apps/cm.yaml:N), applied later: the pod fails."),
])  # fmt: skip
def test_statement_leaves_out_lines_and_a_fetched_sources_place(message, related, statement):
    """The whole message is compared (never cut where the repository's text may put a ". " or
    ": "), with only the lines it names and a fetched source's place made neutral."""
    from hooklint.findings import Finding, Span
    from hooklint.review import _statement

    finding = Finding(path="a.yaml", span=Span.point(1, 1), rule_id="HL002", slug="s", severity="error",
                      message=message, related=related)  # fmt: skip
    assert _statement(finding) == statement


def test_the_baseline_file_is_no_manifest_to_diff_either(repo):
    """``lint`` leaves the configuration's ``baseline`` file out (hooklint's own JSON); ``diff``
    linted it on both sides (an HL003 "unchanged", or "fixed" when the change deleted it)."""
    (repo / "a.yaml").write_text(hook(comment=""))
    (repo / ".hooklint.yaml").write_text("baseline: .hooklint-baseline.json\n")
    assert runner.invoke(app, ["lint", "--write-baseline", ".hooklint-baseline.json", "a.yaml"]).exit_code == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "baselined")
    git(repo, "tag", "-f", "base")
    git(repo, "rm", "-q", ".hooklint-baseline.json")
    commit(repo, "head")
    code, doc = diff_json()
    assert (code, doc["new"], doc["fixed"], doc["unchanged"]) == (0, [], [], 1)  # a.yaml's HL105
