"""Where a finding on a rendered object belongs in the user's files.

A rendered object (kustomize or Helm output) is linted as Argo CD applies it, but its findings
must name a file the user can open (issue: "never on a temporary path"). :class:`Placement`
answers, for one rendered object, where a field is written:

1. in the source file, when the field's value comes unchanged from it (kustomize's
   ``config.kubernetes.io/origin``; the template line for Helm);
2. else at the kustomization entry that set it (an ``images:`` entry, ``commonAnnotations``, a
   patch), from kustomize's ``alpha.config.kubernetes.io/transformations`` record;
3. else, when the field is written in the source file but something changed inside it (a label
   kustomize added under ``spec``), at its key there;
4. else at the object's first line in its source file (for a generated object, the generator's
   entry in its kustomization).
"""

from __future__ import annotations

import re
from typing import Any, Callable

from hooklint.findings import Span
from hooklint.yamlio import Map, Seq

_INDEX = re.compile(r"\[(\d+)\]")
#: A run of indexes (``[0][2]``) after a key, and one at a key's end.
_INDEXES = re.compile(r"(?:\[\d+\])*")
_ENDS_WITH_INDEX = re.compile(r"\[\d+\]\Z")
#: The longest index a path may name (a longer one is no index of any sequence).
_MAX_INDEX_DIGITS = 18

#: kustomize transformer kind -> the kustomization fields that configure it.
TRANSFORMER_FIELDS: dict[str, tuple[str, ...]] = {
    "ImageTagTransformer": ("images",),
    "PatchTransformer": ("patches", "patchesStrategicMerge", "patchesJson6902"),
    "PatchStrategicMergeTransformer": ("patchesStrategicMerge", "patches"),
    "PatchJson6902Transformer": ("patchesJson6902", "patches"),
    "AnnotationsTransformer": ("commonAnnotations",),
    "LabelTransformer": ("labels", "commonLabels"),
    "NamespaceTransformer": ("namespace",),
    "PrefixSuffixTransformer": ("namePrefix", "nameSuffix"),
    "PrefixTransformer": ("namePrefix",),
    "SuffixTransformer": ("nameSuffix",),
    "ReplicaCountTransformer": ("replicas",),
    "ReplacementTransformer": ("replacements",),
}


def resolve(body: Any, field_path: str) -> list[tuple[Any, Any]]:
    """The steps of ``field_path`` (``spec.template.spec.containers[0].image``; annotation keys
    may hold dots) through ``body``: ``[(container, key or index), ...]``, ending at the field.
    Empty when the path does not exist in ``body``. At each mapping the key is the longest one of
    the mapping that the path spells from there, up to a ``.`` or the end, after which only indexes
    follow (``[0]``, none that its key would end with); found by comparing the mapping's keys with
    the path, in time linear in their length (joining the path's parts from the longest cost the
    cube of an annotation key of 20,000 dots: 24 s)."""
    steps: list[tuple[Any, Any]] = []
    node: Any = body
    at: int | None = 0 if field_path else None
    while at is not None:
        if not isinstance(node, Map):
            return []
        best: tuple[int, str, int] | None = None  # (end of the key's indexes, key, end of the key)
        for key in node:
            if not isinstance(key, str) or not field_path.startswith(key, at) or _ENDS_WITH_INDEX.search(key):
                continue
            end = _INDEXES.match(field_path, at + len(key)).end()  # type: ignore[union-attr]  # matches the empty string
            if (end == len(field_path) or field_path[end] == ".") and (best is None or end > best[0]):
                best = (end, key, at + len(key))
        if best is None:
            return []
        end, key, key_end = best
        steps.append((node, key))
        node = node[key]
        for index in _INDEX.findall(field_path, key_end, end):
            if not isinstance(node, Seq) or len(index) > _MAX_INDEX_DIGITS or int(index) >= len(node):
                return []
            steps.append((node, int(index)))
            node = node[int(index)]
        at = end + 1 if end < len(field_path) else None
    return steps


def path_at(body: Any, span: Span, prefix: str = "") -> str | None:
    """The field path (as :func:`resolve` reads it) of the key or value of ``body`` whose span is
    ``span``, outermost first; None when no key or value has that span."""
    if isinstance(body, Map):
        for key in body:
            here = f"{prefix}.{key}" if prefix else str(key)
            if span in (body.key_span(key), body.value_span(key)):
                return here
            found = path_at(body[key], span, here)
            if found is not None:
                return found
    elif isinstance(body, Seq):
        for index, item in enumerate(body):
            here = f"{prefix}[{index}]"
            if span == body.item_spans[index]:
                return here
            found = path_at(item, span, here)
            if found is not None:
                return found
    return None


def _spans(container: Any, key: Any) -> tuple[Span, Span]:
    """(key span, value span) of one step; a list item's span twice."""
    if isinstance(container, Map):
        return container.key_span(key), container.value_span(key)
    span = container.item_spans[key]
    return span, span


def _value(steps: list[tuple[Any, Any]]) -> Any:
    container, key = steps[-1]
    return container[key]


