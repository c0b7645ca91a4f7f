"""The security rules read an Argo Workflows ``Workflow``'s pods (attack round 8, F3): one pod spec
per template that runs a pod, with the pod-level fields of the Workflow's spec
(``argo-workflows pkg/apis/workflow/v1alpha1/workflow_types.go``, ``workflow/controller/workflowpod.go``)."""

from __future__ import annotations

from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.config import parse_config
from hooklint.pipeline import lint_text

runner = CliRunner()

#: /work/attack8/k2/app/wf.yaml: a PreSync Workflow, privileged, from an unlisted registry, ':latest'.
ATTACK_WORKFLOW = """\
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  generateName: pwn-
  annotations: {argocd.argoproj.io/hook: PreSync, argocd.argoproj.io/hook-delete-policy: HookSucceeded}
spec:
  entrypoint: main
  serviceAccountName: argo-admin
  hostPID: true
  templates:
  - name: main
    container:
      image: evil.example.net/x:latest
      securityContext: {privileged: true}
"""


def test_attack_workflow_hook_is_checked(tmp_path, monkeypatch):
    """Before: ``0 errors, 0 warnings, 0 notes in 2 files``, exit 0. ``spec.hostPID`` is not a
    Workflow field (only a podSpecPatch sets hostPID), so it is not reported."""
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "wf.yaml").write_text(ATTACK_WORKFLOW)
    (tmp_path / "app" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n")
    (tmp_path / ".hooklint.yaml").write_text("allowed-registries: [registry.example.com]\nrequire-digest: true\n")
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["lint", "--no-cache", "."])
    assert result.exit_code == 1, result.output
    assert result.output.splitlines()[:4] == [
        "app/wf.yaml:6:1: warning HL104 hook-automounts-token: Workflow/pwn-* mounts the token of ServiceAccount 'argo-admin' (not turned off "
        "here; the ServiceAccount is not in this application), and no binding in this application grants it a role. Set "
        "automountServiceAccountToken: false, or bind it to a least-privilege Role.",
        "app/wf.yaml:13:14: error HL101 hook-image-registry-not-allowed: Image 'evil.example.net/x:latest' of container 'main' of template 'main' of "
        "Workflow/pwn-* comes from registry 'evil.example.net', which is not in allowed-registries: a PreSync hook runs "
        "on every sync, with its ServiceAccount's permissions, and nobody reviews what that image contains. Pull the "
        "image from an allowed registry, or add it to allowed-registries.",
        "app/wf.yaml:13:14: warning HL102 hook-image-mutable-tag: Image 'evil.example.net/x:latest' of container 'main' of template 'main' of "
        "Workflow/pwn-* is not pinned by an @sha256 digest (require-digest is on): each sync may run different code "
        "than was reviewed. Pin it by digest: image@sha256:...",
        "app/wf.yaml:14:37: error HL105 hook-privileged-pod: The container 'main' of template 'main' of Workflow/pwn-* is privileged: a "
        "PreSync hook runs on every sync and then controls the node, not just its pod. Remove it, or do this work "
        "outside the cluster's workloads.",
    ]


def _hits(text: str, rule: str, config: dict | None = None) -> list[tuple[int, int, str]]:
    return [(f.span.line, f.span.column, f.field_path) for f in lint_text(text, parse_config(config or {}, "t"))
            if f.rule_id == rule]  # fmt: skip


def test_template_defaults_and_dag_inline_templates_are_pods():
    """``spec.templateDefaults`` is merged into every template; a DAG task's ``inline`` template
    runs a pod of its own."""
    text = """\
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  generateName: w-
  annotations: {argocd.argoproj.io/hook: PreSync}
spec:
  entrypoint: main
  serviceAccountName: w
  templateDefaults:
    container:
      securityContext: {privileged: true}
  templates:
  - name: main
    dag:
      tasks:
      - name: a
        inline:
          container:
            image: ghcr.io/acme/a:1.0.0
            securityContext: {allowPrivilegeEscalation: true}
"""
    assert _hits(text, "HL105") == [
        (11, 37, "spec.templateDefaults.container.securityContext.privileged"),
        (20, 57, "spec.templates[0].dag.tasks[0].inline.container.securityContext.allowPrivilegeEscalation"),
    ]


