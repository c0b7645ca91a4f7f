"""The sync plan (hooklint.plan): gitops-engine's ordering cases restated as manifests.

Each case names the upstream test it restates (``GE/sync/sync_tasks_test.go``, ``hook/*_test.go``,
``syncwaves/waves_test.go``, ``sync_context_test.go``) or the section of argocd-semantics.md, and
asserts the exact task order as ``Phase/wave/Kind/name`` (``prefix*`` for generateName hooks).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.config import Config
from hooklint.model import manifests_of
from hooklint.loader import parse_text
from hooklint.pipeline import plan_paths
from hooklint.plan import build_plan
from hooklint.reporters.plan import render


def plan_report(paths, config, format="text"):
    plans, errors = plan_paths(paths, config)
    return render(plans, format), errors


def obj(kind: str, name: str | None = None, api: str = "v1", ns: str | None = None, gen: str | None = None,
        spec: str = "", **annotations: str) -> str:
    """One manifest as YAML text; annotation keywords: hook, wave, delete, helm, weight, options."""
    keys = {"hook": "argocd.argoproj.io/hook", "wave": "argocd.argoproj.io/sync-wave",
            "delete": "argocd.argoproj.io/hook-delete-policy", "helm": "helm.sh/hook",
            "weight": "helm.sh/hook-weight"}  # fmt: skip
    lines = [f"apiVersion: {api}", f"kind: {kind}", "metadata:"]
    if name is not None:
        lines.append(f"  name: {json.dumps(name)}")
    if gen is not None:
        lines.append(f"  generateName: {gen}")
    if ns is not None:
        lines.append(f"  namespace: {ns}")
    if annotations:
        lines.append("  annotations:")
        for key, value in annotations.items():
            lines.append(f"    {keys[key]}: {json.dumps(value)}")
    return "\n".join(lines) + "\n" + spec


def crd(group: str, kind: str, **annotations: str) -> str:
    spec = f"spec:\n  group: {group}\n  names:\n    kind: {kind}\n    plural: {kind.lower()}s\n"
    return obj("CustomResourceDefinition", f"{kind.lower()}s.{group}", api="apiextensions.k8s.io/v1", spec=spec,
               **annotations)  # fmt: skip


def plan_of(*docs: str, version: tuple[int, int, int] = (3, 3, 0), destination: str | None = None):
    files = [parse_text("app.yaml", "---\n".join(docs))]
    return build_plan(manifests_of(files, version=version), version, destination)


def order(*docs: str, **kw) -> list[str]:
    return order_of(plan_of(*docs, **kw))


def order_of(plan) -> list[str]:
    out = []
    for t in plan.tasks:
        m = t.manifest
        name = m.name or (f"{m.generate_name}*" if m.generate_name else "")
        out.append(f"{t.phase}/{t.wave}/{m.kind}/{name}")
    return out


CASES = [
    pytest.param(
        # TestSortSyncTask: phase, then wave, then kind, then name; SyncFail last.
        [obj("Pod", "p"), obj("Service", "s"), obj("PersistentVolume", "pv"), obj("Pod", "fail", hook="SyncFail"),
         obj("Dummy", "w1", api="x.io/v1", wave="1"), obj("Dummy", "b", api="x.io/v1"),
         obj("Dummy", "a", api="x.io/v1"), obj("Dummy", "wm1", api="x.io/v1", wave="-1"),
         obj("Dummy", api="x.io/v1"), obj("Pod", "pre", hook="PreSync"), obj("Pod", "post", hook="PostSync"),
         obj("ConfigMap", "cm")],
        ["PreSync/0/Pod/pre", "Sync/-1/Dummy/wm1", "Sync/0/ConfigMap/cm", "Sync/0/PersistentVolume/pv",
         "Sync/0/Service/s", "Sync/0/Pod/p", "Sync/0/Dummy/", "Sync/0/Dummy/a", "Sync/0/Dummy/b",
         "Sync/1/Dummy/w1", "PostSync/0/Pod/post", "SyncFail/0/Pod/fail"],
        id="TestSortSyncTask",
    ),  # fmt: skip
    pytest.param(
        # Test_syncTasks_kindOrder: Namespace first, APIService last listed, unknown kinds after.
        [obj("MyCRD", "b", api="x.io/v1"), obj("APIService", "x", api="apiregistration.k8s.io/v1"),
         obj("Endpoints", "a"), obj("Namespace", "x"), obj("IngressClass", "x", api="networking.k8s.io/v1")],
        ["Sync/0/Namespace/x", "Sync/0/IngressClass/x", "Sync/0/APIService/x", "Sync/0/Endpoints/a",
         "Sync/0/MyCRD/b"],
        id="Test_syncTasks_kindOrder-unknown-kinds-after-known",
    ),  # fmt: skip
    pytest.param(
        # TestSyncNamespaceAgainstCRD: a Namespace sorts before a custom resource kind.
        [obj("Workflow", "wf", api="argoproj.io/v1alpha1"), obj("Namespace", "ns")],
        ["Sync/0/Namespace/ns", "Sync/0/Workflow/wf"],
        id="TestSyncNamespaceAgainstCRD",
    ),
    pytest.param(
        # §4a: only the Kind string counts; a CR called Service in another group sorts as Service.
        [obj("Deployment", "d", api="apps/v1"), obj("Service", "svc", api="foo.io/v1"), obj("Service", "a")],
        ["Sync/0/Service/a", "Sync/0/Service/svc", "Sync/0/Deployment/d"],
        id="kind-order-ignores-group",
    ),
    pytest.param(
        # §4a: names compare byte-wise, so upper case sorts before lower case.
        [obj("ConfigMap", "a"), obj("ConfigMap", "B"), obj("ConfigMap", "_c"), obj("ConfigMap", "0")],
        ["Sync/0/ConfigMap/0", "Sync/0/ConfigMap/B", "Sync/0/ConfigMap/_c", "Sync/0/ConfigMap/a"],
        id="names-byte-wise",
    ),
    pytest.param(
        # TestSyncTasksSort_NamespaceAndObjectInNamespace: [ns1, hook1, ns2, hook2].
        [obj("Job", "mySyncHookJob1", api="batch/v1", ns="myNamespace1", hook="PreSync"),
         obj("Job", "mySyncHookJob2", api="batch/v1", ns="myNamespace2", hook="PreSync"),
         obj("Namespace", "myNamespace1", wave="1"), obj("Namespace", "myNamespace2", wave="2")],
        ["PreSync/0/Namespace/myNamespace1", "PreSync/0/Job/mySyncHookJob1",
         "PreSync/0/Namespace/myNamespace2", "PreSync/0/Job/mySyncHookJob2"],
        id="TestSyncTasksSort_NamespaceAndObjectInNamespace",
    ),  # fmt: skip
    pytest.param(
        # TestSyncTasksSort_CRDAndCR: the CRD is inserted before its PreSync custom resource.
        [obj("Workflow", "wf", api="argoproj.io/v1", hook="PreSync"), crd("argoproj.io", "Workflow")],
        ["PreSync/0/CustomResourceDefinition/workflows.argoproj.io", "PreSync/0/Workflow/wf"],
        id="TestSyncTasksSort_CRDAndCR",
    ),
    pytest.param(
        # adjustDeps: the CRD goes immediately before its first CR, not to the start of the step.
        [obj("ConfigMap", "cm", wave="1"), obj("Widget", "w", api="acme.io/v1", wave="1"),
         obj("Widget", "w2", api="acme.io/v1", wave="3"), crd("acme.io", "Widget", wave="5")],
        ["Sync/1/ConfigMap/cm", "Sync/1/CustomResourceDefinition/widgets.acme.io", "Sync/1/Widget/w",
         "Sync/3/Widget/w2"],
        id="crd-inserted-immediately-before-first-dependant",
    ),  # fmt: skip
    pytest.param(
        # Both passes: the Namespace pass runs first, then the CRD pass inserts the CRD after it.
        [obj("Widget", "w", api="acme.io/v1", ns="team", hook="PreSync"), obj("Namespace", "team"),
         crd("acme.io", "Widget")],
        ["PreSync/0/Namespace/team", "PreSync/0/CustomResourceDefinition/widgets.acme.io", "PreSync/0/Widget/w"],
        id="namespace-and-crd-before-one-dependant",
    ),  # fmt: skip
    pytest.param(
        # adjustDeps only moves dependencies forward: a Namespace that already comes first stays.
        [obj("Namespace", "team", wave="-5"), obj("ConfigMap", "cm", ns="team", wave="2")],
        ["Sync/-5/Namespace/team", "Sync/2/ConfigMap/cm"],
        id="namespace-already-first-stays",
    ),
    pytest.param(
        # Only a core-group Namespace is a dependency; a same-named kind of another group is not.
        [obj("ConfigMap", "cm", ns="team", hook="PreSync"), obj("Namespace", "team", api="acme.io/v1", wave="3")],
        ["PreSync/0/ConfigMap/cm", "Sync/3/Namespace/team"],
        id="namespace-of-other-group-not-pulled",
    ),
    pytest.param(
        # TestUnnamedHooksGetUniqueNames / TestSyncDuplicatedPhases: one task per phase.
        [obj("Job", gen="seed-", api="batch/v1", hook="PreSync,PostSync"), obj("ConfigMap", "cm")],
        ["PreSync/0/Job/seed-*", "Sync/0/ConfigMap/cm", "PostSync/0/Job/seed-*"],
        id="multi-phase-hook",
    ),
    pytest.param(
        # Addendum 3: a generateName hook sorts by its prefix (plus the generated suffix).
        [obj("Job", "c", api="batch/v1", hook="PreSync"), obj("Job", gen="b-", api="batch/v1", hook="PreSync"),
         obj("Job", "a", api="batch/v1", hook="PreSync")],
        ["PreSync/0/Job/a", "PreSync/0/Job/b-*", "PreSync/0/Job/c"],
        id="generate-name-sorts-by-prefix",
    ),  # fmt: skip
    pytest.param(
        # §4c: a hook with both name and generateName keeps its name.
        [obj("Job", "zeta", gen="a-", api="batch/v1", hook="PreSync"), obj("Job", "m", api="batch/v1", hook="PreSync")],
        ["PreSync/0/Job/m", "PreSync/0/Job/zeta"],
        id="name-wins-over-generate-name",
    ),
    pytest.param(
        # TestSkip / TestSkipAndHook: Skip alone is never applied; Skip with another type runs.
        [obj("ConfigMap", "skipped", hook="Skip"), obj("ConfigMap", "both", hook="Skip,PreSync,PostSync")],
        ["PreSync/0/ConfigMap/both", "PostSync/0/ConfigMap/both"],
        id="TestSkipAndHook",
    ),
    pytest.param(
        # TestGarbageHook / TestGarbageAndHook / TestIgnore: invalid types are dropped, valid ones kept.
        [obj("Pod", "garbage", hook="Garbage"), obj("Pod", "typo", hook="Presync"), obj("Pod", "empty", hook=""),
         obj("Pod", "mixed", hook="Sync,Garbage"), obj("Pod", "spaced", hook=" PreSync ")],
        ["PreSync/0/Pod/spaced", "Sync/0/Pod/mixed"],
        id="TestGarbageAndHook",
    ),  # fmt: skip
    pytest.param(
        # Helm hooks (§3, TestBothHooks, TestSyncDuplicatedPhases, helm/type_test.go).
        [obj("Job", "pre", api="batch/v1", helm="pre-install, pre-upgrade"),
         obj("Job", "post", api="batch/v1", helm="post-upgrade"),
         obj("Pod", "test", helm="test"), obj("Pod", "rollback", helm="pre-rollback"),
         obj("CustomResourceDefinition", "crd", api="apiextensions.k8s.io/v1", helm="crd-install"),
         obj("Pod", "both", hook="Sync", helm="pre-install"), obj("Pod", "typo", hook="Presync", helm="pre-install")],
        ["PreSync/0/Pod/typo", "PreSync/0/Job/pre", "Sync/0/CustomResourceDefinition/crd", "Sync/0/Pod/both",
         "PostSync/0/Job/post"],
        id="helm-hooks",
    ),  # fmt: skip
    pytest.param(
        # TestWave / helm weight_test.go: Argo wave wins, else Helm weight (non-hooks too), else 0;
        # an invalid Argo wave falls back to the Helm weight.
        [obj("ConfigMap", "argo", wave="2", weight="-7"), obj("ConfigMap", "helm-plain", weight="-5"),
         obj("ConfigMap", "invalid-argo", wave="1.5", weight="3"), obj("ConfigMap", "spaced", wave=" 1"),
         obj("ConfigMap", "plus", wave="+4"), obj("Job", "hook", api="batch/v1", helm="pre-install", weight="-1")],
        ["PreSync/-1/Job/hook", "Sync/-5/ConfigMap/helm-plain", "Sync/0/ConfigMap/spaced",
         "Sync/2/ConfigMap/argo", "Sync/3/ConfigMap/invalid-argo", "Sync/4/ConfigMap/plus"],
        id="TestWave-helm-weights",
    ),  # fmt: skip
]


@pytest.mark.parametrize(("docs", "expected"), CASES)
def test_task_order(docs, expected):
    assert order(*docs) == expected


def test_pulled_forward_namespace_takes_phase_and_wave_and_is_noted():
    plan = plan_of(obj("Job", "hook1", api="batch/v1", ns="ns1", hook="PreSync", wave="-2"),
                   obj("Namespace", "ns1", wave="1"))  # fmt: skip
    ns = plan.tasks[0]
    assert (ns.phase, ns.wave, ns.own_phase, ns.own_wave) == ("PreSync", -2, "Sync", 1)
    assert ns.notes[0] == "pulled forward before Job/hook1 (adjustDeps): own step Sync wave 1 ignored"
    assert [(s.phase, s.wave, len(s.tasks)) for s in plan.steps] == [("PreSync", -2, 2)]


def test_no_pull_forward_before_argocd_2_0():
    docs = (obj("Job", "hook1", api="batch/v1", ns="ns1", hook="PreSync"), obj("Namespace", "ns1", wave="1"))
    assert order(*docs, version=(1, 8, 0)) == ["PreSync/0/Job/hook1", "Sync/1/Namespace/ns1"]
    assert order(*docs, version=(2, 0, 0)) == ["PreSync/0/Namespace/ns1", "PreSync/0/Job/hook1"]


def test_objects_without_namespace_live_in_the_destination_namespace():
    """Addendum 2: with the destination named, a Namespace of that name is pulled in front of the
    first namespace-less object; without it, nothing matches."""
    docs = (obj("ConfigMap", "cm", hook="PreSync"), obj("Namespace", "shop", wave="3"))
    assert order(*docs) == ["PreSync/0/ConfigMap/cm", "Sync/3/Namespace/shop"]
    assert order(*docs, destination="shop") == ["PreSync/0/Namespace/shop", "PreSync/0/ConfigMap/cm"]


def test_delete_hooks_follow_the_argocd_version():
    docs = (obj("Pod", "pre", hook="PreDelete"), obj("Pod", "post", helm="post-delete"), obj("ConfigMap", "cm"))
    reasons = {e.manifest.name: e.reason for e in plan_of(*docs).not_applied}
    assert reasons == {
        "pre": "PreDelete (Argo CD >= 3.3) hook: runs only when the Application is deleted",
        "post": "PostDelete (Argo CD >= 2.10) hook: runs only when the Application is deleted",
    }
    reasons = {e.manifest.name: e.reason for e in plan_of(*docs, version=(3, 2, 0)).not_applied}
    assert reasons["pre"] == "PreDelete hooks need Argo CD 3.3 (configured: 3.2): ignored hook, never applied"
    reasons = {e.manifest.name: e.reason for e in plan_of(*docs, version=(2, 9, 0)).not_applied}
    assert reasons["post"] == "PostDelete hooks need Argo CD 2.10 (configured: 2.9): ignored hook, never applied"


def test_a_list_with_post_delete_is_a_delete_hook_since_3_3_3():
    """controller/hook.go isHookOfType compares the whole annotation value up to v3.3.2 (and on the
    3.2 and older lines); v3.3.3 splits it on ','. A single PostDelete is one since v2.10.0."""
    doc = obj("ConfigMap", "x", hook="Skip,PostDelete")
    post_delete = ["PostDelete (Argo CD >= 2.10) hook: runs only when the Application is deleted"]
    assert [e.reason for e in plan_of(doc, version=(3, 5, 1)).not_applied] == post_delete
    assert [e.reason for e in plan_of(doc, version=(3, 3, 3)).not_applied] == post_delete
    for version in ((3, 3, 2), (3, 2, 12), (2, 9, 0)):
        assert [e.reason for e in plan_of(doc, version=version).not_applied] == ["hook type Skip: Argo CD never applies it"]
    single = obj("ConfigMap", "y", hook="PostDelete")
    assert [e.reason for e in plan_of(single, version=(2, 10, 0)).not_applied] == post_delete


def test_not_applied_reasons():
    plan = plan_of(obj("ConfigMap", "skip", hook="Skip"), obj("Pod", "typo", hook="Presync"),
                   obj("Pod", "empty", hook=""), obj("Pod", "test", helm="test-success"),
                   obj("Kustomization", api="kustomize.config.k8s.io/v1beta1"))  # fmt: skip
    assert [(e.manifest.kind, e.reason) for e in plan.not_applied] == [
        ("ConfigMap", "hook type Skip: Argo CD never applies it"),
        ("Pod", "argocd.argoproj.io/hook 'Presync' has no valid hook type: ignored hook, never applied"),
        ("Pod", "empty argocd.argoproj.io/hook: ignored hook, never applied"),
        ("Pod", "Helm hook 'test-success': Argo CD never runs Helm test or rollback hooks"),
        ("Kustomization", "kustomize configuration (Kustomization): Argo CD builds the folder with it; this plan "
                          "lists the folder's files as written"),
    ]  # fmt: skip


def test_task_notes():
    plan = plan_of(obj("Job", gen="seed-", api="batch/v1", hook="PreSync,PostSync"),
                   obj("ConfigMap", "bad-wave", wave="abc"), obj("ConfigMap", "helm-weight", weight="2"),
                   obj("Pod", "fail", hook="SyncFail"))  # fmt: skip
    notes = {(t.phase, t.manifest.name or t.manifest.generate_name): t.notes for t in plan.tasks}
    assert notes[("PreSync", "seed-")] == [
        "named seed-<rev7>-presync-<unix-time> at sync", "hook runs in PreSync and PostSync: one task per phase"]
    assert notes[("PostSync", "seed-")][0] == "named seed-<rev7>-postsync-<unix-time> at sync"
    assert notes[("Sync", "bad-wave")] == ["sync-wave 'abc' is not an integer: falls back to default wave 0"]
    assert notes[("Sync", "helm-weight")] == ["wave 2 from helm.sh/hook-weight"]
    assert notes[("SyncFail", "fail")] == [
        "runs only when the sync fails; SyncFail hooks start together, waves ignored"]  # fmt: skip


def test_steps_group_consecutive_phase_and_wave():
    plan = plan_of(obj("ConfigMap", "a"), obj("Secret", "b"), obj("ConfigMap", "c", wave="1"),
                   obj("Pod", "h", hook="PostSync"), obj("Pod", "f", hook="SyncFail", wave="3"))  # fmt: skip
    assert [(s.index, s.phase, s.wave, [t.manifest.name for t in s.tasks]) for s in plan.steps] == [
        (1, "Sync", 0, ["b", "a"]), (2, "Sync", 1, ["c"]), (3, "PostSync", 0, ["h"]), (4, "SyncFail", 3, ["f"])]
    assert [s.index for s in plan.gated_steps] == [1, 2, 3]


def test_plan_is_linear_enough_for_5000_objects():
    import time

    docs = []
    for i in range(1000):
        docs.append(obj("Namespace", f"ns{i}", wave=str(i % 7)))
        docs.append(obj("Job", f"job{i}", api="batch/v1", ns=f"ns{i}", hook="PreSync"))
        docs.append(obj("ConfigMap", f"cm{i}", ns=f"ns{i}", wave=str(-(i % 5))))
        docs.append(obj("Widget", f"w{i}", api="acme.io/v1", ns=f"ns{i}"))
        docs.append(crd("acme.io", f"Kind{i}", wave="9"))
    files = [parse_text("big.yaml", "---\n".join(docs))]
    manifests = manifests_of(files)
    start = time.perf_counter()
    plan = build_plan(manifests)
    elapsed = time.perf_counter() - start
    assert len(plan.tasks) == 5000
    assert elapsed < 1.0
    # every Namespace sits right before its PreSync Job
    names = [t.manifest.name for t in plan.tasks[:4]]
    assert names == ["ns0", "job0", "ns1", "job1"]


# --- report shapes ---------------------------------------------------------------------------

APP = obj("ServiceAccount", "migrator") + "---\n" + obj(
    "Job", "db-migrate", api="batch/v1", hook="PreSync", delete="HookSucceeded",
    spec="spec:\n  template:\n    spec:\n      serviceAccountName: migrator\n      restartPolicy: Never\n",
) + "---\n" + obj("ConfigMap", "skipped", hook="Skip")  # fmt: skip


@pytest.fixture
def app_dir(tmp_path, monkeypatch):
    (tmp_path / ".hooklint.yaml").write_text("argocd-version: '3.3'\n")
    folder = tmp_path / "app"
    folder.mkdir()
    (folder / "all.yaml").write_text(APP)
    monkeypatch.chdir(tmp_path)
    return folder


def test_json_shape(app_dir):
    text, errors = plan_report([str(app_dir)], Config(), "json")
    assert errors == []
    data = json.loads(text)
    assert list(data) == ["applications"]
    (application,) = data["applications"]
    assert list(application) == ["application", "source", "rendered", "rendered_reasons", "steps", "not_applied"]
    assert (application["rendered"], application["rendered_reasons"]) == ("full", [])
    assert application["source"] == {"type": "directory", "renderer": None, "application": None, "generated_by": None}
    assert application["application"] == str(app_dir)
    assert [(s["phase"], s["wave"]) for s in application["steps"]] == [("PreSync", 0), ("Sync", 0)]
    job = application["steps"][0]["tasks"][0]
    assert job == {
        "api_version": "batch/v1", "kind": "Job", "namespace": None, "name": "db-migrate", "generate_name": None,
        "hook_types": ["PreSync"], "delete_policies": ["HookSucceeded"], "path": str(app_dir / "all.yaml"),
        "line": 6, "notes": [],
    }  # fmt: skip
    sa = application["steps"][1]["tasks"][0]
    assert (sa["kind"], sa["hook_types"], sa["delete_policies"], sa["line"]) == ("ServiceAccount", [], [], 1)
    (skipped,) = application["not_applied"]
    assert skipped["name"] == "skipped"
    assert skipped["reason"] == "hook type Skip: Argo CD never applies it"
    assert skipped["hook_types"] == ["Skip"]


def test_text_report(app_dir):
    text, errors = plan_report([str(app_dir)], Config(), "text")
    assert errors == []
    lines = text.splitlines()
    assert lines[0] == f"Application {app_dir}: 3 objects, 2 steps (Argo CD 3.5.1, directory source)"
    assert lines[1].split() == ["STEP", "PHASE", "WAVE", "KIND", "NAMESPACE/NAME", "HOOK", "DELETE", "POLICY", "NOTES"]
    assert lines[2].split() == ["1", "PreSync", "0", "Job", "db-migrate", "PreSync", "HookSucceeded"]
    assert lines[3].split() == ["2", "Sync", "0", "ServiceAccount", "migrator", "-", "-"]
    assert lines[4] == "  Not applied during a sync:"
    assert lines[6].split()[:2] == ["ConfigMap", "skipped"]


runner = CliRunner()


def test_cli_plan_text_and_json(app_dir):
    result = runner.invoke(app, ["plan", str(app_dir)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"Application {app_dir}: 3 objects, 2 steps (Argo CD 3.3.14, directory source)\n")
    result = runner.invoke(app, ["plan", "--format", "json", str(app_dir)])
    assert result.exit_code == 0
    assert json.loads(result.output)["applications"][0]["steps"][0]["tasks"][0]["name"] == "db-migrate"


def test_cli_plan_follows_configured_version(app_dir, tmp_path):
    (app_dir / "delete.yaml").write_text(obj("Pod", "cleanup", hook="PreDelete"))
    (tmp_path / ".hooklint.yaml").write_text("argocd-version: '3.2'\n")
    result = runner.invoke(app, ["plan", "-f", "json", str(app_dir)])
    reasons = [e["reason"] for e in json.loads(result.output)["applications"][0]["not_applied"]]
    assert "PreDelete hooks need Argo CD 3.3 (configured: 3.2.12): ignored hook, never applied" in reasons


def test_cli_plan_missing_path_exits_2(app_dir):
    result = runner.invoke(app, ["plan", str(app_dir), "does-not-exist"])
    assert result.exit_code == 2
    assert "does-not-exist: no such file or directory" in result.output
    assert f"Application {app_dir}" in result.output


def test_cli_plan_stdin():
    result = runner.invoke(app, ["plan", "-"], input=APP)
    assert result.exit_code == 0
    assert result.output.splitlines()[0] == "Application -: 3 objects, 2 steps (Argo CD 3.5.1, directory source)"


def test_plan_of_corpus_sample_has_no_traceback():
    corpus = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "public"
    if not corpus.is_dir():
        pytest.skip("corpus not available")
    text, errors = plan_report([str(corpus)], Config(), "json")
    assert json.loads(text)["applications"]


def test_repeated_objects_are_planned_once_as_the_last_copy():
    """``AC controller/state.go`` ``DeduplicateTargetObjects`` keeps the last copy of a repeated
    (group, kind, namespace, name) object; the plan lists the others as not applied (HL019).
    Different groups, namespaces or generateName objects are not repeats."""
    plan = plan_of(obj("ConfigMap", "cfg", wave="1"), obj("ConfigMap", "cfg", ns="web"),
                   obj("Pod", gen="smoke-", hook="PostSync"), obj("Pod", gen="smoke-", hook="PostSync"),
                   obj("Deployment", "cfg", api="apps/v1"), obj("ConfigMap", "cfg", wave="2"))  # fmt: skip
    assert order_of(plan) == ["Sync/0/ConfigMap/cfg", "Sync/0/Deployment/cfg", "Sync/2/ConfigMap/cfg",
                              "PostSync/0/Pod/smoke-*", "PostSync/0/Pod/smoke-*"]  # fmt: skip
    assert [(e.manifest.line, e.reason) for e in plan.not_applied] == [
        (1, "repeated object: Argo CD keeps only the last copy, at app.yaml:36 (HL019)")]


def test_child_application_note_is_not_put_on_the_last_step():
    """§5a: no built-in Application health, so the step after a child Application does not wait
    for it; the last step has no step after it (HL307)."""
    plan = plan_of(obj("Application", "platform", api="argoproj.io/v1alpha1", wave="-1"),
                   obj("Application", "shop", api="argoproj.io/v1alpha1", wave="1"))  # fmt: skip
    notes = {t.manifest.name: t.notes for t in plan.tasks}
    assert notes == {
        "platform": ["child Application: no built-in health check, so the next step does not wait for it unless "
                     "the argoproj.io_Application health override is configured"],
        "shop": [],
    }  # fmt: skip


def test_a_reported_plan_keeps_every_task_and_its_sharing_without_the_parsed_objects():
    """What reports of a plan read (issue 20, one pass): a copy of the plan whose objects keep
    what they are and where they are reported, and no parsed body, so that it crosses from a
    worker process in kilobytes."""
    plan = plan_of(obj("Job", "hook1", api="batch/v1", ns="ns1", hook="PreSync", wave="-2"),
                   obj("Namespace", "ns1", wave="1"), obj("ConfigMap", "skipped", hook="Skip"))  # fmt: skip
    copy = plan.reported()
    assert [(t.manifest.label, t.phase, t.wave, t.notes) for t in copy.tasks] == \
        [(t.manifest.label, t.phase, t.wave, t.notes) for t in plan.tasks]  # fmt: skip
    assert [(m.manifest.label, m.reason) for m in copy.not_applied] == [("ConfigMap/skipped", "hook type Skip: Argo CD never applies it")]
    job = copy.tasks[1].manifest
    assert (job.display_path, job.line, dict(job.body), job.metadata, job.pod_spec()) == ("app.yaml", 1, {}, None, None)
    assert copy.tasks[0].pulled_before is copy.tasks[1]  # one copy of each task and object
    assert copy.steps[0].tasks[1] is copy.tasks[1]
    assert copy.tasks_of(job) == [copy.tasks[1]] and copy.tasks_of(plan.tasks[1].manifest) == []
    assert copy.not_applied_reason(copy.not_applied[0].manifest) == "hook type Skip: Argo CD never applies it"
    assert plan.tasks[1].manifest.body["kind"] == "Job"  # the plan itself is unchanged


def test_the_plans_of_a_run_cross_from_worker_processes(tmp_path, monkeypatch):
    """A rendered object's placement holds the parsed objects and, for a Helm template, a locator
    (a closure, which pickle refuses): a plan made in a worker (``lint -f markdown -j 2``) is sent
    back without them, and the report is the one a single process writes."""
    import pickle

    from hooklint import pipeline
    from hooklint.catalog import load_catalog
    from hooklint.review.markdown import render_tree

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(pipeline, "PARALLEL_MIN_FILES", 1)
    job = obj("Job", "migrate", api="batch/v1", hook="PreSync")
    (tmp_path / "kust").mkdir()
    (tmp_path / "kust" / "kustomization.yaml").write_text("resources:\n- job.yaml\n")
    (tmp_path / "kust" / "job.yaml").write_text(job)
    (tmp_path / "chart" / "templates").mkdir(parents=True)
    (tmp_path / "chart" / "Chart.yaml").write_text("apiVersion: v2\nname: shop\nversion: 1.0.0\n")
    (tmp_path / "chart" / "templates" / "job.yaml").write_text(job)
    one = pipeline.lint_paths(["chart", "kust"], Config(), load_catalog(), jobs=1, plans=True)
    two = pipeline.lint_paths(["chart", "kust"], Config(), load_catalog(), jobs=2, plans=True)
    assert [(p.key, p.source_type) for p in two.plans] == [("chart", "helm"), ("kust", "kustomize")]
    assert [(t.manifest.label, t.manifest.display_path, t.manifest.line) for p in two.plans for t in p.plan.tasks] == \
        [("Job/migrate", "chart/templates/job.yaml", 1), ("Job/migrate", "kust/job.yaml", 1)]  # fmt: skip
    assert render_tree(two, two.plans) == render_tree(one, one.plans)
    assert [f.rule_id for f in two.plans[1].findings] == [f.rule_id for f in one.plans[1].findings] != []
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):  # why the copies exist
        pickle.dumps(pipeline.build(pipeline.load_application(
            pipeline.group_applications(["chart"], [], config=Config())[0], Config()), Config())[1])


def test_a_folder_applied_only_through_another_application_has_no_plan_of_its_own(tmp_path, monkeypatch):
    """Its patches are in the plan of the kustomization that reads them; the lint's plans (what the
    markdown report and diff draw) and ``hooklint plan`` agree on which applications have one."""
    from hooklint.catalog import load_catalog
    from hooklint.pipeline import lint_paths

    monkeypatch.chdir(tmp_path)
    (tmp_path / "app" / "patches").mkdir(parents=True)
    (tmp_path / "app" / "kustomization.yaml").write_text("resources:\n- job.yaml\npatches:\n- path: patches/wave.yaml\n")
    (tmp_path / "app" / "job.yaml").write_text(obj("Job", "migrate", api="batch/v1", hook="PreSync"))
    (tmp_path / "app" / "patches" / "wave.yaml").write_text(obj("Job", "migrate", api="batch/v1", wave="2"))
    result = lint_paths(["app"], Config(), load_catalog(), plans=True)
    assert [p.key for p in result.plans] == [p.key for p in plan_paths(["app"], Config())[0]] == ["app"]
    assert [(t.manifest.label, t.wave) for t in result.plans[0].plan.tasks] == [("Job/migrate", 2)]
