"""Hooks read once, for the configured Argo CD version (issue 20 item 1): ``argocd.hook_info``
gates the PreDelete/PostDelete types (PostDelete from 2.10, PreDelete from 3.3, one item of a list
only from 3.3.3: ``AC controller/hook.go`` ``isHookOfType``), ``Manifest.hook`` holds that answer,
and the plan and every rule read it; and one reading of RBAC subjects."""

from __future__ import annotations

import pathlib
import re

import pytest

from hooklint.argocd import HELM_HOOK, HOOK, hook_info
from hooklint.config import parse_config
from hooklint.loader import parse_text
from hooklint.model import binding_grantees, manifests_of
from hooklint.pipeline import lint_text
from hooklint.plan import build_plan

#: A hook Job that no security or lifecycle rule reports on: only what its hook annotation does.
JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: task
  namespace: shop
  annotations:
    {annotations}
spec:
  backoffLimit: 0
  activeDeadlineSeconds: 60
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: runner
      automountServiceAccountToken: false
      securityContext: {{runAsNonRoot: true, seccompProfile: {{type: RuntimeDefault}}}}
      containers:
        - name: main
          image: ghcr.io/acme/task@sha256:{digest}
          securityContext: {{allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: {{drop: [ALL]}}}}
          resources: {{limits: {{cpu: 100m, memory: 64Mi}}, requests: {{cpu: 100m, memory: 64Mi}}}}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: shop
"""


def job(*annotations: str) -> str:
    return JOB.format(annotations="\n    ".join(annotations), digest="a" * 64)


def findings(text: str, version: str) -> list[tuple[str, int, int, str]]:
    config = parse_config({"argocd-version": version}, "test")
    return [(f.rule_id, f.span.line, f.span.column, f.message) for f in lint_text(text, config)]


def plan(text: str, version: str):
    config = parse_config({"argocd-version": version}, "test")
    manifests = manifests_of([parse_text("app.yaml", text)], version=config.argocd_version)
    return build_plan(manifests, config.argocd_version)


def test_post_sync_post_delete_on_2_14_is_a_post_sync_hook_and_never_left_behind():
    """2.14.21's isPostDeleteHook compares the whole value with 'PostDelete': the Job is a PostSync
    hook only. Before: the plan said so, HL210 reported 'PostDelete hook Job/task ... stays in the
    cluster after the Application is deleted'. Now HL010 says the listed PostDelete never runs."""
    text = job(f"{HOOK}: PostSync,PostDelete")
    p = plan(text, "2.14")
    assert [(t.label, t.phase, t.wave, t.notes) for t in p.tasks] == [
        ("ConfigMap/settings", "Sync", 0, []), ("Job/task", "PostSync", 0, [])]
    assert p.not_applied == []
    assert findings(text, "2.14") == [(
        "HL010", 7, 30,
        "Hook type 'PostDelete' on Job/task is one of a list ('PostSync,PostDelete'): Argo CD before 3.3.3 runs "
        "an object as a PostDelete hook only when the annotation holds that one type, and argocd-version is "
        "2.14.21, so the PostDelete hook never runs. Upgrade Argo CD to 3.3.3 or later, give the PostDelete hook "
        "an object of its own, or set argocd-version to the version you run.",
    )]  # fmt: skip
    # from 3.3.3 the list is read: a PostDelete hook too, left behind without HookSucceeded/HookFailed
    p = plan(text, "3.3.3")
    assert [(t.label, t.phase, t.notes) for t in p.tasks] == [
        ("ConfigMap/settings", "Sync", []),
        ("Job/task", "PostSync", ["also a PostDelete hook: runs again when the Application is deleted"])]
    assert [(rule, line, col) for rule, line, col, _ in findings(text, "3.3.3")] == [("HL210", 7, 30)]


