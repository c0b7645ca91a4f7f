"""Which files make up each application: folder walks, files named one by one, stdin.

Argo CD syncs one application at a time, and cross-object rules look within one application.
Without an ``Application`` manifest to say otherwise, hooklint treats each folder as one application
(its manifest files, not its subfolders, as Argo CD's directory source does without ``recurse``),
and stdin as one application. Files named one by one (as pre-commit names them) bring the other
manifests of their folder along as context.

With Argo CD Applications of this repository known, the map (:func:`application_map`) decides which
folder is which application: Applications written as YAML (list items too), those an app of apps renders with Helm or
kustomize (recursively), those a directory source applies from a folder inside a Helm chart
(:func:`applications_in_charts`), and those ApplicationSets generate (:func:`applicationset_map`); a
multi-source Application is one application of several parts, a plugin source is listed as not linted. A
folder of the run that none of them deploys and that holds ``.argocd-source.yaml`` is linted as any Application
deploying it renders it (:func:`_stand_in_sources`: Argo CD merges that file into each one), and its
``.argocd-source-NAME.yaml`` files, for an Application hooklint cannot know, are HL009 (:func:`_mark_app_source_files`). A
directory source reads its folder's files whatever they are, a chart's included
(:func:`directory_reads_in_charts`).

Some files are no application's own, and are listed as not linted, with the reason, instead of
being linted on their own: a kustomization's patches and generator inputs, and the folders of
kustomize Components (``kind: Component``; one nothing of the run uses is rendered on its own), all linted through the rendering of the kustomizations
(or Argo CD Applications) that use them; and dangling symbolic links, which Argo CD skips
(``reposerver/repository/repository.go`` ``getPotentiallyValidManifestFile``).

Git submodules (:mod:`hooklint.sources.repository.submodules`) are checked out by Argo CD and never
fetched by hooklint: an application that reads one carries the HL009 that says so
(:attr:`Application.unseen`, :func:`_submodules_read`; one whose source is wholly in a submodule is
not rendered at all), and one that no application reads is listed as not linted.
"""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

from hooklint.argocd import DEFAULT_VERSION, ControlPlane, Version, is_argo_kind, supports
from hooklint.findings import InputError
from hooklint.sources.repository.gomatch import BadPattern, filepath_glob
from hooklint.sources.repository import facts
from hooklint.sources.repository.spelling import may_hold
from hooklint.loader import DEFAULT_MAX_FILE_SIZE, STDIN, read_file, user_path, within
from hooklint.reasons import Skip, SkipKind, through_rendering
from hooklint.yamlio import NOT_RENDERED, Map, Seq, go_yaml_text
from hooklint.sources.repository.kustomizations import (MAX_KUSTOMIZATIONS_FOLLOWED, component_exists, is_component,
                                                       kustomization_inputs, kustomization_reads,
                                                       kustomization_references, resolved_reads, unread_reason)
from hooklint.sources.repository.tree import (CHART_OWN_FOLDERS, DIRECTORY, HELM, HELM_CHART_FILE, KUSTOMIZATION_NAMES,
                                              KUSTOMIZE, MULTI, PLUGIN, REMOTE, UNRENDERABLE, chart_of, contained,
                                              dangling_link, dangling_reason, directory_source_files, hidden_manifests,
                                              inside_repository, is_manifest_name, repository_root, source_type, walk,
                                              MAX_HIDDEN_FILES)
from hooklint.sources.spec import ApplicationSource, document_objects
from hooklint.sources.repository.submodules import Submodule, Unseen, submodules_of, unseen_detail
from hooklint.sources.repository.submodules import forget as forget_submodules
from hooklint.sources.appmap.applications import (REPO_SOURCE_FILE, DirectoryOptions, app_source_files, applied_into,
                                                  find_application_sources,
                                                  repository_control_plane, repository_manifests, stand_in_source)

if TYPE_CHECKING:
    from hooklint.config import Config
    from hooklint.sources.repository.bindings import WrittenSubject
    from hooklint.sources.repository.volumes import HostPathVolume, VolumeClaim




@dataclass(slots=True)
class Application:
    """What Argo CD syncs as one application: the manifest files of one directory (not its
    subdirectories, like Argo CD's directory source without ``recurse``), or stdin.

    ``reported`` are the files whose findings are shown; ``context`` files are loaded only so that
    cross-object rules see the whole application (pre-commit passes files one by one)."""

    key: str
    reported: list[str]
    context: list[str] = field(default_factory=list)
    #: How Argo CD renders it (DIRECTORY, KUSTOMIZE, HELM) and, for the last two, the
    #: kustomization or ``Chart.yaml`` that makes it so.
    source_type: str = DIRECTORY
    manifest_file: str | None = None
    #: The topmost path named on the command line that brought this application in (a folder, or
    #: the folder of a file named on its own): it stands for the repository when there is no ``.git``.
    named: str | None = None
    #: The folder Argo CD renders (``key`` unless several Applications render the same folder).
    folder: str | None = None
    #: The Argo CD Application source this application is linted as (None: a folder of the run).
    argocd: ApplicationSource | None = None
    #: Files of ``reported`` not linted on their own, and why: left out by the Application
    #: (``directory.include/exclude``), read by a kustomization, or dangling symbolic links.
    left_out: dict[str, Skip] = field(default_factory=dict)
    #: The applications of each source of a multi-source Application (source type MULTI): Argo
    #: CD renders every source and syncs them all as one application, in one sync plan.
    parts: list["Application"] = field(default_factory=list)
    #: Issues to add to files of ``reported`` when they are read, as ``{file: [(issue kind, line,
    #: column, detail)]}``: what expanding the ApplicationSets written there met.
    issues: dict[str, list[tuple[str, int, int, str]]] = field(default_factory=dict)
    #: The field path of the issues of a file of :attr:`issues` (an ``.argocd-source-NAME.yaml``'s
    #: HL009: ``argocd-source[sha256:DIGEST]`` of its content, so new content is a new finding in a review).
    issue_fields: dict[str, str] = field(default_factory=dict)
    #: The Application's file where HL009 says what of this source Argo CD renders and hooklint
    #: does not (its jsonnet files, a config management plugin: issue 33), when the run names it;
    #: ``note_only``: that file is in ``reported`` only for it, never read as a manifest of it.
    source_note: str | None = None
    note_only: bool = False
    #: (group, kind) of the CRDs with ``scope: Cluster`` written in the run's and the repository's
    #: files (:func:`hooklint.sources.repository.crds.cluster_scoped_crds`): their objects get no namespace.
    cluster_crds: frozenset[tuple[str, str]] = frozenset()
    #: The hostPath PersistentVolumes written in the run's and the repository's files, and the
    #: claims there that name one (:func:`hooklint.sources.repository.volumes.host_path_volumes`): HL105.
    host_path_volumes: frozenset["HostPathVolume"] = frozenset()
    volume_claims: frozenset["VolumeClaim"] = frozenset()
    #: The subjects of the RoleBindings and ClusterRoleBindings written in the run's and the
    #: repository's files (:func:`hooklint.sources.repository.bindings.written_subjects`): HL104.
    written_subjects: frozenset["WrittenSubject"] = frozenset()
    #: The ``group/version`` and ``group/version/Kind`` of the CRDs written in the run's and the
    #: repository's files (:func:`hooklint.sources.repository.crds.crd_api_versions`), sorted: a
    #: cluster holding them serves them, and Argo CD passes them to Helm (``--api-versions``).
    crd_apis: tuple[str, ...] = ()
    #: The git submodules it reads, each as the HL009 that says so (:class:`~hooklint.sources.repository.submodules.Unseen`):
    #: Argo CD checks them out and renders them, hooklint does not (:func:`_submodules_read`).
    unseen: tuple["Unseen", ...] = ()

    @property
    def borrowed(self) -> set[str]:
        """The files of ``reported`` that are another application's, here only to carry an HL009
        (the Application's file of a source from elsewhere, of a jsonnet or plugin source): not
        counted among the files linted (they are, with their own folder)."""
        if self.source_type == MULTI:
            own = {f for p in self.parts for f in p.reported if f not in p.borrowed}
            return {f for p in self.parts for f in p.borrowed} - own
        if self.source_type == REMOTE:
            return set(self.reported)
        return {self.source_note} if self.note_only and self.source_note is not None else set()

    @property
    def applied_elsewhere(self) -> bool:
        """Every file is applied only through another application's rendering (a kustomize base or
        Component, patches and generator inputs), or by a recursive Application no file of the run
        holds (a hidden folder's): this folder has no sync of its own (and no plan)."""
        return self.source_type == DIRECTORY and bool(self.reported) and all(
            f in self.left_out and self.left_out[f].kind in (SkipKind.THROUGH_RENDERING, SkipKind.VALUE_FILE,
                                                             SkipKind.HIDDEN_FOLDER, SkipKind.CHART_FOLDER)
            for f in self.reported
        )

#: The input error of a folder argument that holds nothing to lint (an empty folder, a wrong path
#: in CI): never a silent pass.
NO_MANIFEST_FILES = "no YAML or JSON file (*.yaml, *.yml, *.json) in this folder or below it; nothing to lint"
ALL_EXCLUDED = "every YAML or JSON file in this folder or below it is excluded (exclude, --exclude); nothing to lint"
#: The input error of the file system's root named (or the current folder there, with no path): no
#: repository is checked out at ``/``, and its walk would read every folder of the machine, ``/proc``
#: too (attacker trial 47, F9: ``cd / && hooklint lint`` walked it until its deadline).
FILE_SYSTEM_ROOT = "the file system's root: no repository is checked out there; name the repository's folder"


@dataclass(slots=True)
class Leaving:
    """How far a run believes the files the repository's Applications leave out (``hooklint diff``,
    attacker trial 7 F3 and F9). ``trusted``: None (``lint``) believes every one; a set of origins
    (:func:`leaving_origin`, the base's) believes only those, and a file holding Kubernetes objects
    (:func:`holds_objects`) that another origin leaves out, and that no other application of the
    run lints, is linted as if it were not left out (with ``directory.include/exclude``, a
    ``helm.valueFiles`` entry, an ApplicationSet's git files generator: in its folder's
    application; with a ``plugin`` source: its folder as if that Application were not there), and
    listed in ``distrusted`` with the reason not believed. ``origins`` gets every origin the run's
    Applications define, whether or not a file of the run matches it (the base's, for the head).

    ``since`` (the base revision's copy, for the change's side) does the same for hooklint's own
    choice of leaving hidden folders unwalked (:attr:`SkipKind.HIDDEN_FOLDER`, trial 7 F6: a recursive
    directory Application in another repository applies them): a file there that holds objects and
    that the change adds or edits (:func:`changed_since`) is linted in its hidden folder's
    application, as if that folder were named (the Applications and ApplicationSets written there
    join the map, :func:`_changed_hidden_files`; trial 8 F5), and listed in ``distrusted`` with its reason; a file
    unchanged since the base stays listed as not linted, as does one below ``ignored`` (the working
    tree's untracked paths git ignores: in no commit)."""

    trusted: frozenset[tuple[str, ...]] | None = None
    origins: set[tuple[str, ...]] = field(default_factory=set)
    distrusted: list[tuple[str, Skip]] = field(default_factory=list)
    since: str | None = None
    ignored: tuple[str, ...] = ()

    def believes(self, origin: tuple[str, ...] | None) -> bool:
        """Whether a leaving-out of ``origin`` stands (no origin: not an Application's)."""
        return self.trusted is None or origin is None or origin in self.trusted


def changed_since(path: str, since: str, max_size: int = DEFAULT_MAX_FILE_SIZE, ignored: Iterable[str] = ()) -> bool:
    """Whether the file ``path`` (relative to the current folder, the change's copy of the
    repository) is the change's: it is not below one of ``ignored`` (untracked paths git ignores,
    relative, a folder ending in ``/``: in no commit), and the base's copy at ``since`` (the same
    relative path) is missing, or its bytes differ (links followed on both sides, inside their
    copy). Fails closed: a file either side cannot read (over ``max_size``, not a regular file, a
    base link leading out of ``since``) is changed."""
    from hooklint.files import read_bytes  # noqa: PLC0415 - only in a review

    relative = os.path.relpath(os.path.abspath(path))
    slashed = relative.replace(os.sep, "/")
    if any(slashed == i or i.endswith("/") and slashed.startswith(i) for i in ignored):
        return False
    base = os.path.join(since, relative)
    head = facts.read_regular(path, max_size)
    if head is None or relative.startswith(os.pardir) or not within(os.path.realpath(base), os.path.realpath(since)):
        return True
    try:
        return read_bytes(base, max_size) != head
    except OSError:
        return True


def _unlined(text: str | None) -> str:
    """``text`` (an origin's ``generated_by``) without its ``:LINE`` numbers: an edit above an
    Application moves its line, not its identity."""
    return re.sub(r":\d+\)", ")", text) if text else ""


def leaving_origin(how: str, source: ApplicationSource, *what: str) -> tuple[str, ...]:
    """Who leaves a file out and with which filter, comparable between two revisions: ``how``
    (``directory``, ``plugin``, ``valueFiles``), the Application's file, ``metadata.name``, the
    source's field (``spec.source``, ``spec.sources[1]``), what rendered or generated it (lines
    dropped), the source's folder, then ``what`` (the filter: include and exclude globs, or the
    value file). Another name (one the API server refuses, ``Shop_App``, so the live Application
    keeps its old spec), another file or another filter is another origin."""
    return (how, source.manifest, source.name, source.field, _unlined(source.generated_by), source.folder, *what)


def holds_objects(path: str, max_size: int = DEFAULT_MAX_FILE_SIZE) -> bool:
    """Whether the file ``path`` holds what a directory source would apply or fail on: a document
    that is an object with a ``kind`` (``Unstructured.UnmarshalJSON``), or a document hooklint cannot
    read in a file that says ``apiVersion:``, ``kind:`` and ``metadata:`` (or any ``.json``), or a
    file that cannot be read at all or that leads out of its repository (fail closed: never read
    here; where it is linted, the loader says why). Data (value files, generator parameters, JSON
    of other tools, unrelated YAML) does not."""
    from hooklint.yamlio import SYNTAX_ERROR, TOO_COMPLEX, TOO_MANY_ERRORS  # noqa: PLC0415

    if not contained([path]):  # a link out of the repository is never opened here
        return True
    loaded = read_file(path, max_size)
    if loaded.error is not None:
        return True
    if any(isinstance(d.value, Map) and isinstance(d.value.get("kind"), str) and d.value.get("kind")
           for d in loaded.documents):  # fmt: skip
        return True
    unreadable = any(issue.kind in (SYNTAX_ERROR, TOO_COMPLEX, TOO_MANY_ERRORS) for issue, _ in loaded.issues)
    return unreadable and loaded.looks_like_manifest


