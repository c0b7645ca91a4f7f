"""How Argo CD types a folder (attacker trial 7, F8): ``util/app/discovery/discovery.go`` ``Discover``
(v3.5.1, lines 50-69) walks the folder in lexical order; a file whose name ends with ``Chart.yaml``
(``strings.HasSuffix``) makes its folder Helm, one named ``kustomization.yaml``,
``kustomization.yml`` or ``Kustomization`` (``kustomize.IsKustomization``) Kustomize, the last one
wins; ``AppType`` (line 73) reads only ``apps["."]``, the folder's own files. hooklint's
``source_type``, ``chart_of`` and the walk's treatment of a folder as a chart follow it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hooklint.catalog import load_catalog
from hooklint.config import Config
from hooklint.pipeline import lint_paths
from hooklint.sources.render.helm import find_helm
from hooklint.sources.repository import facts
from hooklint.sources.repository.tree import DIRECTORY, HELM, KUSTOMIZE, chart_of, source_type, type_of_names
from tests.manifests import CLEAN_HOOK_JOB

CHART = "apiVersion: v2\nname: app\nversion: 0.1.0\n"
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata: {a: b}\n"
needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")


@pytest.mark.parametrize(("names", "expected"), [
    (["Chart.yaml"], (HELM, "Chart.yaml")),
    (["kustomization.yaml"], (KUSTOMIZE, "kustomization.yaml")),
    # discovery.go:62-67, in walk order: kustomization.yaml ('k') comes after Chart.yaml ('C'): Kustomize
    (["Chart.yaml", "kustomization.yaml"], (KUSTOMIZE, "kustomization.yaml")),
    (["kustomization.yaml", "Chart.yaml"], (KUSTOMIZE, "kustomization.yaml")),  # the order of the listing is not
    (["Chart.yaml", "Kustomization"], (KUSTOMIZE, "Kustomization")),  # 'K' > 'C'
    # strings.HasSuffix(base, "Chart.yaml") (discovery.go:62): old-Chart.yaml ('o' > 'k') is last: Helm
    (["Chart.yaml", "kustomization.yaml", "old-Chart.yaml"], (HELM, "Chart.yaml")),
    (["Kustomization", "values-Chart.yaml"], (HELM, "Chart.yaml")),  # Chart.yaml missing: helm template fails
    (["kustomization.yaml", "kustomizationChart.yaml"], (HELM, "Chart.yaml")),  # '.' < 'C'
    (["Chart.yaml", "a-Chart.yaml", "kustomization.yml"], (KUSTOMIZE, "kustomization.yml")),  # 'a' < 'k'
    # kustomize.IsKustomization is exact; findKustomizeFile takes the first of its names present
    (["kustomization.yml", "Kustomization", "kustomization.yaml"], (KUSTOMIZE, "kustomization.yaml")),
    (["Kustomization.yaml", "kustomization.YAML", "chart.yaml", "Chart.yml", "Chart.yaml.bak"], (DIRECTORY, None)),
    ([], (DIRECTORY, None)),
])  # fmt: skip
def test_the_last_name_of_the_walk_decides_as_in_argocd_discover(names, expected):
    assert type_of_names(names) == expected


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


@pytest.mark.parametrize(("files", "expected"), [
    ({"app/Chart.yaml": CHART, "app/kustomization.yaml": "resources: [cm.yaml]\n"}, KUSTOMIZE),
    ({"app/Chart.yaml": CHART, "app/kustomization.yaml": "", "app/old-Chart.yaml": CHART}, HELM),
    # AppType reads apps["."] only (discovery.go:78): a subfolder's Chart.yaml types that subfolder
    ({"app/kustomization.yaml": "", "app/sub/Chart.yaml": CHART, "app/sub/z-Chart.yaml": CHART}, KUSTOMIZE),
    ({"app/cm.yaml": CM, "app/sub/Chart.yaml": CHART}, DIRECTORY),
    ({"app/cm.yaml": CM, "app/templates/kustomization.yaml": ""}, DIRECTORY),
])  # fmt: skip
def test_source_type_of_a_folder(tmp_path, monkeypatch, files, expected):
    monkeypatch.chdir(tmp_path)
    _tree(tmp_path, files)
    facts.reset()
    assert source_type("app")[0] == expected


def test_a_link_to_a_folder_named_like_a_chart_is_a_file_to_filepath_walk(tmp_path, monkeypatch):
    """``filepath.Walk`` looks at each entry with ``lstat``: a symbolic link is never ``IsDir`` (discovery.go:55)."""
    monkeypatch.chdir(tmp_path)
    _tree(tmp_path, {"app/kustomization.yaml": "", "elsewhere/cm.yaml": CM})
    os.symlink("../elsewhere", tmp_path / "app" / "z-Chart.yaml")
    os.mkdir(tmp_path / "app" / "zz-Chart.yaml")  # a real folder: not looked at
    facts.reset()
    assert source_type("app") == (HELM, os.path.join("app", "Chart.yaml"))
    os.remove(tmp_path / "app" / "z-Chart.yaml")
    facts.reset()
    assert source_type("app") == (KUSTOMIZE, os.path.join("app", "kustomization.yaml"))


def test_chart_of_follows_the_same_rule(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    _tree(tmp_path, {"app/Chart.yaml": CHART, "app/kustomization.yaml": "", "app/templates/job.yaml": "x: 1\n"})
    facts.reset()
    assert chart_of("app/templates/job.yaml") is None  # a kustomize folder: its templates/ is a folder
    (tmp_path / "app" / "old-Chart.yaml").write_text(CHART)
    facts.reset()
    assert chart_of("app/templates/job.yaml") == "app"


HOOK_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  template:
    spec:
      containers:
      - name: m
        image: busybox:latest
      restartPolicy: Never
"""


