"""JSON for scripts: ``{"version", "findings": [...], "errors": [...], "skipped": [...], "summary": {...}}``.

Each finding is :meth:`hooklint.findings.Finding.as_dict`; ``summary`` counts findings by severity
and the files linted; ``skipped`` lists the files not linted as ``{"path", "reason"}``. Keys are written in a fixed order so output is byte-stable."""

from __future__ import annotations

import json

from hooklint import __version__
from hooklint.findings import RunResult


def render(result: RunResult) -> str:
    counts = {"error": 0, "warning": 0, "note": 0}
    for f in result.findings:
        counts[f.severity] += 1
    doc = {
        "version": __version__,
        "findings": [f.as_dict() for f in result.findings],
        "errors": [{"path": e.path, "message": e.message} for e in result.errors],
        "skipped": [{"path": path, "reason": reason} for path, reason in result.skipped_files],
        "summary": {**counts, "files": result.files},
        "renderers": result.renderers,
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
