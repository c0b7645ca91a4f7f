"""The cache folder kept under its cap (:mod:`hooklint.prune`): least recently used entries removed
first, a hit refreshing an entry's time at most once an hour, never through a link, never failing
or changing a run."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import write
from hooklint import files, prune
from hooklint.cli import app

runner = CliRunner()
MiB = 1 << 20

HOOK = """apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: migrate
        image: nginx:1.0
"""


def entry(root: Path, relative: str, size: int, age_s: float) -> Path:
    """A cache entry of ``size`` bytes last used ``age_s`` seconds ago."""
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    then = time.time() - age_s
    os.utime(path, (then, then), follow_symlinks=False)
    return path


def left(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() or p.is_symlink())


@pytest.fixture
def fresh_process(monkeypatch):
    """As a new process: nothing written yet (the flag :func:`hooklint.prune.after_run` reads)."""
    monkeypatch.setattr(files, "_written", False)


def test_the_least_recently_used_entries_go_first_until_80_percent_of_the_cap(isolated_cache):
    root = isolated_cache
    entry(root, "kustomize/aa/oldest.json", 300, 5000)
    entry(root, "results/bb/old.json", 300, 4000)
    entry(root, "runs/cc/middle.json", 300, 3000)
    entry(root, "inputs/dd/recent.json", 300, 2000)
    entry(root, "failed/ee/newest.json", 300, 1000)
    pruned = prune.prune(str(root), 1000)  # 1500 bytes held: down to at most 800
    assert pruned == prune.Pruned(before=1500, after=600, removed=3)
    assert left(root) == ["failed/ee/newest.json", "inputs/dd/recent.json"]


def test_under_the_cap_nothing_is_removed(isolated_cache):
    entry(isolated_cache, "results/aa/a.json", 500, 9000)
    entry(isolated_cache, "runs/bb/b.json", 500, 1)
    assert prune.prune(str(isolated_cache), 1000) == prune.Pruned(before=1000, after=1000, removed=0)
    assert left(isolated_cache) == ["results/aa/a.json", "runs/bb/b.json"]


def test_a_hit_refreshes_an_old_entry_once_and_a_recent_one_not_at_all(isolated_cache):
    old = entry(isolated_cache, "results/aa/old.json", 0, 7200)
    old.write_text('{"a": 1}')
    os.utime(old, (1_000_000, 1_000_000))
    recent = isolated_cache / "results/aa/recent.json"
    recent.write_text('{"b": 2}')
    then = time.time() - 600
    os.utime(recent, (then, then))
    assert files.read_entry(str(old)) == {"a": 1}
    assert old.stat().st_mtime > time.time() - 60  # used now
    assert files.read_entry(str(recent)) == {"b": 2}
    assert recent.stat().st_mtime == pytest.approx(then)  # within the hour: not written (a warm run is a stat pass)


def test_pruning_never_follows_a_link_nor_removes_what_it_leads_to(isolated_cache, tmp_path):
    outside = tmp_path / "outside"
    kept = [entry(outside, "ab/precious.json", 400, 90000), entry(outside, "file.json", 400, 90000)]
    (isolated_cache / "results").mkdir()
    (isolated_cache / "results/ab").symlink_to(outside / "ab", target_is_directory=True)
    (isolated_cache / "runs/cd").mkdir(parents=True)
    (isolated_cache / "runs/cd/linked.json").symlink_to(outside / "file.json")
    (isolated_cache / "inputs").symlink_to(outside, target_is_directory=True)
    entry(isolated_cache, "runs/cd/mine.json", 100, 80000)
    pruned = prune.prune(str(isolated_cache), 1)
    assert pruned == prune.Pruned(before=100, after=0, removed=1)
    assert [p.read_bytes() for p in kept] == [b"x" * 400] * 2
    assert left(isolated_cache) == ["inputs", "results/ab", "runs/cd/linked.json"]  # the links themselves stay


def test_the_fetch_folder_and_fresh_temporary_files_are_left_alone(isolated_cache):
    entry(isolated_cache, "fetch/charts/redis/Chart.yaml", 5000, 90000)
    entry(isolated_cache, "fetch/refs/x.json", 5000, 90000)
    entry(isolated_cache, "results/aa/hooklint-writing.tmp", 5000, 10)  # another run's write, under way
    entry(isolated_cache, "results/aa/hooklint-killed.tmp", 200, 7200)  # a killed run's
    entry(isolated_cache, "results/aa/a.json", 200, 100)
    assert prune.prune(str(isolated_cache), 300) == prune.Pruned(before=400, after=200, removed=1)
    assert left(isolated_cache) == ["fetch/charts/redis/Chart.yaml", "fetch/refs/x.json", "results/aa/a.json",
                                    "results/aa/hooklint-writing.tmp"]  # fmt: skip


def test_an_entry_another_run_rewrote_or_removed_meanwhile(isolated_cache):
    a = entry(isolated_cache, "results/aa/a.json", 100, 300)
    entry(isolated_cache, "results/aa/b.json", 100, 200)
    entry(isolated_cache, "results/aa/c.json", 100, 100)
    seen = prune.entries(str(isolated_cache))
    replacement = isolated_cache / "results/aa/new.tmp"
    replacement.write_bytes(b"y" * 100)
    os.replace(replacement, a)  # rewritten by another run: a new file, kept
    (isolated_cache / "results/aa/b.json").unlink()  # removed by another run: skipped
    assert prune._remove(str(isolated_cache), sorted(seen, key=lambda e: e.name)) == (1, 100)
    assert left(isolated_cache) == ["results/aa/a.json"]
    assert a.read_bytes() == b"y" * 100


@pytest.mark.parametrize("value,cap", [("", 1024 * MiB), ("1", MiB), (" 300 ", 300 * MiB), ("0", None)])
def test_the_cap_in_mib(value, cap):
    assert prune.max_bytes({"HOOKLINT_CACHE_MAX_MB": value}) == cap


@pytest.mark.parametrize("value", ["-1", "1.5", "1G", "１"])
def test_a_cap_that_is_no_whole_number_is_refused_and_the_default_used(value, monkeypatch):
    with pytest.raises(ValueError, match="is not a whole number of MiB"):
        prune.max_bytes({"HOOKLINT_CACHE_MAX_MB": value})
    monkeypatch.setenv("HOOKLINT_CACHE_MAX_MB", value)
    assert prune.cap_of() == 1024 * MiB


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "repo/.git").mkdir(parents=True)
    write(tmp_path / "repo", {"app/job.yaml": HOOK})
    then = time.time() - 60
    for path in [tmp_path, *tmp_path.rglob("*")]:  # not racily new: a warm run is a stat pass
        os.utime(path, (then, then))
    return tmp_path / "repo"


def test_a_run_that_wrote_entries_prunes_past_the_cap_and_its_output_is_unchanged(repo, isolated_cache, tmp_path,
                                                                                  monkeypatch, fresh_process):  # fmt: skip
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / "reference"))
    reference = runner.invoke(app, ["lint", "repo/app"])
    assert reference.exit_code == 1, reference.output
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(isolated_cache))
    monkeypatch.setenv("HOOKLINT_CACHE_MAX_MB", "1")
    monkeypatch.setattr(files, "_written", False)
    entry(isolated_cache, "results/00/stale.json", MiB, 86400 * 30)  # of another version: never read again
    cold = runner.invoke(app, ["lint", "repo/app"])
    assert (cold.exit_code, cold.stdout) == (1, reference.stdout)
    assert "results/00/stale.json" not in left(isolated_cache)
    assert sorted(p.parts[-3] for p in isolated_cache.rglob("*.json")) == ["results", "runs"]
    assert (isolated_cache / prune.STAMP).is_file()
    # within the hour the folder is not sized again, even past the cap
    monkeypatch.setattr(files, "_written", False)
    entry(isolated_cache, "results/00/later.json", 2 * MiB, 86400)
    (repo / "app/cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
    assert runner.invoke(app, ["lint", "repo/app"]).exit_code == 1
    assert files.entries_written()
    assert "results/00/later.json" in left(isolated_cache)


def test_a_warm_run_is_byte_identical_and_does_not_size_the_folder(repo, isolated_cache, monkeypatch, fresh_process):
    monkeypatch.setenv("HOOKLINT_CACHE_MAX_MB", "1")
    cold = runner.invoke(app, ["lint", "-f", "json", "repo/app"])
    (isolated_cache / prune.STAMP).unlink()  # the check is due again
    entry(isolated_cache, "results/00/big.json", 2 * MiB, 86400 * 30)
    sized = []
    monkeypatch.setattr(prune, "entries", lambda folder: sized.append(folder) or [])
    monkeypatch.setattr(files, "_written", False)
    warm = runner.invoke(app, ["lint", "-f", "json", "repo/app"])
    assert (warm.exit_code, warm.stdout) == (cold.exit_code, cold.stdout)
    assert not files.entries_written() and sized == []  # nothing written: no walk
    assert "results/00/big.json" in left(isolated_cache)


def test_the_cap_variable_is_not_in_the_result_cache_key(repo, monkeypatch):
    import hooklint.pipeline as pipeline

    assert runner.invoke(app, ["lint", "repo/app"]).exit_code == 1
    monkeypatch.setenv("HOOKLINT_CACHE_MAX_MB", "4096")
    monkeypatch.setattr(pipeline, "lint_paths", lambda *a, **k: pytest.fail("not answered by the cache"))
    assert runner.invoke(app, ["lint", "repo/app"]).exit_code == 1


def test_an_error_while_pruning_changes_neither_output_nor_exit_code(repo, isolated_cache, monkeypatch, fresh_process):
    reference = runner.invoke(app, ["lint", "--no-cache", "repo/app"])
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(isolated_cache))  # --no-cache set it off

    def broken(folder: str) -> list:
        raise PermissionError(13, "Permission denied", folder)

    monkeypatch.setattr(prune, "entries", broken)
    result = runner.invoke(app, ["lint", "repo/app"])
    assert (result.exit_code, result.output) == (reference.exit_code, reference.output)
    assert files.entries_written() and prune.after_run() is None


def test_no_cap_never_prunes(isolated_cache, monkeypatch):
    monkeypatch.setenv("HOOKLINT_CACHE_MAX_MB", "0")
    monkeypatch.setattr(files, "_written", True)
    entry(isolated_cache, "results/00/big.json", 3 * MiB, 86400 * 30)
    assert prune.after_run() is None
    assert left(isolated_cache) == ["results/00/big.json"]


def test_doctor_says_the_size_and_the_cap(isolated_cache, monkeypatch):
    entry(isolated_cache, "results/00/a.json", 3 * MiB // 2, 10)
    assert prune.describe(str(isolated_cache)) == ("  1.5 MiB of entries, cap 1024 MiB (HOOKLINT_CACHE_MAX_MB): the least "
                                                   "recently used are removed past it")  # fmt: skip
    monkeypatch.setenv("HOOKLINT_CACHE_MAX_MB", "lots")
    assert prune.describe(str(isolated_cache)) == ("  1.5 MiB of entries, cap 1024 MiB (HOOKLINT_CACHE_MAX_MB; "
                                                   "HOOKLINT_CACHE_MAX_MB='lots' is not a whole number of MiB, the "
                                                   "default is used): the least recently used are removed past it")  # fmt: skip


def test_a_run_whose_workers_wrote_the_entries_is_one_that_wrote(repo, isolated_cache, monkeypatch, fresh_process):
    import hooklint.pipeline as pipeline
    import hooklint.results as results
    from hooklint.catalog import load_catalog
    from hooklint.config import Config

    for n in range(3):
        write(repo, {f"more{n}/job.yaml": HOOK})
    monkeypatch.setattr(pipeline, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(results.ResultCache, "store_run", lambda *a, **k: None)  # the parent's own entry
    monkeypatch.setattr(pipeline, "_prepare_renderers", lambda *a, **k: None)
    pipeline.lint_paths(["repo"], Config(), load_catalog(), jobs=2)
    [pack] = list((isolated_cache / "results").rglob("*.json"))
    assert len(json.loads(pack.read_text())["entries"]) == 4  # made by the workers, written by the parent
    assert files.entries_written()


def test_a_stamp_that_is_a_link_is_replaced_never_written_through(isolated_cache, tmp_path, monkeypatch):
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me\n")
    then = time.time() - 86400
    os.utime(target, (then, then))
    (isolated_cache / prune.STAMP).symlink_to(target)
    entry(isolated_cache, "results/00/old.json", 2 * MiB, 86400)
    entry(isolated_cache, "results/00/new.json", MiB // 2, 10)
    monkeypatch.setenv("HOOKLINT_CACHE_MAX_MB", "1")
    monkeypatch.setattr(files, "_written", True)
    assert prune.after_run() == prune.Pruned(before=2 * MiB + MiB // 2, after=MiB // 2, removed=1)
    assert target.read_text() == "keep me\n" and target.stat().st_mtime == pytest.approx(then)
    assert not (isolated_cache / prune.STAMP).is_symlink() and (isolated_cache / prune.STAMP).is_file()
    assert left(isolated_cache) == [prune.STAMP, "results/00/new.json"]
    assert prune.after_run() is None  # checked within the hour
