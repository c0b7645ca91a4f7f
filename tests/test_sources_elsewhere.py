"""Sources from elsewhere (issue 33): every source Argo CD renders and hooklint does not is named in
the plan and gets HL009 at its entry; a remote generator is left out of a kustomization, not the
application; a SOPS-encrypted values file is read with placeholders."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from conftest import write
from hooklint.cli import app

runner = CliRunner()

ORIGIN = '[remote "origin"]\n\turl = https://github.com/acme/deploy.git\n'


def application(name: str, source: str, key: str = "source") -> str:
    """An Application manifest whose ``spec.source`` (or ``spec.sources``: ``key``) is ``source``
    (YAML lines already indented by four spaces); its source entry starts on line 7."""
    return (f"apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: {name}\nspec:\n"
            f"  {key}:\n{source}  project: infra\n  destination:\n    namespace: {name}\n")


CHART_REPO = application("cert-manager", "    repoURL: https://charts.jetstack.io\n    chart: cert-manager\n"
                                         "    targetRevision: v1.14.0\n")
OCI_CHART = application("podinfo", "    repoURL: oci://ghcr.io/acme/charts\n    chart: podinfo\n"
                                   "    targetRevision: 6.5.0\n")
MULTI_VALUES = application("ingress", "    - repoURL: https://kubernetes.github.io/ingress-nginx\n"
                                      "      chart: ingress-nginx\n      targetRevision: 4.10.0\n"
                                      "      helm:\n        valueFiles:\n          - $values/values/ingress.yaml\n"
                                      "    - repoURL: https://github.com/acme/deploy.git\n      targetRevision: main\n"
                                      "      ref: values\n", "sources")
MULTI_LOCAL = application("shop", "    - repoURL: https://charts.example.com\n      chart: redis\n"
                                  "      targetRevision: 1.0.0\n"
                                  "    - repoURL: https://github.com/acme/deploy.git\n      path: shop\n", "sources")
OTHER_GIT = application("guestbook", "    repoURL: https://github.com/argoproj/argocd-example-apps.git\n"
                                     "    path: guestbook\n    targetRevision: HEAD\n")
UNKNOWN = application("s3chart", "    repoURL: s3://charts.example.com/stable\n    chart: thing\n")
JSONNET = application("monitoring", "    repoURL: https://github.com/acme/deploy.git\n    path: jsonnet\n")
PLUGIN = application("nix", "    repoURL: https://github.com/acme/deploy.git\n    path: nixapp\n"
                            "    plugin:\n      name: nix\n")
CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    return tmp_path


def plans(*paths: str) -> dict[str, dict]:
    result = runner.invoke(app, ["plan", "--format", "json", *paths])
    assert result.exit_code == 0, result.output
    return {a["application"]: a for a in json.loads(result.output)["applications"]}


def findings(*args: str) -> tuple[int, list[tuple[str, int, int, str, str]]]:
    result = runner.invoke(app, ["lint", "--format", "json", *args])
    found = json.loads(result.output)["findings"]
    return result.exit_code, [(f["path"], f["line"], f["column"], f["rule_id"], f["message"]) for f in found]


ELSEWHERE = ("Argo CD's repo server fetches it when it renders the application. hooklint did not render it, so none "
             "of its objects were checked, hooks included; vendor it into this repository, or lint what it renders "
             "(`helm template` or `kustomize build` output) with `hooklint lint -`.")


def elsewhere(host: str) -> str:
    """The end of HL009's message for a source ``--fetch`` can fetch from ``host`` (its fix names it)."""
    return ELSEWHERE.replace("; vendor", f"; run with `--fetch` and list {host} in `fetch-hosts` (or give "
                             f"`--fetch-host {host}`) to check it, vendor")


