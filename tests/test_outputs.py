"""Outputs never follow links (issue 32, item 4): ``--output``, ``--write-baseline``, ``init``,
``rules --docs`` and ``fix`` write through :func:`hooklint.files.write_output`, which refuses a
path that is a symbolic link, refuses a path named inside the repository whose folder leads out
of it, writes a path named outside it, and replaces a file (a hard link included) by renaming a
new one over it, never writing through it.

The attacker's inputs are written here from scratch: a pull request that commits
``hooklint.sarif`` as a link to a file of the CI runner's home, or a folder ``reports`` that is a
link out of the checkout, and the Action's lint mode writing its report there."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.files import UnsafeWrite, remove_tree, write_output
from tests.manifests import CONFIGMAP, LATEST_TAG_HOOK

runner = CliRunner()
PRECIOUS = "export PATH=/usr/bin\n"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A checkout ``repo/`` (``.git``) with one finding (HL102), and ``home/.bashrc`` beside it:
    the file outside the repository an attacker aims at."""
    top = tmp_path / "repo"
    (top / ".git").mkdir(parents=True)
    (top / "app").mkdir()
    (top / "app" / "hook.yaml").write_text(LATEST_TAG_HOOK)
    (top / "app" / "cm.yaml").write_text(CONFIGMAP)
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / ".bashrc").write_text(PRECIOUS)
    monkeypatch.chdir(top)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    return top


def bashrc(repo: Path) -> str:
    return (repo.parent / "home" / ".bashrc").read_text()


def no_temporary_files(folder: Path) -> bool:
    return not [p for p in folder.iterdir() if ".hooklint-" in p.name]


LINK_REASON = "a symbolic link (to {target}): hooklint never writes through a link (remove it, or name another file)"

#: The ways a run writes a file a pull request can name or plant: (arguments, what the error says it writes)
WRITERS = {
    "lint --output": (["lint", "-f", "sarif", "--output", "{out}", "app"], "cannot write output"),
    "lint --output json": (["lint", "-f", "json", "--output", "{out}", "app"], "cannot write output"),
    "plan --output": (["plan", "--output", "{out}", "app"], "cannot write output"),
    "lint --write-baseline": (["lint", "--write-baseline", "{out}", "app"], "cannot write baseline"),
}


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_committed_link_out_of_the_repository_is_never_written_through(repo, writer):
    args, what = WRITERS[writer]
    os.symlink("../home/.bashrc", "hooklint.sarif")
    done = runner.invoke(app, [a.format(out="hooklint.sarif") for a in args])
    assert done.exit_code == 2
    assert done.stderr == (f"hooklint: error: hooklint.sarif: {what}: "
                           f"{LINK_REASON.format(target='../home/.bashrc')}\n")  # fmt: skip
    assert bashrc(repo) == PRECIOUS
    assert os.readlink("hooklint.sarif") == "../home/.bashrc" and no_temporary_files(repo)


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_link_inside_the_repository_is_not_written_through_either(repo, writer):
    args, what = WRITERS[writer]
    os.symlink("app/cm.yaml", "report.out")
    done = runner.invoke(app, [a.format(out="report.out") for a in args])
    assert (done.exit_code, done.stderr) == (2, f"hooklint: error: report.out: {what}: "
                                                f"{LINK_REASON.format(target='app/cm.yaml')}\n")  # fmt: skip
    assert (repo / "app" / "cm.yaml").read_text() == CONFIGMAP


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_dangling_link_is_not_followed_to_make_a_file(repo, writer):
    args, _ = WRITERS[writer]
    os.symlink("../home/new-file", "hooklint.sarif")
    done = runner.invoke(app, [a.format(out="hooklint.sarif") for a in args])
    assert done.exit_code == 2
    assert not (repo.parent / "home" / "new-file").exists()


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_folder_that_leads_out_of_the_repository_is_refused(repo, writer):
    args, what = WRITERS[writer]
    os.symlink("../home", "reports")
    done = runner.invoke(app, [a.format(out="reports/.bashrc") for a in args])
    assert done.exit_code == 2
    assert done.stderr == (f"hooklint: error: reports/.bashrc: {what}: its folder reports leads through a symbolic "
                           f"link to {repo.parent / 'home'}, outside the repository {repo}: not written (name a path "
                           "outside the repository if you mean to write there)\n")  # fmt: skip
    assert bashrc(repo) == PRECIOUS and no_temporary_files(repo.parent / "home")


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_folder_that_leads_to_another_folder_of_the_repository_is_refused(repo, writer):
    """A committed ``gitlink -> .git`` stays inside the checkout, so the check for folders that lead
    out of it let ``--output gitlink/config`` replace ``.git/config`` with a report (attacker trial
    13): any link among the folders of a path inside the repository is refused."""
    args, what = WRITERS[writer]
    (repo / ".git").mkdir(exist_ok=True)
    (repo / ".git" / "config").write_text("[core]\n")
    os.symlink(".git", "gitlink")
    done = runner.invoke(app, [a.format(out="gitlink/config") for a in args])
    assert (done.exit_code, done.stderr) == (2, f"hooklint: error: gitlink/config: {what}: its folder gitlink leads "
                                                "through a symbolic link to .git: hooklint never writes through a link "
                                                "(name the folder it leads to, if you mean to write there)\n")  # fmt: skip
    assert (repo / ".git" / "config").read_text() == "[core]\n" and no_temporary_files(repo / ".git")


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_path_named_outside_the_repository_is_written(repo, writer):
    args, _ = WRITERS[writer]
    for out in ("../home/report.out", str(repo.parent / "home" / "report2.out")):
        done = runner.invoke(app, [a.format(out=out) for a in args])
        assert done.exit_code in (0, 1), done.stderr
        assert Path(out).read_text().strip()


