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
    code, doc, _ = diff("nested", "app", "--config", "app/.hooklint.yaml")  # named: used as named, and said
    assert (code, doc["notes"]) == (0, ["the change edits app/.hooklint.yaml, named with --config: used as named, so "
                                        "the change wrote the policy that reviews it"])  # fmt: skip


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


# --- item 6: diff reads one repository ------------------------------------------------------------

SUFFIX = ("hooklint diff reads one repository, and nothing that makes git read objects, refs or configuration "
          "from elsewhere (run it in a plain clone of its own)")


@pytest.fixture
def other(tmp_path):
    """Another repository on the machine (not the one under review): its ``app/job.yaml`` is EVIL."""
    other = tmp_path / "other"
    (other / "app").mkdir(parents=True)
    git(other, "init", "-q", "-b", "main")
    git(other, "config", "user.email", "o@example.com")
    git(other, "config", "user.name", "o")
    (other / "app/job.yaml").write_text(EVIL)
    commit_all(other, "elsewhere")
    return other


def refused(cwd: Path, *args: str) -> str:
    """stderr of a diff that must be refused: exit 2, one line, no report."""
    os.chdir(cwd)
    result = runner.invoke(app, ["diff", *args])
    assert (result.exit_code, result.stdout, result.stderr.count("\n")) == (2, "", 1), (result.exit_code, result.output)
    assert result.stderr.startswith("hooklint: error: ") and result.stderr.endswith(f": {SUFFIX}\n"), result.stderr
    return result.stderr[len("hooklint: error: "):-len(f": {SUFFIX}\n")]


def test_alternates_are_refused(repo, other, tmp_path):
    """``git clone --shared`` writes ``objects/info/alternates``: every object of the clone is the
    other repository's (issue 32: diff read another repository's objects)."""
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--shared", str(other), str(clone))
    assert refused(clone, "elsewhere") == (f"{clone}/.git/objects/info/alternates: git reads objects of the "
                                           "repositories it lists")  # fmt: skip
    (clone / ".git/objects/info/alternates").write_text("# none\n\n")  # no entry: nothing is read elsewhere
    os.chdir(clone)
    result = runner.invoke(app, ["diff", "elsewhere"])  # and the clone has none of the objects
    assert (result.exit_code, result.stderr) == (2, "hooklint: error: unknown revision 'elsewhere': give a commit, "
                                                    "branch or tag of this repository\n")  # fmt: skip


def test_a_gitdir_file_and_a_linked_worktree_are_refused(repo, other, tmp_path):
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / ".git").write_text(f"gitdir: {other}/.git\n")
    assert refused(planted, "elsewhere") == (f"{planted}/.git is not a folder (a 'gitdir:' file: a worktree, a "
                                             "submodule or another repository)")  # fmt: skip
    worktree = tmp_path / "worktree"
    git(other, "worktree", "add", "-q", str(worktree))
    assert refused(worktree, "elsewhere").startswith(f"{worktree}/.git is not a folder")
    # a .git folder whose commondir is another repository's: git's linked worktree layout, by hand
    crafted = tmp_path / "crafted"
    (crafted / ".git").mkdir(parents=True)
    (crafted / ".git/HEAD").write_text("ref: refs/heads/main\n")
    (crafted / ".git/commondir").write_text(f"{other}/.git\n")
    assert refused(crafted, "elsewhere") == (f"{crafted}/.git/commondir: a linked worktree: its objects and refs are "
                                             "another folder's")  # fmt: skip


def test_a_git_directory_named_elsewhere_is_refused(repo, other, monkeypatch):
    """``GIT_DIR`` (kept from the user's environment: git hooks set it) naming another repository."""
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    assert refused(repo, "elsewhere") == f"git reads the repository at {other}/.git, not {repo}/.git"


def test_a_git_folder_that_links_out_is_refused(repo, other, tmp_path):
    (repo / ".git/objects").rename(repo / "objects-gone")
    (repo / ".git/objects").symlink_to(other / ".git/objects")
    assert refused(repo, "policy") == (f"{repo}/.git/objects is a symbolic link to {other}/.git/objects, outside "
                                       "the repository")  # fmt: skip
    (repo / ".git/objects").unlink()
    (repo / "objects-gone").rename(repo / ".git/objects")
    link = tmp_path / "dot-git-link"
    link.mkdir()
    (link / ".git").symlink_to(other / ".git")
    assert refused(link, "elsewhere") == f"{link}/.git is a symbolic link (to {other}/.git)"


def test_core_worktree_elsewhere_is_refused(repo, other):
    """``core.worktree`` in the repository's configuration: git's work tree (and what ``diff``
    would lint as the head) is another folder."""
    git(repo, "config", "core.worktree", str(other))
    assert refused(repo, "policy") == f"git's work tree is {other} (core.worktree), not {repo}"


