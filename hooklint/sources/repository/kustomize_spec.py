"""How kustomize itself reads a kustomization's keys and tells a remote entry from a local one,
so that hooklint reads the same fields and refuses every entry kustomize would fetch before
anything is handed to it.

Keys. kustomize v5 (``api/types/kustomization.go`` ``Kustomization.Unmarshal``) turns the YAML into
JSON with ``sigs.k8s.io/yaml`` (go-yaml v2 into a Go map, then ``json.Marshal``: object keys come out
sorted) and decodes it with ``encoding/json`` into the ``Kustomization`` struct. Go's JSON decoder
matches an object key to a struct field by exact name or, failing that, case-insensitively with
Unicode simple folding (``Resources``, ``RESOURCES``, ``reſources`` with U+017F and ``K`` U+212A
all name ``resources``), at every struct level (``patches[].Path``), but not inside Go maps
(``openapi``, ``commonLabels``). Two keys folding to one field are both decoded, in sorted order:
the last one's list replaces the other's, a map is merged. :func:`canonical` gives the mapping
kustomize decodes, keys renamed to the field names; :func:`ambiguous_key` finds a mapping with
two keys for one field, which hooklint refuses (HL007) rather than depend on that order.

Remote entries. kustomize's loader (``api/internal/loader/fileloader.go``) fetches a file entry
over HTTP when ``url.Parse`` gives it the scheme ``http`` or ``https`` (``IsRemoteFile``, any
case, whatever exists on disk: a local folder named ``http:`` does not make
``http://127.0.0.1/x.yaml`` local), and clones a ``resources``/``components`` entry that
``git.NewRepoSpecFromURL`` parses (``api/internal/git/repospec.go``: ``git::`` prefixes, ``ssh://``,
``https://``, ``http://``, ``file://``, ``user@host:path``, ``github.com/org/repo``) before it looks
at the local file system. :func:`is_remote_file` and :func:`is_repo_spec` port both.

Values. kustomize reads a kustomization's bytes (``api/internal/target/kusttarget.go`` ``Load``)
with ``Kustomization.Unmarshal``: ``sigs.k8s.io/yaml`` v1.4 ``YAMLToJSON`` decodes the *first*
document only with its go-yaml v2 fork (``goyaml.v2/decode.go``, ``resolve.go``) into Go values,
then ``encoding/json`` decodes that JSON into the struct. PyYAML disagrees with it on purpose-built
input: a second ``---`` document (PyYAML's ``load`` refuses the file), an unknown ``!tag`` (a
string for Go, an error for PyYAML), ``2024-01-01`` (a string for Go, a date for PyYAML),
``!!binary`` (decoded base64 for Go), merge keys (go-yaml v2 writes a ``<<`` mapping into the map
where it stands, so a key before it is overwritten: the YAML spec, and PyYAML, keep it), a JSON
``null`` list entry (``""`` for Go). :func:`read_kustomization` reads the value kustomize decodes,
and raises :class:`Unreadable` (HL007: the renderer is never started) wherever it cannot be sure
of it, or kustomize itself would refuse the file.
"""

from __future__ import annotations

import posixpath
import re
import urllib.parse
from dataclasses import dataclass
from typing import Any

import yaml

from hooklint.gojsonread import go_fold
from hooklint.yamlio import GO_PLAIN, STR, Unreadable, YamlTooComplex, go_composer, go_first_document, go_value, is_merge_key, node_strings

__all__ = ["go_composer", "Unreadable", "YamlTooComplex", "go_value", "node_strings"]  # read here by kustomize.py

# --- keys -----------------------------------------------------------------------------------------

#: A struct level: field name -> its shape (None: a scalar, list of scalars, or a Go map whose keys
#: are matched exactly; ("struct", fields); ("list", fields): a list of structs).
_Fields = dict[str, Any]

_PATCH: _Fields = {"path": None, "patch": None, "target": None, "options": None}
_GENERATOR: _Fields = {"namespace": None, "name": None, "behavior": None, "literals": None, "files": None,
                       "envs": None, "env": None, "options": None, "type": None}  # fmt: skip
