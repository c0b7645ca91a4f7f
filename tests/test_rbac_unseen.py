"""RBAC reach hooklint cannot see, or sees only through Argo CD's stock install (attack 11, issue 32,
items 5 and 9): an ``aggregationRule`` selecting Argo CD's own ClusterRoles, a binding straight to
one of them, a binding to a role that is in neither the application nor Kubernetes nor Argo CD, and
a selector that may gather roles of the cluster hooklint never sees (HL106); a mounted
``kubernetes.io/service-account-token`` Secret counted as that ServiceAccount's token (HL103, HL104,
HL106); the pods of OpenKruise BroadcastJob, JobSet and Volcano Job read (HL105)."""

from __future__ import annotations

import pytest

from conftest import hits
from hooklint.config import parse_config
from hooklint.pipeline import lint_text

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: seed
  namespace: shop
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 60
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: seeder
      containers: [{name: a, image: "ghcr.io/acme/seed:1.0.0"}]
"""
HEAD = "Job/seed runs as ServiceAccount 'seeder', and ClusterRoleBinding/seeder "
TAIL = ": a PreSync hook runs on every sync, so whoever controls its image or command holds "
GRANT_FIX = "those rights over the cluster. Grant only the verbs and resources it needs."
UNSEEN_FIX = ("whatever it grants over the cluster. Define the role in the application, listing only the verbs and "
              "resources it needs.")  # fmt: skip


def binding(role: str, kind: str = "ClusterRoleBinding", role_kind: str = "ClusterRole") -> str:
    ns = ", namespace: shop" if kind == "RoleBinding" else ""
    return (f"apiVersion: rbac.authorization.k8s.io/v1\nkind: {kind}\nmetadata: {{name: seeder{ns}}}\n"
            f"roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: {role_kind}, name: '{role}'}}\n"
            "subjects: [{kind: ServiceAccount, name: seeder, namespace: shop}]\n")  # fmt: skip


def aggregator(selectors: str, labels: str = "") -> str:
    meta = f"{{name: gatherer, labels: {{{labels}}}}}" if labels else "{name: gatherer}"
    return (f"apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {meta}\n"
            f"aggregationRule:\n  clusterRoleSelectors: {selectors}\nrules: []\n---\n" + binding("gatherer"))


def severities(context: str, text: str = JOB) -> list[tuple[str, str, int, int]]:
    return [(f.rule_id, f.severity, f.span.line, f.span.column) for f in lint_text(text, context=context)
            if f.rule_id.startswith("HL10")]  # fmt: skip


# --- item 1: aggregationRule selectors judged against Argo CD's and the built-in ClusterRoles ----

@pytest.mark.parametrize("selector, gathered", [
    ("{matchLabels: {app.kubernetes.io/component: application-controller}}",
     "Argo CD's ClusterRole 'argocd-application-controller'"),
    ("{matchLabels: {app.kubernetes.io/name: argocd-application-controller}}",
     "Argo CD's ClusterRole 'argocd-application-controller'"),
    ("{matchExpressions: [{key: app.kubernetes.io/component, operator: In, values: [application-controller]}]}",
     "Argo CD's ClusterRole 'argocd-application-controller'"),
])  # fmt: skip
def test_hl106_aggregation_of_argocd_application_controller_is_every_resource(selector: str, gathered: str) -> None:
    """The attack's fx/rbac1: ``rules: []`` and a selector of the application controller's label,
    which argo-cd v3.5.1's stock ClusterRole carries; the aggregation controller copies its ``*``."""
    assert hits("HL106", JOB, context=aggregator(f"[{selector}]")) == [(14, 27, (
        f"{HEAD}grants every resource with every verb through ClusterRole 'gatherer' (its aggregationRule gathers "
        f"the rules of {gathered}){TAIL}{GRANT_FIX}"))]  # fmt: skip


def test_hl106_aggregation_by_argocd_part_of_gathers_its_three_cluster_roles() -> None:
    assert hits("HL106", JOB, context=aggregator("[{matchLabels: {app.kubernetes.io/part-of: argocd}}]")) == [
        (14, 27, f"{HEAD}grants every resource with every verb, and running pods cluster-wide (create on jobs: it can run "
                 "code as any ServiceAccount of any namespace, with that namespace's Secrets), and reading secrets "
                 "cluster-wide through ClusterRole "
                 "'gatherer' (its aggregationRule gathers the rules of Argo CD's ClusterRole "
                 "'argocd-application-controller', Argo CD's ClusterRole 'argocd-server', Argo CD's ClusterRole "
                 f"'argocd-applicationset-controller'){TAIL}{GRANT_FIX}")]  # fmt: skip


