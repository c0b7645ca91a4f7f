"""YAML text -> positioned Python values, typed the way Kubernetes types them.

Kubernetes and Argo CD read manifests through sigs.k8s.io/yaml, which decodes with go-yaml v2
(``gopkg.in/yaml.v2`` ``resolve.go``) and then converts to JSON. That decides what a plain scalar
*is*: ``yes``/``no``/``on``/``off``/``y``/``n`` are booleans, ``5`` and ``0x10`` are integers,
``1e3`` is a float, and timestamps stay strings. PyYAML's own resolver (YAML 1.1) disagrees on
several of these (``y``, ``1e3``, ``0o17``, ``1_000``), so :func:`go_resolve_plain` types plain
scalars instead.

Parsing is libyaml's (``yaml._yaml.CParser``; PyYAML's pure-Python parser when libyaml is missing),
read as a stream of *events*: values are built here, iteratively, straight from the events. Nothing
is ever constructed from a tag, no node tree is built first, and there is no recursion, so hostile
input is bounded as it is read:

- what is nested deeper than :data:`MAX_DEPTH` is read as ``null``, with one TOO_COMPLEX issue (HL001)
  on the document (real manifests stay under 30; go-yaml reads 10,000 levels, so Argo CD applies
  such a document and the rest of it is checked);
- more than :data:`MAX_EXPANDED_NODES` nodes reached through aliases (an alias bomb, merge keys
  included) stops it, as go-yaml v2.4 refuses "excessive aliasing";
- more than :data:`MAX_NODES` nodes in one file stops the file (memory stays bounded): the
  documents of a file share one :class:`NodeBudget`, and so do the objects of one rendering.

The YAML hooklint reads with PyYAML instead (kustomizations, ``Chart.yaml``, value files, a Git
generator's files, the configuration) is loaded with :class:`BoundedLoader`, which holds the same
limits, :data:`MAX_NODES` per text included.

The result is built from :class:`Map`, :class:`Seq` and plain ``str``, ``int``, ``float``, ``bool``
and ``None``. Containers know where they, their keys and their items are; 1-based
:class:`~hooklint.findings.Span` values are made on first use from character offsets (lines end at
``\\n``, ``\\r\\n`` or ``\\r``; columns count code points), so a check can point at the exact node
while the common case (no finding) pays for no span at all.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from dataclasses import dataclass
from sys import intern
from array import array
from bisect import bisect_right
from typing import Any, Iterator, cast

import yaml
from yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)

from hooklint import deadline, runnodes
from hooklint.findings import Span
from hooklint.text import escape_controls

try:  # libyaml: the parser Kubernetes' go-yaml was ported from, and 20x faster than pure Python
    from yaml._yaml import CParser as _CParser
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _CParser = None

STR = "tag:yaml.org,2002:str"
INT = "tag:yaml.org,2002:int"
FLOAT = "tag:yaml.org,2002:float"
BOOL = "tag:yaml.org,2002:bool"
NULL = "tag:yaml.org,2002:null"
MERGE = "tag:yaml.org,2002:merge"
TIMESTAMP = "tag:yaml.org,2002:timestamp"
BINARY = "tag:yaml.org,2002:binary"
MAP = "tag:yaml.org,2002:map"
SEQ = "tag:yaml.org,2002:seq"
# Tags go-yaml v2 decodes into plain values; any other explicit tag is reported (HL005).
STANDARD_TAGS = frozenset({STR, INT, FLOAT, BOOL, NULL, MERGE, TIMESTAMP, BINARY, MAP, SEQ})
_STRING_TAGS = frozenset({STR, TIMESTAMP})
_TYPED_TAGS = frozenset({INT, FLOAT, BOOL, NULL, MERGE})

#: Nesting deeper than this is reported instead of converted (real manifests stay under 30).
MAX_DEPTH = 100
#: Nodes a document may reach through aliases (merge keys included) before it counts as an alias
#: bomb. go-yaml v2.4 refuses such documents too ("document contains excessive aliasing").
MAX_EXPANDED_NODES = 200_000
#: Nodes one file may hold (about 150 MB of values). Real files stay far below: the API server
#: refuses objects over 1.5 MB (etcd's limit), and a 10 MB file of CRDs has some 400,000 nodes. The
#: bound keeps a hostile file of millions of tiny documents or list items in check.
MAX_NODES = 1_000_000

# go-yaml v2 resolve.go resolveMapList (exact strings, case as listed).
_GO_SPECIAL: dict[str, tuple[str, Any]] = {}
for _value, _tag, _words in (
    (True, BOOL, ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON")),
    (False, BOOL, ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF")),
    (None, NULL, ("", "~", "null", "Null", "NULL")),
    (math.nan, FLOAT, (".nan", ".NaN", ".NAN")),
    (math.inf, FLOAT, (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF")),
    (-math.inf, FLOAT, ("-.inf", "-.Inf", "-.INF")),
    ("<<", MERGE, ("<<",)),
):
    for _w in _words:
        _GO_SPECIAL[_w] = (_tag, _value)

_GO_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_GO_TIMESTAMP = re.compile(r"^\d{4}-\d\d?-\d\d?([Tt ]|$)")
_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(2**63), 2**63 - 1, 2**64 - 1
#: Characters a plain scalar must start with to be anything but a string (or a _GO_SPECIAL word).
_NUMERIC_START = frozenset("+-.0123456789")


_DIGITS = {2: frozenset("01"), 8: frozenset("01234567"), 10: frozenset("0123456789"),
           16: frozenset("0123456789abcdefABCDEF")}


def go_parse_int(text: str) -> int | None:
    """Go's ``strconv.ParseInt(s, 0, 64)``, then ``ParseUint(s, 0, 64)``, as go-yaml v2 calls them.

    Optional sign (ParseInt only), then a ``0x``/``0o``/``0b`` prefix (either case) or a leading
    ``0`` for octal, then digits of that base. Returns None wherever Go returns an error, including
    values outside int64 (or uint64 without a sign). go-yaml removes ``_`` before the call; so does
    :func:`go_resolve_plain`."""
    sign, body = (text[0], text[1:]) if text[:1] in ("+", "-") else ("", text)
    lower = body[:2].lower()
    if lower in ("0x", "0o", "0b"):
        base, digits = {"0x": 16, "0o": 8, "0b": 2}[lower], body[2:]
    elif len(body) > 1 and body[0] == "0":
        base, digits = 8, body[1:]
    else:
        base, digits = 10, body
    if not digits or not _DIGITS[base].issuperset(digits):
        return None
    significant = digits.lstrip("0")
    if len(significant) > 64:  # beyond 64 bits in any base; int() would also refuse > 4300 digits
        return None
    value = int(significant or "0", base)
    if sign == "-":
        value = -value
    if _INT64_MIN <= value <= _INT64_MAX or (not sign and value <= _UINT64_MAX):
        return value
    return None


def go_resolve_plain(text: str) -> tuple[str, Any]:
    """Type a plain (unquoted, untagged) scalar as go-yaml v2 ``resolve()`` does.

    Returns ``(tag, value)``. Timestamps resolve to the timestamp tag but keep their text, as
    go-yaml v2 does when decoding into ``interface{}`` (``decode.go``: "for backward compatibility
    reasons we set it as a string")."""
    special = _GO_SPECIAL.get(text)
    if special is not None:
        return special
    if not text:
        return NULL, None
    hint = text[0]
    if hint == ".":  # strconv.ParseFloat: ASCII digits, no "_", in range (Python's float() takes more)
        if _GO_FLOAT.match(text):
            number = float(text)
            if not math.isinf(number):
                return FLOAT, number
        return STR, text
    if hint in "+-0123456789":
        if hint.isdigit() and _GO_TIMESTAMP.match(text):
            return TIMESTAMP, text
        plain = text.replace("_", "")
        value = go_parse_int(plain)
        if value is not None:
            return INT, value
        if _GO_FLOAT.match(plain):
            number = float(plain)
            if not math.isinf(number):  # Go's ParseFloat fails with ErrRange: go-yaml keeps the text
                return FLOAT, number
        if plain.startswith("0b") or plain.startswith("-0b"):
            return STR, text  # binary with a sign ParseInt rejected; go-yaml gives up too
    return STR, text


# --------------------------------------------------------------------------------------------
# Positions


#: Characters per block of the line table: a position is found by counting inside one block.
_BLOCK = 4096


class Positions:
    """Character offsets of one text -> 1-based :class:`Span` values.

    Lines end at ``\\n``, ``\\r\\n`` or ``\\r`` (what editors and code-scanning tools count);
    columns count code points. The first few requests count line breaks directly; after that, a
    table holds, for every 4,096 characters, the lines before them and where their line starts, so
    any request counts within one block (in C: ``str.count``/``str.rfind``), whatever the lengths of
    the lines. A file without findings pays for nothing. ``line_offset`` is added to every line
    (for a text that is one part of a file).

    ``moved``: ``(written, points)`` when ``text`` is ``written`` with escapes rewritten 2
    characters shorter (:func:`hooklint.loader.go_json_surrogates`), ``points`` the offsets in
    ``text`` just after each: offsets of ``text`` are then placed in ``written``, as the user sees it."""

    __slots__ = ("text", "line_offset", "_lines", "_starts", "_direct", "_cr", "_written", "_points")

    def __init__(self, text: str, line_offset: int = 0, moved: "tuple[str, list[int]] | None" = None):
        self.text = text
        self.line_offset = line_offset
        self._written: Positions | None = None
        self._points: list[int] = []
        if moved is not None:
            self._written, self._points = Positions(moved[0], line_offset), moved[1]
        self._lines: array[int] | None = None  # line breaks before each block
        self._starts: array[int] | None = None  # where the line holding each block's first character starts
        self._direct = 16  # direct lookups left before the table is built
        self._cr = "\r" in text

    def _breaks(self, begin: int, end: int) -> tuple[int, int]:
        """(line breaks that end inside text[begin:end], offset just after the last of them, or -1
        when there is none). A ``\\r\\n`` cut by ``end`` is not a break yet."""
        text = self.text
        if self._cr and begin < end < len(text) and text[end - 1] == "\r" and text[end] == "\n":
            end -= 1
        count = text.count("\n", begin, end)
        last = text.rfind("\n", begin, end)
        if self._cr:
            count += text.count("\r", begin, end) - text.count("\r\n", begin, end)
            last = max(last, text.rfind("\r", begin, end))
        return count, last + 1 if last >= 0 else -1

    def _table(self) -> None:
        size = len(self.text)
        lines, starts = array("q"), array("q")
        total, line_start = 0, 0
        for begin in range(0, size + 1, _BLOCK):
            lines.append(total)
            starts.append(line_start)
            count, last = self._breaks(begin, min(begin + _BLOCK, size))
            total += count
            if last >= 0:
                line_start = last
        self._lines, self._starts = lines, starts

    def line_col(self, index: int) -> tuple[int, int]:
        """1-based (line, column) of character ``index``."""
        if self._written is not None:
            return self._written.line_col(index + 2 * bisect_right(self._points, index))
        if self._lines is None:
            if self._direct > 0:
                self._direct -= 1
                count, line_start = self._breaks(0, index)
                return count + 1 + self.line_offset, index - max(line_start, 0) + 1
            self._table()
        lines: array[int] = self._lines  # type: ignore[assignment]  # built just above when it was missing
        block = index // _BLOCK
        if block >= len(lines):
            block = len(lines) - 1
        begin = block * _BLOCK
        if self._cr:
            count, line_start = self._breaks(begin, index)
        else:  # the common case, inlined (a finding asks for several positions)
            text = self.text
            count = text.count("\n", begin, index)
            line_start = text.rfind("\n", begin, index) + 1 if count else -1
        if line_start < 0:
            line_start = self._starts[block]  # type: ignore[index]  # built with self._lines
        return lines[block] + count + 1 + self.line_offset, index - line_start + 1

    def span(self, start: int, end: int) -> Span:
        line, column = self.line_col(start)
        text = self.text
        if end == start:
            return Span(line, column, line, column)
        if start < end and self._written is None and text.find("\n", start, end) < 0 \
                and (not self._cr or text.find("\r", start, end) < 0):
            return Span(line, column, line, column + end - start)  # on one line (most spans): no second lookup
        end_line, end_column = self.line_col(end)
        return Span(line, column, end_line, end_column)

    def point(self, index: int) -> Span:
        """The character at ``index``; an empty span at the end of a line or of the text."""
        line, column = self.line_col(index)
        width = 0 if index >= len(self.text) or self.text[index] in "\r\n" else 1
        return Span(line, column, line, column + width)


# --------------------------------------------------------------------------------------------
# Values


class _Positioned:
    """The span of a :class:`Map` or :class:`Seq`, computed on first use from the file's
    :class:`Positions`. A container made by hand (tests, fixtures) has no positions until its
    spans are assigned."""

    __slots__ = ()
    # slots of Map and Seq (a dict or list base leaves this class no instance layout of its own)
    _span: Span | None
    _pos: Positions | None
    _at: int

    def _array(self) -> array[int]:  # pragma: no cover - Map and Seq name their offsets
        raise NotImplementedError

    @property
    def _start(self) -> int:
        """Where the mapping or sequence starts: the first of its offsets (see :class:`Map`)."""
        return self._array()[self._at]

    @property
    def _end(self) -> int:
        """Where it ends: the second of its offsets."""
        return self._array()[self._at + 1]

    def _positions(self) -> Positions:
        pos = getattr(self, "_pos", None)
        if pos is None:
            raise AttributeError(f"this {type(self).__name__} has no positions; assign its spans")
        return pos

    @property
    def span(self) -> Span:
        span = getattr(self, "_span", None)
        if span is None:
            span = self._span = self._positions().span(self._start, self._end)  # type: ignore[misc]  # slot of Map, Seq
        return span

    @span.setter
    def span(self, value: Span) -> None:
        self._span = value  # type: ignore[misc]  # slot of Map, Seq


class Map(_Positioned, dict):
    """A YAML mapping: a ``dict`` whose keys are strings, plus where each key and value is.

    ``span`` covers the whole mapping; :meth:`key_span` and :meth:`value_span` give where one key
    and its value are written (the alias, for an aliased value), computed only when asked for.
    Keys brought in by a ``<<`` merge key point into the merged mapping. ``key_spans`` and
    ``value_spans`` are every key's spans at once (computed on first use; may be assigned).

    Where each key is written is kept compact, since a file holds millions of them: ``_entries``
    lists the keys as written (a repeated key twice), and ``_places``, from index ``_at`` on, holds
    where the mapping starts and ends, then four offsets for each key (key start, key end, value
    start, value end), as machine integers: one array shared by every mapping and sequence of a
    document, 16 bytes a key where a list of Python integers takes 160 (bench case (f), 40,000
    documents: about 70 MB less)."""

    __slots__ = ("_span", "_key_spans", "_value_spans", "_entries", "_places", "_at", "_merged", "_pos")
    _key_spans: dict[str, Span] | None
    _value_spans: dict[str, Span] | None
    _entries: "list[str] | tuple[str, ...]"
    _places: array[int]
    _at: int
    _merged: list[Map] | None

    def _init(self, pos: Positions | None, start: int, end: int) -> "Map":
        self._pos = pos
        self._span = self._key_spans = self._value_spans = self._merged = None
        self._entries = []  # the keys, in the order written
        # start, end, then key start, key end, value start, value end of each key of _entries
        self._places = array("q", (start, end))
        self._at = 0
        return self

    def _array(self) -> array[int]:
        return self._places

    def _offsets(self, key: str) -> tuple[int, int, int, int] | None:
        """(key start, key end, value start, value end) of ``key`` written in this mapping itself
        (the last time, when it is repeated), as character offsets of the file's text."""
        entries = getattr(self, "_entries", None) or ()
        for i in range(len(entries) - 1, -1, -1):  # the last occurrence of a repeated key wins
            if entries[i] == key:
                places = self._places
                at = self._at + 2 + 4 * i
                return places[at], places[at + 1], places[at + 2], places[at + 3]
        return None

    def _span_of(self, key: str, value: bool) -> Span | None:
        """The span of ``key`` (``value`` False) or of its value (True), or None when the mapping
        does not hold it: :meth:`_spans_of`'s one half, one position looked up (a check asks for
        one of them at a time)."""
        key_spans = getattr(self, "_key_spans", None)
        if key_spans is not None:
            if key in key_spans:
                return cast("dict[str, Span]", self._value_spans)[key] if value else key_spans[key]
            return None
        offsets = self._offsets(key)
        if offsets is not None:
            return self._positions().span(offsets[2], offsets[3]) if value else self._positions().span(offsets[0], offsets[1])
        for source in getattr(self, "_merged", None) or ():
            if key in source:
                return source._span_of(key, value)
        return None

    def _spans_of(self, key: str) -> tuple[Span, Span] | None:
        """(key span, value span) of ``key``, or None when the mapping does not hold it."""
        key_spans = getattr(self, "_key_spans", None)
        if key_spans is not None:
            if key in key_spans:
                return key_spans[key], cast("dict[str, Span]", self._value_spans)[key]  # made with the key spans
            return None
        offsets = self._offsets(key)
        if offsets is not None:
            span = self._positions().span
            return span(offsets[0], offsets[1]), span(offsets[2], offsets[3])
        for source in getattr(self, "_merged", None) or ():
            if key in source:
                return source._spans_of(key)
        return None

    def _build_spans(self) -> None:
        key_spans: dict[str, Span] = {}
        value_spans: dict[str, Span] = {}
        entries = self._entries
        if entries:
            span = self._positions().span
            places = self._places
            for i, key in enumerate(entries):
                at = self._at + 2 + 4 * i
                key_spans[key] = span(places[at], places[at + 1])
                value_spans[key] = span(places[at + 2], places[at + 3])
        for source in self._merged or ():
            for key in source:
                if key not in key_spans:
                    # never None: source holds the key, as its own or merged into it
                    key_spans[key], value_spans[key] = cast("tuple[Span, Span]", source._spans_of(key))
        self._key_spans, self._value_spans = key_spans, value_spans

    @property
    def key_spans(self) -> dict[str, Span]:
        if getattr(self, "_key_spans", None) is None:
            self._build_spans()
        return cast("dict[str, Span]", self._key_spans)  # made just above when it was missing

    @key_spans.setter
    def key_spans(self, value: dict[str, Span]) -> None:
        self._key_spans = value

    @property
    def value_spans(self) -> dict[str, Span]:
        if getattr(self, "_value_spans", None) is None:
            self._build_spans()
        return cast("dict[str, Span]", self._value_spans)  # made just above when it was missing

    @value_spans.setter
    def value_spans(self, value: dict[str, Span]) -> None:
        self._value_spans = value

    def key_span(self, key: str) -> Span:
        """Where ``key`` is written; the mapping's span when it does not hold ``key``."""
        span = self._span_of(key, False)
        return span if span is not None else self.span

    def value_span(self, key: str) -> Span:
        """Where the value of ``key`` is written; the mapping's span when it does not hold ``key``."""
        span = self._span_of(key, True)
        return span if span is not None else self.span

    @classmethod
    def empty_at(cls, span: Span) -> "Map":
        """An empty mapping whose ``span`` is ``span``: what stands for an object whose fields are
        no longer needed (:meth:`hooklint.model.Manifest.reported`)."""
        return _rebuild_map({}, span, {}, {})

    def __reduce__(self):  # pickle as a plain mapping with its spans materialised
        return (_rebuild_map, (dict(self), self.span, self.key_spans, self.value_spans))


class Seq(_Positioned, list):
    """A YAML sequence: a ``list`` plus the span of the sequence and of each item (computed on
    first use; may be assigned)."""

    __slots__ = ("_span", "_item_spans", "_offsets", "_at", "_pos")
    _item_spans: list[Span] | None
    _offsets: array[int]  # from index _at on, shared like Map._places: start, end, then each item's
    _at: int

    def _init(self, pos: Positions | None, start: int, end: int) -> "Seq":
        self._pos = pos
        self._span = self._item_spans = None
        self._offsets = array("q", (start, end))  # start, end, then start, end, ... of each item (see Map)
        self._at = 0
        return self

    def _array(self) -> array[int]:
        return self._offsets

    @property
    def item_spans(self) -> list[Span]:
        spans = getattr(self, "_item_spans", None)
        if spans is None:
            span = self._positions().span
            offsets, at = self._offsets, self._at + 2
            spans = self._item_spans = [span(offsets[at + i], offsets[at + i + 1]) for i in range(0, 2 * len(self), 2)]
        return spans

    @item_spans.setter
    def item_spans(self, value: list[Span]) -> None:
        self._item_spans = value

    def __reduce__(self):
        return (_rebuild_seq, (list(self), self.span, self.item_spans))


def _rebuild_map(items: dict, span: Span, key_spans: dict, value_spans: dict) -> Map:
    out = Map(items)._init(None, 0, 0)
    out._span, out._key_spans, out._value_spans = span, key_spans, value_spans
    return out


def _rebuild_seq(items: list, span: Span, item_spans: list) -> Seq:
    out = Seq(items)._init(None, 0, 0)
    out._span, out._item_spans = span, item_spans
    return out


#: Kinds of :class:`LoadIssue`. The checks of :mod:`hooklint.checks.loading` turn them into
#: findings: SYNTAX_ERROR, TOO_COMPLEX and TOO_MANY_ERRORS are HL001, DUPLICATE_KEY HL002,
#: UNSAFE_TAG HL005, RENDER_FAILED HL007, RENDERER_UNAVAILABLE HL008 and NOT_RENDERED HL009 (the
#: rendering stage, :mod:`hooklint.sources.render`, records the last three on a kustomization or
#: ``Chart.yaml``: NOT_RENDERED is a source Argo CD renders and hooklint will not, its detail saying
#: how Argo CD does).
SYNTAX_ERROR = "syntax-error"
TOO_COMPLEX = "too-complex"
TOO_MANY_ERRORS = "too-many-errors"
#: ``]`` or ``}`` after a ``.json`` file's one value (its detail): Argo CD reads past it from 2.5.0
#: (``decoder.More()``), older releases fail (``json.Unmarshal``); HL001 for those only.
JSON_CLOSER_AFTER = "json-closer-after"
#: A ``---`` line followed by more than spaces (a comment, or text Go refuses: its detail is what
#: follows): a separator for Argo CD from 2.2.0 on, text to older releases (``argocd.BEHAVIOURS``
#: ``yaml-separator-comments``); HL001 for those only, which may read the file otherwise.
SEPARATOR_TEXT = "separator-text"
DUPLICATE_KEY = "duplicate-key"
UNSAFE_TAG = "unsafe-tag"
RENDER_FAILED = "render-failed"
#: How a RENDER_FAILED detail opens when hooklint's own Python failed, not the renderer
#: (:mod:`hooklint.sources.render.helm`: an exception in the Helm SDK's child): HL007 then says
#: the bug is hooklint's and that Argo CD may render the source.
HOOKLINT_FAULT = "hooklint's own code failed"
#: RENDER_FAILED of a Helm chart no Application of the repository deploys, rendered with its own
#: defaults (HL007 as a warning: an Application elsewhere may give the values it needs).
RENDER_FAILED_DEFAULTS = "render-failed-defaults"
RENDERER_UNAVAILABLE = "renderer-unavailable"
NOT_RENDERED = "not-rendered"
#: A rendered Helm chart whose templates read ``.Capabilities.KubeVersion`` or ``.APIVersions``,
#: which hooklint had to stand in for (HL025; recorded by :mod:`hooklint.sources.render` on the
#: template, its detail saying what was used).
CLUSTER_CAPABILITIES = "cluster-capabilities"
#: CLUSTER_CAPABILITIES where objects a cluster's capabilities render were not checked: a read
#: hooklint cannot enumerate, or a second rendering with the API versions the chart names that
#: changed an object's hooks or pod, or failed (HL025 as a warning; issue 32).
CAPABILITIES_UNCHECKED = "capabilities-unchecked"
#: An ApplicationSet generator that needs a cluster or the network (HL022; recorded by
#: :mod:`hooklint.sources.appmap.discovery` on the ApplicationSet's file).
NOT_EXPANDED = "not-expanded"
#: What an ApplicationSet's RollingSync strategy does wrong (HL403, HL404, HL405; recorded by
#: :mod:`hooklint.sources.appmap.discovery` on the ApplicationSet's file from
#: :func:`hooklint.sources.appmap.applicationsets.rollout_problems`).
ROLLOUT_UNSELECTED = "rollout-unselected"
ROLLOUT_INVALID = "rollout-invalid"
ROLLOUT_IGNORED = "rollout-ignored"


class LoadIssue:
    """A problem met while reading a document, as data (the checks word the findings).

    ``kind`` is one of the kinds above; ``span`` where it is; ``field_path`` the dotted path of
    the node; ``detail`` what the parser said (SYNTAX_ERROR, TOO_COMPLEX), the repeated key
    (DUPLICATE_KEY) or the tag (UNSAFE_TAG); ``first_line`` the 1-based line of a repeated key's
    first occurrence; ``more`` is True for the one issue that stands for the ones of its kind not
    kept (see :data:`MAX_ISSUES`) or, with TOO_MANY_ERRORS, the count of unreadable documents;
    ``path`` the file ``span`` is in when it is not the file read (RENDER_FAILED in a chart's
    template), else None; ``detail`` of RENDER_FAILED, RENDERER_UNAVAILABLE and NOT_RENDERED is
    what the rendering stage says."""

    __slots__ = ("kind", "span", "detail", "field_path", "first_line", "more", "path")

    def __init__(self, kind: str, span: Span, detail: str = "", field_path: str = "",
                 first_line: int = 0, more: bool = False, path: str | None = None):  # fmt: skip
        self.kind = kind
        self.span = span
        self.detail = detail
        self.field_path = field_path
        self.first_line = first_line
        self.more = more
        self.path = path

    def _key(self) -> tuple:
        return (self.kind, self.span, self.detail, self.field_path, self.first_line, self.more, self.path)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LoadIssue):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LoadIssue{self._key()!r}"


