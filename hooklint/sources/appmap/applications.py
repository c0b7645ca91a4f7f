"""Argo CD ``Application`` manifests as the map of the repository (``shared/docs/argocd-rendering.md`` §1, §2, §5).

When the files of a lint run hold ``argoproj.io`` ``Application`` manifests (on their own or as items of
a list: :func:`hooklint.sources.spec.document_objects`) whose ``spec.source.repoURL`` (or an entry of
``spec.sources``, or the ``spec.sourceHydrator.drySource`` of a hydrated Application:
:func:`hooklint.sources.spec.rendered_sources`) is this repository, each such source's ``path`` is linted as Argo CD
renders it for that Application: its explicit source type (``spec.source.helm``, ``.kustomize``,
``.directory``, ``.plugin``; else the folder decides, as ``GetAppSourceType`` does), its options
(``directory.recurse/include/exclude``, ``kustomize.*``, ``helm.*``) and its ``destination.namespace``
for objects without one. This module finds those sources; :mod:`hooklint.sources.appmap.discovery` turns them
into applications.

"This repository" is the ``url`` of every remote in the git configuration of the repository holding the
Application manifest, and the ``repo-urls`` configuration list, compared after :func:`normalize_repo_url`.
A source Argo CD's repo server fetches from elsewhere (a chart repository, an OCI registry, another Git
repository, a scheme hooklint does not know) is a :class:`RemoteSource` on its :class:`ApplicationSource`
(issue 33): named and never rendered, the record a fetch step can render later.

Each source is read as the repo server reads it: its ``path`` resolved through symbolic links inside the
repository (``util/app/path`` ``Path``), ``.argocd-source.yaml`` and ``.argocd-source-NAME.yaml`` merged
into its options (``reposerver/repository/repository.go`` ``mergeSourceParameters``), and, in a
multi-source Application, ``$ref/...`` value files of a ``ref`` source of this repository read from it
(``getResolvedValueFiles``). A folder no Application of this repository deploys is read the same way as
the source of any Application that deploys it, its ``.argocd-source.yaml`` merged (:func:`stand_in_source`).
The Applications an app of apps renders (:func:`hooklint.sources.appmap.discovery.application_map`)
and an ApplicationSet generates (:mod:`hooklint.sources.appmap.applicationsets`) are read by :func:`sources_of` too.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from hooklint.argocd import DEFAULT_VERSION, ControlPlane, Version, control_plane_namespaces, is_argo_kind
from hooklint.files import walk_tree
from hooklint.loader import DEFAULT_MAX_FILE_SIZE, parse_text, read_file, user_path, within
from hooklint.sources.appmap.gojson import SOURCE, GoJSONError, Struct, decode, field_of, marshal
from hooklint.sources.repository import facts
from hooklint.sources.repository.git import CheckedOut, remote_urls
from hooklint.sources.repository.spelling import may_hold, rewritten
from hooklint.sources.repository.tree import KUSTOMIZATION_NAMES, chart_of, source_type
from hooklint.sources.spec import (CHART_REPOSITORY, OCI_REGISTRY, OTHER_GIT, PINNED_REVISION,
                                   UNKNOWN_SCHEME, ApplicationSource, RemoteSource, document_objects, envsubst,
                                   rendered_sources)
from hooklint.text import go_to_lower, go_trim_space
from hooklint.yamlio import SYNTAX_ERROR, TOO_COMPLEX, Map, Seq



_GIT_URL = re.compile(r"^(?:(?:https?|ssh|git|git\+ssh)://|[\w.-]+@[\w.-]+:)", re.IGNORECASE)


_GO_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def is_helm_oci_repo(url: str) -> bool:
    """Whether Argo CD reads the ``repoURL`` ``url`` of a source with ``chart`` as an OCI registry
    written without ``oci://`` (``ghcr.io/acme/charts``, ``localhost:5000/charts``): Argo CD
    v3.5.1 ``util/helm/client.go`` ``IsHelmOciRepo`` is true when Go's ``url.Parse`` gives it no
    host, and ``reposerver/repository/repository.go`` ``newHelmClientResolveRevision`` then
    enables OCI whatever the repository's ``enableOCI`` says (``helm pull oci://URL/CHART``,
    ``util/helm/cmd.go`` ``PullOCI``). A URL with ``scheme://`` (``s3://``, ``https://``) has a
    host; one Go refuses (a colon in a first segment that is no scheme: ``1host:5000/x``) is not
    one; ``file:///x`` (no host either) is left to the scheme it names."""
    if not url or "://" in url or any(c in url for c in " \t\n\x7f") or url.startswith("/"):
        return False
    first = url.split("/", 1)[0]
    return ":" not in first or _GO_SCHEME.match(url) is not None


def remote_source(source: Map, index: int | None, ours: set[str], line: int | None = None) -> RemoteSource | None:
    """The :class:`RemoteSource` of the Application source ``source`` (``index`` in
    ``spec.sources``, None for ``spec.source``), or None when it is rendered from this repository
    (``ours``: its normalised URLs), provides only ``$ref`` value files (``ref`` without ``path``
    or ``chart``: Argo CD renders nothing of it), has no ``repoURL``, or is a Git source while no
    URL of this repository is known (hooklint cannot tell it from this one). ``line`` overrides
    where it is written (a rendered or generated Application)."""
    url = source.get("repoURL")
    if not isinstance(url, str) or not go_trim_space(url):
        return None
    chart, path, ref = source.get("chart"), source.get("path"), source.get("ref")
    chart = chart if isinstance(chart, str) and chart else None
    path = path if isinstance(path, str) and path else None
    scheme = go_to_lower(go_trim_space(url))
    if chart is not None:
        kind = (OCI_REGISTRY if scheme.startswith("oci://") or is_helm_oci_repo(go_trim_space(url)) else
                CHART_REPOSITORY if scheme.startswith(("https://", "http://")) else UNKNOWN_SCHEME)  # fmt: skip
    elif isinstance(ref, str) and ref and path is None:
        return None
    elif scheme.startswith("oci://"):
        kind = OCI_REGISTRY
    elif not ours or normalize_repo_url(url) in ours:
        return None
    else:
        kind = OTHER_GIT if _GIT_URL.match(go_trim_space(url)) else UNKNOWN_SCHEME
    span = source.key_span("chart" if chart is not None else "repoURL")
    revision = source.get("targetRevision")
    helm = _plain(source.get("helm")) if isinstance(source.get("helm"), Map) else None
    return RemoteSource(kind, url, chart, path, str(revision) if isinstance(revision, (str, int, float)) else None,
                        index, line if line is not None else span.line, 1 if line is not None else span.column,
                        helm)  # fmt: skip


#: The ref namespaces of Git hosting services that hold no branch (pull and merge requests, Gerrit's
#: changes): ``pull/12/head`` names ``refs/pull/12/head`` (go-git's ``ReferenceName.Short``), a commit
#: of a change nobody merged.
_NOT_BRANCHES = ("pull/", "pull-requests/", "merge-requests/", "changes/", "tags/", "remotes/", "notes/")
_HEX = re.compile(r"^[0-9A-Fa-f]{7,}$")


def revision_elsewhere(revision: object, state: CheckedOut) -> str | None:
    """What the ``targetRevision`` (or git generator ``revision``) ``revision`` of a source of this
    repository names when it is not the working tree hooklint reads, as a noun phrase (``a
    commit``, ``a tag``); None when it is read from the working tree.

    Argo CD v3.5.1 resolves it with ``util/git/client.go`` ``lsRemote`` over the remote's refs: a
    40-digit hex id is that commit (``IsCommitSHA``); empty is ``HEAD``; a semver constraint
    (``util/versions/tags.go`` ``MaxVersion``, not a plain version) is the highest tag it admits;
    otherwise a ref whose full name, or short name (go-git ``ReferenceName.Short``: ``v1`` for
    ``refs/tags/v1``, ``pull/12/head`` for ``refs/pull/12/head``), is the revision; failing that, 7
    or more hex digits are an abbreviated commit (``IsTruncatedCommitSHA``).

    hooklint reads the working tree (``state``: :class:`~hooklint.sources.repository.git.CheckedOut`),
    which stands for empty, ``HEAD`` and a branch name: what the branch will hold once the change
    under review is merged. A commit, abbreviated or not, a tag, a ``refs/...`` name other than
    ``refs/heads/NAME``, a pull or merge request's ref (:data:`_NOT_BRANCHES`), a plain version (a
    tag's name in practice) or a constraint is another revision unless it names the checked-out
    commit (a constraint always is: the remote's tags are not all known here). Not a string (the
    API server refuses the Application): None."""
    if not isinstance(revision, str):
        return None
    from hooklint.sources.fetch.semver import parse_constraint, parse_version  # noqa: PLC0415

    head = state.commit
    text = revision
    if text in ("", "HEAD"):
        return None
    if re.fullmatch(r"[0-9A-Fa-f]{40}", text):
        return None if head is not None and text.lower() == head else "a commit"
    if parse_version(text) is None and parse_constraint(text) is not None:
        return "a semver constraint (Argo CD takes the highest tag it admits)"
    if text.startswith("refs/heads/"):  # a branch
        return None
    tag = next((text[len(p):] for p in ("refs/tags/", "tags/") if text.startswith(p)), text)
    if tag in state.tags:
        return None if head is not None and state.tags[tag] == head else "a tag"
    if text in state.branches:
        return None
    if _HEX.match(text):
        return None if head is not None and head.startswith(text.lower()) else "an abbreviated commit"
    if text.startswith("refs/") or text.startswith(_NOT_BRANCHES):
        return "a ref that is no branch"
    if parse_version(text) is not None:
        return "a version (a tag)"
    return None


