"""Edge cases of HL105-HL107, HL204, HL206, HL208, HL209, HL401, HL402 and HL901 that the rule files'
examples do not cover, with exact positions (1-based line, column) and exact messages."""

from __future__ import annotations

import pytest

from hooklint.config import parse_config
from conftest import hits, positions
from hooklint.pipeline import lint_text


# --------------------------------------------------------------------------------------------
# HL105 hook-privileged-pod

HL105_TAIL = (
    "{runs} and then controls the node, not just its pod. Remove it, or do this work outside the "
    "cluster's workloads."
)


def test_hl105_yaml_11_booleans_capability_spelling_and_unnamed_hostpath() -> None:
    text = """\
apiVersion: v1
kind: Pod
metadata:
  name: debug
  annotations:
    argocd.argoproj.io/hook: PostSync
spec:
  restartPolicy: Never
  hostIPC: yes
  hostNetwork: "true"
  containers:
    - name: tool
      image: ghcr.io/acme/tool:1.0.0
      securityContext:
        capabilities:
          add: [cap_chown, sys_admin, NET_RAW]
  volumes:
    - hostPath: {path: /}
"""
    tail = HL105_TAIL.format(runs="a PostSync hook runs on every sync")
    assert hits("HL105", text) == [
        (9, 12, f"Pod/debug sets hostIPC: true: {tail}"),
        # one table with HL206 (issue 36): admission compares names exactly, so cap_chown is reported
        (16, 17, "The container 'tool' of Pod/debug adds capability cap_chown, which is CHOWN of the baseline set "
                 "written another way: Pod Security admission compares capability names exactly, so a namespace "
                 "that enforces the baseline or restricted level rejects its pods (HL206). Write CHOWN."),
        (16, 28, f"The container 'tool' of Pod/debug adds capability sys_admin, beyond the baseline set: {tail}"),
        (16, 39, f"The container 'tool' of Pod/debug adds capability NET_RAW, beyond the baseline set: {tail}"),
        (18, 7, f"Pod/debug mounts the node's filesystem through hostPath volume 'volumes[0]' (path '/'): {tail}"),
    ]


def test_hl105_cronjob_hook_pod_spec() -> None:
    text = """\
apiVersion: batch/v1
kind: CronJob
metadata:
  name: rotate
  annotations:
    argocd.argoproj.io/hook: Sync
spec:
  schedule: "0 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          hostPID: true
          restartPolicy: Never
          containers:
            - name: rotate
              image: ghcr.io/acme/rotate:1.0.0
"""
    assert hits("HL105", text) == [
        (13, 20, f"CronJob/rotate sets hostPID: true: {HL105_TAIL.format(runs='a Sync hook runs on every sync')}"),
    ]


def test_hl105_ephemeral_container() -> None:
    text = """\
apiVersion: v1
kind: Pod
metadata:
  name: debug
  annotations:
    argocd.argoproj.io/hook: PostSync
spec:
  restartPolicy: Never
  containers:
    - name: tool
      image: ghcr.io/acme/tool:1.0.0
  ephemeralContainers:
    - name: shell
      image: ghcr.io/acme/shell:1.0.0
      securityContext: {privileged: true}
"""
    assert hits("HL105", text) == [
        (15, 37, "The ephemeral container 'shell' of Pod/debug is privileged: "
                 + HL105_TAIL.format(runs="a PostSync hook runs on every sync")),
    ]


def test_hl105_skip_and_helm_test_hooks_are_not_run_so_not_reported() -> None:
    text = """\
apiVersion: v1
kind: Pod
metadata:
  name: skipped
  annotations:
    argocd.argoproj.io/hook: Skip
spec:
  hostNetwork: true
  containers: [{name: a, image: "ghcr.io/acme/a:1.0.0"}]
---
apiVersion: v1
kind: Pod
metadata:
  name: helm-test
  annotations:
    helm.sh/hook: test
spec:
  hostNetwork: true
  containers: [{name: a, image: "ghcr.io/acme/a:1.0.0"}]
"""
    assert hits("HL105", text) == []


