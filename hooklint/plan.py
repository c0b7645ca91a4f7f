"""The sync plan: the ordered (phase, wave) steps gitops-engine would execute for one application.

:func:`build_plan` restates how gitops-engine turns an application's target objects into sync tasks
and orders them (``shared/docs/argocd-semantics.md`` §2, §4, §4d and the addenda; ``GE/`` is
``argoproj/argo-cd`` ``gitops-engine/pkg/``):

1. ``getSyncTasks`` (``GE/sync/sync_context.go``): one task per (object, sync phase); a hook with
   several types gives one task per phase, a plain resource one Sync task, a ``Skip`` object and an
   ignored hook none (``GE/sync/sync_phase.go`` ``syncPhases()``, ``GE/sync/reconcile.go``
   ``splitHooks()``). PreDelete/PostDelete hooks are removed from the sync by the controller
   (``AC controller/state.go`` ``partitionTargetObjsForSync()``, §4d). A ``generateName`` hook is
   named before the sort (addendum 3), and every object without ``metadata.namespace`` gets the
   application's destination namespace (addendum 2).
2. ``syncTasks.Less`` (``GE/sync/sync_tasks.go``): phase order, wave, kind order (unknown kinds 0,
   after every listed kind), then the name compared byte-wise (§4a).
3. ``syncTasks.Sort`` -> ``adjustDeps`` (Argo CD >= 2.0, gitops-engine PR #225): a core-group
   Namespace, then a CRD, that sorts after its first dependant is inserted immediately before that
   dependant and takes its phase and wave (§4b, addendum 1).

A *step* is a run of consecutive tasks with the same (phase, wave): ``Sync()`` applies one step per
iteration and waits for its health before the next (§4c, §5a).

The plan costs one sort plus linear passes: ``adjustDeps`` is restated without the element shifts
of the Go code (which are quadratic in the worst case) but yields the same order.

Printing a plan is a reporter's job (:mod:`hooklint.reporters.plan`).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Iterable

from hooklint import argocd
from hooklint.argocd import version_text
from hooklint.model import Manifest, repeated_objects
from hooklint.yamlio import Map

#: The group of kustomize's own configuration kinds (``Kustomization``, ``Component``): these
#: files tell Argo CD how to build the application and are never applied as objects.
KUSTOMIZE_GROUP = "kustomize.config.k8s.io"
CRD_GROUP = "apiextensions.k8s.io"
#: ``helm.sh/resource-policy: keep`` keeps an object on Application deletion (§3).
HELM_RESOURCE_POLICY = "helm.sh/resource-policy"

#: How the plan writes the revision and start time of a generated hook name (addendum 3). The
#: sort uses :data:`GENERATED_SORT_SUFFIX` in their place: a ``generateName`` hook sorts by its
#: prefix; against another name that extends the same prefix, the real revision decides.
GENERATED_NAME_HINT = "<rev7>-{phase}-<unix-time>"
GENERATED_SORT_SUFFIX = "0000000-{phase}-0000000000"


#: Why a kustomize file of a directory source is not applied (``build_plan`` ``as_written``); HL003
#: reports it, reading this reason in the plan.
AS_WRITTEN_KUSTOMIZE = ("kustomize configuration ({kind}) read as a manifest: the directory source applies its files "
                        "as written and never runs kustomize, and the API server has no such kind, so the sync "
                        "fails (HL003)")


def is_kustomize_config(m: Manifest) -> bool:
    """kustomize's own files (``Kustomization``, ``Component``, ``builtin`` transformer configs):
    they tell Argo CD how to build the folder and are never applied as objects."""
    return m.group == KUSTOMIZE_GROUP or m.api_version == "builtin"


# --- Application deletion ----------------------------------------------------------------------


def kept_on_deletion(m: Manifest) -> bool:
    """True when a cascaded Application deletion leaves ``m`` in the cluster: ``shouldBeDeleted``
    (``AC controller/appcontroller.go``, v3.5.1) keeps an object whose first ``Delete=`` sync
    option is ``Delete=false`` or whose ``helm.sh/resource-policy`` lists ``keep`` (§3, §7). The
    Application's own ``spec.syncPolicy.syncOptions`` are not known here."""
    options = argocd.annotation_csv(m.annotations.get(argocd.SYNC_OPTIONS))
    delete = next((item for item in options if item.startswith("Delete=")), None)
    return delete == "Delete=false" or "keep" in argocd.annotation_csv(m.annotations.get(HELM_RESOURCE_POLICY))


