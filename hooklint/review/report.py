"""``hooklint diff`` as text, JSON and SARIF.

JSON: ``{"base", "head", "new": [finding (+ "not_covered")], "fixed": [finding], "no_longer_checked": [finding +
"reason"], "suppressed": [finding] (what the change suppresses), "unchanged": N, "plan_changes": [{"application", "added": [task + "step": {"phase",
"wave"}], "removed": [task], "moved": [{"task", "from": {"phase", "wave"}, "to": {"phase",
"wave"}}], "left": [{"task", "from": {"phase", "wave"}, "reason"}], "changed": [{"task", "field",
"from", "to"}]}], "not_compared": [application], "errors": [{"path", "message"}], "notes": [text]}``
(``notes``: what was not compared or was ignored, also on stderr: a configuration the change adds,
edits or deletes, a submodule), findings shaped as in
``hooklint lint -f json`` and tasks as in ``hooklint plan -f json``; ``head`` is null for the working
tree. ``not_covered`` is set on a new finding that a ``# hooklint: ignore`` comment the change did
not write hides (:attr:`hooklint.review.Review.not_covered`): ``Not covered by the comment
suppression at a.yaml:19: the base had no such finding under it; the comment was written for: HL105 The
container 'c' of Job/j adds capability NET_ADMIN, beyond the baseline set.``; the text prints it under
the finding, SARIF and Markdown after its message (:func:`said`). SARIF holds only the new findings. The text escapes control and bidirectional characters
from the repository (:func:`hooklint.text.escape_controls`); the JSON keeps values as they are,
its text free of raw control characters (:func:`hooklint.text.json_safe`).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from hooklint.catalog import Catalog
from hooklint.findings import Finding, RunResult
from hooklint.reporters import sarif
from hooklint.review import Review
from hooklint.text import escape_controls, escape_line_commands, json_safe


def task_text(task: dict[str, Any]) -> str:
    """``Kind/namespace/name`` (``generateName`` with a trailing ``*``)."""
    name = task["name"] or f"{task['generate_name'] or ''}*"
    return f"{task['kind']}/{task['namespace'] + '/' if task['namespace'] else ''}{name}"


def step_text(step: dict[str, Any]) -> str:
    return f"{step['phase']} wave {step['wave']}"


def render_json(review: Review) -> str:
    doc = {
        "base": review.base.revision,
        "head": review.head.revision,
        "new": [{**f.as_dict(), **({"not_covered": review.not_covered[id(f)]} if id(f) in review.not_covered else {})}
                for f in review.new],
        "fixed": [f.as_dict() for f in review.fixed],
        "no_longer_checked": [{**f.as_dict(), "reason": why} for f, why in review.no_longer_checked],
        "suppressed": [f.as_dict() for f in review.suppressed],
        "unchanged": review.unchanged,
        "plan_changes": review.plan_changes,
        "not_compared": review.not_compared,
        "not_fully_rendered": [{"application": p.key, "rendered": p.coverage.rendered,
                                "reasons": [r.words() for r in p.coverage.reasons]}
                               for p in review.head.plans if p.coverage.rendered != "full"],
        "errors": [{"path": e.path, "message": e.message} for e in review.errors],
        "notes": review.notes,
    }
    return json_safe(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n"


def diff_category(category: str) -> str:
    """The code scanning category of a review's SARIF: ``<category>/diff`` (``automationDetails.id``
    ``hooklint/diff/``), never lint's. An upload replaces the earlier upload of its category and
    closes every alert it does not hold; a review holds only the change's new findings, so under
    lint's category it would close every alert the change did not touch."""
    return category.strip().rstrip("/") + "/diff"


def said(review: Review, f: Finding) -> str:
    """What a review says of its new finding ``f``: its message, and, for one a comment the change
    did not write hides (:attr:`~hooklint.review.Review.not_covered`), why it is new anyway."""
    why = review.not_covered.get(id(f))
    return f"{f.message} {why}" if why else f.message


def sarif_result(review: Review) -> RunResult:
    """The run a review's SARIF reports: its new findings (each message as :func:`said` gives it),
    and the head's count of files."""
    return RunResult(findings=[dataclasses.replace(f, message=said(review, f)) for f in review.new],
                     files=review.head.result.files)  # fmt: skip


