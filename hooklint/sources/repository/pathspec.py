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
POSIX classes (``[:alpha:]``, ASCII only). Pathspec magic (a leading ``:``, :func:`parse_magic`)
is applied as git applies it: ``:(top)``/``:/`` (the pattern taken as written), ``:(literal)`` (no
glob characters), ``:(glob)`` (``WM_PATHNAME``), ``:(icase)`` (ASCII case folded),
``:(exclude)``/``:!``/``:^`` (every other file); ``:(attr:...)`` and ``:(prefix:N)`` are refused
(:class:`PathspecError`), never read as a plain pattern.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

#: ``GIT_GLOB_SPECIAL`` (git ``ctype.c``): the bytes that make a pathspec a pattern.
GLOB_SPECIAL = b"*?[\\"

#: The most runs of ``*`` a pathspec may have here (:func:`compile_pathspec`): ``wildmatch``
#: recurses once for each, and Python's stack is bounded.
MAX_STARS = 200

_NOMATCH, _MATCH, _ABORT_ALL, _ABORT_TO_STARSTAR = 1, 0, -1, -2  # wildmatch.h WM_*

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


def wildmatch(pattern: bytes, text: bytes, pathname: bool = False, casefold: bool = False) -> bool:
    """``wildmatch(pattern, text, flags)`` (git ``wildmatch.c``): whether ``text`` matches
    ``pattern`` whole; ``pathname`` is ``WM_PATHNAME`` (``*`` and ``?`` stop at ``/``, ``**/``
    spans folders: the ``:(glob)`` magic), ``casefold`` ``WM_CASEFOLD`` (``:(icase)``). A malformed
    class (``[a``, ``[[:nope:]]``) matches nothing. Raises :class:`PathspecError` when the pattern
    has too many stars to follow (Python's recursion limit)."""
    if casefold:  # wildmatch.c lowers every byte of the text, and the pattern's outside classes and escapes
        text = text.translate(_LOWER)
    try:
        return _dowild(pattern, 0, text, 0, pathname, casefold) == _MATCH
    except RecursionError:
        raise PathspecError(f"the pattern {pattern.decode('utf-8', 'replace')!r} has too many '*' for "
                            "hooklint to follow", git_refuses=False) from None  # fmt: skip


#: ASCII letters lowered, as wildmatch.c's ``tolower`` under ``WM_CASEFOLD``.
_LOWER = bytes(c + 32 if 65 <= c <= 90 else c for c in range(256))


