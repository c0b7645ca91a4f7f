"""Never blind, the Helm half (issue 22): a chart is rendered and checked even when part of what
Argo CD renders it with cannot be had offline.

- ``file://`` dependencies inside the repository are rendered with the chart, as ``helm dependency
  build`` packages them (``reposerver/repository/repository.go`` ``runHelmBuild``); one leaving the
  repository is HL007;
- a dependency that needs a chart repository or OCI registry is left out (HL009 on its
  ``Chart.yaml`` item, only when Helm's ``condition``/``tags`` enable it);
- a value file hooklint cannot read (helm-secrets, SOPS, a URL) is left out, the chart rendered
  with its other values (HL009 on the Application's ``valueFiles`` item).

Every fixture is written here; nothing reaches the network (no test names a host that resolves,
and the in-process guard below fails any connection hooklint itself would open).
"""

from __future__ import annotations

import json
import os
import socket
import textwrap

import pytest
from typer.testing import CliRunner

from conftest import write
from hooklint.cli import app
from hooklint.sources.render.helm import find_helm

pytestmark = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")

runner = CliRunner()

#: A PreSync hook whose image is mutable (HL102 at its `image:` key, 12:11) and which sets no
#: restartPolicy (HL205 at its pod spec, 9:5): the witness that a template was rendered and checked.
SEED_HOOK = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-seed
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  template:
    spec:
      containers:
        - name: seed
          image: {{ .Values.image | default "docker.io/library/busybox:latest" }}
"""

PARENT_CHART = "apiVersion: v2\nname: shop\nversion: 1.2.0\n"

#: The parent's own hook: checked whatever happens to its dependencies.
MIGRATE_HOOK = SEED_HOOK.replace("-seed", "-migrate").replace("name: seed", "name: migrate")


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """An empty repository (a git remote, so Applications pointing at it are read) as the working
    folder; the render cache off; any socket connection hooklint's process opens fails."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")

    def no_network(*args, **kwargs):
        raise AssertionError(f"a network connection was opened: {args}")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    write(tmp_path, {".git/config": '[remote "origin"]\n\turl = git@github.com:acme/shop.git\n'})
    return tmp_path


def lint(*paths: str) -> tuple[int, list[tuple[str, str, int, int]], list[dict]]:
    """``hooklint lint --format json PATHS``: exit code, ``(rule, path, line, column)`` of each
    finding, and the findings."""
    result = runner.invoke(app, ["lint", "--format", "json", *paths])
    findings = json.loads(result.output)["findings"]
    return result.exit_code, [(f["rule_id"], f["path"], f["line"], f["column"]) for f in findings], findings


def witness(path: str) -> list[tuple[str, str, int, int]]:
    """The findings of SEED_HOOK (or MIGRATE_HOOK) rendered from ``path``, among HL102 and HL205."""
    return [("HL205", path, 9, 5), ("HL102", path, 12, 11)]


def picked(found: list[tuple[str, str, int, int]], *rules: str) -> list[tuple[str, str, int, int]]:
    return sorted((f for f in found if f[0] in rules), key=lambda f: (f[1], f[2], f[3], f[0]))


# --- file:// dependencies -----------------------------------------------------------------------


def test_a_file_dependency_inside_the_repository_is_rendered_with_the_chart(repo):
    """Eight charts of one repository with `file://../common` were skipped whole (issue 22): the
    dependency's hook is now rendered with the parent (release name, values) and reported in the
    dependency's own template, at its exact lines."""
    write(repo, {
        "deploy/shop/Chart.yaml": PARENT_CHART + textwrap.dedent("""\
            dependencies:
              - name: common
                version: 0.3.0
                repository: file://../common
            """),
        "deploy/shop/templates/migrate.yaml": MIGRATE_HOOK,
        "deploy/common/Chart.yaml": "apiVersion: v2\nname: common\nversion: 0.3.0\n",
        "deploy/common/templates/seed.yaml": SEED_HOOK,
    })  # fmt: skip
    code, found, findings = lint("deploy/shop")
    assert code == 1
    assert picked(found, "HL102", "HL205", "HL007", "HL009") == sorted(
        witness("deploy/common/templates/seed.yaml") + witness("deploy/shop/templates/migrate.yaml"),
        key=lambda f: (f[1], f[2], f[3], f[0]))
    # the dependency's objects are the parent's release: shop-seed, not common-seed
    assert {f["object"]["name"] for f in findings if f["rule_id"] == "HL102"} == {"shop-seed", "shop-migrate"}