def test_hl105_predelete_hook_message_does_not_claim_every_sync() -> None:
    text = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: drain
  annotations:
    argocd.argoproj.io/hook: PreDelete
spec:
  template:
    spec:
      hostNetwork: true
      restartPolicy: Never
      containers: [{name: a, image: "ghcr.io/acme/a:1.0.0"}]
"""
    # Argo CD's controller runs PreDelete hooks when the Application is deleted, never during a sync (§4d).
    assert hits("HL105", text) == [
        (10, 20, "Job/drain sets hostNetwork: true: "
                 f"{HL105_TAIL.format(runs='a PreDelete hook runs when the Application is deleted')}"),
    ]


def test_hl105_non_hook_workload_is_not_called_a_hook() -> None:
    text = """\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: node-agent
spec:
  template:
    spec:
      hostPID: true
      containers: [{name: a, image: "ghcr.io/acme/a:1.0.0"}]
"""
    assert hits("HL105", text, {"check-all-workloads": True}) == [
        (8, 16, "DaemonSet/node-agent sets hostPID: true: "
                f"{HL105_TAIL.format(runs='this DaemonSet runs in the cluster continuously')}"),
    ]


@pytest.mark.parametrize("annotation", ["argocd.argoproj.io/hook: Presync", "helm.sh/hook: test"])
def test_hl105_ignored_hook_under_check_all_workloads_is_not_said_to_run_at_deletion(annotation: str) -> None:
    text = f"""\
apiVersion: batch/v1
kind: Job
metadata:
  name: tune
  annotations:
    {annotation}
spec:
  template:
    spec:
      hostPID: true
      restartPolicy: Never
      containers: [{{name: a, image: "ghcr.io/acme/a:1.0.0"}}]
"""
    for _, _, message in hits("HL105", text, {"check-all-workloads": True}):
        assert "when the Application is deleted" not in message


def test_hl105_plain_job_is_not_said_to_run_continuously() -> None:
    text = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: tune
spec:
  template:
    spec:
      hostPID: true
      restartPolicy: Never
      containers: [{name: a, image: "ghcr.io/acme/a:1.0.0"}]
"""
    [(line, column, message)] = hits("HL105", text, {"check-all-workloads": True})
    assert (line, column) == (8, 16)
    assert "continuously" not in message


# --------------------------------------------------------------------------------------------
# HL106 hook-overprivileged-rbac

HL106_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  namespace: payments
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  template:
    spec:
      {sa_line}
      restartPolicy: Never
      containers: [{{name: a, image: "ghcr.io/acme/a:1.0.0"}}]
"""

HL106_TAIL = (
    "a PreSync hook runs on every sync, so whoever controls its image or command holds those rights over {reach}. "
    "Grant only the verbs and resources it needs."
)


def test_hl106_deprecated_service_account_field_and_one_finding_per_binding() -> None:
    """A RoleBinding subject without a namespace means the binding's namespace; a role defined
    outside the lint run that is neither built in nor Argo CD's is a warning: hooklint cannot see
    what it grants (attack 11)."""
    context = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: legacy-admin, namespace: payments}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: ServiceAccount, name: legacy}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: legacy-wide}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: wide}
subjects: [{kind: ServiceAccount, name: legacy, namespace: payments}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: wide}
rules: [{apiGroups: ["*"], resources: [pods], verbs: ["*"]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: legacy-elsewhere}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: defined-elsewhere}
subjects: [{kind: ServiceAccount, name: legacy, namespace: payments}]
"""
    text = HL106_JOB.format(sa_line="serviceAccount: legacy")
    # A RoleBinding grants its role (even cluster-admin) inside its own namespace only.
    assert hits("HL106", text, context=context) == [
        (11, 23, "Job/migrate runs as ServiceAccount 'legacy', and ClusterRoleBinding/legacy-elsewhere binds it to "
                 "ClusterRole 'defined-elsewhere', which is not in this application nor built in or Argo CD's, so "
                 "hooklint cannot see what it grants: a PreSync hook runs on every sync, so whoever controls its image "
                 "or command holds whatever it grants over the cluster. Define the role in the application, listing "
                 "only the verbs and resources it needs."),
        (11, 23, "Job/migrate runs as ServiceAccount 'legacy', and ClusterRoleBinding/legacy-wide grants "
                 "every verb on pods through ClusterRole 'wide': " + HL106_TAIL.format(reach="the cluster")),
        (11, 23, "Job/migrate runs as ServiceAccount 'legacy', and RoleBinding/legacy-admin binds it to "
                 "cluster-admin: " + HL106_TAIL.format(reach="namespace 'payments'")),
    ]


