"""Helm's ``--set`` parser (helm ``pkg/strvals/parser.go``, v4.0.5; the same in v3) ported as far as
hooklint needs it: which value paths one flag assigns, and whether the order of a set of flags changes
the values Helm renders with (attack 10, item 7).

Argo CD passes an Application's ``helm.parameters`` to ``helm template`` as one ``--set`` (or
``--set-string`` with ``forceString``) flag per entry of a Go map keyed by the parameter's name
(``reposerver/repository/repository.go`` ``helmTemplate`` fills ``TemplateOpts.Set``/``SetString``,
and ``fileParameters`` ``SetFile``; ``util/helm/cmd.go`` ``template`` ranges over each map, v3.5.1):
the flags of one map come in random order, each written ``name=cleanSetParameters(value)`` with the
name not escaped. Helm applies the flags of ``--set``, then ``--set-string``, then ``--set-file`` in
the order given, each parsed into the values (``pkg/cli/values/options.go`` ``MergeValues``:
``strvals.ParseInto``). A name holding ``,`` or ``=`` is read by Helm as several assignments
(``x=1,debug`` with value ``true`` sets ``x`` and ``debug``), so two flags of one map can set the
same value: which one wins then changes from one render to the next.

:func:`assignments` says what one flag sets (each value path, with the text of its value), and
:func:`parse` is the port itself (what Helm's ``strvals.Parse`` returns; the tests hold it to Helm's
own parser). :func:`order_conflict` finds two flags whose order matters: one sets a path the other
sets too (to another value), or above or below it, or under the same parent as a list index where
the other writes a key (or where either writes an empty key, which Helm skips). Flags that touch no
such pair commute, so every order Argo CD may draw renders the same values. Conservative: a pair it
names may in rare cases render the same either way; one it does not name never differs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Union

#: One step of a value path: a map key, or a list index.
Segment = Union[str, int]
Path = tuple[Segment, ...]

#: ``MaxIndex`` and ``MaxNestedNameLevel`` of ``parser.go``.
MAX_INDEX = 65536
MAX_NESTED_NAME_LEVEL = 30
_INT64 = (-(2**63), 2**63 - 1)


#: The runes outside ASCII that Go's simple case folding maps onto an ASCII letter.
_FOLD_EXTRA = {"\u017f": "s", "\u212a": "k"}


def _go_fold(text: str) -> str:
    """``text`` as ``strings.EqualFold`` compares it with an ASCII word (this module imports
    nothing of hooklint: the Helm child process loads it alone)."""
    return text.lower() if text.isascii() else "".join(_FOLD_EXTRA.get(c, c.lower()) for c in text)


def _q(text: str) -> str:
    """``text`` as Go's ``%q`` writes it, for the printable text of a key."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class StrvalsError(ValueError):
    """A flag Helm's parser refuses (its message, as far as hooklint words it)."""


class _Touch:
    """The value of an assignment that sets no value of its own (``a[0]`` with nothing after it:
    Helm makes ``a`` a list): never equal to another."""

    def __repr__(self) -> str:
        return "<touch>"


@dataclass(frozen=True, slots=True)
class Assignment:
    """One value Helm sets from a flag: ``path`` (keys and list indexes from the top of the values)
    and ``value``, the raw text of the value (a tuple of texts for a ``{a,b}`` list; a
    :class:`_Touch` for a list made without a value)."""

    path: Path
    value: Any


class _Scanner:
    def __init__(self, text: str):
        self.text = text
        self.at = 0

    def read(self) -> str | None:
        if self.at >= len(self.text):
            return None
        self.at += 1
        return self.text[self.at - 1]

    def unread(self) -> None:
        self.at -= 1


_EOF = object()


def _runes_until(sc: _Scanner, stop: str) -> tuple[str, str | None]:
    """``runesUntil``: the text up to a rune of ``stop`` (``\\`` takes the next rune as it is),
    and that rune; None at the end of the flag."""
    out: list[str] = []
    while True:
        rune = sc.read()
        if rune is None:
            return "".join(out), None
        if rune in stop:
            return "".join(out), rune
        if rune == "\\":
            rune = sc.read()
            if rune is None:
                return "".join(out), None
        out.append(rune)