def test_a_file_dependency_is_taken_from_its_folder_when_helm_dependency_build_runs(repo):
    """A stale archive of the `file://` dependency in charts/ is what Argo CD renders only when
    every dependency is there (then it never runs helm dependency build); with one missing it
    builds, and the folder's chart replaces the archive. Here redis is missing: the folder's hook
    (with its mutable image) is rendered, not the archive's."""
    import io
    import tarfile

    write(repo, {
        "deploy/shop/Chart.yaml": PARENT_CHART + textwrap.dedent("""\
            dependencies:
              - name: common
                version: 0.3.0
                repository: file://../common
              - name: redis
                version: 19.0.0
                repository: https://charts.example.invalid/bitnami
                condition: redis.enabled
            """),
        "deploy/shop/values.yaml": "redis:\n  enabled: false\n",
        "deploy/shop/templates/migrate.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n",
        "deploy/common/Chart.yaml": "apiVersion: v2\nname: common\nversion: 0.3.0\n",
        "deploy/common/templates/seed.yaml": SEED_HOOK,
    })  # fmt: skip
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w:gz") as tar:
        for name, text in {"common/Chart.yaml": "apiVersion: v2\nname: common\nversion: 0.2.0\n",
                           "common/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: old\n"}.items():  # fmt: skip
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    (repo / "deploy/shop/charts").mkdir()
    (repo / "deploy/shop/charts/common-0.2.0.tgz").write_bytes(archive.getvalue())
    code, found, findings = lint("deploy/shop")
    assert picked(found, "HL102", "HL205", "HL007", "HL009") == witness("deploy/common/templates/seed.yaml")
    assert "old" not in {f["object"]["name"] for f in findings if f.get("object")}


@pytest.mark.parametrize(
    "repository, spelled",
    [("file://../../../common", "file://../../../common"), ("file://../linked", "file://../linked")],
    ids=["dot-dot", "symlink"],
)
def test_a_file_dependency_leaving_the_repository_is_hl007_at_its_entry(repo, repository, spelled):
    """Containment by resolved path: `..` or a symbolic link out of the repository is never read
    (Argo CD's checkout does not hold it either)."""
    outside = repo.parent / "common"
    write(outside, {"Chart.yaml": "apiVersion: v2\nname: common\nversion: 0.3.0\n", "templates/seed.yaml": SEED_HOOK})
    write(repo, {
        "deploy/shop/Chart.yaml": PARENT_CHART + textwrap.dedent(f"""\
            dependencies:
              - name: common
                version: 0.3.0
                repository: {repository}
            """),
        "deploy/shop/templates/migrate.yaml": MIGRATE_HOOK,
    })  # fmt: skip
    os.symlink(outside, repo / "deploy/linked")
    code, found, findings = lint("deploy/shop")
    assert code == 1
    [hl007] = [f for f in findings if f["rule_id"] == "HL007"]
    assert (hl007["path"], hl007["line"], hl007["column"]) == ("deploy/shop/Chart.yaml", 5, 5)
    assert hl007["message"] == (
        f"Rendering failed: chart dependency common: {spelled} resolves outside the repository; hooklint reads "
        "nothing outside it (and Argo CD's checkout of the repository does not hold it). Argo CD's repo server fails "
        "the same way, so the application cannot sync; nothing of it is checked until it renders.")
    assert not [f for f in found if "seed" in f[1]]


# --- dependencies that need a chart repository or registry ---------------------------------------

