"""Manifest: one Kubernetes object of a lint run, with what Argo CD will do with it.

A manifest is built from a loaded document (or from one item of a ``kind: List``). Its fields are
read defensively: a field of the wrong type (``metadata: 5``, ``annotations: []``) reads as absent
here, and HL003/HL004 report the shape problem; checks never see an exception from a bad shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Literal, Mapping

from hooklint.argocd import DEFAULT_VERSION, HELM_HOOK, HOOK, HookInfo, Version, hook_info, is_argo_kind, visible_annotations
from hooklint.findings import HookRef, ObjectRef, Span
from hooklint.yamlio import Map, Seq

if TYPE_CHECKING:  # pragma: no cover
    from hooklint.loader import LoadedFile
    from hooklint.sources.render import RenderedFile

#: Kinds whose pod spec a check can reach, with the path to it.
POD_SPEC_PATHS: dict[str, tuple[str, ...]] = {
    "Pod": ("spec",),
    "Job": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
    "Deployment": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "DaemonSet": ("spec", "template", "spec"),
    "ReplicaSet": ("spec", "template", "spec"),
    "ReplicationController": ("spec", "template", "spec"),
    "Rollout": ("spec", "template", "spec"),
    "BroadcastJob": ("spec", "template", "spec"),
}
#: Kinds of :data:`POD_SPEC_PATHS` that are a custom resource, with the one API group whose objects
#: hold a pod template there: Argo Rollouts' ``Rollout`` (``argoproj.io``: ``spec.template`` is a
#: ``corev1.PodTemplateSpec``, ``argo-rollouts pkg/apis/rollouts/v1alpha1/types.go``
#: ``RolloutSpec``; a ``spec.workloadRef`` takes the template from a Deployment, ReplicaSet or
#: PodTemplate instead, ``rollout/templateref.go``: HL110). OpenKruise's ``Rollout``
#: (``rollouts.kruise.io``) has no pod template. OpenKruise's ``BroadcastJob`` (``apps.kruise.io``:
#: ``spec.template`` is a ``corev1.PodTemplateSpec`` whose pod runs on every node,
#: ``openkruise/kruise apis/apps/v1alpha1/broadcastjob_types.go`` ``BroadcastJobSpec``; argo-cd
#: v3.5.1 bundles its health check, ``resource_customizations/apps.kruise.io/BroadcastJob``).
POD_SPEC_GROUPS = {"Rollout": "argoproj.io", "BroadcastJob": "apps.kruise.io"}
#: Custom resources named like one of Kubernetes' own kinds that hold no pod spec at its path:
#: Volcano's ``Job`` (``batch.volcano.sh``) keeps its pods in ``spec.tasks`` (:data:`RUN_POD_KINDS`).
FOREIGN_KINDS = frozenset({("batch.volcano.sh", "Job")})
POD_TEMPLATE_KINDS = frozenset(POD_SPEC_PATHS)
#: Argo Workflows' ``Workflow`` (``argoproj.io/v1alpha1``), the third kind Argo CD's docs name as a
#: typical hook: the workflow controller makes one pod per step from the templates of its spec
#: (:meth:`Manifest.pod_specs`), not from a pod spec written in it.
WORKFLOW_KINDS = frozenset({"Workflow"})
#: Kinds other controllers make pods from, as Argo CD runs them as hooks: Argo Rollouts'
#: ``AnalysisRun`` (``argoproj.io``: a Job per ``spec.metrics[].provider.job``, whose ``spec`` is a
#: batch/v1 JobSpec: ``argo-rollouts pkg/apis/rollouts/v1alpha1/analysis_types.go`` ``JobMetric``)
#: and Tekton's ``TaskRun`` (``tekton.dev``: one pod of ``spec.taskSpec``'s steps and sidecars with
#: ``spec.podTemplate``: ``tektoncd/pipeline pkg/apis/pipeline/v1/taskrun_types.go``,
#: ``pkg/apis/pipeline/pod/template.go``); Kubernetes JobSet's ``JobSet`` (``jobset.x-k8s.io``: a Job
#: per ``spec.replicatedJobs[].template``, a ``batchv1.JobTemplateSpec``, so its pod spec is at
#: ``spec.template.spec`` of it: ``kubernetes-sigs/jobset api/jobset/v1alpha2/jobset_types.go``
#: ``JobSetSpec``, ``ReplicatedJob``) and Volcano's ``Job`` (``batch.volcano.sh``: pods of each
#: ``spec.tasks[].template``, a ``v1.PodTemplateSpec``: ``volcano-sh/apis
#: pkg/apis/batch/v1alpha1/job.go`` ``JobSpec``, ``TaskSpec``) (:meth:`Manifest.pod_specs`).
#: Kubeflow's training jobs (``kubeflow.org``) make a pod per replica of each role of a map
#: ``spec.<key>`` (role -> ``ReplicaSpec``, whose ``template`` is a ``corev1.PodTemplateSpec``:
#: ``kubeflow/training-operator pkg/apis/kubeflow.org/v1`` ``pytorch_types.go``
#: ``PyTorchJobSpec.PyTorchReplicaSpecs`` (``pytorchReplicaSpecs``), ``tensorflow_types.go``
#: (``tfReplicaSpecs``), ``mpi_types.go`` (``mpiReplicaSpecs``), ``xgboost_types.go``
#: (``xgbReplicaSpecs``), ``paddlepaddle_types.go`` (``paddleReplicaSpecs``); ``common_types.go``
#: ``ReplicaSpec.Template``), as kind -> key.
KUBEFLOW_REPLICA_SPECS = {"PyTorchJob": "pytorchReplicaSpecs", "TFJob": "tfReplicaSpecs", "MPIJob": "mpiReplicaSpecs",
                          "XGBoostJob": "xgbReplicaSpecs", "PaddleJob": "paddleReplicaSpecs"}  # fmt: skip
KUBEFLOW_GROUP = "kubeflow.org"
RUN_POD_KINDS = frozenset({"AnalysisRun", "TaskRun", "JobSet", "Job", *KUBEFLOW_REPLICA_SPECS})
#: Every kind whose pods the container and pod-level security rules (HL101-HL105, HL107, HL109) read.
POD_KINDS = POD_TEMPLATE_KINDS | WORKFLOW_KINDS | RUN_POD_KINDS
#: Kinds a controller runs to completion, made anew each sync (Argo Workflows, Tekton, Argo
#: Rollouts' analysis runs, and the Ansible operator's AnsibleJob, whose health check argo-cd
#: v3.5.1 bundles in ``resource_customizations/tower.ansible.com/AnsibleJob`` with a PreSync hook
#: as its test data), as (group, kind). HL110 reports those whose pods hooklint does not read.
RUN_TO_COMPLETION_KINDS = frozenset({
    ("argoproj.io", "Workflow"), ("argoproj.io", "AnalysisRun"), ("tekton.dev", "PipelineRun"),
    ("tekton.dev", "TaskRun"), ("tower.ansible.com", "AnsibleJob"), ("apps.kruise.io", "BroadcastJob"),
    ("jobset.x-k8s.io", "JobSet"), ("batch.volcano.sh", "Job"),
    *((KUBEFLOW_GROUP, kind) for kind in KUBEFLOW_REPLICA_SPECS),
})  # fmt: skip
#: Where a Tekton TaskRun's ``spec.taskSpec`` holds the containers of its pod, as (key, how it
#: holds them): ``stepTemplate`` (merged into every step), ``steps`` and ``sidecars``.
TEKTON_CONTAINERS = (("stepTemplate", "one"), ("steps", "list"), ("sidecars", "list"))
#: Pod-level fields of a TaskRun's pod hooklint reads from ``spec.podTemplate``
#: (``pod/template.go`` ``Template``: no ``hostPID`` or ``hostIPC`` there).
TEKTON_POD_TEMPLATE_FIELDS = frozenset({"automountServiceAccountToken", "hostNetwork", "securityContext"})
JOB_LIKE = frozenset({"Job", "CronJob"})
#: The capabilities the Pod Security Standards' baseline level lets a container add, as
#: pod-security-admission compares them: exact strings, no ``CAP_`` prefix, case-sensitive
#: (``policy/check_capabilities_baseline.go`` ``capabilities_allowed_1_0``). HL105 and HL206 read
#: this one table.
BASELINE_CAPABILITIES = frozenset({
    "AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD", "NET_BIND_SERVICE",
    "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT",
})  # fmt: skip
#: Workloads that never complete: as PreSync/PostSync hooks they never become "done".
LONG_RUNNING_KINDS = frozenset({"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Rollout"})
CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")
#: Where a Workflow template holds the containers of its pod, as (key, how it holds them) in the
#: order the workflow controller builds the pod (``argo-workflows workflow/controller/workflowpod.go``
#: ``createWorkflowPod``; ``pkg/apis/workflow/v1alpha1/workflow_types.go`` ``Template``):
#: ``initContainers`` and ``sidecars`` (lists of ``UserContainer``), the main ``container`` or
#: ``script`` (one ``Container``, named ``main``), and ``containerSet.containers``.
WORKFLOW_CONTAINERS = (("initContainers", "list"), ("container", "one"), ("script", "one"),
                       ("containerSet", "set"), ("sidecars", "list"))  # fmt: skip
#: Pod-level fields of a Workflow's pods a template sets for its own pod, else the Workflow's spec
#: sets for every pod (``workflowpod.go`` ``setupServiceAccount``: template ``serviceAccountName``
#: and ``automountServiceAccountToken`` first; ``SecurityContext`` likewise), and those only the
#: spec sets (``spec.hostNetwork``; a Workflow has no ``hostPID`` or ``hostIPC`` field: only a
#: ``podSpecPatch`` sets them). ``volumes`` of both are given to the pod (``createVolumes``).
WORKFLOW_TEMPLATE_POD_FIELDS = frozenset({"serviceAccountName", "automountServiceAccountToken", "securityContext"})
WORKFLOW_SPEC_POD_FIELDS = WORKFLOW_TEMPLATE_POD_FIELDS | {"hostNetwork"}
#: Built-in kinds without a namespace: the API server ignores ``metadata.namespace`` on them.
CLUSTER_SCOPED_KINDS = frozenset({
    "Namespace", "Node", "PersistentVolume", "StorageClass", "CustomResourceDefinition", "ClusterRole",
    "ClusterRoleBinding", "PriorityClass", "IngressClass", "RuntimeClass", "APIService",
    "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding", "CSIDriver", "VolumeAttachment", "PodSecurityPolicy",
    "CertificateSigningRequest",
})  # fmt: skip
#: Common cluster-scoped kinds of other API groups, as (group, kind): a kind name alone is not
#: enough there (Config Connector's ``Project`` is namespaced, OpenShift's is not). Their CRDs
#: declare ``scope: Cluster``; Argo CD learns the scope from the cluster's discovery and never sets
#: a namespace on them (``shared/docs/argocd-rendering.md`` §5), so hooklint never shows one.
CLUSTER_SCOPED_GROUP_KINDS = frozenset({
    # Kubernetes' own groups, kinds newer than the list above
    ("storage.k8s.io", "CSINode"), ("storage.k8s.io", "VolumeAttributesClass"),
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"),
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"),
    ("networking.k8s.io", "IPAddress"), ("networking.k8s.io", "ServiceCIDR"),
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"), ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"),
    ("resource.k8s.io", "DeviceClass"), ("certificates.k8s.io", "ClusterTrustBundle"),
    ("gateway.networking.k8s.io", "GatewayClass"),
    ("snapshot.storage.k8s.io", "VolumeSnapshotClass"), ("snapshot.storage.k8s.io", "VolumeSnapshotContent"),
    # OpenShift
    ("project.openshift.io", "Project"), ("project.openshift.io", "ProjectRequest"),
    ("security.openshift.io", "SecurityContextConstraints"), ("quota.openshift.io", "ClusterResourceQuota"),
    ("user.openshift.io", "User"), ("user.openshift.io", "Group"), ("user.openshift.io", "Identity"),
    ("oauth.openshift.io", "OAuthClient"), ("machineconfiguration.openshift.io", "MachineConfig"),
    ("machineconfiguration.openshift.io", "MachineConfigPool"), ("console.openshift.io", "ConsoleLink"),
    ("console.openshift.io", "ConsoleNotification"), ("console.openshift.io", "ConsoleCLIDownload"),
    ("console.openshift.io", "ConsoleYAMLSample"), ("console.openshift.io", "ConsolePlugin"),
    ("imageregistry.operator.openshift.io", "Config"), ("operators.coreos.com", "Operator"),
    # widely installed operators
    ("cert-manager.io", "ClusterIssuer"), ("trust.cert-manager.io", "Bundle"),
    ("external-secrets.io", "ClusterSecretStore"), ("external-secrets.io", "ClusterExternalSecret"),
    ("external-secrets.io", "ClusterGenerator"),
    ("kyverno.io", "ClusterPolicy"), ("kyverno.io", "ClusterCleanupPolicy"), ("wgpolicyk8s.io", "ClusterPolicyReport"),
    ("templates.gatekeeper.sh", "ConstraintTemplate"), ("config.gatekeeper.sh", "Config"),
    ("argoproj.io", "ClusterWorkflowTemplate"), ("tekton.dev", "ClusterTask"),
    ("karpenter.sh", "NodePool"), ("karpenter.sh", "NodeClaim"), ("karpenter.k8s.aws", "EC2NodeClass"),
    ("pkg.crossplane.io", "Provider"), ("pkg.crossplane.io", "Configuration"), ("pkg.crossplane.io", "Function"),
    ("pkg.crossplane.io", "DeploymentRuntimeConfig"),
    ("apiextensions.crossplane.io", "CompositeResourceDefinition"), ("apiextensions.crossplane.io", "Composition"),
    ("crd.projectcalico.org", "GlobalNetworkPolicy"), ("crd.projectcalico.org", "GlobalNetworkSet"),
    ("crd.projectcalico.org", "IPPool"), ("crd.projectcalico.org", "BGPConfiguration"),
    ("crd.projectcalico.org", "BGPPeer"), ("crd.projectcalico.org", "FelixConfiguration"),
    ("crd.projectcalico.org", "HostEndpoint"), ("projectcalico.org", "GlobalNetworkPolicy"),
    ("projectcalico.org", "GlobalNetworkSet"), ("projectcalico.org", "IPPool"),
    ("cilium.io", "CiliumClusterwideNetworkPolicy"), ("cilium.io", "CiliumLoadBalancerIPPool"),
    ("cilium.io", "CiliumNode"), ("cilium.io", "CiliumIdentity"), ("cilium.io", "CiliumBGPClusterConfig"),
    ("nvidia.com", "ClusterPolicy"),
})  # fmt: skip
#: API groups every kind of which is cluster-scoped (OpenShift's cluster configuration, Gatekeeper's
#: constraints: one CRD per ConstraintTemplate, all ``scope: Cluster``).
CLUSTER_SCOPED_GROUPS = frozenset({"config.openshift.io", "constraints.gatekeeper.sh"})


def cluster_scoped(group: str, kind: str | None, crds: "frozenset[tuple[str, str]]" = frozenset()) -> bool:
    """Whether objects of ``group``/``kind`` are cluster-scoped: Kubernetes' own kinds
    (:data:`CLUSTER_SCOPED_KINDS`), the common ones of other groups (:data:`CLUSTER_SCOPED_GROUP_KINDS`,
    :data:`CLUSTER_SCOPED_GROUPS`) and ``crds``, the (group, kind) pairs of the application's
    CustomResourceDefinitions with ``spec.scope: Cluster`` (:func:`cluster_scoped_crds`)."""
    if kind in CLUSTER_SCOPED_KINDS:
        return True
    return (group, kind) in CLUSTER_SCOPED_GROUP_KINDS or group in CLUSTER_SCOPED_GROUPS or (group, kind) in crds


def cluster_scoped_crds(manifests: "Iterable[Manifest]") -> frozenset[tuple[str, str]]:
    """The (``spec.group``, ``spec.names.kind``) of every CustomResourceDefinition among
    ``manifests`` whose ``spec.scope`` is ``Cluster`` (the API server serves its objects without a
    namespace)."""
    out = set()
    for m in manifests:
        if m.kind != "CustomResourceDefinition" or m.group != "apiextensions.k8s.io":
            continue
        spec = get_map(m.body, "spec")
        names = get_map(spec, "names") if spec is not None else None
        if spec is not None and names is not None and spec.get("scope") == "Cluster":
            group, kind = spec.get("group"), names.get("kind")
            if isinstance(group, str) and isinstance(kind, str):
                out.add((group, kind))
    return frozenset(out)


def pod_spec_path(group: str, kind: str | None) -> tuple[str, ...] | None:
    """The keys from an object of ``group``/``kind`` down to its pod spec (:data:`POD_SPEC_PATHS`),
    or None when it holds none at a fixed path. A custom resource's kind counts in its own group
    only (:data:`POD_SPEC_GROUPS`); Kubernetes' own kinds are matched by kind, as everywhere in
    hooklint, but for a custom resource of the same name that holds none (:data:`FOREIGN_KINDS`)."""
    keys = POD_SPEC_PATHS.get(kind or "")
    if keys is None or POD_SPEC_GROUPS.get(kind or "", group) != group or (group, kind) in FOREIGN_KINDS:
        return None
    return keys


#: Kinds that hold a pod template but make no pod of their own (another object names them): v1
#: ``PodTemplate``, Argo Workflows' ``WorkflowTemplate``/``ClusterWorkflowTemplate`` (read by the
#: Workflows that reference them, HL110 there) and Argo Rollouts' ``AnalysisTemplate``/
#: ``ClusterAnalysisTemplate`` (an AnalysisRun or a Rollout runs them). :func:`find_pod_specs` is
#: not asked about them.
TEMPLATE_ONLY_KINDS = frozenset({("", "PodTemplate"), ("argoproj.io", "WorkflowTemplate"),
                                 ("argoproj.io", "ClusterWorkflowTemplate"), ("argoproj.io", "AnalysisTemplate"),
                                 ("argoproj.io", "ClusterAnalysisTemplate")})  # fmt: skip
#: How deep below ``spec`` :func:`find_pod_specs` looks (a Kubeflow job's pod spec is 5 keys down).
MAX_POD_SPEC_DEPTH = 12


def is_pod_spec(value: Any) -> bool:
    """Whether ``value`` looks like a ``corev1.PodSpec``: a mapping whose ``containers`` is a list
    holding a mapping with an ``image`` (the one field every container of a pod must set)."""
    containers = value.get("containers") if isinstance(value, Map) else None
    return isinstance(containers, Seq) and any(isinstance(c, Map) and "image" in c for c in containers)


def find_pod_specs(body: Any) -> list[tuple[str, Map, str]]:
    """Every pod spec (:func:`is_pod_spec`) below ``body``'s ``spec``, at any depth up to
    :data:`MAX_POD_SPEC_DEPTH`, in document order, as ``(field path, parent mapping, key)``:
    ``spec.rayClusterSpec.headGroupSpec.template.spec`` for a Ray RayJob, ``spec.template.spec``,
    ``spec.jobs[0].template.spec``. Used for
    a hook of a kind whose pods hooklint does not read at a fixed path: Argo CD runs an object of
    any kind as a hook (``controller/hook.go`` ``isHookOfType``), and a controller may make pods
    from any pod template it holds. A pod spec is not searched further (its own fields are not
    more pods)."""
    out: list[tuple[str, Map, str]] = []

    def visit(parent: Map | Seq, key: Any, value: Any, path: str, depth: int) -> None:
        if isinstance(parent, Map) and isinstance(key, str) and is_pod_spec(value):
            out.append((path, parent, key))
            return
        if depth >= MAX_POD_SPEC_DEPTH:
            return
        if isinstance(value, Map):
            for k, v in value.items():
                if isinstance(k, str):
                    visit(value, k, v, f"{path}.{k}", depth + 1)
        elif isinstance(value, Seq):
            for i, v in enumerate(value):
                visit(value, i, v, f"{path}[{i}]", depth + 1)

    if isinstance(body, Map):
        visit(body, "spec", body.get("spec"), "spec", 0)
    return out


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def get_map(parent: Any, key: str) -> Map | None:
    """``parent[key]`` when ``parent`` is a mapping and the value is one, else None."""
    if isinstance(parent, Map):
        value = parent.get(key)
        if isinstance(value, Map):
            return value
    return None


@dataclass(slots=True)
class PodSpec:
    """A pod spec inside a manifest: the mapping, the dotted path to it, and the mapping that holds
    it with the key it sits under (to point at ``spec:`` when a field is missing).

    For a pod Argo Workflows makes from one template of a Workflow, ``spec`` is the template (its
    containers are read by :meth:`Manifest.containers` from :data:`WORKFLOW_CONTAINERS`),
    ``workflow`` the Workflow's spec, which sets pod-level fields for every pod
    (:data:`WORKFLOW_SPEC_POD_FIELDS`), ``workflow_path`` its path (``spec``), ``parent``/``key``
    where that spec sits, and ``template`` the template as messages name it (``template 'main'``,
    ``the inline template of step 'tune'``). Read pod-level fields
    through :meth:`get`, :meth:`value_span` and :meth:`field_path`, which follow both."""

    spec: Map
    path: str
    parent: Map
    key: str
    workflow: Map | None = None
    workflow_path: str = ""
    template: str = ""
    #: For a Tekton TaskRun's pod (``spec`` its ``spec.taskSpec``): the TaskRun's spec (it sets
    #: ``serviceAccountName``) and its ``spec.podTemplate`` (:data:`TEKTON_POD_TEMPLATE_FIELDS`,
    #: ``volumes``), an empty mapping when unset.
    taskrun: Map | None = None
    pod_template: Map | None = None

    def holder(self, key: str) -> tuple[Map, str] | None:
        """The mapping the pod's ``key`` is read from, with its dotted path: the pod spec (a
        Workflow template, for :data:`WORKFLOW_TEMPLATE_POD_FIELDS`), else the Workflow's spec
        (:data:`WORKFLOW_SPEC_POD_FIELDS`); for a TaskRun, its spec (``serviceAccountName``) or
        its ``spec.podTemplate`` (:data:`TEKTON_POD_TEMPLATE_FIELDS`); None when none sets it."""
        if self.taskrun is not None:
            if key == "serviceAccountName" and key in self.taskrun:
                return self.taskrun, "spec"
            if key in TEKTON_POD_TEMPLATE_FIELDS and self.pod_template is not None and key in self.pod_template:
                return self.pod_template, "spec.podTemplate"
            return None
        if self.workflow is None:
            return (self.spec, self.path) if key in self.spec else None
        if key in WORKFLOW_TEMPLATE_POD_FIELDS and key in self.spec and self.spec.get(key) not in (None, ""):
            return self.spec, self.path
        if key in WORKFLOW_SPEC_POD_FIELDS and key in self.workflow:
            return self.workflow, self.workflow_path
        return None

    def get(self, key: str) -> Any:
        """The pod's ``key`` as the pod gets it (:meth:`holder`), or None."""
        where = self.holder(key)
        return where[0].get(key) if where is not None else None

    def value_span(self, key: str) -> Span:
        """Where the pod's ``key`` is written (:meth:`holder`), else :meth:`anchor`."""
        where = self.holder(key)
        return where[0].value_span(key) if where is not None else self.anchor()

    def field_path(self, key: str) -> str:
        """The dotted path of the pod's ``key`` where it is written, else where to write it (the
        Workflow's spec for a Workflow: it sets it for every pod)."""
        where = self.holder(key)
        if where is not None:
            return f"{where[1]}.{key}"
        if self.taskrun is not None:
            return f"spec.{key}" if key == "serviceAccountName" else f"spec.podTemplate.{key}"
        return f"{self.workflow_path or self.path}.{key}"

    def anchor(self) -> Span:
        """Where a finding about a missing pod-level field points: the key the pod spec (a
        Workflow's spec, for a Workflow) sits under."""
        return self.parent.key_span(self.key)

    def volumes(self) -> Iterator[tuple[Map, str]]:
        """Every volume mapping of the pod with its dotted path: a Workflow's spec volumes, then its
        template's (``workflowpod.go`` ``createVolumes`` gives the pod both)."""
        holders = [(self.spec, self.path)] if self.workflow is None else [
            (self.workflow, self.workflow_path), (self.spec, self.path)]
        if self.taskrun is not None:  # the Task's volumes, then the pod template's (``pod.go``)
            holders = [(self.spec, self.path)] + ([(self.pod_template, "spec.podTemplate")] if self.pod_template is not None else [])
        for holder, path in holders:
            items = holder.get("volumes")
            if isinstance(items, Seq):
                for i, item in enumerate(items):
                    if isinstance(item, Map):
                        yield item, f"{path}.volumes[{i}]"

    def patches(self) -> Iterator[tuple[Map, str]]:
        """The mappings holding a ``podSpecPatch`` string the workflow controller applies to this
        Workflow pod, with their dotted paths: the Workflow spec's, then the template's
        (``workflowpod.go`` ``processPodSpecPatch``: both, in that order, as strategic merge
        patches). None for a plain pod spec."""
        if self.workflow is None:
            return
        for holder, path in ((self.workflow, self.workflow_path), (self.spec, self.path)):
            if isinstance(holder.get("podSpecPatch"), str):
                yield holder, path

    def service_account(self) -> tuple[str | None, str]:
        """(name, key) of the pod's ServiceAccount: ``serviceAccountName``, else the deprecated
        ``serviceAccount``, as Kubernetes reads them (``pkg/apis/core/v1/conversion.go``
        ``Convert_v1_PodSpec_To_core_PodSpec``: an empty ``serviceAccountName`` takes
        ``serviceAccount``); for a Workflow's pod, the template's ``serviceAccountName``, else the
        spec's (``workflowpod.go`` ``setupServiceAccount``; no ``serviceAccount`` field there);
        (None, "") when neither is a non-empty string (the pod runs as the namespace's
        ``default``). Read the key with :meth:`value_span` and :meth:`field_path`."""
        plain = self.workflow is None and self.taskrun is None
        for key in ("serviceAccountName", "serviceAccount") if plain else ("serviceAccountName",):
            value = self.get(key)
            if isinstance(value, str) and value:
                return value, key
        return None, ""


