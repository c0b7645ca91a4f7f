"""The caches of issue 34: the result cache per application (:mod:`hooklint.results`), failed
renders kept by the render cache, ``kubectl version`` asked once per run, and ``--no-cache``."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import CORPUS, write
from hooklint.catalog import load_catalog
from hooklint.cli import app
from hooklint.config import Config
from hooklint.pipeline import lint_paths
from hooklint.reporters.json import render as render_json
from hooklint.sources import bounded

REPO = Path(__file__).resolve().parents[1]
runner = CliRunner()

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

needs_kubectl = pytest.mark.skipif(shutil.which("kubectl") is None and shutil.which("kustomize") is None,
                                   reason="kustomize or kubectl is needed")  # fmt: skip


def aged(root: Path, seconds: float = 60) -> None:
    """Every file and folder under ``root`` made ``seconds`` old: their stat signatures can stand
    for their bytes (not racily new: :data:`hooklint.files.RACY_NS`)."""
    then = time.time() - seconds
    for folder, dirs, names in os.walk(root):
        for name in names + dirs:
            os.utime(os.path.join(folder, name), (then, then), follow_symlinks=False)
    os.utime(root, (then, then))


def lint(paths: list[str], config: Config | None = None, **options) -> tuple[str, list[str]]:
    """The JSON report of a run, and each finding as ``path:line:col rule``."""
    result = lint_paths(paths, config or Config(), load_catalog(), **options)
    return render_json(result), [f"{f.path}:{f.span.line}:{f.span.column} {f.rule_id}" for f in result.findings]


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """``repo/app`` (a hook Job and a ConfigMap), made a minute old, as the current folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "repo/.git").mkdir(parents=True)
    write(tmp_path / "repo", {"app/job.yaml": HOOK, "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"})
    aged(tmp_path / "repo")
    return tmp_path / "repo"


@pytest.fixture
def work(monkeypatch):
    """What a run does per application: ``loaded`` (the applications loaded, by key) and ``hashed``
    (the inputs the result cache hashed, rather than trusting their stat signatures)."""
    import hooklint.pipeline as pipeline
    import hooklint.results as results

    done: dict[str, list[str]] = {"loaded": [], "hashed": []}
    load, digest = pipeline.load_application, results.content_digest
    monkeypatch.setattr(pipeline, "load_application", lambda app, config: done["loaded"].append(app.key) or load(app, config))
    monkeypatch.setattr(results, "content_digest", lambda path, kind: done["hashed"].append(path) or digest(path, kind))
    return done


# --- the result cache -----------------------------------------------------------------------------


def test_an_unchanged_application_is_a_stat_pass(tree, work):
    first, found = lint(["repo/app"])
    assert found == ["repo/app/job.yaml:7:1 HL201", "repo/app/job.yaml:7:1 HL202", "repo/app/job.yaml:9:5 HL103",
                     "repo/app/job.yaml:9:5 HL104"]  # fmt: skip
    # each file hashed for the application's entry, then for the run's: both changed within 2 s
    # of the run's start (the fixture set their modification times back just now, which moved
    # their change times), and such a signature does not stand for the bytes the run read
    assert work == {"loaded": ["repo/app"], "hashed": ["repo/app/cm.yaml", "repo/app/job.yaml"] * 2}
    work["loaded"].clear(), work["hashed"].clear()
    again, found_again = lint(["repo/app"])
    assert work == {"loaded": [], "hashed": []}  # neither loaded nor hashed: a stat of each input
    assert again == first and found_again == found


def test_the_same_bytes_with_a_new_time_are_hashed_once_then_a_stat_pass(tree, work):
    first, _ = lint(["repo/app"])
    then = time.time() - 30
    os.utime(tree / "app/job.yaml", (then, then))
    work["loaded"].clear(), work["hashed"].clear()
    assert lint(["repo/app"])[0] == first
    assert work == {"loaded": [], "hashed": ["repo/app/job.yaml"]}  # hashed, not loaded: the entry is renewed
    work["hashed"].clear()
    assert lint(["repo/app"])[0] == first
    assert work == {"loaded": [], "hashed": []}


def test_inputs_last_changed_before_the_loading_are_kept_with_the_hashes_it_read(tree, work, monkeypatch):
    """Storing an application hashes none of the files its loading read when neither of a file's
    times is within :data:`~hooklint.files.RACY_NS` of the loading's start or after it (the margin
    is 0 here: ``aged`` moved every change time just before the run): the bytes read are the bytes
    there."""
    from hooklint import results

    monkeypatch.setattr(results, "RACY_NS", 0)
    first, _ = lint(["repo/app"])
    assert work == {"loaded": ["repo/app"], "hashed": []}
    assert lint(["repo/app"])[0] == first and work == {"loaded": ["repo/app"], "hashed": []}  # a hit


def test_a_file_edited_after_it_was_read_and_before_its_entry_is_written_is_not_kept(tree, work, monkeypatch):
    """A file edited after its application's loading read it and before the entry is written, its
    modification time set back, has its change time within the margin of the loading's start (a
    clock tick may stamp it a little before that start: the margin is 2 s): it is hashed again,
    and the entry is not kept."""
    from hooklint import results

    store = results.ResultCache.store
    job = tree / "app/job.yaml"

    def edited_then_stored(self, *args, **kwargs):
        _edited_keeping_times(job, "name: migrate", "name: migrat2")
        store(self, *args, **kwargs)

    monkeypatch.setattr(results.ResultCache, "store", edited_then_stored)
    assert '"name": "migrate"' in lint(["repo/app"])[0]
    assert "repo/app/job.yaml" in work["hashed"]
    monkeypatch.setattr(results.ResultCache, "store", store)
    again, _ = lint(["repo/app"])
    assert work["loaded"] == ["repo/app", "repo/app"]  # not kept: loaded again
    assert again == no_cache_lint(["repo/app"]) and '"name": "migrat2"' in again


@pytest.mark.parametrize("named", [["."], []], ids=["dot", "none"])
def test_a_file_added_to_a_top_folder_of_files_only_is_linted(named, tmp_path, monkeypatch):
    """Attacker trial 41, 1: a run from the top of a repository whose top folder holds files only
    (``.git`` aside) was kept with the current folder spelled ``""`` (as ``os.path.dirname`` gives
    it: missing for ``os.stat``) and its listing left out, so a hook file added there (``git
    checkout`` of a pull request) was never linted: the run was answered from its entry, exit 0.
    Each spelling of a place that answers otherwise is an input of its own."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    write(tmp_path, {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"})
    aged(tmp_path)

    def run() -> tuple[int, list[str]]:
        done = runner.invoke(app, ["lint", "-f", "json", *named])
        return done.exit_code, [f"{f['path']}:{f['line']} {f['rule_id']}" for f in json.loads(done.stdout)["findings"]]

    assert run() == (0, [])
    assert run() == (0, [])  # answered by the run's entry
    write(tmp_path, {"job.yaml": HOOK})
    assert run() == (1, ["job.yaml:7 HL201", "job.yaml:7 HL202", "job.yaml:9 HL103", "job.yaml:9 HL104"])


def test_an_applications_entry_renewed_with_the_same_bytes_is_then_a_stat_pass(tree, isolated_cache, work, monkeypatch):
    """Answered from the applications' pack (the run's own entry removed each time): the same
    bytes under a new modification time are hashed once, and the entry renewed with the new
    signature, so the next run hashes nothing and loads nothing. The runs are 3 s after the files
    were last changed (the clock moved on): a change time within 2 s of a run's start is hashed
    again by the run's entry (:func:`test_a_file_changed_within_a_clock_tick_of_the_start_is_not_kept`)."""
    real = time.time_ns
    monkeypatch.setattr(time, "time_ns", lambda: real() + 3_000_000_000)
    first = per_application(["repo/app"], isolated_cache)
    then = time.time() - 30
    os.utime(tree / "app/job.yaml", (then, then))
    work["loaded"].clear(), work["hashed"].clear()
    assert per_application(["repo/app"], isolated_cache) == first
    assert work == {"loaded": [], "hashed": ["repo/app/job.yaml"]}
    work["hashed"].clear()
    assert per_application(["repo/app"], isolated_cache) == first
    assert work == {"loaded": [], "hashed": []}


def test_a_changed_file_is_a_miss(tree):
    _, found = lint(["repo/app"])
    (tree / "app/job.yaml").write_text(HOOK.replace("image: nginx:1.0", "image: nginx:latest"))
    _, changed = lint(["repo/app"])
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOOKLINT_CACHE_DIR", "off")
        assert lint(["repo/app"])[1] == changed
    assert changed != found
    assert "repo/app/job.yaml:13:16 HL102" not in found and "repo/app/job.yaml:13:16 HL102" in changed


def _edited_keeping_times(path: Path, old: str, new: str) -> None:
    """``old`` replaced by ``new`` (as long) in ``path``, in place, its modification time then set
    back (``touch -r``): size, inode and modification time as before, only its change time moved."""
    info = path.stat()
    text = path.read_text()
    assert len(old) == len(new) and old in text
    with open(path, "r+", encoding="utf-8") as handle:
        handle.write(text.replace(old, new))
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_ino, after.st_mtime_ns) == (info.st_size, info.st_ino, info.st_mtime_ns)


def no_cache_lint(paths: list[str]) -> str:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOOKLINT_CACHE_DIR", "off")
        return lint(paths)[0]


def test_a_file_edited_with_its_modification_time_set_back_is_a_miss(tree):
    """Attacker trial 34, 1: an edit of the same size whose modification time ``touch -r`` puts back
    (long past the racy window) was answered from the cache, as the file was before. The change
    time is in the stat signature: the cached run is the run without a cache."""
    first, _ = lint(["repo/app"])
    _edited_keeping_times(tree / "app/job.yaml", "name: migrate", "name: migrat2")
    again, _ = lint(["repo/app"])
    assert again == no_cache_lint(["repo/app"]) != first
    assert '"name": "migrat2"' in again and '"name": "migrate"' not in again


def test_a_file_added_to_a_folder_whose_modification_time_is_set_back_is_linted(tree):
    """Attacker trial 34, 2: a manifest added to a folder, the folder's modification time and its
    own then set back to long ago, was never linted by a run the cache answered (a folder's
    listing is looked at again only when its signature changes)."""
    first, found = lint(["repo"])
    folder = tree / "app"
    info = folder.stat()
    write(tree, {"app/late.yaml": HOOK.replace("name: migrate", "name: late")})
    then = time.time() - 60
    os.utime(folder / "late.yaml", (then, then))
    os.utime(folder, ns=(info.st_atime_ns, info.st_mtime_ns))
    again, found_again = lint(["repo"])
    assert again == no_cache_lint(["repo"]) != first
    assert [f for f in found_again if f.startswith("repo/app/late.yaml")] == [
        "repo/app/late.yaml:7:1 HL201", "repo/app/late.yaml:7:1 HL202", "repo/app/late.yaml:9:5 HL103",
        "repo/app/late.yaml:9:5 HL104"]  # fmt: skip
    assert not any(f.startswith("repo/app/late.yaml") for f in found)