REMOTE_DEPENDENCY = PARENT_CHART + """\
dependencies:
  - name: postgresql
    version: ~15.5
    repository: oci://registry.example.invalid/charts
    condition: postgresql.enabled
  - name: redis
    version: 19.x
    repository: https://charts.example.invalid/bitnami
    tags:
      - cache
"""


def test_a_repository_dependency_is_left_out_and_the_chart_is_checked(repo):
    write(repo, {"deploy/shop/Chart.yaml": REMOTE_DEPENDENCY, "deploy/shop/templates/migrate.yaml": MIGRATE_HOOK})
    code, found, findings = lint("deploy/shop")
    assert code == 1
    assert picked(found, "HL102", "HL205", "HL007", "HL009") == sorted(
        [("HL009", "deploy/shop/Chart.yaml", 5, 5), ("HL009", "deploy/shop/Chart.yaml", 9, 5)]
        + witness("deploy/shop/templates/migrate.yaml"), key=lambda f: (f[1], f[2], f[3], f[0]))  # fmt: skip
    messages = [f["message"] for f in findings if f["rule_id"] == "HL009"]
    assert messages == [
        "chart dependency postgresql (oci://registry.example.invalid/charts) needs an OCI registry: hooklint fetches "
        "it only with `--fetch`. Argo CD runs helm dependency build, which fetches it, before it renders the chart. "
        "hooklint left it out, so the objects it adds, possibly hooks, were not checked; the chart's own were; run with "
        "`--fetch` and list registry.example.invalid in `fetch-hosts` (or give `--fetch-host registry.example.invalid`) "
        "to check it.",
        "chart dependency redis (https://charts.example.invalid/bitnami) needs a chart repository: hooklint fetches it "
        "only with `--fetch`. Argo CD runs helm dependency build, which fetches it, before it renders the chart. "
        "hooklint left it out, so the objects it adds, possibly hooks, were not checked; the chart's own were; run with "
        "`--fetch` and list charts.example.invalid in `fetch-hosts` (or give `--fetch-host charts.example.invalid`) to "
        "check it.",
    ]


def test_a_disabled_repository_dependency_needs_no_hl009(repo):
    """`condition` false in the chart's values, the only tag false: Helm renders neither, so
    nothing is left unchecked."""
    write(repo, {
        "deploy/shop/Chart.yaml": REMOTE_DEPENDENCY,
        "deploy/shop/values.yaml": "postgresql:\n  enabled: false\ntags:\n  cache: false\n",
        "deploy/shop/templates/migrate.yaml": MIGRATE_HOOK,
    })  # fmt: skip
    code, found, _ = lint("deploy/shop")
    assert picked(found, "HL102", "HL205", "HL007", "HL009") == witness("deploy/shop/templates/migrate.yaml")


