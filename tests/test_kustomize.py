"""hooklint.sources.render.kustomize: rendering a kustomization as Argo CD's repo server does, with origins.

Every test that runs kustomize skips when neither ``kustomize`` nor ``kubectl`` is installed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
import yaml

from conftest import write
from hooklint.sources import bounded
from hooklint.sources.render import kustomize as kz
from hooklint.sources.render.kustomize import KustomizeOptions, find_kustomize, render_kustomize
from hooklint.sources.render.rendered import RenderError, RendererUnavailable, Transformation
from hooklint.sources.repository import facts

needs_kustomize = pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")
SHARED = Path(__file__).resolve().parents[1].parent / "shared"
RHOAI_ROOT = SHARED / "corpus/public/redhat-na-ssa__demo-ai-gitops-catalog"
RHOAI_PREREQS = RHOAI_ROOT / "demos/components/rhoai-prereqs"

BASE_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: migrate
        image: nginx:1.0
"""

OVERLAY = {
    "base/kustomization.yaml": "resources:\n- job.yaml\n",
    "base/job.yaml": BASE_JOB,
    "overlay/kustomization.yaml": "resources:\n- ../base\nimages:\n- name: nginx\n  newName: ghcr.io/acme/nginx\n  newTag: '2.0'\n",
}


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A ``repo`` folder under the current directory (paths are reported as the user spells them)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path / "repo"


@pytest.fixture
def runs(monkeypatch):
    """The argv and keyword arguments of every renderer run (:func:`hooklint.sources.bounded.run`)."""
    calls: list[list[str]] = []
    real = bounded.run

    def run(argv, *args, **kwargs):
        calls.append({"argv": list(argv), **kwargs})
        return real(argv, *args, **kwargs)

    monkeypatch.setattr(bounded, "run", run)
    return calls


def snapshot(root: Path) -> dict[str, bytes | str]:
    """Every file's bytes and every symlink's target under ``root``."""
    found: dict[str, bytes | str] = {}
    for directory, dirs, names in os.walk(root):
        for name in dirs + names:
            path = Path(directory, name)
            if path.is_symlink():
                found[str(path)] = "-> " + os.readlink(path)
            elif path.is_file():
                found[str(path)] = path.read_bytes()
    return found


# --- options -------------------------------------------------------------------------------------


def test_options_from_application_reads_argo_cd_fields_and_ignores_unknown_keys():
    options = KustomizeOptions.from_application(
        {
            "namePrefix": "pre-",
            "nameSuffix": "",
            "namespace": "team-a",
            "images": ["nginx=ghcr.io/acme/nginx:1.2"],
            "commonLabels": {"team": "a"},
            "commonAnnotations": {"owner": "me"},
            "patches": [{"target": {"kind": "Job"}, "patch": "- op: remove\n  path: /spec/ttl"}],
            "components": ["../comp"],
            "replicas": [{"name": "web", "count": 2}],
            "forceCommonLabels": True,
        }
    )
    assert options == KustomizeOptions(
        name_prefix="pre-",
        name_suffix=None,
        namespace="team-a",
        images=("nginx=ghcr.io/acme/nginx:1.2",),
        common_labels=(("team", "a"),),
        common_annotations=(("owner", "me"),),
        patches=('{"patch": "- op: remove\\n  path: /spec/ttl", "target": {"kind": "Job"}}',),
        components=("../comp",),
        replicas=(("web", 2),),
        force_common_labels=True,
    )


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"namePrefix": 3}, "kustomize.namePrefix must be a string"),
        ({"images": "nginx:1"}, "kustomize.images must be a list of strings"),
        ({"commonLabels": {"a": 1}}, "kustomize.commonLabels must be a mapping of strings to strings"),
        ({"commonAnnotations": ["a"]}, "kustomize.commonAnnotations must be a mapping of strings to strings"),
        ({"patches": ["- op: add"]}, "kustomize.patches must be a list of mappings"),
        ({"components": [1]}, "kustomize.components must be a list of strings"),
    ],
)
def test_options_from_application_wrong_type_names_the_key(spec, message):
    with pytest.raises(ValueError) as error:
        KustomizeOptions.from_application(spec)
    assert str(error.value) == message


