"""JSON for scripts: ``{"version", "findings": [...], "errors": [...], "skipped": [...], "summary": {...}}``.

Each finding is :meth:`hooklint.findings.Finding.as_dict`, suppressed ones included (their
``suppression`` is ``{"kind", "reason"}``, ``null`` for live findings); ``skipped`` lists the files
not linted as ``{"path", "reason"}``; ``summary`` counts live findings by severity, the files
linted, the suppressed findings and the baseline entries that matched nothing. Keys are written in
a fixed order so output is byte-stable."""

from __future__ import annotations

import json

from hooklint import __version__
from hooklint.findings import Finding, RunResult


def render(result: RunResult) -> str:
    counts = {"error": 0, "warning": 0, "note": 0}
    for f in result.findings:
        counts[f.severity] += 1
    findings = sorted(result.findings + result.suppressed, key=Finding.sort_key)
    doc = {
        "version": __version__,
        "findings": [f.as_dict() for f in findings],
        "errors": [{"path": e.path, "message": e.message} for e in result.errors],
        "skipped": [{"path": path, "reason": reason} for path, reason in result.skipped_files],
        "summary": {**counts, "files": result.files, "suppressed": len(result.suppressed),
                    "stale_baseline": result.stale_baseline},
        "renderers": result.renderers,
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
