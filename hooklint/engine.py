"""The engine: the checks of one application, stamped as findings.

The engine is handed an application's loaded files, manifests and sync plan (by
:mod:`hooklint.pipeline`) and runs the enabled checks of :mod:`hooklint.checks` on them: file
checks on each reported file, object checks on each reported manifest (only those registered for
its kind), application checks once. Checks yield hits; the engine stamps each with its rule's id,
slug and severity, the file, the object and its hook, and fills in the object's anchor when a
check gives no span. The findings come back grouped by the object that owns them
(:class:`Checked`), for the next stage, :mod:`hooklint.suppression`, to mark what the user accepted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator

from hooklint import deadline
from hooklint.catalog import Catalog, Rule
from hooklint.checks import REGISTRY, Check, Context, Hit, load_all
from hooklint.config import Config, ConfigError
from hooklint.findings import Finding, Span
from hooklint.loader import LoadedFile
from hooklint.model import Manifest
from hooklint.plan import SyncPlan
from hooklint.sources.load import LoadedApplication
from hooklint.yamlio import shown

@dataclass(slots=True)
class Checked:
    """The findings of one application's reported files, before suppression: ``unowned``, the file
    findings of a document no single object owns (a ``kind: List`` document, or none), which no
    annotation can suppress; ``objects``, each reported manifest with its findings, in manifest
    order; ``involved``, each manifest of a file not reported (context) with the application-check
    findings that land on it and involve an object of a reported file (:attr:`Hit.involves`)."""

    unowned: list[Finding] = field(default_factory=list)
    objects: list[tuple[Manifest, list[Finding]]] = field(default_factory=list)
    involved: list[tuple[Manifest, list[Finding]]] = field(default_factory=list)


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
        close = self.catalog.suggest(name)
        hint = f"; did you mean {close!r}?" if close else ""
        raise ConfigError(f"{self._label(key, sub)} names unknown rule {name!r}{hint} (a rule id, slug or id prefix "
                          "such as HL1)")  # fmt: skip

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

    def finding(self, rule: Rule, hit: Hit, m: Manifest) -> Finding:
        """The finding of ``rule`` that ``hit`` makes on ``m``: placed in the user's file
        (:meth:`hooklint.model.Manifest.locate`; the object's anchor when the hit gives no span),
        with the configured severity (else the hit's own, else the rule's), the object and its hook."""
        path, span = m.locate(hit.field_path, hit.span or m.anchor)
        return Finding(
            rule_id=rule.id,
            slug=rule.slug,
            severity=self.severity.get(rule.id, hit.severity or rule.severity),
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
                    rule.id, rule.slug, self.severity.get(rule.id, hit.severity or rule.severity), shown(hit.message, None),
                    hit.path or (doc.source or file.path if doc is not None else file.path),
                    span.in_template(doc.source_line if doc is not None else 0),
                    owner.ref if owner is not None else None, None, hit.field_path,
                    hit.doc_index if hit.doc_index is not None else 0,
                ), owner  # fmt: skip

    def check_application(self, loaded: LoadedApplication, manifests: list[Manifest], plan: SyncPlan) -> Checked:
        """The findings for the reported files of one application (its ``manifests`` and sync
        ``plan`` built by the earlier stages), in file, document and check order, grouped by the
        object that owns each (:class:`Checked`); nothing is suppressed yet."""
        reported = set(loaded.app.reported)
        ctx = Context.build(self.config, manifests, plan, partial=loaded.coverage.rendered == "partial",
                            host_path_volumes=loaded.app.host_path_volumes, volume_claims=loaded.app.volume_claims,
                            written_subjects=loaded.app.written_subjects,
                            component_alone=loaded.component_alone)
        by_manifest: dict[int, list[Finding]] = {}
        owners: dict[tuple[str, int], Manifest | None] = {}
        out = Checked()
        for m in manifests:
            if m.path in reported:
                by_manifest[id(m)] = []
                out.objects.append((m, by_manifest[id(m)]))
                key = (m.path, m.doc_index)
                # a kind: List document has several objects: its file findings stay unsuppressible
                owners[key] = m if key not in owners else None
        for file in loaded.files:
            if file.path in reported and file.error is None and file.skip_reason is None:
                for finding, owner in self._file_findings(file, owners, ctx):
                    if owner is None:
                        out.unowned.append(finding)
                    else:
                        by_manifest[id(owner)].append(finding)
        for m, found in out.objects:
            deadline.check()  # the run's deadline holds within an application of many objects too
            for c, rule in self._checks_for(m):
                for hit in c.fn(m, ctx):
                    found.append(self.finding(rule, hit, m))
        for c in self.app_checks:
            deadline.check()
            rule = self.catalog.rules[c.rule_id]
            for hit in c.fn(manifests, ctx):
                m = hit.manifest
                if m is not None and m.path in reported:
                    by_manifest[id(m)].append(self.finding(rule, hit, m))
                elif m is not None and any(other.path in reported for other in hit.involves):
                    # a named file's object caused it (pre-commit: sa.yaml moved out of PreSync makes
                    # the unchanged job.yaml's Job use it too late): reported where it lands
                    if id(m) not in by_manifest:
                        by_manifest[id(m)] = []
                        out.involved.append((m, by_manifest[id(m)]))
                    by_manifest[id(m)].append(self.finding(rule, hit, m))
        return out

    def engine_finding(self, rule_id: str, message: str, path: str, span: Span) -> Finding:
        """A finding of rule ``rule_id`` that no check made (the suppression stage's, or the
        pipeline's for an application it failed on), with the configured severity."""
        rule = self.catalog.rules[rule_id]
        return Finding(rule.id, rule.slug, self.severity.get(rule.id, rule.severity), shown(message, None), path, span)