def test_set_image_writes_what_kustomize_edit_set_image_writes():
    # The examples of kustomize v5.5.0 `kustomize edit set image --help`, merged with existing entries.
    kustomization = {
        "resources": ["job.yaml"],
        "images": [{"name": "postgres", "newTag": "9"}, {"name": "keep", "newName": "k", "newTag": "1"}],
        "imageTags": [{"name": "old", "newTag": "0"}],
    }
    changed = kz.apply_options(
        kustomization,
        KustomizeOptions(images=(
            "postgres=eu.gcr.io/my-project/postgres:latest",
            "my-app=my-registry/my-app@sha256:24a0c4b4",
            "node:8.15.0", "mysql=mariadb", "alpine@sha256:24a0", "keep=*:2",
        )),  # fmt: skip
        ".",
        "kustomization.yaml",
    )
    assert changed
    assert kustomization == {
        "resources": ["job.yaml"],
        "images": [
            {"name": "alpine", "digest": "sha256:24a0"},
            {"name": "keep", "newName": "k", "newTag": "2"},
            {"name": "my-app", "newName": "my-registry/my-app", "digest": "sha256:24a0c4b4"},
            {"name": "mysql", "newName": "mariadb"},
            {"name": "node", "newTag": "8.15.0"},
            {"name": "old", "newTag": "0"},
            {"name": "postgres", "newName": "eu.gcr.io/my-project/postgres", "newTag": "latest"},
        ],
    }


def test_parse_image_splits_like_kustomize():
    assert kz.parse_image("localhost:5000/app:1.2@sha256:ab") == {"name": "localhost:5000/app", "newTag": "1.2", "digest": "sha256:ab"}
    assert kz.parse_image("app=reg.io:5000/x/app") == {"name": "app", "newName": "reg.io:5000/x/app"}
    with pytest.raises(RenderError) as error:
        kz.parse_image("nginx")
    assert error.value.message.startswith("invalid format of image 'nginx'")


def test_add_label_refuses_an_existing_key_like_kustomize_edit():
    with pytest.raises(RenderError) as error:
        kz.apply_options({"commonLabels": {"app": "a"}}, KustomizeOptions(common_labels=(("app", "b"),)), ".", "k")
    assert error.value.message == "label app already in kustomization file"


@pytest.mark.parametrize("entry", ["nginx", {"name": ["nginx"]}, {"name": 5}])
def test_set_image_refuses_an_entry_kustomize_edit_cannot_decode(entry):
    # Before, a string entry was kept as an image and failed as an internal error ('str' object has
    # no attribute 'items'), a list name as another (unhashable type: 'list').
    with pytest.raises(RenderError) as error:
        kz.apply_options({"imageTags": [entry]}, KustomizeOptions(images=("nginx:1.2",)), ".", "k")
    assert error.value.message == ("an entry of imageTags in the kustomization is not a mapping with a string name: "
                                   "Argo CD's kustomize edit set image fails on it")


def test_set_image_reads_a_null_entry_as_go_does():
    # Go decodes a null list item into a struct as the struct with no field set: an image of no name.
    kustomization = {"images": [None, {"name": "nginx", "newTag": "1.0"}]}
    assert kz.apply_options(kustomization, KustomizeOptions(images=("nginx:1.2",)), ".", "k")
    assert kustomization == {"images": [{}, {"name": "nginx", "newTag": "1.2"}]}