def test_hl106_reports_the_hook_not_the_binding() -> None:
    """The binding is in the reported file, the hook in context: nothing is reported here."""
    binding = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: migrate-admin}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: ServiceAccount, name: migrate, namespace: payments}]
"""
    hook = HL106_JOB.format(sa_line="serviceAccountName: migrate")
    assert hits("HL106", binding, context=hook) == []
    assert positions("HL106", hook, context=binding) == [(11, 27)]


def test_hl106_no_bindings_no_finding() -> None:
    assert hits("HL106", HL106_JOB.format(sa_line="serviceAccountName: migrate")) == []


def test_hl106_group_subject_is_not_followed() -> None:
    context = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: all-sa-admin}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: User, name: migrate}]
"""
    assert hits("HL106", HL106_JOB.format(sa_line="serviceAccountName: migrate"), context=context) == []


# --------------------------------------------------------------------------------------------
# HL107 hook-literal-secret-env

HL107_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: smoke
  annotations:
    argocd.argoproj.io/hook: PostSync
spec:
  restartPolicy: Never
  containers:
    - name: smoke
      image: ghcr.io/acme/smoke:1.0.0
      env:
{env}
"""


def test_hl107_positions_and_what_is_not_a_literal_credential() -> None:
    env = """\
        - {name: DB_PASSWORD, value: 12345}
        - {name: REDIS_PASSWORD, value: "pw-$(SUFFIX)"}
        - {name: Private-Key, value: "-----BEGIN KEY-----"}
        - {name: API_KEY, value: "   "}
        - {name: SECRET_NAME, value: redis}
        - name: ADMIN_PASSWORD
          valueFrom: {secretKeyRef: {name: admin, key: password}}"""
    text = HL107_POD.format(env=env)
    # 12345 is not a string (the API server rejects it); "   " is blank; SECRET_NAME names a Secret.
    assert positions("HL107", text) == [(14, 41), (15, 38)]


def test_hl107_message_names_the_right_kind() -> None:
    text = HL107_POD.format(env="        - {name: DB_PASSWORD, value: hunter2}")
    assert hits("HL107", text) == [
        (13, 38, "Env var DB_PASSWORD of container 'smoke' of Pod/smoke carries a literal value: the "
                 "credential is in the Git repository, in every rendered manifest and in the Pod's spec, "
                 "readable by anyone who can read the repository or the Pod. Use valueFrom.secretKeyRef."),
    ]


# --------------------------------------------------------------------------------------------
# HL204 hook-ttl-after-finished

HL204_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    argocd.argoproj.io/hook: {hook}
spec:
  ttlSecondsAfterFinished: 0
  template:
    spec:
      restartPolicy: Never
      containers: [{{name: a, image: "ghcr.io/acme/a:1.0.0"}}]
"""


