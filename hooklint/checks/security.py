"""HL101-HL110: the security of hook workloads (images, ServiceAccount, token, privileges, RBAC reach and
lifetime, literal secrets, retired image repositories, pods of run-to-completion kinds defined out of sight)."""

from __future__ import annotations

from fnmatch import fnmatchcase
from operator import attrgetter
from typing import Callable, Iterator, Mapping, TypeVar

from hooklint import argocd
from hooklint.checks import Context, Hit, check
from hooklint.findings import Span
from hooklint.images import allowed, is_templated, parse_image
from hooklint.sources.repository.volumes import HostPathVolume, node_path, volume_match_facts
from hooklint.sources.repository.volumes import storage_class as volumes_storage_class
from hooklint.model import BASELINE_CAPABILITIES, KUBEFLOW_REPLICA_SPECS, POD_KINDS, RUN_TO_COMPLETION_KINDS, TEMPLATE_ONLY_KINDS, find_pod_specs, Container, Manifest, PodSpec, RBAC_GROUP, Grantee, binding_grantee, binding_grantees, get_map, resource_match, verb_matches
from hooklint.yamlio import DocumentTooComplex, Map, Seq, YamlSyntaxError, parse_documents


def _images(m: Manifest) -> Iterator[tuple[Container, str]]:
    """Each container of ``m``'s pod spec with its image, when that is a string a linter can judge."""
    for container in m.containers():
        image = container.body.get("image")
        if isinstance(image, str) and image and not is_templated(image):
            yield container, image


def _pods_in_scope(m: Manifest, ctx: Context) -> list[PodSpec]:
    """The pod specs of an object the security rules look at (:meth:`Manifest.pod_specs`: one, or
    one per pod-running template of a Workflow): a hook Argo CD runs, or any workload with
    ``check-all-workloads``."""
    return m.pod_specs() if ctx.in_scope(m) else []


def _where(m: Manifest, container: Container) -> str:
    role = {"initContainers": "init container", "ephemeralContainers": "ephemeral container",
            "sidecars": "sidecar container", "script": "script container",
            "steps": "step", "stepTemplate": "step template"}.get(container.list_name, "container")  # fmt: skip
    template = f" of {container.template}" if container.template else ""
    return f"{role} '{container.name}'{template} of {m.label}"


def _phase_words(m: Manifest) -> str:
    """``a PreSync hook``, ``a PostDelete hook``, or ``this workload`` for a non-hook."""
    phases = (m.hook.phases if m.hook.is_hook else ()) or m.hook.delete_types
    if not phases:
        return "this workload"
    return f"a {'/'.join(phases)} hook"


def _runs(m: Manifest) -> str:
    """When the object's pods run, as Argo CD drives them: ``a PreSync hook runs on every sync``;
    SyncFail hooks run when a sync fails; PreDelete/PostDelete at Application deletion (§4d)."""
    subject = _phase_words(m)
    if m.hook.is_hook and set(m.hook.phases) - {"SyncFail"}:
        return f"{subject} runs on every sync"
    when = []
    if "SyncFail" in m.hook.phases:
        when.append("whenever a sync fails")
    if m.hook.delete_types:
        when.append("when the Application is deleted")
    if when:
        return f"{subject} runs {' and '.join(when)}"
    if m.hook.is_hook:  # ignored hook, only reached with check-all-workloads
        return "this workload, which Argo CD never applies as it stands, would run in the cluster"
    if m.kind in ("Job", "Pod", "Workflow", "AnalysisRun", "TaskRun") or (m.group, m.kind) in RUN_TO_COMPLETION_KINDS:
        return f"this {m.kind} runs in the cluster whenever it is created"
    if m.kind == "CronJob":
        return "this CronJob runs in the cluster on its schedule"
    return f"this {m.kind} runs in the cluster continuously"


@check("HL101", kinds=POD_KINDS)
def hook_image_registry_not_allowed(m: Manifest, ctx: Context) -> Iterator[Hit]:
    entries = ctx.config.registry_entries
    if not entries or not _pods_in_scope(m, ctx):
        return
    for container, image in _images(m):
        ref = parse_image(image)
        if ref is None:
            yield Hit(
                f"Image '{image}' of {_where(m, container)} is not a valid image reference, so its "
                "registry cannot be checked. Write host/path:tag or host/path@sha256:digest.",
                container.body.value_span("image"),
                f"{container.path}.image",
            )
            continue
        if allowed(ref, entries):
            continue
        host_allowed = any(e.path and e.admits(type(ref)(ref.host, e.path, None, None)) for e in entries)
        where = (
            f"repository '{ref.host}/{ref.path}', outside the allowed paths of registry '{ref.host}'"
            if host_allowed
            else f"registry '{ref.host}', which is not in allowed-registries"
        )
        yield Hit(
            f"Image '{image}' of {_where(m, container)} comes from {where}: {_runs(m)}, with its "
            "ServiceAccount's permissions, and nobody reviews what that image contains. Pull the "
            "image from an allowed registry, or add it to allowed-registries.",
            container.body.value_span("image"),
            f"{container.path}.image",
        )


@check("HL102", kinds=POD_KINDS)
def hook_image_mutable_tag(m: Manifest, ctx: Context) -> Iterator[Hit]:
    if not _pods_in_scope(m, ctx):
        return
    for container, image in _images(m):
        ref = parse_image(image)
        if ref is None:
            continue
        if ctx.config.require_digest:
            if ref.has_sha256_digest:
                continue
            problem = "is not pinned by an @sha256 digest (require-digest is on)"
        elif ref.digest:
            continue
        elif ref.tag is None:
            problem = "has no tag, so it means ':latest'"
        elif ref.tag == "latest":
            problem = "uses the mutable tag ':latest'"
        else:
            continue
        advice = ("Pin it by digest: image@sha256:..." if ctx.config.require_digest
                  else "Pin a version tag or, better, an @sha256 digest.")  # fmt: skip
        yield Hit(
            f"Image '{image}' of {_where(m, container)} {problem}: each sync may run different "
            f"code than was reviewed. {advice}",
            container.body.value_span("image"),
            f"{container.path}.image",
        )


