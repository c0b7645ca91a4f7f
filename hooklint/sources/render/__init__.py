"""The rendering stage: kustomize and Helm sources rendered as Argo CD's repo server renders them.

A folder holding a kustomization (``kustomization.yaml``, ``kustomization.yml``, ``Kustomization``)
is a kustomize source; one holding ``Chart.yaml`` is a Helm source; otherwise it is a directory
source (``reposerver/repository/repository.go`` ``GetAppSourceType``, ``util/app/discovery``;
``shared/docs/argocd-rendering.md`` §1: the kustomization wins when a folder has both). This module
runs the renderer of a kustomize or Helm application (:mod:`hooklint.sources.render.kustomize`,
:mod:`hooklint.sources.render.helm`), parses each rendered document, and gives every object a
:class:`~hooklint.sources.render.placement.Placement` in the user's files. A render that fails, or a
missing renderer, becomes a load issue on the kustomization or ``Chart.yaml`` (HL007, HL008; HL009
when Argo CD renders the source and hooklint will not: the network, a build option); nothing else in
hooklint runs a renderer.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable

from hooklint import argocd
from hooklint.config import Config
from hooklint.findings import Span
from hooklint.config import DEFAULT_MAX_FILE_SIZE
from hooklint.files import cache_dir, note_volatile, read_bytes, read_entry, store_entry
from hooklint.loader import LoadedFile, ignore_comments, parse_text, read_file, within
from hooklint.sources.repository import facts
from hooklint.sources.spec import ApplicationSource, document_objects, rendered_sources
from hooklint.sources.repository.tree import (HELM, KUSTOMIZE, escaping_target, inside_repository, outside_repository,
                                              repository_root)
from hooklint.text import url_credentials
from hooklint.yamlio import (CAPABILITIES_UNCHECKED, CLUSTER_CAPABILITIES, NOT_RENDERED, RENDER_FAILED, RENDERER_UNAVAILABLE, SYNTAX_ERROR, TOO_COMPLEX, LoadIssue, Map,
                             NodeBudget, Seq, go_yaml_text)  # fmt: skip

if TYPE_CHECKING:
    from hooklint.sources.render.redact import SecretValues
    from hooklint.sources.render.rendered import CapabilityCheck, RenderedDocument, Renderer, RenderError
    from hooklint.sources.render.helm import DependencyFetcher
    from hooklint.sources.render.kustomize import RemoteFetcher
    from hooklint.sources.render.placement import Placement


@dataclass(slots=True)
class RenderedFile:
    """One rendered document, parsed (``loaded``; its path is the application's kustomization or
    ``Chart.yaml``), with where its findings go (``placement``)."""

    loaded: LoadedFile
    placement: Placement | None


def _chart_yaml_missing(folder: str, manifest_file: str) -> LoadedFile:
    """The stand-in for the ``Chart.yaml`` a folder Argo CD types Helm lacks (a file of it whose
    name ends with ``Chart.yaml``, ``old-Chart.yaml``, sorts last: ``util/app/discovery``
    ``Discover``): one HL007 at 1:1, as ``helm template`` of the folder fails ("Chart.yaml file is
    missing") and with it the sync."""
    names = sorted((n for n in facts.entry_names(folder) or () if n.endswith("Chart.yaml")), key=os.fsencode)
    why = f" ({names[-1]} ends with Chart.yaml)" if names else ""
    loaded = parse_text(manifest_file, "")
    loaded.issues.append((LoadIssue(RENDER_FAILED, Span.point(1, 1), (
        f"Argo CD renders {os.path.normpath(folder)}/ with Helm{why}, but it holds no Chart.yaml: helm template "
        "fails (Chart.yaml file is missing)")), 0))  # fmt: skip
    return loaded


def render(source_type: str, folder: str, manifest_file: str, config: Config, named: str | None = None,
           application: ApplicationSource | None = None, fetched: list | None = None,
           fetcher: DependencyFetcher | None = None, base_fetcher: RemoteFetcher | None = None,
           crd_apis: tuple[str, ...] = (),
           ) -> tuple[LoadedFile, list[RenderedFile], Renderer | None, dict[str, list]]:  # fmt: skip
    """Render the application in ``folder`` (``manifest_file`` is its kustomization or
    ``Chart.yaml``, as the user spells it; ``named`` the path on the command line that brought it
    in, see :func:`repository_root`), with the options of the Argo CD ``application`` source that
    renders it when there is one: ``spec.source.kustomize``; ``spec.source.helm``, the release name
    (``helm.releaseName``, else the Application's name; without an Application, the folder's name)
    and the destination namespace (``util/helm/cmd.go`` ``template``). Argo CD passes the destination
    cluster's ``--kube-version`` and ``--api-versions``; hooklint has no cluster, so they come from
    the ``kube-version`` setting and, unless the Application sets ``helm.apiVersions``, from
    :func:`~hooklint.sources.render.capabilities.cluster_api_versions`: the built-in kinds of that
    version, the repository's CRDs (``crd_apis``) and the ``api-versions`` setting, each as
    ``group/version`` and ``group/version/Kind`` as Argo CD passes them. Returns that file (read as written, with an HL007, HL008
    or HL009 load issue when it did not render; none when it is itself not valid YAML, which its HL001
    issue says), the rendered documents, the renderer used, and the ``# hooklint: ignore[...]``
    comments (:func:`~hooklint.loader.ignore_comments`) of the user's files the findings of the
    rendered objects can be placed in (each object's file, the kustomizations that changed it, the
    files its load issues name), by path, those with none left out: the suppression stage reads them
    there and opens nothing. ``fetcher`` downloads a chart's dependencies from chart repositories
    and registries (``--fetch``: the application map passes
    :func:`hooklint.sources.appmap.remote.dependency_fetcher`), which appends where their findings go to
    ``fetched``; without it they are named, never fetched. ``base_fetcher`` likewise fetches a
    kustomization's remote bases and components (``--fetch``:
    :func:`hooklint.sources.appmap.remote.kustomize_fetcher`)."""
    root = repository_root(folder, named)
    target = escaping_target(manifest_file, root)
    if target is not None:  # HL007, its content never read: a message of a parse would quote it
        return outside_repository(manifest_file, target), [], None, {}
    if source_type == HELM and not os.path.lexists(manifest_file) and facts.is_dir(folder):
        return _chart_yaml_missing(folder, manifest_file), [], None, {}
    loaded = read_file(manifest_file, config.max_file_size)
    # a one-file lint, or a folder of plain manifests, renders nothing (issue 34): the renderers'
    # limits, errors and credentials are imported by a rendering only
    from hooklint.sources.bounded import Limits, Stopped, Tally  # noqa: PLC0415
    from hooklint.sources.render.rendered import RendererUnavailable, RenderError, transient  # noqa: PLC0415
    from hooklint.sources.repository.withheld import Withheld  # noqa: PLC0415

    helm: Any = None

    def failed(exc: RenderError) -> tuple[LoadedFile, list[RenderedFile], Renderer | None, dict[str, list]]:
        """``loaded`` with the HL007 or HL009 issue of ``exc``: Argo CD renders it, hooklint does
        not (HL009, the detail says how Argo CD does); else Argo CD fails the same way (HL007)."""
        kind = RENDER_FAILED if exc.argocd_renders is None else NOT_RENDERED
        detail = exc.message
        if exc.argocd_renders is not None:  # HL009: what was not checked, for that reason
            shown = os.path.normpath(folder)
            detail = (f"{exc.message}. {exc.argocd_renders}. hooklint did not render "
                      f"{'./' if shown == '.' else shown + '/'}, so {exc.unchecked}")  # fmt: skip
        line, column, where = exc.line, exc.column, None
        if os.path.normpath(exc.path) == os.path.normpath(manifest_file):
            if kind == RENDER_FAILED and any(issue.kind in (SYNTAX_ERROR, TOO_COMPLEX) for issue, _ in loaded.issues):
                # the kustomization or Chart.yaml is not YAML (or an alias bomb): HL001 says so, at
                # the parser's position
                return loaded, [], None, {}
        elif source_type == KUSTOMIZE:  # in a base or component: on the entry that leads there
            detail = f"{exc.path}:{exc.line}:{exc.column}: {detail}"
            line, column = _entry_leading_to(manifest_file, exc.path)
        else:  # in one of the chart's templates, which the user can open
            where = exc.path
        # secret values out (hooklint.sources.render.redact): the inputs', a chart's values, the Application's
        redaction = dict(helm=source_type != KUSTOMIZE, extra_values=[helm.values] if helm is not None else [],
                         parameters=[(n, v) for n, v, _ in helm.parameters] if helm is not None else [],
                         file_parameters=list(helm.file_parameters) if helm is not None else [],
                         names=_names(application, helm),
                         carried=list(application.secrets) if application is not None else [])  # fmt: skip
        detail = _redacted_failure(detail, exc, folder, root, redaction, keyed=source_type == KUSTOMIZE)
        loaded.issues.append((LoadIssue(kind, Span.point(line, column), detail, path=where), 0))
        return loaded, [], None, {}

    try:
        if source_type == KUSTOMIZE:
            from hooklint.sources.render.kustomize import KustomizeOptions, render_kustomize

            options = None
            if application is not None and application.options is not None:
                options = _options(KustomizeOptions.from_application, application, manifest_file, application.options,
                                   dict(application.env), config.argocd_version)  # fmt: skip
            # a Component linted on its own (no Application renders it) is built through a wrapper
            rendering = render_kustomize(folder, root, options, Limits.of(config), wrap_component=application is None,
                                         fetch=base_fetcher, withheld=Withheld.of(config.fetch_credentials),
                                         argocd_version=config.argocd_version)  # fmt: skip
        else:
            from hooklint.sources.render.helm import HelmOptions, refuse_random_order, render_helm

            if application is None:
                helm = dataclasses.replace(HelmOptions.from_application(None, os.path.basename(os.path.abspath(folder)),
                                                                        None), release_guessed=True)  # fmt: skip
            else:
                helm = _options(HelmOptions.from_application, application, manifest_file, application.options,
                                application.name, application.namespace)  # fmt: skip
                # where each value file is written: one hooklint cannot read is HL009 there (issue 22)
                helm = dataclasses.replace(helm, value_file_places=application.value_file_places,
                                           pinned_refs=application.pinned_refs)  # fmt: skip
                refuse_random_order(helm, manifest_file, application.label())
            if config.kube_version and not helm.kube_version:  # the cluster's, as Argo CD passes it
                helm = dataclasses.replace(helm, kube_version=config.kube_version)
            if not helm.api_versions:  # the cluster's (GetAPIVersionsOrDefault): built-in kinds, CRDs, api-versions
                from hooklint.sources.render.capabilities import cluster_api_versions, in_cluster  # noqa: PLC0415 - Helm only

                argocd_cluster = application is not None and in_cluster(application.server)
                helm = dataclasses.replace(helm, api_versions=cluster_api_versions(config.kube_version,
                                                                                   config.api_versions, crd_apis,
                                                                                   argocd_cluster))  # fmt: skip
            rendering = render_helm(folder, root, helm, argocd.helm_major(config.argocd_version), Limits.of(config),
                                    fetcher, Withheld.of(config.fetch_credentials))  # fmt: skip
        _check_named_paths(rendering, root, manifest_file, [o.prefix for o in fetched or ()])
    except RenderError as exc:
        return failed(exc)
    except RendererUnavailable as exc:
        loaded.issues.append((LoadIssue(RENDERER_UNAVAILABLE, Span.point(1, 1), exc.message), 0))
        return loaded, [], None, {}
    hide: Callable[[str], str] | None = None
    for omission in rendering.omitted:  # a partial rendering: HL009 where each left-out entry is written
        detail = f"{omission.message}. {omission.argocd_renders}. hooklint {omission.done}, so {omission.unchecked}"
        if hide is None:  # every omission's message has the same inputs: the folder's files, read once
            # redaction (its automata, its scrubbers) only where a message may quote a secret: a run
            # over plain files never imports it
            from hooklint.sources.render.redact import render_error_redactor  # noqa: PLC0415

            hide = render_error_redactor(RenderError(detail, omission.path), folder, root, helm=source_type != KUSTOMIZE,
                                         extra_values=[helm.values] if helm is not None else (),
                                         parameters=[(n, v) for n, v, _ in helm.parameters] if helm is not None else (),
                                         file_parameters=helm.file_parameters if helm is not None else (),
                                         names=_names(application, helm),
                                         carried=application.secrets if application is not None else ())  # fmt: skip
        detail = hide(detail)
        where = None if os.path.normpath(omission.path) == os.path.normpath(manifest_file) else omission.path
        loaded.issues.append((LoadIssue(NOT_RENDERED, Span.point(omission.line, omission.column), detail,
                                        field_path=omission.field, path=where), 0))  # fmt: skip
    if rendering.capabilities is not None and helm is not None:  # HL025: what stood in for the cluster
        check = rendering.capabilities
        path, line, column, read = check.opaque or check.first or ("", 1, 1, "")
        detail = _capabilities_detail(path, read, helm, config, application, bool(crd_apis), check)
        where = None if os.path.normpath(path) == os.path.normpath(manifest_file) else path
        kind = CAPABILITIES_UNCHECKED if check.unchecked else CLUSTER_CAPABILITIES
        loaded.issues.append((LoadIssue(kind, Span.point(line, column), detail, path=where), 0))
    sources = _Sources(config, application)
    rendered = []
    template_index = [0] * len(rendering.documents)
    if source_type != KUSTOMIZE:
        from hooklint.sources.render.helm import template_document_indexes

        template_index = template_document_indexes(rendering)
    budget = NodeBudget(whole="rendering")  # MAX_NODES for all the objects together, as for one file
    tally = Tally(Limits.of(config).objects)  # the objects again: each item of a List is one (render-objects)
    for i, doc in enumerate(rendering.documents):
        # helm template prints "# Source: <template>" before each template's documents, so a
        # separator line opening them ends that chunk for Argo CD's YAMLReader
        parsed = parse_text(manifest_file, doc.text, budget=budget, continued=source_type != KUSTOMIZE)
        try:
            for _ in range(sum(_objects(d.value) for d in parsed.documents) or 1):
                tally.add()
        except Stopped as stopped:  # as the renderer stops on too many documents (HL007)
            what = "kustomize build of" if source_type == KUSTOMIZE else "Helm rendering of chart"
            return failed(transient(RenderError(f"{what} {os.path.normpath(folder)} {stopped.reason}", manifest_file)))
        parsed.skip_reason = None
        for issue, _ in parsed.issues:
            if issue.kind in (SYNTAX_ERROR, TOO_COMPLEX):  # an object hooklint cannot read: HL001, never a silent pass
                source = doc.origin or doc.configured_in or "the rendering"
                loaded.issues.append((LoadIssue(issue.kind, Span.point(1, 1),
                                                f"an object rendered from {source}: {issue.detail}"), 0))  # fmt: skip
        if budget.spent:  # the objects after this one are not read (its HL001 says so)
            break
        body = parsed.documents[0].value if parsed.documents else None
        placement = None
        if isinstance(body, Map):
            placement = (sources.kustomize_placement(body, doc, manifest_file) if source_type == KUSTOMIZE
                         else sources.helm_placement(body, doc, manifest_file, template_index[i]))  # fmt: skip
        rendered.append(RenderedFile(parsed, placement))
    placed = {loaded.path, *(issue.path for issue, _ in loaded.issues if issue.path)}
    for item in rendered:
        if item.placement is not None:
            placed.add(item.placement.path)
            placed.update(path for _, path, _ in item.placement.entries)
    comments = {path: sources.comments(path) for path in sorted(placed - {loaded.path})}
    return loaded, rendered, rendering.renderer, {path: found for path, found in comments.items() if found}


def _capabilities_detail(path: str, read: str, helm: Any, config: Config, application: ApplicationSource | None,
                         crds: bool, check: CapabilityCheck) -> str:  # fmt: skip
    """HL025's message: what a chart's template read of ``.Capabilities`` (``read``: ``KubeVersion``,
    ``APIVersions``, or how a read hooklint cannot enumerate reads), which values hooklint rendered
    it with (``helm``: its options as rendered), what its second rendering with the API versions
    the chart names found (``check``), and how to give it the cluster's."""
    from hooklint.sources.render.capabilities import in_cluster  # noqa: PLC0415 - Helm only

    if helm.kube_version:
        version = f"Kubernetes {helm.kube_version} ({'the Application' if helm.kube_version != config.kube_version else 'kube-version'})"
    else:
        version = "Helm's default Kubernetes version (kube-version is not set)"
    app_set = application is not None and isinstance(application.options, dict) and bool(application.options.get("apiVersions"))
    if app_set:
        served = "the Application's helm.apiVersions"
    else:
        parts = ["the built-in kinds of that version"] + (["the repository's CRDs"] if crds else [])
        parts += ["api-versions"] if config.api_versions else []
        if application is not None and in_cluster(application.server):
            parts.append("Argo CD's own argoproj.io/v1alpha1 kinds (the in-cluster destination serves them)")
        served = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]
    again = ""
    if check.named:
        named = ", ".join(check.named[:6]) + (f" and {len(check.named) - 6} more" if len(check.named) > 6 else "")
        again = f", and again with every API version the chart names served ({named})"
        if check.failed is not None:
            again += ", which failed"  # its message is not printed: it may quote a value
        elif check.added:
            added = ", ".join(check.added[:6]) + (f" and {len(check.added) - 6} more" if len(check.added) > 6 else "")
            again += f", which also renders {added}, checked too"
    path = os.path.normpath(path)
    setting = ("Set kube-version and api-versions in .hooklint.yaml to your destination cluster's (an Application's "
               "helm.kubeVersion and helm.apiVersions win, as in Argo CD), and lint once per cluster version you "
               "deploy to")  # fmt: skip
    cluster = ("what this chart renders depends on the cluster Argo CD syncs it to, whose Kubernetes version and API "
               "resources Argo CD passes to Helm (--kube-version, --api-versions)")  # fmt: skip
    if check.opaque is not None:
        return (f"{path} {read}: {cluster} and on the helm binary that renders it. hooklint cannot list what this "
                f"read asks for: it rendered for {version}, serving {served}{again}, so objects another cluster or "
                "Helm build renders were not checked. Read .Capabilities.APIVersions.Has with the API version "
                "written as a string and .Capabilities.KubeVersion by name (never .HelmVersion), or gate the "
                f"objects on a value. {setting}")  # fmt: skip
    shown = f".Capabilities.{read}" if read != "Capabilities" else ".Capabilities"
    if check.differing or check.failed is not None:
        changed = ", ".join(check.differing[:6]) + (f" and {len(check.differing) - 6} more" if len(check.differing) > 6 else "")
        what = (f"with them {changed} renders with other hook annotations or another pod, which was not checked"
                if check.differing else "the objects a cluster serving them renders were not checked")  # fmt: skip
        return (f"{path} reads {shown}: {cluster}. hooklint has no cluster: it rendered for {version}, serving "
                f"{served}{again}; {what}. {setting}")  # fmt: skip
    return (f"{path} reads {shown}: {cluster}. hooklint has no cluster: it rendered for {version}, serving "
            f"{served}{again}, so objects a cluster of another Kubernetes version would render were not checked. "
            f"{setting}")  # fmt: skip


