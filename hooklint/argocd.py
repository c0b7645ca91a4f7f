"""Argo CD's own parsing rules for hooks, delete policies, sync waves, Helm hooks and kind order.

Every function here restates one piece of gitops-engine or the Argo CD controller; the section of
``shared/docs/argocd-semantics.md`` (the specification) and the upstream file are named in each
docstring. ``GE/`` is ``argoproj/argo-cd`` ``gitops-engine/pkg/``; ``AC`` is ``argoproj/argo-cd``.
Functions take the annotations *as Argo CD sees them* (see :func:`visible_annotations`): a
``dict[str, str]``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from hooklint.text import go_trim_space

HOOK = "argocd.argoproj.io/hook"
HOOK_DELETE_POLICY = "argocd.argoproj.io/hook-delete-policy"
SYNC_WAVE = "argocd.argoproj.io/sync-wave"
SYNC_OPTIONS = "argocd.argoproj.io/sync-options"
HELM_HOOK = "helm.sh/hook"
HELM_HOOK_DELETE_POLICY = "helm.sh/hook-delete-policy"
HELM_HOOK_WEIGHT = "helm.sh/hook-weight"

#: ``GE/sync/common/types.go`` ``NewHookType()``: the only values gitops-engine accepts.
ARGO_HOOK_TYPES = ("PreSync", "Sync", "PostSync", "SyncFail", "Skip")
#: Controller-run hook types (``AC controller/hook.go`` ``isHookOfType``), not gitops-engine's.
DELETE_HOOK_TYPES = ("PreDelete", "PostDelete")

#: Sync phases in ``syncPhaseOrder`` order (``GE/sync/sync_tasks.go``): PreSync -1 ... SyncFail 2.
SYNC_PHASES = ("PreSync", "Sync", "PostSync", "SyncFail")
PHASE_ORDER = {"PreSync": -1, "Sync": 0, "PostSync": 1, "SyncFail": 2}
#: ``GE/sync/common/types.go`` ``NewHookDeletePolicy()``.
DELETE_POLICIES = ("HookSucceeded", "HookFailed", "BeforeHookCreation")
DEFAULT_DELETE_POLICY = "BeforeHookCreation"

#: ``GE/sync/hook/helm/type.go`` ``hookTypes``: the Helm hooks that map to a sync phase.
HELM_SYNC_HOOKS = {
    "pre-install": "PreSync",
    "pre-upgrade": "PreSync",
    "post-install": "PostSync",
    "post-upgrade": "PostSync",
}
#: ``AC controller/hook.go`` ``hookTypeAnnotations``: Helm delete hooks the controller runs.
HELM_DELETE_HOOKS = {"pre-delete": "PreDelete", "post-delete": "PostDelete"}
#: Helm hook values Argo CD never runs (``helm/type.go``; docs ``helm.md`` "Helm Hooks").
HELM_NEVER_RUN = ("test", "test-success", "test-failure", "pre-rollback", "post-rollback")
#: The Helm test events among them (``helm test`` runs them; Argo CD never does).
HELM_TEST_HOOKS = ("test", "test-success", "test-failure")
#: ``GE/sync/hook/helm/delete_policy.go``.
HELM_DELETE_POLICIES = {
    "before-hook-creation": "BeforeHookCreation",
    "hook-succeeded": "HookSucceeded",
    "hook-failed": "HookFailed",
}

#: ``GE/sync/sync_tasks.go`` ``init()``: kind order (origin Helm's ``kind_sorter.go``); §4a.
KIND_ORDER_LIST = (
    "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodSecurityPolicy",
    "PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList", "ConfigMap", "StorageClass",
    "PersistentVolume", "PersistentVolumeClaim", "CustomResourceDefinition", "ClusterRole",
    "ClusterRoleList", "ClusterRoleBinding", "ClusterRoleBindingList", "Role", "RoleList",
    "RoleBinding", "RoleBindingList", "Service", "DaemonSet", "Pod", "ReplicationController",
    "ReplicaSet", "Deployment", "HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob",
    "IngressClass", "Ingress", "APIService",
)  # fmt: skip
KIND_ORDER = {kind: i - len(KIND_ORDER_LIST) for i, kind in enumerate(KIND_ORDER_LIST)}

#: An Argo CD release as (major, minor, patch).
Version = tuple[int, int, int]

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def visible_annotations(raw: Any) -> dict[str, str]:
    """The annotations Argo CD can read: ``metadata.annotations`` only if *every* value is a string.

    ``unstructured.GetAnnotations()`` calls ``NestedStringMap`` and drops its error; that returns nil
    as soon as one value is not a string, so one unquoted ``sync-wave: 5`` hides the hook, wave and
    delete policy annotations too (§1 "Non-string annotation value"; pitfall P14)."""
    if not isinstance(raw, Mapping):
        return {}
    if all(isinstance(v, str) for v in raw.values()):
        return dict(raw)
    return {}


def annotation_csv(value: str | None) -> list[str]:
    """``GE/sync/resource/annotations.go`` ``GetAnnotationCSVs()``: split on ``,``, trim each item
    with ``strings.TrimSpace`` (:func:`~hooklint.text.go_trim_space`: ``"\x1cSkip"`` keeps its
    U+001C, so it is no hook type), drop empty items and duplicates (first occurrence kept); §2a."""
    if not value:
        return []
    out: list[str] = []
    for item in value.split(","):
        item = go_trim_space(item)
        if item and item not in out:
            out.append(item)
    return out


def atoi(text: Any) -> int | None:
    """Go ``strconv.Atoi`` on a 64-bit platform: optional ``+``/``-``, then ASCII digits only, in
    int64 range. No trimming, no ``_``, no base prefixes. None where Go returns an error (§1)."""
    if not isinstance(text, str) or not text:
        return None
    body = text[1:] if text[0] in "+-" else text
    if not body or not body.isascii() or not body.isdigit():
        return None
    significant = body.lstrip("0")  # Atoi reads leading zeros: "0" * 5000 + "1" is 1
    if len(significant) > 19:  # int64 has at most 19 digits; never int() a huge string
        return None
    value = -int(significant or "0") if text[0] == "-" else int(significant or "0")
    return value if _INT64_MIN <= value <= _INT64_MAX else None


def argo_hook_types(annotations: Mapping[str, str]) -> list[str]:
    """Valid gitops-engine hook types in ``argocd.argoproj.io/hook`` (case-sensitive; §2b)."""
    return [t for t in annotation_csv(annotations.get(HOOK)) if t in ARGO_HOOK_TYPES]


def is_helm_hook(annotations: Mapping[str, str]) -> bool:
    """``GE/sync/hook/helm/hook.go`` ``IsHook()``: ``helm.sh/hook`` present and not exactly
    ``crd-install`` (§3)."""
    return HELM_HOOK in annotations and annotations[HELM_HOOK] != "crd-install"


def helm_hook_types(annotations: Mapping[str, str]) -> list[str]:
    """``helm/type.go`` ``Types()``: ``helm.sh/hook`` values mapped to PreSync/PostSync, de-duped
    in first-seen order; every other value maps to nothing (§3)."""
    out: list[str] = []
    for item in annotation_csv(annotations.get(HELM_HOOK)):
        phase = HELM_SYNC_HOOKS.get(item)
        if phase and phase not in out:
            out.append(phase)
    return out


def hook_types(annotations: Mapping[str, str]) -> list[str]:
    """``GE/sync/hook/hook.go`` ``Types()``: the valid Argo types; only when there are none, the
    Helm types ("we ignore Helm hooks if we have Argo hook"; §2b, §3 precedence)."""
    types = argo_hook_types(annotations)
    return types if types else helm_hook_types(annotations)


def is_skip(annotations: Mapping[str, str]) -> bool:
    """``hook.go`` ``Skip()``: true only when the valid Argo types are exactly ``[Skip]`` (§2b)."""
    return argo_hook_types(annotations) == ["Skip"]


def is_hook(annotations: Mapping[str, str]) -> bool:
    """``hook.go`` ``IsHook()``: the Argo hook key is present (any value, even empty) and the object
    is not a pure Skip; otherwise the Helm rule (§2b)."""
    if HOOK in annotations:
        return not is_skip(annotations)
    return is_helm_hook(annotations)


def delete_hook_types(annotations: Mapping[str, str]) -> list[str]:
    """``AC controller/hook.go`` ``isHookOfType()``: PreDelete/PostDelete from the Argo annotation or
    ``pre-delete``/``post-delete`` from Helm's; CSV, trimmed, case-sensitive (§4d)."""
    out: list[str] = []
    for item in annotation_csv(annotations.get(HOOK)):
        if item in DELETE_HOOK_TYPES and item not in out:
            out.append(item)
    for item in annotation_csv(annotations.get(HELM_HOOK)):
        mapped = HELM_DELETE_HOOKS.get(item)
        if mapped and mapped not in out:
            out.append(mapped)
    return out