@needs_kubectl
def test_a_kustomize_base_edited_with_its_modification_time_set_back_is_rendered_again(tmp_path, monkeypatch):
    """Attacker trial 34, 3: the render cache's direct mode hashes an input again only when its stat
    signature changed: a base edited in place, its modification time set back, kept the rendering
    of the base as it was (an error finding missing)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "repo/.git").mkdir(parents=True)
    write(tmp_path / "repo", {
        "base/job.yaml": HOOK, "base/kustomization.yaml": "resources:\n- job.yaml\n",
        "overlays/prod/kustomization.yaml": "resources:\n- ../../base\n"})  # fmt: skip
    aged(tmp_path / "repo")
    first, _ = lint(["repo/overlays/prod"])
    _edited_keeping_times(tmp_path / "repo/base/job.yaml", "name: migrate", "name: migrat2")
    again, _ = lint(["repo/overlays/prod"])
    assert again == no_cache_lint(["repo/overlays/prod"]) != first
    assert '"name": "migrat2"' in again and '"name": "migrate"' not in again
    shutil.rmtree(tmp_path / os.environ["HOOKLINT_CACHE_DIR"] / "runs")  # each application's entry, then the render cache
    shutil.rmtree(tmp_path / os.environ["HOOKLINT_CACHE_DIR"] / "results")
    _edited_keeping_times(tmp_path / "repo/base/job.yaml", "name: migrat2", "name: migrat3")
    assert '"name": "migrat3"' in lint(["repo/overlays/prod"])[0]


def test_a_file_changed_after_its_application_was_linted_is_not_kept_in_the_run_entry(tree, monkeypatch):
    """Attacker trial 35, 3: a file edited while the run went on, after its application was linted,
    its modification time set back, was kept in the run's entry with its new signature and the
    result of its old bytes; every later run was answered by it. A file whose change time is past
    the run's start is hashed again before the run is kept."""
    from hooklint import results

    store = results.ResultCache.store
    job = tree / "app/job.yaml"

    def edit_after(self, *args, **kwargs):
        store(self, *args, **kwargs)
        _edited_keeping_times(job, "name: migrate", "name: migrat2")

    monkeypatch.setattr(results.ResultCache, "store", edit_after)
    first, _ = lint(["repo/app"])
    assert '"name": "migrate"' in first
    monkeypatch.setattr(results.ResultCache, "store", store)
    again, _ = lint(["repo/app"])
    assert again == no_cache_lint(["repo/app"]) and '"name": "migrat2"' in again


#: A clock tick: the kernel stamps a file's change time with a coarse clock, which lags the one
#: ``time.time_ns()`` reads by up to a tick (4 ms at ``CONFIG_HZ=250``): a change made just after
#: the run began may be stamped just before it (1.8 ms before, in a test that failed one run in
#: three under load).
TICK_NS = 4_000_000


@pytest.mark.parametrize("change", ["edited", "removed"])
@pytest.mark.parametrize("kept", ["store", "store_run"])
def test_a_file_changed_within_a_clock_tick_of_the_start_is_not_kept(kept, change, tree, monkeypatch):
    """A file read by the run and then changed (edited, its modification time set back; or
    removed) before the application's entry (``store``) or the run's (``store_run``) is written,
    its change stamped within a clock tick before the start the entry is written with (here: that
    start a tick later, the same thing): the entry is not kept. Before, ``store_run`` trusted a
    change time less than the start: the edit was kept with the old result (a removed file changes
    its folder, an input too)."""
    from hooklint import results

    real = getattr(results.ResultCache, kept)
    job = tree / "app/job.yaml"

    def changed_then_kept(self, *args, **kwargs):
        if change == "edited":
            _edited_keeping_times(job, "name: migrate", "name: migrat2")
        elif job.exists():
            job.unlink()
        *others, taken = args[:5] if kept == "store" else args
        return real(self, *others, taken + TICK_NS, *args[5:] if kept == "store" else (), **kwargs)

    monkeypatch.setattr(results.ResultCache, kept, changed_then_kept)
    assert '"name": "migrate"' in lint(["repo/app"])[0]
    monkeypatch.setattr(results.ResultCache, kept, real)
    again, found = lint(["repo/app"])
    assert again == no_cache_lint(["repo/app"])
    if change == "edited":
        assert '"name": "migrat2"' in again and '"name": "migrate"' not in again
    else:
        assert found == [] and "job.yaml" not in again


@needs_kubectl
def test_a_file_changed_while_it_is_rendered_is_kept_by_neither_cache(tmp_path, monkeypatch):
    """Attacker trial 35, 2 and 4: the render key hashes the inputs, the renderer reads its own copy
    made after: a file changed in between was rendered as the new bytes and kept under the key of
    the old, and a later run over the old bytes was answered with the new bytes' rendering (a
    privileged hook passed). Such a rendering is kept by neither cache."""
    from hooklint.sources.render import kustomize

    monkeypatch.chdir(tmp_path)
    (tmp_path / "repo/.git").mkdir(parents=True)
    write(tmp_path / "repo", {"app/job.yaml": HOOK.replace("name: migrate", "name: hashed"),
                              "app/kustomization.yaml": "resources:\n- job.yaml\n"})  # fmt: skip
    aged(tmp_path / "repo")
    job = tmp_path / "repo/app/job.yaml"
    real_cached = kustomize.cached

    def changed_before_the_copy(kind, key, render, volatile=None):
        def render_other_bytes():
            _edited_keeping_times(job, "name: hashed", "name: copied")
            return render()

        return real_cached(kind, key, render_other_bytes, volatile)

    monkeypatch.setattr(kustomize, "cached", changed_before_the_copy)
    first, _ = lint(["repo/app"])
    assert '"name": "copied"' in first  # what the renderer read
    monkeypatch.setattr(kustomize, "cached", real_cached)
    _edited_keeping_times(job, "name: copied", "name: hashed")  # the key's bytes again
    again, _ = lint(["repo/app"])
    assert again == no_cache_lint(["repo/app"]) and '"name": "hashed"' in again


def test_a_file_racily_rewritten_with_the_same_size_and_time_is_a_miss(tmp_path, monkeypatch):
    """A file changed within the file system's timestamp granularity keeps its size and time:
    racily new signatures are never trusted (git's racily clean entries)."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"app/job.yaml": HOOK})
    first, _ = lint(["app"])
    info = os.stat("app/job.yaml")
    (tmp_path / "app/job.yaml").write_text(HOOK.replace("name: migrate", "name: migrat2"))  # same size
    os.utime("app/job.yaml", ns=(info.st_atime_ns, info.st_mtime_ns))
    assert os.stat("app/job.yaml").st_size == info.st_size
    again, _ = lint(["app"])
    assert again != first and "Job/migrat2" in again and "Job/migrate" not in again


def test_the_configuration_and_the_argocd_version_are_in_the_key(tree, isolated_cache):
    _, found = lint(["repo/app"])
    _, without = lint(["repo/app"], Config(disable=["HL201"]))
    assert [f for f in found if not f.endswith("HL201")] == without != found
    lint(["repo/app"], Config(argocd_version=(2, 14, 0)))
    assert len(list((isolated_cache / "results").rglob("*.json"))) == 3


BINDING = """apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: b
  namespace: shop
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: r
subjects:
- kind: ServiceAccount
  name: {name}
  namespace: shop
"""


def test_a_binding_another_application_writes_is_in_each_applications_key(tree, work, isolated_cache):
    """HL104 reads the bindings the repository's other files write (every application shares that
    set, written into each key as its SHA-256): one added or renamed elsewhere is a miss of
    ``repo/app``, whose own files did not change; the same set again is a hit."""
    from hooklint import results

    write(tree, {"app/job.yaml": HOOK.replace("  name: migrate\n", "  name: migrate\n  namespace: shop\n"),
                 "rbac/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: r\n"})
    aged(tree)
    elsewhere = "a binding of another application names it, in repo/rbac/binding.yaml"

    def hl104() -> list[str]:
        result = lint_paths(["repo"], Config(), load_catalog())
        return [f"{f.path}:{f.span.line} {elsewhere in f.message}" for f in result.findings if f.rule_id == "HL104"]

    assert hl104() == ["repo/app/job.yaml:10 False"]
    write(tree, {"rbac/binding.yaml": BINDING.format(name="default")})
    aged(tree)
    work["loaded"].clear()
    assert hl104() == ["repo/app/job.yaml:10 True"] and work["loaded"] == ["repo/app", "repo/rbac"]
    write(tree, {"rbac/binding.yaml": BINDING.format(name="other")})
    aged(tree)
    work["loaded"].clear()
    assert hl104() == ["repo/app/job.yaml:10 False"] and work["loaded"] == ["repo/app", "repo/rbac"]
    shutil.rmtree(isolated_cache / "runs")  # the run entry aside: each application's entry answers
    work["loaded"].clear()
    assert hl104() == ["repo/app/job.yaml:10 False"] and work["loaded"] == []
    members = frozenset({"b", "a"})
    assert results.canonical(members) == ["set-sha256", hashlib.sha256(b'["a","b"]').hexdigest()]
    assert results.canonical(members) is results.canonical(members)  # written once for the object
    assert results.canonical(frozenset({1})) != results.canonical(frozenset({1.0}))  # equal sets, not the same key


def test_an_applications_key_is_worked_out_once_a_run_and_never_sent_to_a_worker(tree, monkeypatch):
    """Looking an application up, storing it and listing its inputs for the run's entry each ask for
    its entry: the key (its description written as JSON and hashed) is worked out once; a worker
    receives the cache without this process's applications."""
    import pickle

    from hooklint import pipeline, results

    asked: list[str] = []
    entry_of = results.ResultCache._entry_of
    monkeypatch.setattr(results.ResultCache, "_entry_of", lambda self, app, mapped: asked.append(app.key) or entry_of(self, app, mapped))
    made: list[results.ResultCache] = []
    run_cache = results.run_cache
    monkeypatch.setattr(pipeline, "run_cache", lambda *a, **k: made.append(run_cache(*a, **k)) or made[-1])
    lint(["repo/app"])
    assert asked == ["repo/app"] and len(made[0]._entries) == 1
    assert pickle.loads(pickle.dumps(made[0]))._entries == {}


def test_hooklints_own_version_is_in_the_key(tree, isolated_cache, monkeypatch):
    from hooklint import results as results_module

    lint(["repo/app"])
    monkeypatch.setattr(results_module, "__version__", "999.0.0")
    lint(["repo/app"])
    assert len(list((isolated_cache / "results").rglob("*.json"))) == 2


