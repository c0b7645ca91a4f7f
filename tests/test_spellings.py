"""Discovery decides on parsed values, never on how a file spells them (attacker trial 8, F6-F9).

YAML and JSON read many spellings as one string: ``!!str Application``, ``&anchor Application``, a
folded ``>-`` scalar, ``"Applic\\x61tion"``, JSON ``"Applic\\u0061tion"``, ``"ApplicationS\\x65t"``,
``"host\\x50ath"``; a chart template prints ``{{ "Application" }}``. Each text test discovery makes
before parsing (:mod:`hooklint.sources.repository.spelling`) only skips a file that no spelling
makes the word of, so each of these Applications, ApplicationSets and PersistentVolumes is read;
an ordinary file without the word is still skipped unparsed (the speed the test is for).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import write
from hooklint.cli import app
from hooklint.sources.render.helm import find_helm
from hooklint.sources.render.kustomize import find_kustomize
from hooklint.sources.repository.spelling import may_hold, rewritten

runner = CliRunner()
needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")

URL = "https://git.example.com/acme/deploy.git"

HOOK = """\
{{- if .Values.migrate.enabled }}
apiVersion: batch/v1
kind: Job
metadata:
  name: pwn
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 0
  activeDeadlineSeconds: 60
  template:
    spec:
      serviceAccountName: ops
      automountServiceAccountToken: false
      hostPID: true
      hostNetwork: true
      containers:
      - name: x
        image: ghcr.io/acme/tool:1.0
        securityContext: {privileged: true}
      restartPolicy: Never
{{- end }}
"""

CHART = {
    ".git/config": f'[remote "origin"]\n\turl = {URL}\n',
    "chart/Chart.yaml": "apiVersion: v2\nname: chart\nversion: 0.1.0\n",
    "chart/values.yaml": "migrate:\n  enabled: false\n",
    "chart/templates/hook.yaml": HOOK,
}

#: What Argo CD runs once the Application's values enable the hook: three HL105 errors.
PRIVILEGED = [
    "chart/templates/hook.yaml:2:1: HL105 The container 'x' of Job/pwn is privileged",
    "chart/templates/hook.yaml:16:7: HL105 Job/pwn sets hostPID",
    "chart/templates/hook.yaml:17:7: HL105 Job/pwn sets hostNetwork",
]

BODY = f"""\
metadata: {{name: shop, namespace: argocd}}
spec:
  project: shop
  source:
    repoURL: {URL}
    path: chart
    helm: {{valuesObject: {{migrate: {{enabled: true}}}}}}
  destination: {{server: https://kubernetes.default.svc, namespace: shop}}
"""

JSON_APP = json.dumps({
    "apiVersion": "argoproj.io/v1alpha1", "kind": "APPLICATION_KIND",
    "metadata": {"name": "shop", "namespace": "argocd"},
    "spec": {"project": "shop", "source": {"repoURL": URL, "path": "chart",
                                           "helm": {"valuesObject": {"migrate": {"enabled": True}}}},
             "destination": {"server": "https://kubernetes.default.svc", "namespace": "shop"}},
}).replace("APPLICATION_KIND", "Applic\\u0061tion")


def concise(*args: str) -> tuple[int, list[str]]:
    """Exit code and the HL105 lines of ``hooklint lint --no-cache --format concise ARGS``."""
    result = runner.invoke(app, ["lint", "--no-cache", "--format", "concise", *args])
    return result.exit_code, [line for line in result.output.splitlines() if " HL105 " in line]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    write(tmp_path, CHART)
    return tmp_path


@needs_helm
@pytest.mark.parametrize(("name", "text"), [
    ("apps/app.yaml", "apiVersion: argoproj.io/v1alpha1\nkind: !!str Application\n" + BODY),
    ("apps/app.yaml", 'apiVersion: argoproj.io/v1alpha1\nkind: "Applic\\x61tion"\n' + BODY),
    ("apps/app.yaml", "apiVersion: argoproj.io/v1alpha1\nkind: >-\n  Application\n" + BODY),
    ("apps/app.yaml", "apiVersion: argoproj.io/v1alpha1\nkind: &k Application\n" + BODY),
    ("apps/app.yaml", "apiVersion: argoproj.io/v1alpha1\nkind: !!binary QXBwbGljYXRpb24=\n" + BODY),
    ("apps/app.yaml", JSON_APP),
    ("apps/app.json", JSON_APP),
])  # fmt: skip
def test_an_application_spelled_another_way_is_mapped(repo: Path, name: str, text: str) -> None:
    """F6: the Application's values enable the privileged hook whatever spelling of its kind."""
    write(repo, {name: text})
    assert concise(".") == (1, PRIVILEGED)


@needs_helm
@pytest.mark.parametrize("kind", ['{{ "Application" }}', '{{ printf "%s%s" "Applic" "ation" }}'])
def test_an_app_of_apps_chart_printing_the_kind_is_followed(repo: Path, kind: str) -> None:
    """F7: the children are read from the rendering, whatever the template text says (the second
    spelling holds no ``Application`` anywhere in the chart: its template action prints it)."""
    write(repo, {"root/Chart.yaml": "apiVersion: v2\nname: root\nversion: 0.1.0\n",
                 "root/templates/app.yaml": f"apiVersion: argoproj.io/v1alpha1\nkind: {kind}\n" + BODY})
    assert concise(".") == (1, PRIVILEGED)


@needs_helm
def test_an_applicationset_with_an_escaped_kind_is_expanded(repo: Path) -> None:
    """F8: ``"ApplicationS\\x65t"`` is an ApplicationSet; the Application it generates enables the hook."""
    write(repo, {"apps/set.yaml": f"""\
apiVersion: argoproj.io/v1alpha1
kind: "ApplicationS\\x65t"
metadata: {{name: shops, namespace: argocd}}
spec:
  generators:
  - list: {{elements: [{{env: prod}}]}}
  template:
    metadata: {{name: 'shop-{{{{env}}}}'}}
    spec:
      project: shop
      source:
        repoURL: {URL}
        path: chart
        helm: {{valuesObject: {{migrate: {{enabled: true}}}}}}
      destination: {{server: https://kubernetes.default.svc, namespace: shop}}
"""})
    assert concise(".") == (1, PRIVILEGED)


JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: j
  namespace: shop
  annotations: {argocd.argoproj.io/hook: PreSync, argocd.argoproj.io/hook-delete-policy: BeforeHookCreation}
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 100
  template:
    spec:
      serviceAccountName: sa
      automountServiceAccountToken: false
      volumes: [{name: h, persistentVolumeClaim: {claimName: root}}]
      containers: [{name: x, image: 'ghcr.io/a/b:1', volumeMounts: [{name: h, mountPath: /h}]}]
      restartPolicy: Never
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: root, namespace: shop, annotations: {argocd.argoproj.io/hook: PreSync, argocd.argoproj.io/sync-wave: "-5"}}
spec: {accessModes: [ReadWriteOnce], storageClassName: "", volumeName: rootpv, resources: {requests: {storage: 1Gi}}}
"""

PV = """\
apiVersion: v1
kind: PersistentVolume
metadata: {name: rootpv}
spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], HOST: {path: /}, storageClassName: "",
       claimRef: {name: root, namespace: shop}}
