"""The run's node budget: ``max-run-nodes``, the YAML nodes one hooklint command may parse in all.

``max-file-size`` and the node limit of :mod:`hooklint.yamlio` (1,000,000 per file, per rendering)
bound one file; nothing bounded their sum. Each node parsed costs hooklint about 90 bytes of Python
objects, and one application's files are all held at once (attack 15, break 2: 16 identical copies
of a 5.8 MB file of 990,000 nodes, one 2 MiB git blob, took 1.44 GB; 100 copies would take 9 GB).
The run's deadline does not help: at 3 s a copy, 300 s read 100 of them.

:func:`hooklint.yamlio.iter_documents` charges every document it reads here (:func:`spend`:
the count the per-file limit takes already, so counting costs nothing more) and reads no document
once the budget is spent; a document that would go past it stops where it does
(:func:`left`). Then :class:`RunNodesSpent` is raised: a :class:`~hooklint.deadline.RunTimeout`,
so everything that stops a run at its deadline stops it here too, and the pipeline reports the
applications not checked in one input error (exit code 2), their files as not linted, and what
it did check as usual (:func:`hooklint.pipeline.not_checked`). Never a silent pass.

Counted: what :func:`~hooklint.yamlio.iter_documents` reads (manifests, Applications,
renderings). Not counted: the YAML read with PyYAML (kustomizations, value files, the
configuration: each text under the per-file limit). An application the result cache answers is
not parsed, but the nodes its loading parsed (kept in its entry) are spent as if it were, and one
the budget runs out in is linted (:meth:`hooklint.results.ResultCache.lookup`): a run stops where
a run without the cache stops (attacker trial 42: a hit spent nothing, and each warm run got
further). A run that stopped at the budget is never kept whole.

With ``--jobs N``, each worker may parse its share of what the parent left
(:func:`hooklint.pipeline._worker_init`), so the run's total, and the memory its workers hold at
once, stay within the budget; such a run stops at its limit too, though maybe at another
application than ``--jobs 1`` does.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from hooklint.deadline import RunTimeout

#: [nodes left, the limit as configured]; None: no budget.
_budget: list[int] | None = None


class RunNodesSpent(RunTimeout):
    """The run parsed its ``max-run-nodes`` YAML nodes (``limit``); ``str()`` says so. A
    :class:`~hooklint.deadline.RunTimeout` in all but its name and remedy (see the module)."""

    #: What the error tells the user to do.
    remedy = "raise the limit with --max-run-nodes NODES"

    def __init__(self, limit: int) -> None:
        BaseException.__init__(self, f"the run reached its limit of {limit:,} YAML nodes (limit: max-run-nodes)")
        self.limit = limit

    def __str__(self) -> str:
        return str(self.args[0])


def start(nodes: int, limit: int | None = None) -> None:
    """A budget of ``nodes`` from now on (replacing any); ``limit`` is the limit as configured,
    which messages name (default ``nodes``: a worker is given a share of its parent's)."""
    global _budget
    _budget = [max(0, int(nodes)), int(nodes if limit is None else limit)]


def stop() -> None:
    """No budget any more."""
    global _budget
    _budget = None


def left() -> int | None:
    """Nodes the run may still parse (None: no budget)."""
    return _budget[0] if _budget is not None else None


def limit() -> int | None:
    """The running budget's limit as configured (None: none running)."""
    return _budget[1] if _budget is not None else None


def check() -> None:
    """Raise :class:`RunNodesSpent` when the budget is spent (no node left)."""
    if _budget is not None and _budget[0] <= 0:
        raise RunNodesSpent(_budget[1])


def spend(nodes: int) -> None:
    """Charge ``nodes`` nodes parsed to the budget (nothing without one)."""
    if _budget is not None:
        _budget[0] -= nodes


def spent() -> RunNodesSpent:
    """The :class:`RunNodesSpent` of the running budget, the budget marked spent (to raise when a
    document went past it)."""
    assert _budget is not None
    _budget[0] = 0
    return RunNodesSpent(_budget[1])


@contextmanager
def running(nodes: int) -> Iterator[None]:
    """A budget of ``nodes`` for the block, unless one is running already (a command's budget
    covers the pipelines it runs). The one started here is stopped after the block."""
    if _budget is not None:
        yield
        return
    start(nodes)
    try:
        yield
    finally:
        stop()
