"""GitHub Actions workflow commands: one annotation per finding, for a plain workflow step.

Each finding becomes one line that the Actions runner turns into an annotation on the pull
request's diff and in the run's summary::

    ::warning file=deploy/hooks/job.yaml,line=12,col=18,endLine=12,endColumn=46,title=HL102 hook-image-mutable-tag::Image ...

- The command is ``error``, ``warning`` or ``notice`` for hooklint's ``error``, ``warning`` and
  ``note``.
- ``file`` is the path relative to the repository root (see
  :func:`hooklint.findings.repository_root`), with forward slashes; the runner resolves it
  against ``GITHUB_WORKSPACE``. A file outside the repository keeps the path as given.
- ``col`` and ``endColumn`` are given only when the finding starts and ends on the same line:
  GitHub accepts columns only for single-line annotations.
- Values are escaped as ``@actions/core`` does (``toCommandValue``/``escapeData``/
  ``escapeProperty`` in ``packages/core/src/command.ts``): ``%``, CR and LF everywhere, and ``:``
  and ``,`` inside properties as well (so no ``::`` of a value ends a property list). Before that,
  control and bidirectional characters from the repository are escaped as on a terminal
  (:func:`hooklint.text.escape_controls`: ``\x1b``, ``\u202e``; in a message CR and LF are left
  to ``escapeData``, which the runner decodes into the annotation's line breaks): the runner's
  log would interpret an escape sequence, and a line break in a value never becomes a line of its
  own, so nothing from a manifest can start a workflow command (``::add-mask::``,
  ``::stop-commands::``), neither in an annotation nor in the plain lines after them (where a line
  break is escaped as ``\n``).
- Input errors (a missing or unreadable path) become ``::error`` annotations on the file, without a
  line.
- The runner shows at most ten annotations of each level (error, warning, notice) per step and
  drops the rest without a word (GitHub's documented annotation limits), so at most
  :data:`MAX_ANNOTATIONS` of each are printed: input errors first, then findings by severity, each
  level in report order; then one plain line counts what was left out of each level.
- Then come plain lines (shown as log text, not annotations): the engine's notices and the
  summary line of the text report. The whole output has no ``##[`` (the runner's legacy command
  form, read anywhere in a line: :func:`hooklint.text.escape_commands`).

Exit codes are the CLI's, so the step fails on findings at or above ``--fail-on``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hooklint.findings import Finding, RunResult, artifact_path, repository_root
from hooklint.text import escape_commands, escape_controls

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path

    from hooklint.catalog import Catalog

COMMANDS = {"error": "error", "warning": "warning", "note": "notice"}
#: Annotations of one level the runner shows per step; hooklint prints no more than that.
MAX_ANNOTATIONS = 10


def escape_data(text: str) -> str:
    """A command's message: ``%`` -> ``%25``, CR -> ``%0D``, LF -> ``%0A``."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A command property's value: :func:`escape_data`, and ``:`` -> ``%3A``, ``,`` -> ``%2C``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(name: str, properties: list[tuple[str, object]], message: str) -> str:
    """``::name key=value,...::message`` with every value escaped."""
    props = ",".join(f"{key}={escape_property(escape_controls(str(value)))}" for key, value in properties)
    message = escape_data(escape_controls(message, keep="\r\n"))
    return f"::{name} {props}::{message}" if props else f"::{name}::{message}"


def _file(path: str, root: "Path") -> str:
    relative = artifact_path(path, root)
    return relative if relative is not None else path.replace("\\", "/")


def annotation(finding: Finding, root: "Path") -> str:
    span = finding.span
    props: list[tuple[str, object]] = [("file", _file(finding.path, root)), ("line", span.line)]
    if span.end_line == span.line:
        props += [("col", span.column), ("endLine", span.end_line), ("endColumn", span.end_column)]
    else:
        props += [("endLine", span.end_line)]
    props.append(("title", f"{finding.rule_id} {finding.slug}"))
    return command(COMMANDS.get(finding.severity, "warning"), props, finding.message)


def render(result: RunResult, catalog: "Catalog | None" = None, category: str = "hooklint",
           root: "Path | None" = None) -> str:  # fmt: skip
    """Workflow commands for ``result``: at most :data:`MAX_ANNOTATIONS` of each level, input
    errors first, then the findings by severity (error, warning, note), each in report order; a
    line counting those left out, when any; then the notices and the summary. ``catalog`` and
    ``category`` are accepted for the common reporter signature and not used."""
    root = root or repository_root()
    levels: dict[str, list[str]] = {"error": [], "warning": [], "note": []}
    for error in result.errors:
        props: list[tuple[str, object]] = [("file", _file(error.path, root)), ("title", "hooklint")]
        levels["error"].append(command("error", props, f"{error.path}: {error.message}"))
    for finding in sorted(result.findings, key=Finding.sort_key):
        levels.get(finding.severity, levels["warning"]).append(annotation(finding, root))
    lines = [line for shown in levels.values() for line in shown[:MAX_ANNOTATIONS]]
    left = {level: len(shown) - MAX_ANNOTATIONS for level, shown in levels.items() if len(shown) > MAX_ANNOTATIONS}
    if left:
        counts = ", ".join(f"{n} {'notice' if level == 'note' else level}{'s' if n != 1 else ''}"
                           for level, n in left.items())  # fmt: skip
        lines.append(f"hooklint: {counts} not shown as annotations (GitHub shows {MAX_ANNOTATIONS} of each level "
                     "per step); 'hooklint lint --format text' lists every finding")  # fmt: skip
    lines.extend(f"note: {escape_controls(notice)}" for notice in result.notices)
    lines.append(result.summary())
    return escape_commands("\n".join(lines) + "\n")