@check("HL103", kinds=POD_KINDS)
def hook_default_service_account(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """A hook running as the namespace's ``default`` ServiceAccount. When that ServiceAccount's
    token is mounted too (HL104 reports it on the same hook, see :func:`_mounted_token`), the
    message says so and names HL104, as HL104's names HL103. A pod running as another
    ServiceAccount that mounts the token Secret of ``default`` (:func:`_token_secrets`) acts as
    ``default`` too, reported at the field naming the Secret. A Workflow's pods are judged one
    template at a time; a field several pods read from the Workflow's spec is reported once."""
    seen: set[str] = set()
    for pod in _pods_in_scope(m, ctx):
        name, key = pod.service_account()
        field = pod.field_path(key or "serviceAccountName")
        if field in seen:
            continue
        seen.add(field)
        for account, token_field, span, secret in _token_secrets(m, pod, ctx):
            if account == "default" and name not in (None, "default") and token_field not in seen:
                seen.add(token_field)
                yield Hit(
                    f"{m.label} mounts the token Secret '{secret.name}' of the 'default' ServiceAccount, so its "
                    f"pods act as 'default': {_phase_words(m)} then shares identity and permissions with every other "
                    "unconfigured pod. Mount no token, or one of a dedicated ServiceAccount.",
                    span,
                    token_field,
                )
        mounted = " Its token is mounted too, with no role bound to it in this application (HL104)." if _mounted_token(m, pod, ctx) else ""
        if name is None:
            yield Hit(
                f"{m.label} sets no serviceAccountName, so its pods run as the namespace's 'default' "
                f"ServiceAccount: {_phase_words(m)} then shares identity and permissions with every "
                f"other unconfigured pod. Create a dedicated ServiceAccount and set {field}.{mounted}",
                pod.anchor(),
                field,
            )
        elif name == "default":
            yield Hit(
                f"{m.label} runs as the 'default' ServiceAccount: {_phase_words(m)} then shares identity "
                f"and permissions with every other unconfigured pod. Use a dedicated ServiceAccount.{mounted}",
                pod.value_span(key),
                field,
            )


def _projected_token(m: Manifest, pod: PodSpec) -> tuple[str, int, str, Map] | None:
    """The first projected ``serviceAccountToken`` source of ``pod`` that gives a container an API
    token, as (volume path, source index, volume name, the source mapping), or None. The
    kubelet writes the ServiceAccount's token there whatever ``automountServiceAccountToken``
    says (that field only governs the volume the ServiceAccount admission plugin adds:
    ``plugin/pkg/admission/serviceaccount``). A source counts when a container (init and
    ephemeral ones too) mounts its volume and it sets no ``audience``: the token's audience is
    then the API server's own (Kubernetes "Configure Service Accounts for Pods", "Launch a Pod
    using service account token projection"); a token for another audience is refused by the
    API server's authenticator."""
    volumes = list(pod.volumes())
    if not volumes:
        return None
    mounted = _mounted(m, pod)
    for volume, path in volumes:
        projected = get_map(volume, "projected")
        sources = projected.get("sources") if projected is not None else None
        name = volume.get("name")
        if not isinstance(sources, Seq) or not isinstance(name, str) or name not in mounted:
            continue
        for j, source in enumerate(sources):
            token = get_map(source, "serviceAccountToken")
            if token is not None and not token.get("audience"):
                return path, j, name, sources[j]
    return None


def _mounted(m: Manifest, pod: PodSpec) -> set[str]:
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


def _find_loose(ctx: Context, kind: str, namespace: str | None, name: str) -> Manifest | None:
    """The first object of the application of ``kind``/``name`` in ``namespace``, where an object
    or a caller without a namespace (the destination namespace, which hooklint may not know)
    matches any namespace."""
    for found in ctx.by_kind.get(kind, []):
        if found.name == name and (found.namespace is None or namespace is None or found.namespace == namespace):
            return found
    return None


def _token_secrets(m: Manifest, pod: PodSpec, ctx: Context) -> list[tuple[str, str, Span, Manifest]]:
    """The ServiceAccount token Secrets of the application that ``pod`` mounts, as (the
    ServiceAccount's name, the dotted path of the field naming the Secret, its span, the Secret):
    a ``secret`` volume's ``secretName``, or a ``projected`` volume's ``sources[].secret.name``,
    of a volume a container (init and ephemeral ones too) mounts, naming a Secret of the pod's
    namespace (:func:`_find_loose`) of type :data:`SA_TOKEN_TYPE` whose :data:`SA_NAME_ANNOTATION` names the
    ServiceAccount. The token controller writes that ServiceAccount's token into the Secret
    (``pkg/controller/serviceaccount/tokens_controller.go``), so the pod holds it wherever it is
    mounted and whatever ``automountServiceAccountToken`` says (that field only governs the volume
    the ServiceAccount admission plugin adds)."""
    mounted = _mounted(m, pod)
    out: list[tuple[str, str, Span, Manifest]] = []
    for volume, path in pod.volumes():
        if volume.get("name") not in mounted:
            continue
        named: list[tuple[Map, str, str]] = []  # (mapping, key, dotted path of the key)
        secret = get_map(volume, "secret")
        if secret is not None:
            named.append((secret, "secretName", f"{path}.secret.secretName"))
        projected = get_map(volume, "projected")
        sources = projected.get("sources") if projected is not None else None
        for j, source in enumerate(sources if isinstance(sources, Seq) else []):
            inner = get_map(source, "secret")
            if inner is not None:
                named.append((inner, "name", f"{path}.projected.sources[{j}].secret.name"))
        for holder, key, field in named:
            name = holder.get(key)
            found = _find_loose(ctx, "Secret", m.namespace, name) if isinstance(name, str) and name else None
            if found is None or found.body.get("type") != SA_TOKEN_TYPE:
                continue
            annotations = get_map(found.metadata, "annotations")
            account = annotations.get(SA_NAME_ANNOTATION) if annotations is not None else None
            if isinstance(account, str) and account:
                out.append((account, field, holder.value_span(key), found))
    return out


def _mounted_token(m: Manifest, pod: PodSpec, ctx: Context) -> str | None:
    """Why HL104 reports the pod's ServiceAccount token as mounted, or None: ``"true"`` (the pod
    spec says so), ``"unset"`` (unset, and the ServiceAccount of this application does not set it
    to false), ``"absent"`` (unset, and the ServiceAccount is not in this application),
    ``"projected"`` (turned off, but a projected volume mounts the token: :func:`_projected_token`).
    None when the token is not mounted, the value is not a boolean (reported on its own), or a
    binding of the application grants the ServiceAccount a role. Kubernetes' rule: the pod spec's
    ``automountServiceAccountToken`` wins; when unset, the ServiceAccount's; when both are unset,
    the token is mounted (``plugin/pkg/admission/serviceaccount``)."""
    value = pod.get("automountServiceAccountToken")
    if value is not None and value is not True and value is not False:
        return None
    sa_name = pod.service_account()[0] or "default"
    if _granted_role(ctx.by_kind.get("RoleBinding", []) + ctx.by_kind.get("ClusterRoleBinding", []), sa_name, m.namespace):
        return None
    if value is True:
        return "true"
    sa = ctx.find("ServiceAccount", m.namespace, sa_name)
    if value is None and sa is None:
        return "absent"
    if value is None and sa is not None and sa.body.get("automountServiceAccountToken") is not False:
        return "unset"
    return "projected" if _projected_token(m, pod) is not None else None


@check("HL104", kinds=POD_KINDS)
def hook_automounts_token(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """A hook whose ServiceAccount token is mounted (:func:`_mounted_token`: automounted, or
    through a projected volume) while no RoleBinding or ClusterRoleBinding of the application
    grants the pod's ServiceAccount (any subject reaching it, see :func:`_binding_names`) a Role
    or ClusterRole (with one, the hook uses its token, and HL106
    judges the grant); and each ServiceAccount token Secret the pod mounts whose ServiceAccount no
    binding grants a role (:func:`_secret_token_unbound`). The message stays short (under 300 characters); the rule file's what/why,
    shown by ``hooklint explain HL104``, holds the detail. On the 'default' ServiceAccount it names
    HL103, which reports the same hook. A Workflow's pods are judged one template at a time; a
    field several pods read from the Workflow's spec is reported once."""
    seen: set[str] = set()
    for pod in _pods_in_scope(m, ctx):
        for hit in [*_automounted(m, pod, ctx), *_secret_token_unbound(m, pod, ctx)]:
            if hit.field_path not in seen:
                seen.add(hit.field_path)
                yield hit


def _secret_token_unbound(m: Manifest, pod: PodSpec, ctx: Context) -> Iterator[Hit]:
    """HL104's findings on the ServiceAccount token Secrets ``pod`` mounts (:func:`_token_secrets`)
    whose ServiceAccount no binding of the application grants a role (:func:`_granted_role`): a
    token the pod holds whatever ``automountServiceAccountToken`` says, at the field naming the
    Secret. The pod's own ServiceAccount is left to :func:`_automounted` when it already mounts
    that token."""
    own = pod.service_account()[0] or "default"
    bindings = ctx.by_kind.get("RoleBinding", []) + ctx.by_kind.get("ClusterRoleBinding", [])
    for account, field, span, secret in _token_secrets(m, pod, ctx):
        if _granted_role(bindings, account, m.namespace) or (account == own and _mounted_token(m, pod, ctx)):
            continue
        who = "'default' (HL103; " if account == "default" else f"'{account}' ("
        yield Hit(
            f"{m.label} mounts the token of ServiceAccount {who}token Secret '{secret.name}', whatever automount "
            "says), and no binding here grants it a role. Remove that volume, or bind it to a least-privilege Role.",
            span,
            field,
        )


def _automounted(m: Manifest, pod: PodSpec, ctx: Context) -> Iterator[Hit]:
    """HL104's finding on one pod spec of ``m``, if any (:func:`hook_automounts_token`)."""
    field = pod.field_path("automountServiceAccountToken")
    value = pod.get("automountServiceAccountToken")
    if value is not None and value is not True and value is not False:
        yield Hit(
            f"{m.label} sets automountServiceAccountToken to a non-boolean value, which the API "
            f"server rejects, so {_phase_words(m)} is never created. Write false, or true if it "
            "calls the Kubernetes API.",
            pod.value_span("automountServiceAccountToken"),
            field,
        )
        return
    why = _mounted_token(m, pod, ctx)
    if why is None:
        return
    sa_name = pod.service_account()[0] or "default"
    projected = _projected_token(m, pod) if why == "projected" else None
    reason = f"projected volume '{projected[2]}', though automount is off" if projected is not None else {
        "true": "automountServiceAccountToken: true",
        "unset": "not turned off here or on the ServiceAccount",
        "absent": "not turned off here; the ServiceAccount is not in this application",
    }[why]
    if sa_name == "default":
        who, fix = "'default' (HL103; ", "give the hook its own, least-privileged ServiceAccount"
    else:
        who, fix = f"'{sa_name}' (", "bind it to a least-privilege Role"
    turn_off = "Remove the serviceAccountToken source" if projected else "Set automountServiceAccountToken: false"
    span = pod.value_span("automountServiceAccountToken") if why == "true" else pod.anchor()
    if projected is not None:
        volume_path, j, _, source = projected
        span = source.key_span("serviceAccountToken")
        field = f"{volume_path}.projected.sources[{j}].serviceAccountToken"
    yield Hit(
        f"{m.label} mounts the token of ServiceAccount {who}{reason}), and no binding here grants it a "
        f"role. {turn_off}, or {fix}.",
        span,
        field,
    )


def _granted_role(manifests: list[Manifest], sa_name: str, namespace: str | None) -> bool:
    """True when a RoleBinding or ClusterRoleBinding among ``manifests`` names ServiceAccount
    ``sa_name`` of ``namespace`` as a subject and refers to a Role or ClusterRole (built-in roles
    such as ``view`` count: they need not be in the application)."""
    for b in manifests:
        if b.kind not in ("RoleBinding", "ClusterRoleBinding") or not _binding_names(b, sa_name, namespace):
            continue
        ref = b.body.get("roleRef")
        if isinstance(ref, Map) and ref.get("kind") in ("Role", "ClusterRole") and isinstance(ref.get("name"), str):
            return True
    return False


#: Binary and decimal suffixes of a ``resource.Quantity`` (k8s.io/apimachinery
#: ``pkg/api/resource/quantity.go``), as multipliers.
_QUANTITY_SUFFIXES = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60, "n": 1e-9,
                      "u": 1e-6, "m": 1e-3, "": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}


def quantity(value: object) -> float | None:
    """A ``resource.Quantity`` string (``1Gi``, ``500M``, ``1e3``, a bare number) or number as a
    float, or None when it is not one (templated, misspelt)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if not isinstance(value, str):
        return None
    text = value.strip()
    for suffix in sorted(_QUANTITY_SUFFIXES, key=len, reverse=True):
        if suffix and text.endswith(suffix):
            number = text[: -len(suffix)]
            break
    else:
        number, suffix = text, ""
    try:
        return float(number) * _QUANTITY_SUFFIXES[suffix]
    except ValueError:
        try:
            return float(text)  # an exponent (1e3)
        except ValueError:
            return None


def _default_classes(ctx: Context) -> frozenset[str]:
    """The StorageClasses of the application annotated ``storageclass.kubernetes.io/is-default-class:
    "true"`` (the DefaultStorageClass admission plugin gives a claim without a class the default
    one; the PV controller does so too for an unbound claim written before a default existed)."""
    out = set()
    for sc in ctx.by_kind.get("StorageClass", []):
        annotations = get_map(get_map(sc.body, "metadata"), "annotations")
        if sc.name and annotations is not None and str(annotations.get("storageclass.kubernetes.io/is-default-class")) == "true":
            out.add(sc.name)
    return frozenset(out)


def _may_match(claim: Map, pv: HostPathVolume, defaults: frozenset[str]) -> bool:
    """Whether the PV controller may bind the unbound claim ``claim`` (a PersistentVolumeClaim body
    naming no ``spec.volumeName``) to ``pv``, as kubernetes ``pkg/controller/volume/persistentvolume/index.go``
    ``findMatchingVolume`` picks (``pv_controller.go`` ``syncUnboundClaim`` ->
    ``findBestMatchForClaim``): the same storage class (the claim's
    :func:`~hooklint.sources.repository.volumes.storage_class`; a claim that sets none gets the
    cluster's default class when there is one, so it matches a volume of class ``""`` or of a
    default StorageClass of the application), its ``selector`` selecting the volume's labels
    (:func:`selects`; no selector selects every volume), its access modes all among the volume's,
    the volume's ``capacity.storage`` at least the claim's ``resources.requests.storage`` and the
    same ``volumeMode`` (``Filesystem`` when unset). A size hooklint cannot read counts as fitting
    and node affinity is not judged (hooklint does not know the nodes): either may bind, so the
    claim is taken to."""
    spec = get_map(claim, "spec")
    if spec is None:
        return False
    cls = volumes_storage_class(claim)
    if cls is None:
        if pv.storage_class != "" and pv.storage_class not in defaults:
            return False
    elif cls != pv.storage_class:
        return False
    selector = spec.get("selector")
    if selector is not None and not selects(selector if isinstance(selector, Map) else None, dict(pv.labels)):
        return False
    modes = spec.get("accessModes")
    if isinstance(modes, list) and not {str(mode) for mode in modes} <= pv.access_modes:
        return False
    mode = spec.get("volumeMode")
    if (mode if isinstance(mode, str) and mode else "Filesystem") != pv.volume_mode:
        return False
    requests = get_map(get_map(spec, "resources"), "requests")
    requested = quantity(requests.get("storage")) if requests is not None else None
    offered = quantity(pv.capacity)
    return requested is None or offered is None or offered >= requested


def _host_path_binding(m: Manifest, claim_name: object, ctx: Context) -> tuple[HostPathVolume, str, bool] | None:
    """The hostPath or local PersistentVolume (the node's filesystem either way:
    :mod:`hooklint.sources.repository.volumes`) the PersistentVolumeClaim ``claim_name`` of ``m``'s namespace
    is bound to, with how (``the claim's spec.volumeName``, ``the volume's spec.claimRef``), or
    None. Volumes and claims are the application's and those written anywhere in the repository
    (``ctx.host_path_volumes``, ``ctx.volume_claims``); a claim or a claimRef without a namespace,
    or a pod without one, matches any namespace. As Kubernetes' PersistentVolume controller binds
    (``pkg/controller/volume/persistentvolume/pv_controller.go`` ``syncUnboundClaim``): a claim
    naming ``spec.volumeName`` gets that volume unless its ``claimRef`` reserves it for another
    claim; a claim that names none gets a volume whose ``claimRef`` reserves it for that claim
    (pre-binding; ``findBestMatchForClaim`` takes it first); a claim that names none and no volume
    reserves may be bound to any volume :func:`_may_match` finds, reported as such (the third
    item, True: "may bind"; several volumes, or a provisioner, may serve it, and any of them may be
    the hostPath one)."""
    if not isinstance(claim_name, str) or not claim_name:
        return None
    namespace = m.namespace

    def same(other: str) -> bool:
        return other == "" or namespace is None or other == namespace

    volumes = set(ctx.host_path_volumes)
    for written in ctx.by_kind.get("PersistentVolume", []):
        spec = get_map(written.body, "spec")
        found, ref = node_path(spec), get_map(spec, "claimRef")
        if written.name and found is not None and written.group == "":
            source, host = found
            volumes.add(HostPathVolume(written.name, str(host.get("path") or ""),
                                       str(ref.get("namespace") or "") if ref is not None else "",
                                       str(ref.get("name") or "") if ref is not None else "", written.path, source,
                                       **volume_match_facts(written.body)))  # type: ignore[arg-type]  # fmt: skip
    if not volumes:
        return None
    written_claims = [c for c in ctx.volume_claims if c.name == claim_name and same(c.namespace)]
    named = {c.volume_name for c in written_claims if c.volume_name}
    unnamed = [c.body for c in written_claims if not c.volume_name and c.body is not None]
    own = ctx.find("PersistentVolumeClaim", namespace, claim_name)
    own_spec = get_map(own.body, "spec") if own is not None else None
    own_volume = own_spec.get("volumeName") if own_spec is not None else None
    if isinstance(own_volume, str) and own_volume:
        named, unnamed = {own_volume}, []  # the application's own claim is the one applied with the pod
    elif own is not None:
        unnamed.append(own.body)  # names none: the repository's claim of that name may still name one
    ordered = sorted(volumes, key=attrgetter("name", "file"))
    for pv in ordered:
        reserved = pv.claim_name == claim_name and same(pv.claim_namespace)
        if pv.name in named and (not pv.claim_name or reserved):
            return pv, "the claim's spec.volumeName", False
        if reserved and (not named or pv.name in named):
            return pv, "the volume's spec.claimRef", False
    defaults = _default_classes(ctx)
    for pv in ordered:
        if not pv.claim_name and any(_may_match(claim, pv, defaults) for claim in unnamed):
            return pv, "the claim names no spec.volumeName, and the volume matches its storage class, selector, " \
                       "access modes, size and volume mode", True  # fmt: skip
    return None


@check("HL105", kinds=POD_KINDS)
def hook_privileged_pod(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """Host namespaces, hostPath volumes (and claims bound to a hostPath or local PersistentVolume:
    :func:`_host_path_binding`), privileged containers, privilege escalation and added
    capabilities beyond the baseline profile, read from the table HL206's Pod Security check reads
    (:data:`hooklint.model.BASELINE_CAPABILITIES`, exact names): a baseline capability written
    another way (``CAP_CHOWN``, ``chown``) is reported as such, since admission rejects it. A
    Workflow's pods are judged one template at a time (:meth:`Manifest.pod_specs`); a field several
    pods read from the Workflow's spec (``spec.hostNetwork``, ``spec.volumes``) is reported once."""
    seen: set[tuple[str, str]] = set()
    for pod in _pods_in_scope(m, ctx):
        for hit in _privileged(m, pod, ctx):
            if (hit.field_path, hit.message) not in seen:
                seen.add((hit.field_path, hit.message))
                yield hit


def _privileged(m: Manifest, pod: PodSpec, ctx: Context) -> Iterator[Hit]:
    """HL105's findings on one pod spec of ``m`` (:func:`hook_privileged_pod`)."""
    tail = (
        f"{_runs(m)} and then controls the node, not just its pod. Remove it, or do this work "
        "outside the cluster's workloads."
    )
    yield from _patch_privileges(m, pod, tail)
    for key in ("hostNetwork", "hostPID", "hostIPC"):
        if pod.get(key) is True:
            yield Hit(f"{m.label} sets {key}: true: {tail}", pod.value_span(key), pod.field_path(key))
    for volume, vpath in pod.volumes():
        name = volume.get("name") if isinstance(volume.get("name"), str) else vpath.rsplit(".", 1)[-1]
        if "hostPath" in volume:
            yield Hit(
                f"{m.label} mounts the node's filesystem through hostPath volume '{name}': {tail}",
                volume.key_span("hostPath"),
                f"{vpath}.hostPath",
            )
        claim = get_map(volume, "persistentVolumeClaim")
        bound = _host_path_binding(m, claim.get("claimName"), ctx) if claim is not None else None
        if claim is not None and bound is not None:
            pv, how, may = bound
            yield Hit(
                f"{m.label} {'may mount' if may else 'mounts'} the node's filesystem through volume '{name}': "
                f"PersistentVolumeClaim '{claim['claimName']}' {'may bind to' if may else 'is bound to'} PersistentVolume "
                f"'{pv.name}' ({how}; {pv.file}), a {pv.source} "
                f"volume of '{pv.path}' on the node: {tail}",
                volume.key_span("persistentVolumeClaim"),
                f"{vpath}.persistentVolumeClaim",
            )
    for container in m.containers(pod):
        sc = container.body.get("securityContext")
        if not isinstance(sc, Map):
            continue
        where = _where(m, container)
        path = f"{container.path}.securityContext"
        if sc.get("privileged") is True:
            yield Hit(f"The {where} is privileged: {tail}", sc.value_span("privileged"), f"{path}.privileged")
        if sc.get("allowPrivilegeEscalation") is True:
            yield Hit(
                f"The {where} sets allowPrivilegeEscalation: true, so its processes can gain more "
                f"privileges than they start with: {tail}",
                sc.value_span("allowPrivilegeEscalation"),
                f"{path}.allowPrivilegeEscalation",
            )
        caps = sc.get("capabilities")
        added = caps.get("add") if isinstance(caps, Map) else None
        if isinstance(added, Seq):
            for i, cap in enumerate(added):
                if not isinstance(cap, str):
                    continue
                if cap in BASELINE_CAPABILITIES:
                    continue
                normalized = cap.upper().removeprefix("CAP_")
                if normalized in BASELINE_CAPABILITIES:
                    yield Hit(
                        f"The {where} adds capability {cap}, which is {normalized} of the baseline set written "
                        "another way: Pod Security admission compares capability names exactly, so a namespace "
                        f"that enforces the baseline or restricted level rejects its pods (HL206). Write {normalized}.",
                        added.item_spans[i],
                        f"{path}.capabilities.add[{i}]",
                    )
                    continue
                yield Hit(
                    f"The {where} adds capability {cap}, beyond the baseline set: {tail}",
                    added.item_spans[i],
                    f"{path}.capabilities.add[{i}]",
                )


def parsed_patch(text: object) -> Map | None:
    """A Workflow's ``podSpecPatch`` as the workflow controller reads it, when hooklint can: a
    YAML or JSON mapping (``argo-workflows util/util.go`` ``ApplyPodSpecPatch`` reads it with
    sigs.k8s.io/yaml), without ``{{`` (the controller substitutes workflow variables first, so a
    templated patch says nothing certain). None otherwise (HL110 reports it)."""
    if not isinstance(text, str) or "{{" in text:
        return None
    try:
        docs = parse_documents(text)
    except (YamlSyntaxError, DocumentTooComplex):  # the controller fails, or hooklint cannot say
        return None
    if len(docs) != 1 or not isinstance(docs[0].value, Map):
        return None
    return docs[0].value


def _patch_privileges(m: Manifest, pod: PodSpec, tail: str) -> Iterator[Hit]:
    """HL105's findings in the ``podSpecPatch`` strings of a Workflow pod (:meth:`PodSpec.patches`,
    :func:`parsed_patch`): host namespaces, hostPath volumes, and privileged, escalating or
    capability-adding containers, reported at the patch (its text is one YAML string, so a
    finding cannot point inside it)."""
    for holder, path in pod.patches():
        patch = parsed_patch(holder.get("podSpecPatch"))
        if patch is None:
            continue
        said: list[str] = []
        said.extend(f"{key}: true" for key in ("hostNetwork", "hostPID", "hostIPC") if patch.get(key) is True)
        volumes = patch.get("volumes")
        said.extend(f"hostPath volume '{v.get('name')}'" for v in (volumes if isinstance(volumes, Seq) else [])
                    if isinstance(v, Map) and "hostPath" in v)  # fmt: skip
        for list_name in ("initContainers", "containers"):
            items = patch.get(list_name)
            for c in items if isinstance(items, Seq) else []:
                sc = get_map(c, "securityContext") if isinstance(c, Map) else None
                if sc is None:
                    continue
                name = f"container '{c.get('name')}'"
                if sc.get("privileged") is True:
                    said.append(f"{name} privileged")
                if sc.get("allowPrivilegeEscalation") is True:
                    said.append(f"{name} allowPrivilegeEscalation: true")
                caps = get_map(sc, "capabilities")
                added = caps.get("add") if caps is not None else None
                extra = [str(a) for a in (added if isinstance(added, Seq) else []) if a not in BASELINE_CAPABILITIES]
                if extra:
                    said.append(f"{name} adding {', '.join(extra)}")
        if said:
            yield Hit(
                f"The podSpecPatch of {m.label} at {path}.podSpecPatch gives its pods {', '.join(said)}: {tail}",
                holder.value_span("podSpecPatch"),
                f"{path}.podSpecPatch",
            )


def _template_refs(template: object, path: str) -> Iterator[tuple[Map, str, str]]:
    """Every ``templateRef`` of the steps and DAG tasks of a Workflow ``template`` (inline
    templates' too), as (the step or task, its dotted path, its name)."""
    if not isinstance(template, Map):
        return
    steps = template.get("steps")
    dag = get_map(template, "dag")
    tasks = dag.get("tasks") if dag is not None else None
    items = [(step, f"{path}.steps[{i}][{j}]") for i, group in enumerate(steps if isinstance(steps, Seq) else [])
             for j, step in enumerate(group if isinstance(group, Seq) else [])]
    items += [(task, f"{path}.dag.tasks[{i}]") for i, task in enumerate(tasks if isinstance(tasks, Seq) else [])]
    for item, item_path in items:
        if not isinstance(item, Map):
            continue
        if isinstance(item.get("templateRef"), Map):
            yield item, item_path, str(item.get("name") or item_path)
        yield from _template_refs(item.get("inline"), f"{item_path}.inline")


def _ref_name(ref: Map) -> str:
    """``WorkflowTemplate 'name'`` (``ClusterWorkflowTemplate`` with ``clusterScope: true``)."""
    kind = "ClusterWorkflowTemplate" if ref.get("clusterScope") is True else "WorkflowTemplate"
    return f"{kind} '{ref.get('name')}'"


_CHECKED = "so hooklint did not check the images, ServiceAccount and privileges of those pods (HL101-HL105)"


@check("HL110")
def hook_workflow_pods_not_read(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """A hook of a run-to-completion kind (:data:`hooklint.model.RUN_TO_COMPLETION_KINDS`) whose
    pods, or some of them, hooklint does not read, so HL101-HL105 do not judge them: a Workflow's
    (:func:`_workflow_pods_not_read`), a TaskRun's ``spec.taskRef`` and steps with a ``ref``
    (:func:`_task_run_pods_not_read`), and every PipelineRun and AnsibleJob (their pods are made
    from tasks or an operator's Job hooklint does not read). An AnalysisRun's Job metrics are read
    (:meth:`Manifest.pod_specs`), and the pod templates of an OpenKruise BroadcastJob, a JobSet and a
    Volcano Job: one of those with no pod template hooklint can read is reported. An Argo Rollouts ``Rollout`` hook with ``spec.workloadRef``
    (:func:`_rollout_pods_not_read`) too, and every Argo Workflows ``CronWorkflow`` hook: it makes
    a Workflow of ``spec.workflowSpec`` on its schedule (``argo-workflows
    pkg/apis/workflow/v1alpha1/cron_workflow_types.go`` ``CronWorkflowSpec``), whose templates
    hooklint does not read as pods. A hook of any other kind whose pods hooklint does not read
    but that holds a pod spec is reported too (:func:`_other_pods_not_read`). Each is reported
    once, where it is written."""
    rollout = m.kind == "Rollout" and m.pod_spec_path is not None
    cron = m.kind == "CronWorkflow" and m.group == "argoproj.io"
    if not ctx.in_scope(m):
        return
    if (m.group, m.kind) not in RUN_TO_COMPLETION_KINDS and not rollout and not cron:
        yield from _other_pods_not_read(m)
        return
    spec = get_map(m.body, "spec")
    if rollout:
        yield from _rollout_pods_not_read(m, spec)
    elif cron:
        key = "workflowSpec" if spec is not None and "workflowSpec" in spec else None
        yield Hit(
            f"{m.label} makes a Workflow on its schedule from spec.workflowSpec, and hooklint does not read a "
            f"CronWorkflow's templates as pods, {_CHECKED}. Review its templates yourself, or run the work as a "
            "Workflow hook with the templates in it, whose pods hooklint reads.",
            spec.key_span(key) if spec is not None and key else m.anchor,
            f"spec.{key}" if key else "metadata.name",
        )
    elif m.kind == "Workflow":
        yield from _workflow_pods_not_read(m, ctx)
    elif m.kind == "TaskRun":
        yield from _task_run_pods_not_read(m, spec)
    elif m.kind == "AnalysisRun" or m.kind in ("BroadcastJob", "JobSet", "Job", *KUBEFLOW_REPLICA_SPECS) and m.pod_specs():
        return  # their pods are read (:meth:`Manifest.pod_specs`); a pod template not found is reported below
    elif m.kind == "PipelineRun":
        key = next((k for k in ("pipelineSpec", "pipelineRef") if spec is not None and k in spec), None)
        yield Hit(
            f"{m.label} makes a pod for each task of its pipeline{f' (spec.{key})' if key else ''}, and hooklint does "
            f"not read a PipelineRun's tasks, {_CHECKED}. Review the pipeline's tasks yourself, or run each as a TaskRun "
            "with its steps in spec.taskSpec.",
            spec.key_span(key) if spec is not None and key else m.anchor,
            f"spec.{key}" if key else "metadata.name",
        )
    else:
        yield Hit(
            f"{m.label} is a {m.group}/{m.kind}: its controller makes the pods that run it from settings hooklint does "
            f"not read, {_CHECKED}. Review what it runs yourself, or run the work as a Job.",
            m.anchor,
            "metadata.name",
        )


def _other_pods_not_read(m: Manifest) -> Iterator[Hit]:
    """HL110 on a hook of a kind whose pods hooklint does not read (none found by
    :meth:`Manifest.pod_specs`; not a template-only kind, :data:`hooklint.model.TEMPLATE_ONLY_KINDS`)
    that holds a pod spec anywhere in its spec (:func:`hooklint.model.find_pod_specs`: a Ray
    RayJob's ``spec.rayClusterSpec.headGroupSpec.template.spec``). Argo CD runs an object of any
    kind as a hook (argo-cd v3.5.1 ``controller/hook.go`` ``isHookOfType``), and its controller may
    make pods from that spec, which HL101-HL105 then never read: reported once, at the first
    pod spec, naming how many there are (fail closed: a warning, so the run exits 1)."""
    if (m.group, m.kind) in TEMPLATE_ONLY_KINDS or m.pod_specs():
        return
    found = find_pod_specs(m.body)
    if not found:
        return
    path, parent, key = found[0]
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    yield Hit(
        f"{m.label} is a {m.kind} ({m.group or 'v1'}), whose pods hooklint does not read, and it holds a pod spec at "
        f"{path}{more}: its controller may run pods from it, {_CHECKED}. Review those pods yourself, or run the work "
        "as a Job, whose pod hooklint reads.",
        parent.key_span(key),
        path,
    )


def _rollout_pods_not_read(m: Manifest, spec: Map | None) -> Iterator[Hit]:
    """HL110 on an Argo Rollouts ``Rollout`` (``argoproj.io``) with a ``spec.workloadRef``: the
    controller makes its pods from the pod template of the Deployment, ReplicaSet or PodTemplate
    it names (``argo-rollouts rollout/templateref.go``; ``pkg/apis/rollouts/v1alpha1/types.go``
    ``RolloutSpec.WorkloadRef``, ``ObjectRef``), not from ``spec.template``, which must then be
    empty (``pkg/apis/rollouts/validation/validation.go``). hooklint reads that workload as an
    object of its own (a plain one, or another hook), never as this hook's pods."""
    ref = get_map(spec, "workloadRef")
    if spec is None or ref is None:
        return
    kind = ref.get("kind") if isinstance(ref.get("kind"), str) and ref.get("kind") else "workload"
    name = ref.get("name") if isinstance(ref.get("name"), str) else ""
    yield Hit(
        f"{m.label} makes its pods from the pod template of {kind} '{name}' (spec.workloadRef), not from this "
        f"object, {_CHECKED}. Review that {kind}'s pod template (hooklint reads it as an object of its own, not as "
        "this hook's pods), or write the pod template in spec.template.",
        spec.key_span("workloadRef"),
        "spec.workloadRef",
    )


def _task_run_pods_not_read(m: Manifest, spec: Map | None) -> Iterator[Hit]:
    """HL110 on a TaskRun (``tekton.dev``): a ``spec.taskRef`` (the pod runs the steps of a Task,
    ClusterTask or resolved bundle kept elsewhere: ``taskrun_types.go`` ``TaskRef``), and a step of
    ``spec.taskSpec`` with a ``ref`` (a StepAction gives its image and script)."""
    if spec is None:
        return
    ref = get_map(spec, "taskRef")
    if ref is not None:
        resolver = ref.get("resolver")
        what = (f"a Task the '{resolver}' resolver fetches" if isinstance(resolver, str) and resolver
                else f"{ref.get('kind') if isinstance(ref.get('kind'), str) else 'Task'} '{ref.get('name')}'")  # fmt: skip
        yield Hit(
            f"{m.label} runs {what} through spec.taskRef: its steps are defined there, not in this object, {_CHECKED}. "
            "Review that Task's steps (hooklint reads a Task as a plain object), or write them in spec.taskSpec.",
            spec.key_span("taskRef"),
            "spec.taskRef",
        )
    steps = get_map(spec, "taskSpec")
    steps = steps.get("steps") if steps is not None else None
    for i, step in enumerate(steps if isinstance(steps, Seq) else []):
        if isinstance(step, Map) and isinstance(step.get("ref"), Map):
            name = step.get("name") if isinstance(step.get("name"), str) else f"steps[{i}]"
            yield Hit(
                f"Step '{name}' of {m.label} runs StepAction '{step['ref'].get('name')}' (ref): its image and script are "
                f"defined there, {_CHECKED}. Review that StepAction, or write the step's image and script here.",
                step.key_span("ref"),
                f"spec.taskSpec.steps[{i}].ref",
            )


def _workflow_pods_not_read(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """HL110 on a Workflow hook (``argoproj.io``) whose pods hooklint cannot read, so HL101-HL105 do not
    judge them: ``spec.workflowTemplateRef`` (the workflow controller runs the referenced
    WorkflowTemplate's or ClusterWorkflowTemplate's spec: ``workflow_types.go``
    ``WorkflowTemplateRef``), a step's or DAG task's ``templateRef`` (a template of another
    WorkflowTemplate), a ``podSpecPatch`` hooklint cannot parse (:func:`parsed_patch`: templated,
    or not a mapping), and a parsed one that sets a container's image or the pod's
    ServiceAccount (the patch is applied to every pod of its template: ``workflowpod.go``
    ``processPodSpecPatch``). Each is reported once, where it is written."""
    spec = get_map(m.body, "spec")
    if spec is None:
        return
    checked = _CHECKED
    ref = get_map(spec, "workflowTemplateRef")
    if ref is not None:
        yield Hit(
            f"{m.label} runs {_ref_name(ref)} through spec.workflowTemplateRef: its pods are defined in that "
            f"template, not in this object, {checked}. Review that template's pods (hooklint reads a WorkflowTemplate "
            "as a plain object), or write the templates in the Workflow.",
            spec.key_span("workflowTemplateRef"),
            "spec.workflowTemplateRef",
        )
    templates = spec.get("templates")
    for i, template in enumerate(templates if isinstance(templates, Seq) else []):
        for item, path, name in _template_refs(template, f"spec.templates[{i}]"):
            target = item["templateRef"]
            yield Hit(
                f"Step '{name}' of {m.label} runs template '{target.get('template')}' of {_ref_name(target)} "
                f"(templateRef): its pods are defined there, {checked}. Review that template's pod (hooklint reads a "
                "WorkflowTemplate as a plain object), or write the template in the Workflow.",
                item.key_span("templateRef"),
                f"{path}.templateRef",
            )
    holders = [(spec, "spec"), (get_map(spec, "templateDefaults"), "spec.templateDefaults")]
    holders += [(t, f"spec.templates[{i}]") for i, t in enumerate(templates if isinstance(templates, Seq) else [])]
    holders += [(pod.spec, pod.path) for pod in m.pod_specs() if ".inline" in pod.path]
    for holder, path in holders:
        text = holder.get("podSpecPatch") if isinstance(holder, Map) else None
        if not isinstance(holder, Map) or text is None:
            continue
        patch = parsed_patch(text)
        if patch is None:
            yield Hit(
                f"{m.label} patches its pods with a podSpecPatch at {path}.podSpecPatch that hooklint cannot read "
                "(it is templated with {{...}}, which the workflow controller fills in first, or is not a YAML "
                f"mapping): the patch can set any pod field, host namespaces and privileged containers included, "
                f"{checked}. Write the pod's settings in the template instead.",
                holder.value_span("podSpecPatch"),
                f"{path}.podSpecPatch",
            )
            continue
        sets = ["serviceAccountName"] if "serviceAccountName" in patch else []
        for list_name in ("initContainers", "containers"):
            items = patch.get(list_name)
            sets += [f"the image of container '{c.get('name')}'" for c in (items if isinstance(items, Seq) else [])
                     if isinstance(c, Map) and "image" in c]  # fmt: skip
        if sets:
            yield Hit(
                f"The podSpecPatch of {m.label} at {path}.podSpecPatch sets {', '.join(sets)}: hooklint checks the "
                "images and ServiceAccount written in the templates, not those of a patch (HL101-HL104). Write "
                "them in the template instead.",
                holder.value_span("podSpecPatch"),
                f"{path}.podSpecPatch",
            )


_CREDENTIAL_WORDS = frozenset({"PASSWORD", "PASSWD", "PASSPHRASE", "PWD", "TOKEN", "SECRET", "APIKEY",
                               "CREDENTIAL", "CREDENTIALS"})  # fmt: skip
_CREDENTIAL_PAIRS = frozenset({("API", "KEY"), ("ACCESS", "KEY"), ("PRIVATE", "KEY"), ("AUTH", "KEY"), ("SECRET", "KEY")})
#: A last word that makes the variable *about* a credential, not the credential itself.
_NOT_CREDENTIAL_TAILS = frozenset({"FILE", "PATH", "NAME", "ID", "REF", "DIR", "URL", "URI", "EXPIRY",
                                   "SECONDS", "TTL", "TYPE", "HEADER", "ENDPOINT", "LENGTH", "LIMIT",
                                   "COUNT", "SIZE", "KEYS", "FIELD", "MOUNT", "VERSION"})  # fmt: skip


def looks_like_credential(name: str) -> bool:
    """True for env var names such as DB_PASSWORD, GITHUB_TOKEN or AWS_SECRET_ACCESS_KEY, by whole
    words: not MAX_TOKENS, TOKENIZER_MODEL, TOKEN_FILE, SECRET_NAME or OAUTH_TOKEN_URL."""
    words = [w for w in name.upper().replace("-", "_").replace(".", "_").split("_") if w]
    if not words or words[-1] in _NOT_CREDENTIAL_TAILS:
        return False
    if _CREDENTIAL_WORDS.intersection(words):
        return True
    return any(pair in _CREDENTIAL_PAIRS for pair in zip(words, words[1:]))


@check("HL107", kinds=POD_KINDS)
def hook_literal_secret_env(m: Manifest, ctx: Context) -> Iterator[Hit]:
    if not _pods_in_scope(m, ctx):
        return
    for container in m.containers():
        env = container.body.get("env")
        if not isinstance(env, list):
            continue
        for i, var in enumerate(env):
            if not isinstance(var, Map):
                continue
            name, value = var.get("name"), var.get("value")
            if not isinstance(name, str) or not isinstance(value, str) or not value.strip():
                continue
            if value.startswith("$(") or not looks_like_credential(name):
                continue
            yield Hit(
                f"Env var {name} of {_where(m, container)} carries a literal value: the credential "
                f"is in the Git repository, in every rendered manifest and in the {m.kind}'s spec, "
                f"readable by anyone who can read the repository or the {m.kind}. Use "
                "valueFrom.secretKeyRef.",
                var.value_span("value"),
                f"{container.path}.env[{i}].value",
            )


#: Kubernetes' built-in user-facing ClusterRoles that write Secrets and workloads (kube-apiserver's
#: bootstrap policy, plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go), with what they
#: allow; ``view`` reads neither Secrets nor anything it could escalate with, so it is not here.
BUILT_IN_WRITER_ROLES = {
    "admin": "which reads and writes Secrets and workloads (Pods, Deployments, Jobs), runs commands in "
    "pods, and manages Roles and RoleBindings",
    "edit": "which reads and writes Secrets and workloads (Pods, Deployments, Jobs) and runs commands in pods",
}


#: Verbs that let a subject raise its own rights, with what each allows (Kubernetes RBAC
#: "Privilege escalation prevention": escalate on roles, bind on roles, impersonate on users,
#: groups and ServiceAccounts).
ESCALATION_VERBS = {
    "escalate": "it can write roles with rights it does not hold",
    "bind": "it can bind itself to any role, cluster-admin included",
    "impersonate": "it can act as any user, group or ServiceAccount it names",
}
#: Admission webhook configurations (cluster-scoped, ``admissionregistration.k8s.io``).
WEBHOOK_RESOURCES = ("mutatingwebhookconfigurations", "validatingwebhookconfigurations")
#: Admission policies and their bindings (cluster-scoped, ``admissionregistration.k8s.io``): a CEL
#: policy the API server applies to every object its bindings match, a mutating one rewriting it.
ADMISSION_POLICY_RESOURCES = ("mutatingadmissionpolicies", "mutatingadmissionpolicybindings",
                              "validatingadmissionpolicies")  # fmt: skip


#: Resources whose ``create`` starts pods, with the API groups that serve them (``""`` the core
#: group; ``extensions`` still names the old workload kinds in RBAC rules): Kubernetes RBAC good
#: practices, "Workload creation".
POD_MAKERS = {
    "pods": ("",),
    "replicationcontrollers": ("",),
    "deployments": ("apps", "extensions"),
    "daemonsets": ("apps", "extensions"),
    "replicasets": ("apps", "extensions"),
    "statefulsets": ("apps",),
    "jobs": ("batch",),
    "cronjobs": ("batch",),
}
#: Signers whose approved certificates authenticate to the API server (Kubernetes "Certificates and
#: Certificate Signing Requests", "Kubernetes signers"): any user and group, any node, and the
#: legacy signer that kube-controller-manager may sign client certificates with.
CLIENT_SIGNERS = ("kubernetes.io/kube-apiserver-client", "kubernetes.io/kube-apiserver-client-kubelet",
                  "kubernetes.io/legacy-unknown")  # fmt: skip
CERTIFICATES_GROUP = "certificates.k8s.io"


def _serves(groups: list, resource_groups: tuple[str, ...]) -> bool:
    """Whether a rule's ``apiGroups`` name one of ``resource_groups`` (or ``*``)."""
    return "*" in groups or any(g in groups for g in resource_groups)  # RBAC's APIGroupMatches


def _client_signers(rule: Mapping, groups: list, verbs: list[str], resources: list[str]) -> str | None:
    """The signers a rule lets its subject ``approve`` certificate signing requests for, when one of
    them issues certificates the API server accepts (:data:`CLIENT_SIGNERS`; ``resourceNames`` may
    name ``<domain>/*``, every signer of that domain), as a message names them, or None. Approving
    needs ``update`` on ``certificatesigningrequests/approval`` too (certificate-controller's
    role holds both); the ``approve`` rule is what limits whose certificates, so it is the one
    judged (the CertificateApproval admission plugin, ``k8s.io/kubernetes
    plugin/pkg/admission/certificates/approval/admission.go``)."""
    if "approve" not in verbs or not resource_match(resources, "signers") or not _serves(groups, (CERTIFICATES_GROUP,)):
        return None
    names = rule.get("resourceNames")
    if not names:
        return "every signer"
    shown = [str(n) for n in names if str(n) in CLIENT_SIGNERS
             or str(n).endswith("/*") and any(s.startswith(str(n)[:-1]) for s in CLIENT_SIGNERS)]  # fmt: skip
    return ", ".join(shown) or None


def _rule_grants(rule: Mapping, cluster_wide: bool, judge: "_Judge | None" = None,
                 privileged: str | None = None) -> list[tuple[int, str]]:
    """What one RBAC rule grants that HL106 reports, as (rank, phrase), most dangerous first:
    0 every resource; 1 escalate/bind/impersonate; 2 every verb; 3 running pods cluster-wide
    (``create``, ``update`` or ``patch`` on pods or a kind that makes them, :data:`POD_MAKERS`: a new
    pod template, or a running pod's new image; ``update``/``patch`` on
    ``pods/ephemeralcontainers``; ``create`` or ``get`` on ``pods/exec`` or ``pods/attach``; ``create``
    or ``get`` on ``nodes/proxy``: the code runs as any ServiceAccount of its namespace and mounts
    any Secret there, Kubernetes RBAC good practices "Workload creation", "Access to proxy
    subresource of Nodes"); 4 ``create`` on ``serviceaccounts/token`` cluster-wide (a token for any
    ServiceAccount, "Token request"); 5 reading secrets cluster-wide (get, list or watch: a watch
    without a resourceVersion starts with an ADDED event carrying every existing Secret, data
    included, so watch alone reads them all); 6 approving certificates of a client signer
    (:func:`_client_signers`, "Certificate signing requests"); 7 update or patch on admission webhook
    configurations, ``create`` on them (a new webhook receives, and a mutating one rewrites, every
    object it asks for), or create, update or patch on admission policies
    (:data:`ADMISSION_POLICY_RESOURCES`), cluster-wide. Ranks 3 to 7 are reported through a
    ClusterRoleBinding; ranks 3 to 5 (not ``nodes/proxy``, nodes being cluster-scoped) through a
    RoleBinding too when ``privileged`` says its namespace holds the cluster (a phrase naming it,
    :meth:`_Judge.privileged`: Argo CD's or kube-system); in any other namespace a hook that starts
    pods or reads Secrets reaches that namespace's ServiceAccounts and Secrets, the reach a
    namespaced Role is meant to have.

    Resources are matched as Kubernetes RBAC matches them (:func:`resource_match`: ``*``,
    ``resource/subresource`` and ``*/subresource``), API groups by :func:`_serves`; the message
    quotes the entry as written (``create on */exec``).

    ``get`` on ``pods/exec``, ``pods/attach`` and ``nodes/proxy`` runs commands: a WebSocket
    upgrade is an HTTP GET, authorized as ``get`` (Kubernetes "RBAC good practices", "Access to
    proxy subresource of Nodes": "get permission on nodes/proxy is not a read-only permission";
    for pods the API server asks ``create`` too only from Kubernetes 1.35, feature gate
    ``AuthorizePodWebsocketUpgradeCreatePermission``, beta and on by default, which older clusters
    and a cluster that turns it off lack).

    A rule limited by ``resourceNames`` grants its verbs on those names only, so it is judged by
    what the names reach (``judge``, :meth:`_Judge.named`: impersonating a named identity, binding
    or escalating a named role HL106 reports, tokens and token Secrets of a named ServiceAccount it
    reports, the kubelet API of named nodes) and by the signers it approves for; without a
    ``judge`` only the signers count."""
    written_verbs, written_resources, written_groups = rule.get("verbs"), rule.get("resources"), rule.get("apiGroups")
    verbs = [str(v) for v in written_verbs] if isinstance(written_verbs, list) else []
    resources = [str(r) for r in written_resources] if isinstance(written_resources, list) else []
    groups = written_groups if isinstance(written_groups, list) else [""]
    signers = _client_signers(rule, groups, verbs, resources) if cluster_wide and "*" not in resources else None
    approve = None if signers is None else signers  # a phrase once :func:`_binding_grants` joins them
    names = rule.get("resourceNames")
    if names:
        named = judge.named(verbs, resources, groups, names, cluster_wide) if judge and isinstance(names, list) else []
        return named + ([(6, approve)] if approve else [])
    out: list[tuple[int, str]] = []
    if "*" in resources:
        out.append((0, f"every resource{' with every verb' if '*' in verbs else ''}"))
        return out
    escalation = [v for v in ESCALATION_VERBS if v in verbs]
    if escalation:
        why = "; ".join(ESCALATION_VERBS[v] for v in escalation)
        out.append((1, f"{', '.join(escalation)} on {', '.join(resources) or 'its resources'} ({why})"))
    if "*" in verbs:
        out.append((2, f"every verb on {', '.join(resources) or 'its resources'}"))
        return out
    core = "" in groups or "*" in groups
    # running pods, tokens and Secrets: through a ClusterRoleBinding, or a RoleBinding of a
    # namespace whose ServiceAccounts and Secrets hold the cluster (:data:`PRIVILEGED_NAMESPACES`)
    pods_reach = cluster_wide or privileged is not None

    def on(*wanted: str) -> list[str]:  # the entries (as written) that grant each of ``wanted``, in that order
        return list(dict.fromkeys(e for w in wanted for e in resources if resource_match([e], w)))

    if pods_reach:  # in rule order
        makers = [e for e in resources if any(resource_match([e], r) and _serves(groups, served)
                                              for r, served in POD_MAKERS.items())]  # fmt: skip
        inside = on("pods/exec", "pods/attach") if core else []
        debug = on("pods/ephemeralcontainers") if core else []
        kubelet = on("nodes/proxy") if core and cluster_wide else []  # nodes are cluster-scoped
        # update or patch: a new pod template, or a running pod's new image; get: a websocket exec
        for verb, reached in (("create", makers + inside + kubelet), ("update", makers + debug),
                              ("patch", makers + debug), ("get", inside + kubelet)):
            reached = list(dict.fromkeys(reached))
            if verb in verbs and reached:
                out.append((3, f"{verb} on {', '.join(reached)}"))
        token = on("serviceaccounts/token") if core and "create" in verbs else []
        if token and cluster_wide:
            out.append((4, f"issuing tokens cluster-wide (create on {token[0]}: a token for any "
                           "ServiceAccount of any namespace)"))  # fmt: skip
        elif token:
            where, why = str(privileged).split(" (", 1)
            out.append((4, f"issuing tokens in {where} (create on {token[0]}: a token for any ServiceAccount there; "
                           f"{why}"))  # fmt: skip
    read = [v for v in ("get", "list", "watch") if v in verbs]
    secrets = on("secrets") if core and read and pods_reach else []
    if secrets:
        said, stream = ("watching", "a watch streams every Secret with its data") if read == ["watch"] else ("reading", "")
        if cluster_wide:
            out.append((5, f"{said} secrets cluster-wide" + (f" ({stream})" if stream else "")))
        else:  # the namespace's phrase: namespace 'x' (what it holds)
            where, why = str(privileged).split(" (", 1)
            out.append((5, f"{said} secrets in {where} ({stream + '; ' if stream else ''}{why}"))
    if approve:
        out.append((6, approve))
    admission = _serves(groups, ("admissionregistration.k8s.io",))
    hooks = on(*WEBHOOK_RESOURCES) if cluster_wide and admission else []
    writes = [v for v in ("update", "patch") if v in verbs]
    if hooks and writes:
        out.append((7, f"{' and '.join(writes)} on {', '.join(hooks)} without resourceNames (it can rewrite "
                       "every admission webhook of the cluster)"))  # fmt: skip
    if hooks and "create" in verbs:
        out.append((7, f"create on {', '.join(hooks)} (a new admission webhook receives every object it asks for, "
                       "Secrets included, and a mutating one may rewrite it, a pod made privileged)"))  # fmt: skip
    policies = on(*ADMISSION_POLICY_RESOURCES) if cluster_wide and admission else []
    changes = [v for v in ("create", "update", "patch") if v in verbs]
    if policies and changes:
        said = ", ".join(changes[:-1]) + " and " + changes[-1] if len(changes) > 1 else changes[0]
        out.append((7, f"{said} on {', '.join(policies)} (an admission policy applies to every object its "
                       "bindings match: a mutating one may make every pod privileged, a validating one "
                       "decides what the cluster admits)"))  # fmt: skip
    return out


#: The label every built-in ClusterRole carries (``bootstrappolicy/policy.go``
#: ``addClusterRoleLabel``), which an ``aggregationRule`` may select them all by.
_BOOTSTRAPPING = ("kubernetes.io/bootstrapping", "rbac-defaults")
_AGGREGATE_TO = "rbac.authorization.k8s.io/aggregate-to-"

#: Built-in ClusterRoles of kube-apiserver's bootstrap policy (``k8s.io/kubernetes
#: plugin/pkg/auth/authorizer/rbac/bootstrappolicy`` ``policy.go`` ``ClusterRoles`` and
#: ``controller_policy.go``; rendered in that folder's ``testdata/cluster-roles.yaml`` and
#: ``testdata/controller-roles.yaml``) whose rules hold something :func:`_rule_grants` reports, with
#: those rules only (what else they hold adds nothing HL106 reports), as ``(labels, rules)``; the
#: labels are what an ``aggregationRule`` selects them by (each also has :data:`_BOOTSTRAPPING`).
#: ``admin`` and ``edit`` are aggregated from ``system:aggregate-to-edit`` (``edit`` carries the
#: ``aggregate-to-admin`` label, ``system:aggregate-to-edit`` the ``aggregate-to-edit`` one), so they
#: hold its rules; ``view`` and the ``aggregate-to-view`` rules hold nothing reported. The
#: controllers that start pods (replicaset, replication, statefulset, daemon-set, job and
#: persistent-volume-binder create pods; cronjob-controller Jobs; deployment-controller
#: ReplicaSets), the certificate approvers of a client signer (certificate-controller approves
#: kubelet client certificates), ``system:node`` (mirror pods, tokens) and
#: ``system:controller:storage-version-migrator-controller`` (create and patch on every resource;
#: behind the StorageVersionMigrator feature gate) are here too. Left out:
#: ``system:controller:horizontal-pod-autoscaler``, whose ``*`` resources are those of the
#: ``custom.metrics.k8s.io`` and ``external.metrics.k8s.io`` groups (metrics, no object);
#: ``system:kube-scheduler``, which binds pending pods to nodes and deletes pods but starts none and
#: reads no Secret; ``system:persistent-volume-provisioner``, which creates PersistentVolumes (no
#: pod, no Secret).
_SECRETS_READ = {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "list", "watch"]}
_IMPERSONATE_SA = {"apiGroups": [""], "resources": ["serviceaccounts"], "verbs": ["impersonate"]}
_TOKENS = {"apiGroups": [""], "resources": ["serviceaccounts/token"], "verbs": ["create"]}
_WORKLOADS = {"apiGroups": ["", "apps", "batch"], "verbs": ["create", "patch", "update"], "resources": [
    "pods", "pods/attach", "pods/exec", "replicationcontrollers", "daemonsets", "deployments", "replicasets",
    "statefulsets", "cronjobs", "jobs"]}


def _controller(*rules: tuple[str, str, str]) -> tuple[dict[str, str], tuple[dict, ...]]:
    """A controller role's entry from ``(API group, resource, verbs)`` triples, verbs space-separated."""
    return {}, tuple({"apiGroups": [g], "resources": [r], "verbs": v.split()} for g, r, v in rules)


_EDIT = (_IMPERSONATE_SA, _WORKLOADS, _TOKENS, _SECRETS_READ)


def _approver(signer: str) -> tuple[dict[str, str], tuple[dict, ...]]:
    """A built-in role's entry that may approve certificates of ``signer`` only."""
    return {}, ({"apiGroups": [CERTIFICATES_GROUP], "resources": ["signers"], "resourceNames": [signer],
                 "verbs": ["approve"]},)  # fmt: skip


BUILT_IN_ROLES: dict[str, tuple[dict[str, str], tuple[dict, ...]]] = {
    "cluster-admin": ({}, ({"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},)),
    "admin": ({}, _EDIT),
    "edit": ({_AGGREGATE_TO + "admin": "true"}, _EDIT),
    "system:aggregate-to-edit": ({_AGGREGATE_TO + "edit": "true"}, _EDIT),
    "system:kube-controller-manager": ({}, ({"apiGroups": ["*"], "resources": ["*"], "verbs": ["list", "watch"]},
                                            _TOKENS)),  # fmt: skip
    "system:kubelet-api-admin": ({}, ({"apiGroups": [""], "resources": ["nodes/log", "nodes/metrics", "nodes/proxy",
                                                                          "nodes/stats"], "verbs": ["*"]},)),  # fmt: skip
    "system:node": ({}, ({"apiGroups": [""], "resources": ["pods"], "verbs": ["create"]}, {"apiGroups": [""], "resources": ["configmaps", "secrets"],
                                 "verbs": ["get", "list", "watch"]}, _TOKENS)),  # fmt: skip
    "system:certificates.k8s.io:kube-apiserver-client-approver": _approver("kubernetes.io/kube-apiserver-client"),
    "system:certificates.k8s.io:kube-apiserver-client-kubelet-approver": _approver(
        "kubernetes.io/kube-apiserver-client-kubelet"),
    "system:certificates.k8s.io:legacy-unknown-approver": _approver("kubernetes.io/legacy-unknown"),
    "system:controller:certificate-controller": _approver("kubernetes.io/kube-apiserver-client-kubelet"),
    "system:controller:clusterrole-aggregation-controller": ({}, (
        {"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["clusterroles"],
         "verbs": ["escalate", "get", "list", "patch", "update", "watch"]},)),  # fmt: skip
    "system:controller:cronjob-controller": _controller(("batch", "cronjobs", "update"),
                                                        ("batch", "jobs", "create update patch")),
    "system:controller:daemon-set-controller": _controller(("", "pods", "create patch")),
    "system:controller:deployment-controller": _controller(("apps", "deployments", "update"),
                                                           ("apps", "replicasets", "create update patch"),
                                                           ("", "pods", "update")),
    "system:controller:generic-garbage-collector": ({}, (
        {"apiGroups": ["*"], "resources": ["*"], "verbs": ["delete", "get", "list", "patch", "update", "watch"]},)),
    "system:controller:job-controller": _controller(("batch", "jobs", "update patch"), ("", "pods", "create patch")),
    "system:controller:namespace-controller": ({}, (
        {"apiGroups": ["*"], "resources": ["*"], "verbs": ["delete", "deletecollection", "get", "list", "watch"]},)),
    "system:controller:persistent-volume-binder": _controller(("", "pods", "create")),
    "system:controller:replicaset-controller": _controller(("apps", "replicasets", "update"), ("", "pods", "create patch")),
    "system:controller:replication-controller": _controller(("", "replicationcontrollers", "update"),
                                                            ("", "pods", "create patch")),
    "system:controller:resourcequota-controller": ({}, ({"apiGroups": ["*"], "resources": ["*"], "verbs": ["list", "watch"]},)),
    "system:controller:statefulset-controller": _controller(("", "pods", "create update patch")),
    "system:controller:storage-version-migrator-controller": ({}, (
        {"apiGroups": ["*"], "resources": ["*"], "verbs": ["create", "list", "patch", "watch"]},)),
}


#: Built-in ClusterRoles that hold nothing HL106 reports but carry a label an ``aggregationRule``
#: may select (``bootstrappolicy/policy.go``): ``view`` is gathered into ``edit``
#: (``aggregate-to-edit``), ``system:aggregate-to-admin`` into ``admin`` and
#: ``system:aggregate-to-view`` into ``view``; ``admin`` and ``view`` carry the bootstrapping label
#: only. A selector that selects one of them selects roles whose meaning is known.
HARMLESS_BUILT_IN_LABELS: dict[str, dict[str, str]] = {
    "view": {_AGGREGATE_TO + "edit": "true"},
    "system:aggregate-to-admin": {_AGGREGATE_TO + "admin": "true"},
    "system:aggregate-to-view": {_AGGREGATE_TO + "view": "true"},
}
#: The names Kubernetes keeps for its own roles: ``cluster-admin``, ``admin``, ``edit``, ``view`` and
#: the ``system:`` prefix ("Using RBAC Authorization", "Default roles and role bindings": "the
#: system: prefix ... is reserved for Kubernetes system use"). A ClusterRole of such a name that is
#: not in :data:`BUILT_IN_ROLES` holds nothing HL106 reports.
RESERVED_ROLE_NAMES = ("cluster-admin", "admin", "edit", "view")
RESERVED_ROLE_PREFIX = "system:"

#: The ClusterRoles of Argo CD's stock cluster-wide install (argo-cd v3.5.1
#: ``manifests/cluster-rbac/application-controller/argocd-application-controller-clusterrole.yaml``,
#: ``manifests/cluster-rbac/server/argocd-server-clusterrole.yaml``,
#: ``manifests/cluster-rbac/applicationset-controller/argocd-applicationset-controller-clusterrole.yaml``;
#: ``manifests/install.yaml`` holds them), with their labels and the rules that hold what HL106
#: reports, as ``(labels, rules)``: every cluster Argo CD manages in-cluster has them, so a binding
#: to one, or an ``aggregationRule`` selecting one (by ``app.kubernetes.io/part-of: argocd`` or its
#: ``component``), hands the hook the controller's ``*`` on ``*``. ``argocd-notifications-controller``
#: and ``argocd-dex-server`` have Roles in Argo CD's namespace only.
_ARGOCD_LABELS = {"app.kubernetes.io/part-of": "argocd"}
ARGOCD_CLUSTER_ROLES: dict[str, tuple[dict[str, str], tuple[dict, ...]]] = {
    "argocd-application-controller": (
        {**_ARGOCD_LABELS, "app.kubernetes.io/name": "argocd-application-controller",
         "app.kubernetes.io/component": "application-controller"},
        ({"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},)),
    "argocd-server": (
        {**_ARGOCD_LABELS, "app.kubernetes.io/name": "argocd-server", "app.kubernetes.io/component": "server"},
        ({"apiGroups": ["*"], "resources": ["*"], "verbs": ["delete", "get", "patch"]},
         {"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["create"]})),
    "argocd-applicationset-controller": (
        {**_ARGOCD_LABELS, "app.kubernetes.io/name": "argocd-applicationset-controller",
         "app.kubernetes.io/component": "applicationset-controller"},
        ({"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "list", "watch"]},)),
}  # fmt: skip


def selects(selector: object, labels: Mapping[str, object]) -> bool:
    """Whether a ``metav1.LabelSelector`` (a mapping of ``matchLabels`` and ``matchExpressions``)
    selects an object with ``labels``, as ``metav1.LabelSelectorAsSelector`` reads it
    (``k8s.io/apimachinery pkg/apis/meta/v1/helpers.go``): every ``matchLabels`` pair equal, every
    expression true (``In``, ``NotIn``: absent or another value, ``Exists``, ``DoesNotExist``); an
    empty selector selects everything. A selector that is not a mapping, or that the API server
    rejects (an unknown operator, values where none belong or none where some must), selects
    nothing."""
    if not isinstance(selector, Mapping):
        return False
    match, expressions = selector.get("matchLabels") or {}, selector.get("matchExpressions") or []
    if not isinstance(match, Mapping) or not isinstance(expressions, list):
        return False
    if any(labels.get(key) != value for key, value in match.items()):
        return False
    for e in expressions:
        if not isinstance(e, Mapping) or not isinstance(e.get("key"), str):
            return False
        op, values, value = e.get("operator"), e.get("values") or [], labels.get(e["key"])
        if not isinstance(values, list) or (op in ("In", "NotIn")) != bool(values):
            return False
        if op == "In" and value not in values or op == "NotIn" and value in values \
                or op == "Exists" and value is None or op == "DoesNotExist" and value is not None:
            return False
        if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            return False
    return True


def _provable(selector: object) -> bool:
    """Whether a valid selector can only select roles that carry labels it names exactly: every
    requirement a ``matchLabels`` pair or an ``In`` of one value, and at least one of them. Any
    other (``NotIn``, ``Exists``, ``DoesNotExist``, an ``In`` of several values, an empty selector)
    also selects roles by labels no known role need carry."""
    if not isinstance(selector, Mapping):
        return False
    match, expressions = selector.get("matchLabels") or {}, selector.get("matchExpressions") or []
    if not isinstance(match, Mapping) or not isinstance(expressions, list):
        return False
    single = all(isinstance(e, Mapping) and e.get("operator") == "In" and isinstance(e.get("values"), list)
                 and len(e["values"]) == 1 for e in expressions)  # fmt: skip
    return single and bool(match or expressions)


def _valid_selector(selector: object) -> bool:
    """Whether the API server accepts ``selector`` (:func:`selects` selects something with it)."""
    if not isinstance(selector, Mapping):
        return False
    labels: dict[str, object] = {}
    match, expressions = selector.get("matchLabels") or {}, selector.get("matchExpressions") or []
    if not isinstance(match, Mapping) or not isinstance(expressions, list):
        return False
    labels.update(match)
    for e in expressions:  # build labels that satisfy each positive requirement, then ask selects()
        if not isinstance(e, Mapping) or not isinstance(e.get("key"), str):
            return False
        if e.get("operator") == "In" and isinstance(e.get("values"), list) and e["values"]:
            labels.setdefault(e["key"], e["values"][0])
        elif e.get("operator") == "Exists":
            labels.setdefault(e["key"], "")
    return selects(selector, labels) or any(
        isinstance(e, Mapping) and e.get("operator") in ("NotIn", "DoesNotExist") for e in expressions)


def _aggregated(role: Manifest, ctx: Context, seen: set[str]) -> tuple[list[Mapping], list[str], list[str]]:
    """The rules the ClusterRole aggregation controller gives ``role`` (a ClusterRole with an
    ``aggregationRule``), as far as hooklint can know them: those of the ClusterRoles of the
    application its ``clusterRoleSelectors`` select (their own aggregated rules included), of the
    built-in ones of :data:`BUILT_IN_ROLES` and of Argo CD's stock ones of
    :data:`ARGOCD_CLUSTER_ROLES` (a role of the application of the same name stands for either),
    and those roles, as a message names them (``the built-in ClusterRole 'edit'``), in selection
    order; third, each selector that may select roles hooklint cannot see, as written
    (``{matchLabels: {acme.io/x: 'true'}}``): a valid selector that selects no known role
    (built-in ones that grant nothing reported, :data:`HARMLESS_BUILT_IN_LABELS`, included), or
    that is not :func:`_provable` (any ClusterRole of the cluster may carry any label). The
    controller sets the role's rules to every rule of every ClusterRole a selector selects, itself
    left out (``k8s.io/kubernetes pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.go``
    ``syncClusterRole``); ``seen``: the roles already followed (a selection cycle)."""
    rule = get_map(role.body, "aggregationRule")
    selectors = rule.get("clusterRoleSelectors") if rule is not None else None
    rules: list[Mapping] = []
    gathered: list[str] = []
    unseen: list[str] = []
    if not isinstance(selectors, Seq):
        return rules, gathered, unseen
    own = {r.name: r for r in ctx.by_kind.get("ClusterRole", []) if r.name and r.group == RBAC_GROUP}
    known = [*((name, dict([_BOOTSTRAPPING, *labels.items()]), held, f"the built-in ClusterRole '{name}'")
               for name, (labels, held) in BUILT_IN_ROLES.items()),
             *((name, dict([_BOOTSTRAPPING, *labels.items()]), (), "")
               for name, labels in HARMLESS_BUILT_IN_LABELS.items()),
             *((name, labels, held, f"Argo CD's ClusterRole '{name}'")
               for name, (labels, held) in ARGOCD_CLUSTER_ROLES.items())]  # fmt: skip
    for selector in selectors:
        matched = False
        for name, other in own.items():
            written = get_map(other.metadata, "labels")  # None without metadata or labels
            if name == role.name or not selects(selector, written or {}):
                continue  # the controller leaves the role itself out
            matched = True
            if name in seen:
                continue
            seen.add(name)
            rules.extend(r for r in (other.body.get("rules") or []) if isinstance(r, Map))
            more, names, hidden = _aggregated(other, ctx, seen)
            rules.extend(more)
            gathered.extend([f"ClusterRole '{name}'", *names])
            unseen.extend(hidden)
        for name, labels, held, shown in known:
            if name in own or not selects(selector, labels):
                continue
            matched = True
            if name in seen:
                continue
            seen.add(name)
            rules.extend(held)
            if shown:
                gathered.append(shown)
        if _valid_selector(selector) and not (matched and _provable(selector)):
            unseen.append(_flow(selector))
    return rules, gathered, unseen


def _flow(value: object) -> str:
    """``value`` (a selector as parsed) in YAML flow style, as a message quotes it."""
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return f"'{value}'" if isinstance(value, str) else str(value)


def _binding_grants(binding: Manifest, ctx: Context, judge: "_Judge | None" = None) -> str | None:
    """Why a (Cluster)RoleBinding is over-privileged, or None: what its ``roleRef`` grants in the
    binding's scope (:meth:`_Judge.role`: cluster-admin, the built-in ``admin`` or ``edit``, another
    built-in of :data:`BUILT_IN_ROLES`, or a role of the application whose rules grant what
    :func:`_rule_grants` reports, every such grant named, the most dangerous first). ``judge``: the
    run's :class:`_Judge` (one judgement of each role per run), else a new one."""
    ref = binding.body.get("roleRef")
    if not isinstance(ref, Map) or not isinstance(ref.get("name"), str):
        return None
    judged = (judge or _Judge(ctx)).role(ref.get("kind"), ref["name"], binding.namespace,
                                         binding.kind == "ClusterRoleBinding")  # fmt: skip
    return None if judged is None else judged[1]


def _grants_phrase(grants: list[tuple[int, str]], privileged: str | None = None) -> list[tuple[int, str]]:
    """The (rank, phrase) grants of every rule of one role as a message says them: the pod-running
    rights of every rule in one phrase (resources grouped by the verbs held; ``privileged``: the
    phrase of the namespace a RoleBinding grants them in, :meth:`_Judge.privileged`), the signers of every
    rule in one, the wildcard verbs of every rule in one, and "every resource" left out when
    "every resource with every verb" says it; ranked, rule order within a rank."""
    held: dict[str, set[str]] = {}  # resource: the verbs held on it, resources in rule order
    for phrase in (p for rank, p in grants if rank == 3 and not p.startswith("running commands")):
        verb, _, reached = phrase.partition(" on ")
        for resource in reached.split(", "):
            held.setdefault(resource, set()).add(verb)
    if held:  # one phrase for the pod-running rights of every rule, resources grouped by verbs
        groups: dict[str, list[str]] = {}
        for resource, verbs_held in held.items():
            said = [v for v in ("create", "update", "patch", "get") if v in verbs_held]
            groups.setdefault(", ".join(said[:-1]) + " and " + said[-1] if len(said) > 1 else said[0], []).append(resource)
        pods = "; ".join(f"{v} on {', '.join(r)}" for v, r in groups.items())
        if privileged is None:
            running = (f"running pods cluster-wide ({pods}: it can run code as any ServiceAccount of any namespace, "
                       "with that namespace's Secrets)")  # fmt: skip
        else:  # the namespace's phrase: namespace 'x' (what it holds)
            where, why = privileged.split(" (", 1)
            running = f"running pods in {where} ({pods}: it can run code as any ServiceAccount there, with its Secrets; {why}"
        grants = [g for g in grants if g[0] != 3] + [(3, running)]
    signers = list(dict.fromkeys(n for rank, p in grants if rank == 6 for n in p.split(", ")))
    if signers:  # one phrase for the signers of every rule
        shown = "every signer" if "every signer" in signers else f"signers {', '.join(signers)}"
        grants = [g for g in grants if g[0] != 6] + [(6, f"approve on {shown} (it can approve certificates that "
                                                        "authenticate to the API server as another user or node)")]
    every_verb = [phrase.removeprefix("every verb on ") for rank, phrase in grants if rank == 2]
    if every_verb:  # one phrase for the wildcard verbs of every rule (one rule's: the same phrase)
        grants = [g for g in grants if g[0] != 2] + [(2, f"every verb on {', '.join(every_verb)}")]
    if (0, "every resource with every verb") in grants:  # says all the other rules' wildcard says
        grants = [g for g in grants if g != (0, "every resource")]
    return sorted(grants, key=lambda g: g[0])  # stable: rule order within a rank


#: How many roles, ServiceAccounts and identities one HL106 run judges through ``resourceNames``
#: (past the roles its bindings name) and how deep, before it stops following names and reports
#: the name as not followed: roles that name one another could otherwise make the judgement
#: exponential, or recurse past Python's limit.
NAMED_BUDGET = 5000
NAMED_DEPTH = 40
#: What a message says of Argo CD's namespace (:meth:`_Judge.privileged`).
ARGOCD_NAMESPACE = ("Argo CD's, whose Secrets hold every managed cluster's and repository's credentials and "
                    "whose argocd-application-controller holds every verb on every resource")
#: The namespaces whose ServiceAccounts and Secrets hold the cluster, so that running pods, issuing
#: tokens or reading Secrets there through a RoleBinding is reported (:meth:`_Judge.privileged`),
#: with what a message says of each: kube-system, and Argo CD's default namespaces (the stock
#: install's ``argocd``, OpenShift GitOps' ``openshift-gitops``).
PRIVILEGED_NAMESPACES = {
    "kube-system": "the controllers' ServiceAccounts, clusterrole-aggregation-controller's escalate on every "
    "ClusterRole among them, and their tokens",
    "argocd": ARGOCD_NAMESPACE,
    "openshift-gitops": ARGOCD_NAMESPACE,
}
#: The names of Argo CD's components (argo-cd v3.5.1 ``manifests/install.yaml``: each a
#: ServiceAccount and a Deployment or StatefulSet of that name), which tell Argo CD's namespace.
ARGOCD_COMPONENTS = ("argocd-application-controller", "argocd-server", "argocd-repo-server",
                     "argocd-applicationset-controller", "argocd-notifications-controller", "argocd-dex-server",
                     "argocd-redis", "argocd-commit-server")  # fmt: skip
#: The group whose members pass every authorization check (Kubernetes "RBAC good practices":
#: members of ``system:masters`` bypass RBAC and webhook authorization alike).
MASTERS_GROUP = "system:masters"
_T = TypeVar("_T")


class _Judge:
    """What the roles, ServiceAccounts, users and groups an HL106 run meets reach, each judged once
    (memoized; a judgement that met one still under way, a cycle of roles naming one another, is
    not kept, and is redone when asked again, within :data:`NAMED_BUDGET`).

    A rule limited by ``resourceNames`` grants its verbs on the objects of those names only
    (Kubernetes "Using RBAC Authorization", "Referring to resources"), so it is judged by what those
    objects reach (:meth:`named`): ``impersonate`` on named users, groups or ServiceAccounts
    acts as them ("User impersonation"; group ``system:masters`` bypasses every authorization
    check); ``bind`` on a named Role or ClusterRole lets the subject bind itself to that role
    ("Restrictions on role binding creation or update"), ``escalate`` write into it rules it
    does not hold ("Restrictions on role creation or update"); ``create`` on ``serviceaccounts/token``
    issues tokens of the named ServiceAccounts ("RBAC good practices", "Token request"); reading a
    named Secret that is a ServiceAccount's token Secret reads its token."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.done: dict[tuple, object] = {}  # key: what _memo's compute gave
        self.stack: list[list] = []  # [key, left unfinished, the role judged or None], outermost first
        self.busy: dict[tuple, int] = {}  # key: its index in stack
        self.index: dict[tuple[str, str], list[tuple[Manifest, Grantee]]] | None = None  # :meth:`_subjects`
        self.secrets: dict[str, list[Manifest]] | None = None  # token Secrets by name: :meth:`token_secret`
        self.budget = NAMED_BUDGET
        self.argocd: set[str] | None = None  # Argo CD's namespaces: :meth:`privileged`

    def _memo(self, key: tuple, compute: Callable[[], _T | None], fallback: _T) -> _T | None:
        """``compute()`` once per ``key``; None for a key under way further out (its frames in
        between are left unkept); ``fallback`` past :data:`NAMED_BUDGET` or :data:`NAMED_DEPTH`."""
        if key in self.done:
            return self.done[key]  # type: ignore[return-value]
        if key in self.busy:
            for deeper in self.stack[self.busy[key] + 1:]:
                deeper[1] = True
            return None
        if self.stack:
            if self.budget <= 0 or len(self.stack) >= NAMED_DEPTH:
                return fallback
            self.budget -= 1
        frame = [key, False, key[1:4] if key[0] == "role" else None]
        self.busy[key] = len(self.stack)
        self.stack.append(frame)
        try:
            result = compute()
        finally:
            self.stack.pop()
            del self.busy[key]
        if not frame[1]:
            self.done[key] = result
        return result

    def role(self, kind: object, name: str, namespace: str | None, cluster_wide: bool) -> tuple[str, str] | None:
        """``(short, reason)`` for a role bound in ``namespace`` (``cluster_wide``: by a
        ClusterRoleBinding) when it holds what HL106 reports, else None: ``short`` names it for
        another grant's message (``cluster-admin``, ``ClusterRole 'x', which grants reading secrets
        cluster-wide``), ``reason`` is what a binding's message says. cluster-admin; the built-in
        ``admin`` or ``edit``; another built-in of :data:`BUILT_IN_ROLES` (when the application
        does not define a ClusterRole of that name itself); a Role or ClusterRole of the
        application whose rules, or the rules its ``aggregationRule`` gathers (:func:`_aggregated`),
        grant what :func:`_rule_grants` reports."""
        if not isinstance(kind, str):
            return None
        key = ("role", kind, name, None if cluster_wide else namespace, cluster_wide)
        unfollowed = f"{kind} '{name}', which hooklint did not follow (too many roles named through resourceNames)"
        return self._memo(key, lambda: self._role(kind, name, namespace, cluster_wide), (unfollowed, unfollowed))

    def _role(self, role_kind: str, role_name: str, namespace: str | None, cluster_wide: bool) -> tuple[str, str] | None:
        """:meth:`role`, computed."""
        if role_name == "cluster-admin":
            return "cluster-admin", "binds it to cluster-admin"
        # a ClusterRole is found whatever namespace is asked (Context.find: cluster-scoped kinds)
        role = self.ctx.find(role_kind, namespace, role_name)
        gathered: list[str] = []
        if role is None:
            if role_kind == "ClusterRole" and role_name in BUILT_IN_WRITER_ROLES:
                return (f"the built-in ClusterRole '{role_name}'",
                        f"binds it to the built-in ClusterRole '{role_name}', {BUILT_IN_WRITER_ROLES[role_name]}")
            if role_kind == "ClusterRole" and role_name in ARGOCD_CLUSTER_ROLES:
                rules: list[Mapping] = list(ARGOCD_CLUSTER_ROLES[role_name][1])
                named = f"Argo CD's ClusterRole '{role_name}'"
                through = named + " (not in this application: the rules Argo CD's stock install gives it)"
            elif role_kind != "ClusterRole" or role_name not in BUILT_IN_ROLES:
                return None
            else:
                rules = list(BUILT_IN_ROLES[role_name][1])
                named = through = f"the built-in ClusterRole '{role_name}'"
        else:
            written = role.body.get("rules")
            rules = [r for r in written if isinstance(r, Map)] if isinstance(written, list) else []
            if role_kind == "ClusterRole":
                more, gathered, _ = _aggregated(role, self.ctx, {role_name})
                rules.extend(more)
            named = through = f"{role_kind} '{role_name}'"
        grants: list[tuple[int, str]] = []
        privileged = None if cluster_wide else self.privileged(namespace)
        for rule in rules:
            grants.extend(g for g in _rule_grants(rule, cluster_wide, self, privileged) if g not in grants)
        if not grants:
            return None
        grants = _grants_phrase(grants, privileged)
        if gathered and role is not None:
            shown = ", ".join(gathered[:3]) + (f" and {len(gathered) - 3} more" if len(gathered) > 3 else "")
            through += f" (its aggregationRule gathers the rules of {shown})"
        return (f"{named}, which grants {grants[0][1].split(' (')[0]}",
                f"grants {', and '.join(phrase for _, phrase in grants)} through {through}")

    def privileged(self, namespace: str | None) -> str | None:
        """How a message names ``namespace`` when its ServiceAccounts and Secrets hold the cluster,
        so that running pods, issuing tokens or reading Secrets there is reported through a
        RoleBinding too (:data:`PRIVILEGED_NAMESPACES`), else None: ``kube-system`` (the
        controllers' ServiceAccounts, bound to ``system:controller:`` roles, and their tokens);
        Argo CD's namespace: ``argocd`` (the stock install's), ``openshift-gitops`` (OpenShift
        GitOps'), or the namespace of a ConfigMap ``argocd-cm``, or of a ServiceAccount, Deployment
        or StatefulSet named as one of Argo CD's components, of this lint run (its cluster Secrets,
        labelled ``argocd.argoproj.io/secret-type: cluster``, hold every managed cluster's
        credentials, argo-cd v3.5.1 ``docs/operator-manual/declarative-setup.md``, and a pod there
        may run as ``argocd-application-controller``, every verb on every resource)."""
        if namespace is None:
            return None
        if self.argocd is None:
            self.argocd = {ns for ns, why in PRIVILEGED_NAMESPACES.items() if why.startswith("Argo CD's")}
            for kind, names in (("ConfigMap", ("argocd-cm",)), ("ServiceAccount", ARGOCD_COMPONENTS),
                                ("Deployment", ARGOCD_COMPONENTS), ("StatefulSet", ARGOCD_COMPONENTS)):
                self.argocd.update(m.namespace for m in self.ctx.by_kind.get(kind, [])
                                   if m.name in names and m.namespace)  # fmt: skip
        if namespace in PRIVILEGED_NAMESPACES and not PRIVILEGED_NAMESPACES[namespace].startswith("Argo CD's"):
            return f"namespace '{namespace}' ({PRIVILEGED_NAMESPACES[namespace]})"
        if namespace in self.argocd:
            return f"namespace '{namespace}' ({ARGOCD_NAMESPACE})"
        return None

    def unseen(self, kind: object, name: str, namespace: str | None) -> str | None:
        """Why a role bound in ``namespace`` that :meth:`role` does not report cannot be judged, as
        a binding's message says it, else None: a Role, or a ClusterRole that is neither
        built-in (a name Kubernetes keeps: :data:`RESERVED_ROLE_NAMES`, the ``system:`` prefix) nor
        Argo CD's (:data:`ARGOCD_CLUSTER_ROLES`), that the application does not define (it holds
        whatever the cluster gives it); or a ClusterRole of the application whose
        ``aggregationRule`` may gather ClusterRoles hooklint cannot see (:func:`_aggregated`)."""
        if kind not in ("Role", "ClusterRole"):
            return None
        role = self.ctx.find("ClusterRole", None, name) if kind == "ClusterRole" else _find_loose(self.ctx, "Role", namespace, name)
        if role is None:
            if kind == "ClusterRole" and (name in RESERVED_ROLE_NAMES or name.startswith(RESERVED_ROLE_PREFIX)
                                          or name in ARGOCD_CLUSTER_ROLES):  # fmt: skip
                return None
            where = "built in or Argo CD's" if kind == "ClusterRole" else "in the binding's namespace here"
            return (f"binds it to {kind} '{name}', which is not in this application nor {where}, so hooklint "
                    "cannot see what it grants")  # fmt: skip
        if kind != "ClusterRole":
            return None
        hidden = _aggregated(role, self.ctx, {name})[2]
        if not hidden:
            return None
        return (f"binds it to ClusterRole '{name}', whose aggregationRule selector {'; '.join(hidden)} may gather "
                "ClusterRoles hooklint cannot see (any ClusterRole of the cluster may carry those labels), so "
                "hooklint cannot tell what it grants")  # fmt: skip

    def _binding(self, binding: Manifest) -> tuple[str, str] | None:
        """:meth:`role` for the ``roleRef`` of ``binding``."""
        ref = binding.body.get("roleRef")
        if not isinstance(ref, Map) or not isinstance(ref.get("name"), str):
            return None
        return self.role(ref.get("kind"), ref["name"], binding.namespace, binding.kind == "ClusterRoleBinding")

    def service_account(self, name: str, namespace: str | None) -> str | None:
        """What ServiceAccount ``name`` of ``namespace`` (None: of any namespace) holds, as a
        message names it, when HL106 reports it, else None: one of Argo CD's own
        (:data:`ARGOCD_SERVICE_ACCOUNTS`, unless the application creates it in ``namespace``); one
        of kube-system's controllers, bound to the built-in ``system:controller:<name>``
        (``bootstrappolicy/controller_policy.go``, each controller's ServiceAccount of kube-system
        bound to its role); or one a binding of the application binds to such a role."""
        key = ("sa", name, namespace)
        unfollowed = f"ServiceAccount '{name}', which hooklint did not follow (too many roles named through resourceNames)"
        return self._memo(key, lambda: self._service_account(name, namespace), unfollowed)

    def _service_account(self, name: str, namespace: str | None) -> str | None:
        """:meth:`service_account`, computed."""
        if name in ARGOCD_SERVICE_ACCOUNTS and (namespace is None or not self.ctx.find("ServiceAccount", namespace, name)):
            return (f"Argo CD's own ServiceAccount '{name}', which the stock install grants "
                    f"{ARGOCD_SERVICE_ACCOUNTS[name].split(' (')[0]}")  # fmt: skip
        controller = "system:controller:" + name
        if namespace in (None, "kube-system") and controller in BUILT_IN_ROLES:
            judged = self.role("ClusterRole", controller, None, True)
            if judged is not None:
                return f"kube-system's ServiceAccount '{name}', bound to {judged[0]}"
        for binding, grantee in self._subjects().get(("ServiceAccount", name), []):
            judged = self._binding(binding) if grantee.covers(namespace, name) else None
            if judged is not None:
                return f"ServiceAccount '{name}', which {binding.label} binds to {judged[0]}"
        return None

    def _subjects(self) -> dict[tuple[str, str], list[tuple[Manifest, Grantee]]]:
        """The bindings of the application (the copies Argo CD keeps) by the subjects they name,
        built once: ``("ServiceAccount", name)`` for each named ServiceAccount a subject grants
        (:func:`hooklint.model.binding_grantees`), ``("User" or "Group", name)`` for each user or
        group subject, in binding order."""
        if self.index is None:
            self.index = {}
            for binding in (b for b in self.ctx.kept if b.kind in ("RoleBinding", "ClusterRoleBinding")):
                for grantee in binding_grantees(binding):
                    if grantee.name is not None:
                        self.index.setdefault(("ServiceAccount", grantee.name), []).append((binding, grantee))
                subjects = binding.body.get("subjects") if binding.group == RBAC_GROUP else None
                for subject in subjects if isinstance(subjects, Seq) else []:
                    kind, name = (subject.get("kind"), subject.get("name")) if isinstance(subject, Map) else (None, None)
                    if kind in ("User", "Group") and isinstance(name, str) and subject.get("apiGroup") in (None, "", RBAC_GROUP):
                        self.index.setdefault((kind, name), []).append((binding, Grantee(None, None)))
        return self.index

    def identity(self, kind: str, name: str, namespace: str | None) -> str:
        """Why impersonating ``kind`` (User, Group or ServiceAccount) ``name`` is escalation, as a
        message says it: group ``system:masters`` bypasses every authorization check; a
        ServiceAccount holds what :meth:`service_account` finds; a user or group what a binding of
        the application grants its subject of that name; any other identity whatever it holds."""
        if kind == "Group" and name == MASTERS_GROUP:
            return f"it can act as group '{name}', which bypasses every authorization check"
        if kind == "ServiceAccount":
            held = self.service_account(name, namespace)
            return f"it can act as {held}" if held else f"it can act as ServiceAccount '{name}', with its rights"
        for binding, _ in self._subjects().get((kind, name), []):
            judged = self._binding(binding)
            if judged is not None:
                return f"it can act as {kind.lower()} '{name}', whom {binding.label} binds to {judged[0]}"
        return f"it can act as {kind.lower()} '{name}', with every right that {kind.lower()} holds"

    def token_secret(self, name: str) -> str | None:
        """The ServiceAccount token Secret of the application named ``name``
        (``type: kubernetes.io/service-account-token``) whose ServiceAccount is kube-system's or
        one :meth:`service_account` reports, as a message names it, else None."""
        if self.secrets is None:
            self.secrets = {}
            for secret in self.ctx.by_kind.get("Secret", []):
                if secret.name and secret.body.get("type") == "kubernetes.io/service-account-token":
                    self.secrets.setdefault(secret.name, []).append(secret)
        for secret in self.secrets.get(name, []):
            annotations = get_map(secret.metadata, "annotations")
            account = annotations.get(SA_NAME_ANNOTATION) if annotations is not None else None
            if not isinstance(account, str):
                continue
            held = self.service_account(account, secret.namespace)
            if held is None and secret.namespace == "kube-system":
                held = f"kube-system's ServiceAccount '{account}'"
            if held is not None:
                return f"the token Secret '{name}' of {held}"
        return None

    def named(self, verbs: list[str], resources: list[str], groups: list, names: list,
              cluster_wide: bool) -> list[tuple[int, str]]:
        """What one rule limited by ``resourceNames`` ``names`` grants that HL106 reports, as
        (rank, phrase) as :func:`_rule_grants` ranks them: 1 ``impersonate`` on named users,
        groups or ServiceAccounts (:meth:`identity`; every such name), and ``bind`` or
        ``escalate`` on a named role HL106 reports (:meth:`role`: ``bind`` binds the subject to it,
        ``escalate`` writes rules into it), or ``escalate`` on the role being judged itself (it can
        write any rule into its own role); cluster-wide only: 3 ``get`` or ``create`` on named
        ``nodes/proxy`` (the kubelet API of those nodes, which runs commands in every pod there;
        "RBAC good practices", "Access to proxy subresource of Nodes"), 4 ``create`` on
        ``serviceaccounts/token`` of a ServiceAccount :meth:`service_account` reports, 5 reading
        a token Secret :meth:`token_secret` reports. ``*`` in ``verbs`` or ``resources`` holds each.
        A ClusterRoleBinding grants the names in every namespace, a RoleBinding in its own: a
        Role's names are looked up there, and ``escalate`` on a ClusterRole is not granted."""
        own = self.stack[-1][2] if self.stack else None  # (kind, name, namespace) of the role judged
        namespace = own[2] if own else None
        names = [str(n) for n in names]
        listed = ", ".join(f"'{n}'" for n in names)

        def holds(verb: str) -> bool:
            return verb_matches(verbs, verb)

        def on(resource: str) -> bool:
            return resource_match(resources, resource) is not None

        core = _serves(groups, ("",))
        out: list[tuple[int, str]] = []
        if holds("impersonate") and core:
            for resource, kind in (("users", "User"), ("groups", "Group"), ("serviceaccounts", "ServiceAccount")):
                if on(resource):
                    why = "; ".join(self.identity(kind, n, None if cluster_wide else namespace) for n in names)
                    out.append((1, f"impersonate on {resource} {listed} ({why})"))
        if _serves(groups, (RBAC_GROUP,)):
            for resource, kind in (("clusterroles", "ClusterRole"), ("roles", "Role")):
                for n in names if on(resource) else []:
                    target = self._named_role(kind, n, namespace, cluster_wide)
                    held: list[str] = []
                    reasons: list[str] = []
                    if holds("escalate") and (kind == "Role" or cluster_wide):
                        if own is not None and own[:2] == (kind, n):
                            held.append("escalate")
                            reasons.append(f"it can write any rule into its own {kind} '{n}'")
                        elif target:
                            held.append("escalate")
                            reasons.append(f"it can write into {target} rules it does not hold")
                    if holds("bind") and target:
                        held.append("bind")
                        reasons.append(f"it can bind itself to {target}")
                    if held:
                        out.append((1, f"{', '.join(held)} on {resource} '{n}' ({'; '.join(reasons)})"))
        if not cluster_wide or not core:
            return out
        kubelet = [v for v in ("create", "get") if holds(v)] if on("nodes/proxy") else []
        if kubelet:
            out.append((3, f"running commands in every pod of nodes {listed} ({' and '.join(kubelet)} on nodes/proxy: "
                           "the kubelet API of those nodes)"))  # fmt: skip
        if holds("create") and on("serviceaccounts/token"):
            found = [desc for n in names if (desc := self.service_account(n, None))]
            if found:
                out.append((4, f"issuing tokens for named ServiceAccounts (create on serviceaccounts/token {listed}: a "
                               f"token for {'; for '.join(found)})"))  # fmt: skip
        read = [v for v in ("get", "list", "watch") if holds(v)]
        if read and on("secrets"):
            found = [desc for n in names if (desc := self.token_secret(n))]
            if found:
                out.append((5, f"reading named token Secrets cluster-wide ({', '.join(read)} on secrets {listed}: "
                               f"{'; '.join(found)})"))  # fmt: skip
        return out

    def _named_role(self, kind: str, name: str, namespace: str | None, cluster_wide: bool) -> str | None:
        """:meth:`role`'s short name for the ClusterRole ``name``, or the first Role ``name`` of the
        application HL106 reports (of ``namespace`` unless ``cluster_wide``), or None."""
        if kind == "ClusterRole":
            judged = self.role(kind, name, namespace, cluster_wide)
            return judged[0] if judged else None
        for role in self.ctx.by_kind.get("Role", []):
            if role.name == name and role.group == RBAC_GROUP and (cluster_wide or role.namespace == namespace):
                judged = self.role(kind, name, role.namespace, False)
                if judged is not None:
                    return judged[0]
        return None


#: The ServiceAccounts of Argo CD's own components that its stock install binds to a role
#: (argo-cd v3.5.1 ``manifests/install.yaml``; the HA and namespace-install manifests use the same
#: names), with what the role lets a pod running as one do. ``argocd-repo-server``,
#: ``argocd-commit-server`` and the ``argocd-redis-ha`` ones are bound to no role there.
ARGOCD_SERVICE_ACCOUNTS = {
    "argocd-application-controller": "every verb on every resource of the cluster (ClusterRole "
    "argocd-application-controller), and reading the Secrets of Argo CD's namespace",
    "argocd-server": "delete, get and patch on every resource of the cluster (ClusterRole argocd-server), and "
    "reading and writing the Secrets of Argo CD's namespace",
    "argocd-applicationset-controller": "creating and changing Applications (ClusterRole "
    "argocd-applicationset-controller), which the application controller then syncs with its own rights",
    "argocd-notifications-controller": "reading the Secrets of Argo CD's namespace, its repository and cluster "
    "credentials among them",
    "argocd-dex-server": "reading the Secrets of Argo CD's namespace, its repository and cluster credentials among them",
    "argocd-redis": "reading and creating the Secrets of Argo CD's namespace",
}


def _argocd_service_account(m: Manifest, pod: PodSpec, ctx: Context) -> Iterator[Hit]:
    """HL106's finding on a pod of ``m`` that runs as one of Argo CD's own ServiceAccounts
    (:data:`ARGOCD_SERVICE_ACCOUNTS`) which the application does not create (no ServiceAccount of
    that name in the hook's namespace, or without one): the pod then holds what the Argo CD install
    grants that component, whatever binding the application adds, so no binding of the application
    need be read. A token Secret of such a ServiceAccount that the pod mounts (:func:`_identities`)
    is reported the same way."""
    for sa_name, who, span, field in _identities(m, pod, ctx):
        if sa_name not in ARGOCD_SERVICE_ACCOUNTS:
            continue
        if any(sa.name == sa_name and (sa.namespace is None or m.namespace is None or sa.namespace == m.namespace)
               for sa in ctx.by_kind.get("ServiceAccount", [])):  # fmt: skip
            continue
        yield Hit(
            f"{m.label} {who}, one of Argo CD's own, which this application does not "
            f"create: the stock Argo CD install grants it {ARGOCD_SERVICE_ACCOUNTS[sa_name]}; {_runs(m)}, so whoever "
            "controls its image or command holds those rights. Give it its own ServiceAccount with only the verbs and "
            "resources it needs.",
            span,
            field,
            manifest=m,
        )


@check("HL106", scope="application")
def hook_overprivileged_rbac(manifests: list[Manifest], ctx: Context) -> Iterator[Hit]:
    """A hook's ServiceAccount bound (in the same application, by any subject that reaches it:
    :func:`_binding_names`) to cluster-admin or the built-in admin or edit ClusterRole, or to a role with wildcard verbs or resources, escalate, bind or
    impersonate, or, cluster-wide, starting pods or running commands in them (``pods/exec``,
    ``nodes/proxy``), issuing tokens, reading secrets, approving client certificates or rewriting
    admission webhooks (:func:`_rule_grants`; Kubernetes RBAC good practices, "Privilege escalation
    risks"); a rule limited by ``resourceNames`` by what those names reach (:class:`_Judge`: a
    named ``system:masters``, ``cluster-admin``, privileged ServiceAccount...); the message names
    every grant, the most dangerous first. A hook running as one of Argo CD's own ServiceAccounts that the application
    does not create is reported too (:func:`_argocd_service_account`)."""
    for m in manifests:
        fields: set[str] = set()  # a Workflow's pods may share the spec's field
        for hit in (h for pod in _pods_in_scope(m, ctx) for h in _argocd_service_account(m, pod, ctx)):
            if hit.field_path not in fields:
                fields.add(hit.field_path)
                yield hit
    # the copy of each binding Argo CD keeps, the last (a copy it drops grants nothing)
    bindings = [b for b in ctx.kept if b.kind in ("RoleBinding", "ClusterRoleBinding")]
    if not bindings:
        return
    judge = _Judge(ctx)  # each role judged once per run
    for m in manifests:
        seen: set[tuple[str, int]] = set()
        for pod, binding in ((pod, b) for pod in _pods_in_scope(m, ctx) for b in bindings):
            for sa_name, who, span, field in _identities(m, pod, ctx):
                if (field, id(binding)) in seen:
                    continue
                seen.add((field, id(binding)))
                found = _binding_hit(m, binding, sa_name, who, span, field, ctx, judge)
                if found is not None:
                    yield found


def _identities(m: Manifest, pod: PodSpec, ctx: Context) -> list[tuple[str, str, Span, str]]:
    """The ServiceAccounts whose rights code in ``pod`` holds, as (name, how a message says the
    pod holds them, span, field path): the one it runs as (``default`` when none is set), then
    each other one whose token Secret it mounts (:func:`_token_secrets`)."""
    sa_name, key = pod.service_account()
    sa_name = sa_name or "default"
    out = [(sa_name, f"runs as ServiceAccount '{sa_name}'", pod.value_span(key) if key else pod.anchor(),
            pod.field_path("serviceAccountName"))]  # fmt: skip
    for account, field, span, secret in _token_secrets(m, pod, ctx):
        if account != sa_name:
            out.append((account, f"mounts the token Secret '{secret.name}' of ServiceAccount '{account}'", span, field))
    return out


def _binding_hit(m: Manifest, binding: Manifest, sa_name: str, who: str, span: Span, field: str, ctx: Context,
                 judge: _Judge) -> Hit | None:
    """HL106's finding for a pod of ``m`` holding ServiceAccount ``sa_name`` (``who``: how, as
    :func:`_identities` says it) and ``binding``, or None: an error when the binding grants what
    :func:`_binding_grants` reports, a warning when it binds a role hooklint cannot see
    (:meth:`_Judge.unseen`)."""
    grantee = binding_grantee(binding, m.namespace, sa_name)
    if grantee is None:
        return None
    reason = _binding_grants(binding, ctx, judge)
    severity = None
    if reason is None:
        ref = binding.body.get("roleRef")
        reason = judge.unseen(ref.get("kind"), ref["name"], binding.namespace) \
            if isinstance(ref, Map) and isinstance(ref.get("name"), str) and binding.group == RBAC_GROUP else None
        severity = "warning"
    if reason is None:
        return None
    where = (
        "the cluster"
        if binding.kind == "ClusterRoleBinding"
        else f"namespace '{binding.namespace}'" if binding.namespace else "its namespace"
    )
    reach = f"holds those rights over {where}"
    via = f" (subject {grantee.subject})" if grantee.subject else ""
    fix = "Grant only the verbs and resources it needs."
    if severity:
        reach = f"holds whatever it grants over {where}"
        fix = "Define the role in the application, listing only the verbs and resources it needs."
    return Hit(
        f"{m.label} {who}, and {binding.label}{via} {reason}: "
        f"{_runs(m)}, so whoever controls its image or command {reach}. {fix}",
        span,
        field,
        manifest=m,
        severity=severity,
    )


def _binding_names(binding: Manifest, sa_name: str, namespace: str | None) -> bool:
    """Whether ``binding`` grants ServiceAccount ``sa_name`` of ``namespace``, through any subject
    Kubernetes matches to it (:func:`hooklint.model.binding_grantees`: the ServiceAccount, its
    ``system:serviceaccount:`` User name, the ServiceAccount groups and ``system:authenticated``).
    A pod without metadata.namespace lands in the destination namespace, which may be the
    subject's: it matches a subject of any namespace, rather than miss an over-privileged hook."""
    return binding_grantee(binding, namespace, sa_name) is not None


# --- HL108 -------------------------------------------------------------------------------------

#: RBAC verbs that change the cluster (every verb but get, list and watch; ``*`` included).
WRITE_VERBS = ("*", "create", "update", "patch", "delete", "deletecollection", "escalate", "bind", "impersonate")


def _write_grants(role: Manifest) -> list[str]:
    """``verb on resources`` for every write verb (:data:`WRITE_VERBS`) of ``role``'s rules, in
    rule order."""
    rules = role.body.get("rules")
    out: list[str] = []
    for rule in rules if isinstance(rules, Seq) else []:
        if not isinstance(rule, Map):
            continue
        verbs, resources = rule.get("verbs"), rule.get("resources")
        written = [str(v) for v in verbs if str(v) in WRITE_VERBS] if isinstance(verbs, Seq) else []
        if written:
            shown = ", ".join(str(r) for r in resources) if isinstance(resources, Seq) and resources else "its resources"
            out.append(f"{', '.join(written)} on {shown}")
    return out


def _stays_after_sync(m: Manifest) -> bool:
    """Whether a sync hook stays in the cluster after a successful sync: no HookSucceeded among its
    effective delete policies (BeforeHookCreation, the default, deletes it only when the next sync
    creates it again; HookFailed only when a sync fails). ``GE pkg/sync/sync_context.go``, v3.5.1:
    ``deleteOnPhaseSuccessful``/``deleteBeforeCreation`` in ``sync_task.go``."""
    return "HookSucceeded" not in m.hook.delete_policies


@check("HL108", scope="application")
def hook_rbac_outlives_hook(manifests: list[Manifest], ctx: Context) -> Iterator[Hit]:
    """A sync hook Role or ClusterRole that grants write verbs, bound by a RoleBinding or
    ClusterRoleBinding of the application, where neither the role nor the binding is deleted after
    a successful sync (:func:`_stays_after_sync`; a plain binding always stays): the rights the
    hook needed for one step stay granted between syncs, to whatever the binding names. Argo CD
    deletes a hook only by its delete policies (argo-cd v3.5.1 ``gitops-engine/pkg/sync/
    sync_task.go`` ``deleteOnPhaseSuccessful``, ``deleteBeforeCreation``), and
    BeforeHookCreation deletes it only at the start of the next sync. Reported at the role's
    delete policy (or its hook annotation), naming the bindings."""
    bindings = [b for b in ctx.kept if b.kind in ("RoleBinding", "ClusterRoleBinding")]
    if not bindings:
        return
    for role in ctx.kept:
        if role.kind not in ("Role", "ClusterRole") or not role.hook.is_hook or not role.hook.phases:
            continue
        if not _stays_after_sync(role):
            continue
        grants = _write_grants(role)
        if not grants:
            continue
        staying = []
        for b in bindings:
            ref = get_map(b.body, "roleRef")
            if ref is None or ref.get("kind") != role.kind or ref.get("name") != role.name:
                continue
            if role.kind == "Role" and (b.kind != "RoleBinding" or (b.namespace or "") != (role.namespace or "")):
                continue
            if b.hook.is_hook and (not b.hook.phases or not _stays_after_sync(b)):
                continue
            staying.append(b)
        if not staying:
            continue
        policies = ", ".join(role.hook.delete_policies)
        shown = ", ".join(b.label + (" (a plain resource)" if not b.hook.is_hook else "") for b in staying)
        key = argocd.HOOK_DELETE_POLICY if argocd.HOOK_DELETE_POLICY in role.annotations else (
            argocd.HELM_HOOK_DELETE_POLICY if argocd.HELM_HOOK_DELETE_POLICY in role.annotations else role.hook_annotation)
        fix_key = argocd.HELM_HOOK_DELETE_POLICY if role.hook.from_helm else argocd.HOOK_DELETE_POLICY
        fix_value = "before-hook-creation,hook-succeeded" if role.hook.from_helm else "BeforeHookCreation,HookSucceeded"
        yield Hit(
            f"Hook {role.label} grants {'; '.join(grants)}, and its delete policies ({policies}) do not delete it "
            f"after a successful sync, nor do those of {shown}, which bind{'s' if len(staying) == 1 else ''} it: "
            "the rights the hook needed for one step stay granted between syncs, to every subject of the "
            f"binding, until the next sync deletes and re-creates them. Set {fix_key}: {fix_value} on the role and "
            "its bindings.",
            role.annotation_value_span(key),
            f"metadata.annotations.{key}",
            role,
        )


# --- HL109 -------------------------------------------------------------------------------------

#: Image repositories known to be gone, as globs over the normalized repository (``host/path``),
#: with why. Bitnami's public catalog on Docker Hub: from August 28th, 2025 every versioned tag moved
#: from ``docker.io/bitnami`` to ``docker.io/bitnamilegacy`` (no longer updated), leaving only a few
#: hardened images tagged ``latest`` (bitnami/containers #83267): a versioned pull fails.
RETIRED_REPOSITORIES = {
    "docker.io/bitnami/*": "Bitnami moved every versioned image of docker.io/bitnami to docker.io/bitnamilegacy "
    "in 2025 (bitnami/containers #83267)",
}
#: What :data:`RETIRED_REPOSITORIES` still serves: Bitnami's ``latest`` tags (HL102 judges those)
#: and minideb, which the announcement leaves in place.
_STILL_SERVED = ("docker.io/bitnami/minideb",)


def _image_names(ref) -> list[str]:
    """The names a glob of ``denied-images`` or :data:`RETIRED_REPOSITORIES` is matched against:
    the normalized repository (``docker.io/bitnami/kubectl``), then with its tag and digest."""
    name = f"{ref.host}/{ref.path}"
    full = name + (f":{ref.tag}" if ref.tag else "") + (f"@{ref.digest}" if ref.digest else "")
    return [name, full] if full != name else [name]


@check("HL109", kinds=POD_KINDS)
def hook_image_retired_repository(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """A hook image whose repository is known to be gone (:data:`RETIRED_REPOSITORIES`) or matches
    a ``denied-images`` glob (``fnmatch``, case-sensitive, over the normalized repository and the
    normalized reference with tag and digest, :func:`_image_names`). A hook whose image cannot be
    pulled never completes: the Job's pod stays in ``ImagePullBackOff``, its health stays
    Progressing (argo-cd v3.5.1 ``gitops-engine/pkg/health/health_job.go``: a Job is Progressing
    until it completes or fails, and a pull error fails no pod; ``health_pod.go``: a Pod hook with
    restartPolicy Never or OnFailure stays Progressing while Pending, deliberately, "otherwise it
    breaks the resource hook logic"), so the sync waits for it until ``activeDeadlineSeconds``
    fails it, or for ever."""
    if not _pods_in_scope(m, ctx):
        return
    denied = ctx.config.denied_images
    for container, image in _images(m):
        ref = parse_image(image)
        if ref is None:
            continue
        names = _image_names(ref)
        served = names[0] in _STILL_SERVED or (ref.tag in (None, "latest") and not ref.digest)
        globs = ([] if served else list(RETIRED_REPOSITORIES.items())) + [
            (glob, f"it matches '{glob}' in denied-images") for glob in denied]
        why = next((reason for glob, reason in globs if any(fnmatchcase(n, glob) for n in names)), None)
        if why is None:
            continue
        if m.hook.runs_as_hook:
            deadline = "activeDeadlineSeconds fails it" if "activeDeadlineSeconds" in (get_map(m.body, "spec") or {}) else "someone terminates it"
            effect = (f"the pod stays in ImagePullBackOff and {_phase_words(m)} never completes, so Argo CD waits "
                      f"for it until {deadline}")  # fmt: skip
        else:  # workload-scope: all
            effect = f"the pods of {m.label} never start"
        yield Hit(
            f"Image '{image}' of {_where(m, container)} comes from a repository that is gone: {why}. The pull "
            f"fails, {effect}. Use an image from a maintained repository (a mirror you control, or "
            "the project's own image).",
            container.body.value_span("image"),
            f"{container.path}.image",
        )