def test_a_link_re_pointed_out_of_the_repository_is_a_miss(tree, tmp_path):
    (tree / "lib").mkdir()
    (tree / "lib/job.yaml").write_text(HOOK)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside/job.yaml").write_text(HOOK)
    (tree / "app/job.yaml").unlink()
    (tree / "app/job.yaml").symlink_to("../lib/job.yaml")
    aged(tmp_path)
    _, inside = lint(["repo/app"])
    assert "repo/app/job.yaml:1:1 HL007" not in inside
    (tree / "app/job.yaml").unlink()
    (tree / "app/job.yaml").symlink_to(tmp_path / "outside/job.yaml")
    aged(tmp_path)
    _, outside = lint(["repo/app"])
    assert outside == ["repo/app/job.yaml:1:1 HL007"]


def per_application(paths: list[str], cache: Path) -> str:
    """The JSON report of a run over ``paths`` answered by the entries of its applications: the
    run's own entry (:meth:`hooklint.results.ResultCache.lookup_run`) is removed first, and after."""
    shutil.rmtree(cache / "runs", ignore_errors=True)
    report = lint(paths)[0]
    shutil.rmtree(cache / "runs", ignore_errors=True)
    return report


def test_a_runs_application_entries_are_written_in_one_pack_once(tree, isolated_cache, work, monkeypatch):
    """The entries of a run key's applications live in one file, read at the run's first lookup
    and written once at its end; an unchanged application is answered from it."""
    from hooklint import files

    write(tree, {"other/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: o\n"})
    aged(tree)
    writes: list[str] = []
    reads: list[str] = []
    store, read = files.store_entry, files.read_entry
    monkeypatch.setattr(files, "store_entry", lambda entry, value: writes.append(entry) or store(entry, value))
    import hooklint.results as results_module
    monkeypatch.setattr(results_module, "store_entry", files.store_entry)
    monkeypatch.setattr(results_module, "read_entry", lambda entry: reads.append(entry) or read(entry))
    first = per_application(["repo"], isolated_cache)
    [pack] = list((isolated_cache / "results").rglob("*.json"))
    assert writes.count(str(pack)) == 1 and len(json.loads(pack.read_text())["entries"]) == 2
    assert sorted(work["loaded"]) == ["repo/app", "repo/other"]
    writes.clear(), work["loaded"].clear()
    assert per_application(["repo"], isolated_cache) == first and str(pack) not in writes  # hits: nothing made
    assert work["loaded"] == []
    (tree / "other/cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p\n")
    reads.clear()
    assert per_application(["repo"], isolated_cache) == first and writes.count(str(pack)) == 1
    assert reads.count(str(pack)) == 1  # read at the first lookup, not again to be written: no run wrote it since
    assert work["loaded"] == ["repo/other"] and len(json.loads(pack.read_text())["entries"]) == 2


def test_a_pack_keeps_what_another_run_wrote_meanwhile_and_drops_month_old_entries(isolated_cache):
    from hooklint import files
    from hooklint.results import PACK_KEEP_NS, ResultCache

    files.forget_runs_answers()
    now = time.time_ns()
    cache = ResultCache(str(isolated_cache / "results"), "ab" * 32)
    pack = isolated_cache / "results" / "ab" / ("ab" * 32 + ".json")
    cache._write("made", [], {"findings": []}, now, 7)
    cache.flush()
    assert json.loads(pack.read_text()) == {"entries": {"made": {"taken": now, "inputs": [], "outcome": {"findings": []},
                                                                 "nodes": 7}}}
    cache.flush()  # nothing made since: nothing written
    other = {"taken": now, "inputs": [], "outcome": {}}
    old = {"taken": now - PACK_KEEP_NS - 1, "inputs": [], "outcome": {}}
    files.store_entry(str(pack), {"entries": {"made": other, "another-run": other, "old": old, "bad": []}})
    cache._write("later", [], {}, now, 0)
    cache.flush()
    assert sorted(json.loads(pack.read_text())["entries"]) == ["another-run", "later", "made"]


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_application_answered_from_the_cache_spends_its_nodes_of_max_run_nodes(jobs, tmp_path, monkeypatch):
    """Attacker trial 42, 1: with ``max-run-nodes`` lowered (a repository's ``.hooklint.yaml``
    may), an application answered from the cache spent nothing, so each warm run got further than
    a run without the cache: exit 2 naming three applications not checked, then two, then exit 0.
    A hit spends the nodes its loading parsed; one the budget runs out in is linted, to stop where
    a run without the cache stops."""
    import hooklint.pipeline as pipeline

    monkeypatch.chdir(tmp_path)
    (tmp_path / "repo/.git").mkdir(parents=True)
    write(tmp_path / "repo", {f"apps/{a}/job.yaml": HOOK for a in "abcd"})
    aged(tmp_path / "repo")
    monkeypatch.setattr(pipeline, "PARALLEL_MIN_FILES", 1)
    config = Config(max_run_nodes=50)

    def run() -> tuple[str, list[str]]:
        result = lint_paths(["repo"], config, load_catalog(), jobs=jobs)
        return render_json(result), [e.message for e in result.errors]

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOOKLINT_CACHE_DIR", "off")
        without = run()
    # each worker has its share of the budget (hooklint.pipeline._lint_parallel)
    stopped = {1: "3 of 4 applications not checked: repo/apps/b, repo/apps/c, repo/apps/d",
               2: "4 of 4 applications not checked: repo/apps/a, "}[jobs]
    assert stopped in without[1][0]
    for _ in range(3):
        shutil.rmtree(os.environ["HOOKLINT_CACHE_DIR"] + "/runs", ignore_errors=True)  # answered per application
        assert run() == without
    # every application kept by a run with room (max-run-nodes is not in the key), then the limit
    # lowered: the hits spend their nodes, and the one the budget runs out in is linted
    config = Config(max_run_nodes=1000)
    run()
    config = Config(max_run_nodes=50)
    shutil.rmtree(os.environ["HOOKLINT_CACHE_DIR"] + "/runs", ignore_errors=True)
    assert run() == without


def test_a_corrupt_or_linked_entry_is_ignored(tree, isolated_cache, tmp_path):
    first, _ = lint(["repo/app"])
    [entry] = list((isolated_cache / "results").rglob("*.json"))  # the run key's pack
    [key] = json.loads(entry.read_text())["entries"]
    for junk in (b"{not json", b"", b'{"taken": 0, "inputs": [["x"]], "outcome": {}}', b"[]", b"\xff\xfe",
                 json.dumps({"entries": {key: {"taken": 0, "inputs": [["x"]], "outcome": {}}}}).encode(),
                 json.dumps({"entries": {key: []}}).encode(), b'{"entries": []}'):
        entry.write_bytes(junk)
        assert per_application(["repo/app"], isolated_cache) == first
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps({"entries": {key: {"taken": 0, "inputs": [], "nodes": 0, "outcome": {
        "findings": [], "errors": [], "files": 2, "skipped": [], "renderer": None, "unrendered": None}}}}))
    entry.unlink()
    entry.symlink_to(forged)  # an entry that is a link is never followed
    assert per_application(["repo/app"], isolated_cache) == first
    forged_copy = forged.read_text()
    entry.unlink()
    entry.write_text(forged_copy)  # the same entry, as a file: it is what the cache answers (the test is fair)
    assert json.loads(per_application(["repo/app"], isolated_cache))["findings"] == []


def test_suppression_comments_and_a_baseline_hold_with_a_warm_cache(tree, monkeypatch):
    from hooklint.suppression.baseline import write_baseline

    monkeypatch.chdir(tree)
    result = lint_paths(["app"], Config(), load_catalog())
    write_baseline("baseline.json", result)
    warm = lint_paths(["app"], Config(), load_catalog(), baseline="baseline.json")
    assert warm.findings == [] and len(warm.suppressed) == len(result.findings) > 0
    assert {f.suppression.kind for f in warm.suppressed} == {"baseline"}
    (tree / "app/job.yaml").write_text(HOOK.replace("spec:\n", "# hooklint: ignore[HL201] a reason\nspec:\n", 1))
    commented = lint_paths(["app"], Config(), load_catalog())
    assert [(f.rule_id, f.suppression.kind) for f in commented.suppressed] == [("HL201", "comment")]


def test_workers_share_the_cache(tree, monkeypatch):
    import hooklint.pipeline as pipeline

    for n in range(3):
        write(tree, {f"more{n}/job.yaml": HOOK})
    monkeypatch.setattr(pipeline, "PARALLEL_MIN_FILES", 1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOOKLINT_CACHE_DIR", "off")
        alone = lint(["repo"], jobs=1)
    assert lint(["repo"], jobs=2) == alone
    assert lint(["repo"], jobs=2) == alone


def test_no_cache_keeps_nothing(tree, isolated_cache, monkeypatch):
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(isolated_cache))  # restored after the test: --no-cache sets it
    for command in (["lint", "--no-cache", "repo/app"], ["plan", "--no-cache", "repo/app"]):
        result = runner.invoke(app, command)
        assert result.exit_code in (0, 1), result.output
        assert os.environ["HOOKLINT_CACHE_DIR"] == "off"
        monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(isolated_cache))
    assert list(isolated_cache.rglob("*")) == []
    assert runner.invoke(app, ["lint", "repo/app"]).exit_code == 1
    assert sorted(p.parent.parent.name for p in isolated_cache.rglob("*.json")) == ["results", "runs"]


@pytest.mark.parametrize("format", ["text", "concise", "json", "sarif", "github", "gitlab", "markdown"])
def test_output_is_byte_identical_with_and_without_caches(format, tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    samples = [["examples"]]
    if CORPUS.is_dir():
        samples.append([str(CORPUS / "redhat-scholars__argocd-tutorial"), str(CORPUS / "argoproj__argo-cd")])
    for paths in samples:
        outputs = []
        for cache in (tmp_path / "cache", tmp_path / "cache", "off"):  # cold, warm, none
            monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(cache))
            result = runner.invoke(app, ["lint", "-f", format, "--jobs", "1", *paths])
            outputs.append((result.exit_code, result.stdout))
        assert outputs[0] == outputs[1] == outputs[2], paths


# --- renders ----------------------------------------------------------------------------------------

OVERLAY = {
    "base/kustomization.yaml": "resources:\n- job.yaml\n",
    "base/job.yaml": HOOK,
    "overlay/kustomization.yaml": "resources:\n- ../base\nimages:\n- name: nginx\n  newName: ghcr.io/acme/nginx\n  newTag: '2.0'\n",
}

#: Two resources with one id: ``kustomize build`` fails (after hooklint keyed the render).
FAILING = {
    "bad/kustomization.yaml": "resources:\n- job.yaml\n- again.yaml\n",
    "bad/job.yaml": HOOK,
    "bad/again.yaml": HOOK,
}


