"""HL001, HL002, HL005, HL007, HL008, HL009, HL022, HL025: what reading or rendering a file met, worded as findings.

The loader (:mod:`hooklint.loader`, :mod:`hooklint.yamlio`) and the rendering stage
(:mod:`hooklint.sources.render`) record problems as typed :class:`~hooklint.yamlio.LoadIssue`
values; these file checks turn them into hits. Kubernetes reads manifests with go-yaml v2
(sigs.k8s.io/yaml): an unreadable document fails the application's manifest generation in Argo CD's
repo server, a repeated key keeps only its last value, and tags other than YAML's standard ones are
not decoded as written. A kustomize or Helm source that does not render fails manifest generation
the same way (``reposerver/repository/repository.go`` ``GenerateManifests``), unless hooklint is
what does not render it (HL009: the network, which hooklint never uses, or a build option it never
passes), while Argo CD does.
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator

from hooklint import argocd
from hooklint.checks import Context, Hit, check
from hooklint.config import LIMITS
from hooklint.findings import Finding
from hooklint.loader import INVALID_SEPARATOR, LoadedFile
from hooklint.yamlio import (
    CAPABILITIES_UNCHECKED,
    CLUSTER_CAPABILITIES,
    DUPLICATE_KEY,
    HOOKLINT_FAULT,
    JSON_CLOSER_AFTER,
    SEPARATOR_TEXT,
    MAX_ISSUES,
    NOT_EXPANDED,
    NOT_RENDERED,
    RENDER_FAILED,
    RENDER_FAILED_DEFAULTS,
    RENDERER_UNAVAILABLE,
    SYNTAX_ERROR,
    TOO_COMPLEX,
    TOO_MANY_ERRORS,
    UNSAFE_TAG,
    shown,
)

_MORE = (
    f"More than {MAX_ISSUES} problems like the ones above in this document; the others are not "
    "reported. Fix these first."
)
#: A rendering stopped by one of hooklint's own limits (``bounded.Stopped``: ``... (limit: render-timeout)``):
#: Argo CD's repo server has limits of its own, so it may well render what hooklint stopped.
HOOKLINT_LIMIT = re.compile(r"\(limit: (?:%s)\b" % "|".join(k for k in LIMITS if k.startswith("render-")))


@check("HL001", scope="file")
def yaml_syntax_error(file: LoadedFile, ctx: Context) -> Iterator[Hit]:
    """Documents libyaml cannot read, or that are too deep or alias-heavy to read safely."""
    language = "JSON" if file.path.lower().endswith(".json") else "YAML"
    for issue, index in file.issues:
        if issue.kind == SYNTAX_ERROR and issue.detail.startswith(INVALID_SEPARATOR) and \
                not argocd.supports(ctx.config.argocd_version, "yaml-separator-comments"):  # fmt: skip
            continue  # text to this Argo CD: its SEPARATOR_TEXT issue says so
        if issue.kind == SYNTAX_ERROR and file.maybe_unrelated:
            message = (
                f"{language} syntax error: {issue.detail}. The file lacks apiVersion:, kind: or metadata: as "
                "written, so Argo CD passes over it as unrelated YAML if its own reader (Go's JSON reader for a file "
                "opening with '{', go-yaml otherwise) fails here too; it may not, and then applies objects hooklint "
                f"cannot check, so the file is not skipped. Fix the {language}."
            )
        elif issue.kind == SYNTAX_ERROR:
            message = (
                f"{language} syntax error: {issue.detail}. Argo CD cannot render this document, so the "
                f"whole application fails to sync; fix the {language}."
            )
        elif issue.kind == JSON_CLOSER_AFTER:
            version = ctx.config.argocd_version
            if argocd.supports(version, "json-one-value"):
                continue  # decoder.More() is false before ']' and '}': Argo CD reads the object
            behaviour = argocd.BEHAVIOURS["json-one-value"]
            first = ", ".join(".".join(map(str, v)) for v in (behaviour.since, *behaviour.backports))
            message = (
                f"JSON syntax error: '{issue.detail}' after the first object: Argo CD {'.'.join(map(str, version))} "
                "reads a .json file with json.Unmarshal, which refuses anything but whitespace after the value "
                f"(from {first}, Argo CD reads one value and stops at ']' or '}}'). Argo CD cannot render this "
                "document, so the whole application fails to sync; remove what follows the object."
            )
        elif issue.kind == SEPARATOR_TEXT:
            version = ctx.config.argocd_version
            if argocd.supports(version, "yaml-separator-comments"):
                continue  # read as Argo CD reads it: a separator (HL001 already when Go refuses the line)
            message = (
                f"'---' followed by '{shown(issue.detail, 40)}': hooklint cuts documents here as Argo CD reads them "
                f"from {argocd.version_text(argocd.since('yaml-separator-comments'))} (k8s.io/apimachinery YAMLReader "
                f"v0.22.0), but Argo CD {argocd.version_text(version)} reads only '---' and spaces as a separator and "
                "this line as text in the document, so it may apply objects hooklint did not check. Put the text on "
                "its own line after a '---' line."
            )
        elif issue.kind == TOO_COMPLEX:
            message = f"Document cannot be read safely: {issue.detail}. Simplify the document."
        elif issue.kind == TOO_MANY_ERRORS:
            message = (
                f"More than {issue.detail} documents of this file cannot be read; the rest of the "
                "file is not checked. Fix the YAML."
            )
        else:
            continue
        yield Hit(message, issue.span, issue.field_path, doc_index=index)


@check("HL002", scope="file")
def duplicate_key(file: LoadedFile, ctx: Context) -> Iterator[Hit]:
    """A mapping key written twice: go-yaml v2 keeps the last value."""
    for issue, index in file.issues:
        if issue.kind != DUPLICATE_KEY:
            continue
        message = _MORE if issue.more else (
            f"Key '{shown(issue.detail)}' is repeated (first at line {issue.first_line}): the API "
            "server keeps only the last value, while a reviewer may read the first. Remove one of them."
        )
        yield Hit(message, issue.span, issue.field_path, doc_index=index)


@check("HL005", scope="file")
def unsafe_yaml_tag(file: LoadedFile, ctx: Context) -> Iterator[Hit]:
    """An explicit tag other than YAML's standard ones (``!!python/object``, ``!Ref``)."""
    for issue, index in file.issues:
        if issue.kind != UNSAFE_TAG:
            continue
        message = _MORE if issue.more else (
            f"YAML tag '{shown(issue.detail)}' is not a standard Kubernetes type; hooklint never "
            "constructs tagged objects and Kubernetes rejects or mis-decodes them. Remove the tag."
        )
        yield Hit(message, issue.span, issue.field_path, doc_index=index)