def _objects(value: Any) -> int:
    """How many objects a rendered document counts for against ``render-objects``: each item of
    its ``items`` sequence (a ``kind: List``: Argo CD applies each,
    :func:`hooklint.model.manifests_from_document`), else one."""
    items = value.get("items") if isinstance(value, Map) else None
    return max(1, len(items)) if isinstance(items, Seq) else 1


def prepare_renderers(sources: Iterable[tuple[str, str]], config: Config) -> None:
    """Find the renderer of each ``(source type, repository root)`` of ``sources`` (kustomize or
    Helm; others are ignored) and ask its version, in this process: called before ``--jobs``
    workers start, so that they inherit the answers (memoised per process:
    :func:`~hooklint.sources.render.kustomize.find_kustomize`,
    :func:`~hooklint.sources.render.helm.find_helm`) and no worker starts ``kubectl version`` again."""
    for source_type, root in sorted(set(sources)):
        if source_type == KUSTOMIZE:
            from hooklint.sources.render.kustomize import find_kustomize  # noqa: PLC0415 - only when one renders

            find_kustomize(os.path.abspath(root))
        elif source_type == HELM:
            from hooklint.sources.render.helm import find_helm  # noqa: PLC0415 - only when one renders

            find_helm(argocd.helm_major(config.argocd_version), os.path.abspath(root))


