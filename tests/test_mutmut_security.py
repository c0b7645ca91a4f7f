"""Issue 36: the mutants mutmut left alive in the code added to HL104, HL105 and HL106 (projected
tokens, claims bound to hostPath volumes, User and Group subjects, aggregated ClusterRoles), found
with ``bench/mutmut_checks.py`` over those functions; each test fails on the mutants its docstring
names and asserts exact messages, positions or values."""

from __future__ import annotations

import pytest

from conftest import hits
from hooklint.checks.security import selects

JOB = """\
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
      restartPolicy: Never
      containers: [{name: a, image: "ghcr.io/acme/a:1.0.0"}]
"""

HL106_HEAD = "Job/migrate runs as ServiceAccount 'runner', and ClusterRoleBinding/grant grants "
HL106_TAIL = (": a PreSync hook runs on every sync, so whoever controls its image or command holds those rights "
              "over the cluster. Grant only the verbs and resources it needs.")


def cluster_role(body: str, name: str = "runner-role") -> str:
    return f"apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {{name: {name}}}\n{body}"


def crb(role: str = "runner-role") -> str:
    return ("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: grant}\n"
            f"roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: {role}}}\n"
            "subjects: [{kind: ServiceAccount, name: runner, namespace: app}]\n")  # fmt: skip


def test_hl106_names_each_grant_of_rules_without_resources_or_groups():
    """Two escalation verbs on two resources are joined with ", " and their reasons with "; "; a
    rule without resources says "its resources"; a rule without apiGroups reads the core group
    (secrets); verbs and resources written as a string, not a list, grant nothing (mutmut
    survivors of ``_rule_grants`` 14, 18, 22, 23, 44, 48, 51, 52, 53, 61, 62)."""
    rules = ("rules:\n- {verbs: [bind, escalate], resources: [roles, clusterroles]}\n- {verbs: [impersonate]}\n"
             "- {apiGroups: [''], verbs: ['*']}\n- {resources: [secrets], verbs: [watch]}\n"
             "- {apiGroups: [''], verbs: '*', resources: '*'}\n")  # fmt: skip
    assert hits("HL106", JOB, context=cluster_role(rules) + "---\n" + crb()) == [(11, 27, (
        HL106_HEAD + "escalate, bind on roles, clusterroles (it can write roles with rights it does not hold; it can "
        "bind itself to any role, cluster-admin included), and impersonate on its resources (it can act as any user, "
        "group or ServiceAccount it names), and every verb on its resources, and watching secrets cluster-wide (a "
        "watch streams every Secret with its data) through ClusterRole 'runner-role'" + HL106_TAIL))]


AGGREGATED = """\
aggregationRule:
  clusterRoleSelectors:
  - matchLabels: {acme.io/jobs: 'true'}
  - matchLabels: {acme.io/jobs: 'true'}
  - matchLabels: {rbac.authorization.k8s.io/aggregate-to-edit: 'true'}
  - matchLabels: {rbac.authorization.k8s.io/aggregate-to-edit: 'true'}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: jobs-a, labels: {acme.io/jobs: 'true'}}
aggregationRule:
  clusterRoleSelectors: [{matchLabels: {acme.io/nested: 'true'}}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: nested, labels: {acme.io/nested: 'true'}}
rules: [{apiGroups: [''], resources: [pods], verbs: ['*']}]
---
apiVersion: example.com/v1
kind: ClusterRole
metadata: {name: elsewhere, labels: {acme.io/jobs: 'true'}}
rules: [{apiGroups: ['*'], resources: ['*'], verbs: ['*']}]
---
"""


def test_hl106_follows_nested_aggregation_once_and_only_rbac_cluster_roles():
    """Two selectors selecting the same role, or the same built-in, gather it once; a selected
    role's own aggregationRule is followed (with the same context and roles seen); a ClusterRole
    kind of another API group is not an RBAC role (mutmut survivors of ``_aggregated`` 28, 49,
    57, 58, 65, 75)."""
    assert hits("HL106", JOB, context=cluster_role(AGGREGATED) + crb()) == [(11, 27, (
        HL106_HEAD + "impersonate on serviceaccounts (it can act as any user, group or ServiceAccount it names), and "
        "every verb on pods, and reading secrets cluster-wide through ClusterRole 'runner-role' (its aggregationRule "
        "gathers the rules of ClusterRole 'jobs-a', ClusterRole 'nested', the built-in ClusterRole "
        "'system:aggregate-to-edit')" + HL106_TAIL))]


@pytest.mark.parametrize("selector, labels, selected", [
    ({"matchLabels": ["a"]}, {"a": "1"}, False),  # not a mapping
    ({"matchLabels": "a"}, {"a": "1"}, False),
    ({"matchExpressions": {"key": "a", "operator": "Exists"}}, {"a": "1"}, False),  # not a list
    ({"matchExpressions": ["a"]}, {"a": "1"}, False),
    ({"matchExpressions": [{"key": 5, "operator": "DoesNotExist"}]}, {"a": "1"}, False),
    ({"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["1"]}]}, {"a": "1"}, False),
    ({"matchExpressions": [{"key": "a", "operator": "In"}]}, {"a": "1"}, False),
    ({"matchExpressions": [{"key": "a", "operator": "Exists"}]}, {"b": "1"}, False),
    ({"matchExpressions": [{"key": "a", "operator": "Exists"}]}, {"a": "1"}, True),
    ({"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]}, {"b": "1"}, True),
    ({"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]}, {"a": "1"}, False),
    ({"matchExpressions": [{"key": "a", "operator": "In", "values": ["1", "2"]}]}, {"a": "2"}, True),
    ({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": ["1"]}]}, {"a": "1"}, False),
    ({"matchExpressions": [{"key": "a", "operator": "Equals", "values": ["1"]}]}, {"a": "1"}, False),
    ({}, {"a": "1"}, True),
])  # fmt: skip
def test_selects_reads_a_label_selector_as_the_api_server_does(selector: dict, labels: dict, selected: bool):
    """Malformed selectors (matchLabels or matchExpressions of the wrong shape, an expression
    without a string key, values where none belong or none where some must) select nothing;
    Exists and DoesNotExist test the key (mutmut survivors of ``selects`` 14, 17, 22, 25, 66-68,
    87-89)."""
    assert selects(selector, labels) is selected