@pytest.fixture()
def outside(tmp_path, monkeypatch):
    """``outer/Chart.yaml`` above ``outer/r/job.yaml``, no Git work tree, and the current folder
    elsewhere: what is linted outside Git is read in the current folder when it holds it, else in
    the named path's folder (README, "Where the cache folder is"), never above it."""
    _tree(tmp_path, {"outer/Chart.yaml": CHART, "outer/r/job.yaml": HOOK_JOB, "elsewhere/x": ""})
    monkeypatch.chdir(tmp_path / "elsewhere")
    facts.reset()
    return tmp_path / "outer"


def test_chart_of_looks_no_higher_than_where_the_run_reads(outside):
    """A chart is looked for up to the Git work tree, else the current folder when it holds the
    path, else the path the run lints: a ``Chart.yaml`` in a folder above it (``/tmp/Chart.yaml``,
    anybody's to write) is outside, and never listed."""
    from hooklint.files import linting

    job = str(outside / "r" / "job.yaml")
    linting([str(outside / "r")])
    assert chart_of(job) is None
    linting([job])
    facts.reset()
    assert chart_of(job) is None
    linting([str(outside)])  # the chart's folder is linted: the file is in it
    facts.reset()
    assert chart_of(job) == str(outside)


def test_a_file_named_outside_git_and_the_current_folder_is_linted_under_a_chart_above_it(outside):
    """Found by measuring the bench: ``hooklint lint /tmp/q/r/job.yaml`` from another folder, no Git,
    with a ``/tmp/q/Chart.yaml``, linted the chart at ``/tmp/q`` in its place (no templates: nothing)
    and passed, exit 0: the hook Job was never checked. Its folder is where the run reads."""
    from typer.testing import CliRunner

    from hooklint.cli import app

    job = str(outside / "r" / "job.yaml")
    result = CliRunner().invoke(app, ["lint", "-f", "json", "--no-cache", job])
    assert result.exit_code == 1, result.output
    assert [(f["path"], f["line"], f["column"], f["rule_id"]) for f in json.loads(result.stdout)["findings"]] == [
        (job, 6, 30, "HL305"), (job, 7, 1, "HL201"), (job, 7, 1, "HL202"), (job, 9, 5, "HL103"),
        (job, 9, 5, "HL104"), (job, 12, 16, "HL102")]


FIXTURE = Path("/work/attack7/f/chartsuffix")
EVIL_JOB = """\
{{- if true }}
apiVersion: batch/v1
kind: Job
metadata :
  name: evil
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 100
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: runner
      automountServiceAccountToken: false
      hostPID: true
      containers:
      - name: c
        image: registry.example.com/x@sha256:0000000000000000000000000000000000000000000000000000000000000000
        securityContext:
          privileged: true
{{- end }}
"""


