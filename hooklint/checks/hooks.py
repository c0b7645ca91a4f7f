"""HL013, HL015-HL017, HL020, HL023: hook and sync-option annotations Argo CD reads differently than written.

Each check restates a piece of ``shared/docs/argocd-semantics.md``: sync options §7, the Helm hook
mapping §3, hook type precedence and Skip §2b, delete hooks §4d.
"""

from __future__ import annotations

from typing import Iterator

from hooklint import argocd
from hooklint.checks import Context, Hit, check
from hooklint.checks.annotations import kept_edges, near_miss
from hooklint.model import Manifest, get_map
from hooklint.text import go_trim_space
from hooklint.argocd import APP, RESOURCE, SYNC_OPTION_TABLE, version_text
from hooklint.yamlio import Seq

FIRST_WINS = ("Prune", "Delete")
ALL_OPTIONS = tuple(f"{k}={v}" for k, (eff, _noop, _w) in SYNC_OPTION_TABLE.items() for v in eff)
_KEYS_LOWER = {k.lower(): k for k in SYNC_OPTION_TABLE}
#: Sync options that replace, force-recreate or change how deletions cascade (``GE/sync/sync_context.go``:
#: ``Replace=true`` runs ``kubectl replace``/create instead of apply, ``Force=true`` deletes and
#: recreates, ``PrunePropagationPolicy`` decides what a prune deletes with its owner). They are
#: suggested only when a typo matches one exactly but for case or spaces, never by spelling distance:
#: ``Retry=true`` is one letter-shuffle from ``Replace=true`` and means something else entirely.
DESTRUCTIVE_KEYS = ("Replace", "Force", "PrunePropagationPolicy")
#: Words written as sync options that are Application fields (``spec.syncPolicy``, Argo CD's
#: ``SyncPolicy``/``SyncPolicyAutomated``/``RetryStrategy`` types in ``pkg/apis/application/v1alpha1/types.go``),
#: lower-cased, with the field to set instead.
POLICY_FIELDS = {
    "retry": "to retry a failed sync, set the Application's spec.syncPolicy.retry (limit, backoff)",
    "selfheal": "to revert drift, set the Application's spec.syncPolicy.automated.selfHeal",
    "automated": "to sync automatically, set the Application's spec.syncPolicy.automated",
    "autosync": "to sync automatically, set the Application's spec.syncPolicy.automated",
    "allowempty": "to allow an empty sync, set the Application's spec.syncPolicy.automated.allowEmpty",
}


def _canonical_value(key: str, value: str) -> str | None:
    eff, noop, _ = SYNC_OPTION_TABLE[key]
    for v in eff + noop:
        if v.lower() == value.lower():
            return v
    return None


