"""Hooks of a kind whose pods hooklint does not read but that hold a pod spec (attack round 12,
item 5): Argo CD runs an object of any kind as a hook (argo-cd v3.5.1 ``controller/hook.go``
``isHookOfType``), and a Kubeflow PyTorchJob's controller makes pods from each
``spec.pytorchReplicaSpecs.<role>.template`` (``kubeflow/training-operator
pkg/apis/kubeflow.org/v1`` ``ReplicaSpec.Template``, a ``corev1.PodTemplateSpec``), so HL110 says
those pods were not checked (a warning: exit 1). Inputs written for these tests."""

from __future__ import annotations

from typer.testing import CliRunner

from hooklint.cli import app

runner = CliRunner()
CHECKED = "so hooklint did not check the images, ServiceAccount and privileges of those pods (HL101-HL105)"
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n---\n"
TRAINING = CM + """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: cleanup
  annotations:
    argocd.argoproj.io/hook: PostDelete
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          hostPID: true
          containers:
          - name: main
            image: ghcr.io/acme/train:1.0.0
            securityContext: {privileged: true}
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: main
            image: ghcr.io/acme/train:1.0.0
"""
PRESYNC = CM + """\
apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: seed
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  entrypoint: python seed.py
  rayClusterSpec:
    headGroupSpec:
      template:
        spec:
          hostNetwork: true
          containers:
          - {name: head, image: rayproject/ray:2.9.0}
"""


def _lint(tmp_path, monkeypatch, text: str) -> tuple[int, list[str]]:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "hook.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["lint", "--no-cache", "."])
    return result.exit_code, result.output.splitlines()


TAIL = ("a PostDelete hook runs when the Application is deleted and then controls the node, not just its pod. Remove "
        "it, or do this work outside the cluster's workloads.")


def test_post_delete_kubeflow_training_job_pods_are_checked(tmp_path, monkeypatch):
    """A PyTorchJob's replica pod templates are read as pods (``KUBEFLOW_REPLICA_SPECS``). Before:
    ``0 errors, 0 warnings, 0 notes in 1 file``, exit 0."""
    code, lines = _lint(tmp_path, monkeypatch, TRAINING)
    assert code == 1
    assert [line for line in lines if " HL105 " in line or " HL110 " in line] == [
        f"app/hook.yaml:18:20: error HL105 hook-privileged-pod: PyTorchJob/cleanup sets hostPID: true: {TAIL}",
        "app/hook.yaml:22:43: error HL105 hook-privileged-pod: The container 'main' of replica 'Master' of "
        f"PyTorchJob/cleanup is privileged: {TAIL}",
    ]


def test_post_delete_custom_resource_pods_are_reported_not_read(tmp_path, monkeypatch):
    """A kind hooklint knows nothing of, with two pod specs. Before: no finding, exit 0."""
    text = TRAINING.replace("kubeflow.org/v1", "acme.example.com/v1").replace("PyTorchJob", "Migration").replace(
        "pytorchReplicaSpecs", "runners")
    code, lines = _lint(tmp_path, monkeypatch, text)
    assert code == 1
    assert [line for line in lines if " HL1" in line and "app/" in line] == [
        "app/hook.yaml:17:9: warning HL110 hook-workflow-pods-not-read: Migration/cleanup is a Migration (acme.example.com), "
        "whose pods hooklint does not read, and it holds a pod spec at spec.runners.Master.template.spec "
        "(image 'ghcr.io/acme/train:1.0.0'; hostPID: true, privileged container 'main'), and one at "
        "spec.runners.Worker.template.spec (image 'ghcr.io/acme/train:1.0.0')"
        f": its controller may run pods from it, {CHECKED}. Review those pods yourself, or run the work as a "
        "Job, whose pod hooklint reads.",
    ]


def test_sync_hook_custom_resource_pods_are_reported_not_read(tmp_path, monkeypatch):
    """A pod spec deeper down (a RayJob's ``spec.rayClusterSpec.headGroupSpec.template.spec``).
    Before: only the HL209 warning (nothing said the pods were not checked)."""
    code, lines = _lint(tmp_path, monkeypatch, PRESYNC)
    assert code == 1
    assert [line for line in lines if " HL110 " in line] == [
        "app/hook.yaml:17:9: warning HL110 hook-workflow-pods-not-read: RayJob/seed is a RayJob (ray.io), whose pods "
        "hooklint does not read, and it holds a pod spec at spec.rayClusterSpec.headGroupSpec.template.spec (image "
        "'rayproject/ray:2.9.0'; hostNetwork: true): its "
        f"controller may run pods from it, {CHECKED}. Review those pods yourself, or run the work as a Job, whose pod "
        "hooklint reads.",
    ]