def pinned_source(source: Map, index: int | None, ours: set[str], root: str,
                  line: int | None = None) -> RemoteSource | None:  # fmt: skip
    """The :class:`RemoteSource` of kind :data:`~hooklint.sources.spec.PINNED_REVISION` of the
    Application source ``source`` (``index`` in ``spec.sources``, None for ``spec.source``) when it
    renders a ``path`` of this repository (``ours``; ``root`` its top folder) at a
    ``targetRevision`` that is not the working tree (:func:`revision_elsewhere`), placed at its
    ``targetRevision:`` key (``line``, column 1, for a rendered or generated Application); else None.
    Argo CD's repo server checks that revision out and renders the folder there
    (``reposerver/repository/repository.go`` ``runRepoOperation``): linting the working tree's
    folder in its place would pass what Argo CD never applies and miss what it does (issue 32)."""
    url, path, revision = source.get("repoURL"), source.get("path"), source.get("targetRevision")
    if (not isinstance(url, str) or not isinstance(path, str) or not path or "chart" in source
            or normalize_repo_url(url) not in ours or revision in (None, "", "HEAD")):  # fmt: skip
        return None  # the working tree, whatever is checked out: .git is not read
    state = facts.checked_out(root)
    named = revision_elsewhere(revision, state)
    if named is None:
        return None
    head = (f"not the checked-out commit ({state.commit[:12]})" if state.commit is not None else
            "and no checked-out commit is known here (not a git checkout)")  # fmt: skip
    span = source.key_span("targetRevision")
    helm = _plain(source.get("helm")) if isinstance(source.get("helm"), Map) else None
    return RemoteSource(PINNED_REVISION, url, None, path, str(revision), index, line if line is not None else span.line,
                        1 if line is not None else span.column, helm, pinned=f"{named}, {head}")  # fmt: skip


def normalize_repo_url(url: str) -> str:
    """``url`` as a comparable ``host/path``: lower case, no scheme, user or port, an scp-like
    ``git@host:org/repo`` read as ``host/org/repo``, no trailing ``/`` or ``.git``. So
    ``https://github.com/Acme/Deploy.git``, ``git@github.com:acme/deploy`` and
    ``ssh://git@github.com:22/acme/deploy/`` are all ``github.com/acme/deploy`` (argo-cd
    ``util/git`` ``NormalizeGitURL`` trims and lower-cases as Go does, ``strings.TrimSpace`` and
    ``strings.ToLower``, and drops ``.git``; hooklint also equates the https and ssh forms of one
    repository, since a clone's remote and an Application may differ)."""
    text = go_to_lower(go_trim_space(url))
    scheme = re.match(r"^[a-z][a-z0-9+.-]*://", text)
    if scheme:
        text = text[scheme.end():]
        host, _, rest = text.partition("/")
        host = host.rpartition("@")[2].partition(":")[0]
    else:  # scp-like: [user@]host:path
        host, _, rest = text.partition(":")
        host = host.rpartition("@")[2]
    rest = rest.strip("/")
    rest = rest[:-4] if rest.endswith(".git") else rest
    return f"{host}/{rest.strip('/')}"


#: The most files of a repository searched for Application manifests besides the run's own.
MAX_REPOSITORY_FILES = 20_000


def repository_manifests(files: Iterable[str], repo_urls: Iterable[str] = (), any_url: bool = False) -> list[str]:
    """The other manifest files (``*.yaml``, ``*.yml``) of the git repositories holding ``files``,
    where Applications pointing into them may be written even when the run names only some files
    (pre-commit): hidden folders and ``.git`` are skipped, at most :data:`MAX_REPOSITORY_FILES`.
    Only repositories whose URL is known (a git remote, or ``repo_urls``) are searched, unless
    ``any_url`` (the CustomResourceDefinitions and hostPath PersistentVolumes of the repository
    matter whoever deploys them); paths are spelled like ``files`` (relative to the current
    folder when inside it)."""
    configured = bool(list(repo_urls))
    seen, roots = _repositories_of(files)
    found: list[str] = []
    for root in roots:
        if not (any_url or remote_urls(os.path.join(root, ".git")) or configured):
            continue
        for folder, dirs, names in walk_tree(root):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "node_modules")
            for name in sorted(names):
                if (name.lower().endswith((".yaml", ".yml")) or name in KUSTOMIZATION_NAMES) and not name.startswith("."):
                    full = os.path.join(folder, name)
                    if full not in seen:
                        found.append(user_path(full))
                        if len(found) >= MAX_REPOSITORY_FILES:
                            return found
    return found


def _repositories_of(files: Iterable[str]) -> tuple[set[str], list[str]]:
    """``(the absolute paths of files, the git roots holding them in the order of those paths, each
    once)`` for :func:`repository_manifests`, found once per run for the same files and current
    folder (discovery asks a second time, for the CRDs, when the first found no repository to search)."""
    files = tuple(files)
    known = facts.memo("repositories_of")
    key = (os.getcwd(), files)
    if key not in known:
        seen = {facts.absolute(f) for f in files}
        roots: list[str] = []
        asked: set[str] = set()
        for path in sorted(seen):
            folder = os.path.dirname(path)
            if folder in asked:  # each folder's repository once
                continue
            asked.add(folder)
            root = facts.git_root_of(folder)
            if root is not None and root not in roots:
                roots.append(root)
        known[key] = (seen, roots)
    return known[key]


def mentions_application(path: str, max_size: int = DEFAULT_MAX_FILE_SIZE) -> bool:
    """Whether the file ``path`` (a regular file up to ``max_size`` bytes) may say ``kind:
    Application`` once parsed, in any spelling YAML or JSON reads as that word
    (:func:`~hooklint.sources.repository.spelling.may_hold`): a cheap text test before rendering
    what holds it, false only when no spelling in the file makes the word."""
    data = facts.read_regular(path, max_size)
    return data is not None and may_hold(data, b"Application")


class RepositoryUrls:
    """What "this repository" is for a file: the git repository holding it (:func:`~hooklint.sources.repository.git.git_root`) and
    the normalised ``url`` of each of its remotes, plus the configured ``repo-urls``; each git
    configuration read once."""

    def __init__(self, repo_urls: Iterable[str] = ()):
        self.configured = {normalize_repo_url(u) for u in repo_urls}
        self._remotes: dict[str | None, set[str]] = {None: set()}
        self._roots: dict[str, str | None] = {}

    def of(self, path: str) -> tuple[str | None, set[str]]:
        """``(git root or None, the URLs of this repository)`` for the file ``path``."""
        root = facts.git_root_of(os.path.dirname(facts.absolute(path)))
        if root not in self._remotes:
            assert root is not None  # None (no git repository) is in _remotes from the start
            self._remotes[root] = {normalize_repo_url(u) for u in remote_urls(os.path.join(root, ".git"))}
        return root, self._remotes[root] | self.configured