_REPLACEMENT: _Fields = {"path": None, "source": None, "targets": None}
_HELM_CHART: _Fields = {n: None for n in (
    "name", "version", "repo", "releaseName", "namespace", "additionalValuesFiles", "valuesFile", "valuesInline",
    "valuesMerge", "includeCRDs", "skipHooks", "apiVersions", "kubeVersion", "nameTemplate", "skipTests", "debug")}  # fmt: skip
_HELM_ARGS: _Fields = {n: None for n in (
    "chartName", "chartVersion", "chartRepoUrl", "chartHome", "chartRepoName", "helmBin", "helmHome", "values",
    "valuesLocal", "valuesMerge", "releaseName", "releaseNamespace", "extraArgs")}  # fmt: skip

#: The fields of kustomize v5.5.0's ``Kustomization`` (``api/types/kustomization.go``, with the
#: inlined ``TypeMeta``), the struct levels below them that name files spelled out.
KUSTOMIZATION_FIELDS: _Fields = {
    "apiVersion": None, "kind": None,
    "metadata": ("struct", {"name": None, "namespace": None, "labels": None, "annotations": None}),
    "openapi": None, "namePrefix": None, "nameSuffix": None, "namespace": None, "commonLabels": None,
    "labels": None, "commonAnnotations": None, "patchesStrategicMerge": None,
    "patchesJson6902": ("list", _PATCH), "patches": ("list", _PATCH), "images": None, "imageTags": None,
    "replacements": ("list", _REPLACEMENT), "replicas": None, "vars": None, "sortOptions": None,
    "resources": None, "components": None, "crds": None, "bases": None,
    "configMapGenerator": ("list", _GENERATOR), "secretGenerator": ("list", _GENERATOR),
    "helmGlobals": ("struct", {"chartHome": None, "configHome": None}),
    "helmCharts": ("list", _HELM_CHART), "helmChartInflationGenerator": ("list", _HELM_ARGS),
    "generatorOptions": None, "configurations": None, "generators": None, "transformers": None,
    "validators": None, "buildMetadata": None,
}  # fmt: skip

def _field_of(key: Any, fields: _Fields) -> str | None:
    if not isinstance(key, str):
        return None
    if key in fields:
        return key
    folded = go_fold(key)
    return next((f for f in fields if go_fold(f) == folded), None)


def canonical(config: dict[str, Any], fields: _Fields = KUSTOMIZATION_FIELDS) -> dict[str, Any]:
    """The mapping kustomize decodes from ``config`` (a parsed kustomization): every key naming a
    field (in any case, :func:`~hooklint.gojsonread.go_fold`) renamed to the field, keys of one field taken in sorted
    order (later lists and scalars win, maps are merged), struct levels below done alike; other
    keys are kept as written (kustomize refuses unknown fields itself)."""
    out: dict[str, Any] = {}
    for key in sorted(config, key=lambda k: (str(k).encode("utf-8", "surrogatepass"), str(type(k)))):
        field = _field_of(key, fields)
        value = config[key]
        if field is None:
            out[key] = value
            continue
        shape = fields[field]
        if shape is not None and shape[0] == "struct" and isinstance(value, dict):
            value = canonical(value, shape[1])
        elif shape is not None and shape[0] == "list" and isinstance(value, list):
            value = [canonical(v, shape[1]) if isinstance(v, dict) else v for v in value]
        if isinstance(value, dict) and isinstance(out.get(field), dict):
            value = {**out[field], **value}
        out[field] = value
    return out