def delete_policies(annotations: Mapping[str, str]) -> list[str]:
    """``GE/sync/hook/delete_policy.go`` ``DeletePolicies()``: valid Argo policies, then Helm's
    mapped ones appended (a union, unlike hook types); unknown items ignored; when nothing valid
    remains, ``[BeforeHookCreation]`` (§2 "Delete-policy parsing", §3)."""
    out: list[str] = []
    for item in annotation_csv(annotations.get(HOOK_DELETE_POLICY)):
        if item in DELETE_POLICIES and item not in out:
            out.append(item)
    for item in annotation_csv(annotations.get(HELM_HOOK_DELETE_POLICY)):
        mapped = HELM_DELETE_POLICIES.get(item)
        if mapped and mapped not in out:
            out.append(mapped)
    return out or [DEFAULT_DELETE_POLICY]


@dataclass(frozen=True, slots=True)
class Wave:
    """A sync wave and where it came from: ``"argocd"``, ``"helm"`` or ``"default"``."""

    value: int
    source: str


def sync_wave(annotations: Mapping[str, str]) -> Wave:
    """``GE/sync/syncwaves/waves.go`` ``Wave()`` then ``hook/helm/weight.go`` ``Weight()``: a valid
    ``argocd.argoproj.io/sync-wave`` (Atoi), else a valid ``helm.sh/hook-weight`` (also for
    non-hooks), else 0. Invalid values fall back silently (§1)."""
    value = atoi(annotations.get(SYNC_WAVE))
    if value is not None:
        return Wave(value, "argocd")
    value = atoi(annotations.get(HELM_HOOK_WEIGHT))
    if value is not None:
        return Wave(value, "helm")
    return Wave(0, "default")


@dataclass(frozen=True, slots=True)
class HookInfo:
    """What Argo CD of one version does with one object, from its visible annotations: the one
    answer every rule, the plan, the fixer and the reporters read (built by :func:`hook_info`).

    - ``is_hook``: gitops-engine's ``IsHook`` (true for ignored hooks too);
    - ``types``: ``Types()`` (Argo's, else Helm's), in annotation order;
    - ``phases``: the sync phases it is applied in (``sync_phase.go`` ``syncPhases()``), in phase
      order; ``("Sync",)`` for a plain resource, ``()`` for Skip and ignored hooks;
    - ``delete_types``: the PreDelete/PostDelete types ``version`` runs it as, at Application
      deletion (:func:`run_delete_hook_types`); a ``Skip,PostDelete`` object has them too, as the
      controller reads the annotations itself;
    - ``later_delete_types``: the delete types its annotations name that ``version`` does not run,
      each with the first release that runs them as written (``(("PreDelete", (3, 3, 3)),)`` for
      ``PreSync,PreDelete`` at 3.3.2);
    - ``delete_policies``: effective policies (meaningful for hooks only);
    - ``wave``: the sync wave and its source;
    - ``from_helm``: the hook types come from ``helm.sh/hook``, because the Argo annotation holds
      no valid sync type (``Types()``; a hook with only an Argo PreDelete/PostDelete type, or an
      invalid Argo type and no Helm hook, is not ``from_helm``);
    - ``version``: the Argo CD release this answer is for."""

    is_hook: bool
    types: tuple[str, ...]
    phases: tuple[str, ...]
    delete_types: tuple[str, ...]
    delete_policies: tuple[str, ...]
    wave: Wave
    skip: bool
    from_helm: bool
    later_delete_types: tuple[tuple[str, Version], ...]
    version: Version

    @property
    def ignored(self) -> bool:
        """``GE/sync/ignore/ignore.go`` ``Ignore()``: a hook with no valid type is dropped from the
        sync entirely (it may still run at deletion, see ``delete_types``)."""
        return self.is_hook and not self.types

    @property
    def runs_as_hook(self) -> bool:
        """True when Argo CD runs this object as a hook at some point: in a sync phase or, for
        PreDelete/PostDelete, when the Application is deleted (``AC controller/hook.go``
        ``isHook``: gitops-engine's hooks, and objects of a delete type, ``Skip,PostDelete`` too)."""
        return (self.is_hook and bool(self.phases)) or bool(self.delete_types)


