"""HL105 on claims a controller makes from a template rather than a PersistentVolumeClaim
written in the repository (attack round 16, F1): a generic ephemeral volume's
``ephemeral.volumeClaimTemplate`` (kubernetes ``pkg/controller/volume/ephemeral/controller.go``
``handleVolume`` creates the claim ``<pod>-<volume>`` from the template's spec, and the PV
controller binds it like any claim). Inputs written for these tests."""

from __future__ import annotations

from typer.testing import CliRunner

from conftest import git
from hooklint.cli import app

runner = CliRunner()
TAIL = ("a PreSync hook runs on every sync and then controls the node, not just its pod. Remove it, or do this work "
        "outside the cluster's workloads.")
MATCH = "the claim names no spec.volumeName, and the volume matches its storage class, selector, access modes, size and volume mode"
PV = """\
apiVersion: v1
kind: PersistentVolume
metadata: {name: node-root}
spec:
  storageClassName: manual
  capacity: {storage: 4Gi}
  accessModes: [ReadWriteOnce]
  hostPath: {path: /}
"""
EPHEMERAL_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 300
  template:
    spec:
      serviceAccountName: migrate
      automountServiceAccountToken: false
      restartPolicy: Never
      containers:
      - name: c
        image: ghcr.io/acme/migrate:1.2.0
        volumeMounts: [{name: scratch, mountPath: /scratch}]
      volumes:
      - name: scratch
        ephemeral:
          volumeClaimTemplate:
            spec:
              storageClassName: CLASS
              accessModes: [ReadWriteOnce]
              resources: {requests: {storage: 1Gi}}
"""


def _lint(tmp_path, monkeypatch, storage: str, hook: str) -> tuple[int, list[str]]:
    """Lint a repository whose ``storage/`` folder holds ``storage`` and ``app/`` the hook."""
    for folder, text in (("storage", storage), ("app", hook)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "all.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["lint", "--no-cache", "."])
    return result.exit_code, [line for line in result.output.splitlines() if " HL105 " in line]


def ephemeral_message(line: str = "21:9") -> str:
    return (f"app/all.yaml:{line}: error HL105 hook-privileged-pod: Job/migrate may mount the node's filesystem through "
            "volume 'scratch': the PersistentVolumeClaim its ephemeral.volumeClaimTemplate makes may bind to "
            f"PersistentVolume 'node-root' ({MATCH}; storage/all.yaml), a hostPath volume of '/' on the node: {TAIL}")


def test_hl105_ephemeral_volume_claim_template_may_bind_to_a_host_path_volume(tmp_path, monkeypatch) -> None:
    assert _lint(tmp_path, monkeypatch, PV, EPHEMERAL_JOB.replace("CLASS", "manual")) == (1, [ephemeral_message()])


def test_hl105_ephemeral_volume_claim_template_of_another_class_is_not_reported(tmp_path, monkeypatch) -> None:
    assert _lint(tmp_path, monkeypatch, PV, EPHEMERAL_JOB.replace("CLASS", "fast")) == (0, [])


def test_diff_reports_a_new_hook_whose_ephemeral_volume_may_bind_to_a_host_path_volume(tmp_path, monkeypatch) -> None:
    (tmp_path / "storage").mkdir()
    (tmp_path / "storage" / "all.yaml").write_text(PV)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "config", "user.email", "ci@example.com")
    git(tmp_path, "config", "user.name", "ci")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "one")
    (tmp_path / "app" / "all.yaml").write_text(EPHEMERAL_JOB.replace("CLASS", "manual"))
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "two")
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["diff", "--no-cache", "HEAD~1", "app"])
    assert [line for line in result.output.splitlines() if " HL105 " in line] == ["  " + ephemeral_message()]
    assert result.exit_code == 1


WORKFLOW = """\
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  generateName: migrate-
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  entrypoint: main
  serviceAccountName: migrate
  automountServiceAccountToken: false
  activeDeadlineSeconds: 300
  volumeClaimTemplates:
  - metadata: {name: unused}
    spec: {storageClassName: manual, accessModes: [ReadWriteOnce]}
  - metadata: {name: work}
    spec:
      storageClassName: manual
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
  templates:
  - name: main
    container:
      image: ghcr.io/acme/migrate:1.2.0
      volumeMounts: [{name: work, mountPath: /work}]
