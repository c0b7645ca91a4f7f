"""The map of every Application Argo CD would create from the repository (issue 21): Applications
rendered by another Application's Helm chart or kustomization (app of apps), scope of a run,
paths through symbolic links, ``.argocd-source*.yaml`` overrides.

The fixture is written from scratch in the shape of argoproj/argocd-example-apps: ``apps/`` is a
Helm chart (that no Application of the repository deploys) whose template makes one child
Application per entry of its values."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import git, write
from hooklint.cli import app
from hooklint.sources.render.helm import find_helm
from hooklint.sources.render.kustomize import find_kustomize

runner = CliRunner()
needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")
needs_kustomize = pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")

URL = "https://github.com/acme/gitops"

CHILDREN = """\
{{- range .Values.applications }}
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: {{ .name | quote }}
  namespace: argocd
spec:
  project: {{ .project | default "shop" }}
  destination:
    namespace: {{ .namespace | default .name | quote }}
    server: https://kubernetes.default.svc
  source:
    path: {{ .path | default .name | quote }}
    repoURL: {{ $.Values.repoURL }}
    targetRevision: main
    {{- with .tool }}
    {{- . | toYaml | nindent 4 }}
    {{- end }}
---
{{ end -}}
"""

VALUES = f"""\
repoURL: {URL}
applications:
  - name: helm-web
    path: charts/web
  - name: kustomize-web
    path: kustomize-web
    tool:
      kustomize:
        namePrefix: app-
  - name: plugin-thing
    path: plugins/thing
    tool:
      plugin:
        name: thing
  - name: shop
    path: shop
"""

WEB_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-migrate
  namespace: {{ .Release.Namespace }}
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 600
  template:
    spec:
      serviceAccountName: migrate
      automountServiceAccountToken: false
      restartPolicy: Never
      containers:
        - name: migrate
          image: ghcr.io/acme/migrate:1.0.0
"""


def cm(name: str) -> str:
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n"


def application(name: str, path: str, extra: str = "", namespace: str | None = None) -> str:
    return (f"apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: {name}\nspec:\n  project: shop\n"
            f"  destination:\n    namespace: {namespace or name}\n  source:\n    repoURL: {URL}\n    path: {path}\n"
            f"{extra}")  # fmt: skip


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    write(tmp_path, {
        ".git/config": f'[remote "origin"]\n\turl = {URL}.git\n',
        "apps/Chart.yaml": "apiVersion: v2\nname: apps\nversion: 1.0.0\n",
        "apps/values.yaml": VALUES,
        "apps/templates/applications.yaml": CHILDREN,
        "charts/web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 1.0.0\n",
        "charts/web/templates/job.yaml": WEB_JOB,
        "kustomize-web/kustomization.yaml": "resources:\n- cm.yaml\n",
        "kustomize-web/cm.yaml": cm("settings"),
        # a config management plugin renders it; kustomize would fail on the missing file (HL007)
        "plugins/thing/kustomization.yaml": "resources:\n- ./all.yaml\n",
        "plugins/thing/values.yaml": "x: 1\n",
        "shop/kustomization.yaml": "resources:\n- base\n",
        "shop/base/kustomization.yaml": "resources:\n- cm.yaml\n",
        "shop/base/cm.yaml": cm("shop"),
        "loose/cm.yaml": cm("loose"),
    })  # fmt: skip
    return tmp_path


def plans(*paths: str) -> dict[str, dict]:
    result = runner.invoke(app, ["plan", "--format", "json", *paths])
    assert result.exit_code == 0, result.output
    return {a["application"]: a for a in json.loads(result.output)["applications"]}


def tasks(plan: dict) -> list[tuple]:
    return [(t["kind"], t["namespace"], t["name"]) for s in plan["steps"] for t in s["tasks"]]


@needs_helm
@needs_kustomize
def test_the_children_an_app_of_apps_chart_renders_are_the_map(repo):
    found = plans(".")
    assert set(found) == {"apps", "charts/web", "kustomize-web", "plugins/thing", "shop", "loose"}
    made_by = "the Helm chart apps/Chart.yaml"
    # a Helm release named after its Application, in its destination namespace
    assert found["charts/web"]["source"] == {
        "type": "helm", "renderer": found["charts/web"]["source"]["renderer"],
        "application": "Application helm-web (apps/templates/applications.yaml:12)", "generated_by": made_by,
        "helm": {"rendered": 4, "argocd": 4, "argocd_version": "3.5.1", "differs": False}}
    assert tasks(found["charts/web"]) == [("Job", "helm-web", "helm-web-migrate")]
    # kustomize with the Application's options
    assert tasks(found["kustomize-web"]) == [("ConfigMap", "kustomize-web", "app-settings")]
    assert found["kustomize-web"]["source"]["generated_by"] == made_by
    # a plugin renders it: listed, not linted
    assert found["plugins/thing"]["source"]["type"] == "plugin"
    assert found["plugins/thing"]["steps"] == []
    # shop/base is a base of shop, not an application of its own
    assert tasks(found["shop"]) == [("ConfigMap", "shop", "shop")]
    assert found["loose"]["source"]["application"] is None


