"""The kustomize that renders here against the one Argo CD runs (issue 32, attack 11 item 4).

hooklint renders with the kustomize on PATH or the one kubectl bundles (v5.5.0 on this machine);
Argo CD v3.5.1 runs kustomize 5.8.1 (``hack/tool-versions.sh`` ``kustomize5_version``). From
v5.8.0 (api v0.21.0, commit 7c04cbb23) a replacement target's ``select`` / ``reject`` fields are
anchored regular expressions (``api/types/selector.go`` ``anchorRegex``); before, ``ResId.IsSelectedBy``
compared them as written. A replacement that selects ``name: "migrat."`` changes the Job
``migrate`` in Argo CD and nothing in kubectl's rendering: such a field is HL009 where it is
written, never linted through the older kustomize's rendering."""

from __future__ import annotations


import pytest
from typer.testing import CliRunner

from conftest import write
from hooklint import argocd
from hooklint.cli import app
from hooklint.sources.render import kustomize as kz
from hooklint.sources.render.kustomize import find_kustomize
from hooklint.sources.render.rendered import Renderer

runner = CliRunner()
needs_kustomize = pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")


def _renderer_version() -> tuple[int, int, int] | None:
    found = find_kustomize()
    parts = found[1].version.lstrip("v").split(".")[:3] if found is not None else []
    return tuple(int(p) for p in parts) if len(parts) == 3 and all(p.isdigit() for p in parts) else None  # type: ignore[return-value]


#: the lint tests below need a kustomize older than v5.8.0 (the one kubectl v1.32 bundles is v5.5.0)
needs_old_kustomize = pytest.mark.skipif(
    find_kustomize() is None or (_renderer_version() or (0, 0, 0)) >= (5, 8, 0),
    reason="needs a kustomize older than v5.8.0")

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 60
  template:
    spec:
      restartPolicy: Never
      automountServiceAccountToken: false
      serviceAccountName: migrate
      containers:
      - name: main
        image: registry.example.com/tool@sha256:1111111111111111111111111111111111111111111111111111111111111111
"""
SETTINGS = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
immutable: true
"""


def kustomization(select: str, reject: str = "") -> str:
    return ("resources:\n- job.yaml\n- settings.yaml\n"
            "replacements:\n"
            "- source:\n    kind: ConfigMap\n    name: settings\n    fieldPath: immutable\n"
            "  targets:\n"
            f"  - select:\n{select}"
            f"{reject}"
            "    fieldPaths:\n    - spec.template.spec.hostPID\n"
            "    options:\n      create: true\n")  # fmt: skip


def lint(tmp_path, monkeypatch, files: dict[str, str], *args: str):
    write(tmp_path, {"job.yaml": JOB, "settings.yaml": SETTINGS, **files})
    (tmp_path / ".git").mkdir(exist_ok=True)
    monkeypatch.chdir(tmp_path)
    return runner.invoke(app, ["lint", ".", "--no-cache", *args])


def hl009(position: str, what: str, argocd_version: str = "3.5.1", argocd_kustomize: str = "v5.8.1") -> str:
    renderer = find_kustomize()
    assert renderer is not None
    return (f"{position}: warning HL009 source-not-rendered: {what}, so the objects it changes depend on the kustomize "
            f"version. Argo CD {argocd_version} renders it with kustomize {argocd_kustomize}; hooklint's renderer is "
            f"{renderer[1].label()}: put kustomize {argocd_kustomize} on PATH to render as Argo CD does. hooklint did "
            "not render ./, so none of its objects were checked, hooks included.")  # fmt: skip


REGEX = ("holds regular-expression characters: kustomize v5.8.0 and later read a replacement target's select and "
         "reject fields as anchored regular expressions (^(?:{})$), older kustomize compares them as written")  # fmt: skip


