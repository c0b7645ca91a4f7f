"""JSON for scripts: ``{"version", "findings": [...], "errors": [...], "skipped": [...], "summary": {...},
"renderers": [...], ["helm": {"rendered", "argocd", "argocd_version", "differs"}]}``.

Each finding is :meth:`hooklint.findings.Finding.as_dict`, suppressed ones included (their
``suppression`` is ``{"kind", "reason"}``, ``null`` for live findings); ``skipped`` lists the files
not linted as ``{"path", "reason"}``; ``summary`` counts live findings by severity, the files
linted, the suppressed findings and the baseline entries that matched nothing; ``renderers`` names
the tools that rendered kustomize and Helm sources; ``helm``, present when a chart was rendered,
the Helm major that rendered it and the one the configured Argo CD renders with. Keys are written in
a fixed order so output is byte-stable.

The text is exactly ``json.dumps(doc, indent=2, ensure_ascii=False)`` of that document, but the
findings are written by :class:`_FindingWriter`, one fixed-shape template per finding with
strings escaped by the json module's C escaper: with ``indent``, ``json.dumps`` falls back to the
pure-Python encoder, which took ~1.2 s (and ~130 MB of small strings) for the 66,665 findings of
one 10 MB file; the template takes under 0.2 s. :func:`render_chunks` yields the report one finding
at a time, so the command line writes it without holding the whole text. Values are the
manifests' own; DEL, C1 and bidirectional controls in them are written as ``\\uXXXX`` escapes
(:func:`hooklint.text.json_safe`), so the text holds no raw control character.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring
from typing import Any, Iterator

from hooklint import __version__
from hooklint.findings import Finding, HookRef, ObjectRef, RunResult
from hooklint.text import json_safe


def _nested(value: Any, level: int) -> str:
    """``value`` as ``json.dumps(indent=2)`` writes it ``level`` containers deep."""
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + "  " * level)


def _scalar(value: Any) -> str:
    """A str, int or None as ``json.dumps`` writes it (any other value through ``json.dumps``)."""
    if value.__class__ is str:
        return encode_basestring(value)
    if value is None:
        return "null"
    if value.__class__ is int:
        return int.__repr__(value)
    return json.dumps(value, ensure_ascii=False)


class _FindingWriter:
    """One finding of the ``findings`` list (three levels deep) as ``json.dumps(indent=2)`` writes
    it. The rule's lines, the path, the object and the hook repeat from finding to finding, so
    their text is kept once made."""

    def __init__(self) -> None:
        self._rules: dict[tuple, str] = {}
        self._paths: dict[str, str] = {}
        self._objects: dict[ObjectRef, str] = {}
        self._hooks: dict[HookRef, str] = {}

    def _object(self, obj: ObjectRef) -> str:
        text = self._objects.get(obj)
        if text is None:
            if len(self._objects) > 4096:  # objects rarely repeat across applications
                self._objects.clear()
            text = self._objects[obj] = (
                f'{{\n        "api_version": {_scalar(obj.api_version)},\n        "kind": {_scalar(obj.kind)},\n'
                f'        "name": {_scalar(obj.name)},\n        "generate_name": {_scalar(obj.generate_name)},\n'
                f'        "namespace": {_scalar(obj.namespace)}\n      }}'
            )
        return text

    def _hook(self, hook: HookRef) -> str:
        text = self._hooks.get(hook)
        if text is None:
            if hook.phases:
                phases = ",\n".join("          " + _scalar(p) for p in hook.phases)
                phases = f"[\n{phases}\n        ]"
            else:
                phases = "[]"
            text = self._hooks[hook] = f'{{\n        "phases": {phases},\n        "wave": {_scalar(hook.wave)}\n      }}'
        return text

    def __call__(self, f: Finding) -> str:
        key = (f.rule_id, f.slug, f.severity)
        head = self._rules.get(key)
        if head is None:
            head = self._rules[key] = (
                f'    {{\n      "rule_id": {_scalar(f.rule_id)},\n      "slug": {_scalar(f.slug)},\n'
                f'      "severity": {_scalar(f.severity)},\n      "message": '
            )
        path = self._paths.get(f.path)
        if path is None:
            path = self._paths[f.path] = _scalar(f.path)
        span = f.span  # four ints (Span is only ever made of ints): f-string formatting is json's
        obj = self._object(f.obj) if f.obj else "null"
        hook = self._hook(f.hook) if f.hook else "null"
        suppression = _nested(f.suppression.as_dict(), 3) if f.suppression else "null"
        return (
            f'{head}{_scalar(f.message)},\n      "path": {path},\n      "line": {span.line:d},\n'
            f'      "column": {span.column:d},\n      "end_line": {span.end_line:d},\n'
            f'      "end_column": {span.end_column:d},\n      "object": {obj},\n      "hook": {hook},\n'
            f'      "suppression": {suppression}\n    }}'
        )


def render_chunks(result: RunResult) -> Iterator[str]:
    """The report in pieces (one per finding); joined, they are :func:`render`'s text."""
    return (json_safe(chunk) for chunk in _chunks(result))


def _chunks(result: RunResult) -> Iterator[str]:
    counts = {"error": 0, "warning": 0, "note": 0}
    for f in result.findings:
        counts[f.severity] += 1
    findings = sorted(result.findings + result.suppressed, key=Finding.sort_key)
    yield f'{{\n  "version": {_scalar(__version__)},\n  "findings": '
    if findings:
        write = _FindingWriter()
        yield "[\n"
        for i, f in enumerate(findings):
            yield write(f) if i == 0 else ",\n" + write(f)
        yield "\n  ]"
    else:
        yield "[]"
    errors = [{"path": e.path, "message": e.message} for e in result.errors]
    skipped = [{"path": path, "reason": str(reason)} for path, reason in result.skipped_files]
    summary = {**counts, "files": result.files, "suppressed": len(result.suppressed),
               "stale_baseline": result.stale_baseline}  # fmt: skip
    yield (
        f',\n  "errors": {_nested(errors, 1)},\n  "skipped": {_nested(skipped, 1)},\n'
        f'  "summary": {_nested(summary, 1)},\n  "renderers": {_nested(result.renderers, 1)}'
        + (f',\n  "helm": {_nested(result.helm, 1)}' if result.helm is not None else "")
        + "\n}\n"
    )


def render(result: RunResult) -> str:
    return "".join(render_chunks(result))
