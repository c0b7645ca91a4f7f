"""Go's ``encoding/json`` ``Unmarshal`` into Argo CD's Application types, for the documents Argo CD
reads from the repository or a string field and decodes into its Go structs.

Two such places decide what an Application renders: ``.argocd-source*.yaml`` override files
(``reposerver/repository/repository.go`` ``mergeSourceParameters``: the source marshalled, the file
applied as a JSON merge patch, the result decoded back into the same ``ApplicationSource``) and an
ApplicationSet's ``templatePatch`` (``applicationset/controllers/template/patch.go``
``applyTemplatePatch``: a strategic merge patch over the marshalled Application, decoded into a new
``Application``). Neither input went through the API server, whose structural schema drops unknown
and wrongly cased keys; Go's decoder instead matches an object key to a struct field by its JSON
name exactly or, failing that, case-insensitively (``bytes.EqualFold``: Unicode simple folding, so
the Kelvin sign ``K`` is a ``k`` and ``ſ`` an ``s``). ``Helm:`` is ``helm:``.

What :func:`decode` copies from Go v1 ``encoding/json`` (``decode.go`` ``object``, ``array``,
``literalStore``): keys unknown to the type are ignored; an object decodes INTO the value already
there (a struct keeps the fields the object does not name, a map keeps its other keys), an array
decodes element by element into the elements already there, a scalar replaces; ``null`` empties a
pointer, slice or map and leaves a scalar alone; a JSON type the field cannot hold is an error.
The objects the two callers decode were written by Go's ``json.Marshal`` of a map (the merge and
strategic patches return maps), whose keys come sorted, so when one object names a field twice
(``Helm`` and ``helm``) the keys are decoded in sorted order and the later one wins field by field.
The types are Argo CD v3.5.1's (``pkg/apis/application/v1alpha1/types.go``).
"""

from __future__ import annotations

from typing import Any, Union

#: A type: a struct (JSON name -> type), a list or map of a type, or a scalar/opaque value.
Type = Union["Struct", "ListOf", "MapOf", str]

#: A string, bool or number field: a JSON object or array for it is an error.
SCALAR = "scalar"
#: A value Go decodes whole with its own ``UnmarshalJSON`` (``runtime.RawExtension``, ``intstr``).
OPAQUE = "opaque"


class Struct(dict):
    """A Go struct: its fields' JSON names (inline fields flattened) -> types. ``pointer`` is
    whether fields of it are pointers (``null`` empties them)."""

    def __init__(self, fields: dict[str, Type], pointer: bool = True) -> None:
        super().__init__(fields)
        self.pointer = pointer


class ListOf:
    def __init__(self, item: Type) -> None:
        self.item = item


class MapOf:
    def __init__(self, item: Type) -> None:
        self.item = item


class GoJSONError(ValueError):
    """``json: cannot unmarshal X into Go struct field T.path of type Y``."""


