"""Rendering end to end: ``hooklint lint`` and ``hooklint plan`` on kustomize sources, as a user runs them.

What kustomize renders is pinned in tests/test_kustomize.py and what Helm renders in tests/test_helm.py;
these tests pin what the user sees: paths and lines in their own files, exit codes, the corpus folders the
rendering issue names. Each skips when neither ``kustomize`` nor ``kubectl`` is installed."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import write
from hooklint.cli import app
from hooklint.sources import bounded
from hooklint.sources.render import kustomize
from hooklint.sources.render.kustomize import find_kustomize
from tests.manifests import CLEAN_HOOK_JOB as JOB

needs_kustomize = pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")
CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "public"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not beside the clone")
runner = CliRunner()


@pytest.fixture(autouse=True)
def repo(tmp_path, monkeypatch):
    """The current directory is a git repository (the renderers' boundary); the cache is
    conftest's, outside it (one inside a Git work tree is never used)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    return tmp_path


@needs_kustomize
def test_an_image_changed_by_an_overlay_is_reported_at_the_overlays_images_entry(repo):
    write(repo, {
        "base/kustomization.yaml": "resources:\n- job.yaml\n",
        "base/job.yaml": JOB,
        "overlays/prod/kustomization.yaml": "resources:\n- ../../base\nimages:\n- name: ghcr.io/acme/migrate\n"
                                            "  newTag: latest\n",
    })  # fmt: skip
    result = runner.invoke(app, ["lint", "--format", "json", "overlays/prod"])
    assert result.exit_code == 1
    [finding] = json.loads(result.output)["findings"]
    assert (finding["path"], finding["line"], finding["column"], finding["rule_id"]) == (
        "overlays/prod/kustomization.yaml", 4, 3, "HL102")
    assert finding["message"].startswith(
        "Image 'ghcr.io/acme/migrate:latest' of container 'migrate' of Job/migrate uses the mutable tag ':latest'")
    # the base is clean as written; named, it is linted with the overlay that builds it (what Argo CD
    # applies), whose finding this is (attacker trial 47, F1)
    base = runner.invoke(app, ["lint", "--format", "json", "base"])
    assert (base.exit_code, [(f["path"], f["line"], f["column"], f["rule_id"]) for f in json.loads(base.output)["findings"]]) == (
        1, [("overlays/prod/kustomization.yaml", 4, 3, "HL102")])
    # the report says what rendered it
    _, renderer = find_kustomize()
    assert json.loads(result.output)["renderers"] == [renderer.label()]
    sarif = json.loads(runner.invoke(app, ["lint", "--format", "sarif", "overlays/prod"]).output)
    assert sarif["runs"][0]["properties"] == {"renderers": [renderer.label()]}


@needs_kustomize
def test_a_hook_only_the_overlay_makes_is_planned_as_a_hook(repo):
    write(repo, {
        "base/kustomization.yaml": "resources:\n- job.yaml\n",
        "base/job.yaml": JOB.replace("  annotations:\n    argocd.argoproj.io/hook: PreSync\n", ""),
        "overlays/prod/kustomization.yaml": "resources:\n- ../../base\nnamePrefix: prod-\nnamespace: shop\n"
                                            "commonAnnotations:\n  argocd.argoproj.io/hook: PreSync\n"
                                            "  argocd.argoproj.io/sync-wave: '-1'\n",
    })  # fmt: skip
    result = runner.invoke(app, ["plan", "--format", "json", "overlays/prod"])
    assert result.exit_code == 0, result.output
    [application] = json.loads(result.output)["applications"]
    assert application["source"] == {"type": "kustomize", "renderer": application["source"]["renderer"], "application": None,
                                     "generated_by": None}
    assert application["source"]["renderer"]["name"] in ("kustomize", "kubectl kustomize")
    objects = [(s["phase"], s["wave"], o["kind"], o["namespace"], o["name"]) for s in application["steps"] for o in s["tasks"]]
    assert objects == [("PreSync", -1, "ConfigMap", "shop", "prod-settings"), ("PreSync", -1, "Job", "shop", "prod-migrate")]


@needs_kustomize
def test_an_exec_plugin_is_refused_not_run(repo):
    write(repo, {
        "app/kustomization.yaml": "resources:\n- job.yaml\ntransformers:\n- plugin.yaml\n",
        "app/job.yaml": JOB,
        "app/plugin.yaml": "apiVersion: acme/v1\nkind: Stamp\nmetadata:\n  name: stamp\n  annotations:\n"
                           "    config.kubernetes.io/function: |\n      exec:\n        path: ./stamp.sh\n",
        "app/stamp.sh": "#!/bin/sh\ntouch ran\n",
    })  # fmt: skip
    (repo / "app/stamp.sh").chmod(0o755)
    result = runner.invoke(app, ["lint", "app"])
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        "app/kustomization.yaml:4:3: error HL007 render-failed: Rendering failed: transformers entry 'plugin.yaml' "
        "is an exec KRM function (Stamp): hooklint never runs plugins from the repository. Argo CD's repo "
        "server fails the same way, so the application cannot sync; nothing of it is checked until it renders."
    )
    assert not (repo / "app/ran").exists() and not (repo / "ran").exists()


def test_no_renderer_is_an_error_finding_and_the_other_applications_go_on(repo, monkeypatch):
    monkeypatch.setattr(kustomize, "find_kustomize", lambda *_: None)
    write(repo, {"app/kustomization.yaml": "resources:\n- job.yaml\n", "app/job.yaml": JOB,
                 "plain/job.yaml": JOB.replace("1.4.2", "latest")})  # fmt: skip
    result = runner.invoke(app, ["lint", "app", "plain"])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0] == (
        "app/kustomization.yaml:1:1: error HL008 renderer-unavailable: kustomize is needed to render this "
        "kustomization, and none is installed here; nothing of this application is checked (the run's note says "
        "how to get kustomize).")  # fmt: skip
    assert lines[1].startswith("plain/job.yaml:17:16: warning HL102 hook-image-mutable-tag:")


