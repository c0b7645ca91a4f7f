"""Issue 36 (round four), the rule parts: the four mutants the mutation run left alive in HL202,
HL304, HL206 and HL305 (each test fails on its mutant), and the widened HL105/HL206, HL208, HL209
and HL308 beyond what their rule files' examples show."""

from __future__ import annotations

from conftest import hits

HOOK = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  namespace: shop
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/sync-wave: "{wave}"
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 300
  template:
    spec:
      serviceAccountName: migrate
      automountServiceAccountToken: false
      restartPolicy: Never
      containers:
      - name: migrate
        image: ghcr.io/acme/migrate:1.4.2
"""


# --- the four survivors -----------------------------------------------------------------------


def test_hl202_reads_the_pod_templates_active_deadline():
    """A hook Job whose pod template (not the Job's spec) sets activeDeadlineSeconds is bounded:
    no HL202 (mutant: the pod template's key ignored)."""
    text = HOOK.format(name="migrate", wave=0).replace("  activeDeadlineSeconds: 300\n", "").replace(
        "      restartPolicy: Never\n", "      restartPolicy: Never\n      activeDeadlineSeconds: 300\n")
    assert "activeDeadlineSeconds" in text
    assert hits("HL202", text) == []
    without = text.replace("      activeDeadlineSeconds: 300\n", "")
    assert [(line, column) for line, column, _ in hits("HL202", without)] == [(9, 1)]


def test_hl304_names_the_step_after_max_waves():
    """Four steps over max-waves 2: the finding names step 3 (max-waves + 1), the first step
    over the limit, not the last one (mutant: ``gated[-1]``)."""
    text = "---\n".join(HOOK.format(name=f"step{w}", wave=w) for w in range(4))
    assert hits("HL304", text, {"max-waves": 2}) == [(
        48, 35,
        "The sync plan has 4 health-gated (phase, wave) steps, more than max-waves (2); step 3 "
        "(PreSync wave 2) starts with Job/step2. Each step waits for every object of the previous one "
        "to be healthy plus ARGOCD_SYNC_WAVE_DELAY (2 s by default), so every sync pays for each one. "
        "Merge waves that do not depend on each other.",
    )]  # fmt: skip


BASELINE_NAMESPACE = """\
apiVersion: v1
kind: Namespace
metadata:
  name: shop
  labels:
    pod-security.kubernetes.io/enforce: baseline
"""


def test_hl206_pod_security_reads_host_ipc():
    """hostIPC alone breaks the baseline level's Host Namespaces control (mutant: hostIPC left out
    of the host-namespace keys)."""
    text = HOOK.format(name="migrate", wave=0).replace(
        "      restartPolicy: Never\n", "      restartPolicy: Never\n      hostIPC: true\n")
    found = hits("HL206", text, context=BASELINE_NAMESPACE)
    assert [(line, column) for line, column, _ in found] == [(17, 16)]
    assert "violates Host Namespaces (hostIPC=true)" in found[0][2]


def test_hl305_counts_a_skip_object_as_no_plain_resource():
    """Hooks and a Skip object: nothing counts toward sync status, so HL305 still reports
    (mutant: a Skip object taken for a plain resource)."""
    skipped = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: manual
  annotations:
    argocd.argoproj.io/hook: Skip
"""
    text = HOOK.format(name="migrate", wave=0)
    assert [(line, column) for line, column, _ in hits("HL305", text, context=skipped)] == [(7, 30)]
    plain = skipped.replace("  annotations:\n    argocd.argoproj.io/hook: Skip\n", "")
    assert hits("HL305", text, context=plain) == []


# --- new rules: what their examples cannot assert -----------------------------------------------


def _severities(rule_id: str, text: str, config: dict | None = None, context: str | None = None) -> list[str]:
    from hooklint.config import parse_config
    from hooklint.pipeline import lint_text

    return [f.severity for f in lint_text(text, config=parse_config(config or {}, "test"), context=context)
            if f.rule_id == rule_id]


WEIGHTED_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    helm.sh/hook-weight: "{weight}"
spec:
  selector:
    matchLabels: {{app: web}}
  template:
    metadata:
      labels: {{app: web}}
    spec:
      containers:
      - name: web
        image: ghcr.io/acme/web:2.3.1
        envFrom:
        - configMapRef:
            name: web-settings
"""
SETTINGS = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-settings\n"


def test_hl024_is_a_note_until_the_wave_moves_the_object_before_what_it_uses():
    assert _severities("HL024", WEIGHTED_DEPLOYMENT.format(weight=5), context=SETTINGS) == ["note"]
    assert _severities("HL024", WEIGHTED_DEPLOYMENT.format(weight=-1), context=SETTINGS) == ["warning"]
    # the ConfigMap's weight puts it after the Deployment that reads it
    weighted_settings = SETTINGS + "  annotations:\n    helm.sh/hook-weight: \"3\"\n"
    found = hits("HL024", WEIGHTED_DEPLOYMENT.format(weight=0), context=weighted_settings)
    assert found == []  # reported on the ConfigMap, which is context here
    found = hits("HL024", weighted_settings, context=WEIGHTED_DEPLOYMENT.format(weight=0))
    assert [(line, column) for line, column, _ in found] == [(6, 26)]
    assert "It now comes after Deployment/web (Sync wave 0), which uses it (HL301)." in found[0][2]
    assert _severities("HL024", weighted_settings, context=WEIGHTED_DEPLOYMENT.format(weight=0)) == ["warning"]
    # a configured severity still wins over the hit's own
    assert _severities("HL024", WEIGHTED_DEPLOYMENT.format(weight=5), {"severity": {"HL024": "error"}},
                       SETTINGS) == ["error"]  # fmt: skip


BITNAMI_HOOK = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: label-nodes
  annotations:
    argocd.argoproj.io/hook: PostSync
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 300
  template:
    spec:
      serviceAccountName: label-nodes
      restartPolicy: Never
      containers:
      - name: kubectl
        image: {image}
"""


def test_hl109_built_in_list_and_denied_images_globs():
    def at(image: str, config: dict | None = None) -> list[tuple[int, int]]:
        return [(line, column) for line, column, _ in hits("HL109", BITNAMI_HOOK.format(image=image), config)]

    assert at("docker.io/bitnami/kubectl:1.31.2") == [(16, 16)]
    assert at("index.docker.io/bitnami/os-shell@sha256:" + "a" * 64) == [(16, 16)]
    assert at("bitnami/kubectl:latest") == []  # the hardened `latest` images stay (HL102's)
    assert at("bitnami/kubectl") == []
    assert at("bitnami/minideb:bookworm") == []
    assert at("docker.io/bitnamilegacy/kubectl:1.31.2") == []
    assert at("ghcr.io/bitnami/kubectl:1.31.2") == []
    # globs see the normalized repository, and the reference with its tag
    assert at("nginx:1.19.0", {"denied-images": ["docker.io/library/nginx"]}) == [(16, 16)]
    assert at("nginx:1.19.0", {"denied-images": ["docker.io/library/nginx:1.19.*"]}) == [(16, 16)]
    assert at("nginx:1.20.0", {"denied-images": ["docker.io/library/nginx:1.19.*"]}) == []
    assert at("nginx:1.19.0", {"denied-images": ["nginx*"]}) == []  # not normalized: matches nothing
    found = hits("HL109", BITNAMI_HOOK.format(image="quay.io/Acme/tool:1"), {"denied-images": ["quay.io/acme/*"]})
    assert found == []  # case-sensitive, as repository paths are


def test_hl109_denied_images_is_read_from_the_configuration():
    import pytest

    from hooklint.config import ConfigError, parse_config

    assert parse_config({"denied-images": [" quay.io/x/* "]}, "test").denied_images == ["quay.io/x/*"]
    with pytest.raises(ConfigError):
        parse_config({"denied-images": "quay.io/x/*"}, "test")


# --- widened rules ------------------------------------------------------------------------------


def test_hl105_and_hl206_read_one_capabilities_table():
    """HL105 and HL206's Pod Security check agree on every added capability (issue 36: CAP_CHOWN
    got HL206 but no HL105): both read :data:`hooklint.model.BASELINE_CAPABILITIES` exactly."""
    baseline = {"CHOWN", "NET_BIND_SERVICE"}
    for cap in ("CHOWN", "CAP_CHOWN", "chown", "NET_ADMIN", "SYS_ADMIN", "ALL", "NET_BIND_SERVICE"):
        text = HOOK.format(name="migrate", wave=0).replace(
            "        image: ghcr.io/acme/migrate:1.4.2\n",
            f"        image: ghcr.io/acme/migrate:1.4.2\n        securityContext:\n          capabilities:\n"
            f"            add: [{cap}]\n")
        hl105 = hits("HL105", text)
        hl206 = [h for h in hits("HL206", text, context=BASELINE_NAMESPACE) if "Capabilities" in h[2]]
        assert (bool(hl105), bool(hl206)) == (cap not in baseline, cap not in baseline), cap
    from hooklint.checks import lifecycle, security
    from hooklint.model import BASELINE_CAPABILITIES

    assert baseline < BASELINE_CAPABILITIES
    assert not hasattr(lifecycle, "PSS_BASELINE_CAPABILITIES")
    assert security.BASELINE_CAPABILITIES is lifecycle.BASELINE_CAPABILITIES is BASELINE_CAPABILITIES


def test_hl308_note_for_an_unproven_dependency_and_warning_for_a_proven_one():
    """A custom resource without health followed by a later step in its namespace: a note when no
    reference proves the dependency, the rule's warning when one does (and then no note)."""
    redis = """\
apiVersion: redis.redis.opstreelabs.in/v1beta2
kind: Redis
metadata:
  name: cart-cache
  annotations:
    argocd.argoproj.io/sync-wave: "-1"
spec:
  kubernetesConfig:
    redisSecret:
      name: cart-cache-auth
"""
    job = HOOK.format(name="smoke", wave=0).replace("  namespace: shop\n", "").replace("PreSync", "PostSync")
    assert _severities("HL308", redis, context=job) == ["note"]
    reads = job.replace("        image: ghcr.io/acme/migrate:1.4.2\n",
                        "        image: ghcr.io/acme/migrate:1.4.2\n        envFrom:\n        - secretRef:\n"
                        "            name: cart-cache-auth\n")  # fmt: skip
    assert _severities("HL308", redis + "---\n" + reads) == ["warning"]
    other_namespace = redis.replace("  name: cart-cache\n", "  name: cart-cache\n  namespace: cache\n")
    assert _severities("HL308", other_namespace, context=job) == []
    assert _severities("HL308", redis.replace('"-1"', '"0"'), context=job.replace("PostSync", "Sync")) == []


def test_hl209_run_to_completion_custom_resources_stay_out():
    for api, kind in (("argoproj.io/v1alpha1", "Workflow"), ("tekton.dev/v1", "PipelineRun"), ("tekton.dev/v1", "TaskRun"),
                      ("tower.ansible.com/v1alpha1", "AnsibleJob"), ("argoproj.io/v1alpha1", "AnalysisRun")):
        text = f"apiVersion: {api}\nkind: {kind}\nmetadata:\n  generateName: run-\n  annotations:\n    argocd.argoproj.io/hook: PreSync\n"
        assert hits("HL209", text) == [], kind
    text = "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata:\n  name: edge\n  annotations:\n    argocd.argoproj.io/hook: PreSync\n"
    assert [(line, column) for line, column, _ in hits("HL209", text)] == [(6, 30)]


PLAIN_JOB = """\
---
# Source: shop/templates/migrate.yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
spec:
  backoffLimit: 1
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: migrate
        image: ghcr.io/acme/migrate:1.4.2
"""


def _helm_output_hits(text: str) -> list[tuple[int, int, str]]:
    """HL208 on ``helm template`` output piped to stdin (its ``# Source:`` comments are read)."""
    from hooklint.pipeline import lint_text

    return [(f.span.line, f.span.column, f.message) for f in lint_text(text, path="-") if f.rule_id == "HL208"]


def test_hl208_quiet_on_a_rendered_name_that_hashes_its_inputs():
    for name in ("shop-migrate-3f9a2b7c", "shop-migrate-3f9a2b7c1d0e", "shop-migrate-2901786331", "shop-migrate-5d8f7c9b2k"):
        assert _helm_output_hits(PLAIN_JOB.format(name=name)) == [], name
    # written by hand, a hash-like suffix is as fixed as any name
    written = PLAIN_JOB.format(name="shop-migrate-3f9a2b7c").replace("# Source: shop/templates/migrate.yaml\n", "")
    assert [(line, column) for line, column, _ in hits("HL208", written)] == [(5, 9)]


def test_hl208_says_when_a_rendered_name_changes():
    tail = ("template fails the sync with \"field is immutable\", and a finished Job is never run again. Make it a "
            "hook (with BeforeHookCreation or generateName) or a CronJob.")
    assert _helm_output_hits(PLAIN_JOB.format(name="shop-migrate-1.4.2")) == [(
        4, 9, "Job/shop-migrate-1.4.2 is a plain resource (not a hook) with a name that changes only when the tag of "
        f"image 'ghcr.io/acme/migrate:1.4.2' does: any other change to its pod {tail}",
    )]  # fmt: skip
    assert _helm_output_hits(PLAIN_JOB.format(name="shop-migrate")) == [(
        4, 9, "Job/shop-migrate is a plain resource (not a hook) with a rendered name, which changes only when what "
        f"it is made of changes: any other change to its pod {tail}",
    )]  # fmt: skip


def test_hl208_says_nothing_of_never_running_again_beside_a_ttl_that_runs_it_again():
    """New-user trial 28: a plain Job with ttlSecondsAfterFinished got HL208 "a finished Job is never
    run again" and HL204 "a sync runs it again": with the TTL, Kubernetes deletes it and the next
    sync creates it (HL204 is right)."""
    text = PLAIN_JOB.format(name="migrate").replace("  backoffLimit: 1\n", "  backoffLimit: 1\n  ttlSecondsAfterFinished: 60\n")
    assert hits("HL208", text) == [(6, 9, "Job/migrate is a plain resource (not a hook) with a fixed name: any change to "
                                          "its pod template fails the sync with \"field is immutable\". Make it a hook "
                                          "(with BeforeHookCreation or generateName) or a CronJob.")]  # fmt: skip
    assert [message.split(":")[0] for _, _, message in hits("HL204", text)] == [
        "Job/migrate is not a hook but sets spec.ttlSecondsAfterFinished"]


def test_hl208_kustomize_name_suffix(tmp_path):
    """A kustomize build: a hash-like suffix the kustomization adds is quiet; any other suffix
    gets the rendered-name message, at the kustomization (needs kubectl or kustomize)."""
    import shutil

    import pytest

    from hooklint.catalog import load_catalog
    from hooklint.config import Config
    from hooklint.pipeline import lint_paths

    if shutil.which("kustomize") is None and shutil.which("kubectl") is None:
        pytest.skip("no kustomize")
    app = tmp_path / "app"
    app.mkdir()
    (app / "job.yaml").write_text(PLAIN_JOB.format(name="migrate").split("# Source: shop/templates/migrate.yaml\n")[1])
    for suffix, expected in (("-3f9a2b7c", []), ("-v2", ["rendered name"])):
        (app / "kustomization.yaml").write_text(f"resources: [job.yaml]\nnameSuffix: {suffix}\n")
        found = [f for f in lint_paths([str(app)], Config(), load_catalog()).findings if f.rule_id == "HL208"]
        assert ["rendered name" for f in found if "with a rendered name" in f.message] == expected, suffix


def test_hl109_on_a_plain_workload_with_workload_scope_all():
    deployment = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: cache
spec:
  template:
    spec:
      containers:
      - name: redis
        image: docker.io/bitnami/redis:7.2.4
"""
    assert hits("HL109", deployment) == []
    assert hits("HL109", deployment, {"workload-scope": "all"}) == [(
        10, 16, "Image 'docker.io/bitnami/redis:7.2.4' of container 'redis' of Deployment/cache comes from a "
        "repository that is gone: Bitnami moved every versioned image of docker.io/bitnami to docker.io/bitnamilegacy "
        "in 2025 (bitnami/containers #83267). The pull fails, the pods of Deployment/cache never start. Use an image "
        "from a maintained repository (a mirror you control, or the project's own image).",
    )]  # fmt: skip


# --- every finding's field path names the field it points at -------------------------------------


def _field_path_params() -> list:
    import pytest

    from hooklint.catalog import load_catalog, load_examples
    from hooklint.checks import load_all

    out = []
    file_rules = {rule_id for rule_id, checks in load_all().items() if any(c.scope == "file" for c in checks)}
    for rule in load_catalog().sorted():
        if rule.id in file_rules:  # a file check's tagged or broken documents have no object to point into
            continue
        for example in load_examples(rule).get("bad", []):
            if "files" not in example and "path" not in example:
                out.append(pytest.param(rule.id, example, id=f"{rule.id}-{example['name']}"))
    return out


def _field_path_fits(field_path: str, at: str | None, missing: bool) -> bool:
    """Whether a finding's ``field_path`` names the node at its span (``at``), one inside it, or a
    ``missing`` field (a key the finding says to add) below it or below its parent."""
    if at is None:
        return False
    if at == field_path or at.startswith((field_path + ".", field_path + "[")) or field_path.startswith((at + ".", at + "[")):
        return True
    parent = at.rsplit(".", 1)[0] if "." in at else ""
    return missing and bool(parent) and field_path.startswith((parent + ".", parent + "["))


import pytest  # noqa: E402


@pytest.mark.parametrize(("rule_id", "example"), _field_path_params())
def test_a_findings_field_path_names_what_it_points_at(rule_id, example):
    """The dotted field path of every finding of every bad example (the one reporters, fixes and
    placement in rendered sources read) is the field at the finding's position, inside it, or a
    field missing below it: a check cannot say one field and point at another."""
    from hooklint.config import parse_config
    from hooklint.loader import parse_text
    from hooklint.pipeline import lint_text
    from hooklint.sources.render.placement import path_at, resolve

    docs = {d.index: d.value for d in parse_text("manifest.yaml", example["manifest"]).documents}
    findings = [f for f in lint_text(example["manifest"], parse_config(example.get("config") or {}, "x"),
                                     context=example.get("context")) if f.rule_id == rule_id]  # fmt: skip
    for f in findings:
        if rule_id in ("HL003", "HL902"):  # about a whole object, or a suppression comment
            continue
        assert f.field_path, f.message
        body = docs.get(f.doc_index)
        if body is None or f.obj is None:
            continue
        at = path_at(body, f.span)
        assert _field_path_fits(f.field_path, at, not resolve(body, f.field_path)), (f.field_path, at, f.message)


# --- HL202, HL304 and HL305: what the mutation run showed untested ---------------------------------


def test_hl202_messages_for_sync_and_delete_hooks():
    job = HOOK.format(name="migrate", wave=0).replace("  activeDeadlineSeconds: 300\n", "")
    both = hits("HL202", job.replace("hook: PreSync", "hook: PreSync,PostDelete"))
    assert both == [(9, 1, "Job/migrate has no spec.activeDeadlineSeconds: a hook that hangs keeps Argo CD \"waiting "
                    "for completion of hook\" and wedges every sync until someone terminates it, and blocks deleting "
                    "the Application until someone deletes the hook. Set spec.activeDeadlineSeconds.")]  # fmt: skip
    only_delete = hits("HL202", job.replace("hook: PreSync", "hook: PostDelete"))
    assert only_delete == [(9, 1, "Job/migrate has no spec.activeDeadlineSeconds: a hook that hangs blocks deleting "
                           "the Application (Argo CD waits for every delete hook before it goes on) until someone "
                           "deletes the hook. Set spec.activeDeadlineSeconds.")]  # fmt: skip


def test_hl304_counts_exactly_max_waves_as_enough():
    text = "---\n".join(HOOK.format(name=f"step{w}", wave=w) for w in range(3))
    assert hits("HL304", text, {"max-waves": 3}) == []
    assert len(hits("HL304", text, {"max-waves": 2})) == 1


CHILD_APP = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: child{n}
  annotations:
    argocd.argoproj.io/sync-wave: "{n}"
spec:
  project: apps
"""


def test_hl304_says_how_many_application_steps_it_left_out():
    hooks = "---\n".join(HOOK.format(name=f"step{w}", wave=w) for w in range(3))
    one = hits("HL304", hooks + "---\n" + CHILD_APP.format(n=5), {"max-waves": 2})
    assert "(1 more step holding only child Applications is not counted:" in one[0][2]
    two = hits("HL304", hooks + "---\n" + CHILD_APP.format(n=5) + "---\n" + CHILD_APP.format(n=6), {"max-waves": 2})
    assert "(2 more steps holding only child Applications are not counted:" in two[0][2]


def test_hl304_points_at_a_helm_weight():
    weighted = HOOK.format(name="w", wave=0).replace('    argocd.argoproj.io/sync-wave: "0"\n', "").replace(
        "argocd.argoproj.io/hook: PreSync", 'helm.sh/hook: pre-install\n    helm.sh/hook-weight: "7"')
    text = "---\n".join(HOOK.format(name=f"step{w}", wave=w) for w in range(2)) + "---\n" + weighted
    assert [(line, column) for line, column, _ in hits("HL304", text, {"max-waves": 2})] == [(48, 26)]


def test_hl305_counts_every_hook_after_a_document_without_kind():
    text = "foo: bar\n---\n" + HOOK.format(name="a", wave=0) + "---\n" + HOOK.format(name="b", wave=1)
    found = hits("HL305", text)
    assert len(found) == 1 and found[0][2].startswith("Every object of this application is a hook (2 hooks run during")
    one = hits("HL305", HOOK.format(name="a", wave=0))
    assert one[0][2].startswith("Every object of this application is a hook (1 hook run during")


# --- new rules: branches their examples leave open ------------------------------------------------

ROLE = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: migrate
  namespace: shop
  annotations:
    argocd.argoproj.io/hook: PreSync
rules:
- apiGroups: [""]
  verbs: [create]
"""
BINDING = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: {kind}
metadata:
  name: {name}
  namespace: {namespace}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: {role_kind}, name: migrate}}
subjects:
- {{kind: ServiceAccount, name: migrate, namespace: shop}}
"""


def _binding(kind="RoleBinding", name="migrate", namespace="shop", role_kind="Role", annotations="") -> str:
    text = BINDING.format(kind=kind, name=name, namespace=namespace, role_kind=role_kind)
    return text.replace(f"  namespace: {namespace}\n", f"  namespace: {namespace}\n{annotations}") if annotations else text


def test_hl108_which_bindings_keep_the_role():
    found = hits("HL108", ROLE, context=_binding() + "---\n" + _binding(name="migrate-too"))
    assert found == [(7, 30, "Hook Role/migrate grants create on its resources, and its delete policies (BeforeHookCreation) "
                      "do not delete it after a successful sync, nor do those of RoleBinding/migrate (a plain resource), "
                      "RoleBinding/migrate-too (a plain resource), which bind it: the rights the hook needed for one step "
                      "stay granted between syncs, to every subject of the binding, until the next sync deletes and "
                      "re-creates them. Set argocd.argoproj.io/hook-delete-policy: BeforeHookCreation,HookSucceeded on "
                      "the role and its bindings.")]  # fmt: skip
    assert hits("HL108", ROLE) == []  # no binding at all
    assert hits("HL108", ROLE, context=_binding(namespace="other")) == []  # a Role binds only in its namespace
    assert hits("HL108", ROLE, context=_binding(kind="ClusterRoleBinding")) == []  # cannot bind a Role
    assert hits("HL108", ROLE, context=_binding(role_kind="ClusterRole")) == []  # another role
    deleted = "  annotations:\n    argocd.argoproj.io/hook: PreSync\n    argocd.argoproj.io/hook-delete-policy: HookSucceeded\n"
    assert hits("HL108", ROLE, context=_binding(annotations=deleted)) == []  # the binding goes after the sync
    delete_only = "  annotations:\n    argocd.argoproj.io/hook: PostDelete\n"
    assert hits("HL108", ROLE, context=_binding(annotations=delete_only)) == []  # no binding during syncs
    kept = "  annotations:\n    argocd.argoproj.io/hook: PreSync\n    argocd.argoproj.io/hook-delete-policy: HookFailed\n"
    assert "nor do those of RoleBinding/migrate, which binds it" in hits("HL108", ROLE, context=_binding(annotations=kept))[0][2]
    plain_role = ROLE.replace("  annotations:\n    argocd.argoproj.io/hook: PreSync\n", "")
    assert hits("HL108", plain_role, context=_binding()) == []  # a plain role is meant to stay
    for verbs in ("[get, list, watch]", "get"):
        assert hits("HL108", ROLE.replace("[create]", verbs), context=_binding()) == [], verbs
    helm = ROLE.replace("argocd.argoproj.io/hook: PreSync",
                        "helm.sh/hook: pre-install\n    helm.sh/hook-delete-policy: before-hook-creation")
    found = hits("HL108", helm.replace("  verbs: [create]", "  resources: [configmaps, secrets]\n  verbs: [get, patch, delete]"),
                 context=_binding())  # fmt: skip
    assert [(line, column) for line, column, _ in found] == [(8, 33)]
    assert found[0][2].startswith("Hook Role/migrate grants patch, delete on configmaps, secrets, and")
    assert found[0][2].endswith("Set helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded on the role and its bindings.")


def test_hl023_delete_hooks_and_both_families():
    configmap = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations:\n{annotations}"
    post_delete = configmap.format(annotations="    argocd.argoproj.io/hook: PostDelete\n"
                                               "    argocd.argoproj.io/hook-delete-policy: HookSucceeded\n")  # fmt: skip
    assert hits("HL023", post_delete) == []  # the controller's delete hooks read their policies
    both = configmap.format(annotations="    argocd.argoproj.io/hook-delete-policy: HookSucceeded\n"
                                        "    helm.sh/hook-delete-policy: hook-succeeded\n")  # fmt: skip
    assert [(line, column) for line, column, _ in hits("HL023", both)] == [(6, 5), (7, 5)]
    hidden = configmap.format(annotations="    argocd.argoproj.io/hook-delete-policy: HookSucceeded\n    x: 1\n")
    assert hits("HL023", hidden) == []  # HL004: Argo CD reads no annotation at all


def test_hl024_leaves_hooks_skip_and_delete_hooks_alone():
    cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations:\n    helm.sh/hook-weight: "3"\n'
    assert len(hits("HL024", cm)) == 1
    for extra in ("    argocd.argoproj.io/hook: Skip\n", "    argocd.argoproj.io/hook: PostDelete\n",
                  "    helm.sh/hook: post-install\n", '    argocd.argoproj.io/sync-wave: "1"\n'):
        assert hits("HL024", cm + extra) == [], extra
    # an invalid sync-wave falls back to the weight (HL012 reports the sync-wave)
    assert len(hits("HL024", cm + '    argocd.argoproj.io/sync-wave: "one"\n')) == 1
    # a Skip object that uses nothing and is used by nothing moves nothing: a note
    assert _severities("HL024", cm, context="apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n"
                       "    argocd.argoproj.io/hook: Skip\nspec:\n  containers:\n  - name: c\n    image: x:1\n"
                       "    envFrom:\n    - configMapRef: {name: x}\n") == ["note"]  # fmt: skip


LOADBALANCER = """\
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  type: LoadBalancer
"""


def test_hl311_steps_counted_and_cases_left_out():
    two_later = HOOK.format(name="a", wave=0).replace("PreSync", "PostSync") + "---\n" + \
        HOOK.format(name="b", wave=1).replace("PreSync", "PostSync")  # fmt: skip
    found = hits("HL311", LOADBALANCER, context=two_later)
    assert found and "and 2 later steps follow (the next, PostSync wave 0, starts with Job/a)" in found[0][2]
    assert hits("HL311", LOADBALANCER) == []  # one step
    sync_fail = HOOK.format(name="a", wave=0).replace("PreSync", "SyncFail")
    assert hits("HL311", LOADBALANCER, context=sync_fail) == []  # SyncFail hooks are not gated
    other_group = LOADBALANCER.replace("apiVersion: v1", "apiVersion: serving.knative.dev/v1")
    assert hits("HL311", other_group, context=two_later) == []
    health = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\ndata:\n"
              "  resource.customizations.health._Service: |\n    return {status = \"Healthy\"}\n")  # fmt: skip
    assert hits("HL311", LOADBALANCER, context=two_later + "---\n" + health) == []
    # a hook in two phases is reported once, for its first step
    both = LOADBALANCER.replace("  name: web\n", "  name: web\n  annotations:\n    argocd.argoproj.io/hook: PreSync,Sync\n")
    assert len(hits("HL311", both, context=two_later)) == 1


