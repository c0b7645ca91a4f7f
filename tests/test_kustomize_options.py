"""The ``spec.source.kustomize`` options of an Application that hooklint used to drop (issue 32, F3).

Argo CD v3.5.1 ``util/kustomize/kustomize.go`` ``Build`` runs, in the application folder:
``kustomize edit set image`` (each image ``envVars.Envsubst``-ed), ``edit set replicas``
(``kustomize.replicas``), ``edit add label [--force] [--without-selector] [--include-templates]``
(values substituted), ``edit add annotation [--force]`` (values substituted when
``commonAnnotationsEnvsubst`` is true), and adds only the components that exist with
``ignoreMissingComponents``. hooklint ignored all of these: ``commonAnnotations:
{argocd.argoproj.io/hook: ${ARGOCD_APP_SOURCE_PATH}}`` on a folder named ``PreSync`` was read as an
unknown hook type (HL010, "never applied") while Argo CD ran a privileged PreSync Pod. A value naming
the revision Argo CD syncs leaves the source unrendered (HL009), never rendered with a guess."""

from __future__ import annotations

import json
import os

import pytest
import yaml
from typer.testing import CliRunner

from conftest import write
from hooklint.cli import app
from hooklint.sources.render import kustomize as kz
from hooklint.sources.render.kustomize import KustomizeOptions, find_kustomize, render_kustomize
from hooklint.sources.render.rendered import RenderError

runner = CliRunner()
needs_kustomize = pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: pwn
spec:
  hostPID: true
  restartPolicy: Never
  containers:
  - name: x
    image: registry.example.com/x@sha256:0000000000000000000000000000000000000000000000000000000000000000
"""
APPLICATION = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: shop, namespace: argocd}
spec:
  project: default
  destination: {server: https://kubernetes.default.svc, namespace: shop}
  source:
    repoURL: https://example.com/x.git
    path: PreSync
    kustomize:
KUSTOMIZE
"""
ATTACK = {
    "PreSync/kustomization.yaml": "resources:\n- pod.yaml\n- cm.yaml\n",
    "PreSync/pod.yaml": POD,
    "PreSync/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: b\n",
    ".hooklint.yaml": "repo-urls: [https://example.com/x.git]\n",
}
HOOK_PRIVILEGED = ("PreSync/pod.yaml:6:12: error HL105 hook-privileged-pod: Pod/pwn sets hostPID: true: a PreSync hook "
                   "runs on every sync and then controls the node, not just its pod. Remove it, or do this work "
                   "outside the cluster's workloads.")  # fmt: skip


def lint(tmp_path, monkeypatch, kustomize: str, files: dict[str, str] | None = None, *args: str):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    application = APPLICATION.replace("KUSTOMIZE", "\n".join("      " + line for line in kustomize.splitlines()))
    write(tmp_path, {**ATTACK, **(files or {}), "apps/app.yaml": application})
    return runner.invoke(app, ["lint", "--no-cache", *args, "."])


@needs_kustomize
def test_common_annotations_envsubst_makes_the_folder_name_a_hook_type(tmp_path, monkeypatch):
    """The attack: main printed only HL010 "Unknown hook type '${ARGOCD_APP_SOURCE_PATH}'"."""
    result = lint(tmp_path, monkeypatch, "commonAnnotationsEnvsubst: true\n"
                                         "commonAnnotations:\n  argocd.argoproj.io/hook: ${ARGOCD_APP_SOURCE_PATH}")
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert HOOK_PRIVILEGED in lines
    assert not [line for line in lines if " HL010 " in line or " HL007 " in line or " HL009 " in line]
    plan = runner.invoke(app, ["plan", "--no-cache", "--format", "json", "."])
    [presync] = [a for a in json.loads(plan.output)["applications"] if a["application"] == "PreSync"]
    assert [(s["phase"], [(t["kind"], t["name"], t["hook_types"]) for t in s["tasks"]]) for s in presync["steps"]] == [
        ("PreSync", [("ConfigMap", "settings", ["PreSync"]), ("Pod", "pwn", ["PreSync"])])]
    assert presync["not_applied"] == []


