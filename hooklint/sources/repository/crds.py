"""The scope of the CustomResourceDefinitions written in the repository's files.

Argo CD asks the cluster whether a kind is namespaced (``kube.IsNamespacedOrUnknown`` on the
cluster cache's API resources) and applies an object of a cluster-scoped kind without a namespace;
hooklint has no cluster, so it reads the CRDs the repository holds: an object of a kind whose CRD
says ``spec.scope: Cluster`` gets no destination namespace, whichever application holds the CRD
(a CRD is often installed by one Application and used by another).
"""

from __future__ import annotations

from typing import Iterable

from hooklint.loader import DEFAULT_MAX_FILE_SIZE, read_file
from hooklint.sources.repository import facts
from hooklint.yamlio import Map

#: At most this many files are read for CRDs (the rest are not: their CRDs stay unknown).
MAX_CRD_FILES = 2000


def cluster_scoped_crds(files: Iterable[str], max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> frozenset[tuple[str, str]]:
    """The (``spec.group``, ``spec.names.kind``) of every ``apiextensions.k8s.io``
    CustomResourceDefinition with ``spec.scope: Cluster`` written in ``files`` (regular files up to
    ``max_file_size`` bytes whose text names ``CustomResourceDefinition`` and ``Cluster``; at most
    :data:`MAX_CRD_FILES` of them are parsed). Never raises: a file that cannot be read holds none."""
    out: set[tuple[str, str]] = set()
    parsed = 0
    for path in files:
        data = facts.read_regular(path, max_file_size)
        if data is None:
            continue
        if b"CustomResourceDefinition" not in data or b"Cluster" not in data:
            continue
        parsed += 1
        if parsed > MAX_CRD_FILES:
            break
        for doc in read_file(path, max_file_size).documents:
            body = doc.value
            if not isinstance(body, Map) or body.get("kind") != "CustomResourceDefinition":
                continue
            if not str(body.get("apiVersion") or "").startswith("apiextensions.k8s.io/"):
                continue
            spec = body.get("spec")
            names = spec.get("names") if isinstance(spec, Map) else None
            if isinstance(spec, Map) and isinstance(names, Map) and spec.get("scope") == "Cluster":
                group, kind = spec.get("group"), names.get("kind")
                if isinstance(group, str) and isinstance(kind, str):
                    out.add((group, kind))
    return frozenset(out)
