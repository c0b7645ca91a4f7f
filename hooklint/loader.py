"""Paths, directories and stdin -> documents with positions; read and parse errors become findings.

A file is cut into documents by Go's ``YAMLReader`` line rule first, as Argo CD cuts it
(:func:`go_yaml_chunks`), then read by libyaml at each chunk's offset (one parser for the whole
file where libyaml would cut it alike). A syntax error in one document (HL001) does not hide the
others: parsing resumes at the next chunk. Input that is not a manifest (binary, badly encoded,
too large, not a regular file, unreadable) is an :class:`~hooklint.findings.InputError`, never an
exception; hostile YAML (alias bombs, deep nesting) is bounded by :mod:`hooklint.yamlio`.
"""

from __future__ import annotations

import codecs
import itertools
import json
import math
import os
import re
import stat
import sys
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

from hooklint.config import DEFAULT_MAX_FILE_SIZE
from hooklint import runnodes
from hooklint.reasons import Skip, SkipKind
from hooklint.files import (STDIN, FileTooLarge, NotRegularFile, file_problem, is_stream,  # noqa: F401 - re-exported
                            read_bytes, read_text, walk_tree, within)
from hooklint.findings import InputError, Span
from hooklint.gojsonread import NotGoJSON, read_value
from hooklint.yamlio import (
    JSON_CLOSER_AFTER,
    MAX_NODES,
    SEPARATOR_TEXT,
    SYNTAX_ERROR,
    TOO_COMPLEX,
    TOO_MANY_ERRORS,
    DocumentTooComplex,
    FileTooComplex,
    LoadIssue,
    Map,
    NodeBudget,
    ParsedDocument,
    Positions,
    Seq,
    YamlSyntaxError,
    iter_documents,
    new_parser,
    shown,
    too_deep,
)
from hooklint.text import go_trim_space


_DOC_MARKER = re.compile(r"^(?:---|\.\.\.)(?=[ \t\r\n]|$)", re.MULTILINE)
# helm template's "# Source: chart/templates/x.yaml": a relative path, never a URL (one line).
_HELM_SOURCE = re.compile(r"^#[ \t]*Source:[ \t]*([^\s:]+\.(?:ya?ml|json|tpl))[ \t]*\r?$", re.MULTILINE)
#: Argo CD's repo server skips every file whose bytes contain this marker
#: (``reposerver/repository/repository.go`` ``skipFileRenderingMarker``).
SKIP_FILE_RENDERING_MARKER = "+argocd:skip-file-rendering"
_MANIFEST_MARKERS = ("apiVersion:", "kind:", "metadata:")
#: What a file must hold for any of its documents to decode into an object with a ``kind`` in some
#: spelling: the word itself (``kind :``, ``"kind":``, ``'kind':``, ``? kind``, ``<<: *base``), an
#: escape that may spell it (``"\\u006bind"``, ``"k\\x69nd"``) or a tag (``!!binary a2luZA==``).
_OBJECT_SIGNS = ("kind", "\\", "!")
_DIRECTIVE_LINE = re.compile(r"^[ \t]*%", re.MULTILINE)
#: Characters libyaml and go-yaml refuse anywhere in a stream ("control characters are not
#: allowed"): C0 controls but tab/LF/CR, DEL, C1 controls but NEL, surrogates, U+FFFE and U+FFFF.
#: The full class takes milliseconds to compile, so ASCII text (nearly every file) uses the short one.
_NOT_YAML_ASCII = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_NOT_YAML_PATTERN = "[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"


def _refused(char: str) -> str:
    """What a character libyaml and go-yaml refuse is told (HL001)."""
    return (f"character U+{ord(char):04X} is not allowed in YAML (control characters and unpaired surrogates are "
            "refused by Kubernetes' YAML reader too)")  # fmt: skip


def _not_yaml(text: str) -> "re.Pattern[str]":
    return _NOT_YAML_ASCII if text.isascii() else re.compile(_NOT_YAML_PATTERN)
#: Documents of one file reported as unreadable (HL001) before the rest of the file is skipped.
MAX_SYNTAX_ERRORS = 1000


class Document:
    """One YAML document of a file.

    ``index`` is 0-based within the file; ``value`` is the converted root (a
    :class:`~hooklint.yamlio.Map` for an object); ``span`` is where the root is (made on first
    use); ``source`` names the Helm template from a ``# Source:`` comment, when the document
    carries one, and ``source_line`` is that comment's 1-based line (the template's line N is
    the file's line ``source_line + N``)."""

    __slots__ = ("path", "index", "value", "source", "source_line", "_span", "_parsed")

    def __init__(self, path: str, index: int, value: Any, span: Span | None = None,
                 source: str | None = None, parsed: ParsedDocument | None = None):  # fmt: skip
        self.path = path
        self.index = index
        self.value = value
        self.source = source
        self.source_line = 0
        self._span = span
        self._parsed = parsed

    @property
    def span(self) -> Span:
        if self._span is None:
            if self._parsed is not None:
                self._span = self._parsed.span
            elif isinstance(self.value, (Map, Seq)):  # a parsed mapping or sequence is where its document's root is
                self._span = self.value.span
        # a document is made with its span, with the parsed document, whose root offsets give one,
        # or with a parsed root mapping or sequence (_FileParser.parse: no parsed document kept)
        assert self._span is not None
        return self._span

    @span.setter
    def span(self, value: Span) -> None:
        self._span = value

    def __repr__(self) -> str:
        return f"Document(path={self.path!r}, index={self.index}, source={self.source!r}, value={self.value!r})"