def test_a_chart_of_a_chart_repository_is_named_and_fails_the_run(repo):
    """Before: no finding, no plan entry, exit 0 (44 of 45 such sources in ten public repositories)."""
    write(repo, {".git/config": ORIGIN, "apps/cm.yaml": CHART_REPO})
    code, found = findings("apps")
    assert code == 1  # HL009 is a warning; fail-on warning by default: never a silent pass
    assert found == [("apps/cm.yaml", 8, 5, "HL009",
                      "Application cert-manager (apps/cm.yaml:7): spec.source is the chart cert-manager v1.14.0 of the "
                      "chart repository https://charts.jetstack.io: hooklint fetches it only with `--fetch`. "
                      + elsewhere("charts.jetstack.io"))]
    planned = plans("apps")["apps/cm.yaml (cert-manager)"]
    assert planned["source"]["type"] == "remote"
    assert planned["rendered"] == "none"
    assert planned["rendered_reasons"] == ["apps/cm.yaml:8:5: spec.source is the chart cert-manager v1.14.0 of the "
                                           "chart repository https://charts.jetstack.io: hooklint fetches it only with `--fetch`"]
    text = runner.invoke(app, ["plan", "apps"]).output
    assert ("Application apps/cm.yaml (cert-manager): 0 objects, 0 steps (Argo CD 3.5.1, source from elsewhere of "
            "Application cert-manager (apps/cm.yaml:7): Argo CD's repo server fetches it, hooklint did not; not "
            "rendered)\n  rendered: none: this is not the plan Argo CD syncs:\n") in text


def test_the_file_of_an_application_from_elsewhere_is_parsed_once(repo, parsed):
    """An Application whose source is fetched from elsewhere is read for the map (discovery: its
    sources and the foreign-URL note share one parse), which hands that parse to the lint of its
    folder (facts.take_parsed), and its HL009 is placed in that file without parsing it again (its
    documents are its folder's): one parse of the file in a run, four before. The finding is the same."""
    write(repo, {".git/config": ORIGIN, "apps/cm.yaml": CHART_REPO})
    code, found = findings("apps")
    assert code == 1
    assert [f[:4] for f in found] == [("apps/cm.yaml", 8, 5, "HL009")]
    assert parsed.count("apps/cm.yaml") == 1, parsed


def test_an_oci_chart_an_other_repository_and_an_unknown_scheme_are_named(repo):
    write(repo, {".git/config": ORIGIN, "apps/oci.yaml": OCI_CHART, "apps/git.yaml": OTHER_GIT,
                 "apps/s3.yaml": UNKNOWN})  # fmt: skip
    _, found = findings("apps")
    assert [(p, line, column, rule, message.split(": hooklint")[0]) for p, line, column, rule, message in found] == [
        ("apps/git.yaml", 7, 5, "HL009", "Application guestbook (apps/git.yaml:7): spec.source is the Git repository "
                                         "https://github.com/argoproj/argocd-example-apps.git at HEAD (path guestbook), "
                                         "not this one"),
        ("apps/oci.yaml", 8, 5, "HL009", "Application podinfo (apps/oci.yaml:7): spec.source is the chart podinfo "
                                         "6.5.0 of the OCI registry oci://ghcr.io/acme/charts"),
        ("apps/s3.yaml", 8, 5, "HL009", "Application s3chart (apps/s3.yaml:7): spec.source is the chart thing of "
                                        "s3://charts.example.com/stable, whose scheme hooklint does not know"),
    ]


def test_remote_sources_are_typed_records_a_fetch_step_can_consume(repo):
    from hooklint.config import Config
    from hooklint.sources.repository.tree import REMOTE
    from hooklint.sources.appmap.discovery import group_applications

    write(repo, {".git/config": ORIGIN, "apps/ingress.yaml": MULTI_VALUES, "values/ingress.yaml": "replicas: 2\n"})
    apps = group_applications(["apps"], [], [], config=Config())
    remote = [a for a in apps if a.source_type == REMOTE]
    assert len(remote) == 1 and remote[0].argocd is not None
    record = remote[0].argocd.remote
    assert record is not None
    assert (record.kind, record.repo_url, record.chart, record.target_revision, record.index, record.line,
            record.column, record.value_files) == ("chart-repo", "https://kubernetes.github.io/ingress-nginx",
                                                   "ingress-nginx", "4.10.0", 0, 8, 7, ("values/ingress.yaml",))  # fmt: skip
    assert record.helm == {"valueFiles": ["$values/values/ingress.yaml"]}


