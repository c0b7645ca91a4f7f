"""One JSON value read as Go's ``encoding/json`` reads it, into positioned :class:`~hooklint.yamlio.Map`
and :class:`~hooklint.yamlio.Seq` values: for the JSON documents libyaml refuses and Argo CD applies.

Argo CD v3.5.1 decodes a ``.json`` file, and a YAML file opening with ``{``, with Go's
``encoding/json`` (``reposerver/repository/repository.go`` ``getObjsFromYAMLOrJSON``;
k8s.io/apimachinery ``pkg/util/yaml`` ``NewYAMLOrJSONDecoder``). hooklint reads them with libyaml,
which refuses JSON that Go takes: a line break before a key's ``:``, a key longer than 1,024
characters, raw DEL, C1 controls or U+FFFE/U+FFFF in a string, nesting deeper than
:data:`~hooklint.yamlio.MAX_DEPTH`. :mod:`hooklint.loader` reads such a value with :func:`read_value`.

What is Go's (``decode.go``, ``scanner.go``): whitespace is space, tab, LF, CR; a string holds any
character from U+0020 on, escapes ``\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX``, a surrogate pair
is one character and a surrogate that pairs with nothing is U+FFFD (``unquote``); a repeated key
keeps its last value; nesting past 10,000 fails. Numbers are decoded as k8s.io/apimachinery
``pkg/util/json`` ``ConvertMapNumbers`` does: an int64 when the literal is one, else a float64 (an
out-of-range float fails). What lies deeper than :data:`~hooklint.yamlio.MAX_DEPTH` is read as
``null`` and reported (HL001): the rest of the object is still checked.

:func:`oci_manifest_refusal` says whether Go decodes a value into an OCI image manifest
(``imagev1.Manifest``), as Argo CD from 3.1.0 tries for a ``.json`` object with no kind.
"""

from __future__ import annotations

import base64
import itertools
import math
import re
from typing import Any

from hooklint.text import literal_spans
from hooklint.yamlio import DUPLICATE_KEY, MAX_DEPTH, TOO_COMPLEX, LoadIssue, Map, Positions, Seq, too_deep

_WS = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"((?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*)"')
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|(.))", re.DOTALL)
_SIMPLE = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_LITERALS = (("true", True), ("false", False), ("null", None))
#: Go's ``encoding/json`` ``maxNestingDepth``.
GO_MAX_DEPTH = 10_000


class NotGoJSON(ValueError):
    """Go's ``encoding/json`` refuses the text too (or it holds more nodes than the file may)."""


def unquote(body: str) -> str:
    """The text of a JSON string's ``body`` (between its quotes), as Go's ``unquote`` makes it."""
    if "\\" not in body:
        return body
    out: list[str] = []
    at = 0
    escapes = list(_ESCAPE.finditer(body))
    i = 0
    while i < len(escapes):
        match = escapes[i]
        out.append(body[at:match.start()])
        at = match.end()
        i += 1
        if match.group(2) is not None:
            out.append(_SIMPLE[match.group(2)])
            continue
        code = int(match.group(1), 16)
        if 0xD800 <= code < 0xE000:
            after = escapes[i] if i < len(escapes) else None
            if 0xD800 <= code < 0xDC00 and after is not None and after.start() == at and after.group(1) is not None \
                    and 0xDC00 <= int(after.group(1), 16) < 0xE000:
                code = 0x10000 + ((code - 0xD800) << 10) + (int(after.group(1), 16) - 0xDC00)
                at = after.end()
                i += 1
            else:
                code = 0xFFFD
        out.append(chr(code))
    out.append(body[at:])
    return "".join(out)


def _number(literal: str, fraction: bool) -> int | float:
    """A JSON number as Go reads it into an ``interface{}`` through k8s.io/apimachinery
    (``UseNumber``, then ``ConvertMapNumbers``: ``Int64()``, else ``Float64()``, which fails out of
    range). An integer of more than 20 characters is past int64 (JSON allows no leading zero), and
    Python's ``int()`` refuses more than 4,300 digits: read as a float."""
    if not fraction and len(literal) <= 20:
        value = int(literal)
        if -(2**63) <= value < 2**63:
            return value
    number = float(literal)
    if math.isinf(number):
        raise NotGoJSON(f"number {literal} out of range")
    return number


