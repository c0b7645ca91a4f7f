"""Argo CD Applications as the map of the repository (hooklint.sources.appmap.applications, issue 9 item 4)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.sources.appmap.applications import glob_match, normalize_repo_url
from hooklint.sources.repository.git import git_remote_urls
from hooklint.sources.render.helm import find_helm
from hooklint.sources.render.kustomize import find_kustomize
from tests.manifests import CLEAN_HOOK_JOB as JOB

runner = CliRunner()
needs_kustomize = pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/acme/shop.git",
        "https://github.com/Acme/Shop",
        "https://user:token@github.com/acme/shop/",
        "git@github.com:acme/shop.git",
        "ssh://git@github.com/acme/shop",
        "ssh://git@github.com:22/acme/shop.git",
        "  GitHub.com:acme/shop  ",
    ],
)
def test_the_forms_of_one_repository_url_are_equal(url):
    assert normalize_repo_url(url) == "github.com/acme/shop"


def test_other_repositories_stay_other():
    assert normalize_repo_url("https://github.com/acme/shop-config") != normalize_repo_url("https://github.com/acme/shop")
    assert normalize_repo_url("https://gitlab.com/acme/shop") != normalize_repo_url("https://github.com/acme/shop")


@pytest.mark.parametrize(
    "pattern, text, matched",
    [
        ("*.yaml", "a.yaml", True),
        ("*.yaml", "sub/a.yaml", True),  # no separators: * crosses /
        ("**/README.md", "docs/README.md", True),
        ("{a.yaml,b.yaml}", "b.yaml", True),
        ("{a.yaml,b.yaml}", "c.yaml", False),
        ("sub/{x,y{1,2}}.yaml", "sub/y2.yaml", True),
        ("?.yaml", "ab.yaml", False),
        ("[ab].yaml", "b.yaml", True),
        ("[!ab].yaml", "b.yaml", False),
        ("[a-c].yaml", "c.yaml", True),
        ("\\*.yaml", "*.yaml", True),
        ("\\*.yaml", "a.yaml", False),
        ("{a,b", "a", True),  # gobwas/glob compiles an unclosed brace (util/glob, gobwas v0.2.3 parser)
        ("[ab", "a", False),
    ],
)
def test_directory_globs_follow_argo_cds_glob_match(pattern, text, matched):
    assert glob_match(pattern, text) is matched


def test_remotes_are_read_from_the_git_configuration(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text(
        '[core]\n\tbare = false\n[remote "origin"]\n\turl = git@github.com:acme/shop.git\n'
        '[remote "mirror"]\n\turl = https://gitlab.example.com/acme/shop\n[branch "main"]\n\tremote = origin\n'
    )
    (tmp_path / "deploy" / "app").mkdir(parents=True)
    assert git_remote_urls(str(tmp_path / "deploy" / "app")) == (
        str(tmp_path), ["git@github.com:acme/shop.git", "https://gitlab.example.com/acme/shop"])
    # a worktree: .git is a file pointing at the git folder, whose commondir holds the configuration
    worktree = tmp_path / "wt"
    (tmp_path / ".git" / "worktrees" / "wt").mkdir(parents=True)
    (tmp_path / ".git" / "worktrees" / "wt" / "commondir").write_text("../..\n")
    worktree.mkdir()
    (worktree / ".git").write_text(f"gitdir: {tmp_path / '.git' / 'worktrees' / 'wt'}\n")
    assert git_remote_urls(str(worktree))[1] == ["git@github.com:acme/shop.git", "https://gitlab.example.com/acme/shop"]
    assert git_remote_urls("/")[0] is None


APPS = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: shop-prod
spec:
  project: shop
  destination:
    namespace: shop
  source:
    repoURL: https://github.com/acme/shop.git
    path: deploy/prod
    kustomize:
      namePrefix: prod-
      images:
        - ghcr.io/acme/migrate:latest
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: raw
spec:
  project: shop
  destination:
    namespace: raw-ns
  source:
    repoURL: git@github.com:acme/shop
    path: raw
    directory:
      recurse: true
      exclude: '{notes.yaml,sub/skip-*}'
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: vendor
spec:
  project: shop
  destination:
    namespace: vendor
  source:
    repoURL: https://github.com/someone/else
    path: other
"""

