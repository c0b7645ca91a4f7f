"""What users of other linters expect (issue 35, item 4): a concise format, one line for one
finding made many times at one place, and ``hooklint doctor``."""

from __future__ import annotations

import dataclasses

import pytest
from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.findings import Finding, ObjectRef, RunResult, Span, Suppression
from hooklint.reporters import text
from hooklint.review.markdown import render_tree
from tests.manifests import HL102_BAD

runner = CliRunner()


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy/job.yaml").write_text(HL102_BAD)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    return tmp_path


def made(name: str, line: int = 12, rule: str = "HL102", suppressed: bool = False) -> Finding:
    return Finding(rule, "hook-image-mutable-tag", "warning", f"Image of Job/{name} uses the mutable tag ':latest': each sync "
                   "may run different code. Pin a version tag.", "base/job.yaml", Span(line, 18, line, 45),
                   ObjectRef("batch/v1", "Job", name), field_path="spec.template.spec.containers[0].image",
                   suppression=Suppression("comment", "known") if suppressed else None)  # fmt: skip


# --- --format concise -------------------------------------------------------------------------


def test_concise_is_one_short_line_per_finding(repo):
    result = runner.invoke(app, ["lint", "-f", "concise", "--select", "HL102,HL104,HL201,HL305", "deploy"])
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "deploy/job.yaml:6:30: HL305 Every object of this application is a hook (1 hook run during a sync, no plain "
        "resource)",
        "deploy/job.yaml:7:1: HL201 Job/db-migrate has no spec.backoffLimit, so a failing hook is retried 6 times (the "
        "Kubernetes default) with growing back-off while the sync waits",
        "deploy/job.yaml:9:5: HL104 Job/db-migrate mounts the token of ServiceAccount 'default' (HL103; not turned off "
        "here; the ServiceAccount is not in this application), and no binding in this application grants it a role",
        "deploy/job.yaml:12:18: HL102 Image 'ghcr.io/acme/migrate:latest' of container 'migrate' of Job/db-migrate uses "
        "the mutable tag ':latest'",
        "",
        "0 errors, 3 warnings, 1 note in 1 file",
    ]  # fmt: skip


def test_output_format_concise_is_format_concise(repo):
    """ruff's spelling, which the issue asks for, is the same option."""
    assert (runner.invoke(app, ["lint", "--output-format", "concise", "deploy"]).stdout
            == runner.invoke(app, ["lint", "-f", "concise", "deploy"]).stdout)  # fmt: skip


def test_message_head():
    assert text.message_head("A (b: c; d. e) f: g") == "A (b: c; d. e) f"
    assert text.message_head("No separator at all.") == "No separator at all"
    assert text.message_head("Tag ':latest' is mutable. Pin it.") == "Tag ':latest' is mutable"
    # a prefix that only says where does not end the clause (new-user trial: HL009 and fetched charts' findings
    # were shown as their place alone)
    assert text.message_head("Application shop (apps/shop.yaml:9): spec.source is the Git repository x, not this one: "
                             "hooklint never fetches it.") == (
        "Application shop (apps/shop.yaml:9): spec.source is the Git repository x, not this one")  # fmt: skip
    assert text.message_head("hookchart 1.2.0 templates/job.yaml:14: image 'busybox:latest' uses a mutable tag. Pin it"
                             ) == "hookchart 1.2.0 templates/job.yaml:14: image 'busybox:latest' uses a mutable tag"
    # nor does a lead-in that names nothing (new-user trial 28: "HL007 Rendering failed", "HL001 YAML syntax
    # error" said nothing of what failed)
    assert text.message_head("Rendering failed: kustomize: no such file. Argo CD fails too.") == (
        "Rendering failed: kustomize: no such file")
    assert text.message_head("YAML syntax error: mapping values are not allowed here (line 3). Fix it.") == (
        "YAML syntax error: mapping values are not allowed here (line 3)")
    assert text.message_head("Job/pwn sets hostPID: true, so its pods see the node's processes.") == "Job/pwn sets hostPID"
    assert text.message_head("Image 'x' of Job/a: no tag.") == "Image 'x' of Job/a"