def parse_int64(text: str) -> int | None:
    """Go's ``strconv.ParseInt(text, 10, 64)`` (and ``strconv.Atoi`` on a 64-bit platform, which
    accepts the same texts): an optional ``+``/``-``, then ASCII decimal digits (leading zeros
    allowed; no ``_``, no spaces), within int64. None where Go returns an error. Never hands
    ``int()`` more than 20 characters (Python refuses a text of more than 4,300 digits, where Go
    says "value out of range")."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body or not all("0" <= c <= "9" for c in body):
        return None
    significant = body.lstrip("0")
    if len(significant) > 19:  # int64 has at most 19 digits
        return None
    value = int(significant or "0")
    value = -value if text[0] == "-" else value
    return value if _INT64[0] <= value <= _INT64[1] else None


def _atoi(text: str) -> int:
    """Go's ``strconv.Atoi`` of a list index (:func:`parse_int64`), raising StrvalsError with
    Helm's message where Go fails: "invalid syntax", or "value out of range" for digits past
    int64."""
    value = parse_int64(text)
    if value is not None:
        return value
    body = text[1:] if text[:1] in ("+", "-") else text
    why = "value out of range" if body and all("0" <= c <= "9" for c in body) else "invalid syntax"
    raise StrvalsError(f"error parsing index: strconv.Atoi: parsing {_q(text)}: {why}")


def _typed(raw: str, string: bool) -> Any:
    """``typedVal`` (helm ``pkg/strvals/parser.go``): with ``string`` (``--set-string``) the text;
    else true/false/null (any case), ``0``, or a decimal int64 not starting with ``0``
    (:func:`parse_int64`), else the text: digits past int64 (``99999999999999999999``, or 5,000 of
    them) stay a string, as in Helm."""
    if string:
        return raw
    lower = _go_fold(raw)  # strings.EqualFold: "falſe" is false
    if lower == "true":
        return True
    if lower == "false":
        return False
    if lower == "null":
        return None
    if raw == "0":
        return 0
    if raw and raw[0] != "0":  # strconv.ParseInt(val, 10, 64); a text it refuses stays a string
        value = parse_int64(raw)
        if value is not None:
            return value
    return raw


class _Parser:
    """``parser`` over one flag, writing into ``data`` as Helm does and recording each assignment."""

    def __init__(self, text: str, string: bool, read: Callable[[str], Any] | None = None):
        self.sc = _Scanner(text)
        self.read = read or (lambda raw: _typed(raw, string))
        self.done: list[Assignment] = []

    def parse(self, data: dict) -> None:
        while self.key(data, 0, ()) is not _EOF:
            pass

    def value(self, path: Path) -> tuple[Any, Any]:
        """The value after ``=``: ``(typed, raw)``; ``_EOF`` as typed at the end of the flag
        right after ``=`` (Helm sets ``""`` and stops)."""
        rune = self.sc.read()
        if rune is None:
            return _EOF, ""
        if rune != "{":
            self.sc.unread()
            raw, _ = _runes_until(self.sc, ",")
            return self.read(raw), raw
        items: list[str] = []
        while True:
            raw, last = _runes_until(self.sc, ",}")
            if last is None:
                raise StrvalsError("list must terminate with '}'")
            items.append(raw)
            if last == "}":
                following = self.sc.read()
                if following is not None and following != ",":
                    self.sc.unread()
                return [self.read(i) for i in items], tuple(items)

    def key(self, data: dict, level: int, path: Path) -> Any:
        """``key``: one assignment under ``data`` (at ``path``); ``_EOF`` at the end of the flag."""
        k, last = _runes_until(self.sc, "=[,.")
        if last is None:
            if not k:
                return _EOF
            raise StrvalsError(f"key {_q(k)} has no value")
        here = path + (k,)
        if last == "[":
            index = self._index()
            found = data.get(k, []) if k in data else []
            if not isinstance(found, list):
                raise StrvalsError(f"unable to parse key: {_q(k)} is not a list")
            found, status = self.list_item(found, index, level, here)
            if k:
                data[k] = found
            return status
        if last == "=":
            typed, raw = self.value(here)
            self.done.append(Assignment(here, raw))
            if k:
                data[k] = "" if typed is _EOF else typed
            return _EOF if typed is _EOF else None
        if last == ",":
            self.done.append(Assignment(here, ""))
            raise StrvalsError(f"key {_q(k)} has no value (cannot end with ,)")
        level += 1  # "."
        if level > MAX_NESTED_NAME_LEVEL:
            raise StrvalsError(f"value name nested level is greater than maximum supported nested level of "
                               f"{MAX_NESTED_NAME_LEVEL}")  # fmt: skip
        inner = data.get(k, {}) if k in data else {}
        if not isinstance(inner, dict):
            raise StrvalsError(f"unable to parse key: {_q(k)} is not a map")
        status = self.key(inner, level, here)
        if status is None and not inner:
            raise StrvalsError(f"key map {_q(k)} has no value")
        if status is _EOF and not inner:  # ``a.``: sets nothing, but fails where a is no map
            self.done.append(Assignment(here, _Touch()))
        if inner and k:
            data[k] = inner
        return status

    def _index(self) -> int:
        text, last = _runes_until(self.sc, "]")
        if last is None:
            raise StrvalsError("error parsing index: EOF")
        return _atoi(text)

    def list_item(self, items: list, index: int, level: int, path: Path) -> tuple[list, Any]:
        """``listItem``: the item ``index`` of ``items`` set from what follows ``]``; returns the
        list and ``_EOF`` when the flag ended right after ``]`` (Helm stops without an error)."""
        if index < 0:
            raise StrvalsError(f"negative {index} index not allowed")
        here = path + (index,)
        k, last = _runes_until(self.sc, "[.=")
        if k:
            raise StrvalsError(f"unexpected data at end of array index: {_q(k)}")
        if last is None:
            self.done.append(Assignment(path, _Touch()))
            return items, _EOF
        if last == "=":
            typed, raw = self.value(here)
            self.done.append(Assignment(here, raw))
            return _set_index(items, index, "" if typed is _EOF else typed), None
        if last == "[":
            nested_index = self._index()
            current = items[index] if index < len(items) else None
            if current is None:
                current = []
            if not isinstance(current, list):
                raise StrvalsError(f"unable to parse key: item {index} is not a list")
            nested, status = self.list_item(current, nested_index, level, here)
            return (items, status) if status is _EOF else (_set_index(items, index, nested), status)
        inner = items[index] if index < len(items) else {}  # "."
        if not isinstance(inner, dict):
            inner = {}  # "indices out of order": Helm writes an empty map over it
            if index < len(items):
                items[index] = inner
        status = self.key(inner, level, here)
        return (items, status) if status is _EOF else (_set_index(items, index, inner), status)


def _set_index(items: list, index: int, value: Any) -> list:
    if index > MAX_INDEX:
        raise StrvalsError(f"index of {index} is greater than maximum supported index of {MAX_INDEX}")
    if len(items) <= index:
        items = items + [None] * (index + 1 - len(items))
    items[index] = value
    return items


def parse(flag: str, string: bool = False, into: dict | None = None) -> dict:
    """What Helm's ``strvals.Parse`` (``ParseString`` with ``string``) returns for ``flag`` (values
    typed by ``typedVal``); with ``into``, ``ParseInto`` (``ParseIntoString``): ``flag`` parsed
    into that map, which is changed and returned, as ``MergeValues`` applies each ``--set`` flag.
    Raises StrvalsError where Helm's parser returns an error."""
    data: dict = {} if into is None else into
    _Parser(flag, string).parse(data)
    return data


