"""hooklint diff: reviewing a change between git revisions (issue 12)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import git
from hooklint.cli import app
from hooklint.review import markdown
from tests.manifests import CLEAN_HOOK_JOB as JOB

runner = CliRunner()
README = Path(__file__).resolve().parents[1] / "README.md"


BAD_HOOK = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: seed
  annotations:
    argocd.argoproj.io/hook: PostSync
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 300
  template:
    spec:
      serviceAccountName: seed
      automountServiceAccountToken: false
      restartPolicy: Never
      containers:
      - name: seed
        image: ghcr.io/acme/seed:latest
"""


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """Three commits: ``one`` (a clean app), ``two`` (adds a bad PostSync hook and moves the Job to
    wave 2), ``three`` (changes nothing hooklint reads: a README)."""
    repo = tmp_path / "repo"
    (repo / "deploy" / "app").mkdir(parents=True)
    monkeypatch.chdir(repo)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "ci@example.com")
    git(repo, "config", "user.name", "ci")
    (repo / "deploy/app/job.yaml").write_text(JOB)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one")
    git(repo, "tag", "one")
    (repo / "deploy/app/job.yaml").write_text(JOB.replace("hook: PreSync\n", "hook: PreSync\n    argocd.argoproj.io/sync-wave: \"2\"\n"))
    (repo / "deploy/app/seed.yaml").write_text(BAD_HOOK)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "two")
    git(repo, "tag", "two")
    (repo / "README.md").write_text("docs\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "three")
    git(repo, "tag", "three")
    return repo


def diff_json(*args: str) -> tuple[int, dict]:
    result = runner.invoke(app, ["diff", "--format", "json", *args])
    return result.exit_code, json.loads(result.stdout)


def test_a_change_that_adds_a_bad_hook_and_moves_a_job(repo):
    code, doc = diff_json("one", "--head", "two")
    assert code == 1
    assert (doc["base"], doc["head"], doc["unchanged"], doc["fixed"]) == ("one", "two", 0, [])
    assert [(f["path"], f["line"], f["column"], f["rule_id"], f["object"]["name"]) for f in doc["new"]] == [
        ("deploy/app/seed.yaml", 17, 16, "HL102", "seed")]
    [change] = doc["plan_changes"]
    assert change["application"] == "deploy/app"
    assert [(t["kind"], t["name"], t["hook_types"]) for t in change["added"]] == [("Job", "seed", ["PostSync"])]
    assert change["removed"] == [] and change["changed"] == []
    assert [(m["task"]["name"], m["from"], m["to"]) for m in change["moved"]] == [
        ("migrate", {"phase": "PreSync", "wave": 0}, {"phase": "PreSync", "wave": 2})]


def test_the_reverse_change_fixes_what_the_first_added(repo):
    code, doc = diff_json("two", "--head", "one")
    assert code == 0
    assert doc["new"] == []
    assert [(f["path"], f["rule_id"]) for f in doc["fixed"]] == [("deploy/app/seed.yaml", "HL102")]
    [change] = doc["plan_changes"]
    assert [t["name"] for t in change["removed"]] == ["seed"]
    assert [(m["from"]["wave"], m["to"]["wave"]) for m in change["moved"]] == [(2, 0)]


def test_a_change_that_touches_no_manifest_changes_nothing(repo):
    code, doc = diff_json("two", "--head", "three")
    assert code == 0
    assert (doc["new"], doc["fixed"], doc["unchanged"], doc["plan_changes"]) == ([], [], 1, [])


def test_the_working_tree_is_the_default_head_and_is_never_touched(repo):
    (repo / "deploy/app/seed.yaml").write_text(BAD_HOOK.replace("latest", "1.0.0"))
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts}
    status = git(repo, "status", "--porcelain")
    code, doc = diff_json("two", "deploy")
    assert code == 0
    assert doc["head"] is None
    assert [(f["path"], f["rule_id"]) for f in doc["fixed"]] == [("deploy/app/seed.yaml", "HL102")]
    assert {p: p.read_bytes() for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts} == before
    assert git(repo, "status", "--porcelain") == status


def test_paths_are_relative_to_the_current_folder(repo, monkeypatch):
    monkeypatch.chdir(repo / "deploy")
    code, doc = diff_json("one", "app", "--head", "two")
    assert code == 1
    assert [f["path"] for f in doc["new"]] == ["deploy/app/seed.yaml"]


def test_fail_on_applies_to_new_findings_only(repo):
    assert runner.invoke(app, ["diff", "one", "--head", "two", "--fail-on", "error"]).exit_code == 0
    assert runner.invoke(app, ["diff", "two", "--head", "three", "--fail-on", "note"]).exit_code == 0


def test_git_problems_are_one_line_and_exit_2(repo, tmp_path, monkeypatch):
    result = runner.invoke(app, ["diff", "no-such-branch"])
    assert result.exit_code == 2
    assert result.output == (
        "hooklint: error: unknown revision 'no-such-branch': give a commit, branch or tag of this repository\n")
    outside = tmp_path / "plain"
    outside.mkdir()
    monkeypatch.chdir(outside)
    result = runner.invoke(app, ["diff", "main"])
    assert result.exit_code == 2
    assert result.output == f"hooklint: error: {outside} is not in a git repository: hooklint diff compares git revisions\n"


def test_a_path_on_neither_side_is_an_input_error_not_a_pass(repo):
    """A typo in CI (`hooklint diff main deplyo`) must not compare nothing with nothing."""
    result = runner.invoke(app, ["diff", "one", "deplyo"])
    assert (result.exit_code, result.output) == (
        2, "hooklint: error: deplyo: no such file or directory in one nor in the working tree\n")
    result = runner.invoke(app, ["diff", "one", "deploy/gone", "--head", "two"])
    assert (result.exit_code, result.output) == (
        2, "hooklint: error: deploy/gone: no such file or directory in one nor in two\n")
    # a file that exists on one side only is a change, not an error: seed.yaml comes with two
    code, doc = diff_json("one", "deploy/app/seed.yaml", "--head", "two")
    assert code == 1 and {f["path"] for f in doc["new"]} == {"deploy/app/seed.yaml"}


def test_text_and_sarif(repo):
    result = runner.invoke(app, ["diff", "one", "--head", "two"])
    assert result.output.splitlines()[:4] == [
        "hooklint diff one -> two: 1 new finding, 0 fixed, 0 unchanged; plan changes in 1 application",
        "",
        "New findings:",
        "  deploy/app/seed.yaml:17:16: warning HL102 hook-image-mutable-tag: Image 'ghcr.io/acme/seed:latest' of "
        "container 'seed' of Job/seed uses the mutable tag ':latest': each sync may run different code than was "
        "reviewed. Pin a version tag or, better, an @sha256 digest.",
    ]
    assert result.output.splitlines()[-3:] == [
        "Plan of deploy/app:", "  added    Job/seed: PostSync wave 0", "  moved    Job/migrate: PreSync wave 0 -> PreSync wave 2"]
    sarif = json.loads(runner.invoke(app, ["diff", "one", "--head", "two", "-f", "sarif"]).output)
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["HL102"]
    # its own code scanning category: under lint's, an upload would close every alert the change left alone
    assert sarif["runs"][0]["automationDetails"] == {"id": "hooklint/diff/"}
    sarif = json.loads(runner.invoke(app, ["diff", "one", "--head", "two", "-f", "sarif", "--category", "prod"]).output)
    assert sarif["runs"][0]["automationDetails"] == {"id": "prod/diff/"}