def _whole_delete_value(annotations: Mapping[str, str], hook_type: str) -> bool:
    """Whether ``argocd.argoproj.io/hook`` is exactly ``hook_type`` or ``helm.sh/hook`` exactly its
    Helm event: how ``isHookOfType`` matched before v3.3.3 (``val == v``, no split, no trim)."""
    helm = {v: k for k, v in HELM_DELETE_HOOKS.items()}[hook_type]
    return annotations.get(HOOK) == hook_type or annotations.get(HELM_HOOK) == helm


def delete_type_needs(annotations: Mapping[str, str], hook_type: str) -> Version:
    """The first Argo CD release that runs an object with ``annotations`` as a ``hook_type``
    (PreDelete/PostDelete) hook: the type's own release (PostDelete v2.10.0, PreDelete v3.3.0;
    §4d) when an annotation holds exactly the one type, else v3.3.3 or the type's release if later
    (``AC controller/hook.go`` ``isHookOfType`` splits the value on ``,`` only since v3.3.3; up to
    v3.3.2, and on the 3.2 and older lines, it compares the whole value: :data:`BEHAVIOURS`
    ``delete-hook-lists``)."""
    first = since(hook_type)
    return first if _whole_delete_value(annotations, hook_type) else max(first, since("delete-hook-lists"))


def run_delete_hook_types(annotations: Mapping[str, str], version: Version) -> tuple[str, ...]:
    """The PreDelete/PostDelete types Argo CD ``version`` runs an object with ``annotations`` as:
    those of :func:`delete_hook_types` that ``version`` has (:func:`supports`), written as it reads
    them (:func:`delete_type_needs`). The controller reads the annotations directly, whatever
    gitops-engine makes of them, so a ``Skip,PostDelete`` object is a PostDelete hook too."""
    lists = supports(version, "delete-hook-lists")
    return tuple(t for t in delete_hook_types(annotations)
                 if supports(version, t) and (lists or _whole_delete_value(annotations, t)))  # fmt: skip


def known_hook_types(version: Version) -> tuple[str, ...]:
    """The words ``argocd.argoproj.io/hook`` may hold for Argo CD ``version``: gitops-engine's types
    (:data:`ARGO_HOOK_TYPES`), then the delete types the controller of ``version`` has (§2b, §4d).
    Whether a delete type in a list runs is :attr:`HookInfo.delete_types`' to say."""
    return ARGO_HOOK_TYPES + tuple(t for t in DELETE_HOOK_TYPES if supports(version, t))


def hook_info(annotations: Mapping[str, str], version: "Version | None" = None) -> HookInfo:
    """What Argo CD ``version`` (default :data:`DEFAULT_VERSION`) does with an object of
    ``annotations``: a :class:`HookInfo` (``GE/sync/sync_phase.go`` ``syncPhases()``: Skip -> no
    phase; hook -> its PreSync/Sync/PostSync/SyncFail types; anything else -> Sync; the delete
    types as :func:`run_delete_hook_types` gates them)."""
    version = DEFAULT_VERSION if version is None else version
    hook = is_hook(annotations)
    types = tuple(hook_types(annotations))
    skip = is_skip(annotations)
    if skip:
        phases: tuple[str, ...] = ()
    elif hook:
        phases = tuple(p for p in SYNC_PHASES if p in types)
    else:
        phases = ("Sync",)
    written = delete_hook_types(annotations)
    runs = run_delete_hook_types(annotations, version) if written else ()
    return HookInfo(
        is_hook=hook,
        types=types,
        phases=phases,
        delete_types=runs,
        delete_policies=tuple(delete_policies(annotations)),
        wave=sync_wave(annotations),
        skip=skip,
        from_helm=hook and not argo_hook_types(annotations) and is_helm_hook(annotations),
        later_delete_types=tuple((t, delete_type_needs(annotations, t)) for t in written if t not in runs),
        version=version,
    )


def kind_order(kind: str | None) -> int:
    """``sync_tasks.go`` ``kindOrder``: ``i - 35`` for listed kinds, 0 (after all of them) for any
    other kind, custom resources included. Only the Kind string counts, not the group (§4a)."""
    return KIND_ORDER.get(kind or "", 0)


def hook_generated_name_length(generate_name: str, phase: str) -> int:
    """Length of the name Argo CD gives a ``generateName`` hook: prefix + 7 revision characters +
    ``-`` + phase in lower case + ``-`` + Unix seconds (10 digits) (§4c "generateName",
    ``sync_context.go`` ``getSyncTasks``)."""
    return len(generate_name) + 7 + 1 + len(phase) + 1 + 10


# --- Sync options ------------------------------------------------------------------------------

RESOURCE, APP = "resource", "application"
BOTH = (RESOURCE, APP)

