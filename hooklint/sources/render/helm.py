"""Helm sources: a chart rendered as Argo CD renders it, with every object placed in the template
it came from.

Argo CD runs ``helm template`` (``util/helm/cmd.go`` ``template``; ``shared/docs/argocd-rendering.md``
§4) with ``--name-template <release> [--namespace] [--kube-version] [--set]... [--set-string]...
[--values <file>]... [--values <values/valuesObject>] [--api-versions]... [--include-crds]``.
hooklint does the same on a temporary copy of the chart, never in the user's tree, and never
reaches the network or a cluster: no repository or OCI pulls (a remote chart is a
:class:`~hooklint.sources.render.rendered.RenderError` with ``needs_network``; dependencies are built as
``helm dependency build`` builds them offline, ``file://`` ones from the repository and those that
need a chart repository left out; value files hooklint cannot read, encrypted or remote, left out:
each an :class:`~hooklint.sources.render.rendered.Omission`, issue 22), no ``lookup`` against a cluster (it
returns nothing, as in ``helm template``), no post-renderers, no plugins.

Two renderers, chosen by :func:`find_helm` for the Helm major the configured Argo CD runs (Helm 3
before Argo CD 3.5, Helm 4 from it: ``hack/tool-versions.sh``, PR #28076):

- the ``helm`` binary on ``PATH``, run as above with ``KUBECONFIG`` and Helm's home folders pointed
  into the temporary folder: for Helm 3 the faithful one when it is v3;
- the ``helm-python-sdk`` package (Helm 4: the faithful one for Argo CD 3.5 and later) (``pip install 'hooklint[helm]'``: Helm's Go library behind
  ctypes, Apache-2.0). Its offline render (``helm_render``: Helm's ``engine.Render`` after
  ``ProcessDependencies`` and values-schema validation) returns each template's text; what
  ``helm template`` adds on top is done here as Helm v4 does it (``pkg/cli/values/options.go``
  ``MergeValues``/``mergeMaps``; ``pkg/release/v1/util/manifest_sorter.go`` ``SortManifests``,
  ``manifest.go`` ``SplitManifests``, ``kind_sorter.go`` ``InstallOrder``): value files, then
  values, then ``--set``, then ``--set-string`` merged into one values map (Helm's own YAML parser
  through the SDK, and hooklint's port of its ``--set`` parser; value-file numbers float64, ``--set``
  integers int64, as ``helm template`` hands them to the templates: :mod:`hooklint.sources.render._helm_child`); ``NOTES.txt`` and partials dropped; each file split into
  documents; a document whose ``helm.sh/hook`` names an unknown hook (``crd-install``) dropped
  ("skipping unknown hooks"); CRDs of ``crds/`` first (unless ``skip_crds``), then the other objects
  sorted by kind, then the hooks sorted by kind. The SDK is imported only when a chart is rendered.

Each :class:`~hooklint.sources.render.rendered.RenderedDocument` holds one document without Helm's
``# Source:`` comment line; ``origin`` is the template (or ``crds/`` file) as a path the user can
open (the chart folder as the user spelled it, joined with the path inside the chart), ``None`` for
a template inside a packaged subchart (``charts/*.tgz``, then ``configured_in`` is that archive);
``configured_in`` is otherwise the ``Chart.yaml`` of the chart the template belongs to;
``origin_line`` is :func:`object_line` of the template document the object was rendered from (see
:func:`template_document_indexes`), 0 when there is no origin.
"""

from __future__ import annotations

import dataclasses

import functools
import importlib.util
import io
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zlib
from zlib import error as zlib_error
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping

import yaml

from hooklint.config import DEFAULT_MAX_FILE_SIZE
from hooklint.files import (FileTooLarge, NotRegularFile, dispatched, file_problem, make_dirs, problem_of, program_identity,
                            read_bytes, remove_tree, sdk_identity, walk_tree)
from hooklint.loader import within
from hooklint.text import go_to_lower, go_trim_space
from hooklint.yamlio import HOOKLINT_FAULT, BoundedLoader, Unreadable, YamlTooComplex, go_first_document, go_yaml_text
from hooklint.sources import bounded, sandbox
from hooklint.sources.repository import facts
from hooklint.sources.repository.gomatch import BadPattern, path_match
from hooklint.sources.repository.gotar import gunzipped, tar_disagreement
from hooklint.sources.repository.spelling import may_hold
from hooklint.gojsonread import go_fold
from hooklint.sources.repository.kustomize_spec import ambiguous_key, canonical
from hooklint.sources.render._helm_child import FAULT
from hooklint.sources.render.cache import cached, input_key, remembered_answer
from hooklint.sources.repository.withheld import GIT_REASON, Withheld
from hooklint.sources.render.hermetic import (SPELLING_ESCAPE, cause, git_reads, go_unquote, nonhermetic_decisions,
                                                release_decisions, template_texts)
from hooklint.sources.repository.charts import MAX_ARCHIVE_BYTES, MAX_ARCHIVE_DEPTH, MAX_ARCHIVE_MEMBERS
from hooklint.sources.render import strvals
from hooklint.sources.render.redact import tagging_inputs
from hooklint.sources.render.rendered import (CapabilityCheck, Omission, RenderedDocument, Renderer, RenderError,
                                               RendererUnavailable, Rendering, transient)  # fmt: skip

SDK_NAME = "helm-python-sdk"
NEVER_FETCHES = "hooklint never fetches charts"
NEVER_LOADS = "hooklint never uses the network nor reads outside the repository"
_SCHEMAS_UNCHECKED = ("the values were not validated against the chart's values.schema.json files (a value they "
                      "refuse would fail Argo CD's sync); every object was checked")

#: ``pkg/release/v1/util/kind_sorter.go`` ``InstallOrder`` (Helm v4): the order ``helm template``
#: prints objects of these kinds in; other kinds follow, alphabetically.
INSTALL_ORDER = (
    "PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodSecurityPolicy",
    "PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList", "ConfigMap", "StorageClass",
    "PersistentVolume", "PersistentVolumeClaim", "CustomResourceDefinition", "ClusterRole",
    "ClusterRoleList", "ClusterRoleBinding", "ClusterRoleBindingList", "Role", "RoleList", "RoleBinding",
    "RoleBindingList", "Service", "DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
    "HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress", "APIService",
    "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
)  # fmt: skip
_KIND_RANK = {kind: rank for rank, kind in enumerate(INSTALL_ORDER)}

#: ``manifest_sorter.go`` ``events``: the hook names Helm knows; any other makes Helm skip the object.
HELM_HOOK_EVENTS = frozenset({
    "pre-install", "post-install", "pre-delete", "post-delete", "pre-upgrade", "post-upgrade",
    "pre-rollback", "post-rollback", "test", "test-success",
})  # fmt: skip

#: ``manifest.go`` ``sep``: ``(?:^|\s*\n)---\s*`` with Go's ASCII ``\s``.
_SPLIT = re.compile(r"(?:\A|[\t\n\f\r ]*\n)---[\t\n\f\r ]*")
_REMOTE = re.compile(r"^(?:oci|https?)://", re.IGNORECASE)
_URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


# --- options -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HelmOptions:
    """How Argo CD templates one chart: an Application's ``spec.source.helm`` (the subset hooklint
    reads) plus the release name and namespace. ``value_files`` are relative to the chart folder
    (``/x.yaml``: relative to the repository root), as Argo CD takes them; ``values`` is YAML text
    (``values``, or ``valuesObject`` dumped as YAML); ``parameters`` are ``(name, value,
    forceString)``."""

    release_name: str
    namespace: str | None = None
    value_files: tuple[str, ...] = ()
    values: str | None = None
    parameters: tuple[tuple[str, str, bool], ...] = ()
    kube_version: str | None = None
    api_versions: tuple[str, ...] = ()
    skip_crds: bool = False
    #: ``ignoreMissingValueFiles`` (Argo CD 2.3): a value file that does not exist is skipped.
    ignore_missing_value_files: bool = False
    #: ``skipSchemaValidation`` (Argo CD 2.14): ``helm template --skip-schema-validation``.
    skip_schema_validation: bool = False
    #: ``fileParameters`` as ``(name, path)``: ``--set-file name=path``, the path resolved as a
    #: value file's is.
    file_parameters: tuple[tuple[str, str], ...] = ()
    #: Where each of ``value_files`` is written, ``(file, line, column)`` (1-based): the
    #: Application's ``valueFiles`` entry, where a file hooklint leaves out is reported. Not part
    #: of the options' identity (nor of the render cache key).
    value_file_places: tuple[tuple[str, int, int], ...] = field(default=(), compare=False, repr=False)
    #: ``($name, targetRevision, what it names)`` of the ``ref`` sources of this repository at
    #: another revision (:attr:`hooklint.sources.spec.ApplicationSource.pinned_refs`): why their
    #: value files are left out. Not part of the options' identity (the message is added after the cache).
    pinned_refs: tuple[tuple[str, str, str], ...] = field(default=(), compare=False, repr=False)
    #: True when ``api_versions`` are the Application's ``helm.apiVersions``, which replace the
    #: cluster's (``GetAPIVersionsOrDefault``): then the chart is not rendered again with the API
    #: versions it names (:func:`render_helm`).
    fixed_api_versions: bool = field(default=False, compare=False, repr=False)
    #: True when no Application of the repository deploys the chart, so ``release_name`` (the
    #: folder's name) and ``namespace`` are hooklint's guess: a chart whose templates decide on
    #: them is rendered once more with another name and namespace (:func:`render_helm`).
    release_guessed: bool = field(default=False, compare=False, repr=False)

    @classmethod
    def from_application(cls, spec_helm: Mapping | None, app_name: str, namespace: str | None) -> "HelmOptions":
        """The options of an Application named ``app_name`` whose destination namespace is
        ``namespace`` and whose ``spec.source.helm`` is ``spec_helm`` (None: no ``helm`` key).

        Reads ``releaseName`` (else ``app_name``), ``namespace`` (else the destination's),
        ``valueFiles``, ``values``, ``valuesObject`` (which wins over ``values``, and is written as
        JSON, :func:`~hooklint.yamlio.go_yaml_text`, so that Helm types each value as Argo CD's
        ``sigs.k8s.io/yaml`` ``JSONToYAML`` writes it: argo-cd ``pkg/apis/application/v1alpha1/values.go``
        ``ValuesYAML``), ``parameters`` (``name``,
        ``value``, ``forceString``), ``fileParameters`` (``name``, ``path``), ``kubeVersion``,
        ``apiVersions``, ``skipCrds``, ``skipSchemaValidation`` and ``ignoreMissingValueFiles``
        (``reposerver/repository/repository.go`` ``helmTemplate``, v3.5.1); other keys are ignored. Raises ValueError (one line naming the key) for a value of the wrong type."""
        if spec_helm is None:
            return cls(release_name=app_name, namespace=namespace or None)
        if not isinstance(spec_helm, Mapping):
            raise ValueError("spec.source.helm must be a mapping")
        get = functools.partial(_typed, spec_helm, "spec.source.helm")
        release = get("releaseName", str) or app_name
        values = get("values", str)
        values_object = get("valuesObject", Mapping)
        if values_object is not None:
            try:  # Argo CD's form (ValuesYAML: JSONToYAML), never PyYAML's: `debug: "n"` stays a string
                values = go_yaml_text(values_object)
            except ValueError as exc:
                raise ValueError(f"spec.source.helm.valuesObject holds {exc}") from None
        parameters = []
        for index, parameter in enumerate(get("parameters", list) or []):
            where = f"spec.source.helm.parameters[{index}]"
            if not isinstance(parameter, Mapping):
                raise ValueError(f"{where} must be a mapping")
            name = _typed(parameter, where, "name", str)
            if not name:
                raise ValueError(f"{where}.name must be a non-empty string")
            value = _typed(parameter, where, "value", str) or ""
            parameters.append((name, value, bool(_typed(parameter, where, "forceString", bool))))
        file_parameters = []
        for index, parameter in enumerate(get("fileParameters", list) or []):
            where = f"spec.source.helm.fileParameters[{index}]"
            if not isinstance(parameter, Mapping):
                raise ValueError(f"{where} must be a mapping")
            name, path = _typed(parameter, where, "name", str), _typed(parameter, where, "path", str)
            if not name or not path:
                raise ValueError(f"{where} needs a non-empty name and path")
            file_parameters.append((name, path))
        return cls(
            release_name=release,
            namespace=get("namespace", str) or namespace or None,
            value_files=tuple(_string_list(spec_helm, "valueFiles")),
            values=values or None,
            parameters=tuple(parameters),
            kube_version=get("kubeVersion", str) or None,
            api_versions=tuple(_string_list(spec_helm, "apiVersions")),
            fixed_api_versions=bool(_string_list(spec_helm, "apiVersions")),
            skip_crds=bool(get("skipCrds", bool)),
            ignore_missing_value_files=bool(get("ignoreMissingValueFiles", bool)),
            skip_schema_validation=bool(get("skipSchemaValidation", bool)),
            file_parameters=tuple(file_parameters),
        )


def _typed(mapping: Mapping, where: str, key: str, kind: type) -> Any:
    value = mapping.get(key)
    if value is None:
        return None
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        noun = {str: "a string", bool: "a boolean", list: "a list"}.get(kind, "a mapping")
        raise ValueError(f"{where}.{key} must be {noun}")
    return value


def _string_list(spec_helm: Mapping, key: str) -> list[str]:
    items = _typed(spec_helm, "spec.source.helm", key, list) or []
    for index, item in enumerate(items):
        if not isinstance(item, str):
            raise ValueError(f"spec.source.helm.{key}[{index}] must be a string")
    return items


# --- renderer discovery --------------------------------------------------------------------------


#: The Helm major of ``helm-python-sdk`` 0.2.x (Helm's v4 Go library), and what
#: :func:`find_helm` looks for when no Argo CD version asks otherwise (Argo CD 3.5 and later).
DEFAULT_HELM_MAJOR = 4


@functools.lru_cache(maxsize=None)
def find_helm(major: int = DEFAULT_HELM_MAJOR, repository: str | None = None) -> tuple[str, Renderer] | None:
    """The renderer for charts that Argo CD renders with Helm ``major`` (3 before Argo CD 3.5, 4
    from it: :func:`hooklint.argocd.helm_major`): ``("binary", Renderer("helm", "v3.x.y"))`` for
    a Helm 3 or later ``helm`` on ``PATH`` (absolute folders outside ``repository`` only:
    :func:`hooklint.sources.sandbox.find_program`), ``("sdk", Renderer("helm-python-sdk", "<sdk version>
    (Helm <helm version>)"))`` when ``helm_python`` imports (its native library loads).

    The one of Helm ``major`` wins: for 3, a helm v3 binary (the SDK is Helm 4); for 4, a helm v4
    binary, else the SDK (a helm v3 binary is not what Argo CD 3.5 runs). When neither is of that
    major, the binary, else the SDK (reports then say that the majors differ:
    :func:`renderer_helm_major`). None when there is neither. The SDK is asked of a child process
    (:mod:`hooklint.sources.render._helm_child`; hooklint never loads Go itself). Memoised per ``major``
    (``find_helm.cache_clear()`` forgets)."""
    found: list[tuple[str, Renderer]] = []
    binary = sandbox.find_program("helm", repository)
    if binary:
        version = _binary_version(binary)
        if version and not version.startswith("v2."):
            found.append(("binary", Renderer("helm", version)))
            if renderer_helm_major(found[0][1].label()) == major:
                return found[0]  # the SDK is not even imported
    sdk = _find_sdk()
    if sdk is not None:
        found.append(sdk)
    for mode, renderer in found:
        if renderer_helm_major(renderer.label()) == major:
            return mode, renderer
    return found[0] if found else None


_HELM_VERSION = re.compile(r"^helm v?(\d+)\.|^" + re.escape(SDK_NAME) + r" .*\(Helm v?(\d+)\.")


def renderer_helm_major(label: str) -> int | None:
    """The Helm major of a renderer's label (``helm v3.15.2`` -> 3, ``helm-python-sdk 0.2.2 (Helm
    v4.2.3)`` -> 4); None for a renderer that is not Helm's, or a version it cannot tell."""
    match = _HELM_VERSION.match(label)
    if match is None:
        return None
    return int(match.group(1) or match.group(2))


def helm_use(label: str, version: tuple[int, int, int]) -> dict[str, Any] | None:
    """``{"rendered": 4, "argocd": 3, "argocd_version": "3.4.7", "differs": true}``: the Helm major
    of the renderer ``label`` and the one Argo CD ``version`` renders with; None for a renderer
    that is not Helm's."""
    from hooklint.argocd import helm_major, version_text

    rendered = renderer_helm_major(label)
    if rendered is None:
        return None
    wanted = helm_major(version)
    return {"rendered": rendered, "argocd": wanted, "argocd_version": version_text(version), "differs": rendered != wanted}


def helm_use_note(label: str, version: tuple[int, int, int]) -> str | None:
    """One sentence when the Helm that rendered (``label``, a renderer's label) is not the major
    Argo CD ``version`` renders with, None when it is (or ``label`` is not Helm's)."""
    from hooklint.argocd import helm_major, version_text

    rendered, wanted = renderer_helm_major(label), helm_major(version)
    if rendered is None or rendered == wanted:
        return None
    remedy = "install a helm v3 binary" if wanted == 3 else "install helm v4 or helm-python-sdk"
    return (f"Helm charts were rendered with Helm {rendered} ({label}), but Argo CD {version_text(version)} renders "
            f"them with Helm {wanted}: {remedy} to render as it does")  # fmt: skip


def _find_sdk() -> tuple[str, Renderer] | None:
    """``("sdk", Renderer(...))`` when ``helm_python`` is installed and its native library loads in
    a child process, else None. The child's answer is remembered (:func:`_sdk_version`): a run
    starts no child (and loads no 85 MB Go library) only to learn the version it learnt before."""
    path = _sdk_path()
    if path is None:
        return None
    answer = _sdk_version(path)
    if answer is None:
        return None
    return "sdk", Renderer(SDK_NAME, f"{answer['sdk']} (Helm {answer['helm']})")


#: :func:`_sdk_question` -> the SDK's answer to it, in this process (a review's base and head are
#: two repositories, and :func:`find_helm` is memoised per repository).
_SDK_ANSWERS: dict[str, dict[str, str]] = {}


def _sdk_version(path: str) -> dict[str, str] | None:
    """``{"sdk": "0.2.2", "helm": "v4.2.3"}``: what the child (:mod:`._helm_child`) answers for
    the ``helm_python`` in folder ``path``; None when it cannot load or answer. Asked once per
    process and :func:`_sdk_question`, and kept in the cache folder like ``kubectl version``
    (:func:`hooklint.sources.render.cache.remembered_answer`, under the interpreter that runs the
    child); not kept when ``HELM_C_LIB`` names the library (a folder may hold another one later)."""
    question = _sdk_question(path)
    if question in _SDK_ANSWERS:
        return _SDK_ANSWERS[question]

    def ask() -> str:
        work = tempfile.mkdtemp(prefix="hooklint-helm-")
        try:
            answer = _ask_sdk({"op": "version"}, work, bounded.Limits(timeout=30))
        except (_HelmFailed, bounded.Stopped, OSError):
            return ""
        finally:
            remove_tree(work)
        if not isinstance(answer.get("sdk"), str) or not isinstance(answer.get("helm"), str):
            return ""
        return json.dumps({"sdk": answer["sdk"], "helm": answer["helm"]})

    text = ask() if os.environ.get("HELM_C_LIB") else remembered_answer(question, sys.executable, ask)
    found = _version_answer(text)
    if found is None and text:  # a kept answer that is none (an entry written otherwise): asked again
        found = _version_answer(ask())
    if found is not None:
        _SDK_ANSWERS[question] = found
    return found


def _version_answer(text: str) -> dict[str, str] | None:
    """``{"sdk": ..., "helm": ...}`` read from ``text``, None when it is not that (``""``: not answered)."""
    try:
        found = json.loads(text)
    except ValueError:
        return None
    if not isinstance(found, dict) or not isinstance(found.get("sdk"), str) or not isinstance(found.get("helm"), str):
        return None
    return {"sdk": found["sdk"], "helm": found["helm"]}


def _sdk_question(path: str) -> str:
    """The SDK's version question as text that changes with what answers it
    (:func:`hooklint.files.sdk_identity` of the folder ``path``): an upgrade writes its
    files anew, so it is asked again."""
    return json.dumps(["helm-python-sdk version", sdk_identity(path)])


def _renderer_identity(mode: str, root: str) -> str:
    """The build of the renderer ``mode`` (``"binary"``, ``"sdk"``) that renders in repository
    ``root``, as JSON text for the render key: the ``helm`` binary's path and stat signature
    (:func:`hooklint.files.program_identity`), or the SDK's files, library and
    ``HELM_C_LIB`` (:func:`hooklint.files.sdk_identity`); ``""`` when it is gone."""
    if mode == "binary":
        binary = sandbox.find_program("helm", os.path.abspath(root))
        return json.dumps(program_identity(binary)) if binary else ""
    folder = _sdk_path()
    return json.dumps(sdk_identity(folder)) if folder else ""


def _sdk_path() -> str | None:
    """The folder ``helm_python`` would be imported from (found without importing it), or None."""
    try:
        spec = importlib.util.find_spec("helm_python")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.dirname(os.path.abspath(list(spec.submodule_search_locations)[0]))


def _binary_version(binary: str) -> str | None:
    """The version the Helm binary ``binary`` reports (``v3.15.2``), None when it cannot say; asked
    once per program (:func:`hooklint.sources.render.cache.remembered_answer`), but once per run for
    a wrapper (:func:`hooklint.files.dispatched`: its file does not say which build runs)."""
    if dispatched(binary):
        return _ask_version(binary)
    return remembered_answer("version --template {{.Version}}", binary, lambda: _ask_version(binary) or "") or None


