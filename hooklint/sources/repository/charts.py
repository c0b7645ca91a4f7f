"""Packaged charts of the repository (``charts/*.tgz``), read within bounds: how many members, how
many bytes, how deep archives nest. Helm loads a packaged subchart from its archive
(``pkg/chart/loader/archive/archive.go``); hooklint reads what it needs of one (every file, for
redaction, its ``values.schema.json`` for the loads a schema would make) without unpacking it.
"""

from __future__ import annotations

import io
import tarfile
from zlib import error as zlib_error

from hooklint.sources.repository.gotar import gunzipped, tar_disagreement

#: Archives read (for values, for schemas): members, bytes and nesting looked at, at most.
MAX_ARCHIVE_MEMBERS, MAX_ARCHIVE_BYTES, MAX_ARCHIVE_DEPTH = 10_000, 64 << 20, 3


def packaged_files(data: bytes, depth: int = 0) -> tuple[list[tuple[str, bytes]], bool]:
    """Every regular file of a packaged chart (its bytes: ``charts/*.tgz``) as ``(member name,
    bytes)``, the files of the archives nested in it under ``<archive member>/<their name>``, and
    whether all of it was read: within :data:`MAX_ARCHIVE_MEMBERS` members, :data:`MAX_ARCHIVE_BYTES`
    bytes of the unpacked stream (so at most that much is kept) and :data:`MAX_ARCHIVE_DEPTH`
    nestings, an archive that reads to its end. Helm loads every file of a subchart from its archive
    (``pkg/chart/loader/archive/archive.go``: templates, values, ``files/``), so a template may print
    any of them (redaction, attacker trial 24 B5). An archive Go's ``archive/tar`` reads otherwise
    than Python's ``tarfile`` (:func:`hooklint.sources.repository.gotar.tar_disagreement`: a PAX
    global header, a prefix Go does not read, attacker trials 25 B7 and 27 B3) is not read whole:
    Helm's files are not the ones read here."""
    found: list[tuple[str, bytes]] = []
    raw, complete = gunzipped(data, MAX_ARCHIVE_BYTES)
    whole = complete and tar_disagreement(raw) is None
    try:
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as tar:
            for count, member in enumerate(tar):
                if count >= MAX_ARCHIVE_MEMBERS or member.offset_data > MAX_ARCHIVE_BYTES:
                    return found, False
                if member.isdir():
                    continue
                if not member.isfile():
                    whole = False  # a link, or a type Go's archive/tar hands Helm as a file ('Z', 'A')
                    continue
                if member.size > MAX_ARCHIVE_BYTES or member.offset_data + member.size > MAX_ARCHIVE_BYTES:
                    return found, False  # what is kept stays within the bound (a gzip bomb's members)
                handle = tar.extractfile(member)
                content = handle.read() if handle is not None else b""
                if member.name.endswith(".tgz"):
                    if depth >= MAX_ARCHIVE_DEPTH:
                        whole = False
                        continue
                    inner, inner_whole = packaged_files(content, depth + 1)
                    found += [(f"{member.name}/{name}", text) for name, text in inner]
                    whole = whole and inner_whole
                else:
                    found.append((member.name, content))
    except (OSError, tarfile.TarError, EOFError, zlib_error):
        return found, False
    return found, whole