@pytest.fixture
def builds(monkeypatch):
    """The argv of every renderer build (:func:`hooklint.sources.bounded.run`)."""
    calls: list[list[str]] = []
    real = bounded.run

    def run(argv, *args, **kwargs):
        calls.append(list(argv))
        return real(argv, *args, **kwargs)

    monkeypatch.setattr(bounded, "run", run)
    return calls


@needs_kubectl
def test_a_warm_kustomize_application_starts_no_renderer(tmp_path, monkeypatch, builds, work):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "repo", OVERLAY)
    (tmp_path / "repo/.git").mkdir()
    aged(tmp_path / "repo")
    first = lint(["repo/overlay"])
    assert len(builds) == 1 and work["loaded"] == ["repo/overlay"]
    builds.clear(), work["loaded"].clear(), work["hashed"].clear()
    assert lint(["repo/overlay"]) == first
    assert builds == [] and work == {"loaded": [], "hashed": []}  # not even walked: a stat of each input
    (tmp_path / "repo/base/job.yaml").write_text(HOOK.replace("name: migrate", "name: migrate-v2", 1))
    assert lint(["repo/overlay"]) != first
    assert len(builds) == 1
    builds.clear()
    (tmp_path / "repo/base/extra.yaml").write_text(HOOK)  # a new file in a folder a render read: a miss
    lint(["repo/overlay"])
    assert len(builds) == 1


@needs_kubectl
def test_a_failed_render_is_kept_with_its_redacted_message(tmp_path, monkeypatch, builds):
    import hooklint.sources.render.redact as redact  # the render stage imports it when a render failed
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "repo", FAILING)
    (tmp_path / "repo/.git").mkdir()
    redactions = []
    real = redact.redact_render_error
    monkeypatch.setattr(redact, "redact_render_error", lambda *a, **k: redactions.append(1) or real(*a, **k))
    first = lint(["repo/bad"], plans=True)  # plans kept: the render cache only, never the result cache
    assert len(builds) == 1 and len(redactions) == 1
    message = json.loads(first[0])["findings"][0]["message"]
    assert json.loads(first[0])["findings"][0]["rule_id"] == "HL007" and "already registered id" in message
    builds.clear()
    redactions.clear()
    assert lint(["repo/bad"], plans=True) == first
    assert builds == [] and redactions == []  # neither rendered nor redacted again


@pytest.mark.skipif(shutil.which("kubectl") is None or shutil.which("kustomize") is not None,
                    reason="needs kubectl, and no kustomize before it on PATH")  # fmt: skip
@pytest.mark.parametrize("wrapper", [False, True], ids=["program", "wrapper"])
def test_kubectl_version_is_asked_once_per_run_then_never_again(wrapper, tmp_path, monkeypatch):
    """Three overlays linted by two workers: ``kubectl version`` runs once, in the parent, before
    the workers start (before: once in each worker, and again on every run). A wrapper (a file
    under 1 MiB: attacker trial 45, 3, a dispatcher choosing the build) is asked once per run: its
    file does not say which build runs."""
    import hooklint.pipeline as pipeline
    from hooklint import files
    from hooklint.sources.render import kustomize

    log = tmp_path / "calls.log"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "kubectl"
    fake.write_text(f"#!/bin/sh\nif [ \"$1\" = version ]; then echo \"$*\" >> {log}; fi\nexec {shutil.which('kubectl')} \"$@\"\n"
                    + ("" if wrapper else "#" * files.WRAPPER_BYTES + "\n"))  # as large as a program  # fmt: skip
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(pipeline, "PARALLEL_MIN_FILES", 1)
    monkeypatch.chdir(tmp_path)
    for name in ("one", "two", "three"):
        write(tmp_path / "repo", {f"{name}/base/kustomization.yaml": "resources:\n- job.yaml\n", f"{name}/base/job.yaml": HOOK,
                                  f"{name}/overlay/kustomization.yaml": "resources:\n- ../base\nnamePrefix: p-\n"})  # fmt: skip
    (tmp_path / "repo/.git").mkdir()
    for run in range(2):
        kustomize.find_kustomize.cache_clear()
        kustomize._version_of.cache_clear()
        report, found = lint(["repo"], jobs=2)
        assert "HL008" not in report and len(found) > 0
    assert log.read_text() == "version --client\n" * (2 if wrapper else 1)


def test_a_failing_cache_never_changes_the_outcome(tree, monkeypatch):
    import hooklint.results as results

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOOKLINT_CACHE_DIR", "off")
        alone = lint(["repo/app"])

    def broken(*args, **kwargs):
        raise OSError("broken cache")

    monkeypatch.setattr(results.ResultCache, "store", broken)
    assert lint(["repo/app"]) == alone
    monkeypatch.setattr(results.ResultCache, "lookup", broken)
    assert lint(["repo/app"]) == alone


def test_a_cache_folder_that_is_a_link_is_neither_read_nor_written(tree, isolated_cache, tmp_path, work):
    first, _ = lint(["repo/app"])
    [entry] = list((isolated_cache / "results").rglob("*.json"))
    elsewhere = tmp_path / "elsewhere"
    entry.parent.rename(elsewhere)
    entry.parent.symlink_to(elsewhere)
    kept = (elsewhere / entry.name).read_bytes()
    (elsewhere / entry.name).write_text(json.dumps({"taken": 0, "inputs": [], "outcome": {
        "findings": [], "errors": [], "files": 2, "skipped": [], "renderer": None, "unrendered": None}}))
    forged = (elsewhere / entry.name).read_bytes()
    work["loaded"].clear()
    assert per_application(["repo/app"], isolated_cache) == first and kept != forged
    assert work["loaded"] == ["repo/app"]  # not read through the link: linted again
    assert (elsewhere / entry.name).read_bytes() == forged and sorted(p.name for p in elsewhere.iterdir()) == [entry.name]


def test_a_cache_folder_is_asked_once_a_run_whether_it_is_a_link(isolated_cache, tmp_path, monkeypatch):
    """Each folder of the cache is looked at once a run (an entry per application goes into the
    same 256 folders); a run's start forgets it, so a folder made a link between runs is refused."""
    from hooklint import files

    entry = str(isolated_cache / "results" / "ab" / "ab12.json")
    files.forget_runs_answers()
    files.store_entry(entry, {"n": 1})
    asked: list[str] = []
    lstat = os.lstat
    monkeypatch.setattr(os, "lstat", lambda path, *a, **k: asked.append(str(path)) or lstat(path, *a, **k))
    files.store_entry(entry, {"n": 2})
    assert files.read_entry(entry) == {"n": 2}
    assert [p for p in asked if p.startswith(str(isolated_cache))] == []
    monkeypatch.setattr(os, "lstat", lstat)
    shutil.rmtree(isolated_cache / "results")  # another run's prune, meanwhile: made again
    files.store_entry(entry, {"n": 2})
    assert files.read_entry(entry) == {"n": 2}
    elsewhere = tmp_path / "elsewhere"
    (isolated_cache / "results" / "ab").rename(elsewhere)
    (isolated_cache / "results" / "ab").symlink_to(elsewhere)
    files.forget_runs_answers()
    assert files.read_entry(entry) is None
    files.store_entry(entry, {"n": 3})
    assert json.loads((elsewhere / "ab12.json").read_text()) == {"n": 2}
    (isolated_cache / "results" / "ab").unlink()
    (isolated_cache / "results").rename(tmp_path / "results-elsewhere")  # a link higher on the way
    (isolated_cache / "results").symlink_to(tmp_path / "results-elsewhere")
    (tmp_path / "results-elsewhere" / "ab").mkdir()
    files.forget_runs_answers()
    files.store_entry(entry, {"n": 4})
    assert files.read_entry(entry) is None and list((tmp_path / "results-elsewhere" / "ab").iterdir()) == []


def test_cache_entries_a_pull_request_commits_inside_the_checkout_are_never_read(tree, isolated_cache, monkeypatch):
    """Attacker trial 41, 2: ``HOOKLINT_CACHE_DIR=.cache`` in CI, and a pull request committing
    ``.cache`` with entries made at the same path whose findings it emptied: a fresh clone's run
    hashed the inputs again (their stat signatures had changed), found the same bytes, and answered
    with the forged result (exit 0 for a privileged hook). A cache folder inside a Git work tree
    is neither read nor written, whatever it holds; ``hooklint doctor`` says why."""
    from hooklint.files import cache_refusal

    committed = tree / ".cache"
    committed.mkdir()  # there from the start: the checkout's listing is the same when it is filled
    aged(tree)
    first, found = lint(["repo/app"])
    assert found  # the hook's findings
    for entry in [*isolated_cache.rglob("*.json")]:
        data = json.loads(entry.read_text())
        if isinstance(data, dict) and "entries" in data:  # the applications' pack
            for kept in data["entries"].values():
                kept["outcome"]["findings"] = []
        elif isinstance(data, dict) and "result" in data:  # the run's entry
            data["result"]["findings"] = []
        entry.write_text(json.dumps(data))
    assert lint(["repo/app"])[1] == []  # the forged entries answer, where the user's cache is
    assert per_application(["repo/app"], isolated_cache) == lint(["repo/app"])[0]  # the pack's too
    shutil.copytree(isolated_cache, committed, dirs_exist_ok=True)
    before = sorted(str(p.relative_to(committed)) for p in committed.rglob("*"))
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(committed))
    assert lint(["repo/app"]) == (first, found)
    assert sorted(str(p.relative_to(committed)) for p in committed.rglob("*")) == before  # nothing written
    assert cache_refusal(str(committed)) == f"it is inside the Git work tree {tree}, whose files a pull request can write"
    assert cache_refusal(str(isolated_cache)) is None


def test_an_entry_is_written_through_a_private_temporary_file_beside_it(isolated_cache, tmp_path, monkeypatch):
    """The temporary file lives in the entry's folder, named as pruning knows a run's temporary
    files (``hooklint-*.tmp``); the folders made are private (0700); a folder seen in the run is
    not made again; with a relative cache folder (not remembered) an existing one is written in."""
    import stat as stat_module

    from hooklint import files

    files.forget_runs_answers()
    entry = isolated_cache / "results" / "cd" / "cd34.json"
    replaced: list[tuple[str, str]] = []
    made: list[str] = []
    replace, makedirs = os.replace, os.makedirs
    monkeypatch.setattr(os, "replace", lambda a, b: replaced.append((a, b)) or replace(a, b))
    monkeypatch.setattr(os, "makedirs", lambda name, *a, **k: made.append(str(name)) or makedirs(name, *a, **k))
    files.store_entry(str(entry), {"n": 1})
    [(temporary, target)] = replaced
    assert target == str(entry) and os.path.dirname(temporary) == str(entry.parent)
    assert os.path.basename(temporary).startswith("hooklint-") and temporary.endswith(".tmp")
    assert stat_module.S_IMODE(entry.parent.stat().st_mode) == 0o700 and made[0] == str(entry.parent)
    asked = len(made)  # os.makedirs makes the parent through its own name too
    files.store_entry(str(entry), {"n": 2})
    assert len(made) == asked and files.read_entry(str(entry)) == {"n": 2}  # known: no mkdir
    monkeypatch.chdir(isolated_cache.parent)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", isolated_cache.name)
    files.forget_runs_answers()
    relative = os.path.join(isolated_cache.name, "results", "cd", "cd34.json")
    files.store_entry(relative, {"n": 3})
    files.store_entry(relative, {"n": 4})
    assert files.read_entry(relative) == {"n": 4}