def sync_option_problem(item: str, scope: str, version: argocd.Version) -> str | None:
    """What is wrong with one sync option ``item`` (as Argo CD compares it: an item of the
    annotation trimmed by Go's ``strings.TrimSpace``, ``GetAnnotationCSVs``; an item of
    ``spec.syncPolicy.syncOptions`` whole, as ``SyncOptions.HasOption`` and ``GetOptionValue`` in
    ``pkg/apis/application/v1alpha1/types.go`` compare it, untrimmed) where ``scope`` reads it
    (``"resource"``: the ``argocd.argoproj.io/sync-options`` annotation; ``"application"``: an
    Application's ``spec.syncPolicy.syncOptions``), as a sentence fragment; None when Argo CD
    ``version`` reads it as written (or it restates the default). An item that ``str.strip()``
    would trim further (an Application's ``" Prune=false"``, an annotation's ``"\x1cPrune=false"``)
    is said to be ignored for that reason. A misspelling is matched to a
    :data:`DESTRUCTIVE_KEYS` option only but for case or spaces, never by spelling distance; a
    :data:`POLICY_FIELDS` word (``Retry=true``) names the Application field it belongs in."""
    trimmed = item.strip()
    if trimmed and trimmed != item:
        if scope == APP:
            how = ("Argo CD compares each item of spec.syncPolicy.syncOptions whole and never trims it "
                   "(SyncOptions.HasOption)")  # fmt: skip
        else:
            how = (f"Argo CD trims the items of the annotation of white space only (Go's strings.TrimSpace), "
                   f"not {kept_edges(item)}")  # fmt: skip
        suggestion = f" Did you mean '{trimmed}'?" if trimmed.partition("=")[0] in SYNC_OPTION_TABLE else ""
        return f"'{item}' is silently ignored: {how}.{suggestion}"
    key, sep, value = item.partition("=")
    if key in SYNC_OPTION_TABLE and sep:
        eff, noop, where = SYNC_OPTION_TABLE[key]
        if value in eff or value in noop:
            if scope not in where and value in eff:
                if scope == RESOURCE:
                    return (
                        f"'{item}' is an application-level option: Argo CD reads it only from the "
                        "Application's spec.syncPolicy.syncOptions and ignores it on a resource"
                    )
                return (
                    f"'{item}' is a per-resource option: Argo CD ignores it in "
                    "spec.syncPolicy.syncOptions; set it in the argocd.argoproj.io/sync-options "
                    "annotation of the resources that need it"
                )
            if (scope == RESOURCE and key == "Force" and value in eff
                    and not argocd.supports(version, "resource-force")):  # fmt: skip
                return (
                    f"'{item}' is read from the sync-options annotation only since Argo CD "
                    f"{version_text(argocd.since('resource-force'))} (and 2.10.10 on the 2.10 line; configured: "
                    f"{version_text(version)}): that Argo CD ignores it, so the object is applied, or with "
                    "Replace=true replaced, without force"
                )
            if (scope == APP and key == "SkipDryRunOnMissingResource" and value in eff
                    and not argocd.supports(version, "app-skip-dry-run")):  # fmt: skip
                return (
                    f"'{item}' is read only since Argo CD "
                    f"{version_text(argocd.since('app-skip-dry-run'))} (configured: {version_text(version)}): "
                    "set it in the argocd.argoproj.io/sync-options annotation of the custom "
                    "resources instead"
                )
            return None
        canon = _canonical_value(key, value.strip())
        if canon is not None:
            return f"'{item}' is misspelt and silently ignored. Did you mean '{key}={canon}'?"
        choices = " and ".join(f"{key}={v}" for v in eff)
        return f"'{item}' is not a value Argo CD knows and is silently ignored; it acts only on {choices}"
    squashed = item.replace(" ", "")
    if squashed != item and squashed in ALL_OPTIONS:
        return f"'{item}' is misspelt (spaces around '=') and silently ignored. Did you mean '{squashed}'?"
    known_key = _KEYS_LOWER.get(key.strip().lower())
    if known_key is not None:
        if not sep:
            eff = SYNC_OPTION_TABLE[known_key][0]
            return f"'{item}' has no value and is silently ignored. Did you mean '{known_key}={eff[0]}'?"
        canon = _canonical_value(known_key, value.strip()) or value.strip()
        return (
            f"'{item}' is misspelt (options are case-sensitive) and silently ignored. "
            f"Did you mean '{known_key}={canon}'?"
        )
    field = POLICY_FIELDS.get(key.strip().lower())
    if field is not None:
        return f"'{item}' is not a sync option and is silently ignored: {field}"
    guess = near_miss(item, ALL_OPTIONS)
    # the closest is destructive: suggest nothing rather than it, or a farther one it crowds out
    hint = f" Did you mean '{guess}'?" if guess and guess.partition("=")[0] not in DESTRUCTIVE_KEYS else ""
    return f"'{item}' is not a sync option Argo CD knows and is silently ignored.{hint}"


def _first_wins_problems(items: list[str]) -> dict[int, str]:
    """Later ``Prune=``/``Delete=`` items that the first one shadows (``GetAnnotationOptionValue``)."""
    out: dict[int, str] = {}
    first: dict[str, str] = {}
    for i, item in enumerate(items):
        key, sep, _ = item.partition("=")
        if key not in FIRST_WINS or not sep:
            continue
        if key in first and first[key] != item:
            out[i] = f"'{item}' is ignored: Argo CD reads only the first '{key}=' item ('{first[key]}')"
        first.setdefault(key, item)
    return out


def _sentence(where: str, problem: str) -> str:
    return f"{where}: {problem}{'' if problem.endswith(('?', '.')) else '.'}"


