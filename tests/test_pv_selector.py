"""HL105 on a hook's claim that names no ``spec.volumeName`` but that the PersistentVolume
controller may bind to a hostPath or local PersistentVolume of the repository (attack round 12,
item 4): kubernetes ``pkg/controller/volume/persistentvolume/pv_controller.go``
``syncUnboundClaim`` -> ``findBestMatchForClaim`` -> ``index.go`` ``findMatchingVolume`` binds an
unbound claim to an available volume of its storage class whose labels its selector selects,
with its access modes, enough capacity and its volume mode. Inputs written for these tests."""

from __future__ import annotations

from typer.testing import CliRunner

from hooklint.cli import app

runner = CliRunner()
TAIL = ("a PostSync hook runs on every sync and then controls the node, not just its pod. Remove it, or do this work "
        "outside the cluster's workloads.")
MATCH = "the claim names no spec.volumeName, and the volume matches its storage class, selector, access modes, size and volume mode"
JOB = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {a: b}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: report
  annotations:
    argocd.argoproj.io/hook: PostSync
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 300
  template:
    spec:
      serviceAccountName: report
      automountServiceAccountToken: false
      restartPolicy: Never
      containers:
      - name: c
        image: ghcr.io/acme/report:1.2.0
      volumes:
      - name: cache
        persistentVolumeClaim:
          claimName: cache
"""
PV = """\
apiVersion: v1
kind: PersistentVolume
metadata:
  name: node-root
  labels: {tier: cache, zone: a}
spec:
  capacity: {storage: 2Gi}
  accessModes: [ReadWriteOnce, ReadOnlyMany]
  storageClassName: ""
  hostPath: {path: /}
"""
PVC = """\
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: cache
spec:
  storageClassName: ""
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1536Mi}}
  selector:
    matchLabels: {tier: cache}
    matchExpressions: [{key: zone, operator: In, values: [a, b]}]
"""


def _lint(tmp_path, monkeypatch, storage: str, job: str = JOB) -> tuple[int, list[str]]:
    """Lint a repository whose ``storage/`` folder holds ``storage`` and ``app/`` the hook."""
    for folder, text in (("storage", storage), ("app", job)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "all.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["lint", "--no-cache", "."])
    return result.exit_code, [line for line in result.output.splitlines() if " HL105 " in line]


def test_claim_bound_by_selector_to_a_host_path_volume(tmp_path, monkeypatch):
    """Before: no finding, exit 0 (only a claim naming spec.volumeName was followed)."""
    code, lines = _lint(tmp_path, monkeypatch, PV + "---\n" + PVC)
    assert code == 1
    assert lines == [
        "app/all.yaml:25:9: error HL105 hook-privileged-pod: Job/report may mount the node's filesystem through volume "
        "'cache': PersistentVolumeClaim 'cache' may bind to PersistentVolume 'node-root' "
        f"({MATCH}; storage/all.yaml), a hostPath volume of '/' on the node: {TAIL}",
    ]


def test_claim_without_class_in_the_hooks_application_and_a_local_volume(tmp_path, monkeypatch):
    """A claim that sets no class gets the default StorageClass (here one of the application), and
    matches a local volume of that class; the claim is the hook's application's own. Before: no
    finding, exit 0."""
    pv = PV.replace('storageClassName: ""', "storageClassName: standard").replace(
        "hostPath: {path: /}", "local: {path: /var/lib}")
    claim = PVC.replace('  storageClassName: ""\n', "").replace("  selector:\n    matchLabels: {tier: cache}\n"
                                                                 "    matchExpressions: [{key: zone, operator: In, values: [a, b]}]\n", "")
    default = ("apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: standard\n  annotations:\n"
               "    storageclass.kubernetes.io/is-default-class: \"true\"\nprovisioner: example.com/disk\n")
    code, lines = _lint(tmp_path, monkeypatch, pv, JOB + "---\n" + claim + "---\n" + default)
    assert code == 1
    assert lines == [
        "app/all.yaml:25:9: error HL105 hook-privileged-pod: Job/report may mount the node's filesystem through volume "
        "'cache': PersistentVolumeClaim 'cache' may bind to PersistentVolume 'node-root' "
        f"({MATCH}; storage/all.yaml), a local volume of '/var/lib' on the node: {TAIL}",
    ]


def test_no_noise_when_the_host_path_volume_cannot_match(tmp_path, monkeypatch):
    """A claim of another class, a selector the volume's labels fail, an access mode it lacks, a
    larger request, another volume mode, a volume reserved for another claim: no HL105 (a claim
    with no class may get the volume's class as the cluster's default: tests/test_claim_templates.py)."""
    for claim, pv in (
        (PVC.replace('storageClassName: ""', "storageClassName: fast"), PV),
        (PVC.replace("values: [a, b]", "values: [b]"), PV),
        (PVC.replace("matchLabels: {tier: cache}", "matchLabels: {tier: db}"), PV),
        (PVC.replace("accessModes: [ReadWriteOnce]", "accessModes: [ReadWriteMany]"), PV),
        (PVC.replace("storage: 1536Mi", "storage: 3Gi"), PV),
        (PVC.replace("  accessModes:", "  volumeMode: Block\n  accessModes:"), PV),
        (PVC, PV.replace("  hostPath:", "  claimRef: {name: other, namespace: x}\n  hostPath:")),
    ):
        code, lines = _lint(tmp_path, monkeypatch, pv + "---\n" + claim)
        assert (code, lines) == (0, []), claim
        for folder in ("storage", "app"):
            (tmp_path / folder / "all.yaml").unlink()
            (tmp_path / folder).rmdir()