def absent_during_deletion(plan: "SyncPlan", m: Manifest, phase: str) -> str | None:
    """Why ``m`` is not in the cluster while the Application's ``phase`` (``PreDelete`` or
    ``PostDelete``) hooks run, or None when it is there. ``plan`` gives the Argo CD version and
    why an object is never applied.

    The delete flow, confirmed in ``AC controller/appcontroller.go`` ``finalizeApplicationDeletion``
    and ``AC controller/hook.go`` ``executeHooks``/``cleanupHooks`` at v3.5.1 (§4d; PostDelete
    runs in the same place since v2.10.0):

    1. PreDelete (finalizer ``pre-delete-finalizer.argocd.argoproj.io``): ``executeHooks`` creates
       every missing hook of the type in one pass over a map (no wave order), then waits for them;
       nothing else is touched, so plain resources and the hooks earlier syncs left exist.
    2. Cascaded deletion: every live object tracked as the Application's is deleted, hooks included
       (``NormalizeTargetObjects`` sets the tracking on every target, hooks too), highest wave
       first, and the controller waits until they are gone; only :func:`kept_on_deletion` objects
       stay.
    3. PostDelete: ``executeHooks`` as in 1.
    4. ``cleanupHooks``: PreDelete, then PostDelete hooks whose policy matches the aggregated health.

    Hooks a sync left: a PreSync/Sync/PostSync hook stays after a successful sync unless its delete
    policies hold HookSucceeded (§6); a SyncFail hook exists only after a failed sync. A hook of
    the same delete type is created with the referrer, whatever its wave."""
    delete_types = m.hook.delete_types
    if phase in delete_types:
        return None
    synced = plan.first_task(m) is not None
    if not synced and "PreDelete" not in delete_types:
        if "PostDelete" in delete_types:
            return "a PostDelete hook: Argo CD creates it only after the Application's resources are deleted"
        return plan.not_applied_reason(m)  # Skip, an ignored hook: never in the cluster
    if synced and m.hook.is_hook:
        phases = [p for p in m.hook.phases if p != "SyncFail"]
        if not phases:
            return "a SyncFail hook: Argo CD creates it only when a sync fails"
        if "HookSucceeded" in m.hook.delete_policies:
            return (f"a {'/'.join(phases)} hook with delete policy HookSucceeded: Argo CD deletes it "
                    "once the sync succeeds")  # fmt: skip
    if phase == "PreDelete" or kept_on_deletion(m):
        return None
    hook_types = (m.hook.phases if m.hook.is_hook else ()) or delete_types
    what = f"a {'/'.join(hook_types)} hook" if hook_types else "a plain resource"
    return f"{what}: Argo CD deletes the Application's resources before it runs PostDelete hooks"


@dataclass(slots=True)
class Task:
    """One sync task: ``manifest`` applied in ``phase`` at ``wave``.

    ``wave`` is the effective wave (a pulled-forward dependency's ``waveOverride``); ``own_phase``
    and ``own_wave`` are what the object's annotations say. ``sort_name`` is the name
    ``syncTasks.Less`` compares (the generated name for a ``generateName`` hook). ``namespace`` is
    ``metadata.namespace``, or None for the application's destination namespace. ``pulled_before``
    is the dependant a Namespace/CRD was moved in front of (adjustDeps), if any."""

    manifest: Manifest
    phase: str
    wave: int
    own_phase: str
    own_wave: int
    kind_order: int
    sort_name: str
    seq: int
    notes: list[str] = field(default_factory=list)
    pulled_before: "Task | None" = None

    @property
    def step_key(self) -> tuple[int, int]:
        """(phase order, wave): what ``Sync()`` groups a step by; comparable across steps."""
        return argocd.PHASE_ORDER[self.phase], self.wave

    def sort_key(self) -> tuple:
        return (argocd.PHASE_ORDER[self.phase], self.wave, self.kind_order, self.sort_name, self.seq)

    @property
    def label(self) -> str:
        return self.manifest.label

    def step_text(self) -> str:
        return step_text(self.phase, self.wave)


def step_text(phase: str, wave: int) -> str:
    """``PreSync wave -1``: how messages name a step."""
    return f"{phase} wave {wave}"


@dataclass(slots=True)
class Step:
    """Consecutive tasks with the same (phase, wave); ``index`` is 1-based."""

    index: int
    phase: str
    wave: int
    tasks: list[Task]

    @property
    def key(self) -> tuple[int, int]:
        return argocd.PHASE_ORDER[self.phase], self.wave


@dataclass(slots=True)
class NotApplied:
    """An object of the application that no sync ever applies, and why."""

    manifest: Manifest
    reason: str