def test_spec_fields_reported_once_and_template_service_account_wins():
    """``spec.hostNetwork`` reaches every pod and is reported once; a template's
    ``serviceAccountName`` wins over the spec's (``setupServiceAccount``)."""
    text = """\
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  generateName: w-
  annotations: {argocd.argoproj.io/hook: PreSync}
spec:
  entrypoint: a
  serviceAccountName: default
  hostNetwork: true
  templates:
  - name: a
    serviceAccountName: a
    container: {image: ghcr.io/acme/a:1.0.0}
  - name: b
    container: {image: ghcr.io/acme/b:1.0.0}
  - name: c
    container: {image: ghcr.io/acme/c:1.0.0}
"""
    assert _hits(text, "HL105") == [(9, 16, "spec.hostNetwork")]
    assert _hits(text, "HL103") == [(8, 23, "spec.serviceAccountName")]


def test_workflow_of_another_group_and_non_hook_workflow_are_not_read():
    """A ``Workflow`` kind of another API group is not Argo Workflows'; a plain Workflow is only
    read with ``check-all-workloads``."""
    body = """\
kind: Workflow
metadata: {name: w, annotations: {%s}}
spec:
  templates:
  - name: a
    container: {image: ghcr.io/acme/a:1.0.0, securityContext: {privileged: true}}
"""
    hook = body % "argocd.argoproj.io/hook: PreSync"
    assert _hits("apiVersion: example.com/v1\n" + hook, "HL105") == []
    assert _hits("apiVersion: argoproj.io/v1alpha1\n" + hook, "HL105") == [
        (7, 76, "spec.templates[0].container.securityContext.privileged")]
    assert _hits("apiVersion: argoproj.io/v1alpha1\n" + body % "", "HL105") == []
    assert _hits("apiVersion: argoproj.io/v1alpha1\n" + body % "", "HL105", {"check-all-workloads": True}) == [
        (7, 76, "spec.templates[0].container.securityContext.privileged")]


PATCHES = """\
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  generateName: w-
  annotations: {argocd.argoproj.io/hook: PreSync}
spec:
  entrypoint: a
  serviceAccountName: w
  podSpecPatch: '{"hostPID": true, "containers": [{"name": "main", "securityContext": {"privileged": true}}]}'
  templates:
  - name: a
    podSpecPatch: |
      hostIPC: true
    container: {image: ghcr.io/acme/a:1.0.0}
  - name: b
    podSpecPatch: |
      containers:
      - name: main
        image: '{{inputs.parameters.image}}'
    container: {image: ghcr.io/acme/b:1.0.0}
  - name: c
    podSpecPatch: '{"serviceAccountName": "admin", "containers": [{"name": "main", "image": "evil.example.net/x"}]}'
    steps:
    - - name: x
        templateRef: {name: lib, template: build}
    container: {image: ghcr.io/acme/c:1.0.0}
---
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  generateName: r-
  annotations: {argocd.argoproj.io/hook: PreSync}
spec:
  workflowTemplateRef: {name: migrate}
"""


def test_pod_spec_patches_are_read_or_reported():
    """A parsed podSpecPatch's host namespaces and privileged containers are HL105 at the patch (the
    spec's once, though three templates get it); a templated patch, one that sets an image or the
    ServiceAccount, a templateRef and a workflowTemplateRef are HL110: never a silent pass."""
    assert _hits(PATCHES, "HL105") == [(9, 17, "spec.podSpecPatch"), (12, 19, "spec.templates[0].podSpecPatch")]
    assert _hits(PATCHES, "HL110") == [
        (16, 19, "spec.templates[1].podSpecPatch"),
        (22, 19, "spec.templates[2].podSpecPatch"),
        (25, 9, "spec.templates[2].steps[0][0].templateRef"),
        (34, 3, "spec.workflowTemplateRef"),
    ]
    messages = [f.message for f in lint_text(PATCHES, parse_config({}, "t")) if f.rule_id in ("HL105", "HL110")]
    assert messages[0] == (
        "The podSpecPatch of Workflow/w-* at spec.podSpecPatch gives its pods hostPID: true, container 'main' "
        "privileged: a PreSync hook runs on every sync and then controls the node, not just its pod. Remove it, or do "
        "this work outside the cluster's workloads.")
    assert (
        "The podSpecPatch of Workflow/w-* at spec.templates[2].podSpecPatch sets serviceAccountName, the image of "
        "container 'main': hooklint checks the images and ServiceAccount written in the templates, not those of a "
        "patch (HL101-HL104). Write them in the template instead.") in messages


