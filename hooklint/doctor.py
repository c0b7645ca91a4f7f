"""``hooklint doctor``: one place that says what a run would use and see.

Which renderers were found (kustomize: the ``kustomize`` binary, else ``kubectl kustomize``; Helm: a
``helm`` binary, else Helm's Go library from the ``helm`` extra), with their versions and the
command to get a missing one; the configuration in force and where it was found; the URLs that
count as this repository (an Application whose ``repoURL`` is one of them is linted as Argo CD
renders it: its git remotes and the configuration's ``repo-urls``, compared after
:func:`hooklint.sources.appmap.applications.normalize_repo_url`); the Argo CD Applications of the paths,
mapped to the folder they render or ignored with the reason; and where renders are cached.

It reads what a lint run reads and nothing else: the repository's files (regular files up to
``max-file-size``, never through a link out of the repository: :func:`hooklint.loader.read_file`),
its git configuration, and the renderers' version output (the same probes a run makes). Every line
it prints goes through :func:`hooklint.text.url_credentials`, as findings do: an Application's
``repoURL`` may carry a password.
"""

from __future__ import annotations

import os
import platform
from typing import TYPE_CHECKING

from hooklint import __version__
from hooklint.text import escape_commands, escape_controls, escape_line_commands, url_credentials

if TYPE_CHECKING:  # pragma: no cover
    from hooklint.config import Config


def renderer_lines(cfg: "Config", repository: str) -> list[str]:
    """``  kustomize: kubectl kustomize v5.5.0 (/usr/bin/kubectl; Argo CD 3.5.1 renders kustomizations
    with kustomize v5.8.1: put ...)`` (the remedy when it is older than that one:
    :func:`~hooklint.sources.render.kustomize.kustomize_use_note`) and the Helm line (with the Helm
    major the configured Argo CD renders with), or what to install for a missing one."""
    from hooklint.argocd import helm_major, kustomize_version, version_text
    from hooklint.checks.loading import RENDERER_INSTALL
    from hooklint.sources.render.helm import find_helm
    from hooklint.sources.render.kustomize import find_kustomize, kustomize_use_note

    lines = []
    found = find_kustomize(repository)
    if found is None:
        lines.append(f"  kustomize: not installed: kustomize sources are HL008 errors; {RENDERER_INSTALL['kustomize']}")
    else:
        argv, renderer = found
        wanted_kustomize = "v" + ".".join(map(str, kustomize_version(cfg.argocd_version)))
        remedy = (f": put kustomize {wanted_kustomize} on PATH to render as it does"
                  if kustomize_use_note(renderer.label(), cfg.argocd_version) else "")  # fmt: skip
        lines.append(f"  kustomize: {renderer.label()} ({argv[0]}; Argo CD {version_text(cfg.argocd_version)} "
                     f"renders kustomizations with kustomize {wanted_kustomize}{remedy})")  # fmt: skip
    major = helm_major(cfg.argocd_version)
    wanted = f"Argo CD {version_text(cfg.argocd_version)} renders charts with Helm {major}"
    helm = find_helm(major, repository)
    if helm is None:
        lines.append(f"  Helm: not installed: charts are HL008 errors; {RENDERER_INSTALL['Helm']} ({wanted})")
    else:
        mode, renderer = helm
        how = "in process, from the helm extra" if mode == "sdk" else "binary"
        lines.append(f"  Helm: {renderer.label()} ({how}; {wanted})")
    return lines