def test_a_missing_renderer_is_said_once_per_run_with_the_install_command(repo, monkeypatch):
    """Each source not rendered is its own HL008 error (honest findings), but how to install the
    renderer is one line per run, not one per chart (54 copies of it on one public repository)."""
    from hooklint.sources.render import helm

    monkeypatch.setattr(kustomize, "find_kustomize", lambda *_: None)
    monkeypatch.setattr(helm, "find_helm", lambda *_: None)
    chart = {"Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n", "templates/job.yaml": JOB}
    write(repo, {"a/kustomization.yaml": "resources:\n- job.yaml\n", "a/job.yaml": JOB,
                 "b/kustomization.yaml": "resources:\n- job.yaml\n", "b/job.yaml": JOB,
                 **{f"charts/{c}/{name}": text for c in ("one", "two", "three") for name, text in chart.items()}})
    result = runner.invoke(app, ["lint", "--select", "HL0", "."])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert [line.split(": error ")[0] for line in lines[:5]] == [
        "a/kustomization.yaml:1:1", "b/kustomization.yaml:1:1", "charts/one/Chart.yaml:1:1",
        "charts/three/Chart.yaml:1:1", "charts/two/Chart.yaml:1:1"]  # fmt: skip
    assert lines[5:] == [
        "",
        "5 errors, 0 warnings, 0 notes in 7 files",
        "note: Helm is not installed: 3 sources not rendered (HL008); to render them: pip install 'hooklint[helm]' "
        "(Helm's Go library, in process), or put the helm binary (3 or later) on PATH; in pre-commit, keep "
        "helm-python-sdk in the hook's additional_dependencies.",
        "note: kustomize is not installed: 2 sources not rendered (HL008); to render them: put kubectl (hooklint "
        "runs 'kubectl kustomize') or the kustomize binary on PATH "
        "(https://kubectl.docs.kubernetes.io/installation/kustomize/).",
    ]  # fmt: skip


@needs_kustomize
def test_the_cache_makes_a_second_run_render_nothing(repo, monkeypatch):
    write(repo, {"app/kustomization.yaml": "resources:\n- job.yaml\n", "app/job.yaml": JOB})
    calls = []
    real = bounded.run

    def counting(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(bounded, "run", counting)
    assert runner.invoke(app, ["lint", "app"]).exit_code == 0
    builds = len(calls)
    assert builds >= 1
    assert runner.invoke(app, ["lint", "app"]).exit_code == 0
    assert len(calls) == builds
    (repo / "app/job.yaml").write_text(JOB.replace("1.4.2", "1.4.3"))
    assert runner.invoke(app, ["lint", "app"]).exit_code == 0
    assert len(calls) > builds


# --- the corpus folders the rendering issue names ----------------------------------------------
# The corpus keeps manifests, not the scripts their configMapGenerators read: each test copies the
# folder into a scratch repository and adds a stand-in script (its text is ConfigMap data, which no
# rule reads).


@needs_kustomize
@needs_corpus
def test_corpus_2_datasources_objects_are_at_wave_405(repo):
    shutil.copytree(CORPUS / "cloud-native-toolkit__multi-tenancy-gitops-services/instances/"
                    "cp4d-pattern-healthcare/2-datasources", repo / "ds")  # fmt: skip
    (repo / "ds/create_schema.sh").write_text("echo schema\n")
    result = runner.invoke(app, ["plan", "--format", "json", "ds"])
    assert result.exit_code == 0, result.output
    [application] = json.loads(result.output)["applications"]
    objects = [(s["phase"], s["wave"], o["kind"], o["name"]) for s in application["steps"] for o in s["tasks"]]
    assert objects == [
        ("Sync", 405, "ServiceAccount", "db2-service-account"),
        ("Sync", 405, "ConfigMap", "create-schema"),
        ("Sync", 405, "PersistentVolumeClaim", "db2-pvc"),
        ("Sync", 405, "Service", "db2"),
        ("Sync", 405, "StatefulSet", "db2"),
        ("Sync", 405, "SecurityContextConstraints", "db2-uid"),
    ]


@needs_kustomize
@needs_corpus
def test_corpus_approve_after_servicemesh_job_needs_the_generated_config_map(repo):
    """approve-after-servicemesh is a kustomize Component: linted through a kustomization using it;
    alone, rendered on its own through a wrapper (issue 22), the rule that needs the generated
    ConfigMap fires there too."""
    shutil.copytree(CORPUS / "redhat-na-ssa__demo-ai-gitops-catalog/demos/components/rhoai-servicemesh/"
                    "approve-after-servicemesh", repo / "aas")  # fmt: skip
    (repo / "aas/job.sh").write_text("echo approve\n")
    write(repo, {"servicemesh/kustomization.yaml": "components:\n- ../aas\n"})
    alone = json.loads(runner.invoke(app, ["lint", "--format", "json", "aas"]).output)
    assert alone["skipped"] == [] and "HL301" in {f["rule_id"] for f in alone["findings"]}
    result = runner.invoke(app, ["lint", "--format", "json", "aas", "servicemesh"])
    assert result.exit_code == 1
    [hl301] = [f for f in json.loads(result.output)["findings"] if f["rule_id"] == "HL301"]
    assert (hl301["path"], hl301["line"], hl301["column"]) == ("aas/job.yaml", 83, 19)
    assert hl301["message"].startswith(
        "Job/approve-after-servicemesh (PreSync wave 0) uses ConfigMap/approve-after-servicemesh (volume "
        "'scripts'), which Argo CD applies only in a later step (Sync wave 0)")


def test_without_git_the_current_directory_or_the_named_folder_stands_for_the_repository(tmp_path, monkeypatch):
    from hooklint.sources.repository.tree import repository_root

    (tmp_path / ".git").rmdir()
    (tmp_path / "work").mkdir()
    (tmp_path / "repos/shop/overlays/prod").mkdir(parents=True)
    prod = str(tmp_path / "repos/shop/overlays/prod")
    monkeypatch.chdir(tmp_path / "work")
    assert repository_root(prod) == prod
    assert repository_root(prod, named=str(tmp_path / "repos/shop")) == str(tmp_path / "repos/shop")
    monkeypatch.chdir(tmp_path / "repos")
    assert repository_root(prod, named=str(tmp_path / "repos/shop")) == str(tmp_path / "repos")
    monkeypatch.chdir(tmp_path / "repos/shop/overlays")  # the named folder is above the current one
    for spelled in ("../", "..", "../overlays/..", str(tmp_path / "repos/shop") + "/"):
        assert repository_root("prod", named=spelled) == str(tmp_path / "repos/shop"), spelled
    assert repository_root("prod", named=".") == str(tmp_path / "repos/shop/overlays")
    (tmp_path / "repos/shop/.git").mkdir()
    assert repository_root(prod) == str(tmp_path / "repos/shop")


@needs_kustomize
@pytest.mark.parametrize("named", ["..", "../", "../envs/..", "{top}", "{top}/"])
def test_without_git_a_folder_named_from_below_it_stands_for_the_repository(repo, named, monkeypatch):
    """Reported: ``cd envs && hooklint lint ..`` outside git refused every overlay's ``../../base``
    as outside ``../envs`` (the current folder won over the folder named)."""
    (repo / ".git").rmdir()
    write(repo, {
        "base/kustomization.yaml": "resources:\n- job.yaml\n",
        "base/job.yaml": JOB.replace("migrate:1.4.2", "migrate:latest"),
        "envs/prod/kustomization.yaml": "namespace: prod\nresources:\n- ../../base\n",
    })  # fmt: skip
    monkeypatch.chdir(repo / "envs")
    named = named.format(top=repo)
    result = runner.invoke(app, ["lint", "--format", "json", "--select", "HL007,HL102", named])
    doc = json.loads(result.output)
    base = "../base/job.yaml" if not named.startswith("/") else f"{repo}/base/job.yaml"
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in doc["findings"]] == [
        ("HL102", base, 17, 16)]  # found alone and through envs/prod, said once
    assert result.exit_code == 1


