"""Render a kustomization the way Argo CD's repo server does (``shared/docs/argocd-rendering.md`` §3),
without touching the user's tree, the network, or any plugin, and say where each object came from.

What Argo CD does (argo-cd ``util/kustomize/kustomize.go`` ``Build``): in its checkout of the
repository it runs, in the application folder and in this order, ``kustomize edit set nameprefix``,
``set namesuffix``, ``set image``, ``set replicas``, ``edit add label``, ``add annotation``, ``set
namespace``, then appends ``kustomize.patches`` to the kustomization's ``patches`` itself and runs
``edit add component``; then ``kustomize build <folder>``. Images, label values and (with
``commonAnnotationsEnvsubst``) annotation values get the build environment first
(:meth:`KustomizeOptions.from_application`). hooklint copies the inputs to a temporary folder,
makes the same edits there with PyYAML (:func:`apply_options`; ``kubectl kustomize`` has no
``edit``), builds, and removes the folder. The repository is refused like Argo CD refuses it when a
symlink is absolute or leaves it (``util/app/path/path.go`` ``CheckOutOfBoundsSymlinks``).

Where objects come from. hooklint adds ``buildMetadata: [originAnnotations, transformerAnnotations]``
to the copied application kustomization itself rather than to a wrapper kustomization: both give
origins for nested bases, components and the application's own entries (checked with kustomize
v5.5.0), but only the top kustomization's ``sortOptions`` and ``buildMetadata: [managedByLabel]``
count, and a wrapper would drop them and change kustomize's error messages. kustomize v5.5.0 then
writes, on every object (``api/resource/origin.go``, ``api/resmap/reswrangler.go``):

- ``config.kubernetes.io/origin``: ``path: ../base/job.yaml``, the file the object was read from,
  relative to the folder being built (the application folder), joined entry by entry along the
  ``resources`` / ``components`` chain with Go's ``filepath.Join`` (so cleaned, symlinks not
  resolved); or, for an object a generator made, ``configuredIn: ../base/kustomization.yaml``
  (the kustomization, or the generator config file, holding the entry, same base) with
  ``configuredBy: {apiVersion: builtin, kind: ConfigMapGenerator}``.
- ``alpha.config.kubernetes.io/transformations``: a list of ``{configuredIn, configuredBy}`` in the
  order applied, innermost kustomization first, for example ``- configuredIn: kustomization.yaml``
  / ``configuredBy: {apiVersion: builtin, kind: ImageTagTransformer}``. kustomize records every
  transformer run over the object's resource map, whether or not it changed the object (an
  ImageTagTransformer is listed on a ConfigMap too). Components' entries name the component's
  kustomization (``../comp/kustomization.yaml``).

Both are parsed into :class:`~hooklint.sources.render.rendered.RenderedDocument` with paths joined to the
folder as the user spelled it, then cut out of the document's text line by line, so that the rest
is byte for byte what ``kustomize build`` prints without them (an annotation the user's own
``buildMetadata`` asked for stays, as Argo CD would apply it).

Safety: never ``--enable-exec``, ``--enable-alpha-plugins``, ``--enable-helm`` or ``--enable-star``;
remote ``resources``, ``bases`` and ``components`` entries (recognised as kustomize recognises them,
:mod:`hooklint.sources.repository.kustomize_spec`, whatever exists on disk) and ``helmCharts`` entries are left
out of the copy kustomize builds, the rest rendered (:mod:`hooklint.sources.render.partial`; issue 22), so
kustomize is never handed a URL; other remote entries (a patch, a generator file) and plugins (KRM
functions) are refused before kustomize runs, and so is a kustomization with two keys for one field
(kustomize reads keys in any case). Every entry is taken from the value kustomize reads
(:func:`read_kustomization_file`: go-yaml v2's first document, ``encoding/json``'s types), and a
kustomization or plugin file hooklint cannot read that way is HL007: kustomize is never started on
it (issue 32: PyYAML's failures used to hand kustomize the whole repository, entries unchecked).
kustomize is found and run by absolute path, never from the repository, with an environment that
reaches no cluster, proxy or network (:mod:`hooklint.sources.sandbox`), in a bounded child process
(time, memory, its own process group: :mod:`hooklint.sources.bounded`).

Containment. Every file hooklint or kustomize may read is checked by its resolved path
(``os.path.realpath``) against the resolved repository root before it is read, and kustomize
reads only a temporary copy (:func:`_plan_copy`) that holds regular files and folders of the
repository and symbolic links recreated to point straight at their resolved target inside the
copy; the copy itself is checked the same way before kustomize runs. A symlink on the way that
resolves outside the repository, even through another in-repository link, is an error naming it.
The cache key (:func:`hooklint.sources.render.cache.input_key`) covers the same: every path as reached,
its resolved path, every link's target and every file's bytes.
"""

from __future__ import annotations

import codecs
import dataclasses
import functools
import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
from dataclasses import dataclass
from dataclasses import field as _field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

import yaml

from hooklint import argocd
from hooklint.config import DEFAULT_MAX_FILE_SIZE
from hooklint.files import (FileTooLarge, NotRegularFile, dispatched, file_problem, make_dirs, note_input, problem_of,
                            program_identity, read_bytes, remove_tree, walk_tree)  # fmt: skip
from hooklint.loader import FileRejected, decode_manifest, within
from hooklint.sources import bounded, sandbox
from hooklint.sources.repository import facts
from hooklint.sources.repository.gomatch import BadPattern, filepath_glob, has_meta
from hooklint.sources.render import partial
from hooklint.sources.render.cache import cached, input_key, remembered_answer
from hooklint.sources.repository.tree import KUSTOMIZATION_NAMES
from hooklint.sources.repository.withheld import Withheld
from hooklint.sources.spec import REVISION_VARIABLES, envsubst
from hooklint.sources.repository.kustomizations import component_exists, is_component
from hooklint.gojsonread import go_fold
from hooklint.sources.repository.kustomize_spec import (
    ReadKustomization,
    Unreadable,
    ambiguous_key,
    canonical,
    fetched_by_kustomize,
    go_composer,
    go_decode,
    go_value,
    is_remote_file,
    node_strings,
    read_kustomization,
)
from hooklint.sources.render.redact import tagging_inputs
from hooklint.text import url_credentials
from hooklint.sources.render.rendered import (
    Omission,
    RenderedDocument,
    Renderer,
    RendererUnavailable,
    RenderError,
    transient,
    Rendering,
    Transformation,
)
from hooklint.yamlio import BoundedLoader, YamlTooComplex, go_first_document, go_yaml_scalar, go_yaml_text
from hooklint.sources.render.partial import field_nodes

ORIGIN_ANNOTATION = "config.kubernetes.io/origin"
TRANSFORMATIONS_ANNOTATION = "alpha.config.kubernetes.io/transformations"
BUILD_METADATA = ("originAnnotations", "transformerAnnotations")
INSTALL_HINT = "install kustomize (https://kubectl.docs.kubernetes.io/installation/kustomize/) or kubectl"
NETWORK_HINT = "hooklint never uses the network: vendor the base into the repository"
PLUGIN_HINT = "hooklint never runs plugins from the repository"
FILE_HINT = "hooklint never uses the network: vendor the file into the repository"
_FUNCTION_ANNOTATIONS = ("config.kubernetes.io/function", "config.k8s.io/function")
_FUNCTION_ANNOTATIONS_SET = frozenset(_FUNCTION_ANNOTATIONS)
_REMOTE = re.compile(
    r"^(?:[A-Za-z][A-Za-z0-9+.-]*://|git@|git::|gh:|(?:github\.com|gitlab\.com|bitbucket\.org)[/:])"
    r"|\?(?:ref|version|submodules|timeout)="
)
_Loader = BoundedLoader  # alias bombs and deep nesting refused (hooklint.yamlio)


@dataclass(frozen=True, slots=True)
class KustomizeOptions:
    """The ``spec.source.kustomize`` options of an Argo CD Application that change what ``kustomize
    build`` renders (argo-cd ``pkg/apis/application/v1alpha1/types.go`` ``ApplicationSourceKustomize``,
    applied by ``util/kustomize/kustomize.go`` ``Build``), as that Build hands them to ``kustomize
    edit``: build variables already substituted. ``images`` are in Argo CD's form
    (``nginx=ghcr.io/acme/nginx:1.2``, ``nginx:1.2``, ``nginx@sha256:...``); ``replicas`` are
    ``(name, count)``; each of ``patches`` is the JSON text of one kustomize patch entry
    (``{"patch": ..., "target": {...}}`` or ``{"path": ...}``); ``components`` are paths relative to
    the application folder. ``unknowable`` says, when set, which option's value names a build
    variable hooklint cannot know (the revision Argo CD syncs): the source is then not rendered
    (HL009), never rendered with a guess. ``version``, ``kubeVersion`` and ``apiVersions`` are not
    read: they choose the kustomize binary and the Helm capabilities of ``helmCharts``, which
    hooklint never inflates (:mod:`hooklint.sources.render.partial`)."""

    name_prefix: str | None = None
    name_suffix: str | None = None
    namespace: str | None = None
    images: tuple[str, ...] = ()
    common_labels: tuple[tuple[str, str], ...] = ()
    common_annotations: tuple[tuple[str, str], ...] = ()
    patches: tuple[str, ...] = ()
    components: tuple[str, ...] = ()
    replicas: tuple[tuple[str, int], ...] = ()
    force_common_labels: bool = False
    force_common_annotations: bool = False
    label_without_selector: bool = False
    label_include_templates: bool = False
    ignore_missing_components: bool = False
    #: whether Argo CD's kustomize merges ``labelWithoutSelector`` labels into an existing ``labels``
    #: entry (:func:`_add_labels`; ``BEHAVIOURS`` ``kustomize-label-groups``)
    label_groups: bool = True
    unknowable: str | None = None

    @classmethod
    def from_application(cls, spec: Mapping, env: Mapping[str, str] | None = None,
                         version: argocd.Version = argocd.DEFAULT_VERSION) -> "KustomizeOptions":  # fmt: skip
        """The options of ``spec``, the ``kustomize:`` mapping of an Application source, as Argo CD
        ``version`` reads them (a field that release does not have is dropped by its CRD schema and
        ignored: :data:`hooklint.argocd.BEHAVIOURS` ``kustomize-*``), with the source's build
        environment ``env`` (:attr:`hooklint.sources.spec.ApplicationSource.env`; None: every
        variable empty) substituted where ``Build`` substitutes it (``envVars.Envsubst``, v3.5.1):
        every image, every ``commonLabels`` value, and the ``commonAnnotations`` values when
        ``commonAnnotationsEnvsubst`` is true. A value naming a revision variable
        (:data:`~hooklint.sources.spec.REVISION_VARIABLES`) sets ``unknowable``. Unknown keys are
        ignored; an empty string counts as absent. Raises ValueError (one line naming the key) when a
        known key has the wrong type, or a ``replicas`` count is no integer (``GetIntCount``:
        "expected integer value for count")."""
        if not isinstance(spec, Mapping):
            raise ValueError("kustomize must be a mapping")
        env = env or {}
        unknowable: list[str] = []

        def has(behaviour: str) -> bool:
            return argocd.supports(version, behaviour)

        def text(key: str) -> str | None:
            value = spec.get(key)
            if value is not None and not isinstance(value, str):
                raise ValueError(f"kustomize.{key} must be a string")
            return value or None

        def flag(key: str, behaviour: str) -> bool:
            value = spec.get(key)
            if value is not None and not isinstance(value, bool):
                raise ValueError(f"kustomize.{key} must be true or false")
            return bool(value) and has(behaviour)

        def strings(key: str) -> tuple[str, ...]:
            value = spec.get(key) or []
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ValueError(f"kustomize.{key} must be a list of strings")
            return tuple(value)

        def pairs(key: str) -> tuple[tuple[str, str], ...]:
            value = spec.get(key) or {}
            if not isinstance(value, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in value.items()
            ):
                raise ValueError(f"kustomize.{key} must be a mapping of strings to strings")
            return tuple(value.items())

        def substituted(what: str, value: str) -> str:
            seen: set[str] = set()
            out = envsubst(value, env, keep=frozenset(), seen=seen)
            revision = sorted(seen & REVISION_VARIABLES)
            if revision:
                unknowable.append(f"{what} names {revision[0]}")
            return out

        patches = spec.get("patches") or []
        if not isinstance(patches, list) or not all(isinstance(p, Mapping) for p in patches):
            raise ValueError("kustomize.patches must be a list of mappings")
        images = strings("images")
        if has("kustomize-image-envsubst"):
            images = tuple(substituted(f"kustomize.images[{i}]", image) for i, image in enumerate(images))
        labels, annotations = pairs("commonLabels"), pairs("commonAnnotations")
        if has("kustomize-envsubst"):
            labels = tuple((k, substituted(f"kustomize.commonLabels: the value of {k}", v)) for k, v in labels)
            if flag("commonAnnotationsEnvsubst", "kustomize-envsubst"):
                annotations = tuple((k, substituted(f"kustomize.commonAnnotations: the value of {k}", v))
                                    for k, v in annotations)  # fmt: skip
        return cls(
            name_prefix=text("namePrefix"),
            name_suffix=text("nameSuffix"),
            namespace=text("namespace"),
            images=images,
            common_labels=labels,
            common_annotations=annotations,
            patches=tuple(json.dumps(dict(p), sort_keys=True) for p in patches),
            components=strings("components"),
            replicas=_replicas(spec.get("replicas")) if has("kustomize-replicas") else (),
            force_common_labels=flag("forceCommonLabels", "kustomize-force-metadata"),
            force_common_annotations=flag("forceCommonAnnotations", "kustomize-force-metadata"),
            label_without_selector=flag("labelWithoutSelector", "kustomize-label-without-selector"),
            label_include_templates=flag("labelIncludeTemplates", "kustomize-label-include-templates"),
            ignore_missing_components=flag("ignoreMissingComponents", "kustomize-ignore-missing-components"),
            label_groups=has("kustomize-label-groups"),
            unknowable=unknowable[0] if unknowable else None,
        )


def _replicas(value: Any) -> tuple[tuple[str, int], ...]:
    """``kustomize.replicas`` (``[{name, count}]``, ``KustomizeReplicas``) as ``(name, count)`` pairs,
    ``count`` read as ``KustomizeReplica.GetIntCount`` reads its ``IntOrString`` (v3.5.1): an integer,
    or a string Go's ``strconv.Atoi`` reads (an optional sign and decimal digits). Raises ValueError
    with Argo CD's message otherwise, and for an integer outside an int32 (``intstr.IntOrString``
    decodes a number into one)."""
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(r, Mapping) for r in value):
        raise ValueError("kustomize.replicas must be a list of mappings")
    out = []
    for replica in value:
        name, count = replica.get("name", ""), replica.get("count")
        if not isinstance(name, str):
            raise ValueError("kustomize.replicas[].name must be a string")
        if isinstance(count, str) and argocd.atoi(count) is not None:  # 5,000 digits: Atoi's range error
            count = argocd.atoi(count)
        elif isinstance(count, bool) or not isinstance(count, int):
            raise ValueError(f"kustomize.replicas: expected integer value for count. Received: {count}")
        elif not -(2**31) <= count < 2**31:  # IntOrString's IntVal: Go cannot decode the Application
            raise ValueError(f"kustomize.replicas: count {count} does not fit the int32 of an IntOrString")
        out.append((name, count))
    return tuple(out)


@lru_cache(maxsize=16)
def find_kustomize(repository: str | None = None) -> tuple[list[str], Renderer] | None:
    """The argv prefix that builds a folder (the folder is appended) and the :class:`Renderer`:
    ``[/abs/kustomize, "build"]`` when ``kustomize`` is on PATH, else ``[/abs/kubectl,
    "kustomize"]`` (``Renderer("kubectl kustomize", <the kustomize version kubectl reports, e.g.
    "v5.5.0">)``); None when neither is installed. Programs are looked up by
    :func:`hooklint.sources.sandbox.find_program`: absolute ``PATH`` folders only, none inside
    ``repository`` (the repository being linted). Memoised per process and repository
    (``find_kustomize.cache_clear()``)."""
    kustomize = sandbox.find_program("kustomize", repository)
    if kustomize:
        return [kustomize, "build"], Renderer("kustomize", _version_of(kustomize, False))
    kubectl = sandbox.find_program("kubectl", repository)
    if kubectl:
        return [kubectl, "kustomize"], Renderer("kubectl kustomize", _version_of(kubectl, True))
    return None


@lru_cache(maxsize=8)
def _version_of(binary: str, kubectl: bool) -> str:
    """The kustomize version ``binary`` (absolute) reports, ``"unknown"`` when it says none. Asked
    once per program, not once per run or worker (:func:`hooklint.sources.render.cache.remembered_answer`:
    kept under the program's path and stat signature), but once per run for a wrapper
    (:func:`hooklint.files.dispatched`)."""
    argv = [binary, "version", "--client"] if kubectl else [binary, "version"]
    output = (_version_output(argv) if dispatched(binary)  # a wrapper: its file does not say which build runs
              else remembered_answer(" ".join(argv[1:]), binary, lambda: _version_output(argv)))  # fmt: skip
    if kubectl:
        found = re.search(r"Kustomize Version:\s*(\S+)", output)
        return found.group(1) if found else "unknown"
    found = re.search(r"v?\d+\.\d+\.\d+[^\s,}]*", output)
    return found.group(0) if found else "unknown"