# --- from the second mutation run --------------------------------------------------------------------


def test_hl108_reads_only_well_formed_rules():
    binding = _binding()
    assert hits("HL108", ROLE.replace('rules:\n- apiGroups: [""]\n  verbs: [create]\n', "rules:\n"), context=binding) == []
    assert hits("HL108", ROLE.replace("verbs: [create]", 'verbs: "*"'), context=binding) == []  # not a list
    two = ROLE.replace('rules:\n', 'rules:\n- just-a-string\n')
    assert hits("HL108", two, context=binding)[0][2].startswith("Hook Role/migrate grants create on its resources,")
    named = ROLE.replace("verbs: [create]", "resources: secrets\n  verbs: [create]")
    assert hits("HL108", named, context=binding)[0][2].startswith("Hook Role/migrate grants create on its resources,")


REDIS = """\
apiVersion: redis.redis.opstreelabs.in/v1beta2
kind: Redis
metadata:
  name: {name}
  namespace: {namespace}
  annotations:
    argocd.argoproj.io/sync-wave: "-1"
spec:
  kubernetesConfig:
    redisSecret:
      name: {name}-auth
"""


def test_hl308_notes_each_resource_without_a_follower_or_proof():
    job = HOOK.format(name="smoke", wave=0).replace("PreSync", "PostSync")  # namespace shop
    lonely = REDIS.format(name="lonely", namespace="elsewhere")
    shop = REDIS.format(name="cache", namespace="shop")
    found = hits("HL308", lonely + "---\n" + shop, context=job)
    assert [m[2].split(" ", 1)[0] for m in found] == ["Redis/cache"]  # the first has no follower in its namespace
    reads = job.replace("        image: ghcr.io/acme/migrate:1.4.2\n",
                        "        image: ghcr.io/acme/migrate:1.4.2\n        envFrom:\n        - secretRef:\n"
                        "            name: proven-auth\n")  # fmt: skip
    proven = REDIS.format(name="proven", namespace="shop")
    found = hits("HL308", proven + "---\n" + shop + "---\n" + reads)
    assert [(f[2].split(" ", 1)[0], "cannot tell" in f[2]) for f in found] == [("Redis/cache", True), ("Job/smoke", False)]
    sync_fail = job.replace("PostSync", "SyncFail")
    assert hits("HL308", shop, context=sync_fail) == []  # SyncFail hooks do not wait on health
    health = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\ndata:\n"
              "  resource.customizations.health.redis.redis.opstreelabs.in_Redis: |\n    return {status = \"Healthy\"}\n")  # fmt: skip
    assert hits("HL308", shop, context=job + "---\n" + health) == []


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  namespace: shop
  annotations:
    helm.sh/hook-weight: "{weight}"
