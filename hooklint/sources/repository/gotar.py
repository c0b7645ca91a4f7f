"""Whether Go's ``archive/tar`` reads a tar archive's members as Python's ``tarfile`` does
(:func:`tar_disagreement`), decided from the raw 512-byte headers; and a chart archive's tar
stream, decompressed within a bound (:func:`gunzipped`).

Helm loads a chart archive (``pkg/chart/loader/archive``), Argo CD's repo server untars a fetched
chart (``util/io/files/tar.go`` ``Untgz``), both with Go's ``archive/tar``; hooklint reads the same
archives with Python's ``tarfile``, which reads some headers otherwise (attacker trial 27, B2/B3):
it applies a PAX global header (``g``) to every later member where Go returns it as an entry of its
own; it prepends bytes 345..500 as a ustar prefix whatever the header's magic, where Go reads them
as a GNU header's atime/ctime, as the star format's shorter prefix (a trailer ``tar\\0`` at 508) or
not at all (V7); it lets the first of two PAX ``x`` (or GNU ``L``) headers win where Go keeps the
last; it reads a Solaris ``X`` header as PAX; it decides a ``\\0`` member is a folder from the name
before its PAX path; it stops, silently, at a header it cannot parse where Go reads on. Each of
these gives hooklint other files than Helm and Argo CD see. So every reader of an archive asks
:func:`tar_disagreement` first and fails closed when Go would read it otherwise.

The model of Go (Go 1.22+ ``src/archive/tar/reader.go``: ``Reader.next``, ``readHeader``,
``handleRegularFile``, ``parsePAX``, ``mergePAX``; ``format.go`` ``getFormat``; ``strconv.go``
``parseNumeric``/``parseOctal``/``parsePAXRecord``) covers what a chart needs: regular files,
folders, links, PAX ``x`` and ``g`` headers and GNU long names (``L``); any other type (``K``,
``S``, ``7``, ``X``, devices, ...) or a sparse file is refused rather than modelled.
"""

from __future__ import annotations

import gzip
import io
import re
import tarfile
import zlib
from typing import NamedTuple

from hooklint.argocd import atoi

BLOCK = 512
#: Go's ``maxSpecialFileSize``: the most a PAX or GNU long-name header's data may hold.
MAX_SPECIAL = 1 << 20
_ZERO = bytes(BLOCK)
_MAGIC_USTAR, _MAGIC_GNU, _VERSION_GNU, _TRAILER_STAR = b"ustar\0", b"ustar ", b" \0", b"tar\0"
_HEADER_ONLY = b"123456"  # Go's isHeaderOnlyType: link, symlink, char, block, dir, fifo
_KINDS = {b"0": "file", b"1": "hard link", b"2": "symbolic link", b"5": "folder"}
_DECIMAL = re.compile(rb"[+-]?[0-9]+")
_PAX_TIME = re.compile(rb"[+-]?[0-9]+(\.[0-9]*)?")


class Member(NamedTuple):
    """One member as a reader hands it on: ``kind`` (``file``, ``folder``, ``hard link``,
    ``symbolic link``), ``name`` and ``link`` (raw bytes), ``size`` and ``offset`` (of its data in
    the tar stream; 0 and 0 for any kind but a file)."""

    kind: str
    name: bytes
    link: bytes
    size: int
    offset: int


class _Refused(Exception):
    """A header Go's archive/tar does not read (its ``ErrHeader``), or (``unmodelled``) one whose
    kind hooklint does not model, which no chart needs."""

    def __init__(self, message: str, unmodelled: bool = False):
        super().__init__(message)
        self.unmodelled = unmodelled


def _string(field: bytes) -> bytes:
    """Go's ``parser.parseString`` (and Python's ``nts``): up to the first NUL."""
    return field.split(b"\0", 1)[0]


def _octal(field: bytes) -> int:
    """Go's ``parser.parseOctal``: leading and trailing NULs and spaces trimmed, then the string up
    to its first NUL read by ``strconv.ParseUint(s, 8, 64)``; :class:`_Refused` when that fails."""
    trimmed = field.strip(b" \0")
    if not trimmed:
        return 0
    text = _string(trimmed)
    if not text or any(c not in b"01234567" for c in text) or int(text, 8) >= 1 << 64:
        raise _Refused("a numeric field Go cannot parse")
    return int(text, 8) if int(text, 8) < 1 << 63 else int(text, 8) - (1 << 64)  # int64(x)


