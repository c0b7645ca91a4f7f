"""Argo CD's glob matching (``util/glob/glob.go`` ``Match``), ported from the library it calls.

Argo CD v3.5.1 matches ``spec.source.directory.include`` / ``.exclude`` against a file's path with
``util/glob`` ``Match(pattern, text)``, which compiles the pattern with ``github.com/gobwas/glob``
v0.2.3 (the version in Argo CD's ``go.mod``) and no separators, and returns false, after logging "failed
to compile pattern", when it does not compile. gobwas/glob's syntax is not fnmatch's nor Python's
regular expressions: ``[!a]`` negates a class but ``[^a]`` is the class of ``^`` and ``a``, a class
holds either one run of characters or one range (``[a-z0-9]`` does not compile: "expected close range
character"), ``{a,b`` with no ``}`` compiles, a trailing ``\\`` is dropped, and NUL ends the pattern
where the lexer expects a new token. Its compiler then optimises the pattern into matchers whose
results differ from the pattern's plain meaning in places (``start*art`` matches ``start``,
``{*.,}x*`` does not match ``x``: gobwas/glob issues 43, 61, 62, fixed only by its v1 rewrite, which
Argo CD does not use). So this module is a line-by-line port of v0.2.3's ``syntax/lexer/lexer.go``,
``syntax/ast/parser.go``, ``compiler/compiler.go`` and ``match/*.go``, working on UTF-8 bytes as Go
does (byte offsets, runes decoded as ``unicode/utf8`` decodes them), so that hooklint leaves out
exactly the files Argo CD leaves out. A Go runtime panic (a slice out of range in ``match/row.go``)
raises :class:`GlobPanic`.
"""

from __future__ import annotations

from collections import deque
from functools import lru_cache
from typing import Iterator, Sequence, cast

from hooklint import deadline

from hooklint.sources.repository.gomatch import RUNE_ERROR, BadPattern, path_match  # noqa: F401 (path_match: re-exported)
from hooklint.sources.repository.gomatch import decode_rune as _decode

_EOF = 0  # the lexer's ``eof`` rune: a NUL in the pattern reads as the end of input


class GlobError(ValueError):
    """A pattern gobwas/glob refuses to compile; the message is gobwas/glob's own."""


class GlobPanic(RuntimeError):
    """Matching would make Go panic (a slice out of range): the repo server fails the request."""


class GlobTooDeep(GlobPanic):
    """A pattern nested deeper (``{{{...}}}``, hundreds of alternatives in a row) than this port's
    recursive compiler and matchers can follow within Python's recursion limit; gobwas/glob (Go's
    growing stacks) compiles and matches it. Its callers treat it as they treat :class:`GlobPanic`:
    they fail closed (``directory.include``/``exclude``: the file is read, never left out)."""


# --- unicode/utf8 on bytes --------------------------------------------------------------------


def _runes(data: bytes) -> Iterator[tuple[int, int]]:
    """Go's ``for i, r := range s``: (byte offset, rune)."""
    pos = 0
    while pos < len(data):
        r, w = _decode(data, pos)
        yield pos, r
        pos += w


def _rune_len(r: int) -> int:
    """``utf8.RuneLen`` for a rune ``range`` yields (never negative here)."""
    return 1 if r < 0x80 else 2 if r < 0x800 else 3 if r < 0x10000 else 4


def _encode(r: int) -> bytes:
    return chr(r).encode("utf-8", "surrogatepass")


def _rune_count(data: bytes) -> int:
    return sum(1 for _ in _runes(data))


def _index_rune(data: bytes, r: int) -> int:
    """``strings.IndexRune``: RuneError finds the first invalid sequence or U+FFFD."""
    if r == RUNE_ERROR:
        return next((i for i, c in _runes(data) if c == RUNE_ERROR), -1)
    return data.find(_encode(r))


def _index_any_runes(data: bytes, rs: Sequence[int]) -> int:
    """``util/strings`` ``IndexAnyRunes``: the index of the first of ``rs`` (in ``rs``'s order) found."""
    for r in rs:
        i = _index_rune(data, r)
        if i != -1:
            return i
    return -1


def _last_index_any_runes(data: bytes, rs: Sequence[int]) -> int:
    """``util/strings`` ``LastIndexAnyRunes`` (its loop over a multi-byte rune never advances its
    search: the first occurrence of that rune; Go may also panic there, which this does not copy:
    only separators reach it, and Argo CD's directory globs have none)."""
    for r in rs:
        if 0 <= r < 0x80:
            i = data.rfind(bytes([r]))
        else:
            i = _index_rune(data, r)
        if i != -1:
            return i
    return -1


def _slice(data: bytes, low: int, high: int) -> bytes:
    if not 0 <= low <= high <= len(data):
        raise GlobPanic(f"slice bounds out of range [{low}:{high}] with length {len(data)}")
    return data[low:high]