class NodeBudget:
    """How many more YAML nodes a file may hold (:data:`MAX_NODES` to start with), shared by the
    parsers that read one file's parts, or by the parses of every object of one rendering
    (``whole="rendering"``: what the message of :class:`FileTooComplex` calls it). ``spent`` once a
    document went past it: nothing more is read."""

    __slots__ = ("left", "whole", "spent")

    def __init__(self, left: int = 0, whole: str = "file"):
        self.left = left or MAX_NODES
        self.whole = whole
        self.spent = False


class DocumentTooComplex(Exception):
    """Raised for an alias bomb or more than
    :data:`MAX_NODES` nodes; carries a span, the character ``index`` of the problem and the index
    at which the document being read started (``doc_start``)."""

    def __init__(self, message: str, span: Span, index: int = 0, doc_start: int | None = None):
        super().__init__(message)
        self.span = span
        self.index = index
        self.doc_start = doc_start


class FileTooComplex(DocumentTooComplex):
    """Raised when a file holds more than :data:`MAX_NODES` nodes: the rest of it is not read."""


class YamlSyntaxError(Exception):
    """A document libyaml could not parse; ``span`` is the parser's (1-based) problem position,
    ``index`` its character offset and ``doc_start`` where the document being read started."""

    def __init__(self, message: str, span: Span, index: int = 0, doc_start: int | None = None):
        super().__init__(message)
        self.span = span
        self.index = index
        self.doc_start = doc_start