@needs_helm
@needs_kustomize
def test_a_plugin_folder_of_a_child_is_listed_never_hl007(repo):
    result = runner.invoke(app, ["lint", "--format", "json", "."])
    doc = json.loads(result.output)
    assert [f for f in doc["findings"] if f["rule_id"] == "HL007"] == []
    why = ("Application plugin-thing (apps/templates/applications.yaml:12) renders it with a config management "
           "plugin (spec.source.plugin), which hooklint never runs")  # fmt: skip
    assert {s["path"]: s["reason"] for s in doc["skipped"] if s["path"].startswith("plugins/")} == {
        "plugins/thing/kustomization.yaml": why, "plugins/thing/values.yaml": why}


@needs_helm
def test_plan_text_names_the_application_and_what_made_it(repo):
    result = runner.invoke(app, ["plan", "charts", "apps", "loose"])
    heads = [line for line in result.output.splitlines() if line.startswith("Application ")]
    assert heads[1] == ("Application charts/web: 1 object, 1 step (Argo CD 3.5.1, helm source of Application helm-web "
                        "(apps/templates/applications.yaml:12) (made by the Helm chart apps/Chart.yaml), rendered by "
                        f"{heads[1].split('rendered by ', 1)[1]}")  # fmt: skip
    assert heads[2] == ("Application loose: 1 object, 1 step (Argo CD 3.5.1, directory source, which no Application of "
                        "this repository deploys)")  # fmt: skip


LEVEL_CHART = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: {{ .Values.child }}
spec:
  project: shop
  destination:
    namespace: {{ .Release.Namespace }}
  source:
    repoURL: %s
    path: {{ .Values.path }}
