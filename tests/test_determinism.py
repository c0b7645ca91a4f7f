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

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="the public corpus is not here")

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
def tree(tmp_path_factory) -> Path:
    """The public corpus plus a few broken files: enough files for the parallel path."""
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


def reports(root: Path, paths: list[str], jobs: int) -> tuple[str, str]:
    """(JSON report, text report) of an in-process run from ``root``."""
    old = os.getcwd()
    os.chdir(root)
    try:
        result = lint_paths(paths, Config(), load_catalog(), jobs=jobs)
    finally:
        os.chdir(old)
    return render_json(result), render_text(result)


def test_the_tree_is_large_enough_for_workers(tree):
    assert len(manifests(tree)) >= PARALLEL_MIN_FILES * 4


def test_same_output_across_runs(tree):
    first = reports(tree, ["corpus", "broken", "other"], jobs=1)
    assert reports(tree, ["corpus", "broken", "other"], jobs=1) == first
    assert '"HL001"' in first[0] and "binary content" in first[0]  # the broken files are in it


@pytest.mark.parametrize("jobs", [2, 3, 0])
def test_same_output_across_jobs(tree, jobs, monkeypatch):
    import hooklint.pipeline as engine

    calls = []
    real = engine._lint_parallel
    monkeypatch.setattr(engine, "_lint_parallel", lambda *a: calls.append(a[2]) or real(*a))
    expected = reports(tree, ["corpus", "broken", "other"], jobs=1)
    assert calls == []
    assert reports(tree, ["corpus", "broken", "other"], jobs=jobs) == expected
    if engine.resolve_jobs(jobs) > 1:
        assert calls == [engine.resolve_jobs(jobs)]  # the workers did run


def test_same_output_whatever_the_order_of_the_paths(tree):
    files = manifests(tree)
    expected = reports(tree, files, jobs=1)
    shuffled = files[:]
    random.Random(7).shuffle(shuffled)
    assert reports(tree, shuffled, jobs=1) == expected
    assert reports(tree, list(reversed(files)), jobs=2) == expected
    # missing paths: reported once each, in path order
    missing = reports(tree, ["zz/missing.yaml", "other", "aa/missing.yaml", "zz/missing.yaml"], jobs=1)
    assert missing == reports(tree, ["aa/missing.yaml", "./zz/missing.yaml", "other"], jobs=1)
    assert missing[0].index("aa/missing.yaml") < missing[0].index("zz/missing.yaml")
    # the same files named as folders, in another order, with other spellings and repeats
    folders = ["./other", "broken/", "corpus", "broken", "other/hook.yaml"]
    assert reports(tree, folders, jobs=2) == reports(tree, sorted(set(["corpus", "broken", "other"])), jobs=1)


def run_cli(tree: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "hooklint", *args], cwd=tree, capture_output=True, env=env, timeout=300)


def test_cli_output_is_byte_identical_across_runs_jobs_and_order(tree):
    files = manifests(tree)
    shuffled = files[:]
    random.Random(11).shuffle(shuffled)
    runs = [
        run_cli(tree, "lint", "-f", "json", "--jobs", "1", "corpus", "broken", "other"),
        run_cli(tree, "lint", "-f", "json", "--jobs", "1", "corpus", "broken", "other"),
        run_cli(tree, "lint", "-f", "json", "--jobs", "2", "other", "corpus", "broken"),
        run_cli(tree, "lint", "-f", "json", "--jobs", "0", *shuffled),
    ]
    assert {r.returncode for r in runs} == {2}  # binary.yaml is an input error
    assert len({r.stdout for r in runs}) == 1
    assert len({r.stderr for r in runs}) == 1
    assert runs[0].stderr.decode().splitlines() == ["hooklint: error: broken/binary.yaml: binary content (NUL byte at offset 0); not a manifest"]


@pytest.mark.parametrize("fmt", ["text", "sarif", "github", "gitlab"])
def test_cli_other_formats_are_byte_identical_across_jobs(tree, fmt):
    one = run_cli(tree, "lint", "-f", fmt, "--jobs", "1", "corpus", "other")
    two = run_cli(tree, "lint", "-f", fmt, "--jobs", "2", "other", "corpus")
    assert one.returncode in (0, 1), one.stderr.decode()[-2000:]
    assert one.stdout == two.stdout and one.stdout
