"""Issue 32, F5: a source of this repository at another ``targetRevision`` is never linted from the working tree.

Argo CD renders a source's ``path`` at its ``targetRevision`` (``util/git/client.go`` ``lsRemote``,
v3.5.1); hooklint holds the working tree. Empty, ``HEAD``, a branch and the checked-out commit are
the working tree; a commit, abbreviated or not, a tag, a pull request's ref, a version or a semver
constraint that is not the checked-out commit is HL009 at the ``targetRevision`` entry (fail closed).
The same for a ``ref`` source's ``$ref`` value files (HL009 at the ``valueFiles`` entry) and an
ApplicationSet git generator's ``revision`` (HL022 at the generator).
"""

from __future__ import annotations

import json
import os
import time
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import git
from hooklint.cli import app
from hooklint.sources.appmap.applications import revision_elsewhere
from hooklint.sources.render.helm import find_helm
from hooklint.sources.repository.git import CheckedOut, checked_out

runner = CliRunner()
needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")

URL = "https://github.com/acme/deploy.git"
ROOT = Path(__file__).resolve().parents[1]

CONFIG_MAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: plain
"""

PRIVILEGED_HOOK = """\
apiVersion: v1
kind: Pod
metadata:
  name: evil
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  hostPID: true
  containers:
    - name: x
      image: busybox@sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
      securityContext:
        privileged: true
"""


def application(revision: str) -> str:
    """An Application of this repository's folder ``app`` at ``revision`` (line 11: targetRevision)."""
    return f"""\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: app
  namespace: argocd
spec:
  project: shop
  source:
    repoURL: {URL}
    path: app
    targetRevision: {revision}
  destination:
    server: https://kubernetes.default.svc
    namespace: app
"""


def commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def attack(tmp_path, monkeypatch):
    """The attacker's three commits: base (a ConfigMap); A adds ``app/pod.yaml``, a privileged
    PreSync Pod; B deletes it and adds ``apps/app.yaml``, an Application of ``app`` at A.
    Returns ``(repo, A, B)``."""
    repo = tmp_path / "repo"
    (repo / "app").mkdir(parents=True)
    (repo / "apps").mkdir()
    monkeypatch.chdir(repo)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "ci@example.com")
    git(repo, "config", "user.name", "ci")
    git(repo, "remote", "add", "origin", URL)
    (repo / "app/settings.yaml").write_text(CONFIG_MAP)
    commit(repo, "base")
    (repo / "app/pod.yaml").write_text(PRIVILEGED_HOOK)
    a = commit(repo, "A")
    (repo / "app/pod.yaml").unlink()
    (repo / "apps/app.yaml").write_text(application(a))
    b = commit(repo, "B")
    return repo, a, b


def lint(*args: str) -> tuple[int, list[tuple[str, str, int, int, str]]]:
    result = runner.invoke(app, ["lint", "--no-cache", "--format", "json", *args])
    doc = json.loads(result.stdout)
    return result.exit_code, [(f["rule_id"], f["path"], f["line"], f["column"], f["message"]) for f in doc["findings"]]


def pinned_message(revision: str, what: str, head: str, path: str = "app") -> str:
    return (f"Application app (apps/app.yaml:9): spec.source.targetRevision {revision!r} is {what}, not the "
            f"checked-out commit ({head[:12]}): Argo CD renders {path} at that revision, and hooklint read {path} "
            "only from the working tree, at the checked-out revision, so none of the objects Argo CD renders there "
            f"were checked, hooks included; lint that revision's checkout (`git worktree add ../at-revision {revision}` "
            f"then `hooklint lint ../at-revision/{path}`), run with `--fetch` and list github.com in `fetch-hosts` (or "
            "give `--fetch-host github.com`) to check it, or set targetRevision to the branch this change merges into.")


def test_the_attack_is_hl009_at_the_target_revision_in_lint(attack):
    repo, a, b = attack
    assert lint(".") == (1, [("HL009", "apps/app.yaml", 11, 5, pinned_message(a, "a commit", b))])


