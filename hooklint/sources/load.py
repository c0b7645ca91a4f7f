"""Loading one application: :func:`load_application` reads or renders its files (through
:mod:`hooklint.sources.render`, its sources as :mod:`hooklint.sources.appmap` found them) and marks
what Argo CD's directory source does not render; :class:`LoadedApplication` is what it gives the
next stage (:func:`hooklint.model.manifests_of`), with :class:`Coverage`, how much of it rendered.
"""


from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hooklint.config import Config
from hooklint.findings import Span
from hooklint.reasons import Unrendered, UnrenderedKind
from hooklint.loader import LoadedFile, is_stream, parse_text
from hooklint.sources.render.directory import is_lfs_note, mark_unrendered
from hooklint.sources.repository.tree import (DIRECTORY, HELM, JSONNET_REASON, KUSTOMIZE, MULTI, PLUGIN, REMOTE, UNRENDERABLE, Containment, dangling_link)
from hooklint.sources.appmap.discovery import STDIN, Application, Leaving, group_applications
from hooklint.yamlio import NOT_RENDERED, RENDER_FAILED, RENDER_FAILED_DEFAULTS, RENDERER_UNAVAILABLE, LoadIssue, Map
from hooklint.sources.render import RenderedFile, chart_value_secrets, comments_of, render as render_source, values_unread  # fmt: skip
from hooklint.sources.repository.kustomizations import is_component
from hooklint.sources.repository.tree import jsonnet_digest, jsonnet_not_evaluated, outside_repository, read_in_repository, repository_root
from hooklint.sources.spec import PINNED_REVISION, ApplicationSource
from hooklint.sources.repository.submodules import Unseen
from hooklint.sources.repository import facts

if TYPE_CHECKING:
    from hooklint.sources.render.redact import SecretValues
    from hooklint.sources.render.rendered import Renderer
    from hooklint.sources.render.helm import DependencyFetcher
    from hooklint.sources.render.kustomize import RemoteFetcher

__all__ = ["STDIN", "Application", "Coverage", "Leaving", "LoadedApplication", "group_applications", "load_application",
           "loaded_application"]  # fmt: skip

#: How much of an application hooklint rendered (issue 22: honest coverage): every object Argo CD
#: applies (``full``), the rest of it with entries left out (``partial``: a remote base, a
#: ``helmCharts`` entry, an unreadable values file), or nothing (``none``: the render failed, no
#: renderer, a config management plugin).
FULL, PARTIAL, NONE = "full", "partial", "none"


@dataclass(frozen=True, slots=True)
class Coverage:
    """``rendered`` (:data:`FULL`, :data:`PARTIAL` or :data:`NONE`) and why not full, one
    :class:`~hooklint.reasons.Unrendered` per entry left out or failure (the HL007, HL008 or
    HL009 issue's kind, file and position, its detail up to the first sentence or clause)."""

    rendered: str = FULL
    reasons: tuple[Unrendered, ...] = ()


#: The kind of reason each load issue of a rendering is.
_UNRENDERED = {RENDER_FAILED: UnrenderedKind.FAILED, RENDER_FAILED_DEFAULTS: UnrenderedKind.FAILED,
               RENDERER_UNAVAILABLE: UnrenderedKind.UNAVAILABLE, NOT_RENDERED: UnrenderedKind.LEFT_OUT}  # fmt: skip


def _short(detail: str) -> str:
    """The first clause of an issue's detail: up to the first ``; `` or ``. ``."""
    cut = [i for i in (detail.find("; "), detail.find(". ")) if i > 0]
    return detail[: min(cut)] if cut else detail.rstrip(".")