class Placement:
    """Where the findings of one rendered object go (see the module docstring).

    ``rendered`` is the object as rendered (positions in the rendered text); ``path`` and
    ``source`` the user's file and the object as written there (None when not found, or for a
    generated object); ``first`` the span that stands for the whole object there; ``entries``
    the kustomizations that changed the object, outermost last, as ``(transformer kind, path,
    parsed kustomization)``; ``template`` a Helm template's locator (field path -> span or None)."""

    __slots__ = ("rendered", "path", "source", "first", "entries", "template")

    def __init__(self, rendered: Map, path: str, first: Span, source: Map | None = None,
                 entries: list[tuple[str, str, Map]] | None = None,
                 template: Callable[[str], Span | None] | None = None):  # fmt: skip
        self.rendered = rendered
        self.path = path
        self.first = first
        self.source = source
        self.entries = entries or []
        self.template = template

    def reported(self) -> "Placement":
        """This placement as a reported object keeps it (:meth:`hooklint.model.Manifest.reported`):
        its ``path`` and ``first`` span only; it locates nothing any more."""
        return Placement(Map.empty_at(self.first), self.path, self.first)

    def locate(self, field_path: str, span: Span) -> tuple[str, Span]:
        """``(path, span)`` in the user's files for a finding at ``span`` of the rendered object
        about ``field_path``."""
        # the span's own field when it is more precise: a key inside field_path (one annotation of
        # metadata.annotations), the parent of a missing field, or the only clue (no field path)
        at = path_at(self.rendered, span)
        # a field the object lacks was set by no transformer: its finding stays in the source
        missing = bool(field_path) and not resolve(self.rendered, field_path)
        if at is not None and (not field_path or missing or at.startswith((field_path + ".", field_path + "["))):
            field_path = at
        rendered_steps = resolve(self.rendered, field_path)
        if not rendered_steps:
            return self.path, self.first
        key_span, _ = _spans(*rendered_steps[-1])
        on_key = span == key_span
        if self.template is not None:
            found = self.template(field_path)
            return self.path, found if found is not None else self.first
        steps = resolve(self.source, field_path) if self.source is not None else None
        if steps and _value(steps) == _value(rendered_steps):
            k, v = _spans(*steps[-1])
            return self.path, k if on_key else v
        entry = None if missing else self._entry(field_path, _value(rendered_steps))
        if entry is not None:
            return entry
        if steps:  # the field is in the user's file; something changed inside it (labels, a patch)
            return self.path, _spans(*steps[-1])[0]
        return self.path, self.first

    def _entry(self, field_path: str, value: Any) -> tuple[str, Span] | None:
        """The kustomization entry that set ``field_path``, outermost first."""
        for kind, path, kustomization in reversed(self.entries):
            fields = TRANSFORMER_FIELDS.get(kind, ())
            if not _sets(kind, field_path):
                continue
            for name in fields:
                if name in kustomization:
                    return path, _entry_span(kustomization, name, field_path, value)
        return None


def _sets(kind: str, field_path: str) -> bool:
    """Whether a transformer of ``kind`` can set ``field_path``."""
    last = field_path.rsplit(".", 1)[-1]
    if kind == "ImageTagTransformer":
        return last == "image"
    if kind == "AnnotationsTransformer":
        return ".annotations." in f".{field_path}" or field_path.endswith("annotations")
    if kind == "LabelTransformer":
        return ".labels" in f".{field_path}"
    if kind == "NamespaceTransformer":
        return field_path == "metadata.namespace"
    if kind in ("PrefixSuffixTransformer", "PrefixTransformer", "SuffixTransformer"):
        return field_path == "metadata.name"
    if kind == "ReplicaCountTransformer":
        return field_path == "spec.replicas"
    return kind in TRANSFORMER_FIELDS  # patches and replacements can set anything


def _image_name(reference: str) -> str:
    """An image reference without its digest and tag: ``ghcr.io/acme/app:1.2@sha256:...`` ->
    ``ghcr.io/acme/app`` (a ``:`` before the last ``/`` is a registry's port)."""
    name = reference.split("@", 1)[0]
    slash = name.rfind("/")
    colon = name.rfind(":")
    return name[:colon] if colon > slash else name


def _entry_span(kustomization: Map, name: str, field_path: str, value: Any) -> Span:
    """The most precise span of the entry: the ``images`` item (a kustomization's mapping or an
    Application's string) whose name or new name matches the image, the annotation's key under ``commonAnnotations``, else the field's key."""
    entries = kustomization[name]
    if name == "images" and isinstance(entries, Seq) and isinstance(value, str):
        image = _image_name(value)
        # the entry naming the image exactly (kustomize matches the whole name), else one naming a part of it
        for same in (image.__eq__, lambda n: n in value):
            for i, item in enumerate(entries):
                if isinstance(item, Map):
                    names = [n for n in (item.get("newName"), item.get("name")) if isinstance(n, str)]
                elif isinstance(item, str):  # an Argo CD Application's form: [old=]new[:tag|@digest]
                    names = [_image_name(part) for part in item.split("=", 1)]
                else:
                    continue
                if any(n and same(n) for n in names):
                    return entries.item_spans[i]
    if name == "commonAnnotations" and isinstance(entries, Map):
        key = field_path.split("annotations.", 1)[-1]
        if key in entries:
            return entries.key_span(key)
    return kustomization.key_span(name)