def _numeric(field: bytes) -> int:
    """Go's ``parser.parseNumeric``: base-256 when the first byte's high bit is set (two's
    complement, sign in bit 6), else :func:`_octal`."""
    if field and field[0] & 0x80:
        invert = 0xFF if field[0] & 0x40 else 0
        value = 0
        for i, byte in enumerate(field):
            byte ^= invert
            if i == 0:
                byte &= 0x7F
            if value >> 56:
                raise _Refused("a base-256 number that overflows")
            value = value << 8 | byte
        if value >> 63:
            raise _Refused("a base-256 number that overflows")
        return ~value if invert else value
    return _octal(field)


def _go_int(text: bytes) -> int:
    """``strconv.ParseInt(text, 10, 64)``; :class:`_Refused` when it fails (never ``int()`` of more
    digits than int64 holds: Python refuses 4,300, where Go says "value out of range")."""
    value = atoi(text.decode("ascii")) if text.isascii() else None
    if value is None:
        raise _Refused(f"a PAX number Go cannot parse ({text[:40]!r})")
    return value


def _header(block: bytes, at: int) -> tuple[int, bytes, bytes, int]:
    """Go's ``Reader.readHeader`` of the non-zero ``block`` (at byte ``at``): ``(typeflag, name,
    link, size)`` as Go reads them (``name`` with the prefix of the header's format). The format
    from the magic (``getFormat``): ``ustar\\0`` with ``tar\\0`` at 508 is star (prefix 345..476,
    atime and ctime after it), else USTAR/PAX (prefix 345..500); ``ustar `` with version `` \\0`` is
    GNU (atime/ctime at 345.., no prefix unless they do not parse and the field is ASCII, Go's
    pre-1.8 fallback); anything else V7 (no prefix)."""
    try:
        checksum = _octal(block[148:156])
    except _Refused:
        raise _Refused(f"a header at byte {at} whose checksum Go cannot parse") from None
    unsigned = sum(block) - sum(block[148:156]) + 8 * 32  # Go's computeChecksum: the field itself as spaces
    high = len((block[:148] + block[156:]).translate(None, bytes(range(128))))
    signed = unsigned - 256 * high  # each byte as an int8
    if checksum not in (unsigned, signed):
        raise _Refused(f"a header at byte {at} whose checksum does not match")
    magic, version, trailer = block[257:263], block[263:265], block[508:512]
    flag = block[156:157]
    name, link = _string(block[0:100]), _string(block[157:257])
    try:
        size = _numeric(block[124:136])
        for field in (block[100:108], block[108:116], block[116:124], block[136:148]):
            _numeric(field)
        prefix = b""
        if magic in (_MAGIC_USTAR, _MAGIC_GNU) and (magic == _MAGIC_USTAR or version == _VERSION_GNU):
            _numeric(block[329:337]), _numeric(block[337:345])
            if magic == _MAGIC_USTAR and trailer == _TRAILER_STAR:
                prefix = _string(block[345:476])
                _numeric(block[476:488]), _numeric(block[488:500])
            elif magic == _MAGIC_USTAR:
                prefix = _string(block[345:500])
            else:
                try:
                    for field in (block[345:357], block[357:369]):
                        if field[0]:
                            _numeric(field)
                except _Refused:
                    text = _string(block[345:500])
                    prefix = text if all(c < 0x80 for c in text) else b""
    except _Refused as exc:
        raise _Refused(f"a header at byte {at} holding {exc}") from None
    if prefix:
        name = prefix + b"/" + name
    return flag[0] if flag else 0, name, link, size


def _pax_records(data: bytes, at: int) -> dict[bytes, bytes]:
    """Go's ``parsePAX`` of a PAX header's data (exactly its size, no padding): records ``"%d
    %s=%s\\n"`` read by ``parsePAXRecord`` (the length by ``strconv.ParseInt``, at least 5, a
    newline at its end; the key up to the first ``=``, not empty; no NUL in the value of ``path``,
    ``linkpath``, ``uname``, ``gname`` nor in any other key), the last of a key winning."""
    records: dict[bytes, bytes] = {}
    rest = data
    while rest:
        length, space, tail = rest.partition(b" ")
        if not space or not _DECIMAL.fullmatch(length) or len(length) > 19:  # longer than any header's data
            raise _Refused(f"a PAX header at byte {at} Go cannot parse")
        n = int(length) - len(length) - 1
        if int(length) < 5 or int(length) > len(rest) or n <= 0 or tail[n - 1:n] != b"\n":
            raise _Refused(f"a PAX header at byte {at} Go cannot parse")
        key, equals, value = tail[: n - 1].partition(b"=")
        if not equals or not key or b"\0" in (value if key in (b"path", b"linkpath", b"uname", b"gname") else key):
            raise _Refused(f"a PAX header at byte {at} Go cannot parse")
        if key.startswith(b"GNU.sparse."):
            raise _Refused(f"a PAX header at byte {at} describing a sparse file, which no chart holds", unmodelled=True)
        records[key] = value
        rest = tail[n:]
    return records


