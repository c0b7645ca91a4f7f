"""File-system calls of discovery, counted (issue 24): proportional to folders, not files.

Counts, not timings: a lint run in process with ``os.stat``, ``os.lstat`` (``Path.stat``, the
``os.path`` predicates and ``realpath`` go through them) and ``git_root`` wrapped. The run has no
caches (``--no-cache``): the result cache's own stat signatures (one per input, and hooklint's own
files once per run) are counted in ``tests/test_caches.py``."""

from __future__ import annotations

import os

import pytest

from hooklint.cli import app
from hooklint.sources.repository import git

FOLDERS, PER_FOLDER = 12, 6


def _tree(top, remote: bool) -> int:
    """A git repository of FOLDERS folders (nested two deep) of PER_FOLDER ConfigMaps; returns the files."""
    (top / ".git").mkdir()
    if remote:
        (top / ".git" / "config").write_text('[remote "origin"]\n\turl = https://example.com/acme/deploy.git\n')
    for n in range(FOLDERS):
        folder = top / f"team-{n % 3}" / f"app-{n}"
        folder.mkdir(parents=True)
        for i in range(PER_FOLDER):
            (folder / f"cm-{i}.yaml").write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{n}-{i}\n")
    return FOLDERS * PER_FOLDER


@pytest.mark.parametrize("remote", [False, True], ids=["no-remote", "remote"])
def test_discovery_calls_git_root_once_per_folder_and_stat_at_most_three_times_per_file(tmp_path, monkeypatch, remote):
    files = _tree(tmp_path, remote)
    counts = {"stat": 0, "lstat": 0, "git_root": 0}

    def counted(name, real):
        def wrapper(*args, **kwargs):
            counts[name] += 1
            return real(*args, **kwargs)

        return wrapper

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(git, "git_root", counted("git_root", git.git_root))
    monkeypatch.setattr(os, "stat", counted("stat", os.stat))
    monkeypatch.setattr(os, "lstat", counted("lstat", os.lstat))
    with pytest.raises(SystemExit) as exited:
        app(args=["lint", "-f", "json", "--jobs", "1", "--no-cache", "-o", os.devnull, "."], prog_name="hooklint")
    monkeypatch.undo()
    assert exited.value.code == 0
    folders = FOLDERS + 3 + 1  # the application folders, team-N and the top
    assert counts["git_root"] <= folders, counts
    assert counts["stat"] + counts["lstat"] <= 3 * files, counts


def test_facts_realpath_is_os_path_realpath(tmp_path, monkeypatch):
    """The memoised real path (one lstat per new path) answers what os.path.realpath answers:
    links to folders, links through ``..``, dangling links, loops, missing names, relative paths."""
    from hooklint.sources.repository import facts

    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "l").symlink_to(tmp_path / "a" / "b")
    (tmp_path / "a" / "b" / "up").symlink_to("../../a")
    (tmp_path / "dangling").symlink_to("nowhere")
    (tmp_path / "loop").symlink_to("loop")
    facts.reset()
    for path in ("a/b", "l", "l/up", "l/up/b/up/x", "dangling", "dangling/x", "loop", "loop/x", "l/../a",
                 "a/./b", "a//b", "missing/x", "l/up/..", "/"):  # fmt: skip
        full = path if path.startswith("/") else os.path.join(tmp_path, path)
        assert facts.realpath(full) == os.path.realpath(full), path
        assert facts.realpath(full) == os.path.realpath(full), path  # memoised
    monkeypatch.chdir(tmp_path)
    assert facts.realpath("l/up") == os.path.realpath("l/up") == str(tmp_path / "a")
    facts.reset()


@pytest.mark.skipif(__import__("hooklint.sources.render.kustomize", fromlist=["find_kustomize"]).find_kustomize() is None,
                    reason="neither kustomize nor kubectl is installed")  # fmt: skip
