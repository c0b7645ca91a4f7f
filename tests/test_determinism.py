"""Output is byte-identical across runs, across ``--jobs`` values, and whatever the order (and
spelling) of the paths on the command line."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hooklint.catalog import load_catalog
from hooklint.config import Config
from hooklint.pipeline import PARALLEL_MIN_FILES, lint_paths
from hooklint.reporters.json import render as render_json
from hooklint.reporters.text import render as render_text

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "public"

needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="the public corpus is not here")

BROKEN = {
    "broken/syntax.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata: {a: [1, 2\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n",
    "broken/duplicate.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n",
    "broken/binary.yaml": b"\x00\x01\x02",
    "broken/list.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n---\n- a\n",
    "other/hook.yaml": (
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  annotations:\n    argocd.argoproj.io/hook: PreSync\n"
        "spec:\n  template:\n    spec:\n      containers:\n        - name: c\n          image: busybox\n"
    ),
}




@pytest.fixture(scope="module")
def cache(session_cache) -> Path:
    """The render cache of this module's runs: the session's (the corpus renders once, whichever
    module asks first). A module fixture runs before the per-test cache is set, so it is named."""
    return session_cache


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    """The public corpus plus a few broken files: enough files for the parallel path."""
    if not CORPUS.is_dir():
        pytest.skip("the public corpus is not here")
    root = tmp_path_factory.mktemp("determinism")
    shutil.copytree(CORPUS, root / "corpus")
    for name, content in BROKEN.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return root


def manifests(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())


def run_in(root: Path, paths: list[str], jobs: int, cache: Path) -> dict[str, str]:
    """Every report format of an in-process run from ``root`` (rendered there, as the command line
    renders them), by format name."""
    from hooklint.reporters import github, gitlab, sarif

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOOKLINT_CACHE_DIR", str(cache))
        patch.chdir(root)
        result = lint_paths(paths, Config(), load_catalog(), jobs=jobs)
        catalog = load_catalog()
        return {"json": render_json(result), "text": render_text(result), "sarif": sarif.render(result, catalog),
                "github": github.render(result, catalog), "gitlab": gitlab.render(result, catalog)}  # fmt: skip


def reports(root: Path, paths: list[str], jobs: int, cache: Path) -> tuple[str, str]:
    """(JSON report, text report) of an in-process run from ``root``."""
    out = run_in(root, paths, jobs, cache)
    return out["json"], out["text"]


#: The paths of the reference run, and of most others in another order or spelling.
PATHS = ["corpus", "broken", "other"]


@pytest.fixture(scope="module")
def expected(tree, cache) -> dict[str, str]:
    """Every format of the reference run: ``--jobs 1`` on :data:`PATHS`."""
    return run_in(tree, PATHS, 1, cache)


def test_the_tree_is_large_enough_for_workers(tree):
    assert len(manifests(tree)) >= PARALLEL_MIN_FILES * 4


def test_same_output_across_runs(tree, expected, cache):
    assert reports(tree, PATHS, 1, cache) == (expected["json"], expected["text"])
    assert '"HL001"' in expected["json"] and "binary content" in expected["json"]  # the broken files are in it


def test_jobs_0_is_one_worker_per_usable_cpu():
    from hooklint.pipeline import resolve_jobs

    assert resolve_jobs(0) == len(os.sched_getaffinity(0)) and resolve_jobs(3) == 3


def test_same_output_across_jobs_in_every_format(tree, expected, cache, monkeypatch):
    """Workers (3: more than one whatever the machine, and not its number of CPUs) give the
    reference run's report byte for byte, in every format. (The matrix of every format by every
    ``--jobs`` value was sampled down: a reporter renders the run's result, whatever made it;
    ``--jobs 0`` and 2 run in the command-line and order tests below.)"""
    import hooklint.pipeline as engine

    calls = []
    real = engine._lint_parallel
    monkeypatch.setattr(engine, "_lint_parallel", lambda *a, **k: calls.append(a[2]) or real(*a, **k))
    assert run_in(tree, PATHS, 3, cache) == expected
    assert calls == [3]  # the workers did run
    assert all(expected.values()) and '"ruleId": "HL001"' in expected["sarif"]


def test_same_output_whatever_the_order_of_the_paths(tree, expected, cache):
    files = manifests(tree)
    shuffled = files[:]
    random.Random(7).shuffle(shuffled)
    # every file named, in a shuffled order, with workers; then in reverse order, in one process
    assert reports(tree, shuffled, 2, cache) == reports(tree, list(reversed(files)), 1, cache)
    # missing paths: reported once each, in path order
    missing = reports(tree, ["zz/missing.yaml", "other", "aa/missing.yaml", "zz/missing.yaml"], 1, cache)
    assert missing == reports(tree, ["aa/missing.yaml", "./zz/missing.yaml", "other"], 1, cache)
    assert missing[0].index("aa/missing.yaml") < missing[0].index("zz/missing.yaml")
    # the same files named as folders, in another order, with other spellings and repeats
    folders = ["./other", "broken/", "corpus", "broken", "other/hook.yaml"]
    assert reports(tree, folders, 2, cache) == (expected["json"], expected["text"])


def run_cli(tree: Path, *args: str, cache: "Path | None" = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    if cache is not None:
        env["HOOKLINT_CACHE_DIR"] = str(cache)
    return subprocess.run([sys.executable, "-m", "hooklint", *args], cwd=tree, capture_output=True, env=env, timeout=300)


def test_cli_output_is_byte_identical_across_runs_jobs_and_order(tree, expected, cache):
    files = manifests(tree)
    shuffled = files[:]
    random.Random(11).shuffle(shuffled)
    runs = [
        run_cli(tree, "lint", "-f", "json", "--jobs", "1", *PATHS, cache=cache),
        run_cli(tree, "lint", "-f", "json", "--jobs", "2", "other", "corpus", "broken", cache=cache),
        run_cli(tree, "lint", "-f", "json", "--jobs", "0", *shuffled, cache=cache),
    ]
    assert {r.returncode for r in runs} == {2}  # binary.yaml is an input error
    assert len({r.stdout for r in runs}) == 1
    assert len({r.stderr for r in runs}) == 1
    assert runs[0].stderr.decode().splitlines() == ["hooklint: error: broken/binary.yaml: binary content (NUL byte at offset 0); not a manifest"]
    assert runs[0].stdout.decode() == expected["json"]  # the command line writes what the run rendered


# --- applications that share a key (issue 19, class 10) -----------------------------------------

REPO = "https://git.example.com/team/deploy.git"

#: One Application manifest whose two sources both leave the repository: two applications, both
#: keyed ``argocd/shop.yaml (shop)``, each an HL007 at its own source.
SHARED_KEY_APP = f"""\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: shop
  namespace: argocd