@dataclass(slots=True)
class LoadedFile:
    """A file read and parsed: its documents and the issues met reading them, as ``(issue,
    document index)`` (the checks of :mod:`hooklint.checks.loading` report them)."""

    path: str
    documents: list[Document] = field(default_factory=list)
    issues: list[tuple[LoadIssue, int]] = field(default_factory=list)  # (issue, doc index)
    error: InputError | None = None
    #: The text has ``apiVersion:``, ``kind:`` and ``metadata:`` (or the file is JSON): what
    #: :mod:`hooklint.sources.render.directory` needs to tell a manifest from unrelated YAML.
    looks_like_manifest: bool = True
    #: The text holds the word ``kind``, a backslash or a ``!`` (or the file is JSON): a document
    #: hooklint cannot read may be one Argo CD reads as an object (:data:`_OBJECT_SIGNS`), so the
    #: file is never passed over as unrelated YAML (:mod:`hooklint.sources.render.directory`).
    may_hold_object: bool = True
    #: The text holds a byte order mark past its start (U+FEFF; :func:`decode_manifest` removes the
    #: one at the start): libyaml reads it as the start of a document, Kubernetes' reader as a
    #: character of a key (its ``YAMLReader`` keeps a leading ``---`` line in the first document),
    #: so the two may split and read the file's documents otherwise and the file is never passed
    #: over as unrelated YAML (attacker trial 40, 4).
    bom_inside: bool = False
    #: Set by :mod:`hooklint.sources.render.directory` on a file Argo CD may pass over as unrelated
    #: YAML while hooklint, unable to tell, reports its unreadable first document (HL001 says so).
    maybe_unrelated: bool = False
    #: The file carries ``+argocd:skip-file-rendering`` (a directory source skips it).
    has_skip_marker: bool = False
    #: Why Argo CD does not render the file, when it does not (set by :mod:`hooklint.sources`).
    skip_reason: Skip | None = None
    #: ``# hooklint: ignore[HL203, HL204] reason`` comments: (1-based line, 1-based column of the
    #: ``#``, the names between the brackets, the reason or None, whether the comment is alone on
    #: its line).
    ignore_comments: list[tuple[int, int, tuple[str, ...], str | None, bool]] = field(default_factory=list)


class FileRejected(Exception):
    """The file's bytes are not text Kubernetes would read (binary, bad encoding)."""