def _key_text(value: Any) -> str:
    """A mapping key as the string sigs.k8s.io/yaml turns it into (``true``, ``5``, ``null``)."""
    if isinstance(value, str):
        return value
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    return str(value)


class ParsedDocument:
    """One YAML document: its converted value (``None`` for an empty document), the span of its root
    node (made on first use), the issues (HL002, HL005) found while converting it, and the
    character offset at which the document starts (its ``---``, or its first token)."""

    __slots__ = ("value", "issues", "start", "_span", "_root", "_positions")

    def __init__(self, value: Any, span: Span | None, issues: list[LoadIssue], start: int = 0,
                 root: tuple[int, int] | None = None, positions: Positions | None = None):  # fmt: skip
        self.value = value
        self.issues = issues
        self.start = start
        self._span = span
        self._root = root
        self._positions = positions

    @property
    def span(self) -> Span | None:
        if self._span is None and self._positions is not None and self._root is not None:
            self._span = self._positions.span(*self._root)
        return self._span

    def __repr__(self) -> str:
        return f"ParsedDocument(value={self.value!r}, issues={self.issues!r}, start={self.start})"


# --------------------------------------------------------------------------------------------
# Events -> values


def new_parser(source: Any):
    """A libyaml event parser over ``source`` (``str``, ``bytes`` or an object with ``read``)."""
    if _CParser is not None:
        return _CParser(source)
    return yaml.SafeLoader(source)  # pragma: no cover - pure-Python parser (also event based)


