"""Argo CD's directory source: which of an application folder's files the repo server renders.

``reposerver/repository/repository.go`` ``findManifests`` (``shared/docs/argocd-rendering.md`` §2)
skips a file carrying ``+argocd:skip-file-rendering`` and a YAML file with no object that lacks
any of ``apiVersion:``, ``kind:``, ``metadata:`` ("an unrelated YAML file which we will ignore").
A folder holding a kustomization or a ``Chart.yaml`` is not a directory source: it is rendered
(:mod:`hooklint.sources.render`).
"""

from __future__ import annotations

from hooklint.loader import LoadedFile

SKIP_MARKER_REASON = "+argocd:skip-file-rendering marker: Argo CD never renders it"
UNRELATED_YAML_REASON = "no Kubernetes object and none of apiVersion:, kind:, metadata: (unrelated YAML)"


def mark_unrendered(files: list[LoadedFile]) -> None:
    """Set ``skip_reason`` on every file of ``files`` that Argo CD does not render (see the module
    docstring)."""
    for loaded in files:
        if loaded.error is not None or loaded.skip_reason is not None:
            continue
        if loaded.has_skip_marker:
            loaded.skip_reason = SKIP_MARKER_REASON
        elif not loaded.looks_like_manifest and not any(
            isinstance(d.value, dict) and isinstance(d.value.get("kind"), str) for d in loaded.documents
        ):
            loaded.skip_reason = UNRELATED_YAML_REASON