""" % URL


@needs_helm
def test_an_app_of_apps_of_apps_by_helm_three_levels_deep(repo):
    for level, child, path in ((1, "level2", "nested/l2"), (2, "level3", "nested/l3")):
        write(repo, {f"nested/l{level}/Chart.yaml": f"apiVersion: v2\nname: l{level}\nversion: 1.0.0\n",
                     f"nested/l{level}/values.yaml": f"child: {child}\npath: {path}\n",
                     f"nested/l{level}/templates/app.yaml": LEVEL_CHART})  # fmt: skip
    write(repo, {"nested/l3/cm.yaml": cm("deep"), "nested/root.yaml": application("level1", "nested/l1", namespace="one")})
    found = plans("nested")
    assert found["nested/l2"]["source"]["application"] == "Application level2 (nested/l1/templates/app.yaml:9)"
    assert found["nested/l2"]["source"]["generated_by"] == "Application level1 (nested/root.yaml:10)"
    assert found["nested/l3"]["source"]["generated_by"] == "Application level2 (nested/l1/templates/app.yaml:9)"
    # each level's release namespace is its Application's destination namespace
    assert tasks(found["nested/l3"]) == [("ConfigMap", "one", "deep")]


@needs_kustomize
def test_an_app_of_apps_of_apps_by_kustomize_three_levels_deep(repo):
    write(repo, {
        "kapps/root/kustomization.yaml": "namespace: argocd\nresources:\n- app.yaml\n",
        "kapps/root/app.yaml": application("k1", "kapps/k1", namespace="first"),
        "kapps/k1/kustomization.yaml": "resources:\n- app.yaml\n",
        "kapps/k1/app.yaml": application("k2", "kapps/k2", namespace="second"),
        "kapps/k2/kustomization.yaml": "resources:\n- app.yaml\n",
        "kapps/k2/app.yaml": application("k3", "kapps/k3", namespace="third"),
        "kapps/k3/cm.yaml": cm("bottom"),
    })  # fmt: skip
    found = plans("kapps")
    assert found["kapps/k3"]["source"]["application"] == "Application k3 (kapps/k2/app.yaml:10)"
    assert found["kapps/k3"]["source"]["generated_by"] == "Application k2 (kapps/k1/app.yaml:10)"
    assert found["kapps/k2"]["source"]["generated_by"] == "Application k1 (kapps/root/app.yaml:10)"
    assert found["kapps/k1"]["source"]["generated_by"] == "the kustomization kapps/root/kustomization.yaml"
    assert tasks(found["kapps/k3"]) == [("ConfigMap", "third", "bottom")]


@needs_kustomize
def test_a_cycle_of_app_of_apps_is_said(repo):
    write(repo, {
        "loop/a/kustomization.yaml": "resources:\n- app.yaml\n",
        "loop/a/app.yaml": application("to-b", "loop/b"),
        "loop/b/kustomization.yaml": "resources:\n- app.yaml\n",
        "loop/b/app.yaml": application("to-a", "loop/a"),
    })  # fmt: skip
    result = runner.invoke(app, ["lint", "loop"])
    assert ("note: Application to-a (loop/b/app.yaml:10), rendered by Application to-b (loop/a/app.yaml:10) points at "
            "loop/a, which renders it again (a cycle of app of apps: loop/a -> loop/b -> loop/a): not followed "
            "further.") in result.output.splitlines()  # fmt: skip


@needs_kustomize
def test_an_application_that_renders_itself_is_said_plainly(repo):
    """newuser8 (ai-accelerator clusters/overlays/*): the Application's path holds its own manifest.
    The note named the same Application twice as a "cycle"; Argo CD applies the Application as one
    of its own resources, which updates it in place, and nothing loops."""
    write(repo, {
        "self/kustomization.yaml": "resources:\n- app.yaml\n- cm.yaml\n",
        "self/app.yaml": application("root", "self"),
        "self/cm.yaml": cm("settings"),
    })  # fmt: skip
    result = runner.invoke(app, ["lint", "self"])
    assert [line for line in result.output.splitlines() if "self/app.yaml:10" in line] == [
        "note: Application root (self/app.yaml:10) renders itself: its path self renders its own manifest, so Argo CD "
        "applies the Application as one of its own resources (it manages itself: each sync updates it in place, "
        "nothing loops); its Applications there are read once."]


@needs_helm
def test_diff_sees_a_child_application_pointed_at_another_folder(repo):
    os.remove(repo / ".git" / "config")
    os.rmdir(repo / ".git")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "ci@example.com")
    git(repo, "config", "user.name", "ci")
    git(repo, "remote", "add", "origin", URL)
    write(repo, {"charts/api/Chart.yaml": "apiVersion: v2\nname: api\nversion: 1.0.0\n",
                 "charts/api/templates/job.yaml": WEB_JOB.replace("-migrate", "-api")})  # fmt: skip
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one")
    (repo / "apps/values.yaml").write_text(VALUES.replace("path: charts/web", "path: charts/api"))
    result = runner.invoke(app, ["diff", "HEAD", "--format", "json"])
    doc = json.loads(result.output)
    changed = {c["application"]: ([t["name"] for t in c["added"]], [t["name"] for t in c["removed"]])
               for c in doc["plan_changes"]}  # fmt: skip
    assert changed["charts/api"] == (["helm-web-api"], ["api-api"])
    assert changed["charts/web"] == (["web-migrate"], ["helm-web-migrate"])


# --- scope and blast radius --------------------------------------------------------------------


def test_a_run_naming_one_file_ignores_a_broken_application_elsewhere(repo):
    """pre-commit names the changed file: a broken Application elsewhere neither fails the run
    nor shows up in it."""
    write(repo, {"argocd/broken.yaml": application("broken", "does/not/exist"),
                 "argocd/loose.yaml": application("loose", "loose")})  # fmt: skip
    result = runner.invoke(app, ["lint", "loose/cm.yaml"])
    assert (result.exit_code, result.output.splitlines()[0]) == (0, "0 errors, 0 warnings, 0 notes in 1 file")
    assert "broken" not in result.output
    named = runner.invoke(app, ["lint", "argocd/broken.yaml"])  # named: its problem is reported
    assert named.exit_code == 1
    assert named.output.splitlines()[0] == (
        "argocd/broken.yaml:10:5: error HL007 render-failed: Rendering failed: Application broken "
        "(argocd/broken.yaml:10): spec.source.path 'does/not/exist' is not a folder of this repository. Argo CD's "
        "repo server fails the same way, so the application cannot sync; nothing of it is checked until it renders.")


@pytest.mark.parametrize("tool, problem", [
    ("helm", "spec.source.helm is set, but 'loose' has no Chart.yaml (helm: Chart.yaml file is missing)"),
    ("kustomize", "spec.source.kustomize is set, but 'loose' has no kustomization (kustomize: unable to find one of "
                  "'kustomization.yaml', 'kustomization.yml' or 'Kustomization')"),
])  # fmt: skip
def test_an_explicit_tool_on_a_folder_without_its_file_is_hl007_at_the_application(repo, tool, problem):
    write(repo, {"argocd/loose.yaml": application("loose", "loose", f"    {tool}:\n      releaseName: x\n"
                                                  if tool == "helm" else f"    {tool}:\n      namePrefix: x-\n")})  # fmt: skip
    result = runner.invoke(app, ["lint", "loose", "argocd"])
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        f"argocd/loose.yaml:10:5: error HL007 render-failed: Rendering failed: Application loose (argocd/loose.yaml:10): "
        f"{problem}. Argo CD's repo server fails the same way, so the application cannot sync; nothing of it is "
        "checked until it renders.")


def test_hl007_names_the_source_of_a_multi_source_application(repo):
    write(repo, {"argocd/multi.yaml": (
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: multi\nspec:\n  project: shop\n"
        f"  destination:\n    namespace: multi\n  sources:\n  - repoURL: {URL}\n    path: loose\n"
        f"  - repoURL: {URL}\n    ref: values\n  - repoURL: {URL}\n    path: typo\n")})  # fmt: skip
    result = runner.invoke(app, ["lint", "argocd"])
    assert result.output.splitlines()[0] == (
        "argocd/multi.yaml:14:5: error HL007 render-failed: Rendering failed: Application multi (argocd/multi.yaml:14): "
        "spec.sources[2].path 'typo' is not a folder of this repository. Argo CD's repo server fails the same way, "
        "so the application cannot sync; nothing of it is checked until it renders.")


# --- paths as Argo CD resolves them; .argocd-source*.yaml ---------------------------------------

EVIL = "      images:\n      - ghcr.io/acme/migrate=docker.io/evil/miner:latest\n"


def hook_kustomization(repo: Path) -> None:
    write(repo, {
        ".hooklint.yaml": "allowed-registries: [ghcr.io]\n",
        "hooks/kustomization.yaml": "resources:\n- job.yaml\n",
        "hooks/job.yaml": WEB_JOB.replace("{{ .Release.Name }}", "db").replace("  namespace: {{ .Release.Namespace }}\n", ""),
    })  # fmt: skip


def hl101(result) -> list[tuple]:
    doc = json.loads(result.output)
    return [(f["path"], f["line"], f["column"]) for f in doc["findings"] if f["rule_id"] == "HL101"]


@needs_kustomize
@pytest.mark.parametrize("path", ["hooks", "linked"])
def test_an_application_path_through_a_symbolic_link_keeps_its_options(repo, path):
    hook_kustomization(repo)
    os.symlink("hooks", repo / "linked")
    write(repo, {"argocd/hooks.yaml": application("hooks", path, "    kustomize:\n" + EVIL)})
    result = runner.invoke(app, ["lint", "--format", "json", "."])
    assert hl101(result) == [("argocd/hooks.yaml", 14, 9)]


def test_an_application_path_through_a_link_out_of_the_repository_stays_hl007(repo, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    os.symlink(outside, repo / "away")
    write(repo, {"argocd/away.yaml": application("away", "away")})
    result = runner.invoke(app, ["lint", "argocd"])
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        f"argocd/away.yaml:10:5: error HL007 render-failed: Rendering failed: Application away (argocd/away.yaml:10): "
        f"spec.source.path 'away' is a symbolic link to {os.path.realpath(outside)}, outside the repository (app path "
        "outside root). Argo CD's repo server fails the same way, so the application cannot sync; nothing of it is "
        "checked until it renders.")


def test_an_argocd_source_file_linked_out_of_the_repository_is_never_read(repo, tmp_path_factory):
    """Second helper trial: ``d/.argocd-source.yaml -> /etc/passwd`` was read (its text reached
    the message), and a link to a file of ``directory: {exclude: ...}`` changed what was linted."""
    outside = tmp_path_factory.mktemp("outside") / "overrides.yaml"
    outside.write_text("directory:\n  exclude: cm.yaml\nSECRET-OUTSIDE: 1\n")
    write(repo, {"d/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
                 "argocd/d.yaml": application("d", "d")})  # fmt: skip
    os.symlink(outside, repo / "d/.argocd-source.yaml")
    result = runner.invoke(app, ["lint", "argocd"])
    assert "SECRET-OUTSIDE" not in result.output and "left out" not in result.output
    assert result.output.splitlines()[0] == (
        "argocd/d.yaml:10:5: error HL007 render-failed: Rendering failed: Application d (argocd/d.yaml:10): error while "
        f"parsing source parameters: d/.argocd-source.yaml is a symbolic link to {os.path.realpath(outside)}, outside the "
        "repository (illegal filepath in symlink); never read. Argo CD's repo server fails the same way, so the "
        "application cannot sync; nothing of it is checked until it renders.")  # fmt: skip


@needs_kustomize
def test_an_argocd_source_file_of_the_application_overrides_its_images(repo):
    """argocd-image-updater writes .argocd-source-NAME.yaml: the repo server merges it into the
    source (mergeSourceParameters), so its images are what runs, and the finding is placed there."""
    hook_kustomization(repo)
    write(repo, {
        "argocd/hooks.yaml": application("hooks", "hooks", "    kustomize:\n      images:\n      - ghcr.io/acme/migrate:2.0.0\n"),
        "hooks/.argocd-source.yaml": "kustomize:\n  namePrefix: all-\n",
        "hooks/.argocd-source-hooks.yaml": "kustomize:\n" + EVIL.replace("      ", "  ", 1).replace("      -", "  -"),
        "hooks/.argocd-source-other.yaml": "kustomize:\n  namePrefix: never-\n",
    })  # fmt: skip
    result = runner.invoke(app, ["lint", "--format", "json", "."])
    assert hl101(result) == [("hooks/.argocd-source-hooks.yaml", 3, 5)]
    [task] = [t for s in plans(".")["hooks"]["steps"] for t in s["tasks"]]
    assert task["name"] == "all-db-migrate"  # .argocd-source.yaml merged too; another Application's file not


# --- ApplicationSets -----------------------------------------------------------------------------


def appset(name: str, generators: str, template: str, extra: str = "") -> str:
    return (f"apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: {name}\nspec:\n{extra}"
            f"  generators:\n{generators}  template:\n{template}")  # fmt: skip


def fast_template(name: str, path: str, namespace: str, project: str = "shop") -> str:
    return (f"    metadata:\n      name: '{name}'\n    spec:\n      project: {project}\n      source:\n"
            f"        repoURL: {URL}\n        path: '{path}'\n      destination:\n"
            f"        server: https://kubernetes.default.svc\n        namespace: '{namespace}'\n")  # fmt: skip


def generated(found: dict) -> dict[str, tuple]:
    """folder -> (Application label, what made it, the namespaces of its tasks)."""
    return {key: (p["source"]["application"], p["source"]["generated_by"],
                  sorted({t["namespace"] for s in p["steps"] for t in s["tasks"]}))
            for key, p in found.items() if (p["source"]["generated_by"] or "").startswith("ApplicationSet")}  # fmt: skip


@pytest.fixture
def envs(repo):
    write(repo, {f"envs/{e}/cm.yaml": cm(f"settings-{e}") for e in ("eu", "us", "skip")})
    return repo


def test_a_list_generator_with_elements_and_elements_yaml(envs):
    write(envs, {"argocd/appset.yaml": appset("shops", (
        "  - list:\n      elements:\n      - env: eu\n        values:\n          ns: europe\n"
        "      elementsYaml: |\n        - env: us\n"), fast_template("shop-{{env}}", "envs/{{env}}", "shop-{{env}}"))})
    found = generated(plans("envs", "argocd"))
    made = "ApplicationSet shops (argocd/appset.yaml:1)"
    assert found == {"envs/eu": ("Application shop-eu (argocd/appset.yaml:20)", made, ["shop-eu"]),
                     "envs/us": ("Application shop-us (argocd/appset.yaml:20)", made, ["shop-us"])}  # fmt: skip


def test_git_directories_with_exclude_and_path_parameters(envs):
    write(envs, {"argocd/appset.yaml": appset("dirs", (
        "  - git:\n      repoURL: " + URL + ".git\n      revision: HEAD\n      directories:\n"
        "      - path: envs/*\n      - path: envs/skip\n        exclude: true\n"),
        fast_template("{{path.basename}}-{{path[0]}}", "{{path}}", "{{path.basenameNormalized}}"))})  # fmt: skip
    found = generated(plans("envs", "argocd"))
    assert sorted(found) == ["envs/eu", "envs/us"]
    assert found["envs/eu"][0] == "Application eu-envs (argocd/appset.yaml:20)"
    assert found["envs/eu"][2] == ["eu"]


def test_a_matrix_of_git_files_and_a_list_with_flattened_keys(envs):
    """A matrix of a git files generator (JSON and YAML files, flattened keys, path parameters)
    and a list; the files it reads are generator inputs, never linted as manifests (no HL003)."""
    write(envs, {
        "cluster-config/eu/config.json": '{"cluster": {"name": "eu", "ns": "shop-eu"}}\n',
        "cluster-config/us/config.yaml": "cluster:\n  name: us\n  ns: shop-us\n",
        "argocd/appset.yaml": appset("matrix", (
            "  - matrix:\n      generators:\n      - git:\n          repoURL: " + URL + "\n          revision: HEAD\n"
            "          files:\n          - path: cluster-config/**/config.*\n"
            "      - list:\n          elements:\n          - tier: web\n"),
            fast_template("{{cluster.name}}-{{tier}}-{{path.basename}}", "envs/{{cluster.name}}", "{{cluster.ns}}")),
    })  # fmt: skip
    found = generated(plans("envs", "argocd", "cluster-config"))
    assert {k: (v[0], v[2]) for k, v in found.items()} == {
        "envs/eu": ("Application eu-web-eu (argocd/appset.yaml:23)", ["shop-eu"]),
        "envs/us": ("Application us-web-us (argocd/appset.yaml:23)", ["shop-us"])}
    doc = json.loads(runner.invoke(app, ["lint", "--format", "json", "."]).output)
    assert [f["rule_id"] for f in doc["findings"] if f["path"].startswith("cluster-config")] == []
    why = "an input of the git files generator of ApplicationSet matrix (argocd/appset.yaml:1): read as parameters, never applied"
    assert {s["path"]: s["reason"] for s in doc["skipped"] if s["path"].startswith("cluster-config")} == {
        "cluster-config/eu/config.json": why, "cluster-config/us/config.yaml": why}