_NOKEY = object()  # a mapping frame waiting for its next key
_MERGE = object()  # ... whose pending key is a << merge key


class _Frame:
    """An open mapping or sequence while its events are read: the ``container`` being filled,
    ``start``, ``places`` (its offsets until it closes: then they go to the document's array, see
    :class:`Map`), ``keys`` (a mapping's ``_entries``), for a
    mapping the pending ``key`` (``_NOKEY``, ``_MERGE`` or the key text) with its offsets, the node
    and alias counts when it opened (for its anchor's size), its ``anchor`` and the ``merges`` of
    ``<<`` keys."""

    __slots__ = ("container", "is_map", "start", "places", "keys", "key", "key_start", "key_end", "count", "aliased",
                 "anchor", "merges")  # fmt: skip

    def __init__(self, container: Any, is_map: bool, start: int, count: int, aliased: int, anchor: str | None):
        self.container = container
        self.start = start
        self.is_map = is_map
        self.places: list[int] = []
        self.keys: list[str] = []  # a mapping's keys (none for a sequence)
        self.key: Any = _NOKEY
        self.key_start = self.key_end = 0
        self.count = count
        self.aliased = aliased
        self.anchor = anchor
        self.merges: list | None = None


def _field_path(stack: list[_Frame]) -> str:
    """The dotted path of the node about to be delivered into the innermost open container."""
    parts: list[str] = []
    for frame in stack:
        if frame.is_map:
            key = frame.key
            if key is _NOKEY or key is _MERGE:
                break  # the node is a key (or a merge source): report it at its mapping
            parts.append(f".{key}" if parts else key)
        else:
            parts.append(f"[{len(frame.container)}]")
    return "".join(parts)


def shown(text: str, limit: int | None = 80) -> str:
    """``text`` for a one-line message: control and line-break characters (``\\n``, ``\\r``,
    NEL, U+2028/U+2029) and bidirectional controls escaped (:func:`hooklint.text.escape_controls`),
    and cut to ``limit`` characters (None: never cut)."""
    text = escape_controls(text)
    return text if limit is None or len(text) <= limit else text[: limit - 3] + "..."


def _binary(text: str, pos: "Positions", start: int, doc_start: int | None) -> str:
    """A ``!!binary`` scalar as Argo CD reads it: go-yaml v2 decodes the base64
    (``base64.StdEncoding.DecodeString``, which skips line breaks; ``decode.go``) into a string, and
    sigs.k8s.io/yaml's JSON writes bytes that are not UTF-8 as U+FFFD. ``kind: !!binary
    QXBwbGljYXRpb24=`` is an Application, ``argocd.argoproj.io/hook: !!binary UHJlU3luYw==`` a
    PreSync hook (attacker trial 8: the base64 text was kept, and the object read as something
    else). Raises :class:`YamlSyntaxError` for text that is not base64, as go-yaml fails there."""
    try:
        return base64.b64decode(text.replace("\n", "").replace("\r", ""), validate=True).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        raise YamlSyntaxError("yaml: !!binary value contains invalid base64 data", pos.point(start), start,
                              doc_start) from None  # fmt: skip


def _tag_issue(tag: str, span: Span, path: str) -> LoadIssue:
    return LoadIssue(UNSAFE_TAG, span, tag, path)


#: Issues (HL002, HL005) kept per document; a flood of them is summarised in one more issue.
MAX_ISSUES = 100


def _add_issue(issues: list[LoadIssue], issue: LoadIssue) -> None:
    if len(issues) < MAX_ISSUES:
        issues.append(issue)
    elif len(issues) == MAX_ISSUES:
        issues.append(LoadIssue(issue.kind, issue.span, field_path=issue.field_path, more=True))


_BLANK_TO_END = re.compile(r"\s*\Z")


def _blank_after(text: str, index: int) -> bool:
    """Whether ``text[index:]`` is blank, without copying it (a file of many unreadable chunks
    asks once for each)."""
    return _BLANK_TO_END.match(text, index) is not None


def _syntax_error(exc: yaml.YAMLError, pos: Positions, base: int, doc_start: int | None) -> YamlSyntaxError:
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        index = base + (mark.index if mark is not None else 0)
        if exc.context_mark is not None and ("end of stream" in (exc.problem or "") or _blank_after(pos.text, index)):
            # an unclosed quote or bracket is only noticed at the end of the input, a line that
            # may not even exist: point at what was left open instead
            index = base + exc.context_mark.index
        if _blank_after(pos.text, index):  # still past the content: its last character
            index = max(len(pos.text.rstrip()) - 1, 0)
        problem = shown(exc.problem or "invalid YAML", 200)
        if exc.context:
            problem = f"{problem} ({shown(exc.context, 200)})"
    else:  # reader errors (the loader removes their causes before parsing) and the like
        index = doc_start if doc_start is not None else base
        problem = shown(str(exc).splitlines()[0], 200) if str(exc) else type(exc).__name__
    index = min(max(index, 0), len(pos.text))
    return YamlSyntaxError(problem, pos.point(index), index, doc_start)


def iter_documents(parser: Any, pos: Positions, base: int = 0, budget: NodeBudget | None = None) -> Iterator[ParsedDocument]:
    """The documents of ``parser``'s stream, one at a time, as they are read.

    ``pos`` maps character offsets of the whole text to spans; ``base`` is the offset of the
    parser's first character in that text; ``budget`` is shared by the parsers of one file (a
    fresh :class:`NodeBudget` when not given). Raises
    :class:`YamlSyntaxError` or :class:`DocumentTooComplex` at the first document that cannot be
    read (the documents before it have been yielded); the parser cannot continue after that.
    :class:`FileTooComplex` means the file's node budget is spent."""
    if budget is None:
        budget = NodeBudget()
    get_event = parser.get_event
    strings: dict[str, str] = {}  # one copy of each scalar text the stream repeats (see _read_document)
    while True:
        try:
            event = get_event()
        except yaml.YAMLError as exc:
            raise _syntax_error(exc, pos, base, None) from None
        cls = event.__class__
        if cls is DocumentStartEvent:
            deadline.check()  # a file of many documents stops at the run's deadline too
            runnodes.check()  # and at the run's node budget (max-run-nodes)
            yield _read_document(get_event, pos, base, base + event.start_mark.index, budget, strings)
        elif cls is StreamEndEvent or event is None:
            return


