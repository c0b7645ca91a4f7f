"""A hook that reads a ServiceAccount's token Secret into its environment (an ``env`` entry's
``secretKeyRef``, an ``envFrom`` entry's ``secretRef``) holds that ServiceAccount's rights, as one
that mounts it does (attacker trial 26, B3: a hook reading cluster-admin's token through ``env``
passed with no finding; the kubelet copies the Secret's ``token`` into the variable)."""

from __future__ import annotations

from typer.testing import CliRunner

from hooklint.cli import app

MANIFESTS = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: crb}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects:
- {kind: ServiceAccount, name: boss, namespace: default}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: boss, namespace: default}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: weak, namespace: default}
---
apiVersion: v1
kind: Secret
metadata:
  name: bosstok
  namespace: default
  annotations: {kubernetes.io/service-account.name: boss}
type: kubernetes.io/service-account-token
---
apiVersion: batch/v1
kind: Job
metadata:
  name: j
  namespace: default
  annotations:
    argocd.argoproj.io/hook: PostSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 60
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: weak
      automountServiceAccountToken: false
      containers:
      - name: c
        image: busybox:1.36
        envFrom: [{secretRef: {name: bosstok}}]
        env:
        - name: KTOK
          valueFrom: {secretKeyRef: {name: bosstok, key: token}}
"""

MESSAGE = ("error HL106 hook-overprivileged-rbac: Job/j reads the token Secret 'bosstok' of ServiceAccount 'boss', and "
           "ClusterRoleBinding/crb binds it to cluster-admin: a PostSync hook runs on every sync, so whoever controls "
           "its image or command holds those rights over the cluster. Grant only the verbs and resources it needs.")


def test_a_token_secret_read_through_env_and_env_from_is_the_rights_of_its_service_account(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.yaml").write_text(MANIFESTS)
    result = CliRunner().invoke(app, ["lint", "--no-cache", "a.yaml"])
    assert (result.exit_code, result.output.splitlines()[:2]) == (1, [f"a.yaml:43:38: {MESSAGE}", f"a.yaml:46:44: {MESSAGE}"])


def test_a_token_secret_of_no_service_account_read_through_env_is_no_identity(tmp_path, monkeypatch):
    """An ordinary Secret read through ``env`` gives the hook no identity."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.yaml").write_text(MANIFESTS.replace("type: kubernetes.io/service-account-token", "type: Opaque"))
    result = CliRunner().invoke(app, ["lint", "--no-cache", "a.yaml"])
    assert "HL106" not in result.output and result.exit_code == 0