def test_strip_annotations_keeps_every_other_byte():
    text = (
        "metadata:\n  annotations:\n    a: |\n      x\n\n      y\n"
        "    config.kubernetes.io/origin: |\n      path: a.yaml\n    z: \"1\"\n  name: n\nspec: {}\n"
    )
    assert kz.strip_annotations(text, [kz.ORIGIN_ANNOTATION]) == (
        "metadata:\n  annotations:\n    a: |\n      x\n\n      y\n    z: \"1\"\n  name: n\nspec: {}\n"
    )
    only = "metadata:\n  annotations:\n    config.kubernetes.io/origin: |\n      path: a.yaml\n  name: n\n"
    assert kz.strip_annotations(only, [kz.ORIGIN_ANNOTATION]) == "metadata:\n  name: n\n"


# --- rendering -----------------------------------------------------------------------------------


@needs_kustomize
def test_overlay_image_changes_base_job_and_names_origin_and_transformer(repo):
    write(repo, OVERLAY)
    rendering = render_kustomize("repo/overlay", "repo")
    assert rendering.renderer == find_kustomize()[1]
    [job] = rendering.documents
    assert job.text == (
        "apiVersion: batch/v1\n"
        "kind: Job\n"
        "metadata:\n"
        "  annotations:\n"
        "    argocd.argoproj.io/hook: PreSync\n"
        "  name: migrate\n"
        "spec:\n"
        "  template:\n"
        "    spec:\n"
        "      containers:\n"
        "      - image: ghcr.io/acme/nginx:2.0\n"
        "        name: migrate\n"
        "      restartPolicy: Never\n"
    )
    assert job.origin == os.path.join("repo", "base", "job.yaml")
    assert job.origin_line == 0
    assert job.configured_in is None
    assert job.transformations == [Transformation(os.path.join("repo", "overlay", "kustomization.yaml"), "ImageTagTransformer")]


@needs_kustomize
def test_output_is_byte_for_byte_kustomize_build_without_origins(repo):
    write(repo, {
        **OVERLAY,
        "overlay/kustomization.yaml": OVERLAY["overlay/kustomization.yaml"]
        + "components:\n- ../comp\nnamePrefix: p-\ncommonAnnotations:\n  team: a\n"
        "configMapGenerator:\n- name: cfg\n  literals: [a=b]\n",
        "comp/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n- extra.json\n",
        "comp/extra.json": '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "extra", "annotations": {"z": "1"}}}\n',
    })  # fmt: skip
    rendering = render_kustomize("repo/overlay", "repo")
    argv, _ = find_kustomize()
    plain = subprocess.run([*argv, "repo/overlay"], capture_output=True, text=True, check=True).stdout
    assert "---\n".join(d.text for d in rendering.documents) == plain
    assert [(d.origin, d.configured_in) for d in rendering.documents] == [
        (None, os.path.join("repo", "overlay", "kustomization.yaml")),
        (os.path.join("repo", "comp", "extra.json"), None),
        (os.path.join("repo", "base", "job.yaml"), None),
    ]


@needs_kustomize
def test_nested_bases_and_components_are_named_from_the_folder_as_spelled(repo):
    write(repo, {
        "apps/base/kustomization.yaml": "resources:\n- ../../shared/sa\n",
        "shared/sa/kustomization.yaml": "resources:\n- sa.yaml\n",
        "shared/sa/sa.yaml": "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: hook\n",
        "apps/prod/kustomization.yaml": "resources:\n- ../base\ncomponents:\n- ../../comp\n",
        "comp/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nnamePrefix: c-\n",
    })  # fmt: skip
    [sa] = render_kustomize("./repo/apps/prod/", "repo").documents
    assert sa.origin == os.path.join("repo", "shared", "sa", "sa.yaml")
    assert sa.transformations == [Transformation(os.path.join("repo", "comp", "kustomization.yaml"), "PrefixTransformer")]
    [absolute] = render_kustomize(str(repo / "apps/prod"), str(repo)).documents
    assert absolute.origin == str(repo / "shared/sa/sa.yaml")