"""

MOUNTS = ["app/job.yaml:14:27: HL105 Job/j mounts the node's filesystem through volume 'h'"]


@pytest.mark.parametrize("host", ["hostPath", '"host\\x50ath"'])
@pytest.mark.parametrize("named", [".", "app", "app/job.yaml"])
def test_a_host_path_volume_of_another_folder_is_read_however_spelled_and_whatever_is_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, host: str, named: str) -> None:
    """F9: the PersistentVolume in infra/ is a hostPath volume in both spellings, and it is read
    from the repository's other files when only app/ or app/job.yaml is named (pre-commit), in a
    git repository without a remote (the map of Applications is not searched there)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    (tmp_path / ".git").mkdir()
    write(tmp_path, {"app/job.yaml": JOB, "infra/pv.yaml": PV.replace("HOST", host)})
    assert concise(named) == (1, MOUNTS)


@pytest.mark.parametrize("text", [
    b"kind: !!str Application", b'kind: "Applic\\x61tion"', b"kind: >-\n  Application", b"kind: &k Application",
    b'{"kind": "Applic\\u0061tion"}', b'kind: "Appli\\\n  cation"', b"kind: !!binary QXBwbGljYXRpb24=",
    b"kind: !<tag:yaml.org,2002:bin%61ry> QXBwbGljYXRpb24=", b"%TAG !b! tag:yaml.org,2002:\n---\nkind: !b!binary x",
    "kind: Application".encode("utf-16"),
])  # fmt: skip
def test_every_spelling_of_the_word_may_hold_it(text: bytes) -> None:
    assert may_hold(text, b"Application")