@dataclass(slots=True)
class Container:
    """One container of a pod spec: ``list_name`` is containers/initContainers/ephemeralContainers
    (for a Workflow template: initContainers, container, script, containerSet, sidecars; for a
    TaskRun: stepTemplate, steps, sidecars)."""

    body: Map
    list_name: str
    index: int
    path: str
    #: The Workflow template whose pod runs it, as messages name it (``template 'main'``; ``""``: a
    #: plain pod spec).
    template: str = ""

    @property
    def name(self) -> str:
        default = {"container": "main", "script": "main", "stepTemplate": "stepTemplate"}.get(
            self.list_name, f"{self.list_name}[{self.index}]")
        return _str(self.body.get("name")) or default


@dataclass(slots=True)
class Manifest:
    """One Kubernetes object as linted: where it is, what it is, and what Argo CD does with it.

    ``path`` is the file (``-`` for stdin); ``display_path`` prefers the Helm template named by a
    ``# Source:`` comment. ``list_index`` is set for items of a ``kind: List``. ``hook`` is what the
    configured Argo CD version does with it (:func:`hooklint.argocd.hook_info`), read once here."""

    path: str
    doc_index: int
    body: Map
    source: str | None
    list_index: int | None
    api_version: str | None
    kind: str | None
    name: str | None
    generate_name: str | None
    namespace: str | None
    metadata: Map | None
    annotations: dict[str, str]
    hook: HookInfo
    #: Line of the ``# Source:`` comment when ``source`` is set: spans are reported relative to it.
    source_line: int = 0
    #: The pod spec, found on first use (``False``: not looked up yet).
    _pod: "PodSpec | None | Literal[False]" = False
    #: For a rendered object, where its findings go in the user's files
    #: (:class:`hooklint.sources.render.placement.Placement`); None for an object as written.
    placement: Any = None
    #: :attr:`ref` and :attr:`hook_ref` as last made: every finding on this object shares them.
    _ref: "ObjectRef | None" = field(default=None, compare=False, repr=False)
    _hook_ref: "HookRef | None" = field(default=None, compare=False, repr=False)

    @classmethod
    def from_body(
        cls, path: str, doc_index: int, body: Map, source: str | None = None, list_index: int | None = None,
        source_line: int = 0, version: Version = DEFAULT_VERSION,
    ) -> "Manifest":
        metadata = get_map(body, "metadata")
        raw_annotations = metadata.get("annotations") if metadata is not None else None
        annotations = visible_annotations(raw_annotations)
        return cls(
            path=path,
            doc_index=doc_index,
            body=body,
            source=source,
            list_index=list_index,
            api_version=_str(body.get("apiVersion")),
            kind=_str(body.get("kind")),
            name=_str(metadata.get("name")) if metadata is not None else None,
            generate_name=_str(metadata.get("generateName")) if metadata is not None else None,
            namespace=_str(metadata.get("namespace")) if metadata is not None else None,
            metadata=metadata,
            annotations=annotations,
            hook=hook_info(annotations, version),
            source_line=source_line if source else 0,
        )

    def reported(self) -> "Manifest":
        """A copy of this object holding what reports of a plan read once checks are done: what it
        is (kind, names, annotations, ``hook``) and where it is reported (``display_path``,
        ``line``), without its parsed body and pod or its placement's rendered and source objects.
        A plan of such copies is a few kilobytes where the parsed objects are megabytes, and
        crosses from a worker process cheaply (a Helm placement's template locator, a closure,
        cannot cross at all) (:meth:`hooklint.plan.SyncPlan.reported`)."""
        body = Map.empty_at(self.body.span)
        placement = self.placement.reported() if self.placement is not None else None
        return replace(self, body=body, metadata=None, _pod=None, placement=placement)

    @property
    def display_path(self) -> str:
        """The file findings name: the user's source file of a rendered object, else the Helm
        template of a ``# Source:`` comment, else the file."""
        if self.placement is not None:
            return self.placement.path
        return self.source or self.path

    def locate(self, field_path: str, span: Span) -> tuple[str, Span]:
        """``(path, span)`` where a finding at ``span`` about ``field_path`` is reported: in the
        user's files for a rendered object, else in the file (or Helm template) as written."""
        if self.placement is not None:
            return self.placement.locate(field_path, span)
        return self.display_path, span.in_template(self.source_line)

    @property
    def line(self) -> int:
        """The object's first line where it is reported (see :meth:`locate`)."""
        if self.placement is not None:
            return self.placement.first.line
        return self.body.span.in_template(self.source_line).line

    @property
    def ref(self) -> ObjectRef:
        """The object as findings name it: one value shared by all of them (a file of 40,000
        objects has tens of thousands of findings), made again when a field changed."""
        ref = self._ref
        if (ref is None or ref.name is not self.name or ref.kind is not self.kind or ref.api_version is not self.api_version
                or ref.namespace is not self.namespace or ref.generate_name is not self.generate_name):  # fmt: skip
            ref = self._ref = ObjectRef(self.api_version, self.kind, self.name, self.generate_name, self.namespace)
        return ref

    @property
    def label(self) -> str:
        """``Kind/name`` (``Kind/prefix-*`` for generateName) for messages."""
        return self.ref.label()

    @property
    def hook_ref(self) -> HookRef | None:
        """The hook a finding is about: its sync phases, else the delete types it runs as (a
        ``Skip,PostDelete`` object too); None for a plain resource."""
        if not (self.hook.is_hook or self.hook.delete_types):
            return None
        phases, wave = self.hook.phases or self.hook.delete_types, self.hook.wave.value
        hook = self._hook_ref
        if hook is None or hook.phases != phases or hook.wave != wave:  # shared like :attr:`ref`
            hook = self._hook_ref = HookRef(phases, wave)
        return hook

    @property
    def group(self) -> str:
        """The API group from ``apiVersion`` (``""`` for the core group)."""
        if not self.api_version or "/" not in self.api_version:
            return ""
        return self.api_version.split("/", 1)[0]

    def is_argo(self, *kinds: str) -> bool:
        """Whether this is one of Argo CD's ``kinds`` (:func:`hooklint.argocd.is_argo_kind`)."""
        return is_argo_kind(self.api_version, self.kind, *kinds)

    @property
    def is_application(self) -> bool:
        """Whether this is an Argo CD ``Application`` (``argoproj.io``): a child of an app of apps."""
        return self.is_argo("Application")

    @property
    def anchor(self) -> Span:
        """Where to report a finding about the object as a whole: ``metadata.name`` (or
        ``generateName``), else the ``metadata:`` key, else the ``kind`` value, else the object."""
        md = self.metadata
        if md is not None:
            for key in ("name", "generateName"):
                if key in md:
                    return md.value_span(key)
            return self.body.key_span("metadata")
        if "kind" in self.body:
            return self.body.value_span("kind")
        return self.body.span

    @property
    def hook_annotation(self) -> str:
        """The annotation Argo CD takes the hook types from: ``argocd.argoproj.io/hook`` when it has
        a valid type (or no Helm hook exists), else ``helm.sh/hook`` (§2b, §3 precedence)."""
        return HELM_HOOK if self.hook.from_helm else HOOK

    @property
    def raw_annotations(self) -> Map | None:
        """``metadata.annotations`` as written, when a mapping: every entry, non-string values too
        (``annotations`` holds what Argo CD reads: nothing when a value is not a string, HL004)."""
        raw = self.metadata.get("annotations") if self.metadata is not None else None
        return raw if isinstance(raw, Map) else None

    def annotation_value_span(self, *keys: str) -> Span:
        """Where a finding about an annotation points: the value of the first of ``keys`` the
        object's ``metadata.annotations`` holds, else the object's anchor (its ``kind:`` line)."""
        raw = self.raw_annotations
        if raw is not None:
            for key in keys:
                if key in raw:
                    return raw.value_span(key)
        return self.anchor

    def pod_spec(self) -> PodSpec | None:
        """The pod spec of a Pod, Job, CronJob or pod-template workload (an Argo Rollouts
        ``Rollout`` too), if it is a mapping (looked up once)."""
        if self._pod is False:
            self._pod = self._find_pod_spec()
        return self._pod

    def pod_specs(self) -> list[PodSpec]:
        """Every pod spec the object makes pods from: :meth:`pod_spec` for a Pod, Job, CronJob or
        workload (an OpenKruise BroadcastJob too); for an AnalysisRun, one per Job metric; for a
        TaskRun, its ``taskSpec``'s pod; for a JobSet, one per replicated job; for a Volcano Job,
        one per task; for a Kubeflow training job, one per role (:data:`KUBEFLOW_REPLICA_SPECS`); for an Argo Workflows ``Workflow`` (``argoproj.io``), one per template that runs a
        pod (a ``container``, ``script`` or ``containerSet``: ``workflow_types.go``
        ``Template.GetType``), the spec's ``templateDefaults`` (merged into every template), and
        the ``inline`` templates of its ``steps`` and ``dag.tasks``, in document order."""
        pod = self.pod_spec()
        if pod is not None:
            return [pod]
        if self.kind == "AnalysisRun" and self.group == "argoproj.io":
            return self._analysis_pods()
        if self.kind == "TaskRun" and self.group == "tekton.dev":
            return self._taskrun_pods()
        if self.kind == "JobSet" and self.group == "jobset.x-k8s.io":
            return self._listed_pods("replicatedJobs", ("template", "spec", "template", "spec"), "replicated job")
        if self.kind == "Job" and self.group == "batch.volcano.sh":
            return self._listed_pods("tasks", ("template", "spec"), "task")
        if self.kind in KUBEFLOW_REPLICA_SPECS and self.group == KUBEFLOW_GROUP:
            return self._replica_pods(KUBEFLOW_REPLICA_SPECS[self.kind])
        if self.kind not in WORKFLOW_KINDS or self.group != "argoproj.io":
            return []
        spec = get_map(self.body, "spec")
        if spec is None:
            return []
        out: list[PodSpec] = []

        def visit(template: Any, path: str, said: str) -> None:
            if not isinstance(template, Map):
                return
            if any(key in template for key, _ in WORKFLOW_CONTAINERS):
                out.append(PodSpec(template, path, self.body, "spec", spec, "spec", said))
            steps = template.get("steps")
            for i, group in enumerate(steps if isinstance(steps, Seq) else []):
                for j, step in enumerate(group if isinstance(group, Seq) else []):
                    if isinstance(step, Map):
                        name = _str(step.get("name")) or f"steps[{i}][{j}]"
                        visit(step.get("inline"), f"{path}.steps[{i}][{j}].inline", f"the inline template of step '{name}'")
            dag = get_map(template, "dag")
            tasks = dag.get("tasks") if dag is not None else None
            for i, task in enumerate(tasks if isinstance(tasks, Seq) else []):
                if isinstance(task, Map):
                    name = _str(task.get("name")) or f"tasks[{i}]"
                    visit(task.get("inline"), f"{path}.dag.tasks[{i}].inline", f"the inline template of task '{name}'")

        visit(spec.get("templateDefaults"), "spec.templateDefaults", "spec.templateDefaults")
        templates = spec.get("templates")
        for i, template in enumerate(templates if isinstance(templates, Seq) else []):
            visit(template, f"spec.templates[{i}]", f"template '{_str(template.get('name')) if isinstance(template, Map) and _str(template.get('name')) else i}'")
        return out

    def _analysis_pods(self) -> list[PodSpec]:
        """The pod spec of each Job metric of an AnalysisRun: ``spec.metrics[i].provider.job.spec``
        is a batch/v1 JobSpec the Argo Rollouts controller creates a Job from
        (``analysis_types.go`` ``JobMetric``; ``metricproviders/job/job.go``), so its
        ``template.spec`` is read as a Job's; messages name the metric."""
        spec = get_map(self.body, "spec")
        metrics = spec.get("metrics") if spec is not None else None
        out: list[PodSpec] = []
        for i, metric in enumerate(metrics if isinstance(metrics, Seq) else []):
            template = get_map(get_map(get_map(get_map(get_map(metric, "provider"), "job"), "spec"), "template"), "spec")
            if template is None:
                continue
            holder = get_map(get_map(get_map(metric, "provider"), "job"), "spec")
            parent = get_map(holder, "template")
            assert parent is not None
            name = _str(metric.get("name")) or str(i)
            out.append(PodSpec(template, f"spec.metrics[{i}].provider.job.spec.template.spec", parent, "spec",
                               template=f"metric '{name}'"))  # fmt: skip
        return out

    def _listed_pods(self, list_key: str, keys: tuple[str, ...], noun: str) -> list[PodSpec]:
        """The pod spec of each item of ``spec.<list_key>`` found at ``keys`` below it, as
        messages name it (``replicated job 'workers'``, ``task 'main'``, by its ``name`` or its
        index): a JobSet's ``replicatedJobs[].template.spec.template.spec``, a Volcano Job's
        ``tasks[].template.spec`` (:data:`RUN_POD_KINDS`)."""
        spec = get_map(self.body, "spec")
        items = spec.get(list_key) if spec is not None else None
        out: list[PodSpec] = []
        for i, item in enumerate(items if isinstance(items, Seq) else []):
            parent: Any = item
            for key in keys[:-1]:
                parent = get_map(parent, key)
            pod = get_map(parent, keys[-1])
            if pod is None:
                continue
            name = _str(item.get("name")) or str(i)
            out.append(PodSpec(pod, f"spec.{list_key}[{i}].{'.'.join(keys)}", parent, keys[-1],
                               template=f"{noun} '{name}'"))  # fmt: skip
        return out

    def _replica_pods(self, key: str) -> list[PodSpec]:
        """The pod spec of each role of a Kubeflow training job's ``spec.<key>`` map
        (:data:`KUBEFLOW_REPLICA_SPECS`): ``spec.pytorchReplicaSpecs.Master.template.spec``, as
        messages name it (``replica 'Master'``), in document order."""
        roles = get_map(get_map(self.body, "spec"), key)
        out: list[PodSpec] = []
        for role, replica in (roles.items() if roles is not None else []):
            parent = get_map(replica, "template")
            pod = get_map(parent, "spec")
            if parent is None or pod is None or not isinstance(role, str):
                continue
            out.append(PodSpec(pod, f"spec.{key}.{role}.template.spec", parent, "spec", template=f"replica '{role}'"))
        return out

    def _taskrun_pods(self) -> list[PodSpec]:
        """The pod of a TaskRun with an inline ``spec.taskSpec``: its containers are the task's
        :data:`TEKTON_CONTAINERS`, its pod-level fields the TaskRun's ``serviceAccountName`` and
        ``spec.podTemplate`` (:meth:`PodSpec.holder`). None for a ``taskRef`` (HL110)."""
        spec = get_map(self.body, "spec")
        task = get_map(spec, "taskSpec")
        if spec is None or task is None:
            return []
        return [PodSpec(task, "spec.taskSpec", self.body, "spec", taskrun=spec,
                        pod_template=get_map(spec, "podTemplate"))]  # fmt: skip

    @property
    def pod_spec_path(self) -> tuple[str, ...] | None:
        """The keys down to the pod spec of a Pod, Job, CronJob or pod-template workload, else None
        (:func:`pod_spec_path`)."""
        return pod_spec_path(self.group, self.kind)

    def _find_pod_spec(self) -> PodSpec | None:
        keys = self.pod_spec_path
        if keys is None:
            return None
        parent: Any = self.body
        for key in keys[:-1]:
            parent = get_map(parent, key)
            if parent is None:
                return None
        spec = get_map(parent, keys[-1])
        if spec is None:
            return None
        return PodSpec(spec, ".".join(keys), parent, keys[-1])

    def containers(self, pod: PodSpec | None = None) -> Iterator[Container]:
        """Every container mapping of the pod spec, init and ephemeral containers included; of a
        Workflow template's pod, those of :data:`WORKFLOW_CONTAINERS`; of a TaskRun's pod, those of
        :data:`TEKTON_CONTAINERS`. Without ``pod``, those of
        every pod spec (:meth:`pod_specs`)."""
        pods = [pod] if pod is not None else self.pod_specs()
        for pod in pods:
            if pod.workflow is None and pod.taskrun is None:
                for list_name in CONTAINER_LISTS:
                    items = pod.spec.get(list_name)
                    if not isinstance(items, Seq):
                        continue
                    for i, item in enumerate(items):
                        if isinstance(item, Map):
                            yield Container(item, list_name, i, f"{pod.path}.{list_name}[{i}]", pod.template)
                continue
            for key, how in WORKFLOW_CONTAINERS if pod.taskrun is None else TEKTON_CONTAINERS:
                value = pod.spec.get(key)
                if how == "one":
                    if isinstance(value, Map):
                        yield Container(value, key, 0, f"{pod.path}.{key}", pod.template)
                    continue
                path = f"{pod.path}.{key}"
                if how == "set":
                    value = value.get("containers") if isinstance(value, Map) else None
                    path += ".containers"
                for i, item in enumerate(value if isinstance(value, Seq) else []):
                    if isinstance(item, Map):
                        yield Container(item, key, i, f"{path}[{i}]", pod.template)