def test_markdown_headline_links_table_and_diagram(repo):
    result = runner.invoke(app, ["diff", "one", "--head", "two", "-f", "markdown",
                                 "--link-base", "https://github.com/acme/deploy/blob/abc123"])  # fmt: skip
    text = result.output
    assert text.startswith("<!-- hooklint-diff -->\n### hooklint: 1 new finding, 0 fixed, 0 unchanged; plan changes in 1 application\n")
    assert "[deploy/app/seed.yaml:17](https://github.com/acme/deploy/blob/abc123/deploy/app/seed.yaml#L17)" in text
    assert "| ↪️ moved | `Job/migrate` | PreSync wave 0 | PreSync wave 2 |" in text
    [diagram] = re.findall(r"```mermaid\n(.*?)```", text, re.S)
    assert diagram.splitlines() == [
        "flowchart LR",
        "  classDef changed fill:#fff3cd,stroke:#d39e00",
        '  s0["<b>PreSync · wave 2</b><br/>Job/migrate (moved from PreSync wave 0)"]',
        "  class s0 changed",
        '  s1["<b>Sync · wave 0</b><br/>ConfigMap/settings"]',
        '  s2["<b>PostSync · wave 0</b><br/>+ Job/seed (added)"]',
        "  class s2 changed",
        "  s0 --> s1 --> s2",
    ]


def test_a_change_with_many_findings_stays_under_githubs_limit_and_says_what_was_cut(repo):
    many = "---\n".join(BAD_HOOK.replace("name: seed", f"name: seed-{i}") for i in range(400))
    (repo / "deploy/app/seed.yaml").write_text(many)
    result = runner.invoke(app, ["diff", "one", "-f", "markdown"])
    text = result.output
    assert len(text) <= markdown.LIMIT
    assert "… and 350 more: 0 errors, 350 warnings, 0 notes (see the full report: `hooklint diff -f json`)." in text
    assert text.count("| ⚠️ |") == markdown.MAX_ITEMS


def test_lint_markdown_summarises_a_tree(repo):
    result = runner.invoke(app, ["lint", "-f", "markdown", "deploy"])
    assert result.exit_code == 1
    assert result.output.splitlines()[1] == "### hooklint: 0 errors, 1 warning, 0 notes in 2 files"
    assert "```mermaid" in result.output


@pytest.fixture
def builds(monkeypatch):
    """The keys of the applications :func:`hooklint.pipeline.build` models and plans, in order."""
    from hooklint import pipeline

    keys: list[str] = []
    real = pipeline.build

    def counted(loaded, config):
        keys.append(loaded.app.key)
        return real(loaded, config)

    monkeypatch.setattr(pipeline, "build", counted)
    return keys


def test_lint_markdown_and_diff_plan_each_application_once_per_revision(repo, builds):
    """Issue 20: the markdown report and the review read the plans the lint made; they ran the
    pipeline again (``plan_paths``), and the review a third time per application not compared."""
    assert runner.invoke(app, ["lint", "-f", "markdown", "-j", "1", "deploy"]).exit_code == 1
    assert builds == ["deploy/app"]
    builds.clear()
    assert diff_json("one", "--head", "two")[0] == 1
    assert builds == ["deploy/app", "deploy/app"]
    builds.clear()
    (repo / "deploy/app/kustomization.yaml").write_text("resources:\n- job.yaml\n- missing.yaml\n")
    code, doc = diff_json("two")  # renders on the base only: its findings there are looked up, not linted again
    assert (code, doc["not_compared"], builds) == (1, ["deploy/app"], ["deploy/app", "deploy/app"])


def test_readme_shows_real_diff_markdown(repo):
    text = README.read_text(encoding="utf-8")
    shown = re.search(r"<!-- diff-example -->\n````markdown\n(.*?)````\n", text, re.S)
    assert shown is not None, "README lost its hooklint diff example"
    result = runner.invoke(app, ["diff", "one", "--head", "two", "-f", "markdown"])
    assert shown.group(1) == result.output


# --- the action's pull-request mode and the GitLab merge-request job of docs/ci.md ---------------

import sys  # noqa: E402

import yaml  # noqa: E402

from tests.manifests import doc_blocks  # noqa: E402

ACTION = Path(__file__).resolve().parents[1] / "action.yml"


def _expression(text: str, context: dict[str, str]) -> str:
    """``${{ a || b }}`` with the contexts the tests give (missing values are empty)."""
    def value(match: re.Match) -> str:
        for part in match.group(1).split("||"):
            found = context.get(part.strip(), "")
            if found:
                return found
        return ""

    return re.sub(r"\$\{\{\s*(.*?)\s*\}\}", value, text)


def run_step(step: dict, context: dict[str, str], cwd: Path, path_first: Path | None = None) -> tuple[subprocess.CompletedProcess, dict]:
    assert "${{" not in step["run"], "inputs must reach scripts through env, not be pasted into them"
    output = cwd.parent / "github_output"
    output.write_text("")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update({k: _expression(str(v), context) for k, v in step.get("env", {}).items()})
    env["GITHUB_OUTPUT"] = str(output)
    env["GITHUB_STEP_SUMMARY"] = str(cwd.parent / "summary.md")
    env["RUNNER_TEMP"] = str(cwd.parent)
    env["PATH"] = os.pathsep.join([*([str(path_first)] if path_first else []), str(Path(sys.executable).parent), env["PATH"]])
    proc = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=cwd, env=env, capture_output=True, text=True)
    return proc, dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)


def test_action_pull_request_mode_writes_the_summary_and_keeps_one_comment(repo, tmp_path):
    act = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    steps = {s.get("name"): s for s in act["runs"]["steps"]}
    review, comment = steps["Review the pull request with hooklint diff"], steps["Comment on the pull request"]
    workflow = yaml.safe_load(doc_blocks()[".github/workflows/hooklint-review.yml"])
    assert workflow["permissions"] == {"contents": "read", "pull-requests": "write"}
    checkout, use = workflow["jobs"]["review"]["steps"]
    assert checkout == {"uses": "actions/checkout@v7", "with": {"fetch-depth": 0}}
    assert set(use["with"]) <= set(act["inputs"])
    context = {f"inputs.{k}": str(v.get("default", "")) for k, v in act["inputs"].items()}
    context.update({f"inputs.{k}": str(v) for k, v in use["with"].items()})
    context.update({
        "inputs.token": "secret",
        "github.event.pull_request.base.sha": git(repo, "rev-parse", "one"),
        "github.event.pull_request.head.sha": "abc123",
        "github.server_url": "https://github.com",
        "github.repository": "acme/deploy",
        "github.event.pull_request.number": "7",
    })  # fmt: skip
    git(repo, "checkout", "-q", "two")
    proc, outputs = run_step(review, context, repo)
    assert proc.returncode == 0, proc.stderr
    assert outputs["exit-code"] == "1"
    summary = (tmp_path / "summary.md").read_text()
    assert summary.startswith("<!-- hooklint-diff -->\n### hooklint: 1 new finding, 0 fixed, 0 unchanged;")
    assert "(https://github.com/acme/deploy/blob/abc123/deploy/app/seed.yaml#L17)" in summary
    # a fake gh that logs its calls and knows one earlier comment when asked to
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "gh").write_text('#!/bin/bash\necho "$@" >> "$GH_LOG"\nif [ "$2" != "--method" ]; then echo "$GH_EXISTING"; fi\n')
    (fake / "gh").chmod(0o755)
    context["steps.review.outputs.report"] = outputs["report"]
    for existing, expected in (("", "--method POST repos/acme/deploy/issues/7/comments"),
                               ("42", "--method PATCH repos/acme/deploy/issues/comments/42")):  # fmt: skip
        log = tmp_path / f"gh-{existing or 'none'}.log"
        comment = dict(comment, env={**comment["env"], "GH_LOG": str(log), "GH_EXISTING": existing})
        proc, _ = run_step(comment, context, repo, fake)
        assert proc.returncode == 0, proc.stderr
        calls = log.read_text().splitlines()
        assert calls[0] == ('api repos/acme/deploy/issues/7/comments --paginate --jq .[] | select(.user.login == '
                            '"github-actions[bot]" and (.body | startswith("<!-- hooklint-diff -->"))) | .id')
        # only the workflow's own comment is edited: a pull request's author may post one starting with the marker
        if shutil.which("jq"):
            comments = [{"id": 1, "user": {"login": "attacker"}, "body": "<!-- hooklint-diff -->\n0 new findings"},
                        {"id": 2, "user": {"login": "github-actions[bot]"}, "body": "<!-- hooklint-diff -->\n..."}]
            picked = subprocess.run(["jq", calls[0].split(" --jq ", 1)[1]], input=json.dumps(comments), text=True,
                                    capture_output=True, check=True).stdout  # fmt: skip
            assert picked == "2\n"
        assert calls[1] == f"api {expected} -F body=@{outputs['report']}"
    # a read-only token (a pull request from a fork or Dependabot): the step says why and passes
    assert comment["continue-on-error"] is True
    for refused in ("read", "write"):
        (fake / "gh").write_text('#!/bin/bash\nif [ "$2" != "--method" ] && [ "$REFUSE" = read ] || [ "$2" = "--method" ]; '
                                 'then echo "HTTP 403: Resource not accessible by integration" >&2; exit 1; fi\n')  # fmt: skip
        step = dict(comment, env={**comment["env"], "REFUSE": refused, "RUNNER_TEMP": str(tmp_path)})
        proc, _ = run_step(step, context, repo, fake)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.splitlines() == [
            "hooklint: the pull-request comment was not written: HTTP 403: Resource not accessible by integration ",
            "hooklint: the token cannot write comments on this pull request (a pull request from a fork or from "
            "Dependabot gets a read-only token; the workflow needs permissions: pull-requests: write). The review is "
            "in the job summary; the job's result is hooklint's exit code.",
        ]  # fmt: skip