def test_a_merge_generator_by_merge_keys(envs):
    write(envs, {"argocd/appset.yaml": appset("merged", (
        "  - merge:\n      mergeKeys: [env]\n      generators:\n"
        "      - list:\n          elements:\n          - {env: eu, ns: base-eu}\n          - {env: us, ns: base-us}\n"
        "      - list:\n          elements:\n          - {env: us, ns: override-us}\n"),
        fast_template("m-{{env}}", "envs/{{env}}", "{{ns}}"))})  # fmt: skip
    found = generated(plans("envs", "argocd"))
    assert {k: v[2] for k, v in found.items()} == {"envs/eu": ["base-eu"], "envs/us": ["override-us"]}


def test_a_clusters_generator_sees_in_cluster_secrets_and_configured_clusters(envs):
    write(envs, {
        "clusters/prod.yaml": ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: prod\n  labels:\n"
                               "    argocd.argoproj.io/secret-type: cluster\n    env: prod\ntype: Opaque\n"
                               "stringData:\n  name: prod-eu\n  server: https://prod.example.com\n"),
        ".hooklint.yaml": "clusters:\n- name: us\n  server: https://us.example.com\n  labels: {env: staging}\n",
        "argocd/all.yaml": appset("all", "  - clusters: {}\n",
                                  fast_template("all-{{name}}", "envs/eu", "{{nameNormalized}}")),
        "argocd/prod.yaml": appset("prod", "  - clusters:\n      selector:\n        matchLabels: {env: prod}\n",
                                   fast_template("prod-{{name}}", "envs/us", "{{metadata.labels.env}}")),
    })  # fmt: skip
    found = plans("envs", "argocd")
    assert sorted(k for k in found if k.startswith("envs/eu")) == [
        "envs/eu (all-in-cluster)", "envs/eu (all-prod-eu)", "envs/eu (all-us)"]
    assert generated(found)["envs/us"] == ("Application prod-prod-eu (argocd/prod.yaml:16)",
                                           "ApplicationSet prod (argocd/prod.yaml:1)", ["prod"])  # fmt: skip