RBAC_GROUP = "rbac.authorization.k8s.io"


def verb_matches(verbs: list[str], verb: str) -> bool:
    """Whether a rule's ``verbs`` grant ``verb``: ``*`` or the verb itself (k8s.io/kubernetes
    ``pkg/apis/rbac/v1/evaluation_helpers.go`` ``VerbMatches``)."""
    return "*" in verbs or verb in verbs


def resource_match(resources: list[str], resource: str) -> str | None:
    """The entry of a rule's ``resources`` that grants ``resource`` (``pods``, or a subresource
    ``pods/exec``), as written, or None; k8s.io/kubernetes ``pkg/apis/rbac/v1/evaluation_helpers.go``
    ``ResourceMatches``: ``*`` grants every resource and subresource, an entry equal to the
    requested ``resource/subresource`` grants it, and ``*/<sub>`` grants subresource ``<sub>`` of
    every resource (``pods/exec`` by ``*/exec``; never ``pods`` itself). API groups and
    ``resourceNames`` are matched apart (``hooklint.checks.rbac._serves``, by the caller)."""
    sub = resource.partition("/")[2]
    for entry in resources:
        if entry == "*" or entry == resource or (sub and entry == "*/" + sub):
            return entry
    return None


#: The user name and groups the API server gives a ServiceAccount's token
#: (``k8s.io/apiserver pkg/authentication/serviceaccount/util.go``: ``MakeUsername``
#: ``system:serviceaccount:<namespace>:<name>``, ``MakeGroupNames`` ``system:serviceaccounts`` and
#: ``system:serviceaccounts:<namespace>``), and the group every authenticated request gets besides
#: (``k8s.io/apiserver pkg/authentication/user`` ``AllAuthenticated``, added by the authenticated
#: group adder).
SA_USER_PREFIX = "system:serviceaccount:"
SA_GROUP = "system:serviceaccounts"
SA_NAMESPACE_GROUP_PREFIX = "system:serviceaccounts:"
AUTHENTICATED_GROUP = "system:authenticated"