def group_applications(
    paths: Iterable[str],
    errors: list[InputError],
    notices: list[str] | None = None,
    repo_urls: Iterable[str] = (),
    excluded: Callable[[str], bool] | None = None,
    config: "Config | None" = None,
    left_out_files: list[str] | None = None,
    leaving: Leaving | None = None,
    submodules_left: list[tuple[str, Skip]] | None = None,
) -> list[Application]:
    """Expand command-line paths into applications, in a deterministic order.

    A directory contributes every manifest below it, one application per folder. A file named on
    its own belongs to its folder's application; the folder's other manifests become context. Paths
    that do not exist, and folders with no manifest file at all, are added to ``errors``. A dangling
    symbolic link found in a folder is left out with a reason (Argo CD skips it, see
    :func:`dangling_link`); one named on its own is an input error when it is read (the user asked for
    that file; pre-commit's ``types_or: [yaml, json]`` never passes a symbolic link). Argo CD
    Applications of this repository (:mod:`hooklint.sources.appmap.applications`; ``repo_urls`` from the
    configuration) replace the folders they cover by applications linted as they render them.

    Paths are normalised (``./app//x.yaml`` is ``app/x.yaml``), so a file named twice, or named and
    inside a named folder, is linted once, and the order and spelling of the arguments do not change
    the result.

    A file ``excluded`` matches (the configuration's ``exclude``) is never reported, even when named
    on its own: it is loaded as context of its folder's application, if that folder has one. Each
    such file that no application reports is added to ``left_out_files`` (when given), sorted, so
    that the run lists it among the files not linted: an exclude never passes a file silently.

    With ``config``, the map also holds the Applications that the repository's Helm charts and
    kustomizations render (app of apps, :func:`application_map`); without it, only those written
    as YAML.

    With ``leaving`` (:class:`Leaving`), the origins of what the Applications leave out are
    collected, and what it does not believe is linted as if not left out (``hooklint diff``).

    The git submodules Argo CD checks out that an application reads are HL009 of that application
    (:attr:`Application.unseen`, :func:`_submodules_read`); those in a named folder that none reads
    are added to ``submodules_left`` (when given) with the reason.

    The Applications and ApplicationSets written in hidden folders join the map when the folder is
    named, when a directory Application of the map reads it (:func:`_hidden_files_read`, followed
    until no more is found, at most :data:`MAX_APP_OF_APPS_DEPTH` rounds) or, in a review, when the
    change adds or edits the file (:func:`_changed_hidden_files`): exactly when the file is linted.

    Each path is asked of the file system once (:mod:`hooklint.sources.repository.facts`, reset here): the
    walk says which files are links, each folder's git root is found once."""
    facts.reset()
    forget_submodules()  # the index may have changed since the last run of this process
    paths = list(paths)
    reported: dict[str, set[str]] = {}
    named_by: dict[str, str] = {}
    named_files: set[str] = set()
    missing: set[str] = set()
    left_out: dict[str, set[str]] = {}
    dangling: dict[str, Skip] = {}
    hidden_dirs: list[str] = []  # hidden folders the walks left in folders of manifests
    chart_dirs: list[str] = []  # folders of charts the walks left, but the charts' own
    for path in paths:
        if path == STDIN:
            reported.setdefault(STDIN, set()).add(STDIN)
            continue
        path = os.path.normpath(path)
        if os.path.isdir(path) and os.path.realpath(path) == os.sep:
            errors.append(InputError(path, FILE_SYSTEM_ROOT))
            continue
        if os.path.isdir(path):
            chart = _enclosing_chart(os.path.join(path, HELM_CHART_FILE))  # the folder itself, or a chart above it
            inside = os.path.relpath(path, chart).split(os.sep)[0] if chart is not None else "."
            if inside in CHART_OWN_FOLDERS - {".git"}:
                # a folder Helm reads as its chart's (templates/, a subchart in charts/): linted as
                # part of its chart, as a template named on its own is (attacker trial 46, 3: `hooklint
                # lint chart/templates` linted the templates as written, a templated image unseen; exit 0)
                path = os.path.join(chart, HELM_CHART_FILE)  # type: ignore[arg-type]
        if os.path.isdir(path):
            found = kept = False
            for file in walk(path, errors, notices, hidden_found=hidden_dirs, chart_found=chart_dirs):
                found = True
                file = os.path.normpath(file)
                key = os.path.dirname(file) or "."
                if excluded is not None and excluded(file):
                    left_out.setdefault(key, set()).add(file)
                    continue
                kept = True
                reported.setdefault(key, set()).add(file)
                _name(named_by, key, path)
                target = dangling_link(file) if facts.walked_link(file) is not False else None
                if target is not None:
                    dangling[file] = dangling_reason(target)
            if not found and path not in missing:
                missing.add(path)
                errors.append(InputError(path, NO_MANIFEST_FILES))
            elif found and not kept:  # an over-broad exclude must not turn the check into a pass
                errors.append(InputError(path, ALL_EXCLUDED))
        elif os.path.lexists(path):
            chart = _enclosing_chart(path)
            if chart is not None:  # a template named on its own is linted as part of its chart
                path = os.path.join(chart, HELM_CHART_FILE)
            key = os.path.dirname(path) or "."
            if excluded is not None and excluded(path):
                left_out.setdefault(key, set()).add(path)
                continue
            reported.setdefault(key, set()).add(path)
            _name(named_by, key, key)
            named_files.add(path)
        elif path not in missing:
            missing.add(path)
            errors.append(InputError(path, "no such file or directory"))
    apps: list[Application] = []
    if notices is None:
        notices = []
    max_size = config.max_file_size if config is not None else DEFAULT_MAX_FILE_SIZE
    run_files = sorted(f for files in reported.values() for f in files if f != STDIN)
    repository_files = repository_manifests(run_files, repo_urls)
    # a file leading out of its repository is HL007 where it is loaded, its target never read here
    readable = contained(run_files + repository_files)
    # hidden files Argo CD applies, or the change adds or edits, are the map's as if their folders were named;
    # so are the Applications in a chart's folder that a directory source applies (trial 8 F10): then the map again
    hidden_read = _changed_hidden_files(hidden_dirs + chart_dirs, set(readable), excluded, leaving, max_size)
    in_charts: list[ApplicationSource] = []
    read_in_charts: set[str] = set()
    for _ in range(MAX_APP_OF_APPS_DEPTH + 1):
        said: list[str] = []  # the last map's notices only: each map renders the same parents again
        sources, appsets, foreign = _map_sources(readable + hidden_read, run_files, repository_files, repo_urls, config,
                                                 said, in_charts)  # fmt: skip
        more = _hidden_files_read(sources, set(readable) | set(hidden_read), excluded, leaving)
        more_in_charts = applications_in_charts(sources, read_in_charts, readable + hidden_read + run_files, repo_urls,
                                                max_size, config.argocd_namespace if config is not None else None)  # fmt: skip
        if not more and not more_in_charts:
            break
        hidden_read += more
        in_charts += more_in_charts
    notices.extend(said)
    remote = [s for s in sources if s.remote is not None]  # named, never rendered (issue 33)
    if config is not None and not foreign and readable:
        notices.extend(_lookalike_note(remote, readable[0], config, len(remote) < len(sources)))
    sources = [s for s in sources if s.remote is None]
    _add_hidden_sources(sources, [os.path.normpath(p) for p in paths if p != STDIN and os.path.isdir(p)],
                        reported, named_by, errors)  # fmt: skip
    covered: set[str] = set()
    #: kustomize Components of the run, by their kustomization (as the user spells it)
    components: dict[str, Application] = {}
    if sources:
        apps, covered = _mapped_applications(sources, reported, named_by, notices, leaving, max_size)
    apps = _join_remote(apps, remote, {os.path.abspath(f) for files in reported.values() for f in files if f != STDIN})
    stand_ins = _stand_in_sources(reported, covered, named_by, max_size)
    if stand_ins:  # folders no Application here deploys: their .argocd-source.yaml as any Application merges it
        standing, stand_covered = _mapped_applications(stand_ins, reported, named_by, notices, leaving, max_size)
        apps += standing
        # its own folder, and the plain folders a recursive one reads; a chart or kustomization below it
        # is still linted on its own (another Application may deploy it), as before the override
        own = {s.folder for s in stand_ins}
        covered |= {k for k in stand_covered if k in own or source_type(k)[0] == DIRECTORY}
    for key in sorted(reported):
        if key in covered:
            continue
        files = sorted(reported[key])
        kind, manifest_file = source_type(key) if key != STDIN else (DIRECTORY, None)
        if manifest_file is not None:  # rendered as a whole: findings land in the user's files
            manifest_file = os.path.normpath(manifest_file)
            files = sorted(set(files) | {manifest_file})
            if kind == KUSTOMIZE and is_component(manifest_file):  # linted through its users
                components[manifest_file] = Application(key, files, [], DIRECTORY, None, named_by.get(key))
                apps.append(components[manifest_file])
                continue
            app = Application(key, files, [], kind, manifest_file, named_by.get(key),
                              unseen=_submodules_read(kind, key, manifest_file, False))  # fmt: skip
            if kind == KUSTOMIZE:
                _leave_out_unread(app, kustomization_reads(manifest_file) if facts.is_file(manifest_file) else None)
            apps.append(app)
            continue
        context: list[str] = sorted(left_out.get(key, ()))
        if key != STDIN and any(f in named_files for f in files):
            context = _siblings(key, set(files))
        apps.append(Application(key, files, context, named=named_by.get(key)))
    for app in apps:
        if app.source_type == DIRECTORY:
            for name in app.reported:
                if name in dangling and name not in named_files:
                    app.left_out.setdefault(name, dangling[name])
    if sources:  # the repository's Applications say which folders Argo CD syncs: the others are bases
        apps = _leave_out_bases(apps)
    version = config.argocd_version if config is not None else DEFAULT_VERSION
    used = _leave_out_components(apps, components, version)
    # the repository's manifests, whether or not its URL is known: its CRDs and hostPath volumes
    # (trial 8, F9: `hooklint lint app/job.yaml` reads the PersistentVolume of infra/ as `hooklint
    # lint .` does), and the kustomizations that build a file of the run, whoever deploys them
    others = repository_files or repository_manifests(run_files, repo_urls, True)
    # readable is contained(run_files + repository_files): asked again only with more files
    whole = readable if repository_files or not others else contained(run_files + others)
    from hooklint.sources.appmap.applications import MAX_REPOSITORY_FILES  # noqa: PLC0415 - a sibling's bound

    if len(others) >= MAX_REPOSITORY_FILES:  # cut short: said, never a silent pass (trial 48, F2)
        notices.append(f"the repository holds more than {MAX_REPOSITORY_FILES:,} other manifest files: those past "
                       "them were not searched for the Applications, kustomizations and charts that deploy or build "
                       "the paths named; lint the whole repository (`hooklint lint`, `hooklint diff` without paths)")
    _leave_out_kustomize_inputs(apps, named_files, used,
                                [f for f in whole if os.path.basename(f) in KUSTOMIZATION_NAMES])  # fmt: skip
    _charts_using(apps, [f for f in whole if os.path.basename(f) == HELM_CHART_FILE], max_size)
    _mark_applicationset_inputs(apps, appsets.inputs)
    _mark_value_files(apps, _value_file_reads(sources + remote, leaving))
    _mark_app_source_files(apps, max_size, [s for s in sources if s.undecided and s.folder])
    if leaving is not None:
        leaving.origins |= _filter_origins(sources + stand_ins) | appsets.origins
        _distrust(apps, leaving, max_size)
    for app in apps:  # what expanding an ApplicationSet met is reported in its file
        for part in app.parts or [app]:
            for name in part.reported:
                if name in appsets.issues and part.source_type in (DIRECTORY, KUSTOMIZE, HELM):
                    part.issues[name] = part.issues.get(name, []) + appsets.issues[name]
    apps += _hidden_applications(apps, hidden_dirs, config.max_file_size if config is not None else DEFAULT_MAX_FILE_SIZE,
                                 excluded, left_out, notices, leaving, chart_dirs, version)  # fmt: skip
    from hooklint.sources.repository.crds import cluster_scoped_crds, crd_api_versions  # noqa: PLC0415 - a leaf module
    from hooklint.sources.repository.volumes import host_path_volumes  # noqa: PLC0415 - a leaf module
    from hooklint.sources.repository.bindings import written_subjects  # noqa: PLC0415 - a leaf module

    crds = cluster_scoped_crds(whole, max_size)
    crd_apis = tuple(sorted(crd_api_versions(whole, max_size)))
    volumes, claims = host_path_volumes(whole, max_size)
    subjects = written_subjects(whole, max_size)
    if sources:  # the repository's Applications say what Argo CD syncs: a binding nothing syncs grants nothing
        subjects = _synced_subjects(subjects, sources)
    for app in apps:
        for part in [app, *app.parts]:
            part.cluster_crds = crds
            part.crd_apis = crd_apis
            part.host_path_volumes, part.volume_claims = volumes, claims
            part.written_subjects = subjects
    apps.sort(key=lambda a: a.key)
    if submodules_left is not None:
        submodules_left.extend(_unread_submodules(paths, apps))
    if left_out_files is not None:
        linted = {f for app in apps for part in [app, *app.parts] for f in part.reported}
        left_out_files.extend(sorted({f for files in left_out.values() for f in files} - linted))
    facts.forget_contents()  # the scans are done: nothing of the files' bytes outlives discovery
    return apps


def _synced_subjects(subjects: frozenset["WrittenSubject"], sources: list[ApplicationSource]) -> frozenset["WrittenSubject"]:
    """The ``subjects`` written in a file one of the repository's Application ``sources`` syncs
    (attacker trial 29, B2: a RoleBinding in ``rbac-examples/``, which no Application deploys,
    silenced HL104 on a hook): one a directory source reads (its folder, below it with
    ``recurse``, not left out by its ``include``/``exclude``), one a kustomization reads
    (:func:`~hooklint.sources.repository.kustomizations.kustomization_reads`: its resources, bases
    and components followed), one under a chart's folder; a binding without a namespace, once for
    the destination namespace of each source syncing it. A source that cannot be rendered syncs
    nothing."""
    files = {s.file for s in subjects}
    synced: dict[str, set[str]] = {}  # file -> the destination namespaces of the sources syncing it
    for source in sources if files else ():  # no binding written: no kustomization followed for it
        if source.problem is not None or source.remote is not None or not source.folder:
            continue
        folder = os.path.abspath(source.folder)
        kind, found = source_type(source.folder)
        kind = source.source_type or kind
        reads = (kustomization_reads(found) or set()) if kind == KUSTOMIZE and found is not None else set()
        options = DirectoryOptions.from_application(source.options) if kind == DIRECTORY else None
        for file in files:
            path = os.path.abspath(file)
            if options is not None:
                relative = os.path.relpath(path, folder)
                inside = os.path.dirname(path) == folder or (options.recurse and not relative.startswith(".."))
                syncs = inside and options.excludes(relative.replace(os.sep, "/")) is None
            else:
                syncs = path in reads or (kind == HELM and not os.path.relpath(path, folder).startswith(".."))
            if syncs:
                synced.setdefault(file, set()).add(source.namespace or "")
    return frozenset(dataclasses.replace(s, binding_namespace=s.binding_namespace or namespace)
                     for s in subjects for namespace in synced.get(s.file, ()))  # fmt: skip


