"""HL004, HL010-HL012, HL014, HL018, HL021: Argo CD annotation syntax and placement that Argo CD silently misreads."""

from __future__ import annotations

import difflib
import re
from typing import Iterable, Iterator

from hooklint import argocd
from hooklint.checks import Context, Hit, check
from hooklint.checks.shape import type_name
from hooklint.model import POD_TEMPLATE_KINDS, Manifest, get_map
from hooklint.text import GO_SPACE
from hooklint.yamlio import Map


def near_miss(value: str, choices: Iterable[str]) -> str | None:
    """The valid value closest to ``value`` (case-insensitive equality first, then difflib)."""
    choices = list(choices)
    for choice in choices:
        if choice.lower() == value.lower():
            return choice
    squashed = value.replace("-", "").replace("_", "").lower()
    for choice in choices:
        if choice.replace("-", "").lower() == squashed:
            return choice
    match = difflib.get_close_matches(value, choices, n=1, cutoff=0.6)
    if match:
        return match[0]
    lowered = {c.lower(): c for c in choices}
    match = difflib.get_close_matches(value.lower(), list(lowered), n=1, cutoff=0.6)
    return lowered[match[0]] if match else None


def _suggest(value: str, choices: Iterable[str]) -> str:
    guess = near_miss(value, choices)
    return f" Did you mean '{guess}'?" if guess else ""


def kept_edges(item: str) -> str | None:
    """The characters at the edges of ``item`` (an item Argo CD has trimmed) that Python's
    ``str.strip()`` would trim and Go's ``strings.TrimSpace`` keeps (U+001C-U+001F), written as
    ``U+001C`` and joined with ``, ``; None when there are none. ``GetAnnotationCSVs`` keeps them, so
    ``"\x1cSkip"`` is no ``Skip`` to Argo CD however it reads on a terminal."""
    start, end = len(item) - len(item.lstrip()), len(item.rstrip())
    found = dict.fromkeys(f"U+{ord(c):04X}" for c in item[:start] + item[end:] if c not in GO_SPACE)
    return ", ".join(found) or None


@check("HL004", annotated=True)
def annotation_value_not_string(m: Manifest, ctx: Context) -> Iterator[Hit]:
    raw = m.raw_annotations
    if raw is None:
        return
    for key, value in raw.items():
        if isinstance(value, str):
            continue
        if value is None:
            read_as = "empty (null)"
        elif isinstance(value, (bool, int, float)):
            read_as = f"read as {type_name(value)} ({str(value).lower() if isinstance(value, bool) else value})"
        else:
            read_as = type_name(value)
        yield Hit(
            f"Annotation '{key}' on {m.label} is {read_as}, not a string: Argo CD then ignores every "
            "annotation of the object (hook, sync-wave, delete policy) and the API server rejects "
            "it. Quote the value as you mean it, e.g. \"5\" or \"true\".",
            raw.value_span(key),
            f"metadata.annotations.{key}",
        )