def _redacted_failure(detail: str, exc: RenderError, folder: str, root: str, redaction: dict[str, Any],
                      keyed: bool = False) -> str:  # fmt: skip
    """``detail`` (what the failed render ``exc`` of ``folder`` reports) with its secret values out
    (:func:`~hooklint.sources.render.redact.redact_render_error` with the ``redaction`` options).
    A failure the render cache keeps (``exc.cache_key``: its inputs' bytes are in that key) keeps
    its redacted detail beside it, under that key and everything else the redaction reads, so an
    unchanged failing source is neither rendered nor redacted again. A failure made before the
    renderer's inputs were known, or a transient one, is redacted anew; the running result cache
    recording (:func:`hooklint.files.recording`) is told that it depends on more than the files it
    read, but for a kustomization's walk that failed (``keyed``: every path the walk looked at is
    recorded, :class:`~hooklint.sources.render.kustomize._Inputs`). A message of names only
    (:attr:`~hooklint.sources.render.rendered.RenderError.names_only`) reads no file: only a URL's
    credentials are hidden in it."""
    if exc.names_only:
        return url_credentials(detail)
    from hooklint.sources.render.redact import redact_render_error  # noqa: PLC0415 - only when a render failed

    if exc.cache_key is None or not exc.inputs or exc.transient:
        if exc.transient or not keyed or exc.cache_key is not None:
            note_volatile()
        return redact_render_error(detail, exc, folder, root, **redaction)
    from hooklint.sources.render.cache import CACHE_FORMAT  # noqa: PLC0415 - only when a render failed

    folder_of = cache_dir()
    entry = None
    if folder_of is not None:
        key = hashlib.sha256(json.dumps([CACHE_FORMAT, exc.cache_key, detail, os.path.abspath(folder), os.path.abspath(root),
                                         exc.path, redaction], default=repr).encode("utf-8", "surrogatepass")).hexdigest()  # fmt: skip
        entry = os.path.join(folder_of, "failed", key[:2], key + ".json")
        stored = read_entry(entry)
        if isinstance(stored, dict) and isinstance(stored.get("detail"), str):
            return stored["detail"]
    redacted = redact_render_error(detail, exc, folder, root, **redaction)
    if entry is not None:
        store_entry(entry, {"detail": redacted})
    return redacted