@pytest.mark.parametrize(("release", "kustomize"), [
    ((3, 5, 1), (5, 8, 1)), ((3, 4, 0), (5, 8, 1)), ((3, 3, 1), (5, 8, 1)), ((3, 3, 0), (5, 8, 0)),
    ((3, 2, 12), (5, 7, 0)), ((3, 1, 0), (5, 7, 0)), ((3, 0, 0), (5, 6, 0)), ((2, 14, 11), (5, 4, 3)),
    ((2, 12, 0), (5, 4, 2)), ((2, 11, 0), (5, 2, 1)), ((2, 7, 0), (5, 0, 1)), ((2, 6, 0), (4, 5, 7)),
    ((2, 0, 0), (3, 9, 4)),
])  # fmt: skip
def test_the_kustomize_each_argo_cd_release_runs(release, kustomize):
    """AC ``hack/tool-versions.sh`` at each release tag (``kustomize5_version``; 3.3.0 had 5.8.0)."""
    assert argocd.kustomize_version(release) == kustomize


@pytest.mark.parametrize(("renderer", "release", "gap"), [
    ("v5.5.0", (3, 5, 1), True), ("v5.7.1", (3, 5, 1), True), ("v5.8.0", (3, 5, 1), False),
    ("v5.8.1", (3, 5, 1), False), ("v5.5.0", (3, 2, 12), True), ("v5.7.1", (3, 2, 12), False),
    ("v5.8.1", (3, 2, 12), True), ("v5.4.3", (2, 14, 11), False), ("v5.6.0", (2, 14, 11), False),
    ("unknown", (3, 5, 1), True),  # a kustomize that reports no version: fail closed
])  # fmt: skip
def test_a_gap_only_when_the_two_read_selectors_differently(renderer, release, gap):
    found = kz.version_gap(Renderer("kubectl kustomize", renderer), release)
    assert (found is not None) == gap


def test_the_note_when_the_renderer_is_older_than_argo_cds():
    assert kz.kustomize_use_note("kubectl kustomize v5.5.0", (3, 5, 1)) == (
        "kustomizations were rendered with kustomize v5.5.0 (kubectl kustomize v5.5.0), but Argo CD 3.5.1 renders "
        "them with kustomize v5.8.1, which reads some fields differently: put kustomize v5.8.1 on PATH to render as "
        "it does")  # fmt: skip
    assert kz.kustomize_use_note("kustomize v5.8.1", (3, 5, 1)) is None
    assert kz.kustomize_use_note("kustomize v5.8.1", (3, 2, 0)) is None  # newer: the HL009s say what differs
    assert kz.kustomize_use_note("kubectl kustomize unknown", (3, 5, 1)) is None
    assert kz.kustomize_use_note("helm v3.15.2", (3, 5, 1)) is None


@pytest.mark.parametrize(("field", "value"), [
    ("group", "app.?"), ("version", "v1|v2"), ("kind", "Jo[b]"), ("name", "migrat."), ("namespace", "shop-.*"),
])  # fmt: skip
def test_every_selector_field_with_a_metacharacter(field, value):
    gap = kz.version_gap(Renderer("kustomize", "v5.5.0"), (3, 5, 1))
    assert gap is not None
    found = kz.selector_differences({"targets": [{"select": {field: value}}]}, None, "replacements[0]", gap)
    assert found == (f"replacements[0].targets[0].select.{field} {value!r} {REGEX.format(value)}, so the objects it "
                     "changes depend on the kustomize version", 0, 0)


def test_a_namespace_with_a_cluster_scoped_kind():
    """Before v5.8.0 a selector of a cluster-scoped kind matches whatever its namespace
    (``EffectiveNamespace`` of both is the same non-namespace); from it, the namespace as written."""
    gap = kz.version_gap(Renderer("kustomize", "v5.5.0"), (3, 5, 1))
    assert gap is not None
    found = kz.selector_differences({"targets": [{"reject": [{"kind": "ClusterRole", "namespace": "shop"}]}]}, None, "", gap)
    assert found == ("targets[0].reject[0].namespace 'shop' selects differently: kustomize before v5.8.0 ignores the "
                     "namespace of a selector whose kind is cluster-scoped (ClusterRole: ResId.IsNsEquals), v5.8.0 and "
                     "later select only objects whose namespace is written so, so the objects it changes depend on the "
                     "kustomize version", 0, 0)  # fmt: skip
    assert kz.selector_differences({"targets": [{"select": {"kind": "Job", "namespace": "shop"}}]}, None, "", gap) is None


