"""Text for people: ``path:line:col: severity HLxxx slug: message``, then a summary (which counts
the suppressed findings it leaves out)."""

from __future__ import annotations

from hooklint.findings import Finding, RunResult
from hooklint.yamlio import shown


def summary_line(result: RunResult) -> str:
    counts = {"error": 0, "warning": 0, "note": 0}
    for f in result.findings:
        counts[f.severity] += 1
    parts = [f"{n} {sev}{'s' if n != 1 else ''}" for sev, n in counts.items()]
    files = f"{result.files} file{'s' if result.files != 1 else ''}"
    line = f"{', '.join(parts)} in {files}"
    if result.suppressed:
        line += f", {len(result.suppressed)} suppressed"
    if result.stale_baseline:
        n = result.stale_baseline
        line += f", {n} baseline {'entry no longer matches' if n == 1 else 'entries no longer match'}"
    return line


def _line(f: Finding) -> str:
    text = f"{f.path}:{f.span.line}:{f.span.column}: {f.severity} {f.rule_id} {f.slug}: {f.message}"
    if f.suppression is not None:
        text += f" [suppressed by {f.suppression.kind}" + (f": {shown(f.suppression.reason, None)}]" if f.suppression.reason else "]")
    return text


def render(result: RunResult, show_suppressed: bool = False) -> str:
    """One line per finding, in sorted order (with ``show_suppressed``, the suppressed ones too,
    each marked with its suppression), then the summary and any notices."""
    findings = result.findings
    if show_suppressed and result.suppressed:
        findings = sorted(findings + result.suppressed, key=Finding.sort_key)
    lines = [_line(f) for f in findings]
    if lines:
        lines.append("")
    lines.append(summary_line(result))
    lines.extend(f"note: {n}" for n in result.notices)
    return "\n".join(lines) + "\n"
