"""SARIF 2.1.0 for GitHub code scanning (and any other SARIF consumer), built with ``sarif-om``.

One run, whose ``tool.driver`` is hooklint with every rule of the catalog, and one result per
finding. What GitHub needs, and why each value is what it is, is in ``shared/docs/sarif-github.md``;
the short version:

- ``artifactLocation.uri`` is the file's path relative to the repository root (the nearest folder
  above the current directory that holds ``.git``, else the current directory), with forward
  slashes and ``uriBaseId: "%SRCROOT%"``; ``run.originalUriBaseIds`` says where that root is. A file
  outside the root gets an absolute ``file://`` URI; stdin is the relative reference ``-``.
- ``region`` is the finding's exact span. Columns count Unicode code points, which the run says
  with ``columnKind: "unicodeCodePoints"``.
- ``partialFingerprints["hooklint/v1"]`` (see :func:`fingerprints`) hashes the rule, the path, the
  object's identity and the offending field, never the line, so a result keeps its identity when
  lines are inserted above it. ``primaryLocationLineHash`` is left to GitHub's upload action,
  which computes it from the checkout; a made-up value there would break GitHub's matching.
- ``automationDetails.id`` is ``<category>/`` (GitHub reads everything before the last ``/`` as
  the category).
- Input errors are ``toolExecutionNotifications`` of ``invocations[0]``, whose
  ``executionSuccessful`` is false when there are any; they are never results, which would open
  alerts. A clean run has ``"results": []``, which is how GitHub closes fixed alerts.
- GitHub code scanning rejects a whole upload whose run has more than 25,000 results (GitHub's
  SARIF upload limits). A run keeps at most :data:`MAX_RESULTS`: errors first, then warnings,
  then notes (suppressed findings after every live one), in report order within each. What was
  left out is counted in a warning of ``invocations[0].toolExecutionNotifications`` and in
  ``run.properties["resultsLeftOut"]``; :func:`left_out_message` is the same sentence for stderr.

Paths relative to the repository root and fingerprints are a finding's identity, which every
report and the baseline share: they live with findings (:func:`hooklint.findings.artifact_uri`,
:func:`hooklint.findings.fingerprints`). ``sarif_om`` is dormant, has no serializer, and costs
~90 ms to import, so it is imported inside :func:`render` only. The serializer is :func:`to_sarif`.
"""

from __future__ import annotations

import functools
import itertools
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from hooklint import __version__
from hooklint.findings import (
    FINGERPRINT_KEY,
    SRCROOT,
    Finding,
    InputError,
    RunResult,
    artifact_uri,
    fingerprints,
    repository_root,
)
from hooklint.text import escape_controls, json_safe

if TYPE_CHECKING:  # pragma: no cover
    from hooklint.catalog import Catalog, Rule

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/hooklint/hooklint"
MAX_DESCRIPTION = 1024  # GitHub's limit for shortDescription.text and fullDescription.text
#: Most results GitHub code scanning accepts in one run (an upload with more is rejected whole).
MAX_RESULTS = 25_000
_LEVELS = ("error", "warning", "note")

# GitHub's "problem.severity" for rules without a security-severity.
_PROBLEM_SEVERITY = {"error": "error", "warning": "warning", "note": "recommendation"}


# --- the serializer ----------------------------------------------------------------------------

_EXPLICIT = "_hooklint_explicit"


def _new(cls: type, **kwargs: Any) -> Any:
    """``cls(**kwargs)``, remembering which fields were given, so that :func:`to_sarif` keeps a
    value that happens to equal the attrs default (``level="warning"``) when it was set on
    purpose."""
    obj = cls(**kwargs)
    setattr(obj, _EXPLICIT, frozenset(kwargs))
    return obj