ORDINARY = b"""\
apiVersion: v1
kind: ConfigMap
metadata: {name: scripts}
data:
  run.sh: |
    #!/bin/sh
    set -e
    printf "done\\n" | sed -e 's/\\$HOME/x/' && [ "$a" != "b" ]
    echo "100%"
"""


def test_an_ordinary_file_without_the_word_is_skipped_unparsed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pre-filters still skip the common file: no word, only escapes that make no letter
    (``\\n``, ``\\$``), a shebang and a ``%`` that are no tag. Discovery parses none of them for
    the map, the ApplicationSets, the CRDs or the volumes (a parse of its own would slow every run)."""
    assert not rewritten(ORDINARY)
    assert not may_hold(ORDINARY, b"Application")
    assert not may_hold(ORDINARY, b"PersistentVolume", b"hostPath")
    from hooklint.sources.appmap import applications
    from hooklint.sources.repository import facts

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    write(tmp_path, {".git/config": f'[remote "origin"]\n\turl = {URL}\n'})
    for i in range(3):
        (tmp_path / f"cm{i}.yaml").write_bytes(ORDINARY.replace(b"scripts", f"scripts{i}".encode()))
    parsed: list[str] = []

    def counting(module, name):  # the module's parser: read_file, or parse_bytes of the bytes facts hold
        real = getattr(module, name)

        def parse(path, *args, **kwargs):
            parsed.append(f"{module.__name__}:{path}")
            return real(path, *args, **kwargs)
        monkeypatch.setattr(module, name, parse)

    # discovery's scans parse through the run's facts (once for all scans), or their module's read_file
    for module, name in ((applications, "read_file"), (facts, "read_file"), (facts, "parse_bytes")):
        counting(module, name)
    result = runner.invoke(app, ["lint", "--no-cache", "--format", "concise", "."])
    assert result.exit_code == 0, result.output
    assert parsed == []
    # the control: the same file holding the word is parsed by the map's scan
    (tmp_path / "cm0.yaml").write_bytes(ORDINARY + b"  note: an Application's repoURL\n")
    runner.invoke(app, ["lint", "--no-cache", "--format", "concise", "."])
    # the map and the foreign-URL note: one parse for both
    assert parsed == ["hooklint.sources.repository.facts:cm0.yaml"]


CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: KIND
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: SCOPE
  names: {kind: Widget, plural: widgets}
  versions: [{name: v1, served: true, storage: true}]
"""


@pytest.mark.parametrize(("kind", "scope"), [
    ("CustomResourceDefinition", "Cluster"), ('"CustomResourceDefinitio\\x6e"', "Cluster"),
    ("CustomResourceDefinition", '"Clust\\u0065r"'),
])  # fmt: skip
def test_a_crd_spelled_another_way_is_read_for_scope_and_capabilities(tmp_path: Path, kind: str, scope: str) -> None:
    """The CRDs that decide a kind's scope and ``.Capabilities.APIVersions`` are read however their
    kind and scope are spelled (the same pre-filter fault as F6, in crds.py)."""
    from hooklint.sources.repository.crds import cluster_scoped_crds, crd_api_versions

    path = tmp_path / "crd.yaml"
    path.write_text(CRD.replace("KIND", kind).replace("SCOPE", scope))
    assert cluster_scoped_crds([str(path)]) == {("example.com", "Widget")}
    assert crd_api_versions([str(path)]) == {"example.com/v1", "example.com/v1/Widget"}


