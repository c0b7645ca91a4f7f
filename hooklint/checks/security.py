"""HL101-HL105, HL107, HL109 and HL110: the security of hook workloads (images, ServiceAccount, token,
privileges, literal secrets, retired image repositories, pods of run-to-completion kinds defined out of
sight). Their RBAC reach and lifetime (HL106, HL108) are :mod:`hooklint.checks.rbac`'s; what both read
of a pod is :mod:`hooklint.checks.pods`'s."""

from __future__ import annotations

import json
from fnmatch import fnmatchcase
from operator import attrgetter
from typing import Iterator

from hooklint.checks import Context, Hit, check
from hooklint.checks.pods import mounted_volumes, phase_words, pods_in_scope, runs, token_secrets, token_verb
from hooklint.findings import Span
from hooklint.images import allowed, is_templated, parse_image
from hooklint.gojsonread import go_fold
from hooklint.text import url_credentials
from hooklint.sources.repository.volumes import HostPathVolume, node_path, volume_match_facts
from hooklint.sources.repository.volumes import storage_class as volumes_storage_class
from hooklint.model import BASELINE_CAPABILITIES, KUBEFLOW_REPLICA_SPECS, MAX_POD_SPEC_DEPTH, POD_KINDS, RUN_TO_COMPLETION_KINDS, TEMPLATE_ONLY_KINDS, find_pod_specs, Container, Manifest, PodSpec, binding_grantee, get_map, selects, subject_grantee
from hooklint.yamlio import DocumentTooComplex, Map, Seq, YamlSyntaxError, parse_documents, shown


def _images(m: Manifest) -> Iterator[tuple[Container, str]]:
    """Each container of ``m``'s pod spec with its image, when that is a string a linter can judge."""
    for container in m.containers():
        image = container.body.get("image")
        if isinstance(image, str) and image and not is_templated(image):
            yield container, image


def _where(m: Manifest, container: Container) -> str:
    role = {"initContainers": "init container", "ephemeralContainers": "ephemeral container",
            "sidecars": "sidecar container", "script": "script container",
            "steps": "step", "stepTemplate": "step template"}.get(container.list_name, "container")  # fmt: skip
    template = f" of {container.template}" if container.template else ""
    return f"{role} '{container.name}'{template} of {m.label}"


@check("HL101", kinds=POD_KINDS)
def hook_image_registry_not_allowed(m: Manifest, ctx: Context) -> Iterator[Hit]:
    entries = ctx.config.registry_entries
    if not entries or not pods_in_scope(m, ctx):
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
            f"Image '{image}' of {_where(m, container)} comes from {where}: {runs(m)}, with its "
            "ServiceAccount's permissions, and nobody reviews what that image contains. Pull the "
            "image from an allowed registry, or add it to allowed-registries.",
            container.body.value_span("image"),
            f"{container.path}.image",
        )


@check("HL102", kinds=POD_KINDS)
def hook_image_mutable_tag(m: Manifest, ctx: Context) -> Iterator[Hit]:
    if not pods_in_scope(m, ctx):
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
    ServiceAccount that mounts the token Secret of ``default`` (:func:`token_secrets`) acts as
    ``default`` too, reported at the field naming the Secret. A Workflow's pods are judged one
    template at a time; a field several pods read from the Workflow's spec is reported once."""
    seen: set[str] = set()
    for pod in pods_in_scope(m, ctx):
        name, key = pod.service_account()
        field = pod.field_path(key or "serviceAccountName")
        if field in seen:
            continue
        seen.add(field)
        for account, token_field, span, secret in token_secrets(m, pod, ctx):
            if account == "default" and name not in (None, "default") and token_field not in seen:
                seen.add(token_field)
                yield Hit(
                    f"{m.label} {token_verb(token_field)} the token Secret '{secret.name}' of the 'default' ServiceAccount, so its "
                    f"pods act as 'default': {phase_words(m)} then shares identity and permissions with every other "
                    "unconfigured pod. Mount no token, or one of a dedicated ServiceAccount.",
                    span,
                    token_field,
                )
        mounted = " Its token is mounted too, with no role bound to it in this application (HL104)." if _mounted_token(m, pod, ctx) else ""
        if name is None:
            yield Hit(
                f"{m.label} sets no serviceAccountName, so its pods run as the namespace's 'default' "
                f"ServiceAccount: {phase_words(m)} then shares identity and permissions with every "
                f"other unconfigured pod. Create a dedicated ServiceAccount and set {field}.{mounted}",
                pod.anchor(),
                field,
            )
        elif name == "default":
            yield Hit(
                f"{m.label} runs as the 'default' ServiceAccount: {phase_words(m)} then shares identity "
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
    mounted = mounted_volumes(m, pod)
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
    if _granted_role(ctx, sa_name, m.namespace):
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
    grants the pod's ServiceAccount (any subject reaching it, see :func:`hooklint.model.binding_grantee`) a Role
    or ClusterRole (with one, the hook uses its token, and HL106
    judges the grant); and each ServiceAccount token Secret the pod mounts whose ServiceAccount no
    binding grants a role (:func:`_secret_token_unbound`). The message stays short (under 300 characters); the rule file's what/why,
    shown by ``hooklint explain HL104``, holds the detail. On the 'default' ServiceAccount it names
    HL103, which reports the same hook. A Workflow's pods are judged one template at a time; a
    field several pods read from the Workflow's spec is reported once."""
    seen: set[str] = set()
    for pod in pods_in_scope(m, ctx):
        for hit in [*_automounted(m, pod, ctx), *_secret_token_unbound(m, pod, ctx)]:
            if hit.field_path not in seen:
                seen.add(hit.field_path)
                yield hit


def _secret_token_unbound(m: Manifest, pod: PodSpec, ctx: Context) -> Iterator[Hit]:
    """HL104's findings on the ServiceAccount token Secrets ``pod`` mounts (:func:`token_secrets`)
    whose ServiceAccount no binding of the application grants a role (:func:`_granted_role`): a
    token the pod holds whatever ``automountServiceAccountToken`` says, at the field naming the
    Secret. The pod's own ServiceAccount is left to :func:`_automounted` when it already mounts
    that token."""
    own = pod.service_account()[0] or "default"
    for account, field, span, secret in token_secrets(m, pod, ctx):
        if _granted_role(ctx, account, m.namespace) or (account == own and _mounted_token(m, pod, ctx)):
            continue
        who = "'default' (HL103; " if account == "default" else f"'{account}' ("
        yield Hit(
            f"{m.label} {token_verb(field)} the token of ServiceAccount {who}token Secret '{secret.name}', whatever automount "
            f"says), and no binding in this application grants it a role{_elsewhere(ctx, account, m.namespace)}. Remove that {'reference' if token_verb(field) == 'reads' else 'volume'}, "
            "or bind it to a least-privilege Role.",
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
            f"server rejects, so {phase_words(m)} is never created. Write false, or true if it "
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
        f"{m.label} mounts the token of ServiceAccount {who}{reason}), and no binding in this application grants it a "
        f"role{_elsewhere(ctx, sa_name, m.namespace)}. {turn_off}, or {fix}.",
        span,
        field,
    )


def _granted_role(ctx: Context, sa_name: str, namespace: str | None) -> bool:
    """True when a RoleBinding or ClusterRoleBinding of the application (any copy:
    :meth:`Context.bindings_reaching`) names ServiceAccount ``sa_name`` of ``namespace`` as a subject
    and refers to a Role or ClusterRole (built-in roles such as ``view`` count: they need not be in
    the application)."""
    for b in ctx.bindings_reaching(sa_name, kept=False):
        if binding_grantee(b, namespace, sa_name) is None:
            continue
        ref = b.body.get("roleRef")
        if isinstance(ref, Map) and ref.get("kind") in ("Role", "ClusterRole") and isinstance(ref.get("name"), str):
            return True
    return False


#: How HL104's message names a binding written in another file of the repository for the hook's
#: ServiceAccount (:func:`bound_elsewhere`): the fix, which would turn a token the hook may use
#: off, is then left for a person (:mod:`hooklint.fix`).
BOUND_ELSEWHERE = "a binding of another application names it, in "


def _elsewhere(ctx: Context, sa_name: str, namespace: str | None) -> str:
    """HL104's words on a binding of another application naming the ServiceAccount
    (:func:`bound_elsewhere`): `` (a binding of another application names it, in FILE)``, or ``""``."""
    found = bound_elsewhere(ctx, sa_name, namespace)
    return f" ({BOUND_ELSEWHERE}{found})" if found is not None else ""


def bound_elsewhere(ctx: Context, sa_name: str, namespace: str | None) -> str | None:
    """The file (the first, by path) of a RoleBinding or ClusterRoleBinding written in another file
    of the repository (:attr:`Context.written_subjects`: another Application's RBAC folder) whose
    subject names ServiceAccount ``sa_name`` of the hook's known ``namespace``, or None. It does
    not make HL104 quiet: what Argo CD applies from there (on which cluster, from which revision,
    after which kustomize patches and transformers) hooklint does not know from the file (attacker
    trial 30: a binding synced to another cluster, from a branch that does not exist, deleted by a
    ``$patch: delete``, outside a chart's templates silenced it); it names the file, and keeps the
    fix, which would turn a token the hook may use off, for a person (new-user trial 28). Only a
    subject naming the ServiceAccount counts, as a ServiceAccount or its ``system:serviceaccount:``
    user (a group of them says nothing of this hook), in a known namespace: a RoleBinding there
    without one is in the destination namespace of the Application syncing it (discovery fills it
    in), else in none known."""
    if namespace is None:  # where the hook runs is not known: nothing of another application can be matched to it
        return None
    own = {m.path for m in ctx.manifests} if ctx.written_subjects else set()  # judged above, with their namespace
    found = []
    for s in ctx.written_subjects:
        grantee = subject_grantee(s.kind, s.name, s.namespace, s.api_group, s.binding_kind, s.binding_namespace or None)
        if grantee is None or s.file in own or grantee.namespace is None or grantee.name is None:
            continue
        if grantee.covers(namespace, sa_name):
            found.append(s.file)
    return min(found) if found else None


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
    default StorageClass of the application; when the application defines none, ``defaults`` is
    empty and the cluster's default class is unknown offline, so a volume of any class may match:
    fail closed, attack round 16 F8), its ``selector`` selecting the volume's labels
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
        if defaults and pv.storage_class != "" and pv.storage_class not in defaults:
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