def parse_version(text: str) -> argocd.Version | None:
    """``v5.5.0`` / ``5.8.1`` / ``v5.4.2-dirty`` as ``(5, 5, 0)``; None for ``unknown`` or another form."""
    found = re.match(r"v?(\d+)\.(\d+)\.(\d+)", text.strip())
    return (int(found.group(1)), int(found.group(2)), int(found.group(3))) if found else None


#: The first kustomize that reads a replacement target's ``select`` and ``reject`` (``group``,
#: ``version``, ``kind``, ``name``, ``namespace``) as anchored regular expressions: v5.8.0 (api
#: v0.21.0, commit 7c04cbb23 "Add regex support for Replacement selectors", #5863:
#: ``api/filters/replacement/replacement.go`` ``applyReplacement`` through
#: ``types.NewTargetSelectorRegex``, ``api/types/selector.go`` ``anchorRegex`` ``^(?:...)$``).
#: Before, ``kyaml/resid`` ``ResId.IsSelectedBy`` compared each field as written, a namespace by
#: ``EffectiveNamespace`` (``default`` also matched an object without one). ``patches`` targets are
#: regular expressions in both (``resmap`` ``Select``), ``labelSelector`` / ``annotationSelector``
#: read alike: unchanged.
REPLACEMENT_SELECTOR_REGEX: argocd.Version = (5, 8, 0)
#: The first kustomize that reads a replacement's ``sourceValue`` (a fixed value in place of a
#: ``source``): v5.7.0 (api v0.20.0, ``api/types/replacement.go`` ``SourceValue``;
#: ``replacement.go`` ``getReplacement``). Older ones refuse the kustomization ("json: unknown field").
REPLACEMENT_SOURCE_VALUE: argocd.Version = (5, 7, 0)
#: The first kustomize that writes a replacement into a string field holding YAML or JSON when
#: the target's ``fieldPath`` continues past it (``spec.podSpecPatch.hostPID``): v5.8.0 (api
#: v0.21.0, commits 2dc0d0da8 / bbe53c2c4, ``api/filters/replacement/replacement.go``
#: ``setValueInStructuredData``). Older ones fail ("wrong node kind: expected MappingNode but got ScalarNode").
REPLACEMENT_STRUCTURED_DATA: argocd.Version = (5, 8, 0)
#: Every kustomize version above that changes how hooklint's checks read a field.
_CHANGES = (REPLACEMENT_SOURCE_VALUE, REPLACEMENT_SELECTOR_REGEX)
#: The only kustomize that propagates an overlay's ``namespace`` into the bases it builds on
#: (those without their own) before their transformers run: v5.8.0 (commit 75839a81b, "Propagate
#: namespace to child kustomization if child doesn't have one", ``api/internal/target/kusttarget.go``
#: ``accumulateDirectory``); v5.8.1 reverted it to Helm charts' namespace only (commit 4e75138d2,
#: ``api/krusty/namespacepropagation_test.go``, issues 6027/6031). In such a base the
#: ``NamespaceTransformer`` then runs before ``patchesJson6902`` and ``replacements``
#: (``kusttarget_configplugin.go`` ``configureBuiltinTransformers`` order), so a selector naming a
#: namespace matches other objects than with any other kustomize.
NAMESPACE_PROPAGATION: argocd.Version = (5, 8, 0)
#: Go's ``regexp.QuoteMeta`` characters: a value without any is the same literal and anchored regex.
_REGEX_META = frozenset("\\.+*?()|[]{}^$")
_SELECTOR_FIELDS = ("group", "version", "kind", "name", "namespace")


@dataclass(frozen=True, slots=True)
class VersionGap:
    """The kustomize that renders here (``renderer``, its label; ``version`` None when it reports
    none) and the one Argo CD ``argocd_version`` runs (``argocd_kustomize``), when a behaviour
    hooklint checks for (:data:`REPLACEMENT_SELECTOR_REGEX`) is on one side only."""

    renderer: str
    version: argocd.Version | None
    argocd_version: argocd.Version
    argocd_kustomize: argocd.Version

    def straddles(self, change: argocd.Version) -> bool:
        """Whether kustomize ``change`` (the first version with a behaviour) lies between the two:
        one of them has the behaviour, the other not (always, when the renderer reports no version)."""
        return self.version is None or (self.version >= change) != (self.argocd_kustomize >= change)

    def propagates_namespace(self) -> bool:
        """Whether exactly Argo CD's kustomize propagates an overlay's namespace into its bases
        (:data:`NAMESPACE_PROPAGATION`) and the renderer does not (or reports no version: fail closed)."""
        return self.argocd_kustomize == NAMESPACE_PROPAGATION and self.version != NAMESPACE_PROPAGATION

    def argocd_kustomize_text(self) -> str:
        return "v" + ".".join(map(str, self.argocd_kustomize))

    def argocd_renders(self) -> str:
        """How Argo CD renders it, and the remedy (after the message, for HL009)."""
        wanted = self.argocd_kustomize_text()
        return (f"Argo CD {argocd.version_text(self.argocd_version)} renders it with kustomize {wanted}; hooklint's "
                f"renderer is {self.renderer}: put kustomize {wanted} on PATH to render as Argo CD does")  # fmt: skip


def version_gap(renderer: Renderer, argocd_version: argocd.Version) -> VersionGap | None:
    """A :class:`VersionGap` when the kustomize of ``renderer`` and the one Argo CD
    ``argocd_version`` runs (:func:`hooklint.argocd.kustomize_version`) fall on two sides of
    :data:`REPLACEMENT_SOURCE_VALUE` or :data:`REPLACEMENT_SELECTOR_REGEX` (a renderer that reports
    no version counts as on the other side: fail closed); None when they read every such field
    alike (same side, so nothing changes)."""
    gap = VersionGap(renderer.label(), parse_version(renderer.version), argocd_version,
                     argocd.kustomize_version(argocd_version))  # fmt: skip
    return gap if any(gap.straddles(change) for change in _CHANGES) or gap.propagates_namespace() else None


_KUSTOMIZE_LABEL = re.compile(r"^(?:kubectl )?kustomize (\S+)$")


def kustomize_use_note(label: str, version: argocd.Version) -> str | None:
    """One sentence when the kustomize that rendered (``label``, a renderer's label: ``kubectl
    kustomize v5.5.0``, ``kustomize v5.8.1``) is older than the one Argo CD ``version`` renders
    with (:func:`hooklint.argocd.kustomize_version`), as :func:`hooklint.sources.render.helm.helm_use_note`
    says it for Helm's major; None when it is not older, not known, or ``label`` is not kustomize's.
    The fields the two read differently are HL009 where written (:func:`version_gap`); the rest was
    rendered by the older one."""
    match = _KUSTOMIZE_LABEL.match(label)
    have = parse_version(match.group(1)) if match else None
    wanted = argocd.kustomize_version(version)
    if have is None or have >= wanted:
        return None
    wanted_text = "v" + ".".join(map(str, wanted))
    return (f"kustomizations were rendered with kustomize {match.group(1) if match else ''} ({label}), but Argo CD "
            f"{argocd.version_text(version)} renders them with kustomize {wanted_text}, which reads some fields "
            f"differently: put kustomize {wanted_text} on PATH to render as it does")  # fmt: skip


def _go_item(mapping: Any, key: str) -> Any:
    """``mapping[key]`` as Go's ``encoding/json`` finds a struct field (the exact key, else any case)."""
    return _get(mapping, key) if isinstance(mapping, dict) else None


def _node_item(node: yaml.Node | None, key: str) -> yaml.Node | None:
    found = field_nodes(node, key)
    return found[1] if found is not None else None


#: Kubernetes' own cluster-scoped kinds, which kustomize's built-in OpenAPI data knows
#: (``kyaml/openapi`` ``IsCertainlyClusterScoped``; a custom resource is namespaced to it).
_CLUSTER_SCOPED_KINDS = frozenset({
    "Namespace", "Node", "PersistentVolume", "StorageClass", "CustomResourceDefinition", "ClusterRole",
    "ClusterRoleBinding", "PriorityClass", "IngressClass", "RuntimeClass", "APIService", "CSINode",
    "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding", "CSIDriver",
    "VolumeAttachment", "PodSecurityPolicy", "CertificateSigningRequest", "VolumeAttributesClass",
    "ComponentStatus", "FlowSchema", "PriorityLevelConfiguration", "SelfSubjectReview", "TokenReview",
    "SelfSubjectAccessReview", "SelfSubjectRulesReview", "SubjectAccessReview", "ClusterTrustBundle",
    "DeviceClass", "StorageVersion", "IPAddress", "ServiceCIDR",
})  # fmt: skip


def _cluster_scoped_kind(kind: Any) -> bool:
    """Whether kustomize may take a selector of ``kind`` as cluster-scoped (``kyaml/resid``
    ``Gvk.IsClusterScoped``, from its built-in OpenAPI data): a kind of :data:`_CLUSTER_SCOPED_KINDS`
    whatever the group (a superset, so HL009 rather than a wrong rendering)."""
    return isinstance(kind, str) and kind in _CLUSTER_SCOPED_KINDS


def selector_differences(replacement: Any, node: yaml.Node | None, where: str,
                         gap: VersionGap) -> tuple[str, int, int] | None:  # fmt: skip
    """``(message, line, column)`` for the first ``targets[].select`` / ``reject[]`` field of
    ``replacement`` (one replacement as decoded; ``node`` its composed node, for the position, 0
    when unknown; ``where`` how the message names it: ``replacements[0]``, ``[1]`` for an item of a
    replacements file, empty for a file of one) that kustomize before v5.8.0 and from it
    read differently (:data:`REPLACEMENT_SELECTOR_REGEX`): a value holding a regular-expression
    character (an anchored regex from v5.8.0, compared as written before), or a ``namespace:
    default`` (before v5.8.0 it also selects objects without a namespace); before them, a
    ``sourceValue`` (:data:`REPLACEMENT_SOURCE_VALUE`). Each only when ``gap`` straddles the change.
    None when there is none."""
    value_node = _node_item(node, "sourceValue")
    if gap.straddles(REPLACEMENT_SOURCE_VALUE) and (_go_item(replacement, "sourceValue") is not None
                                                    or value_node is not None):  # fmt: skip
        line, column = (value_node.start_mark.line + 1, value_node.start_mark.column + 1) if value_node else (0, 0)
        return (f"{where}{'.' if where else ''}sourceValue is read differently: kustomize v5.7.0 and later write it "
                "into the targets, older kustomize refuses the field (json: unknown field \"sourceValue\"), so what "
                "the replacement changes depends on the kustomize version", line, column)  # fmt: skip
    if not gap.straddles(REPLACEMENT_SELECTOR_REGEX):
        return None
    targets = _go_item(replacement, "targets")
    target_nodes = _node_item(node, "targets")
    for t, target in enumerate(targets if isinstance(targets, list) else []):
        t_node = target_nodes.value[t] if isinstance(target_nodes, yaml.SequenceNode) and t < len(target_nodes.value) else None
        selectors: list[tuple[str, Any, yaml.Node | None]] = [("select", _go_item(target, "select"), _node_item(t_node, "select"))]
        rejects, reject_nodes = _go_item(target, "reject"), _node_item(t_node, "reject")
        for r, reject in enumerate(rejects if isinstance(rejects, list) else []):
            r_node = reject_nodes.value[r] if isinstance(reject_nodes, yaml.SequenceNode) and r < len(reject_nodes.value) else None
            selectors.append((f"reject[{r}]", reject, r_node))
        for label, selector, s_node in selectors:
            for field in _SELECTOR_FIELDS:
                value = _go_item(selector, field)
                if not isinstance(value, str) or not value:
                    continue
                if _REGEX_META.intersection(value):
                    why = ("holds regular-expression characters: kustomize v5.8.0 and later read a replacement target's "
                           f"select and reject fields as anchored regular expressions (^(?:{value})$), older kustomize "
                           "compares them as written")  # fmt: skip
                elif field == "namespace" and value == "default":
                    why = ("selects differently: kustomize before v5.8.0 also selects objects without a namespace for "
                           "namespace default, v5.8.0 and later only objects whose namespace is written default")  # fmt: skip
                elif field == "namespace" and _cluster_scoped_kind(_go_item(selector, "kind")):
                    why = (f"selects differently: kustomize before v5.8.0 ignores the namespace of a selector whose kind "
                           f"is cluster-scoped ({_go_item(selector, 'kind')}: ResId.IsNsEquals), v5.8.0 and later select "
                           "only objects whose namespace is written so")  # fmt: skip
                else:
                    continue
                v_node = _node_item(s_node, field)
                line, column = (v_node.start_mark.line + 1, v_node.start_mark.column + 1) if v_node is not None else (0, 0)
                return (f"{where}{'.' if where else ''}targets[{t}].{label}.{field} {value!r} {why}, so the objects it changes depend on the "
                        f"kustomize version", line, column)  # fmt: skip
    return None