# --- syntax/lexer/lexer.go --------------------------------------------------------------------

(EOF, ERROR, TEXT, CHAR, ANY, SUPER, SINGLE, NOT, SEPARATOR, RANGE_OPEN, RANGE_CLOSE, RANGE_LO, RANGE_HI,
 RANGE_BETWEEN, TERMS_OPEN, TERMS_CLOSE) = range(16)  # fmt: skip
_IN_TEXT_BREAKERS = (ord("?"), ord("*"), ord("["), ord("{"))
_IN_TERMS_BREAKERS = _IN_TEXT_BREAKERS + (ord("}"), ord(","))


class _Lexer:
    """gobwas/glob's lexer: tokens made on demand (what follows the token the parser stops at is
    never read), each ``(type, raw bytes)``."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos, self.err = data, 0, ""
        self.tokens: deque[tuple[int, bytes]] = deque()
        self.terms = 0
        self.last_rune, self.last_size, self.has_rune = 0, 0, False

    def next(self) -> tuple[int, bytes]:
        while True:
            if self.err:
                return ERROR, self.err.encode()
            if self.tokens:
                return self.tokens.popleft()
            self._fetch_item()

    def _peek(self) -> tuple[int, int]:
        if self.pos == len(self.data):
            return _EOF, 0
        r, w = _decode(self.data, self.pos)
        if r == RUNE_ERROR:
            self.err = "could not read rune"
            return _EOF, 0
        return r, w

    def _read(self) -> int:
        if self.has_rune:
            self.has_rune = False
            self.pos += self.last_size
            return self.last_rune
        r, w = self._peek()
        self.pos += w
        self.last_rune, self.last_size = r, w
        return r

    def _unread(self) -> None:
        if self.has_rune:
            self.err = "could not unread rune"
            return
        self.pos -= self.last_size
        self.has_rune = True

    def _push(self, kind: int, raw: bytes = b"") -> None:
        self.tokens.append((kind, raw))

    def _fetch_item(self) -> None:
        r = self._read()
        if r == _EOF:
            self._push(EOF)
        elif r == ord("{"):
            self.terms += 1
            self._push(TERMS_OPEN, b"{")
        elif r == ord(",") and self.terms > 0:
            self._push(SEPARATOR, b",")
        elif r == ord("}") and self.terms > 0:
            self._push(TERMS_CLOSE, b"}")
            self.terms -= 1
        elif r == ord("["):
            self._push(RANGE_OPEN, b"[")
            self._fetch_range()
        elif r == ord("?"):
            self._push(SINGLE, b"?")
        elif r == ord("*"):
            if self._read() == ord("*"):
                self._push(SUPER, b"**")
            else:
                self._unread()
                self._push(ANY, b"*")
        else:
            self._unread()
            self._fetch_text(_IN_TERMS_BREAKERS if self.terms > 0 else _IN_TEXT_BREAKERS)

    def _fetch_range(self) -> None:
        want_hi = want_close = seen_not = False
        while True:
            r = self._read()
            if r == _EOF:
                self.err = "unexpected end of input"
                return
            if want_close:
                if r != ord("]"):
                    self.err = "expected close range character"
                else:
                    self._push(RANGE_CLOSE, b"]")
                return
            if want_hi:
                self._push(RANGE_HI, _encode(r))
                want_close = True
                continue
            if not seen_not and r == ord("!"):
                self._push(NOT, b"!")
                seen_not = True
                continue
            n, w = self._peek()
            if n == ord("-"):
                self.pos += w
                self._push(RANGE_LO, _encode(r))
                self._push(RANGE_BETWEEN, b"-")
                want_hi = True
                continue
            self._unread()
            self._fetch_text((ord("]"),))
            want_close = True

    def _fetch_text(self, breakers: tuple[int, ...]) -> None:
        data: list[int] = []
        escaped = False
        while True:
            r = self._read()
            if r == _EOF:
                break
            if not escaped:
                if r == ord("\\"):
                    escaped = True
                    continue
                if r in breakers:
                    self._unread()
                    break
            escaped = False
            data.append(r)
        if data:
            self._push(TEXT, b"".join(_encode(c) for c in data))


# --- syntax/ast -------------------------------------------------------------------------------

(K_NOTHING, K_PATTERN, K_LIST, K_RANGE, K_TEXT, K_ANY, K_SUPER, K_SINGLE, K_ANY_OF) = range(9)


class _Node:
    __slots__ = ("kind", "value", "children", "parent")

    def __init__(self, kind: int, value: object = None, *children: "_Node") -> None:
        self.kind, self.value = kind, value
        self.children: list[_Node] = []
        self.parent: _Node | None = None
        _insert(self, *children)

    def equal(self, other: "_Node") -> bool:
        """``Node.Equal`` (and ``reflect.DeepEqual`` as ``appendIfUnique`` uses it): kind, value
        and children alike."""
        return (self.kind == other.kind and self.value == other.value and len(self.children) == len(other.children)
                and all(a.equal(b) for a, b in zip(self.children, other.children)))  # fmt: skip


def _insert(parent: _Node, *children: _Node) -> None:
    parent.children.extend(children)
    for child in children:
        child.parent = parent


def _parse(lexer: _Lexer) -> _Node:
    """``ast.Parse``: the pattern's tree; GlobError when it does not parse."""
    root = tree = _Node(K_PATTERN)
    while True:
        kind, raw = lexer.next()
        if kind == EOF:
            return root
        if kind == ERROR:
            raise GlobError(raw.decode())
        if kind == TEXT:
            _insert(tree, _Node(K_TEXT, raw))
        elif kind == ANY:
            _insert(tree, _Node(K_ANY))
        elif kind == SUPER:
            _insert(tree, _Node(K_SUPER))
        elif kind == SINGLE:
            _insert(tree, _Node(K_SINGLE))
        elif kind == RANGE_OPEN:
            _parse_range(tree, lexer)
        elif kind == TERMS_OPEN:
            any_of = _Node(K_ANY_OF)
            _insert(tree, any_of)
            tree = _Node(K_PATTERN)
            _insert(any_of, tree)
        elif kind == SEPARATOR:
            assert tree.parent is not None
            pattern = _Node(K_PATTERN)
            _insert(tree.parent, pattern)
            tree = pattern
        elif kind == TERMS_CLOSE:
            assert tree.parent is not None and tree.parent.parent is not None
            tree = tree.parent.parent
        else:
            raise GlobError(f"unexpected token: {raw.decode()}")