class _Open:
    __slots__ = ("container", "is_map", "start", "places", "keys", "key", "key_start", "key_end")

    def __init__(self, container: Any, is_map: bool, start: int):
        self.container, self.is_map, self.start = container, is_map, start
        self.places: list[int] = []
        self.keys: list[str] = []
        self.key: str | None = None
        self.key_start = self.key_end = 0


def _path(stack: list[_Open]) -> str:
    parts: list[str] = []
    for frame in stack:
        if frame.is_map:
            if frame.key is None:
                break
            parts.append(f".{frame.key}" if parts else frame.key)
        else:
            parts.append(f"[{len(frame.container)}]")
    return "".join(parts)


def read_value(text: str, start: int, end: int, pos: Positions, max_nodes: int,
               whole: bool = True) -> tuple[Any, list[LoadIssue], int, int]:
    """The JSON value of ``text[start:end]`` (whitespace around it allowed), as Go decodes it:
    ``(value, issues, nodes, where it ends)``, issues being HL002's repeated keys and one HL001
    (TOO_COMPLEX) for what lies deeper than :data:`~hooklint.yamlio.MAX_DEPTH` (read as ``null``).
    Offsets are ``text``'s, placed by ``pos``. Raises :class:`NotGoJSON` where Go fails, past
    ``max_nodes``, or, when ``whole``, when anything but whitespace follows the value."""
    issues: list[LoadIssue] = []
    stack: list[_Open] = []
    nodes = 0
    at = _WS.match(text, start, end).end()  # type: ignore[union-attr]  # matches the empty string
    root: Any = None
    while True:
        if at >= end:
            raise NotGoJSON("unexpected end of JSON input")
        char = text[at]
        value_start = at
        frame = stack[-1] if stack else None
        if frame is not None and frame.is_map and frame.key is None:  # a key, or the end of the object
            if char == "}" and not frame.container and not frame.keys:
                value, at = _close(stack, text, at, pos), at + 1
            else:
                match = _STRING.match(text, at, end)
                if match is None:
                    raise NotGoJSON("object key is not a string")
                key = unquote(match.group(1))
                frame.key_start, frame.key_end = at, match.end()
                at = _WS.match(text, match.end(), end).end()  # type: ignore[union-attr]
                if at >= end or text[at] != ":":
                    raise NotGoJSON("missing ':' after object key")
                frame.key = key
                at = _WS.match(text, at + 1, end).end()  # type: ignore[union-attr]
                continue
        elif char in "{[":
            nodes += 1
            if nodes > max_nodes:
                raise NotGoJSON("too many nodes")
            if len(stack) >= GO_MAX_DEPTH:
                raise NotGoJSON("exceeded max depth")
            if len(stack) >= MAX_DEPTH:
                closed = _skip(text, at, end)
                if not any(issue.kind == TOO_COMPLEX for issue in issues):
                    issues.append(LoadIssue(TOO_COMPLEX, pos.point(at), too_deep("Go's JSON reader"), _path(stack)))
                value, at = None, closed
            else:
                stack.append(_Open(Map() if char == "{" else Seq(), char == "{", at))
                at = _WS.match(text, at + 1, end).end()  # type: ignore[union-attr]
                if at < end and text[at] == ("}" if char == "{" else "]"):
                    value, at = _close(stack, text, at, pos), at + 1
                else:
                    continue
        elif char == "]" and frame is not None and not frame.is_map and not frame.container:
            raise NotGoJSON("unexpected ']'")  # "[ ]" closes above; here after a ','
        elif char == '"':
            match = _STRING.match(text, at, end)
            if match is None:
                raise NotGoJSON("invalid string")
            nodes += 1
            value, at = unquote(match.group(1)), match.end()
        elif char == "-" or char.isdigit():
            match = _NUMBER.match(text, at, end)
            if match is None:
                raise NotGoJSON("invalid number")
            nodes += 1
            value, at = _number(match.group(), bool(match.group(1) or match.group(2))), match.end()
        else:
            for word, literal in _LITERALS:
                if text.startswith(word, at) and at + len(word) <= end:
                    nodes += 1
                    value, at = literal, at + len(word)
                    break
            else:
                raise NotGoJSON(f"invalid character {char!r}")
        if nodes > max_nodes:
            raise NotGoJSON("too many nodes")
        # deliver `value` (text[value_start:at]) and read what follows it
        while True:
            frame = stack[-1] if stack else None
            if frame is None:
                root = value
                if whole and _WS.match(text, at, end).end() != end:  # type: ignore[union-attr]
                    raise NotGoJSON("text after the value")
                return root, issues, nodes, at
            if frame.is_map:
                name = frame.key
                assert name is not None  # a value in a mapping follows its key
                mapping = frame.container
                if name in mapping:
                    first = frame.places[4 * frame.keys.index(name)]
                    parent = _path(stack[:-1])
                    issues.append(LoadIssue(DUPLICATE_KEY, pos.span(frame.key_start, frame.key_end), name,
                                            f"{parent}.{name}" if parent else name, pos.line_col(first)[0]))  # fmt: skip
                mapping[name] = value
                frame.keys.append(name)
                frame.places.extend((frame.key_start, frame.key_end, value_start, at))
                frame.key = None
            else:
                frame.container.append(value)
                frame.places.extend((value_start, at))
            at = _WS.match(text, at, end).end()  # type: ignore[union-attr]
            closer = "}" if frame.is_map else "]"
            if at < end and text[at] == ",":
                at = _WS.match(text, at + 1, end).end()  # type: ignore[union-attr]
                if at < end and text[at] in "}]":
                    raise NotGoJSON("trailing comma")
                break
            if at < end and text[at] == closer:
                value_start = frame.start
                value, at = _close(stack, text, at, pos), at + 1
                continue
            raise NotGoJSON(f"expected ',' or {closer!r}")