def ambiguous_key(node: yaml.Node | None, fields: _Fields = KUSTOMIZATION_FIELDS,
                  where: str = "") -> tuple[str, yaml.Node, yaml.Node] | None:  # fmt: skip
    """The first key of the composed kustomization ``node`` (document order, struct levels of
    ``fields`` included) that names the same field as an earlier key of its mapping, as
    ``(field path, earlier key node, this key node)``; None when there is none."""
    if not isinstance(node, yaml.MappingNode):
        return None
    seen: dict[str, yaml.Node] = {}
    for key_node, value_node in node.value:
        field = _field_of(key_node.value if isinstance(key_node, yaml.ScalarNode) else None, fields)
        if field is None:
            continue
        path = f"{where}.{field}" if where else field
        if field in seen:
            return path, seen[field], key_node
        seen[field] = key_node
        shape = fields[field]
        if shape is None:
            continue
        items = value_node.value if shape[0] == "list" and isinstance(value_node, yaml.SequenceNode) else [value_node]
        for i, item in enumerate(items):
            found = ambiguous_key(item, shape[1], f"{path}[{i}]" if shape[0] == "list" else path)
            if found is not None:
                return found
    return None


# --- remote entries -------------------------------------------------------------------------------

_SCHEME_CHARS = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*")


def url_scheme(entry: str) -> str | None:
    """The scheme Go's ``url.Parse`` gives ``entry``, lower-cased (``getScheme``: a letter, then
    letters, digits, ``+``, ``-``, ``.``, up to the first ``:``), or None."""
    found = _SCHEME_CHARS.match(entry)
    if found is None or entry[found.end():found.end() + 1] != ":":
        return None
    return found.group(0).lower()


def is_remote_file(entry: str) -> bool:
    """Whether kustomize fetches ``entry`` over HTTP when it loads it as a file (``IsRemoteFile``:
    the scheme is ``http`` or ``https``, any case). hooklint does not ask whether the rest of the
    URL parses (Go refuses a few, then reads the entry as a local path): such an entry is taken for
    remote too, so nothing kustomize would fetch is missed."""
    return url_scheme(entry) in ("http", "https")


_USERNAME = re.compile(r"^([a-zA-Z][a-zA-Z0-9-]*)@")
_GIT_SCHEMES = ("ssh://", "https://", "http://", "file://")


def _trim_prefix_fold(s: str, prefix: str) -> tuple[str, bool]:
    if len(prefix) <= len(s) and s[: len(prefix)].lower() == prefix:
        return s[len(prefix):], True
    return s, False


def is_repo_spec(entry: str) -> bool:
    """Whether kustomize clones ``entry`` as a git repository when it is a ``resources``,
    ``components`` (or generator, transformer, validator) entry: a port of
    ``git.NewRepoSpecFromURL`` (kustomize v5.5.0, ``api/internal/git/repospec.go``), which succeeds
    for ``github.com/org/repo``, ``git@host:org/repo``, ``https://host/org/repo``,
    ``git::https://...``, ``ssh://...``, ``file:///srv/repo`` and the like."""
    return repo_spec(entry) is not None


@dataclass(frozen=True, slots=True)
class RepoSpec:
    """What kustomize clones for a remote entry (``api/internal/git/repospec.go`` ``RepoSpec``):
    ``host`` (scheme, user and host: ``https://github.com/``, ``git@github.com:``, ``file://``),
    ``repo_path`` (``org/repo.git``), ``root`` (the kustomization's folder in the repository, no
    leading ``/``; ``""`` for its top) and ``ref`` (``?ref=``, else ``?version=``; ``""``: HEAD)."""

    host: str
    repo_path: str
    root: str
    ref: str

    def clone_url(self) -> str:
        """``CloneSpec``: the URL ``git fetch`` is given (``https://github.com/org/repo``)."""
        return self.host + self.repo_path