def _map_sources(files: list[str], run_files: list[str], repository_files: list[str], repo_urls: Iterable[str],
                 config: "Config | None", notices: list[str], in_charts: Iterable[ApplicationSource] = (),
                 ) -> tuple[list[ApplicationSource], "ApplicationSetMap", list[str]]:  # fmt: skip
    """The Application sources of the map (:func:`application_map`, with ``config``), what the
    ApplicationSets make (:func:`applicationset_map`), from the Applications and ApplicationSets
    written in ``files`` (the run's, the repository's and the hidden files read as theirs) and
    ``in_charts`` (those written in a chart's folder that a directory source applies:
    :func:`applications_in_charts`), and the note that every one names another repository
    (:func:`_foreign_note`; also in ``notices``)."""
    max_size = config.max_file_size if config is not None else DEFAULT_MAX_FILE_SIZE
    # where Argo CD's controller may run names each Application (InstanceName): asked once per map
    plane = repository_control_plane(files, config.argocd_namespace if config is not None else None, max_size)
    version = config.argocd_version if config is not None else DEFAULT_VERSION
    unplaced: list[str] = []
    written = find_application_sources(files, repo_urls, max_size, version, plane, unplaced=unplaced)
    appsets = applicationset_map(files, config, plane, written) if config is not None else ApplicationSetMap()
    made = appsets.sources + list(in_charts)
    # an Application written without a namespace that a generated directory source applies lives in its namespace
    if unplaced and any(applied_into(path, made) for path in unplaced):
        written = find_application_sources(files, repo_urls, max_size, version, plane, made)
    sources = written + made
    foreign = _foreign_note(files, config) if config is not None and not any(s.remote is None for s in sources) else []
    notices.extend(foreign)  # all name other repositories: say so once
    if config is not None and (any(s.remote is None for s in sources) or repository_files):
        known = set(files)  # once: in the comprehension it was built again per file (quadratic: a run over /tmp)
        sources = application_map(sources, files, [f for f in run_files if f in known], config, notices, plane)
    return sources, appsets, foreign


def _changed_hidden_files(hidden_dirs: list[str], known: set[str], excluded: Callable[[str], bool] | None,
                          leaving: Leaving | None, max_size: int) -> list[str]:
    """The files of the hidden folders ``hidden_dirs`` (those the run's walks left unwalked) that
    ``hooklint diff``'s change side lints as if their folder were named (:func:`_hidden_applications`:
    ``leaving.since`` set, the file not ``excluded``, added or edited by the change
    (:func:`changed_since`), holding objects (:func:`holds_objects`)), not in ``known``, sorted:
    the Applications and ApplicationSets written there join the map as a named folder's do (attacker
    trial 8 F5: an Application added in ``deploy/.argocd/`` turning on a chart's privileged hook
    with ``helm.valuesObject`` was linted as an object only, the chart rendered with its defaults).
    Nothing without ``leaving.since`` (``lint``: such a folder is listed as not linted)."""
    if leaving is None or leaving.since is None:
        return []
    out: set[str] = set()
    for folder in sorted({os.path.normpath(d) for d in hidden_dirs}):
        found, _ = hidden_manifests(folder, max_size)
        for file in (os.path.normpath(f) for f in found):
            if file in known or (excluded is not None and excluded(file)):
                continue
            if changed_since(file, leaving.since, max_size, leaving.ignored) and holds_objects(file, max_size):
                out.add(file)
    return sorted(contained(sorted(out)))


def _hidden_files_read(sources: list[ApplicationSource], known: set[str], excluded: Callable[[str], bool] | None,
                       leaving: Leaving | None) -> list[str]:
    """The manifest files in hidden folders that a directory source of this repository among
    ``sources`` reads, not in ``known``, sorted: every file of a hidden source folder
    (``spec.source.path: deploy/.argocd``) and, with ``directory.recurse``, every one below a hidden
    folder under the source's (Argo CD's ``getPotentiallyValidManifests``, v3.5.1, prunes no folder by
    name), less what its ``directory.include/exclude`` leaves out (when ``leaving`` believes it) and
    what the run's ``exclude`` matches. Argo CD applies the Applications written there (an app of
    apps), so they join the map, as the files themselves are linted (:func:`_mapped_applications`,
    :func:`_add_hidden_sources`). At most :data:`~hooklint.sources.appmap.applications.MAX_REPOSITORY_FILES`."""
    from hooklint.sources.appmap.applications import MAX_REPOSITORY_FILES  # noqa: PLC0415 - a sibling's bound

    out: set[str] = set()
    for source in sources:
        folder = os.path.normpath(source.folder)
        if source.problem is not None or source.remote is not None or not facts.is_dir(folder):
            continue
        if (source.source_type or source_type(folder)[0]) != DIRECTORY:
            continue
        options = DirectoryOptions.from_application(source.options)
        if options.recurse:
            files = [os.path.normpath(f) for f in walk(folder, [], hidden=True)]
        elif _is_hidden(folder):
            files = [os.path.normpath(f) for f in walk(folder, []) if os.path.dirname(os.path.normpath(f)) == folder]
        else:
            continue
        origin = leaving_origin("directory", source, options.include, options.exclude)
        for file in files:
            relative = os.path.relpath(file, folder)
            if file in known or not (_is_hidden(folder) or _is_hidden(relative)):
                continue
            if excluded is not None and excluded(file):
                continue
            if options.excludes(relative.replace(os.sep, "/")) is not None and (leaving is None or leaving.believes(origin)):
                continue
            out.add(file)
            if len(out) >= MAX_REPOSITORY_FILES:
                break
    return sorted(contained(sorted(out)))


def _filter_origins(sources: list[ApplicationSource]) -> set[tuple[str, ...]]:
    """The origins (:func:`leaving_origin`) of the ``plugin`` sources and of the
    ``directory.include/exclude`` filters of ``sources``, whether or not a file matches them."""
    out = set()
    for source in sources:
        if source.problem is not None:
            continue
        if source.source_type == PLUGIN:
            out.add(leaving_origin("plugin", source))
        options = DirectoryOptions.from_application(source.options)
        if options.include or options.exclude:
            out.add(leaving_origin("directory", source, options.include, options.exclude))
    return out


def _distrust(apps: list[Application], leaving: Leaving, max_size: int) -> None:
    """Lint the files that ``apps`` leave out for an origin ``leaving`` does not believe (a
    directory filter, a value file, a generator input the base does not have), that hold objects
    (:func:`holds_objects`) and that no other application of the run lints: their reason is
    dropped (from a multi-source application's too) and listed in ``leaving.distrusted``."""
    parts = [part for app in apps for part in (app.parts or [app])]
    linted = {f for part in parts if part.source_type in (DIRECTORY, KUSTOMIZE, HELM)
              for f in part.reported if f not in part.left_out}  # fmt: skip
    held: dict[str, bool] = {}
    for app in apps:
        for part in [app, *app.parts]:
            for name, why in sorted(part.left_out.items()):
                if leaving.believes(why.origin) or name in linted:
                    continue
                if name not in held:
                    held[name] = holds_objects(name, max_size)
                    if held[name]:
                        leaving.distrusted.append((name, why))
                if held[name]:
                    del part.left_out[name]


def _add_hidden_sources(sources: list[ApplicationSource], named_dirs: list[str], reported: dict[str, set[str]],
                        named_by: dict[str, str], errors: list[InputError]) -> None:  # fmt: skip
    """Add to ``reported`` the files of each Application source folder that is hidden (``.deploy``,
    or below one) and lies in a folder the run names: :func:`walk` skips hidden folders, but Argo
    CD renders whatever folder ``spec.source.path`` names. Before, such an application was a
    silent pass (0 files, exit 0)."""
    for source in sources:
        folder = os.path.normpath(source.folder)
        if source.problem is not None or not _is_hidden(folder) or not facts.is_dir(folder):
            continue
        named = next((d for d in named_dirs if within(os.path.abspath(folder), os.path.abspath(d))), None)
        if named is None:
            continue
        for file in walk(folder, errors):
            file = os.path.normpath(file)
            key = os.path.dirname(file) or "."
            reported.setdefault(key, set()).add(file)
            _name(named_by, key, named)


def _hidden_applications(apps: list[Application], hidden_dirs: list[str], max_size: int,
                         excluded: Callable[[str], bool] | None, left_out: dict[str, set[str]],
                         notices: list[str], leaving: Leaving | None = None,
                         chart_dirs: Sequence[str] = (),
                         version: Version = DEFAULT_VERSION) -> list[Application]:  # fmt: skip
    """One application per hidden folder of ``hidden_dirs`` (those :func:`walk` left unwalked in
    folders of manifests) holding files that look like Kubernetes objects
    (:func:`~hooklint.sources.repository.tree.hidden_manifests`) that no application of ``apps``
    reports nor a kustomization of the run builds from, every file left out with a reason (trial 7, F6): Argo CD's directory source with
    ``recurse`` applies hidden folders (``getPotentiallyValidManifests``, v3.5.1), and a recursive
    Application may live in another repository, so a hook added there is never a silent pass. A
    file the run's ``exclude`` matches goes to ``left_out`` (listed as excluded); tool folders
    (``.github`` workflows, ``.venv``) hold no such file and stay quiet. With ``leaving.since``
    (``hooklint diff``'s change side), a file that holds objects (:func:`holds_objects`) and that
    the change adds or edits (:func:`changed_since`) is linted there, not left out, and listed in
    ``leaving.distrusted``: leaving hidden folders unwalked is hooklint's choice, not Argo CD's, and
    a change cannot hide a manifest from its own review that way. The same for each folder of a Helm
    chart in ``chart_dirs`` (not the chart's ``templates/``, ``charts/``, ``crds/``; attacker trial 9,
    F13): hooklint renders the chart, while an Application whose path is that folder (often in
    another repository) applies its files as a directory source."""
    if not hidden_dirs and not chart_dirs:
        return []
    linted = {os.path.abspath(f) for app in apps for part in [app, *app.parts] for f in part.reported}
    read_folders: set[str] = set()
    for app in apps:  # what a kustomization of the run builds from a hidden folder is linted through it
        for part in [app, *app.parts]:
            if part.source_type == KUSTOMIZE and part.manifest_file and facts.is_file(part.manifest_file):
                reads = kustomization_reads(part.manifest_file) or set()
                for component in _added_components(part, version):  # spec.source.kustomize.components: hidden ones too
                    reads |= kustomization_reads(component) or {os.path.dirname(component)}
                linted |= reads
                read_folders |= {p for p in reads if facts.is_dir(p)}
    out = []
    in_chart = {os.path.normpath(d) for d in chart_dirs}
    for folder in sorted({os.path.normpath(d) for d in [*hidden_dirs, *chart_dirs]}):
        found, rest = hidden_manifests(folder, max_size)
        files = []
        for file in (os.path.normpath(f) for f in found if os.path.abspath(f) not in linted
                     and os.path.dirname(os.path.abspath(f)) not in read_folders):
            if excluded is not None and excluded(file):
                left_out.setdefault(os.path.dirname(file), set()).add(file)
            else:
                files.append(file)
        if rest:
            notices.append(f"{folder}: a hidden folder of more than {MAX_HIDDEN_FILES} manifest files: {rest} of them "
                           f"were not looked at (lint it by name: hooklint lint {folder}).")  # fmt: skip
        if not files:
            continue
        parent = os.path.dirname(folder) or "."
        why = Skip(f"in the hidden folder {folder}/, which hooklint walks only when named or when an Application of "
                   f"this repository reads {parent}/ (or a folder above) with directory.recurse, as Argo CD then applies it: lint it with "
                   f"`hooklint lint {folder}`", SkipKind.HIDDEN_FOLDER)  # fmt: skip
        if folder in in_chart:
            why = Skip(f"in the folder {folder}/ of the Helm chart {parent}/, which hooklint renders as a chart (its "
                       f"templates/), while an Application whose path is {folder} (in another repository too) applies "
                       f"its files as a directory source: lint it with `hooklint lint {folder}`",
                       SkipKind.CHART_FOLDER)  # fmt: skip
        linted_here: list[str] = []
        if leaving is not None and leaving.since is not None:
            linted_here = [f for f in files if changed_since(f, leaving.since, max_size, leaving.ignored)
                           and holds_objects(f, max_size)]  # fmt: skip
            leaving.distrusted.extend((f, why) for f in linted_here)
        out.append(Application(folder, files, [], DIRECTORY, None, None,
                               left_out={f: why for f in files if f not in linted_here}))  # fmt: skip
    return out


def _component_entries(source: ApplicationSource | None, folder: str,
                       version: Version = DEFAULT_VERSION) -> list[tuple[str, list[str]]]:  # fmt: skip
    """Each entry of ``spec.source.kustomize.components`` of ``source`` (a kustomize source of the
    application folder ``folder``, absolute) with the paths, relative to ``folder``, that Argo CD
    ``version`` adds for it: globbed as kustomize globs them
    (:func:`~hooklint.sources.repository.gomatch.filepath_glob`: ``*`` matches a hidden ``.comp``);
    with ``ignoreMissingComponents`` (from Argo CD 3.0), the entry itself when it exists in the
    checkout, else none (:func:`~hooklint.sources.repository.kustomizations.component_exists`: read
    literally, no glob)."""
    options = source.options if source is not None and isinstance(source.options, dict) else {}
    added = options.get("components")
    out = []
    for pattern in added if isinstance(added, list) else []:
        if not isinstance(pattern, str):
            continue
        if options.get("ignoreMissingComponents") is True and supports(version, "kustomize-ignore-missing-components"):
            out.append((pattern, [pattern] if component_exists(_top(folder), facts.realpath(folder), pattern) else []))
            continue
        try:
            out.append((pattern, filepath_glob(pattern, folder, _top(folder))))
        except BadPattern:
            out.append((pattern, []))
    return out


def _added_components(app: Application, version: Version = DEFAULT_VERSION) -> list[str]:
    """The absolute kustomization files of the Components the Application of ``app`` (a kustomize
    source) adds with ``spec.source.kustomize.components`` (:func:`_component_entries`)."""
    folder = os.path.abspath(app.folder or app.key)
    out = []
    for _, globbed in _component_entries(app.argocd, folder, version):
        for match in globbed:
            target = os.path.normpath(os.path.join(folder, match))
            name = next((n for n in KUSTOMIZATION_NAMES if facts.is_file(os.path.join(target, n))), None)
            if name is not None and within(os.path.realpath(target), _top(folder)):
                out.append(os.path.join(target, name))
    return out


def _top(folder: str) -> str:
    """The resolved top of the Git checkout holding ``folder``, else ``folder`` resolved: where a
    glob of ``folder`` may list names."""
    return os.path.realpath(facts.git_root_of(folder) or folder)


def _is_hidden(folder: str) -> bool:
    """Whether ``folder`` (normalised) is or lies below a hidden folder."""
    return any(part.startswith(".") and part not in (".", "..") for part in folder.split(os.sep))