def render_kustomize(folder: str, root: str, options: KustomizeOptions | None = None,
                     limits: bounded.Limits | None = None, wrap_component: bool = False,
                     fetch: RemoteFetcher | None = None, withheld: Withheld | None = None,
                     argocd_version: argocd.Version = argocd.DEFAULT_VERSION) -> Rendering:  # fmt: skip
    """Render the kustomization in ``folder`` as Argo CD's repo server does, with the
    Application's ``options`` applied (see the module docstring). ``argocd_version`` is the Argo
    CD release whose kustomize (:func:`hooklint.argocd.kustomize_version`) the rendering must
    match: a field that the renderer's kustomize reads otherwise (:func:`version_gap`) is HL009
    where it is written, the kustomization not rendered.

    ``folder`` is a path as the user spelled it (relative or absolute); every path in the result
    is joined to it and normalised (``os.path.normpath``). ``root`` is the repository root: every
    file kustomize may read must be under it, and ``folder`` is inside it (else ValueError).
    Renderings are cached (:mod:`hooklint.sources.render.cache`) under the renderer, the options and the
    bytes of every input file. kustomize runs in a child process bounded by ``limits``
    (:mod:`hooklint.sources.bounded`; default 60 s and 2 GiB). With ``wrap_component``, a folder
    whose kustomization is a Component is built through a wrapper kustomization listing it (as the
    kustomizations that use it build it; issue 22), its patches of objects it does not add left
    out (HL009); without, it is built directly, as Argo CD builds an Application's path. Raises :class:`RenderError`
    (kustomize failed, or was stopped by a limit or a signal; a remote patch or generator file,
    ``needs_network``; a plugin; an out-of-bounds symlink) and
    :class:`RendererUnavailable` (neither kustomize nor kubectl is installed).

    With ``fetch`` (``--fetch``), a remote ``resources``/``bases``/``components`` entry is fetched
    (:meth:`_Inputs.fetched`) and its tree copied beside the repository's files into the copy
    kustomize builds, under a folder of the copy's top that the repository does not hold, the entry
    naming it in the copied kustomization (the user's files are never edited), as kustomize's
    ``api/internal/git/cloner.go`` would clone it; paths of objects from it are the fetched tree's
    (absolute), for :func:`hooklint.sources.appmap.remote.relocate`. The copy never holds Git's data
    nor the fetch credentials file (``withheld``; :func:`_plan_copy`)."""
    options = options or KustomizeOptions()
    root_abs, app_abs = os.path.abspath(root), os.path.abspath(folder)
    rel_app = os.path.relpath(app_abs, root_abs)
    if rel_app == ".." or rel_app.startswith(".." + os.sep):
        raise ValueError(f"{folder} is not inside {root}")
    name = _kustomization_name(app_abs) or KUSTOMIZATION_NAMES[0]
    user_file = os.path.normpath(os.path.join(folder, name))
    if options.unknowable:  # never rendered with a guess at the commit (fail closed)
        raise RenderError(f"{options.unknowable}, the commit Argo CD syncs, which hooklint does not know offline",
                          user_file, argocd_renders="Argo CD substitutes the revision it syncs into the value")  # fmt: skip
    if options.ignore_missing_components:
        options = dataclasses.replace(options, ignore_missing_components=False, components=tuple(
            c for c in options.components if component_exists(root_abs, app_abs, c)))  # fmt: skip
    found = find_kustomize(root_abs)
    if found is None:
        refused = [p for n in ("kustomize", "kubectl") for p in sandbox.refused_programs(n, root_abs)]
        why = (f" ({', '.join(refused)} on PATH: in the repository or a relative PATH element, never run)"
               if refused else "")  # fmt: skip
        raise RendererUnavailable(f"kustomize is needed to render this kustomization{why}: {INSTALL_HINT}", user_file)
    argv, renderer = found

    def to_user(path: str, app_dir: str = app_abs) -> str:
        return os.path.normpath(os.path.join(folder, os.path.relpath(path, app_dir)))

    limits = limits or bounded.Limits()
    inputs = _Inputs(root_abs, to_user, limits.max_file_size)
    inputs.fetch = fetch
    inputs.withheld = withheld = withheld or Withheld()
    inputs.gap = version_gap(renderer, argocd_version)
    files = inputs.collect(app_abs, options)
    plan = _plan_copy(root_abs, files, to_user, withheld)
    real_root = os.path.realpath(root_abs)
    app_inside = os.path.relpath(_resolve(root_abs, real_root, app_abs, to_user) or app_abs, real_root)
    leaving = _Leaving(inputs, {}, app_abs, wrap_component and is_component(os.path.join(app_abs, name)))
    remotes = inputs.remotes
    fetched_top = _fetched_folder(real_root) if remotes.trees else ""
    for number, (tree, _, tree_files) in enumerate(remotes.trees):  # beside the repository's files
        top = os.path.join(fetched_top, str(number))
        copied = _plan_copy(tree, tree_files, functools.partial(_relative_to, tree), withheld)  # its links too
        plan.folders.update([top, *(os.path.join(top, inside) for inside in copied.folders)])
        plan.files.update({os.path.join(top, inside): path for inside, path in copied.files.items()})
        plan.links.update({os.path.join(top, link): os.path.join(top, to) for link, to in copied.links.items()})
    for kustomization in {*inputs.removals, *(p.kustomization for p in inputs.patches), *remotes.replaced,
                          *inputs.renamed}:
        holder = next(((n, t) for n, (t, _, _) in enumerate(remotes.trees) if within(kustomization, t)), None)
        if holder is not None:  # a kustomization of a fetched tree: its place in the copy
            inside = os.path.relpath(kustomization, holder[1])
            leaving.inside[kustomization] = os.path.join(fetched_top, str(holder[0]), inside)
            continue
        resolved = _resolve(root_abs, real_root, kustomization, to_user)
        if resolved is not None:
            leaving.inside[kustomization] = os.path.relpath(resolved, real_root)
    for kustomization, entries in remotes.replaced.items():
        leaving.replaced[kustomization] = [(f, i, os.path.normpath(os.path.join(fetched_top, str(n), inside)))
                                           for f, i, n, inside in entries]  # fmt: skip
    for kustomization, named in inputs.renamed.items():  # local files named like a remote: "./" in the copy
        if kustomization in leaving.inside:
            folder = os.path.dirname(leaving.inside[kustomization])
            leaving.replaced.setdefault(kustomization, []).extend(
                (f, i, os.path.normpath(os.path.join(folder, entry))) for f, i, entry in named)
    wrapped = ["wrapped"] if leaving.component else []
    fetched = [f"fetched {n} {digest}" for n, (_, digest, _) in enumerate(remotes.trees)]
    fetched += [repr(sorted(leaving.replaced.items()))] if leaving.replaced else []
    # what each left-out entry says is in the rendering: why --fetch did not fetch one (or was not asked) too
    fetched += [left.message for left in inputs.left_out] if fetch is not None else []
    # a failure reads otherwise when Argo CD's kustomize writes into structured data (_structured_data_target)
    fetched += ["structured data"] if inputs.gap is not None and inputs.gap.straddles(REPLACEMENT_STRUCTURED_DATA) else []
    # the program's build besides its version: one replaced in place is another key (attacker trial 44, 1)
    made_by = json.dumps(program_identity(argv[0]))
    key = input_key([renderer.name, renderer.version, argv[0], made_by, repr(options), rel_app, *wrapped, *fetched], files,
                    root_abs)  # fmt: skip
    read = [*files, *(path for _, _, tree_files in remotes.trees for path in tree_files)]
    rendering = cached(
        "kustomize", key,
        tagging_inputs(read, lambda: _build(argv, renderer, root_abs, plan, app_inside, options, folder, user_file,
                                            limits, leaving)),  # fmt: skip
    )
    rendering = _in_user_terms(rendering, folder)
    if remotes.trees:  # the fetched trees' files by their own paths
        shown = os.path.normpath(os.path.join(folder, os.path.relpath(fetched_top, app_inside)))
        rendering = _fetched_terms(rendering, shown, [tree for tree, _, _ in remotes.trees])
    return rendering


def _relative_to(top: str, path: str) -> str:
    """``path`` relative to ``top`` (how an error names a file of a fetched tree)."""
    return os.path.relpath(path, top)


def _base_hint(entry: str) -> str:
    """What to do about the remote base or component ``entry`` in a run without ``--fetch``: have
    ``--fetch`` fetch it (the ``fetch-hosts`` entry its host needs:
    :func:`hooklint.sources.fetch.fetch_advice`) when the fetch step can, else vendor it
    (:data:`NETWORK_HINT`; an ssh remote says why it is never fetched)."""
    from hooklint.sources.fetch import SSH_NEVER, base_not_fetched, fetch_advice  # noqa: PLC0415
    from hooklint.sources.repository.kustomize_spec import repo_spec  # noqa: PLC0415

    spec = repo_spec(entry)
    if spec is None or base_not_fetched(entry, spec) not in (None, SSH_NEVER):
        return NETWORK_HINT
    if base_not_fetched(entry, spec) == SSH_NEVER:
        return f"{SSH_NEVER}: vendor the base into the repository"
    advice = fetch_advice(spec.clone_url())
    if advice is None:
        return NETWORK_HINT
    return f"hooklint fetches it only with `--fetch`: {advice} to check it, or vendor the base into the repository"


def _fetched_folder(real_root: str) -> str:
    """The folder of the copy's top that holds the fetched trees: ``.hooklint-fetched``, or
    ``.hooklint-fetched-2``... : the first name the repository's top does not hold."""
    name, count = ".hooklint-fetched", 1
    while os.path.lexists(os.path.join(real_root, name)):
        count += 1
        name = f".hooklint-fetched-{count}"
    return name


def _fetched_terms(rendering: Rendering, shown: str, trees: list[str]) -> Rendering:
    """``rendering`` (in the user's terms) with every path under ``shown`` (where the copy's
    folder of fetched trees stands in them) replaced by the fetched tree's own (absolute)."""

    def path(value: str | None) -> str | None:
        if value is None or not (value + os.sep).startswith(shown + os.sep):
            return value
        number, _, rest = value[len(shown) + 1:].partition(os.sep)
        if not number.isdigit() or int(number) >= len(trees):
            return value
        return os.path.join(trees[int(number)], rest) if rest else trees[int(number)]

    return Rendering(
        rendering.renderer,
        [RenderedDocument(d.text, path(d.origin), d.origin_line, path(d.configured_in),
                          [Transformation(path(t.path) or "", t.kind) for t in d.transformations])
         for d in rendering.documents],  # fmt: skip
        rendering.omitted,
    )


@dataclass(slots=True)
class _Leaving:
    """What a partial rendering leaves out of the copy (:mod:`hooklint.sources.render.partial`):
    ``inputs`` (the walk that found the entries, the patch-like entries and which kustomization
    builds on which), ``inside`` (each kustomization to edit, as reached -> its path in the copy,
    relative to the resolved root) and ``app`` (the application folder, absolute, as reached).
    ``component``: the folder is a kustomize Component, built through a wrapper kustomization."""

    inputs: _Inputs
    inside: dict[str, str]
    app: str
    component: bool = False
    #: ``--fetch``: kustomization (as reached) -> ``(field, index, the fetched folder in the copy,
    #: relative to its top)``: each remote entry the copy names the fetched folder in place of
    replaced: dict[str, list[tuple[str, int, str]]] = _field(default_factory=dict)

    def below(self, kustomization: str) -> set[str]:
        """``kustomization`` and every kustomization it builds on, at any depth."""
        seen, stack = set(), [kustomization]
        while stack:
            one = stack.pop()
            if one not in seen:
                seen.add(one)
                stack.extend(self.inputs.children.get(one, ()))
        return seen

    def omissions(self, notes: dict[int, list[str]], alone: Iterable[tuple[partial.PatchEntry, tuple[str, str]]] = ()
                  ) -> list[Omission]:  # fmt: skip
        """One omission per entry left out (paths relative to the application folder; the
        patches dropped with each, ``notes``, said in it), kustomization by kustomization in walk
        order, each one's by line and column."""
        out = []
        first: dict[str, int] = {}
        for i, left in enumerate(self.inputs.left_out):
            first.setdefault(left.kustomization, i)
            what = ("the chart's objects, possibly hooks, were not checked" if left.field in partial.HELM_FIELDS
                    else "the objects it adds, possibly hooks, were not checked")  # fmt: skip
            dropped = notes.get(i, [])
            if dropped:
                what += (f", and {' and '.join(dropped)} {'was' if len(dropped) == 1 else 'were'} dropped with it "
                         "(no local entry adds what it needs)")  # fmt: skip
            out.append(((first[left.kustomization], left.line, left.column), Omission(
                left.message, os.path.relpath(left.kustomization, self.app), left.line, left.column,
                left.argocd_renders, what + "; the rest of the application was")))  # fmt: skip
        for patch, (kind, name) in alone:  # a Component's patch of what only its users add
            first.setdefault(patch.kustomization, len(first) + len(out))
            out.append(((first[patch.kustomization], patch.line, patch.column), Omission(
                f"{patch.field} entry needs {kind} {name}, which this Component does not add",
                os.path.relpath(patch.kustomization, self.app), patch.line, patch.column,
                "Argo CD applies a Component inside the kustomizations that list it under components, where its "
                "patches find their targets; hooklint rendered the Component on its own",
                "what it changes was not checked; the rest of the Component was")))  # fmt: skip
        return [omission for _, omission in sorted(out, key=lambda pair: pair[0])]  # as written, per kustomization


# --- applying the Application's options (kustomize edit) --------------------------------------


def apply_options(kustomization: dict[str, Any], options: KustomizeOptions, app_dir: str, name: str) -> bool:
    """Edit ``kustomization`` (the parsed kustomization of ``app_dir``, file ``name``) in place as
    the ``kustomize edit`` commands of Argo CD's ``Build`` (argo-cd
    ``util/kustomize/kustomize.go``) would, in its order: name prefix and suffix, images, replicas,
    labels, annotations, namespace, patches, components; True when anything changed.

    Follows ``kustomize/commands/edit`` of kustomize v5.5.0 to v5.8.1 (the one Argo CD v3.5.1
    ships): ``set image`` merges with the existing ``images`` (and deprecated ``imageTags``) by
    name, ``*`` keeps a field, and writes them sorted by name; ``set replicas`` likewise
    (``setreplicas.go``: an existing entry of another name kept, all sorted by name); ``add label``
    / ``add annotation`` refuse a key already present ("label app already in kustomization file")
    unless ``--force`` (``forceCommonLabels`` / ``forceCommonAnnotations``) overwrites it;
    ``add label --without-selector`` (``labelWithoutSelector``, ``--include-templates`` with
    ``labelIncludeTemplates``) writes to ``labels`` (:func:`_add_labels`); ``add component`` globs
    each path from ``app_dir`` with Go's ``filepath.Glob``
    (:func:`~hooklint.sources.repository.gomatch.filepath_glob`: ``*`` matches hidden names) and skips one
    already listed; patches are appended to ``patches`` as Argo CD does itself. Raises
    RenderError (message only; the caller sets the path) where kustomize edit would fail."""
    before = json.dumps(kustomization, sort_keys=True, default=str)
    if options.name_prefix:
        _set(kustomization, "namePrefix", options.name_prefix)
    if options.name_suffix:
        _set(kustomization, "nameSuffix", options.name_suffix)
    if options.images:
        _set_images(kustomization, options.images)
    if options.replicas:
        _set_replicas(kustomization, options.replicas)
    if options.common_labels:
        if options.label_include_templates and not options.label_without_selector:
            raise RenderError("kustomize edit add label: --without-selector flag must be specified for "
                              "--include-templates to work (kustomize.labelIncludeTemplates needs "
                              "kustomize.labelWithoutSelector)", "")  # fmt: skip
        if options.label_without_selector:
            _add_labels(kustomization, options.common_labels, options.force_common_labels,
                        options.label_include_templates, options.label_groups)
        else:
            _add_metadata(kustomization, "commonLabels", "label", options.common_labels, options.force_common_labels)
    if options.common_annotations:
        _add_metadata(kustomization, "commonAnnotations", "annotation", options.common_annotations,
                      options.force_common_annotations)  # fmt: skip
    if options.namespace:
        _set(kustomization, "namespace", options.namespace)
    if options.patches:
        patches = _get(kustomization, "patches")
        if patches is not None and not isinstance(patches, list):
            raise RenderError("expected 'patches' field in kustomization.yaml to be a list", "")
        _set(kustomization, "patches", list(patches or []) + [json.loads(p) for p in options.patches])
    if options.components:
        components = list(_list(_get(kustomization, "components")))
        for pattern in options.components:
            try:
                matches = filepath_glob(pattern, app_dir)  # in the copy: collect's glob_base checked the pattern
            except BadPattern:
                raise RenderError(f"kustomize edit add component: {pattern}: syntax error in pattern", "") from None
            if not matches:
                raise RenderError(f"kustomize edit add component: {pattern} has no match", "")
            components += [m for m in matches if m != name and m not in components]
        _set(kustomization, "components", components)
    return json.dumps(kustomization, sort_keys=True, default=str) != before


def parse_image(arg: str) -> dict[str, str]:
    """One ``kustomize edit set image`` argument as an ``images`` entry: ``nginx=ghcr.io/x/nginx:1.2``
    -> ``{"name": "nginx", "newName": "ghcr.io/x/nginx", "newTag": "1.2"}``, ``nginx:1.2`` ->
    ``{"name": "nginx", "newTag": "1.2"}``, ``nginx@sha256:ab`` -> ``{"name": "nginx", "digest":
    "sha256:ab"}`` (kustomize ``setimage.go`` ``parse`` and ``api/internal/image`` ``Split``).
    Raises RenderError when kustomize would ("invalid format of image")."""
    key, _, value = arg.partition("=") if "=" in arg else ("", "", arg)
    name, tag, digest = _split_image(value)
    if name == arg:
        raise RenderError(f"invalid format of image {arg!r}: use <image>=<newimage>:<newtag>@<digest>, "
                          "<image>:<newtag> or <image>@<digest>", "")  # fmt: skip
    entry = {"name": key or name}
    if key:
        entry["newName"] = name
    if tag:
        entry["newTag"] = tag
    if digest:
        entry["digest"] = digest
    return entry


def _split_image(image: str) -> tuple[str, str, str]:
    slash = image.find("/")
    offset = slash if slash > 0 else 0
    search = image[offset:]
    at, colon = search.find("@"), search.find(":")
    if at < 0 and colon < 0:
        return image, "", ""
    if at >= 0 and (at < colon or colon < 0):
        return image[: offset + at], "", image[offset + at + 1 :]
    if at >= 0:
        return image[: offset + colon], image[offset + colon + 1 : offset + at], image[offset + at + 1 :]
    return image[: offset + colon], image[offset + colon + 1 :], ""


def _set_images(kustomization: dict[str, Any], args: Iterable[str]) -> None:
    wanted: dict[str | None, dict[str, Any]] = {}  # None: an entry without a name
    for arg in args:
        entry = parse_image(arg)
        wanted[entry["name"]] = entry
    existing = [(key, old) for key in ("images", "imageTags") for old in _list(_get(kustomization, key))]
    for key, old in existing:
        old = {} if old is None else old  # Go decodes a null entry as an image of no fields
        name = old.get("name") if isinstance(old, dict) else None
        if not isinstance(old, dict) or not (name is None or isinstance(name, str)):  # Go cannot decode it
            raise RenderError(f"an entry of {key} in the kustomization is not a mapping with a string name: Argo CD's "
                              "kustomize edit set image fails on it", "")  # fmt: skip
        if name in wanted:
            new = wanted[name]
            for field in ("newName", "newTag", "digest"):
                if new.get(field) == "*":
                    new[field] = old.get(field, "")
        else:
            wanted[name] = old
    images = []
    for entry in wanted.values():
        images.append({k: v for k, v in entry.items() if v not in ("", "*")})
    _set(kustomization, "images", sorted(images, key=lambda e: str(e.get("name", ""))))
    _set(kustomization, "imageTags", None)


