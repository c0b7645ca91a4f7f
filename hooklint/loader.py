"""Paths, directories and stdin -> documents with positions; read and parse errors become findings.

Files are split into documents at ``---`` / ``...`` lines before parsing, so a syntax error in one
document (HL001) does not hide the others: a document marker at column 0 always ends the previous
document in YAML, so the split never cuts through a value.
"""

from __future__ import annotations

import codecs
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Iterable

from hooklint.findings import InputError, Span
from hooklint.yamlio import DocumentTooComplex, Issue, YamlSyntaxError, parse_documents

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024
STDIN = "-"

_DOC_MARKER = re.compile(r"^(?:---|\.\.\.)(?=[ \t\r\n]|$)", re.MULTILINE)
# helm template's "# Source: chart/templates/x.yaml": a relative path, never a URL.
_HELM_SOURCE = re.compile(r"^#\s*Source:\s*([^\s:]+\.(?:ya?ml|json|tpl))\s*$", re.MULTILINE)
#: Argo CD's repo server skips every file whose bytes contain this marker
#: (``reposerver/repository/repository.go`` ``skipFileRenderingMarker``).
SKIP_FILE_RENDERING_MARKER = "+argocd:skip-file-rendering"
_MANIFEST_MARKERS = ("apiVersion:", "kind:", "metadata:")


@dataclass(slots=True)
class Document:
    """One YAML document of a file.

    ``index`` is 0-based within the file; ``value`` is the converted root (a
    :class:`~hooklint.yamlio.Map` for an object); ``source`` names the Helm template from a
    ``# Source:`` comment, when the document carries one."""

    path: str
    index: int
    value: Any
    span: Span
    source: str | None = None


@dataclass(slots=True)
class LoadedFile:
    """A file read and parsed: its documents and the load-time issues (HL001, HL002, HL005)."""

    path: str
    documents: list[Document] = field(default_factory=list)
    issues: list[tuple[Issue, int]] = field(default_factory=list)  # (issue, doc index)
    error: InputError | None = None
    #: The text has ``apiVersion:``, ``kind:`` and ``metadata:``. Argo CD's directory source
    #: ignores a file none of whose documents is an object unless it looks like a manifest this
    #: way (``repository.go`` ``findManifests``: "it might be an unrelated YAML file").
    looks_like_manifest: bool = True
    #: The file carries ``+argocd:skip-file-rendering``: Argo CD never renders it.
    skipped: bool = False


class FileRejected(Exception):
    """The file's bytes are not text Kubernetes would read (binary, bad encoding)."""


def decode_manifest(data: bytes) -> str:
    """Decode a manifest's bytes as Kubernetes' YAML reader would: UTF-8 (with or without BOM) or
    UTF-16/UTF-32 *with* a BOM (go-yaml's ``yaml_parser_determine_encoding``).

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


def split_documents(text: str) -> list[tuple[int, str]]:
    """Split ``text`` at document markers. Returns ``(line_offset, chunk)`` pairs, where
    ``line_offset`` is the 0-based line at which the chunk starts. A ``...`` end marker stays with
    the document it ends; chunks holding only directives are joined to the document they precede."""
    starts = [0]
    for match in _DOC_MARKER.finditer(text):
        pos = match.start()
        if text.startswith("...", pos):
            end = text.find("\n", pos)
            pos = len(text) if end < 0 else end + 1
        if pos != starts[-1]:
            starts.append(pos)
    chunks: list[tuple[int, str]] = []
    line = 0
    carry: tuple[int, str] | None = None
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        chunk = text[start:end]
        offset = line
        line += chunk.count("\n")
        if carry is not None:
            offset, chunk = carry[0], carry[1] + chunk
            carry = None
        if _only_directives(chunk):
            carry = (offset, chunk)
            continue
        chunks.append((offset, chunk))
    if carry is not None:
        chunks.append(carry)
    return chunks


def _only_directives(chunk: str) -> bool:
    has_directive = False
    for raw in chunk.splitlines():
        stripped = raw.strip()
        if stripped.startswith("%"):
            has_directive = True
        elif stripped and not stripped.startswith("#"):
            return False
    return has_directive


def parse_text(path: str, text: str) -> LoadedFile:
    """Parse a whole file's text into documents, collecting HL001/HL002/HL005 issues per document.
    A file with Argo CD's skip-file-rendering marker comes back empty with ``skipped`` set."""
    loaded = LoadedFile(path)
    if SKIP_FILE_RENDERING_MARKER in text:
        loaded.skipped = True
        return loaded
    loaded.looks_like_manifest = all(marker in text for marker in _MANIFEST_MARKERS)
    index = 0
    for offset, chunk in split_documents(text):
        source_match = _HELM_SOURCE.search(chunk, 0, _first_content(chunk))
        source = source_match.group(1) if source_match else None
        try:
            parsed = parse_documents(chunk, offset)
        except (YamlSyntaxError, DocumentTooComplex) as exc:
            loaded.issues.append(
                (Issue("HL001", exc.span, _syntax_message(exc)), index)
            )
            index += 1
            continue
        for doc in parsed:
            for issue in doc.issues:
                loaded.issues.append((issue, index))
            if doc.value is not None:
                loaded.documents.append(Document(path, index, doc.value, doc.span, source))
            index += 1
    return loaded