def _merged(name: bytes, link: bytes, size: int, records: dict[bytes, bytes], at: int) -> tuple[bytes, bytes, int]:
    """Go's ``mergePAX``: each record with a value overrides its field (an empty value keeps the
    header's); a number or time that does not parse is Go's ``ErrHeader``."""
    for key, value in records.items():
        if not value:
            continue
        if key == b"path":
            name = value
        elif key == b"linkpath":
            link = value
        elif key == b"size":
            size = _go_int(value)
        elif key in (b"uid", b"gid"):
            _go_int(value)
        elif key in (b"atime", b"mtime", b"ctime") and not _PAX_TIME.fullmatch(value):
            raise _Refused(f"a PAX time at byte {at} Go cannot parse")
    return name, link, size


def go_members(raw: bytes) -> list[Member]:
    """The members Helm and Argo CD get from the tar stream ``raw`` through Go's
    ``archive/tar`` ``Reader.Next`` (a PAX global header ``g`` is an entry of its own, which both
    skip: Helm's ``LoadArchiveFiles``, Argo CD's ``Untgz``): PAX ``x`` and GNU ``L`` headers
    applied to the member after them (the last of each kind, the long name over the PAX path), a
    ``\\0`` type a folder when the final name ends in ``/``. Raises :class:`_Refused` where Go
    returns an error or the archive holds what hooklint does not model."""
    members: list[Member] = []
    at = 0
    records: dict[bytes, bytes] = {}
    long_name = b""
    while True:
        block = raw[at : at + BLOCK]
        if not block:
            break  # io.EOF at a header: the end
        if len(block) < BLOCK:
            raise _Refused(f"a header cut short at byte {at}")
        if block == _ZERO:
            following = raw[at + BLOCK : at + 2 * BLOCK]
            if following and following != _ZERO:
                raise _Refused(f"a zero block at byte {at} followed by more headers")  # Go's ErrHeader; Python stops
            break
        flag, name, link, size = _header(block, at)
        data = at + BLOCK
        length = 0 if flag in _HEADER_ONLY else size
        if length < 0:
            raise _Refused(f"a header at byte {at} with a negative size")
        if flag in b"xgL":
            if length > MAX_SPECIAL:
                raise _Refused(f"a PAX or long-name header at byte {at} larger than Go reads")
            if data + length > len(raw):
                raise _Refused(f"a header at byte {at} whose data is cut short")
            content = raw[data : data + length]
            if flag == ord("L"):
                long_name = _string(content)
            elif flag == ord("x"):
                records = _pax_records(content, at)
            else:
                _merged(name, link, size, _pax_records(content, at), at)  # an entry Helm and Argo CD skip
                records, long_name = {}, b""
        elif flag in b"0\x00125":
            name, link, size = _merged(name, link, size, records, at)
            name = long_name or name
            if flag == 0:
                flag = ord("5") if name.endswith(b"/") else ord("0")
            length = 0 if flag in _HEADER_ONLY else size
            if length < 0:
                raise _Refused(f"a header at byte {at} with a negative size")
            if data + length > len(raw):
                raise _Refused(f"a member at byte {at} whose data is cut short")
            kind = _KINDS[bytes([flag])]
            members.append(Member(kind, name.rstrip(b"/") if kind == "folder" else name, link if flag in b"12" else b"",
                                  length, data if kind == "file" else 0))  # fmt: skip
            records, long_name = {}, b""
        else:
            raise _Refused(f"a member of type {chr(flag)!r} at byte {at}, which no chart holds", unmodelled=True)
        at = data + length + (-length % BLOCK)
    return members


def python_members(raw: bytes) -> list[Member]:
    """The members Python's ``tarfile`` reads from the tar stream ``raw`` (as hooklint's readers
    open it: UTF-8, ``surrogateescape``), in :class:`Member`'s terms; a member of another type than
    :data:`_KINDS`'s is of kind ``type '<flag>'``. Raises ``tarfile.TarError`` (or ``EOFError``,
    ``OSError``) where it cannot read on."""
    members = []
    with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as archive:
        for member in archive:
            kind = _KINDS.get(member.type) or ("file" if member.type == tarfile.AREGTYPE else f"type {member.type!r}")
            name = member.name.encode("utf-8", "surrogateescape")
            link = member.linkname.encode("utf-8", "surrogateescape") if kind.endswith("link") else b""
            file = kind == "file"
            members.append(Member(kind, name.rstrip(b"/") if kind == "folder" else name, link,
                                  member.size if file else 0, member.offset_data if file else 0))  # fmt: skip
    return members


