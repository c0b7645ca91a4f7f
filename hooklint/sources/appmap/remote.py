"""A fetched source rendered like a local one, and where its findings go (issue 33, items 4 and 5).

:func:`load_fetched` takes an Application's source from elsewhere
(:class:`~hooklint.sources.spec.RemoteSource`), fetches it (:func:`hooklint.sources.fetch.fetch`)
and renders it as Argo CD's repo server does once it holds the files:

- a chart (chart repository, OCI registry) is copied, with the ``$ref`` value files the Application
  reads from this repository (each checked inside the repository, a regular file of at most
  ``max-file-size`` bytes), into a scratch folder of the run that stands for the repo server's
  checkout: value files keep their path from the repository's top (``$values/env/prod.yaml`` is
  ``/env/prod.yaml``), relative ones are the chart's own. The chart is then rendered by
  :func:`hooklint.sources.render.render` with the Application's ``helm`` options, its release name
  and destination namespace, in the same sandbox and under the same limits as any chart;
- a Git source of another repository is rendered from the fetched tree, which stands for that
  repository (its ``path``'s kustomization or chart; a directory source's manifest files).

Nothing of a fetched source is a file of this repository, so every finding on it is placed on the
Application's source entry (its ``chart:`` or ``repoURL:`` key) and its message starts with where
in the source it is: ``hookchart 1.2.0 templates/job.yaml:14: ...`` (:class:`FetchedOrigin`,
:func:`relocate`); the plan shows the objects at that place too.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from dataclasses import dataclass
from typing import Any

from hooklint.config import Config
from hooklint.findings import Finding, Span
from hooklint.files import copy_tree, read_bytes, remove_tree, walk_tree
from hooklint.loader import LoadedFile, parse_text, read_file, within
from hooklint.text import url_credentials
from hooklint.sources.repository.spelling import may_hold
from hooklint.yamlio import NOT_RENDERED, LoadIssue, Map
from hooklint.sources.repository.submodules import submodules_of, unseen_detail
from hooklint.sources.fetch import (SSH_NEVER, FetchError, FetchPolicy, Fetched, RemoteSource, base_not_fetched, fetch,
                                    fetch_advice, is_ssh, load_credentials)
from hooklint.sources.fetch.net import Hosts

#: The folder, in the scratch checkout, a fetched chart is copied to (no value file path of a
#: repository starts with it: it is checked).
CHART_FOLDER = "@fetched-chart"


@dataclass(frozen=True, slots=True)
class FetchedOrigin:
    """Where findings on one fetched source go: ``prefix`` (the fetched copy's folder, ending with
    a separator) and ``label`` (``hookchart 1.2.0``) say where in the source a path is;
    ``scratch`` (the scratch checkout, ending with a separator) maps a copied value file back to
    the repository (its path there, relative to ``repository``); ``manifest``, ``line`` and
    ``column`` are the Application's source entry."""

    prefix: str
    label: str
    manifest: str
    line: int
    column: int
    scratch: str = ""
    repository: str = ""
    #: What was fetched, for the plan: ``hookchart 1.2.0 (sha256:7dbb9d885d55) from https://...``.
    described: str = ""

    def where(self, path: str) -> str | None:
        """``hookchart 1.2.0 templates/job.yaml`` for a ``path`` of the fetched copy, else None."""
        if path.startswith(self.prefix):
            return f"{self.label} {path[len(self.prefix):].replace(os.sep, '/')}"
        return None

    def text(self, message: str) -> str:
        """``message`` with the scratch folders' paths replaced by what they stand for."""
        message = message.replace(self.prefix, f"{self.label} ").replace(self.prefix.rstrip(os.sep), self.label)
        if self.scratch:
            message = message.replace(self.scratch, self.repository)
        return message