@needs_kustomize
@pytest.mark.parametrize(("kustomize", "config", "line"), [
    ("commonAnnotations:\n  argocd.argoproj.io/hook: ${ARGOCD_APP_SOURCE_PATH}", "", 12),  # no commonAnnotationsEnvsubst
    ("commonAnnotationsEnvsubst: true\ncommonAnnotations:\n  argocd.argoproj.io/hook: ${ARGOCD_APP_SOURCE_PATH}",
     "argocd-version: '2.6'\n", 13),  # Argo CD 2.6 has no commonAnnotationsEnvsubst (v2.7.0, PR #11345)
])  # fmt: skip
def test_without_envsubst_the_value_stays_as_written(tmp_path, monkeypatch, kustomize, config, line):
    result = lint(tmp_path, monkeypatch, kustomize, {".hooklint.yaml": ATTACK[".hooklint.yaml"] + config})
    assert result.exit_code == 1, result.output
    assert (f"apps/app.yaml:{line}:9: error HL010 unknown-hook-type: Unknown hook type '${{ARGOCD_APP_SOURCE_PATH}}' on "
            "ConfigMap/settings: hook types are case-sensitive, and Argo CD treats ConfigMap/settings as a hook with no "
            "valid type and silently never applies it.") in result.output.splitlines(), result.output  # fmt: skip
    assert " HL105 " not in result.output, result.output


@needs_kustomize
@pytest.mark.parametrize("variable", ["${ARGOCD_APP_REVISION}", "$ARGOCD_APP_REVISION_SHORT", "x-${ARGOCD_APP_REVISION_SHORT_8}"])
def test_a_revision_variable_leaves_the_source_unrendered(tmp_path, monkeypatch, variable):
    result = lint(tmp_path, monkeypatch, "commonAnnotationsEnvsubst: true\n"
                                         f"commonAnnotations:\n  argocd.argoproj.io/hook: '{variable}'")
    name = variable.strip("x-${}")
    assert result.exit_code == 1, result.output
    assert ("PreSync/kustomization.yaml:1:1: warning HL009 source-not-rendered: kustomize.commonAnnotations: the value "
            f"of argocd.argoproj.io/hook names {name}, the commit Argo CD syncs, which hooklint does not know offline. "
            "Argo CD substitutes the revision it syncs into the value. hooklint did not render PreSync/, so none of "
            "its objects were checked, hooks included.") in result.output.splitlines(), result.output  # fmt: skip
    assert " HL010 " not in result.output


@needs_kustomize
def test_escaped_dollar_is_no_revision_variable(tmp_path, monkeypatch):
    """``$$`` is a ``$`` (``Env.Envsubst``): ``$$ARGOCD_APP_REVISION`` names no variable."""
    result = lint(tmp_path, monkeypatch, "commonAnnotationsEnvsubst: true\n"
                                         "commonAnnotations: {note: '$$ARGOCD_APP_REVISION'}")
    assert " HL009 " not in result.output, result.output


@needs_kustomize
def test_force_common_annotations_overwrites_the_kustomization_s_annotation(tmp_path, monkeypatch):
    """``kustomize edit add annotation --force``: the Application's value wins over the kustomization's
    Skip; main refused the existing key (HL007) and linted nothing."""
    files = {"PreSync/kustomization.yaml": ATTACK["PreSync/kustomization.yaml"]
             + "commonAnnotations:\n  argocd.argoproj.io/hook: Skip\n"}  # fmt: skip
    result = lint(tmp_path, monkeypatch, "forceCommonAnnotations: true\n"
                                         "commonAnnotations: {argocd.argoproj.io/hook: PreSync}", files)
    assert result.exit_code == 1, result.output
    assert HOOK_PRIVILEGED in result.output.splitlines(), result.output
    assert " HL007 " not in result.output


@needs_kustomize
def test_without_force_an_existing_annotation_fails_as_argo_cd_fails(tmp_path, monkeypatch):
    files = {"PreSync/kustomization.yaml": ATTACK["PreSync/kustomization.yaml"]
             + "commonAnnotations:\n  argocd.argoproj.io/hook: Skip\n"}  # fmt: skip
    result = lint(tmp_path, monkeypatch, "commonAnnotations: {argocd.argoproj.io/hook: PreSync}", files)
    assert ("PreSync/kustomization.yaml:1:1: error HL007 render-failed: Rendering failed: annotation "
            "argocd.argoproj.io/hook already in kustomization file. Argo CD's repo server fails the same way, so the "
            "application cannot sync; nothing of it is checked until it renders.") in result.output.splitlines(), \
        result.output


# --- reading the options ---------------------------------------------------------------------------


ENV = {"ARGOCD_APP_NAME": "shop", "ARGOCD_APP_SOURCE_PATH": "PreSync"}