def test_skip_pre_delete_on_3_3_2_is_skipped_by_the_plan_and_every_rule():
    """3.3.2's isPreDeleteHook compares the whole value with 'PreDelete', and gitops-engine's Skip()
    holds (the valid types are exactly [Skip]): never applied, never run. Before: the plan said
    'hook type Skip: Argo CD never applies it' and HL017 said 'Argo CD runs the object as a
    PreDelete hook after all'. Now the plan says the same, HL017 is silent, and HL010 says that the
    listed PreDelete never runs on 3.3.2; from 3.3.3 HL017 and the plan agree it is a PreDelete hook."""
    text = job(f"{HOOK}: Skip,PreDelete", f"{HOOK}-delete-policy: HookSucceeded")
    p = plan(text, "3.3.2")
    assert [(t.label, t.phase) for t in p.tasks] == [("ConfigMap/settings", "Sync")]
    assert [(e.manifest.label, e.reason) for e in p.not_applied] == [
        ("Job/task", "hook type Skip: Argo CD never applies it")]
    assert findings(text, "3.3.2") == [(
        "HL010", 7, 30,
        "Hook type 'PreDelete' on Job/task is one of a list ('Skip,PreDelete'): Argo CD before 3.3.3 runs an "
        "object as a PreDelete hook only when the annotation holds that one type, and argocd-version is 3.3.2, "
        "so the PreDelete hook never runs. Upgrade Argo CD to 3.3.3 or later, give the PreDelete hook an object "
        "of its own, or set argocd-version to the version you run.",
    )]  # fmt: skip
    p = plan(text, "3.3.3")
    assert [(e.manifest.label, e.reason) for e in p.not_applied] == [
        ("Job/task", "PreDelete (Argo CD >= 3.3) hook: runs only when the Application is deleted")]
    assert findings(text, "3.3.3") == [(
        "HL017", 7, 30,
        "argocd.argoproj.io/hook 'Skip,PreDelete' on Job/task combines Skip with PreDelete: Skip counts only when "
        "it is the only hook type, so Argo CD runs the object as a PreDelete hook after all. Use Skip alone to "
        "keep Argo CD from applying it, or drop Skip.",
    )]  # fmt: skip


def test_an_ignored_hook_with_a_listed_delete_type_says_which_release_reads_the_list():
    p = plan(job(f"{HOOK}: PreDelete,Garbage"), "3.3.2")
    assert [e.reason for e in p.not_applied] == [
        "PreDelete in a list of hook types needs Argo CD 3.3.3 (configured: 3.3.2): ignored hook, never applied"]
    assert [e.reason for e in plan(job(f"{HOOK}: PreDelete,Garbage"), "3.2").not_applied] == [
        "PreDelete hooks need Argo CD 3.3 (configured: 3.2.12): ignored hook, never applied"]


def test_helm_delete_event_in_a_list_follows_the_version():
    """HL015: helm.sh/hook 'pre-install,pre-delete' on 3.3.2 runs as PreSync only (before: silent)."""
    text = job(f"{HELM_HOOK}: pre-install,pre-upgrade,pre-delete", f"{HOOK}-delete-policy: BeforeHookCreation,HookSucceeded")
    assert findings(text, "3.3.2") == [(
        "HL015", 7, 19,
        "helm.sh/hook on Job/task: Argo CD never runs 'pre-delete' (needs Argo CD 3.3.3 in a list of hook events; "
        "configured: 3.3.2) (it maps only pre/post-install and -upgrade to PreSync/PostSync, and pre/post-delete "
        "to deletion hooks); it runs the object as a PreSync hook only. Use a hook event Argo CD runs, or an "
        "argocd.argoproj.io/hook annotation.",
    )]  # fmt: skip
    assert findings(text, "3.3.3") == []


@pytest.mark.parametrize(
    "annotations, version, delete_types, later",
    [
        ({HOOK: "PostDelete"}, (2, 9, 22), (), (("PostDelete", (2, 10, 0)),)),
        ({HOOK: "PostDelete"}, (2, 10, 0), ("PostDelete",), ()),
        ({HOOK: " PostDelete"}, (3, 3, 2), (), (("PostDelete", (3, 3, 3)),)),  # val == v: no trim before 3.3.3
        ({HOOK: "PostSync,PostDelete"}, (2, 14, 21), (), (("PostDelete", (3, 3, 3)),)),
        ({HOOK: "PostSync,PostDelete"}, (3, 3, 3), ("PostDelete",), ()),
        ({HOOK: "Skip,PreDelete"}, (3, 3, 2), (), (("PreDelete", (3, 3, 3)),)),
        ({HOOK: "Skip,PreDelete"}, (3, 5, 1), ("PreDelete",), ()),
        ({HOOK: "PreDelete"}, (3, 2, 12), (), (("PreDelete", (3, 3, 0)),)),
        ({HOOK: "PreSync,PreDelete", HELM_HOOK: "pre-delete"}, (3, 3, 0), ("PreDelete",), ()),
        ({HELM_HOOK: "post-delete,post-install"}, (3, 3, 2), (), (("PostDelete", (3, 3, 3)),)),
        ({HOOK: "PreSync"}, (3, 5, 1), (), ()),
    ],
)  # fmt: skip
def test_hook_info_gates_delete_types_by_version(annotations, version, delete_types, later):
    info = hook_info(annotations, version)
    assert (info.delete_types, info.later_delete_types, info.version) == (delete_types, later, version)


