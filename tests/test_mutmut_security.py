"""Issue 36: the mutants mutmut left alive in the code added to HL104, HL105 and HL106 (projected
tokens, claims bound to hostPath volumes, User and Group subjects, aggregated ClusterRoles), found
with ``bench/mutmut_checks.py`` over those functions; each test fails on the mutants its docstring
names and asserts exact messages, positions or values."""

from __future__ import annotations

import pytest

from conftest import hits
from hooklint.model import selects
from tests.manifests import RUNNER_HOOK_JOB

JOB = RUNNER_HOOK_JOB

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
        "every verb on pods, and running pods cluster-wide (create, update and patch on pods, replicationcontrollers, "
        "daemonsets, deployments, replicasets, statefulsets, cronjobs, jobs; create on pods/exec, pods/attach: it can "
        "run code as any ServiceAccount of any namespace, with that namespace's Secrets), and issuing tokens "
        "cluster-wide (create on "
        "serviceaccounts/token: a token for any ServiceAccount of any namespace), and "
        "reading secrets cluster-wide through ClusterRole 'runner-role' (its aggregationRule "
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


def test_hl106_binding_without_role_ref_is_skipped_not_fatal():
    """A binding of the ServiceAccount that names no roleRef grants nothing, and the next binding
    is still judged (mutmut survivor of ``_binding_grants`` 6: ``or`` made ``and`` reads
    ``None.get``)."""
    no_ref = ("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: broken}\n"
              "subjects: [{kind: ServiceAccount, name: runner, namespace: app}]\n---\n")  # fmt: skip
    assert hits("HL106", JOB, context=no_ref + crb("cluster-admin")) == [
        (11, 27, "Job/migrate runs as ServiceAccount 'runner', and ClusterRoleBinding/grant binds it to cluster-admin"
                 + HL106_TAIL)]


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
        - scratch
        - name: cache
          emptyDir: {}
        - name: tok
          projected:
            sources:
              - ca
              - configMap: {name: ca}
              - serviceAccountToken: {path: token}
      initContainers:
        - name: wait
          image: ghcr.io/acme/wait:1.0.0
      containers:
        - name: a
          image: ghcr.io/acme/a:1.0.0
          volumeMounts:
            - {mountPath: /unnamed}
            - {name: cache, mountPath: /cache}
            - {name: tok, mountPath: /var/run/secrets/kubernetes.io/serviceaccount}
"""


def test_hl104_finds_the_projected_token_among_other_volumes_and_mounts():
    """A volume that is not a mapping, a mounted volume that projects nothing, a source that is
    not a mapping, a container without volumeMounts and a mount without a name are passed over,
    and the token source after them is found, at its own position (mutmut survivors of
    ``_projected_token`` 14, 15, 38, 47)."""
    assert hits("HL104", PROJECTED) == [
        (23, 17, "Job/migrate mounts the token of ServiceAccount 'runner' (projected volume 'tok', though automount "
                 "is off), and no binding in this application grants it a role. Remove the serviceAccountToken source, or bind it to "
                 "a least-privilege Role."),
    ]  # fmt: skip


HOST_JOB = """\
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
      restartPolicy: Never
      volumes:
        - name: root
          persistentVolumeClaim: {claimName: {claim}}
      containers:
        - name: a
          image: ghcr.io/acme/a:1.0.0
          volumeMounts: [{name: root, mountPath: /host}]
