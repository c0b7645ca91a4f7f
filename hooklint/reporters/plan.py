"""The sync plan of each application as text (``hooklint plan``) or JSON (``hooklint plan -f json``).

The text is one table per application in the spirit of ``argocd app sync`` output: a header, one
row per task, step by step, then the objects no sync applies. The JSON shape is
``{"applications": [{"application", "source": {"type", "renderer": {"name", "version"} | null,
"application": "Application NAME (FILE:LINE)" | null, "generated_by": str | null, ["helm": {"rendered",
"argocd", "argocd_version", "differs"}]}, "rendered": "full" | "partial" | "none", "rendered_reasons": [str],
"steps": [{"phase", "wave", "tasks": [object]}], "not_applied": [object]}]}``, an object being ``{"api_version", "kind", "namespace", "name", "generate_name",
"hook_types", ["delete_policies"], "path", "line", ["notes" | "reason"]}``.

Text from manifests is escaped in the text (:func:`hooklint.text.escape_controls`: an object's
name cannot rewrite the terminal line; :func:`~hooklint.text.escape_commands` and
:func:`~hooklint.text.escape_line_commands`: nor forge a GitHub workflow command, ``##[`` anywhere
or ``::`` after a row's blanks) and kept as it is in the JSON, where ``json.dumps`` escapes every
character outside ASCII and :func:`~hooklint.text.json_safe` the ``##[`` prefix.
"""

from __future__ import annotations

import json
from typing import Any

from hooklint import argocd
from hooklint.argocd import version_text
from hooklint.model import Manifest
from hooklint.pipeline import PlannedApplication
from hooklint.text import escape_commands, escape_controls, escape_line_commands, json_safe, url_credentials


def _hook_types(m: Manifest, version: argocd.Version) -> list[str]:
    if not m.hook.is_hook and not m.hook.skip:
        return []
    out = list(m.hook.types)
    out += [t for t in m.hook.delete_types if t not in out]  # read for the plan's version
    return out


def _object_dict(m: Manifest, version: argocd.Version, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "api_version": m.api_version,
        "kind": m.kind,
        "namespace": m.namespace,
        "name": m.name,
        "generate_name": m.generate_name,
        "hook_types": _hook_types(m, version),
    }
    if "delete_policies" in extra:
        out["delete_policies"] = extra.pop("delete_policies")
    out["path"] = m.display_path
    out["line"] = m.line
    out.update(extra)
    return out


def plan_dict(planned: PlannedApplication) -> dict[str, Any]:
    """The documented JSON shape of one application's plan (see the module docstring); no string
    of it holds a value of the application's Secrets (``planned.hide``) nor a URL's credentials
    (a plugin source has no ``hide``: :func:`~hooklint.text.url_credentials`)."""
    return _hidden(_plan_dict(planned), planned.hide or url_credentials)


def _hidden(value: Any, hide: Any) -> Any:
    if isinstance(value, str):
        return hide(value)
    if isinstance(value, dict):
        return {k: _hidden(v, hide) for k, v in value.items()}
    if isinstance(value, list):
        return [_hidden(v, hide) for v in value]
    return value


def _plan_dict(planned: PlannedApplication) -> dict[str, Any]:
    key, plan = planned.key, planned.plan
    steps = []
    for step in plan.steps:
        tasks = []
        for t in step.tasks:
            m = t.manifest
            policies = list(m.hook.delete_policies) if m.hook.is_hook else []
            tasks.append(_object_dict(m, plan.version, delete_policies=policies, notes=list(t.notes)))
        steps.append({"phase": step.phase, "wave": step.wave, "tasks": tasks})
    not_applied = []
    for entry in plan.not_applied:
        not_applied.append(_object_dict(entry.manifest, plan.version, reason=entry.reason))
    renderer = planned.renderer
    source: dict[str, Any] = {
        "type": planned.source_type,
        "renderer": {"name": renderer.name, "version": renderer.version} if renderer is not None else None,
        "application": planned.application,
        "generated_by": planned.generated_by,
    }
    use = _helm_use(planned)
    if use is not None:
        source["helm"] = use
    if planned.fetched:  # --fetch: what was downloaded and rendered (issue 33)
        source["fetched"] = list(planned.fetched)
    coverage = planned.coverage
    return {"application": key, "source": source, "rendered": coverage.rendered,
            "rendered_reasons": [r.words() for r in coverage.reasons], "steps": steps, "not_applied": not_applied}  # fmt: skip