GO_TEMPLATE = """\
    metadata:
      name: '{{ .path.basename | upper | lower }}-{{ normalize .team }}'
    spec:
      project: shop
      source:
        repoURL: %s
        path: '{{ .path.path }}'
      destination:
        server: https://kubernetes.default.svc
        namespace: '{{ .values.ns }}-{{ default "x" .missing }}'
""" % URL

GO_GENERATORS = (
    "  - matrix:\n      generators:\n"
    f"      - git:\n          repoURL: {URL}\n          revision: HEAD\n"
    "          directories:\n          - path: envs/*\n          - path: envs/skip\n            exclude: true\n"
    "          values:\n            ns: 'shop-{{ .path.basename }}'\n"
    "      - list:\n          elements:\n          - {team: Team_A}\n"
)


@needs_helm
def test_a_go_template_with_sprig_functions_values_and_a_template_patch(envs):
    """goTemplate: Helm's Go template engine with Sprig (upper, lower, default), Argo CD's
    normalize, git generator values rendered with its parameters, a matrix of git directories and
    a list, and a templatePatch rendered per parameter set."""
    write(envs, {"argocd/appset.yaml": appset("go", GO_GENERATORS, GO_TEMPLATE, (
        "  goTemplate: true\n  goTemplateOptions: [\"missingkey=default\"]\n"
        "  templatePatch: |\n    {{- if eq .path.basename \"us\" }}\n    spec:\n      destination:\n"
        "        namespace: patched\n    {{- end }}\n"))})  # fmt: skip
    found = generated(plans("envs", "argocd"))
    assert found == {
        "envs/eu": ("Application eu-team-a (argocd/appset.yaml:35)", "ApplicationSet go (argocd/appset.yaml:1)",
                    ["shop-eu-x"]),
        "envs/us": ("Application us-team-a (argocd/appset.yaml:35)", "ApplicationSet go (argocd/appset.yaml:1)",
                    ["patched"])}  # fmt: skip