def _kustomization_of(app: Application) -> str:
    """The kustomization of ``app``, a kustomize application (one with its manifest file)."""
    assert app.manifest_file is not None, app.key
    return app.manifest_file


def _leave_out_bases(apps: list[Application]) -> list[Application]:
    """``apps`` with every kustomization of the run that another kustomization of the run builds
    on (``resources``, ``bases``) turned into a folder whose files are not linted on their own.
    Used when the repository's Argo CD Applications are known (the map): a kustomization no
    Application points at, that an overlay builds on, is a base, which Argo CD applies only
    through the overlays that use it; so its files are linted through their renderings, where
    the overlay's images, patches and name prefixes apply: linted alone, a base of hooks would be
    "hooks only" (HL305) and an image the overlay pins "without a tag" (HL102). A kustomization
    whose users are all bases themselves in a cycle is kept (kustomize reports the cycle)."""
    kustomizations = [a for a in apps if a.source_type == KUSTOMIZE and a.manifest_file]
    by_folder = {os.path.dirname(os.path.abspath(_kustomization_of(a))): a for a in kustomizations if a.argocd is None}
    if not by_folder or len(kustomizations) < 2:
        return apps
    user_of: dict[str, Application] = {}
    for app in sorted(kustomizations, key=lambda a: a.key):
        for field_name, target in kustomization_references(_kustomization_of(app)):
            base = by_folder.get(target)
            if field_name in ("resources", "bases") and base is not None and base is not app:
                user_of.setdefault(_kustomization_of(base), app)
    out = []
    for app in apps:
        user = user_of.get(app.manifest_file) if app.source_type == KUSTOMIZE and app.manifest_file else None
        seen = set()
        root = user
        while root is not None and root.manifest_file in user_of and root.manifest_file not in seen:
            seen.add(root.manifest_file)
            root = user_of[root.manifest_file]
        if user is None or (root is not None and root.manifest_file in seen):
            out.append(app)
            continue
        why = through_rendering(f"a kustomize base that {user.manifest_file} builds on", _kustomization_of(user))
        base = Application(app.key, [f for f in app.reported], [], DIRECTORY, None, app.named)
        for name in base.reported:
            base.left_out[name] = why
        out.append(base)
    return out


def _leave_out_unread(app: "Application", reads: set[str] | None) -> None:
    """Mark the files of the kustomize application ``app`` that its build never reads (``reads``,
    from :func:`kustomization_reads`; None: unknown, nothing is marked)."""
    if reads is None or app.manifest_file is None:
        return
    read_folders = {p for p in reads if facts.is_dir(p)}
    for name in app.reported:
        absolute = os.path.abspath(name)
        if name == app.manifest_file or absolute in reads or os.path.dirname(absolute) in read_folders:
            continue
        app.left_out.setdefault(name, unread_reason(app.manifest_file))


def _leave_out_components(apps: list[Application], components: dict[str, Application],
                          version: Version = DEFAULT_VERSION) -> dict[str, Skip | str | None]:  # fmt: skip
    """Mark every file of the kustomize Component folders ``components`` (their kustomization ->
    their application) as not linted on its own, and return, for each Component, why: the first
    kustomization of the run (sorted) that renders it, or None when nothing of the run does.

    A Component is rendered by the kustomizations that list it under ``components``, directly or
    through their bases and other Components, and by Argo CD Applications that add it
    (``spec.source.kustomize.components``): its files are linted through those renderings. One that
    nothing of the run uses is rendered on its own, through a wrapper kustomization listing it
    (issue 22: ``hooklint lint comp/``, pre-commit naming one of its files): its patches of objects
    only its users add are left out of that rendering, each HL009 (never a false HL007); it becomes
    a kustomize application of the run and is not in the result's "not rendered" sense (its value
    says "rendered on its own")."""
    if not components:
        return {}
    by_folder = {os.path.dirname(os.path.abspath(k)): k for k in components}
    users: dict[str, Skip] = {}
    references: dict[str, list[tuple[str, str]]] = {}  # each kustomization read once
    for app in sorted((a for a in apps if a.source_type == KUSTOMIZE and a.manifest_file), key=_kustomization_of):
        user = _kustomization_of(app)
        source = app.argocd
        folder = os.path.abspath(app.folder or app.key)
        literal = (source is not None and isinstance(source.options, dict)
                   and source.options.get("ignoreMissingComponents") is True
                   and supports(version, "kustomize-ignore-missing-components"))  # fmt: skip
        for pattern, globbed in _component_entries(source, folder, version):
            for match in globbed or ([] if literal else [pattern]):  # a skipped entry adds nothing
                found = by_folder.get(os.path.normpath(os.path.join(folder, match)))
                if found is not None:
                    assert source is not None  # ``pattern`` is one of its options
                    users.setdefault(found, through_rendering(f"a kustomize Component that {source.label()} adds "
                                                              "(spec.source.kustomize.components)", user,
                                                              "that Application's"))  # fmt: skip
        seen: set[str] = set()
        stack = [os.path.abspath(user)]
        while stack and len(seen) < MAX_KUSTOMIZATIONS_FOLLOWED:
            kustomization = stack.pop()
            if kustomization in seen:
                continue
            seen.add(kustomization)
            if kustomization not in references:
                references[kustomization] = kustomization_references(kustomization)
            for field_name, target in references[kustomization]:
                if field_name == "components" and target in by_folder:
                    users.setdefault(by_folder[target], through_rendering(f"a kustomize Component that {user} renders",
                                                                          user))
                kind, found_file = source_type(target)
                if kind == KUSTOMIZE and found_file is not None:
                    stack.append(os.path.abspath(found_file))
    result: dict[str, Skip | str | None] = {}
    for kustomization, app in components.items():
        why = users.get(kustomization)
        if why is None and facts.is_file(kustomization):
            # issue 22: nothing of the run renders it, so it is rendered on its own, through a
            # wrapper kustomization listing it (hooklint.sources.render.kustomize), as its users would
            app.source_type, app.manifest_file = KUSTOMIZE, kustomization
            _leave_out_unread(app, kustomization_reads(kustomization))
            result[kustomization] = "rendered on its own"
            continue
        result[kustomization] = why
        if why is None:
            why = Skip(f"a kustomize Component ({kustomization} is kind: Component), applied only inside a "
                       "kustomization that lists it under components, and no kustomization of this run does: lint "
                       "one that does", SkipKind.UNUSED_COMPONENT)
        for name in app.reported:
            app.left_out.setdefault(name, why)
    return result


def _local_dependencies(chart_file: str, max_size: int) -> set[str]:
    """The resolved folders of the repository that the chart of ``chart_file`` renders as subcharts
    from elsewhere: each ``file://`` dependency of ``Chart.yaml`` and of ``requirements.yaml`` (an
    ``apiVersion: v1`` chart's), keys matched as Helm's Go JSON decoder matches them (any case), the
    value as YAML decodes it (``"file\\x3a//..."``); and each link in its ``charts/`` folder, which
    Helm's loader follows (attacker trial 48, F5 and F6)."""
    folder = os.path.dirname(os.path.abspath(chart_file))
    found: set[str] = set()
    for name in (HELM_CHART_FILE, "requirements.yaml"):
        path = os.path.join(folder, name)
        # never read through a link out of the repository (its render says HL007 where it leads)
        data = facts.read_regular(path, max_size) if facts.is_file(path) and inside_repository(path, path) else None
        if data is None:
            continue
        documents = facts.read_parsed(path, max_size, len(data)).documents
        value = documents[0].value if documents else None
        dependencies = _any_case(value, "dependencies")
        for dependency in dependencies if isinstance(dependencies, list) else []:
            repository = _any_case(dependency, "repository")
            if isinstance(repository, str) and repository.lower().startswith("file://"):
                found.add(facts.realpath(os.path.normpath(os.path.join(folder, repository[len("file://"):]))))
    charts = os.path.join(folder, "charts")
    for name in facts.entry_names(charts) or () if facts.is_dir(charts) else ():
        entry = os.path.join(charts, name)
        if os.path.islink(entry):
            found.add(facts.realpath(entry))
    return found


def _any_case(value: object, key: str) -> object:
    """``value[key]`` with the key matched in any case (Go's ``encoding/json``, which Helm's
    ``sigs.k8s.io/yaml`` decodes through, prefers the exact key), else None."""
    if not isinstance(value, dict):
        return None
    if key in value:
        return value[key]
    return next((v for k, v in value.items() if isinstance(k, str) and k.lower() == key), None)


def _charts_using(apps: list[Application], charts: list[str], max_size: int) -> None:
    """Add to ``apps`` each chart of the repository (its ``Chart.yaml`` among ``charts``) not in the
    run that renders a chart of the run from elsewhere (:func:`_local_dependencies`: a ``file://``
    dependency, a link in its ``charts/``): Helm renders it with the values the umbrella gives it
    (attacker trial 47, F7: ``hooklint pre-commit sub/templates/job.yaml`` rendered ``sub`` alone
    while ``umbrella``, with ``file://../sub`` and ``sub: {hostPID: true}``, is what Argo CD
    deploys; exit 0). One level: an umbrella of the umbrella is not looked for."""
    helm = [a.manifest_file for a in apps if a.source_type == HELM and a.manifest_file]
    run_charts = {facts.realpath(os.path.dirname(os.path.abspath(chart))) for chart in helm}
    in_run = {os.path.abspath(chart) for chart in helm}
    if not run_charts:
        return
    for chart_file in charts:
        if os.path.abspath(chart_file) in in_run or not (_local_dependencies(chart_file, max_size) & run_charts):
            continue
        user = chart_file if os.path.isabs(helm[0]) else os.path.normpath(os.path.relpath(chart_file))
        apps.append(Application(os.path.dirname(user) or ".", [user], [], HELM, user))
        in_run.add(os.path.abspath(chart_file))


def _built_from(kustomization: str, reported: dict[str, set[str]]) -> list[str]:
    """The run's folders (keys of ``reported``) holding a file the kustomization builds from
    outside its own folder (:func:`resolved_reads`): a base beside the
    overlay an Application deploys. Attacker trial 47, F1: ``hooklint pre-commit base/job.yaml``
    linted the base alone while the repository's Application deploys ``overlays/prod``, whose
    images and patches make its hook ``:latest`` with ``hostPID``; exit 0."""
    built = resolved_reads(kustomization)
    if built is None:
        return []
    return [key for key, files in reported.items()
            if key != STDIN and any(facts.realpath(os.path.abspath(f)) in built for f in files)]


def _enclosing_chart(path: str) -> str | None:
    """The chart that renders the file ``path`` (:func:`chart_of`), or, when that chart is a
    subchart in another chart's ``charts/`` (at any depth), the outermost one: Helm renders a
    subchart's templates with the values its parent gives it (``sub: {hostPID: true}`` in the
    parent's values.yaml), which its own defaults do not show (attacker trial 47, F6: ``hooklint
    pre-commit chart/charts/sub/templates/job.yaml`` rendered ``sub`` alone and passed). None
    outside a chart."""
    chart = chart_of(path)
    while chart is not None:
        parent = chart_of(chart)  # from the folder holding the chart, upward
        if parent is None or os.path.relpath(chart, parent).split(os.sep)[0] != "charts":
            break
        chart = parent
    return chart


def _leave_out_kustomize_inputs(apps: list[Application], named_files: set[str],
                                components: dict[str, Skip | str | None] | None = None,
                                elsewhere: Iterable[str] = ()) -> None:  # fmt: skip
    """Mark the files of directory applications that a kustomization reads as a patch, a generator
    input or a configuration: kustomize reads them, Argo CD never applies them as written, so they
    are linted through that kustomization's rendering, not on their own. A kustomization not in the
    run that builds a file of it (by resolved path) is brought in, unless it is a Component: one in
    a folder above the file's (up to the top of its repository), or ``elsewhere`` (the repository's
    other kustomization files, when its manifests are searched:
    :func:`hooklint.sources.appmap.applications.repository_manifests`; an overlay beside its base).
    A file named, or in a folder named, that it builds as a resource is then linted through it too
    (pre-commit names the file a change touches: attacker trials 46, 3 and 47, F1 to F5).
    ``components`` (a Component's kustomization -> why it is not linted on its own when something of
    the run renders it, else None) read inputs too."""
    components = dict(components or {})
    kustomizations = {a.manifest_file for a in apps if a.source_type == KUSTOMIZE and a.manifest_file}
    kustomizations |= set(components)
    # in the run whatever it became there (a base left out through its overlay is one of its files)
    in_run = {os.path.abspath(k) for k in kustomizations} | {
        os.path.abspath(f) for a in apps for part in [a, *a.parts] for f in part.reported
        if os.path.basename(f) in KUSTOMIZATION_NAMES}
    elsewhere = [k for k in dict.fromkeys(os.path.abspath(k) for k in elsewhere) if k not in in_run]
    resources: dict[str, str] = {}  # a file named (or in a folder named) -> the kustomization that builds it
    reads: dict[str, tuple[set[str] | None, set[str]]] = {}  # kustomization -> what it reads, its inputs (resolved)

    def read_by(found: str) -> tuple[set[str] | None, set[str]]:
        if found not in reads:
            reads[found] = (resolved_reads(found), {facts.realpath(p) for p in kustomization_inputs(found)})
        return reads[found]

    def bring_in(found: str, user: str) -> None:
        if user not in kustomizations and found not in in_run:
            kustomizations.add(user)
            in_run.add(found)
            if is_component(found):
                components[user] = None
            else:
                apps.append(Application(os.path.dirname(user) or ".", [user], [], KUSTOMIZE, user))

    candidates = [a for a in apps if a.source_type in (DIRECTORY, KUSTOMIZE) and a.key != STDIN and a.reported]
    named_of: dict[int, list[str]] = {}  # application -> its files named, or in its folder named
    for app in candidates:
        direct = app.named is not None and os.path.normpath(app.named) == app.key  # the folder itself named
        named_of[id(app)] = [n for n in app.reported if (direct or n in named_files)
                             and (app.source_type == DIRECTORY or n == app.manifest_file)]  # a kustomization by its file (F2)
    for app in candidates:
        named = named_of[id(app)]
        folder = os.path.abspath(app.key)
        while True:  # every kustomization above its folder, up to the top of its repository (at any depth:
            parent = os.path.dirname(folder)  # trial 47, F3; past one that does not build it: F4)
            if parent == folder:
                break
            folder = parent
            if not inside_repository(folder, app.reported[0]):
                break
            kind, found = source_type(folder)
            if kind != KUSTOMIZE or found is None:
                continue
            user = os.path.normpath(os.path.relpath(found)) if not os.path.isabs(app.key) else found
            if (user in kustomizations or found in in_run) and not named:
                continue  # in the run already, and nothing here to leave out: nothing to ask
            built, inputs_read = read_by(found)
            # what it builds, by resolved path (links: trial 47, F5); one that cannot be told may read it
            takes = [n for n in app.reported if built is None or facts.realpath(os.path.abspath(n)) in built]
            if not takes:
                continue
            # a resource it builds, named (attacker trial 46, 3: `hooklint pre-commit
            # app/jobs/job.yaml` linted the Job as written, while app/kustomization.yaml's images
            # and patches make it busybox:latest as `default` with its token; exit 0)
            for name in named if built is not None and app.source_type == DIRECTORY else []:
                if name in takes and facts.realpath(os.path.abspath(name)) not in inputs_read:
                    resources.setdefault(name, user)
            bring_in(found, user)
    # every other kustomization of the repository, each asked once (an overlay beside its base, a
    # Component's user: trial 47, F1, F8); one that cannot be told is in (trial 48, F3)
    by_real: dict[str, list[tuple[Application, str]]] = {}
    for app in candidates if elsewhere else []:
        for name in app.reported:
            by_real.setdefault(facts.realpath(os.path.abspath(name)), []).append((app, name))
    for found in elsewhere:
        if found in in_run:
            continue
        built, inputs_read = read_by(found)
        if built is None:  # cannot be told (unreadable, or too many kustomizations on the way): it may build
            bring_in(found, found if candidates and os.path.isabs(candidates[0].key)  # one of the run's files
                     else os.path.normpath(os.path.relpath(found)))  # fmt: skip
            continue
        hits = [(app, name, real) for real in built for app, name in by_real.get(real, ())]
        if not hits:
            continue
        user = found if os.path.isabs(hits[0][0].key) else os.path.normpath(os.path.relpath(found))
        for app, name, real in hits:
            if app.source_type == DIRECTORY and name in named_of[id(app)] and real not in inputs_read:
                resources.setdefault(name, user)
        bring_in(found, user)
    for app in apps:
        if app.source_type != DIRECTORY:
            continue
        for name in app.reported:
            kustomization = resources.get(name)
            if kustomization is not None and name not in app.left_out and kustomization not in components:
                app.left_out[name] = through_rendering(f"{kustomization} builds it (resources)", kustomization)
    inputs: dict[str, tuple[str, str]] = {}
    for kustomization in sorted(kustomizations):
        for path, field_name in kustomization_inputs(kustomization).items():
            inputs.setdefault(path, (kustomization, field_name))
    if not inputs:
        return
    for app in apps:
        if app.source_type != DIRECTORY:
            continue
        for name in app.reported:
            hit = inputs.get(os.path.abspath(name))
            if hit is None or name in app.left_out:
                continue
            if hit[0] in components and components[hit[0]] is None:
                app.left_out[name] = Skip(f"{hit[0]} reads it ({hit[1]}), a kustomize Component that no kustomization "
                                          "of this run lists under components: lint one that does",
                                          SkipKind.UNUSED_COMPONENT)  # fmt: skip
            else:
                app.left_out[name] = through_rendering(f"{hit[0]} reads it ({hit[1]})", hit[0])