@dataclass(slots=True)
class LoadedApplication:
    """One application's ``files`` (reported and context), each with ``skip_reason`` set when
    Argo CD does not render it. A kustomize or Helm application has one file, its kustomization or
    ``Chart.yaml`` (carrying HL007, HL008 or HL009 when it did not render), and its ``rendered`` documents,
    made by ``renderer``."""

    app: Application
    files: list[LoadedFile]
    rendered: list[RenderedFile] | None = None
    renderer: Renderer | None = None
    #: The loaded sources of a multi-source Application, each with its own files and rendering.
    parts: list["LoadedApplication"] | None = None
    #: A rendered source's user files (bases, templates) that findings may be placed in, by path:
    #: their ``# hooklint: ignore[...]`` comments (:func:`~hooklint.loader.ignore_comments`), for
    #: the suppression stage; ``files`` carry their own (``LoadedFile.ignore_comments``).
    comments: dict[str, list] = field(default_factory=dict)
    #: A Helm source's secret values (its values files', its Application's: see
    #: :func:`~hooklint.sources.render.chart_value_secrets`), which findings never quote.
    secrets: SecretValues | None = None
    #: The sources from elsewhere ``--fetch`` fetched and rendered for it, and where their
    #: findings go (:class:`~hooklint.sources.appmap.remote.FetchedOrigin`, :func:`~hooklint.sources.appmap.remote.relocate`).
    fetched: list = field(default_factory=list)

    @property
    def namespace(self) -> str | None:
        """The namespace of objects that set none: the Argo CD Application's destination namespace
        (Argo CD applies namespaced objects without one there), else None."""
        return self.app.argocd.namespace if self.app.argocd is not None else None

    @property
    def component_alone(self) -> bool:
        """Whether this is a kustomize Component (``kind: Component``) that no Application of the run
        renders, rendered on its own through a wrapper (:func:`~hooklint.sources.render.kustomize.render_kustomize`,
        ``wrap_component``): no Argo CD application syncs exactly these objects, only kustomizations
        that list it under ``components``, together with their own (kustomize's
        ``api/krusty/kustomizer.go`` builds a Component only as part of them), so what a sync of the
        whole application does (HL305) is not said of it; each object's own rules still hold."""
        app = self.app
        return (app.argocd is None and app.source_type == KUSTOMIZE and app.manifest_file is not None
                and is_component(app.manifest_file))

    @property
    def coverage(self) -> Coverage:
        """How much of the application was rendered (:class:`Coverage`): a kustomize or Helm source
        is ``none`` when it did not render (an HL007, HL008 or HL009 issue and no rendering),
        ``partial`` when its rendering left entries out (HL009 issues beside a rendering), else
        ``full``; a multi-source Application combines its sources; a plugin source and an
        Application hooklint cannot render are ``none``; a directory source is ``full``."""
        if self.parts is not None:
            parts = [p.coverage for p in self.parts]
            kinds = {c.rendered for c in parts}
            rendered = kinds.pop() if len(kinds) == 1 else PARTIAL
            return Coverage(rendered, tuple(r for c in parts for r in c.reasons))
        app = self.app
        if app.source_type == REMOTE and app.argocd is not None and app.argocd.remote is not None and not self.fetched:
            remote = app.argocd.remote
            return Coverage(NONE, (Unrendered(UnrenderedKind.LEFT_OUT, remote_reason(app.argocd), app.argocd.manifest,
                                              remote.line, remote.column),))  # fmt: skip
        if app.source_type == PLUGIN:
            return Coverage(NONE, (Unrendered(UnrenderedKind.PLUGIN, "a config management plugin renders it, which "
                                              "hooklint never runs"),))  # fmt: skip
        if app.source_type == DIRECTORY or app.manifest_file is None:
            jsonnet = [f for f in self.files if f.path.lower().endswith(".jsonnet") and f.path in app.reported
                       and (f.skip_reason is JSONNET_REASON or f.skip_reason is None)]  # HL009 at it, or skipped
            pointers = [f for f in self.files if f.path in app.reported and is_lfs_note(f)]
            if not jsonnet and not app.unseen and not pointers:
                return Coverage()
            rest = any(f.skip_reason is None and f.error is None and f.documents for f in self.files)
            return Coverage(PARTIAL if rest else NONE, tuple(
                Unrendered(UnrenderedKind.LEFT_OUT, "jsonnet: Argo CD evaluates it, hooklint does not", f.path, 1, 1)
                for f in jsonnet) + tuple(
                Unrendered(UnrenderedKind.LEFT_OUT, "a Git LFS pointer: with Git LFS enabled, Argo CD applies the "
                           "file it stands for, which hooklint does not see", f.path, 1, 1) for f in pointers) + tuple(
                Unrendered(UnrenderedKind.LEFT_OUT, f"the git submodule {u.submodule}: Argo CD checks it out, hooklint "
                           "does not", u.file, u.line, u.column) for u in app.unseen))  # fmt: skip
        did_render = app.source_type != UNRENDERABLE and (self.renderer is not None or bool(self.fetched and self.rendered is not None))
        issue_kinds = (NOT_RENDERED,) if did_render else (RENDER_FAILED, RENDER_FAILED_DEFAULTS, RENDERER_UNAVAILABLE,
                                                          NOT_RENDERED)  # fmt: skip
        reasons = []
        for loaded in self.files[:1]:  # the kustomization, Chart.yaml or Application: its load issues
            for issue, _ in loaded.issues:
                if issue.kind in issue_kinds:
                    reasons.append(Unrendered(_UNRENDERED[issue.kind], _short(issue.detail), issue.path or loaded.path,
                                              issue.span.line, issue.span.column))  # fmt: skip
        if not did_render:
            return Coverage(NONE, tuple(reasons) or (Unrendered(UnrenderedKind.FAILED, "not rendered"),))
        return Coverage(PARTIAL, tuple(reasons)) if reasons else Coverage()

    @property
    def reported_files(self) -> list[LoadedFile]:
        """The files whose findings are shown (not the context files)."""
        reported = set(self.app.reported)
        return [f for f in self.files if f.path in reported]