@pytest.mark.parametrize(
    ("version", "hook", "expected"),
    [
        ("2.14", "SyncFail", [(8, 3)]),
        ("2.14", "PreSync,PostSync", [(8, 3)]),
        ("2.14", "Presync", []),  # a misspelt hook type: Argo CD never applies it (HL010)
        ("2.14", "PostDelete", []),  # run by the controller at Application deletion, not a sync
        ("3.0", "PreSync", []),
        ("3.0.0", "PreSync", []),
        ("2.9", "PreSync", [(8, 3)]),
    ],
)
def test_hl204_versions_and_hook_types(version: str, hook: str, expected: list[tuple[int, int]]) -> None:
    assert positions("HL204", HL204_JOB.format(hook=hook), {"argocd-version": version}) == expected


def test_hl204_message_names_the_configured_version() -> None:
    [(_, _, message)] = hits("HL204", HL204_JOB.format(hook="PreSync"), {"argocd-version": "2.8.4"})
    assert message.startswith(
        "Hook Job/migrate sets spec.ttlSecondsAfterFinished: on Argo CD 2.8.4 (before 3.0) the Job"
    )


def test_hl204_non_hook_job_is_reported_on_every_version() -> None:
    text = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: warm-cache
spec:
  ttlSecondsAfterFinished: 60
"""
    message = (
        "Job/warm-cache is not a hook but sets spec.ttlSecondsAfterFinished: once Kubernetes deletes "
        "the finished Job, the application is OutOfSync and a sync (or self-heal) runs it again. "
        "Make it a hook with a delete policy, or remove the TTL."
    )
    assert hits("HL204", text, {"argocd-version": "2.14"}) == [(6, 3, message)]
    assert hits("HL204", text) == [(6, 3, message)]


# --------------------------------------------------------------------------------------------
# HL206 hook-never-completes


def test_hl206_delete_hook_yaml_11_suspend_and_default_restart_policy() -> None:
    text = """\
apiVersion: batch/v1
kind: Job
metadata:
  generateName: cleanup-
  annotations:
    argocd.argoproj.io/hook: PreDelete
spec:
  suspend: yes
  template:
    spec:
      restartPolicy: Never
      containers: [{name: a, image: "ghcr.io/acme/a:1.0.0"}]
---
apiVersion: v1
kind: Pod
metadata:
  name: probe
  annotations:
    argocd.argoproj.io/hook: PostSync
spec:
  containers: [{name: a, image: "ghcr.io/acme/a:1.0.0"}]
"""
    found = hits("HL206", text)
    assert [(line, column) for line, column, _ in found] == [(8, 12), (20, 1)]
    # found[0]'s wording for a delete hook: test_hl206_suspended_delete_hook_message below.
    assert found[1][2] == (
        "Hook Pod/probe has restartPolicy Always (the default): the Pod never reaches Succeeded. Argo CD "
        "counts it done as soon as it is Running and Ready, before its work has finished, then the "
        "container is restarted each time it exits, and a crash loop fails the sync. Set "
        "restartPolicy: Never."
    )


def test_hl206_suspended_delete_hook_message() -> None:
    text = """\
apiVersion: batch/v1
kind: Job
metadata:
  generateName: cleanup-
  annotations:
    argocd.argoproj.io/hook: PreDelete
spec:
  suspend: yes
  template:
    spec:
      restartPolicy: Never
      containers: [{name: a, image: "ghcr.io/acme/a:1.0.0"}]
"""
    [(line, column, message)] = hits("HL206", text)
    assert (line, column) == (8, 12)
    assert "sync never finishes" not in message
    assert "waits for completion of the hook forever" not in message


def test_hl206_long_running_kinds_only_as_presync_or_postsync_hooks() -> None:
    text = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: sync-hook
  annotations:
    argocd.argoproj.io/hook: Sync
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: skipped
  annotations:
    argocd.argoproj.io/hook: Skip
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: post
  annotations:
    argocd.argoproj.io/hook: PostSync
"""
    assert hits("HL206", text) == [
        (20, 30, "ReplicaSet/post is a PostSync hook, but a ReplicaSet never completes: it keeps running "
                 "after the hook step and is deleted and re-created on every sync. Use a Job for hook "
                 "work, or make it a normal resource with a sync wave."),
    ]


