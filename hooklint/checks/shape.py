"""HL003 and HL006: documents that are not Kubernetes objects, and fields of the wrong type.

HL003 has two checks side by side: documents (and ``kind: List`` items) that are not mappings,
which give no manifest, and mappings that lack what makes an object.
"""

from __future__ import annotations

from typing import Iterator

from hooklint import argocd
from hooklint.checks import Context, Hit, check
from hooklint.gojsonread import oci_manifest_refusal
from hooklint.loader import LoadedFile
from hooklint.model import CONTAINER_LISTS, Manifest
from hooklint.plan import AS_WRITTEN_KUSTOMIZE
from hooklint.yamlio import Map, Seq

_TYPE_NAMES = {Map: "a mapping", Seq: "a list", str: "a string", bool: "a boolean", int: "an integer", float: "a number"}


def type_name(value: object) -> str:
    """``a mapping``, ``a list``, ``a string``... for messages; ``null`` for None."""
    if value is None:
        return "null"
    for cls, name in _TYPE_NAMES.items():
        if isinstance(value, cls) and not (cls is int and isinstance(value, bool)):
            return name
    return type(value).__name__


_UNDECODABLE = "Argo CD fails to sync an application with a manifest it cannot decode"


@check("HL003", scope="file")
def document_not_an_object(file: LoadedFile, ctx: Context) -> Iterator[Hit]:
    """A document that is not a mapping, or an item of a list that is not one (any document whose
    ``items`` is a sequence is a list to Argo CD: ``Unstructured.IsList``, and ``EachListItem``
    fails on an item that is not an object)."""
    for doc in file.documents:
        value = doc.value
        if not isinstance(value, Map):
            yield Hit(
                f"Document is {type_name(value)}, not a Kubernetes object: {_UNDECODABLE}. Make it "
                "an object with apiVersion, kind and metadata, or move it out of the application's path.",
                doc.span, "", doc_index=doc.index,
            )  # fmt: skip
            continue
        items = value.get("items")
        if file.path.lower().endswith(".json"):
            hit = _kindless_json_list(value, ctx)
            if hit is not None:
                yield Hit(hit, value.key_span("items"), "kind", doc_index=doc.index)
        if not isinstance(items, Seq):
            continue
        for i, item in enumerate(items):
            if not isinstance(item, Map):
                yield Hit(
                    f"Item {i} of this {value.get('kind') or 'list'} is {type_name(item)}, not a Kubernetes object: "
                    f"{_UNDECODABLE}. Make it an object with apiVersion, kind and metadata.",
                    items.item_spans[i], f"items[{i}]", doc_index=doc.index,
                )  # fmt: skip


def _kindless_json_list(value: Map, ctx: Context) -> str | None:
    """Why Argo CD fails on a ``.json`` file's object with no kind (no non-empty string ``kind``:
    ``GetKind``) that hooklint reads as a list (``items`` a sequence: its items are the manifests)
    or a "null list" (``items: null``: none), None when it does not, or when the object is neither
    (HL003 reports it as an object). ``reposerver/repository/repository.go``
    ``getObjsFromYAMLOrJSON``: decoding into ``unstructured.Unstructured`` fails ("Object 'Kind' is
    missing"); from 3.1.0 (``argocd.BEHAVIOURS`` ``json-oci-fallback``) Argo CD then decodes the
    file as an OCI image manifest and, when that succeeds, keeps the object, whose items
    ``GenerateManifests`` applies (:func:`hooklint.gojsonread.oci_manifest_refusal`)."""
    kind = value.get("kind")
    if isinstance(kind, str) and kind or "items" not in value:
        return None
    items = value.get("items")
    if not isinstance(items, Seq) and not (items is None and "spec" not in value and "status" not in value):
        return None
    fix = "Add \"apiVersion\": \"v1\" and \"kind\": \"List\"."
    version = ctx.config.argocd_version
    if not argocd.supports(version, "json-oci-fallback"):
        first = ".".join(map(str, argocd.since("json-oci-fallback")))
        return (f"This .json object has no kind: Argo CD {'.'.join(map(str, version))} decodes a .json file into one "
                f"Kubernetes object and fails (\"Object 'Kind' is missing\"), so the whole application fails to sync "
                f"(from {first}, Argo CD then reads the file as an OCI image manifest and keeps the object, applying "
                f"its items). {fix}")
    refusal = oci_manifest_refusal(value)
    if refusal is None:
        return None
    return ("This .json object has no kind, and Argo CD's second reading of it, as an OCI image manifest, fails "
            f"too ({refusal}): Argo CD does not apply its items, and the whole application fails to sync. {fix}")


