"""The API versions a cluster serves, as Argo CD passes them to Helm (``.Capabilities.APIVersions``).

Argo CD's application controller asks the destination cluster for its API resources (gitops-engine
``pkg/cache/cluster.go`` ``GetAPIResources(config, true, ResourcesFilter)``: the server's preferred
version of each resource that can be listed and watched, less the excluded ones), turns them into
strings with ``argo.APIResourcesToStrings(resources, true)`` (``util/argo/argo.go`` line 722,
v3.5.1; called at ``controller/state.go`` lines 164 and 285): each ``group/version`` AND each
``group/version/Kind``. The repo server passes them to ``helm template --api-versions`` unless the
Application sets ``helm.apiVersions`` (``pkg/apis/application/v1alpha1/types.go``
``GetAPIVersionsOrDefault``), and Helm adds them to its own defaults (``group/version`` only). So
``.Capabilities.APIVersions.Has "batch/v1/Job"`` is true in every real sync; with Helm's defaults
alone, false (attacker trial 7, F7: a PreSync hook behind it was never linted).

hooklint has no cluster: it stands in with the built-in kinds a cluster of the configured
``kube-version`` serves (:data:`BUILT_IN`), the CustomResourceDefinitions written in the
repository (:func:`hooklint.sources.repository.crds.crd_api_versions`) and the ``api-versions``
setting: :func:`cluster_api_versions`.
"""

from __future__ import annotations

import re
from typing import Iterable