def _host_path_binding(m: Manifest, claim_name: object, ctx: Context, templates: tuple[Map, ...] = ()
                       ) -> tuple[HostPathVolume, str, bool] | None:  # fmt: skip
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
    the hostPath one). ``templates`` are the bodies (``metadata``/``spec``) of claim templates a
    controller makes the claim from (a generic ephemeral volume's ``volumeClaimTemplate``,
    kubernetes ``pkg/controller/volume/ephemeral/controller.go`` ``handleVolume``): they name no
    volume and are matched as such; ``claim_name`` may then be None (a name hooklint cannot know)."""
    named_claim = isinstance(claim_name, str) and bool(claim_name)
    if not named_claim and not templates:
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
    written_claims = [c for c in ctx.volume_claims if named_claim and c.name == claim_name and same(c.namespace)]
    named = {c.volume_name for c in written_claims if c.volume_name}
    unnamed = [c.body for c in written_claims if not c.volume_name and c.body is not None] + list(templates)
    own = ctx.find("PersistentVolumeClaim", namespace, claim_name) if isinstance(claim_name, str) and claim_name else None
    own_spec = get_map(own.body, "spec") if own is not None else None
    own_volume = own_spec.get("volumeName") if own_spec is not None else None
    if isinstance(own_volume, str) and own_volume:
        named, unnamed = {own_volume}, []  # the application's own claim is the one applied with the pod
    elif own is not None:
        unnamed.append(own.body)  # names none: the repository's claim of that name may still name one
    ordered = sorted(volumes, key=attrgetter("name", "file"))
    for pv in ordered:
        reserved = named_claim and pv.claim_name == claim_name and same(pv.claim_namespace)
        if pv.name in named and (not pv.claim_name or reserved):
            return pv, "the claim's spec.volumeName", False
        if reserved and (not named or pv.name in named):
            return pv, "the volume's spec.claimRef", False
    made = _stateful_set_claim_templates(ctx, namespace, claim_name) if named_claim else []
    defaults = _default_classes(ctx)
    for pv in ordered:
        if pv.claim_name:
            continue
        for origin, claim in [("the claim", claim) for claim in unnamed] + made:
            if _may_match(claim, pv, defaults):
                return pv, f"{origin}{', which' if made and origin != 'the claim' else ''} names no spec.volumeName, " \
                           f"and the volume matches its {_class_match(claim, pv, defaults)}selector, access modes, " \
                           "size and volume mode", True  # fmt: skip
    return None


def _class_match(claim: Map, pv: HostPathVolume, defaults: frozenset[str]) -> str:
    """How the storage class of ``claim`` matches ``pv`` (:func:`_may_match`), as the start of a
    list: ``storage class, `` when it does as written; for a claim naming no class, with a volume
    of a class while the application defines no default StorageClass, why it may: the
    DefaultStorageClass admission plugin gives the claim the cluster's default class (kubernetes
    ``plugin/pkg/admission/storage/storageclass/setdefault/admission.go``), which hooklint does
    not know."""
    if volumes_storage_class(claim) is None and pv.storage_class != "" and not defaults:
        return (f"storage class (the claim names none and the application defines no default StorageClass, so it gets "
                f"the cluster's default class, which may be '{pv.storage_class}'), ")
    return "storage class, "


def _stateful_set_claim_templates(ctx: Context, namespace: str | None, claim_name: object) -> list[tuple[str, Map]]:
    """The ``spec.volumeClaimTemplates`` entries of the application's StatefulSets (in
    ``namespace``, or any when either sets none) that make the claim ``claim_name``, each with
    ``StatefulSet 'NAME' (volumeClaimTemplates 'TEMPLATE')``: the StatefulSet controller names its
    pods' claims ``<template>-<statefulset>-<ordinal>`` (kubernetes
    ``pkg/controller/statefulset/stateful_set_utils.go`` ``getPersistentVolumeClaimName``)."""
    out: list[tuple[str, Map]] = []
    if not isinstance(claim_name, str):
        return out
    for sts in ctx.by_kind.get("StatefulSet", []):
        if not sts.name or (namespace is not None and sts.namespace is not None and sts.namespace != namespace):
            continue
        sts_spec = get_map(sts.body, "spec")
        templates = sts_spec.get("volumeClaimTemplates") if sts_spec is not None else None
        for template in templates if isinstance(templates, Seq) else []:
            metadata = get_map(template, "metadata")
            name = metadata.get("name") if metadata is not None else None
            prefix = f"{name}-{sts.name}-"
            if isinstance(template, Map) and isinstance(name, str) and claim_name.startswith(prefix) \
                    and claim_name[len(prefix):].isdigit():  # fmt: skip
                out.append((f"StatefulSet '{sts.name}' makes the claim from its volumeClaimTemplates entry '{name}'", template))
    return out


@check("HL105", kinds=POD_KINDS | {"PipelineRun"})
def hook_privileged_pod(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """Host namespaces, hostPath volumes (and claims bound to a hostPath or local PersistentVolume:
    :func:`_host_path_binding`), privileged containers, privilege escalation and added
    capabilities beyond the baseline profile, read from the table HL206's Pod Security check reads
    (:data:`hooklint.model.BASELINE_CAPABILITIES`, exact names): a baseline capability written
    another way (``CAP_CHOWN``, ``chown``) is reported as such, since admission rejects it. A
    Workflow's pods are judged one template at a time (:meth:`Manifest.pod_specs`); a field several
    pods read from the Workflow's spec (``spec.hostNetwork``, ``spec.volumes``) is reported once."""
    seen: set[tuple[str, str]] = set()
    for pod in pods_in_scope(m, ctx):
        for hit in _privileged(m, pod, ctx):
            if (hit.field_path, hit.message) not in seen:
                seen.add((hit.field_path, hit.message))
                yield hit
    if m.group == "tekton.dev" and m.kind in ("TaskRun", "PipelineRun") and ctx.in_scope(m):
        yield from _workspace_claims(m, ctx)