def test_the_attack_is_a_new_hl009_in_diff(attack):
    repo, a, b = attack
    for head in (["--head", "HEAD"], []):  # another revision's copy, and the working tree
        result = runner.invoke(app, ["diff", "--no-cache", "--format", "json", "HEAD~2", *head])
        doc = json.loads(result.stdout)
        assert result.exit_code == 1, head
        assert [(f["rule_id"], f["path"], f["line"], f["column"], f["message"]) for f in doc["new"]] == [
            ("HL009", "apps/app.yaml", 11, 5, pinned_message(a, "a commit", b))], head


def test_a_tag_elsewhere_is_hl009_and_a_tag_of_the_checked_out_commit_is_read(attack):
    repo, a, b = attack
    git(repo, "tag", "-a", "v1.0.0", "-m", "release", a)  # annotated: peeled from its loose object
    git(repo, "tag", "light", a)
    git(repo, "tag", "-a", "here", "-m", "this one", b)
    for tag in ("v1.0.0", "light", "refs/tags/light"):
        (repo / "apps/app.yaml").write_text(application(tag))
        assert lint(".") == (1, [("HL009", "apps/app.yaml", 11, 5, pinned_message(tag, "a tag", b))]), tag
    (repo / "apps/app.yaml").write_text(application("here"))
    assert lint(".") == (0, [])
    git(repo, "pack-refs", "--all")  # packed-refs, with the annotated tags' ^peeled lines
    assert lint(".") == (0, [])
    (repo / "apps/app.yaml").write_text(application("v1.0.0"))
    assert lint(".") == (1, [("HL009", "apps/app.yaml", 11, 5, pinned_message("v1.0.0", "a tag", b))])


def test_an_abbreviated_commit(attack):
    repo, a, b = attack
    # quoted: a few hex digits can read as a YAML number (all digits, or 12e45678)
    (repo / "apps/app.yaml").write_text(application(f"'{a[:9]}'"))
    assert lint(".") == (1, [("HL009", "apps/app.yaml", 11, 5, pinned_message(a[:9], "an abbreviated commit", b))])
    (repo / "apps/app.yaml").write_text(application(f"'{b[:9]}'"))
    assert lint(".") == (0, [])


@pytest.mark.parametrize("revision", ["", "''", "HEAD", "main", "refs/heads/main", "feature/x", "{head}",
                                      "{HEAD}"])  # fmt: skip
def test_the_working_tree_stands_for_the_branch_and_the_checked_out_commit(attack, revision):
    repo, a, b = attack
    (repo / "apps/app.yaml").write_text(application(revision.format(head=b, HEAD=b.upper())))
    assert lint(".") == (0, [])


@pytest.mark.parametrize("revision, what", [
    ("pull/1/head", "a ref that is no branch"),  # GitHub's refs/pull/1/head: a change nobody merged
    ("refs/pull/1/merge", "a ref that is no branch"),
    ("merge-requests/7/head", "a ref that is no branch"),
    ("v2.3.4", "a version (a tag)"),
    ("'>=1.0.0'", "a semver constraint (Argo CD takes the highest tag it admits)"),
])  # fmt: skip
def test_refs_versions_and_constraints_are_hl009(attack, revision, what):
    repo, a, b = attack
    (repo / "apps/app.yaml").write_text(application(revision))
    shown = revision.strip("'")
    assert lint(".") == (1, [("HL009", "apps/app.yaml", 11, 5, pinned_message(shown, what, b))])