@needs_old_kustomize
def test_a_regex_name_in_select_is_hl009_at_the_field(tmp_path, monkeypatch):
    """The attack: Argo CD's kustomize 5.8.1 selects the Job ``migrate`` by ``migrat.`` and sets
    hostPID on it; kubectl's v5.5.0 selects nothing. Before the fix: exit 0, nothing reported."""
    result = lint(tmp_path, monkeypatch, {"kustomization.yaml": kustomization('      kind: Job\n      name: "migrat."\n')})
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert hl009("kustomization.yaml:12:13", "replacements[0].targets[0].select.name 'migrat.' " + REGEX.format("migrat."))\
        in lines, result.output  # fmt: skip
    assert " HL105 " not in result.output


@needs_old_kustomize
def test_a_regex_in_a_reject_of_a_replacements_file(tmp_path, monkeypatch):
    files = {
        "kustomization.yaml": "resources:\n- job.yaml\n- settings.yaml\nreplacements:\n- path: replacements.yaml\n",
        "replacements.yaml": ("- source: {kind: ConfigMap, name: settings, fieldPath: immutable}\n"
                              "  targets:\n  - select: {kind: Job}\n    reject:\n    - name: other\n"
                              "    - {name: 'mig.*'}\n"
                              "    fieldPaths: [spec.template.spec.hostPID]\n    options: {create: true}\n"),
    }  # fmt: skip
    result = lint(tmp_path, monkeypatch, files)
    assert result.exit_code == 1, result.output
    assert hl009("kustomization.yaml:5:9", "replacements.yaml:6:14: [0].targets[0].reject[1].name 'mig.*' "
                 + REGEX.format("mig.*")) in result.output.splitlines(), result.output  # fmt: skip


@needs_old_kustomize
def test_a_regex_in_a_replacement_transformer_of_transformers(tmp_path, monkeypatch):
    """The builtin ``ReplacementTransformer`` configured by a ``transformers`` entry reads its
    ``replacements`` as the kustomization's (``ReplacementTransformerPlugin.Config``)."""
    files = {
        "kustomization.yaml": "resources:\n- job.yaml\n- settings.yaml\ntransformers:\n- replace.yaml\n",
        "replace.yaml": ("apiVersion: builtin\nkind: ReplacementTransformer\nmetadata: {name: r}\nreplacements:\n"
                         "- source: {kind: ConfigMap, name: settings, fieldPath: immutable}\n"
                         "  targets:\n  - select: {kind: Job, name: 'migra.e'}\n"
                         "    fieldPaths: [spec.template.spec.hostPID]\n    options: {create: true}\n"),
    }  # fmt: skip
    result = lint(tmp_path, monkeypatch, files)
    assert result.exit_code == 1, result.output
    assert hl009("kustomization.yaml:5:3", "replace.yaml:7:31: replacements[0].targets[0].select.name 'migra.e' "
                 + REGEX.format("migra.e")) in result.output.splitlines(), result.output  # fmt: skip


@needs_old_kustomize
def test_namespace_default_in_select_is_hl009(tmp_path, monkeypatch):
    """Before v5.8.0 ``namespace: default`` also selects the Job written without a namespace
    (``EffectiveNamespace``), from it only one written ``default``."""
    result = lint(tmp_path, monkeypatch, {"kustomization.yaml": kustomization("      kind: Job\n      namespace: default\n")})
    assert result.exit_code == 1, result.output
    assert hl009("kustomization.yaml:12:18", "replacements[0].targets[0].select.namespace 'default' selects "
                 "differently: kustomize before v5.8.0 also selects objects without a namespace for namespace default, "
                 "v5.8.0 and later only objects whose namespace is written default") in result.output.splitlines(), \
        result.output  # fmt: skip