def test_rbac_and_literal_secrets_of_workflow_pods():
    """HL106 reads the ServiceAccount the spec gives every pod (once, not once per template); HL107
    a template container's env."""
    text = """\
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  generateName: w-
  annotations: {argocd.argoproj.io/hook: PreSync}
spec:
  entrypoint: a
  serviceAccountName: w
  templates:
  - name: a
    container:
      image: ghcr.io/acme/a:1.0.0
      env: [{name: DB_PASSWORD, value: hunter2hunter2}]
  - name: b
    container: {image: ghcr.io/acme/b:1.0.0}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: w}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: ServiceAccount, name: w, namespace: shop}]
"""
    assert _hits(text, "HL106") == [(8, 23, "spec.serviceAccountName")]
    assert _hits(text, "HL107") == [(13, 40, "spec.templates[0].container.env[0].value")]


FOLDED_PATCHES = """\
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  generateName: f-
  annotations: {argocd.argoproj.io/hook: PreSync}
spec:
  entrypoint: a
  serviceAccountName: w
  templates:
  - name: a
    podSpecPatch: '{"Hostpid": true}'
    container: {image: ghcr.io/acme/a:1.0.0}
  - name: b
    podSpecPatch: '{"HOSTIPC": true, "hoſtPID": true, "HostNetwork": false, "hostNetwork": true}'
    container: {image: ghcr.io/acme/b:1.0.0}
  - name: c
    podSpecPatch: '{"Containers": [{"name": "main", "SecurityContext": {"Privileged": true, "Capabilities": {"ADD": ["SYS_ADMIN"]}}}]}'
    container: {image: ghcr.io/acme/c:1.0.0}
  - name: d
    podSpecPatch: '{"ServiceAccountName": "admin", "initContainers": [{"name": "i", "IMAGE": "evil.example.net/x"}]}'
    container: {image: ghcr.io/acme/d:1.0.0}
"""


def test_pod_spec_patch_keys_in_another_case_are_read_as_go_reads_them():
    """The workflow controller decodes a podSpecPatch with Go's encoding/json, which matches field
    names in any case (with Unicode folding: U+017F is s), so ``Hostpid``, ``HOSTIPC``, ``hoſtPID``
    and ``Privileged`` set those fields (argo-workflows v3.7 ``ApplyPodSpecPatch``): HL105, and
    HL110 for a ServiceAccount or image set in another case."""
    assert _hits(FOLDED_PATCHES, "HL105") == [
        (11, 19, "spec.templates[0].podSpecPatch"),
        (14, 19, "spec.templates[1].podSpecPatch"),
        (17, 19, "spec.templates[2].podSpecPatch"),
    ]
    assert _hits(FOLDED_PATCHES, "HL110") == [(20, 19, "spec.templates[3].podSpecPatch")]
    messages = [f.message for f in lint_text(FOLDED_PATCHES, parse_config({}, "t")) if f.rule_id in ("HL105", "HL110")]
    tail = ("a PreSync hook runs on every sync and then controls the node, not just its pod. Remove it, or do this "
            "work outside the cluster's workloads.")
    assert messages == [
        f"The podSpecPatch of Workflow/f-* at spec.templates[0].podSpecPatch gives its pods hostPID: true: {tail}",
        f"The podSpecPatch of Workflow/f-* at spec.templates[1].podSpecPatch gives its pods hostNetwork: true, "
        f"hostPID: true, hostIPC: true: {tail}",
        f"The podSpecPatch of Workflow/f-* at spec.templates[2].podSpecPatch gives its pods container 'main' "
        f"privileged, container 'main' adding SYS_ADMIN: {tail}",
        "The podSpecPatch of Workflow/f-* at spec.templates[3].podSpecPatch sets serviceAccountName, the image of "
        "container 'i': hooklint checks the images and ServiceAccount written in the templates, not those of a "
        "patch (HL101-HL104). Write them in the template instead.",
    ]


RESOURCE_TEMPLATES = """\
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  generateName: r-
  annotations: {argocd.argoproj.io/hook: PreSync}
spec:
  entrypoint: a
  serviceAccountName: w
  templates:
  - name: a
    resource:
      action: create
      manifest: |
        apiVersion: v1
        kind: Pod
        metadata: {generateName: node-root-}
        spec:
          hostPID: true
          containers:
          - name: c
            image: docker.io/evil/x:latest
            securityContext: {privileged: true}
          volumes: [{name: host, hostPath: {path: /}}]
  - name: b
    resource:
      action: apply
      manifest: '{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": {"template": {"spec": {"containers": [{"name": "m", "image": "ghcr.io/acme/m:1.0.0"}]}}}}'
  - name: c
    resource: {action: create, manifest: "apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: c}\\n"}
  - name: d
    resource: {action: delete, manifest: "{{inputs.parameters.pod}}"}
  - name: e
    steps:
    - - name: x
        inline:
          resource: {action: create, manifest: "{{inputs.parameters.pod}}"}
  - name: f
    resource:
      action: create
      manifestFrom: {artifact: {name: m}}
"""


