"""Typed reasons (issue 20): why a file is not linted is a :class:`~hooklint.reasons.Skip` set where
it is decided; the not-linted notice counts files by its kind, never by words in its detail."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import hooklint
from hooklint.cli import app
from hooklint.reasons import Skip, SkipKind

runner = CliRunner()
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
APPLICATION = """apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: shop
  namespace: argocd
spec:
  project: shop
  destination:
    namespace: store
    server: https://kubernetes.default.svc
  source:
    repoURL: https://github.com/acme/shop
    path: overlay
    kustomize:
      components:
      - ../comp
"""


#: An Application naming folder d (its jsonnet files are then HL009 at its source entry and listed as
#: not linted; in a folder no Application names, each is HL009 at the file: test_inputs).
APP_D = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: d, namespace: argocd}\nspec:\n"
         "  project: default\n  source: {repoURL: https://github.com/acme/deploy.git, path: d}\n"
         "  destination: {server: https://kubernetes.default.svc, namespace: d}\n")


def _lint(tmp_path: Path, monkeypatch, files: dict[str, str], *args: str) -> list[str]:
    (tmp_path / ".git").mkdir()
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    result = runner.invoke(app, ["lint", "--show-skipped", *args, "."])
    return [line for line in result.output.splitlines() if line.startswith("note: ") and "HL101" not in line]


def test_the_files_of_a_component_an_application_adds_are_counted_as_read_through_its_rendering(tmp_path, monkeypatch):
    """Before: the detail says "linted through that Application's rendering", which the notice's
    substring table did not know, so they were counted as "not rendered by Argo CD as written"."""
    notes = _lint(tmp_path, monkeypatch, {
        ".hooklint.yaml": "repo-urls: [https://github.com/acme/shop]\n", "apps/app.yaml": APPLICATION, "overlay/kustomization.yaml": "resources:\n- cm.yaml\n", "overlay/cm.yaml": CM,
        "comp/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n- path: patch.yaml\n",
        "comp/patch.yaml": CM + "  labels:\n    x: y\n",
    })  # fmt: skip
    why = ("a kustomize Component that Application shop (apps/app.yaml:12) adds (spec.source.kustomize.components): "
           "linted through that Application's rendering")  # fmt: skip
    notes = [n for n in notes if not n.startswith("note: kustomizations were rendered with")]  # the renderer's own
    assert notes == [
        "note: 3 files not linted on their own (2 read through a kustomization's rendering; 1 unrelated YAML); "
        "--show-skipped lists them.",
        "note: not linted: .hooklint.yaml: unrelated YAML: its first document is no Kubernetes object and the file "
        "lacks apiVersion:, kind: or metadata:",
        f"note: not linted: comp/kustomization.yaml: {why}",
        f"note: not linted: comp/patch.yaml: {why}",
    ]


@pytest.mark.parametrize("kind,files,args,detail", [
    (SkipKind.THROUGH_RENDERING, {"k/kustomization.yaml": "resources:\n- cm.yaml\npatches:\n- path: p/patch.yaml\n",
                                  "k/cm.yaml": CM, "k/p/patch.yaml": CM + "  labels:\n    x: y\n"}, (),
     "k/kustomization.yaml reads it (patches): linted through that kustomization's rendering"),
    (SkipKind.UNLISTED, {"k/kustomization.yaml": "resources:\n- cm.yaml\n", "k/cm.yaml": CM, "k/old.yaml": CM}, (),
     "k/kustomization.yaml does not list it (resources, patches, generators): kustomize never renders it, so Argo "
     "CD never applies it"),
    (SkipKind.SKIP_MARKER, {"d/a.yaml": "# +argocd:skip-file-rendering\n" + CM}, (),
     "+argocd:skip-file-rendering marker: Argo CD never renders it"),
    (SkipKind.UNRELATED_YAML, {"d/a.yaml": "name: x\n"}, (),
     "unrelated YAML: its first document is no Kubernetes object and the file lacks apiVersion:, kind: or metadata:"),
    (SkipKind.JSONNET, {"d/a.jsonnet": "{}\n", "apps/d.yaml": APP_D,
                        ".hooklint.yaml": "repo-urls: [https://github.com/acme/deploy.git]\n"}, (),
     "jsonnet: Argo CD evaluates it, hooklint does not (lint its output with `jsonnet FILE | hooklint lint -`)"),
])  # fmt: skip
def test_each_kind_is_said_in_its_words(tmp_path, monkeypatch, kind, files, args, detail):
    notes = _lint(tmp_path, monkeypatch, files, *args)
    counted = [n for n in notes if "not linted on" in n]
    assert len(counted) == 1, notes
    assert re.search(rf"[(;] ?1 {re.escape(kind.label)}[;)]", counted[0]), notes
    assert any(n.endswith(f": {detail}") for n in notes if n.startswith("note: not linted: ")), notes


def test_a_dangling_link_is_its_kind(tmp_path, monkeypatch):
    (tmp_path / "d").mkdir()
    os.symlink("missing.yaml", tmp_path / "d/broken.yaml")
    (tmp_path / "d/a.yaml").write_text(CM)
    notes = _lint(tmp_path, monkeypatch, {})
    assert notes[0] == "note: 1 file not linted on its own (1 dangling symbolic links); --show-skipped lists it."
    assert notes[1] == ("note: not linted: d/broken.yaml: a symbolic link to missing.yaml, which does not exist: "
                        "Argo CD skips it (destination of symlink is missing)")  # fmt: skip


def test_every_kind_is_decided_somewhere_and_no_reason_is_read_back_from_its_words():
    """Every member is set by some module of the package (the per-kind tests above and the notice
    tests of test_inputs (over max-file-size), test_applications (directory.include/exclude), test_partial_kustomize say which input), and no module
    tells a reason by a substring of its detail any more (RENDER_FAILED is set by Skip.not_rendered,
    below the enum in reasons.py; the pipeline once searched a detail for a kustomization's path)."""
    package = Path(hooklint.__file__).parent
    reasons = (package / "reasons.py").read_text()
    text = "\n".join(p.read_text() for p in package.rglob("*.py") if p.name != "reasons.py")
    text += reasons[reasons.index("class Skip:"):]
    assert sorted(k.name for k in SkipKind if f"SkipKind.{k.name}" not in text) == []
    assert "_SKIP_KINDS" not in text and "LINTED_THROUGH" not in text and "in reason.detail" not in text


def test_a_skip_reads_as_its_detail_and_sorts_by_it():
    a, b = Skip("a", SkipKind.JSONNET), Skip("b", SkipKind.UNRELATED_YAML)
    assert (str(a), sorted([b, a])) == ("a", [a, b])


def test_an_unrendered_applications_reasons_are_typed_and_say_where(tmp_path, monkeypatch):
    """Coverage reasons were prose; they are :class:`~hooklint.reasons.Unrendered` values, the
    kind set where the rendering decided it, the words made by reporters (plan, markdown)."""
    from hooklint.config import Config
    from hooklint.reasons import Unrendered, UnrenderedKind
    from hooklint.sources.load import group_applications, load_application
    from hooklint.sources.render.kustomize import find_kustomize

    if find_kustomize() is None:
        pytest.skip("neither kustomize nor kubectl is installed")
    (tmp_path / ".git").mkdir()
    (tmp_path / "k").mkdir()
    (tmp_path / "k/kustomization.yaml").write_text("resources:\n- cm.yaml\n- https://example.com/acme/base.git\n")
    (tmp_path / "k/cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    [application] = group_applications(["k"], [], [], config=Config())
    coverage = load_application(application, Config()).coverage
    assert coverage.rendered == "partial"
    assert coverage.reasons == (Unrendered(
        UnrenderedKind.LEFT_OUT, "resources entry 'https://example.com/acme/base.git' is remote and needs the network",
        "k/kustomization.yaml", 3, 3),)  # fmt: skip
    assert coverage.reasons[0].words() == ("k/kustomization.yaml:3:3: resources entry "
                                           "'https://example.com/acme/base.git' is remote and needs the network")  # fmt: skip
