"""HL301-HL311, HL024, HL207 and HL019: faults in the order Argo CD applies an application's objects, and objects it holds twice.

Every check here reads the application's sync plan (``ctx.plan``, built once per application by the
pipeline) rather than re-deriving phases and waves
(``shared/docs/argocd-semantics.md`` §4, §5 and the addenda).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Iterator

from hooklint import argocd
from hooklint.checks import Context, Hit, check
from hooklint.findings import Span
from hooklint.model import Grantee, Manifest, binding_grantees, get_map, resource_match, verb_matches
from hooklint.plan import SyncPlan, Task, absent_during_deletion, is_kustomize_config, step_text
from hooklint.yamlio import Map, Seq

#: Kubernetes' limit for names used as label values and DNS labels (a Job's name is copied into
#: its pods' ``job-name`` label, so it must fit; ``hook_generated_name_length``).
NAME_LIMIT = 63

# --- HL301 -------------------------------------------------------------------------------------


@dataclass(slots=True)
class Reference:
    """A pod spec's reference to another object by name: ``kind``/``name`` in the referrer's
    namespace, the exact node (``span``, ``field_path``) and how it is used (``via``)."""

    kind: str
    name: str
    span: Span
    field_path: str
    via: str


def _is_optional(ref: Any) -> bool:
    return isinstance(ref, Map) and ref.get("optional") is True


def _named(parent: Any, key: str, kind: str, path: str, via: str) -> Iterator[Reference]:
    """A reference held in ``parent[key]`` (a string), unless the referring mapping is optional."""
    if not isinstance(parent, Map) or _is_optional(parent):
        return
    value = parent.get(key)
    if isinstance(value, str) and value:
        yield Reference(kind, value, parent.value_span(key), f"{path}.{key}", via)


def pod_references(m: Manifest) -> Iterator[Reference]:
    """Every object a pod spec of ``m`` names: its ServiceAccount (``serviceAccountName``, else the
    deprecated ``serviceAccount``), ConfigMaps and Secrets of ``env[].valueFrom``, ``envFrom``,
    ``configMap``/``secret``/``projected`` volumes and ``imagePullSecrets``, and PVC volumes.
    References marked ``optional: true`` are left out: the pod starts without them."""
    pod = m.pod_spec()
    if pod is None:
        return
    spec, path = pod.spec, pod.path
    account, key = pod.service_account()
    if account is not None:
        yield from _named(spec, key, "ServiceAccount", path, key)
    pull = spec.get("imagePullSecrets")
    if isinstance(pull, Seq):
        for i, item in enumerate(pull):
            yield from _named(item, "name", "Secret", f"{path}.imagePullSecrets[{i}]", "imagePullSecrets")
    volumes = spec.get("volumes")
    if isinstance(volumes, Seq):
        for i, volume in enumerate(volumes):
            if not isinstance(volume, Map):
                continue
            vpath = f"{path}.volumes[{i}]"
            vname = volume.get("name") if isinstance(volume.get("name"), str) else str(i)
            via = f"volume '{vname}'"
            yield from _named(volume.get("configMap"), "name", "ConfigMap", f"{vpath}.configMap", via)
            yield from _named(volume.get("secret"), "secretName", "Secret", f"{vpath}.secret", via)
            yield from _named(volume.get("persistentVolumeClaim"), "claimName", "PersistentVolumeClaim",
                              f"{vpath}.persistentVolumeClaim", via)  # fmt: skip
            projected = volume.get("projected")
            sources = projected.get("sources") if isinstance(projected, Map) else None
            if isinstance(sources, Seq):
                for j, source in enumerate(sources):
                    if not isinstance(source, Map):
                        continue
                    spath = f"{vpath}.projected.sources[{j}]"
                    yield from _named(source.get("configMap"), "name", "ConfigMap", f"{spath}.configMap", via)
                    yield from _named(source.get("secret"), "name", "Secret", f"{spath}.secret", via)
    for container in m.containers(pod):
        env = container.body.get("env")
        if isinstance(env, Seq):
            for i, var in enumerate(env):
                value_from = var.get("valueFrom") if isinstance(var, Map) else None
                if not isinstance(value_from, Map):
                    continue
                epath = f"{container.path}.env[{i}].valueFrom"
                var_name = var.get("name") if isinstance(var.get("name"), str) else str(i)
                via = f"env {var_name} of container '{container.name}'"
                for key, kind in (("configMapKeyRef", "ConfigMap"), ("secretKeyRef", "Secret")):
                    yield from _named(value_from.get(key), "name", kind, f"{epath}.{key}", via)
        env_from = container.body.get("envFrom")
        if isinstance(env_from, Seq):
            for i, source in enumerate(env_from):
                if not isinstance(source, Map):
                    continue
                epath = f"{container.path}.envFrom[{i}]"
                via = f"envFrom of container '{container.name}'"
                yield from _named(source.get("configMapRef"), "name", "ConfigMap", f"{epath}.configMapRef", via)
                yield from _named(source.get("secretRef"), "name", "Secret", f"{epath}.secretRef", via)


class _BindingIndex:
    """RoleBindings and ClusterRoleBindings by the ServiceAccounts they grant
    (:func:`hooklint.model.binding_grantees`): a subject of kind ServiceAccount or a User naming one
    by ``(namespace or "", name)``, a Group of ServiceAccounts (a namespace's, the cluster's,
    ``system:authenticated``) by the ServiceAccounts it covers."""

    def __init__(self, manifests: list[Manifest]) -> None:
        self.named: dict[tuple[str, str], list[Manifest]] = {}
        self.groups: list[tuple[Grantee, Manifest]] = []
        for m in manifests:
            for grantee in binding_grantees(m):
                if grantee.name is None:
                    self.groups.append((grantee, m))
                    continue
                bucket = self.named.setdefault((grantee.namespace or "", grantee.name), [])
                if m not in bucket:
                    bucket.append(m)

    def granting(self, namespace: str, name: str) -> list[Manifest]:
        """The bindings granting ServiceAccount ``name`` of ``namespace`` (``""``: the
        destination namespace): those naming it first, then those granting a group it is in."""
        out = list(self.named.get((namespace, name), ()))
        for grantee, m in self.groups:
            if grantee.covers(namespace, name) and m not in out:
                out.append(m)
        return out


#: Controllers that write a Secret no Secret object of the application defines: (group, kind)
#: of the object that asks for it -> who writes it (looked up by an object's (group, kind), whose kind may be None).
SECRET_PRODUCERS: dict[tuple[str, str | None], str] = {
    ("cert-manager.io", "Certificate"): "cert-manager",
    ("external-secrets.io", "ExternalSecret"): "external-secrets",
    ("bitnami.com", "SealedSecret"): "sealed-secrets",
    ("secrets-store.csi.x-k8s.io", "SecretProviderClass"): "Secrets Store CSI",
}


def produced_secrets(m: Manifest) -> list[str]:
    """The names of the Secrets a controller writes for ``m``, in ``m``'s namespace: cert-manager
    ``Certificate.spec.secretName``; external-secrets ``ExternalSecret.spec.target.name``, by
    default the ExternalSecret's own name, none when ``creationPolicy`` is ``Merge`` or ``None``
    (the Secret must exist already); a ``SealedSecret``'s own name; and every
    ``SecretProviderClass.spec.secretObjects[].secretName``. Empty for any other object."""
    if (m.group, m.kind) not in SECRET_PRODUCERS:
        return []
    spec = get_map(m.body, "spec")
    if m.kind == "Certificate":
        names = [spec.get("secretName") if spec is not None else None]
    elif m.kind == "ExternalSecret":
        target = get_map(spec, "target")
        if target is not None and target.get("creationPolicy") in ("Merge", "None"):
            return []
        names = [(target.get("name") if target is not None else None) or m.name]
    elif m.kind == "SealedSecret":
        names = [m.name]
    else:
        objects = spec.get("secretObjects") if spec is not None else None
        names = [o.get("secretName") for o in objects if isinstance(o, Map)] if isinstance(objects, Seq) else []
    return [n for n in names if isinstance(n, str) and n]


def secret_outlives_producer(m: Manifest) -> bool:
    """True when the Secret a producer wrote stays after the producer is deleted: cert-manager sets
    no owner reference on a Certificate's Secret (unless run with
    ``--enable-certificate-owner-ref``), nor does external-secrets with ``creationPolicy: Orphan``.
    Other producers' Secrets are owned by them and garbage-collected with them."""
    if m.kind == "Certificate":
        return True
    target = get_map(get_map(m.body, "spec"), "target")
    return m.kind == "ExternalSecret" and target is not None and target.get("creationPolicy") == "Orphan"


