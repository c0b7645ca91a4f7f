"""HL201-HL206, HL208-HL211: hook lifecycle: retries, deadlines, name collisions, restart policy, hooks that never complete or stay behind."""

from __future__ import annotations

import re
from typing import Any, Iterator

from hooklint import argocd
from hooklint.checks import Context, Hit, check
from hooklint.findings import Span
from hooklint.images import parse_image
from hooklint.model import BASELINE_CAPABILITIES, FOREIGN_KINDS, JOB_LIKE, LONG_RUNNING_KINDS, POD_TEMPLATE_KINDS, RUN_TO_COMPLETION_KINDS, Container, Manifest, PodSpec, get_map
from hooklint.yamlio import Map, Seq

#: Kinds whose re-apply over a finished object neither re-runs nor may change its template.
RUN_ONCE_KINDS = POD_TEMPLATE_KINDS | {"Workflow"}


#: What waits for a workload Argo CD never applies: a ``Skip`` object or an ignored hook (a hook
#: with no valid type, ``GE/sync/ignore/ignore.go``) without a delete type, linted only with
#: ``workload-scope: all`` (no sync phase, no delete type: :attr:`argocd.HookInfo.phases`).
NEVER_APPLIED = "Argo CD never applies it as it stands, so no sync or Application deletion waits for it"


def _waiting(m: Manifest) -> str:
    """What a running hook holds up: ``the sync`` for a sync-phase hook (a plain workload linted
    with ``workload-scope: all`` is in the Sync phase); ``the Application's deletion`` for a
    PreDelete/PostDelete hook, which the controller runs at Application deletion and waits for
    while it is Progressing (``controller/hook.go`` ``executeHooks``, §4d); both for a hook of
    both; for an object Argo CD never applies (:data:`NEVER_APPLIED`), whatever created it."""
    if m.hook.phases and m.hook.delete_types:
        return "the sync (or the Application's deletion)"
    if m.hook.phases:
        return "the sync"
    if m.hook.delete_types:
        return "the Application's deletion"
    return f"whatever created it ({NEVER_APPLIED})"


def _noun(m: Manifest) -> str:
    """What HL201 and HL202 call ``m``: its kind for a plain workload linted with ``workload-scope:
    all`` (no hook annotation), which Argo CD applies in the Sync phase and waits for as any
    resource of its wave ("waiting for healthy state of GROUP/KIND/NAME", ``setRunningPhase`` in
    ``gitops-engine/pkg/sync/sync_context.go``, argo-cd v3.5.1); ``hook`` for anything with a hook
    annotation (a ``Skip`` object and an ignored hook included)."""
    return (m.kind or "workload") if m.hook.phases and not m.hook.is_hook else "hook"


def _spec_key_span(m: Manifest):
    return m.body.key_span("spec") if "spec" in m.body else m.anchor


@check("HL201", kinds={"Job"})
def hook_missing_backoff_limit(m: Manifest, ctx: Context) -> Iterator[Hit]:
    if m.kind != "Job" or (m.group, m.kind) in FOREIGN_KINDS or not ctx.in_scope(m):  # not Volcano's Job
        return
    spec = get_map(m.body, "spec")
    if spec is not None and "backoffLimit" in spec:
        return
    noun = _noun(m)
    yield Hit(
        f"{m.label} has no spec.backoffLimit, so a failing {noun} is retried 6 times (the Kubernetes "
        f"default) with growing back-off while {_waiting(m)} waits. Set spec.backoffLimit (0-2 is "
        f"typical for a {'hook' if noun == 'hook' else noun + ' that runs a task during a sync'}).",
        _spec_key_span(m),
        "spec.backoffLimit",
    )


@check("HL202", kinds={"Job", "Pod"})
def hook_missing_active_deadline(m: Manifest, ctx: Context) -> Iterator[Hit]:
    if m.kind not in ("Job", "Pod") or (m.group, m.kind) in FOREIGN_KINDS or not ctx.in_scope(m):
        return
    spec = get_map(m.body, "spec")
    if spec is not None and "activeDeadlineSeconds" in spec:
        return
    pod = m.pod_spec()
    if m.kind == "Job" and pod is not None and "activeDeadlineSeconds" in pod.spec:
        return
    if m.hook.phases and not m.hook.is_hook:  # a plain workload, linted with workload-scope: all
        stuck = (f"keeps Argo CD \"waiting for healthy state of {m.group}/{m.kind}/{m.name}\" and wedges every sync "
                 "until someone terminates it")  # fmt: skip
    elif m.hook.phases:
        stuck = "keeps Argo CD \"waiting for completion of hook\" and wedges every sync until someone terminates it"
        if m.hook.delete_types:
            stuck += ", and blocks deleting the Application until someone deletes the hook"
    elif m.hook.delete_types:
        stuck = (
            "blocks deleting the Application (Argo CD waits for every delete hook before it goes on) "
            "until someone deletes the hook"
        )
    else:
        stuck = f"runs until someone deletes it ({NEVER_APPLIED})"
    yield Hit(
        f"{m.label} has no spec.activeDeadlineSeconds: a {_noun(m)} that hangs {stuck}. Set "
        "spec.activeDeadlineSeconds.",
        _spec_key_span(m),
        "spec.activeDeadlineSeconds",
    )