def _syntax_message(exc: Exception) -> str:
    if isinstance(exc, DocumentTooComplex):
        return f"Document cannot be read safely: {exc}. Simplify the document."
    return (
        f"YAML syntax error: {exc}. Argo CD cannot render this document, so the whole "
        "application fails to sync; fix the YAML."
    )


def _first_content(chunk: str) -> int:
    """Offset of the first line that is neither blank, a comment nor a document marker."""
    pos = 0
    for raw in chunk.splitlines(keepends=True):
        stripped = raw.strip()
        if stripped and not stripped.startswith("#") and stripped != "---":
            return pos
        pos += len(raw)
    return len(chunk)


def read_file(path: str, max_size: int = DEFAULT_MAX_FILE_SIZE) -> LoadedFile:
    """Read and parse one file (``-`` for stdin). Never raises for bad input: a file that cannot be
    read or decoded comes back with ``error`` set and no documents."""
    try:
        if path == STDIN:
            data = sys.stdin.buffer.read(max_size + 1)
        else:
            if os.path.isdir(path):
                return LoadedFile(path, error=InputError(path, "is a directory"))
            with open(path, "rb") as handle:
                data = handle.read(max_size + 1)
    except OSError as exc:
        return LoadedFile(path, error=InputError(path, _os_error_text(path, exc)))
    if len(data) > max_size:
        return LoadedFile(
            path,
            error=InputError(
                path, f"larger than max-file-size ({max_size:,} bytes); not linted"
            ),
        )
    try:
        text = decode_manifest(data)
    except FileRejected as exc:
        return LoadedFile(path, error=InputError(path, str(exc)))
    return parse_text(path, text)


def _os_error_text(path: str, exc: OSError) -> str:
    import errno

    if exc.errno == errno.ENOENT:
        if os.path.islink(path):
            return "broken symbolic link"
        return "no such file or directory"
    if exc.errno == errno.ELOOP:
        return "symbolic link loop"
    if exc.errno == errno.EACCES:
        return "permission denied"
    return exc.strerror or str(exc)


def is_manifest_name(name: str) -> bool:
    return name.lower().endswith(MANIFEST_SUFFIXES)


def walk(root: str, errors: list[InputError]) -> list[str]:
    """Manifest files below ``root`` (``*.yaml``, ``*.yml``, ``*.json``), sorted; hidden files and
    folders are skipped and symbolic links to folders are not followed. Unreadable folders are
    added to ``errors``."""

    def onerror(exc: OSError) -> None:
        where = exc.filename or root
        errors.append(InputError(where, _os_error_text(where, exc)))

    found: list[str] = []
    for folder, dirs, files in os.walk(root, onerror=onerror):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in files:
            if not name.startswith(".") and is_manifest_name(name):
                found.append(os.path.join(folder, name))
    found.sort()
    return found


@dataclass(slots=True)
class Application:
    """What Argo CD syncs as one application: the manifest files of one directory (not its
    subdirectories, like Argo CD's directory source without ``recurse``), or stdin.

    ``reported`` are the files whose findings are shown; ``context`` files are loaded only so that
    cross-object rules see the whole application (pre-commit passes files one by one)."""

    key: str
    reported: list[str]
    context: list[str] = field(default_factory=list)


def group_applications(paths: Iterable[str], errors: list[InputError]) -> list[Application]:
    """Expand command-line paths into applications, in a deterministic order.

    A directory contributes every manifest below it, one application per folder. A file named on
    its own belongs to its folder's application; the folder's other manifests become context. Paths
    that do not exist are added to ``errors``."""
    reported: dict[str, set[str]] = {}
    named_files: set[str] = set()
    for path in paths:
        if path == STDIN:
            reported.setdefault(STDIN, set()).add(STDIN)
            continue
        if os.path.isdir(path):
            for file in walk(path, errors):
                reported.setdefault(os.path.dirname(file), set()).add(file)
        elif os.path.lexists(path):
            reported.setdefault(os.path.dirname(path) or ".", set()).add(path)
            named_files.add(path)
        else:
            errors.append(InputError(path, "no such file or directory"))
    apps: list[Application] = []
    for key in sorted(reported):
        files = sorted(reported[key])
        context: list[str] = []
        if key != STDIN and any(f in named_files for f in files):
            context = _siblings(key, set(files))
        apps.append(Application(key, files, context))
    return apps


def _siblings(folder: str, exclude: set[str]) -> list[str]:
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    norm_exclude = {os.path.normpath(p) for p in exclude}
    out = []
    for name in names:
        full = os.path.join(folder, name)
        if (
            not name.startswith(".")
            and is_manifest_name(name)
            and os.path.normpath(full) not in norm_exclude
            and os.path.isfile(full)
        ):
            out.append(full)
    return out