@dataclass(slots=True)
class SyncPlan:
    """The plan of one application: ``tasks`` in execution order, grouped into ``steps``, and the
    objects no sync applies. ``version`` is the Argo CD version the plan models."""

    tasks: list[Task]
    steps: list[Step]
    not_applied: list[NotApplied]
    version: argocd.Version
    _by_manifest: dict[int, list[Task]] = field(default_factory=dict, repr=False)
    _not_applied: dict[int, NotApplied] = field(default_factory=dict, repr=False)

    def tasks_of(self, m: Manifest) -> list[Task]:
        """The tasks of ``m`` in execution order (empty when no sync applies it)."""
        return self._by_manifest.get(id(m), [])

    def first_task(self, m: Manifest) -> Task | None:
        tasks = self._by_manifest.get(id(m))
        return tasks[0] if tasks else None

    def not_applied_reason(self, m: Manifest) -> str | None:
        entry = self._not_applied.get(id(m))
        return entry.reason if entry is not None else None

    def reported(self) -> SyncPlan:
        """A copy of this plan with each object replaced by its :meth:`Manifest.reported` copy,
        for the reports of a plan (``hooklint plan``, the markdown report, ``hooklint diff``):
        tasks, steps and objects no sync applies keep their order, values and sharing (an object
        of two tasks is one copy), and :meth:`tasks_of` answers for the copies."""
        memo: dict[int, Any] = {}
        for m in [t.manifest for t in self.tasks] + [e.manifest for e in self.not_applied]:
            if id(m) not in memo:
                memo[id(m)] = m.reported()
        copies = dict(memo)
        out = copy.deepcopy(self, memo)  # the objects already in memo are taken as their copies
        out._by_manifest = {id(copies[key]): tasks for key, tasks in out._by_manifest.items()}
        out._not_applied = {id(copies[key]): entry for key, entry in out._not_applied.items()}
        return out

    @property
    def gated_steps(self) -> list[Step]:
        """The steps that wait for health one after another: every step but SyncFail's, which all
        start together when the sync fails (``executeSyncFailPhase``, §5c)."""
        return [s for s in self.steps if s.phase != "SyncFail"]


def _not_applied_reason(m: Manifest, version: argocd.Version) -> str:
    """Why gitops-engine creates no task for ``m`` (a Skip object or an ignored hook; §2b, §3, §4d)."""
    delete_types = m.hook.delete_types
    if m.hook.skip and not delete_types:
        return "hook type Skip: Argo CD never applies it"
    if delete_types:
        since = " and ".join(f"{t} (Argo CD >= {version_text(argocd.since(t))})" for t in delete_types)
        return f"{since} hook: runs only when the Application is deleted"
    if m.hook.later_delete_types:
        t, needs = m.hook.later_delete_types[0]
        if argocd.supports(version, t):  # the type alone would run: written in a list too early
            return (f"{t} in a list of hook types needs Argo CD {version_text(needs)} (configured: "
                    f"{version_text(version)}): ignored hook, never applied")  # fmt: skip
        return (
            f"{t} hooks need Argo CD {version_text(argocd.since(t))} (configured: {version_text(version)}): "
            "ignored hook, never applied"
        )
    argo_value = m.annotations.get(argocd.HOOK)
    helm_items = argocd.annotation_csv(m.annotations.get(argocd.HELM_HOOK))
    if argo_value is None or not argocd.annotation_csv(argo_value):
        never = [i for i in helm_items if i in argocd.HELM_NEVER_RUN]
        if never:
            return f"Helm hook '{', '.join(never)}': Argo CD never runs Helm test or rollback hooks"
    if argo_value is not None and not argocd.annotation_csv(argo_value):
        return f"empty {argocd.HOOK}: ignored hook, never applied"
    shown = argo_value if argo_value is not None else m.annotations.get(argocd.HELM_HOOK, "")
    key = argocd.HOOK if argo_value is not None else argocd.HELM_HOOK
    return f"{key} '{shown}' has no valid hook type: ignored hook, never applied"


def _wave_notes(m: Manifest) -> list[str]:
    """Notes on where a task's wave came from (``syncwaves.Wave()``, ``helm.Weight()``; §1)."""
    notes = []
    wave = m.hook.wave
    argo_value = m.annotations.get(argocd.SYNC_WAVE)
    helm_value = m.annotations.get(argocd.HELM_HOOK_WEIGHT)
    if argo_value is not None and wave.source != "argocd":
        fallback = f"helm.sh/hook-weight {wave.value}" if wave.source == "helm" else "default wave 0"
        notes.append(f"sync-wave {argo_value!r} is not an integer: falls back to {fallback}")
    elif wave.source == "helm":
        notes.append(f"wave {wave.value} from helm.sh/hook-weight")
    elif helm_value is not None and wave.source == "default":
        notes.append(f"helm.sh/hook-weight {helm_value!r} is not an integer: default wave 0")
    return notes