_STRINGS = ListOf(SCALAR)
_STRING_MAP = MapOf(SCALAR)
_HELM = Struct({
    "valueFiles": _STRINGS, "parameters": ListOf(Struct({"name": SCALAR, "value": SCALAR, "forceString": SCALAR})),
    "releaseName": SCALAR, "values": SCALAR,
    "fileParameters": ListOf(Struct({"name": SCALAR, "path": SCALAR})), "version": SCALAR,
    "passCredentials": SCALAR, "ignoreMissingValueFiles": SCALAR, "skipCrds": SCALAR, "valuesObject": OPAQUE,
    "namespace": SCALAR, "kubeVersion": SCALAR, "apiVersions": _STRINGS, "skipTests": SCALAR,
    "skipSchemaValidation": SCALAR,
})  # fmt: skip
_KUSTOMIZE = Struct({
    "namePrefix": SCALAR, "nameSuffix": SCALAR, "images": _STRINGS, "commonLabels": _STRING_MAP,
    "version": SCALAR, "commonAnnotations": _STRING_MAP, "forceCommonLabels": SCALAR,
    "forceCommonAnnotations": SCALAR, "namespace": SCALAR, "commonAnnotationsEnvsubst": SCALAR,
    "replicas": ListOf(Struct({"name": SCALAR, "count": OPAQUE})),
    "patches": ListOf(Struct({
        "path": SCALAR, "patch": SCALAR, "options": MapOf(SCALAR),
        "target": Struct({"group": SCALAR, "version": SCALAR, "kind": SCALAR, "name": SCALAR, "namespace": SCALAR,
                          "annotationSelector": SCALAR, "labelSelector": SCALAR}),
    })),
    "components": _STRINGS, "ignoreMissingComponents": SCALAR, "labelWithoutSelector": SCALAR,
    "kubeVersion": SCALAR, "apiVersions": _STRINGS, "labelIncludeTemplates": SCALAR,
})  # fmt: skip
_JSONNET_VARS = ListOf(Struct({"name": SCALAR, "value": SCALAR, "code": SCALAR}))
_DIRECTORY = Struct({
    "recurse": SCALAR, "jsonnet": Struct({"extVars": _JSONNET_VARS, "tlas": _JSONNET_VARS, "libs": _STRINGS},
                                         pointer=False),
    "exclude": SCALAR, "include": SCALAR,
})  # fmt: skip
_PLUGIN = Struct({
    "name": SCALAR, "env": ListOf(Struct({"name": SCALAR, "value": SCALAR})),
    "parameters": ListOf(Struct({"name": SCALAR, "string": SCALAR, "map": _STRING_MAP, "array": _STRINGS})),
})  # fmt: skip
#: ``ApplicationSource``.
SOURCE = Struct({
    "repoURL": SCALAR, "path": SCALAR, "targetRevision": SCALAR, "helm": _HELM, "kustomize": _KUSTOMIZE,
    "directory": _DIRECTORY, "plugin": _PLUGIN, "chart": SCALAR, "ref": SCALAR, "name": SCALAR, "tagPrefix": SCALAR,
})  # fmt: skip
#: ``SourceHydrator`` (``DrySource`` and ``SyncSource`` are values, ``HydrateTo`` a pointer).
_SOURCE_HYDRATOR = Struct({
    "drySource": Struct({
        "repoURL": SCALAR, "targetRevision": SCALAR, "path": SCALAR, "helm": _HELM, "kustomize": _KUSTOMIZE,
        "directory": _DIRECTORY, "plugin": _PLUGIN,
    }, pointer=False),
    "syncSource": Struct({"targetBranch": SCALAR, "path": SCALAR, "repoURL": SCALAR}, pointer=False),
    "hydrateTo": Struct({"targetBranch": SCALAR}),
})  # fmt: skip
_SYNC_POLICY = Struct({
    "automated": Struct({"prune": SCALAR, "selfHeal": SCALAR, "allowEmpty": SCALAR, "enabled": SCALAR}),
    "syncOptions": _STRINGS,
    "retry": Struct({"limit": SCALAR, "refresh": SCALAR,
                     "backoff": Struct({"duration": SCALAR, "factor": SCALAR, "maxDuration": SCALAR})}),
    "managedNamespaceMetadata": Struct({"labels": _STRING_MAP, "annotations": _STRING_MAP}),
})  # fmt: skip
#: ``Application`` (``metav1.TypeMeta`` inline; ``ObjectMeta``'s fields an Application uses; the
#: rest of ``ObjectMeta``, ``status`` and ``operation`` taken whole; ``sourceHydrator`` decoded field by
#: field: its ``drySource`` is what a hydrated Application renders).
APPLICATION = Struct({
    "apiVersion": SCALAR, "kind": SCALAR,
    "metadata": Struct({
        "name": SCALAR, "generateName": SCALAR, "namespace": SCALAR, "labels": _STRING_MAP,
        "annotations": _STRING_MAP, "finalizers": _STRINGS, "ownerReferences": OPAQUE, "uid": SCALAR,
        "resourceVersion": SCALAR, "generation": SCALAR, "creationTimestamp": OPAQUE, "deletionTimestamp": OPAQUE,
        "deletionGracePeriodSeconds": SCALAR, "managedFields": OPAQUE, "selfLink": SCALAR,
    }, pointer=False),
    "spec": Struct({
        "source": SOURCE, "destination": Struct({"server": SCALAR, "namespace": SCALAR, "name": SCALAR},
                                                pointer=False),
        "project": SCALAR, "syncPolicy": _SYNC_POLICY,
        "ignoreDifferences": ListOf(Struct({
            "group": SCALAR, "kind": SCALAR, "name": SCALAR, "namespace": SCALAR, "jsonPointers": _STRINGS,
            "jqPathExpressions": _STRINGS, "managedFieldsManagers": _STRINGS})),
        "info": ListOf(Struct({"name": SCALAR, "value": SCALAR})), "revisionHistoryLimit": SCALAR,
        "sources": ListOf(SOURCE), "sourceHydrator": _SOURCE_HYDRATOR,
    }, pointer=False),
    "status": OPAQUE, "operation": OPAQUE,
})  # fmt: skip