def test_the_render_key_hashes_only_inputs_whose_signature_changed(tmp_path, monkeypatch):
    """Direct mode: the render cache's key over unchanged inputs stats them and reads none; a
    changed input is read again, and the key follows its bytes."""
    from hooklint.sources.render import cache

    write(tmp_path / "repo", OVERLAY)
    aged(tmp_path / "repo")
    files = [str(tmp_path / "repo" / name) for name in OVERLAY]
    read: list[str] = []
    real = cache._file_digest
    monkeypatch.setattr(cache, "_file_digest", lambda path: read.append(os.path.basename(path)) or real(path))
    first = cache.input_key(["kustomize", "v5"], files, str(tmp_path / "repo"))
    assert sorted(read) == ["job.yaml", "kustomization.yaml", "kustomization.yaml"]
    read.clear()
    assert cache.input_key(["kustomize", "v5"], files, str(tmp_path / "repo")) == first
    assert read == []
    (tmp_path / "repo/base/job.yaml").write_text(HOOK.replace("nginx:1.0", "nginx:1.1"))
    changed = cache.input_key(["kustomize", "v5"], files, str(tmp_path / "repo"))
    assert read == ["job.yaml"] and changed != first
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOOKLINT_CACHE_DIR", "off")  # the same key, every byte read
        assert cache.input_key(["kustomize", "v5"], files, str(tmp_path / "repo")) == changed


# --- renderings that are not a function of their inputs -------------------------------------------

needs_helm = pytest.mark.skipif(__import__("hooklint.sources.render.helm", fromlist=["find_helm"]).find_helm() is None,
                                reason="no Helm: neither a helm binary nor helm-python-sdk")  # fmt: skip

#: A chart whose hook's template calls ``now`` and ``randAlphaNum`` (here without changing what is
#: printed, so that runs compare; the attack printed ``hostPID: true`` after a time of day).
CLOCKED = {
    "Chart.yaml": "apiVersion: v2\nname: clocked\nversion: 0.1.0\n",
    "templates/job.yaml": "{{- $started := now | date \"150405\" }}{{- $token := randAlphaNum 8 }}\n" + HOOK,
    "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
}


@pytest.fixture
def helm_renders(monkeypatch):
    """How many times Helm rendered a chart (:func:`hooklint.sources.render.helm._render`)."""
    from hooklint.sources.render import helm

    calls: list[str] = []
    real = helm._render
    monkeypatch.setattr(helm, "_render", lambda mode, renderer, chart, *a, **k: calls.append(chart) or real(mode, renderer, chart, *a, **k))
    return calls


@needs_helm
@pytest.mark.parametrize("called", ["now", "randAlphaNum", "keys"])
def test_a_chart_calling_a_nonhermetic_function_renders_on_every_run(called, tmp_path, monkeypatch, helm_renders):
    """A chart whose templates call ``now`` (or ``randAlphaNum``, ..., or ``keys``, in Go's map
    order) is rendered again on every run, and neither cache keeps it: output with and without
    caches is the same (before: a time bomb rendered clean once stayed clean from the render and
    result caches; attacker trial 45, 2: so did ``hostPID: {{ ne (first (keys .Values.m)) "a" }}``)."""
    monkeypatch.chdir(tmp_path)
    job = {"randAlphaNum": "{{- $token := randAlphaNum 8 }}\n", "now": "{{- $started := now | date \"150405\" }}\n",
           "keys": "{{- $first := first (keys (dict \"a\" 1 \"b\" 2)) }}\n"}[called]  # fmt: skip
    write(tmp_path / "repo/chart", {**CLOCKED, "templates/job.yaml": job + HOOK})
    (tmp_path / "repo/.git").mkdir()
    aged(tmp_path / "repo")
    outputs = []
    for cache in (tmp_path / "cache", tmp_path / "cache", "off"):  # cold, warm, none
        monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(cache))
        result = runner.invoke(app, ["lint", "-f", "json", "--jobs", "1", "repo/chart"])
        outputs.append((result.exit_code, result.stdout))
    assert outputs[0] == outputs[1] == outputs[2] and outputs[0][0] == 1
    assert helm_renders == ["repo/chart"] * 3
    assert not (tmp_path / "cache/results").exists()
    assert [json.loads(p.read_text()) for p in (tmp_path / "cache/helm").rglob("*.json")] == [{"volatile": True}]


@needs_helm
def test_a_chart_without_them_is_rendered_once(tmp_path, monkeypatch, helm_renders):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "repo/chart", {**CLOCKED, "templates/job.yaml": "{{- $x := .Values.now }}\n" + HOOK})
    (tmp_path / "repo/.git").mkdir()
    aged(tmp_path / "repo")
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / "cache"))
    first = lint(["repo/chart"])
    second = lint(["repo/chart"])
    assert first == second and helm_renders == ["repo/chart"]


@pytest.mark.parametrize(("text", "calls"), [
    ('{{ now | date "2006" }}', True),
    ('{{- $s := randAlphaNum 8 }}', True),
    ('{{ include "x" . | tpl $ }}', True),  # tpl can run any of them from a built string
    ('{{ .Values.now }} {{ $now }} {{ .now }}', False),  # fields and variables, not calls
    ('# now and then: randAlpha in a comment outside actions\n{{ .Values.x }}', False),
    ('{{ "}}" }} {{ `}}` }} uuidv4 outside', False),
    ('{{ x "}}" now }}', True),  # a string holding }} does not end the action
    ('{{/* }} */ genCA }}', True),  # nor does a comment
    ('{{ lookup "v1" "Secret" "ns" "n" }}', False),  # no cluster: an empty map every time
    ('{{ dateInZone "2006" (now) "UTC" }}', True),
    ('hostPID: {{ ne (first (keys .Values.m)) "a" }}', True),  # Go's map order (attacker trial 45, 2)
    ('{{ range values .Values.m }}{{ . }}{{ end }}', True),
    ('{{ range keys .Values.m | sortAlpha }}{{ . }}{{ end }}', True),  # sorted, but not told apart
    ('{{ .Values.keys }} {{ $values }} {{ .Values.m.values }}', False),  # fields and variables
])
def test_nonhermetic_calls_are_found_in_template_actions(text, calls, tmp_path):
    from hooklint.sources.render.helm import calls_nonhermetic

    (tmp_path / "t.yaml").write_text(text)
    assert calls_nonhermetic([str(tmp_path / "t.yaml")]) is calls
    assert calls_nonhermetic(["\0text:" + text]) is calls


def test_a_packaged_subchart_is_scanned_unpacked(tmp_path):
    import gzip

    from hooklint.sources.render.helm import calls_nonhermetic

    (tmp_path / "sub.tgz").write_bytes(gzip.compress(b"sub/templates/a.yaml\0\0{{ shuffle .Values.x }}"))
    (tmp_path / "clean.tgz").write_bytes(gzip.compress(b"sub/templates/a.yaml\0\0{{ .Values.x }}"))
    (tmp_path / "corrupt.tgz").write_bytes(b"\x1f\x8b not gzip")
    assert calls_nonhermetic([str(tmp_path / "sub.tgz")]) is True
    assert calls_nonhermetic([str(tmp_path / "clean.tgz")]) is False
    assert calls_nonhermetic([str(tmp_path / "corrupt.tgz")]) is True
    assert calls_nonhermetic([str(tmp_path / "missing.yaml")]) is True


@needs_helm
def test_applicationset_go_templates_are_never_served_from_the_render_cache(isolated_cache, helm_renders):
    """ApplicationSet go templates are rendered by Helm on a temporary chart whose path is in the
    render key: every expansion renders (one calling ``now`` never comes back from a cache)."""
    from hooklint.sources.appmap.applicationsets import _go_render

    for _ in range(2):
        assert _go_render([("{{ .env }}-{{ now | date \"2006\" | len }}", {"env": "prod"})], None) == ["prod-4"]
        assert _go_render([("{{ .env }}-x", {"env": "prod"})], None) == ["prod-x"]
    assert len(helm_renders) == 4


@needs_helm
def test_a_failing_chart_calling_now_is_not_kept_as_failed_either(tmp_path, monkeypatch, helm_renders):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "repo/chart", {**CLOCKED, "templates/job.yaml": "{{- if now }}{{ fail \"not yet\" }}{{ end }}\n"})
    (tmp_path / "repo/.git").mkdir()
    aged(tmp_path / "repo")
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / "cache"))
    first, found = lint(["repo/chart"])
    assert lint(["repo/chart"]) == (first, found) and "not yet" in first and found[0].endswith("HL007")
    assert helm_renders == ["repo/chart"] * 2
    assert not (tmp_path / "cache/results").exists() and not (tmp_path / "cache/failed").exists()


def test_the_render_cache_key_covers_hooklints_own_code(tmp_path, monkeypatch):
    """A changed checkout of hooklint with the same version renders again: its messages (the reason
    an entry is left out) may have changed, and the render cache keeps them. Before, only the
    version number was in the key, and a changed fetch step's message came back from the cache."""
    from hooklint.sources.render import cache

    (tmp_path / "kustomization.yaml").write_text("resources: []\n")
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / "cache"))
    before = cache.input_key(["kustomize"], [str(tmp_path / "kustomization.yaml")], str(tmp_path))
    monkeypatch.setattr(cache, "code_signature", lambda: "another checkout")
    after = cache.input_key(["kustomize"], [str(tmp_path / "kustomization.yaml")], str(tmp_path))
    assert before != after and len(after) == 64


# --- the run entry: a whole run over an unchanged tree -----------------------------------------------

APPLICATION = """apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: app
  namespace: argocd
spec:
  project: default
  source:
    repoURL: https://github.com/acme/shop
    path: app
    directory:
      exclude: job.yaml
  destination:
    server: https://kubernetes.default.svc
    namespace: app
"""


@pytest.fixture
def discovery(monkeypatch):
    """How many times a run looked for its applications (:func:`group_applications`)."""
    import hooklint.pipeline as pipeline

    calls: list[list[str]] = []
    real = pipeline.group_applications
    monkeypatch.setattr(pipeline, "group_applications", lambda paths, *a, **k: calls.append(list(paths)) or real(paths, *a, **k))
    return calls