def find_application_sources(files: Iterable[str], repo_urls: Iterable[str] = (),
                             max_file_size: int = DEFAULT_MAX_FILE_SIZE,
                             version: Version = DEFAULT_VERSION,
                             control_plane: ControlPlane | None = None,
                             applied_by: Sequence[ApplicationSource] = (),
                             unplaced: list[str] | None = None) -> list[ApplicationSource]:  # fmt: skip
    """The sources, pointing into their own repository, of the Applications in ``files``, in file
    and document order. Only regular files up to ``max_file_size`` bytes are read; a file that
    cannot be read or parsed holds none (it is reported where it is linted), nor does a file of a
    Helm chart (Argo CD never applies a template as written: its rendering is what the app of apps
    reads; a chart's file that a directory source applies is read by
    :func:`hooklint.sources.appmap.discovery.applications_in_charts`). ``repo_urls`` (configuration) count as this repository
    besides the git remotes; ``version`` is the Argo CD release that stores them and ``control_plane``
    where its controller may run (:func:`sources_of`; None: :func:`repository_control_plane` of ``files``).
    An Application written without ``metadata.namespace`` lives in the namespaces the directory
    sources that apply its file (:func:`applied_into`: those found here, followed to a fixpoint, and
    ``applied_by``, made elsewhere: rendered or generated) put it in, and is read once for each;
    applied by none, it is read without one. The files of such Applications are added to
    ``unplaced`` (when given)."""
    files = list(files)
    plane = control_plane or repository_control_plane(files, None, max_file_size)
    urls = RepositoryUrls(repo_urls)
    bodies: list[tuple[str, str, set[str], Any]] = []
    for path in files:
        root, ours = urls.of(path)
        data = facts.read_regular(path, max_file_size)
        if data is None:
            continue
        # a text test only skips a file no spelling makes an Application of (trial 8, F6: `!!str`,
        # `&anchor`, `>-`, `"\x61"`, JSON `"\u0061"`); the parsed kind decides (sources_of)
        if not may_hold(data, b"Application"):
            continue
        lowered = data.decode("utf-8", "replace").lower()
        # the repository's path (acme/shop) is in every spelling of its URL; any other repoURL
        # is a source from elsewhere (issue 33: named, never a silent pass): parse only then
        if not (any(u.partition("/")[2] in lowered for u in ours) or "repourl" in lowered or rewritten(data)):
            continue
        if os.path.basename(path) != "Chart.yaml" and chart_of(path) is not None:
            continue
        if root is None:
            root = os.getcwd()
        for doc in facts.read_parsed(path, DEFAULT_MAX_FILE_SIZE, len(data)).documents:
            for body in document_objects(doc.value):  # a kind: List's items too
                bodies.append((path, root, ours, body))
    # an Application written without metadata.namespace lives where the directory source that applies
    # it puts it (its parent's destination namespace); the parents may be such children: a fixpoint
    lives: dict[int, tuple[str | None, ...]] = {}
    found: list[ApplicationSource] = []
    read: dict[tuple[int, str | None], list[ApplicationSource]] = {}  # each body read once per namespace
    for _ in range(MAX_APPLIED_DEPTH + 1):
        found = []
        for i, (path, root, ours, body) in enumerate(bodies):
            for namespace in lives.get(i, (None,)):
                if (i, namespace) not in read:
                    read[i, namespace] = sources_of(body, path, root, ours, default_namespace=namespace,
                                                    version=version, control_plane=plane)  # fmt: skip
                found.extend(read[i, namespace])
        now: dict[int, tuple[str | None, ...]] = {i: into for i, (path, _, _, body) in enumerate(bodies)
               if not _written_namespace(body) and (into := applied_into(path, [*found, *applied_by]))}  # fmt: skip
        if now == lives:
            break
        lives = now
    if unplaced is not None:
        unplaced.extend(sorted({path for path, _, _, body in bodies if not _written_namespace(body)}))
    return found


#: The most levels of directory sources applying Applications that :func:`find_application_sources`
#: follows to learn where each one lives (the app of apps map's own depth).
MAX_APPLIED_DEPTH = 8


def _written_namespace(body: Any) -> bool:
    """Whether the Application ``body`` writes a non-empty ``metadata.namespace`` (where it lives then)."""
    metadata = body.get("metadata") if isinstance(body, Map) else None
    return isinstance(metadata, Map) and isinstance(metadata.get("namespace"), str) and bool(metadata["namespace"])


def applied_into(path: str, sources: Iterable[ApplicationSource]) -> tuple[str, ...]:
    """The namespaces (sorted, each once) an object written without ``metadata.namespace`` in the
    file ``path`` is applied into by the directory sources among ``sources`` that read it: each
    one's destination namespace (gitops-engine v3.5.1 ``pkg/sync/sync_context.go``
    ``getSyncTasks``: "enrich target objects with the namespace", ``SetNamespace(sc.namespace)``
    for an object whose namespace is empty, ``sc.namespace`` the Application's
    ``spec.destination.namespace``). A source reads the file when it lives in the source's folder
    (or below it, with ``directory.recurse``) and ``directory.include``/``exclude`` keep it; a
    source with a problem, from elsewhere, or with no destination namespace says nothing (an
    Application applied by hand lives in kubectl's default namespace, which hooklint cannot know).
    Empty when none applies it."""
    full = facts.absolute(path)
    out: set[str] = set()
    for source in sources:
        if source.problem is not None or source.remote is not None or not source.namespace or not source.folder:
            continue
        folder = facts.absolute(source.folder)
        relative = os.path.relpath(full, folder)
        if relative.startswith(".." + os.sep) or relative == ".." or os.path.isabs(relative):
            continue
        if (source.source_type or source_type(folder)[0]) != "directory":
            continue
        options = DirectoryOptions.from_application(source.options)
        if os.path.dirname(relative) and not options.recurse:
            continue
        if options.excludes(relative.replace(os.sep, "/")) is None:
            out.add(source.namespace)
    return tuple(sorted(out))


#: At most this many foreign repository URLs are named in the note of :func:`foreign_repo_urls`.
MAX_FOREIGN_SHOWN = 3


