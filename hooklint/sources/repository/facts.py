"""File-system facts of one run, each found once: whether a walked path is a symbolic link, the
``os.stat`` of a file discovery reads, the git repository holding a folder.

Discovery asked the same questions of every file several times (the bench's 5,000-file tree made
11,110 ``git_root`` calls and ~86,000 ``stat``/``lstat`` calls, issue 24); these memos answer each
one once per path. :func:`reset` starts a run (:func:`hooklint.sources.appmap.discovery.group_applications`
calls it), so no answer outlives the run that found it: a later run in the same process (tests, the
pre-commit hook) sees the tree as it is then. Nothing here changes what is read or refused; a path
the memos do not know is asked of the file system as before.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Iterator
from typing import Any
from stat import S_ISDIR, S_ISLNK, S_ISREG

from hooklint import files, loader
from hooklint.files import read_bytes
from hooklint.loader import DEFAULT_MAX_FILE_SIZE, LoadedFile, parse_bytes, read_file
from hooklint.sources.repository import git, spelling
from hooklint.yamlio import Map

#: path (as walked, normalised) -> whether it is a symbolic link, from the folder listing (d_type:
#: no system call); only the files of the walk.
_links: dict[str, bool] = {}
#: path -> its os.stat result, or the OSError that stat raised
_stats: dict[str, "os.stat_result | OSError"] = {}
#: (path, max_size) -> what :func:`read_regular` read (None: not a regular file of at most max_size)
_contents: dict[tuple[str, int], "bytes | None"] = {}
#: The largest file whose bytes discovery's scans share (bigger ones are read by each scan).
KEPT_CONTENT = 1 << 20
#: (path, max_size) -> what :func:`read_parsed` read and parsed, until forget_contents
_read: dict[tuple[str, int], LoadedFile] = {}
#: path -> (the bytes read_regular kept, what :func:`parsed_regular` parsed of them), until forget_contents
_parsed: dict[str, tuple[bytes, LoadedFile]] = {}
#: path -> (what :func:`read_parsed` or :func:`parsed_regular` parsed of it, the hex SHA-256 of the
#: bytes parsed): a file discovery's scans parsed whole (an Application's, a RoleBinding's), kept
#: past forget_contents for the lint stage to take once (:func:`take_parsed`) instead of parsing it
#: again
_handed: dict[str, tuple[LoadedFile, str]] = {}
#: absolute path -> its os.path.abspath (its normpath), for :func:`absolute`
_absolute: dict[str, str] = {}
#: path -> its os.lstat result, or the OSError that lstat raised
_lstats: dict[str, "os.stat_result | OSError"] = {}
#: absolute folder -> its git root (None outside one), shared by every caller of the run
_roots: dict[str, "str | None"] = {}
#: absolute path (as given, joined to the current folder) -> its os.path.realpath
_reals: dict[str, str] = {}
#: git root -> its checked-out revision (:func:`hooklint.sources.repository.git.checked_out`)
_checkouts: dict[str, "git.CheckedOut"] = {}
#: absolute folder -> the names of its entries that are not folders (links not followed), or None
#: when it cannot be listed
_names: dict[str, "tuple[str, ...] | None"] = {}
#: absolute path of an entry a walk of this run listed -> whether it is a symbolic link (from the
#: listing's d_type: what ``os.lstat`` says of it)
_entry_links: dict[str, bool] = {}
#: name -> a memo of this run (:func:`memo`)
_memos: dict[str, dict] = {}
#: absolute folders a walk of this run listed with no ``.git`` entry (of any kind)
_without_git: set[str] = set()
#: absolute folder -> how Argo CD types it (:func:`hooklint.sources.repository.tree.source_type`),
#: from the names of _names
_types: dict[str, tuple[str, "str | None"]] = {}


def reset() -> None:
    """Forget every fact: the start of a run."""
    _links.clear()
    _stats.clear()
    _contents.clear()
    _read.clear()
    _parsed.clear()
    _handed.clear()
    _absolute.clear()
    spelling.forget()
    _lstats.clear()
    _roots.clear()
    _reals.clear()
    _names.clear()
    _types.clear()
    _entry_links.clear()
    _without_git.clear()
    _memos.clear()
    _checkouts.clear()
    files.forget_runs_answers()
    sandbox = sys.modules.get("hooklint.sources.sandbox")  # only a run that rendered has programs to forget
    if sandbox is not None:
        sandbox.forget()


def note_walked(path: str, is_link: bool) -> None:
    """Record that the walk listed ``path`` (a file entry) and whether it is a symbolic link."""
    _links[os.path.normpath(path)] = is_link


def walked_regular(path: str) -> bool:
    """Whether the walk of this run listed ``path`` as an entry that is not a symbolic link (so it
    exists, and its real path is its folder's real path joined with its name)."""
    files.note_looked(path)
    return _links.get(os.path.normpath(path)) is False


def walked_link(path: str) -> bool | None:
    """True/False when the walk listed ``path`` (a link or not), None when it did not."""
    files.note_looked(path)
    return _links.get(os.path.normpath(path))


def _asked_once(memo: dict[str, "os.stat_result | OSError"], ask: Any, path: str) -> os.stat_result:
    """``ask(path)`` (``os.stat`` or ``os.lstat``) the first time in the run, its answer kept in
    ``memo``; raises the OSError it raised (FileNotFoundError for a name holding a NUL). The path
    is told to the result cache's observers (:func:`hooklint.files.note_looked`) however answered:
    what an application's loading asked is an input of its entry even when discovery asked first."""
    files.note_looked(path)
    found = memo.get(path)
    if found is None:
        try:
            found = ask(path)
        except OSError as error:
            found = error
        except ValueError:  # a NUL in the name: no such file
            found = FileNotFoundError(2, "No such file or directory", path)
        memo[path] = found
    if isinstance(found, OSError):
        raise found
    return found


def absolute(path: str) -> str:
    """``os.path.abspath(path)``, remembered for a path that is already absolute (its answer does
    not depend on the current folder): discovery asks it of each file and folder many times (some
    35,000 calls for the bench's 2,000 files)."""
    found = _absolute.get(path)
    if found is None:
        found = os.path.abspath(path)
        if os.path.isabs(path):
            _absolute[path] = found
    return found


def stat(path: str) -> os.stat_result:
    """``os.stat(path)`` (links followed), asked once per run; raises the OSError it raised."""
    return _asked_once(_stats, os.stat, path)


def known_root(folder: str) -> tuple[bool, str | None]:
    """``(True, root)`` when this run's discovery already found the git root of ``folder``, else
    ``(False, None)``: for callers that may run outside a discovery run (they ask git_root then,
    and keep nothing)."""
    key = absolute(folder)
    return (True, _roots[key]) if key in _roots else (False, None)


def git_root_of(folder: str) -> str | None:
    """:func:`hooklint.sources.repository.git.git_root` of ``folder``, called once per folder of the
    run (its answers for the folders above are kept as well)."""
    key = absolute(folder)
    if key in _roots:
        return _roots[key]
    return git.git_root(key, _roots, _without_git)


def checked_out(root: str) -> "git.CheckedOut":
    """:func:`hooklint.sources.repository.git.checked_out` of the repository at ``root``, read once per run."""
    key = os.path.abspath(root)
    if key not in _checkouts:
        _checkouts[key] = git.checked_out(key)
    return _checkouts[key]


def is_file(path: str) -> bool:
    """``os.path.isfile(path)`` from :func:`stat` (asked once per run)."""
    try:
        return S_ISREG(stat(path).st_mode)
    except OSError:
        return False


def is_dir(path: str) -> bool:
    """``os.path.isdir(path)`` from :func:`stat` (asked once per run)."""
    try:
        return S_ISDIR(stat(path).st_mode)
    except OSError:
        return False


def entry_names(folder: str) -> tuple[str, ...] | None:
    """The names of the entries of ``folder`` that are not folders when links are not followed
    (files, links of any kind, sockets), in no particular order, listed once per run; None when it
    cannot be listed. What Go's ``filepath.Walk`` calls a file (it looks at each entry with ``lstat``): the
    entries Argo CD's source-type discovery looks at (:func:`hooklint.sources.repository.tree.source_type`)."""
    key = absolute(folder)
    files.note_listed(folder)
    if key in _names:
        return _names[key]
    found: tuple[str, ...] | None
    try:
        with os.scandir(key) as listing:
            found = tuple(e.name for e in listing if not _is_folder(e))
    except (OSError, ValueError):
        found = None
    _names[key] = found
    return found


def note_names(folder: str, names: tuple[str, ...]) -> None:
    """Record what a walk of this run listed in ``folder``: the names :func:`entry_names` answers."""
    key = absolute(folder)
    _names[key] = names
    _types.pop(key, None)


def memo(name: str) -> dict:
    """The memo called ``name`` of this run: an empty dict at its start (:func:`reset`), for an
    answer derived only from the file system facts above (asked once per run like them)."""
    found = _memos.get(name)
    if found is None:
        found = _memos[name] = {}
    return found


def note_listing(folder: str, dirs: list[str], files: list[str], links: dict[str, bool]) -> None:
    """Record what a walk of this run listed in ``folder``: its folders ``dirs`` and other entries
    ``files`` (by name), and ``links`` (``folder/name`` -> whether it is a symbolic link, as
    :func:`hooklint.files.walk_tree` gives it: every folder that is one, each file). So
    :func:`realpath` asks no ``lstat`` of an entry the walk saw, and :func:`git_root_of` no
    ``stat`` of a ``.git`` in a folder that has none."""
    key = absolute(folder)
    # os.path.join of the folder (as walked, and absolute) and a name, written out: this runs once per entry
    walked = folder if not folder or folder.endswith(os.sep) else folder + os.sep
    full = key if key.endswith(os.sep) else key + os.sep
    for name in dirs:
        _entry_links[full + name] = links.get(walked + name, False)
    for name in files:
        is_link = links.get(walked + name)
        if is_link is not None:  # unknown when the listing could not tell
            _entry_links[full + name] = is_link
    if ".git" not in dirs and ".git" not in files:
        _without_git.add(key)


def folder_type(folder: str) -> tuple[str, str | None] | None:
    """What :func:`note_folder_type` recorded for the absolute ``folder`` in this run, or None (its
    entries' names: a listing, told to the result cache's observers)."""
    files.note_listed(folder)
    return _types.get(folder)


def note_folder_type(folder: str, found: tuple[str, str | None]) -> None:
    """Record how Argo CD types the absolute ``folder`` (from its :func:`entry_names`), for the run."""
    _types[folder] = found


def _is_folder(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def lstat(path: str) -> os.stat_result:
    """``os.lstat(path)`` (the link itself), asked once per run; raises the OSError it raised
    (FileNotFoundError for a name holding a NUL). Renders resolve every path of their inputs part
    by part (:func:`hooklint.sources.render.kustomize.render_kustomize`, the render cache's key):
    the folders on the way are the same for every file."""
    return _asked_once(_lstats, os.lstat, path)


def realpath(path: str) -> str:
    """``os.path.realpath(path)`` (non-strict, every link followed), with one ``lstat`` per path
    not seen before in the run: a normalised absolute path is its folder's real path (memoised)
    joined with its name, unless that name is a link, which ``os.path.realpath`` resolves. Paths
    with ``..``, ``.`` or doubled separators are resolved by ``os.path.realpath`` itself (``..``
    after a link is physical, not lexical). A name holding a NUL, which no file can have, is its
    normalised self (``os.path.realpath`` raises ValueError: a repository's entry must not stop
    the run). The path is told to the result cache's observers (:func:`hooklint.files.note_looked`)."""
    files.note_looked(path)
    key = path if os.path.isabs(path) else os.path.join(os.getcwd(), path)
    found = _reals.get(key)
    if found is not None:
        return found
    if "\0" in key:  # no file has such a name (the system refuses it): the name as written, normalised
        return os.path.normpath(key)
    if os.path.normpath(key) != key:
        found = os.path.realpath(key)
    else:  # up to the nearest folder already resolved, then down one lstat per name (no recursion)
        names = []
        probe = key
        while probe not in _reals:
            parent, name = os.path.split(probe)
            if not name or parent == probe:  # "/"
                _reals[probe] = os.path.realpath(probe)
                break
            names.append(name)
            probe = parent
        found = _reals[probe]
        for name in reversed(names):
            joined = os.path.join(found, name)
            # the walk's listing says whether the entry is a link (the same entry, reached through
            # the links above or not); else lstat
            listed = _entry_links.get(os.path.join(probe, name))
            if listed is not None:
                is_link = listed
            else:
                try:
                    is_link = S_ISLNK(lstat(joined).st_mode)
                except OSError:  # missing: os.path.realpath keeps the name as written
                    is_link = False
            found = os.path.realpath(joined) if is_link else joined
            probe = os.path.join(probe, name)
            _reals[probe] = found
        return found
    _reals[key] = found
    return found


def read_regular(path: str, max_size: int) -> bytes | None:
    """The bytes of ``path`` when it is a regular file (:func:`stat`, links followed) of at most
    ``max_size`` bytes; None otherwise, or when it cannot be read. The scans that look for a word
    before parsing (Applications, ApplicationSets and cluster Secrets, CRDs) read files this way: a
    FIFO would block, a ``/dev/fd`` pipe be consumed before linting. Each file of at most
    :data:`KEPT_CONTENT` bytes is read once for all of them, until :func:`forget_contents` (the end
    of discovery) or the next run."""
    key = (path, max_size)
    if key in _contents:
        return _contents[key]
    found: bytes | None
    try:
        if walked_regular(path):  # not a link: read_bytes's fstat of the open file refuses the rest
            found = read_bytes(path, max_size)
        else:
            info = stat(path)
            found = read_bytes(path, max_size) if S_ISREG(info.st_mode) and info.st_size <= max_size else None
    except OSError:  # NotRegularFile and FileTooLarge too
        found = None
    if found is None or len(found) <= KEPT_CONTENT:
        _contents[key] = found
        if found is not None:
            spelling.share(found)  # the scans' text tests search it for escapes once
    return found


def read_parsed(path: str, max_size: int, size: int) -> LoadedFile:
    """:func:`hooklint.loader.read_file` of ``path`` (``max_size``), parsed once for the scans of
    discovery that ask again (Applications, then their foreign repository URLs) until
    :func:`forget_contents`; only files of at most :data:`KEPT_CONTENT` bytes (``size``: the
    length of what :func:`read_regular` read) are kept, and handed to the lint stage
    (:func:`take_parsed`). Callers only read what it holds."""
    key = (path, max_size)
    found = _read.get(key)
    if found is None:
        kept = _parsed.get(path)  # the same bytes, whole, parsed by parsed_regular
        digest: str | None
        if kept is not None and len(kept[0]) == size <= max_size:
            found, digest = kept[1], _digest(kept[0])
        else:
            found, digest = _read_whole(path, max_size)
        if size <= KEPT_CONTENT:
            _read[key] = found
            if digest is not None:
                _handed[path] = (found, digest)
    return found


def _read_whole(path: str, max_size: int) -> tuple[LoadedFile, str | None]:
    """:func:`hooklint.loader.read_file` of ``path`` (``max_size``), and the hex SHA-256 of the
    bytes it parsed: None when it parsed none (the error read_file words), or for stdin or a
    stream (``/dev/``, ``/proc/``: read_file's own reading)."""
    if path == loader.STDIN or loader.is_stream(path):
        return read_file(path, max_size), None
    try:
        data = read_bytes(path, max_size)
    except (OSError, ValueError):  # NotRegularFile and FileTooLarge too
        return read_file(path, max_size), None
    return parse_bytes(path, data), _digest(data)


def _digest(data: bytes) -> str:
    """The hex SHA-256 of ``data``: what :func:`hooklint.files.read_bytes` records of a file read."""
    return hashlib.sha256(data).hexdigest()


def take_parsed(path: str, max_size: int) -> LoadedFile:
    """:func:`hooklint.loader.read_file` of ``path`` (``max_size``): what discovery's scans parsed
    of it (:func:`read_parsed`, :func:`parsed_regular`) when the file, read again now (the lint
    stage's limit), holds the bytes parsed, handed over once and forgotten (the lint stage adds its
    issues to what it takes, so a second reader of the same file parses it again); otherwise what
    reading it now gives, parsed or an input error. Discovery parses every Application file that
    names a repoURL and every file its repository scans read (RoleBindings, CRDs, hostPath
    volumes); linting parsed each a second time (the bench's 2,001-file tree: 2,654 parses when
    only the Applications' were handed over, 2,548 with the scans' too). stdin and streams
    (``/dev/``, ``/proc/``) are never handed over.

    The file is read again either way, so the application's result-cache entry holds the hash of
    the bytes it linted (:func:`hooklint.files.recording`): a file edited after discovery read it,
    its modification time set back, was linted as discovery read it and kept with its new stat
    signature, and every later run was answered with the old bytes' result."""
    handed = _handed.pop(path, None)
    if handed is None or path == loader.STDIN or loader.is_stream(path):
        return loader.read_file(path, max_size)
    found, digest = handed
    try:
        data = read_bytes(path, max_size)
    except (OSError, ValueError):  # NotRegularFile and FileTooLarge too: read_file words it
        return loader.read_file(path, max_size)
    return found if _digest(data) == digest else parse_bytes(path, data)


def parsed_regular(path: str, data: bytes) -> LoadedFile:
    """:func:`hooklint.loader.parse_bytes` of ``data``, the bytes :func:`read_regular` gave for
    ``path``, parsed once for the scans that ask again (the CRD scans) until
    :func:`forget_contents`; only files of at most :data:`KEPT_CONTENT` bytes are kept (the same
    bytes object: what :func:`read_regular` kept). Callers only read what it holds."""
    kept = _parsed.get(path)
    if kept is not None and kept[0] is data:
        return kept[1]
    read = _read.get((path, DEFAULT_MAX_FILE_SIZE))  # the whole file, parsed by read_parsed
    found = read if read is not None and read.error is None and len(data) <= DEFAULT_MAX_FILE_SIZE else parse_bytes(path, data)
    if len(data) <= KEPT_CONTENT:
        _parsed[path] = (data, found)
        if found is not read:  # the whole file: read_regular reads nothing larger than its limit
            _handed.setdefault(path, (found, _digest(data)))
    return found


def written_objects(path: str, data: bytes, kinds: tuple[str, ...], api_version: str) -> Iterator[Map]:
    """The objects of ``kinds`` and ``api_version`` written in ``path`` (whose bytes are ``data``,
    :func:`parsed_regular`): each document's mapping, or each item of a ``List``'s ``items``. The
    repository scans (hostPath volumes, bindings) read the files of other applications with it."""
    for doc in parsed_regular(path, data).documents:
        body = doc.value
        if not isinstance(body, Map):
            continue
        items = body.get("items")
        for item in items if isinstance(items, list) else [body]:
            if isinstance(item, Map) and item.get("kind") in kinds and item.get("apiVersion") == api_version:
                yield item


def forget_contents() -> None:
    """Drop the bytes :func:`read_regular` kept, and what was parsed of them: discovery is done with them."""
    _contents.clear()
    _read.clear()
    _parsed.clear()
    spelling.forget()
