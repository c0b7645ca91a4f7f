"""Ending a run on SIGINT (Ctrl-C) or SIGTERM (a CI job cancelled, a timeout): cleanly, every time.

:func:`guarded` is what the command line runs inside. It installs a handler for both signals that
restores their default actions (a second signal ends the process at once) and raises
:class:`Interrupted`, a ``BaseException`` that no ``except Exception`` of a stage can take for a
render error and go on. On its way out every ``finally`` runs: temporary copies are removed
(``tempfile.TemporaryDirectory``, ``shutil.rmtree`` in ``finally``), child processes are killed
(``subprocess.run`` kills its child on any exception; the ``git cat-file`` of ``hooklint diff``
is killed by its context manager), and the worker pool is terminated (its workers clean up the
same way: :func:`worker_signals`). The command line then prints one line,
``hooklint: interrupted (SIGTERM)``, and exits 128 + the signal's number (130, 143), as a shell
reports a process its signal ended.

Every temporary file or folder of the run, and of its child processes (``TMPDIR``), lives in one
private folder, ``hooklint-run-*`` in the user's temporary folder, removed when the run ends
whatever ends it (success, an error, an internal error, a signal), with both signals blocked
meanwhile: a cleanup that a signal cut short leaves nothing behind either.
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
from contextlib import contextmanager
from typing import Any, Iterator

#: The signals that end a run cleanly.
SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived (``signum``); ``exit_code`` is 128 + its number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


def _raise(signum: int, frame: Any) -> None:
    for number in SIGNALS:
        signal.signal(number, signal.SIG_DFL)
    raise Interrupted(signum)


@contextmanager
def guarded() -> Iterator[str]:
    """Run the block with :class:`Interrupted` raised on SIGINT and SIGTERM, and with the
    process's temporary folder (``tempfile.tempdir`` and ``TMPDIR``, which child processes
    inherit) a private ``hooklint-run-*`` folder that is removed afterwards, signals blocked
    while it is. Yields that folder. Signal handlers and the temporary folder are restored after."""
    saved_tempdir, saved_env = tempfile.tempdir, os.environ.get("TMPDIR")
    root = tempfile.mkdtemp(prefix="hooklint-run-")
    handlers = {number: signal.getsignal(number) for number in SIGNALS}
    tempfile.tempdir = root
    os.environ["TMPDIR"] = root
    try:
        for number in SIGNALS:
            signal.signal(number, _raise)
        yield root
    finally:
        blocked = hasattr(signal, "pthread_sigmask")
        if blocked:
            signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
        try:
            from hooklint.files import remove_tree  # noqa: PLC0415 - shutil.rmtree recurses per level (3.11)

            remove_tree(root)
            tempfile.tempdir = saved_tempdir
            if saved_env is None:
                os.environ.pop("TMPDIR", None)
            else:
                os.environ["TMPDIR"] = saved_env
            for number, handler in handlers.items():
                signal.signal(number, handler if handler is not None else signal.SIG_DFL)
        finally:
            if blocked and not _pending():
                signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)
            # a signal that arrived during the cleanup stays blocked: the run is ending anyway,
            # with the exit code of the first one


def _pending() -> bool:
    try:
        return bool(set(signal.sigpending()) & set(SIGNALS))
    except (AttributeError, OSError):
        return False


def report(exc: Interrupted) -> None:
    """The one line the command line prints for ``exc``, and the exit with its code."""
    sys.stderr.write(f"hooklint: interrupted ({exc.name})\n")
    sys.stderr.flush()
    raise SystemExit(exc.exit_code)


# --- worker processes ------------------------------------------------------------------------

_busy = False


def _worker_signal(signum: int, frame: Any) -> None:
    if not _busy:  # between applications: nothing of this worker's to clean up
        os._exit(128 + signum)
    _raise(signum, frame)


def worker_signals() -> None:
    """For a worker process of the pool: SIGINT is ignored (Ctrl-C reaches the whole process
    group; the parent stops the pool), SIGTERM (``Pool.terminate``) raises :class:`Interrupted`
    while the worker lints (:func:`busy`), so that its temporary copies are removed and its
    children killed, and ends it at once otherwise."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _worker_signal)


@contextmanager
def busy() -> Iterator[None]:
    """A worker's task: an :class:`Interrupted` raised in it ends the worker process quietly (its
    ``finally`` blocks have run by then), with no traceback from the pool's bootstrap."""
    global _busy
    _busy = True
    try:
        yield
    except Interrupted as exc:
        os._exit(exc.exit_code)
    finally:
        _busy = False