@needs_kustomize
def test_a_base_outside_the_repository_is_refused_and_a_base_error_is_placed_on_the_entry_leading_to_it(repo, monkeypatch):
    write(repo.parent, {"outside/kustomization.yaml": "resources:\n- job.yaml\n", "outside/job.yaml": JOB})
    write(repo, {
        "app/kustomization.yaml": "resources:\n- ../../outside\n",
        "prod/kustomization.yaml": "namespace: shop\nresources:\n- ../base\n",
        "base/kustomization.yaml": "resources:\n- job.yaml\n- missing.yaml\n",
        "base/job.yaml": JOB,
    })  # fmt: skip
    result = runner.invoke(app, ["lint", "app", "prod"])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[:3] == [
        "app/kustomization.yaml:2:3: error HL007 render-failed: Rendering failed: resources entry '../../outside' is "
        "outside the repository (the current folder), and a render sees only the repository. Argo CD's repo server "
        "fails the same way, so the application cannot sync; nothing of it is checked until it renders.",
        "prod/kustomization.yaml:3:3: error HL007 render-failed: Rendering failed: base/kustomization.yaml:3:3: "
        "resources entry 'missing.yaml' names nothing: base/missing.yaml does not exist. Argo CD's repo server "
        "fails the same way, so the application cannot sync; nothing of it is checked until it renders.",
        "",
    ]


@needs_kustomize
def test_a_missing_entry_is_named_as_written_and_no_file_is_read_to_redact_it(repo, monkeypatch):
    """A kustomization entry that names nothing is reported in hooklint's words around the entry and
    its path, which are never secret values (issue 34: paths are never rewritten): the entry shows
    as written even where a Secret of the folder holds the same text, and no file is read to redact
    the message (that read was 10 ms per failed render, a sixth of a no-cache run of the corpus)."""
    from hooklint.sources.render import redact

    write(repo, {
        "app/kustomization.yaml": "resources:\n- secret.yaml\n- Tr0ub4dor-and-3.yaml\n",
        "app/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: Tr0ub4dor-and-3\n",
    })  # fmt: skip

    def unread(*args, **kwargs):
        raise AssertionError("a file was read to redact a message of names")

    monkeypatch.setattr(redact, "secret_values", unread)
    result = runner.invoke(app, ["lint", "app"])
    assert (result.exit_code, result.output.splitlines()[0]) == (1,
        "app/kustomization.yaml:3:3: error HL007 render-failed: Rendering failed: resources entry 'Tr0ub4dor-and-3.yaml' "
        "names nothing: app/Tr0ub4dor-and-3.yaml does not exist. Argo CD's repo server fails the same way, so the "
        "application cannot sync; nothing of it is checked until it renders.")  # fmt: skip


REMOTE_BASE_HL009 = (
    "remote/kustomization.yaml:2:3: warning HL009 source-not-rendered: resources entry "
    "'https://github.com/acme/platform//deploy?ref=v1' is remote and needs the network; hooklint fetches it only with "
    "`--fetch`: run with `--fetch` and list github.com in `fetch-hosts` (or give `--fetch-host github.com`) to check "
    "it, or vendor the base into the repository. Argo CD fetches it when it renders the application. hooklint "
    "left it out, so the objects it adds, possibly hooks, were not checked; the rest of the application was."
)


@needs_kustomize
def test_a_source_argo_cd_renders_and_hooklint_will_not_is_a_warning_of_its_own(repo):
    """HL009, not HL007: the application syncs (Argo CD fetches the base), hooklint renders the rest
    without it (issue 22: here nothing is left); the other applications of the run are checked, and a real render failure stays HL007."""
    write(repo, {
        "remote/kustomization.yaml": "resources:\n- https://github.com/acme/platform//deploy?ref=v1\n",
        "broken/kustomization.yaml": "resources:\n- missing.yaml\n",
        "fine/kustomization.yaml": "resources:\n- job.yaml\n",
        "fine/job.yaml": JOB,
    })  # fmt: skip
    result = runner.invoke(app, ["lint", "remote", "broken", "fine"])
    assert result.exit_code == 1
    assert [line for line in result.output.splitlines() if " HL0" in line] == [
        "broken/kustomization.yaml:2:3: error HL007 render-failed: Rendering failed: resources entry 'missing.yaml' "
        "names nothing: broken/missing.yaml does not exist. Argo CD's repo server fails the same way, so the "
        "application cannot sync; nothing of it is checked until it renders.",
        REMOTE_BASE_HL009,
    ]
    alone = runner.invoke(app, ["lint", "remote"])
    assert (alone.exit_code, alone.output.splitlines()[0]) == (1, REMOTE_BASE_HL009)  # fail-on: warning
    assert runner.invoke(app, ["lint", "--fail-on", "error", "remote"]).exit_code == 0