@needs_helm
def test_a_go_template_calling_a_function_argo_cd_lacks_is_hl007(envs):
    write(envs, {"argocd/appset.yaml": appset("go", GO_GENERATORS, GO_TEMPLATE.replace("upper | lower", 'include "x"'),
                                              "  goTemplate: true\n")})  # fmt: skip
    result = runner.invoke(app, ["lint", "argocd"])
    assert result.output.splitlines()[0] == (
        'argocd/appset.yaml:8:5: error HL007 render-failed: Rendering failed: ApplicationSet go (argocd/appset.yaml:1): '
        'template: function "include" not defined (Argo CD\'s ApplicationSet templates have Sprig without env, '
        "expandenv and getHostByName, plus normalize, slugify, toYaml, fromYaml and fromYamlArray). Argo CD's "
        "ApplicationSet controller fails the same way, so these Applications are not created; nothing of them is "
        "checked until it renders.")


def test_an_scm_provider_generator_is_hl020_and_the_list_beside_it_still_expands(envs):
    write(envs, {"argocd/appset.yaml": appset("scm", (
        "  - scmProvider:\n      github:\n        organization: acme\n"
        "  - list:\n      elements:\n      - env: eu\n"), fast_template("s-{{env}}", "envs/{{env}}", "scm"))})
    result = runner.invoke(app, ["lint", "argocd"])
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        "argocd/appset.yaml:7:5: warning HL022 applicationset-not-expanded: ApplicationSet scm (argocd/appset.yaml:1): "
        "the scmProvider generator needs a cluster or the network, which hooklint never uses: the Applications it "
        "generates are not linted.")
    assert generated(plans("envs", "argocd"))["envs/eu"][2] == ["scm"]


def test_an_applicationset_template_in_the_default_project_is_hl401_at_the_template(envs):
    write(envs, {"argocd/appset.yaml": appset("shops", "  - list:\n      elements:\n      - env: eu\n",
                                              fast_template("shop-{{env}}", "envs/{{env}}", "x", project="default"))})
    doc = json.loads(runner.invoke(app, ["lint", "--format", "json", "argocd"]).output)
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in doc["findings"]] == [
        ("HL401", "argocd/appset.yaml", 14, 16)]