"""
HOST_TAIL = ("a PreSync hook runs on every sync and then controls the node, not just its pod. Remove it, or do this "
             "work outside the cluster's workloads.")


def host_pv(name: str = "node-root", claim_ref: str = "", host: str = "hostPath: {path: /}") -> str:
    ref = f"  claimRef: {claim_ref}\n" if claim_ref else ""
    return (f"apiVersion: v1\nkind: PersistentVolume\nmetadata: {{name: {name}}}\n"
            f"spec:\n  capacity: {{storage: 1Gi}}\n  accessModes: [ReadWriteOnce]\n  {host}\n{ref}---\n")


def host_pvc(name: str = "node-root", volume: str = "volumeName: node-root", namespace: str = "app") -> str:
    return (f"apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {{name: {name}, namespace: {namespace}}}\n"
            f"spec:\n  accessModes: [ReadWriteOnce]\n  resources: {{requests: {{storage: 1Gi}}}}\n  {volume}\n---\n")


def bound(pv: str, how: str, path: str = "/", where: str = "context.yaml") -> tuple[int, int, str]:
    return (14, 11, f"Job/migrate mounts the node's filesystem through volume 'root': PersistentVolumeClaim 'node-root' "
                    f"is bound to PersistentVolume '{pv}' ({how}; {where}), a hostPath volume of '{path}' on the node: "
                    + HOST_TAIL)  # fmt: skip


def test_hl105_claim_ref_without_namespace_reserves_the_volume_for_any_namespace():
    """A claimRef without a namespace matches the claim of the pod's namespace; a claimRef without
    a name reserves nothing, so the claim's spec.volumeName binds it (mutmut survivors of
    ``_host_path_binding`` 6, 8, 71, 81)."""
    job = HOST_JOB.replace("{claim}", "node-root")
    assert hits("HL105", job, context=host_pv(claim_ref="{name: node-root}")) == [bound("node-root", "the volume's spec.claimRef")]
    assert hits("HL105", job, context=host_pv(claim_ref="{namespace: app}") + host_pvc()) == [
        bound("node-root", "the claim's spec.volumeName")]


def test_hl105_reports_the_first_volume_by_name_and_an_unset_path_as_empty():
    """Two volumes reserved for the claim: the first by name is reported, whatever the order they
    are written in; a hostPath without a path is quoted as '' (mutmut survivors of
    ``_host_path_binding`` 63, 121, 123, 124)."""
    job = HOST_JOB.replace("{claim}", "node-root")
    ref = "{namespace: app, name: node-root}"
    context = (host_pv("z-root", ref) + host_pv("b-root", ref, host="hostPath: {type: Directory}")
               + host_pv("m-root", ref) + host_pvc(volume=""))
    assert hits("HL105", job, context=context) == [bound("b-root", "the volume's spec.claimRef", path="")]


def test_hl105_empty_claim_name_claims_no_volume():
    """``claimName: ''`` names no claim: an unreserved hostPath volume (claimRef name ``""``) is not
    bound to it (mutmut survivor of ``_host_path_binding`` 1)."""
    assert hits("HL105", HOST_JOB.replace("{claim}", "''"), context=host_pv()) == []
    assert hits("HL105", HOST_JOB.replace("{claim}", "node-root"), context=host_pv(claim_ref="{namespace: app, name: node-root}")) == [
        bound("node-root", "the volume's spec.claimRef")]


def test_hl310_indexes_a_service_account_named_after_a_group_subject():
    """A binding whose Group subject comes before the ServiceAccount subject is indexed under both
    (mutmut survivor of ``_BindingIndex.__init__`` 6: the group's ``continue`` made ``break``)."""
    binding = crb("view").replace("metadata: {name: grant}",
                                  "metadata: {name: grant, annotations: {argocd.argoproj.io/hook: PreSync}}").replace(
        "subjects: [", "subjects: [{kind: Group, name: 'system:serviceaccounts:other'}, ")  # fmt: skip
    assert hits("HL310", JOB, context=binding) == [(11, 27, (
        "Job/migrate runs as ServiceAccount runner, and ClusterRoleBinding/grant is applied in the same step (PreSync "
        "wave 0): Argo CD creates it just before the hook (kind order), but the API server's RBAC authorizer sees a "
        "new Role or binding only once its cache has it, so the hook's first API calls can fail with Forbidden on every "
        "sync: it is a hook too, created again with the hook each time. Apply it in an earlier step (a sync-wave lower than 0)."))]


def test_binding_grantees_reads_user_and_group_names_exactly():
    """A User counts only with the exact ``system:serviceaccount:`` prefix and names one
    ServiceAccount; ``apiGroup: ''`` is the default group; a Group counts only with the exact
    ``system:serviceaccounts:`` prefix and a namespace after it (mutmut survivors of ``_grantee``
    45, 53, 62, 79, 81)."""
    from hooklint.loader import parse_text
    from hooklint.model import Grantee, binding_grantees, manifests_of

    text = ("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: grant}\n"
            "roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}\nsubjects:\n"
            "  - {kind: User, apiGroup: '', name: 'system:serviceaccount:app:runner'}\n"
            "  - {kind: User, name: 'system:serviceaccount-app:migrate'}\n"
            "  - {kind: Group, name: 'oidc:platform-operators-team'}\n"
            "  - {kind: Group, name: 'system:serviceaccounts:'}\n"
            "  - {kind: Group, apiGroup: '', name: 'system:serviceaccounts:jobs'}\n")  # fmt: skip
    (m,) = manifests_of([parse_text("rbac.yaml", text)])
    assert binding_grantees(m) == [
        Grantee("app", "runner", "User 'system:serviceaccount:app:runner'"),
        Grantee("jobs", None, "Group 'system:serviceaccounts:jobs', every ServiceAccount of namespace 'jobs'"),
    ]


def test_host_path_volumes_reads_lists_and_skips_what_is_not_a_v1_volume(tmp_path):
    """A ``List``'s items are read, a document or item that is not a mapping is passed over (the
    next still counts), and only ``v1`` PersistentVolumes count, not a kind of that name in
    another group (mutmut survivors of ``_v1_objects`` 7-12, 14, 15)."""
    from hooklint.sources.repository.volumes import HostPathVolume, VolumeClaim, host_path_volumes

    listed = tmp_path / "list.yaml"
    listed.write_text(
        "just a note\n---\napiVersion: v1\nkind: List\nitems:\n  - junk\n"
        "  - {apiVersion: example.com/v1, kind: PersistentVolume, metadata: {name: fake}, spec: {hostPath: {path: /x}}}\n"
        "  - {apiVersion: v1, kind: PersistentVolume, metadata: {name: node-root}, spec: {hostPath: {path: /}}}\n"
        "  - {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: data, namespace: app},"
        " spec: {volumeName: node-root}}\n")  # fmt: skip
    assert host_path_volumes([str(listed)]) == (
        frozenset({HostPathVolume("node-root", "/", "", "", str(listed))}),
        frozenset({VolumeClaim("app", "data", "node-root", str(listed))}))


def test_host_path_volumes_reads_files_up_to_the_configured_size(tmp_path):
    """A file larger than the default limit but within ``max_file_size`` is parsed with that
    limit (mutmut survivor of ``_v1_objects`` 4: the limit not passed on)."""
    from hooklint.config import DEFAULT_MAX_FILE_SIZE
    from hooklint.sources.repository.volumes import HostPathVolume, host_path_volumes

    big = tmp_path / "pv.yaml"
    pv = "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: node-root}\nspec: {hostPath: {path: /}}\n"
    big.write_text("# " + "x" * DEFAULT_MAX_FILE_SIZE + "\n" + pv)
    assert host_path_volumes([str(big)], max_file_size=DEFAULT_MAX_FILE_SIZE + 1024) == (
        frozenset({HostPathVolume("node-root", "/", "", "", str(big))}), frozenset())


def repository_hl105(tmp_path, monkeypatch, files: dict[str, str]) -> list[tuple[str, int, int, str]]:
    """HL105's findings, ``(path, line, column, message)``, of a repository of ``files`` linted whole."""
    import json

    from typer.testing import CliRunner

    from conftest import write
    from hooklint.cli import app

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / ".git").mkdir(exist_ok=True)
    write(tmp_path, files)
    result = CliRunner().invoke(app, ["lint", "--format", "json", "."])
    return [(f["path"], f["line"], f["column"], f["message"])
            for f in json.loads(result.output)["findings"] if f["rule_id"] == "HL105"]  # fmt: skip


