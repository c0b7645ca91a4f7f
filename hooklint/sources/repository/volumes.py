"""The hostPath and local PersistentVolumes written in the repository's files, and the claims bound to them.

A pod that mounts a PersistentVolumeClaim bound to a PersistentVolume with ``hostPath`` or
``local`` shares the node's filesystem as if it named the hostPath itself (Kubernetes "Persistent
Volumes": a hostPath volume is a file or directory on the node; a local volume "represents a
mounted local storage device such as a disk, partition or directory", which the kubelet
bind-mounts into the pod, and Pod Security admission does not look at volumes behind a claim). The claim and the volume are often applied by another
Application than the pod (a storage or infra folder), so hooklint reads them from the whole
repository, as it reads CustomResourceDefinitions (:mod:`hooklint.sources.repository.crds`); HL105
joins them with the claims and volumes of the hook's own application.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from hooklint.loader import DEFAULT_MAX_FILE_SIZE
from hooklint.sources.repository import facts
from hooklint.sources.repository.spelling import may_hold
from hooklint.yamlio import Map

#: At most this many files are parsed for each kind (the rest are not: their volumes stay unknown).
MAX_VOLUME_FILES = 2000


@dataclass(frozen=True, slots=True)
class HostPathVolume:
    """A PersistentVolume with ``spec.hostPath`` or ``spec.local``: its ``name``, the node
    ``path``, the claim its ``spec.claimRef`` reserves it for (``claim_namespace``/``claim_name``,
    ``""`` when unset), the ``file`` it is written in and its ``source`` (``hostPath`` or
    ``local``, as messages name it)."""

    name: str
    path: str
    claim_namespace: str
    claim_name: str
    file: str
    source: str = "hostPath"
    #: What a claim without ``spec.volumeName`` is matched on (:func:`volume_match_facts`).
    storage_class: str = ""
    labels: tuple[tuple[str, str], ...] = ()
    access_modes: frozenset[str] = frozenset()
    capacity: str = ""
    volume_mode: str = "Filesystem"


#: The PersistentVolume sources that are a path on the node, in the order they are looked for.
NODE_PATH_SOURCES = ("hostPath", "local")


def node_path(spec: object) -> tuple[str, Map] | None:
    """``(source, mapping)`` of the first of :data:`NODE_PATH_SOURCES` a PersistentVolume's
    ``spec`` sets to a mapping, else None."""
    if not isinstance(spec, Map):
        return None
    for source in NODE_PATH_SOURCES:
        value = spec.get(source)
        if isinstance(value, Map):
            return source, value
    return None


#: The annotation that gave an object's storage class before ``storageClassName`` and still wins
#: over it (kubernetes ``pkg/apis/core/v1/helper`` ``GetPersistentVolumeClass``,
#: ``GetPersistentVolumeClaimClass``).
BETA_CLASS = "volume.beta.kubernetes.io/storage-class"


def storage_class(body: object) -> str | None:
    """The storage class of a PersistentVolume or PersistentVolumeClaim ``body`` as the PV
    controller reads it: the :data:`BETA_CLASS` annotation, else ``spec.storageClassName``; None
    when neither is set (a volume then has class ``""``; a claim gets the default StorageClass
    when the cluster has one, else ``""``)."""
    if not isinstance(body, Map):
        return None
    metadata, spec = body.get("metadata"), body.get("spec")
    annotations = metadata.get("annotations") if isinstance(metadata, Map) else None
    if isinstance(annotations, Map) and isinstance(annotations.get(BETA_CLASS), str):
        return str(annotations[BETA_CLASS])
    value = spec.get("storageClassName") if isinstance(spec, Map) else None
    return value if isinstance(value, str) else None


def volume_match_facts(pv: object) -> dict[str, object]:
    """The fields of a PersistentVolume ``pv`` the PV controller matches an unbound claim on
    (kubernetes ``pkg/controller/volume/persistentvolume/index.go`` ``findMatchingVolume``), as
    :class:`HostPathVolume` keywords: ``storage_class``, ``labels`` (sorted string pairs),
    ``access_modes``, ``capacity`` (``spec.capacity.storage`` as written, ``""`` when unset) and
    ``volume_mode`` (``Filesystem`` when unset)."""
    metadata = pv.get("metadata") if isinstance(pv, Map) else None
    spec = pv.get("spec") if isinstance(pv, Map) else None
    labels = metadata.get("labels") if isinstance(metadata, Map) else None
    modes = spec.get("accessModes") if isinstance(spec, Map) else None
    capacity = spec.get("capacity") if isinstance(spec, Map) else None
    mode = spec.get("volumeMode") if isinstance(spec, Map) else None
    return {
        "storage_class": storage_class(pv) or "",
        "labels": tuple(sorted((str(k), str(v)) for k, v in labels.items())) if isinstance(labels, Map) else (),
        "access_modes": frozenset(str(m) for m in modes) if isinstance(modes, list) else frozenset(),
        "capacity": str(capacity.get("storage") or "") if isinstance(capacity, Map) else "",
        "volume_mode": mode if isinstance(mode, str) and mode else "Filesystem",
    }


@dataclass(frozen=True, slots=True)
class VolumeClaim:
    """A PersistentVolumeClaim that names one of the hostPath volumes (``spec.volumeName``) or
    names none (``volume_name`` ``""``: the PV controller may bind it to any volume it matches):
    its ``namespace`` (``""`` when it sets none: its application's destination namespace),
    ``name``, ``volume_name``, ``file`` and the object's ``body`` (read for the match)."""

    namespace: str
    name: str
    volume_name: str
    file: str
    body: Map | None = field(default=None, compare=False, hash=False)


def host_path_volumes(files: Iterable[str], max_file_size: int = DEFAULT_MAX_FILE_SIZE
                      ) -> tuple[frozenset[HostPathVolume], frozenset[VolumeClaim]]:  # fmt: skip
    """The hostPath and local PersistentVolumes written in ``files`` (regular files up to ``max_file_size``
    bytes that may spell ``PersistentVolume`` and ``hostPath`` or ``local`` once parsed:
    :func:`~hooklint.sources.repository.spelling.may_hold`, so ``"host\\x50ath"`` is read too,
    trial 8 F9), and the PersistentVolumeClaims
    there whose ``spec.volumeName`` names one of them or that name none; at most :data:`MAX_VOLUME_FILES` files of
    each are parsed. Never raises: a file that cannot be read holds none."""
    files = list(files)
    volumes: set[HostPathVolume] = set()
    parsed = 0
    for path in files:
        data = facts.read_regular(path, max_file_size)
        if data is None or not (may_hold(data, b"PersistentVolume", b"hostPath") or may_hold(data, b"PersistentVolume", b"local")):
            continue
        parsed += 1
        if parsed > MAX_VOLUME_FILES:
            break
        for pv in facts.written_objects(path, data, ("PersistentVolume",), "v1"):
            metadata, spec = pv.get("metadata"), pv.get("spec")
            name = metadata.get("name") if isinstance(metadata, Map) else None
            found = node_path(spec)
            if not isinstance(name, str) or not name or found is None or not isinstance(spec, Map):
                continue
            source, host = found
            ref = spec.get("claimRef") if isinstance(spec.get("claimRef"), Map) else None
            volumes.add(HostPathVolume(name, str(host.get("path") or ""),
                                       str(ref.get("namespace") or "") if ref is not None else "",
                                       str(ref.get("name") or "") if ref is not None else "", path, source,
                                       **volume_match_facts(pv)))  # type: ignore[arg-type]  # fmt: skip
    names = {v.name for v in volumes}
    if not names:  # no claim can name a hostPath volume: the files are not read again
        return frozenset(), frozenset()
    claims: set[VolumeClaim] = set()
    parsed = 0
    for path in files:
        data = facts.read_regular(path, max_file_size)
        if data is None or not may_hold(data, b"PersistentVolumeClaim"):
            continue
        parsed += 1
        if parsed > MAX_VOLUME_FILES:
            break
        for pvc in facts.written_objects(path, data, ("PersistentVolumeClaim",), "v1"):
            metadata, spec = pvc.get("metadata"), pvc.get("spec")
            name = metadata.get("name") if isinstance(metadata, Map) else None
            volume = spec.get("volumeName") if isinstance(spec, Map) else None
            volume = volume or ""  # a claim naming none may be bound to any volume it matches
            if isinstance(name, str) and name and isinstance(spec, Map) and (volume in names or volume == ""):
                namespace = metadata.get("namespace") if isinstance(metadata, Map) else None
                claims.add(VolumeClaim(namespace if isinstance(namespace, str) else "", name, str(volume), path, pvc))
    return frozenset(volumes), frozenset(claims)