@needs_kustomize
@pytest.mark.parametrize("how", ["--ignore", "per-path-ignores", "severity"])
def test_hl009_is_accepted_for_a_path_with_ignore_or_per_path_ignores(repo, how):
    write(repo, {
        "apps/remote/kustomization.yaml": "resources:\n- https://github.com/acme/platform//deploy?ref=v1\n",
        "apps/broken/kustomization.yaml": "resources:\n- missing.yaml\n",
    })  # fmt: skip
    args = ["lint", "--format", "json", "apps"]
    if how == "--ignore":
        args[1:1] = ["--ignore", "HL009"]
    elif how == "per-path-ignores":
        (repo / ".hooklint.yaml").write_text('per-path-ignores:\n  "apps/remote/**": [source-not-rendered]\n')
    else:
        (repo / ".hooklint.yaml").write_text("severity: {HL009: note}\nfail-on: warning\n")
    result = runner.invoke(app, args)
    found = [(f["rule_id"], f["severity"], f["path"]) for f in json.loads(result.output)["findings"]]
    expected = [("HL007", "error", "apps/broken/kustomization.yaml")]
    if how == "severity":
        expected.append(("HL009", "note", "apps/remote/kustomization.yaml"))
    assert (result.exit_code, found) == (1, expected)  # HL007 is still reported: only HL009 is accepted


@needs_kustomize
def test_a_kustomization_that_is_not_yaml_is_one_hl001_at_the_parsers_position(repo):
    """Not also HL007 with kustomize's vaguer "yaml: line 5" at column 1: one problem, one finding.
    An overlay of it fails to render on its own (HL007 there: another application)."""
    write(repo, {
        "app/kustomization.yaml": "resources:\n- job.yaml\n- [oops\n",
        "app/job.yaml": JOB,
        "chart/Chart.yaml": "apiVersion: v2\nname: shop\nversion: 1.0.0\ndependencies: [a\n",
    })  # fmt: skip
    result = runner.invoke(app, ["lint", "--format", "json", "app", "chart"])
    found = [(f["path"], f["line"], f["column"], f["rule_id"]) for f in json.loads(result.output)["findings"]]
    assert (result.exit_code, found) == (1, [
        ("app/kustomization.yaml", 3, 3, "HL001"),
        ("chart/Chart.yaml", 4, 15, "HL001"),
    ])


@needs_kustomize
def test_a_missing_field_stays_in_the_source_file_whatever_patches_the_overlay_has(repo):
    """kustomize records a patch in the transformations of every object it visits; a field the
    object lacks was set by nothing, so its finding is in the base, not on the overlay's patches."""
    write(repo, {
        "base/kustomization.yaml": "resources:\n- job.yaml\n",
        "base/job.yaml": JOB.replace("  activeDeadlineSeconds: 300\n", ""),
        "overlay/kustomization.yaml": "resources:\n- ../base\ncommonLabels:\n  env: dev\npatches:\n"
                                      "- target:\n    kind: ConfigMap\n    name: settings\n"
                                      "  patch: |\n    - op: add\n      path: /data\n      value: {a: b}\n",
    })  # fmt: skip
    result = runner.invoke(app, ["lint", "--format", "json", "overlay"])
    [hl202] = [f for f in json.loads(result.output)["findings"] if f["rule_id"] == "HL202"]
    assert (hl202["path"], hl202["line"], hl202["column"]) == ("base/job.yaml", 7, 1)


@needs_kustomize
@pytest.mark.parametrize("named", [["."], ["overlay/patches/job.yaml"]])
def test_a_patch_in_a_folder_of_its_own_is_linted_through_its_kustomization(repo, named):
    """A partial Job in overlay/patches/ is no manifest: linted alone it would lack restartPolicy
    (HL205) and its hook annotation. It is read by the overlay's kustomization, and pre-commit
    naming it alone renders that overlay."""
    write(repo, {
        "base/kustomization.yaml": "resources:\n- job.yaml\n",
        "base/job.yaml": JOB,
        "overlay/kustomization.yaml": "resources:\n- ../base\npatches:\n- path: patches/job.yaml\n",
        "overlay/patches/job.yaml": "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\nspec:\n"
                                    "  template:\n    spec:\n      serviceAccountName: migrator\n",
    })  # fmt: skip
    result = runner.invoke(app, ["lint", "--format", "json", *named])
    doc = json.loads(result.output)
    assert doc["findings"] == [], doc["findings"]
    assert result.exit_code == 0
    plan = json.loads(runner.invoke(app, ["plan", "--format", "json", *named]).output)
    plans = {a["application"]: a for a in plan["applications"]}
    assert [t["name"] for s in plans["overlay"]["steps"] for t in s["tasks"]] == ["migrate", "settings"]
    assert plans.get("overlay/patches", {"steps": []})["steps"] == []  # the patch is not applied on its own


#: The clean hook Job alone, the only object of what builds it (HL305 says so): a resource the
#: tests' kustomizations change
CLEAN_RESOURCE_JOB = JOB.split("---\n")[0]