spec:
  template:
    spec:
      containers:
      - name: web
        image: ghcr.io/acme/web:2.3.1
        envFrom:
        - configMapRef:
            name: settings
"""
SHOP_SETTINGS = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\n"


def test_hl024_neighbours_in_a_namespace():
    # the Deployment, in namespace shop, moved before its ConfigMap of namespace shop
    assert _severities("HL024", DEPLOYMENT.format(name="web", weight=-1), context=SHOP_SETTINGS) == ["warning"]
    # the same step is no move
    weighted = SHOP_SETTINGS + "  annotations:\n    helm.sh/hook-weight: \"-1\"\n"
    assert _severities("HL024", DEPLOYMENT.format(name="web", weight=-1), context=weighted) == ["note"]
    # the ConfigMap moved after one reader (wave 0) but not after the other (same wave 3)
    later = SHOP_SETTINGS + "  annotations:\n    helm.sh/hook-weight: \"3\"\n"
    readers = DEPLOYMENT.format(name="same", weight=3) + "---\n" + DEPLOYMENT.format(name="early", weight=0)
    found = hits("HL024", later, context=readers)
    assert len(found) == 1 and "It now comes after Deployment/early (Sync wave 0), which uses it (HL301)." in found[0][2]
    # a reference to nothing in the run, before one that is there
    missing = DEPLOYMENT.format(name="web", weight=-1).replace(
        "        - configMapRef:\n            name: settings\n",
        "        - configMapRef:\n            name: absent\n        - configMapRef:\n            name: settings\n")
    assert _severities("HL024", missing, context=SHOP_SETTINGS) == ["warning"]


def test_hl109_image_names_matched():
    from hooklint.checks.security import _image_names
    from hooklint.images import parse_image

    digest = "sha256:" + "a" * 64
    assert _image_names(parse_image("nginx")) == ["docker.io/library/nginx"]
    assert _image_names(parse_image("nginx:1.19")) == ["docker.io/library/nginx", "docker.io/library/nginx:1.19"]
    assert _image_names(parse_image(f"nginx@{digest}")) == ["docker.io/library/nginx", f"docker.io/library/nginx@{digest}"]
    assert _image_names(parse_image(f"q.io/a/b:2@{digest}")) == ["q.io/a/b", f"q.io/a/b:2@{digest}"]


def test_hl208_tags_names_and_kustomize_names_left_as_written(tmp_path):
    short = PLAIN_JOB.format(name="shop-migrate-1.4").replace("migrate:1.4.2", "migrate:1.4")
    assert "changes only when the tag of image 'ghcr.io/acme/migrate:1.4' does" in _helm_output_hits(short)[0][2]
    two = PLAIN_JOB.format(name="shop-migrate-10").replace("migrate:1.4.2", "migrate:10")
    assert "with a rendered name" in _helm_output_hits(two)[0][2]  # a tag of 2 characters proves nothing
    odd = PLAIN_JOB.format(name="shop-migrate-1.4.2").replace("        image: ghcr.io/acme/migrate:1.4.2\n",
                                                            "        image: 7\n      - name: b\n        image: x:1.4.2\n")
    assert "the tag of image 'x:1.4.2' does" in _helm_output_hits(odd)[0][2]
    # kustomize that leaves the name as written: a fixed name, hash-like or not
    import shutil

    from hooklint.catalog import load_catalog
    from hooklint.config import Config
    from hooklint.pipeline import lint_paths

    if shutil.which("kustomize") is None and shutil.which("kubectl") is None:
        pytest.skip("no kustomize")
    app = tmp_path / "app"
    app.mkdir()
    (app / "kustomization.yaml").write_text("resources: [job.yaml]\ncommonLabels: {team: shop}\n")
    for name in ("migrate-3f9a2b7c", "migrate"):
        (app / "job.yaml").write_text(PLAIN_JOB.format(name=name).split("# Source: shop/templates/migrate.yaml\n")[1])
        found = [f.message for f in lint_paths([str(app)], Config(), load_catalog()).findings if f.rule_id == "HL208"]
        assert len(found) == 1 and "with a fixed name" in found[0], name


def test_hl209_kustomize_config_is_no_custom_resource():
    text = ("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nmetadata:\n  name: x\n  annotations:\n"
            "    argocd.argoproj.io/hook: PreSync\n")  # fmt: skip
    assert hits("HL209", text) == []


def test_hl304_without_annotations_on_the_first_object_over_the_limit():
    text = HOOK.format(name="a", wave=0) + "---\n" + SETTINGS
    found = lint_text_findings(text, {"max-waves": 1})
    assert [(f.rule_id, f.span.line, f.field_path) for f in found if f.rule_id == "HL304"] == [("HL304", 24, "metadata.name")]


def lint_text_findings(text: str, config: dict) -> list:
    from hooklint.config import parse_config
    from hooklint.pipeline import lint_text

    return lint_text(text, parse_config(config, "test"))


def test_hl024_names_every_object_the_move_puts_out_of_order():
    two = DEPLOYMENT.format(name="web", weight=-1).replace(
        "        - configMapRef:\n            name: settings\n",
        "        - configMapRef:\n            name: settings\n        - secretRef:\n            name: creds\n")
    creds = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n  namespace: shop\n"
    found = hits("HL024", two, context=SHOP_SETTINGS + "---\n" + creds)
    assert ("It now comes before ConfigMap/settings (Sync wave 0), which it uses; and before Secret/creds (Sync wave "
            "0), which it uses (HL301).") in found[0][2]  # fmt: skip


# --- from the third mutation batch ---------------------------------------------------------------


def test_hl209_kept_hook_deleted_when_a_sync_fails():
    cm = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: report\n  annotations:\n"
          "    argocd.argoproj.io/hook: PostSync\n    helm.sh/resource-policy: keep\n"
          "    argocd.argoproj.io/hook-delete-policy: {policy}\n")  # fmt: skip
    failed = hits("HL209", cm.format(policy="HookFailed"))
    assert failed[0][2].startswith("ConfigMap/report is a hook with helm.sh/resource-policy: keep, but Argo CD deletes it "
                                   "whenever a sync fails (HookFailed): ")  # fmt: skip
    assert failed[0][2].endswith("Drop HookFailed from its delete policies, or make it a normal resource with a sync wave.")
    both = hits("HL209", cm.format(policy="HookSucceeded,HookFailed"))[0][2]
    assert "deletes it after every successful sync (HookSucceeded) and whenever a sync fails (HookFailed): " in both
    assert "Drop HookSucceeded and HookFailed from its delete policies" in both


def test_hl109_and_hl105_look_at_every_container():
    text = BITNAMI_HOOK.format(image="bitnami/kubectl:1.31.2").replace(
        "      containers:\n",
        "      containers:\n      - name: ok\n        image: ghcr.io/acme/ok:1.0.0\n      - name: broken\n"
        "        image: not valid\n")  # fmt: skip
    assert [(line, column) for line, column, _ in hits("HL109", text)] == [(20, 16)]
    caps = HOOK.format(name="migrate", wave=0).replace(
        "        image: ghcr.io/acme/migrate:1.4.2\n",
        "        image: ghcr.io/acme/migrate:1.4.2\n        securityContext:\n          capabilities:\n"
        "            add: [123, SYS_ADMIN]\n")  # fmt: skip
    assert [m[2].split(" adds capability ")[1].split(",")[0] for m in hits("HL105", caps)] == ["SYS_ADMIN"]


def test_hl308_note_points_at_what_places_the_resource():
    job = HOOK.format(name="smoke", wave=0).replace("PreSync", "PostSync")
    base = REDIS.format(name="cache", namespace="shop")
    cases = {
        '    argocd.argoproj.io/sync-wave: "-1"\n': ((7, 35), "argocd.argoproj.io/sync-wave"),
        '    helm.sh/hook-weight: "-1"\n': ((7, 26), "helm.sh/hook-weight"),
        "    argocd.argoproj.io/hook: PreSync\n": ((7, 30), "argocd.argoproj.io/hook"),
        "    helm.sh/hook: pre-install\n": ((7, 19), "helm.sh/hook"),
    }
    for annotation, (position, key) in cases.items():
        text = base.replace('    argocd.argoproj.io/sync-wave: "-1"\n', annotation)
        found = [f for f in lint_text_findings(text + "---\n" + job, {}) if f.rule_id == "HL308"]
        assert [((f.span.line, f.span.column), f.field_path) for f in found] == [(position, f"metadata.annotations.{key}")], key


def test_hl202_field_path_is_the_key_to_add():
    job = HOOK.format(name="migrate", wave=0).replace("  activeDeadlineSeconds: 300\n", "")
    assert [f.field_path for f in lint_text_findings(job, {}) if f.rule_id == "HL202"] == ["spec.activeDeadlineSeconds"]


def test_hl209_two_protections_and_foreign_finalizers():
    cm = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: report\n  annotations:\n"
          "    argocd.argoproj.io/hook: PostSync\n    helm.sh/resource-policy: keep\n"
          "    argocd.argoproj.io/sync-options: Delete=false\n")  # fmt: skip
    assert hits("HL209", cm)[0][2].startswith(
        "ConfigMap/report is a hook with helm.sh/resource-policy: keep and sync option Delete=false, but Argo CD")
    app = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: child\n  finalizers:\n"
           "  - example.com/cleanup\n  annotations:\n    argocd.argoproj.io/hook: PostSync\nspec:\n  project: apps\n")  # fmt: skip
    assert "the child application and its sync history go with it" in hits("HL209", app)[0][2]


def test_hl108_reads_every_role():
    bad = ROLE.replace("name: migrate\n", "name: zz-writer\n", 1)
    skipped = [
        ROLE.replace("name: migrate\n", "name: a-plain\n", 1).replace("  annotations:\n    argocd.argoproj.io/hook: PreSync\n", ""),
        ROLE.replace("name: migrate\n", "name: b-deleted\n", 1).replace(
            "hook: PreSync\n", "hook: PreSync\n    argocd.argoproj.io/hook-delete-policy: HookSucceeded\n"),
        ROLE.replace("name: migrate\n", "name: c-reader\n", 1).replace("[create]", "[get]"),
    ]
    bindings = "---\n".join(_binding(name=f"bind-{n}").replace("name: migrate}", f"name: {n}}}")
                            for n in ("a-plain", "b-deleted", "c-reader", "zz-writer"))  # fmt: skip
    found = hits("HL108", "---\n".join(skipped + [bad]), context=bindings)
    assert [m[2].split(" grants")[0] for m in found] == ["Hook Role/zz-writer"]


def test_hl304_with_application_health_configured_and_helm_hook_keys():
    health = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\n  namespace: shop\ndata:\n"
              "  resource.customizations.health.argoproj.io_Application: |\n    return {status = \"Healthy\"}\n")  # fmt: skip
    hooks = "---\n".join(HOOK.format(name=f"step{w}", wave=w) for w in range(3))
    assert hits("HL304", hooks + "---\n" + health, {"max-waves": 4}) == []  # argocd-cm is step 4
    found = hits("HL304", hooks + "---\n" + CHILD_APP.format(n=5) + "---\n" + health, {"max-waves": 2})
    assert found and "more step" not in found[0][2]
    two = hits("HL304", hooks + "---\n" + CHILD_APP.format(n=5) + "---\n" + CHILD_APP.format(n=6), {"max-waves": 2})
    assert ("(2 more steps holding only child Applications are not counted: without an argoproj.io_Application health "
            "check nothing waits for them), more than max-waves (2)") in two[0][2]  # fmt: skip
    helm_only = HOOK.format(name="h", wave=0).replace('    argocd.argoproj.io/sync-wave: "0"\n', "").replace(
        "argocd.argoproj.io/hook: PreSync", "helm.sh/hook: post-install")
    weighted = helm_only.replace("helm.sh/hook: post-install", 'helm.sh/hook: post-install\n    helm.sh/hook-weight: "0"')
    for text, key in ((helm_only, "helm.sh/hook"), (weighted, "helm.sh/hook-weight")):
        found = [f for f in lint_text_findings(hooks + "---\n" + text, {"max-waves": 3}) if f.rule_id == "HL304"]
        assert [f.field_path for f in found] == [f"metadata.annotations.{key}"], key


def test_hl108_bindings_and_roles_in_any_order():
    no_namespace = ROLE.replace("  namespace: shop\n", "")
    plain_binding = _binding().replace("  namespace: shop\n", "", 1)
    assert len(hits("HL108", no_namespace, context=plain_binding)) == 1  # both in the destination namespace
    first = _binding(name="other").replace("name: migrate}", "name: someone-else}") + "---\n" + \
        _binding(name="elsewhere", namespace="other") + "---\n" + \
        _binding(name="gone", annotations="  annotations:\n    argocd.argoproj.io/hook: PreSync\n"
                 "    argocd.argoproj.io/hook-delete-policy: HookSucceeded\n") + "---\n" + _binding()  # fmt: skip
    found = hits("HL108", ROLE, context=first)
    assert len(found) == 1 and "nor do those of RoleBinding/migrate (a plain resource), which binds it" in found[0][2]
    unbound = ROLE.replace("name: migrate\n", "name: aa-unbound\n", 1)
    grants = ROLE.replace("hook: PreSync\n", "hook: PreSync\n    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation,HookFailed\n").replace(
        '- apiGroups: [""]\n  verbs: [create]\n',
        '- apiGroups: [""]\n  resources: [pods]\n  verbs: [delete]\n- apiGroups: [""]\n  resources: [secrets]\n  verbs: [patch]\n')
    found = hits("HL108", unbound + "---\n" + grants, context=_binding())
    assert [m[2].split(", and its delete policies")[0] for m in found] == [
        "Hook Role/migrate grants delete on pods; patch on secrets"]
    assert "its delete policies (BeforeHookCreation, HookFailed) do not delete it" in found[0][2]
