"""Text for people: ``path:line:col: severity HLxxx slug: message``, then a summary."""

from __future__ import annotations

from hooklint.findings import RunResult


def summary_line(result: RunResult) -> str:
    counts = {"error": 0, "warning": 0, "note": 0}
    for f in result.findings:
        counts[f.severity] += 1
    parts = [f"{n} {sev}{'s' if n != 1 else ''}" for sev, n in counts.items()]
    files = f"{result.files} file{'s' if result.files != 1 else ''}"
    return f"{', '.join(parts)} in {files}"


def render(result: RunResult, show_skipped: bool = False) -> str:
    """One line per finding, in sorted order, then the summary and any notices (among them the
    count of files not linted); with ``show_skipped``, one ``note: not linted: path: reason`` line
    per file not linted."""
    lines = [
        f"{f.path}:{f.span.line}:{f.span.column}: {f.severity} {f.rule_id} {f.slug}: {f.message}"
        for f in result.findings
    ]
    if lines:
        lines.append("")
    lines.append(summary_line(result))
    lines.extend(f"note: {n}" for n in result.notices)
    if show_skipped:
        lines.extend(f"note: not linted: {path}: {reason}" for path, reason in result.skipped_files)
    return "\n".join(lines) + "\n"
