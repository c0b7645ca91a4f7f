"""The compact forms issue 34 gives a big file's values, findings and reports ("big files read
document by document, with values dropped after the rules ran and compact findings") report
exactly what the plain forms did: where each key and item is written, the shared ObjectRef of an
object, the SARIF log written piece by piece."""

from __future__ import annotations

import json

from hooklint.catalog import load_catalog
from hooklint.findings import Finding, InputError, ObjectRef, RunResult, Span
from hooklint.loader import parse_text
from hooklint.model import manifests_of
from hooklint.reporters import sarif
from hooklint.text import json_safe
from hooklint.yamlio import Map, Seq

TEXT = """\
base: &base
  image: a:1
  pull: Always
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: one
  labels: {app: x, tier: "db"}
data:
  <<: {merged: m, image: old}
  image: b:2
  image: c:3
  list:
    - first
    - {k: v}
    - [1, 2]
"""


def place(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """1-based (line, column) of the ``nth`` occurrence of ``needle`` in ``text``."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


def test_spans_of_keys_items_and_containers_from_the_shared_offsets():
    loaded = parse_text("f.yaml", TEXT)
    second = loaded.documents[1]
    body = second.value
    assert isinstance(body, Map) and isinstance(body["data"], Map)
    assert second.span == body.span == Span(5, 1, 18, 1)
    assert loaded.documents[0].span == Span(1, 1, 4, 1)
    data = body["data"]
    # a repeated key: the last one written wins; a merged key points into the merged mapping
    assert data["image"] == "c:3"
    assert (data.key_span("image").line, data.key_span("image").column) == place(TEXT, "image: c:3")
    assert data.value_span("image") == Span(*place(TEXT, "c:3"), *place(TEXT, "c:3")[:1], place(TEXT, "c:3")[1] + 3)
    assert (data.key_span("merged").line, data.key_span("merged").column) == place(TEXT, "merged")
    assert set(data.key_spans) == {"merged", "image", "list"}
    labels = body["metadata"]["labels"]
    assert (labels.span.line, labels.span.column) == place(TEXT, "{app")
    assert (labels.value_span("tier").line, labels.value_span("tier").column) == place(TEXT, '"db"')
    items = data["list"]
    assert isinstance(items, Seq) and [(s.line, s.column) for s in items.item_spans] == [
        place(TEXT, "first"), place(TEXT, "{k: v}"), place(TEXT, "[1, 2]")]  # fmt: skip
    assert [(s.line, s.column) for s in items[2].item_spans] == [place(TEXT, "1, 2]"), place(TEXT, "2]")]
    assert (items[1].value_span("k").line, items[1].value_span("k").column) == place(TEXT, "v}")
    # the duplicate key is still reported where it is written again, against the first one's line
    assert [(i.kind, i.span.line, i.first_line) for i, _ in loaded.issues] == [("duplicate-key", 13, 12)]


def test_a_hand_made_mapping_keeps_its_own_offsets():
    made = Map({"a": 1})._init(None, 4, 9)
    assert (made._start, made._end, made._entries) == (4, 9, [])
    assert Seq([1])._init(None, 2, 3)._end == 3


def test_findings_of_one_object_share_its_object_ref_until_a_field_changes():
    m = manifests_of([parse_text("f.yaml", TEXT)])[-1]
    assert m.ref is m.ref and m.ref == ObjectRef("v1", "ConfigMap", "one")
    before = m.ref
    m.name = "two"
    assert m.ref == ObjectRef("v1", "ConfigMap", "two") and before.name == "one"


def whole_sarif(result: RunResult) -> str:
    """The SARIF log as it was written before it was streamed: one structure, one json.dumps."""
    doc = sarif.to_sarif(sarif.build_log(result, load_catalog()))
    ordered = {key: doc[key] for key in ("$schema", "version", "runs") if key in doc}
    ordered.update((k, v) for k, v in doc.items() if k not in ordered)
    return json_safe(json.dumps(ordered, indent=2, ensure_ascii=False)) + "\n"


def test_sarif_written_piece_by_piece_is_the_whole_log_byte_for_byte():
    findings = [
        Finding("HL102", "hook-image-mutable-tag", level, f"Message {i} with ##[ and \u2028 and \"quotes\".",
                f"dir/f{i % 3}.yaml", Span(i + 1, 2, i + 1, 9), ObjectRef("batch/v1", "Job", f"j{i}"),
                field_path="spec.x")  # fmt: skip
        for i, level in enumerate(["error", "warning", "note", "warning"])
    ]
    for result in (RunResult(findings=findings, files=3),
                   RunResult(findings=findings[:1], files=1, errors=[InputError("gone.yaml", "missing")]),
                   RunResult(files=1)):  # fmt: skip
        chunks = list(sarif.render_chunks(result, load_catalog()))
        assert "".join(chunks) == whole_sarif(result) == sarif.render(result, load_catalog())
        assert len(chunks) == (len(result.findings) + 2 if result.findings else 1)
    assert "##[" not in sarif.render(RunResult(findings=findings, files=3), load_catalog())