def _parse_range(tree: _Node, lexer: _Lexer) -> None:
    not_, lo, hi, chars = False, 0, 0, b""
    while True:
        kind, raw = lexer.next()
        if kind == EOF:
            raise GlobError("unexpected end")
        if kind == ERROR:
            raise GlobError(raw.decode())
        if kind == NOT:
            not_ = True
        elif kind == RANGE_LO:
            lo = _decode(raw, 0)[0]
        elif kind == RANGE_HI:
            hi = _decode(raw, 0)[0]
            if hi < lo:
                raise GlobError(f"hi character '{chr(hi)}' should be greater than lo '{chr(lo)}'")
        elif kind == TEXT:
            chars = raw
        elif kind == RANGE_CLOSE:
            is_range, is_chars = lo != 0 and hi != 0, chars != b""
            if is_chars == is_range:
                raise GlobError("could not parse range")
            if is_range:
                _insert(tree, _Node(K_RANGE, (not_, lo, hi)))
            else:
                _insert(tree, _Node(K_LIST, (not_, chars)))
            return


# --- match/*.go -------------------------------------------------------------------------------


class _Matcher:
    def match(self, s: bytes) -> bool:
        raise NotImplementedError

    def index(self, s: bytes) -> tuple[int, list[int]]:
        raise NotImplementedError

    def length(self) -> int:
        return -1


class _Any(_Matcher):
    def __init__(self, separators: Sequence[int]) -> None:
        self.separators = list(separators)

    def match(self, s: bytes) -> bool:
        return _index_any_runes(s, self.separators) == -1

    def index(self, s: bytes) -> tuple[int, list[int]]:
        found = _index_any_runes(s, self.separators)
        if found == 0:
            return 0, [0]
        if found > 0:
            s = s[:found]
        return 0, [i for i, _ in _runes(s)] + [len(s)]


class _AnyOf(_Matcher):
    def __init__(self, matchers: list[_Matcher]) -> None:
        self.matchers = matchers

    def match(self, s: bytes) -> bool:
        return any(m.match(s) for m in self.matchers)

    def index(self, s: bytes) -> tuple[int, list[int]]:
        index, segments = -1, []
        for m in self.matchers:
            idx, seg = m.index(s)
            if idx == -1:
                continue
            if index == -1 or idx < index:
                index, segments = idx, list(seg)
                continue
            if idx > index:
                continue
            segments = sorted(set(segments) | set(seg))  # appendMerge of sorted unique lists
        return (index, segments) if index != -1 else (-1, [])

    def length(self) -> int:
        out = -1
        for m in self.matchers:
            ml = m.length()
            if out == -1:
                out = ml
                continue
            if ml == -1 or out != ml:
                return -1
        return out


