"""Edges of HL020, HL021, HL211, HL308, HL309 and HL310 that the rule files' examples do not
cover: HL020 at the edges of its version ranges, the Lua health list, and each rule's exemptions,
with exact positions (1-based line, column) and messages."""

from __future__ import annotations

import pytest

from conftest import hits, positions
from hooklint import argocd
from hooklint.config import parse_config
from hooklint.pipeline import lint_text


# --------------------------------------------------------------------------------------------
# HL020 server-side-apply-dry-run

SSA_HOOK = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
---
apiVersion: batch/v1
kind: Job
metadata:
  name: smoke-test
  annotations:
    argocd.argoproj.io/hook: PostSync
    argocd.argoproj.io/sync-options: ServerSideApply=true
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: test
          image: registry.example.com/smoke:1.0.0
"""


@pytest.mark.parametrize(
    ("version", "reported"),
    [
        ("2.4.28", False),  # before ServerSideApply (gitops-engine v0.7.3 sends no field manager)
        ("2.5.0", True),
        ("2.9.22", True),
        ("2.10.0", False),  # gitops-engine PR #564: !dryRun && ...
        ("2.13.9", False),
        ("2.14.0", True),  # PR #634: shouldUseServerSideApply tests sc.dryRun only
        ("2.14.6", True),
        ("2.14.7", False),  # PR #699
        ("3.0.0", False),
    ],
)
def test_hl020_version_edges(version: str, reported: bool) -> None:
    assert positions("HL020", SSA_HOOK, {"argocd-version": version}) == ([(12, 38)] if reported else [])


def test_hl020_silent_on_the_default_version() -> None:
    """No argocd-version: the newest release hooklint knows, which is not affected."""
    assert not argocd.ssa_dry_run_applies(argocd.DEFAULT_VERSION)
    assert positions("HL020", SSA_HOOK) == []


def test_hl020_ranges_match_the_upstream_releases() -> None:
    assert argocd.SSA_DRY_RUN_APPLIES == (((2, 5, 0), (2, 10, 0)), ((2, 14, 0), (2, 14, 7)))


def test_hl020_replace_and_server_side_apply_false_are_not_reported() -> None:
    replaced = SSA_HOOK.replace("ServerSideApply=true", "ServerSideApply=true,Replace=true")
    assert positions("HL020", replaced, {"argocd-version": "2.14.6"}) == []
    disabled = SSA_HOOK.replace("ServerSideApply=true", "ServerSideApply=false")
    assert positions("HL020", disabled, {"argocd-version": "2.14.6"}) == []


def test_hl020_application_set_template_and_the_2_14_exemption() -> None:
    text = """\
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: shops
  namespace: argocd
