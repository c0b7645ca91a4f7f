"""Which ServiceAccounts an RBAC binding reaches, as Kubernetes matches a subject to a token
(attacker trial 7, F1): a ``User`` named ``system:serviceaccount:<ns>:<name>`` and the ``Group``
subjects ``system:serviceaccounts``, ``system:serviceaccounts:<ns>`` and ``system:authenticated``
grant a ServiceAccount its role as surely as ``kind: ServiceAccount`` does (HL106, HL104, HL301,
HL310); and a projected ``serviceAccountToken`` volume mounts a token when automount is off
(HL104)."""

from __future__ import annotations

import pytest

from conftest import hits
from hooklint.pipeline import lint_text
from tests.manifests import RUNNER_HOOK_JOB

JOB = RUNNER_HOOK_JOB

TAIL = ("a PreSync hook runs on every sync, so whoever controls its image or command holds those rights over "
        "the cluster. Grant only the verbs and resources it needs.")


def crb(subject: str, role: str = "cluster-admin", name: str = "grant") -> str:
    return ("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\n"
            f"metadata: {{name: {name}}}\n"
            f"roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: {role}}}\n"
            f"subjects: [{subject}]\n")  # fmt: skip


@pytest.mark.parametrize("subject, via", [
    ("{kind: User, apiGroup: rbac.authorization.k8s.io, name: 'system:serviceaccount:app:runner'}",
     "User 'system:serviceaccount:app:runner'"),
    ("{kind: User, name: 'system:serviceaccount:app:runner'}", "User 'system:serviceaccount:app:runner'"),
    ("{kind: Group, apiGroup: rbac.authorization.k8s.io, name: 'system:serviceaccounts:app'}",
     "Group 'system:serviceaccounts:app', every ServiceAccount of namespace 'app'"),
    ("{kind: Group, name: 'system:serviceaccounts'}", "Group 'system:serviceaccounts', every ServiceAccount of the cluster"),
    ("{kind: Group, name: 'system:authenticated'}",
     "Group 'system:authenticated', every authenticated user and ServiceAccount"),
])  # fmt: skip
def test_hl106_sees_user_and_group_subjects_that_reach_the_service_account(subject: str, via: str) -> None:
    assert hits("HL106", JOB, context=crb(subject)) == [
        (11, 27, f"Job/migrate runs as ServiceAccount 'runner', and ClusterRoleBinding/grant (subject {via}) binds "
                 f"it to cluster-admin: {TAIL}"),
    ]  # fmt: skip


@pytest.mark.parametrize("subject", [
    "{kind: User, name: runner}",  # a user, not the ServiceAccount
    "{kind: User, name: 'system:serviceaccount:other:runner'}",
    "{kind: User, name: 'system:serviceaccount:app:runner:x'}",
    "{kind: Group, name: 'system:serviceaccounts:other'}",
    "{kind: Group, name: 'system:serviceaccounts:'}",
    "{kind: Group, name: 'system:unauthenticated'}",
    "{kind: Group, apiGroup: acme.io, name: 'system:serviceaccounts'}",  # rejected by the API server
    "{kind: ServiceAccount, name: 'system:serviceaccounts'}",
])  # fmt: skip
def test_hl106_subjects_that_do_not_reach_it(subject: str) -> None:
    assert hits("HL106", JOB, context=crb(subject)) == []


def test_hl104_does_not_claim_no_binding_when_a_group_binding_grants_a_role() -> None:
    """HL104 said 'no binding in this application grants it a role' while a Group binding granted one."""
    sa = "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: runner, namespace: app}\n"
    assert [h[:2] for h in hits("HL104", JOB, context=sa)] == [(10, 5)]
    granted = sa + "---\n" + crb("{kind: Group, name: 'system:serviceaccounts:app'}", role="view")
    assert hits("HL104", JOB, context=granted) == []


PROJECTED = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  namespace: app
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  template:
    spec:
      serviceAccountName: runner
      automountServiceAccountToken: false
      restartPolicy: Never
      volumes:
        - name: tok
          projected:
            sources:
              - configMap: {name: ca}
              - serviceAccountToken: {path: token{audience}}
      containers:
        - name: a
          image: ghcr.io/acme/a:1.0.0
          volumeMounts: [{mounts}]