#: The built-in kinds a cluster serves and Argo CD watches, by the version discovery prefers:
#: ``(group/version, kinds, first minor, first minor no longer preferred or served)`` (Kubernetes
#: 1.x; None: still). Only kinds with the ``list`` and ``watch`` verbs (gitops-engine
#: ``GetAPIResources``: never TokenReview, SubjectAccessReview, Binding, ComponentStatus), less
#: Argo CD's own exclusions (``util/settings/resources_filter.go`` ``coreExcludedResources``: the
#: ``events.k8s.io`` and ``metrics.k8s.io`` groups, core ``Event``, ``coordination.k8s.io``
#: ``Lease``) and those of its default ``argocd-cm`` (``manifests/base/config/argocd-cm.yaml``
#: ``resource.exclusions``: ``Endpoints``, ``EndpointSlice``). Beta versions are listed where a
#: cluster served them by default and preferred them.
BUILT_IN: tuple[tuple[str, tuple[str, ...], int, int | None], ...] = (
    ("v1", ("ConfigMap", "LimitRange", "Namespace", "Node", "PersistentVolume", "PersistentVolumeClaim", "Pod",
            "PodTemplate", "ReplicationController", "ResourceQuota", "Secret", "Service", "ServiceAccount"), 0, None),
    ("apps/v1", ("ControllerRevision", "DaemonSet", "Deployment", "ReplicaSet", "StatefulSet"), 9, None),
    ("batch/v1", ("Job",), 0, None),
    ("batch/v1", ("CronJob",), 21, None),
    ("batch/v1beta1", ("CronJob",), 8, 21),
    ("autoscaling/v2", ("HorizontalPodAutoscaler",), 23, None),
    ("autoscaling/v1", ("HorizontalPodAutoscaler",), 0, 23),
    ("policy/v1", ("PodDisruptionBudget",), 21, None),
    ("policy/v1beta1", ("PodDisruptionBudget",), 5, 21),
    ("policy/v1beta1", ("PodSecurityPolicy",), 10, 25),
    ("rbac.authorization.k8s.io/v1", ("ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"), 8, None),
    ("networking.k8s.io/v1", ("NetworkPolicy",), 7, None),
    ("networking.k8s.io/v1", ("Ingress", "IngressClass"), 19, None),
    ("networking.k8s.io/v1", ("IPAddress", "ServiceCIDR"), 33, None),
    ("storage.k8s.io/v1", ("StorageClass",), 6, None),
    ("storage.k8s.io/v1", ("VolumeAttachment",), 13, None),
    ("storage.k8s.io/v1", ("CSIDriver", "CSINode"), 18, None),
    ("storage.k8s.io/v1", ("CSIStorageCapacity",), 24, None),
    ("storage.k8s.io/v1beta1", ("CSIStorageCapacity",), 21, 24),
    ("storage.k8s.io/v1", ("VolumeAttributesClass",), 34, None),
    ("apiextensions.k8s.io/v1", ("CustomResourceDefinition",), 16, None),
    ("apiregistration.k8s.io/v1", ("APIService",), 10, None),
    ("admissionregistration.k8s.io/v1", ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"), 16, None),
    ("admissionregistration.k8s.io/v1", ("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"), 30, None),
    ("scheduling.k8s.io/v1", ("PriorityClass",), 14, None),
    ("node.k8s.io/v1", ("RuntimeClass",), 20, None),
    ("certificates.k8s.io/v1", ("CertificateSigningRequest",), 19, None),
    ("flowcontrol.apiserver.k8s.io/v1", ("FlowSchema", "PriorityLevelConfiguration"), 29, None),
    ("flowcontrol.apiserver.k8s.io/v1beta3", ("FlowSchema", "PriorityLevelConfiguration"), 26, 29),
    ("flowcontrol.apiserver.k8s.io/v1beta2", ("FlowSchema", "PriorityLevelConfiguration"), 23, 26),
    ("flowcontrol.apiserver.k8s.io/v1beta1", ("FlowSchema", "PriorityLevelConfiguration"), 20, 23),
    ("resource.k8s.io/v1", ("DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice"), 34, None),
)


def _minor(kube_version: str | None) -> int | None:
    """The minor of ``1.30``, ``v1.30.2`` (the ``kube-version`` setting's forms); None: unknown."""
    found = re.fullmatch(r"v?1\.(\d+)(\.\d+)?", (kube_version or "").strip())
    return int(found.group(1)) if found else None


def built_in_api_versions(kube_version: str | None) -> list[str]:
    """Each ``group/version`` and ``group/version/Kind`` of :data:`BUILT_IN` that a cluster of
    ``kube_version`` (``1.30``, ``v1.30.2``; None or another form: the newest) serves, sorted."""
    minor = _minor(kube_version)
    out: set[str] = set()
    for group_version, kinds, since, until in BUILT_IN:
        if minor is None and until is not None:
            continue
        if minor is not None and (minor < since or (until is not None and minor >= until)):
            continue
        out.add(group_version)
        out.update(f"{group_version}/{kind}" for kind in kinds)
    return sorted(out)


#: Argo CD's own API (``argoproj.io/v1alpha1``: ``manifests/crds/`` of argo-cd v3.5.1,
#: application-crd.yaml, applicationset-crd.yaml, appproject-crd.yaml). Argo CD cannot run without
#: these CRDs in the cluster it runs in, and that cluster is the in-cluster destination
#: (:data:`IN_CLUSTER_SERVER`, ``in-cluster``), so its discovery, hence ``--api-versions``, always
#: holds them there; a remote destination serves them only if Argo CD is installed there too.
ARGOCD_API_VERSIONS = ("argoproj.io/v1alpha1", "argoproj.io/v1alpha1/AppProject", "argoproj.io/v1alpha1/Application",
                       "argoproj.io/v1alpha1/ApplicationSet")  # fmt: skip
#: The in-cluster destination (argo-cd ``common.KubernetesInternalAPIServerAddr``, named
#: ``in-cluster``: ``common.KubernetesInClusterName``).
IN_CLUSTER_SERVER, IN_CLUSTER_NAME = "https://kubernetes.default.svc", "in-cluster"


def in_cluster(server: str | None) -> bool:
    """Whether an Application's destination (``server``, else ``name``, as
    :attr:`hooklint.sources.spec.ApplicationSource.server` holds it) is the cluster Argo CD runs in."""
    return (server or "").rstrip("/") in (IN_CLUSTER_SERVER, IN_CLUSTER_NAME)


def cluster_api_versions(kube_version: str | None, configured: Iterable[str] = (),
                         crds: Iterable[str] = (), argocd: bool = False) -> tuple[str, ...]:  # fmt: skip
    """What Argo CD would pass to ``helm template --api-versions`` for a cluster of
    ``kube_version`` (the ``kube-version`` setting; None: the newest) where the repository's
    CustomResourceDefinitions (``crds``: their ``group/version`` and ``group/version/Kind``) are
    installed, plus the ``api-versions`` setting (``configured``), plus Argo CD's own kinds
    (:data:`ARGOCD_API_VERSIONS`) when ``argocd`` (the in-cluster destination): sorted, each once,
    as ``APIResourcesToStrings`` sorts them."""
    own = ARGOCD_API_VERSIONS if argocd else ()
    return tuple(sorted(set(built_in_api_versions(kube_version)) | set(configured) | set(crds) | set(own)))
