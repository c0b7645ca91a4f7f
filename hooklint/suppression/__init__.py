"""Suppression: the stage between the checks and the reports that marks the findings a user has
accepted, and says which of those acceptances are stale.

A finding is suppressed three ways, each recorded on it as a :class:`~hooklint.findings.Suppression`
(reports that keep suppressed findings show which): an object's ``hooklint.io/ignore`` annotation
(:func:`by_annotation`), a ``# hooklint: ignore[...]`` comment on the finding's line or alone on the
line above (:func:`by_comment`), and the baseline of today's findings
(:mod:`hooklint.suppression.baseline`, applied to the whole run). An annotation or comment entry that
suppressed nothing, names no rule or names a disabled rule is itself a finding (HL901), and one
without a reason too (HL902).

The comments come from the sources stage: each read file's ``ignore_comments``, and for a rendered
source the comments of the user's files its objects are placed in
(:attr:`hooklint.sources.load.LoadedApplication.comments`). Nothing here opens a file but the baseline
the user names.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Iterator

from hooklint.findings import Finding, Span, Suppression

if TYPE_CHECKING:
    from hooklint.catalog import Catalog
    from hooklint.model import Manifest
    from hooklint.engine import Checked, Engine
    from hooklint.sources.load import LoadedApplication

SUPPRESS_ANNOTATION = "hooklint.io/ignore"
#: The rule of a suppression entry that suppressed nothing; this stage reports it itself.
UNUSED_SUPPRESSION = "HL901"
#: The rule of a suppression entry without a reason (it still applies).
MISSING_REASON = "HL902"


class BaselineError(Exception):
    """A baseline (:mod:`hooklint.suppression.baseline`) that cannot be read or written; the
    message is one line naming the file."""


def suppression_entries(m: Manifest, catalog: Catalog) -> list[tuple[str, str, str | None]]:
    """``hooklint.io/ignore: "HL103, hook-automounts-token: reason; HL201: other reason"``: rule ids
    or slugs, with an optional reason after ``:``, entries separated by ``;``. Returns ``(written
    name, rule id, reason or None)`` in the order written (the rule id is the upper-cased name
    when no rule matches)."""
    raw = m.metadata.get("annotations") if m.metadata is not None else None
    value = raw.get(SUPPRESS_ANNOTATION) if isinstance(raw, dict) else None
    if not isinstance(value, str):
        return []
    out = []
    for entry in value.split(";"):
        names, _, reason = entry.partition(":")
        for name in names.replace(",", " ").split():
            rule = catalog.resolve(name)
            out.append((name, rule.id if rule else name.upper(), reason.strip() or None))
    return out


def suppress(engine: Engine, loaded: LoadedApplication, checked: Checked) -> list[Finding]:
    """The findings of one application (``checked``, from :meth:`hooklint.engine.Engine.check_application`)
    with annotation and comment suppressions marked, and the HL901/HL902 findings of the entries:
    the file findings no single object owns first, then each object's findings after its
    annotation, then the comments' own findings. For a rendered source (kustomize, Helm) the
    findings lie in the user's files (bases, templates), whose comments apply; whether a comment
    there suppressed nothing is not said, since another overlay may need it.

    The findings that land in a file not reported (``checked.involved``: they involve an object of a
    reported file) are suppressed by their object's annotation and their file's comments as in a
    whole run, but whether those suppressed nothing is not said: that file's other findings were not
    computed."""
    out: list[Finding] = list(checked.unowned)
    for m, found in checked.objects:
        out.extend(by_annotation(engine, m, found))
    involved: list[Finding] = []
    for m, found in checked.involved:
        involved.extend(by_annotation(engine, m, found, audit=False))
    if loaded.rendered is None:
        reported = set(loaded.app.reported)
        comments = {f.path: f.ignore_comments for f in loaded.files if f.path in reported and f.ignore_comments}
        out = list(by_comment(engine, out, comments)) if comments else out
        if involved:
            others = {f.path: f.ignore_comments for f in loaded.files
                      if f.path not in reported and f.ignore_comments}  # fmt: skip
            out += list(by_comment(engine, involved, others, report_unused=False, audit=False)) if others else involved
        return out
    out += involved
    read = {f.path: f.ignore_comments for f in loaded.files}
    comments = {}
    for path in sorted({f.path for f in out}):
        written = read[path] if path in read else loaded.comments.get(path)
        if written:
            comments[path] = written
    return list(by_comment(engine, out, comments, report_unused=False)) if comments else out


def by_comment(engine: Engine, findings: list[Finding], comments: dict[str, list],
               report_unused: bool = True, audit: bool = True) -> Iterator[Finding]:  # fmt: skip
    """Mark the findings a ``# hooklint: ignore[...]`` comment names (``comments``: path -> the
    file's :func:`~hooklint.loader.ignore_comments`), on their line or alone on the line above;
    then report comment names that suppressed nothing or name no rule (HL901; with
    ``report_unused`` only) and comments without a reason (HL902; with ``audit`` only)."""
    used: set[tuple[str, int, str]] = set()
    for finding in findings:
        if finding.suppression is None:
            for line, _, names, reason, alone in comments.get(finding.path, ()):
                if line == finding.span.line or (alone and line == finding.span.line - 1):
                    hit = next((n for n in names if _rule_id(engine.catalog, n) == finding.rule_id), None)
                    if hit is not None:
                        used.add((finding.path, line, hit))
                        finding = dataclasses.replace(finding, suppression=Suppression("comment", reason, line, tuple(names)))
                        break
        yield finding
    for path, entries in sorted(comments.items()):
        for line, column, names, reason, _ in entries:
            span = Span.point(line, column)
            written = f"hooklint: ignore[{', '.join(names)}]"
            for name in dict.fromkeys(names) if report_unused else ():
                problem = _stale(engine, name, _rule_id(engine.catalog, name), (path, line, name) in used)
                if problem is not None and UNUSED_SUPPRESSION in engine.enabled:
                    yield engine.engine_finding(UNUSED_SUPPRESSION, f"Comment '{written}' entry '{name}' {problem}.", path, span)
            if audit and reason is None and MISSING_REASON in engine.enabled and any(engine.catalog.resolve(n) for n in names):
                yield engine.engine_finding(MISSING_REASON, (
                    f"Comment '{written}' gives no reason: write why the finding is accepted after the ']' "
                    f"(\"# {written} reason\"). The suppression still applies."), path, span)  # fmt: skip


def by_annotation(engine: Engine, m: Manifest, findings: list[Finding], audit: bool = True) -> Iterator[Finding]:
    """Mark the findings of ``m`` its ``hooklint.io/ignore`` annotation names (by rule id or slug)
    as suppressed; with ``audit`` (``m``'s findings are all here), report entries that suppressed
    nothing, name no rule, or name a disabled rule (HL901), and entries without a reason (HL902),
    at the annotation's value."""
    entries = suppression_entries(m, engine.catalog)
    if not entries:
        yield from findings
        return
    reasons: dict[str, str | None] = {}
    written: dict[str, tuple[str, ...]] = {}
    for name, rule_id, reason in entries:
        if reasons.get(rule_id) is None:
            reasons[rule_id] = reason
        written[rule_id] = (*written.get(rule_id, ()), name)
    span = m.annotation_value_span(SUPPRESS_ANNOTATION)
    used: set[str] = set()
    for finding in findings:
        if finding.rule_id in reasons:
            used.add(finding.rule_id)
            how = Suppression("annotation", reasons[finding.rule_id], span.line, written[finding.rule_id])
            yield dataclasses.replace(finding, suppression=how)
        else:
            yield finding
    if not audit:
        return
    # the checks' package only here: a run the result cache holds whole imports this package for
    # BaselineError alone, and loads no check (hooklint.results.kept_run)
    from hooklint.checks import Hit  # noqa: PLC0415

    field = f"metadata.annotations.{SUPPRESS_ANNOTATION}"
    if UNUSED_SUPPRESSION in engine.enabled:
        rule = engine.catalog.rules[UNUSED_SUPPRESSION]
        for name, rule_id in {name: rule_id for name, rule_id, _ in entries}.items():
            problem = _stale(engine, name, rule_id, rule_id in used)
            if problem is not None:
                yield engine.finding(rule, Hit(f"{SUPPRESS_ANNOTATION} entry '{name}' on {m.label} {problem}.", span, field), m)
    if MISSING_REASON in engine.enabled:
        rule = engine.catalog.rules[MISSING_REASON]
        for name in dict.fromkeys(name for name, _, reason in entries if reason is None and engine.catalog.resolve(name)):
            yield engine.finding(rule, Hit(
                f"{SUPPRESS_ANNOTATION} entry '{name}' on {m.label} gives no reason: write why the finding is "
                f"accepted after a ':' (\"{name}: reason\"). The suppression still applies.", span, field), m)  # fmt: skip


def _rule_id(catalog: Catalog, name: str) -> str:
    rule = catalog.resolve(name)
    return rule.id if rule else name.upper()


def _stale(engine: Engine, name: str, rule_id: str, used: bool) -> str | None:
    """Why a suppression entry is reported (HL901), or None when it did its job."""
    if used:
        return None
    if engine.catalog.resolve(name) is None:
        return (
            "names no hooklint rule: write rule ids or slugs, separated by commas, with an "
            "optional ': reason', and entries separated by ';'"
        )
    if rule_id not in engine.enabled:
        return f"names {rule_id}, which the configuration disables: remove the entry"
    return "suppressed nothing: a stale suppression hides the next real finding. Remove the entry"
