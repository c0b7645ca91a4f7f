"""The engine: applications -> manifests -> checks -> findings, sorted.

One application (a folder's manifests, or stdin) is loaded, checked and released at a time, so
memory follows the largest application, not the tree. Checks yield hits; the engine stamps each
with its rule's id, slug and severity, the file, the object and its hook, and fills in the object's
anchor when a check gives no span.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterable, Iterator

from hooklint.catalog import Catalog, Rule
from hooklint.checks import REGISTRY, Context, Hit, load_all
from hooklint.checks.shape import type_name
from hooklint.config import Config
from hooklint.findings import Finding, InputError, RunResult
from hooklint.loader import STDIN, Application, LoadedFile, group_applications, read_file
from hooklint.model import Manifest, manifests_from_document
from hooklint.yamlio import shown


@dataclass(slots=True)
class LoadedApplication:
    """An application's files, its manifests, and which files are reported."""

    app: Application
    files: list[LoadedFile]
    manifests: list[Manifest]


def load_application(app: Application, config: Config) -> LoadedApplication:
    """Read every file of ``app`` (reported and context) and build its manifests."""
    files = [read_file(path, config.max_file_size) for path in app.reported + app.context]
    mark_kustomize_inputs(files)
    return LoadedApplication(app, files, manifests_of(files))


KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


def mark_kustomize_inputs(files: list[LoadedFile]) -> None:
    """In a folder with a kustomization file, Argo CD runs kustomize, which renders only the files
    listed under ``resources``: mark every other file of the folder (patches, generator inputs) as
    not rendered (``skipped``). The kustomization stays, so that rules know the folder is a
    kustomize build (HL003 leaves it alone; the plan lists it as not applied)."""
    by_path = {os.path.normpath(f.path): f for f in files}
    for loaded in files:
        if os.path.basename(loaded.path) not in KUSTOMIZATION_NAMES or not loaded.documents:
            continue
        config = loaded.documents[0].value
        resources = config.get("resources") if isinstance(config, dict) else None
        folder = os.path.dirname(loaded.path)
        listed = {
            os.path.normpath(os.path.join(folder, r))
            for r in (resources if isinstance(resources, list) else [])
            if isinstance(r, str)
        }
        for path, other in by_path.items():
            if other is not loaded and os.path.dirname(path) == os.path.normpath(folder) and path not in listed:
                other.skipped = True


def ignored_by_argocd(loaded: LoadedFile) -> bool:
    """True when Argo CD's directory source never renders the file: it carries the
    ``+argocd:skip-file-rendering`` marker, or none of its documents is an object with a kind and
    its text lacks any of ``apiVersion:``, ``kind:``, ``metadata:`` ("it might be an unrelated YAML
    file which we will ignore", ``reposerver/repository/repository.go`` ``findManifests``)."""
    if loaded.skipped:
        return True
    if loaded.looks_like_manifest:
        return False
    return not any(isinstance(d.value, dict) and isinstance(d.value.get("kind"), str) for d in loaded.documents)


def manifests_of(files: list[LoadedFile]) -> list[Manifest]:
    """Every manifest of the loaded files Argo CD renders, in file and document order."""
    manifests: list[Manifest] = []
    for loaded in files:
        if ignored_by_argocd(loaded):
            continue
        for doc in loaded.documents:
            manifests.extend(manifests_from_document(loaded.path, doc.index, doc.value, doc.source, doc.source_line))
    return manifests


SUPPRESS_ANNOTATION = "hooklint.io/ignore"


def parse_suppressions(m: Manifest, catalog: Catalog) -> dict[str, str]:
    """``hooklint.io/ignore: "HL103, hook-automounts-token: reason; HL201: other reason"``: rule ids
    or slugs, with an optional reason after ``:``, entries separated by ``;``. Returns
    ``{written name: rule id}`` (the rule id is the upper-cased name when no rule matches)."""
    raw = m.metadata.get("annotations") if m.metadata is not None else None
    value = raw.get(SUPPRESS_ANNOTATION) if isinstance(raw, dict) else None
    if not isinstance(value, str):
        return {}
    out: dict[str, str] = {}
    for entry in value.split(";"):
        names = entry.split(":", 1)[0]
        for name in names.replace(",", " ").split():
            rule = catalog.resolve(name)
            out[name] = rule.id if rule else name.upper()
    return out