def _helm_use(planned: PlannedApplication) -> dict[str, Any] | None:
    """For a rendered Helm source, the Helm major that rendered it and the one Argo CD runs
    (:func:`hooklint.sources.render.helm.helm_use`); None otherwise."""
    if planned.source_type != "helm" or planned.renderer is None:
        return None
    from hooklint.sources.render.helm import helm_use

    return helm_use(planned.renderer.label(), planned.plan.version)


def source_text(planned: PlannedApplication) -> str:
    """How the application's manifests were made, for the plan's header: ``directory source``,
    ``kustomize source rendered by kubectl kustomize v5.7.1``, ``helm source, not rendered``."""
    by = f" of {planned.application}" if planned.application else ""
    if planned.generated_by:
        by += f" (made by {planned.generated_by})"
    if planned.source_type == "plugin":
        return f"plugin source{by}: a config management plugin renders it, which hooklint never runs; not linted"
    if planned.fetched:  # --fetch downloaded it: what, and how it was rendered
        how = f" rendered by {planned.renderer.label()}" if planned.renderer is not None else ""
        return f"fetched {', '.join(planned.fetched)}{by},{how or ' read as a directory source'}"
    if planned.source_type == "remote":
        return f"source from elsewhere{by}: Argo CD's repo server fetches it, hooklint did not; not rendered"
    if planned.source_type == "directory":
        return f"directory source{by}" + (", which no Application of this repository deploys" if planned.undeployed else "")
    if planned.renderer is None:
        return f"{planned.source_type} source{by}, not rendered (run hooklint lint to see why)"
    undeployed = "; no Application of this repository deploys it" if planned.undeployed else ""
    return f"{planned.source_type} source{by}{',' if planned.generated_by else ''} rendered by {planned.renderer.label()}{undeployed}"


def _display_name(m: Manifest) -> str:
    name = m.name or (f"{m.generate_name}*" if m.generate_name else "?")
    return f"{m.namespace}/{name}" if m.namespace else name


