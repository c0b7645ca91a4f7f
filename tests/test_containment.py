"""Hostile repositories against hooklint's promises (issue 19, classes 2 to 5): the render cache is
keyed by everything a rendering reads; nothing outside the repository is read, by hooklint or by
kustomize (containment by resolved path, checked on the copy kustomize is given); nothing reaches
the network or a cluster, loopback included; no program of the repository is run.

A sentinel outside the repository holds a secret value: it must never appear in any output. A
loopback listener counts connections: it must see none. Tests that run kustomize skip when neither
``kustomize`` nor ``kubectl`` is installed."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from conftest import write
from hooklint.sources import bounded
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import hooklint
from hooklint.cli import app
from hooklint.sources import sandbox
from hooklint.sources.render import cache
from hooklint.sources.render import kustomize as kz
from hooklint.sources.render.helm import find_helm
from hooklint.sources.repository import facts
from hooklint.sources.render.kustomize import KustomizeOptions, find_kustomize, render_kustomize
from hooklint.gojsonread import go_fold
from hooklint.sources.repository.kustomize_spec import canonical, is_remote_file, is_repo_spec
from hooklint.sources.render.rendered import RenderError, Renderer

needs_kustomize = pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")
runner = CliRunner()
SECRET = "s3ntinel-Secret-Value-9f2c"
SENTINEL_SECRET = f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: stolen\nstringData:\n  password: {SECRET}\n"
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  level: info\n"
ROOT = os.path.abspath(os.sep)


def plant_sentinel(folder: Path) -> None:
    """A kustomization outside the repository whose only object holds :data:`SECRET`."""
    write(folder, {"kustomization.yaml": "resources:\n- secret.yaml\n", "secret.yaml": SENTINEL_SECRET,
                   "cm.yaml": SENTINEL_SECRET})  # fmt: skip


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def aligned(tmp_path, monkeypatch):
    """``T/x/y/repo`` (a git repository, the current folder) and hooklint's temporary folders under
    ``T/x``, so that kustomize's copy ``T/x/hooklint-kustomize-*/src`` lies as deep below ``T`` as
    the repository: a link that climbs out of the repository lands on the same sentinel
    ``T/outside`` whether followed in the repository or in the copy."""
    repo = tmp_path / "x" / "y" / "repo"
    (repo / ".git").mkdir(parents=True)
    plant_sentinel(tmp_path / "outside")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "x"))
    monkeypatch.chdir(repo)
    return repo


class Reads:
    """Every path this process opens or lists while ``active`` (an audit hook: ``open``,
    ``os.listdir``, ``os.scandir``)."""

    active = False
    paths: list[str] = []

    @classmethod
    def hook(cls, event: str, args: tuple) -> None:
        if cls.active and event in ("open", "os.listdir", "os.scandir") and args and isinstance(args[0], (str, bytes)):
            cls.paths.append(os.fsdecode(args[0]))


sys.addaudithook(Reads.hook)


def opened_inside(folder: Path, during) -> list[str]:
    """The paths ``during()`` opened or listed that resolve inside ``folder``."""
    Reads.paths = []
    Reads.active = True
    try:
        during()
    finally:
        Reads.active = False
    real = os.path.realpath(folder)
    return [p for p in Reads.paths if os.path.realpath(p) == real or os.path.realpath(p).startswith(real + os.sep)]


# --- class 3: reading outside the repository -------------------------------------------------------


@needs_kustomize
def test_a_link_through_an_in_repository_link_is_hl007_naming_it_and_nothing_outside_is_read(aligned, tmp_path):
    """``a/b/c/esc -> up3/../../../outside`` stays inside when followed as text (``up3`` taken for a
    folder, as Argo CD's check takes it), but ``up3 -> ../../..`` is the repository itself, so the
    file system lands three folders above it: on the sentinel. Before, hooklint read the sentinel's
    kustomization and kustomize built it: ``plan`` printed the Secret."""
    write(aligned, {"app/kustomization.yaml": "resources:\n- ../a/b/c/esc\n"})
    (aligned / "a/b/c").mkdir(parents=True)
    (aligned / "a/b/c/up3").symlink_to("../../..")
    (aligned / "a/b/c/esc").symlink_to("up3/../../../outside")
    assert os.path.realpath(aligned / "a/b/c/esc") == str(tmp_path / "outside")
    results = {}
    outside = opened_inside(tmp_path / "outside", lambda: results.update(
        {command: runner.invoke(app, [command, "app"]) for command in ("plan", "lint")}))  # fmt: skip
    assert outside == []
    for command, result in results.items():
        assert SECRET not in result.output, command
    assert results["lint"].exit_code == 1
    assert results["lint"].output.splitlines()[0] == (
        "app/kustomization.yaml:2:3: error HL007 render-failed: Rendering failed: a/b/c/esc:1:1: illegal filepath "
        "in symlink: a/b/c/esc -> up3/../../../outside leaves the repository once the links it passes through are "
        "followed; hooklint reads nothing outside the repository. Argo CD's repo server fails the same way, so the "
        "application cannot sync; nothing of it is checked until it renders."
    )


ESCAPING_FILES = {  # the repository's file -> the file outside it that it links to
    "k/kustomization.yaml": "resources: [" + SECRET + "-1]\nresources: [" + SECRET + "-2]\n",
    "h/Chart.yaml": "apiVersion: v2\nname: " + SECRET + "\nname: twice\nversion: 1.0.0\n",
    "apps/app.yaml": ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: " + SECRET +
                      "\nspec:\n  source: {repoURL: https://example.com/acme/shop.git, path: k}\n"),
    "d/job.yaml": SENTINEL_SECRET + "metadata:\n  name: twice\n",
}


@needs_kustomize
def test_a_kustomization_chart_or_application_linked_out_is_hl007_and_never_opened(aligned, tmp_path):
    """A kustomization, ``Chart.yaml``, Application file or plain manifest that is a symbolic link
    to a file outside the repository: HL007 at 1:1 naming the target, and no stage opens it.
    Before, the render read the kustomization and ``Chart.yaml`` it was handed (HL002 quoted their
    repeated keys), discovery parsed the kustomization and looked for Applications in every file,
    and suppression re-read the linked file for comments."""
    (aligned / "h/templates").mkdir(parents=True)
    for name, text in ESCAPING_FILES.items():
        target = tmp_path / "outside" / name.replace("/", "-")
        target.write_text(text)
        (aligned / name).parent.mkdir(parents=True, exist_ok=True)
        (aligned / name).symlink_to(target)
    results = {}
    outside = opened_inside(tmp_path / "outside", lambda: results.update(
        {" ".join(args): runner.invoke(app, args) for args in (["lint", "."], ["lint", "-f", "markdown", "."],
                                                            ["plan", "."], ["lint", "apps/app.yaml"])}))  # fmt: skip
    assert outside == []
    for command, result in results.items():
        assert SECRET not in result.output, command
        assert "HL002" not in result.output, command
    assert results["lint ."].exit_code == 1
    assert [line.split(" outside the")[0] for line in results["lint ."].output.splitlines()[:4]] == [
        f"{name}:1:1: error HL007 render-failed: Rendering failed: {name} is a symbolic link to "
        f"{tmp_path / 'outside' / name.replace('/', '-')}," for name in sorted(ESCAPING_FILES)
    ]


@pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")
@pytest.mark.parametrize("link, target", [
    ("dep/Chart.yaml", "outside-chart/Chart.yaml"),
    ("dep/charts/sub", "outside-chart"),
    ("dep/charts/sub-1.0.0.tgz", "outside-chart.tgz"),
    ("dep/requirements.yaml", "outside-chart/Chart.yaml"),
], ids=["dependency-chart-yaml", "subchart-folder", "subchart-archive", "requirements"])
def test_a_file_dependency_linking_out_is_refused_before_anything_outside_is_read(aligned, tmp_path, link, target):
    """A ``file://`` dependency inside the repository whose ``Chart.yaml``, a subchart folder or
    archive under its ``charts/``, or (Helm 2) ``requirements.yaml`` is a link out: HL007 "illegal
    filepath in symlink" at the parent's dependency entry, and nothing outside is opened. Before,
    the dependency's chart was read first and the outside chart's name quoted in the message
    ("the chart in dep is named <outside name>")."""
    import tarfile

    outside = tmp_path / "outside-chart"
    write(outside, {"Chart.yaml": f"apiVersion: v2\nname: {SECRET}\nversion: 1.0.0\n"})
    with tarfile.open(tmp_path / "outside-chart.tgz", "w:gz") as archive:
        archive.add(outside / "Chart.yaml", arcname="sub/Chart.yaml")
    api = "v1" if link.endswith("requirements.yaml") else "v2"
    write(aligned, {
        "chart/Chart.yaml": "apiVersion: v2\nname: chart\nversion: 1.0.0\n"
                            "dependencies:\n  - name: dep\n    version: 1.0.0\n    repository: file://../dep\n",
        "chart/templates/cm.yaml": CM,
        "dep/templates/cm.yaml": CM.replace("settings", "dep-settings"),
    })  # fmt: skip
    if link != "dep/Chart.yaml":
        write(aligned, {"dep/Chart.yaml": f"apiVersion: {api}\nname: dep\nversion: 1.0.0\n"})
    (aligned / link).parent.mkdir(parents=True, exist_ok=True)
    (aligned / link).symlink_to(tmp_path / target)
    results = {}
    read = opened_inside(tmp_path / "outside-chart", lambda: results.update(
        {" ".join(args): runner.invoke(app, args) for args in (["lint", "chart"], ["plan", "chart"])}))
    read += opened_inside(tmp_path / "outside-chart.tgz", lambda: runner.invoke(app, ["lint", "chart"]))
    assert read == []
    for command, result in results.items():
        assert SECRET not in result.output, command
    assert results["lint chart"].exit_code == 1
    assert results["lint chart"].output.splitlines()[0] == (
        f"chart/Chart.yaml:5:5: error HL007 render-failed: Rendering failed: illegal filepath in symlink {link}: it "
        "leaves the repository. Argo CD's repo server fails the same way, so the application cannot sync; nothing "
        "of it is checked until it renders.")


@needs_kustomize
def test_every_other_file_field_is_contained_by_resolved_path(aligned, tmp_path):
    """A patch, generator file, configuration or CRD file reached through the same links: refused
    before anything reads it, and kustomize never sees it."""
    (aligned / "a/b/c").mkdir(parents=True)
    (aligned / "a/b/c/up3").symlink_to("../../..")
    (aligned / "a/b/c/esc").symlink_to("up3/../../../outside")
    fields = {
        "patches": "patches:\n- path: ../a/b/c/esc/secret.yaml\n",
        "patchesStrategicMerge": "patchesStrategicMerge:\n- ../a/b/c/esc/secret.yaml\n",
        "configMapGenerator": "configMapGenerator:\n- name: c\n  files:\n  - k=../a/b/c/esc/secret.yaml\n",
        "secretGenerator": "secretGenerator:\n- name: c\n  envs:\n  - ../a/b/c/esc/secret.yaml\n",
        "configurations": "configurations:\n- ../a/b/c/esc/secret.yaml\n",
        "crds": "crds:\n- ../a/b/c/esc/secret.yaml\n",
        "openapi": "openapi:\n  path: ../a/b/c/esc/secret.yaml\n",
        "replacements": "replacements:\n- path: ../a/b/c/esc/secret.yaml\n",
        "transformers": "transformers:\n- ../a/b/c/esc/secret.yaml\n",
        "case-folded patches": "patches:\n- PATH: ../a/b/c/esc/secret.yaml\n",
    }
    for name, text in fields.items():
        write(aligned, {"app/kustomization.yaml": "resources:\n- cm.yaml\n" + text, "app/cm.yaml": CM})
        raised: list[RenderError] = []

        def build() -> None:
            with pytest.raises(RenderError) as error:
                render_kustomize("app", ".")
            raised.append(error.value)

        assert opened_inside(tmp_path / "outside", build) == [], name  # nothing outside opened or listed
        assert raised[0].message == (
            "illegal filepath in symlink: a/b/c/esc -> up3/../../../outside leaves the repository once the links it "
            "passes through are followed; hooklint reads nothing outside the repository"), name  # fmt: skip
        assert SECRET not in raised[0].message


def test_a_file_reached_through_in_repository_links_is_copied_as_what_it_resolves_to(tmp_path):
    """The copy kustomize reads holds regular files and folders of the repository, and links
    recreated to point straight at their resolved target inside the copy."""
    repo = tmp_path / "repo"
    write(repo, {"real/deep/job.yaml": CM, "app/kustomization.yaml": "resources:\n- ../l2/job.yaml\n"})
    (repo / "l1").symlink_to("real")
    (repo / "l2").symlink_to("l1/deep")
    root = str(repo)
    plan = kz._plan_copy(root, [str(repo / "l2/job.yaml"), str(repo / "app/kustomization.yaml")], lambda p: p)
    assert plan.files == {"real/deep/job.yaml": str(repo / "real/deep/job.yaml"),
                          "app/kustomization.yaml": str(repo / "app/kustomization.yaml")}  # fmt: skip
    assert plan.links == {"l2": "real/deep"} and plan.folders == {"real/deep"}
    dest = tmp_path / "copy"
    kz._copy(plan, str(dest))
    kz._check_copy(str(dest))
    assert os.readlink(dest / "l2") == "real/deep" and (dest / "l2/job.yaml").read_text() == CM


def test_the_copy_check_refuses_a_link_leaving_the_copy(tmp_path):
    (tmp_path / "copy").mkdir()
    (tmp_path / "copy/out").symlink_to("..")
    with pytest.raises(RenderError) as error:
        kz._check_copy(str(tmp_path / "copy"))
    assert error.value.message == "internal error: the copy's link out leaves it"


def test_a_fifo_named_as_a_resource_is_refused_without_reading_it(tmp_path):
    repo = tmp_path / "repo"
    write(repo, {"app/kustomization.yaml": "resources:\n- pipe.yaml\n"})
    os.mkfifo(repo / "app/pipe.yaml")
    with pytest.raises(RenderError) as error:
        kz._plan_copy(str(repo), [str(repo / "app/pipe.yaml")], lambda p: os.path.relpath(p, repo))
    assert error.value.message == "app/pipe.yaml is a FIFO, not a regular file: hooklint renders regular files only"


@needs_kustomize
def test_annotations_naming_files_outside_are_refused_before_hooklint_opens_them(aligned, tmp_path):
    """An object may carry the origin and transformations annotations itself; kustomize keeps
    them, and hooklint opens the files they name to place findings."""
    annotated = (
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  annotations:\n"
        "    argocd.argoproj.io/hook: PreSync\n"
        "    alpha.config.kubernetes.io/transformations: |\n"
        "      - configuredIn: ../../../../outside/secret.yaml\n"
        "        configuredBy: {apiVersion: builtin, kind: ImageTagTransformer}\n"
        "spec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: a\n        image: x\n"
    )
    write(aligned, {"app/kustomization.yaml": "resources:\n- job.yaml\nbuildMetadata: [transformerAnnotations]\n",
                    "app/job.yaml": annotated})  # fmt: skip
    assert (aligned / "app/../../../../outside/secret.yaml").exists()
    holder: dict = {}
    outside = opened_inside(tmp_path / "outside", lambda: holder.update(result=runner.invoke(app, ["lint", "app"])))
    assert outside == []
    result = holder["result"]
    assert SECRET not in result.output
    assert result.output.splitlines()[0] == (
        "app/kustomization.yaml:1:1: error HL007 render-failed: Rendering failed: the rendering names "
        "../../../outside/secret.yaml as the source of an object, which is outside the repository (an origin or "
        "transformations annotation in the repository's files?); hooklint reads nothing outside the repository. "
        "Argo CD's repo server fails the same way, so the application cannot sync; nothing of it is checked until it "
        "renders."
    )


# --- link layouts (property) ------------------------------------------------------------------------

SEGMENTS = ["..", "..", "..", "a", "b", "c", "l0", "l1", "l2", "l3", "outside", "base", "."]
PLACES = ["", "a", "a/b", "a/b/c", "app"]


@st.composite
def layouts(draw):
    links = []
    for i in range(draw(st.integers(1, 4))):
        place = draw(st.sampled_from(PLACES))
        if draw(st.integers(0, 5)) == 0:
            target = draw(st.sampled_from(["{T}/outside", "{T}/x/y/repo/base", "{T}/x/y/repo/a/../../../outside"]))
        else:
            target = "/".join(draw(st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=6)))
        links.append((place, f"l{i}", target))
    entry = "/".join(draw(st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=6)))
    field = draw(st.sampled_from(["resources", "components", "patches", "configMapGenerator", "crds"]))
    return links, entry, field


def _kustomization_with(field: str, entry: str) -> str:
    if field == "patches":
        return f"resources:\n- cm.yaml\npatches:\n- path: {entry}/secret.yaml\n"
    if field == "configMapGenerator":
        return f"resources:\n- cm.yaml\nconfigMapGenerator:\n- name: g\n  files:\n  - {entry}/secret.yaml\n"
    if field == "crds":
        return f"resources:\n- cm.yaml\ncrds:\n- {entry}/secret.yaml\n"
    return f"{field}:\n- {entry}\n"


@needs_kustomize
@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(layouts())
@example(([("a/b/c", "l0", "../../.."), ("a/b/c", "l1", "l0/../../../outside")], "../a/b/c/l1", "resources"))
@example(([("a/b/c", "l0", "../../.."), ("a/b/c", "l1", "l0/../../../outside")], "../a/b/c/l1", "patches"))
@example(([("", "l0", "a/b/c"), ("a/b/c", "l1", "../../.."), ("a", "l2", "../l0/l1/../../../outside")],
          "../a/l2", "components"))
@example(([("app", "l0", "{T}/outside")], "l0", "resources"))
@example(([("", "l0", "a"), ("a", "l1", "../l0/../../../outside")], "../a/l1", "configMapGenerator"))
def test_no_link_layout_lets_hooklint_or_kustomize_read_outside(layout):
    """Chains of relative and absolute links, links through links, ``..`` through linked folders:
    whatever the layout, the sentinel's secret appears in no rendering or message, hooklint
    opens or lists nothing outside, and an entry that resolves outside is an error."""
    links, entry, field = layout
    top = Path(tempfile.mkdtemp(prefix="layout-"))
    saved, cwd = tempfile.tempdir, os.getcwd()
    try:
        repo = top / "x" / "y" / "repo"
        (repo / ".git").mkdir(parents=True)
        plant_sentinel(top / "outside")
        write(repo, {"base/kustomization.yaml": "resources:\n- cm.yaml\n", "base/cm.yaml": CM, "app/cm.yaml": CM,
                     "a/b/c/keep": "", "app/kustomization.yaml": _kustomization_with(field, entry)})  # fmt: skip
        for place, name, target in links:
            link = repo / place / name
            if not os.path.lexists(link):
                link.symlink_to(target.replace("{T}", str(top)))
        tempfile.tempdir = str(top / "x")
        os.chdir(repo)
        outcome: dict = {}

        def render():
            try:
                outcome["rendering"] = render_kustomize("app", ".")
            except RenderError as error:
                outcome["error"] = error

        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("HOOKLINT_CACHE_DIR", "off")
            read = opened_inside(top / "outside", render)
        assert read == []
        texts = [d.text for d in outcome["rendering"].documents] if "rendering" in outcome else []
        message = outcome["error"].message if "error" in outcome else ""
        assert SECRET not in message and not any(SECRET in t for t in texts)
        named = os.path.realpath(repo / "app" / entry)
        real_outside = os.path.realpath(top / "outside")
        if named == real_outside or named.startswith(real_outside + os.sep):
            assert "error" in outcome
    finally:
        tempfile.tempdir = saved
        os.chdir(cwd)
        subprocess.run(["rm", "-rf", str(top)], check=False)


# --- configuration paths --------------------------------------------------------------------------


@pytest.mark.parametrize("value, shown", [
    ("../outside.json", "{T}/outside.json"),
    ("/etc/hostname", "/etc/hostname"),
    ("link.json", "{T}/outside.json"),
])  # fmt: skip
def test_a_baseline_the_repository_configuration_names_outside_it_is_refused(tmp_path, monkeypatch, value, shown):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write(repo, {".hooklint.yaml": f"fail-on: error\nbaseline: {value}\n", "cm.yaml": CM})
    (tmp_path / "outside.json").write_text('{"version": 1, "findings": []}')
    (repo / "link.json").symlink_to(tmp_path / "outside.json")
    monkeypatch.chdir(repo)
    result = runner.invoke(app, ["lint", "cm.yaml"])
    assert result.exit_code == 2
    assert result.output == (
        f"hooklint: error: {repo}/.hooklint.yaml:2: 'baseline' {value!r} resolves to {shown.replace('{T}', str(tmp_path))}, "
        "outside the configuration file's folder or its repository: a configuration may name files inside them only "
        "(name another file on the command line, --baseline)\n"
    )


def test_a_baseline_in_the_repository_or_named_on_the_command_line_is_read(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write(repo, {"sub/.hooklint.yaml": "baseline: ../baseline.json\n", "sub/cm.yaml": CM,
                 "baseline.json": '{"version": 1, "findings": []}'})  # fmt: skip
    (tmp_path / "mine.json").write_text('{"version": 1, "findings": []}')
    monkeypatch.chdir(repo / "sub")
    assert runner.invoke(app, ["lint", "cm.yaml"]).exit_code == 0
    (repo / "sub/.hooklint.yaml").write_text("fail-on: error\n")
    assert runner.invoke(app, ["lint", "--baseline", str(tmp_path / "mine.json"), "cm.yaml"]).exit_code == 0


# --- class 2: the cache ------------------------------------------------------------------------------


@pytest.fixture
def runs(monkeypatch):
    """The argv of every kustomize build (:func:`hooklint.sources.bounded.run`)."""
    calls: list = []
    real = bounded.run

    def run(argv, *args, **kwargs):
        if "kustomize" in " ".join(argv) and "version" not in argv:
            calls.append(list(argv))
        return real(argv, *args, **kwargs)

    monkeypatch.setattr(bounded, "run", run)
    return calls


def _cm(name: str) -> str:
    return CM.replace("settings", name)


@needs_kustomize
def test_every_kind_of_input_change_renders_again(tmp_path, monkeypatch, runs):
    """Re-pointing ``app/base -> ../v1`` to ``../v2`` gave the cached rendering of v1 (and a silent
    pass in ``hooklint diff``): the key did not cover where a folder link points."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write(repo, {
        "v1/kustomization.yaml": "resources:\n- cm.yaml\n", "v1/cm.yaml": _cm("v1"),
        "v2/kustomization.yaml": "resources:\n- cm.yaml\n", "v2/cm.yaml": _cm("v2"),
        "app/kustomization.yaml": "resources:\n- base\n",
        "comps/one/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
                                        "resources:\n- cm.yaml\n", "comps/one/cm.yaml": _cm("one"),
    })  # fmt: skip
    (repo / "app/base").symlink_to("../v1")
    monkeypatch.chdir(repo)

    def names(options=None) -> list[str]:
        facts.reset()  # each rendering is a run of its own: a run takes the file system as it found it
        return sorted(d.text.split("name: ")[1].split("\n")[0] for d in render_kustomize("app", ".", options).documents)

    assert names() == ["v1"] and len(runs) == 1
    assert names() == ["v1"] and len(runs) == 1  # cached
    (repo / "app/base").unlink()
    (repo / "app/base").symlink_to("../v2")  # a link target
    assert names() == ["v2"] and len(runs) == 2
    (repo / "v2/cm.yaml").write_text(_cm("v2b"))  # a file's bytes
    assert names() == ["v2b"] and len(runs) == 3
    components = KustomizeOptions(components=("../comps/*",))  # an option
    assert names(components) == ["one", "v2b"] and len(runs) == 4
    write(repo, {"comps/two/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
                                                 "resources:\n- cm.yaml\n", "comps/two/cm.yaml": _cm("two")})  # fmt: skip
    assert names(components) == ["one", "two", "v2b"] and len(runs) == 5  # a file added to a listed folder
    monkeypatch.setattr(cache, "__version__", "99.0.0")  # hooklint's version
    assert names() == ["v2b"] and len(runs) == 6
    argv, renderer = find_kustomize(os.path.abspath("."))
    monkeypatch.setattr(kz, "find_kustomize", lambda *_: (argv, Renderer(renderer.name, "v9.9.9")))  # the renderer's
    assert names() == ["v2b"] and len(runs) == 7
    assert names() == ["v2b"] and len(runs) == 7