def decode_manifest(data: bytes) -> str:
    """Decode a manifest's bytes as Kubernetes' YAML reader would: UTF-8 (with or without BOM) or
    UTF-16/UTF-32 *with* a BOM (go-yaml's ``yaml_parser_determine_encoding``). The BOM is removed.

    Raises :class:`FileRejected` for NUL bytes in UTF-8 text (a binary file) or invalid UTF-8."""
    for bom, codec in (
        (codecs.BOM_UTF32_LE, "utf-32"),
        (codecs.BOM_UTF32_BE, "utf-32"),
        (codecs.BOM_UTF8, "utf-8-sig"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if data.startswith(bom):
            try:
                text = data.decode(codec)
            except UnicodeDecodeError as exc:
                raise FileRejected(f"invalid {codec.upper()} at byte {exc.start}") from None
            break
    else:
        nul = data.find(b"\0")
        if nul >= 0:
            raise FileRejected(f"binary content (NUL byte at offset {nul}); not a manifest")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise FileRejected(
                f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
                "save the file as UTF-8"
            ) from None
    if "\x00" in text:
        raise FileRejected("NUL character in text; not a manifest")
    return text


#: Where libyaml (and go-yaml, its port) ends a document that Go's ``YAMLReader`` does not: a
#: ``...`` line, or a marker after a break other than LF (CR, NEL, LS, PS), followed by a blank, a
#: break or the end.
_LIBYAML_ONLY_MARKER = re.compile("(?:^\\.\\.\\.|(?<=[\r\x85\u2028\u2029])(?:---|\\.\\.\\.))"
                                  "(?=[ \t\r\n\x85\u2028\u2029]|\\Z)", re.MULTILINE)
#: libyaml's line breaks (Go's line reader knows only LF).
_LIBYAML_BREAKS = "\r\n\x85\u2028\u2029"
#: A line Go's ``YAMLReader`` may take for a separator, and the rest of the line (see :func:`go_yaml_chunks`).
_GO_SEPARATOR_LINE = re.compile(r"^---([^\n]*)", re.MULTILINE)
_GO_SEPARATOR_REST = re.compile(r"---([^\n]*)")
#: A ``---`` line libyaml does not read as Go does: one followed by more than blanks and a comment
#: after a blank.
_ODD_SEPARATOR = re.compile(r"\n---(?!\n|[ \t\r]*$|[ \t\r]+#)", re.MULTILINE)  # "\n": a fast literal search
#: A ``---`` line followed by more than spaces: text to Go's ``YAMLReader`` before v0.22.0.
_SEPARATOR_TEXT = re.compile(r"\n---[^\n]*?\S")  # "\n": a fast literal search
_ODD_SEPARATOR_REST = re.compile(r"---(?![ \t\r]*$|[ \t\r]+#)", re.MULTILINE)


@dataclass(slots=True)
class GoChunks:
    """A YAML stream cut as Argo CD cuts it (:func:`go_yaml_chunks`): ``spans`` are the ``(start,
    end)`` offsets of each chunk, in order (a separator line that ends a chunk belongs to none);
    ``invalid`` the ``(offset, text after ---)`` of each line Go refuses as a separator; ``simple``
    is True when libyaml, reading the whole range with one parser, finds exactly these documents (no
    other document marker, every separator one libyaml sees too): the fast path."""

    spans: list[tuple[int, int]]
    invalid: list[tuple[int, str]]
    simple: bool


def go_yaml_chunks(text: str, begin: int = 0, end: int | None = None, buffered: bool = False) -> GoChunks:
    """``text[begin:end]`` cut into documents by k8s.io/apimachinery ``pkg/util/yaml/decoder.go``
    ``YAMLReader.Read`` (v0.36.1, the rule since v0.22.0): reading line by line (lines end at
    ``\\n`` only), a line whose first 3 bytes are ``---`` is a separator when what follows, Go's
    ``strings.TrimSpace``'d, is empty or starts with ``#``; anything else after ``---`` is a
    ``YAMLSyntaxError`` "invalid Yaml document separator: <rest>" that fails the whole stream. A
    separator ends the chunk read so far only when that chunk holds bytes (a blank line counts);
    met with an empty buffer, it is written into the chunk, where go-yaml reads it as text (a
    ``---#: "`` line there is a key). ``buffered``: the stream already holds bytes before ``begin``
    (``helm template`` prints ``# Source: <template>`` before each template's documents).

    Argo CD cuts every stream so (kube ``SplitYAML`` in gitops-engine ``pkg/utils/kube/kube.go``
    for ``helm template``, ``kustomize build`` and plugin output; ``splitYAMLOrJSON`` in
    ``reposerver/repository/repository.go`` for a directory's files), then reads each chunk with
    sigs.k8s.io/yaml, which keeps only the chunk's first YAML document (go-yaml v2 ``Unmarshal``
    parses one). libyaml needs a blank after ``---`` and also ends documents at ``...`` lines and
    at markers after a CR, NEL, LS or PS break, so it cannot be trusted to cut the stream: a
    quoted scalar after ``---#`` would swallow the next object that Argo CD applies."""
    end = len(text) if end is None else end
    spans: list[tuple[int, int]] = []
    invalid: list[tuple[int, str]] = []
    simple = cuts_like_libyaml(text, begin, end)
    start = begin
    first = _GO_SEPARATOR_REST.match(text, begin, end)  # the stream's first line, where it starts
    later = _GO_SEPARATOR_LINE.finditer(text, begin + 1, end)
    for match in itertools.chain((first,) if first else (), later):
        at = match.start()
        rest = match.group(1)
        if rest:
            trimmed = go_trim_space(rest)
            if trimmed and trimmed[0] != "#":
                invalid.append((at, trimmed))
                spans.append((start, at))  # Go stops here; hooklint reads on, one HL001 for the line
                start = min(match.end() + 1, end)
                continue
        if at > start or (buffered and at == begin):
            spans.append((start, at))
            start = min(match.end() + 1, end)
        elif match.end() == end:  # the last line, in an empty chunk: Go reads nothing more
            spans.append((start, at))
            start = end
    spans.append((start, end))
    return GoChunks(spans, invalid, simple)


def cuts_like_libyaml(text: str, begin: int = 0, end: int | None = None) -> bool:
    """Whether libyaml, reading ``text[begin:end]`` with one parser, ends documents exactly where
    Go's ``YAMLReader`` does (:func:`go_yaml_chunks`): every ``---`` line is followed by nothing, or
    by a blank and maybe a comment, and no ``...`` line or marker after a CR, NEL, LS or PS break
    ends a document for libyaml alone. A few substring searches: the check of every file read."""
    end = len(text) if end is None else end
    if begin and text[begin - 1] not in _LIBYAML_BREAKS and text.startswith(("---", "..."), begin):
        return False  # a marker where the text after a JSON value starts (column 0 for libyaml's window)
    if (text.startswith("---", begin) and _ODD_SEPARATOR_REST.match(text, begin, end)) or \
            ("\n---" in text and _ODD_SEPARATOR.search(text, max(begin - 1, 0), end)):  # fmt: skip
        return False  # ---#, ---<U+3000>, ---x: a separator (or an error) for Go, text for libyaml
    breaks = "\r\x85\u2028\u2029" if not text.isascii() else "\r"
    if text.startswith("...") or "\n..." in text or any(b + m in text for b in breaks for m in ("---", "...")):
        return _LIBYAML_ONLY_MARKER.search(text, begin, end) is None
    return True


#: How HL001 for a line ``---<text>`` Argo CD refuses begins (:func:`invalid_separator`).
INVALID_SEPARATOR = "invalid Yaml document separator: "


def invalid_separator(rest: str) -> str:
    """HL001's message for a line ``---<rest>`` Argo CD refuses (:func:`go_yaml_chunks`)."""
    return (f"{INVALID_SEPARATOR}{shown(rest)}: a line that starts with '---' separates documents "
            "for Argo CD (k8s.io/apimachinery YAMLReader), and only spaces or a '#' comment may follow it, so "
            "Argo CD fails to read the whole source; put the text on its own line after a '---' line")  # fmt: skip


class _Window:
    """``read()`` over ``data[start:end]`` for libyaml, so that parsing can resume in the middle of
    a file without copying the rest of it."""

    __slots__ = ("data", "at", "end")

    def __init__(self, data: bytes, start: int, end: int):
        self.data, self.at, self.end = data, start, end

    def read(self, size: int = -1) -> bytes:
        at = self.at
        stop = self.end if size < 0 else min(at + size, self.end)
        self.at = stop
        return self.data[at:stop]


class _FileParser:
    """One file's text -> documents and load issues (see :func:`parse_text`)."""

    def __init__(self, path: str, text: str, sources: bool = False, budget: NodeBudget | None = None,
                 buffered: bool = False):  # fmt: skip
        self.path = path
        self.text = text
        self.positions = Positions(text)
        self.loaded = LoadedFile(path)
        self.index = 0  # next document index
        self.failures = 0
        self._starts: list[int] | None = None
        self._chunks: GoChunks | None = None
        self._buffered = buffered
        self._begin = 0
        self.simple = True  # libyaml cuts the text as Go does (set by cut)
        self._sources: dict[int, tuple[str, int] | None] = {}
        self._has_sources = sources and "Source:" in text
        self._data: bytes | None = None
        self._byte_cursors = {"start": (0, 0), "end": (0, 0)}
        self._ascii: bool | None = None
        self.budget = budget or NodeBudget()  # YAML nodes the rest of the file (or rendering) may hold

    @property
    def chunks(self) -> GoChunks:
        """The text cut as Argo CD cuts it (:func:`go_yaml_chunks`; :meth:`run` cuts again after
        the JSON values that open it)."""
        if self._chunks is None:
            self._chunks = go_yaml_chunks(self.text, self._begin, buffered=self._buffered)
        return self._chunks

    def cut(self, begin: int) -> None:
        """Cut the text from ``begin`` on (after the JSON values that open it): only whether libyaml
        cuts it as Go does (:func:`cuts_like_libyaml`) is found now, the chunks when first asked for."""
        self._begin = begin
        self._chunks = self._starts = None
        self.simple = cuts_like_libyaml(self.text, begin)

    @property
    def starts(self) -> list[int]:
        """Where each chunk's region starts: at the separator line before it (where libyaml's
        document starts), the first at the cut."""
        if self._starts is None:
            spans = self.chunks.spans
            self._starts = [self._begin] + [spans[i - 1][1] for i in range(1, len(spans))]
        return self._starts

    def chunk_of(self, index: int) -> int:
        return bisect_right(self.starts, index) - 1

    def chunk_end(self, chunk: int) -> int:
        starts = self.starts
        return starts[chunk + 1] if chunk + 1 < len(starts) else len(self.text)

    def source_of(self, start: int) -> tuple[str, int] | None:
        """(template name, line of its ``# Source:`` comment) for the document at ``start``."""
        if not self._has_sources:
            return None
        chunk = self.chunk_of(start)
        if chunk not in self._sources:
            begin = self.chunks.spans[chunk][0]
            match = _HELM_SOURCE.search(self.text, begin, _first_content(self.text, begin, self.chunk_end(chunk)))
            self._sources[chunk] = (match.group(1), self.positions.line_col(match.start())[0]) if match else None
        return self._sources[chunk]

    def byte_offset(self, index: int, cursor: str) -> int:
        """UTF-8 offset of character ``index``; each cursor is asked for growing offsets only."""
        if self._ascii is None:
            self._ascii = self.text.isascii()
        if self._ascii:
            return index
        char, byte = self._byte_cursors[cursor]
        if index < char:
            char = byte = 0
        byte += len(self.text[char:index].encode("utf-8", "surrogatepass"))
        self._byte_cursors[cursor] = (index, byte)
        return byte

    def fail(self, exc: YamlSyntaxError | DocumentTooComplex) -> bool:
        """Record an unreadable document. False once the file has too many of them."""
        kind = TOO_COMPLEX if isinstance(exc, DocumentTooComplex) else SYNTAX_ERROR
        detail = str(exc)
        if self.index > 0 and "expected <document start>" in detail and self.path.lower().endswith(".json"):
            # repository.go getObjsFromYAMLOrJSON: decoder.More() after the first JSON value
            detail = ("a second JSON value after the first object: Argo CD reads one object per .json file "
                      "(\"Found multiple objects ... Only single objects are allowed in JSON files\")")  # fmt: skip
        self.loaded.issues.append((LoadIssue(kind, exc.span, detail), self.index))
        self.index += 1
        self.failures += 1
        if self.failures < MAX_SYNTAX_ERRORS:
            return True
        self.loaded.issues.append((LoadIssue(TOO_MANY_ERRORS, exc.span, str(MAX_SYNTAX_ERRORS)), self.index))
        return False

    def skim(self) -> LoadedFile:
        """What the text says of the file before it is parsed (its skip marker, whether it looks
        like a manifest or may hold an object), with no document read."""
        written = self.text
        # Parsed all the same: a kustomization may list the file, and kustomize renders it (the
        # marker only counts in a directory source), so its findings need their positions.
        self.loaded.has_skip_marker = SKIP_FILE_RENDERING_MARKER in written
        # A .json file is decoded with json.Unmarshal, whose errors always fail the application;
        # only YAML gets the "unrelated file" pass (repository.go findManifests).
        is_json = self.path.lower().endswith(".json")
        self.loaded.looks_like_manifest = is_json or all(marker in written for marker in _MANIFEST_MARKERS)
        self.loaded.may_hold_object = is_json or any(sign in written for sign in _OBJECT_SIGNS)
        self.loaded.bom_inside = "\ufeff" in written
        return self.loaded

    def run(self) -> LoadedFile:
        self.skim()
        written = self.text
        is_json = self.path.lower().endswith(".json")
        self._written, self._written_positions = written, self.positions
        self._moved: list[int] = []  # go_json_surrogates: where the text got shorter
        one = json_file_value(written) if is_json else None  # Go reads the first value, then looks past it
        after = one[2] if one is not None else len(written)
        if is_json:
            values = [(1 if written.startswith("\ufeff") else 0, len(written) if one is None else one[1])]
        else:
            values = json_stream_values(written)
        json_end = values[-1][1] if values else 0
        if json_end and "\\u" in written:
            self.text, self._moved = go_json_surrogates(written, json_end)
            if self._moved:
                self.positions = Positions(self.text, moved=(written, self._moved))
                ends = [point + 2 * (n + 1) for n, point in enumerate(self._moved)]  # as written
                values = [(a - 2 * bisect_right(ends, a), b - 2 * bisect_right(ends, b)) for a, b in values]
                after -= 2 * bisect_right(ends, after)
        text = self.text
        begin = 1 if text.startswith("\ufeff") else 0  # a BOM left in the text is not content
        end = len(text)
        # Go's encoding/json reads these values (one, the whole file, in a .json file); in a YAML
        # file, from the first it refuses on, NewYAMLOrJSONDecoder reads the rest as YAML
        issues = len(self.loaded.issues)
        for start, stop in values:
            if not self.parse_json(start, stop):
                return self.loaded
            begin = stop
        if is_json and one is None and not any(issue.kind in (SYNTAX_ERROR, TOO_COMPLEX)
                                               for issue, _ in self.loaded.issues[issues:]):  # fmt: skip
            # libyaml read what Go's reader refuses (a comment, a trailing comma, "---", 1e400, nothing)
            at, why = go_json_refusal(written)
            if self._moved:
                at -= 2 * bisect_right([point + 2 * (n + 1) for n, point in enumerate(self._moved)], at)
            self.loaded.issues.append((LoadIssue(SYNTAX_ERROR, self.positions.point(at), why), 0))
            return self.loaded
        if one is not None:
            if written[one[0]] in "{n":  # an object or null: any other value fails before More()
                self.after_json_value(after)
            return self.loaded
        self.cut(begin)
        not_yaml = _not_yaml(text)
        bad = self.next_refused(not_yaml, begin)
        for at, rest in () if self.simple else self.chunks.invalid:  # Go's YAMLReader refuses the line: Argo CD reads nothing more
            while bad is not None and bad.start() < at:
                if not self.refuse(begin, bad.start()):
                    return self.loaded
                begin = self.chunk_end(self.chunk_of(bad.start()))
                bad = self.next_refused(not_yaml, begin)
            if at < begin:
                continue
            if not self.parse(begin, at) or not self.fail(YamlSyntaxError(invalid_separator(rest), self.positions.point(at))):
                return self.loaded
            begin = self.chunks.spans[self.chunk_of(at)][0]  # the chunk after the line
            if bad is not None and bad.start() < begin:
                bad = self.next_refused(not_yaml, begin)
        while bad is not None:
            if not self.refuse(begin, bad.start()):
                return self.loaded
            begin = self.chunk_end(self.chunk_of(bad.start()))
            bad = self.next_refused(not_yaml, begin)
        self.parse(begin, end)
        if "---" in text:
            self.older_separators(self._begin)
        return self.loaded

    def older_separators(self, begin: int) -> None:
        """A SEPARATOR_TEXT issue at each ``---`` line followed by more than spaces: a separator (or
        an error) to Argo CD from 2.2.0 on, text in the document before (:func:`go_yaml_chunks`)."""
        text = self.text
        first = [begin - 1] if text.startswith("---", begin) else []  # the stream's first line
        for at in itertools.chain(first, (m.start() for m in _SEPARATOR_TEXT.finditer(text, begin))):
            at += 1
            if at >= begin:
                line_end = text.find("\n", at)
                rest = go_trim_space(text[at + 3 : len(text) if line_end < 0 else line_end])
                if rest:
                    self.loaded.issues.append((LoadIssue(SEPARATOR_TEXT, self.positions.point(at), rest), self.index))

    def next_refused(self, not_yaml: "re.Pattern[str]", begin: int) -> "re.Match[str] | None":
        """The next character from ``begin`` on that YAML refuses, past those on a separator line
        that ends a chunk (Go's ``YAMLReader`` drops the line: no YAML reader sees it)."""
        bad = not_yaml.search(self.text, begin)
        while bad is not None and not self.simple:
            chunk = self.chunk_of(bad.start())
            start = self.chunks.spans[chunk][0]
            if bad.start() >= start:
                break
            bad = not_yaml.search(self.text, start)
        return bad

    def refuse(self, begin: int, at: int) -> bool:
        """Parse the chunks from ``begin`` up to the one holding the character at ``at``, which no
        YAML reader takes, and record that one as unreadable. False once the file has too many."""
        if not self.parse(begin, self.starts[self.chunk_of(at)]):
            return False
        return self.fail(YamlSyntaxError(_refused(self.text[at]), self.positions.point(at)))

    def parse_json(self, begin: int, end: int) -> bool:
        """Parse ``text[begin:end]``, a JSON value Argo CD decodes with Go's ``encoding/json``: with
        libyaml, and where libyaml refuses it, with :func:`hooklint.gojsonread.read_value`, which
        reads it as Go does (a line break before a ``:``, a key past 1,024 characters, a raw DEL or
        C1 control, nesting past :data:`~hooklint.yamlio.MAX_DEPTH`). Only where Go fails too does
        libyaml's error stay. False when the file has too many unreadable documents."""
        loaded = self.loaded
        issues, index, failures, documents = len(loaded.issues), self.index, self.failures, len(loaded.documents)
        bad = _not_yaml(self.text).search(self.text, begin, end)  # libyaml would only say where the value starts
        go_on = True if bad is not None else self.parse_stream(begin, end)
        if self.budget.spent or len(loaded.documents) > documents:  # read (or the file's nodes spent)
            for at in range(issues, len(loaded.issues)):
                issue = loaded.issues[at][0]
                if issue.kind == TOO_COMPLEX and issue.detail == too_deep("go-yaml"):
                    issue.detail = too_deep("Go's JSON reader")
            return go_on
        moved = self._moved
        start, stop = begin + 2 * bisect_right(moved, begin), end + 2 * bisect_right(moved, end)  # as written
        try:
            value, found, nodes, value_end = read_value(self._written, start, stop, self._written_positions,
                                                        self.budget.left)
        except NotGoJSON:
            if bad is None:
                return go_on
            return self.fail(YamlSyntaxError(_refused(self.text[bad.start()]), self.positions.point(bad.start())))
        del self.loaded.issues[issues:]
        del self.loaded.documents[documents:]
        self.index, self.failures = index, failures
        self.budget.left -= nodes
        runnodes.spend(nodes)  # the run's node budget (max-run-nodes)
        self.loaded.issues.extend((issue, index) for issue in found)
        document = Document(self.path, index, value)
        if not isinstance(value, (Map, Seq)):  # a scalar or null (a .json file's: HL003) is where it is written
            value_start = start
            while self._written[value_start] in " \t\r\n":  # encoding/json's whitespace before it
                value_start += 1
            document.span = self._written_positions.span(value_start, value_end)
        self.loaded.documents.append(document)
        self.index += 1
        return True

    def after_json_value(self, at: int) -> None:
        """Record what follows a ``.json`` file's one value, at ``text[at]`` (its first character
        that is not whitespace), as Argo CD reads it (``reposerver/repository/repository.go``
        ``getObjsFromYAMLOrJSON``, v3.5.1): after decoding the value, ``decoder.More()`` (Go's
        ``encoding/json`` ``stream.go``) is false at the end of the file and before ``]`` or ``}``,
        true before anything else, which fails the application ("Found multiple objects"): a
        SYNTAX_ERROR (HL001). ``]`` or ``}`` is a JSON_CLOSER_AFTER issue, HL001 only for the Argo
        CD releases that read the file with ``json.Unmarshal`` (``argocd.BEHAVIOURS``
        ``json-one-value``). Only a value Argo CD decodes gets here: an object, or ``null`` (the OCI
        image manifest fallback of 3.1.0 takes it); any other value fails before ``More``."""
        text = self.text
        if at >= len(text):
            return
        if text[at] in "]}":
            self.loaded.issues.append((LoadIssue(JSON_CLOSER_AFTER, self.positions.point(at), text[at]), self.index))
            return
        what = "a second JSON value" if text[at] in '{["' else f"{text[at]!r}"
        detail = (f"{what} after the first object: Argo CD reads one object per .json file (\"Found multiple "
                  "objects ... Only single objects are allowed in JSON files\")")  # fmt: skip
        self.loaded.issues.append((LoadIssue(SYNTAX_ERROR, self.positions.point(at), detail), self.index))

    def parse(self, begin: int, end: int) -> bool:
        """Parse ``text[begin:end]`` (whole chunks of :attr:`chunks`), resuming after each
        unreadable document. Where libyaml would cut the text as Go does, one parser reads it all
        (:meth:`parse_stream`); else each chunk is read alone, its first document only, as
        sigs.k8s.io/yaml reads it. False when the file has too many unreadable documents."""
        if self.simple:
            return self.parse_stream(begin, end)
        chunks = self.chunks
        for start, stop in chunks.spans[self.chunk_of(begin) if begin >= self.starts[0] else 0 :]:
            start, stop = max(start, begin), min(stop, end)
            if start >= end:
                break
            if start < stop and not self.parse_first(start, stop):
                return False
        return True

    def parse_first(self, begin: int, end: int) -> bool:
        """Parse the first document of ``text[begin:end]``, one chunk Go's ``YAMLReader`` cut:
        go-yaml v2's ``Unmarshal`` (under sigs.k8s.io/yaml) reads one document and never looks at
        the rest (a ``...`` line ends it). False when the file has too many unreadable documents."""
        try:
            for doc in iter_documents(new_parser(self.window(begin, end)), self.positions, begin, self.budget):
                self.add(doc)
                break
        except (YamlSyntaxError, DocumentTooComplex) as exc:
            return self.fail(exc) and not isinstance(exc, FileTooComplex)
        return True

    def window(self, begin: int, end: int) -> Any:
        """What libyaml reads for ``text[begin:end]``: the text itself when it is the whole text."""
        if begin == 0 and end == len(self.text):
            return self.text
        if self._data is None:
            self._data = self.text.encode("utf-8", "surrogatepass")
        return _Window(self._data, self.byte_offset(begin, "start"), self.byte_offset(end, "end"))

    def add(self, doc: ParsedDocument) -> None:
        """Record one parsed document (``None`` as its value: an empty one, counted, not kept)."""
        for issue in doc.issues:
            self.loaded.issues.append((issue, self.index))
        if doc.value is not None:
            source = self.source_of(doc.start)
            # a mapping or sequence knows where it is: its parsed document is not kept
            # (a file of 40,000 documents: about 10 MB)
            container = doc.value.__class__ is Map or doc.value.__class__ is Seq
            document = Document(self.path, self.index, doc.value, None, source and source[0],
                                None if container else doc)  # fmt: skip
            document.source_line = source[1] if source else 0
            self.loaded.documents.append(document)
        self.index += 1

    def parse_stream(self, begin: int, end: int) -> bool:
        """Parse ``text[begin:end]`` with one parser, resuming at the next chunk after each
        unreadable document. False when the file has too many unreadable documents."""
        while begin < end:
            parser = new_parser(self.window(begin, end))
            try:
                for doc in iter_documents(parser, self.positions, begin, self.budget):
                    self.add(doc)
                return True
            except (YamlSyntaxError, DocumentTooComplex) as exc:
                if not self.fail(exc) or isinstance(exc, FileTooComplex):
                    return False
                where = exc.doc_start if exc.doc_start is not None else exc.index
                begin = self.chunk_end(self.chunk_of(max(where, begin)))
        return True


IGNORE_COMMENT = re.compile(r"(?:^|(?<=\s))#[ \t]*hooklint:[ \t]*ignore\[([^\]\n]*)\][ \t]*([^\n]*)")


def ignore_comments(text: str) -> list[tuple[int, int, tuple[str, ...], str | None, bool]]:
    """The ``# hooklint: ignore[HL203] reason`` comments of ``text``: (line, column, names, reason,
    alone on its line), 1-based. Names are separated by commas or spaces."""
    if "hooklint:" not in text:
        return []
    out = []
    for match in IGNORE_COMMENT.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        line = text.count("\n", 0, match.start()) + 1
        names = tuple(match.group(1).replace(",", " ").split())
        reason = match.group(2).strip() or None
        alone = not text[line_start : match.start()].strip()
        out.append((line, match.start() - line_start + 1, names, reason, alone))
    return out


def parse_text(path: str, text: str, sources: bool | None = None, budget: NodeBudget | None = None,
               documents: bool = True, continued: bool = False) -> LoadedFile:  # fmt: skip
    """Parse a whole file's text into documents, collecting the load issues of each document.

    The text is cut into documents as Argo CD cuts it (:func:`go_yaml_chunks`: Go's
    ``YAMLReader`` line rule, before any YAML is parsed), each chunk's first document read at its
    own offset; where libyaml would cut it alike, one parser reads it all. A line ``---x`` Argo CD
    refuses is HL001 there. A document that cannot be read (HL001) does not hide the others:
    parsing resumes at the next chunk. Never raises for bad input. A file with Argo CD's
    skip-file-rendering marker is parsed too, with ``has_skip_marker`` set. Its
    ``# hooklint: ignore[...]`` comments are in ``ignore_comments``.

    ``sources``: map each document after a ``# Source: chart/templates/x.yaml`` comment to that
    template (``Document.source``, lines counted from the comment). None means only for stdin
    (``-``), which carries piped ``helm template`` output: a file on disk is reported under its own
    path and line numbers, whatever comments it holds.

    ``budget``: the YAML nodes the text may hold (:class:`~hooklint.yamlio.NodeBudget`; a file's
    own :data:`~hooklint.yamlio.MAX_NODES` when not given), shared by the texts of one whole: the
    objects of one rendering. Once it is spent (``budget.spent``) the text stops there with one
    HL001, as a file does.

    ``documents=False``: the file as parsing would give it but with no document read and no load
    issue (its skip marker, its ignore comments): for a caller that replaces both (an
    Application's file where a source fetched from elsewhere is noted).

    ``continued``: the text follows bytes of the same stream (a Helm template's documents, which
    ``helm template`` prints after a ``# Source:`` line), so a separator line opening it ends a
    chunk instead of being read as text."""
    parser = _FileParser(path, text, path == STDIN if sources is None else sources, budget, continued)
    loaded = parser.run() if documents else parser.skim()
    loaded.ignore_comments = ignore_comments(text)
    return loaded


def _first_content(text: str, begin: int = 0, end: int | None = None) -> int:
    """Offset of the first line of ``text[begin:end]`` that is neither blank, a comment nor a
    document marker."""
    end = len(text) if end is None else end
    pos = begin
    while pos < end:
        newline = text.find("\n", pos, end)
        line_end = end if newline < 0 else newline + 1
        stripped = text[pos:line_end].strip()
        if stripped and not stripped.startswith("#") and stripped != "---":
            return pos
        pos = line_end
    return end


def read_file(path: str, max_size: int = DEFAULT_MAX_FILE_SIZE, documents: bool = True) -> LoadedFile:
    """Read and parse one file (``-`` for stdin). Never raises for bad input: a file that cannot be
    read or decoded comes back with ``error`` set and no documents, and so does an empty stdin
    (never a silent pass when the command feeding the pipe failed).

    Only regular files are read, with one exception: a pipe named through ``/dev/`` or ``/proc/``
    (``/dev/stdin``, process substitution: ``hooklint lint <(helm template .)``) is read to its end,
    and, like stdin, is an error when it is empty (the command writing to it failed). Any other
    FIFO, a socket or a device (``/dev/null``, ``/dev/zero``) is refused without a blocking read (a
    FIFO without a writer would wait forever). ``documents=False``: read, but no document parsed
    (:func:`parse_text`)."""
    try:
        if path == STDIN:
            data = sys.stdin.buffer.read(max_size + 1)
        else:
            data = read_bytes(path, max_size, streams=is_stream(path))
    except NotRegularFile as exc:
        return LoadedFile(path, error=InputError(path, str(exc)))
    except FileTooLarge:
        return _too_large(path, max_size)
    except OSError as exc:
        return LoadedFile(path, error=InputError(path, os_error_text(path, exc)))
    except (ValueError, AttributeError) as exc:  # a closed or missing stdin
        return LoadedFile(path, error=InputError(path, f"cannot read: {exc}"))
    if len(data) > max_size:
        return _too_large(path, max_size)
    if path == STDIN and not data.strip():  # `helm template ... | hooklint lint -` whose first command failed
        return LoadedFile(path, error=InputError(path, "standard input is empty: nothing to lint (did the command "
                                                       "writing to the pipe fail?)"))  # fmt: skip
    if is_stream(path) and not data.strip() and _is_pipe(path):  # `lint <(false)`
        return LoadedFile(path, error=InputError(path, "the pipe is empty: nothing to lint (did the command "
                                                       "writing to it fail?)"))  # fmt: skip
    return parse_bytes(path, data, documents)


def parse_bytes(path: str, data: bytes, documents: bool = True) -> LoadedFile:
    """:func:`parse_text` of ``data`` (the bytes of ``path``, already read) decoded as Kubernetes'
    YAML reader decodes them (:func:`decode_manifest`); a file that does not decode comes back with
    ``error`` set and no documents. Never raises for bad input."""
    try:
        text = decode_manifest(data)
    except FileRejected as exc:
        return LoadedFile(path, error=InputError(path, str(exc)))
    return parse_text(path, text, documents=documents)


def _too_large(path: str, max_size: int) -> LoadedFile:
    """An input error, and a file not linted (``skip_reason``): reports count and list it as skipped."""
    return LoadedFile(
        path,
        error=InputError(path, f"larger than max-file-size ({max_size:,} bytes); not linted"),
        skip_reason=Skip(f"larger than max-file-size ({max_size:,} bytes)", SkipKind.TOO_LARGE),
    )


#: A ``\\u`` escape (after an even run of backslashes: an escape, not an escaped backslash) of a
#: high surrogate with the low one that pairs it, or of a surrogate that pairs with nothing.
_SURROGATE_ESCAPE = re.compile(
    r"(?<!\\)((?:\\\\)*)\\u([dD][89abAB][0-9a-fA-F]{2})(\\u[dD][c-fC-F][0-9a-fA-F]{2})?"
    r"|(?<!\\)((?:\\\\)*)\\u([dD][c-fC-F][0-9a-fA-F]{2})")
#: What Go's ``unicode.IsSpace`` calls space among the characters that may open a file (Latin-1
#: range and the Z category), which ``hasJSONPrefix`` trims before looking for ``{``.
_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
            "\u2028\u2029\u202f\u205f\u3000"
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]]')