def test_action_pull_request_mode_fetches_the_base_a_shallow_checkout_lacks(repo, tmp_path):
    """On pull requests the action now reviews by default, and the code scanning recipe checks out
    at depth 1 (actions/checkout's default): the review step fetches the base commit alone."""
    act = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    review = next(s for s in act["runs"]["steps"] if s.get("id") == "review")
    git(repo, "config", "uploadpack.allowAnySHA1InWant", "true")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch", "two", f"file://{repo}", str(clone)], check=True)
    base = git(repo, "rev-parse", "one")
    assert subprocess.run(["git", "cat-file", "-e", f"{base}^{{commit}}"], cwd=clone).returncode != 0
    context = {f"inputs.{k}": str(v.get("default", "")) for k, v in act["inputs"].items()}
    context.update({"inputs.paths": "deploy", "github.event.pull_request.base.sha": base,
                    "github.event.pull_request.head.sha": "abc123", "github.server_url": "https://github.com",
                    "github.repository": "acme/deploy"})  # fmt: skip
    proc, outputs = run_step(review, context, clone)
    assert (proc.returncode, outputs["exit-code"]) == (0, "1"), proc.stderr
    assert (tmp_path / "summary.md").read_text().startswith(
        "<!-- hooklint-diff -->\n### hooklint: 1 new finding, 0 fixed, 0 unchanged;")


