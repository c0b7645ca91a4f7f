"""Where Argo CD's control plane runs names each Application (attacker trial 19, B8).

Argo CD's controller gives the repo server ``app.InstanceName(controllerNamespace)`` (argo-cd v3.5.1
``controller/state.go`` ``AppName: app.InstanceName(m.namespace)``; ``pkg/apis/application/v1alpha1/types.go``
``InstanceName``: the name when the Application lives in the controller's namespace, else
``<namespace>_<name>``), which picks ``.argocd-source-<it>.yaml`` (``reposerver/repository/repository.go``
``mergeSourceParameters``) and is ``$ARGOCD_APP_NAME`` (``newEnv``). hooklint read every Application
against ``argocd``: one in ``openshift-gitops`` (or in the namespace of the repository's own
``argocd-cm``) had ``.argocd-source-openshift-gitops_shop.yaml`` applied, which Argo CD never reads,
and a privileged PreSync hook it excluded passed with exit 0. The attacker's fixtures
(/work/attack19/fx/38-control-plane-ns, 41-appname-valuefile) are written here from scratch."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from conftest import commit_tagged as commit, git_checkout, hits
from hooklint.cli import app
from hooklint.sources.render.helm import find_helm

runner = CliRunner()
needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")

#: A PreSync Job that shares the node's process namespace, otherwise well kept: one HL105 error.
HOOK = """apiVersion: batch/v1
kind: Job
metadata:
  name: pre
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 100
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: x
      automountServiceAccountToken: false
      hostPID: true
      containers:
      - name: a
        image: registry.k8s.io/pause:3.9
