"""A chart archive (``.tgz``) unpacked as untrusted input: into a new folder, nothing else touched.

Helm reads a chart archive as a gzip-compressed tar whose members all lie under one top folder,
the chart's (``pkg/chart/loader/archive.go`` ``LoadArchiveFiles``: the first path component is
dropped). hooklint unpacks it the same way and refuses, with one line, what Helm would not need and
an attacker could use: a member that is a symbolic or hard link, a device, FIFO or anything but a
regular file or folder; a name that is absolute, holds ``..``, an empty or ``.git`` component, a
NUL or backslash, or leaves the top folder; two members with one name; more files than the fetch's
``max_files`` or more bytes, once decompressed, than its ``max_bytes`` (a gzip or tar bomb stops
at the limit, not at the end); an archive Go's ``archive/tar`` (Helm, Argo CD's ``Untgz``) would
read otherwise than Python's ``tarfile`` (:func:`hooklint.sources.repository.gotar.tar_disagreement`:
a PAX global header, a prefix Go does not read, ...). Files are created with ``O_EXCL | O_NOFOLLOW``
and mode 0644.
"""

from __future__ import annotations

import gzip
import io
import os
import tarfile

from hooklint.sources.fetch.net import Budget, FetchError
from hooklint.sources.repository.gotar import tar_disagreement


class _Bounded(io.RawIOBase):
    """A readable stream over ``inner`` that charges every byte to ``budget``."""

    def __init__(self, inner: io.BufferedIOBase, budget: Budget, what: str):
        self.inner, self.budget, self.what = inner, budget, what

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self.inner.read(len(buffer))
        try:
            self.budget.take(len(data))
        except FetchError as exc:
            raise FetchError(f"{self.what} unpacks to {exc}") from None
        buffer[: len(data)] = data
        return len(data)


def unpack_chart(data: bytes, destination: str, budget: Budget, what: str) -> str:
    """Unpack the chart archive ``data`` into the new folder ``destination`` (made here; its parent
    must exist) and return the chart's folder in it (``destination/<top folder>``). ``what`` names
    the archive in messages. The tar stream is decompressed first (every byte charged to ``budget``)
    and read only when Go would read its members as Python does (:func:`tar_disagreement`: Helm
    renders what Argo CD untars with Go). Raises :class:`FetchError` (the folder may then hold part
    of it)."""
    os.mkdir(destination, 0o755)
    top: str | None = None
    seen: set[str] = set()
    try:
        with io.BufferedReader(_Bounded(gzip.GzipFile(fileobj=io.BytesIO(data)), budget, what), 1 << 16) as stream:
            raw = stream.read()
        why = tar_disagreement(raw)
        if why is not None:
            raise FetchError(f"{what} {why}")
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as archive:
            for member in archive:
                name = member.name
                parts = name.split("/")
                while parts and parts[-1] == "":
                    parts.pop()  # "chart/templates/" names a folder
                if (not parts or name.startswith("/") or "\\" in name or "\0" in name
                        or any(p in ("", ".", "..") or p.lower() == ".git" for p in parts)):  # fmt: skip
                    raise FetchError(f"{what} holds a member named {name!r}, which no chart holds: refused")
                if top is None:
                    top = parts[0]
                elif parts[0] != top:
                    raise FetchError(f"{what} holds {name!r} outside its top folder {top!r}: refused")
                if member.issym() or member.islnk():
                    raise FetchError(f"{what} holds a link, {name!r} -> {member.linkname!r}: refused")
                if member.isdir():
                    real_folders(destination, parts)
                    continue
                if not member.isreg():
                    raise FetchError(f"{what} holds {name!r}, which is not a regular file or folder: refused")
                if "/".join(parts) in seen:
                    raise FetchError(f"{what} holds {name!r} twice: refused")
                seen.add("/".join(parts))
                budget.file()
                handle = archive.extractfile(member)
                if handle is None:
                    raise FetchError(f"{what}: {name!r} cannot be read")
                parent = real_folders(destination, parts[:-1])
                fd = os.open(os.path.join(parent, parts[-1]), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
                with os.fdopen(fd, "wb") as out:
                    while chunk := handle.read(1 << 16):
                        out.write(chunk)
    except FetchError:
        raise
    except (tarfile.TarError, OSError, EOFError, gzip.BadGzipFile) as exc:
        raise FetchError(f"{what} is not a readable chart archive ({exc})") from None
    if top is None:
        raise FetchError(f"{what} is empty")
    chart = os.path.join(destination, top)
    if not os.path.isfile(os.path.join(chart, "Chart.yaml")):
        raise FetchError(f"{what} holds no {top}/Chart.yaml: not a chart")
    return chart


def real_folders(destination: str, parts: list[str]) -> str:
    """``destination/parts...`` as real folders (never through a link); FetchError on a clash."""
    where = destination
    for part in parts:
        where = os.path.join(where, part)
        try:
            os.mkdir(where, 0o755)
        except FileExistsError:
            if os.path.islink(where) or not os.path.isdir(where):
                raise FetchError(f"{'/'.join(parts)} clashes with a file of the same name: refused") from None
    return where