def test_hl105_follows_only_the_claim_of_that_name_in_the_repository(tmp_path, monkeypatch):
    """Another claim of the namespace naming the hostPath volume does not bind the hook's claim
    (mutmut survivor of ``_host_path_binding`` 86: ``and`` made ``or``)."""
    files = {"app/job.yaml": HOST_JOB.replace("{claim}", "node-root"),
             "infra/pv.yaml": host_pv() + host_pvc(name="other-data")}
    assert repository_hl105(tmp_path, monkeypatch, files) == []
    files["infra/pv.yaml"] = host_pv() + host_pvc()
    assert repository_hl105(tmp_path, monkeypatch, files) == [
        ("app/job.yaml", *bound("node-root", "the claim's spec.volumeName", where="infra/pv.yaml"))]


def test_hl105_own_claim_with_an_empty_volume_name_leaves_the_repository_s_binding(tmp_path, monkeypatch):
    """The application's own claim with ``volumeName: ''`` names no volume, so the claim of the same
    name elsewhere in the repository, bound to a hostPath volume, still counts (mutmut survivor
    of ``_host_path_binding`` 118: ``and`` made ``or``)."""
    files = {"app/job.yaml": HOST_JOB.replace("{claim}", "node-root") + "---\n" + host_pvc(volume="volumeName: ''"),
             "infra/pv.yaml": host_pv() + host_pvc()}
    assert repository_hl105(tmp_path, monkeypatch, files) == [
        ("app/job.yaml", *bound("node-root", "the claim's spec.volumeName", where="infra/pv.yaml"))]