def test_a_run_parses_a_crd_file_once_for_both_crd_scans(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The scope scan and the capabilities scan of a run read the same CRD file: it is parsed once
    (the run's facts keep the parse with the file's bytes), and the scans still find the same."""
    from hooklint.loader import parse_bytes
    from hooklint.sources.repository import facts
    from hooklint.sources.repository.crds import cluster_scoped_crds, crd_api_versions

    path = tmp_path / "crd.yaml"
    path.write_text(CRD.replace("KIND", "CustomResourceDefinition").replace("SCOPE", "Cluster"))
    parsed: list[str] = []

    def counted(name: str, data: bytes):
        parsed.append(name)
        return parse_bytes(name, data)
    monkeypatch.setattr(facts, "parse_bytes", counted)
    facts.reset()
    assert cluster_scoped_crds([str(path)]) == {("example.com", "Widget")}
    assert crd_api_versions([str(path)]) == {"example.com/v1", "example.com/v1/Widget"}
    assert parsed == [str(path)]
    facts.forget_contents()  # the end of discovery: a later scan reads and parses again
    assert crd_api_versions([str(path)]) == {"example.com/v1", "example.com/v1/Widget"}
    assert parsed == [str(path)] * 2


def test_a_folder_is_typed_once_per_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``source_type`` of a folder asked again in a run (``chart_of`` asks each folder above a file)
    types it once; a new run types it again, as the folder is then."""
    from hooklint.sources.repository import facts, tree

    typed: list[tuple[str, ...]] = []
    real = tree.type_of_names

    def counted(names):
        typed.append(tuple(sorted(names)))
        return real(names)
    monkeypatch.setattr(tree, "type_of_names", counted)
    (tmp_path / "a.yaml").write_text("kind: ConfigMap\n")
    facts.reset()
    assert tree.source_type(str(tmp_path)) == (tree.DIRECTORY, None)
    assert tree.source_type(str(tmp_path)) == (tree.DIRECTORY, None)
    assert typed == [("a.yaml",)]
    (tmp_path / "Chart.yaml").write_text("name: x\n")
    facts.reset()
    assert tree.source_type(str(tmp_path)) == (tree.HELM, str(tmp_path / "Chart.yaml"))
    assert len(typed) == 2


@pytest.mark.parametrize(("text", "found"), [
    (b"apiVersion: v1\nkind: ConfigMap\n", True),
    (b'{"apiVersion": "v1", "k\\u0069nd": "ConfigMap"}', True),  # main's regex missed the escaped key
    (b"apiVersion: v1\n? kind # the key\n: ConfigMap\n", True),  # ... and the commented explicit key
    (b"name: build\non: [push]\njobs: {}\n", False),  # a CI workflow
])  # fmt: skip
def test_a_hidden_file_looks_like_an_object_in_any_spelling(text: bytes, found: bool) -> None:
    from hooklint.sources.repository.tree import looks_like_object

    assert looks_like_object(text) is found


@needs_helm
@pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")
def test_a_kustomization_patching_the_kind_to_application_is_followed(repo: Path) -> None:
    """F7's kind for kustomize: an inline patch of the kustomization itself makes the Application
    (none of its resources says the word), and the child's values enable the hook."""
    write(repo, {"root/app.yaml": "apiVersion: argoproj.io/v1alpha1\nkind: Thing\n" + BODY,
                 "root/kustomization.yaml": ("resources: [app.yaml]\npatches:\n- target: {kind: Thing}\n  patch: |\n"
                                             "    - {op: replace, path: /kind, value: Application}\n")})
    assert concise(".") == (1, PRIVILEGED)


def test_a_binary_scalar_is_read_as_go_yaml_decodes_it() -> None:
    """go-yaml v2 decodes ``!!binary`` (``decode.go``): ``argocd.argoproj.io/hook: !!binary
    UHJlU3luYw==`` makes a PreSync hook, whose privileged container is HL105; text that is not
    base64 fails the document as go-yaml fails it (HL001). hooklint kept the base64 text, so the
    object was no hook and nothing was checked (attacker trial 8, beside F6's ``kind``)."""
    from hooklint.pipeline import lint_text

    job = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: pwn\n  annotations:\n"
           "    argocd.argoproj.io/hook: !!binary UHJlU3luYw==\nspec:\n  template:\n    spec:\n"
           "      restartPolicy: Never\n      containers:\n      - name: x\n        image: busybox:1.36\n"
           "        securityContext: {privileged: true}\n")  # fmt: skip
    assert [(f.rule_id, f.span.line, f.span.column) for f in lint_text(job) if f.rule_id == "HL105"] == [("HL105", 14, 39)]
    broken = [(f.rule_id, f.span.line, f.span.column, f.message) for f in lint_text(
        job.replace("UHJlU3luYw==", "not*base64"))]
    assert broken == [("HL001", 6, 30, "YAML syntax error: yaml: !!binary value contains invalid base64 data. Argo CD "
                       "cannot render this document, so the whole application fails to sync; fix the YAML.")]
