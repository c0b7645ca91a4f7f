"""Packaged charts of the repository (``charts/*.tgz``), read within bounds: how many members, how
many bytes, how deep archives nest. Helm loads a packaged subchart from its archive
(``pkg/chart/loader/archive/archive.go``); hooklint reads what it needs of one (its values files for
redaction, its ``values.schema.json`` for the loads a schema would make) without unpacking it.
"""

from __future__ import annotations

import io
import tarfile
from zlib import error as zlib_error

#: Archives read (for values, for schemas): members, bytes and nesting looked at, at most.
MAX_ARCHIVE_MEMBERS, MAX_ARCHIVE_BYTES, MAX_ARCHIVE_DEPTH = 10_000, 64 << 20, 3


def packaged_values(data: bytes, depth: int = 0) -> list[str]:
    """The texts of every ``values.yaml`` in a packaged chart (its bytes: ``charts/*.tgz``), nested
    archives included, read as :func:`hooklint.sources.render.helm.schema_loads` reads schemas:
    within :data:`MAX_ARCHIVE_MEMBERS` members, :data:`MAX_ARCHIVE_BYTES` bytes and
    :data:`MAX_ARCHIVE_DEPTH` nestings; what is past them, or
    an archive that does not read, is left out. Helm loads a subchart's values from its archive
    (``pkg/chart/loader/archive/archive.go``), so a template may print them (redaction: issue 34)."""
    found: list[str] = []
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            for count, member in enumerate(tar):
                if count >= MAX_ARCHIVE_MEMBERS or member.offset_data > MAX_ARCHIVE_BYTES:
                    break
                name = member.name.rsplit("/", 1)[-1]
                if not member.isfile() or member.size > MAX_ARCHIVE_BYTES:
                    continue
                if name == "values.yaml" or (name.endswith(".tgz") and depth < MAX_ARCHIVE_DEPTH):
                    handle = tar.extractfile(member)
                    content = handle.read() if handle is not None else b""
                    if name.endswith(".tgz"):
                        found.extend(packaged_values(content, depth + 1))
                    else:
                        found.append(content.decode("utf-8", "replace").removeprefix("\ufeff"))
    except (OSError, tarfile.TarError, EOFError, zlib_error):
        return found
    return found
