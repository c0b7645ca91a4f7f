"""What ``hooklint diff`` compares of a finding (attacker trial 19, B7 and B1): the whole message,
never cut where the repository's own text (an object, binding, role or container name) puts a
". " or ": ", and a message that names every value that makes the finding worse (a hostPath
volume's path, a Tekton reference's resolver params), so a change of what is granted, mounted or
run is a new finding, and a base suppression does not cover it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import git
from hooklint.cli import app
from hooklint.findings import Finding, HookRef, Span
from hooklint.review import _statement

runner = CliRunner()

RBAC = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: "{job}"
  namespace: billing
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
    hooklint.io/ignore: "HL106: checked - the seed step lists the Secrets it copies"
spec:
  backoffLimit: 0
  activeDeadlineSeconds: 120
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: seeder
      containers:
      - name: "{container}"
        image: registry.k8s.io/pause:3.9
{context}---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: seeder
  namespace: billing
  annotations: {{argocd.argoproj.io/hook: PreSync, argocd.argoproj.io/sync-wave: "-2"}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: "{role}"
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/sync-wave: "-2"
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation,HookSucceeded
rules:
{rules}---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: "{binding}"
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/sync-wave: "-2"
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation,HookSucceeded
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "{role}"}}
subjects: [{{kind: ServiceAccount, name: seeder, namespace: billing}}]
"""
NARROW = "- {apiGroups: [''], resources: [secrets], verbs: [list]}\n"
EVERYTHING = "- {apiGroups: ['*'], resources: ['*'], verbs: ['*']}\n"
CAPABILITY = "        securityContext: {{capabilities: {{add: [{cap}]}}}}\n"
PLAIN = {"job": "seed", "container": "main", "role": "seed-reader", "binding": "seed-reader"}
#: Text a name may hold that a sentence or a label could be cut at.
PUNCTUATION = [". ", ": ", ". x: ", "?: ", "! ", "; ", ", and ", ".: ", "'. '"]


@pytest.fixture
def repo(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    repo.mkdir()
    monkeypatch.chdir(repo)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "ci@example.com")
    git(repo, "config", "user.name", "ci")
    return repo


def commit(repo: Path, text: str, tag: str, path: str = "app/hook.yaml") -> None:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", tag)
    git(repo, "tag", tag)


def diff_json(annotation_rule: str = "HL106") -> tuple[int, dict]:
    result = runner.invoke(app, ["diff", "base", "--head", "head", "-f", "json", "app"])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


def rbac(names: dict[str, str], rules: str, context: str = "") -> str:
    return RBAC.format(**names, rules=rules, context=context)


@pytest.mark.parametrize("punctuation", PUNCTUATION)
@pytest.mark.parametrize("position", ["binding", "role", "job"])
def test_a_name_never_hides_a_role_widened_to_everything(repo, position, punctuation):
    """A ClusterRoleBinding, ClusterRole or Job named with text a sentence could end at (RBAC names
    are checked by ``ValidateRBACName``: only ``.``, ``..``, ``/`` and ``%`` are refused) and a role
    widened from ``list secrets`` to ``*`` on ``*``: a new HL106, not covered by the base's annotation."""
    names = {**PLAIN, position: f"seed{punctuation}reader"}
    commit(repo, rbac(names, NARROW), "base")
    commit(repo, rbac(names, NARROW + EVERYTHING), "head")
    code, doc = diff_json()
    assert code == 1
    assert [(f["rule_id"], f["suppression"]) for f in doc["new"]] == [("HL106", None)]
    assert "grants every resource with every verb" in doc["new"][0]["message"]
    assert doc["new"][0]["not_covered"].startswith("Not covered by the hooklint.io/ignore annotation at app/hook.yaml:9:")


@pytest.mark.parametrize("punctuation", PUNCTUATION)
def test_a_container_name_never_hides_a_capability_widened(repo, punctuation):
    """The container's name comes before what HL105 says it adds: NET_ADMIN -> ALL is new."""
    names = {**PLAIN, "container": f"main{punctuation}sidecar"}
    base = rbac(names, NARROW, CAPABILITY.format(cap="NET_ADMIN")).replace("HL106:", "HL106,HL105:")
    commit(repo, base, "base")
    commit(repo, base.replace("[NET_ADMIN]", "[ALL]"), "head")
    code, doc = diff_json()
    assert code == 1
    assert [(f["rule_id"], "adds capability ALL" in f["message"]) for f in doc["new"]] == [("HL105", True)]