def test_hl206_points_at_the_annotation_argo_cd_takes_the_phase_from() -> None:
    text = """\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
  annotations:
    argocd.argoproj.io/hook: Presync
    helm.sh/hook: pre-install
"""
    # 'Presync' is no valid type, so Argo CD falls back to helm.sh/hook: pre-install -> PreSync (§2b, §3).
    assert hits("HL206", text) == [
        (7, 19, "DaemonSet/agent is a PreSync hook, but a DaemonSet never completes: it keeps running "
                "after the hook step and is deleted and re-created on every sync. Use a Job for hook "
                "work, or make it a normal resource with a sync wave."),
    ]


def test_hl206_pod_message_matches_pod_health() -> None:
    text = """\
apiVersion: v1
kind: Pod
metadata:
  name: seed
  annotations:
    argocd.argoproj.io/hook: PostSync
spec:
  restartPolicy: Always
  containers: [{name: a, image: "ghcr.io/acme/a:1.0.0"}]
"""
    # Pod health (§5a): Running+Ready with restartPolicy Always is Healthy, so the hook counts as done.
    assert hits("HL206", text) == [
        (8, 18, "Hook Pod/seed has restartPolicy Always: the Pod never reaches Succeeded. Argo CD counts "
                "it done as soon as it is Running and Ready, before its work has finished, then the "
                "container is restarted each time it exits, and a crash loop fails the sync. Set "
                "restartPolicy: Never."),
    ]


# --------------------------------------------------------------------------------------------
# HL208 plain-job-fixed-name


def test_hl208_list_items_both_names_and_sync_option_spelling() -> None:
    text = """\
apiVersion: v1
kind: List
items:
  - apiVersion: batch/v1
    kind: Job
    metadata:
      name: both
      generateName: both-
  - apiVersion: batch/v1
    kind: Job
    metadata:
      name: spaced-options
      annotations:
        argocd.argoproj.io/sync-options: "Replace=true, Force=true"
  - apiVersion: batch/v1
    kind: Job
    metadata:
      name: lower-case-options
      annotations:
        argocd.argoproj.io/sync-options: "replace=true,force=true"
  - apiVersion: batch/v1
    kind: Job
    metadata:
      generateName: only-generated-
"""
    # Sync options are trimmed per item but case-sensitive (§7): the lower-case ones do nothing.
    assert positions("HL208", text) == [(7, 13), (18, 13)]


def test_hl208_ignored_hook_is_not_a_plain_job() -> None:
    """A misspelt hook type still makes a hook (IsHook), which Argo CD drops: HL010's business."""
    text = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    argocd.argoproj.io/hook: Presync
"""
    assert hits("HL208", text) == []


# --------------------------------------------------------------------------------------------
# HL209 stateful-object-as-hook


def test_hl209_kinds_and_generated_secrets() -> None:
    text = """\
apiVersion: v1
kind: Secret
metadata:
  name: sa-token
  annotations:
    argocd.argoproj.io/hook: PreSync
type: kubernetes.io/service-account-token
data: {token: eA==}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.acme.io
  annotations:
    helm.sh/hook: crd-install,pre-install
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: at-deletion
  annotations:
    argocd.argoproj.io/hook: PostDelete
---
apiVersion: v1
kind: Secret
metadata:
  name: literal
  annotations:
    argocd.argoproj.io/hook: PreSync
stringData: {a: b}
"""
    assert hits("HL209", text) == [
        (6, 30, "Secret/sa-token is a hook, so Argo CD deletes and re-creates it at every sync "
                "(BeforeHookCreation), and its data goes with it. Make it a normal resource with a sync "
                "wave."),
        (15, 19, "CustomResourceDefinition/widgets.acme.io is a hook, so Argo CD deletes and re-creates it "
                 "at every sync (BeforeHookCreation), and its data goes with it. Make it a normal resource "
                 "with a sync wave."),
    ]


def test_hl209_other_api_groups_application_is_not_argo_cd() -> None:
    text = """\