@needs_kustomize
@pytest.mark.parametrize("named", [["app"], ["app/jobs"], ["app/jobs/job.yaml"], ["."]])
def test_a_resource_named_or_in_a_folder_named_is_linted_through_the_kustomization_above_it(repo, named, monkeypatch):
    """Attacker trial 46, 3: a clean Job in app/jobs/, which app/kustomization.yaml builds with an
    image to busybox:latest and a patch removing its ServiceAccount and automount setting.
    ``hooklint pre-commit app/jobs/job.yaml``, ``lint app/jobs`` and ``cd app/jobs; lint .``
    linted the Job as written and passed (exit 0), while Argo CD (path ``app``) runs the rendering.
    The kustomization is brought in, as for a patch named on its own, and the file is linted
    through it; an unlisted file of the folder is linted on its own."""
    write(repo, {
        "app/kustomization.yaml": (
            "resources: [jobs/job.yaml]\n"
            "images: [{name: ghcr.io/acme/migrate, newName: busybox, newTag: latest}]\n"
            "patches: [{target: {kind: Job}, patch: \"- op: remove\\n  path: /spec/template/spec/serviceAccountName\\n"
            "- op: remove\\n  path: /spec/template/spec/automountServiceAccountToken\"}]\n"),
        "app/jobs/job.yaml": CLEAN_RESOURCE_JOB,
        "app/jobs/unlisted.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
    })  # fmt: skip
    if named == ["."]:
        monkeypatch.chdir(repo / "app" / "jobs")
    result = runner.invoke(app, ["lint", "--format", "json", *named])
    job, kustomization = ("../jobs/job.yaml", "../kustomization.yaml") if named == ["."] else (
        "app/jobs/job.yaml", "app/kustomization.yaml")  # the kustomization's folder, as reached: ".."
    found = [(f["path"], f["line"], f["column"], f["rule_id"]) for f in json.loads(result.output)["findings"]]
    assert (result.exit_code, found) == (1, [
        (job, 6, 30, "HL305"),  # the unlisted ConfigMap is not in the rendering: a hook only
        (job, 11, 5, "HL103"), (job, 11, 5, "HL104"), (kustomization, 2, 10, "HL102"),
    ])


HOST_PID_PATCH = ('patches: [{target: {kind: Job}, patch: "[{\\"op\\": \\"add\\", \\"path\\": '
                  '\\"/spec/template/spec/hostPID\\", \\"value\\": true}]"}]\n')
LAYOUTS = {  # attacker trial 47: a kustomization above the named file that the search did not find
    "nested base (F2)": ({"app/base/job.yaml": CLEAN_RESOURCE_JOB, "app/base/kustomization.yaml": "resources: [job.yaml]\n",
                          "app/kustomization.yaml": "resources: [base]\n" + HOST_PID_PATCH},
                         "app/base/job.yaml", ["app/base/job.yaml", "app/base"]),
    "five folders down (F3)": ({"app/a/b/c/d/e/job.yaml": CLEAN_RESOURCE_JOB,
                                "app/kustomization.yaml": "resources: [a/b/c/d/e/job.yaml]\n" + HOST_PID_PATCH},
                               "app/a/b/c/d/e/job.yaml", ["app/a/b/c/d/e/job.yaml", "app/a/b/c/d/e", "app/a"]),
    "past another kustomization (F4)": ({"app/x/kustomization.yaml": "resources: [cm.yaml]\n",
                                         "app/x/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
                                         "app/x/y/job.yaml": CLEAN_RESOURCE_JOB,
                                         "app/kustomization.yaml": "resources: [x/y/job.yaml]\n" + HOST_PID_PATCH},
                                        "app/x/y/job.yaml", ["app/x/y/job.yaml", "app/x/y", "app/x"]),
    "through a link (F5)": ({"app/real/job.yaml": CLEAN_RESOURCE_JOB,
                             "app/kustomization.yaml": "resources: [hooks/job.yaml]\n" + HOST_PID_PATCH},
                            "app/hooks/job.yaml", ["app/real/job.yaml", "app/real"]),
}


@needs_kustomize
@pytest.mark.parametrize(("layout", "named"), [(k, n) for k, (_, _, names) in LAYOUTS.items() for n in names])
def test_the_kustomizations_above_a_path_named_that_build_it_are_linted(repo, layout, named):
    """Attacker trial 47, F2 to F5: ``hooklint pre-commit`` and ``lint`` of a file or folder that a
    kustomization above builds (and patches with ``hostPID: true``) passed, exit 0, when that
    kustomization was five folders up, beyond another kustomization that does not build it, built
    the named kustomization as a base, or listed the file through a link. Every kustomization
    above, up to the repository's top, that builds it (by resolved path) is in the run."""
    files, shown, _ = LAYOUTS[layout]
    write(repo, files)
    if layout.startswith("through a link"):
        os.symlink("real", repo / "app/hooks")  # a folder link: app/hooks/job.yaml is app/real/job.yaml
    result = runner.invoke(app, ["lint", "--format", "json", named])
    found = [(f["path"], f["line"], f["column"], f["rule_id"]) for f in json.loads(result.output)["findings"]]
    assert (result.exit_code, sorted(found)) == (1, sorted([("app/kustomization.yaml", 2, 1, "HL105"), (shown, 6, 30, "HL305")]))


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: simple-deployment
spec:
  template:
    spec:
      containers:
      - name: web
        image: ghcr.io/acme/web:1.0
