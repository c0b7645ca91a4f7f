"""The security rules read the pods of Argo Rollouts' ``AnalysisRun`` Job metrics and of Tekton's
``TaskRun`` (attack round 9, F1/F2): ``spec.metrics[].provider.job.spec`` is a batch/v1 JobSpec
(``argo-rollouts pkg/apis/rollouts/v1alpha1/analysis_types.go`` ``JobMetric``); a TaskRun's pod
runs ``spec.taskSpec``'s steps and sidecars with ``spec.podTemplate``
(``tektoncd/pipeline pkg/apis/pipeline/v1/taskrun_types.go``, ``pod/template.go``)."""

from __future__ import annotations

import pathlib

from typer.testing import CliRunner

from hooklint.cli import app

runner = CliRunner()
FX = pathlib.Path("/work/attack9/fx")
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n---\n"
#: /work/attack9/fx/b_analysisrun/ar.yaml
ANALYSIS_RUN = CM + """\
apiVersion: argoproj.io/v1alpha1
kind: AnalysisRun
metadata:
  name: pwn
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  metrics:
  - name: root
    provider:
      job:
        spec:
          backoffLimit: 0
          template:
            spec:
              hostPID: true
              restartPolicy: Never
              containers:
              - name: x
                image: busybox:latest
                command: [nsenter, -t, "1", -m, -u, -i, -n, sh, -c, "id"]
                securityContext: {privileged: true}
"""
#: /work/attack9/fx/b_taskrun/tr.yaml
TASK_RUN = CM + """\
apiVersion: tekton.dev/v1
kind: TaskRun
metadata:
  name: pwn
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  podTemplate:
    hostNetwork: true
  taskSpec:
    steps:
    - name: x
      image: busybox:latest
      script: id
      securityContext: {privileged: true}
"""
TAIL = "a PreSync hook runs on every sync and then controls the node, not just its pod. Remove it, or do this work outside the cluster's workloads."


def _lint(tmp_path, monkeypatch, name: str, text: str) -> tuple[int, list[str]]:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["lint", "--no-cache", "."])
    return result.exit_code, result.output.splitlines()


def test_attack_analysis_run_job_pod_is_checked(tmp_path, monkeypatch):
    """Before: ``0 errors, 0 warnings, 0 notes in 1 file``, exit 0."""
    code, lines = _lint(tmp_path, monkeypatch, "ar.yaml", ANALYSIS_RUN)
    assert code == 1
    assert lines[:6] == [
        "app/ar.yaml:21:13: warning HL103 hook-default-service-account: AnalysisRun/pwn sets no serviceAccountName, so its "
        "pods run as the namespace's 'default' ServiceAccount: a PreSync hook then shares identity and permissions with "
        "every other unconfigured pod. Create a dedicated ServiceAccount and set "
        "spec.metrics[0].provider.job.spec.template.spec.serviceAccountName. Its token is mounted too, with no role bound "
        "to it in this application (HL104).",
        "app/ar.yaml:21:13: warning HL104 hook-automounts-token: AnalysisRun/pwn mounts the token of ServiceAccount "
        "'default' (HL103; not turned off here; the ServiceAccount is not in this application), and no binding in this application grants "
        "it a role. Set automountServiceAccountToken: false, or give the hook its own, least-privileged ServiceAccount.",
        f"app/ar.yaml:22:24: error HL105 hook-privileged-pod: AnalysisRun/pwn sets hostPID: true: {TAIL}",
        "app/ar.yaml:26:24: warning HL102 hook-image-mutable-tag: Image 'busybox:latest' of container 'x' of metric 'root' "
        "of AnalysisRun/pwn uses the mutable tag ':latest': each sync may run different code than was reviewed. Pin a "
        "version tag or, better, an @sha256 digest.",
        f"app/ar.yaml:28:47: error HL105 hook-privileged-pod: The container 'x' of metric 'root' of AnalysisRun/pwn is privileged: {TAIL}",
        "",
    ]


def test_attack_task_run_steps_and_pod_template_are_checked(tmp_path, monkeypatch):
    """Before: only the HL308 note, ``0 errors, 0 warnings, 1 note``, exit 0."""
    code, lines = _lint(tmp_path, monkeypatch, "tr.yaml", TASK_RUN)
    assert code == 1
    assert lines[1:7] == [
        "app/tr.yaml:13:1: warning HL103 hook-default-service-account: TaskRun/pwn sets no serviceAccountName, so its pods "
        "run as the namespace's 'default' ServiceAccount: a PreSync hook then shares identity and permissions with every "
        "other unconfigured pod. Create a dedicated ServiceAccount and set spec.serviceAccountName. Its token is mounted "
        "too, with no role bound to it in this application (HL104).",
        "app/tr.yaml:13:1: warning HL104 hook-automounts-token: TaskRun/pwn mounts the token of ServiceAccount 'default' "
        "(HL103; not turned off here; the ServiceAccount is not in this application), and no binding in this application grants it a "
        "role. Set automountServiceAccountToken: false, or give the hook its own, least-privileged ServiceAccount.",
        f"app/tr.yaml:15:18: error HL105 hook-privileged-pod: TaskRun/pwn sets hostNetwork: true: {TAIL}",
        "app/tr.yaml:19:14: warning HL102 hook-image-mutable-tag: Image 'busybox:latest' of step 'x' of TaskRun/pwn uses "
        "the mutable tag ':latest': each sync may run different code than was reviewed. Pin a version tag or, better, an "
        "@sha256 digest.",
        f"app/tr.yaml:21:37: error HL105 hook-privileged-pod: The step 'x' of TaskRun/pwn is privileged: {TAIL}",
        "",
    ]