@check("HL010", annotated=True)
def unknown_hook_type(m: Manifest, ctx: Context) -> Iterator[Hit]:
    value = m.annotations.get(argocd.HOOK)
    if value is None:
        return
    span = m.annotation_value_span(argocd.HOOK)
    field = f"metadata.annotations.{argocd.HOOK}"
    items = argocd.annotation_csv(value)
    version = m.hook.version
    known = argocd.known_hook_types(version)
    later = dict(m.hook.later_delete_types)
    dropped = m.hook.ignored and not m.hook.delete_types
    if not items:
        yield Hit(
            f"Annotation {argocd.HOOK} on {m.label} is empty: Argo CD treats the object as a hook "
            "with no type and silently never applies it. Set a hook type (PreSync, Sync, PostSync, "
            "SyncFail, Skip) or remove the annotation.",
            span,
            field,
        )
        return
    valid_argo = argocd.argo_hook_types(m.annotations)
    for item in items:
        if item in later and item in known:  # a delete type this version runs only alone
            yield Hit(
                f"Hook type '{item}' on {m.label} is one of a list ('{value}'): Argo CD before "
                f"{argocd.version_text(later[item])} runs an object as a {item} hook only when the annotation "
                f"holds that one type, and argocd-version is {argocd.version_text(version)}, so the {item} "
                f"hook never runs. Upgrade Argo CD to {argocd.version_text(later[item])} or later, give the "
                f"{item} hook an object of its own, or set argocd-version to the version you run.",
                span,
                field,
            )
            continue
        if item in known:
            continue
        if item in argocd.DELETE_HOOK_TYPES:
            since = argocd.version_text(later.get(item, argocd.since(item)))
            yield Hit(
                f"Hook type '{item}' on {m.label} needs Argo CD {since} or later, and argocd-version "
                f"is {argocd.version_text(version)}: that Argo CD treats it as an unknown type, so the hook "
                "never runs. Upgrade Argo CD, or set argocd-version to the version you run.",
                span,
                field,
            )
            continue
        if dropped:
            consequence = f"Argo CD treats {m.label} as a hook with no valid type and silently never applies it"
        elif not valid_argo and m.hook.from_helm:
            consequence = (
                f"with no valid Argo CD type left, Argo CD falls back to helm.sh/hook and runs "
                f"{m.label} as a {'/'.join(m.hook.phases or m.hook.delete_types)} hook"
            )
        elif not valid_argo:
            consequence = f"Argo CD runs {m.label} only at Application deletion ({', '.join(m.hook.delete_types)})"
        else:
            consequence = f"Argo CD ignores '{item}' and keeps {', '.join(valid_argo)}"
        if item in argocd.HELM_SYNC_HOOKS or item in argocd.HELM_DELETE_HOOKS:
            hint = (
                f" '{item}' is a Helm hook: write it in helm.sh/hook, or use "
                f"'{(argocd.HELM_SYNC_HOOKS | argocd.HELM_DELETE_HOOKS)[item]}' here."
            )
        else:
            hint = _suggest(item.strip(), known)
        edges = kept_edges(item)
        reason = (f"Argo CD trims only white space around a hook type (Go's strings.TrimSpace), not {edges}"
                  if edges else "hook types are case-sensitive")  # fmt: skip
        yield Hit(
            f"Unknown hook type '{item}' on {m.label}: {reason}, and {consequence}."
            f"{hint}",
            span,
            field,
        )


@check("HL011", annotated=True)
def unknown_hook_delete_policy(m: Manifest, ctx: Context) -> Iterator[Hit]:
    for key, valid in (
        (argocd.HOOK_DELETE_POLICY, argocd.DELETE_POLICIES),
        (argocd.HELM_HOOK_DELETE_POLICY, tuple(argocd.HELM_DELETE_POLICIES)),
    ):
        value = m.annotations.get(key)
        if value is None:
            continue
        for item in argocd.annotation_csv(value):
            if item in valid:
                continue
            effective = ", ".join(m.hook.delete_policies)
            edges = kept_edges(item)
            why = f" (it trims only white space around an item, not {edges})" if edges else ""
            yield Hit(
                f"Unknown delete policy '{item}' in {key} on {m.label}: Argo CD ignores it silently{why}, "
                f"so the effective policies are {effective}.{_suggest(item.strip(), valid)}",
                m.annotation_value_span(key),
                f"metadata.annotations.{key}",
            )


@check("HL012", annotated=True)
def invalid_sync_wave(m: Manifest, ctx: Context) -> Iterator[Hit]:
    for key in (argocd.SYNC_WAVE, argocd.HELM_HOOK_WEIGHT):
        value = m.annotations.get(key)
        if value is None or argocd.atoi(value) is not None:
            continue
        wave = m.hook.wave
        if key == argocd.HELM_HOOK_WEIGHT and wave.source == "argocd":
            effect = f"it is ignored (the valid {argocd.SYNC_WAVE} sets wave {wave.value})"
        elif wave.source == "helm":
            effect = f"Argo CD silently uses {argocd.HELM_HOOK_WEIGHT} instead: wave {wave.value}"
        else:
            effect = "Argo CD silently uses wave 0"
        stripped = value.strip()
        fix = f'"{stripped}"' if stripped != value and argocd.atoi(stripped) is not None else 'a whole number such as "1" or "-2"'
        yield Hit(
            f"{key} '{value}' on {m.label} is not an integer Argo CD can read (Go strconv.Atoi: "
            f"optional sign and digits, no spaces): {effect}. Use {fix}.",
            m.annotation_value_span(key),
            f"metadata.annotations.{key}",
        )