def test_the_same_names_unchanged_stay_unchanged(repo):
    """No noise: the same punctuated names, with nothing else changed but lines above, match."""
    names = {"job": "seed. x: y", "container": "main", "role": "a. b: c", "binding": "d: e. f"}
    commit(repo, rbac(names, NARROW), "base")
    commit(repo, "# the billing seed\n# step\n" + rbac(names, NARROW), "head")
    code, doc = diff_json()
    assert (code, doc["new"], doc["fixed"]) == (0, [], [])


def _finding(message: str, phase: str = "PreSync") -> Finding:
    return Finding(rule_id="HL106", slug="s", severity="error", message=message, path="a.yaml",
                   span=Span.point(1, 1), hook=HookRef((phase,), 0))  # fmt: skip


@pytest.mark.parametrize("name", [f"m{p}n" for p in PUNCTUATION] + ["m. n: o. p", "a: b: c", "x.", "x:", ": x"])
@pytest.mark.parametrize("slot", ["object", "binding", "role"])
def test_statement_keeps_what_is_granted_whatever_the_names_hold(name, slot):
    """Property: for every name in every quoted place, two messages differing only in what is
    granted have two statements; the same message for another phase of the hook has one."""
    names = {"object": "Job/j", "binding": "RoleBinding/b", "role": "'r'"}
    names[slot] = {"object": f"Job/{name}", "binding": f"RoleBinding/{name}", "role": f"'{name}'"}[slot]

    def said(grants: str, phase: str = "PreSync") -> str:
        return _statement(_finding(
            f"{names['object']} runs as ServiceAccount 'sa', and {names['binding']} grants {grants} through Role "
            f"{names['role']}: a {phase} hook runs on every sync, so whoever controls its image holds those rights. "
            "Grant only the verbs and resources it needs.", phase))  # fmt: skip

    assert said("get on secrets") != said("every resource with every verb")
    assert said("get on secrets") == said("get on secrets", "PostSync")


HOST_PATH = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: warm
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
    hooklint.io/ignore: "HL105: checked - reads the node's package cache only"
spec:
  backoffLimit: 0
  activeDeadlineSeconds: 60
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: warm
      automountServiceAccountToken: false
      containers:
      - name: c
        image: registry.k8s.io/pause:3.9
        volumeMounts: [{{name: pkg, mountPath: /pkg, readOnly: true}}]
      volumes:
      - name: pkg
        hostPath: {{path: {path}, type: Directory}}
"""


def test_a_host_path_widened_to_the_node_root_is_new(repo):
    """HL105 names the node path a hostPath volume mounts: ``/var/lib/pkg-cache`` -> ``/`` is a new
    finding, and the annotation written for the cache folder does not cover it."""
    commit(repo, HOST_PATH.format(path="/var/lib/pkg-cache"), "base")
    commit(repo, HOST_PATH.format(path="/"), "head")
    code, doc = diff_json()
    assert code == 1
    assert [(f["rule_id"], f["message"].split(":")[0]) for f in doc["new"]] == [
        ("HL105", "Job/warm mounts the node's filesystem through hostPath volume 'pkg' (path '/')")]
    assert doc["new"][0]["not_covered"] == (
        "Not covered by the hooklint.io/ignore annotation at app/hook.yaml:8: the base had no such finding under it; "
        "the annotation was written for: HL105 Job/warm mounts the node's filesystem through hostPath volume 'pkg' "
        "(path '/var/lib/pkg-cache').")  # fmt: skip


TASK_RUN = """\
apiVersion: tekton.dev/v1
kind: TaskRun
metadata:
  name: schema
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
    hooklint.io/ignore: "HL110: checked - platform/tasks schema.yaml at v3"
spec:
  serviceAccountName: schema
  taskRef:
{ref}"""
GIT_REF = """\
    resolver: git
    params:
    - {{name: url, value: "https://git.example.com/{owner}/tasks.git"}}
    - {{name: revision, value: {revision}}}
    - {{name: pathInRepo, value: schema.yaml}}
"""
PIPELINE_RUN = """\
apiVersion: tekton.dev/v1
kind: PipelineRun
metadata:
  name: release
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
    hooklint.io/ignore: "HL110: checked - the release pipeline"