@dataclass(frozen=True, slots=True)
class Grantee:
    """The ServiceAccounts one subject of a RoleBinding or ClusterRoleBinding grants its role to:
    those of ``namespace`` (``""`` the application's destination namespace, None every
    namespace) named ``name`` (None: every ServiceAccount there). ``subject`` says how the
    binding names them when not with ``kind: ServiceAccount`` (``Group
    'system:serviceaccounts:app', every ServiceAccount of namespace 'app'``), else ``""``."""

    namespace: str | None
    name: str | None
    subject: str = ""

    def covers(self, namespace: str | None, name: str) -> bool:
        """Whether ServiceAccount ``name`` of ``namespace`` is granted; a ``namespace`` of None (a
        pod that sets none lands in the destination namespace, which may be any) matches a
        subject of any namespace, rather than miss a grant."""
        return (self.name is None or self.name == name) and (
            self.namespace is None or namespace is None or self.namespace == namespace)


def binding_grantees(binding: Manifest) -> list[Grantee]:
    """The ServiceAccounts a RoleBinding or ClusterRoleBinding of the RBAC group grants, one
    :class:`Grantee` per subject that grants any, in subject order, each once. Empty for any other
    object, a ``RoleBinding`` kind of another group included.

    As Kubernetes matches a subject against a ServiceAccount's token (``k8s.io/kubernetes
    pkg/registry/rbac/validation/rule.go`` ``appliesToUser``; the user name and groups:
    :data:`SA_USER_PREFIX`, :data:`SA_GROUP`, :data:`AUTHENTICATED_GROUP`):

    - ``kind: ServiceAccount`` with a name: that ServiceAccount of the subject's ``namespace``,
      else of the RoleBinding's own namespace (``""`` when the RoleBinding sets none: the
      destination namespace); a ClusterRoleBinding subject without a namespace grants nobody (the
      API server rejects it: ``pkg/apis/rbac/validation`` ``ValidateRoleBindingSubject``);
    - ``kind: User`` named ``system:serviceaccount:<namespace>:<name>``: that ServiceAccount;
    - ``kind: Group`` named ``system:serviceaccounts`` (every ServiceAccount of the cluster),
      ``system:serviceaccounts:<namespace>`` (every one of that namespace) or
      ``system:authenticated`` (every authenticated identity, ServiceAccounts included).

    A User or Group subject counts with ``apiGroup`` ``rbac.authorization.k8s.io`` or unset (the
    v1 defaulting fills it in: ``pkg/apis/rbac/v1`` ``SetDefaults_Subject``); any other is
    rejected by the API server's validation and grants nothing. Kubernetes documents the same
    subjects in "Using RBAC Authorization", "Referring to subjects"."""
    if binding.kind not in ("RoleBinding", "ClusterRoleBinding") or binding.group != RBAC_GROUP:
        return []
    subjects = binding.body.get("subjects")
    if not isinstance(subjects, Seq):
        return []
    out: list[Grantee] = []
    for subject in subjects:
        grantee = _grantee(subject, binding) if isinstance(subject, Map) else None
        if grantee is not None and grantee not in out:
            out.append(grantee)
    return out


