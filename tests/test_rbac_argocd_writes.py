"""HL106 on a hook's ServiceAccount that may write Argo CD's own objects where Argo CD reads them (a
RoleBinding in Argo CD's namespace, or a ClusterRoleBinding): Applications, ApplicationSets and
AppProjects (``argoproj.io``), the settings ConfigMaps of argo-cd v3.5.1 ``common/common.go`` and
its Secrets (a new cluster or repository Secret, ``argocd-secret``). Each gives the hook control of
Argo CD, whose application controller holds every verb on every resource."""

from __future__ import annotations

import pytest

from conftest import hits
from tests.manifests import RUNNER_HOOK_JOB

JOB = RUNNER_HOOK_JOB
APPS = ("it can create or repoint an Application to deploy anything anywhere Argo CD deploys, with the application "
        "controller's rights")
SETS = "it can make an ApplicationSet generate Applications that deploy anything anywhere Argo CD deploys"
PROJECTS = "it can rewrite a project's limits on source repositories, destinations and cluster-scoped kinds"
SETTINGS = "it can change Argo CD's settings or RBAC policy, or the repository hosts, certificates and keys it trusts"
NEW_SECRET = ("it can add a cluster or repository credential to Argo CD, a Secret labelled "
              "argocd.argoproj.io/secret-type: cluster, repository or repo-creds")
SECRET_WRITE = ("it can change argocd-secret's admin password and token signing key, and the cluster and repository "
                "credentials Argo CD uses")
NAMED_SECRET = "it can change argocd-secret's admin password and token signing key"


def grant(rule: str, namespace: str | None = "argocd") -> str:
    """A Role (a ClusterRole when ``namespace`` is None) holding ``rule`` and its binding of
    ServiceAccount runner of namespace app."""
    if namespace is None:
        return ("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: writer}\n"
                f"rules: [{rule}]\n---\n"
                "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: writer}\n"
                "roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: writer}\n"
                "subjects: [{kind: ServiceAccount, name: runner, namespace: app}]\n")  # fmt: skip
    return ("apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\n"
            f"metadata: {{name: writer, namespace: {namespace}}}\nrules: [{rule}]\n---\n"
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\n"
            f"metadata: {{name: writer, namespace: {namespace}}}\n"
            "roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: writer}\n"
            "subjects: [{kind: ServiceAccount, name: runner, namespace: app}]\n")  # fmt: skip


def message(grants: str, binding: str = "RoleBinding/writer", through: str = "Role 'writer'",
            over: str = "namespace 'argocd'") -> str:
    return (f"Job/migrate runs as ServiceAccount 'runner', and {binding} grants {grants} through {through}: a PreSync "
            f"hook runs on every sync, so whoever controls its image or command holds those rights over {over}. "
            "Grant only the verbs and resources it needs.")


IN_ARGOCD = "in Argo CD's namespace 'argocd'"