def repo_spec(entry: str) -> RepoSpec | None:
    """The :class:`RepoSpec` kustomize v5.5.0 reads in ``entry`` (``NewRepoSpecFromURL``,
    ``extractHost``, ``parsePathParts``, ``parseQuery``), or None when it is no remote repository."""
    if entry.startswith("/"):  # filepath.IsAbs
        return None
    n, _, query = entry.partition("?")
    n, _ = _trim_prefix_fold(n, "git::")
    scheme = ""
    for prefix in _GIT_SCHEMES:
        n, found = _trim_prefix_fold(n, prefix)
        if found:
            scheme = prefix
            break
    user = _USERNAME.match(n)
    username = user.group(0) if user else ""
    n = n[len(username):]
    github = n.lower().startswith(("github.com/", "github.com:"))
    scp = scheme == "" and (username != "" or github)
    if scheme == "" and not scp:
        return None
    if scheme == "file://":
        host, rest = scheme, username + n
    else:
        sep = n.find("/")
        if scp:
            colon = n.find(":")
            if sep == -1 or 0 < colon < sep:
                sep = colon
        host, rest = (n[: sep + 1], n[sep + 1:]) if sep >= 0 else (n, "")
        if github:  # normalizeGithubHostParts
            scheme, username, host = ("", username, "github.com:") if scheme.startswith("ssh://") or username else (
                "https://", "", "github.com/")  # fmt: skip
        if host == "":
            return None
        host = scheme + username + host
    parts = _repo_path_parts(rest, all_segments=host.startswith("file://"))
    if parts is None:
        return None
    values = urllib.parse.parse_qs(query, keep_blank_values=True)
    ref = (values.get("ref") or [""])[0] or (values.get("version") or [""])[0]
    return RepoSpec(host, parts[0], parts[1], ref)


def _repo_path_parts(n: str, all_segments: bool) -> tuple[str, str] | None:
    """``parsePathParts``: ``n`` split into a non-empty repository path and a kustomization path
    that stays in the repository (its leading ``/`` dropped), or None."""
    if "_git/" in n:
        at = n.index("_git/") + len("_git/")
        segments = n[at:].split("/")
        repo, root = n[:at] + segments[0], "/".join(segments[1:])
    elif "//" in n:
        at = n.index("//")
        repo, root = n[:at], n[at + 2:]
    elif ".git" in n:
        at = n.index(".git") + len(".git")
        repo, root = n[:at], n[at:]
    elif all_segments:
        repo, root = n, ""
    else:
        segments = n.split("/")
        if len(segments) < 2:
            return None
        repo, root = "/".join(segments[:2]), "/".join(segments[2:])
    if not repo:
        return None
    cleaned = posixpath.normpath(root.lstrip("/") or ".")
    return (repo, root.removeprefix("/")) if cleaned.split("/")[0] != ".." else None


#: Fields whose entries kustomize may load as a kustomization root (``ldr.New``): a git URL there
#: is cloned. Every other path entry is only loaded as a file.
ROOT_FIELDS = ("resources", "bases", "components", "generators", "transformers", "validators")


def fetched_by_kustomize(entry: str, field: str) -> bool:
    """Whether kustomize would reach the network for ``entry`` of ``field``."""
    return is_remote_file(entry) or (field in ROOT_FIELDS and is_repo_spec(entry))


# --- values: the kustomization kustomize decodes ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReadKustomization:
    """A kustomization as kustomize decodes it: ``value`` the mapping ``YAMLToJSON`` gives (keys as
    written, every key of one field kept: :func:`canonical` merges them), ``node`` the composed first
    document (positions only: its scalars' tags are not PyYAML's), ``more`` whether the text holds
    anything after that document (kustomize never reads it), ``plain`` whether every top-level key
    is written as the text kustomize reads (no tag, no merge key), so that a line of the text can be
    edited for a field."""

    value: dict[str, Any]
    node: yaml.MappingNode
    more: bool
    plain: bool


def read_kustomization(text: str) -> ReadKustomization:
    """The kustomization ``text`` (decoded, a BOM removed) as kustomize v5.5.0 decodes it (module
    docstring, *Values*; :func:`hooklint.yamlio.go_first_document`). Raises :class:`Unreadable`
    for what kustomize refuses (a YAML error, a first document that is not a mapping) and for what
    hooklint cannot read as it does; :class:`YamlTooComplex` for an alias bomb or nesting beyond
    the limits. :func:`go_decode` then types the fields that name paths."""
    try:
        document = go_first_document(text)
    except Unreadable as error:
        if str(error).startswith("yaml:"):
            raise Unreadable(f"invalid Kustomization: {error}", error.line, error.column) from None
        raise
    node = document.node
    if node is None:
        raise Unreadable("the kustomization is empty, which kustomize refuses")
    if not isinstance(node, yaml.MappingNode):
        line, column = node.start_mark.line + 1, node.start_mark.column + 1
        raise Unreadable("the kustomization's first document is not a mapping (kustomize reads only that document, "
                         "and cannot decode it)", line, column)  # fmt: skip
    plain = all(isinstance(k, yaml.ScalarNode) and k.tag in (GO_PLAIN, STR) and not is_merge_key(k) and
                isinstance(go_value(k), str) for k, _ in node.value)  # fmt: skip
    return ReadKustomization(document.value, node, document.more, plain)