def test_an_unchanged_run_is_answered_by_its_entry(tree, work, discovery):
    first = lint(["repo/app"])
    assert discovery == [["repo/app"]] and work["loaded"] == ["repo/app"]
    discovery.clear(), work["loaded"].clear(), work["hashed"].clear()
    assert lint(["repo/app"]) == first
    assert discovery == [] and work == {"loaded": [], "hashed": []}  # no discovery, no application: a stat pass


def _cold(paths: list[str], config: Config | None = None) -> list[str]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOOKLINT_CACHE_DIR", "off")
        return lint(paths, config)[1]


def _new_hook(tree: Path) -> None:
    (tree / "app/late.yaml").write_text(HOOK.replace("name: migrate", "name: late"))


def _new_folder(tree: Path) -> None:
    (tree / "app/more").mkdir()
    (tree / "app/more/job.yaml").write_text(HOOK)


def _file_becomes_folder(tree: Path) -> None:  # the same names in app/: only app/notes's kind changes
    (tree / "app/notes").unlink()
    (tree / "app/notes").mkdir()
    (tree / "app/notes/job.yaml").write_text(HOOK)


def _own_repository(tree: Path) -> None:  # a path the run looked at and found missing now exists
    (tree / "app/.git").mkdir()


def _application_elsewhere(tree: Path) -> None:  # an Application outside the named folder excludes job.yaml
    write(tree, {"apps/app.yaml": APPLICATION})


@pytest.mark.parametrize("change", [_new_hook, _new_folder, _file_becomes_folder, _own_repository, _application_elsewhere])
def test_a_run_entry_misses_when_what_the_run_looked_at_changes(change, tree, discovery):
    """Each change is to something the first run did not read: a folder it listed, a path it looked
    at and found missing, a file it found and did not walk into, an Application outside the folder
    named. The second run must see it, as a run without caches does."""
    config = Config(repo_urls=["https://github.com/acme/shop"])
    (tree / "lib").mkdir()
    (tree / "lib/cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lib\n")
    (tree / "app/lib.yaml").symlink_to("../lib/cm.yaml")  # inside the repository until app/ is one
    (tree / "app/notes").write_text("not a manifest\n")
    aged(tree)
    before = lint(["repo/app"], config)[1]
    change(tree)
    aged(tree)
    discovery.clear()
    after = lint(["repo/app"], config)[1]
    assert discovery == [["repo/app"]]  # looked for again
    assert after == _cold(["repo/app"], config) and after != before


def test_observing_sorts_what_a_run_asked_and_restores_os(tmp_path, monkeypatch):
    from hooklint.results import observing

    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"a/x.yaml": HOOK})
    real_stat = os.stat
    with observing() as seen:
        assert os.path.isfile("a/x.yaml") and not os.path.exists("a/missing") and os.listdir("a") == ["x.yaml"]
        assert [e.name for e in os.scandir(Path("a"))] == ["x.yaml"]
        os.stat(0)  # a descriptor: no path to keep
    assert seen.listed == {"a"} and seen.looked == {"a/x.yaml", "a/missing"}
    assert os.stat is real_stat


def test_a_folder_only_looked_at_stands_for_its_kind_a_missing_path_for_its_absence(tmp_path, monkeypatch):
    from hooklint.findings import RunResult
    from hooklint.results import Observed, run_cache

    monkeypatch.chdir(tmp_path)
    (tmp_path / "far").mkdir()
    aged(tmp_path)
    cache = run_cache(Config())
    stored = RunResult(files=7, notices=["kept"])
    cache.store_run(["x"], stored, {}, Observed(looked={"far", "gone"}), [], time.time_ns())
    (tmp_path / "far/new").write_text("")  # a folder only looked at: its entries are not what was asked
    assert cache.lookup_run(["x"]) == stored
    (tmp_path / "gone").write_text("")  # a path looked at and missing now exists
    assert cache.lookup_run(["x"]) is None
    (tmp_path / "gone").unlink()
    assert cache.lookup_run(["x"]) == stored
    shutil.rmtree(tmp_path / "far")
    (tmp_path / "far").write_text("")  # the folder is now a file
    assert cache.lookup_run(["x"]) is None
    listed = Observed(listed={"far2"})
    (tmp_path / "far2").mkdir()
    aged(tmp_path)
    cache.store_run(["y"], stored, {}, listed, [], time.time_ns())
    assert cache.lookup_run(["y"]) == stored
    (tmp_path / "far2/new").write_text("")  # a folder listed: a new entry is a miss
    assert cache.lookup_run(["y"]) is None


def test_workers_runs_are_kept_whole_too(tree, discovery, monkeypatch):
    import hooklint.pipeline as pipeline

    for n in range(3):
        write(tree, {f"more{n}/job.yaml": HOOK})
    aged(tree)
    monkeypatch.setattr(pipeline, "PARALLEL_MIN_FILES", 1)
    first = lint(["repo"], jobs=2)
    discovery.clear()
    assert lint(["repo"], jobs=2) == first and discovery == []
    (tree / "more1/job.yaml").write_text(HOOK.replace("image: nginx:1.0", "image: nginx:latest"))
    assert "repo/more1/job.yaml:13:16 HL102" in lint(["repo"], jobs=2)[1] and discovery == [["repo"]]


def test_runs_with_an_input_error_a_plan_or_stdin_are_never_kept_whole(tree, isolated_cache, monkeypatch):
    from hooklint.pipeline import plan_paths

    lint(["repo/app", "repo/nothing-here"])
    plan_paths(["repo/app"], Config())
    lint_paths(["repo/app"], Config(), load_catalog(), plans=True)
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO(HOOK))
    lint(["-"])
    assert not (isolated_cache / "runs").exists()
    lint(["repo/app"])
    assert len(list((isolated_cache / "runs").rglob("*.json"))) == 1


def test_an_application_with_secrets_is_linted_again_but_its_run_is_kept_whole(tree, work, discovery):
    """The values of an application's Secrets redact every other application's findings
    (:func:`hooklint.pipeline.run_redacted`) and are never written to the cache: its entry is a miss
    (attacker trial 20 B1); an unchanged run is still answered by its own entry."""
    write(tree, {"creds/s.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {foo: Hq7rVw2mLk9xPz}\n"})
    aged(tree)
    first = lint(["repo/app", "repo/creds"])
    assert sorted(work["loaded"]) == ["repo/app", "repo/creds"]
    assert not any("Hq7rVw2mLk9xPz" in p.read_text() for p in Path(os.environ["HOOKLINT_CACHE_DIR"]).rglob("*.json"))
    work["loaded"].clear(), discovery.clear()
    assert lint(["repo/app", "repo/creds"]) == first
    assert discovery == [] and work["loaded"] == []  # the whole run unchanged: its entry
    (tree / "app/cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c2\n")
    aged(tree)
    assert lint(["repo/app", "repo/creds"])[1] == first[1]
    assert sorted(work["loaded"]) == ["repo/app", "repo/creds"]  # creds/ again: its values are never kept


def after_discovery(monkeypatch: pytest.MonkeyPatch, change) -> None:
    """``change()`` once, in the next run, when discovery is done with the files' bytes
    (:func:`facts.forget_contents`) and before the lint stage reads them again."""
    from hooklint.sources.repository import facts

    forget = facts.forget_contents

    def then() -> None:
        forget()
        monkeypatch.setattr(facts, "forget_contents", forget)
        change()

    monkeypatch.setattr(facts, "forget_contents", then)


SCANNED_APPLICATION = """apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: other
spec:
  destination: {server: https://kubernetes.default.svc, namespace: other}
  source: {repoURL: https://example.com/other.git, path: other, targetRevision: main}
"""
SCANNED_BINDING = """apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: migrate
subjects:
- kind: ServiceAccount
  name: migrate
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: migrate}
"""


@pytest.mark.parametrize("scanned", [SCANNED_APPLICATION, SCANNED_BINDING], ids=["application-scan", "binding-scan"])
def test_a_file_changed_after_discovery_parsed_it_is_not_kept_with_its_old_result(tree, monkeypatch, scanned):
    """Discovery's scans parse some files of the tree (an Application naming a repoURL, a
    RoleBinding), and the lint stage takes their parse rather than parsing again. A file edited in
    between (its modification time set back) was linted as discovery read it, and kept in its
    application's entry with its new signature: every later run was answered with the old bytes'
    result. The lint stage reads the file again and takes the parse only when the bytes are the
    same; an application's entry holds the hash of the bytes it linted."""
    job = tree / "app/job.yaml"
    job.write_text(scanned + "---\n" + HOOK)
    aged(tree)
    after_discovery(monkeypatch, lambda: _edited_keeping_times(job, "name: migrate\n  annotations",
                                                               "name: migrat2\n  annotations"))
    first, _ = lint(["repo/app"])
    assert '"name": "migrat2"' in first  # what the lint stage read
    again, _ = lint(["repo/app"])
    assert again == no_cache_lint(["repo/app"]) == first


@pytest.mark.parametrize("layout", ["directory", pytest.param("kustomize", marks=needs_kubectl)])
def test_a_file_discoverys_binding_scan_parsed_is_parsed_once_in_a_run(tree, parsed, layout):
    """The repository's RoleBindings are read by discovery (HL104's bindings elsewhere), which
    hands each parse to the lint stage: a plain file's lint (:func:`facts.take_parsed`) and the
    placement of a kustomization's objects in the files they came from take it rather than parsing
    the file again. One parse of the file in a run, two before; the findings are the same."""
    write(tree, {"app/job.yaml": SCANNED_BINDING + "---\n" + HOOK})
    if layout == "kustomize":
        write(tree, {"app/kustomization.yaml": "resources:\n- job.yaml\n"})
    aged(tree)
    _, found = lint(["repo/app"])
    assert [p for p in parsed if p.endswith("job.yaml")] == [os.path.normpath("repo/app/job.yaml")], parsed
    assert found == ["repo/app/job.yaml:16:1 HL201", "repo/app/job.yaml:16:1 HL202", "repo/app/job.yaml:18:5 HL103",
                     "repo/app/job.yaml:18:5 HL104"]  # fmt: skip
    assert lint(["repo/app"], Config())[1] == found == no_cache_findings(["repo/app"])