def _close(stack: list[_Open], text: str, at: int, pos: Positions) -> Any:
    """Pop the innermost container, closed at ``text[at]``, with its positions (see :class:`Map`)."""
    frame = stack.pop()
    container = frame.container._init(pos, frame.start, at + 1)
    if frame.is_map:
        container._key_spans = container._value_spans = container._merged = None
        container._entries = tuple(frame.keys)
        container._places.extend(frame.places)
    else:
        container._offsets.extend(frame.places)
    return container


_BRACKETS = re.compile(r"[{}\[\]]")


def _skip(text: str, at: int, end: int) -> int:
    """Where the container opening at ``text[at]`` ends (what lies deeper than hooklint reads): its
    brackets outside string literals (:func:`hooklint.text.literal_spans`, linear where the one
    expression ``"(?:[^"\\\\]|\\\\.)*"|[{}\\[\\]]`` read an unclosed ``"\\"\\"...`` once for every quote)."""
    depth = 0
    position = at
    for literal_start, literal_end in itertools.chain(literal_spans(text, at, end, dotall=True), [(end, end)]):
        for token in _BRACKETS.finditer(text, position, literal_start):
            if token.group() in ("{", "["):
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    return token.end()
        position = literal_end
    raise NotGoJSON("unexpected end of JSON input")


# --- Go's encoding/json decoding into github.com/opencontainers/image-spec v1.1.1 specs-go/v1 Manifest ---

_STR, _INT, _BYTES = "string", "int", "bytes"
_STRINGS = ("list", _STR)
_STRING_MAP = ("map", _STR)
_PLATFORM: dict[str, Any] = {"architecture": _STR, "os": _STR, "os.version": _STR, "os.features": _STRINGS,
                             "variant": _STR}  # fmt: skip
_DESCRIPTOR: dict[str, Any] = {"mediaType": _STR, "digest": _STR, "size": _INT, "urls": _STRINGS,
                               "annotations": _STRING_MAP, "data": _BYTES, "platform": _PLATFORM,
                               "artifactType": _STR}  # fmt: skip
#: ``imagev1.Manifest`` (``specs.Versioned``'s ``schemaVersion`` promoted); ``digest.Digest`` is a
#: string with no ``UnmarshalJSON``.
OCI_MANIFEST: dict[str, Any] = {"schemaVersion": _INT, "mediaType": _STR, "artifactType": _STR,
                                "config": _DESCRIPTOR, "layers": ("list", _DESCRIPTOR), "subject": _DESCRIPTOR,
                                "annotations": _STRING_MAP}  # fmt: skip