def relocate(findings: list[Finding], origins: list[FetchedOrigin]) -> list[Finding]:
    """``findings`` with each one on a fetched source's file moved to the Application's source entry,
    its message prefixed with the place in the source (``hookchart 1.2.0 templates/job.yaml:14: ``)
    and that place kept as ``related``; other findings unchanged."""
    if not origins:
        return findings
    out = []
    for finding in findings:
        for origin in origins:
            where = origin.where(finding.path)
            if where is None and origin.scratch and finding.path.startswith(origin.scratch):
                out.append(dataclasses.replace(finding, path=os.path.join(origin.repository, finding.path[len(origin.scratch):]),
                                               message=origin.text(finding.message)))  # fmt: skip
                break
            if where is not None:
                place = f"{where}:{finding.span.line}"
                out.append(dataclasses.replace(finding, path=origin.manifest, span=Span.point(origin.line, origin.column),
                                               message=f"{place}: {origin.text(finding.message)}", related=(place,)))  # fmt: skip
                break
        else:
            out.append(finding)
    return out


def relocate_plan(plan: Any, origins: list[FetchedOrigin]) -> None:
    """Show the objects of a reported plan (:meth:`hooklint.plan.SyncPlan.reported`) that come from
    a fetched source at their place in it (``hookchart 1.2.0 templates/job.yaml``, the template's line)."""
    if not origins:
        return
    seen: set[int] = set()
    for m in [t.manifest for t in plan.tasks] + [e.manifest for e in plan.not_applied]:
        if id(m) in seen or m.placement is None:
            continue
        seen.add(id(m))
        for origin in origins:
            where = origin.where(m.placement.path)
            if where is not None:
                m.placement.path = where
                break


_POLICIES: dict[tuple, FetchPolicy] = {}


def policy_of(config: Config) -> FetchPolicy:
    """The :class:`~hooklint.sources.fetch.FetchPolicy` of ``config`` (``fetch-hosts`` and the
    ``--fetch-host`` entries, ``fetch-credentials``, the limits; the cache under the render cache's
    folder, else a folder of the run). Raises ValueError for a credentials file it cannot read."""
    from hooklint.config import parse_host_entry  # noqa: PLC0415
    from hooklint.files import cache_refused  # noqa: PLC0415
    from hooklint.sources.render.cache import cache_dir  # noqa: PLC0415

    key = (tuple(config.fetch_hosts), config.found, tuple(config.fetch_command_hosts), config.fetch_credentials,
           config.fetch_max_bytes, config.fetch_max_files, config.fetch_timeout, cache_dir())  # fmt: skip
    known = _POLICIES.get(key)
    if known is not None and (not known.cache or os.path.isdir(known.cache) or cache_dir()):
        return known
    # the command line's entries first: the first entry that admits a URL is the one its address is checked against
    hosts = [parse_host_entry(e, command_line=True) for e in config.fetch_command_hosts]
    hosts += [dataclasses.replace(parse_host_entry(e), found=config.found) for e in config.fetch_hosts]
    folder = cache_dir()
    refused = folder is not None and cache_refused(folder)  # a cache folder leading through a link: a folder of the run
    cache = os.path.join(folder, "fetch") if folder and not refused else tempfile.mkdtemp(prefix="hooklint-fetch-")
    policy = FetchPolicy(Hosts(hosts), load_credentials(config.fetch_credentials) if config.fetch_credentials else {},
                         config.fetch_max_bytes, config.fetch_max_files, config.fetch_timeout, cache)  # fmt: skip
    _POLICIES[key] = policy
    return policy


def remote_of(record: Any) -> RemoteSource | None:
    """The fetch step's :class:`~hooklint.sources.fetch.RemoteSource` of the discovery's record
    (:class:`hooklint.sources.spec.RemoteSource`), or None when it is nothing hooklint
    fetches (an OCI artifact without a chart, a scheme it does not know)."""
    from hooklint.sources.appmap import applications as a  # noqa: PLC0415

    revision = record.target_revision or ""
    if record.kind == a.CHART_REPOSITORY and record.chart:
        return RemoteSource("helm", record.repo_url, record.chart, revision)
    if record.kind == a.OCI_REGISTRY and record.chart:
        return RemoteSource("oci", record.repo_url, record.chart, revision)
    if record.path is not None and (record.kind in (a.OTHER_GIT, a.PINNED_REVISION) or (
            record.kind == a.UNKNOWN_SCHEME and record.repo_url.lower().startswith("file://"))):  # fmt: skip
        return RemoteSource("git", record.repo_url, "", revision, record.path)  # file://: --fetch-host file:// only
    return None