def _fetcher(config: Config, fetched: list) -> "DependencyFetcher | None":
    """With ``--fetch``, what downloads a chart's dependencies (their places appended to
    ``fetched``: :func:`hooklint.sources.appmap.remote.dependency_fetcher`); else None."""
    if not config.fetch:
        return None
    from hooklint.sources.appmap.remote import dependency_fetcher  # noqa: PLC0415 - only with --fetch

    return dependency_fetcher(config, fetched)


def _base_fetcher(config: Config, fetched: list) -> "RemoteFetcher | None":
    """With ``--fetch``, what fetches a kustomization's remote bases and components (their places
    appended to ``fetched``: :func:`hooklint.sources.appmap.remote.kustomize_fetcher`); else None."""
    if not config.fetch:
        return None
    from hooklint.sources.appmap.remote import kustomize_fetcher  # noqa: PLC0415 - only with --fetch

    return kustomize_fetcher(config, fetched)


def load_application(app: Application, config: Config) -> LoadedApplication:
    """Read every file of ``app`` (reported and context; unreadable ones come back with
    ``error`` set) and mark those Argo CD does not render."""
    if app.source_type == MULTI:  # every source rendered, all of them one sync
        parts = [load_application(part, config) for part in app.parts]
        rendered = [r for p in parts if p.rendered is not None for r in p.rendered]
        renderer = next((p.renderer for p in parts if p.renderer is not None), None)
        files = [f for p in parts for f in p.files]
        found = [p.secrets for p in parts if p.secrets is not None]
        from hooklint.sources.render.redact import merged  # noqa: PLC0415 - redaction only where there are secrets

        return LoadedApplication(app, files, rendered if any(p.rendered is not None for p in parts) else None,
                                 renderer, parts, {k: v for p in parts for k, v in p.comments.items()},
                                 merged(*found) if found else None, [o for p in parts for o in p.fetched])  # fmt: skip
    if app.source_type == PLUGIN:  # a config management plugin renders it: never run, never read
        files = [LoadedFile(p, skip_reason=app.left_out.get(p)) for p in app.reported if p != app.source_note]
        note = _source_note(app, config, "is rendered by a config management plugin "
                            f"({app.argocd.field if app.argocd else 'spec.source'}.plugin), which hooklint never runs")
        return LoadedApplication(app, files + ([note] if note is not None else []), [], None)
    if app.source_type == REMOTE and app.argocd is not None and app.argocd.remote is not None:
        return _remote_application(app, app.argocd, config)
    if app.source_type == UNRENDERABLE and app.argocd is not None:
        assert app.manifest_file is not None  # discovery gives an unrenderable source its Application's file
        if app.argocd.generated_by is not None:  # a template or resource of its parent: linted there
            loaded = parse_text(app.manifest_file, "")
        else:
            loaded = read_in_repository(app.manifest_file, repository_root(os.path.dirname(app.manifest_file) or ".", app.named),
                                        config.max_file_size)  # fmt: skip
        if app.argocd.problem is not None and not app.unseen:  # a path in a submodule: missing here, not for Argo CD
            loaded.issues.append((LoadIssue(NOT_RENDERED if app.argocd.undecided else RENDER_FAILED,
                                            Span.point(*app.argocd.entry) if app.argocd.entry[0] else Span.point(app.argocd.line, 1),
                                            f"{app.argocd.label()}: {app.argocd.problem}"), 0))  # fmt: skip
        loaded.issues += [_unseen_issue(u, loaded.path) for u in app.unseen]  # its path is in a git submodule
        return LoadedApplication(app, [loaded], [], None)
    if app.source_type != DIRECTORY and app.manifest_file is not None:
        folder = app.folder or app.key
        fetched: list = []  # --fetch: the chart dependencies downloaded, where their findings go
        loaded, rendered, renderer, comments = render_source(app.source_type, folder, app.manifest_file, config, app.named,
                                                      app.argocd, fetched, _fetcher(config, fetched),
                                                      _base_fetcher(config, fetched), app.crd_apis)  # fmt: skip
        loaded.skip_reason = None
        if app.unseen:  # git submodules it reads: Argo CD renders them, hooklint does not
            _without_submodules(loaded, app, renderer is not None)
        for path, issues in sorted(app.issues.items()):  # an ApplicationSet among the rendered files
            for kind, line, column, detail in issues:
                loaded.issues.append((LoadIssue(kind, Span.point(line, column), detail, app.issue_fields.get(path, ""),
                                                path=path), 0))  # fmt: skip
            if path != loaded.path and path not in comments:
                found = comments_of(path, config)
                if found:
                    comments[path] = found
        unread = [LoadedFile(p, skip_reason=app.left_out[p]) for p in app.reported if p in app.left_out]
        secrets: SecretValues | None = None
        if app.source_type == HELM and rendered:
            secrets = chart_value_secrets(folder, repository_root(folder, app.named),
                                          app.argocd.options if app.argocd is not None else None, config.max_file_size)  # fmt: skip
            if secrets.incomplete:  # fail closed: a finding could quote a value it could not look for
                loaded.issues.append((LoadIssue(NOT_RENDERED, Span.point(1, 1), values_unread(folder, secrets.incomplete[0])), 0))
                return LoadedApplication(app, [loaded, *unread], [], None, comments=comments)
        if rendered and app.argocd is not None and app.argocd.secrets:  # its ApplicationSet generator's
            from hooklint.sources.render.redact import SecretValues  # noqa: PLC0415 - with secrets only

            secrets = secrets if secrets is not None else SecretValues()
            for value, key in app.argocd.secrets:
                secrets.add_carried(value, key)
        return LoadedApplication(app, [loaded, *unread], rendered, renderer, comments=comments, secrets=secrets,
                                 fetched=fetched)  # fmt: skip
    root = Containment(repository_root(app.folder or app.key, app.named)) if app.key != STDIN else None
    files, escaped = [], []
    for path in app.reported + app.context:
        if path == app.source_note and app.note_only:  # only for the HL009 below: not a file of this source
            continue
        jsonnet = path.lower().endswith(".jsonnet")
        if path in app.left_out and (jsonnet or dangling_link(path) is not None):  # skipped, never read
            files.append(LoadedFile(path, skip_reason=app.left_out[path]))
            continue
        # a stream named on the command line (/dev/stdin, <(...)) is the user's input, not a file of
        # a repository: its link to a descriptor is no link out of one
        target = root.escaping(path) if root is not None and not is_stream(path) else None
        if jsonnet and target is None:  # HL009 at its Application's source entry (below), else at the file
            files.append(LoadedFile(path, skip_reason=JSONNET_REASON) if app.source_note is not None else
                         jsonnet_not_evaluated(path, app.folder or app.key, app.argocd.label() if app.argocd else None,
                                               config.max_file_size))  # fmt: skip
            continue
        if target is None:
            files.append(facts.take_parsed(path, config.max_file_size))
            continue
        loaded = outside_repository(path, target)  # the target is never read
        files.append(loaded)
        escaped.append(loaded)
    for loaded in files:  # what expanding the ApplicationSets of this file met (HL022, HL007, HL008)
        for kind, line, column, detail in app.issues.get(loaded.path, ()):
            loaded.issues.append((LoadIssue(kind, Span.point(line, column), detail,
                                            app.issue_fields.get(loaded.path, "")), 0))  # fmt: skip
            if kind == NOT_RENDERED and not any(isinstance(d.value, Map) and d.value.get("kind") for d in loaded.documents):
                # data (an .argocd-source-NAME.yaml: discovery's _mark_app_source_files), not objects: only
                # the HL009, as for a Git LFS pointer, never skipped as unrelated YAML with it
                loaded.documents = []
    evaluated = [f.path for f in files if f.skip_reason is JSONNET_REASON and f.path in app.reported
                 and f.path not in app.left_out]  # directory.include/exclude leaves it out: never evaluated
    if app.source_note is not None and evaluated:
        note = _source_note(app, config, f"holds jsonnet files ({', '.join(evaluated)}), which Argo CD evaluates and "
                            "hooklint does not", files, jsonnet_digest(evaluated, config.max_file_size))  # fmt: skip
        if note is not None and app.note_only:
            files.append(note)
    if app.unseen:  # git submodules its folder holds: Argo CD applies what they hold, hooklint does not
        files += _unseen_files(app, files)
    application = loaded_application(app, files, config)
    for loaded in escaped:
        loaded.skip_reason = None
    return application


