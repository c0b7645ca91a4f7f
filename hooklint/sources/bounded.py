"""Renderers run in bounded child processes: a wall-clock limit, a memory limit, a process group of
their own and a clean signal path.

Every renderer hooklint starts (``kustomize build`` / ``kubectl kustomize``, the ``helm`` binary,
and the Helm SDK, which runs Go in a Python child of its own: :mod:`hooklint.sources.render._helm_child`)
goes through :func:`run`:

- the child starts a new session (``setsid``), so a Ctrl-C at the terminal reaches hooklint only,
  and hooklint kills the child's whole process group when the wall-clock limit passes or when any
  exception (``KeyboardInterrupt``, the one a SIGTERM handler raises, an error) leaves :func:`run`;
  on Linux the child also gets SIGKILL when hooklint dies without a chance to clean up
  (``PR_SET_PDEATHSIG``);
- its memory is limited with ``RLIMIT_DATA`` (private writable memory: what a Go heap or Python
  objects take), plus ``RLIMIT_AS`` as a backstop. ``RLIMIT_AS`` alone cannot be the limit: the
  Go runtime reserves address space it never uses (``kubectl kustomize`` of one ConfigMap fails
  with "failed to reserve page summary memory" below 700 MiB of address space, and runs with 64
  MiB of ``RLIMIT_DATA``). ``GOMEMLIMIT`` is set a little below the limit, so that Go collects
  garbage harder before it runs out;
- its output is read in memory, which the child's own limit bounds (renderers build their whole
  output before printing it).

The limits are the user's (``render-timeout``, ``render-memory`` in ``.hooklint.yaml``); a
configuration found in the repository may lower them, never raise them (:mod:`hooklint.config`).
:class:`Stopped` says which one a child ran into, or the signal that ended it. The run's own
deadline (``run-timeout``, :mod:`hooklint.deadline`) bounds every child too: none starts once it
has passed, none is waited for beyond it (its process group is killed and
:class:`~hooklint.deadline.RunTimeout` raised).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from typing import Any, Mapping

from hooklint import deadline
from hooklint.config import DEFAULT_MAX_FILE_SIZE, DEFAULT_RENDER_MEMORY, DEFAULT_RENDER_TIMEOUT

MIB = 1 << 20
#: Address space allowed beyond the memory limit (``RLIMIT_AS`` backstop): what the Go runtime
#: reserves without using (measured: ~700 MiB for kubectl, ~900 MiB for the Helm SDK child).
_ADDRESS_SPACE_SLACK = 4096 * MIB

#: What a child says when it runs out of memory: Go's runtime ("fatal error: runtime: out of
#: memory", "out of memory allocating heap arena map", "failed to reserve page summary memory"),
#: Python's MemoryError, C's ENOMEM.
_OUT_OF_MEMORY = re.compile(
    r"out of memory|failed to reserve .* memory|cannot allocate memory|\bMemoryError\b|std::bad_alloc", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class Limits:
    """The limits of one rendering: ``timeout`` in seconds of wall-clock time, ``memory`` in bytes,
    and ``max_file_size``, the bytes of the largest input file a renderer is handed (kustomization,
    resource, chart file, value file)."""

    timeout: float = DEFAULT_RENDER_TIMEOUT
    memory: int = DEFAULT_RENDER_MEMORY * MIB
    max_file_size: int = DEFAULT_MAX_FILE_SIZE

    @classmethod
    def of(cls, config: Any) -> "Limits":
        """The limits a :class:`~hooklint.config.Config` sets (``render_timeout`` seconds,
        ``render_memory`` MiB, ``max_file_size`` bytes)."""
        return cls(config.render_timeout, int(config.render_memory) * MIB, config.max_file_size)


class Stopped(Exception):
    """A child was stopped by a limit or ended by a signal. ``reason`` finishes a sentence whose
    subject is the rendering: ``stopped after 60 s (limit: render-timeout)``, ``used more than 2
    GiB of memory (limit: render-memory)``, ``was ended by signal SIGSEGV``; ``limit`` is the
    configuration key (None for a signal)."""

    def __init__(self, reason: str, limit: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.limit = limit


def size_text(size: int) -> str:
    """``2 GiB``, ``512 MiB``, ``1.5 GiB``: a byte count as the limits are written."""
    if size >= 1 << 30:
        value, unit = size / (1 << 30), "GiB"
    else:
        value, unit = size / MIB, "MiB"
    return f"{value:g} {unit}" if value == int(value) or unit == "MiB" else f"{value:.1f} {unit}"


def seconds_text(seconds: float) -> str:
    return f"{seconds:g} s"


def _prctl() -> Any:
    """libc's ``prctl``, resolved now (never in a forked child), or None off Linux."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes  # noqa: PLC0415

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _prctl()
_PR_SET_PDEATHSIG = 1


