"""GitLab Code Quality: the JSON array ``artifacts:reports:codequality`` reads (a subset of the
Code Climate issue format), one item per finding::

    {"description": "HL102 hook-image-mutable-tag: Image ...",
     "check_name": "hooklint/HL102",
     "fingerprint": "<sha256 hex>",
     "severity": "major",
     "location": {"path": "deploy/hooks/job.yaml", "lines": {"begin": 12}}}

- ``severity`` follows hooklint's own severity, the one ``--fail-on`` compares, so the merge
  request widget ranks findings as the exit code does: ``error`` -> ``critical``, ``warning`` ->
  ``major``, ``note`` -> ``minor``. ``blocker`` and ``info`` are not used.
- ``fingerprint`` is the SARIF ``hooklint/v1`` fingerprint (rule, path, object, field; never the
  line; see :func:`hooklint.findings.fingerprints`): GitLab compares the merge request's
  report with the target branch's by fingerprint, so a finding keeps its identity when lines are
  inserted above it, and two findings never share one.
- ``location.path`` is relative to the repository root, with forward slashes (a file outside the
  repository keeps the path as given).
- Input errors have no line and are not items: the CLI prints them and exits 2. A clean run is
  ``[]``.
- ``description`` is shown to people in the merge request: control and bidirectional characters
  from the repository are escaped in it (:func:`hooklint.text.escape_controls`); the rest stays
  as it is, and the JSON text holds no raw control character (:func:`hooklint.text.json_safe`).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from hooklint.findings import RunResult, artifact_path, artifact_uri, fingerprints, repository_root
from hooklint.text import escape_controls, json_safe

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path

    from hooklint.catalog import Catalog

SEVERITY = {"error": "critical", "warning": "major", "note": "minor"}


def issues(result: RunResult, root: "Path | None" = None) -> list[dict]:
    """The Code Quality items for ``result``, in file order."""
    root = root or repository_root()
    findings = sorted(result.findings, key=lambda f: (f.sort_key(), f.field_path))
    fps = fingerprints(findings, (artifact_uri(f.path, root)[0] for f in findings))
    out = []
    for finding, fp in zip(findings, fps):
        relative = artifact_path(finding.path, root)
        out.append({
            "description": escape_controls(f"{finding.rule_id} {finding.slug}: {finding.message}"),
            "check_name": f"hooklint/{finding.rule_id}",
            "fingerprint": fp,
            "severity": SEVERITY.get(finding.severity, "major"),
            "location": {
                "path": relative if relative is not None else finding.path.replace("\\", "/"),
                "lines": {"begin": finding.span.line},
            },
        })  # fmt: skip
    return out


def render(result: RunResult, catalog: "Catalog | None" = None, category: str = "hooklint",
           root: "Path | None" = None) -> str:  # fmt: skip
    """The report as JSON text; ``catalog`` and ``category`` are accepted for the common reporter
    signature and not used."""
    return json_safe(json.dumps(issues(result, root), indent=2, ensure_ascii=False)) + "\n"