def _ask_version(binary: str) -> str | None:
    try:
        done = subprocess.run(
            [binary, "version", "--template", "{{.Version}}"], capture_output=True, text=True, timeout=30,
            env=_quiet_env(tempfile.gettempdir()), stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    version = done.stdout.strip()
    return version if done.returncode == 0 and version else None


# --- the chart as the user wrote it --------------------------------------------------------------


@dataclass(slots=True)
class _Chart:
    """A chart folder (``folder`` as the user spells it) or a packaged subchart (``archive``)."""

    name: str
    folder: str | None = None
    archive: str | None = None
    dependencies: list[dict[str, Any]] = field(default_factory=list)
    #: ``(line, column)`` (1-based) of each dependency's item in ``Chart.yaml`` (its first key).
    dependency_places: list[tuple[int, int]] = field(default_factory=list)
    children: dict[str, "_Chart"] = field(default_factory=dict)
    #: The ``charts/`` entries (file or folder names) and the chart each holds.
    entries: dict[str, "_Chart"] = field(default_factory=dict)
    #: Where this chart's folder is inside the temporary copy of the chart rendered ("" for it).
    copied: str = ""
    #: ``name`` is the one its ``Chart.yaml`` gives; False for an archive whose ``Chart.yaml``
    #: hooklint could not read (its file name stands in).
    named: bool = True
    #: The ``.helmignore`` rules of the folder Helm loads it from, and where it is in that folder
    #: ("" at its top): what Helm's loader never reads of it (its lock files, ``requirements.yaml``).
    ignore: "_HelmIgnore | None" = None
    inside: str = ""

    def hidden(self, name: str) -> bool:
        """Whether Helm's loader leaves out this chart folder's file ``name`` (``.helmignore``)."""
        return self.ignore is not None and self.ignore.hides(f"{self.inside}/{name}" if self.inside else name)

    @property
    def configured_in(self) -> str:
        return self.archive or os.path.normpath(os.path.join(self.folder or ".", "Chart.yaml"))


#: Subcharts nested deeper than this (``charts/a/charts/b/...``) are refused (HL007).
MAX_SUBCHART_DEPTH = 20

#: ``bufio.MaxScanTokenSize``: a longer ``.helmignore`` line stops Helm's ``ignore.Parse``.
_MAX_IGNORE_LINE = 64 * 1024


@dataclass(frozen=True, slots=True)
class _HelmIgnore:
    """A chart folder's ``.helmignore`` as Helm's directory loader applies it (helm v4.2.3
    ``pkg/ignore/rules.go`` ``Parse``, ``parseRule``, ``Ignore``, ``AddDefaults``, used by
    ``pkg/chart/v2/loader/directory.go`` ``LoadDir``): each rule ``(negate, must_dir, pattern,
    where)``, ``where`` ``"root"`` (a leading ``/``: matched against the whole path), ``"path"``
    (a ``/`` inside: the whole path) or ``"base"`` (the last path element), with Go's
    ``filepath.Match``; ``templates/.?*`` is added last."""

    rules: tuple[tuple[bool, bool, str, str], ...] = ()

    @classmethod
    def of(cls, folder: str, max_file_size: int) -> "_HelmIgnore":
        """The rules of ``folder/.helmignore`` (the default alone without one). Raises RenderError
        (HL007 at the file and line) where Helm's ``Parse`` fails, and so does Helm's loader: a
        ``**``, a pattern Go's ``filepath.Match`` refuses, a line over 64 KiB, an unreadable file."""
        path = os.path.normpath(os.path.join(folder, ".helmignore"))
        lines: list[bytes] = []
        if os.path.lexists(path):
            try:
                data = read_bytes(path, max_file_size)
            except (NotRegularFile, FileTooLarge) as exc:
                raise RenderError(f"{path} is {problem_of(exc)}: not read", path) from None
            except OSError as exc:
                raise RenderError(f"cannot read {path}: {exc.strerror or exc}", path) from None
            lines = data.removeprefix(b"\xef\xbb\xbf").split(b"\n")
            if lines and lines[-1] == b"":
                lines.pop()
        rules = []
        for number, raw in enumerate([*lines, b"templates/.?*"], 1):
            if len(raw) > _MAX_IGNORE_LINE:
                raise RenderError(f"{path}:{number}: the line is longer than 64 KiB, which Helm's loader refuses "
                                  "(bufio.Scanner: token too long)", path, number)  # fmt: skip
            rule = go_trim_space(raw.removesuffix(b"\r").decode("utf-8", "surrogateescape"))
            if not rule or rule.startswith("#"):
                continue
            problem = "double-star (**) syntax is not supported" if "**" in rule else None
            try:
                path_match(rule, "abc")
            except BadPattern:
                problem = problem or "syntax error in pattern"
            if problem is not None:
                raise RenderError(f"{path}:{number}: {problem} (Helm's chart loader fails on this .helmignore)",
                                  path, number)  # fmt: skip
            negate = rule.startswith("!")
            rule = rule[1:] if negate else rule
            must_dir = rule.endswith("/")
            rule = rule[:-1] if must_dir else rule
            where = "root" if rule.startswith("/") else "path" if "/" in rule else "base"
            rules.append((negate, must_dir, rule[1:] if where == "root" else rule, where))
        return cls(tuple(rules))

    def ignores(self, name: str, is_dir: bool) -> bool:
        """Whether Helm's ``Rules.Ignore`` leaves out ``name`` (a path inside the chart folder,
        ``/``-separated; ``is_dir``: a folder). A ``!`` rule leaves out every path it does not
        match, as Helm's code does."""
        if name in ("", ".", "./"):
            return False
        for negate, must_dir, pattern, where in self.rules:
            try:
                matched = path_match(pattern, name.rsplit("/", 1)[-1] if where == "base" else name)
            except BadPattern:
                matched = False
            if negate:
                if must_dir and not is_dir or not matched:
                    return True
                continue
            if must_dir and not is_dir:
                continue
            if matched:
                return True
        return False

    def hides(self, path: str) -> bool:
        """Whether Helm's ``LoadDir`` walk leaves out the file ``path`` (inside the chart folder,
        either separator): the file, or a folder on its way (the walk does not enter one)."""
        parts = path.replace(os.sep, "/").split("/")
        return any(self.ignores("/".join(parts[:end]), end < len(parts)) for end in range(1, len(parts) + 1))

    def loads(self, inside: str, entry: str, is_dir: bool) -> bool:
        """Whether Helm's ``LoadDir`` walk reaches ``inside/charts/entry`` (``inside``: the
        folder's path in the loaded chart, "" for its top): neither ``charts`` nor the entry is
        left out (the folders above were checked on the way down)."""
        charts = f"{inside}/charts" if inside else "charts"
        return not self.ignores(charts, True) and not self.ignores(f"{charts}/{entry}", is_dir)


def _read_chart(folder: str, root: str, depth: int = 0, max_file_size: int = DEFAULT_MAX_FILE_SIZE,
                copied: str = "", ignore: "_HelmIgnore | None" = None, inside: str = "") -> _Chart:
    """The chart in ``folder`` with its ``charts/`` subcharts (folders read recursively, at most
    :data:`MAX_SUBCHART_DEPTH` deep, archives by the name in their ``Chart.yaml``) keyed by chart
    name and by dependency alias; ``copied`` is where the folder is in the temporary copy. Only the
    ``charts/`` entries Helm's loader loads count: not one whose name starts with ``_`` or ``.``
    (``pkg/chart/v2/loader/load.go`` ``LoadFiles``), nor one the ``.helmignore`` of the folder Helm
    loads leaves out (``ignore``, :class:`_HelmIgnore`, read from ``folder`` when None; ``inside``:
    where ``folder`` is in that loaded folder, "" at its top); such a decoy neither satisfies a
    dependency nor is rendered (attacker trial 30, B2, B3). Raises
    RenderError for a ``Chart.yaml`` that is not a regular file of at most ``max_file_size``
    bytes, not UTF-8 or not YAML, for subcharts nested too deep, and ("illegal filepath in
    symlink", as Argo CD) for a file it would read that resolves outside the repository ``root``:
    nothing outside is opened, whoever calls it."""
    chart_yaml = os.path.normpath(os.path.join(folder, "Chart.yaml"))
    real_root = os.path.realpath(root)
    _refuse_outside(chart_yaml, real_root, chart_yaml)
    try:
        text = read_bytes(chart_yaml, max_file_size).decode("utf-8-sig")
        document = go_first_document(text)  # as Helm reads it: sigs.k8s.io/yaml, the first document
        node, meta = document.node, document.value
    except Unreadable as exc:  # fail closed: Helm may read it otherwise, and its dependencies go unchecked
        raise RenderError(f"{chart_yaml} is not YAML hooklint reads as Helm does: {exc}", chart_yaml, exc.line,
                          exc.column) from None  # fmt: skip
    except (NotRegularFile, FileTooLarge) as exc:
        raise RenderError(f"{chart_yaml} is {problem_of(exc)}: not read", chart_yaml) from None
    except OSError as exc:
        raise RenderError(f"cannot read {chart_yaml}: {exc.strerror or exc}", chart_yaml) from None
    except UnicodeDecodeError:
        raise RenderError(f"{chart_yaml} is not valid UTF-8", chart_yaml) from None
    except yaml.YAMLError as exc:
        raise RenderError(f"{chart_yaml} is not valid YAML: {_one_line(str(exc))}", chart_yaml) from None
    meta = _metadata(node, meta, chart_yaml, HELM_METADATA_FIELDS)
    if not isinstance(meta, dict) or not isinstance(meta.get("name"), str) or not meta["name"]:
        raise RenderError(f"{chart_yaml} has no chart name", chart_yaml)
    chart = _Chart(name=meta["name"], folder=folder, copied=copied)
    dependencies, places = meta.get("dependencies"), []
    if isinstance(dependencies, list) and isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key.value, str) and go_fold(key.value) == "dependencies" and isinstance(value, yaml.SequenceNode):
                places = [(item.start_mark.line + 1, item.start_mark.column + 1) for item in value.value
                          if isinstance(item, yaml.MappingNode)]  # fmt: skip
    if ignore is None:
        ignore = _HelmIgnore.of(folder, max_file_size)
    chart.ignore, chart.inside = ignore, inside
    _refuse_outside(os.path.join(folder, "requirements.yaml"), real_root, chart_yaml)
    # a requirements.yaml the .helmignore leaves out is never read by Helm (attacker trial 31, B2)
    required = None if chart.hidden("requirements.yaml") else _requirements(folder, max_file_size, chart_yaml)
    if required is not None:  # Helm merges requirements.yaml into Chart.yaml's fields, whatever the apiVersion
        if dependencies:
            raise RenderError(f"{chart_yaml} lists dependencies and so does requirements.yaml beside it: Helm "
                              "decodes both into one list, which hooklint does not model; keep the dependencies "
                              "in Chart.yaml only", chart_yaml, argocd_renders=_HELM_DECODES)  # fmt: skip
        dependencies, places = required, []
    chart.dependencies = [d for d in (dependencies or []) if isinstance(d, dict)]
    if len(places) != len(chart.dependencies):
        places = [(1, 1)] * len(chart.dependencies)
    chart.dependency_places = places
    charts_dir = os.path.join(folder, "charts")
    entries = sorted(os.listdir(charts_dir)) if os.path.isdir(charts_dir) else []
    for entry in entries:
        path = os.path.normpath(os.path.join(charts_dir, entry))
        _refuse_outside(path, real_root, chart_yaml)
        if entry[:1] in ("_", ".") or not ignore.loads(inside, entry, os.path.isdir(path)):
            continue  # Helm's loader never loads it
        if os.path.isdir(path) and os.path.exists(os.path.join(path, "Chart.yaml")):
            if depth + 1 > MAX_SUBCHART_DEPTH:
                raise RenderError(f"subcharts are nested more than {MAX_SUBCHART_DEPTH} levels deep ({path}): "
                                  "hooklint reads no deeper", chart_yaml)  # fmt: skip
            sub = _read_chart(path, root, depth + 1, max_file_size, os.path.join(copied, "charts", entry), ignore,
                              f"{inside}/charts/{entry}" if inside else f"charts/{entry}")  # fmt: skip
        elif entry.endswith(".tgz") and os.path.isfile(path):
            read = _archive_chart_name(path)
            sub = _Chart(name=read or entry[: -len(".tgz")], archive=path, named=read is not None)
        else:
            continue
        chart.entries[entry] = sub
        chart.children.setdefault(sub.name, sub)
        chart.children.setdefault(entry, sub)  # a folder or archive named after the dependency
    for dep in chart.dependencies:
        alias, name = dep.get("alias"), dep.get("name")
        if isinstance(alias, str) and alias and name in chart.children:
            chart.children.setdefault(alias, chart.children[name])
    return chart


def _refuse_outside(path: str, real_root: str, *where: Any, real: str | None = None) -> None:
    """Raise RenderError (HL007 at ``where``: file[, line, column]; Argo CD's "illegal filepath
    in symlink") when ``path``, as the file system resolves it (``real``, when the caller has it),
    is outside the repository whose real path is ``real_root``; a path that does not exist
    resolves to itself and passes (the caller finds it missing). The one containment test of a
    chart's files."""
    if not within(real or os.path.realpath(path), real_root):
        raise RenderError(f"illegal filepath in symlink {os.path.normpath(path)}: it leaves the repository", *where)


def _requirements(folder: str, max_file_size: int, chart_yaml: str) -> list[Any] | None:
    """The ``dependencies`` a chart's ``requirements.yaml`` gives Helm (None without the file, or
    when the file names no dependencies). Helm's loader (``pkg/chart/loader/load.go`` at v3.19.4,
    ``pkg/chart/v2/loader/load.go`` at v4.2.1, ``LoadFiles``) decodes it into the chart's
    ``Metadata`` after ``Chart.yaml`` for EVERY apiVersion (a v2 chart only gets a warning), keys
    matched as Go's ``encoding/json`` matches them (:func:`_metadata`). Read as Helm reads it
    (:func:`~hooklint.yamlio.go_first_document`); RenderError (HL007) for one hooklint cannot read
    so, and for one naming any other ``Metadata`` field (it would override ``Chart.yaml``'s, which
    hooklint does not model): Helm may read it otherwise, and its dependencies would go unchecked."""
    path = os.path.join(folder, "requirements.yaml")
    if os.path.isdir(path):  # Helm's LoadDir walks a folder of that name, it loads no such file
        return None
    try:
        document = go_first_document(read_bytes(path, max_file_size).decode("utf-8-sig"))
    except FileNotFoundError:
        return None
    except (NotRegularFile, FileTooLarge) as exc:
        raise RenderError(f"{os.path.normpath(path)} is {problem_of(exc)}: not read", chart_yaml) from None
    except OSError as exc:
        raise RenderError(f"cannot read {os.path.normpath(path)}: {exc.strerror or exc}", chart_yaml) from None
    except (UnicodeDecodeError, Unreadable, yaml.YAMLError) as exc:
        raise RenderError(f"{os.path.normpath(path)} is not YAML hooklint reads as Helm does: "
                          f"{_one_line(str(exc))}", chart_yaml) from None  # fmt: skip
    data = _metadata(document.node, document.value, os.path.normpath(path), HELM_METADATA_FIELDS)
    if not isinstance(data, dict):
        return None
    for key in data:
        if key in HELM_METADATA_FIELDS and key != "dependencies":
            raise RenderError(f"{os.path.normpath(path)} sets the chart's {key!r}: Helm decodes requirements.yaml "
                              "over Chart.yaml's fields, which hooklint does not model; keep only dependencies "
                              "in it", chart_yaml, argocd_renders=_HELM_DECODES)  # fmt: skip
    if "dependencies" not in data:
        return None
    deps = data["dependencies"]
    return deps if isinstance(deps, list) else []


#: The fields of Helm's ``Dependency`` (``pkg/chart/dependency.go`` at v3.19.4,
#: ``pkg/chart/v2/dependency.go`` at v4.2.1) by their JSON names.
HELM_DEPENDENCY_FIELDS: dict[str, Any] = {n: None for n in (
    "name", "version", "repository", "condition", "tags", "enabled", "import-values", "alias")}  # fmt: skip

#: The fields of Helm's chart ``Metadata`` (``pkg/chart/metadata.go`` at v3.19.4,
#: ``pkg/chart/v2/metadata.go`` at v4.2.1) by their JSON names, ``dependencies`` a list of
#: :data:`HELM_DEPENDENCY_FIELDS`.
HELM_METADATA_FIELDS: dict[str, Any] = {
    **{n: None for n in ("name", "home", "sources", "version", "description", "keywords", "maintainers", "icon",
                         "apiVersion", "condition", "tags", "appVersion", "deprecated", "annotations",
                         "kubeVersion", "type")},
    "dependencies": ("list", HELM_DEPENDENCY_FIELDS),
}  # fmt: skip

#: The fields of Helm's ``Lock`` (``Chart.lock``, ``requirements.lock``).
HELM_LOCK_FIELDS: dict[str, Any] = {"generated": None, "digest": None,
                                    "dependencies": ("list", HELM_DEPENDENCY_FIELDS)}  # fmt: skip


#: How Argo CD renders a chart hooklint refuses for a key it does not model (HL009).
_HELM_DECODES = "Argo CD's Helm loads the chart, decoding its metadata as Go's JSON decoder does"


def _metadata(node: yaml.Node | None, value: Any, path: str, fields: dict[str, Any]) -> Any:
    """``value`` (a ``Chart.yaml``, ``requirements.yaml`` or lock file as go-yaml decodes it,
    ``node`` its composed mapping) as Helm decodes it into its struct of ``fields``: Helm reads
    these files with ``sigs.k8s.io/yaml`` then Go's ``encoding/json``, which matches an object
    key to a field by exact name or else case-insensitively with Go's folding
    (:func:`~hooklint.gojsonread.go_fold`: ``Dependencies``,
    ``DEPENDENCIES`` and ``dependencieſ`` all are ``dependencies``), at the dependency level too.
    Keys are renamed to the field names. Raises RenderError (HL007 at the later key) for a mapping
    with two keys naming one field: which one Helm keeps depends on decoding order, and hooklint
    refuses rather than guess."""
    if not isinstance(value, dict):
        return value
    found = ambiguous_key(node, fields)
    if found is not None:
        field_path, earlier, later = found
        raise RenderError(f"{path}: {later.value!r} and {earlier.value!r} (line {earlier.start_mark.line + 1}) both "
                          f"name Helm's field {field_path!r} (Go's JSON decoder matches keys case-insensitively): "
                          "keep one, spelled as Helm documents it", path, later.start_mark.line + 1,
                          later.start_mark.column + 1, argocd_renders=_HELM_DECODES)  # fmt: skip
    return canonical(value, fields)


def _archive_chart_name(path: str) -> str | None:
    """The ``name`` in ``<folder>/Chart.yaml`` of a packaged chart (read only that member); None
    when hooklint cannot read it as Helm does: Helm's loader (``pkg/chart/loader/archive``
    ``LoadArchiveFiles``) drops each member's first folder, whatever its name, and keeps the last
    of two members so named, so an archive with more than one such ``Chart.yaml`` is not named
    (attacker trial 30, B8: the first was taken, Helm read the second)."""
    try:
        raw, complete = gunzipped(read_bytes(path, DEFAULT_MAX_FILE_SIZE), MAX_ARCHIVE_BYTES)
        if not complete or tar_disagreement(raw) is not None:
            return None  # Helm's loader (Go) may name its members otherwise
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as archive:
            found = [m for m in archive if not m.isdir()
                     and "/".join(p for p in m.name.replace("\\", "/").split("/")[1:] if p not in ("", ".")) == "Chart.yaml"]
            if len(found) != 1:
                return None
            member = found[0]
            if member.isfile() and member.size < 1 << 20 and member.name.strip("/").count("/") == 1:
                handle = archive.extractfile(member)
                meta = yaml.load(handle.read(), Loader=BoundedLoader) if handle else None
                meta = canonical(meta, HELM_METADATA_FIELDS) if isinstance(meta, dict) else meta
                name = meta.get("name") if isinstance(meta, dict) else None
                return name if isinstance(name, str) else None
    except (OSError, tarfile.TarError, yaml.YAMLError, EOFError):
        return None
    return None


@dataclass(slots=True)
class _Stub:
    """A dependency that needs a chart repository or an OCI registry (``helm dependency build``
    fetches it; hooklint never does). The temporary copy holds in its place an empty chart of that
    name and a version within the dependency's constraint, with one marker template: Helm itself
    then applies ``condition``, ``tags`` and ``alias`` to it as to the real chart (pkg/chartutil
    ``ProcessDependencies``), and the marker is rendered only when the dependency is enabled. The
    marker is dropped from the rendering; an enabled stub is an
    :class:`~hooklint.sources.render.rendered.Omission` on its ``Chart.yaml`` entry."""

    name: str
    repository: str
    version: str
    line: int
    column: int
    folder: str = ""  # its folder inside the copy: charts/<...>
    #: Why ``--fetch`` did not fetch it, when it was asked to.
    problem: str = ""
    #: Why it was left out when that is not the network (its lock entry names another repository).
    why: str = ""


#: ``helm dependency build``'s download when the run may fetch (``--fetch``,
#: :func:`hooklint.sources.appmap.remote.dependency_fetcher`): called with a dependency's name,
#: repository, version (``Chart.lock``'s, else the ``Chart.yaml`` constraint) and where its entry
#: is written (file, line, column); returns the unpacked chart's folder and the folder nothing of
#: it may leave, or why it was not fetched (one line).
DependencyFetcher = Callable[[str, str, str, str, int, int], "tuple[str, str] | str"]


@dataclass(slots=True)
class _LocalDependency:
    """A ``file://`` dependency inside the repository, as ``helm dependency build`` packages it into
    ``charts/`` (pkg/downloader ``tarFromLocalDir``): its chart (``tree``, read from ``folder``, the
    path the user can open) and files, copied into the copy's ``charts/`` (``tree.copied``)."""

    tree: _Chart
    files: list[tuple[str, str]]


@dataclass(slots=True)
class _Build:
    """What ``helm dependency build`` changes in ``charts/`` before the chart is rendered offline:
    nothing when every dependency is there (Argo CD then does not run it), else the ``file://``
    dependencies copied in (``local``; ``dropped``: the ``charts/`` entries they replace) and the
    dependencies that need the network rendered as :class:`_Stub`."""

    local: list[_LocalDependency] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    stubs: list[_Stub] = field(default_factory=list)
    #: Dependencies left out whatever their ``condition``: one a kept ``charts/`` folder shadows.
    omissions: list[Omission] = field(default_factory=list)

    def files(self) -> list[tuple[str, str]]:
        """``(path to read, path inside the copy)`` of every file the build copies in."""
        return [(path, os.path.join(dep.tree.copied, inside)) for dep in self.local for path, inside in dep.files]


def _present(chart: _Chart, dep: dict[str, Any]) -> bool:
    """Helm's ``CheckDependencies`` (``pkg/action/install.go``: ``d.Name() == r.Name``):
    a chart under ``charts/`` (a folder or an archive) whose ``Chart.yaml`` names it the dependency's
    name. Neither the folder's or archive's own name nor the alias counts: a decoy ``charts/wanted/``
    holding a chart named ``decoy`` leaves ``wanted`` missing, and Argo CD's repo server then runs
    ``helm dependency build``, which downloads it (attacker trial 29, B1: it was taken as present,
    and the real chart's hook went unseen)."""
    return any(sub.named and sub.name == dep.get("name") for sub in chart.entries.values())


def _needs_network(repository: str) -> bool:
    """A chart repository (``https://``, ``@name``, ``alias:name``), an OCI registry or any other
    URL but ``file://``: ``helm dependency build`` downloads it."""
    return bool(_URL_SCHEME.match(repository)) and not repository.startswith("file://") or (
        repository.startswith("@") or repository.startswith("alias:"))