BAD_ANNOTATION = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  annotations:\n    x: 5\n"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    files = {
        ".git/config": '[remote "origin"]\n\turl = git@github.com:Acme/Shop.git\n',
        "apps/shop.yaml": APPS,
        "deploy/base/kustomization.yaml": "resources:\n- job.yaml\n",
        "deploy/base/job.yaml": JOB,
        "deploy/prod/kustomization.yaml": "resources:\n- ../base\n",
        "raw/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
        "raw/notes.yaml": BAD_ANNOTATION.format(name="notes"),
        "raw/sub/b.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n",
        "raw/sub/skip-me.yaml": BAD_ANNOTATION.format(name="skip"),
        "other/c.yaml": BAD_ANNOTATION.format(name="c"),
    }
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def plan_of(*paths: str) -> dict[str, dict]:
    result = runner.invoke(app, ["plan", "--format", "json", *paths])
    assert result.exit_code == 0, result.output
    return {a["application"]: a for a in json.loads(result.output)["applications"]}


@needs_kustomize
def test_an_applications_kustomize_options_and_namespace_apply_to_its_path(repo):
    plans = plan_of(".")
    prod = plans["deploy/prod"]
    assert prod["source"]["application"] == "Application shop-prod (apps/shop.yaml:10)"
    tasks = [(t["kind"], t["namespace"], t["name"]) for s in prod["steps"] for t in s["tasks"]]
    assert tasks == [("Job", "shop", "prod-migrate"), ("ConfigMap", "shop", "prod-settings")]
    result = runner.invoke(app, ["lint", "--format", "json", "deploy", "apps"])
    [hl102] = [f for f in json.loads(result.output)["findings"] if f["rule_id"] == "HL102"]
    # the image comes from the Application's kustomize.images entry: reported there
    assert (hl102["path"], hl102["line"], hl102["column"], hl102["object"]["name"]) == (
        "apps/shop.yaml", 15, 11, "prod-migrate")


def test_a_recursive_directory_source_reads_its_hidden_folders(repo):
    """Argo CD's walk of a ``recurse`` directory source prunes no folder by name
    (``getPotentiallyValidManifests``, v3.5.1): a hook in ``raw/.hidden/`` is applied, and was not
    seen (helper trial)."""
    (repo / "raw/.hidden").mkdir()
    (repo / "raw/.hidden/c.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hidden\n")
    plans = plan_of("raw", "apps")
    tasks = [(t["kind"], t["namespace"], t["name"], t["path"]) for s in plans["raw"]["steps"] for t in s["tasks"]]
    assert tasks == [("ConfigMap", "raw-ns", "a", "raw/a.yaml"), ("ConfigMap", "raw-ns", "b", "raw/sub/b.yaml"),
                     ("ConfigMap", "raw-ns", "hidden", "raw/.hidden/c.yaml")]  # fmt: skip


def test_an_applications_directory_options_and_namespace_apply_to_its_path(repo):
    plans = plan_of("raw", "apps", "other")
    raw = plans["raw"]
    assert raw["source"] == {"type": "directory", "renderer": None, "application": "Application raw (apps/shop.yaml:26)",
                             "generated_by": None}
    tasks = [(t["kind"], t["namespace"], t["name"]) for s in raw["steps"] for t in s["tasks"]]
    assert tasks == [("ConfigMap", "raw-ns", "a"), ("ConfigMap", "raw-ns", "b")]  # recurse; notes and skip-me excluded
    assert "raw/sub" not in plans  # covered by the recursive Application, not linted again
    assert plans["other"]["source"]["application"] is None  # another repository's Application: a plain folder
    result = runner.invoke(app, ["lint", "--format", "json", "raw", "other", "apps"])
    findings = json.loads(result.output)["findings"]
    # issue 33: the Application of another repository is named (HL009 at its repoURL), never a silent pass
    assert [(f["path"], f["line"], f["column"], f["rule_id"]) for f in findings] == [
        ("apps/shop.yaml", 41, 5, "HL009"), ("other/c.yaml", 6, 8, "HL004")]


def test_files_an_application_leaves_out_are_said_not_linted(repo):
    result = runner.invoke(app, ["lint", "--ignore", "HL009", "raw", "apps"])  # HL009: the vendor Application
    assert result.exit_code == 0
    assert result.output.splitlines()[:2] == [
        "0 errors, 0 warnings, 0 notes in 3 files",
        "note: 2 files not linted on their own (2 left out by an Application's directory.include/exclude); --show-skipped lists them.",
    ]