def test_docs_gitlab_merge_request_job_runs_offline(repo, tmp_path):
    job = yaml.safe_load(doc_blocks()[".gitlab-ci.yml (merge requests)"])["hooklint-review"]
    assert job["artifacts"]["paths"] == ["hooklint-review.md"]
    git(repo, "checkout", "-q", "two")
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "curl").write_text('#!/bin/bash\necho "$@" > "$CURL_LOG"\n')
    (fake / "curl").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CI_")}
    env.update({"CI_MERGE_REQUEST_DIFF_BASE_SHA": git(repo, "rev-parse", "one"), "HOOKLINT_GITLAB_TOKEN": "t",
                "CI_API_V4_URL": "https://gitlab.example.com/api/v4", "CI_PROJECT_ID": "5",
                "CI_MERGE_REQUEST_IID": "9", "CURL_LOG": str(tmp_path / "curl.log"),
                "PATH": os.pathsep.join([str(fake), str(Path(sys.executable).parent), os.environ["PATH"]])})  # fmt: skip
    script = [line for line in job["script"] if "pip install" not in line]
    assert len(script) == len(job["script"]) - 1
    proc = subprocess.run(["bash", "-e", "-c", "\n".join(script)], cwd=repo, env=env, capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr  # a new finding
    assert (repo / "hooklint-review.md").read_text().startswith("<!-- hooklint-diff -->\n### hooklint: 1 new finding")
    assert (tmp_path / "curl.log").read_text().split()[-1] == "https://gitlab.example.com/api/v4/projects/5/merge_requests/9/notes"


def test_the_configurations_exclude_applies_to_both_sides(repo):
    (repo / ".hooklint.yaml").write_text("exclude: [deploy/app/seed.yaml]\n")
    code, doc = diff_json("one", "--head", "two", "--config", ".hooklint.yaml")
    assert (code, doc["new"]) == (0, [])
    # found, not named: the working tree's own file is neither side's, and the base's policy (none) applies
    result = runner.invoke(app, ["diff", "--format", "json", "one", "--head", "two"])
    code, doc = result.exit_code, json.loads(result.stdout)
    assert (code, doc["notes"]) == (1, ["the working tree's .hooklint.yaml is not one's, ignored: both revisions are "
                                        "checked with one's configuration (none: the defaults), the policy in force "
                                        "(land a change to the policy on its own first, or pass --config)"])


def test_a_renamed_file_keeps_its_findings(repo):
    git(repo, "checkout", "-q", "two")
    git(repo, "mv", "deploy/app/seed.yaml", "deploy/app/seeds.yaml")
    code, doc = diff_json("two")
    assert (code, doc["new"], doc["fixed"], doc["unchanged"]) == (0, [], [], 1)


@pytest.mark.skipif(__import__("shutil").which("kubectl") is None and __import__("shutil").which("kustomize") is None,
                    reason="neither kustomize nor kubectl is installed")  # fmt: skip
def test_an_application_that_stops_rendering_is_not_compared(repo):
    (repo / "deploy/app/kustomization.yaml").write_text("resources:\n- job.yaml\n- seed.yaml\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "kustomize")
    (repo / "deploy/app/kustomization.yaml").write_text("resources:\n- job.yaml\n- seed.yaml\n- missing.yaml\n")
    code, doc = diff_json("HEAD")
    assert code == 1  # the new HL007 error
    assert [f["rule_id"] for f in doc["new"]] == ["HL007"]
    assert (doc["fixed"], doc["plan_changes"], doc["not_compared"]) == ([], [], ["deploy/app"])
    text = runner.invoke(app, ["diff", "HEAD"]).stdout
    assert text.endswith("\n\nNot compared (rendered on one side only; lint each side to see why):\n  deploy/app\n\n"
                         "Not fully rendered after the change (what they add was not checked):\n  deploy/app: rendered "
                         "none: deploy/app/kustomization.yaml:4:3: resources entry 'missing.yaml' names nothing: "
                         "deploy/app/missing.yaml does not exist\n\nNotes:\n  deploy/app: nothing of it rendered on the working "
                         "tree (see its new finding), so it is not compared: its 1 finding on HEAD is not counted as fixed "
                         "and its plan is not diffed\n")
    assert doc["not_fully_rendered"] == [{"application": "deploy/app", "rendered": "none", "reasons": [
        "deploy/app/kustomization.yaml:4:3: resources entry 'missing.yaml' names nothing: deploy/app/missing.yaml does "
        "not exist"]}]


def test_a_new_api_version_of_the_same_object_is_no_plan_change(repo):
    """Argo CD keys objects by group, kind, namespace and name: apps/v1beta2 -> apps/v1 is one Deployment."""
    deployment = "apiVersion: apps/{v}\nkind: Deployment\nmetadata:\n  name: web\nspec: {{}}\n"
    (repo / "deploy/app/web.yaml").write_text(deployment.format(v="v1beta2"))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "web")
    (repo / "deploy/app/web.yaml").write_text(deployment.format(v="v1"))
    code, doc = diff_json("HEAD")
    assert doc["plan_changes"] == []
    (repo / "deploy/app/web.yaml").write_text(deployment.format(v="v1").replace("apps/v1", "example.com/v1"))
    code, doc = diff_json("HEAD")
    [change] = doc["plan_changes"]
    assert ([t["api_version"] for t in change["added"]], [t["api_version"] for t in change["removed"]]) == (
        ["example.com/v1"], ["apps/v1beta2"])


def test_applications_elsewhere_in_the_repository_apply_to_both_sides(repo):
    """diff deploy/app: the Application in apps/ (not a named path) renders the folder on both sides."""
    git(repo, "remote", "add", "origin", "git@github.com:acme/deploy.git")
    (repo / "apps").mkdir()
    (repo / "apps/app.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: app\nspec:\n  project: p\n"
        "  destination:\n    namespace: shop\n  source:\n    repoURL: https://github.com/acme/deploy\n"
        "    path: deploy/app\n    directory:\n      exclude: seed.yaml\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "app")
    (repo / "deploy/app/seed.yaml").write_text(BAD_HOOK.replace("seed:latest", "seed:2.0.0").replace("name: seed", "name: seed2"))
    code, doc = diff_json("HEAD", "deploy")
    assert (code, doc["new"], doc["fixed"], doc["plan_changes"]) == (0, [], [], [])  # seed.yaml is excluded on both sides


def test_markdown_never_passes_html_from_manifests(repo):
    """A hook type's value reaches HL010's message: as HTML it could close the comment's
    <details> and forge its headline."""
    git(repo, "checkout", "-q", "two")
    (repo / "deploy/app/seed.yaml").write_text(BAD_HOOK.replace(
        "hook: PostSync", 'hook: "X</details><details><summary>all good"'))
    text = runner.invoke(app, ["diff", "one", "-f", "markdown"]).output
    assert "X&lt;/details&gt;&lt;details&gt;&lt;summary&gt;all good" in text
    assert "</details><details><summary>all good" not in text
    assert text.count("<details") == text.count("</details>")


def test_lint_markdown_never_drops_an_error_to_make_room(tmp_path, monkeypatch):
    """60 warnings in a.yaml, then 3 errors in z.yaml: the errors come first, every one of them,
    and what is cut is counted by severity."""
    monkeypatch.chdir(tmp_path)
    warnings = "---\n".join(BAD_HOOK.replace("name: seed\n", f"name: seed-{i:02}\n", 1) for i in range(60))
    (tmp_path / "a.yaml").write_text(warnings)
    no_restart = BAD_HOOK.replace("      restartPolicy: Never\n", "").replace(":latest", ":1.0")
    (tmp_path / "z.yaml").write_text("---\n".join(no_restart.replace("name: seed\n", f"name: broken-{i}\n", 1) for i in range(3)))
    text = runner.invoke(app, ["lint", "-f", "markdown", "."]).output
    rows = [line for line in text.splitlines() if line.startswith("| ") and "| rule |" not in line]
    assert len(rows) == markdown.MAX_ITEMS
    assert [row.split(" | ")[2] for row in rows[:3]] == ["z.yaml:11", "z.yaml:28", "z.yaml:45"]
    assert all(row.startswith("| 🛑 | `HL205`") for row in rows[:3])
    assert all(row.startswith("| ⚠️ | `HL102`") for row in rows[3:])
    assert [row.split(" | ")[2] for row in rows[3:5]] == ["a.yaml:17", "a.yaml:35"]
    # the 14 cut: 13 warnings and the application's HL305 note
    assert "… and 14 more: 0 errors, 13 warnings, 1 note (see the full report: `hooklint lint -f json`)." in text


def test_markdown_shows_every_error_past_max_items_and_counts_errors_only_the_size_limit_cuts():
    from hooklint.findings import Finding, Span

    def finding(severity, i, message="m"):
        return Finding("HL205", "job-invalid-restart-policy", severity, message, f"f{i:03}.yaml", Span.point(1, 1))

    many = [finding("warning", i) for i in range(5)] + [finding("error", i) for i in range(60)]
    rows = markdown._finding_rows(many, None, "hooklint lint -f json")
    assert sum(row.startswith("| 🛑 |") for row in rows) == 60
    assert not any(row.startswith("| ⚠️ |") for row in rows)
    assert rows[-1] == "\n… and 5 more: 0 errors, 5 warnings, 0 notes (see the full report: `hooklint lint -f json`)."
    long = [finding("error", i, "x" * 1000) for i in range(100)]
    rows = markdown._finding_rows(long, None, "hooklint lint -f json", budget=20_000)
    assert sum(row.startswith("| 🛑 |") for row in rows) == 18  # rows of 1,056 characters
    assert rows[-1] == "\n… and 82 more: 82 errors, 0 warnings, 0 notes (see the full report: `hooklint lint -f json`)."


@pytest.fixture
def typo(repo):
    """Commit ``four``: the PostSync hook seed's type misspelled (PostSnyc): Argo CD ignores it."""
    (repo / "deploy/app/seed.yaml").write_text(BAD_HOOK.replace("hook: PostSync", "hook: PostSnyc"))
    git(repo, "commit", "-qam", "four")
    git(repo, "tag", "four")
    return repo


def test_a_hook_that_stops_being_a_hook_is_no_longer_checked_not_fixed(typo):
    code, doc = diff_json("three", "--head", "four")
    assert code == 1  # HL010 is new
    assert [(f["rule_id"], f["object"]["name"]) for f in doc["new"]] == [("HL010", "seed")]
    assert doc["fixed"] == []
    why = ("Job/seed no longer runs as a hook: argocd.argoproj.io/hook 'PostSnyc' has no valid hook type: ignored "
           "hook, never applied")
    assert [(f["path"], f["line"], f["rule_id"], f["reason"]) for f in doc["no_longer_checked"]] == [
        ("deploy/app/seed.yaml", 17, "HL102", why)]
    [change] = doc["plan_changes"]
    assert (change["added"], change["removed"], change["moved"], change["changed"]) == ([], [], [], [])
    assert [(m["task"]["name"], m["task"]["hook_types"], m["from"], m["reason"]) for m in change["left"]] == [
        ("seed", [], {"phase": "PostSync", "wave": 0},
         "argocd.argoproj.io/hook 'PostSnyc' has no valid hook type: ignored hook, never applied")]

    text = runner.invoke(app, ["diff", "three", "--head", "four"]).output.splitlines()
    assert text[0] == ("hooklint diff three -> four: 1 new finding, 0 fixed, 1 no longer checked, 0 unchanged; "
                       "plan changes in 1 application")
    start = text.index("No longer checked (not fixed: their object left the rule's scope):")
    assert text[start + 1].startswith("  deploy/app/seed.yaml:17:16: warning HL102 hook-image-mutable-tag: ")
    assert text[start + 2] == f"    {why}"
    assert text[-2:] == ["Plan of deploy/app:", "  left     Job/seed: PostSync wave 0 -> not applied (argocd.argoproj.io/hook "
                         "'PostSnyc' has no valid hook type: ignored hook, never applied)"]  # fmt: skip

    md = runner.invoke(app, ["diff", "three", "--head", "four", "-f", "markdown"]).output
    assert "<details open><summary>No longer checked (1)</summary>" in md
    assert f"| ⚠️ | `HL102` hook-image-mutable-tag | deploy/app/seed.yaml:17 | Not fixed, no longer checked: {why}. It said: " in md
    assert ("| ⏏️ left | `Job/seed` | PostSync wave 0 | not applied: argocd.argoproj.io/hook 'PostSnyc' has no valid "
            "hook type: ignored hook, never applied |") in md


def test_the_fix_of_the_typo_shows_the_step_the_hook_is_added_to(typo):
    code, doc = diff_json("four", "--head", "three")
    assert [f["rule_id"] for f in doc["new"]] == ["HL102"] and [f["rule_id"] for f in doc["fixed"]] == ["HL010"]
    [change] = doc["plan_changes"]
    assert [(t["name"], t["hook_types"], t["step"]) for t in change["added"]] == [
        ("seed", ["PostSync"], {"phase": "PostSync", "wave": 0})]
    assert runner.invoke(app, ["diff", "four", "--head", "three"]).output.splitlines()[-1] == (
        "  added    Job/seed: PostSync wave 0")
    md = runner.invoke(app, ["diff", "four", "--head", "three", "-f", "markdown"]).output
    assert "| ➕ added | `Job/seed` |  | PostSync wave 0 |" in md


def test_a_hook_annotation_lost_makes_a_plain_resource_no_longer_checked(repo):
    (repo / "deploy/app/seed.yaml").write_text(BAD_HOOK.replace("argocd.argoproj.io/hook:", "argocd.argoproj.io/hok:"))
    code, doc = diff_json("two")
    assert [(f["rule_id"], f["reason"]) for f in doc["no_longer_checked"]] == [
        ("HL102", "Job/seed no longer runs as a hook: it is now a plain resource (Sync wave 0)")]
    [change] = doc["plan_changes"]
    assert [(m["task"]["name"], m["from"], m["to"]) for m in change["moved"]] == [
        ("seed", {"phase": "PostSync", "wave": 0}, {"phase": "Sync", "wave": 0})]
# --- reading a revision: no attributes, no filters, links as links (issue 19, classes 6 and 8) ----


def commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    git(repo, "tag", message)


def new_findings(*args: str) -> tuple[int, list[tuple[str, str]], str]:
    result = runner.invoke(app, ["diff", "--format", "json", *args])
    assert "internal error" not in result.output and result.exception is None or isinstance(result.exception, SystemExit), result.output
    doc = json.loads(result.stdout)
    return result.exit_code, sorted((f["path"], f["rule_id"]) for f in doc["new"]), result.stderr


def test_an_absolute_symbolic_link_in_the_base_revision_is_no_crash(repo):
    """Before: ``git archive`` and tarfile's data filter: ``internal error: AbsoluteLinkError``
    for any absolute link in the base revision."""
    (repo / "deploy/app/hosts.yaml").symlink_to("/etc/hosts")
    (repo / "deploy/app/settings.yaml").symlink_to("job.yaml")
    commit_all(repo, "links")
    (repo / "deploy/app/extra.yaml").write_text(BAD_HOOK.replace("  name: seed\n  annotations", "  name: extra\n  annotations"))
    commit_all(repo, "after-links")
    expected = new_findings("one", "--head", "two")[1]
    code, new, _ = new_findings("links", "--head", "after-links")
    assert code == 1
    assert new == [(p.replace("seed.yaml", "extra.yaml"), rule) for p, rule in expected]
    code, new, _ = new_findings("links")  # the working tree as head
    assert (code, [p for p, _ in new]) == (1, ["deploy/app/extra.yaml"] * len(expected))


def test_links_of_a_revision_are_written_as_links(repo):
    from hooklint.review import checkout

    (repo / "deploy/app/hosts.yaml").symlink_to("/etc/hosts")
    (repo / "deploy/app/again.yaml").symlink_to("job.yaml")
    (repo / "deploy/base").symlink_to("app", target_is_directory=True)
    (repo / "deploy/app/gone.yaml").symlink_to("../nowhere.yaml")
    commit_all(repo, "links")
    with checkout(str(repo), git(repo, "rev-parse", "links")) as copy:
        folder = Path(copy.folder)
        assert os.readlink(folder / "deploy/app/hosts.yaml") == "/etc/hosts"
        assert os.readlink(folder / "deploy/app/again.yaml") == "job.yaml"
        assert os.readlink(folder / "deploy/base") == "app"
        assert os.readlink(folder / "deploy/app/gone.yaml") == "../nowhere.yaml"
        assert (folder / "deploy/app/job.yaml").read_text() == JOB.replace(
            "hook: PreSync\n", "hook: PreSync\n    argocd.argoproj.io/sync-wave: \"2\"\n")
        assert copy.notes == []
    assert not folder.exists()


def test_export_ignore_in_the_change_cannot_hide_its_own_new_files(repo):
    """Before: ``git archive`` honoured the head's ``* export-ignore``: the head was empty, every
    application "did not render on one side" or had nothing: 0 new findings."""
    expected = new_findings("one", "--head", "two")[1]
    git(repo, "checkout", "-q", "one")
    (repo / ".gitattributes").write_text("* export-ignore\n")
    (repo / "deploy/app/seed.yaml").write_text(BAD_HOOK)
    commit_all(repo, "hidden")
    git(repo, "checkout", "-q", "main")
    code, new, _ = new_findings("one", "--head", "hidden")
    assert (code, new) == (1, expected)
    assert expected  # the bad hook has findings to hide
    # the same attributes on the base side hide nothing either
    code, new, _ = new_findings("hidden", "--head", "two")
    assert code == 0 and new == []


def test_filters_and_textconv_of_the_repository_never_run(repo, tmp_path):
    """A change adds ``.gitattributes`` naming a filter that the repository configuration (or a
    git-lfs install) defines as a command: reading a revision runs none of it."""
    proof = tmp_path / f"PWNED-{os.getpid()}-{id(repo)}"
    (repo / ".gitattributes").write_text("*.yaml filter=evil diff=evil\n")
    (repo / "deploy/app/more.yaml").write_text(BAD_HOOK.replace("  name: seed\n  annotations", "  name: more\n  annotations"))
    commit_all(repo, "evil")
    git(repo, "config", "filter.evil.smudge", f"touch {proof}; cat")
    git(repo, "config", "filter.evil.clean", f"touch {proof}; cat")
    git(repo, "config", "filter.evil.required", "true")
    git(repo, "config", "diff.evil.textconv", f"touch {proof}; cat")
    git(repo, "config", "core.fsmonitor", f"touch {proof}; true")
    git(repo, "archive", "--format=tar", "-o", str(tmp_path / "proof.tar"), "evil")
    assert proof.exists()  # what git archive did
    proof.unlink()
    code, new, _ = new_findings("two", "--head", "evil")
    assert (code, [p for p, _ in new]) == (1, ["deploy/app/more.yaml"] * len(new))
    assert new
    new_findings("evil")
    new_findings("evil", "--head", "one")
    assert not proof.exists()


def test_a_submodule_is_skipped_and_said(repo):
    commit = git(repo, "rev-parse", "one")
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{commit},deploy/vendored")
    git(repo, "commit", "-qm", "submodule")
    git(repo, "tag", "submodule")
    code, new, stderr = new_findings("one", "--head", "submodule")
    assert code == 1 and new
    assert stderr == ("hooklint: note: submodule: deploy/vendored: a git submodule (commit "
                      f"{commit[:12]}); hooklint does not read submodules: not compared\n")


def test_a_blob_missing_from_the_clone_is_one_line_and_nothing_is_fetched(repo, tmp_path, monkeypatch):
    """A partial clone lacks the blobs of old revisions; git would fetch them from the promisor
    remote. hooklint runs git with every transport refused: one line, exit 2."""
    from hooklint.review import ReviewError, checkout

    blob = git(repo, "rev-parse", "two:deploy/app/seed.yaml")
    objects = repo / ".git" / "objects"
    loose = objects / blob[:2] / blob[2:]
    assert loose.is_file()
    loose.rename(tmp_path / "saved-blob")
    with pytest.raises(ReviewError) as caught:
        with checkout(str(repo), git(repo, "rev-parse", "two")):
            pass
    assert str(caught.value) == (f"object {blob} is not in this clone (a partial or shallow clone?): hooklint diff "
                                 "fetches nothing; fetch the revisions it compares first")
    result = runner.invoke(app, ["diff", "one", "--head", "two"])
    assert (result.exit_code, result.stderr) == (2, f"hooklint: error: {caught.value}\n")


def _layouts():
    from hypothesis import strategies as st

    names = st.sampled_from(["a", "b", "c.yaml", "d.yml", "é.yaml", "x y.yaml", ".hidden.yaml", "-n.yaml"])
    paths = st.lists(names, min_size=1, max_size=3).map("/".join)
    targets = st.one_of(st.sampled_from(["/etc/hosts", "/", "..", "../..", ".", "a", "a/b", "../../../../etc/passwd",
                                         "missing.yaml", "c.yaml", "/nonexistent/x"]), paths)  # fmt: skip
    entry = st.one_of(st.tuples(st.just("file"), st.binary(max_size=64)), st.tuples(st.just("link"), targets))
    return st.dictionaries(paths, entry, min_size=1, max_size=8)


def test_any_layout_of_files_and_links_is_written_exactly(tmp_path_factory):
    """Property: whatever files and symbolic links (absolute, dangling, up and out of the tree,
    through each other) a revision holds, its copy holds the same entries, byte for byte and
    target for target, and nothing is ever written outside the copy."""
    from hypothesis import HealthCheck, given, settings

    from hooklint.review import checkout

    @settings(max_examples=25, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(_layouts())
    def check(layout):
        repo = tmp_path_factory.mktemp("layout")
        # a path that is a folder of another is left out: a working tree cannot hold both
        kept = {p: e for p, e in layout.items() if not any(q.startswith(p + "/") for q in layout)}
        for path, (kind, value) in kept.items():
            target = repo / path
            target.parent.mkdir(parents=True, exist_ok=True)
            if kind == "file":
                target.write_bytes(value)
            else:
                target.symlink_to(value)
        git(repo, "init", "-q")
        git(repo, "add", "-A")
        git(repo, "-c", "user.email=ci@example.com", "-c", "user.name=ci", "commit", "-qm", "layout")
        outside = {p.name for p in (repo.parent).iterdir()}
        with checkout(str(repo), git(repo, "rev-parse", "HEAD")) as copy:
            folder = Path(copy.folder)
            assert copy.notes == []
            written = {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_symlink() or p.is_file()}
            # .git/HEAD names the copy's commit (issue 32: an Application's targetRevision is compared with it)
            assert (folder / ".git/HEAD").read_text() == git(repo, "rev-parse", "HEAD") + "\n"
            assert {p for p in written if not p.startswith(".git/")} == set(kept)
            for path, (kind, value) in kept.items():
                if kind == "file":
                    assert not (folder / path).is_symlink() and (folder / path).read_bytes() == value
                else:
                    assert os.readlink(folder / path) == value
        assert not folder.exists()
        assert {p.name for p in (repo.parent).iterdir()} == outside

    check()


# --- the policy in force: a change that edits the configuration is judged by the base's ---------


@pytest.mark.parametrize("base_config", [None, "fail-on: warning\nignore: [HL208]\n"], ids=["adds", "edits"])
def test_a_change_that_loosens_the_configuration_is_judged_by_the_bases(repo, base_config):
    """A pull request adding a bad hook and a .hooklint.yaml of ``fail-on: never`` and ``ignore:
    [HL1, HL2, HL3]`` reviewed as "0 new findings", exit 0 (helper trial): the policy that reviews
    a change is the one in force, the base's; a named --config is taken as named."""
    if base_config is not None:
        (repo / ".hooklint.yaml").write_text(base_config)
        commit_all(repo, "policy")
    (repo / ".hooklint.yaml").write_text("fail-on: never\nignore: [HL1, HL2, HL3]\n")
    commit_all(repo, "loosened")
    base = "policy" if base_config is not None else "three"
    code, new, stderr = new_findings(base, "--head", "loosened")
    verb = "edits" if base_config is not None else "adds"
    assert (code, new, stderr) == (0, [], (
        f"hooklint: note: the change {verb} .hooklint.yaml, ignored: both revisions are checked with {base}'s "
        f"configuration ({'.hooklint.yaml' if base_config else 'none: the defaults'}), the policy in force (land a "
        "change to the policy on its own first, or pass --config)\n"))  # fmt: skip
    (repo / "deploy/app/extra.yaml").write_text(BAD_HOOK.replace("  name: seed\n  annotations", "  name: extra\n  annotations"))
    commit_all(repo, "bad")
    code, new, stderr = new_findings(base, "--head", "bad")
    assert code == 1 and ("deploy/app/extra.yaml", "HL102") in new, (code, new)
    assert stderr.startswith(f"hooklint: note: the change {verb} .hooklint.yaml")
    named, _, _ = new_findings(base, "--head", "bad", "--config", ".hooklint.yaml")
    assert named == 0


def test_a_change_that_keeps_the_configuration_is_judged_by_it(repo):
    (repo / ".hooklint.yaml").write_text("fail-on: never\n")
    commit_all(repo, "never")
    (repo / "deploy/app/extra.yaml").write_text(BAD_HOOK.replace("  name: seed\n  annotations", "  name: extra\n  annotations"))
    commit_all(repo, "bad-but-allowed")
    code, new, stderr = new_findings("never", "--head", "bad-but-allowed")
    assert (code, stderr) == (0, "") and ("deploy/app/extra.yaml", "HL102") in new


def test_a_change_that_breaks_the_configuration_is_judged_by_the_bases(repo):
    """Second helper trial: a pull request adding a pyproject.toml [tool.hooklint] beside the
    base's .hooklint.yaml made diff exit 2 ("both configure hooklint"): the change decided
    whether it was reviewed. The base's configuration reviews it, and a note says why."""
    (repo / ".hooklint.yaml").write_text("fail-on: warning\n")
    commit_all(repo, "policy")
    (repo / "pyproject.toml").write_text("[tool.hooklint]\nfail-on = 'never'\n")
    (repo / "deploy/app/extra.yaml").write_text(BAD_HOOK.replace("  name: seed\n  annotations", "  name: extra\n  annotations"))
    commit_all(repo, "second-config")
    code, new, stderr = new_findings("policy", "--head", "second-config")
    assert code == 1 and ("deploy/app/extra.yaml", "HL102") in new, (code, new)
    assert stderr.startswith("hooklint: note: the configuration does not load here (") and stderr.endswith(
        "), ignored: both revisions are checked with policy's configuration (.hooklint.yaml), the policy in force "
        "(land a change to the policy on its own first, or pass --config)\n"), stderr
    assert stderr.count("\n") == 1, stderr


def test_what_the_change_suppresses_is_shown_never_fixed(repo):
    """Second helper trial: a hook with an evil image and ``hooklint.io/ignore: "HL101, HL102, ...:
    reviewed"`` reviewed as "0 new findings", and a finding the change silenced on an existing
    object counted as fixed. Both are listed as suppressed by the change, with the reason."""
    (repo / "deploy/app/extra.yaml").write_text(BAD_HOOK.replace("  name: seed\n  annotations:\n", (
        "  name: extra\n  annotations:\n    hooklint.io/ignore: \"HL102: reviewed\"\n")))  # fmt: skip
    commit_all(repo, "hidden")
    code, doc = diff_json("three", "--head", "hidden")
    assert [(f["rule_id"], f["path"], f["suppression"]) for f in doc["suppressed"]] == [
        ("HL102", "deploy/app/extra.yaml", {"kind": "annotation", "reason": "reviewed"})]
    assert "HL102" not in [f["rule_id"] for f in doc["new"]] and doc["fixed"] == []
    text = runner.invoke(app, ["diff", "three", "--head", "hidden"]).output
    assert ", 1 suppressed by the change, " in text.splitlines()[0]
    assert "Suppressed by the change (not fixed: the change hides them; review the reason):" in text
    # silencing a finding the base has: suppressed by the change, not fixed
    (repo / "deploy/app/seed.yaml").write_text(BAD_HOOK.replace("  name: seed\n  annotations:\n", (
        "  name: seed\n  annotations:\n    hooklint.io/ignore: \"HL102: later\"\n")))  # fmt: skip
    commit_all(repo, "silenced")
    code, doc = diff_json("hidden", "--head", "silenced")
    assert [(f["rule_id"], f["path"]) for f in doc["suppressed"]] == [("HL102", "deploy/app/seed.yaml")]
    assert [f["rule_id"] for f in doc["fixed"]] == []


def test_the_heads_input_errors_are_in_the_json_too(repo):
    """Second helper trial: a file diff could not read (over max-file-size) was said on stderr
    only; the JSON report carries it too (exit 2 as before)."""
    (repo / ".hooklint.yaml").write_text("max-file-size: 4096\n")
    commit_all(repo, "small")
    (repo / "deploy/app/big.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n" + "#" * 5000 + "\n")
    commit_all(repo, "big")
    result = runner.invoke(app, ["diff", "--format", "json", "small", "--head", "big"])
    code, doc = result.exit_code, json.loads(result.stdout)
    assert code == 2
    assert doc["errors"] == [{"path": "deploy/app/big.yaml", "message": "larger than max-file-size (4,096 bytes); not linted"}]


def test_the_bases_globs_apply_to_both_sides_when_the_change_breaks_the_configuration(repo):
    """The base's configuration, read from its copy, has its globs moved to the repository: an
    ``exclude`` of the base holds on the head too (it was anchored in the temporary copy)."""
    (repo / ".hooklint.yaml").write_text("exclude: [deploy/app/extra.yaml]\n")
    commit_all(repo, "excluding")
    (repo / "pyproject.toml").write_text("[tool.hooklint]\nfail-on = 'never'\n")
    (repo / "deploy/app/extra.yaml").write_text(BAD_HOOK.replace("  name: seed\n  annotations", "  name: extra\n  annotations"))
    commit_all(repo, "broken-and-excluded")
    code, new, stderr = new_findings("excluding", "--head", "broken-and-excluded")
    assert (code, new) == (0, []), (code, new)
    assert stderr.startswith("hooklint: note: the configuration does not load here (")


# --- an application the base did not render (trial 4, item 1) ------------------------------------

needs_helm = pytest.mark.skipif(__import__("hooklint.sources.render.helm", fromlist=["find_helm"]).find_helm() is None,
                                reason="no Helm: neither a helm binary nor helm-python-sdk")  # fmt: skip

SHOP_CHART = ("apiVersion: v2\nname: shop\nversion: 1.0.0\ndependencies:\n- name: postgresql\n  version: 15.5.0\n"
              "  repository: https://charts.bitnami.com/bitnami\n")  # fmt: skip
VENDORED_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: evil
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 300
  template:
    spec:
      hostPID: true
      serviceAccountName: evil
      automountServiceAccountToken: false
      restartPolicy: Never
      containers: [{name: c, image: "ghcr.io/acme/x:1.0"}]
"""


@pytest.fixture
def vendoring(tmp_path, monkeypatch):
    """``base``: chart shop needs dependency postgresql from a Helm repository, not in charts/, and
    its template includes a helper of it: hooklint renders nothing (HL009). ``head``: the change
    vendors charts/postgresql/ with that helper and a PreSync Job with hostPID (HL105)."""
    repo = tmp_path / "repo"
    (repo / "shop/templates").mkdir(parents=True)
    monkeypatch.chdir(repo)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "ci@example.com")
    git(repo, "config", "user.name", "ci")
    (repo / "shop/Chart.yaml").write_text(SHOP_CHART)
    (repo / "shop/templates/cm.yaml").write_text(
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: {{ include "postgresql.fullname" . }}}\n')
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "tag", "base")
    (repo / "shop/charts/postgresql/templates").mkdir(parents=True)
    (repo / "shop/charts/postgresql/Chart.yaml").write_text("apiVersion: v2\nname: postgresql\nversion: 15.5.0\n")
    (repo / "shop/charts/postgresql/templates/_helpers.tpl").write_text(
        '{{- define "postgresql.fullname" -}}pg{{- end -}}\n')
    (repo / "shop/charts/postgresql/templates/job.yaml").write_text(VENDORED_JOB)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "vendor")
    git(repo, "tag", "head")
    return repo


@needs_helm
def test_an_application_the_base_did_not_render_is_all_new(vendoring):
    """Nothing of shop rendered on the base, so nothing there can match its findings on the head:
    each is new, its whole plan is added, a note names it, and --fail-on decides the exit code. The
    review passed with "0 new findings, 1 fixed; no plan change" (exit 0)."""
    code, doc = diff_json("base", "--head", "head")
    assert code == 1
    assert [(f["path"], f["line"], f["column"], f["rule_id"]) for f in doc["new"]] == [
        ("shop/charts/postgresql/templates/job.yaml", 12, 7, "HL105")]
    assert [(f["path"], f["rule_id"]) for f in doc["fixed"]] == [("shop/Chart.yaml", "HL009")]
    assert (doc["unchanged"], doc["not_compared"]) == (0, ["shop"])
    assert [(c["application"], [(t["kind"], t["name"], t["step"]) for t in c["added"]], c["removed"], c["moved"])
            for c in doc["plan_changes"]] == [
        ("shop", [("Job", "evil", {"phase": "PreSync", "wave": 0}), ("ConfigMap", "pg", {"phase": "Sync", "wave": 0})],
         [], [])]  # fmt: skip
    note = ("shop: nothing of it rendered on base (lint base to see why), so nothing there can match it: its 1 finding "
            "on head counts as new and its whole plan as added")  # fmt: skip
    assert doc["notes"] == [note]
    result = runner.invoke(app, ["diff", "base", "--head", "head"])
    assert (result.exit_code, result.stderr) == (1, f"hooklint: note: {note}\n")
    assert result.stdout.splitlines()[0] == ("hooklint diff base -> head: 1 new finding, 1 fixed, 0 unchanged; plan "
                                             "changes in 1 application; 1 application not compared (not rendered on one "
                                             "side)")  # fmt: skip
    assert result.stdout.endswith("\n\nPlan of shop:\n  added    Job/evil: PreSync wave 0\n  added    ConfigMap/pg: Sync "
                                  "wave 0\n\nNot compared (rendered on one side only; lint each side to see why):\n  shop\n"
                                  f"\nNotes:\n  {note}\n")  # fmt: skip
    result = runner.invoke(app, ["diff", "base", "--head", "head", "-f", "markdown"])
    assert result.exit_code == 1
    assert result.stdout.splitlines()[1:6] == [
        "### hooklint: 1 new finding, 1 fixed, 0 unchanged; plan changes in 1 application; 1 application not compared "
        "(not rendered on one side)", "", "Compared `base` with `head`.", "", f"> **Note:** {note}"]
    assert "| 🛑 | `HL105` hook-privileged-pod | shop/charts/postgresql/templates/job.yaml:12 |" in result.stdout
    assert "| ➕ added | `Job/evil` |  | PreSync wave 0 |" in result.stdout
    assert [runner.invoke(app, ["diff", "base", "--head", "head", "--fail-on", level]).exit_code
            for level in ("error", "never")] == [1, 0]  # fmt: skip


@needs_helm
def test_an_application_the_base_did_not_render_shows_what_the_change_suppresses(vendoring):
    """A suppression in an application the base did not render is the change's: it is listed, never
    a silent pass; the rest of the application's findings are new."""
    job = vendoring / "shop/charts/postgresql/templates/job.yaml"
    job.write_text(VENDORED_JOB.replace("  name: evil\n", "  name: evil\n  annotations:\n"
                                        "    hooklint.io/ignore: 'HL105: node access is fine'\n", 1).replace(
        "  annotations:\n    argocd", "    argocd"))  # fmt: skip
    code, doc = diff_json("base")
    assert (code, doc["new"], [(f["path"], f["rule_id"], f["suppression"]["reason"]) for f in doc["suppressed"]]) == (
        0, [], [("shop/charts/postgresql/templates/job.yaml", "HL105", "node access is fine")])
    assert doc["notes"] == ["shop: nothing of it rendered on base (lint base to see why), so nothing there can match "
                            "it: its 0 findings on the working tree count as new and its whole plan as added"]
    assert [len(c["added"]) for c in doc["plan_changes"]] == [2]


# --- a namespace that only became known (newuser8, item 1) ----------------------------------------

APP_OF_DEPLOY = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: app\nspec:\n  project: p\n"
                 "  destination:\n    namespace: shop\n  source:\n    repoURL: https://github.com/acme/deploy\n"
                 "    path: deploy/app\n")


def test_a_namespace_that_only_became_known_keeps_the_finding_unchanged(repo):
    """argocd-example-apps b4ebe00..6bed858: a new Application gives the folder a destination
    namespace; the same HL102 on the same Job, in the same file, is neither new nor fixed."""
    git(repo, "remote", "add", "origin", "git@github.com:acme/deploy.git")
    git(repo, "checkout", "-q", "two")
    (repo / "apps").mkdir()
    (repo / "apps/app.yaml").write_text(APP_OF_DEPLOY)
    code, doc = diff_json("two")
    assert (code, doc["new"], doc["fixed"], doc["unchanged"]) == (0, [], [], 1)
    # the other way round: the namespace is known on the base only
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "app")
    (repo / "apps/app.yaml").unlink()
    code, doc = diff_json("HEAD")
    assert (code, doc["new"], doc["fixed"], doc["unchanged"]) == (0, [], [], 1)


def test_a_namespace_that_became_known_never_hides_a_really_new_finding(repo):
    """The fallback needs the same file, rule, kind, name and field: another object (seed2), or a
    namespace that changed from one to another, is new."""
    git(repo, "remote", "add", "origin", "git@github.com:acme/deploy.git")
    git(repo, "checkout", "-q", "two")
    (repo / "apps").mkdir()
    (repo / "apps/app.yaml").write_text(APP_OF_DEPLOY)
    (repo / "deploy/app/seed.yaml").write_text(BAD_HOOK + "---\n" + BAD_HOOK.replace("name: seed\n", "name: seed2\n"))
    code, doc = diff_json("two")
    assert (code, [(f["line"], f["object"]["namespace"], f["object"]["name"]) for f in doc["new"]], doc["fixed"],
            doc["unchanged"]) == (1, [(35, "shop", "seed2")], [], 1)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "app")
    (repo / "apps/app.yaml").write_text(APP_OF_DEPLOY.replace("namespace: shop", "namespace: store"))
    code, doc = diff_json("HEAD")
    assert (code, [(f["object"]["namespace"], f["object"]["name"]) for f in doc["new"]],
            [(f["object"]["namespace"], f["object"]["name"]) for f in doc["fixed"]], doc["unchanged"]) == (
        1, [("store", "seed"), ("store", "seed2")], [("shop", "seed"), ("shop", "seed2")], 0)