def test_a_skip_post_delete_object_runs_as_a_hook():
    info = hook_info({HOOK: "Skip,PostDelete"}, (3, 5, 1))
    assert (info.is_hook, info.skip, info.runs_as_hook) == (False, True, True)
    assert hook_info({HOOK: "Skip,PostDelete"}, (3, 3, 2)).runs_as_hook is False


def test_the_plan_refuses_manifests_read_for_another_version():
    manifests = manifests_of([parse_text("app.yaml", job(f"{HOOK}: PreSync"))], version=(3, 5, 1))
    with pytest.raises(ValueError) as info:
        build_plan(manifests, (2, 14, 21))
    assert str(info.value) == "Job/task: hook information read for Argo CD 3.5.1, planned for 2.14.21"


def test_one_implementation_of_the_delete_hook_gate():
    """grep finds the version gate of delete hook types in argocd.py only: no other module asks
    which release runs PreDelete/PostDelete or reads the delete hook annotations itself."""
    package = pathlib.Path(__file__).resolve().parent.parent / "hooklint"
    pattern = re.compile(r'supports\([^)]*"(PreDelete|PostDelete)"|delete_hook_types\(|_whole_delete_value\(|'
                         r"supported_delete_types|DELETE_HOOK_TYPES if")  # fmt: skip
    found = sorted(str(path.relative_to(package)) for path in package.rglob("*.py")
                   if pattern.search(path.read_text(encoding="utf-8")))  # fmt: skip
    assert found == ["argocd.py"]


# --- RBAC subjects -----------------------------------------------------------------------------

HOOK_AS_RUNNER = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: task
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  template:
    spec:
      serviceAccountName: runner
      containers:
        - name: main
          image: ghcr.io/acme/task:1
"""


def binding(kind: str, subject: str, api: str = "rbac.authorization.k8s.io/v1", namespace: str = "") -> str:
    ns = f"  namespace: {namespace}\n" if namespace else ""
    return (f"apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: runner-admin\n{ns}"
            "roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}\n"
            f"subjects:\n  - {subject}\n")  # fmt: skip


def rbac_objects(text: str) -> list[list[tuple[str | None, str | None]]]:
    loaded = parse_text("rbac.yaml", text)
    return [[(g.namespace, g.name) for g in binding_grantees(m)] for m in manifests_of([loaded])]


def test_binding_subjects_as_kubernetes_reads_them():
    assert rbac_objects(binding("ClusterRoleBinding", "{kind: ServiceAccount, name: runner}")) == [[]]
    assert rbac_objects(binding("ClusterRoleBinding", "{kind: ServiceAccount, name: runner, namespace: shop}")) == [
        [("shop", "runner")]]
    assert rbac_objects(binding("RoleBinding", "{kind: ServiceAccount, name: runner}", namespace="shop")) == [
        [("shop", "runner")]]
    assert rbac_objects(binding("RoleBinding", "{kind: ServiceAccount, name: runner}")) == [[("", "runner")]]
    assert rbac_objects(binding("RoleBinding", "{kind: ServiceAccount, name: runner}", api="acme.io/v1")) == [[]]
    assert rbac_objects(binding("RoleBinding", "{kind: User, name: runner}", namespace="shop")) == [[]]


def test_hl106_and_hl301_agree_on_a_cluster_role_binding_subject_without_namespace():
    """The case that disagreed: a ClusterRoleBinding subject without a namespace grants nobody
    (Kubernetes rejects it), as ordering._binding_index read it; security._binding_names matched it
    to the namespace-less hook's ServiceAccount, so HL106 reported 'ClusterRoleBinding/runner-admin
    binds the ClusterRole cluster-admin' and HL104 stayed silent. Now HL104 reports the mounted
    token no binding grants a role, and HL106 is silent; so for a binding of another API group."""
    for text in (binding("ClusterRoleBinding", "{kind: ServiceAccount, name: runner}"),
                 binding("ClusterRoleBinding", "{kind: ServiceAccount, name: runner, namespace: shop}",
                         api="acme.io/v1")):  # fmt: skip
        got = [(f.rule_id, f.span.line, f.span.column) for f in lint_text(HOOK_AS_RUNNER + "---\n" + text)
               if f.rule_id in ("HL104", "HL106")]  # fmt: skip
        assert got == [("HL104", 9, 5)]
    granted = binding("ClusterRoleBinding", "{kind: ServiceAccount, name: runner, namespace: shop}")
    got = [(f.rule_id, f.span.line, f.span.column) for f in lint_text(HOOK_AS_RUNNER + "---\n" + granted)
           if f.rule_id in ("HL104", "HL106")]  # fmt: skip
    assert got == [("HL106", 10, 27)]
