"""hooklint diff: a finding is matched only where Argo CD deploys it (attack 11 item 8): a hook
moved to another cluster's Application, or to another Application, is new there and fixed at the
old place; a file renamed inside its Application keeps its findings."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from conftest import git
from hooklint.cli import app

runner = CliRunner()

APPLICATION = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: {name}
  namespace: argocd
spec:
  project: ops
  source:
    repoURL: https://git.example.com/ops.git
    targetRevision: HEAD
    path: {path}
  destination:
    server: {server}
    namespace: batch
"""

PRIVILEGED_HOOK = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: host-probe
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  backoffLimit: 0
  activeDeadlineSeconds: 120
  template:
    spec:
      restartPolicy: Never
      automountServiceAccountToken: false
      serviceAccountName: probe
      hostNetwork: true
      containers: [{name: probe, image: "ghcr.io/acme/probe@sha256:1111111111111111111111111111111111111111111111111111111111111111"}]
"""

MESSAGE = ("error HL105 hook-privileged-pod: Job/host-probe sets hostNetwork: true: a PreSync hook runs on every "
           "sync and then controls the node, not just its pod. Remove it, or do this work outside the cluster's "
           "workloads.")  # fmt: skip


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """Applications ``ops-staging`` (folder ``staging``) and ``ops-live`` (folder ``live``) on two
    clusters, one namespace; the privileged hook in ``staging``, committed as ``base``."""
    repo = tmp_path / "repo"
    repo.mkdir()
    monkeypatch.chdir(repo)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "ci@example.com")
    git(repo, "config", "user.name", "ci")
    git(repo, "remote", "add", "origin", "https://git.example.com/ops.git")  # the Applications deploy from it
    files = {
        "argocd/staging.yaml": APPLICATION.format(name="ops-staging", path="staging", server="https://staging.k8s.example.net"),
        "argocd/live.yaml": APPLICATION.format(name="ops-live", path="live", server="https://live.k8s.example.net"),
        "staging/probe.yaml": PRIVILEGED_HOOK,
        "staging/settings.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n",
        "live/settings.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n",
    }
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    return repo


def counts(*args: str) -> tuple[int, list[str], list[str], int]:
    result = runner.invoke(app, ["diff", "--format", "json", *args])
    doc = json.loads(result.stdout)
    return (result.exit_code, [f["path"] for f in doc["new"]], [f["path"] for f in doc["fixed"]], doc["unchanged"])


def test_a_hook_moved_to_another_clusters_application_is_new_there(repo):
    git(repo, "mv", "staging/probe.yaml", "live/probe.yaml")
    result = runner.invoke(app, ["diff", "HEAD"])
    assert result.exit_code == 1
    assert result.stdout == (
        "hooklint diff HEAD -> the working tree: 1 new finding, 1 fixed, 0 unchanged; plan changes in 2 applications\n"
        "\n"
        "New findings:\n"
        f"  live/probe.yaml:15:20: {MESSAGE}\n"
        "\n"
        "Fixed findings:\n"
        f"  staging/probe.yaml:15:20: {MESSAGE}\n"
        "\n"
        "Plan of live:\n"
        "  added    Job/batch/host-probe: PreSync wave 0\n"
        "\n"
        "Plan of staging:\n"
        "  removed  Job/batch/host-probe\n"
    )
    git(repo, "commit", "-qam", "moved")
    assert counts("HEAD~1", "--head", "HEAD") == (1, ["live/probe.yaml"], ["staging/probe.yaml"], 0)


def test_an_application_sent_to_another_cluster_takes_its_findings_there(repo):
    (repo / "argocd/staging.yaml").write_text(
        APPLICATION.format(name="ops-staging", path="staging", server="https://live.k8s.example.net"))
    assert counts("HEAD") == (1, ["staging/probe.yaml"], ["staging/probe.yaml"], 0)


def test_a_hook_moved_to_another_application_of_the_same_cluster_is_new_there(repo):
    (repo / "argocd/live.yaml").write_text(
        APPLICATION.format(name="ops-live", path="live", server="https://staging.k8s.example.net"))
    git(repo, "commit", "-qam", "one cluster")
    git(repo, "mv", "staging/probe.yaml", "live/probe.yaml")
    assert counts("HEAD") == (1, ["live/probe.yaml"], ["staging/probe.yaml"], 0)


def test_a_file_renamed_inside_its_application_keeps_its_findings(repo):
    git(repo, "mv", "staging/probe.yaml", "staging/host-probe.yaml")
    assert counts("HEAD") == (0, [], [], 1)
    result = runner.invoke(app, ["diff", "HEAD"])
    assert result.stdout.splitlines()[0] == "hooklint diff HEAD -> the working tree: 0 new findings, 0 fixed, 1 unchanged; no plan change"
