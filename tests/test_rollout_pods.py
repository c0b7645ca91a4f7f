"""The security rules read the pod template of an Argo Rollouts ``Rollout`` hook (attack issue 32):
``spec.template`` is a ``corev1.PodTemplateSpec`` (``argo-rollouts pkg/apis/rollouts/v1alpha1/types.go``
``RolloutSpec``); a ``spec.workloadRef`` takes the template from a Deployment, ReplicaSet or
PodTemplate (``rollout/templateref.go``), which HL110 reports. OpenKruise's ``Rollout``
(``rollouts.kruise.io``) has no pod template and is not read as one."""

from __future__ import annotations

from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.model import pod_spec_path

runner = CliRunner()
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n---\n"
DIGEST = "registry.example.com/x@sha256:" + "0" * 64
#: The attacker's PreSync Rollout: privileged and hostPID.
ROLLOUT = CM + """\
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: pwn
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  selector:
    matchLabels: {app: pwn}
  template:
    metadata:
      labels: {app: pwn}
    spec:
      hostPID: true
      containers:
      - name: x
        image: busybox:latest
        securityContext: {privileged: true}
  strategy:
    canary: {}
"""
TAIL = "a PreSync hook runs on every sync and then controls the node, not just its pod. Remove it, or do this work outside the cluster's workloads."
NEVER = ("warning HL206 hook-never-completes: Rollout/{0} is a PreSync hook, but a Rollout never completes: it keeps "
         "running after the hook step and is deleted and re-created on every sync. Use a Job for hook work, or make it "
         "a normal resource with a sync wave.")  # fmt: skip


def _lint(tmp_path, monkeypatch, text: str) -> tuple[int, list[str]]:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "r.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["lint", "--no-cache", "."])
    return result.exit_code, result.output.splitlines()


def test_attack_rollout_pod_template_is_checked(tmp_path, monkeypatch):
    """Before: HL209 (as if a database operator's resource) and nothing about the pod: no HL105."""
    code, lines = _lint(tmp_path, monkeypatch, ROLLOUT)
    assert code == 1
    assert lines[:8] == [
        "app/r.yaml:11:30: " + NEVER.format("pwn"),
        "app/r.yaml:18:5: warning HL103 hook-default-service-account: Rollout/pwn sets no serviceAccountName, so its pods "
        "run as the namespace's 'default' ServiceAccount: a PreSync hook then shares identity and permissions with every "
        "other unconfigured pod. Create a dedicated ServiceAccount and set spec.template.spec.serviceAccountName. Its "
        "token is mounted too, with no role bound to it in this application (HL104).",
        "app/r.yaml:18:5: warning HL104 hook-automounts-token: Rollout/pwn mounts the token of ServiceAccount 'default' "
        "(HL103; not turned off here; the ServiceAccount is not in this application), and no binding in this application grants it a "
        "role. Set automountServiceAccountToken: false, or give the hook its own, least-privileged ServiceAccount.",
        f"app/r.yaml:19:16: error HL105 hook-privileged-pod: Rollout/pwn sets hostPID: true: {TAIL}",
        "app/r.yaml:22:16: warning HL102 hook-image-mutable-tag: Image 'busybox:latest' of container 'x' of Rollout/pwn "
        "uses the mutable tag ':latest': each sync may run different code than was reviewed. Pin a version tag or, "
        "better, an @sha256 digest.",
        f"app/r.yaml:23:39: error HL105 hook-privileged-pod: The container 'x' of Rollout/pwn is privileged: {TAIL}",
        "",
        "2 errors, 4 warnings, 0 notes in 1 file",
    ]


def test_rollout_pod_template_annotations_are_not_read(tmp_path, monkeypatch):
    """HL018 reads a Rollout's pod template as a Deployment's: a delete policy written there is
    not the hook's."""
    text = ROLLOUT.replace("      labels: {app: pwn}\n", "      labels: {app: pwn}\n      annotations: {argocd.argoproj.io/hook-delete-policy: HookSucceeded}\n")
    text = text.replace("busybox:latest", DIGEST).replace("      hostPID: true\n", "").replace(
        "        securityContext: {privileged: true}\n", "").replace("    spec:\n      containers", "    spec:\n      serviceAccountName: pwn\n      automountServiceAccountToken: false\n      containers")  # fmt: skip
    code, lines = _lint(tmp_path, monkeypatch, text)
    assert code == 1
    assert lines[:3] == [
        "app/r.yaml:11:30: " + NEVER.format("pwn"),
        "app/r.yaml:18:21: error HL018 hook-annotation-on-pod-template: argocd.argoproj.io/hook-delete-policy "
        "'HookSucceeded' is on the pod template of Rollout/pwn (spec.template.metadata.annotations), where Argo CD never "
        "reads it: it reads hook, delete-policy, wave and sync-option annotations from the object's own metadata only, "
        "so Rollout/pwn runs as a PreSync hook in wave 0. Move it to metadata.annotations.",
        "",
    ]