def test_build_variables_are_substituted_where_argo_cd_substitutes_them():
    spec = {"images": ["nginx=ghcr.io/acme/$ARGOCD_APP_NAME:1"], "commonLabels": {"app": "${ARGOCD_APP_NAME}"},
            "commonAnnotations": {"path": "$ARGOCD_APP_SOURCE_PATH"}, "namePrefix": "$ARGOCD_APP_NAME-"}
    options = KustomizeOptions.from_application(spec, ENV)
    assert options.images == ("nginx=ghcr.io/acme/shop:1",)
    assert options.common_labels == (("app", "shop"),)
    assert options.common_annotations == (("path", "$ARGOCD_APP_SOURCE_PATH"),)  # no commonAnnotationsEnvsubst
    assert options.name_prefix == "$ARGOCD_APP_NAME-"  # Build substitutes no prefix
    with_flag = KustomizeOptions.from_application({**spec, "commonAnnotationsEnvsubst": True}, ENV)
    assert with_flag.common_annotations == (("path", "PreSync"),)
    assert with_flag.unknowable is None
    revision = KustomizeOptions.from_application({"images": ["nginx:$ARGOCD_APP_REVISION_SHORT"]}, ENV)
    assert revision.unknowable == "kustomize.images[0] names ARGOCD_APP_REVISION_SHORT"
    label = KustomizeOptions.from_application({"commonLabels": {"rev": "${ARGOCD_APP_REVISION}"}}, ENV)
    assert label.unknowable == "kustomize.commonLabels: the value of rev names ARGOCD_APP_REVISION"


def test_options_an_older_argo_cd_does_not_have_are_ignored():
    spec = {"replicas": [{"name": "web", "count": 2}], "labelWithoutSelector": True, "labelIncludeTemplates": True,
            "ignoreMissingComponents": True, "forceCommonLabels": True, "commonLabels": {"a": "$ARGOCD_APP_NAME"},
            "images": ["x:$ARGOCD_APP_NAME"]}  # fmt: skip
    assert KustomizeOptions.from_application(spec, ENV, (2, 0, 0)) == KustomizeOptions(
        common_labels=(("a", "$ARGOCD_APP_NAME"),), images=("x:$ARGOCD_APP_NAME",), label_groups=False)
    assert KustomizeOptions.from_application(spec, ENV, (2, 10, 0)) == KustomizeOptions(
        common_labels=(("a", "shop"),), images=("x:shop",), replicas=(("web", 2),), force_common_labels=True,
        label_groups=False)  # fmt: skip
    assert KustomizeOptions.from_application(spec, ENV, (3, 0, 0)) == KustomizeOptions(
        common_labels=(("a", "shop"),), images=("x:shop",), replicas=(("web", 2),), force_common_labels=True,
        label_without_selector=True, label_include_templates=True, ignore_missing_components=True)  # fmt: skip


@pytest.mark.parametrize(("spec", "message"), [
    ({"replicas": [{"name": "web", "count": "two"}]}, "kustomize.replicas: expected integer value for count. Received: two"),
    ({"replicas": [{"name": "web", "count": 1.5}]}, "kustomize.replicas: expected integer value for count. Received: 1.5"),
    ({"replicas": {"web": 2}}, "kustomize.replicas must be a list of mappings"),
    ({"replicas": [{"name": "web", "count": 2**31}]}, "kustomize.replicas: count 2147483648 does not fit the int32 of "
                                                     "an IntOrString"),
    ({"forceCommonAnnotations": "true"}, "kustomize.forceCommonAnnotations must be true or false"),
    ({"ignoreMissingComponents": 1}, "kustomize.ignoreMissingComponents must be true or false"),
])  # fmt: skip
def test_wrong_option_types_are_refused(spec, message):
    with pytest.raises(ValueError) as error:
        KustomizeOptions.from_application(spec)
    assert str(error.value) == message


def test_replica_counts_are_read_as_get_int_count_reads_them():
    spec = {"replicas": [{"name": "web", "count": "3"}, {"name": "db", "count": 0}, {"name": "x", "count": "+4"}]}
    assert KustomizeOptions.from_application(spec).replicas == (("web", 3), ("db", 0), ("x", 4))


# --- kustomize edit, as Argo CD runs it ----------------------------------------------------------


