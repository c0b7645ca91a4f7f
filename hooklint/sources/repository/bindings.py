"""The RoleBindings and ClusterRoleBindings written in the repository's files, as written.

A hook's ServiceAccount is often bound to its Role by another Application of the same repository
(an RBAC or bootstrap folder synced first), not by the hook's own: that binding shows as well as one
of the application that the hook calls the Kubernetes API with its token, and asking to turn the
token off would break the hook (new-user trial 28: eight PreSync Jobs running ``oc get`` whose
RoleBinding is in the operator's folder). HL104 reads them here, as HL105 reads the repository's
hostPath volumes (:mod:`hooklint.sources.repository.volumes`); what a subject grants is
:func:`hooklint.model.subject_grantee`'s to say, as for a binding of the application.

Only plain files are read (a template's or a generator's binding is not): a binding a renderer
writes in another application is not seen, and the hook is then reported as before. When the
repository's Applications are known, only a file one of them syncs counts
(:func:`hooklint.sources.appmap.discovery.group_applications`): a binding nothing applies grants
nothing (attacker trial 29, B2).
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Iterable

from hooklint.loader import DEFAULT_MAX_FILE_SIZE
from hooklint.sources.repository import facts
from hooklint.sources.repository.spelling import may_hold
from hooklint.yamlio import Map

#: At most this many files that may hold a binding are parsed (the rest are not: their bindings stay unknown).
MAX_BINDING_FILES = 2000
#: The API group of RoleBinding and ClusterRoleBinding.
RBAC_GROUP = "rbac.authorization.k8s.io"
_BINDING_KINDS = ("RoleBinding", "ClusterRoleBinding")


@dataclass(frozen=True, slots=True)
class WrittenSubject:
    """One subject of a RoleBinding or ClusterRoleBinding written in ``file`` whose ``roleRef``
    names a Role or ClusterRole: the subject's ``kind``, ``name``, ``namespace`` and ``api_group``
    as written (``""`` when unset), the binding's ``binding_kind`` and its ``binding_namespace``
    (``""`` when it sets none: its application's destination namespace, which discovery fills in
    from the Application syncing the file; left ``""``, no namespace is known and it counts for none)."""

    kind: str
    name: str
    namespace: str
    api_group: str
    binding_kind: str
    binding_namespace: str
    file: str


def written_subjects(files: Iterable[str], max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> frozenset[WrittenSubject]:
    """The subjects of the RoleBindings and ClusterRoleBindings (``rbac.authorization.k8s.io/v1``:
    the API server serves no other version since Kubernetes 1.22; documents and ``List`` items)
    written in ``files`` (regular files up to ``max_file_size`` bytes that may spell ``RoleBinding`` and ``subjects`` once parsed:
    :func:`~hooklint.sources.repository.spelling.may_hold`) whose ``roleRef`` names a Role or
    ClusterRole; at most :data:`MAX_BINDING_FILES` such files are parsed. Never raises: a file that
    cannot be read holds none."""
    found: set[WrittenSubject] = set()
    parsed = 0
    for path in files:
        data = facts.read_regular(path, max_file_size)
        if data is None or not may_hold(data, b"RoleBinding", b"subjects"):
            continue
        parsed += 1
        if parsed > MAX_BINDING_FILES:
            break
        for binding in facts.written_objects(path, data, _BINDING_KINDS, RBAC_GROUP + "/v1"):
            ref, subjects, metadata = binding.get("roleRef"), binding.get("subjects"), binding.get("metadata")
            if not (isinstance(ref, Map) and ref.get("kind") in ("Role", "ClusterRole") and isinstance(ref.get("name"), str)
                    and ref.get("name") and isinstance(subjects, list)):  # fmt: skip
                continue
            namespace = metadata.get("namespace") if isinstance(metadata, Map) else None
            for subject in subjects:
                if isinstance(subject, Map):
                    found.add(WrittenSubject(_text(subject.get("kind")), _text(subject.get("name")),
                                             _text(subject.get("namespace")), _text(subject.get("apiGroup")),
                                             str(binding.get("kind")), _text(namespace), path))  # fmt: skip
    return frozenset(found)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
