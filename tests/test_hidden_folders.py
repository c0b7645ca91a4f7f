"""Hidden folders (attacker trial 7, F6): Argo CD's directory source with ``recurse`` reads hidden
folders (``reposerver/repository/repository.go`` ``getPotentiallyValidManifests``, v3.5.1: only
``!recurse`` skips a folder); hooklint walks them only when named or for such an Application of the
repository. A recursive Application may live in another repository, so what a hidden folder of a
folder of manifests holds that looks like a Kubernetes object is listed as not linted, with the
reason; tool folders (``.github`` workflows) and ``.git`` stay quiet."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.sources.repository.tree import looks_like_object

runner = CliRunner()

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata: {a: b}\n"
JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: evil
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  template:
    spec:
      restartPolicy: Never
      hostPID: true
      containers:
      - name: c
        image: registry.example.com/x@sha256:0000000000000000000000000000000000000000000000000000000000000000
"""
WHY = ("in the hidden folder app/.hooks/, which hooklint walks only when named or when an Application of this "
       "repository reads app/ (or a folder above) with directory.recurse, as Argo CD then applies it: lint it with "
       "`hooklint lint app/.hooks`")  # fmt: skip


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / "app" / ".hooks").mkdir(parents=True)
    (tmp_path / "app" / "cm.yaml").write_text(CM)
    (tmp_path / "app" / ".hooks" / "job.yaml").write_text(JOB)
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "ci.yml").write_text("on: push\njobs:\n  t: {runs-on: x, steps: []}\n")
    (tmp_path / "root.yaml").write_text(CM.replace("name: cm", "name: top"))  # .github is in a folder of manifests
    return tmp_path


def test_a_hook_in_a_hidden_subfolder_is_listed_as_not_linted(repo):
    """/work/attack7/f/hidden2: app/.hooks/job.yaml (a privileged PreSync Job) was neither linted
    nor counted (skipped=[], exit 0)."""
    result = runner.invoke(app, ["lint", "--show-skipped", "."])
    assert result.exit_code == 0
    assert result.output.splitlines() == [
        "0 errors, 0 warnings, 0 notes in 2 files",
        "note: 1 file not linted on its own (1 in hidden folders no Application reads); --show-skipped lists it.",
        "note: HL101 (hook-image-registry-not-allowed) is inactive: set allowed-registries in .hooklint.yaml to "
        "check where hook images come from.",
        f"note: not linted: app/.hooks/job.yaml: {WHY}",
    ]
    report = json.loads(runner.invoke(app, ["lint", "-f", "json", "app"]).output)
    assert report["skipped"] == [{"path": "app/.hooks/job.yaml", "reason": WHY}]
    assert report["summary"]["files"] == 1
    plan = runner.invoke(app, ["plan", "."]).output  # no application of its own
    assert ".hooks" not in plan


def test_named_or_read_by_a_recursive_application_it_is_linted_not_listed(repo):
    result = runner.invoke(app, ["lint", "-f", "json", "app", "app/.hooks"])
    report = json.loads(result.output)
    assert report["skipped"] == []
    assert sorted({(f["path"], f["rule_id"]) for f in report["findings"] if f["severity"] == "error"}) == [
        ("app/.hooks/job.yaml", "HL105")]
    (repo / ".hooklint.yaml").write_text("repo-urls: [https://github.com/acme/deploy]\n")
    (repo / "apps").mkdir()
    (repo / "apps" / "app.yaml").write_text("""\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: app, namespace: argocd}
spec:
  project: default
  destination: {namespace: app, server: https://kubernetes.default.svc}
  source: {repoURL: https://github.com/acme/deploy, path: app, directory: {recurse: true}}
""")
    report = json.loads(runner.invoke(app, ["lint", "-f", "json", "app", "apps"]).output)
    assert report["skipped"] == []
    assert sorted({(f["path"], f["rule_id"]) for f in report["findings"] if f["severity"] == "error"}) == [
        ("app/.hooks/job.yaml", "HL105")]
    # a non-recursive Application does not read subfolders: listed again
    (repo / "apps" / "app.yaml").write_text((repo / "apps" / "app.yaml").read_text().replace(", directory: {recurse: true}", ""))
    report = json.loads(runner.invoke(app, ["lint", "-f", "json", "app", "apps"]).output)
    assert report["skipped"] == [{"path": "app/.hooks/job.yaml", "reason": WHY}]


def test_quiet_where_nothing_is_left_out(repo):
    (repo / "app" / ".hooks" / "job.yaml").unlink()
    (repo / "app" / ".hooks" / "notes.yaml").write_text("owner: team-a\nkind_of: notes\n")
    (repo / "root.yaml").unlink()  # no folder above nomanifests/ holds a manifest
    (repo / "nomanifests" / ".cache").mkdir(parents=True)  # a hidden folder in a folder with no manifest
    (repo / "nomanifests" / "README.md").write_text("x\n")
    (repo / "nomanifests" / ".cache" / "job.yaml").write_text(JOB)
    result = runner.invoke(app, ["lint", "--show-skipped", "."])
    assert result.output.splitlines() == [
        "0 errors, 0 warnings, 0 notes in 1 file",
        "note: HL101 (hook-image-registry-not-allowed) is inactive: set allowed-registries in .hooklint.yaml to "
        "check where hook images come from."]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), [
    (b"apiVersion: v1\nkind: Pod\n", True),
    (b'{"apiVersion":"batch/v1","kind":"Job"}', True),
    (b"- 'apiVersion' : v1\n  kind: X\n", True),
    (b"on: push\njobs: {}\n", False),
    (b"name: apiVersion\nkindness: 1\n", False),
])  # fmt: skip
def test_looks_like_object(text, expected):
    assert looks_like_object(text) is expected


def test_a_hidden_file_a_kustomization_builds_from_is_not_listed(repo):
    """Linted through the kustomization's rendering, so not "not linted"; one it does not read is."""
    (repo / "app" / ".hooks" / "other.yaml").write_text(CM.replace("name: cm", "name: other"))
    (repo / "app" / "kustomization.yaml").write_text("resources:\n- cm.yaml\n- .hooks/job.yaml\n")
    from hooklint.sources.appmap.discovery import group_applications

    apps = group_applications(["app"], [])
    listed = {f: str(why) for a in apps for f, why in a.left_out.items()}
    assert listed == {"app/.hooks/other.yaml": WHY}