def test_resource_templates_that_make_pods_are_reported():
    """A resource template makes the executor create the objects of its manifest with the
    Workflow's ServiceAccount (argo-workflows ``workflow/executor/resource.go``): a Pod or Job in it,
    a templated manifest and manifestFrom are HL110 naming what HL105 would say; a ConfigMap and a
    delete are not."""
    assert _hits(RESOURCE_TEMPLATES, "HL110") == [
        (11, 5, "spec.templates[0].resource"),
        (25, 5, "spec.templates[1].resource"),
        (36, 11, "spec.templates[4].steps[0][0].inline.resource"),
        (38, 5, "spec.templates[5].resource"),
    ]
    messages = [f.message for f in lint_text(RESOURCE_TEMPLATES, parse_config({}, "t")) if f.rule_id == "HL110"]
    tail = ("so hooklint did not check the images, ServiceAccount and privileges of those pods (HL101-HL105), and "
            "those objects run with the Workflow's ServiceAccount. Review them yourself, or run the work in a "
            "container template, whose pod hooklint reads.")
    assert messages == [
        "The resource template at spec.templates[0] of Workflow/r-* makes the workflow controller create Pod "
        f"'node-root-*' of image 'docker.io/evil/x:latest' with hostPID: true, hostPath volume 'host' (path '/'), privileged container 'c', {tail}",
        f"The resource template at spec.templates[1] of Workflow/r-* makes the workflow controller apply Job 'j' of image 'ghcr.io/acme/m:1.0.0', {tail}",
        "The resource template at spec.templates[4].steps[0][0].inline of Workflow/r-* makes the workflow controller "
        "create the objects of a manifest hooklint cannot read (templated with {{...}}, or not YAML mappings), "
        f"{tail}",
        "The resource template at spec.templates[5] of Workflow/r-* makes the workflow controller create objects "
        f"from an artifact (manifestFrom), {tail}",
    ]


def test_attack_resource_template_hook_exits_1(tmp_path):
    """/work/attack16/fx/wfres: the only template creates a privileged Pod; was exit 0."""
    (tmp_path / "wf.yaml").write_text(RESOURCE_TEMPLATES.split("  - name: b\n")[0], encoding="utf-8")
    result = runner.invoke(app, ["lint", str(tmp_path)])
    assert result.exit_code == 1
    assert "HL110" in result.output


def test_resource_template_list_items_are_read():
    """The executor creates each item of a ``kind: List`` manifest (kubectl): a Pod among them is HL110."""
    text = RESOURCE_TEMPLATES.split("  - name: b\n")[0].replace(
        "        apiVersion: v1\n        kind: Pod\n", "        apiVersion: v1\n        kind: List\n        items:\n"
        "        - apiVersion: v1\n          kind: ConfigMap\n          metadata: {name: c}\n        - apiVersion: v1\n"
        "          kind: Pod\n").replace("\n        metadata: {generateName", "\n          metadata: {generateName")
    lines = text.splitlines()
    start = lines.index("          metadata: {generateName: node-root-}")
    text = "\n".join(lines[:start + 1] + ["  " + line for line in lines[start + 1:]]) + "\n"
    messages = [f.message for f in lint_text(text, parse_config({}, "t")) if f.rule_id == "HL110"]
    assert [m.split(", so hooklint")[0] for m in messages] == [
        "The resource template at spec.templates[0] of Workflow/r-* makes the workflow controller create Pod "
        "'node-root-*' of image 'docker.io/evil/x:latest' with hostPID: true, hostPath volume 'host' (path '/'), privileged container 'c'"]


def test_pod_spec_patch_volume_keys_in_another_case_are_read():
    """``Volumes``/``HostPath`` in a podSpecPatch are ``volumes``/``hostPath`` to Go's decoder."""
    text = FOLDED_PATCHES.replace('\'{"Hostpid": true}\'', '\'{"Volumes": [{"name": "root", "HOSTPATH": {"path": "/"}}]}\'')
    messages = [f.message for f in lint_text(text, parse_config({}, "t")) if f.rule_id == "HL105"]
    assert messages[0].startswith(
        "The podSpecPatch of Workflow/f-* at spec.templates[0].podSpecPatch gives its pods hostPath volume 'root' (path '/'): ")