def _names(application: ApplicationSource | None, helm: Any) -> list[str | None]:
    """What names the application (its Application's name and destination namespace, its Helm
    release name), which a message may quote and which are never secret values."""
    names = [application.name, application.namespace] if application is not None else []
    return names + ([getattr(helm, "release_name", None)] if helm is not None else [])


def _check_named_paths(rendering, root: str, manifest_file: str, fetched: list[str] | None = None) -> None:
    """Refuse a rendering that names, as where an object came from or what changed it (origin,
    ``configuredIn``, the transformations annotation), a file outside the repository ``root``
    by its resolved path (``os.path.realpath``): hooklint opens those files to place findings, and
    renderer output is the repository's text (an object can carry the annotations itself).
    Raises RenderError (HL007) naming the first such path. A path of a chart ``--fetch`` downloaded
    for this rendering (``fetched``: its folders, ending with a separator) is hooklint's own."""
    from hooklint.sources.render.rendered import RenderError  # noqa: PLC0415 - a rendering only

    real_root = facts.realpath(root)
    for doc in rendering.documents:
        named = [doc.origin, doc.configured_in, *(t.path for t in doc.transformations)]
        for path in named:
            if path and not within(facts.realpath(path), real_root) and not any(
                    facts.realpath(path).startswith(os.path.realpath(f) + os.sep) for f in fetched or ()):  # fmt: skip
                raise RenderError(
                    f"the rendering names {path} as the source of an object, which is outside the repository "
                    "(an origin or transformations annotation in the repository's files?); hooklint reads "
                    "nothing outside the repository", manifest_file)  # fmt: skip


