"""HL106 and HL108: the RBAC reach of a hook's ServiceAccount (the bindings of the application that
reach it, the rules of the roles they grant, built-in and aggregated ClusterRoles, Argo CD's own
ServiceAccounts and roles) and RBAC a hook's sync creates that outlives the hook."""

from __future__ import annotations

from typing import Callable, Iterator, Mapping, TypeVar

from hooklint import argocd
from hooklint.checks import Context, Hit, check
from hooklint.checks.pods import SA_NAME_ANNOTATION, pods_in_scope, runs, token_secrets, token_verb, find_loose
from hooklint.findings import Span
from hooklint.model import RBAC_GROUP, Grantee, Manifest, PodSpec, binding_grantee, binding_grantees, get_map, resource_match, selects, verb_matches
from hooklint.yamlio import Map, Seq


#: Kubernetes' built-in user-facing ClusterRoles that write Secrets and workloads (kube-apiserver's
#: bootstrap policy, plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go), with what they
#: allow; ``view`` reads neither Secrets nor anything it could escalate with, so it is not here.
BUILT_IN_WRITER_ROLES = {
    "admin": "which reads and writes Secrets and workloads (Pods, Deployments, Jobs), runs commands in "
    "pods, and manages Roles and RoleBindings",
    "edit": "which reads and writes Secrets and workloads (Pods, Deployments, Jobs) and runs commands in pods",
}


#: Verbs that let a subject raise its own rights, with what each allows (Kubernetes RBAC
#: "Privilege escalation prevention": escalate on roles, bind on roles, impersonate on users,
#: groups and ServiceAccounts).
ESCALATION_VERBS = {
    "escalate": "it can write roles with rights it does not hold",
    "bind": "it can bind itself to any role, cluster-admin included",
    "impersonate": "it can act as any user, group or ServiceAccount it names",
}
#: Admission webhook configurations (cluster-scoped, ``admissionregistration.k8s.io``).
WEBHOOK_RESOURCES = ("mutatingwebhookconfigurations", "validatingwebhookconfigurations")
#: Admission policies and their bindings (cluster-scoped, ``admissionregistration.k8s.io``): a CEL
#: policy the API server applies to every object its bindings match, a mutating one rewriting it.
ADMISSION_POLICY_RESOURCES = ("mutatingadmissionpolicies", "mutatingadmissionpolicybindings",
                              "validatingadmissionpolicies")  # fmt: skip


#: Resources whose ``create`` starts pods, with the API groups that serve them (``""`` the core
#: group; ``extensions`` still names the old workload kinds in RBAC rules): Kubernetes RBAC good
#: practices, "Workload creation".
POD_MAKERS = {
    "pods": ("",),
    "replicationcontrollers": ("",),
    "deployments": ("apps", "extensions"),
    "daemonsets": ("apps", "extensions"),
    "replicasets": ("apps", "extensions"),
    "statefulsets": ("apps",),
    "jobs": ("batch",),
    "cronjobs": ("batch",),
}
#: Signers whose approved certificates authenticate to the API server (Kubernetes "Certificates and
#: Certificate Signing Requests", "Kubernetes signers"): any user and group, any node, and the
#: legacy signer that kube-controller-manager may sign client certificates with.
CLIENT_SIGNERS = ("kubernetes.io/kube-apiserver-client", "kubernetes.io/kube-apiserver-client-kubelet",
                  "kubernetes.io/legacy-unknown")  # fmt: skip
CERTIFICATES_GROUP = "certificates.k8s.io"


#: Argo CD's API group (``argoproj.io``), whose Applications, ApplicationSets and AppProjects tell
#: Argo CD what to deploy where.
ARGOPROJ_GROUP = "argoproj.io"
#: The ConfigMaps of Argo CD's namespace that hold its settings (argo-cd v3.5.1 ``common/common.go``:
#: ``ArgoCDConfigMapName``, ``ArgoCDRBACConfigMapName``, ``ArgoCDCmdParamsConfigMapName``,
#: ``ArgoCDKnownHostsConfigMapName``, ``ArgoCDTLSCertsConfigMapName``, ``ArgoCDGPGKeysConfigMapName``):
#: its settings and SSO, its RBAC policy, its components' flags, and the SSH hosts, TLS certificates
#: and GPG keys it trusts for repositories.
ARGOCD_CONFIG_MAPS = ("argocd-cm", "argocd-rbac-cm", "argocd-cmd-params-cm", "argocd-ssh-known-hosts-cm",
                      "argocd-tls-certs-cm", "argocd-gpg-keys-cm")  # fmt: skip
#: The Secret holding Argo CD's admin password and the key that signs its session tokens
#: (``common.ArgoCDSecretName``; ``admin.password``, ``server.secretkey``).
ARGOCD_SECRET = "argocd-secret"
#: Why each write HL106 reports on Argo CD's own objects gives a hook control of Argo CD, whose
#: application controller holds every verb on every resource: ``(resource, API group, verbs
#: reported, why)``. Creating, updating or patching an Application or ApplicationSet (which
#: generates Applications) makes Argo CD deploy what it says; an AppProject holds the limits of its
#: Applications (source repositories, destinations, cluster-scoped kinds); the ConfigMaps of
#: :data:`ARGOCD_CONFIG_MAPS` hold Argo CD's settings and RBAC; a new Secret labelled
#: ``argocd.argoproj.io/secret-type: cluster``, ``repository`` or ``repo-creds`` adds a cluster
#: or repository to Argo CD (argo-cd v3.5.1 ``docs/operator-manual/declarative-setup.md``; RBAC
#: cannot limit the labels a created Secret carries), and updating ``argocd-secret`` changes the
#: admin password and the signing key. ``delete`` is not reported: deleting removes what Argo CD
#: deploys, it does not make it deploy anything.
ARGOCD_WRITES = (
    ("applications", ARGOPROJ_GROUP, ("create", "update", "patch"),
     "it can create or repoint an Application to deploy anything anywhere Argo CD deploys, with the application "
     "controller's rights"),
    ("applicationsets", ARGOPROJ_GROUP, ("create", "update", "patch"),
     "it can make an ApplicationSet generate Applications that deploy anything anywhere Argo CD deploys"),
    ("appprojects", ARGOPROJ_GROUP, ("create", "update", "patch"),
     "it can rewrite a project's limits on source repositories, destinations and cluster-scoped kinds"),
    ("configmaps", "", ("create", "update", "patch"),
     "it can change Argo CD's settings or RBAC policy, or the repository hosts, certificates and keys it trusts"),
    ("secrets", "", ("create",),
     "it can add a cluster or repository credential to Argo CD, a Secret labelled "
     "argocd.argoproj.io/secret-type: cluster, repository or repo-creds"),
    ("secrets", "", ("update", "patch"),
     f"it can change {ARGOCD_SECRET}'s admin password and token signing key, and the cluster and repository "
     "credentials Argo CD uses"),
)  # fmt: skip


def _argocd_writes(verbs: list[str], resources: list[str], groups: list, names: list | None,
                   where: str | None) -> list[tuple[int, str]]:
    """What one rule lets its subject write in Argo CD's namespace that gives it control of Argo CD
    (:data:`ARGOCD_WRITES`), as (8, phrase) as :func:`_rule_grants` ranks them: ``where`` says the
    reach (``cluster-wide``, or ``in Argo CD's namespace 'argocd'`` for a RoleBinding there), None
    for any other namespace (nothing). Verbs by :func:`verb_matches` (``*`` holds each), resources
    by :func:`resource_match`, API groups by :func:`_serves`. With ``resourceNames`` (``names``),
    a rule grants no ``create`` (a create request carries no name the rule could match: Kubernetes
    "Using RBAC Authorization", "Referring to resources"), and grants ``update`` or ``patch`` on
    ConfigMaps only when it names one of :data:`ARGOCD_CONFIG_MAPS`, on Secrets only when it names
    ``argocd-secret``; any named Application, ApplicationSet or AppProject is Argo CD's."""
    if where is None:
        return []
    out: list[tuple[int, str]] = []
    for resource, group, wanted, why in ARGOCD_WRITES:
        entry = resource_match(resources, resource)
        if entry is None or not _serves(groups, (group,)):
            continue
        held = [v for v in wanted if verb_matches(verbs, v) and not (names and v == "create")]
        shown = ""
        if names:
            ours = (ARGOCD_CONFIG_MAPS if resource == "configmaps" else (ARGOCD_SECRET,) if resource == "secrets"
                    else None)  # fmt: skip
            named = [str(n) for n in names if ours is None or str(n) in ours]
            if not named:
                continue
            shown = " " + ", ".join(f"'{n}'" for n in named)
            if resource == "secrets":
                why = f"it can change {ARGOCD_SECRET}'s admin password and token signing key"
        if held:
            said = ", ".join(held[:-1]) + " and " + held[-1] if len(held) > 1 else held[0]
            out.append((8, f"{said} on {entry}{shown} {where} ({why})"))
    return out


def _serves(groups: list, resource_groups: tuple[str, ...]) -> bool:
    """Whether a rule's ``apiGroups`` name one of ``resource_groups`` (or ``*``)."""
    return "*" in groups or any(g in groups for g in resource_groups)  # RBAC's APIGroupMatches