def test_the_key_covers_links_on_the_way_and_resolved_paths(tmp_path):
    write(tmp_path, {"v1/f.yaml": "same", "v2/f.yaml": "same"})
    (tmp_path / "base").symlink_to("v1")
    first = cache.input_key(["r"], [str(tmp_path / "base/f.yaml")], str(tmp_path))
    (tmp_path / "base").unlink()
    (tmp_path / "base").symlink_to("v2")
    assert cache.input_key(["r"], [str(tmp_path / "base/f.yaml")], str(tmp_path)) != first


# --- class 4: the network ------------------------------------------------------------------------------


def _client_pid(conn: socket.socket) -> int | None:
    """The process holding the other end of the loopback connection ``conn`` (Linux ``/proc``),
    or None when it cannot be told."""
    try:
        port = conn.getpeername()[1]
        with open("/proc/net/tcp", encoding="ascii") as handle:
            rows = [line.split() for line in handle.read().splitlines()[1:]]
        inode = next((r[9] for r in rows if r[1] == f"0100007F:{port:04X}"), None)
        if inode is None:
            return None
        wanted = f"socket:[{inode}]"
        for pid in (p for p in os.listdir("/proc") if p.isdigit()):
            try:
                if any(os.readlink(f"/proc/{pid}/fd/{fd}") == wanted for fd in os.listdir(f"/proc/{pid}/fd")):
                    return int(pid)
            except OSError:
                continue
    except OSError:
        return None
    return None