def test_a_hard_link_is_replaced_not_written_through(repo):
    os.link(repo.parent / "home" / ".bashrc", "hooklint.json")
    done = runner.invoke(app, ["lint", "-f", "json", "--output", "hooklint.json", "app"])
    assert done.exit_code == 1
    assert json.loads((repo / "hooklint.json").read_text())["findings"][0]["rule_id"] == "HL102"
    assert bashrc(repo) == PRECIOUS  # the other name keeps what it held
    assert os.stat("hooklint.json").st_nlink == 1


def test_a_report_replaces_a_file_keeping_its_mode(repo):
    (repo / "report.json").write_text("old")
    os.chmod("report.json", 0o640)
    done = runner.invoke(app, ["lint", "-f", "json", "--output", "report.json", "app"])
    assert done.exit_code == 1
    assert stat.S_IMODE(os.stat("report.json").st_mode) == 0o640
    assert json.loads((repo / "report.json").read_text())["summary"]["warning"] == 1
    assert no_temporary_files(repo)


def test_output_to_a_device_is_written_in_place(repo):
    done = runner.invoke(app, ["lint", "--output", "/dev/null", "app"])
    assert done.exit_code == 1 and os.path.exists("/dev/null") and stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_init_never_writes_through_a_folder_that_leads_out(repo):
    os.symlink("../home", "conf")
    done = runner.invoke(app, ["init", "conf/.hooklint.yaml"])
    assert done.exit_code == 2
    assert done.stderr.startswith("hooklint: error: conf/.hooklint.yaml: cannot write configuration: its folder conf "
                                  "leads through a symbolic link to ")  # fmt: skip
    assert not (repo.parent / "home" / ".hooklint.yaml").exists()


def test_init_over_a_dangling_link_is_refused(repo):
    os.symlink("../home/planted.yaml", ".hooklint.yaml")
    done = runner.invoke(app, ["init"])
    assert (done.exit_code, done.stderr) == (1, "hooklint: .hooklint.yaml already exists; not overwriting it\n")
    assert not (repo.parent / "home" / "planted.yaml").exists()


def test_rule_pages_are_never_written_through_a_link(repo):
    (repo / "docs").mkdir()
    os.symlink("../../home/.bashrc", repo / "docs" / "HL001-yaml-syntax-error.md")
    done = runner.invoke(app, ["rules", "--docs", "docs"])
    assert done.exit_code == 2
    assert done.stderr.startswith("hooklint: error: docs: cannot write rule pages: HL001-yaml-syntax-error.md: a symbolic link")
    assert bashrc(repo) == PRECIOUS


