"""HL101-HL104: the security of hook workloads (images, ServiceAccount, token)."""

from __future__ import annotations

from typing import Iterator

from hooklint.checks import Context, Hit, check
from hooklint.images import allowed, is_templated, parse_image
from hooklint.model import Container, Manifest, PodSpec


def _images(m: Manifest, pod: PodSpec) -> Iterator[tuple[Container, str]]:
    for container in m.containers(pod):
        image = container.body.get("image")
        if isinstance(image, str) and image and not is_templated(image):
            yield container, image


def _where(m: Manifest, container: Container) -> str:
    role = {"initContainers": "init container", "ephemeralContainers": "ephemeral container"}.get(
        container.list_name, "container"
    )
    return f"{role} '{container.name}' of {m.label}"


def _phase_words(m: Manifest) -> str:
    phases = m.hook.phases or m.hook.delete_types
    if not phases:
        return "a workload"
    return f"a {'/'.join(phases)} hook"


@check("HL101")
def hook_image_registry_not_allowed(m: Manifest, ctx: Context) -> Iterator[Hit]:
    entries = ctx.config.registry_entries
    if not entries or not ctx.in_scope(m):
        return
    pod = m.pod_spec()
    if pod is None:
        return
    for container, image in _images(m, pod):
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
        yield Hit(
            f"Image '{image}' of {_where(m, container)} comes from registry '{ref.host}', which is "
            f"not in allowed-registries: {_phase_words(m)} runs in the cluster on every sync with "
            "the controller's reach, before review of the running version. Pull the image from "
            "an allowed registry, or add the registry to allowed-registries.",
            container.body.value_span("image"),
            f"{container.path}.image",
        )


@check("HL102")
def hook_image_mutable_tag(m: Manifest, ctx: Context) -> Iterator[Hit]:
    if not ctx.in_scope(m):
        return
    pod = m.pod_spec()
    if pod is None:
        return
    for container, image in _images(m, pod):
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
        yield Hit(
            f"Image '{image}' of {_where(m, container)} {problem}: each sync may run different "
            "code than was reviewed. Pin a version tag or, better, an @sha256 digest.",
            container.body.value_span("image"),
            f"{container.path}.image",
        )


def _service_account(pod: PodSpec) -> tuple[str | None, str]:
    """(name, key) of the pod's ServiceAccount: serviceAccountName, else the deprecated
    serviceAccount; (None, "") when neither is a non-empty string."""
    for key in ("serviceAccountName", "serviceAccount"):
        value = pod.spec.get(key)
        if isinstance(value, str) and value:
            return value, key
    return None, ""


@check("HL103")
def hook_default_service_account(m: Manifest, ctx: Context) -> Iterator[Hit]:
    if not ctx.in_scope(m):
        return
    pod = m.pod_spec()
    if pod is None:
        return
    name, key = _service_account(pod)
    if name is None:
        yield Hit(
            f"{m.label} sets no serviceAccountName, so its pods run as the namespace's 'default' "
            f"ServiceAccount: {_phase_words(m)} then shares identity and permissions with every "
            "other unconfigured pod. Create a dedicated ServiceAccount and set "
            f"{pod.path}.serviceAccountName.",
            pod.parent.key_span(pod.key),
            f"{pod.path}.serviceAccountName",
        )
    elif name == "default":
        yield Hit(
            f"{m.label} runs as the 'default' ServiceAccount: {_phase_words(m)} then shares identity "
            "and permissions with every other unconfigured pod. Use a dedicated ServiceAccount.",
            pod.spec.value_span(key),
            f"{pod.path}.{key}",
        )


@check("HL104")
def hook_automounts_token(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """Kubernetes' rule: the pod spec's automountServiceAccountToken wins; when unset, the named
    ServiceAccount's; when both are unset, the token is mounted."""
    if not ctx.in_scope(m):
        return
    pod = m.pod_spec()
    if pod is None:
        return
    field = f"{pod.path}.automountServiceAccountToken"
    value = pod.spec.get("automountServiceAccountToken")
    if value is False:
        return
    why = (
        f"{_phase_words(m)} gets a Kubernetes API token it rarely needs, which anyone who controls "
        "its image or command can use"
    )
    if value is True:
        yield Hit(
            f"{m.label} sets automountServiceAccountToken: true: {why}. Set it to false unless the "
            "hook calls the Kubernetes API.",
            pod.spec.value_span("automountServiceAccountToken"),
            field,
        )
        return
    if value is not None:
        yield Hit(
            f"{m.label} sets automountServiceAccountToken to a non-boolean value, which the API "
            f"server rejects; the token is otherwise mounted: {why}. Write false.",
            pod.spec.value_span("automountServiceAccountToken"),
            field,
        )
        return
    sa_name = _service_account(pod)[0] or "default"
    sa = ctx.find("ServiceAccount", m.namespace, sa_name)
    if sa is not None and sa.body.get("automountServiceAccountToken") is False:
        return
    where = (
        f"ServiceAccount '{sa_name}' in this application does not set it to false either"
        if sa is not None
        else f"ServiceAccount '{sa_name}' is not in this application to say otherwise"
    )
    yield Hit(
        f"{m.label} mounts its ServiceAccount token: the pod spec leaves "
        f"automountServiceAccountToken unset and {where}, so Kubernetes mounts it: {why}. "
        f"Set {field} to false.",
        pod.parent.key_span(pod.key),
        field,
    )