spec:
  project: default
  destination:
    namespace: shop
  sources:
    - repoURL: {REPO}
      path: ../outside-one
    - repoURL: {REPO}
      path: ../outside-two
"""

#: Two Applications of one name rendering one kustomize folder with different options: both keyed
#: ``apps/web (web)``.
TWIN_APPS = "".join(f"""\
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: web
  namespace: argocd
spec:
  project: default
  destination:
    namespace: {namespace}
  source:
    repoURL: {REPO}
    path: apps/web
    kustomize:
      namePrefix: {prefix}
""" for namespace, prefix in (("web-a", "a-"), ("web-b", "b-")))

HOOK = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: c
          image: busybox
"""


def multi_application_tree(root: Path, filler: int = 70) -> Path:
    """A repository of several Argo CD Applications, two pairs of them sharing a key, and enough
    plain files (``filler``) for the parallel path."""
    root.mkdir(parents=True, exist_ok=True)
    (root / ".hooklint.yaml").write_text(f"repo-urls: [{REPO}]\n")
    (root / "argocd").mkdir(parents=True)
    (root / "argocd" / "shop.yaml").write_text(SHARED_KEY_APP)
    (root / "argocd" / "web.yaml").write_text(TWIN_APPS)
    (root / "apps" / "web").mkdir(parents=True)
    (root / "apps" / "web" / "kustomization.yaml").write_text("resources:\n  - job.yaml\n")
    (root / "apps" / "web" / "job.yaml").write_text(HOOK.format(name="migrate"))
    for i in range(filler):
        folder = root / "plain" / f"f{i % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"c{i}.yaml").write_text(HOOK.format(name=f"job-{i}") if i % 10 == 0 else
                                           f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n")  # fmt: skip
    return root