# --- fix --------------------------------------------------------------------------------------

HOOK_WITHOUT_POLICY = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: db-migrate
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/sync-wave: -1
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 60
  template:
    spec:
      serviceAccountName: migrate
      automountServiceAccountToken: false
      restartPolicy: Never
      containers:
        - name: migrate
          image: ghcr.io/acme/migrate:1.0
"""


def test_fix_never_writes_through_a_link_swapped_in_after_it_read_the_file(repo, monkeypatch):
    """The file is replaced by a link to a file outside the repository (same bytes) between the
    read and the write: the write replaces nothing outside, and the file is said not written."""
    from hooklint import fix

    (repo / "app" / "job.yaml").write_text(HOOK_WITHOUT_POLICY)
    (repo.parent / "home" / "job.yaml").write_text(HOOK_WITHOUT_POLICY)
    real_fix_text = fix.fix_text

    def swap(path, *rest, **options):
        outcome = real_fix_text(path, *rest, **options)
        if path.endswith("job.yaml"):
            os.unlink(path)
            os.symlink(repo.parent / "home" / "job.yaml", path)
        return outcome

    monkeypatch.setattr(fix, "fix_text", swap)
    done = runner.invoke(app, ["fix", "app"])
    assert (repo.parent / "home" / "job.yaml").read_text() == HOOK_WITHOUT_POLICY
    assert done.stderr.startswith("hooklint: app/job.yaml: changed since hooklint read it: not written (1 fix not "
                                  "applied)\n")  # fmt: skip
    assert done.exit_code == 1


def test_the_shared_writer_refuses_a_link_and_leaves_no_temporary_file(repo):
    os.symlink("../home/.bashrc", "out.txt")
    with pytest.raises(UnsafeWrite):
        write_output("out.txt", b"x")
    with pytest.raises(FileExistsError):
        write_output("out.txt", b"x", exclusive=True)
    write_output("new.txt", iter([b"a", b"b"]))
    assert (repo / "new.txt").read_bytes() == b"ab" and bashrc(repo) == PRECIOUS and no_temporary_files(repo)

    def failing():
        yield b"half"
        raise RuntimeError("reporter failed")

    with pytest.raises(RuntimeError):
        write_output("new.txt", failing())
    assert (repo / "new.txt").read_bytes() == b"ab" and no_temporary_files(repo)


@pytest.fixture
def no_new_files(monkeypatch):
    """A folder this user may not add a file to (simulated: root may add to any folder): making
    hooklint's temporary file there is refused."""
    real_open = os.open

    def refusing(path, flags, *rest, **options):
        if isinstance(path, str) and ".hooklint-" in path:
            raise PermissionError(13, "Permission denied", path)
        return real_open(path, flags, *rest, **options)

    monkeypatch.setattr(os, "open", refusing)


def test_in_a_folder_it_may_not_add_to_an_existing_file_is_written_in_place(repo, no_new_files):
    (repo / "report.txt").write_text("old report, longer than the new one\n")
    write_output("report.txt", b"new\n")
    assert (repo / "report.txt").read_bytes() == b"new\n"
    with pytest.raises(PermissionError):
        write_output("other.txt", b"new\n")  # no file to write in place


def test_in_a_folder_it_may_not_add_to_a_hard_link_is_refused(repo, no_new_files):
    os.link(repo.parent / "home" / ".bashrc", "report.txt")
    with pytest.raises(UnsafeWrite) as refused:
        write_output("report.txt", b"new\n")
    assert str(refused.value).startswith("a file with 2 names (hard links) in a folder hooklint may not add a file to")
    assert bashrc(repo) == PRECIOUS


