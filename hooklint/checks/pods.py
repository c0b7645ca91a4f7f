"""What the checks of hook workloads (:mod:`hooklint.checks.security`, HL101-HL105, HL107, HL109, HL110) and of their RBAC
reach (:mod:`hooklint.checks.rbac`, HL106 and HL108) share about a pod: which pod specs a rule looks
at, how a message says when they run, the volumes its containers mount and the ServiceAccount token
Secrets among them."""

from __future__ import annotations

from hooklint.checks import Context
from hooklint.findings import Span
from hooklint.model import RUN_TO_COMPLETION_KINDS, Manifest, PodSpec, get_map
from hooklint.yamlio import Map, Seq


def pods_in_scope(m: Manifest, ctx: Context) -> list[PodSpec]:
    """The pod specs of an object the security rules look at (:meth:`Manifest.pod_specs`: one, or
    one per pod-running template of a Workflow): a hook Argo CD runs, or any workload with
    ``workload-scope: all``."""
    return m.pod_specs() if ctx.in_scope(m) else []


def phase_words(m: Manifest) -> str:
    """``a PreSync hook``, ``a PostDelete hook``, or ``this workload`` for a non-hook."""
    phases = (m.hook.phases if m.hook.is_hook else ()) or m.hook.delete_types
    if not phases:
        return "this workload"
    return f"a {'/'.join(phases)} hook"


def runs(m: Manifest) -> str:
    """When the object's pods run, as Argo CD drives them: ``a PreSync hook runs on every sync``;
    SyncFail hooks run when a sync fails; PreDelete/PostDelete at Application deletion (§4d)."""
    subject = phase_words(m)
    if m.hook.is_hook and set(m.hook.phases) - {"SyncFail"}:
        return f"{subject} runs on every sync"
    when = []
    if "SyncFail" in m.hook.phases:
        when.append("whenever a sync fails")
    if m.hook.delete_types:
        when.append("when the Application is deleted")
    if when:
        return f"{subject} runs {' and '.join(when)}"
    if m.hook.is_hook:  # ignored hook, only reached with workload-scope: all
        return "this workload, which Argo CD never applies as it stands, would run in the cluster"
    if m.kind in ("Job", "Pod", "Workflow", "AnalysisRun", "TaskRun") or (m.group, m.kind) in RUN_TO_COMPLETION_KINDS:
        return f"this {m.kind} runs in the cluster whenever it is created"
    if m.kind == "CronJob":
        return "this CronJob runs in the cluster on its schedule"
    return f"this {m.kind} runs in the cluster continuously"


def mounted_volumes(m: Manifest, pod: PodSpec) -> set[str]:
    """The names of the volumes of ``pod`` that a container of it (init and ephemeral ones too)
    mounts (``volumeMounts[].name``)."""
    mounted = set()
    for container in m.containers(pod):
        mounts = container.body.get("volumeMounts")
        for mount in mounts if isinstance(mounts, Seq) else []:
            if isinstance(mount, Map) and isinstance(mount.get("name"), str):
                mounted.add(mount["name"])
    return mounted


#: Where ``kubernetes.io/service-account-token`` Secrets name their ServiceAccount (Kubernetes
#: "Service account token Secrets").
SA_NAME_ANNOTATION = "kubernetes.io/service-account.name"
#: The type of a Secret the token controller fills with a ServiceAccount's long-lived token
#: (Kubernetes "Service account token Secrets"), named by :data:`SA_NAME_ANNOTATION`.
SA_TOKEN_TYPE = "kubernetes.io/service-account-token"


def find_loose(ctx: Context, kind: str, namespace: str | None, name: str) -> Manifest | None:
    """The first object of the application of ``kind``/``name`` in ``namespace``, where an object
    or a caller without a namespace (the destination namespace, which hooklint may not know)
    matches any namespace."""
    for found in ctx.by_kind.get(kind, []):
        if found.name == name and (found.namespace is None or namespace is None or found.namespace == namespace):
            return found
    return None


def token_secrets(m: Manifest, pod: PodSpec, ctx: Context) -> list[tuple[str, str, Span, Manifest]]:
    """The ServiceAccount token Secrets of the application that ``pod`` mounts, as (the
    ServiceAccount's name, the dotted path of the field naming the Secret, its span, the Secret):
    a ``secret`` volume's ``secretName``, or a ``projected`` volume's ``sources[].secret.name``,
    of a volume a container (init and ephemeral ones too) mounts, naming a Secret of the pod's
    namespace (:func:`find_loose`) of type :data:`SA_TOKEN_TYPE` whose :data:`SA_NAME_ANNOTATION` names the
    ServiceAccount. The token controller writes that ServiceAccount's token into the Secret
    (``pkg/controller/serviceaccount/tokens_controller.go``), so the pod holds it wherever it is
    mounted and whatever ``automountServiceAccountToken`` says (that field only governs the volume
    the ServiceAccount admission plugin adds); and those a container reads into its environment,
    an ``env`` entry's ``valueFrom.secretKeyRef.name`` or an ``envFrom`` entry's ``secretRef.name``
    (the kubelet copies the Secret's ``token`` into the variable: attacker trial 26, B3; such a
    field path holds ``env``, which :func:`token_verb` words)."""
    if not ctx.by_kind.get("Secret"):  # no Secret in the application: no token Secret to hold
        return []
    named: list[tuple[Map, str, str]] = []  # (mapping, key naming the Secret, dotted path of the key)
    for container in m.containers(pod):
        env, env_from = container.body.get("env"), container.body.get("envFrom")
        for i, entry in enumerate(env if isinstance(env, Seq) else []):
            ref = get_map(get_map(entry, "valueFrom"), "secretKeyRef")
            if ref is not None:
                named.append((ref, "name", f"{container.path}.env[{i}].valueFrom.secretKeyRef.name"))
        for i, entry in enumerate(env_from if isinstance(env_from, Seq) else []):
            ref = get_map(entry, "secretRef")
            if ref is not None:
                named.append((ref, "name", f"{container.path}.envFrom[{i}].secretRef.name"))
    volumes = list(pod.volumes())
    mounted = mounted_volumes(m, pod) if volumes else set()
    for volume, path in volumes:
        if volume.get("name") not in mounted:
            continue
        secret = get_map(volume, "secret")
        if secret is not None:
            named.append((secret, "secretName", f"{path}.secret.secretName"))
        projected = get_map(volume, "projected")
        sources = projected.get("sources") if projected is not None else None
        for j, source in enumerate(sources if isinstance(sources, Seq) else []):
            inner = get_map(source, "secret")
            if inner is not None:
                named.append((inner, "name", f"{path}.projected.sources[{j}].secret.name"))
    out: list[tuple[str, str, Span, Manifest]] = []
    for holder, key, field in named:
        name = holder.get(key)
        found = find_loose(ctx, "Secret", m.namespace, name) if isinstance(name, str) and name else None
        if found is None or found.body.get("type") != SA_TOKEN_TYPE:
            continue
        annotations = get_map(found.metadata, "annotations")
        account = annotations.get(SA_NAME_ANNOTATION) if annotations is not None else None
        if isinstance(account, str) and account:
            out.append((account, field, holder.value_span(key), found))
    return out


def token_verb(field: str) -> str:
    """How a message says a pod holds a token Secret named at ``field`` (:func:`token_secrets`):
    ``reads`` (into a container's environment) or ``mounts``."""
    return "reads" if ".env[" in field or ".envFrom[" in field else "mounts"