spec:
  generators:
    - list:
        elements: [{name: eu}]
  template:
    metadata:
      name: 'shop-{{name}}'
    spec:
      project: shop
      source: {repoURL: https://github.com/acme/deploy.git, path: shop}
      destination: {server: https://kubernetes.default.svc, namespace: shop}
      syncPolicy:
        syncOptions: [ServerSideApply=true]
"""
    [(line, column, message)] = hits("HL020", text, {"argocd-version": "2.14.2"})
    assert (line, column) == (18, 23)
    assert message.startswith(
        "ServerSideApply=true in spec.template.spec.syncPolicy.syncOptions of ApplicationSet/shops: Argo CD 2.14.2 "
    )
    assert "every object of the application without Replace=true or ServerSideApply=false is applied" in message
    assert message.endswith("Upgrade Argo CD to 2.14.7 or later, or drop ServerSideApply=true.")


# --------------------------------------------------------------------------------------------
# HL021 argocd-key-in-labels

def test_hl021_every_real_label_is_silent_and_a_copied_annotation_too() -> None:
    text = """\
apiVersion: v1
kind: Secret
metadata:
  name: prod-cluster
  labels:
    argocd.argoproj.io/secret-type: cluster
    argocd.argoproj.io/auto-label-cluster-info: "true"
    argocd.argoproj.io/kubernetes-version: "1.31"
    argocd.argoproj.io/instance: platform
    argocd.argoproj.io/managed-by: argocd
    argocd.argoproj.io/sync-wave: "2"
  annotations:
    argocd.argoproj.io/sync-wave: "2"
"""
    assert positions("HL021", text) == []


def test_hl021_invalid_label_value_and_helm_weight() -> None:
    text = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  labels:
    argocd.argoproj.io/sync-wave: "-1"
    helm.sh/hook-weight: "5"
    argocd.argoproj.io/compare-options: IgnoreExtraneous
"""
    got = hits("HL021", text)
    assert [(line, column) for line, column, _ in got] == [(6, 5), (7, 5), (8, 5)]
    assert got[0][2] == (
        "argocd.argoproj.io/sync-wave is a label of ConfigMap/settings, but Argo CD reads it only from "
        "metadata.annotations, and '-1' is no valid label value (at most 63 letters, digits, '-', '_' or '.', "
        "starting and ending with a letter or digit), so the API server rejects ConfigMap/settings and the "
        "sync fails. Move it to metadata.annotations."
    )
    assert got[1][2] == (
        "helm.sh/hook-weight is a label of ConfigMap/settings, but Argo CD reads it only from "
        "metadata.annotations, so ConfigMap/settings is applied as a plain resource in Sync wave 0. Move it "
        "to metadata.annotations."
    )
    assert got[2][2] == (
        "argocd.argoproj.io/compare-options is a label of ConfigMap/settings, but Argo CD reads it only from "
        "metadata.annotations, so it has no effect. Move it to metadata.annotations."
    )


# --------------------------------------------------------------------------------------------
# HL211 hook-foreign-finalizer

FINALIZED = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: plain
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: marker
  annotations:
    argocd.argoproj.io/hook: {hook}
    argocd.argoproj.io/hook-delete-policy: {policy}
  finalizers:
    - kubernetes.io/pvc-protection
    - resources-finalizer.argocd.argoproj.io
    - storage.k8s.io/cleanup
    - one.example.com/a
    - two.example.com/b
"""


def test_hl211_names_every_foreign_finalizer_at_the_first() -> None:
    [(line, column, message)] = hits("HL211", FINALIZED.format(hook="PreSync", policy="HookFailed"))
    assert (line, column) == (17, 7)
    assert message.startswith(
        "Hook ConfigMap/marker carries the finalizers 'one.example.com/a', 'two.example.com/b', which Argo CD "
        "does not remove: once HookFailed deletes it,"
    )


def test_hl211_written_before_hook_creation_is_not_called_the_default() -> None:
    [(_, _, message)] = hits("HL211", FINALIZED.format(hook="PreSync", policy="BeforeHookCreation"))
    assert "when BeforeHookCreation deletes it at the start of the next sync, it stays" in message


def test_hl211_hook_succeeded_with_before_hook_creation_hangs_the_next_sync() -> None:
    [(_, _, message)] = hits("HL211", FINALIZED.format(hook="PreSync", policy="BeforeHookCreation,HookSucceeded"))
    assert (
        "does not remove: once HookSucceeded deletes it, it stays Terminating until the controller that owns the "
        "finalizer removes it, and the next sync (BeforeHookCreation) waits for it to be gone before it creates "
        "ConfigMap/marker again, so the sync hangs (argo-cd #26180)."
    ) in message


def test_hl211_delete_only_hooks_are_not_reported() -> None:
    assert positions("HL211", FINALIZED.format(hook="PostDelete", policy="HookSucceeded")) == []


@pytest.mark.parametrize("name", ["foregroundDeletion", "orphan", "argocd.argoproj.io/hook-finalizer",
                                  "kubernetes.io/pv-protection", "batch.kubernetes.io/job-tracking"])  # fmt: skip
def test_hl211_finalizers_argocd_or_kubernetes_remove(name: str) -> None:
    from hooklint.checks.lifecycle import foreign_finalizer

    assert not foreign_finalizer(name)
    assert foreign_finalizer("example.com/" + name.rsplit("/", 1)[-1])


# --------------------------------------------------------------------------------------------
# HL308 hook-after-kind-without-health


@pytest.mark.parametrize(
    ("group", "kind", "checked"),
    [
        ("apps", "Deployment", True),  # built-in Go check
        ("postgresql.cnpg.io", "Cluster", True),  # resource_customizations/postgresql.cnpg.io/Cluster
        ("pkg.crossplane.io", "Provider", True),  # _.crossplane.io/_ glob
        ("crossplane.io", "Provider", False),  # '*.crossplane.io' needs a subdomain
        ("operator.victoriametrics.com", "VMCluster", True),  # operator.victoriametrics.com/_
        ("mongodbcommunity.mongodb.com", "MongoDBCommunity", False),
        ("", "ConfigMap", False),
    ],
)
def test_has_health_check_reads_the_bundled_lua_list(group: str, kind: str, checked: bool) -> None:
    assert argocd.has_health_check(group, kind) is checked


HL308_BASE = """\
apiVersion: {api}
kind: {kind}
metadata:
  name: reports
spec:
  writeConnectionSecretToRef:
    name: reports-db
---
apiVersion: batch/v1
kind: Job
metadata:
  name: seed
  annotations:
    argocd.argoproj.io/hook: PostSync
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: seed
          image: registry.example.com/seed:1.0.0
          envFrom:
            - secretRef: {{name: reports-db}}
"""


def test_hl308_a_glob_health_check_and_a_defined_secret_are_silent() -> None:
    with_glob = HL308_BASE.format(api="database.example.crossplane.io/v1", kind="PostgresInstance")
    assert positions("HL308", with_glob) == []
    without = HL308_BASE.format(api="db.example.com/v1", kind="PostgresInstance")
    assert positions("HL308", without) == [(23, 33)]
    defined = without + "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: reports-db\n"
    # nothing proves the dependency any more: the note of issue 36, at the custom resource
    found = hits("HL308", defined)
    assert [(line, column) for line, column, _ in found] == [(4, 9)]
    assert "hooklint cannot tell whether that step needs it ready" in found[0][2]


def test_hl308_operator_resource_health_checks_and_wildcard_argocd_cm_keys_count() -> None:
    without = HL308_BASE.format(api="db.example.com/v1", kind="PostgresInstance")
    operator = """\
---
apiVersion: argoproj.io/v1beta1
kind: ArgoCD
metadata:
  name: argocd
spec:
  resourceHealthChecks:
    - group: db.example.com
      kind: PostgresInstance
      check: return {status = "Healthy"}
"""
    # the ArgoCD resource is itself a kind without health that the PostSync step follows: its note
    found = hits("HL308", without + operator)
    assert [(line, column) for line, column, _ in found] == [(28, 9)]
    assert found[0][2].startswith("ArgoCD/argocd (Sync wave 0) is of kind argoproj.io/ArgoCD")
    wildcard = """\
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-cm
data:
  resource.customizations.health.db.example.com_*: return {status = "Healthy"}
"""
    assert positions("HL308", without + wildcard) == []


# --------------------------------------------------------------------------------------------
# HL309 plain-resource-reads-recreated-hook

HL309_BASE = """\
apiVersion: v1
kind: Secret
metadata:
  name: registry-credentials
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: {policy}
type: kubernetes.io/dockerconfigjson
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: cache
spec:
  selector: {{matchLabels: {{app: cache}}}}
  template:
    metadata: {{labels: {{app: cache}}}}
    spec:
      imagePullSecrets:
        - name: registry-credentials
      containers:
        - name: cache
          image: registry.example.com/cache:1.0.0
"""


def test_hl309_pull_secret_message() -> None:
    [(line, column, message)] = hits("HL309", HL309_BASE.format(policy="HookSucceeded"))
    assert (line, column) == (20, 17)
    assert message == (
        "StatefulSet/cache uses Secret/registry-credentials (imagePullSecrets), which is a PreSync hook: Argo CD "
        "deletes it as soon as its PreSync phase succeeds (HookSucceeded), so it is missing between syncs, and "
        "a pod of StatefulSet/cache that starts then (a restart, a rollout, a rescheduling) pulls its images "
        "without these credentials, which fails for a private registry. Make Secret/registry-credentials a "
        "plain resource (with a lower sync-wave than StatefulSet/cache if it must come first)."
    )


def test_hl309_hook_failed_alone_and_optional_references_are_silent() -> None:
    assert positions("HL309", HL309_BASE.format(policy="HookFailed")) == []
    optional = HL309_BASE.format(policy="HookSucceeded").replace(
        "imagePullSecrets:\n        - name: registry-credentials",
        "volumes:\n        - name: creds\n          secret: {secretName: registry-credentials, optional: true}",
    )
    assert positions("HL309", optional) == []


def test_hl309_and_hl301_name_each_other_at_the_same_reference() -> None:
    later = HL309_BASE.format(policy="BeforeHookCreation").replace("hook: PreSync", "hook: PostSync")
    findings = lint_text(later, config=parse_config({}, "test"))
    at = {(f.rule_id, f.span.line, f.span.column) for f in findings if f.rule_id in ("HL301", "HL309")}
    assert at == {("HL301", 20, 17), ("HL309", 20, 17)}
    [message] = [f.message for f in findings if f.rule_id == "HL309"]
    assert message.endswith(
        "HL301 reports too that Secret/registry-credentials comes in a later step (PostSync wave 0)."
    )
    [message] = [f.message for f in findings if f.rule_id == "HL301"]
    assert message.endswith(
        "or move StatefulSet/cache to a later step. HL309 reports too that Secret/registry-credentials is a "
        "hook Argo CD deletes (BeforeHookCreation)."
    )


# --------------------------------------------------------------------------------------------
# HL310 hook-same-step-as-its-rbac

HL310_BASE = """\
apiVersion: v1
kind: ServiceAccount
metadata:
  name: runner
  annotations:
    argocd.argoproj.io/hook: PreSync
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: runner
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/sync-wave: "{wave}"
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}}
subjects:
  - {{kind: ServiceAccount, name: runner, namespace: jobs}}