def _read_document(get_event: Any, pos: Positions, base: int, doc_start: int, budget: NodeBudget,  # noqa: C901
                   strings: dict[str, str] | None = None) -> ParsedDocument:
    """Build one document from its events (after DocumentStart, through DocumentEnd).

    ``strings`` (shared by the documents of one stream) holds one copy of each string value read so
    far: a file of many objects repeats the same kinds, API versions, label values and settings in
    every document, and each copy is a separate object otherwise (bench case (f), 40,000
    documents: about 8 MB).

    This loop runs once per YAML node of every file: it is written for speed (local names, the
    innermost frame cached in ``frame``)."""
    issues: list[LoadIssue] = []
    anchors: dict[str, tuple[Any, int]] = {}
    open_anchors: set[str] = set()
    stack: list[_Frame] = []
    frame: _Frame | None = None
    container: Map | Seq  # the mapping or sequence an event opens
    count = 0  # nodes read
    aliased = 0  # nodes reached through aliases
    root: Any = None
    root_start = root_end = doc_start
    special = _GO_SPECIAL
    numeric_start = _NUMERIC_START
    resolve = go_resolve_plain
    Scalar, MappingStart, SequenceStart = ScalarEvent, MappingStartEvent, SequenceStartEvent
    MappingEnd, SequenceEnd, Alias, DocumentEnd = MappingEndEvent, SequenceEndEvent, AliasEvent, DocumentEndEvent
    MapType, SeqType, Frame, nokey, merge = Map, Seq, _Frame, _NOKEY, _MERGE
    max_nodes, max_depth = budget.left, MAX_DEPTH
    run_left = runnodes.left()  # the run's node budget (max-run-nodes) stops the document where it runs out
    by_run = run_left is not None and run_left < max_nodes
    if by_run:
        max_nodes = cast(int, run_left)
    shared = (strings if strings is not None else {}).setdefault
    # where every mapping and sequence, and each of their keys and items, is (see Map); 4 bytes an
    # offset when the text allows
    offsets = array("I" if len(pos.text) < 1 << 32 else "q")
    while True:
        try:
            event = get_event()
        except yaml.YAMLError as exc:
            raise _syntax_error(exc, pos, base, doc_start) from None
        cls = event.__class__
        if cls is Scalar:
            text = event.value
            tag = event.tag
            is_merge_key = False
            start = base + event.start_mark.index
            end = base + event.end_mark.index
            if tag is None:
                if event.implicit[0]:  # plain: typed like go-yaml v2
                    hit = special.get(text)
                    if hit is None:
                        value = resolve(text)[1] if text[0] in numeric_start else shared(text, text)
                    else:
                        value = hit[1]
                        is_merge_key = text == "<<"
                else:
                    value = shared(text, text)
            elif tag in _STRING_TAGS or tag == "!":
                value = shared(text, text)
            elif tag == BINARY:  # go-yaml v2 decodes it (decode.go), a string for sigs.k8s.io/yaml's JSON
                value = _binary(text, pos, start, doc_start)
            elif tag in _TYPED_TAGS:
                resolved, typed = resolve(text)
                # go-yaml v2 resolve.go: !!float takes an integer as a float; another mismatch fails there
                value = typed if resolved == tag else float(typed) if tag == FLOAT and resolved == INT else text
                is_merge_key = tag == MERGE
            else:
                value = text
                _add_issue(issues, _tag_issue(tag, pos.span(start, end), _field_path(stack)))
            count += 1
            if count > max_nodes:
                raise _too_many_nodes(pos, start, doc_start, budget, by_run)
            if event.anchor is not None:
                anchors[event.anchor] = (value, 1)
        elif cls is MappingStart or cls is SequenceStart:
            start = base + event.start_mark.index
            if len(stack) >= max_depth:
                # go-yaml reads 10,000 levels (gopkg.in/yaml.v2 v2.4.0 scannerc.go max_flow_level,
                # max_indents): the object is applied, so it is read without what lies deeper
                # (null there), and HL001 says so; its nodes still count
                end, skipped = _skip_container(get_event, pos, base, doc_start)
                count += skipped
                if count > max_nodes:
                    raise _too_many_nodes(pos, start, doc_start, budget, by_run)
                if not any(issue.kind == TOO_COMPLEX for issue in issues):
                    issues.append(LoadIssue(TOO_COMPLEX, pos.point(start), too_deep("go-yaml"), _field_path(stack)))
                value = None
                is_merge_key = False
            else:
                count += 1
                if count > max_nodes:
                    raise _too_many_nodes(pos, start, doc_start, budget, by_run)
                tag = event.tag
                if tag is not None and tag != "!" and tag not in STANDARD_TAGS:
                    _add_issue(issues, _tag_issue(tag, pos.span(start, base + event.end_mark.index), _field_path(stack)))
                anchor = event.anchor
                if anchor is not None:
                    open_anchors.add(anchor)
                if cls is MappingStart:
                    container = MapType()
                    container._key_spans = container._value_spans = container._merged = None
                    frame = Frame(container, True, start, count, aliased, anchor)
                else:
                    container = SeqType()
                    container._item_spans = None
                    frame = Frame(container, False, start, count, aliased, anchor)
                container._pos, container._span = pos, None
                stack.append(frame)
                continue
        elif cls is MappingEnd or cls is SequenceEnd:
            closed = stack.pop()
            frame = stack[-1] if stack else None
            value = closed.container
            if closed.is_map:
                value._entries = tuple(closed.keys)
                value._places = offsets
            else:
                value._offsets = offsets
            value._at = len(offsets)
            start, end = closed.start, base + event.end_mark.index
            offsets.append(start)
            offsets.append(end)
            offsets.extend(closed.places)
            merges = closed.merges
            if merges:  # already written into the mapping where each merge key stands
                value._merged = merges
            anchor = closed.anchor
            if anchor is not None:
                open_anchors.discard(anchor)
                anchors[anchor] = (value, count - closed.count + aliased - closed.aliased + 1)
            is_merge_key = False
        elif cls is Alias:
            start = base + event.start_mark.index
            end = base + event.end_mark.index
            name = event.anchor
            if name in open_anchors:
                raise YamlSyntaxError(f"anchor '{shown(name)}' value contains itself", pos.point(start), start, doc_start)
            hit = anchors.get(name)
            if hit is None:
                raise YamlSyntaxError(f"unknown anchor '{shown(name)}' referenced", pos.point(start), start, doc_start)
            value, size = hit
            aliased += size
            if aliased > MAX_EXPANDED_NODES:
                raise DocumentTooComplex(
                    f"document contains excessive aliasing (more than {MAX_EXPANDED_NODES:,} nodes "
                    "reached through aliases); Kubernetes rejects it too",
                    pos.point(start), start, doc_start,
                )  # fmt: skip
            is_merge_key = False
        elif cls is DocumentEnd:
            used = max(count, 1)  # an empty document counts as one node
            budget.left -= used
            runnodes.spend(used)
            return ParsedDocument(root, None, issues, doc_start, (root_start, root_end), pos)
        else:  # pragma: no cover - libyaml emits nothing else inside a document
            continue

        # deliver `value` (at start..end) into the innermost open container
        if frame is None:
            root, root_start, root_end = value, start, end
            continue
        if not frame.is_map:
            frame.container.append(value)
            places = frame.places
            places.append(start)
            places.append(end)
            continue
        key = frame.key
        if key is nokey:
            if value.__class__ is MapType or value.__class__ is SeqType:
                # go-yaml v2 decode.go: "invalid map key"; typically an unquoted {{ .Values.x }}
                what = "a mapping" if value.__class__ is MapType else "a list"
                raise YamlSyntaxError(
                    f"invalid map key: {what} is used as a key (an unquoted Helm expression such as "
                    "{{ .Values.x }} reads as one), which Kubernetes' YAML reader refuses",
                    pos.point(start), start, doc_start,
                )  # fmt: skip
            if is_merge_key:
                frame.key = merge
            else:
                # interned: a file repeats the same few keys thousands of times (one copy each
                # saved ~20 MB on 40,000 documents), and the checks' lookups then match by identity
                frame.key = intern(value) if value.__class__ is str else _key_text(value)
                frame.key_start = start
                frame.key_end = end
            continue
        frame.key = nokey
        mapping = frame.container
        if key is merge:
            # go-yaml v2 decode.go (mapping, merge): a merge key writes its mapping, or each mapping
            # of its list last first (the first wins), into the map where it stands: over the keys
            # written before it, under the keys after it; any other value fails the document
            if isinstance(value, MapType):
                sources = [value]
            elif isinstance(value, SeqType) and all(v.__class__ is MapType for v in value):
                sources = list(value)
            else:
                raise YamlSyntaxError("map merge requires map or sequence of maps as the value",
                                      pos.point(start), start, doc_start)  # fmt: skip
            merged_keys: set[str] = set()
            for source in reversed(sources):
                mapping.update(source)
                merged_keys.update(source)
            keys, places = frame.keys, frame.places
            if merged_keys.intersection(keys):  # their spans now come from the merged mapping
                kept = [i for i, k in enumerate(keys) if k not in merged_keys]
                places[:] = [part for i in kept for part in places[4 * i:4 * i + 4]]
                keys[:] = [keys[i] for i in kept]
            frame.merges = sources + (frame.merges or [])  # for spans: the last merge key first
            continue
        keys = frame.keys
        if key in mapping and (frame.merges is None or key in keys):  # written before, not merged
            first = frame.places[4 * keys.index(key)]
            parent = _field_path(stack[:-1])
            _add_issue(issues, LoadIssue(
                DUPLICATE_KEY, pos.span(frame.key_start, frame.key_end), key,
                f"{parent}.{key}" if parent else key, pos.line_col(first)[0],
            ))  # fmt: skip
        mapping[key] = value
        keys.append(key)
        frame.places.extend((frame.key_start, frame.key_end, start, end))