def _workspace_claims(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """HL105's findings on the ``spec.workspaces`` bindings of a Tekton TaskRun or PipelineRun
    backed by a claim: tektoncd/pipeline ``pkg/workspace/apply.go`` ``CreateVolumes`` makes a pod
    volume of ``persistentVolumeClaim.claimName``, and of the claim
    ``pkg/reconciler/volumeclaim`` makes from a ``volumeClaimTemplate`` (a claim naming no volume:
    :func:`_host_path_binding`), which the Task's steps mount at the workspace's ``mountPath``.
    Every binding is judged (a Task or Pipeline defined elsewhere may mount any of them)."""
    tail = (
        f"{runs(m)} and then controls the node, not just its pod. Remove it, or do this work "
        "outside the cluster's workloads."
    )
    spec = get_map(m.body, "spec")
    workspaces = spec.get("workspaces") if spec is not None else None
    if not isinstance(workspaces, Seq):
        return
    for i, binding in enumerate(workspaces):
        if not isinstance(binding, Map):
            continue
        name = binding.get("name") if isinstance(binding.get("name"), str) else str(i)
        path = f"spec.workspaces[{i}]"
        claim = get_map(binding, "persistentVolumeClaim")
        bound = _host_path_binding(m, claim.get("claimName"), ctx) if claim is not None else None
        if claim is not None and bound is not None:
            yield _claim_hit(m, f"workspace '{name}'", claim["claimName"], bound, tail,
                             binding.key_span("persistentVolumeClaim"), f"{path}.persistentVolumeClaim")  # fmt: skip
        template = get_map(binding, "volumeClaimTemplate")
        bound = _host_path_binding(m, None, ctx, (template,)) if template is not None else None
        if bound is not None:
            yield _template_hit(m, f"workspace '{name}'", "its volumeClaimTemplate makes", bound, tail,
                                binding.key_span("volumeClaimTemplate"), f"{path}.volumeClaimTemplate")  # fmt: skip


def _claim_hit(m: Manifest, through: str, claim_name: str, bound: tuple[HostPathVolume, str, bool], tail: str,
               span: Span, field: str) -> Hit:
    """HL105's finding on a claim ``claim_name`` that a pod of ``m`` mounts ``through`` (``volume
    'x'``, ``workspace 'x'``) and that is, or may be, bound to a hostPath PersistentVolume
    (``bound``: :func:`_host_path_binding`)."""
    pv, how, may = bound
    return Hit(
        f"{m.label} {'may mount' if may else 'mounts'} the node's filesystem through {through}: "
        f"PersistentVolumeClaim '{claim_name}' {'may bind to' if may else 'is bound to'} PersistentVolume "
        f"'{pv.name}' ({how}; {pv.file}), a {pv.source} volume of '{pv.path}' on the node: {tail}",
        span,
        field,
    )


def _template_hit(m: Manifest, through: str, makes: str, bound: tuple[HostPathVolume, str, bool], tail: str,
                  span: Span, field: str) -> Hit:
    """HL105's finding on a claim template (``makes``: what makes the claim, ``its
    ephemeral.volumeClaimTemplate``) whose claim a pod of ``m`` mounts ``through`` and may bind to
    a hostPath PersistentVolume (``bound``: :func:`_host_path_binding`; a claim not made yet only may)."""
    pv, how, _ = bound
    return Hit(
        f"{m.label} may mount the node's filesystem through {through}: the PersistentVolumeClaim "
        f"{makes} may bind to PersistentVolume '{pv.name}' ({how}; {pv.file}), "
        f"a {pv.source} volume of '{pv.path}' on the node: {tail}",
        span,
        field,
    )


def _workflow_claim_templates(m: Manifest, pod: PodSpec, ctx: Context, tail: str) -> Iterator[Hit]:
    """HL105's findings on the ``spec.volumeClaimTemplates`` of a Workflow or StatefulSet whose pod
    ``pod`` mounts them: the workflow controller makes one PersistentVolumeClaim of each before its
    pods (argo-workflows ``workflow/controller/operator.go`` ``createPVCs``, named
    ``<workflow>-<template name>``), and a pod mounts it by the template's ``metadata.name``
    (``workflowpod.go`` ``createVolumes``); the StatefulSet controller makes one per pod and
    template and mounts it the same way (kubernetes ``pkg/controller/statefulset/stateful_set_utils.go``
    ``updateStorage``). Each is judged as a claim naming no volume (:func:`_host_path_binding`),
    at the template's position."""
    holder, holder_path = (pod.workflow, pod.workflow_path) if pod.workflow is not None else (get_map(m.body, "spec"), "spec")
    if holder is None or (pod.workflow is None and m.kind != "StatefulSet"):
        return
    templates = holder.get("volumeClaimTemplates")
    if not isinstance(templates, Seq):
        return
    mounted = mounted_volumes(m, pod)
    for i, template in enumerate(templates):
        metadata = get_map(template, "metadata")
        name = metadata.get("name") if metadata is not None else None
        if not isinstance(template, Map) or not isinstance(name, str) or name not in mounted:
            continue
        bound = _host_path_binding(m, None, ctx, (template,))
        if bound is not None:
            yield _template_hit(m, f"volume '{name}'", f"its spec.volumeClaimTemplates makes for '{name}'", bound, tail,
                                templates.item_spans[i], f"{holder_path}.volumeClaimTemplates[{i}]")  # fmt: skip


def _privileged(m: Manifest, pod: PodSpec, ctx: Context) -> Iterator[Hit]:
    """HL105's findings on one pod spec of ``m`` (:func:`hook_privileged_pod`)."""
    tail = (
        f"{runs(m)} and then controls the node, not just its pod. Remove it, or do this work "
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
                f"{m.label} mounts the node's filesystem through hostPath volume '{name}' ({host_path(volume)}): {tail}",
                volume.key_span("hostPath"),
                f"{vpath}.hostPath",
            )
        claim = get_map(volume, "persistentVolumeClaim")
        bound = _host_path_binding(m, claim.get("claimName"), ctx) if claim is not None else None
        if claim is not None and bound is not None:
            yield _claim_hit(m, f"volume '{name}'", claim["claimName"], bound, tail,
                             volume.key_span("persistentVolumeClaim"), f"{vpath}.persistentVolumeClaim")  # fmt: skip
        template = get_map(get_map(volume, "ephemeral"), "volumeClaimTemplate")
        bound = _host_path_binding(m, None, ctx, (template,)) if template is not None else None
        if bound is not None:
            yield _template_hit(m, f"volume '{name}'", "its ephemeral.volumeClaimTemplate makes", bound, tail,
                                volume.key_span("ephemeral"), f"{vpath}.ephemeral")  # fmt: skip
    yield from _workflow_claim_templates(m, pod, ctx, tail)
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


def host_path(volume: object) -> str:
    """The node path a pod volume ``volume`` (a mapping with ``hostPath``) mounts, for a message:
    ``path '/var/cache/app'`` (kubelet mounts ``hostPath.path`` of the node: ``/`` is its whole
    root filesystem), ``path 3`` for a value that is not a string, ``no path`` without one. A
    finding names it so that a change of the path is a change of what the finding says
    (``hooklint diff``: :func:`hooklint.review._statement`)."""
    source = volume.get("hostPath") if isinstance(volume, dict) else None
    path = source.get("path") if isinstance(source, dict) else None
    if path is None:
        return "no path"
    return f"path '{shown(path, None)}'" if isinstance(path, str) else f"path {_plain(path)}"


def _plain(value: object) -> str:
    """A value that is not a string, as one line of JSON (a mapping, list, number, bool): every part
    of it is in the text, so a change of any part is a change of the text."""
    return shown(json.dumps(value, default=str, ensure_ascii=False), None)


def parsed_patch(text: object) -> dict | None:
    """A Workflow's ``podSpecPatch`` as the workflow controller reads it, when hooklint can: a
    YAML or JSON mapping (``argo-workflows util/util.go`` ``ApplyPodSpecPatch`` reads it with
    sigs.k8s.io/yaml), without ``{{`` (the controller substitutes workflow variables first, so a
    templated patch says nothing certain), its keys folded as Go's decoder matches them
    (:func:`folded_patch`). None otherwise (HL110 reports it)."""
    if not isinstance(text, str) or "{{" in text:
        return None
    try:
        docs = parse_documents(text)
    except (YamlSyntaxError, DocumentTooComplex):  # the controller fails, or hooklint cannot say
        return None
    if len(docs) != 1 or not isinstance(docs[0].value, Map):
        return None
    return folded_patch(docs[0].value)


_CAPABILITIES_FIELDS: dict[str, object] = {"add": None, "drop": None}
_SECURITY_CONTEXT_FIELDS: dict[str, object] = {
    "privileged": None, "allowPrivilegeEscalation": None, "capabilities": _CAPABILITIES_FIELDS,
}  # fmt: skip
_CONTAINER_FIELDS: dict[str, object] = {"name": None, "image": None, "securityContext": _SECURITY_CONTEXT_FIELDS}
_VOLUME_FIELDS: dict[str, object] = {"name": None, "hostPath": None}
#: The PodSpec fields (and the fields below them) HL101-HL105 and HL110 read of a podSpecPatch:
#: a nested mapping is a struct's fields, a list ``[fields]`` a list of such structs.
POD_SPEC_PATCH_FIELDS: dict[str, object] = {
    "hostPID": None, "hostNetwork": None, "hostIPC": None, "serviceAccountName": None,
    "serviceAccount": None, "automountServiceAccountToken": None, "volumes": [_VOLUME_FIELDS],
    "containers": [_CONTAINER_FIELDS], "initContainers": [_CONTAINER_FIELDS],
    "ephemeralContainers": [_CONTAINER_FIELDS],
}  # fmt: skip


def _merged(old: object, new: object) -> object:
    """Two values written for one field under keys that fold alike, kept both ways (fail closed):
    a true bool wins, lists are joined, mappings merged field by field."""
    if isinstance(old, list) and isinstance(new, list):
        return [*old, *new]
    if isinstance(old, dict) and isinstance(new, dict):
        out = dict(old)
        for key, value in new.items():
            out[key] = _merged(out[key], value) if key in out else value
        return out
    return old if old is True else new


def folded_patch(patch: dict, fields: dict[str, object] = POD_SPEC_PATCH_FIELDS) -> dict:
    """``patch`` (a parsed podSpecPatch mapping) with every key that names a field of ``fields``
    in another case renamed to the field, as Go's ``encoding/json`` matches it (any case, with
    Unicode simple folding: ``Hostpid``, ``HOSTIPC``, ``ho\u017ftPID`` are ``hostPID``;
    :func:`~hooklint.gojsonread.go_fold`), struct levels below done alike.
    The workflow controller (argo-workflows v3.7 ``workflow/util/util.go`` ``ApplyPodSpecPatch``)
    checks the patch by decoding it into a ``PodSpec``, merges it into the pod's JSON with
    ``strategicpatch.StrategicMergePatch`` (a key the pod does not have is copied as written) and
    decodes the result again, so a key in another case sets the field. Keys that fold onto one
    field are all kept (:func:`_merged`: a true value of any of them counts), since which one Go
    keeps depends on the merged document's key order. Other keys are kept as written; the result
    is plain ``dict``/``list`` from the first level down to the folded fields."""
    out: dict = {}
    for key, value in patch.items():
        field = key
        if isinstance(key, str) and key not in fields:
            folded = go_fold(key)
            field = next((f for f in fields if go_fold(f) == folded), key)
        shape = fields.get(field) if isinstance(field, str) else None
        if isinstance(shape, dict) and isinstance(value, dict):
            value = folded_patch(value, shape)
        elif isinstance(shape, list) and isinstance(value, list):
            value = [folded_patch(v, shape[0]) if isinstance(v, dict) else v for v in value]
        out[field] = _merged(out[field], value) if field in out else value
    return out


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
        said.extend(f"hostPath volume '{v.get('name')}' ({host_path(v)})" for v in (volumes if isinstance(volumes, list) else [])
                    if isinstance(v, dict) and "hostPath" in v)  # fmt: skip
        for list_name in ("initContainers", "containers", "ephemeralContainers"):
            items = patch.get(list_name)
            for c in items if isinstance(items, list) else []:
                sc = c.get("securityContext") if isinstance(c, dict) else None
                if not isinstance(sc, dict):
                    continue
                name = f"container '{c.get('name')}'"
                if sc.get("privileged") is True:
                    said.append(f"{name} privileged")
                if sc.get("allowPrivilegeEscalation") is True:
                    said.append(f"{name} allowPrivilegeEscalation: true")
                caps = sc.get("capabilities")
                added = caps.get("add") if isinstance(caps, dict) else None
                extra = [str(a) for a in (added if isinstance(added, list) else []) if a not in BASELINE_CAPABILITIES]
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
            f"{m.label} makes a Workflow on its schedule from spec.workflowSpec{_cron_templates(get_map(spec, key) if key else None)}, "
            "and hooklint does not read a "
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
        ref = get_map(spec, "pipelineRef") if key == "pipelineRef" else None
        inline = get_map(spec, "pipelineSpec") if key == "pipelineSpec" else None
        which = (f", {tekton_ref(ref, 'Pipeline')}" if ref is not None else
                 f": {_pipeline_tasks(inline)}" if inline is not None else "")  # fmt: skip
        yield Hit(
            f"{m.label} makes a pod for each task of its pipeline{f' (spec.{key}{which})' if key else ''}, and hooklint does "
            f"not read a PipelineRun's tasks, {_CHECKED}. Review the pipeline's tasks yourself, or run each as a TaskRun "
            "with its steps in spec.taskSpec.",
            spec.key_span(key) if spec is not None and key else m.anchor,
            f"spec.{key}" if key else "metadata.name",
        )
    else:
        named = [f"{key} {_value(spec[key])}" for key in _ANSIBLE_JOB_FIELDS
                 if m.kind == "AnsibleJob" and spec is not None and isinstance(spec.get(key), (str, int))]  # fmt: skip
        yield Hit(
            f"{m.label} is a {m.group}/{m.kind}"
            f"{' (' + ', '.join(named) + ')' if named else ''}: its controller makes the pods that run it from settings hooklint does "
            f"not read, {_CHECKED}. Review what it runs yourself, or run the work as a Job.",
            m.anchor,
            "metadata.name",
        )


#: What an AnsibleJob (``tower.ansible.com``, ansible/awx-resource-operator ``roles/job/``) runs,
#: named by HL110: the AWX job or workflow template, the inventory and the runner's image and
#: version (the operator's Job runs ``runner_image:runner_version``); ``extra_vars`` may hold
#: secrets and is not printed.
_ANSIBLE_JOB_FIELDS = ("job_template_name", "workflow_template_name", "inventory", "runner_image", "runner_version")


def _other_pods_not_read(m: Manifest) -> Iterator[Hit]:
    """HL110 on a hook of a kind whose pods hooklint does not read (none found by
    :meth:`Manifest.pod_specs`; not a template-only kind, :data:`hooklint.model.TEMPLATE_ONLY_KINDS`)
    that holds a pod spec anywhere in its spec (:func:`hooklint.model.find_pod_specs`: a Ray
    RayJob's ``spec.rayClusterSpec.headGroupSpec.template.spec``). Argo CD runs an object of any
    kind as a hook (argo-cd v3.5.1 ``controller/hook.go`` ``isHookOfType``), and its controller may
    make pods from that spec, which HL101-HL105 then never read: reported once, at the first
    pod spec, naming where each is, with its images and what HL105 would say of it (fail closed: a
    warning, so the run exits 1; a change of any is a change of the message). One with no
    pod spec but pod settings in an operator's own shape is :func:`_pod_settings_not_read`'s."""
    if (m.group, m.kind) in TEMPLATE_ONLY_KINDS or m.pod_specs():
        return
    found = find_pod_specs(m.body)
    if not found:
        yield from _pod_settings_not_read(m)
        return
    path, parent, key = found[0]
    said = [f"{where} (image {', '.join(images) if images else 'none'}" + (f"; {', '.join(hazards)})" if hazards else ")")
            for where, images, hazards in ((p, _pod_images(h[k]), _pod_hazards(h[k])) for p, h, k in found)]  # fmt: skip
    yield Hit(
        f"{m.label} is a {m.kind} ({m.group or 'v1'}), whose pods hooklint does not read, and it holds a pod spec at "
        f"{', and one at '.join(said)}: its controller may run pods from it, {_CHECKED}. Review those pods yourself, or run the work "
        "as a Job, whose pod hooklint reads.",
        parent.key_span(key),
        path,
    )


#: Keys that only a pod's or container's settings hold (``corev1.PodSpec``, ``Container``,
#: ``Volume``): an operator that takes them makes pods of them.
_POD_SETTING_KEYS = frozenset({"image", "containers", "initContainers", "hostNetwork", "hostPID", "hostIPC",
                               "securityContext", "hostPath", "volumeMounts"})  # fmt: skip
#: Of those, the ones that say an object's settings are a pod's (``image`` or ``containers`` alone
#: may be an application's own settings).
_POD_ONLY_KEYS = frozenset({"hostNetwork", "hostPID", "hostIPC", "securityContext", "hostPath", "volumeMounts"})
#: Operator kinds that always run pods from settings in their own shape, as (group, kind): the
#: Spark operator's (kubeflow/spark-operator ``api/v1beta2/sparkapplication_types.go``).
OPERATOR_POD_KINDS = frozenset({("sparkoperator.k8s.io", "SparkApplication"),
                                ("sparkoperator.k8s.io", "ScheduledSparkApplication")})  # fmt: skip


def _pod_settings(body: Map) -> list[tuple[str, Map, str]]:
    """Every key of :data:`_POD_SETTING_KEYS` below ``body``'s ``spec`` (up to
    :data:`hooklint.model.MAX_POD_SPEC_DEPTH` levels), in document order, as (dotted path, parent
    mapping, key); a key's own value is not searched further."""
    out: list[tuple[str, Map, str]] = []

    def visit(value: object, path: str, depth: int) -> None:
        if depth >= MAX_POD_SPEC_DEPTH:
            return
        if isinstance(value, Map):
            for k, v in value.items():
                if not isinstance(k, str):
                    continue
                if k in _POD_SETTING_KEYS and (k != "image" or isinstance(v, str)):
                    out.append((f"{path}.{k}", value, k))
                else:
                    visit(v, f"{path}.{k}", depth + 1)
        elif isinstance(value, Seq):
            for i, v in enumerate(value):
                visit(v, f"{path}[{i}]", depth + 1)

    visit(body.get("spec"), "spec", 0)
    return out


def _pod_settings_not_read(m: Manifest) -> Iterator[Hit]:
    """HL110 on a hook of a kind whose pods hooklint does not read and that holds no pod spec
    hooklint knows (:func:`_other_pods_not_read`) but holds pod settings in an operator's own shape
    (:func:`_pod_settings`): a Spark operator ``SparkApplication`` (``sparkoperator.k8s.io``) makes
    its driver and executor pods of ``spec.image``, ``spec.volumes``, ``spec.hostNetwork`` and each
    ``SparkPodSpec`` (``spec.driver``, ``spec.executor``: ``securityContext``, ``volumeMounts``;
    kubeflow/spark-operator ``api/v1beta2/sparkapplication_types.go``), an Argo Events Sensor its
    pod of ``spec.template.container``. Reported when a setting only a pod has is among them
    (:data:`_POD_ONLY_KEYS`), or always for a kind of :data:`OPERATOR_POD_KINDS`; once, at the first
    setting, naming the host namespaces, hostPath volumes and privileged or escalating containers
    among them."""
    found = _pod_settings(m.body)
    operator = (m.group, m.kind) in OPERATOR_POD_KINDS
    if not operator and not any(key in _POD_ONLY_KEYS for _, _, key in found):
        return
    if not found:
        yield Hit(
            f"{m.label} is a {m.kind} ({m.group}), whose controller runs pods hooklint does not read, {_CHECKED}. "
            "Review those pods yourself, or run the work as a Job, whose pod hooklint reads.",
            m.anchor,
            "metadata.name",
        )
        return
    hazards: list[str] = []
    for path, parent, key in found:
        value = parent[key]
        if key in ("hostNetwork", "hostPID", "hostIPC") and value is True:
            hazards.append(f"{key}: true ({path})")
        elif key == "image" and isinstance(value, str):
            hazards.append(f"image {_value(value)} ({path})")
        elif key == "hostPath":
            hazards.append(f"a hostPath volume ({path}, {host_path(parent)})")
        elif key == "securityContext" and isinstance(value, Map):
            hazards += [f"{flag}: true ({path}.{flag})" for flag in ("privileged", "allowPrivilegeEscalation")
                        if value.get(flag) is True]  # fmt: skip
    path, parent, key = found[0]
    named = f", among them {', '.join(hazards)}" if hazards else ""
    yield Hit(
        f"{m.label} is a {m.kind} ({m.group or 'v1'}), whose pods hooklint does not read, and it holds pod settings "
        f"from {path} on{named}: its controller may run pods with them, {_CHECKED}. Review those pods yourself, or "
        "run the work as a Job, whose pod hooklint reads.",
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
        yield Hit(
            f"{m.label} runs {tekton_ref(ref, 'Task')} through spec.taskRef: its steps are defined there, not in this object, {_CHECKED}. "
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
                f"Step '{name}' of {m.label} runs {tekton_ref(step['ref'], 'StepAction')} (ref): its image and script are "
                f"defined there, {_CHECKED}. Review that StepAction, or write the step's image and script here.",
                step.key_span("ref"),
                f"spec.taskSpec.steps[{i}].ref",
            )


def tekton_ref(ref: Map, kind: str) -> str:
    """What a Tekton ``taskRef``, ``pipelineRef`` or step ``ref`` (of a ``kind``: ``Task``,
    ``Pipeline``, ``StepAction``) names, for a message, with every part that says where it comes
    from: a remote resolver's name and every one of its ``params`` (tektoncd/pipeline
    ``pkg/apis/pipeline/v1/resolver_types.go`` ``ResolverRef``: the git resolver's ``url``,
    ``revision``, ``pathInRepo``; the bundles resolver's ``bundle``; hub, http, cluster), else the
    ``kind`` and ``name`` it names, with a v1beta1 ``bundle`` and a custom task's ``apiVersion``.
    ``a Task the 'git' resolver fetches with url 'https://...', revision 'v1.2.0', pathInRepo
    'task/migrate.yaml'``. Re-pointing a reference to another repository, revision or image changes
    what is run, so it changes the text (``hooklint diff`` compares it: :func:`hooklint.review._statement`)."""
    resolver = ref.get("resolver")
    if isinstance(resolver, str) and resolver:
        params = ref.get("params")
        said = [f"{p['name']} {_value(p.get('value'))}" for p in (params if isinstance(params, Seq) else [])
                if isinstance(p, Map) and isinstance(p.get("name"), str)]  # fmt: skip
        return f"a {kind} the '{shown(resolver, None)}' resolver fetches with {', '.join(said) if said else 'no params'}"
    named = f"{ref.get('kind') if isinstance(ref.get('kind'), str) and ref.get('kind') else kind} '{ref.get('name')}'"
    for key in ("apiVersion", "bundle"):
        if ref.get(key) is not None:
            named += f" ({key} {_value(ref.get(key))})"
    return named


def _cron_templates(workflow: Map | None) -> str:
    """What the templates of a CronWorkflow's ``spec.workflowSpec`` run, for a message: `` (template
    'main' runs image 'busybox:1.36' with privileged container 'main')`` for each template with a
    ``container``, ``script``, ``containerSet`` or ``initContainers``/``sidecars``, and the
    hostPath volumes of the spec (:func:`_pod_hazards`); "" when none does. A change of an image or
    of those hazards is a change of the message."""
    templates = workflow.get("templates") if workflow is not None else None
    said: list[str] = []
    for template in templates if isinstance(templates, Seq) else []:
        if not isinstance(template, Map):
            continue
        containers = [template[k] for k in ("container", "script") if isinstance(template.get(k), Map)]
        for k in ("initContainers", "sidecars"):
            containers += [c for c in template.get(k) or [] if isinstance(c, Map)] if isinstance(template.get(k), Seq) else []
        group = get_map(template, "containerSet")
        inner = group.get("containers") if group is not None else None
        containers += [c for c in inner if isinstance(c, Map)] if isinstance(inner, Seq) else []
        if not containers:
            continue
        images = ", ".join(_value(c.get("image")) for c in containers)
        hazards = _pod_hazards({"containers": containers})
        said.append(f"template '{template.get('name')}' runs image {images}" + (f" with {', '.join(hazards)}" if hazards else ""))
    volumes = _pod_hazards({"volumes": workflow.get("volumes")}) if workflow is not None else []
    said += volumes
    return f" ({'; '.join(said)})" if said else ""


def _pipeline_tasks(pipeline: Map) -> str:
    """What each task of a PipelineRun's inline ``spec.pipelineSpec`` (``tasks``, then ``finally``)
    runs, for a message: ``task 'build' runs Task 'kaniko'`` (:func:`tekton_ref`), ``task 'x' runs
    steps of image 'busybox:1.36' with privileged container 's'`` for an inline ``taskSpec``
    (:func:`_pod_hazards` of its steps and volumes), so that a change of what a task runs is a
    change of the text; ``no tasks`` when none is written."""
    said: list[str] = []
    for list_name in ("tasks", "finally"):
        tasks = pipeline.get(list_name)
        for task in tasks if isinstance(tasks, Seq) else []:
            if not isinstance(task, Map):
                continue
            ref, inline = get_map(task, "taskRef"), get_map(task, "taskSpec")
            if ref is not None:
                what = tekton_ref(ref, "Task")
            elif inline is not None:
                steps = inline.get("steps")
                steps = steps if isinstance(steps, Seq) else []
                images = [_value(step.get("image")) for step in steps if isinstance(step, Map)]
                hazards = _pod_hazards({"volumes": inline.get("volumes"), "containers": steps})
                with_ = f" with {', '.join(hazards)}" if hazards else ""
                what = f"steps of image {', '.join(images) if images else 'none'}{with_}"
            else:
                what = "what hooklint does not read"
            said.append(f"task '{task.get('name')}' runs {what}")
    return "; ".join(said) if said else "no tasks"


def _pod_images(pod: object) -> list[str]:
    """The images of a pod spec's init containers and containers, quoted for a message (:func:`_value`)."""
    if not isinstance(pod, Map):
        return []
    out: list[str] = []
    for list_name in ("initContainers", "containers"):
        items = pod.get(list_name)
        out += [_value(c.get("image")) for c in (items if isinstance(items, Seq) else []) if isinstance(c, Map)]
    return out


def _value(value: object) -> str:
    """A value of a reference for a message: a string quoted whole (never cut), another value as
    :func:`_plain`."""
    return f"'{shown(value, None)}'" if isinstance(value, str) else _plain(value)


def _templates_with_inline(template: object, path: str) -> Iterator[tuple[Map, str]]:
    """A Workflow ``template`` and every template written inline in its steps and DAG tasks
    (``inline``, at any depth), as (template, dotted path)."""
    if not isinstance(template, Map):
        return
    yield template, path
    steps = template.get("steps")
    dag = get_map(template, "dag")
    tasks = dag.get("tasks") if dag is not None else None
    items = [(step, f"{path}.steps[{i}][{j}]") for i, group in enumerate(steps if isinstance(steps, Seq) else [])
             for j, step in enumerate(group if isinstance(group, Seq) else [])]
    items += [(task, f"{path}.dag.tasks[{i}]") for i, task in enumerate(tasks if isinstance(tasks, Seq) else [])]
    for item, item_path in items:
        if isinstance(item, Map):
            yield from _templates_with_inline(item.get("inline"), f"{item_path}.inline")


#: Resource template actions that only read or remove objects (``workflow/executor/resource.go``).
_READ_ONLY_ACTIONS = frozenset({"get", "delete"})


def _pod_hazards(pod: dict) -> list[str]:
    """What HL105 would say of a pod spec, in short: host namespaces, hostPath volumes, privileged
    or escalating containers."""
    said = [f"{key}: true" for key in ("hostNetwork", "hostPID", "hostIPC") if pod.get(key) is True]
    volumes = pod.get("volumes")
    said += [f"hostPath volume '{v.get('name')}' ({host_path(v)})" for v in (volumes if isinstance(volumes, list) else [])
             if isinstance(v, Map) and "hostPath" in v]  # fmt: skip
    for list_name in ("initContainers", "containers"):
        items = pod.get(list_name)
        for c in items if isinstance(items, list) else []:
            sc = get_map(c, "securityContext") if isinstance(c, Map) else None
            if sc is not None and sc.get("privileged") is True:
                said.append(f"privileged container '{c.get('name')}'")
            if sc is not None and sc.get("allowPrivilegeEscalation") is True:
                said.append(f"container '{c.get('name')}' with allowPrivilegeEscalation: true")
    return said


def _resource_objects(text: object) -> list[tuple[str, list[str]]] | None:
    """The objects a resource template's ``manifest`` creates that run pods, as (``Kind 'name'``
    with the images of their containers, ``Pod 'x' of image 'busybox:1.36'``, what HL105 would say
    of their pods), when hooklint can read it: YAML or JSON documents with no
    ``{{`` (the controller fills in workflow variables first). An object runs pods when it is of a
    kind whose pods hooklint reads (:data:`hooklint.model.POD_KINDS`), a run-to-completion kind
    (:data:`hooklint.model.RUN_TO_COMPLETION_KINDS`), a CronWorkflow, or holds a pod spec anywhere
    in its spec (:func:`hooklint.model.find_pod_specs`); the items of a ``List`` (``kind`` ending in
    ``List``, as kubectl reads it) are objects too. None when it cannot be read."""
    if not isinstance(text, str) or "{{" in text:
        return None
    try:
        docs = parse_documents(text)
    except (YamlSyntaxError, DocumentTooComplex):
        return None
    out: list[tuple[str, list[str]]] = []
    bodies = [doc.value for doc in docs]
    while bodies:
        body = bodies.pop(0)
        if body is None:
            continue
        if not isinstance(body, Map):
            return None
        if isinstance(body.get("kind"), str) and str(body["kind"]).endswith("List") and "items" in body:
            items = body.get("items")  # kubectl creates each item of a List (``Unstructured.IsList``)
            if items is not None and not isinstance(items, Seq):
                return None
            bodies[:0] = list(items or [])
            continue
        kind = str(body["kind"]) if isinstance(body.get("kind"), str) else "object"
        api = str(body["apiVersion"]) if isinstance(body.get("apiVersion"), str) else ""
        group = api.rsplit("/", 1)[0] if "/" in api else ""
        found = find_pod_specs(body)
        if not found and kind not in POD_KINDS and kind != "CronWorkflow" and (group, kind) not in RUN_TO_COMPLETION_KINDS:
            continue
        md = get_map(body, "metadata")
        name = md.get("name") if md is not None else None
        if not isinstance(name, str) and md is not None and isinstance(md.get("generateName"), str):
            name = f"{md['generateName']}*"
        hazards = [h for _, parent, key in found for h in _pod_hazards(parent[key])]
        images = [image for _, parent, key in found for image in _pod_images(parent[key])]
        label = f"{kind} '{name}'" if isinstance(name, str) else kind
        out.append((label + (f" of image {', '.join(images)}" if images else ""), hazards))
    return out


def _resource_pods_not_read(m: Manifest, template: Map, path: str) -> Iterator[Hit]:
    """HL110 on a Workflow template with a ``resource`` (``workflow_types.go`` ``ResourceTemplate``):
    the executor creates, applies, replaces or patches the objects of its ``manifest`` (or of
    ``manifestFrom``, an artifact) as written, with the Workflow's ServiceAccount
    (``workflow/executor/resource.go`` ``ExecResource``), so a Pod, Job or other pod-running object
    in it runs outside HL101-HL105. Reported when the manifest cannot be read (templated, not YAML,
    ``manifestFrom``) or holds pod-running objects (:func:`_resource_objects`), naming their
    privileges; ``get`` and ``delete`` create nothing."""
    resource = get_map(template, "resource")
    if resource is None or resource.get("action") in _READ_ONLY_ACTIONS:
        return
    action = resource.get("action") if isinstance(resource.get("action"), str) else "create"
    objects = _resource_objects(resource.get("manifest")) if "manifestFrom" not in resource else None
    if objects == []:
        return
    if objects is None:
        what = ("objects from an artifact (manifestFrom)" if "manifestFrom" in resource
                else "the objects of a manifest hooklint cannot read (templated with {{...}}, or not YAML mappings)")  # fmt: skip
    else:
        what = "; ".join(name + (" with " + ", ".join(h) if h else "") for name, h in objects)
    yield Hit(
        f"The resource template at {path} of {m.label} makes the workflow controller {action} {what}, "
        f"{_CHECKED}, and those objects run with the Workflow's ServiceAccount. Review them yourself, or run "
        "the work in a container template, whose pod hooklint reads.",
        template.key_span("resource"),
        f"{path}.resource",
    )


def _workflow_pods_not_read(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """HL110 on a Workflow hook (``argoproj.io``) whose pods hooklint cannot read, so HL101-HL105 do not
    judge them: ``spec.workflowTemplateRef`` (the workflow controller runs the referenced
    WorkflowTemplate's or ClusterWorkflowTemplate's spec: ``workflow_types.go``
    ``WorkflowTemplateRef``), a step's or DAG task's ``templateRef`` (a template of another
    WorkflowTemplate), a ``podSpecPatch`` hooklint cannot parse (:func:`parsed_patch`: templated,
    or not a mapping), and a parsed one that sets a container's image or the pod's
    ServiceAccount (the patch is applied to every pod of its template: ``workflowpod.go``
    ``processPodSpecPatch``), and a ``resource`` template that creates pod-running objects
    (:func:`_resource_pods_not_read`). Each is reported once, where it is written."""
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
        for inner, inner_path in _templates_with_inline(template, f"spec.templates[{i}]"):
            yield from _resource_pods_not_read(m, inner, inner_path)
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
        sets = [key for key in ("serviceAccountName", "serviceAccount") if key in patch]
        for list_name in ("initContainers", "containers", "ephemeralContainers"):
            items = patch.get(list_name)
            sets += [f"the image of container '{c.get('name')}'" for c in (items if isinstance(items, list) else [])
                     if isinstance(c, dict) and "image" in c]  # fmt: skip
        if sets:
            yield Hit(
                f"The podSpecPatch of {m.label} at {path}.podSpecPatch sets {', '.join(sets)}: hooklint checks the "
                "images and ServiceAccount written in the templates, not those of a patch (HL101-HL104). Write "
                "them in the template instead.",
                holder.value_span("podSpecPatch"),
                f"{path}.podSpecPatch",
            )


#: The words that name a credential, as whole words of a name (``DB_PASSWORD``) or as the end of a
#: word written without separators (``PGPASSWORD``, PostgreSQL's client variable; ``VAULTTOKEN``,
#: ``DATADOGAPIKEY``): the same words :data:`hooklint.text.SECRET_KEY` reads as secrets, but for
#: ``PWD``, which ends a word only as itself (``OLDPWD`` is the shell's previous directory).
_CREDENTIAL_WORDS = frozenset({"PASSWORD", "PASSWD", "PASSPHRASE", "PWD", "TOKEN", "SECRET", "APIKEY",
                               "CREDENTIAL", "CREDENTIALS"})  # fmt: skip
_CREDENTIAL_ENDINGS = ("PASSWORD", "PASSWD", "PASSPHRASE", "TOKEN", "SECRET", "APIKEY", "ACCESSKEY",
                       "PRIVATEKEY", "AUTHKEY", "SECRETKEY", "CREDENTIAL", "CREDENTIALS")  # fmt: skip
_CREDENTIAL_PAIRS = frozenset({("API", "KEY"), ("ACCESS", "KEY"), ("PRIVATE", "KEY"), ("AUTH", "KEY"), ("SECRET", "KEY")})
#: Names that are exactly these hold the shell's working directories, not a password.
_SHELL_NAMES = frozenset({"PWD", "OLDPWD"})
#: A last word that makes the variable *about* a credential, not the credential itself: where it
#: is (a file, a path, a Secret's name, a key's id), how it behaves (its lifetime, length, whether
#: it is enabled) or what kind it is.
_NOT_CREDENTIAL_TAILS = frozenset({"FILE", "PATH", "NAME", "ID", "REF", "DIR", "URL", "URI", "EXPIRY",
                                   "SECONDS", "TTL", "TYPE", "HEADER", "ENDPOINT", "LENGTH", "LIMIT",
                                   "COUNT", "SIZE", "KEYS", "FIELD", "MOUNT", "VERSION", "ENABLED",
                                   "DISABLED", "ENABLE", "DISABLE", "REQUIRED", "TIMEOUT", "LIFETIME",
                                   "DURATION", "AUDIENCE", "ISSUER", "SCOPE", "SCOPES", "POLICY",
                                   "FORMAT", "ALGORITHM", "KIND", "NAMESPACE", "PROVIDER"})  # fmt: skip
#: Of those, the last words of a variable holding an address, which may still carry a credential
#: in its userinfo (``https://user:password@host``) or query (``?access_token=``).
_ADDRESS_TAILS = frozenset({"URL", "URI"})


def _credential_words(words: list[str]) -> bool:
    if _CREDENTIAL_WORDS.intersection(words) or any(pair in _CREDENTIAL_PAIRS for pair in zip(words, words[1:])):
        return True
    return any(word.endswith(_CREDENTIAL_ENDINGS) for word in words)


def looks_like_credential(name: str, value: str = "") -> bool:
    """True for env var names such as DB_PASSWORD, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, PGPASSWORD
    or VAULTTOKEN: a credential word (:data:`_CREDENTIAL_WORDS`, :data:`_CREDENTIAL_PAIRS`) as a
    whole word (split at ``_``, ``-`` and ``.``, any case) or ending a word
    (:data:`_CREDENTIAL_ENDINGS`). Not MAX_TOKENS, TOKENIZER_MODEL, PWD, nor a name whose last
    word says it is about a credential (:data:`_NOT_CREDENTIAL_TAILS`: TOKEN_FILE, SECRET_NAME,
    TOKEN_TTL, PASSWORD_MIN_LENGTH, AUTH_TOKEN_ENABLED), but for an address (OAUTH_TOKEN_URL)
    whose ``value`` carries a credential (:func:`hooklint.text.url_credentials` hides some)."""
    words = [w for w in name.upper().replace("-", "_").replace(".", "_").split("_") if w]
    if not words or name.upper() in _SHELL_NAMES or not _credential_words(words):
        return False
    if words[-1] in _ADDRESS_TAILS:
        return url_credentials(value) != value
    return words[-1] not in _NOT_CREDENTIAL_TAILS


@check("HL107", kinds=POD_KINDS)
def hook_literal_secret_env(m: Manifest, ctx: Context) -> Iterator[Hit]:
    if not pods_in_scope(m, ctx):
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
            if value.startswith("$(") or not looks_like_credential(name, value):
                continue
            yield Hit(
                f"Env var {name} of {_where(m, container)} carries a literal value: the credential "
                f"is in the Git repository, in every rendered manifest and in the {m.kind}'s spec, "
                f"readable by anyone who can read the repository or the {m.kind}. Use "
                "valueFrom.secretKeyRef.",
                var.value_span("value"),
                f"{container.path}.env[{i}].value",
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
    if not pods_in_scope(m, ctx):
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
            effect = (f"the pod stays in ImagePullBackOff and {phase_words(m)} never completes, so Argo CD waits "
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