def _edit_pairs(kind: str, pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """The ``key:value`` arguments Argo CD passes to ``kustomize edit add label|annotation``
    (``mapToEditAddArgs``) as kustomize reads them (``util.ConvertSliceToMap``): split at the first
    colon, one pair of double quotes around the value removed. Two pairs that become one key (``a``
    and ``a:b``) are a RenderError with ``argocd_renders``: Argo CD passes them in Go's random map
    order, so which value kustomize keeps is not known."""
    out: dict[str, str] = {}
    written: dict[str, str] = {}
    for key, value in pairs:
        given = key
        key, _, value = f"{key}:{value}".partition(":")
        if not key:
            raise RenderError(f"invalid {kind}: ':{value}' (need k:v pair where v may be quoted)", "")
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        if key in out and out[key] != value:
            raise RenderError(f"the {kind}s {written[key]!r} and {given!r} of the Application both become the {kind} "
                              f"{key} with different values (kustomize splits each at its first colon)", "",
                              argocd_renders="Argo CD passes them in a random order, and kustomize keeps the last")  # fmt: skip
        out[key], written[key] = value, given
    return out


def _add_metadata(kustomization: dict[str, Any], field: str, kind: str, pairs: Iterable[tuple[str, str]],
                  force: bool = False) -> None:  # fmt: skip
    """``kustomize edit add label|annotation [--force]`` (``addmetadata.go`` ``writeToMap``): each
    pair into the mapping ``field``; a key already there is an error unless ``force`` overwrites it."""
    current = _get(kustomization, field) or {}
    if not isinstance(current, dict):  # kustomize edit cannot decode the file either
        raise RenderError(f"{field} in the kustomization is not a mapping: Argo CD's kustomize edit add {kind} "
                          "fails on it", "")  # fmt: skip
    current = dict(current)
    for key, value in _edit_pairs(kind, pairs).items():
        if key in current and not force:
            raise RenderError(f"{kind} {key} already in kustomization file", "")
        current[key] = value
    _set(kustomization, field, current)


def _add_labels(kustomization: dict[str, Any], pairs: Iterable[tuple[str, str]], force: bool, templates: bool,
                groups: bool) -> None:  # fmt: skip
    """``kustomize edit add label --without-selector [--include-templates] [--force]``: the pairs go
    to ``labels``, in an entry with ``includeSelectors`` false and ``includeTemplates`` as
    ``templates``. With ``groups`` (kustomize v5.6.0 and later, which Argo CD ships from v3.0.0:
    ``addmetadata.go`` ``writeToLabels``), into the first existing entry of those settings, a key
    already there an error unless ``force``; before (kustomize v5.5.0 and older), always into a new
    entry appended. Raises RenderError where kustomize edit cannot decode ``labels``."""
    labels = _get(kustomization, "labels")
    if labels is not None and not isinstance(labels, list):
        raise RenderError("labels in the kustomization is not a list: Argo CD's kustomize edit add label fails on "
                          "it", "")  # fmt: skip
    labels = [dict(entry) if isinstance(entry, dict) else entry for entry in labels or []]
    wanted = _edit_pairs("label", pairs)
    group = None
    for entry in labels if groups else []:
        flags = [_get(entry, f) if isinstance(entry, dict) else None for f in ("includeSelectors", "includeTemplates")]
        found = _get(entry, "pairs") if isinstance(entry, dict) else None
        if (not isinstance(entry, dict) and entry is not None) or any(f is not None and not isinstance(f, bool)
                                                                      for f in flags) \
                or not (found is None or isinstance(found, dict)):  # fmt: skip
            raise RenderError("an entry of labels in the kustomization is not a label entry: Argo CD's kustomize "
                              "edit add label fails on it", "")  # fmt: skip
        if not flags[0] and bool(flags[1]) == templates:
            if found is None:  # a nil map in Go: writeToMapEntry assigns into it and kustomize panics
                raise RenderError("the first labels entry of the kustomization without includeSelectors"
                                  f"{' and with includeTemplates' if templates else ''} has no pairs: Argo CD's "
                                  "kustomize edit add label --without-selector fails on it (assignment to entry in "
                                  "nil map)", "")  # fmt: skip
            group = entry
            break
    if group is None:
        group = {"pairs": {}, **({"includeTemplates": True} if templates else {})}
        labels.append(group)
    current = dict(_get(group, "pairs") or {})
    for key, value in wanted.items():
        if key in current and not force:
            raise RenderError(f"label {key} already in kustomization file", "")
        current[key] = value
    _set(group, "pairs", current)
    _set(kustomization, "labels", labels)


def _set_replicas(kustomization: dict[str, Any], replicas: Iterable[tuple[str, int]]) -> None:
    """``kustomize edit set replicas NAME=COUNT...`` as Argo CD runs it (``fmt.Sprintf("%s=%d")``;
    kustomize ``setreplicas.go``): an argument that does not split at ``=`` into two parts (a name
    holding ``=``) is kustomize's error; each given name replaces an existing entry of that name,
    other existing entries are kept (the last of a name), all sorted by name. An existing entry
    kustomize cannot decode is a RenderError (``replicas`` entries are ``{name, count}``)."""
    wanted: dict[str, dict[str, Any]] = {}
    for given, number in replicas:
        if "=" in given:
            raise RenderError(f"kustomize edit set replicas {given}={number}: invalid format of replica, use the "
                              "following format: <name>=<count>", "")  # fmt: skip
        wanted[given] = {"name": given, "count": number}
    existing = _get(kustomization, "replicas")
    if existing is not None and not isinstance(existing, list):
        raise RenderError("replicas in the kustomization is not a list: Argo CD's kustomize edit set replicas "
                          "fails on it", "")  # fmt: skip
    kept: dict[str, dict[str, Any]] = {}
    for entry in existing or []:
        entry = {} if entry is None else entry
        name, count = (_get(entry, "name"), _get(entry, "count")) if isinstance(entry, dict) else (None, None)
        if not isinstance(entry, dict) or not (name is None or isinstance(name, str)) \
                or not (count is None or isinstance(count, int) and not isinstance(count, bool)):  # fmt: skip
            raise RenderError("an entry of replicas in the kustomization is not a mapping of a string name and an "
                              "integer count: Argo CD's kustomize edit set replicas fails on it", "")  # fmt: skip
        if (name or "") not in wanted:
            kept[name or ""] = entry  # as written: what else it holds is kustomize's to refuse
    merged = {**kept, **wanted}
    _set(kustomization, "replicas", [merged[n] for n in sorted(merged)])


def _list(value: Any) -> list[Any]:
    """``value`` when it is a list, else empty: a hostile kustomization may write any YAML value
    where kustomize expects a list, and decoding it is kustomize's to refuse."""
    return value if isinstance(value, list) else []


def _get(kustomization: Mapping[str, Any], field: str) -> Any:
    """A field as kustomize reads it: Go's JSON decoding also matches keys in another case
    (:func:`~hooklint.gojsonread.go_fold`; two such keys are refused before this)."""
    if field in kustomization:
        return kustomization[field]
    folded = go_fold(field)
    return next((v for k, v in kustomization.items() if go_fold(str(k)) == folded), None)


def _set(kustomization: dict[str, Any], field: str, value: Any) -> None:
    for key in [k for k in kustomization if go_fold(str(k)) == go_fold(field) and k != field]:
        del kustomization[key]
    if value is None:
        kustomization.pop(field, None)
    else:
        kustomization[field] = value


# --- what kustomize reads: the cache key, the copy, the refusals -------------------------------


#: ``--fetch``'s step for a remote ``resources``/``bases``/``components`` entry
#: (:func:`hooklint.sources.appmap.remote.kustomize_fetcher`): called with the entry as written and
#: where in this repository its findings go (the kustomization entry, as ``(file, line, column)``);
#: returns the fetched tree (:class:`FetchedBase`) or why it was not fetched (one line).
RemoteFetcher = Callable[[str, tuple[str, int, int]], "FetchedBase | str"]
#: Remote bases and components one rendering may fetch (nested ones included).
MAX_REMOTES = 32


@dataclass(frozen=True, slots=True)
class FetchedBase:
    """A remote base or component fetched by :data:`RemoteFetcher`: ``folder`` (its kustomization's
    folder), ``tree`` (the fetched repository: nothing of it may leave it), ``digest`` (the commit),
    ``label`` (how messages name it) and ``keep`` (called once it is rendered: where its findings go
    is then recorded)."""

    folder: str
    tree: str
    digest: str
    label: str
    keep: Callable[[], None]


@dataclass(slots=True)
class _Remotes:
    """What the fetch step gave one rendering: the fetched ``trees`` (``(tree, digest, files)``, in
    walk order: the copy holds the Nth under ``<folder>/N``), the entry each remote entry becomes
    (``replaced``: kustomization, as reached -> ``(field, index, N, folder in the tree)``), and each
    walked ``(tree, folder)`` with why it is not rendered (None: it is)."""

    trees: list[tuple[str, str, list[str]]] = _field(default_factory=list)
    replaced: dict[str, list[tuple[str, int, int, str]]] = _field(default_factory=dict)
    walked: dict[tuple[str, str], str | None] = _field(default_factory=dict)


#: HL009: what a kustomization left unrendered for want of a remote entry leaves unchecked.
REMOTE_ENTRY_UNCHECKED = (
    "none of its objects were checked: neither those the entry adds (possibly hooks) nor those of its local files")


class _Inputs:
    """Works out every file a build of one folder may read (the folder, and every local folder or
    file referenced, recursively, by kustomization fields), refusing remote references, plugins
    and ``helmCharts`` on the way. A kustomization read as kustomize reads it
    (:func:`read_kustomization_file`), or refused (RenderError) when hooklint cannot read it so; when
    the files cannot be listed exactly (a symlink on the way), all files under root.

    Only regular files of at most ``max_file_size`` bytes are handed to kustomize: a kustomization
    or an entry naming a FIFO, a device or a socket (which would block or never end), or a file
    over the size, is a RenderError at the entry; other files over the size under a folder that
    is built are left out of the copy (kustomize reads only what is named)."""

    _DIRS_OR_FILES = ("resources", "bases", "components")
    _PLUGINS = ("transformers", "generators", "validators")
    _FILES = ("crds", "configurations")

    def __init__(self, root: str, to_user: Callable[[str], str], max_file_size: int = DEFAULT_MAX_FILE_SIZE):
        self.root = root
        self.to_user = to_user
        self.max_file_size = max_file_size
        self.files: set[str] = set()
        self.seen: set[str] = set()
        self.exact = True
        self.pending: list[str] = []  # folders still to walk (a stack: no recursion, however deep the bases)
        self.walking = False
        #: the entries left out of the copy, in walk order (:mod:`hooklint.sources.render.partial`)
        self.left_out: list[partial.LeftOut] = []
        #: every removal from a kustomization of the copy: its path -> [(field, index or None)]
        self.removals: dict[str, list[tuple[str, int | None]]] = {}
        #: the patch-like entries of every kustomization walked, and kustomization -> those it builds on
        self.patches: list[partial.PatchEntry] = []
        self.children: dict[str, set[str]] = {}
        #: ``--fetch``: the fetch step for remote bases and components, what it gave this rendering
        #: (shared with the walks of the fetched trees), and, for a walk of a fetched tree, the entry
        #: of this repository it hangs from (where its findings go)
        self.fetch: RemoteFetcher | None = None
        self.remotes = _Remotes()
        #: kustomization -> ``(field, index, entry)``: an entry kustomize reads as a local file though
        #: it reads as a Git URL too; the copy names it ``./entry``, so that kustomize's origin
        #: annotation names the file, not the repository it would otherwise clone (``origin.go`` ``Append``)
        self.renamed: dict[str, list[tuple[str, int, str]]] = {}
        self.anchor: tuple[str, int, int] | None = None
        #: what no copy holds: an entry naming it is refused (:meth:`reference`)
        self.withheld = Withheld()
        #: the renderer and the kustomize Argo CD runs, when their versions read a field differently
        #: (:func:`version_gap`): a kustomization using such a field is not rendered (:meth:`differences`)
        self.gap: VersionGap | None = None
        #: kustomization directory -> ``(namespace, kustomization)``: the ``namespace`` an overlay (or
        #: the nearest one above it that sets one) would propagate into it (:data:`NAMESPACE_PROPAGATION`)
        self.inherited: dict[str, tuple[str, str]] = {}
        #: kustomization file -> the namespace it would propagate into its bases, when any
        self.propagated: dict[str, tuple[str, str]] = {}

    def collect(self, app_dir: str, options: KustomizeOptions) -> list[str]:
        self.directory(app_dir)
        here = os.path.join(app_dir, _kustomization_name(app_dir) or KUSTOMIZATION_NAMES[0])
        for pattern in options.components:
            self.glob_base(here, app_dir, pattern)
            try:
                found = filepath_glob(pattern, app_dir, facts.realpath(self.root))
            except BadPattern:
                found = []
            for component in found or [pattern]:
                self.reference(here, "components", component, directory_ok=True)
        for patch in options.patches:
            path = json.loads(patch).get("path")
            if isinstance(path, str):
                self.reference(here, "patches", path)
        return sorted(self.files) if self.exact else self.fitting(_tree(self.root))

    def fitting(self, paths: list[str]) -> list[str]:
        """``paths`` without the regular files over the size limit (symlinks stay: they are copied as links)."""
        return [p for p in paths if os.path.islink(p) or file_problem(p, self.max_file_size) is None]

    def directory(self, directory: str) -> None:
        """Walk ``directory`` and the folders its kustomization names, theirs in turn, depth first
        in entry order, with a stack rather than recursion: 400 nested bases ended in a
        RecursionError that lost the whole run's report."""
        self.pending.append(directory)
        if self.walking:
            return  # the walk below takes it
        self.walking = True
        try:
            while self.pending:
                start = len(self.pending) - 1
                self.walk_one(self.pending.pop())
                self.pending[start:] = reversed(self.pending[start:])  # its own folders, first entry on top
        finally:
            self.walking = False

    def walk_one(self, directory: str) -> None:
        if directory in self.seen:
            return
        self.seen.add(directory)
        note_input(directory)  # what the walk looked at, for the result cache (hooklint.results)
        self.contained(directory, directory)
        found = self.fitting(_tree(directory, self))
        for path in found:
            note_input(path)
        self.files.update(found)
        name = _kustomization_name(directory)
        if name is None:
            return
        path = os.path.join(directory, name)
        self.contained(path, path, regular=True)
        try:
            text, read = read_kustomization_file(path, self.max_file_size)
        except (NotRegularFile, FileTooLarge) as error:
            raise RenderError(f"the kustomization is {problem_of(error)}: not read", self.to_user(path)) from None
        except YamlTooComplex as error:  # an alias bomb: refused here, before anything walks it
            mark = error.problem_mark
            raise RenderError(str(error.problem), self.to_user(path), *((mark.line + 1, mark.column + 1) if mark else (1, 1)))
        except Unreadable as error:  # fail closed: kustomize is never started on what hooklint cannot read as it does
            raise RenderError(f"{self.to_user(path)}: {error}", self.to_user(path), error.line, error.column) from None
        except OSError as error:
            raise RenderError(f"the kustomization could not be read ({error.strerror}): not rendered",
                              self.to_user(path)) from None  # fmt: skip
        node = read.node
        try:
            config = go_decode(canonical(read.value))
        except Unreadable as error:
            raise RenderError(f"{self.to_user(path)}: {error}", self.to_user(path)) from None
        twice = ambiguous_key(node)
        if twice is not None:
            field, first, second = twice
            why = ("kustomize keeps the last one" if first.value == second.value else
                   "kustomize matches kustomization keys in any case and keeps one of them by sorting, so hooklint "
                   "cannot tell which it reads")  # fmt: skip
            raise RenderError(
                f"keys {first.value!r} (line {first.start_mark.line + 1}) and {second.value!r} both set "
                f"{field}: {why}; keep one key",
                self.to_user(path), second.start_mark.line + 1, second.start_mark.column + 1)  # fmt: skip
        self.kustomization(path, text, config, node)

    def fetched(self, path: str, field: str, index: int, entry: str, where: tuple[int, int]) -> str | None:
        """``--fetch``: the remote ``entry`` (item ``index`` of ``field`` of the kustomization
        ``path``, written at ``where``) fetched (:attr:`fetch`) and its tree walked as this
        repository is (containment, plugins, kustomizations read as kustomize reads them), the
        tree being the root nothing may leave; the copy kustomize builds then names the fetched
        folder in its place (:class:`_Remotes`), so kustomize never reaches the network. Returns
        None, or why it is left out: not fetched, more than :data:`MAX_REMOTES`, or a fetched
        kustomization that would itself leave entries out or that hooklint cannot render (fail
        closed: the whole entry is then left out, never a part of it)."""
        assert self.fetch is not None
        anchor = self.anchor or (self.to_user(path), *where)
        got = self.fetch(entry, anchor)
        if isinstance(got, str):
            return got
        remotes = self.remotes
        known = [n for n, (tree, _, _) in enumerate(remotes.trees) if tree == got.tree]
        if not known and len(remotes.trees) >= MAX_REMOTES:
            return f"a rendering fetches at most {MAX_REMOTES} remote bases and components"
        key = (got.tree, got.folder)
        if key not in remotes.walked:
            remotes.walked[key] = "a remote base that includes itself"  # a loop: refused, never walked twice

            def shown(inside: str, label: str = got.label, tree: str = got.tree) -> str:
                return f"{label} {os.path.relpath(inside, tree)}"

            sub = _Inputs(got.tree, shown, self.max_file_size)
            sub.fetch, sub.remotes, sub.anchor, sub.withheld = self.fetch, remotes, anchor, self.withheld
            sub.renamed, sub.gap = self.renamed, self.gap  # a fetched base read as Argo CD's kustomize reads it too
            why: str | None = None
            if _kustomization_name(got.folder) is None:
                why = f"{shown(got.folder)} holds no kustomization"
            else:
                try:
                    sub.directory(got.folder)
                except RenderError as error:
                    why = f"hooklint cannot render what it fetched: {error.message}"
                if why is None and sub.left_out:
                    why = f"what it fetched would be rendered without an entry: {sub.left_out[0].message}"
            if why is None and not known:
                remotes.trees.append((got.tree, got.digest, self.fitting(_tree(got.tree))))
            remotes.walked[key] = why
            if why is None:
                got.keep()
        why = remotes.walked[key]
        if why is not None:
            return why
        number = next(n for n, (tree, _, _) in enumerate(remotes.trees) if tree == got.tree)
        remotes.replaced.setdefault(path, []).append((field, index, number, os.path.relpath(got.folder, got.tree)))
        return None

    def leave_out(self, path: str, field: str, index: int | None, position: tuple[int, int], message: str,
                  argocd_renders: str = "Argo CD fetches it when it renders the application") -> None:  # fmt: skip
        """Leave entry ``index`` of ``field`` (None: the whole field) of the kustomization ``path``
        out of the copy; an omission says so at ``position`` unless ``message`` is empty."""
        self.removals.setdefault(path, []).append((field, index))
        if message:
            self.left_out.append(partial.LeftOut(path, field, index, *position, message, argocd_renders))

    def kustomization(self, path: str, text: str, config: dict[str, Any], node: yaml.Node | None = None) -> None:
        own = _get(config, "namespace")
        if isinstance(own, str) and own:
            self.propagated[path] = (own, path)
        elif os.path.dirname(path) in self.inherited:
            self.propagated[path] = self.inherited[os.path.dirname(path)]
            if self.gap is not None and self.gap.propagates_namespace():
                self.namespace_selectors(path, config, node, *self.inherited[os.path.dirname(path)])
        helm = False
        for field in partial.HELM_FIELDS:  # left out, each entry an omission (issue 22)
            value = _get(config, field)
            if not value:
                continue
            helm = True
            positions = partial.entry_positions(node, field)
            items = value if isinstance(value, list) and len(positions) == len(value) else [value]
            for index, item in enumerate(items):
                name = item.get("name") if isinstance(item, dict) else None
                name = name if isinstance(name, str) else item.get("chartName") if isinstance(item, dict) else None
                self.leave_out(
                    path, field, index if items is value else None,
                    positions[index] if items is value else _position_of(text, field),
                    (f"{field} entry {name!r}" if isinstance(name, str) else field) + " inflates a Helm chart, which "
                    "needs kustomize build --enable-helm (it runs helm and usually fetches the chart); hooklint never "
                    "passes it: make the chart a Helm source of its own",
                    "Argo CD renders it when argocd-cm's kustomize.buildOptions has --enable-helm")  # fmt: skip
        for field in partial.HELM_ONLY:
            if helm and _get(config, field) is not None:
                self.leave_out(path, field, None, (1, 1), "")
        for field in self._DIRS_OR_FILES:
            entries = self.entries(config, field)
            positions = partial.entry_positions(node, field)
            for index, entry in enumerate(entries):
                if _needs_network(path, field, entry):  # left out: an omission where it is written
                    where = positions[index] if len(positions) == len(entries) else _position_of(text, entry)
                    why = self.fetched(path, field, index, entry, where) if self.fetch is not None else ""
                    if why is None:  # --fetch: rendered from the fetched tree
                        continue
                    self.leave_out(path, field, index, where,
                                   f"{field} entry {url_credentials(entry)!r} is remote: --fetch did not fetch it ({why})"
                                   if why else f"{field} entry {entry!r} is remote and needs the network; {_base_hint(entry)}")  # fmt: skip
                    continue
                target = self.reference(path, field, entry, directory_ok=True, text=text)
                if target is not None and fetched_by_kustomize(entry, field):  # a local file (_needs_network)
                    self.renamed.setdefault(path, []).append((field, index, entry))
                child = _kustomization_name(target) if target is not None and os.path.isdir(target) else None
                if child is not None:
                    assert target is not None  # the folder child was found in
                    self.children.setdefault(path, set()).add(os.path.join(target, child))
        for field in self._PLUGINS:
            entries = self.entries(config, field)
            positions = partial.entry_positions(node, field)
            for index, entry in enumerate(entries):
                where = positions[index] if len(positions) == len(entries) else _position_of(text, entry)
                self.plugin(path, field, entry, text, index, where)
        for field in self._FILES:
            for entry in self.entries(config, field):
                self.reference(path, field, entry, text=text)
        for entry in self.entries(config, "patchesStrategicMerge"):
            if "\n" not in entry and not entry.lstrip().startswith("{"):
                self.reference(path, "patchesStrategicMerge", entry, text=text, optional=True)
        for field in ("patches", "patchesJson6902", "replacements"):
            for entry in self.items(config, field):
                if isinstance(entry, dict) and isinstance(entry.get("path"), str):
                    self.reference(path, field, entry["path"], text=text)
        openapi = _get(config, "openapi")
        if isinstance(openapi, dict) and isinstance(openapi.get("path"), str):
            self.reference(path, "openapi", openapi["path"], text=text)
        for field in ("configMapGenerator", "secretGenerator"):
            for index, generator in enumerate(self.items(config, field)):
                if not isinstance(generator, dict):
                    self.exact = False
                    continue
                sources = [*_list(generator.get("files")), *_list(generator.get("envs")), generator.get("env")]
                remote = next((f for f in sources if isinstance(f, str) and f
                               and _needs_network(path, field, f.partition("=")[2] or f)), None)  # fmt: skip
                if remote is not None:  # issue 33: this generator left out, the rest rendered
                    name = generator.get("name")
                    url = url_credentials(remote.partition("=")[2] or remote)
                    self.leave_out(path, field, index, _position_of(text, remote),
                                   f"{field} entry {name if isinstance(name, str) else index!r} reads the remote file "
                                   f"{url}, which kustomize fetches: it needs the network; {FILE_HINT}")  # fmt: skip
                    continue
                for source in sources:
                    if isinstance(source, str) and source:
                        self.reference(path, field, source.partition("=")[2] or source, text=text)
        self.patch_entries(path, config, node)  # after every file it names was checked as a reference
        if self.gap is not None:
            self.differences(path, config, node)

    def namespace_selectors(self, path: str, config: dict[str, Any], node: yaml.Node | None, namespace: str,
                            overlay: str) -> None:  # fmt: skip
        """Raise :class:`RenderError` (HL009) at the first selector of the base kustomization ``path``
        (one without a ``namespace`` of its own, which ``overlay`` builds on, directly or not, with
        ``namespace``) that names a namespace: a ``replacements`` source, target ``select`` or
        ``reject``, a ``patchesJson6902`` or ``patches`` target. Argo CD's kustomize v5.8.0 reads it
        with the base's objects already in ``namespace`` (:data:`NAMESPACE_PROPAGATION`: its
        ``NamespaceTransformer`` runs before ``PatchJson6902Transformer`` and ``ReplacementTransformer``;
        its generators make objects in it, which a ``patches`` target sees too), every other kustomize
        without: any namespace selector may match otherwise (fail closed), not only one equal to ``namespace``."""
        assert self.gap is not None
        found: list[tuple[str, yaml.Node | None, Any]] = []

        def look(where: str, selector: Any, s_node: yaml.Node | None) -> None:
            value = _go_item(selector, "namespace")
            if isinstance(value, str) and value:
                found.append((where, _node_item(s_node, "namespace"), value))

        def items(field: str) -> list[tuple[int, Any, yaml.Node | None]]:
            value, nodes = _get(config, field), (field_nodes(node, field) or (None, None))[1]
            return [(i, v, nodes.value[i] if isinstance(nodes, yaml.SequenceNode) and i < len(nodes.value) else None)
                    for i, v in enumerate(value if isinstance(value, list) else [])]  # fmt: skip

        for index, entry, e_node in items("replacements"):
            look(f"replacements[{index}].source", _go_item(entry, "source"), _node_item(e_node, "source"))
            targets, t_nodes = _go_item(entry, "targets"), _node_item(e_node, "targets")
            for t, target in enumerate(targets if isinstance(targets, list) else []):
                t_node = t_nodes.value[t] if isinstance(t_nodes, yaml.SequenceNode) and t < len(t_nodes.value) else None
                look(f"replacements[{index}].targets[{t}].select", _go_item(target, "select"), _node_item(t_node, "select"))
                rejects, r_nodes = _go_item(target, "reject"), _node_item(t_node, "reject")
                for r, reject in enumerate(rejects if isinstance(rejects, list) else []):
                    r_node = r_nodes.value[r] if isinstance(r_nodes, yaml.SequenceNode) and r < len(r_nodes.value) else None
                    look(f"replacements[{index}].targets[{t}].reject[{r}]", reject, r_node)
        for field in ("patchesJson6902", "patches"):
            for index, entry, e_node in items(field):
                look(f"{field}[{index}].target", _go_item(entry, "target"), _node_item(e_node, "target"))
        if not found:
            return
        where, v_node, value = found[0]
        line, column = (v_node.start_mark.line + 1, v_node.start_mark.column + 1) if v_node is not None else (1, 1)
        raise RenderError(
            f"{where}.namespace {value!r} is read differently: this base has no namespace of its own and "
            f"{self.to_user(overlay)} sets namespace {namespace!r}, which kustomize v5.8.0 propagates into its bases "
            "before their replacements and patchesJson6902 run and into what their generators make (only v5.8.0: "
            "v5.8.1 reverted it), so the selector matches other objects there than with the kustomize that renders here; drop the namespace from the selector "
            "or give the base its own namespace", self.to_user(path), line, column,
            argocd_renders=self.gap.argocd_renders())  # fmt: skip

    def differences(self, path: str, config: dict[str, Any], node: yaml.Node | None) -> None:
        """Raise :class:`RenderError` (HL009: Argo CD renders it, not as hooklint's kustomize
        would) at the first field of the kustomization ``path`` (or of a replacements file it
        names) that the renderer's kustomize and Argo CD's read differently (:attr:`gap`,
        :func:`selector_differences`)."""
        assert self.gap is not None
        folder = os.path.dirname(path)
        entries = _get(config, "replacements")
        positions = partial.entry_positions(node, "replacements")
        for index, entry in enumerate(entries if isinstance(entries, list) else []):
            where = f"replacements[{index}]"
            item = (field_nodes(node, "replacements") or (None, None))[1]
            item = item.value[index] if isinstance(item, yaml.SequenceNode) and index < len(item.value) else None
            found = selector_differences(entry, item, where, self.gap)
            file, at = path, positions[index] if index < len(positions) else (1, 1)
            if found is None and isinstance(entry, dict) and isinstance(_get(entry, "path"), str):
                file = os.path.normpath(os.path.join(folder, _get(entry, "path")))
                found = self.replacements_file(file, self.gap)
            if found is not None:
                message, line, column = found
                raise RenderError(message, self.to_user(file), line or at[0], column or at[1],
                                  argocd_renders=self.gap.argocd_renders())  # fmt: skip

    def transformer_differences(self, kustomization: str, file: str | None, config: dict[str, Any], node: yaml.Node,
                                where: tuple[int, int]) -> None:  # fmt: skip
        """:meth:`differences` for a builtin ``ReplacementTransformer`` configured by a
        ``transformers`` entry of ``kustomization`` (written at ``where``): its ``replacements``
        (inline ones, and ``path`` files) as kustomize's ``ReplacementTransformerPlugin.Config``
        reads them; ``file`` is the configuration's file, None for an inline entry (the HL009 then
        goes to the entry)."""
        assert self.gap is not None
        entries = _go_item(config, "replacements")
        items = _node_item(node, "replacements")
        for index, entry in enumerate(entries if isinstance(entries, list) else []):
            item = items.value[index] if isinstance(items, yaml.SequenceNode) and index < len(items.value) else None
            found = selector_differences(entry, item, f"replacements[{index}]", self.gap)
            at_file = file if file is not None else kustomization
            if found is None and isinstance(entry, dict) and isinstance(_get(entry, "path"), str):
                at_file = os.path.normpath(os.path.join(os.path.dirname(kustomization), _get(entry, "path")))
                found = self.replacements_file(at_file, self.gap)
            elif found is not None and file is None:
                found = (found[0], *where)
            if found is not None:
                message, line, column = found
                raise RenderError(message, self.to_user(at_file), line or where[0], column or where[1],
                                  argocd_renders=self.gap.argocd_renders())  # fmt: skip

    def replacements_file(self, file: str, gap: "VersionGap") -> tuple[str, int, int] | None:
        """:func:`selector_differences` of the replacements file ``file`` (one replacement, or a list
        of them, as ``ReplacementTransformer`` reads it), None when it holds none or cannot be read
        here (kustomize then fails on it, or :meth:`reference` already refused it)."""
        try:
            resolved = _resolve(self.root, os.path.realpath(self.root), file, self.to_user)
            if resolved is None or file_problem(resolved, self.max_file_size) is not None:
                return None
            document = go_first_document(read_bytes(resolved, self.max_file_size).decode("utf-8"))
        except (OSError, UnicodeDecodeError, RenderError, Unreadable, YamlTooComplex):
            return None
        value, node = document.value, document.node
        if isinstance(value, dict):
            return selector_differences(value, node, "", gap)
        for index, entry in enumerate(value if isinstance(value, list) else []):
            item = node.value[index] if isinstance(node, yaml.SequenceNode) and index < len(node.value) else None
            found = selector_differences(entry, item, f"[{index}]", gap)
            if found is not None:
                return found
        return None

    def patch_entries(self, path: str, config: dict[str, Any], node: yaml.Node | None) -> None:
        """Record the patch-like entries of the kustomization ``path`` and the objects each needs
        (:func:`hooklint.sources.render.partial.target_names`), in case a partial rendering fails on them."""
        folder = os.path.dirname(path)

        def read(entry: str) -> str | None:
            target = os.path.normpath(os.path.join(folder, entry))
            if is_remote_file(entry) or not within(target, self.root):
                return None
            try:  # by its resolved path, checked inside the repository (an escaping link raises)
                resolved = _resolve(self.root, os.path.realpath(self.root), target, self.to_user)
                if resolved is None or file_problem(resolved, self.max_file_size) is not None:
                    return None
                return read_bytes(resolved, self.max_file_size).decode("utf-8")
            except (OSError, UnicodeDecodeError, RenderError):
                return None

        for field in partial.PATCH_FIELDS:
            value = _get(config, field)
            if not isinstance(value, list):
                continue
            positions = partial.entry_positions(node, field)
            for index, entry in enumerate(value):
                targets = partial.target_names(entry, read, field)
                if targets:
                    line, column = positions[index] if len(positions) == len(value) else (1, 1)
                    self.patches.append(partial.PatchEntry(path, field, index, line, column, targets))

    def entries(self, config: dict[str, Any], field: str) -> list[str]:
        """The strings of the list ``field``; none when it is something else (kustomize says what)."""
        value = self.items(config, field)
        if not all(isinstance(v, str) for v in value):
            self.exact = False
            return []
        return value

    def items(self, config: dict[str, Any], field: str) -> list[Any]:
        """The list ``field`` holds; empty, and the copy made whole, when it holds anything else (a
        number, a mapping): kustomize then fails with its own "cannot unmarshal" message."""
        value = _get(config, field)
        if value is not None and not isinstance(value, list):
            self.exact = False
        return _list(value)

    def reference(self, kustomization: str, field: str, entry: str, directory_ok: bool = False,
                  text: str = "", optional: bool = False) -> str | None:  # fmt: skip
        """Add what ``entry`` of ``field`` (in the file ``kustomization``) names; returns its
        absolute path (None when it names nothing on disk)."""
        target = os.path.normpath(os.path.join(os.path.dirname(kustomization), entry))
        note_input(target)  # looked at, there or not: an input of the result cache (hooklint.results)
        if _needs_network(kustomization, field, entry):
            # kustomize fetches it whatever exists on disk
            raise RenderError(
                f"{field} entry {entry!r} is remote and needs the network; {NETWORK_HINT}",
                self.to_user(kustomization), *_position_of(text, entry), needs_network=True,
                unchecked=REMOTE_ENTRY_UNCHECKED)  # fmt: skip
        if not os.path.lexists(target):
            if not optional:  # kustomize fails on it: say so at the entry's line, in the user's words
                raise RenderError(
                    f"{field} entry {entry!r} names nothing: {self.to_user(target)} does not exist",
                    self.to_user(kustomization), *_position_of(text, entry), names_only=True)  # fmt: skip
            return None
        if not within(target, self.root):
            shown = self.to_user(self.root)
            shown = "the current folder" if shown == "." else shown
            where = (f"the repository ({shown})" if os.path.exists(os.path.join(self.root, ".git"))
                     else f"{shown}, which stands for the repository (no .git above it: run hooklint from the "
                          "repository's top folder, or name that folder)")  # fmt: skip
            raise RenderError(
                f"{field} entry {entry!r} is outside {where}, and a render sees only the repository",
                self.to_user(kustomization), *_position_of(text, entry))  # fmt: skip
        self.contained(target, kustomization)
        why = self.withheld.why(target, self.root)
        if why is not None:  # never handed to kustomize (hooklint.sources.repository.withheld)
            raise RenderError(f"{field} entry {entry!r} names {self.to_user(target)}, which is {why}: hooklint never "
                              "hands it to a renderer", self.to_user(kustomization), *_position_of(text, entry),
                              argocd_renders="Argo CD's kustomize would read its own checkout's, which holds no CI "
                              "credentials (hooklint cannot tell whether it renders there)")  # fmt: skip
        if os.path.isdir(target) and directory_ok:
            if kustomization in self.propagated and target not in self.inherited:
                self.inherited[target] = self.propagated[kustomization]
            self.directory(target)
        else:
            problem = file_problem(target, self.max_file_size)
            if problem is not None:
                raise RenderError(f"{field} entry {entry!r} names {self.to_user(target)}, which is {problem}: not read",
                                  self.to_user(kustomization), *_position_of(text, entry))  # fmt: skip
            self.files.add(target)
        if facts.realpath(target) != os.path.join(facts.realpath(self.root), os.path.relpath(target, self.root)):
            self.exact = False  # a symlink on the way: copy the whole repository
        return target

    def glob_base(self, kustomization: str, app_dir: str, pattern: str) -> None:
        """Check, before ``kustomize edit add component`` globs ``pattern`` (an Application's
        ``kustomize.components`` entry) in ``app_dir``, that the folder it lists stays in the
        repository: its part before the first wildcard is an entry like any other, and a ``..``
        after a wildcard (``*/../../x``) is refused, since no check could follow it."""
        parts = pattern.split("/")
        magic = next((i for i, part in enumerate(parts) if has_meta(part)), len(parts))
        if ".." in parts[magic:]:
            raise RenderError(f"kustomize.components entry {pattern!r} has '..' after a wildcard: name the folder "
                              "it means", self.to_user(kustomization))  # fmt: skip
        base = "/".join(parts[:magic]) or "."
        target = os.path.normpath(os.path.join(app_dir, base))
        note_input(target)
        if not within(target, self.root):
            raise RenderError(f"kustomize.components entry {pattern!r} is outside the repository, and a render sees "
                              "only the repository", self.to_user(kustomization))  # fmt: skip
        self.contained(target, kustomization)

    def contained(self, path: str, kustomization: str, regular: bool = False) -> None:
        """Raise the symlink error (HL007, naming the link) when ``path`` (under root as spelled)
        resolves outside the repository, before hooklint reads it (:func:`_resolve`); with
        ``regular``, also when it is a FIFO, socket or device (reading one could block forever)."""
        if not os.path.lexists(path):
            return
        resolved = _resolve(self.root, facts.realpath(self.root), path, self.to_user)
        if regular and resolved is not None:
            _refuse_special(resolved, path, self.to_user)

    def plugin(self, kustomization: str, field: str, entry: str, text: str, index: int | None = None,
               where: tuple[int, int] = (1, 1)) -> None:  # fmt: skip
        """Refuse a ``transformers`` / ``generators`` / ``validators`` entry that is a KRM function
        (exec, container, starlark), inline or in a file or folder of the repository. Leave out
        (issue 33: the entry, never the application; an omission at ``where``, the entry's item
        ``index``) one that configures a ``HelmChartInflationGenerator`` (kustomize's builtin needs
        ``--enable-helm``, v5.5.0 ``plugin/builtin/helmchartinflationgenerator``, and usually fetches
        the chart: named by its chart repository, never by a URL of its ``valuesInline``) or a
        builtin with a file kustomize fetches (a PatchTransformer's URL ``path``)."""
        label = _plugin_label(field, entry)  # "transformers entry 'fn.yaml'", never an inline entry's text
        at = _position_of(text, entry) if "\n" not in entry else where  # an inline entry: where its item starts
        if index is not None and "\n" not in entry and _needs_network(kustomization, field, entry):
            named = label if _inline_like(entry) else f"{field} entry {url_credentials(entry)!r}"
            self.leave_out(kustomization, field, index, where, f"{named} is remote and needs the network; {FILE_HINT}")
            return
        target = self.reference(kustomization, field, entry, directory_ok=True, text=text, optional=True)
        rewriter, folders = self.rewriter(target) if target is not None and os.path.isdir(target) else (None, [])
        if rewriter is not None and index is not None:  # what kustomize builds there is not the files as written
            built, by = rewriter
            self.leave_out(kustomization, field, index, where, f"{label} is a kustomization whose "
                           f"{by} ({self.to_user(built)}) may rewrite the plugin configurations it builds, so the "
                           "paths and URLs kustomize then reads (and may fetch) are not known before it runs; write "
                           "the plugin configurations with their final paths, without patches, replacements or "
                           "transformers",
                           "Argo CD renders it, fetching any URL the built configurations name")  # fmt: skip
            return
        sources: list[tuple[str, str | None]]  # (file, its text when inline)
        if target is None:
            sources = [(kustomization, entry)]
        elif os.path.isdir(target):  # and every folder its build reads (a base outside it, too)
            found = dict.fromkeys(f for folder in [target, *folders] for f in _tree(folder))
            sources = [(f, None) for f in found if f.endswith((".yaml", ".yml", ".json"))]
        else:
            sources = [(target, None)]
        configured = []
        for source, inline in sources:
            from_file = inline is None
            try:  # every document, composed without typing; valued as go-yaml v2 values it
                if inline is None:
                    self.contained(source, kustomization, regular=True)
                    inline = decode_manifest(read_bytes(source, self.max_file_size))
                nodes = [n for n in yaml.compose_all(inline, Loader=go_composer(inline)) if n is not None]
                objects = [(go_value(n), n) for n in nodes]
            except (OSError, FileRejected, yaml.YAMLError, Unreadable) as error:
                # fail closed: hooklint cannot tell whether it configures a function or names a URL
                why = (problem_of(error) if isinstance(error, (NotRegularFile, FileTooLarge)) else
                       (error.strerror or str(error)) if isinstance(error, OSError) else
                       str(error).splitlines()[0] if str(error) else "invalid YAML")  # fmt: skip
                raise RenderError(
                    f"{label}: hooklint cannot read {self.to_user(source)} as kustomize reads it "
                    f"({why}), so it cannot tell whether it runs a plugin or fetches a URL: kustomize is not run",
                    self.to_user(kustomization), *at) from None  # fmt: skip
            for obj, node in objects:
                # kustomize reads plugin files with go-yaml v3 (explicit keys win over a merge key), not v2:
                # the annotation anywhere in the file, however the keys resolve, makes it a function
                function = _function_of(obj) or ("function" if _FUNCTION_ANNOTATIONS_SET & set(node_strings(node)) else None)
                if function:  # every object is asked first: a function is refused, never left out
                    raise RenderError(
                        f"{label} is {'an' if function[0] in 'aeiou' else 'a'} {function} KRM function{f' ({_kind_of(obj)})' if _kind_of(obj) else ''}: {PLUGIN_HINT}",
                        self.to_user(kustomization), *at)  # fmt: skip
                if self.gap is not None and isinstance(obj, dict) and obj.get("kind") == "ReplacementTransformer":
                    self.transformer_differences(kustomization, source if from_file else None, obj, node,
                                                 at)  # fmt: skip
                configured.append((obj, node))
        for obj, _ in configured:
            if isinstance(obj, dict) and obj.get("kind") == "HelmChartInflationGenerator" and index is not None:
                self.leave_out(kustomization, field, index, where, f"{label} configures a "
                               f"HelmChartInflationGenerator for {_chart_of(obj)}, which needs kustomize build "
                               "--enable-helm (it runs helm and usually fetches the chart); hooklint never passes it: "
                               "make the chart a Helm source of its own",
                               "Argo CD renders it when argocd-cm's kustomize.buildOptions has --enable-helm")  # fmt: skip
                return
        for obj, node in configured:
            # every string of the file, however a reader resolves its keys (a merge key, a tag)
            remote = next(_remote_strings(obj), None) or next(_remote_strings(node_strings(node)), None)
            if remote is not None and index is not None:  # a builtin's own file (PatchTransformer path)
                self.leave_out(kustomization, field, index, where, f"{label} configures "
                               f"{_kind_of(obj) or 'a plugin'} with "
                               f"{url_credentials(remote)!r}, which kustomize fetches: it needs the network; {FILE_HINT}")  # fmt: skip
                return
            if remote is not None:
                raise RenderError(
                    f"{label} configures {_kind_of(obj) or 'a plugin'}"
                    f" with {url_credentials(remote)!r}, which kustomize fetches: it needs the network; {NETWORK_HINT}",
                    self.to_user(kustomization), *at, needs_network=True,
                    unchecked=REMOTE_ENTRY_UNCHECKED)  # fmt: skip


    def rewriter(self, folder: str) -> tuple[tuple[str, str] | None, list[str]]:
        """For a ``transformers`` / ``generators`` / ``validators`` entry naming ``folder``: the
        first kustomization (file, field) that ``folder``'s build reads (its own, and those of the
        folders its ``resources``, ``bases`` and ``components`` name, recursively) with a field
        that may rewrite the objects it outputs (:data:`_REWRITING`, or ``labels`` with
        ``fields``), None when none does or ``folder`` holds no kustomization (plain plugin
        configuration files, read as written); and the kustomization folders read up to there
        (a base outside ``folder`` too: its plugin configurations are checked as well). kustomize v5.5.0 builds such a folder first and
        configures the builtin plugins from the objects it outputs
        (``api/internal/target/kusttarget.go`` ``configureExternalTransformers``), and
        ``PatchTransformer``'s ``path`` or a generator's ``files`` may then be a URL that
        ``api/loader/fileloader.go`` ``Load`` fetches, though no file as written names one.
        Kustomizations hooklint cannot read here are skipped: the walk refuses them; a link out of
        the repository raises RenderError, as in the walk."""
        pending: list[str] = [folder]
        seen: list[str] = []
        while pending:
            here = pending.pop()
            name = _kustomization_name(here) if os.path.isdir(here) and within(here, self.root) else None
            if here in seen or name is None:
                continue
            seen.append(here)
            path = os.path.join(here, name)
            self.contained(here, here)  # never read through a link out of the repository (as the walk refuses it)
            self.contained(path, path, regular=True)
            try:
                config = go_decode(canonical(read_kustomization_file(path, self.max_file_size)[1].value))
            except (OSError, FileRejected, Unreadable, YamlTooComplex, yaml.YAMLError):
                continue
            if not isinstance(config, dict):
                continue
            by = next((f for f in _REWRITING if _get(config, f)), None)
            if by is None and any(isinstance(e, dict) and _get(e, "fields") for e in _list(_get(config, "labels"))):
                by = "labels (with fields)"
            if by is not None:
                return (path, by), seen
            for field in self._DIRS_OR_FILES:
                for entry in _list(_get(config, field)):
                    if isinstance(entry, str) and "\n" not in entry and not _REMOTE.search(entry):
                        pending.append(os.path.normpath(os.path.join(here, entry)))
        return None, seen


#: kustomization fields that may rewrite the objects a build outputs beyond names, namespaces,
#: labels and annotations: a folder of plugin configurations with one is not read as written
#: (:meth:`_Inputs.rewriter`)
_REWRITING = ("patches", "patchesJson6902", "patchesStrategicMerge", "replacements", "transformers", "vars",
              "configurations", "crds")


def _chart_of(config: dict[str, Any]) -> str:
    """What a ``HelmChartInflationGenerator`` configuration inflates, for messages: ``the chart
    NAME VERSION of the chart repository URL`` (``name``/``chartName``, ``version``/``chartVersion``,
    ``repo``/``chartRepoUrl``: kustomize v5.5.0 ``api/types/helmchartargs.go``; the URL without
    credentials), or ``the local chart NAME`` (``chartHome``). Only these fields are read: never
    ``valuesInline``."""
    name = config.get("name") if isinstance(config.get("name"), str) else config.get("chartName")
    version = config.get("version") if config.get("version") is not None else config.get("chartVersion")
    repo = config.get("repo") if isinstance(config.get("repo"), str) else config.get("chartRepoUrl")
    chart = f"the chart {name if isinstance(name, str) else '(unnamed)'}" + (f" {version}" if version is not None else "")
    if isinstance(repo, str) and repo:
        where = "OCI registry" if repo.lower().startswith("oci://") else "chart repository"
        return f"{chart} of the {where} {url_credentials(repo)}"
    return f"{chart} (a local chart)"


def read_kustomization_file(path: str, max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> tuple[str, ReadKustomization]:
    """The text of the kustomization file ``path`` (decoded as go-yaml decodes it: UTF-8, or UTF-16
    with a BOM; the BOM removed; UTF-32 is refused: go-yaml reads its BOM as UTF-16's) and what kustomize reads from it
    (:func:`~hooklint.sources.repository.kustomize_spec.read_kustomization`). Raises what
    :func:`~hooklint.files.read_bytes` raises, :class:`Unreadable` (bytes go-yaml refuses, or a
    kustomization hooklint cannot read as kustomize does) and ``YamlTooComplex``."""
    data = read_bytes(path, max_file_size)
    if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):  # go-yaml's reader knows no UTF-32
        raise Unreadable("the kustomization is UTF-32, which kustomize's YAML reader (go-yaml) does not read; save it "
                         "as UTF-8")  # fmt: skip
    try:
        text = decode_manifest(data)
    except FileRejected as error:
        raise Unreadable(f"invalid Kustomization: {error}") from None
    return text, read_kustomization(text)


def _needs_network(kustomization: str, field: str, entry: str) -> bool:
    """Whether kustomize fetches ``entry`` of ``field`` in the file ``kustomization``: whatever
    exists on disk when kustomize recognises it as remote
    (:func:`~hooklint.sources.repository.kustomize_spec.fetched_by_kustomize`), and a remote-looking entry
    that names nothing on disk. Except a file: kustomize v5.5.0 reads an entry of ``resources``
    (``bases``, ``generators``, ``transformers``, ``validators``) as a file first
    (``api/internal/target/kusttarget.go`` ``accumulateResources`` -> ``accumulateFile`` ->
    ``api/internal/loader/fileloader.go`` ``Load``: anything but ``http(s)://`` is the path joined to
    the kustomization's folder and cleaned, so ``github.com/org/repo`` or ``file:///srv/r.git``
    (``file:/srv/r.git``) names a local file when one is there) and only when that fails asks
    ``FileLoader.New``, which clones a Git URL before it looks for a local folder: a file there is
    local, a folder is not (nor is anything for ``components``, which ``New`` alone loads)."""
    target = os.path.normpath(os.path.join(os.path.dirname(kustomization), entry))
    if field != "components" and not is_remote_file(entry) and os.path.isfile(target):
        return False  # read as a local file (a link followed, as Go's ReadFile does): rendered and checked
    return fetched_by_kustomize(entry, field) or (not os.path.lexists(target) and bool(_REMOTE.search(entry)))


def _remote_strings(value: Any) -> Iterator[str]:
    """Every URL in ``value`` (a builtin plugin's configuration) that kustomize would fetch if a
    string holding it were loaded as a file (:func:`~hooklint.sources.repository.kustomize_spec.is_remote_file`;
    also the part after ``key=`` of a generator's file source), up to the first blank: a message
    quotes the URL, never the rest of the string (a patch's text may carry a Secret's literal:
    attacker trial 17). Deliberately wider than the fields each builtin reads. Each mapping or list
    is visited once, however often YAML aliases repeat it."""
    stack, seen = [value], set()
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            for part in (item.strip(), item.partition("=")[2].strip()):
                if is_remote_file(part):
                    yield part.split(maxsplit=1)[0]
                    break
        elif isinstance(item, (dict, list)) and id(item) not in seen:
            seen.add(id(item))
            stack.extend(item.values() if isinstance(item, dict) else item)


def _function_of(obj: Any) -> str | None:
    """``exec``, ``container`` or ``starlark`` when ``obj`` configures a KRM function plugin."""
    metadata = obj.get("metadata") if isinstance(obj, dict) else None
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    if not isinstance(annotations, dict):
        return None
    for name in _FUNCTION_ANNOTATIONS:
        if name in annotations:
            try:
                spec = yaml.load(str(annotations[name]), Loader=_Loader)
            except yaml.YAMLError:
                return "function"
            kinds = [k for k in ("exec", "container", "starlark") if isinstance(spec, dict) and k in spec]
            return kinds[0] if kinds else "function"
    return None


def _tree(folder: str, inputs: _Inputs | None = None) -> list[str]:
    """Every regular file and symlink under ``folder`` (``.git`` skipped), absolute. A symlink
    makes ``inputs`` inexact (its target must be copied too)."""
    found = []
    for directory, dirs, names in walk_tree(folder):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for name in [d for d in dirs if os.path.islink(os.path.join(directory, d))] + names:
            path = os.path.join(directory, name)
            if os.path.islink(path):
                found.append(path)
                if inputs is not None:
                    inputs.exact = False
            elif os.path.isfile(path):
                found.append(path)
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(directory, d))]
    return found