#: §7: option key -> (values Argo CD acts on, values that restate the default, where it is read).
#: Matching is exact and case-sensitive (``HasAnnotationOption``); ``Prune=``/``Delete=`` are read
#: by ``GetAnnotationOptionValue`` (the first item with the prefix wins).
SYNC_OPTION_TABLE: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "Prune": (("false", "confirm"), ("true",), BOTH),
    "Delete": (("false", "confirm"), ("true",), BOTH),
    "Validate": (("false",), ("true",), BOTH),
    "SkipDryRunOnMissingResource": (("true",), ("false",), BOTH),
    "PruneLast": (("true",), ("false",), BOTH),
    "Replace": (("true",), ("false",), BOTH),
    "Force": (("true",), ("false",), (RESOURCE,)),
    "ServerSideApply": (("true", "false"), (), BOTH),
    "CreateNamespace": (("true",), ("false",), (APP,)),
    "ApplyOutOfSyncOnly": (("true",), ("false",), (APP,)),
    "PrunePropagationPolicy": (("foreground", "background", "orphan"), (), (APP,)),
    "FailOnSharedResource": (("true",), ("false",), (APP,)),
    "RespectIgnoreDifferences": (("true",), ("false",), (APP,)),
    "ClientSideApplyMigration": (("false",), ("true",), (APP,)),
    # gitops-engine constant (``GE/sync/common/types.go``), not in Argo CD's documentation.
    "ControllerReferencesOnly": (("true",), ("false",), BOTH),
}


# --- Argo CD versions ---------------------------------------------------------------------------

#: Every Argo CD release hooklint knows: (major, minor) -> its newest patch, from the upstream
#: ``vX.Y.Z`` release tags (``git tag`` of argoproj/argo-cd; the snapshot's newest tag is v3.5.1,
#: of 2026-08-12). Its master (``VERSION`` 3.6.0, 2026-08-22) is the 3.6 line before its release:
#: read from the v3.5.0-rc1 branch point on, it changes nothing hooklint models (the
#: ``argocd.argoproj.io/ignore-restart-policy`` Pod annotation, #28249, is not honoured on hooks;
#: a suspended Job's health keeps status Suspended, only its message changed, #28738; #27136 and
#: #28440 change how Replace=true and client-side apply write fields, not when or in which order),
#: so a newer ``argocd-version`` is read as v3.5.1 (:func:`read_version`). Three changes of that
#: master touch what hooklint models and are pinned in ``tests/test_argocd36.py``: an
#: ApplicationSet that generates an Application with no name is refused (#28833; v3.5.1's API server
#: refuses it too, so hooklint reports it at every version), RollingSync faults become the
#: ``InvalidRolloutConfig`` condition (#27820; HL404 says so; the selection itself is unchanged), and
#: ``directory.disableExtensionFilter`` (#28571) is a 3.6 field v3.5.1 does not read. New Lua health
#: checks of that master (``pulumi.com/Stack``, AWS ACK kinds) are not in :func:`has_health_check`.
RELEASES: dict[tuple[int, int], int] = {
    (1, 0): 2, (1, 1): 2, (1, 2): 5, (1, 3): 6, (1, 4): 3, (1, 5): 8, (1, 6): 2, (1, 7): 14, (1, 8): 7,
    (2, 0): 5, (2, 1): 16, (2, 2): 16, (2, 3): 17, (2, 4): 28, (2, 5): 22, (2, 6): 15, (2, 7): 18,
    (2, 8): 21, (2, 9): 22, (2, 10): 20, (2, 11): 14, (2, 12): 13, (2, 13): 9, (2, 14): 21,
    (3, 0): 23, (3, 1): 16, (3, 2): 12, (3, 3): 14, (3, 4): 7, (3, 5): 1,
}  # fmt: skip
#: The oldest and newest releases hooklint knows.
OLDEST_RELEASE: Version = (1, 0, 0)
NEWEST_RELEASE: Version = (3, 5, 1)
#: How many of the newest minor lines still get patch releases (upstream
#: ``docs/developer-guide/release-process-and-cadence.md`` "Patch Releases": "Only the three most
#: recent minor versions are eligible for patch releases"): a patch newer than hooklint knows on
#: one of them is read as that line's newest known patch; on an older line it is refused.
PATCHED_LINES = 3

#: The Argo CD version rules follow when the configuration names none (``argocd-version``): the
#: newest release, whose code ``shared/docs/argocd-semantics.md`` restates.
DEFAULT_VERSION: Version = NEWEST_RELEASE

_VERSION_FORM = re.compile(r"v?(\d+)\.(\d+)(?:\.(\d+))?")


def read_version(text: str) -> tuple[Version, str | None]:
    """``argocd-version`` as a release, and a note when hooklint reads it as another one.

    ``MAJOR.MINOR`` means that minor's newest patch (``3.3`` is 3.3.14), ``MAJOR.MINOR.PATCH`` a
    release (a leading ``v`` is allowed). A version newer than every release hooklint knows
    (``3.6``, ``4.0``) is read as :data:`NEWEST_RELEASE`, and a patch newer than hooklint knows on
    one of the :data:`PATCHED_LINES` newest lines (``3.5.8``) as that line's newest known patch;
    the note says so in one sentence (``argocd-version '3.6' is newer than ...``), None otherwise.
    Raises ValueError, naming the known range, for a malformed version, an unknown line older than
    the newest (``2.15``, ``0.9``) and a patch an ended line never had (``3.2.99``)."""
    stripped = text.strip()
    match = _VERSION_FORM.fullmatch(stripped)
    known = f"hooklint knows Argo CD {version_text(OLDEST_RELEASE)} to {version_text(NEWEST_RELEASE)}"
    if not match:
        raise ValueError(f"argocd-version must look like \"3.3\" or \"2.14.1\", not {text!r}")
    major, minor = int(match.group(1)), int(match.group(2))
    newest = RELEASES.get((major, minor))
    if newest is None:
        if (major, minor) > NEWEST_RELEASE[:2]:
            newest_text = version_text(NEWEST_RELEASE)
            return NEWEST_RELEASE, (f"argocd-version {stripped!r} is newer than the newest Argo CD release "
                                    f"hooklint knows ({newest_text}): rules follow {newest_text}")  # fmt: skip
        raise ValueError(f"argocd-version {stripped!r} is not an Argo CD release: {known}")
    if match.group(3) is None:
        return (major, minor, newest), None
    patch = int(match.group(3))
    if patch <= newest:
        return (major, minor, patch), None
    line_newest = (major, minor, newest)
    if (major, minor) in sorted(RELEASES)[-PATCHED_LINES:]:
        return line_newest, (f"argocd-version {stripped!r} is newer than the newest {major}.{minor} release "
                             f"hooklint knows ({version_text(line_newest)}): rules follow {version_text(line_newest)}")  # fmt: skip
    raise ValueError(f"argocd-version {stripped!r} is not an Argo CD release (the newest {major}.{minor} "
                     f"is {major}.{minor}.{newest}): {known}")  # fmt: skip