@check("HL014")
def generate_name_without_hook(m: Manifest, ctx: Context) -> Iterator[Hit]:
    if m.metadata is None or not m.generate_name or m.name:
        return
    if m.hook.is_hook or m.hook.skip:
        return
    raw = m.raw_annotations
    hidden = raw is not None and not m.annotations and (argocd.HOOK in raw or argocd.HELM_HOOK in raw)
    what = (
        "is not a hook to Argo CD (a non-string annotation value hides all its annotations, see HL004)"
        if hidden
        else "is not a hook"
    )
    yield Hit(
        f"{m.label} uses metadata.generateName but {what}: Argo CD applies it with kubectl "
        "apply, which fails with \"cannot use generate name with apply\" and fails the whole sync "
        "at dry-run. Give it a fixed metadata.name, or make it a hook (argocd.argoproj.io/hook).",
        m.metadata.value_span("generateName"),
        "metadata.generateName",
    )


#: Annotations Argo CD (or, through its Helm mapping, Helm's) reads from an object's own metadata
#: to decide hooks, delete policies, waves and sync options (§1-§3, §7).
_SYNC_ANNOTATIONS = (argocd.HOOK, argocd.HOOK_DELETE_POLICY, argocd.SYNC_WAVE, argocd.SYNC_OPTIONS)


def _read_by_argocd(key: str) -> bool:
    return key in _SYNC_ANNOTATIONS or key.startswith("helm.sh/hook")


def _what_it_is(m: Manifest) -> str:
    """How Argo CD runs the object, from its own annotations."""
    if m.hook.skip:
        return "is skipped"
    if m.hook.is_hook and m.hook.phases:
        return f"runs as a {'/'.join(m.hook.phases)} hook in wave {m.hook.wave.value}"
    if m.hook.is_hook and m.hook.delete_types:
        return f"runs as a {'/'.join(m.hook.delete_types)} hook"
    if m.hook.is_hook:
        return "is an ignored hook"
    return f"is applied as a plain resource in Sync wave {m.hook.wave.value}"