def test_without_git_a_commit_is_hl009(tmp_path, monkeypatch):
    """No git repository: no checked-out commit is known, so a commit is never the working tree."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    (tmp_path / "app").mkdir()
    (tmp_path / "apps").mkdir()
    (tmp_path / "app/settings.yaml").write_text(CONFIG_MAP)
    (tmp_path / "apps/app.yaml").write_text(application("ab" * 20))
    (tmp_path / ".hooklint.yaml").write_text(f"repo-urls: [{URL}]\n")
    code, found = lint(".")
    assert code == 1
    assert [f[:4] for f in found] == [("HL009", "apps/app.yaml", 11, 5)]
    assert f"spec.source.targetRevision '{'ab' * 20}' is a commit, and no checked-out commit is known here (not a git " \
           "checkout): Argo CD renders app at that revision" in found[0][4]


@needs_helm
def test_a_ref_source_at_another_revision_leaves_its_value_files_out(attack):
    repo, a, b = attack
    (repo / "chart/templates").mkdir(parents=True)
    (repo / "chart/Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 1.0.0\n")
    (repo / "chart/templates/cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name | default \"none\" }}\n")
    (repo / "envs").mkdir()
    (repo / "envs/prod.yaml").write_text("name: prod\n")
    (repo / "apps/app.yaml").write_text(f"""\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: app
  namespace: argocd
spec:
  project: shop
  sources:
    - repoURL: {URL}
      path: chart
      helm:
        valueFiles:
          - $values/envs/prod.yaml
    - repoURL: {URL}
      targetRevision: {a}
      ref: values
  destination:
    server: https://kubernetes.default.svc
    namespace: app
""")
    assert lint(".") == (1, [("HL009", "apps/app.yaml", 13, 13, (
        f"value file $values/envs/prod.yaml is read from the `ref` source values of this repository at targetRevision "
        f"'{a}' (a commit, not the checked-out commit ({b[:12]})); hooklint reads `$ref` value files only from the "
        "working tree. Argo CD reads it at that revision. hooklint left it out, so the chart was rendered and checked "
        "with its other values: objects and hooks that this file's values would add or change were not checked."))])
    # at the branch, the working tree's file is the one Argo CD reads
    text = (repo / "apps/app.yaml").read_text()
    (repo / "apps/app.yaml").write_text(text.replace(f"targetRevision: {a}", "targetRevision: main"))
    assert lint(".") == (0, [])


def test_a_git_generator_at_another_revision_is_not_expanded(attack):
    repo, a, b = attack
    (repo / "apps/app.yaml").unlink()
    (repo / "sets").mkdir()
    template = f"""\
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: all
  namespace: argocd
spec:
  generators:
    - git:
        repoURL: {URL}
        revision: REVISION
        directories:
          - path: app
  template:
    metadata:
      name: '{{{{path.basename}}}}'
    spec:
      project: shop
      source:
        repoURL: {URL}
        targetRevision: main
        path: '{{{{path}}}}'
      destination:
        server: https://kubernetes.default.svc
        namespace: app