def _ours(pid: int | None) -> bool:
    """Whether ``pid`` is this test process or one of its descendants."""
    while pid and pid > 1:
        if pid == os.getpid():
            return True
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
                pid = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return False
    return False


class Listener:
    """A TCP listener on 127.0.0.1 counting connections; it accepts with a timeout and stops by
    itself after ``seconds``. ``only_ours``: count only connections from this process and its
    children (a well-known port such as 8080 also hears other programs of a shared machine)."""

    def __init__(self, port: int = 0, seconds: float = 120.0, only_ours: bool = False):
        self.only_ours = only_ours
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", port))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections: list[bytes] = []
        self.stop = threading.Event()
        self.seconds = seconds
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        waited = 0.0
        while not self.stop.is_set() and waited < self.seconds:
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                waited += 0.2
                continue
            except OSError:
                break
            if self.only_ours and not _ours(_client_pid(conn)):
                conn.close()
                continue
            conn.settimeout(1)
            try:
                self.connections.append(conn.recv(200) or b"(connected)")
            except OSError:
                self.connections.append(b"(connected)")
            conn.close()
        self.sock.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)


@pytest.fixture
def listeners():
    """One listener on a free port, and one on 8080 (kubectl's cluster when it has no kubeconfig)
    when that port is free."""
    started = [Listener()]
    try:
        started.append(Listener(8080, only_ours=True))
    except OSError:
        pass
    yield started
    for listener in started:
        listener.close()