def _client_signers(rule: Mapping, groups: list, verbs: list[str], resources: list[str]) -> str | None:
    """The signers a rule lets its subject ``approve`` certificate signing requests for, when one of
    them issues certificates the API server accepts (:data:`CLIENT_SIGNERS`; ``resourceNames`` may
    name ``<domain>/*``, every signer of that domain), as a message names them, or None. Approving
    needs ``update`` on ``certificatesigningrequests/approval`` too (certificate-controller's
    role holds both); the ``approve`` rule is what limits whose certificates, so it is the one
    judged (the CertificateApproval admission plugin, ``k8s.io/kubernetes
    plugin/pkg/admission/certificates/approval/admission.go``)."""
    if "approve" not in verbs or not resource_match(resources, "signers") or not _serves(groups, (CERTIFICATES_GROUP,)):
        return None
    names = rule.get("resourceNames")
    if not names:
        return "every signer"
    shown = [str(n) for n in names if str(n) in CLIENT_SIGNERS
             or str(n).endswith("/*") and any(s.startswith(str(n)[:-1]) for s in CLIENT_SIGNERS)]  # fmt: skip
    return ", ".join(shown) or None


def _rule_grants(rule: Mapping, cluster_wide: bool, judge: "_Judge | None" = None,
                 privileged: str | None = None, argocd_where: str | None = None) -> list[tuple[int, str]]:
    """What one RBAC rule grants that HL106 reports, as (rank, phrase), most dangerous first:
    0 every resource; 1 escalate/bind/impersonate; 2 every verb; 3 running pods cluster-wide
    (``create``, ``update`` or ``patch`` on pods or a kind that makes them, :data:`POD_MAKERS`: a new
    pod template, or a running pod's new image; ``update``/``patch`` on
    ``pods/ephemeralcontainers``; ``create`` or ``get`` on ``pods/exec`` or ``pods/attach``; ``create``
    or ``get`` on ``nodes/proxy``: the code runs as any ServiceAccount of its namespace and mounts
    any Secret there, Kubernetes RBAC good practices "Workload creation", "Access to proxy
    subresource of Nodes"); 4 ``create`` on ``serviceaccounts/token`` cluster-wide (a token for any
    ServiceAccount, "Token request"); 5 reading secrets cluster-wide (get, list or watch: a watch
    without a resourceVersion starts with an ADDED event carrying every existing Secret, data
    included, so watch alone reads them all); 6 approving certificates of a client signer
    (:func:`_client_signers`, "Certificate signing requests"); 7 update or patch on admission webhook
    configurations, ``create`` on them (a new webhook receives, and a mutating one rewrites, every
    object it asks for), or create, update or patch on admission policies
    (:data:`ADMISSION_POLICY_RESOURCES`), cluster-wide; 8 writing Argo CD's Applications,
    ApplicationSets, AppProjects, settings ConfigMaps or Secrets where Argo CD reads them
    (:func:`_argocd_writes`; ``argocd_where``: ``cluster-wide``, or the phrase of Argo CD's namespace a
    RoleBinding grants them in, else None). Ranks 3 to 7 are reported through a
    ClusterRoleBinding; ranks 3 to 5 (not ``nodes/proxy``, nodes being cluster-scoped) through a
    RoleBinding too when ``privileged`` says its namespace holds the cluster (a phrase naming it,
    :meth:`_Judge.privileged`: Argo CD's or kube-system); in any other namespace a hook that starts
    pods or reads Secrets reaches that namespace's ServiceAccounts and Secrets, the reach a
    namespaced Role is meant to have.

    Resources are matched as Kubernetes RBAC matches them (:func:`resource_match`: ``*``,
    ``resource/subresource`` and ``*/subresource``), API groups by :func:`_serves`; the message
    quotes the entry as written (``create on */exec``).

    ``get`` on ``pods/exec``, ``pods/attach`` and ``nodes/proxy`` runs commands: a WebSocket
    upgrade is an HTTP GET, authorized as ``get`` (Kubernetes "RBAC good practices", "Access to
    proxy subresource of Nodes": "get permission on nodes/proxy is not a read-only permission";
    for pods the API server asks ``create`` too only from Kubernetes 1.35, feature gate
    ``AuthorizePodWebsocketUpgradeCreatePermission``, beta and on by default, which older clusters
    and a cluster that turns it off lack).

    A rule limited by ``resourceNames`` grants its verbs on those names only, so it is judged by
    what the names reach (``judge``, :meth:`_Judge.named`: impersonating a named identity, binding
    or escalating a named role HL106 reports, tokens and token Secrets of a named ServiceAccount it
    reports, the kubelet API of named nodes) and by the signers it approves for; without a
    ``judge`` only the signers count."""
    written_verbs, written_resources, written_groups = rule.get("verbs"), rule.get("resources"), rule.get("apiGroups")
    verbs = [str(v) for v in written_verbs] if isinstance(written_verbs, list) else []
    resources = [str(r) for r in written_resources] if isinstance(written_resources, list) else []
    groups = written_groups if isinstance(written_groups, list) else [""]
    signers = _client_signers(rule, groups, verbs, resources) if cluster_wide and "*" not in resources else None
    approve = None if signers is None else signers  # a phrase once :func:`_binding_grants` joins them
    names = rule.get("resourceNames")
    if names:
        named = judge.named(verbs, resources, groups, names, cluster_wide) if judge and isinstance(names, list) else []
        if isinstance(names, list):
            named += _argocd_writes(verbs, resources, groups, names, argocd_where)
        return named + ([(6, approve)] if approve else [])
    out: list[tuple[int, str]] = []
    if "*" in resources:
        out.append((0, f"every resource{' with every verb' if '*' in verbs else ''}"))
        return out
    escalation = [v for v in ESCALATION_VERBS if v in verbs]
    if escalation:
        why = "; ".join(ESCALATION_VERBS[v] for v in escalation)
        out.append((1, f"{', '.join(escalation)} on {', '.join(resources) or 'its resources'} ({why})"))
    if "*" in verbs:  # every verb, Argo CD's objects among them: said once, not again verb by verb
        out.append((2, f"every verb on {', '.join(resources) or 'its resources'}"))
        return out
    out += _argocd_writes(verbs, resources, groups, None, argocd_where)
    core = "" in groups or "*" in groups
    # running pods, tokens and Secrets: through a ClusterRoleBinding, or a RoleBinding of a
    # namespace whose ServiceAccounts and Secrets hold the cluster (:data:`PRIVILEGED_NAMESPACES`)
    pods_reach = cluster_wide or privileged is not None

    def on(*wanted: str) -> list[str]:  # the entries (as written) that grant each of ``wanted``, in that order
        return list(dict.fromkeys(e for w in wanted for e in resources if resource_match([e], w)))

    if pods_reach:  # in rule order
        makers = [e for e in resources if any(resource_match([e], r) and _serves(groups, served)
                                              for r, served in POD_MAKERS.items())]  # fmt: skip
        inside = on("pods/exec", "pods/attach") if core else []
        debug = on("pods/ephemeralcontainers") if core else []
        kubelet = on("nodes/proxy") if core and cluster_wide else []  # nodes are cluster-scoped
        # update or patch: a new pod template, or a running pod's new image; get: a websocket exec
        for verb, reached in (("create", makers + inside + kubelet), ("update", makers + debug),
                              ("patch", makers + debug), ("get", inside + kubelet)):
            reached = list(dict.fromkeys(reached))
            if verb in verbs and reached:
                out.append((3, f"{verb} on {', '.join(reached)}"))
        token = on("serviceaccounts/token") if core and "create" in verbs else []
        if token and cluster_wide:
            out.append((4, f"issuing tokens cluster-wide (create on {token[0]}: a token for any "
                           "ServiceAccount of any namespace)"))  # fmt: skip
        elif token:
            where, why = str(privileged).split(" (", 1)
            out.append((4, f"issuing tokens in {where} (create on {token[0]}: a token for any ServiceAccount there; "
                           f"{why}"))  # fmt: skip
    read = [v for v in ("get", "list", "watch") if v in verbs]
    secrets = on("secrets") if core and read and pods_reach else []
    if secrets:
        said, stream = ("watching", "a watch streams every Secret with its data") if read == ["watch"] else ("reading", "")
        if cluster_wide:
            out.append((5, f"{said} secrets cluster-wide" + (f" ({stream})" if stream else "")))
        else:  # the namespace's phrase: namespace 'x' (what it holds)
            where, why = str(privileged).split(" (", 1)
            out.append((5, f"{said} secrets in {where} ({stream + '; ' if stream else ''}{why}"))
    if approve:
        out.append((6, approve))
    admission = _serves(groups, ("admissionregistration.k8s.io",))
    hooks = on(*WEBHOOK_RESOURCES) if cluster_wide and admission else []
    writes = [v for v in ("update", "patch") if v in verbs]
    if hooks and writes:
        out.append((7, f"{' and '.join(writes)} on {', '.join(hooks)} without resourceNames (it can rewrite "
                       "every admission webhook of the cluster)"))  # fmt: skip
    if hooks and "create" in verbs:
        out.append((7, f"create on {', '.join(hooks)} (a new admission webhook receives every object it asks for, "
                       "Secrets included, and a mutating one may rewrite it, a pod made privileged)"))  # fmt: skip
    policies = on(*ADMISSION_POLICY_RESOURCES) if cluster_wide and admission else []
    changes = [v for v in ("create", "update", "patch") if v in verbs]
    if policies and changes:
        said = ", ".join(changes[:-1]) + " and " + changes[-1] if len(changes) > 1 else changes[0]
        out.append((7, f"{said} on {', '.join(policies)} (an admission policy applies to every object its "
                       "bindings match: a mutating one may make every pod privileged, a validating one "
                       "decides what the cluster admits)"))  # fmt: skip
    return out