def _refuse(literal: str) -> float:
    raise ValueError(f"Go's encoding/json refuses {literal}")


def _go_float(literal: str) -> float:
    number = float(literal)
    if math.isinf(number):
        _refuse(literal)
    return number


def _go_int(literal: str) -> int:
    if len(literal) > 300:  # past int64, Go reads it as a float64 (hooklint.gojsonread._number)
        _go_float(literal)
    return int(literal)


#: Python's JSON reader, refusing what Go's refuses and Python takes (``NaN``, ``Infinity``,
#: ``1e400``, an integer past float64's range: k8s.io/apimachinery ``ConvertMapNumbers`` fails on
#: a float out of range).
_GO_LIKE_JSON = json.JSONDecoder(parse_constant=_refuse, parse_float=_go_float, parse_int=_go_int)
#: k8s.io/apimachinery ``NewYAMLOrJSONDecoder(reader, 4096)``: how far ``GuessJSONStream`` peeks.
_JSON_PEEK = 4096


def json_file_value(text: str) -> tuple[int, int, int] | None:
    """Where Go's ``encoding/json`` ``Decoder`` reads the one value of a ``.json`` file's ``text``
    (as written): ``(start, end, after)``, the value being ``text[start:end]`` and ``after`` the
    offset of the first character after it that is not whitespace (``len(text)`` when none); None
    when Go refuses the value. Argo CD decodes one value and asks ``decoder.More()``
    (``reposerver/repository/repository.go`` ``getObjsFromYAMLOrJSON``, v3.5.1); whitespace is
    ``encoding/json``'s own: space, tab, CR, LF (``isSpace``), after the BOM ``utfutil`` removes.
    Python's JSON reader, told to refuse what Go refuses, stands for Go's; past its recursion
    limit, :func:`hooklint.gojsonread.read_value` decides."""
    start = 1 if text.startswith("\ufeff") else 0
    while start < len(text) and text[start] in " \t\r\n":
        start += 1
    try:
        end = _GO_LIKE_JSON.raw_decode(text, start)[1]
    except RecursionError:  # deeper than Python reads: Go reads 10,000 levels
        try:
            end = read_value(text, start, len(text), Positions(text), MAX_NODES, whole=False)[3]
        except NotGoJSON:
            return None
    except ValueError:
        return None
    after = end
    while after < len(text) and text[after] in " \t\r\n":
        after += 1
    return start, end, after