def _mapped_applications(
    sources: list[ApplicationSource], reported: dict[str, set[str]], named_by: dict[str, str], notices: list[str],
    leaving: Leaving | None = None, max_size: int = DEFAULT_MAX_FILE_SIZE,
) -> tuple[list[Application], set[str]]:
    """The applications of the Application ``sources`` whose folders hold files of the run, and the
    run's folders they cover (not linted again on their own): the source folder, and every folder
    under it when it is rendered (kustomize, Helm) or read recursively (``directory.recurse``).
    A plugin source whose origin ``leaving`` does not believe (:class:`Leaving`) covers nothing
    when a file of its folders holds objects: they are linted as if that Application were not there."""
    apps: list[Application] = []
    covered: set[str] = set()
    per_folder: dict[str, int] = {}
    for source in sources:
        per_folder[source.folder] = per_folder.get(source.folder, 0) + 1
    multi = _multi_source_groups(sources)
    for parts in multi.values():  # one of its sources is in the run: all of them are (one sync)
        if any(k != STDIN and within(k, p.folder) for p in parts for k in list(reported)):
            for p in parts:
                if p.folder in (".", "") or not facts.is_dir(p.folder):
                    continue
                for file in walk(p.folder, []):
                    file = os.path.normpath(file)
                    reported.setdefault(os.path.dirname(file) or ".", set()).add(file)
    run = {os.path.abspath(f) for files in reported.values() for f in files if f != STDIN}
    charts = _walked_charts(reported)  # where a directory source reads what the walk left in a chart
    for source in sources:
        folder = source.folder
        named_app = any(os.path.abspath(f) in run for f in (source.manifest, *source.scope))
        # a path in a git submodule: Argo CD checks it out and renders it, hooklint sees an empty folder
        whole = _submodules_read(DIRECTORY, folder, None, False, source, True) if folder else ()
        if whole and whole[0].whole:
            if named_app:
                apps.append(Application(f"{source.manifest} ({source.name})", [source.manifest], [], UNRENDERABLE,
                                        source.manifest, None, folder, source, unseen=whole))  # fmt: skip
            continue
        if source.problem is not None:  # reported on the Application's source (HL007)
            if not named_app:
                continue  # an Application this run does not name: not its business (pre-commit)
            apps.append(Application(f"{source.manifest} ({source.name})", [source.manifest], [], UNRENDERABLE,
                                    source.manifest, None, folder, source))  # fmt: skip
            continue
        inside = [k for k in reported if k != STDIN and _under(k, folder)]
        key = folder if per_folder[folder] == 1 else f"{folder} ({source.name}{', first comparison' if source.view else ''})"
        if source.source_type == PLUGIN and (inside or named_app):  # any folder content, none included
            files = sorted({f for k in inside for f in reported[k]})
            why = Skip(f"{source.label()} renders it with a config management plugin ({source.field}.plugin), "
                       "which hooklint never runs", SkipKind.PLUGIN, origin=leaving_origin("plugin", source))  # fmt: skip
            if leaving is not None and not leaving.believes(why.origin):
                objects = [f for f in files if holds_objects(f, max_size)]
                if objects:
                    leaving.distrusted.extend((f, why) for f in objects)
                    continue
            covered.update(inside)
            notices.append(f"{folder}: {source.label()} renders it with a config management plugin, which hooklint "
                           "never runs: not linted.")  # fmt: skip
            plugin = Application(key, files, [], PLUGIN, None, named_by.get(inside[0]) if inside else None, folder,
                                 source, {f: why for f in files})  # fmt: skip
            apps.append(_with_source_note(plugin, source, named_app))
            continue
        detected, manifest_file = source_type(folder)
        kind = source.source_type or detected
        options = DirectoryOptions.from_application(source.options)
        # what Argo CD's directory source reads where the run's walk stopped at a chart (trial 8 F10, F11)
        in_charts = directory_reads_in_charts(folder, options.recurse, charts) if kind == DIRECTORY and charts else []
        if kind in (KUSTOMIZE, HELM) and (manifest_file is None or (kind == HELM) != manifest_file.endswith(HELM_CHART_FILE)):
            manifest_file = os.path.join(folder, HELM_CHART_FILE if kind == HELM else KUSTOMIZATION_NAMES[0])
        unseen = _submodules_read(kind, folder, manifest_file, options.recurse, source, named_app)
        if kind == KUSTOMIZE and not inside and manifest_file is not None and facts.is_file(manifest_file):
            inside = _built_from(manifest_file, reported)
        if kind == HELM and not inside and manifest_file is not None and facts.is_file(manifest_file):
            # a chart of the run it renders from elsewhere, with this Application's values (trial 48, F4)
            local = _local_dependencies(manifest_file, max_size)
            inside = [k for k in reported if k != STDIN and any(
                within(facts.realpath(os.path.abspath(k)), folder_of) for folder_of in local)]
        if not inside and not in_charts:
            if unseen and named_app:  # nothing but submodules: said at the Application
                apps.append(_with_source_note(Application(key, [], [], DIRECTORY, None, None, folder, source,
                                                          unseen=unseen), source, True))  # fmt: skip
            continue
        # the run's spelling of paths (absolute when it named the folder so), for what is added to its files
        spelled = os.path.abspath if inside and os.path.isabs(inside[0]) else os.path.normpath
        if kind in (KUSTOMIZE, HELM):
            assert manifest_file is not None  # set above
            manifest_file = spelled(manifest_file)
            reads = kustomization_reads(manifest_file) if kind == KUSTOMIZE and facts.is_file(manifest_file) else None
            if reads is not None:  # a kustomization renders what it lists, not every folder under it
                read_folders = {p if facts.is_dir(p) else os.path.dirname(p) for p in reads}
                inside = [k for k in inside if _under(k, folder, exactly=True) or os.path.abspath(k) in read_folders]
                if not inside:
                    continue  # the run's files are in folders this kustomization does not read
            covered.update(inside)
            files = sorted({f for k in inside for f in reported[k]} | {manifest_file})
            app = Application(key, files, [], kind, manifest_file, named_by.get(inside[0]), folder, source,
                              unseen=unseen)  # fmt: skip
            _leave_out_unread(app, reads)
            apps.append(app)
            continue
        for problem in options.problems:
            notices.append(f"{source.label()}: {problem}; ignored.")
        if options.recurse:  # Argo CD reads its hidden folders too: walked here, where the run's walk skipped them
            for file in walk(folder, [], hidden=True) if facts.is_dir(folder) else ():
                file = spelled(file)
                if _is_hidden(os.path.relpath(file, spelled(folder))):
                    reported.setdefault(os.path.dirname(file) or ".", set()).add(file)
                    _name(named_by, os.path.dirname(file) or ".", named_by.get(inside[0]) or folder)
            inside = [k for k in reported if k != STDIN and _under(k, folder)]
            mine = inside
        else:
            mine = [k for k in inside if _under(k, folder, exactly=True)]
        if not mine and not in_charts:
            if unseen and named_app:  # nothing but submodules: said at the Application
                apps.append(_with_source_note(Application(key, [], [], DIRECTORY, None, None, folder, source,
                                                          unseen=unseen), source, True))  # fmt: skip
            continue
        covered.update(mine)
        files = sorted({f for k in mine for f in reported[k]} | {f for f, _ in in_charts})
        named = named_by.get(mine[0]) if mine else named_by.get(charts[in_charts[0][1]])
        left_out = {}
        for f in files:
            relative = os.path.relpath(f, folder).replace(os.sep, "/")
            excluded = options.excludes(relative)
            if excluded is not None:
                left_out[f] = Skip(f"{source.label()} leaves it out ({source.field}.directory): it {excluded}",
                                   SkipKind.EXCLUDED,
                                   origin=leaving_origin("directory", source, options.include, options.exclude))
        app = Application(key, files, [], DIRECTORY, None, named, folder, source, left_out, unseen=unseen)
        if unseen or any(f.lower().endswith(".jsonnet") and f not in left_out for f in files):  # Argo CD renders them
            app = _with_source_note(app, source, named_app)
        apps.append(app)
    return _join_multi_source(apps, multi), covered


def _under(path: str, folder: str, exactly: bool = False) -> bool:
    """Whether the run's folder ``path`` is an Application's source ``folder`` or (unless
    ``exactly``) below it, however each is spelled: the run's paths as the user typed them
    (``/work/repo/app``), an Application's folder relative to the current one (``app``). A
    comparison of the spellings missed an Application's ``directory.recurse`` when the run named the
    folder by its absolute path, and its hidden hooks went unlinted."""
    if folder in (".", "") and not exactly:
        return True
    path, folder = os.path.abspath(path), os.path.abspath(folder)
    return path == folder if exactly else within(path, folder)


def _stand_in_sources(reported: dict[str, set[str]], covered: set[str], named_by: dict[str, str],
                      max_size: int) -> list[ApplicationSource]:  # fmt: skip
    """The :func:`~hooklint.sources.appmap.applications.stand_in_source` of each folder of the run
    (``reported``) that no Application of the repository deploys (not in ``covered``) and that
    holds ``.argocd-source.yaml``: Argo CD merges it into every Application that deploys the
    folder (``reposerver/repository/repository.go`` v3.5.1 ``mergeSourceParameters``), so the folder
    is linted as such an Application renders it (its source type and options decided by the file)
    rather than with the defaults of a bare folder. A kustomize Component's folder is left to its
    users (Argo CD cannot build one on its own)."""

    found = []
    for key in sorted(reported):
        if key == STDIN or key in covered or REPO_SOURCE_FILE not in (facts.entry_names(key) or ()):
            continue
        kind, manifest_file = source_type(key)
        if kind == KUSTOMIZE and manifest_file is not None and is_component(manifest_file):
            continue
        source = stand_in_source(key, repository_root(key, named_by.get(key)), max_size)
        if source is not None:
            found.append(source)
    return found