@dataclass(slots=True)
class _CopyPlan:
    """What the temporary copy holds, every path relative to the resolved repository root:
    ``files`` (copy path -> the resolved regular file to copy), ``folders`` (created, so that a
    link to an empty one resolves) and ``links`` (link path -> the resolved path it points at;
    recreated as a relative link inside the copy). No path of ``files`` or ``folders`` passes
    through a link."""

    files: dict[str, str]
    folders: set[str]
    links: dict[str, str]


def _resolve(root: str, real_root: str, path: str, to_user: Callable[[str], str],
             links: dict[str, str] | None = None) -> str | None:  # fmt: skip
    """``path`` (under ``root`` as spelled, the way a reader reaches it) resolved part by part,
    relative to ``real_root`` (``os.path.realpath(root)``), or None when it does not exist (a
    dangling link on the way, a loop). Every symlink on the way is checked as Argo CD checks one
    (``util/app/path/path.go`` ``CheckOutOfBoundsSymlinks``: absolute, or its target followed part by
    part as text leaves the repository) and by its resolved path (``Path.resolve(strict=True)``,
    which sees a link through another link); a link failing either is a RenderError naming it.
    Each link is recorded in ``links`` (its path with its folder resolved -> its resolved target).

    An answer is remembered for the run (:func:`~hooklint.sources.repository.facts.memo`), with the
    links it recorded: the bases and components of many overlays are resolved once."""
    known = facts.memo("kustomize._resolve")
    key = (root, real_root, path)
    hit = known.get(key)
    if hit is None:
        seen: dict[str, str] = {}
        hit = known[key] = (_resolve_parts(root, real_root, path, to_user, seen), tuple(seen.items()))
    if links is not None:
        links.update(hit[1])
    return hit[0]