def _lock(chart: _Chart, max_file_size: int) -> tuple[str, list[tuple[dict[str, Any], int, int]]] | None:
    """The lock file Helm's loader keeps for ``chart`` (``requirements.lock`` over ``Chart.lock``:
    ``LoadFiles`` reads both, the later in its sorted walk winning) and its dependencies, each with
    the 1-based line and column of its item; None without one. A lock hooklint cannot read as YAML
    counts as one with no dependencies (Helm fails to load the chart: the rendering fails too)."""
    for name in ("requirements.lock", "Chart.lock"):
        path = os.path.normpath(os.path.join(chart.folder or ".", name))
        if not os.path.isfile(path) or chart.hidden(name):  # one the .helmignore leaves out: never read (trial 31, B3)
            continue
        try:
            document = go_first_document(read_bytes(path, max_file_size).decode("utf-8-sig"))
        except (OSError, UnicodeDecodeError, Unreadable, yaml.YAMLError, FileTooLarge, NotRegularFile):
            return path, []
        data = canonical(document.value, HELM_LOCK_FIELDS) if isinstance(document.value, dict) else None
        deps = data.get("dependencies") if isinstance(data, dict) else None
        places: list[tuple[int, int]] = []
        if isinstance(document.node, yaml.MappingNode):
            for key, value in document.node.value:
                if isinstance(key.value, str) and go_fold(key.value) == "dependencies" and isinstance(value, yaml.SequenceNode):
                    places = [(item.start_mark.line + 1, item.start_mark.column + 1) for item in value.value]
        items = deps if isinstance(deps, list) else []
        if len(places) != len(items):
            places = [(1, 1)] * len(items)
        return path, [(d, line, column) for d, (line, column) in zip(items, places) if isinstance(d, dict)]
    return None


def _dependency_build(chart: _Chart, root: str, max_file_size: int = DEFAULT_MAX_FILE_SIZE,
                      fetch: DependencyFetcher | None = None, withheld: Withheld = Withheld()) -> _Build:  # fmt: skip
    """``helm dependency build`` as Argo CD runs it, offline (``reposerver/repository/repository.go``
    ``helmTemplate``: ``helm template`` first, and ``runHelmBuild`` only when it fails for a
    dependency missing from ``charts/``). When every dependency of ``chart`` is under ``charts/``
    nothing changes. Otherwise Helm (v4.2.3 ``pkg/downloader/manager.go`` ``Build``,
    ``downloadAll``, ``safeMoveDeps``) fetches EVERY dependency again, whatever ``charts/`` holds,
    then deletes every archive of ``charts/`` it did not fetch (but one of a dependency without a
    repository) and keeps every folder: so each ``file://`` dependency is taken from its folder
    (relative to the chart, as pkg/downloader/resolver ``GetLocalPath``); each one needing a chart
    repository or registry becomes a :class:`_Stub`, present in ``charts/`` or not (attacker trial
    30, B4: a committed decoy was taken for it); one without a repository must be the folder
    ``charts/<name>``; the archives are dropped. With ``fetch`` (``--fetch``), one that
    needs a chart repository or registry is downloaded (at ``Chart.lock``'s version when it pins
    one) and rendered with the chart like a ``file://`` one, its files contained in the download;
    one that is not fetched stays a stub saying why. ``chart.children`` is updated to the charts
    rendered. ``withheld``: what no copy holds (:func:`_chart_files`).

    With a lock file, ``Build`` fetches what the lock lists once its digest (``HashReq`` of both
    lists) matches, which hooklint does not compute: a dependency the lock gives another repository
    than ``Chart.yaml`` is left out (a :class:`_Stub` saying so: HL009 when enabled; trial 30, B1),
    and a lock entry naming a chart ``Chart.yaml`` does not is a RenderError with
    ``argocd_renders`` (HL009) at that entry.

    Raises RenderError (HL007) at the dependency's ``Chart.yaml`` entry for a dependency with no
    name or an empty one (Helm finds it missing and cannot build it; trial 30, B9), for one missing
    from the lock file while the build runs (Helm: "the lock file is out of sync"), for a
    ``file://`` folder that resolves outside the repository (hooklint reads nothing there; Argo
    CD's checkout does not hold it), is missing, holds no ``Chart.yaml`` or a chart of another
    name, and for a missing dependency without a repository. A
    folder of ``charts/`` holding a chart of the name of a dependency the build fetches is rendered,
    and the dependency is an Omission (``omissions``): Helm keeps both and renders one or both
    depending on their versions and Go's map order."""
    deps = list(zip(chart.dependencies, chart.dependency_places))
    for index, (dep, (line, column)) in enumerate(deps):
        name = dep.get("name")
        if not isinstance(name, str) or not name:
            told = ("an empty name" if name == "" else "no name" if name is None
                    else f"a name that is not a string ({type(name).__name__}: Helm cannot load the Chart.yaml)")  # fmt: skip
            raise RenderError(f"chart dependency {index + 1} has {told}: helm template finds it missing in charts/ and "
                              "helm dependency build cannot fetch it, so Argo CD fails to render the chart; name the "
                              "chart it depends on", chart.configured_in, line, column)  # fmt: skip
    if all(_present(chart, dep) for dep, _ in deps):
        return _Build()
    build = _Build()
    real_root = os.path.realpath(root)
    charts_dir = os.path.normpath(os.path.join(chart.folder or ".", "charts"))
    if os.path.lexists(charts_dir) and not os.path.isdir(charts_dir):  # trial 31, B6: was an internal error
        raise RenderError(f"{charts_dir} is not a folder: helm dependency build, which Argo CD runs for a dependency "
                          "missing from it, fails", chart.configured_in)  # fmt: skip
    taken = set(chart.entries)
    lock = _lock(chart, max_file_size)
    locked: dict[str, list[str]] = {}
    pinned: dict[tuple[str, str], str] = {}  # (name, repository) -> the version the lock pins: what the build downloads
    if lock is not None:
        lock_path, lock_deps = lock
        named = {dep["name"] for dep, _ in deps}
        for listed, line, column in lock_deps:
            pair = (listed.get("name"), str(listed.get("repository") or ""))
            locked.setdefault(str(pair[0]), []).append(pair[1])
            if listed.get("version") is not None:
                pinned.setdefault((str(pair[0]), pair[1]), str(listed["version"]))
            if pair[0] not in named:
                raise RenderError(f"{lock_path} lists chart {pair[0]!r} ({pair[1] or 'no repository'}), which "
                                  f"{chart.configured_in} does not list: helm dependency build fetches what the lock lists "
                                  "when its digest matches (and fails when not), and Helm renders every chart it "
                                  "fetched; hooklint does not check the digest. Run helm dependency update to write "
                                  "the lock again", lock_path, line, column,
                                  argocd_renders="Argo CD runs helm dependency build, which fetches the charts the "
                                  "lock lists")  # fmt: skip
    fetched = {dep["name"] for dep, _ in deps if dep.get("repository")}
    local_names = {dep["name"] for dep, _ in deps if not dep.get("repository")}
    for entry, held in chart.entries.items():  # safeMoveDeps: every archive but a repository-less one's is replaced
        if held.archive is not None and held.named and held.name not in local_names:
            build.dropped.append(entry)
    for dep, (line, column) in deps:
        name, repository = dep["name"], str(dep.get("repository") or "")
        version = str(dep.get("version") or "")
        where = (chart.configured_in, line, column)
        kept = next((entry for entry, sub in chart.entries.items() if sub.folder is not None and sub.name == name), None)
        if name in fetched and kept is not None:  # the folder is rendered; what the build fetches is left out
            build.omissions.append(Omission(
                f"chart dependency {name} ({repository}): {charts_dir}/{kept}/ holds a chart named {name} too, which "
                f"helm dependency build keeps beside the {name} it fetches: Helm renders one of the two, or both, as "
                "their versions and Go's map order fall; hooklint checked the folder's", *where,
                argocd_renders="Argo CD runs helm dependency build, then renders the chart with whichever Helm picks",
                unchecked="the objects the fetched chart adds, possibly hooks, were not checked; remove the folder, "
                "or commit every dependency so that no build runs"))  # fmt: skip
            continue
        if lock is not None and locked.get(name) != [repository]:
            if not locked.get(name):
                if kept is not None and not repository:
                    continue
                raise RenderError(f"chart dependency {name} is not in {lock[0]}: helm dependency build fails (the "
                                  f"lock file is out of sync with the dependencies file, or {name} stays missing); "
                                  "run helm dependency update", *where)  # fmt: skip
            other = ", ".join(r or "no repository" for r in locked[name])
            build.stubs.append(_Stub(name, repository, _version_within(version), line, column,
                                     os.path.join("charts", _free_name(f"hooklint-omitted-{len(build.stubs)}", taken)),
                                     why=f"{lock[0]} names {other} for it: helm dependency build fetches what the "
                                     "lock lists when its digest matches (and fails when not), which hooklint does "
                                     "not check"))  # fmt: skip
            continue
        if repository.startswith("file://"):
            spelled = repository[len("file://"):]
            folder = os.path.normpath(spelled if spelled.startswith("/") else os.path.join(chart.folder or ".", spelled))
            real = facts.realpath(folder)
            if not within(real, real_root):
                raise RenderError(f"chart dependency {name}: {repository} resolves outside the repository; hooklint "
                                  "reads nothing outside it (and Argo CD's checkout of the repository does not hold "
                                  "it)", *where)  # fmt: skip
            if not os.path.isdir(real):
                raise RenderError(f"chart dependency {name}: directory {folder} not found ({repository})", *where)
            if not os.path.isfile(os.path.join(real, "Chart.yaml")):
                raise RenderError(f"chart dependency {name}: {folder} holds no chart (Chart.yaml file is missing)",
                                  *where)  # fmt: skip
            inside = _free_name(f"hooklint-dependency-{len(build.local)}", taken)
            files = _chart_files(folder, root, max_file_size, where, withheld)  # first: a link out is refused before any read
            tree = _read_chart(folder, root, 1, max_file_size, os.path.join(chart.copied, "charts", inside))
            if tree.name != name:
                raise RenderError(f"chart dependency {name}: the chart in {folder} is named {tree.name} (helm template: "
                                  f"found in Chart.yaml, but missing in charts/ directory: {name})", *where)  # fmt: skip
            # tarFromLocalDir packages what LoadDir of the folder reads: its own .helmignore applies (trial 31, B1)
            files = [(path, inside_path) for path, inside_path in files if not tree.hidden(inside_path)]
            build.local.append(_LocalDependency(tree, files))
            continue
        if not _needs_network(repository):
            own = chart.entries.get(name)
            if own is not None and own.folder is not None and own.name == name:
                continue  # downloadAll: a dependency without a repository is the folder charts/<name>
            raise RenderError(f"chart dependency {name} is not in {charts_dir}/ and names no repository (helm "
                              f"dependency build: directory {charts_dir}/{name} not found)", *where)  # fmt: skip
        problem = ""
        if fetch is not None:  # --fetch: helm dependency build's download, then as a file:// dependency
            got = fetch(name, repository, pinned.get((name, repository)) or version, *where)
            if isinstance(got, str):
                problem = got
            else:
                folder, fetched_root = got
                inside = _free_name(f"hooklint-dependency-{len(build.local)}", taken)
                files = _chart_files(folder, fetched_root, max_file_size, where, withheld)
                tree = _read_chart(folder, fetched_root, 1, max_file_size, os.path.join(chart.copied, "charts", inside),
                                   _HelmIgnore())  # an archive: Helm's loader applies no .helmignore  # fmt: skip
                if tree.name != name:
                    raise RenderError(f"chart dependency {name}: the chart fetched from {repository} is named "
                                      f"{tree.name}", *where)  # fmt: skip
                build.local.append(_LocalDependency(tree, files))
                continue
        folder = _free_name(f"hooklint-omitted-{len(build.stubs)}", taken)
        build.stubs.append(_Stub(name, repository, _version_within(version), line, column,
                                 os.path.join("charts", folder), problem))  # fmt: skip
    dropped = {id(chart.entries[entry]) for entry in build.dropped}
    for key in [key for key, sub in chart.children.items() if id(sub) in dropped]:
        del chart.children[key]
    for local in build.local:
        chart.children.setdefault(local.tree.name, local.tree)
    for dep, _ in deps:
        alias = dep.get("alias")
        if isinstance(alias, str) and alias and dep["name"] in chart.children:
            chart.children.setdefault(alias, chart.children[dep["name"]])
    build.omissions += _conditions_on_stubs(chart, deps, build.stubs)
    return build


def _conditions_on_stubs(chart: _Chart, deps: list[tuple[dict[str, Any], tuple[int, int]]],
                         stubs: list[_Stub]) -> list[Omission]:  # fmt: skip
    """An Omission for each dependency whose ``condition`` reads a value of a dependency left out
    (a :class:`_Stub`, by its name or alias): Helm decides ``condition`` on the values coalesced with
    every subchart's defaults, disabled ones too (``pkg/chart/v2/util/dependencies.go``
    ``processDependencyEnabled``: ``CoalesceValues``, then the first path found wins), and the
    stub holds none of the real chart's, so whether Helm renders that dependency is not known
    (attacker trial 31, B4: ``condition: a.enableB,b.enabled`` with ``enableB: true`` in the
    defaults of a left-out ``a`` rendered ``b``'s hook, which hooklint saw disabled)."""
    stubbed = {s.name for s in stubs}
    left = stubbed | {str(d.get("alias")) for d, _ in deps if d.get("name") in stubbed and isinstance(d.get("alias"), str)}
    out = []
    for dep, (line, column) in deps:
        if dep.get("name") in stubbed:
            continue  # its own: a value it does not find leaves it enabled, and its stub is said then
        condition = dep.get("condition")
        paths = [p.strip() for p in condition.split(",")] if isinstance(condition, str) else []
        read = next((p for p in paths if p.split(".", 1)[0] in left), None)
        if read is not None:
            out.append(Omission(
                f"chart dependency {dep['name']}: its condition reads {read}, a value of a dependency hooklint left "
                f"out, whose defaults Helm takes into account: whether Helm renders {dep['name']} is not known",
                chart.configured_in, line, column,
                argocd_renders="Argo CD runs helm dependency build, and Helm decides the condition with the "
                "defaults of every dependency",
                unchecked=f"{dep['name']}'s objects, possibly hooks, may render where hooklint saw them disabled; run "
                "with `--fetch` to check them"))  # fmt: skip
    return out


def _free_name(name: str, taken: set[str]) -> str:
    """``name``, or ``name-2``, ``name-3``... : the first not in ``taken`` (then added to it)."""
    candidate, count = name, 1
    while candidate in taken:
        count += 1
        candidate = f"{name}-{count}"
    taken.add(candidate)
    return candidate


_VERSION_IN = re.compile(r"v?([0-9]+)(?:\.([0-9]+|[xX*]))?(?:\.([0-9]+|[xX*]))?(-[0-9A-Za-z.-]+)?")


def _version_within(constraint: str) -> str:
    """A semantic version that the dependency ``version`` constraint admits, for its stub: the
    first version written in it (``~1.2`` -> ``1.2.0``, ``^19.0.x`` -> ``19.0.0``, ``>=1.2.3 <2``
    -> ``1.2.3``, ``>1.2.3`` -> ``1.2.4``), ``0.0.0`` when it names none (``*``, ``x``, empty).
    A constraint this cannot satisfy (``<1.0.0``, ``!=1.2.3``) leaves the stub outside the
    dependency in Helm's eyes, so Helm renders it whatever its ``condition``: the dependency is
    then reported as left out even when disabled (never the reverse); so does a number past
    uint64, which Masterminds semver (``ParseUint``) cannot parse: ``0.0.0`` then (never ``int()``
    of 5,000 digits, which Python refuses)."""
    match = _VERSION_IN.search(constraint)
    if match is None or any(p and len(p.lstrip("0")) > 20 for p in match.group(1, 2, 3)):
        return "0.0.0"
    parts = [int(p) if p and p.isdigit() else 0 for p in match.group(1, 2, 3)]
    if constraint.lstrip().startswith(">") and not constraint.lstrip().startswith(">="):
        parts[2] += 1
    return ".".join(map(str, parts)) + (match.group(4) or "")


#: HL009: what a value file hooklint left out of a rendering leaves unchecked.
_OTHER_VALUES = ("the chart was rendered and checked with its other values: objects and hooks that this file's "
                 "values would add or change were not checked")  # fmt: skip


#: A build variable left in a value file name by ``applications.envsubst`` (the revision).
_REVISION_VARIABLE = re.compile(r"\$\{?ARGOCD_APP_REVISION")
#: helm-secrets' value file schemes (``secrets://``, ``secrets+age-import://KEY?FILE``,
#: ``secrets+gpg-import-kubernetes://...``, ``secrets+literal://``): Argo CD's repo server
#: decrypts them through the plugin when ``helm.valuesFileSchemes`` allows the scheme.
_HELM_SECRETS = re.compile(r"^secrets(?:\+[a-z-]+)?://", re.IGNORECASE)


@dataclass(slots=True)
class _ValueFile:
    user: str  # as reported: the path the user can open
    real: str  # resolved, inside the repository
    #: The file's text as rendered when it is SOPS-encrypted (:func:`sops_placeholders`): its keys,
    #: each encrypted value replaced by :data:`SOPS_PLACEHOLDER`; None: the file as it is.
    text: str | None = None
    #: Its index in ``valueFiles`` (where it is written: ``HelmOptions.value_file_places``).
    index: int = -1


#: What every encrypted value of a SOPS file (``ENC[AES256_GCM,data:...,type:str]``) becomes in
#: the values hooklint renders a chart with (issue 33): fixed, so that nothing of the ciphertext is
#: ever rendered, cached or printed.
SOPS_PLACEHOLDER = "hooklint-sops-encrypted-value"
_SOPS_VALUE = re.compile(r"^ENC\[AES256_GCM,.*\]$", re.DOTALL)


def sops_placeholders(path: str, max_file_size: int, scheme: bool = False) -> str | None:
    """The values of the SOPS-encrypted YAML or JSON file ``path`` as YAML text (JSON:
    :func:`~hooklint.yamlio.go_yaml_text`), without its
    top-level ``sops`` block, each encrypted value (``ENC[AES256_GCM,...]``, any type) replaced by
    :data:`SOPS_PLACEHOLDER`: the keys and plain values SOPS leaves as written keep the structure a
    chart's templates need. None when it is no SOPS file (no top-level ``sops`` mapping holding
    ``mac`` or ``lastmodified``, as ``sops`` writes into every file it encrypts, and no encrypted
    value; with ``scheme``, a helm-secrets ``secrets://`` file, any mapping) or cannot be read.
    Nothing is decrypted (getsops/sops ``stores/yaml``: the metadata is the ``sops`` key; helm-secrets
    passes the decrypted file to ``helm template``)."""
    try:
        data = read_bytes(path, max_file_size)
        value = yaml.load(data, Loader=BoundedLoader)
    except (OSError, yaml.YAMLError, YamlTooComplex, ValueError, RecursionError):
        return None
    if not isinstance(value, dict):
        return None
    sops = value.get("sops")
    found = [False]

    def placeholders(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: placeholders(v) for k, v in node.items()}
        if isinstance(node, list):
            return [placeholders(v) for v in node]
        if isinstance(node, str) and _SOPS_VALUE.match(node):
            found[0] = True
            return SOPS_PLACEHOLDER
        return node

    values = placeholders({k: v for k, v in value.items() if k != "sops"})
    marked = isinstance(sops, dict) and ("mac" in sops or "lastmodified" in sops)
    if not (scheme or marked or (isinstance(sops, dict) and found[0])):
        return None
    try:  # JSON, which Helm reads back as loaded (PyYAML's safe_dump writes the string "n" as `n`: false)
        return go_yaml_text(values)
    except (ValueError, RecursionError):  # a value JSON cannot hold (.inf): left out, as before
        return None


@dataclass(frozen=True, slots=True)
class _Skipped:
    """A value file hooklint cannot read (encrypted, remote, of another repository, naming the
    revision): ``index`` in ``valueFiles``, what it is and why it is left out, how Argo CD reads it."""

    index: int
    message: str
    argocd_renders: str


def _sops_encrypted(path: str, max_file_size: int) -> bool:
    """Whether the file ``path`` is SOPS-encrypted YAML or JSON: a top-level ``sops`` mapping
    holding ``mac`` or ``lastmodified`` (the metadata ``sops`` writes into every file it encrypts)."""
    try:
        data = read_bytes(path, max_file_size)
    except OSError:
        return False
    if not may_hold(data, b"sops"):
        return False
    try:
        value = yaml.load(data, Loader=BoundedLoader)
    except (yaml.YAMLError, YamlTooComplex, ValueError):
        return False
    sops = value.get("sops") if isinstance(value, dict) else None
    return isinstance(sops, dict) and ("mac" in sops or "lastmodified" in sops)