def test_values_of_a_ref_source_belong_to_the_application_that_reads_them(repo):
    """Before: the Application vanished from the plan, and values/ was "deployed by no Application"."""
    write(repo, {".git/config": ORIGIN, "apps/ingress.yaml": MULTI_VALUES, "values/ingress.yaml": "replicas: 2\n"})
    planned = plans(".")
    assert sorted(planned) == ["apps", "apps/ingress.yaml (ingress)"]  # values/ has no plan of its own
    assert planned["apps/ingress.yaml (ingress)"]["rendered"] == "none"
    assert planned["apps/ingress.yaml (ingress)"]["rendered_reasons"] == [
        "apps/ingress.yaml:8:7: spec.sources[0] is the chart ingress-nginx 4.10.0 of the chart repository "
        "https://kubernetes.github.io/ingress-nginx: hooklint fetches it only with `--fetch` (with the value files values/ingress.yaml "
        "of this repository)"]
    result = runner.invoke(app, ["lint", "--show-skipped", "."])
    assert result.exit_code == 1
    assert ("note: not linted: values/ingress.yaml: a value file of Application ingress (apps/ingress.yaml:7) "
            "(spec.sources[0].helm.valueFiles): Argo CD reads it as the chart's values, never applies it") in result.output
    assert ("apps/ingress.yaml:8:7: warning HL009 source-not-rendered: Application ingress (apps/ingress.yaml:7): "
            "spec.sources[0] is the chart ingress-nginx 4.10.0 of the chart repository "
            "https://kubernetes.github.io/ingress-nginx: hooklint fetches it only with `--fetch` (with the value files "
            "values/ingress.yaml of this repository). ") in result.output
    assert "deployed by no" not in result.output and "no Application of this repository deploys" not in result.output


def test_a_multi_source_application_with_a_remote_chart_is_partial(repo):
    """Before: "1 object" and rendered: full, the chart's hooks unmentioned."""
    write(repo, {".git/config": ORIGIN, "apps/shop.yaml": MULTI_LOCAL, "shop/cm.yaml": CONFIG_MAP})
    planned = plans("apps", "shop")["apps/shop.yaml (shop)"]
    assert planned["source"]["type"] == "multi-source"
    assert planned["rendered"] == "partial"
    assert planned["rendered_reasons"] == ["apps/shop.yaml:8:7: spec.sources[0] is the chart redis 1.0.0 of the chart "
                                           "repository https://charts.example.com: hooklint fetches it only with `--fetch`"]
    assert [t["name"] for s in planned["steps"] for t in s["tasks"]] == ["settings"]
    # the run naming only the local source still plans the whole Application, and places no finding
    # in the Application's file, which it does not name
    only = plans("shop")["apps/shop.yaml (shop)"]
    assert only["rendered"] == "partial"
    assert findings("shop") == (0, [])


def test_a_jsonnet_source_is_not_full_and_is_named(repo):
    """Before: "no object is applied during a sync", rendered: full, exit 0."""
    write(repo, {".git/config": ORIGIN, "apps/mon.yaml": JSONNET,
                 "jsonnet/main.jsonnet": '{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } }\n'})
    code, found = findings("apps", "jsonnet")
    assert code == 1
    assert found == [("apps/mon.yaml", 7, 5, "HL009",
                      "Application monitoring (apps/mon.yaml:7): spec.source holds jsonnet files (jsonnet/main.jsonnet), "
                      "which Argo CD evaluates and hooklint does not. Argo CD renders it when it syncs the application. "
                      "hooklint did not, so the objects it makes, possibly hooks, were not checked; lint what it renders "
                      "with `hooklint lint -`.")]
    planned = plans("apps", "jsonnet")["jsonnet"]
    assert (planned["rendered"], planned["rendered_reasons"]) == (
        "none", ["jsonnet/main.jsonnet:1:1: jsonnet: Argo CD evaluates it, hooklint does not"])
    text = runner.invoke(app, ["plan", "apps", "jsonnet"]).output
    assert "no object is applied during a sync" not in text


def test_a_plugin_folder_without_yaml_is_named(repo):
    """Before: the Application vanished from plan and notes (its folder holds only flake.nix)."""
    write(repo, {".git/config": ORIGIN, "apps/nix.yaml": PLUGIN, "nixapp/flake.nix": "{ }\n"})
    code, found = findings("apps")
    assert code == 1
    assert found == [("apps/nix.yaml", 7, 5, "HL009",
                      "Application nix (apps/nix.yaml:7): spec.source is rendered by a config management plugin "
                      "(spec.source.plugin), which hooklint never runs. Argo CD renders it when it syncs the application. "
                      "hooklint did not, so the objects it makes, possibly hooks, were not checked; lint what it renders "
                      "with `hooklint lint -`.")]
    planned = plans("apps")["nixapp"]
    assert (planned["source"]["type"], planned["rendered"]) == ("plugin", "none")