class Engine:
    """Runs the enabled checks of a :class:`Catalog` under a :class:`Config`."""

    def __init__(self, config: Config, catalog: Catalog):
        self.config = config
        self.catalog = catalog
        load_all()
        disabled = set()
        for name in config.disable:
            rule = catalog.resolve(name)
            if rule is None:
                from hooklint.config import ConfigError

                raise ConfigError(f"{config.path or 'configuration'}: 'disable' names unknown rule {name!r}")
            disabled.add(rule.id)
        self.enabled = {rid for rid in catalog.rules if rid not in disabled}
        self.object_checks = [c for rid, c in sorted(REGISTRY.items()) if rid in self.enabled and c.scope == "object"]
        self.app_checks = [c for rid, c in sorted(REGISTRY.items()) if rid in self.enabled and c.scope == "application"]

    def notices(self) -> list[str]:
        """One-line notes the text report prints once (rules that cannot run as configured)."""
        out = []
        if "HL101" in self.enabled and not self.config.registry_entries:
            out.append(
                "HL101 (hook-image-registry-not-allowed) is inactive: set allowed-registries in "
                ".hooklint.yaml to check where hook images come from."
            )
        return out

    def _finding(self, rule: Rule, hit: Hit, m: Manifest) -> Finding:
        return Finding(
            rule_id=rule.id,
            slug=rule.slug,
            severity=rule.severity,
            message=shown(hit.message, None),
            path=m.display_path,
            span=(hit.span or m.anchor).in_template(m.source_line),
            obj=m.ref,
            hook=m.hook_ref,
            field_path=hit.field_path,
            doc_index=m.doc_index,
        )

    def _load_findings(self, loaded: LoadedFile) -> Iterator[Finding]:
        docs = {d.index: d for d in loaded.documents}
        for issue, index in loaded.issues:
            if issue.rule_id not in self.enabled:
                continue
            rule = self.catalog.rules[issue.rule_id]
            doc = docs.get(index)
            path = doc.source if doc is not None and doc.source else loaded.path
            obj = None
            if doc is not None:
                ms = manifests_from_document(loaded.path, index, doc.value, doc.source, doc.source_line)
                obj = ms[0].ref if len(ms) == 1 else None
            yield Finding(rule.id, rule.slug, rule.severity, shown(issue.message, None), path, issue.span.in_template(doc.source_line if doc is not None else 0), obj,
                          None, issue.field_path, index)
        if "HL003" in self.enabled:
            rule = self.catalog.rules["HL003"]
            for doc in loaded.documents:
                yield from self._list_item_findings(rule, loaded, doc)
                if not isinstance(doc.value, dict):
                    yield Finding(
                        rule.id, rule.slug, rule.severity,
                        f"Document is {type_name(doc.value)}, not a Kubernetes object: Argo CD fails "
                        "to sync an application with a manifest it cannot decode. Make it an object "
                        "with apiVersion, kind and metadata, or move it out of the application's path.",
                        doc.source or loaded.path, doc.span.in_template(doc.source_line), None, None, "", doc.index,
                    )  # fmt: skip

    def _list_item_findings(self, rule: Rule, loaded: LoadedFile, doc) -> Iterator[Finding]:
        """HL003 for items of a ``kind: List`` that are not objects (the model drops them)."""
        value = doc.value
        if not isinstance(value, dict) or not str(value.get("kind", "")).endswith("List"):
            return
        items = value.get("items")
        if not isinstance(items, list):
            return
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                yield Finding(
                    rule.id, rule.slug, rule.severity,
                    f"Item {i} of this {value['kind']} is {type_name(item)}, not a Kubernetes object: "
                    "Argo CD fails to sync an application with a manifest it cannot decode. Make it "
                    "an object with apiVersion, kind and metadata.",
                    doc.source or loaded.path, items.item_spans[i].in_template(doc.source_line), None, None, f"items[{i}]", doc.index,
                )  # fmt: skip

    def check_application(self, loaded: LoadedApplication) -> Iterator[Finding]:
        """Findings for the reported files of one loaded application, after suppressions."""
        reported = set(loaded.app.reported)
        ctx = Context.build(self.config, loaded.manifests)
        by_manifest: dict[int, list[Finding]] = {}
        by_document: dict[tuple[str, int], Manifest] = {}
        for m in loaded.manifests:
            if m.path in reported:
                by_manifest[id(m)] = []
                key = (m.path, m.doc_index)
                # a kind: List document has several objects: its load findings stay unsuppressible
                by_document[key] = m if key not in by_document else None
        for file in loaded.files:
            if file.path in reported and file.error is None and not ignored_by_argocd(file):
                for finding in self._load_findings(file):
                    owner = by_document.get((file.path, finding.doc_index))
                    if owner is None:
                        yield finding
                    else:
                        by_manifest[id(owner)].append(finding)
        for m in loaded.manifests:
            if m.path not in reported:
                continue
            found = by_manifest[id(m)]
            for c in self.object_checks:
                rule = self.catalog.rules[c.rule_id]
                found.extend(self._finding(rule, hit, m) for hit in c.fn(m, ctx))
        for c in self.app_checks:
            rule = self.catalog.rules[c.rule_id]
            for hit in c.fn(loaded.manifests, ctx):
                m = hit.manifest
                if m is not None and m.path in reported:
                    by_manifest[id(m)].append(self._finding(rule, hit, m))
        for m in loaded.manifests:
            if m.path in reported:
                yield from self._suppress(m, by_manifest[id(m)])

    def _suppress(self, m: Manifest, findings: list[Finding]) -> Iterator[Finding]:
        """Drop the findings an object's ``hooklint.io/ignore`` annotation names (by rule id or
        slug); report entries that suppressed nothing, name no rule, or name a disabled rule
        (HL901)."""
        entries = parse_suppressions(m, self.catalog)
        if not entries:
            yield from findings
            return
        wanted = set(entries.values())
        used: set[str] = set()
        for finding in findings:
            if finding.rule_id in wanted:
                used.add(finding.rule_id)
            else:
                yield finding
        if "HL901" not in self.enabled:
            return
        rule = self.catalog.rules["HL901"]
        span = m.annotation_value_span(SUPPRESS_ANNOTATION)
        for name, rule_id in entries.items():
            if rule_id in used:
                continue
            if self.catalog.resolve(name) is None:
                problem = (
                    "names no hooklint rule: write rule ids or slugs, separated by commas, with an "
                    "optional ': reason', and entries separated by ';'"
                )
            elif rule_id not in self.enabled:
                problem = f"names {rule_id}, which the configuration disables: remove the entry"
            else:
                problem = "suppressed nothing: a stale suppression hides the next real finding. Remove the entry"
            yield self._finding(rule, Hit(
                f"{SUPPRESS_ANNOTATION} entry '{name}' on {m.label} {problem}.",
                span, f"metadata.annotations.{SUPPRESS_ANNOTATION}"), m)  # fmt: skip

    def lint_applications(self, apps: Iterable[Application]) -> RunResult:
        """Lint applications one after the other, in this process (see :func:`lint_paths` for the
        parallel form). Findings are in application order, unsorted."""
        result = RunResult()
        for app in apps:
            findings, errors, files, skipped = self._lint_one(app)
            result.errors.extend(errors)
            result.files += files
            result.skipped += skipped
            result.findings.extend(findings)
        return result

    def _lint_one(self, app: Application) -> tuple[list[Finding], list[InputError], int, int]:
        """Load, check and release one application: (findings, input errors, files linted, files
        skipped because Argo CD does not render them)."""
        loaded = load_application(app, self.config)
        reported = set(app.reported)
        errors = [f.error for f in loaded.files if f.error is not None and f.path in reported]
        skipped = sum(1 for f in loaded.files if f.path in reported and f.error is None and ignored_by_argocd(f))
        return list(self.check_application(loaded)), errors, len(app.reported) - skipped, skipped