def too_deep(reader: str) -> str:
    """What a document nested past :data:`MAX_DEPTH` is told; ``reader`` is Argo CD's (``go-yaml``,
    or ``Go's JSON reader``), which reads 10,000 levels."""
    return (f"document is nested more than {MAX_DEPTH} levels deep; Argo CD reads it ({reader} goes 10,000 "
            "levels deep) and hooklint checks it without what lies deeper")  # fmt: skip


def _skip_container(get_event: Any, pos: Positions, base: int, doc_start: int) -> tuple[int, int]:
    """Read the events of a mapping or sequence just opened, to its end: (where it ends, its nodes)."""
    depth, nodes = 1, 1
    while depth:
        try:
            event = get_event()
        except yaml.YAMLError as exc:
            raise _syntax_error(exc, pos, base, doc_start) from None
        cls = event.__class__
        if cls is MappingStartEvent or cls is SequenceStartEvent:
            depth += 1
            nodes += 1
        elif cls is MappingEndEvent or cls is SequenceEndEvent:
            depth -= 1
        elif cls is ScalarEvent or cls is AliasEvent:
            nodes += 1
    return base + event.end_mark.index, nodes


def _too_many_nodes(pos: Positions, index: int, doc_start: int, budget: NodeBudget,
                    by_run: bool = False) -> FileTooComplex | runnodes.RunNodesSpent:  # fmt: skip
    """What a document past its node limit raises: :class:`FileTooComplex` (the file's or
    rendering's budget), or :class:`~hooklint.runnodes.RunNodesSpent` when the run's was the lower
    (``by_run``)."""
    if by_run:
        return runnodes.spent()
    budget.left, budget.spent = 0, True
    return FileTooComplex(too_many_nodes(budget.whole), pos.point(index), index, doc_start)


def too_many_nodes(whole: str = "file") -> str:
    """What a file (or a rendering: ``whole``) of more than :data:`MAX_NODES` YAML nodes is told."""
    return (f"the {whole} has more than {MAX_NODES:,} YAML nodes, far more than any Kubernetes object; the "
            f"rest of the {whole} is not read")  # fmt: skip


def parse_documents(text: str, line_offset: int = 0) -> list[ParsedDocument]:
    """Parse ``text`` into positioned values, document by document.

    ``line_offset`` is added to every line (the 0-based line of ``text`` in its file). Raises
    :class:`YamlSyntaxError` on a syntax error and :class:`DocumentTooComplex` on nesting or alias
    bombs. :func:`hooklint.loader.parse_text` is the forgiving, file-level entry point."""
    pos = Positions(text, line_offset)
    try:
        parser = new_parser(text)
    except UnicodeEncodeError as exc:  # a lone surrogate in a str that did not come from a file
        raise YamlSyntaxError("text is not valid Unicode (unpaired surrogate)", pos.point(exc.start), exc.start) from None
    return list(iter_documents(parser, pos))



# --- PyYAML, bounded ------------------------------------------------------------------------


class YamlTooComplex(yaml.MarkedYAMLError):
    """A document :class:`BoundedLoader` refuses: an alias bomb, nesting too deep, an anchor whose
    value contains itself. A :class:`yaml.YAMLError` (``problem`` says why, ``problem_mark``
    where), so a caller's ``except yaml.YAMLError`` handles it as it handles a syntax error."""


class BoundedLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """PyYAML's safe loader (libyaml's when present), for the YAML hooklint reads with PyYAML rather
    than with :func:`iter_documents`: kustomizations, ``Chart.yaml``, Helm's rendered documents,
    the configuration. Use it as ``yaml.load(text, Loader=BoundedLoader)`` (also ``compose``,
    ``load_all``).

    PyYAML composes an alias as a second reference to the same node: loading an alias bomb is
    quick, but whatever walks the result afterwards (``json.dumps``, a copy, a merge key, which
    PyYAML expands while constructing) walks the whole expansion: ten levels of ten aliases are
    10^10 nodes. Each composed document is therefore measured first, in one pass over its distinct
    nodes, with the limits of :func:`iter_documents`: more than :data:`MAX_EXPANDED_NODES` nodes
    reached through aliases (merge keys included), or nesting deeper than :data:`MAX_DEPTH` once
    aliases are expanded, raises :class:`YamlTooComplex` before anything is constructed; so does
    an anchor whose value contains itself (go-yaml: "anchor 'a' value contains itself"), which
    PyYAML would build into a self-referencing value. Deeper syntactic nesting libyaml refuses
    itself (1,000 levels); PyYAML's pure-Python composer, which recurses, is stopped by the same
    error rather than a RecursionError.

    The whole text (a file handed over is read first) may hold :data:`MAX_NODES` nodes, as a file
    read by :func:`iter_documents` may: PyYAML composes a node object of a few hundred bytes for
    each, so a 10 MB file of one-character items took gigabytes. A text long enough to hold more is
    counted first, event by event, keeping nothing (:func:`past_node_limit`); the document that
    goes past the limit raises :class:`YamlTooComplex` (the message of a file, at the node past
    it) before it is composed, those before it load."""

    def __init__(self, stream: Any):
        stream = _source(stream)
        super().__init__(stream)
        self._source_text, self._past, self._composed = stream, _UNCOUNTED, 0

    def get_single_node(self):
        return _measured(self, super().get_single_node)

    def get_node(self):
        return _measured(self, super().get_node)


class BoundedPythonLoader(yaml.SafeLoader):
    """:class:`BoundedLoader` on PyYAML's pure-Python parser and composer, for a composer that must
    see each event's own tag (libyaml's composer hands ``! x`` to the resolver as if untagged)."""

    def __init__(self, stream: Any):
        stream = _source(stream)
        super().__init__(stream)
        self._source_text, self._past, self._composed = stream, _UNCOUNTED, 0

    def get_single_node(self):
        return _measured(self, super().get_single_node)

    def get_node(self):
        return _measured(self, super().get_node)


def _source(stream: Any) -> Any:
    """What a loader is handed (``str``, ``bytes`` or an open file, read here) as ``str`` or ``bytes``."""
    return stream.read() if hasattr(stream, "read") else stream


_UNCOUNTED = object()


def _measured(loader: Any, compose: Any) -> Any:
    if loader._past is _UNCOUNTED:  # the first document: count the text's nodes once
        loader._past, loader._source_text = past_node_limit(loader._source_text), None
    if loader._past is not None and loader._composed == loader._past[0]:
        raise YamlTooComplex(problem=too_many_nodes(), problem_mark=loader._past[1])
    try:
        node = compose()
    except RecursionError:
        raise YamlTooComplex(problem=f"document is nested more than {MAX_DEPTH} levels deep") from None
    loader._composed += 1
    if node is not None:
        check_node_graph(node)
    return node


def past_node_limit(source: Any) -> tuple[int, Any] | None:
    """Where the YAML text ``source`` (``str`` or ``bytes``) goes past :data:`MAX_NODES` nodes:
    (0-based index of that document, the PyYAML mark of the node past the limit), or None when it
    holds no more (or cannot be parsed that far: the loader reports that error). Counted from the
    parser's events, keeping nothing; a text shorter than half the limit is not counted, as a
    character of YAML makes at most 4/3 of a node (``[?]`` is three nodes)."""
    if 2 * len(source) < MAX_NODES:
        return None
    count = documents = 0
    try:
        parser = new_parser(source)
        get_event = parser.get_event
        while True:
            event = get_event()
            cls = event.__class__
            if cls is ScalarEvent or cls is MappingStartEvent or cls is SequenceStartEvent:
                count += 1
                if count > MAX_NODES:
                    return documents, event.start_mark
            elif cls is DocumentEndEvent:
                documents += 1
            elif cls is StreamEndEvent or event is None:
                return None
    except (yaml.YAMLError, UnicodeError, ValueError):
        return None


