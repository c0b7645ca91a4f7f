"""A ``*.jsonnet`` file fails closed (attack issue 32, F15): Argo CD evaluates the jsonnet files of
a directory source (argo-cd v3.5.1 ``reposerver/repository/repository.go`` ``findManifests``:
``manifestFile`` is ``^.*\\.(yaml|yml|json|jsonnet)$``; ``*.libsonnet`` files are only imported),
and hooklint never runs jsonnet. When an HL009 at an Application's source entry does not say so
for the run (no Application of the repository names the folder, or the run does not name the
Application's file), the jsonnet file is HL009 itself; before, it was only listed as not linted
(exit 0), and ``diff`` found 0 new findings for a change that adds one."""

from __future__ import annotations

from typer.testing import CliRunner

from conftest import git
from hooklint.cli import app

runner = CliRunner()
#: The attacker's app/hook.jsonnet: a privileged hostPID PreSync Pod.
HOOK = """\
{
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'pwn', annotations: { 'argocd.argoproj.io/hook': 'PreSync' } },
  spec: { hostPID: true, containers: [{ name: 'x', image: 'busybox', securityContext: { privileged: true } }] },
}
"""
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n"
APP = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: a, namespace: argocd}\nspec:\n"
       "  project: p\n  source: {repoURL: https://github.com/acme/deploy.git, path: app}\n"
       "  destination: {server: https://kubernetes.default.svc, namespace: a}\n")  # fmt: skip
UNNAMED = ("app/hook.jsonnet:1:1: warning HL009 source-not-rendered: app/hook.jsonnet is jsonnet: no Application of "
           "this repository names app, but Argo CD evaluates the *.jsonnet files of a directory source (an Application "
           "of another repository may name this folder, or one with directory.recurse a folder above it) and applies "
           "the objects they make. hooklint does not run jsonnet, so those objects, possibly hooks, were not checked; "
           "lint its output with `jsonnet app/hook.jsonnet | hooklint lint -`.")  # fmt: skip


def _write(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_jsonnet_in_a_folder_no_application_names_is_hl009_and_libsonnet_is_quiet(tmp_path, monkeypatch):
    """Before: ``0 errors, 0 warnings, 0 notes``, a "not linted" note, exit 0."""
    _write(tmp_path, {"app/cm.yaml": CM, "app/hook.jsonnet": HOOK, "app/lib.libsonnet": "{}\n"})
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["lint", "--no-cache", "--show-skipped", "app"])
    assert result.exit_code == 1
    assert result.output.splitlines()[:3] == [UNNAMED, "", "0 errors, 1 warning, 0 notes in 2 files"]
    assert "not linted" not in result.output