"""


def projected(audience: str = "", mounts: str = "{name: tok, mountPath: /var/run/secrets/kubernetes.io/serviceaccount}") -> str:
    return PROJECTED.replace("{audience}", audience).replace("{mounts}", mounts)


def test_hl104_counts_a_projected_service_account_token_when_automount_is_off() -> None:
    assert hits("HL104", projected()) == [
        (19, 17, "Job/migrate mounts the token of ServiceAccount 'runner' (projected volume 'tok', though automount "
                 "is off), and no binding in this application grants it a role. Remove the serviceAccountToken source, or bind it to "
                 "a least-privilege Role."),
    ]  # fmt: skip
    # another audience: not a token the API server accepts; a volume no container mounts: no token
    assert hits("HL104", projected(audience=", audience: vault")) == []
    assert hits("HL104", projected(mounts="")) == []
    # a role granted: the hook uses its token, HL106 judges the grant
    assert hits("HL104", projected(), context=crb("{kind: ServiceAccount, name: runner, namespace: app}", role="view")) == []


def test_hl104_projected_token_is_not_fixed_by_setting_automount() -> None:
    """``hooklint fix`` leaves the projected token to a person (it would write a wrong field)."""
    from hooklint.fix import FIXERS, LeftForAPerson  # noqa: PLC0415

    finding = next(f for f in lint_text(projected()) if f.rule_id == "HL104")
    assert finding.field_path == "spec.template.spec.volumes[0].projected.sources[1].serviceAccountToken"
    with pytest.raises(LeftForAPerson, match="projected serviceAccountToken"):
        FIXERS["HL104"](projected(), None, finding, None, None)


def test_hl301_and_hl310_follow_a_group_binding() -> None:
    """A Group binding applied after the hook (HL301) or with it (HL310) is the hook's RBAC too."""
    later = crb("{kind: Group, name: 'system:serviceaccounts:app'}", role="view").replace(
        "metadata: {name: grant}", "metadata: {name: grant, annotations: {argocd.argoproj.io/sync-wave: '5'}}")
    got = [(f.rule_id, f.span.line, f.span.column) for f in lint_text(JOB, context=later) if f.rule_id in ("HL301", "HL310")]
    assert got == [("HL301", 11, 27)]
    same = crb("{kind: User, name: 'system:serviceaccount:app:runner'}", role="view").replace(
        "metadata: {name: grant}", "metadata: {name: grant, annotations: {argocd.argoproj.io/hook: PreSync}}")
    got = [(f.rule_id, f.span.line, f.span.column) for f in lint_text(JOB, context=same) if f.rule_id in ("HL301", "HL310")]
    assert got == [("HL310", 11, 27)]


# --- F2: what an aggregated or built-in ClusterRole holds -------------------------------------

SA_CRB = "subjects: [{kind: ServiceAccount, name: runner, namespace: app}]"


def aggregated(selectors: str, name: str = "sneaky", labels: str = "") -> str:
    meta = f"{{name: {name}, labels: {{{labels}}}}}" if labels else f"{{name: {name}}}"
    return (f"apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {meta}\n"
            f"aggregationRule:\n  clusterRoleSelectors: {selectors}\nrules: []\n")  # fmt: skip


def grant(role: str, kind: str = "ClusterRoleBinding") -> str:
    ns = ", namespace: app" if kind == "RoleBinding" else ""
    return (f"apiVersion: rbac.authorization.k8s.io/v1\nkind: {kind}\nmetadata: {{name: grant{ns}}}\n"
            f"roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: '{role}'}}\n{SA_CRB}\n")


def hl106(context: str) -> list[str]:
    found = hits("HL106", JOB, context=context)
    assert all((line, column) == (11, 27) for line, column, _ in found)
    return [message.split(", and ClusterRoleBinding/grant ", 1)[-1].split(", and RoleBinding/grant ", 1)[-1]
            .removesuffix(": " + TAIL) for _, _, message in found]  # fmt: skip


PODS_PHRASE = ("running pods cluster-wide ({}: it can run code as any ServiceAccount of any namespace, "
               "with that namespace's Secrets)")
TOKENS_PHRASE = ("issuing tokens cluster-wide (create on serviceaccounts/token: a token for any ServiceAccount of any "
                 "namespace)")
WORKLOADS = ("create, update and patch on pods, replicationcontrollers, daemonsets, deployments, replicasets, "
             "statefulsets, cronjobs, jobs; create on pods/exec, pods/attach")