@needs_kustomize
def test_application_options_prefix_suffix_namespace_annotations(repo):
    write(repo, OVERLAY)
    options = KustomizeOptions(
        name_prefix="pre-", name_suffix="-post", namespace="n", common_annotations=(("owner", '"team-a"'),)
    )
    [job] = render_kustomize("repo/overlay", "repo", options).documents
    obj = yaml.safe_load(job.text)
    assert obj["metadata"] == {
        "annotations": {"argocd.argoproj.io/hook": "PreSync", "owner": "team-a"},
        "name": "pre-migrate-post",
        "namespace": "n",
    }
    assert obj["spec"]["template"]["metadata"] == {"annotations": {"owner": "team-a"}}
    kustomization = os.path.join("repo", "overlay", "kustomization.yaml")
    assert job.transformations == [
        Transformation(kustomization, kind)
        for kind in ("NamespaceTransformer", "PrefixTransformer", "SuffixTransformer", "AnnotationsTransformer", "ImageTagTransformer")
    ]


@needs_kustomize
def test_application_images_patches_and_components(repo):
    write(repo, {**OVERLAY, "comp/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonLabels:\n  comp: c\n"})
    patch = {"target": {"kind": "Job"}, "patch": '[{"op": "add", "path": "/spec/backoffLimit", "value": 0}]'}
    options = KustomizeOptions(
        images=("nginx=registry.local/nginx@sha256:00ff",), patches=(json.dumps(patch),), components=("../comp",)
    )
    [job] = render_kustomize("repo/overlay", "repo", options).documents
    obj = yaml.safe_load(job.text)
    assert obj["spec"]["backoffLimit"] == 0
    assert obj["metadata"]["labels"] == {"comp": "c"}
    assert obj["spec"]["template"]["spec"]["containers"][0]["image"] == "registry.local/nginx@sha256:00ff"


@needs_kustomize
def test_config_map_generator_has_no_origin_but_its_kustomization(repo):
    write(repo, {"app/kustomization.yaml": "configMapGenerator:\n- name: settings\n  literals:\n  - mode=fast\n"})
    [config_map] = render_kustomize("repo/app", "repo").documents
    assert config_map.origin is None
    assert config_map.configured_in == os.path.join("repo", "app", "kustomization.yaml")
    assert config_map.transformations == []
    assert yaml.safe_load(config_map.text)["metadata"] == {"name": "settings-t82mkhg8fd"}


@needs_kustomize
def test_user_tree_is_unchanged_and_temporary_folder_removed(repo, tmp_path, monkeypatch):
    write(repo, OVERLAY)
    (repo / "overlay/link.yaml").symlink_to("../base/job.yaml")
    (repo / ".git").mkdir()
    (repo / ".git/config").write_text("[core]\n")
    before = snapshot(repo)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    options = KustomizeOptions(name_prefix="p-", images=("nginx:3",), common_labels=(("a", "b"),), namespace="x")
    render_kustomize("repo/overlay", "repo", options)
    with pytest.raises(RenderError):
        render_kustomize("repo/overlay", "repo", KustomizeOptions(images=("nginx",)))
    assert snapshot(repo) == before
    assert list(scratch.iterdir()) == []


@needs_kustomize
def test_symlinks_stay_symlinks_and_one_leaving_the_repository_is_refused(repo, tmp_path):
    write(repo, {
        "app/kustomization.yaml": "resources:\n- job.yaml\n- ../linked\n",
        "app/real/job.yaml": BASE_JOB,
        "base/kustomization.yaml": "resources:\n- sa.yaml\n",
        "base/sa.yaml": "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: hook\n",
    })  # fmt: skip
    (repo / "app/job.yaml").symlink_to("real/job.yaml")
    (repo / "linked").symlink_to("base")
    assert [d.origin for d in render_kustomize("repo/app", "repo").documents] == [
        os.path.join("repo", "linked", "sa.yaml"),
        os.path.join("repo", "app", "job.yaml"),
    ]
    (tmp_path / "outside.yaml").write_text(BASE_JOB)
    (repo / "app/job.yaml").unlink()
    (repo / "app/job.yaml").symlink_to("../../outside.yaml")
    facts.reset()  # the next run (a run takes the file system as it found it)
    with pytest.raises(RenderError) as error:
        render_kustomize("repo/app", "repo")
    assert error.value.message == (
        "illegal filepath in symlink: repo/app/job.yaml -> ../../outside.yaml leaves the repository "
        "(Argo CD refuses repositories with out-of-bounds symlinks)"
    )
    assert error.value.path == os.path.join("repo", "app", "job.yaml")