def _mark_app_source_files(apps: list[Application], max_size: int, undecided: Iterable[ApplicationSource] = ()) -> None:
    """Add HL009 to each ``.argocd-source-NAME.yaml`` file (:func:`~hooklint.sources.appmap.applications.app_source_files`)
    of an application no Application of the repository renders (a folder linted on its own, or as
    its ``.argocd-source.yaml`` stand-in), at 1:1 of the file: a directory application's when it
    reports the file (not excluded), a rendered one's always (its ``Chart.yaml`` or kustomization
    carries it, placed in the file).

    Argo CD merges such a file (after ``.argocd-source.yaml``) only into the Application whose
    instance name is ``NAME`` (``mergeSourceParameters``; argocd-image-updater writes them). No
    Application of this repository deploys the folder, so hooklint cannot know whether that one
    does (it may live in another repository): it fails closed, rendering the folder without the
    file and saying so, with the keys the file sets, rather than guessing the Application (its
    name also feeds the release name and the build environment) or passing the file silently.
    ``undecided``: the sources of the repository's Applications whose instance name hooklint does
    not know (:func:`~hooklint.sources.appmap.applications.sources_of`: HL009 at each); one that
    deploys the folder is named as such in the message."""
    import hashlib  # noqa: PLC0415 - OpenSSL's module only when such a file is met


    # the files the repository's own Applications merge, by folder: one of theirs is no stranger
    merged: dict[str, set[str]] = {}
    deployers: dict[str, list[str]] = {}
    for app in apps:
        if app.argocd is not None and not app.argocd.stand_in and app.source_type != MULTI:
            folder = os.path.abspath(app.folder or app.key)
            merged.setdefault(folder, set()).update(os.path.abspath(f) for f in app.argocd.overrides)
            instance = dict(app.argocd.env).get("ARGOCD_APP_NAME") or app.argocd.name
            said = f"{app.argocd.label()} from .argocd-source-{instance}.yaml"
            if instance.endswith(f"_{app.argocd.name}"):  # InstanceName: <namespace>_<name> outside Argo CD's namespace
                said += (f" (its instance name: it lives in namespace {instance[:-len(app.argocd.name) - 1]!r}, not "
                         "Argo CD's; an Application written without metadata.namespace lives in the destination "
                         "namespace of the Application that applies it)")  # fmt: skip
            if said not in deployers.get(folder, []):
                deployers.setdefault(folder, []).append(said)
    open_names: dict[str, list[str]] = {}
    for source in undecided:
        said = source.label()
        if said not in open_names.get(os.path.abspath(source.folder), []):
            open_names.setdefault(os.path.abspath(source.folder), []).append(said)
    for app in apps:
        if app.key == STDIN or app.source_type == MULTI:
            continue
        folder = app.folder or app.key
        ours = app.argocd is not None and not app.argocd.stand_in
        reported = set(app.reported)
        for path in app_source_files(folder):
            path = os.path.normpath(path)
            if ours and os.path.abspath(path) in merged.get(os.path.abspath(folder), ()):
                continue  # the file of one of the repository's Applications that deploy the folder
            if path not in reported and app.source_type == DIRECTORY:  # a rendered one's go in its Chart.yaml's issues
                continue
            if path in app.issues and any(kind == NOT_RENDERED for kind, *_ in app.issues[path]):
                continue  # said once per file (two Applications may deploy the folder)
            loaded = read_file(path, max_size)
            body = loaded.documents[0].value if loaded.documents else None
            keys = sorted(str(k) for k in body) if isinstance(body, Map) else []
            name = os.path.basename(path)[len(".argocd-source-"):-len(".yaml")]
            sets = f"sets {', '.join(keys)}" if keys else "sets no key hooklint can read"
            who = (f"the Applications of this repository that deploy {os.path.normpath(folder)}/ are not that one "
                   f"(Argo CD reads the overrides of {'; '.join(deployers.get(os.path.abspath(folder), []))}), so it "
                   "is one hooklint cannot see (it may live in another repository), and hooklint"
                   if ours else
                   f"the Applications of this repository that deploy {os.path.normpath(folder)}/ "
                   f"({'; '.join(open_names[os.path.abspath(folder)])}) have an instance name hooklint does not know "
                   "(HL009 at each: set argocd-namespace), so hooklint cannot know whether one of them is that one, and"
                   if os.path.abspath(folder) in open_names else
                   f"no Application of this repository deploys {os.path.normpath(folder)}/, so hooklint cannot know "
                   "whether that one does (it may live in another repository) and")  # fmt: skip
            fix = ("if the file is meant for one of those Applications, name it after that one's instance name; if it "
                   "is for another Application, add that Application to this repository (or its repoURL to repo-urls), "
                   "or lint what it renders with `hooklint lint -`"
                   if ours else
                   "set argocd-namespace in the configuration to the namespace Argo CD runs in, or lint what it "
                   "renders with `hooklint lint -`"
                   if os.path.abspath(folder) in open_names else
                   "add that Application to this repository (or its repoURL to repo-urls), or lint what it renders "
                   "with `hooklint lint -`")  # fmt: skip
            detail = (f"{os.path.basename(path)} {sets}, which Argo CD merges (after .argocd-source.yaml) only into "
                      f"the Application whose instance name is {name!r}; {who} rendered the folder without this file: "
                      f"what it changes (images, values, source options, hooks included) was not checked; {fix}")  # fmt: skip
            app.issues.setdefault(path, []).append((NOT_RENDERED, 1, 1, detail))
            data = facts.read_regular(path, max_size)
            digest = hashlib.sha256(data).hexdigest()[:12] if data is not None else "unread"
            app.issue_fields[path] = f"argocd-source[sha256:{digest}]"


def _submodules_read(kind: str, folder: str, manifest_file: str | None, recurse: bool,
                     source: ApplicationSource | None = None, named_app: bool = False) -> tuple[Unseen, ...]:
    """The git submodules (:mod:`hooklint.sources.repository.submodules`) that Argo CD checks out
    and that the application of ``folder`` reads, each as the HL009 that says so: ``folder`` is in
    one (its source is wholly in it), or one lies in what it reads: any folder below a Helm chart
    (Helm loads every file of the chart: templates, subcharts, ``.Files``), what a kustomization
    reads (:func:`kustomization_reads`, at any depth; every folder below it when that cannot be
    told), every folder below a directory source with ``recurse`` (without it, only its own files).
    The HL009 goes at the Application's ``path:`` key when the run names the Application
    (``source``, ``named_app``), else at the submodule's entry in ``.gitmodules``. Argo CD:
    ``util/git/client.go`` ``Checkout`` (v3.5.1) runs ``git submodule update --init --recursive``
    when the checkout has ``.gitmodules``."""

    anchor = source.manifest if source is not None else folder
    subs = submodules_of(repository_root(os.path.dirname(os.path.abspath(anchor))))
    if not subs.active:
        return ()
    target = os.path.abspath(folder)
    written = os.path.relpath(target, subs.root).replace(os.sep, "/")
    if source is not None:
        subject = f"{source.label()}: {source.field}.path {written!r}"
    else:
        subject = (f"the Helm chart {folder}" if kind == HELM else f"the kustomization {manifest_file}"
                   if kind == KUSTOMIZE else f"the folder {folder}")  # fmt: skip

    def place(sub: Submodule) -> tuple[str, int, int]:
        if source is not None and named_app:
            return (source.manifest, *source.path_entry)
        file, line, column = subs.location(sub)
        return (user_path(file), line, column)

    holding = subs.holding(target)
    if holding is not None:
        return (Unseen(*place(holding), unseen_detail(subject, holding, True, written == holding.path),
                       holding.path, True, holding.field()),)  # fmt: skip
    read: list[Submodule] = []
    if kind == HELM or (kind == DIRECTORY and recurse):
        read = subs.below(target)
    elif kind == KUSTOMIZE:
        reads = kustomization_reads(manifest_file) if manifest_file is not None and facts.is_file(manifest_file) else None
        if reads is None:
            read = subs.below(target)
        else:
            read = sorted({sub for path in reads if (sub := subs.holding(path)) is not None})
    return tuple(Unseen(*place(sub), unseen_detail(subject, sub, False), sub.path, False, sub.field()) for sub in read)


def _unread_submodules(paths: Iterable[str], apps: list[Application]) -> list[tuple[str, Skip]]:
    """The git submodules Argo CD checks out inside the folders ``paths`` names that no application
    of ``apps`` reads (:func:`_submodules_read`), each with why it is not linted."""

    read = {(u.submodule, u.file) for app in apps for part in [app, *app.parts] for u in part.unseen}
    read_paths = {path for path, _ in read}
    out: dict[str, Skip] = {}
    for path in paths:
        if path == STDIN or not os.path.isdir(path):
            continue
        subs = submodules_of(repository_root(os.path.abspath(path)))
        if not subs.active:
            continue
        for sub in subs.found:
            where = os.path.join(subs.root, *sub.path.split("/"))
            if sub.path in read_paths or not within(where, os.path.abspath(path)):
                continue
            out[user_path(where)] = Skip(
                f"{sub.described()}: Argo CD's repo server checks it out (the repository has .gitmodules), but no "
                "application of this run reads it, and hooklint does not fetch submodules; an Application whose path "
                "is in it would apply what it holds", SkipKind.SUBMODULE)  # fmt: skip
    return sorted(out.items())


def directory_reads_in_charts(folder: str, recurse: bool, charts: Iterable[str]) -> list[tuple[str, str]]:
    """The files a directory source of ``folder`` (with ``recurse`` or not) reads
    (:func:`~hooklint.sources.repository.tree.directory_source_files`) that lie in one of the Helm
    chart folders ``charts`` (absolute), where :func:`walk` stops and lists only its ``Chart.yaml``,
    as ``(file spelled like folder, the chart)``: Argo CD applies them as plain manifests (attacker
    trial 8, F10 and F11). Only those charts' folders are walked: the folder's own chart when it
    lies in one, else, with ``recurse``, the topmost charts below it."""
    full = os.path.abspath(folder)
    charts = sorted(charts)
    holding = [c for c in charts if within(full, c)]
    if holding:
        return [(os.path.normpath(f), holding[-1]) for f in directory_source_files(folder, recurse)]
    if not recurse:
        return []
    below = [c for c in charts if within(c, full)]
    out: list[tuple[str, str]] = []
    for chart in below:
        if any(o != chart and within(chart, o) for o in below):
            continue  # a chart inside another one: walked with it
        spelled = os.path.join(folder, os.path.relpath(chart, full))
        out.extend((os.path.normpath(f), chart) for f in directory_source_files(spelled, True))
    return out


def _walked_charts(reported: dict[str, set[str]]) -> dict[str, str]:
    """The Helm chart folders the run's walk stopped at (absolute -> their key of ``reported``):
    keys holding their ``Chart.yaml`` (:func:`walk` lists it, even when missing)."""
    return {os.path.abspath(k): k for k, files in reported.items()
            if k != STDIN and os.path.join(k, HELM_CHART_FILE) in files}  # fmt: skip


def applications_in_charts(sources: list[ApplicationSource], read: set[str], files: Iterable[str],
                           repo_urls: Iterable[str] = (),
                           max_file_size: int = DEFAULT_MAX_FILE_SIZE,
                           configured_namespace: str | None = None) -> list[ApplicationSource]:  # fmt: skip
    """The sources of the Applications written in files inside Helm charts that a directory source
    of ``sources`` applies (trial 8, F10): :func:`find_application_sources` skips a chart's files
    (templates are no manifests), but Argo CD's directory source on ``chart/apps`` (a folder with no
    ``Chart.yaml`` of its own: ``discovery.AppType`` types only the source's folder) applies
    ``chart/apps/shop.yaml`` as written, and the Application it holds is created. The charts are
    the folders typed Helm of the ``Chart.yaml`` files among ``files`` (the run's and the
    repository's). Files in ``read`` (absolute) are not read again; each file read is added to it.
    A file that leads out of its repository is never read here, and ``directory.include/exclude``
    apply. ``configured_namespace``: ``argocd-namespace`` (:func:`repository_control_plane` of ``files``)."""
    from hooklint.sources.appmap.applications import RepositoryUrls, sources_of  # noqa: PLC0415

    charts = sorted({os.path.dirname(os.path.abspath(f)) for f in files if os.path.basename(f) == HELM_CHART_FILE})
    charts = [c for c in charts if source_type(c)[0] == HELM]
    if not charts:
        return []
    urls: RepositoryUrls | None = None
    plane: ControlPlane | None = None
    out: list[ApplicationSource] = []
    for source in sources:
        if source.problem is not None or source.remote is not None or not facts.is_dir(source.folder):
            continue
        if (source.source_type or source_type(source.folder)[0]) != DIRECTORY:
            continue
        options = DirectoryOptions.from_application(source.options)
        for file, _ in directory_reads_in_charts(source.folder, options.recurse, charts):
            full = os.path.abspath(file)
            if full in read:
                continue
            read.add(full)
            if options.excludes(os.path.relpath(file, source.folder).replace(os.sep, "/")) is not None:
                continue
            if not contained([file]) or not facts.read_regular(file, max_file_size):
                continue
            urls = urls or RepositoryUrls(repo_urls)
            plane = plane or repository_control_plane(list(files), configured_namespace, max_file_size)
            root, ours = urls.of(file)
            for doc in read_file(file, max_file_size).documents:
                for body in document_objects(doc.value):
                    # written without metadata.namespace: applied into the directory source's destination namespace
                    out.extend(sources_of(body, file, root or os.getcwd(), ours, max_file_size=max_file_size,
                                          default_namespace=source.namespace, control_plane=plane))  # fmt: skip
    return out


def _with_source_note(app: Application, source: ApplicationSource, named: bool) -> Application:
    """``app`` with its Application's file as :attr:`Application.source_note` when the run names
    it (``named``): HL009 there says what of ``source`` hooklint does not render."""
    if named:
        app.source_note = source.manifest
        app.note_only = source.manifest not in app.reported
        if app.note_only:
            app.reported = sorted([*app.reported, source.manifest])
    return app


def _multi_source_groups(sources: list[ApplicationSource]) -> dict[tuple, list[ApplicationSource]]:
    """The renderable sources of each Application with more than one of them in this repository
    (``spec.sources``), by Application (name, file, what made it)."""
    groups: dict[tuple, list[ApplicationSource]] = {}
    for source in sources:
        if source.field.startswith("spec.sources[") and source.problem is None:
            groups.setdefault((source.name, source.manifest, source.generated_by), []).append(source)
    return {k: v for k, v in groups.items() if len(v) > 1}


def _join_multi_source(apps: list[Application], multi: dict[tuple, list[ApplicationSource]]) -> list[Application]:
    """``apps`` with the applications of the sources of one multi-source Application joined into
    one (source type MULTI, its ``parts`` in source order): Argo CD renders every source of
    ``spec.sources`` and applies them in one sync (``controller/state.go`` ``GetRepoObjs``
    appends the manifests of each source), so a PreSync hook of one source may use a
    ServiceAccount another source applies."""
    if not multi:
        return apps
    groups: dict[tuple, list[Application]] = {}
    for app in apps:
        source = app.argocd
        if source is not None and app.source_type != UNRENDERABLE:
            key = (source.name, source.manifest, source.generated_by)
            if key in multi:
                groups.setdefault(key, []).append(app)
    out = []
    for app in apps:
        source = app.argocd
        group = (source.name, source.manifest, source.generated_by) if source is not None else None
        parts = groups.get(group) if group is not None and app.source_type != UNRENDERABLE else None
        if not parts or len(parts) < 2:
            out.append(app)
            continue
        if app is not parts[0]:
            continue
        assert source is not None  # its group is its source's
        parts.sort(key=_source_index)
        reported = sorted({f for p in parts for f in p.reported})
        left_out = {f: why for p in parts for f, why in p.left_out.items()}
        out.append(Application(f"{source.manifest} ({source.name})", reported, [], MULTI, None, parts[0].named,
                               None, parts[0].argocd, left_out, parts))  # fmt: skip
    return out


def _join_remote(apps: list[Application], remote: list[ApplicationSource], run: set[str]) -> list[Application]:
    """``apps`` with the sources from elsewhere ``remote`` (issue 33) joined to their
    Application: each becomes a part of source type :data:`REMOTE` of the application its
    Application's other sources make (a multi-source one, or a single source turned into one),
    or, when none of them is in the run, an application of its own (several: one multi-source
    application), made only when the run names the Application's file (``run``: absolute paths)
    or what renders it. A part's ``reported`` holds the Application's file only then: its HL009 is
    reported where the run looks, and the plan names it either way."""
    if not remote:
        return apps
    groups: dict[tuple, list[ApplicationSource]] = {}
    for source in remote:
        groups.setdefault((source.name, source.manifest, source.generated_by), []).append(source)
    where: dict[tuple, int] = {}
    for i, app in enumerate(apps):
        argocd = app.argocd
        if argocd is not None and app.source_type != UNRENDERABLE:
            where.setdefault((argocd.name, argocd.manifest, argocd.generated_by), i)
    out = list(apps)
    for key, sources in groups.items():
        first = sources[0]
        named = any(os.path.abspath(f) in run for f in (first.manifest, *first.scope))
        parts = [Application(f"{s.manifest} ({s.name})", [s.manifest] if named else [], [], REMOTE, s.manifest, None,
                             None, s) for s in sources]  # fmt: skip
        index = where.get(key)
        if index is None:
            if named:
                out.append(parts[0] if len(parts) == 1 else
                           Application(parts[0].key, [first.manifest], [], MULTI, None, None, None, first, {}, parts))  # fmt: skip
            continue
        app = out[index]
        local = app.parts if app.source_type == MULTI else [app]
        joined = sorted([*local, *parts], key=_source_index)
        out[index] = Application(f"{first.manifest} ({first.name})", sorted(set(app.reported) | {first.manifest} if named
                                                                            else set(app.reported)),
                                 [], MULTI, None, app.named, None, joined[0].argocd, dict(app.left_out), joined)  # fmt: skip
    return out