def _unseen_issue(unseen: Unseen, path: str) -> tuple[LoadIssue, int]:
    """The HL009 load issue of ``unseen`` (a git submodule the application reads), for the file
    ``path``: placed in ``unseen.file`` when it is another one."""
    return (LoadIssue(NOT_RENDERED, Span.point(unseen.line, unseen.column), unseen.detail, unseen.field,
                      path=None if unseen.file == path else unseen.file), 0)  # fmt: skip


def _without_submodules(loaded: LoadedFile, app: Application, rendered: bool) -> None:
    """Add to ``loaded`` (a kustomization or ``Chart.yaml``) the HL009 of each git submodule
    ``app`` reads; when its rendering failed, its HL007 becomes HL009 too: hooklint rendered it
    without the submodules, which Argo CD checks out first, so Argo CD may well render it."""
    if not rendered:
        named = ", ".join(u.submodule for u in app.unseen)
        loaded.issues = [(LoadIssue(NOT_RENDERED, issue.span, f"Not rendered without the git submodule{'s' if len(app.unseen) > 1 else ''} "
                                    f"it reads ({named}), which Argo CD checks out first: {issue.detail}", issue.field_path,
                                    path=issue.path), index)
                         if issue.kind in (RENDER_FAILED, RENDER_FAILED_DEFAULTS) else (issue, index)
                         for issue, index in loaded.issues]  # fmt: skip
    loaded.issues += [_unseen_issue(u, loaded.path) for u in app.unseen]


