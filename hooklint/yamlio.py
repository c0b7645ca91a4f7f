"""YAML text -> positioned Python values, typed the way Kubernetes types them.

Kubernetes and Argo CD read manifests through sigs.k8s.io/yaml, which decodes with go-yaml v2
(``gopkg.in/yaml.v2`` ``resolve.go``) and then converts to JSON. That decides what a plain scalar
*is*: ``yes``/``no``/``on``/``off``/``y``/``n`` are booleans, ``5`` and ``0x10`` are integers,
``1e3`` is a float, and timestamps stay strings. PyYAML's own resolver (YAML 1.1) disagrees on
several of these (``y``, ``1e3``, ``0o17``, ``1_000``), so :class:`_KubeResolverMixin` replaces it
for plain scalars. Parsing itself is libyaml's (``yaml.CSafeLoader``) when available: it only
*composes* nodes, so no tag ever constructs a Python object.

The result of :func:`parse_document` is built from :class:`Map`, :class:`Seq` and plain ``str``,
``int``, ``float``, ``bool`` and ``None``. Containers carry 1-based :class:`~hooklint.findings.Span`
values for themselves, their keys and their values, so a check can point at the exact node.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from hooklint.findings import Span

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

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

#: Nesting deeper than this is reported instead of converted (real manifests stay under 30).
MAX_DEPTH = 100
#: Nodes a document may expand to through aliases before it counts as an alias bomb. go-yaml v2.4
#: refuses such documents too ("document contains excessive aliasing", ``decode.go``).
MAX_EXPANDED_NODES = 200_000

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
    value = int(digits, base)
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
    if hint == ".":
        try:
            return FLOAT, float(text)
        except ValueError:
            return STR, text
    if hint in "+-0123456789":
        if hint.isdigit() and _GO_TIMESTAMP.match(text):
            return TIMESTAMP, text
        plain = text.replace("_", "")
        value = go_parse_int(plain)
        if value is not None:
            return INT, value
        if _GO_FLOAT.match(plain):
            return FLOAT, float(plain)
        if plain.startswith("0b") or plain.startswith("-0b"):
            return STR, text  # binary with a sign ParseInt rejected; go-yaml gives up too
    return STR, text


class _KubeResolverMixin:
    """Resolve plain scalars with go-yaml v2's rules; quoted scalars are strings."""

    def resolve(self, kind, value, implicit):  # noqa: D401 - PyYAML hook
        if kind is ScalarNode:
            if implicit[0]:
                return go_resolve_plain(value)[0]
            return STR
        return super().resolve(kind, value, implicit)


class KubeLoader(_KubeResolverMixin, _BaseLoader):  # type: ignore[misc, valid-type]
    """libyaml composer (pure-Python fallback) with Kubernetes scalar typing."""


class Map(dict):
    """A YAML mapping: a ``dict`` whose keys are strings, plus where each key and value is.

    ``span`` covers the whole mapping; ``key_spans[k]`` the key ``k``; ``value_spans[k]`` its value."""

    __slots__ = ("span", "key_spans", "value_spans")

    def key_span(self, key: str) -> Span:
        return self.key_spans.get(key, self.span)

    def value_span(self, key: str) -> Span:
        return self.value_spans.get(key, self.span)


class Seq(list):
    """A YAML sequence: a ``list`` plus the span of the sequence and of each item."""

    __slots__ = ("span", "item_spans")


@dataclass(slots=True)
class Issue:
    """A problem found while converting a document: ``rule_id`` is HL002 (duplicate key) or HL005
    (unsupported tag); ``field_path`` is the dotted path where it occurred."""

    rule_id: str
    span: Span
    message: str
    field_path: str = ""


class DocumentTooComplex(Exception):
    """Raised for nesting deeper than :data:`MAX_DEPTH` or an alias bomb; carries a span."""

    def __init__(self, message: str, span: Span):
        super().__init__(message)
        self.span = span


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