def test_set_replicas_merges_by_name_and_sorts():
    kustomization = {"resources": ["a.yaml"], "replicas": [{"name": "web", "count": 1}, {"name": "api", "count": 5}]}
    assert kz.apply_options(kustomization, KustomizeOptions(replicas=(("web", 3), ("db", 2))), ".", "k")
    assert kustomization["replicas"] == [{"name": "api", "count": 5}, {"name": "db", "count": 2},
                                         {"name": "web", "count": 3}]  # fmt: skip
    with pytest.raises(RenderError, match="invalid format of replica"):
        kz.apply_options({}, KustomizeOptions(replicas=(("a=b", 1),)), ".", "k")


def test_force_overwrites_labels_and_annotations():
    kustomization = {"commonLabels": {"app": "a"}, "commonAnnotations": {"team": "x"}}
    options = KustomizeOptions(common_labels=(("app", "b"),), common_annotations=(("team", "y"),),
                               force_common_labels=True, force_common_annotations=True)  # fmt: skip
    assert kz.apply_options(kustomization, options, ".", "k")
    assert kustomization == {"commonLabels": {"app": "b"}, "commonAnnotations": {"team": "y"}}
    with pytest.raises(RenderError, match="^annotation team already in kustomization file$"):
        kz.apply_options({"commonAnnotations": {"team": "x"}}, KustomizeOptions(common_annotations=(("team", "y"),)),
                         ".", "k")  # fmt: skip


