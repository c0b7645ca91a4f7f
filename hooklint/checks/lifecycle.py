"""HL201-HL205: hook lifecycle: retries, deadlines, name collisions, restart policy."""

from __future__ import annotations

from typing import Iterator

from hooklint.checks import Context, Hit, check
from hooklint.model import JOB_LIKE, POD_TEMPLATE_KINDS, Manifest, get_map

#: Kinds whose re-apply over a finished object neither re-runs nor may change its template.
RUN_ONCE_KINDS = POD_TEMPLATE_KINDS | {"Workflow"}


def _spec_key_span(m: Manifest):
    return m.body.key_span("spec") if "spec" in m.body else m.anchor


@check("HL201")
def hook_missing_backoff_limit(m: Manifest, ctx: Context) -> Iterator[Hit]:
    if m.kind != "Job" or not ctx.in_scope(m):
        return
    spec = get_map(m.body, "spec")
    if spec is not None and "backoffLimit" in spec:
        return
    yield Hit(
        f"{m.label} has no spec.backoffLimit, so a failing hook is retried 6 times (the Kubernetes "
        "default) with growing back-off while the sync waits. Set spec.backoffLimit (0-2 is typical "
        "for a hook).",
        _spec_key_span(m),
        "spec.backoffLimit",
    )


@check("HL202")
def hook_missing_active_deadline(m: Manifest, ctx: Context) -> Iterator[Hit]:
    if m.kind not in ("Job", "Pod") or not ctx.in_scope(m):
        return
    spec = get_map(m.body, "spec")
    if spec is not None and "activeDeadlineSeconds" in spec:
        return
    pod = m.pod_spec()
    if m.kind == "Job" and pod is not None and "activeDeadlineSeconds" in pod.spec:
        return
    yield Hit(
        f"{m.label} has no spec.activeDeadlineSeconds: a hook that hangs keeps Argo CD "
        "\"waiting for completion of hook\" and wedges every sync until someone terminates it. "
        "Set spec.activeDeadlineSeconds.",
        _spec_key_span(m),
        "spec.activeDeadlineSeconds",
    )


@check("HL203")
def hook_fixed_name_collision(m: Manifest, ctx: Context) -> Iterator[Hit]:
    if not m.hook.is_hook or not m.hook.phases or not m.name or m.kind not in RUN_ONCE_KINDS:
        return
    if "BeforeHookCreation" in m.hook.delete_policies:
        return
    policies = ", ".join(m.hook.delete_policies)
    yield Hit(
        f"Hook {m.label} has a fixed name and its delete policies ({policies}) lack "
        "BeforeHookCreation: when the old object is still there, Argo CD re-applies it, which fails "
        "with \"field is immutable\" if the template changed, or succeeds at once without running. "
        "Add BeforeHookCreation to argocd.argoproj.io/hook-delete-policy, or use "
        "metadata.generateName.",
        m.metadata.value_span("name") if m.metadata is not None else m.anchor,
        "metadata.name",
    )


@check("HL205")
def job_invalid_restart_policy(m: Manifest, ctx: Context) -> Iterator[Hit]:
    if m.kind not in JOB_LIKE:
        return
    pod = m.pod_spec()
    if pod is None:
        return
    value = pod.spec.get("restartPolicy")
    if value in ("Never", "OnFailure"):
        return
    field = f"{pod.path}.restartPolicy"
    if "restartPolicy" not in pod.spec:
        yield Hit(
            f"{m.label} does not set {field}; it defaults to Always, which the API server rejects "
            "for a Job, so the sync fails. Set restartPolicy: Never (or OnFailure).",
            pod.parent.key_span(pod.key),
            field,
        )
    else:
        yield Hit(
            f"{m.label} sets {field} to '{value}'; a Job's pods must use Never or OnFailure, so the "
            "API server rejects it and the sync fails. Set restartPolicy: Never (or OnFailure).",
            pod.spec.value_span("restartPolicy"),
            field,
        )