def go_json_refusal(text: str) -> tuple[int, str]:
    """Where and why Go's ``encoding/json`` refuses the value of a ``.json`` file's ``text`` (as
    written), one :func:`json_file_value` finds none in: ``(offset, what is wrong)``, from Python's
    JSON reader standing for Go's (the value's start for a number or constant Go refuses: ``1e400``,
    ``NaN``). Argo CD fails the application: "Failed to unmarshal" (``getObjsFromYAMLOrJSON``)."""
    start = 1 if text.startswith("\ufeff") else 0
    while start < len(text) and text[start] in " \t\r\n":
        start += 1
    if start >= len(text):
        return start, "the file holds no JSON value, and Argo CD reads one object from a .json file (Go: EOF)"
    try:
        _GO_LIKE_JSON.raw_decode(text, start)
    except json.JSONDecodeError as exc:
        return exc.pos, f"Go's JSON reader, which Argo CD reads a .json file with, refuses this ({exc.msg})"
    except (ValueError, RecursionError) as exc:
        return start, f"{exc}, the JSON reader Argo CD reads a .json file with"
    return start, "Go's JSON reader, which Argo CD reads a .json file with, refuses this value"


def json_stream_end(text: str) -> int:
    """Where the JSON values Go reads that open ``text`` (a YAML file's) end, 0 when it opens with
    none (see :func:`json_stream_values`)."""
    values = json_stream_values(text)
    return values[-1][1] if values else 0