APPLICATION = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: shop
spec:
  project: shop
  destination:
    namespace: shop
  source:
    repoURL: https://github.com/acme/shop.git
    path: deploy/shop
    helm:
{helm}
"""


def test_an_application_parameter_enables_a_dependency_as_helm_does(repo):
    """The condition is read from the values Argo CD passes (here a parameter, `--set`), by Helm
    itself: enabled there, the dependency is left out and said so."""
    write(repo, {
        "deploy/shop/Chart.yaml": REMOTE_DEPENDENCY,
        "deploy/shop/values.yaml": "postgresql:\n  enabled: false\ntags:\n  cache: false\n",
        "deploy/shop/templates/migrate.yaml": MIGRATE_HOOK,
        "apps/shop.yaml": APPLICATION.format(helm="      parameters:\n        - name: postgresql.enabled\n"
                                                  "          value: 'true'"),
    })  # fmt: skip
    code, found, _ = lint(".")
    assert [f for f in found if f[0] == "HL009"] == [("HL009", "deploy/shop/Chart.yaml", 5, 5)]


def test_a_chart_that_does_not_render_without_its_dependency_is_hl009_at_the_entry(repo):
    """The parent includes a named template of a library it fetches: not an error of the chart
    (Argo CD renders it), so HL009 at the dependency, quoting Helm."""
    write(repo, {
        "deploy/shop/Chart.yaml": PARENT_CHART + textwrap.dedent("""\
            dependencies:
              - name: common
                version: 2.x.x
                repository: oci://registry.example.invalid/charts
            """),
        "deploy/shop/templates/cm.yaml": 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n'
                                         '  name: {{ include "common.names.fullname" . }}\n',
    })  # fmt: skip
    code, found, findings = lint("deploy/shop")
    assert [f for f in found if f[0] in ("HL007", "HL009")] == [("HL009", "deploy/shop/Chart.yaml", 5, 5)]
    [hl009] = findings
    assert hl009["message"].startswith(
        "chart deploy/shop does not render without dependency common (oci://registry.example.invalid/charts), "
        "which hooklint left out (it never fetches charts or values, never decrypts): ")
    assert 'no template "common.names.fullname"' in hl009["message"]
    assert hl009["message"].endswith(". Argo CD renders the chart with them. hooklint did not render deploy/shop/, "
                                     "so none of its objects were checked, hooks included.")


# --- value files hooklint cannot read ------------------------------------------------------------

SOPS_VALUES = """\
image: ENC[AES256_GCM,data:Zm9v,iv:YmFy,tag:YmF6,type:str]
sops:
    age:
        - recipient: age1qyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqs3290gq
    lastmodified: "2026-11-30T10:00:00Z"
    mac: ENC[AES256_GCM,data:cXV4,iv:cXV1eA==,tag:cXV1eHg=,type:str]
    version: 3.9.0