def test_labels_without_selector_go_to_a_labels_entry():
    """kustomize v5.6.0+ ``writeToLabels``: into the first entry of the same settings; a new one else."""
    kustomization = {"labels": [{"pairs": {"a": "1"}, "includeSelectors": True}, {"pairs": {"b": "2"}}]}
    options = KustomizeOptions(common_labels=(("c", "3"),), label_without_selector=True)
    kz.apply_options(kustomization, options, ".", "k")
    assert kustomization == {"labels": [{"pairs": {"a": "1"}, "includeSelectors": True}, {"pairs": {"b": "2", "c": "3"}}]}
    templates = KustomizeOptions(common_labels=(("d", "4"),), label_without_selector=True, label_include_templates=True)
    kz.apply_options(kustomization, templates, ".", "k")
    assert kustomization["labels"][2] == {"pairs": {"d": "4"}, "includeTemplates": True}
    with pytest.raises(RenderError, match="^label b already in kustomization file$"):
        kz.apply_options(kustomization, KustomizeOptions(common_labels=(("b", "9"),), label_without_selector=True),
                         ".", "k")  # fmt: skip
    old = {"labels": [{"pairs": {"b": "2"}}]}  # Argo CD before 3.0 (kustomize 5.4.3): always a new entry
    kz.apply_options(old, KustomizeOptions(common_labels=(("b", "9"),), label_without_selector=True,
                                           label_groups=False), ".", "k")  # fmt: skip
    assert old == {"labels": [{"pairs": {"b": "2"}}, {"pairs": {"b": "9"}}]}
    for nil in ({"labels": [None]}, {"labels": [{"includeSelectors": False}]}):  # Go: a nil Pairs map, a panic
        with pytest.raises(RenderError, match="assignment to entry in nil map"):
            kz.apply_options(nil, KustomizeOptions(common_labels=(("a", "1"),), label_without_selector=True), ".", "k")
    with pytest.raises(RenderError, match="--without-selector flag must be specified for --include-templates"):
        kz.apply_options({}, KustomizeOptions(common_labels=(("a", "1"),), label_include_templates=True), ".", "k")


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - {name: web, image: nginx}
"""


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / "cache"))
    write(tmp_path, {"repo/app/kustomization.yaml": "resources:\n- deployment.yaml\n",
                     "repo/app/deployment.yaml": DEPLOYMENT,
                     "repo/comp/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
                                                     "commonAnnotations:\n  comp: added\n"})  # fmt: skip
    return tmp_path / "repo"


@needs_kustomize
def test_replicas_are_set(repo):
    [deployment] = render_kustomize("repo/app", "repo", KustomizeOptions(replicas=(("web", 3),))).documents
    assert yaml.safe_load(deployment.text)["spec"]["replicas"] == 3


@needs_kustomize
@pytest.mark.parametrize(("flags", "selector", "template"), [
    ({}, {"app": "web", "team": "a"}, {"app": "web", "team": "a"}),
    ({"label_without_selector": True}, {"app": "web"}, {"app": "web"}),
    ({"label_without_selector": True, "label_include_templates": True}, {"app": "web"}, {"app": "web", "team": "a"}),
])  # fmt: skip
def test_label_without_selector(repo, flags, selector, template):
    options = KustomizeOptions(common_labels=(("team", "a"),), **flags)
    [deployment] = render_kustomize("repo/app", "repo", options).documents
    obj = yaml.safe_load(deployment.text)
    assert obj["metadata"]["labels"] == {"team": "a"}
    assert obj["spec"]["selector"]["matchLabels"] == selector
    assert obj["spec"]["template"]["metadata"]["labels"] == template


@needs_kustomize
def test_ignore_missing_components_adds_only_those_that_exist(repo):
    options = KustomizeOptions(components=("../missing", "../comp"), ignore_missing_components=True)
    [deployment] = render_kustomize("repo/app", "repo", options).documents
    assert yaml.safe_load(deployment.text)["metadata"]["annotations"] == {"comp": "added"}
    with pytest.raises(RenderError, match="components entry '../missing' names nothing"):  # without it, Argo CD's edit fails
        render_kustomize("repo/app", "repo", KustomizeOptions(components=("../missing", "../comp")))


def test_ignore_missing_components_reads_each_entry_literally(repo):
    """``os.Root.Stat`` of ``filepath.Join(appPath, entry)``: no glob, nothing outside the checkout."""
    root, app_dir = os.path.abspath("repo"), os.path.abspath("repo/app")
    assert kz.component_exists(root, app_dir, "../comp")
    assert not kz.component_exists(root, app_dir, "../c*")
    assert kz.component_exists(root, app_dir, "../../repo/comp")  # filepath.Join cleans it to repo/comp
    assert kz.component_exists(root, app_dir, "/../comp")  # Join keeps an absolute entry below appPath
    os.mkdir("elsewhere")
    assert not kz.component_exists(root, app_dir, "../../elsewhere")
    os.symlink(os.path.abspath("elsewhere"), "repo/out")
    assert not kz.component_exists(root, app_dir, "../out")


@needs_kustomize
@pytest.mark.parametrize("config", ["", "argocd-version: '2.14'\n"])
def test_a_component_ignore_missing_components_skips_is_linted_on_its_own(tmp_path, monkeypatch, config):
    """With ignoreMissingComponents, Argo CD reads ``../c*`` literally and adds nothing; the Component is
    then used by nothing, and linted on its own, never taken as read through the Application's rendering
    (a silent pass of its privileged hook). Argo CD 2.14 has no ignoreMissingComponents: it globs, and
    the Component is linted once, through the Application's rendering."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    hook = POD.replace("  name: pwn\n", "  name: pwn\n  annotations:\n    argocd.argoproj.io/hook: PreSync\n")
    application = APPLICATION.replace("path: PreSync", "path: app").replace(
        "KUSTOMIZE", "      ignoreMissingComponents: true\n      components: ['../c*']")
    write(tmp_path, {"app/kustomization.yaml": "resources:\n- cm.yaml\n", "app/cm.yaml": ATTACK["PreSync/cm.yaml"],
                     "comp/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
                                               "resources:\n- pod.yaml\n",
                     "comp/pod.yaml": hook, ".hooklint.yaml": ATTACK[".hooklint.yaml"] + config,
                     "apps/app.yaml": application})  # fmt: skip
    result = runner.invoke(app, ["lint", "--no-cache", "."])
    assert result.exit_code == 1, result.output
    assert [line for line in result.output.splitlines() if " HL105 " in line] == [
        HOOK_PRIVILEGED.replace("PreSync/pod.yaml:6:12", "comp/pod.yaml:8:12")], result.output


def test_two_annotations_that_become_one_key_are_not_guessed():
    """``a:b`` with ``c`` is ``a:b:c``, which kustomize splits into ``a`` = ``b:c``: with an annotation
    ``a`` of another value, which one Argo CD keeps depends on Go's random map order (HL009)."""
    options = KustomizeOptions(common_annotations=(("a:b", "c"), ("a", "d")), force_common_annotations=True)
    with pytest.raises(RenderError) as error:
        kz.apply_options({}, options, ".", "k")
    assert error.value.message == ("the annotations 'a:b' and 'a' of the Application both become the annotation a "
                                   "with different values (kustomize splits each at its first colon)")
    assert error.value.argocd_renders == "Argo CD passes them in a random order, and kustomize keeps the last"
    same = {}
    kz.apply_options(same, KustomizeOptions(common_annotations=(("a:b", "c"), ("a", "b:c"))), ".", "k")
    assert same == {"commonAnnotations": {"a": "b:c"}}
