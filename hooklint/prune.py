"""The cache folder kept under a size cap: after a run that wrote cache entries, when the folder
(:func:`hooklint.files.cache_dir`) holds more than ``$HOOKLINT_CACHE_MAX_MB`` MiB of entries
(default :data:`DEFAULT_MAX_MB`; ``0``: no cap), the least recently used entries are removed until
it holds at most :data:`KEEP_FRACTION` of the cap, as ccache bounds its cache.

What is counted and removed: the JSON entries of the render cache (renderings, failed renders and
their redacted messages, the input hashes of :func:`hooklint.sources.render.cache.input_key`,
renderer versions) and of the result cache (``results/``, ``runs/``), by their size in bytes, and
the temporary files of writes a killed process left (older than an hour). The fetch step's
downloads (``fetch/``) are neither counted nor removed: a concurrent run may be reading one.

"Recently used" is an entry's modification time: set when it is written, and set again when it is
read more than an hour after (:func:`hooklint.files.read_entry`: a warm run writes nothing). Keys
hold hooklint's version and the signature of its own files, so an entry of another version is
never read again: its time stops moving and it is among the first removed.

Why a stamp, not a running total: the folder is sized by walking it, at most once an hour
(:data:`CHECK_EVERY_S`, the time of the stamp file ``prune-checked`` in the folder); a run within the
hour after a check costs one ``lstat`` of the stamp. A running total kept in a file would need a
lock shared by concurrent runs and workers, and would drift as entries are replaced in place,
removed by another run or by the user; a walk is always right, and an hour of runs adds little.

Safety: the walk and the removals go through folder descriptors opened without following links
(``O_NOFOLLOW``), so a symbolic link anywhere under the folder is never followed and nothing outside
it is removed (a link itself is left alone); an entry is removed only when it is still the regular
file the walk saw (same inode), so an entry another run wrote meanwhile stays. Another run removing
the same entry, a folder vanishing, a permission refused: that entry is skipped. Pruning never fails
a run and never prints: any error ends it quietly (:func:`after_run`), the run's output and exit
code are those it had.
"""

from __future__ import annotations

import dataclasses
import os
import stat
import time

from hooklint.files import cache_dir, cache_refused, entries_written, store_entry

#: The cap when ``HOOKLINT_CACHE_MAX_MB`` is unset: 1 GiB.
DEFAULT_MAX_MB = 1024

#: Pruning stops once the entries left hold at most this fraction of the cap (so that the next runs
#: do not prune again at once).
KEEP_FRACTION = 0.8

#: The folder is sized at most once in this many seconds (the stamp file's time).
CHECK_EVERY_S = 3600

#: The stamp file, in the cache folder: its modification time is that of the last check.
STAMP = "prune-checked"

#: Folders of the cache folder that are not walked (the fetch step's downloads).
_NOT_WALKED = frozenset({"fetch"})

#: How deep below the cache folder entries are looked for (``results/ab/<key>.json`` is 3).
_MAX_DEPTH = 4

#: A temporary file of a write (:func:`hooklint.files.store_entry`) this old was left by a process
#: that was killed: it counts, and may be removed.
_STALE_TMP_NS = 3600 * 1_000_000_000

#: Flags that open a folder below the cache folder: never through a link (``O_NOFOLLOW``).
_NO_LINK = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


@dataclasses.dataclass(frozen=True)
class Entry:
    """A file of the cache: its folder (names below the cache folder), name, size in bytes,
    modification time (ns, its last use) and inode."""

    folder: tuple[str, ...]
    name: str
    size: int
    used_ns: int
    inode: int


@dataclasses.dataclass(frozen=True)
class Pruned:
    """What :func:`prune` found and did: bytes of entries before and after, entries removed."""

    before: int
    after: int
    removed: int


def max_bytes(environ: "os._Environ[str] | dict[str, str] | None" = None) -> int | None:
    """The cap in bytes: ``HOOKLINT_CACHE_MAX_MB`` (a whole number of MiB) of ``environ`` (default
    ``os.environ``), else :data:`DEFAULT_MAX_MB`; None for ``0`` (no cap). Raises ValueError
    for a value that is not a whole number >= 0 (:func:`cap_of` falls back to the default)."""
    text = (os.environ if environ is None else environ).get("HOOKLINT_CACHE_MAX_MB", "").strip()
    if not text:
        return DEFAULT_MAX_MB << 20
    if not text.isascii() or not text.isdigit():
        raise ValueError(f"HOOKLINT_CACHE_MAX_MB={text!r} is not a whole number of MiB")
    value = int(text)
    return None if value == 0 else value << 20


def cap_of() -> int | None:
    """:func:`max_bytes`, the default for a value it refuses (pruning never fails a run;
    ``hooklint doctor`` says the value is refused)."""
    try:
        return max_bytes()
    except ValueError:
        return DEFAULT_MAX_MB << 20


def entries(folder: str) -> list[Entry]:
    """Every cache entry under ``folder``: regular files named ``*.json``, and temporary files of
    writes older than an hour, up to :data:`_MAX_DEPTH` folders deep, outside ``fetch/``; never
    through a symbolic link (a link, and what is behind it, is not an entry). A folder that
    cannot be opened or vanishes is skipped. Raises OSError when ``folder`` itself cannot be
    opened."""
    found: list[Entry] = []
    now = time.time_ns()
    root = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    try:
        _walk(root, (), now, found)
    finally:
        os.close(root)
    return found