@pytest.mark.skipif(__import__("hooklint.sources.render.helm", fromlist=["find_helm"]).find_helm() is None,
                    reason="no Helm: neither a helm binary nor helm-python-sdk")  # fmt: skip
def test_not_fully_rendered_names_why_a_chart_no_application_deploys_failed(repo):
    """newuser8 (argocd-example-apps 6bed858, helm-dependency): a chart no Application deploys fails
    with its defaults (HL007 as a warning); diff's "not fully rendered" (and plan) said only "not
    rendered" instead of the first clause of Helm's error."""
    git(repo, "remote", "add", "origin", "git@github.com:acme/deploy.git")
    (repo / "apps").mkdir()
    (repo / "apps/app.yaml").write_text(APP_OF_DEPLOY)
    (repo / "wordpress").mkdir()
    (repo / "wordpress/Chart.yaml").write_text("name: wordpress")
    text = runner.invoke(app, ["diff", "three"]).stdout
    assert text.split("Not fully rendered after the change (what they add was not checked):\n")[1].split("\n\n")[0] == (
        "  wordpress: rendered none: wordpress/Chart.yaml:1:1: validation: chart.metadata.version is required")
    code, doc = diff_json("three")
    assert doc["not_fully_rendered"] == [{"application": "wordpress", "rendered": "none", "reasons": [
        "wordpress/Chart.yaml:1:1: validation: chart.metadata.version is required"]}]