#: Below this many files a run stays in one process: starting workers costs more than it saves.
PARALLEL_MIN_FILES = 64

_worker_engine: Engine | None = None


def _worker_init(config: Config, catalog: Catalog) -> None:
    global _worker_engine
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it stops the pool
    _worker_engine = Engine(config, catalog)


def _worker_lint(apps: list[Application]) -> list[tuple[list[Finding], list[InputError], int, int]]:
    assert _worker_engine is not None
    return [_worker_engine._lint_one(app) for app in apps]


def _batches(apps: list[Application], jobs: int) -> list[list[Application]]:
    """Consecutive runs of applications of about equal file counts, several per worker so that a
    large application does not leave the other workers idle at the end."""
    total = sum(len(a.reported) + len(a.context) for a in apps)
    target = max(1, total // (jobs * 8))
    batches: list[list[Application]] = []
    current: list[Application] = []
    size = 0
    for app in apps:
        current.append(app)
        size += len(app.reported) + len(app.context)
        if size >= target:
            batches.append(current)
            current, size = [], 0
    if current:
        batches.append(current)
    return batches


def resolve_jobs(jobs: int) -> int:
    """``--jobs``: 0 means one worker per CPU this process may use."""
    if jobs > 0:
        return jobs
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _lint_parallel(engine: Engine, apps: list[Application], jobs: int) -> RunResult:
    """Lint ``apps`` in ``jobs`` worker processes, one application at a time per worker. Results
    are merged in application order, so the output is the same as with one process."""
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    on_stdin = [a for a in apps if a.key == STDIN]  # stdin belongs to this process
    batches = _batches([a for a in apps if a.key != STDIN], jobs)
    results: dict[str, tuple[list[Finding], list[InputError], int, int]] = {}
    for app in on_stdin:
        results[app.key] = engine._lint_one(app)
    if batches:
        with context.Pool(min(jobs, len(batches)), _worker_init, (engine.config, engine.catalog)) as pool:
            for batch, outcome in zip(batches, pool.imap(_worker_lint, batches)):
                for app, one in zip(batch, outcome):
                    results[app.key] = one
    result = RunResult()
    for app in apps:
        findings, errors, files, skipped = results[app.key]
        result.findings.extend(findings)
        result.errors.extend(errors)
        result.files += files
        result.skipped += skipped
    return result


def lint_paths(paths: list[str], config: Config, catalog: Catalog, jobs: int = 1) -> RunResult:
    """Lint files, folders and ``-`` (stdin). Findings come back sorted by path, line, column, rule;
    unreadable inputs are in ``errors``.

    ``jobs`` worker processes (0: one per CPU) lint applications in parallel when there are enough
    files; the result is identical, byte for byte once rendered, to a run with ``jobs=1``."""
    engine = Engine(config, catalog)
    errors: list[InputError] = []
    walk_notices: list[str] = []
    apps = group_applications(paths, errors, walk_notices)
    jobs = resolve_jobs(jobs)
    files = sum(len(a.reported) + len(a.context) for a in apps)
    if jobs > 1 and len(apps) > 1 and files >= PARALLEL_MIN_FILES:
        result = _lint_parallel(engine, apps, jobs)
    else:
        result = engine.lint_applications(apps)
    # input errors in path order, each once, whatever the order of the arguments
    unique = {(e.path, e.message): e for e in errors + result.errors}
    result.errors = [unique[key] for key in sorted(unique)]
    result.findings.sort(key=Finding.sort_key)
    skipped = []
    if result.skipped:
        s = "s" if result.skipped != 1 else ""
        skipped.append(
            f"{result.skipped} file{s} not linted: Argo CD does not render {'them' if s else 'it'} "
            "(+argocd:skip-file-rendering, not listed in the folder's kustomization resources, or YAML "
            "with no Kubernetes object)."
        )
    result.notices = walk_notices + skipped + engine.notices()
    return result


def lint_text(
    text: str,
    config: Config | None = None,
    catalog: Catalog | None = None,
    path: str = "manifest.yaml",
    context: str | None = None,
) -> list[Finding]:
    """Lint manifest ``text`` as one application, without touching the file system (used by the
    rule examples and tests). ``context`` is more manifests of the same application, loaded for
    cross-object rules but not reported on. Returns sorted findings."""
    from hooklint.catalog import load_catalog
    from hooklint.loader import parse_text

    config = config or Config()
    engine = Engine(config, catalog or load_catalog())
    files = [parse_text(path, text)]
    if context is not None:
        files.append(parse_text("context.yaml", context))
    app = Application(path, [path], ["context.yaml"] if context is not None else [])
    findings = list(engine.check_application(LoadedApplication(app, files, manifests_of(files))))
    findings.sort(key=Finding.sort_key)
    return findings