def check_node_graph(root: yaml.Node) -> None:
    """Raise :class:`YamlTooComplex` when the composed document ``root`` reaches more than
    :data:`MAX_EXPANDED_NODES` nodes through aliases, nests mappings and sequences deeper than
    :data:`MAX_DEPTH` with its aliases expanded, or holds an anchor whose value contains itself.
    Iterative. A first pass measures the depth of a document without aliases (nearly all: every
    node is met once); one with aliases is measured again with each distinct node visited once (a
    node met again is an alias of it, counted with its expanded size)."""
    mapping, scalar = yaml.MappingNode, yaml.ScalarNode
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if node.__class__ is scalar:
            continue
        key = id(node)
        if key in seen:
            _check_aliases(root)
            return
        seen.add(key)
        if depth > MAX_DEPTH:
            raise YamlTooComplex(problem=f"document is nested more than {MAX_DEPTH} levels deep",
                                 problem_mark=node.start_mark)  # fmt: skip
        depth += 1
        if node.__class__ is mapping:
            for pair in node.value:
                stack.append((pair[0], depth))
                stack.append((pair[1], depth))
        else:
            stack.extend((child, depth) for child in node.value)


def _check_aliases(root: yaml.Node) -> None:
    """:func:`check_node_graph` for a document with aliases (or a self-referencing anchor)."""
    sizes: dict[int, tuple[int, int]] = {}  # id(node) -> (expanded node count, expanded height)
    started: set[int] = set()
    aliased = 0
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            size, height = 1, 0
            for child in _children(node):
                child_size, child_height = sizes[id(child)]
                size += child_size
                height = max(height, child_height)
            if not isinstance(node, yaml.ScalarNode):
                height += 1
            if height > MAX_DEPTH:
                raise YamlTooComplex(problem=f"document is nested more than {MAX_DEPTH} levels deep once its "
                                     "aliases are expanded", problem_mark=node.start_mark)  # fmt: skip
            sizes[key] = (size, height)
            continue
        if key in started:
            if key not in sizes:  # met again inside its own value
                raise YamlTooComplex(problem="an anchor's value contains itself", problem_mark=node.start_mark)
            aliased += sizes[key][0]
            if aliased > MAX_EXPANDED_NODES:
                raise YamlTooComplex(
                    problem=f"document contains excessive aliasing (more than {MAX_EXPANDED_NODES:,} nodes "
                    "reached through aliases)", problem_mark=node.start_mark)  # fmt: skip
            continue
        started.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(_children(node)))


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return node.value
    return []


# --- go-yaml v2's values (sigs.k8s.io/yaml), from a composed node tree -----------------------------
#
# The event reader above types manifests; the files hooklint reads with PyYAML that a Go program
# reads too (a kustomization, a chart's Chart.yaml) are composed first (positions, every node) and
# valued here as go-yaml v2 values them: ``decode.go`` ``scalar`` / ``mapping`` / ``merge`` and
# ``resolve.go``, then sigs.k8s.io/yaml's ``convertToJSONableObject`` (keys as JSON strings).


class Unreadable(ValueError):
    """YAML that go-yaml v2 refuses, or that hooklint cannot read the way it does: ``str()`` says
    why (go-yaml's words where it fails); ``line`` and ``column`` (1-based) where, when known."""

    def __init__(self, message: str, line: int = 1, column: int = 1):
        super().__init__(message)
        self.line = line
        self.column = column


#: The tag :class:`GoComposer` gives a plain scalar with no tag (typed as go-yaml v2 types it).
GO_PLAIN = "!hooklint/plain"


class _GoResolver:
    """Scalars composed without PyYAML's typing: a plain scalar with no tag is :data:`GO_PLAIN`; a
    quoted one a string, as in go-yaml v2."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if kind is yaml.ScalarNode:
            return GO_PLAIN if implicit[0] else STR
        return super().resolve(kind, value, implicit)  # type: ignore[misc]


class _GoFastComposer(_GoResolver, BoundedLoader):
    """:class:`GoComposer` on libyaml, for a text without ``!``: libyaml's composer hands a scalar
    tagged ``!`` to the resolver as if it were plain, and reports every other tag."""


class GoComposer(_GoResolver, BoundedPythonLoader):
    """A bounded loader (use it to compose, never to construct) composing scalars without PyYAML's
    typing: a plain scalar with no tag is :data:`GO_PLAIN`; a quoted one, or one tagged ``!``, a
    string, as in go-yaml v2 (``resolve("!", ...)`` does not resolve); an anchor may be defined
    again, as go-yaml allows. The pure-Python composer, which sees the event's tag;
    :func:`go_composer` takes libyaml's (five times faster) for a text holding no ``!`` nor ``&``."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        # go-yaml v2 lets an anchor be defined again (an alias names the latest); PyYAML refuses
        event = self.peek_event()
        anchor = getattr(event, "anchor", None)
        if anchor is not None and not isinstance(event, yaml.AliasEvent):
            self.anchors.pop(anchor, None)
        return super().compose_node(parent, index)

    def compose_scalar_node(self, anchor: Any) -> yaml.ScalarNode:
        bang = self.peek_event().tag == "!"
        node = super().compose_scalar_node(anchor)
        if bang:
            node.tag = STR
        return node


def go_composer(text: str) -> type:
    """The composer class for ``text``: :class:`GoComposer`, or its libyaml twin when ``text``
    holds no ``!`` nor ``&`` (so no tag, and no anchor that may be defined twice) outside its
    comment lines (a line whose first character after spaces and tabs is ``#``: a comment, or
    the content of a block or quoted scalar, never a token; ``# Apps & services``). A text with a
    line break other than ``\n`` (``\r``, NEL, U+2028, U+2029, which end a YAML line) takes the
    pure-Python composer whenever it holds either character."""
    if "!" not in text and "&" not in text:
        return _GoFastComposer
    if any(c in text for c in "\r\x85\u2028\u2029"):
        return GoComposer
    for line in text.split("\n"):
        if ("!" in line or "&" in line) and not line.lstrip(" \t").startswith("#"):
            return GoComposer
    return _GoFastComposer


def _short(tag: str) -> str:
    return "!!" + tag[len("tag:yaml.org,2002:"):] if tag.startswith("tag:yaml.org,2002:") else tag


def _scalar(node: yaml.ScalarNode) -> Any:
    """A scalar as go-yaml v2 decodes it into ``interface{}`` (``decode.go`` ``scalar``,
    ``resolve.go`` ``resolve``): timestamps stay text; ``!!binary`` is decoded; an explicit
    ``!!int``/``!!float``/``!!bool``/``!!null`` must type as written; any other tag is a string."""
    tag, text = node.tag, node.value
    if tag == GO_PLAIN:
        return go_resolve_plain(text)[1]
    if tag == BINARY:  # base64.StdEncoding.DecodeString skips line breaks; json.Marshal needs UTF-8
        try:
            return base64.b64decode(text.replace("\n", "").replace("\r", ""), validate=True).decode("utf-8")
        except (binascii.Error, ValueError):
            raise Unreadable("yaml: !!binary value contains invalid base64 data (or bytes that are not UTF-8)",
                             *_at(node)) from None  # fmt: skip
    if tag in (INT, FLOAT, BOOL, NULL, TIMESTAMP):
        resolved, value = go_resolve_plain(text)
        if resolved == tag or (tag == FLOAT and resolved == INT):
            return float(value) if tag == FLOAT else text if tag == TIMESTAMP else value
        raise Unreadable(f"yaml: cannot decode {_short(resolved)} `{text}` as a {_short(tag)}", *_at(node))
    return text  # !!str, and every tag go-yaml does not resolve (!foo, !!map on a scalar...)