@dataclass(frozen=True, slots=True)
class Behaviour:
    """Argo CD behaviour that hooklint models and that some release introduced: ``since`` is the
    first release with it, ``what`` says what changed and where upstream; ``backports`` are the
    first releases of older minor lines that got it too (a (major, minor, patch) per line)."""

    since: Version
    what: str
    backports: tuple[Version, ...] = ()


#: (group, kind) pairs with a built-in health check (``GE pkg/health/health.go``
#: ``GetHealthCheckFunc``); every other kind of Kubernetes' own API groups has none, while a custom
#: resource may have one from Argo CD's bundled Lua scripts (``resource_customizations/``) (§5a).
BUILTIN_HEALTH_CHECKS = frozenset({
    ("apps", "Deployment"), ("apps", "StatefulSet"), ("apps", "ReplicaSet"), ("apps", "DaemonSet"),
    ("extensions", "Deployment"), ("extensions", "Ingress"), ("extensions", "ReplicaSet"),
    ("extensions", "DaemonSet"), ("argoproj.io", "Workflow"), ("apiregistration.k8s.io", "APIService"),
    ("networking.k8s.io", "Ingress"), ("", "Service"), ("", "PersistentVolumeClaim"), ("", "Pod"),
    ("batch", "Job"), ("autoscaling", "HorizontalPodAutoscaler"),
})  # fmt: skip

#: The API group of Argo CD's own kinds (Application, ApplicationSet, AppProject) and of the
#: Argo CD operator's ``ArgoCD``.
ARGO_GROUP = "argoproj.io"


def is_argo_kind(api_version: object, kind: object, *kinds: str) -> bool:
    """Whether an object with ``apiVersion`` and ``kind`` as written (any types) is one of Argo
    CD's ``kinds``: ``kind`` among them and the group of ``apiVersion`` (before its ``/``; any
    version) ``argoproj.io``, as the controller tells a child Application of an app of apps
    (``res.Kind == application.ApplicationKind && res.Group == application.Group``,
    ``controller/health.go``, v3.5.1)."""
    return (kind in kinds and isinstance(api_version, str) and "/" in api_version
            and api_version.split("/", 1)[0] == ARGO_GROUP)  # fmt: skip


#: Kubernetes' own API groups. Argo CD bundles no Lua health script for their kinds (only actions
#: for apps and batch), so a kind of these groups outside :data:`BUILTIN_HEALTH_CHECKS` has no
#: health check unless argocd-cm configures one.
KUBERNETES_GROUPS = frozenset({
    "", "apps", "batch", "autoscaling", "policy", "extensions", "rbac.authorization.k8s.io",
    "networking.k8s.io", "storage.k8s.io", "scheduling.k8s.io", "coordination.k8s.io",
    "discovery.k8s.io", "node.k8s.io", "admissionregistration.k8s.io", "apiextensions.k8s.io",
    "apiregistration.k8s.io", "certificates.k8s.io", "flowcontrol.apiserver.k8s.io", "events.k8s.io",
    "resource.k8s.io",
})  # fmt: skip


def lacks_health_check(group: str, kind: str | None) -> bool:
    """True when Argo CD surely has no built-in health check for ``group``/``kind``: a kind of
    Kubernetes' own groups outside :data:`BUILTIN_HEALTH_CHECKS` (a ConfigMap, a Secret, a
    ServiceAccount). False for those with one, and for custom resources, which a bundled Lua
    script may cover."""
    return group in KUBERNETES_GROUPS and (group, kind) not in BUILTIN_HEALTH_CHECKS


#: The bundled Lua health checks, read once from ``argocd_health.txt`` (see :func:`has_health_check`).
_LUA_HEALTH: tuple[frozenset[tuple[str, str]], tuple[tuple[str, str], ...]] | None = None


def _lua_health() -> tuple[frozenset[tuple[str, str]], tuple[tuple[str, str], ...]]:
    """(exact (group, kind) pairs, glob patterns) of ``argocd_health.txt``; a ``_`` of a folder
    name stands for ``*`` (``util/lua/lua.go`` ``getGlobHealthScriptPaths``)."""
    global _LUA_HEALTH
    if _LUA_HEALTH is None:
        from importlib.resources import files

        exact: set[tuple[str, str]] = set()
        globs: list[tuple[str, str]] = []
        text = files("hooklint").joinpath("argocd_health.txt").read_text(encoding="utf-8")
        for line in text.splitlines():
            line = line.strip()
            if not line or line.startswith("#") or "/" not in line:
                continue
            group, kind = line.rsplit("/", 1)
            if "_" in group or kind == "_":
                globs.append((group.replace("_", "*"), kind.replace("_", "*")))
            else:
                exact.add((group, kind))
        _LUA_HEALTH = frozenset(exact), tuple(globs)
    return _LUA_HEALTH