#: The runes outside ASCII whose simple case folding reaches an ASCII letter (``unicode.SimpleFold``).
_FOLD_EXTRA = {"k": "\u212a", "s": "\u017f"}


def fold_equal(key: str, name: str) -> bool:
    """Whether the JSON object key ``key`` names the ASCII field name ``name`` as Go's
    ``bytes.EqualFold`` says (``encoding/json`` ``foldName``): rune by rune, a letter in either
    case, ``K`` (Kelvin) for ``k`` and ``ſ`` (long s) for ``s``."""
    if len(key) != len(name):
        return False
    for got, want in zip(key, name):
        low = want.lower()
        if got != want and got not in (low, want.upper()) and got != _FOLD_EXTRA.get(low):
            return False
    return True


def field_of(struct: Struct, key: str) -> str | None:
    """The field of ``struct`` the object key ``key`` decodes into (``decode.go`` ``object``: the
    exact name, else the first name equal under case folding), or None (ignored)."""
    if key in struct:
        return key
    return next((name for name in struct if fold_equal(key, name)), None)


def _kind(value: Any) -> str:
    return ("object" if isinstance(value, dict) else "array" if isinstance(value, list) else
            "bool" if isinstance(value, bool) else "string" if isinstance(value, str) else "number")  # fmt: skip


def decode(kind: Type, existing: Any, value: Any, where: str = "") -> Any:
    """``value`` (plain JSON values) decoded by Go into ``existing`` (this module's plain form of
    the Go value already there: canonical field names, None for nil) of type ``kind``; returns the
    new plain form. Raises :class:`GoJSONError` where Go's ``Unmarshal`` returns an error."""
    if value is None:  # null: nil for pointers, slices and maps; nothing for a scalar or value struct
        if isinstance(kind, Struct) and not kind.pointer or kind == SCALAR:
            return existing
        return None
    if kind == OPAQUE:
        return value
    if kind == SCALAR:
        if isinstance(value, (dict, list)):
            raise GoJSONError(f"json: cannot unmarshal {_kind(value)} into Go struct field {where} of a scalar type")
        return value
    if isinstance(kind, ListOf):
        if not isinstance(value, list):
            raise GoJSONError(f"json: cannot unmarshal {_kind(value)} into Go struct field {where} of type []")
        before = existing if isinstance(existing, list) else []
        return [decode(kind.item, before[i] if i < len(before) else None, item, where) for i, item in enumerate(value)]
    if not isinstance(value, dict):
        raise GoJSONError(f"json: cannot unmarshal {_kind(value)} into Go struct field {where} of an object type")
    out = dict(existing) if isinstance(existing, dict) else {}
    if isinstance(kind, MapOf):
        for key, item in value.items():
            out[key] = decode(kind.item, None, item, f"{where}.{key}" if where else key)
        return out
    if not isinstance(kind, Struct):
        raise TypeError(f"not a Go type: {kind!r}")
    for key in sorted(value, key=str):
        name = field_of(kind, key) if isinstance(key, str) else None
        if name is None:
            continue
        decoded = decode(kind[name], out.get(name), value[key], f"{where}.{name}" if where else name)
        if decoded is None:
            out.pop(name, None)
        else:
            out[name] = decoded
    return out


def marshal(kind: Type, value: Any) -> Any:
    """The JSON Go writes for a value the API server stored (``value``: plain, as written in a
    manifest): only the fields of ``kind`` under their exact names (the structural schema drops the
    rest), recursively."""
    if isinstance(kind, Struct) and isinstance(value, dict):
        return {k: marshal(kind[k], v) for k, v in value.items() if isinstance(k, str) and k in kind}
    if isinstance(kind, ListOf) and isinstance(value, list):
        return [marshal(kind.item, v) for v in value]
    if isinstance(kind, MapOf) and isinstance(value, dict):
        return {k: marshal(kind.item, v) for k, v in value.items()}
    return value