---
apiVersion: v1
kind: Pod
metadata:
  name: runner
  namespace: jobs
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  serviceAccount: runner
  restartPolicy: Never
  containers:
    - name: run
      image: registry.example.com/run:1.0.0
"""


def test_hl310_pod_hook_with_deprecated_service_account_field() -> None:
    [(line, column, message)] = hits("HL310", HL310_BASE.format(wave=0))
    assert (line, column) == (27, 19)
    assert message == (
        "Pod/runner runs as ServiceAccount runner, and ClusterRoleBinding/runner is applied in the same step "
        "(PreSync wave 0): Argo CD creates it just before the hook (kind order), but the API server's RBAC "
        "authorizer sees a new Role or binding only once its cache has it, so the hook's first API calls can "
        "fail with Forbidden on every sync: it is a hook too, created again with the hook each time. Apply it in an earlier "
        "step (a sync-wave lower than 0)."
    )


def test_hl310_an_empty_service_account_name_falls_back_to_the_deprecated_field_as_kubernetes_does() -> None:
    """Kubernetes reads ``serviceAccount`` when ``serviceAccountName`` is empty (``Convert_v1_PodSpec_To_core_PodSpec``,
    ``pkg/apis/core/v1/conversion.go``), as HL103 did; HL310 read the empty name and stayed silent."""
    manifest = HL310_BASE.format(wave=0).replace("  serviceAccount: runner\n", "  serviceAccountName: \"\"\n  serviceAccount: runner\n")
    assert positions("HL310", manifest) == [(28, 19)]


def test_hl310_an_earlier_binding_and_the_service_account_alone_are_silent() -> None:
    assert positions("HL310", HL310_BASE.format(wave=-1)) == []