def test_a_kustomize_application_resolves_each_path_once(tmp_path, monkeypatch):
    """An overlay of a base of 40 files of 5 objects, linted with its rendering cached: every real
    path the render checks (each object's origin and the kustomizations that changed it, the
    cache key, the secret values of the inputs) is found with one ``lstat`` per new path
    (:func:`hooklint.sources.repository.facts.realpath`), not one per component per object: 6,177 ``stat``
    and ``lstat`` calls before, 2,730 after (under pytest's
    temporary folder, whose depth each uncached real path pays for)."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "app/base").mkdir(parents=True)
    (tmp_path / "app/kustomization.yaml").write_text("resources:\n- base\ncommonLabels:\n  team: a\n")
    (tmp_path / "app/base/kustomization.yaml").write_text("resources:\n" + "".join(f"- cm-{i}.yaml\n" for i in range(40)))
    for i in range(40):
        (tmp_path / f"app/base/cm-{i}.yaml").write_text("".join(
            f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}-{j}\n" for j in range(5)))  # fmt: skip
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / ".cache"))
    args = ["lint", "-f", "json", "--jobs", "1", "-o", os.devnull, "app"]
    with pytest.raises(SystemExit):  # renders and fills the cache
        app(args=args, prog_name="hooklint")
    counts = {"stat": 0, "lstat": 0}

    def counted(name, real):
        def wrapper(*a, **k):
            counts[name] += 1
            return real(*a, **k)

        return wrapper

    monkeypatch.setattr(os, "stat", counted("stat", os.stat))
    monkeypatch.setattr(os, "lstat", counted("lstat", os.lstat))
    with pytest.raises(SystemExit) as exited:
        app(args=args, prog_name="hooklint")
    monkeypatch.undo()
    assert exited.value.code == 0
    # 42 files: 147 per file before, 65 after; and a run's own calls, the same for any tree (the
    # renderers on PATH and the Helm SDK's files, for the caches' keys: about 60)
    assert counts["stat"] + counts["lstat"] <= 3100, counts


def test_a_tree_of_kustomizations_and_applications_costs_at_most_two_stat_calls_per_file(tmp_path, monkeypatch):
    """Bench case (a') in small: kustomizations that cannot render (no renderer on ``PATH``: each
    says so, naming the programs refused) and Applications among plain folders. The walk's listing
    answers what is a link and which folders hold no ``.git`` (realpath and git_root ask nothing
    more of them), files the walk listed are read without a ``stat`` first (the read's ``fstat``
    refuses what is no regular file), kustomizations are asked once per run and the refused
    programs found once: 463 ``stat`` and ``lstat`` calls for these 88 files before (5.3 per file), 2 per file
    at most after."""
    files = _tree(tmp_path, remote=True)
    for n in range(0, FOLDERS, 3):
        folder = tmp_path / f"team-{n % 3}" / f"app-{n}"
        (folder / "kustomization.yaml").write_text("resources:\n" + "".join(f"- cm-{i}.yaml\n" for i in range(PER_FOLDER)))
        files += 1
    (tmp_path / "apps").mkdir()
    for n in range(FOLDERS):
        (tmp_path / "apps" / f"app-{n}.yaml").write_text(
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: app-%d, namespace: argocd}\n"
            "spec:\n  project: default\n  source: {repoURL: 'https://example.com/acme/deploy.git', path: team-%d/app-%d}\n"
            "  destination: {server: 'https://kubernetes.default.svc', namespace: apps}\n" % (n, n % 3, n))
        files += 1
    counts = {"stat": 0, "lstat": 0}

    def counted(name, real):
        def wrapper(*args, **kwargs):
            counts[name] += 1
            return real(*args, **kwargs)

        return wrapper

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs"))
    monkeypatch.setattr(os, "stat", counted("stat", os.stat))
    monkeypatch.setattr(os, "lstat", counted("lstat", os.lstat))
    with pytest.raises(SystemExit):
        app(args=["lint", "-f", "json", "--jobs", "1", "--no-cache", "-o", os.devnull, "."], prog_name="hooklint")
    monkeypatch.undo()
    assert counts["stat"] + counts["lstat"] <= 2 * files, (counts, files)


def test_each_file_is_parsed_once_per_run(tmp_path, monkeypatch):
    """An Application's file that discovery parses (its repoURL names another repository: the map
    and the foreign-URL note read it) is not parsed again to be linted, and a file both the map and
    the CRD scan read (an Application and a CustomResourceDefinition in one file) is parsed once for
    both; a ConfigMap is parsed once, to be linted."""
    from hooklint import loader

    (tmp_path / ".git").mkdir()
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "app.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: shop\n  namespace: argocd\n"
        "spec:\n  project: default\n  source:\n    repoURL: https://example.com/other/elsewhere.git\n"
        "    path: shop\n    targetRevision: HEAD\n  destination:\n    server: https://kubernetes.default.svc\n"
        "    namespace: shop\n")
    (tmp_path / "apps" / "crd.yaml").write_text(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.acme.io\n"
        "spec:\n  group: acme.io\n  scope: Cluster\n  names:\n    kind: Widget\n    plural: widgets\n"
        "  versions:\n  - name: v1\n    served: true\n    storage: true\n"
        "---\napiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: crds\nspec:\n"
        "  source:\n    repoURL: https://example.com/other/elsewhere.git\n    path: crds\n")
    (tmp_path / "apps" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n")
    parsed: list[str] = []
    real = loader._FileParser.run

    def run(self):
        parsed.append(os.path.basename(self.path))
        return real(self)

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(loader._FileParser, "run", run)
    with pytest.raises(SystemExit):
        app(args=["lint", "-f", "json", "--jobs", "1", "--no-cache", "-o", os.devnull, "."], prog_name="hooklint")
    monkeypatch.undo()
    assert sorted(parsed) == ["app.yaml", "cm.yaml", "crd.yaml"]


def test_facts_absolute_is_os_path_abspath(tmp_path, monkeypatch):
    """The memoised absolute path answers what os.path.abspath answers, and a relative path follows
    the current folder (it is never remembered)."""
    from hooklint.sources.repository import facts

    facts.reset()
    for path in ("/a/b", "/a//b/../c/", "/", "//x", "/a/./b"):
        assert facts.absolute(path) == os.path.abspath(path), path
        assert facts.absolute(path) == os.path.abspath(path), path  # memoised
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    monkeypatch.chdir(tmp_path / "one")
    assert facts.absolute("x/../y") == str(tmp_path / "one" / "y")
    monkeypatch.chdir(tmp_path / "two")
    assert facts.absolute("x/../y") == str(tmp_path / "two" / "y")
    facts.reset()