def test_hl106_orders_grants_by_rank_whatever_the_rule_order():
    """Wildcard verbs of two rules make one phrase ranked before reading secrets, and a watch on
    secrets is ranked before rewriting webhooks, though the rules come in the other order (mutmut
    survivors of ``_rule_grants`` 87 and ``_binding_grants`` 102)."""
    rules = ("rules:\n- {apiGroups: [admissionregistration.k8s.io], resources: [validatingwebhookconfigurations], "
             "verbs: [update]}\n- {apiGroups: [''], resources: [secrets], verbs: [watch]}\n"
             "- {apiGroups: [''], resources: [pods], verbs: ['*']}\n- {apiGroups: [batch], resources: [jobs], verbs: ['*']}\n")
    assert hits("HL106", JOB, context=cluster_role(rules) + "---\n" + crb()) == [(11, 27, (
        HL106_HEAD + "every verb on pods, jobs, and watching secrets cluster-wide (a watch streams every Secret with its "
        "data), and update on validatingwebhookconfigurations without resourceNames (it can rewrite every admission "
        "webhook of the cluster) through ClusterRole 'runner-role'" + HL106_TAIL))]


def test_hl106_reads_the_api_groups_of_secrets_and_webhooks():
    """``apiGroups: ['*']`` covers the core group's secrets and the admission group's webhooks; a
    rule of another group (``apps``, the core group) names kinds of that group, not those
    (mutmut survivors of ``_rule_grants`` 67, 68, 108, 109, 111)."""
    rules = ("rules:\n- {apiGroups: ['*'], resources: [secrets], verbs: [get]}\n"
             "- {apiGroups: [apps], resources: [secrets], verbs: [list]}\n"
             "- {apiGroups: ['*'], resources: [mutatingwebhookconfigurations], verbs: [patch]}\n"
             "- {apiGroups: [''], resources: [validatingwebhookconfigurations], verbs: [update]}\n")  # fmt: skip
    assert hits("HL106", JOB, context=cluster_role(rules) + "---\n" + crb()) == [(11, 27, (
        HL106_HEAD + "reading secrets cluster-wide, and patch on mutatingwebhookconfigurations without resourceNames (it "
        "can rewrite every admission webhook of the cluster) through ClusterRole 'runner-role'" + HL106_TAIL))]
    apps_only = "rules:\n- {apiGroups: [apps], resources: [secrets], verbs: [list]}\n"
    assert hits("HL106", JOB, context=cluster_role(apps_only) + "---\n" + crb()) == []


def test_hl106_counts_more_than_three_gathered_roles():
    """Four roles gathered: three named and "and 1 more" (mutmut survivor of ``_binding_grants``
    127: ``> 3`` made ``> 4``)."""
    roles = "".join(
        f"---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {{name: part-{i}, labels: "
        f"{{acme.io/jobs: 'true'}}}}\nrules: [{{apiGroups: [''], resources: [pods], verbs: ['*']}}]\n" for i in range(4))
    aggregator = "aggregationRule:\n  clusterRoleSelectors: [{matchLabels: {acme.io/jobs: 'true'}}]\n"
    assert hits("HL106", JOB, context=cluster_role(aggregator) + roles + "---\n" + crb()) == [(11, 27, (
        HL106_HEAD + "every verb on pods through ClusterRole 'runner-role' (its aggregationRule gathers the rules of "
        "ClusterRole 'part-0', ClusterRole 'part-1', ClusterRole 'part-2' and 1 more)" + HL106_TAIL))]