def _resolve_value_files(chart: str, root: str, value_files: tuple[str, ...], chart_yaml: str,
                         max_file_size: int = DEFAULT_MAX_FILE_SIZE, ignore_missing: bool = False,
                         kind: str = "value file", withheld: Withheld = Withheld(),
                         pinned_refs: tuple[tuple[str, str, str], ...] = (),
                         ) -> tuple[list[_ValueFile], list[_Skipped]]:  # fmt: skip
    """argo-cd ``util/io/path`` ``ResolveValueFilePathOrUrl``: relative to the chart folder, or to
    the repository root with a leading ``/``; must resolve (symlinks followed) inside the root, and
    be a regular file of at most ``max_file_size`` bytes (else RenderError, HL007, as Argo CD fails).

    Returns the files read and the ones left out (issue 22: the chart is rendered without them and
    checked; each is HL009 on its ``valueFiles`` entry): helm-secrets files (``secrets://...``)
    and SOPS-encrypted ones (:func:`_sops_encrypted`), which hooklint never decrypts; URLs, which
    it never fetches; ``$ref`` files of another repository, or of this one at another revision
    (``pinned_refs``: :attr:`HelmOptions.pinned_refs`); names holding the revision variables.
    With ``ignore_missing`` (``ignoreMissingValueFiles``), a file that does not exist is skipped, as
    Argo CD skips it (``getResolvedValueFiles``: ``os.IsNotExist``, then ``continue``). ``kind``
    names the entries in messages (``value file``, or ``file parameter``). One that is Git's data or
    the fetch credentials file (``withheld``) is left out: never read, never handed to Helm."""
    real_root = os.path.realpath(root)
    resolved, skipped = [], []
    for index, written in enumerate(value_files):
        name, secrets_scheme = written, _HELM_SECRETS.match(written)
        if secrets_scheme:  # helm-secrets: secrets://FILE, secrets+age-import://KEY?FILE...
            rest = written[secrets_scheme.end():]
            name = rest if written.lower().startswith("secrets://") else rest.partition("?")[2]
            joined = os.path.join(root, name.lstrip("/")) if name.startswith("/") else os.path.join(chart, name)
            if (not name or name.startswith("/") or written.lower().startswith("secrets+literal://")
                    or _URL_SCHEME.match(name)
                    or not within(facts.realpath(joined), real_root) or not os.path.isfile(facts.realpath(joined))):
                skipped.append(_Skipped(index, f"value file {written} is encrypted (helm-secrets): hooklint never "
                                        "decrypts", "Argo CD's repo server decrypts it with the helm-secrets plugin "
                                        "when it renders the chart"))  # fmt: skip
                continue
        if _URL_SCHEME.match(name):
            skipped.append(_Skipped(index, f"value file {name} is a URL: {NEVER_FETCHES} or values",
                                    "Argo CD fetches it when it renders the chart"))  # fmt: skip
            continue
        if _REVISION_VARIABLE.search(name):
            skipped.append(_Skipped(index, f"value file {name} names the commit Argo CD syncs, which hooklint does "
                                    "not know offline", "Argo CD substitutes the revision it syncs and reads that "
                                    "file"))  # fmt: skip
            continue
        pin = next((p for p in pinned_refs if name.split("/", 1)[0] == p[0]), None)
        if pin is not None:
            skipped.append(_Skipped(index, f"value file {name} is read from the `ref` source {pin[0][1:]} of this "
                                    f"repository at targetRevision {pin[1]!r} ({pin[2]}); hooklint reads `$ref` "
                                    "value files only from the working tree", "Argo CD reads it at that revision"))  # fmt: skip
            continue
        if name.startswith("$"):
            skipped.append(_Skipped(index, f"value file {name} refers to a source of a multi-source Application in "
                                    "another repository; hooklint reads `$ref` value files only from this one (it "
                                    "never fetches another repository)",
                                    "Argo CD reads it from the source named by the ref"))  # fmt: skip
            continue
        joined = os.path.join(root, name.lstrip("/")) if name.startswith("/") else os.path.join(chart, name)
        real = facts.realpath(joined)
        if real == real_root or not within(real, real_root):
            raise RenderError(f"file '{name}' resolved to outside repository root", chart_yaml)
        if ignore_missing and not os.path.lexists(real):
            continue
        why = withheld.why(joined, root)
        if why is not None:
            skipped.append(_Skipped(index, f"{kind} {os.path.normpath(joined)} is {why}: hooklint never hands it "
                                    "to a renderer", "Argo CD's Helm would read its own checkout's, which holds no "
                                    "CI credentials (hooklint cannot tell whether it renders there)"))  # fmt: skip
            continue
        problem = file_problem(real, max_file_size)
        if problem is not None:
            raise RenderError(f"{kind} {os.path.normpath(joined)} is {problem}: not read", chart_yaml)
        if not os.path.isfile(real):
            raise RenderError(f"{kind} {os.path.normpath(joined)} not found", chart_yaml)
        text = sops_placeholders(real, max_file_size, scheme=bool(secrets_scheme))
        if text is None and (secrets_scheme or _sops_encrypted(real, max_file_size)):
            skipped.append(_Skipped(index, f"value file {os.path.normpath(joined)} is SOPS-encrypted and hooklint "
                                    "cannot read its structure: hooklint never decrypts",
                                    "Argo CD's repo server decrypts it when helm-secrets wraps its helm"))  # fmt: skip
            continue
        resolved.append(_ValueFile(os.path.normpath(joined), real, text, index))
    return resolved, skipped


def _chart_files(chart: str, root: str, max_file_size: int = DEFAULT_MAX_FILE_SIZE,
                 at: tuple[str, int, int] | None = None, withheld: Withheld = Withheld()) -> list[tuple[str, str]]:
    """Every regular file under the chart folder as ``(path to read, path inside the chart)``,
    but Git's data and the fetch credentials file (``withheld``,
    :mod:`hooklint.sources.repository.withheld`: left out as if absent, so ``.Files.Get
    ".git/config"`` and ``.Files.Glob`` see nothing of them; Helm itself would read them),
    symlinks followed as Helm's loader follows them; one that leaves the repository is an error
    (Argo CD: "illegal filepath in symlink"), a dangling one is skipped. A FIFO, device or socket
    (which Helm would read forever) or a file over ``max_file_size`` bytes is a RenderError, at
    ``at`` (file, line, column: a dependency's entry in its parent's ``Chart.yaml``) or else at the
    chart's ``Chart.yaml`` (which may itself be the link out only for a dependency: the chart
    rendered is refused before when its ``Chart.yaml`` is one)."""
    where = at or (os.path.normpath(os.path.join(chart, "Chart.yaml")),)
    real_root = os.path.realpath(root)
    _refuse_outside(chart, real_root, *where)
    files, seen = [], set()
    for folder, dirs, names in walk_tree(chart, followlinks=True):
        real_folder = facts.realpath(folder)  # one lstat per name, not one per level of its path
        if real_folder in seen:
            dirs[:] = []
            continue
        seen.add(real_folder)
        dirs[:] = sorted(d for d in dirs if withheld.why(os.path.join(folder, d), root) is None)
        for name in sorted(names) + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            path = os.path.join(folder, name)
            if withheld.why(path, root) is not None:
                continue
            real = facts.realpath(path)
            if not os.path.exists(real):
                continue
            _refuse_outside(path, real_root, *where, real=real)
            problem = file_problem(real, max_file_size)
            if problem is not None:
                raise RenderError(f"chart file {os.path.normpath(path)} is {problem}: not read", *where)
            if os.path.isfile(real):
                files.append((path, os.path.relpath(path, chart)))
    return files


#: The meta-schemas Helm's JSON Schema library (santhosh-tekuri/jsonschema) knows without loading
#: them: a ``$schema`` naming another is loaded like a ``$ref``.
_KNOWN_METASCHEMAS = re.compile(
    r"https?://json-schema\.org/(?:draft-0[467]/schema|draft/20(?:19-09|20-12)/schema|schema)#?")
#: The JSON Schema keywords whose value Helm's library resolves as a reference.
_REFERENCE_KEYS = ("$ref", "$dynamicRef", "$recursiveRef")


@dataclass(frozen=True, slots=True)
class _SchemaLoad:
    """A reference of a chart's ``values.schema.json`` that Helm resolves with a loader (a URL, or
    a file of the repo server's file system): ``ref`` as written, the schema file (``path``, as
    read; ``archive`` the ``.tgz`` holding it when packaged) and the line and column of the value.
    ``unread`` says why hooklint could not read the schema through (it then cannot tell what it
    refers to, and fails closed: the schemas are left out as for a reference; ``ref`` is empty)."""

    ref: str
    path: str
    line: int = 1
    column: int = 1
    archive: str | None = None
    unread: str | None = None


class _Unreadable(ValueError):
    """A schema text hooklint's JSON reader cannot read through; the message says why."""


def _loads_of(text: str) -> list[str]:
    """The references of a ``values.schema.json`` text that are not local (``#...``) nor a known
    meta-schema, in document order; none for invalid JSON that holds no ``$`` nor ``\\`` (no key of
    it can be ``$ref``, whoever reads it). Raises :class:`_Unreadable` for a text Python's JSON
    reader cannot read through (nested deeper than it recurses, a number of more digits than it
    converts) or refuses while it may spell a reference: Go's reader, which differs (a BOM after the
    one Helm strips, what Python's ``json`` refuses and Go's accepts), may read it and Helm load
    what it names: hooklint fails closed rather than list every difference."""
    try:
        doc = json.loads(text)
    except RecursionError:
        raise _Unreadable("nested too deeply") from None
    except ValueError as exc:
        if "digits" in str(exc):  # int() of too many digits (sys.get_int_max_str_digits)
            raise _Unreadable("a number of too many digits") from None
        if "$" in text or "\\" in text:  # it can spell "$ref" ("\u0024ref" too): Go's reader may read it
            raise _Unreadable(f"JSON Python's reader refuses: {str(exc).splitlines()[0]}") from None
        return []  # no key of it can name a reference: nothing is loaded, whoever reads it
    found: list[str] = []
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(value, str) and (
                        (key in _REFERENCE_KEYS and not value.startswith("#"))
                        or (key == "$schema" and not _KNOWN_METASCHEMAS.fullmatch(value))):  # fmt: skip
                    found.append(value)
                elif isinstance(value, (dict, list)):
                    stack.append(value)
        elif isinstance(node, list):
            stack.extend(reversed(node))
    return found


def _loads_in(text: str, path: str, archive: str | None = None) -> list[_SchemaLoad]:
    """The :class:`_SchemaLoad` of the schema ``text`` of file ``path`` (in ``archive`` when
    packaged): one per reference, placed at its value as written (1:1 inside an archive), or one
    ``unread`` at 1:1 when the text cannot be read through. A UTF-8 BOM opening the text is removed
    first, as Helm's chart loaders remove it from every file of a chart folder or archive
    (``pkg/chart/v2/loader/directory.go``, ``pkg/chart/loader/archive/archive.go``: ``bytes.TrimPrefix(data,
    utf8bom)``) before the schema is compiled: Python's ``json`` refuses the BOM, and the ``$ref``
    after it was missed while Helm loaded it."""
    text = text[1:] if text.startswith("\ufeff") else text
    try:
        refs = _loads_of(text)
    except _Unreadable as exc:
        return [_SchemaLoad("", path, archive=archive, unread=str(exc))]
    found = []
    for ref in refs:
        at = text.find(json.dumps(ref)) if archive is None else -1  # the value as written, its opening quote
        line = text.count("\n", 0, at) + 1 if at >= 0 else 1
        column = at - text.rfind("\n", 0, at) if at >= 0 else 1
        found.append(_SchemaLoad(ref, path, line, column, archive))
    return found


def _refers(load: _SchemaLoad) -> str:
    """``refers to '<ref>'``, or, for a schema hooklint could not read through, what it may refer
    to and why hooklint cannot tell."""
    if load.unread is not None:
        return f"may refer to a URL or file hooklint cannot see ({load.unread})"
    return f"refers to {load.ref!r}"


def _archive_loads(data: bytes, archive: str, depth: int = 0) -> list[_SchemaLoad]:
    """:class:`_SchemaLoad` of every ``values.schema.json`` in a packaged chart (its bytes), nested
    archives included, within :data:`MAX_ARCHIVE_MEMBERS` members and :data:`MAX_ARCHIVE_BYTES` bytes.
    An archive Go's ``archive/tar`` (Helm's loader) reads otherwise than Python's ``tarfile``
    (:func:`~hooklint.sources.repository.gotar.tar_disagreement`: a schema Python names otherwise,
    attacker trial 27 B3) is one load hooklint cannot look through."""
    import io

    found: list[_SchemaLoad] = []
    raw, complete = gunzipped(data, MAX_ARCHIVE_BYTES)
    why = tar_disagreement(raw) if complete else "is too large to look through, or damaged"
    if why is not None:
        return [_SchemaLoad("", "values.schema.json", archive=archive, unread=f"an archive that {why}")]
    try:
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as tar:
            for count, member in enumerate(tar):
                if count >= MAX_ARCHIVE_MEMBERS or member.offset_data > MAX_ARCHIVE_BYTES:  # not read to its end: fail closed
                    found.append(_SchemaLoad("", "values.schema.json", archive=archive,
                                             unread="an archive too large to look through"))  # fmt: skip
                    break
                name = member.name.rsplit("/", 1)[-1]
                if member.isfile() and member.size > MAX_ARCHIVE_BYTES and name == "values.schema.json":
                    found.append(_SchemaLoad("", member.name, archive=archive, unread="a schema too large to look through"))
                if not member.isfile() or member.size > MAX_ARCHIVE_BYTES:
                    continue
                if name == "values.schema.json" or (name.endswith(".tgz") and depth < MAX_ARCHIVE_DEPTH):
                    handle = tar.extractfile(member)
                    content = handle.read() if handle is not None else b""
                    if name.endswith(".tgz"):
                        found.extend(_archive_loads(content, archive, depth + 1))
                    else:
                        found.extend(_loads_in(content.decode("utf-8", "replace"), member.name, archive))
    except (OSError, tarfile.TarError, EOFError, zlib_error):
        return found
    return found