# --- one finding made many times at one place --------------------------------------------------


def test_text_groups_one_finding_made_for_many_objects_at_one_place():
    """26 identical findings from one copied template were 26 lines of 300 characters."""
    findings = [made("db-migrate")] + [made(f"e{i}-db-migrate") for i in range(1, 8)] + [made("other", line=20)]
    out = text.render(RunResult(findings=findings, files=1)).splitlines()
    assert out == [
        "base/job.yaml:12:18: warning HL102 hook-image-mutable-tag: Image of Job/db-migrate uses the mutable tag "
        "':latest': each sync may run different code. Pin a version tag.",
        "    the same for 7 more objects made at this place: Job/e1-db-migrate, Job/e2-db-migrate, Job/e3-db-migrate, "
        "Job/e4-db-migrate, Job/e5-db-migrate and 2 more",
        "base/job.yaml:20:18: warning HL102 hook-image-mutable-tag: Image of Job/other uses the mutable tag ':latest': "
        "each sync may run different code. Pin a version tag.",
        "",
        "0 errors, 9 warnings, 0 notes in 1 file",
    ]  # fmt: skip


def test_different_findings_at_one_place_are_never_grouped():
    """Two stale entries of one comment are two HL901 findings at one place, about no object."""
    one = Finding("HL901", "unused-suppression", "note", "Entry 'HL204' suppressed nothing.", "a.yaml", Span(3, 5, 3, 6))
    two = Finding("HL901", "unused-suppression", "note", "Entry 'HL77' names no rule.", "a.yaml", Span(3, 5, 3, 6))
    other = dataclasses.replace(made("b"), message="Image of Job/b is something else.")
    out = text.render(RunResult(findings=[one, two, made("a"), other], files=1)).splitlines()
    assert len(out) == 6 and not any(line.startswith("    ") for line in out)


def test_a_suppressed_finding_is_never_grouped_with_live_ones():
    findings = [made("a"), made("b", suppressed=True)]
    out = text.render(RunResult(findings=[findings[0]], suppressed=[findings[1]], files=1), show_suppressed=True)
    assert [line[:40] for line in out.splitlines()[:2]] == [
        "base/job.yaml:12:18: warning HL102 hook-",
        "base/job.yaml:12:18: warning HL102 hook-",
    ]


def test_markdown_groups_one_finding_made_for_many_objects_at_one_place():
    findings = [made("db-migrate"), made("e1-db-migrate"), made("e2-db-migrate")]
    rows = [line for line in render_tree(RunResult(findings=findings, files=1)).splitlines() if line.startswith("| ⚠️")]
    assert rows == [
        "| ⚠️ | `HL102` hook-image-mutable-tag | base/job.yaml:12 | Image of Job/db-migrate uses the mutable tag "
        "':latest': each sync may run different code. Pin a version tag. (the same for 2 more objects made at this "
        "place: Job/e1-db-migrate, Job/e2-db-migrate) |"
    ]  # fmt: skip


# --- hooklint doctor ----------------------------------------------------------------------------

APPS = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: shop
spec:
  source:
    repoURL: https://github.com/acme/deploy.git
    path: deploy
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: other
spec:
  source:
    repoURL: https://github.com/acme/other.git
    path: x
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: redis
spec:
  source:
    repoURL: https://charts.example.com/stable
    chart: redis