def test_an_application_set_generating_a_chart_application_is_named_at_the_template(repo):
    appset = ("apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: charts\nspec:\n"
              "  generators:\n  - list:\n      elements:\n      - name: redis\n  template:\n"
              "    metadata:\n      name: '{{name}}'\n    spec:\n      project: infra\n      source:\n"
              "        repoURL: https://charts.example.com\n        chart: '{{name}}'\n        targetRevision: 1.0.0\n"
              "      destination:\n        namespace: '{{name}}'\n")
    write(repo, {".git/config": ORIGIN, "apps/set.yaml": appset})
    code, found = findings("apps")
    assert code == 1
    assert [(p, line, column, rule) for p, line, column, rule, _ in found] == [("apps/set.yaml", 16, 1, "HL009")]
    assert found[0][4].startswith("Application redis (apps/set.yaml:16): spec.source is the chart redis 1.0.0 of the "
                                  "chart repository https://charts.example.com: hooklint fetches it only with `--fetch`")


def test_credentials_in_a_repository_url_are_never_printed(repo):
    write(repo, {".git/config": ORIGIN,
                 "apps/cm.yaml": CHART_REPO.replace("https://charts.jetstack.io", "https://bot:hunter2secret@charts.x.io")})
    result = runner.invoke(app, ["lint", "apps"])
    plan = runner.invoke(app, ["plan", "--format", "json", "apps"])
    assert "hunter2secret" not in result.output + plan.output
    assert "charts.x.io" in result.output


SOPS_SECRETS = """\
migrate:
  enabled: true
  user: ENC[AES256_GCM,data:dXNlci1jaXBoZXJ0ZXh0,iv:aXY=,tag:dGFn,type:str]
sops:
  age:
    - recipient: age1exampleexampleexampleexampleexampleexampleexampleexample
  lastmodified: "2026-01-01T00:00:00Z"
  mac: ENC[AES256_GCM,data:bWFjLWNpcGhlcnRleHQ=,iv:aXY=,tag:dGFn,type:str]
  version: 3.9.0
"""
MIGRATE_CHART = """\
{{- if .Values.migrate.enabled }}
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    argocd.argoproj.io/hook: PostSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 300
  template:
    spec:
      serviceAccountName: migrate
      automountServiceAccountToken: false
      restartPolicy: Never
      containers:
        - name: migrate
          image: ghcr.io/acme/migrate:1.0.0
          env:
            - name: DB_USER
              value: {{ required "migrate.user is required" .Values.migrate.user | quote }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: migrate
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-admin
subjects:
  - kind: ServiceAccount
    name: migrate
    namespace: db
{{- end }}
"""
SOPS_APP = application("db", "    repoURL: https://github.com/acme/deploy.git\n    path: chart\n    helm:\n"
                             "      valueFiles:\n        - secrets://secrets.yaml\n")


def test_a_sops_value_a_template_needs_renders_the_chart_with_a_placeholder(repo):
    """Before: the chart did not render without the encrypted file (HL009 only): the PostSync Job
    bound to cluster-admin went unchecked."""
    from hooklint.sources.render.helm import find_helm

    if find_helm() is None:
        pytest.skip("no Helm: neither a helm binary nor helm-python-sdk")
    write(repo, {".git/config": ORIGIN, "apps/db.yaml": SOPS_APP, "chart/Chart.yaml": "apiVersion: v2\nname: db\nversion: 0.1.0\n",
                 "chart/secrets.yaml": SOPS_SECRETS, "chart/templates/migrate.yaml": MIGRATE_CHART})  # fmt: skip
    code, found = findings("apps", "chart")
    assert code == 1
    assert [(p, line, column, rule) for p, line, column, rule, _ in found] == [
        ("apps/db.yaml", 11, 11, "HL009"), ("chart/templates/migrate.yaml", 14, 7, "HL106")]
    assert found[1][4].startswith("Job/migrate runs as ServiceAccount 'migrate', and ClusterRoleBinding/migrate binds "
                                  "it to cluster-admin")
    output = runner.invoke(app, ["lint", "apps", "chart"]).output + runner.invoke(app, ["plan", "chart", "apps"]).output
    assert "dXNlci1jaXBoZXJ0ZXh0" not in output and "ENC[" not in output
    assert "rendered: partial" in output


# --- item 2: leave out entries, not applications ------------------------------------------------