def not_fetched(record: Any) -> tuple[str, str | None]:
    """``(why, fix)`` for the source from elsewhere ``record`` (an
    :class:`~hooklint.sources.applications.RemoteSource`) of a run without ``--fetch``: ``why`` what
    is wrong (``hooklint fetches it only with `--fetch```; for what the fetch step never fetches,
    why: :data:`~hooklint.sources.fetch.SSH_NEVER`, ``hooklint never fetches it``), ``fix`` how to have it fetched
    (:func:`~hooklint.sources.fetch.fetch_advice`), None when it cannot be."""
    if remote_of(record) is None:
        return "hooklint never fetches it", None
    if is_ssh(record.repo_url.strip()):
        return SSH_NEVER, None
    advice = fetch_advice(record.repo_url)
    if advice is None:
        return "hooklint never fetches it", None
    return "hooklint fetches it only with `--fetch`", advice


_REPOSITORY_LABEL = b"argocd.argoproj.io/secret-type"


def declared_repositories(root: str, max_file_size: int) -> dict[str, str]:
    """Argo CD's Helm repositories declared in the repository at ``root`` (its declarative setup):
    the Secrets labelled ``argocd.argoproj.io/secret-type: repository`` of its ``*.yaml``/``*.yml``
    files (hidden folders and links skipped, each file read as the loader reads any), ``name`` ->
    ``url`` (``stringData``, else base64 ``data``) for those whose ``url`` is ``http(s)://`` and
    whose ``type`` is ``helm`` or unset; the first declaration of a name wins. Argo CD v3.5.1
    ``reposerver/repository/repository.go`` ``getHelmRepos`` matches an ``@name`` dependency to
    the declared repository of that ``name``."""
    import base64  # noqa: PLC0415
    import binascii  # noqa: PLC0415

    from hooklint.files import walk_tree  # noqa: PLC0415

    found: dict[str, str] = {}
    for folder, dirs, names in walk_tree(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not os.path.islink(os.path.join(folder, d)))
        for name in sorted(names):
            path = os.path.join(folder, name)
            if not name.lower().endswith((".yaml", ".yml")) or os.path.islink(path):
                continue
            try:
                if not may_hold(read_bytes(path, max_file_size), _REPOSITORY_LABEL):
                    continue
            except (OSError, ValueError):
                continue
            for doc in read_file(path, max_file_size).documents:
                body = doc.value
                metadata = body.get("metadata") if isinstance(body, dict) else None
                labels = metadata.get("labels") if isinstance(metadata, dict) else None
                if not isinstance(labels, dict) or labels.get("argocd.argoproj.io/secret-type") != "repository" \
                        or body.get("kind") != "Secret":  # fmt: skip
                    continue
                fields: dict[str, str] = {}
                data = body.get("data")
                for field_name, value in data.items() if isinstance(data, dict) else ():
                    try:
                        fields[str(field_name)] = base64.b64decode(str(value), validate=True).decode("utf-8")
                    except (binascii.Error, ValueError):
                        continue
                strings = body.get("stringData")
                for field_name, value in strings.items() if isinstance(strings, dict) else ():
                    fields[str(field_name)] = str(value)
                repo_name, url = fields.get("name", "").strip(), fields.get("url", "").strip()
                if (repo_name and url.lower().startswith(("https://", "http://"))
                        and fields.get("type", "helm").strip() == "helm"):  # fmt: skip
                    found.setdefault(repo_name, url)
    return found