def test_replace_refs_and_grafts_are_refused(repo, other):
    """A replace ref shows another object in place of the repository's; grafts give commits other
    parents: what diff reviews would not be what a reviewer's git shows."""
    (repo / "app/job.yaml").write_text(EVIL)
    commit_all(repo, "evil")
    clean, evil = git(repo, "rev-parse", "policy:app/job.yaml"), git(repo, "rev-parse", "evil:app/job.yaml")
    git(repo, "replace", clean, evil)
    assert refused(repo, "policy") == (f"refs/replace/{clean}: a replace ref (git would show another object in place "
                                       "of one of the repository's)")  # fmt: skip
    git(repo, "replace", "-d", clean)
    (repo / ".git/info").mkdir(exist_ok=True)
    (repo / ".git/info/grafts").write_text(f"{git(repo, 'rev-parse', 'evil')}\n")
    assert refused(repo, "policy") == f"{repo}/.git/info/grafts: git takes commits' parents from it, not from the commits"


def test_a_configuration_including_anything_but_a_regular_file_and_a_fifo_in_the_git_folder_are_refused(repo, other):
    """An include naming a FIFO (git would hang on it) or a device (git would read it without end),
    directly or through an included file, is refused before git reads the repository; so is a FIFO
    in the git folder."""
    plain = (repo / ".git/config").read_text()
    os.mkfifo(repo.parent / "fifo")
    (repo.parent / "nested.config").write_text(f"[include]\n\tpath = {repo.parent}/fifo\n")
    for section, config, target in (
            (f"[include]\n\tpath = {repo.parent}/fifo\n", f"{repo}/.git/config", f"{repo.parent}/fifo"),
            (f'[includeIf "gitdir:{repo}/"]\n\tpath = /dev/zero\n', f"{repo}/.git/config", "/dev/zero"),
            ("[core][Include]path = ../../fifo\n", f"{repo}/.git/config", f"{repo}/.git/../../fifo"),
            (f"[include]\n\tpath = {repo.parent}/nested.config\n", f"{repo.parent}/nested.config", f"{repo.parent}/fifo"),
    ):  # fmt: skip
        (repo / ".git/config").write_text(plain + section)
        assert refused(repo, "policy") == f"{config}: an include names {target}, which is not a regular file", section
    (repo / ".git/config").write_text(plain)
    os.mkfifo(repo / ".git/refs/heads/fifo")
    assert refused(repo, "policy") == f"{repo}/.git/refs/heads/fifo is not a regular file (a FIFO or a device)"


def test_an_include_of_a_regular_file_as_ci_checkouts_write_it_is_read(repo, tmp_path):
    """actions/checkout v6 writes ``[includeIf "gitdir:<repo>/.git"] path = <runner temp>/git-credentials-*.config``
    into every checkout, GitLab Runner 18.6 an ``[include] path``: the review runs (it was refused,
    exit 2, so the documented pull-request recipes reviewed nothing), and nothing the included file
    names runs."""
    marker = tmp_path / "ran"
    script = tmp_path / "run.sh"
    script.write_text(f"#!/bin/sh\necho ran >> {marker}\n")
    script.chmod(0o755)
    credentials = tmp_path / "runner-temp" / "git-credentials-0123.config"
    credentials.parent.mkdir()
    credentials.write_text(f'[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic eC1hY2Nlc3M=\n'
                           f"[core]\n\tfsmonitor = {script}\n\tpager = {script}\n")  # fmt: skip
    with (repo / ".git/config").open("a") as config:
        config.write(f'[includeIf "gitdir:{repo}/.git"]\n\tpath = {credentials}\n[include]\n\tpath = {tmp_path}/missing\n')
    (repo / "app/job.yaml").write_text(EVIL)
    done = runner.invoke(app, ["diff", "policy", "app"])
    assert done.exit_code == 1, done.output
    assert "2 new findings, 0 fixed" in done.stdout and "HL101" in done.stdout and not marker.exists()


def test_the_repositorys_git_configuration_runs_nothing(repo, tmp_path):
    """Every key of .git/config that names a program git could start (fsmonitor, pager, editor,
    askpass, ssh, credential helper, gpg, hooks, external diff, filters and textconv, a promisor
    remote's upload-pack): none runs during a diff."""
    marker = tmp_path / "ran"
    script = tmp_path / "run.sh"
    script.write_text(f"#!/bin/sh\necho \"$0 $*\" >> {marker}\ncat\n")
    script.chmod(0o755)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for hook in ("post-index-change", "post-checkout", "pre-commit", "reference-transaction", "pre-auto-gc"):
        (hooks / hook).symlink_to(script)
    for key, value in {"core.fsmonitor": script, "core.pager": script, "pager.ls-tree": script,
                       "pager.cat-file": script, "pager.rev-parse": script, "core.editor": script,
                       "core.askPass": script, "core.sshCommand": script, "credential.helper": f"!{script}",
                       "gpg.program": script, "core.hooksPath": hooks, "diff.external": script,
                       "filter.x.smudge": script, "filter.x.process": script, "diff.x.textconv": script,
                       "remote.origin.url": str(tmp_path / "nowhere"), "remote.origin.uploadpack": script,
                       "remote.origin.promisor": "true", "extensions.partialClone": "origin",
                       "core.repositoryFormatVersion": "1", "gc.auto": "1", "core.untrackedCache": "true",
                       "alias.ls-tree": f"!{script}"}.items():  # fmt: skip
        git(repo, "config", key, str(value))
    (repo / ".gitattributes").write_text("* filter=x diff=x\n")
    (repo / "app/evil.yaml").write_text(EVIL)
    os.chdir(repo)
    result = runner.invoke(app, ["diff", "policy", "app"])
    assert result.exit_code == 1 and not marker.exists(), (result.output, marker.read_text() if marker.exists() else "")


