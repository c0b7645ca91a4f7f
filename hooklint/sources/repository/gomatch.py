"""Go's ``path.Match`` and ``path/filepath.Glob`` (Unix), ported line by line on UTF-8 bytes.

The ApplicationSet git directories generator matches folders with ``path.Match``
(:mod:`hooklint.sources.appmap.applicationsets`), and kustomize's ``kustomize edit add component``,
which Argo CD runs for ``spec.source.kustomize.components``, globs with ``filepath.Glob``
(:mod:`hooklint.sources.render.kustomize`). Go's syntax is not Python's ``glob``/``fnmatch``: ``*``
matches a leading dot, ``[^a]`` negates a class and ``[!a]`` is the class of ``!`` and ``a``.
"""

from __future__ import annotations

import os

#: ``unicode/utf8`` ``RuneError``: what Go decodes an invalid byte as (``utf8.RuneLen`` of it is 3).
RUNE_ERROR = 0xFFFD


def decode_rune(data: bytes, pos: int) -> tuple[int, int]:
    """``utf8.DecodeRuneInString(data[pos:])``: (rune, width); (RuneError, 1) for an invalid
    sequence, (RuneError, 0) at the end."""
    if pos >= len(data):
        return RUNE_ERROR, 0
    first = data[pos]
    width = 1 if first < 0x80 else 2 if 0xC2 <= first <= 0xDF else 3 if 0xE0 <= first <= 0xEF else \
        4 if 0xF0 <= first <= 0xF4 else 0
    if width == 0:
        return RUNE_ERROR, 1
    try:
        return ord(data[pos:pos + width].decode("utf-8")), width
    except UnicodeDecodeError:  # truncated, overlong, surrogate: Go's decoder refuses the same ones
        return RUNE_ERROR, 1



class BadPattern(ValueError):
    """``path.ErrBadPattern``: "syntax error in pattern"."""


def path_match(pattern: str, name: str) -> bool:
    """Go's ``path.Match(pattern, name)`` (``src/path/match.go``), which the ApplicationSet git
    directories generator applies to each folder (``applicationset/generators/git.go``): ``*`` and
    ``?`` never match ``/``, ``[...]`` a class of characters and ``lo-hi`` ranges negated by ``^``
    (not ``!``), ``\\\\`` escapes. Raises :class:`BadPattern` where Go returns ``ErrBadPattern``
    (the generator logs it and skips that path entry), also when the pattern's malformed part is
    never reached by the match, as Go checks the rest of the pattern before saying no."""
    return _path_match(pattern.encode("utf-8", "surrogatepass"), name.encode("utf-8", "surrogateescape"))


def _path_match(pattern: bytes, name: bytes) -> bool:
    while pattern:
        star, chunk, pattern = _scan_chunk(pattern)
        if star and chunk == b"":
            return b"/" not in name  # a trailing * matches the rest unless it has a /
        rest, ok = _match_chunk(chunk, name)
        if ok and (not rest or pattern):
            name = rest
            continue
        if star:
            matched = False
            i = 0
            while i < len(name) and name[i] != 0x2F:  # cannot skip a /
                rest, ok = _match_chunk(chunk, name[i + 1:])
                if ok and not (not pattern and rest):
                    name, matched = rest, True
                    break
                i += 1
            if matched:
                continue
        while pattern:  # the rest of the pattern must be well formed
            _, chunk, pattern = _scan_chunk(pattern)
            _match_chunk(chunk, b"")
        return False
    return not name


def _scan_chunk(pattern: bytes) -> tuple[bool, bytes, bytes]:
    star = False
    while pattern[:1] == b"*":
        pattern, star = pattern[1:], True
    in_range = False
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == 0x5C:  # \
            if i + 1 < len(pattern):
                i += 1
        elif c == 0x5B:  # [
            in_range = True
        elif c == 0x5D:  # ]
            in_range = False
        elif c == 0x2A and not in_range:  # *
            return star, pattern[:i], pattern[i:]
        i += 1
    return star, pattern, b""