"""
#: The shape of /tmp/r/gitops-environment-promotion: envs/* overlays pulling in variants/* Components.
COMPONENTS = {
    "base/kustomization.yaml": "resources:\n- deployment.yaml\n",
    "base/deployment.yaml": DEPLOYMENT,
    "variants/prod/kustomization.yml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n\n"
                                       "patchesStrategicMerge:\n- prod.yml\n",
    "variants/prod/prod.yml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: simple-deployment\n"
                              "spec:\n  replicas: 3\n",
    "variants/hooks/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
                                         "resources:\n- job.yaml\n",
    "variants/hooks/job.yaml": JOB.split("---")[0].replace("migrate:1.4.2", "migrate:latest"),
    "variants/unused/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
                                          "patches:\n- path: patches/replicas.yaml\n",
    "variants/unused/patches/replicas.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n"
                                             "  name: simple-deployment\nspec:\n  replicas: 1\n",
    "envs/prod/kustomization.yml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
                                   "namespace: prod\nresources:\n- ../../base\ncomponents:\n- ../../variants/prod\n"
                                   "- ../../variants/hooks\n",
}  # fmt: skip
USED = "a kustomize Component that envs/prod/kustomization.yml renders: linted through that kustomization's rendering"
HL102_AT_HOOKS = ("HL102", "variants/hooks/job.yaml", 17, 16)


@needs_kustomize
def test_a_component_is_linted_through_the_kustomizations_that_use_it_never_on_its_own(repo):
    """Reported: each variants/* Component was rendered on its own, 5 false HL007 'no matches for Id
    Deployment.v1.apps/simple-deployment' at variants/*/kustomization.yml:1:1. One nothing uses is
    rendered on its own through a wrapper (issue 22), its patch of what only users add left out
    (HL009 on it, never HL007)."""
    write(repo, COMPONENTS)
    result = runner.invoke(app, ["lint", "--format", "json", "."])
    doc = json.loads(result.output)
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in doc["findings"]] == [
        HL102_AT_HOOKS, ("HL009", "variants/unused/kustomization.yaml", 4, 3)]
    assert result.exit_code == 1
    assert doc["errors"] == []
    assert doc["skipped"] == [
        {"path": "variants/hooks/job.yaml", "reason": USED},
        {"path": "variants/hooks/kustomization.yaml", "reason": USED},
        {"path": "variants/prod/kustomization.yml", "reason": USED},
        {"path": "variants/prod/prod.yml", "reason": USED},
        {"path": "variants/unused/patches/replicas.yaml", "reason": "variants/unused/kustomization.yaml reads it "
         "(patches): linted through that kustomization's rendering"},
    ]  # fmt: skip
    plan = json.loads(runner.invoke(app, ["plan", "--format", "json", "."]).output)
    steps = {a["application"]: [t["name"] for s in a["steps"] for t in s["tasks"]] for a in plan["applications"]}
    assert steps["envs/prod"] == ["migrate", "simple-deployment"]
    # a Component used by a kustomization has no plan of its own (its objects are in envs/prod's)
    assert "variants/prod" not in steps and "variants/hooks" not in steps
    assert steps["variants/unused"] == []
    text = runner.invoke(app, ["lint", "variants/unused"])  # alone: rendered on its own, the patch left out
    assert text.exit_code == 1
    assert text.output.splitlines()[0].startswith(
        "variants/unused/kustomization.yaml:4:3: warning HL009 source-not-rendered: patches entry needs Deployment "
        "simple-deployment, which this Component does not add.")


@needs_kustomize
def test_a_component_used_through_a_base_or_a_named_file_is_linted_through_its_user(repo):
    """A Component listed by a base is rendered by the overlays of that base; pre-commit naming a
    Component's file and its user's file lints it through the user."""
    files = dict(COMPONENTS)
    files["base/kustomization.yaml"] = "resources:\n- deployment.yaml\ncomponents:\n- ../variants/hooks\n"
    files["envs/prod/kustomization.yml"] = "resources:\n- ../../base\n"
    write(repo, files)
    result = runner.invoke(app, ["lint", "--format", "json", "envs", "variants/hooks"])
    doc = json.loads(result.output)
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in doc["findings"]] == [HL102_AT_HOOKS]
    assert doc["skipped"][0] == {"path": "variants/hooks/job.yaml", "reason": USED}
    named = runner.invoke(app, ["lint", "--format", "json", "variants/hooks/job.yaml", "base/deployment.yaml"])
    doc = json.loads(named.output)
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in doc["findings"]] == [HL102_AT_HOOKS]
    via_base = USED.replace("envs/prod/kustomization.yml", "base/kustomization.yaml")
    assert doc["skipped"] == [{"path": "variants/hooks/job.yaml", "reason": via_base},
                              {"path": "variants/hooks/kustomization.yaml", "reason": via_base}]  # fmt: skip


@needs_kustomize
def test_an_application_pointing_at_a_component_renders_it_as_argo_cd_does(repo):
    """Argo CD runs ``kustomize build`` on an Application's path whatever its kustomization's kind:
    a Component whose patches miss their targets fails (HL007), one with resources only renders, and
    one an Application adds (``kustomize.components``) is linted through that Application."""
    write(repo, COMPONENTS)
    (repo / ".git/config").write_text('[remote "origin"]\n\turl = git@github.com:acme/shop.git\n')
    application = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: {name}\nspec:\n"
                   "  project: shop\n  destination:\n    namespace: {name}\n  source:\n"
                   "    repoURL: https://github.com/acme/shop.git\n    path: {path}\n")  # fmt: skip
    write(repo, {"apps/apps.yaml": "---\n".join([
        application.format(name="prod-variant", path="variants/prod"),
        application.format(name="hooks-variant", path="variants/hooks"),
        application.format(name="staging", path="base") + "    kustomize:\n      components:\n      - ../variants/unused\n",
    ])})  # fmt: skip
    result = runner.invoke(app, ["lint", "--format", "json", "--select", "HL007,HL102", "."])
    doc = json.loads(result.output)
    latest = ("Image 'ghcr.io/acme/migrate:latest' of container 'migrate' of Job/migrate uses the mutable tag "
              "':latest': each sync may run different code than was reviewed. Pin a version tag or, better, an "
              "@sha256 digest.")  # fmt: skip
    # two Jobs: envs/prod puts the component's Job in namespace prod, Application hooks-variant in its own
    assert [f["object"]["namespace"] for f in doc["findings"] if f["rule_id"] == "HL102"] == ["prod", "hooks-variant"]
    assert [(f["rule_id"], f["path"], f["line"], f["column"], f["message"]) for f in doc["findings"]] == [
        (*HL102_AT_HOOKS, latest), (*HL102_AT_HOOKS, latest),
        ("HL007", "variants/prod/kustomization.yml", 1, 1, "Rendering failed: variants/prod/kustomization.yml: no "
         "matches for Id Deployment.v1.apps/simple-deployment.[noNs]; failed to find unique target for patch "
         "Deployment.v1.apps/simple-deployment.[noNs]. Argo CD's repo server fails the same way, so the application "
         "cannot sync; nothing of it is checked until it renders."),
    ]  # fmt: skip
    assert result.exit_code == 1
    assert doc["skipped"] == [
        {"path": "variants/unused/kustomization.yaml", "reason": "a kustomize Component that Application staging "
         "(apps/apps.yaml:34) adds (spec.source.kustomize.components): linted through that Application's rendering"},
        {"path": "variants/unused/patches/replicas.yaml", "reason": "variants/unused/kustomization.yaml reads it "
         "(patches): linted through that kustomization's rendering"},
    ]  # fmt: skip


def test_a_symlink_out_of_the_repository_in_a_directory_source_is_an_error_and_never_read(repo, tmp_path):
    outside = tmp_path.parent / f"{tmp_path.name}-outside.yaml"
    outside.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: secret-stuff\n  annotations:\n    x: 5\n")
    (repo / "dirapp").mkdir()
    (repo / "dirapp" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")
    (repo / "dirapp" / "link.yaml").symlink_to(outside)
    result = runner.invoke(app, ["lint", "dirapp"])
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        f"dirapp/link.yaml:1:1: error HL007 render-failed: Rendering failed: dirapp/link.yaml is a symbolic link to "
        f"{outside}, outside the repository (illegal filepath in symlink). Argo CD's repo server fails the same way, "
        "so the application cannot sync; nothing of it is checked until it renders.")
    assert "HL004" not in result.output


def test_without_git_a_symlink_inside_the_folder_named_from_below_it_stays_in_the_repository(repo, tmp_path, monkeypatch):
    """The folder named (``..``) stands for the repository in a directory source too: a symlink to a
    sibling folder inside it is read, one leaving it is still refused."""
    (repo / ".git").rmdir()
    outside = tmp_path.parent / f"{tmp_path.name}-outside.yaml"
    outside.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: outside\n")
    write(repo, {"shared/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n", "envs/notes.md": ""})
    (repo / "apps/a").mkdir(parents=True)
    (repo / "apps/a/inside.yaml").symlink_to("../../shared/cm.yaml")
    (repo / "apps/b").mkdir()
    (repo / "apps/b/out.yaml").symlink_to(outside)
    monkeypatch.chdir(repo / "envs")
    result = runner.invoke(app, ["lint", "--format", "json", ".."])
    doc = json.loads(result.output)
    assert [(f["rule_id"], f["path"], f["line"], f["column"], f["message"]) for f in doc["findings"]] == [
        ("HL007", "../apps/b/out.yaml", 1, 1, f"Rendering failed: ../apps/b/out.yaml is a symbolic link to {outside}, "
         "outside the repository (illegal filepath in symlink). Argo CD's repo server fails the same way, so the "
         "application cannot sync; nothing of it is checked until it renders.")]  # fmt: skip
    assert result.exit_code == 1


@needs_kustomize
def test_ignore_comments_apply_in_the_files_of_a_kustomize_application(repo):
    write(repo, {
        "app/kustomization.yaml": "resources:\n- job.yaml\n",
        "app/job.yaml": JOB.replace("image: ghcr.io/acme/migrate:1.4.2",
                                    "image: ghcr.io/acme/migrate:latest  # hooklint: ignore[HL102] pinned by CI"),
    })  # fmt: skip
    result = runner.invoke(app, ["lint", "--format", "json", "app"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["findings"][0]["suppression"] == {"kind": "comment", "reason": "pinned by CI"}
    assert [f["rule_id"] for f in doc["findings"] if f["suppression"] is None] == []


BASE_JOB = JOB.replace("spec:\n  backoffLimit: 1\n", "# hooklint: ignore[HL201] the default retries are wanted\nspec:\n")


def _overlay_with_a_base_that_sets_latest(repo):
    write(repo, {
        "app/kustomization.yaml": "resources:\n- ../base\n",
        "base/kustomization.yaml": "resources:\n- job.yaml\nimages:\n# hooklint: ignore[HL102] pinned by CI\n"
                                   "- name: ghcr.io/acme/migrate\n  newTag: latest\n",
        "base/job.yaml": BASE_JOB,
    })  # fmt: skip


@needs_kustomize
def test_ignore_comments_apply_in_a_base_and_its_kustomization_entry(repo):
    """The findings of a rendered object are placed in the user's files behind it, the base's object
    (HL201) and the base kustomization's ``images`` entry that set the tag (HL102): their comments
    apply, read by the sources stage (``LoadedApplication.comments``)."""
    _overlay_with_a_base_that_sets_latest(repo)
    result = runner.invoke(app, ["lint", "--format", "json", "app"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert [(f["rule_id"], f["path"], f["line"], f["column"], f["suppression"]) for f in doc["findings"]] == [
        ("HL201", "base/job.yaml", 8, 1, {"kind": "comment", "reason": "the default retries are wanted"}),
        ("HL102", "base/kustomization.yaml", 5, 3, {"kind": "comment", "reason": "pinned by CI"}),
    ]


@needs_kustomize
def test_the_suppression_stage_opens_no_file(repo, monkeypatch):
    """The comments of the files behind a rendering come from the sources stage; suppressing reads
    nothing (it used to re-open each file a finding was placed in, during the checks)."""
    import builtins

    from hooklint.catalog import load_catalog
    from hooklint.config import Config
    from hooklint.engine import Engine
    from hooklint.pipeline import build
    from hooklint.sources.load import group_applications, load_application
    from hooklint.suppression import suppress

    _overlay_with_a_base_that_sets_latest(repo)
    config = Config()
    [application] = group_applications(["app"], [], [], config=config)
    loaded = load_application(application, config)
    assert sorted(loaded.comments) == ["base/job.yaml", "base/kustomization.yaml"]
    engine = Engine(config, load_catalog())
    checked = engine.check_application(loaded, *build(loaded, config))

    def refuse(*args, **kwargs):
        raise AssertionError(f"the suppression stage opened {args[0]!r}")

    monkeypatch.setattr(builtins, "open", refuse)
    monkeypatch.setattr(os, "open", refuse)
    found = suppress(engine, loaded, checked)
    monkeypatch.undo()
    assert sorted((f.rule_id, f.suppression.kind if f.suppression else None) for f in found) == [
        ("HL102", "comment"), ("HL201", "comment")]


SIBLING_APPLICATION = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: prod, namespace: argocd}
spec:
  project: default
  destination: {server: https://kubernetes.default.svc, namespace: prod}
  source: {repoURL: https://github.com/acme/deploy.git, path: overlays/prod}
"""


