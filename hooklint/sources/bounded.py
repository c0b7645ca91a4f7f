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
- both are set by util-linux's ``prlimit`` and ``setpriv --pdeathsig`` put in front of the program
  (:func:`launcher`, found only in the system's own folders, never through ``PATH``) where they
  exist, so that Python starts the child with ``vfork``: a ``preexec_fn`` makes it ``fork`` the
  whole interpreter instead, whose page tables cost ~6 ms of CPU per child once hooklint holds
  100 MB (measured: 50 children of a 100 MB process, 0.29 s against 0.03 s). Without them the
  same limits are set by a ``preexec_fn``;
- its memory is limited with ``RLIMIT_DATA`` (private writable memory: what a Go heap or Python
  objects take), plus ``RLIMIT_AS`` as a backstop. ``RLIMIT_AS`` alone cannot be the limit: the
  Go runtime reserves address space it never uses (``kubectl kustomize`` of one ConfigMap fails
  with "failed to reserve page summary memory" below 700 MiB of address space, and runs with 64
  MiB of ``RLIMIT_DATA``). ``GOMEMLIMIT`` is set a little below the limit, so that Go collects
  garbage harder before it runs out (kustomize also gets ``GOGC=400``:
  :func:`hooklint.sources.render.kustomize.render_kustomize`);
- its output (stdout, and stderr) is read as it comes, at most ``render-output`` MiB of each: a
  child that prints more is killed with its process group. The child's own memory limit does not
  bound what hooklint holds: a renderer that prints 700,000 small documents took 2.6 GB in
  hooklint once they were parsed. What is read is then split into objects (YAML documents), at most
  ``render-objects`` of them (:class:`Tally`; counted again once parsed, each item of a ``kind:
  List`` one object: :func:`hooklint.sources.render.render`), and parsed with one budget of YAML nodes for the
  whole rendering (:class:`hooklint.yamlio.NodeBudget`), so a rendering costs hooklint bounded
  memory.

The limits are the user's (``render-timeout``, ``render-memory``, ``render-output``,
``render-objects`` in ``.hooklint.yaml``); a configuration found in the repository may lower them,
never raise them (:mod:`hooklint.config`).
:class:`Stopped` says which one a child ran into, or the signal that ended it. The run's own
deadline (``run-timeout``, :mod:`hooklint.deadline`) bounds every child too: none starts once it
has passed, none is waited for beyond it (its process group is killed and
:class:`~hooklint.deadline.RunTimeout` raised).
"""

from __future__ import annotations

import errno
import functools
import os
import re
import select
import selectors
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any, Mapping

from hooklint import deadline
from hooklint.config import (DEFAULT_MAX_FILE_SIZE, DEFAULT_RENDER_MEMORY, DEFAULT_RENDER_OBJECTS, DEFAULT_RENDER_OUTPUT,
                             DEFAULT_RENDER_TIMEOUT)  # fmt: skip

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
    ``max_file_size``, the bytes of the largest input file a renderer is handed (kustomization,
    resource, chart file, value file), ``output`` the bytes it may print (on stdout, and on stderr)
    and ``objects`` the objects (YAML documents) its output may hold."""

    timeout: float = DEFAULT_RENDER_TIMEOUT
    memory: int = DEFAULT_RENDER_MEMORY * MIB
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    output: int = DEFAULT_RENDER_OUTPUT * MIB
    objects: int = DEFAULT_RENDER_OBJECTS

    @classmethod
    def of(cls, config: Any) -> "Limits":
        """The limits a :class:`~hooklint.config.Config` sets (``render_timeout`` seconds,
        ``render_memory`` MiB, ``max_file_size`` bytes, ``render_output`` MiB, ``render_objects``)."""
        return cls(config.render_timeout, int(config.render_memory) * MIB, config.max_file_size,
                   int(config.render_output) * MIB, int(config.render_objects))  # fmt: skip