"""


def test_hl105_workflow_volume_claim_template_mounted_by_a_pod_may_bind_to_a_host_path_volume(tmp_path, monkeypatch) -> None:
    """argo-workflows ``operator.go`` ``createPVCs``: the template 'unused' is made too, but no pod mounts it."""
    assert _lint(tmp_path, monkeypatch, PV, WORKFLOW) == (1, [
        "app/all.yaml:15:5: error HL105 hook-privileged-pod: Workflow/migrate-* may mount the node's filesystem through "
        "volume 'work': the PersistentVolumeClaim its spec.volumeClaimTemplates makes for 'work' may bind to "
        f"PersistentVolume 'node-root' ({MATCH}; storage/all.yaml), a hostPath volume of '/' on the node: {TAIL}"])


def test_hl105_workflow_volume_claim_template_of_another_class_is_not_reported(tmp_path, monkeypatch) -> None:
    assert _lint(tmp_path, monkeypatch, PV, WORKFLOW.replace("manual", "fast")) == (0, [])


TASK_RUN = """\
apiVersion: tekton.dev/v1
kind: KIND
metadata:
  generateName: migrate-
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  timeout: 5m
  workspaces:
  - name: source
    emptyDir: {}
  - name: cache
    persistentVolumeClaim: {claimName: cache}
  - name: scratch
    volumeClaimTemplate:
      spec:
        storageClassName: manual
        accessModes: [ReadWriteOnce]
        resources: {requests: {storage: 1Gi}}
  REF: {name: migrate}