def hostile_kustomizations(port: int) -> dict[str, str]:
    url = f"http://127.0.0.1:{port}"
    return {
        "case-folded keys": f"Resources:\n- cm.yaml\nrEsources:\n- {url}/x.yaml\n",
        "a case-folded key alone": f"rEsources:\n- {url}/x.yaml\n",
        "Go's folding of s (U+017F)": f"re\u017fources:\n- {url}/x.yaml\n",
        "url-shaped local folder": f"resources:\n- {url}/x.yaml\n",
        "upper-case scheme": f"resources:\n- HTTP://127.0.0.1:{port}/x.yaml\n",
        "https": f"resources:\n- https://127.0.0.1:{port}/org/repo//base?ref=v1\n",
        "git::": f"resources:\n- git::http://127.0.0.1:{port}/org/repo.git//base\n",
        "ssh://": f"resources:\n- ssh://git@127.0.0.1:{port}/org/repo.git\n",
        "git@": "resources:\n- git@127.0.0.1:org/repo.git\n",
        "github.com/": "resources:\n- github.com/org/repo/base\n",
        "file://": "resources:\n- file:///srv/repo.git//base\n",
        "components": f"resources:\n- cm.yaml\ncomponents:\n- {url}/comp\n",
        "patch path": f"resources:\n- cm.yaml\npatches:\n- path: {url}/p.yaml\n",
        "case-folded patch path": f"resources:\n- cm.yaml\npatches:\n- Path: {url}/p.yaml\n",
        "generator file": f"resources:\n- cm.yaml\nconfigMapGenerator:\n- name: g\n  files:\n  - k={url}/f\n",
        "openapi": f"resources:\n- cm.yaml\nopenapi:\n  path: {url}/schema.json\n",
        "crds": f"resources:\n- cm.yaml\ncrds:\n- {url}/crd.yaml\n",
        "configurations": f"resources:\n- cm.yaml\nconfigurations:\n- {url}/c.yaml\n",
        "transformers": f"resources:\n- cm.yaml\ntransformers:\n- {url}/t.yaml\n",
        "a builtin transformer's own path": f"resources:\n- cm.yaml\ntransformers:\n- |\n  apiVersion: builtin\n"
        f"  kind: PatchTransformer\n  metadata:\n    name: p\n  path: {url}/p.yaml\n  target:\n    kind: ConfigMap\n",
        "a builtin generator's own file": f"resources:\n- cm.yaml\ngenerators:\n- |\n  apiVersion: builtin\n"
        f"  kind: ConfigMapGenerator\n  metadata:\n    name: g\n  files:\n  - k={url}/f\n",
    }


