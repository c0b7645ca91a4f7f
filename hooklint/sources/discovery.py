"""Which files make up each application: folder walks, files named one by one, stdin.

Argo CD syncs one application at a time, and cross-object rules look within one application.
Without an ``Application`` manifest to say otherwise, hooklint treats each folder as one application
(its manifest files, not its subfolders, as Argo CD's directory source does without ``recurse``),
and stdin as one application. Files named one by one (as pre-commit names them) bring the other
manifests of their folder along as context.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Iterable

from hooklint.findings import InputError
from hooklint.loader import STDIN, os_error_text

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")


def is_manifest_name(name: str) -> bool:
    return name.lower().endswith(MANIFEST_SUFFIXES)


HELM_CHART_FILE = "Chart.yaml"
KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
DIRECTORY, KUSTOMIZE, HELM = "directory", "kustomize", "helm"


def source_type(folder: str) -> tuple[str, str | None]:
    """How Argo CD renders ``folder`` (``GetAppSourceType``, ``util/app/discovery``; the
    kustomization check runs last, so a folder holding both is kustomize): ``(KUSTOMIZE, its
    kustomization)``, ``(HELM, its Chart.yaml)`` or ``(DIRECTORY, None)``."""
    for name in KUSTOMIZATION_NAMES:
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate):
            return KUSTOMIZE, candidate
    candidate = os.path.join(folder, HELM_CHART_FILE)
    if os.path.isfile(candidate):
        return HELM, candidate
    return DIRECTORY, None


def chart_of(path: str) -> str | None:
    """The Helm chart folder ``path`` lies in (the nearest folder above it holding ``Chart.yaml``),
    or None. A chart's templates are not manifests: they are linted as part of their chart."""
    folder = os.path.dirname(os.path.abspath(path))
    while True:
        if os.path.isfile(os.path.join(folder, HELM_CHART_FILE)):
            return os.path.normpath(os.path.relpath(folder)) if not os.path.isabs(path) else folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def walk(root: str, errors: list[InputError], notices: list[str] | None = None) -> list[str]:
    """Manifest files below ``root`` (``*.yaml``, ``*.yml``, ``*.json``), sorted; hidden files and
    folders are skipped and symbolic links to folders are not followed. Unreadable folders are
    added to ``errors``. A folder with a ``Chart.yaml`` is a Helm chart, which Argo CD renders with
    Helm: its ``Chart.yaml`` stands for it, and its subfolders (templates) are not walked."""

    def onerror(exc: OSError) -> None:
        where = exc.filename or root
        errors.append(InputError(where, os_error_text(where, exc)))

    found: list[str] = []
    for folder, dirs, files in os.walk(root, onerror=onerror):
        if HELM_CHART_FILE in files and not any(n in files for n in KUSTOMIZATION_NAMES):
            dirs[:] = []
            found.append(os.path.join(folder, HELM_CHART_FILE))
            continue
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in files:
            if not name.startswith(".") and is_manifest_name(name):
                found.append(os.path.join(folder, name))
    found.sort()
    return found


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


#: The input error of a folder argument that holds nothing to lint (an empty folder, a wrong path
#: in CI): never a silent pass.
NO_MANIFEST_FILES = "no YAML or JSON file (*.yaml, *.yml, *.json) in this folder or below it; nothing to lint"


def group_applications(
    paths: Iterable[str], errors: list[InputError], notices: list[str] | None = None
) -> list[Application]:
    """Expand command-line paths into applications, in a deterministic order.

    A directory contributes every manifest below it, one application per folder. A file named on
    its own belongs to its folder's application; the folder's other manifests become context. Paths
    that do not exist, and folders with no manifest file at all, are added to ``errors``.

    Paths are normalised (``./app//x.yaml`` is ``app/x.yaml``), so a file named twice, or named and
    inside a named folder, is linted once, and the order and spelling of the arguments do not change
    the result."""
    reported: dict[str, set[str]] = {}
    named_by: dict[str, str] = {}
    named_files: set[str] = set()
    missing: set[str] = set()
    for path in paths:
        if path == STDIN:
            reported.setdefault(STDIN, set()).add(STDIN)
            continue
        path = os.path.normpath(path)
        if os.path.isdir(path):
            found = False
            for file in walk(path, errors, notices):
                found = True
                file = os.path.normpath(file)
                key = os.path.dirname(file) or "."
                reported.setdefault(key, set()).add(file)
                _name(named_by, key, path)
            if not found and path not in missing:
                missing.add(path)
                errors.append(InputError(path, NO_MANIFEST_FILES))
        elif os.path.lexists(path):
            chart = chart_of(path)
            if chart is not None:  # a template named on its own is linted as part of its chart
                path = os.path.join(chart, HELM_CHART_FILE)
            key = os.path.dirname(path) or "."
            reported.setdefault(key, set()).add(path)
            _name(named_by, key, key)
            named_files.add(path)
        elif path not in missing:
            missing.add(path)
            errors.append(InputError(path, "no such file or directory"))
    apps: list[Application] = []
    for key in sorted(reported):
        files = sorted(reported[key])
        kind, manifest_file = source_type(key) if key != STDIN else (DIRECTORY, None)
        if manifest_file is not None:  # rendered as a whole: findings land in the user's files
            manifest_file = os.path.normpath(manifest_file)
            apps.append(Application(key, sorted(set(files) | {manifest_file}), [], kind, manifest_file, named_by.get(key)))
            continue
        context: list[str] = []
        if key != STDIN and any(f in named_files for f in files):
            context = _siblings(key, set(files))
        apps.append(Application(key, files, context))
    return apps


def _name(named_by: dict[str, str], key: str, path: str) -> None:
    """Remember ``path`` as what brought application ``key`` in, unless a path above it already did."""
    known = named_by.get(key)
    if known is None or len(os.path.abspath(path)) < len(os.path.abspath(known)):
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
            not name.startswith(".")
            and is_manifest_name(name)
            and os.path.normpath(full) not in norm_exclude
            and os.path.isfile(full)
        ):
            out.append(full)
    return out