def test_applications_sharing_a_key_each_keep_their_findings_in_parallel(tmp_path, monkeypatch):
    """Before: ``results[app.key]`` kept the last of two applications of one key, merged twice, so
    the workers' run said one HL007 of the two (and one application's findings twice)."""
    root = multi_application_tree(tmp_path)
    monkeypatch.chdir(root)
    from hooklint.config import load_config

    config = load_config(None)
    one = lint_paths(["."], config, load_catalog(), jobs=1)
    four = lint_paths(["."], config, load_catalog(), jobs=4)
    shop = [(f.path, f.span.line, f.message.split("): ", 1)[1]) for f in one.findings if f.rule_id == "HL007"]
    assert shop == [("argocd/shop.yaml", 11, "spec.sources[0].path '../outside-one' leaves the repository (app path outside root). Argo CD's repo server fails the same way, so the application cannot sync; nothing of it is checked until it renders."),
                    ("argocd/shop.yaml", 13, "spec.sources[1].path '../outside-two' leaves the repository (app path outside root). Argo CD's repo server fails the same way, so the application cannot sync; nothing of it is checked until it renders.")]  # fmt: skip
    assert render_json(four) == render_json(one)
    # the twin Applications each render the hook with their own name prefix
    names = sorted({f.obj.name for f in one.findings if f.path == "apps/web/job.yaml" and f.obj is not None})
    assert names == ["a-migrate", "b-migrate"]


def test_multi_application_fixtures_are_byte_identical_with_one_and_four_jobs(tmp_path):
    """SARIF (its run's JSON is compared in process by the test above)."""
    fmt = "sarif"
    root = multi_application_tree(tmp_path)
    one = run_cli(root, "lint", "-f", fmt, "--jobs", "1", ".")
    four = run_cli(root, "lint", "-f", fmt, "--jobs", "4", ".")
    assert one.returncode == 1, one.stderr.decode()[-2000:]
    assert (four.returncode, four.stdout, four.stderr) == (one.returncode, one.stdout, one.stderr)
    assert one.stdout.count(b"HL007") >= 2


@needs_corpus
def test_the_corpus_and_multi_application_fixtures_are_byte_identical_with_one_and_four_jobs(tmp_path, cache):
    """SARIF, the corpus and the applications together (the corpus alone, and JSON, are compared
    across jobs by the tests above)."""
    fmt = "sarif"
    shutil.copytree(CORPUS, tmp_path / "corpus")
    multi_application_tree(tmp_path / "multi", filler=0)
    for paths in (["corpus", "multi"],):
        one = run_cli(tmp_path, "lint", "-c", "multi/.hooklint.yaml", "-f", fmt, "--jobs", "1", *paths, cache=cache)
        four = run_cli(tmp_path, "lint", "-c", "multi/.hooklint.yaml", "-f", fmt, "--jobs", "4", *paths, cache=cache)
        assert one.returncode in (0, 1), one.stderr.decode()[-2000:]
        assert (four.returncode, four.stdout, four.stderr) == (one.returncode, one.stdout, one.stderr)