def parse_file(flag: str, into: dict, read: Callable[[str], str]) -> dict:
    """Helm's ``strvals.ParseIntoFile`` (``--set-file``): ``flag`` parsed into ``into`` (changed and
    returned), each value the text ``read`` returns for the path written (an item of a ``{a,b}``
    list too). Raises StrvalsError where Helm's parser fails, and what ``read`` raises."""
    _Parser(flag, True, read).parse(into)
    return into


def assignments(flag: str) -> tuple[list[Assignment], bool]:
    """The values ``flag`` sets, in order, and whether Helm's parser refuses it (then it stops at
    the error: the assignments before it are listed, and Argo CD's render fails in every order)."""
    parser = _Parser(flag, True)
    try:
        parser.parse({})
    except StrvalsError:
        return parser.done, True
    return parser.done, False


@dataclass(slots=True)
class _Node:
    """A value path's node in :func:`order_conflict`: each list holds at most two distinct flags
    (or values), enough to name one other than the flag being added."""

    children: dict = field(default_factory=dict)
    leaf_flags: list = field(default_factory=list)  # flags that set a value here
    leaf_values: list = field(default_factory=list)  # the values they set (a _Touch is unlike any other)
    below: list = field(default_factory=list)  # flags that set something strictly below
    kinds: dict = field(default_factory=dict)  # "key", "index", "empty" -> flags with such a child


