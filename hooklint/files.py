"""Files as hooklint reads them: regular files only, never a blocking read, never more than a size;
folders walked without recursion.

Every file hooklint reads from a repository (manifests, kustomizations, chart files, value files,
the configuration, the baseline) goes through :func:`read_bytes`, and every file it hands a
renderer is checked with :func:`file_problem`: a FIFO (which blocks a reader while no one writes
to it), a device (``/dev/zero`` never ends), a socket, or a file over the size limit
(``max-file-size``) is refused with a one-line reason, never read.

Every file hooklint writes (a report with ``--output``, ``--write-baseline``, ``init``, the files
``fix`` rewrites, ``rules --docs``) goes through :func:`write_output`: never through a symbolic
link, never outside the current folder's repository unless the path is named outside it, and by a
temporary file renamed into place, so a reader sees the old file or the new one. Every folder it
makes or removes files in is checked first, whole, by the same :func:`check_folders` (no link among
its components inside the repository), before anything changes (:func:`make_folders`).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import secrets
import shutil
import stat
import tempfile
import time
from typing import Any, Callable, Iterable, Iterator

from hooklint import deadline


class NotRegularFile(OSError):
    """A path that is not a regular file (a FIFO, a socket, a device, a directory): never read.
    ``str()`` is the reason: ``not a regular file (a FIFO); not read``; ``kind`` is ``a FIFO``,
    ``a socket``, ``a device`` or ``a directory``."""

    def __init__(self, kind: str):
        super().__init__("is a directory" if kind == "a directory" else f"not a regular file ({kind}); not read")
        self.kind = kind

    def __str__(self) -> str:
        return str(self.args[0])


def problem_of(error: OSError) -> str:
    """What :func:`read_bytes` refused, as :func:`file_problem` says it (``a FIFO, not a regular
    file``, ``larger than max-file-size (N bytes)``); other errors' text."""
    if isinstance(error, NotRegularFile):
        return f"{error.kind}, not a regular file"
    return str(error) if isinstance(error, FileTooLarge) else (error.strerror or str(error))


class FileTooLarge(OSError):
    """A regular file larger than the size allowed (``max-file-size``): never read."""

    def __init__(self, size: int, max_size: int):
        super().__init__(f"larger than max-file-size ({max_size:,} bytes)")
        self.size = size
        self.max_size = max_size

    def __str__(self) -> str:
        return str(self.args[0])


#: How the command line names standard input.
STDIN = "-"

#: Where a named pipe or device is one the user handed over on purpose.
_STREAM_PREFIXES = ("/dev/", "/proc/")


def is_stream(path: str) -> bool:
    """Whether ``path`` is named through ``/dev/`` or ``/proc/`` (``/dev/stdin``, process
    substitution's ``/dev/fd/63``): read to its end when it is a pipe
    (:func:`hooklint.loader.read_file`), and never judged as a repository's file that links out (it
    links to a descriptor)."""
    return path.startswith(_STREAM_PREFIXES)


def read_bytes(path: str, max_size: int, streams: bool = False) -> bytes:
    """The bytes of the regular file ``path`` (symbolic links followed), at most ``max_size`` of
    them: the one way hooklint reads a file. The file is opened without blocking (``O_NONBLOCK``:
    a FIFO without a writer would wait forever) and checked with ``fstat`` on the open descriptor
    before a byte is read. With ``streams``, a pipe is read too (to at most ``max_size + 1`` bytes:
    the caller tells a stream that was too long from one that was not); a device or socket never
    is (``/dev/null`` would pass as an empty manifest, ``/dev/zero`` be read to the limit).

    Raises :class:`NotRegularFile` (a FIFO, socket, device or directory), :class:`FileTooLarge`
    (a regular file over ``max_size``, or one that grew past it while read) and OSError; and
    :class:`~hooklint.deadline.RunTimeout` once the run's deadline has passed (every file read is
    a point where a run stops on time, renderer or not)."""
    deadline.check()
    flags = os.O_RDONLY | getattr(os, "O_BINARY", 0) | (0 if streams else getattr(os, "O_NONBLOCK", 0))
    try:
        fd = os.open(path, flags)
    except (OSError, ValueError):
        _unread(path)
        raise
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise NotRegularFile("a directory")
        if not stat.S_ISREG(info.st_mode) and not (streams and stat.S_ISFIFO(info.st_mode)):
            raise NotRegularFile(_file_kind(info.st_mode))
        if info.st_size > max_size:
            raise FileTooLarge(info.st_size, max_size)  # refused without reading it
        chunks = []
        left = max_size + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > max_size and stat.S_ISREG(info.st_mode):
            raise FileTooLarge(len(data), max_size)
        if _reads is not None and stat.S_ISREG(info.st_mode):
            _record(_reads, path, hashlib.sha256(data).hexdigest())
        return data
    except OSError:  # NotRegularFile, FileTooLarge: what is there decides, as a missing file does
        _unread(path)
        raise
    finally:
        os.close(fd)


def _unread(path: str) -> None:
    """``path``, which :func:`read_bytes` could not read (missing, a folder, too large), as a path
    looked at: an input of the :func:`recording` running (by its stat signature) and told to the
    result cache's observers (:func:`note_looked`). A file that appears later changes what reading
    it gives (attacker trial 39, 1: a ``.git/packed-refs`` written after a cached run named a tag
    the run had read as a branch, and the next run was answered with the old result)."""
    note_looked(path)
    if _reads is not None and path not in _reads:
        _reads[path] = None