class _Memo:
    """The answers of the :class:`_BTree` matchers of one pattern during one :meth:`Glob.match`,
    by ``(matcher, text)``. A matcher's answer is a function of the text alone, so remembering it
    changes no result; it bounds the time of a pattern whose trees would otherwise retry the same
    sub-texts exponentially often. At most :data:`MEMO_BYTES` bytes of texts are kept (past them
    nothing more is remembered, and the run's deadline still bounds the match)."""

    MEMO_BYTES = 32 << 20

    def __init__(self) -> None:
        self.answers: dict[tuple[int, bytes], bool] = {}
        self.kept = 0

    def get(self, matcher: "_BTree", s: bytes) -> bool | None:
        return self.answers.get((id(matcher), s))

    def put(self, matcher: "_BTree", s: bytes, answer: bool) -> None:
        if self.kept + len(s) <= self.MEMO_BYTES:
            self.answers[(id(matcher), s)] = answer
            self.kept += len(s)


class _BTree(_Matcher):
    def __init__(self, value: _Matcher, left: _Matcher | None, right: _Matcher | None) -> None:
        self.value, self.left, self.right = value, left, right
        #: The memo of the running :meth:`Glob.match` (set by it on every tree of the pattern).
        self.memo: _Memo | None = None
        self.left_len = self.right_len = 0
        ok = True
        self.value_len = value.length()
        if self.value_len == -1:
            ok = False
        if left is not None:
            self.left_len = left.length()
            ok = ok and self.left_len != -1
        if right is not None:
            self.right_len = right.length()
            ok = ok and self.right_len != -1
        self.total = self.left_len + self.value_len + self.right_len if ok else -1

    def length(self) -> int:
        return self.total

    def index(self, s: bytes) -> tuple[int, list[int]]:
        return -1, []

    def match(self, s: bytes) -> bool:
        """``BTree.Match``, remembered for the length of one :meth:`Glob.match` (see
        :class:`_Memo`): the same ``s`` gives the same answer, so a pattern of many ``*x?`` groups
        (``*a?*a?*a?...*c``: each group's tree retries every split of the text, as Go does) costs
        a polynomial number of steps, not an exponential one."""
        memo = self.memo
        if memo is not None:
            known = memo.get(self, s)
            if known is not None:
                return known
        found = self._match(s)
        if memo is not None:
            memo.put(self, s, found)
        return found

    def _match(self, s: bytes) -> bool:
        size = len(s)
        if self.total != -1 and self.total > size:
            return False
        offset = self.left_len if self.left_len >= 0 else 0
        limit = size - self.right_len if self.right_len >= 0 else size
        while offset < limit:
            deadline.check()  # run-timeout holds inside one match too (a hostile pattern)
            index, segments = self.value.index(_slice(s, offset, limit))
            if index == -1:
                return False
            left_text = _slice(s, 0, offset + index)
            left = self.left.match(left_text) if self.left is not None else left_text == b""
            if left:
                for length in reversed(segments):
                    rest = b"" if size <= offset + index + length else s[offset + index + length:]
                    if self.right.match(rest) if self.right is not None else rest == b"":
                        return True
            offset += index + _decode(s, offset + index)[1]
        return False


class _Contains(_Matcher):
    def __init__(self, needle: bytes, not_: bool) -> None:
        self.needle, self.not_ = needle, not_

    def match(self, s: bytes) -> bool:
        return (self.needle in s) != self.not_

    def index(self, s: bytes) -> tuple[int, list[int]]:
        offset = 0
        idx = s.find(self.needle)
        if not self.not_:
            if idx == -1:
                return -1, []
            offset = idx + len(self.needle)
            if len(s) <= offset:
                return 0, [offset]
            s = s[offset:]
        elif idx != -1:
            s = s[:idx]
        return 0, [offset + i for i, _ in _runes(s)] + [offset + len(s)]


class _EveryOf(_Matcher):
    def __init__(self) -> None:
        self.matchers: list[_Matcher] = []

    def length(self) -> int:
        out = 0
        for m in self.matchers:
            ml = m.length()
            if out > 0:
                out += ml
            else:
                return -1
        return out

    def index(self, s: bytes) -> tuple[int, list[int]]:
        index = offset = 0
        current: list[int] = []
        sub = s
        for i, m in enumerate(self.matchers):
            idx, seg = m.index(sub)
            if idx == -1:
                return -1, []
            if i == 0:
                current = list(seg)
            else:
                delta = index - (idx + offset)
                following = [n for ex in current for n in seg if ex + delta == n]
                if not following:
                    return -1, []
                current = following
            index = idx + offset
            sub = s[index:]
            offset += idx
        return index, current

    def match(self, s: bytes) -> bool:
        return all(m.match(s) for m in self.matchers)