@check("HL007", scope="file")
def render_failed(file: LoadedFile, ctx: Context) -> Iterator[Hit]:
    """kustomize or Helm failed on the application's source (the tool's own message), as Argo CD's
    repo server would; a chart no Application of the repository deploys failed with its defaults
    (RENDER_FAILED_DEFAULTS): a warning that says so, since an Application may give other values."""
    for issue, index in file.issues:
        if issue.kind == RENDER_FAILED_DEFAULTS:
            yield Hit(
                f"Rendering with its defaults failed: {issue.detail}. No Application of this repository deploys "
                "this chart, so hooklint rendered it with its own values.yaml only; an Application that deploys it "
                "may give the values it needs. Nothing of it is checked: lint it as that Application renders it "
                "(commit the Application here, or list its repository under repo-urls), or give the chart "
                "defaults that render.",
                issue.span, issue.field_path, doc_index=index, path=issue.path, severity="warning",
            )  # fmt: skip
            continue
        if issue.kind != RENDER_FAILED:
            continue
        if HOOKLINT_LIMIT.search(issue.detail):  # stopped by hooklint (hooklint.sources.bounded), not by Argo CD
            message = (f"Rendering stopped: {issue.detail}. The limit is hooklint's, not Argo CD's: Argo CD may render "
                       "and sync this application, and nothing of it is checked here. If the rendering is meant to be "
                       "this large or slow, raise the limit in a configuration named with --config.")  # fmt: skip
        elif issue.detail.startswith(HOOKLINT_FAULT):  # hooklint's own Python failed, not the renderer
            message = (f"Rendering failed: {issue.detail}. That is a bug in hooklint, not an error of Helm's: Argo CD "
                       "may render and sync this application, and nothing of it is checked here. Please report it "
                       "to hooklint's maintainers, with the chart and the Application's helm settings if you can.")  # fmt: skip
        elif issue.detail.startswith("ApplicationSet "):  # recorded by the expansion: the controller's failure
            message = (f"Rendering failed: {issue.detail}. Argo CD's ApplicationSet controller fails the same way, so "
                       "these Applications are not created; nothing of them is checked until it renders.")  # fmt: skip
        else:
            message = (
                f"Rendering failed: {issue.detail}. Argo CD's repo server fails the same way, so the "
                "application cannot sync; nothing of it is checked until it renders."
            )
        yield Hit(message, issue.span, issue.field_path, doc_index=index, path=issue.path)


#: How to get each renderer HL008 names: said once per run (:func:`missing_renderers`), not in
#: every finding, so that a repository of 50 charts gets one line of advice, not 50.
RENDERER_INSTALL = {
    "Helm": "pip install 'hooklint[helm]' (Helm's Go library, in process), or put the helm binary (3 or later) on "
            "PATH; in pre-commit, keep helm-python-sdk in the hook's additional_dependencies",
    "kustomize": "put kubectl (hooklint runs 'kubectl kustomize') or the kustomize binary on PATH "
                 "(https://kubectl.docs.kubernetes.io/installation/kustomize/)",
}
_UNAVAILABLE_TAIL = "; nothing of this application is checked (the run's note says how to get {name})."
_UNAVAILABLE_NAME = re.compile(r"\(the run's note says how to get (Helm|kustomize)\)\.\Z")