@check("HL003")
def not_a_kubernetes_object(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """apiVersion and kind are strings, and metadata has a name or a generateName. Kustomize's own
    files (Kustomization, Component) are build configuration, not objects, and are left alone,
    unless an Application reads their folder as a directory source (the plan says so:
    :data:`~hooklint.plan.AS_WRITTEN_KUSTOMIZE`), which applies them as objects and fails."""
    if m.kind in ("Kustomization", "Component") or (m.api_version or "").startswith("kustomize.config.k8s.io/"):
        if ctx.plan.not_applied_reason(m) == AS_WRITTEN_KUSTOMIZE.format(kind=m.kind):
            yield Hit(
                f"{m.kind} is read as a manifest: the Application reads this folder as a directory source (an "
                "explicit spec.source.directory wins over a kustomization, and a recursive directory source reads "
                "subfolders as files), so Argo CD never runs kustomize and tries to apply this file as an object of "
                "a kind the API server does not have: the sync fails. Remove directory: from the Application to "
                "build the folder with kustomize, or move the file out of the application's path.",
                m.body.value_span("kind") if "kind" in m.body else m.anchor, "kind",
            )  # fmt: skip
        return
    missing = [key for key in ("apiVersion", "kind") if not isinstance(m.body.get(key), str) or not m.body.get(key)]
    if missing:
        yield Hit(
            f"Document has no {' or '.join(missing)}, so it is not a Kubernetes object: Argo CD "
            "fails to sync the application when it cannot decode a manifest. Add "
            f"{' and '.join(missing)}, or move the file out of the application's path.",
            m.body.span if not m.body else m.body.key_span(next(iter(m.body))),
        )
        return
    items = m.body.get("items")
    assert m.kind is not None  # m.kind is body's kind, a non-empty string here (else ``missing`` above)
    if m.kind.endswith("List") and items is not None:  # not a sequence: then m would be its items
        yield Hit(
            f"{m.kind}'s items is {type_name(items)}, not a list: Argo CD reads the document as one "
            f"object of kind {m.kind} (unstructured IsList is false), not as the objects it lists, and "
            "the API server rejects it, so the sync fails. Make items a list of objects.",
            m.body.value_span("items"),
            "items",
        )
        return
    if m.metadata is not None and ("name" in m.metadata or "generateName" in m.metadata) and not (
        isinstance(m.metadata.get("name"), str) or isinstance(m.metadata.get("generateName"), str)
    ):
        return  # present but not a string: HL006 reports the type
    if not m.name and not m.generate_name:
        span = m.body.key_span("metadata") if m.metadata is not None else m.body.value_span("kind")
        yield Hit(
            f"{m.kind} has neither metadata.name nor metadata.generateName: the API server rejects "
            "it and the sync fails. Give the object a name.",
            span,
            "metadata.name",
        )


def _wrong_type(parent: Map, key: str, expected: type, prefix: str) -> Hit | None:
    """The hit for ``parent[key]`` (at ``prefix.key``) when it is set and not of type ``expected``.

    A function returning None rather than a generator, and the path made only for a hit: HL006 asks
    this some 20 times per pod workload (cProfile of bench case (f): 440,000 generators, 17 us per
    object before)."""
    value = parent.get(key)
    if value is None or isinstance(value, expected):
        return None
    path = f"{prefix}.{key}" if prefix else key
    want = _TYPE_NAMES[expected]
    return Hit(
        f"'{path}' is {type_name(value)}, not {want}: the API server rejects the object and the "
        f"sync fails. Make it {want}.",
        parent.value_span(key),
        path,
    )


@check("HL006")
def wrong_field_type(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """The fields hooklint reads have the types Kubernetes requires."""
    hit = _wrong_type(m.body, "metadata", Map, "")
    if hit is not None:
        yield hit
    if m.metadata is not None:
        for key, expected in METADATA_FIELDS:
            hit = _wrong_type(m.metadata, key, expected, "metadata")
            if hit is not None:
                yield hit
    keys = m.pod_spec_path
    if not keys:
        return
    parent = m.body
    for depth, key in enumerate(keys):
        value = parent.get(key)
        if value is None:
            return
        if not isinstance(value, Map):
            hit = _wrong_type(parent, key, Map, ".".join(keys[:depth]))
            if hit is not None:
                yield hit
            return
        parent = value
    pod_path = ".".join(keys)
    for key, expected in POD_FIELDS:
        hit = _wrong_type(parent, key, expected, pod_path)
        if hit is not None:
            yield hit
    for list_name in CONTAINER_LISTS:
        items = parent.get(list_name)
        if not isinstance(items, Seq):
            hit = _wrong_type(parent, list_name, Seq, pod_path)
            if hit is not None:
                yield hit
            continue
        for i, item in enumerate(items):
            if not isinstance(item, Map):
                yield _not_a_mapping(f"{pod_path}.{list_name}[{i}]", item, items.item_spans[i], "container")
                continue
            for key, expected in CONTAINER_FIELDS:
                if item.get(key) is not None:  # the common case, a field absent, decided here
                    hit = _wrong_type(item, key, expected, f"{pod_path}.{list_name}[{i}]")
                    if hit is not None:
                        yield hit
            env = item.get("env")
            if isinstance(env, Seq):
                for j, var in enumerate(env):
                    if not isinstance(var, Map):
                        yield _not_a_mapping(f"{pod_path}.{list_name}[{i}].env[{j}]", var, env.item_spans[j], "env var")


#: (key, type) pairs for :func:`_wrong_type` (one type for all three tables: mypy would infer each its own).
_Fields = tuple[tuple[str, type], ...]
#: Metadata fields the checks read, with the type Kubernetes requires.
METADATA_FIELDS: _Fields = (
    ("annotations", Map), ("labels", Map), ("name", str), ("generateName", str), ("namespace", str),
)  # fmt: skip
#: Pod spec and container fields the checks read, with the type Kubernetes requires.
POD_FIELDS: _Fields = (("volumes", Seq), ("imagePullSecrets", Seq), ("securityContext", Map))
CONTAINER_FIELDS: _Fields = (
    ("image", str), ("command", Seq), ("args", Seq), ("env", Seq), ("envFrom", Seq), ("ports", Seq),
    ("volumeMounts", Seq), ("securityContext", Map), ("resources", Map),
)  # fmt: skip


def _not_a_mapping(path: str, value: object, span, what: str) -> Hit:
    return Hit(
        f"'{path}' is {type_name(value)}, not a mapping: the API server rejects the object and the "
        f"sync fails. Write each {what} as a mapping.",
        span,
        path,
    )