def _add(bounded: list, item: Any) -> None:
    if item not in bounded and len(bounded) < 2:
        bounded.append(item)


def _other(bounded: list, flag: int) -> int | None:
    return next((f for f in bounded if f != flag), None)


def _kind(segment: Segment) -> str:
    return "index" if isinstance(segment, int) else "key" if segment else "empty"


#: The kinds of sibling a child of each kind cannot be set beside in any order: a key where another
#: flag makes a list (or an index where it makes a map) fails in one order only; an empty key,
#: which Helm skips, fails ("key map has no value") only while its map is empty.
_CLASHES = {"key": ("index", "empty"), "index": ("key", "empty"), "empty": ("key", "index")}


def order_conflict(flags: list[str]) -> tuple[int, int, Path] | None:
    """Two of ``flags`` (the flags of one of Argo CD's maps, ``name=value`` as written on Helm's
    command line) whose order changes the values, as ``(first, second, path)`` (indexes into
    ``flags``, first < second, and the value path where they meet); None when every order gives
    the same values: no two flags set one path to different values, nor a path and one below it,
    nor clashing siblings (:data:`_CLASHES`). Linear in the number of assignments."""
    root = _Node()
    for number, flag in enumerate(flags):
        for assignment in assignments(flag)[0]:
            path, value = assignment.path, assignment.value
            node = root
            for depth, segment in enumerate(path):
                other = _other(node.leaf_flags, number)  # a value set above this one
                if other is not None:
                    return other, number, path[:depth]
                for kind in _CLASHES[_kind(segment)]:
                    other = _other(node.kinds.get(kind, []), number)
                    if other is not None:
                        return other, number, path[: depth + 1]
                _add(node.below, number)
                _add(node.kinds.setdefault(_kind(segment), []), number)
                node = node.children.setdefault(segment, _Node())
            other = _other(node.below, number)  # values set below this one
            if other is None:
                other = _other(node.leaf_flags, number)
                values = node.leaf_values + [value]
                if other is not None and len(set(map(id, values)) if any(isinstance(v, _Touch) for v in values)
                                             else set(values)) == 1:  # fmt: skip
                    other = None  # the same value: either order sets it
            if other is not None:
                return other, number, path
            _add(node.leaf_flags, number)
            _add(node.leaf_values, value)
    return None


def shown(path: Path) -> str:
    """``path`` as a ``--set`` name (``a.b[0].c``; ``(the top)`` for none): keys joined with
    ``.``, indexes in brackets, the characters Helm reads in a key escaped with ``\\``."""
    out = ""
    for segment in path:
        if isinstance(segment, int):
            out += f"[{segment}]"
        else:
            key = "".join("\\" + c if c in "=[],.\\{}" else c for c in segment)
            out += ("." if out else "") + key
    return out or "(the top)"