def render_sarif(review: Review, catalog: Catalog, category: str = "hooklint") -> str:
    """The new findings as SARIF, under :func:`diff_category` of ``category``."""
    return sarif.render(sarif_result(review), catalog, category=diff_category(category))


def headline(review: Review) -> str:
    """``2 new findings, 1 fixed, 14 unchanged; plan changes in 1 application`` (with ``, 1 no
    longer checked`` after the fixed ones when there are such)."""
    changed = len(review.plan_changes)
    plan = f"plan changes in {changed} application{'s' if changed != 1 else ''}" if changed else "no plan change"
    new = len(review.new)
    unchecked = f", {len(review.no_longer_checked)} no longer checked" if review.no_longer_checked else ""
    unchecked += f", {len(review.suppressed)} suppressed by the change" if review.suppressed else ""
    text = (f"{new} new finding{'s' if new != 1 else ''}, {len(review.fixed)} fixed{unchecked}, "
            f"{review.unchanged} unchanged; {plan}")  # fmt: skip
    if review.not_compared:
        n = len(review.not_compared)
        text += f"; {n} application{'s' if n != 1 else ''} not compared (not rendered on one side)"
    return text


def render_text(review: Review) -> str:
    head = review.head.revision or "the working tree"
    lines = [f"hooklint diff {review.base.revision} -> {head}: {headline(review)}"]
    for title, findings in (("New findings", review.new), ("Fixed findings", review.fixed)):
        if findings:
            lines += ["", f"{title}:"]
            for f in findings:
                lines.append(f"  {f.path}:{f.span.line}:{f.span.column}: {f.severity} {f.rule_id} {f.slug}: {f.message}")
                lines += [f"    {review.not_covered[id(f)]}"] if id(f) in review.not_covered else []
    if review.suppressed:
        lines += ["", "Suppressed by the change (not fixed: the change hides them; review the reason):"]
        lines += [f"  {f.path}:{f.span.line}:{f.span.column}: {f.severity} {f.rule_id} {f.slug}: {f.message} "
                  f"[suppressed by {f.suppression.kind if f.suppression else '?'}: "
                  f"{(f.suppression.reason if f.suppression else None) or 'no reason'}]" for f in review.suppressed]  # fmt: skip
    if review.no_longer_checked:
        lines += ["", "No longer checked (not fixed: their object left the rule's scope):"]
        for f, why in review.no_longer_checked:
            lines += [f"  {f.path}:{f.span.line}:{f.span.column}: {f.severity} {f.rule_id} {f.slug}: {f.message}",
                      f"    {why}"]  # fmt: skip
    for change in review.plan_changes:
        lines += ["", f"Plan of {change['application']}:"]
        lines += [f"  added    {task_text(t)}: {step_text(t['step'])}" for t in change["added"]]
        lines += [f"  removed  {task_text(t)}" for t in change["removed"]]
        lines += [f"  moved    {task_text(m['task'])}: {step_text(m['from'])} -> {step_text(m['to'])}" for m in change["moved"]]
        lines += [f"  left     {task_text(m['task'])}: {step_text(m['from'])} -> not applied ({m['reason']})"
                  for m in change["left"]]  # fmt: skip
        lines += [f"  changed  {task_text(c['task'])}: {c['field']} {','.join(c['from']) or '-'} -> "
                  f"{','.join(c['to']) or '-'}" for c in change["changed"]]  # fmt: skip
    if review.not_compared:
        lines += ["", "Not compared (rendered on one side only; lint each side to see why):"]
        lines += [f"  {key}" for key in review.not_compared]
    unrendered = [p for p in review.head.plans if p.coverage.rendered != "full"]
    if unrendered:  # issue 33: what of the head hooklint did not check, named in every review
        lines += ["", "Not fully rendered after the change (what they add was not checked):"]
        lines += [f"  {p.key}: rendered {p.coverage.rendered}: {'; '.join(r.words() for r in p.coverage.reasons)}"
                  for p in unrendered]  # fmt: skip
    if review.notes:
        lines += ["", "Notes:", *(f"  {note}" for note in review.notes)]
    return escape_line_commands("\n".join(escape_controls(line) for line in lines) + "\n")
