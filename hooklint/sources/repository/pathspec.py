"""Git's pathspecs as ``git ls-files --full-name -z -- PATHSPEC`` reads them at the repository's top
(git v2.39 ``pathspec.c``, ``dir.c`` ``match_pathspec_item``, ``wildmatch.c``), on UTF-8 bytes.

The ApplicationSet git files generator lists its files so (argo-cd ``util/git/client.go``
``LsFiles``, "the old and default way"; :mod:`hooklint.sources.appmap.applicationsets`). A pathspec
without magic is normalized (``setup.c`` ``prefix_path_gently``: ``.`` and ``..`` components and
repeated ``/`` removed; above the top or absolute, git dies "is outside repository"), then a path
matches when the pathspec is the path itself, a folder of it (``apps`` or ``apps/`` matches
``apps/x/y``), or when the pathspec has a glob character (``*?[\\``) and ``wildmatch`` without
``WM_PATHNAME`` matches the whole path: ``*`` (and ``**``) match any bytes, ``/`` included, ``?``
one byte, ``\\`` escapes the next character, ``[...]`` a class with ranges, ``!``/``^`` negation and
POSIX classes (``[:alpha:]``, ASCII only). Pathspec magic (a leading ``:``: ``:(icase)``,
``:(exclude)``, ``:!``, ``:/``, ``:(glob)``, ``:(literal)``, ``:(attr:...)``) is not implemented: it
is refused (:class:`PathspecError`), never read as a plain pattern.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

#: ``GIT_GLOB_SPECIAL`` (git ``ctype.c``): the bytes that make a pathspec a pattern.
GLOB_SPECIAL = b"*?[\\"

#: The most runs of ``*`` a pathspec may have here (:func:`compile_pathspec`): ``wildmatch``
#: recurses once for each, and Python's stack is bounded.
MAX_STARS = 200

_NOMATCH, _MATCH, _ABORT_ALL = 1, 0, -1  # wildmatch.h WM_NOMATCH, WM_MATCH, WM_ABORT_ALL

_PUNCT = frozenset(b"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
#: wildmatch.c's POSIX classes over git's ASCII-only ``sane_ctype`` (``isspace`` is space, tab,
#: line feed and carriage return only).
_CLASSES: dict[bytes, Callable[[int], bool]] = {
    b"alnum": lambda c: 48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122,
    b"alpha": lambda c: 65 <= c <= 90 or 97 <= c <= 122,
    b"blank": lambda c: c in (32, 9),
    b"cntrl": lambda c: c < 32 or c == 127,
    b"digit": lambda c: 48 <= c <= 57,
    b"graph": lambda c: 33 <= c <= 126,
    b"lower": lambda c: 97 <= c <= 122,
    b"print": lambda c: 32 <= c <= 126,
    b"punct": lambda c: c in _PUNCT,
    b"space": lambda c: c in (32, 9, 10, 13),
    b"upper": lambda c: 65 <= c <= 90,
    b"xdigit": lambda c: 48 <= c <= 57 or 65 <= c <= 70 or 97 <= c <= 102,
}


class PathspecError(ValueError):
    """A pathspec git refuses (``outside repository``, empty: ``git_refuses`` True, the command
    fails) or that hooklint does not follow (magic, too many stars: ``git_refuses`` False); the
    message names the pathspec and says why in one sentence."""

    def __init__(self, message: str, git_refuses: bool = True):
        super().__init__(message)
        self.git_refuses = git_refuses


def wildmatch(pattern: bytes, text: bytes) -> bool:
    """``wildmatch(pattern, text, 0)`` (git ``wildmatch.c``, no ``WM_PATHNAME``, no
    ``WM_CASEFOLD``): whether ``text`` matches ``pattern`` whole; a malformed class (``[a``,
    ``[[:nope:]]``) matches nothing. Raises :class:`PathspecError` when the pattern has too many
    stars to follow (Python's recursion limit)."""
    try:
        return _dowild(pattern, 0, text, 0) == _MATCH
    except RecursionError:
        raise PathspecError(f"the pattern {pattern.decode('utf-8', 'replace')!r} has too many '*' for "
                            "hooklint to follow", git_refuses=False) from None  # fmt: skip


def _dowild(p: bytes, pi: int, text: bytes, ti: int) -> int:
    """``dowild`` (wildmatch.c) from ``p[pi:]`` and ``text[ti:]``, line by line, without
    ``WM_PATHNAME`` (so ``*`` and ``**`` alike match ``/``): WM_MATCH, WM_NOMATCH or WM_ABORT_ALL."""
    while pi < len(p):
        p_ch = p[pi]
        t_ch = text[ti] if ti < len(text) else 0
        if ti >= len(text) and p_ch != 42:  # '*'
            return _ABORT_ALL
        if p_ch == 92:  # '\\': the next character literally; a trailing '\\' matches nothing
            pi += 1
            if pi >= len(p) or t_ch != p[pi]:
                return _NOMATCH
        elif p_ch == 63:  # '?'
            pass
        elif p_ch == 42:  # '*': without WM_PATHNAME, '*' == '**', any bytes
            while pi < len(p) and p[pi] == 42:
                pi += 1
            if pi == len(p):
                return _MATCH
            while True:
                if ti >= len(text):
                    break
                if p[pi] not in GLOB_SPECIAL:  # skip ahead to the literal that follows the star
                    found = text.find(p[pi:pi + 1], ti)
                    if found < 0:
                        return _NOMATCH
                    ti = found
                matched = _dowild(p, pi, text, ti)
                if matched != _NOMATCH:
                    return matched
                ti += 1
            return _ABORT_ALL
        elif p_ch == 91:  # '['
            result = _bracket(p, pi + 1, t_ch)
            if result is None:
                return _ABORT_ALL
            matched, pi = result
            if not matched:
                return _NOMATCH
        elif t_ch != p_ch:
            return _NOMATCH
        pi += 1
        ti += 1
    return _NOMATCH if ti < len(text) else _MATCH


def _bracket(p: bytes, pi: int, t_ch: int) -> tuple[bool, int] | None:
    """The class opened at ``p[pi - 1]`` against byte ``t_ch`` (wildmatch.c ``case '['``):
    (matched, index of its closing ``]``), or None when it is malformed (unclosed, an unknown
    ``[:class:]``), which aborts the whole match."""

    def at(i: int) -> int:
        return p[i] if i < len(p) else 0

    p_ch = at(pi)
    if p_ch == 94:  # '^' is '!'
        p_ch = 33
    negated = p_ch == 33
    if negated:
        pi += 1
        p_ch = at(pi)
    prev_ch = 0
    matched = False
    while True:
        if not p_ch:
            return None
        if p_ch == 92:  # '\\'
            pi += 1
            p_ch = at(pi)
            if not p_ch:
                return None
            matched |= t_ch == p_ch
        elif p_ch == 45 and prev_ch and at(pi + 1) and at(pi + 1) != 93:  # a range 'a-z'
            pi += 1
            p_ch = at(pi)
            if p_ch == 92:
                pi += 1
                p_ch = at(pi)
                if not p_ch:
                    return None
            matched |= prev_ch <= t_ch <= p_ch
            p_ch = 0
        elif p_ch == 91 and at(pi + 1) == 58:  # '[:'
            start = pi = pi + 2
            while at(pi) and at(pi) != 93:
                pi += 1
            if not at(pi):
                return None
            if pi - start - 1 < 0 or p[pi - 1] != 58:  # no ':]': a plain '['
                pi = start - 2
                p_ch = 91
                matched |= t_ch == 91
                prev_ch = p_ch
                pi += 1
                p_ch = at(pi)
                if p_ch == 93:
                    break
                continue
            test = _CLASSES.get(p[start:pi - 1])
            if test is None:
                return None
            matched |= test(t_ch)
            p_ch = 0
        else:
            matched |= t_ch == p_ch
        prev_ch = p_ch
        pi += 1
        p_ch = at(pi)
        if p_ch == 93:
            break
    return matched != negated, pi


def normalize(pathspec: str) -> bytes:
    """The pathspec as git matches it (``setup.c`` ``prefix_path_gently`` at the top, ``path.c``
    ``normalize_path_copy_len``): ``.`` components and repeated ``/`` dropped, ``..`` taking one
    folder off, a trailing ``/`` kept. Raises :class:`PathspecError` for magic, an empty pathspec,
    an absolute one or one above the top, as git does ("is outside repository")."""
    if pathspec.startswith(":"):
        raise PathspecError(f"the pathspec {pathspec!r} starts with ':', git pathspec magic (such as ':(icase)', "
                            "':(top)', ':(exclude)') that hooklint does not expand", git_refuses=False)  # fmt: skip
    if not pathspec:
        raise PathspecError("git refuses the empty pathspec ('empty string is not a valid pathspec')")
    if pathspec.startswith("/"):
        raise PathspecError(f"git reads the absolute pathspec {pathspec!r} as outside the repository")
    raw = pathspec.encode("utf-8", "surrogateescape")
    out: list[bytes] = []
    trailing = raw.endswith(b"/")
    for part in raw.split(b"/"):
        if part in (b"", b"."):
            continue
        if part == b"..":
            if not out:
                raise PathspecError(f"git reads the pathspec {pathspec!r} as outside the repository ('..' above its top)")
            out.pop()
            continue
        out.append(part)
    joined = b"/".join(out)
    last = raw.rsplit(b"/", 1)[-1]
    if joined and (trailing or last in (b".", b"..")):
        joined += b"/"  # "a/." and "a/b/.." keep their slash as normalize_path_copy does
    return joined


def compile_pathspec(pathspec: str) -> Callable[[str], bool]:
    """``git ls-files -- PATHSPEC`` at the top as a function of a ``/``-separated path relative
    to it (``dir.c`` ``match_pathspec_item`` for a file, then ``git_fnmatch``): True when the
    normalized pathspec (:func:`normalize`) is empty (``.``), is the path or a folder above it, or
    has a glob character and, its leading literal part equal, ``wildmatch`` matches the rest.
    Raises :class:`PathspecError` as :func:`normalize` does, and for more than
    :data:`MAX_STARS` runs of ``*`` (each is one level of ``wildmatch``'s recursion)."""
    match = normalize(pathspec)
    if len([run for run in match.split(b"*")[1:] if run]) + match.endswith(b"*") > MAX_STARS:
        raise PathspecError(f"the pathspec {pathspec!r} has more than {MAX_STARS} '*' for hooklint to follow",
                            git_refuses=False)  # fmt: skip
    return functools.partial(_matches, match)


def _matches(match: bytes, name: str) -> bool:
    if not match:
        return True
    path = name.encode("utf-8", "surrogateescape")
    if path.startswith(match) and (len(path) == len(match) or match.endswith(b"/") or path[len(match)] == 47):
        return True
    literal = next((i for i, c in enumerate(match) if c in GLOB_SPECIAL), len(match))
    if literal == len(match) or path[:literal] != match[:literal]:
        return False
    return wildmatch(match[literal:], path[literal:])