def _resolve_parts(root: str, real_root: str, path: str, to_user: Callable[[str], str], links: dict[str, str]) -> str | None:
    """:func:`_resolve`'s work, not remembered."""
    current = real_root
    reached = root
    for part in os.path.relpath(path, root).split(os.sep):
        if part in ("", "."):
            continue
        reached = os.path.join(reached, part)
        candidate = os.path.join(current, part)
        try:
            info = facts.lstat(candidate)
        except OSError:  # missing, or a NUL in the name (no file has one)
            return None
        if not stat.S_ISLNK(info.st_mode):
            current = os.path.normpath(candidate)
            continue
        target = os.readlink(candidate)
        textual, escapes = current, os.path.isabs(target)
        for step in [] if escapes else target.split(os.sep):
            textual = os.path.normpath(os.path.join(textual, step))
            escapes = escapes or not within(textual, real_root)
        if escapes:
            raise RenderError(
                f"illegal filepath in symlink: {to_user(reached)} -> {target} leaves the repository "
                "(Argo CD refuses repositories with out-of-bounds symlinks)", to_user(reached))  # fmt: skip
        try:
            resolved = str(Path(candidate).resolve(strict=True))
        except (OSError, RuntimeError):
            return None  # dangling, or a loop: kustomize finds nothing there
        if not within(resolved, real_root):
            raise RenderError(
                f"illegal filepath in symlink: {to_user(reached)} -> {target} leaves the repository once the "
                "links it passes through are followed; hooklint reads nothing outside the repository",
                to_user(reached))  # fmt: skip
        links[os.path.relpath(candidate, real_root)] = os.path.relpath(resolved, real_root)
        current = resolved
    return current