def dependency_fetcher(config: Config, fetched: list[FetchedOrigin]) -> Any:
    """The :data:`hooklint.sources.render.helm.DependencyFetcher` of a run with ``--fetch``: a chart
    dependency of a chart repository (``https://``) or an OCI registry (``oci://``) fetched at its
    version (a constraint resolved against the index or tags), its :class:`FetchedOrigin` (its
    ``Chart.yaml`` entry) appended to ``fetched``. A repository Argo CD knows by name (``@name``,
    ``alias:name``) is the one ``helm-repositories`` names so, else the one this repository declares
    (:func:`declared_repositories`): Argo CD v3.5.1
    ``reposerver/repository/repository.go`` ``getHelmDependencyRepos`` reads such a dependency as a
    repository of that name, ``getHelmRepos`` finds the declared repository of that name (its
    repository Secrets' ``name``) and adds its URL under that name before ``helm dependency build``,
    which then reads ``@name`` as that URL (Helm's ``pkg/downloader/manager.go``); one it does not
    name is not fetched, saying how to name it."""

    declared: dict[str, dict[str, str]] = {}

    def fetch_dependency(name: str, repository: str, version: str, chart_yaml: str, line: int, column: int) -> Any:
        url = repository
        if repository.startswith(("@", "alias:")):
            named = repository.removeprefix("@") if repository.startswith("@") else repository.removeprefix("alias:")
            known = config.helm_repositories.get(named)
            real_chart = os.path.realpath(chart_yaml)
            if known is None and not within(real_chart, os.path.realpath(policy_of(config).cache)):
                from hooklint.sources.repository.tree import repository_root  # noqa: PLC0415

                # a repository Secret of this repository (never of a fetched chart) declares it: read once per rendering
                root = repository_root(os.path.dirname(chart_yaml) or ".")
                if root not in declared:
                    declared[root] = declared_repositories(root, config.max_file_size)
                known = declared[root].get(named)
            if known is None:
                return (f"{repository} is the repository Argo CD's settings name {named}, whose URL hooklint does not "
                        f"know: name it under `helm-repositories` in the configuration ({named}: https://...), or "
                        "declare it in this repository (a Secret labelled argocd.argoproj.io/secret-type: repository)")  # fmt: skip
            url = known
        scheme = url.partition("://")[0].lower() if "://" in url else ""
        if scheme not in ("http", "https", "oci"):
            return f"hooklint fetches chart repositories (https://) and OCI registries (oci://), not {url}"
        remote = RemoteSource("oci" if scheme == "oci" else "helm", url, name, version)
        try:
            got = fetch(remote, policy_of(config))
        except (FetchError, ValueError) as exc:
            return str(exc)
        except OSError as exc:
            return f"the fetch cache cannot be used ({exc.strerror or type(exc).__name__})"
        fetched.append(FetchedOrigin(got.folder + os.sep, got.label(), chart_yaml, line, column,
                                     described=f"{got.label()} ({got.digest[:19]}) from {repository}"
                                     + (f" ({url})" if url != repository else "")))  # fmt: skip
        return got.folder, got.root

    return fetch_dependency


def kustomize_fetcher(config: Config, fetched: list[FetchedOrigin]) -> Any:
    """The :data:`hooklint.sources.render.kustomize.RemoteFetcher` of a run with ``--fetch``: a
    remote kustomize base or component (``github.com/org/repo//path?ref=v1``,
    ``https://host/org/repo.git//path``, ``git::https://...``: kustomize v5.5.0
    ``api/internal/git/repospec.go``, :func:`~hooklint.sources.repository.kustomize_spec.repo_spec`)
    fetched by the Git fetch step (:mod:`hooklint.sources.fetch.git`: the clone URL kustomize's
    ``cloner.go`` would ``git fetch --depth=1``, at its ``ref``, ``HEAD`` without one; submodules,
    which kustomize would clone too, are not fetched), and, once rendered, a :class:`FetchedOrigin`
    appended to ``fetched``: findings in it go to the kustomization entry of this repository that
    leads there. Not fetched: :func:`~hooklint.sources.fetch.base_not_fetched`. kustomize asks an ``http(s)://`` entry of
    ``resources`` as a file first (a GET of the URL: an HTTP error fails the build, a YAML answer is
    a resource) and clones it only when the answer is no YAML; hooklint fetches a URL that reads as
    a repository (``//``, ``.git``, ``_git/``, ``github.com``) by Git directly."""
    from hooklint.sources.render.kustomize import FetchedBase  # noqa: PLC0415
    from hooklint.sources.repository.kustomize_spec import repo_spec  # noqa: PLC0415

    def fetch_base(entry: str, anchor: tuple[str, int, int]) -> Any:
        spec = repo_spec(entry)
        if spec is None:
            return "kustomize does not read it as a Git repository"
        why = base_not_fetched(entry, spec)
        if why is not None:
            return why
        url = spec.clone_url()
        try:
            got = fetch(RemoteSource("git", url, "", spec.ref, spec.root), policy_of(config))
        except (FetchError, ValueError) as exc:
            return str(exc)
        except OSError as exc:
            return f"the fetch cache cannot be used ({exc.strerror or type(exc).__name__})"
        origin = FetchedOrigin(got.root + os.sep, f"{got.name}@{got.version}", *anchor,
                               described=f"{got.name} at {got.digest[:12]} (kustomize {url_credentials(entry)})")

        def keep() -> None:
            if origin not in fetched:
                fetched.append(origin)

        return FetchedBase(got.folder, got.root, got.digest, f"{got.name}@{got.version}", keep)

    return fetch_base