"""


def lint_shop_with_value_file(repo, value_file: str) -> list[dict]:
    """The chart deploy/shop (its hook's image in values.yaml) rendered by apps/shop.yaml with
    ``valueFiles: [prod.yaml, value_file]``, linted: exit code 1, the hook's findings (the witness)
    and one HL009 at the entry ``value_file`` (apps/shop.yaml:15:11). Returns the findings."""
    write(repo, {
        "deploy/shop/Chart.yaml": PARENT_CHART,
        "deploy/shop/values.yaml": "image: docker.io/library/busybox:latest\n",
        "deploy/shop/prod.yaml": "replicas: 2\n",
        "deploy/shop/secrets.yaml": SOPS_VALUES,
        "deploy/shop/templates/migrate.yaml": MIGRATE_HOOK,
        "apps/shop.yaml": APPLICATION.format(helm=f"      valueFiles:\n        - prod.yaml\n        - {value_file}"),
    })  # fmt: skip
    code, found, findings = lint(".")
    assert code == 1
    assert picked(found, "HL102", "HL205", "HL007", "HL009") == sorted(
        [("HL009", "apps/shop.yaml", 15, 11)] + witness("deploy/shop/templates/migrate.yaml"),
        key=lambda f: (f[1], f[2], f[3], f[0]))  # fmt: skip
    return findings


@pytest.mark.parametrize(
    "value_file, message, renders",
    [
        ("https://config.example.invalid/shop/values.yaml", "value file https://config.example.invalid/shop/"
         "values.yaml is a URL: hooklint never fetches charts or values",
         "Argo CD fetches it when it renders the chart"),
        ("secrets+literal://ENC[AES256_GCM,data:Zm9v]", "value file secrets+literal://ENC[AES256_GCM,data:Zm9v] is "
         "encrypted (helm-secrets): hooklint never decrypts",
         "Argo CD's repo server decrypts it with the helm-secrets plugin when it renders the chart"),
    ],
    ids=["url", "secrets-literal"],
)  # fmt: skip
def test_a_value_file_hooklint_cannot_read_is_left_out_at_its_valuefiles_entry(repo, value_file, message, renders):
    """A PostSync hook bound to cluster-admin was hidden behind an encrypted values file (issue
    22): the chart is now rendered with its other values (values.yaml, then prod.yaml) and checked;
    the file left out is HL009 on its valueFiles item (apps/shop.yaml:15:11), not Chart.yaml:1:1.
    The SOPS file's values (its ENC[...] image) are not used."""
    findings = lint_shop_with_value_file(repo, value_file)
    [hl009] = [f for f in findings if f["rule_id"] == "HL009"]
    assert hl009["message"] == (
        f"{message}. {renders}. hooklint left it out, so the chart was rendered and checked with its other values: "
        "objects and hooks that this file's values would add or change were not checked.")
    [hl102] = [f for f in findings if f["rule_id"] == "HL102"]
    assert "'docker.io/library/busybox:latest'" in hl102["message"]


@pytest.mark.parametrize("value_file", ["secrets://secrets.yaml", "secrets+age-import:///keys/age.txt?secrets.yaml",
                                        "secrets.yaml"])  # fmt: skip
def test_a_sops_value_file_is_read_with_placeholders_for_its_encrypted_values(repo, value_file):
    """Issue 33 item 3 (issue 22 left the file out): the SOPS file's keys are read, without its
    sops block, each ENC[...] value the fixed placeholder; the chart renders with it (its image
    here), the plan is partial, and the ciphertext is never printed."""
    findings = lint_shop_with_value_file(repo, value_file)
    [hl009] = [f for f in findings if f["rule_id"] == "HL009"]
    assert hl009["message"] == (
        "value file deploy/shop/secrets.yaml is SOPS-encrypted: hooklint read its keys without its sops block, each "
        "encrypted value replaced by 'hooklint-sops-encrypted-value' (it never decrypts). Argo CD's repo server "
        "decrypts it when helm-secrets wraps its helm. hooklint rendered the chart with those placeholders, so what "
        "the real values change (names, images, conditions) was not checked; the rest of the chart was.")
    [hl102] = [f for f in findings if f["rule_id"] == "HL102"]
    assert hl102["message"].startswith("Image 'hooklint-sops-encrypted-value' of container 'migrate' of Job/shop-migrate has no tag")
    plan = runner.invoke(app, ["plan", "--format", "json", "deploy/shop", "apps"])
    shop = next(a for a in json.loads(plan.output)["applications"] if a["application"] == "deploy/shop")
    assert shop["rendered"] == "partial"
    assert "Zm9v" not in plan.output + json.dumps(findings)


def test_a_value_file_with_a_sops_key_that_is_not_sops_metadata_is_read(repo):
    """A `sops:` key without `mac`/`lastmodified` is ordinary values: read, its image checked."""
    write(repo, {
        "deploy/shop/Chart.yaml": PARENT_CHART,
        "deploy/shop/plain.yaml": "image: quay.io/acme/seed:latest\nsops:\n  enabled: true\n",
        "deploy/shop/templates/migrate.yaml": MIGRATE_HOOK,
        "apps/shop.yaml": APPLICATION.format(helm="      valueFiles:\n        - plain.yaml"),
    })  # fmt: skip
    code, found, findings = lint(".")
    assert [f for f in found if f[0] == "HL009"] == []
    [hl102] = [f for f in findings if f["rule_id"] == "HL102"]
    assert "'quay.io/acme/seed:latest'" in hl102["message"]


def test_a_chart_that_needs_the_value_file_left_out_is_hl009_at_its_entry(repo):
    """`required` needs a value only the encrypted file holds: the chart does not render without
    it (Argo CD's does, decrypted), so HL009 at the valueFiles item, not HL007."""
    write(repo, {
        "deploy/shop/Chart.yaml": PARENT_CHART,
        "deploy/shop/templates/migrate.yaml": MIGRATE_HOOK.replace(
            "{{ .Values.image | default \"docker.io/library/busybox:latest\" }}",
            "{{ required \"image is required\" .Values.image }}"),
        "apps/shop.yaml": APPLICATION.format(helm="      valueFiles:\n        - secrets://secrets.yaml"),
    })  # fmt: skip
    code, found, findings = lint(".")
    assert [f for f in found if f[0] in ("HL007", "HL009")] == [("HL009", "apps/shop.yaml", 14, 11)]
    [hl009] = findings
    assert hl009["message"].startswith(
        "chart deploy/shop does not render without value file secrets://secrets.yaml, which hooklint left out")
    assert "image is required" in hl009["message"]


def test_a_failure_of_the_charts_own_template_beside_a_left_out_dependency_is_hl007(repo):
    """A `required` of the chart's own values, unrelated to the dependency left out (neither its
    named templates, its values nor its name): Argo CD fails the same way, so HL007 where Helm
    says (found on a real repository: opencadc/deployments' skaha chart beside oci redis)."""
    write(repo, {
        "deploy/shop/Chart.yaml": REMOTE_DEPENDENCY,
        "deploy/shop/templates/cm.yaml": 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n'
                                         'data:\n  uri: {{ required "set serviceURI" .Values.serviceURI }}\n',
    })  # fmt: skip
    code, found, findings = lint("deploy/shop")
    assert [f for f in found if f[0] in ("HL007", "HL009")] == [("HL007", "deploy/shop/templates/cm.yaml", 6, 10)]
    assert findings[0]["message"].startswith(
        "Rendering failed: execution error at (shop/templates/cm.yaml:6:10): set serviceURI. ")


def test_left_out_entries_survive_the_render_cache_and_value_file_places_follow_the_application(
        tmp_path, monkeypatch):  # fmt: skip
    """The dependency left out is stored with the rendering (Chart.yaml's bytes are in the key);
    where a value file is written is not in the key, so a cached rendering reports it where the
    Application now writes it."""
    from hooklint.sources.render import helm
    from hooklint.sources.render.helm import HelmOptions, render_helm

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / ".cache"))
    write(tmp_path, {"deploy/shop/Chart.yaml": REMOTE_DEPENDENCY, "deploy/shop/templates/migrate.yaml": MIGRATE_HOOK})
    calls = []
    real = helm._render
    monkeypatch.setattr(helm, "_render", lambda *a, **k: calls.append(1) or real(*a, **k))
    first = render_helm("deploy/shop", ".", HelmOptions("shop", value_files=("secrets://s.yaml",),
                                                        value_file_places=(("apps/a.yaml", 14, 11),)))  # fmt: skip
    second = render_helm("deploy/shop", ".", HelmOptions("shop", value_files=("secrets://s.yaml",),
                                                         value_file_places=(("apps/a.yaml", 20, 9),)))  # fmt: skip
    assert len(calls) == 1
    assert [(o.path, o.line, o.column) for o in first.omitted] == [
        ("deploy/shop/Chart.yaml", 5, 5), ("deploy/shop/Chart.yaml", 9, 5), ("apps/a.yaml", 14, 11)]
    assert [(o.path, o.line, o.column) for o in second.omitted] == [
        ("deploy/shop/Chart.yaml", 5, 5), ("deploy/shop/Chart.yaml", 9, 5), ("apps/a.yaml", 20, 9)]
    assert second.documents == first.documents


def test_a_value_file_from_an_argocd_source_file_is_reported_where_that_file_writes_it(repo):
    """`.argocd-source.yaml` replaces the Application's valueFiles list (a merge patch replaces a
    list whole), so the entry left out is written there."""
    write(repo, {
        "deploy/shop/Chart.yaml": PARENT_CHART,
        "deploy/shop/templates/migrate.yaml": MIGRATE_HOOK,
        "deploy/shop/.argocd-source.yaml": "helm:\n  valueFiles:\n    - https://config.example.invalid/v.yaml\n",
        "apps/shop.yaml": APPLICATION.format(helm="      valueFiles:\n        - prod.yaml"),
    })  # fmt: skip
    code, found, _ = lint(".")
    assert [f for f in found if f[0] in ("HL007", "HL009")] == [("HL009", "deploy/shop/.argocd-source.yaml", 3, 7)]