class _List(_Matcher):
    def __init__(self, runes: list[int], not_: bool) -> None:
        self.runes, self.not_ = runes, not_

    def match(self, s: bytes) -> bool:
        r, w = _decode(s, 0)
        if len(s) > w:
            return False
        return (r in self.runes) == (not self.not_)

    def length(self) -> int:
        return 1

    def index(self, s: bytes) -> tuple[int, list[int]]:
        for i, r in _runes(s):
            if self.not_ == (r not in self.runes):
                return i, [_rune_len(r)]
        return -1, []


class _Max(_Matcher):
    def __init__(self, limit: int) -> None:
        self.limit = limit

    def match(self, s: bytes) -> bool:
        return _rune_count(s) <= self.limit

    def index(self, s: bytes) -> tuple[int, list[int]]:
        segments = [0]
        for count, (i, r) in enumerate(_runes(s), 1):
            if count > self.limit:
                break
            segments.append(i + _rune_len(r))
        return 0, segments


class _Min(_Matcher):
    def __init__(self, limit: int) -> None:
        self.limit = limit

    def match(self, s: bytes) -> bool:
        return _rune_count(s) >= max(self.limit, 1)  # Go's loop never says yes to an empty string

    def index(self, s: bytes) -> tuple[int, list[int]]:
        if len(s) - self.limit + 1 <= 0:
            return -1, []
        segments = [i + _rune_len(r) for count, (i, r) in enumerate(_runes(s), 1) if count >= self.limit]
        return (0, segments) if segments else (-1, [])


class _Nothing(_Matcher):
    def match(self, s: bytes) -> bool:
        return s == b""

    def index(self, s: bytes) -> tuple[int, list[int]]:
        return 0, [0]

    def length(self) -> int:
        return 0


class _Prefix(_Matcher):
    def __init__(self, prefix: bytes) -> None:
        self.prefix = prefix

    def index(self, s: bytes) -> tuple[int, list[int]]:
        idx = s.find(self.prefix)
        if idx == -1:
            return -1, []
        n = len(self.prefix)
        sub = s[idx + n:] if len(s) > idx + n else b""
        return idx, [n] + [n + i + _rune_len(r) for i, r in _runes(sub)]

    def match(self, s: bytes) -> bool:
        return s.startswith(self.prefix)


class _PrefixAny(_Matcher):
    def __init__(self, prefix: bytes, separators: Sequence[int]) -> None:
        self.prefix, self.separators = prefix, list(separators)

    def index(self, s: bytes) -> tuple[int, list[int]]:
        idx = s.find(self.prefix)
        if idx == -1:
            return -1, []
        n = len(self.prefix)
        sub = s[idx + n:]
        i = _index_any_runes(sub, self.separators)
        if i > -1:
            sub = sub[:i]
        return idx, [n] + [n + j + _rune_len(r) for j, r in _runes(sub)]

    def match(self, s: bytes) -> bool:
        return s.startswith(self.prefix) and _index_any_runes(s[len(self.prefix):], self.separators) == -1


class _PrefixSuffix(_Matcher):
    def __init__(self, prefix: bytes, suffix: bytes) -> None:
        self.prefix, self.suffix = prefix, suffix

    def index(self, s: bytes) -> tuple[int, list[int]]:
        prefix_idx = s.find(self.prefix)
        if prefix_idx == -1:
            return -1, []
        suffix_len = len(self.suffix)
        if suffix_len <= 0:
            return prefix_idx, [len(s) - prefix_idx]
        if len(s) - prefix_idx <= 0:
            return -1, []
        segments = []
        sub = s[prefix_idx:]
        while True:
            suffix_idx = sub.rfind(self.suffix)
            if suffix_idx == -1:
                break
            segments.append(suffix_idx + suffix_len)
            sub = sub[:suffix_idx]
        if not segments:
            return -1, []
        return prefix_idx, segments[::-1]

    def match(self, s: bytes) -> bool:
        return s.startswith(self.prefix) and s.endswith(self.suffix)


class _Range(_Matcher):
    def __init__(self, lo: int, hi: int, not_: bool) -> None:
        self.lo, self.hi, self.not_ = lo, hi, not_

    def length(self) -> int:
        return 1

    def match(self, s: bytes) -> bool:
        r, w = _decode(s, 0)
        if len(s) > w:
            return False
        return (self.lo <= r <= self.hi) == (not self.not_)

    def index(self, s: bytes) -> tuple[int, list[int]]:
        for i, r in _runes(s):
            if self.not_ != (self.lo <= r <= self.hi):
                return i, [_rune_len(r)]
        return -1, []


class _Row(_Matcher):
    def __init__(self, size: int, matchers: list[_Matcher]) -> None:
        self.size, self.matchers = size, matchers

    def _match_all(self, s: bytes) -> bool:
        idx = 0
        for m in self.matchers:
            length = m.length()
            following = i = 0
            for following, _ in _runes(s[idx:]):
                i += 1
                if i == length:
                    break
            if i < length or not m.match(_slice(s, idx, idx + following + 1)):
                return False
            idx += following + 1
        return True

    def match(self, s: bytes) -> bool:
        return _rune_count(s) == self.size and self._match_all(s)

    def length(self) -> int:
        return self.size

    def index(self, s: bytes) -> tuple[int, list[int]]:
        for i, _ in _runes(s):
            if len(s) - i < self.size:
                break
            if self._match_all(s[i:]):
                return i, [self.size]
        return -1, []


