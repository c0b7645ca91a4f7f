"""The run's deadline: ``run-timeout``, the wall-clock seconds one hooklint command may take.

``render-timeout`` bounds one rendering, not a run: an ApplicationSet of a few lines can make
hundreds of Applications, each a chart rendering of its own (issue 32: a 7 KB ApplicationSet, 500
renderings of ~48 s each). The command line starts the deadline when a command starts
(:func:`running`); :func:`hooklint.pipeline.lint_paths` and :func:`~hooklint.pipeline.plan_paths`
start one of their own when none is running. It holds

- at every renderer: :func:`hooklint.sources.bounded.run` never starts a child once the deadline
  has passed, and waits for one no longer than the time left, then kills its process group and
  raises :class:`RunTimeout`;
- between applications: the pipeline starts none once the deadline has passed;
- at every file read (:func:`hooklint.files.read_bytes`): an application of many files, or the
  search for applications, stops there too;
- within one application: before each YAML document is read (:func:`hooklint.yamlio.iter_documents`)
  and before each object's checks and each whole-application check
  (:meth:`hooklint.engine.Engine.check_application`): a file of 70,000 documents stops too;
- across worker processes (``--jobs``): each worker gets the time left when it starts, and the
  parent stops the pool (its workers kill their renderers) when the time is up;
- inside any step of hooklint's own work that a check between steps cannot see into (a check over
  every pair of a large application's objects: attacker trial 15 ran 97 s past a 30 s limit in
  HL106): a ``SIGALRM`` timer set for the deadline (:func:`start`, in the main thread) raises
  :class:`RunTimeout` wherever the interpreter is, but only inside an :func:`armed` block (finding
  the applications, linting or planning one), whose caller takes the exception as "not checked";
  outside one (printing the report, writing a cache entry) the timer waits and fires again every
  :data:`RECHECK` seconds, so the next armed block stops at once.

What was left unchecked is never a silent pass: the pipeline reports the applications it did not
check in one input error (exit code 2), their files as not linted, and what it did check as usual.

:class:`RunTimeout` is a ``BaseException``, as :class:`hooklint.interrupt.Interrupted` is: no
``except Exception`` of a stage takes it for a render error (HL007) or an internal error.
"""

from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator

#: (monotonic time the run must end by, the limit in seconds as configured); None: no deadline.
_deadline: tuple[float, float] | None = None
#: Whether an :func:`armed` block is running whose timer has not raised yet: the timer raises only
#: then, once, and clears it first (so an ``except`` or ``finally`` that is running when it fires
#: again is never cut short; a later block checks the deadline on entry).
_armed = False
#: The ``SIGALRM`` handler before :func:`start` set the timer's (restored by :func:`stop`), or
#: False when no timer is set.
_previous: Any = False
#: Seconds between two firings of the timer once the deadline has passed outside an armed block.
RECHECK = 0.05


class RunTimeout(BaseException):
    """The run's deadline (``run-timeout``, ``limit`` seconds) passed; ``str()`` says so."""

    def __init__(self, limit: float) -> None:
        super().__init__(f"the run reached its time limit of {limit:g} s (limit: run-timeout)")
        self.limit = limit

    def __str__(self) -> str:
        return str(self.args[0])


def start(seconds: float, limit: float | None = None) -> None:
    """Start a deadline ``seconds`` from now (replacing any); ``limit`` is the limit as
    configured, which messages name (default ``seconds``: a worker process is given the time left
    of its parent's run, and says the run's limit). In the main thread of a process with
    ``SIGALRM``, also sets the timer that stops an :func:`armed` block at the deadline."""
    global _deadline, _previous
    _deadline = (time.monotonic() + seconds, float(seconds if limit is None else limit))
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        return
    if _previous is False:
        _previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001))


def stop() -> None:
    """No deadline any more (its timer cancelled, the previous ``SIGALRM`` handler back)."""
    global _deadline, _previous
    _deadline = None
    if _previous is not False:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, _previous if _previous is not None else signal.SIG_DFL)
        _previous = False


def _alarm(signum: int, frame: Any) -> None:
    """The timer's handler: :class:`RunTimeout` inside an :func:`armed` block once the deadline
    has passed; else the timer is set again (for the time left, or :data:`RECHECK`)."""
    global _armed
    if _deadline is None:
        return
    left = _deadline[0] - time.monotonic()
    if left <= 0 and _armed:
        _armed = False
        raise RunTimeout(_deadline[1])
    signal.setitimer(signal.ITIMER_REAL, left if left > 0 else RECHECK)


@contextmanager
def armed() -> Iterator[None]:
    """A block that the deadline's timer may stop anywhere (:class:`RunTimeout`); the caller takes
    it as "not checked". Checks the deadline on entry."""
    global _armed
    check()
    outer, _armed = _armed, True
    try:
        yield
    finally:
        _armed = outer and _armed


def active() -> bool:
    """Whether a deadline is running."""
    return _deadline is not None


def limit() -> float | None:
    """The running deadline's limit in seconds, as configured (None: none running)."""
    return _deadline[1] if _deadline is not None else None


def remaining() -> float | None:
    """Seconds left before the deadline (0 once passed; None: no deadline)."""
    if _deadline is None:
        return None
    return max(0.0, _deadline[0] - time.monotonic())


def check() -> None:
    """Raise :class:`RunTimeout` when the deadline has passed."""
    if _deadline is not None and time.monotonic() >= _deadline[0]:
        raise RunTimeout(_deadline[1])


def bound(timeout: float) -> tuple[float, bool]:
    """A wait of ``timeout`` seconds cut to the time left: ``(seconds, whether the deadline is the
    bound)``. Raises :class:`RunTimeout` when no time is left."""
    check()
    left = remaining()
    if left is not None and left < timeout:
        return left, True
    return timeout, False


def expired() -> RunTimeout:
    """The :class:`RunTimeout` of the running deadline (to raise when a bounded wait ran out)."""
    assert _deadline is not None
    return RunTimeout(_deadline[1])


@contextmanager
def running(seconds: float) -> Iterator[None]:
    """A deadline ``seconds`` from now for the block, unless one is running already (a command's
    deadline covers the pipelines it runs: one per run, not one per call). The one started here is
    stopped after the block."""
    if _deadline is not None:
        yield
        return
    start(seconds)
    try:
        yield
    finally:
        stop()