def _object_notes(m: Manifest, version: argocd.Version) -> list[str]:
    notes = []
    raw = m.raw_annotations
    if raw and not m.annotations:
        notes.append("annotations ignored: a value is not a string (HL004)")
    if m.hook.is_hook and m.hook.from_helm:
        notes.append(f"Helm hook '{m.annotations.get(argocd.HELM_HOOK, '')}'")
    if len(m.hook.phases) > 1:
        notes.append(f"hook runs in {' and '.join(m.hook.phases)}: one task per phase")
    for t in m.hook.delete_types:
        notes.append(f"also a {t} hook: runs again when the Application is deleted")
    if not m.hook.is_hook and not m.name and m.generate_name:
        notes.append("generateName on a non-hook: kubectl apply fails the whole sync (HL014)")
    notes.extend(_wave_notes(m))
    return notes


def build_plan(
    manifests: Iterable[Manifest],
    version: argocd.Version = argocd.DEFAULT_VERSION,
    destination_namespace: str | None = None,
    as_written: bool = False,
) -> SyncPlan:
    """The sync plan of one application's ``manifests`` under Argo CD ``version`` (major, minor).

    ``as_written``: an Application reads the folder as a directory source (its files as
    manifests), explicitly or by type detection; a kustomize file in it (a ``kustomization.yaml``
    under an explicit ``directory:``, or in a subfolder with ``recurse``) is then a manifest Argo
    CD tries to apply, not build instructions: ``GetAppSourceType`` (``reposerver/repository/
    repository.go``, v3.5.1) returns the explicit type before it looks for a kustomization, and
    ``findManifests`` decodes the file like any other (:data:`AS_WRITTEN_KUSTOMIZE`).

    ``destination_namespace`` is the Application's ``spec.destination.namespace`` when known; objects
    without ``metadata.namespace`` live there (addendum 2). When None, they share one unnamed
    destination namespace, which no Namespace object of the application can match.

    Of an object that appears more than once (same group, kind, namespace and name), only the last
    copy is planned, as ``DeduplicateTargetObjects`` keeps it; the others are listed as not applied.

    Returns a :class:`SyncPlan`. Ties in the sort key (same phase, wave, kind and name) keep file
    order; Go's ``sort.Sort`` is not stable, so their real order is unspecified. Raises ValueError
    when a manifest's hook information was read for another version (``Manifest.hook.version``):
    the plan and the rules read one answer."""
    tasks: list[Task] = []
    not_applied: list[NotApplied] = []
    seq = 0
    manifests = list(manifests)
    other = next((m for m in manifests if m.hook.version != version), None)
    if other is not None:
        raise ValueError(f"{other.label}: hook information read for Argo CD {version_text(other.hook.version)}, "
                         f"planned for {version_text(version)}")  # fmt: skip
    repeated = repeated_objects(manifests)
    for m in manifests:
        if id(m) in repeated:
            kept = repeated[id(m)][1]
            path, span = kept.locate("metadata.name", kept.anchor)
            not_applied.append(
                NotApplied(m, f"repeated object: Argo CD keeps only the last copy, at {path}:{span.line} (HL019)")
            )
            continue
        if not m.kind:
            not_applied.append(NotApplied(m, "not a Kubernetes object (no kind): Argo CD fails the sync (HL003)"))
            continue
        if is_kustomize_config(m):
            not_applied.append(NotApplied(m, AS_WRITTEN_KUSTOMIZE.format(kind=m.kind) if as_written else (
                f"kustomize configuration ({m.kind}): Argo CD builds the folder with it; "
                "this plan lists the folder's files as written")))  # fmt: skip
            continue
        phases = m.hook.phases
        if not phases:
            not_applied.append(NotApplied(m, _not_applied_reason(m, version)))
            continue
        notes = _object_notes(m, version)
        for phase in phases:
            if m.hook.is_hook and not m.name and m.generate_name:
                sort_name = m.generate_name + GENERATED_SORT_SUFFIX.format(phase=phase.lower())
                hint = GENERATED_NAME_HINT.format(phase=phase.lower())
                task_notes = [f"named {m.generate_name}{hint} at sync"] + notes
            else:
                sort_name = m.name or ""
                task_notes = list(notes)
            if phase == "SyncFail":
                task_notes.append("runs only when the sync fails; SyncFail hooks start together, waves ignored")
            tasks.append(Task(m, phase, m.hook.wave.value, phase, m.hook.wave.value,
                              argocd.kind_order(m.kind), sort_name, seq, task_notes))  # fmt: skip
            seq += 1
    tasks.sort(key=Task.sort_key)
    if argocd.supports(version, "pull-forward"):
        tasks = _adjust_deps(tasks, _namespace_dep, lambda t: _namespace_ref(t, destination_namespace))
        tasks = _adjust_deps(tasks, _crd_dep, _crd_ref)
    for t in tasks:
        if t.pulled_before is not None and (t.phase, t.wave) != (t.own_phase, t.own_wave):
            t.notes.insert(
                0,
                f"pulled forward before {t.pulled_before.label} (adjustDeps): own step "
                f"{step_text(t.own_phase, t.own_wave)} ignored",
            )
        elif t.pulled_before is not None:
            t.notes.insert(0, f"pulled forward before {t.pulled_before.label} (adjustDeps)")
    steps: list[Step] = []
    for t in tasks:
        if not steps or (steps[-1].phase, steps[-1].wave) != (t.phase, t.wave):
            steps.append(Step(len(steps) + 1, t.phase, t.wave, []))
        steps[-1].tasks.append(t)
    if len(steps) > 1:
        for t in tasks:
            if (t.phase, t.wave) == (steps[-1].phase, steps[-1].wave):
                break  # the last step has no next step to not wait (HL307)
            if t.manifest.is_application:
                t.notes.append(
                    "child Application: no built-in health check, so the next step does not wait "
                    "for it unless the argoproj.io_Application health override is configured"
                )
    plan = SyncPlan(tasks, steps, not_applied, version)
    for t in tasks:
        plan._by_manifest.setdefault(id(t.manifest), []).append(t)
    for entry in not_applied:
        plan._not_applied[id(entry.manifest)] = entry
    return plan