@needs_helm
def test_a_chart_typed_helm_by_old_chart_yaml_is_rendered_with_helm(tmp_path, monkeypatch):
    """Trial 7 F8 (/work/attack7/f/chartsuffix): Chart.yaml + kustomization.yaml + old-Chart.yaml is a
    Helm source to Argo CD; hooklint rendered the harmless kustomization and skipped the template
    (``metadata :``) as unrelated YAML: the privileged PreSync Job was never linted (exit 0)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    _tree(tmp_path, {"app/Chart.yaml": CHART, "app/old-Chart.yaml": CHART, "app/kustomization.yaml": "resources:\n- cm.yaml\n",
                     "app/cm.yaml": CM, "app/templates/job.yaml": EVIL_JOB})  # fmt: skip
    result = lint_paths(["."], Config(), load_catalog(), plans=True)
    assert [(p.key, p.source_type) for p in result.plans] == [("app", "helm")]
    assert [(f.path, f.span.line, f.span.column, f.rule_id) for f in result.findings if f.severity == "error"] == [
        ("app/templates/job.yaml", 17, 7, "HL105"), ("app/templates/job.yaml", 22, 11, "HL105")]
    os.remove("app/old-Chart.yaml")  # the control: Kustomize, as Argo CD types it then
    result = lint_paths(["."], Config(), load_catalog(), plans=True)
    assert [(p.key, p.source_type) for p in result.plans] == [("app", "kustomize"), ("app/templates", "directory")]


@pytest.mark.skipif(not FIXTURE.is_dir(), reason="the attacker's fixture is not on this machine")
def test_the_fixture_has_the_same_files():
    """The test above is the fixture's tree, as written by the attacker."""
    assert (FIXTURE / "app" / "templates" / "job.yaml").read_text() == EVIL_JOB
    assert sorted(os.listdir(FIXTURE / "app")) == ["Chart.yaml", "cm.yaml", "kustomization.yaml", "old-Chart.yaml",
                                                   "templates"]  # fmt: skip


def test_the_walk_types_a_folder_by_the_same_rule_links_included(tmp_path, monkeypatch):
    """The walk stops at a chart (its Chart.yaml stands for it); a link to a folder named
    ``z-Chart.yaml`` is a file to ``filepath.Walk``, and the walk's listing answers ``source_type``."""
    from hooklint.sources.repository.tree import walk

    monkeypatch.chdir(tmp_path)
    _tree(tmp_path, {"app/Chart.yaml": CHART, "app/kustomization.yaml": "", "app/templates/job.yaml": CM,
                     "elsewhere/cm.yaml": CM})  # fmt: skip
    facts.reset()
    assert walk("app", []) == ["app/Chart.yaml", "app/kustomization.yaml", "app/templates/job.yaml"]
    os.symlink("../elsewhere", tmp_path / "app" / "z-Chart.yaml")
    facts.reset()
    assert walk("app", []) == ["app/Chart.yaml"]
    assert source_type("app") == (HELM, os.path.join("app", "Chart.yaml"))