EDIT_GRANTS = ("grants impersonate on serviceaccounts (it can act as any user, group or ServiceAccount it names), and "
               f"{PODS_PHRASE.format(WORKLOADS)}, and {TOKENS_PHRASE}, and "
               "reading secrets cluster-wide through ClusterRole 'sneaky' (its aggregationRule gathers the rules of ")


def test_hl106_aggregated_cluster_role_holds_what_its_selectors_gather() -> None:
    """The trial's role: selecting aggregate-to-admin gathers the built-in edit (which carries that
    label) and so admin's rules; aggregate-to-edit gathers system:aggregate-to-edit (edit's)."""
    admin = aggregated('[{matchLabels: {rbac.authorization.k8s.io/aggregate-to-admin: "true"}}]')
    assert hl106(admin + "---\n" + grant("sneaky")) == [EDIT_GRANTS + "the built-in ClusterRole 'edit')"]
    edit = aggregated("[{matchExpressions: [{key: rbac.authorization.k8s.io/aggregate-to-edit, operator: In, "
                      "values: ['true']}]}]")  # fmt: skip
    assert hl106(edit + "---\n" + grant("sneaky")) == [EDIT_GRANTS + "the built-in ClusterRole 'system:aggregate-to-edit')"]
    # every ClusterRole: cluster-admin's rules first
    everything = aggregated("[{}]")
    assert hl106(everything + "---\n" + grant("sneaky")) == [
        "grants every resource with every verb, and impersonate on serviceaccounts (it can act as any user, group or "
        "ServiceAccount it names), and escalate on clusterroles (it can write roles with rights it does "
        f"not hold), and every verb on nodes/log, nodes/metrics, nodes/proxy, nodes/stats, and "
        f"{PODS_PHRASE.format(WORKLOADS)}, and {TOKENS_PHRASE}, and reading secrets cluster-wide, and approve on "
        "signers kubernetes.io/kube-apiserver-client, kubernetes.io/kube-apiserver-client-kubelet, "
        "kubernetes.io/legacy-unknown (it can approve certificates that authenticate to the API server as another "
        "user or node) through ClusterRole 'sneaky' (its aggregationRule gathers the rules of the built-in ClusterRole "
        "'cluster-admin', the built-in ClusterRole 'admin', the built-in ClusterRole 'edit' and 24 more)"]


def test_hl106_aggregated_role_gathers_the_application_s_own_cluster_roles() -> None:
    mine = aggregated("[{matchLabels: {acme.io/aggregate-to-ops: 'true'}}]") + "---\n" + (
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\n"
        "metadata: {name: ops-extra, labels: {acme.io/aggregate-to-ops: 'true'}}\n"
        "rules: [{apiGroups: [rbac.authorization.k8s.io], resources: [clusterrolebindings], verbs: [bind, create]}]\n")
    assert hl106(mine + "---\n" + grant("sneaky")) == [
        "grants bind on clusterrolebindings (it can bind itself to any role, cluster-admin included) through "
        "ClusterRole 'sneaky' (its aggregationRule gathers the rules of ClusterRole 'ops-extra')"]


@pytest.mark.parametrize("selectors", [
    '[{matchLabels: {rbac.authorization.k8s.io/aggregate-to-view: "true"}}]',  # view reads no Secret
    # a label no known role carries: a warning now (tests/test_rbac_unseen.py)
    "[{matchExpressions: [{key: rbac.authorization.k8s.io/aggregate-to-edit, operator: Exists, values: ['x']}]}]",
    "[{matchExpressions: [{key: rbac.authorization.k8s.io/aggregate-to-edit, operator: Maybe}]}]",
    "[]",
])  # fmt: skip
def test_hl106_aggregated_role_that_gathers_nothing_reported(selectors: str) -> None:
    assert hl106(aggregated(selectors) + "---\n" + grant("sneaky")) == []