apiVersion: app.k8s.io/v1beta1
kind: Application
metadata:
  name: wordpress
  annotations:
    argocd.argoproj.io/hook: PostSync
"""
    # not Argo CD's Application (no "child application" words), but a custom resource: stateful as
    # a hook since issue 36
    assert hits("HL209", text) == [(
        6, 30, "Application/wordpress is a hook, so Argo CD deletes and re-creates it at every sync "
        "(BeforeHookCreation), and the controller behind app.k8s.io/Application usually deletes what it manages "
        "(a database, a cluster, their data) with it, and builds it anew. Make it a normal resource with a sync wave.",
    )]  # fmt: skip


def test_hl209_application_without_resources_finalizer_message() -> None:
    text = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: child
  annotations:
    argocd.argoproj.io/hook: PostSync
spec:
  project: apps
"""
    # Without resources-finalizer.argocd.argoproj.io, deleting the Application leaves its resources.
    assert hits("HL209", text) == [
        (6, 30, "Application/child is a hook, so Argo CD deletes and re-creates it at every sync "
                "(BeforeHookCreation), and the child application and its sync history go with it. Make it "
                "a normal resource with a sync wave."),
    ]


def test_hl209_hook_failed_only_message() -> None:
    text = """\
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: cache
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: HookFailed
"""
    # HookFailed only: deleted when the operation fails, kept (and re-applied) after a success (§6).
    assert hits("HL209", text) == [
        (6, 30, "PersistentVolumeClaim/cache is a hook, so Argo CD deletes it whenever a sync fails "
                "(HookFailed), and its data goes with it. Make it a normal resource with a sync wave."),
    ]


# --------------------------------------------------------------------------------------------
# HL401 application-in-default-project


def test_hl401_positions_for_missing_and_null_project() -> None:
    text = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: no-spec
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: no-project
spec:
  destination: {name: in-cluster, namespace: web}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: null-project
spec:
  project:
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: other-case
spec:
  project: Default
"""
    # Project names are case-sensitive: 'Default' is another project, not the default one.
    # A null project is reported at the `project:` value, a missing one at the `spec:` key (at
    # metadata.name when there is no spec). spec.project has no omitempty, so the CRD requires it.
    def missing(name: str) -> str:
        return (
            f"Application/{name} has no spec.project: the field is required, so the API server rejects "
            "the Application. Set spec.project to a project that limits destinations and kinds."
        )

    assert hits("HL401", text) == [
        (4, 9, missing("no-spec")),
        (10, 1, missing("no-project")),
        (18, 11, missing("null-project")),
    ]


# --------------------------------------------------------------------------------------------
# HL402 appproject-allows-everything


def test_hl402_every_wildcard_entry_and_near_misses() -> None:
    text = """\
apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata:
  name: wide
spec:
  sourceRepos: ['*', "*"]
  destinations:
    - {server: '*', namespace: payments}
    - {server: 'https://kubernetes.default.svc', name: '*', namespace: '*'}
    - {namespace: '*'}
  clusterResourceWhitelist:
    - {group: '*', kind: Namespace}
    - {group: '*', kind: '*'}
  namespaceResourceWhitelist:
    - {group: '*', kind: '*'}
"""
    assert positions("HL402", text) == [(6, 17), (6, 22), (9, 7), (13, 7)]


def test_hl402_ignores_other_kinds_and_groups() -> None:
    text = """\
apiVersion: example.com/v1
kind: AppProject
metadata:
  name: lookalike
spec:
  sourceRepos: ['*']
"""
    assert hits("HL402", text) == []


# --------------------------------------------------------------------------------------------
# HL901 unused-suppression

HL901_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: tune
  annotations:
    argocd.argoproj.io/hook: PreSync
    hooklint.io/ignore: "{ignore}"
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: tune
          image: ghcr.io/acme/tune:1.0.0
          securityContext: {{privileged: true}}
"""


