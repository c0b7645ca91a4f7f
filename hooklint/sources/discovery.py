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


def walk(root: str, errors: list[InputError], notices: list[str] | None = None) -> list[str]:
    """Manifest files below ``root`` (``*.yaml``, ``*.yml``, ``*.json``), sorted; hidden files and
    folders are skipped and symbolic links to folders are not followed. Unreadable folders are
    added to ``errors``. A folder with a ``Chart.yaml`` is a Helm chart, which Argo CD renders with
    Helm: its raw templates are not manifests, so it is skipped with a line in ``notices``."""

    def onerror(exc: OSError) -> None:
        where = exc.filename or root
        errors.append(InputError(where, os_error_text(where, exc)))

    found: list[str] = []
    for folder, dirs, files in os.walk(root, onerror=onerror):
        if HELM_CHART_FILE in files:
            dirs[:] = []
            if notices is not None:
                notices.append(
                    f"{folder}: a Helm chart, not linted as manifests; lint its output instead: "
                    f"helm template {folder} | hooklint lint -"
                )
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


def group_applications(
    paths: Iterable[str], errors: list[InputError], notices: list[str] | None = None
) -> list[Application]:
    """Expand command-line paths into applications, in a deterministic order.

    A directory contributes every manifest below it, one application per folder. A file named on
    its own belongs to its folder's application; the folder's other manifests become context. Paths
    that do not exist are added to ``errors``.

    Paths are normalised (``./app//x.yaml`` is ``app/x.yaml``), so a file named twice, or named and
    inside a named folder, is linted once, and the order and spelling of the arguments do not change
    the result."""
    reported: dict[str, set[str]] = {}
    named_files: set[str] = set()
    missing: set[str] = set()
    for path in paths:
        if path == STDIN:
            reported.setdefault(STDIN, set()).add(STDIN)
            continue
        path = os.path.normpath(path)
        if os.path.isdir(path):
            for file in walk(path, errors, notices):
                file = os.path.normpath(file)
                reported.setdefault(os.path.dirname(file) or ".", set()).add(file)
        elif os.path.lexists(path):
            reported.setdefault(os.path.dirname(path) or ".", set()).add(path)
            named_files.add(path)
        elif path not in missing:
            missing.add(path)
            errors.append(InputError(path, "no such file or directory"))
    apps: list[Application] = []
    for key in sorted(reported):
        files = sorted(reported[key])
        context: list[str] = []
        if key != STDIN and any(f in named_files for f in files):
            context = _siblings(key, set(files))
        apps.append(Application(key, files, context))
    return apps


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