"""
CLAIM = """\
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: cache}
spec:
  storageClassName: manual
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
"""


def workspace_messages(kind: str) -> list[str]:
    return [
        f"app/all.yaml:13:5: error HL105 hook-privileged-pod: {kind}/migrate-* may mount the node's filesystem through "
        "workspace 'cache': PersistentVolumeClaim 'cache' may bind to PersistentVolume 'node-root' "
        f"({MATCH}; storage/all.yaml), a hostPath volume of '/' on the node: {TAIL}",
        f"app/all.yaml:15:5: error HL105 hook-privileged-pod: {kind}/migrate-* may mount the node's filesystem through "
        "workspace 'scratch': the PersistentVolumeClaim its volumeClaimTemplate makes may bind to PersistentVolume "
        f"'node-root' ({MATCH}; storage/all.yaml), a hostPath volume of '/' on the node: {TAIL}"]


def test_hl105_task_run_workspaces_backed_by_a_claim_may_bind_to_a_host_path_volume(tmp_path, monkeypatch) -> None:
    """tektoncd/pipeline ``pkg/workspace/apply.go`` ``CreateVolumes``: the Task (here out of sight) mounts them."""
    hook = TASK_RUN.replace("KIND", "TaskRun").replace("REF", "taskRef")
    assert _lint(tmp_path, monkeypatch, PV + CLAIM, hook) == (1, workspace_messages("TaskRun"))


def test_hl105_pipeline_run_workspaces_backed_by_a_claim_may_bind_to_a_host_path_volume(tmp_path, monkeypatch) -> None:
    hook = TASK_RUN.replace("KIND", "PipelineRun").replace("REF", "pipelineRef")
    assert _lint(tmp_path, monkeypatch, PV + CLAIM, hook) == (1, workspace_messages("PipelineRun"))


def test_hl105_task_run_workspaces_of_another_class_are_not_reported(tmp_path, monkeypatch) -> None:
    """(Exit 1: the Task out of sight is HL110.)"""
    hook = TASK_RUN.replace("KIND", "TaskRun").replace("REF", "taskRef").replace("manual", "fast")
    assert _lint(tmp_path, monkeypatch, PV, hook) == (1, [])


STATEFUL_SET = """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  ANNOTATIONS
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      automountServiceAccountToken: false
      serviceAccountName: db
      containers: [{name: db, image: "ghcr.io/acme/db:1.0", volumeMounts: [{name: data, mountPath: /data}]}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      storageClassName: manual
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
"""
CLAIM_JOB = EPHEMERAL_JOB.replace("""        ephemeral:
          volumeClaimTemplate:
            spec:
              storageClassName: CLASS
              accessModes: [ReadWriteOnce]
              resources: {requests: {storage: 1Gi}}
""", """        persistentVolumeClaim: {claimName: CLAIM}
""")


def test_hl105_claim_a_stateful_set_makes_may_bind_to_a_host_path_volume(tmp_path, monkeypatch) -> None:
    """kubernetes ``stateful_set_utils.go`` ``getPersistentVolumeClaimName``: ``<template>-<set>-<ordinal>``."""
    hook = STATEFUL_SET.replace("ANNOTATIONS", "labels: {}") + "---\n" + CLAIM_JOB.replace("CLAIM", "data-db-3")
    assert _lint(tmp_path, monkeypatch, PV, hook) == (1, [
        "app/all.yaml:42:9: error HL105 hook-privileged-pod: Job/migrate may mount the node's filesystem through volume "
        "'scratch': PersistentVolumeClaim 'data-db-3' may bind to PersistentVolume 'node-root' (StatefulSet 'db' makes "
        "the claim from its volumeClaimTemplates entry 'data', which names no spec.volumeName, and the volume matches "
        f"its storage class, selector, access modes, size and volume mode; storage/all.yaml), a hostPath volume of '/' "
        f"on the node: {TAIL}"])


def test_hl105_claim_no_stateful_set_makes_is_not_reported(tmp_path, monkeypatch) -> None:
    hook = STATEFUL_SET.replace("ANNOTATIONS", "labels: {}") + "---\n" + CLAIM_JOB.replace("CLAIM", "data-db-x")
    assert _lint(tmp_path, monkeypatch, PV, hook) == (0, [])


def test_hl105_stateful_set_hook_mounting_its_volume_claim_template(tmp_path, monkeypatch) -> None:
    hook = STATEFUL_SET.replace("ANNOTATIONS", "annotations: {argocd.argoproj.io/hook: PreSync}")
    code, lines = _lint(tmp_path, monkeypatch, PV, hook)
    assert (code, lines) == (1, [
        "app/all.yaml:16:5: error HL105 hook-privileged-pod: StatefulSet/db may mount the node's filesystem through "
        "volume 'data': the PersistentVolumeClaim its spec.volumeClaimTemplates makes for 'data' may bind to "
        f"PersistentVolume 'node-root' ({MATCH}; storage/all.yaml), a hostPath volume of '/' on the node: {TAIL}"])


UNCLASSED_CLAIM = CLAIM.replace("  storageClassName: manual\n", "")
DEFAULT_CLASS = """\
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: fast
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: example.com/fast
---
"""


def test_hl105_claim_without_class_may_get_the_volume_class_as_the_cluster_default(tmp_path, monkeypatch) -> None:
    """Attack round 16 F8: the DefaultStorageClass admission plugin gives the claim the cluster's
    default class (``standard`` on kind, minikube, GKE), unknown offline: fail closed."""
    assert _lint(tmp_path, monkeypatch, PV + UNCLASSED_CLAIM, CLAIM_JOB.replace("CLAIM", "cache")) == (1, [
        "app/all.yaml:21:9: error HL105 hook-privileged-pod: Job/migrate may mount the node's filesystem through volume "
        "'scratch': PersistentVolumeClaim 'cache' may bind to PersistentVolume 'node-root' (the claim names no "
        "spec.volumeName, and the volume matches its storage class (the claim names none and the application defines "
        "no default StorageClass, so it gets the cluster's default class, which may be 'manual'), selector, access "
        f"modes, size and volume mode; storage/all.yaml), a hostPath volume of '/' on the node: {TAIL}"])


def test_hl105_claim_without_class_gets_the_application_default_class(tmp_path, monkeypatch) -> None:
    """A default StorageClass of the application ('fast') is the class the claim gets: not 'manual'."""
    hook = DEFAULT_CLASS + CLAIM_JOB.replace("CLAIM", "cache")
    assert _lint(tmp_path, monkeypatch, PV + UNCLASSED_CLAIM, hook) == (0, [])