def _renamed(cls: type) -> dict[str, str]:
    """Fields whose sarif-om name is not the final 2.1.0 name. sarif-om was generated from the
    2.1.0-rtm.4 draft, where ``suppression.status`` was still called ``state``; the final schema
    (and GitHub's upload validator) reject ``state``."""
    import sarif_om

    if issubclass(cls, sarif_om.Suppression):
        return {"state": "status"}
    return {}


@functools.lru_cache(maxsize=None)
def _layout(cls: type) -> tuple[tuple[Any, str], ...] | None:
    """For an attrs class, its fields in order, each with the JSON name it is written under
    (computed once per class: a report of 100,000 results has 700,000 objects); None for any
    other type."""
    import attr

    if not attr.has(cls):
        return None
    renamed = _renamed(cls)
    return tuple(
        (field, renamed.get(name, name))
        for field in attr.fields(cls)
        for name in (field.metadata.get("schema_property_name", field.name),)
    )


def to_sarif(value: Any) -> Any:
    """A sarif-om object tree as plain JSON values.

    Each attrs field is written under its ``metadata["schema_property_name"]``; a field is left out
    when it is None, or when it equals its attrs default and was not given explicitly (sarif-om's
    defaults are ``kind: "fail"``, ``rank: -1.0``, ``ruleIndex: -1``, ``language: "en-US"`` and
    the like). Nothing is dropped for being falsy: ``ruleIndex: 0``, ``results: []`` and
    ``executionSuccessful: false`` survive. Plain dicts (``properties``, ``partialFingerprints``,
    ``originalUriBaseIds``) are written with sorted keys; lists keep their order."""
    kind: type = type(value)
    layout = _layout(kind)
    if layout is not None:
        explicit: frozenset[str] = getattr(value, _EXPLICIT, frozenset())
        out: dict[str, Any] = {}
        for field, name in layout:
            item = getattr(value, field.name)
            if item is None:
                continue
            if field.name not in explicit and _is_default(field, item):
                continue
            out[name] = to_sarif(item)
        return out
    if isinstance(value, dict):
        return {str(k): to_sarif(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, (list, tuple)):
        return [to_sarif(v) for v in value]
    return value


def _is_default(field: Any, value: Any) -> bool:
    import attr

    default = field.default
    if default is attr.NOTHING:
        return False
    if isinstance(default, attr.Factory):  # type: ignore[arg-type]
        if default.takes_self:
            return False
        default = default.factory()
    return type(value) is type(default) and value == default


# --- the report --------------------------------------------------------------------------------


def _clip(text: str, limit: int = MAX_DESCRIPTION) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _sentence(text: str) -> str:
    """``text`` ending with a period (SARIF messages are shown by their first sentence)."""
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def _examples(rule: "Rule") -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The first bad and the first good example of ``rule`` (None where there is none, or when the
    rule file cannot be read)."""
    from hooklint.catalog import load_examples

    try:
        examples = load_examples(rule)
    except (OSError, ValueError, AttributeError):
        return None, None
    bad, good = examples.get("bad"), examples.get("good")
    return bad[0] if bad else None, good[0] if good else None


def rule_help(rule: "Rule") -> tuple[str, str]:
    """``(text, markdown)`` help for a rule: what it does, why it matters, how to fix it, then one
    example that is reported and one to use instead."""
    bad, good = _examples(rule)
    text = [f"{rule.id} {rule.slug}: {rule.summary}", "", "What it does:", rule.what, "",
            "Why it matters:", rule.why, "", "How to fix:", rule.fix]  # fmt: skip
    markdown = [f"**{rule.id} {rule.slug}**: {rule.summary}", "", "### What it does", "", rule.what,
                "", "### Why it matters", "", rule.why, "", "### How to fix", "", rule.fix]  # fmt: skip
    for example, title in ((bad, "Example that is reported"), (good, "Use instead")):
        if not example or not example.get("manifest"):
            continue
        manifest = str(example["manifest"]).rstrip("\n")
        label = f"{title} ({example.get('name', '')})" if example.get("name") else title
        text += ["", f"{label}:", *("    " + line if line else "" for line in manifest.splitlines())]
        markdown += ["", f"### {label}", "", "```yaml", manifest, "```"]
    return "\n".join(text), "\n".join(markdown)


def rule_help_uri(rule: "Rule") -> str:
    """The rule's documentation page in the repository (``docs/rules/<ID>-<slug>.md``, generated
    from its rule file)."""
    from hooklint.catalog import DOCS_DIR, page_name

    return f"{INFORMATION_URI}/blob/main/{DOCS_DIR}/{page_name(rule)}"


def rule_properties(rule: "Rule") -> dict[str, Any]:
    """``tags``, ``precision``, and ``security-severity`` as a string holding a number (GitHub
    rejects a JSON number there); ``problem.severity`` for rules without a security-severity."""
    props: dict[str, Any] = {"tags": list(rule.tags), "precision": rule.precision}
    if rule.security_severity is not None:
        props["security-severity"] = str(float(rule.security_severity))
    else:
        props["problem.severity"] = _PROBLEM_SEVERITY.get(rule.severity, "warning")
    return props


def _rule_descriptor(om: Any, rule: "Rule") -> Any:
    text, markdown = rule_help(rule)
    return _new(
        om.ReportingDescriptor,
        id=rule.id,
        name=rule.name,
        short_description=_new(om.MultiformatMessageString, text=_clip(rule.summary)),
        full_description=_new(om.MultiformatMessageString, text=_clip(rule.what)),
        help=_new(om.MultiformatMessageString, text=text, markdown=markdown),
        help_uri=rule_help_uri(rule),
        default_configuration=_new(om.ReportingConfiguration, level=rule.severity),
        properties=rule_properties(rule),
    )


def _folder_uri(folder: Path) -> str:
    """``file:///abs/folder/``: a base URI must end with ``/`` (SARIF multitool rule SARIF1004)."""
    uri = folder.as_uri()
    return uri if uri.endswith("/") else uri + "/"