def _local_lookalikes(app_dir: Path, text: str) -> None:
    """A local file or folder at every entry's path as the file system reads it (``http:`` then
    ``127.0.0.1:8766`` ...), so that no entry can pass for remote merely by not existing."""
    for line in text.splitlines():
        value = line.split("- ", 1)[-1].split(": ", 1)[-1].split("k=", 1)[-1].strip()
        if "/" in value and not value.startswith("/"):
            path = Path(os.path.normpath(app_dir / value.split("?")[0]))
            if path.is_relative_to(app_dir.parent):
                path.parent.mkdir(parents=True, exist_ok=True)
                if not path.exists():
                    path.write_text(CM.replace("settings", "lookalike"))


@needs_kustomize
@pytest.mark.parametrize("netns", [True, False], ids=["netns-if-available", "environment-only"])
def test_no_hostile_kustomization_reaches_the_loopback(tmp_path, monkeypatch, listeners, netns):
    """Every entry kustomize would fetch is refused before kustomize runs, or left out of the copy
    it builds (a remote resource or component: issue 22's partial rendering), and kustomize itself
    (kubectl's dispatcher asks ``localhost:8080`` for a server version on every command) reaches
    no listener, with and without its own network namespace."""
    if not netns:
        monkeypatch.setenv("HOOKLINT_NO_NETNS", "1")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    monkeypatch.chdir(repo)
    refused = {}
    for name, text in hostile_kustomizations(listeners[0].port).items():
        folder = repo / name.replace(" ", "-").replace("/", "_").replace(":", "_")
        write(folder, {"kustomization.yaml": text, "cm.yaml": CM})
        _local_lookalikes(folder, text)
        try:
            refused[name] = bool(render_kustomize(folder.name, ".").omitted)  # left out, the rest rendered
        except RenderError as error:
            refused[name] = error.needs_network or "kustomize matches kustomization keys in any case" in error.message
    write(repo, {"plain/kustomization.yaml": "resources:\n- cm.yaml\n", "plain/cm.yaml": CM})
    render_kustomize("plain", ".")  # kustomize runs: no cluster is asked
    for listener in listeners:
        listener.close()
        assert listener.connections == [], listener.port
    # kustomize reads an entry that is not http(s):// as a local file first (kustomize v5.5.0
    # accumulateResources; attacker trial 5): where the lookalike file exists, these five are local
    # files, rendered from the repository, and nothing is fetched (no listener was reached above)
    local_first = {"git::", "ssh://", "git@", "github.com/", "file://"}
    assert refused == {name: name not in local_first for name in hostile_kustomizations(0)}


