"""Argo CD's directory source: which of an application folder's files the repo server renders.

``reposerver/repository/repository.go`` ``findManifests`` (``shared/docs/argocd-rendering.md`` §2)
skips a file carrying ``+argocd:skip-file-rendering`` and a YAML file with no object that lacks
any of ``apiVersion:``, ``kind:``, ``metadata:`` ("an unrelated YAML file which we will ignore").
A folder holding a kustomization is a kustomize source: kustomize reads only the files its
``resources`` list, so its other files (patches, generator inputs) are never applied as written.
"""

from __future__ import annotations

import os

from hooklint.loader import LoadedFile

KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")

SKIP_MARKER_REASON = "+argocd:skip-file-rendering marker: Argo CD never renders it"
UNRELATED_YAML_REASON = "no Kubernetes object and none of apiVersion:, kind:, metadata: (unrelated YAML)"
NOT_A_RESOURCE_REASON = "not listed in the folder's kustomization resources"


def mark_unrendered(files: list[LoadedFile]) -> None:
    """Set ``skip_reason`` on every file of ``files`` that Argo CD does not render (see the module
    docstring). The kustomization itself stays, so that rules know the folder is a kustomize build
    (HL003 leaves it alone; the plan lists it as not applied)."""
    for loaded in files:
        if loaded.error is not None or loaded.skip_reason is not None:
            continue
        if loaded.has_skip_marker:
            loaded.skip_reason = SKIP_MARKER_REASON
        elif not loaded.looks_like_manifest and not any(
            isinstance(d.value, dict) and isinstance(d.value.get("kind"), str) for d in loaded.documents
        ):
            loaded.skip_reason = UNRELATED_YAML_REASON
    _mark_kustomize_inputs(files)


def _mark_kustomize_inputs(files: list[LoadedFile]) -> None:
    by_path = {os.path.normpath(f.path): f for f in files}
    for loaded in files:
        if os.path.basename(loaded.path) not in KUSTOMIZATION_NAMES or not loaded.documents:
            continue
        config = loaded.documents[0].value
        resources = config.get("resources") if isinstance(config, dict) else None
        folder = os.path.normpath(os.path.dirname(loaded.path))
        listed = {
            os.path.normpath(os.path.join(folder, r))
            for r in (resources if isinstance(resources, list) else [])
            if isinstance(r, str)
        }
        for path, other in by_path.items():
            if (other is not loaded and other.skip_reason is None and other.error is None
                    and os.path.dirname(path) == folder and path not in listed):  # fmt: skip
                other.skip_reason = NOT_A_RESOURCE_REASON