def _source_index(app: Application) -> int:
    """The index of ``app``'s source in its Application's ``spec.sources``."""
    assert app.argocd is not None, app.key
    field_name = app.argocd.field
    return int(field_name[len("spec.sources["):-1]) if field_name.startswith("spec.sources[") else -1


def _name(named_by: dict[str, str], key: str, path: str) -> None:
    """Remember ``path`` as what brought application ``key`` in, unless a path above it already did."""
    known = named_by.get(key)
    if known is None or len(facts.absolute(path)) < len(facts.absolute(known)):
        named_by[key] = path


def _siblings(folder: str, exclude: set[str]) -> list[str]:
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    norm_exclude = {os.path.normpath(p) for p in exclude}
    out = []
    for name in names:
        full = os.path.join(folder, name)
        if (
            is_manifest_name(name)
            and os.path.normpath(full) not in norm_exclude
            and facts.is_file(full)
        ):
            out.append(full)
    return out


# --- the map: Applications rendered by other Applications (app of apps) ----------------------

#: The most levels of app of apps followed: an Application whose chart or kustomization renders
#: Applications whose charts render Applications... (a notice says where it stopped).
MAX_APP_OF_APPS_DEPTH = 8
#: The most Helm charts and kustomizations rendered to find the Applications they make.
MAX_PARENTS_RENDERED = 200


def application_map(sources: list[ApplicationSource], files: list[str], run_files: list[str], config: "Config",
                    notices: list[str], control_plane: ControlPlane | None = None) -> list[ApplicationSource]:  # fmt: skip
    """Every Application source of the repository: ``sources`` (the Applications written as YAML
    in ``files``, the run's and the repository's manifest files) and those that the repository's
    Helm charts and kustomizations render (an app of apps: Argo CD applies the rendered
    Application, and the application controller then syncs it as its own application, with its
    own source type, options, release name and destination).

    A chart or kustomization is rendered here when its rendering may hold an Application (a
    template or resource that may say ``kind: Application`` in any spelling, a chart's template
    action that may print it: :func:`_parent_candidates`): with the options of each Application of the map that points at it,
    or, when none does, as a folder is (someone outside this repository deploys it; a
    kustomization that another one builds on is a base, rendered only through its overlays).
    Children are followed recursively, at most :data:`MAX_APP_OF_APPS_DEPTH` levels; a child
    pointing back at a folder of its own chain is a cycle, and one pointing at the folder that
    rendered it renders itself (a self-managing Application: Argo CD's controller applies the
    Application as one of its own resources, which updates it in place; nothing loops). Each is a
    notice, as is a parent that
    does not render (its children are then unknown) when the run holds its files. A rendered
    Application that the same kustomization's resource file also writes as YAML is the rendered
    one (what Argo CD applies). Rendering uses :func:`hooklint.sources.render.render`, in its
    temporary copy and child process, through the render cache."""
    from hooklint.sources.appmap.applications import RepositoryUrls

    candidates, spelled = _parent_candidates(files)
    if not candidates:
        return sources
    urls = RepositoryUrls(config.repo_urls)
    plane = control_plane or repository_control_plane(files, config.argocd_namespace, config.max_file_size)
    run = {os.path.abspath(f) for f in run_files}
    # a written Application that a kustomization of the map renders comes back from its rendering
    held_by: dict[str, str] = {}
    for folder, (kind, _, _, reads) in sorted(candidates.items()):
        for path in reads:
            held_by.setdefault(path, folder)
    withheld = [s for s in sources if os.path.abspath(s.manifest) in held_by]
    sources = [s for s in sources if os.path.abspath(s.manifest) not in held_by]
    out = list(sources)
    queue: list[tuple[str, ApplicationSource | None, tuple[str, ...]]] = []
    pointed: set[str] = set()
    done: set[tuple] = set()
    for source in sources:
        folder = os.path.abspath(source.folder)
        if source.problem is None and source.remote is None and folder in candidates:
            queue.append((folder, source, (folder,)))
            pointed.add(folder)
    rendered_count = 0
    # nobody's charts and kustomizations, those that written Applications of others point at last
    targeted = {os.path.abspath(w.folder) for w in withheld}
    orphans = sorted((f for f in candidates if f not in pointed and not candidates[f][2]),
                     key=lambda f: (f not in spelled, f in targeted, f))  # fmt: skip
    dropped: set[str] = set()
    while queue or orphans:
        if not queue:
            folder = orphans.pop(0)
            if folder in pointed:
                continue
            queue.append((folder, None, (folder,)))
        folder, parent, chain = queue.pop(0)
        if rendered_count >= MAX_PARENTS_RENDERED:
            notices.append(f"more than {MAX_PARENTS_RENDERED} Helm charts and kustomizations may render Applications "
                           "(a chart's template action may print one): the Applications of the others are not known.")
            break
        rendered_count += 1
        kind, manifest_file, _, _ = candidates[folder]
        identity = (folder, parent.label() if parent else None, parent.generated_by if parent else None,
                    parent.namespace if parent else None, repr(parent.options) if parent else None)
        if identity in done:
            continue  # the same rendering, reached twice
        done.add(identity)
        # nobody's: rendered as any Application deploying it would, its .argocd-source.yaml merged (_stand_in_sources)
        deployer = parent if parent is not None else _orphan_stand_in(folder, config.max_file_size)
        if deployer is not None and deployer.source_type in (HELM, KUSTOMIZE) and deployer.source_type != kind:
            kind = deployer.source_type
            manifest_file = os.path.normpath(os.path.join(deployer.folder, HELM_CHART_FILE if kind == HELM
                                                          else KUSTOMIZATION_NAMES[0]))  # fmt: skip
        elif deployer is not None and deployer.source_type in (DIRECTORY, "plugin"):
            continue  # written Applications of a directory source are found as YAML; plugins never run
        in_run = folder in spelled and any(within(f, folder) for f in run)
        children = _rendered_sources(kind, manifest_file, parent, config, urls, notices if in_run else None,
                                     deployer, plane)  # fmt: skip
        if children is None:  # not rendered: its written Applications are what is known
            children = [w for w in withheld if held_by[os.path.abspath(w.manifest)] == folder]
        for child in children:
            out.append(child)
            target = os.path.abspath(child.folder)
            if child.problem is not None or child.remote is not None or target not in candidates:
                continue
            if target == folder:  # its own manifest is in the folder it points at: a self-managing Application
                notices.append(f"{child.label()} renders itself: its path {child.folder} renders its own manifest, so "
                               "Argo CD applies the Application as one of its own resources (it manages itself: "
                               "each sync updates it in place, nothing loops); its Applications there are read once.")
                continue
            if target in chain:
                names = " -> ".join(s for s in [*(_short(c) for c in chain), _short(target)])
                notices.append(f"{child.origin()} points at {child.folder}, which renders it again (a cycle of app "
                               f"of apps: {names}): not followed further.")  # fmt: skip
                continue
            if len(chain) >= MAX_APP_OF_APPS_DEPTH:
                notices.append(f"{child.origin()}: app of apps deeper than {MAX_APP_OF_APPS_DEPTH} levels; the "
                               f"Applications that {child.folder} renders are not known.")  # fmt: skip
                continue
            if target not in pointed and any(c.generated_by == _orphan_label(candidates[target]) for c in out):
                dropped.add(_orphan_label(candidates[target]))  # rendered as nobody's first: now a child's
            pointed.add(target)
            queue.append((target, child, (*chain, target)))
    # a folder first rendered as nobody's, then found to be a child's, keeps only the child's
    # rendering; the same Application reached twice is one
    keep = []
    while True:
        more = {s.label() for s in out if s.generated_by in dropped} - dropped
        if not more:
            break
        dropped |= more
    seen: set[tuple] = set()
    for source in out:
        key = (source.name, source.manifest, source.line, source.folder, source.field, source.view)
        if source.generated_by in dropped or key in seen:
            continue
        seen.add(key)
        keep.append(source)
    return keep


def _short(folder: str) -> str:
    from hooklint.loader import user_path

    return user_path(folder)


def _orphan_label(candidate: tuple) -> str:
    kind, manifest_file = candidate[:2]
    return f"the {'Helm chart' if kind == HELM else 'kustomization'} {manifest_file}"


def _orphan_stand_in(folder: str, max_size: int) -> ApplicationSource | None:
    """The :func:`~hooklint.sources.appmap.applications.stand_in_source` of the chart or
    kustomization ``folder`` (absolute) that no Application of the map deploys, when it holds a
    readable ``.argocd-source.yaml``; else None (one that cannot be read renders without it: the
    folder's own lint says why, and its children stay known)."""

    source = stand_in_source(folder, repository_root(folder), max_size)
    return source if source is not None and source.problem is None else None


def _rendered_sources(kind: str, manifest_file: str, parent: ApplicationSource | None, config: "Config",
                      urls, notices: list[str] | None,
                      deployer: ApplicationSource | None = None,
                      control_plane: ControlPlane | None = None) -> list[ApplicationSource] | None:  # fmt: skip
    """The Application sources in the rendering of the chart or kustomization ``manifest_file``
    (with the options of ``parent``, the Application that deploys it, if any; else of
    ``deployer``, the stand-in of its ``.argocd-source.yaml``, if any), each placed at the
    template or resource line it comes from; None when it did not render (a notice then, when
    ``notices`` is given). ``control_plane``: where Argo CD's controller may run (:func:`sources_of`)."""
    from hooklint.sources.appmap.applications import sources_of
    from hooklint.sources.render import render

    folder = os.path.dirname(manifest_file) or "."
    try:
        loaded, rendered, renderer, _ = render(kind, folder, manifest_file, config, None, parent or deployer)
    except Exception as exc:  # noqa: BLE001 - the parent's own lint reports it; the map must go on
        if notices is not None:
            notices.append(f"{manifest_file}: did not render ({exc}): the Applications it makes are not known.")
        return None
    if renderer is None:
        if notices is not None:
            notices.append(f"{manifest_file}: did not render, so the Applications it makes are not known "
                           "(hooklint lint says why).")  # fmt: skip
        return None
    generated_by = parent.label() if parent is not None else _orphan_label((kind, manifest_file))
    scope = (manifest_file, *(parent.scope if parent is not None else ()))
    found: list[ApplicationSource] = []
    for item, body in ((i, b) for i in rendered for d in i.loaded.documents[:1] for b in document_objects(d.value)):
        if not isinstance(body, Map) or not is_argo_kind(body.get("apiVersion"), body.get("kind"), "Application"):
            continue  # a kind: List's items are applied too (GenerateManifests' IsList)
        placement = item.placement
        where, line = manifest_file, 1
        if placement is not None:
            where, line = placement.path, placement.first.line
            if placement.template is not None and body is item.loaded.documents[0].value:
                spec = body.get("spec")
                hydrated = isinstance(spec, Map) and isinstance(spec.get("sourceHydrator"), Map)
                span = (placement.template("spec.sourceHydrator") if hydrated else
                        placement.template("spec.source") or placement.template("spec.sources"))  # fmt: skip
                line = span.line if span is not None else line
            elif placement.source is not None:
                written = _written_source(placement.source.get("spec"))
                line = written.span.line if isinstance(written, (Map, Seq)) else line
        root, ours = urls.of(where)
        lives_in = parent.namespace if parent is not None else None  # where Argo CD applies it
        found.extend(sources_of(body, where, root or os.getcwd(), ours, line, generated_by, scope,
                                config.max_file_size, default_namespace=lives_in,
                                version=config.argocd_version, control_plane=control_plane))  # fmt: skip
    return found