def _options(read, application: ApplicationSource, manifest_file: str, *args):
    """``read(*args)`` (an options reader of the renderer), its ValueError a render error naming
    the Application."""
    try:
        return read(*args)
    except ValueError as exc:
        from hooklint.sources.render.rendered import RenderError  # noqa: PLC0415 - a rendering only

        raise RenderError(f"{application.label()}: {exc}", manifest_file) from None


def _entry_leading_to(manifest_file: str, path: str) -> tuple[int, int]:
    """The 1-based line and column of the entry of ``manifest_file`` (a kustomization) that names
    ``path`` or a folder above it (the base or component a render error comes from); (1, 1) when
    none does."""
    try:
        lines = read_bytes(manifest_file, DEFAULT_MAX_FILE_SIZE).decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return 1, 1
    folder = os.path.dirname(os.path.abspath(manifest_file))
    target = os.path.abspath(path)
    for number, text in enumerate(lines, 1):
        entry = text.strip().removeprefix("-").strip().strip("'\"")
        entry = entry.partition(":")[2].strip().strip("'\"") if entry.startswith("path:") else entry
        if not entry or entry.startswith("#"):
            continue
        named = os.path.normpath(os.path.join(folder, entry))
        if named != folder and within(target, named):
            return number, text.index(entry) + 1
    return 1, 1