def _unused(name: str) -> str:
    return (
        f"hooklint.io/ignore entry '{name}' on Job/tune suppressed nothing: a stale suppression hides "
        "the next real finding. Remove the entry."
    )


def _unknown(name: str) -> str:
    return (
        f"hooklint.io/ignore entry '{name}' on Job/tune names no hooklint rule: write rule ids or slugs, "
        "separated by commas, with an optional ': reason', and entries separated by ';'."
    )


def test_hl901_names_separated_by_spaces_and_commas() -> None:
    text = HL901_JOB.format(ignore="HL105 HL107,HL204: tuning job")
    assert hits("HL105", text) == []
    assert hits("HL901", text) == [(7, 25, _unused("HL107")), (7, 25, _unused("HL204"))]


def test_hl901_reason_without_colon_reads_as_names() -> None:
    text = HL901_JOB.format(ignore="HL105 tuning")
    assert hits("HL105", text) == []
    assert hits("HL901", text) == [(7, 25, _unknown("tuning"))]


def test_hl901_entry_with_only_a_reason_and_empty_entries_are_silent() -> None:
    text = HL901_JOB.format(ignore="HL105: tuning;; : no names here;")
    assert hits("HL105", text) == []
    assert hits("HL901", text) == []


def test_hl901_disabled_keeps_suppressing() -> None:
    text = HL901_JOB.format(ignore="HL105: tuning; HL999")
    assert hits("HL105", text, {"disable": ["HL901"]}) == []
    assert hits("HL901", text, {"disable": ["HL901"]}) == []


def test_hl901_suppression_on_context_object_is_not_reported() -> None:
    text = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
"""
    assert hits("HL901", text, context=HL901_JOB.format(ignore="HL204: stale")) == []


@pytest.mark.parametrize("name", ["hook-privileged-pod", "hl105"])
def test_hl901_slug_and_lower_case_id_suppress(name: str) -> None:
    text = HL901_JOB.format(ignore=f"{name}: tuning job")
    assert hits("HL105", text) == []
    assert hits("HL901", text) == []
    # only HL105 is suppressed
    assert positions("HL103", text) == [(10, 5)]


def test_hl901_loader_finding_on_the_object() -> None:
    text = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: tune
  annotations:
    argocd.argoproj.io/hook: PreSync
    hooklint.io/ignore: "HL002: generated by a tool we do not control"
spec:
  backoffLimit: 1
  backoffLimit: 2
"""
    # The object's entry suppresses the loader's duplicate-key finding, and so is not unused.
    assert hits("HL002", text) == []
    assert hits("HL901", text) == []
    unsuppressed = text.replace('    hooklint.io/ignore: "HL002: generated by a tool we do not control"\n', "")
    assert hits("HL002", unsuppressed) == [
        (9, 3, "Key 'backoffLimit' is repeated (first at line 8): the API server keeps only the last value, "
               "while a reviewer may read the first. Remove one of them."),
    ]


def test_hl209_namespace_holding_only_hooks_is_fine() -> None:
    """A PreSync namespace created for hook Jobs only loses nothing when it is deleted."""
    text = """\
apiVersion: v1
kind: Namespace
metadata:
  name: prereq-check
  annotations:
    argocd.argoproj.io/hook: PreSync
---
apiVersion: batch/v1
kind: Job
metadata:
  name: check
  namespace: prereq-check
  annotations:
    argocd.argoproj.io/hook: PreSync
"""
    assert hits("HL209", text) == []
    with_resource = text + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep\n  namespace: prereq-check\n"
    assert positions("HL209", with_resource) == [(6, 30)]


# --- HL206: the PostDelete panic of Argo CD 2.10.0 to 2.11.14 ------------------------------------

POST_DELETE_SECRET = """\
apiVersion: v1
kind: Secret
metadata:
  name: farewell
  annotations:
    helm.sh/hook: post-delete
    helm.sh/hook-delete-policy: hook-succeeded
stringData:
  note: gone
"""