def _artifact(om: Any, uri: str, base: str | None) -> Any:
    if base is None:
        return _new(om.ArtifactLocation, uri=uri)
    return _new(om.ArtifactLocation, uri=uri, uri_base_id=base)


def _result(om: Any, finding: Finding, uri: str, base: str | None, index: int | None, fp: str) -> Any:
    span = finding.span
    region = _new(om.Region, start_line=span.line, start_column=span.column,
                  end_line=span.end_line, end_column=span.end_column)  # fmt: skip
    location = _new(om.Location, physical_location=_new(
        om.PhysicalLocation, artifact_location=_artifact(om, uri, base), region=region))  # fmt: skip
    kwargs: dict[str, Any] = dict(
        rule_id=finding.rule_id,
        level=finding.severity,
        message=_new(om.Message, text=_sentence(escape_controls(finding.message))),
        locations=[location],
        partial_fingerprints={FINGERPRINT_KEY: fp},
    )
    if index is not None:
        kwargs["rule_index"] = index
    if finding.related:  # a fetched chart's template: no artifact of the repository, its place as text
        kwargs["related_locations"] = [_new(om.Location, id=i, message=_new(om.Message, text=escape_controls(text)))
                                       for i, text in enumerate(finding.related)]  # fmt: skip
    if finding.suppression is not None:
        # inSource: the annotation or comment is in the analysed file; external: the baseline
        sup: dict[str, Any] = dict(kind="external" if finding.suppression.kind == "baseline" else "inSource",
                                   state="accepted")  # sarif-om calls status "state"; fmt: skip
        if finding.suppression.reason:
            sup["justification"] = finding.suppression.reason
        kwargs["suppressions"] = [_new(om.Suppression, **sup)]
    return _new(om.Result, **kwargs)


def _error_notification(om: Any, error: InputError, root: Path) -> Any:
    uri, base = artifact_uri(error.path, root)
    location = _new(om.Location, physical_location=_new(
        om.PhysicalLocation, artifact_location=_artifact(om, uri, base)))  # fmt: skip
    return _new(om.Notification, level="error", locations=[location],
                message=_new(om.Message, text=_sentence(escape_controls(f"{error.path}: {error.message}"))))  # fmt: skip


