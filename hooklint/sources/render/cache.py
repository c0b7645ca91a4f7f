"""The render cache: a rendering is stored under a hash of everything that can change it
(hooklint's version, the renderer, its path and version, the options, and for every input file
its path as reached, the symbolic links on the way, its resolved path and its bytes), in the user's cache
folder, so that re-running hooklint on an unchanged overlay or chart renders nothing.

Where: ``$HOOKLINT_CACHE_DIR``, else ``$XDG_CACHE_HOME/hooklint``, else ``~/.cache/hooklint``.
``HOOKLINT_CACHE_DIR=off`` turns the cache off. Entries are JSON files written atomically; a
corrupt or unreadable entry is a miss, and a cache folder that cannot be written is ignored: the
cache can make hooklint faster, never wrong or failing.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from typing import Callable, Iterable

from hooklint import __version__
from hooklint.sources.repository import facts
from hooklint.sources.render.rendered import Rendering

#: Bumped when what is stored changes shape or meaning: old entries then miss.
CACHE_FORMAT = "2"


def cache_dir() -> str | None:
    """The cache folder, or None when the cache is off (``HOOKLINT_CACHE_DIR=off``)."""
    explicit = os.environ.get("HOOKLINT_CACHE_DIR")
    if explicit:
        return None if explicit == "off" else explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "hooklint")


def input_key(parts: Iterable[str], files: Iterable[str], root: str) -> str:
    """A hex SHA-256 over hooklint's version, ``parts`` (renderer, its path and version, options
    as text) and, for every path of ``files`` (sorted): its path relative to ``root`` as reached,
    the target of every symbolic link on the way (so re-pointing ``base -> ../v1`` to ``../v2``
    changes the key even when the files behind both read alike), its resolved path relative to
    the resolved ``root``, and its bytes (a folder counts as a folder; a file that cannot be read
    counts as missing). A renderer reads only what these describe (its copy is made from them),
    so two renderings with one key are the same."""
    digest = hashlib.sha256(CACHE_FORMAT.encode())
    digest.update(b"\0v" + __version__.encode())
    for part in parts:
        digest.update(b"\0p")
        digest.update(part.encode("utf-8", "surrogatepass"))
    real_root = facts.realpath(root)
    for path in sorted(set(files)):
        digest.update(b"\0f")
        digest.update(os.path.relpath(path, root).encode("utf-8", "surrogateescape"))
        for link, target in _links_on_the_way(root, path):
            digest.update(b"\0l" + link.encode("utf-8", "surrogateescape") + b"\0" + target.encode("utf-8", "surrogateescape"))
        real = facts.realpath(path)
        digest.update(b"\0r" + os.path.relpath(real, real_root).encode("utf-8", "surrogateescape"))
        if os.path.isdir(real):
            digest.update(b"\0dir")
            continue
        try:
            digest.update(_file_digest(real))
        except OSError:
            digest.update(b"\0missing")
    return digest.hexdigest()


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


def _links_on_the_way(root: str, path: str) -> list[tuple[str, str]]:
    """``(link relative to the resolved root, its target as written)`` for every symbolic link met reaching ``path`` from
    ``root`` part by part (links inside link targets included, as the file system follows them)."""
    found: list[tuple[str, str]] = []
    real_root = current = facts.realpath(root)
    for part in os.path.relpath(path, root).split(os.sep):
        if part in ("", "."):
            continue
        candidate = os.path.join(current, part)
        try:
            is_link = stat.S_ISLNK(facts.lstat(candidate).st_mode)
        except OSError:
            is_link = False
        if is_link:
            try:
                found.append((os.path.relpath(candidate, real_root), os.readlink(candidate)))
            except OSError:
                pass
            current = facts.realpath(candidate)
        else:
            current = os.path.normpath(candidate)
    return found


def cached(kind: str, key: str, render: Callable[[], Rendering]) -> Rendering:
    """The rendering stored under ``kind``/``key``, else ``render()`` (stored for next time).

    ``render`` may raise :class:`~hooklint.sources.render.rendered.RenderError` or
    :class:`~hooklint.sources.render.rendered.RendererUnavailable`: failures are not cached."""
    folder = cache_dir()
    entry = os.path.join(folder, kind, key[:2], key + ".json") if folder else None
    if entry is not None:
        try:
            with open(entry, encoding="utf-8") as handle:
                return Rendering.from_json(json.load(handle))
        except (OSError, ValueError, KeyError, TypeError):
            pass
    rendering = render()
    if entry is not None:
        _store(entry, rendering)
    return rendering


def _store(entry: str, rendering: Rendering) -> None:
    """Write ``entry`` through a temporary file beside it and a rename; the temporary file is
    removed however the write ends (a full disk, Ctrl-C, SIGTERM)."""
    tmp = None
    try:
        os.makedirs(os.path.dirname(entry), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(entry), prefix="hooklint-", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(rendering.to_json(), handle)
        os.replace(tmp, entry)
        tmp = None
    except OSError:
        pass
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