def test_a_folder_typed_helm_without_chart_yaml_fails_as_argocd_does(tmp_path, monkeypatch):
    """Typed Helm by ``old-Chart.yaml`` alone: Argo CD's ``helm template`` of the folder fails, and
    the sync with it. HL007 at the missing Chart.yaml, naming the file that typed the folder (it was
    an input error, "app/Chart.yaml: no such file or directory", exit 2)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    _tree(tmp_path, {"app/old-Chart.yaml": CHART, "app/kustomization.yaml": "resources:\n- cm.yaml\n", "app/cm.yaml": CM})
    result = lint_paths(["."], Config(), load_catalog())
    assert result.errors == []
    assert [(f.path, f.span.line, f.span.column, f.rule_id, f.message) for f in result.findings] == [(
        "app/Chart.yaml", 1, 1, "HL007",
        "Rendering failed: Argo CD renders app/ with Helm (old-Chart.yaml ends with Chart.yaml), but it holds no "
        "Chart.yaml: helm template fails (Chart.yaml file is missing). Argo CD's repo server fails the same way, so "
        "the application cannot sync; nothing of it is checked until it renders.")]


#: The clean hook Job of tests.manifests, named by generateName (a chart renders it), its image a value
TEMPLATED_JOB = CLEAN_HOOK_JOB.split("---\n")[0].replace("  name: migrate\n", "  generateName: migrate-\n", 1).replace(
    "image: ghcr.io/acme/migrate:1.4.2", 'image: "{{ .Values.image }}"')


@needs_helm
@pytest.mark.parametrize(("here", "named", "shown"), [
    (".", "chart", "chart/templates/job.yaml"),
    (".", "chart/templates", "chart/templates/job.yaml"),
    (".", "chart/templates/job.yaml", "chart/templates/job.yaml"),
    ("chart/templates", ".", "../templates/job.yaml"),  # the chart's folder, as reached: ".."
])  # fmt: skip
def test_a_folder_helm_reads_as_its_charts_is_linted_as_part_of_its_chart(here, named, shown, tmp_path, monkeypatch):
    """Attacker trial 46, 3: ``hooklint lint chart/templates`` (and ``lint .`` there) linted the
    templates as written, a directory source: the image the values make ``busybox:latest`` was a
    template, unseen, exit 0. A folder of the chart's own (templates/) is linted as part of its
    chart, as a template named on its own is."""
    (tmp_path / ".git").mkdir()
    _tree(tmp_path, {"chart/Chart.yaml": CHART, "chart/values.yaml": "image: busybox:latest\n",
                     "chart/templates/job.yaml": TEMPLATED_JOB})  # fmt: skip
    monkeypatch.chdir(tmp_path / here)
    result = lint_paths([named], Config(), load_catalog(), plans=True)
    assert result.errors == []
    assert [(p.key, p.source_type) for p in result.plans] == [(os.path.normpath(os.path.join(os.path.relpath(tmp_path / "chart"))), "helm")]
    assert [(f.path, f.span.line, f.span.column, f.rule_id) for f in result.findings] == [
        (shown, 6, 5, "HL305"), (shown, 17, 9, "HL102")]


SUB_JOB = TEMPLATED_JOB.replace("      serviceAccountName:", "      hostPID: {{ .Values.hostPID }}\n      serviceAccountName:")


@needs_helm
@pytest.mark.parametrize("named", ["chart", "chart/charts", "chart/charts/sub", "chart/charts/sub/templates",
                                   "chart/charts/sub/templates/job.yaml"])  # fmt: skip
def test_a_subchart_named_is_rendered_with_its_parents_values(named, tmp_path, monkeypatch):
    """Attacker trial 47, F6: ``hooklint pre-commit chart/charts/sub/templates/job.yaml`` and ``lint
    chart/charts/sub`` rendered the subchart alone, with its own defaults (``hostPID: false``),
    while the parent's values (``sub: {hostPID: true}``) make its hook a privileged pod: exit 0. A
    subchart is linted as part of the outermost chart holding it in ``charts/``."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    _tree(tmp_path, {
        "chart/Chart.yaml": CHART.replace("name: app", "name: chart") + "dependencies:\n- name: sub\n  version: 0.1.0\n",
        "chart/values.yaml": "sub: {image: busybox:latest, hostPID: true}\n",
        "chart/charts/sub/Chart.yaml": CHART.replace("name: app", "name: sub"),
        "chart/charts/sub/values.yaml": "image: ghcr.io/acme/m:1.2.3\nhostPID: false\n",
        "chart/charts/sub/templates/job.yaml": SUB_JOB,
    })  # fmt: skip
    result = lint_paths([named], Config(), load_catalog(), plans=True)
    assert result.errors == []
    assert [(p.key, p.source_type) for p in result.plans] == [("chart", "helm")]
    job = "chart/charts/sub/templates/job.yaml"
    assert [(f.path, f.span.line, f.span.column, f.rule_id) for f in result.findings] == [
        (job, 6, 5, "HL305"), (job, 12, 7, "HL105"), (job, 18, 9, "HL102")]