def _unseen_files(app: Application, files: list[LoadedFile]) -> list[LoadedFile]:
    """The HL009 of each git submodule the directory source ``app`` reads, added to the file of
    ``files`` it goes in (the Application's, or ``.gitmodules``), else to a file of its own
    (returned; no document, as :func:`_source_note` makes)."""
    by_path = {f.path: f for f in files}
    made: dict[str, LoadedFile] = {}
    for unseen in app.unseen:
        target = by_path.get(unseen.file) if not (app.note_only and unseen.file == app.source_note) else None
        if target is None:
            target = made.get(unseen.file)
        if target is None:
            target = made[unseen.file] = parse_text(unseen.file, "")
        target.issues.append(_unseen_issue(unseen, target.path))
    return list(made.values())


def remote_reason(source: ApplicationSource, why: str | None = None) -> str:
    """Why the source from elsewhere ``source`` (its ``remote`` set) is not rendered, one clause:
    ``spec.source is the chart cert-manager v1.14.0 of the chart repository
    https://charts.jetstack.io: hooklint fetches it only with `--fetch``` (``why``: what ``--fetch``
    met, when it was asked; else :func:`~hooklint.sources.appmap.remote.not_fetched`), and the ``$ref``
    value files of this repository it reads (they belong to its Application)."""
    remote = source.remote
    assert remote is not None, source.label()
    if why is None:
        from hooklint.sources.appmap.remote import not_fetched  # noqa: PLC0415

        why = not_fetched(remote)[0]
    values = f" (with the value files {', '.join(remote.value_files)} of this repository)" if remote.value_files else ""
    return f"{source.field} is {remote.describe()}: {why}{values}"