"""
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n"
ARGOCD_CM = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm, namespace: gitops}\ndata: {}\n"


def application(namespace: str, path: str = "app", helm: str = "") -> str:
    return ("apiVersion: argoproj.io/v1alpha1\nkind: Application\n"
            f"metadata: {{name: shop, namespace: {namespace}}}\nspec:\n  project: shop\n"
            "  destination: {server: 'https://kubernetes.default.svc', namespace: shop}\n"
            f"  source:\n    repoURL: https://github.com/acme/deploy.git\n    path: {path}\n"
            "    targetRevision: HEAD\n" + helm)  # fmt: skip


def excluding(namespace: str, name: str = "hook.yaml") -> dict[str, str]:
    """An Application in ``namespace`` whose override named ``<namespace>_shop`` leaves the hook out."""
    return {"apps/app.yaml": application(namespace), "app/cm.yaml": CM, f"app/{name}": HOOK,
            f"app/.argocd-source-{namespace}_shop.yaml": "directory:\n  exclude: '{hook.yaml,wip-*}'\n"}


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """An empty git repository, the current folder."""
    return git_checkout(tmp_path, monkeypatch)


def run(*args: str) -> tuple[int, dict]:
    result = runner.invoke(app, [*args[:1], "--format", "json", *args[1:]])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, json.loads(result.stdout)


def said(findings: list[dict]) -> list[tuple]:
    return sorted((f["rule_id"], f["path"], f["line"], f["column"]) for f in findings)


def undecided(namespace: str, others: str, what: str) -> str:
    return (f"Application shop (apps/app.yaml:8): Argo CD names Application 'shop' of namespace '{namespace}' 'shop' "
            f"when its controller runs in '{namespace}' and '{namespace}_shop' when it runs in another namespace (such as "
            f"{others}; apps in any namespace) (InstanceName), and the name picks what it renders ({what}); hooklint does not guess where it runs, "
            "and rendered nothing of this source as this Application: set argocd-namespace in the configuration to "
            "the namespace Argo CD runs in.")  # fmt: skip


# --- the attacker's inputs: each passed with exit 0 before ---------------------------------------------------

def test_an_application_in_openshift_gitops_is_read_as_argo_cd_running_there(repo):
    """Was: 0 findings, exit 0, app/hook.yaml "left out by directory.exclude" of a file Argo CD never reads.
    An Application in a namespace Argo CD runs in is taken to be its controller's: named 'shop', so the
    override named 'openshift-gitops_shop' is merged into no Application (HL009 on it) and the hook is
    applied (HL105)."""
    commit(repo, "base", excluding("openshift-gitops"))
    code, doc = run("lint", ".")
    assert code == 1
    assert said(doc["findings"]) == [("HL009", "app/.argocd-source-openshift-gitops_shop.yaml", 1, 1),
                                     ("HL105", "app/hook.yaml", 16, 16)]


def test_an_application_in_argocd_with_its_own_override_is_read_as_argo_cd_reads_it(repo):
    """The common case (Argo CD Image Updater writes .argocd-source-<name>.yaml): an Application in
    argocd merges .argocd-source-shop.yaml, with no configuration and nothing said of where Argo CD runs."""
    commit(repo, "base", {"apps/app.yaml": application("argocd"), "app/cm.yaml": CM, "app/hook.yaml": HOOK,
                          "app/.argocd-source-shop.yaml": "directory:\n  exclude: hook.yaml\n"})  # fmt: skip
    code, doc = run("lint", ".")
    assert (code, said(doc["findings"])) == (0, [])


def test_the_namespace_of_the_repositorys_argocd_cm_may_be_argo_cds(repo):
    """B8, argocd-cm in namespace gitops and the Application there. Was: 0 findings, exit 0."""
    commit(repo, "base", {**excluding("gitops"), "argocd/argocd-cm.yaml": ARGOCD_CM})
    code, doc = run("lint", ".")
    assert code == 1
    assert said(doc["findings"]) == [("HL009", "app/.argocd-source-gitops_shop.yaml", 1, 1),
                                     ("HL105", "app/hook.yaml", 16, 16)]


@pytest.mark.parametrize("name", ["argocd-cmd-params-cm", "argocd-cm"])
def test_an_argo_cd_config_map_of_the_run_names_a_candidate(name):
    from hooklint.argocd import ControlPlane, control_plane_namespaces

    plane = control_plane_namespaces(None, [("ConfigMap", name, "gitops"), ("ConfigMap", "other", "x"),
                                            ("Secret", name, "y")])  # fmt: skip
    assert plane == ControlPlane(None, ("argocd", "gitops", "openshift-gitops"))
    assert plane.instance_names("shop", "gitops") == ("shop",)  # Argo CD runs where its Applications are
    # its own namespace may be the controller's: outside it only with apps in any namespace
    assert plane.instance_names("shop", "team-a") == ("team-a_shop", "shop")
    assert plane.instance_names("shop", None) == ("shop",)
    configured = control_plane_namespaces("gitops", [])
    assert configured.instance_names("shop", "gitops") == ("shop",)
    assert configured.instance_names("shop", "argocd") == ("argocd_shop",)


@needs_helm
def test_argocd_app_name_in_a_value_file_is_not_read_as_argocds(repo):
    """B8b: values-$ARGOCD_APP_NAME.yaml of an Application in openshift-gitops. Was: values-openshift-gitops_shop.yaml
    read (hostPID false), 0 findings, exit 0; Argo CD, running where its Application is, reads values-shop.yaml."""
    chart = {"chart/Chart.yaml": "apiVersion: v2\nname: chart\nversion: 0.1.0\n",
             "chart/values.yaml": "hostPID: false\n", "chart/templates/cm.yaml": CM,
             "chart/templates/hook.yaml": HOOK.replace("hostPID: true", "hostPID: {{ .Values.hostPID }}"),
             "chart/values-shop.yaml": "hostPID: true\n", "chart/values-openshift-gitops_shop.yaml": "hostPID: false\n",
             "apps/app.yaml": application("openshift-gitops", "chart",
                                          "    helm:\n      valueFiles: [\"values-$ARGOCD_APP_NAME.yaml\"]\n")}  # fmt: skip
    commit(repo, "base", chart)
    code, doc = run("lint", ".")
    assert (code, said(doc["findings"])) == (1, [("HL105", "chart/templates/hook.yaml", 16, 7)])
    commit(repo, "configured", {".hooklint.yaml": "argocd-namespace: openshift-gitops\n"})
    code, doc = run("lint", ".")
    assert (code, said(doc["findings"])) == (1, [("HL105", "chart/templates/hook.yaml", 16, 7)])


# --- the configuration settles it, and is then said nothing of --------------------------------------------------

@pytest.mark.parametrize("namespace, expected", [
    # Argo CD runs there: the Application is 'shop', the other name's file is one hooklint cannot place
    ("openshift-gitops", [("HL009", "app/.argocd-source-openshift-gitops_shop.yaml", 1, 1),
                          ("HL105", "app/hook.yaml", 16, 16)]),
    # Argo CD runs in argocd: the file is this Application's, and leaves the hook out as Argo CD does
    ("argocd", []),
])  # fmt: skip
def test_argocd_namespace_names_the_controllers_namespace(repo, namespace, expected):
    commit(repo, "base", {**excluding("openshift-gitops"), ".hooklint.yaml": f"argocd-namespace: {namespace}\n"})
    code, doc = run("lint", ".")
    assert (code, said(doc["findings"])) == (1 if expected else 0, expected)


def test_no_finding_where_the_name_changes_nothing(repo):
    """No override file and no $ARGOCD_APP_NAME in a value file: the name changes nothing, no HL009."""
    commit(repo, "base", {"apps/app.yaml": application("openshift-gitops"), "app/cm.yaml": CM,
                          "apps/b.yaml": application("team-a").replace("name: shop", "name: b").replace("app\n", "b\n"),
                          "b/cm.yaml": CM, "b/.argocd-source.yaml": "directory:\n  recurse: false\n"})  # fmt: skip
    code, doc = run("lint", ".")
    assert (code, said(doc["findings"])) == (0, [])


@pytest.mark.parametrize("config, expected", [
    # team-a may be the controller's own namespace (no apps in any namespace): then b/hook.yaml is applied
    ("", [("HL009", "apps/b.yaml", 8, 5), ("HL009", "b/.argocd-source-team-a_b.yaml", 1, 1),
          ("HL105", "b/hook.yaml", 16, 16)]),
    ("argocd-namespace: argocd\n", []),  # Argo CD runs in argocd: team-a_b is the Application's name
])  # fmt: skip
def test_an_application_outside_the_known_namespaces_may_be_in_the_controllers(repo, config, expected):
    commit(repo, "base", {"apps/b.yaml": application("team-a").replace("name: shop", "name: b").replace("app\n", "b\n"),
                          "b/cm.yaml": CM, "b/hook.yaml": HOOK, ".hooklint.yaml": config or "{}\n",
                          "b/.argocd-source-team-a_b.yaml": "directory:\n  exclude: hook.yaml\n"})  # fmt: skip
    code, doc = run("lint", ".")
    assert (code, said(doc["findings"])) == (1 if expected else 0, expected)


def test_a_bad_argocd_namespace_is_a_usage_error(repo):
    commit(repo, "base", {"app/cm.yaml": CM, ".hooklint.yaml": "argocd-namespace: Open_Shift\n"})
    result = runner.invoke(app, ["lint", "."])
    assert result.exit_code == 2
    assert "'argocd-namespace' must be a string matching" in result.output


# --- hooklint diff: the base's policy ---------------------------------------------------------------------------

def test_diff_counts_a_hook_an_override_argo_cd_never_reads_would_hide(repo):
    """B8 in a review: the base's override of the other name already excludes wip-*; the change adds a
    hostPID PreSync hook there. Was: 0 new findings, exit 0."""
    base = excluding("openshift-gitops")
    del base["app/hook.yaml"]
    commit(repo, "base", base)
    commit(repo, "head", {"app/wip-migrate.yaml": HOOK})
    code, doc = run("diff", "base", "--head", "head")
    assert (code, said(doc["new"])) == (1, [("HL105", "app/wip-migrate.yaml", 16, 16)])


def test_diff_takes_argocd_namespace_from_the_base(repo):
    """The change sets argocd-namespace so that the override applies and adds the hook it hides: the
    base's configuration (openshift-gitops) decides, and the hook is new."""
    base = {**excluding("openshift-gitops"), ".hooklint.yaml": "argocd-namespace: openshift-gitops\n"}
    del base["app/hook.yaml"]
    commit(repo, "base", base)
    commit(repo, "head", {"app/wip-migrate.yaml": HOOK, ".hooklint.yaml": "argocd-namespace: argocd\n"})
    code, doc = run("diff", "base", "--head", "head")
    assert (code, said(doc["new"])) == (1, [("HL105", "app/wip-migrate.yaml", 16, 16)])