# --- refusals and errors --------------------------------------------------------------------------

GITHUB_HINT = ("hooklint fetches it only with `--fetch`: run with `--fetch` and list github.com in `fetch-hosts` (or "
               "give `--fetch-host github.com`) to check it, or vendor the base into the repository")
SSH_HINT = ("hooklint never fetches an ssh Git remote: ssh signs in with the keys, agent and configuration of the "
            "machine it runs on, and the fetch step takes no credentials from the environment: vendor the base into "
            "the repository")


@pytest.mark.parametrize(
    "reference",
    [
        "github.com/acme/deploy//base?ref=v1.2.0",
        "https://github.com/acme/deploy/base?ref=main",
        "git@github.com:acme/deploy.git//base",
        "ssh://git@example.com/acme/deploy.git",
        "oci://ghcr.io/acme/bundle",
        "https://raw.githubusercontent.com/acme/deploy/main/job.yaml",
    ],
)
def test_remote_base_is_left_out_and_never_handed_to_kustomize(repo, runs, reference):
    """Issue 22: the remote entry is left out of the copy (an omission where it is written), the
    rest is rendered; kustomize is never handed the URL (no file of the copy it builds holds it)."""
    write(repo, {
        "app/kustomization.yaml": "resources:\n- ../base\n",
        "base/kustomization.yaml": f"resources:\n- job.yaml\n- {reference}\n",
        "base/job.yaml": BASE_JOB,
    })  # fmt: skip
    if find_kustomize() is None:
        pytest.skip("neither kustomize nor kubectl is installed")
    handed = []
    real = bounded.run

    def run(argv, *args, **kwargs):
        for folder, _, names in os.walk(kwargs["cwd"]):
            handed.extend(Path(folder, n).read_text() for n in names if not os.path.islink(Path(folder, n)))
        return real(argv, *args, **kwargs)

    runs.clear()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bounded, "run", run)
        rendering = render_kustomize("repo/app", "repo")
    assert [d.origin for d in rendering.documents] == [os.path.join("repo", "base", "job.yaml")]
    [omission] = rendering.omitted
    hint = {  # what the fetch step can fetch says how (issue 33); an ssh remote why it never is
        "github.com/acme/deploy//base?ref=v1.2.0": GITHUB_HINT, "https://github.com/acme/deploy/base?ref=main": GITHUB_HINT,
        "git@github.com:acme/deploy.git//base": SSH_HINT, "ssh://git@example.com/acme/deploy.git": SSH_HINT,
    }.get(reference, "hooklint never uses the network: vendor the base into the repository")
    assert (omission.message, omission.argocd_renders) == (
        f"resources entry {reference!r} is remote and needs the network; {hint}",
        "Argo CD fetches it when it renders the application")  # fmt: skip
    assert (omission.path, omission.line, omission.column) == (os.path.join("repo", "base", "kustomization.yaml"), 3, 3)
    assert handed and not any(reference in text for text in handed)
    assert "resources:\n- job.yaml\n" in handed