spec:
  pipelineRef:
{ref}"""


@pytest.mark.parametrize("text, base, head, said", [
    (TASK_RUN, GIT_REF.format(owner="platform", revision="v3"), GIT_REF.format(owner="someone", revision="main"),
     "TaskRun/schema runs a Task the 'git' resolver fetches with url 'https://git.example.com/someone/tasks.git', "
     "revision 'main', pathInRepo 'schema.yaml' through spec.taskRef: its steps are defined there, not in this object"),
    (TASK_RUN, "    resolver: bundles\n    params:\n    - {name: bundle, value: 'registry.example.com/tasks:v3'}\n"
     "    - {name: name, value: schema}\n    - {name: kind, value: task}\n",
     "    resolver: bundles\n    params:\n    - {name: bundle, value: 'registry.example.com/tasks:latest'}\n"
     "    - {name: name, value: schema}\n    - {name: kind, value: task}\n",
     "TaskRun/schema runs a Task the 'bundles' resolver fetches with bundle 'registry.example.com/tasks:latest', "
     "name 'schema', kind 'task' through spec.taskRef: its steps are defined there, not in this object"),
    (PIPELINE_RUN, "    name: release\n", "    name: release-unreviewed\n",
     "PipelineRun/release makes a pod for each task of its pipeline (spec.pipelineRef, Pipeline 'release-unreviewed'), "
     "and hooklint does not read a PipelineRun's tasks"),
    (PIPELINE_RUN, "    resolver: hub\n    params:\n    - {name: name, value: release}\n    - {name: version, value: '0.3'}\n",
     "    resolver: hub\n    params:\n    - {name: name, value: release}\n    - {name: version, value: '0.4'}\n",
     "PipelineRun/release makes a pod for each task of its pipeline (spec.pipelineRef, a Pipeline the 'hub' resolver "
     "fetches with name 'release', version '0.4'), and hooklint does not read a PipelineRun's tasks"),
], ids=["git", "bundles", "pipeline-name", "hub"])  # fmt: skip
def test_a_tekton_reference_repointed_is_new(repo, text, base, head, said):
    """HL110 names what a TaskRun's taskRef or a PipelineRun's pipelineRef runs, with a remote
    resolver's every param: re-pointing it (another repository, revision, bundle, version or
    Pipeline) is a new finding, not covered by the annotation written for the reviewed one."""
    commit(repo, text.format(ref=base), "base")
    commit(repo, text.format(ref=head), "head")
    code, doc = diff_json()
    assert code == 1
    assert [(f["rule_id"], f["message"].split(", so hooklint")[0]) for f in doc["new"]] == [("HL110", said)]
    assert doc["new"][0]["not_covered"].startswith("Not covered by the hooklint.io/ignore annotation at app/hook.yaml:8:")


INLINE_PIPELINE = """\
apiVersion: tekton.dev/v1
kind: PipelineRun
metadata:
  name: release
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
    hooklint.io/ignore: "HL110: checked - publishes with the pinned tools image"
spec:
  pipelineSpec:
    tasks:
    - name: publish
      taskSpec:
        steps:
        - {{name: push, image: "{image}"{extra}}}
    finally:
    - name: notify
      taskRef: {{name: {notify}}}