def _producer_index(manifests: list[Manifest]) -> dict[tuple[str, str], list[Manifest]]:
    """The run's Secret producers by the Secret they write: ``(namespace or "", name)``."""
    index: dict[tuple[str, str], list[Manifest]] = {}
    for m in manifests:
        for name in produced_secrets(m):
            bucket = index.setdefault((m.namespace or "", name), [])
            if m not in bucket:
                bucket.append(m)
    return index


_CONSEQUENCE = {
    "ServiceAccount": "its pods are rejected (serviceaccount \"{name}\" not found), so the step never completes",
    "RoleBinding": "its pods run before ServiceAccount {name} holds that binding's permissions, so their API calls fail with Forbidden",
    "SCCBinding": "its pods are never admitted while ServiceAccount {name} may not use the SecurityContextConstraints that binding grants (\"unable to validate against any security context constraint\"), so the step never completes",
    "ConfigMap": "its pods cannot start without it (CreateContainerConfigError or a failed volume mount), so the step never completes",
    "Secret": "its pods cannot start without it (CreateContainerConfigError or a failed volume mount), so the step never completes",
    "PullSecret": "its images are pulled without these credentials, which fails for a private registry",
    "PersistentVolumeClaim": "its pods stay Pending until the claim exists, so the step never completes",
}

#: The same for a PreDelete/PostDelete hook: the Application's deletion waits for the hook
#: (``executeHooks`` returns not done while a hook is Progressing, and deletes and retries a
#: Degraded one), so it hangs.
_DELETE_CONSEQUENCE = {
    "ServiceAccount": "its pods are rejected (serviceaccount \"{name}\" not found), so the hook never completes and the Application's deletion hangs",
    "RoleBinding": "its pods run without that binding's permissions, so their API calls fail with Forbidden, the hook fails and the Application's deletion hangs",
    "SCCBinding": "its pods are never admitted without the SecurityContextConstraints that binding lets ServiceAccount {name} use (\"unable to validate against any security context constraint\"), so the hook never completes and the Application's deletion hangs",
    "ConfigMap": "its pods cannot start without it (CreateContainerConfigError or a failed volume mount), so the hook never completes and the Application's deletion hangs",
    "Secret": "its pods cannot start without it (CreateContainerConfigError or a failed volume mount), so the hook never completes and the Application's deletion hangs",
    "PullSecret": "its images are pulled without these credentials, which fails for a private registry and hangs the Application's deletion",
    "PersistentVolumeClaim": "its pods stay Pending, so the hook never completes and the Application's deletion hangs",
}


def grants_scc_use(binding: Manifest, ctx: Context) -> bool:
    """Whether a (Cluster)RoleBinding lets its subjects use an OpenShift SecurityContextConstraints:
    its role is one of OpenShift's ``system:openshift:scc:<name>`` ClusterRoles, or a Role or
    ClusterRole of the run with a rule granting ``use`` (or ``*``) on ``securitycontextconstraints``
    of ``security.openshift.io``. The SCC admission plugin admits a pod only under an SCC its
    ServiceAccount (or the creating user) may ``use`` in the pod's namespace, so a RoleBinding
    grants it too (openshift/apiserver-library-go ``pkg/securitycontextconstraints/sccmatching/
    matcher.go`` ``authorizedForSCC``), else rejects it: "unable to validate against any security
    context constraint" (``sccadmission/admission.go``)."""
    ref = binding.body.get("roleRef")
    if not isinstance(ref, Map) or not isinstance(ref.get("name"), str):
        return False
    name, kind = ref["name"], ref.get("kind")
    if kind == "ClusterRole" and name.startswith("system:openshift:scc:"):
        return True
    role = ctx.find(kind, None if kind == "ClusterRole" else binding.namespace, name) if isinstance(kind, str) else None
    rules = role.body.get("rules") if role is not None else None
    if not isinstance(rules, Seq):
        return False
    for rule in rules:
        if not isinstance(rule, Map):
            continue
        # only the strings of each list: another entry (a mapping or list, which a set cannot hold) names nothing
        written = (rule.get(k) for k in ("apiGroups", "resources", "verbs"))
        groups, resources, verbs = ({e for e in w if isinstance(e, str)} if isinstance(w, Seq) else set()
                                    for w in written)  # fmt: skip
        if ({"security.openshift.io", "*"} & groups and resource_match(list(resources), "securitycontextconstraints")
                and verb_matches(list(verbs), "use")):  # fmt: skip
            return True
    return False


def _consequence(target: Manifest, ref: Reference, table: dict[str, str] = _CONSEQUENCE, scc: bool = False) -> str:
    if target.kind in ("RoleBinding", "ClusterRoleBinding"):
        key = "SCCBinding" if scc else "RoleBinding"
    elif ref.via == "imagePullSecrets":
        key = "PullSecret"
    else:
        key = ref.kind
    return table[key].format(name=ref.name)


def _is_producer(target: Manifest, ref: Reference) -> bool:
    return ref.kind == "Secret" and target.kind != "Secret"


def _what(target: Manifest, ref: Reference) -> str:
    if target.kind in ("RoleBinding", "ClusterRoleBinding"):
        return f"{target.label} (the binding of its ServiceAccount {ref.name})"
    if _is_producer(target, ref):
        writer = SECRET_PRODUCERS[(target.group, target.kind)]
        return f"Secret {ref.name} ({ref.via}), written by {writer} {target.kind} {target.name or target.label}"
    return f"{target.label} ({ref.via})"


@check("HL301", scope="application")
def reference_to_later_step(manifests: list[Manifest], ctx: Context) -> Iterator[Hit]:
    """A pod spec names an object of the same application that Argo CD applies in a later (phase,
    wave) step than the referrer's first task, or never during a sync (§4a-§4c, §5a; pitfall P1);
    or, for a PreDelete/PostDelete hook, that is not in the cluster when the hook runs
    (:func:`hooklint.plan.absent_during_deletion`; §4d, pitfall P2). A Secret that no Secret
    object defines stands for the objects that write it (:func:`produced_secrets`)."""
    plan = ctx.plan
    bindings: _BindingIndex | None = None
    producers: dict[tuple[str, str], list[Manifest]] | None = None
    kept = ctx.kept
    for m in kept:
        first = plan.first_task(m)
        deletes = m.hook.delete_types if m.kind != "CronJob" else ()
        if first is None and not deletes:
            continue
        seen: set[int] = set()
        for ref in pod_references(m):
            targets: list[Manifest] = []
            found = ctx.find(ref.kind, m.namespace, ref.name)
            if found is not None and found is not m:
                targets.append(found)
            if ref.kind == "ServiceAccount":
                if bindings is None:
                    bindings = _BindingIndex(manifests)
                targets.extend(bindings.granting(m.namespace or "", ref.name))
            elif ref.kind == "Secret" and found is None:
                if producers is None:
                    producers = _producer_index(kept)
                targets.extend(producers.get((m.namespace or "", ref.name), ()))
            for target in targets:
                if id(target) in seen:
                    continue
                seen.add(id(target))
                scc = target.kind in ("RoleBinding", "ClusterRoleBinding") and grants_scc_use(target, ctx)
                hit = _later_step_hit(m, first, target, ref, plan, scc) if first is not None else None
                if hit is not None:
                    yield dataclasses.replace(hit, involves=(target,))
                for phase in deletes:
                    hit = _deletion_hit(m, phase, target, ref, plan, scc)
                    if hit is not None:
                        yield dataclasses.replace(hit, involves=(target,))