def no_cache_findings(paths: list[str]) -> list[str]:
    """:func:`lint`'s findings of a run with every cache off."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOOKLINT_CACHE_DIR", "off")
        return lint(paths)[1]


def _argo_repo(tree: Path, source: str) -> None:
    """``repo`` as a clone of https://github.com/acme/repo.git holding ``apps/app.yaml``, an
    Application of that repository whose ``spec.source`` ends with ``source`` (YAML at its indent)."""
    write(tree, {".git/config": '[remote "origin"]\n\turl = https://github.com/acme/repo.git\n',
                 "apps/app.yaml": "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: app, namespace: argocd}\n"
                                  "spec:\n  project: prod\n  source:\n    repoURL: https://github.com/acme/repo.git\n"
                                  f"{source}  destination: {{server: https://kubernetes.default.svc, namespace: app}}\n"})  # fmt: skip


NETWORK_HOOK = HOOK.replace("      restartPolicy: Never\n", "      restartPolicy: Never\n      hostNetwork: false\n")


@needs_kubectl
def test_a_component_made_after_a_run_that_ignored_it_missing_is_a_miss(tree):
    """Attacker trial 38, 1: an Application's kustomize ``components`` with
    ``ignoreMissingComponents`` names a folder that does not exist, and a run keeps the
    application's result; a later change adds the component (a patch giving the hook the node's
    network). Argo CD now applies the patch, and the cached run answered with the result without
    it: exit 0 where the run without a cache finds HL105. What an application's loading looked at,
    there or not (the component's folder), is an input of its entry."""
    os.remove(tree / "app/cm.yaml")
    write(tree, {"app/job.yaml": NETWORK_HOOK, "app/kustomization.yaml": "resources:\n- job.yaml\n"})
    _argo_repo(tree, "    path: app\n    kustomize: {components: [../comp], ignoreMissingComponents: true}\n")
    aged(tree)
    first, _ = lint(["repo"])
    assert "HL105" not in first
    write(tree, {"comp/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n"
                                            "- target: {kind: Job}\n  patch: |-\n    - op: replace\n"
                                            "      path: /spec/template/spec/hostNetwork\n      value: true\n"})  # fmt: skip
    aged(tree)
    again, found = lint(["repo"])
    assert again == no_cache_lint(["repo"])
    assert [f for f in found if f.endswith("HL105")] == ["repo/comp/kustomization.yaml:3:1 HL105"]


def test_a_file_read_twice_in_a_run_with_other_bytes_the_second_time_keeps_no_run(tree, monkeypatch):
    """Attacker trial 38, 2: an Application file edited while a run went on, after discovery read
    it (its ``directory.exclude`` left the hook out of the map) and before the lint stage read it
    again; the run was kept with the new bytes' hash and the old map's result, and every later run
    was answered with it: exit 0 where the run without a cache finds the hook. A run, or an
    application, that read one file twice and met other bytes the second time is not kept."""

    os.remove(tree / "app/cm.yaml")
    write(tree, {"app/job.yaml": NETWORK_HOOK.replace("hostNetwork: false", "hostNetwork: true")})
    _argo_repo(tree, "    path: app\n    directory: {exclude: 'job.yaml'}\n")
    aged(tree)
    after_discovery(monkeypatch, lambda: _edited_keeping_times(tree / "apps/app.yaml", "exclude: 'job.yaml'",
                                                               "exclude: 'non.yaml'"))
    first, found = lint(["repo"])
    assert not [f for f in found if f.endswith("HL105")]  # the map of the bytes discovery read
    again, found = lint(["repo"])
    assert again == no_cache_lint(["repo"])
    assert [f for f in found if f.endswith("HL105")] == ["repo/app/job.yaml:11:20 HL105"]


def test_a_file_discovery_parsed_and_removed_before_its_lint_is_an_input_error(tree, monkeypatch):
    """The lint stage reads a file discovery's scans parsed again before it takes the parse
    (:func:`facts.take_parsed`): one removed in between is what reading it says, an input error
    naming it, never the parse of bytes no longer there."""

    write(tree, {"app/job.yaml": SCANNED_BINDING + "---\n" + HOOK})
    aged(tree)
    after_discovery(monkeypatch, lambda: os.remove(tree / "app/job.yaml"))
    result = lint_paths(["repo/app"], Config(), load_catalog())
    assert [(e.path, e.message) for e in result.errors] == [("repo/app/job.yaml", "no such file or directory")]
    assert [f.rule_id for f in result.findings] == []


def test_what_the_runs_memos_answer_is_observed_as_what_the_file_system_answers(tmp_path, monkeypatch):
    """An application's loading asks questions discovery asked first, and the run's memos answer
    them (:mod:`hooklint.sources.repository.facts`) without a call the wrapped ``os`` functions see:
    each answer is told to every :func:`observing` block running, so what an application looked at
    is an input of its entry however it was answered."""
    from hooklint.results import observing
    from hooklint.sources.repository import facts

    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"app/job.yaml": HOOK})
    facts.reset()
    asked = ["app/job.yaml", "app/gone.yaml", "app"]
    for path in asked:  # discovery, before any block runs
        facts.is_file(path), facts.lstat(path) if os.path.exists(path) else None, facts.realpath(path)
    facts.entry_names("app")
    with observing() as outer, observing() as seen:
        assert [facts.is_file(p) for p in asked] == [True, False, False]
        assert facts.is_dir("app") and facts.lstat("app/job.yaml") and facts.realpath("app/gone.yaml")
        assert facts.walked_link("app/job.yaml") is None and not facts.walked_regular("app/job.yaml")
        assert facts.entry_names("app") == ("job.yaml",) and facts.folder_type(str(tmp_path / "app")) is None
    assert seen.looked == outer.looked == {"app/job.yaml", "app/gone.yaml", "app"}
    assert seen.listed == outer.listed == {"app", str(tmp_path / "app")}
    facts.reset()


# --- the Helm SDK's version, remembered ----------------------------------------------------------

@pytest.fixture
def fake_sdk(tmp_path, monkeypatch):
    """A ``helm_python`` of files only (``_sdk_path`` leads to it) whose child answers are a list
    (:func:`helm._ask_sdk` replaced): ``(folder, asked)``, ``asked`` the requests' ``op`` in order.
    No helm binary is found; each call of :func:`helm._find_sdk` starts as a new process would."""
    from hooklint.sources.render import helm

    folder = tmp_path / "site"
    write(folder, {"helm_python/__init__.py": "__version__ = '0.2.2'\n", "helm_python/lib/libhelm_c.so": "v4.2.3",
                   "helm_python/__pycache__/x.pyc": ""})  # fmt: skip
    asked: list[str] = []

    def ask(request, *args, **kwargs):
        asked.append(request["op"])
        library = (folder / "helm_python/lib/libhelm_c.so").read_text() if (folder / "helm_python/lib").exists() else "v4.2.3"
        if library == "broken":
            raise helm._HelmFailed("the Helm SDK cannot load: OSError: broken")
        return {"sdk": "0.2.2"} if library == "mute" else {"sdk": "0.2.2", "helm": library}

    monkeypatch.setattr(helm, "_ask_sdk", ask)
    monkeypatch.setattr(helm, "_sdk_path", lambda: str(folder))
    monkeypatch.setattr(helm, "_SDK_ANSWERS", {})
    return folder, asked


def _sdk_found() -> "tuple[str, str] | None":
    """:func:`helm._find_sdk` as a new process asks it (nothing remembered in this one)."""
    from hooklint.sources.render import helm

    helm._SDK_ANSWERS.clear()
    found = helm._find_sdk()
    return None if found is None else (found[0], found[1].label())


def test_the_helm_sdks_version_is_asked_once_then_again_only_when_the_sdk_changes(fake_sdk, monkeypatch):
    """A run that renders a chart asked the SDK its version in a child (an 85 MB Go library loaded,
    about 0.1 s) every time, a warm run too; it is asked once per installed SDK, then read from the
    cache folder. A new library, a new ``__init__.py``, or a library that cannot load is asked again."""
    folder, asked = fake_sdk
    assert _sdk_found() == ("sdk", "helm-python-sdk 0.2.2 (Helm v4.2.3)") and asked == ["version"]
    assert _sdk_found() == ("sdk", "helm-python-sdk 0.2.2 (Helm v4.2.3)") and asked == ["version"]
    os.utime(folder / "helm_python/__pycache__/x.pyc", ns=(1, 1))  # Python writing its own files: not a change
    (folder / "helm_python/__pycache__/y.pyc").write_text("")
    assert _sdk_found() == ("sdk", "helm-python-sdk 0.2.2 (Helm v4.2.3)") and asked == ["version"]
    (folder / "helm_python/lib/libhelm_c.so").write_text("v4.3.0")  # pip upgrades the SDK
    assert _sdk_found() == ("sdk", "helm-python-sdk 0.2.2 (Helm v4.3.0)") and len(asked) == 2
    (folder / "helm_python/__init__.py").write_text("__version__ = '0.2.2'\n")  # the same bytes, written again
    assert _sdk_found() == ("sdk", "helm-python-sdk 0.2.2 (Helm v4.3.0)") and len(asked) == 3
    (folder / "helm_python/lib/libhelm_c.so").write_text("broken")  # cannot load: never kept
    assert (_sdk_found(), _sdk_found(), len(asked)) == (None, None, 5)
    (folder / "helm_python/lib/libhelm_c.so").write_text("mute")  # an answer without Helm's version: never kept
    assert (_sdk_found(), _sdk_found(), len(asked)) == (None, None, 7)
    (folder / "helm_python/lib/libhelm_c.so").write_text("v4.3.0")
    assert _sdk_found() == ("sdk", "helm-python-sdk 0.2.2 (Helm v4.3.0)") and len(asked) == 8
    entry = max(Path(os.environ["HOOKLINT_CACHE_DIR"], "programs").iterdir(), key=lambda path: path.stat().st_mtime_ns)
    for kept in ('{"sdk": "0.2.2"}', '{"helm": "v4.3.0"}', "[]", "v4.3.0"):  # entries written otherwise: asked again
        entry.write_text(json.dumps({"answer": kept}))
        assert _sdk_found() == ("sdk", "helm-python-sdk 0.2.2 (Helm v4.3.0)")
    assert len(asked) == 12
    from hooklint.sources.render import helm

    monkeypatch.setenv("HELM_C_LIB", str(folder / "helm_python/lib/libhelm_c.so"))  # the user's library: not kept,
    assert helm._find_sdk()[1].label() == "helm-python-sdk 0.2.2 (Helm v4.3.0)" and len(asked) == 13  # nor taken for another
    assert (_sdk_found(), _sdk_found(), len(asked)) == (("sdk", "helm-python-sdk 0.2.2 (Helm v4.3.0)"),) * 2 + (15,)
    monkeypatch.delenv("HELM_C_LIB")
    shutil.rmtree(folder / "helm_python/lib")  # a library elsewhere (HELM_C_LIB's case): another question
    assert _sdk_found() == ("sdk", "helm-python-sdk 0.2.2 (Helm v4.2.3)") and len(asked) == 16
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")  # no cache folder: asked by every process, once
    helm._SDK_ANSWERS.clear()
    assert [helm._find_sdk()[0], helm._find_sdk()[0], len(asked)] == ["sdk", "sdk", 17]