#: A Rollout that takes its pod template from a Deployment, and OpenKruise's Rollout of the same kind name.
WORKLOAD_REF = CM + """\
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: web
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  workloadRef:
    apiVersion: apps/v1
    kind: Deployment
    name: web
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 0
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      hostPID: true
      containers:
      - name: web
        image: busybox:latest
---
apiVersion: rollouts.kruise.io/v1beta1
kind: Rollout
metadata:
  name: kruise
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  workloadRef:
    apiVersion: apps/v1
    kind: Deployment
    name: web
  template:
    spec:
      hostNetwork: true
"""


def test_rollout_workload_ref_is_hl110_and_other_groups_rollout_is_not_read(tmp_path, monkeypatch):
    """Before: no HL110, so the Deployment's hostPID pod template, which the Rollout hook runs,
    passed unread (the Deployment itself is a plain resource, not checked by HL105). OpenKruise's
    Rollout is a custom resource of another group: HL209 as before, no pod read, no HL206; its
    ``hostNetwork: true`` is a pod setting hooklint does not read, so HL110 (fail closed)."""
    code, lines = _lint(tmp_path, monkeypatch, WORKLOAD_REF)
    assert code == 1
    assert lines[:4] == [
        "app/r.yaml:11:30: " + NEVER.format("web"),
        "app/r.yaml:13:3: warning HL110 hook-workflow-pods-not-read: Rollout/web makes its pods from the pod template of "
        "Deployment 'web' (spec.workloadRef), not from this object, so hooklint did not check the images, ServiceAccount "
        "and privileges of those pods (HL101-HL105). Review that Deployment's pod template (hooklint reads it as an "
        "object of its own, not as this hook's pods), or write the pod template in spec.template.",
        "app/r.yaml:40:30: warning HL209 stateful-object-as-hook: Rollout/kruise is a hook, so Argo CD deletes and "
        "re-creates it at every sync (BeforeHookCreation), and the controller behind rollouts.kruise.io/Rollout usually "
        "deletes what it manages (a database, a cluster, their data) with it, and builds it anew. Make it a normal "
        "resource with a sync wave.",
        "app/r.yaml:48:7: warning HL110 hook-workflow-pods-not-read: Rollout/kruise is a Rollout (rollouts.kruise.io), "
        "whose pods hooklint does not read, and it holds pod settings from spec.template.spec.hostNetwork on, among "
        "them hostNetwork: true (spec.template.spec.hostNetwork): its controller may run pods with them, so hooklint "
        "did not check the images, ServiceAccount and privileges of those pods (HL101-HL105). Review those pods "
        "yourself, or run the work as a Job, whose pod hooklint reads.",
    ]


def test_pod_spec_path_counts_a_custom_resource_in_its_group_only():
    assert pod_spec_path("argoproj.io", "Rollout") == ("spec", "template", "spec")
    assert pod_spec_path("rollouts.kruise.io", "Rollout") is None
    assert pod_spec_path("apps", "Deployment") == ("spec", "template", "spec")
    assert pod_spec_path("", "Pod") == ("spec",)
    assert pod_spec_path("argoproj.io", "Workflow") is None


#: A CronWorkflow hook (its Workflow's templates are not read as pods) and a Helm-hooked Rollout.
CRON_AND_HELM = """\
apiVersion: argoproj.io/v1alpha1
kind: CronWorkflow
metadata:
  name: nightly
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  schedules: ["0 1 * * *"]
  workflowSpec:
    entrypoint: main
    templates:
      - name: main
        container:
          image: busybox
          securityContext: {privileged: true}
---
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: web
  annotations:
    helm.sh/hook: pre-upgrade
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      serviceAccountName: web
      automountServiceAccountToken: false
      containers:
        - name: web
          image: """ + DIGEST + "\n"


def test_cron_workflow_hook_is_hl110_and_a_helm_hook_rollout_is_a_workload(tmp_path, monkeypatch):
    """Before: the CronWorkflow's privileged template passed with HL209 alone (nothing said its
    pods were not read), and HL303 did not read a Rollout as the workload it is."""
    code, lines = _lint(tmp_path, monkeypatch, CM + CRON_AND_HELM)
    assert code == 1
    assert [line for line in lines if " HL110 " in line or " HL303 " in line] == [
        "app/r.yaml:14:3: warning HL110 hook-workflow-pods-not-read: CronWorkflow/nightly makes a Workflow on its "
        "schedule from spec.workflowSpec (template 'main' runs image 'busybox' with privileged container 'None'), and "
        "hooklint does not read a CronWorkflow's templates as pods, so hooklint did "
        "not check the images, ServiceAccount and privileges of those pods (HL101-HL105). Review its templates "
        "yourself, or run the work as a Workflow hook with the templates in it, whose pods hooklint reads.",
        "app/r.yaml:27:19: warning HL303 helm-hook-runs-in-both-phases: helm.sh/hook 'pre-upgrade' on Rollout/web asks "
        "for pre-upgrade only, but Argo CD cannot tell an install from an upgrade: it runs the hook as PreSync on every "
        "sync, the first one included. Make the hook safe to run on a fresh install, or add pre-install to say so.",
    ]