#: The label every built-in ClusterRole carries (``bootstrappolicy/policy.go``
#: ``addClusterRoleLabel``), which an ``aggregationRule`` may select them all by.
_BOOTSTRAPPING = ("kubernetes.io/bootstrapping", "rbac-defaults")
_AGGREGATE_TO = "rbac.authorization.k8s.io/aggregate-to-"

#: Built-in ClusterRoles of kube-apiserver's bootstrap policy (``k8s.io/kubernetes
#: plugin/pkg/auth/authorizer/rbac/bootstrappolicy`` ``policy.go`` ``ClusterRoles`` and
#: ``controller_policy.go``; rendered in that folder's ``testdata/cluster-roles.yaml`` and
#: ``testdata/controller-roles.yaml``) whose rules hold something :func:`_rule_grants` reports, with
#: those rules only (what else they hold adds nothing HL106 reports), as ``(labels, rules)``; the
#: labels are what an ``aggregationRule`` selects them by (each also has :data:`_BOOTSTRAPPING`).
#: ``admin`` and ``edit`` are aggregated from ``system:aggregate-to-edit`` (``edit`` carries the
#: ``aggregate-to-admin`` label, ``system:aggregate-to-edit`` the ``aggregate-to-edit`` one), so they
#: hold its rules; ``view`` and the ``aggregate-to-view`` rules hold nothing reported. The
#: controllers that start pods (replicaset, replication, statefulset, daemon-set, job and
#: persistent-volume-binder create pods; cronjob-controller Jobs; deployment-controller
#: ReplicaSets), the certificate approvers of a client signer (certificate-controller approves
#: kubelet client certificates), ``system:node`` (mirror pods, tokens) and
#: ``system:controller:storage-version-migrator-controller`` (create and patch on every resource;
#: behind the StorageVersionMigrator feature gate) are here too. Left out:
#: ``system:controller:horizontal-pod-autoscaler``, whose ``*`` resources are those of the
#: ``custom.metrics.k8s.io`` and ``external.metrics.k8s.io`` groups (metrics, no object);
#: ``system:kube-scheduler``, which binds pending pods to nodes and deletes pods but starts none and
#: reads no Secret; ``system:persistent-volume-provisioner``, which creates PersistentVolumes (no
#: pod, no Secret).
_SECRETS_READ = {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "list", "watch"]}
_IMPERSONATE_SA = {"apiGroups": [""], "resources": ["serviceaccounts"], "verbs": ["impersonate"]}
_TOKENS = {"apiGroups": [""], "resources": ["serviceaccounts/token"], "verbs": ["create"]}
_WORKLOADS = {"apiGroups": ["", "apps", "batch"], "verbs": ["create", "patch", "update"], "resources": [
    "pods", "pods/attach", "pods/exec", "replicationcontrollers", "daemonsets", "deployments", "replicasets",
    "statefulsets", "cronjobs", "jobs"]}


def _controller(*rules: tuple[str, str, str]) -> tuple[dict[str, str], tuple[dict, ...]]:
    """A controller role's entry from ``(API group, resource, verbs)`` triples, verbs space-separated."""
    return {}, tuple({"apiGroups": [g], "resources": [r], "verbs": v.split()} for g, r, v in rules)


_EDIT = (_IMPERSONATE_SA, _WORKLOADS, _TOKENS, _SECRETS_READ)


def _approver(signer: str) -> tuple[dict[str, str], tuple[dict, ...]]:
    """A built-in role's entry that may approve certificates of ``signer`` only."""
    return {}, ({"apiGroups": [CERTIFICATES_GROUP], "resources": ["signers"], "resourceNames": [signer],
                 "verbs": ["approve"]},)  # fmt: skip