class _Single(_Matcher):
    def __init__(self, separators: Sequence[int]) -> None:
        self.separators = list(separators)

    def match(self, s: bytes) -> bool:
        r, w = _decode(s, 0)
        if len(s) > w:
            return False
        return r not in self.separators

    def length(self) -> int:
        return 1

    def index(self, s: bytes) -> tuple[int, list[int]]:
        for i, r in _runes(s):
            if r not in self.separators:
                return i, [_rune_len(r)]
        return -1, []


class _Suffix(_Matcher):
    def __init__(self, suffix: bytes) -> None:
        self.suffix = suffix

    def match(self, s: bytes) -> bool:
        return s.endswith(self.suffix)

    def index(self, s: bytes) -> tuple[int, list[int]]:
        idx = s.find(self.suffix)
        return (-1, []) if idx == -1 else (0, [idx + len(self.suffix)])


class _SuffixAny(_Matcher):
    def __init__(self, suffix: bytes, separators: Sequence[int]) -> None:
        self.suffix, self.separators = suffix, list(separators)

    def index(self, s: bytes) -> tuple[int, list[int]]:
        idx = s.find(self.suffix)
        if idx == -1:
            return -1, []
        i = _last_index_any_runes(s[:idx], self.separators) + 1
        return i, [idx + len(self.suffix) - i]

    def match(self, s: bytes) -> bool:
        if not s.endswith(self.suffix):
            return False
        return _index_any_runes(s[:len(s) - len(self.suffix)], self.separators) == -1


class _Super(_Matcher):
    def match(self, s: bytes) -> bool:
        return True

    def index(self, s: bytes) -> tuple[int, list[int]]:
        return 0, [i for i, _ in _runes(s)] + [len(s)]


class _Text(_Matcher):
    def __init__(self, text: bytes) -> None:
        self.text, self.runes = text, _rune_count(text)

    def match(self, s: bytes) -> bool:
        return s == self.text

    def length(self) -> int:
        return self.runes

    def index(self, s: bytes) -> tuple[int, list[int]]:
        index = s.find(self.text)
        return (-1, []) if index == -1 else (index, [len(self.text)])


# --- compiler/compiler.go ---------------------------------------------------------------------


def _optimize(matcher: _Matcher | None) -> _Matcher | None:
    if isinstance(matcher, _Any) and not matcher.separators:
        return _Super()
    if isinstance(matcher, _AnyOf):
        return matcher.matchers[0] if len(matcher.matchers) == 1 else matcher
    if isinstance(matcher, _List):
        return _Text(_encode(matcher.runes[0])) if not matcher.not_ and len(matcher.runes) == 1 else matcher
    if isinstance(matcher, _BTree):
        matcher.left, matcher.right = _optimize(matcher.left), _optimize(matcher.right)
        if not isinstance(matcher.value, _Text):
            return matcher
        text, left, right = matcher.value.text, matcher.left, matcher.right
        if left is None and right is None:
            return _Text(text)
        if isinstance(left, _Super) and isinstance(right, _Super):
            return _Contains(text, False)
        if isinstance(left, _Super) and right is None:
            return _Suffix(text)
        if isinstance(right, _Super) and left is None:
            return _Prefix(text)
        if left is None and isinstance(right, _Suffix):
            return _PrefixSuffix(text, right.suffix)
        if right is None and isinstance(left, _Prefix):
            return _PrefixSuffix(left.prefix, text)
        if right is None and isinstance(left, _Any):
            return _SuffixAny(text, left.separators)
        if left is None and isinstance(right, _Any):
            return _PrefixAny(text, right.separators)
        return matcher
    return matcher


def _compile_matchers(matchers: list[_Matcher]) -> _Matcher:
    if not matchers:
        raise GlobError("compile error: need at least one matcher")
    if len(matchers) == 1:
        return matchers[0]
    glued = _glue(matchers)
    if glued is not None:
        return glued
    idx, max_len, value = -1, -1, None
    for i, m in enumerate(matchers):
        ml = m.length()
        if ml != -1 and ml >= max_len:
            idx, max_len, value = i, ml, m
    if value is None:
        return _BTree(matchers[0], None, _compile_matchers(matchers[1:]))
    left, right = matchers[:idx], matchers[idx + 1:]
    return _BTree(value, _compile_matchers(left) if left else None, _compile_matchers(right) if right else None)