def _kept(findings: list[Finding], limit: int) -> tuple[list[Finding], dict[str, int]]:
    """The findings a run keeps (at most ``limit``: live errors, warnings, notes, then suppressed
    ones in the same order, each group in the order given) in the order given, and how many of
    each level were left out (levels with none left out are absent)."""
    if len(findings) <= limit:
        return findings, {}
    rank = {level: i for i, level in enumerate(_LEVELS)}
    order = sorted(range(len(findings)), key=lambda i: (findings[i].suppression is not None,
                                                        rank.get(findings[i].severity, 1), i))  # fmt: skip
    keep = set(order[:limit])
    left: dict[str, int] = {}
    for i in order[limit:]:
        left[findings[i].severity] = left.get(findings[i].severity, 0) + 1
    return [f for i, f in enumerate(findings) if i in keep], {k: left[k] for k in _LEVELS if k in left}


def left_out_message(result: RunResult, limit: int | None = None) -> str | None:
    """``SARIF: 25,000 of 30,000 results written, 5,000 notes left out (GitHub code scanning
    rejects a run of more than 25,000 results); ...``, or None when every finding fits.
    ``limit`` defaults to :data:`MAX_RESULTS`."""
    limit = MAX_RESULTS if limit is None else limit
    total = len(result.findings) + len(result.suppressed)
    if total <= limit:
        return None
    _, left = _kept(result.findings + result.suppressed, limit)
    return _left_words(left, total, limit)


def _left_words(left: dict[str, int], total: int, limit: int) -> str:
    counts = ", ".join(f"{n:,} {level}{'s' if n != 1 else ''}" for level, n in left.items())
    return (f"SARIF: {limit:,} of {total:,} results written, {counts} left out (GitHub code scanning rejects "
            f"a run of more than {limit:,} results); 'hooklint lint --format json' lists every finding")


def build_log(result: RunResult, catalog: "Catalog", category: str = "hooklint",
              root: Path | None = None, limit: int | None = None) -> Any:  # fmt: skip
    """The :class:`sarif_om.SarifLog` for one lint run, with at most ``limit`` results (default
    :data:`MAX_RESULTS`; see the module docstring). ``root`` defaults to :func:`repository_root`."""
    log, results = _log_and_results(result, catalog, category, root, limit)
    log.runs[0].results = list(results)
    return log


