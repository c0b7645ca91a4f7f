"""Markdown for a pull-request comment or a GitHub job summary: ``hooklint diff -f markdown`` and
``hooklint lint -f markdown``.

A headline, the new findings with links to their lines (``--link-base``: a URL prefix such as
``https://github.com/acme/deploy/blob/<sha>``; without it, ``path:line``), the fixed ones, the plan
changes as a table, and a Mermaid diagram of the head's sync steps for each application whose plan
changed, the steps holding added or moved tasks marked. GitHub refuses comments over 65,536
characters: the text stays under :data:`LIMIT`; long lists are folded into ``<details>`` and cut
after :data:`MAX_ITEMS` entries with a line saying how many more there are (findings: errors first
and never cut for a warning or a note, what is cut counted by severity), and diagrams are left out,
then the text cut, when it would still be too long.

Everything from the repository (names, paths, messages quoting annotation values and images) is
escaped where it lands: control and bidirectional characters as on a terminal
(:func:`hooklint.text.escape_controls`), then for the place: a table cell (:func:`_cell`: no HTML,
no ``|``, no link, image or code span of its own), a code span (:func:`_code`) or a Mermaid label
(:func:`_label`), so a value can neither close the ``<details>`` or the Mermaid block nor forge
a row, a link or an image in the comment.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Iterable
from urllib.parse import quote

from hooklint.findings import Finding, RunResult, more_objects, same_place
from hooklint.pipeline import PlannedApplication
from hooklint.reporters.plan import not_deployed, plan_dict
from hooklint.review import Review
from hooklint.review.report import headline, said, step_text, task_text
from hooklint.text import escape_commands, escape_controls, escape_line_commands

#: The most characters hooklint writes (GitHub's limit for a comment is 65,536).
LIMIT = 60_000
#: Entries shown per list before "... and N more".
MAX_ITEMS = 50
#: The hidden marker the CI finds its own comment by (``hooklint diff``), and the one of
#: ``hooklint lint -f markdown``.
MARKER = "<!-- hooklint-diff -->"
TREE_MARKER = "<!-- hooklint-lint -->"
_ICON = {"error": "🛑", "warning": "⚠️", "note": "ℹ️"}


#: A zero-width space, as an entity: GitHub's renderers see it and no longer find what it splits.
_ZWSP = "&#8203;"
#: What GitHub makes a link, a reference or an emoji of in text (never in a code span): a URL's
#: ``://`` (cmark-gfm's autolink extension: ``http://``, ``https://``, ``ftp://``), ``www.``, an
#: issue or pull-request reference (``#1``, ``owner/repo#1``), an emoji shortcode (``:+1:``).
_LIVE_TEXT = re.compile(r"(?<=:)(?=//)|(?<=www)(?=\.)|(?<=#)(?=\w)|(?<=:)(?=[\w+-]+:)", re.IGNORECASE)


def _cell(text: str) -> str:
    """``text`` safe in a Markdown table cell, shown as written and rendered as nothing else: no
    control character, no HTML (a manifest's value could close the ``<details>`` and forge the
    comment), no ``|``, no link, image or code span (``[``, ``]``, backticks and backslashes
    escaped), no emphasis or strikethrough (``*``, ``_``, ``~`` escaped), no math (``$``
    escaped: GitHub renders ``$...$`` and ``$$...$$``), and nothing GitHub links on its own:
    no @-mention (``@`` is followed by a zero-width space, ``&#8203;``, as Dependabot writes
    them, so ``@everyone`` never notifies anyone and ``a@b.example`` is no mail link), and a
    zero-width space inside every URL's ``://``, ``www.``, ``#1`` and ``:emoji:``
    (:data:`_LIVE_TEXT`). GitHub's GFM extended autolinks and its references are found in the
    text after escapes are read (a backslash would not stop them: ``https\\://`` is text
    ``https://``), so only a character between stops them."""
    text = escape_controls(text).replace("\\", "\\\\").replace("`", "\\`").replace("[", "\\[").replace("]", "\\]")
    for char in "*_~$":
        text = text.replace(char, "\\" + char)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _LIVE_TEXT.sub(_ZWSP, text)
    return text.replace("|", "\\|").replace("@", "@" + _ZWSP)


def _html(text: str) -> str:
    """``text`` inside ``<code>`` in an HTML line (a ``<summary>``), where Markdown is not read:
    control characters escaped, ``&``, ``<``, ``>`` as entities, a zero-width space after ``@``."""
    text = escape_controls(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace("@", "@" + _ZWSP)


def _code(text: str) -> str:
    """``text`` as a code span in a table cell: delimited by one backtick more than its longest
    run of them (CommonMark), padded when it starts or ends with one; control characters
    escaped, ``|`` escaped (GFM tables split on it even in code spans)."""
    text = escape_controls(text).replace("|", "\\|")
    ticks = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


_RANK = {"error": 0, "warning": 1, "note": 2}


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def _finding_rows(findings: list[Finding], link_base: str | None, command: str = "hooklint diff -f json",
                  budget: int = LIMIT // 2) -> list[str]:  # fmt: skip
    """The table of ``findings``, errors first, then warnings, then notes, each by path and line.
    Every error is shown (as long as the rows fit in ``budget`` characters); warnings and notes
    fill the table up to :data:`MAX_ITEMS` rows. What is cut is counted by severity on the last
    line (``… and 12 more: 0 errors, 9 warnings, 3 notes``), so an error is never dropped to make
    room, and never dropped unsaid."""
    order = sorted(findings, key=lambda f: (_RANK[f.severity], f.path, f.span.line, f.span.column, f.rule_id, f.message))
    rows = ["| | rule | where | message |", "|---|---|---|---|"]
    size = shown = rows_shown = 0
    for group in same_place(order):  # one finding made at one place for many objects: one row
        f = group[0]
        if f.severity != "error" and rows_shown >= MAX_ITEMS:
            break
        where = _cell(f"{f.path}:{f.span.line}")
        if link_base:
            target = quote(f"{link_base.rstrip('/')}/{f.path}", safe=":/@!$&'*+,;=~-._%")
            where = f"[{where}]({target.replace('&', '&amp;')}#L{f.span.line})"  # quote() left no space, | or ()
        more = f" ({more_objects(group)})" if len(group) > 1 else ""
        row = f"| {_ICON[f.severity]} | `{f.rule_id}` {f.slug} | {where} | {_cell(f.message + more)} |"
        if size + len(row) + 1 > budget:
            break
        rows.append(row)
        size += len(row) + 1
        shown += len(group)
        rows_shown += 1
    left = order[shown:]
    if left:
        counts = {s: sum(1 for f in left if f.severity == s) for s in _RANK}
        by_severity = ", ".join(_count(n, s) for s, n in counts.items())
        rows.append(f"\n… and {len(left)} more: {by_severity} (see the full report: `{command}`).")
    return rows


def _details(summary: str, body: list[str], open_: bool) -> list[str]:
    return [f"<details{' open' if open_ else ''}><summary>{summary}</summary>", "", *body, "", "</details>", ""]


def _plan_rows(change: dict[str, Any]) -> list[str]:
    rows = ["| change | object | from | to |", "|---|---|---|---|"]
    entries = (
        [("➕ added", t, "", step_text(t["step"])) for t in change["added"]]
        + [("➖ removed", t, "", "") for t in change["removed"]]
        + [("↪️ moved", m["task"], step_text(m["from"]), step_text(m["to"])) for m in change["moved"]]
        + [("⏏️ left", m["task"], step_text(m["from"]), f"not applied: {m['reason']}") for m in change["left"]]
        + [(f"✏️ {c['field']}", c["task"], ",".join(c["from"]) or "-", ",".join(c["to"]) or "-") for c in change["changed"]]
    )
    for kind, task, before, after in entries[:MAX_ITEMS]:
        rows.append(f"| {kind} | {_code(task_text(task))} | {_cell(before)} | {_cell(after)} |")
    if len(entries) > MAX_ITEMS:
        rows.append(f"\n… and {len(entries) - MAX_ITEMS} more.")
    return rows


def _label(text: str) -> str:
    """Text safe inside a Mermaid ``["..."]`` label: control characters escaped, and ``#``,
    ``%``, ``&``, ``"``, ``<``, ``>`` and backticks as Mermaid's entity codes (``#35;``, ``#37;``...),
    so a value can neither end the label, write HTML, close the Markdown code block (three
    backticks), nor carry a directive: Mermaid reads ``%%{init: ...}%%`` anywhere in a diagram's
    text, labels included (``mermaid/src/utils.ts``, ``directiveRegex``; issue 32)."""
    text = escape_controls(text).replace("#", "#35;").replace("%", "#37;").replace("&", "#amp;").replace('"', "#quot;")
    return text.replace("<", "#lt;").replace(">", "#gt;").replace("`", "#96;")


def mermaid(planned: PlannedApplication, change: dict[str, Any] | None = None, max_tasks: int = 8) -> str:
    """A Mermaid flowchart of ``planned``'s sync steps, one node per step listing its objects
    (``max_tasks`` at most); with ``change`` (a :func:`hooklint.review.plan_changes` entry), the
    objects added or moved are marked and their steps styled ``changed``."""
    added = {task_text(t) for t in (change or {}).get("added", [])}
    moved = {task_text(m["task"]): step_text(m["from"]) for m in (change or {}).get("moved", [])}
    lines = ["flowchart LR", "  classDef changed fill:#fff3cd,stroke:#d39e00"]
    ids = []
    for index, step in enumerate(plan_dict(planned)["steps"]):
        node = f"s{index}"
        names, marked = [], False
        for task in step["tasks"][:max_tasks]:
            text = task_text(task)
            if text in added:
                text, marked = f"+ {text} (added)", True
            elif text in moved:
                text, marked = f"{text} (moved from {moved[text]})", True
            names.append(_label(text))
        if len(step["tasks"]) > max_tasks:
            names.append(f"… {len(step['tasks']) - max_tasks} more")
        title = _label(f"{step['phase']} · wave {step['wave']}")
        lines.append(f'  {node}["<b>{title}</b><br/>{"<br/>".join(names)}"]')
        if marked:
            lines.append(f"  class {node} changed")
        ids.append(node)
    if len(ids) > 1:
        lines.append("  " + " --> ".join(ids))
    elif not ids:
        empty = {"none": "not rendered: hooklint cannot say what a sync applies",
                 "partial": "no object of the part hooklint rendered is applied during a sync"}.get(
            planned.coverage.rendered, "no object is applied during a sync")  # fmt: skip
        lines.append(f'  empty["{empty}"]')
    return "\n".join(lines)


def render_review(review: Review, link_base: str | None = None) -> str:
    """The Markdown of a change (see the module docstring)."""
    head = review.head.revision or "the working tree"
    top = [MARKER, f"### hooklint: {headline(review)}", "", f"Compared `{review.base.revision}` with {head if review.head.revision is None else f'`{head}`'}.", ""]
    top += [f"> **Note:** {_cell(note)}" for note in review.notes] + ([""] if review.notes else [])
    body: list[str] = []
    if review.new:
        new = [dataclasses.replace(f, message=said(review, f)) if id(f) in review.not_covered else f for f in review.new]
        body += _details(f"New findings ({len(new)})", _finding_rows(new, link_base), True)
    if review.fixed:
        body += _details(f"Fixed findings ({len(review.fixed)})", _finding_rows(review.fixed, None, budget=LIMIT // 6), False)
    if review.suppressed:
        hidden = [dataclasses.replace(f, message=f"Suppressed by this change ({f.suppression.kind if f.suppression else '?'}"
                                      f": {(f.suppression.reason if f.suppression else None) or 'no reason'}). It says: "
                                      f"{f.message}") for f in review.suppressed]  # fmt: skip
        body += _details(f"Suppressed by the change ({len(hidden)})", _finding_rows(hidden, link_base), True)
    if review.no_longer_checked:
        unchecked = [dataclasses.replace(f, message=f"Not fixed, no longer checked: {why}. It said: {f.message}")
                     for f, why in review.no_longer_checked]  # fmt: skip
        body += _details(f"No longer checked ({len(unchecked)})", _finding_rows(unchecked, None, budget=LIMIT // 6), True)
    body += _unrendered_details(review.head.plans, "Not fully rendered after the change")
    heads = {p.key: p for p in review.head.plans}
    diagrams: list[str] = []
    for change in review.plan_changes:
        body += _details(f"Plan of <code>{_html(change['application'])}</code>", _plan_rows(change), True)
        if change["application"] in heads:
            diagrams += _details(f"Sync steps of <code>{_html(change['application'])}</code> after the change",
                                 ["```mermaid", mermaid(heads[change["application"]], change), "```"], False)  # fmt: skip
    return _fit(top, body, diagrams)


def render_tree(result: RunResult, plans: Iterable[PlannedApplication] = (), link_base: str | None = None) -> str:
    """``hooklint lint -f markdown``: the same kind of summary for a whole tree."""
    counts = {s: sum(1 for f in result.findings if f.severity == s) for s in ("error", "warning", "note")}
    title = ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items())
    title += f" in {result.files} file{'s' if result.files != 1 else ''}"
    top = [TREE_MARKER, f"### hooklint: {title}", ""]
    rows = _finding_rows(result.findings, link_base, "hooklint lint -f json", budget=LIMIT * 3 // 4)
    body = _details(f"Findings ({len(result.findings)})", rows, True) if result.findings else []
    body += [f"- hooklint: error: {_cell(e.path)}: {_cell(e.message)}" for e in result.errors]
    diagrams: list[str] = []
    plans = list(plans)
    body += _unrendered_details(plans, "Not fully rendered")
    quiet = [p.key for p in plans if not_deployed(p)]  # named once, no diagram of nothing
    if quiet:
        body.append(f"- Not deployed by any Application, with nothing to apply: "
                    f"{', '.join(_code(k) for k in quiet[:MAX_ITEMS])}{' …' if len(quiet) > MAX_ITEMS else ''}")
    for planned in plans:
        if not_deployed(planned):
            continue
        made = _made_by(planned)
        diagrams += _details(f"Sync steps of <code>{_html(planned.key)}</code>{made}", ["```mermaid", mermaid(planned),
                                                                                   "```"], False)  # fmt: skip
    return _fit(top, body, diagrams)


def _unrendered_details(plans: Iterable[PlannedApplication], title: str) -> list[str]:
    """The table of ``plans`` rendered only partly or not at all, with why (issue 22: honest
    coverage; issue 33: sources from elsewhere), folded under ``title``; none when all are full."""
    unrendered = [p for p in plans if p.coverage.rendered != "full"]
    if not unrendered:
        return []
    rows = ["| application | rendered | why |", "|---|---|---|"]
    for planned in unrendered[:MAX_ITEMS]:
        why = "; ".join(r.words() for r in planned.coverage.reasons)
        rows.append(f"| {_code(planned.key)} | {planned.coverage.rendered} | {_cell(why)} |")
    if len(unrendered) > MAX_ITEMS:
        rows.append(f"\n… and {len(unrendered) - MAX_ITEMS} more.")
    return _details(f"{title} ({len(unrendered)})", rows, True)


def _made_by(planned: PlannedApplication) -> str:
    """`` (Application NAME (FILE:LINE), made by ...)``: the Argo CD Application an application is
    linted as, and what made it (a parent Application, an ApplicationSet, a chart or kustomization
    no Application here deploys); `` (no Application of this repository deploys it)``; or nothing."""
    if planned.application:
        made = f", made by {planned.generated_by}" if planned.generated_by else ""
        return f" (<code>{_html(planned.application + made)}</code>)"
    return " (no Application of this repository deploys it)" if planned.undeployed else ""


def _fit(top: list[str], body: list[str], diagrams: list[str]) -> str:
    """The report, cut to GitHub's comment limit, with no ``##[`` the runner would read as a
    command where repository text meets hooklint's own (:func:`hooklint.text.escape_commands`)."""
    return escape_line_commands(escape_commands(_fit_limit(top, body, diagrams)))


def _fit_limit(top: list[str], body: list[str], diagrams: list[str]) -> str:
    text = "\n".join(top + body + diagrams) + "\n"
    if len(text) <= LIMIT:
        return text
    text = "\n".join(top + body) + "\n\n_Sync diagrams left out: the comment would be longer than GitHub allows._\n"
    if len(text) <= LIMIT:
        return text
    cut = text[: LIMIT - 200].rsplit("\n", 1)[0]
    return cut + f"\n\n… cut here: {len(text) - len(cut):,} more characters (GitHub's comment limit); see the JSON report.\n"