@pytest.mark.skipif(__import__("hooklint.sources.render.helm", fromlist=["find_helm"]).find_helm() is None,
                    reason="no Helm: neither a helm binary nor helm-python-sdk")
def test_a_chart_at_the_repositorys_top_renders_on_the_base_side_too(tmp_path, monkeypatch):
    """A chart no Application deploys is released under its folder's name; at the repository's top
    that is the checkout's name. The base side's copy was a temporary folder ``hooklint-diff-XXXX``,
    a release name of its own (its objects renamed, a plan change on every review) or, when the
    random part held ``_``, none Helm accepts (HL007 on the base, "not compared", the head's
    findings all new): the copy is now named as the repository's top."""
    repo = tmp_path / "shop"
    (repo / "templates").mkdir(parents=True)
    monkeypatch.chdir(repo)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "ci@example.com")
    git(repo, "config", "user.name", "ci")
    (repo / "Chart.yaml").write_text("apiVersion: v2\nname: shop\nversion: 0.1.0\n")
    (repo / "templates/cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    (repo / "templates/cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\n"
                                            "data:\n  a: b\n")
    code, report = diff_json("HEAD")
    assert code == 0
    assert (report["new"], report["fixed"], report["not_compared"], report["plan_changes"]) == ([], [], [], [])