def values_unread(folder: str, why: str) -> str:
    """The HL009 detail of a chart whose values hooklint could not all read for secrets (``why``:
    :attr:`~hooklint.sources.render.redact.SecretValues.incomplete`): its rendering is not used, as
    a finding on it could quote a secret value hooklint cannot hide (attacker trial 24, B1 and B2:
    a list of 50,000 items before the password, a values file libyaml refuses and Go reads)."""
    shown = os.path.normpath(folder)
    return (f"hooklint could not look for the secret values of this chart ({why}), so it does not use its "
            f"rendering: a finding could quote one. Argo CD renders it. hooklint did not render "
            f"{'./' if shown == '.' else shown + '/'}, so none of its objects were checked, hooks included")


def chart_value_secrets(folder: str, root: str, options: Any, max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> SecretValues:
    """:func:`~hooklint.sources.render.redact.value_secrets` of the Helm chart in ``folder``: its
    ``values.yaml`` and its subcharts' (``charts/*/values.yaml``, and those inside packaged ones,
    ``charts/*.tgz``, every file of them: :func:`~hooklint.sources.render.redact.archive_secrets`), and of the Application's
    ``spec.source.helm`` (``options``, plain values): its ``valueFiles`` (relative to the chart, or
    to ``root`` with a leading ``/``), ``values`` / ``valuesObject`` and ``parameters``, and the
    contents of its ``fileParameters`` files (:func:`~hooklint.sources.render.redact.file_parameter_secrets`).
    Only files that resolve inside ``root`` and are regular, UTF-8 and at most ``max_file_size`` are read."""
    from hooklint.sources.render.redact import archive_secrets, file_parameter_secrets, value_secrets  # noqa: PLC0415 - Helm only
    from hooklint.sources.repository.withheld import git_data  # noqa: PLC0415 - Helm only

    real_root = facts.realpath(root)
    paths = [os.path.join(folder, "values.yaml")]
    charts = os.path.join(folder, "charts")
    archives = []
    if os.path.isdir(charts):
        paths += [os.path.join(charts, n, "values.yaml") for n in sorted(os.listdir(charts))]
        archives = [os.path.join(charts, n) for n in sorted(os.listdir(charts)) if n.endswith(".tgz")]
    helm = options if isinstance(options, dict) else {}
    value_files = helm.get("valueFiles")
    for name in value_files if isinstance(value_files, list) else []:
        if isinstance(name, str) and "://" not in name and not name.startswith("$"):
            paths.append(os.path.join(root, name.lstrip("/")) if name.startswith("/") else os.path.join(folder, name))
    texts = []
    for path in paths:
        if git_data(os.path.relpath(facts.realpath(path), real_root)) or git_data(os.path.relpath(path, root)):
            continue  # Git's data is never handed to a renderer (a value file left out: HL009)
        if os.path.isfile(path) and within(facts.realpath(path), real_root):
            try:
                texts.append(read_bytes(path, max_file_size).decode("utf-8"))
            except (OSError, UnicodeDecodeError, ValueError):
                continue
    if isinstance(helm.get("values"), str):
        texts.append(helm["values"])
    if isinstance(helm.get("valuesObject"), dict):
        try:  # as HelmOptions writes it for Helm (Argo CD's JSONToYAML form)
            texts.append(go_yaml_text(helm["valuesObject"]))
        except ValueError:
            pass  # the Application is refused (HL007) before anything renders
    parameters: list[tuple[str, str]] = []
    written = helm.get("parameters")
    for parameter in written if isinstance(written, list) else []:
        if isinstance(parameter, dict) and isinstance(parameter.get("name"), str) and isinstance(parameter.get("value"), str):
            parameters.append((parameter["name"], parameter["value"]))
    files = helm.get("fileParameters")
    file_parameters = [(p["name"], p["path"]) for p in (files if isinstance(files, list) else [])
                       if isinstance(p, dict) and isinstance(p.get("name"), str) and isinstance(p.get("path"), str)]  # fmt: skip
    found = value_secrets(texts, parameters)
    for path in archives:  # packaged subcharts: every file inside, read within bounds
        if within(facts.realpath(path), real_root):
            archive_secrets(path, real_root, found)
    return file_parameter_secrets(file_parameters, folder, root, found)


def comments_of(path: str, config: Config) -> list:
    """The ``# hooklint: ignore[...]`` comments (:func:`~hooklint.loader.ignore_comments`) of the
    user's file ``path``: none when it is unreadable, over ``max-file-size`` or not UTF-8, and none,
    never opened, when it resolves outside its repository (a finding may sit at a link out, such as
    HL007 at a chart file that is one)."""
    if not inside_repository(path, path):
        return []
    try:
        return ignore_comments(read_bytes(path, config.max_file_size).decode("utf-8"))
    except (OSError, UnicodeDecodeError):
        return []


class _Sources:
    """The user's files behind one application's rendered objects, each read once."""

    def __init__(self, config: Config, application: ApplicationSource | None = None):
        self.config = config
        self.files: dict[str, LoadedFile] = {}
        self.texts: dict[str, str | None] = {}
        self.application = application
        self._options: Map | None | bool = False  # not looked up yet

    def application_options(self) -> Map | None:
        """The Argo CD Application's ``kustomize`` mapping as written (with positions), or None."""
        if self._options is False:
            self._options = None
            app = self.application
            if app is not None and app.options is not None:
                for doc in self.file(app.manifest).documents:
                    found = _source_at(doc.value, app.line)
                    if found is not None and isinstance(found.get("kustomize"), Map):
                        self._options = found["kustomize"]
                        break
        return self._options  # type: ignore[return-value]

    def override_options(self) -> list[tuple[str, Map]]:
        """The ``kustomize`` mappings (with positions) of the ``.argocd-source*.yaml`` files merged
        into the Application's source, in merge order, as ``(file, mapping)``."""
        found = []
        for path in self.application.overrides if self.application is not None else ():
            for doc in self.file(path).documents[:1]:
                if isinstance(doc.value, Map) and isinstance(doc.value.get("kustomize"), Map):
                    found.append((path, doc.value["kustomize"]))
        return found

    def file(self, path: str) -> LoadedFile:
        """``path`` read and parsed once for this application: what discovery's scans parsed of
        it when its bytes are the same (:func:`~hooklint.sources.repository.facts.take_parsed`)."""
        if path not in self.files:
            self.files[path] = facts.take_parsed(path, self.config.max_file_size)
        return self.files[path]

    def comments(self, path: str) -> list:
        """:func:`comments_of` ``path``, from the file as this application read it when it did."""
        if path in self.files:
            return self.files[path].ignore_comments if inside_repository(path, path) else []
        if path in self.texts:  # a template read for its placement: not read again
            text = self.texts[path]
            return ignore_comments(text) if text is not None and inside_repository(path, path) else []
        return comments_of(path, self.config)

    def text(self, path: str) -> str | None:
        if path not in self.texts:
            try:
                self.texts[path] = read_bytes(path, self.config.max_file_size).decode("utf-8")
            except (OSError, UnicodeDecodeError):
                self.texts[path] = None
        return self.texts[path]

    def source_object(self, path: str, rendered: Map) -> Map | None:
        """The object of file ``path`` that ``rendered`` was made from: the one of the same kind
        whose name the rendered name contains (kustomize adds prefixes, suffixes and hashes)."""
        kind = rendered.get("kind")
        metadata = rendered.get("metadata")
        name = metadata.get("name") if isinstance(metadata, Map) else None
        candidates = []
        for doc in self.file(path).documents:
            value = doc.value
            if isinstance(value, Map) and value.get("kind") == kind:
                candidates.append(value)
        if len(candidates) == 1:
            return candidates[0]
        for value in candidates:
            md = value.get("metadata")
            own = md.get("name") if isinstance(md, Map) else None
            if isinstance(own, str) and isinstance(name, str) and own and own in name:
                return value
        return None

    def kustomize_placement(self, body: Map, doc: RenderedDocument, fallback: str) -> Placement:
        from hooklint.sources.render.placement import Placement  # noqa: PLC0415 - only when one renders

        entries = []
        options = self.application_options()
        for step in doc.transformations:
            parsed = self.file(step.path).documents
            if parsed and isinstance(parsed[0].value, Map):
                entries.append((step.kind, step.path, parsed[0].value))
            if os.path.normpath(step.path) == os.path.normpath(fallback):
                # Argo CD writes the Application's kustomize options into this kustomization, the
                # .argocd-source*.yaml files merged over them (the last file's entries win)
                if options is not None:
                    assert self.application is not None  # its options are the Application's
                    entries.append((step.kind, self.application.manifest, options))
                entries.extend((step.kind, path, found) for path, found in self.override_options())
        if doc.origin is not None:
            source = self.source_object(doc.origin, body)
            first = _first_line(source) if source is not None else Span.point(1, 1)
            return Placement(body, doc.origin, first, source, entries)
        where = doc.configured_in or fallback
        parsed = self.file(where).documents
        first = Span.point(1, 1)
        if parsed and isinstance(parsed[0].value, Map):
            config = parsed[0].value
            for key in ("configMapGenerator", "secretGenerator"):
                if key in config:
                    first = config.key_span(key)
                    break
        return Placement(body, where, first, None, entries)

    def helm_placement(self, body: Map, doc: RenderedDocument, fallback: str, index: int) -> Placement:
        from hooklint.sources.render.helm import locate_in_template, object_line
        from hooklint.sources.render.placement import Placement  # noqa: PLC0415 - only when one renders

        path = doc.origin or doc.configured_in or fallback
        text = self.text(path) if doc.origin else None
        if text is None:
            return Placement(body, path, Span.point(1, 1))
        first = Span.point(object_line(text, index), 1)

        lines = text.splitlines()

        def template(field_path: str) -> Span | None:
            """The template's text from the field's position to the end of its line (a value
            written with template actions has no extent of its own in the output)."""
            found = locate_in_template(text, field_path, index)
            if found is None:
                return None
            line, column = found
            end = len(lines[line - 1].rstrip()) + 1 if line <= len(lines) else column + 1
            return Span(line, column, line, max(end, column + 1))

        return Placement(body, path, first, template=template)


def _source_at(body: object, line: int) -> Map | None:
    """The source mapping (``spec.source``, ``spec.sources[]``, ``spec.sourceHydrator.drySource``:
    :func:`~hooklint.sources.spec.rendered_sources`) of the Application ``body``, or
    of one of its items when it is a list (a ``kind: List``), that starts at ``line``, or None."""
    for item in document_objects(body):
        spec = item.get("spec") if isinstance(item, Map) else None
        for _, candidate in rendered_sources(spec):
            if candidate.span.line == line:
                return candidate
    return None


def _first_line(source: Map) -> Span:
    """The span standing for a whole object in its source file: its first key."""
    for key in source:
        return source.key_span(key)
    return source.span