HOOK = """\
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
        - name: m
          image: ghcr.io/acme/migrate:latest
"""
INFLATE = """\
apiVersion: builtin
kind: HelmChartInflationGenerator
metadata:
  name: ingress
name: ingress-nginx
repo: https://kubernetes.github.io/ingress-nginx
version: 4.10.0
releaseName: ingress
valuesInline:
  controller:
    image: https://values.example.com/not-the-chart
"""


def needs_kustomize() -> None:
    from hooklint.sources.render.kustomize import find_kustomize

    if find_kustomize() is None:
        pytest.skip("neither kustomize nor kubectl is installed")


@pytest.mark.parametrize("field", ["generators", "transformers"])
def test_a_remote_chart_generator_is_left_out_and_the_local_hook_is_checked(repo, field):
    """Before: nothing rendered (the local hook unchecked), and the reason named the URL of
    valuesInline."""
    needs_kustomize()
    write(repo, {"app/kustomization.yaml": f"resources:\n  - hook.yaml\n{field}:\n  - helm.yaml\n",
                 "app/helm.yaml": INFLATE, "app/hook.yaml": HOOK})  # fmt: skip
    code, found = findings("app")
    assert code == 1
    assert [(p, line, column, rule) for p, line, column, rule, _ in found if rule in ("HL009", "HL102", "HL007")] == [
        ("app/hook.yaml", 13, 18, "HL102"), ("app/kustomization.yaml", 4, 5, "HL009")]
    [hl009] = [message for *_, rule, message in found if rule == "HL009"]
    assert hl009 == (
        f"{field} entry 'helm.yaml' configures a HelmChartInflationGenerator for the chart ingress-nginx 4.10.0 of the "
        "chart repository https://kubernetes.github.io/ingress-nginx, which needs kustomize build --enable-helm (it "
        "runs helm and usually fetches the chart); hooklint never passes it: make the chart a Helm source of its own. "
        "Argo CD renders it when argocd-cm's kustomize.buildOptions has --enable-helm. hooklint left it out, so the "
        "objects it adds, possibly hooks, were not checked; the rest of the application was.")
    planned = plans("app")["app"]
    assert planned["rendered"] == "partial"
    assert [t["name"] for s in planned["steps"] for t in s["tasks"]] == ["migrate"]


def test_an_inline_chart_generator_is_named_by_its_chart(repo):
    needs_kustomize()
    inline = "".join(f"      {line}\n" for line in INFLATE.splitlines())
    write(repo, {"app/kustomization.yaml": f"resources:\n  - hook.yaml\ngenerators:\n  - |\n{inline}",
                 "app/hook.yaml": HOOK})  # fmt: skip
    _, found = findings("app")
    [hl009] = [(p, line, column, message) for p, line, column, rule, message in found if rule == "HL009"]
    assert hl009[:3] == ("app/kustomization.yaml", 4, 5)
    assert hl009[3].startswith("an inline generators entry (apiVersion builtin, kind HelmChartInflationGenerator) "
                               "configures a HelmChartInflationGenerator for the chart "
                               "ingress-nginx 4.10.0 of the chart repository https://kubernetes.github.io/ingress-nginx")
    assert "values.example.com" not in hl009[3]


@pytest.mark.parametrize("field", ["configMapGenerator", "secretGenerator"])
def test_a_generator_reading_a_remote_file_is_left_out_and_the_rest_rendered(repo, field):
    needs_kustomize()
    write(repo, {"app/kustomization.yaml": f"resources:\n  - hook.yaml\n{field}:\n  - name: local\n    literals:\n"
                                           "      - a=b\n  - name: far\n    files:\n"
                                           "      - conf=https://raw.example.com/acme/app.properties\n",
                 "app/hook.yaml": HOOK})  # fmt: skip
    code, found = findings("app")
    assert code == 1
    [hl009] = [(p, line, column, message) for p, line, column, rule, message in found if rule == "HL009"]
    # a secretGenerator's values are redacted (hooklint.sources.render.redact), never its name (issue 34: it was [redacted])
    assert hl009 == ("app/kustomization.yaml", 9, 9, f"{field} entry 'far' reads the remote file "
                     "https://raw.example.com/acme/app.properties, which kustomize fetches: it needs the network; "
                     "hooklint never uses the network: vendor the file into the repository. Argo CD fetches it when it "
                     "renders the application. hooklint left it out, so the objects it adds, possibly hooks, were not "
                     "checked; the rest of the application was.")
    kinds = [(t["kind"], t["name"].split("-")[0]) for s in plans("app")["app"]["steps"] for t in s["tasks"]]
    assert kinds == [("Job", "migrate"), ("ConfigMap" if field == "configMapGenerator" else "Secret", "local")]