def test_no_noise_on_custom_resources_without_pods_or_not_hooks(tmp_path, monkeypatch):
    """A custom resource hook with no containers, a PodTemplate hook (no pod of its own) and a
    PyTorchJob that is no hook: no HL110."""
    text = CM + """\
apiVersion: acme.example.com/v1
kind: Settings
metadata:
  name: s
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  values:
    containers: [a, b]
    image: x
---
apiVersion: v1
kind: PodTemplate
metadata:
  name: t
  annotations:
    argocd.argoproj.io/hook: PreSync
template:
  spec:
    containers:
    - {name: c, image: ghcr.io/acme/c:1.0.0}
---
""" + TRAINING.removeprefix(CM).replace("    argocd.argoproj.io/hook: PostDelete\n", "    team: ml\n")
    code, lines = _lint(tmp_path, monkeypatch, text)
    assert [line for line in lines if " HL110 " in line] == []


SPARK = CM + """\
apiVersion: sparkoperator.k8s.io/v1beta2
kind: SparkApplication
metadata:
  name: evil
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  type: Python
  image: docker.io/evil/spark:latest
  hostNetwork: true
  volumes:
  - name: host
    hostPath: {path: /}
  driver:
    cores: 1
    securityContext: {privileged: true}
    volumeMounts: [{name: host, mountPath: /host}]
  executor:
    instances: 1
"""


def test_operator_pod_settings_in_their_own_shape_are_reported_not_read(tmp_path, monkeypatch):
    """A SparkApplication's driver and executor pods are made of ``spec.image``, ``spec.volumes``,
    ``spec.hostNetwork`` and ``spec.driver``/``spec.executor`` (no ``containers`` list, so no pod
    spec is found): HL110 names the host network, the hostPath and the privileged driver. Before:
    only HL209 (a lifecycle warning a policy may ignore), nothing about the pods."""
    code, lines = _lint(tmp_path, monkeypatch, SPARK)
    assert code == 1
    assert [line for line in lines if " HL110 " in line] == [
        "app/hook.yaml:14:3: warning HL110 hook-workflow-pods-not-read: SparkApplication/evil is a SparkApplication "
        "(sparkoperator.k8s.io), whose pods hooklint does not read, and it holds pod settings from spec.image on, "
        "among them image 'docker.io/evil/spark:latest' (spec.image), hostNetwork: true (spec.hostNetwork), a hostPath volume (spec.volumes[0].hostPath, path '/'), privileged: "
        "true (spec.driver.securityContext.privileged): its controller may run pods with them, "
        f"{CHECKED}. Review those pods yourself, or run the work as a Job, whose pod hooklint reads.",
    ]


def test_operator_kind_with_no_pod_setting_is_still_reported(tmp_path, monkeypatch):
    """A SparkApplication always runs pods (the operator's default image): HL110 at its name; an
    unknown kind with only ``securityContext`` settings is reported at them."""
    text = CM + """\
apiVersion: sparkoperator.k8s.io/v1beta2
kind: SparkApplication
metadata:
  name: plain
  annotations: {argocd.argoproj.io/hook: PreSync}
spec:
  type: Scala
  mainClass: Main
---
apiVersion: acme.example.com/v1
kind: Runner
metadata:
  name: r
  annotations: {argocd.argoproj.io/hook: PreSync}
spec:
  worker:
    securityContext: {allowPrivilegeEscalation: true}
"""
    code, lines = _lint(tmp_path, monkeypatch, text)
    assert code == 1
    assert [line for line in lines if " HL110 " in line] == [
        "app/hook.yaml:9:9: warning HL110 hook-workflow-pods-not-read: SparkApplication/plain is a SparkApplication "
        f"(sparkoperator.k8s.io), whose controller runs pods hooklint does not read, {CHECKED}. Review those pods "
        "yourself, or run the work as a Job, whose pod hooklint reads.",
        "app/hook.yaml:22:5: warning HL110 hook-workflow-pods-not-read: Runner/r is a Runner (acme.example.com), whose "
        "pods hooklint does not read, and it holds pod settings from spec.worker.securityContext on, among them "
        "allowPrivilegeEscalation: true (spec.worker.securityContext.allowPrivilegeEscalation): its controller may run "
        f"pods with them, {CHECKED}. Review those pods yourself, or run the work as a Job, whose pod hooklint reads.",
    ]
