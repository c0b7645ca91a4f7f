"""Partial kustomize renderings (issue 22: never blind): the entries of a kustomization that need
the network are left out of hooklint's temporary copy, and the rest is rendered and checked.

What is left out: a ``resources``, ``bases`` or ``components`` entry kustomize would fetch (a URL or
a git repository spec, recognised as kustomize recognises them:
:func:`hooklint.sources.repository.kustomize_spec.fetched_by_kustomize`), and each ``helmCharts`` (or
``helmChartInflationGenerator``) entry, which needs ``kustomize build --enable-helm`` and usually a
chart repository. Argo CD renders all of them (``shared/docs/argocd-rendering.md`` §3; argo-cd
``util/kustomize/kustomize.go`` ``Build`` runs ``kustomize build`` in its checkout with the network,
and passes ``--enable-helm`` when ``kustomize.buildOptions`` has it). hooklint never uses the
network, so it renders the copy without them (:func:`without_entries`), and each becomes an
:class:`~hooklint.sources.render.rendered.Omission` (HL009) where it is written.

Patches and replacements whose target only a left-out entry adds make kustomize fail (v5.5.0
``api/internal/builtins/PatchTransformer.go``: ``no matches for Id Deployment.v1.apps/web.[noNs];
failed to find unique target for patch ...``; ``api/filters/replacement/replacement.go``:
``nothing selected by Deployment.[noVer].[noGrp]/web.[noNs]:metadata.name``), and so do
generators that ``merge`` into or ``replace`` a base's object (``api/resmap/reswrangler.go``
``appendReplaceOrMerge``: ``id ... does not exist; cannot merge or replace``: argocd-autopilot's
``configMapGenerator`` merging into the remote install's ``argocd-cm``). :func:`missing_target`
reads the object kustomize names from such a message and :func:`target_names` says which objects
a patch entry names, so that the renderer drops those entries on the copy too and says so in the
omission (a bounded number of rounds).

Everything here reads text and YAML; nothing runs, nothing is fetched.
"""

from __future__ import annotations

import re
import dataclasses
from dataclasses import dataclass
from typing import Any, Callable

import yaml

from hooklint.gojsonread import go_fold
from hooklint.sources.repository.kustomize_spec import read_kustomization
from hooklint.yamlio import BoundedLoader, go_yaml_scalar

#: Fields whose every entry inflates a Helm chart (kustomize's ``--enable-helm``).
HELM_FIELDS = ("helmCharts", "helmChartInflationGenerator")
#: Fields that configure only the Helm fields, dropped with the last of their entries.
HELM_ONLY = ("helmGlobals",)
#: The patch-like fields whose entries may fail when their target was left out: patches,
#: replacements, and generators that ``merge`` into or ``replace`` an object of a base.
PATCH_FIELDS = ("patches", "patchesStrategicMerge", "replacements", "configMapGenerator", "secretGenerator")
#: The kind each generator field makes.
GENERATED_KIND = {"configMapGenerator": "ConfigMap", "secretGenerator": "Secret"}
#: How many times a failed partial rendering is retried with more entries dropped.
MAX_ROUNDS = 4

_MISSING = re.compile(
    r"(?:no matches for Id|nothing selected by|no resource matches strategic merge patch) \\?\"?"
    r"([A-Za-z0-9]+)\.[^/\s]*/([^\s:;\"\\]+)"
)
#: A generator with ``behavior: merge`` or ``replace`` whose object no base made (v5.5.0
#: ``api/resmap/reswrangler.go`` ``appendReplaceOrMerge``: ``id %#v does not exist; cannot merge or
#: replace``, the id written as ``resid.ResId{Gvk:resid.Gvk{..., Kind:"ConfigMap", ...}, Name:"x", ...}``).
_MISSING_MERGE = re.compile(r'Kind:"([A-Za-z0-9]+)"[^}]*\}, Name:"([^"]*)"[^}]*\} does not exist; cannot merge or replace')
#: ``_MISSING_MERGE`` in two parts (:func:`_missing_merge`): its kind, and what follows the ``}`` after it.
_MERGE_KIND = re.compile(r'Kind:"([A-Za-z0-9]+)"')
_MERGE_NAME = re.compile(r'\}, Name:"([^"]*)"[^}]*\} does not exist; cannot merge or replace')
#: Marks a path (relative to the application folder) inside an omission's text, so that the
#: cached rendering holds no spelling of the folder: :func:`user_paths` replaces it.
_PATH_MARK = "\x00"


@dataclass(slots=True)
class LeftOut:
    """One entry left out of the copy: the kustomization holding it (absolute, as reached),
    ``field`` (the field's name as kustomize reads it), ``index`` in that field's list (None: the
    whole field), its 1-based ``line`` and ``column``, and what the omission says."""

    kustomization: str
    field: str
    index: int | None
    line: int
    column: int
    message: str = ""
    argocd_renders: str = "Argo CD fetches it when it renders the application"
    #: Notes of the patches dropped with it (filled by the renderer's retries).
    dropped: list[str] = dataclasses.field(default_factory=list)