@needs_kustomize
@pytest.mark.parametrize("application", [False, True])
@pytest.mark.parametrize("named", [["base"], ["base/job.yaml"], ["components/priv"],
                                   ["components/priv/kustomization.yaml"]])  # fmt: skip
def test_an_overlay_or_component_user_beside_a_path_named_is_linted(repo, named, application):
    """Attacker trial 47, F1 and F8: ``hooklint pre-commit base/job.yaml`` (or ``lint base``, or
    of a Component) linted the base, or the Component, alone, while ``overlays/prod`` beside it
    builds them, with an image made ``:latest`` and a patch adding ``hostNetwork``: exit 0, with
    the repository's Application deploying the overlay or none. Every kustomization of the
    repository that builds a path named is in the run."""
    write(repo, {
        "base/kustomization.yaml": "resources: [job.yaml]\n",
        "base/job.yaml": CLEAN_RESOURCE_JOB,
        "overlays/prod/kustomization.yaml": "resources: [../../base]\ncomponents: [../../components/priv]\n",
        "components/priv/kustomization.yaml": (
            "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
            "images: [{name: ghcr.io/acme/migrate, newTag: latest}]\n"
            + HOST_PID_PATCH.replace("hostPID", "hostNetwork")),
        **({"apps/prod.yaml": SIBLING_APPLICATION} if application else {}),
    })  # fmt: skip
    result = runner.invoke(app, ["lint", "--format", "json", *named])
    found = [(f["path"], f["line"], f["column"], f["rule_id"]) for f in json.loads(result.output)["findings"]]
    assert (result.exit_code, found) == (1, [
        ("base/job.yaml", 6, 30, "HL305"),  # the overlay holds nothing but the hook
        ("components/priv/kustomization.yaml", 3, 10, "HL102"),
        ("components/priv/kustomization.yaml", 4, 1, "HL105"),
    ])