def _later_step_hit(m: Manifest, first: Task, target: Manifest, ref: Reference, plan: SyncPlan,
                    scc: bool = False) -> Hit | None:  # fmt: skip
    target_task = plan.first_task(target)
    if target_task is None:
        reason = plan.not_applied_reason(target)
        if reason is None:
            return None
        return Hit(
            f"{m.label} ({first.step_text()}) uses {_what(target, ref)}, which Argo CD never applies "
            f"during a sync ({reason}): {_consequence(target, ref, scc=scc)}. Make {target.label} a plain "
            f"resource or a hook that runs in {first.step_text()} or earlier.",
            ref.span,
            ref.field_path,
            m,
        )
    if target_task.step_key <= first.step_key:
        return None
    if m.kind == "CronJob":
        return None  # its pods run on schedule, not during the sync
    if first.phase == "Sync" and target_task.phase == "Sync":
        fix = f"Give {target.label} a lower sync-wave than {first.wave}"
    else:
        fix = (
            f"Apply {target.label} in {first.step_text()} or earlier (for a {first.phase} hook: make it a "
            f"{first.phase} hook with a sync-wave of {first.wave} or lower)"
        )
    # a plain object (or a hook kept after it succeeds) is in the cluster from the sync that applied it on
    when = "" if target.hook.is_hook and "HookSucceeded" in target.hook.delete_policies else " on the first sync"
    return Hit(
        f"{m.label} ({first.step_text()}) uses {_what(target, ref)}, which Argo CD applies only in a "
        f"later step ({target_task.step_text()}): {_consequence(target, ref, scc=scc)}{when}. {fix}, or move "
        f"{m.label} to a later step.{_recreated_hook_note(m, target, ref)}",
        ref.span,
        ref.field_path,
        m,
    )


def _deletion_hit(m: Manifest, phase: str, target: Manifest, ref: Reference, plan: SyncPlan,
                  scc: bool = False) -> Hit | None:  # fmt: skip
    """``m`` runs as a ``phase`` (PreDelete/PostDelete) hook and ``target`` is not in the cluster
    then (:func:`hooklint.plan.absent_during_deletion`). A producer stands for its Secret, except
    that a Secret which outlives its producer (:func:`secret_outlives_producer`) is there once a
    sync has applied the producer. The fix keeps the object through the sync (drop HookSucceeded)
    where that is the cause, else makes it a hook of the same type (adding a type to a hook needs
    a list: Argo CD 3.3.3)."""
    reason = absent_during_deletion(plan, target, phase)
    if reason is None:
        return None
    if _is_producer(target, ref) and secret_outlives_producer(target) and plan.first_task(target) is not None:
        return None  # a sync applied the producer, and its Secret stays without it
    add = (target.hook.is_hook or target.hook.skip) and argocd.supports(plan.version, "delete-hook-lists")
    if phase == "PreDelete" and target.hook.phases and "HookSucceeded" in target.hook.delete_policies:
        fix = f"Drop HookSucceeded from the delete policies of {target.label} so that it stays after the sync"
        fix += f", or add {phase} to its hook types" if add else ""
    else:
        own = "Secret" if _is_producer(target, ref) else target.kind
        fix = f"Add {phase} to the hook types of {target.label}, or give" if add else "Give"
        fix += f" {m.label} a {own} of its own, under another name, that is a {phase} hook ({argocd.HOOK}: {phase})"
    return Hit(
        f"{m.label} ({phase} hook) uses {_what(target, ref)}, which is not in the cluster when {phase} "
        f"hooks run ({reason}): {_consequence(target, ref, _DELETE_CONSEQUENCE, scc)}. {fix}.",
        ref.span,
        ref.field_path,
        m,
    )


# --- HL302 -------------------------------------------------------------------------------------


#: Annotations that give an object its own phase or wave.
_STEP_KEYS = (argocd.SYNC_WAVE, argocd.HELM_HOOK_WEIGHT, argocd.HOOK, argocd.HELM_HOOK)


@check("HL302", scope="application")
def wave_overridden_by_argocd(manifests: list[Manifest], ctx: Context) -> Iterator[Hit]:
    """A Namespace or CRD whose written phase or wave (a sync-wave, hook-weight or hook annotation)
    adjustDeps overrides by moving it to another (phase, wave) step (§4b, addendum 1)."""
    if not argocd.supports(ctx.config.argocd_version, "pull-forward"):
        return
    plan = ctx.plan
    reported: set[int] = set()
    for t in plan.tasks:
        anchor = t.pulled_before
        if anchor is None or (t.phase, t.wave) == (t.own_phase, t.own_wave) or id(t.manifest) in reported:
            continue
        m = t.manifest
        if not any(key in m.annotations for key in _STEP_KEYS):
            continue  # nothing written to override: pulling a plain Namespace forward is expected
        reported.add(id(m))
        dependant = "its first custom resource" if m.kind == "CustomResourceDefinition" else "the first object in it"
        yield Hit(
            f"{m.label} is in {step_text(t.own_phase, t.own_wave)} by its annotations, but Argo CD "
            f"applies it in {t.step_text()}, just before {anchor.label}, {dependant} "
            "(adjustDeps pulls Namespaces and CRDs forward): its own phase and sync-wave have no "
            f"effect. Drop them, or give {m.label} the step it really runs in.",
            m.annotation_value_span(*_STEP_KEYS),
            "metadata.annotations",
            m,
        )


# --- HL303 -------------------------------------------------------------------------------------
# HL303 is an object check: it needs no plan, only the Helm hook values.

#: Workload kinds: running them twice, or on a first install, does real work.
WORKLOAD_KINDS = frozenset(
    {"Job", "Pod", "CronJob", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController",
     "Workflow", "Rollout"}
)