# --- item 6: Mermaid -------------------------------------------------------------------------------

#: A name carrying a Mermaid directive (``%%{init: ...}%%`` is read anywhere in a diagram's text,
#: labels included) and the other characters a label must not pass as they are.
DIRECTIVE = "x%%{init: {'theme': 'dark', 'flowchart': {'htmlLabels': false}}}%%<b>`#&"


def test_mermaid_labels_escape_percent_so_no_directive_can_be_injected(repo):
    """Issue 32: ``%`` was not escaped in the pull-request comment's diagrams, so a name could
    carry a ``%%{init}%%`` directive. Every diagram hooklint draws (diff and lint markdown) writes
    ``%`` as Mermaid's entity ``#37;``."""
    hook = EVIL.replace("name: evil\n", f'name: "{DIRECTIVE}"\n', 1)
    (repo / "app/evil.yaml").write_text(hook)
    diff_md = runner.invoke(app, ["diff", "policy", "app", "-f", "markdown"]).stdout
    lint_md = runner.invoke(app, ["lint", "app", "-f", "markdown"]).stdout
    escaped = "x#37;#37;{init: {'theme': 'dark', 'flowchart': {'htmlLabels': false}}}#37;#37;#lt;b#gt;#96;#35;#amp;"
    for text in (diff_md, lint_md):
        diagrams = [block.split("```", 1)[0] for block in text.split("```mermaid\n")[1:]]
        assert diagrams and all("%" not in d for d in diagrams), text
        assert any(f"Job/{escaped}" in d for d in diagrams), diagrams


def test_notes_on_stderr_escape_control_characters(repo):
    """A note names paths of the revision (a submodule's): its control characters are escaped on
    stderr as in every report, so a path cannot rewrite the terminal or forge a line."""
    commit = git(repo, "rev-parse", "policy")
    name = "app/\x1b]0;owned\x07\x1b[2K\rhooklint: note: all clear"
    subprocess.run(["git", "update-index", "--add", "--cacheinfo", f"160000,{commit},{name}"], cwd=repo, check=True)
    git(repo, "commit", "-qm", "submodule")
    os.chdir(repo)
    result = runner.invoke(app, ["diff", "HEAD", "app"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ("hooklint: note: HEAD: app/\\x1b]0;owned\\x07\\x1b[2K\\rhooklint: note: all clear: a git "
                             f"submodule (commit {commit[:12]}); hooklint does not read submodules: not compared\n")


def test_the_configurations_version_note_escapes_its_path(repo):
    """The note on ``argocd-version`` names the configuration file, whose folder the repository
    names: escaped on stderr (lint and diff)."""
    folder = repo / "app" / "\x1b[2Kx"
    folder.mkdir()
    (folder / ".hooklint.yaml").write_text('argocd-version: "3.9"\n')
    (folder / "job.yaml").write_text(JOB)
    commit_all(repo, "versioned")
    for command in (["lint", str(folder)], ["diff", "versioned", str(folder)]):
        stderr = runner.invoke(app, command).stderr
        assert "\x1b" not in stderr and "\\x1b[2Kx/.hooklint.yaml" in stderr, stderr


def test_a_configuration_the_change_adds_where_diff_runs_is_ignored_and_said(repo):
    """``cd app && hooklint diff policy`` (no path: the whole repository) found the change's
    ``app/.hooklint.yaml`` from the current folder: the base's root configuration reviews, and
    the note says the change's file was ignored."""
    (repo / "app/.hooklint.yaml").write_text("fail-on: never\n")
    (repo / "app/evil.yaml").write_text(EVIL)
    code, doc, stderr = diff("policy")  # from the top: app/.hooklint.yaml applies to no path of "."
    assert (code, new(doc), doc["notes"]) == (1, [("app/evil.yaml", "HL101")], [])
    os.chdir(repo / "app")
    code, doc, stderr = diff("policy")
    assert (code, new(doc), doc["notes"]) == (1, [("app/evil.yaml", "HL101")], [note("adds", "app/.hooklint.yaml")])
