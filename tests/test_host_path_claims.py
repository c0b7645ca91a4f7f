"""A hook that mounts a PersistentVolumeClaim bound to a hostPath PersistentVolume shares the node's
filesystem as a hostPath volume does (attacker trial 7, F5): HL105 follows the claim to the volume,
in the hook's application and in the repository's other files."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from conftest import hits, write
from hooklint.cli import app

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  namespace: app
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  template:
    spec:
      restartPolicy: Never
      volumes:
        - name: root
          persistentVolumeClaim: {claimName: node-root}
      containers:
        - name: a
          image: ghcr.io/acme/a:1.0.0
          volumeMounts: [{name: root, mountPath: /host}]
"""

TAIL = ("a PreSync hook runs on every sync and then controls the node, not just its pod. Remove it, or do this work "
        "outside the cluster's workloads.")


def pv(claim_ref: str = "", host: str = "hostPath: {path: /}", name: str = "node-root") -> str:
    ref = f"  claimRef: {claim_ref}\n" if claim_ref else ""
    return (f"apiVersion: v1\nkind: PersistentVolume\nmetadata: {{name: {name}}}\n"
            f"spec:\n  capacity: {{storage: 1Gi}}\n  accessModes: [ReadWriteOnce]\n  storageClassName: ''\n"
            f"  {host}\n{ref}")  # fmt: skip


def pvc(volume: str = "volumeName: node-root", namespace: str = "app") -> str:
    return (f"apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {{name: node-root, namespace: {namespace}}}\n"
            f"spec:\n  accessModes: [ReadWriteOnce]\n  storageClassName: ''\n  resources: {{requests: {{storage: 1Gi}}}}\n"
            f"  {volume}\n")  # fmt: skip


def message(how: str, path: str = "/", where: str = "context.yaml", source: str = "hostPath") -> str:
    return (f"Job/migrate mounts the node's filesystem through volume 'root': PersistentVolumeClaim 'node-root' is bound "
            f"to PersistentVolume 'node-root' ({how}; {where}), a {source} volume of '{path}' on the node: {TAIL}")


def test_hl105_follows_the_claim_to_a_host_path_volume_of_the_application() -> None:
    assert hits("HL105", JOB, context=pv() + "---\n" + pvc()) == [
        (14, 11, message("the claim's spec.volumeName"))]
    # pre-bound by the volume's claimRef, the claim naming no volume
    prebound = pv("{namespace: app, name: node-root}", host="hostPath: {path: /var/lib}") + "---\n" + pvc(volume="")
    assert hits("HL105", JOB, context=prebound) == [(14, 11, message("the volume's spec.claimRef", "/var/lib"))]
    # the volume alone, reserved for the claim: the claim may be applied elsewhere
    assert hits("HL105", JOB, context=pv("{namespace: app, name: node-root}")) == [
        (14, 11, message("the volume's spec.claimRef"))]


def test_hl105_follows_the_claim_to_a_local_volume() -> None:
    """A ``local`` PersistentVolume is a path of the node too (trial 9 F11: ``local: {path: /}``
    passed where ``hostPath`` was HL105)."""
    local = "local: {path: /}\n  nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [{key: k, operator: Exists}]}]}}"
    assert hits("HL105", JOB, context=pv(host=local) + "---\n" + pvc()) == [
        (14, 11, message("the claim's spec.volumeName", source="local"))]
    assert hits("HL105", JOB, context=pv("{namespace: app, name: node-root}", host="local: {path: /var}")) == [
        (14, 11, message("the volume's spec.claimRef", "/var", source="local"))]


def test_hl105_sees_the_local_volume_of_another_folder(tmp_path, monkeypatch) -> None:
    """The trial's layout (/work/attack9/fx/w_localpv): storage/ holds the local volume and its claim."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / ".git").mkdir()
    write(tmp_path, {"app/job.yaml": JOB, "infra/pv.yaml": pv(host="local: {path: /}") + "---\n" + pvc()})
    result = CliRunner().invoke(app, ["lint", "--format", "json", "--no-cache", "."])
    assert [(f["path"], f["line"], f["column"], f["message"]) for f in json.loads(result.output)["findings"]
            if f["rule_id"] == "HL105"] == [  # fmt: skip
        ("app/job.yaml", 14, 11, message("the claim's spec.volumeName", where="infra/pv.yaml", source="local"))]


def test_hl105_claim_naming_no_volume_may_bind_to_one_it_matches() -> None:
    """Storage class, access modes and size match and the claim names no volume: the PV controller
    may bind it to the hostPath volume (``index.go`` ``findMatchingVolume``; tests/test_pv_selector.py)."""
    how = ("the claim names no spec.volumeName, and the volume matches its storage class, selector, access modes, "
           "size and volume mode")
    assert hits("HL105", JOB, context=pv() + "---\n" + pvc(volume="")) == [(14, 11, message(how).replace(
        "mounts the node's", "may mount the node's").replace("is bound to", "may bind to"))]


@pytest.mark.parametrize("context", [
    pv(host="nfs: {server: nfs.example.com, path: /}") + "---\n" + pvc(),  # not a hostPath volume
    pv("{namespace: app, name: other}") + "---\n" + pvc(),  # reserved for another claim
    pv("{namespace: other, name: node-root}"),  # another namespace's claim
    pv() + "---\n" + pvc(volume="").replace("storageClassName: ''", "storageClassName: fast"),  # another class
    pv("{namespace: app, name: node-root}") + "---\n" + pvc(volume="volumeName: fast-disk"),  # names another volume
    pv() + "---\n" + pvc(namespace="other"),
])  # fmt: skip
def test_hl105_claims_not_bound_to_a_host_path_volume(context: str) -> None:
    assert hits("HL105", JOB, context=context) == []


def test_hl105_sees_the_host_path_volume_of_another_folder_of_the_repository(tmp_path, monkeypatch) -> None:
    """The trial's layout: infra/ holds the volume and the claim, app/ the hook; two applications.
    The result cache keys on them: editing the volume changes the hook's finding."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / ".git").mkdir()
    write(tmp_path, {"app/job.yaml": JOB, "infra/pv.yaml": pv() + "---\n" + pvc()})
    runner = CliRunner()

    def found() -> list[tuple[str, str, int, int, str]]:
        result = runner.invoke(app, ["lint", "--format", "json", "."])
        return [(f["rule_id"], f["path"], f["line"], f["column"], f["message"])
                for f in json.loads(result.output)["findings"] if f["rule_id"] == "HL105"]  # fmt: skip

    expected = [("HL105", "app/job.yaml", 14, 11, message("the claim's spec.volumeName", where="infra/pv.yaml"))]
    assert found() == expected
    assert found() == expected  # from the cache
    write(tmp_path, {"infra/pv.yaml": pv(host="nfs: {server: nfs.example.com, path: /}") + "---\n" + pvc()})
    assert found() == []