def _log_and_results(result: RunResult, catalog: "Catalog", category: str, root: Path | None,
                     limit: int | None) -> tuple[Any, Iterator[Any]]:  # fmt: skip
    """:func:`build_log` with its run's ``results`` left empty, and the results, made one by one
    as they are iterated (a run of 100,000 findings never holds them all as objects)."""
    import sarif_om as om

    root = root or repository_root()
    rules = catalog.sorted()
    rule_index = {rule.id: i for i, rule in enumerate(rules)}
    findings = sorted(result.findings + result.suppressed, key=lambda f: (f.sort_key(), f.field_path))
    limit = MAX_RESULTS if limit is None else limit
    total = len(findings)
    findings, left = _kept(findings, limit)
    uris: dict[str, tuple[str, str | None]] = {}  # per file: realpath is a system call per part
    locations = [uris.get(f.path) or uris.setdefault(f.path, artifact_uri(f.path, root)) for f in findings]
    fps = fingerprints(findings, (uri for uri, _ in locations))
    results = (
        _result(om, f, uri, base, rule_index.get(f.rule_id), fp)
        for f, (uri, base), fp in zip(findings, locations, fps)
    )
    invocation: dict[str, Any] = {"execution_successful": not result.errors}
    if result.errors:
        invocation["tool_execution_notifications"] = [
            _error_notification(om, e, root) for e in result.errors
        ]
    if left:
        invocation.setdefault("tool_execution_notifications", []).append(_new(
            om.Notification, level="warning", message=_new(om.Message, text=_sentence(_left_words(left, total, limit)))))
    if result.notices:
        invocation["tool_configuration_notifications"] = [
            _new(om.Notification, level="note", message=_new(om.Message, text=_sentence(escape_controls(n))))
            for n in result.notices
        ]
    driver = _new(
        om.ToolComponent,
        name="hooklint",
        version=__version__,
        semantic_version=__version__,
        information_uri=INFORMATION_URI,
        rules=[_rule_descriptor(om, rule) for rule in rules],
    )
    run: dict[str, Any] = dict(
        tool=_new(om.Tool, driver=driver),
        column_kind="unicodeCodePoints",
        original_uri_base_ids={SRCROOT: _new(om.ArtifactLocation, uri=_folder_uri(root))},
        invocations=[_new(om.Invocation, **invocation)],
        results=[],
    )
    properties: dict[str, Any] = {}
    if result.renderers:  # what made the kustomize and Helm manifests the results are about
        properties["renderers"] = list(result.renderers)
        if result.helm is not None:  # the Helm major that rendered, and Argo CD's
            properties["helm"] = dict(result.helm)
    if left:  # what GitHub's limit left out, per level
        properties["resultsLeftOut"] = dict(left)
        properties["resultsLimit"] = limit
    if properties:
        run["properties"] = properties
    category = category.strip()
    if category:
        automation_id = category if category.endswith("/") else category + "/"
        run["automation_details"] = _new(om.RunAutomationDetails, id=automation_id)
    return _new(om.SarifLog, schema_uri=SCHEMA_URI, version="2.1.0", runs=[_new(om.Run, **run)]), results


def render(result: RunResult, catalog: "Catalog", category: str = "hooklint", root: Path | None = None,
           limit: int | None = None) -> str:  # fmt: skip
    """The SARIF log as JSON text: ``$schema``, ``version`` and ``runs`` first, then every object's
    keys in sarif-om's field order (required fields, then alphabetical), so that the same input
    always gives the same bytes."""
    return "".join(render_chunks(result, catalog, category, root, limit))


#: Stands for the results while the rest of the log is written (:func:`render_chunks`).
_RESULTS = "\0results\0"


def render_chunks(result: RunResult, catalog: "Catalog", category: str = "hooklint", root: Path | None = None,
                  limit: int | None = None) -> Iterator[str]:  # fmt: skip
    """:func:`render` piece by piece: the log around its results, and each result as it is made, so
    a report of 100,000 findings is never held whole, as objects or as text (bench case (f): the
    SARIF of 66,000 findings). The bytes are :func:`render`'s: each result is written as
    ``json.dumps(indent=2)`` writes it at its depth, its lines indented like the placeholder's."""
    log, results = _log_and_results(result, catalog, category, root, limit)
    first = next(results, None)
    if first is not None:
        log.runs[0].results = [_RESULTS]
    doc = to_sarif(log)
    ordered = {key: doc[key] for key in ("$schema", "version", "runs") if key in doc}
    ordered.update((k, v) for k, v in doc.items() if k not in ordered)
    text = json.dumps(ordered, indent=2, ensure_ascii=False)
    if first is None:
        yield json_safe(text) + "\n"
        return
    placeholder = json.dumps(_RESULTS, ensure_ascii=False)
    at = text.index(placeholder)  # a string only hooklint writes: no finding's text holds a NUL
    line_start = text.rindex("\n", 0, at) + 1
    indent = text[line_start:at]
    yield json_safe(text[:line_start])
    separator = ""
    for item in itertools.chain((first,), results):
        dumped = json.dumps(to_sarif(item), indent=2, ensure_ascii=False)
        yield json_safe(separator + indent + dumped.replace("\n", "\n" + indent))
        separator = ",\n"
    yield json_safe(text[at + len(placeholder):]) + "\n"
