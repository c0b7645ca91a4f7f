"""Git pathspecs as ``git ls-files --full-name -z -- PATH`` reads them (attack 20: B5).

The ApplicationSet git files generator lists its files with that command (argo-cd v3.5.1
``util/git/client.go`` ``LsFiles``, the default, ``enableNewGitFileGlobbing`` off):
:mod:`hooklint.sources.repository.pathspec` must match as git's ``wildmatch.c`` / ``dir.c`` do,
pinned here against the real ``git`` on random repositories and patterns."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hooklint.sources.repository.pathspec import PathspecError, compile_pathspec, normalize, wildmatch

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed")

_ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "HOME": os.devnull,
        "LC_ALL": "C"}
for _name in ("GIT_LITERAL_PATHSPECS", "GIT_GLOB_PATHSPECS", "GIT_NOGLOB_PATHSPECS", "GIT_ICASE_PATHSPECS",
              "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
    _ENV.pop(_name, None)


def _git(cwd: str, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([GIT or "git", *args], cwd=cwd, env=_ENV, capture_output=True, timeout=30, check=False)


def _git_ls_files(repo: str, pattern: str) -> set[str] | None:
    """What git lists for ``pattern``, None when git refuses it."""
    done = _git(repo, "ls-files", "--full-name", "-z", "--", pattern)
    if done.returncode:
        return None
    return {p.decode("utf-8", "surrogateescape") for p in done.stdout.split(b"\0") if p}


def _repo(root: str, paths: list[str]) -> None:
    _git(root, "init", "-q")
    for path in paths:
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as handle:
            handle.write("x\n")
    done = _git(root, "add", "-A")
    assert done.returncode == 0, done.stderr


def _hooklint(paths: list[str], pattern: str) -> set[str] | None:
    try:
        matches = compile_pathspec(pattern)
    except PathspecError as exc:
        assert exc.git_refuses, exc  # no attr: or prefix: magic in these patterns
        return None
    return {p for p in paths if matches(p)}


# Path names from a few letters and the characters a pattern treats specially; patterns from the
# same letters and every glob character, classes, escapes and the folder spellings.
_NAME = st.text(alphabet="abAB1.-*?[]\\!^: ", min_size=1, max_size=4).filter(lambda n: n not in (".", ".."))
_PATH = st.lists(_NAME, min_size=1, max_size=3).map("/".join)
_PIECE = st.sampled_from(["a", "b", "A", "1", ".", "-", "/", "*", "**", "?", "\\", "\\*", "\\a", "[", "]", "!",
                          "^", "[ab]", "[!a]", "[^a]", "[a-b]", "[]a]", "[!]]", "[[:alpha:]]", "[[:digit:]]",
                          "[[:upper:]b]", "[[:punct:]]", "[[:space:]]", "[[:alnum:]-]", "[[:nope:]]", "[[:alpha:]",
                          "[a-]", "[\\]]", "[[]", "./", "../", "//", " "])
_MAGIC = st.sampled_from(["", "", "", ":(icase)", ":(glob)", ":(literal)", ":(top)", ":(exclude)", ":!", ":^", ":/",
                          ":(icase,glob)", ":(glob,exclude)", ":(icase,exclude)", ":/!", "::", ":(top,icase)"])
_PATTERN = st.tuples(_MAGIC, st.lists(_PIECE, min_size=1, max_size=6).map("".join)).map("".join)


@needs_git
@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(paths=st.lists(_PATH, min_size=1, max_size=6, unique=True), patterns=st.lists(_PATTERN, min_size=4, max_size=8))
def test_the_pathspec_lists_what_git_ls_files_lists(paths, patterns):
    """Random repositories and patterns: hooklint's list is git's, and a pattern git refuses
    is refused."""
    with tempfile.TemporaryDirectory() as root:
        usable = [p for p in paths if not any(q != p and q.startswith(p + "/") for q in paths)]  # a file, not a folder
        _repo(root, usable)
        tracked = _git_ls_files(root, ".")
        assert tracked is not None
        for pattern in patterns:
            assert _hooklint(sorted(tracked), pattern) == _git_ls_files(root, pattern), pattern


@needs_git
@pytest.mark.parametrize("pattern", [
    "apps/pro\\d/config.yaml", "apps/*/conf\\ig.yaml", "apps/pro[[:alpha:]]/config.yaml", "apps", "apps/",
    "./apps//prod/", "apps/x/../prod", "a*", "*.yaml", "apps/**/config.yaml", "apps/*/config.yaml",
    "apps/pro[!a-c]/config.yaml", "apps/pro[^d]/*", "apps/prod/config.yaml/", "apps/[", "apps\\", "..", "",
    ".", "a[*]/x", "a\\*/x", "apps/p?od", "[[:upper:]]*", "apps/pro[[:alpha:]/config.yaml",
    ":(nope)apps", ":(icase", ":#apps", ":(literal,glob)a*", ":(literal)a*", ":(glob)apps/**/config.yaml",
    ":(glob)apps/*", ":(glob)**/x", ":(icase)APPS", ":(icase)[A-Z]pps/*", ":(icase)[[:upper:]]*", ":(icase)\\Apps",
    ":!apps", ":(exclude)*.yaml", ":/apps", ":apps", ":(top)./apps", ":/", ":!", "::apps", ":(glob,icase)A*/*",
])
def test_chosen_patterns_list_what_git_lists(tmp_path, pattern):
    paths = ["apps/prod/config.yaml", "apps/prod/.hooks/job.yaml", "apps/stage/config.yaml", "a*/x", "a/x",
             "abc", "apps/pro[/config.yaml", "Apps.yaml", "apps\\/x"]
    _repo(str(tmp_path), paths)
    tracked = _git_ls_files(str(tmp_path), ".")
    assert tracked is not None and len(tracked) == len(paths)
    assert _hooklint(sorted(tracked), pattern) == _git_ls_files(str(tmp_path), pattern)


@pytest.mark.parametrize(("pattern", "text", "expected"), [
    (b"pro\\d", b"prod", True), (b"*", b"a/b", True), (b"a*b", b"a/x/b", True), (b"a**/b", b"ab", False),
    (b"[[:alpha:]]", b"d", True), (b"[[:alpha:]]", b"1", False), (b"[!a]", b"/", True), (b"[a-c]", b"b", True),
    (b"[]]", b"]", True), (b"[[:nope:]]", b"n", False), (b"a\\", b"a", False), (b"?", b"/", True),
    (b"[a-b]", b"a", True), (b"[[:space:]]", b"\t", True), (b"[[:space:]]", b"\v", False), (b"*\\a", b"xa", True),
    (b"a\\/b", b"a/b", True), (b"a*", b"a", True), (b"*a*a*a*a*a*b", b"a" * 40, False),
])
def test_wildmatch_without_wm_pathname(pattern, text, expected):
    assert wildmatch(pattern, text) is expected


@pytest.mark.parametrize(("pattern", "expected"), [
    ("./apps//prod/", b"apps/prod/"), ("apps/x/..", b"apps/"), ("apps/.", b"apps/"), (".", b""), ("a/./b", b"a/b"),
])
def test_normalize(pattern, expected):
    assert normalize(pattern) == expected


@pytest.mark.parametrize(("pattern", "message", "git_refuses"), [
    ("", "git refuses the empty pathspec ('empty string is not a valid pathspec')", True),
    ("../x", "git reads the pathspec '../x' as outside the repository ('..' above its top)", True),
    ("/apps", "git reads the absolute pathspec '/apps' as outside the repository", True),
    (":(attr:x)apps", "the pathspec ':(attr:x)apps' has the magic 'attr:x', which hooklint does not expand", False),
    (":(nope)apps", "git refuses the pathspec ':(nope)apps' (Invalid pathspec magic 'nope')", True),
    ("a*" * 201, f"the pathspec {'a*' * 201!r} has more than 200 '*' for hooklint to follow", False),
])
def test_a_pathspec_git_refuses_or_hooklint_does_not_expand_is_refused(pattern, message, git_refuses):
    with pytest.raises(PathspecError) as info:
        compile_pathspec(pattern)
    assert (str(info.value), info.value.git_refuses) == (message, git_refuses)


# --- attack 20 B5: the generated Application's hidden hook folder is linted -----------------------

_APPSET = """apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: set, namespace: argocd}
spec:
  generators:
  - git:
      repoURL: https://github.com/acme/repo.git
      revision: HEAD
      files:
      - path: PATTERN
  template:
    metadata: {name: 'hooks-{{path.basename}}'}
    spec:
      project: p
      source:
        repoURL: https://github.com/acme/repo.git
        targetRevision: HEAD
        path: '{{path}}/.hooks'
      destination: {server: https://kubernetes.default.svc, namespace: x}
"""

_JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 10
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: sa
      automountServiceAccountToken: false
      containers:
      - name: m
        image: busybox:1
        securityContext: {privileged: true}
"""

_PRIVILEGED = "apps/prod/.hooks/job.yaml:19:39: HL105 The container 'm' of Job/migrate is privileged"


def _attack_repo(root, pattern: str) -> None:
    from conftest import git

    files = {"appsets/set.yaml": _APPSET.replace("PATTERN", pattern), "apps/prod/config.yaml": "env: prod\n",
             "apps/prod/.hooks/job.yaml": _JOB, "apps/prod/.hooks/cm.yaml": "apiVersion: v1\nkind: ConfigMap\n"
                                                                             "metadata: {name: c}\n"}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "ci@example.com")
    git(root, "config", "user.name", "ci")
    git(root, "remote", "add", "origin", "https://github.com/acme/repo.git")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")