def test_hl106_built_in_roles_that_escalate() -> None:
    assert hl106(grant("system:controller:clusterrole-aggregation-controller")) == [
        "grants escalate on clusterroles (it can write roles with rights it does not hold) through the built-in "
        "ClusterRole 'system:controller:clusterrole-aggregation-controller'"]
    assert hl106(grant("system:controller:namespace-controller")) == [
        "grants every resource through the built-in ClusterRole 'system:controller:namespace-controller'"]
    assert hl106(grant("system:node")) == [
        f"grants {PODS_PHRASE.format('create on pods')}, and {TOKENS_PHRASE}, and reading secrets cluster-wide through the "
        "built-in ClusterRole 'system:node'"]
    # in one namespace, system:node's secret reads are not cluster-wide; escalate still is escalate
    assert hl106(grant("system:node", kind="RoleBinding")) == []
    assert len(hl106(grant("system:controller:clusterrole-aggregation-controller", kind="RoleBinding"))) == 1
    # harmless built-ins, and a role of the application with a built-in's name, read as written
    assert hl106(grant("system:controller:horizontal-pod-autoscaler")) == []
    assert hl106(grant("view")) == []
    own = ("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: 'system:node'}\n"
           "rules: [{apiGroups: [''], resources: [configmaps], verbs: [get]}]\n---\n")
    assert hl106(own + grant("system:node")) == []


@pytest.mark.parametrize("selector, labels, expected", [
    ({}, {}, True),
    ({"matchLabels": {"a": "1"}}, {"a": "1", "b": "2"}, True),
    ({"matchLabels": {"a": "1"}}, {"a": "2"}, False),
    ({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": ["1"]}]}, {}, True),
    ({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": ["1"]}]}, {"a": "1"}, False),
    ({"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]}, {"a": "1"}, False),
    ({"matchExpressions": [{"key": "a", "operator": "Exists"}]}, {"a": ""}, True),
    ({"matchExpressions": [{"key": "a", "operator": "In", "values": []}]}, {"a": "1"}, False),
    ("not a selector", {}, False),
])  # fmt: skip
def test_label_selector_as_kubernetes_reads_it(selector: object, labels: dict, expected: bool) -> None:
    from hooklint.model import selects  # noqa: PLC0415

    assert selects(selector, labels) is expected


def test_hl106_judges_each_binding_of_one_name_on_its_own():
    """Two RoleBindings named alike in two namespaces are two bindings: the first granting
    nothing to the hook's ServiceAccount must not hide the second (the pairs already judged were
    keyed by the binding's label, which names no namespace); and of two copies of one binding, the
    last is the one Argo CD keeps (the peer suites' probe copies)."""
    from hooklint.config import parse_config
    from hooklint.pipeline import lint_text

    text = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: runner, namespace: a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: ServiceAccount, name: job, namespace: a}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: runner, namespace: b}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: ServiceAccount, name: job, namespace: b}]
---
apiVersion: v1
kind: Pod
metadata: {name: probe, namespace: b}
spec:
  serviceAccountName: job
  containers: [{name: c, image: registry.example.com/c:1.0.0}]
"""
    found = [(f.span.line, f.span.column, f.message.split(":")[0]) for f in
             lint_text(text, parse_config({"check-all-workloads": True}, "t")) if f.rule_id == "HL106"]
    assert found == [(17, 23, "Pod/probe runs as ServiceAccount 'job', and RoleBinding/runner binds it to cluster-admin")]


def test_hl106_asks_only_the_bindings_that_may_reach_a_hooks_account(monkeypatch) -> None:
    """Attacker trial 15: 2,000 hook Pods and 2,000 RoleBindings, each of its own ServiceAccount,
    took HL106 a minute and a half (every pod against every binding, the pod's accounts worked out
    again for each). Bindings are indexed by the accounts their subjects name: a pod asks those,
    and the group subjects that reach every account."""
    from hooklint import model
    from hooklint.checks import rbac

    asked = []
    real = model.binding_grantee
    monkeypatch.setattr(rbac, "binding_grantee", lambda *a: asked.append(1) or real(*a))
    docs = []
    for i in range(60):
        docs.append(f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p{i}\n  annotations: {{argocd.argoproj.io/hook: PreSync}}\n"
                    f"spec:\n  serviceAccountName: sa{i}\n  containers: [{{name: c, image: busybox:1.36}}]\n")
        docs.append(f"apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {{name: b{i}}}\n"
                    f"roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}}\n"
                    f"subjects: [{{kind: ServiceAccount, name: sa{i}}}]\n")
    docs.append(crb("{kind: Group, name: system:serviceaccounts}", name="everyone"))
    found = hits("HL106", "---\n".join(docs))
    assert len(found) == 120  # each pod: its own binding, and the group's
    assert len(asked) == 120  # was 60 x 61