@dataclass(slots=True)
class Loaded:
    """What :func:`load_fetched` gives back to :func:`hooklint.sources.load.load_application`."""

    file: LoadedFile
    rendered: list | None
    renderer: Any
    comments: dict[str, list]
    secrets: Any
    #: Where findings go: the fetched source's, then its chart dependencies' (fetched too).
    origins: list[FetchedOrigin]


def load_fetched(app: Any, source: Any, config: Config, repository: str) -> Loaded | str:
    """Fetch and render the source from elsewhere ``source`` (an
    :class:`~hooklint.sources.spec.ApplicationSource` whose ``remote`` is set) of the
    application ``app`` (source type ``remote``), ``repository`` being this repository's top
    folder. Returns what was loaded, or why it was not fetched (one line: not a kind hooklint
    fetches, a host not listed, a limit, a digest mismatch...)."""
    remote = remote_of(source.remote)
    if remote is None:
        return "hooklint does not fetch this kind of source"
    if is_ssh(remote.repo_url):
        return SSH_NEVER
    try:
        policy = policy_of(config)
        fetched = fetch(remote, policy)
    except (FetchError, ValueError) as exc:
        return str(exc)
    except OSError as exc:  # the cache folder cannot be written, say
        return f"the fetch cache cannot be used ({exc.strerror or type(exc).__name__})"
    entry = (source.remote.line, source.remote.column)
    if remote.kind == "git":
        return _render_git(app, source, config, fetched, entry)
    return _render_chart(app, source, config, fetched, entry, repository)


def _render_chart(app: Any, source: Any, config: Config, fetched: Fetched, entry: tuple[int, int],
                  repository: str) -> Loaded | str:  # fmt: skip
    from hooklint.sources.repository.tree import HELM  # noqa: PLC0415
    from hooklint.sources.render import chart_value_secrets, render, values_unread  # noqa: PLC0415

    values: list[tuple[str, bytes]] = []
    real_repository = os.path.realpath(repository)
    for relative in source.remote.value_files:  # $ref value files of this repository, contained
        if relative.split("/")[0] in (CHART_FOLDER, ".git"):
            return f"value file /{relative} clashes with hooklint's scratch checkout"
        real = os.path.realpath(os.path.join(repository, relative))
        if not within(real, real_repository) or not os.path.isfile(real):
            continue  # the renderer reports it (not found, or outside the repository) as Argo CD would
        try:
            values.append((relative, read_bytes(real, config.max_file_size)))
        except (OSError, ValueError):
            continue
    try:
        scratch = _checkout(policy_of(config).cache, fetched, values)
    except OSError as exc:
        return f"the fetch cache cannot be used ({exc.strerror or type(exc).__name__})"
    chart = os.path.join(scratch, CHART_FOLDER, os.path.basename(fetched.folder))
    shown_repository = os.path.relpath(repository) if within(os.path.abspath(repository), os.getcwd()) else repository
    origin = FetchedOrigin(chart + os.sep, fetched.label(), app.manifest_file, *entry, scratch + os.sep,
                           "" if shown_repository == "." else shown_repository + os.sep,
                           f"{fetched.label()} ({fetched.digest[:19]}) from {source.remote.repo_url}")  # fmt: skip
    application = dataclasses.replace(source, folder=chart, source_type=HELM)
    manifest = os.path.join(chart, "Chart.yaml")
    dependencies: list[FetchedOrigin] = []
    loaded, rendered, renderer, comments = render(HELM, chart, manifest, config, None, application, dependencies,
                                                  dependency_fetcher(config, dependencies))
    for item in rendered:  # objects of the Application's rendering: reported where its file is
        item.loaded.path = app.manifest_file
    secrets = chart_value_secrets(chart, scratch, source.options, config.max_file_size) if rendered else None
    if secrets is not None and secrets.incomplete:  # fail closed, as for a chart of the repository
        loaded.issues.append((LoadIssue(NOT_RENDERED, Span.point(1, 1), values_unread(chart, secrets.incomplete[0])), 0))
        rendered, renderer, secrets = [], None, None
    # a dependency's findings go to the Application's entry too: its Chart.yaml is the fetched chart's
    moved = [dataclasses.replace(d, manifest=origin.manifest, line=origin.line, column=origin.column) for d in dependencies]
    return Loaded(_issues_file(app, loaded, manifest, origin), rendered, renderer, comments, secrets, [*moved, origin])


