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
                 "is off), and no binding here grants it a role. Remove the serviceAccountToken source, or bind it to "
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
        "sync, as it is a hook created again with it. Apply it in an earlier step (a sync-wave lower than 0)."))]


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