def _dowild(p: bytes, pi: int, text: bytes, ti: int, pathname: bool, casefold: bool) -> int:
    """``dowild`` (wildmatch.c) from ``p[pi:]`` and ``text[ti:]`` (already lowered under
    ``casefold``), line by line: WM_MATCH, WM_NOMATCH, WM_ABORT_ALL or WM_ABORT_TO_STARSTAR."""
    while pi < len(p):
        p_ch = _LOWER[p[pi]] if casefold else p[pi]
        t_ch = text[ti] if ti < len(text) else 0
        if ti >= len(text) and p_ch != 42:  # '*'
            return _ABORT_ALL
        if p_ch == 92:  # '\\': the next character literally; a trailing '\\' matches nothing
            pi += 1
            if pi >= len(p) or t_ch != p[pi]:
                return _NOMATCH
        elif p_ch == 63:  # '?'
            if pathname and t_ch == 47:
                return _NOMATCH
        elif p_ch == 42:  # '*'
            pi += 1
            if pi < len(p) and p[pi] == 42:
                prev = pi - 2
                while pi < len(p) and p[pi] == 42:
                    pi += 1
                if not pathname:
                    match_slash = True  # without WM_PATHNAME, '*' == '**'
                elif (prev < 0 or p[prev] == 47) and (pi == len(p) or p[pi] == 47 or p[pi:pi + 2] == b"\\/"):
                    if pi < len(p) and p[pi] == 47 and _dowild(p, pi + 1, text, ti, pathname, casefold) == _MATCH:
                        return _MATCH  # "**/" matching no folder at all
                    match_slash = True
                else:
                    match_slash = False
            else:
                match_slash = not pathname
            if pi == len(p):
                return _MATCH if match_slash or text.find(b"/", ti) < 0 else _NOMATCH
            if not match_slash and p[pi] == 47:  # "*/": the rest of this folder name
                slash = text.find(b"/", ti)
                if slash < 0:
                    return _NOMATCH
                ti = slash
                pi += 1
                ti += 1
                continue
            while ti < len(text):
                if p[pi] not in GLOB_SPECIAL:  # skip ahead to the literal that follows the star
                    found = text.find(_LOWER[p[pi]:p[pi] + 1] if casefold else p[pi:pi + 1], ti)
                    slash = -1 if match_slash else text.find(b"/", ti)
                    if 0 <= slash < found or (found < 0 and not match_slash):
                        return _NOMATCH  # a '*' that stops at '/' met it first
                    if found < 0:  # no later start finds it either (git says NOMATCH and tries them all)
                        return _ABORT_ALL
                    ti = found
                matched = _dowild(p, pi, text, ti, pathname, casefold)
                if matched != _NOMATCH:
                    if not match_slash or matched != _ABORT_TO_STARSTAR:
                        return matched
                elif not match_slash and text[ti] == 47:
                    return _ABORT_TO_STARSTAR
                ti += 1
            return _ABORT_ALL
        elif p_ch == 91:  # '['
            result = _bracket(p, pi + 1, t_ch, casefold)
            if result is None:
                return _ABORT_ALL
            matched_class, pi = result
            if not matched_class or (pathname and t_ch == 47):
                return _NOMATCH
        elif t_ch != p_ch:
            return _NOMATCH
        pi += 1
        ti += 1
    return _NOMATCH if ti < len(text) else _MATCH


def _bracket(p: bytes, pi: int, t_ch: int, casefold: bool = False) -> tuple[bool, int] | None:
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
            matched |= prev_ch <= t_ch <= p_ch or (casefold and 97 <= t_ch <= 122 and prev_ch <= t_ch - 32 <= p_ch)
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
            matched |= test(t_ch) or (casefold and p[start:pi - 1] == b"upper" and 97 <= t_ch <= 122)
            p_ch = 0
        else:
            matched |= t_ch == p_ch
        prev_ch = p_ch
        pi += 1
        p_ch = at(pi)
        if p_ch == 93:
            break
    return matched != negated, pi


#: ``GIT_PATHSPEC_MAGIC`` (git ``ctype.c``): a byte short magic reads as magic (``/`` top, ``!`` and
#: ``^`` exclude; any other of these is "Unimplemented pathspec magic").
_SHORT_MAGIC = frozenset("!\"#%&',-/:;<=>@_`~")
_LONG_MAGIC = ("top", "literal", "glob", "icase", "exclude")


def parse_magic(pathspec: str) -> tuple[frozenset[str], str]:
    """The magic words of ``pathspec`` and the pattern after them (``pathspec.c``
    ``parse_long_magic`` / ``parse_short_magic``): ``:(icase,exclude)x`` is
    ``({"icase", "exclude"}, "x")``, ``:!x`` and ``:^x`` exclude, ``:/x`` top, a ``:`` ends short
    magic and another character starts the pattern. Raises :class:`PathspecError` for magic git
    refuses (unknown, unclosed, ``literal`` with ``glob``) and, ``git_refuses`` False, for
    ``attr:`` and ``prefix:``, which hooklint does not implement."""
    if not pathspec.startswith(":"):
        return frozenset(), pathspec
    words: set[str] = set()
    if pathspec.startswith(":("):
        pos = 2
        while pos < len(pathspec) and pathspec[pos] != ")":
            end = pos
            while end < len(pathspec) and pathspec[end] not in ",)":  # strcspn_escaped
                end += 2 if pathspec[end] == "\\" else 1
            word = pathspec[pos:min(end, len(pathspec))]
            pos = end + 1 if end < len(pathspec) and pathspec[end] == "," else end
            if not word:
                continue
            if word.startswith(("attr:", "prefix:")):
                raise PathspecError(f"the pathspec {pathspec!r} has the magic {word!r}, which hooklint does not "
                                    "expand", git_refuses=False)  # fmt: skip
            if word not in _LONG_MAGIC:
                raise PathspecError(f"git refuses the pathspec {pathspec!r} (Invalid pathspec magic {word!r})")
            words.add(word)
        if pos >= len(pathspec):
            raise PathspecError(f"git refuses the pathspec {pathspec!r} (Missing ')' at the end of pathspec magic)")
        rest = pathspec[pos + 1:]
    else:
        pos = 1
        while pos < len(pathspec) and pathspec[pos] != ":":
            ch = pathspec[pos]
            if ch in "!^":
                words.add("exclude")
            elif ch == "/":
                words.add("top")
            elif ch in _SHORT_MAGIC:
                raise PathspecError(f"git refuses the pathspec {pathspec!r} (Unimplemented pathspec magic {ch!r})")
            else:
                break
            pos += 1
        rest = pathspec[pos + 1:] if pos < len(pathspec) and pathspec[pos] == ":" else pathspec[pos:]
    if "literal" in words and "glob" in words:
        raise PathspecError(f"git refuses the pathspec {pathspec!r} ('literal' and 'glob' are incompatible)")
    return frozenset(words), rest