def _glue(matchers: list[_Matcher]) -> _Matcher | None:
    return _glue_as_every(matchers) or _glue_as_row(matchers)


def _glue_as_row(matchers: list[_Matcher]) -> _Matcher | None:
    if len(matchers) <= 1 or any(m.length() == -1 for m in matchers):
        return None
    return _Row(sum(m.length() for m in matchers), list(matchers))


def _glue_as_every(matchers: list[_Matcher]) -> _Matcher | None:
    if len(matchers) <= 1:
        return None
    has_any = has_super = has_single = False
    minimum = 0
    separator: list[int] = []
    for i, m in enumerate(matchers):
        if isinstance(m, _Super):
            sep: list[int] = []
            has_super = True
        elif isinstance(m, _Any):
            sep, has_any = m.separators, True
        elif isinstance(m, _Single):
            sep, has_single = m.separators, True
            minimum += 1
        elif isinstance(m, _List):
            if not m.not_:
                return None
            sep, has_single = m.runes, True
            minimum += 1
        else:
            return None
        if i == 0:
            separator = sep
        if sep != separator:
            return None
    if has_super and not has_any and not has_single:
        return _Super()
    if has_any and not has_super and not has_single:
        return _Any(separator)
    if (has_any or has_super) and minimum > 0 and not separator:
        return _Min(minimum)
    every = _EveryOf()
    if minimum > 0:
        every.matchers.append(_Min(minimum))
        if not has_any and not has_super:
            every.matchers.append(_Max(minimum))
    if separator:
        every.matchers.append(_Contains(b"".join(_encode(r) for r in separator), True))
    return every


def _minimize_matchers(matchers: list[_Matcher]) -> list[_Matcher]:
    done: _Matcher | None = None
    left = right = count = 0
    for low in range(len(matchers)):
        for high in range(len(matchers), low, -1):
            glued = _glue(matchers[low:high])
            if glued is None:
                continue
            if done is None:
                swap = True
            else:
                cl, gl = done.length(), glued.length()
                swap = (cl > -1 and gl > -1 and gl > cl) or count < high - low
            if swap:
                done, left, right, count = glued, low, high, high - low
    if done is None:
        return matchers
    following = matchers[:left] + [done] + matchers[right:]
    if len(following) == len(matchers):
        return following
    return _minimize_matchers(following)


def _minimize_tree_any_of(tree: _Node) -> _Node | None:
    if any(c.kind != K_PATTERN for c in tree.children):
        return None
    common_left, common_right = _common_children(tree.children)
    cl, cr = len(common_left), len(common_right)
    if cl == 0 and cr == 0:
        return None
    result = []
    if cl > 0:
        result.append(_Node(K_PATTERN, None, *common_left))
    any_of: list[_Node] = []
    for child in tree.children:
        if cl > len(child.children) - cr:
            raise GlobPanic(f"slice bounds out of range [{cl}:{len(child.children) - cr}]")
        reuse = child.children[cl:len(child.children) - cr]
        node = _Node(K_NOTHING) if not reuse else _Node(K_PATTERN, None, *reuse)
        if not any(n.equal(node) for n in any_of):
            any_of.append(node)
    if len(any_of) == 1 and any_of[0].kind != K_NOTHING:
        result.append(any_of[0])
    elif len(any_of) > 1:
        result.append(_Node(K_ANY_OF, None, *any_of))
    if cr > 0:
        result.append(_Node(K_PATTERN, None, *common_right))
    return _Node(K_PATTERN, None, *result)


def _common_children(nodes: list[_Node]) -> tuple[list[_Node], list[_Node]]:
    if len(nodes) <= 1:
        return [], []
    idx = -1
    least = -1
    for i, n in enumerate(nodes):
        if idx == -1 or len(n.children) < least:
            least, idx = len(n.children), i
    tree = nodes[idx]
    size = len(tree.children)
    common_left: list[_Node] = []
    common_right: list[_Node | None] = [None] * size
    last_right = size
    break_left = break_right = False
    total = 0
    i, j = 0, size - 1
    while total < size and j >= 0 and not (break_left and break_right):
        tree_left, tree_right = tree.children[i], tree.children[j]
        for k in range(len(nodes)):
            if break_left and break_right:
                break
            if k == idx:
                continue
            rest_left = nodes[k].children[i]
            rest_right = nodes[k].children[j + len(nodes[k].children) - size]
            break_left = break_left or not tree_left.equal(rest_left)
            break_right = break_right or (not break_left and j <= i)
            break_right = break_right or not tree_right.equal(rest_right)
        if not break_left:
            total += 1
            common_left.append(tree_left)
        if not break_right:
            total += 1
            last_right = j
            common_right[j] = tree_right
        i, j = i + 1, j - 1
    return common_left, [n for n in common_right[last_right:] if n is not None]