def application_lines(paths: list[str], cfg: "Config") -> tuple[list[str], list[str]]:
    """``(urls, applications)``: the lines naming the URLs that are this repository, and one line
    per Application source found in the manifests below ``paths``: ``mapped`` with the folder it
    renders, or ``ignored`` with the reason (another repository's ``repoURL``, a chart from a Helm
    repository, no URL of this repository known, a path Argo CD cannot render)."""
    from hooklint.argocd import is_argo_kind
    from hooklint.findings import InputError
    from hooklint.loader import read_file
    from hooklint.sources.appmap.applications import (DirectoryOptions, RepositoryUrls, mentions_application,
                                                      normalize_repo_url, repository_control_plane, sources_of)
    from hooklint.sources.appmap.discovery import directory_reads_in_charts
    from hooklint.sources.repository.tree import DIRECTORY, HELM_CHART_FILE, contained, source_type, walk
    from hooklint.sources.spec import document_objects, rendered_sources
    from hooklint.yamlio import Map

    files: list[str] = []
    errors: list[InputError] = []
    for path in paths:
        if os.path.isdir(path):
            files += contained(walk(path, errors))  # never a file through a link out of the repository
        elif os.path.isfile(path):
            files.append(path)
    urls = RepositoryUrls(cfg.repo_urls)
    seen: dict[str, set[str]] = {}
    for path in paths:  # the repositories of the paths, whether or not they hold an Application
        if os.path.exists(path):
            root, ours = urls.of(os.path.join(path, "_") if os.path.isdir(path) else path)
            seen.setdefault(root or "(no git repository)", ours)
    apps: list[str] = []
    # a Helm chart's files hold no Application, unless a directory source applies them (trial 8 F10)
    charts = [os.path.dirname(os.path.abspath(f)) for f in files if os.path.basename(f) == HELM_CHART_FILE]
    queue = sorted(set(os.path.normpath(f) for f in files))
    done = set(queue)
    plane = repository_control_plane(queue, cfg.argocd_namespace, cfg.max_file_size)  # as the run reads each name
    while queue:
        path = queue.pop(0)
        if not mentions_application(path, cfg.max_file_size):
            continue
        root, ours = urls.of(path)
        seen.setdefault(root or "(no git repository)", ours)
        # a kind: List's items are Applications too (document_objects)
        for doc, body in ((d, b) for d in read_file(path, max_size=cfg.max_file_size).documents
                          for b in document_objects(d.value)):  # fmt: skip
            if not isinstance(body, Map) or not is_argo_kind(body.get("apiVersion"), body.get("kind"), "Application"):
                continue
            metadata, spec = body.get("metadata"), body.get("spec")
            name = metadata.get("name") if isinstance(metadata, Map) else None
            where = f"{path}:{doc.span.line if body is doc.value else body.span.line}"
            label = f"Application {name} ({where})"
            # a source from elsewhere is recorded too (``remote``, issue 33): not a folder of this repository
            mapped = {s.field: s for s in sources_of(body, path, root or os.getcwd(), ours, version=cfg.argocd_version,
                                                 control_plane=plane)
                      if s.remote is None and not s.view}  # the steady rendering (not a first comparison's)
            for field, source in rendered_sources(spec):  # a hydrated Application: its dry source
                url = source.get("repoURL")
                if field in mapped:
                    found = mapped[field]
                    if found.problem:
                        apps.append(f"  ignored  {label} {field}: {found.problem}")
                    else:
                        apps.append(f"  mapped   {label} {field} -> {found.folder}")
                        if charts and (found.source_type or source_type(found.folder)[0]) == DIRECTORY:
                            options = DirectoryOptions.from_application(found.options)
                            more = {f for f, _ in directory_reads_in_charts(found.folder, options.recurse, charts)
                                    if options.excludes(os.path.relpath(f, found.folder).replace(os.sep, "/")) is None
                                    } - done  # fmt: skip
                            done |= more
                            queue.extend(sorted(more))
                elif "chart" in source:
                    apps.append(f"  ignored  {label} {field}: chart {source.get('chart')!s} from the Helm repository "
                                f"{url!s}, not a folder of this repository")  # fmt: skip
                elif not ours:
                    apps.append(f"  ignored  {label} {field}: no URL of this repository is known (no git remote, no "
                                "repo-urls in the configuration)")  # fmt: skip
                elif isinstance(url, str) and normalize_repo_url(url) not in ours:
                    apps.append(f"  ignored  {label} {field}: repoURL {url} is another repository")
                elif isinstance(source.get("ref"), str) and "path" not in source:
                    apps.append(f"  ignored  {label} {field}: a ref source (value files only)")
                else:
                    apps.append(f"  ignored  {label} {field}: no repoURL and path hooklint can read")
    url_lines = []
    configured = {normalize_repo_url(u) for u in cfg.repo_urls}
    for root, ours in sorted(seen.items()):
        for url in sorted(ours - configured):
            url_lines.append(f"  {url} (git remote of {root})")
    url_lines += [f"  {url} (repo-urls)" for url in sorted(configured)]
    return url_lines, apps


def report(paths: list[str], cfg: "Config", config_origin: str) -> str:
    """The doctor's report for ``paths`` under ``cfg`` (``config_origin``: how the configuration
    was found, in words), as text for a terminal (repository text escaped)."""
    from hooklint.findings import repository_root
    from hooklint.sources.render.cache import cache_dir

    repository = str(repository_root(paths[0] if paths and os.path.isdir(paths[0]) else None))
    lines = [f"hooklint {__version__} (Python {platform.python_version()})", "", "Renderers:"]
    lines += renderer_lines(cfg, repository)
    lines += ["", f"Configuration: {config_origin}"]
    from hooklint.argocd import version_text

    lines.append(f"  argocd-version {version_text(cfg.argocd_version)}, fail-on {cfg.fail_on}, "
                 f"workload-scope {cfg.workload_scope}")  # fmt: skip
    urls, apps = application_lines(paths, cfg)
    lines += ["", "Repository URLs matched (an Application whose repoURL is one of these is linted as Argo CD renders it):"]
    lines += urls or ["  none: no git remote and no repo-urls; every Application is ignored (set repo-urls)"]
    mapped = sum(1 for line in apps if line.startswith("  mapped"))
    lines += ["", f"Applications written in these files: {mapped} mapped, {len(apps) - mapped} ignored (those an app of "
                  "apps or an ApplicationSet makes: hooklint plan)"]  # fmt: skip
    lines += apps
    folder = cache_dir()
    lines += ["", f"Cache: {folder if folder else 'off (HOOKLINT_CACHE_DIR=off)'} (HOOKLINT_CACHE_DIR, else "
                  "$XDG_CACHE_HOME/hooklint, else ~/.cache/hooklint)"]  # fmt: skip
    if folder:
        from hooklint.files import cache_refusal
        from hooklint.prune import describe

        refusal = cache_refusal(folder)
        lines.append(f"  not used: {refusal}" if refusal else describe(folder))
    # every line through the URL-credential matcher: an Application's repoURL, a Helm repository's
    # URL or a configured one may carry a password (attacker trial 19 B4)
    return escape_line_commands(escape_commands("\n".join(escape_controls(url_credentials(line)) for line in lines) + "\n"))