def schema_loads(files: list[tuple[str, str]], max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> list[_SchemaLoad]:
    """The references of the chart's ``values.schema.json`` files (``files``: ``(path to read, path
    inside the chart)``, as :func:`_chart_files` lists them; packaged subcharts read too) that Helm
    would resolve with a loader when it validates the values: a ``$ref`` (or ``$dynamicRef``,
    ``$recursiveRef``) that is not a fragment of the same schema (``#/definitions/x``), and a
    ``$schema`` that is not a meta-schema the library knows. Helm v3.18+ and v4 compile a chart's
    schema as ``file:///values.schema.json`` (``pkg/chart/common/util/jsonschema.go``
    ``ValidateAgainstSingleSchema``) with loaders for ``http``, ``https`` and ``file`` URLs, so any
    other reference is fetched, or read from the file system of the repo server, not the repository:
    hooklint never does either (a values schema's ``$ref`` to ``http://127.0.0.1/...`` or
    ``file:///etc/...`` was fetched or read by the Helm SDK)."""
    found: list[_SchemaLoad] = []
    for path, _ in files:
        base = os.path.basename(path)
        if base != "values.schema.json" and not base.endswith(".tgz"):
            continue
        try:
            data = read_bytes(path, max_file_size)
        except OSError:
            continue  # Helm's loader reports an unreadable file
        if base.endswith(".tgz"):
            found.extend(_archive_loads(data, path))
            continue
        found.extend(_loads_in(data.decode("utf-8", "replace"), path))
    return found


# --- rendering -----------------------------------------------------------------------------------


def render_helm(chart: str, root: str, options: HelmOptions, helm_major: int = DEFAULT_HELM_MAJOR,
                limits: bounded.Limits | None = None, fetch: DependencyFetcher | None = None,
                withheld: Withheld | None = None) -> Rendering:
    """Render the chart in folder ``chart`` (a path as the user spelled it; ``root`` is the
    repository root, which value files must resolve inside) as Argo CD runs ``helm template``
    (module docstring), with the renderer :func:`find_helm` picks for Helm ``helm_major`` (the
    one the configured Argo CD runs), through the render cache (key: renderer and version,
    ``options``, the chart path as spelled, and the bytes of every chart file, ``file://``
    dependency file and value file), in a child process bounded by ``limits``
    (:mod:`hooklint.sources.bounded`; default 60 s and 2 GiB).

    Never blind (issue 22): dependencies are built as ``helm dependency build`` builds them offline
    (:func:`_dependency_build`: ``file://`` ones rendered with the chart); one that needs a chart
    repository or registry is left out, and when Helm's ``condition``/``tags`` enable it, it is an
    :class:`~hooklint.sources.render.rendered.Omission` at its ``Chart.yaml`` entry, unless ``fetch``
    (``--fetch``) downloads it. A value file hooklint
    cannot read (:func:`_resolve_value_files`) is left out, an Omission at its ``valueFiles`` entry
    (``options.value_file_places``; ``Chart.yaml`` 1:1 when unknown). ``Rendering.omitted`` lists
    them: the rest of the chart is rendered and checked. The copy Helm renders never holds Git's
    data nor the fetch credentials file (``withheld``; :func:`_chart_files`); a value file or file
    parameter that is one of them is left out (HL009 at its entry).

    A chart that reads ``.Capabilities`` (:func:`capability_scan`, on every run) is rendered once
    more, with every API version it names served besides ``options.api_versions`` (unless those are
    the Application's own, ``fixed_api_versions``): Argo CD passes the destination cluster's API
    resources (``--api-versions``), which may hold any of them. The objects only that rendering
    holds (by kind, namespace and name) are added to the documents, so they are checked too; what
    was read and what differed is ``Rendering.capabilities``
    (:class:`~hooklint.sources.render.rendered.CapabilityCheck`; HL025, issue 32).

    A chart no Application of the repository deploys (``options.release_guessed``: rendered as
    release <folder> in ``default``) whose templates let the release's name or namespace decide
    (:func:`~hooklint.sources.render.hermetic.release_decisions`) is rendered once more as
    :data:`OTHER_RELEASE` in :data:`OTHER_NAMESPACE`: the objects only that rendering holds are
    added, and HL009 says when the two differ (:func:`_release_check`).

    Raises RenderError (a ``file://`` dependency outside the repository or missing, a missing
    dependency without a repository, a value file missing or outside the repository, a template or
    values error: Helm's message on one line, at the chart's ``Chart.yaml`` or the template; a
    rendering stopped by a limit or ended by a signal: "Helm rendering of chart deploy/shop
    stopped after 60 s (limit: render-timeout)"; a remote chart, and a chart that does not render
    without what was left out, with ``argocd_renders``: HL009) and RendererUnavailable (neither the
    ``helm`` binary nor ``helm-python-sdk``)."""
    if _REMOTE.match(chart):
        raise RenderError(f"{chart} is a remote chart: {NEVER_FETCHES}; vendor the chart into the repository",
                          chart, needs_network=True, unchecked="none of the chart's objects were checked, "
                          "hooks included")  # fmt: skip
    chart_yaml = os.path.normpath(os.path.join(chart, "Chart.yaml"))
    limits = limits or bounded.Limits()
    withheld = withheld or Withheld()
    files = _chart_files(chart, root, limits.max_file_size, withheld=withheld)  # first: a symlink leaving the repository is refused before any read
    tree = _read_chart(chart, root, max_file_size=limits.max_file_size)
    build = _dependency_build(tree, root, limits.max_file_size, fetch, withheld)
    value_files, skipped = _resolve_value_files(chart, root, options.value_files, chart_yaml, limits.max_file_size,
                                                options.ignore_missing_value_files, withheld=withheld,
                                                pinned_refs=options.pinned_refs)  # fmt: skip
    set_files, unset = _resolve_value_files(chart, root, tuple(path for _, path in options.file_parameters),
                                            chart_yaml, limits.max_file_size, kind="file parameter",
                                            withheld=withheld, pinned_refs=options.pinned_refs)  # fmt: skip
    if unset:  # a URL, an encrypted file, another repository's: the chart would render with another value
        raise RenderError(f"spec.source.helm.fileParameters: {unset[0].message}", chart_yaml, needs_network=True,
                          argocd_renders=unset[0].argocd_renders)  # fmt: skip
    revision = next((name for name, value, _ in options.parameters if _REVISION_VARIABLE.search(value)), None)
    if revision is not None:  # applications.substitute_parameters keeps it: the chart would render with another value
        raise RenderError(f"spec.source.helm.parameters: the value of {revision} names the commit Argo CD syncs, which "
                          "hooklint does not know offline", chart_yaml, needs_network=True,
                          argocd_renders="Argo CD substitutes the revision it syncs into the value")  # fmt: skip
    refuse_random_order(options, chart_yaml)
    places = options.value_file_places
    left_out = [Omission(s.message, *(places[s.index] if s.index < len(places) else (chart_yaml, 1, 1)),
                         argocd_renders=s.argocd_renders, unchecked=_OTHER_VALUES) for s in skipped]  # fmt: skip
    read_with_placeholders = _placeholder_omissions(options, value_files, chart_yaml)
    found = find_helm(helm_major, os.path.abspath(root))
    if found is None:
        raise RendererUnavailable(
            "Helm is needed to render this chart: install the helm binary or `pip install 'hooklint[helm]'`", chart_yaml
        )
    mode, renderer = found
    loads = schema_loads(files + build.files(), limits.max_file_size)
    packaged = next((load for load in loads if load.archive is not None), None)
    if packaged is not None:
        raise RenderError(
            f"{os.path.normpath(packaged.archive or chart)} holds a {packaged.path} that {_refers(packaged)}, "
            f"which Helm loads (a URL, or a file of the repo server) to validate the values: {NEVER_LOADS}",
            chart_yaml, needs_network=True, unchecked="none of the chart's objects were checked, hooks included",
            names_only=True)  # paths and a schema's $ref: written where nothing is secret  # fmt: skip
    first: dict[str, _SchemaLoad] = {}
    for load in loads:
        first.setdefault(load.path, load)
    left_out += [Omission(f"values.schema.json {_refers(load)}, which Helm loads (a URL, or a file of the repo "
                          f"server) to validate the values: {NEVER_LOADS}", os.path.normpath(load.path), load.line,
                          load.column, argocd_renders="Argo CD's Helm loads it when it renders the chart",
                          unchecked=_SCHEMAS_UNCHECKED) for load in first.values()]  # fmt: skip
    inputs = [path for path, _ in files] + [path for path, _ in build.files()] + [v.real for v in value_files]
    inputs += [v.real for v in set_files]
    # the left-out dependencies' messages are in the rendering: why each was not fetched (--fetch or not) is keyed too
    stubs = repr([(stub.name, stub.repository, stub.problem, stub.why) for stub in build.stubs])
    # which build renders, besides its version: the binary, or the SDK's files and library
    made_by = _renderer_identity(mode, root)
    key = input_key([mode, renderer.version, made_by, repr(options), os.path.normpath(chart), stubs], inputs, root)
    scanned = ["\0text:" + repr(options)] + inputs  # a parameter's value can reach ``tpl`` too

    def render(opts: HelmOptions, cache_key: str) -> Rendering:
        return cached("helm", cache_key, tagging_inputs(
            inputs, lambda: _render(mode, renderer, chart, tree, files, value_files, opts, limits, root, build,
                                    [(opts.value_files[s.index], o) for s, o in zip(skipped, left_out)]
                                    + [(opts.value_files[v.index], o) for v, o in
                                       zip([v for v in value_files if v.text is not None], read_with_placeholders)],
                                    skip_schemas=bool(loads) or opts.skip_schema_validation,
                                    set_files=set_files)), volatile=lambda: calls_nonhermetic(scanned, limits.max_file_size))  # fmt: skip

    rendering = render(options, key)
    if left_out or read_with_placeholders or build.omissions:  # where they are written is not in the key: added after the cache
        rendering = Rendering(rendering.renderer, rendering.documents,
                              rendering.omitted + build.omissions + left_out + read_with_placeholders)  # fmt: skip
    undecided = _not_as_argocd(chart, root, files, build, value_files, limits.max_file_size, withheld, options)
    if undecided:  # found on every run: the rendering is not cached when it calls one (volatile)
        rendering = Rendering(rendering.renderer, rendering.documents, rendering.omitted + undecided)
    if options.release_guessed:  # rendered as <folder> in default: does another release render otherwise?
        decisions = release_decisions(template_texts(files + build.files(), limits.max_file_size)
                                      + [(v.user, v.user) for v in value_files if v.text is None],
                                      limits.max_file_size, inline=(chart_yaml, "\n".join(
                                          [options.values or ""] + [value for _, value, _ in options.parameters])))  # fmt: skip
        if decisions:
            other = dataclasses.replace(options, release_name=_other_name(options.release_name, OTHER_RELEASE, [
                t for d in decisions if "Namespace" not in d.called for t in d.literals if _RELEASE_NAME.match(t)]),
                namespace=_other_name(options.namespace or "default", OTHER_NAMESPACE, [
                    t for d in decisions if not d.called.endswith(".Name") for t in d.literals
                    if _NAMESPACE.match(t)]))  # fmt: skip
            try:
                second: Rendering | None = render(other, input_key([mode, renderer.version, made_by, repr(other),
                                                                    os.path.normpath(chart), stubs], inputs, root))  # fmt: skip
            except RenderError:
                second = None
            rendering = _release_check(chart, rendering, second, options, other, decisions[0],
                                       calls_nonhermetic(scanned, limits.max_file_size))  # fmt: skip
    given = "\n".join(filter(None, [options.values or ""] + [value for _, value, _ in options.parameters]))
    texts = ["\0text:" + given] if given else []
    scan = capability_scan([path for path, _ in files] + [path for path, _ in build.files()]
                           + [v.real for v in value_files] + [v.real for v in set_files] + texts, limits.max_file_size,
                           anchor=chart_yaml)  # fmt: skip
    if scan.first is None and scan.opaque is None:
        return rendering
    named = () if options.fixed_api_versions else tuple(n for n in scan.named if n not in options.api_versions)
    check = CapabilityCheck(scan.first, scan.opaque)
    if named:  # one more rendering, with every API version the chart names served (issue 32)
        wider = dataclasses.replace(options, api_versions=tuple(sorted({*options.api_versions, *named})))
        try:
            second = render(wider, input_key([mode, renderer.version, made_by, repr(wider), os.path.normpath(chart), stubs],
                                             inputs, root))  # fmt: skip
        except RenderError as exc:
            check = dataclasses.replace(check, named=named, failed=exc.message)
        else:
            extra, differing = _compare_renderings(rendering.documents, second.documents)
            if differing and calls_nonhermetic(scanned, limits.max_file_size):  # a clock or random value differs anyway
                differing = ()
            check = dataclasses.replace(check, named=named, added=tuple(_label(d) for d in extra), differing=differing)
            rendering = dataclasses.replace(rendering, documents=rendering.documents + extra)
    return dataclasses.replace(rendering, capabilities=check)


def _identity(text: str) -> tuple[Any, Any, Any] | None:
    """``(kind, namespace, name)`` of a rendered document, None when it is not a mapping."""
    try:
        value = go_first_document(text).value
    except (Unreadable, YamlTooComplex, yaml.YAMLError):
        return None
    if not isinstance(value, dict):
        return None
    metadata = value.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    return (str(value.get("kind")), str(metadata.get("namespace") or ""), str(metadata.get("name")))


def _label(doc: RenderedDocument) -> str:
    identity = _identity(doc.text)
    return f"{identity[0]}/{identity[2]}" if identity else (doc.origin or "an object")


def _hook_and_pod(text: str) -> tuple[Any, Any]:
    """The parts of a rendered object a capability may switch that hooklint checks most: its hook
    annotations (``argocd.argoproj.io/*``, ``helm.sh/*``) and its pod (``spec`` of a Pod, else
    ``spec.template``, ``spec.jobTemplate``)."""
    try:
        value = go_first_document(text).value
    except (Unreadable, YamlTooComplex, yaml.YAMLError):
        return text, None
    if not isinstance(value, dict):
        return text, None
    metadata = value.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    annotations = metadata.get("annotations")
    annotations = annotations if isinstance(annotations, dict) else {}
    hooks = {k: v for k, v in annotations.items() if str(k).startswith(("argocd.argoproj.io/", "helm.sh/"))}
    spec = value.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    pod = spec if value.get("kind") == "Pod" else (spec.get("template"), spec.get("jobTemplate"))
    return hooks, pod


def _compare_renderings(first: list[RenderedDocument],
                        second: list[RenderedDocument]) -> tuple[list[RenderedDocument], tuple[str, ...]]:  # fmt: skip
    """The documents of ``second`` (the rendering with the API versions a chart names) whose
    object ``first`` lacks (by kind, namespace and name: an apiVersion picked otherwise is the same
    object), and the labels (``Kind/name``) of the objects both hold whose hook annotations or pod
    differ (:func:`_hook_and_pod`)."""
    seen: dict[Any, str] = {}
    for doc in first:
        seen.setdefault(_identity(doc.text), doc.text)
    extra, differing = [], []
    for doc in second:
        identity = _identity(doc.text)
        if identity not in seen:
            extra.append(doc)
            seen[identity] = doc.text
        elif _hook_and_pod(seen[identity]) != _hook_and_pod(doc.text) and _label(doc) not in differing:
            differing.append(_label(doc))
    return extra, tuple(differing)


#: The release name and namespace of the second rendering of a chart no Application of the
#: repository deploys (:func:`render_helm`): names no Application is likely to have.
OTHER_RELEASE = "hooklint-other-release"
OTHER_NAMESPACE = "hooklint-other-namespace"


#: A release name Helm accepts (pkg/chart/common/util/validate_name.go ``ValidateReleaseName``, at
#: most 53 characters) and a namespace (a DNS-1123 label), of at least 3 characters: a string
#: holding either is masked when the renderings are compared (:func:`_masked`).
_RELEASE_NAME = re.compile(r"^(?=.{3,53}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_NAMESPACE = re.compile(r"^(?=.{3,63}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def _other_name(name: str, other: str, written: list[str]) -> str:
    """The release name (or namespace) of the second rendering: the first of ``written`` (the
    strings the chart compares the release with, ``eq .Release.Namespace "prod"``) that is not
    ``name`` (nor ``true``, ``false``), else ``other`` (else ``other-2`` when ``name`` is ``other``)."""
    chosen = next((w for w in written if w != name and w not in ("true", "false")), None)
    return chosen if chosen is not None else other if name != other else other + "-2"


def _masked(value: Any, names: tuple[str, ...]) -> Any:
    """``value`` (a parsed object's part) with every string that holds one of ``names`` replaced
    by one placeholder: a name built from the release's (``<release>-<chart>``, or the chart's
    alone when the release's holds it, as ``helm create``'s fullname helper writes it) is equal
    in both renderings."""
    if isinstance(value, dict):
        return {_masked(k, names): _masked(v, names) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_masked(v, names) for v in value]
    if isinstance(value, str) and any(name in value for name in names):
        return "\0release"
    return value


def _shape(doc: RenderedDocument, names: tuple[str, ...]) -> tuple[Any, Any, Any]:
    """What :func:`_release_check` compares of a rendered object: its kind, hook annotations and
    pod spec (not the pod template's metadata, where a checksum of a ConfigMap naming the release
    lives), each string holding one of ``names`` masked (:func:`_masked`)."""
    identity = _identity(doc.text)
    hooks, pod = _hook_and_pod(doc.text)
    if isinstance(pod, tuple):  # (spec.template, spec.jobTemplate): their pod specs
        template, job = pod
        job_spec = job.get("spec") if isinstance(job, dict) else None
        job_template = job_spec.get("template") if isinstance(job_spec, dict) else None
        pod = tuple(t.get("spec") if isinstance(t, dict) else t for t in (template, job_template))
    return identity[0] if identity else None, _masked(hooks, names), _masked(pod, names)


def _release_check(chart: str, rendering: Rendering, second: Rendering | None, options: HelmOptions,
                   other: HelmOptions, decision: Any, volatile: bool) -> Rendering:  # fmt: skip
    """``rendering`` (of a chart no Application of the repository deploys, as release
    ``options.release_name`` in ``options.namespace``) with the objects only ``second`` (the
    rendering as ``other``'s release and namespace, None when it failed) holds added, and HL009
    (an :class:`~hooklint.sources.render.rendered.Omission` at ``decision``, the first
    :class:`~hooklint.sources.render.hermetic.Decision` on the release) when the two differ. The
    objects are matched by template and order in it (their names hold the release's); they differ
    in kind, hook annotations or pod spec, strings naming either release or namespace aside
    (:func:`_shape`). Argo CD renders with the name (``helm.releaseName``, else the Application's)
    and destination namespace of the Application that deploys the chart
    (``reposerver/repository/repository.go`` ``helmTemplate``, v3.5.1). ``volatile`` (the chart
    calls the clock or randomness): objects that differ anyway are not reported, only added ones."""
    name, namespace = options.release_name, options.namespace or "default"
    names = (name, namespace, other.release_name, other.namespace or "default")
    extra: list[RenderedDocument] = []
    differing: list[str] = []
    if second is not None:
        mine: dict[Any, list[RenderedDocument]] = {}
        for doc in rendering.documents:
            mine.setdefault(doc.origin, []).append(doc)
        count: dict[Any, int] = {}
        for doc in second.documents:
            index = count[doc.origin] = count.get(doc.origin, 0) + 1
            twins = mine.get(doc.origin, [])
            if index > len(twins) or _shape(twins[index - 1], names)[0] != _shape(doc, names)[0]:
                extra.append(doc)
            elif not volatile and _shape(twins[index - 1], names) != _shape(doc, names) and _label(doc) not in differing:
                differing.append(_label(doc))
    if second is not None and not extra and not differing:
        return rendering
    shown = os.path.normpath(chart)
    found = []
    if extra:
        labels = [_label(d) for d in extra]
        found.append("also renders " + ", ".join(labels[:6]) + (f" and {len(labels) - 6} more" if len(labels) > 6 else ""))
    if differing:
        found.append("renders " + ", ".join(differing[:6]) + (f" and {len(differing) - 6} more" if len(differing) > 6 else "")
                     + " with other hook annotations or another pod")  # fmt: skip
    what = " and ".join(found) if found else "fails"
    omission = Omission(
        f"{decision.construct} here depends on `{decision.called}`{decision.through}, the release's name or namespace, "
        f"which the Application that deploys the chart decides, and no Application of the repository deploys "
        f"{'./' if shown == '.' else shown + '/'}: hooklint rendered it as release {name} in namespace {namespace}, "
        f"and as {other.release_name} in {other.namespace}, which {what}", decision.path, decision.line,
        decision.column, argocd_renders="Argo CD renders it with the name (or helm.releaseName) and destination "
        "namespace of the Application that deploys it, and may render other objects and fields then",
        done="checked the objects of both renderings" if second is not None else "checked the first rendering",
        unchecked="objects another release name or namespace renders were not checked; lint the chart through the "
        "Application that deploys it (add it to the repository), or decide them with a value of the chart",
        field=decision.digest)  # fmt: skip
    return dataclasses.replace(rendering, documents=rendering.documents + extra, omitted=rendering.omitted + [omission])


def _not_as_argocd(chart: str, root: str, files: list[tuple[str, str]], build: "_Build", value_files: list[_ValueFile],
                   max_file_size: int, withheld: Withheld, options: HelmOptions) -> list[Omission]:  # fmt: skip
    """HL009 (issue 32: never a silent pass), at the template line, for what hooklint rendered
    otherwise than Argo CD's repo server will (:mod:`hooklint.sources.render.hermetic`): a
    template action where the clock, randomness or DNS (:data:`NONHERMETIC_FUNCTIONS`) decides
    what the chart renders (Argo CD renders again on each refresh and cache expiry, on the
    cluster's network), and a read of the chart's ``.git`` through ``.Files`` when the chart folder
    holds one (Argo CD's Helm reads its clone's; hooklint's copy has none, :func:`_chart_files`).
    The Application's ``helm.values`` and parameters are read as a value file, reported at 1:1 of
    ``Chart.yaml`` (where they are written is not known here)."""
    scanned = template_texts(files + build.files(), max_file_size)  # and the options' values, at Chart.yaml 1:1
    scanned += [(v.user, v.user) for v in value_files if v.text is None]
    inline = "\n".join([options.values or ""] + [value for _, value, _ in options.parameters])
    chart_yaml = os.path.normpath(os.path.join(chart, "Chart.yaml"))
    omissions = [Omission(("the Application's helm values or parameters, which the chart renders through tpl: "
                           if d.path == chart_yaml else "") + f"{d.construct}{'' if d.path == chart_yaml else ' here'} depends on `{d.called}`{d.through} ({cause(d.function)}), so what this "
                          "chart renders is not a function of the repository", d.path, d.line, d.column,
                          argocd_renders="Argo CD's repo server renders the chart again on each refresh and when "
                          "its manifest cache expires, at another time and on the cluster's network, and may render "
                          "other objects and fields then", done="rendered it once, here and now",
                          unchecked="the objects under it were checked only as rendered now; decide it with a "
                          "value of the chart instead (set per environment by the Application)", field=d.digest)
                 for d in nonhermetic_decisions(scanned, NONHERMETIC_FUNCTIONS, max_file_size,
                                                inline=(chart_yaml, inline))]  # fmt: skip
    omissions += [Omission(f"this template reads the chart's .git through `{r.what}`, and .git is {GIT_REASON}: "
                           "hooklint never hands it to a renderer", r.path, r.line, r.column,
                           argocd_renders="Argo CD's Helm reads its own clone's .git there: the chart is where the "
                           "checkout's .git is, and Helm's loader skips only what .helmignore lists and "
                           "templates/.?* (helm pkg/ignore/rules.go AddDefaults)", done="rendered it without .git",
                           unchecked="the objects and fields that depend on what it reads were checked only as "
                           "rendered without it; list .git/ in the chart's .helmignore, or move the chart into a "
                           "folder of its own", field=r.digest)
                  for r in git_reads(chart, root, files, max_file_size, withheld)]  # fmt: skip
    return omissions


#: ``Capabilities`` read inside a template action, with the field read when written next
#: (``.Capabilities.KubeVersion.Version``, ``$.Capabilities.APIVersions.Has``, ``(.Capabilities).X``).
_CAPABILITIES = re.compile(rb"(?<![\w])Capabilities(?![\w])(?:\)?\.(\w+))?")
#: The fields of ``.Capabilities`` (helm/pkg/chart/common/capabilities.go): ``KubeVersion`` from
#: ``--kube-version``, ``APIVersions`` from ``--api-versions`` (the cluster's), ``HelmVersion`` the
#: renderer's own build (helm/internal/version/version.go).
_CLUSTER_FIELDS = ("KubeVersion", "APIVersions")
_FIELDS = re.compile(rb"(?<![\w])(APIVersions|KubeVersion|HelmVersion)(?![\w])")
#: One token of a template action for :func:`capability_scan`: a string, a comment, punctuation,
#: a word (a field chain, a variable, a name, bare ``.`` or ``$``), or any other byte.
_SCAN_TOKEN = re.compile(rb'(?P<s>"(?:\\.|[^"\\])*"|`[^`]*`|\'(?:\\.|[^\'\\])*\')|(?P<c>/\*.*?\*/)|(?P<p>[()|,]|:?=)'
                         rb"|(?P<w>\$\w*(?:\.\w+)*|\.(?:\w+(?:\.\w+)*)?|\w+(?:\.\w+)*)|(?P<x>\s+)|(?P<o>.)", re.DOTALL)
#: The template functions that read a map by a key (text/template ``index``; Sprig ``get``,
#: ``pluck``, ``dig``, ``pick``, ``omit``, ``hasKey``): with the root context (``$`` or ``.``) as
#: the map and a key not written as a string, a template reaches ``.Capabilities`` without naming
#: it (``index $ (print "Capa" "bilities")``, attack round 11, F1).
_CONSTANT = re.compile(rb"-?[0-9][0-9a-fA-FxXoObB_.]*|true|false|nil")
_KEYED_READS = frozenset({b"index", b"get", b"pluck", b"dig", b"pick", b"omit", b"hasKey"})
#: A ``group/version`` or ``group/version/Kind`` as a chart names one (``monitoring.coreos.com/v1``,
#: ``policy/v1/PodDisruptionBudget``), anywhere in its templates: what :func:`render_helm` renders a
#: second time with.
_API_VERSION = re.compile(rb"(?<![\w./-])([a-z0-9](?:[-a-z0-9.]*[a-z0-9])?/v[0-9]+(?:(?:alpha|beta)[0-9]+)?"
                          rb"(?:/[A-Z][A-Za-z0-9]*)?)(?![\w./-])")
#: A whole action inside a string (``"{{- with $.RelativeScope -}}"``), and the opening half of
#: one cut in two (``"{{ .Capa"``): a delimiter alone (``"{{"``, Go's ``{{`{{`}}`` escape) is not,
#: nor a closing half (JSON in a raw string ends ``}}``). Not caught: an action cut between its
#: two braces.
_WHOLE_ACTION = re.compile(rb"\{\{.*?\}\}", re.DOTALL)
_HALF_ACTION = re.compile(rb"\{\{[^{}]*\w")
#: The files :func:`capability_scan` looks for opaque reads in: templates, helpers, value files
#: (``tpl`` runs their strings); not a README, an image, a schema or a script.
_SCRIPT = re.compile(r"(?:^|[\\/])templates[\\/]|\.(?:ya?ml|tpl)$|\.tgz$")
#: At most this many API versions named by a chart are added to its second rendering.
MAX_NAMED_API_VERSIONS = 512


@dataclass(frozen=True, slots=True)
class CapabilityScan:
    """What :func:`capability_scan` found in a chart's files: ``first``, the first read of a field
    Argo CD takes from the cluster (``(path, line, column, field)``, 1-based; ``field``
    ``KubeVersion``, ``APIVersions``); ``opaque``, the first read hooklint cannot enumerate
    (``(path, line, column, what)``: ``what`` a clause saying how it reads); ``named``, the API
    versions the files name (in its templates and packaged subcharts, never in a value file, whose text may be a secret;
    sorted, at most :data:`MAX_NAMED_API_VERSIONS`)."""

    first: tuple[str, int, int, str] | None = None
    opaque: tuple[str, int, int, str] | None = None
    named: tuple[str, ...] = ()


def capability_reads(paths: list[str], max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> tuple[str, int, int, str] | None:
    """The first read of ``.Capabilities`` among the chart files ``paths``, as ``(path, line,
    column, field)``: :attr:`CapabilityScan.first` of :func:`capability_scan`, else its
    :attr:`~CapabilityScan.opaque` place (``field`` ``Capabilities``), else None."""
    scan = capability_scan(paths, max_file_size)
    if scan.first is not None:
        return scan.first
    return (*scan.opaque[:3], "Capabilities") if scan.opaque is not None else None


def capability_scan(paths: list[str], max_file_size: int = DEFAULT_MAX_FILE_SIZE,
                    anchor: str | None = None) -> CapabilityScan:  # fmt: skip
    """Where the chart files ``paths`` (its own, its subcharts', ``file://`` dependencies', value
    files; an item starting ``"\\0text:"`` is that text, the Application's values and parameters,
    reported at 1:1 of ``anchor``, else of the first path) read ``.Capabilities`` inside a template action
    (``{{ ... }}``). What the chart renders then depends on the cluster: Argo CD passes the
    destination cluster's version and API resources to Helm (``--kube-version``,
    ``--api-versions``: :mod:`hooklint.sources.render.capabilities`), and the ``HelmVersion`` of
    its own ``helm`` binary.

    A read is enumerable when it is ``.KubeVersion`` (rendered with the configured version) or
    ``.APIVersions.Has`` given a string or a field or variable (rendered again with every API
    version the files name: :func:`render_helm`). Any other read is opaque (fail closed): the
    ``HelmVersion`` (the Helm SDK reports ``v4.2`` and no commit, Argo CD 3.5.1's helm 4.2.1
    release binary its own: helm internal/version/version.go, argo-cd hack/tool-versions.sh;
    the SDK cannot be told another), ``.APIVersions`` used otherwise or given a value built at
    render time, ``.Capabilities`` itself held or passed on (a variable, ``with``, ``toYaml``),
    the root context read by a key not written as a string (``index $ (print "Capa"
    "bilities")``, ``get``, ``pluck``, ``dig``, ``pick``, ``omit``, ``hasKey``: helm
    pkg/chart/common/util/values.go puts ``Capabilities`` in the top-level map), ``range`` over
    the root context, a string holding half an action (template text assembled for ``tpl``).
    Conservative: a comment or a string in an action counts. Not seen: a name built at render
    time on a map that holds the root context under another name (``dict "context" $``). A
    packaged subchart is reported at 1:1 of its archive; a file that cannot be read is skipped
    (Helm read it, the rendering is done)."""
    first: tuple[str, int, int, str] | None = None
    found_opaque: list[tuple[str | None, tuple[str, int, int, str]]] = []  # (enclosing define, place)
    called: set[str] = set()
    computed_call = False
    named: set[str] = set()
    anchor = anchor or next((p for p in paths if not p.startswith("\0text:")), "")
    for path in paths:
        if path.startswith("\0text:"):
            data, archive, where = path[len("\0text:"):].encode("utf-8", "surrogateescape"), True, anchor
        else:
            try:
                data = read_bytes(path, max_file_size)
            except (OSError, FileTooLarge, NotRegularFile):
                continue
            archive, where = data[:2] == b"\x1f\x8b", path
            if archive:
                data = _gunzip(data) or b""

        def place(offset: int, what: str) -> tuple[str, int, int, str]:
            if archive:
                return os.path.normpath(where), 1, 1, what
            line = data.count(b"\n", 0, offset) + 1
            column = len(data[data.rfind(b"\n", 0, offset) + 1:offset].decode("utf-8", "replace")) + 1
            return os.path.normpath(where), line, column, what

        script = where != path or bool(_SCRIPT.search(path))
        template = where != path or bool(re.search(r"(?:^|[\\/])templates[\\/]|\.tgz$", path))
        if template and where == path and len(named) < MAX_NAMED_API_VERSIONS:  # never a value file's (a secret's) text
            named.update(m.group(1).decode("ascii") for m in _API_VERSION.finditer(data))
        blocks: list[str | None] = []  # the open blocks: a define's name, else None
        for at, action in _actions_at(data):
            head = _BLOCK_HEAD.match(action)
            word = head.group(1) if head else b""
            if word in (b"if", b"range", b"with", b"block"):
                blocks.append(None)
            elif word == b"define":
                blocks.append(head.group(2).decode("utf-8", "replace") if head and head.group(2) else None)
            elif word == b"end" and blocks:
                blocks.pop()
            for call in _CALL.finditer(_ACTION_COMMENT.sub(b" ", action)):
                if call.group(1) is None:
                    computed_call = True
                else:
                    called.add(call.group(1).decode("utf-8", "replace"))
            inside = next((b for b in reversed(blocks) if b is not None), None)
            for found in _CAPABILITIES.finditer(action):
                name = (found.group(1) or b"").decode("ascii", "replace")
                if first is None and name in _CLUSTER_FIELDS:
                    first = place(at + found.start(), name)
                elif name not in ("KubeVersion", "APIVersions", "HelmVersion"):
                    found_opaque.append((inside, place(at + found.start(), "holds or passes on .Capabilities itself, "
                                                       "whose fields hooklint cannot follow")))  # fmt: skip
            why = _opaque_in(action, halves=template) if script else None
            if why is not None:
                found_opaque.append((inside, place(at + why[0], why[1])))
            for offset, text in _spelled_strings(action):
                if _CAPABILITIES.search(text) or _FIELDS.search(text):
                    found_opaque.append((inside, place(at + offset, "reads .Capabilities by a name written with escapes "
                                                       "(a string such as \"\\x43apabilities\"), whose fields "
                                                       "hooklint cannot follow")))  # fmt: skip
            if first is None:
                for found in _FIELDS.finditer(action):
                    if found.group(1) in (b"APIVersions", b"KubeVersion"):
                        first = place(at + found.start(), found.group(1).decode())
                        break
    # a read inside a named template that nothing calls never runs (bitnami's common library
    # defines common.capabilities.supportsHelmVersion, which no chart includes)
    opaque = next((where for inside, where in found_opaque if inside is None or computed_call or inside in called), None)
    return CapabilityScan(first, opaque, tuple(sorted(named)[:MAX_NAMED_API_VERSIONS]))


#: The keyword of an action that opens or closes a block, with a define's name.
_BLOCK_HEAD = re.compile(rb'\s*-?\s*(if|range|with|block|define|end)\b\s*(?:"([^"]*)")?')
#: A call of a named template (``include``, ``template``): its name when written as a string,
#: else (a name built at render time) no group 1; not a template file named by its path
#: (``include (print $.Template.BasePath "/configmap.yaml")``, the checksum idiom).
_ACTION_COMMENT = re.compile(rb"/\*.*?\*/", re.DOTALL)
_CALL = re.compile(rb'(?<![\w.$])(?:include|template)\s+(?:"([^"]*)"|(?!\(\s*printf?\s[^)]*\.Template\.BasePath)\S)')


#: A Go interpreted string literal in an action.
_GO_STRING = re.compile(rb'"(?:\\.|[^"\\])*"')


def _spelled_strings(action: bytes) -> list[tuple[int, bytes]]:
    """``(offset in action, text)`` of each interpreted string literal of ``action`` (one template
    action's text) that holds an escape that may spell a letter (:data:`SPELLING_ESCAPE`), its text
    as Go reads it (:func:`~hooklint.sources.render.hermetic.go_unquote`): ``index $ "\\x43apabilities"``
    names ``.Capabilities`` without writing the word (attacker trial 40, 1)."""
    if b"\\" not in action:  # no escape at all: most actions
        return []
    return [(found.start(), go_unquote(found.group()[1:-1].decode("utf-8", "surrogateescape")).encode("utf-8", "replace"))
            for found in _GO_STRING.finditer(action) if SPELLING_ESCAPE.search(found.group())]


def _opaque_in(action: bytes, halves: bool = True) -> tuple[int, str] | None:
    """The offset in ``action`` (one template action's text) of a read of ``.Capabilities`` that
    cannot be enumerated, with a clause saying how it reads (:func:`capability_scan`), or None.
    ``halves``: a string holding half an action counts (in a template; a value file's strings are
    YAML-escaped, which this reader does not undo)."""
    trimmed = re.sub(rb"^-(?=\s)|(?<=\s)-$", b" ", action)  # the trim markers, "{{- " and " -}}"
    tokens = [t for t in _SCAN_TOKEN.finditer(trimmed) if t.lastgroup not in ("c", "x")]
    for i, token in enumerate(tokens):
        text, kind = token.group(), token.lastgroup
        if kind == "s" and halves and _HALF_ACTION.search(_WHOLE_ACTION.sub(b"", text)):
            return token.start(), "builds template text from pieces (a string holding half of an action), which tpl may run"
        if kind != "w":
            continue
        field_name = text.rsplit(b".", 1)[-1]
        if field_name == b"HelmVersion" or b".HelmVersion." in text + b".":
            return token.start(), ("reads .Capabilities.HelmVersion, the renderer's own build (hooklint's Helm library "
                                   "reports v4.2 and no commit; Argo CD 3.5.1's helm binary, the 4.2.1 release, its "
                                   "own)")  # fmt: skip
        if b"APIVersions" in text.split(b"."):
            parts = text.split(b".")
            after = parts[parts.index(b"APIVersions") + 1:]
            following = tokens[i + 1] if i + 1 < len(tokens) else None
            piped = i > 0 and tokens[i - 1].group() == b"|"
            plain_arg = following is not None and (following.lastgroup == "s" or (
                following.lastgroup == "w" and following.group()[:1] in (b".", b"$")))  # fmt: skip
            if after != [b"Has"] or piped or not plain_arg:
                return token.start(), ("reads .Capabilities.APIVersions other than .Has with a name written in the "
                                       "chart, so the API versions it asks for cannot be listed")  # fmt: skip
        if text in _KEYED_READS and i + 1 < len(tokens):
            args = _arguments(tokens, i + 1)
            piped = i > 0 and tokens[i - 1].group() == b"|"
            if text == b"pluck":  # pluck KEY MAP...: the maps follow the key
                maps, keys = args[1:], args[:1]
            elif text == b"dig":  # dig KEY... DEFAULT MAP (a piped value is the map)
                maps, keys = ([] if piped else args[-1:]), (args if piped else args[:-2])
            else:  # index MAP KEY..., get MAP KEY, hasKey MAP KEY, pick/omit MAP KEY...
                maps, keys = args[:1], args[1:]
            if any(a.group() in (b"$", b".") for a in maps) and (
                    (piped and text != b"dig") or any(a.lastgroup != "s" and not _CONSTANT.fullmatch(a.group())
                                                      for a in keys)):  # fmt: skip
                return token.start(), (f"reads the root context by a key not written as a string ({text.decode()} "
                                       "with $ or .), which reaches .Capabilities without naming it")  # fmt: skip
        if text == b"range":
            rest = _arguments(tokens, i + 1)
            names = [a.group() for a in rest]
            if b":=" in names:
                rest = rest[names.index(b":=") + 1:]
            if len(rest) == 1 and rest[0].group() == b"$":
                return token.start(), "ranges over the root context, which holds .Capabilities"
    return None


def _arguments(tokens: list[re.Match[bytes]], start: int) -> list[re.Match[bytes]]:
    """The tokens of one command's arguments from ``tokens[start]`` up to the ``)`` or ``|`` that
    ends it; a parenthesized argument stands as its ``(`` token (a value built at render time)."""
    out, depth = [], 0
    for token in tokens[start:]:
        text = token.group()
        if text == b"(":
            if depth == 0:
                out.append(token)
            depth += 1
        elif text == b")":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0:
            if text == b"|":
                break
            out.append(token)
    return out


#: The template functions of Helm's ``funcMap`` (Sprig's ``GenericFuncMap`` and Helm's own,
#: helm/pkg/engine/funcs.go; Masterminds/sprig functions.go) whose result is not a function of a
#: chart's inputs: Sprig's ``nonhermeticFunctions`` (the clock, the local time zone, randomness,
#: the environment, DNS), its other random ones (``randInt``, ``shuffle``, the key and certificate
#: generators, ``bcrypt``/``htpasswd``'s salt, ``encryptAES``'s IV), ``ago``/``durationRound``
#: (``time.Since``) and ``toDate`` (the local zone), and ``tpl``, which can run any of them from a
#: string built at render time (``printf "%s%s" "no" "w"``). Not Helm's ``lookup``: without a
#: cluster (``helm template``, as Argo CD and hooklint render) it returns an empty map every time
#: (helm/pkg/engine/engine.go ``initFunMap``).
NONHERMETIC_FUNCTIONS = frozenset({
    "now", "date", "date_in_zone", "dateInZone", "date_modify", "dateModify", "must_date_modify", "mustDateModify",
    "htmlDate", "htmlDateInZone", "ago", "durationRound", "toDate", "mustToDate",
    "randAlpha", "randAlphaNum", "randAscii", "randNumeric", "randBytes", "randInt", "uuidv4", "shuffle",
    "genCA", "genCAWithKey", "genPrivateKey", "genSelfSignedCert", "genSelfSignedCertWithKey", "genSignedCert",
    "genSignedCertWithKey", "bcrypt", "htpasswd", "encryptAES", "env", "expandenv", "getHostByName", "tpl",
})  # fmt: skip

#: Sprig's functions that give a map's keys or values in Go's map order, which changes from one
#: render to the next (sprig dict.go ``keys``, ``values``: a ``range`` over the map, unsorted). A
#: chart that calls one is kept by neither cache (attacker trial 45, 2: ``first (keys .Values.m)``
#: deciding ``hostPID``, a clean rendering kept, and every later run passed it). Conservative:
#: ``keys . | sortAlpha`` is stable and counts too. Not in :data:`NONHERMETIC_FUNCTIONS`, whose
#: calls deciding a field are reported (HL009): that idiom is common, and sorted.
MAP_ORDER_FUNCTIONS = frozenset({"keys", "values"})

#: One token inside a template action (text/template's lexer): a quoted, raw or character
#: string, a comment (each may hold ``}}``), the action's end, or other text.
_ACTION_TOKEN = re.compile(rb'"(?:\\.|[^"\\\n])*"|`[^`]*`|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|\}\}|[^"`\'/}]+|.', re.DOTALL)
_NONHERMETIC_CALL = re.compile(rb"(?<![\w.$])(?:" + b"|".join(sorted(n.encode() for n in NONHERMETIC_FUNCTIONS | MAP_ORDER_FUNCTIONS))
                               + rb")(?!\w)")  # fmt: skip


def calls_nonhermetic(inputs: list[str], max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> bool:
    """Whether a chart's rendering may not be a function of its inputs: any of ``inputs`` (paths
    of the chart's files, its subcharts' and ``file://`` dependencies', value files, file
    parameters; an item starting ``"\\0text:"`` is that text, the options) names one of :data:`NONHERMETIC_FUNCTIONS`
    or :data:`MAP_ORDER_FUNCTIONS` inside a template action
    (``{{ ... }}``; a value or a file can become a template through ``tpl``). Conservative: a
    comment, a quoted string or an unused template naming one counts; a packaged subchart
    (``.tgz``) is scanned decompressed, and one that cannot be read that way, or holds another
    archive, counts; a file that cannot be read counts. The render and result caches keep no
    rendering this is True for (:func:`hooklint.sources.render.cache.cached`)."""
    for item in inputs:
        if item.startswith("\0text:"):
            data = item.encode("utf-8", "surrogateescape")
        else:
            try:
                data = read_bytes(item, max_file_size)
            except (OSError, FileTooLarge, NotRegularFile):
                return True
        if data[:2] == b"\x1f\x8b":
            unpacked = _gunzip(data)
            if unpacked is None or b"\x1f\x8b" in unpacked:
                return True
            data = unpacked
        if any(_NONHERMETIC_CALL.search(action) for action in _actions(data)):
            return True
    return False


def _actions(data: bytes) -> Iterator[bytes]:
    """The text of every ``{{ ... }}`` action of template text ``data`` (an unterminated one runs
    to the end)."""
    for _, action in _actions_at(data):
        yield action


#: Where a literal that does not close stops (its opening read past every quote before it as
#: ``\\"``, so those do not close either): a string's body (a backslash escapes a line break too,
#: as in ``_ACTION_TOKEN``, which is DOTALL).
_DQ_BODY = re.compile(rb'(?:\\.|[^"\\\n])*', re.DOTALL)
_SQ_BODY = re.compile(rb"(?:\\.|[^'\\\n])*", re.DOTALL)


def _actions_at(data: bytes) -> Iterator[tuple[int, bytes]]:
    """:func:`_actions`, each with the offset of its text in ``data``. Read in linear time: where a
    literal (``"``, ``'``, ```...```, ``/*``) does not close, ``_ACTION_TOKEN`` takes its first byte
    alone, and every opening of the same kind before where it stopped is taken so without reading
    it again (each was read to the same place: the square of a line of ``"\\"\\"...``)."""
    fails = {ord('"'): -1, ord("'"): -1, ord("`"): -1, ord("/"): -1}
    start = data.find(b"{{")
    while start >= 0:
        position, end = start + 2, len(data)
        while position < len(data):
            byte = data[position]
            if fails.get(byte, -1) > position:
                position += 1  # what "." takes of a literal that does not close
                continue
            token = _ACTION_TOKEN.match(data, position)
            assert token is not None  # "." matches any byte
            if token.group() == b"}}":
                end = token.start()
                break
            if token.end() == position + 1 and byte in fails:
                fails[byte] = _unclosed(data, position, byte)
            position = token.end()
        yield start + 2, data[start + 2:end]
        start = data.find(b"{{", end)


def _unclosed(data: bytes, position: int, byte: int) -> int:
    """Where the literal opening at ``data[position]`` (a ``byte`` that ``_ACTION_TOKEN`` took alone:
    it does not close) stops being read: no opening of its kind before that closes either."""
    if byte == ord('"'):
        return _DQ_BODY.match(data, position + 1).end()  # type: ignore[union-attr]  # matches the empty string
    if byte == ord("'"):
        return _SQ_BODY.match(data, position + 1).end()  # type: ignore[union-attr]
    if byte == ord("`"):
        return len(data)  # no backquote after it: none closes
    if data.startswith(b"/*", position):
        return len(data)  # no */ after it (the expression is DOTALL): none closes
    return -1  # a "/" alone


def _gunzip(data: bytes) -> bytes | None:
    """``data`` decompressed (gzip), or None when it is corrupt or over MAX_ARCHIVE_BYTES."""
    unzip = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = unzip.decompress(data, MAX_ARCHIVE_BYTES + 1)
    except zlib_error:
        return None
    return None if len(out) > MAX_ARCHIVE_BYTES or unzip.unconsumed_tail else out


def _placeholder_omissions(options: HelmOptions, value_files: list[_ValueFile], chart_yaml: str) -> list[Omission]:
    """HL009, at its ``valueFiles`` entry, for each SOPS-encrypted value file read with
    placeholders (:func:`sops_placeholders`): the chart was rendered and checked, with values Argo
    CD's are not (the plan is partial)."""
    out = []
    places = options.value_file_places
    for value_file in value_files:
        if value_file.text is None:
            continue
        where = places[value_file.index] if 0 <= value_file.index < len(places) else (chart_yaml, 1, 1)
        out.append(Omission(f"value file {value_file.user} is SOPS-encrypted: hooklint read its keys without its sops "
                            f"block, each encrypted value replaced by {SOPS_PLACEHOLDER!r} (it never decrypts)", *where,
                            argocd_renders="Argo CD's repo server decrypts it when helm-secrets wraps its helm",
                            unchecked="what the real values change (names, images, conditions) was not checked; the "
                                      "rest of the chart was", done="rendered the chart with those placeholders"))  # fmt: skip
    return out


@dataclass(slots=True)
class _Doc:
    source: str  # Helm's name: <chart>/templates/x.yaml, <chart>/charts/<sub>/crds/y.yaml
    text: str
    kind: str | None


#: The marker template of a :class:`_Stub` (its name holds a token drawn for each rendering).
_MARKER = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hooklint-omitted-dependency\n"


def _refuse_ignored_copies(chart: str, build: _Build, token: str, max_file_size: int) -> None:
    """Raise RenderError (HL009, at the chart's ``.helmignore``) when its rules leave out, of what
    the dependency build puts into hooklint's copy, a file or folder Argo CD renders: a ``file://``
    dependency's files its own ``.helmignore`` keeps, a stub's ``Chart.yaml`` and marker (named with
    ``token``), or the folders holding them. Helm loads the copy as a folder, so the top chart's
    ``.helmignore`` reaches them there; Argo CD's ``helm dependency build`` packages each
    dependency with its own ``.helmignore`` into an archive in ``charts/``, which the top chart's
    rules do not look into (helmdeps' note on attacker trial 30: a rule such as ``hooklint-*`` or
    ``charts/*/templates/`` would hide a dependency's hook, or the marker that says a dependency was
    left out, from hooklint alone)."""
    added: list[tuple[str, str, _HelmIgnore | None]] = []  # (path in the copy, path in the dependency, its rules)
    for local in build.local:
        its_rules = _HelmIgnore.of(local.tree.folder or ".", max_file_size)
        added += [(os.path.join(local.tree.copied, inside), inside, its_rules) for _, inside in local.files]
    for index, stub in enumerate(build.stubs):
        for inside in ("Chart.yaml", os.path.join("templates", f"hooklint-omitted-{token}-{index}.yaml")):
            added.append((os.path.join(stub.folder, inside), inside, None))
    if not added:
        return
    rules = _HelmIgnore.of(chart, max_file_size)
    for in_copy, in_dependency, own in added:
        parts = in_copy.replace(os.sep, "/").split("/")
        inner = in_dependency.replace(os.sep, "/").split("/")
        above = len(parts) - len(inner)  # charts/<folder>: the archive Argo CD packages stands there
        for end in range(1, len(parts) + 1):
            folder = end < len(parts)
            if not rules.ignores("/".join(parts[:end]), folder):
                continue
            if end > above and own is not None and own.ignores("/".join(inner[:end - above]), folder):
                continue  # left out of Argo CD's archive too
            path = os.path.normpath(os.path.join(chart, ".helmignore"))
            raise RenderError(
                f"{path} leaves out {'/'.join(parts[:end])} of what helm dependency build puts into charts/: "
                "Argo CD's build packages each dependency as an archive, which those rules do not look into, "
                "and hooklint cannot render the dependencies as Argo CD does", path,
                argocd_renders="Argo CD runs helm dependency build and renders the chart with the "
                "dependencies it packaged")  # fmt: skip


def _render(mode: str, renderer: Renderer, chart: str, tree: _Chart, files: list[tuple[str, str]],
            value_files: list[_ValueFile], options: HelmOptions, limits: bounded.Limits,
            root: str | None = None, build: _Build | None = None,
            left_out: list[tuple[str, Omission]] | None = None, skip_schemas: bool = False,
            set_files: list[_ValueFile] | None = None) -> Rendering:  # fmt: skip
    """Render on a copy of the chart (``skip_schemas``: without its ``values.schema.json`` files,
    whose references hooklint does not load (:func:`schema_loads`), or as ``skipSchemaValidation``
    asks), with copies of the value files and of the files of ``fileParameters`` (``set_files``,
    in the order of ``options.file_parameters``)."""
    build = build or _Build()
    work = tempfile.mkdtemp(prefix="hooklint-helm-")
    try:
        copy = os.path.join(work, "chart", os.path.basename(os.path.abspath(chart)) or "chart")
        dropped = tuple(os.path.join("charts", entry) for entry in build.dropped)
        for path, inside in files + build.files():
            if any(inside == d or inside.startswith(d + os.sep) for d in dropped):
                continue  # a charts/ entry helm dependency build replaces with a file:// dependency
            if skip_schemas and os.path.basename(inside) == "values.schema.json":
                continue
            target = os.path.join(copy, inside)
            make_dirs(os.path.dirname(target))
            shutil.copyfile(path, target)
        token = secrets.token_hex(8)
        marker = re.compile(rf"/templates/hooklint-omitted-{token}-(\d+)\.yaml$")
        for index, stub in enumerate(build.stubs):
            stub_dir = os.path.join(copy, stub.folder)
            make_dirs(os.path.join(stub_dir, "templates"))
            with open(os.path.join(stub_dir, "Chart.yaml"), "w", encoding="utf-8") as handle:
                handle.write(go_yaml_text({"apiVersion": "v2", "name": stub.name, "version": stub.version}))
            with open(os.path.join(stub_dir, "templates", f"hooklint-omitted-{token}-{index}.yaml"), "w",
                      encoding="utf-8") as handle:  # fmt: skip
                handle.write(_MARKER)
        _refuse_ignored_copies(chart, build, token, limits.max_file_size)
        values_dir = os.path.join(work, "values")
        os.makedirs(values_dir)
        value_paths, replacements = [], [(copy, os.path.normpath(chart))]
        for index, value_file in enumerate(value_files):
            target = os.path.join(values_dir, f"{index}-{os.path.basename(value_file.real)}")
            if value_file.text is not None:  # SOPS-encrypted: its keys, placeholders for its values
                with open(target, "w", encoding="utf-8") as handle:
                    handle.write(value_file.text)
            else:
                shutil.copyfile(value_file.real, target)
            value_paths.append(target)
            replacements.append((target, value_file.user))
        file_paths: dict[str, str] = {}  # Argo CD's SetFile map: a later parameter of a name wins
        for index, ((name, _), set_file) in enumerate(zip(options.file_parameters, set_files or [])):
            target = os.path.join(values_dir, f"file-{index}-{os.path.basename(set_file.real)}")
            if set_file.text is not None:  # SOPS-encrypted: never its ciphertext
                with open(target, "w", encoding="utf-8") as handle:
                    handle.write(set_file.text)
            else:
                shutil.copyfile(set_file.real, target)
            file_paths.pop(name, None)
            file_paths[name] = _clean_set(target)  # cmd.go: --set-file key=cleanSetParameters(path)
            replacements.append((target, set_file.user))
        if options.values is not None:
            target = os.path.join(values_dir, "values-extra.yaml")  # Argo CD's temporary values file
            with open(target, "w", encoding="utf-8") as handle:
                handle.write(options.values)
            value_paths.append(target)
            replacements.append((target, "spec.source.helm.values"))
        try:
            if mode == "binary":
                docs = _render_binary(copy, value_paths, options, work, limits, root, list(file_paths.items()))
            else:
                docs = _render_sdk(copy, value_paths, options, work, limits, root, list(file_paths.items()))
        except bounded.Stopped as exc:  # a limit or a signal: the next run may render it (never cached)
            raise transient(RenderError(f"Helm rendering of chart {os.path.normpath(chart)} {exc.reason}",
                                        tree.configured_in)) from None  # fmt: skip
        except _HelmFault as exc:  # hooklint's Python failed, not Helm: Argo CD may render it (never cached)
            raise transient(RenderError(f"{HOOKLINT_FAULT} while the Helm SDK rendered chart "
                                        f"{os.path.normpath(chart)} ({exc})", tree.configured_in,
                                        names_only=True)) from None  # fmt: skip
        except _HelmFailed as exc:
            message = str(exc)
            for temp, user in replacements:
                message = message.replace(temp, user)
            message = _one_line(message.replace(work, "<tmp>"))
            if left_out or any(_may_need(message, stub) for stub in build.stubs):
                raise _without(message, tree, build.stubs, left_out or []) from None
            where = template_location(message, tree)
            if any(text in message for text in _MISSING_DEPENDENCY):  # Argo CD builds and renders again
                raise RenderError(
                    f"{message}: Argo CD's repo server takes this message for a missing dependency, runs helm "
                    "dependency build and renders again, which hooklint does not", *(where or (tree.configured_in,)),
                    argocd_renders="Argo CD runs helm dependency build and renders the chart again") from None  # fmt: skip
            if where is not None:
                raise RenderError(message, *where) from None
            raise RenderError(message, tree.configured_in) from None
        enabled, kept = set(), []
        for doc in docs:
            found = marker.search(doc.source)
            if found is not None:
                enabled.add(int(found.group(1)))
            else:
                kept.append(doc)
        omitted = [_dependency_omission(stub, tree) for index, stub in enumerate(build.stubs) if index in enabled]
        return Rendering(renderer, _place(kept, tree, copy), omitted)
    finally:
        remove_tree(work)


def _dependency_omission(stub: _Stub, tree: _Chart) -> Omission:
    """HL009 on the ``Chart.yaml`` entry of an enabled dependency that needs the network, or that
    hooklint left out for ``stub.why``."""
    if stub.why:
        return Omission(f"chart dependency {stub.name} ({stub.repository or 'no repository'}) was left out: {stub.why}",
                        tree.configured_in, stub.line, stub.column,
                        argocd_renders="Argo CD runs helm dependency build, which fetches it, before it renders the chart",
                        unchecked="the objects it adds, possibly hooks, were not checked; the chart's own were; run "
                        "helm dependency update so that the lock file lists what Chart.yaml does")  # fmt: skip
    where = "an OCI registry" if stub.repository.lower().startswith("oci://") else "a chart repository"
    from hooklint.sources.fetch import fetch_advice  # noqa: PLC0415

    scheme = stub.repository.partition("://")[0].lower() if "://" in stub.repository else ""
    advice = fetch_advice(stub.repository) if scheme in ("http", "https", "oci") and not stub.problem else None
    why = (f"--fetch did not fetch it ({stub.problem})" if stub.problem else
           "hooklint fetches it only with `--fetch`" if advice else NEVER_FETCHES)  # fmt: skip
    if stub.repository.startswith(("@", "alias:")):  # Argo CD: getHelmDependencyRepos, a repository by name
        named = stub.repository.removeprefix("@") if stub.repository.startswith("@") else stub.repository[6:]
        where = f"the chart repository Argo CD's settings name {named}"
        if not stub.problem:
            why = "hooklint fetches it only with `--fetch`, from the URL `helm-repositories` names"
            advice = (f"name its URL under `helm-repositories` in the configuration ({named}: https://...), list its "
                      "host in `fetch-hosts` and run with `--fetch`")  # fmt: skip
    return Omission(f"chart dependency {stub.name} ({stub.repository}) needs {where}: {why}",
                    tree.configured_in, stub.line, stub.column,
                    argocd_renders="Argo CD runs helm dependency build, which fetches it, before it renders the chart",
                    unchecked="the objects it adds, possibly hooks, were not checked; the chart's own were"
                    + (f"; {advice} to check it" if advice else ""))  # fmt: skip


def _may_need(message: str, stub: _Stub) -> bool:
    """Whether Helm's error ``message`` may come from the dependency ``stub`` left out: a named
    template it would define (``no template "common.names.fullname"``), a value its own
    ``values.yaml`` would default (``nil pointer evaluating interface {}.password``), or its name
    quoted. Any other failure of a chart whose value files were all read is the chart's own
    (a ``required``/``fail`` of its templates): HL007 where Helm says, as Argo CD fails."""
    return ('no template "' in message or "nil pointer evaluating" in message
            or re.search(rf"(?<![\w-]){re.escape(stub.name)}(?![\w-])", message) is not None)  # fmt: skip


def _without(message: str, tree: _Chart, stubs: list[_Stub], left_out: list[tuple[str, Omission]]) -> RenderError:
    """The chart does not render without what hooklint left out (a dependency's named templates, a
    value the schema or a ``required`` needs): HL009 where the first of them is written, Helm's
    ``message`` quoted, as Argo CD renders the chart with them."""
    names = [f"dependency {s.name} ({s.repository})" for s in stubs]
    names += [f"value file {name}" for name, _ in left_out]
    if stubs:
        path, line, column = tree.configured_in, stubs[0].line, stubs[0].column
    else:
        path, line, column = left_out[0][1].path, left_out[0][1].line, left_out[0][1].column
    return RenderError(f"chart {os.path.normpath(tree.folder or '.')} does not render without {', '.join(names)}, "
                       f"which hooklint left out (it never fetches charts or values, never decrypts): {message}",
                       path, line, column, argocd_renders="Argo CD renders the chart with them")  # fmt: skip


#: Where Go's text/template says an error is: ``shop/templates/job.yaml:12:7`` (executing) or
#: ``(shop/templates/job.yaml:12)`` (parsing), named by chart name, ``charts/<name>/`` per subchart.
_TEMPLATE_AT = re.compile(r"(?<![\w./-])([\w.-]+(?:/[\w.-]+)*/templates/[^\s:()\"]+):(\d+)(?::(\d+))?")
#: What :func:`_template_positions` reads: a word that may end a path (up to a space, ``:``, a
#: parenthesis or a quote) and the ``:12`` or ``:12:7`` after it; a run of path characters.
_PATH_WORD = re.compile(r"(?<![^\s:()\"])[^\s:()\"]+(?=:\d)")
_LINE_COLUMN = re.compile(r":(\d+)(?::(\d+))?")
_PATH_RUN = re.compile(r"[\w./-]*")


def _template_positions(message: str) -> Iterator[tuple[str, str, str | None]]:
    """``(path, line, column or None)`` of each ``_TEMPLATE_AT`` in ``message``, found as
    ``_TEMPLATE_AT.finditer`` finds them but in linear time (the expression read a run of
    ``a/templates/`` once for each of its ``/templates/``): in each word before ``:12``, the first
    place after no path character (``[\\w./-]``) whose run of path characters holds a
    ``/templates/`` after a path (no ``//``, not from ``/``) and before more of the word."""
    consumed = 0
    for word in _PATH_WORD.finditer(message):
        start, end = word.span()
        at = max(start, consumed)
        if at >= end:
            continue
        if at > start and _PATH_RUN.match(message, at - 1, at).end() == at:  # type: ignore[union-attr]
            at = _PATH_RUN.match(message, at, end).end() + 1  # type: ignore[union-attr]  # after a path character: no start
        while at < end:
            run_end = _PATH_RUN.match(message, at, end).end()  # type: ignore[union-attr]  # matches the empty string
            templates = message.find("/templates/", at + 1, run_end)
            if message[at] != "/" and templates > at and "//" not in message[at:templates + 1] and templates + 11 < end:
                numbers = _LINE_COLUMN.match(message, end)
                if numbers is not None:
                    yield message[at:end], numbers.group(1), numbers.group(2)
                    consumed = numbers.end()
                break
            at = run_end + 1 if run_end > at else at + 1


def template_location(message: str, tree: _Chart) -> tuple[str, int, int] | None:
    """``(file, line, column)`` of the first template position in Helm's error ``message`` that
    names a template file of ``tree`` (the chart rendered, or one of its unpacked subcharts);
    column 1 when Helm gives a line only. None when the message names none, or a template of a
    packaged subchart, which the user cannot open at a line."""
    for file, line, column in _template_positions(message):
        parts = file.split("/")
        if parts[0] != tree.name:
            continue
        node: _Chart | None = tree
        i = 1
        while node is not None and i + 1 < len(parts) and parts[i] == "charts":
            node, i = node.children.get(parts[i + 1]), i + 2
        if node is None or node.folder is None or parts[i] != "templates":
            continue
        path = os.path.normpath(os.path.join(node.folder, *parts[i:]))
        if os.path.isfile(path):
            return path, int(line), int(column or 1)
    return None


#: What Argo CD's repo server looks for in Helm's error to run ``helm dependency build`` and render
#: again (argo-cd v3.5.1 ``util/helm/helm.go`` ``IsMissingDependencyErr``: ``strings.Contains`` of the
#: whole message, a template's ``fail`` text included: attacker trial 31, B5).
_MISSING_DEPENDENCY = ("found in requirements.yaml, but missing in charts", "found in Chart.yaml, but missing in charts/ directory")


class _HelmFailed(Exception):
    """Helm's error message (temporary paths still in it)."""


class _HelmFault(_HelmFailed):
    """The Helm SDK's child ended on an exception of Python code (hooklint's, or the SDK's
    wrapper's), not on an error of Helm's: the message is where it was raised
    (``ValueError at strvals.py:140 in _typed``), never the exception's text."""


def _set_parameters(options: HelmOptions) -> tuple[dict[str, str], dict[str, str]]:
    """Argo CD's ``Set`` and ``SetString`` maps (reposerver ``helmTemplate``; a later parameter of
    the same name wins), values escaped by ``cleanSetParameters`` (commas, unless ``{...}``)."""
    plain: dict[str, str] = {}
    forced: dict[str, str] = {}
    for name, value, force in options.parameters:
        (forced if force else plain)[name] = value
    return {k: _clean_set(v) for k, v in plain.items()}, {k: _clean_set(v) for k, v in forced.items()}


def parameter_order_problem(options: HelmOptions) -> str | None:
    """Why the values of ``options`` depend on the order of Argo CD's ``--set`` flags (one
    sentence naming the two parameters and the value they both set), or None when every order
    renders the same values.

    Argo CD builds one flag per entry of a Go map keyed by the parameter's name: ``Set``,
    ``SetString`` (``forceString``) and ``SetFile`` (``fileParameters``; reposerver ``helmTemplate``),
    ranged over in random order (``util/helm/cmd.go`` ``template``, v3.5.1), each flag
    ``name=cleanSetParameters(value)`` with the name as written; Helm applies all ``--set``, then
    all ``--set-string``, then all ``--set-file`` flags. Two flags of one map conflict when Helm's
    parser reads them as setting one value to two values, or a value and one inside it
    (:func:`hooklint.sources.render.strvals.order_conflict`): ``{name: "x=1,debug", value: "true"}``
    then ``{name: debug, value: "false"}`` renders with ``debug`` true about half the time. The
    message names parameters, never their values."""
    plain: dict[str, tuple[int, str]] = {}
    forced: dict[str, tuple[int, str]] = {}
    for index, (name, value, force) in enumerate(options.parameters):
        chosen = forced if force else plain
        chosen.pop(name, None)
        chosen[name] = (index, _clean_set(value))
    files: dict[str, tuple[int, str]] = {}
    for index, (name, path) in enumerate(options.file_parameters):
        files.pop(name, None)
        files[name] = (index, _clean_set(path))
    for field_name, flag, group in (("parameters", "--set", plain), ("parameters", "--set-string", forced),
                                    ("fileParameters", "--set-file", files)):  # fmt: skip
        entries = list(group.items())
        conflict = strvals.order_conflict([f"{name}={value}" for name, (_, value) in entries])
        if conflict is None:
            continue
        (one, (first, _)), (two, (second, _)) = entries[conflict[0]], entries[conflict[1]]
        (one, first), (two, second) = sorted([(one, first), (two, second)], key=lambda e: e[1])
        return (f"spec.source.helm.{field_name}[{first}] (name {one!r}) and [{second}] (name {two!r}) both set "
                f"{strvals.shown(conflict[2])}, as Helm reads their {flag} flags, and Argo CD passes those flags "
                f"in random order (util/helm/cmd.go ranges over a Go map): which value Helm renders with changes "
                f"from one rendering to the next; set each value with one parameter (a name holding ',', '=', "
                f"'.' or '[' is read as several: escape them with a backslash)")
    return None


def refuse_random_order(options: HelmOptions, path: str, label: str | None = None) -> None:
    """Raise RenderError (HL009 at ``path``, 1:1; the message after ``label``, the Application,
    when given) when the values of ``options`` depend on the order Argo CD passes its ``--set``
    flags in (:func:`parameter_order_problem`): hooklint renders no order of the ones Argo CD may
    draw rather than pick one."""
    problem = parameter_order_problem(options)
    if problem is not None:
        raise RenderError(f"{label}: {problem}" if label else problem, path,
                          argocd_renders="Argo CD renders it, with the flags in an order it draws again each time")


def _clean_set(value: str) -> str:
    if value.startswith("{") and value.endswith("}"):
        return value
    out, previous = [], ""
    for char in value:
        out.append("\\," if char == "," and previous != "\\" else char)
        previous = char
    return "".join(out)


def _render_sdk(chart_dir: str, value_paths: list[str], options: HelmOptions, work: str,
                limits: bounded.Limits, root: str | None = None,
                file_paths: list[tuple[str, str]] | None = None) -> list[_Doc]:  # fmt: skip
    """The chart rendered by the Helm SDK in a child process (:mod:`hooklint.sources.render._helm_child`),
    then split and sorted as ``helm template`` does (bounded.Stopped past ``render-objects``)."""
    plain, forced = _set_parameters(options)
    render_options: dict[str, Any] = {"name": options.release_name}
    if options.namespace:
        render_options["namespace"] = options.namespace
    if options.kube_version:
        render_options["kube_version"] = options.kube_version
    if options.api_versions:
        render_options["api_versions"] = list(options.api_versions)
    answer = _ask_sdk({
        "op": "render", "chart": chart_dir, "release": options.release_name, "values": value_paths,
        "set": plain, "set_string": forced, "set_file": file_paths or [], "options": render_options,
        "crds": not options.skip_crds, "token": secrets.token_hex(8),
    }, work, limits, os.path.abspath(root) if root else None)  # fmt: skip
    if "error" in answer:
        raise _HelmFailed(str(answer["error"]))
    manifests, crds = answer.get("manifests"), answer.get("crds")
    if not isinstance(manifests, dict) or not isinstance(crds, list):
        raise _HelmFailed("the Helm SDK gave an answer of the wrong shape")
    docs: list[_Doc] = []
    tally = bounded.Tally(limits.objects)
    for crd in crds:
        docs.extend(_Doc(crd["filename"], text, _kind(text)) for text in _split(crd["data"], tally))
    generic, hooks = _sort_manifests(manifests, tally)
    return docs + generic + hooks


#: The child that runs the Helm SDK; a file of this package run by path, importing nothing of hooklint.
_CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_helm_child.py")


def _ask_sdk(request: dict[str, Any], work: str, limits: bounded.Limits, repository: str | None = None) -> dict[str, Any]:
    """One request answered by :mod:`hooklint.sources.render._helm_child`, run in ``work`` within
    ``limits``, with :func:`_quiet_env` and in a network namespace of its own where the kernel
    allows (:func:`hooklint.sources.sandbox.network_isolation`, as a kustomize build). Raises
    bounded.Stopped (a limit, a signal), _HelmFault (the child ended on an exception of Python
    code: hooklint's fault, not Helm's error) and _HelmFailed (the child failed without an answer,
    the last line of its stderr; an SDK that cannot load)."""
    request = {**request, "path": _sdk_path()}
    env = _quiet_env(work, repository)
    if os.environ.get("HELM_C_LIB"):  # helm-python-sdk's own override of its native library
        env["HELM_C_LIB"] = os.environ["HELM_C_LIB"]
    argv = [*sandbox.network_isolation(repository or os.getcwd()), sys.executable, "-I", _CHILD]
    done = bounded.run(argv, cwd=work, env=env, timeout=limits.timeout, memory=limits.memory,
                       input=json.dumps(request), output=limits.output)  # fmt: skip
    try:
        answer = json.loads(done.stdout) if done.returncode == 0 else None
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        if done.returncode == 4 and lines and lines[-1].startswith(FAULT):
            raise _HelmFault(lines[-1][len(FAULT):])
        if any(line.startswith("Traceback (most recent call last)") for line in lines):
            raise _HelmFault(f"a Python exception, exit status {done.returncode}")  # never its text as Helm's
        raise _HelmFailed(f"the Helm SDK failed: {lines[-1] if lines else f'exit status {done.returncode}'}")
    if "unavailable" in answer:
        raise _HelmFailed(f"the Helm SDK cannot load: {answer['unavailable']}")
    return answer


def _split(text: str, tally: bounded.Tally | None = None) -> list[str]:
    """``SplitManifests``: documents in order, left-trimmed; empty ones (nothing but comments or
    whitespace) left out here, each other counted in ``tally`` as it is split off (bounded.Stopped
    past ``render-objects``)."""
    docs = []
    for piece in _pieces(text.lstrip()):
        piece = piece.lstrip().rstrip() + "\n"
        if piece.strip() and any(line.strip() and not line.lstrip().startswith("#") for line in piece.splitlines()):
            if tally is not None:
                tally.add()
            docs.append(piece)
    return docs


def _pieces(text: str) -> Iterator[str]:
    """``_SPLIT.split(text)``, one piece at a time (no list of every piece of a large output)."""
    start = 0
    for separator_start, separator_end in _separators(text):
        yield text[start:separator_start]
        start = separator_end
    yield text[start:]


_SPLIT_SPACE = "\t\n\f\r "
_SPLIT_SPACES = re.compile(r"[\t\n\f\r ]*")


def _separators(text: str) -> Iterator[tuple[int, int]]:
    """The spans of ``_SPLIT``'s matches in ``text``, as ``_SPLIT.finditer`` finds them but in linear
    time (its ``[\\t\\n\\f\\r ]*\\n`` read a run of spaces and line breaks once for each of its
    characters): each ``---`` at the start or after a line break, from the start of the run of
    spaces and line breaks before it (after the previous separator) to the end of the one after."""
    position = 0
    at = text.find("---")
    while at >= 0:
        if at == 0 or (at - 1 >= position and text[at - 1] == "\n"):
            start = at
            while start > position and text[start - 1] in _SPLIT_SPACE:
                start -= 1
            position = _SPLIT_SPACES.match(text, at + 3).end()  # type: ignore[union-attr]  # matches the empty string
            yield start, position
            at = text.find("---", position)
        else:
            at = text.find("---", at + 1)


def _head(text: str, source: str) -> tuple[str | None, dict[str, Any]] | None:
    """The document's literal top-level ``kind`` (a string, else None) and its head as Helm's
    ``SimpleHead`` reads it (:func:`_simple_head`); raises _HelmFailed where Helm fails ("YAML
    parse error on <template>"), None for an empty document."""
    try:  # as SimpleHead is read: sigs.k8s.io/yaml (go-yaml v2: a merge key after annotations replaces them)
        value = go_first_document(text).value
    except YamlTooComplex:  # Helm reads it; hooklint's parse of the document says what is too much (HL001)
        return None, {}
    except (Unreadable, yaml.YAMLError) as exc:
        raise _HelmFailed(f"YAML parse error on {source}: {_one_line(str(exc))}") from None
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _HelmFailed(f"YAML parse error on {source}: cannot unmarshal {type(value).__name__} into SimpleHead")
    kind = value.get("kind")
    try:
        return (kind if isinstance(kind, str) else None), _simple_head(value)
    except ValueError as exc:
        raise _HelmFailed(f"YAML parse error on {source}: {exc}") from None


#: Helm's ``SimpleHead`` (v4.2.3 ``pkg/release/v1/util/manifest.go``, v3.15.2
#: ``pkg/releaseutil/manifest.go``): JSON field name -> ``"string"``, ``"map"`` (a
#: ``map[string]string``) or the fields of a ``*struct``.
_SIMPLE_HEAD: dict[str, Any] = {"apiVersion": "string", "kind": "string",
                                "metadata": {"name": "string", "annotations": "map"}}  # fmt: skip


def _simple_head(value: dict[str, Any], fields: dict[str, Any] = _SIMPLE_HEAD, into: dict[str, Any] | None = None,
                 where: str = "SimpleHead") -> dict[str, Any]:  # fmt: skip
    """What ``yaml.Unmarshal(document, &SimpleHead{})`` leaves in the struct, as a dict of field
    names (a field Go leaves unset is absent; a nil ``*struct`` or map is None). ``value`` is the
    document as ``sigs.k8s.io/yaml`` converts it (:func:`~hooklint.yamlio.go_first_document`).

    Upstream: ``YAMLToJSON`` writes the object's keys sorted (``json.Marshal`` of a Go map; byte
    order), coercing a number or bool to a string where the field is a string or a
    ``map[string]string`` (``convertToJSONableObject``); ``encoding/json`` then decodes the keys
    in that order, each into the field of its exact name or else of the name it folds onto
    (Unicode simple folding: ``Annotations``, ``annotation\u017f``, ``METADATA``, ``\u212aind``;
    :func:`~hooklint.gojsonread.go_fold`). So of several keys for one
    field the last one sorted wins, a map is merged into the one before (a ``*struct`` likewise,
    field by field), ``null`` sets a map or ``*struct`` to nil and leaves a string as it was, and
    a ``null`` map value is ``""``. A value of the wrong type (a list for ``kind``, a string for
    ``annotations``) fails the decode, and Helm the render: raises ValueError saying so. Argo CD
    reads the object with exact keys; only Helm's choice of what to print is modelled here."""
    out: dict[str, Any] = {} if into is None else into
    for key in sorted(value, key=lambda k: k.encode("utf-8", "surrogatepass")):
        field = key if key in fields else next((f for f in fields if go_fold(f) == go_fold(key)), None)
        if field is None:
            continue
        shape, item, path = fields[field], value[key], f"{where}.{field}"
        if isinstance(shape, dict):  # a *struct: null is nil, an object fills the struct there is
            if item is None or not isinstance(item, dict):
                if item is not None:
                    raise ValueError(f"cannot unmarshal {_json_type(item)} into Go struct field {path} of type struct")
                out[field] = None
                continue
            out[field] = _simple_head(item, shape, out.get(field) or {}, path)
        elif shape == "map":
            if item is None or not isinstance(item, dict):
                if item is not None:
                    raise ValueError(f"cannot unmarshal {_json_type(item)} into Go struct field {path} "
                                     "of type map[string]string")  # fmt: skip
                out[field] = None
                continue
            merged = dict(out.get(field) or {})
            for name, text in item.items():
                merged[name] = "" if text is None else _go_string(text, f"{path}")
            out[field] = merged
        elif item is not None:  # a string; null leaves it as it was
            out[field] = _go_string(item, path)
    return out


def _go_string(value: Any, path: str) -> str:
    """``value`` decoded into a Go string field after ``YAMLToJSON``'s coercion of numbers and
    bools (the text of a float is close to Go's ``FormatFloat(f, 'g', -1, 32)``, exact for every
    value a hook event or a known kind could be: none is a number). Raises ValueError for an
    object or a list."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    raise ValueError(f"cannot unmarshal {_json_type(value)} into Go struct field {path} of type string")


def _json_type(value: Any) -> str:
    """The JSON type ``encoding/json`` names in an ``UnmarshalTypeError``."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return "object" if isinstance(value, dict) else "array" if isinstance(value, list) else "string"


def _kind(text: str) -> str | None:
    try:
        value = go_first_document(text).value
    except (Unreadable, yaml.YAMLError):
        return None
    kind = value.get("kind") if isinstance(value, dict) else None
    return kind if isinstance(kind, str) else None


def _sort_manifests(manifests: dict[str, str], tally: bounded.Tally | None = None) -> tuple[list[_Doc], list[_Doc]]:
    """``SortManifests``: files by name, documents in file order; NOTES.txt and partials out; an
    object whose ``helm.sh/hook`` lists an unknown hook skipped (each item through Go's
    ``strings.ToLower(strings.TrimSpace(...))``, ``manifest_sorter.go``); both lists sorted by kind.
    Every document is counted in ``tally`` before it is read."""
    generic, hooks = [], []
    for source in sorted(manifests):
        base = source.rsplit("/", 1)[-1]
        if base.startswith("_") or base.endswith("NOTES.txt") or not manifests[source].strip():
            continue
        for text in _split(manifests[source], tally):
            read = _head(text, source)
            if read is None:
                continue
            literal_kind, head = read
            metadata = head.get("metadata")
            annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
            hook = annotations.get("helm.sh/hook") if isinstance(annotations, dict) else None
            doc = _Doc(source, text, literal_kind)  # the literal kind: where the object came from (_place)
            if hook is None:
                generic.append((head.get("kind", ""), doc))
            elif all(go_to_lower(go_trim_space(h)) in HELM_HOOK_EVENTS for h in hook.split(",")):
                hooks.append((head.get("kind", ""), doc))
    return _by_kind(generic), _by_kind(hooks)


def _by_kind(docs: list[tuple[str, _Doc]]) -> list[_Doc]:
    """``sortManifestsByKind``: stable; known kinds in install order, then unknown ones by name
    (each document's kind as Helm's ``SimpleHead`` holds it, :func:`_simple_head`)."""
    ordered = sorted(docs, key=lambda d: (0, _KIND_RANK[d[0]], "") if d[0] in _KIND_RANK else (1, 0, d[0]))
    return [doc for _, doc in ordered]


def _quiet_env(work: str, repository: str | None = None) -> dict[str, str]:
    """The whole environment of a Helm run (the ``helm`` binary or the SDK's child), built from
    nothing as a kustomize build's is (:func:`hooklint.sources.sandbox.child_environment`): ``PATH``
    without the repository's (``repository``, else the current folder) or relative folders, the
    locale, ``HOME`` and Helm's folders empty ones under ``work``, no cluster (KUBECONFIG names no
    file), no repositories, registries or plugins. No other variable of hooklint's environment
    passes (a token in it was readable by a chart's render: helper trial, issue 24 round)."""
    env = {"PATH": sandbox.program_path(repository or os.getcwd()), "HOME": os.path.join(work, "helm-home")}
    for name in ("LANG", "LC_ALL", "TZ"):
        if name in os.environ:
            env[name] = os.environ[name]
    homes = {"HELM_CACHE_HOME": "cache", "HELM_CONFIG_HOME": "config", "HELM_DATA_HOME": "data",
             "HELM_PLUGINS": "plugins"}  # fmt: skip
    env.update({name: os.path.join(work, "helm-home", sub) for name, sub in homes.items()})
    env["KUBECONFIG"] = os.path.join(work, "helm-home", "no-kubeconfig")
    env["HELM_REGISTRY_CONFIG"] = os.path.join(work, "helm-home", "registry.json")
    env["HELM_REPOSITORY_CONFIG"] = os.path.join(work, "helm-home", "repositories.yaml")
    return env


def _render_binary(chart_dir: str, value_paths: list[str], options: HelmOptions, work: str,
                   limits: bounded.Limits, root: str | None = None,
                   file_paths: list[tuple[str, str]] | None = None) -> list[_Doc]:  # fmt: skip
    binary = sandbox.find_program("helm", os.path.abspath(root) if root else None)
    if binary is None:
        raise _HelmFailed("the helm binary is no longer on PATH")
    args = [binary, "template", chart_dir, "--name-template", options.release_name]
    if options.namespace:
        args += ["--namespace", options.namespace]
    if options.kube_version:
        args += ["--kube-version", options.kube_version]
    plain, forced = _set_parameters(options)
    for name, value in plain.items():
        args += ["--set", f"{name}={value}"]
    for name, value in forced.items():
        args += ["--set-string", f"{name}={value}"]
    for name, path in file_paths or []:
        args += ["--set-file", f"{name}={path}"]
    for path in value_paths:
        args += ["--values", path]
    for api_version in options.api_versions:
        args += ["--api-versions", api_version]
    if not options.skip_crds:
        args.append("--include-crds")
    try:
        repository = os.path.abspath(root) if root else None
        done = bounded.run([*sandbox.network_isolation(repository or os.getcwd()), *args], cwd=work,
                           env=_quiet_env(work, repository), timeout=limits.timeout, memory=limits.memory,
                           output=limits.output)  # fmt: skip
    except OSError as exc:
        raise _HelmFailed(f"helm template could not run: {exc}") from None
    if done.returncode != 0:
        message = done.stderr.strip() or f"helm template exited with {done.returncode}"
        raise _HelmFailed(message[len("Error: "):] if message.startswith("Error: ") else message)
    return _parse_template_output(done.stdout, bounded.Tally(limits.objects))


def _parse_template_output(output: str, tally: bounded.Tally | None = None) -> list[_Doc]:
    """``helm template`` output: ``---\\n# Source: <name>\\n<document>`` each; a CRD file holding
    several documents prints them under one ``# Source:``. Every document is counted in ``tally``."""
    docs, source = [], ""
    for piece in _pieces(output.lstrip()):
        lines = piece.lstrip().split("\n")
        if lines and lines[0].startswith("# Source: "):
            source = lines[0][len("# Source: "):].strip()
            piece = "\n".join(lines[1:])
        for text in _split(piece, tally):
            docs.append(_Doc(source, text, _kind(text)))
    return docs


# --- where each object came from ----------------------------------------------------------------


def _place(docs: list[_Doc], tree: _Chart, copy: str) -> list[RenderedDocument]:
    """RenderedDocuments for ``docs``: origin, configured_in and origin_line (module docstring)."""
    texts: dict[str, str | None] = {}
    seen: dict[tuple[str, str], int] = {}
    rendered = []
    for doc in docs:
        owner, inside = _owner(doc.source, tree)
        if owner.archive is not None or inside is None or owner.folder is None:
            rendered.append(RenderedDocument(doc.text, None, 0, owner.configured_in))
            continue
        origin = os.path.normpath(os.path.join(owner.folder, inside))
        if origin not in texts:
            texts[origin] = _read_text(os.path.join(copy, owner.copied, inside))
        template = texts[origin]
        line = 0
        if template is not None:
            index = _match_document(template, doc.kind, seen, origin)
            line = object_line(template, index)
        rendered.append(RenderedDocument(doc.text, origin, line, owner.configured_in))
    return rendered


def _owner(source: str, tree: _Chart) -> tuple[_Chart, str | None]:
    """The chart a Helm source name belongs to and the path inside that chart."""
    parts = source.split("/")[1:]
    chart = tree
    while len(parts) > 2 and parts[0] == "charts" and chart.archive is None:
        child = chart.children.get(parts[1])
        if child is None:
            return chart, None
        chart, parts = child, parts[2:]
    return chart, "/".join(parts) if parts else None


def _read_text(path: str) -> str | None:
    """The text of a template (regular files only; one over the default max-file-size is not read)."""
    try:
        return read_bytes(path, DEFAULT_MAX_FILE_SIZE).decode("utf-8", "replace")
    except OSError:
        return None


def _match_document(template: str, kind: str | None, seen: dict[tuple[str, str], int], origin: str) -> int:
    """The template document an object of ``kind`` came from: the n-th object of a kind rendered
    from a template comes from the n-th document whose ``kind:`` is literally that kind (else the
    n-th whose kind is templated, else the n-th document), the last one when there are fewer
    (a ``range`` loop renders one document many times)."""
    documents = _documents(_scan(template))
    group, candidates = kind or "", [i for i, d in enumerate(documents) if kind is not None and d.kind == kind]
    if not candidates:
        group, candidates = "\0templated", [i for i, d in enumerate(documents) if d.kind is None]
    if not candidates:
        group, candidates = "\0any", list(range(len(documents)))
    if not candidates:
        return 0
    count = seen.get((origin, group), 0)
    seen[(origin, group)] = count + 1
    return candidates[min(count, len(candidates) - 1)]


def template_document_indexes(rendering: Rendering) -> list[int]:
    """For each document of ``rendering`` (in order), the index of the document of its template
    it was rendered from: the ``doc_index`` to give :func:`locate_in_template` with that
    template's text. Read from ``origin_line`` (the template document holding that line; the
    template is read from ``origin``); for a document with no origin or an unreadable template,
    its index among the documents rendered from the same origin."""
    texts: dict[str, str | None] = {}
    counts: dict[str | None, int] = {}
    indexes = []
    for doc in rendering.documents:
        fallback = counts.get(doc.origin, 0)
        counts[doc.origin] = fallback + 1
        if doc.origin is None or doc.origin_line <= 0:
            indexes.append(fallback if doc.origin is not None else 0)
            continue
        if doc.origin not in texts:
            texts[doc.origin] = _read_text(doc.origin)
        text = texts[doc.origin]
        found = _document_at_line(text, doc.origin_line) if text is not None else None
        indexes.append(found if found is not None else fallback)
    return indexes


# --- Go template text: documents, lines, keys ----------------------------------------------------

_BLANK, _COMMENT, _DIRECTIVE, _SEPARATOR, _CONTENT, _SCALAR = range(6)
_MASK = "\0"
#: A plain key's characters after its first: anything but NUL, a run of blanks only when something
#: but a key's ``:`` follows it, a ``:`` only when no blank or end follows it. Each character is
#: read one way, so a line is read in linear time (``[^\0]*?[ \t]*:``, the lazy form, cost the square
#: of a line of spaces).
_PLAIN_REST = r"""(?:[^\0: \t]|[ \t]+(?=[^\0: \t]|:(?![ \t]|$))|:(?![ \t]|$))*"""
_KEY = re.compile(
    r"""(?:"(?P<dq>(?:[^"\\\0]|\\.)*)"|'(?P<sq>(?:[^'\0]|'')*)'|"""
    rf"""(?P<plain>[^\s#'"\0\[\]{{}},&*!|>%@`?-]{_PLAIN_REST}|-[^\s\0]{_PLAIN_REST}))"""
    r"""[ \t]*:(?=[ \t]|$)"""
)
_BLOCK_SCALAR = re.compile(r"[|>][-+0-9]*[ \t]*(?:#.*)?$")
_CONTROL = re.compile(r"(?:if|else|end|with|define|block)\b|/\*|\$\w+\s*:?=")
_LITERAL_KIND = re.compile(r"""kind:[ \t]*(["']?)([A-Za-z][A-Za-z0-9]*)\1[ \t]*(?:#.*)?$""")


@dataclass(slots=True)
class _Line:
    number: int  # 1-based
    raw: str
    masked: str  # Go template actions replaced by NUL, columns kept
    kind: int
    indent: int = 0
    dashes: tuple[int, ...] = ()  # columns (0-based) of the `- ` indicators that open the line
    key: str | None = None
    key_col: int = -1  # 0-based column of the key token (its quote, when quoted)
    rest: str = ""  # the masked text after the key's colon (or after the dashes)


@dataclass(slots=True)
class _Document:
    lines: list[_Line]
    kind: str | None  # the literal top-level `kind:`, None when templated or absent

    @property
    def content(self) -> list[_Line]:
        return [line for line in self.lines if line.kind == _CONTENT]


def _mask(text: str) -> str:
    """``text`` with every ``{{ ... }}`` action (strings, raw strings and comments inside it
    skipped over) replaced by NUL characters, newlines kept: same lines, same columns."""
    out = list(text)
    position, size = 0, len(text)
    while (start := text.find("{{", position)) >= 0:
        index = start + 2
        while index < size:
            if text.startswith("}}", index):
                index += 2
                break
            char = text[index]
            if char == '"' or char == "'":
                index += 1
                while index < size and text[index] not in (char, "\n"):
                    index += 2 if text[index] == "\\" else 1
                index += 1
            elif char == "`":
                end = text.find("`", index + 1)
                index = size if end < 0 else end + 1
            elif text.startswith("/*", index):
                end = text.find("*/", index + 2)
                index = size if end < 0 else end + 2
            else:
                index += 1
        for at in range(start, min(index, size)):
            if out[at] not in "\r\n":
                out[at] = _MASK
        position = index
    return "".join(out)


@functools.lru_cache(maxsize=64)
def _scan(text: str) -> tuple[_Line, ...]:
    """Every line of a template, classified (blank, comment, directive, separator, content, or
    the text of a block scalar), with each content line's indentation, dashes and key."""
    lines = []
    for number, (raw, masked) in enumerate(zip(text.split("\n"), _mask(text).split("\n")), start=1):
        raw, masked = raw.rstrip("\r"), masked.rstrip("\r")
        bare = masked.replace(_MASK, "").strip()
        if not bare:
            kind = _DIRECTIVE if _MASK in masked else _BLANK
        elif bare.startswith("#"):
            kind = _COMMENT
        elif masked.startswith("---") and (not masked[3:].replace(_MASK, "").strip() or masked[3:].lstrip().startswith("#")):
            kind = _SEPARATOR
        else:
            kind = _CONTENT
        lines.append(_describe(_Line(number, raw, masked, kind)))
    _mark_block_scalars(lines)
    return tuple(lines)


def _describe(line: _Line) -> _Line:
    if line.kind != _CONTENT:
        return line
    masked = line.masked
    position = line.indent = len(masked) - len(masked.lstrip(" "))
    dashes = []
    while position < len(masked) and masked[position] == "-" and (position + 1 == len(masked) or masked[position + 1] in " \t"):
        dashes.append(position)
        position += 1
        while position < len(masked) and masked[position] in " \t":
            position += 1
    line.dashes = tuple(dashes)
    match = _KEY.match(masked, position)
    if match and " #" not in (match.group("plain") or ""):
        if match.group("dq") is not None:
            line.key = re.sub(r"\\(.)", r"\1", match.group("dq"))
        elif match.group("sq") is not None:
            line.key = match.group("sq").replace("''", "'")
        else:
            line.key = match.group("plain").rstrip()
        line.key_col = position
        line.rest = masked[match.end():]
    else:
        line.rest = masked[position:]
    return line


def _mark_block_scalars(lines: list[_Line]) -> None:
    """Lines inside a ``|`` or ``>`` block scalar are text, not YAML structure: they run until the
    first content or comment line indented no deeper than the node that opened the scalar (lines
    holding only actions stay actions)."""
    owner = None
    for line in lines:
        if owner is not None:
            if line.kind == _SEPARATOR:
                owner = None
            elif line.kind in (_CONTENT, _COMMENT):
                if _indent(line) <= owner:
                    owner = None
                else:
                    line.kind = _SCALAR
                    continue
        if line.kind == _CONTENT and _BLOCK_SCALAR.match(line.rest.strip()):
            owner = line.key_col if line.key is not None else (line.dashes[-1] if line.dashes else line.indent)


def _indent(line: _Line) -> int:
    return len(line.masked) - len(line.masked.lstrip(" \t"))


def _documents(lines: tuple[_Line, ...]) -> list[_Document]:
    """The template's documents (split at ``---`` lines), those without a content line left out."""
    documents, current = [], []
    for line in lines + (_Line(0, "", "", _SEPARATOR),):
        if line.kind != _SEPARATOR:
            current.append(line)
            continue
        if any(item.kind == _CONTENT for item in current):
            documents.append(_Document(current, _literal_kind(current)))
        current = []
    return documents


def _literal_kind(lines: list[_Line]) -> str | None:
    content = [line for line in lines if line.kind == _CONTENT]
    top = min(line.indent for line in content)
    for line in content:
        if line.indent == top and not line.dashes and line.key == "kind":
            match = _LITERAL_KIND.match(line.masked, line.key_col)
            return match.group(2) if match else None
    return None


def _document_at_line(text: str, line: int) -> int | None:
    for index, document in enumerate(_documents(_scan(text))):
        if document.lines and document.lines[0].number <= line <= document.lines[-1].number:
            return index
    return None


def object_line(template_text: str, doc_index: int = 0) -> int:
    """1-based line of the first content line (not blank, a comment, ``---``, or a line holding
    only ``{{ }}`` actions) of the ``doc_index``-th document of a Helm template (documents without
    a content line are not counted); 1 when there is no such document."""
    documents = _documents(_scan(template_text))
    if not 0 <= doc_index < len(documents):
        return 1
    return documents[doc_index].content[0].number


def locate_in_template(template_text: str, field_path: str, doc_index: int = 0) -> tuple[int, int] | None:
    """1-based ``(line, column)`` of the key of ``field_path`` in the ``doc_index``-th document
    (counted as in :func:`object_line`) of a Helm template's raw text, or None.

    ``field_path`` is dotted with ``[i]`` list indexes (``spec.template.spec.containers[0].image``);
    dotted segments are matched greedily against the keys present, so
    ``metadata.annotations.argocd.argoproj.io/hook`` finds the key ``argocd.argoproj.io/hook``.
    The column is that of the key's first character (its opening quote when quoted). A list index
    gives the n-th ``- `` item at that level (its dash); when the items cannot be counted (a
    ``range`` action inside the list, or fewer literal items than the index while actions may add
    more) it gives the list's key. Go template actions, on their own lines or inline, are skipped;
    keys written by actions (``{{ include ... | nindent }}``) cannot be found (None)."""
    documents = _documents(_scan(template_text))
    if not 0 <= doc_index < len(documents) or not field_path:
        return None
    document = documents[doc_index]
    return _resolve(document.lines, 0, len(document.lines), field_path, None)


def _resolve(lines: list[_Line], start: int, end: int, path: str, owner: _Line | None) -> tuple[int, int] | None:
    """Find ``path`` in the value held by ``lines[start:end]`` (the lines after ``owner``'s key)."""
    content = [i for i in range(start, end) if lines[i].kind == _CONTENT]
    if not content:  # the value is written by actions (`toYaml`, `include`) or absent
        actions = any(lines[i].kind == _DIRECTIVE for i in range(start, end)) or _MASK in (owner.rest if owner else "")
        if path.startswith("[") and actions and owner is not None and owner.key is not None:
            return owner.number, owner.key_col + 1
        return None
    if path.startswith("["):
        match = re.match(r"\[(\d+)\]\.?", path)
        return _resolve_item(lines, start, end, int(match.group(1)), path[match.end():], owner) if match else None
    column = min(_key_column(lines[i]) for i in content)
    keys = [i for i in content if _key_column(lines[i]) == column and lines[i].key is not None and not lines[i].dashes]
    candidates = [i for i in keys if path == lines[i].key or path.startswith((lines[i].key or "") + ".")
                  or path.startswith((lines[i].key or "") + "[")]  # fmt: skip
    candidates.sort(key=lambda i: -len(lines[i].key or ""))
    for index in candidates:
        key_line = lines[index]
        rest = path[len(key_line.key or ""):]
        if not rest:
            return key_line.number, key_line.key_col + 1
        found = _resolve(lines, index + 1, _value_end(lines, index, end), rest[1:] if rest.startswith(".") else rest,
                         key_line)  # fmt: skip
        if found is not None:
            return found
    return None


def _emits(raw: str) -> bool:
    """Whether a line of actions may write YAML: anything but ``if``/``else``/``end``/``with``/
    ``define``, comments and variable assignments (a ``range`` body is repeated)."""
    return any(not _CONTROL.match(action) for action in _line_actions(raw)) or "range" in raw.split()


def _line_actions(text: str) -> Iterator[str]:
    """The actions of Go template ``text`` (what lies between each ``{{`` and the first ``}}`` after
    it, without the ``-`` trim markers and the spaces around), as ``\\{\\{-?\\s*(.*?)\\s*-?\\}\\}``
    finds them, in linear time (that expression costs the cube of an unclosed action of spaces)."""
    start = text.find("{{")
    while start >= 0:
        end = text.find("}}", start + 2)
        if end < 0:
            return
        inner = text[start + 2:end]
        inner = inner[1:] if inner.startswith("-") else inner
        inner = inner.lstrip()
        inner = inner[:-1] if inner.endswith("-") else inner
        yield inner.rstrip()
        start = text.find("{{", end + 2)


def _key_column(line: _Line) -> int:
    return line.dashes[0] if line.dashes else (line.key_col if line.key is not None else line.indent)


def _value_end(lines: list[_Line], index: int, end: int) -> int:
    """The end of the lines holding the value of the key on ``lines[index]``: up to the first
    content line indented less than the key, or as much without being a ``- `` item."""
    column = lines[index].key_col
    for at in range(index + 1, end):
        line = lines[at]
        if line.kind == _CONTENT and (line.indent < column or (line.indent == column and not line.dashes)):
            return at
    return end


def _resolve_item(lines: list[_Line], start: int, end: int, item: int, rest: str, owner: _Line | None) -> tuple[int, int] | None:
    content = [i for i in range(start, end) if lines[i].kind == _CONTENT]
    column = min(lines[i].indent for i in content)
    items = [i for i in content if lines[i].dashes and lines[i].dashes[0] == column]
    if not items or lines[content[0]].dashes == ():
        return None
    owner_position = (owner.number, owner.key_col + 1) if owner is not None and owner.key is not None else None
    # Actions at this list's level (indented no deeper than its dashes) that may write items: a
    # `range`, or an action printing something (`include`, `toYaml`); items after the first of
    # them cannot be counted.
    first_unsure = next((i for i in range(start, end) if lines[i].kind == _DIRECTIVE
                         and _indent(lines[i]) <= column and _emits(lines[i].raw)), end)  # fmt: skip
    countable = [i for i in items if i < first_unsure]
    if item >= len(countable):
        return owner_position if first_unsure < end else None
    at = items[item]
    stop = items[item + 1] if item + 1 < len(items) else end
    dash = lines[at]
    if not rest:
        return dash.number, dash.dashes[0] + 1
    # The item's own lines, its first line without the dash: `- name: a` is a mapping line at the
    # column of `name`; `- - a` a list item one level in.
    inner = _Line(dash.number, dash.raw, dash.masked, dash.kind, dash.dashes[1] if len(dash.dashes) > 1 else
                  max(dash.key_col, 0), dash.dashes[1:], dash.key, dash.key_col, dash.rest)  # fmt: skip
    item_lines = ([inner] if dash.key is not None or inner.dashes else []) + lines[at + 1:stop]
    return _resolve(item_lines, 0, len(item_lines), rest, owner)


def _one_line(message: str) -> str:
    return " ".join(part.strip() for part in message.strip().splitlines() if part.strip())