@check("HL013")
def unknown_sync_option(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """Each item of ``argocd.argoproj.io/sync-options`` and of an Application's
    ``spec.syncPolicy.syncOptions`` that Argo CD ignores (§7); a resource's ``Force=true`` below
    the release that reads it (``GE/sync/sync_context.go`` ``applyObject``: ``force := sc.force ||
    HasAnnotationOption(..., SyncOptionForce)``, gitops-engine fbecbb8 #560, in argo-cd v2.11.1 and
    v2.10.10; before, ``applyObject`` got only the operation's ``sc.force``)."""
    version = ctx.config.argocd_version
    value = m.annotations.get(argocd.SYNC_OPTIONS)
    if value is not None:
        items = [item for item in map(go_trim_space, value.split(",")) if item]  # GetAnnotationCSVs, no dedup
        shadowed = _first_wins_problems(items)
        span = m.annotation_value_span(argocd.SYNC_OPTIONS)
        for i, item in enumerate(items):
            problem = sync_option_problem(item, RESOURCE, version) or shadowed.get(i)
            if problem:
                yield Hit(
                    _sentence(f"argocd.argoproj.io/sync-options on {m.label}", problem),
                    span,
                    f"metadata.annotations.{argocd.SYNC_OPTIONS}",
                )
    yield from _application_sync_options(m, version)


def _application_sync_options(m: Manifest, version: argocd.Version) -> Iterator[Hit]:
    """``spec.syncPolicy.syncOptions`` of an Application (or an ApplicationSet's template)."""
    if not m.is_argo("Application", "ApplicationSet"):
        return
    spec = get_map(m.body, "spec")
    path = "spec"
    if m.kind == "ApplicationSet":
        spec = get_map(get_map(spec, "template"), "spec")
        path = "spec.template.spec"
    policy = get_map(spec, "syncPolicy")
    options = policy.get("syncOptions") if policy is not None else None
    if not isinstance(options, Seq):
        return
    items = [o if isinstance(o, str) else None for o in options]  # HasOption: whole items, never trimmed
    shadowed = _first_wins_problems([i or "" for i in items])
    for i, item in enumerate(items):
        if not item or "{{" in item:
            continue
        problem = sync_option_problem(item, APP, version) or shadowed.get(i)
        if problem:
            yield Hit(
                _sentence(f"{path}.syncPolicy.syncOptions of {m.label}", problem),
                options.item_spans[i],
                f"{path}.syncPolicy.syncOptions[{i}]",
            )


# --- HL015 -------------------------------------------------------------------------------------

HELM_KNOWN = tuple(argocd.HELM_SYNC_HOOKS) + tuple(argocd.HELM_DELETE_HOOKS) + argocd.HELM_NEVER_RUN + ("crd-install",)


def _helm_item_ignored(item: str, m: Manifest) -> bool:
    """Whether Argo CD (of ``m.hook.version``) ignores the ``helm.sh/hook`` event ``item`` of ``m``:
    every event but the mapped sync ones and the delete events ``m.hook`` runs."""
    if item in argocd.HELM_SYNC_HOOKS:
        return False
    delete_type = argocd.HELM_DELETE_HOOKS.get(item)
    return delete_type is None or delete_type not in m.hook.delete_types


def _phase_list(phases: tuple[str, ...] | list[str]) -> str:
    return " and ".join(phases)


@check("HL015", annotated=True)
def helm_hook_ignored_by_argocd(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """``helm.sh/hook`` events Argo CD never runs, or ``crd-install`` alone, which is no hook
    (``GE/sync/hook/helm/type.go``, ``helm/hook.go``; §3, §4d for the delete events' versions).
    An object whose events are all Helm test events (``test``, ``test-success``, ``test-failure``;
    docs ``user-guide/helm.md`` "Helm Hooks": not supported, ignored) is a hook with no type: Argo
    CD never creates it in a sync and never runs ``helm test``; the usual test Pod of ``helm
    create``, a note, not a warning."""
    value = m.annotations.get(argocd.HELM_HOOK)
    if value is None or argocd.argo_hook_types(m.annotations):
        return  # no Helm hook, or Argo CD's own hook types win (HL016)
    version = ctx.config.argocd_version
    span = m.annotation_value_span(argocd.HELM_HOOK)
    field = f"metadata.annotations.{argocd.HELM_HOOK}"
    if value == "crd-install" and not m.hook.is_hook:
        yield Hit(
            f"helm.sh/hook 'crd-install' on {m.label} is not a hook for Argo CD: it applies the object "
            f"as a plain resource in Sync wave {m.hook.wave.value}, like any other. Remove the "
            "annotation (Argo CD already applies CRDs before their custom resources).",
            span,
            field,
        )
        return
    items = argocd.annotation_csv(value)
    ignored = [i for i in items if _helm_item_ignored(i, m)]
    if not items:
        ignored = [value]
    if not ignored:
        return
    words = []
    for item in ignored:
        if item in ("pre-delete", "post-delete"):
            delete_type = argocd.HELM_DELETE_HOOKS[item]
            needs = dict(m.hook.later_delete_types).get(delete_type, argocd.since(delete_type))
            alone = "" if needs == argocd.since(delete_type) else " in a list of hook events"
            words.append(f"'{item}' (needs Argo CD {version_text(needs)}{alone}; configured: {version_text(version)})")
        elif item in HELM_KNOWN:
            words.append(f"'{item}'")
        else:
            guess = near_miss(item, HELM_KNOWN)
            words.append(f"'{item}' (unknown{'; did you mean ' + repr(guess) + '?' if guess else ''})")
    delete_types = m.hook.delete_types
    if not m.hook.phases and not delete_types and all(i in argocd.HELM_TEST_HOOKS for i in ignored):
        yield Hit(
            f"helm.sh/hook {', '.join(words)} on {m.label} marks a Helm test: Argo CD never creates it as part of "
            "a sync (it maps no test event to a hook type) and does not run `helm test`, so the test never runs "
            "under Argo CD. To run it after each sync, add argocd.argoproj.io/hook: PostSync; else run `helm "
            "test` outside Argo CD.",
            span,
            field,
            severity="note",
        )
        return
    if m.hook.phases:
        outcome = f"it runs the object as a {_phase_list(m.hook.phases)} hook only"
    elif delete_types:
        outcome = f"the object runs only as a {_phase_list(delete_types)} hook when the Application is deleted"
    else:
        outcome = "the object is a hook with no type Argo CD knows, so it is never applied"
    yield Hit(
        f"helm.sh/hook on {m.label}: Argo CD never runs {', '.join(words)} (it maps only "
        f"pre/post-install and -upgrade to PreSync/PostSync, and pre/post-delete to deletion hooks); "
        f"{outcome}. Use a hook event Argo CD runs, or an argocd.argoproj.io/hook annotation.",
        span,
        field,
    )


# --- HL016 -------------------------------------------------------------------------------------


@check("HL016", annotated=True)
def argocd_helm_hook_conflict(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """Valid Argo CD hook types and Helm hook phases that disagree: ``hook.go`` ``Types()`` uses
    the Helm types only when no Argo type is valid (§2b, §3 "Precedence"). And delete policies of
    both families where Helm's add one: ``GE/sync/hook/delete_policy.go`` ``DeletePolicies()``
    merges them (Argo CD's valid items, then Helm's mapped ones), unlike hook types."""
    yield from _hook_type_conflict(m)
    yield from _delete_policy_merge(m)


def _delete_policy_merge(m: Manifest) -> Iterator[Hit]:
    if not m.hook.is_hook or argocd.HELM_HOOK_DELETE_POLICY not in m.annotations:
        return
    argo = [p for p in argocd.annotation_csv(m.annotations.get(argocd.HOOK_DELETE_POLICY)) if p in argocd.DELETE_POLICIES]
    if not argo:
        return  # no Argo CD policy to override (HL011 reports a misspelt one)
    helm = [argocd.HELM_DELETE_POLICIES[p] for p in argocd.annotation_csv(m.annotations[argocd.HELM_HOOK_DELETE_POLICY])
            if p in argocd.HELM_DELETE_POLICIES]  # fmt: skip
    added = [p for p in dict.fromkeys(helm) if p not in argo]
    if not added:
        return
    yield Hit(
        f"{m.label} has argocd.argoproj.io/hook-delete-policy '{m.annotations[argocd.HOOK_DELETE_POLICY]}' and "
        f"helm.sh/hook-delete-policy '{m.annotations[argocd.HELM_HOOK_DELETE_POLICY]}': Argo CD does not let its "
        "own annotation replace Helm's, it merges the two, so the effective delete policies are "
        f"{', '.join(m.hook.delete_policies)} (Helm's adds {', '.join(added)}). Make the two agree, or "
        "drop the one that is wrong.",
        m.annotation_value_span(argocd.HELM_HOOK_DELETE_POLICY),
        f"metadata.annotations.{argocd.HELM_HOOK_DELETE_POLICY}",
    )


def _hook_type_conflict(m: Manifest) -> Iterator[Hit]:
    if argocd.HOOK not in m.annotations or argocd.HELM_HOOK not in m.annotations:
        return
    argo = argocd.argo_hook_types(m.annotations)
    helm = argocd.helm_hook_types(m.annotations)
    if not argo or not helm:
        return  # Argo CD falls back to the Helm types (HL010 reports the Argo typo)
    argo_phases = [t for t in argo if t != "Skip"] if argo != ["Skip"] else ["Skip"]
    if set(argo_phases) == set(helm):
        return
    runs = "skips the object (it is never applied)" if argo == ["Skip"] else f"runs it in {_phase_list(m.hook.phases)}"
    yield Hit(
        f"{m.label} has argocd.argoproj.io/hook '{m.annotations[argocd.HOOK]}' and helm.sh/hook "
        f"'{m.annotations[argocd.HELM_HOOK]}' ({_phase_list(helm)}): Argo CD uses its own annotation, "
        f"ignores the Helm hook types and {runs}. Make the two agree, or drop the one that is wrong.",
        m.annotation_value_span(argocd.HOOK),
        f"metadata.annotations.{argocd.HOOK}",
    )


# --- HL017 -------------------------------------------------------------------------------------


@check("HL017", annotated=True)
def skip_with_other_hook_types(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """``Skip`` next to another valid type: ``hook.go`` ``Skip()`` is true only for exactly
    ``[Skip]`` (``TestSkipAndHook``; §2b); a delete type counts when the configured version runs
    it (``Manifest.hook.delete_types``: in a list only from 3.3.3; §4d)."""
    value = m.annotations.get(argocd.HOOK)
    if value is None:
        return
    items = argocd.annotation_csv(value)
    if "Skip" not in items:
        return
    others = [t for t in items if t in argocd.ARGO_HOOK_TYPES and t != "Skip"]
    others += [t for t in items if t in m.hook.delete_types]
    if not others:
        return
    yield Hit(
        f"argocd.argoproj.io/hook '{value}' on {m.label} combines Skip with {_phase_list(others)}: "
        "Skip counts only when it is the only hook type, so Argo CD runs the object as a "
        f"{_phase_list(others)} hook after all. Use Skip alone to keep Argo CD from applying it, or "
        "drop Skip.",
        m.annotation_value_span(argocd.HOOK),
        f"metadata.annotations.{argocd.HOOK}",
    )


# --- HL020 -------------------------------------------------------------------------------------


def _ssa_upgrade(version: argocd.Version) -> str:
    """The release that fixes HL020 for ``version``'s line."""
    return "2.14.7 or later" if version[:2] == (2, 14) else "2.10.0 or later (2.14.7 or later on 2.14)"


@check("HL020")
def server_side_apply_dry_run(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """``ServerSideApply=true`` on a resource (``argocd.argoproj.io/sync-options``) or in an
    Application's (ApplicationSet template's) ``spec.syncPolicy.syncOptions`` on an Argo CD whose
    sync dry-run really applies server-side-applied objects (:func:`argocd.ssa_dry_run_applies`:
    2.5.0-2.9.x and 2.14.0-2.14.6; ``GE pkg/sync/sync_context.go`` ``applyObject`` /
    ``shouldUseServerSideApply`` at the gitops-engine commits those releases pin, argo-cd #21858,
    fixed by gitops-engine PR #699 in v2.14.7 and v3.0.0).

    ``Sync()`` dry-runs every task, hooks of every phase included (SyncFail hooks are split off
    only after it), before the first step; an object with ``Replace=true`` is replaced or created
    instead (``kubectl replace``/``create`` honour the client dry-run) and is left out. A plain
    resource is reported only when something should come before it (its step is not the plan's
    first); a hook always, as the dry-run creates it and the pod starts before its phase."""
    version = ctx.config.argocd_version
    if not argocd.ssa_dry_run_applies(version):
        return
    items = argocd.annotation_csv(m.annotations.get(argocd.SYNC_OPTIONS))
    if "ServerSideApply=true" in items and "Replace=true" not in items:
        yield from _ssa_resource_hit(m, ctx, version)
    yield from _ssa_application_hit(m, version)


def _ssa_resource_hit(m: Manifest, ctx: Context, version: argocd.Version) -> Iterator[Hit]:
    first = ctx.plan.first_task(m)
    if first is None:
        return
    runs = f"Argo CD {version_text(version)} (as every 2.5.0-2.9.x and 2.14.0-2.14.6 release)"
    if m.hook.is_hook:
        what = (f"so this {first.phase} hook is created, and its pods start, at the start of every sync, "
                f"before its own step ({first.step_text()}) and before PreSync hooks")  # fmt: skip
    else:
        if ctx.plan.steps and ctx.plan.steps[0].key == first.step_key:
            return
        what = (f"so {m.label} is applied at the start of every sync, before PreSync hooks and the "
                f"earlier steps its own step ({first.step_text()}) should wait for")  # fmt: skip
    yield Hit(
        f"ServerSideApply=true on {m.label}: {runs} runs the dry-run that starts each sync as "
        "kubectl apply --server-side with --dry-run=client, which is no dry run, "
        f"{what}, even when the sync then fails. Upgrade Argo CD to {_ssa_upgrade(version)}, or drop "
        "ServerSideApply=true from this object.",
        m.annotation_value_span(argocd.SYNC_OPTIONS),
        f"metadata.annotations.{argocd.SYNC_OPTIONS}",
    )


def _ssa_application_hit(m: Manifest, version: argocd.Version) -> Iterator[Hit]:
    if not m.is_argo("Application", "ApplicationSet"):
        return
    spec = get_map(m.body, "spec")
    path = "spec"
    if m.kind == "ApplicationSet":
        spec = get_map(get_map(spec, "template"), "spec")
        path = "spec.template.spec"
    policy = get_map(spec, "syncPolicy")
    options = policy.get("syncOptions") if policy is not None else None
    if not isinstance(options, Seq):
        return
    items = [o if isinstance(o, str) else "" for o in options]  # HasOption: whole items, never trimmed
    if "ServerSideApply=true" not in items or "Replace=true" in items:
        return
    exempt = "Replace=true" + (" or ServerSideApply=false" if version >= (2, 14, 0) else "")
    i = items.index("ServerSideApply=true")
    yield Hit(
        f"ServerSideApply=true in {path}.syncPolicy.syncOptions of {m.label}: Argo CD "
        f"{version_text(version)} (as every 2.5.0-2.9.x and 2.14.0-2.14.6 release) runs the dry-run "
        "that starts each sync as kubectl apply --server-side with --dry-run=client, which is no dry "
        f"run, so every object of the application without {exempt} is applied at once at the start of "
        "every sync, hooks included, even when the sync then fails: PreSync hooks and sync waves "
        f"order nothing. Upgrade Argo CD to {_ssa_upgrade(version)}, or drop ServerSideApply=true.",
        options.item_spans[i],
        f"{path}.syncPolicy.syncOptions[{i}]",
    )


# --- HL023 -------------------------------------------------------------------------------------


@check("HL023", annotated=True)
def hook_policy_without_hook(m: Manifest, ctx: Context) -> Iterator[Hit]:
    """``argocd.argoproj.io/hook-delete-policy`` or ``helm.sh/hook-delete-policy`` on an object
    that is not a hook: gitops-engine reads delete policies of hooks only (argo-cd v3.5.1
    ``gitops-engine/pkg/sync/sync_task.go`` ``hasHookDeletePolicy``: "cannot have a policy if it
    is not a hook, it is meaningless"), and the controller's delete hooks are hooks by their own
    annotation (``controller/hook.go``). Skip objects (never applied) are left out; an object
    whose annotations Argo CD cannot read at all is HL004's. One finding at each policy key."""
    keys = [k for k in (argocd.HOOK_DELETE_POLICY, argocd.HELM_HOOK_DELETE_POLICY) if k in m.annotations]
    if not keys or m.hook.is_hook or m.hook.delete_types or m.hook.skip:
        return
    raw = m.raw_annotations
    assert raw is not None  # the keys were read from it
    for key in keys:
        hook_key = argocd.HOOK if key == argocd.HOOK_DELETE_POLICY else argocd.HELM_HOOK
        example = "PreSync" if key == argocd.HOOK_DELETE_POLICY else "pre-install,pre-upgrade"
        yield Hit(
            f"{key} '{m.annotations[key]}' on {m.label}, which is not a hook: Argo CD reads delete policies "
            f"of hooks only, so it applies {m.label} as a plain resource in Sync wave {m.hook.wave.value} and "
            "this policy never deletes it. Add "
            f"{hook_key} (e.g. {example}) if it should run as a hook, or remove the policy.",
            raw.key_span(key),
            f"metadata.annotations.{key}",
        )