def normalize(pathspec: str) -> bytes:
    """The pathspec as git matches it (``setup.c`` ``prefix_path_gently`` at the top, ``path.c``
    ``normalize_path_copy_len``): ``.`` components and repeated ``/`` dropped, ``..`` taking one
    folder off, a trailing ``/`` kept. Raises :class:`PathspecError` for an absolute pathspec or
    one above the top, as git does ("is outside repository")."""
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
    to it (``pathspec.c`` ``init_pathspec_item``, ``dir.c`` ``match_pathspec_item`` for a file and
    ``git_fnmatch``): True when the pattern (:func:`parse_magic`; through :func:`normalize` unless
    ``top``) is empty, is the path or a folder above it, or has a glob character (not under
    ``literal``) and, its leading literal part equal, ``wildmatch`` matches the rest (with
    ``WM_PATHNAME`` under ``glob``, ``WM_CASEFOLD`` under ``icase``). An ``exclude`` pathspec
    alone lists every file it does not match (``parse_pathspec`` adds the top). Raises
    :class:`PathspecError` for an empty pathspec, as :func:`parse_magic` and :func:`normalize`
    do, and for more than :data:`MAX_STARS` runs of ``*`` (each is one level of ``wildmatch``'s
    recursion)."""
    if not pathspec:
        raise PathspecError("git refuses the empty pathspec ('empty string is not a valid pathspec')")
    magic, pattern = parse_magic(pathspec)
    match = pattern.encode("utf-8", "surrogateescape") if "top" in magic else normalize(pattern)
    if len([run for run in match.split(b"*")[1:] if run]) + match.endswith(b"*") > MAX_STARS:
        raise PathspecError(f"the pathspec {pathspec!r} has more than {MAX_STARS} '*' for hooklint to follow",
                            git_refuses=False)  # fmt: skip
    literal = len(match) if "literal" in magic else next(
        (i for i, c in enumerate(match) if c in GLOB_SPECIAL), len(match))  # fmt: skip
    item = functools.partial(_matches, match, literal, "glob" in magic, "icase" in magic)
    if "exclude" in magic:
        return lambda path: not item(path)
    return item


def _matches(match: bytes, literal: int, glob: bool, icase: bool, name: str) -> bool:
    if not match:
        return True
    path = name.encode("utf-8", "surrogateescape")
    head = path[:len(match)]
    if (head.translate(_LOWER) == match.translate(_LOWER) if icase else head == match) and (
            len(path) == len(match) or match.endswith(b"/") or path[len(match)] == 47):
        return True
    if literal == len(match):
        return False
    head, want = path[:literal], match[:literal]
    if (head.translate(_LOWER) != want.translate(_LOWER)) if icase else head != want:
        return False
    return wildmatch(match[literal:], path[literal:], pathname=glob, casefold=icase)