@dataclass(frozen=True, slots=True)
class PatchEntry:
    """A patch-like entry of a kustomization (``field`` and ``index`` in that list, its 1-based
    ``line`` and ``column``) and the objects it needs, as ``(kind, name)``."""

    kustomization: str
    field: str
    index: int
    line: int
    column: int
    targets: tuple[tuple[str, str], ...]


def field_nodes(node: yaml.Node | None, name: str) -> tuple[yaml.Node, yaml.Node] | None:
    """The key and value nodes of field ``name`` in the composed kustomization ``node`` (the key
    matched as kustomize matches it, any case: :func:`~hooklint.gojsonread.go_fold`;
    the last such key, kustomize's choice for a list), or None."""
    if not isinstance(node, yaml.MappingNode):
        return None
    found = None
    for key, value in node.value:
        if isinstance(key, yaml.ScalarNode) and go_fold(str(key.value)) == go_fold(name):
            found = (key, value)
    return found


def entry_positions(node: yaml.Node | None, name: str) -> list[tuple[int, int]]:
    """The 1-based (line, column) of every item of field ``name``'s list, in order (empty when
    it is no list)."""
    found = field_nodes(node, name)
    if found is None or not isinstance(found[1], yaml.SequenceNode):
        return []
    return [(item.start_mark.line + 1, item.start_mark.column + 1) for item in found[1].value]


def without_entries(text: str, removals: list[tuple[str, int | None]], dump: Callable[[Any], str]) -> str:
    """``text`` (a kustomization) without the items ``removals`` names, as ``(field, index)``, or
    ``(field, None)`` for the whole field. Block-style items are cut line by line (every other byte
    stays, so kustomize's messages keep the user's lines); otherwise (a flow list, an alias, text
    after an item on its line) the file is loaded, edited and written again with ``dump``."""
    if not removals:
        return text
    # the first document, as kustomize reads it (:func:`~hooklint.sources.repository.kustomize_spec.read_kustomization`);
    # raises Unreadable (or YamlTooComplex) for a text hooklint cannot read so: never left unedited
    read = read_kustomization(text)
    node = read.node
    lines = text.splitlines(keepends=True)
    emptied = set()  # a field that loses every item is written "field: []" (kustomize refuses an empty file)
    for name in dict.fromkeys(n for n, _ in removals):
        found = field_nodes(node, name)
        items = found[1].value if found is not None and isinstance(found[1], yaml.SequenceNode) else None
        if items is not None and {i for n, i in removals if n == name} >= set(range(len(items))):
            emptied.add(name)
    removals = [(n, None) for n in sorted(emptied)] + [(n, i) for n, i in removals if n not in emptied]
    cut: set[int] = set()
    put: dict[int, str] = {}
    # lines are cut only where every top-level key is written as kustomize reads it (no tag, no
    # merge key) and the file holds one document; else the value kustomize reads is written again
    exact = read.plain and not read.more and not node.flow_style and not _shared(node)
    for name, index in removals if exact else ():
        found = field_nodes(node, name)
        if found is None:
            continue
        key, value = found
        if index is None:
            first, last = key, value
        elif isinstance(value, yaml.SequenceNode) and not value.flow_style and index < len(value.value):
            first = last = value.value[index]
        else:
            exact = False
            break
        span = _line_span(lines, first.start_mark, last.end_mark, index is not None)
        if span is None:
            exact = False
            break
        cut.update(range(*span))
        if name in emptied:
            put[span[0]] = f"{go_yaml_scalar(str(key.value))}: []\n"
    if exact:
        return "".join(put.get(i, "") if i in cut else line for i, line in enumerate(lines))
    config = read.value
    for name in {n for n, _ in removals}:
        indexes = {i for n, i in removals if n == name}
        for key in [k for k in config if go_fold(str(k)) == go_fold(name)]:
            if name in emptied:
                config[key] = []
            elif None in indexes or not isinstance(config[key], list):
                del config[key]
            else:
                config[key] = [v for i, v in enumerate(config[key]) if i not in indexes]
    return dump(config)


def _line_span(lines: list[str], start: Any, end: Any, item: bool) -> tuple[int, int] | None:
    """The 0-based lines ``[first, after)`` holding exactly the node(s) from ``start`` to ``end``
    (an item's own ``- `` included), or None when other text shares those lines."""
    if start.line >= len(lines):
        return None
    if lines[start.line][: start.column].strip() != ("-" if item else ""):
        return None  # an item of a block list starts right after its own "- ", a field at its line's start
    if end.line < len(lines) and lines[end.line][: end.column].strip() == "":
        after = end.line  # the node ends where the next line's token starts
    else:
        rest = lines[end.line][end.column:] if end.line < len(lines) else ""
        if rest.strip() and not rest.strip().startswith("#"):
            return None
        after = end.line + 1
    return start.line, max(after, start.line + 1)