def _compile_children(tree: _Node, separators: list[int]) -> list[_Matcher]:
    out = []
    for child in tree.children:
        m = _optimize(_compile(child, separators))
        assert m is not None
        out.append(m)
    return out


def _compile(tree: _Node, separators: list[int]) -> _Matcher:
    m: _Matcher
    if tree.kind == K_ANY_OF:
        minimized = _minimize_tree_any_of(tree)
        if minimized is not None:
            return _compile(minimized, separators)
        return _AnyOf(_compile_children(tree, separators))  # optimised by its parent pattern, as in Go
    if tree.kind == K_PATTERN:
        if not tree.children:
            return _Nothing()
        m = _compile_matchers(_minimize_matchers(_compile_children(tree, separators)))
    elif tree.kind == K_ANY:
        m = _Any(separators)
    elif tree.kind == K_SUPER:
        m = _Super()
    elif tree.kind == K_SINGLE:
        m = _Single(separators)
    elif tree.kind == K_NOTHING:
        m = _Nothing()
    elif tree.kind == K_LIST:
        negated, chars = cast("tuple[bool, bytes]", tree.value)
        m = _List([r for _, r in _runes(chars)], negated)
    elif tree.kind == K_RANGE:
        negated, lo, hi = cast("tuple[bool, int, int]", tree.value)
        m = _Range(lo, hi, negated)
    elif tree.kind == K_TEXT:
        m = _Text(cast(bytes, tree.value))
    else:
        raise GlobError("could not compile tree: unknown node type")
    optimized = _optimize(m)
    assert optimized is not None
    return optimized


# --- the public face ----------------------------------------------------------------------------


class Glob:
    """A compiled pattern (``glob.Compile(pattern, separators...)``); :meth:`match` is ``Glob.Match``."""

    def __init__(self, pattern: str, separators: str = "") -> None:
        """Compile ``pattern`` as gobwas/glob v0.2.3 does with ``separators`` (each a character
        ``*`` and ``?`` never match; Argo CD's ``util/glob`` passes none for directory globs).
        Raises :class:`GlobError` with gobwas/glob's message when it does not compile, and
        :class:`GlobTooDeep` for one nested too deeply to follow here."""
        data = pattern.encode("utf-8", "surrogatepass")
        try:
            self._matcher = _compile(_parse(_Lexer(data)), [ord(c) for c in separators])
            self._trees = list(_trees(self._matcher))
        except RecursionError:
            raise GlobTooDeep("pattern nested too deeply for hooklint to compile") from None

    def match(self, text: str) -> bool:
        """Whether ``text`` (a file path: undecodable bytes kept as ``os`` gives them, through
        ``surrogateescape``) matches. Raises :class:`GlobPanic` where Go would panic,
        :class:`GlobTooDeep` when the match recurses deeper than Python follows, and
        :class:`hooklint.deadline.RunTimeout` when the run's deadline passes while matching."""
        memo = _Memo() if self._trees else None
        for tree in self._trees:
            tree.memo = memo
        try:
            return self._matcher.match(text.encode("utf-8", "surrogateescape"))
        except RecursionError:
            raise GlobTooDeep("pattern nested too deeply for hooklint to match") from None
        finally:
            for tree in self._trees:
                tree.memo = None


def _trees(matcher: _Matcher | None) -> Iterator[_BTree]:
    """Every :class:`_BTree` in ``matcher`` (the matchers it holds, at any depth)."""
    if matcher is None:
        return
    if isinstance(matcher, _BTree):
        yield matcher
    for child in (*vars(matcher).values(),):
        if isinstance(child, _Matcher):
            yield from _trees(child)
        elif isinstance(child, list):
            for item in child:
                if isinstance(item, _Matcher):
                    yield from _trees(item)


@lru_cache(maxsize=256)
def compile_glob(pattern: str, separators: str = "") -> Glob | None:
    """The compiled ``pattern``, or None when gobwas/glob refuses it (``util/glob`` ``Match``
    then logs "failed to compile pattern" and returns false). Remembered per pattern (a folder's
    ``include`` is matched against each of its files). Raises :class:`GlobTooDeep` for a pattern
    nested too deeply to follow here (remembered too)."""
    if (pattern, separators) in _TOO_DEEP:
        raise GlobTooDeep("pattern nested too deeply for hooklint to compile")
    try:
        return Glob(pattern, separators)
    except GlobError:
        return None
    except GlobTooDeep:
        _TOO_DEEP.add((pattern, separators))  # not compiled again for each file
        raise


#: Patterns :func:`compile_glob` found too deeply nested (:class:`GlobTooDeep`), with their separators.
_TOO_DEEP: set[tuple[str, str]] = set()


# --- Go's path.Match (the git directories generator's globs) ------------------------------------
