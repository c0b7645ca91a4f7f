"""Sources: what Argo CD renders for each application, as manifests with positions.

The second stage of the pipeline (files -> **sources** -> manifests -> plan -> checks -> findings ->
reporters). :mod:`hooklint.sources.discovery` decides which files make up each application;
:func:`load_application` reads them (:mod:`hooklint.loader`), keeps what Argo CD's directory source
renders (:mod:`hooklint.sources.directory`), and builds the application's manifests with the Argo
CD model of the configured version (:mod:`hooklint.model`).
"""

from __future__ import annotations

from dataclasses import dataclass

from hooklint.config import Config
from hooklint.loader import LoadedFile, read_file
from hooklint.model import Manifest, manifests_from_document
from hooklint.sources.directory import mark_unrendered
from hooklint.sources.discovery import STDIN, Application, group_applications

__all__ = ["STDIN", "Application", "LoadedApplication", "group_applications", "load_application", "manifests_of"]


@dataclass(slots=True)
class LoadedApplication:
    """One application ready for the plan and the checks: its ``files`` (reported and context;
    each with ``skip_reason`` set when Argo CD does not render it) and the ``manifests`` Argo CD
    renders from them, in file and document order."""

    app: Application
    files: list[LoadedFile]
    manifests: list[Manifest]

    @property
    def reported_files(self) -> list[LoadedFile]:
        """The files whose findings are shown (not the context files)."""
        reported = set(self.app.reported)
        return [f for f in self.files if f.path in reported]


def load_application(app: Application, config: Config) -> LoadedApplication:
    """Read every file of ``app`` (reported and context; unreadable ones come back with
    ``error`` set), mark those Argo CD does not render, and build the manifests of the rest."""
    files = [read_file(path, config.max_file_size) for path in app.reported + app.context]
    return loaded_application(app, files, config)


def loaded_application(app: Application, files: list[LoadedFile], config: Config) -> LoadedApplication:
    """:func:`load_application` for files already read (stdin, tests, text)."""
    mark_unrendered(files)
    return LoadedApplication(app, files, manifests_of(files, config))


def manifests_of(files: list[LoadedFile], config: Config | None = None) -> list[Manifest]:
    """Every manifest of the rendered ``files`` (those without ``skip_reason``), in file and
    document order."""
    manifests: list[Manifest] = []
    for loaded in files:
        if loaded.skip_reason is not None:
            continue
        for doc in loaded.documents:
            manifests.extend(manifests_from_document(loaded.path, doc.index, doc.value, doc.source, doc.source_line))
    return manifests