# --- multi-source Applications ------------------------------------------------------------------

PRESYNC_WITH_SA = """\
apiVersion: batch/v1
kind: Job
metadata:
  generateName: migrate-
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 600
  template:
    spec:
      serviceAccountName: migrator
      automountServiceAccountToken: false
      restartPolicy: Never
      containers:
        - name: migrate
          image: ghcr.io/acme/migrate:1.0.0
"""


def multi_source(*sources: str) -> str:
    return ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: multi\nspec:\n  project: shop\n"
            "  destination:\n    namespace: multi\n  sources:\n" + "".join(sources))  # fmt: skip


def test_the_sources_of_a_multi_source_application_are_one_sync(repo):
    """A PreSync Job of source 0 uses a ServiceAccount that source 1 applies in Sync: one plan,
    so HL301 sees the ServiceAccount come after the hook."""
    write(repo, {
        "ms/jobs/job.yaml": PRESYNC_WITH_SA,
        "ms/rbac/sa.yaml": "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: migrator\n",
        "argocd/multi.yaml": multi_source(f"  - repoURL: {URL}\n    path: ms/jobs\n",
                                          f"  - repoURL: {URL}\n    path: ms/rbac\n"),
    })  # fmt: skip
    found = plans("ms/jobs/job.yaml")  # a file of one source: the whole Application is planned
    assert list(found) == ["argocd/multi.yaml (multi)"]
    steps = [(s["phase"], [(t["kind"], t["namespace"], t["name"] or t["generate_name"]) for t in s["tasks"]])
             for s in found["argocd/multi.yaml (multi)"]["steps"]]  # fmt: skip
    assert steps == [("PreSync", [("Job", "multi", "migrate-")]), ("Sync", [("ServiceAccount", "multi", "migrator")])]
    doc = json.loads(runner.invoke(app, ["lint", "--format", "json", "ms"]).output)
    assert [(f["rule_id"], f["path"], f["line"]) for f in doc["findings"] if f["rule_id"] == "HL301"] == [
        ("HL301", "ms/jobs/job.yaml", 13)]


@needs_helm
@pytest.mark.parametrize("url, name", [(URL, "prod-migrate"), ("https://github.com/acme/values", None)])
def test_ref_value_files_are_read_from_this_repository(repo, url, name):
    write(repo, {
        "envs/prod.yaml": "suffix: prod\n",
        "charts/refd/Chart.yaml": "apiVersion: v2\nname: refd\nversion: 1.0.0\n",
        "charts/refd/templates/job.yaml": WEB_JOB.replace("{{ .Release.Name }}-migrate",
                                                          "{{ .Values.suffix | default \"none\" }}-migrate"),
        "argocd/multi.yaml": multi_source(
            f"  - repoURL: {URL}\n    path: charts/refd\n    helm:\n      valueFiles:\n      - $values/envs/prod.yaml\n",
            f"  - repoURL: {url}\n    ref: values\n"),
    })  # fmt: skip
    found = plans("charts/refd", "argocd")
    web = found["charts/refd"]
    if name is not None:
        assert tasks(web) == [("Job", "multi", name)]
        return
    # issue 22: the chart is rendered without the other repository's file (its default suffix) and
    # checked; HL009 on the valueFiles entry (it was the whole chart, at Chart.yaml:1:1)
    assert tasks(web) == [("Job", "multi", "none-migrate")]
    result = runner.invoke(app, ["lint", "charts/refd", "argocd"])
    assert [line for line in result.output.splitlines() if "HL009" in line] == [
        "argocd/multi.yaml:14:9: warning HL009 source-not-rendered: value file $values/envs/prod.yaml refers to "
        "a source of a multi-source Application in another repository; hooklint reads `$ref` value files only from "
        "this one (it never fetches another repository). Argo CD reads it from the source named by the ref. hooklint "
        "left it out, so the chart was rendered and checked with its other values: objects and hooks that this "
        "file's values would add or change were not checked."]


def test_a_go_template_applicationset_without_helm_is_hl008_saying_what_to_install(envs, monkeypatch):
    import hooklint.sources.render.helm as helm

    monkeypatch.setattr(helm, "find_helm", lambda: None)
    write(envs, {"argocd/appset.yaml": appset("go", GO_GENERATORS, GO_TEMPLATE, "  goTemplate: true\n")})
    result = runner.invoke(app, ["lint", "argocd"])
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        "argocd/appset.yaml:8:5: error HL008 renderer-unavailable: ApplicationSet go (argocd/appset.yaml:1): "
        "goTemplate: true needs a Go template engine to expand this ApplicationSet, and none is installed here; "
        "nothing of this application is checked (the run's note says how to get Helm).")


