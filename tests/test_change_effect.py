"""pre-commit sees what a change causes (issue 35, item 2): naming an Application file renders
and checks its source, with findings placed as in a whole run; naming one file of an application
reports the cross-object findings that involve its objects, wherever they land."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from typer.testing import CliRunner

from hooklint.cli import app
from tests.manifests import CLEAN_HOOK_JOB

runner = CliRunner()

JOB, CM = CLEAN_HOOK_JOB.split("---\n")  # a PreSync Job no rule reports, and a ConfigMap
SA = "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: migrate\n"
PRESYNC_SA = SA.replace("  name: migrate\n", "  name: migrate\n  annotations:\n    argocd.argoproj.io/hook: PreSync\n    argocd.argoproj.io/sync-wave: \"-1\"\n")
APPLICATION = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: shop
  namespace: argocd
spec:
  project: shop
  source:
    repoURL: https://github.com/acme/deploy.git
    path: deploy/shop
    targetRevision: main
    kustomize:
      images:
      - ghcr.io/acme/migrate:latest
  destination:
    server: https://kubernetes.default.svc
    namespace: shop
"""
HL301 = ("deploy/job.yaml:12:27: error HL301 reference-to-later-step: Job/migrate (PreSync wave 0) uses "
         "ServiceAccount/migrate (serviceAccountName), which Argo CD applies only in a later step (Sync wave 0): its "
         "pods are rejected (serviceaccount \"migrate\" not found), so the step never completes on the first sync. Apply "
         "ServiceAccount/migrate in PreSync wave 0 or earlier (for a PreSync hook: make it a PreSync hook with a "
         "sync-wave of 0 or lower), or move Job/migrate to a later step.")  # fmt: skip


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A git repository (its origin is github.com/acme/deploy) with a .hooklint.yaml."""
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "remote", "add", "origin", "git@github.com:acme/deploy.git"], cwd=tmp_path, check=True)
    (tmp_path / ".hooklint.yaml").write_text("allowed-registries: [ghcr.io/acme]\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    return tmp_path


def write(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def lines(*args: str) -> tuple[int, list[str]]:
    result = runner.invoke(app, ["lint", *args])
    return result.exit_code, [line for line in result.stdout.splitlines() if " HL" in line]


# --- one file of an application: its cross-object findings, wherever they land --------------------


def test_naming_only_the_moved_serviceaccount_reports_hl301_on_the_unchanged_job(repo):
    write(repo, {"deploy/job.yaml": JOB, "deploy/cm.yaml": CM, "deploy/sa.yaml": SA})
    assert lines("deploy") == (1, [HL301])
    assert lines("deploy/sa.yaml") == (1, [HL301])  # before: exit 0, no finding
    assert lines("deploy/cm.yaml") == (0, [])  # a file the finding does not involve
    write(repo, {"deploy/sa.yaml": PRESYNC_SA})
    assert lines("deploy/sa.yaml") == (0, [])


def test_an_involved_finding_is_suppressed_as_in_a_whole_run_and_its_suppressions_are_not_audited(repo):
    job = JOB.replace("    argocd.argoproj.io/hook: PreSync\n",
                      "    argocd.argoproj.io/hook: PreSync\n    hooklint.io/ignore: \"HL301: accepted; HL102\"\n")
    write(repo, {"deploy/job.yaml": job, "deploy/cm.yaml": CM, "deploy/sa.yaml": SA})
    code, found = lines("deploy/sa.yaml")
    # suppressed by the Job's annotation; its stale HL102 entry is not said (job.yaml was not checked)
    assert (code, found) == (0, [])
    code, found = lines("deploy")
    assert [line.split(" ")[2] for line in found] == ["HL901", "HL902"]  # HL102: stale, and no reason


# --- an Application file: its source rendered and checked ---------------------------------------


@pytest.mark.skipif(shutil.which("kubectl") is None and shutil.which("kustomize") is None,
                    reason="neither kustomize nor kubectl is installed")  # fmt: skip
def test_naming_only_the_application_renders_its_source(repo):
    """An Application that overrides an image to :latest passed pre-commit, although a whole run
    reports HL102 on that very file."""
    write(repo, {"deploy/shop/kustomization.yaml": "resources:\n- job.yaml\n- cm.yaml\n- sa.yaml\n",
                 "deploy/shop/job.yaml": JOB, "deploy/shop/cm.yaml": CM, "deploy/shop/sa.yaml": PRESYNC_SA,
                 "apps/shop.yaml": APPLICATION})  # fmt: skip
    hl102 = ("apps/shop.yaml:14:9: warning HL102 hook-image-mutable-tag: Image 'ghcr.io/acme/migrate:latest' of "
             "container 'migrate' of Job/migrate uses the mutable tag ':latest': each sync may run different code than "
             "was reviewed. Pin a version tag or, better, an @sha256 digest.")  # fmt: skip
    assert lines(".") == (1, [hl102])
    assert lines("apps/shop.yaml") == (1, [hl102])  # before: exit 0
    write(repo, {"apps/shop.yaml": APPLICATION.replace(":latest", ":1.4.3")})
    assert lines("apps/shop.yaml") == (0, [])


def test_naming_an_application_of_another_repository_lints_only_that_file(repo):
    write(repo, {"deploy/shop/job.yaml": JOB.replace("1.4.2", "latest"), "deploy/shop/cm.yaml": CM,
                 "apps/shop.yaml": APPLICATION.replace("acme/deploy", "acme/elsewhere")})  # fmt: skip
    # the other repository's source is named (issue 33), and nothing of this repository's deploy/shop is linted
    assert lines("apps/shop.yaml") == (1, [
        "apps/shop.yaml:9:5: warning HL009 source-not-rendered: Application shop (apps/shop.yaml:9): spec.source is "
        "the Git repository https://github.com/acme/elsewhere.git at main (path deploy/shop), not this one: hooklint "
        "fetches it only with `--fetch`. Argo CD's repo server fetches it when it renders the application. hooklint did "
        "not render it, so none of its objects were checked, hooks included; run with `--fetch` and list github.com in "
        "`fetch-hosts` (or give `--fetch-host github.com`) to check it, vendor it into this repository, or lint what it "
        "renders (`helm template` or `kustomize build` output) with `hooklint lint -`."])  # fmt: skip