def _refuse_special(resolved: str, path: str, to_user: Callable[[str], str]) -> None:
    """Raise RenderError when ``resolved`` (``path`` as reached) is not a regular file or folder."""
    mode = os.stat(resolved).st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        kind = "FIFO" if stat.S_ISFIFO(mode) else "socket" if stat.S_ISSOCK(mode) else "device"
        raise RenderError(f"{to_user(path)} is a {kind}, not a regular file: hooklint renders regular files only",
                          to_user(path))  # fmt: skip


def _plan_copy(root: str, files: Iterable[str], to_user: Callable[[str], str],
               withheld: Withheld | None = None) -> _CopyPlan:  # fmt: skip
    """The copy kustomize builds in, for ``files`` (absolute, under ``root`` as spelled): each
    resolved by :func:`_resolve` (an escaping link is a RenderError naming it; a dangling one is
    left out), regular files copied from their resolved path, folders reached (a link to a folder)
    created, links recreated. A FIFO, socket or device is a RenderError: reading one could block
    forever, and no renderer needs one. Git's data and the fetch credentials file (``withheld``,
    :mod:`hooklint.sources.repository.withheld`), as reached or through a link, are left out as if
    absent, and so is every link to them: a ``resources`` or ``envs`` entry naming
    ``../.git/config`` finds nothing (kustomize's own load restrictor does not stop it under
    ``--load-restrictor LoadRestrictionsNone``)."""
    withheld = withheld or Withheld()
    real_root = os.path.realpath(root)
    plan = _CopyPlan({}, set(), {})
    for path in files:
        if withheld.why(path, root) is not None:
            continue
        resolved = _resolve(root, real_root, path, to_user, plan.links)
        if resolved is None:
            continue
        inside = os.path.relpath(resolved, real_root)
        if os.path.isdir(resolved):
            plan.folders.add(inside)
        else:
            _refuse_special(resolved, path, to_user)
            plan.files[inside] = resolved
    plan.links = {link: target for link, target in plan.links.items()
                  if withheld.why(os.path.join(real_root, link), real_root) is None
                  and withheld.why(os.path.join(real_root, target), real_root) is None}  # fmt: skip
    for target in plan.links.values():
        if os.path.isdir(os.path.join(real_root, target)):
            plan.folders.add(target)
    return plan


def _kustomization_name(folder: str) -> str | None:
    """The kustomization file name in ``folder``, in Argo CD's order (``findKustomizeFile``)."""
    return next((n for n in KUSTOMIZATION_NAMES if os.path.exists(os.path.join(folder, n))), None)


#: An ``apiVersion`` or ``kind`` a message may quote: Kubernetes' own spelling (anything else may be a value)
_API_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9.\-]{0,62}(?:/[A-Za-z0-9][A-Za-z0-9.\-]{0,62})?")


def _inline_like(entry: str) -> bool:
    """Whether the ``transformers`` / ``generators`` / ``validators`` entry ``entry`` may be an
    inline plugin configuration rather than a path: kustomize v5.5.0 reads every entry as YAML
    objects first (``api/internal/target/kusttarget.go`` ``configureExternalGenerators`` /
    ``configureExternalTransformers``: ``NewResMapFromBytes``, a path only when that fails), so a
    line break, a flow mapping or list, or ``key: value`` may be one."""
    return "\n" in entry or entry.lstrip().startswith(("{", "[")) or ": " in entry or entry.rstrip().endswith(":")


def _kind_of(obj: Any) -> str | None:
    """The ``kind`` of the plugin configuration ``obj`` when it is spelled as Kubernetes spells one
    (:data:`_API_WORD`), else None: a message names the kind, never a value written there."""
    kind = obj.get("kind") if isinstance(obj, dict) else None
    return kind if isinstance(kind, str) and _API_WORD.fullmatch(kind) else None


def _plugin_label(field: str, entry: str) -> str:
    """How a message names the ``field`` entry ``entry``: ``transformers entry 'fn.yaml'`` for a
    path; for an inline configuration (:func:`_inline_like`) never its text, which may hold a
    secret value (attacker trial 25, B13), but ``an inline transformers entry (apiVersion x/v1, kind
    Evil)`` from its first object, each part only when spelled as Kubernetes spells one."""
    if not _inline_like(entry):
        return f"{field} entry {entry!r}"
    try:
        first = next((n for n in yaml.compose_all(entry, Loader=go_composer(entry)) if n is not None), None)
        obj = go_value(first) if first is not None else None
    except (yaml.YAMLError, Unreadable, ValueError, RecursionError):
        obj = None
    version = obj.get("apiVersion") if isinstance(obj, dict) else None
    parts = [f"apiVersion {version}" if isinstance(version, str) and _API_WORD.fullmatch(version) else "",
             f"kind {_kind_of(obj)}" if _kind_of(obj) else ""]  # fmt: skip
    shown = ", ".join(p for p in parts if p)
    return f"an inline {field} entry" + (f" ({shown})" if shown else "")


def _position_of(text: str, needle: str) -> tuple[int, int]:
    """The 1-based line and column of ``needle`` on the first line of ``text`` holding it ((1, 1)
    when none does)."""
    for number, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return number, line.index(needle) + 1
    return 1, 1


# --- the build ----------------------------------------------------------------------------------


def _build(argv: list[str], renderer: Renderer, root: str, plan: _CopyPlan, app_inside: str,
           options: KustomizeOptions, folder: str, user_file: str, limits: bounded.Limits,
           leaving: _Leaving | None = None) -> Rendering:  # fmt: skip
    """Make the copy ``plan`` describes in a temporary folder, leave out of its kustomizations the
    entries ``leaving`` names, apply ``options``, run kustomize there (in ``app_inside``, the
    application folder resolved, relative to the resolved root) and return the rendering with
    paths relative to the application folder.

    A partial rendering (entries left out) that fails because a patch or replacement found no
    target (:func:`hooklint.sources.render.partial.missing_target`) is retried with the patch-like entries
    that need that object dropped too, in the kustomizations that build on a left-out entry (at most
    :data:`~hooklint.sources.render.partial.MAX_ROUNDS` retries); each drop is said in the omissions."""
    work = tempfile.mkdtemp(prefix="hooklint-kustomize-")
    try:
        src, home = os.path.join(work, "src"), os.path.join(work, "home")
        os.makedirs(home)
        _copy(plan, src)
        app = os.path.normpath(os.path.join(src, app_inside))
        make_dirs(app)
        _check_copy(src)

        def to_user(path: str) -> str:
            return os.path.normpath(os.path.join(folder, os.path.relpath(path, app)))

        edits = _CopyEdits(src, app, leaving)
        notes: dict[int, list[str]] = {}
        # a Component is built as a kustomization listing it (kustomize builds one only that way
        # inside Argo CD's renderings): a wrapper beside the copy, never in the user's tree
        component = leaving is not None and leaving.component
        target = os.path.join(work, "component") if component else app
        for round_ in range(partial.MAX_ROUNDS + 1):
            app_edited = edits.write()
            if component:
                make_dirs(target)
                with open(os.path.join(target, KUSTOMIZATION_NAMES[0]), "w", encoding="utf-8") as handle:
                    handle.write("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\ncomponents:\n"
                                 f"- {go_yaml_scalar(os.path.relpath(app, target))}\n")  # fmt: skip
            requested, same_lines = _prepare(target, options, user_file)
            same_lines = same_lines and not component
            try:
                done = bounded.run([*sandbox.network_isolation(root), *argv, target], cwd=src,
                                   env=_environment(home, root), timeout=limits.timeout, memory=limits.memory,
                                   output=limits.output)  # fmt: skip
            except bounded.Stopped as stopped:  # a limit or a signal: the next run may render it (never cached)
                raise transient(RenderError(f"kustomize build of {os.path.normpath(folder)} {stopped.reason}",
                                            user_file)) from None  # fmt: skip
            except OSError as error:
                raise transient(RenderError(f"could not run {argv[0]}: {error.strerror}", user_file)) from None
            if done.returncode == 0:
                break
            message, named = _map_paths(_one_line(_error_of(done.stderr, done.returncode)), work, to_user)
            if round_ < partial.MAX_ROUNDS and edits.drop_for(partial.missing_target(message), notes):
                continue
            line = re.match(r"invalid Kustomization: yaml: line (\d+):", message)
            message = message if named else f"{user_file}: {message}"
            if leaving is not None and leaving.inputs.left_out:
                count = len(leaving.inputs.left_out)
                message += (f" (hooklint rendered it without the {count} entr{'y' if count == 1 else 'ies'} that "
                            "need the network or --enable-helm, which it leaves out)")  # fmt: skip
            line_number = int(line.group(1)) if line and same_lines and not app_edited else 1
            gap = leaving.inputs.gap if leaving is not None else None
            if gap is not None and _structured_data_target(message, gap):
                raise RenderError(
                    f"{message}: the replacement's fieldPath continues into a string that holds YAML or JSON, which "
                    "kustomize v5.8.0 and later write into (setValueInStructuredData) and older kustomize refuses, "
                    "so whether it renders depends on the kustomize version", user_file, line_number,
                    argocd_renders=gap.argocd_renders())  # fmt: skip
            raise RenderError(message, user_file, line_number)
        omitted = leaving.omissions(notes, edits.alone) if leaving is not None else []
        try:
            documents = _documents(done.stdout, requested, bounded.Tally(limits.objects))
        except bounded.Stopped as stopped:  # render-objects
            raise RenderError(f"kustomize build of {os.path.normpath(folder)} {stopped.reason}", user_file) from None
        if component:  # paths relative to the wrapper: to the Component's folder

            def rebase(path: str) -> str:
                return os.path.relpath(os.path.normpath(os.path.join(target, path)), app)

            for doc in documents:
                doc.origin = rebase(doc.origin) if doc.origin else None
                doc.configured_in = rebase(doc.configured_in) if doc.configured_in else None
                doc.transformations = [Transformation(rebase(t.path), t.kind) for t in doc.transformations]
        return Rendering(renderer, documents, omitted)
    finally:
        remove_tree(work)


class _CopyEdits:
    """The kustomizations of the copy under ``src`` that a partial rendering edits (``leaving``),
    each rewritten from its original text with all its removals so far on every round
    (:func:`hooklint.sources.render.partial.without_entries`); ``app`` is the application folder in the copy."""

    def __init__(self, src: str, app: str, leaving: _Leaving | None):
        self.src = src
        self.leaving = leaving
        self.removals: dict[str, list[tuple[str, int | None]]] = {}
        self.dropped: set[tuple[str, str, int]] = set()
        #: patches of a Component built on its own dropped for a target none of its entries adds
        self.alone: list[tuple[partial.PatchEntry, tuple[str, str]]] = []
        self.originals: dict[str, str] = {}
        name = _kustomization_name(app)
        self.app_file = os.path.join(app, name) if name is not None else None
        #: entries named again: path in the copy -> (field, index, the entry's new text)
        self.replaced: dict[str, list[tuple[str, int, str]]] = {}
        if leaving is not None:
            for kustomization, removals in leaving.inputs.removals.items():
                if kustomization in leaving.inside:
                    self.removals[os.path.join(src, leaving.inside[kustomization])] = list(removals)
            for kustomization, entries in leaving.replaced.items():
                if kustomization in leaving.inside:
                    copied = os.path.join(src, leaving.inside[kustomization])
                    self.replaced[copied] = [(f, i, _as_local(os.path.relpath(os.path.join(src, target),
                                                                              os.path.dirname(copied))))
                                             for f, i, target in entries]  # fmt: skip
        for path in [*self.removals, *self.replaced, *([self.app_file] if self.app_file else [])]:
            if path not in self.originals and os.path.isfile(path):
                self.originals[path] = _original_text(path)

    def write(self) -> bool:
        """Write every edited kustomization (and the application's, as copied, for ``_prepare``);
        True when the application's own kustomization lost entries."""
        for path, text in self.originals.items():
            removals = self.removals.get(path, [])
            try:
                text = _with_entries(text, self.replaced[path]) if path in self.replaced else text
                edited = partial.without_entries(text, removals, _dump) if removals else text
            except (ValueError, yaml.YAMLError) as error:  # the walk read it (.inf: JSON cannot hold it); fail closed
                raise RenderError(f"hooklint cannot leave entries out of {os.path.basename(path)} ({error}): "
                                  "not rendered", "") from None  # fmt: skip
            with open(path, "w", encoding="utf-8", errors="surrogateescape") as handle:
                handle.write(edited)
        return bool(self.app_file and self.removals.get(self.app_file))

    def drop_for(self, missing: tuple[str, str] | None, notes: dict[int, list[str]]) -> bool:
        """Drop the patch-like entries that need ``missing`` (kind, name), in kustomizations
        that build on a left-out entry, and add a note to each omission below them (``notes``: index
        in ``left_out`` -> notes). False when there is nothing to drop (the failure stands)."""
        leaving = self.leaving
        if missing is None or leaving is None or not (leaving.inputs.left_out or leaving.component):
            return False
        left = {entry.kustomization for entry in leaving.inputs.left_out}
        dropped = False
        for patch in leaving.inputs.patches:
            key = (patch.kustomization, patch.field, patch.index)
            below = leaving.below(patch.kustomization)
            if missing not in patch.targets or key in self.dropped or patch.kustomization not in leaving.inside \
                    or not (below & left or leaving.component):  # fmt: skip
                continue
            self.dropped.add(key)
            path = os.path.join(self.src, leaving.inside[patch.kustomization])
            if path not in self.originals:
                self.originals[path] = _original_text(path)
            self.removals.setdefault(path, []).append((patch.field, patch.index))
            where = partial.mark_path(os.path.relpath(patch.kustomization, leaving.app))
            note = f"the {patch.field} entry at {where}:{patch.line}:{patch.column} (it needs {missing[0]} {missing[1]})"
            below_left = [i for i, entry in enumerate(leaving.inputs.left_out) if entry.kustomization in below]
            for i in below_left:
                notes.setdefault(i, []).append(note)
            if not below_left:
                self.alone.append((patch, missing))
            dropped = True
        return dropped