@needs_kustomize
def test_exec_plugin_is_refused_and_never_run(repo, runs):
    marker = repo / "MARKER"
    write(repo, {
        "app/kustomization.yaml": "resources:\n- cm.yaml\ntransformers:\n- fn.yaml\n",
        "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
        "app/fn.yaml": "apiVersion: example.com/v1\nkind: Evil\nmetadata:\n  name: evil\n  annotations:\n"
        "    config.kubernetes.io/function: |\n      exec:\n        path: ./evil.sh\n",
        "app/evil.sh": f"#!/bin/sh\ntouch {marker}\ncat\n",
    })  # fmt: skip
    (repo / "app/evil.sh").chmod(0o755)
    runs.clear()
    with pytest.raises(RenderError) as error:
        render_kustomize("repo/app", "repo")
    assert error.value.message == (
        "transformers entry 'fn.yaml' is an exec KRM function (Evil): hooklint never runs plugins from the repository"
    )
    assert (error.value.path, error.value.line) == (os.path.join("repo", "app", "kustomization.yaml"), 4)
    assert runs == []
    assert not marker.exists()


@needs_kustomize
def test_inline_container_function_generator_is_refused(repo):
    write(repo, {"app/kustomization.yaml": (
        "generators:\n- |\n  apiVersion: x/v1\n  kind: Gen\n  metadata:\n    name: g\n    annotations:\n"
        "      config.kubernetes.io/function: |\n        container:\n          image: evil\n"
    )})  # fmt: skip
    with pytest.raises(RenderError) as error:
        render_kustomize("repo/app", "repo")
    assert "is a container KRM function (Gen): hooklint never runs plugins from the repository" in error.value.message


@needs_kustomize
def test_helm_charts_are_left_out_and_never_inflated(repo, runs):
    write(repo, {"app/kustomization.yaml": "resources:\n- job.yaml\nhelmGlobals:\n  chartHome: charts\nhelmCharts:\n"
                 "- name: redis\n  repo: https://charts.example.com\n", "app/job.yaml": BASE_JOB})  # fmt: skip
    runs.clear()
    rendering = render_kustomize("repo/app", "repo")
    assert [d.origin for d in rendering.documents] == [os.path.join("repo", "app", "job.yaml")]
    assert [(o.message, o.line, o.column, o.argocd_renders) for o in rendering.omitted] == [(
        "helmCharts entry 'redis' inflates a Helm chart, which needs kustomize build --enable-helm (it runs helm "
        "and usually fetches the chart); hooklint never passes it: make the chart a Helm source of its own",
        6, 3, "Argo CD renders it when argocd-cm's kustomize.buildOptions has --enable-helm")]  # fmt: skip
    assert len(runs) == 1 and "--enable-helm" not in runs[0]["argv"]


@needs_kustomize
def test_yaml_error_is_one_line_naming_the_users_file(repo):
    write(repo, {"app/kustomization.yaml": "resources:\n- job.yaml\n  bad: [\n", "app/job.yaml": BASE_JOB})
    with pytest.raises(RenderError) as error:
        render_kustomize("repo/app", "repo")
    kustomization = os.path.join("repo", "app", "kustomization.yaml")
    assert error.value.message == (
        f"{kustomization}: invalid Kustomization: yaml: line 3: mapping values are not allowed in this context"
    )
    assert (error.value.path, error.value.line) == (kustomization, 3)


@needs_kustomize
def test_kustomize_error_shows_user_paths_never_temporary_ones(repo):
    write(repo, {"app/kustomization.yaml": "resources:\n- sub\n", "app/sub/notes.txt": "not a kustomization\n"})
    with pytest.raises(RenderError) as error:
        render_kustomize("repo/app", "repo")
    sub = os.path.join("repo", "app", "sub")
    assert "\n" not in error.value.message
    assert "hooklint-kustomize" not in error.value.message and tempfile.gettempdir() not in error.value.message
    assert f"unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory '{sub}'" in error.value.message
    assert error.value.path == os.path.join("repo", "app", "kustomization.yaml")