def json_stream_values(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each JSON value that opens ``text`` (a YAML file's, as written) and that
    Go's ``encoding/json`` reads, whitespace after it included; none when it opens with no ``{``.

    Argo CD reads a YAML file with ``splitYAMLOrJSON`` (``reposerver/repository/repository.go``,
    v3.5.1): k8s.io/apimachinery ``pkg/util/yaml`` ``NewYAMLOrJSONDecoder(reader, 4096)`` peeks at
    4,096 bytes and, when their first non-space character is ``{`` (``GuessJSONStream``,
    ``hasJSONPrefix``), decodes the stream with Go's ``encoding/json`` one value after another,
    turning to sigs.k8s.io/yaml for the rest of the stream at the first value JSON refuses (a Helm
    template's ``{{``, a YAML flow mapping). Those values are read as Go reads them
    (:func:`go_json_surrogates`, :mod:`hooklint.gojsonread`); the rest of the file is YAML. Python's
    JSON reader, told to refuse what Go refuses (``NaN``, ``1e400``), stands for Go's; past its
    recursion limit, :func:`hooklint.gojsonread.read_value` decides."""
    begin = 1 if text.startswith("\ufeff") else 0  # utfutil removes the BOM
    start = begin
    while start < len(text) and text[start] in _GO_SPACE:
        start += 1
    if start >= len(text) or text[start] != "{" or len(text[begin:start].encode("utf-8", "surrogatepass")) >= _JSON_PEEK:
        return []  # fmt: skip
    values: list[tuple[int, int]] = []
    end = start
    while end < len(text) and text[end] == "{":  # values one after another: {...}{...}
        start = end
        try:
            end = _GO_LIKE_JSON.raw_decode(text, start)[1]
        except RecursionError:  # deeper than Python reads: Go reads 10,000 levels
            try:
                end = read_value(text, start, len(text), Positions(text), MAX_NODES, whole=False)[3]
            except NotGoJSON:
                return values
        except ValueError:
            return values
        while end < len(text) and text[end] in " \t\r\n":  # encoding/json's whitespace
            end += 1
        values.append((start, end))
    return values


def go_json_surrogates(text: str, end: int | None = None) -> tuple[str, list[int]]:
    """``text`` with each ``\\u`` escape of a UTF-16 surrogate in ``text[:end]`` (JSON: a ``.json``
    file, the JSON values opening a YAML file, :func:`json_stream_end`) written as Go's
    ``encoding/json`` decodes it (``unquote``: a pair is one character, one that pairs with nothing
    is ``utf8.RuneError``, U+FFFD), since libyaml refuses any such escape ("found invalid Unicode
    character escape code") and go-yaml refuses it too, but Go's JSON reader, which Argo CD uses on
    these documents, does not. A pair ``\\ud83d\\ude00`` becomes ``\\U0001f600``, 2 characters shorter:
    returns the new text and, for each pair, the offset in the new text just after its escape
    (:class:`~hooklint.yamlio.Positions` ``moved`` maps offsets back to the text as written)."""
    moved: list[int] = []
    shift = 0

    def fixed(match: re.Match) -> str:
        nonlocal shift
        if match.group(2) is not None:
            if not match.group(3):
                return f"{match.group(1)}\\ufffd"
            high, low = int(match.group(2), 16), int(match.group(3)[2:], 16)
            point = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
            out = f"{match.group(1)}\\U{point:08x}"
            shift += 2
            moved.append(match.end() - shift)
            return out
        return f"{match.group(4)}\\ufffd"

    stop = len(text) if end is None else end
    return _SURROGATE_ESCAPE.sub(fixed, text[:stop]) + text[stop:], moved


def _is_pipe(path: str) -> bool:
    """Whether ``path`` (already read) is a FIFO: process substitution, a pipe into ``/dev/stdin``."""
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except (OSError, ValueError):
        return True  # the descriptor is gone once read: a pipe it was


def user_path(path: str) -> str:
    """``path`` (absolute) relative to the current directory when it lies inside it, as a user
    would type it (``.`` for the current directory itself); else unchanged."""
    cwd = os.getcwd()
    return os.path.relpath(path, cwd) if within(path, cwd) else path


def os_error_text(path: str, exc: OSError) -> str:
    import errno

    if exc.errno == errno.ENOENT:
        if os.path.islink(path):
            return "broken symbolic link"
        return "no such file or directory"
    if exc.errno == errno.ELOOP:
        return "symbolic link loop"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.EISDIR:
        return "is a directory"
    return exc.strerror or str(exc)