class _Converter:
    """Node tree -> :class:`Map`/:class:`Seq`/scalars, with aliases shared and counted."""

    def __init__(self, line_offset: int):
        self.line_offset = line_offset
        self.issues: list[Issue] = []
        self.memo: dict[int, tuple[Any, int]] = {}
        self.expanded = 0

    def span(self, node) -> Span:
        return Span.from_marks(node.start_mark, node.end_mark, self.line_offset)

    def convert(self, node, depth: int = 0, path: str = "") -> Any:
        key = id(node)
        hit = self.memo.get(key)
        if hit is not None:  # an alias (or a merge source) seen before: count its expansion
            self.expanded += hit[1]
            if self.expanded > MAX_EXPANDED_NODES:
                raise DocumentTooComplex(
                    f"document contains excessive aliasing (more than {MAX_EXPANDED_NODES:,} nodes "
                    "after alias expansion); Kubernetes rejects it too",
                    self.span(node),
                )
            return hit[0]
        if depth > MAX_DEPTH:
            raise DocumentTooComplex(
                f"document is nested more than {MAX_DEPTH} levels deep", self.span(node)
            )
        before = self.expanded
        value = self._convert_new(node, depth, path)
        size = self.expanded - before + 1
        self.expanded += 1
        self.memo[key] = (value, size)
        return value

    def _check_tag(self, node, path: str) -> None:
        tag = node.tag
        if tag not in STANDARD_TAGS:
            self.issues.append(
                Issue(
                    "HL005",
                    self.span(node),
                    f"YAML tag '{tag}' is not a standard Kubernetes type; hooklint never constructs "
                    "tagged objects and Kubernetes rejects or mis-decodes them. Remove the tag.",
                    path,
                )
            )

    def _convert_new(self, node, depth: int, path: str) -> Any:
        if isinstance(node, ScalarNode):
            return self._scalar(node, path)
        if isinstance(node, SequenceNode):
            self._check_tag(node, path)
            seq = Seq()
            seq.span = self.span(node)
            seq.item_spans = []
            for i, item in enumerate(node.value):
                seq.append(self.convert(item, depth + 1, f"{path}[{i}]"))
                seq.item_spans.append(self.span(item))
            return seq
        self._check_tag(node, path)
        return self._mapping(node, depth, path)

    def _scalar(self, node, path: str) -> Any:
        tag, text = node.tag, node.value
        if tag == STR or tag == TIMESTAMP or tag == BINARY:
            return text
        if tag in (INT, FLOAT, BOOL, NULL, MERGE):
            if node.style is None:
                return go_resolve_plain(text)[1]
            # explicitly tagged quoted scalar (!!int "5"): decode the text the same way
            resolved_tag, value = go_resolve_plain(text)
            return value if resolved_tag == tag else text
        self._check_tag(node, path)
        return text

    def _mapping(self, node, depth: int, path: str) -> Map:
        out = Map()
        out.span = self.span(node)
        out.key_spans = {}
        out.value_spans = {}
        merged: list[Map] = []
        for key_node, value_node in node.value:
            if isinstance(key_node, ScalarNode) and key_node.tag == MERGE:
                merged.extend(self._merge_sources(value_node, depth, path))
                continue
            if isinstance(key_node, ScalarNode):
                key = _key_text(self._scalar(key_node, path))
            else:
                key = _key_text(self.convert(key_node, depth + 1, path))
                key = key if isinstance(key, str) else str(key)
            child_path = f"{path}.{key}" if path else key
            key_span = self.span(key_node)
            if key in out:
                first = out.key_spans[key]
                self.issues.append(
                    Issue(
                        "HL002",
                        key_span,
                        f"Key '{key}' is repeated (first at line {first.line}): the API server keeps "
                        "only the last value, while a reviewer may read the first. Remove one of them.",
                        child_path,
                    )
                )
            out[key] = self.convert(value_node, depth + 1, child_path)
            out.key_spans[key] = key_span
            out.value_spans[key] = self.span(value_node)
        for source in merged:  # explicit keys win over merged ones (YAML merge key spec)
            for key, value in source.items():
                if key not in out:
                    out[key] = value
                    out.key_spans[key] = source.key_spans[key]
                    out.value_spans[key] = source.value_spans[key]
        return out

    def _merge_sources(self, value_node, depth: int, path: str) -> list[Map]:
        value = self.convert(value_node, depth + 1, path)
        if isinstance(value, Map):
            return [value]
        if isinstance(value, Seq):
            return [v for v in value if isinstance(v, Map)]
        return []


@dataclass(slots=True)
class ParsedDocument:
    """One YAML document: its converted value (``None`` for an empty document), the span of its root
    node, and the issues (HL002, HL005) found while converting it."""

    value: Any
    span: Span | None
    issues: list[Issue]


class YamlSyntaxError(Exception):
    """A document libyaml could not parse; ``span`` is the parser's (1-based) problem position."""

    def __init__(self, message: str, span: Span):
        super().__init__(message)
        self.span = span


def parse_documents(text: str, line_offset: int = 0) -> list[ParsedDocument]:
    """Parse ``text`` (one chunk of a file, normally a single document) into positioned values.

    ``line_offset`` is the 0-based line of the chunk in its file. Raises :class:`YamlSyntaxError` on
    a syntax error and :class:`DocumentTooComplex` on nesting or alias bombs."""
    loader = KubeLoader(text)
    out: list[ParsedDocument] = []
    try:
        while True:
            try:
                if not loader.check_node():
                    break
                node = loader.get_node()
            except yaml.MarkedYAMLError as exc:
                mark = exc.problem_mark or exc.context_mark
                line = (mark.line if mark else 0) + line_offset + 1
                column = (mark.column if mark else 0) + 1
                problem = exc.problem or "invalid YAML"
                if exc.context:
                    problem = f"{problem} ({exc.context})"
                raise YamlSyntaxError(problem, Span.point(line, column)) from None
            except yaml.YAMLError as exc:  # reader errors: control characters and the like
                raise YamlSyntaxError(str(exc).splitlines()[0], Span.point(line_offset + 1, 1)) from None
            if node is None:
                continue
            converter = _Converter(line_offset)
            value = converter.convert(node)
            out.append(ParsedDocument(value, converter.span(node), converter.issues))
    finally:
        loader.dispose()
    return out