"""


@pytest.mark.parametrize("head, said", [
    (dict(image="registry.example.com/tools:2.0", extra="", notify="notify"),
     "task 'publish' runs steps of image 'registry.example.com/tools:2.0'; task 'notify' runs Task 'notify'"),
    (dict(image="registry.example.com/tools:1.4", extra=", securityContext: {privileged: true}", notify="notify"),
     "task 'publish' runs steps of image 'registry.example.com/tools:1.4' with privileged container 'push'; "
     "task 'notify' runs Task 'notify'"),
    (dict(image="registry.example.com/tools:1.4", extra="", notify="page-everyone"),
     "task 'publish' runs steps of image 'registry.example.com/tools:1.4'; task 'notify' runs Task 'page-everyone'"),
], ids=["image", "privileged", "finally-ref"])  # fmt: skip
def test_a_pipeline_spec_task_changed_is_new(repo, head, said):
    """HL110 on a PipelineRun with an inline pipelineSpec names what each task runs (its taskRef,
    or its steps' images and what HL105 would say of them): a change of any is new."""
    commit(repo, INLINE_PIPELINE.format(image="registry.example.com/tools:1.4", extra="", notify="notify"), "base")
    commit(repo, INLINE_PIPELINE.format(**head), "head")
    code, doc = diff_json()
    assert code == 1
    assert [f["rule_id"] for f in doc["new"]] == ["HL110"]
    assert doc["new"][0]["message"].startswith(
        f"PipelineRun/release makes a pod for each task of its pipeline (spec.pipelineSpec: {said}), and hooklint")
    assert doc["new"][0]["not_covered"].startswith("Not covered by the hooklint.io/ignore annotation at app/hook.yaml:8:")


RESOURCE_TEMPLATE = """\
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  name: warm
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
    hooklint.io/ignore: "HL110: checked - the warm-up Job runs our pinned cache image"
spec:
  serviceAccountName: warm
  entrypoint: main
  templates:
  - name: main
    resource:
      action: create
      manifest: |
        apiVersion: batch/v1
        kind: Job
        metadata: {{generateName: warm-}}
        spec:
          template:
            spec:
              restartPolicy: Never
              containers: [{{name: c, image: "{image}"}}]
"""


def test_a_resource_template_pod_image_changed_is_new(repo):
    """HL110 on a Workflow resource template names the images of the pods it creates: another
    image is a new finding, not covered by the annotation written for the reviewed one."""
    commit(repo, RESOURCE_TEMPLATE.format(image="registry.example.com/cache:3.1"), "base")
    commit(repo, RESOURCE_TEMPLATE.format(image="docker.io/someone/cache:latest"), "head")
    code, doc = diff_json()
    assert code == 1
    assert [(f["rule_id"], f["message"].split(", so hooklint")[0]) for f in doc["new"]] == [
        ("HL110", "The resource template at spec.templates[0] of Workflow/warm makes the workflow controller create "
                  "Job 'warm-*' of image 'docker.io/someone/cache:latest'")]  # fmt: skip


CRON = """\
apiVersion: argoproj.io/v1alpha1
kind: CronWorkflow
metadata:
  name: nightly
  annotations:
    argocd.argoproj.io/hook: PreSync
    hooklint.io/ignore: "HL110: checked - the nightly report image"
spec:
  schedule: "0 3 * * *"
  workflowSpec:
    entrypoint: report
    templates:
    - name: report
      container: {{image: "{image}"}}
"""


def test_a_cron_workflow_template_image_changed_is_new(repo):
    """HL110 on a CronWorkflow names the images its workflowSpec's templates run: another is new."""
    commit(repo, CRON.format(image="registry.example.com/report:5"), "base")
    commit(repo, CRON.format(image="docker.io/someone/report:latest"), "head")
    code, doc = diff_json()
    assert code == 1
    assert [(f["rule_id"], f["message"].split(", and hooklint")[0]) for f in doc["new"]] == [
        ("HL110", "CronWorkflow/nightly makes a Workflow on its schedule from spec.workflowSpec (template 'report' runs "
                  "image 'docker.io/someone/report:latest')")]  # fmt: skip


ANSIBLE_JOB = """\
apiVersion: tower.ansible.com/v1alpha1
kind: AnsibleJob
metadata:
  name: configure
  annotations:
    argocd.argoproj.io/hook: PreSync
    hooklint.io/ignore: "HL110: checked - the read-only inventory report"
spec:
  tower_auth_secret: awx
  job_template_name: {template}
"""


def test_an_ansible_job_template_changed_is_new(repo):
    """HL110 on an AnsibleJob names the AWX template it launches: another template is new."""
    commit(repo, ANSIBLE_JOB.format(template="inventory-report"), "base")
    commit(repo, ANSIBLE_JOB.format(template="wipe-hosts"), "head")
    code, doc = diff_json()
    assert code == 1
    assert [(f["rule_id"], f["message"].split(": its")[0]) for f in doc["new"]] == [
        ("HL110", "AnsibleJob/configure is a tower.ansible.com/AnsibleJob (job_template_name 'wipe-hosts')")]


@pytest.mark.parametrize("phase", ["PostSync", "SyncFail", "PostDelete", "PreSync,PostSync"])
def test_a_hook_moved_to_another_phase_says_the_same(repo, phase):
    """Why a finding matters follows the hook's phase (``a PreSync hook runs on every sync`` ->
    ``a SyncFail hook runs whenever a sync fails``): the same hostPath under its annotation stays
    covered: no HL105 new nor fixed (a PostDelete hook's own findings, HL210, are another matter)."""
    commit(repo, HOST_PATH.format(path="/var/lib/pkg-cache"), "base")
    commit(repo, HOST_PATH.format(path="/var/lib/pkg-cache").replace("hook: PreSync", f"hook: {phase}"), "head")
    code, doc = diff_json()
    assert [f for f in doc["new"] + doc["fixed"] + doc["suppressed"] if f["rule_id"] == "HL105"] == []