@pytest.mark.parametrize("selectors, shown", [
    ("[{matchLabels: {acme.io/aggregate-to-seed: 'true'}}]", "{matchLabels: {acme.io/aggregate-to-seed: 'true'}}"),
    # NotIn, Exists, DoesNotExist select roles by labels no known role need carry
    ("[{matchExpressions: [{key: rbac.authorization.k8s.io/aggregate-to-view, operator: Exists}]}]",
     "{matchExpressions: [{key: 'rbac.authorization.k8s.io/aggregate-to-view', operator: 'Exists'}]}"),
    ("[{matchExpressions: [{key: rbac.authorization.k8s.io/aggregate-to-view, operator: In, values: ['true', x]}]}]",
     "{matchExpressions: [{key: 'rbac.authorization.k8s.io/aggregate-to-view', operator: 'In', values: ['true', 'x']}]}"),
    ("[{matchLabels: {rbac.authorization.k8s.io/aggregate-to-view: 'true'}}, {matchLabels: {team: seed}}]",
     "{matchLabels: {team: 'seed'}}"),
])  # fmt: skip
def test_hl106_warns_of_a_selector_that_may_gather_roles_hooklint_cannot_see(selectors: str, shown: str) -> None:
    """Any ClusterRole of the cluster may carry any label: a selector no known role answers, or one
    that selects by more than labels it names exactly, gives the hook rights hooklint cannot know."""
    assert hits("HL106", JOB, context=aggregator(selectors)) == [(14, 27, (
        f"{HEAD}binds it to ClusterRole 'gatherer', whose aggregationRule selector {shown} may gather ClusterRoles "
        "hooklint cannot see (any ClusterRole of the cluster may carry those labels), so hooklint cannot tell what "
        f"it grants{TAIL}{UNSEEN_FIX}"))]  # fmt: skip
    assert severities(aggregator(selectors)) == [("HL106", "warning", 14, 27)]


def test_hl106_selector_of_the_application_s_own_labels_and_built_in_view_is_judged() -> None:
    """No noise: the built-in aggregate-to-view label (view, system:aggregate-to-view) and a label
    the application's own ClusterRole carries are known; what they gather grants nothing reported."""
    view = aggregator("[{matchLabels: {rbac.authorization.k8s.io/aggregate-to-view: 'true'}}]")
    assert severities(view) == []
    own = aggregator("[{matchLabels: {acme.io/aggregate-to-seed: 'true'}}]") + (
        "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\n"
        "metadata: {name: seed-extra, labels: {acme.io/aggregate-to-seed: 'true'}}\n"
        "rules: [{apiGroups: [''], resources: [configmaps], verbs: [get]}]\n")
    assert severities(own) == []
    # the role's own label does not make its selector known: the controller leaves the role itself out
    itself = aggregator("[{matchLabels: {acme.io/aggregate-to-seed: 'true'}}]", labels="acme.io/aggregate-to-seed: 'true'")
    assert severities(itself) == [("HL106", "warning", 14, 27)]


# --- item 2: a binding to Argo CD's ClusterRole, or to a role nobody here defines ---------------

@pytest.mark.parametrize("role, grants", [
    ("argocd-application-controller", "every resource with every verb"),
    ("argocd-server", "every resource, and running pods cluster-wide (create on jobs: it can run code as any "
                      "ServiceAccount of any namespace, with that namespace's Secrets)"),
    ("argocd-applicationset-controller", "reading secrets cluster-wide"),
])  # fmt: skip
def test_hl106_binding_to_argocd_cluster_role_judged_by_the_stock_install(role: str, grants: str) -> None:
    assert hits("HL106", JOB, context=binding(role)) == [(14, 27, (
        f"{HEAD}grants {grants} through Argo CD's ClusterRole '{role}' (not in this application: the rules Argo CD's "
        f"stock install gives it){TAIL}{GRANT_FIX}"))]  # fmt: skip


def test_hl106_binding_to_a_role_nobody_here_defines_is_a_warning() -> None:
    assert hits("HL106", JOB, context=binding("acme-seeder")) == [(14, 27, (
        f"{HEAD}binds it to ClusterRole 'acme-seeder', which is not in this application nor built in or Argo CD's, so "
        f"hooklint cannot see what it grants{TAIL}{UNSEEN_FIX}"))]  # fmt: skip
    assert severities(binding("acme-seeder")) == [("HL106", "warning", 14, 27)]
    found = hits("HL106", JOB, context=binding("acme-seeder", kind="RoleBinding", role_kind="Role"))
    assert [m.split(": a PreSync")[0] for _, _, m in found] == [
        "Job/seed runs as ServiceAccount 'seeder', and RoleBinding/seeder binds it to Role 'acme-seeder', which is not "
        "in this application nor in the binding's namespace here, so hooklint cannot see what it grants"]