"""
    (repo / "sets/set.yaml").write_text(template.replace("REVISION", a))
    assert lint(".") == (1, [("HL022", "sets/set.yaml", 8, 7, (
        f"ApplicationSet all (sets/set.yaml:1): the git generator reads this repository at revision '{a}' (a commit, "
        f"not the checked-out commit ({b[:12]})); hooklint holds only the working tree, whose folders and files Argo "
        "CD does not read here: the Applications it generates are not linted. Lint that revision's checkout, or set "
        "revision to the branch this change merges into."))])
    (repo / "sets/set.yaml").write_text(template.replace("REVISION", "HEAD"))
    assert lint(".") == (0, [])


def test_checked_out_reads_a_worktree_and_never_runs_git(attack, tmp_path, monkeypatch):
    repo, a, b = attack
    git(repo, "tag", "-a", "v1", "-m", "x", a)
    git(repo, "branch", "side", a)
    worktree = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", "--detach", str(worktree), a)

    def refuse(*args, **kwargs):
        raise AssertionError("git was run")

    monkeypatch.setattr(subprocess, "run", refuse)
    monkeypatch.setattr(subprocess, "Popen", refuse)
    assert checked_out(str(repo)) == CheckedOut(b, {"v1": a}, frozenset({"main", "side"}))
    assert checked_out(str(worktree)) == CheckedOut(a, {"v1": a}, frozenset({"main", "side"}))
    assert checked_out(str(tmp_path)) == CheckedOut()


COMMIT, TAG, ABBREVIATED = "a commit", "a tag", "an abbreviated commit"
REF, VERSION = "a ref that is no branch", "a version (a tag)"
CONSTRAINT = "a semver constraint (Argo CD takes the highest tag it admits)"


@pytest.mark.parametrize("revision, expected, without_git", [
    ("", None, None), ("HEAD", None, None), ("main", None, None), ("release/1.x", None, None), ("side", None, None),
    ("a" * 40, None, COMMIT), ("A" * 40, None, COMMIT), ("aaaaaaa", None, ABBREVIATED), ("b" * 40, COMMIT, COMMIT),
    ("bbbbbbb", ABBREVIATED, ABBREVIATED),
    ("abcdef", None, None),  # six hex digits: a name, not an abbreviated commit (IsTruncatedCommitSHA needs seven)
    ("v1", None, VERSION), ("old", TAG, None), ("refs/tags/old", TAG, REF), ("tags/old", TAG, REF),
    ("refs/heads/x", None, None), ("refs/pull/3/head", REF, REF), ("changes/12/3412/1", REF, REF),
    ("1.2", VERSION, VERSION), ("1.x", CONSTRAINT, CONSTRAINT), ("~1.2", CONSTRAINT, CONSTRAINT),
    ("deadbee", None, ABBREVIATED),  # a branch of that name is looked up before an abbreviated commit
    (1.5, None, None),  # not a string: the API server refuses the Application
])  # fmt: skip
def test_revision_elsewhere(revision, expected, without_git):
    state = CheckedOut("a" * 40, {"v1": "a" * 40, "old": "c" * 40}, frozenset({"main", "side", "deadbee"}))
    assert revision_elsewhere(revision, state) == expected
    assert revision_elsewhere(revision, CheckedOut()) == without_git  # no git repository: nothing is the checked-out commit


def test_fetch_renders_the_pinned_revision(attack, monkeypatch):
    """With ``--fetch`` and this repository's host listed, the folder is fetched at its revision and
    rendered there (as another Git repository's source is): the privileged hook of commit A is
    found, at the Application's targetRevision entry, named by where it is in the fetched tree."""
    repo, a, b = attack
    url = f"file://{repo}"
    git(repo, "remote", "set-url", "origin", url)
    (repo / "apps/app.yaml").write_text(application(a).replace(URL, url))
    code, found = lint("--fetch", "--fetch-host", url, ".")
    assert code == 1
    hl105 = [f for f in found if f[0] == "HL105"]
    assert [(f[1], f[2], f[3], f[4].split(":", 2)[:2]) for f in hl105] == [
        ("apps/app.yaml", 11, 5, ["file", f"//{repo}@{a[:12]} app/pod.yaml"])] * 2
    assert {f[0] for f in found} >= {"HL105", "HL103"} and "HL009" not in {f[0] for f in found}


def test_diff_copies_know_their_commit_and_its_tags(attack):
    """A revision's copy (``--head``) knows its commit and the tags that name it, as the working tree does."""
    repo, a, b = attack

    def diff() -> tuple[int, list]:
        result = runner.invoke(app, ["diff", "--no-cache", "--format", "json", "HEAD~1", "--head", "HEAD"])
        return result.exit_code, [(f["rule_id"], f["path"], f["line"], f["column"]) for f in json.loads(result.stdout)["new"]]

    (repo / "apps/app.yaml").write_text(application("main"))
    commit(repo, "at the branch")
    (repo / "apps/app.yaml").write_text(application("v3.0.0"))  # a version: a tag unless known otherwise
    c = commit(repo, "at a tag of this commit")
    git(repo, "tag", "-a", "v3.0.0", "-m", "this one", c)
    assert diff() == (0, [])
    (repo / "apps/app.yaml").write_text(application(f"'{c[:8]}'"))
    commit(repo, "at the commit before")
    assert diff() == (1, [("HL009", "apps/app.yaml", 11, 5)])


def test_a_hydrated_applications_dry_source_and_a_generated_application(attack):
    """The hydrator renders the dry source at its targetRevision; an ApplicationSet's template
    pinned so is HL009 at the template's repoURL line (column 1), as every generated source is."""
    repo, a, b = attack
    (repo / "apps/app.yaml").write_text(f"""\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: app
  namespace: argocd
spec:
  project: shop
  sourceHydrator:
    drySource:
      repoURL: {URL}
      path: app
      targetRevision: {a}
    syncSource:
      targetBranch: env/prod
      path: prod
  destination:
    server: https://kubernetes.default.svc
    namespace: app
""")
    code, found = lint(".")
    assert (code, [f[:4] for f in found]) == (1, [("HL009", "apps/app.yaml", 12, 7)])
    assert found[0][4].startswith(f"Application app (apps/app.yaml:10): spec.sourceHydrator.drySource.targetRevision "
                                  f"'{a}' is a commit, not the checked-out commit ({b[:12]}): Argo CD renders app at "
                                  "that revision")  # fmt: skip
    (repo / "apps/app.yaml").write_text(f"""\
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: all
  namespace: argocd
spec:
  generators:
    - list:
        elements:
          - name: app
  template:
    metadata:
      name: '{{{{name}}}}'
    spec:
      project: shop
      source:
        repoURL: {URL}
        path: app
        targetRevision: {a}
      destination:
        server: https://kubernetes.default.svc
        namespace: app
""")
    code, found = lint(".")
    assert (code, [f[:4] for f in found]) == (1, [("HL009", "apps/app.yaml", 17, 1)])
    assert f"spec.source.targetRevision '{a}' is a commit, not the checked-out commit ({b[:12]})" in found[0][4]


def test_a_tag_packed_after_a_cached_run_is_hl009_in_the_next(attack, tmp_path, monkeypatch):
    """Attacker trial 39, 1: ``targetRevision: release`` named no ref (a branch, read from the
    working tree) and a cached run kept the clean result; then ``release`` was written into
    ``.git/packed-refs`` (``git fetch --tags``, ``git pack-refs``, a fresh clone), a tag of the
    commit holding the privileged hook. The run without a cache says HL009; the cached run
    answered exit 0: ``packed-refs`` was missing at the first run, and a file hooklint tried to
    read and found missing was no input of the run. Every path read, there or not, is one."""
    repo, a, b = attack
    (repo / "apps/app.yaml").write_text(application("release"))
    b = commit(repo, "C")
    assert not (repo / ".git/packed-refs").exists()

    def aged() -> None:
        then = time.time() - 60
        for folder, dirs, names in os.walk(repo):
            for name in names + dirs:
                os.utime(os.path.join(folder, name), (then, then), follow_symlinks=False)
        os.utime(repo, (then, then))

    def cached() -> tuple[int, list]:  # a process of its own, as CI starts one per run
        done = subprocess.run([sys.executable, "-m", "hooklint", "lint", "--format", "json", "."], capture_output=True,
                              text=True, cwd=repo, env={**os.environ, "PYTHONPATH": str(ROOT),
                                                            "HOOKLINT_CACHE_DIR": str(tmp_path / "cache")})  # fmt: skip
        return done.returncode, [(f["rule_id"], f["path"], f["line"], f["column"], f["message"])
                                 for f in json.loads(done.stdout)["findings"]]  # fmt: skip

    aged()
    assert cached() == (0, [])
    (repo / ".git/packed-refs").write_text(f"# pack-refs with: peeled fully-peeled sorted\n{a} refs/tags/release\n")
    expected = (1, [("HL009", "apps/app.yaml", 11, 5, pinned_message("release", "a tag", b))])
    assert lint(".") == expected
    assert cached() == expected