@needs_kustomize
@pytest.mark.parametrize(
    "kustomization, line, message",
    [
        ("resources:\n- job.yaml\n- missing.yaml\n", 3, "resources entry 'missing.yaml' names nothing: {app}/missing.yaml does not exist"),
        ("configMapGenerator:\n- name: s\n  files:\n  - run.sh=job.sh\n", 4, "configMapGenerator entry 'job.sh' names nothing: {app}/job.sh does not exist"),
        ("resources:\n- job.yaml\npatches:\n- path: patch.yaml\n", 4, "patches entry 'patch.yaml' names nothing: {app}/patch.yaml does not exist"),
    ],
)  # fmt: skip
def test_a_missing_input_is_named_at_its_line_before_kustomize_runs(repo, runs, kustomization, line, message):
    write(repo, {"app/kustomization.yaml": kustomization, "app/job.yaml": BASE_JOB})
    runs.clear()
    with pytest.raises(RenderError) as error:
        render_kustomize("repo/app", "repo")
    app_dir = os.path.join("repo", "app")
    assert (error.value.message, error.value.line, error.value.path) == (
        message.format(app=app_dir), line, os.path.join(app_dir, "kustomization.yaml"))
    assert runs == []


@needs_kustomize
def test_subprocess_is_sandboxed(repo, runs):
    write(repo, OVERLAY)
    runs.clear()
    render_kustomize("repo/overlay", "repo")
    [call] = runs
    assert not {"--enable-exec", "--enable-alpha-plugins", "--enable-helm", "--enable-star"} & set(call["argv"])
    assert (call["timeout"], call["memory"]) == (60, 2 << 30)
    env = call["env"]
    assert env["GIT_ALLOW_PROTOCOL"] == "" and env["GIT_TERMINAL_PROMPT"] == "0"
    # no proxy variable at all: Go never proxies a loopback address, so a "closed" proxy port only
    # adds a connection of its own; the kubeconfig names a cluster at port 0, which nothing can serve
    assert not {name for name in env if "proxy" in name.lower()}
    assert env["KUBECONFIG"] == os.path.join(env["HOME"], "kubeconfig")
    argv = call["argv"]  # [unshare --net --map-root-user --] /abs/kubectl kustomize <copy>, or /abs/kustomize build
    assert os.path.isabs(argv[0]) and os.path.isabs(argv[argv.index("--") + 1] if "--" in argv else argv[0])
    assert all(os.path.isabs(p) for p in env["PATH"].split(os.pathsep))
    assert env["HOME"].startswith(tempfile.gettempdir()) and not os.path.exists(env["HOME"])


@needs_kustomize
def test_timeout_is_a_render_error(repo, monkeypatch):
    write(repo, OVERLAY)

    def slow(argv, *args, **kwargs):
        raise bounded.Stopped(f"stopped after {kwargs['timeout']} s (limit: render-timeout)", "render-timeout")

    monkeypatch.setattr(bounded, "run", slow)
    with pytest.raises(RenderError) as error:
        render_kustomize("repo/overlay", "repo")
    assert error.value.message == "kustomize build of repo/overlay stopped after 60 s (limit: render-timeout)"


def test_no_renderer_is_renderer_unavailable(repo, monkeypatch):
    write(repo, OVERLAY)
    monkeypatch.setattr(kz, "find_kustomize", lambda *_: None)
    with pytest.raises(RendererUnavailable) as error:
        render_kustomize("repo/overlay", "repo")
    assert error.value.message == (
        "kustomize is needed to render this kustomization: install kustomize "
        "(https://kubectl.docs.kubernetes.io/installation/kustomize/) or kubectl"
    )
    assert error.value.path == os.path.join("repo", "overlay", "kustomization.yaml")


# --- cache and inputs -----------------------------------------------------------------------------


@needs_kustomize
def test_second_render_is_cached_and_a_base_change_re_renders(repo, runs):
    write(repo, OVERLAY)
    first = render_kustomize("repo/overlay", "repo")
    runs.clear()
    assert render_kustomize("repo/overlay", "repo") == first
    assert runs == []
    (repo / "base/job.yaml").write_text(BASE_JOB.replace("migrate", "migrate-v2"))
    again = render_kustomize("repo/overlay", "repo")
    assert len(runs) == 1
    assert "name: migrate-v2-v2\n" not in again.documents[0].text and "name: migrate-v2\n" in again.documents[0].text
    runs.clear()
    render_kustomize("repo/overlay", "repo", KustomizeOptions(name_prefix="x-"))
    assert len(runs) == 1