@pytest.mark.parametrize("role", ["view", "system:auth-delegator", "system:controller:horizontal-pod-autoscaler"])
def test_hl106_binding_to_a_known_harmless_role_is_quiet(role: str) -> None:
    assert severities(binding(role)) == []
    own = ("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: acme-seeder}\n"
           "rules: [{apiGroups: [''], resources: [configmaps], verbs: [get]}]\n---\n")
    assert severities(own + binding("acme-seeder")) == []


# --- item 3: a mounted kubernetes.io/service-account-token Secret is that ServiceAccount's token --

def token_job(secret: str, projected: bool = False, automount: str = "false") -> str:
    volume = (f"projected: {{sources: [{{secret: {{name: {secret}}}}}]}}" if projected
              else f"secret: {{secretName: {secret}}}")  # fmt: skip
    return f"""\
apiVersion: batch/v1
kind: Job
metadata:
  name: seed
  namespace: shop
  annotations:
    argocd.argoproj.io/hook: PostSync
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 60
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: seeder
      automountServiceAccountToken: {automount}
      volumes:
      - name: creds
        {volume}
      containers:
      - name: a
        image: "ghcr.io/acme/seed:1.0.0"
        volumeMounts: [{{name: creds, mountPath: /var/run/secrets/kubernetes.io/serviceaccount}}]
"""


def token_secret(name: str, account: str, kind: str = "kubernetes.io/service-account-token") -> str:
    return (f"apiVersion: v1\nkind: Secret\ntype: {kind}\nmetadata:\n  name: {name}\n  namespace: shop\n"
            f"  annotations: {{kubernetes.io/service-account.name: {account}}}\n---\n")  # fmt: skip


SEEDER = "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: seeder, namespace: shop}\nautomountServiceAccountToken: false\n---\n"
POST = ": a PostSync hook runs on every sync, so whoever controls its image or command holds "


def test_hl106_a_mounted_token_secret_of_another_service_account_carries_its_rights() -> None:
    """The pod runs as a ServiceAccount bound to nothing, but mounts the token Secret of 'ops',
    which a ClusterRoleBinding binds to cluster-admin: the pod holds cluster-admin."""
    ops = binding("cluster-admin").replace("name: seeder, namespace: shop}]", "name: ops, namespace: shop}]")
    context = SEEDER + token_secret("ops-token", "ops") + ops
    expected = [(18, 30, "Job/seed mounts the token Secret 'ops-token' of ServiceAccount 'ops', and "
                        f"ClusterRoleBinding/seeder binds it to cluster-admin{POST}{GRANT_FIX}")]  # fmt: skip
    assert hits("HL106", token_job("ops-token"), context=context) == expected
    # through a projected volume's secret source too
    assert [h[:2] for h in hits("HL106", token_job("ops-token", projected=True), context=context)] == [(18, 47)]
    # an Opaque Secret carries no token
    assert hits("HL106", token_job("ops-token"), context=SEEDER + token_secret("ops-token", "ops", "Opaque") + ops) == []


def test_hl104_counts_a_mounted_token_secret_as_a_token() -> None:
    """The attack's fx/rbac3 without its binding: automount off, the token Secret mounted at the
    token path; no binding grants the ServiceAccount a role, so the token serves nothing."""
    context = SEEDER + token_secret("seeder-token", "seeder")
    assert hits("HL104", token_job("seeder-token"), context=context) == [(18, 30, (
        "Job/seed mounts the token of ServiceAccount 'seeder' (token Secret 'seeder-token', whatever automount says), "
        "and no binding in this application grants it a role. Remove that volume, or bind it to a least-privilege Role."))]
    assert [h[:2] for h in hits("HL103", token_job("seeder-token"), context=context)] == []
    # a role bound to it: HL104 is quiet (HL106 judges the grant)
    assert hits("HL104", token_job("seeder-token"), context=context + binding("view")) == []