BUILT_IN_ROLES: dict[str, tuple[dict[str, str], tuple[dict, ...]]] = {
    "cluster-admin": ({}, ({"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},)),
    "admin": ({}, _EDIT),
    "edit": ({_AGGREGATE_TO + "admin": "true"}, _EDIT),
    "system:aggregate-to-edit": ({_AGGREGATE_TO + "edit": "true"}, _EDIT),
    "system:kube-controller-manager": ({}, ({"apiGroups": ["*"], "resources": ["*"], "verbs": ["list", "watch"]},
                                            _TOKENS)),  # fmt: skip
    "system:kubelet-api-admin": ({}, ({"apiGroups": [""], "resources": ["nodes/log", "nodes/metrics", "nodes/proxy",
                                                                          "nodes/stats"], "verbs": ["*"]},)),  # fmt: skip
    "system:node": ({}, ({"apiGroups": [""], "resources": ["pods"], "verbs": ["create"]}, {"apiGroups": [""], "resources": ["configmaps", "secrets"],
                                 "verbs": ["get", "list", "watch"]}, _TOKENS)),  # fmt: skip
    "system:certificates.k8s.io:kube-apiserver-client-approver": _approver("kubernetes.io/kube-apiserver-client"),
    "system:certificates.k8s.io:kube-apiserver-client-kubelet-approver": _approver(
        "kubernetes.io/kube-apiserver-client-kubelet"),
    "system:certificates.k8s.io:legacy-unknown-approver": _approver("kubernetes.io/legacy-unknown"),
    "system:controller:certificate-controller": _approver("kubernetes.io/kube-apiserver-client-kubelet"),
    "system:controller:clusterrole-aggregation-controller": ({}, (
        {"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["clusterroles"],
         "verbs": ["escalate", "get", "list", "patch", "update", "watch"]},)),  # fmt: skip
    "system:controller:cronjob-controller": _controller(("batch", "cronjobs", "update"),
                                                        ("batch", "jobs", "create update patch")),
    "system:controller:daemon-set-controller": _controller(("", "pods", "create patch")),
    "system:controller:deployment-controller": _controller(("apps", "deployments", "update"),
                                                           ("apps", "replicasets", "create update patch"),
                                                           ("", "pods", "update")),
    "system:controller:generic-garbage-collector": ({}, (
        {"apiGroups": ["*"], "resources": ["*"], "verbs": ["delete", "get", "list", "patch", "update", "watch"]},)),
    "system:controller:job-controller": _controller(("batch", "jobs", "update patch"), ("", "pods", "create patch")),
    "system:controller:namespace-controller": ({}, (
        {"apiGroups": ["*"], "resources": ["*"], "verbs": ["delete", "deletecollection", "get", "list", "watch"]},)),
    "system:controller:persistent-volume-binder": _controller(("", "pods", "create")),
    "system:controller:replicaset-controller": _controller(("apps", "replicasets", "update"), ("", "pods", "create patch")),
    "system:controller:replication-controller": _controller(("", "replicationcontrollers", "update"),
                                                            ("", "pods", "create patch")),
    "system:controller:resourcequota-controller": ({}, ({"apiGroups": ["*"], "resources": ["*"], "verbs": ["list", "watch"]},)),
    "system:controller:statefulset-controller": _controller(("", "pods", "create update patch")),
    "system:controller:storage-version-migrator-controller": ({}, (
        {"apiGroups": ["*"], "resources": ["*"], "verbs": ["create", "list", "patch", "watch"]},)),
}


#: Built-in ClusterRoles that hold nothing HL106 reports but carry a label an ``aggregationRule``
#: may select (``bootstrappolicy/policy.go``): ``view`` is gathered into ``edit``
#: (``aggregate-to-edit``), ``system:aggregate-to-admin`` into ``admin`` and
#: ``system:aggregate-to-view`` into ``view``; ``admin`` and ``view`` carry the bootstrapping label
#: only. A selector that selects one of them selects roles whose meaning is known.
HARMLESS_BUILT_IN_LABELS: dict[str, dict[str, str]] = {
    "view": {_AGGREGATE_TO + "edit": "true"},
    "system:aggregate-to-admin": {_AGGREGATE_TO + "admin": "true"},
    "system:aggregate-to-view": {_AGGREGATE_TO + "view": "true"},
}
#: The names Kubernetes keeps for its own roles: ``cluster-admin``, ``admin``, ``edit``, ``view`` and
#: the ``system:`` prefix ("Using RBAC Authorization", "Default roles and role bindings": "the
#: system: prefix ... is reserved for Kubernetes system use"). A ClusterRole of such a name that is
#: not in :data:`BUILT_IN_ROLES` holds nothing HL106 reports.
RESERVED_ROLE_NAMES = ("cluster-admin", "admin", "edit", "view")
RESERVED_ROLE_PREFIX = "system:"

#: The ClusterRoles of Argo CD's stock cluster-wide install (argo-cd v3.5.1
#: ``manifests/cluster-rbac/application-controller/argocd-application-controller-clusterrole.yaml``,
#: ``manifests/cluster-rbac/server/argocd-server-clusterrole.yaml``,
#: ``manifests/cluster-rbac/applicationset-controller/argocd-applicationset-controller-clusterrole.yaml``;
#: ``manifests/install.yaml`` holds them), with their labels and the rules that hold what HL106
#: reports, as ``(labels, rules)``: every cluster Argo CD manages in-cluster has them, so a binding
#: to one, or an ``aggregationRule`` selecting one (by ``app.kubernetes.io/part-of: argocd`` or its
#: ``component``), hands the hook the controller's ``*`` on ``*``. ``argocd-notifications-controller``
#: and ``argocd-dex-server`` have Roles in Argo CD's namespace only.
_ARGOCD_LABELS = {"app.kubernetes.io/part-of": "argocd"}
ARGOCD_CLUSTER_ROLES: dict[str, tuple[dict[str, str], tuple[dict, ...]]] = {
    "argocd-application-controller": (
        {**_ARGOCD_LABELS, "app.kubernetes.io/name": "argocd-application-controller",
         "app.kubernetes.io/component": "application-controller"},
        ({"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},)),
    "argocd-server": (
        {**_ARGOCD_LABELS, "app.kubernetes.io/name": "argocd-server", "app.kubernetes.io/component": "server"},
        ({"apiGroups": ["*"], "resources": ["*"], "verbs": ["delete", "get", "patch"]},
         {"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["create"]})),
    "argocd-applicationset-controller": (
        {**_ARGOCD_LABELS, "app.kubernetes.io/name": "argocd-applicationset-controller",
         "app.kubernetes.io/component": "applicationset-controller"},
        ({"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "list", "watch"]},)),
}  # fmt: skip


def _provable(selector: object) -> bool:
    """Whether a valid selector can only select roles that carry labels it names exactly: every
    requirement a ``matchLabels`` pair or an ``In`` of one value, and at least one of them. Any
    other (``NotIn``, ``Exists``, ``DoesNotExist``, an ``In`` of several values, an empty selector)
    also selects roles by labels no known role need carry."""
    if not isinstance(selector, Mapping):
        return False
    match, expressions = selector.get("matchLabels") or {}, selector.get("matchExpressions") or []
    if not isinstance(match, Mapping) or not isinstance(expressions, list):
        return False
    single = all(isinstance(e, Mapping) and e.get("operator") == "In" and isinstance(e.get("values"), list)
                 and len(e["values"]) == 1 for e in expressions)  # fmt: skip
    return single and bool(match or expressions)


def _valid_selector(selector: object) -> bool:
    """Whether the API server accepts ``selector`` (:func:`selects` selects something with it)."""
    if not isinstance(selector, Mapping):
        return False
    labels: dict[str, object] = {}
    match, expressions = selector.get("matchLabels") or {}, selector.get("matchExpressions") or []
    if not isinstance(match, Mapping) or not isinstance(expressions, list):
        return False
    labels.update(match)
    for e in expressions:  # build labels that satisfy each positive requirement, then ask selects()
        if not isinstance(e, Mapping) or not isinstance(e.get("key"), str):
            return False
        if e.get("operator") == "In" and isinstance(e.get("values"), list) and e["values"]:
            labels.setdefault(e["key"], e["values"][0])
        elif e.get("operator") == "Exists":
            labels.setdefault(e["key"], "")
    return selects(selector, labels) or any(
        isinstance(e, Mapping) and e.get("operator") in ("NotIn", "DoesNotExist") for e in expressions)


def _aggregated(role: Manifest, ctx: Context, seen: set[str]) -> tuple[list[Mapping], list[str], list[str]]:
    """The rules the ClusterRole aggregation controller gives ``role`` (a ClusterRole with an
    ``aggregationRule``), as far as hooklint can know them: those of the ClusterRoles of the
    application its ``clusterRoleSelectors`` select (their own aggregated rules included), of the
    built-in ones of :data:`BUILT_IN_ROLES` and of Argo CD's stock ones of
    :data:`ARGOCD_CLUSTER_ROLES` (a role of the application of the same name stands for either),
    and those roles, as a message names them (``the built-in ClusterRole 'edit'``), in selection
    order; third, each selector that may select roles hooklint cannot see, as written
    (``{matchLabels: {acme.io/x: 'true'}}``): a valid selector that selects no known role
    (built-in ones that grant nothing reported, :data:`HARMLESS_BUILT_IN_LABELS`, included), or
    that is not :func:`_provable` (any ClusterRole of the cluster may carry any label). The
    controller sets the role's rules to every rule of every ClusterRole a selector selects, itself
    left out (``k8s.io/kubernetes pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.go``
    ``syncClusterRole``); ``seen``: the roles already followed (a selection cycle)."""
    rule = get_map(role.body, "aggregationRule")
    selectors = rule.get("clusterRoleSelectors") if rule is not None else None
    if not isinstance(selectors, Seq):
        return [], [], []
    return _gather(selectors, role.name, ctx, seen)


#: The ``aggregationRule`` of each built-in ClusterRole that has one (``bootstrappolicy/policy.go``
#: ``ClusterRoles``): ``admin`` selects ``aggregate-to-admin``, ``edit`` ``aggregate-to-edit`` and
#: ``view`` ``aggregate-to-view``, each ``"true"``. The aggregation controller gives them the rules
#: of every ClusterRole of the cluster so labelled, the lint run's own included; ``edit`` carries
#: ``aggregate-to-admin`` and ``view`` ``aggregate-to-edit``, so what ``view`` gathers ``edit`` and
#: ``admin`` hold too.
BUILT_IN_AGGREGATED = ("admin", "edit", "view")


def _built_in_aggregated(name: str, ctx: Context, seen: set[str]) -> tuple[list[Mapping], list[str], list[str]]:
    """:func:`_aggregated` for the built-in ClusterRole ``name`` of :data:`BUILT_IN_AGGREGATED`
    (the lint run defines no ClusterRole of that name): the rules its ``aggregationRule`` gathers
    from the lint run's ClusterRoles (and, through ``edit`` and ``view``, from theirs), those roles
    as a message names them, and no unseen selector (what the cluster's other roles add to ``view``,
    ``edit`` and ``admin`` is the cluster's own, not this application's)."""
    selector = {"matchLabels": {_AGGREGATE_TO + name: "true"}}
    rules, gathered, _ = _gather([selector], name, ctx, seen, built_in=False)
    return rules, gathered, []


def _gather(selectors: list, self_name: str | None, ctx: Context, seen: set[str],
            built_in: bool = True) -> tuple[list[Mapping], list[str], list[str]]:
    """:func:`_aggregated` for ``selectors`` of the ClusterRole ``self_name``; without ``built_in``,
    the rules and names of the lint run's roles only (a built-in role's own rules are known)."""
    rules: list[Mapping] = []
    gathered: list[str] = []
    unseen: list[str] = []
    own = {r.name: r for r in ctx.by_kind.get("ClusterRole", []) if r.name and r.group == RBAC_GROUP}
    known = [*((name, dict([_BOOTSTRAPPING, *labels.items()]), held, f"the built-in ClusterRole '{name}'")
               for name, (labels, held) in BUILT_IN_ROLES.items()),
             *((name, dict([_BOOTSTRAPPING, *labels.items()]), (), "")
               for name, labels in HARMLESS_BUILT_IN_LABELS.items()),
             *((name, labels, held, f"Argo CD's ClusterRole '{name}'")
               for name, (labels, held) in ARGOCD_CLUSTER_ROLES.items())]  # fmt: skip
    for selector in selectors:
        matched = False
        for name, other in own.items():
            written = get_map(other.metadata, "labels")  # None without metadata or labels
            if name == self_name or not selects(selector, written or {}):
                continue  # the controller leaves the role itself out
            matched = True
            if name in seen:
                continue
            seen.add(name)
            rules.extend(r for r in (other.body.get("rules") or []) if isinstance(r, Map))
            more, names, hidden = _aggregated(other, ctx, seen)
            rules.extend(more)
            gathered.extend([f"ClusterRole '{name}'", *names])
            unseen.extend(hidden)
        for name, labels, held, shown in known:
            if name in own or not selects(selector, labels):
                continue
            matched = True
            if name in seen or name == self_name:
                continue
            if built_in:  # the built-in chain (admin, edit, view) has no cycle: only what is gathered is seen
                seen.add(name)
                rules.extend(held)
                gathered.extend([shown] if shown else [])
            if name in BUILT_IN_AGGREGATED:  # what the lint run's roles add to view, edit or admin
                more, names, _ = _built_in_aggregated(name, ctx, seen)
                rules.extend(more)
                gathered.extend(names)
        if _valid_selector(selector) and not (matched and _provable(selector)):
            unseen.append(_flow(selector))
    return rules, gathered, unseen


def _shown(gathered: list[str]) -> str:
    """The roles an aggregation gathers as a message names them: the first three, then a count."""
    return ", ".join(gathered[:3]) + (f" and {len(gathered) - 3} more" if len(gathered) > 3 else "")


def _flow(value: object) -> str:
    """``value`` (a selector as parsed) in YAML flow style, as a message quotes it."""
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return f"'{value}'" if isinstance(value, str) else str(value)


def _binding_grants(binding: Manifest, ctx: Context, judge: "_Judge | None" = None) -> str | None:
    """Why a (Cluster)RoleBinding is over-privileged, or None: what its ``roleRef`` grants in the
    binding's scope (:meth:`_Judge.role`: cluster-admin, the built-in ``admin`` or ``edit``, another
    built-in of :data:`BUILT_IN_ROLES`, or a role of the application whose rules grant what
    :func:`_rule_grants` reports, every such grant named, the most dangerous first). ``judge``: the
    run's :class:`_Judge` (one judgement of each role per run), else a new one."""
    ref = binding.body.get("roleRef")
    if not isinstance(ref, Map) or not isinstance(ref.get("name"), str):
        return None
    judged = (judge or _Judge(ctx)).role(ref.get("kind"), ref["name"], binding.namespace,
                                         binding.kind == "ClusterRoleBinding")  # fmt: skip
    return None if judged is None else judged[1]


def _grants_phrase(grants: list[tuple[int, str]], privileged: str | None = None) -> list[tuple[int, str]]:
    """The (rank, phrase) grants of every rule of one role as a message says them: the pod-running
    rights of every rule in one phrase (resources grouped by the verbs held; ``privileged``: the
    phrase of the namespace a RoleBinding grants them in, :meth:`_Judge.privileged`), the signers of every
    rule in one, the wildcard verbs of every rule in one, and "every resource" left out when
    "every resource with every verb" says it; ranked, rule order within a rank."""
    held: dict[str, set[str]] = {}  # resource: the verbs held on it, resources in rule order
    for phrase in (p for rank, p in grants if rank == 3 and not p.startswith("running commands")):
        verb, _, reached = phrase.partition(" on ")
        for resource in reached.split(", "):
            held.setdefault(resource, set()).add(verb)
    if held:  # one phrase for the pod-running rights of every rule, resources grouped by verbs
        groups: dict[str, list[str]] = {}
        for resource, verbs_held in held.items():
            said = [v for v in ("create", "update", "patch", "get") if v in verbs_held]
            groups.setdefault(", ".join(said[:-1]) + " and " + said[-1] if len(said) > 1 else said[0], []).append(resource)
        pods = "; ".join(f"{v} on {', '.join(r)}" for v, r in groups.items())
        if privileged is None:
            running = (f"running pods cluster-wide ({pods}: it can run code as any ServiceAccount of any namespace, "
                       "with that namespace's Secrets)")  # fmt: skip
        else:  # the namespace's phrase: namespace 'x' (what it holds)
            where, why = privileged.split(" (", 1)
            running = f"running pods in {where} ({pods}: it can run code as any ServiceAccount there, with its Secrets; {why}"
        grants = [g for g in grants if g[0] != 3] + [(3, running)]
    signers = list(dict.fromkeys(n for rank, p in grants if rank == 6 for n in p.split(", ")))
    if signers:  # one phrase for the signers of every rule
        shown = "every signer" if "every signer" in signers else f"signers {', '.join(signers)}"
        grants = [g for g in grants if g[0] != 6] + [(6, f"approve on {shown} (it can approve certificates that "
                                                        "authenticate to the API server as another user or node)")]
    every_verb = [phrase.removeprefix("every verb on ") for rank, phrase in grants if rank == 2]
    if every_verb:  # one phrase for the wildcard verbs of every rule (one rule's: the same phrase)
        grants = [g for g in grants if g[0] != 2] + [(2, f"every verb on {', '.join(every_verb)}")]
    if (0, "every resource with every verb") in grants:  # says all the other rules' wildcard says
        grants = [g for g in grants if g != (0, "every resource")]
    return sorted(grants, key=lambda g: g[0])  # stable: rule order within a rank


#: How many roles, ServiceAccounts and identities one HL106 run judges through ``resourceNames``
#: (past the roles its bindings name) and how deep, before it stops following names and reports
#: the name as not followed: roles that name one another could otherwise make the judgement
#: exponential, or recurse past Python's limit.
NAMED_BUDGET = 5000
NAMED_DEPTH = 40
#: What a message says of Argo CD's namespace (:meth:`_Judge.privileged`).
ARGOCD_NAMESPACE = ("Argo CD's, whose Secrets hold every managed cluster's and repository's credentials and "
                    "whose argocd-application-controller holds every verb on every resource")
#: The namespaces whose ServiceAccounts and Secrets hold the cluster, so that running pods, issuing
#: tokens or reading Secrets there through a RoleBinding is reported (:meth:`_Judge.privileged`),
#: with what a message says of each: kube-system, and Argo CD's default namespaces (the stock
#: install's ``argocd``, OpenShift GitOps' ``openshift-gitops``).
PRIVILEGED_NAMESPACES = {
    "kube-system": "the controllers' ServiceAccounts, clusterrole-aggregation-controller's escalate on every "
    "ClusterRole among them, and their tokens",
    "argocd": ARGOCD_NAMESPACE,
    "openshift-gitops": ARGOCD_NAMESPACE,
}
#: The names of Argo CD's components, which tell Argo CD's namespace (:data:`hooklint.argocd.ARGOCD_COMPONENTS`).
ARGOCD_COMPONENTS = argocd.ARGOCD_COMPONENTS
#: The group whose members pass every authorization check (Kubernetes "RBAC good practices":
#: members of ``system:masters`` bypass RBAC and webhook authorization alike).
MASTERS_GROUP = "system:masters"
_T = TypeVar("_T")


class _Judge:
    """What the roles, ServiceAccounts, users and groups an HL106 run meets reach, each judged once
    (memoized; a judgement that met one still under way, a cycle of roles naming one another, is
    not kept, and is redone when asked again, within :data:`NAMED_BUDGET`).

    A rule limited by ``resourceNames`` grants its verbs on the objects of those names only
    (Kubernetes "Using RBAC Authorization", "Referring to resources"), so it is judged by what those
    objects reach (:meth:`named`): ``impersonate`` on named users, groups or ServiceAccounts
    acts as them ("User impersonation"; group ``system:masters`` bypasses every authorization
    check); ``bind`` on a named Role or ClusterRole lets the subject bind itself to that role
    ("Restrictions on role binding creation or update"), ``escalate`` write into it rules it
    does not hold ("Restrictions on role creation or update"); ``create`` on ``serviceaccounts/token``
    issues tokens of the named ServiceAccounts ("RBAC good practices", "Token request"); reading a
    named Secret that is a ServiceAccount's token Secret reads its token."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.done: dict[tuple, object] = {}  # key: what _memo's compute gave
        self.stack: list[list] = []  # [key, left unfinished, the role judged or None], outermost first
        self.busy: dict[tuple, int] = {}  # key: its index in stack
        self.index: dict[tuple[str, str], list[tuple[Manifest, Grantee]]] | None = None  # :meth:`_subjects`
        self.secrets: dict[str, list[Manifest]] | None = None  # token Secrets by name: :meth:`token_secret`
        self.budget = NAMED_BUDGET
        self.argocd: set[str] | None = None  # Argo CD's namespaces: :meth:`privileged`

    def _memo(self, key: tuple, compute: Callable[[], _T | None], fallback: _T) -> _T | None:
        """``compute()`` once per ``key``; None for a key under way further out (its frames in
        between are left unkept); ``fallback`` past :data:`NAMED_BUDGET` or :data:`NAMED_DEPTH`."""
        if key in self.done:
            return self.done[key]  # type: ignore[return-value]
        if key in self.busy:
            for deeper in self.stack[self.busy[key] + 1:]:
                deeper[1] = True
            return None
        if self.stack:
            if self.budget <= 0 or len(self.stack) >= NAMED_DEPTH:
                return fallback
            self.budget -= 1
        frame = [key, False, key[1:4] if key[0] == "role" else None]
        self.busy[key] = len(self.stack)
        self.stack.append(frame)
        try:
            result = compute()
        finally:
            self.stack.pop()
            del self.busy[key]
        if not frame[1]:
            self.done[key] = result
        return result

    def role(self, kind: object, name: str, namespace: str | None, cluster_wide: bool) -> tuple[str, str] | None:
        """``(short, reason)`` for a role bound in ``namespace`` (``cluster_wide``: by a
        ClusterRoleBinding) when it holds what HL106 reports, else None: ``short`` names it for
        another grant's message (``cluster-admin``, ``ClusterRole 'x', which grants reading secrets
        cluster-wide``), ``reason`` is what a binding's message says. cluster-admin; the built-in
        ``admin`` or ``edit``; another built-in of :data:`BUILT_IN_ROLES` (when the application
        does not define a ClusterRole of that name itself); a Role or ClusterRole of the
        application whose rules, or the rules its ``aggregationRule`` gathers (:func:`_aggregated`),
        grant what :func:`_rule_grants` reports."""
        if not isinstance(kind, str):
            return None
        key = ("role", kind, name, None if cluster_wide else namespace, cluster_wide)
        unfollowed = f"{kind} '{name}', which hooklint did not follow (too many roles named through resourceNames)"
        return self._memo(key, lambda: self._role(kind, name, namespace, cluster_wide), (unfollowed, unfollowed))

    def _role(self, role_kind: str, role_name: str, namespace: str | None, cluster_wide: bool) -> tuple[str, str] | None:
        """:meth:`role`, computed."""
        if role_name == "cluster-admin":
            return "cluster-admin", "binds it to cluster-admin"
        # a ClusterRole is found whatever namespace is asked (Context.find: cluster-scoped kinds)
        role = self.ctx.find(role_kind, namespace, role_name)
        gathered: list[str] = []
        if role is None:
            more: list[Mapping] = []
            if role_kind == "ClusterRole" and role_name in BUILT_IN_AGGREGATED:
                more, gathered, _ = _built_in_aggregated(role_name, self.ctx, {role_name})
            if role_kind == "ClusterRole" and role_name in BUILT_IN_WRITER_ROLES:
                writer = f"binds it to the built-in ClusterRole '{role_name}', {BUILT_IN_WRITER_ROLES[role_name]}"
                added = self._gathered_grants(more, gathered, namespace, cluster_wide)
                return f"the built-in ClusterRole '{role_name}'", writer + (f", and {added}" if added else "")
            if role_kind == "ClusterRole" and role_name in ARGOCD_CLUSTER_ROLES:
                rules: list[Mapping] = list(ARGOCD_CLUSTER_ROLES[role_name][1])
                named = f"Argo CD's ClusterRole '{role_name}'"
                through = named + " (not in this application: the rules Argo CD's stock install gives it)"
            elif role_kind != "ClusterRole" or (role_name not in BUILT_IN_ROLES and not more):
                return None
            else:
                rules = [*BUILT_IN_ROLES.get(role_name, ({}, ()))[1], *more]
                named = through = f"the built-in ClusterRole '{role_name}'"
        else:
            written = role.body.get("rules")
            rules = [r for r in written if isinstance(r, Map)] if isinstance(written, list) else []
            if role_kind == "ClusterRole":
                more, gathered, _ = _aggregated(role, self.ctx, {role_name})
                rules.extend(more)
            named = through = f"{role_kind} '{role_name}'"
        grants: list[tuple[int, str]] = []
        privileged = None if cluster_wide else self.privileged(namespace)
        argocd_where = "cluster-wide" if cluster_wide else self.argocd_where(namespace)
        for rule in rules:
            grants.extend(g for g in _rule_grants(rule, cluster_wide, self, privileged, argocd_where) if g not in grants)
        if not grants:
            return None
        grants = _grants_phrase(grants, privileged)
        if gathered and role_kind == "ClusterRole":
            through += f" (its aggregationRule gathers the rules of {_shown(gathered)})"
        return (f"{named}, which grants {grants[0][1].split(' (')[0]}",
                f"grants {', and '.join(phrase for _, phrase in grants)} through {through}")

    def _gathered_grants(self, rules: list[Mapping], gathered: list[str], namespace: str | None,
                         cluster_wide: bool) -> str | None:
        """What ``rules``, gathered from the roles ``gathered`` names into a built-in writer role
        (:func:`_built_in_aggregated`), grant that HL106 reports, as a binding's message adds it
        (``grants every verb on every resource cluster-wide through the rules its aggregationRule
        gathers from ClusterRole 'extra'``), else None."""
        privileged = None if cluster_wide else self.privileged(namespace)
        argocd_where = "cluster-wide" if cluster_wide else self.argocd_where(namespace)
        grants: list[tuple[int, str]] = []
        for rule in rules:
            grants.extend(g for g in _rule_grants(rule, cluster_wide, self, privileged, argocd_where) if g not in grants)
        if not grants:
            return None
        grants = _grants_phrase(grants, privileged)
        return (f"grants {', and '.join(phrase for _, phrase in grants)} through the rules its aggregationRule "
                f"gathers from {_shown(gathered)}")

    def privileged(self, namespace: str | None) -> str | None:
        """How a message names ``namespace`` when its ServiceAccounts and Secrets hold the cluster,
        so that running pods, issuing tokens or reading Secrets there is reported through a
        RoleBinding too (:data:`PRIVILEGED_NAMESPACES`), else None: ``kube-system`` (the
        controllers' ServiceAccounts, bound to ``system:controller:`` roles, and their tokens);
        Argo CD's namespace (:func:`hooklint.argocd.control_plane_namespaces`): ``argocd`` (the stock
        install's), ``openshift-gitops`` (OpenShift GitOps'), the configured ``argocd-namespace``, or
        the namespace of a ConfigMap ``argocd-cm`` or ``argocd-cmd-params-cm``, or of a
        ServiceAccount, Deployment or StatefulSet named as one of Argo CD's components, of this lint
        run (its cluster Secrets,
        labelled ``argocd.argoproj.io/secret-type: cluster``, hold every managed cluster's
        credentials, argo-cd v3.5.1 ``docs/operator-manual/declarative-setup.md``, and a pod there
        may run as ``argocd-application-controller``, every verb on every resource)."""
        if namespace is None:
            return None
        if self.argocd is None:
            # the one place the Application map asks too (an Application's instance name)
            objects = ((m.kind, m.name, m.namespace) for kind in ("ConfigMap", "ServiceAccount", "Deployment",
                                                                  "StatefulSet") for m in self.ctx.by_kind.get(kind, []))  # fmt: skip
            self.argocd = set(argocd.control_plane_namespaces(self.ctx.config.argocd_namespace, objects).namespaces)
        if namespace in PRIVILEGED_NAMESPACES and not PRIVILEGED_NAMESPACES[namespace].startswith("Argo CD's"):
            return f"namespace '{namespace}' ({PRIVILEGED_NAMESPACES[namespace]})"
        if namespace in self.argocd:
            return f"namespace '{namespace}' ({ARGOCD_NAMESPACE})"
        return None

    def argocd_where(self, namespace: str | None) -> str | None:
        """How a message says a RoleBinding of ``namespace`` reaches Argo CD's objects
        (``in Argo CD's namespace 'argocd'``) when ``namespace`` is Argo CD's (:meth:`privileged`,
        :func:`hooklint.argocd.control_plane_namespaces`), else None."""
        said = self.privileged(namespace)
        return f"in Argo CD's namespace '{namespace}'" if said and said.endswith(f"({ARGOCD_NAMESPACE})") else None

    def unseen(self, kind: object, name: str, namespace: str | None) -> str | None:
        """Why a role bound in ``namespace`` that :meth:`role` does not report cannot be judged, as
        a binding's message says it, else None: a Role, or a ClusterRole that is neither
        built-in (a name Kubernetes keeps: :data:`RESERVED_ROLE_NAMES`, the ``system:`` prefix) nor
        Argo CD's (:data:`ARGOCD_CLUSTER_ROLES`), that the application does not define (it holds
        whatever the cluster gives it); or a ClusterRole of the application whose
        ``aggregationRule`` may gather ClusterRoles hooklint cannot see (:func:`_aggregated`)."""
        if kind not in ("Role", "ClusterRole"):
            return None
        role = self.ctx.find("ClusterRole", None, name) if kind == "ClusterRole" else find_loose(self.ctx, "Role", namespace, name)
        if role is None:
            if kind == "ClusterRole" and (name in RESERVED_ROLE_NAMES or name.startswith(RESERVED_ROLE_PREFIX)
                                          or name in ARGOCD_CLUSTER_ROLES):  # fmt: skip
                return None
            where = "built in or Argo CD's" if kind == "ClusterRole" else "in the binding's namespace here"
            return (f"binds it to {kind} '{name}', which is not in this application nor {where}, so hooklint "
                    "cannot see what it grants")  # fmt: skip
        if kind != "ClusterRole":
            return None
        hidden = _aggregated(role, self.ctx, {name})[2]
        if not hidden:
            return None
        return (f"binds it to ClusterRole '{name}', whose aggregationRule selector {'; '.join(hidden)} may gather "
                "ClusterRoles hooklint cannot see (any ClusterRole of the cluster may carry those labels), so "
                "hooklint cannot tell what it grants")  # fmt: skip

    def _binding(self, binding: Manifest) -> tuple[str, str] | None:
        """:meth:`role` for the ``roleRef`` of ``binding``."""
        ref = binding.body.get("roleRef")
        if not isinstance(ref, Map) or not isinstance(ref.get("name"), str):
            return None
        return self.role(ref.get("kind"), ref["name"], binding.namespace, binding.kind == "ClusterRoleBinding")

    def service_account(self, name: str, namespace: str | None) -> str | None:
        """What ServiceAccount ``name`` of ``namespace`` (None: of any namespace) holds, as a
        message names it, when HL106 reports it, else None: one of Argo CD's own
        (:data:`ARGOCD_SERVICE_ACCOUNTS`, unless the application creates it in ``namespace``); one
        of kube-system's controllers, bound to the built-in ``system:controller:<name>``
        (``bootstrappolicy/controller_policy.go``, each controller's ServiceAccount of kube-system
        bound to its role); or one a binding of the application binds to such a role."""
        key = ("sa", name, namespace)
        unfollowed = f"ServiceAccount '{name}', which hooklint did not follow (too many roles named through resourceNames)"
        return self._memo(key, lambda: self._service_account(name, namespace), unfollowed)

    def _service_account(self, name: str, namespace: str | None) -> str | None:
        """:meth:`service_account`, computed."""
        if name in ARGOCD_SERVICE_ACCOUNTS and (namespace is None or not self.ctx.find("ServiceAccount", namespace, name)):
            return (f"Argo CD's own ServiceAccount '{name}', which the stock install grants "
                    f"{ARGOCD_SERVICE_ACCOUNTS[name].split(' (')[0]}")  # fmt: skip
        controller = "system:controller:" + name
        if namespace in (None, "kube-system") and controller in BUILT_IN_ROLES:
            judged = self.role("ClusterRole", controller, None, True)
            if judged is not None:
                return f"kube-system's ServiceAccount '{name}', bound to {judged[0]}"
        for binding, grantee in self._subjects().get(("ServiceAccount", name), []):
            judged = self._binding(binding) if grantee.covers(namespace, name) else None
            if judged is not None:
                return f"ServiceAccount '{name}', which {binding.label} binds to {judged[0]}"
        return None

    def _subjects(self) -> dict[tuple[str, str], list[tuple[Manifest, Grantee]]]:
        """The bindings of the application (the copies Argo CD keeps) by the subjects they name,
        built once: ``("ServiceAccount", name)`` for each named ServiceAccount a subject grants
        (:func:`hooklint.model.binding_grantees`), ``("User" or "Group", name)`` for each user or
        group subject, in binding order."""
        if self.index is None:
            self.index = {}
            for binding in (b for b in self.ctx.kept if b.kind in ("RoleBinding", "ClusterRoleBinding")):
                for grantee in binding_grantees(binding):
                    if grantee.name is not None:
                        self.index.setdefault(("ServiceAccount", grantee.name), []).append((binding, grantee))
                subjects = binding.body.get("subjects") if binding.group == RBAC_GROUP else None
                for subject in subjects if isinstance(subjects, Seq) else []:
                    kind, name = (subject.get("kind"), subject.get("name")) if isinstance(subject, Map) else (None, None)
                    if kind in ("User", "Group") and isinstance(name, str) and subject.get("apiGroup") in (None, "", RBAC_GROUP):
                        self.index.setdefault((kind, name), []).append((binding, Grantee(None, None)))
        return self.index

    def identity(self, kind: str, name: str, namespace: str | None) -> str:
        """Why impersonating ``kind`` (User, Group or ServiceAccount) ``name`` is escalation, as a
        message says it: group ``system:masters`` bypasses every authorization check; a
        ServiceAccount holds what :meth:`service_account` finds; a user or group what a binding of
        the application grants its subject of that name; any other identity whatever it holds."""
        if kind == "Group" and name == MASTERS_GROUP:
            return f"it can act as group '{name}', which bypasses every authorization check"
        if kind == "ServiceAccount":
            held = self.service_account(name, namespace)
            return f"it can act as {held}" if held else f"it can act as ServiceAccount '{name}', with its rights"
        for binding, _ in self._subjects().get((kind, name), []):
            judged = self._binding(binding)
            if judged is not None:
                return f"it can act as {kind.lower()} '{name}', whom {binding.label} binds to {judged[0]}"
        return f"it can act as {kind.lower()} '{name}', with every right that {kind.lower()} holds"

    def token_secret(self, name: str) -> str | None:
        """The ServiceAccount token Secret of the application named ``name``
        (``type: kubernetes.io/service-account-token``) whose ServiceAccount is kube-system's or
        one :meth:`service_account` reports, as a message names it, else None."""
        if self.secrets is None:
            self.secrets = {}
            for secret in self.ctx.by_kind.get("Secret", []):
                if secret.name and secret.body.get("type") == "kubernetes.io/service-account-token":
                    self.secrets.setdefault(secret.name, []).append(secret)
        for secret in self.secrets.get(name, []):
            annotations = get_map(secret.metadata, "annotations")
            account = annotations.get(SA_NAME_ANNOTATION) if annotations is not None else None
            if not isinstance(account, str):
                continue
            held = self.service_account(account, secret.namespace)
            if held is None and secret.namespace == "kube-system":
                held = f"kube-system's ServiceAccount '{account}'"
            if held is not None:
                return f"the token Secret '{name}' of {held}"
        return None

    def named(self, verbs: list[str], resources: list[str], groups: list, names: list,
              cluster_wide: bool) -> list[tuple[int, str]]:
        """What one rule limited by ``resourceNames`` ``names`` grants that HL106 reports, as
        (rank, phrase) as :func:`_rule_grants` ranks them: 1 ``impersonate`` on named users,
        groups or ServiceAccounts (:meth:`identity`; every such name), and ``bind`` or
        ``escalate`` on a named role HL106 reports (:meth:`role`: ``bind`` binds the subject to it,
        ``escalate`` writes rules into it), or ``escalate`` on the role being judged itself (it can
        write any rule into its own role); cluster-wide only: 3 ``get`` or ``create`` on named
        ``nodes/proxy`` (the kubelet API of those nodes, which runs commands in every pod there;
        "RBAC good practices", "Access to proxy subresource of Nodes"), 4 ``create`` on
        ``serviceaccounts/token`` of a ServiceAccount :meth:`service_account` reports, 5 reading
        a token Secret :meth:`token_secret` reports. ``*`` in ``verbs`` or ``resources`` holds each.
        A ClusterRoleBinding grants the names in every namespace, a RoleBinding in its own: a
        Role's names are looked up there, and ``escalate`` on a ClusterRole is not granted."""
        own = self.stack[-1][2] if self.stack else None  # (kind, name, namespace) of the role judged
        namespace = own[2] if own else None
        names = [str(n) for n in names]
        listed = ", ".join(f"'{n}'" for n in names)

        def holds(verb: str) -> bool:
            return verb_matches(verbs, verb)

        def on(resource: str) -> bool:
            return resource_match(resources, resource) is not None

        core = _serves(groups, ("",))
        out: list[tuple[int, str]] = []
        if holds("impersonate") and core:
            for resource, kind in (("users", "User"), ("groups", "Group"), ("serviceaccounts", "ServiceAccount")):
                if on(resource):
                    why = "; ".join(self.identity(kind, n, None if cluster_wide else namespace) for n in names)
                    out.append((1, f"impersonate on {resource} {listed} ({why})"))
        if _serves(groups, (RBAC_GROUP,)):
            for resource, kind in (("clusterroles", "ClusterRole"), ("roles", "Role")):
                for n in names if on(resource) else []:
                    target = self._named_role(kind, n, namespace, cluster_wide)
                    held: list[str] = []
                    reasons: list[str] = []
                    if holds("escalate") and (kind == "Role" or cluster_wide):
                        if own is not None and own[:2] == (kind, n):
                            held.append("escalate")
                            reasons.append(f"it can write any rule into its own {kind} '{n}'")
                        elif target:
                            held.append("escalate")
                            reasons.append(f"it can write into {target} rules it does not hold")
                    if holds("bind") and target:
                        held.append("bind")
                        reasons.append(f"it can bind itself to {target}")
                    if held:
                        out.append((1, f"{', '.join(held)} on {resource} '{n}' ({'; '.join(reasons)})"))
        if not cluster_wide or not core:
            return out
        kubelet = [v for v in ("create", "get") if holds(v)] if on("nodes/proxy") else []
        if kubelet:
            out.append((3, f"running commands in every pod of nodes {listed} ({' and '.join(kubelet)} on nodes/proxy: "
                           "the kubelet API of those nodes)"))  # fmt: skip
        if holds("create") and on("serviceaccounts/token"):
            found = [desc for n in names if (desc := self.service_account(n, None))]
            if found:
                out.append((4, f"issuing tokens for named ServiceAccounts (create on serviceaccounts/token {listed}: a "
                               f"token for {'; for '.join(found)})"))  # fmt: skip
        read = [v for v in ("get", "list", "watch") if holds(v)]
        if read and on("secrets"):
            found = [desc for n in names if (desc := self.token_secret(n))]
            if found:
                out.append((5, f"reading named token Secrets cluster-wide ({', '.join(read)} on secrets {listed}: "
                               f"{'; '.join(found)})"))  # fmt: skip
        return out

    def _named_role(self, kind: str, name: str, namespace: str | None, cluster_wide: bool) -> str | None:
        """:meth:`role`'s short name for the ClusterRole ``name``, or the first Role ``name`` of the
        application HL106 reports (of ``namespace`` unless ``cluster_wide``), or None."""
        if kind == "ClusterRole":
            judged = self.role(kind, name, namespace, cluster_wide)
            return judged[0] if judged else None
        for role in self.ctx.by_kind.get("Role", []):
            if role.name == name and role.group == RBAC_GROUP and (cluster_wide or role.namespace == namespace):
                judged = self.role(kind, name, role.namespace, False)
                if judged is not None:
                    return judged[0]
        return None


#: The ServiceAccounts of Argo CD's own components that its stock install binds to a role
#: (argo-cd v3.5.1 ``manifests/install.yaml``; the HA and namespace-install manifests use the same
#: names), with what the role lets a pod running as one do. ``argocd-repo-server``,
#: ``argocd-commit-server`` and the ``argocd-redis-ha`` ones are bound to no role there.
ARGOCD_SERVICE_ACCOUNTS = {
    "argocd-application-controller": "every verb on every resource of the cluster (ClusterRole "
    "argocd-application-controller), and reading the Secrets of Argo CD's namespace",
    "argocd-server": "delete, get and patch on every resource of the cluster (ClusterRole argocd-server), and "
    "reading and writing the Secrets of Argo CD's namespace",
    "argocd-applicationset-controller": "creating and changing Applications (ClusterRole "
    "argocd-applicationset-controller), which the application controller then syncs with its own rights",
    "argocd-notifications-controller": "reading the Secrets of Argo CD's namespace, its repository and cluster "
    "credentials among them",
    "argocd-dex-server": "reading the Secrets of Argo CD's namespace, its repository and cluster credentials among them",
    "argocd-redis": "reading and creating the Secrets of Argo CD's namespace",
}


def _argocd_service_account(m: Manifest, pod: PodSpec, ctx: Context) -> Iterator[Hit]:
    """HL106's finding on a pod of ``m`` that runs as one of Argo CD's own ServiceAccounts
    (:data:`ARGOCD_SERVICE_ACCOUNTS`) which the application does not create (no ServiceAccount of
    that name in the hook's namespace, or without one): the pod then holds what the Argo CD install
    grants that component, whatever binding the application adds, so no binding of the application
    need be read. A token Secret of such a ServiceAccount that the pod mounts (:func:`_identities`)
    is reported the same way."""
    for sa_name, who, span, field in _identities(m, pod, ctx):
        if sa_name not in ARGOCD_SERVICE_ACCOUNTS:
            continue
        if any(sa.name == sa_name and (sa.namespace is None or m.namespace is None or sa.namespace == m.namespace)
               for sa in ctx.by_kind.get("ServiceAccount", [])):  # fmt: skip
            continue
        yield Hit(
            f"{m.label} {who}, one of Argo CD's own, which this application does not "
            f"create: the stock Argo CD install grants it {ARGOCD_SERVICE_ACCOUNTS[sa_name]}; {runs(m)}, so whoever "
            "controls its image or command holds those rights. Give it its own ServiceAccount with only the verbs and "
            "resources it needs.",
            span,
            field,
            manifest=m,
        )


@check("HL106", scope="application")
def hook_overprivileged_rbac(manifests: list[Manifest], ctx: Context) -> Iterator[Hit]:
    """A hook's ServiceAccount bound (in the same application, by any subject that reaches it:
    :func:`_binding_names`) to cluster-admin or the built-in admin or edit ClusterRole, or to a role with wildcard verbs or resources, escalate, bind or
    impersonate, or, cluster-wide, starting pods or running commands in them (``pods/exec``,
    ``nodes/proxy``), issuing tokens, reading secrets, approving client certificates or rewriting
    admission webhooks (:func:`_rule_grants`; Kubernetes RBAC good practices, "Privilege escalation
    risks"); a rule limited by ``resourceNames`` by what those names reach (:class:`_Judge`: a
    named ``system:masters``, ``cluster-admin``, privileged ServiceAccount...); the message names
    every grant, the most dangerous first. A hook running as one of Argo CD's own ServiceAccounts that the application
    does not create is reported too (:func:`_argocd_service_account`)."""
    for m in manifests:
        fields: set[str] = set()  # a Workflow's pods may share the spec's field
        for hit in (h for pod in pods_in_scope(m, ctx) for h in _argocd_service_account(m, pod, ctx)):
            if hit.field_path not in fields:
                fields.add(hit.field_path)
                yield hit
    # the copy of each binding Argo CD keeps, the last (a copy it drops grants nothing)
    bindings = [b for b in ctx.kept if b.kind in ("RoleBinding", "ClusterRoleBinding")]
    if not bindings:
        return
    judge = _Judge(ctx)  # each role judged once per run
    order = {id(b): i for i, b in enumerate(bindings)}
    for m in manifests:
        seen: set[tuple[str, int]] = set()
        for pod in pods_in_scope(m, ctx):
            identities = _identities(m, pod, ctx)
            # the bindings that may reach one of its accounts, in the application's order
            reaching = {id(b): b for sa_name, *_ in identities for b in ctx.bindings_reaching(sa_name)}
            for binding in sorted(reaching.values(), key=lambda b: order[id(b)]):
                for sa_name, who, span, field in identities:
                    if (field, id(binding)) in seen:
                        continue
                    seen.add((field, id(binding)))
                    found = _binding_hit(m, binding, sa_name, who, span, field, ctx, judge)
                    if found is not None:
                        yield found


def _identities(m: Manifest, pod: PodSpec, ctx: Context) -> list[tuple[str, str, Span, str]]:
    """The ServiceAccounts whose rights code in ``pod`` holds, as (name, how a message says the
    pod holds them, span, field path): the one it runs as (``default`` when none is set), then
    each other one whose token Secret it mounts (:func:`token_secrets`)."""
    sa_name, key = pod.service_account()
    sa_name = sa_name or "default"
    out = [(sa_name, f"runs as ServiceAccount '{sa_name}'", pod.value_span(key) if key else pod.anchor(),
            pod.field_path("serviceAccountName"))]  # fmt: skip
    for account, field, span, secret in token_secrets(m, pod, ctx):
        if account != sa_name:
            out.append((account, f"{token_verb(field)} the token Secret '{secret.name}' of ServiceAccount '{account}'", span, field))
    return out


def _binding_hit(m: Manifest, binding: Manifest, sa_name: str, who: str, span: Span, field: str, ctx: Context,
                 judge: _Judge) -> Hit | None:
    """HL106's finding for a pod of ``m`` holding ServiceAccount ``sa_name`` (``who``: how, as
    :func:`_identities` says it) and ``binding``, or None: an error when the binding grants what
    :func:`_binding_grants` reports, a warning when it binds a role hooklint cannot see
    (:meth:`_Judge.unseen`)."""
    grantee = binding_grantee(binding, m.namespace, sa_name)
    if grantee is None:
        return None
    reason = _binding_grants(binding, ctx, judge)
    severity = None
    if reason is None:
        ref = binding.body.get("roleRef")
        reason = judge.unseen(ref.get("kind"), ref["name"], binding.namespace) \
            if isinstance(ref, Map) and isinstance(ref.get("name"), str) and binding.group == RBAC_GROUP else None
        severity = "warning"
    if reason is None:
        return None
    where = (
        "the cluster"
        if binding.kind == "ClusterRoleBinding"
        else f"namespace '{binding.namespace}'" if binding.namespace else "its namespace"
    )
    reach = f"holds those rights over {where}"
    via = f" (subject {grantee.subject})" if grantee.subject else ""
    fix = "Grant only the verbs and resources it needs."
    if severity:
        reach = f"holds whatever it grants over {where}"
        fix = "Define the role in the application, listing only the verbs and resources it needs."
    return Hit(
        f"{m.label} {who}, and {binding.label}{via} {reason}: "
        f"{runs(m)}, so whoever controls its image or command {reach}. {fix}",
        span,
        field,
        manifest=m,
        severity=severity,
    )


def _binding_names(binding: Manifest, sa_name: str, namespace: str | None) -> bool:
    """Whether ``binding`` grants ServiceAccount ``sa_name`` of ``namespace``, through any subject
    Kubernetes matches to it (:func:`hooklint.model.binding_grantees`: the ServiceAccount, its
    ``system:serviceaccount:`` User name, the ServiceAccount groups and ``system:authenticated``).
    A pod without metadata.namespace lands in the destination namespace, which may be the
    subject's: it matches a subject of any namespace, rather than miss an over-privileged hook."""
    return binding_grantee(binding, namespace, sa_name) is not None


# --- HL108 -------------------------------------------------------------------------------------

#: RBAC verbs that change the cluster (every verb but get, list and watch; ``*`` included).
WRITE_VERBS = ("*", "create", "update", "patch", "delete", "deletecollection", "escalate", "bind", "impersonate")


def _write_grants(role: Manifest) -> list[str]:
    """``verb on resources`` for every write verb (:data:`WRITE_VERBS`) of ``role``'s rules, in
    rule order."""
    rules = role.body.get("rules")
    out: list[str] = []
    for rule in rules if isinstance(rules, Seq) else []:
        if not isinstance(rule, Map):
            continue
        verbs, resources = rule.get("verbs"), rule.get("resources")
        written = [str(v) for v in verbs if str(v) in WRITE_VERBS] if isinstance(verbs, Seq) else []
        if written:
            shown = ", ".join(str(r) for r in resources) if isinstance(resources, Seq) and resources else "its resources"
            out.append(f"{', '.join(written)} on {shown}")
    return out


def _stays_after_sync(m: Manifest) -> bool:
    """Whether a sync hook stays in the cluster after a successful sync: no HookSucceeded among its
    effective delete policies (BeforeHookCreation, the default, deletes it only when the next sync
    creates it again; HookFailed only when a sync fails). ``GE pkg/sync/sync_context.go``, v3.5.1:
    ``deleteOnPhaseSuccessful``/``deleteBeforeCreation`` in ``sync_task.go``."""
    return "HookSucceeded" not in m.hook.delete_policies


@check("HL108", scope="application")
def hook_rbac_outlives_hook(manifests: list[Manifest], ctx: Context) -> Iterator[Hit]:
    """A sync hook Role or ClusterRole that grants write verbs, bound by a RoleBinding or
    ClusterRoleBinding of the application, where neither the role nor the binding is deleted after
    a successful sync (:func:`_stays_after_sync`; a plain binding always stays): the rights the
    hook needed for one step stay granted between syncs, to whatever the binding names. Argo CD
    deletes a hook only by its delete policies (argo-cd v3.5.1 ``gitops-engine/pkg/sync/
    sync_task.go`` ``deleteOnPhaseSuccessful``, ``deleteBeforeCreation``), and
    BeforeHookCreation deletes it only at the start of the next sync. Reported at the role's
    delete policy (or its hook annotation), naming the bindings."""
    bindings = [b for b in ctx.kept if b.kind in ("RoleBinding", "ClusterRoleBinding")]
    if not bindings:
        return
    for role in ctx.kept:
        if role.kind not in ("Role", "ClusterRole") or not role.hook.is_hook or not role.hook.phases:
            continue
        if not _stays_after_sync(role):
            continue
        grants = _write_grants(role)
        if not grants:
            continue
        staying = []
        for b in bindings:
            ref = get_map(b.body, "roleRef")
            if ref is None or ref.get("kind") != role.kind or ref.get("name") != role.name:
                continue
            if role.kind == "Role" and (b.kind != "RoleBinding" or (b.namespace or "") != (role.namespace or "")):
                continue
            if b.hook.is_hook and (not b.hook.phases or not _stays_after_sync(b)):
                continue
            staying.append(b)
        if not staying:
            continue
        policies = ", ".join(role.hook.delete_policies)
        shown = ", ".join(b.label + (" (a plain resource)" if not b.hook.is_hook else "") for b in staying)
        key = argocd.HOOK_DELETE_POLICY if argocd.HOOK_DELETE_POLICY in role.annotations else (
            argocd.HELM_HOOK_DELETE_POLICY if argocd.HELM_HOOK_DELETE_POLICY in role.annotations else role.hook_annotation)
        fix_key = argocd.HELM_HOOK_DELETE_POLICY if role.hook.from_helm else argocd.HOOK_DELETE_POLICY
        fix_value = "before-hook-creation,hook-succeeded" if role.hook.from_helm else "BeforeHookCreation,HookSucceeded"
        yield Hit(
            f"Hook {role.label} grants {'; '.join(grants)}, and its delete policies ({policies}) do not delete it "
            f"after a successful sync, nor do those of {shown}, which bind{'s' if len(staying) == 1 else ''} it: "
            "the rights the hook needed for one step stay granted between syncs, to every subject of the "
            f"binding, until the next sync deletes and re-creates them. Set {fix_key}: {fix_value} on the role and "
            "its bindings.",
            role.annotation_value_span(key),
            f"metadata.annotations.{key}",
            role,
        )