def has_health_check(group: str, kind: str | None) -> bool:
    """True when Argo CD has a health check for ``group``/``kind`` without any argocd-cm
    configuration: a built-in Go check (:data:`BUILTIN_HEALTH_CHECKS`, ``GE pkg/health/health.go``
    ``GetHealthCheckFunc``) or a Lua script bundled in ``resource_customizations/<group>/<kind>/
    health.lua`` (``util/lua/lua.go`` ``GetHealthScript``), exact or by a glob folder such as
    ``_.crossplane.io/_`` (``*.crossplane.io/*``, matched as ``doublestar`` matches it: ``*``
    never spans a ``/``). The Lua list is the one of Argo CD v3.5.1 for every configured
    version (``argocd_health.txt``): a kind that gained its script later counts as checked,
    which keeps the rules that need "no health check" silent rather than wrong."""
    if not kind:
        return False
    if (group, kind) in BUILTIN_HEALTH_CHECKS:
        return True
    exact, globs = _lua_health()
    if (group, kind) in exact:
        return True
    from fnmatch import fnmatchcase

    return any(fnmatchcase(group, g) and fnmatchcase(kind, k) for g, k in globs)


#: The Argo CD releases whose sync dry-run really applies an object synced with server-side apply
#: (``[first, end)`` ranges): ``applyObject`` (``GE pkg/sync/sync_context.go``) runs the dry-run
#: that starts every sync with ``cmdutil.DryRunClient`` and still passes ``serverSideApply``, and
#: kubectl's apply sends a server-side apply patch without dry-run unless the strategy is
#: ``DryRunServer``. Confirmed at the gitops-engine commits each release pins in its go.mod:
#: v2.5.0 (98ccd3d, the first with application-level ``ServerSideApply=true``) to v2.9.22
#: (c68bce0) pass it; v2.10.0 (792124280, gitops-engine PR #564) sets ``serverSideApply :=
#: !dryRun && ...``; v2.14.0 (c19f8cf, PR #634 ``shouldUseServerSideApply``) tests only
#: ``sc.dryRun`` (the whole operation's) again, up to v2.14.6 (43fce7c); v2.14.7 (0fa7514) and
#: v3.0.0 (7258614) pass the dry-run flag (gitops-engine PR #699, argo-cd #21858).
SSA_DRY_RUN_APPLIES: tuple[tuple[Version, Version], ...] = (((2, 5, 0), (2, 10, 0)), ((2, 14, 0), (2, 14, 7)))


def ssa_dry_run_applies(version: Version) -> bool:
    """True when Argo CD ``version`` applies server-side-applied objects for real during the
    sync's dry-run (:data:`SSA_DRY_RUN_APPLIES`)."""
    return any(first <= version < end for first, end in SSA_DRY_RUN_APPLIES)


#: Every version-gated behaviour, in one table read by the model, the plan and the rules.
BEHAVIOURS: dict[str, Behaviour] = {
    "pull-forward": Behaviour((2, 0, 0), "Namespace/CRD dependencies pulled forward before their first "
                              "dependant (GE/sync/sync_tasks.go adjustDeps, gitops-engine PR #225; §4b)"),
    "PostDelete": Behaviour((2, 10, 0), "PostDelete hooks run after the Application's resources are "
                            "deleted (AC controller/hook.go, PR #16595; §4d)"),
    "hook-finalizer": Behaviour((3, 0, 0), "hooks carry a finalizer until Argo CD has seen them finish, "
                                "so a Job's ttlSecondsAfterFinished cannot hide its completion (§6)"),
    "resource-force": Behaviour((2, 11, 1), "Force=true is read from a resource's sync-options "
                                "annotation (GE/sync/sync_context.go applyObject, SyncOptionForce; "
                                "gitops-engine fbecbb8, #560, pinned by argo-cd v2.11.1 and v2.10.10; "
                                "before, only the sync operation's force flag counted; §7)",
                                backports=((2, 10, 10),)),
    "appset-rollout-health": Behaviour((3, 2, 0), "an ApplicationSet is Progressing while its "
                                       "RolloutProgressing condition is True (a RollingSync rollout): "
                                       "resource_customizations/argoproj.io/ApplicationSet/health.lua, "
                                       "PR #23506; before, Healthy once ResourcesUpToDate; §5a"),
    "app-skip-dry-run": Behaviour((3, 1, 0), "SkipDryRunOnMissingResource=true is read from an "
                                  "Application's spec.syncPolicy.syncOptions (PR #22679; §7)"),
    "PreDelete": Behaviour((3, 3, 0), "PreDelete hooks run before the Application's resources are "
                           "deleted (AC controller/hook.go, PR #22288; §4d)"),
    "post-delete-without-health": Behaviour((2, 12, 0), "a PostDelete hook of a kind with no health "
                                            "check counts as Healthy; from 2.10.0 to 2.11.14 "
                                            "executePostDeleteHooks read the missing health and the "
                                            "controller panicked (AC controller/hook.go, fix #18270 / "
                                            "PR #18828 in v2.12.0; §4d)"),
    "helm4": Behaviour((3, 5, 0), "Helm charts are rendered with Helm 4, before with Helm 3 (AC "
                       "hack/tool-versions.sh: helm3_version=3.19.4 at v3.4.7, helm4_version=4.2.1 at "
                       "v3.5.0, PR #28076 'Migrate from Helm 3 to Helm 4'; util/helm/cmd.go NewCmd at "
                       "v3.5.0: 'We now support v4 only'; go.mod links no Helm: Argo CD runs the binary)"),
    "delete-hook-lists": Behaviour((3, 3, 3), "a PreDelete/PostDelete hook annotation is read as a list "
                                   "(AC controller/hook.go isHookOfType splits on ','; up to v3.3.2 and "
                                   "on the 3.2 and older lines the whole value must be the one type)"),
    "yaml-separator-comments": Behaviour((2, 2, 0), "a line '---' followed by a '#' comment ends a YAML "
                                         "document, and one followed by other text fails the source ('invalid "
                                         "Yaml document separator'): k8s.io/apimachinery pkg/util/yaml/decoder.go "
                                         "YAMLReader.Read, f1aad3e3 in v0.22.0, pinned from argo-cd v2.2.0 "
                                         "(v0.22.2); before, only '---' and spaces was a separator and any other "
                                         "'---' line was text in the document"),
    "json-one-value": Behaviour((2, 5, 0), "a directory source's .json file is read with json.NewDecoder: one "
                                "value, then decoder.More() fails the sync on anything but whitespace, ']' "
                                "or '}' after it (AC reposerver/repository/repository.go getObjsFromYAMLOrJSON, "
                                "GHSA-jhqp-vf4w-rpwq, f9c3319); before, json.Unmarshal of the whole file "
                                "refuses ']' and '}' too", backports=((2, 4, 1), (2, 3, 5), (2, 2, 10), (2, 1, 16))),
    "json-oci-fallback": Behaviour((3, 1, 0), "a .json object that does not decode into an object with a kind "
                                   "is decoded as an OCI image manifest (imagev1.Manifest) and, when that "
                                   "succeeds, kept (AC reposerver/repository/repository.go "
                                   "getObjsFromYAMLOrJSON, PR #18646 'oci support'): a list's items are "
                                   "applied, a null list is passed over; before, the sync fails"),
    "appset-normalize": Behaviour((2, 8, 0), "the ApplicationSet controller creates each Application with its "
                                  "spec normalized (NormalizeApplicationSpec: an empty directory, helm or kustomize "
                                  "dropped), so its first comparison is the steady one "
                                  "(applicationset/controllers/applicationset_controller.go, in 2.8.0 and 2.7.8)",
                                  backports=((2, 7, 8),)),
    # spec.source.kustomize options (AC util/kustomize/kustomize.go Build; an older Argo CD's CRD
    # schema drops a field it does not have, so the option is ignored there)
    "kustomize-force-metadata": Behaviour((2, 1, 0), "kustomize.forceCommonLabels/forceCommonAnnotations run "
                                          "kustomize edit add label/annotation --force (PR #6443)"),
    "kustomize-envsubst": Behaviour((2, 7, 0), "kustomize.commonLabels values, and commonAnnotations values "
                                    "with commonAnnotationsEnvsubst, are substituted from the build environment "
                                    "(Env.Envsubst, PR #11345)"),
    "kustomize-replicas": Behaviour((2, 7, 0), "kustomize.replicas runs kustomize edit set replicas (PR #11665)"),
    "kustomize-image-envsubst": Behaviour((2, 7, 4), "kustomize.images are substituted from the build "
                                          "environment (PR #13745)"),
    "kustomize-label-without-selector": Behaviour((2, 11, 0), "kustomize.labelWithoutSelector runs kustomize edit "
                                                  "add label --without-selector (PR #17329)"),
    "kustomize-label-include-templates": Behaviour((3, 0, 0), "kustomize.labelIncludeTemplates runs kustomize edit "
                                                   "add label --include-templates (PR #22069)"),
    "kustomize-label-groups": Behaviour((3, 0, 0), "kustomize edit add label --without-selector merges into the "
                                        "first labels entry of the same settings, refusing a key there without "
                                        "--force (kustomize v5.6.0, 70e4d2e; AC hack/tool-versions.sh "
                                        "kustomize5_version=5.6.0 from v3.0.0, 5.4.3 at v2.14); before, it "
                                        "appended a new entry"),
    "kustomize-ignore-missing-components": Behaviour((3, 0, 0), "kustomize.ignoreMissingComponents adds only the "
                                                     "components that exist in the checkout (PR #21674)"),
}