def _chart_may_render_applications(folder: str) -> tuple[bool, bool]:
    """``(may render one, says so)`` for the Helm chart at ``folder`` (its files, hidden folders
    aside): whether a rendering of it may hold an Application, and whether one of its files may
    spell the word (:func:`~hooklint.sources.appmap.applications.mentions_application`). Any
    template action (``{{``) may print the word (``kind: {{ "Application" }}``, ``{{ .Values.kind }}``
    with the Application's own values, ``printf``: trial 8, F7), and a packaged subchart
    (``charts/*.tgz``) renders templates hooklint does not scan, so either makes it a candidate:
    only a chart none of whose files can produce the word is skipped unrendered."""
    from hooklint.sources.appmap.applications import mentions_application

    possible = False
    from hooklint.files import walk_tree  # noqa: PLC0415 - os.walk recurses per level (3.11)
    for below, dirs, names in walk_tree(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for n in sorted(names):
            full = os.path.join(below, n)
            if n.endswith((".yaml", ".yml", ".tpl", ".json")) and mentions_application(full):
                return True, True
            if not possible:
                data = facts.read_regular(full, DEFAULT_MAX_FILE_SIZE) if not n.endswith(".tgz") else None
                possible = n.endswith(".tgz") or (data is not None and b"{{" in data)
    return possible, False


def _kustomization_may_make_applications(path: str) -> bool:
    """Whether the kustomization file ``path`` may itself turn what it builds into an Application:
    it may spell the word (an inline patch ``{op: replace, path: /kind, value: Application}``
    changes a resource's kind: kustomize v5.5.0 applies it) or inflate a Helm chart
    (``helmCharts``: its template actions may print the kind)."""
    from hooklint.sources.appmap.applications import mentions_application

    data = facts.read_regular(path, DEFAULT_MAX_FILE_SIZE)
    return mentions_application(path) or (data is not None and may_hold(data, b"helmChart"))


def _written_source(spec: object) -> object:
    """Where the source of the Application spec ``spec`` is written: its ``sourceHydrator``
    (what a hydrated Application renders: :func:`~hooklint.sources.spec.rendered_sources`),
    else ``source``, else ``sources``; None when it has none."""
    if not isinstance(spec, Map):
        return None
    hydrator = spec.get("sourceHydrator")
    return hydrator if isinstance(hydrator, Map) else spec.get("source") or spec.get("sources")


def _parent_candidates(files: list[str]) -> tuple[dict[str, tuple[str, str, bool, frozenset[str]]], set[str]]:
    """The folders (absolute) of the Helm charts and kustomizations among ``files`` whose
    renderings may hold an Application (a template or resource that may say ``kind:
    Application`` in any spelling, or a chart template action that may print it:
    :func:`_chart_may_render_applications`): ``{folder: (HELM or KUSTOMIZE, its Chart.yaml or
    kustomization as spelled in files, whether another such kustomization builds on it, the
    absolute paths of a kustomization's files that do)}``, and the folders among them whose files
    spell the word (the others are rendered after them, and a failure to render one is not said
    here: the lint of its application says it)."""
    from hooklint.sources.appmap.applications import mentions_application

    found: dict[str, tuple[str, str, bool, frozenset[str]]] = {}
    spelled: set[str] = set()
    for path in files:
        name = os.path.basename(path)
        folder = os.path.dirname(os.path.abspath(path))
        if name == HELM_CHART_FILE:
            if source_type(folder)[0] != HELM:
                continue
            possible, says = _chart_may_render_applications(folder)
            if possible:
                found[folder] = (HELM, os.path.normpath(path), False, frozenset())
            if says:
                spelled.add(folder)
        elif name in KUSTOMIZATION_NAMES and not is_component(path):
            reads = kustomization_reads(path) or set()
            holding = frozenset(p for p in reads if p != os.path.abspath(path) and facts.is_file(p)
                                and mentions_application(p))  # fmt: skip
            if not holding and any(_kustomization_may_make_applications(p) for p in reads
                                   if os.path.basename(p) in KUSTOMIZATION_NAMES):  # fmt: skip
                holding = frozenset({os.path.abspath(path)})
            if holding:
                found[folder] = (KUSTOMIZE, os.path.normpath(path), False, holding)
                spelled.add(folder)
    for folder, (kind, manifest_file, _, _) in list(found.items()):
        if kind != KUSTOMIZE:
            continue
        for _field, target in kustomization_references(manifest_file):
            if target in found and found[target][0] == KUSTOMIZE and target != folder:
                found[target] = (*found[target][:2], True, found[target][3])
    return found, spelled


def _foreign_note(files: list[str], config: "Config") -> list[str]:
    """One note when the Applications written in ``files`` name only repository URLs that are not
    this repository's (:func:`~hooklint.sources.appmap.applications.foreign_repo_urls`): no folder is then
    deployed by them, and ``repo-urls`` is how to say that one of those URLs is this repository."""
    from hooklint.sources.appmap.applications import MAX_FOREIGN_SHOWN, foreign_repo_urls

    urls, ours = foreign_repo_urls(files, config.repo_urls, config.max_file_size)
    if not urls:
        return []
    shown = ", ".join(urls[:MAX_FOREIGN_SHOWN]) + (f" and {len(urls) - MAX_FOREIGN_SHOWN} more"
                                                   if len(urls) > MAX_FOREIGN_SHOWN else "")  # fmt: skip
    this = f"this repository is {', '.join(sorted(ours))}" if ours else "this repository has no git remote"
    return [f"Applications were found, but none deploys from this repository: they name {shown}, and {this}; "
            "each folder is linted as its own application. If one of those URLs is this repository (a mirror, "
            "another spelling), list it under repo-urls in .hooklint.yaml."]


def _lookalike_note(remote: list[ApplicationSource], path: str, config: "Config", matched: bool) -> list[str]:
    """One note when Applications (written, rendered by an app of apps or generated) name a hosted
    Git URL that is not this repository's but has its name
    (:func:`~hooklint.sources.appmap.applications.lookalike_url`): a clone of a mirror, whose
    remote is a local path, or another spelling; not when other sources named this repository
    through a hosted remote: ``matched``). Argo CD would render those folders from here;
    hooklint reads them as another repository's (HL009) until ``repo-urls`` lists the URL."""
    from hooklint.sources.appmap.applications import lookalike_url, normalize_repo_url
    from hooklint.sources.spec import OTHER_GIT

    urls = [s.remote.repo_url for s in remote if s.remote is not None and s.remote.kind == OTHER_GIT]
    found = lookalike_url(urls, path, config.repo_urls, matched)
    if found is None:
        return []
    url, name, remotes = found
    n = sum(1 for u in urls if normalize_repo_url(u) == normalize_repo_url(url))
    return [f"{n} Application source{'s name' if n != 1 else ' names'} {url}, which has this repository's name "
            f"({name}) but is not its git remote ({remotes}), so {'they are' if n != 1 else 'it is'} read as "
            f"another repository's (HL009); if it is this repository, add it to repo-urls in .hooklint.yaml "
            f"(repo-urls: [{url}])."]


# --- ApplicationSets: expanded offline ---------------------------------------------------------

#: How an ApplicationSet problem is reported: NOT_EXPANDED HL022 (a generator that needs a cluster
#: or the network), RENDER_FAILED HL007 (Argo CD's controller fails the same way),
#: RENDERER_UNAVAILABLE HL008 (no Go template engine).
from hooklint.yamlio import NOT_EXPANDED  # noqa: E402


@dataclass(slots=True)
class ApplicationSetMap:
    """What the ApplicationSets among the run's and the repository's files make: the Application
    ``sources`` they generate (into this repository), the ``issues`` to report in each
    ApplicationSet's file (``{file: [(kind, line, column, detail)]}``, kind NOT_EXPANDED,
    RENDER_FAILED or RENDERER_UNAVAILABLE) and the files their git files generators read
    (``inputs``: absolute path -> why it is not a manifest)."""

    sources: list[ApplicationSource] = field(default_factory=list)
    issues: dict[str, list[tuple[str, int, int, str]]] = field(default_factory=dict)
    inputs: dict[str, Skip] = field(default_factory=dict)
    #: The origin (:class:`Leaving`) of each ApplicationSet's inputs, whether or not a file matches.
    origins: set[tuple[str, ...]] = field(default_factory=set)


def applicationset_map(files: list[str], config: "Config", control_plane: ControlPlane | None = None,
                       applied_by: Iterable[ApplicationSource] = ()) -> ApplicationSetMap:  # fmt: skip
    """Expand every ApplicationSet written in ``files`` (:mod:`hooklint.sources.appmap.applicationsets`)
    with the clusters of the repository's cluster Secrets and the ``clusters`` configuration, and
    read the Applications it generates as the map reads a written one (:func:`sources_of`), each
    placed at the template's ``spec.source`` line and made by ``ApplicationSet NAME (FILE:LINE)``.
    Each generated Application is read from its JSON text (:func:`~hooklint.yamlio.go_yaml_text`),
    so that a generated string such as ``"n"`` stays a string, as in the Application Argo CD's
    ApplicationSet controller creates (``json.Marshal``). ``control_plane``: where Argo CD's
    controller may run (None: :func:`~hooklint.sources.appmap.applications.repository_control_plane` of ``files``).
    An ApplicationSet written without ``metadata.namespace`` lives where the directory sources among
    ``applied_by`` that read its file apply it (:func:`~hooklint.sources.appmap.applications.applied_into`),
    and its Applications with it (argo-cd v3.5.1 ``applicationset/controllers/template/template.go``:
    ``app.Namespace = applicationSetInfo.Namespace``); one applied by none is read as before."""
    from hooklint.loader import parse_text, read_file
    from hooklint.sources.appmap.applications import RepositoryUrls, applied_into, sources_of
    from hooklint.yamlio import RENDER_FAILED, RENDERER_UNAVAILABLE

    out = ApplicationSetMap()
    sets: list[tuple[str, Map]] = []
    secrets: list[dict] = []
    for path in files:
        data = facts.read_regular(path, config.max_file_size)
        if data is None:
            continue
        # a text test skips only what no spelling makes one of (trial 8, F8: "ApplicationS\x65t");
        # the parsed kind decides
        appset = may_hold(data, b"ApplicationSet")
        secret = may_hold(data, b"argocd.argoproj.io/secret-type")
        if not appset and not secret:
            continue
        from hooklint.sources.appmap.applicationsets import cluster_secrets, plain  # noqa: PLC0415 - only when a file may hold one

        for body in (b for doc in read_file(path).documents for b in document_objects(doc.value)):
            if isinstance(body, Map) and is_argo_kind(body.get("apiVersion"), body.get("kind"), "ApplicationSet"):
                sets.append((path, body))
            elif secret and isinstance(body, Map) and body.get("kind") == "Secret":
                secrets.extend(cluster_secrets([plain(body)]))
    if not sets:
        return out
    from hooklint.sources.appmap.applicationsets import expand, rollout_problems  # noqa: PLC0415 - only with an ApplicationSet
    from hooklint.yamlio import ROLLOUT_IGNORED, ROLLOUT_INVALID, ROLLOUT_UNSELECTED

    clusters = secrets + [c for c in config.clusters if isinstance(c, dict)]
    urls = RepositoryUrls(config.repo_urls)
    plane = control_plane or repository_control_plane(files, config.argocd_namespace, config.max_file_size)
    kinds = {"network": NOT_EXPANDED, "failed": RENDER_FAILED, "renderer": RENDERER_UNAVAILABLE}
    for path, body in sets:
        root, ours = urls.of(path)
        root = root or os.getcwd()
        name = body.get("metadata", {}).get("name") if isinstance(body.get("metadata"), Map) else None
        label = f"ApplicationSet {name} ({path}:{body.span.line})"
        spec = body.get("spec")
        generators = spec.get("generators") if isinstance(spec, Map) else None
        origin = ("generator", path, str(name), repr(plain(generators)))  # its file, name and generators
        out.origins.add(origin)
        try:
            expansion = expand(body, root, ours, clusters, config)
        except (RecursionError, MemoryError, ValueError, TypeError, KeyError, AttributeError) as exc:
            # hostile input must never stop the run: said at the ApplicationSet, nothing generated
            out.issues.setdefault(path, []).append((RENDER_FAILED, body.span.line, body.span.column, (
                f"{label}: hooklint could not expand it ({type(exc).__name__})")))
            continue
        for problem in expansion.problems:
            where = problem.where if isinstance(problem.where, Map) else body
            span = where.key_span(problem.key) if problem.key and problem.key in where else where.span
            out.issues.setdefault(path, []).append((kinds[problem.kind], span.line, span.column,
                                                    f"{label}: {problem.message}"))  # fmt: skip
        if expansion.truncated:
            out.issues.setdefault(path, []).append((NOT_EXPANDED, body.span.line, body.span.column, (
                f"{label}: generates more than {MAX_GENERATED_SHOWN} Applications; the others are not linted")))
        rollout = {"unselected": ROLLOUT_UNSELECTED, "invalid": ROLLOUT_INVALID, "ignored": ROLLOUT_IGNORED}
        for said in rollout_problems(body, expansion.applications):  # HL403-HL405
            out.issues.setdefault(path, []).append((rollout[said.rule], said.line, said.column, f"{label}: {said.message}"))
        for full in expansion.inputs:
            out.inputs.setdefault(full, Skip(f"an input of the git files generator of {label}: read as "
                                             "parameters, never applied", SkipKind.GENERATOR_INPUT,
                                             origin=origin))  # fmt: skip
        spec = body.get("spec")
        template = spec.get("template") if isinstance(spec, Map) else None
        tspec = template.get("spec") if isinstance(template, Map) else None
        written = _written_source(tspec)
        line = written.span.line if isinstance(written, (Map, Seq)) else body.span.line
        metadata = body.get("metadata")
        written_namespace = metadata.get("namespace") if isinstance(metadata, Map) else None
        lives_in = (None,) if isinstance(written_namespace, str) and written_namespace else applied_into(path, applied_by)
        generated = [(app if namespace is None else {**app, "metadata": {**app.get("metadata", {}), "namespace": namespace}},
                      carried) for namespace in lives_in or (None,)
                     for app, carried in zip(expansion.applications, expansion.secrets)]  # fmt: skip
        for app, carried in generated:
            try:  # JSON, which hooklint's go-typed reader reads back as generated: never PyYAML's `value: n`
                parsed = parse_text(path, go_yaml_text(app))
            except ValueError as exc:
                out.issues.setdefault(path, []).append((RENDER_FAILED, body.span.line, body.span.column, (
                    f"{label}: hooklint could not expand it ({exc})")))
                continue
            for doc in parsed.documents:
                out.sources.extend(sources_of(doc.value, path, root, ours, line, label, (path,),
                                              config.max_file_size, carried, version=config.argocd_version,
                                              normalized=supports(config.argocd_version, "appset-normalize"),
                                              control_plane=plane))  # fmt: skip
    return out


#: :data:`hooklint.sources.appmap.applicationsets.MAX_GENERATED`, as said in a finding.
MAX_GENERATED_SHOWN = 500


def _value_file_reads(sources: list[ApplicationSource], leaving: Leaving | None = None) -> dict[str, Skip]:
    """The value files that Applications' Helm sources read (``helm.valueFiles``: relative to
    the chart folder, or to the repository's top with a leading ``/``; a ``$ref/...`` file of a
    ``ref`` source of this repository, for a chart of this repository or from elsewhere) as value
    files of that Application, not linted as manifests, in folders no Application deploys: Argo CD
    reads them as the chart's values (``reposerver/repository/repository.go``
    ``getResolvedValueFiles``) and never applies them, so their folder is no application of its own
    (issue 33: never "deployed by no Application"). Returns each one (absolute) with its reason
    (the first source's that ``leaving`` believes, else the first's), and adds every origin to
    ``leaving.origins``. :func:`_mark_value_files` marks them."""
    reads: dict[str, Skip] = {}
    for source in sources:
        root = facts.git_root_of(os.path.dirname(os.path.abspath(source.manifest))) or os.getcwd()
        if source.remote is not None:
            paths = [os.path.join(root, f) for f in source.remote.value_files]
        elif isinstance(source.options, dict) and isinstance(source.options.get("valueFiles"), list):
            paths = [os.path.join(root, f.lstrip("/")) if f.startswith("/") else os.path.join(source.folder, f)
                     for f in source.options["valueFiles"] if isinstance(f, str) and "://" not in f
                     and not f.startswith("$")]  # fmt: skip
        else:
            continue
        for path in paths:
            full = os.path.normpath(os.path.abspath(path))
            why = Skip(f"a value file of {source.label()} ({source.field}.helm.valueFiles): Argo CD reads it as the "
                       "chart's values, never applies it", SkipKind.VALUE_FILE,
                       origin=leaving_origin("valueFiles", source, os.path.relpath(full)))  # fmt: skip
            if leaving is not None:
                assert why.origin is not None
                leaving.origins.add(why.origin)
                known = reads.get(full)
                if known is not None and not leaving.believes(known.origin) and leaving.believes(why.origin):
                    reads[full] = why
            reads.setdefault(full, why)
    return reads


def _mark_value_files(apps: list[Application], reads: dict[str, Skip]) -> None:
    """Mark the value files ``reads`` (:func:`_value_file_reads`) in the directory applications no
    Application deploys (see there)."""
    if not reads:
        return
    for app in apps:
        if app.key == STDIN or app.argocd is not None or app.source_type != DIRECTORY:
            continue
        for name in app.reported:
            why = reads.get(os.path.abspath(name))
            if why is not None:
                app.left_out.setdefault(name, why)


def _mark_applicationset_inputs(apps: list[Application], inputs: dict[str, Skip]) -> None:
    """List the files ApplicationSets' git files generators read as generator inputs, not linted
    as manifests (the controller reads them as parameters; Argo CD never applies them)."""
    if not inputs:
        return
    for app in apps:
        if app.key == STDIN:
            continue
        for name in app.reported:
            why = inputs.get(os.path.abspath(name))
            if why is not None:
                app.left_out.setdefault(name, why)