@check("HL018", kinds=POD_TEMPLATE_KINDS - {"Pod"})
def hook_annotation_on_pod_template(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """Hook, delete-policy, wave and sync-option annotations (Argo CD's or Helm's) on a pod
    template's metadata: Argo CD reads them from the object's own ``metadata.annotations`` only
    (``GE/sync/hook``, ``syncwaves/waves.go``, ``common/types.go`` all take the object's
    annotations). Not reported when the object's own metadata has the same key with the same value
    (kustomize's ``commonAnnotations`` writes both places)."""
    keys = m.pod_spec_path
    if keys is None:
        return
    template: Map | None = m.body
    for key in keys[:-1]:
        template = get_map(template, key)
        if template is None:
            return
    annotations = get_map(get_map(template, "metadata"), "annotations")
    if annotations is None:
        return
    own = m.raw_annotations
    path = ".".join(keys[:-1]) + ".metadata.annotations"
    for key in annotations:
        if not isinstance(key, str) or not _read_by_argocd(key):
            continue
        value = annotations.get(key)
        if own is not None and key in own and own.get(key) == value:
            continue
        shown = f"'{value}'" if isinstance(value, str) else repr(value)
        differs = (
            f" (the object's own metadata says '{own.get(key)}')"
            if own is not None and key in own and isinstance(own.get(key), str)
            else ""
        )
        yield Hit(
            f"{key} {shown} is on the pod template of {m.label} ({path}), where Argo CD never reads "
            f"it{differs}: it reads hook, delete-policy, wave and sync-option annotations from the "
            f"object's own metadata only, so {m.label} {_what_it_is(m)}. Move it to "
            "metadata.annotations.",
            annotations.key_span(key),
            f"{path}.{key}",
        )


# --- HL021 -------------------------------------------------------------------------------------

#: ``argocd.argoproj.io/`` labels Argo CD (or its operator) really reads, confirmed at v3.5.1:
#: ``instance``, the tracking label its documentation recommends for
#: ``application.instanceLabelKey`` (``docs/user-guide/annotations-and-labels.md``,
#: ``resource_tracking.md``; the built-in default is ``app.kubernetes.io/instance``,
#: ``common/common.go`` ``LabelKeyAppInstance``); ``secret-type`` on its repository, cluster and
#: credential Secrets (``LabelKeySecretType``); ``auto-label-cluster-info`` and
#: ``kubernetes-version`` on cluster Secrets (``LabelKeyAutoLabelClusterInfo``,
#: ``LabelKeyClusterKubernetesVersion``); ``managed-by``, the argocd-operator's Namespace label.
ARGOCD_LABELS = frozenset({
    "argocd.argoproj.io/instance", "argocd.argoproj.io/secret-type", "argocd.argoproj.io/managed-by",
    "argocd.argoproj.io/auto-label-cluster-info", "argocd.argoproj.io/kubernetes-version",
})  # fmt: skip

#: Annotation keys Argo CD reads from a resource's ``metadata.annotations`` (the table of
#: ``docs/user-guide/annotations-and-labels.md`` at v3.5.1 and ``common/common.go``).
ARGOCD_ANNOTATIONS = frozenset({
    argocd.HOOK, argocd.HOOK_DELETE_POLICY, argocd.SYNC_WAVE, argocd.SYNC_OPTIONS,
    "argocd.argoproj.io/compare-options", "argocd.argoproj.io/tracking-id",
    "argocd.argoproj.io/ignore-healthcheck", "argocd.argoproj.io/ignore-resource-updates",
    "argocd.argoproj.io/ignore-default-links", "argocd.argoproj.io/manifest-generate-paths",
    "argocd.argoproj.io/refresh", "argocd.argoproj.io/skip-reconcile", "argocd.argoproj.io/managed-by-url",
    "argocd.argoproj.io/application-set-refresh",
})  # fmt: skip


#: A valid label value (``k8s.io/apimachinery`` ``validation.IsValidLabelValue``).
LABEL_VALUE = re.compile(r"(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?")


@check("HL021")
def argocd_key_in_labels(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """An ``argocd.argoproj.io/*`` or ``helm.sh/hook*`` key in the object's ``metadata.labels``:
    Argo CD takes hook types, delete policies, waves and sync options from
    ``GetAnnotations()`` only (``GE pkg/sync/hook/hook.go``, ``pkg/sync/syncwaves/waves.go``,
    ``pkg/sync/resource/annotations.go``; Helm's keys through ``pkg/sync/hook/helm``), so the
    object stays what its annotations make it. The labels Argo CD really reads
    (:data:`ARGOCD_LABELS`) are not reported, nor a key the annotations carry too (the label is
    then only a copy)."""
    labels = get_map(m.metadata, "labels")
    if labels is None:
        return
    own = m.raw_annotations
    for key in labels:
        if not isinstance(key, str) or key in ARGOCD_LABELS:
            continue
        if not (key.startswith("argocd.argoproj.io/") or key.startswith("helm.sh/hook")):
            continue
        if own is not None and key in own:
            continue
        value = labels.get(key)
        if isinstance(value, str) and not LABEL_VALUE.fullmatch(value):
            message = (f"{key} is a label of {m.label}, but Argo CD reads it only from metadata.annotations, "
                       f"and '{value}' is no valid label value (at most 63 letters, digits, '-', '_' or '.', "
                       f"starting and ending with a letter or digit), so the API server rejects {m.label} and "
                       "the sync fails. Move it to metadata.annotations.")  # fmt: skip
        elif key in ARGOCD_ANNOTATIONS or key.startswith("helm.sh/hook"):
            effect = f"so {m.label} {_what_it_is(m)}"
            if key == argocd.SYNC_OPTIONS:
                effect = "so none of these sync options applies"
            elif key not in _SYNC_ANNOTATIONS and not key.startswith("helm.sh/hook"):
                effect = "so it has no effect"
            message = (f"{key} is a label of {m.label}, but Argo CD reads it only from "
                       f"metadata.annotations, {effect}. Move it to metadata.annotations.")  # fmt: skip
        else:
            message = (
                f"{key} is a label of {m.label}, but Argo CD reads no label of that name (the "
                "argocd.argoproj.io/ labels it reads are argocd.argoproj.io/instance, as a tracking label, "
                "and argocd.argoproj.io/secret-type on its own Secrets), so it has no effect on the sync. "
                "If it is meant as an Argo CD setting, move it to metadata.annotations; else use a "
                "key of your own domain."
            )
        yield Hit(message, labels.key_span(key), f"metadata.labels.{key}")