def _match_chunk(chunk: bytes, s: bytes) -> tuple[bytes, bool]:
    failed = False
    while chunk:
        if not failed and not s:
            failed = True
        c = chunk[0]
        if c == 0x5B:  # [
            r = 0
            if not failed:
                r, n = decode_rune(s, 0)
                s = s[n:]
            chunk = chunk[1:]
            negated = chunk[:1] == b"^"
            if negated:
                chunk = chunk[1:]
            matched, ranges = False, 0
            while True:
                if chunk[:1] == b"]" and ranges > 0:
                    chunk = chunk[1:]
                    break
                lo, chunk = _get_esc(chunk)
                hi = lo
                if chunk[0] == 0x2D:  # -
                    hi, chunk = _get_esc(chunk[1:])
                if lo <= r <= hi:
                    matched = True
                ranges += 1
            if matched == negated:
                failed = True
        elif c == 0x3F:  # ?
            if not failed:
                if s[0] == 0x2F:
                    failed = True
                s = s[decode_rune(s, 0)[1]:]
            chunk = chunk[1:]
        else:
            if c == 0x5C:  # \
                chunk = chunk[1:]
                if not chunk:
                    raise BadPattern("syntax error in pattern")
            if not failed:
                if chunk[0] != s[0]:
                    failed = True
                s = s[1:]
            chunk = chunk[1:]
    return (b"", False) if failed else (s, True)


def _get_esc(chunk: bytes) -> tuple[int, bytes]:
    if not chunk or chunk[0] in (0x2D, 0x5D):
        raise BadPattern("syntax error in pattern")
    if chunk[0] == 0x5C:
        chunk = chunk[1:]
        if not chunk:
            raise BadPattern("syntax error in pattern")
    r, n = decode_rune(chunk, 0)
    if r == RUNE_ERROR and n == 1 or not chunk[n:]:
        raise BadPattern("syntax error in pattern")
    return r, chunk[n:]


def has_meta(path: str) -> bool:
    """Go's ``path/filepath`` ``hasMeta`` on Unix: whether ``path`` holds ``*``, ``?``, ``[`` or ``\\\\``."""
    return any(c in path for c in "*?[\\")


def filepath_glob(pattern: str, root_dir: str, inside: str | None = None) -> list[str]:
    """Go's ``filepath.Glob(pattern)`` (``src/path/filepath/match.go``, Unix) run from ``root_dir``:
    the names it returns, relative as ``pattern`` is, in Go's order (each folder's names sorted).
    kustomize's ``kustomize edit add component`` globs with it (``api/filesys`` ``fsOnDisk.Glob``),
    so Argo CD's ``spec.source.kustomize.components`` does. Unlike Python's ``glob``, ``*`` and
    ``?`` match a leading dot (hidden folders), a class is negated by ``^`` (``!`` is literal), and
    a pattern with no wildcard is returned as written when it exists (``os.Lstat``). Each part is
    matched by :func:`path_match`. Raises :class:`BadPattern` on a malformed pattern, as Go returns
    ``ErrBadPattern``. With ``inside`` (a real path), a folder that resolves outside it is not listed."""
    path_match(pattern, "")  # Go checks the pattern first
    return _glob(pattern, root_dir, inside, 0)


def _glob(pattern: str, root_dir: str, inside: str | None, depth: int) -> list[str]:
    if depth > 10000:
        raise BadPattern("syntax error in pattern")
    if not has_meta(pattern):
        return [pattern] if os.path.lexists(os.path.join(root_dir, pattern)) else []
    slash = pattern.rfind("/")
    folder, name = pattern[:slash + 1], pattern[slash + 1:]
    folder = "." if folder == "" else folder if folder == "/" else folder[:-1]  # cleanGlobPath
    if not has_meta(folder):
        folders = [folder]
    elif folder == pattern:
        raise BadPattern("syntax error in pattern")
    else:
        folders = _glob(folder, root_dir, inside, depth + 1)
    matches: list[str] = []
    for d in folders:
        where = os.path.join(root_dir, d)
        if not os.path.isdir(where):
            continue
        if inside is not None:
            real = os.path.realpath(where)
            if real != inside and not real.startswith(inside.rstrip("/") + "/"):
                continue
        try:
            names = sorted(os.listdir(where), key=lambda n: n.encode("utf-8", "surrogateescape"))
        except OSError:
            continue
        matches += [os.path.normpath(os.path.join(d, n)) for n in names if path_match(name, n)]
    return matches