def test_the_repositorys_applications_apply_when_the_run_names_only_some_files(repo):
    """pre-commit names the changed files: the Applications elsewhere in the repository still
    decide how their folders render."""
    plans = plan_of("raw")  # apps/ is not part of the run
    assert set(plans) == {"raw"}
    assert plans["raw"]["source"]["application"] == "Application raw (apps/shop.yaml:26)"
    result = runner.invoke(app, ["lint", "raw/notes.yaml"])  # excluded by the Application
    assert result.exit_code == 0
    assert "HL004" not in result.output


def test_without_a_known_repository_url_folders_are_linted_as_folders(repo):
    (repo / ".git" / "config").write_text("")
    plans = plan_of("raw")
    assert set(plans) == {"raw", "raw/sub"}
    assert plans["raw"]["source"]["application"] is None


def test_repo_urls_from_the_configuration_count_as_this_repository(repo):
    (repo / ".git" / "config").write_text("")
    assert plan_of("raw", "apps")["raw"]["source"]["application"] is None
    (repo / ".hooklint.yaml").write_text("repo-urls: [https://github.com/acme/shop]\n")
    assert plan_of("raw", "apps")["raw"]["source"]["application"] == "Application raw (apps/shop.yaml:26)"


@needs_kustomize
def test_a_wrong_option_is_a_render_error_naming_the_application(repo):
    (repo / "apps" / "shop.yaml").write_text(APPS.replace("      images:\n        - ghcr.io/acme/migrate:latest\n",
                                                          "      images: ghcr.io/acme/migrate:latest\n"))  # fmt: skip
    result = runner.invoke(app, ["lint", "--ignore", "HL009", "deploy/prod", "apps"])  # HL009: the vendor Application
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        "deploy/prod/kustomization.yaml:1:1: error HL007 render-failed: Rendering failed: Application shop-prod "
        "(apps/shop.yaml:10): kustomize.images must be a list of strings. Argo CD's repo server fails the same "
        "way, so the application cannot sync; nothing of it is checked until it renders."
    )


def test_a_plugin_source_is_not_linted_and_said_so(repo):
    (repo / "apps" / "shop.yaml").write_text(APPS.replace("    directory:\n      recurse: true\n      exclude: '{notes.yaml,sub/skip-*}'\n",
                                                          "    plugin:\n      name: sops\n"))  # fmt: skip
    result = runner.invoke(app, ["lint", "raw", "apps"])
    assert "note: raw: Application raw (apps/shop.yaml:26) renders it with a config management plugin, which " \
           "hooklint never runs: not linted." in result.output.splitlines()  # fmt: skip


@pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")
def test_an_applications_helm_options_apply_to_its_chart(repo):
    (repo / "charts/shop/templates").mkdir(parents=True)
    (repo / "charts/shop/Chart.yaml").write_text("apiVersion: v2\nname: shop\nversion: 1.0.0\n")
    (repo / "charts/shop/values.yaml").write_text("tag: 1.0.0\n")
    (repo / "charts/shop/templates/cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-settings\n"
        "  namespace: {{ .Release.Namespace }}\ndata:\n  tag: {{ .Values.tag | quote }}\n")
    (repo / "apps" / "chart.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: shop-chart\nspec:\n"
        "  project: shop\n  destination:\n    namespace: store\n  source:\n    repoURL: https://github.com/acme/shop\n"
        "    path: charts/shop\n    helm:\n      releaseName: web\n      valuesObject:\n        tag: 2.0.0\n")
    plans = plan_of("charts", "apps")
    chart = plans["charts/shop"]
    assert chart["source"]["application"] == "Application shop-chart (apps/chart.yaml:10)"
    tasks = [(t["kind"], t["namespace"], t["name"]) for s in chart["steps"] for t in s["tasks"]]
    assert tasks == [("ConfigMap", "store", "web-settings")]


@pytest.mark.parametrize(
    "path, problem",
    [("deploy/typo", "spec.source.path 'deploy/typo' is not a folder of this repository"),
     ("../../../etc", "spec.source.path '../../../etc' leaves the repository (app path outside root)"),
     # util/app/path Path joins the path to a checkout of a random name: a .. out of it is out,
     # whatever the repository's own folder is called: ../<its name>/raw was read as raw
     ("../{top}/raw", "spec.source.path '../{top}/raw' leaves the repository (app path outside root)"),
     ("/raw", "spec.source.path '/raw' is an absolute path, which Argo CD refuses (app path is absolute): write it "
              "from the repository's top without the leading /")],
)  # fmt: skip
def test_an_application_whose_path_cannot_render_is_an_error_at_its_source(repo, path, problem):
    path, problem = path.replace("{top}", repo.name), problem.replace("{top}", repo.name)
    (repo / "apps" / "shop.yaml").write_text(APPS.replace("    path: raw\n", f"    path: {path}\n"))
    result = runner.invoke(app, ["lint", "apps"])
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        f"apps/shop.yaml:26:5: error HL007 render-failed: Rendering failed: Application raw (apps/shop.yaml:26): "
        f"{problem}. Argo CD's repo server fails the same way, so the application cannot sync; nothing of it is "
        "checked until it renders.")


@pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")
def test_a_kustomize_application_covers_only_what_its_build_reads(repo):
    """A kustomization renders what it lists: a folder under an Application's kustomize path that
    the build never reads is linted on its own, not hidden; a file beside the kustomization that it
    does not list is said not linted (kustomize never renders it, so Argo CD never applies it)."""
    (repo / "deploy/prod/extra").mkdir()
    (repo / "deploy/prod/extra/cm.yaml").write_text(BAD_ANNOTATION.format(name="extra"))
    (repo / "deploy/prod/stray.yaml").write_text(BAD_ANNOTATION.format(name="stray"))
    # deploy/base is a base (deploy/prod builds on it and no Application points at it): no plan of its own
    assert set(plan_of("deploy", "apps")) == {"apps", "deploy/prod", "deploy/prod/extra", "apps/shop.yaml (vendor)"}
    doc = json.loads(runner.invoke(app, ["lint", "-f", "json", "deploy", "apps"]).stdout)
    assert [(f["rule_id"], f["path"], f["line"]) for f in doc["findings"] if f["rule_id"] == "HL004"] == [
        ("HL004", "deploy/prod/extra/cm.yaml", 6)]
    assert [s for s in doc["skipped"] if s["path"].startswith("deploy/prod")] == [{"path": "deploy/prod/stray.yaml", "reason": (
        "deploy/prod/kustomization.yaml does not list it (resources, patches, generators): kustomize never "
        "renders it, so Argo CD never applies it")}]


@pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")
def test_with_the_applications_known_a_base_is_linted_through_its_overlay_only(repo):
    """deploy/prod (Application shop-prod) builds on deploy/base: the base's files are linted where
    the overlay renders them, and listed as such, never as an application of their own."""
    doc = json.loads(runner.invoke(app, ["lint", "-f", "json", "deploy", "apps"]).stdout)
    assert {s["path"]: s["reason"] for s in doc["skipped"]} == {
        "deploy/base/job.yaml": "a kustomize base that deploy/prod/kustomization.yaml builds on: linted through that "
                                "kustomization's rendering",
        "deploy/base/kustomization.yaml": "a kustomize base that deploy/prod/kustomization.yaml builds on: linted "
                                          "through that kustomization's rendering",
    }
    (repo / ".git" / "config").write_text("")  # no map: every kustomization may be an application
    assert set(plan_of("deploy")) == {"deploy/base", "deploy/prod"}


def test_an_application_whose_path_is_a_hidden_folder_is_linted_when_the_run_holds_it(repo):
    """``spec.source.path: .deploy/raw``: Argo CD renders the folder the path names, hidden or not,
    while hooklint's walk skips hidden folders. Before, ``lint .`` was a silent pass for it (exit 0,
    no plan); its hook's findings are now in ``.deploy/raw/hook.yaml`` and the plan names it."""
    from tests.manifests import LATEST_TAG_HOOK

    (repo / "apps" / "shop.yaml").write_text(APPS.replace("    path: raw\n", "    path: .deploy/raw\n"))
    (repo / ".deploy/raw").mkdir(parents=True)
    (repo / ".deploy/raw/hook.yaml").write_text(LATEST_TAG_HOOK)
    result = runner.invoke(app, ["lint", "-f", "json", "--select", "HL102", "."])
    assert result.exit_code == 1, result.output
    assert [(f["path"], f["rule_id"], f["line"], f["column"]) for f in json.loads(result.output)["findings"]] == [
        (".deploy/raw/hook.yaml", "HL102", 17, 18), ("apps/shop.yaml", "HL102", 15, 11)]
    plan = plan_of(".")[".deploy/raw"]
    assert plan["source"]["application"] == "Application raw (apps/shop.yaml:26)"
    assert [(t["kind"], t["namespace"]) for s in plan["steps"] for t in s["tasks"]] == [("Job", "raw-ns")]