def _grantee(subject: Map, binding: Manifest) -> Grantee | None:
    """The :class:`Grantee` of one subject mapping of ``binding`` (:func:`binding_grantees`)."""
    return subject_grantee(subject.get("kind"), subject.get("name"), subject.get("namespace"), subject.get("apiGroup"),
                           binding.kind, binding.namespace or "")  # fmt: skip


def subject_grantee(kind: object, name: object, namespace: object, api_group: object, binding_kind: str | None,
                    binding_namespace: str | None) -> Grantee | None:  # fmt: skip
    """The :class:`Grantee` of one subject of a RoleBinding or ClusterRoleBinding
    (``binding_kind``) whose namespace is ``binding_namespace`` (``""``: its application's
    destination namespace; None: unknown, any), as :func:`binding_grantees` reads it; None when it
    grants no ServiceAccount. A subject's fields are as written (``kind``, ``name``, ``namespace``,
    ``apiGroup``: None or ``""`` when unset)."""
    if not isinstance(name, str) or not name:
        return None
    if kind == "ServiceAccount":
        if api_group not in (None, ""):  # ValidateRoleBindingSubject: a ServiceAccount subject has no apiGroup
            return None
        if not isinstance(namespace, str) or not namespace:
            if binding_kind != "RoleBinding":
                return None
            namespace = binding_namespace
        return Grantee(namespace, name)
    if kind not in ("User", "Group") or api_group not in (None, "", RBAC_GROUP):
        return None
    written = f"{kind} '{name}'"
    if kind == "User":
        parts = name[len(SA_USER_PREFIX):].split(":") if name.startswith(SA_USER_PREFIX) else []
        if len(parts) == 2 and all(parts):
            return Grantee(parts[0], parts[1], written)
        return None
    if name == SA_GROUP:
        return Grantee(None, None, f"{written}, every ServiceAccount of the cluster")
    if name == AUTHENTICATED_GROUP:
        return Grantee(None, None, f"{written}, every authenticated user and ServiceAccount")
    if name.startswith(SA_NAMESPACE_GROUP_PREFIX) and len(name) > len(SA_NAMESPACE_GROUP_PREFIX):
        namespace = name[len(SA_NAMESPACE_GROUP_PREFIX):]
        return Grantee(namespace, None, f"{written}, every ServiceAccount of namespace '{namespace}'")
    return None


