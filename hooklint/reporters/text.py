"""Text for people: ``path:line:col: severity HLxxx slug: message``, then a summary (which counts
the suppressed findings it leaves out). One finding made many times at one place (a kustomize base
three overlays render, a Helm template a ``range`` repeats: :func:`hooklint.findings.same_place`)
is one line, followed by one indented line naming the other objects. The concise format
(:func:`render_concise`) is one short line per finding: ``path:line:col: HLxxx`` and the message's
first clause, the rest left to ``hooklint explain``. Text from the repository (paths, messages, reasons) is
escaped (:func:`hooklint.text.escape_controls`): no control character reaches the terminal but
hooklint's own colours and line breaks."""

from __future__ import annotations

from hooklint.findings import Finding, RunResult, more_objects, same_place
from hooklint.text import escape_commands, escape_controls, escape_line_commands
from hooklint.yamlio import shown


#: ANSI colours of the severities, and the reset code.
COLOURS = {"error": "\x1b[31m", "warning": "\x1b[33m", "note": "\x1b[36m"}
BOLD, RESET = "\x1b[1m", "\x1b[0m"


def _line(f: Finding, colour: bool = False) -> str:
    severity = f"{COLOURS[f.severity]}{f.severity}{RESET}" if colour else f.severity
    where = f"{escape_controls(f.path)}:{f.span.line}:{f.span.column}:"
    if colour:
        where = f"{BOLD}{where}{RESET}"
    text = f"{where} {severity} {f.rule_id} {f.slug}: {escape_controls(f.message)}"
    if f.suppression is not None:
        text += f" [suppressed by {f.suppression.kind}" + (f": {shown(f.suppression.reason, None)}]" if f.suppression.reason else "]")
    return text


def statistics(result: RunResult) -> list[str]:
    """``--statistics``: one line per rule with live findings, most frequent first:
    ``   12  HL102  warning  hook-image-mutable-tag``."""
    counts: dict[tuple[str, str, str], int] = {}
    for f in result.findings:
        key = (f.rule_id, f.severity, f.slug)
        counts[key] = counts.get(key, 0) + 1
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    width = len(str(ordered[0][1])) if ordered else 1
    return [f"{n:>{width}}  {rid}  {sev:<7}  {slug}" for (rid, sev, slug), n in ordered]


def message_head(message: str) -> str:
    """The first clause of a finding's message (up to the first ``: ``, ``; `` or ``. `` outside
    parentheses), without a final period: what is wrong, without why or how to fix. A ``: `` after
    what only says where (``Application shop (apps/shop.yaml:9): ...``, a fetched chart's
    ``hookchart 1.2.0 templates/job.yaml:14: ...``: a part ending in ``:LINE`` or ``:LINE)``) does not
    end the clause, so the head still says what is wrong; nor does one after a lead-in of at most
    three words (``Rendering failed: ...``, ``YAML syntax error: ...``), which says what is wrong
    only with what follows it."""
    depth = 0
    for at, char in enumerate(message):
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        elif depth == 0 and char in ":;." and message.startswith(" ", at + 1):
            if char == ":" and (_says_where(message[:at]) or _lead_in(message[:at])):
                continue
            return message[:at]
    return message.rstrip(".")


def _lead_in(text: str) -> bool:
    """Whether the part of a message before a ``: `` is a lead-in that names nothing: at most three
    words, no object, path, field or quoted value (``Rendering failed``, ``YAML syntax error``)."""
    return len(text.split()) <= 3 and not any(c in text for c in "/.'\"`=")


def _says_where(text: str) -> bool:
    """Whether the part of a message before a ``: `` only places it: it ends in ``:LINE`` or
    ``:LINE)``."""
    text = text[:-1] if text.endswith(")") else text
    return ":" in text and text.rsplit(":", 1)[1].isdigit()


def render_concise(result: RunResult) -> str:
    """``--format concise``: one line per finding, ``path:line:col: HLxxx head`` (see
    :func:`message_head`; ``hooklint explain HLxxx`` has the rest), then the summary and notices."""
    lines = [f"{escape_controls(f.path)}:{f.span.line}:{f.span.column}: {f.rule_id} {escape_controls(message_head(f.message))}"
             for f in result.findings]  # fmt: skip
    if lines:
        lines.append("")
    return escape_line_commands(escape_commands("\n".join(lines + _tail(result)) + "\n"))


def _tail(result: RunResult) -> list[str]:
    return [result.summary(), *(f"note: {escape_controls(n)}" for n in result.notices)]


def render_summary(result: RunResult) -> str:
    """The summary line and the notices, without the findings: what ``lint --write-baseline``
    prints, whose findings go to the baseline file (``--output`` still gets the whole report)."""
    return escape_line_commands(escape_commands("\n".join(_tail(result)) + "\n"))


def render(result: RunResult, show_suppressed: bool = False, colour: bool = False, stats: bool = False,
           show_skipped: bool = False) -> str:  # fmt: skip
    """One line per finding, in sorted order (with ``show_suppressed``, the suppressed ones too,
    each marked with its suppression), then with ``stats`` the count of each rule, then the
    summary and any notices (among them the count of files not linted); with ``show_skipped``,
    one ``note: not linted: path: reason`` line per file not linted. ``colour`` adds ANSI colours
    (the CLI decides: a terminal, ``NO_COLOR``, ``FORCE_COLOR``)."""
    findings = result.findings
    if show_suppressed and result.suppressed:
        findings = sorted(findings + result.suppressed, key=Finding.sort_key)
    lines = []
    for group in same_place(findings):
        lines.append(_line(group[0], colour))
        if len(group) > 1:
            lines.append(f"    {escape_controls(more_objects(group))}")
    if stats and result.findings:
        lines += ["", *statistics(result)]
    if lines:
        lines.append("")
    lines.extend(_tail(result))
    if show_skipped:
        lines.extend(f"note: not linted: {escape_controls(path)}: {escape_controls(str(reason))}"
                     for path, reason in result.skipped_files)  # fmt: skip
    return escape_line_commands(escape_commands("\n".join(lines) + "\n"))