BASE_FILES = {"base/kustomization.yaml": "resources: [job.yaml]\n", "base/job.yaml": CLEAN_RESOURCE_JOB}
LATEST_HOST_PID = "images: [{name: ghcr.io/acme/migrate, newTag: latest}]\n" + HOST_PID_PATCH


@needs_kustomize
@pytest.mark.parametrize("named", [["base/job.yaml"], ["."], ["overlays/prod"]])
def test_an_overlay_written_as_kustomization_without_a_suffix_is_linted(repo, named):
    """Attacker trial 48, F1: a folder whose only file is ``Kustomization`` (kustomize's third name)
    is a kustomize source to Argo CD, but the walk listed ``*.yaml`` only: ``lint .`` and
    ``pre-commit base/job.yaml`` passed, and ``lint overlays/prod`` said there was nothing to lint."""
    write(repo, {**BASE_FILES, "overlays/prod/Kustomization": "resources: [../../base]\n" + LATEST_HOST_PID})
    result = runner.invoke(app, ["lint", "--format", "json", *named])
    found = [(f["path"], f["line"], f["column"], f["rule_id"]) for f in json.loads(result.output)["findings"]]
    assert (result.exit_code, found) == (1, [("base/job.yaml", 6, 30, "HL305"), ("overlays/prod/Kustomization", 2, 10, "HL102"),
                                             ("overlays/prod/Kustomization", 3, 1, "HL105")])


@needs_kustomize
def test_an_overlay_whose_reads_cannot_be_told_is_linted_with_a_path_it_may_build(repo, monkeypatch):
    """Attacker trial 48, F3: an overlay listing more kustomizations than are followed
    (``MAX_KUSTOMIZATIONS_FOLLOWED``, here 2) before its base was judged not to build the base:
    ``pre-commit base/job.yaml`` passed. What cannot be told may build it: the overlay is in."""
    from hooklint.sources.repository import kustomizations

    monkeypatch.setattr(kustomizations, "MAX_KUSTOMIZATIONS_FOLLOWED", 2)
    extra = {f"e/{n}/kustomization.yaml": f"configMapGenerator: [{{name: c{n}, literals: [a=b]}}]\n" for n in range(3)}
    write(repo, {**BASE_FILES, **extra, "overlays/prod/kustomization.yaml": (
        "resources: [../../base, ../../e/0, ../../e/1, ../../e/2]\n" + LATEST_HOST_PID)})
    result = runner.invoke(app, ["lint", "--format", "json", "base/job.yaml"])
    found = {(f["path"], f["rule_id"]) for f in json.loads(result.output)["findings"]}
    assert result.exit_code == 1
    assert {("overlays/prod/kustomization.yaml", "HL102"), ("overlays/prod/kustomization.yaml", "HL105")} <= found


def test_a_cut_search_of_the_repository_is_said(repo, monkeypatch):
    """Attacker trial 48, F2: past ``MAX_REPOSITORY_FILES`` other manifests (here 3), the overlay
    beside a named base was never found, and nothing said so. A note says the search was cut."""
    from hooklint.sources.appmap import applications

    monkeypatch.setattr(applications, "MAX_REPOSITORY_FILES", 3)
    write(repo, {**BASE_FILES, **{f"aaa/d{n}.yaml": "x: 1\n" for n in range(4)}})
    result = runner.invoke(app, ["lint", "base/job.yaml"])
    assert ("note: the repository holds more than 3 other manifest files: those past them were not searched for the "
            "Applications, kustomizations and charts that deploy or build the paths named; lint the whole repository "
            "(`hooklint lint`, `hooklint diff` without paths)") in result.output


def test_each_kustomization_on_a_shared_chain_is_walked_once(repo, monkeypatch):
    """Attacker trial 48, F7: 3,000 overlays of one chain of 998 kustomizations walked the chain
    3,000 times (2 minutes for a pre-commit of an unrelated file). What a kustomization reads is
    kept for the run, and a walk meeting a kept one takes it whole."""
    from hooklint.sources.repository import kustomizations

    chain = {f"chain/c{n}/kustomization.yaml": f"resources: [../c{n + 1}]\n" for n in range(9)}
    chain["chain/c9/kustomization.yaml"] = "configMapGenerator: [{name: end, literals: [a=b]}]\n"
    overlays = {f"ov/o{n}/kustomization.yaml": "resources: [../../chain/c0]\n" for n in range(20)}
    write(repo, {**chain, **overlays, "x/job.yaml": CLEAN_RESOURCE_JOB})
    followed: list[str] = []  # each entry a walk follows into a folder
    real = kustomizations.source_type
    monkeypatch.setattr(kustomizations, "source_type", lambda folder: followed.append(folder) or real(folder))
    assert runner.invoke(app, ["lint", "x/job.yaml"]).exit_code == 0
    # c1..c9 once each (from c0, the first asked), and c0 from each of the 20 overlays: 200 more before
    assert sorted(os.path.relpath(f, repo) for f in followed) == sorted(
        [f"chain/c{n}" for n in range(1, 10)] + ["chain/c0"] * 20)