def _checkout(cache: str, fetched: Fetched, values: list[tuple[str, bytes]]) -> str:
    """The scratch checkout of the fetched chart ``fetched`` with the value files ``values``
    (``(path from the repository's top, bytes)``): a folder of ``cache``'s ``checkouts/`` named by
    a digest of them all, made once (built aside, then renamed into place), so that a second run
    renders the same paths and the render cache answers. Raises OSError."""
    import hashlib  # noqa: PLC0415

    digest = hashlib.sha256(fetched.digest.encode() + b"\0" + os.path.basename(fetched.folder).encode())
    for relative, data in values:
        digest.update(b"\0" + relative.encode("utf-8", "surrogateescape") + b"\0" + hashlib.sha256(data).digest())
    folder = os.path.join(cache, "checkouts", digest.hexdigest()[:32])
    if os.path.isdir(os.path.join(folder, ".git")):
        return folder
    os.makedirs(os.path.dirname(folder), 0o700, exist_ok=True)
    building = tempfile.mkdtemp(dir=os.path.dirname(folder), prefix=".building-")
    try:
        copy_tree(fetched.folder, os.path.join(building, CHART_FOLDER, os.path.basename(fetched.folder)))
        for relative, data in values:
            target = os.path.join(building, relative)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "xb") as handle:
                handle.write(data)
        os.mkdir(os.path.join(building, ".git"))  # last: the checkout's top, and the mark that it is whole
        try:
            os.rename(building, folder)
        except OSError:  # another run made it first
            if not os.path.isdir(os.path.join(folder, ".git")):
                raise
    finally:
        if os.path.isdir(building):
            remove_tree(building)
    return folder