def test_fix_replaces_a_hard_linked_file_and_its_other_name_keeps_the_old_text(repo):
    (repo.parent / "home" / "job.yaml").write_text(HOOK_WITHOUT_POLICY)
    os.link(repo.parent / "home" / "job.yaml", repo / "app" / "job.yaml")
    done = runner.invoke(app, ["fix", "app"])
    assert "hooklint: fixed 1 finding in 1 file" in done.stderr, done.stderr
    assert 'argocd.argoproj.io/sync-wave: "-1"' in (repo / "app" / "job.yaml").read_text()
    assert (repo.parent / "home" / "job.yaml").read_text() == HOOK_WITHOUT_POLICY


# --- rules --docs: everything checked before anything changes (attacker trial 19, B2) -----------


def _tree(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): ("link" if p.is_symlink() else "dir" if p.is_dir() else p.read_text())
            for p in sorted(folder.rglob("*"))}  # fmt: skip


OUT_REASON = ("its folder docs leads through a symbolic link to {outside}, outside the repository {repo}: not written "
              "(name a path outside the repository if you mean to write there)")  # fmt: skip


def test_rule_pages_into_a_folder_that_is_a_link_out_delete_nothing(repo):
    """``docs -> ../home``: the stale-page sweep removed ``home/HL999-my-notes.md`` before the
    link check of the first page refused the write."""
    (repo.parent / "home" / "HL999-my-notes.md").write_text("mine\n")
    os.symlink("../home", "docs")
    before = _tree(repo.parent / "home")
    done = runner.invoke(app, ["rules", "--docs", "docs"])
    outside = repo.parent / "home"
    assert (done.exit_code, done.stderr) == (2, "hooklint: error: docs: cannot write rule pages: "
                                                + OUT_REASON.format(outside=outside, repo=repo) + "\n")
    assert _tree(repo.parent / "home") == before


def test_rule_pages_under_a_linked_parent_make_no_folder(repo):
    """``docs -> ../home`` and ``--docs docs/d1/d2``: ``os.makedirs`` made ``home/d1/d2`` before the
    check."""
    os.symlink("../home", "docs")
    before = _tree(repo.parent / "home")
    done = runner.invoke(app, ["rules", "--docs", "docs/d1/d2"])
    assert (done.exit_code, done.stderr) == (2, "hooklint: error: docs/d1/d2: cannot write rule pages: "
                                                + OUT_REASON.format(outside=repo.parent / "home", repo=repo) + "\n")
    assert _tree(repo.parent / "home") == before


def test_rule_pages_through_a_link_to_another_folder_of_the_repository_are_refused(repo):
    """``docs -> app``: inside the repository, still a link: the pages would land in ``app``, the
    stale sweep would run there."""
    (repo / "app" / "HL999-kept.md").write_text("kept\n")
    os.symlink("app", "docs")
    before = _tree(repo / "app")
    done = runner.invoke(app, ["rules", "--docs", "docs/rules"])
    assert (done.exit_code, done.stderr) == (2, "hooklint: error: docs/rules: cannot write rule pages: its folder docs "
                                                "leads through a symbolic link to app: hooklint never writes through a "
                                                "link (name the folder it leads to, if you mean to write there)\n")
    assert _tree(repo / "app") == before


def test_a_rule_page_that_is_a_link_stops_the_run_before_any_change(repo):
    """A current page that is a link was refused only when its turn came: the stale page was gone
    and the pages before it rewritten by then."""
    (repo / "docs").mkdir()
    (repo / "docs" / "HL999-stale.md").write_text("stale\n")
    (repo / "docs" / "HL001-yaml-syntax-error.md").write_text("old\n")
    os.symlink("../../home/.bashrc", repo / "docs" / "HL002-duplicate-key.md")
    before = _tree(repo / "docs")
    done = runner.invoke(app, ["rules", "--docs", "docs"])
    assert (done.exit_code, done.stderr) == (2, "hooklint: error: docs: cannot write rule pages: HL002-duplicate-key.md: "
                                                "a symbolic link (to ../../home/.bashrc): hooklint never writes through "
                                                "a link (remove it, or name another folder)\n")  # fmt: skip
    assert _tree(repo / "docs") == before and bashrc(repo) == PRECIOUS