@needs_helm
def test_a_change_adding_a_hook_a_folded_annotations_key_hides_from_helm_is_new(tmp_path, monkeypatch):
    """Attack 21, B1, in a review: the head adds to a chart a privileged PreSync Job whose
    ``helm.sh/hook: bogus`` Helm never sees (``annotation\\u017f: null`` sorts after ``annotations``
    and folds onto them in Helm's SimpleHead: a nil map), so Helm outputs it and Argo CD runs it.
    Before, hooklint dropped it as Helm's unknown hook: "0 new findings", exit 0."""
    repo = tmp_path / "repo"
    (repo / "shop/templates").mkdir(parents=True)
    monkeypatch.chdir(repo)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "ci@example.com")
    git(repo, "config", "user.name", "ci")
    (repo / "shop/Chart.yaml").write_text("apiVersion: v2\nname: shop\nversion: 1.0.0\n")
    (repo / "shop/templates/cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n")
    commit_all(repo, "base")
    (repo / "shop/templates/job.yaml").write_text(VENDORED_JOB.replace(
        "    argocd.argoproj.io/hook: PreSync\n",
        "    argocd.argoproj.io/hook: PreSync\n    helm.sh/hook: bogus\n  annotation\u017f: null\n"))
    commit_all(repo, "head")
    code, doc = diff_json("base", "--head", "head")
    assert code == 1
    assert [(f["path"], f["line"], f["column"], f["rule_id"]) for f in doc["new"]] == [
        ("shop/templates/job.yaml", 14, 7, "HL105")]
    assert [[(t["kind"], t["name"], t["step"]) for t in c["added"]] for c in doc["plan_changes"]] == [
        [("Job", "evil", {"phase": "PreSync", "wave": 0})]]