class Stopped(Exception):
    """A child was stopped by a limit or ended by a signal. ``reason`` finishes a sentence whose
    subject is the rendering: ``stopped after 60 s (limit: render-timeout)``, ``used more than 2
    GiB of memory (limit: render-memory)``, ``was ended by signal SIGSEGV``; ``limit`` is the
    configuration key (None for a signal)."""

    def __init__(self, reason: str, limit: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.limit = limit


#: How a limit of this module is raised, after its name in a :class:`Stopped` reason: never by a
#: configuration found in the repository (:data:`hooklint.config.LIMITS`).
_HOW_TO_RAISE = "a configuration named with --config may raise it"


class Tally:
    """The objects (YAML documents) a rendering's output has held so far, against ``limit``
    (``render-objects``): :meth:`add` counts one more, while the output is split, before any is
    parsed."""

    __slots__ = ("limit", "count")

    def __init__(self, limit: int = DEFAULT_RENDER_OBJECTS):
        self.limit = limit
        self.count = 0

    def add(self) -> None:
        """Count one object. Raises :class:`Stopped` (``render-objects``) past the limit."""
        self.count += 1
        if self.count > self.limit:
            raise Stopped(f"printed more than {self.limit:,} objects (limit: render-objects; {_HOW_TO_RAISE})",
                          "render-objects")  # fmt: skip


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


def _rlimits(memory: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The ``(soft, hard)`` ``RLIMIT_DATA`` and ``RLIMIT_AS`` of a child limited to ``memory``
    bytes: each limit at most this process's hard limit, and hard as well when that is unlimited
    (the child cannot raise it again)."""
    import resource  # noqa: PLC0415 - a renderer's start only

    limits = []
    for kind, value in ((resource.RLIMIT_DATA, memory), (resource.RLIMIT_AS, memory + _ADDRESS_SPACE_SLACK)):
        hard = resource.getrlimit(kind)[1]
        limits.append((value, value) if hard == resource.RLIM_INFINITY else (min(value, hard), hard))
    return limits[0], limits[1]


#: Where :func:`launcher` looks for util-linux's programs: the system's own folders, never ``PATH``
#: (which a user's shell, or a repository's tooling, may put first).
_SYSTEM_DIRS = ("/usr/bin", "/bin")


@functools.lru_cache(maxsize=1)
def _util_linux() -> tuple[str, str] | None:
    """``(prlimit, setpriv)``'s absolute paths when both are in :data:`_SYSTEM_DIRS` and this
    ``setpriv`` knows ``--pdeathsig`` (util-linux 2.33 and later), else None."""
    if not sys.platform.startswith("linux"):
        return None
    found = []
    for name in ("prlimit", "setpriv"):
        path = next((os.path.join(d, name) for d in _SYSTEM_DIRS if os.access(os.path.join(d, name), os.X_OK)), None)
        if path is None:
            return None
        found.append(path)
    try:
        done = subprocess.run([found[1], "--pdeathsig", "KILL", "--", found[1], "--version"], capture_output=True,
                              timeout=10, env={"PATH": ""}, stdin=subprocess.DEVNULL, check=False)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return (found[0], found[1]) if done.returncode == 0 else None


def launcher(memory: int) -> tuple[str, ...] | None:
    """The argv prefix that starts a child limited to ``memory`` bytes (``RLIMIT_DATA``;
    ``RLIMIT_AS`` ``memory`` plus :data:`_ADDRESS_SPACE_SLACK`) that is killed when hooklint dies:
    ``(<prlimit>, "--data=S:H", "--as=S:H", "--", <setpriv>, "--pdeathsig", "KILL", "--")``, or
    None where util-linux's ``prlimit`` and ``setpriv`` are missing (the limits are then set by a
    ``preexec_fn``: :func:`_limiter`). The parent-death signal survives the ``unshare`` of
    :func:`hooklint.sources.sandbox.network_isolation` that may follow (tested)."""
    tools = _util_linux()
    if tools is None:
        return None
    (data, data_hard), (space, space_hard) = _rlimits(memory)
    return (tools[0], f"--data={data}:{data_hard}", f"--as={space}:{space_hard}", "--",
            tools[1], "--pdeathsig", "KILL", "--")  # fmt: skip


def _limiter(memory: int):
    """The ``preexec_fn`` of a child where :func:`launcher` has no programs: its memory limits and
    death with its parent. It makes only system calls (a forked child of a threaded process may
    not take locks)."""
    import resource  # noqa: PLC0415 - imported here, in the parent, not after the fork

    (data, data_hard), (space, space_hard) = _rlimits(memory)
    prctl = _PRCTL

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_DATA, (data, data_hard))
        resource.setrlimit(resource.RLIMIT_AS, (space, space_hard))
        if prctl is not None:
            prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)

    return limit


def run(argv: list[str], *, cwd: str | None, env: Mapping[str, str], timeout: float, memory: int,
        input: str | None = None, output: int = DEFAULT_RENDER_OUTPUT * MIB) -> subprocess.CompletedProcess:  # fmt: skip
    """Run ``argv`` (absolute program path first) in ``cwd`` with environment ``env`` (plus
    ``GOMEMLIMIT``), ``input`` on its stdin (else no stdin), within ``timeout`` seconds and
    ``memory`` bytes, printing at most ``output`` bytes on stdout and on stderr each; returns the
    finished process with ``stdout`` and ``stderr`` as text (UTF-8, bad bytes replaced).

    Raises :class:`Stopped` when the time limit passed or the output limit was passed (the process
    group is killed; no more than ``output`` bytes and one read are held), when the child ran out
    of memory (its exit status is non-zero and its error output says so) or when a signal ended it;
    OSError when it cannot start. Any exception raised while waiting (Ctrl-C's KeyboardInterrupt,
    SystemExit from a SIGTERM handler) kills the process group first.

    The run's deadline (:mod:`hooklint.deadline`) cuts ``timeout`` to the time left: no child is
    started once it has passed, and one still running when it passes is killed with its process
    group; both raise :class:`~hooklint.deadline.RunTimeout`."""
    timeout, by_run = deadline.bound(timeout)
    env = dict(env)
    env["GOMEMLIMIT"] = str(max(memory - memory // 8, 16 * MIB))
    prefix = launcher(memory)
    if prefix is not None and not os.access(argv[0], os.X_OK):  # as Popen says it, not the launcher's exit 127
        raise FileNotFoundError(errno.ENOENT if not os.path.exists(argv[0]) else errno.EACCES,
                                "cannot run this program", argv[0])  # fmt: skip
    with subprocess.Popen(
        [*prefix, *argv] if prefix is not None else argv, cwd=cwd, env=env,
        stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, start_new_session=True, preexec_fn=_limiter(memory) if prefix is None else None,
    ) as child:  # fmt: skip
        try:
            out, err = _collect(child, input.encode("utf-8", "surrogateescape") if input is not None else None,
                                timeout, output)  # fmt: skip
        except subprocess.TimeoutExpired:
            _kill_group(child)
            if by_run:
                raise deadline.expired() from None
            raise Stopped(f"stopped after {seconds_text(timeout)} (limit: render-timeout)", "render-timeout") from None
        except _TooMuchOutput:
            _kill_group(child)
            raise Stopped(f"printed more than {size_text(output)} of output (limit: render-output; {_HOW_TO_RAISE})",
                          "render-output") from None  # fmt: skip
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


class _TooMuchOutput(Exception):
    """The child printed more than its output limit (:func:`_collect`)."""


#: Bytes read from a child's stdout or stderr at a time, and written to its stdin (a pipe the
#: selector found writable takes ``PIPE_BUF`` bytes without blocking).
_READ_SIZE = 1 << 16
_PIPE_BUF = getattr(select, "PIPE_BUF", 512)


def _collect(child: subprocess.Popen, data: bytes | None, timeout: float, limit: int) -> tuple[bytes, bytes]:
    """What ``child`` prints on stdout and stderr, read as it comes until both are closed and the
    child has ended, ``data`` written to its stdin meanwhile (then closed); ``communicate``
    without its unbounded reads. Raises subprocess.TimeoutExpired after ``timeout`` seconds,
    :class:`_TooMuchOutput` as soon as either stream passes ``limit`` bytes."""
    end = time.monotonic() + timeout
    stdout, stderr = child.stdout, child.stderr
    assert stdout is not None and stderr is not None  # started with PIPE
    chunks: dict[int, list[bytes]] = {stdout.fileno(): [], stderr.fileno(): []}
    sizes = dict.fromkeys(chunks, 0)
    writing, stdin_fd, offset = child.stdin, -1, 0
    view = memoryview(data or b"")
    with selectors.DefaultSelector() as selector:
        for fd in chunks:
            selector.register(fd, selectors.EVENT_READ)
        if writing is not None:
            if view:
                stdin_fd = writing.fileno()
                selector.register(stdin_fd, selectors.EVENT_WRITE)
            else:
                writing.close()
        while selector.get_map():
            left = end - time.monotonic()
            if left <= 0:
                raise subprocess.TimeoutExpired(child.args, timeout)
            for key, _ in selector.select(left):
                fd = key.fd
                if fd == stdin_fd:
                    try:
                        offset += os.write(fd, view[offset : offset + _PIPE_BUF])
                    except BrokenPipeError:  # the child stopped reading: what it printed says why
                        offset = len(view)
                    if offset >= len(view) and writing is not None:
                        selector.unregister(fd)
                        writing.close()
                        stdin_fd = -1
                    continue
                chunk = os.read(fd, _READ_SIZE)
                if not chunk:
                    selector.unregister(fd)
                    continue
                sizes[fd] += len(chunk)
                if sizes[fd] > limit:
                    raise _TooMuchOutput
                chunks[fd].append(chunk)
    child.wait(timeout=max(end - time.monotonic(), 0))
    return b"".join(chunks[stdout.fileno()]), b"".join(chunks[stderr.fileno()])


def _kill_group(child: subprocess.Popen) -> None:
    """SIGKILL to the child's process group (its session: it is the leader), then reap it. Called
    before the child is reaped, so its group id cannot belong to anyone else. Its pipes are closed
    unread first: a process that left the group and still writes to them is not waited for, and
    what it writes is never held."""
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    for pipe in (child.stdin, child.stdout, child.stderr):
        try:
            if pipe is not None:
                pipe.close()
        except OSError:
            pass
    try:
        child.wait(timeout=10)
    except BaseException:  # noqa: BLE001 - a second Ctrl-C: the group is dead already, only reaping is left
        child.kill()
