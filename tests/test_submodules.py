"""Git submodules that Argo CD checks out and hooklint never fetches (attack 10, item 6).

Argo CD v3.5.1 ``util/git/client.go`` ``Checkout`` runs ``git submodule update --init --recursive``
when the checkout holds ``.gitmodules`` (submodules are on by default:
``cmd/argocd-repo-server/commands/argocd_repo_server.go`` ``ARGOCD_GIT_MODULES_ENABLED``); in a CI
checkout the submodule's folder is empty. Every repository here is built in ``tmp_path``: one real
submodule made by ``git submodule add`` of a local repository, the others written as gitlinks
(``git update-index --cacheinfo 160000,...``).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import git
from hooklint.cli import app

runner = CliRunner()

PRIVILEGED_PRESYNC = """\
apiVersion: v1
kind: Pod
metadata:
  name: own-the-node
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  hostPID: true
  containers:
  - name: x
    image: registry.example.com/x@sha256:0000000000000000000000000000000000000000000000000000000000000000
    securityContext: {privileged: true}
"""

CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: shop}\ndata: {a: b}\n"


def application(name: str, path: str, extra: str = "") -> str:
    """An Application of this repository (``https://github.com/acme/deploy.git``) whose
    ``spec.source`` is written on one line, its ``path:`` key at column 79 for ``path: tools``."""
    return (f"apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {{name: {name}, namespace: argocd}}\n"
            "spec:\n  project: shop\n"
            f"  source: {{repoURL: https://github.com/acme/deploy.git, targetRevision: HEAD, path: {path}{extra}}}\n"
            "  destination: {server: https://kubernetes.default.svc, namespace: shop}\n")  # fmt: skip


def checked_out(detail: str) -> str:
    return (f"{detail}: Argo CD's repo server checks git submodules out (`git submodule update --init --recursive`, "
            "as the repository has .gitmodules) and renders what that commit holds")  # fmt: skip


def whole(subject: str, sub: str, commit: str, same: bool = True) -> str:
    return (checked_out(f"{subject} is {'' if same else 'in '}the git submodule {sub} (commit {commit[:12]})")
            + ". hooklint does not fetch submodules, so none of its objects were checked, hooks included. To check "
            f"it, vendor its files into this repository, or check it out (`git submodule update --init {sub}`) and "
            f"lint it on its own (`hooklint lint {sub}`).")  # fmt: skip


def reads(subject: str, sub: str, commit: str) -> str:
    pinned = f" (commit {commit[:12]})" if commit else ""  # only .gitmodules named it (a fetched tree)
    return (checked_out(f"{subject} reads the git submodule {sub}{pinned}") + " with the rest. hooklint "
            "does not fetch submodules, so the objects it adds, possibly hooks, were not checked. To check it, vendor "
            f"its files into this repository, or check it out (`git submodule update --init {sub}`) and lint what "
            "Argo CD renders with `hooklint lint -`.")  # fmt: skip


@pytest.fixture
def upstream(tmp_path: Path) -> tuple[Path, str]:
    """The submodule's own repository: one commit holding a privileged PreSync Pod."""
    src = tmp_path / "tools-src"
    src.mkdir()
    git(src, "init", "-q", "-b", "main")
    git(src, "config", "user.email", "ci@example.com")
    git(src, "config", "user.name", "ci")
    (src / "pod.yaml").write_text(PRIVILEGED_PRESYNC)
    git(src, "add", "-A")
    git(src, "commit", "-qm", "pod")
    return src, git(src, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A deploy repository at its ``base`` commit (a folder of ConfigMaps), the current folder."""
    repo = tmp_path / "deploy"
    (repo / "apps").mkdir(parents=True)
    monkeypatch.chdir(repo)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "ci@example.com")
    git(repo, "config", "user.name", "ci")
    git(repo, "remote", "add", "origin", "https://github.com/acme/deploy.git")
    (repo / "apps" / "cm.yaml").write_text(CONFIG_MAP)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "tag", "base")
    return repo


def gitlink(repo: Path, path: str, commit: str, gitmodules: bool = True) -> None:
    """Add a gitlink ``path`` pinned to ``commit`` to the index, its folder empty as in a CI
    checkout, and (``gitmodules``) its entry in ``.gitmodules``."""
    if gitmodules:
        with open(repo / ".gitmodules", "a") as handle:
            handle.write(f'[submodule "{path}"]\n\tpath = {path}\n\turl = https://github.com/evil/tools.git\n')
        git(repo, "add", ".gitmodules")
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{commit},{path}")
    (repo / path).mkdir(parents=True, exist_ok=True)


def lint(*args: str) -> tuple[int, dict]:
    result = runner.invoke(app, ["lint", "--format", "json", *args])
    return result.exit_code, json.loads(result.stdout)


def found(doc: dict) -> list[tuple[str, str, int, int, str]]:
    return [(f["rule_id"], f["path"], f["line"], f["column"], f["message"]) for f in doc["findings"]]


def test_an_application_whose_path_is_a_real_submodule_is_hl009_at_its_path(repo, upstream):
    """The attack: ``.gitmodules``, a submodule ``tools`` at a commit with a privileged PreSync Pod,
    an Application with ``path: tools``; the CI checkout's ``tools`` is empty. Before: exit 0,
    nothing said."""
    src, commit = upstream
    subprocess.run(["git", "-c", "protocol.file.allow=always", "submodule", "--quiet", "add", str(src), "tools"],
                   cwd=repo, check=True, capture_output=True)  # fmt: skip
    (repo / "apps" / "tools.yaml").write_text(application("tools", "tools"))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "tools")
    git(repo, "submodule", "--quiet", "deinit", "-f", "tools")  # as actions/checkout leaves it: an empty folder
    assert list((repo / "tools").iterdir()) == []
    code, doc = lint(".")
    assert code == 1
    assert found(doc) == [("HL009", "apps/tools.yaml", 6, 79,
                           whole("Application tools (apps/tools.yaml:6): spec.source.path 'tools'", "tools", commit))]
    plan = json.loads(runner.invoke(app, ["plan", "--format", "json", "."]).stdout)
    tools = [p for p in plan["applications"] if p["application"] == "apps/tools.yaml (tools)"]
    assert [(p["rendered"], p["rendered_reasons"]) for p in tools] == [("none", [
        "apps/tools.yaml:6:79: " + checked_out(f"Application tools (apps/tools.yaml:6): spec.source.path 'tools' is "
                                               f"the git submodule tools (commit {commit[:12]})")])]  # fmt: skip


def test_a_path_inside_a_submodule_with_helm_options_is_hl009_not_hl007(repo, upstream):
    """Before: HL007 "Argo CD's repo server fails the same way" (the folder is missing here)."""
    _, commit = upstream
    gitlink(repo, "tools", commit)
    (repo / "apps" / "tools.yaml").write_text(application("tools", "tools/chart", ", helm: {releaseName: t}"))
    code, doc = lint(".")
    assert code == 1
    assert found(doc) == [("HL009", "apps/tools.yaml", 6, 79, whole(
        "Application tools (apps/tools.yaml:6): spec.source.path 'tools/chart'", "tools", commit, same=False))]


def test_a_submodule_in_a_charts_templates_without_an_application_is_hl009_at_gitmodules(repo, upstream):
    """No Application: Helm renders every file under ``templates/``, the submodule's included.
    Before: exit 0, ``0 new findings`` in a review."""
    _, commit = upstream
    (repo / "chart" / "templates").mkdir(parents=True)
    (repo / "chart" / "Chart.yaml").write_text("apiVersion: v2\nname: chart\nversion: 1.0.0\n")
    (repo / "chart" / "templates" / "cm.yaml").write_text(CONFIG_MAP)
    git(repo, "add", "-A")
    gitlink(repo, "chart/templates/extra", commit)
    code, doc = lint("chart")
    assert code == 1
    assert found(doc) == [("HL009", ".gitmodules", 2, 2,
                           reads("the Helm chart chart", "chart/templates/extra", commit))]  # fmt: skip


def test_a_kustomize_base_in_a_submodule_is_hl009_and_its_failure_is_not_argo_cds(repo, upstream):
    _, commit = upstream
    (repo / "kz").mkdir()
    (repo / "kz" / "kustomization.yaml").write_text("resources:\n- ../kbase\n- cm.yaml\n")
    (repo / "kz" / "cm.yaml").write_text(CONFIG_MAP)
    (repo / "apps" / "kz.yaml").write_text(application("kz", "kz"))
    gitlink(repo, "kbase", commit)
    code, doc = lint(".")
    assert code == 1
    rules = [(rule, path, line, column) for rule, path, line, column, _ in found(doc)]
    assert rules == [("HL009", "apps/kz.yaml", 6, 79), ("HL009", "kz/kustomization.yaml", 1, 1)]
    assert found(doc)[0][4] == reads("Application kz (apps/kz.yaml:6): spec.source.path 'kz'", "kbase", commit)
    assert found(doc)[1][4].startswith("Not rendered without the git submodule it reads (kbase), which Argo CD checks "
                                       "out first: ")  # fmt: skip


def test_a_recursive_directory_source_reads_the_submodules_below_it(repo, upstream):
    _, commit = upstream
    (repo / "apps" / "tools.yaml").write_text(application("all", "apps", ", directory: {recurse: true}"))
    gitlink(repo, "apps/vendored", commit)
    code, doc = lint(".")
    assert code == 1
    assert found(doc) == [("HL009", "apps/tools.yaml", 6, 79, reads(
        "Application all (apps/tools.yaml:6): spec.source.path 'apps'", "apps/vendored", commit))]
    plan = json.loads(runner.invoke(app, ["plan", "--format", "json", "."]).stdout)
    assert [p["rendered"] for p in plan["applications"] if p["application"] == "apps"] == ["partial"]


def test_a_submodule_no_application_reads_is_listed_as_not_linted(repo, upstream):
    _, commit = upstream
    gitlink(repo, "vendor/lib", commit)
    code, doc = lint(".")
    assert (code, doc["findings"]) == (0, [])
    assert doc["skipped"] == [{"path": "vendor/lib", "reason": (
        f"the git submodule vendor/lib (commit {commit[:12]}): Argo CD's repo server checks it out (the repository "
        "has .gitmodules), but no application of this run reads it, and hooklint does not fetch submodules; an "
        "Application whose path is in it would apply what it holds")}]  # fmt: skip


def test_without_gitmodules_argo_cd_checks_no_submodule_out(repo, upstream):
    """``Checkout`` runs ``git submodule update`` only when the checkout has ``.gitmodules``: a bare
    gitlink stays an empty folder for Argo CD too, so nothing is said of it."""
    _, commit = upstream
    gitlink(repo, "tools", commit, gitmodules=False)
    (repo / "apps" / "tools.yaml").write_text(application("tools", "tools"))
    code, doc = lint(".")
    assert (code, found(doc), doc["skipped"]) == (0, [], [])


def test_a_review_of_a_change_adding_a_submodule_has_a_new_finding(repo, upstream):
    """``hooklint diff base`` on the working tree, and between two revisions (the head's tree is
    written without its submodule: the gitlink is registered, no HL007 for the missing folder).
    Before: 0 new findings, exit 0."""
    _, commit = upstream
    gitlink(repo, "tools", commit)
    (repo / "apps" / "tools.yaml").write_text(application("tools", "tools"))
    git(repo, "add", "-A")
    expected = [("apps/tools.yaml", 6, 79,
                 whole("Application tools (apps/tools.yaml:6): spec.source.path 'tools'", "tools", commit))]
    result = runner.invoke(app, ["diff", "--format", "json", "base"])
    assert result.exit_code == 1
    assert [(f["path"], f["line"], f["column"], f["message"]) for f in json.loads(result.stdout)["new"]] == expected
    git(repo, "commit", "-qm", "tools")
    result = runner.invoke(app, ["diff", "--format", "json", "base", "--head", "HEAD"])
    assert result.exit_code == 1
    assert [(f["path"], f["line"], f["column"], f["message"]) for f in json.loads(result.stdout)["new"]] == expected


def test_the_index_is_read_in_versions_2_3_and_4_and_a_split_index_falls_back(repo, upstream):
    from hooklint.sources.repository.submodules import forget, parse_index, submodules_of

    _, commit = upstream
    gitlink(repo, "deep/er/tools", commit)
    (repo / "apps" / "new.yaml").write_text("x: 1\n")
    git(repo, "add", "--intent-to-add", "apps/new.yaml")  # an extended flag: index version 3 at least
    for version in ("2", "3", "4"):
        git(repo, "update-index", "--index-version", version)
        data = (repo / ".git" / "index").read_bytes()
        assert parse_index(data) == (("deep/er/tools", commit),)
    git(repo, "update-index", "--split-index")
    with pytest.raises(ValueError, match="index extension link"):
        parse_index((repo / ".git" / "index").read_bytes())
    forget()
    subs = submodules_of(str(repo))
    assert [(s.path, s.commit, s.line, s.column) for s in subs.found] == [("deep/er/tools", "", 2, 2)]


OID = "4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393"


def lfs_message(path: str, size: int = 312) -> str:
    return (f"{path} is a Git LFS pointer (oid sha256:{OID[:12]}, {size} bytes), not the file it stands for: if Git "
            "LFS is enabled for this repository in Argo CD (the repository's enableLfs), Argo CD's repo server runs "
            "`git lfs checkout` and applies the real file, which hooklint does not see (it never runs Git filters "
            "nor fetches LFS objects); without it, Argo CD passes over the pointer as unrelated YAML. To check it, "
            "fetch the LFS objects before linting (`git lfs pull`; actions/checkout's `lfs: true`), or keep "
            "manifests out of Git LFS.")  # fmt: skip


@pytest.mark.parametrize("pointer", [
    f"version https://git-lfs.github.com/spec/v1\noid sha256:{OID}\nsize 312\n",
    f"version https://hawser.github.com/spec/v1\next-0-foo sha256:{'1' * 64}\noid sha256:{OID}\nsize 312\n",
], ids=["v1", "hawser-with-extension"])  # fmt: skip
def test_a_git_lfs_pointer_in_a_directory_source_is_hl009_not_unrelated_yaml(repo, pointer):
    """Attack 10 item 10: ``hook.yaml`` stored in Git LFS was skipped as "unrelated YAML" (exit 0);
    with ``enableLfs`` on the repository, Argo CD's ``Checkout`` runs ``git lfs checkout`` and
    applies the real file."""
    (repo / ".gitattributes").write_text("apps/hook.yaml filter=lfs diff=lfs merge=lfs -text\n")
    (repo / "apps" / "hook.yaml").write_text(pointer)
    (repo / "apps" / "shop.yaml").write_text(application("shop", "apps"))
    code, doc = lint("--show-skipped", ".")
    assert code == 1
    assert found(doc) == [("HL009", "apps/hook.yaml", 1, 1, lfs_message("apps/hook.yaml"))]
    assert doc["skipped"] == []
    plan = json.loads(runner.invoke(app, ["plan", "--format", "json", "."]).stdout)
    assert [(p["rendered"], p["rendered_reasons"]) for p in plan["applications"] if p["application"] == "apps"] == [
        ("partial", ["apps/hook.yaml:1:1: a Git LFS pointer: with Git LFS enabled, Argo CD applies the file it stands "
                     "for, which hooklint does not see"])]  # fmt: skip


def test_text_that_only_resembles_an_lfs_pointer_stays_unrelated_yaml(repo):
    (repo / "apps" / "notes.yaml").write_text(f"version https://git-lfs.github.com/spec/v1 oid sha256:{OID} size 312 or so\n")
    code, doc = lint(".")
    assert (code, doc["findings"]) == (0, [])
    assert [s["path"] for s in doc["skipped"]] == ["apps/notes.yaml"]


@pytest.mark.parametrize("size", ["1" * 5000, "9223372036854775808"])
def test_a_pointer_whose_size_git_lfs_cannot_parse_stays_unrelated_yaml(repo, size):
    """git-lfs reads the size with ``strconv.ParseInt(value, 10, 64)`` (``lfs/pointer.go``): past
    int64 it is no pointer (attack 27: 5,000 digits were Python's int() error, an internal error)."""
    (repo / "apps" / "hook.yaml").write_text(f"version https://git-lfs.github.com/spec/v1\noid sha256:{OID}\nsize {size}\n")
    code, doc = lint(".")
    assert (code, doc["findings"]) == (0, [])
    assert [s["path"] for s in doc["skipped"]] == ["apps/hook.yaml"]


@pytest.mark.parametrize("path, extra", [("hooks", ""), ("app", "\n    directory: {recurse: true}")])
def test_submodules_of_a_fetched_git_source_are_never_a_silent_pass(repo, upstream, tmp_path, monkeypatch, path, extra):
    """``--fetch`` writes another repository's tree from git's objects, without its submodules;
    Argo CD's ``Checkout`` of that repository checks them out. Its ``.gitmodules`` names them (the
    fetched tree has no index). Before: ``hooks`` was rendered as an empty folder, ``app``'s
    submodule left out, nothing said."""
    _, commit = upstream
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / "cache"))
    other = tmp_path / "other"
    (other / "app").mkdir(parents=True)
    (other / "app" / "cm.yaml").write_text(CONFIG_MAP)
    git(other, "init", "-q", "-b", "main")
    gitlink(other, "hooks", commit)
    gitlink(other, "app/sub", commit)
    git(other, "add", "app/cm.yaml")
    git(other, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "one")
    (repo / "apps" / "other.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: other, namespace: argocd}\nspec:\n"
        f"  project: shop\n  source:\n    repoURL: file://{other}\n    targetRevision: main\n    path: {path}{extra}\n"
        "  destination: {server: https://kubernetes.default.svc, namespace: shop}\n")  # fmt: skip
    code, doc = lint("--fetch", "--fetch-host", f"file://{other}", ".")
    assert code == 1
    label = "Application other (apps/other.yaml:7)"
    if path == "hooks":
        assert [(r, p, line, column) for r, p, line, column, _ in found(doc)] == [("HL009", "apps/other.yaml", 7, 5)]
        assert found(doc)[0][4].startswith(f"{label}: spec.source is file://{other} at main (path hooks)")
        assert (f"--fetch did not fetch it (file://{other}: path 'hooks' is in the git submodule hooks of that "
                "repository, which Argo CD's repo server checks out (`git submodule update --init --recursive`) and "
                "hooklint never fetches). ") in found(doc)[0][4]  # fmt: skip
    else:
        head = git(other, "rev-parse", "HEAD")
        assert found(doc) == [("HL009", "apps/other.yaml", 7, 5, reads(
            f"{label}: spec.source.path 'app' of file://{other}@{head[:12]}", "app/sub", ""))]


def test_pinning_a_submodule_to_another_commit_is_a_new_finding_in_a_review(repo, upstream):
    """A repository that already has the submodule (its HL009 accepted) re-pins it to a commit with a
    privileged hook: the finding's field holds the commit, so the review shows a new finding (and
    the old one fixed) rather than one unchanged finding and exit 0."""
    src, first = upstream
    gitlink(repo, "tools", first)
    (repo / "apps" / "tools.yaml").write_text(application("tools", "tools"))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "tools")
    git(repo, "tag", "pinned")
    (src / "job.yaml").write_text(PRIVILEGED_PRESYNC.replace("own-the-node", "again"))
    git(src, "add", "-A")
    git(src, "commit", "-qm", "more")
    second = git(src, "rev-parse", "HEAD")
    git(repo, "update-index", "--cacheinfo", f"160000,{second},tools")
    result = runner.invoke(app, ["diff", "--format", "json", "pinned"])
    doc = json.loads(result.stdout)
    subject = "Application tools (apps/tools.yaml:6): spec.source.path 'tools'"
    assert result.exit_code == 1
    assert [(f["path"], f["line"], f["column"], f["message"]) for f in doc["new"]] == [
        ("apps/tools.yaml", 6, 79, whole(subject, "tools", second))]
    assert [f["message"] for f in doc["fixed"]] == [whole(subject, "tools", first)]


def test_new_content_behind_an_lfs_pointer_is_a_new_finding_in_a_review(repo):
    (repo / "apps" / "hook.yaml").write_text(f"version https://git-lfs.github.com/spec/v1\noid sha256:{'0' * 64}\nsize 9\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "lfs")
    git(repo, "tag", "lfs")
    (repo / "apps" / "hook.yaml").write_text(f"version https://git-lfs.github.com/spec/v1\noid sha256:{OID}\nsize 312\n")
    result = runner.invoke(app, ["diff", "--format", "json", "lfs"])
    doc = json.loads(result.stdout)
    assert result.exit_code == 1
    assert [(f["path"], f["line"], f["column"], f["message"]) for f in doc["new"]] == [
        ("apps/hook.yaml", 1, 1, lfs_message("apps/hook.yaml"))]
    assert len(doc["fixed"]) == 1