@check("HL203", kinds=RUN_ONCE_KINDS)
def hook_fixed_name_collision(m: Manifest, ctx: Context) -> Iterator[Hit]:
    if not m.hook.is_hook or not m.hook.phases or not m.name or m.kind not in RUN_ONCE_KINDS:
        return
    if m.kind != "Workflow" and m.pod_spec_path is None:  # a Rollout of another group than Argo Rollouts'
        return
    if "BeforeHookCreation" in m.hook.delete_policies:
        return
    policies = ", ".join(m.hook.delete_policies)
    written = delete_policy_annotation(m)
    yield Hit(
        f"Hook {m.label} has a fixed name and its delete policies ({policies}) lack "
        "BeforeHookCreation: whenever the previous run is still there (a failed hook or sync, or a "
        "policy that never deletes it), Argo CD re-applies it instead of creating it, which fails "
        f"with {_immutable(m)}, or reuses the old result without running. {_before_hook_creation_fix(m)}",
        m.annotation_value_span(written) if written else m.metadata.value_span("name") if m.metadata is not None else m.anchor,
        f"metadata.annotations.{written}" if written else "metadata.name",
    )


def delete_policy_annotation(m: Manifest) -> str | None:
    """The delete-policy annotation HL203 points at and its fix appends to: Argo CD's when written,
    else Helm's, else None (the finding then points at ``metadata.name``)."""
    for key in (argocd.HOOK_DELETE_POLICY, argocd.HELM_HOOK_DELETE_POLICY):
        if key in m.annotations:
            return key
    return None


def _immutable(m: Manifest) -> str:
    """The API server's refusal to update the kept object in place: a Pod has no template, and its
    update validation allows only images, activeDeadlineSeconds, tolerations additions and a few
    more (Kubernetes ``ValidatePodUpdate``, pkg/apis/core/validation/validation.go)."""
    if m.kind == "Pod":
        return "\"pod updates may not change fields other than ...\" if its spec changed"
    return "\"field is immutable\" if the template changed"


def _before_hook_creation_fix(m: Manifest) -> str:
    if m.hook.from_helm:
        return "Add before-hook-creation to helm.sh/hook-delete-policy, or use metadata.generateName."
    return "Add BeforeHookCreation to argocd.argoproj.io/hook-delete-policy, or use metadata.generateName."


@check("HL205", kinds=JOB_LIKE)
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