def test_hl103_and_hl104_a_mounted_token_secret_of_default() -> None:
    context = SEEDER + token_secret("default-token", "default")
    assert hits("HL103", token_job("default-token"), context=context) == [(18, 30, (
        "Job/seed mounts the token Secret 'default-token' of the 'default' ServiceAccount, so its pods act as "
        "'default': a PostSync hook then shares identity and permissions with every other unconfigured pod. Mount no "
        "token, or one of a dedicated ServiceAccount."))]  # fmt: skip
    assert [m for _, _, m in hits("HL104", token_job("default-token"), context=context)] == [
        "Job/seed mounts the token of ServiceAccount 'default' (HL103; token Secret 'default-token', whatever automount "
        "says), and no binding in this application grants it a role. Remove that volume, or bind it to a least-privilege Role."]


def test_hl106_attack_fixture_rbac3_shape() -> None:
    """fx/rbac3 written anew: automount off on the ServiceAccount and the pod, its token Secret
    mounted at the token path, and a ClusterRoleBinding straight to argocd-application-controller."""
    context = (SEEDER.replace("}\nautomount", "}\nautomount") + token_secret("seeder-token", "seeder")
               + binding("argocd-application-controller"))  # fmt: skip
    found = lint_text(token_job("seeder-token"), context=context)
    assert [(f.rule_id, f.severity, f.span.line, f.span.column) for f in found if f.rule_id.startswith("HL10")] == [
        ("HL106", "error", 14, 27)]


# --- item 4: the pods of OpenKruise BroadcastJob, JobSet and Volcano Job are read ----------------

BROADCAST = """\
apiVersion: apps.kruise.io/v1alpha1
kind: BroadcastJob
metadata:
  name: node-prep
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  completionPolicy: {type: Always, activeDeadlineSeconds: 120}
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: prep
      automountServiceAccountToken: false
      hostPID: true
      containers:
      - name: x
        image: "ghcr.io/acme/prep:1.0.0"
        securityContext: {privileged: true}
"""
JOBSET = """\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: train
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  replicatedJobs:
  - name: workers
    template:
      spec:
        backoffLimit: 0
        template:
          spec:
            restartPolicy: Never
            serviceAccountName: prep
            automountServiceAccountToken: false
            hostPID: true
            containers:
            - name: x
              image: "ghcr.io/acme/prep:1.0.0"
              securityContext: {privileged: true}
"""
VOLCANO = """\
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: train
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  minAvailable: 1
  schedulerName: volcano
  tasks:
  - replicas: 1
    name: main
    template:
      spec:
        restartPolicy: Never
        serviceAccountName: prep
        automountServiceAccountToken: false
        hostPID: true
        containers:
        - name: x
          image: "ghcr.io/acme/prep:1.0.0"
          securityContext: {privileged: true}
"""
NODE = ": a PreSync hook runs on every sync and then controls the node, not just its pod. Remove it, or do this work " \
       "outside the cluster's workloads."


@pytest.mark.parametrize("text, label, where, host, privileged", [
    (BROADCAST, "BroadcastJob/node-prep", "", (14, 16), (18, 39)),
    (JOBSET, "JobSet/train", " of replicated job 'workers'", (18, 22), (22, 45)),
    (VOLCANO, "Job/train", " of task 'main'", (18, 18), (22, 41)),
])  # fmt: skip
def test_hl105_reads_the_pods_of_broadcastjob_jobset_and_volcano_job(text, label, where, host, privileged) -> None:
    """The attack's fx/bj1, jobset1 and volcano1 written anew: a PreSync hook of each kind with
    hostPID and a privileged container got no HL105 (the BroadcastJob only HL209)."""
    assert hits("HL105", text) == [
        (*host, f"{label} sets hostPID: true{NODE}"),
        (*privileged, f"The container 'x'{where} of {label} is privileged{NODE}"),
    ]
    got = {f.rule_id for f in lint_text(text, config=parse_config({}, "t"))}
    assert "HL209" not in got and "HL110" not in got  # a run-to-completion kind, its pods read


def test_hl201_hl202_leave_volcano_job_alone() -> None:
    """Volcano's Job has neither backoffLimit nor activeDeadlineSeconds: HL201 and HL202 read a
    batch/v1 Job's fields, and told the attack's fx/volcano1 to set them."""
    got = [f.rule_id for f in lint_text(VOLCANO, config=parse_config({}, "t")) if f.rule_id in ("HL201", "HL202")]
    assert got == []