"""


def test_doctor_says_renderers_configuration_urls_applications_and_cache(repo, monkeypatch, tmp_path_factory):
    from hooklint.sources.render import helm, kustomize

    monkeypatch.setattr(kustomize, "find_kustomize", lambda *_: None)
    monkeypatch.setattr(helm, "find_helm", lambda *_: None)
    cache = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(cache))
    (repo / ".git/config").write_text('[remote "origin"]\n\turl = git@github.com:acme/deploy.git\n')
    (repo / "apps").mkdir()
    (repo / "apps/apps.yaml").write_text(APPS)
    (repo / ".hooklint.yaml").write_text('argocd-version: "3.4"\n')
    result = runner.invoke(app, ["doctor"])
    assert result.exit_code == 0, result.output
    from hooklint import __version__
    import platform

    assert result.stdout.splitlines() == [
        f"hooklint {__version__} (Python {platform.python_version()})",
        "",
        "Renderers:",
        "  kustomize: not installed: kustomize sources are HL008 errors; put kubectl (hooklint runs 'kubectl "
        "kustomize') or the kustomize binary on PATH (https://kubectl.docs.kubernetes.io/installation/kustomize/)",
        "  Helm: not installed: charts are HL008 errors; pip install 'hooklint[helm]' (Helm's Go library, in process), "
        "or put the helm binary (3 or later) on PATH; in pre-commit, keep helm-python-sdk in the hook's "
        "additional_dependencies (Argo CD 3.4.7 renders charts with Helm 3)",
        "",
        f"Configuration: {repo / '.hooklint.yaml'} (found from . upward)",
        "  argocd-version 3.4.7, fail-on warning, workload-scope hooks",
        "",
        "Repository URLs matched (an Application whose repoURL is one of these is linted as Argo CD renders it):",
        f"  github.com/acme/deploy (git remote of {repo})",
        "",
        "Applications written in these files: 1 mapped, 2 ignored (those an app of apps or an ApplicationSet makes: "
        "hooklint plan)",
        "  mapped   Application shop (apps/apps.yaml:1) spec.source -> deploy",
        "  ignored  Application other (apps/apps.yaml:10) spec.source: repoURL https://github.com/acme/other.git is "
        "another repository",
        "  ignored  Application redis (apps/apps.yaml:19) spec.source: chart redis from the Helm repository "
        "https://charts.example.com/stable, not a folder of this repository",
        "",
        f"Cache: {cache} (HOOKLINT_CACHE_DIR, else $XDG_CACHE_HOME/hooklint, else ~/.cache/hooklint)",
        "  0.0 MiB of entries, cap 1024 MiB (HOOKLINT_CACHE_MAX_MB): the least recently used are removed past it",
    ]  # fmt: skip


def test_doctor_says_a_cache_folder_inside_the_checkout_is_not_used(repo, monkeypatch):
    """A cache folder inside a Git work tree is never used (a pull request could commit entries
    there: attacker trial 41, 2); the doctor says so, on the line after the folder."""
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(repo / ".cache"))
    out = runner.invoke(app, ["doctor"]).stdout.splitlines()
    start = out.index(f"Cache: {repo / '.cache'} (HOOKLINT_CACHE_DIR, else $XDG_CACHE_HOME/hooklint, else ~/.cache/hooklint)")
    assert out[start + 1] == f"  not used: it is inside the Git work tree {repo}, whose files a pull request can write"
    assert not (repo / ".cache").exists()


def test_doctor_without_a_remote_says_every_application_is_ignored(repo):
    (repo / "apps").mkdir()
    (repo / "apps/apps.yaml").write_text(APPS)
    out = runner.invoke(app, ["doctor", "apps"]).stdout.splitlines()
    start = out.index("Repository URLs matched (an Application whose repoURL is one of these is linted as Argo CD renders it):")
    assert out[start + 1] == "  none: no git remote and no repo-urls; every Application is ignored (set repo-urls)"
    assert "  ignored  Application shop (apps/apps.yaml:1) spec.source: no URL of this repository is known (no git " \
           "remote, no repo-urls in the configuration)" in out


def test_doctor_names_the_remote_of_a_repository_without_applications(repo):
    """A new user's repository (charts and overlays, no Application yet): the remote was said to be missing."""
    (repo / ".git/config").write_text('[remote "origin"]\n\turl = https://github.com/acme/deploy.git\n')
    (repo / ".hooklint.yaml").write_text("repo-urls: [https://gitlab.example.com/acme/mirror.git]\n")
    out = runner.invoke(app, ["doctor", "deploy"]).stdout.splitlines()
    start = out.index("Repository URLs matched (an Application whose repoURL is one of these is linted as Argo CD renders it):")
    assert out[start + 1:start + 4] == [f"  github.com/acme/deploy (git remote of {repo})",
                                        "  gitlab.example.com/acme/mirror (repo-urls)", ""]  # fmt: skip