@needs_kustomize
def test_cached_paths_follow_the_folder_as_spelled(repo):
    write(repo, OVERLAY)
    render_kustomize("repo/overlay", "repo")
    [job] = render_kustomize(str(repo / "overlay"), str(repo)).documents
    assert job.origin == str(repo / "base/job.yaml")


def test_inputs_are_the_referenced_closure(repo):
    write(repo, {
        **OVERLAY,
        "overlay/patch.yaml": "x",
        "overlay/kustomization.yaml": OVERLAY["overlay/kustomization.yaml"]
        + "patches:\n- path: ../patches/p.yaml\nconfigMapGenerator:\n- name: c\n  files:\n  - k=../data/f.txt\n  envs:\n  - ../data/e.env\n",
        "patches/p.yaml": "x", "data/f.txt": "x", "data/e.env": "x", "unrelated/big.yaml": "x",
    })  # fmt: skip
    root = os.path.abspath("repo")
    files = kz._Inputs(root, lambda p: p).collect(os.path.join(root, "overlay"), KustomizeOptions())
    assert [os.path.relpath(f, root) for f in files] == [
        "base/job.yaml", "base/kustomization.yaml", "data/e.env", "data/f.txt",
        "overlay/kustomization.yaml", "overlay/patch.yaml", "patches/p.yaml",
    ]  # fmt: skip


# --- the corpus -------------------------------------------------------------------------------------


@needs_kustomize
@pytest.mark.skipif(not RHOAI_PREREQS.is_dir(), reason="shared corpus not present")
def test_corpus_rhoai_prereqs_needs_operator_bases_missing_from_the_corpus():
    # The corpus keeps only some files of redhat-na-ssa/demo-ai-gitops-catalog: the operator
    # overlays this component lists are not in it, so kustomize fails, naming them.
    with pytest.raises(RenderError) as error:
        render_kustomize(str(RHOAI_PREREQS), str(RHOAI_ROOT))
    missing = RHOAI_ROOT / "components/operators/authorino-operator/operator/overlays/stable"
    assert (error.value.message, error.value.line) == (
        f"resources entry '../../../components/operators/authorino-operator/operator/overlays/stable' names "
        f"nothing: {missing} does not exist", 8)  # fmt: skip
    assert error.value.path == str(RHOAI_PREREQS / "kustomization.yaml")


@needs_kustomize
@pytest.mark.skipif(not RHOAI_PREREQS.is_dir(), reason="shared corpus not present")
def test_corpus_rhoai_prereqs_console_link_is_a_presync_hook(tmp_path):
    # The component with the resources the corpus holds, in a scratch repository (not the repo).
    root = tmp_path / "catalog"
    folder = root / "demos/components/rhoai-prereqs"
    folder.mkdir(parents=True)
    kustomization = yaml.safe_load((RHOAI_PREREQS / "kustomization.yaml").read_text())
    kustomization["resources"] = [r for r in kustomization["resources"] if (RHOAI_PREREQS / r).exists()]
    (folder / "kustomization.yaml").write_text(yaml.safe_dump(kustomization))
    shutil.copyfile(RHOAI_PREREQS / "link-docs.yaml", folder / "link-docs.yaml")
    [link] = render_kustomize(str(folder), str(root)).documents
    obj = yaml.safe_load(link.text)
    assert (obj["kind"], obj["metadata"]["name"]) == ("ConsoleLink", "rhoai-docs")
    assert obj["metadata"]["annotations"] == {"argocd.argoproj.io/hook": "PreSync"}
    assert link.origin == str(folder / "link-docs.yaml")
    assert link.transformations == [Transformation(str(folder / "kustomization.yaml"), "AnnotationsTransformer")]
