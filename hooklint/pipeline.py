"""The pipeline: one stage after another, data flowing one way.

    paths -> sources (which files each application has, what Argo CD renders: hooklint.sources)
          -> manifests (the Argo CD model of the configured version: hooklint.model)
          -> the sync plan (hooklint.plan, built once per application)
          -> checks -> findings (hooklint.engine)
          -> suppression (annotations, comments, the baseline: hooklint.suppression)
          -> reporters (hooklint.reporters)

:func:`lint_paths` and :func:`plan_paths` run it for command-line paths; :func:`lint_text` for a
text (rule examples, tests). One application is loaded, planned, checked and released at a time,
so memory follows the largest application, not the tree; with ``jobs`` > 1, worker processes take
whole applications, and the result is the same, byte for byte once rendered.

A run ends at its deadline (``run-timeout``: :mod:`hooklint.deadline`), or once it parsed its
node budget (``max-run-nodes``: :mod:`hooklint.runnodes`): the applications not checked by then
are named in one input error (:func:`not_checked`), never passed silently.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import os
import tempfile
import time
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from hooklint import deadline, runnodes
from hooklint.catalog import Catalog
from hooklint.config import DEFAULT_MAX_RUN_NODES, DEFAULT_RUN_TIMEOUT, Config, ConfigError
from hooklint.engine import Engine
from hooklint.deadline import RunTimeout
from hooklint.findings import Finding, InputError, RunResult, Span
from hooklint.files import note_written
from hooklint.loader import is_stream, parse_text
from hooklint.reasons import Skip, SkipKind
from hooklint.model import Manifest, manifests_of
from hooklint.plan import SyncPlan, build_plan
from hooklint.sources.render.directory import mark_undeployed_data
from hooklint.sources.repository.tree import DIRECTORY, HELM, PLUGIN
from hooklint.yamlio import RENDER_FAILED, RENDER_FAILED_DEFAULTS
from hooklint.sources.load import (STDIN, Application, Coverage, Leaving, LoadedApplication, group_applications,
                                   load_application, loaded_application)  # fmt: skip
from hooklint.suppression import suppress
from hooklint import files as _files
from hooklint.collector import collector_paused, started
from hooklint.results import ResultCache, observing, run_cache
from hooklint.text import holds_url_credentials, internal_error, url_credentials

if TYPE_CHECKING:
    from hooklint.sources.render.redact import SecretValues
    from hooklint.sources.render.rendered import Renderer

@dataclasses.dataclass(slots=True)
class PlannedApplication:
    """One application's sync plan for ``hooklint plan``: its ``key`` (folder, or ``-``), the
    ``plan``, how many documents could not be parsed (``unparsed``: missing from the plan), and how
    Argo CD turns its source into manifests: ``source_type`` (``directory``, ``kustomize``,
    ``helm``), the ``renderer`` that did it here (None for a directory source, or when rendering
    failed) and the Argo CD ``application`` whose options it was rendered with."""

    key: str
    plan: SyncPlan
    unparsed: int = 0
    source_type: str = "directory"
    renderer: Renderer | None = None
    #: ``Application NAME (FILE:LINE)`` when an Argo CD Application renders it.
    application: str | None = None
    #: What made that Application when it is not written as YAML: the parent Application whose
    #: chart or kustomization renders it, or the chart or kustomization no Application here deploys.
    generated_by: str | None = None
    #: Whether the repository's Applications are known and none of them deploys this folder.
    undeployed: bool = False
    #: How much of it was rendered, and why not all (issue 22): a plan of a partial rendering
    #: lacks what the left-out entries add, one of ``none`` is not Argo CD's plan at all.
    coverage: Coverage = dataclasses.field(default_factory=Coverage)
    #: Replaces the values of the application's Secrets in a text (:func:`secrets_of`); None: none.
    hide: Callable[[str], str] | None = None
    #: The findings of this application alone, as its lint gave them (suppressed ones marked, the
    #: run's ``per-path-ignores`` not yet applied); empty when only planned (:func:`plan_paths`).
    findings: list[Finding] = dataclasses.field(default_factory=list)
    #: What ``--fetch`` downloaded and rendered for it: ``hookchart 1.2.0 (sha256:...) from URL``.
    fetched: list[str] = dataclasses.field(default_factory=list)
    #: Where Argo CD deploys it: ``NAME on CLUSTER``, the Application's name and its destination
    #: cluster (``spec.destination.server``, else ``name``); "" when no Application here deploys
    #: it. ``hooklint diff`` matches a finding only where it stays (attack 11 item 8).
    destination: str = ""


#: What one application's lint gives back: (findings, input errors, files linted, files not linted
#: as (path, reason), the renderer's label or None, the kustomization or ``Chart.yaml`` it has when
#: that did not render, else None, its plan when the run keeps plans, else None, and the values of
#: its Secrets as ``(value, key)``: :func:`secret_values_of`, secrets of the whole run).
Outcome = tuple[list[Finding], list[InputError], int, list[tuple[str, Skip]], str | None, str | None,
                PlannedApplication | None, tuple[tuple[str, str], ...]]


def planned_application(app: Application, loaded: LoadedApplication, manifests: list[Manifest], plan: SyncPlan,
                        mapped: bool, hide: Callable[[str], str] | None,
                        findings: list[Finding] | None = None) -> PlannedApplication:  # fmt: skip
    """The :class:`PlannedApplication` of ``app``, loaded as ``loaded``, modelled as ``manifests``
    and planned as ``plan``: the one place that says what a plan carries, for ``hooklint plan``,
    the markdown report and ``hooklint diff`` alike. Its plan holds the objects as reports read them
    (:meth:`~hooklint.plan.SyncPlan.reported`: no parsed bodies). ``mapped``: whether the repository's
    Applications are known (a folder none of them deploys is then ``undeployed``); ``hide``: the
    application's :func:`secrets_of`; ``findings``: its lint's, when it was linted."""
    findings = findings if findings is not None else []
    if app.source_type == PLUGIN:  # a plugin source: nothing rendered here, the plan says so
        assert app.argocd is not None
        return PlannedApplication(app.key, plan.reported(), 0, PLUGIN, None, app.argocd.label(), app.argocd.generated_by,
                                  coverage=loaded.coverage, findings=findings, destination=_destination(app))  # fmt: skip
    # a rendered object that cannot be read is an issue of the kustomization or Chart.yaml too (render)
    unparsed = sum(1 for f in loaded.files for issue, _ in f.issues if issue.kind in ("syntax-error", "too-complex"))
    label = app.argocd.label() if app.argocd is not None else None
    # a stand-in's label says what it is (any Application that deploys FOLDER/ (its .argocd-source.yaml))
    generated_by = app.argocd.generated_by if app.argocd is not None and not app.argocd.stand_in else None
    reported = plan.reported()
    if loaded.fetched:  # a fetched source's objects at their place in it: hookchart 1.2.0 templates/job.yaml
        from hooklint.sources.appmap.remote import relocate_plan  # noqa: PLC0415

        relocate_plan(reported, loaded.fetched)
    return PlannedApplication(app.key, reported, unparsed, app.source_type, loaded.renderer, label, generated_by,
                              mapped and (app.argocd is None or app.argocd.stand_in) and app.key != STDIN,
                              hidden_coverage(loaded.coverage, hide), hide,
                              findings, [o.described for o in loaded.fetched], _destination(app))  # fmt: skip


def hidden_coverage(coverage: Coverage, hide: Callable[[str], str] | None) -> Coverage:
    """``coverage`` with ``hide`` (the application's :func:`secrets_of`) applied to the detail of each
    of its reasons: a reason is a renderer's message cut short (an HL007 detail), and a source's own
    redaction knows only that source's secrets, not those of the other sources of a multi-source
    Application (attacker trial 19 B3: a chart's ``fail`` printed a Secret's value of another
    source). Every report of the reasons (``plan``, the markdown report, ``diff``) reads them from
    here, redacted as the application's findings are. The paths are the repository's (public)."""
    if hide is None or not coverage.reasons:
        return coverage
    reasons = tuple(dataclasses.replace(reason, detail=hide(reason.detail)) for reason in coverage.reasons)
    return dataclasses.replace(coverage, reasons=reasons)


def _destination(app: Application) -> str:
    """:attr:`PlannedApplication.destination` of ``app``."""
    argocd = app.argocd
    return f"{argocd.name} on {argocd.server or ''}" if argocd is not None else ""


def build(loaded: LoadedApplication, config: Config) -> tuple[list[Manifest], SyncPlan]:
    """The manifests of one loaded application and its sync plan under the configured Argo CD
    version (the manifests and plan stages)."""
    if loaded.parts is not None:  # a multi-source Application: every source's manifests, one plan
        manifests = [m for part in loaded.parts
                     for m in manifests_of(part.files, part.rendered, loaded.namespace, config.argocd_version,
                                           loaded.app.cluster_crds)]  # fmt: skip
    else:
        manifests = manifests_of(loaded.files, loaded.rendered, loaded.namespace, config.argocd_version,
                                 loaded.app.cluster_crds)
    as_written = loaded.parts is None and loaded.rendered is None and loaded.app.source_type == DIRECTORY \
        and loaded.app.argocd is not None  # an Application reads it as a directory source
    return manifests, build_plan(manifests, config.argocd_version, as_written=as_written)


def lint_application(engine: Engine, app: Application, keep_plan: bool = False, mapped: bool = False,
                     results: ResultCache | None = None) -> Outcome:  # fmt: skip
    """Load, plan, check and release one application.

    With ``results`` (the run's result cache: :mod:`hooklint.results`), an application whose
    inputs are unchanged since a run under the same key gives back that run's outcome without
    being loaded, and one linted is kept for next time (not stdin, not when a plan is kept).

    Its values hold no reference cycles, so they are freed by reference counting as soon as the
    application is done; ``gc.freeze()`` after loading keeps the cyclic collector from scanning
    them again and again while the checks allocate (it changes nothing else).

    An application hooklint itself fails on (an internal error: a RecursionError, a bug) is one
    HL007 finding on its kustomization, ``Chart.yaml`` or first file, and the run goes on: one
    hostile application never loses the report of the others. A configuration error still ends
    the run (:class:`~hooklint.config.ConfigError`), and so do KeyboardInterrupt and SystemExit."""
    try:
        if results is None or keep_plan or app.key == STDIN:
            return _lint_application(engine, app, keep_plan, mapped)
        try:
            outcome = results.lookup(app, mapped)
        except Exception:  # noqa: BLE001 - the cache makes a run faster, never failing: a miss
            outcome = None
        if outcome is not None:
            return outcome
        taken = time.time_ns()
        before = runnodes.left()
        with _files.recording() as reads, observing() as seen:
            outcome = _lint_application(engine, app, keep_plan, mapped)
        after = runnodes.left()
        try:
            results.store(app, mapped, outcome, reads, taken, seen,
                          before - after if before is not None and after is not None else None)
        except Exception:  # noqa: BLE001 - nothing kept, the outcome stands
            pass
        return outcome
    except ConfigError:
        raise
    except Exception as exc:  # noqa: BLE001 - isolation: this application's report only
        return [internal_error_finding(engine, app, exc)], [], 0, [], None, app.manifest_file, None, ()


def internal_error_finding(engine: Engine, app: Application, exc: BaseException) -> Finding:
    """The HL007 finding that stands for an application hooklint failed on with ``exc``."""
    path = app.manifest_file or (app.reported[0] if app.reported else app.key)
    message = (f"hooklint failed on this application (internal error: {internal_error(exc)}); nothing "
               "of it is checked. Please report it with the files that cause it.")  # fmt: skip
    return engine.engine_finding("HL007", message, path, Span.point(1, 1))


def _undeployed(app: Application, loaded: LoadedApplication, mapped: bool) -> LoadedApplication:
    """``loaded`` with its JSON data marked not linted when the repository's Applications are known
    (``mapped``) and none deploys ``app`` (:func:`~hooklint.sources.render.directory.mark_undeployed_data`),
    and, for a Helm chart, its rendering failures marked as failures with its defaults (HL007 as a
    warning: an Application may give it the values it needs)."""
    if mapped and app.argocd is None and app.key != STDIN and app.source_type == DIRECTORY:
        mark_undeployed_data(loaded.files)
    if mapped and app.argocd is None and app.source_type == HELM:  # rendered with its defaults only
        for loaded_file in loaded.files:
            for issue, _ in loaded_file.issues:
                if issue.kind == RENDER_FAILED:
                    issue.kind = RENDER_FAILED_DEFAULTS
    return loaded


def _lint_application(engine: Engine, app: Application, keep_plan: bool, mapped: bool) -> Outcome:
    with collector_paused():
        loaded = _undeployed(app, load_application(app, engine.config), mapped)
    gc.freeze()
    reported = loaded.reported_files
    errors = [f.error for f in reported if f.error is not None]
    skipped = [(f.path, f.skip_reason) for f in reported if f.skip_reason is not None]
    manifests, plan = build(loaded, engine.config)
    findings = suppress(engine, loaded, engine.check_application(loaded, manifests, plan))
    if loaded.fetched:  # findings in fetched sources go to the Application's source entry (issue 33)
        from hooklint.sources.appmap.remote import relocate  # noqa: PLC0415

        findings = relocate(findings, loaded.fetched)
    hide, stored = secret_values_of(manifests, loaded)  # a Secret's value copied into a name or annotation: its key
    findings = [_redacted(f, hide) for f in findings]
    renderer = loaded.renderer.label() if loaded.renderer is not None else None
    not_linted = sum(1 for f in reported if f.error is not None or f.skip_reason is not None)
    unrendered = app.manifest_file if loaded.coverage.rendered == "none" else None
    planned = None
    if keep_plan and not app.applied_elsewhere:
        planned = planned_application(app, loaded, manifests, plan, mapped, hide, findings)
    return findings, errors, len(app.reported) - not_linted - len(app.borrowed), skipped, renderer, unrendered, planned, stored


def secrets_of(manifests: list[Manifest], loaded: LoadedApplication | None = None) -> Callable[[str], str]:
    """:func:`secret_values_of`'s redactor alone."""
    return secret_values_of(manifests, loaded)[0]


def secret_values_of(manifests: list[Manifest],
                     loaded: LoadedApplication | None = None) -> tuple[Callable[[str], str], tuple[tuple[str, str], ...]]:
    """The :func:`~hooklint.sources.render.redact.redactor` of the values of the application's Secrets
    (:func:`~hooklint.sources.render.redact.object_secrets`), of ``loaded``'s ``secrets`` (a Helm source's
    secret values: :attr:`~hooklint.sources.load.LoadedApplication.secrets`) and of credentials in URLs:
    what findings and the plan say of the application never quotes one. A value the application
    writes where nothing is secret is none (:func:`written_public`): its names and paths stay readable.
    An application with no Secret and no such values has only URL credentials to hide: then it is
    :func:`~hooklint.text.url_credentials`, what the redactor of no values does, and a run over
    plain files never imports redaction (its automata and scrubbers).

    A secret written with commas put into an annotation Argo CD reads as a list is also hidden in
    each piece its findings quote (:func:`~hooklint.sources.render.redact.listed_pieces`).

    Also the values of its Secrets (``data``, ``stringData``) that are secrets here, as sorted
    ``(value, key)`` pairs: secrets for every other application of the run too
    (:func:`run_redacted`, attacker trial 20 B1)."""
    if (loaded is None or loaded.secrets is None) and not any(m.kind == "Secret" for m in manifests):
        return url_credentials, ()
    from hooklint.sources.render.redact import listed_pieces, merged, object_secrets, redactor  # noqa: PLC0415 - see above

    found = object_secrets(m.body for m in manifests if m.kind == "Secret")
    if loaded is not None and loaded.secrets is not None:
        found = merged(found, loaded.secrets)
    if found.secrets and loaded is not None:
        written_public(manifests, loaded, found)
    hide = redactor(found)
    # a secret written with commas into an annotation read as a list: the pieces its findings quote
    pieces = listed_pieces((v for m in manifests for v in m.annotations.values() if isinstance(v, str)), found, hide)
    if pieces:
        found.pieces.update(pieces)
        hide = redactor(found)
    stored = tuple(sorted((value, key) for value, key in found.kept().items() if value in found.stored))
    return hide, stored


def written_public(manifests: list[Manifest], loaded: LoadedApplication, found: SecretValues) -> None:
    """Add to ``found`` what the application writes where nothing is secret
    (:attr:`~hooklint.sources.render.redact.SecretValues.public`): the name, namespace and file of its
    Application, its paths, and the objects as the user writes them: a directory source's
    ``manifests`` themselves; a rendered source's files (the kustomizations and files its objects
    come from, a chart's templates), never what a renderer made of them (a Secret's value copied into
    a name by ``replacements`` stays a secret)."""
    from hooklint.sources.render.redact import public_of_objects, written_values  # noqa: PLC0415 - with secrets only

    app = loaded.app
    argocd = app.argocd
    paths = {*app.reported, *(p for p in (app.manifest_file, argocd.manifest if argocd else None) if p)}
    if argocd is not None:
        for name in (argocd.name, argocd.namespace):
            if name:
                found.add_public(name, name=True)
    if loaded.rendered is None:
        public_of_objects((m.body for m in manifests), found)
    else:
        for item in loaded.rendered:
            if item.placement is not None:
                paths.add(item.placement.path)
                paths.update(path for _, path, _ in item.placement.entries)
    candidates = list(found.secrets)  # a file that holds none of them makes none public: never parsed
    for path in sorted(paths):
        found.add_path(os.path.normpath(path))
        if loaded.rendered is not None or path == (argocd.manifest if argocd else None):
            written = written_values(path, candidates)
            if written is not None:
                found.public |= written.public
                found.names |= written.names


def run_redacted(result: RunResult) -> None:
    """Hide the values of every application's Secrets (``data``, ``stringData``: the ``stored``
    values of each :data:`Outcome`) in every application's findings and plan of ``result``, not only
    their own application's (attacker trial 20 B1: a Secret of folder ``a/`` printed by an HL010 of
    folder ``b/`` in the same report). One matcher of the run's values, built once
    (:func:`~hooklint.sources.render.redact.redactor`); an application that writes one of them in a
    name, a namespace or a path of its findings keeps it readable there (:func:`_names_of`): only
    then is a matcher of the others built for it. Empties ``result.by_application``."""
    parts, result.by_application = result.by_application, []
    stored: dict[str, str] = {}
    for *_, own in parts:
        for value, key in own:
            stored.setdefault(value, key)
    if not stored:
        return
    every = _stored_matcher(stored)
    for start, end, planned, _ in parts:
        findings = result.findings[start:end]
        hide = _run_matcher(stored, every, {name for f in findings for name in _names_of(f)} | _plan_names(planned))
        result.findings[start:end] = [_redacted(f, hide) for f in findings]
        if planned is not None:
            run_redacted_plan(planned, hide)


def _run_matcher(stored: dict[str, str], every: Callable[[str], str], names: set[str]) -> Callable[[str], str]:
    """``every`` (the matcher of the run's values ``stored``), or, for an application that writes
    one of them in one of its ``names``, the matcher of the others (built only then)."""
    joined = "\n".join(sorted(names))
    if not joined or every(joined) == joined:
        return every
    return _stored_matcher({value: key for value, key in stored.items() if value not in joined})


def _plan_names(planned: PlannedApplication | None) -> set[str]:
    """The names, ``generateName`` prefixes, namespaces and path components of the objects of
    ``planned``'s plan (what it writes where nothing is secret)."""
    if planned is None:
        return set()
    names: set[str] = set()
    for manifest in [t.manifest for t in planned.plan.tasks] + [e.manifest for e in planned.plan.not_applied]:
        names.update(text for text in (manifest.name, manifest.generate_name, manifest.namespace) if text)
        names.update(part for part in manifest.path.split("/") if part)
    return names


def _stored_matcher(stored: dict[str, str]) -> Callable[[str], str]:
    """The redactor of the Secrets' values ``stored`` (value -> key), a secret wherever written."""
    from hooklint.sources.render.redact import SecretValues, redactor  # noqa: PLC0415 - with secrets only

    values = SecretValues()
    for value, key in sorted(stored.items()):
        values.add_stored(value, key)
    return redactor(values)


def _names_of(finding: Finding) -> Iterator[str]:
    """What ``finding`` names that its application writes where nothing is secret: its object's
    name, ``generateName`` and namespace, and the components of its path."""
    obj = finding.obj
    if obj is not None:
        yield from (text for text in (obj.name, obj.generate_name, obj.namespace) if text)
    yield from (part for part in finding.path.split("/") if part)


def run_redacted_plan(planned: PlannedApplication, hide: Callable[[str], str]) -> None:
    """Apply ``hide`` (the run's matcher of the values of Secrets: :func:`run_redacted`) to what
    ``planned`` reports: its findings, the reasons of its coverage and, through its ``hide``, its
    plan."""
    planned.findings = [_redacted(f, hide) for f in planned.findings]
    planned.coverage = hidden_coverage(planned.coverage, hide)
    planned.hide = functools.partial(_both, planned.hide or url_credentials, hide)


def _both(first: Callable[[str], str], second: Callable[[str], str], text: str) -> str:
    return second(first(text))


def _redacted(finding: Finding, hide: Callable[[str], str]) -> Finding:
    """``finding`` with ``hide`` applied to every text of the repository a report prints of it (itself
    when nothing changes): its message, its object's kind, apiVersion, name and namespace, and its
    suppression's reason (``hooklint.io/ignore: "HL105: <reason>"``, ``# hooklint: ignore[HL105]
    <reason>``: printed by ``--show-suppressed``, JSON, SARIF and ``hooklint diff``; attacker trial
    20 B3). A name the application writes is never a secret value (:func:`written_public`), so a name
    changes only when a renderer made it of one (a Secret's value copied into it by ``replacements``)."""
    obj = finding.obj
    suppression = finding.suppression
    if hide is url_credentials and not any(
            text and holds_url_credentials(text) for text in (
                finding.message, suppression.reason if suppression is not None else None,
                *((obj.api_version, obj.kind, obj.name, obj.generate_name, obj.namespace) if obj is not None else ()))):
        return finding  # an application with no Secret: url_credentials would change none of its texts
    if obj is not None:
        texts = {f: getattr(obj, f) for f in ("api_version", "kind", "name", "generate_name", "namespace")}
        hidden = {f: hide(text) if text else text for f, text in texts.items()}
        if hidden != texts:
            obj = dataclasses.replace(obj, **hidden)
    if suppression is not None and suppression.reason:
        reason = hide(suppression.reason)
        if reason != suppression.reason:
            suppression = dataclasses.replace(suppression, reason=reason)
    message = hide(finding.message)
    if message == finding.message and obj is finding.obj and suppression is finding.suppression:
        return finding
    return dataclasses.replace(finding, message=message, obj=obj, suppression=suppression)


def redacted_findings(findings: Iterable[Finding], hide: Callable[[str], str]) -> list[Finding]:
    """``findings`` with ``hide`` (an application's :func:`secrets_of`) applied to their messages and
    object names, as the lint reports apply it (``hooklint fix -`` reports through this)."""
    return [_redacted(f, hide) for f in findings]


def text_secrets(text: str, config: Config | None = None, path: str = "manifest.yaml") -> Callable[[str], str]:
    """:func:`secrets_of` of manifest ``text`` linted as one application named ``path``, as
    :func:`lint_text` loads it (stdin for ``hooklint fix -``; one file's own Secrets)."""
    config = config or Config()
    app = Application(path, [path], [])
    loaded = loaded_application(app, [parse_text(path, text)], config)
    manifests, _ = build(loaded, config)
    return secrets_of(manifests, loaded)


def lint_applications(engine: Engine, apps: Iterable[Application], keep_plans: bool = False,
                      mapped: bool = False, results: ResultCache | None = None) -> RunResult:  # fmt: skip
    """Lint applications one after the other in this process. Findings are in application
    order, unsorted; with ``keep_plans``, ``plans`` holds each application's plan (see
    :func:`lint_application`); ``results``: the run's result cache, if any."""
    result = RunResult()
    unrendered: set[str] = set()
    apps = list(apps)
    unchecked: list[Application] = []
    checked: list[Application] = []
    for app in apps:
        outcome = _within_deadline(engine, app, keep_plans, mapped, results) if not unchecked else None
        if outcome is None:
            unchecked.append(app)
        else:
            checked.append(app)
            _merge(result, outcome, unrendered)
    result.skipped_files = honest_reasons(result.skipped_files, unrendered)
    not_checked(result, unchecked, len(apps), checked=checked)
    return result


def _within_deadline(engine: Engine, app: Application, keep_plan: bool, mapped: bool,
                     results: ResultCache | None = None) -> Outcome | None:  # fmt: skip
    """:func:`lint_application` of ``app``, or None when the run's deadline passed before or
    while it was linted (nothing of it is reported then)."""
    try:
        with deadline.armed():
            return lint_application(engine, app, keep_plan, mapped, results)
    except RunTimeout:
        return None


def application_name(app: Application) -> str:
    """How a message names ``app``: its Argo CD Application (``Application NAME (FILE:LINE)``),
    else its folder (``-`` for stdin)."""
    return app.argocd.label() if app.argocd is not None else app.key


#: How many applications :func:`not_checked` names before it counts the rest.
NAMED_UNCHECKED = 5


def not_checked(result: RunResult, apps: list[Application], total: int, listed: bool = True,
                checked: Iterable[Application] = ()) -> None:  # fmt: skip
    """Add to ``result`` that ``apps`` (of ``total`` applications) were not checked because the
    run's deadline passed: one input error on the first one's file (its Application's, else its
    kustomization's, ``Chart.yaml`` or first file) naming them (the first
    :data:`NAMED_UNCHECKED`, then how many more), and each of their files as not linted
    (:attr:`~hooklint.reasons.SkipKind.NOT_CHECKED`, which ``--show-skipped`` and the JSON report
    list; ``listed``: whether the message says so), but those an application of ``checked`` (done
    before the deadline) reports. Nothing for no ``apps``.

    When the run's node budget is spent (``max-run-nodes``: :mod:`hooklint.runnodes`), that is what
    stopped it: the error and the reasons say that limit instead
    (:attr:`~hooklint.reasons.SkipKind.NOT_CHECKED_NODES`)."""
    if not apps:
        return
    nodes_left = runnodes.left()
    by_nodes = nodes_left is not None and nodes_left <= 0
    limit = deadline.limit() or DEFAULT_RUN_TIMEOUT
    nodes = runnodes.limit() or DEFAULT_MAX_RUN_NODES
    stopped: RunTimeout = runnodes.RunNodesSpent(nodes) if by_nodes else RunTimeout(limit)
    remedy = "raise the limit with --max-run-nodes NODES" if by_nodes else "give the run more time with --run-timeout SECONDS"
    why = (Skip(f"not checked: the run reached max-run-nodes ({nodes:,} YAML nodes) first", SkipKind.NOT_CHECKED_NODES)
           if by_nodes else Skip(f"not checked: the run reached run-timeout ({limit:g} s) first", SkipKind.NOT_CHECKED))  # fmt: skip
    names = [application_name(a) for a in apps]
    shown = ", ".join(names[:NAMED_UNCHECKED]) + (f" and {len(names) - NAMED_UNCHECKED} more"
                                                  if len(names) > NAMED_UNCHECKED else "")  # fmt: skip
    first = apps[0]
    path = (first.argocd.manifest if first.argocd is not None
            else first.manifest_file or (first.reported[0] if first.reported else first.key))  # fmt: skip
    count = f"{len(apps)} of {total} application{'s' if total != 1 else ''}"
    message = (f"{stopped} with {count} not checked: {shown}; nothing of "
               f"{'them' if len(apps) != 1 else 'it'} is reported{' (--show-skipped lists the files)' if listed else ''}:"
               f" {remedy}")  # fmt: skip
    result.errors.append(InputError(path, message))
    seen = {p for p, _ in result.skipped_files} | {p for a in checked for p in a.reported}
    for app in apps:
        for file in app.reported:
            if file not in seen and file != STDIN:
                seen.add(file)
                result.skipped_files.append((file, why))
                result.skipped += 1


def honest_reasons(skipped: list[tuple[str, Skip]], unrendered: set[str]) -> list[tuple[str, Skip]]:
    """``skipped`` (files not linted on their own, as (path, reason)) with every reason "linted
    through" a kustomization in ``unrendered`` (those that did not render, as the run spells their
    ``manifest_file``) said as not linted (:meth:`~hooklint.reasons.Skip.not_rendered`): its files
    are checked nowhere. A kustomize Component's kustomization is itself read through the rendering
    of the one that uses it, so the files it reads follow that chain to the kustomization that runs."""
    rendered_by = {path: reason.through for path, reason in skipped if reason.kind is SkipKind.THROUGH_RENDERING}

    def failed(kustomization: str | None) -> bool:
        seen: set[str] = set()
        while kustomization is not None and kustomization not in seen:
            if kustomization in unrendered:
                return True
            seen.add(kustomization)
            kustomization = rendered_by.get(kustomization)
        return False

    return [(path, reason.not_rendered() if reason.kind is SkipKind.THROUGH_RENDERING and failed(reason.through) else reason)
            for path, reason in skipped]  # fmt: skip


def _merge(result: RunResult, outcome: Outcome, unrendered: set[str] | None = None) -> None:
    findings, errors, files, skipped, renderer, failed, planned, stored = outcome
    if planned is not None:
        result.plans.append(planned)
    if failed is not None and unrendered is not None:
        unrendered.add(failed)
    result.by_application.append((len(result.findings), len(result.findings) + len(findings), planned, stored))
    result.findings.extend(findings)
    result.errors.extend(errors)
    result.files += files
    result.skipped += len(skipped)
    result.skipped_files.extend(skipped)
    if renderer is not None and renderer not in result.renderers:
        result.renderers.append(renderer)


#: Seconds the parent waits for its workers past the run's deadline before it terminates them:
#: they stop their renderers at the deadline themselves, and need a moment to say what they did.
WORKER_GRACE = 5

#: Below this many files a run stays in one process: starting workers costs more than it saves.
PARALLEL_MIN_FILES = 64

_worker_engine: Engine | None = None
#: A worker's (keep_plans, mapped, result cache), as :func:`lint_applications` takes them.
_worker_plans: tuple[bool, bool, ResultCache | None] = (False, False, None)


def _worker_init(config: Config, catalog: Catalog, keep_plans: bool, mapped: bool,
                 time_left: tuple[float, float] | None = None, results: ResultCache | None = None,
                 nodes_left: tuple[int, int] | None = None) -> None:  # fmt: skip
    """Set up a worker: its engine, the parent's deadline (``time_left``: seconds left, the run's
    limit) and its share of the parent's node budget (``nodes_left``: nodes, the run's limit)."""
    global _worker_engine, _worker_plans
    from hooklint.interrupt import worker_signals

    worker_signals()  # Ctrl-C is the parent's: it stops the pool; its SIGTERM cleans up and ends us
    _worker_engine = Engine(config, catalog)
    _worker_plans = (keep_plans, mapped, results)
    if time_left is not None:  # the parent's deadline: (seconds left, the run's limit)
        deadline.start(*time_left)
    else:
        deadline.stop()
    if nodes_left is not None:
        runnodes.start(*nodes_left)
    else:
        runnodes.stop()


def _worker_lint(apps: list[Application]) -> tuple[list[Outcome | None], bool, dict[str, Any]]:
    """A worker's batch: each application's outcome, None for one the deadline or the node budget
    left unchecked; whether the worker's node budget is spent (the parent's error says so); and
    the result-cache entries it made (:meth:`hooklint.results.ResultCache.made`: the parent writes
    them with its own)."""
    from hooklint.interrupt import busy

    assert _worker_engine is not None
    with busy():
        outcomes = [_within_deadline(_worker_engine, app, *_worker_plans) for app in apps]
    left = runnodes.left()
    results = _worker_plans[2]
    return outcomes, left is not None and left <= 0, results.made() if results is not None else {}


def _batches(apps: list[Application], jobs: int) -> list[list[Application]]:
    """Consecutive runs of applications of about equal file counts, several per worker so that a
    large application does not leave the other workers idle at the end."""
    total = sum(len(a.reported) + len(a.context) for a in apps)
    target = max(1, total // (jobs * 8))
    batches: list[list[Application]] = []
    current: list[Application] = []
    size = 0
    for app in apps:
        current.append(app)
        size += len(app.reported) + len(app.context)
        if size >= target:
            batches.append(current)
            current, size = [], 0
    if current:
        batches.append(current)
    return batches


def _prepare_renderers(apps: list[Application], config: Config) -> None:
    """Find the renderers ``apps`` need, and ask their versions, in this process before the
    workers start (:func:`hooklint.sources.render.prepare_renderers`): ``kubectl version`` once
    per run, not once per worker."""
    from hooklint.sources.render import prepare_renderers
    from hooklint.sources.repository.tree import KUSTOMIZE, repository_root

    sources = []
    for app in apps:
        for part in (app.parts or [app]):
            if part.source_type in (KUSTOMIZE, HELM) and part.manifest_file is not None:
                sources.append((part.source_type, repository_root(part.folder or part.key, part.named)))
    if sources:
        prepare_renderers(sources, config)


def resolve_jobs(jobs: int) -> int:
    """``--jobs``: 0 means one worker per CPU this process may use."""
    if jobs > 0:
        return jobs
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _lint_parallel(engine: Engine, apps: list[Application], jobs: int, keep_plans: bool = False,
                   mapped: bool = False, results: ResultCache | None = None) -> RunResult:  # fmt: skip
    """Lint ``apps`` in ``jobs`` worker processes, whole applications at a time. Results are
    merged in application order, so the output is the same as with one process.

    The run's deadline holds across the workers: each is given the time left when it starts (and
    stops its renderers at the deadline, :mod:`hooklint.deadline`), and the parent waits for a
    batch no longer than :data:`WORKER_GRACE` seconds past the deadline, then terminates the pool
    (its workers kill their renderers' process groups on the way out); what no worker finished is
    :func:`not_checked`.

    The run's node budget (``max-run-nodes``: :mod:`hooklint.runnodes`) is shared out: each of the
    ``jobs`` workers may parse its share of what this process left, so the run's total, and the
    values its workers hold at once, stay within it (each worker holding the whole budget would
    let ``jobs`` of them hold ``jobs`` times the memory). A worker past its share leaves the rest
    of its applications unchecked, and the parent's budget is marked spent so that
    :func:`not_checked` names that limit. Near the limit, such a run may stop at another
    application than ``--jobs 1`` does; far from it (the default is over a hundred times a
    large repository), the outputs are the same.

    Results are kept by the application's index in ``apps``, never by its ``key``: two
    applications may share a key (two sources of one Application manifest that both fail, two
    Applications of one name rendering one folder), and a dict by key kept only the last outcome,
    merged twice (issue 19: ``--jobs 1`` reported 2 HL007 where ``--jobs 4`` reported 1)."""
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    numbered = list(enumerate(apps))
    # stdin belongs to this process
    batches = _batches([a for _, a in numbered if a.key != STDIN], jobs)
    indexes = [i for i, a in numbered if a.key != STDIN]
    outcomes_of: dict[int, Outcome | None] = {i: _within_deadline(engine, a, keep_plans, mapped)
                                              for i, a in numbered if a.key == STDIN}  # fmt: skip
    left = deadline.remaining()
    time_left = (left, deadline.limit()) if left is not None else None
    workers = min(jobs, len(batches))
    nodes, nodes_limit = runnodes.left(), runnodes.limit()
    nodes_left = (max(0, nodes) // max(1, workers), nodes_limit) if nodes is not None and nodes_limit is not None else None
    if batches:
        _prepare_renderers([a for _, a in numbered if a.key != STDIN], engine.config)
        # Not ``with Pool() as pool``: its exit is ``terminate()``, which SIGTERMs idle workers
        # and joins them, and hung one run in about ten (a worker left waiting forever on the
        # task queue's lock, the parent in join). A run that ends normally closes the pool, so
        # each worker reads its sentinel and exits; only an exception (Ctrl-C, SIGTERM: the
        # workers must stop now) terminates it.
        pool = context.Pool(workers, _worker_init,
                            (engine.config, engine.catalog, keep_plans, mapped, time_left, results, nodes_left))  # fmt: skip
        note_written()  # the workers may write cache entries: the parent keeps the folder under its cap
        try:
            position = iter(indexes)
            outcomes = pool.imap(_worker_lint, batches)
            for batch in batches:
                left = deadline.remaining()
                try:
                    outcome, nodes_spent, made = outcomes.next(timeout=None if left is None else left + WORKER_GRACE)
                except multiprocessing.TimeoutError:  # a worker did not stop at the deadline: stop them all
                    pool.terminate()
                    break
                if results is not None:
                    results.keep(made)
                if nodes_spent and runnodes.left() is not None:
                    runnodes.spent()  # a worker's share is spent: the run's error names max-run-nodes
                assert len(outcome) == len(batch)
                for one in outcome:
                    outcomes_of[next(position)] = one
            else:
                pool.close()
        except BaseException:
            pool.terminate()
            raise
        finally:
            pool.join()
    result = RunResult()
    unrendered: set[str] = set()
    unchecked: list[Application] = []
    checked: list[Application] = []
    for i in range(len(apps)):
        done = outcomes_of.get(i)
        if done is None:
            unchecked.append(apps[i])
        else:
            checked.append(apps[i])
            _merge(result, done, unrendered)
    result.skipped_files = honest_reasons(result.skipped_files, unrendered)
    not_checked(result, unchecked, len(apps), checked=checked)
    return result


def lint_paths(paths: list[str], config: Config, catalog: Catalog, jobs: int = 1, plans: bool = False,
               baseline: str | None = None, looked_up: bool = False) -> RunResult:  # fmt: skip
    """Lint files, folders and ``-`` (stdin). Findings come back sorted by path, line, column, rule;
    unreadable inputs are in ``errors``. Files the configuration excludes are not reported (they
    are loaded as context of their folder), nor are findings ``per-path-ignores`` drops. Raises :class:`~hooklint.config.ConfigError` for a
    configuration the engine cannot run.

    ``jobs`` worker processes (0: one per CPU) lint applications in parallel when there are enough
    files; the result is identical, byte for byte once rendered, to a run with ``jobs=1``.

    With ``plans``, ``result.plans`` holds each application's :class:`PlannedApplication` (with its
    findings), made in the same pass: the markdown report and ``hooklint diff`` read them rather
    than plan again (:func:`plan_paths` plans without checking, for ``hooklint plan``).

    With ``baseline`` (a file :func:`~hooklint.suppression.baseline.write_baseline` wrote), the
    findings it records are suppressed (kind ``baseline``) and ``result.stale_baseline`` counts its
    entries that matched nothing in the files of this run; raises
    :class:`~hooklint.suppression.baseline.BaselineError`, before linting, for one that cannot be read.

    An Argo CD Application file named on its own (pre-commit passes only the changed files) brings
    in the folder each of its sources renders (:func:`application_source_folders`), linted as in a
    whole run: an Application that overrides an image to ``:latest`` is HL102 on its own line.

    The run ends at its deadline (the command's, else ``config.run_timeout`` seconds from now:
    :func:`hooklint.deadline.running`); the applications not checked by then are one input error
    (:func:`not_checked`), and what was checked is reported as usual.

    A run the result cache holds whole, with nothing it depends on changed, is answered from it
    (:meth:`hooklint.results.ResultCache.lookup_run`) and kept when it is not (but plans, stdin);
    ``looked_up``: the caller asked already (:func:`hooklint.results.kept_run`, as the command
    line does before importing this module) and it was not there."""
    with deadline.running(config.run_timeout), runnodes.running(config.max_run_nodes):
        return _lint_paths(paths, config, catalog, jobs, plans, baseline, looked_up)


def _lint_paths(paths: list[str], config: Config, catalog: Catalog, jobs: int, plans: bool,
                baseline: str | None, looked_up: bool) -> RunResult:  # fmt: skip
    _files.linting(paths)  # a cache folder among them is not used (hooklint.files.cache_refusal)
    engine = Engine(config, catalog)
    started()  # the rules are loaded: the collector paused for start-up resumes (hooklint.collector)
    known = None
    if baseline is not None:
        from hooklint.suppression.baseline import load_baseline

        known = load_baseline(baseline, config.max_file_size)
    results = run_cache(config) if not plans else None  # hooklint.results: off with --no-cache, --fetch
    if results is not None and not any(p == STDIN or is_stream(p) for p in paths):
        result = None if looked_up else results.lookup_run(list(paths))
        if result is None:
            taken = time.time_ns()
            with _files.recording() as reads, observing() as seen:
                result, apps, mapped = _linted(paths, config, engine, jobs, plans, results)
            try:
                results.store_run(list(paths), result, reads, seen, [results.inputs_of(a, mapped) for a in apps], taken)
            except (Exception, RunTimeout):  # noqa: BLE001 - nothing kept, the result stands
                pass
    else:
        result, _, _ = _linted(paths, config, engine, jobs, plans, results)
    if results is not None:
        results.flush()  # the entries of the applications linted, in one file
    if known is not None:
        from hooklint.suppression.baseline import apply_baseline, run_scope

        result.stale_baseline = apply_baseline(result, known, scope=run_scope(paths, config.excluded))
    return result


def _linted(paths: list[str], config: Config, engine: Engine, jobs: int, plans: bool,
            results: ResultCache | None) -> tuple[RunResult, list[Application], bool]:  # fmt: skip
    """The result of linting ``paths`` before its baseline, the applications linted and whether
    the repository's Applications mapped them."""
    errors: list[InputError] = []
    walk_notices: list[str] = []
    implied = [folder for folder in application_source_folders(paths, config) if folder not in paths]
    excluded: list[str] = []
    leaving = Leaving(config.trusted_leaving_out, since=config.changed_since, ignored=config.ignored_paths)
    submodules: list[tuple[str, Skip]] = []
    apps = _applications(list(paths) + implied, errors, walk_notices, config, excluded=config.exclude or None,
                         left_out=excluded, leaving=leaving, submodules=submodules)  # fmt: skip
    if implied:  # a folder no one named is no input error (empty, or every file excluded): it is just not linted
        errors = [e for e in errors if e.path not in implied]
    jobs = resolve_jobs(jobs)
    files = sum(len(a.reported) + len(a.context) for a in apps)
    mapped = any(a.argocd is not None for a in apps)
    if jobs > 1 and len(apps) > 1 and files >= PARALLEL_MIN_FILES:
        result = _lint_parallel(engine, apps, jobs, plans, mapped, results)
    else:
        result = lint_applications(engine, apps, plans, mapped, results)
    run_redacted(result)
    # input errors in path order, each once, whatever the order of the arguments
    unique = {(e.path, e.message): e for e in errors + result.errors}
    result.errors = [unique[key] for key in sorted(unique)]
    reported = [f for f in _unique(result.findings) if engine.reports(f)]
    result.findings = [f for f in reported if f.suppression is None]
    result.suppressed = [f for f in reported if f.suppression is not None]
    result.renderers.sort()
    listed = {path for path, _ in result.skipped_files}
    result.skipped_files += [(path, excluded_reason(path, config)) for path in excluded if path not in listed]
    result.skipped += sum(1 for path in excluded if path not in listed)
    result.skipped_files += submodules  # git submodules no application reads (never fetched)
    result.skipped += len(submodules)
    result.skipped_files.sort()
    result.leaving_origins, result.not_left_out = leaving.origins, sorted(leaving.distrusted)
    from hooklint.checks.loading import missing_renderers

    # a note may quote a URL as written (this repository's remote: GitLab CI's origin holds the job's token)
    result.notices = [url_credentials(n) for n in walk_notices + skipped_notice(result.skipped_files) + engine.notices()
                      + _helm_notice(result, config) + missing_renderers(result.findings)]  # fmt: skip
    return result, apps, mapped


def _applications(paths: list[str], errors: list[InputError], notices: list[str] | None, config: Config,
                  excluded: Callable[[str], bool] | None = None,
                  left_out: list[str] | None = None, leaving: Leaving | None = None,
                  submodules: list[tuple[str, Skip]] | None = None) -> list[Application]:  # fmt: skip
    """:func:`~hooklint.sources.appmap.discovery.group_applications` of ``paths``, or none when the run's
    deadline passed while it ran (finding the applications can render: an app of apps): then one
    input error in ``errors`` says that nothing was checked. ``left_out`` (when given) gets the
    files ``excluded`` left out; ``leaving`` what the Applications leave out (:class:`Leaving`);
    ``submodules`` the git submodules no application reads, with why."""
    try:
        with deadline.armed():
            return group_applications(paths, errors, notices, config.repo_urls, excluded=excluded, config=config,
                                      left_out_files=left_out, leaving=leaving, submodules_left=submodules)  # fmt: skip
    except RunTimeout as exc:
        named = ", ".join(paths) or "."
        remedy = exc.remedy if isinstance(exc, runnodes.RunNodesSpent) else "give the run more time with --run-timeout SECONDS"
        errors.append(InputError(paths[0] if paths else ".", f"{exc} while finding the applications of {named}; "
                                 f"nothing is checked: {remedy}"))  # fmt: skip
        return []


def application_source_folders(paths: Iterable[str], config: Config) -> list[str]:
    """The folders that the Argo CD Applications in the files of ``paths`` (files named on their
    own, not folders, not stdin) render from this repository, in order, each once: the sources
    :func:`~hooklint.sources.appmap.applications.find_application_sources` finds (``repoURL`` this
    repository, a ``path`` inside it that Argo CD can render). Naming an Application must check
    what it deploys, as a whole run does, or a change to the Application alone (an image override,
    a Helm parameter) passes a pre-commit hook that a whole run fails."""
    from hooklint.sources.appmap.applications import find_application_sources

    from hooklint.sources.repository.tree import escaping_target, repository_root

    # a named file linking out of its repository is never opened here (its own lint says HL007)
    named = [p for p in paths if p != STDIN and not is_stream(p) and os.path.isfile(p)
             and escaping_target(p, repository_root(os.path.dirname(os.path.abspath(p)), p)) is None]  # fmt: skip
    if not named:
        return []
    folders: list[str] = []
    for source in find_application_sources(named, config.repo_urls, config.max_file_size):
        if source.problem is None and source.folder not in folders and os.path.isdir(source.folder):
            folders.append(source.folder)
    return folders


def _helm_notice(result: RunResult, config: Config) -> list[str]:
    """Set ``result.helm`` from the Helm renderer of the run (one major per run: the one
    :func:`hooklint.sources.render.helm.find_helm` picked for the configured Argo CD), and return the
    notice that says it is not the Helm major Argo CD runs, if it is not; and the one that says the
    run's kustomize is older than Argo CD's
    (:func:`hooklint.sources.render.kustomize.kustomize_use_note`), if it is."""
    if not result.renderers:  # nothing rendered: the Helm renderer is not even imported
        return []
    from hooklint.sources.render.helm import helm_use, helm_use_note
    from hooklint.sources.render.kustomize import kustomize_use_note

    notes = []
    for label in result.renderers:  # the kustomize one too: older than Argo CD's (kustomize_use_note)
        older = kustomize_use_note(label, config.argocd_version)
        if older:
            notes.append(older + ".")
    for label in result.renderers:
        use = helm_use(label, config.argocd_version)
        if use is not None:
            result.helm = use
            note = helm_use_note(label, config.argocd_version)
            return notes + ([note + "."] if note else [])
    return notes


def excluded_reason(path: str, config: Config) -> Skip:
    """Why ``path``, a file the run's ``exclude`` matched, is not linted: the glob that matched it
    and where it is set (``--exclude``, or the configuration file and line), or hooklint's own
    baseline file. Listed with the files not linted (``--show-skipped``, the JSON report's
    ``skipped``) and counted in the notice, so that an exclude (one a pull request adds to the
    configuration among them) never passes a file silently."""
    index = config.exclude.matching(path)
    if index is None or index < 0:
        why = "hooklint's baseline file, not a manifest" if index == -1 else "left out by exclude"
    else:
        where = config.at("exclude", index)
        if os.path.isabs(where) and not os.path.relpath(where).startswith(".."):
            where = os.path.relpath(where)
        why = f"left out by exclude {config.exclude.patterns[index]!r} ({where})"
    return Skip(f"{why}: not linted, and nothing in it is reported", SkipKind.CONFIG_EXCLUDED)


def skipped_notice(skipped: list[tuple[str, Skip]]) -> list[str]:
    """The one notice that counts the files not linted on their own (none when there are none),
    by the kind of why (:attr:`~hooklint.reasons.SkipKind.label`): ``4 files not linted on their own (3 jsonnet, which hooklint does not evaluate; 1 read
    through a kustomization's rendering); --show-skipped lists them.``"""
    if not skipped:
        return []
    counts: dict[str, int] = {}
    for _, reason in skipped:
        kind = reason.kind.label
        counts[kind] = counts.get(kind, 0) + 1
    parts = "; ".join(f"{n} {kind}" for kind, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    s = "s" if len(skipped) != 1 else ""
    own = "their own" if len(skipped) != 1 else "its own"
    return [f"{len(skipped)} file{s} not linted on {own} ({parts}); --show-skipped lists {'them' if s else 'it'}."]


def _unique(findings: list[Finding]) -> list[Finding]:
    """``findings`` sorted, each said once: a kustomize base linted as its own application and again
    through an overlay that renders it unchanged gives the same finding at the same place twice.
    Only the same finding on the same object (kind, name and namespace: two overlays render one
    base's hook into ``dev`` and ``prod``, two objects Argo CD runs) with the same suppression (one
    overlay may suppress it, the other not) is one: the copy kept was once the suppressed one, and
    the run passed (attacker trial 22, B0 and B1). A copy whose namespace is unknown (a base or
    Component linted on its own) is the one of a known namespace, when there is one."""
    findings.sort(key=Finding.sort_key)
    namespaced: set[tuple] = set()  # the same finding on an object whose namespace is known
    for f in findings:
        if f.obj is not None and f.obj.namespace:
            namespaced.add(_without_namespace(f))
    out: list[Finding] = []
    seen: set[tuple] = set()
    for f in findings:
        loose = _without_namespace(f)
        if (f.obj is None or not f.obj.namespace) and f.obj is not None and loose in namespaced:
            continue  # the object linted on its own, namespace unknown, and through an Application that sets it
        key = (loose, f.obj.namespace if f.obj is not None else None)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def _without_namespace(f: Finding) -> tuple:
    """What :func:`_unique` compares of ``f`` besides its object's namespace."""
    obj = f.obj
    who = (obj.api_version, obj.kind, obj.name, obj.generate_name) if obj is not None else None
    return (f.path, f.span, f.rule_id, f.message, who, f.suppression)


def plan_paths(paths: list[str], config: Config) -> tuple[list[PlannedApplication], list[InputError]]:
    """The sync plans of ``paths`` (files, folders, ``-``), one per application, and the input
    errors. A plan covers every manifest of its application, context files included. A source that
    fails to render has an empty plan (``hooklint lint`` says why). A folder whose every file is
    applied only through another application (a kustomize base or Component, patches) has none:
    its objects are in that application's plan. Never raises for bad input. The run ends at its
    deadline, as :func:`lint_paths` does: the applications not planned by then are one input error."""
    with deadline.running(config.run_timeout), runnodes.running(config.max_run_nodes):
        return _plan_paths(paths, config)


def _plan_paths(paths: list[str], config: Config) -> tuple[list[PlannedApplication], list[InputError]]:
    _files.linting(paths)  # a cache folder among them is not used (hooklint.files.cache_refusal)
    errors: list[InputError] = []
    plans: list[PlannedApplication] = []
    stored: dict[str, str] = {}  # the values of every application's Secrets
    apps = _applications(paths, errors, None, config)
    mapped = any(a.argocd is not None for a in apps)
    unchecked: list[Application] = []
    planned_apps: list[Application] = []
    for app in apps:
        if app.applied_elsewhere:
            continue
        try:
            if unchecked:
                raise RunTimeout(0)
            with deadline.armed():
                planned, own = _plan_application(app, config, errors, mapped)
        except RunTimeout:
            unchecked.append(app)
            continue
        except Exception as exc:  # noqa: BLE001 - isolation, as in lint_application
            path = app.manifest_file or (app.reported[0] if app.reported else app.key)
            errors.append(InputError(path, f"hooklint failed on this application (internal error: "
                                           f"{internal_error(exc)}); no plan"))  # fmt: skip
            continue
        plans.append(planned)
        planned_apps.append(app)
        stored.update((value, key) for value, key in own if value not in stored)
    if stored:  # the values of every application's Secrets are secrets in every plan (run_redacted)
        every = _stored_matcher(stored)
        for planned in plans:
            run_redacted_plan(planned, _run_matcher(stored, every, _plan_names(planned)))
    late = RunResult()
    not_checked(late, unchecked, sum(1 for a in apps if not a.applied_elsewhere), listed=False, checked=planned_apps)
    errors.extend(late.errors)
    return plans, errors


def _plan_application(app: Application, config: Config, errors: list[InputError],
                      mapped: bool) -> tuple[PlannedApplication, tuple[tuple[str, str], ...]]:  # fmt: skip
    """Load and plan one application for :func:`plan_paths` (its input errors added to ``errors``;
    ``mapped``: whether the repository's Applications are known), and the values of its Secrets
    (:func:`secret_values_of`)."""
    with collector_paused():
        loaded = _undeployed(app, load_application(app, config), mapped)
    errors.extend(f.error for f in loaded.reported_files if f.error is not None)
    manifests, plan = build(loaded, config)
    hide, stored = secret_values_of(manifests, loaded) if app.source_type != PLUGIN else (None, ())
    return planned_application(app, loaded, manifests, plan, mapped, hide), stored


def lint_text(
    text: str,
    config: Config | None = None,
    catalog: Catalog | None = None,
    path: str = "manifest.yaml",
    context: str | None = None,
) -> list[Finding]:
    """Lint manifest ``text`` as one application, without touching the file system (used by the
    rule examples and tests). ``context`` is more manifests of the same application, loaded for
    cross-object rules but not reported on. Returns sorted findings."""
    from hooklint.catalog import load_catalog

    config = config or Config()
    engine = Engine(config, catalog or load_catalog())
    files = [parse_text(path, text)]
    if context is not None:
        files.append(parse_text("context.yaml", context))
    app = Application(path, [path], ["context.yaml"] if context is not None else [])
    loaded = loaded_application(app, files, config)
    manifests, plan = build(loaded, config)
    findings = [f for f in suppress(engine, loaded, engine.check_application(loaded, manifests, plan))
                if f.suppression is None]
    findings.sort(key=Finding.sort_key)
    return findings


def lint_example(example: dict, config: Config | None = None, catalog: Catalog | None = None) -> list[Finding]:
    """Lint one example of a rule file (``rules/*.yaml``; the shape is ``rules/rule.schema.json``'s
    ``example``). A plain example is linted as text (:func:`lint_text`, with its ``context``). One
    with ``path`` or ``files`` is written to a folder ``app/`` of a temporary directory (its
    ``manifest`` as ``app/<path>``, default ``manifest.yaml``) and linted as that folder, rendered as
    Argo CD renders it, with no render cache; the findings of ``app/<path>`` come back, their paths
    (and paths in their messages) relative to the temporary directory. ``renderers-installed: false`` is the caller's to arrange."""
    from hooklint.catalog import load_catalog

    config = config or Config()
    if "path" not in example and "files" not in example:
        return lint_text(example["manifest"], config, catalog, context=example.get("context"))
    name = example.get("path", "manifest.yaml")
    with tempfile.TemporaryDirectory(prefix="hooklint-example-") as root:
        for relative, text in {**example.get("files", {}), name: example["manifest"]}.items():
            target = os.path.join(root, "app", relative)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w", encoding="utf-8") as handle:
                handle.write(text)
        saved = os.environ.get("HOOKLINT_CACHE_DIR")
        os.environ["HOOKLINT_CACHE_DIR"] = "off"
        try:
            result = lint_paths([os.path.join(root, "app")], config, catalog or load_catalog())
        finally:
            if saved is None:
                del os.environ["HOOKLINT_CACHE_DIR"]
            else:
                os.environ["HOOKLINT_CACHE_DIR"] = saved
        if result.errors:
            raise ValueError(f"example {example.get('name')}: {result.errors[0].message}")
        mine = os.path.join(root, "app", name)
        return [dataclasses.replace(f, path=os.path.relpath(f.path, root), message=f.message.replace(root + os.sep, ""))
                for f in result.findings if f.path == mine]  # fmt: skip