def test_hl106_a_mounted_token_secret_of_argocd_s_own_service_account() -> None:
    """A token Secret the application writes for Argo CD's application controller, mounted by a
    hook of Argo CD's namespace, holds what the stock install grants the controller."""
    context = SEEDER + token_secret("ctrl-token", "argocd-application-controller")
    assert hits("HL106", token_job("ctrl-token"), context=context) == [(18, 30, (
        "Job/seed mounts the token Secret 'ctrl-token' of ServiceAccount 'argocd-application-controller', one of Argo "
        "CD's own, which this application does not create: the stock Argo CD install grants it every verb on every "
        "resource of the cluster (ClusterRole argocd-application-controller), and reading the Secrets of Argo CD's "
        "namespace; a PostSync hook runs on every sync, so whoever controls its image or command holds those rights. "
        "Give it its own ServiceAccount with only the verbs and resources it needs."))]  # fmt: skip


def test_hl106_a_role_or_token_secret_without_a_namespace_is_found_in_the_destination() -> None:
    """A Role (or a token Secret) written without metadata.namespace lands in the destination
    namespace, which may be the binding's (or the pod's): it is not a role hooklint cannot see."""
    role = "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: seeder}\nrules: []\n---\n"
    assert severities(role + binding("seeder", kind="RoleBinding", role_kind="Role")) == []
    secret = token_secret("seeder-token", "seeder").replace("  namespace: shop\n", "")
    assert [h[:2] for h in hits("HL104", token_job("seeder-token"), context=SEEDER + secret)] == [(18, 30)]


def test_run_to_completion_kinds_are_said_to_run_when_created() -> None:
    """With check-all-workloads, a plain BroadcastJob runs when created, not "continuously"."""
    plain = BROADCAST.replace("  annotations:\n    argocd.argoproj.io/hook: PreSync\n", "")
    found = [f.message for f in lint_text(plain, config=parse_config({"check-all-workloads": True}, "t"))
             if f.rule_id == "HL105"]  # fmt: skip
    assert found[0] == ("BroadcastJob/node-prep sets hostPID: true: this BroadcastJob runs in the cluster whenever it "
                        "is created and then controls the node, not just its pod. Remove it, or do this work outside "
                        "the cluster's workloads.")  # fmt: skip


def test_cli_exit_codes_for_the_attack_shapes(tmp_path, monkeypatch) -> None:
    """``hooklint lint`` on the attack's shapes, written anew: the aggregated Argo CD controller is
    an error (exit 1; exit 0 before); a role hooklint cannot see a warning, which fails the run at
    the default fail-on and passes with ``--fail-on error``."""
    from typer.testing import CliRunner  # noqa: PLC0415

    from hooklint.cli import app  # noqa: PLC0415

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / "cache"))
    runner = CliRunner()

    def early(text: str) -> str:  # applied before the hook (no HL301), with a plain object (no HL305)
        early_meta = ", annotations: {argocd.argoproj.io/hook: PreSync, argocd.argoproj.io/sync-wave: '-1'}}"
        return text.replace("{name: seeder}", "{name: seeder" + early_meta).replace(
            "{name: gatherer}", "{name: gatherer" + early_meta) + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"

    (tmp_path / "agg").mkdir()
    (tmp_path / "agg" / "hook.yaml").write_text(
        JOB + "---\n" + early(aggregator("[{matchLabels: {app.kubernetes.io/component: application-controller}}]")))
    result = runner.invoke(app, ["lint", "agg"])
    assert result.exit_code == 1, result.output
    assert "agg/hook.yaml:14:27: error HL106 hook-overprivileged-rbac: " in result.output
    assert "1 error, 0 warnings, 0 notes" in result.output
    (tmp_path / "unseen").mkdir()
    (tmp_path / "unseen" / "hook.yaml").write_text(JOB + "---\n" + early(binding("acme-seeder")))
    result = runner.invoke(app, ["lint", "unseen"])
    assert result.exit_code == 1, result.output
    assert "unseen/hook.yaml:14:27: warning HL106 hook-overprivileged-rbac: " in result.output
    assert "0 errors, 1 warning, 0 notes" in result.output
    assert runner.invoke(app, ["lint", "--fail-on", "error", "unseen"]).exit_code == 0


def test_hl110_a_jobset_whose_pod_template_is_not_read() -> None:
    """A JobSet hook whose replicated jobs hold no pod template hooklint can read (here a typo:
    ``templates``) is not passed silently."""
    broken = JOBSET.replace("    template:\n      spec:\n        backoffLimit", "    templates:\n      spec:\n        backoffLimit")
    assert hits("HL110", broken) == [(4, 9, (
        "JobSet/train is a jobset.x-k8s.io/JobSet: its controller makes the pods that run it from settings hooklint does "
        "not read, so hooklint did not check the images, ServiceAccount and privileges of those pods (HL101-HL105). "
        "Review what it runs yourself, or run the work as a Job."))]  # fmt: skip
    assert hits("HL110", JOBSET) == []