def test_task_run_service_account_pod_template_and_step_template(tmp_path, monkeypatch):
    """The TaskRun's ``serviceAccountName`` and ``podTemplate.automountServiceAccountToken`` are
    the pod's; a ``stepTemplate`` (merged into every step) and sidecars are read as containers;
    ``hostPID`` is not a pod template field, so it is not reported; the Task's and the pod
    template's volumes are both the pod's."""
    text = """\
apiVersion: tekton.dev/v1beta1
kind: TaskRun
metadata:
  name: build
  annotations: {argocd.argoproj.io/hook: PreSync}
spec:
  serviceAccountName: builder
  podTemplate:
    hostPID: true
    automountServiceAccountToken: false
    volumes:
    - name: node
      hostPath: {path: /}
  taskSpec:
    stepTemplate:
      securityContext: {privileged: true}
    steps:
    - image: registry.example.com/b@sha256:""" + "0" * 64 + """
    sidecars:
    - name: dind
      image: registry.example.com/d@sha256:""" + "0" * 64 + """
      securityContext: {capabilities: {add: [SYS_ADMIN]}}
"""
    code, lines = _lint(tmp_path, monkeypatch, "tr.yaml", text)
    assert code == 1
    assert [line for line in lines if line.startswith("app/") and " HL1" in line] == [
        f"app/tr.yaml:13:7: error HL105 hook-privileged-pod: TaskRun/build mounts the node's filesystem through hostPath volume 'node' (path '/'): {TAIL}",
        f"app/tr.yaml:16:37: error HL105 hook-privileged-pod: The step template 'stepTemplate' of TaskRun/build is privileged: {TAIL}",
        "app/tr.yaml:22:46: error HL105 hook-privileged-pod: The sidecar container 'dind' of TaskRun/build adds capability "
        f"SYS_ADMIN, beyond the baseline set: {TAIL}",
    ]


def test_analysis_templates_are_not_run(tmp_path, monkeypatch):
    """An AnalysisTemplate or ClusterAnalysisTemplate is not run by itself (an AnalysisRun or a
    Rollout refers to it): its Job metric is not a hook's pod."""
    text = ANALYSIS_RUN.replace("kind: AnalysisRun", "kind: AnalysisTemplate")
    code, lines = _lint(tmp_path, monkeypatch, "at.yaml", text)
    assert [line for line in lines if line.startswith("app/") and " HL1" in line] == []


#: The kinds HL110 reports when their pods are not read (trial 9 F2).
NOT_READ = """\
apiVersion: tekton.dev/v1
kind: TaskRun
metadata:
  name: a
  annotations: {argocd.argoproj.io/hook: PreSync}
spec:
  serviceAccountName: b
  taskRef: {name: build}
---
apiVersion: tekton.dev/v1
kind: PipelineRun
metadata:
  name: p
  annotations: {argocd.argoproj.io/hook: PreSync}
spec:
  pipelineSpec: {tasks: [{name: t, taskSpec: {steps: [{image: busybox, securityContext: {privileged: true}}]}}]}
---
apiVersion: tower.ansible.com/v1alpha1
kind: AnsibleJob
metadata:
  name: j
  annotations: {argocd.argoproj.io/hook: PreSync}
spec:
  job_template_name: deploy
---
apiVersion: tekton.dev/v1
kind: TaskRun
metadata:
  name: s
  annotations: {argocd.argoproj.io/hook: PreSync}
spec:
  serviceAccountName: b
  podTemplate: {automountServiceAccountToken: false}
  taskSpec:
    steps:
    - name: git
      ref: {name: git-clone}
"""
CHECKED = "so hooklint did not check the images, ServiceAccount and privileges of those pods (HL101-HL105)"


def test_hl110_reports_run_to_completion_hooks_whose_pods_are_not_read(tmp_path, monkeypatch):
    """Before: a TaskRun's taskRef, a PipelineRun and an AnsibleJob passed silently (HL110 read
    Workflows only)."""
    code, lines = _lint(tmp_path, monkeypatch, "runs.yaml", NOT_READ)
    assert code == 1
    assert [line for line in lines if " HL110 " in line] == [
        "app/runs.yaml:8:3: warning HL110 hook-workflow-pods-not-read: TaskRun/a runs Task 'build' through spec.taskRef: "
        f"its steps are defined there, not in this object, {CHECKED}. Review that Task's steps (hooklint reads a Task as a "
        "plain object), or write them in spec.taskSpec.",
        "app/runs.yaml:16:3: warning HL110 hook-workflow-pods-not-read: PipelineRun/p makes a pod for each task of its "
        "pipeline (spec.pipelineSpec: task 't' runs steps of image 'busybox' with privileged container 'None'), and "
        f"hooklint does not read a PipelineRun's tasks, {CHECKED}. Review the pipeline's "
        "tasks yourself, or run each as a TaskRun with its steps in spec.taskSpec.",
        "app/runs.yaml:21:9: warning HL110 hook-workflow-pods-not-read: AnsibleJob/j is a tower.ansible.com/AnsibleJob "
        "(job_template_name 'deploy'): its "
        f"controller makes the pods that run it from settings hooklint does not read, {CHECKED}. Review what it runs "
        "yourself, or run the work as a Job.",
        "app/runs.yaml:37:7: warning HL110 hook-workflow-pods-not-read: Step 'git' of TaskRun/s runs StepAction 'git-clone' "
        f"(ref): its image and script are defined there, {CHECKED}. Review that StepAction, or write the step's image and "
        "script here.",
    ]