#: The kustomize each Argo CD release renders kustomizations with, as ``(first release, kustomize
#: version)`` from oldest to newest: ``hack/tool-versions.sh`` ``kustomize5_version`` (``kustomize4_``
#: / ``kustomize3_`` before 2.7) at each release tag, installed by ``hack/installers/install-kustomize.sh``
#: into the repo server image. Every patch of a minor line has its first release's kustomize except
#: 3.3.0 (5.8.0; 5.8.1 from 3.3.1). Before 2.0 Argo CD ran kustomize 3 or older (the Dockerfile's
#: ``KUSTOMIZE_VERSION``: 2.0.3 at 1.0, 3.1.0 at 1.2, 3.6.1 at 1.6, 3.8.1 at 1.8; 1.3 to 1.5 pin it
#: elsewhere and are read as 1.2's: every one is older than any change hooklint checks for).
KUSTOMIZE_VERSIONS: tuple[tuple[Version, Version], ...] = (
    ((1, 0, 0), (2, 0, 3)), ((1, 2, 0), (3, 1, 0)), ((1, 6, 0), (3, 6, 1)), ((1, 8, 0), (3, 8, 1)),
    ((2, 0, 0), (3, 9, 4)), ((2, 1, 0), (4, 2, 0)), ((2, 3, 0), (4, 4, 1)), ((2, 5, 0), (4, 5, 7)),
    ((2, 7, 0), (5, 0, 1)), ((2, 8, 0), (5, 1, 0)), ((2, 9, 0), (5, 2, 1)), ((2, 12, 0), (5, 4, 2)),
    ((2, 13, 0), (5, 4, 3)), ((3, 0, 0), (5, 6, 0)), ((3, 1, 0), (5, 7, 0)), ((3, 3, 0), (5, 8, 0)),
    ((3, 3, 1), (5, 8, 1)),
)  # fmt: skip


def kustomize_version(version: Version) -> Version:
    """The kustomize version Argo CD ``version`` renders kustomizations with
    (:data:`KUSTOMIZE_VERSIONS`): ``(5, 8, 1)`` for 3.5.1, ``(5, 4, 3)`` for 2.14.0."""
    found = KUSTOMIZE_VERSIONS[0][1]
    for first, kustomize in KUSTOMIZE_VERSIONS:
        if version >= first:
            found = kustomize
    return found


def supports(version: Version, behaviour: str) -> bool:
    """True when Argo CD ``version`` has ``behaviour`` (a key of :data:`BEHAVIOURS`): from its
    ``since`` release on, or from a backport's release on within that backport's minor line."""
    entry = BEHAVIOURS[behaviour]
    return version >= entry.since or any(version[:2] == b[:2] and version >= b for b in entry.backports)


