"""HL401-HL405: the AppProject fences around hooks (§9 of argocd-semantics.md; HL401, HL402), and
what an ApplicationSet's RollingSync strategy does to the Applications it generates (HL403-HL405),
decided on the expanded Applications (:func:`hooklint.sources.appmap.applicationsets.rollout_problems`)."""

from __future__ import annotations

from typing import Iterator

from hooklint.checks import Context, Hit, check
from hooklint.loader import LoadedFile
from hooklint.model import Manifest, get_map
from hooklint.yamlio import ROLLOUT_IGNORED, ROLLOUT_INVALID, ROLLOUT_UNSELECTED, Map, Seq


@check("HL401", kinds={"Application"})
def application_in_default_project(m: Manifest, ctx: Context) -> Iterator[Hit]:
    if not m.is_application:
        return
    spec = get_map(m.body, "spec")
    project = spec.get("project") if spec is not None else None
    if isinstance(project, str) and project not in ("", "default"):
        return
    if project is None:
        if spec is not None and "project" in spec:
            where = spec.value_span("project")
        else:
            where = m.body.key_span("spec") if "spec" in m.body else m.anchor
        yield Hit(
            f"{m.label} has no spec.project: the field is required, so the API server rejects the "
            "Application. Set spec.project to a project that limits destinations and kinds.",
            where,
            "spec.project",
        )
        return
    span = spec.value_span("project") if spec is not None and "project" in spec else (
        m.body.key_span("spec") if "spec" in m.body else m.anchor)  # fmt: skip
    yield Hit(
        f"{m.label} uses the 'default' AppProject, which allows every source repository, every "
        "destination and every cluster-scoped kind: its hooks can create anything anywhere. Put it "
        "in a project that limits destinations and kinds.",
        span,
        "spec.project",
    )


@check("HL401", kinds={"ApplicationSet"})
def applicationset_in_default_project(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """The Applications an ApplicationSet generates take ``spec.template.spec.project``: written
    as ``default`` or empty (not templated, and no ``templatePatch`` that may set it), every one of
    them is in the ``default`` AppProject; reported at the template's line
    (``applicationset/controllers/template/template.go`` renders the template per parameter set)."""
    if not m.is_argo("ApplicationSet"):
        return
    spec = get_map(m.body, "spec")
    template = get_map(spec, "template") if spec is not None else None
    tspec = get_map(template, "spec") if template is not None else None
    if tspec is None or (spec is not None and spec.get("templatePatch")):
        return
    project = tspec.get("project")
    if not isinstance(project, str) or project not in ("", "default"):
        return
    yield Hit(
        f"{m.label} generates its Applications in the 'default' AppProject (spec.template.spec.project), which "
        "allows every source repository, every destination and every cluster-scoped kind: their hooks can "
        "create anything anywhere. Put them in a project that limits destinations and kinds.",
        tspec.value_span("project"),
        "spec.template.spec.project",
    )


@check("HL402", kinds={"AppProject"})
def appproject_allows_everything(m: Manifest, ctx: Context) -> Iterator[Hit]:
    if not m.is_argo("AppProject"):
        return
    spec = get_map(m.body, "spec")
    if spec is None:
        return
    tail = "so the applications' hooks are fenced by nothing. Name the repositories, destinations and kinds."
    repos = spec.get("sourceRepos")
    if isinstance(repos, Seq):
        for i, repo in enumerate(repos):
            if repo == "*":
                yield Hit(f"{m.label} allows every source repository (sourceRepos '*'), {tail}",
                          repos.item_spans[i], f"spec.sourceRepos[{i}]")  # fmt: skip
    destinations = spec.get("destinations")
    if isinstance(destinations, Seq):
        for i, dest in enumerate(destinations):
            if not isinstance(dest, Map):
                continue
            if (dest.get("server") == "*" or dest.get("name") == "*") and dest.get("namespace") == "*":
                yield Hit(f"{m.label} allows every cluster and namespace as a destination, {tail}",
                          destinations.item_spans[i], f"spec.destinations[{i}]")  # fmt: skip
    whitelist = spec.get("clusterResourceWhitelist")
    if isinstance(whitelist, Seq):
        for i, entry in enumerate(whitelist):
            if isinstance(entry, Map) and entry.get("group") == "*" and entry.get("kind") == "*":
                yield Hit(f"{m.label} allows every cluster-scoped kind (clusterResourceWhitelist '*'/'*'), {tail}",
                          whitelist.item_spans[i], f"spec.clusterResourceWhitelist[{i}]")  # fmt: skip


def _rollout(file: LoadedFile, kind: str) -> Iterator[Hit]:
    """The RollingSync problems of ``kind`` recorded on ``file`` by the ApplicationSet expansion."""
    for issue, index in file.issues:
        if issue.kind == kind:
            yield Hit(f"{issue.detail}.", issue.span, issue.field_path, doc_index=index, path=issue.path)


@check("HL403", scope="file")
def rollout_application_unselected(file: LoadedFile, ctx: Context) -> Iterator[Hit]:
    """Generated Applications no RollingSync step selects: never synced by the strategy
    (``getAppsToSync``, ``SyncDesiredApplications``, argo-cd v3.5.1
    ``applicationset/progressivesync/progressive_sync.go``)."""
    yield from _rollout(file, ROLLOUT_UNSELECTED)


@check("HL404", scope="file")
def rollout_step_invalid(file: LoadedFile, ctx: Context) -> Iterator[Hit]:
    """A RollingSync ``matchExpressions`` operator other than In/NotIn, or an Application two
    steps select (``buildAppDependencyList``, ``labelMatchedExpression``, argo-cd v3.5.1
    ``applicationset/progressivesync/progressive_sync.go``)."""
    yield from _rollout(file, ROLLOUT_INVALID)


@check("HL405", scope="file")
def rollout_deletion_order_ignored(file: LoadedFile, ctx: Context) -> Iterator[Hit]:
    """``deletionOrder: Reverse`` without an enabled RollingSync (``IsDeletionOrderReversed``,
    argo-cd v3.5.1 ``applicationset/progressivesync/progressive_sync.go``)."""
    yield from _rollout(file, ROLLOUT_IGNORED)
