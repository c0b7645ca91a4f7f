"""The pre-commit hook, for real: the ``.pre-commit-config.yaml`` of docs/ci.md pointing at a copy of
this working tree, in a temporary git repository (``pre-commit run``), and ``pre-commit try-repo``
once.

pre-commit builds the hook's virtualenv with pip (hooklint and its dependencies from the package
index), so the first test takes a while; ``pre-commit run``'s environment is shared by the tests of
this module (``try-repo`` builds its own at every call: it is run once).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hooklint import __version__
from tests.manifests import CLEAN_HOOK_JOB, HL102_BAD, doc_blocks

REPO = Path(__file__).resolve().parents[1]

HL102_LINE = (
    "deploy/bad/bad.yaml:12:18: warning HL102 hook-image-mutable-tag: Image 'ghcr.io/acme/migrate:latest' "
    "of container 'migrate' of Job/db-migrate uses the mutable tag ':latest': each sync may run "
    "different code than was reviewed. Pin a version tag or, better, an @sha256 digest."
)


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=hooklint tests", "-c", "user.email=tests@hooklint.invalid",
         "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args],
        cwd=cwd, env=clean_env(), check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without git's per-repository variables (set when pytest runs inside a git
    hook) and without a user pre-commit config."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") and k != "PRE_COMMIT_HOME"}
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> dict[str, str]:
    """One pre-commit cache for the module, so the hook environment is built once."""
    return clean_env(PRE_COMMIT_HOME=str(tmp_path_factory.mktemp("pre-commit-home")), PRE_COMMIT_COLOR="never")


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> tuple[Path, str]:
    """This checkout's working tree (tracked files and new, not ignored ones, as they are now)
    committed to a fresh git repository, so that uncommitted work is what pre-commit installs.
    Returns the repository and its commit."""
    dest = tmp_path_factory.mktemp("hook-repo")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO, env=clean_env(), check=True, capture_output=True,
    ).stdout.decode().split("\0")  # fmt: skip
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    git("init", "-q", cwd=dest)
    git("add", "-A", cwd=dest)
    git("commit", "-q", "-m", "hooklint working tree", cwd=dest)
    return dest, git("rev-parse", "HEAD", cwd=dest).strip()


@pytest.fixture(scope="module")
def target(tmp_path_factory, hook_repo) -> Path:
    """A user's repository: a clean application in deploy/good, a bad one in deploy/bad, the
    examples' .hooklint.yaml, and the docs' .pre-commit-config.yaml pointing at the hook repo."""
    root = tmp_path_factory.mktemp("target")
    git("init", "-q", cwd=root)
    good = [p.read_text(encoding="utf-8") for p in sorted((REPO / "examples/good").glob("*.yaml"))]
    assert good, "examples/good holds the clean application"
    (root / "deploy/good").mkdir(parents=True)
    (root / "deploy/good/good.yaml").write_text("---\n".join(good), encoding="utf-8")
    (root / "deploy/bad").mkdir(parents=True)
    (root / "deploy/bad/bad.yaml").write_text(HL102_BAD, encoding="utf-8")
    shutil.copy(REPO / "examples/.hooklint.yaml", root / ".hooklint.yaml")
    config = yaml.safe_load(doc_blocks()[".pre-commit-config.yaml"])
    config["repos"][0]["repo"], config["repos"][0]["rev"] = str(hook_repo[0]), hook_repo[1]
    (root / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    (root / "notes.yaml").write_text("title: not a manifest\n", encoding="utf-8")
    git("add", "-A", cwd=root)
    return root


def pre_commit(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=900)  # fmt: skip


def run_hook(*files: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """``pre-commit run hooklint --files FILES`` in ``cwd``, whose configuration names the hook
    repository at its commit: the hook's environment is built once for the module (``env``'s
    pre-commit home), where ``try-repo`` builds it again in a folder of its own at every call."""
    return pre_commit("run", "hooklint", "--files", *files, cwd=cwd, env=env)


def test_manifest_is_valid_and_as_documented(env):
    proc = pre_commit("validate-manifest", str(REPO / ".pre-commit-hooks.yaml"), cwd=REPO, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hooks == [{
        "id": "hooklint",
        "name": "hooklint",
        "description": "Security policy linter for Argo CD resource hooks and sync waves.",
        "entry": "hooklint pre-commit",
        "language": "python",
        "types_or": ["yaml", "json"],
        "require_serial": True,
        "additional_dependencies": ["helm-python-sdk==0.2.2"],  # the Helm renderer (issue 35)
        "minimum_pre_commit_version": "2.9.0",
    }]  # fmt: skip


def test_the_hook_never_receives_a_symbolic_link(tmp_path):
    """pre-commit tags a symbolic link ``symlink`` only (identify's ``tags_from_path``), so
    ``types_or: [yaml, json]`` never names one: a dangling link named on the command line comes from
    a user, who asked for that very file, and is an input error (tests/test_hostile.py)."""
    from identify.identify import tags_from_path

    (tmp_path / "link.yaml").symlink_to("nowhere")
    (tmp_path / "real.yaml").write_text("kind: ConfigMap\n")
    (tmp_path / "good.yaml").symlink_to("real.yaml")
    assert tags_from_path(str(tmp_path / "link.yaml")) == {"symlink"}
    assert tags_from_path(str(tmp_path / "good.yaml")) == {"symlink"}
    assert "yaml" in tags_from_path(str(tmp_path / "real.yaml"))


def test_docs_config_is_valid_and_pins_this_version(env, tmp_path):
    text = doc_blocks()[".pre-commit-config.yaml"]
    config = yaml.safe_load(text)
    assert config == {"repos": [{
        "repo": "https://github.com/hooklint/hooklint",
        "rev": f"v{__version__}",
        "hooks": [{"id": "hooklint", "files": "^deploy/"}],
    }]}  # fmt: skip
    (tmp_path / ".pre-commit-config.yaml").write_text(text, encoding="utf-8")
    proc = pre_commit("validate-config", str(tmp_path / ".pre-commit-config.yaml"), cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_try_repo_passes_a_clean_file(hook_repo, target, env):
    proc = pre_commit("try-repo", str(hook_repo[0]), "hooklint", "--files", "deploy/good/good.yaml", cwd=target, env=env)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert re.search(r"^hooklint\.+Passed$", out, re.MULTILINE), out


def test_the_hook_fails_a_bad_file_with_the_finding(target, env):
    proc = run_hook("deploy/bad/bad.yaml", cwd=target, env=env)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert re.search(r"^hooklint\.+Failed$", out, re.MULTILINE), out
    assert "- hook id: hooklint\n- exit code: 1\n" in out
    assert HL102_LINE + "\n" in out


def test_the_hook_reports_an_input_error_as_exit_2(target, env):
    # A staged file that is not valid UTF-8 cannot be linted: exit 2, not "findings".
    (target / "deploy/bad/latin1.yaml").write_bytes(b"name: caf\xe9\n")
    git("add", "deploy/bad/latin1.yaml", cwd=target)
    try:
        proc = run_hook("deploy/bad/latin1.yaml", cwd=target, env=env)
    finally:
        git("rm", "-q", "-f", "deploy/bad/latin1.yaml", cwd=target)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out  # pre-commit's own code for a failed hook
    assert "- exit code: 2\n" in out
    assert "hooklint: error: deploy/bad/latin1.yaml: not valid UTF-8" in out


def test_docs_config_runs_on_the_manifest_folders_only(target, env):
    proc = pre_commit("run", "--all-files", cwd=target, env=env)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert HL102_LINE + "\n" in out
    assert "deploy/good/" not in out and "notes.yaml" not in out
    proc = pre_commit("run", "--files", "deploy/good/good.yaml", "notes.yaml", cwd=target, env=env)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert re.search(r"^hooklint\.+Passed$", out, re.MULTILINE), out
    proc = pre_commit("run", "--files", "notes.yaml", cwd=target, env=env)
    assert proc.returncode == 0
    assert re.search(r"^hooklint\.+\(no files to check\)Skipped$", proc.stdout, re.MULTILINE), proc.stdout


def test_the_hook_leaves_excluded_files_unreported(target, env):
    """pre-commit names the staged files one by one; a file the configuration's exclude matches is
    still not reported (issue 10)."""
    config = target / ".hooklint.yaml"
    saved = config.read_text(encoding="utf-8")
    config.write_text(saved + "exclude: [deploy/bad/]\n", encoding="utf-8")
    git("add", ".hooklint.yaml", cwd=target)
    try:
        proc = run_hook("deploy/bad/bad.yaml", "deploy/good/good.yaml", cwd=target, env=env)
    finally:
        config.write_text(saved, encoding="utf-8")
        git("add", ".hooklint.yaml", cwd=target)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert re.search(r"^hooklint\.+Passed$", out, re.MULTILINE), out
    assert "HL102" not in out


def test_the_hook_reports_what_a_staged_file_causes_in_an_unchanged_one(target, env):
    """Committing only sa.yaml, which moves a ServiceAccount out of PreSync, passed although the
    unchanged job.yaml then has an HL301 error (issue 35): the finding involves an object of the
    staged file, and is reported where it lands."""
    app = target / "deploy/sa-moved"
    app.mkdir()
    (app / "job.yaml").write_text(MIGRATE_JOB, encoding="utf-8")
    (app / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n", encoding="utf-8")
    (app / "sa.yaml").write_text("apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: migrate\n", encoding="utf-8")
    git("add", "-A", cwd=target)
    try:
        proc = run_hook("deploy/sa-moved/sa.yaml", cwd=target, env=env)
    finally:
        git("rm", "-q", "-r", "-f", "deploy/sa-moved", cwd=target)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "deploy/sa-moved/job.yaml:12:27: error HL301 reference-to-later-step: Job/migrate (PreSync wave 0) uses " \
           "ServiceAccount/migrate (serviceAccountName), which Argo CD applies only in a later step (Sync wave 0)" in out


MIGRATE_JOB = CLEAN_HOOK_JOB.split("---\n")[0]


# --- file names that look like options (trial 4, item 6) -------------------------------------------

EVIL_JOB = HL102_BAD.replace("db-migrate", "evil")


@pytest.fixture
def option_named_files(tmp_path, monkeypatch):
    """A repository whose committed files include ``--exclude=evil*.yaml`` (a ConfigMap) and
    ``--config=c.yaml``, beside evil-job.yaml (HL102) and c.yaml (fail-on never, a day's renders)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    (tmp_path / "evil-job.yaml").write_text(EVIL_JOB, encoding="utf-8")
    (tmp_path / "--exclude=evil*.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    (tmp_path / "--config=c.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n")
    (tmp_path / "c.yaml").write_text("fail-on: never\nrender-timeout: 86400\n")
    return tmp_path


def run_as_pre_commit(*args: str):
    """``hooklint`` run with the argv pre-commit builds: the manifest's entry, then ``args``
    (the hook's args and the staged files, in git's order: ``-`` sorts first)."""
    from typer.testing import CliRunner

    from hooklint.cli import app

    (hook,) = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    entry = hook["entry"].split()
    assert entry[0] == "hooklint"
    return CliRunner().invoke(app, [*entry[1:], *args])


def test_a_file_named_like_an_option_is_a_path_to_the_pre_commit_hook(option_named_files):
    """pre-commit appends file names after the hook's args with no ``--``: with ``entry: hooklint
    lint``, a committed ``--exclude=evil*.yaml`` hid every evil*.yaml (0 files, exit 0), and
    ``--config=c.yaml`` was the trusted configuration (fail-on never, limits raised)."""
    files = ["--config=c.yaml", "--exclude=evil*.yaml", "c.yaml", "evil-job.yaml"]
    hl102 = HL102_LINE.replace("deploy/bad/bad.yaml", "evil-job.yaml").replace("db-migrate", "evil")
    result = run_as_pre_commit(*files)
    assert (result.exit_code, result.stdout.splitlines()[7]) == (1, "1 error, 5 warnings, 0 notes in 3 files")
    result = run_as_pre_commit("--select", "HL102", *files)
    assert (result.exit_code, result.stdout.splitlines()[:3]) == (1, [hl102, "", "0 errors, 1 warning, 0 notes in 3 files"])
    # the hook's own args still work, in every spelling, before the file names
    for args in (["--fail-on", "error"], ["--fail-on=error"], ["-f", "concise", "--fail-on=error"],
                 ["-fconcise", "--fail-on=error"]):  # fmt: skip
        result = run_as_pre_commit("--select=HL102", *args, *files)
        assert (result.exit_code, "0 errors, 1 warning, 0 notes in 3 files" in result.stdout) == (0, True), args
    # an unknown option of the hook's args is still a usage error
    result = run_as_pre_commit("--nope", *files)
    assert result.exit_code == 2


def test_pre_commit_arguments_split_at_the_first_existing_file(tmp_path, monkeypatch):
    from hooklint.cli import split_pre_commit_arguments

    monkeypatch.chdir(tmp_path)
    for name in ("--exclude=x.yaml", "-", "a.yaml"):
        (tmp_path / name).write_text("")
    options = {"--fail-on": True, "-f": True, "--format": True, "--fix": False, "--exclude": True}
    assert split_pre_commit_arguments(["--fix", "--fail-on", "error", "-fjson", "--exclude=x.yaml", "a.yaml"], options) == (
        ["--fix", "--fail-on", "error", "-fjson"], ["--exclude=x.yaml", "a.yaml"])
    assert split_pre_commit_arguments(["--exclude", "--exclude=x.yaml", "-", "--fix"], options) == (
        ["--exclude", "--exclude=x.yaml"], ["./-", "--fix"])  # an option's value is taken as its value
    assert split_pre_commit_arguments(["--", "--fix"], options) == ([], ["--fix"])
    assert split_pre_commit_arguments(["a.yaml", "--fix"], options) == ([], ["a.yaml", "--fix"])
