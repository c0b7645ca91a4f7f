"""``spec.source.kustomize.components`` globs as Go's ``filepath.Glob`` (attacker trial 9, F4).

Argo CD v3.5.1 (``util/kustomize/kustomize.go`` ``Build``) runs ``kustomize edit add component``
with the Application's patterns in the source folder; kustomize globs each with its file system's
``Glob``, ``filepath.Glob`` on disk, where ``*`` matches a leading dot and a class is negated by ``^``,
not ``!``. hooklint used Python's ``glob``: a hidden Component (``.comp``) with a privileged PreSync
Pod was deployed by Argo CD and never checked (lint exit 0)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from conftest import write
from hooklint.cli import app
from hooklint.sources.render.kustomize import KustomizeOptions, apply_options, find_kustomize
from hooklint.sources.render.rendered import RenderError
from hooklint.sources.repository.gomatch import BadPattern, filepath_glob

runner = CliRunner()
COMPONENT = "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n- pod.yaml\n"
POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: pwn
  annotations: {argocd.argoproj.io/hook: PreSync}
spec:
  hostPID: true
  containers:
  - {name: x, image: "registry.example.com/x@sha256:0000000000000000000000000000000000000000000000000000000000000000"}
"""
APP = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: shop, namespace: argocd}
spec:
  project: default
  destination: {server: https://kubernetes.default.svc, namespace: shop}
  source: {repoURL: https://example.com/x.git, path: app, kustomize: {components: ["PATTERN"]}}
"""


@pytest.fixture
def tree(tmp_path):
    for name in (".comp", "xcomp", "!comp", "sub/.deep", "sub/deep"):
        (tmp_path / name).mkdir(parents=True)
    (tmp_path / "file").write_text("")
    return tmp_path


@pytest.mark.parametrize(("pattern", "expected"), [
    ("*comp", ["!comp", ".comp", "xcomp"]),  # Python's glob: ["!comp", "xcomp"]
    ("?comp", ["!comp", ".comp", "xcomp"]),
    ("[^x]comp", ["!comp", ".comp"]),        # Go negates with ^ ...
    ("[!.]comp", ["!comp", ".comp"]),        # ... and reads ! as a character: Python's glob gives !comp, xcomp
    ("sub/*", ["sub/.deep", "sub/deep"]),
    ("*/.d*", ["sub/.deep"]),
    ("xcomp", ["xcomp"]),                   # no wildcard: as written, when it exists
    ("./xcomp/", ["./xcomp/"]),
    ("nothere", []),
    ("file/*", []),
])  # fmt: skip
def test_go_filepath_glob(tree, pattern, expected):
    assert filepath_glob(pattern, str(tree)) == expected


@pytest.mark.parametrize("pattern", ["[", "x[", "\\", "*/["])
def test_a_malformed_pattern_is_go_s_err_bad_pattern(tree, pattern):
    with pytest.raises(BadPattern):
        filepath_glob(pattern, str(tree))


def test_apply_options_adds_the_hidden_component(tree):
    kustomization: dict = {"resources": ["cm.yaml"]}
    assert apply_options(kustomization, KustomizeOptions(components=("*comp",)), str(tree), "kustomization.yaml")
    assert kustomization["components"] == ["!comp", ".comp", "xcomp"]


def test_apply_options_refuses_a_malformed_pattern(tree):
    with pytest.raises(RenderError, match=r"^kustomize edit add component: \[: syntax error in pattern$"):
        apply_options({}, KustomizeOptions(components=("[",)), str(tree), "kustomization.yaml")


@pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")
@pytest.mark.parametrize("pattern", ["*comp", "[!.]comp"])
def test_a_hook_in_a_hidden_component_is_linted(tmp_path, monkeypatch, pattern):
    """/work/attack9/fx/d_comp: lint said "0 errors, 0 warnings, 0 notes in 3 files", exit 0."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    write(tmp_path, {
        "app/kustomization.yaml": "resources:\n- cm.yaml\n",
        "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n",
        "app/.comp/kustomization.yaml": COMPONENT,
        "app/.comp/pod.yaml": POD,
        "app/xcomp/kustomization.yaml": COMPONENT.replace("pod.yaml", "cm2.yaml"),
        "app/xcomp/cm2.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm2}\n",
        ".hooklint.yaml": "repo-urls: [https://example.com/x.git]\n",
        "apps/app.yaml": APP.replace("PATTERN", pattern),
    })  # fmt: skip
    result = runner.invoke(app, ["lint", "--no-cache", "."])
    assert result.exit_code == 1, result.output
    assert "hidden folder" not in result.output  # it is linted through shop's rendering, not left out
    assert [line for line in result.output.splitlines() if "HL105" in line] == [
        "app/.comp/pod.yaml:7:12: error HL105 hook-privileged-pod: Pod/pwn sets hostPID: true: a PreSync hook runs on "
        "every sync and then controls the node, not just its pod. Remove it, or do this work outside the cluster's "
        "workloads."
    ]


def test_a_pattern_from_the_parent_folder_globs_there(tree):
    """A component beside the source folder (``../shared*``): the glob lists the parent's names."""
    (tree / "sharedcomp").mkdir()
    assert filepath_glob("../shared*", str(tree / "sub"), str(tree)) == ["../sharedcomp"]
    assert filepath_glob("../shared*", str(tree / "sub"), str(tree / "sub")) == []  # never lists outside ``inside``