def read_text(path: str, max_size: int) -> str:
    """:func:`read_bytes` of ``path`` decoded as UTF-8 (a BOM removed). Raises what
    :func:`read_bytes` raises and UnicodeDecodeError."""
    return read_bytes(path, max_size).decode("utf-8-sig")


def file_problem(path: str, max_size: int) -> str | None:
    """Why a renderer may not read ``path`` (symbolic links followed), or None for a regular file of
    at most ``max_size`` bytes (or one that does not exist: the renderer says so): ``a FIFO, not a
    regular file``, ``larger than max-file-size (10,485,760 bytes)``. Nothing is opened."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):  # ValueError: a NUL in the name, which no file has
        return None
    if stat.S_ISDIR(info.st_mode):
        return None
    if not stat.S_ISREG(info.st_mode):
        return f"{_file_kind(info.st_mode)}, not a regular file"
    if info.st_size > max_size:
        return f"larger than max-file-size ({max_size:,} bytes)"
    return None


def _file_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a file"


def walk_tree(top: str, onerror: Any = None, followlinks: bool = False, links: dict[str, bool] | None = None):
    """:func:`os.walk` (top-down; ``dirnames`` may be pruned in place; symbolic links to folders
    listed among them, followed only with ``followlinks``; ``onerror`` gets each OSError of
    listing a folder), without recursion: Python 3.10 and 3.11's ``os.walk`` recurses once per
    level, and a repository of folders nested 1,100 deep ended in a RecursionError. Whether an
    entry is a link comes from the listing (``DirEntry.is_symlink``, no ``lstat``); ``links``, when
    given, receives it for each file entry (``folder/name`` -> bool), and True for each link to a
    folder."""
    stack = [top]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError as error:
            if onerror is not None:
                onerror(error)
            continue
        dirs: list[str] = []
        names: list[str] = []
        linked: set[str] = set()
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            try:
                is_link: bool | None = entry.is_symlink()
            except OSError:  # unknown: followed as os.path.islink's False would, not recorded
                is_link = None
            if is_dir:
                dirs.append(entry.name)
                if is_link:
                    linked.add(entry.name)
                    if links is not None:
                        links[os.path.join(folder, entry.name)] = True
            else:
                names.append(entry.name)
                if links is not None and is_link is not None:
                    links[os.path.join(folder, entry.name)] = is_link
        yield folder, dirs, names
        for name in reversed(dirs):
            if followlinks or name not in linked:
                stack.append(os.path.join(folder, name))


def remove_tree(top: str) -> None:
    """``shutil.rmtree(top, ignore_errors=True)`` without recursion (Python 3.10 and 3.11's recurses
    once per level: a temporary copy of folders nested deeper than the recursion limit could not
    be removed). Symbolic links are removed, never followed."""
    folders = []
    for folder, dirs, names in walk_tree(top):
        folders.append(folder)
        for name in names + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            try:
                os.unlink(os.path.join(folder, name))
            except OSError:
                pass
    for folder in reversed(folders):
        try:
            os.rmdir(folder)
        except OSError:
            pass


def copy_tree(source: str, destination: str) -> None:
    """``shutil.copytree(source, destination, symlinks=True)`` without recursion (Python 3.11's
    recurses once per level): folders made, regular files copied (``shutil.copy2``), symbolic
    links made again as links (never followed); other entries (FIFOs, sockets, devices) left out.
    ``destination`` must not exist. Raises OSError."""
    os.makedirs(destination)
    for folder, dirs, names in walk_tree(source):
        inside = os.path.relpath(folder, source)
        target = destination if inside == os.curdir else os.path.join(destination, inside)
        for name in list(dirs) + names:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                os.symlink(os.readlink(path), os.path.join(target, name))
            elif stat.S_ISDIR(info.st_mode):
                os.mkdir(os.path.join(target, name))
            elif stat.S_ISREG(info.st_mode):
                shutil.copy2(path, os.path.join(target, name), follow_symlinks=False)


@contextlib.contextmanager
def temporary_folder(prefix: str) -> Iterator[str]:
    """``tempfile.TemporaryDirectory(prefix=prefix)`` removed with :func:`remove_tree` (its own
    clean-up is ``shutil.rmtree``, which recurses once per level in Python 3.11: a checkout of a
    repository nested 1,100 folders deep ended the run in a RecursionError). Yields the folder."""
    folder = tempfile.mkdtemp(prefix=prefix)
    try:
        yield folder
    finally:
        remove_tree(folder)


def make_dirs(path: str) -> None:
    """``os.makedirs(path, exist_ok=True)`` without recursion (Python's recurses once per missing
    level)."""
    missing = []
    while path and not os.path.isdir(path):
        missing.append(path)
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder)
        except FileExistsError:
            if not os.path.isdir(folder):
                raise


class UnsafeWrite(OSError):
    """A path :func:`write_output` will not write, and why (``str()``: the reason, one line): a
    symbolic link, or a folder that leads (through a link) out of the repository."""

    def __str__(self) -> str:
        return str(self.args[0])


def repository_of(folder: str) -> str | None:
    """The nearest folder at or above ``folder`` holding ``.git`` (a folder, a ``gitdir:`` file or
    a link), or None."""
    probe = folder
    while True:
        if os.path.lexists(os.path.join(probe, ".git")):
            return probe
        parent = os.path.dirname(probe)
        if parent == probe:
            return None
        probe = parent


def repository_top(folder: str) -> str:
    """The nearest folder at or above ``folder`` holding ``.git`` (the repository's top), else
    ``folder`` itself: the tree a run may write in without being told (:func:`write_output`)."""
    folder = os.path.abspath(folder)
    return repository_of(folder) or folder


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def check_folders(folder: str, *, own: bool = False) -> str:
    """Check, before any change, that hooklint may write in the folder ``folder`` (create it or
    its missing parents, write or remove files in it): the one check every write makes
    (:func:`write_output`, :func:`make_folders`). Returns ``folder``'s real path (``os.path.realpath``).

    - ``folder`` named inside the repository of the current folder (:func:`repository_top`; the
      path as written, ``..`` steps taken): every existing component from the repository's top
      down to ``folder`` itself must be a real folder, not a symbolic link. A link that leads out
      of the repository (``docs -> ../outside``) or to another of its folders (``gitlink -> .git``)
      is refused (:class:`UnsafeWrite`), and so is one that leads to a missing folder; components
      that do not exist yet are fine (:func:`make_folders` makes them, never through a link).
    - ``folder`` named outside the repository (``/tmp/reports``, ``../notes``) is the user's
      explicit choice: its components are theirs; with ``own`` (a folder hooklint writes and
      removes files in: ``rules --docs``), ``folder`` itself must still not be a link.

    Raises :class:`UnsafeWrite`, ``NotADirectoryError`` (a component that is a file) and other
    ``OSError`` (a component that cannot be examined)."""
    absolute = os.path.abspath(folder)
    top = repository_top(os.getcwd())
    if not _inside(absolute, top):
        if own:
            _refuse_link(absolute, top)
        return os.path.realpath(absolute)
    relative = os.path.relpath(absolute, top)
    probe = top
    for part in [] if relative == os.curdir else relative.split(os.sep):
        probe = os.path.join(probe, part)
        try:
            info = os.lstat(probe)
        except FileNotFoundError:
            break  # this one and those below are made by the write, as real folders
        if stat.S_ISLNK(info.st_mode):
            _refuse_link(probe, top)
        if not stat.S_ISDIR(info.st_mode):
            raise NotADirectoryError(errno.ENOTDIR, "not a directory", os.path.relpath(probe))
    return os.path.realpath(absolute)


def _refuse_link(probe: str, top: str) -> None:
    """Raise :class:`UnsafeWrite` when the folder ``probe`` is a symbolic link, saying where it
    leads (out of the repository ``top``, or to which of its folders)."""
    try:
        if not os.path.islink(probe):
            return
    except OSError:
        return
    real, real_top = os.path.realpath(probe), os.path.realpath(top)
    named = os.path.relpath(probe) if probe != top else "."
    if _inside(probe, top) and not _inside(real, real_top):
        raise UnsafeWrite(f"its folder {named} leads through a symbolic link to {real}, outside the repository "
                          f"{top}: not written (name a path outside the repository if you mean to write there)")
    where = os.path.relpath(real, real_top) if _inside(real, real_top) else real
    raise UnsafeWrite(f"its folder {named} leads through a symbolic link to {where}: hooklint never writes through "
                      "a link (name the folder it leads to, if you mean to write there)")  # fmt: skip


def make_folders(folder: str, *, own: bool = True) -> str:
    """Make the folder ``folder`` and its missing parents (as ``os.makedirs(folder,
    exist_ok=True)``, without recursion) after :func:`check_folders` passed for it (``own``: the
    folder itself is written in, so it may not be a link even outside the repository). Each
    missing component is made with ``os.mkdir``, which never follows a link; one that appears
    meanwhile as a link is refused. Returns ``folder``'s real path. Raises :class:`UnsafeWrite`
    and other ``OSError``; nothing is made when the check fails."""
    real = check_folders(folder, own=own)
    absolute = os.path.abspath(folder)
    missing = []
    probe = absolute
    while not os.path.lexists(probe):
        missing.append(probe)
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    for part in reversed(missing):
        try:
            os.mkdir(part)
        except FileExistsError:
            pass
        if not stat.S_ISDIR(os.lstat(part).st_mode):  # a link (or a file) made meanwhile
            _refuse_link(part, repository_top(os.getcwd()))
            raise NotADirectoryError(errno.ENOTDIR, "not a directory", os.path.relpath(part))
    return real if not missing else os.path.realpath(absolute)


def write_output(path: str, data: bytes | Iterable[bytes], *, exclusive: bool = False, durable: bool = False,
                 before_replace: Callable[[], None] | None = None) -> None:  # fmt: skip
    """Write ``data`` (bytes, or bytes in pieces: a large report is never held whole) to the file
    ``path``: the one way hooklint writes a file.

    - A ``path`` that is a symbolic link is refused (:class:`UnsafeWrite`), whatever it points at:
      a link committed as ``hooklint.sarif -> ~/.bashrc`` must not turn a report into a write
      outside the repository. The checks and the writes go through a descriptor of the folder and
      ``O_NOFOLLOW``, so a link made meanwhile is never followed either.
    - A ``path`` named inside the repository of the current folder (:func:`repository_top`; the
      path as written, ``..`` steps taken) whose folder resolves outside it (a link on the way:
      ``out -> /home/runner``) is refused; a path named outside it (``/tmp/report.sarif``,
      ``../report.json``) is the user's explicit choice and is written. A folder inside the repository that leads
      through a link to another of its folders (a committed ``reports -> .git``: a report over
      ``.git/config``) is refused too: hooklint never writes through a link.
    - The file is written as a new file beside it (``.NAME.hooklint-XXXX``, created with
      ``O_EXCL``), then renamed over ``path`` (``os.replace``, which replaces a name, never
      writes through it). An existing file keeps its permission bits (and owner and group where
      this process may set them); a hard link is replaced, not written through: the file's other
      names keep what they held. ``before_replace`` runs just before the rename (``fix``'s check
      that nobody changed the file meanwhile: it raises to keep the old file). ``durable``: the
      new file is flushed to disk (``fsync``) before the rename.
    - ``exclusive`` (``init``): never over an existing name, link or not (``FileExistsError``);
      the file is created with ``O_CREAT | O_EXCL``.
    - An existing device or FIFO the user named (``--output /dev/null``) is written in place,
      never replaced; a folder is ``IsADirectoryError``. So is an existing regular file with no
      other name in a folder this user may not add a file to (the new file cannot be made there;
      not with ``before_replace``: ``fix`` is always atomic).

    Raises :class:`UnsafeWrite` and other ``OSError``; on any error ``path`` is left as it was and
    no temporary file is left behind."""
    chunks: Iterable[bytes] = (data,) if isinstance(data, bytes) else data
    absolute = os.path.abspath(path)
    folder, name = os.path.split(absolute)
    if not name or name in (".", ".."):
        raise IsADirectoryError(errno.EISDIR, "is a directory", path)
    real_folder = check_folders(folder)
    directory = os.open(real_folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    nofollow = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    temp: str | None = None
    try:
        try:
            info: os.stat_result | None = os.stat(name, dir_fd=directory, follow_symlinks=False)
        except FileNotFoundError:
            info = None
        if exclusive and info is not None:
            raise FileExistsError(errno.EEXIST, "file exists", path)
        if info is not None and stat.S_ISLNK(info.st_mode):
            try:
                target = f" (to {os.readlink(name, dir_fd=directory)})"
            except OSError:
                target = ""
            raise UnsafeWrite(f"a symbolic link{target}: hooklint never writes through a link (remove it, or name "
                              "another file)")  # fmt: skip
        if exclusive:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | nofollow, 0o666, dir_fd=directory)
            try:
                _write_all(fd, chunks, durable)
            except BaseException:
                os.unlink(name, dir_fd=directory)  # ours: made just now with O_EXCL
                raise
            return
        if info is not None and stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", path)
        if info is not None and not stat.S_ISREG(info.st_mode):  # /dev/null, a FIFO: the user's, written in place
            fd = os.open(name, os.O_WRONLY | nofollow, dir_fd=directory)
            _write_all(fd, chunks, durable)
            return
        while temp is None:
            candidate = f".{name[:200]}.hooklint-{secrets.token_hex(4)}"
            try:
                fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL | nofollow, 0o666, dir_fd=directory)
            except FileExistsError:
                continue
            except PermissionError:
                if info is None or before_replace is not None:
                    raise
                _write_in_place(name, directory, chunks, durable)  # a folder this user may not add to
                return
            temp = candidate
        if info is not None:  # the file's own mode, owner and group
            try:
                os.fchmod(fd, stat.S_IMODE(info.st_mode))
                if hasattr(os, "fchown"):
                    try:
                        os.fchown(fd, info.st_uid, info.st_gid)
                    except OSError:
                        pass  # not permitted: the new file keeps this process's owner
            except BaseException:
                os.close(fd)
                raise
        _write_all(fd, chunks, durable)
        if before_replace is not None:
            before_replace()
        os.replace(temp, name, src_dir_fd=directory, dst_dir_fd=directory)
        temp = None
    finally:
        if temp is not None:
            try:
                os.unlink(temp, dir_fd=directory)
            except OSError:
                pass
        os.close(directory)


def _write_in_place(name: str, directory: int, chunks: Iterable[bytes], durable: bool) -> None:
    """Write the existing regular file ``name`` of the folder ``directory`` (a descriptor) in place
    (``O_NOFOLLOW``, then truncated): for a folder this user may not add a file to. A file with
    another name (a hard link) is refused (:class:`UnsafeWrite`): it would be written through."""
    fd = os.open(name, os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), dir_fd=directory)
    try:
        info = os.fstat(fd)
        if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
            raise UnsafeWrite(f"a file with {info.st_nlink} names (hard links) in a folder hooklint may not add a file "
                              "to: it would be written through, not replaced (remove the other names, or name another "
                              "file)")  # fmt: skip
        if stat.S_ISREG(info.st_mode):
            os.ftruncate(fd, 0)
    except BaseException:
        os.close(fd)
        raise
    _write_all(fd, chunks, durable)


def _write_all(fd: int, chunks: Iterable[bytes], durable: bool) -> None:
    """Write every chunk to ``fd``, flush it to disk when ``durable``, and close it."""
    with os.fdopen(fd, "wb") as out:
        for chunk in chunks:
            out.write(chunk)
        if durable:
            out.flush()
            os.fsync(out.fileno())


# --- what a run's caches need: where they are, what an input is, entries written safely ----------

#: The files read (:func:`read_bytes`) or hashed as render inputs while :func:`recording` runs, by
#: path as reached -> hex SHA-256 of their bytes (None: not read, or read as something else).
_reads: dict[str, str | None] | None = None


@contextlib.contextmanager
def recording() -> Iterator[dict[str, str | None]]:
    """Record every file :func:`read_bytes` reads (or :func:`note_input` names) meanwhile, by path
    as reached -> hex SHA-256 of the bytes read (None: a path named but not read): the inputs of
    one application, or of a whole run, for the result cache (:mod:`hooklint.results`). Nested: an
    inner recording holds only what was read while it ran, and the outer one gets it too when it
    ends (a run's recording holds every application's reads).

    A file read twice whose bytes differ the second time (edited while hooklint ran: discovery
    built the map of Applications from the first bytes, the lint stage read the second) makes the
    recording volatile (:func:`note_volatile`): the result cache keeps nothing made from it
    (attacker trial 38, 2: a run kept with the second bytes' hash and the first bytes' map was
    answered for every later run)."""
    global _reads
    saved = _reads
    found: dict[str, str | None] = {}
    _reads = found
    try:
        yield found
    finally:
        _reads = saved
        if saved is not None:
            for path, digest in found.items():
                if digest is not None:
                    _record(saved, path, digest)
                elif path not in saved:
                    saved[path] = digest


def _record(reads: dict[str, str | None], path: str, digest: str) -> None:
    """``path`` read with bytes of hex SHA-256 ``digest`` in the recording ``reads``: volatile
    when it read other bytes of it before."""
    known = reads.get(path)
    if known is not None and known != digest:
        reads[VOLATILE] = None
    reads[path] = digest


@contextlib.contextmanager
def unrecorded() -> Iterator[None]:
    """Record nothing meanwhile (:func:`recording`): a renderer reading its own copy of inputs
    already recorded (the render cache's key covers them), in a temporary folder gone after."""
    global _reads
    saved, _reads = _reads, None
    try:
        yield
    finally:
        _reads = saved


def note_input(path: str, digest: str | None = None) -> None:
    """Add ``path`` (and the hex SHA-256 of its bytes when known) to the :func:`recording` running,
    if any: a file a renderer reads, which hooklint hashes without :func:`read_bytes`."""
    if _reads is not None:
        if digest is not None:
            _record(_reads, path, digest)
        elif path not in _reads:
            _reads[path] = digest


#: The (listed, looked) sets of every :func:`hooklint.results.observing` block running, outermost
#: first: what the result cache's entries hold as the paths a run or an application asked about.
OBSERVERS: list[tuple[set[str], set[str]]] = []


def note_looked(path: str) -> None:
    """Tell every :func:`hooklint.results.observing` block running that ``path`` was looked at: a
    run's memo answering a question the file system was asked earlier in the run
    (:mod:`hooklint.sources.repository.facts`), which the wrapped ``os`` functions do not see."""
    for _, looked in OBSERVERS:
        looked.add(path)


def note_listed(folder: str) -> None:
    """Tell every :func:`hooklint.results.observing` block running that ``folder``'s entries were
    read (:func:`note_looked`, for a listing a memo answers)."""
    for listed, _ in OBSERVERS:
        listed.add(folder)


#: The key :func:`note_volatile` sets in a :func:`recording` (never a path: a NUL).
VOLATILE = "\0volatile"


def note_volatile() -> None:
    """Say to the :func:`recording` running, if any, that what is being made depends on more than
    the files recorded (a render stopped by a limit, one that failed before its inputs were known):
    the result cache keeps none of it."""
    if _reads is not None:
        _reads[VOLATILE] = None


def cache_dir() -> str | None:
    """The folder of hooklint's caches (renderings, results), or None when caching is off:
    ``$HOOKLINT_CACHE_DIR`` (``off`` turns every cache off, as ``--no-cache`` does by setting it),
    else ``$XDG_CACHE_HOME/hooklint``, else ``~/.cache/hooklint``."""
    explicit = os.environ.get("HOOKLINT_CACHE_DIR")
    if explicit:
        return None if explicit == "off" else explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "hooklint")


#: A file whose modification time is this close to (or after) the moment its signature was taken
#: may change again within the file system's timestamp granularity with the same size and time
#: (git's "racily clean" entries): its bytes are hashed, never trusted by its signature.
RACY_NS = 2_000_000_000


def stat_signature(path: str) -> list[Any]:
    """What :func:`os.stat` says of ``path`` (links followed), as a list a JSON entry keeps:
    ``[kind, size, mtime_ns, inode, device, ctime_ns, link]``: kind ``f`` (regular file), ``d``
    (folder), ``x`` (anything else: its mode in size's place) or ``-`` (missing or unreadable:
    zeros); ``link`` the target as written when ``path`` itself is a symbolic link, else None.
    Equal signatures, taken :data:`RACY_NS` after the file's modification time (:func:`trusted`),
    mean the same bytes (the stat pass of the caches).

    The change time is in it as Git's index keeps it (``core.trustctime``) and ccache's direct
    mode: ``touch -r`` sets a file's modification time back after an edit of the same size, and a
    folder's after a file is added to it, but no one but the clock sets its change time (attacker
    trial 34: a cached run then answered for the file as it was, an error finding missing)."""
    link = None
    try:
        info = os.lstat(path)  # one call for what is not a link (nearly every input)
        if stat.S_ISLNK(info.st_mode):
            link = os.readlink(path)
            info = os.stat(path)
    except (OSError, ValueError):
        return ["-", 0, 0, 0, 0, 0, link]
    kind = "f" if stat.S_ISREG(info.st_mode) else "d" if stat.S_ISDIR(info.st_mode) else "x"
    return [kind, info.st_size if kind != "x" else info.st_mode, info.st_mtime_ns, info.st_ino, info.st_dev,
            info.st_ctime_ns, link]  # fmt: skip


def program_identity(program: str) -> list[Any]:
    """``[program, stat signature]`` (:func:`stat_signature`: size, times, inode, the link's target):
    what a render key holds of a renderer's program besides its version, so that another build of
    one version (a program replaced in place) is another key (attacker trial 44, 1)."""
    return [program, stat_signature(program)]


#: A renderer's program smaller than this is taken for a wrapper (kubectl, kustomize and helm are
#: Go binaries of tens of MB; a shell wrapper or asdf's shim is a few hundred bytes).
WRAPPER_BYTES = 1 << 20


def dispatched(program: str) -> bool:
    """Whether the renderer's program ``program`` (found on ``PATH``) may run another program
    than its own file, so that its file does not say which build renders: a link to a file of
    another name (snap's ``/snap/bin/helm -> /usr/bin/snap``, mise's shims, a multi-call binary)
    or a file under :data:`WRAPPER_BYTES` (a script: asdf's shims, a wrapper choosing a version).
    Told by ``stat`` alone (a program's bytes are never read). Its version is then asked on every
    run, and no result is kept for a run while it is on ``PATH`` (attacker trial 45, 3: a snap
    refresh, re-pointing ``current`` behind the dispatcher, changed neither the path nor the file
    the caches keyed on, and a cached run answered with the old helm's rendering)."""
    real = os.path.realpath(program)
    try:
        return wrapper(program, real, os.stat(real).st_size)
    except OSError:
        return os.path.basename(real) != os.path.basename(program)


def wrapper(program: str, real: str, size: int) -> bool:
    """:func:`dispatched` of ``program`` whose resolved path is ``real`` and size ``size`` bytes."""
    return os.path.basename(real) != os.path.basename(program) or size < WRAPPER_BYTES


def sdk_identity(folder: str) -> list[Any]:
    """What renders for the Helm SDK whose ``helm_python`` is in ``folder`` (the renderer of
    :mod:`hooklint.sources.render.helm`), for the caches' keys: the folder; each file of
    ``helm_python`` and of its ``lib`` folder (its version and its native library, Helm's Go code)
    with its stat signature; and ``HELM_C_LIB`` (helm-python-sdk's own way to load another library:
    a file, or a folder of them) with the signature of what it names and of each file of that
    folder. An upgrade, a library replaced in place, or another one named, changes it (attacker
    trial 44, 1: a run with ``HELM_C_LIB`` set was answered with what the library before it rendered).
    Kept here, not with the renderer: a run's key asks it, and a run of plain files imports no renderer."""
    package = os.path.join(folder, "helm_python")
    chosen = os.environ.get("HELM_C_LIB")
    files: list[Any] = []
    for place in [package, os.path.join(package, "lib")] + ([chosen] if chosen else []):
        try:
            names = sorted(os.listdir(place))
        except OSError:  # a file (HELM_C_LIB's library), or missing
            files.append([place, stat_signature(place)])
            continue
        for name in names:
            signature = stat_signature(os.path.join(place, name))
            if signature[0] != "d":  # __pycache__ changes as Python writes into it; lib is listed itself
                files.append([os.path.join(place, name), signature])
    return [os.path.abspath(folder), chosen, files]


def package_identity(name: str) -> list[Any]:
    """The installed top-level package ``name`` (``yaml``), for the caches' keys, found without
    importing it (``importlib.util.find_spec``): its folder and each of its files (a compiled
    extension too) with its stat signature; ``[name, None]`` when it is not installed. An upgrade,
    a downgrade or a build put in place of another changes it, as its version would, and a run
    answered by the result cache whole never imports it. A shared library that an extension loads
    from elsewhere (PyYAML built from source against the system's libyaml; its wheels link libyaml
    in) is not in it."""
    import importlib.util  # noqa: PLC0415 - asked once per run, for the result cache's key

    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        return [name, None]
    folder = os.path.dirname(spec.origin) if spec.submodule_search_locations else None
    if folder is None:
        return [name, spec.origin, stat_signature(spec.origin)]
    files = [[entry, stat_signature(os.path.join(folder, entry))] for entry in sorted(os.listdir(folder))]
    return [name, os.path.abspath(folder), [f for f in files if f[1][0] != "d"]]  # __pycache__ changes as Python writes


#: Where a :func:`stat_signature`'s part past the bytes' own begins: the link (and what a caller
#: appends), compared alone for a folder only looked at.
SIGNATURE_WAY = 6


def changed_at(signature: list[Any]) -> int:
    """When the path of a :func:`stat_signature` last changed, in ns: the later of its modification
    and change times (``touch -r`` sets the first back, never the second)."""
    return max(signature[2], signature[5])


#: The largest file :func:`content_digest` hashes (a larger one is a cache miss).
MAX_DIGESTED = 1 << 28


def content_digest(path: str, kind: str) -> str:
    """Hex SHA-256 of what ``path`` holds: a regular file's bytes (read by :func:`read_bytes`, at
    most :data:`MAX_DIGESTED` of them: the digest it records), a folder's sorted entry names;
    ``""`` for anything else, or when it cannot be read (``kind`` is its :func:`stat_signature`
    kind). Raises :class:`~hooklint.deadline.RunTimeout` once the run's deadline has passed."""
    try:
        if kind == "d":
            names = "\0".join(sorted(os.listdir(path)))
            return hashlib.sha256(b"\0folder\0" + names.encode("utf-8", "surrogateescape")).hexdigest()
        return hashlib.sha256(read_bytes(path, MAX_DIGESTED)).hexdigest() if kind == "f" else ""
    except (OSError, ValueError):
        return ""


def trusted(signature: list[Any], taken_ns: int) -> bool:
    """Whether a :func:`stat_signature` taken at ``taken_ns`` (``time.time_ns()``) can stand for the
    bytes: a missing path, or one whose modification time is at least :data:`RACY_NS` older than
    ``taken_ns`` (Git's racily clean entries). Its change time is not asked here but compared: a
    later change, its modification time set back or not, moves the change time to a later clock
    tick than the one the signature holds, unless it comes within the tick of the change before the
    signature was taken (a writer running beside hooklint, to the millisecond)."""
    return signature[0] == "-" or signature[2] < taken_ns - RACY_NS


def cache_refused(root: str) -> bool:
    """Whether the cache folder ``root`` may be neither read nor written (nor pruned):
    :func:`cache_refusal` gives a reason. Asked once per run for a folder and current folder
    (every cache entry read or written asks it; :func:`forget_runs_answers` at a run's start)."""
    key = (root, os.getcwd())
    refused = _CACHE_REFUSED.get(key)
    if refused is None:
        refused = _CACHE_REFUSED[key] = cache_refusal(root) is not None
    return refused


def cache_refusal(root: str) -> str | None:
    """Why the cache folder ``root`` is not used, or None when it is:

    - inside a Git work tree (a folder at or above it holds ``.git``, as named or once links are
      followed): a checkout's files are a pull request's to write, and a cache entry holds a
      result hooklint trusts (attacker trial 41, 2: ``HOOKLINT_CACHE_DIR=.cache`` in CI, and a
      pull request committing ``.cache`` with an entry that says its privileged hook has no
      finding, answered the run with it);
    - named inside the current folder's repository with a symbolic link among its existing
      components (:func:`check_folders`: a pull request committing ``.cache -> /home/runner`` must
      not have entries written and pruned there);
    - at, inside or above the folder a path the running command lints may read in (:func:`linting`):
      its entries would be files of the run, read without the cache and not with it (attacker
      trial 44, 2: a tree that is no Git work tree, its cache folder inside it, had a hook added
      there answered as clean; trial 45, 1: so had a kustomization of the linted folder naming
      ``../cache/x``, the current folder being where a renderer may read outside Git)."""
    absolute = os.path.abspath(root)
    try:
        real = os.path.realpath(absolute)
    except (OSError, ValueError):
        real = absolute
    for place in dict.fromkeys((absolute, real)):
        top = repository_of(place)
        if top is not None:
            return f"it is inside the Git work tree {top}, whose files a pull request can write"
    for boundary in _read_in():
        if os.path.commonpath([real, boundary]) in (real, boundary):
            return f"it is at, inside or above {boundary}, where this run reads"
    try:
        check_folders(root)
    except OSError as exc:
        return f"it leads through a link, or is not a folder ({exc})"
    return None


#: (cache folder, current folder) -> :func:`cache_refused`'s answer, for this run.
_CACHE_REFUSED: dict[tuple[str, str], bool] = {}

#: The absolute paths the running command lints (:func:`linting`).
_LINTED: list[str] = []


def linting(paths: Iterable[str]) -> None:
    """Say that the command about to run lints ``paths`` (as given; ``-``, standard input, is no
    path): a cache folder at, inside or above the folder each may be read in is then refused for
    the run (:func:`cache_refusal`). Called before the run asks the caches anything."""
    _LINTED[:] = [os.path.abspath(path) for path in paths if path != "-"]
    _CACHE_REFUSED.clear()


def linted() -> list[str]:
    """The paths the running command lints (:func:`linting`), absolute, not resolved; empty before
    a run says them."""
    return list(_LINTED)


def within(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or lies below it, both spelled alike (normalised, or both
    resolved with ``os.path.realpath``): the one containment test of renderers, sources and fix."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def top_outside_git(folder: str, named: Iterable[str]) -> str:
    """Outside a Git work tree, the highest folder a run over ``named`` (paths as given; ``-`` is
    none) reads in for ``folder`` (absolute, as are the answers; not resolved): the outermost of
    the current folder (but ``/``: :func:`bounds`) and the named paths that holds ``folder``, else
    ``folder`` itself. The README's "outside Git, the current folder when it holds what is linted,
    else that path's folder" (``hooklint lint ..`` from a subfolder reads in the folder it names):
    a look upward (for a chart, for the configuration) stops there, and a ``Chart.yaml`` or
    ``.hooklint.yaml`` above it (in ``/tmp``, anybody's to write) is never read."""
    cwd = os.getcwd()
    tops = [os.path.abspath(p) for p in named if p != STDIN] + ([cwd] if bounds(cwd) else [])
    # a file named holds no folder: its own folder is then ``folder`` itself, the answer anyway
    holding = [top for top in tops if within(folder, top)]
    return min(holding) if holding else folder  # the outermost: they all hold folder, and a prefix sorts first


def bounds(cwd: str) -> bool:
    """Whether the current folder ``cwd`` (absolute) may bound a run outside Git, as the folder
    that holds what it lints: any but the file system's root. No repository is checked out at
    ``/``, and a run started there (a container's default working folder, ``docker run -v
    $PWD:/src ... lint /src``) would read in every folder of the machine: attacker trial 46, 4, a
    chart's ``files/x`` linking to ``/etc/hostname`` had its bytes printed by ``fail``."""
    return os.path.dirname(cwd) != cwd


def _read_in() -> list[str]:
    """The resolved folders discovery and the renderers may read in for the paths of
    :func:`linting` (:func:`hooklint.sources.repository.tree.repository_boundary`): each path's Git
    work tree, else the current folder when it holds the path (:func:`bounds`), else the path's folder."""
    here = os.path.realpath(os.getcwd())
    boundaries = []
    for path in _LINTED:
        real = os.path.realpath(path)
        folder = real if os.path.isdir(real) else os.path.dirname(real)
        holds = bounds(here) and os.path.commonpath([folder, here]) == here
        boundaries.append(repository_of(folder) or (here if holds else folder))
    return boundaries


def forget_runs_answers() -> None:
    """Forget what :func:`cache_refused` and :func:`_linked_folders` answered: the start of a run
    (:func:`hooklint.sources.repository.facts.reset`)."""
    _CACHE_REFUSED.clear()
    _CACHE_FOLDERS.clear()


#: Folder of entries -> the cache folder (:func:`cache_dir`) from which every folder on its way
#: was seen to be a real folder this run: asked once (a run writes an entry per rendering, a few
#: hundred into the same 256 folders of each kind).
_CACHE_FOLDERS: dict[str, str] = {}


def _linked_folders(entry: str) -> bool:
    """Whether a folder between the cache folder (:func:`cache_dir`) and ``entry`` is a symbolic
    link (or not a folder): its entries are then neither read nor written. A folder of entries
    whose way from the cache folder was found to be real folders only is not asked again in the
    run (:data:`_CACHE_FOLDERS`; a cache folder spelled absolute only, the current folder may
    change between runs): nothing of a repository runs during a run, and hooklint makes no link."""
    root = cache_dir()
    if root is None or cache_refused(root):
        return True
    within = os.path.dirname(entry)
    if _CACHE_FOLDERS.get(within) == root:
        return False
    relative = os.path.relpath(within, root)
    if relative == os.curdir:
        return False
    if relative.startswith(os.pardir):
        return True
    folder = root
    for part in relative.split(os.sep):
        folder = os.path.join(folder, part)
        try:
            if not stat.S_ISDIR(os.lstat(folder).st_mode):
                return True
        except FileNotFoundError:
            return False  # made by the write, as a real folder
        except OSError:
            return True
    if os.path.isabs(root):
        _CACHE_FOLDERS[within] = root
    return False


#: A cache entry read (a hit) whose modification time is older than this has it set to now: the
#: time that :mod:`hooklint.prune` removes the least recently used entries by. Within the hour an
#: entry is not touched again, so a warm run over an unchanged tree stays a stat pass (no write).
REFRESH_NS = 3600 * 1_000_000_000

#: Whether this process wrote a cache entry (:func:`store_entry`): :func:`hooklint.prune.after_run`
#: looks at the cache folder's size only after a run that did.
_written = False


def entries_written() -> bool:
    """Whether this process wrote a cache entry since it started (:func:`store_entry`), or started
    workers that may have (:func:`note_written`)."""
    return _written


def note_written() -> None:
    """Say that cache entries may have been written for this process: by the ``--jobs`` workers it
    started (their writes are not seen here)."""
    global _written
    _written = True


def read_entry(entry: str, max_size: int = 1 << 30) -> Any:
    """The JSON value of the cache entry ``entry``, or None when it is missing, a symbolic link
    (never followed), not a regular file, too large or not JSON: a cache entry that cannot be
    read is a miss, never an error; so is one under a folder of the cache that is a link.

    An entry read whose modification time is more than :data:`REFRESH_NS` old is given the time
    of now (through the open file, never a link): its last use, by which pruning keeps the most
    recently used entries (:mod:`hooklint.prune`)."""
    if _linked_folders(entry):
        return None
    try:
        fd = os.open(entry, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > max_size:
            return None
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        value = json.loads(b"".join(chunks))
        if info.st_mtime_ns < time.time_ns() - REFRESH_NS and os.utime in os.supports_fd:
            try:
                os.utime(fd)  # a hit: used now (a read-only cache folder keeps its times)
            except OSError:
                pass
        return value
    except (OSError, ValueError, RecursionError):
        return None
    finally:
        os.close(fd)


def _temporary_beside(entry: str) -> tuple[int, str] | None:
    """A new temporary file (descriptor, path) in the folder of the cache entry ``entry``, that
    folder made first when it is not known to be there (:data:`_CACHE_FOLDERS`); None when a folder
    on its way is a link. Raises OSError when it cannot be made."""
    folder = os.path.dirname(entry)
    if folder not in _CACHE_FOLDERS:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        if _linked_folders(entry):
            return None
    try:
        return tempfile.mkstemp(dir=folder, prefix="hooklint-", suffix=".tmp")
    except FileNotFoundError:  # removed since it was seen (another run's prune): made again
        _CACHE_FOLDERS.pop(folder, None)
        os.makedirs(folder, mode=0o700, exist_ok=True)
        return None if _linked_folders(entry) else tempfile.mkstemp(dir=folder, prefix="hooklint-", suffix=".tmp")


def store_entry(entry: str, value: Any) -> None:
    """Write ``value`` as JSON to the cache entry ``entry``, through a temporary file beside it
    renamed into place (a reader sees the old entry or the new one; a link at ``entry`` is
    replaced, never written through; nothing is written under a folder of the cache that is a
    link). The temporary file is removed however the write ends (a full disk, Ctrl-C, SIGTERM); a
    cache that cannot be written is ignored."""
    tmp = None
    try:
        if _linked_folders(entry):  # a folder of the cache that is a link: never written through
            return
        made = _temporary_beside(entry)
        if made is None:
            return
        fd, tmp = made
        text = json.dumps(value, separators=(",", ":"))  # one string by the C encoder (json.dump: Python's, in pieces)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, entry)
        tmp = None
        global _written
        _written = True
    except (OSError, ValueError, TypeError, RecursionError):
        pass
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