@needs_old_kustomize
def test_a_literal_selector_renders_with_only_the_note(tmp_path, monkeypatch):
    """No noise: a selector without a metacharacter selects the same objects in both; the
    hook's hostPID is found, and one note says the kustomize is older."""
    result = lint(tmp_path, monkeypatch, {"kustomization.yaml": kustomization("      kind: Job\n      name: migrate\n")})
    assert result.exit_code == 1, result.output
    assert " HL009 " not in result.output, result.output
    assert "kustomization.yaml:4:1: error HL105 hook-privileged-pod: Job/migrate sets hostPID: true" in result.output
    label = find_kustomize()[1].label()  # type: ignore[index]
    version = label.rsplit(" ", 1)[1]
    assert (f"note: kustomizations were rendered with kustomize {version} ({label}), but Argo CD 3.5.1 renders them "
            "with kustomize v5.8.1, which reads some fields differently: put kustomize v5.8.1 on PATH to render as it "
            "does.") in result.output.splitlines(), result.output  # fmt: skip


@needs_old_kustomize
def test_a_source_value_older_kustomize_refuses_is_hl009_not_hl007(tmp_path, monkeypatch):
    """``sourceValue`` (kustomize v5.7.0): v5.5.0 refuses the kustomization ("unknown field"),
    which hooklint reported as HL007 (Argo CD fails too), while Argo CD's 5.8.1 sets hostPID."""
    files = {"kustomization.yaml": ("resources:\n- job.yaml\nreplacements:\n- sourceValue: 'true'\n  targets:\n"
                                    "  - select: {kind: Job}\n    fieldPaths: [spec.template.spec.hostPID]\n"
                                    "    options: {create: true}\n")}  # fmt: skip
    result = lint(tmp_path, monkeypatch, files)
    assert result.exit_code == 1, result.output
    renderer = find_kustomize()[1].label()  # type: ignore[index]
    assert ("kustomization.yaml:4:16: warning HL009 source-not-rendered: replacements[0].sourceValue is read "
            "differently: kustomize v5.7.0 and later write it into the targets, older kustomize refuses the field "
            "(json: unknown field \"sourceValue\"), so what the replacement changes depends on the kustomize version. "
            f"Argo CD 3.5.1 renders it with kustomize v5.8.1; hooklint's renderer is {renderer}: put kustomize v5.8.1 "
            "on PATH to render as Argo CD does. hooklint did not render ./, so none of its objects were checked, hooks "
            "included.") in result.output.splitlines(), result.output  # fmt: skip
    assert " HL007 " not in result.output


@needs_old_kustomize
def test_same_side_of_the_change_renders_as_before(tmp_path, monkeypatch):
    """Argo CD 3.2 runs kustomize 5.7.0, which reads ``migrat.`` as written, as v5.5.0 does:
    rendered, nothing selected, no HL009."""
    result = lint(tmp_path, monkeypatch, {"kustomization.yaml": kustomization('      kind: Job\n      name: "migrat."\n'),
                                          ".hooklint.yaml": "argocd-version: '3.2'\n"})  # fmt: skip
    assert " HL009 " not in result.output and " HL105 " not in result.output, result.output
    assert result.exit_code == 0, result.output


@needs_old_kustomize
def test_doctor_names_argo_cds_kustomize(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    found = find_kustomize(str(tmp_path))
    assert found is not None
    result = runner.invoke(app, ["doctor"])
    assert (f"  kustomize: {found[1].label()} ({found[0][0]}; Argo CD 3.5.1 renders kustomizations with kustomize "
            "v5.8.1: put kustomize v5.8.1 on PATH to render as it does)") in result.output.splitlines(), result.output