@needs_kustomize
def test_the_case_folded_key_is_hl007_at_the_second_key(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write(repo, {"app/kustomization.yaml": "Resources:\n- cm.yaml\nrEsources:\n- http://127.0.0.1:9/x.yaml\n",
                 "app/cm.yaml": CM})  # fmt: skip
    monkeypatch.chdir(repo)
    result = runner.invoke(app, ["lint", "app"])
    assert result.output.splitlines()[0] == (
        "app/kustomization.yaml:3:1: error HL007 render-failed: Rendering failed: keys 'Resources' (line 1) and "
        "'rEsources' both set resources: kustomize matches kustomization keys in any case and keeps one of them by "
        "sorting, so hooklint cannot tell which it reads; keep one key. Argo CD's repo server fails the same way, so "
        "the application cannot sync; nothing of it is checked until it renders."
    )


def _spellings(word: str):
    """Every way Go's JSON decoder still reads as ``word``: any case per letter, and U+017F for
    ``s``, U+212A for ``k``."""
    choices = []
    for c in word:
        options = [c.lower(), c.upper()] + (["\u017f"] if c == "s" else []) + (["\u212a"] if c == "k" else [])
        choices.append(st.sampled_from(options))
    return st.tuples(*choices).map("".join)


@given(st.sampled_from(["resources", "components", "patches", "bases", "crds", "helmCharts"]).flatmap(
    lambda w: st.tuples(st.just(w), _spellings(w))))  # fmt: skip
def test_every_spelling_go_reads_as_a_field_is_read_as_that_field(pair):
    field, spelling = pair
    assert go_fold(spelling) == go_fold(field)
    assert list(canonical({spelling: ["x"]})) == [field]


@needs_kustomize
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(_spellings("resources"), st.booleans())
def test_no_spelling_of_resources_lets_a_url_through(spelling, with_plain):
    top = Path(tempfile.mkdtemp(prefix="spelling-"))
    listener = Listener(seconds=60)
    try:
        text = ("resources:\n- cm.yaml\n" if with_plain and spelling != "resources" else "")
        text += f"{spelling}:\n- http://127.0.0.1:{listener.port}/x.yaml\n"
        write(top, {".git/HEAD": "", "app/kustomization.yaml": text, "app/cm.yaml": CM})
        try:  # left out of the copy (issue 22), or refused
            assert render_kustomize(str(top / "app"), str(top)).omitted
        except RenderError as error:
            assert error.needs_network or "any case" in error.message
    finally:
        listener.close()
        subprocess.run(["rm", "-rf", str(top)], check=False)
    assert listener.connections == []


@pytest.mark.parametrize("entry, remote_file, repo_spec", [
    ("http:/127.0.0.1:8766/x.yaml", True, False),
    ("http://127.0.0.1:8766/x.yaml", True, False),
    ("HtTpS://example.com/a/b", True, True),
    ("git::https://github.com/org/repo", False, True),
    ("github.com/org/repo//base?ref=v1", False, True),
    ("GitHub.com:org/repo", False, True),
    ("git@gitlab.com:org/repo.git", False, True),
    ("ssh://git@host/org/repo", False, True),
    ("file:///srv/repo", False, True),
    ("https://dev.azure.com/org/project/_git/repo/base", True, True),
    ("base", False, False),
    ("../base", False, False),
    ("/abs/github.com/org/repo", False, False),
    ("github.com", False, False),
    ("user@host", False, False),
    ("https://host/org/repo//../../x", True, False),
    ("oci://ghcr.io/acme/bundle", False, False),
])  # fmt: skip
def test_remote_entries_are_recognised_as_kustomize_recognises_them(entry, remote_file, repo_spec):
    """Cases from kustomize v5.5.0's ``fileloader_test.go`` and ``repospec_test.go``."""
    assert (is_remote_file(entry), is_repo_spec(entry)) == (remote_file, repo_spec)


# --- class 5: programs of the repository -------------------------------------------------------------------


def _marker_scripts(folder: Path, marker: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("kustomize", "kubectl", "helm", "git", "unshare"):
        script = folder / name
        script.write_text(f"#!/bin/sh\necho {name} >> {marker}\nexit 1\n")
        script.chmod(0o755)


@pytest.mark.parametrize("path", [":{PATH}", ".:{PATH}", "bin:{PATH}", "{REPO}/bin:{PATH}", "{PATH}:"])
def test_no_program_of_the_repository_is_run_whatever_path_holds(tmp_path, path):
    """With an empty element in PATH (a common shell mistake) the repository's own ``./kustomize``
    was run: the shell's lookup takes an empty element, ``.`` or a relative one for the current
    folder. hooklint looks only through absolute folders outside the repository."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    marker = tmp_path / "MARKER"
    _marker_scripts(repo, marker)
    _marker_scripts(repo / "bin", marker)
    write(repo, {"app/kustomization.yaml": "resources:\n- cm.yaml\n", "app/cm.yaml": CM,
                 "chart/Chart.yaml": "apiVersion: v2\nname: chart\nversion: 0.1.0\n",
                 "chart/templates/cm.yaml": CM})  # fmt: skip
    clean = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if p and os.path.isabs(p))
    env = {**os.environ, "PATH": path.replace("{PATH}", clean).replace("{REPO}", str(repo)),
           "HOOKLINT_CACHE_DIR": "off", "PYTHONPATH": str(Path(hooklint.__file__).parents[1])}  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "hooklint", "lint", "app", "chart"], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert not marker.exists(), marker.read_text()
    assert done.returncode in (0, 1), done.stderr


@pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0, reason="needs git")
@pytest.mark.parametrize("path", ["bin:{PATH}", "{REPO}/bin:{PATH}", "{LINK}:{PATH}", ":{PATH}"])
def test_diff_never_runs_a_git_of_the_repository(tmp_path, path):
    """The attacker's case: ``PATH=bin:$PATH hooklint diff HEAD .`` ran the pull request's
    ``bin/git`` (renderers were looked up outside the repository, git was not). Through a folder
    outside that links into the repository too."""
    repo = tmp_path / "repo"
    marker = tmp_path / "MARKER"
    write(repo, {"app/kustomization.yaml": "resources:\n- cm.yaml\n", "app/cm.yaml": CM})
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=a"]
    for step in (["init", "-q", "."], ["add", "-A"], ["commit", "-qm", "v1"]):
        subprocess.run([*git, *step], cwd=repo, check=True, capture_output=True)
    _marker_scripts(repo, marker)
    _marker_scripts(repo / "bin", marker)
    (tmp_path / "link").symlink_to(repo / "bin")
    clean = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if p and os.path.isabs(p))
    env = {**os.environ, "HOOKLINT_CACHE_DIR": "off", "PYTHONPATH": str(Path(hooklint.__file__).parents[1]),
           "PATH": path.replace("{PATH}", clean).replace("{REPO}", str(repo)).replace("{LINK}", str(tmp_path / "link"))}
    done = subprocess.run([sys.executable, "-m", "hooklint", "diff", "HEAD", "app"], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert not marker.exists(), marker.read_text()
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith("hooklint diff HEAD -> the working tree: 0 new findings")


def test_program_lookup_skips_empty_relative_and_repository_elements(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    _marker_scripts(repo / "bin", tmp_path / "MARKER")
    outside = tmp_path / "tools"
    _marker_scripts(outside, tmp_path / "MARKER")
    (repo / "linked").symlink_to(repo / "bin")
    monkeypatch.chdir(repo)
    monkeypatch.setenv("PATH", os.pathsep.join(["", ".", "bin", str(repo / "bin"), str(repo / "linked"), str(outside)]))
    assert sandbox.program_dirs(str(repo)) == [str(outside)]
    assert sandbox.find_program("kustomize", str(repo)) == str(outside / "kustomize")
    assert sandbox.program_path(str(repo)) == str(outside)
    (outside / "kubectl").unlink()
    (outside / "kubectl").symlink_to(repo / "bin" / "kubectl")  # outside, but the program is the repository's
    assert sandbox.find_program("kubectl", str(repo)) is None


def test_the_child_environment_reaches_no_cluster_and_has_no_proxy(tmp_path, monkeypatch):
    for name in ("HTTPS_PROXY", "http_proxy", "NO_PROXY", "KUBECONFIG", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "set")
    env = sandbox.child_environment(str(tmp_path / "home"), None)
    assert not [k for k in env if "proxy" in k.lower()] and "AWS_SECRET_ACCESS_KEY" not in env
    assert env["KUBECONFIG"] == str(tmp_path / "home" / "kubeconfig")
    assert "server: https://127.0.0.1:0\n" in Path(env["KUBECONFIG"]).read_text()
    assert env["HOME"] == str(tmp_path / "home")


def test_a_helm_subchart_linked_from_outside_is_refused_before_its_chart_yaml_is_read(tmp_path, monkeypatch):
    from hooklint.sources.render.helm import HelmOptions, render_helm

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write(tmp_path, {"outside/Chart.yaml": f"apiVersion: v2\nname: {SECRET}\nversion: 0.1.0\n",
                     "outside/templates/s.yaml": SENTINEL_SECRET})  # fmt: skip
    write(repo, {"chart/Chart.yaml": "apiVersion: v2\nname: chart\nversion: 0.1.0\n", "chart/templates/cm.yaml": CM})
    (repo / "chart/charts").mkdir()
    (repo / "chart/charts/sub").symlink_to("../../../outside")
    monkeypatch.chdir(repo)
    caught: dict = {}

    def run():
        try:
            render_helm("chart", ".", HelmOptions.from_application(None, "chart", None))
        except RenderError as error:
            caught["error"] = error

    assert opened_inside(tmp_path / "outside", run) == []
    assert caught["error"].message == "illegal filepath in symlink chart/charts/sub: it leaves the repository"


@pytest.mark.parametrize("pattern, message", [
    ("../../../*", "kustomize.components entry '../../../*' is outside the repository, and a render sees only the "
                   "repository"),
    ("*/../../../x", "kustomize.components entry '*/../../../x' has '..' after a wildcard: name the folder it means"),
    ("../out/*", "illegal filepath in symlink: out -> ../outside leaves the repository (Argo CD refuses "
                 "repositories with out-of-bounds symlinks)"),
])  # fmt: skip
def test_an_applications_component_glob_lists_nothing_outside_the_repository(tmp_path, monkeypatch, pattern, message):
    """``kustomize edit add component`` globs the Application's ``kustomize.components``: hooklint
    checks the folder the glob lists before listing it."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    plant_sentinel(tmp_path / "outside")
    write(repo, {"app/kustomization.yaml": "resources:\n- cm.yaml\n", "app/cm.yaml": CM})
    (repo / "out").symlink_to("../outside")
    monkeypatch.chdir(repo)
    caught: dict = {}

    def run():
        try:
            render_kustomize("app", ".", KustomizeOptions(components=(pattern,)))
        except RenderError as error:
            caught["error"] = error

    assert opened_inside(tmp_path / "outside", run) == []
    assert caught["error"].message == message


@pytest.mark.parametrize("kustomization", [
    "resources:\n- cm.yaml\ntransformers:\n- fifo.yaml\n",
    "resources:\n- cm.yaml\n- fifo.yaml\n",
    "resources:\n- cm.yaml\npatches:\n- path: fifo.yaml\n",
])  # fmt: skip
def test_a_fifo_among_a_kustomizations_inputs_is_refused_without_blocking(tmp_path, kustomization):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write(repo, {"app/kustomization.yaml": kustomization, "app/cm.yaml": CM})
    os.mkfifo(repo / "app/fifo.yaml")
    done = subprocess.run([sys.executable, "-m", "hooklint", "lint", "app"], cwd=repo, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "HOOKLINT_CACHE_DIR": "off",
                                            "PYTHONPATH": str(Path(hooklint.__file__).parents[1])})  # fmt: skip
    assert done.returncode == 1
    assert "names app/fifo.yaml, which is a FIFO, not a regular file: not read" in done.stdout


@pytest.mark.parametrize("name", [".hooklint.yaml", "pyproject.toml"])
def test_a_configuration_found_in_the_repository_that_links_outside_it_is_refused_unread(tmp_path, monkeypatch, name):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (tmp_path / "elsewhere.txt").write_text(f"[tool.hooklint]\nselect = ['{SECRET}']\n")
    (repo / name).symlink_to(tmp_path / "elsewhere.txt")
    write(repo, {"cm.yaml": CM})
    monkeypatch.chdir(repo)
    holder: dict = {}
    read = opened_inside(tmp_path / "elsewhere.txt", lambda: holder.update(result=runner.invoke(app, ["lint", "cm.yaml"])))
    assert read == []
    assert (holder["result"].exit_code, holder["result"].output) == (2, (
        f"hooklint: error: {repo}/{name}: the configuration is a symbolic link to {tmp_path}/elsewhere.txt, outside "
        "its repository: hooklint reads no file outside the repository (name a configuration with --config)\n"))


HOOK_JOB = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n"
            "    argocd.argoproj.io/hook: PreSync\nspec:\n  template:\n    spec:\n      containers:\n"
            "      - name: m\n        image: nginx\n")  # fmt: skip