# --- HL106 asks the same place ---------------------------------------------------------------------------------

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  namespace: cd
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  template:
    spec:
      serviceAccountName: runner
      restartPolicy: Never
      containers: [{name: a, image: "ghcr.io/acme/a:1.0.0"}]
"""
SECRETS = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: runner, namespace: cd}
rules:
- apiGroups: [""]
  resources: [secrets]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: runner, namespace: cd}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: runner}
subjects: [{kind: ServiceAccount, name: runner, namespace: cd}]
"""


@pytest.mark.parametrize("config, extra, reported", [
    ({}, "", False),  # no sign of Argo CD in namespace cd
    ({"argocd-namespace": "cd"}, "", True),  # configured: Argo CD's Secrets are there
    ({}, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cmd-params-cm, namespace: cd}\n", True),
])
def test_hl106_reads_argo_cds_namespace_from_the_same_place(config, extra, reported):
    found = hits("HL106", JOB, config=config, context=SECRETS + extra)
    assert bool(found) is reported
    if reported:
        assert "reading secrets in namespace 'cd' (Argo CD's" in found[0][2]


def test_a_chart_from_elsewhere_with_argocd_app_name_value_files_is_not_given_one_name(repo):
    """A multi-source chart of a chart repository whose $values file is named by $ARGOCD_APP_NAME: what
    --fetch renders would read one name's file silently; the Application is HL009 naming both
    (was: the chart's own HL009 only, and --fetch read values-openshift-gitops_shop.yaml)."""
    app_text = application("team-a").split("  source:\n")[0] + (
        "  sources:\n  - repoURL: https://charts.example.com/\n    chart: shop\n    targetRevision: 1.0.0\n"
        "    helm:\n      valueFiles: [\"$values/vals/values-$ARGOCD_APP_NAME.yaml\"]\n"
        "  - repoURL: https://github.com/acme/deploy.git\n    ref: values\n")
    commit(repo, "base", {"apps/app.yaml": app_text, "vals/values-shop.yaml": "hostPID: true\n"})
    code, doc = run("lint", ".")
    assert code == 1
    assert [(f["rule_id"], f["path"], f["message"]) for f in doc["findings"]] == [
        ("HL009", "apps/app.yaml", undecided("team-a", "'argocd' or 'openshift-gitops'",
                                             "its helm.valueFiles read files named by $ARGOCD_APP_NAME"))]
