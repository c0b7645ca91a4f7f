"""The engine: the checks of one application, stamped as findings, suppressed and sorted.

The engine is handed an application's loaded files, manifests and sync plan (by
:mod:`hooklint.pipeline`) and runs the enabled checks of :mod:`hooklint.checks` on them: file
checks on each reported file, object checks on each reported manifest (only those registered for
its kind), application checks once. Checks yield hits; the engine stamps each with its rule's id,
slug and severity, the file, the object and its hook, and fills in the object's anchor when a
check gives no span. Then it applies each object's ``hooklint.io/ignore`` suppressions and
reports the entries that suppressed nothing (HL901).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Iterator

from hooklint.catalog import Catalog, Rule
from hooklint.checks import REGISTRY, Check, Context, Hit, load_all
from hooklint.config import DEFAULT_MAX_FILE_SIZE, Config, ConfigError
from hooklint.findings import Finding, Span, Suppression
from hooklint.files import read_bytes
from hooklint.loader import LoadedFile, ignore_comments
from hooklint.model import Manifest
from hooklint.plan import SyncPlan
from hooklint.sources import LoadedApplication
from hooklint.sources.discovery import inside_repository
from hooklint.yamlio import shown

SUPPRESS_ANNOTATION = "hooklint.io/ignore"
#: The rule of a suppression entry that suppressed nothing; the engine reports it itself.
UNUSED_SUPPRESSION = "HL901"
#: The rule of a suppression entry without a reason (it still applies).
MISSING_REASON = "HL902"


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


def parse_suppressions(m: Manifest, catalog: Catalog) -> dict[str, str]:
    """``{written name: rule id}`` of an object's ``hooklint.io/ignore`` annotation (see
    :func:`suppression_entries`)."""
    return {name: rule_id for name, rule_id, _ in suppression_entries(m, catalog)}


class Engine:
    """Runs the enabled checks of a :class:`Catalog` under a :class:`Config`: ``select`` minus
    ``ignore`` (and ``disable``), with ``severity`` overrides. Raises :class:`ConfigError` when one
    of them names no rule."""

    def __init__(self, config: Config, catalog: Catalog):
        self.config = config
        self.catalog = catalog
        load_all()
        if config.select is not None:
            chosen = set().union(*(self._rules("select", i, n) for i, n in enumerate(config.select)))
            if not chosen:
                raise ConfigError(f"{self._label('select')} names no rule, so nothing would be checked: "
                                  "leave it out to run every rule")  # fmt: skip
        else:
            chosen = set(catalog.rules)
        for key, names in (("ignore", config.ignore), ("disable", config.disable)):
            for i, name in enumerate(names):
                chosen -= self._rules(key, i, name)
        if not chosen:
            key = "ignore" if config.ignore or not config.disable else "disable"
            raise ConfigError(f"{self._label(key)} leaves no rule to run, so nothing would be checked")
        self.enabled = chosen
        #: rule id -> severity, from the ``severity`` overrides (a later, more specific name wins)
        self.severity: dict[str, str] = {}
        for name, level in sorted(config.severity.items(), key=lambda kv: len(kv[0])):
            for rule_id in self._rules("severity", name, name):
                self.severity[rule_id] = level
        self.path_ignores = [
            (matcher, set().union(*(self._rules("per-path-ignores", matcher.patterns[0], n) for n in names)))
            for matcher, names in config.per_path_ignores
        ]
        checks = [c for rid, cs in sorted(REGISTRY.items()) if rid in self.enabled for c in cs]
        self.file_checks = [c for c in checks if c.scope == "file"]
        self.object_checks = [c for c in checks if c.scope == "object"]
        self.app_checks = [c for c in checks if c.scope == "application"]
        self._by_kind: dict[tuple[str | None, bool], list[tuple[Check, Rule]]] = {}

    def _label(self, key: str, *sub: object) -> str:
        """``--select``, or ``file:line: 'select'``: where ``key`` was set, for a message."""
        where = self.config.at(key, *sub)
        return where if where.startswith("--") else f"{where}: '{key}'"

    def _rules(self, key: str, sub: object, name: str) -> set[str]:
        """The rule ids ``name`` stands for: an id (any case), a slug, or an id prefix (``HL1``,
        ``HL20``). Raises :class:`ConfigError` naming ``key`` and its line for anything else."""
        rule = self.catalog.resolve(name)
        if rule is not None:
            return {rule.id}
        upper = name.upper()
        if re.fullmatch(r"HL\d{0,2}", upper):
            found = {rid for rid in self.catalog.rules if rid.startswith(upper)}
            if found:
                return found
        raise ConfigError(f"{self._label(key, sub)} names unknown rule {name!r} (a rule id, slug or id prefix such as HL1)")

    def reports(self, finding: Finding) -> bool:
        """Whether ``finding`` is on a path the configuration reports it on (``exclude`` and
        ``per-path-ignores``)."""
        if self.config.exclude(finding.path):
            return False
        return not any(finding.rule_id in ids and matcher(finding.path) for matcher, ids in self.path_ignores)

    def notices(self) -> list[str]:
        """One-line notes the text report prints once (rules that cannot run as configured)."""
        out = []
        if "HL101" in self.enabled and not self.config.registry_entries:
            out.append(
                "HL101 (hook-image-registry-not-allowed) is inactive: set allowed-registries in "
                ".hooklint.yaml to check where hook images come from."
            )
        return out

    def _checks_for(self, m: Manifest) -> list[tuple[Check, Rule]]:
        """The object checks that can report on ``m``, picked once per (kind, annotated)."""
        annotated = m.metadata is not None and "annotations" in m.metadata
        key = (m.kind, annotated)
        found = self._by_kind.get(key)
        if found is None:
            found = self._by_kind[key] = [
                (c, self.catalog.rules[c.rule_id]) for c in self.object_checks if c.applies_to(m.kind, annotated)
            ]
        return found

    def _finding(self, rule: Rule, hit: Hit, m: Manifest) -> Finding:
        path, span = m.locate(hit.field_path, hit.span or m.anchor)
        return Finding(
            rule_id=rule.id,
            slug=rule.slug,
            severity=self.severity.get(rule.id, rule.severity),
            message=shown(hit.message, None),
            path=path,
            span=span,
            obj=m.ref,
            hook=m.hook_ref,
            field_path=hit.field_path,
            doc_index=m.doc_index,
        )

    def _file_findings(self, file: LoadedFile, owners: dict[tuple[str, int], Manifest | None], ctx: Context) -> Iterator[tuple[Finding, Manifest | None]]:
        """File-check findings of ``file``, each with the manifest that owns its document (None for
        a document of several objects, or of none)."""
        docs = {d.index: d for d in file.documents}
        for c in self.file_checks:
            rule = self.catalog.rules[c.rule_id]
            for hit in c.fn(file, ctx):
                doc = docs.get(hit.doc_index) if hit.doc_index is not None else None
                owner = owners.get((file.path, hit.doc_index)) if hit.doc_index is not None else None
                span = hit.span if hit.span is not None else (doc.span if doc is not None else None)
                assert span is not None, f"{c.rule_id}: a file check's hit outside a document gives its span"
                yield Finding(
                    rule.id, rule.slug, self.severity.get(rule.id, rule.severity), shown(hit.message, None),
                    hit.path or (doc.source or file.path if doc is not None else file.path),
                    span.in_template(doc.source_line if doc is not None else 0),
                    owner.ref if owner is not None else None, None, hit.field_path,
                    hit.doc_index if hit.doc_index is not None else 0,
                ), owner  # fmt: skip

    def check_application(self, loaded: LoadedApplication, manifests: list[Manifest], plan: SyncPlan) -> Iterator[Finding]:
        """Findings for the reported files of one application (its ``manifests`` and sync ``plan``
        built by the earlier stages), after suppressions, in file, document and check order (the
        pipeline sorts them)."""
        reported = set(loaded.app.reported)
        ctx = Context.build(self.config, manifests, plan, partial=loaded.coverage.rendered == "partial")
        by_manifest: dict[int, list[Finding]] = {}
        owners: dict[tuple[str, int], Manifest | None] = {}
        for m in manifests:
            if m.path in reported:
                by_manifest[id(m)] = []
                key = (m.path, m.doc_index)
                # a kind: List document has several objects: its file findings stay unsuppressible
                owners[key] = m if key not in owners else None
        unowned: list[Finding] = []
        for file in loaded.files:
            if file.path in reported and file.error is None and file.skip_reason is None:
                for finding, owner in self._file_findings(file, owners, ctx):
                    if owner is None:
                        unowned.append(finding)
                    else:
                        by_manifest[id(owner)].append(finding)
        for m in manifests:
            if m.path not in reported:
                continue
            found = by_manifest[id(m)]
            for c, rule in self._checks_for(m):
                for hit in c.fn(m, ctx):
                    found.append(self._finding(rule, hit, m))
        for c in self.app_checks:
            rule = self.catalog.rules[c.rule_id]
            for hit in c.fn(manifests, ctx):
                m = hit.manifest
                if m is not None and m.path in reported:
                    by_manifest[id(m)].append(self._finding(rule, hit, m))
        out: list[Finding] = list(unowned)
        for m in manifests:
            if m.path in reported:
                out.extend(self._suppress(m, by_manifest[id(m)]))
        if loaded.rendered is None:
            comments = {f.path: f.ignore_comments for f in loaded.files if f.path in reported and f.ignore_comments}
            yield from self._suppress_by_comment(out, comments) if comments else out
            return
        # a rendered source: its findings lie in the user's files (bases, templates), whose comments
        # apply; whether one suppressed nothing is not said, since another overlay may need it
        comments = {}
        read = {f.path: f.ignore_comments for f in loaded.files}  # a file out of the repository has none
        for path in sorted({f.path for f in out}):
            written = read[path] if path in read else _comments_of(path)
            if written:
                comments[path] = written
        yield from self._suppress_by_comment(out, comments, report_unused=False) if comments else out

    def _suppress_by_comment(self, findings: list[Finding], comments: dict[str, list],
                             report_unused: bool = True) -> Iterator[Finding]:  # fmt: skip
        """Mark the findings a ``# hooklint: ignore[...]`` comment names, on their line or alone on
        the line above; then report comment names that suppressed nothing or name no rule (HL901;
        with ``report_unused`` only) and comments without a reason (HL902)."""
        used: set[tuple[str, int, str]] = set()
        for finding in findings:
            if finding.suppression is None:
                for line, _, names, reason, alone in comments.get(finding.path, ()):
                    if line == finding.span.line or (alone and line == finding.span.line - 1):
                        hit = next((n for n in names if self._rule_id(n) == finding.rule_id), None)
                        if hit is not None:
                            used.add((finding.path, line, hit))
                            finding = dataclasses.replace(finding, suppression=Suppression("comment", reason))
                            break
            yield finding
        for path, entries in sorted(comments.items()):
            for line, column, names, reason, _ in entries:
                span = Span.point(line, column)
                written = f"hooklint: ignore[{', '.join(names)}]"
                for name in dict.fromkeys(names) if report_unused else ():
                    problem = self._stale(name, self._rule_id(name), (path, line, name) in used)
                    if problem is not None and UNUSED_SUPPRESSION in self.enabled:
                        yield self._engine_finding(UNUSED_SUPPRESSION, f"Comment '{written}' entry '{name}' {problem}.", path, span)
                if reason is None and MISSING_REASON in self.enabled and any(self.catalog.resolve(n) for n in names):
                    yield self._engine_finding(MISSING_REASON, (
                        f"Comment '{written}' gives no reason: write why the finding is accepted after the ']' "
                        f"(\"# {written} reason\"). The suppression still applies."), path, span)  # fmt: skip

    def _rule_id(self, name: str) -> str:
        rule = self.catalog.resolve(name)
        return rule.id if rule else name.upper()

    def _stale(self, name: str, rule_id: str, used: bool) -> str | None:
        """Why a suppression entry is reported (HL901), or None when it did its job."""
        if used:
            return None
        if self.catalog.resolve(name) is None:
            return (
                "names no hooklint rule: write rule ids or slugs, separated by commas, with an "
                "optional ': reason', and entries separated by ';'"
            )
        if rule_id not in self.enabled:
            return f"names {rule_id}, which the configuration disables: remove the entry"
        return "suppressed nothing: a stale suppression hides the next real finding. Remove the entry"

    def engine_finding(self, rule_id: str, message: str, path: str, span: Span) -> Finding:
        """A finding of rule ``rule_id`` that no check made (the engine's own, or the pipeline's
        for an application it failed on), with the configured severity."""
        return self._engine_finding(rule_id, message, path, span)

    def _engine_finding(self, rule_id: str, message: str, path: str, span: Span) -> Finding:
        rule = self.catalog.rules[rule_id]
        return Finding(rule.id, rule.slug, self.severity.get(rule.id, rule.severity), shown(message, None), path, span)

    def _suppress(self, m: Manifest, findings: list[Finding]) -> Iterator[Finding]:
        """Mark the findings an object's ``hooklint.io/ignore`` annotation names (by rule id or
        slug) as suppressed; report entries that suppressed nothing, name no rule, or name a
        disabled rule (HL901), and entries without a reason (HL902)."""
        entries = suppression_entries(m, self.catalog)
        if not entries:
            yield from findings
            return
        reasons: dict[str, str | None] = {}
        for _, rule_id, reason in entries:
            if reasons.get(rule_id) is None:
                reasons[rule_id] = reason
        used: set[str] = set()
        for finding in findings:
            if finding.rule_id in reasons:
                used.add(finding.rule_id)
                yield dataclasses.replace(finding, suppression=Suppression("annotation", reasons[finding.rule_id]))
            else:
                yield finding
        span = m.annotation_value_span(SUPPRESS_ANNOTATION)
        field = f"metadata.annotations.{SUPPRESS_ANNOTATION}"
        if UNUSED_SUPPRESSION in self.enabled:
            rule = self.catalog.rules[UNUSED_SUPPRESSION]
            for name, rule_id in {name: rule_id for name, rule_id, _ in entries}.items():
                problem = self._stale(name, rule_id, rule_id in used)
                if problem is not None:
                    yield self._finding(rule, Hit(f"{SUPPRESS_ANNOTATION} entry '{name}' on {m.label} {problem}.", span, field), m)
        if MISSING_REASON in self.enabled:
            rule = self.catalog.rules[MISSING_REASON]
            for name in dict.fromkeys(name for name, _, reason in entries if reason is None and self.catalog.resolve(name)):
                yield self._finding(rule, Hit(
                    f"{SUPPRESS_ANNOTATION} entry '{name}' on {m.label} gives no reason: write why the finding is "
                    f"accepted after a ':' (\"{name}: reason\"). The suppression still applies.", span, field), m)  # fmt: skip


def _comments_of(path: str) -> list:
    """The ``# hooklint: ignore[...]`` comments of the user's file ``path`` (none when unreadable,
    and none, never opened, when it resolves outside its repository: a finding may sit at a link
    out, such as HL007 at a chart file that is one)."""
    if not inside_repository(path, path):
        return []
    try:
        return ignore_comments(read_bytes(path, DEFAULT_MAX_FILE_SIZE).decode("utf-8"))
    except (OSError, UnicodeDecodeError):
        return []