#: The Go type of every field of the ``Kustomization`` struct (and the struct levels below it) that
#: names a file, folder or URL, for :func:`go_decode`: ``"string"``, ``"[]string"``,
#: ``"map[string]string"``, or a struct (a dict of its fields) / list of structs (a 1-list).
PATH_FIELD_TYPES: dict[str, Any] = {
    "resources": "[]string", "components": "[]string", "bases": "[]string", "crds": "[]string",
    "configurations": "[]string", "generators": "[]string", "transformers": "[]string", "validators": "[]string",
    "patchesStrategicMerge": "[]string", "openapi": "map[string]string",
    "patches": [{"path": "string"}], "patchesJson6902": [{"path": "string"}], "replacements": [{"path": "string"}],
    "configMapGenerator": [{"files": "[]string", "envs": "[]string", "env": "string"}],
    "secretGenerator": [{"files": "[]string", "envs": "[]string", "env": "string"}],
    "helmGlobals": {"chartHome": "string", "configHome": "string"},
    "helmCharts": [{"valuesFile": "string", "additionalValuesFiles": "[]string", "repo": "string"}],
    "helmChartInflationGenerator": [{"chartHome": "string", "chartRepoUrl": "string", "values": "string",
                                     "valuesLocal": "map[string]string", "helmBin": "string", "helmHome": "string"}],
}  # fmt: skip

_JSON_TYPES = {str: "string", bool: "bool", int: "number", float: "number", dict: "object", list: "array"}


def go_decode(config: dict[str, Any]) -> dict[str, Any]:
    """``config`` (:func:`canonical`) with the fields of :data:`PATH_FIELD_TYPES` decoded as
    ``encoding/json`` decodes them into their Go types: ``null`` where a string is expected is
    ``""`` (an entry kustomize reads), a ``null`` field or list item is its zero value; a value of
    another JSON type (a number, a list where a string is expected) raises :class:`Unreadable` with
    Go's message, as kustomize fails on it before it reads anything the kustomization names."""

    def decode(value: Any, shape: Any, where: str) -> Any:
        if value is None:
            return "" if shape == "string" else None
        wrong = Unreadable(f"invalid Kustomization: json: cannot unmarshal {_JSON_TYPES.get(type(value), 'value')} "
                           f"into Go struct field {where} of type {_go_type(shape)}")  # fmt: skip
        if shape == "string":
            if not isinstance(value, str):
                raise wrong
            return value
        if shape == "[]string" or isinstance(shape, list):
            if not isinstance(value, list):
                raise wrong
            item = "string" if shape == "[]string" else shape[0]
            return [decode(v, item, where) if v is not None or item == "string" else {} for v in value]
        if shape == "map[string]string":
            if not isinstance(value, dict):
                raise wrong
            return {k: decode(v, "string", f"{where}.{k}") for k, v in value.items()}
        if not isinstance(value, dict):
            raise wrong
        return {k: decode(v, shape[k], f"{where}.{k}") if k in shape else v for k, v in value.items()}

    return {k: decode(v, PATH_FIELD_TYPES[k], f"Kustomization.{k}") if k in PATH_FIELD_TYPES else v
            for k, v in config.items()}  # fmt: skip


def _go_type(shape: Any) -> str:
    if isinstance(shape, str):
        return shape
    return "[]struct" if isinstance(shape, list) else "struct"