@check("HL204", kinds={"Job"})
def hook_ttl_after_finished(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """ttlSecondsAfterFinished on a hook Job before Argo CD 3.0 (the Job can vanish before Argo CD
    sees it finish: the sync hangs; fixed by the hook finalizer, §6), or on a non-hook Job (the
    Job disappears, the application goes OutOfSync, and self-heal runs it again)."""
    if m.kind != "Job":
        return
    spec = get_map(m.body, "spec")
    if spec is None or "ttlSecondsAfterFinished" not in spec:
        return
    span, field = spec.key_span("ttlSecondsAfterFinished"), "spec.ttlSecondsAfterFinished"
    if m.hook.is_hook:
        if not m.hook.phases or argocd.supports(ctx.config.argocd_version, "hook-finalizer"):
            return
        yield Hit(
            f"Hook {m.label} sets spec.ttlSecondsAfterFinished: on Argo CD {argocd.version_text(ctx.config.argocd_version)} (before "
            "3.0) the Job can be deleted before Argo CD observes its completion, and the sync hangs "
            "on \"waiting for completion of hook\". Use a hook delete policy (HookSucceeded) instead.",
            span,
            field,
        )
    elif not m.hook.skip:
        yield Hit(
            f"{m.label} is not a hook but sets spec.ttlSecondsAfterFinished: once Kubernetes deletes "
            "the finished Job, the application is OutOfSync and a sync (or self-heal) runs it again. "
            "Make it a hook with a delete policy, or remove the TTL.",
            span,
            field,
        )


@check("HL206")
def hook_never_completes(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """Hooks whose health never reaches a terminal success (§5a health table; pitfall P10), hook
    Jobs and Pods that get a service-mesh sidecar which never exits, and hook Jobs and Pods whose
    pods the Pod Security level of their Namespace rejects."""
    if not m.hook.runs_as_hook:
        return
    yield from _sidecar_never_exits(m, ctx)
    yield from _pod_security_rejects(m, ctx)
    yield from _post_delete_without_health(m, ctx)
    spec = get_map(m.body, "spec")
    deletion_only = not m.hook.phases
    if m.kind == "Job" and spec is not None and spec.get("suspend") is True:
        effect = (
            "Argo CD does not wait on a Suspended delete hook, so the Application is deleted without "
            "the hook's work ever running"
            if deletion_only
            else "Argo CD waits for completion of the hook forever and the sync never finishes"
        )
        yield Hit(
            f"Hook {m.label} sets spec.suspend: true: the Job's health stays Suspended, so {effect}. "
            "Remove suspend.",
            spec.value_span("suspend"),
            "spec.suspend",
        )
    elif m.kind == "Pod" and spec is not None:
        policy = spec.get("restartPolicy")
        if policy in ("Never", "OnFailure"):
            return
        where = spec.value_span("restartPolicy") if "restartPolicy" in spec else m.body.key_span("spec")
        shown = "Always" if policy is None else str(policy)
        yield Hit(
            f"Hook {m.label} has restartPolicy {shown}{' (the default)' if policy is None else ''}: the "
            "Pod never reaches Succeeded. Argo CD counts it done as soon as it is Running and Ready, "
            "before its work has finished, then the container is restarted each time it exits, and "
            f"a crash loop {'blocks the deletion' if deletion_only else 'fails the sync'}. Set "
            "restartPolicy: Never.",
            where,
            "spec.restartPolicy",
        )
    elif m.kind in LONG_RUNNING_KINDS and m.pod_spec_path is not None and set(m.hook.phases) & {"PreSync", "PostSync"}:
        yield Hit(
            f"{m.label} is a {'/'.join(m.hook.phases)} hook, but a {m.kind} never completes: it keeps "
            "running after the hook step and is deleted and re-created on every sync. Use a Job for "
            "hook work, or make it a normal resource with a sync wave.",
            m.annotation_value_span(m.hook_annotation),
            f"metadata.annotations.{m.hook_annotation}",
        )


# --- HL206: Pod Security admission ---------------------------------------------------------------
# The Pod Security Standards as the pod-security-admission library checks them at its newest
# policy version ("latest"; k8s.io/pod-security-admission policy/check_*.go, kubernetes master of
# the mirror, 8f84a87). A Namespace's pod-security.kubernetes.io/enforce-version is not read: a
# pinned older version is checked as latest (the controls named here have not changed for years,
# but for the user-namespace relaxation of runAsNonRoot, runAsUser and procMount, from 1.35).

PSS_ENFORCE = "pod-security.kubernetes.io/enforce"
#: check_restrictedVolumes.go: the inline volume sources the restricted level forbids.
PSS_RESTRICTED_VOLUMES = (
    "hostPath", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "nfs", "iscsi", "glusterfs", "rbd",
    "flexVolume", "cinder", "cephfs", "flocker", "fc", "azureFile", "vsphereVolume", "quobyte", "azureDisk",
    "portworxVolume", "photonPersistentDisk", "scaleIO", "storageos",
)  # fmt: skip
#: check_seLinuxOptions.go: the SELinux types the baseline level allows (container_engine_t from 1.31).
PSS_SELINUX_TYPES = ("", "container_t", "container_init_t", "container_kvm_t", "container_engine_t")


def _pss_violations(pod: PodSpec, meta: Map | None, m: Manifest, level: str) -> list[tuple[str, str, Span, str]]:
    """The Pod Security controls the pod spec violates at ``level`` (baseline, or restricted, which
    includes baseline): (control, detail, span, field path) in the order of the standard's tables.
    Restates pod-security-admission ``policy/check_*.go``: hostNamespaces, privileged,
    capabilities_baseline, hostPathVolumes, hostPorts, appArmorProfile, seLinuxOptions,
    procMount, seccompProfile_baseline, windowsHostProcess (baseline); restrictedVolumes,
    allowPrivilegeEscalation, runAsNonRoot, runAsUser, seccompProfile_restricted,
    capabilities_restricted (restricted). Sysctls and probe hosts are not checked."""
    spec: Map = pod.spec
    out: list[tuple[str, str, Span, str]] = []
    anchor = pod.parent.key_span(pod.key)
    containers = list(m.containers(pod))
    psc = get_map(spec, "securityContext")
    os_spec = spec.get("os")
    windows = isinstance(os_spec, Map) and os_spec.get("name") == "windows"
    user_ns = spec.get("hostUsers") is False

    def sc(c: Container) -> Map | None:
        value = c.body.get("securityContext")
        return value if isinstance(value, Map) else None

    def sc_field(c: Container, key: str) -> Any:
        """``key`` of the container's securityContext; None when it has none."""
        csc = sc(c)
        return csc.get(key) if csc is not None else None

    def add(control: str, detail: str, span: Span, path: str) -> None:
        out.append((control, detail, span, path))

    for key in ("hostNetwork", "hostPID", "hostIPC"):
        if spec.get(key) is True:
            add("Host Namespaces", f"{key}=true", spec.value_span(key), f"{pod.path}.{key}")
    for c in containers:
        csc = sc(c)
        if csc is not None and csc.get("privileged") is True:
            add("Privileged Containers", f"container '{c.name}' must not set securityContext.privileged=true",
                csc.value_span("privileged"), f"{c.path}.securityContext.privileged")
    for c in containers:
        caps = sc_field(c, "capabilities")
        added = caps.get("add") if isinstance(caps, Map) else None
        if isinstance(added, Seq):
            for i, cap in enumerate(added):
                if level == "baseline" and str(cap) not in BASELINE_CAPABILITIES:
                    add("Capabilities", f"container '{c.name}' must not add {cap}",
                        added.item_spans[i], f"{c.path}.securityContext.capabilities.add[{i}]")
    volumes = spec.get("volumes")
    volumes = volumes if isinstance(volumes, Seq) else []
    for i, volume in enumerate(volumes):
        if not isinstance(volume, Map):
            continue
        name = volume.get("name") if isinstance(volume.get("name"), str) else f"volumes[{i}]"
        kinds = [k for k in PSS_RESTRICTED_VOLUMES if k in volume and (level == "restricted" or k == "hostPath")]
        for kind in kinds:
            control = "HostPath Volumes" if kind == "hostPath" and level == "baseline" else "Volume Types"
            add(control, f"volume '{name}' uses {kind}", volume.key_span(kind), f"{pod.path}.volumes[{i}].{kind}")
    for c in containers:
        ports = c.body.get("ports")
        for i, port in enumerate(ports if isinstance(ports, Seq) else []):
            if isinstance(port, Map) and port.get("hostPort") not in (None, 0):
                add("Host Ports", f"container '{c.name}' must not set hostPort={port.get('hostPort')}",
                    port.value_span("hostPort"), f"{c.path}.ports[{i}].hostPort")
    annotations = get_map(meta, "annotations") if meta is not None else None
    if annotations is not None:
        for key, value in annotations.items():
            if (isinstance(key, str) and key.startswith("container.apparmor.security.beta.kubernetes.io/")
                    and value not in ("", "runtime/default") and not str(value).startswith("localhost/")):  # fmt: skip
                add("AppArmor", f"annotation {key}={value}", annotations.value_span(key),
                    f"metadata.annotations.{key}")
    for owner, where, path in [(psc, "pod", f"{pod.path}.securityContext")] + [
        (sc(c), f"container '{c.name}'", f"{c.path}.securityContext") for c in containers
    ]:
        if owner is None:
            continue
        profile = owner.get("appArmorProfile")
        if isinstance(profile, Map) and profile.get("type") not in (None, "RuntimeDefault", "Localhost"):
            add("AppArmor", f"{where} must not set appArmorProfile.type={profile.get('type')}",
                profile.value_span("type"), f"{path}.appArmorProfile.type")
        selinux = owner.get("seLinuxOptions")
        if isinstance(selinux, Map):
            if selinux.get("type", "") not in PSS_SELINUX_TYPES:
                add("SELinux", f"{where} must not set seLinuxOptions.type={selinux.get('type')}",
                    selinux.value_span("type"), f"{path}.seLinuxOptions.type")
            for key in ("user", "role"):
                if selinux.get(key) not in (None, ""):
                    add("SELinux", f"{where} must not set seLinuxOptions.{key}", selinux.value_span(key),
                        f"{path}.seLinuxOptions.{key}")
        seccomp = owner.get("seccompProfile")
        # restricted's seccomp check replaces baseline's and passes any Windows pod (1.25 policy)
        if isinstance(seccomp, Map) and seccomp.get("type") not in ("RuntimeDefault", "Localhost") and not (
            windows and level == "restricted"
        ):
            shown = seccomp.get("type") if "type" in seccomp else '""'
            add("Seccomp", f"{where} must not set seccompProfile.type={shown}",
                seccomp.value_span("type") if "type" in seccomp else owner.key_span("seccompProfile"),
                f"{path}.seccompProfile.type")
        windows_options = owner.get("windowsOptions")
        if isinstance(windows_options, Map) and windows_options.get("hostProcess") is True:
            add("HostProcess", f"{where} must not set windowsOptions.hostProcess=true",
                windows_options.value_span("hostProcess"), f"{path}.windowsOptions.hostProcess")
    if not user_ns:
        for c in containers:
            csc = sc(c)
            if csc is not None and csc.get("procMount") not in (None, "Default"):
                add("/proc Mount Type", f"container '{c.name}' must not set securityContext.procMount={csc.get('procMount')}",
                    csc.value_span("procMount"), f"{c.path}.securityContext.procMount")
    if level != "restricted":
        return out
    # restricted only
    if not windows:
        bad = [c for c in containers if sc_field(c, "allowPrivilegeEscalation") is not False]
        for c in bad[:1]:
            csc = sc(c)
            add("Privilege Escalation",
                f"{_names('container', bad)} must set securityContext.allowPrivilegeEscalation=false",
                csc.value_span("allowPrivilegeEscalation") if csc is not None and "allowPrivilegeEscalation" in csc
                else c.body.value_span("name") if "name" in c.body else anchor,
                f"{c.path}.securityContext.allowPrivilegeEscalation")
    if not user_ns:
        pod_non_root = psc.get("runAsNonRoot") if psc is not None else None
        if psc is not None and pod_non_root is False:  # False only when read from psc
            add("Running as Non-root", "pod must not set securityContext.runAsNonRoot=false",
                psc.value_span("runAsNonRoot"), f"{pod.path}.securityContext.runAsNonRoot")
        explicit = [c for c in containers if sc_field(c, "runAsNonRoot") is False]
        implicit = [c for c in containers if sc_field(c, "runAsNonRoot") is None and pod_non_root is not True]
        if explicit:
            c = explicit[0]
            csc = sc(c)
            assert csc is not None  # explicit holds containers whose securityContext sets runAsNonRoot
            add("Running as Non-root", f"{_names('container', explicit)} must not set securityContext.runAsNonRoot=false",
                csc.value_span("runAsNonRoot"), f"{c.path}.securityContext.runAsNonRoot")
        elif implicit and pod_non_root is not False:
            add("Running as Non-root", f"pod or {_names('container', implicit)} must set securityContext.runAsNonRoot=true",
                anchor, f"{pod.path}.securityContext.runAsNonRoot")
        for owner, where, path in [(psc, "pod", f"{pod.path}.securityContext")] + [
            (sc(c), f"container '{c.name}'", f"{c.path}.securityContext") for c in containers
        ]:
            if owner is not None and type(owner.get("runAsUser")) is int and owner.get("runAsUser") == 0:
                add("Running as Non-root user", f"{where} must not set runAsUser=0", owner.value_span("runAsUser"),
                    f"{path}.runAsUser")
    if not windows:
        def valid(owner: Map | None) -> bool | None:
            profile = owner.get("seccompProfile") if owner is not None else None
            if not isinstance(profile, Map):
                return None
            return profile.get("type") in ("RuntimeDefault", "Localhost")
        pod_ok = valid(psc)
        implicit = [c for c in containers if valid(sc(c)) is None and pod_ok is not True]
        if implicit and pod_ok is None:
            add("Seccomp", f"pod or {_names('container', implicit)} must set securityContext.seccompProfile.type "
                "to RuntimeDefault or Localhost", anchor, f"{pod.path}.securityContext.seccompProfile.type")
        for c in containers:
            caps = sc_field(c, "capabilities")
            drop = caps.get("drop") if isinstance(caps, Map) else None
            if not isinstance(drop, Seq) or "ALL" not in drop:
                add("Capabilities", f"container '{c.name}' must set securityContext.capabilities.drop=[\"ALL\"]",
                    caps.key_span("drop") if isinstance(caps, Map) and "drop" in caps
                    else c.body.value_span("name") if "name" in c.body else anchor,
                    f"{c.path}.securityContext.capabilities.drop")
            added = caps.get("add") if isinstance(caps, Map) else None
            if isinstance(added, Seq):
                for i, cap in enumerate(added):
                    if cap != "NET_BIND_SERVICE":
                        add("Capabilities", f"container '{c.name}' must not add {cap}", added.item_spans[i],
                            f"{c.path}.securityContext.capabilities.add[{i}]")
    return out


def _names(word: str, containers: list) -> str:
    """``container 'a'`` or ``containers 'a', 'b'`` (pod-security-admission's ``pluralize``)."""
    names = ", ".join(f"'{c.name}'" for c in containers)
    return f"{word}{'s' if len(containers) > 1 else ''} {names}"


def _pod_security_rejects(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """A hook Job or Pod in a Namespace of the run that enforces a Pod Security level
    (``pod-security.kubernetes.io/enforce: baseline`` or ``restricted``) which its pod template
    violates (:func:`_pss_violations`): the API server's PodSecurity admission rejects every pod,
    so a Job never starts one and never completes (Argo CD waits on its health), and a Pod hook is
    refused when Argo CD creates it. One finding per hook, naming every violated control, at the
    first violation."""
    if m.kind not in ("Job", "Pod") or not m.namespace:
        return
    namespace = ctx.find("Namespace", None, m.namespace)
    labels = get_map(namespace.metadata, "labels") if namespace is not None and namespace.metadata is not None else None
    level = labels.get(PSS_ENFORCE) if labels is not None else None
    if level not in ("baseline", "restricted"):
        return
    pod = m.pod_spec()
    if pod is None:
        return
    meta_owner = m.body if m.kind == "Pod" else get_map(get_map(m.body, "spec"), "template")
    violations = _pss_violations(pod, get_map(meta_owner, "metadata"), m, level)
    if not violations:
        return
    controls: dict[str, list[str]] = {}
    for control, detail, _span, _path in violations:
        controls.setdefault(control, []).append(detail)
    shown = "; ".join(f"{control} ({', '.join(details)})" for control, details in controls.items())
    if m.kind == "Pod":
        effect = (
            "the API server rejects the Pod when Argo CD creates it, so the "
            f"{'Application deletion' if not m.hook.phases else 'sync'} fails"
        )
    else:
        until = ("until spec.activeDeadlineSeconds fails the Job" if "activeDeadlineSeconds" in (get_map(m.body, "spec") or {})
                 else "forever")  # fmt: skip
        effect = (
            f"every pod the Job creates is rejected, so it never runs one and never completes, and {_waiting(m)} "
            f"waits {until}"
        )
    _control, _detail, span, path = violations[0]
    yield Hit(
        f"Hook {m.label} runs in namespace '{m.namespace}', whose Namespace enforces the Pod Security level "
        f"'{level}' ({PSS_ENFORCE}), and its pod template violates {shown}: {effect}. Make the pod template "
        f"meet the '{level}' level, or run the hook in a namespace that allows it.",
        span,
        path,
    )


def _post_delete_without_health(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """On Argo CD 2.10.0 to 2.11.14, a PostDelete hook of a kind with no health check makes the
    controller panic in ``executePostDeleteHooks`` (``hookHealth.Status`` on a nil health; fixed in
    2.12.0 by #18828), so the Application's deletion never finishes (§4d, §5a)."""
    version = ctx.config.argocd_version
    if argocd.supports(version, "post-delete-without-health") or "PostDelete" not in m.hook.delete_types:
        return
    if not argocd.lacks_health_check(m.group, m.kind):
        return
    yield Hit(
        f"{m.label} is a PostDelete hook, and Argo CD has no health check for a {m.kind}: on Argo CD "
        f"{argocd.version_text(version)} (2.10.0 to 2.11.14) the application controller reads its missing "
        "health and panics, so the Application's deletion never finishes (argo-cd #18270, fixed in 2.12.0). "
        "Upgrade Argo CD to 2.12 or later, or create the object from a PostDelete Job.",
        m.annotation_value_span(m.hook_annotation),
        f"metadata.annotations.{m.hook_annotation}",
    )


#: The end of a name that carries a hash of its inputs: ``-`` and at least 8 hex digits (Helm's
#: ``sha256sum`` cut by ``trunc``), 8 to 10 decimal digits (``adler32sum``), or kustomize's
#: 10-character suffix (``api/hasher`` ``encode``: hex with 0, 1, 3, a, e written g, h, k, m, t).
_HASHED_NAME = re.compile(r"-(?:[0-9a-f]{8,64}|[0-9]{8,10}|[2456789bcdfghkmt]{10})$")


def _computed_name(m: Manifest) -> bool:
    """Whether ``m``'s name is made by a renderer, not written as it is: a Helm template's output
    (a ``# Source:`` comment, or a rendered chart), or a kustomize build whose source object
    has another name (a prefix, a suffix, a replacement)."""
    if m.source is not None:
        return True
    placement = m.placement
    if placement is None:
        return False
    meta = get_map(placement.source, "metadata")  # None without a source object
    return meta is None or meta.get("name") != m.name


def _name_follows_tag(m: Manifest, name: str) -> str | None:
    """The image whose tag (of 3 characters or more) ``name`` carries (``migrate-1.4.2`` for
    ``...:1.4.2``), if any."""
    for container in m.containers():
        image = container.body.get("image")
        if not isinstance(image, str):
            continue
        ref = parse_image(image)
        if ref is not None and ref.tag and len(ref.tag) >= 3 and ref.tag in name:
            return image
    return None


@check("HL208", kinds={"Job"})
def plain_job_fixed_name(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """A plain Job with a fixed name. ``Replace=true,Force=true`` exempts it only where Argo CD
    reads ``Force=true`` from the annotation (``GE/sync/sync_context.go`` ``applyObject``: from
    argo-cd v2.11.1 and v2.10.10, gitops-engine fbecbb8 #560); before, ``Replace=true`` runs
    ``ReplaceResource`` without force, an update that hits the immutable template (§6).

    A name a renderer made (:func:`_computed_name`) that ends in a hash of the inputs
    (:data:`_HASHED_NAME`) changes with them: a new Job, not an update; quiet. A name that carries
    an image's tag changes only when that tag does, and any other rendered name only when the
    values it is made of do: the message says so."""
    if m.kind != "Job" or m.hook.is_hook or m.hook.skip or not m.name:
        return
    computed = _computed_name(m)
    if computed and _HASHED_NAME.search(m.name):
        return
    options = argocd.annotation_csv(m.annotations.get(argocd.SYNC_OPTIONS))
    version = ctx.config.argocd_version
    ignored_force = ""
    if "Replace=true" in options and "Force=true" in options:
        if argocd.supports(version, "resource-force"):
            return  # deleted and re-created on change (§6 "Ways out")
        ignored_force = (
            f", and Argo CD {argocd.version_text(version)} ignores its Force=true (read from 2.11.1 and "
            "2.10.10), so Replace=true updates it in place"
        )
    tagged = _name_follows_tag(m, m.name)
    if tagged is not None:
        name = f"a name that changes only when the tag of image '{tagged}' does{ignored_force}: any other change to its pod"
    elif computed:
        name = (f"a rendered name, which changes only when what it is made of changes{ignored_force}: "
                "any other change to its pod")  # fmt: skip
    else:
        name = f"a fixed name{ignored_force}: any change to its pod"
    spec = get_map(m.body, "spec")
    # with a TTL, Kubernetes deletes the finished Job and a sync creates it again (HL204 says so): not "never"
    again = ("" if spec is not None and "ttlSecondsAfterFinished" in spec
             else ", and a finished Job is never run again")  # fmt: skip
    yield Hit(
        f"{m.label} is a plain resource (not a hook) with {name} "
        f"template fails the sync with \"field is immutable\"{again}. "
        "Make it a hook (with BeforeHookCreation or generateName) or a CronJob.",
        field_path="metadata.name",  # at the object's anchor, its metadata.name (the engine's default)
    )


#: Kinds whose state is lost when a hook delete policy deletes and re-creates them every sync.
STATEFUL_KINDS = frozenset({
    "PersistentVolumeClaim", "PersistentVolume", "StatefulSet", "Namespace", "CustomResourceDefinition",
})  # fmt: skip


def _stateful_custom_resource(m: Manifest) -> bool:
    """A custom resource (a group outside Kubernetes' own) that is not a run-to-completion kind
    (:data:`RUN_TO_COMPLETION_KINDS`), nor a pod-template workload (an Argo Rollouts Rollout:
    HL206 says what a hook of it does), an Application (said apart) or a kustomize config: an
    operator's database, a Cluster API cluster, a certificate; its controller usually deletes
    what it manages when the object goes."""
    return (bool(m.kind) and m.group not in argocd.KUBERNETES_GROUPS and not m.is_application
            and (m.group, m.kind) not in RUN_TO_COMPLETION_KINDS and m.pod_spec_path is None
            and m.group != "kustomize.config.k8s.io")  # fmt: skip


def _generated_secret(m: Manifest) -> bool:
    if m.kind != "Secret":
        return False
    if m.body.get("type") == "kubernetes.io/service-account-token":
        return True
    return not m.body.get("data") and not m.body.get("stringData")


@check("HL209")
def stateful_object_as_hook(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """A hook whose kind holds state (PVC, PV, StatefulSet, Namespace, CRD, generated Secret,
    Application, a custom resource that does not run to completion), or any hook that asks to be
    kept (``helm.sh/resource-policy: keep``, a ``Delete=false`` or ``Prune=false`` sync option):
    whatever its delete policies, the default BeforeHookCreation included, Argo CD deletes it.
    Those protections never stop a hook's delete policies: gitops-engine deletes hooks in
    ``deleteHooks``/``deleteResource`` and before re-creating them (``deleteBeforeCreation``)
    without reading any annotation (argo-cd v3.5.1 ``gitops-engine/pkg/sync/sync_context.go``
    ``runTasks``, ``sync_task.go``); only the controller's ``shouldBeDeleted`` (Application
    deletion, ``controller/appcontroller.go``) and pruning read them (§6)."""
    if not m.hook.is_hook or not m.hook.phases:
        return
    protections = _keep_protections(m)
    custom = _stateful_custom_resource(m)
    stateful = m.kind in STATEFUL_KINDS or m.is_application or _generated_secret(m) or custom
    if not stateful:
        if not protections:
            return
        after_sync = [p for p in ("HookSucceeded", "HookFailed") if p in m.hook.delete_policies]
        words = {"HookSucceeded": "after every successful sync (HookSucceeded)",
                 "HookFailed": "whenever a sync fails (HookFailed)"}  # fmt: skip
        if after_sync:
            deletes = "deletes it " + " and ".join(words[p] for p in after_sync)
            fix = f"Drop {' and '.join(after_sync)} from its delete policies, or make it a normal resource with a sync wave."
        else:  # BeforeHookCreation, written or the default
            deletes = _deletion_words(m)
            fix = "Make it a normal resource with a sync wave, where they work."
        yield Hit(
            f"{m.label} is a hook with {' and '.join(protections)}, but Argo CD {deletes}: "
            f"{_protections_ignored(protections)}. {fix}",
            m.annotation_value_span(m.hook_annotation),
            f"metadata.annotations.{m.hook_annotation}",
        )
        return
    if m.kind == "Namespace" and all(
        o.hook.is_hook and o.kind not in STATEFUL_KINDS and not _generated_secret(o) and not _stateful_custom_resource(o)
        for o in ctx.manifests
        if o.namespace == m.name
    ):
        return  # a throwaway namespace for run-once hooks: nothing lasting goes with it
    if m.is_application:
        assert m.metadata is not None  # a hook's annotations are under it
        finalizers = m.metadata.get("finalizers")
        cascades = isinstance(finalizers, list) and any(
            isinstance(f, str) and f.startswith("resources-finalizer.argocd.argoproj.io") for f in finalizers
        )
        lost = (
            "its resources finalizer deletes every resource of the child application with it"
            if cascades
            else "the child application and its sync history go with it"
        )
    elif custom and m.kind not in STATEFUL_KINDS:
        lost = (f"the controller behind {m.group}/{m.kind} usually deletes what it manages (a database, a cluster, "
                "their data) with it, and builds it anew")  # fmt: skip
    else:
        lost = "its data goes with it"
    kept = f" Its {_protections_ignored(protections)}." if protections else ""
    yield Hit(
        f"{m.label} is a hook, so Argo CD {_deletion_words(m)}, and {lost}.{kept} Make it a normal "
        "resource with a sync wave.",
        m.annotation_value_span(m.hook_annotation),
        f"metadata.annotations.{m.hook_annotation}",
    )


def _keep_protections(m: Manifest) -> list[str]:
    """What on ``m`` asks Argo CD to keep it: ``helm.sh/resource-policy: keep`` (a CSV item, as
    ``HasAnnotationOption`` reads it), and the first ``Delete=``/``Prune=`` sync option when it is
    ``false`` (``GetAnnotationOptionValue``: the first item with the prefix wins)."""
    out = []
    if "keep" in argocd.annotation_csv(m.annotations.get("helm.sh/resource-policy")):
        out.append("helm.sh/resource-policy: keep")
    options = argocd.annotation_csv(m.annotations.get(argocd.SYNC_OPTIONS))
    for key in ("Delete", "Prune"):
        first = next((o for o in options if o.startswith(f"{key}=")), None)
        if first == f"{key}=false":
            out.append(f"sync option {first}")
    return out


def _protections_ignored(protections: list[str]) -> str:
    verb, them = ("does", "it") if len(protections) == 1 else ("do", "them")
    return (
        f"{' and '.join(protections)} {verb} not stop that: Argo CD reads {them} only when it prunes "
        "resources or deletes the Application, never for a hook's delete policies"
    )


def _deletion_words(m: Manifest) -> str:
    """When Argo CD deletes a hook, from its delete policies (§6)."""
    policies = m.hook.delete_policies
    if "BeforeHookCreation" in policies:
        return "deletes and re-creates it at every sync (BeforeHookCreation)"
    if "HookSucceeded" in policies:
        return "deletes it after every successful sync (HookSucceeded)"
    return "deletes it whenever a sync fails (HookFailed)"


@check("HL210")
def delete_hook_left_behind(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """A PreDelete/PostDelete hook (of a type the configured Argo CD runs) whose effective delete
    policies have neither HookSucceeded nor HookFailed: ``controller/hook.go`` ``cleanupHooks()``
    deletes a delete hook only when a policy matches the aggregated health (HookSucceeded when
    Healthy, HookFailed when Degraded); BeforeHookCreation, the default, never matches (§4d)."""
    types = m.hook.delete_types
    if not types or {"HookSucceeded", "HookFailed"} & set(m.hook.delete_policies):
        return
    annotations = m.annotations
    # The family that made it a delete hook (``from_helm`` speaks of sync types only).
    argo = any(t in argocd.DELETE_HOOK_TYPES for t in argocd.annotation_csv(annotations.get(argocd.HOOK)))
    if argocd.HOOK_DELETE_POLICY in annotations or (argo and argocd.HELM_HOOK_DELETE_POLICY not in annotations):
        key, value = argocd.HOOK_DELETE_POLICY, "HookSucceeded"
    else:
        key, value = argocd.HELM_HOOK_DELETE_POLICY, "hook-succeeded"
    where = key if key in annotations else argocd.HOOK if argo else argocd.HELM_HOOK
    yield Hit(
        f"{'/'.join(types)} hook {m.label} has neither HookSucceeded nor HookFailed among its delete "
        f"policies ({', '.join(m.hook.delete_policies)}): after a delete hook runs, Argo CD deletes "
        "it only when one of those matches its outcome, so it stays in the cluster after the "
        "Application is deleted, with nothing left that manages or prunes it. Add "
        f"{value} to {key}.",
        m.annotation_value_span(where),
        f"metadata.annotations.{where}",
    )


def _mesh_injection(namespace: Manifest) -> str | None:
    """Which service mesh injects sidecars into pods of ``namespace`` (a Namespace object), as
    its label or annotation says: Istio's ``istio-injection: enabled`` or an ``istio.io/rev``
    revision label (``istio-injection: disabled`` wins), Linkerd's ``linkerd.io/inject: enabled``
    annotation (Linkerd's proxy injector reads the annotation, never a label: "Automatic Proxy
    Injection", linkerd.io/2/features/proxy-injection)."""
    md = namespace.metadata
    labels = md.get("labels") if md is not None else None
    labels = labels if isinstance(labels, Map) else {}
    annotations = namespace.annotations
    istio = labels.get("istio-injection")
    if istio == "enabled":
        return "Istio (label istio-injection: enabled)"
    if istio != "disabled" and isinstance(labels.get("istio.io/rev"), str):
        return f"Istio (label istio.io/rev: {labels.get('istio.io/rev')})"
    if annotations.get("linkerd.io/inject") == "enabled":
        return "Linkerd (linkerd.io/inject: enabled)"
    return None


def _sidecar_never_exits(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """A hook Job or Pod in a Namespace of the run with sidecar injection on, whose pod template
    does not opt out (``sidecar.istio.io/inject: "false"``, label or annotation;
    ``linkerd.io/inject: disabled``, an annotation): the injected proxy keeps running after the
    hook's container exits, so the pod never completes."""
    if m.kind not in ("Job", "Pod") or not m.namespace:
        return
    namespace = ctx.find("Namespace", None, m.namespace)
    mesh = _mesh_injection(namespace) if namespace is not None else None
    if mesh is None:
        return
    meta_owner = m.body if m.kind == "Pod" else get_map(get_map(m.body, "spec"), "template")
    if meta_owner is None:
        return
    meta = get_map(meta_owner, "metadata")
    opt_out: dict[str, object] = {}
    for key in ("labels", "annotations"):
        values = get_map(meta, key)
        if values is not None:
            opt_out.update({k: v for k, v in values.items() if isinstance(k, str)})
    if mesh.startswith("Istio") and opt_out.get("sidecar.istio.io/inject") == "false":
        return
    pod_annotations = get_map(meta, "annotations")
    if mesh.startswith("Linkerd") and pod_annotations is not None and pod_annotations.get("linkerd.io/inject") == "disabled":
        return
    where = "metadata" if m.kind == "Pod" else "spec.template.metadata"
    if meta is not None:
        span = meta_owner.key_span("metadata")  # where the opt-out goes
    else:  # a Job's template without metadata: at its template key
        span = get_map(m.body, "spec").key_span("template")  # type: ignore[union-attr]
    fix = (
        f'the label sidecar.istio.io/inject: "false" to {where}.labels'
        if mesh.startswith("Istio")
        else f"the annotation linkerd.io/inject: disabled to {where}.annotations"
    )
    waits = (
        "blocks deleting the Application"
        if not m.hook.phases
        else "keeps Argo CD \"waiting for completion of hook\" and wedges the sync"
    )
    yield Hit(
        f"Hook {m.label} runs in namespace '{m.namespace}', where {mesh} injects a sidecar proxy, "
        f"and its pod template does not opt out: the proxy keeps running after the hook's container "
        f"exits, so the {m.kind} never completes and {waits}. Add {fix}, or stop the proxy when "
        "the work is done.",
        span,
        where,
    )


# --- HL211 -------------------------------------------------------------------------------------


def foreign_finalizer(name: str) -> bool:
    """True for a finalizer that neither Argo CD nor Kubernetes itself removes: not Argo CD's own
    (``argocd.argoproj.io/hook-finalizer``, ``GE pkg/sync/hook/hook.go`` ``HookFinalizer`` from
    v3.0.0; ``resources-finalizer.argocd.argoproj.io`` and the other ``*.argocd.argoproj.io``
    ones), not the garbage collector's (``foregroundDeletion``, ``orphan``), and not one of
    Kubernetes' controllers (``kubernetes.io/pvc-protection`` and every ``kubernetes.io/`` or
    ``*.kubernetes.io/`` key)."""
    if name in ("foregroundDeletion", "orphan") or name.startswith("argocd.argoproj.io/"):
        return False
    domain = name.split("/", 1)[0]
    return not any(domain == d or domain.endswith("." + d) for d in ("argocd.argoproj.io", "kubernetes.io", "k8s.io"))


@check("HL211")
def hook_foreign_finalizer(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """A sync hook with a fixed name whose ``metadata.finalizers`` hold another controller's
    finalizer (:func:`foreign_finalizer`). Argo CD deletes a hook by its delete policies and only
    ever removes its own finalizer (``GE pkg/sync/sync_context.go`` ``removeHookFinalizer``,
    v3.5.1), so the deleted hook stays Terminating until that controller removes its finalizer;
    the next sync's hook of the same name then meets it (argo-cd #26180):

    - BeforeHookCreation (the default): ``runTasks`` deletes the live hook and returns pending
      until it is gone, on every pass: the sync hangs;
    - HookSucceeded/HookFailed alone, from v3.0.0: the new hook is applied over the Terminating
      object with Argo CD's hook finalizer added (``getSyncTasks``), which the API server refuses
      for an object being deleted: the sync fails;
    - the same before 3.0: the hook is applied over the Terminating object, so no new one runs.

    A ``generateName`` hook gets a new name every sync and is not reported, nor are
    PreDelete/PostDelete-only hooks (no next sync)."""
    if not m.hook.is_hook or not m.hook.phases or not m.name:
        return
    finalizers = m.metadata.get("finalizers") if m.metadata is not None else None
    if not isinstance(finalizers, Seq):
        return
    foreign = [(i, f) for i, f in enumerate(finalizers) if isinstance(f, str) and foreign_finalizer(f)]
    if not foreign:
        return
    i, name = foreign[0]
    shown = ", ".join(f"'{f}'" for _, f in foreign)
    policies = m.hook.delete_policies
    deleter = next((p for p in ("HookSucceeded", "HookFailed") if p in policies), None)
    if deleter is None:
        written = ("BeforeHookCreation" in argocd.annotation_csv(m.annotations.get(argocd.HOOK_DELETE_POLICY))
                   or "before-hook-creation" in argocd.annotation_csv(m.annotations.get(argocd.HELM_HOOK_DELETE_POLICY)))  # fmt: skip
        effect = f"when BeforeHookCreation{'' if written else ' (the default)'} deletes it at the start of the next sync"
    else:
        effect = f"once {deleter} deletes it"
    effect += ", it stays Terminating until the controller that owns the finalizer removes it, and "
    if "BeforeHookCreation" in policies:
        effect += ("that sync" if deleter is None else "the next sync (BeforeHookCreation)") + (
            f" waits for it to be gone before it creates {m.label} again, so the sync hangs")
    elif argocd.supports(ctx.config.argocd_version, "hook-finalizer"):
        effect += (f"the next sync applies {m.label} over the Terminating object with Argo CD's hook finalizer "
                   "added, which the API server refuses for an object being deleted, so the sync fails")  # fmt: skip
    else:
        effect += (f"the next sync applies {m.label} over the Terminating object instead of creating a new one, "
                   "so the hook does not run again")  # fmt: skip
    yield Hit(
        f"Hook {m.label} carries the finalizer{'s' if len(foreign) > 1 else ''} {shown}, which Argo CD "
        f"does not remove: {effect} (argo-cd #26180). Remove the finalizer from the hook, or give "
        "the hook a generateName so that each sync creates a new object.",
        finalizers.item_spans[i],
        f"metadata.finalizers[{i}]",
    )