@needs_git
@pytest.mark.parametrize("pattern", ["apps/pro\\d/config.yaml", "apps/*/conf\\ig.yaml",
                                     "'apps/pro[[:alpha:]]/config.yaml'", "apps/prod/config.yaml"])
def test_b5_the_application_a_pathspec_generates_is_linted(tmp_path, monkeypatch, pattern):
    """B5: ``git ls-files -- 'apps/pro\\d/config.yaml'`` lists apps/prod/config.yaml (``\\``
    escapes ``d``), as ``apps/*/conf\\ig.yaml`` and ``[[:alpha:]]`` do: the Application hooks-prod
    deploys apps/prod/.hooks and its privileged PreSync Job is reported. Was: exit 0, "2 in hidden
    folders no Application reads"."""
    from typer.testing import CliRunner

    from hooklint.cli import app

    _attack_repo(tmp_path, pattern)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["lint", ".", "--format", "concise"])
    assert (result.exit_code, result.stdout.splitlines()[:3]) == (1, [_PRIVILEGED, "", "1 error, 0 warnings, 0 notes in 3 files"])


@needs_git
def test_b5_a_change_that_only_edits_the_pattern_is_reviewed(tmp_path, monkeypatch):
    """B5 (review): the base's pattern matches nothing; the change only writes ``apps/pro\\d/...``,
    which makes Argo CD generate hooks-prod: its PreSync Job is new. Was: "0 new findings", exit 0."""
    from typer.testing import CliRunner

    from hooklint.cli import app

    _attack_repo(tmp_path, "apps/none/config.yaml")
    (tmp_path / "appsets" / "set.yaml").write_text(_APPSET.replace("PATTERN", "apps/pro\\d/config.yaml"))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["diff", "HEAD", "--format", "json"])
    import json

    found = json.loads(result.stdout)
    assert result.exit_code == 1
    assert sorted((f["path"], f["line"], f["rule_id"]) for f in found["new"]) == [
        ("apps/prod/.hooks/job.yaml", 19, "HL105")]


def test_a_files_generator_path_git_refuses_is_hl007(tmp_path):
    """Magic hooklint does not expand is said (HL022); a path git refuses fails the generator as
    it fails Argo CD's (HL007); neither is read as another pattern nor matches nothing silently."""
    from hooklint.sources.appmap.applicationsets import Expansion, Templates, Unexpanded, _Context, _git

    ctx = _Context(str(tmp_path), {"github.com/acme/shop"}, False, Templates(False, [], None), [], Expansion(), None)
    with pytest.raises(Unexpanded) as info:
        _git({"repoURL": "https://github.com/acme/shop.git", "files": [{"path": "../x/config.yaml"}]}, ctx)
    assert (info.value.kind, info.value.key, info.value.message) == ("failed", "git", (
        "the git files generator's path '../x/config.yaml': git reads the pathspec '../x/config.yaml' as outside the "
        "repository ('..' above its top): `git ls-files` fails and Argo CD generates nothing"))