def binding_grantee(binding: Manifest, namespace: str | None, name: str) -> Grantee | None:
    """The first subject of ``binding`` that grants ServiceAccount ``name`` of ``namespace``
    (:meth:`Grantee.covers`), or None."""
    return next((g for g in binding_grantees(binding) if g.covers(namespace, name)), None)


def object_key(m: Manifest) -> tuple[str, str, str, str] | None:
    """``(group, kind, namespace, name)`` as Argo CD keys an application's objects
    (``AC controller/state.go`` ``DeduplicateTargetObjects``: ``kube.GetResourceKey`` after the
    namespace of a cluster-scoped kind is cleared); ``""`` namespace stands for the destination
    namespace. None for an object without kind or name (generateName objects are never repeats:
    Argo CD keys them by generateName and position)."""
    if not m.kind or not m.name:
        return None
    namespace = "" if m.kind in CLUSTER_SCOPED_KINDS else m.namespace or ""
    return (m.group, m.kind, namespace, m.name)


def repeated_objects(manifests: "list[Manifest]") -> dict[int, tuple["Manifest", "Manifest"]]:
    """Copies Argo CD drops: ``id(copy) -> (first copy, kept copy)`` for every object whose key
    (:func:`object_key`) appears more than once, except the copy Argo CD keeps, the last one
    (``DeduplicateTargetObjects`` appends ``targets[len(targets)-1]`` and records a
    RepeatedResourceWarning condition)."""
    groups: dict[tuple[str, str, str, str], list[Manifest]] = {}
    for m in manifests:
        key = object_key(m)
        if key is not None:
            groups.setdefault(key, []).append(m)
    dropped: dict[int, tuple[Manifest, Manifest]] = {}
    for copies in groups.values():
        for m in copies[:-1]:
            dropped[id(m)] = (copies[0], copies[-1])
    return dropped