def helm_major(version: Version) -> int:
    """The Helm major Argo CD ``version`` renders charts with: 4 from 3.5.0, else 3 (see
    :data:`BEHAVIOURS` ``helm4``; hooklint renders no Helm 2)."""
    return 4 if supports(version, "helm4") else 3


def since(behaviour: str) -> Version:
    """The first release with ``behaviour`` (a key of :data:`BEHAVIOURS`)."""
    return BEHAVIOURS[behaviour].since


def version_text(version: Version) -> str:
    """``2.10.4``; ``3.3`` for a ``.0`` release (how the table's first releases are written)."""
    major, minor, patch = version
    return f"{major}.{minor}" if patch == 0 else f"{major}.{minor}.{patch}"


# --- where Argo CD's control plane runs -----------------------------------------------------------

#: The namespaces Argo CD's control plane runs in by default: the stock install's ``argocd`` and
#: OpenShift GitOps' ``openshift-gitops``; the first is the one an Application's name is read
#: against when nothing else is known and it does not matter (:func:`instance_names`).
CONTROL_PLANE_NAMESPACES = ("argocd", "openshift-gitops")
#: The ConfigMaps Argo CD reads from its own namespace (argo-cd v3.5.1 ``manifests/install.yaml``;
#: ``argocd-cmd-params-cm`` holds ``application.namespaces``, the apps-in-any-namespace list).
CONTROL_PLANE_CONFIG_MAPS = ("argocd-cm", "argocd-cmd-params-cm")
#: The names of Argo CD's components (argo-cd v3.5.1 ``manifests/install.yaml``: each a
#: ServiceAccount and a Deployment or StatefulSet of that name), which tell Argo CD's namespace.
ARGOCD_COMPONENTS = ("argocd-application-controller", "argocd-server", "argocd-repo-server",
                     "argocd-applicationset-controller", "argocd-notifications-controller", "argocd-dex-server",
                     "argocd-redis", "argocd-commit-server")  # fmt: skip


@dataclass(frozen=True, slots=True)
class ControlPlane:
    """Where Argo CD's control plane may run, for one run (:func:`control_plane_namespaces`).
    ``configured``: the ``argocd-namespace`` configuration (the application controller's namespace,
    known), or None; ``namespaces``: every namespace that may be Argo CD's (sorted): the
    configured one, :data:`CONTROL_PLANE_NAMESPACES`, and those the run's objects say."""

    configured: str | None = None
    namespaces: tuple[str, ...] = CONTROL_PLANE_NAMESPACES

    def instance_names(self, name: str, namespace: object) -> tuple[str, ...]:
        """Every name Argo CD's controller may give the repo server for the Application ``name``
        of ``namespace`` (:func:`instance_name` with each namespace the controller may run in), the
        one hooklint reads first: one name when ``configured`` is set or the namespace is unset;
        one name (``name``) when the Application lives in one of :attr:`namespaces`: the controller
        is taken to run in the Application's own namespace, where Argo CD keeps its Applications
        (one elsewhere is reconciled only when ``application.namespaces``, apps in any namespace,
        lists that namespace, which a namespace Argo CD itself runs in would not be); else the
        name read against ``argocd`` (or the first of :attr:`namespaces`) first, then the others.
        The Application's own namespace is then one the controller may run in too (a control plane
        installed there, its ConfigMaps outside the repository), so ``<namespace>_<name>`` is never
        the only answer."""
        if self.configured is not None:
            return (instance_name(name, namespace, self.configured),)
        if isinstance(namespace, str) and namespace in self.namespaces:
            return (name,)
        first = CONTROL_PLANE_NAMESPACES[0] if CONTROL_PLANE_NAMESPACES[0] in self.namespaces else self.namespaces[0]
        names = [instance_name(name, namespace, first)]
        for candidate in (*self.namespaces, *([namespace] if isinstance(namespace, str) and namespace else [])):
            named = instance_name(name, namespace, candidate)
            if named not in names:
                names.append(named)
        return tuple(names)


def instance_name(name: str, namespace: object, control_plane: str) -> str:
    """The name Argo CD's controller gives the repo server for the Application ``name`` in
    ``namespace`` when the controller runs in ``control_plane`` (argo-cd v3.5.1
    ``pkg/apis/application/v1alpha1/types.go`` ``InstanceName``, which ``controller/state.go``
    calls with the controller's namespace, ``AppName: app.InstanceName(m.namespace)``): ``name``
    when the namespace is unset, empty or ``control_plane``, else ``<namespace>_<name>``. It names
    the ``.argocd-source-<it>.yaml`` file ``mergeSourceParameters`` reads and is
    ``ARGOCD_APP_NAME`` (``reposerver/repository/repository.go`` ``newEnv``)."""
    if not isinstance(namespace, str) or namespace in ("", control_plane):
        return name
    return f"{namespace}_{name}"


def control_plane_namespaces(configured: str | None, objects: Iterable[tuple[object, object, object]]) -> ControlPlane:
    """The :class:`ControlPlane` of a run whose configuration says ``configured``
    (``argocd-namespace``, or None) and whose objects are ``objects`` (``(kind, name, namespace)``
    each): the namespaces that may be Argo CD's are ``configured``, the defaults
    (:data:`CONTROL_PLANE_NAMESPACES`) and the namespace of each ConfigMap of
    :data:`CONTROL_PLANE_CONFIG_MAPS` and each ServiceAccount, Deployment or StatefulSet named as
    one of :data:`ARGOCD_COMPONENTS`. The one place both the Application map (an Application's
    instance name) and HL106 (a namespace whose Secrets are Argo CD's) ask."""
    found = set(CONTROL_PLANE_NAMESPACES)
    if configured:
        found.add(configured)
    for kind, name, namespace in objects:
        if not isinstance(namespace, str) or not namespace or not isinstance(name, str):
            continue
        if (kind == "ConfigMap" and name in CONTROL_PLANE_CONFIG_MAPS) or (
                kind in ("ServiceAccount", "Deployment", "StatefulSet") and name in ARGOCD_COMPONENTS):  # fmt: skip
            found.add(namespace)
    return ControlPlane(configured or None, tuple(sorted(found)))