def test_rule_pages_into_a_folder_named_outside_that_is_a_link_are_refused(repo):
    """Named outside the repository, the folder is the user's choice, but the folder itself is
    written in and swept: it is not taken through a link either."""
    (repo.parent / "home" / "HL999-my-notes.md").write_text("mine\n")
    os.symlink("home", repo.parent / "notes")
    done = runner.invoke(app, ["rules", "--docs", "../notes"])
    assert done.exit_code == 2
    assert done.stderr == (f"hooklint: error: ../notes: cannot write rule pages: its folder ../notes leads through a "
                           f"symbolic link to {repo.parent / 'home'}: hooklint never writes through a link (name the "
                           "folder it leads to, if you mean to write there)\n")  # fmt: skip
    assert (repo.parent / "home" / "HL999-my-notes.md").read_text() == "mine\n"


def test_rule_pages_are_written_into_new_folders_and_stale_pages_removed(repo):
    (repo / "docs" / "rules").mkdir(parents=True)
    (repo / "docs" / "rules" / "HL999-gone.md").write_text("old\n")
    os.symlink("../../home/.bashrc", repo / "docs" / "rules" / "HL998-gone-link.md")
    for folder in ("docs/rules", "docs/new/deeper"):
        done = runner.invoke(app, ["rules", "--docs", folder])
        assert done.exit_code == 0, done.stderr
        pages = sorted(os.listdir(folder))
        assert pages[0] == "HL001-yaml-syntax-error.md" and not [p for p in pages if p.startswith("HL99")]
    assert bashrc(repo) == PRECIOUS


def test_a_cache_folder_named_inside_the_repository_is_not_written_through_a_link(repo, monkeypatch):
    """``HOOKLINT_CACHE_DIR=.cache`` (a CI job keeping its cache in the checkout) and a pull request
    committing ``.cache -> ../home``: cache entries were written (and would be pruned) there. A
    cache folder whose path leads through a link is not used; the run is the same. Nor is a real
    folder there: a cache folder inside a Git work tree is never used (attacker trial 41, 2)."""
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", ".cache")
    os.symlink("../home", ".cache")
    before = _tree(repo.parent / "home")
    done = runner.invoke(app, ["lint", "-f", "json", "app"])
    assert done.exit_code == 1 and json.loads(done.stdout)["findings"][0]["rule_id"] == "HL102"
    assert _tree(repo.parent / "home") == before
    os.unlink(".cache")
    os.mkdir(".cache")
    again = runner.invoke(app, ["lint", "-f", "json", "app"])
    assert again.exit_code == 1 and again.stdout == done.stdout and not list(Path(".cache").rglob("*"))


def test_a_recursion_past_the_limit_outside_an_application_is_one_clear_line(repo, monkeypatch, capsys):
    """A run-level step (discovery, the Application map) that recursed past Python's limit on a
    hostile tree ended as "hooklint: internal error: RecursionError: maximum recursion depth
    exceeded" (a run over /tmp): one line that says what happened, exit 2."""
    import sys

    import hooklint.pipeline
    from hooklint.cli import main

    def deep(*args, **kwargs):
        return deep(*args, **kwargs)

    monkeypatch.setattr(hooklint.pipeline, "lint_paths", deep)
    monkeypatch.setattr(sys, "argv", ["hooklint", "lint", "app"])
    with pytest.raises(SystemExit) as ended:
        main()
    assert ended.value.code == 2
    assert capsys.readouterr().err == ("hooklint: error: the repository holds something nested too deeply for hooklint "
                                       "to follow (Python's recursion limit); nothing was checked. Please report it "
                                       "with the files that cause it.\n")  # fmt: skip