def manifests_from_document(
    path: str, doc_index: int, value: Any, source: str | None, source_line: int = 0,
    version: Version = DEFAULT_VERSION,
) -> list[Manifest]:
    """The objects Argo CD takes from one document (``reposerver/repository/repository.go``
    ``GenerateManifests``, v3.5.1): each item when ``items`` is a sequence, whatever the kind
    (``Unstructured.IsList``; items that are not mappings give none, HL003 reports them); nothing for
    a "null list", ``items: null`` with no ``spec`` and no ``status`` (``isNullList``); else the
    document itself. Non-mapping documents give no manifests (HL003 reports them). ``version`` is the
    configured Argo CD release their hook information is read for."""
    if not isinstance(value, Map):
        return []
    items = value.get("items")
    if isinstance(items, Seq):
        return [
            Manifest.from_body(path, doc_index, item, source, i, source_line, version)
            for i, item in enumerate(items)
            if isinstance(item, Map)
        ]
    if items is None and "items" in value and "spec" not in value and "status" not in value:
        return []
    return [Manifest.from_body(path, doc_index, value, source, None, source_line, version)]


def manifests_of(files: "list[LoadedFile]", rendered: "list[RenderedFile] | None" = None,
                 namespace: str | None = None, version: Version = DEFAULT_VERSION,
                 crds: frozenset[tuple[str, str]] = frozenset()) -> list[Manifest]:  # fmt: skip
    """Every manifest of the files Argo CD renders (those without ``skip_reason``), in file and
    document order, or of the ``rendered`` documents of a kustomize or Helm application, each with
    its placement in the user's files: the third stage of the pipeline. ``namespace`` (an Argo CD
    Application's destination namespace) is given to every object of a namespaced kind that sets
    none, as Argo CD applies it there (``shared/docs/argocd-rendering.md`` §5). ``version`` is the
    configured Argo CD release (``argocd-version``): each manifest's ``hook`` is read for it.
    ``crds``: (group, kind) of cluster-scoped CRDs written elsewhere in the repository, besides the
    application's own (:func:`cluster_scoped`)."""
    manifests: list[Manifest] = []
    if rendered is not None:
        for item in rendered:
            for doc in item.loaded.documents:
                for m in manifests_from_document(item.loaded.path, doc.index, doc.value, None, 0, version):
                    m.placement = item.placement
                    manifests.append(m)
    else:
        for loaded in files:
            if loaded.skip_reason is not None:
                continue
            for doc in loaded.documents:
                manifests.extend(manifests_from_document(loaded.path, doc.index, doc.value, doc.source,
                                                         doc.source_line, version))  # fmt: skip
    if namespace:
        crds = crds | cluster_scoped_crds(manifests)
        for m in manifests:
            if m.namespace is None and not cluster_scoped(m.group, m.kind, crds):
                m.namespace = namespace
    return manifests