@needs_helm
@pytest.mark.parametrize("named", ["sub", "sub/templates", "sub/templates/job.yaml", "umbrella"])
def test_a_chart_an_umbrella_takes_as_a_file_dependency_is_rendered_with_it(named, tmp_path, monkeypatch):
    """Attacker trial 47, F7: ``hooklint pre-commit sub/templates/job.yaml`` rendered ``sub`` alone
    (its defaults: ``hostPID: false``), while ``umbrella/Chart.yaml`` takes it as ``file://../sub``
    and its values make the hook privileged; exit 0. A chart of the repository that takes a chart
    of the run as a ``file://`` dependency is rendered too."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    _tree(tmp_path, {
        "umbrella/Chart.yaml": CHART.replace("name: app", "name: umbrella")
        + "dependencies:\n- name: sub\n  version: 0.1.0\n  repository: file://../sub\n",
        "umbrella/values.yaml": "sub: {image: busybox:latest, hostPID: true}\n",
        "sub/Chart.yaml": CHART.replace("name: app", "name: sub"),
        "sub/values.yaml": "image: ghcr.io/acme/m:1.2.3\nhostPID: false\n",
        "sub/templates/job.yaml": SUB_JOB,
    })  # fmt: skip
    result = lint_paths([named], Config(), load_catalog(), plans=True)
    assert result.errors == []
    assert sorted(p.key for p in result.plans) == (["umbrella"] if named == "umbrella" else ["sub", "umbrella"])
    job = "sub/templates/job.yaml"
    assert [(f.path, f.span.line, f.span.column, f.rule_id) for f in result.findings] == [
        (job, 6, 5, "HL305"), (job, 12, 7, "HL105"), (job, 18, 9, "HL102")]


UMBRELLA_WAYS = {  # how an umbrella chart renders sub/ from beside it (attacker trial 48, F5, F6)
    "escaped file://": ("apiVersion: v2\nname: umbrella\nversion: 0.1.0\ndependencies:\n- name: sub\n  version: 0.1.0\n"
                        '  repository: "file\\x3a//../sub"\n', {}),
    "Dependencies": ("apiVersion: v2\nname: umbrella\nversion: 0.1.0\nDependencies:\n- name: sub\n  version: 0.1.0\n"
                     "  repository: file://../sub\n", {}),
    "requirements.yaml": ("apiVersion: v1\nname: umbrella\nversion: 0.1.0\n", {
        "umbrella/requirements.yaml": "dependencies:\n- name: sub\n  version: 0.1.0\n  repository: file://../sub\n"}),
    "a link in charts/": ("apiVersion: v2\nname: umbrella\nversion: 0.1.0\ndependencies:\n- name: sub\n  version: 0.1.0\n",
                          "link"),
}


@needs_helm
@pytest.mark.parametrize("way", list(UMBRELLA_WAYS))
def test_every_way_an_umbrella_renders_a_chart_from_beside_it_is_followed(way, tmp_path, monkeypatch):
    """Attacker trial 48, F5 and F6: the umbrella was looked for only as the bytes ``file://`` under
    the key ``dependencies`` of its Chart.yaml; an escaped spelling, ``Dependencies`` (Helm's Go
    JSON decoder matches any case), an ``apiVersion: v1`` chart's requirements.yaml, and a link in
    its ``charts/`` (Helm's loader follows it) each left ``pre-commit sub/templates/job.yaml`` a
    pass with sub's own defaults."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    chart, extra = UMBRELLA_WAYS[way]
    _tree(tmp_path, {
        "umbrella/Chart.yaml": chart, "umbrella/values.yaml": "sub: {image: busybox:latest, hostPID: true}\n",
        "sub/Chart.yaml": CHART.replace("name: app", "name: sub"),
        "sub/values.yaml": "image: ghcr.io/acme/m:1.2.3\nhostPID: false\n", "sub/templates/job.yaml": SUB_JOB,
        **(extra if isinstance(extra, dict) else {}),
    })  # fmt: skip
    if extra == "link":
        (tmp_path / "umbrella/charts").mkdir()
        os.symlink("../../sub", tmp_path / "umbrella/charts/sub")
    result = lint_paths(["sub/templates/job.yaml"], Config(), load_catalog(), plans=True)
    assert sorted(p.key for p in result.plans) == ["sub", "umbrella"]
    assert {(f.rule_id, f.span.line) for f in result.findings if f.rule_id in ("HL102", "HL105")} == {
        ("HL105", 12), ("HL102", 18)}


@needs_helm
def test_the_application_of_an_umbrella_gives_its_values_to_a_chart_named_beside_it(tmp_path, monkeypatch):
    """Attacker trial 48, F4: the umbrella that takes ``sub`` as ``file://../sub`` was brought into
    ``pre-commit sub/templates/job.yaml`` as a plain chart, without the Helm values of the
    repository's Application deploying it (``valuesObject: {sub: {hostPID: true}}``): a pass. The
    Application's rendering is the run's."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git/config").write_text('[remote "origin"]\n\turl = https://github.com/acme/gitops.git\n')
    _tree(tmp_path, {
        "umbrella/Chart.yaml": UMBRELLA_WAYS["Dependencies"][0].replace("Dependencies", "dependencies"),
        "umbrella/values.yaml": "sub: {}\n",
        "sub/Chart.yaml": CHART.replace("name: app", "name: sub"),
        "sub/values.yaml": "image: ghcr.io/acme/m:1.2.3\nhostPID: false\n", "sub/templates/job.yaml": SUB_JOB,
        "apps/u.yaml": ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: u, namespace: argocd}\n"
                        "spec:\n  project: default\n  destination: {server: https://kubernetes.default.svc, namespace: u}\n"
                        "  source:\n    repoURL: https://github.com/acme/gitops.git\n    path: umbrella\n"
                        "    helm:\n      valuesObject: {sub: {hostPID: true, image: busybox:latest}}\n"),
    })  # fmt: skip
    result = lint_paths(["sub/templates/job.yaml"], Config(), load_catalog(), plans=True)
    assert {(f.rule_id, f.path, f.span.line) for f in result.findings if f.rule_id in ("HL102", "HL105")} == {
        ("HL105", "sub/templates/job.yaml", 12), ("HL102", "sub/templates/job.yaml", 18)}