def _unavailable(detail: str) -> tuple[str, str | None]:
    """``(what is missing, renderer name)`` of a RENDERER_UNAVAILABLE detail, which the rendering
    stage words ``<what>: install <how>``; the name is None for a detail worded otherwise."""
    what, sep, how = detail.rpartition(": install ")
    if not sep:
        return detail, None
    return what, "kustomize" if how.startswith("kustomize") else "Helm"


@check("HL008", scope="file")
def renderer_unavailable(file: LoadedFile, ctx: Context) -> Iterator[Hit]:
    """A kustomize or Helm source, and no renderer installed to render it. The finding says which
    renderer is missing; how to install it is one notice per run (:func:`missing_renderers`)."""
    for issue, index in file.issues:
        if issue.kind == RENDERER_UNAVAILABLE:
            what, name = _unavailable(issue.detail)
            message = (f"{what}, and none is installed here" + _UNAVAILABLE_TAIL.format(name=name) if name
                       else f"{issue.detail}; nothing of this application is checked.")  # fmt: skip
            yield Hit(message, issue.span, issue.field_path, doc_index=index, path=issue.path)


def missing_renderers(findings: Iterable[Finding]) -> list[str]:
    """One notice per renderer that HL008 ``findings`` (reported ones) say is missing, with the
    command to get it: ``Helm is not installed: 2 sources not rendered (HL008); to render them: pip
    install 'hooklint[helm]' ...``. Helm first, then kustomize; none when no HL008 names one."""
    counts: dict[str, int] = {}
    for finding in findings:
        if finding.rule_id == "HL008" and (match := _UNAVAILABLE_NAME.search(finding.message)):
            counts[match.group(1)] = counts.get(match.group(1), 0) + 1
    return [f"{name} is not installed: {counts[name]} source{'s' if counts[name] != 1 else ''} not rendered (HL008); "
            f"to render them: {install}." for name, install in RENDERER_INSTALL.items() if name in counts]  # fmt: skip


@check("HL009", scope="file")
def source_not_rendered(file: LoadedFile, ctx: Context) -> Iterator[Hit]:
    """A source that Argo CD renders but hooklint will not (a remote base, a chart repository, an
    OCI chart, a value file given as a URL: the network; chart dependencies missing from
    ``charts/``: ``helm dependency build``; kustomize's helmCharts: ``--enable-helm``); the detail
    says how Argo CD renders it and which objects went unchecked (``RenderError.unchecked``, or an
    entry a partial rendering left out, :class:`~hooklint.sources.render.rendered.Omission`: then only
    what that entry adds; otherwise none of the application's objects are, not only those the
    source would add)."""
    for issue, index in file.issues:
        if issue.kind == NOT_RENDERED:
            yield Hit(f"{issue.detail}.", issue.span, issue.field_path,
                      doc_index=index, path=issue.path)  # fmt: skip


@check("HL025", scope="file")
def chart_reads_cluster_capabilities(file: LoadedFile, ctx: Context) -> Iterator[Hit]:
    """A rendered Helm chart whose templates read ``.Capabilities``
    (:func:`hooklint.sources.render.helm.capability_scan`): Argo CD fills its ``KubeVersion`` and
    ``APIVersions`` from the destination cluster, hooklint from its settings
    (:mod:`hooklint.sources.render.capabilities`), and renders again with every API version the
    chart names (its new objects are checked too); the detail names the values used and how to set
    them. A note when the renderings checked what those API versions render; a warning (the rule's
    severity: never a silent pass, issue 32) when a read cannot be enumerated (``HelmVersion``, a
    name built at render time), or the second rendering changed an object's hooks or pod, or
    failed. At the first read (the first opaque one for a warning), in the template."""
    for issue, index in file.issues:
        if issue.kind in (CLUSTER_CAPABILITIES, CAPABILITIES_UNCHECKED):
            yield Hit(f"{issue.detail}.", issue.span, issue.field_path, doc_index=index, path=issue.path,
                      severity=None if issue.kind == CAPABILITIES_UNCHECKED else "note")  # fmt: skip


@check("HL022", scope="file")
def applicationset_not_expanded(file: LoadedFile, ctx: Context) -> Iterator[Hit]:
    """An ApplicationSet generator that needs a cluster or the network (``scmProvider``,
    ``pullRequest``, ``clusterDecisionResource``, ``plugin``, a ``git`` generator of another
    repository; a ``clusters`` selector no known cluster matches, a ``files`` path with pathspec
    magic, a ``templatePatch`` directive not modelled): the Applications it generates are not
    known, so not linted
    (:mod:`hooklint.sources.appmap.applicationsets`)."""
    for issue, index in file.issues:
        if issue.kind == NOT_EXPANDED:
            yield Hit(f"{issue.detail}.", issue.span, issue.field_path, doc_index=index, path=issue.path)