@needs_kustomize
@pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0, reason="needs git")
def test_diff_of_a_change_that_only_re_points_a_folder_link_is_not_a_silent_pass(tmp_path, monkeypatch):
    """The issue's case: with the cache warm from the base revision, ``hooklint diff`` said "0 new
    findings, no plan change"; with the cache off it showed 7."""
    repo = tmp_path / "repo"
    write(repo, {"v1/kustomization.yaml": "resources:\n- job.yaml\n", "v1/job.yaml": CM,
                 "v2/kustomization.yaml": "resources:\n- job.yaml\n", "v2/job.yaml": HOOK_JOB,
                 "app/kustomization.yaml": "resources:\n- base\n"})  # fmt: skip
    (repo / "app/base").symlink_to("../v1")
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=a"]
    for step in (["init", "-q", "."], ["add", "-A"], ["commit", "-qm", "v1"]):
        subprocess.run([*git, *step], cwd=repo, check=True, capture_output=True)
    monkeypatch.chdir(repo)
    assert runner.invoke(app, ["lint", "app"]).exit_code == 0  # warms the cache with v1's rendering
    (repo / "app/base").unlink()
    (repo / "app/base").symlink_to("../v2")
    result = runner.invoke(app, ["diff", "HEAD", "app"])
    assert result.output.splitlines()[0] == (
        "hooklint diff HEAD -> the working tree: 7 new findings, 0 fixed, 0 unchanged; plan changes in 1 application")