@pytest.fixture
def sdk_chart(tmp_path, monkeypatch, isolated_cache):
    """A repository of one chart rendered by helm-python-sdk, as the current folder: ``(asked, run)``,
    ``run(drop=False)`` linting it as a new process would (``drop``: the result cache emptied
    first, as by a change to the configuration) and ``asked`` the ``op`` of each request the SDK's
    child was asked in that run."""
    from hooklint.sources.render import helm

    if helm.find_helm() is None or helm.find_helm()[0] != "sdk":
        pytest.skip("needs helm-python-sdk, not a helm binary")
    write(tmp_path / "repo", {"chart/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n", "chart/templates/job.yaml": HOOK})
    (tmp_path / "repo/.git").mkdir()
    aged(tmp_path / "repo")
    monkeypatch.chdir(tmp_path)
    asked: list[str] = []
    real = helm._ask_sdk
    monkeypatch.setattr(helm, "_ask_sdk", lambda request, *args, **kwargs: asked.append(request["op"]) or real(request, *args, **kwargs))

    def run(drop: bool = False) -> tuple[str, list[str]]:
        for kept in ("results", "runs") if drop else ():  # the result cache of the applications, and of the run
            shutil.rmtree(isolated_cache / kept, ignore_errors=True)
        helm.find_helm.cache_clear()  # as a new process
        helm._SDK_ANSWERS.clear()
        asked.clear()
        return lint(["repo"])

    return asked, run


#: The findings of :func:`sdk_chart`'s chart.
SDK_CHART_FINDINGS = [f"repo/chart/templates/job.yaml:{at} {rule}" for at, rule in [
    ("6:5", "HL305"), ("7:1", "HL201"), ("7:1", "HL202"), ("9:5", "HL103"), ("9:5", "HL104")]]  # fmt: skip


def test_a_chart_the_render_cache_answers_starts_no_helm_child(sdk_chart):
    """A run that re-lints an unchanged chart (its result not kept: here the result cache emptied,
    as by a change to the configuration) takes its rendering
    from the render cache, whose key holds the renderer's version: the SDK's version was asked of a
    child on every such run (an 85 MB Go library loaded, about 0.1 s of CPU), and is now read from
    the cache folder. The report is the same."""
    asked, run = sdk_chart
    first = run(drop=True)
    assert asked == ["version", "render"]
    assert run(drop=True) == first and asked == []
    assert first[1] == SDK_CHART_FINDINGS


def test_what_runs_the_helm_sdk_is_in_its_identity(tmp_path, monkeypatch):
    """Attacker trial 44, 1: the render cache keyed the SDK by its version alone and a run by its
    folder's signature, so a library replaced in place, or another one named by ``HELM_C_LIB``,
    was answered with what the one before rendered. The SDK's identity changes with each of its
    files and its library, and with ``HELM_C_LIB`` and what it names; not with Python's own writes."""
    from hooklint import files

    folder = tmp_path / "site"
    write(folder, {"helm_python/__init__.py": "", "helm_python/lib/libhelm_c.so": "one", "mine/libhelm_c.so": "two"})
    seen = [files.sdk_identity(str(folder))]
    (folder / "helm_python/__pycache__").mkdir()
    (folder / "helm_python/__pycache__/x.pyc").write_text("")
    assert files.sdk_identity(str(folder)) == seen[0]
    (folder / "helm_python/lib/libhelm_c.so").write_text("ONE")  # the same size, in place
    seen.append(files.sdk_identity(str(folder)))
    monkeypatch.setenv("HELM_C_LIB", str(folder / "mine/libhelm_c.so"))
    seen.append(files.sdk_identity(str(folder)))
    (folder / "mine/libhelm_c.so").write_text("TWO")
    seen.append(files.sdk_identity(str(folder)))
    monkeypatch.setenv("HELM_C_LIB", str(folder / "mine"))  # a folder of libraries
    seen.append(files.sdk_identity(str(folder)))
    (folder / "mine/libhelm_c.so.1").write_text("three")
    seen.append(files.sdk_identity(str(folder)))
    assert len({json.dumps(identity) for identity in seen}) == 6
    assert seen[-1][:2] == [str(folder), str(folder / "mine")]


def test_a_chart_rendered_with_another_helm_library_is_rendered_again(sdk_chart, monkeypatch):
    """Attacker trial 44, 1: ``HELM_C_LIB`` set after a run (here naming the library the SDK loads
    anyway, so the report stays the same) was in neither the run's key nor the rendering's: the
    run was answered whole. Now both miss; with the results dropped, the rendering is the one that
    library made (its version is asked again: never kept under ``HELM_C_LIB``)."""
    from hooklint.sources.render import helm

    asked, run = sdk_chart
    library = next(Path(helm._sdk_path(), "helm_python", "lib").glob("libhelm_c.*"))
    first = run()
    assert asked == ["version", "render"]
    monkeypatch.setenv("HELM_C_LIB", str(library))
    assert run() == first and asked == ["version", "render"]
    assert run(drop=True) == first and asked == ["version"]  # the rendering this library made
    monkeypatch.delenv("HELM_C_LIB")
    assert run() == first and asked == []  # the run before, answered whole


def test_a_cache_folder_inside_what_a_run_lints_is_not_used(tmp_path, monkeypatch):
    """Attacker trial 44, 2: a tree that is no Git work tree (an unpacked release), linted with
    its cache folder inside it: the run's entry left out the cache folder's paths, so a hook
    added there was answered as clean, and the entries themselves were linted by one run and
    not by another. A cache folder at, inside or above where the run may read (outside Git: the
    current folder, when it holds what is linted) is not used."""
    from hooklint import files

    write(tmp_path / "tree", {"app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"})
    (tmp_path / "tree/hlcache").mkdir()
    monkeypatch.chdir(tmp_path / "tree")
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / "tree/hlcache"))
    runner = CliRunner()
    done = runner.invoke(app, ["lint", "-f", "concise", "."])
    assert (done.exit_code, done.output.splitlines()[0]) == (0, "0 errors, 0 warnings, 0 notes in 1 file")
    assert os.listdir(tmp_path / "tree/hlcache") == []  # nothing written there
    write(tmp_path / "tree/hlcache", {"job.yaml": HOOK})
    cached = runner.invoke(app, ["lint", "-f", "concise", "."])
    uncached = runner.invoke(app, ["lint", "-f", "concise", "--no-cache", "."])
    assert (cached.exit_code, cached.output) == (uncached.exit_code, uncached.output)
    assert cached.exit_code == 1 and "hlcache/job.yaml:9:5: HL104" in cached.output
    for named, boundary in [(".", "tree"), ("app", "tree"), ("hlcache/job.yaml", "tree"), (str(tmp_path), "")]:
        files.linting([named])
        assert files.cache_refusal(str(tmp_path / "tree/hlcache")) == (
            f"it is at, inside or above {os.path.realpath(tmp_path / boundary)}, where this run reads")
    write(tmp_path / "elsewhere", {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"})
    files.linting([str(tmp_path / "elsewhere")])  # a run of a folder outside the current one uses it
    assert files.cache_refusal(str(tmp_path / "tree/hlcache")) is None
    files.linting(["-"])  # standard input: no path, nowhere read
    assert files.cache_refusal(str(tmp_path / "tree/hlcache")) is None
    files.linting([str(tmp_path / "elsewhere/cm.yaml")])  # a file outside the current folder: its folder
    assert files.cache_refusal(str(tmp_path / "elsewhere/.cache")) == (
        f"it is at, inside or above {os.path.realpath(tmp_path / 'elsewhere')}, where this run reads")
    (tmp_path / "elsewhere/.git").mkdir()
    files.linting(["app", str(tmp_path / "elsewhere/cm.yaml")])  # in a Git work tree: the work tree
    assert files.cache_refusal(str(tmp_path / "elsewhere/.cache")) == (
        f"it is inside the Git work tree {tmp_path / 'elsewhere'}, whose files a pull request can write")


def test_a_cache_folder_where_a_renderer_of_the_run_may_read_is_not_used(tmp_path, monkeypatch):
    """Attacker trial 45, 1: outside Git a kustomization may read anywhere in the current folder;
    one of ``app`` naming ``../cache/x`` read a folder beside ``app`` that was the cache folder,
    whose paths the result cache leaves out of a run's inputs: ``x/job.yaml`` made privileged
    after a run was answered clean. The cache folder is inside the current folder that holds
    ``app``: it is not used."""
    if shutil.which("kubectl") is None:
        pytest.skip("needs kubectl")
    write(tmp_path / "tree", {"app/kustomization.yaml": "resources:\n- ../cache/x\n",
                              "cache/x/kustomization.yaml": "resources:\n- job.yaml\n", "cache/x/job.yaml": HOOK})  # fmt: skip
    aged(tmp_path / "tree")
    monkeypatch.chdir(tmp_path / "tree")
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / "tree/cache"))
    first = lint(["app"])
    _edited_keeping_times(tmp_path / "tree/cache/x/job.yaml", "name: migrate", "name: migrat2")
    again = lint(["app"])
    assert again[0] == no_cache_lint(["app"]) != first[0] and '"name": "migrat2"' in again[0]
    assert sorted(os.listdir(tmp_path / "tree/cache")) == ["x"]  # nothing written there


def test_a_renderer_that_may_run_another_program_is_asked_every_run_and_keeps_no_result(tmp_path, monkeypatch):
    """Attacker trial 45, 3: ``helm`` on ``PATH`` a link to a dispatcher (as snap links
    ``/snap/bin/helm`` to ``/usr/bin/snap``) that runs ``current/helm``; a refresh re-points
    ``current``, and neither the program's path nor its file changes: its remembered version, the
    render key and the result key stayed, and a cached run answered with the old helm's rendering.
    A program linked to a file of another name, or smaller than a program (a script), is a wrapper:
    its version is asked on every run, and while one is on ``PATH`` no result is kept."""
    from hooklint import files
    from hooklint.results import run_cache

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    big = bin_dir / "kubectl"
    with open(big, "wb") as handle:  # a program's size, sparse
        handle.truncate(files.WRAPPER_BYTES)
    (tmp_path / "snap").write_bytes(b"")
    os.truncate(tmp_path / "snap", files.WRAPPER_BYTES)
    (bin_dir / "helm").symlink_to(tmp_path / "snap")
    (bin_dir / "kustomize").write_text("#!/bin/sh\nexec \"$HOME/kustomize/current/kustomize\" \"$@\"\n")
    assert [files.dispatched(str(bin_dir / name)) for name in ("kubectl", "helm", "kustomize", "missing")] == [
        False, True, True, False]  # fmt: skip
    monkeypatch.setenv("PATH", str(bin_dir))
    assert run_cache(Config()) is None
    (bin_dir / "helm").unlink()
    (bin_dir / "kustomize").unlink()
    assert run_cache(Config()) is not None
