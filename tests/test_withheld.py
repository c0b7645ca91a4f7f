"""A renderer's copy of the repository never holds Git's data nor the fetch credentials file
(hooklint.sources.repository.withheld; trial 4 item 4): a chart at the top of a CI clone printed
the whole ``.git/config`` (``actions/checkout``'s ``AUTHORIZATION: basic ...`` extraheader, a
``gitlab-ci-token:TOKEN@`` remote) through ``{{ fail (.Files.Get ".git/config") }}``, base64'd
twice past the redaction. Helm's own loader ignores only ``templates/.?*`` and what
``.helmignore`` lists (helm ``pkg/ignore/rules.go`` ``AddDefaults``)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.sources.render.helm import _chart_files, find_helm
from hooklint.sources.render.kustomize import _plan_copy, find_kustomize
from hooklint.sources.repository.withheld import CREDENTIALS_REASON, GIT_REASON, Withheld, git_data

needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")
needs_kustomize = pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")

runner = CliRunner()

TAIL = (". Argo CD's repo server fails the same way, so the application cannot sync; nothing of it is "
        "checked until it renders.")  # fmt: skip
#: What actions/checkout writes into .git/config (persist-credentials: true, the default).
EXTRAHEADER = "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX0FCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFla"
REMOTE = "https://gitlab-ci-token:glcbt-64_SecretJobTokenValue123@gitlab.com/acme/x.git"
CREDENTIALS = "charts.example.com:\n  username: ci-bot\n  password: VerySecretRegistryPassw0rd\n"


def _clone(root: Path) -> None:
    """``root`` as a CI clone: a real .git whose config holds the job's token twice, the fetch
    credentials file CI writes, a submodule's ``gitdir:`` file, a link to ``.git/config`` and a
    hard link to the credentials file."""
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "config", "http.https://github.com/.extraheader", EXTRAHEADER], check=True)
    subprocess.run(["git", "-C", str(root), "remote", "add", "origin", REMOTE], check=True)
    (root / ".hooklint.yaml").write_text("allowed-registries: [ghcr.io/acme]\nfetch-credentials: .fetch-credentials.yaml\n")
    (root / ".fetch-credentials.yaml").write_text(CREDENTIALS)
    (root / "sub").mkdir()
    (root / "sub" / ".git").write_text("gitdir: ../.git/modules/sub\n")
    (root / "sub" / "notes.txt").write_text("kept\n")
    os.symlink(".git/config", root / "cfglink")
    os.link(root / ".fetch-credentials.yaml", root / "hard.yaml")


@needs_helm
def test_a_chart_at_the_top_of_a_clone_sees_nothing_of_git_nor_the_credentials(tmp_path, monkeypatch):
    tmp_path = tmp_path / "root"  # the release name: the folder's
    _clone(tmp_path)
    (tmp_path / "Chart.yaml").write_text("apiVersion: v2\nname: shop\nversion: 0.1.0\n")
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "cm.yaml").write_text(
        '{{ $n := list }}{{ range $p, $_ := .Files.Glob "**" }}{{ $n = append $n $p }}{{ end }}'
        '{{ fail (printf "files=%v config=%q twice=%q sub=%q link=%q hard=%q creds=%q" $n (.Files.Get ".git/config") '
        '(.Files.Get ".git/config" | b64enc | b64enc) (.Files.Get "sub/.git") (.Files.Get "cfglink") '
        '(.Files.Get "hard.yaml") (.Files.Get ".fetch-credentials.yaml")) }}\n')
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["lint", "--format", "text", "."])
    assert [line for line in result.output.splitlines() if "HL007" in line] == [
        "templates/cm.yaml:1:89: error HL007 render-failed: Rendering failed: execution error at "
        '(shop/templates/cm.yaml:1:89): files=[.hooklint.yaml sub/notes.txt] config="" twice="" sub="" link="" '
        'hard="" creds=""' + TAIL]
    assert result.exit_code == 1


@needs_helm
def test_a_value_file_of_git_data_or_the_credentials_is_left_out(tmp_path, monkeypatch):
    _clone(tmp_path)
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "shop.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: shop\n  namespace: argocd\n"
        "spec:\n  project: default\n  destination: {server: https://kubernetes.default.svc, namespace: shop}\n"
        "  source:\n    repoURL: https://gitlab.com/acme/x.git\n    path: chart\n    helm:\n"
        "      valueFiles: [../.fetch-credentials.yaml, ../cfglink]\n")
    (tmp_path / "chart" / "templates").mkdir(parents=True)
    (tmp_path / "chart" / "Chart.yaml").write_text("apiVersion: v2\nname: shop\nversion: 0.1.0\n")
    (tmp_path / "chart" / "templates" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: values\ndata:\n  values: {{ toJson .Values | quote }}\n")
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["lint", "--format", "text", "apps/shop.yaml"])
    lines = [line for line in result.output.splitlines() if "HL00" in line]
    then = ("hooklint never hands it to a renderer. Argo CD's Helm would read its own checkout's, which holds no CI "
            "credentials (hooklint cannot tell whether it renders there). hooklint left it out, so the chart was "
            "rendered and checked with its other values: objects and hooks that this file's values would add or "
            "change were not checked.")  # fmt: skip
    assert lines == [
        f"apps/shop.yaml:13:20: warning HL009 source-not-rendered: value file .fetch-credentials.yaml is "
        f"{CREDENTIALS_REASON}: {then}",
        f"apps/shop.yaml:13:48: warning HL009 source-not-rendered: value file cfglink is {GIT_REASON}: {then}",
    ]


@needs_kustomize
@pytest.mark.parametrize("field,entry,column,shown,why", [
    ("resources", "../.git/config", 13, ".git/config", GIT_REASON),
    ("resources", "../cfglink", 13, "cfglink", GIT_REASON),
    ("resources", "../hard.yaml", 13, "hard.yaml", CREDENTIALS_REASON),
    ("resources", "../.fetch-credentials.yaml", 13, ".fetch-credentials.yaml", CREDENTIALS_REASON),
    ("configMapGenerator", "../.git/config", 20, ".git/config", GIT_REASON),
    ("configMapGenerator", "../sub/.git", 20, "sub/.git", GIT_REASON),
])  # fmt: skip
def test_a_kustomization_naming_git_data_or_the_credentials_is_not_rendered(tmp_path, monkeypatch, field, entry,
                                                                             column, shown, why):  # fmt: skip
    _clone(tmp_path)
    (tmp_path / "k").mkdir()
    text = (f"resources: [{entry}]\n" if field == "resources" else
            f"configMapGenerator:\n- {{name: x, envs: [{entry}]}}\n")  # fmt: skip
    (tmp_path / "k" / "kustomization.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["lint", "--format", "text", "k"])
    line = 1 if field == "resources" else 2
    assert [x for x in result.output.splitlines() if "HL0" in x] == [
        f"k/kustomization.yaml:{line}:{column}: warning HL009 source-not-rendered: {field} entry {entry!r} names "
        f"{shown}, which is {why}: hooklint never hands it to a renderer. Argo CD's kustomize would read its own "
        "checkout's, which holds no CI credentials (hooklint cannot tell whether it renders there). hooklint did "
        "not render k/, so none of its objects were checked, hooks included."]


def test_the_copies_leave_out_git_data_and_the_credentials_at_any_depth(tmp_path):
    """The copy plans themselves (fetched trees go through the same two functions): nothing of
    ``.git`` (a folder, a submodule's file, any letter case, through a link) nor the credentials."""
    _clone(tmp_path)
    (tmp_path / "chart" / "vendored" / ".GIT").mkdir(parents=True)
    (tmp_path / "chart" / "vendored" / ".GIT" / "config").write_text("[core]\n")
    (tmp_path / "chart" / "Chart.yaml").write_text("apiVersion: v2\nname: shop\nversion: 0.1.0\n")
    (tmp_path / "chart" / "sub").mkdir()
    (tmp_path / "chart" / "sub" / ".git").write_text("gitdir: ../../.git/modules/sub\n")
    os.symlink("../.git", tmp_path / "chart" / "gitlink")
    os.symlink("../cfglink", tmp_path / "chart" / "cfg")
    os.link(tmp_path / ".fetch-credentials.yaml", tmp_path / "chart" / "creds.yaml")
    withheld = Withheld.of(str(tmp_path / ".fetch-credentials.yaml"))
    files = _chart_files(str(tmp_path / "chart"), str(tmp_path), withheld=withheld)
    assert [inside for _, inside in files] == ["Chart.yaml"]
    everything = [str(p) for p in tmp_path.rglob("*") if p.is_file() or p.is_symlink()]
    plan = _plan_copy(str(tmp_path), everything, lambda p: p, withheld)
    assert sorted(plan.files) == [".hooklint.yaml", "chart/Chart.yaml", "sub/notes.txt"]
    assert plan.links == {}
    assert not any(git_data(folder) for folder in plan.folders)


def test_withheld_names_what_it_withholds(tmp_path):
    _clone(tmp_path)
    withheld = Withheld.of(str(tmp_path / ".fetch-credentials.yaml"))
    why = {name: withheld.why(str(tmp_path / name), str(tmp_path))
           for name in (".git/config", "sub/.git", "cfglink", "hard.yaml", ".fetch-credentials.yaml", "sub/notes.txt")}
    assert why == {".git/config": GIT_REASON, "sub/.git": GIT_REASON, "cfglink": GIT_REASON,
                   "hard.yaml": CREDENTIALS_REASON, ".fetch-credentials.yaml": CREDENTIALS_REASON,
                   "sub/notes.txt": None}  # fmt: skip
    other = tmp_path / "base-checkout"  # the same path of another checkout (a review's base) is withheld too
    (other / ".git").mkdir(parents=True)
    (other / ".fetch-credentials.yaml").write_text("x: {token: t}\n")
    assert withheld.why(str(other / ".fetch-credentials.yaml"), str(other)) == CREDENTIALS_REASON
    assert Withheld.of(None).why(str(tmp_path / "hard.yaml"), str(tmp_path)) is None