def test_without_a_renderer_outside_the_repository_hl008_names_the_ones_it_will_not_run(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    _marker_scripts(repo / "bin", tmp_path / "MARKER")
    write(repo, {"app/kustomization.yaml": "resources:\n- cm.yaml\n", "app/cm.yaml": CM})
    monkeypatch.chdir(repo)
    monkeypatch.setenv("PATH", os.pathsep.join(["bin", str(repo / "bin")]))
    with pytest.raises(kz.RendererUnavailable) as error:
        render_kustomize("app", ".")
    assert error.value.message == (
        f"kustomize is needed to render this kustomization (bin/kustomize, {repo}/bin/kustomize, bin/kubectl, "
        f"{repo}/bin/kubectl on PATH: in the repository or a relative PATH element, never run): install kustomize "
        "(https://kubectl.docs.kubernetes.io/installation/kustomize/) or kubectl"
    )
    assert not (tmp_path / "MARKER").exists()


def test_the_file_system_root_never_bounds_a_run(tmp_path, monkeypatch):
    """The current folder bounds a run outside Git when it holds what is linted, but ``/``: no
    repository is checked out there (attacker trial 46, 4: run from ``/``, a container's default
    folder, a chart's ``files/x`` linking to ``/etc/hostname`` had its bytes printed by ``fail``)."""
    from hooklint.files import bounds, top_outside_git
    from hooklint.sources.repository.tree import repository_root

    assert (bounds("/"), bounds("/tmp"), bounds(str(tmp_path))) == (False, True, True)
    (tmp_path / "repo/app").mkdir(parents=True)
    monkeypatch.chdir("/")
    facts.reset()
    app_folder = str(tmp_path / "repo/app")
    assert repository_root(app_folder, str(tmp_path / "repo")) == str(tmp_path / "repo")
    assert repository_root(app_folder) == app_folder
    assert top_outside_git(app_folder, [str(tmp_path / "repo")]) == str(tmp_path / "repo")
    monkeypatch.chdir(tmp_path)
    facts.reset()
    assert repository_root(app_folder) == top_outside_git(app_folder, []) == str(tmp_path)


@pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")
def test_a_chart_linted_from_the_file_system_root_reads_nothing_outside_its_folder(tmp_path, monkeypatch):
    """The run of attacker trial 46, 4, with a sentinel outside the chart: HL007 naming the link,
    the sentinel never printed."""
    (tmp_path / "secret.txt").write_text("SENTINEL-46-CONTENT\n")
    write(tmp_path / "chart", {"Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
                               "templates/cm.yaml": '{{ fail (.Files.Get "files/x") }}\n'})  # fmt: skip
    (tmp_path / "chart/files").mkdir()
    os.symlink(tmp_path / "secret.txt", tmp_path / "chart/files/x")
    monkeypatch.chdir("/")
    result = CliRunner().invoke(app, ["lint", "--no-cache", str(tmp_path / "chart")])
    assert result.exit_code == 1
    assert "SENTINEL-46" not in result.output
    assert result.output.startswith(
        f"{tmp_path}/chart/Chart.yaml:1:1: error HL007 render-failed: Rendering failed: illegal filepath in "
        f"symlink {tmp_path}/chart/files/x: it leaves the repository.")


@pytest.mark.parametrize("named", [[], ["/"], ["/tmp/.."]])
def test_the_file_system_root_is_never_walked(named, monkeypatch):
    """Attacker trial 47, F9: ``cd / && hooklint lint`` walked every folder of the machine, /proc
    too, until its deadline. The root is no repository: an input error, exit 2, nothing walked."""
    monkeypatch.chdir("/")
    result = CliRunner().invoke(app, ["lint", "--no-cache", *named])
    shown = named[0] if named else "."
    assert (result.exit_code, result.output) == (2, f"hooklint: error: {os.path.normpath(shown)}: the file system's root: "
                                                    "no repository is checked out there; name the repository's folder\n")