def _remote_application(app: Application, source: ApplicationSource, config: Config) -> LoadedApplication:
    """A source Argo CD's repo server fetches from elsewhere (issue 33): nothing rendered, and,
    when the run names the Application's file (``app.reported``), HL009 at the source's entry
    there (its ``chart:`` or ``repoURL:`` key; the template's line for a generated Application).
    Argo CD: ``reposerver/repository/repository.go`` ``GenerateManifests`` after
    ``runRepoOperation`` fetched the chart (``helm pull``) or cloned the repository."""
    remote = source.remote
    assert remote is not None and app.manifest_file is not None, app.key
    if not app.reported:
        return LoadedApplication(app, [], [], None)
    failed = ""
    if config.fetch:  # --fetch: download it as the repo server would, render it like a local source
        from hooklint.sources.appmap.remote import load_fetched  # noqa: PLC0415 - only with --fetch

        got = load_fetched(app, source, config, repository_root(os.path.dirname(app.manifest_file) or ".", app.named))
        if not isinstance(got, str):
            return LoadedApplication(app, [got.file], got.rendered, got.renderer, comments=got.comments,
                                     secrets=got.secrets, fetched=got.origins)  # fmt: skip
        failed = got
    if source.generated_by is not None:  # a template or resource of its parent: linted there
        loaded = parse_text(app.manifest_file, "")
    else:
        # its documents and load issues are replaced below: not parsed
        loaded = read_in_repository(app.manifest_file, repository_root(os.path.dirname(app.manifest_file) or ".",
                                                                       app.named), config.max_file_size, False)  # fmt: skip
    from hooklint.sources.appmap.remote import not_fetched  # noqa: PLC0415

    why, advice = not_fetched(remote)
    why, advice = (f"--fetch did not fetch it ({failed})", None) if failed else (why, advice)
    if remote.kind == PINNED_REVISION:  # this repository at another revision (issue 32)
        detail = (f"{source.label()}: {source.field}.targetRevision {remote.target_revision!r} is {remote.pinned}: Argo "
                  f"CD renders {remote.path} at that revision, and hooklint read {remote.path} only from the working "
                  "tree, at the checked-out revision, so none of the objects Argo CD renders there were checked, hooks "
                  f"included{f' ({why})' if failed else ''}; lint that revision's checkout (`git worktree add "
                  f"../at-revision {remote.target_revision}` then `hooklint lint ../at-revision/{(remote.path or '').strip('/')}`)"
                  f"{', ' + advice + ' to check it' if advice else ''}, or set targetRevision to the branch this change "
                  "merges into")  # fmt: skip
        loaded.documents = []
        loaded.issues = [(LoadIssue(NOT_RENDERED, Span.point(remote.line, remote.column), detail), 0)]
        return LoadedApplication(app, [loaded], [], None)
    detail = (f"{source.label()}: {remote_reason(source, why)}. Argo CD's repo server fetches it when it renders "
              "the application. hooklint did not render it, so none of its objects were checked, hooks included; "
              f"{advice + ' to check it, ' if advice else ''}vendor it into this repository, or lint what it renders "
              "(`helm template` or `kustomize build` output) with `hooklint lint -`")  # fmt: skip
    loaded.documents = []  # only the HL009: its objects, and what reading it met, are its folder's
    loaded.issues = [(LoadIssue(NOT_RENDERED, Span.point(remote.line, remote.column), detail), 0)]
    return LoadedApplication(app, [loaded], [], None)


def _source_note(app: Application, config: Config, what: str, files: list[LoadedFile] | None = None,
                 field_path: str = "") -> LoadedFile | None:
    """The HL009 of what Argo CD renders of ``app``'s Application source and hooklint does not
    (``what``: "holds jsonnet files (...)..."), at the source's ``repoURL:`` entry in its
    Application's file (:attr:`~hooklint.sources.appmap.discovery.Application.source_note`), added to that
    file among ``files`` when it is one of them, else to a file of its own (returned; no
    document); None when the run does not name the Application's file."""
    source = app.argocd
    if app.source_note is None or source is None:
        return None
    detail = (f"{source.label()}: {source.field} {what}. Argo CD renders it when it syncs the application. "
              "hooklint did not, so the objects it makes, possibly hooks, were not checked; lint what it renders with "
              "`hooklint lint -`")  # fmt: skip
    issue = (LoadIssue(NOT_RENDERED, Span.point(*source.entry), detail, field_path), 0)
    for loaded in files or ():
        if loaded.path == app.source_note and not app.note_only:
            loaded.issues.append(issue)
            return None
    if source.generated_by is not None:
        note = parse_text(app.source_note, "")
    else:
        note = read_in_repository(app.source_note, repository_root(os.path.dirname(app.source_note) or ".", app.named),
                                  config.max_file_size, False)  # fmt: skip  # documents and issues replaced below
    note.documents = []  # only the HL009: its objects are another application's
    note.issues = [issue]
    return note


def loaded_application(app: Application, files: list[LoadedFile], config: Config) -> LoadedApplication:
    """:func:`load_application` for files already read (stdin, tests, text)."""
    for loaded in files:
        if loaded.path in app.left_out and loaded.error is None:
            loaded.skip_reason = app.left_out[loaded.path]
    mark_unrendered(files)
    return LoadedApplication(app, files)