def _table(rows: list[list[str]], indent: str = "") -> list[str]:
    rows = [[escape_controls(cell) for cell in row] for row in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for r in rows:
        cells = [c.ljust(widths[i]) for i, c in enumerate(r[:-1])] + [r[-1]]
        out.append((indent + "  ".join(cells)).rstrip())
    return out


def render_text(planned: PlannedApplication) -> list[str]:
    """One application's plan as lines of text, in the spirit of ``argocd app sync`` output: a
    header, then one row per task, step by step, then the objects no sync applies; no line holds a
    value of the application's Secrets (``planned.hide``) nor a URL's credentials."""
    hide = planned.hide or url_credentials
    return [hide(line) for line in _text_lines(planned)]


def _text_lines(planned: PlannedApplication) -> list[str]:
    key, plan, unparsed = planned.key, planned.plan, planned.unparsed
    objects = len({id(t.manifest) for t in plan.tasks}) + len(plan.not_applied)
    lines = [
        f"Application {escape_controls(key)}: {objects} object{'s' if objects != 1 else ''}, "
        f"{len(plan.steps)} step{'s' if len(plan.steps) != 1 else ''} (Argo CD {version_text(plan.version)}, "
        f"{escape_controls(source_text(planned))})"
    ]
    if planned.source_type == "helm" and planned.renderer is not None:
        from hooklint.sources.render.helm import helm_use_note

        note = helm_use_note(planned.renderer.label(), plan.version)
        if note:
            lines.append(f"  note: {note}")
    coverage = planned.coverage
    if coverage.rendered != "full":  # issue 22: say what the plan lacks
        lines.append("  rendered: partial: hooklint left these entries out, so what they add or change is missing:" if
                     coverage.rendered == "partial" else "  rendered: none: this is not the plan Argo CD syncs:")
        lines.extend(f"    {escape_controls(reason.words())}" for reason in coverage.reasons)
    if unparsed:
        docs = (
            "1 document could not be parsed and is"
            if unparsed == 1
            else f"{unparsed} documents could not be parsed and are"
        )
        lines.append(f"  warning: {docs} missing from this plan (run hooklint lint)")
    if plan.steps:
        rows = [["STEP", "PHASE", "WAVE", "KIND", "NAMESPACE/NAME", "HOOK", "DELETE POLICY", "NOTES"]]
        for step in plan.steps:
            for i, t in enumerate(step.tasks):
                m = t.manifest
                hook = ",".join(_hook_types(m, plan.version)) if m.hook.is_hook else "-"
                policies = ",".join(m.hook.delete_policies) if m.hook.is_hook else "-"
                first = i == 0
                rows.append([
                    str(step.index) if first else "",
                    step.phase if first else "",
                    str(step.wave) if first else "",
                    m.kind or "?",
                    _display_name(m),
                    hook or "-",
                    policies,
                    "; ".join(t.notes),
                ])  # fmt: skip
        lines.extend(_table(rows, "  "))
    elif coverage.rendered == "none":
        lines.append("  hooklint rendered nothing of it, so it cannot say what a sync applies (run hooklint lint)")
    elif coverage.rendered == "partial":
        lines.append("  no object of the part hooklint rendered is applied during a sync")
    else:
        lines.append("  no object is applied during a sync")
    if plan.not_applied:
        lines.append("  Not applied during a sync:")
        rows = [["KIND", "NAMESPACE/NAME", "FILE", "REASON"]]
        for entry in plan.not_applied:
            m = entry.manifest
            where = f"{m.display_path}:{m.line}"
            rows.append([m.kind or "?", _display_name(m), where, entry.reason])
        lines.extend(_table(rows, "    "))
    return lines


def not_deployed(planned: PlannedApplication) -> bool:
    """A folder no Application of the repository deploys with nothing in it to apply or list (its
    files are data, or not linted): not an application, so named once, not planned."""
    plan = planned.plan
    return (planned.undeployed and planned.source_type == "directory" and not plan.tasks and not plan.not_applied
            and not planned.unparsed and planned.coverage.rendered == "full")  # fmt: skip


def render(plans: list[PlannedApplication], format: str = "text") -> str:
    """``plans`` in application order, rendered as ``format`` ``"text"`` or ``"json"``; the folders
    :func:`not_deployed` are listed once, after them (``not_deployed`` in JSON)."""
    quiet = [planned.key for planned in plans if not_deployed(planned)]
    plans = [planned for planned in plans if not not_deployed(planned)]
    if format == "json":
        doc: dict[str, Any] = {"applications": [plan_dict(planned) for planned in plans]}
        if quiet:
            doc["not_deployed"] = quiet
        return json_safe(json.dumps(doc, indent=2)) + "\n"
    lines: list[str] = []
    for planned in plans:
        if lines:
            lines.append("")
        lines.extend(render_text(planned))
    if quiet:
        if lines:
            lines.append("")
        lines.append(f"Not deployed by any Application, with nothing to apply: {escape_controls(', '.join(quiet))}")
    # a row is indented, and the runner reads a workflow command after leading blanks (attacker trial: a kind
    # or a folder named '::error title=x::y' forged an annotation from the text plan), or '##[' anywhere
    return escape_line_commands(escape_commands("\n".join(lines) + "\n")) if lines else ""
