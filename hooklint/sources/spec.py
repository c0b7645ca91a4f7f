"""An Argo CD Application's source as hooklint reads it: the record the application map
(:mod:`hooklint.sources.appmap`) hands to the render stage (:mod:`hooklint.sources.render`), so a
renderer knows the options, release name, namespace and value files Argo CD would render with,
without importing how Applications are found.

The fields mirror ``ApplicationSource`` of ``pkg/apis/application/v1alpha1/types.go``, resolved as the
repo server resolves them (path inside the repository, ``.argocd-source*.yaml`` merged). A source
Argo CD fetches from elsewhere is a :class:`RemoteSource` (issue 33). :func:`envsubst` is Argo CD's
``Env.Envsubst``, which both the application map (Helm value files and parameters) and the kustomize
renderer (images, labels, annotations) apply with a source's build environment.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Mapping

from hooklint.text import url_credentials
from hooklint.yamlio import Map, Seq

#: The kinds of :class:`RemoteSource`: a chart of a Helm chart repository (``chart`` with an
#: ``http(s)://`` ``repoURL``), an OCI registry (``oci://``: a chart, or an OCI artifact's
#: ``path``; or a chart's ``repoURL`` without a scheme, ``ghcr.io/acme/charts``:
#: :func:`hooklint.sources.appmap.applications.is_helm_oci_repo`), a Git repository other than this one, and a scheme hooklint does not know (a Helm
#: plugin's ``s3://``, ``gs://``...).
CHART_REPOSITORY, OCI_REGISTRY, OTHER_GIT, UNKNOWN_SCHEME = "chart-repo", "oci", "git", "unknown"
#: The kind of :class:`RemoteSource` that is a folder of this repository at a ``targetRevision``
#: other than the checked-out commit (a commit, a tag, a pull request's ref: issue 32): Argo CD
#: renders that revision, hooklint holds only the working tree.
PINNED_REVISION = "revision"


#: The build environment variables whose value hooklint cannot know offline (the commit Argo CD
#: syncs); a value file naming one stays as written and is reported as not read (HL009).
REVISION_VARIABLES = frozenset({"ARGOCD_APP_REVISION", "ARGOCD_APP_REVISION_SHORT", "ARGOCD_APP_REVISION_SHORT_8"})
_SHELL_SPECIAL = frozenset("*#$@!?-0123456789")


def envsubst(text: str, env: Mapping[str, str], keep: frozenset[str] = REVISION_VARIABLES,
             seen: set[str] | None = None) -> str:  # fmt: skip
    """``text`` with ``$NAME`` and ``${NAME}`` replaced as Argo CD's ``Env.Envsubst``
    (``pkg/apis/application/v1alpha1/types.go``) replaces them with Go's ``os.Expand``: a name not
    in ``env`` becomes empty, ``$$`` is ``$``, ``${}`` is dropped, and a ``$`` followed by no name
    stays. A name in ``keep`` (by default ``REVISION_VARIABLES``: hooklint cannot know them) is
    kept as written. Every name read (``$$`` is none) is added to ``seen`` when given, so that a
    caller knows exactly which variables the value depends on."""
    out: list[str] = []
    i = j = 0
    while j < len(text):
        if text[j] != "$" or j + 1 >= len(text):
            j += 1
            continue
        out.append(text[i:j])
        rest = text[j + 1:]
        if rest[0] == "{":
            if len(rest) > 2 and rest[1] in _SHELL_SPECIAL and rest[2] == "}":
                name, width = rest[1], 3
            else:
                close = rest.find("}", 1)
                name, width = ("", 1) if close < 0 else ("", 2) if close == 1 else (rest[1:close], close + 1)
        elif rest[0] in _SHELL_SPECIAL:
            name, width = rest[0], 1
        else:
            width = 0
            while width < len(rest) and (rest[width] == "_" or rest[width].isascii() and rest[width].isalnum()):
                width += 1
            name = rest[:width]
        if name == "" and width == 0:
            out.append("$")
        elif name == "$":
            out.append("$")
        else:
            if name and seen is not None:
                seen.add(name)
            if name in keep:
                out.append(text[j:j + 1 + width])
            elif name:
                out.append(env.get(name, ""))
        j += width + 1
        i = j
    out.append(text[i:])
    return "".join(out)


@dataclass(frozen=True, slots=True)
class ApplicationSource:
    """One source of one Argo CD Application that points into this repository.

    ``name`` is the Application's ``metadata.name``; ``manifest`` and ``line`` where its source is
    written (for an Application rendered by another one's Helm chart or kustomization, the
    template or resource file and line it comes from); ``folder`` the source's ``path`` as a path
    the user can open (joined to the repository root, a symbolic link inside the repository
    resolved as ``util/app/path`` ``Path`` does, relative to the current directory when it is
    inside it); ``source_type`` the explicit type (``helm``, ``kustomize``, ``directory``,
    ``plugin``) or None (the folder decides); ``options`` the ``helm`` / ``kustomize`` /
    ``directory`` mapping (plain Python values, ``.argocd-source*.yaml`` merged in) or None;
    ``namespace`` the destination namespace; ``problem`` why it cannot be rendered at all, if so."""

    name: str
    manifest: str
    line: int
    folder: str
    source_type: str | None
    options: Any = None
    namespace: str | None = None
    #: Why Argo CD cannot render this source at all (its path is missing or leaves the repository).
    problem: str | None = None
    #: The ``problem`` is hooklint's, not Argo CD's: Argo CD renders the source, hooklint cannot tell
    #: how (an instance name that depends on where Argo CD runs): HL009, not HL007.
    undecided: bool = False
    #: ``spec.project`` and the destination cluster (``server``, else ``name``).
    project: str | None = None
    server: str | None = None
    #: Where the source is written in the Application: ``spec.source`` or ``spec.sources[N]``.
    field: str = "spec.source"
    #: What made this Application when it is not written as YAML: ``Application NAME (FILE:LINE)``
    #: of the parent whose rendering holds it, or ``the Helm chart FILE`` / ``the kustomization
    #: FILE`` that no Application of this repository deploys.
    generated_by: str | None = None
    #: The files whose naming brings this Application into a run besides ``manifest`` (the parent's
    #: ``Chart.yaml`` or kustomization for a rendered one).
    scope: tuple[str, ...] = ()
    #: The ``.argocd-source.yaml`` / ``.argocd-source-NAME.yaml`` files merged into ``options``.
    overrides: tuple[str, ...] = ()
    #: Where each entry of ``options["valueFiles"]`` is written, ``(file, line, column)`` (1-based):
    #: its item in the Application's ``helm.valueFiles`` (or in the ``.argocd-source*.yaml`` file
    #: whose list replaced it); the source's own line for an Application rendered by another one.
    value_file_places: tuple[tuple[str, int, int], ...] = ()
    #: Set for a source Argo CD's repo server fetches from elsewhere (a chart repository, an OCI
    #: registry, another Git repository): hooklint does not render it, and ``folder`` is empty.
    remote: "RemoteSource | None" = None
    #: ``($name, targetRevision, what it names)`` of each ``ref`` source of this repository at
    #: another revision than the checked-out commit (issue 32): its ``$name/...`` value files are
    #: left out (HL009), never read from the working tree.
    pinned_refs: tuple[tuple[str, str, str], ...] = ()
    #: Where the source's entry is written, ``(line, column)`` (1-based): its ``repoURL:`` key;
    #: ``(line, 1)`` for an Application rendered by another one or generated. Where HL009 goes
    #: for what Argo CD renders of it and hooklint does not (jsonnet, a plugin: issue 33).
    entry: tuple[int, int] = (0, 0)
    #: Where its ``path:`` key is written, ``(line, column)`` (1-based; ``(line, 1)`` as ``entry``
    #: for a rendered or generated Application): HL009 of a path in a git submodule goes there.
    path_entry: tuple[int, int] = (0, 0)
    #: ``(value, key)``: the secret values the ApplicationSet generator that made this Application
    #: carries (its parameters under keys that name a secret:
    #: :func:`~hooklint.sources.appmap.applicationsets.secret_parameters`); never printed, wherever the
    #: template copies them (:attr:`~hooklint.sources.render.redact.SecretValues.carried`).
    secrets: tuple[tuple[str, str], ...] = ()
    #: The build environment Argo CD's repo server gives this source (``reposerver/repository/repository.go``
    #: ``newEnv``; :func:`hooklint.sources.appmap.applications.build_env`), ``(name, value)`` pairs: what
    #: :func:`envsubst` substitutes into the options Argo CD substitutes it into. The revision variables
    #: (:data:`REVISION_VARIABLES`) are never among them: hooklint does not know the commit.
    env: tuple[tuple[str, str], ...] = ()
    #: Empty for the source Argo CD renders once it has stored the Application normalized (the
    #: steady state); else what differs in the rendering of its first comparison, made before the
    #: controller drops an empty source type (:data:`hooklint.sources.appmap.applications.FIRST_COMPARISON`).
    view: str = ""
    #: Set for the stand-in of a folder no Application of this repository deploys whose
    #: ``.argocd-source.yaml`` Argo CD merges into any Application that deploys it
    #: (:func:`hooklint.sources.appmap.applications.stand_in_source`): ``manifest`` is that file,
    #: ``name`` the folder's name (the release name hooklint guesses without an Application).
    stand_in: bool = False

    def label(self) -> str:
        """``Application NAME (FILE:LINE)`` for messages; ``Application NAME (FILE:LINE, VIEW)``
        for the rendering of its first comparison (:attr:`view`); ``any Application that deploys
        FOLDER/ (FILE:1)`` for a :attr:`stand_in`."""
        if self.stand_in:
            return f"any Application that deploys {self.folder.rstrip('/') or '.'}/ ({self.manifest}:{self.line})"
        view = f", {self.view}" if self.view else ""
        return f"Application {self.name} ({self.manifest}:{self.line}{view})"

    def origin(self) -> str:
        """:meth:`label`, with what made it when it is not written as YAML."""
        return self.label() + (f", rendered by {self.generated_by}" if self.generated_by else "")


@dataclass(frozen=True, slots=True)
class RemoteSource:
    """One source of an Application that Argo CD's repo server fetches from elsewhere and
    hooklint does not render (issue 33): what a fetch step needs to render it like a local source.

    ``kind`` is one of :data:`CHART_REPOSITORY`, :data:`OCI_REGISTRY`, :data:`OTHER_GIT`,
    :data:`UNKNOWN_SCHEME`, or :data:`PINNED_REVISION` (this repository, at another revision);
    ``repo_url``, ``chart``, ``path`` and ``target_revision`` as written
    (None when absent); ``index`` the source's position in ``spec.sources`` (None for
    ``spec.source``); ``line`` and ``column`` (1-based) where its entry is written: the ``chart:``
    key for a chart, the ``targetRevision:`` key for :data:`PINNED_REVISION`, else the ``repoURL:``
    key (for an Application rendered by another one or
    generated by an ApplicationSet, the template's line, column 1); ``helm`` the source's ``helm``
    options as plain values (``valueFiles`` as written, ``$ref/...`` kept) or None; ``value_files``
    the ``$ref`` value files read from this repository, as paths relative to its top folder.

    Argo CD: a source with ``chart`` is a Helm repository source (``ApplicationSource.IsHelm``),
    one whose ``repoURL`` starts with ``oci://`` an OCI one (``IsOCI``), any other a Git source
    (``pkg/apis/application/v1alpha1/types.go``); the repo server fetches each
    (``reposerver/repository/repository.go`` ``runRepoOperation``)."""

    kind: str
    repo_url: str
    chart: str | None
    path: str | None
    target_revision: str | None
    index: int | None
    line: int
    column: int
    helm: Any = None
    value_files: tuple[str, ...] = ()
    #: For :data:`PINNED_REVISION`: what ``target_revision`` names and that it is not the
    #: checked-out commit (``a commit, not the checked-out commit (0522ac301222)``).
    pinned: str = ""

    def describe(self) -> str:
        """What the source is, for messages, its URL without credentials: ``the chart cert-manager
        v1.14.0 of the chart repository https://charts.jetstack.io``."""
        url = url_credentials(self.repo_url)
        revision = f" {self.target_revision}" if self.target_revision else ""
        at = f" at {self.target_revision}" if self.target_revision else ""
        path = f" (path {self.path})" if self.path else ""
        if self.kind == CHART_REPOSITORY:
            return f"the chart {self.chart}{revision} of the chart repository {url}"
        if self.kind == OCI_REGISTRY:
            what = f"the chart {self.chart}{revision}" if self.chart else f"the OCI artifact {url}{at}{path}"
            return f"{what} of the OCI registry {url}" if self.chart else what
        if self.kind == OTHER_GIT:
            return f"the Git repository {url}{at}{path}, not this one"
        if self.kind == PINNED_REVISION:
            return f"the folder {self.path} of this repository at {self.target_revision} ({self.pinned})"
        what = f"the chart {self.chart}{revision} of {url}" if self.chart else f"{url}{at}{path}"
        return f"{what}, whose scheme hooklint does not know"


def document_objects(value: Any) -> list[Any]:
    """The objects Argo CD takes from one parsed document ``value``, as
    :func:`hooklint.model.manifests_from_document` does for linting
    (``reposerver/repository/repository.go`` ``GenerateManifests``, v3.5.1, lines 1786-1801): each
    mapping item when ``items`` is a sequence, whatever the kind (``Unstructured.IsList``,
    ``EachListItem``: one level, a list inside an item stays an item); nothing for a "null list"
    (``items: null`` with no ``spec`` and no ``status``: ``isNullList``); else the document itself.
    So an Application or ApplicationSet written as an item of a ``kind: List`` is applied, and is
    one of the map, like one written on its own (attacker trial 8, F4)."""
    if not isinstance(value, Map):
        return [value]
    items = value.get("items")
    if isinstance(items, Seq):
        return [item for item in items if isinstance(item, Map)]
    if items is None and "items" in value and "spec" not in value and "status" not in value:
        return []
    return [value]


#: The fields of a ``spec.sourceHydrator.drySource`` (``DrySource``, ``pkg/apis/application/v1alpha1/types.go``
#: v3.5.1): the API server's structural schema drops any other key (``chart``, ``ref``).
DRY_SOURCE_FIELDS = ("repoURL", "targetRevision", "path", "helm", "kustomize", "directory", "plugin")
#: The field name of a hydrated Application's dry source.
DRY_SOURCE = "spec.sourceHydrator.drySource"


def rendered_sources(spec: Any) -> list[tuple[str, Map]]:
    """The sources of the Application spec ``spec`` whose manifests Argo CD renders from a
    repository, as ``(field, mapping)``: ``spec.source`` and each mapping of ``spec.sources``,
    or, when ``spec.sourceHydrator`` is set (a mapping: ``null`` is a nil pointer), only its
    ``drySource`` (:data:`DRY_SOURCE`), reduced to :data:`DRY_SOURCE_FIELDS`.

    A hydrated Application ignores ``source`` and ``sources`` (``ApplicationSpec.GetSources`` and
    ``HasMultipleSources``, ``pkg/apis/application/v1alpha1/types.go`` v3.5.1, return only the
    sync source). Argo CD's hydrator (``controller/hydrator/hydrator.go`` ``getManifests``) renders
    ``SourceHydrator.GetDrySource()`` (repoURL, path, targetRevision, and its helm, kustomize,
    directory or plugin options) through the repo server as it renders any source of the
    Application, and commits the output to ``syncSource.path`` of ``syncSource.targetBranch``
    (``hydrateTo``: a staging branch), which the Application then syncs as plain manifests. That
    branch is not the checkout hooklint reads, so the dry source stands for what is synced: its
    hooks are the hydrated ones (attacker trial 8, F2). A spec with ``sourceHydrator`` but no
    ``drySource`` mapping renders nothing hooklint can know (the hydrator fails on an empty
    repoURL)."""
    if not isinstance(spec, Map):
        return []
    hydrator = spec.get("sourceHydrator")
    if isinstance(hydrator, Map):
        dry = hydrator.get("drySource")
        if not isinstance(dry, Map):
            return []
        kept = copy.copy(dry)  # the same positions, only DrySource's fields
        for key in [k for k in kept if k not in DRY_SOURCE_FIELDS]:
            del kept[key]
        return [(DRY_SOURCE, kept)]
    entries: list[tuple[str, Map]] = []
    if isinstance(spec.get("source"), Map):
        entries.append(("spec.source", spec["source"]))
    if isinstance(spec.get("sources"), Seq):
        entries.extend((f"spec.sources[{i}]", s) for i, s in enumerate(spec["sources"]) if isinstance(s, Map))
    return entries