#: The characters other than ASCII letters that Go's ``foldName`` (``encoding/json`` ``fold.go``:
#: ``unicode.ToUpper(unicode.ToLower(r))``) turns into an ASCII letter.
_FOLDS_TO_ASCII = {"\u017f": "S", "\u212a": "K", "\u0131": "I", "\u0130": "I"}
_INT64 = 2**63


def _fold(name: str) -> str:
    return "".join(_FOLDS_TO_ASCII.get(c, c.upper() if c.isascii() else c) for c in name)


def _type_refusal(value: Any, shape: Any, where: str) -> str | None:
    if value is None:
        return None  # null leaves a Go value as it is
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return f"{where or 'the value'} is {_json_type(value)}, not an object"
        folded = {_fold(name): name for name in shape}
        for key, item in value.items():
            name = key if key in shape else folded.get(_fold(key))  # exact first, then case-insensitively
            if name is not None:
                found = _type_refusal(item, shape[name], f"{where}.{key}" if where else key)
                if found is not None:
                    return found
        return None
    if isinstance(shape, tuple):
        container, item_shape = shape
        if container == "list" and isinstance(value, list):
            return next((r for i, item in enumerate(value) if (r := _type_refusal(item, item_shape, f"{where}[{i}]"))),
                        None)  # fmt: skip
        if container == "map" and isinstance(value, dict):
            return next((r for key, item in value.items() if (r := _type_refusal(item, item_shape, f"{where}.{key}"))),
                        None)  # fmt: skip
        return f"{where} is {_json_type(value)}, not {'an array' if container == 'list' else 'an object'}"
    if shape == _STR:
        return None if isinstance(value, str) else f"{where} is {_json_type(value)}, not a string"
    if shape == _INT:
        if isinstance(value, int) and not isinstance(value, bool) and -_INT64 <= value < _INT64:
            return None
        return f"{where} is {_json_type(value)}, not an integer"
    # []byte: a base64 string (StdEncoding, line breaks ignored) or an array of numbers 0 to 255
    if isinstance(value, str):
        try:
            base64.b64decode(value.replace("\r", "").replace("\n", ""), validate=True)
        except ValueError:
            return f"{where} is not base64"
        return None
    if isinstance(value, list):
        for i, item in enumerate(value):
            if item is not None and not (isinstance(item, int) and not isinstance(item, bool) and 0 <= item < 256):
                return f"{where}[{i}] is not a byte"
        return None
    return f"{where} is {_json_type(value)}, not a string"


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number" if not isinstance(value, int) or -_INT64 <= value < _INT64 else "a number out of range"
    return "a string" if isinstance(value, str) else "an array" if isinstance(value, list) else "an object"


def oci_manifest_refusal(value: Any) -> str | None:
    """Why Go's ``encoding/json`` fails to decode ``value`` (a JSON value as read) into
    ``imagev1.Manifest`` (github.com/opencontainers/image-spec v1.1.1 ``specs-go/v1``), None when it
    decodes: Argo CD (``reposerver/repository/repository.go`` ``getObjsFromYAMLOrJSON``, from 3.1.0)
    keeps a ``.json`` object with no kind when it decodes as an OCI image manifest. What is Go's
    (``decode.go``): unknown keys are skipped, a key matches a field exactly or case-insensitively
    (``foldName``), ``null`` leaves a field as it is, an ``int``/``int64`` takes an integer literal in
    range (``1.0`` and ``1e2`` fail), a ``[]byte`` takes base64 or an array of bytes, and any other
    type mismatch fails. A repeated key is checked with its last value only (the one hooklint keeps)."""
    return _type_refusal(value, OCI_MANIFEST, "")


#: The runes outside ASCII that Go's simple case folding maps onto an ASCII letter.
_FOLD_EXTRA = {"\u017f": "s", "\u212a": "k"}


def go_fold(name: str) -> str:
    """``name`` folded as Go's ``encoding/json`` compares a key with a struct field's name (Unicode
    simple folding; ASCII letters and the two runes that fold onto them, U+017F and U+212A, to lower
    case): what kustomize and Helm do with a kustomization's or a chart file's keys, which they
    decode through ``sigs.k8s.io/yaml`` into ``encoding/json``."""
    if name.isascii():  # nearly every key: no rune outside ASCII folds, str.lower() is exact
        return name.lower()
    return "".join(_FOLD_EXTRA.get(c, c.lower()) for c in name)