def _at(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


def is_merge_key(node: yaml.Node) -> bool:
    """Whether ``node`` (composed by :class:`GoComposer`) is a merge key for go-yaml v2 (``isMerge``)."""
    return isinstance(node, yaml.ScalarNode) and node.value == "<<" and node.tag in (GO_PLAIN, MERGE)


def _json_key(key: Any) -> str:
    """A Go map key as ``YAMLToJSON`` writes it (``convertToJSONableObject``)."""
    if isinstance(key, str):
        return key
    if key is True or key is False:
        return "true" if key else "false"
    if key is None:
        raise Unreadable("a null mapping key, which sigs.k8s.io/yaml cannot convert to JSON")
    if isinstance(key, float):
        return {float("inf"): "+Inf", float("-inf"): "-Inf"}.get(key, "NaN" if key != key else repr(key))
    return str(key)


def go_value(node: yaml.Node) -> Any:
    """The Go value of ``node`` (composed by :class:`GoComposer`) as go-yaml v2 decodes it into
    ``interface{}`` and ``YAMLToJSON`` converts it; raises :class:`Unreadable` where go-yaml fails.
    Recursion is bounded: :class:`GoComposer` refused deeper nesting."""
    if isinstance(node, yaml.ScalarNode):
        return _scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return [go_value(item) for item in node.value]
    out: dict[str, Any] = {}
    _into(node, out, {})
    return out


def written_pairs(node: yaml.MappingNode, *, strict: bool = True) -> Iterator[tuple[yaml.Node, yaml.Node]]:
    """The ``(key node, value node)`` pairs of the mapping ``node`` (composed by :class:`GoComposer`
    or :class:`BoundedLoader`: a plain ``<<`` is a merge key for both) in the order go-yaml v2
    ``decoder.mapping`` writes them into its map (``decode.go`` ``mapping``, ``merge``): in order,
    a merge key's mapping (an alias to one included), or, last first, each mapping of its list,
    written where the merge key stands, its own merge keys resolved the same way. A key written
    again replaces the earlier value (:func:`go_pairs`). ``strict``: a merge value that is no
    mapping raises :class:`Unreadable` as go-yaml fails; otherwise its pair is yielded as it is.
    A mapping merged into itself (``&a {<<: *a}``, which go-yaml refuses) is written once."""
    yield from _written(node, strict, set())


def _written(node: yaml.MappingNode, strict: bool, open_: set[int]) -> Iterator[tuple[yaml.Node, yaml.Node]]:
    open_.add(id(node))
    for key_node, value_node in node.value:
        if is_merge_key(key_node):
            sources = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
            if not all(isinstance(s, yaml.MappingNode) for s in sources):
                if strict:
                    raise Unreadable("yaml: map merge requires map or sequence of maps as the value", *_at(value_node))
                yield key_node, value_node
                continue
            for source in reversed(sources) if isinstance(value_node, yaml.SequenceNode) else sources:
                if id(source) not in open_:
                    yield from _written(source, strict, open_)
            continue
        yield key_node, value_node
    open_.discard(id(node))


def go_pairs(node: yaml.MappingNode) -> dict[str, tuple[yaml.Node, yaml.Node]]:
    """The mapping ``node`` as go-yaml v2 decodes it, merge keys applied (:func:`written_pairs`,
    lenient): each scalar key's text -> its ``(key node, value node)``, the last written winning
    (``{<<: {kind: Secret}}`` has ``kind``; ``{kind: Secret, <<: {kind: X}}`` has ``kind: X``:
    go-yaml v2 writes a merge where it stands, unlike the YAML 1.1 spec and PyYAML's constructor).
    Keys that are no scalar are left out."""
    out: dict[str, tuple[yaml.Node, yaml.Node]] = {}
    for key_node, value_node in written_pairs(node, strict=False):
        if isinstance(key_node, yaml.ScalarNode) and not is_merge_key(key_node):
            out[key_node.value] = (key_node, value_node)
    return out


def _into(node: yaml.MappingNode, out: dict[str, Any], typed: dict[str, Any]) -> None:
    """Decode the mapping ``node`` into ``out`` as go-yaml v2 ``decoder.mapping`` does
    (:func:`written_pairs`). ``typed`` remembers each JSON key's Go key: two Go keys of one JSON
    key (``1`` and ``"1"``) reach kustomize in Go's random map order, and are refused."""
    for key_node, value_node in written_pairs(node):
        key = go_value(key_node)
        if isinstance(key, (dict, list)):
            raise Unreadable("yaml: invalid map key: a mapping or list is used as a key", *_at(key_node))
        name = _json_key(key)
        if name in typed and type(typed[name]) is not type(key):
            raise Unreadable(f"two keys of one mapping are both written {name!r} in JSON (one is not a string): "
                             "kustomize reads one of them at random", *_at(key_node))  # fmt: skip
        typed[name] = key
        out[name] = go_value(value_node)


def _libyaml_error(text: str) -> yaml.MarkedYAMLError | None:
    """The error libyaml's parser finds in the first document of ``text``, if any."""
    loader = BoundedLoader(text)
    try:
        if loader.check_node():
            loader.get_node()
    except yaml.MarkedYAMLError as error:
        return error
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()
    return None


#: Characters ``json.dumps(ensure_ascii=False)`` writes as they are that a YAML reader would not
#: read back as written: those go-yaml's and PyYAML's readers refuse ("control characters are not
#: allowed": DEL, C1 controls, U+FFFE, U+FFFF, surrogates), the YAML 1.1 line breaks NEL, U+2028
#: and U+2029 (inside a quoted scalar, folded into a space) and U+FEFF (a byte order mark).
_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")


def go_yaml_text(value: Any) -> str:
    """``value`` (dicts, lists, ``str``, ``int``, ``float``, ``bool``, ``None``; :class:`Map` and
    :class:`Seq` too) as YAML text that every reader hooklint hands data to types exactly as
    ``value`` is typed: go-yaml v2 and v3, ``sigs.k8s.io/yaml`` (Helm's value files, kustomize's
    kustomizations, Argo CD's manifests) and hooklint's own go-typed readers (:func:`parse_documents`,
    :func:`go_first_document`).

    The text is JSON (JSON is YAML): every string is double-quoted, so ``"n"``, ``"on"``, ``"~"``,
    ``"1e3"``, ``"0o17"`` or ``"2024-01-01"`` stay strings for a YAML 1.1 reader, where PyYAML's
    ``safe_dump`` writes some of them plain (``n``, ``1e3``) and go-yaml v2 reads those as a
    boolean or a number. Characters JSON leaves raw that a YAML reader refuses or folds
    (:data:`_YAML_UNSAFE`) are written as ``\\uXXXX``. Keys keep their order; a non-string key
    is written as ``json`` writes it (``true``, ``null``, ``5``), as ``YAMLToJSON`` does. This is
    Argo CD's own form of ``valuesObject`` (``pkg/apis/application/v1alpha1/values.go``
    ``ValuesYAML``: ``sigs.k8s.io/yaml`` ``JSONToYAML`` quotes what it must).

    Raises ValueError for a float that JSON cannot hold (``.inf``, ``.nan``: ``json.Marshal`` fails
    on them too, so Kubernetes refuses such an object) or a value of another type."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except TypeError as exc:
        raise ValueError(f"a value that is not JSON ({exc})") from None
    except ValueError:
        raise ValueError("a number JSON cannot hold (.inf or .nan)") from None
    return _YAML_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"


def go_yaml_scalar(text: str) -> str:
    """``text`` as one double-quoted YAML scalar, for a line of YAML that go-yaml or PyYAML reads:
    :func:`go_yaml_text` without its line break. Never ``json.dumps`` alone: its ASCII escapes
    write a character beyond U+FFFF as a surrogate pair, which go-yaml refuses ("found invalid
    Unicode character escape code")."""
    return go_yaml_text(text)[:-1]


@dataclass(frozen=True, slots=True)
class GoDocument:
    """The first document of a text as go-yaml v2 reads it: ``value`` (what ``YAMLToJSON`` gives),
    ``node`` (composed by :class:`GoComposer`, for positions; None for an empty stream) and ``more``
    (whether anything follows that document: go-yaml never reads it)."""

    value: Any
    node: yaml.Node | None
    more: bool


def go_first_document(text: str) -> GoDocument:
    """The first document of ``text`` (decoded, a BOM removed) as ``sigs.k8s.io/yaml`` reads it
    (go-yaml v2 ``Unmarshal`` into ``interface{}``, then ``YAMLToJSON``): what kustomize decodes a
    kustomization from and Helm a ``Chart.yaml``. Raises :class:`Unreadable` where go-yaml fails
    (its message starts ``yaml:``) or hooklint cannot be sure of the value, and
    :class:`YamlTooComplex` for an alias bomb or nesting beyond the limits."""
    loader = go_composer(text)(text)
    try:
        try:
            node = loader.get_node() if loader.check_node() else None
        except YamlTooComplex:
            raise
        except yaml.MarkedYAMLError as error:
            error = _libyaml_error(text) or error  # go-yaml's words are libyaml's (it is a port)
            mark = error.problem_mark or error.context_mark
            line = mark.line + 1 if mark is not None else 1
            raise Unreadable(f"yaml: line {line}: {error.problem or error.context}",
                             line, mark.column + 1 if mark is not None else 1) from None  # fmt: skip
        except yaml.YAMLError as error:
            raise Unreadable(f"yaml: {str(error).splitlines()[0]}") from None
        try:
            more = loader.check_node()
        except yaml.YAMLError:
            more = True
    finally:
        loader.dispose()
    return GoDocument(go_value(node) if node is not None else None, node, more)


def node_strings(node: yaml.Node | None) -> list[str]:
    """Every scalar's text in the composed ``node`` (keys, values, and the values a merge key
    would hide), a ``!!binary`` one also decoded; each node once, however often aliases repeat
    it. Wider than any decoder's view, so that a URL is found however a reader resolves the YAML."""
    found: list[str] = []
    stack, seen = [node] if node is not None else [], set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, yaml.ScalarNode):
            found.append(item.value)
            if item.tag == BINARY:
                try:
                    found.append(base64.b64decode(item.value.replace("\n", "").replace("\r", "")).decode("utf-8", "replace"))
                except (binascii.Error, ValueError):
                    pass
        elif isinstance(item, yaml.MappingNode):
            stack.extend(part for pair in item.value for part in pair)
        elif isinstance(item, yaml.SequenceNode):
            stack.extend(item.value)
    return found