def test_a_change_adding_a_chart_application_names_it_in_the_review(repo):
    """`hooklint diff`: the new Application's chart is a new HL009 and is listed as not fully
    rendered after the change (text and JSON)."""
    import subprocess

    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.email=ci@example.com", "-c", "user.name=ci", *args], cwd=repo, check=True,
                       capture_output=True)  # fmt: skip

    git("init", "-q", "-b", "main")
    git("remote", "add", "origin", "https://github.com/acme/deploy.git")
    write(repo, {"apps/project.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"})
    git("add", "-A")
    git("commit", "-qm", "one")
    write(repo, {"apps/cm.yaml": CHART_REPO})
    result = runner.invoke(app, ["diff", "HEAD", "--format", "json"])
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in doc["new"]] == [("HL009", "apps/cm.yaml", 8, 5)]
    assert doc["not_fully_rendered"] == [{"application": "apps/cm.yaml (cert-manager)", "rendered": "none", "reasons": [
        "apps/cm.yaml:8:5: spec.source is the chart cert-manager v1.14.0 of the chart repository "
        "https://charts.jetstack.io: hooklint fetches it only with `--fetch`"]}]
    text = runner.invoke(app, ["diff", "HEAD"]).stdout
    assert text.endswith("\n\nNotes:\n  apps/cm.yaml (cert-manager): nothing of it rendered on the working tree (see its "
                         "new finding), so it is not compared: its 0 findings on HEAD are not counted as fixed and its "
                         "plan is not diffed\n")
    assert ("Not fully rendered after the change (what they add was not checked):\n"
                         "  apps/cm.yaml (cert-manager): rendered none: apps/cm.yaml:8:5: spec.source is the chart "
                         "cert-manager v1.14.0 of the chart repository https://charts.jetstack.io: hooklint fetches "
                         "it only with `--fetch`\n") in text
    markdown = runner.invoke(app, ["diff", "HEAD", "--format", "markdown"]).stdout
    assert "<details open><summary>Not fully rendered after the change (1)</summary>" in markdown


def test_a_spec_source_beside_spec_sources_is_not_named(repo):
    """Argo CD ignores spec.source when spec.sources is set: only the sources' chart is named."""
    both = MULTI_LOCAL.replace("  sources:\n", "  source:\n    repoURL: https://charts.example.com\n    chart: ignored\n"
                                             "  sources:\n")
    write(repo, {".git/config": ORIGIN, "apps/shop.yaml": both, "shop/cm.yaml": CONFIG_MAP})
    _, found = findings("apps", "shop")
    assert [(p, line, column, rule) for p, line, column, rule, _ in found] == [("apps/shop.yaml", 11, 7, "HL009")]


def test_an_app_of_apps_child_of_a_chart_repository_is_named_at_the_template(repo):
    from hooklint.sources.render.helm import find_helm

    if find_helm() is None:
        pytest.skip("no Helm: neither a helm binary nor helm-python-sdk")
    template = ("{{- range .Values.charts }}\n---\napiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n"
                "  name: {{ .name }}\nspec:\n  project: infra\n  source:\n    repoURL: {{ .repo }}\n"
                "    chart: {{ .name }}\n    targetRevision: {{ .version }}\n  destination:\n"
                "    namespace: {{ .name }}\n{{- end }}\n")
    write(repo, {".git/config": ORIGIN, "apps/Chart.yaml": "apiVersion: v2\nname: apps\nversion: 0.1.0\n",
                 "apps/templates/apps.yaml": template,
                 "apps/values.yaml": "charts:\n  - name: redis\n    repo: https://charts.example.com\n    version: 1.0.0\n"})
    code, found = findings("apps")
    assert code == 1
    assert [(p, line, column, rule) for p, line, column, rule, _ in found] == [("apps/templates/apps.yaml", 9, 1, "HL009")]
    planned = plans("apps")["apps/templates/apps.yaml (redis)"]
    assert (planned["source"]["generated_by"], planned["rendered"]) == ("the Helm chart apps/Chart.yaml", "none")