def _walk(fd: int, folder: tuple[str, ...], now: int, found: list[Entry]) -> None:
    try:
        with os.scandir(fd) as listing:
            items = list(listing)
    except OSError:
        return
    for item in items:
        try:
            info = item.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode):
            if len(folder) + 1 >= _MAX_DEPTH or (not folder and item.name in _NOT_WALKED):
                continue
            try:
                child = os.open(item.name, os.O_DIRECTORY | _NO_LINK, dir_fd=fd)
            except OSError:
                continue
            try:
                _walk(child, (*folder, item.name), now, found)
            finally:
                os.close(child)
        elif stat.S_ISREG(info.st_mode) and folder and (
                item.name.endswith(".json")
                or (item.name.startswith("hooklint-") and item.name.endswith(".tmp") and info.st_mtime_ns < now - _STALE_TMP_NS)):
            found.append(Entry(folder, item.name, info.st_size, info.st_mtime_ns, info.st_ino))


def prune(folder: str, cap: int) -> Pruned:
    """Size the entries under ``folder`` (:func:`entries`) and, when they hold more than ``cap``
    bytes, remove the least recently used (oldest modification time first; ties by path) until
    they hold at most ``KEEP_FRACTION * cap``. An entry is removed through its folder opened
    without following links, and only while it is the file the walk saw (its inode): one replaced
    or removed by another run meanwhile is skipped. Raises OSError when ``folder`` cannot be
    opened."""
    found = entries(folder)
    total = sum(e.size for e in found)
    before = total
    if total <= cap:
        return Pruned(before, total, 0)
    goal = int(cap * KEEP_FRACTION)
    victims: list[Entry] = []
    for entry in sorted(found, key=lambda e: (e.used_ns, e.folder, e.name)):
        if total <= goal:
            break
        victims.append(entry)
        total -= entry.size
    removed, kept_size = _remove(folder, victims)
    return Pruned(before, total + kept_size, removed)


def _remove(folder: str, victims: list[Entry]) -> tuple[int, int]:
    """Remove ``victims`` folder by folder; ``(entries removed, bytes of those not removed)``."""
    removed = 0
    left = 0
    by_folder: dict[tuple[str, ...], list[Entry]] = {}
    for entry in victims:
        by_folder.setdefault(entry.folder, []).append(entry)
    for parts, group in sorted(by_folder.items()):
        fd = _open_below(folder, parts)
        if fd is None:
            left += sum(e.size for e in group)
            continue
        try:
            for entry in group:
                try:
                    info = os.stat(entry.name, dir_fd=fd, follow_symlinks=False)
                    if not stat.S_ISREG(info.st_mode) or info.st_ino != entry.inode:
                        left += entry.size if stat.S_ISREG(info.st_mode) else 0
                        continue
                    os.unlink(entry.name, dir_fd=fd)
                    removed += 1
                except FileNotFoundError:
                    continue  # another run removed it
                except OSError:
                    left += entry.size
        finally:
            os.close(fd)
    return removed, left


def _open_below(folder: str, parts: tuple[str, ...]) -> int | None:
    """A descriptor of ``folder/parts...``, each part opened without following a link; None when
    one is a link, not a folder, or gone."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    for part in parts:
        try:
            child = os.open(part, os.O_DIRECTORY | _NO_LINK, dir_fd=fd)
        except OSError:
            os.close(fd)
            return None
        os.close(fd)
        fd = child
    return fd


def due(folder: str, now: float | None = None) -> bool:
    """Whether the folder's size is to be checked: its stamp (:data:`STAMP`) is missing, not a
    regular file, or more than :data:`CHECK_EVERY_S` seconds old (one ``lstat``)."""
    try:
        info = os.lstat(os.path.join(folder, STAMP))
    except OSError:
        return True
    return not stat.S_ISREG(info.st_mode) or info.st_mtime < (time.time() if now is None else now) - CHECK_EVERY_S


def after_run() -> Pruned | None:
    """At the end of ``lint``, ``plan`` or ``diff``: when this process wrote a cache entry, the
    cache is on, a cap is set and the last check is more than an hour old (:func:`due`), renew
    the stamp and :func:`prune`. Returns what pruning did, or None when it did not run. Never
    raises and never prints: an error (a folder that cannot be read, a stamp that cannot be
    written) ends pruning, and the run's output and exit code are unchanged."""
    try:
        folder = cache_dir()
        if folder is None or not entries_written() or cache_refused(folder):
            return None
        cap = cap_of()
        if cap is None or not due(folder):
            return None
        store_entry(os.path.join(folder, STAMP), {"checked": int(time.time())})  # atomic: a link there is replaced
        return prune(folder, cap)
    except Exception:  # noqa: BLE001 - the cache makes a run faster, never failing
        return None


def describe(folder: str) -> str:
    """One line for ``hooklint doctor``: the entries' total size under ``folder`` and the cap
    (with a refused ``HOOKLINT_CACHE_MAX_MB`` named), e.g. ``"  12.3 MiB of entries, cap 1024 MiB
    (HOOKLINT_CACHE_MAX_MB): the least recently used are removed past it"``."""
    try:
        size = f"{sum(e.size for e in entries(folder)) / (1 << 20):.1f} MiB of entries"
    except OSError:
        size = "no entries yet"
    try:
        cap = max_bytes()
        refused = ""
    except ValueError as exc:
        cap = DEFAULT_MAX_MB << 20
        refused = f"; {exc}, the default is used"
    if cap is None:
        return f"  {size}, no cap (HOOKLINT_CACHE_MAX_MB=0): never pruned"
    return (f"  {size}, cap {cap >> 20} MiB (HOOKLINT_CACHE_MAX_MB{refused}): "
            "the least recently used are removed past it")