def tar_disagreement(raw: bytes) -> str | None:
    """None when Go's ``archive/tar`` (Helm, Argo CD) reads the members of the uncompressed tar
    stream ``raw`` exactly as Python's ``tarfile`` does (:func:`go_members` and
    :func:`python_members`: the same kinds, names, link targets, sizes and data offsets, in the
    same order); else why not, a clause to follow the archive's name: ``is not a readable chart
    archive (...)`` (Python's tarfile cannot read it), ``holds a member of type ...`` (a kind
    hooklint does not model: ``K``, ``S``, ``7``, ``X``, a device, a sparse file), ``is not read by
    Go's archive/tar as by Python's tarfile: ...`` (Go would fail where Python reads on),
    ``is read otherwise by ...: its member N is ... for Go, ... for Python``, ``holds two members
    named ...`` (two members but folders whose names clean alike: Go's loaders, Helm's included,
    keep the last, a reader of Python's may keep the first; fail closed). What ``helm package``
    writes (Go's ``tar.Writer``: USTAR, its prefix for names of 101-255 characters, a PAX ``x``
    header for longer ones) reads alike."""
    try:
        python = python_members(raw)
    except (tarfile.TarError, EOFError, OSError, UnicodeError) as exc:
        return f"is not a readable chart archive ({exc})"
    try:
        go = go_members(raw)
    except _Refused as exc:
        if exc.unmodelled:
            return f"holds {exc}"
        return f"is not read by Go's archive/tar (Helm, Argo CD) as by Python's tarfile: it holds {exc}"
    for index, (theirs, ours) in enumerate(zip(go, python)):
        if theirs != ours:
            return (f"is read otherwise by Go's archive/tar (Helm, Argo CD) than by Python's tarfile: its member "
                    f"{index + 1} is {_shown(theirs)} for Go, {_shown(ours)} for Python")  # fmt: skip
    if len(go) != len(python):
        extra = go[len(python)] if len(go) > len(python) else python[len(go)]
        reader = "Go's archive/tar (Helm, Argo CD)" if len(go) > len(python) else "Python's tarfile"
        return (f"is read otherwise by Go's archive/tar (Helm, Argo CD) than by Python's tarfile: only {reader} "
                f"reads its member {min(len(go), len(python)) + 1}, {_shown(extra)}")  # fmt: skip
    first: dict[bytes, int] = {}
    for index, member in enumerate(go):
        if member.kind == "folder":
            continue
        earlier = first.setdefault(_cleaned(member.name), index)
        if earlier != index:
            name = member.name.decode("utf-8", "backslashreplace")
            return (f"holds two members named {name!r} (members {earlier + 1} "
                    f"and {index + 1}): Helm's loader keeps the last, Python's tarfile readers the first or the last, "
                    "so which one is read is not certain")  # fmt: skip
    return None


def _cleaned(name: bytes) -> bytes:
    """A member's name as a path: ``\\`` read as ``/`` (Helm's loader does so for an archive
    written on Windows), empty and ``.`` components dropped, ``..`` applied (Go's ``path.Clean``),
    no leading or trailing ``/``: two members whose names clean alike are one file to Helm."""
    parts: list[bytes] = []
    for part in name.replace(b"\\", b"/").split(b"/"):
        if part in (b"", b"."):
            continue
        if part == b".." and parts and parts[-1] != b"..":
            parts.pop()
        else:
            parts.append(part)
    return b"/".join(parts)


def _shown(member: Member) -> str:
    name = member.name.decode("utf-8", "backslashreplace")
    size = f", {member.size} bytes at byte {member.offset}" if member.kind == "file" else ""
    link = f" -> {member.link.decode('utf-8', 'backslashreplace')!r}" if member.link else ""
    return f"{name!r}{link} ({member.kind}{size})"


def gunzipped(data: bytes, limit: int) -> tuple[bytes, bool]:
    """The tar stream of the gzip'd ``data`` (read by Python's ``GzipFile``, as ``tarfile``'s
    ``r:gz`` reads it), at most ``limit`` bytes of it, and whether that is all of it (False too
    when the gzip stream is damaged or cut short: then the bytes read before that)."""
    out = bytearray()
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
            while chunk := stream.read(min(1 << 16, limit + 1 - len(out))):
                out += chunk
                if len(out) > limit:
                    return bytes(out[:limit]), False
    except (OSError, EOFError, zlib.error):
        return bytes(out), False
    return bytes(out), True