def _render_git(app: Any, source: Any, config: Config, fetched: Fetched, entry: tuple[int, int]) -> Loaded | str:
    from hooklint.sources.repository.tree import DIRECTORY, HELM, KUSTOMIZE, source_type  # noqa: PLC0415
    from hooklint.sources.render import render  # noqa: PLC0415

    marker = os.path.join(fetched.root, ".git")
    if not os.path.isdir(marker):
        os.makedirs(marker, exist_ok=True)  # the fetched tree is that repository's top
    origin = FetchedOrigin(fetched.root + os.sep, f"{fetched.name}@{fetched.version}", app.manifest_file, *entry,
                           described=f"{fetched.name} at {fetched.digest[:12]} (path {source.remote.path})")
    subs = submodules_of(fetched.root)  # that repository's: Argo CD checks them out too, --fetch does not
    holding = subs.holding(fetched.folder)
    if holding is not None:
        return (f"its path {source.remote.path!r} is in {holding.described()} of that repository, which Argo CD's repo "
                "server checks out (`git submodule update --init --recursive`) and hooklint never fetches")  # fmt: skip
    detected, manifest_file = source_type(fetched.folder)
    kind = source.source_type or detected

    def unseen(recurse: bool) -> list[tuple[LoadIssue, int]]:
        """HL009 at the Application's entry for each submodule of the fetched tree the source reads."""
        subject = f"{source.label()}: {source.field}.path {source.remote.path!r} of {fetched.name}@{fetched.version}"
        read = subs.below(fetched.folder) if kind in (KUSTOMIZE, HELM) or recurse else []
        return [(LoadIssue(NOT_RENDERED, Span.point(*entry), unseen_detail(subject, sub, False), sub.field()), 0)
                for sub in read]  # fmt: skip

    if kind in (KUSTOMIZE, HELM) and manifest_file is not None:
        application = dataclasses.replace(source, folder=fetched.folder, source_type=kind)
        dependencies: list[FetchedOrigin] = []
        loaded, rendered, renderer, comments = render(kind, fetched.folder, manifest_file, config, None, application,
                                                      dependencies, dependency_fetcher(config, dependencies),
                                                      kustomize_fetcher(config, dependencies))  # fmt: skip
        for item in rendered:
            item.loaded.path = app.manifest_file
        moved = [dataclasses.replace(d, manifest=origin.manifest, line=origin.line, column=origin.column)
                 for d in dependencies]  # fmt: skip
        carried = _issues_file(app, loaded, manifest_file, origin)
        carried.issues += unseen(False)
        return Loaded(carried, rendered, renderer, comments, None, [*moved, origin])
    if kind != DIRECTORY:
        return f"a {kind} source of another repository is not rendered by hooklint"
    from hooklint.sources.render.placement import Placement  # noqa: PLC0415
    from hooklint.sources.render import RenderedFile  # noqa: PLC0415

    from hooklint.sources.appmap.applications import DirectoryOptions  # noqa: PLC0415

    carrier = parse_text(app.manifest_file, "")
    rendered = []
    options = DirectoryOptions.from_application(source.options if source.source_type == DIRECTORY else None)
    carrier.issues += unseen(options.recurse)
    for path in _manifest_files(fetched.folder, options, fetched.root):  # as a directory source reads them
        loaded = read_file(path, config.max_file_size)
        for issue, index in loaded.issues:
            carrier.issues.append((_moved(issue, issue.path or path, origin), index))
        for doc in loaded.documents:  # one per object: each its own place in the fetched file
            if isinstance(doc.value, Map) and doc.value:
                first = next(iter(doc.value))
                placement = Placement(doc.value, path, doc.value.key_span(first), doc.value)
                rendered.append(RenderedFile(LoadedFile(app.manifest_file, [doc]), placement))
    return Loaded(carrier, rendered, None, {}, None, [origin])


def _manifest_files(folder: str, options: Any, root: str) -> list[str]:
    """The ``*.yaml``, ``*.yml`` and ``*.json`` files a directory source reads in ``folder``: its
    own, or every one below it with ``recurse`` (hidden folders skipped; links to folders not
    followed), less what ``include``/``exclude`` leave out; a link to a regular file inside the
    fetched tree ``root`` is read as that file, one leading nowhere or to a folder is skipped
    (``reposerver/repository/repository.go`` ``getPotentiallyValidManifests``,
    ``getPotentiallyValidManifestFile``; the fetch step refused a tree with a link out of it)."""
    found = []
    real_root = os.path.realpath(root)
    for top, folders, names in walk_tree(folder):
        folders[:] = sorted(f for f in folders if not f.startswith(".")) if options.recurse else []
        for name in sorted(names):
            path = os.path.join(top, name)
            relative = os.path.relpath(path, folder).replace(os.sep, "/")
            if (name.lower().endswith((".yaml", ".yml", ".json")) and os.path.isfile(path)
                    and within(os.path.realpath(path), real_root) and options.excludes(relative) is None):  # fmt: skip
                found.append(path)
    return found


def _moved(issue: LoadIssue, path: str | None, origin: FetchedOrigin) -> LoadIssue:
    """``issue`` about ``path``, its text's scratch paths replaced (:meth:`FetchedOrigin.text`)."""
    return LoadIssue(issue.kind, issue.span, origin.text(issue.detail), issue.field_path, issue.first_line,
                     issue.more, path)  # fmt: skip


def _issues_file(app: Any, loaded: LoadedFile, manifest: str, origin: FetchedOrigin) -> LoadedFile:
    """The Application's file as the carrier of the rendering's load issues (HL007, HL008, HL009),
    each naming the fetched file it is about (the chart's ``Chart.yaml`` when it names none) and
    with scratch paths in its text replaced: :func:`relocate` then places them."""
    out = parse_text(app.manifest_file, "")
    for issue, index in loaded.issues:
        path = issue.path or manifest
        # an issue on the Application's own file (a valueFiles entry) stays where it is
        out.issues.append((_moved(issue, None if path == app.manifest_file else path, origin), index))
    return out