def test_hl106_role_ref_kind_that_is_not_a_string_finds_no_role():
    """``roleRef.kind`` written as a list names no role, and is not looked up (mutmut survivor of
    ``_binding_grants`` 29: the lookup of an unhashable kind raises)."""
    odd = crb().replace("kind: ClusterRole, name: runner-role", "kind: [ClusterRole], name: runner-role").replace(
        "{name: grant}", "{name: odd}")
    context = cluster_role("rules: [{apiGroups: ['*'], resources: ['*'], verbs: ['*']}]\n") + "---\n" + odd
    assert hits("HL106", JOB, context=context + "---\n" + crb("cluster-admin")) == [
        (11, 27, HL106_HEAD.removesuffix("grants ") + "binds it to cluster-admin" + HL106_TAIL)]


def test_hl104_default_service_account_of_the_application_that_turns_automount_off():
    """A pod without serviceAccountName runs as 'default'; the application's 'default'
    ServiceAccount turning automount off, or a binding granting 'default' a role, leaves no HL104
    (mutmut survivors of ``_mounted_token`` 16, 17)."""
    job = JOB.replace("      serviceAccountName: runner\n", "")
    assert hits("HL104", job) == [(10, 5, (
        "Job/migrate mounts the token of ServiceAccount 'default' (HL103; not turned off here; the ServiceAccount is "
        "not in this application), and no binding in this application grants it a role. Set automountServiceAccountToken: false, or "
        "give the hook its own, least-privileged ServiceAccount."))]
    sa = "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: default, namespace: app}\nautomountServiceAccountToken: false\n"
    assert hits("HL104", job, context=sa) == []
    granted = crb("view").replace("name: runner, namespace: app", "name: default, namespace: app")
    assert hits("HL104", job, context=granted) == []


def test_hl310_group_of_another_namespace_does_not_reach_the_hook():
    """A Group of another namespace's ServiceAccounts does not grant the hook's, so its binding in the
    hook's step is not reported (mutmut survivors of ``_BindingIndex.granting`` 7, 8)."""
    binding = crb("view").replace("metadata: {name: grant}",
                                  "metadata: {name: grant, annotations: {argocd.argoproj.io/hook: PreSync}}").replace(
        "{kind: ServiceAccount, name: runner, namespace: app}", "{kind: Group, name: 'system:serviceaccounts:other'}")
    assert hits("HL310", JOB, context=binding) == []
    same_namespace = binding.replace("system:serviceaccounts:other", "system:serviceaccounts:app")
    assert [(line, column) for line, column, _ in hits("HL310", JOB, context=same_namespace)] == [(11, 27)]


def test_binding_grantees_only_of_rbac_bindings():
    """A RoleBinding kind of another API group grants nothing (mutmut survivor of
    ``binding_grantees`` 1: ``or`` made ``and``)."""
    from hooklint.loader import parse_text
    from hooklint.model import Grantee, binding_grantees, manifests_of

    text = ("apiVersion: {group}/v1\nkind: RoleBinding\nmetadata: {name: grant, namespace: app}\n"
            "roleRef: {kind: ClusterRole, name: view}\nsubjects: [{kind: ServiceAccount, name: runner}]\n")
    (other,) = manifests_of([parse_text("a.yaml", text.replace("{group}", "example.com"))])
    (rbac,) = manifests_of([parse_text("b.yaml", text.replace("{group}", "rbac.authorization.k8s.io"))])
    assert (binding_grantees(other), binding_grantees(rbac)) == ([], [Grantee("app", "runner")])