def test_diff_that_adds_a_jsonnet_file_has_it_as_a_new_finding(tmp_path, monkeypatch):
    """Before: ``0 new findings``, the file named only under "Not fully rendered", exit 0."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "config", "user.email", "ci@example.com")
    git(tmp_path, "config", "user.name", "ci")
    _write(tmp_path, {"app/cm.yaml": CM})
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    _write(tmp_path, {"app/hook.jsonnet": HOOK, "app/lib.libsonnet": "{}\n"})
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "head")
    result = runner.invoke(app, ["diff", "--no-cache", "HEAD~1", "--head", "HEAD"])
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "hooklint diff HEAD~1 -> HEAD: 1 new finding, 0 fixed, 0 unchanged; no plan change",
        "",
        "New findings:",
        "  " + UNNAMED,
        "",
        "Not fully rendered after the change (what they add was not checked):",
        "  app: rendered partial: app/hook.jsonnet:1:1: jsonnet: Argo CD evaluates it, hooklint does not",
    ]


def test_jsonnet_named_without_its_application_is_hl009_at_the_file(tmp_path, monkeypatch):
    """Pre-commit names the changed files only: the HL009 at the Application's source entry is
    not in the run, so the jsonnet file says it, naming the Application. Before: exit 0. Named
    with the Application's file, it stays listed as not linted, the HL009 at the entry; a file
    the Application's directory.exclude leaves out is not evaluated and stays quiet (before, the
    entry's HL009 named it among the jsonnet files the source holds)."""
    _write(tmp_path, {"apps/a.yaml": APP, "app/cm.yaml": CM, "app/hook.jsonnet": HOOK, "app/old.jsonnet": HOOK,
                      ".hooklint.yaml": "repo-urls: [https://github.com/acme/deploy.git]\n"})  # fmt: skip
    (tmp_path / ".git").mkdir()
    (tmp_path / "apps/a.yaml").write_text(APP.replace("path: app}", "path: app, directory: {exclude: old.jsonnet}}"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    result = runner.invoke(app, ["lint", "app/hook.jsonnet", "app/old.jsonnet"])
    assert result.exit_code == 1
    assert result.output.splitlines()[:3] == [
        "app/hook.jsonnet:1:1: warning HL009 source-not-rendered: app/hook.jsonnet is jsonnet: Application a "
        "(apps/a.yaml:6) reads app as a directory source, and Argo CD evaluates its *.jsonnet files and applies the "
        "objects they make. hooklint does not run jsonnet, so those objects, possibly hooks, were not checked; lint its "
        "output with `jsonnet app/hook.jsonnet | hooklint lint -`.",
        "",
        "0 errors, 1 warning, 0 notes in 1 file",
    ]
    result = runner.invoke(app, ["lint", "--show-skipped", "apps/a.yaml", "app"])
    assert result.exit_code == 1
    assert [line for line in result.output.splitlines() if "jsonnet" in line] == [
        "apps/a.yaml:6:12: warning HL009 source-not-rendered: Application a (apps/a.yaml:6): spec.source holds jsonnet "
        "files (app/hook.jsonnet), which Argo CD evaluates and hooklint does not. Argo CD renders it when it syncs the "
        "application. hooklint did not, so the objects it makes, possibly hooks, were not checked; lint what it renders "
        "with `hooklint lint -`.",
        "note: 2 files not linted on their own (1 jsonnet, which hooklint does not evaluate; 1 left out by an "
        "Application's directory.include/exclude); --show-skipped lists them.",
        "note: not linted: app/hook.jsonnet: jsonnet: Argo CD evaluates it, hooklint does not (lint its output with "
        "`jsonnet FILE | hooklint lint -`)",
        "note: not linted: app/old.jsonnet: Application a (apps/a.yaml:6) leaves it out (spec.source.directory): it "
        "matches directory.exclude 'old.jsonnet'",
    ]


def test_diff_that_edits_jsonnet_files_has_them_as_new_findings(tmp_path, monkeypatch):
    """An edited jsonnet file is new in ``diff``, in a folder no Application names (HL009 at the
    file) and in one an Application names (HL009 at its source entry): the finding's field is the
    files' SHA-256. Before: ``0 new findings``, exit 0 (the same finding on both sides)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "config", "user.email", "ci@example.com")
    git(tmp_path, "config", "user.name", "ci")
    _write(tmp_path, {"apps/a.yaml": APP, "app/cm.yaml": CM, "app/hook.jsonnet": "{}\n", "x/hook.jsonnet": "{}\n",
                      ".hooklint.yaml": "repo-urls: [https://github.com/acme/deploy.git]\n"})  # fmt: skip
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    _write(tmp_path, {"app/hook.jsonnet": HOOK, "x/hook.jsonnet": HOOK})
    git(tmp_path, "commit", "-qam", "head")
    result = runner.invoke(app, ["diff", "--format", "json", "HEAD~1", "--head", "HEAD"])
    assert result.exit_code == 1
    import json

    doc = json.loads(result.stdout)
    assert [(f["path"], f["line"], f["rule_id"]) for f in doc["new"]] == [
        ("apps/a.yaml", 6, "HL009"), ("x/hook.jsonnet", 1, "HL009")]
    # the base's findings on those files are the ones the new ones replace, not fixed ones
    assert (doc["fixed"], doc["unchanged"]) == ([], 0)
    result = runner.invoke(app, ["diff", "HEAD", "--head", "HEAD"])
    assert result.exit_code == 0
    assert result.output.splitlines()[0] == "hooklint diff HEAD -> HEAD: 0 new findings, 0 fixed, 2 unchanged; no plan change"


def test_a_jsonnet_link_out_of_the_repository_is_hl007_and_never_read(tmp_path, monkeypatch):
    """Argo CD's repo server refuses a repository with a link leading out of it; hooklint never
    reads the target (before: listed as a jsonnet file not linted, exit 0)."""
    import os

    outside = tmp_path / "outside.jsonnet"
    outside.write_text(HOOK)
    repo = tmp_path / "repo"
    _write(repo, {"app/cm.yaml": CM})
    (repo / ".git").mkdir()
    os.symlink(outside, repo / "app/hook.jsonnet")
    monkeypatch.chdir(repo)
    result = runner.invoke(app, ["lint", "--no-cache", "app"])
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        f"app/hook.jsonnet:1:1: error HL007 render-failed: Rendering failed: app/hook.jsonnet is a symbolic link to "
        f"{outside}, outside the repository (illegal filepath in symlink). Argo CD's repo server fails the same way, so "
        "the application cannot sync; nothing of it is checked until it renders.")