def selects(selector: object, labels: Mapping[str, object]) -> bool:
    """Whether a ``metav1.LabelSelector`` (a mapping of ``matchLabels`` and ``matchExpressions``)
    selects an object with ``labels``, as ``metav1.LabelSelectorAsSelector`` reads it
    (``k8s.io/apimachinery pkg/apis/meta/v1/helpers.go``): every ``matchLabels`` pair equal, every
    expression true (``In``, ``NotIn``: absent or another value, ``Exists``, ``DoesNotExist``); an
    empty selector selects everything. A selector that is not a mapping, or that the API server
    rejects (an unknown operator, values where none belong or none where some must), selects
    nothing."""
    if not isinstance(selector, Mapping):
        return False
    match, expressions = selector.get("matchLabels") or {}, selector.get("matchExpressions") or []
    if not isinstance(match, Mapping) or not isinstance(expressions, list):
        return False
    if any(labels.get(key) != value for key, value in match.items()):
        return False
    for e in expressions:
        if not isinstance(e, Mapping) or not isinstance(e.get("key"), str):
            return False
        op, values, value = e.get("operator"), e.get("values") or [], labels.get(e["key"])
        if not isinstance(values, list) or (op in ("In", "NotIn")) != bool(values):
            return False
        if op == "In" and value not in values or op == "NotIn" and value in values \
                or op == "Exists" and value is None or op == "DoesNotExist" and value is not None:
            return False
        if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            return False
    return True