def test_a_git_files_generator_never_reads_through_a_link_out_of_the_repository(envs, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    (outside / "config.json").write_text('{"cluster": {"name": "secret-host"}}\n')
    os.makedirs(envs / "cluster-config" / "eu")
    os.symlink(outside / "config.json", envs / "cluster-config" / "eu" / "config.json")
    write(envs, {"argocd/appset.yaml": appset("files", (
        f"  - git:\n      repoURL: {URL}\n      revision: HEAD\n      files:\n      - path: cluster-config/**/config.json\n"),
        fast_template("{{cluster.name}}", "envs/eu", "x"))})  # fmt: skip
    result = runner.invoke(app, ["lint", "argocd"])
    assert result.output.splitlines()[0] == (
        "argocd/appset.yaml:7:5: error HL007 render-failed: Rendering failed: ApplicationSet files (argocd/appset.yaml:1): "
        "unable to process file 'cluster-config/eu/config.json': a symbolic link out of the repository, which hooklint "
        "never reads. Argo CD's ApplicationSet controller fails the same way, so these Applications are not created; "
        "nothing of them is checked until it renders.")
    assert "secret-host" not in result.output


def test_an_alias_bomb_in_a_git_files_generator_file_is_refused_fast(envs):
    """The git files generator read its files with plain ``yaml.safe_load``: an alias bomb of a few
    hundred bytes was expanded while its parameters were flattened (383 bytes: 81 s, 350 MB). The
    bounded loader refuses it, as go-yaml refuses "excessive aliasing"."""
    import time

    levels = ["a: &a [x, x, x, x, x, x, x, x, x]"] + [
        f"{n}: &{n} [{', '.join([f'*{p}'] * 9)}]" for p, n in zip("abcde", "bcdef")]  # 9^6 nodes
    (envs / "cluster-config" / "eu").mkdir(parents=True)
    (envs / "cluster-config" / "eu" / "config.yaml").write_text("cluster: {name: eu}\n" + "\n".join(levels) + "\n")
    write(envs, {"argocd/appset.yaml": appset("files", (
        f"  - git:\n      repoURL: {URL}\n      revision: HEAD\n      files:\n      - path: cluster-config/**/config.yaml\n"),
        fast_template("{{cluster.name}}", "envs/eu", "x"))})  # fmt: skip
    started = time.process_time()
    result = runner.invoke(app, ["lint", "argocd"])
    assert time.process_time() - started < 5
    assert result.output.splitlines()[0] == (
        "argocd/appset.yaml:7:5: error HL007 render-failed: Rendering failed: ApplicationSet files (argocd/appset.yaml:1): "
        "unable to process file 'cluster-config/eu/config.yaml': unable to parse file: document contains excessive "
        "aliasing (more than 200,000 nodes reached through aliases). Argo CD's ApplicationSet "
        "controller fails the same way, so these Applications are not created; nothing of them is checked until it "
        "renders.")


@needs_helm
def test_lint_markdown_names_the_application_and_what_made_it(repo):
    result = runner.invoke(app, ["lint", "-f", "markdown", "charts", "apps", "loose"])
    summaries = [line for line in result.output.splitlines() if line.startswith("<details><summary>Sync steps")]
    assert summaries == [
        "<details><summary>Sync steps of <code>apps</code> (no Application of this repository deploys it)</summary>",
        "<details><summary>Sync steps of <code>charts/web</code> (<code>Application helm-web "
        "(apps/templates/applications.yaml:12), made by the Helm chart apps/Chart.yaml</code>)</summary>",
        "<details><summary>Sync steps of <code>loose</code> (no Application of this repository deploys it)</summary>",
        # issue 33: a plugin source is named even when the run holds none of its folder
        "<details><summary>Sync steps of <code>plugins/thing</code> (<code>Application plugin-thing "
        "(apps/templates/applications.yaml:12), made by the Helm chart apps/Chart.yaml</code>)</summary>",
    ]


def test_matrix_nested_too_deep_is_hl007_not_a_crash(envs):
    inner = "  - list:\n      elements:\n      - env: eu\n"
    nested = inner
    for _ in range(3):
        body = "".join("    " + line + "\n" for line in nested.splitlines())
        nested = "  - matrix:\n      generators:\n" + body + body
    write(envs, {"argocd/appset.yaml": appset("deep", nested, fast_template("d-{{env}}", "envs/eu", "x"))})
    result = runner.invoke(app, ["lint", "argocd"])
    assert result.exit_code == 1
    assert ("a matrix generator nested in two matrix or merge generators: Argo CD allows one level of nesting"
            in result.output.splitlines()[0])


@needs_kustomize
def test_an_applicationset_among_a_kustomizations_resources_still_reports_hl020(envs):
    write(envs, {"platform/kustomization.yaml": "resources:\n- appset.yaml\n",
                 "platform/appset.yaml": appset("scm", "  - scmProvider:\n      github:\n        organization: acme\n",
                                                fast_template("s-{{repository}}", "envs/eu", "scm"))})  # fmt: skip
    result = runner.invoke(app, ["lint", "platform"])
    assert result.output.splitlines()[0] == (
        "platform/appset.yaml:7:5: warning HL022 applicationset-not-expanded: ApplicationSet scm "
        "(platform/appset.yaml:1): the scmProvider generator needs a cluster or the network, which hooklint never "
        "uses: the Applications it generates are not linted.")