DEPRECATED_SA_HOOK = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate-db
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 300
  template:
    spec:
      serviceAccount: migrator
      automountServiceAccountToken: false
      restartPolicy: Never
      containers:
      - name: migrate
        image: ghcr.io/acme/migrate:1.0.0
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: migrator
"""


@pytest.mark.parametrize("written, new", [
    ("serviceAccountName: migrator", []),  # the field's own name for its deprecated alias: the same finding
    ("serviceAccountName: migrator2", ["HL301"]),  # another ServiceAccount: another finding
])  # fmt: skip
def test_the_deprecated_service_account_field_renamed_keeps_its_findings(repo, written, new):
    """New-user trial 28: renaming ``serviceAccount`` (Kubernetes' deprecated alias) to
    ``serviceAccountName`` was two new findings and two fixed, the same HL301 each."""
    (repo / "deploy/app/migrate.yaml").write_text(DEPRECATED_SA_HOOK)
    (repo / "deploy/app/sa2.yaml").write_text("apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: migrator2\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "four")
    base = diff_json("HEAD")[1]["unchanged"]
    (repo / "deploy/app/migrate.yaml").write_text(DEPRECATED_SA_HOOK.replace("serviceAccount: migrator", written))
    code, doc = diff_json("HEAD")
    assert ([f["rule_id"] for f in doc["new"]], [f["rule_id"] for f in doc["fixed"]]) == (new, new)
    assert doc["unchanged"] == base - len(new)