def _limiter(memory: int):
    """The ``preexec_fn`` of a child: its memory limits and death with its parent. It makes only
    system calls (a forked child of a threaded process may not take locks)."""
    import resource  # noqa: PLC0415 - imported here, in the parent, not after the fork

    address_space = memory + _ADDRESS_SPACE_SLACK
    prctl = _PRCTL

    def limit() -> None:
        for kind, value in ((resource.RLIMIT_DATA, memory), (resource.RLIMIT_AS, address_space)):
            soft, hard = resource.getrlimit(kind)
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(kind, (value, value if hard == resource.RLIM_INFINITY else hard))
        if prctl is not None:
            prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)

    return limit


def run(argv: list[str], *, cwd: str | None, env: Mapping[str, str], timeout: float, memory: int,
        input: str | None = None) -> subprocess.CompletedProcess:  # fmt: skip
    """Run ``argv`` (absolute program path first) in ``cwd`` with environment ``env`` (plus
    ``GOMEMLIMIT``), ``input`` on its stdin (else no stdin), within ``timeout`` seconds and
    ``memory`` bytes; returns the finished process with ``stdout`` and ``stderr`` as text (UTF-8,
    bad bytes replaced).

    Raises :class:`Stopped` when the time limit passed (the process group is killed), when the
    child ran out of memory (its exit status is non-zero and its error output says so) or when a
    signal ended it; OSError when it cannot start. Any exception raised while waiting (Ctrl-C's
    KeyboardInterrupt, SystemExit from a SIGTERM handler) kills the process group first.

    The run's deadline (:mod:`hooklint.deadline`) cuts ``timeout`` to the time left: no child is
    started once it has passed, and one still running when it passes is killed with its process
    group; both raise :class:`~hooklint.deadline.RunTimeout`."""
    timeout, by_run = deadline.bound(timeout)
    env = dict(env)
    env["GOMEMLIMIT"] = str(max(memory - memory // 8, 16 * MIB))
    with subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, preexec_fn=_limiter(memory),
    ) as child:  # fmt: skip
        try:
            out, err = child.communicate(input.encode("utf-8", "surrogateescape") if input is not None else None,
                                         timeout=timeout)  # fmt: skip
        except subprocess.TimeoutExpired:
            _kill_group(child)
            if by_run:
                raise deadline.expired() from None
            raise Stopped(f"stopped after {seconds_text(timeout)} (limit: render-timeout)", "render-timeout") from None
        except BaseException:
            _kill_group(child)
            raise
    stdout = out.decode("utf-8", "replace")
    stderr = err.decode("utf-8", "replace")
    if child.returncode != 0 and _OUT_OF_MEMORY.search(stderr):
        raise Stopped(f"used more than {size_text(memory)} of memory (limit: render-memory)", "render-memory")
    if child.returncode < 0:
        try:
            name = signal.Signals(-child.returncode).name
        except ValueError:
            name = f"signal {-child.returncode}"
        raise Stopped(f"was ended by signal {name}")
    return subprocess.CompletedProcess(argv, child.returncode, stdout, stderr)


def _kill_group(child: subprocess.Popen) -> None:
    """SIGKILL to the child's process group (its session: it is the leader), then reap it. Called
    before the child is reaped, so its group id cannot belong to anyone else."""
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        child.communicate(timeout=10)
    except BaseException:  # noqa: BLE001 - a second Ctrl-C: the group is dead already, only reaping is left
        child.kill()