@check("HL303", kinds=WORKLOAD_KINDS)
def helm_hook_runs_in_both_phases(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """A Helm hook workload that Argo CD runs in PreSync *and* PostSync, or on every sync although
    Helm would run it on upgrades only, or once, on install only (§3 "Install vs upgrade"):
    ``GE/sync/hook/helm/type.go`` ``hookTypes`` maps pre-install and pre-upgrade to PreSync,
    post-install and post-upgrade to PostSync, and nothing tells an install from an upgrade."""
    if not m.hook.from_helm or m.kind not in WORKLOAD_KINDS or not m.hook.phases:
        return
    if m.kind == "Rollout" and m.pod_spec_path is None:  # a Rollout of another group than Argo Rollouts'
        return
    value = m.annotations.get(argocd.HELM_HOOK, "")
    items = argocd.annotation_csv(value)
    span = m.annotation_value_span(argocd.HELM_HOOK)
    field = f"metadata.annotations.{argocd.HELM_HOOK}"
    if "PreSync" in m.hook.phases and "PostSync" in m.hook.phases:
        yield Hit(
            f"helm.sh/hook '{value}' on {m.label} mixes pre-* and post-* events: Argo CD maps them to "
            "PreSync and PostSync and runs the hook twice on every sync, before and after the "
            "rollout. Keep the events of one side (pre-install,pre-upgrade or "
            "post-install,post-upgrade), or split it into two hooks.",
            span,
            field,
        )
        return
    for upgrade, install in (("pre-upgrade", "pre-install"), ("post-upgrade", "post-install")):
        if upgrade in items and install not in items:
            phase = argocd.HELM_SYNC_HOOKS[upgrade]
            yield Hit(
                f"helm.sh/hook '{value}' on {m.label} asks for {upgrade} only, but Argo CD cannot tell "
                f"an install from an upgrade: it runs the hook as {phase} on every sync, the first "
                "one included. Make the hook safe to run on a fresh install, or add "
                f"{install} to say so.",
                span,
                field,
            )
            return
    for install, upgrade in (("pre-install", "pre-upgrade"), ("post-install", "post-upgrade")):
        if install in items and upgrade not in items:
            phase = argocd.HELM_SYNC_HOOKS[install]
            yield Hit(
                f"helm.sh/hook '{value}' on {m.label} asks for {install} only, which Helm runs once, when "
                f"the release is first installed; Argo CD cannot tell an install from an upgrade and runs "
                f"it as {phase} on every sync. Make the hook safe to run again on every sync, or add "
                f"{upgrade} to say so.",
                span,
                field,
            )
            return


# --- HL304 -------------------------------------------------------------------------------------


@check("HL304", scope="application")
def too_many_waves(manifests: list[Manifest], ctx: Context) -> Iterator[Hit]:
    """More health-gated (phase, wave) steps than ``max-waves``: each step waits for health and
    ``ARGOCD_SYNC_WAVE_DELAY`` (§4c, §5a, §5b); SyncFail steps are not counted (§5c), nor, while the
    run configures no ``argoproj.io_Application`` health check, steps that hold only child
    Applications: such an Application is healthy once applied, so nothing waits for it (HL307)."""
    limit = ctx.config.max_waves
    gated = ctx.plan.gated_steps
    if len(gated) <= limit:
        return
    unwaited = 0
    if not _configures_application_health(manifests):
        waited = [s for s in gated if not all(t.manifest.is_application for t in s.tasks)]
        unwaited = len(gated) - len(waited)
        gated = waited
        if len(gated) <= limit:
            return
    step = gated[limit]
    m = step.tasks[0].manifest
    left_out = (
        f" ({unwaited} more step{'s' if unwaited > 1 else ''} holding only child Applications "
        f"{'are' if unwaited > 1 else 'is'} not counted: without an argoproj.io_Application health check "
        "nothing waits for them)"
        if unwaited
        else ""
    )
    key = _written_key(m, argocd.SYNC_WAVE, argocd.HELM_HOOK_WEIGHT, argocd.HOOK, argocd.HELM_HOOK)
    yield Hit(
        f"The sync plan has {len(gated)} health-gated (phase, wave) steps{left_out}, more than max-waves "
        f"({limit}); step {step.index} ({step_text(step.phase, step.wave)}) starts with {m.label}. Each "
        "step waits for every object of the previous one to be healthy plus ARGOCD_SYNC_WAVE_DELAY (2 s "
        "by default), so every sync pays for each one. Merge waves that do not depend on each other.",
        m.annotation_value_span(argocd.SYNC_WAVE, argocd.HELM_HOOK_WEIGHT, argocd.HOOK, argocd.HELM_HOOK),
        f"metadata.annotations.{key}" if key else "metadata.name",
        m,
    )


def _written_key(m: Manifest, *keys: str) -> str | None:
    """The first of ``keys`` that ``m``'s annotations hold as written: the one
    :meth:`~hooklint.model.Manifest.annotation_value_span` points at (None: it points at the
    object's anchor), so that a finding's field path names the field at its position."""
    raw = m.raw_annotations
    return next((k for k in keys if raw is not None and k in raw), None)


# --- HL305 -------------------------------------------------------------------------------------


@check("HL305", scope="application")
def hooks_only_application(manifests: list[Manifest], ctx: Context) -> Iterator[Hit]:
    """Every object of the application is a hook (or Skip, or ignored): nothing counts toward the
    application's sync status (``AC controller/state.go``, pitfall P12). Not said of a partial
    rendering: the entries left out may add plain resources; nor of a kustomize Component rendered
    on its own (:attr:`~hooklint.checks.Context.component_alone`): no application syncs it alone,
    and those that use it add their own resources."""
    if ctx.partial or ctx.component_alone:
        return
    first_hook: Manifest | None = None
    hooks = 0
    for m in ctx.kept:
        if not m.kind:
            continue
        if is_kustomize_config(m):
            return  # the folder is built with kustomize: its resources may live elsewhere
        if not m.hook.is_hook and not m.hook.skip:
            return
        if m.hook.phases:
            hooks += 1
            if first_hook is None:
                first_hook = m
    if first_hook is None:
        return
    yield Hit(
        f"Every object of this application is a hook ({hooks} hook{'s' if hooks != 1 else ''} run "
        "during a sync, no plain resource): hooks do not count toward sync status, so Argo CD "
        "shows the application Synced and auto-sync has no reason to start a sync. Add at least "
        "one plain resource (a ConfigMap is enough), or run the hooks from an application that "
        "has resources.",
        first_hook.annotation_value_span(argocd.HOOK, argocd.HELM_HOOK),
        f"metadata.annotations.{_written_key(first_hook, argocd.HOOK, argocd.HELM_HOOK) or argocd.HOOK}",
        first_hook,
    )


# --- HL207 -------------------------------------------------------------------------------------


@check("HL207", scope="application")
def generate_name_collision(manifests: list[Manifest], ctx: Context) -> Iterator[Hit]:
    """``generateName`` hooks that Argo CD gives the same name in one phase, or a name over 63
    characters (``getSyncTasks``: prefix + 7 revision characters + ``-<phase>-<unix time>``; §4c
    "generateName", addendum 3). The same name matters only for the same group, kind and namespace."""
    first_seen: dict[tuple, Manifest] = {}
    for m in manifests:
        if not m.hook.is_hook or not m.hook.phases or m.name or not m.generate_name or m.metadata is None:
            continue
        span = m.metadata.value_span("generateName")
        clashes: list[str] = []
        other: Manifest | None = None
        for phase in m.hook.phases:
            key = (phase, m.group, m.kind, m.namespace or "", m.generate_name)
            seen = first_seen.get(key)
            if seen is None:
                first_seen[key] = m
            else:
                clashes.append(phase)
                other = other or seen
        if other is not None:
            where = f"{other.display_path}:{other.anchor.line}" if other.path != m.path else f"line {other.anchor.line}"
            yield Hit(
                f"{m.label} shares generateName '{m.generate_name}' with the {other.kind} at {where} in "
                f"{' and '.join(clashes)}: Argo CD names both "
                f"'{m.generate_name}<revision>-{clashes[0].lower()}-<start time>', so the second create "
                "fails with AlreadyExists and the sync fails. Give each hook its own generateName.",
                span,
                "metadata.generateName",
                m,
            )
        longest = max(m.hook.phases, key=lambda p: argocd.hook_generated_name_length(m.generate_name or "", p))
        length = argocd.hook_generated_name_length(m.generate_name, longest)
        if length > NAME_LIMIT:
            room = NAME_LIMIT - (length - len(m.generate_name))
            yield Hit(
                f"generateName '{m.generate_name}' of {m.label} is {len(m.generate_name)} characters: Argo CD "
                f"adds 7 revision characters, '-{longest.lower()}-' and a 10-digit start time, giving "
                f"a {length}-character name, over Kubernetes' {NAME_LIMIT}-character limit, so the "
                f"create fails and the sync with it. Shorten generateName to at most {room} characters.",
                span,
                "metadata.generateName",
                m,
            )


# --- HL019 -------------------------------------------------------------------------------------


@check("HL019", scope="application")
def repeated_object(manifests: list[Manifest], ctx: Context) -> Iterator[Hit]:
    """The same group, kind, namespace and name more than once in one application: Argo CD keeps
    the last copy and sets a RepeatedResourceWarning condition ("Resource ... appeared N times
    among application resources", ``AC controller/state.go`` ``DeduplicateTargetObjects``).
    Reported at every copy but the first, naming the first. Objects without ``metadata.namespace``
    are compared with each other only (their destination namespace is not known here)."""
    repeated = ctx.repeated
    if not repeated:
        return
    counts: dict[int, int] = {}
    entries = dict(repeated)
    for first, kept in repeated.values():
        counts[id(first)] = counts.get(id(first), 1) + 1
        entries[id(kept)] = (first, kept)
    for m in manifests:
        entry = entries.get(id(m))
        if entry is None:
            continue
        first, kept = entry
        if m is first:
            continue
        first_path, first_span = first.locate("metadata.name", first.anchor)
        here_path = m.locate("metadata.name", m.anchor)[0]
        where = f"line {first_span.line}" if first_path == here_path else f"{first_path}:{first_span.line}"
        if m is kept:
            fate = "this copy is the one it applies; the earlier copies are never applied, so edits to them have no effect"
        else:
            kept_path, kept_span = kept.locate("metadata.name", kept.anchor)
            kept_at = f"line {kept_span.line}" if kept_path == here_path else f"{kept_path}:{kept_span.line}"
            fate = f"it applies the copy at {kept_at}, and this one is never applied"
        yield Hit(
            f"{m.label} is defined again here (first at {where}; {counts[id(first)]} copies in this "
            "application): Argo CD keeps only the last copy of an object and warns \"appeared "
            f"{counts[id(first)]} times among application resources\"; {fate}. Keep one copy.",
            m.anchor,
            "metadata.name",
            m,
        )


# --- HL306 -------------------------------------------------------------------------------------

_DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class"


def _wait_for_first_consumer_classes(manifests: list[Manifest], cluster: list[str]) -> tuple[set[str], str | None]:
    """Names of the StorageClasses with ``volumeBindingMode: WaitForFirstConsumer``: the run's, and
    the cluster's named by ``wait-for-first-consumer-classes`` (``cluster``) that the run does not
    define otherwise (a StorageClass in the run is what the cluster will hold); and the name of the
    run's default class among them (annotation ``storageclass.kubernetes.io/is-default-class:
    "true"``), if any."""
    names = set(cluster)
    default = None
    for m in manifests:
        if m.kind != "StorageClass" or not m.name:
            continue
        if m.body.get("volumeBindingMode") == "WaitForFirstConsumer":
            names.add(m.name)
            if m.annotations.get(_DEFAULT_CLASS) == "true":
                default = m.name
        else:
            names.discard(m.name)
    return names, default


@check("HL306", scope="application")
def wait_for_first_consumer_pvc(manifests: list[Manifest], ctx: Context) -> Iterator[Hit]:
    """A PersistentVolumeClaim whose StorageClass (in the run, or listed in
    ``wait-for-first-consumer-classes``) binds ``WaitForFirstConsumer``,
    applied in an earlier step than every pod template of the run that mounts it: the claim stays
    Pending (health Progressing, ``GE/health/health_pvc.go``: Healthy only when Bound) until a pod
    using it is scheduled, so its step never completes (§5a)."""
    classes, default = _wait_for_first_consumer_classes(manifests, ctx.config.wait_for_first_consumer_classes)
    if not classes:
        return
    consumers: dict[int, list[Task]] = {}
    for m in manifests:
        first = ctx.plan.first_task(m)
        if first is None or m.kind == "CronJob":
            continue
        for ref in pod_references(m):
            if ref.kind != "PersistentVolumeClaim":
                continue
            claim = ctx.find("PersistentVolumeClaim", m.namespace, ref.name)
            if claim is not None:
                consumers.setdefault(id(claim), []).append(first)
    for m in manifests:
        if m.kind != "PersistentVolumeClaim" or id(m) not in consumers:
            continue
        spec = m.body.get("spec")
        spec = spec if isinstance(spec, Map) else None
        named = spec.get("storageClassName") if spec is not None else None
        storage_class = named if isinstance(named, str) else default if named is None else None
        if storage_class not in classes:
            continue
        own = ctx.plan.first_task(m)
        if own is None:
            continue
        first_use = min(consumers[id(m)], key=lambda t: t.step_key)
        if own.step_key >= first_use.step_key:
            continue
        how = f"StorageClass '{storage_class}'" + ("" if named is not None else " (the default class)")
        yield Hit(
            f"{m.label} ({own.step_text()}) uses {how}, which binds WaitForFirstConsumer, and every "
            f"pod that mounts it comes in a later step (first {first_use.manifest.label} in "
            f"{first_use.step_text()}): the claim stays Pending until a pod using it is scheduled, "
            "so its step never becomes healthy and the sync waits forever. Apply the claim in "
            f"{first_use.step_text()} (the step of its first consumer), or move a consumer to "
            f"{own.step_text()}.",
            spec.value_span("storageClassName") if spec is not None and named is not None else m.anchor,
            "spec.storageClassName",
            m,
        )


# --- HL307 -------------------------------------------------------------------------------------

def _configures_application_health(manifests: list[Manifest], kind: str = "Application") -> bool:
    """Whether the run configures a health check for ``argoproj.io/<kind>`` (Application or
    ApplicationSet): the ``argocd-cm`` key ``resource.customizations.health.argoproj.io_<kind>``,
    the older ``resource.customizations`` block naming ``argoproj.io/<kind>`` with a
    ``health.lua``, or an Argo CD operator ``ArgoCD`` resource with a ``resourceHealthChecks``
    entry for it (``docs/operator-manual/health.md``, §5a)."""
    key = f"resource.customizations.health.argoproj.io_{kind}"
    for m in manifests:
        if m.kind == "ConfigMap" and m.name == "argocd-cm":
            data = m.body.get("data")
            if isinstance(data, Map):
                if isinstance(data.get(key), str):
                    return True
                block = data.get("resource.customizations")
                if isinstance(block, str) and "health.lua" in block and any(
                    line.strip().rstrip(":").strip("'\"") == f"argoproj.io/{kind}" for line in block.splitlines()
                ):
                    return True
        elif m.is_argo("ArgoCD"):
            spec = m.body.get("spec")
            checks = spec.get("resourceHealthChecks") if isinstance(spec, Map) else None
            if isinstance(checks, list) and any(
                isinstance(c, Map) and c.get("group") == "argoproj.io" and c.get("kind") == kind for c in checks
            ):
                return True
    return False


def _rolling_sync(m: Manifest) -> bool:
    """An ApplicationSet with ``spec.strategy.type: RollingSync`` (progressive sync)."""
    strategy = get_map(get_map(m.body, "spec"), "strategy")
    return strategy is not None and strategy.get("type") == "RollingSync"


@check("HL307", scope="application")
def application_wave_without_health(manifests: list[Manifest], ctx: Context) -> Iterator[Hit]:
    """Child Applications or ApplicationSets in more than one step, where a child of an earlier
    step does not wait for what it deploys. An Application has no built-in health since 1.8
    (#3781) unless the run configures one, so it counts as healthy once applied. An ApplicationSet
    is Healthy as soon as its ResourcesUpToDate condition is True, that is once it has generated
    its Applications, not once they synced (argo-cd ``resource_customizations/argoproj.io/
    ApplicationSet/health.lua``, v2.3.0 to v3.5.1); from 3.2.0 a RollingSync rollout keeps it
    Progressing (``RolloutProgressing``, #23506), so a RollingSync ApplicationSet is taken to wait
    there, as is one whose health the run configures (§5a)."""
    version = ctx.config.argocd_version
    apps_wait = None
    appsets_wait = None
    steps: dict[tuple[int, int], list[tuple[Task, bool]]] = {}
    for m in manifests:
        appset = m.is_argo("ApplicationSet")
        if not m.is_application and not appset:
            continue
        task = ctx.plan.first_task(m)
        if task is None or task.phase == "SyncFail":
            continue
        if appset:
            if appsets_wait is None:
                appsets_wait = _configures_application_health(manifests, "ApplicationSet")
            waits = appsets_wait or (_rolling_sync(m) and argocd.supports(version, "appset-rollout-health"))
        else:
            if apps_wait is None:
                apps_wait = _configures_application_health(manifests)
            waits = apps_wait
        steps.setdefault(task.step_key, []).append((task, waits))
    if len(steps) < 2:
        return
    keys = sorted(steps)
    early = next((k for k in keys[:-1] if any(not waits for _, waits in steps[k])), None)
    if early is None:
        return
    first = next(t for t, waits in steps[early] if not waits)
    later = [steps[k][0][0] for k in keys if k > early]
    second = later[0]
    m = second.manifest
    shown = [steps[k][0][0] for k in keys]  # the first child of each step, in plan order
    if first.manifest.is_application:
        cause = (
            "nothing in this application configures the argoproj.io_Application health check: Argo CD "
            "has no built-in health for Applications (removed in 1.8), so each counts as healthy as soon "
            "as it is applied"
        )
        waited = f"the Applications of {first.step_text()} have synced or become healthy"
        fix = ("Configure resource.customizations.health.argoproj.io_Application in argocd-cm, or do not rely "
               "on waves to order child Applications.")  # fmt: skip
    else:
        cause = (
            f"{first.manifest.label} counts as healthy as soon as it has generated its Applications (its "
            "health check reads only the ResourcesUpToDate condition), not once they have synced"
        )
        waited = f"the Applications of {first.manifest.label} have synced or become healthy"
        fix = ("Order what depends on them by other means (a RollingSync strategy on Argo CD 3.2 or later, "
               "sync retries), or do not rely on waves to order ApplicationSets.")  # fmt: skip
    children = "Child Applications" if all(t.manifest.is_application for k in keys for t, _ in steps[k]) else "Child Applications and ApplicationSets"
    yield Hit(
        f"{children} are applied in {len(shown)} steps "
        f"({', '.join(t.step_text() for t in shown)}), but {cause}, and {m.label} "
        f"({second.step_text()}) starts before {waited}. {fix}",
        m.annotation_value_span(argocd.SYNC_WAVE, argocd.HOOK),
        f"metadata.annotations.{argocd.SYNC_WAVE}",
        m,
    )


# --- HL308 -------------------------------------------------------------------------------------


def _configures_health(manifests: list[Manifest], group: str, kind: str) -> bool:
    """Whether the run configures a health check for ``group``/``kind`` as HL307 looks for the
    Application's: ``argocd-cm`` ``resource.customizations.health.<group>_<kind>``, the older
    ``resource.customizations`` block naming ``<group>/<kind>`` with a ``health.lua``, or an Argo
    CD operator ``ArgoCD`` resource's ``resourceHealthChecks`` entry (``docs/operator-manual/
    health.md``, §5a). A wildcard key (``*.example.com_*``) counts when it matches."""
    from fnmatch import fnmatchcase

    wanted = f"{group}_{kind}"
    for m in manifests:
        if m.kind == "ConfigMap" and m.name == "argocd-cm":
            data = m.body.get("data")
            if not isinstance(data, Map):
                continue
            prefix = "resource.customizations.health."
            for key in data:
                if isinstance(key, str) and key.startswith(prefix) and fnmatchcase(wanted, key[len(prefix):]):
                    return True
            block = data.get("resource.customizations")
            if isinstance(block, str) and f"{group}/{kind}" in block and "health.lua" in block:
                return True
        elif m.is_argo("ArgoCD"):
            spec = m.body.get("spec")
            checks = spec.get("resourceHealthChecks") if isinstance(spec, Map) else None
            if isinstance(checks, Seq) and any(
                isinstance(c, Map) and c.get("group") == group and c.get("kind") == kind for c in checks
            ):
                return True
    return False


def _names_in_spec(node: Any, name: str, path: str, inside: bool = False) -> str | None:
    """The dotted path of the first string equal to ``name`` under ``node`` that sits below a key
    mentioning a Secret or ConfigMap (``writeConnectionSecretToRef.name``, ``secretName``,
    ``credentials.secretRef.name``, ``configMapName``), else None."""
    if isinstance(node, Map):
        for key in node:
            if not isinstance(key, str):
                continue
            lowered = key.lower()
            below = inside or "secret" in lowered or "configmap" in lowered
            found = _names_in_spec(node.get(key), name, f"{path}.{key}", below)
            if found:
                return found
    elif isinstance(node, Seq):
        for i, item in enumerate(node):
            found = _names_in_spec(item, name, f"{path}[{i}]", inside)
            if found:
                return found
    elif inside and node == name:
        return path
    return None


@check("HL308", scope="application")
def hook_after_kind_without_health(manifests: list[Manifest], ctx: Context) -> Iterator[Hit]:
    """A later step depends on an earlier custom resource of a kind Argo CD has no health check
    for: ``Sync()`` (``GE pkg/sync/sync_context.go``, v3.5.1) counts a task done when
    ``health.GetResourceHealth`` returns nil ("some objects (e.g. secret) do not have health, and
    they automatically success"), so the next step starts as soon as the object is created.

    "Depends on", precisely: a pod spec of a hook or resource (not a CronJob, not a SyncFail hook)
    reads a Secret or ConfigMap (``env``, ``envFrom``, volumes, projected sources, pull secrets;
    not ``optional``) that no Secret or ConfigMap of the application defines, and a custom
    resource in the same namespace, first applied in an earlier (phase, wave) step, names it as a
    string below a key of its ``spec`` that mentions a Secret or ConfigMap
    (``writeConnectionSecretToRef.name``, ``secretName``): the controller of that resource writes
    what the later step reads, or both use the credentials of what the resource stands for. The kind has no health check when it has no built-in Go check
    (``GE pkg/health/health.go`` ``GetHealthCheckFunc``), no bundled Lua script
    (``resource_customizations/``, :func:`hooklint.argocd.has_health_check`) and none configured
    in the run (:func:`_configures_health`). Kubernetes' own kinds and Applications (HL307's) are
    left out."""
    plan = ctx.plan
    defined = {(m.kind, m.namespace or "", m.name) for m in manifests if m.kind in ("Secret", "ConfigMap") and m.name}
    writers: list[tuple[Manifest, Task]] = []
    for m in ctx.kept:
        if not m.kind or m.group in argocd.KUBERNETES_GROUPS or m.is_application or is_kustomize_config(m):
            continue
        task = plan.first_task(m)
        if task is None or task.phase == "SyncFail" or argocd.has_health_check(m.group, m.kind):
            continue
        if isinstance(m.body.get("spec"), Map):
            writers.append((m, task))
    if not writers:
        return
    configured: dict[tuple[str, str], bool] = {}
    proven: set[int] = set()
    for m in ctx.kept:
        first = plan.first_task(m)
        if first is None or first.phase == "SyncFail" or m.kind == "CronJob":
            continue
        for ref in pod_references(m):
            if ref.kind not in ("Secret", "ConfigMap") or (ref.kind, m.namespace or "", ref.name) in defined:
                continue
            for writer, task in writers:
                if task.step_key >= first.step_key or (writer.namespace or "") != (m.namespace or ""):
                    continue
                where = _names_in_spec(writer.body.get("spec"), ref.name, "spec")
                if where is None:
                    continue
                gk = (writer.group, writer.kind or "")
                if gk not in configured:
                    configured[gk] = _configures_health(manifests, *gk)
                if configured[gk]:
                    continue
                proven.add(id(writer))
                what = f"a {first.phase} hook" if m.hook.is_hook else "a plain resource"
                yield Hit(
                    f"{m.label} ({what}, {first.step_text()}) uses {ref.kind} {ref.name} ({ref.via}), which "
                    f"{writer.label} ({task.step_text()}) names in {where}, so it works with what "
                    f"{writer.label} provides: Argo CD has no health check for {writer.group}/{writer.kind}, so it "
                    f"counts {writer.label} done as soon as it is created and starts {first.step_text()} at once, "
                    f"before the controller behind it has made it ready; {m.label} may run against something "
                    "not ready yet (its pods wait while the "
                    f"{ref.kind} does not exist). Configure a health check for {writer.group}_{writer.kind} "
                    f"(resource.customizations.health in argocd-cm), or make {m.label} wait for it itself.",
                    ref.span,
                    ref.field_path,
                    m,
                )
                break
    yield from _unproven_followers(writers, proven, configured, manifests, plan)


def _unproven_followers(writers: list[tuple[Manifest, Task]], proven: set[int], configured: dict[tuple[str, str], bool],
                        manifests: list[Manifest], plan: SyncPlan) -> Iterator[Hit]:  # fmt: skip
    """HL308's note: a custom resource of a kind without health (a ``writers`` entry no warning
    named) that a later gated step follows with an object in the same namespace: that step
    starts as soon as the resource is created (the ``Sync()`` rule above; argo-cd #16509, as issue
    36 cites it), and hooklint cannot tell whether anything there needs it ready. One note per
    resource, at its wave (or hook) annotation, naming the next step."""
    for writer, task in writers:
        if id(writer) in proven:
            continue
        namespace = writer.namespace or ""
        follower: Task | None = None
        for t in plan.tasks:
            if t.phase != "SyncFail" and t.step_key > task.step_key and (t.manifest.namespace or "") == namespace:
                follower = t
                break
        if follower is None:
            continue
        kind = writer.kind
        assert kind is not None  # a writer has a kind
        if (writer.group, kind) not in configured:
            configured[(writer.group, kind)] = _configures_health(manifests, writer.group, kind)
        if configured[(writer.group, kind)]:
            continue
        yield Hit(
            f"{writer.label} ({task.step_text()}) is of kind {writer.group}/{writer.kind}, for which Argo CD has no health "
            f"check: it counts {writer.label} done as soon as it is created, so {follower.step_text()} (with "
            f"{follower.label}) starts at once, before the controller behind it has made it ready (argo-cd #16509). "
            f"hooklint cannot tell whether that step needs it ready; if it does, configure a health check for "
            f"{writer.group}_{writer.kind} (resource.customizations.health in argocd-cm), or make the later step wait "
            "for it itself.",
            writer.annotation_value_span(*_STEP_KEYS),
            f"metadata.annotations.{key}" if (key := _written_key(writer, *_STEP_KEYS)) else "metadata.name",
            writer,
            severity="note",
        )


# --- HL309 -------------------------------------------------------------------------------------


def _recreated_hook_policy(target: Manifest) -> str | None:
    """The delete policy that makes a sync hook ``target`` vanish between or during syncs
    (HookSucceeded, else BeforeHookCreation), or None (not a sync hook, or HookFailed alone)."""
    if not target.hook.is_hook or not target.hook.phases:
        return None
    for policy in ("HookSucceeded", "BeforeHookCreation"):
        if policy in target.hook.delete_policies:
            return policy
    return None


def _reads_recreated_hook(m: Manifest, target: Manifest, ref: Reference) -> bool:
    """Whether HL309 reports plain workload ``m`` reading ``target`` through ``ref``."""
    return (m.pod_spec_path is not None and not m.hook.is_hook and not m.hook.skip
            and ref.kind in ("Secret", "ConfigMap") and target.kind == ref.kind
            and _recreated_hook_policy(target) is not None)  # fmt: skip


def _recreated_hook_note(m: Manifest, target: Manifest, ref: Reference) -> str:
    """HL301's pointer to HL309 when both report the same reference."""
    if not _reads_recreated_hook(m, target, ref):
        return ""
    return f" HL309 reports too that {target.label} is a hook Argo CD deletes ({_recreated_hook_policy(target)})."


@check("HL309", scope="application")
def plain_resource_reads_recreated_hook(manifests: list[Manifest], ctx: Context) -> Iterator[Hit]:
    """A plain workload (a pod template kind that is no hook) reads a Secret or ConfigMap that is
    a sync hook (``env``, ``envFrom``, volumes, projected sources, pull secrets; not
    ``optional``). Argo CD deletes a hook by its delete policies (``GE pkg/sync/sync_context.go``
    ``runTasks``, v3.5.1): with HookSucceeded once its phase succeeds, so it is missing between
    syncs; with BeforeHookCreation (the default when no policy is valid, ``hook/delete_policy.go``)
    before it creates the hook again at each sync. A pod of the workload that starts while it is
    missing cannot start. A hook with HookFailed alone stays unless its phase fails and is not
    reported. When the hook also comes in a later step than the workload, HL301 reports that
    too, and this message says so."""
    plan = ctx.plan
    for m in ctx.kept:
        if m.pod_spec_path is None or m.hook.is_hook or m.hook.skip:
            continue
        first = plan.first_task(m)
        if first is None:
            continue
        seen: set[int] = set()
        for ref in pod_references(m):
            if ref.kind not in ("Secret", "ConfigMap"):
                continue
            target = ctx.find(ref.kind, m.namespace, ref.name)
            if target is None or id(target) in seen or not _reads_recreated_hook(m, target, ref):
                continue
            seen.add(id(target))
            policy = _recreated_hook_policy(target)
            phases = "/".join(target.hook.phases)
            if policy == "HookSucceeded":
                fate = f"deletes it as soon as its {phases} phase succeeds (HookSucceeded), so it is missing between syncs"
            else:
                written = ("BeforeHookCreation" in argocd.annotation_csv(target.annotations.get(argocd.HOOK_DELETE_POLICY))
                           or "before-hook-creation" in argocd.annotation_csv(target.annotations.get(argocd.HELM_HOOK_DELETE_POLICY)))  # fmt: skip
                fate = ("deletes it and creates it again in its step of every sync (BeforeHookCreation"
                        f"{'' if written else ', the default'}), so it is missing for a moment each time")  # fmt: skip
            if ref.via == "imagePullSecrets":
                effect = "pulls its images without these credentials, which fails for a private registry"
            elif ref.via.startswith("volume"):
                effect = f"stays in ContainerCreating, unable to mount {ref.via}"
            else:
                effect = "fails to start with CreateContainerConfigError"
            if target.hook.from_helm:
                phases += f" hook (Helm '{target.annotations.get(argocd.HELM_HOOK, '')}')"
            else:
                phases += " hook"
            target_task = plan.first_task(target)
            later = (
                f" HL301 reports too that {target.label} comes in a later step ({target_task.step_text()})."
                if target_task is not None and target_task.step_key > first.step_key
                else ""
            )
            yield Hit(
                f"{m.label} uses {target.label} ({ref.via}), which is a {phases}: Argo CD {fate}, and "
                f"a pod of {m.label} that starts then (a restart, a rollout, a rescheduling) {effect}. "
                f"Make {target.label} a plain resource (with a lower sync-wave than {m.label} if it must "
                f"come first).{later}",
                ref.span,
                ref.field_path,
                m,
                involves=(target,),
            )


# --- HL310 -------------------------------------------------------------------------------------

_RBAC_KINDS = ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding")


@check("HL310", scope="application")
def hook_same_step_as_its_rbac(manifests: list[Manifest], ctx: Context) -> Iterator[Hit]:
    """A hook Job or Pod whose ServiceAccount's RoleBindings/ClusterRoleBindings
    (:class:`_BindingIndex`), or the Roles/ClusterRoles they bind, are applied in the same (phase,
    wave) step as the hook. Within a step gitops-engine creates by kind order (``GE
    pkg/sync/sync_tasks.go`` ``kindOrder``: ServiceAccount, ClusterRole, ClusterRoleBinding, Role,
    RoleBinding, then Pod and Job) and ``runTasks`` waits for each kind's creates before the next
    kind's (``processCreateTasks``, v3.5.1): the objects exist before the hook. What lags is the
    API server's RBAC authorizer, which answers from informer caches of Roles and bindings: a
    binding created a moment ago may not grant anything yet to the hook's first API calls (with
    several API servers, each has its own cache). The ServiceAccount alone is not reported:
    it exists before the hook is created. An RBAC object that is itself a hook is re-created
    with the hook on every sync (BeforeHookCreation), a plain one only on the first sync."""
    plan = ctx.plan
    bindings: _BindingIndex | None = None
    for m in ctx.kept:
        if m.kind not in ("Job", "Pod") or not m.hook.is_hook or not m.hook.phases:
            continue
        pod = m.pod_spec()
        if pod is None:
            continue
        sa, key = pod.service_account()
        if sa is None:
            continue
        if bindings is None:
            bindings = _BindingIndex(manifests)
        rbac: list[Manifest] = []
        for binding in bindings.granting(m.namespace or "", sa):
            rbac.append(binding)
            ref = get_map(binding.body, "roleRef")
            kind, name = (ref.get("kind"), ref.get("name")) if ref is not None else (None, None)
            if kind in ("Role", "ClusterRole") and isinstance(name, str):
                role = ctx.find(kind, binding.namespace, name)
                if role is not None and role not in rbac:
                    rbac.append(role)
        for task in plan.tasks_of(m):
            if task.phase == "SyncFail":
                continue
            same = [r for r in rbac if any(t.step_key == task.step_key for t in plan.tasks_of(r))]
            if not same:
                continue
            labels = [r.label for r in same]
            names = labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]
            one = len(same) == 1
            hooks = [r for r in same if r.hook.is_hook]
            if not hooks:  # plain RBAC objects are created on the first sync only
                when = "on the first sync"
            else:  # a hook is deleted and created again with the hook on every sync (BeforeHookCreation)
                hook_labels = [r.label for r in hooks]
                subject = (("it" if one else "they") if len(hooks) == len(same) else hook_labels[0] if len(hooks) == 1
                           else ", ".join(hook_labels[:-1]) + " and " + hook_labels[-1])  # fmt: skip
                when = (f"on every sync: {subject} {'is a hook' if len(hooks) == 1 else 'are hooks'} too, created "
                        "again with the hook each time")  # fmt: skip
            earlier = f"a sync-wave lower than {task.wave}" + ("" if task.phase == "PreSync" else f", or before the {task.phase} phase")
            yield Hit(
                f"{m.label} runs as ServiceAccount {sa}, and {names} {'is' if one else 'are'} applied in the "
                f"same step ({task.step_text()}): Argo CD creates {'it' if one else 'them'} just before the hook "
                "(kind order), but the API server's RBAC authorizer sees a new Role or binding only once its "
                f"cache has it, so the hook's first API calls can fail with Forbidden {when}. Apply "
                f"{'it' if one else 'them'} in an earlier step ({earlier}).",
                pod.spec.value_span(key),
                f"{pod.path}.{key}",
                m,
                involves=tuple(same),
            )
            break


