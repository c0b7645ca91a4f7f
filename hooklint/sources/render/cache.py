"""The render cache: a rendering is stored under a hash of everything that can change it
(hooklint's version, the renderer, its path and version, the options, and for every input file
its path as reached, the symbolic links on the way, its resolved path and its bytes), in the user's cache
folder, so that re-running hooklint on an unchanged overlay or chart renders nothing. A rendering
that failed (kustomize or Helm said no) is stored the same way, under the same key, so that an
unchanged failing kustomization is not run again (:func:`cached`); one a limit, a signal or the
run's deadline stopped is not (it may render next time).

The bytes of an input are hashed only when its stat signature (size, modification time, inode:
:func:`hooklint.files.stat_signature`) changed since the last key over the same files
(ccache's "direct mode", :func:`input_key`).

Where: :func:`hooklint.files.cache_dir` (``$HOOKLINT_CACHE_DIR``, else ``$XDG_CACHE_HOME/hooklint``,
else ``~/.cache/hooklint``). ``HOOKLINT_CACHE_DIR=off`` (``--no-cache``) turns the cache off. Entries
are JSON files written atomically, never read through a link; a corrupt or unreadable entry is a
miss, and a cache folder that cannot be written is ignored: the cache can make hooklint faster,
never wrong or failing.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from typing import Callable, Iterable

from hooklint import __version__
from hooklint.catalog import code_signature
from hooklint.files import (cache_dir, note_input, note_volatile, read_entry, stat_signature, store_entry, trusted,
                            unrecorded)
from hooklint.sources.repository import facts
from hooklint.sources.render.rendered import Rendering, RenderError

#: Bumped when what is stored changes shape or meaning: old entries then miss.
CACHE_FORMAT = "4"

__all__ = ["CACHE_FORMAT", "cache_dir", "cached", "input_key", "remembered_answer"]


def remembered_answer(question: str, program: str, ask: Callable[[], str]) -> str:
    """What ``program`` (an absolute path) answers to ``question`` (its version command, as text),
    asked once per program: ``ask()`` the first time, kept in the cache folder under the program's
    resolved path and stat signature (size, modification and change times, inode: an upgrade is another
    program), and read from there by every later run and worker. An empty answer (the program
    could not be run, or said nothing) is not kept; with the cache off, ``ask()`` every time."""
    folder = cache_dir()
    real = os.path.realpath(program)
    signature = stat_signature(real)
    if folder is None or signature[0] != "f":
        return ask()
    name = hashlib.sha256(json.dumps([CACHE_FORMAT, question, real, signature]).encode("utf-8", "surrogateescape"))
    entry = os.path.join(folder, "programs", name.hexdigest() + ".json")
    stored = read_entry(entry)
    if isinstance(stored, dict) and isinstance(stored.get("answer"), str):
        return stored["answer"]
    answer = ask()
    if answer:
        store_entry(entry, {"answer": answer})
    return answer


def input_key(parts: Iterable[str], files: Iterable[str], root: str) -> str:
    """A hex SHA-256 over hooklint's version, ``parts`` (renderer, its path and version, options
    as text) and, for every path of ``files`` (sorted): its path relative to ``root`` as reached,
    the target of every symbolic link on the way (so re-pointing ``base -> ../v1`` to ``../v2``
    changes the key even when the files behind both read alike), its resolved path relative to
    the resolved ``root``, and its bytes (a folder counts as a folder; a file that cannot be read
    counts as missing). A renderer reads only what these describe (its copy is made from them),
    so two renderings with one key are the same.

    Direct mode: the bytes' hashes of the last key over the same ``parts``, ``files`` and ``root``
    are kept beside the renderings with each file's stat signature; a file whose signature is
    unchanged (and not racily new: :func:`hooklint.files.trusted`) is not read again. Every file is
    named to the running :func:`hooklint.files.recording` (the result cache's inputs)."""
    paths = sorted(set(files))
    parts = list(parts)
    digest = hashlib.sha256(CACHE_FORMAT.encode())
    digest.update(b"\0v" + __version__.encode() + b"\0c" + code_signature().encode())
    for part in parts:
        digest.update(b"\0p")
        digest.update(part.encode("utf-8", "surrogatepass"))
    memo_entry = _memo_entry(parts, paths, root)
    memo = read_entry(memo_entry) if memo_entry is not None else None
    known: dict = memo.get("files", {}) if isinstance(memo, dict) and isinstance(memo.get("files"), dict) else {}
    taken = memo.get("taken", 0) if isinstance(memo, dict) and isinstance(memo.get("taken"), int) else 0
    now = time.time_ns()
    fresh: dict[str, list] = {}
    real_root = facts.realpath(root)
    links = _Links(root)
    for path in paths:
        digest.update(b"\0f")
        digest.update(os.path.relpath(path, root).encode("utf-8", "surrogateescape"))
        for link, target in links.on_the_way(path):
            digest.update(b"\0l" + link.encode("utf-8", "surrogateescape") + b"\0" + target.encode("utf-8", "surrogateescape"))
        real = facts.realpath(path)
        digest.update(b"\0r" + os.path.relpath(real, real_root).encode("utf-8", "surrogateescape"))
        signature = stat_signature(real)
        if signature[0] == "d":
            digest.update(b"\0dir")
            note_input(path)
            continue
        before = known.get(real)
        if (isinstance(before, list) and len(before) == 2 and before[0] == signature and signature[0] == "f"
                and trusted(signature, taken)):  # fmt: skip
            hexdigest = before[1]
        else:
            try:
                hexdigest = _file_digest(real).hex()
            except OSError:
                hexdigest = ""
        fresh[real] = [signature, hexdigest]
        note_input(path, hexdigest or None)
        digest.update(bytes.fromhex(hexdigest) if hexdigest else b"\0missing")
    if memo_entry is not None and fresh != known:
        store_entry(memo_entry, {"taken": now, "files": fresh})
    key = digest.hexdigest()
    if len(_KEYED) >= 4096:
        _KEYED.clear()
    _KEYED[key] = {real: signature for real, (signature, _) in fresh.items()}
    return key


#: key -> {resolved path: stat signature} of the files :func:`input_key` hashed for it in this
#: process: :func:`cached` keeps a rendering only when each still has it after the render.
_KEYED: dict[str, dict[str, list]] = {}


def _inputs_unchanged(key: str) -> bool:
    """Whether every file :func:`input_key` hashed for ``key`` still has the stat signature it had
    then. The renderer reads its own copy of the inputs, made after the key: a file changed in
    between (an editor saving, a process beside hooklint) gives a rendering of other bytes than
    the key's, which kept would answer for the key's bytes on every later run (attacker trial 35,
    2 and 4: a privileged hook passed). A key this process did not make is never kept either."""
    keyed = _KEYED.get(key)
    return keyed is not None and all(stat_signature(real) == signature for real, signature in keyed.items())


def _memo_entry(parts: list[str], paths: list[str], root: str) -> str | None:
    """Where :func:`input_key` keeps the hashes of ``paths`` (None: the cache is off)."""
    folder = cache_dir()
    if folder is None:
        return None
    name = hashlib.sha256(CACHE_FORMAT.encode())
    for text in (__version__, code_signature(), os.path.abspath(root), *parts, "\0files", *paths):
        name.update(text.encode("utf-8", "surrogateescape") + b"\0")
    key = name.hexdigest()
    return os.path.join(folder, "inputs", key[:2], key + ".json")


def _file_digest(path: str) -> bytes:
    """SHA-256 of the regular file ``path``, read in chunks; opened without blocking (a FIFO never
    stalls a run) and refused (OSError) when it is not a regular file."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path}: not a regular file")
        digest = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
        return digest.digest()
    finally:
        os.close(fd)


class _Links:
    """The symbolic links on the way from ``root`` to paths below it, each folder's found once
    (the files of one key share their folders: a folder's parts are not looked at again)."""

    def __init__(self, root: str):
        self.root = root
        self.real_root = facts.realpath(root)
        #: folder relative to root -> (its resolved path, the links met reaching it)
        self.folders: dict[str, tuple[str, list[tuple[str, str]]]] = {"": (self.real_root, [])}

    def on_the_way(self, path: str) -> list[tuple[str, str]]:
        """``(link relative to the resolved root, its target as written)`` for every symbolic link
        met reaching ``path`` from ``root`` part by part (links inside link targets included, as
        the file system follows them)."""
        relative = os.path.relpath(path, self.root)
        folder, _, leaf = relative.rpartition(os.sep)
        current, found = self._folder(folder)
        return found + self._step(current, leaf)[1]

    def _folder(self, folder: str) -> tuple[str, list[tuple[str, str]]]:
        """The resolved path of ``folder`` (relative to root) and the links met reaching it: from its
        nearest folder already known, one part at a time (no recursion: a tree may nest deeper than
        Python's recursion limit)."""
        if folder == ".":
            folder = ""
        missing = []
        while folder not in self.folders:
            folder, _, leaf = folder.rpartition(os.sep)
            missing.append(leaf)
        current, found = self.folders[folder]
        for leaf in reversed(missing):
            current, more = self._step(current, leaf)
            found = found + more
            folder = os.path.join(folder, leaf) if folder else leaf
            self.folders[folder] = (current, found)
        return current, found

    def _step(self, current: str, part: str) -> tuple[str, list[tuple[str, str]]]:
        if part in ("", "."):
            return current, []
        candidate = os.path.join(current, part)
        try:
            is_link = stat.S_ISLNK(facts.lstat(candidate).st_mode)
        except OSError:
            is_link = False
        if is_link:
            try:
                found = [(os.path.relpath(candidate, self.real_root), os.readlink(candidate))]
            except OSError:
                found = []
            return facts.realpath(candidate), found
        return os.path.normpath(candidate), []


def _links_on_the_way(root: str, path: str) -> list[tuple[str, str]]:
    """``(link relative to the resolved root, its target as written)`` for every symbolic link met reaching ``path`` from
    ``root`` part by part (links inside link targets included, as the file system follows them)."""
    return _Links(root).on_the_way(path)


def cached(kind: str, key: str, render: Callable[[], Rendering], volatile: Callable[[], bool] | None = None) -> Rendering:
    """The rendering stored under ``kind``/``key``, else ``render()`` (stored for next time).

    ``volatile()`` (asked after a render, never on a hit) says whether the inputs ask for a result
    that is not a function of them (a Helm template calling ``now`` or ``randAlphaNum``): then
    only a marker is stored under the key, every later run renders again, and the running
    :func:`hooklint.files.recording` is told (:func:`hooklint.files.note_volatile`: the result
    cache keeps none of it), so output is the same with and without caches.

    ``render`` may raise :class:`~hooklint.sources.render.rendered.RenderError` or
    :class:`~hooklint.sources.render.rendered.RendererUnavailable`. A RenderError is stored too
    (its message as the renderer said it, path, position, what Argo CD does, its inputs) and raised
    again from the entry next time, unless it is ``transient`` (a limit, a signal, the run's
    deadline stopped the renderer, or it could not be started). Neither is stored when an input
    changed between the key and the end of the render (:func:`_inputs_unchanged`: the result
    cache is told, as for a volatile one). The error raised carries ``key``
    as ``cache_key`` either way, for the caller's cache of its redacted message. A
    RendererUnavailable is never stored."""
    folder = cache_dir()
    entry = os.path.join(folder, kind, key[:2], key + ".json") if folder else None
    if entry is not None:
        stored = read_entry(entry)
        if isinstance(stored, dict) and stored.get("volatile") is True:
            return _render_volatile(render)
        try:
            if isinstance(stored, dict) and "failed" in stored:
                raise _error_of(stored["failed"], key)
            if stored is not None:
                return Rendering.from_json(stored)
        except (ValueError, KeyError, TypeError, AttributeError):
            pass
    try:
        with unrecorded():  # it reads its copy of the inputs the key covers (recorded by input_key)
            rendering = render()
    except RenderError as error:
        if volatile is not None and volatile():
            note_volatile()
            if entry is not None:
                store_entry(entry, {"volatile": True})
            raise
        error.cache_key = key
        if entry is not None and not error.transient:
            _keep(entry, key, {"failed": _error_json(error)})
        raise
    if volatile is not None and volatile():
        note_volatile()
        if entry is not None:
            store_entry(entry, {"volatile": True})
        return rendering
    if entry is not None:
        _keep(entry, key, rendering.to_json())
    return rendering


def _keep(entry: str, key: str, stored: dict) -> None:
    """Store ``stored`` (a rendering or a failure) at ``entry`` when the inputs of ``key`` are as
    they were when it was made (:func:`_inputs_unchanged`); else it was rendered from other bytes
    than the key's: kept by neither cache (the running recording is told)."""
    if _inputs_unchanged(key):
        store_entry(entry, stored)
    else:
        note_volatile()


def _render_volatile(render: Callable[[], Rendering]) -> Rendering:
    """``render()`` of inputs a marker says are volatile: nothing stored, the recording told, a
    RenderError raised without a ``cache_key`` (its redacted message is not kept either)."""
    note_volatile()
    with unrecorded():
        return render()


def _error_json(error: RenderError) -> dict:
    return {"message": error.message, "path": error.path, "line": error.line, "column": error.column,
            "needs_network": error.needs_network, "argocd_renders": error.argocd_renders,
            "unchecked": error.unchecked, "inputs": list(error.inputs)}  # fmt: skip


def _error_of(data: dict, key: str) -> RenderError:
    """The RenderError :func:`_error_json` stored (TypeError, KeyError or ValueError: a corrupt entry)."""
    texts = [data["message"], data["path"], data["unchecked"]]
    if not all(isinstance(t, str) for t in texts) or not isinstance(data["inputs"], list):
        raise ValueError("corrupt entry")
    error = RenderError(data["message"], data["path"], int(data["line"]), int(data["column"]),
                        needs_network=bool(data["needs_network"]), argocd_renders=data["argocd_renders"],
                        unchecked=data["unchecked"])  # fmt: skip
    error.inputs = tuple(str(p) for p in data["inputs"])
    error.cache_key = key
    return error