def test_a_chart_nested_deeper_than_the_recursion_limit_beside_applications_is_linted(tmp_path, monkeypatch):
    """A chart whose templates sit 1,100 folders deep, in a repository with an Application (a
    ``hooklint lint`` over /tmp, which holds such test folders): the Application map's look for
    Applications a chart may render walked it with Python 3.11's ``os.walk``, which recurses per
    level, and the run ended in "hooklint: internal error: RecursionError". Every walk is
    :func:`hooklint.files.walk_tree` now (no recursion)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git/config").write_text('[remote "origin"]\n\turl = https://github.com/acme/deep\n')
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps/app.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: app, namespace: argocd}\nspec:\n"
        "  project: team\n  destination: {server: https://kubernetes.default.svc, namespace: app}\n  source:\n"
        "    repoURL: https://github.com/acme/deep\n    path: app\n")
    (tmp_path / "app").mkdir()
    (tmp_path / "app/hook.yaml").write_text(LATEST_TAG_HOOK)
    (tmp_path / "deep").mkdir()
    (tmp_path / "deep/Chart.yaml").write_text("apiVersion: v2\nname: deep\nversion: 1.0.0\n")
    os.chdir(tmp_path / "deep")
    os.mkdir("templates")
    os.chdir("templates")
    for _ in range(1100):
        os.mkdir("d")
        os.chdir("d")
    Path("cm.yaml").write_text(CONFIGMAP)
    os.chdir(tmp_path)
    try:
        done = runner.invoke(app, ["lint", "-f", "json", "app"])
    finally:
        remove_tree(str(tmp_path / "deep"))  # pytest's own clean-up of old folders recurses per level
    assert done.exit_code == 1, done.output
    assert ("app/hook.yaml", "HL102") in [(f["path"], f["rule_id"]) for f in json.loads(done.stdout)["findings"]]


def test_no_walk_copy_or_removal_of_a_tree_recurses_per_level():
    """Python 3.11's ``os.walk``, ``shutil.copytree`` and ``shutil.rmtree`` recurse once per folder
    level: on a tree nested deeper than the recursion limit each ends in a RecursionError. hooklint
    walks, copies and removes trees with :func:`hooklint.files.walk_tree`, ``copy_tree`` and
    ``remove_tree`` (the Helm child, which imports nothing of hooklint, with its own ``_walk``)."""
    import re

    top = Path(__file__).resolve().parent.parent / "hooklint"
    found = []
    for path in sorted(top.rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            if re.search(r"\bos\.walk\(|shutil\.(copytree|rmtree)\(", code) and "``" not in code:
                found.append(f"{path.relative_to(top.parent)}:{number}: {line.strip()}")
    assert found == []


def test_copy_tree_copies_a_tree_deeper_than_the_recursion_limit(tmp_path):
    from hooklint.files import copy_tree

    os.mkdir(tmp_path / "src")
    os.chdir(tmp_path / "src")
    for _ in range(1100):
        os.mkdir("d")
        os.chdir("d")
    Path("f.yaml").write_text("x: 1\n")
    os.symlink("f.yaml", "link.yaml")
    os.chdir(tmp_path)
    try:
        copy_tree(str(tmp_path / "src"), str(tmp_path / "dst"))
        deepest = os.path.join(str(tmp_path / "dst"), *["d"] * 1100)
        assert open(os.path.join(deepest, "f.yaml")).read() == "x: 1\n"
        assert os.readlink(os.path.join(deepest, "link.yaml")) == "f.yaml"
    finally:
        remove_tree(str(tmp_path / "src"))
        remove_tree(str(tmp_path / "dst"))


def test_diff_over_a_base_nested_deeper_than_the_recursion_limit(tmp_path, monkeypatch):
    """``hooklint diff`` checks the base out into a temporary folder; ``TemporaryDirectory``
    removed it with ``shutil.rmtree``, which recurses per level: a base with folders 1,100 deep
    ended the run in a RecursionError. The folder is removed with ``remove_tree`` now."""
    import subprocess

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q", "."], check=True)
    os.mkdir("deep")
    os.chdir("deep")
    for _ in range(1100):
        os.mkdir("d")
        os.chdir("d")
    Path("cm.yaml").write_text(CONFIGMAP)
    os.chdir(tmp_path)
    Path("a.yaml").write_text(CONFIGMAP.replace("name: ", "name: a", 1))
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "hook.yaml").write_text(LATEST_TAG_HOOK)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "head"], check=True)
    try:
        done = runner.invoke(app, ["diff", "-f", "json", "HEAD~1"])
    finally:
        remove_tree(str(tmp_path / "deep"))
    assert done.exit_code == 1, done.output
    assert "HL102" in [f["rule_id"] for f in json.loads(done.stdout)["new"]]