# --- HL024 -------------------------------------------------------------------------------------


def _step_neighbours(m: Manifest, task: Task, ctx: Context) -> list[str]:
    """What the wave of ``m`` (a plain resource at ``task``) puts out of order: each object of the
    run ``m``'s pod spec uses that comes in a later step (``before Secret/x (Sync wave 0), which it
    uses``), and each one whose pod spec uses ``m`` that comes in an earlier step (``after
    Deployment/y (Sync wave 0), which uses it``)."""
    out: list[str] = []
    for ref in pod_references(m):
        target = ctx.find(ref.kind, m.namespace, ref.name)
        if target is None:
            continue
        first = ctx.plan.first_task(target)
        if first is not None and first.step_key > task.step_key:
            out.append(f"before {target.label} ({first.step_text()}), which it uses")
    for other in ctx.kept:
        if other.pod_spec_path is None:  # m itself is in its own step: never "after"
            continue
        first = ctx.plan.first_task(other)
        if first is None or first.step_key >= task.step_key:
            continue
        if any(ctx.find(r.kind, other.namespace, r.name) is m for r in pod_references(other)):
            out.append(f"after {other.label} ({first.step_text()}), which uses it")
    return out


@check("HL024", annotated=True)
def helm_weight_on_plain_resource(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """``helm.sh/hook-weight`` on an object that is no hook becomes its sync wave when it has no
    valid ``argocd.argoproj.io/sync-wave``: argo-cd v3.5.1 ``gitops-engine/pkg/sync/syncwaves/
    waves.go`` ``Wave()`` falls back to ``hook/helm/weight.go`` ``Weight()``, which reads the weight
    "not tak[ing] into account if this is or is not a hook" (§1), while Helm reads the weight of
    hooks only. A weight of 0 changes nothing and is not reported. A note; a warning (the rule's
    severity) when the moved wave puts the object before an object it uses or after one that
    uses it (HL301 then reports the reference too)."""
    wave = m.hook.wave
    if wave.source != "helm" or wave.value == 0 or m.hook.is_hook:
        return
    task = ctx.plan.first_task(m)
    if task is None:  # Skip (with or without a delete hook type): never applied by a sync
        return
    moved = _step_neighbours(m, task, ctx)
    written = m.annotations[argocd.HELM_HOOK_WEIGHT]
    because = (
        f" It now comes {'; and '.join(moved)} (HL301)."
        if moved
        else ""
    )
    yield Hit(
        f"helm.sh/hook-weight '{written}' on {m.label}, which is not a hook, becomes its sync wave: with no "
        "argocd.argoproj.io/sync-wave, Argo CD takes the wave of any object from helm.sh/hook-weight, so it "
        f"applies {m.label} in {task.step_text()}, although Helm ignores the weight of a plain resource."
        f"{because} Set argocd.argoproj.io/sync-wave to the wave you mean (\"0\" keeps it with the others), "
        "or drop the weight.",
        m.annotation_value_span(argocd.HELM_HOOK_WEIGHT),
        f"metadata.annotations.{argocd.HELM_HOOK_WEIGHT}",
        severity=None if moved else "note",
    )


# --- HL311 -------------------------------------------------------------------------------------


@check("HL311", scope="application")
def wave_gated_by_loadbalancer(manifests: list[Manifest], ctx: Context) -> Iterator[Hit]:
    """A ``type: LoadBalancer`` Service applied in a health-gated step that a later step follows
    (a later wave, or a later phase's hooks): argo-cd v3.5.1 ``gitops-engine/pkg/health/
    health_service.go`` ``getCorev1ServiceHealth`` says Progressing until
    ``status.loadBalancer.ingress`` holds an address, and ``Sync()`` starts a step only when every
    object of the previous one is healthy (§5a, §5b), so on a cluster where nothing assigns
    load-balancer addresses (kind, minikube, bare metal without MetalLB) the sync waits at that
    step. Not reported when the run configures a health check for ``Service``
    (:func:`_configures_health`), nor for a Service in the last gated step or in SyncFail. A note:
    most clusters assign the address within minutes."""
    plan = ctx.plan
    gated = plan.gated_steps
    if len(gated) < 2:
        return
    configured: bool | None = None
    for m in ctx.kept:
        if m.kind != "Service" or m.group != "":
            continue
        spec = get_map(m.body, "spec")
        if spec is None or spec.get("type") != "LoadBalancer":
            continue
        for task in plan.tasks_of(m):
            later = [s for s in gated if s.key > task.step_key]
            if task.phase == "SyncFail" or not later:
                continue
            if configured is None:
                configured = _configures_health(manifests, "", "Service")
            if configured:
                return
            step = later[0]
            yield Hit(
                f"{m.label} is a LoadBalancer Service applied in {task.step_text()}, and {len(later)} later "
                f"step{'s' if len(later) > 1 else ''} follow{'s' if len(later) == 1 else ''} (the next, "
                f"{step_text(step.phase, step.wave)}, starts with {step.tasks[0].manifest.label}): Argo CD counts a "
                "LoadBalancer Service Progressing until the cluster gives it an ingress address, and starts a step "
                "only when the previous one is healthy, so on a cluster without a load-balancer provider (kind, "
                "minikube, bare metal without MetalLB) the sync waits there until someone terminates it. Apply "
                "the Service in the last wave, or make sure every target cluster assigns load-balancer addresses.",
                spec.value_span("type"),
                "spec.type",
                m,
            )
            break