def _namespace_dep(t: Task) -> str | None:
    """``isDep`` of the Namespace pass: a core-group Namespace, keyed by its name (§4b)."""
    m = t.manifest
    if m.kind == "Namespace" and m.group == "" and m.name:
        return m.name
    return None


_DESTINATION = "\0destination"


def _namespace_ref(t: Task, destination: str | None) -> str | None:
    """``doesRefDep`` of the Namespace pass: the object's namespace; an object without one is in
    the destination namespace (addendum 2)."""
    ns = t.manifest.namespace
    if ns:
        return ns
    return destination or _DESTINATION


def _crd_dep(t: Task) -> str | None:
    """``isDep`` of the CRD pass: ``spec.group/spec.names.kind`` of a CRD (``kube.IsCRD``; §4b)."""
    m = t.manifest
    if m.kind != "CustomResourceDefinition" or m.group != CRD_GROUP:
        return None
    spec = m.body.get("spec")
    if not isinstance(spec, Map):
        return None
    group = spec.get("group")
    names = spec.get("names")
    kind = names.get("kind") if isinstance(names, Map) else None
    if isinstance(group, str) and isinstance(kind, str):
        return f"{group}/{kind}"
    return None


def _crd_ref(t: Task) -> str | None:
    """``doesRefDep`` of the CRD pass: every object's ``group/kind``."""
    return f"{t.manifest.group}/{t.manifest.kind}"


def _adjust_deps(tasks: list[Task], is_dep, ref_dep) -> list[Task]:
    """``syncTasks.adjustDeps`` (``GE/sync/sync_tasks.go``) in linear time.

    Walks the sorted tasks once. The first task referring to a key becomes that key's anchor; a
    dependency met after its anchor takes the anchor's phase and wave and is placed immediately
    before it (several such dependencies keep the order they were met in, as the Go insertions
    do). A dependency that already sorts before its dependants stays where it is."""
    anchors: dict[str, Task] = {}
    before: dict[int, list[Task]] = {}
    moved: set[int] = set()
    for t in tasks:
        key = is_dep(t)
        if key is not None:
            anchor = anchors.get(key)
            if anchor is not None:
                t.phase, t.wave = anchor.phase, anchor.wave
                t.pulled_before = anchor
                before.setdefault(id(anchor), []).append(t)
                moved.add(id(t))
            continue
        key = ref_dep(t)
        if key is not None and key not in anchors:
            anchors[key] = t
    if not moved:
        return tasks
    out: list[Task] = []
    for t in tasks:
        if id(t) in moved:
            continue
        out.extend(before.get(id(t), ()))
        out.append(t)
    return out