@pytest.mark.parametrize("rule, grants", [
    ("{apiGroups: [argoproj.io], resources: [applications], verbs: [create]}",
     f"create on applications {IN_ARGOCD} ({APPS})"),
    ("{apiGroups: [argoproj.io], resources: [applications], verbs: [get, patch, update]}",
     f"update and patch on applications {IN_ARGOCD} ({APPS})"),
    ("{apiGroups: ['*'], resources: [applicationsets], verbs: [create]}",
     f"create on applicationsets {IN_ARGOCD} ({SETS})"),
    ("{apiGroups: [argoproj.io], resources: [appprojects], verbs: [update]}",
     f"update on appprojects {IN_ARGOCD} ({PROJECTS})"),
    ("{apiGroups: [argoproj.io], resources: [appprojects], resourceNames: [default], verbs: [patch]}",
     f"patch on appprojects 'default' {IN_ARGOCD} ({PROJECTS})"),
    # every verb: said once ("every verb on ..."), not again verb by verb with what each allows
    ("{apiGroups: [argoproj.io], resources: [applications], verbs: ['*']}", "every verb on applications"),
    ("{apiGroups: [''], resources: [configmaps], verbs: [patch]}", f"patch on configmaps {IN_ARGOCD} ({SETTINGS})"),
    ("{apiGroups: [''], resources: [configmaps], resourceNames: [argocd-rbac-cm, other], verbs: [update, create]}",
     f"update on configmaps 'argocd-rbac-cm' {IN_ARGOCD} ({SETTINGS})"),
    ("{apiGroups: [''], resources: [configmaps], resourceNames: [argocd-cmd-params-cm], verbs: ['*']}",
     f"update and patch on configmaps 'argocd-cmd-params-cm' {IN_ARGOCD} ({SETTINGS})"),
    ("{apiGroups: [''], resources: [secrets], verbs: [create]}", f"create on secrets {IN_ARGOCD} ({NEW_SECRET})"),
    ("{apiGroups: [''], resources: [secrets], verbs: [update]}", f"update on secrets {IN_ARGOCD} ({SECRET_WRITE})"),
    ("{apiGroups: [''], resources: [secrets], resourceNames: [argocd-secret], verbs: [patch]}",
     f"patch on secrets 'argocd-secret' {IN_ARGOCD} ({NAMED_SECRET})"),
])  # fmt: skip
def test_hl106_reports_writes_that_take_over_argocd(rule: str, grants: str) -> None:
    assert hits("HL106", JOB, context=grant(rule)) == [(11, 27, message(grants))]


def test_hl106_reports_every_write_of_one_role_and_cluster_wide() -> None:
    rules = ("{apiGroups: [argoproj.io], resources: [applications, appprojects], verbs: [create]}, "
             "{apiGroups: [''], resources: [secrets], verbs: [create]}")  # fmt: skip
    grants = (f"create on applications cluster-wide ({APPS}), and create on appprojects cluster-wide ({PROJECTS}), "
              f"and create on secrets cluster-wide ({NEW_SECRET})")  # fmt: skip
    assert hits("HL106", JOB, context=grant(rules, None)) == [
        (11, 27, message(grants, "ClusterRoleBinding/writer", "ClusterRole 'writer'", "the cluster")),
    ]


def test_hl106_reads_argocd_namespace_from_configuration_and_openshift_gitops() -> None:
    rule = "{apiGroups: [argoproj.io], resources: [applications], verbs: [create]}"
    assert hits("HL106", JOB, config={"argocd-namespace": "gitops"}, context=grant(rule, "gitops")) == [
        (11, 27, message(f"create on applications in Argo CD's namespace 'gitops' ({APPS})", over="namespace 'gitops'")),
    ]
    assert hits("HL106", JOB, context=grant(rule, "openshift-gitops")) == [
        (11, 27, message(f"create on applications in Argo CD's namespace 'openshift-gitops' ({APPS})",
                         over="namespace 'openshift-gitops'")),
    ]  # fmt: skip


@pytest.mark.parametrize("rule, namespace", [
    ("{apiGroups: [argoproj.io], resources: [applications], verbs: [create]}", "app"),  # not Argo CD's namespace
    ("{apiGroups: [''], resources: [configmaps, secrets], verbs: [create, update, patch]}", "gitops"),
    ("{apiGroups: [argoproj.io], resources: [applications, appprojects], verbs: [get, list, watch, delete]}", "argocd"),
    ("{apiGroups: [''], resources: [applications], verbs: [create]}", "argocd"),  # not Argo CD's group
    ("{apiGroups: [apps], resources: [configmaps], verbs: [update]}", "argocd"),
    ("{apiGroups: [''], resources: [configmaps], resourceNames: [app-settings], verbs: [update, patch]}", "argocd"),
    ("{apiGroups: [''], resources: [configmaps], resourceNames: [argocd-cm], verbs: [create, get]}", "argocd"),
    ("{apiGroups: [''], resources: [secrets], resourceNames: [app-db], verbs: [update, patch]}", "argocd"),
    ("{apiGroups: [''], resources: [configmaps], verbs: [get, list, watch]}", "argocd"),
])  # fmt: skip
def test_hl106_quiet_on_writes_that_do_not_reach_argocd(rule: str, namespace: str) -> None:
    assert hits("HL106", JOB, context=grant(rule, namespace)) == []
