"""hooklint diff on a hostile change or a hostile clone (issue 32, items 2 and 6): a change never
picks its own policy (every configuration file that applies on either side is the base's), and
diff reads one repository (no alternates, ``gitdir:`` file, worktree, replace refs, grafts or
link out of ``.git``); git runs so that the repository's configuration cannot run anything."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import git
from hooklint.cli import app
from tests.manifests import CLEAN_HOOK_JOB as JOB

runner = CliRunner()

#: A PreSync Job from docker.io/evil, pinned by digest: the defaults find nothing in it; a base
#: policy of ``allowed-registries: [ghcr.io/acme]`` finds HL101.
EVIL = JOB.split("---\n")[0].replace("name: migrate\n", "name: evil\n", 1).replace(
    "image: ghcr.io/acme/migrate:1.4.2", "image: docker.io/evil/tool@sha256:" + "a" * 64)
POLICY = "allowed-registries: [ghcr.io/acme]\n"


def commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    git(repo, "tag", message)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """``policy``: a root ``.hooklint.yaml`` allowing ghcr.io/acme only, and ``app/job.yaml``, clean."""
    repo = tmp_path / "repo"
    (repo / "app").mkdir(parents=True)
    monkeypatch.chdir(repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "ci@example.com")
    git(repo, "config", "user.name", "ci")
    (repo / ".hooklint.yaml").write_text(POLICY)
    (repo / "app/job.yaml").write_text(JOB)
    commit_all(repo, "policy")
    return repo


def diff(*args: str) -> tuple[int, dict, str]:
    result = runner.invoke(app, ["diff", "--format", "json", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, json.loads(result.stdout) if result.stdout.startswith("{") else {}, result.stderr


def new(doc: dict) -> list[tuple[str, str]]:
    """The new HL1 (security) findings: what the policy decides."""
    return sorted((f["path"], f["rule_id"]) for f in doc["new"] if f["rule_id"].startswith("HL1"))


def test_job_is_clean_and_evil_is_found_by_the_base_policy(repo):
    """The inputs: the base policy finds HL101 in EVIL; the defaults find nothing."""
    assert "image: ghcr.io/acme/migrate:1.4.2" in JOB
    (repo / "app/evil.yaml").write_text(EVIL)
    assert runner.invoke(app, ["lint", "app/evil.yaml", "--config", str(repo / ".hooklint.yaml")]).exit_code == 1
    (repo / "empty.yaml").write_text("{}\n")
    assert runner.invoke(app, ["lint", "app/evil.yaml", "--config", str(repo / "empty.yaml")]).exit_code == 0


# --- item 2: the policy of a review comes from the base -------------------------------------------


def note(verb: str, rel: str, base: str = "policy", used: str = ".hooklint.yaml") -> str:
    return (f"the change {verb} {rel}, ignored: both revisions are checked with {base}'s configuration ({used}), "
            "the policy in force (land a change to the policy on its own first, or pass --config)")


CHANGE_CONFIGS = {
    "app/.hooklint.yaml": "fail-on: never\nignore: [HL1]\n",
    "app/.hooklint.yml": "allowed-registries: []\n",
    "app/pyproject.toml": "[tool.hooklint]\nfail-on = 'never'\n",
    "app/sub/.hooklint.yaml": "{}\n",
}


@pytest.mark.parametrize("rel", sorted(CHANGE_CONFIGS))
@pytest.mark.parametrize("mode", ["working-tree", "head"])
def test_a_configuration_the_change_adds_nearer_to_the_path_is_ignored(repo, rel, mode):
    """Issue 32: ``hooklint diff BASE app`` (the Action's pull-request mode with ``paths: app``)
    found the ``app/.hooklint.yaml`` the change adds and reviewed both sides with the defaults: a
    docker.io/evil PreSync Job was "0 new findings", exit 0. The base's root configuration reviews
    it; the report says the change's file was ignored, in every format."""
    (repo / rel).parent.mkdir(parents=True, exist_ok=True)
    (repo / rel).write_text(CHANGE_CONFIGS[rel])
    where = os.path.dirname(rel)
    (repo / where / "evil.yaml").write_text(EVIL)
    head = []
    if mode == "head":
        commit_all(repo, "evil")
        head = ["--head", "evil"]
    code, doc, stderr = diff("policy", where, *head)
    said = note("adds", rel)
    assert (code, new(doc)) == (1, [(f"{where}/evil.yaml", "HL101")])
    assert (doc["notes"], stderr) == ([said], f"hooklint: note: {said}\n")
    text = runner.invoke(app, ["diff", "policy", where, *head]).stdout
    assert f"\nNotes:\n  {said}\n" in text
    markdown = runner.invoke(app, ["diff", "policy", where, *head, "-f", "markdown"]).stdout
    assert f"\n> **Note:** {said}\n" in markdown


def test_a_configuration_the_change_deletes_or_edits_nearer_to_the_path_is_ignored(repo):
    """The base's nearer file is the policy: deleting it (the root's defaults then apply) or
    loosening it changes nothing."""
    (repo / ".hooklint.yaml").write_text("{}\n")
    (repo / "app/.hooklint.yaml").write_text(POLICY)
    commit_all(repo, "nested")
    (repo / "app/.hooklint.yaml").unlink()
    (repo / "app/evil.yaml").write_text(EVIL)
    code, doc, _ = diff("nested", "app")
    assert (code, new(doc)) == (1, [("app/evil.yaml", "HL101")])
    assert doc["notes"] == [note("deletes", "app/.hooklint.yaml", "nested", "app/.hooklint.yaml")]
    (repo / "app/.hooklint.yaml").write_text("fail-on: never\n")
    code, doc, _ = diff("nested", "app")
    assert (code, new(doc)) == (1, [("app/evil.yaml", "HL101")])
    assert doc["notes"] == [note("edits", "app/.hooklint.yaml", "nested", "app/.hooklint.yaml")]
    code, doc, _ = diff("nested", "app", "--config", "app/.hooklint.yaml")  # named: used as named
    assert (code, doc["notes"]) == (0, [])


def test_two_paths_the_change_gives_different_configurations_are_judged_by_the_bases(repo):
    """With two paths, a file the change adds under one of them made the working tree's
    configuration fail to load (two files for one run): the base's reviews both."""
    (repo / "other").mkdir()
    (repo / "other/job.yaml").write_text(JOB)
    commit_all(repo, "two-apps")
    (repo / "app/.hooklint.yaml").write_text("fail-on: never\n")
    (repo / "app/evil.yaml").write_text(EVIL)
    code, doc, stderr = diff("two-apps", "app", "other")
    assert (code, new(doc)) == (1, [("app/evil.yaml", "HL101")])
    assert doc["notes"] == [note("", "", "two-apps").replace("the change  , ignored", (
        "the configuration does not load here (app and other are configured by different files (app/.hooklint.yaml, "
        ".hooklint.yaml): lint them in separate runs, or name one file with --config), ignored"))]  # fmt: skip


def test_an_unchanged_nested_configuration_is_the_policy_and_no_note(repo):
    (repo / "app/.hooklint.yaml").write_text("fail-on: never\n")
    commit_all(repo, "relaxed")
    (repo / "app/evil.yaml").write_text(EVIL)
    code, doc, stderr = diff("relaxed", "app")
    assert (code, new(doc), doc["notes"], stderr) == (0, [], [], "")


def test_an_edit_of_pyproject_outside_its_hooklint_table_is_no_policy_change(repo):
    (repo / ".hooklint.yaml").unlink()
    (repo / "pyproject.toml").write_text("[project]\nname = 'a'\n\n[tool.hooklint]\nfail-on = 'never'\n")
    commit_all(repo, "toml")
    (repo / "pyproject.toml").write_text("[project]\nname = 'b'\n\n[tool.hooklint]\nfail-on = 'never'\n")
    code, doc, stderr = diff("toml", "app")
    assert (code, doc["notes"], stderr) == (0, [], "")
    (repo / "pyproject.toml").write_text("[project]\nname = 'b'\n\n[tool.hooklint]\nfail-on = 'error'\n")
    code, doc, stderr = diff("toml", "app")
    assert doc["notes"] == [note("edits", "pyproject.toml", "toml", "pyproject.toml")]
