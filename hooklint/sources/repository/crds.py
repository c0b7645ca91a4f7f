"""The scope of the CustomResourceDefinitions written in the repository's files.

Argo CD asks the cluster whether a kind is namespaced (``kube.IsNamespacedOrUnknown`` on the
cluster cache's API resources) and applies an object of a cluster-scoped kind without a namespace;
hooklint has no cluster, so it reads the CRDs the repository holds: an object of a kind whose CRD
says ``spec.scope: Cluster`` gets no destination namespace, whichever application holds the CRD
(a CRD is often installed by one Application and used by another). The same CRDs, installed, are
among the API versions a cluster serves, which Argo CD passes to Helm (:func:`crd_api_versions`).
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator

from hooklint.loader import DEFAULT_MAX_FILE_SIZE
from hooklint.sources.repository import facts
from hooklint.sources.repository.spelling import may_hold
from hooklint.yamlio import Map, Seq

#: At most this many files are read for CRDs (the rest are not: their CRDs stay unknown).
MAX_CRD_FILES = 2000


def cluster_scoped_crds(files: Iterable[str], max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> frozenset[tuple[str, str]]:
    """The (``spec.group``, ``spec.names.kind``) of every ``apiextensions.k8s.io``
    CustomResourceDefinition with ``spec.scope: Cluster`` written in ``files`` (regular files up to
    ``max_file_size`` bytes that may spell ``CustomResourceDefinition`` and ``Cluster`` once parsed:
    :func:`~hooklint.sources.repository.spelling.may_hold`; at most
    :data:`MAX_CRD_FILES` of them are parsed). Never raises: a file that cannot be read holds none."""
    out: set[tuple[str, str]] = set()
    for body in _written_crds(files, max_file_size, b"Cluster"):
        spec = body.get("spec")
        names = spec.get("names") if isinstance(spec, Map) else None
        if isinstance(spec, Map) and isinstance(names, Map) and spec.get("scope") == "Cluster":
            group, kind = spec.get("group"), names.get("kind")
            if isinstance(group, str) and isinstance(kind, str):
                out.add((group, kind))
    return frozenset(out)


def _written_crds(files: Iterable[str], max_file_size: int, *words: bytes) -> Iterator[Map]:
    """The ``apiextensions.k8s.io`` CustomResourceDefinitions written in ``files``: of the regular
    files up to ``max_file_size`` bytes that may spell ``CustomResourceDefinition`` and each of
    ``words`` once parsed (:func:`~hooklint.sources.repository.spelling.may_hold`), at most
    :data:`MAX_CRD_FILES` are parsed, from the bytes the run's facts hold (read once)."""
    parsed = 0
    for path in files:
        data = facts.read_regular(path, max_file_size)
        if data is None or not may_hold(data, b"CustomResourceDefinition", *words):
            continue
        parsed += 1
        if parsed > MAX_CRD_FILES:
            return
        for doc in facts.parsed_regular(path, data).documents:
            body = doc.value
            if isinstance(body, Map) and body.get("kind") == "CustomResourceDefinition" and str(
                    body.get("apiVersion") or "").startswith("apiextensions.k8s.io/"):
                yield body


def _version_priority(name: str) -> tuple:
    """The order Kubernetes discovery prefers versions in (``k8s.io/apimachinery``
    ``version.CompareKubeAwareVersionStrings``): GA, then beta, then alpha, each newest first, then
    any other name alphabetically; smaller sorts first."""
    found = re.fullmatch(r"v(\d+)(?:(alpha|beta)(\d+))?", name)
    if found is None:
        return (3, 0, 0, name)
    major, stage, minor = int(found.group(1)), found.group(2), int(found.group(3) or 0)
    return ({None: 0, "beta": 1, "alpha": 2}[stage], -major, -minor, name)


def crd_api_versions(files: Iterable[str], max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> frozenset[str]:
    """The ``group/version`` and ``group/version/Kind`` a cluster serves for every
    ``apiextensions.k8s.io`` CustomResourceDefinition written in ``files`` (read as
    :func:`cluster_scoped_crds` reads them; at most :data:`MAX_CRD_FILES` parsed), once installed:
    each kind at its preferred served version (discovery's ``ServerPreferredResources``, which Argo
    CD's cluster cache asks: gitops-engine ``pkg/cache/cluster.go``), as Argo CD passes them to Helm
    (``argo.APIResourcesToStrings(..., true)``; :mod:`hooklint.sources.render.capabilities`). Never
    raises."""
    out: set[str] = set()
    for body in _written_crds(files, max_file_size):
        spec = body.get("spec")
        names = spec.get("names") if isinstance(spec, Map) else None
        if not isinstance(spec, Map) or not isinstance(names, Map):
            continue
        group, kind = spec.get("group"), names.get("kind")
        if not isinstance(group, str) or not group or not isinstance(kind, str) or not kind:
            continue
        versions = spec.get("versions")
        served: list[str] = [str(v.get("name")) for v in versions if isinstance(v, Map) and v.get("served") is not False
                             and isinstance(v.get("name"), str) and v.get("name")] if isinstance(versions, Seq) else []  # fmt: skip
        if not served and isinstance(spec.get("version"), str) and spec.get("version"):  # v1beta1's one version
            served = [str(spec.get("version"))]
        if served:
            best = min(served, key=_version_priority)
            out.update((f"{group}/{best}", f"{group}/{best}/{kind}"))
    return frozenset(out)