def test_host_path_volumes_parses_at_most_max_volume_files_that_name_both_words(tmp_path, monkeypatch):
    """Only files naming both PersistentVolume and hostPath count toward the limit, the first
    counts as one, and the limit stops the scan (mutmut survivors of ``host_path_volumes`` 5, 11,
    12, 23, 24)."""
    from hooklint.sources.repository import volumes

    monkeypatch.setattr(volumes, "MAX_VOLUME_FILES", 1)
    pv = "apiVersion: v1\nkind: PersistentVolume\nmetadata: {{name: {name}}}\nspec: {{hostPath: {{path: /}}}}\n"
    files = {
        "a-nfs.yaml": "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: nfs}\nspec: {nfs: {path: /}}\n",
        "b-pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {volumes: [{name: h, hostPath: {path: /}}]}\n",
        "c-pv.yaml": pv.format(name="first"),
        "d-pv.yaml": pv.format(name="second"),
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    found, _ = volumes.host_path_volumes([str(tmp_path / name) for name in files])
    assert sorted(v.name for v in found) == ["first"]


VOLUMES = """\
apiVersion: v1
kind: PersistentVolume
metadata: junk
spec: {hostPath: {path: /}}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: odd-spec}
spec: junk
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: ''}
spec: {hostPath: {path: /}}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: nfs}
spec: {nfs: {server: nfs.example.com, path: /}}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: claimed}
spec: {hostPath: {type: Directory}, claimRef: {namespace: app, name: data}}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: named-ref}
spec: {hostPath: {path: /var}, claimRef: {name: only-name}}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: odd-ref}
spec: {hostPath: {path: /srv}, claimRef: junk}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: ns-ref}
spec: {hostPath: {path: /opt}, claimRef: {namespace: app}}
"""

CLAIMS = """\
apiVersion: v1
kind: PersistentVolumeClaim
metadata: junk
spec: {volumeName: claimed}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: odd-spec, namespace: app}
spec: junk
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: '', namespace: app}
spec: {volumeName: claimed}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: to-nfs, namespace: app}
spec: {volumeName: nfs}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: app}
spec: {volumeName: claimed}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: anywhere, namespace: 7}
spec: {volumeName: named-ref}
"""


def test_host_path_volumes_reads_each_volume_and_claim_field(tmp_path):
    """Objects whose metadata or spec is not a mapping, without a name, or (volumes) without
    hostPath are passed over one by one; a claimRef's missing fields, a claimRef that is not a
    mapping, a hostPath without a path and a claim's namespace that is not a string read as ``""``;
    a claim counts only when it names a hostPath volume, or names none with a spec that is a
    mapping (the PV controller may bind it to one: tests/test_pv_selector.py) (mutmut survivors of ``host_path_volumes``
    46-98 and the claims' loop)."""
    from hooklint.sources.repository.volumes import HostPathVolume, VolumeClaim, host_path_volumes

    pvs, pvcs = tmp_path / "pv.yaml", tmp_path / "pvc.yaml"
    pvs.write_text(VOLUMES)
    pvcs.write_text(CLAIMS)
    assert host_path_volumes([str(pvs), str(pvcs)]) == (
        frozenset({HostPathVolume("claimed", "", "app", "data", str(pvs)),
                   HostPathVolume("named-ref", "/var", "", "only-name", str(pvs)),
                   HostPathVolume("odd-ref", "/srv", "", "", str(pvs)),
                   HostPathVolume("ns-ref", "/opt", "app", "", str(pvs))}),
        frozenset({VolumeClaim("app", "data", "claimed", str(pvcs)),
                   VolumeClaim("", "anywhere", "named-ref", str(pvcs))}))  # fmt: skip


def test_host_path_volumes_reads_claims_of_at_most_max_volume_files(tmp_path, monkeypatch):
    """The claims' scan skips files that do not name PersistentVolumeClaim and stops after the
    limit; a claim without ``volumeName`` counts (the PV controller may bind it to a hostPath
    volume it matches) (mutmut survivors of ``host_path_volumes``' claims loop)."""
    from hooklint.sources.repository import volumes

    monkeypatch.setattr(volumes, "MAX_VOLUME_FILES", 2)
    claim = ("apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {{name: {name}, namespace: app}}\n"
             "spec: {{volumeName: node-root}}\n")
    files = {
        "a-pv.yaml": "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: node-root}\nspec: {hostPath: {path: /}}\n",
        "b-pvc.yaml": "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: dynamic, namespace: app}\nspec: {}\n",
        "c-pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {volumeName: node-root}\n",
        "d-pvc.yaml": claim.format(name="first"),
        "e-pvc.yaml": claim.format(name="second"),
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    _, claims = volumes.host_path_volumes([str(tmp_path / name) for name in files])
    assert sorted(c.name for c in claims) == ["dynamic", "first"]  # a claim naming no volume may match one


@pytest.mark.parametrize("value, message", [
    ('"yes"', "Job/migrate sets automountServiceAccountToken to a non-boolean value, which the API server rejects, so "
              "a PreSync hook is never created. Write false, or true if it calls the Kubernetes API."),
    ("true", "Job/migrate mounts the token of ServiceAccount 'runner' (automountServiceAccountToken: true), and no binding in this application "
             "grants it a role. Set automountServiceAccountToken: false, or bind it to a least-privilege "
             "Role."),
])  # fmt: skip
def test_hl104_names_the_automount_field(value: str, message: str):
    """Both findings on the field name its path, which ``hooklint fix`` and SARIF read (mutmut
    survivors of ``hook_automounts_token`` 7, 22, 25: the field dropped)."""
    from hooklint.pipeline import lint_text

    job = JOB.replace("      restartPolicy: Never\n", f"      restartPolicy: Never\n      automountServiceAccountToken: {value}\n")
    assert [(f.span.line, f.span.column, f.field_path, f.message) for f in lint_text(job) if f.rule_id == "HL104"] == [
        (13, 37, "spec.template.spec.automountServiceAccountToken", message)]


def test_hl106_verbs_written_as_a_string_grant_nothing():
    """``verbs: '*'`` is not a list of verbs (the API server rejects it), so the rule grants no wildcard
    (mutmut survivor of ``_rule_grants`` 14: a string read as its characters)."""
    rules = "rules:\n- {apiGroups: [''], resources: [pods], verbs: '*'}\n"
    assert hits("HL106", JOB, context=cluster_role(rules) + "---\n" + crb()) == []


FLOW_PROJECTED = PROJECTED.replace("              - serviceAccountToken: {path: token}\n",
                                   "              - {serviceAccountToken: {path: token}}\n")
PROJECTED_TAIL = "and no binding in this application grants it a role. "


@pytest.mark.parametrize("job, found", [
    # the key itself, one column after the flow mapping's brace
    (FLOW_PROJECTED, (23, 18, "spec.template.spec.volumes[2].projected.sources[2].serviceAccountToken",
                      "Job/migrate mounts the token of ServiceAccount 'runner' (projected volume 'tok', though automount "
                      "is off), " + PROJECTED_TAIL + "Remove the serviceAccountToken source, or bind it to a "
                      "least-privilege Role.")),
    # automount on: reported there, though a projected source mounts the token too
    (FLOW_PROJECTED.replace("automountServiceAccountToken: false", "automountServiceAccountToken: true"),
     (12, 37, "spec.template.spec.automountServiceAccountToken",
      "Job/migrate mounts the token of ServiceAccount 'runner' (automountServiceAccountToken: true), " + PROJECTED_TAIL
      + "Set automountServiceAccountToken: false, or bind it to a least-privilege Role.")),
    # unset: at the pod template's spec key, not at the template's first key (metadata)
    (JOB.replace("  template:\n", "  template:\n    metadata: {labels: {app: migrate}}\n"),
     (11, 5, "spec.template.spec.automountServiceAccountToken",
      "Job/migrate mounts the token of ServiceAccount 'runner' (not turned off here; the ServiceAccount is not in this "
      "application), " + PROJECTED_TAIL + "Set automountServiceAccountToken: false, or bind it to a least-privilege "
      "Role.")),
])  # fmt: skip
def test_hl104_reports_at_the_field_that_mounts_the_token(job: str, found: tuple[int, int, str, str]):
    """The finding's position and field: the projected source's key, the automount value, or the
    pod spec's key (mutmut survivors of ``hook_automounts_token`` 49, 112, 116-119)."""
    from hooklint.pipeline import lint_text

    assert [(f.span.line, f.span.column, f.field_path, f.message) for f in lint_text(job) if f.rule_id == "HL104"] == [found]


def test_hl105_host_namespace_findings_name_their_field():
    """hostNetwork and hostPID findings name the field (mutmut survivors of ``hook_privileged_pod``
    25, 28)."""
    from hooklint.pipeline import lint_text

    job = JOB.replace("      restartPolicy: Never\n", "      restartPolicy: Never\n      hostNetwork: true\n      hostPID: true\n")
    tail = (": true: a PreSync hook runs on every sync and then controls the node, not just its pod. Remove it, or do "
            "this work outside the cluster's workloads.")
    assert [(f.span.line, f.span.column, f.field_path, f.message) for f in lint_text(job) if f.rule_id == "HL105"] == [
        (13, 20, "spec.template.spec.hostNetwork", "Job/migrate sets hostNetwork" + tail),
        (14, 16, "spec.template.spec.hostPID", "Job/migrate sets hostPID" + tail)]


def test_hl105_same_volume_written_in_several_files_reports_the_first_file(tmp_path, monkeypatch):
    """One PersistentVolume name written in several files: the first file by path is reported, on
    every run (the order does not depend on the set's hash order). Against the mutant of
    ``_host_path_binding`` that sorts by name only (127) this fails on most runs, not all: its tie
    order is the set's, which follows the per-process hash seed."""
    files = {"app/job.yaml": HOST_JOB.replace("{claim}", "node-root") + "---\n" + host_pvc()}
    for letter in "edcba":
        files[f"infra/{letter}.yaml"] = host_pv(host=f"hostPath: {{path: /{letter}}}")
    assert repository_hl105(tmp_path, monkeypatch, files) == [
        ("app/job.yaml", *bound("node-root", "the claim's spec.volumeName", path="/a", where="infra/a.yaml"))]


PRIVILEGED = """\
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
      restartPolicy: Never
      volumes:
        - name: node
          hostPath: {path: /}
        - name: root
          persistentVolumeClaim: {claimName: node-root}
      containers:
        - name: a
          image: ghcr.io/acme/a:1.0.0
          volumeMounts: [{name: node, mountPath: /node}, {name: root, mountPath: /host}]
          securityContext:
            privileged: true
            allowPrivilegeEscalation: true
            capabilities: {add: [5, CHOWN, cap_chown, NET_ADMIN]}
"""


def test_hl105_each_finding_names_its_field_and_position():
    """Every HL105 finding of a pod names the field it reports, where ``hooklint fix``, SARIF and
    suppressions find it; a capability that is not a string or that is baseline is passed over and the
    next is still read (mutmut survivors of ``hook_privileged_pod`` 49, 52, 88, 91, 111, 119, 122,
    134, 137, 154)."""
    from hooklint.pipeline import lint_text

    sc = "spec.template.spec.containers[0].securityContext"
    found = [(f.span.line, f.span.column, f.field_path, f.message)
             for f in lint_text(PRIVILEGED, context=host_pv() + host_pvc()) if f.rule_id == "HL105"]  # fmt: skip
    assert found == [
        (14, 11, "spec.template.spec.volumes[0].hostPath",
         "Job/migrate mounts the node's filesystem through hostPath volume 'node' (path '/'): " + HOST_TAIL),
        (16, 11, "spec.template.spec.volumes[1].persistentVolumeClaim", bound("node-root", "the claim's spec.volumeName")[2]),
        (22, 25, f"{sc}.privileged", "The container 'a' of Job/migrate is privileged: " + HOST_TAIL),
        (23, 39, f"{sc}.allowPrivilegeEscalation",
         "The container 'a' of Job/migrate sets allowPrivilegeEscalation: true, so its processes can gain more "
         "privileges than they start with: " + HOST_TAIL),
        (24, 44, f"{sc}.capabilities.add[2]",
         "The container 'a' of Job/migrate adds capability cap_chown, which is CHOWN of the baseline set written another "
         "way: Pod Security admission compares capability names exactly, so a namespace that enforces the baseline or "
         "restricted level rejects its pods (HL206). Write CHOWN."),
        (24, 55, f"{sc}.capabilities.add[3]",
         "The container 'a' of Job/migrate adds capability NET_ADMIN, beyond the baseline set: " + HOST_TAIL),
    ]  # fmt: skip