@pytest.mark.parametrize(("version", "expected"), [
    ("2.9", []),            # no PostDelete hooks yet: HL010 says so
    ("2.10.0", [(6, 19)]),  # the first release with PostDelete panics on a kind without health
    ("2.11.14", [(6, 19)]),  # the last release that does
    ("2.12.0", []),         # fixed by argo-cd #18828
    ("3.5", []),
])  # fmt: skip
def test_hl206_post_delete_hook_without_health_check_by_version(version: str, expected: list) -> None:
    cfg = parse_config({"argocd-version": version}, "test")
    found = [(f.span.line, f.span.column) for f in lint_text(POST_DELETE_SECRET, config=cfg) if f.rule_id == "HL206"]
    assert found == expected


def test_hl206_post_delete_hook_with_a_health_check_or_a_custom_kind_is_not_the_panic() -> None:
    cfg = parse_config({"argocd-version": "2.11"}, "test")
    job = POST_DELETE_SECRET.replace("kind: Secret", "apiVersion: batch/v1\nkind: Job", 1).replace("apiVersion: v1\n", "", 1)
    custom = POST_DELETE_SECRET.replace("apiVersion: v1\nkind: Secret", "apiVersion: example.com/v1\nkind: Farewell")
    for text in (job, custom):  # a Job has a health check; a custom kind may have a bundled Lua one
        assert [f for f in lint_text(text, config=cfg) if f.rule_id == "HL206" and "panics" in f.message] == []


_HL107_CAUGHT = ["PGPASSWORD", "pgpassword", "MYPASSWORD", "APITOKEN", "VAULTTOKEN", "DB_PASSWORD", "PG_PASSWORD",
                 "MYSQL_PWD", "DBPASSWD", "GPG_PASSPHRASE", "CLIENTSECRET", "DATADOGAPIKEY", "AWS_SECRET_ACCESS_KEY",
                 "GOOGLE_APPLICATION_CREDENTIALS_JSON", "SSHPRIVATEKEY", "ADMIN_PASSWORD_HASH", "OAUTH_TOKEN_URL"]
_HL107_QUIET = ["PGPASSWORD_FILE", "TOKEN_PATH", "WEBHOOK_TOKEN_URL", "SECRET_NAME", "TOKEN_REF", "AWS_ACCESS_KEY_ID",
                "TOKEN_TTL", "PASSWORD_MIN_LENGTH", "AUTH_TOKEN_ENABLED", "MAX_TOKENS", "TOKENIZER_MODEL", "PWD",
                "OLDPWD", "DB_USER", "PASSWORD_REQUIRED", "TOKEN_AUDIENCE", "SECRET_STORE_PROVIDER"]


@pytest.mark.parametrize("name", _HL107_CAUGHT)
def test_hl107_finds_credential_words_inside_names(name: str) -> None:
    """A credential word is found as a whole word or at the end of a word written without separators
    (PGPASSWORD is libpq's password variable); an address is a credential when it carries a userinfo."""
    value = "https://bot:hunter2@auth.example.com/token" if name.endswith("URL") else "hunter2"
    text = HL107_POD.format(env=f'        - {{name: {name}, value: "{value}"}}')
    assert hits("HL107", text) == [
        (13, 27 + len(name), f"Env var {name} of container 'smoke' of Pod/smoke carries a literal value: the "
                             "credential is in the Git repository, in every rendered manifest and in the Pod's spec, "
                             "readable by anyone who can read the repository or the Pod. Use valueFrom.secretKeyRef."),
    ]


@pytest.mark.parametrize("name", _HL107_QUIET)
def test_hl107_quiet_on_names_that_hold_no_credential(name: str) -> None:
    """Paths, Secret names, key ids, lifetimes, lengths, switches, the shell's working directories and
    an address without userinfo hold no credential."""
    value = "https://auth.example.com/token" if name.endswith("URL") else "/var/run/secrets/x"
    text = HL107_POD.format(env=f'        - {{name: {name}, value: "{value}"}}')
    assert hits("HL107", text) == []
