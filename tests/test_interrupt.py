"""SIGTERM and Ctrl-C end a run cleanly: exit 143 or 130, one line on stderr, no traceback, no
temporary file or folder left, no renderer left running (issue 19, class 9).

The runs are real subprocesses. Rendering is made slow by a stand-in ``kustomize`` first on
``PATH``: it answers ``version`` at once and sleeps on ``build``, after writing its process id to a
file the test waits for (by then hooklint's temporary copy of the kustomization exists)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

JOB = """\
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
          image: busybox:1.36
"""


@pytest.fixture
def slow(tmp_path):
    """``(bin folder, pid folder)``: a ``kustomize`` that builds for a minute."""
    bin_dir, pids = tmp_path / "bin", tmp_path / "pids"
    bin_dir.mkdir()
    pids.mkdir()
    script = bin_dir / "kustomize"
    script.write_text(f"""#!/bin/sh
if [ "$1" = version ]; then echo v5.5.0; exit 0; fi
echo $$ > {pids}/tmp.$$ && mv {pids}/tmp.$$ {pids}/pid.$$
exec sleep 60
""")
    script.chmod(0o755)
    yield bin_dir, pids
    for pid in _pids(pids):  # whatever the outcome, nothing of the test keeps running
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _pids(folder: Path) -> list[int]:
    return [int(p.read_text()) for p in folder.glob("pid.*")]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _kustomization(folder: Path, name: str) -> None:
    folder.mkdir(parents=True)
    (folder / "job.yaml").write_text(JOB.format(name=name))
    (folder / "kustomization.yaml").write_text("resources:\n  - job.yaml\n")


def _start(cwd: Path, tmpdir: Path, bin_dir: Path | None, *args: str) -> subprocess.Popen:
    tmpdir.mkdir(exist_ok=True)
    path = os.environ["PATH"] if bin_dir is None else f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    env = {**os.environ, "TMPDIR": str(tmpdir), "HOOKLINT_CACHE_DIR": "off", "PATH": path,
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}  # fmt: skip
    return subprocess.Popen([sys.executable, "-m", "hooklint", *args], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip


def _wait_for(pids: Path, count: int, process: subprocess.Popen) -> list[int]:
    deadline = time.monotonic() + 60
    while len(_pids(pids)) < count:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the renderer never started"
        time.sleep(0.05)
    return _pids(pids)


def _leftovers(tmpdir: Path) -> list[str]:
    return sorted(str(p.relative_to(tmpdir)) for p in tmpdir.rglob("*"))


@pytest.mark.parametrize("signum, code, name", [(signal.SIGTERM, 143, "SIGTERM"), (signal.SIGINT, 130, "SIGINT")])
def test_a_signal_while_kustomize_renders_ends_the_run_cleanly(tmp_path, slow, signum, code, name):
    bin_dir, pids = slow
    _kustomization(tmp_path / "repo" / "app", "migrate")
    tmpdir = tmp_path / "tmp"
    process = _start(tmp_path / "repo", tmpdir, bin_dir, "lint", "app")
    (pid,) = _wait_for(pids, 1, process)
    during = _leftovers(tmpdir)
    assert any("/hooklint-kustomize-" in p for p in during), during  # the copy the test must see go
    process.send_signal(signum)
    stdout, stderr = process.communicate(timeout=30)
    assert (process.returncode, stderr.decode(), stdout.decode()) == (code, f"hooklint: interrupted ({name})\n", "")
    assert _leftovers(tmpdir) == []
    assert not _alive(pid)


def test_sigterm_with_worker_processes_ends_every_worker_and_renderer_cleanly(tmp_path, slow):
    bin_dir, pids = slow
    repo = tmp_path / "repo"
    _kustomization(repo / "one", "one")
    _kustomization(repo / "two", "two")
    for i in range(70):  # enough files for the worker pool
        (repo / "plain" / f"f{i % 5}").mkdir(parents=True, exist_ok=True)
        (repo / "plain" / f"f{i % 5}" / f"c{i}.yaml").write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n")
    tmpdir = tmp_path / "tmp"
    process = _start(repo, tmpdir, bin_dir, "lint", "--jobs", "2", "one", "plain", "two")
    rendering = _wait_for(pids, 2, process)
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=30)
    assert (process.returncode, stderr.decode(), stdout.decode()) == (143, "hooklint: interrupted (SIGTERM)\n", "")
    assert _leftovers(tmpdir) == []
    assert [pid for pid in rendering if _alive(pid)] == []


def test_sigterm_during_diff_removes_the_revision_copies(tmp_path, slow):
    bin_dir, pids = slow
    repo = tmp_path / "repo"
    _kustomization(repo / "app", "migrate")
    git = ["git", "-c", "user.email=ci@example.com", "-c", "user.name=ci"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "one"], cwd=repo, check=True)
    tmpdir = tmp_path / "tmp"
    process = _start(repo, tmpdir, bin_dir, "diff", "HEAD")
    (pid,) = _wait_for(pids, 1, process)
    assert any("/hooklint-diff-" in p for p in _leftovers(tmpdir))
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=30)
    assert (process.returncode, stderr.decode(), stdout.decode()) == (143, "hooklint: interrupted (SIGTERM)\n", "")
    assert _leftovers(tmpdir) == []
    assert not _alive(pid)


@pytest.mark.parametrize("args, code", [(["lint", "app"], 1), (["lint", "missing"], 2), (["plan", "app"], 0)])
def test_a_run_that_ends_by_itself_leaves_nothing_in_the_temporary_folder(tmp_path, args, code):
    _kustomization(tmp_path / "repo" / "app", "migrate")
    tmpdir = tmp_path / "tmp"
    process = _start(tmp_path / "repo", tmpdir, None, *args)  # the real kustomize
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == code, stderr.decode()
    assert b"Traceback" not in stderr
    assert _leftovers(tmpdir) == []


def test_the_handlers_and_the_temporary_folder_are_restored_after_a_run(tmp_path, monkeypatch):
    import tempfile

    from hooklint.interrupt import Interrupted, guarded

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    with pytest.raises(Interrupted) as caught:
        with guarded() as root:
            assert os.path.dirname(root) == str(tmp_path) and os.path.basename(root).startswith("hooklint-run-")
            assert tempfile.gettempdir() == root and os.environ["TMPDIR"] == root
            inner = tempfile.mkdtemp(prefix="hooklint-kustomize-")
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # never reached: the handler raises
    assert (caught.value.signum, caught.value.exit_code, caught.value.name) == (signal.SIGTERM, 143, "SIGTERM")
    assert not os.path.exists(inner) and list(tmp_path.iterdir()) == []
    assert {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)} == before
    assert os.environ["TMPDIR"] == str(tmp_path) and tempfile.tempdir is None


def test_a_cache_entry_cut_short_leaves_no_temporary_file(tmp_path, monkeypatch):
    """Before: the temporary file of an entry was removed on no error at all (only an OSError
    was caught, and the file kept)."""
    from hooklint.files import store_entry
    from hooklint.interrupt import Interrupted

    class Cut(dict):
        def items(self):  # the JSON encoder asks a mapping's items: SIGTERM arrives while it writes
            raise Interrupted(signal.SIGTERM)

    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path))  # entries are written under the cache folder only
    entry = tmp_path / "kustomize" / "ab" / "abcd.json"
    with pytest.raises(Interrupted):
        store_entry(str(entry), Cut(a=1))
    assert list(entry.parent.iterdir()) == []