def _as_local(entry: str) -> str:
    """``entry`` (a relative path) written so kustomize reads it as a path: ``./`` before one that
    would read as a Git URL or an ``http(s)://`` file (``github.com/org/repo``, ``file:/srv/r.git``)."""
    return f"./{entry}" if fetched_by_kustomize(entry, "resources") else entry


def _with_entries(text: str, entries: list[tuple[str, int, str]]) -> str:
    """The kustomization ``text`` with item ``index`` of each ``field`` of ``entries`` written as
    the new entry: in place where every such item is a scalar alone on its line of a block list (the
    other lines, and so kustomize's line numbers, unchanged), else the value kustomize reads written
    again."""
    read = read_kustomization(text)
    lines = text.splitlines(keepends=True)
    spliced = []
    for name, index, entry in entries:
        found = partial.field_nodes(read.node, name)
        value = found[1] if found is not None else None
        item = value.value[index] if isinstance(value, yaml.SequenceNode) and not value.flow_style \
            and index < len(value.value) else None  # fmt: skip
        if not (read.plain and not read.more and isinstance(item, yaml.ScalarNode)
                and item.start_mark.line == item.end_mark.line):  # fmt: skip
            break
        spliced.append((item.start_mark.line, item.start_mark.column, item.end_mark.column, entry))
    else:
        for number, first, after, entry in spliced:
            lines[number] = lines[number][:first] + go_yaml_scalar(entry) + lines[number][after:]
        return "".join(lines)
    config = read.value
    for name, index, entry in entries:
        for key in [k for k in config if go_fold(str(k)) == go_fold(name)]:
            if isinstance(config[key], list) and index < len(config[key]):
                config[key][index] = entry
    return _dump(config)


def _original_text(path: str) -> str:
    """The text of a kustomization of the copy, decoded as go-yaml decodes it (UTF-16 with a BOM
    included, as the walk read it); bytes it refuses kept as they were (surrogateescape), for
    kustomize to refuse."""
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        return decode_manifest(data)
    except FileRejected:
        return data.decode("utf-8", errors="surrogateescape")


def _dump(config: Any) -> str:
    """A kustomization written again, in the form go-yaml v2 (kustomize's ``sigs.k8s.io/yaml``)
    reads back as it was read: JSON (:func:`~hooklint.yamlio.go_yaml_text`; a PyYAML dump with
    go-typed strings quoted folded a NEL into a space). Raises ValueError for a value JSON cannot
    hold (``.inf``), on which kustomize's ``YAMLToJSON`` fails too."""
    return go_yaml_text(config)


def _copy(plan: _CopyPlan, dest: str) -> None:
    """Make under ``dest`` the folders, files and links of ``plan``; every link points, relatively,
    straight at its resolved target inside ``dest``."""
    os.makedirs(dest, exist_ok=True)
    for inside in sorted(plan.folders):
        make_dirs(os.path.join(dest, inside))
    for inside, source in sorted(plan.files.items()):
        target = os.path.join(dest, inside)
        make_dirs(os.path.dirname(target))
        shutil.copyfile(source, target, follow_symlinks=True)
    for inside, resolved in sorted(plan.links.items()):
        link = os.path.join(dest, inside)
        make_dirs(os.path.dirname(link))
        os.symlink(os.path.relpath(os.path.join(dest, resolved), os.path.dirname(link)), link)


def _check_copy(dest: str) -> None:
    """Check the copy kustomize is given: only folders, regular files and links that resolve
    inside it. Raises RenderError otherwise (a fault of hooklint's, never the user's input)."""
    real = os.path.realpath(dest)
    for folder, dirs, names in walk_tree(dest):
        for name in dirs + names:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                try:
                    resolved = str(Path(path).resolve(strict=True))
                except (OSError, RuntimeError):
                    resolved = ""
                if not resolved or not within(resolved, real):
                    raise RenderError(f"internal error: the copy's link {os.path.relpath(path, dest)} leaves it", "")
            elif not (stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode)):
                raise RenderError(f"internal error: the copy holds {os.path.relpath(path, dest)}, not a file", "")


def _prepare(app: str, options: KustomizeOptions, user_file: str) -> tuple[set[str], bool]:
    """Apply ``options`` to the copied kustomization of ``app`` and ask kustomize for origins.
    Returns the ``buildMetadata`` the user's own kustomization asked for, and whether the file's
    lines are unchanged (so kustomize's line numbers are the user's)."""
    name = _kustomization_name(app)
    if name is None:
        return set(), True  # kustomize says so
    path = os.path.join(app, name)
    try:  # as kustomize reads it (the walk refused the user's file when hooklint could not)
        text, read = read_kustomization_file(path, 1 << 62)
    except (OSError, Unreadable, yaml.YAMLError):
        return set(), True  # kustomize says what is wrong, at the user's line
    config, node = read.value, read.node
    try:
        changed = apply_options(config, options, app, name)
    except RenderError as error:
        raise RenderError(error.message, user_file, argocd_renders=error.argocd_renders) from None
    existing = _get(config, "buildMetadata")
    requested = {m for m in _list(existing) if isinstance(m, str)}
    if (not changed and existing is None and not node.flow_style and not text.rstrip().endswith("...") and read.plain
            and not read.more):  # fmt: skip  # appended lines would land in a later document
        text += ("" if text.endswith("\n") or not text else "\n") + "buildMetadata:\n"
        text += "".join(f"- {m}\n" for m in BUILD_METADATA)
        same_lines = True
    else:
        kept = list(existing) if isinstance(existing, list) else []
        _set(config, "buildMetadata", kept + [m for m in BUILD_METADATA if m not in kept])
        try:
            text = _dump(config)
        except ValueError as exc:
            raise RenderError(f"{name} holds {exc}: kustomize cannot read it either", user_file) from None
        same_lines = False
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return requested, same_lines


def _environment(home: str, repository: str | None = None) -> dict[str, str]:
    """The whole environment kustomize runs with (:func:`hooklint.sources.sandbox.child_environment`):
    no cluster, no proxy, git allowed no protocol, ``PATH`` without the repository; and ``GOGC=400``
    (Go's default is 100): its heap may grow to five times what it holds between collections, never
    beyond the ``GOMEMLIMIT`` :func:`hooklint.sources.bounded.run` sets under the memory limit, which
    takes a sixth of ``kubectl kustomize``'s CPU time away (measured on 40 corpus kustomizations:
    2.46 s against 1.92 s) for a few MB more of memory."""
    return {**sandbox.child_environment(home, repository), "GOGC": "400"}


def _version_output(argv: list[str]) -> str:
    """What ``argv`` (a renderer's version command, by absolute path) prints, run as a build is run
    (``PATH`` without the current folder's programs)."""
    home = tempfile.mkdtemp(prefix="hooklint-kustomize-")
    here = os.getcwd()
    try:
        done = subprocess.run([*sandbox.network_isolation(here), *argv], env=_environment(home, here),
                              capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
                              check=False)  # fmt: skip
        return done.stdout + done.stderr
    except (OSError, subprocess.TimeoutExpired):
        return ""
    finally:
        remove_tree(home)


_STRUCTURED_TARGET = re.compile(r'in replacement target: wrong node kind: expected MappingNode but got ScalarNode: '
                                r'node contents: (".*")$')  # fmt: skip


def _structured_data_target(message: str, gap: VersionGap) -> bool:
    """Whether ``message`` (kustomize's one-line error) is a replacement whose target fieldPath
    continues into a string holding a YAML or JSON mapping, which the renderer's kustomize refuses
    and Argo CD's writes into (:data:`REPLACEMENT_STRUCTURED_DATA`; renderer older, Argo CD's not)."""
    if not (gap.version is None or gap.version < REPLACEMENT_STRUCTURED_DATA) \
            or gap.argocd_kustomize < REPLACEMENT_STRUCTURED_DATA:  # fmt: skip
        return False
    found = _STRUCTURED_TARGET.search(message)
    if found is None:
        return False
    try:
        contents = json.loads(found.group(1))  # Go's %q of the node's value
        return isinstance(contents, str) and isinstance(yaml.safe_load(contents), dict)
    except (ValueError, yaml.YAMLError):
        return False


def _error_of(stderr: str, returncode: int) -> str:
    """kustomize's error from its stderr: the ``err="..."`` of kubectl's log line (klog), or the
    lines of its multi-line form (``err=<``, each line after a tab, to a line `` >``: an error
    holding a line break), never the log line's time and process id; else the text from the
    ``Error: `` line on, without ``# Warning`` lines."""
    all_lines = stderr.splitlines()
    for index, line in enumerate(all_lines):
        if re.search(r'"command failed" err=<\s*$', line):
            body = []
            for more in all_lines[index + 1:]:
                if more.strip() == ">":
                    break
                body.append(more[1:] if more.startswith("\t") else more)
            return "\n".join(body)
        quoted = re.search(r'"command failed" err=("(?:[^"\\]|\\.)*")', line)
        if quoted:
            try:
                return json.loads(quoted.group(1))
            except ValueError:
                return quoted.group(1)[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    lines = [line for line in stderr.splitlines() if line.strip() and not line.startswith("# Warning")]
    start = next((i for i, line in enumerate(lines) if line.startswith("Error:")), 0)
    return "\n".join(lines[start:]) or f"kustomize exited with status {returncode}"


#: A Go heap address, as kustomize prints a pointer (``merging from generator &{0xc000a1c750
#: 0xc000547f00}``): different on every run, so a message holding one would change each time.
_GO_POINTER = re.compile(r"\b0xc[0-9a-f]{9,}\b")


def _one_line(message: str) -> str:
    """kustomize's error on one line, without its ``Error:`` prefix and with Go heap addresses
    written ``0x…`` (:data:`_GO_POINTER`): the same failure says the same thing on every run."""
    message = " ".join(part.strip() for part in message.splitlines() if part.strip())
    return _GO_POINTER.sub("0x…", re.sub(r"^(?:Error:\s*)+", "", message))


def _map_paths(message: str, work: str, to_user: Callable[[str], str]) -> tuple[str, bool]:
    """``message`` with every path in the temporary folder ``work`` replaced by the user's path,
    and whether it named any."""
    named = False

    def user(found: re.Match) -> str:
        nonlocal named
        named = True
        relative = os.path.relpath(found.group(0), found.group(1))
        return to_user(os.path.join(work, relative))

    for prefix in sorted({work, os.path.realpath(work)}, key=len, reverse=True):
        message = re.sub("(" + re.escape(prefix) + r")(?:/[^\s'\":,]*)?", user, message)
    return message, named


# --- the output ---------------------------------------------------------------------------------


def _documents(output: str, requested: set[str], tally: bounded.Tally | None = None) -> list[RenderedDocument]:
    """The documents of kustomize's ``output`` with origins (paths as kustomize wrote them,
    relative to the application folder) and the origin annotations the user did not ask for cut.
    Each is counted in ``tally`` as it is split off, before any is parsed (bounded.Stopped past
    ``render-objects``)."""
    strip = [
        annotation
        for annotation, option in ((ORIGIN_ANNOTATION, "originAnnotations"), (TRANSFORMATIONS_ANNOTATION, "transformerAnnotations"))
        if option not in requested
    ]  # fmt: skip
    documents = []
    for text in _split(output, tally):
        metadata = _metadata(text)
        annotations = (metadata.get("annotations") if isinstance(metadata, dict) else None) or {}
        origin = _yaml_value(annotations.get(ORIGIN_ANNOTATION))
        origin = origin if isinstance(origin, dict) else {}
        steps = _yaml_value(annotations.get(TRANSFORMATIONS_ANNOTATION))
        transformations = [
            Transformation(os.path.normpath(step["configuredIn"]), str((step.get("configuredBy") or {}).get("kind", "")))
            for step in (steps if isinstance(steps, list) else [])
            if isinstance(step, dict) and isinstance(step.get("configuredIn"), str)
        ]  # fmt: skip
        path, configured_in = origin.get("path"), origin.get("configuredIn")
        documents.append(
            RenderedDocument(
                strip_annotations(text, strip),
                origin=os.path.normpath(path) if isinstance(path, str) and path else None,
                configured_in=os.path.normpath(configured_in) if isinstance(configured_in, str) else None,
                transformations=transformations,
            )
        )
    return documents


def _metadata(text: str) -> Any:
    """The ``metadata`` of one document of kustomize's output, or None. Only its ``metadata:``
    block is parsed (kustomize prints block mappings, each top-level key at the start of a line:
    the same lines :func:`strip_annotations` reads), not the whole object, which the manifest
    reader parses afterwards anyway; the whole document when that block does not read as one."""
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip() == "metadata:"), None)
    if start is not None:
        end = next((i for i in range(start + 1, len(lines)) if _indent(lines[i]) == 0 and lines[i][0] != "#"),
                   len(lines))  # fmt: skip
        found = _yaml_value("".join(lines[start:end]))
        if isinstance(found, dict) and len(found) == 1:
            return found.get("metadata")
    found = _yaml_value(text)  # nested too deep for hooklint: parsing the document says so (HL001)
    return found.get("metadata") if isinstance(found, dict) else None


def _yaml_value(text: Any) -> Any:
    try:
        return yaml.load(text, Loader=_Loader) if isinstance(text, str) else None
    except yaml.YAMLError:
        return None


#: A ``---`` line of kustomize's output: ``---`` after the start or a line break (any that
#: ``str.splitlines`` knows), then a line end or the end.
_SEPARATOR = re.compile(r"(?:\A|(?<=[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]))---(?:\r\n|\r|\n|\Z)")


def _split(output: str, tally: bounded.Tally | None = None) -> list[str]:
    """kustomize's output as document texts, without the ``---`` separators (kustomize prints
    only block mappings, so a ``---`` line is always a separator); empty ones left out, each
    other counted in ``tally``. Read piece by piece: no list of every line of a large output."""
    documents: list[str] = []
    start = 0
    for separator in _SEPARATOR.finditer(output):
        _keep(output[start : separator.start()], documents, tally)
        start = separator.end()
    _keep(output[start:], documents, tally)
    return documents


def _keep(text: str, documents: list[str], tally: bounded.Tally | None) -> None:
    if text.strip():
        if tally is not None:
            tally.add()
        documents.append(text)


def strip_annotations(text: str, keys: Iterable[str]) -> str:
    """``text`` (one document as kustomize prints it: block style) without the entries of
    ``metadata.annotations`` named ``keys`` (each entry's line and its continuation lines, as a
    block scalar's), and without ``annotations:`` when no entry is left; every other byte stays."""
    keys = tuple(keys)
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip() == "metadata:"), None)
    if start is None or not keys:
        return text
    child = header = None
    for i in range(start + 1, len(lines)):
        indent = _indent(lines[i])
        if indent is None:
            continue
        if indent == 0:
            break
        child = indent if child is None else child
        if indent == child and lines[i].strip() == "annotations:":
            header = i
            break
    if header is None:
        return text
    assert child is not None  # the header is looked for only once child is set
    entries: list[list[int]] = []
    entry_indent = None
    for i in range(header + 1, len(lines)):
        indent = _indent(lines[i])
        if indent is None:
            if entries:
                entries[-1].append(i)
            continue
        if indent <= child:
            break
        entry_indent = indent if entry_indent is None else entry_indent
        if indent == entry_indent:
            entries.append([i])
        elif indent > entry_indent and entries:
            entries[-1].append(i)
        else:
            break
    drop = {i for entry in entries for i in entry if lines[entry[0]].strip().startswith(tuple(f"{k}:" for k in keys))}
    if drop and len(drop) == sum(len(e) for e in entries):
        drop.add(header)
    return "".join(line for i, line in enumerate(lines) if i not in drop)


def _indent(line: str) -> int | None:
    """The indentation of ``line``; None for a blank line."""
    stripped = line.lstrip(" ")
    return None if not stripped.strip() else len(line) - len(stripped)


def _in_user_terms(rendering: Rendering, folder: str) -> Rendering:
    """``rendering`` (paths relative to the application folder, as cached) with every path
    joined to ``folder`` as the user spelled it."""

    def user(path: str | None) -> str | None:
        return None if path is None else os.path.normpath(os.path.join(folder, path))

    def join(path: str) -> str:
        return os.path.normpath(os.path.join(folder, path))

    return Rendering(
        rendering.renderer,
        [
            RenderedDocument(d.text, user(d.origin), d.origin_line, user(d.configured_in),
                             [Transformation(user(t.path) or "", t.kind) for t in d.transformations])  # fmt: skip
            for d in rendering.documents
        ],
        [
            Omission(partial.user_paths(o.message, join), join(o.path), o.line, o.column, o.argocd_renders,
                     partial.user_paths(o.unchecked, join))  # fmt: skip
            for o in rendering.omitted
        ],
    )