def foreign_repo_urls(files: Iterable[str], repo_urls: Iterable[str] = (),
                      max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> tuple[list[str], set[str]]:  # fmt: skip
    """The Git ``repoURL`` values (as written, sorted, each once; a source with ``chart`` is a Helm
    chart repository's, left out) of the Applications written in
    ``files`` when none of them is a URL of this repository, and the URLs of this repository
    (:class:`RepositoryUrls` of the first file); ``([], ...)`` when one is, or no Application
    names one. For the one note that says why no Application deploys a folder here (the map needs
    a remote or ``repo-urls`` that the Applications' ``repoURL`` matches: ``normalize_repo_url``)."""
    urls = RepositoryUrls(repo_urls)
    ours: set[str] = set()
    found: set[str] = set()
    for path in files:
        data = facts.read_regular(path, max_file_size)
        if data is None:
            continue
        if not may_hold(data, b"Application", b"repoURL"):
            continue
        ours = ours or urls.of(path)[1]
        # parsed once for this note and find_application_sources
        documents = facts.read_parsed(path, DEFAULT_MAX_FILE_SIZE, len(data)).documents
        for body in (b for doc in documents for b in document_objects(doc.value)):
            if not isinstance(body, Map) or not is_argo_kind(body.get("apiVersion"), body.get("kind"), "Application"):
                continue
            for _, entry in rendered_sources(body.get("spec")):
                url = entry.get("repoURL") if isinstance(entry, Map) and "chart" not in entry else None
                if isinstance(url, str) and url:  # a chart of a chart repository is never this repository
                    if normalize_repo_url(url) in (ours or urls.of(path)[1]):
                        return [], ours
                    found.add(url)
    return sorted(found), ours


def repository_name(url: str) -> str:
    """The last path segment of a Git URL or path, lower case, without ``.git``: ``acme/shop`` of
    ``https://github.com/acme/shop.git``, ``git@github.com:acme/shop``, ``/srv/git/shop.git`` and
    ``../shop`` are all ``shop``."""
    text = url.strip().rstrip("/").lower()
    text = text[:-4] if text.endswith(".git") else text
    return re.split(r"[/:\\]", text)[-1]


_HOSTED = re.compile(r"^(https?|ssh|git)://[^/]+/.+|^[\w.-]+@[\w.-]+:.+")


def lookalike_url(urls: Iterable[str], path: str, repo_urls: Iterable[str] = (),
                  matched: bool = False) -> tuple[str, str, str] | None:  # fmt: skip
    """For a hint that ``repo-urls`` is missing: the first (sorted) of the Git ``urls`` (the
    ``repoURL`` of Application sources that are not this repository) that looks like a hosted URL
    (``https://``, ``ssh://`` or ``git@host:``) whose repository name (:func:`repository_name`)
    equals the name of the repository holding ``path`` (its folder's, or a git remote's), as
    ``(url, the name, this repository's remotes as written, ", "-joined, or "none")``; None when
    none does, when there is no git repository, or when other Applications ``matched`` this
    repository through a hosted remote (then a same-named URL is another repository's: a fork's
    upstream). A clone of a local mirror has a path as its remote,
    which no Application's ``repoURL`` names, so its Applications are read as another repository's."""
    root = facts.git_root_of(os.path.dirname(os.path.abspath(path)))
    if root is None:
        return None
    remotes = remote_urls(os.path.join(root, ".git"))
    if matched and any(_HOSTED.match(u.strip()) for u in remotes):
        return None
    names = {repository_name(root)} | {repository_name(u) for u in [*remotes, *repo_urls]}
    for url in sorted(set(urls)):
        if _HOSTED.match(url.strip()) and repository_name(url) in names:
            return url, repository_name(url), ", ".join(remotes) or "none"
    return None


def sources_of(body: Any, path: str, root: str, ours: set[str], line: int | None = None,
               generated_by: str | None = None, scope: tuple[str, ...] = (),
               max_file_size: int = DEFAULT_MAX_FILE_SIZE,
               secrets: tuple[tuple[str, str], ...] = (),
               default_namespace: str | None = None, version: Version = DEFAULT_VERSION,
               normalized: bool = False, app_files: bool = True,
               control_plane: ControlPlane | None = None) -> list[ApplicationSource]:  # fmt: skip
    """The sources pointing into this repository (``ours``: normalised URLs; ``root`` its folder)
    of the Application ``body`` (a parsed document; anything else has none), written in ``path``.
    ``default_namespace`` is the namespace it lives in when its ``metadata.namespace`` is unset (an
    Application rendered by another: that one's destination namespace, where Argo CD applies it);
    the namespace decides its :func:`~hooklint.argocd.instance_name`, with ``control_plane`` (where
    Argo CD's controller may run: :func:`repository_control_plane`; None: ``argocd`` or
    ``openshift-gitops``). When that name depends on which of its namespaces the controller runs
    in and the name changes what is rendered (an ``.argocd-source-<name>.yaml`` of the folder for
    one of the names, or ``$ARGOCD_APP_NAME`` in ``helm.valueFiles`` or ``helm.fileParameters``),
    the source is not rendered and its ``problem`` names both names and the ``argocd-namespace``
    setting (:func:`_name_problem`): hooklint never picks one silently (attacker trial 19, B8).
    ``line`` overrides where each source is said to be (a rendered Application: the template or
    resource line it comes from); ``generated_by``, ``scope`` and ``secrets`` (a generated
    Application's: :attr:`ApplicationSource.secrets`) are copied onto each source.

    Each source's ``path`` is resolved as the repo server does (``util/app/path`` ``Path``: joined
    to the repository, symbolic links followed, then it must be a folder inside the repository),
    and its options merged with ``.argocd-source.yaml`` and ``.argocd-source-NAME.yaml`` of that
    folder (:func:`merge_source_parameters`) before the source type is decided, as
    ``GetAppSourceType`` does. A source that cannot be rendered carries its ``problem``.

    ``spec.source`` is read as Argo CD ``version`` stores it (:func:`normalize_source`: an empty
    ``directory``, ``helm`` or ``kustomize`` dropped, so the folder decides the type). An Application
    applied as written (``kubectl apply``, an app of apps) is compared once before the controller
    stores it so; when that first rendering types the folder otherwise and can render, it is a
    second source, its :attr:`~hooklint.sources.spec.ApplicationSource.view` saying so, listed
    before the steady one: Argo CD may sync either. ``normalized``: the Application was stored
    normalized from the start (an ApplicationSet's, :data:`hooklint.argocd.BEHAVIOURS`
    ``appset-normalize``), so only the steady rendering exists.
    ``app_files`` False: ``.argocd-source.yaml`` only, for a :func:`stand_in_source`, whose
    Application's name is unknown."""
    if not isinstance(body, Map) or not is_argo_kind(body.get("apiVersion"), body.get("kind"), "Application"):
        return []
    metadata, spec = body.get("metadata"), body.get("spec")
    name = metadata.get("name") if isinstance(metadata, Map) else None
    if not isinstance(spec, Map) or not isinstance(name, str):
        return []
    written_namespace = metadata.get("namespace") if isinstance(metadata, Map) else None
    names = (control_plane or ControlPlane()).instance_names(name, written_namespace or default_namespace)
    instance = names[0]
    destination = spec.get("destination")
    destination = destination if isinstance(destination, Map) else Map()
    namespace, server = destination.get("namespace"), destination.get("server") or destination.get("name")
    project = spec.get("project")
    entries = rendered_sources(spec)  # a hydrated Application: its dry source only
    out = []
    real_root = facts.realpath(root)
    refs = {f"${s['ref']}": s for _, s in entries if isinstance(s.get("ref"), str) and s["ref"]}
    # a ref source of this repository at another revision: its $ref files are not the working tree's (issue 32)
    pinned = {name: (str(s.get("targetRevision")), ref_revision) for name, s in refs.items()
              if (ref_revision := _pinned_ref(s, ours, root)) is not None}  # fmt: skip
    multiple = (isinstance(spec.get("sources"), Seq) and len(spec["sources"]) > 0
                and not isinstance(spec.get("sourceHydrator"), Map))  # HasMultipleSources
    for field_name, source in entries:
        index = int(field_name[13:-1]) if field_name.startswith("spec.sources[") else None
        remote = remote_source(source, index, ours, line) or pinned_source(source, index, ours, root, line)
        env = build_env(instance, namespace, project, source)
        if remote is not None and field_name == "spec.source" and multiple:
            continue  # Argo CD ignores spec.source when spec.sources is set (HasMultipleSources)
        if remote is not None and len(names) > 1 and (undecided := _name_problem(
                name, written_namespace or default_namespace, names, None, ({k: _plain(v) for k, v in source.items()},),
                control_plane or ControlPlane())) is not None:  # fmt: skip
            # what --fetch would render reads value files named by $ARGOCD_APP_NAME: never one name silently
            out.append(ApplicationSource(
                name=name, manifest=path, line=line if line is not None else source.span.line, folder="",
                source_type=None, namespace=namespace if isinstance(namespace, str) and namespace else None,
                problem=undecided, undecided=True, project=project if isinstance(project, str) else None,
                server=server if isinstance(server, str) else None, field=field_name, generated_by=generated_by,
                scope=scope, secrets=secrets, env=tuple(env.items())))  # fmt: skip
            continue
        if remote is not None:  # fetched by Argo CD's repo server: named, not rendered (issue 33)
            helm = remote.helm if isinstance(remote.helm, dict) else {}
            listed = helm.get("valueFiles")
            written: list = listed if isinstance(listed, list) else []
            files, _ = _resolve_refs(written, refs if multiple else None, ours, env, pinned)
            read_here = tuple(f.lstrip("/") for f, w in zip(files, written)
                              if isinstance(w, str) and w.startswith("$") and f != w)  # fmt: skip
            kept = {k: _plain(v) for k, v in source.items()}  # as Argo CD stores it (normalize_source)
            kept = normalize_source(kept, version) if field_name == "spec.source" and not multiple else kept
            typed = [k for k in ("helm", "kustomize", "directory", "plugin") if isinstance(kept.get(k), dict)]
            explicit = typed[0] if len(typed) == 1 else None
            out.append(ApplicationSource(
                name=name, manifest=path, line=line if line is not None else source.span.line, folder="",
                source_type=explicit, namespace=namespace if isinstance(namespace, str) and namespace else None,
                project=project if isinstance(project, str) else None,
                server=server if isinstance(server, str) else None, field=field_name, generated_by=generated_by,
                scope=scope, remote=dataclasses.replace(remote, value_files=read_here), secrets=secrets,
                env=tuple(env.items()),
                # what --fetch renders it with: its explicit type's options, $ref value files resolved (issue 33)
                options={**helm, "valueFiles": files} if written else kept.get(explicit) if explicit else None,
                value_file_places=_value_file_places(source, path, line, (), len(files)) if written else (),
                pinned_refs=tuple((n, *pinned[n]) for n in sorted(pinned)) if multiple else (),
            ))  # fmt: skip
            continue
        url, folder = source.get("repoURL"), source.get("path")
        if not isinstance(url, str) or not isinstance(folder, str) or normalize_repo_url(url) not in ours:
            continue
        if "chart" in source:  # a chart from a Helm repository, not a folder of this one
            continue
        # util/app/path/path.go Path joins the path as written: no trimming (" apps/x" is its own folder)
        target = os.path.normpath(os.path.join(root, folder.lstrip("/")))
        problem = undecided = None
        as_written: dict[str, Any] = {k: _plain(v) for k, v in source.items()}
        # NormalizeApplicationSpec: spec.source only (a multi-source entry is normalized as a copy)
        plain = normalize_source(as_written, version) if field_name == "spec.source" and not multiple else as_written
        first: dict | None = None  # the written source of the first comparison, when it differs
        overrides: Sequence[str] = ()
        if os.path.isabs(folder):  # util/app/path/path.go Path, v3.5.1: "app path is absolute"
            problem = f"{field_name}.path {folder!r} is an absolute path, which Argo CD refuses (app path is absolute): write it from the repository's top without the leading /"
        elif os.path.normpath(folder).split(os.sep)[0] == "..":
            # Path joins it to the checkout, a folder of a random name: any .. that leaves it is out
            # ("app path outside root"), whatever this repository's folder is called
            problem = f"{field_name}.path {folder!r} leaves the repository (app path outside root)"
        elif not within(target, root):
            problem = f"{field_name}.path {folder!r} leaves the repository"
        else:
            real = facts.realpath(target)
            if not within(real, real_root):
                problem = (f"{field_name}.path {folder!r} is a symbolic link to {real}, outside the repository "
                           "(app path outside root)")  # fmt: skip
            elif not facts.is_dir(real):
                problem = f"{field_name}.path {folder!r} is not a folder of this repository"
            else:
                target = os.path.join(root, os.path.relpath(real, real_root)) if real != real_root else root
                target = os.path.normpath(target)
                try:
                    named = instance if app_files else ""
                    if plain != as_written and not normalized:
                        first = merge_source_parameters(as_written, target, named, max_file_size, real_root)[0]
                    plain, overrides = merge_source_parameters(plain, target, named, max_file_size, real_root)
                except ValueError as exc:
                    problem = f"error while parsing source parameters: {exc}"
                if problem is None and app_files and len(names) > 1:
                    problem = undecided = _name_problem(name, written_namespace or default_namespace, names, target,
                                            (as_written, plain), control_plane or ControlPlane())  # fmt: skip
        kind = _explicit(plain)
        views: list[tuple[str | None, dict, str]] = [(kind, plain, "")]
        if problem is None and first is not None:
            first_kind = _explicit(first)
            # a first comparison that fails (no chart, no kustomization, two types) applies nothing
            if (first_kind is not None and first_kind != (kind or source_type(target)[0])
                    and _type_problem(first_kind, field_name, folder, target) is None):  # fmt: skip
                views.insert(0, (first_kind, first, FIRST_COMPARISON.format(type=f"{field_name}.{first_kind}")))
        if problem is None:
            problem = _type_problem(kind, field_name, folder, target)
        for kind, plain, view in views:
            options = plain.get(kind) if kind in ("helm", "kustomize", "directory") else None
            places: tuple[tuple[str, int, int], ...] = ()
            why: str | None = None
            if kind == "helm" and isinstance(options, dict) and isinstance(options.get("valueFiles"), list):
                files, why = _resolve_refs(options["valueFiles"], refs if multiple else None, ours, env, pinned)
                options = {**options, "valueFiles": files}
                places = _value_file_places(source, path, line, overrides, len(files), max_file_size)
            if kind == "helm" and isinstance(options, dict):
                options = substitute_parameters(options, env, set(refs) if multiple else set())
            out.append(ApplicationSource(
                name=name,
                manifest=path,
                line=line if line is not None else source.span.line,
                folder=user_path(target),
                source_type=kind,
                options=options,
                namespace=namespace if isinstance(namespace, str) and namespace else None,
                problem=problem or why,
                undecided=problem is not None and problem == undecided,
                project=project if isinstance(project, str) else None,
                server=server if isinstance(server, str) else None,
                field=field_name,
                generated_by=generated_by,
                scope=scope,
                secrets=secrets,
                env=tuple(env.items()),
                overrides=tuple(user_path(os.path.abspath(o)) for o in overrides),
                value_file_places=places,
                pinned_refs=tuple((n, *pinned[n]) for n in sorted(pinned)) if multiple else (),
                entry=(line, 1) if line is not None else (source.key_span("repoURL").line, source.key_span("repoURL").column),
                path_entry=(line, 1) if line is not None else (source.key_span("path").line, source.key_span("path").column),
                view=view,
            ))  # fmt: skip
    return out


def _name_problem(name: str, namespace: object, names: Sequence[str], folder: str | None, sources: Iterable[dict],
                  plane: ControlPlane) -> str | None:  # fmt: skip
    """Why the source of the Application ``name`` of ``namespace``, rendering ``folder``, is not
    rendered when Argo CD may name it any of ``names`` (:meth:`~hooklint.argocd.ControlPlane.instance_names`:
    its namespace is one of ``plane``'s but Argo CD's controller may run in another) and the name
    changes what is rendered: ``mergeSourceParameters`` merges ``.argocd-source-<name>.yaml`` of the
    folder for the one name only, and ``$ARGOCD_APP_NAME`` (``newEnv``) names the Helm value files
    or file parameters read (``sources``: the source as written and merged, plain values; ``folder``
    None: a source fetched from elsewhere, whose folder hooklint does not hold). None
    when the name changes nothing hooklint reads files by (the first name is used)."""
    entries = set(facts.entry_names(folder) or ()) if folder is not None else set()  # one listing, cached
    present = [APP_SOURCE_FILE.format(n) for n in names if APP_SOURCE_FILE.format(n) in entries
               and not os.path.isdir(os.path.join(folder or ".", APP_SOURCE_FILE.format(n)))]  # fmt: skip
    fields = []
    for source in sources:
        helm = source.get("helm") if isinstance(source, dict) else None
        helm = helm if isinstance(helm, dict) else {}
        values = helm.get("valueFiles")
        values = values if isinstance(values, list) else []
        parameters = helm.get("fileParameters")
        parameters = parameters if isinstance(parameters, list) else []
        if any(isinstance(v, str) and "ARGOCD_APP_NAME" in v for v in values) and "helm.valueFiles" not in fields:
            fields.append("helm.valueFiles")
        if (any(isinstance(p, dict) and isinstance(p.get("path"), str) and "ARGOCD_APP_NAME" in p["path"]
                for p in parameters) and "helm.fileParameters" not in fields):  # fmt: skip
            fields.append("helm.fileParameters")
    if not present and not fields:
        return None
    others = [ns for ns in plane.namespaces if ns != namespace]
    what = "; ".join(
        ([f"{os.path.join(user_path(folder or '.'), f)} is merged only into the Application named {f[len('.argocd-source-'):-len('.yaml')]!r}"
          for f in present]) +
        ([f"its {' and '.join(fields)} read files named by $ARGOCD_APP_NAME"] if fields else []))  # fmt: skip
    prefixed = f"{namespace}_{name}"
    return (f"Argo CD names Application {name!r} of namespace {namespace!r} {name!r} when its controller runs in "
            f"{namespace!r} and {prefixed!r} when it runs in another namespace (such as {' or '.join(repr(o) for o in others)}; "
            "apps in any namespace) (InstanceName), "
            f"and the name picks what it renders ({what}); hooklint does not guess "
            "where it runs, and rendered nothing of this source as this Application: set argocd-namespace in the "
            "configuration to the namespace Argo CD runs in")  # fmt: skip


def _value_file_places(source: Map, path: str, line: int | None, overrides: Iterable[str], count: int,
                       max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> tuple[tuple[str, int, int], ...]:  # fmt: skip
    """Where each of the ``count`` merged ``helm.valueFiles`` entries of ``source`` (written in
    ``path``) is written: the items of the last ``.argocd-source*.yaml`` file (``overrides``, in
    merge order) that sets ``helm.valueFiles`` (a merge patch replaces a list whole), else of the
    Application's own list; ``(path, line, 1)`` each for an Application rendered by another one
    (``line`` given: its positions are in a rendering, not in a file the user can open)."""
    if line is not None:
        return ((path, line, 1),) * count
    for override in reversed(list(overrides)):
        shown = user_path(os.path.abspath(override))
        loaded = read_file(shown, max_file_size)
        body = loaded.documents[0].value if loaded.documents else None
        helm = _go_key(body, SOURCE, "helm")  # Go decodes Helm: as helm:
        items = _go_key(helm, SOURCE["helm"], "valueFiles")
        if isinstance(items, Seq):
            return _item_places(shown, items, count)
    helm = source.get("helm")
    items = helm.get("valueFiles") if isinstance(helm, Map) else None
    return _item_places(path, items, count) if isinstance(items, Seq) else ()


def _go_key(mapping: Any, struct: Struct, name: str) -> Any:
    """The value Go's ``json.Unmarshal`` leaves in the field ``name`` of ``struct`` from
    ``mapping``: of the last key, in sorted order, that names it (:mod:`hooklint.sources.appmap.gojson`)."""
    if not isinstance(mapping, Map):
        return None
    keys = sorted(k for k in mapping if isinstance(k, str) and field_of(struct, k) == name)
    return mapping[keys[-1]] if keys else None


def _item_places(path: str, items: Seq, count: int) -> tuple[tuple[str, int, int], ...]:
    places = tuple((path, span.line, span.column) for span in items.item_spans)
    return places if len(places) == count else ()


def repository_control_plane(files: Iterable[str], configured: str | None = None,
                             max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> ControlPlane:
    """Where Argo CD's control plane may run for a run over ``files`` (the run's and the
    repository's manifest files) configured with ``argocd-namespace`` ``configured`` (None: unset):
    :func:`hooklint.argocd.control_plane_namespaces` of the objects written in those files (only a
    file that names ``argocd-`` is parsed; a file that cannot be read holds none), the same answer
    HL106 gives from the rendered objects. Never raises."""
    objects: list[tuple[object, object, object]] = []
    for path in files:
        data = facts.read_regular(path, max_file_size)
        if data is None or not may_hold(data, b"argocd-"):
            continue
        for doc in facts.read_parsed(path, DEFAULT_MAX_FILE_SIZE, len(data)).documents:
            for body in document_objects(doc.value):
                metadata = body.get("metadata") if isinstance(body, Map) else None
                if isinstance(metadata, Map):
                    objects.append((body.get("kind"), metadata.get("name"), metadata.get("namespace")))
    return control_plane_namespaces(configured, objects)


def build_env(name: str, namespace: object, project: object, source: Map) -> dict[str, str]:
    """The build environment Argo CD's repo server gives a source (``reposerver/repository/repository.go``
    ``newEnv``: substituted into Helm value files and parameters, kustomize images and labels, and
    annotations with ``commonAnnotationsEnvsubst``): ``ARGOCD_APP_NAME`` (``name``: the
    Application's :func:`~hooklint.argocd.instance_name`),
    ``ARGOCD_APP_NAMESPACE`` (the destination namespace), ``ARGOCD_APP_PROJECT_NAME``,
    ``ARGOCD_APP_SOURCE_REPO_URL``, ``ARGOCD_APP_SOURCE_PATH`` and
    ``ARGOCD_APP_SOURCE_TARGET_REVISION``, as written in the Application. The revision variables
    (``REVISION_VARIABLES``) are left out: hooklint does not know the commit."""
    def text(value: object) -> str:
        return value if isinstance(value, str) else ""

    return {
        "ARGOCD_APP_NAME": name,
        "ARGOCD_APP_NAMESPACE": text(namespace),
        "ARGOCD_APP_PROJECT_NAME": text(project),
        "ARGOCD_APP_SOURCE_REPO_URL": text(source.get("repoURL")),
        "ARGOCD_APP_SOURCE_PATH": text(source.get("path")),
        "ARGOCD_APP_SOURCE_TARGET_REVISION": text(source.get("targetRevision")),
    }


def substitute_parameters(helm: dict, env: dict[str, str], refs: set[str]) -> dict:
    """``helm`` (an Application's ``helm`` options) with the build environment ``env`` substituted
    (:func:`envsubst`) where Argo CD v3.5.1 substitutes it (``reposerver/repository/repository.go``
    ``helmTemplate``): every ``parameters[].value`` (``--set`` and ``--set-string``) and each
    ``fileParameters[].path`` that names no ``ref`` source (``refs``: ``$name`` of each). A revision
    variable (``REVISION_VARIABLES``) stays as written: the Helm renderer leaves such a source
    unrendered (HL009), as hooklint cannot know the commit Argo CD syncs."""
    out = dict(helm)
    for key, field_name in (("parameters", "value"), ("fileParameters", "path")):
        entries = helm.get(key)
        if not isinstance(entries, list):
            continue
        out[key] = [
            {**entry, field_name: envsubst(entry[field_name], env)}
            if isinstance(entry, dict) and isinstance(entry.get(field_name), str)
            and not (key == "fileParameters" and entry[field_name].split("/", 1)[0] in refs) else entry
            for entry in entries
        ]
    return out


def _pinned_ref(source: Map, ours: set[str], root: str) -> str | None:
    """What the ``targetRevision`` of the ``ref`` source ``source`` names (:func:`revision_elsewhere`,
    with whether it is the checked-out commit) when it is this repository (``ours``; ``root`` its
    top folder) at another revision than the working tree's; else None. Argo CD reads its ``$ref``
    value files from that revision (``reposerver/repository/repository.go`` ``resolveReferencedSources``
    checks each ``ref`` source out at its own ``targetRevision``)."""
    url = source.get("repoURL")
    if (not isinstance(url, str) or "chart" in source or normalize_repo_url(url) not in ours
            or source.get("targetRevision") in (None, "", "HEAD")):  # fmt: skip
        return None
    state = facts.checked_out(root)
    named = revision_elsewhere(source.get("targetRevision"), state)
    if named is None:
        return None
    return (f"{named}, not the checked-out commit ({state.commit[:12]})" if state.commit is not None else
            f"{named}, and no checked-out commit is known here (not a git checkout)")  # fmt: skip


def _resolve_refs(value_files: list, refs: dict[str, Map] | None, ours: set[str],
                  env: dict[str, str], pinned: dict[str, tuple[str, str]] | None = None,
                  ) -> tuple[list, str | None]:  # fmt: skip
    """``helm.valueFiles`` as the repo server reads them (``reposerver/repository/repository.go``
    ``getResolvedValueFiles``). In a multi-source Application (``refs``: ``$name`` -> the ``ref``
    source it names), a ``$ref/...`` entry is read from that source when it is this repository
    (``ours``): then ``$ref/path`` is ``/path``, relative to the repository root; an entry of
    another repository, or of this one at another revision (``pinned``: ``$name`` -> its
    ``targetRevision`` and what that names, :func:`_pinned_ref`), stays as written (the renderer says
    it is not read: HL009), and a
    reference to no source is the repo server's error (``resolveReferencedSources``), returned as
    the second value. Every other entry, and every entry of a single-source Application
    (``refs`` None: ``$values/x`` is no reference there), is ``envsubst``-ed with ``env``."""
    out = []
    for entry in value_files:
        if not isinstance(entry, str):
            out.append(entry)
            continue
        if refs is None or not entry.startswith("$"):
            out.append(envsubst(entry, env))
            continue
        name, _, rest = entry.partition("/")
        target = refs.get(name)
        if target is None:
            if not refs:
                return value_files, f"source referenced {name!r}, but no source has a 'ref' field defined"
            return value_files, (f"source referenced {name!r}, which is not one of the available sources "
                                 f"({', '.join(sorted(refs))})")  # fmt: skip
        url = target.get("repoURL")
        if (isinstance(url, str) and normalize_repo_url(url) in ours and "chart" not in target
                and name not in (pinned or {})):  # fmt: skip
            out.append("/" + envsubst(rest, env).lstrip("/"))
        else:
            out.append(entry)
    return out, None


def _type_problem(kind: str | None, field_name: str, folder: str, target: str) -> str | None:
    """Why an explicit ``helm`` or ``kustomize`` source cannot render ``target``: ``helm
    template`` needs a ``Chart.yaml`` ("Chart.yaml file is missing"), ``kustomize build`` a
    kustomization ("unable to find one of 'kustomization.yaml', 'kustomization.yml' or
    'Kustomization'"). None otherwise (a folder that does not exist has its own problem)."""
    if not os.path.isdir(target):
        return None
    if kind == "helm" and not os.path.isfile(os.path.join(target, "Chart.yaml")):
        return f"{field_name}.helm is set, but {folder!r} has no Chart.yaml (helm: Chart.yaml file is missing)"
    if kind == "kustomize" and not any(
        os.path.isfile(os.path.join(target, n)) for n in ("kustomization.yaml", "kustomization.yml", "Kustomization")
    ):
        return (f"{field_name}.kustomize is set, but {folder!r} has no kustomization (kustomize: unable to find one "
                "of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization')")  # fmt: skip
    return None


# --- NormalizeSource: an empty source type is dropped -------------------------------------------

#: The options each ``IsZero`` of ``pkg/apis/application/v1alpha1/types.go`` reads, with the first
#: release whose ``IsZero`` reads it (v3.5.1: ``ApplicationSourceHelm.IsZero`` with
#: ``ValuesIsEmpty``, ``ApplicationSourceKustomize.IsZero``, ``ApplicationSourceDirectory.IsZero``
#: = ``!Recurse && Jsonnet.IsZero()``). Every one came with its field, except ``commonLabels``
#: (field 1.1, read from 1.2): a field a release does not have is dropped by its CRD schema, so it
#: is unset there too. Kustomize's ``forceCommonLabels``, ``forceCommonAnnotations``,
#: ``commonAnnotationsEnvsubst``, ``labelWithoutSelector`` and ``labelIncludeTemplates`` were never
#: read: ``kustomize: {forceCommonLabels: true}`` is empty.
ZERO_OPTIONS: dict[str, tuple[tuple[str, Version], ...]] = {
    "helm": (("valueFiles", (1, 0, 0)), ("parameters", (1, 0, 0)), ("releaseName", (1, 1, 0)),
             ("values", (1, 3, 0)), ("fileParameters", (1, 5, 0)), ("version", (1, 8, 0)),
             ("passCredentials", (2, 2, 0)), ("ignoreMissingValueFiles", (2, 3, 0)), ("skipCrds", (2, 3, 0)),
             ("valuesObject", (2, 8, 0)), ("namespace", (2, 13, 0)), ("kubeVersion", (2, 13, 0)),
             ("apiVersions", (2, 13, 0)), ("skipTests", (2, 14, 0)), ("skipSchemaValidation", (2, 14, 0))),
    "kustomize": (("namePrefix", (1, 0, 0)), ("images", (1, 0, 0)), ("commonLabels", (1, 2, 0)),
                  ("nameSuffix", (1, 4, 0)), ("version", (1, 6, 0)), ("commonAnnotations", (1, 8, 0)),
                  ("namespace", (2, 7, 0)), ("replicas", (2, 7, 0)), ("patches", (2, 9, 0)),
                  ("components", (2, 10, 0)), ("kubeVersion", (2, 13, 0)), ("apiVersions", (2, 13, 0)),
                  ("ignoreMissingComponents", (3, 0, 0))),
    "directory": (("recurse", (1, 0, 0)),),
    "jsonnet": (("extVars", (1, 0, 0)), ("tlas", (1, 0, 0)), ("libs", (1, 7, 0))),
}  # fmt: skip
#: ``directory`` fields ``NormalizeSource`` keeps when it drops an empty directory (``exclude`` from
#: 1.8, ``include`` from 2.0, each with its field): the directory stays, with only them.
DIRECTORY_KEPT: tuple[tuple[str, Version], ...] = (("exclude", (1, 8, 0)), ("include", (2, 0, 0)))

#: :attr:`~hooklint.sources.spec.ApplicationSource.view` of the rendering of an Application's first
#: comparison, ``{type}`` the empty source type it still has then.
FIRST_COMPARISON = "as first compared, before Argo CD drops its empty {type}"


def _go_set(key: str, value: Any) -> bool:
    """Whether Go sees the option ``key`` set to ``value`` as ``IsZero`` tests it: a non-empty
    string, list or map, ``true``; ``valuesObject`` whenever it is not null (``ValuesYAML`` of
    ``{}`` is ``{}``, not empty). A value of another type (the API refuses it) counts as set."""
    if value is None:
        return False
    if key == "valuesObject":
        return True
    if isinstance(value, bool):
        return value
    if isinstance(value, (str, list, dict)):
        return len(value) > 0
    return True


def is_zero(kind: str, options: Any, version: Version = DEFAULT_VERSION) -> bool:
    """Argo CD ``version``'s ``IsZero`` of the ``kind`` (``helm``, ``kustomize``, ``directory``,
    ``jsonnet``) options ``options`` (plain values; None is nil, zero): no option of
    :data:`ZERO_OPTIONS` that ``version`` reads is set (:func:`_go_set`); a directory's ``jsonnet``
    must be zero too. Options that are not a mapping are not zero (the API refuses them)."""
    if options is None:
        return True
    if not isinstance(options, dict):
        return False
    if any(since <= version and _go_set(key, options.get(key)) for key, since in ZERO_OPTIONS[kind]):
        return False
    return kind != "directory" or is_zero("jsonnet", options.get("jsonnet"), version)


def normalize_source(source: dict, version: Version = DEFAULT_VERSION) -> dict:
    """``source`` (an Application source, plain values) as ``util/argo/argo.go`` ``NormalizeSource``
    (v3.5.1, lines 1035-1056; ``NormalizeApplicationSpec`` before 2.6) leaves it: ``kustomize`` and
    ``helm`` dropped when :func:`is_zero`, an empty ``directory`` dropped or, when it has an
    ``include``/``exclude`` (:data:`DIRECTORY_KEPT`), reduced to them. The API server stores an
    Application it creates or updates so (``server/application/application.go``), the
    ApplicationSet controller each Application it generates (from 2.8 and 2.7.8,
    :data:`hooklint.argocd.BEHAVIOURS` ``appset-normalize``), and the application controller
    patches the stored spec so after each comparison (``controller/appcontroller.go``
    ``normalizeApplication``; after one that fails to render only once ``CompareAppState`` stops
    answering ``ErrCompareStateRepo``, at the end of the repo error grace period). Only ``spec.source`` is: ``NormalizeApplicationSpec`` ranges over
    ``spec.sources`` by value and normalizes copies (2.6 to 3.5.1), so a multi-source entry keeps
    its empty type. The repo server reads what is stored (``GetAppSourceType``: ``ExplicitType``,
    else the folder decides)."""
    out = dict(source)
    for kind in ("kustomize", "helm"):
        if kind in out and is_zero(kind, out[kind], version):
            del out[kind]
    directory = out.get("directory")
    if "directory" in out and is_zero("directory", directory, version):
        kept = {key: directory[key] for key, since in DIRECTORY_KEPT
                if since <= version and isinstance(directory, dict) and _go_set(key, directory.get(key))}  # fmt: skip
        if kept:
            out["directory"] = kept
        else:
            del out["directory"]
    return out


def _explicit(source: dict) -> str | None:
    """``ExplicitType``: the one source type set in ``source``, else None (none, or several)."""
    kinds = [k for k in ("helm", "kustomize", "directory", "plugin") if source.get(k) is not None]
    return kinds[0] if len(kinds) == 1 else None


#: ``reposerver/repository/repository.go`` ``repoSourceFile`` and ``appSourceFile``.
REPO_SOURCE_FILE = ".argocd-source.yaml"
APP_SOURCE_FILE = ".argocd-source-{}.yaml"
#: The fields ``mergeSourceParameters`` keeps from the Application whatever the files say.
_KEPT_FIELDS = ("chart", "path", "repoURL", "targetRevision")


def merge_source_parameters(source: dict, folder: str, app_name: str, max_file_size: int = DEFAULT_MAX_FILE_SIZE,
                            real_root: str | None = None) -> tuple[dict, list[str]]:  # fmt: skip
    """``source`` (an Application source as plain values) with the parameter override files of
    the app folder ``folder`` merged in, and the files merged, in order: ``.argocd-source.yaml``,
    then ``.argocd-source-APP_NAME.yaml`` (argocd-image-updater writes the latter). Each is a JSON
    merge patch (RFC 7386: mappings merged key by key, ``null`` removes, anything else, lists
    included, replaces) over the source as Go marshals it, whose result Go's ``json.Unmarshal``
    decodes back into the same source (:func:`hooklint.sources.appmap.gojson.decode`: ``Helm:`` is
    ``helm:``, and a field the patch removed keeps its value), and ``chart``, ``path``, ``repoURL``
    and ``targetRevision`` stay the Application's (``reposerver/repository/repository.go``
    ``mergeSourceParameters``). With a file, the result holds only ``ApplicationSource`` fields. A folder of
    that name is skipped. With ``real_root`` (the repository's resolved root), a file that resolves
    outside it is never read: Argo CD refuses the checkout ("illegal filepath in symlink"; it was
    read, second helper trial). Raises ValueError ``FILE: why`` for a file that cannot be read or
    parsed (Argo CD: "error while parsing source parameters") or that leads out."""
    merged = dict(source)
    used: list[str] = []
    for name in (REPO_SOURCE_FILE, APP_SOURCE_FILE.format(app_name) if app_name else None):
        if name is None:
            continue
        path = os.path.join(folder, name)
        if not os.path.lexists(path) or os.path.isdir(path):
            continue
        shown = user_path(os.path.abspath(path))
        real = facts.realpath(path)
        if real_root is not None and not within(real, real_root):
            raise ValueError(f"{shown} is a symbolic link to {real}, outside the repository (illegal filepath in "
                             "symlink); never read")  # fmt: skip
        loaded = read_file(shown, max_file_size)
        if loaded.error is not None:
            raise ValueError(f"{shown}: {loaded.error.message}")
        fatal = [issue for issue, _ in loaded.issues if issue.kind in (SYNTAX_ERROR, TOO_COMPLEX)]
        if fatal:
            raise ValueError(f"{shown}:{fatal[0].span.line}: {fatal[0].detail or 'not YAML'}")
        patch = _plain(loaded.documents[0].value) if loaded.documents else None
        if not used:  # json.Marshal of the source the API server stored: its own fields, exact names
            merged = marshal(SOURCE, merged)
        patched = _merge_patch(merged, patch)
        if not isinstance(patched, dict):
            raise ValueError(f"{shown}: json: cannot unmarshal into an ApplicationSource")
        try:  # json.Unmarshal into the same source: keys matched case-insensitively, objects merged
            merged = decode(SOURCE, merged, patched)
        except GoJSONError as exc:
            raise ValueError(f"{shown}: {exc}") from None
        used.append(path)
    for key in _KEPT_FIELDS:
        merged.pop(key, None)
        if key in source:
            merged[key] = source[key]
    return merged, used


#: The ``repoURL`` of the Application a :func:`stand_in_source` stands for: this repository.
_STAND_IN_URL = "https://stand-in.hooklint.invalid/this-repository.git"
#: ``generated_by`` of a :func:`stand_in_source` (what made it: no Application written anywhere here).
STAND_IN_ORIGIN = "no Application of this repository (the folder's .argocd-source.yaml)"


def app_source_files(folder: str) -> list[str]:
    """The ``.argocd-source-NAME.yaml`` files of ``folder`` (not folders; sorted, joined to it):
    what ``mergeSourceParameters`` merges into the Application whose instance name is ``NAME``
    only (:func:`~hooklint.argocd.instance_name`)."""
    prefix, suffix = APP_SOURCE_FILE.split("{}")
    names = [n for n in facts.entry_names(folder) or ()
             if n.startswith(prefix) and n.endswith(suffix) and len(n) > len(prefix) + len(suffix)]  # fmt: skip
    return [os.path.join(folder, n) for n in sorted(names) if not os.path.isdir(os.path.join(folder, n))]


def stand_in_source(folder: str, root: str, max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> ApplicationSource | None:
    """The source of the Application Argo CD would render ``folder`` (a folder of the repository
    whose top is ``root``, that no Application of this repository deploys) with, when the folder
    holds ``.argocd-source.yaml``; else None. ``reposerver/repository/repository.go`` v3.5.1
    ``GetAppSourceType`` calls ``mergeSourceParameters(source, appPath, appName)`` for every
    Application whatever its name: ``.argocd-source.yaml`` is merged into each one that deploys the
    folder (from any repository), and its ``helm``, ``kustomize`` and ``directory`` (or ``plugin``)
    options then decide the source type and what is rendered, as for an Application written here.

    Read by :func:`sources_of` (the path hooklint reads an Application of this repository by), for
    an Application of this repository whose source is only ``path: FOLDER``, named after the folder
    (the release name hooklint guesses without an Application), in the control plane's namespace;
    ``.argocd-source-NAME.yaml`` is not merged (which Application deploys the folder is unknown:
    :func:`app_source_files` are said by discovery). The source is said to be written at line 1 of
    ``.argocd-source.yaml`` (``manifest``), ``generated_by`` :data:`STAND_IN_ORIGIN`, ``stand_in`` set."""
    override = os.path.join(folder, REPO_SOURCE_FILE)
    if not os.path.lexists(override) or os.path.isdir(override):
        return None
    relative = os.path.relpath(os.path.abspath(folder), os.path.abspath(root)).replace(os.sep, "/")
    name = os.path.basename(os.path.abspath(folder)) or "root"
    text = (f"apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: {json.dumps(name)}\n"
            f"spec:\n  source:\n    repoURL: {json.dumps(_STAND_IN_URL)}\n    path: {json.dumps(relative)}\n")
    body = parse_text(override, text).documents[0].value
    shown = user_path(os.path.abspath(override))
    found = sources_of(body, shown, root, {normalize_repo_url(_STAND_IN_URL)}, 1, STAND_IN_ORIGIN,
                       max_file_size=max_file_size, app_files=False)  # fmt: skip
    # the folder as the run spells it (an absolute path stays one): the map matches its folders by name
    return dataclasses.replace(found[0], stand_in=True, folder=folder) if found else None


def _merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch of ``target`` with ``patch`` (``jsonpatch.MergePatch``)."""
    if not isinstance(patch, dict):
        return patch
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = _merge_patch(out.get(key), value)
    return out


def _plain(value: Any) -> Any:
    """A parsed value as plain dicts and lists (the renderers' option readers take plain values)."""
    if isinstance(value, Map):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, Seq):
        return [_plain(v) for v in value]
    return value


# --- directory.include / directory.exclude -----------------------------------------------------


def glob_match(pattern: str, text: str) -> bool:
    """Argo CD's ``util/glob`` ``Match(pattern, text)`` with no separators, which
    ``getPotentiallyValidManifestFile`` (``reposerver/repository/repository.go``) applies to a
    file's path relative to the application folder: gobwas/glob v0.2.3 as ported in
    :mod:`hooklint.sources.appmap.argoglob` (``*`` and ``**`` cross ``/``; ``?`` one character;
    ``[abc]``, ``[a-z]``, ``[!abc]`` a class of one run or one range, ``[^a]`` the class of ``^``
    and ``a``; ``{a,b}`` alternatives; ``\\`` escapes), its optimiser's results included. A
    pattern gobwas/glob does not compile (``[a-z0-9]``, ``[]``, ``[z-a]``) matches nothing: Argo
    CD logs "failed to compile pattern" and returns false. Raises
    :class:`~hooklint.sources.appmap.argoglob.GlobPanic` where Go would panic."""
    from hooklint.sources.appmap.argoglob import compile_glob  # noqa: PLC0415 - an Application's globs only (issue 34)

    compiled = compile_glob(pattern)
    return compiled is not None and compiled.match(text)


@dataclass(slots=True)
class DirectoryOptions:
    """``spec.source.directory``: ``recurse`` into subfolders; ``include`` / ``exclude`` globs (see
    :func:`glob_match`), empty when unset. ``problems`` lists options that are not of the right type
    (ignored, as the Application's API validation would refuse them)."""

    recurse: bool = False
    include: str = ""
    exclude: str = ""
    problems: list[str] = field(default_factory=list)

    @classmethod
    def from_application(cls, spec: Any) -> "DirectoryOptions":
        options = cls()
        if spec is None:
            return options
        if not isinstance(spec, dict):
            options.problems.append("spec.source.directory must be a mapping")
            return options
        recurse = spec.get("recurse", False)
        if isinstance(recurse, bool):
            options.recurse = recurse
        else:
            options.problems.append("spec.source.directory.recurse must be true or false")
        for key in ("include", "exclude"):
            value = spec.get(key) or ""
            if isinstance(value, str):
                setattr(options, key, value)
            else:
                options.problems.append(f"spec.source.directory.{key} must be a string")
        return options

    def excludes(self, relative: str) -> str | None:
        """Why a manifest file at ``relative`` (to the application folder, ``/``-separated) is left
        out, or None when it is read (``getPotentiallyValidManifestFile``: exclude first, then
        include). A glob on which gobwas/glob would panic, or one nested too deeply for hooklint
        to follow (:class:`~hooklint.sources.appmap.argoglob.GlobTooDeep`), leaves nothing out:
        the file is read and checked (fail closed)."""
        if not self.exclude and not self.include:
            return None
        # gobwas/glob's port only for an Application that sets a glob: a run over plain files never imports it
        from hooklint.sources.appmap.argoglob import GlobPanic  # noqa: PLC0415

        try:
            if self.exclude and glob_match(self.exclude, relative):
                return f"matches directory.exclude {self.exclude!r}"
            if self.include and not glob_match(self.include, relative):
                return f"does not match directory.include {self.include!r}"
        except GlobPanic:  # Argo CD's repo server fails on it, or too deep here: read the file rather than leave it out
            pass
        return None