def _shared(node: yaml.MappingNode) -> bool:
    """Whether a node of the kustomization's top two levels is reached twice (a YAML alias)."""
    seen: set[int] = set()
    for key, value in node.value:
        for one in [value, *(value.value if isinstance(value, yaml.SequenceNode) else [])]:
            if id(one) in seen:
                return True
            seen.add(id(one))
    return False


def missing_target(message: str) -> tuple[str, str] | None:
    """The object, as ``(kind, name)``, that kustomize's error ``message`` says a patch or
    replacement found nothing for (see the module docstring), or None. kustomize writes an Id as
    ``Kind.version.group/name.namespace``; a namespace has no dot, so the name is all before the
    last one."""
    found = _MISSING.search(message)
    if found is None:
        return _missing_merge(message)
    name = found.group(2).rsplit(".", 1)[0]
    return found.group(1), name


def _missing_merge(message: str) -> tuple[str, str] | None:
    """The ``(kind, name)`` of ``_MISSING_MERGE.search(message)``, found in linear time (the
    expression read to the next ``}`` once for every ``Kind:"..."`` before it): the first stretch
    between two ``}`` that holds a ``Kind:"..."`` and whose ``}`` ``_MERGE_NAME`` follows."""
    if "does not exist; cannot merge or replace" not in message:
        return None
    start = 0
    close = message.find("}")
    while close >= 0:
        kind = _MERGE_KIND.search(message, start, close)
        name = _MERGE_NAME.match(message, close) if kind is not None else None
        if kind is not None and name is not None:
            return kind.group(1), name.group(1)
        start = close + 1
        close = message.find("}", start)
    return None


def target_names(entry: Any, read: Callable[[str], str | None], field_name: str) -> tuple[tuple[str, str], ...]:
    """The objects, as ``(kind, name)``, that the patch-like ``entry`` of ``field_name`` cannot go
    without: a strategic-merge patch (inline, or the file ``read(path)`` returns) its own
    kind and name; a ``patches`` entry with a ``target`` none (kustomize skips a selector that
    selects nothing); a replacement its ``source`` (a ``path`` entry: every replacement of the
    file); a ``configMapGenerator`` or ``secretGenerator`` entry with ``behavior: merge`` or
    ``replace`` the ConfigMap or Secret of its ``name`` (``create``, the default, needs none)."""
    if field_name in GENERATED_KIND:  # only a merge or a replace needs an object made elsewhere
        behavior = entry.get("behavior") if isinstance(entry, dict) else None
        name = entry.get("name") if isinstance(entry, dict) else None
        if behavior in ("merge", "replace") and isinstance(name, str):
            return ((GENERATED_KIND[field_name], name),)
        return ()
    if field_name == "replacements":
        sources = []
        if isinstance(entry, dict) and isinstance(entry.get("path"), str):
            loaded = _load_all(read(entry["path"]))
            for item in loaded:
                sources.extend(item if isinstance(item, list) else [item])
        elif isinstance(entry, dict):
            sources = [entry]
        found = []
        for replacement in sources:
            source = replacement.get("source") if isinstance(replacement, dict) else None
            if isinstance(source, dict) and isinstance(source.get("kind"), str) and isinstance(source.get("name"), str):
                found.append((source["kind"], source["name"]))
        return tuple(found)
    if isinstance(entry, dict):
        if entry.get("target"):
            return ()
        text = entry.get("patch") if isinstance(entry.get("patch"), str) else (
            read(entry["path"]) if isinstance(entry.get("path"), str) else None)  # fmt: skip
    elif isinstance(entry, str):
        text = entry if "\n" in entry or entry.lstrip().startswith("{") else read(entry)
    else:
        return ()
    found = []
    for obj in _load_all(text):
        metadata = obj.get("metadata") if isinstance(obj, dict) else None
        name = metadata.get("name") if isinstance(metadata, dict) else None
        if isinstance(obj, dict) and isinstance(obj.get("kind"), str) and isinstance(name, str):
            found.append((obj["kind"], name))
    return tuple(found)


def _load_all(text: str | None) -> list[Any]:
    if not text:
        return []
    try:
        return list(yaml.load_all(text, Loader=BoundedLoader))
    except yaml.YAMLError:
        return []


def mark_path(relative: str) -> str:
    """``relative`` (a path relative to the application folder) marked for :func:`user_paths`."""
    return f"{_PATH_MARK}{relative}{_PATH_MARK}"


def user_paths(text: str, join: Callable[[str], str]) -> str:
    """``text`` with every path marked by :func:`mark_path` replaced by ``join(path)``."""
    return re.sub(f"{_PATH_MARK}([^{_PATH_MARK}]*){_PATH_MARK}", lambda m: join(m.group(1)), text)
