"""HL301-HL305, HL207, HL013, HL015-HL017: edge cases the rule files' examples do not show, with
exact positions and messages, and the behaviour that depends on ``argocd-version``."""

from __future__ import annotations

import textwrap

import pytest

from hooklint.config import parse_config
from hooklint.pipeline import lint_text


def hits(rule: str, text: str, context: str | None = None, **config) -> list[tuple[int, int, str]]:
    cfg = parse_config({k.replace("_", "-"): v for k, v in config.items()}, "test")
    findings = lint_text(textwrap.dedent(text), config=cfg, context=context and textwrap.dedent(context))
    return [(f.span.line, f.span.column, f.message) for f in findings if f.rule_id == rule]


def where(rule: str, text: str, **config) -> list[tuple[int, int]]:
    return [(line, col) for line, col, _ in hits(rule, text, **config)]


# --- HL301 -------------------------------------------------------------------------------------

PRESYNC_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  namespace: shop
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  template:
    spec:
      restartPolicy: Never
{pod}
"""


def presync_job(pod: str) -> str:
    return PRESYNC_JOB.format(pod=textwrap.indent(textwrap.dedent(pod), "      "))


PLAIN = """\
---
apiVersion: v1
kind: {kind}
metadata:
  name: {name}
  namespace: shop
"""


def test_hl301_follows_every_reference_kind_to_the_exact_node():
    text = presync_job("""\
        imagePullSecrets:
          - name: pull
        volumes:
          - name: proj
            projected:
              sources:
                - secret:
                    name: proj-secret
                - configMap:
                    name: proj-cm
          - name: data
            persistentVolumeClaim:
              claimName: data
        initContainers:
          - name: init
            image: busybox:1.36
            envFrom:
              - configMapRef:
                  name: init-cm
        containers:
          - name: main
            image: busybox:1.36
            env:
              - name: TOKEN
                valueFrom:
                  configMapKeyRef:
                    name: main-cm
                    key: token
        """)
    for kind, name in (("Secret", "pull"), ("Secret", "proj-secret"), ("ConfigMap", "proj-cm"),
                       ("PersistentVolumeClaim", "data"), ("ConfigMap", "init-cm"), ("ConfigMap", "main-cm")):
        text += PLAIN.format(kind=kind, name=name)  # fmt: skip
    got = hits("HL301", text)
    assert [(line, col) for line, col, _ in got] == [(13, 17), (19, 25), (21, 25), (24, 24), (30, 23), (38, 25)]
    assert got[0][2] == (
        "Job/migrate (PreSync wave 0) uses Secret/pull (imagePullSecrets), which Argo CD applies only in a "
        "later step (Sync wave 0): its images are pulled without these credentials, which fails for a "
        "private registry on the first sync. Apply Secret/pull in PreSync wave 0 or earlier (for a PreSync hook: make it a "
        "PreSync hook with a sync-wave of 0 or lower), or move Job/migrate to a later step."
    )
    assert "uses PersistentVolumeClaim/data (volume 'data')" in got[3][2]
    assert "its pods stay Pending until the claim exists" in got[3][2]
    assert "uses ConfigMap/init-cm (envFrom of container 'init')" in got[4][2]


def test_hl301_reports_each_target_once():
    text = presync_job("""\
        containers:
          - name: main
            image: busybox:1.36
            env:
              - name: A
                valueFrom: {secretKeyRef: {name: creds, key: a}}
              - name: B
                valueFrom: {secretKeyRef: {name: creds, key: b}}
        """) + PLAIN.format(kind="Secret", name="creds")  # fmt: skip
    assert where("HL301", text) == [(17, 48)]


def test_hl301_same_step_and_earlier_steps_are_fine():
    text = presync_job("serviceAccountName: sa\n") + """\
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: sa
  namespace: shop
  annotations:
    argocd.argoproj.io/hook: PreSync
"""
    assert hits("HL301", text) == []


def test_hl301_namespaces_are_compared():
    pod = "serviceAccountName: sa\n"
    other_ns = PLAIN.format(kind="ServiceAccount", name="sa").replace("namespace: shop", "namespace: other")
    no_ns = PLAIN.format(kind="ServiceAccount", name="sa").replace("  namespace: shop\n", "")
    assert hits("HL301", presync_job(pod) + other_ns) == []
    assert hits("HL301", presync_job(pod) + no_ns) == []
    assert where("HL301", presync_job(pod) + PLAIN.format(kind="ServiceAccount", name="sa")) == [(12, 27)]


BINDING = """\
---
apiVersion: rbac.authorization.k8s.io/v1
kind: {kind}
metadata:
  name: grant
{meta}roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}}
subjects:
  - kind: ServiceAccount
    name: sa
{subject_ns}"""


@pytest.mark.parametrize(
    ("kind", "meta", "subject_ns", "fires"),
    [
        ("RoleBinding", "  namespace: shop\n", "", True),  # subject namespace = the binding's
        ("RoleBinding", "  namespace: other\n", "", False),
        ("RoleBinding", "  namespace: other\n", "    namespace: shop\n", True),
        ("ClusterRoleBinding", "", "    namespace: shop\n", True),
        ("ClusterRoleBinding", "", "    namespace: other\n", False),
        ("ClusterRoleBinding", "", "", False),  # invalid without a namespace: not matched
    ],
)
def test_hl301_bindings_of_the_service_account(kind, meta, subject_ns, fires):
    text = presync_job("serviceAccountName: sa\n") + BINDING.format(kind=kind, meta=meta, subject_ns=subject_ns)
    got = hits("HL301", text)
    assert [(line, col) for line, col, _ in got] == ([(12, 27)] if fires else [])
    if fires:
        assert got[0][2].startswith(
            f"Job/migrate (PreSync wave 0) uses {kind}/grant (the binding of its ServiceAccount sa), which "
            "Argo CD applies only in a later step (Sync wave 0): its pods run before ServiceAccount sa "
            "holds that binding's permissions"
        )


SCC_ROLE = """\
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: grant
  namespace: shop
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: scc-user}}
subjects:
  - kind: ServiceAccount
    name: sa
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: scc-user
  namespace: shop
rules:
  - apiGroups: [security.openshift.io]
    resources: [{resources}]
    verbs: [{verbs}]
"""
_LATER = (
    "Job/migrate (PreSync wave 0) uses RoleBinding/grant (the binding of its ServiceAccount sa), which Argo CD "
    "applies only in a later step (Sync wave 0): "
)
_MOVE = (
    " on the first sync. Apply RoleBinding/grant in PreSync wave 0 or earlier (for a PreSync hook: make it a PreSync hook with a "
    "sync-wave of 0 or lower), or move Job/migrate to a later step."
)
_SCC_USE = (
    "its pods are never admitted while ServiceAccount sa may not use the SecurityContextConstraints that binding "
    'grants ("unable to validate against any security context constraint"), so the step never completes'
)
_FORBIDDEN = (
    "its pods run before ServiceAccount sa holds that binding's permissions, so their API calls fail with Forbidden"
)


@pytest.mark.parametrize(
    ("resources", "verbs", "consequence"),
    [
        ("securitycontextconstraints", "use", _SCC_USE),
        ("'*'", "'*'", _SCC_USE),
        ("securitycontextconstraints", "get", _FORBIDDEN),
        # a list entry that is not a string (a mapping or a list) names nothing: it failed the whole
        # application with "internal error: TypeError: unhashable type: 'Map'" (a set of the entries)
        ("{a: b}", "use", _FORBIDDEN),
        ("securitycontextconstraints", "[use]", _FORBIDDEN),
        ("{a: b}, securitycontextconstraints", "[x], use", _SCC_USE),
    ],
)
def test_hl301_binding_granting_scc_use(resources, verbs, consequence):
    text = presync_job("serviceAccountName: sa\n") + SCC_ROLE.format(resources=resources, verbs=verbs)
    assert hits("HL301", text) == [(12, 27, _LATER + consequence + _MOVE)]


def test_hl301_deprecated_service_account_field():
    assert where("HL301", presync_job("serviceAccount: sa\n") + PLAIN.format(kind="ServiceAccount", name="sa")) == [
        (12, 23)]  # fmt: skip


def test_hl301_multi_phase_referrer_uses_its_first_step():
    text = presync_job("serviceAccountName: sa\n").replace("hook: PreSync", "hook: PreSync,PostSync")
    got = hits("HL301", text + PLAIN.format(kind="ServiceAccount", name="sa"))
    assert got[0][2].startswith("Job/migrate (PreSync wave 0) uses ServiceAccount/sa")


def test_hl301_skipped_referrer_and_namespace_target_are_not_reported():
    skipped = presync_job("serviceAccountName: sa\n").replace("hook: PreSync", "hook: Skip")
    assert hits("HL301", skipped + PLAIN.format(kind="ServiceAccount", name="sa")) == []
    ns = presync_job("serviceAccountName: sa\n") + "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n"
    assert hits("HL301", ns) == []


CRONJOB = """\
apiVersion: batch/v1
kind: CronJob
metadata:
  name: report
  namespace: shop
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          serviceAccountName: sa
          containers:
            - name: report
              image: busybox:1.36
"""


def test_hl301_cronjob_only_for_objects_never_applied():
    later = PLAIN.format(kind="ServiceAccount", name="sa") + "  annotations:\n    argocd.argoproj.io/sync-wave: '3'\n"
    assert hits("HL301", CRONJOB + later) == []
    skipped = PLAIN.format(kind="ServiceAccount", name="sa") + "  annotations:\n    argocd.argoproj.io/hook: Skip\n"
    assert hits("HL301", CRONJOB + skipped) == [(
        13, 31,
        "CronJob/report (Sync wave 0) uses ServiceAccount/sa (serviceAccountName), which Argo CD never applies "
        "during a sync (hook type Skip: Argo CD never applies it): its pods are rejected (serviceaccount \"sa\" "
        "not found), so the step never completes. Make ServiceAccount/sa a plain resource or a hook that runs "
        "in Sync wave 0 or earlier.",
    )]  # fmt: skip


def test_hl301_delete_hook_target_depends_on_version():
    target = PLAIN.format(kind="ConfigMap", name="cm") + "  annotations:\n    argocd.argoproj.io/hook: PreDelete\n"
    text = presync_job("""\
        containers:
          - name: main
            image: busybox:1.36
            envFrom:
              - configMapRef: {name: cm}
        """) + target  # fmt: skip
    (new,) = hits("HL301", text)
    assert "never applies during a sync (PreDelete (Argo CD >= 3.3) hook: runs only when the Application is deleted)" in new[2]
    (old,) = hits("HL301", text, argocd_version="3.2")
    assert "never applies during a sync (PreDelete hooks need Argo CD 3.3 (configured: 3.2.12): ignored hook, never applied)" in old[2]


def test_hl301_target_in_context_file_is_found():
    got = hits("HL301", presync_job("serviceAccountName: sa\n"),
               context=PLAIN.format(kind="ServiceAccount", name="sa"))  # fmt: skip
    assert [(line, col) for line, col, _ in got] == [(12, 27)]



# --- HL301: delete hooks (§4d; AC controller/appcontroller.go finalizeApplicationDeletion) -------

DELETE_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: teardown
  namespace: shop
  annotations:
    argocd.argoproj.io/hook: {hook}
spec:
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: sa
      containers:
        - name: main
          image: busybox:1.36
          envFrom:
            - configMapRef: {{name: cm}}
"""


def delete_job(hook: str) -> str:
    return DELETE_JOB.format(hook=hook)


def in_shop(kind: str, name: str, **annotations: str) -> str:
    """A ServiceAccount/ConfigMap/... in namespace shop with the given annotations."""
    text = PLAIN.format(kind=kind, name=name)
    if annotations:
        text += "  annotations:\n" + "".join(f"    {k}: '{v}'\n" for k, v in annotations.items())
    return text


HOOK, POLICY = "argocd.argoproj.io/hook", "argocd.argoproj.io/hook-delete-policy"
SA_AT, CM_AT = (12, 27), (17, 36)


def test_hl301_post_delete_hook_using_plain_config_map():
    text = delete_job("PostDelete") + in_shop("ServiceAccount", "sa", **{HOOK: "PostDelete"}) + in_shop("ConfigMap", "cm")
    assert hits("HL301", text) == [(
        *CM_AT,
        "Job/teardown (PostDelete hook) uses ConfigMap/cm (envFrom of container 'main'), which is not in the cluster "
        "when PostDelete hooks run (a plain resource: Argo CD deletes the Application's resources before it runs "
        "PostDelete hooks): its pods cannot start without it (CreateContainerConfigError or a failed volume mount), "
        "so the hook never completes and the Application's deletion hangs. Give Job/teardown a ConfigMap of its "
        "own, under another name, that is a PostDelete hook (argocd.argoproj.io/hook: PostDelete).",
    )]  # fmt: skip


def test_hl301_post_delete_hook_may_use_objects_kept_on_deletion():
    sa = in_shop("ServiceAccount", "sa", **{HOOK: "PostDelete"})
    for keep in ({"argocd.argoproj.io/sync-options": "Prune=false,Delete=false"}, {"helm.sh/resource-policy": "keep"}):
        assert hits("HL301", delete_job("PostDelete") + sa + in_shop("ConfigMap", "cm", **keep)) == []
    first_wins = {"argocd.argoproj.io/sync-options": "Delete=true,Delete=false"}  # GetAnnotationOptionValue
    assert where("HL301", delete_job("PostDelete") + sa + in_shop("ConfigMap", "cm", **first_wins)) == [CM_AT]


def test_hl301_pre_delete_hook_may_use_plain_resources_and_kept_sync_hooks():
    cm = in_shop("ConfigMap", "cm")
    for policy in ("BeforeHookCreation", "HookFailed", "BeforeHookCreation,HookFailed"):
        sa = in_shop("ServiceAccount", "sa", **{HOOK: "PreSync", POLICY: policy})
        assert hits("HL301", delete_job("PreDelete") + sa + cm) == [], policy
    assert hits("HL301", delete_job("PreDelete") + in_shop("ServiceAccount", "sa", **{HOOK: "PreSync"}) + cm) == []


def test_hl301_pre_delete_job_with_service_account_deleted_on_success():
    sa = in_shop("ServiceAccount", "sa", **{HOOK: "PreSync", POLICY: "HookSucceeded"})
    text = delete_job("PreDelete") + sa + in_shop("ConfigMap", "cm")
    assert hits("HL301", text) == [(
        *SA_AT,
        "Job/teardown (PreDelete hook) uses ServiceAccount/sa (serviceAccountName), which is not in the cluster "
        "when PreDelete hooks run (a PreSync hook with delete policy HookSucceeded: Argo CD deletes it once the "
        "sync succeeds): its pods are rejected (serviceaccount \"sa\" not found), so the hook never completes and "
        "the Application's deletion hangs. Drop HookSucceeded from the delete policies of ServiceAccount/sa so "
        "that it stays after the sync, or add PreDelete to its hook types.",
    )]  # fmt: skip


def test_hl301_pre_delete_hook_follows_the_version():
    """PreDelete hooks run since Argo CD 3.3.0: before, the Job is an ignored hook that never runs."""
    sa = in_shop("ServiceAccount", "sa", **{HOOK: "PreSync", POLICY: "HookSucceeded"})
    text = delete_job("PreDelete") + sa + in_shop("ConfigMap", "cm")
    assert where("HL301", text, argocd_version="3.3.0") == [SA_AT]
    assert where("HL301", text, argocd_version="3.2") == []


def test_hl301_post_delete_hook_follows_the_version():
    """PostDelete hooks run since Argo CD 2.10.0."""
    text = delete_job("PostDelete") + in_shop("ServiceAccount", "sa", **{HOOK: "PostDelete"}) + in_shop("ConfigMap", "cm")
    assert where("HL301", text, argocd_version="2.10.0") == [CM_AT]
    assert where("HL301", text, argocd_version="2.9") == []


def test_hl301_delete_type_in_a_list_follows_the_version():
    """From 2.10.0 to 3.3.2 ``isHookOfType`` compares the whole annotation value; lists since 3.3.3.
    Referrer side: a ``PostSync,PostDelete`` Job is a PostDelete hook only from 3.3.3."""
    text = delete_job("PostSync,PostDelete") + in_shop("ServiceAccount", "sa", **{HOOK: "PostSync,PostDelete"})
    text += in_shop("ConfigMap", "cm")
    assert where("HL301", text, argocd_version="3.3.3") == [CM_AT]
    assert where("HL301", text, argocd_version="3.3.2") == []


def test_hl301_delete_type_in_a_list_on_the_target_follows_the_version():
    """Target side: a ``PreSync,PreDelete`` ServiceAccount deleted on success is created again for
    the PreDelete hooks only from 3.3.3; before, it is just a PreSync hook, gone after the sync."""
    sa = in_shop("ServiceAccount", "sa", **{HOOK: "PreSync,PreDelete", POLICY: "HookSucceeded"})
    text = delete_job("PreDelete") + sa + in_shop("ConfigMap", "cm")
    assert hits("HL301", text, argocd_version="3.3.3") == []
    (got,) = hits("HL301", text, argocd_version="3.3.2")
    assert got[:2] == SA_AT
    assert got[2].endswith(  # no list of hook types before 3.3.3: the fix does not suggest one
        "Drop HookSucceeded from the delete policies of ServiceAccount/sa so that it stays after the sync.")


def test_hl301_same_delete_type_counts_whatever_the_wave():
    """``executeHooks`` creates every missing hook of one type in a single pass over a map: waves
    are not used, so a same-type ServiceAccount in a later wave is created with the Job."""
    sa = in_shop("ServiceAccount", "sa", **{HOOK: "PreDelete", "argocd.argoproj.io/sync-wave": "5"})
    assert hits("HL301", delete_job("PreDelete") + sa + in_shop("ConfigMap", "cm")) == []


@pytest.mark.parametrize(
    ("hook", "target", "reason"),
    [
        ("PostDelete", {HOOK: "PreDelete", POLICY: "HookSucceeded"},
         "a PreDelete hook: Argo CD deletes the Application's resources before it runs PostDelete hooks"),
        ("PostDelete", {HOOK: "PreSync"},
         "a PreSync hook: Argo CD deletes the Application's resources before it runs PostDelete hooks"),
        ("PreDelete", {HOOK: "PostDelete"},
         "a PostDelete hook: Argo CD creates it only after the Application's resources are deleted"),
        ("PreDelete", {HOOK: "SyncFail"}, "a SyncFail hook: Argo CD creates it only when a sync fails"),
        ("PreDelete", {HOOK: "Skip"}, "hook type Skip: Argo CD never applies it"),
    ],
)
def test_hl301_what_a_delete_hook_finds_gone(hook, target, reason):
    text = delete_job(hook) + in_shop("ServiceAccount", "sa", **target) + in_shop("ConfigMap", "cm", **{HOOK: hook})
    (got,) = hits("HL301", text)
    assert got[:2] == SA_AT
    assert f"which is not in the cluster when {hook} hooks run ({reason}): its pods are rejected" in got[2]


def test_hl301_delete_hook_fix_names_the_hook_types_of_a_hook_target():
    text = delete_job("PostDelete") + in_shop("ServiceAccount", "sa", **{HOOK: "PreSync"})
    text += in_shop("ConfigMap", "cm", **{HOOK: "PostDelete"})
    (got,) = hits("HL301", text)
    assert got[2].endswith(
        "Add PostDelete to the hook types of ServiceAccount/sa, or give Job/teardown a ServiceAccount of its own, "
        "under another name, that is a PostDelete hook (argocd.argoproj.io/hook: PostDelete).")


def test_hl301_post_delete_hook_and_the_binding_of_its_service_account():
    text = delete_job("PostDelete") + in_shop("ServiceAccount", "sa", **{HOOK: "PostDelete"})
    text += in_shop("ConfigMap", "cm", **{HOOK: "PostDelete"})
    text += BINDING.format(kind="RoleBinding", meta="  namespace: shop\n", subject_ns="")
    assert hits("HL301", text) == [(
        *SA_AT,
        "Job/teardown (PostDelete hook) uses RoleBinding/grant (the binding of its ServiceAccount sa), which is "
        "not in the cluster when PostDelete hooks run (a plain resource: Argo CD deletes the Application's "
        "resources before it runs PostDelete hooks): its pods run without that binding's permissions, so their "
        "API calls fail with Forbidden, the hook fails and the Application's deletion hangs. Give Job/teardown a "
        "RoleBinding of its own, under another name, that is a PostDelete hook (argocd.argoproj.io/hook: "
        "PostDelete).",
    )]  # fmt: skip


def test_hl301_sync_and_delete_hook_is_checked_for_both():
    """A ``PreSync,PreDelete`` Job: in PreSync its ServiceAccount (PreSync, same step) is there; at
    deletion, HookSucceeded has removed it."""
    sa = in_shop("ServiceAccount", "sa", **{HOOK: "PreSync", POLICY: "HookSucceeded"})
    cm = in_shop("ConfigMap", "cm", **{HOOK: "PreSync,PreDelete"})
    (got,) = hits("HL301", delete_job("PreSync,PreDelete") + sa + cm)
    assert got[:2] == SA_AT
    assert got[2].startswith("Job/teardown (PreDelete hook) uses ServiceAccount/sa (serviceAccountName)")


# --- HL301: Secrets written by a controller ------------------------------------------------------

TLS_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  template:
    spec:
      containers:
        - name: web
          image: busybox:1.36
          env:
            - name: CERT
              valueFrom:
                secretKeyRef: {name: web-tls, key: tls.crt}
"""
SECRET_AT = (15, 38)


def producer(api_version: str, kind: str, name: str, spec: str = "", wave: str = "1", namespace: str = "shop") -> str:
    text = f"---\napiVersion: {api_version}\nkind: {kind}\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"
    text += f"  annotations:\n    argocd.argoproj.io/sync-wave: '{wave}'\n"
    return text + (f"spec:\n{textwrap.indent(textwrap.dedent(spec), '  ')}" if spec else "")


@pytest.mark.parametrize(
    ("obj", "written_by"),
    [
        (producer("cert-manager.io/v1", "Certificate", "web-cert", "secretName: web-tls\n"),
         "cert-manager Certificate web-cert"),
        (producer("external-secrets.io/v1", "ExternalSecret", "web-tls"), "external-secrets ExternalSecret web-tls"),
        (producer("external-secrets.io/v1beta1", "ExternalSecret", "tls", "target: {name: web-tls}\n"),
         "external-secrets ExternalSecret tls"),
        (producer("external-secrets.io/v1", "ExternalSecret", "tls", "target: {name: web-tls, creationPolicy: Orphan}\n"),
         "external-secrets ExternalSecret tls"),
        (producer("bitnami.com/v1alpha1", "SealedSecret", "web-tls"), "sealed-secrets SealedSecret web-tls"),
        (producer("secrets-store.csi.x-k8s.io/v1", "SecretProviderClass", "vault",
                  "secretObjects:\n  - secretName: other\n  - secretName: web-tls\n"),
         "Secrets Store CSI SecretProviderClass vault"),
    ],
)
def test_hl301_secret_written_by_a_producer_in_a_later_wave(obj, written_by):
    producer_label = obj.split("kind: ")[1].split("\n")[0] + "/" + obj.split("name: ")[1].split("\n")[0]
    assert hits("HL301", TLS_DEPLOYMENT + obj) == [(
        *SECRET_AT,
        f"Deployment/web (Sync wave 0) uses Secret web-tls (env CERT of container 'web'), written by {written_by}, "
        "which Argo CD applies only in a later step (Sync wave 1): its pods cannot start without it "
        "(CreateContainerConfigError or a failed volume mount), so the step never completes on the first sync. Give "
        f"{producer_label} a lower sync-wave than 0, or move Deployment/web to a later step.",
    )]  # fmt: skip


@pytest.mark.parametrize(
    "obj",
    [
        producer("cert-manager.io/v1", "Certificate", "web-cert", "secretName: web-tls\n", wave="0"),
        producer("cert-manager.io/v1", "Certificate", "web-cert", "secretName: web-tls\n", namespace="other"),
        producer("example.com/v1", "Certificate", "web-cert", "secretName: web-tls\n"),  # not cert-manager's
        producer("external-secrets.io/v1", "ExternalSecret", "web-tls", "target: {creationPolicy: Merge}\n"),
        producer("external-secrets.io/v1", "ExternalSecret", "web-tls", "target: {name: other}\n"),
        # a Secret object of that name: the Secret is what counts, the producer is not looked at
        producer("cert-manager.io/v1", "Certificate", "web-cert", "secretName: web-tls\n") + PLAIN.format(
            kind="Secret", name="web-tls"),
    ],
)
def test_hl301_secret_producers_that_do_not_count(obj):
    assert hits("HL301", TLS_DEPLOYMENT + obj) == []


def test_hl301_producer_never_applied():
    obj = producer("bitnami.com/v1alpha1", "SealedSecret", "web-tls") + "    argocd.argoproj.io/hook: Skip\n"
    (got,) = hits("HL301", TLS_DEPLOYMENT + obj)
    assert got[2].startswith(
        "Deployment/web (Sync wave 0) uses Secret web-tls (env CERT of container 'web'), written by sealed-secrets "
        "SealedSecret web-tls, which Argo CD never applies during a sync (hook type Skip: Argo CD never applies it)")


def test_hl301_delete_hook_and_a_producer_written_secret():
    """An ExternalSecret's Secret is owned by it and goes with it before PostDelete hooks run; a
    Certificate's Secret stays (cert-manager sets no owner reference by default)."""
    job = delete_job("PostDelete").replace("configMapRef: {name: cm}", "secretRef: {name: web-tls}")
    sa = in_shop("ServiceAccount", "sa", **{HOOK: "PostDelete"})
    external = producer("external-secrets.io/v1", "ExternalSecret", "web-tls", wave="0")
    (got,) = hits("HL301", job + sa + external)
    assert got[:2] == (17, 33)
    assert got[2].startswith(
        "Job/teardown (PostDelete hook) uses Secret web-tls (envFrom of container 'main'), written by "
        "external-secrets ExternalSecret web-tls, which is not in the cluster when PostDelete hooks run (a plain "
        "resource: Argo CD deletes the Application's resources before it runs PostDelete hooks)")
    assert got[2].endswith("Give Job/teardown a Secret of its own, under another name, that is a PostDelete hook "
                           "(argocd.argoproj.io/hook: PostDelete).")
    certificate = producer("cert-manager.io/v1", "Certificate", "web-cert", "secretName: web-tls\n", wave="0")
    assert hits("HL301", job + sa + certificate) == []
    assert hits("HL301", job.replace("PostDelete", "PreDelete") + sa.replace("PostDelete", "PreDelete") + external) == []


# --- HL302 -------------------------------------------------------------------------------------

NS_AND_HOOK = """\
apiVersion: v1
kind: Namespace
metadata:
  name: shop
  annotations:
    argocd.argoproj.io/hook: PostSync
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: shop
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/sync-wave: "-3"
"""


def test_hl302_points_at_the_hook_annotation_without_a_wave():
    assert hits("HL302", NS_AND_HOOK) == [(
        6, 30,
        "Namespace/shop is in PostSync wave 0 by its annotations, but Argo CD applies it in PreSync wave -3, just "
        "before ConfigMap/settings, the first object in it (adjustDeps pulls Namespaces and CRDs forward): its "
        "own phase and sync-wave have no effect. Drop them, or give Namespace/shop the step it really runs in.",
    )]  # fmt: skip


def test_hl302_follows_the_version():
    assert where("HL302", NS_AND_HOOK, argocd_version="1.8") == []
    assert where("HL302", NS_AND_HOOK, argocd_version="2.0") == [(6, 30)]


def test_hl302_namespace_less_objects_do_not_match_a_namespace():
    text = NS_AND_HOOK.replace("  namespace: shop\n", "")
    assert hits("HL302", text) == []


# --- HL303 -------------------------------------------------------------------------------------


def hook_job(annotations: str, kind: str = "Job") -> str:
    return f"""\
apiVersion: batch/v1
kind: {kind}
metadata:
  name: task
  annotations:
{textwrap.indent(annotations, '    ')}spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: task
          image: busybox:1.36
"""


def test_hl303_post_upgrade_only():
    assert hits("HL303", hook_job("helm.sh/hook: post-upgrade\n")) == [(
        6, 19,
        "helm.sh/hook 'post-upgrade' on Job/task asks for post-upgrade only, but Argo CD cannot tell an install "
        "from an upgrade: it runs the hook as PostSync on every sync, the first one included. Make the hook safe "
        "to run on a fresh install, or add post-install to say so.",
    )]  # fmt: skip


def test_hl303_quiet_cases():
    assert hits("HL303", hook_job("helm.sh/hook: pre-upgrade,pre-install\n")) == []
    assert hits("HL303", hook_job("helm.sh/hook: post-install,post-upgrade\n")) == []
    # argocd.argoproj.io/hook wins, so the Helm events do not matter
    assert hits("HL303", hook_job("argocd.argoproj.io/hook: PostSync\nhelm.sh/hook: pre-install,post-install\n")) == []
    # a typo in the Argo annotation falls back to Helm: reported
    assert where("HL303", hook_job("argocd.argoproj.io/hook: Postsync\nhelm.sh/hook: pre-install,post-install\n")) == [(7, 19)]


# --- HL304 -------------------------------------------------------------------------------------


def waves(n: int, extra: str = "") -> str:
    docs = [f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm{i}\n  annotations:\n"
            f"    argocd.argoproj.io/sync-wave: \"{i}\"\n" for i in range(n)]  # fmt: skip
    return "---\n".join(docs) + extra


def test_hl304_default_limit_is_ten():
    assert hits("HL304", waves(10)) == []
    got = hits("HL304", waves(11))
    assert [(line, col) for line, col, _ in got] == [(76, 35)]
    assert got[0][2] == (
        "The sync plan has 11 health-gated (phase, wave) steps, more than max-waves (10); step 11 (Sync wave 10) "
        "starts with ConfigMap/cm10. Each step waits for every object of the previous one to be healthy plus "
        "ARGOCD_SYNC_WAVE_DELAY (2 s by default), so every sync pays for each one. Merge waves that do not "
        "depend on each other."
    )


def child_apps(waves_: list[int]) -> str:
    return "---\n".join(
        f"apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: app{w}\n  annotations:\n"
        f"    argocd.argoproj.io/sync-wave: \"{w}\"\n"
        for w in waves_
    )


def test_hl304_steps_of_only_child_applications_are_not_health_gated():
    # cm0 (wave 0), app1 and app2 (waves 1, 2), cm3 (wave 3): two steps wait, two do not
    text = waves(1) + "---\n" + child_apps([1, 2]) + "---\n" + (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm3\n  annotations:\n"
        "    argocd.argoproj.io/sync-wave: \"3\"\n"
    )
    assert hits("HL304", text, max_waves=2) == []
    got = hits("HL304", text, max_waves=1)
    assert [(line, col) for line, col, _ in got] == [(27, 35)]
    assert got[0][2].startswith(
        "The sync plan has 2 health-gated (phase, wave) steps (2 more steps holding only child Applications are "
        "not counted: without an argoproj.io_Application health check nothing waits for them), more than "
        "max-waves (1); step 4 (Sync wave 3) starts with ConfigMap/cm3. Each step waits"
    )


def test_hl304_counts_child_application_steps_when_their_health_is_configured():
    health = (
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\ndata:\n"
        "  resource.customizations.health.argoproj.io_Application: |\n    hs = {}\n    return hs\n"
    )
    text = waves(1) + "---\n" + child_apps([1, 2]) + health
    got = hits("HL304", text, max_waves=2)
    assert [(line, col) for line, col, _ in got] == [(20, 35)]
    assert got[0][2].startswith("The sync plan has 3 health-gated (phase, wave) steps, more than max-waves (2); "
                                "step 3 (Sync wave 2) starts with Application/app2.")  # fmt: skip


def test_hl304_points_at_the_object_when_it_has_no_wave():
    text = waves(1) + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: post\n  annotations:\n" \
        "    argocd.argoproj.io/hook: PostSync\n"
    assert where("HL304", text, max_waves=1) == [(13, 30)]


# --- HL305 -------------------------------------------------------------------------------------


def test_hl305_quiet_when_nothing_runs_or_something_is_plain():
    skip_only = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    argocd.argoproj.io/hook: Skip\n"
    assert hits("HL305", skip_only) == []
    app = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: child\n---\n"
           + hook_job("argocd.argoproj.io/hook: PreSync\n"))  # fmt: skip
    assert hits("HL305", app) == []
    builtin = "apiVersion: builtin\nkind: NamespaceTransformer\nmetadata:\n  name: ns\n---\n"
    assert hits("HL305", builtin + hook_job("argocd.argoproj.io/hook: PreSync\n")) == []


def test_hl305_counts_ignored_hooks_as_hooks():
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    argocd.argoproj.io/hook: Presync\n"
            "---\n" + hook_job("argocd.argoproj.io/hook: PostSync\n"))  # fmt: skip
    assert where("HL305", text) == [(13, 30)]


# --- HL207 -------------------------------------------------------------------------------------


def gen_job(prefix: str, hook: str, kind: str = "Job", ns: str | None = None) -> str:
    namespace = f"  namespace: {ns}\n" if ns else ""
    return (f"apiVersion: batch/v1\nkind: {kind}\nmetadata:\n  generateName: {prefix}\n{namespace}"
            f"  annotations:\n    argocd.argoproj.io/hook: {hook}\n")  # fmt: skip


def test_hl207_collision_in_two_phases_and_third_hook():
    text = "---\n".join([gen_job("x-", "PreSync,PostSync"), gen_job("x-", "PostSync,PreSync"), gen_job("x-", "PostSync")])
    got = hits("HL207", text)
    assert [(line, col) for line, col, _ in got] == [(11, 17), (18, 17)]
    assert got[0][2].startswith("Job/x-* shares generateName 'x-' with the Job at line 4 in PreSync and PostSync: "
                                "Argo CD names both 'x-<revision>-presync-<start time>'")  # fmt: skip


def test_hl207_other_kinds_and_named_hooks_do_not_collide():
    named = gen_job("x-", "PreSync").replace("metadata:\n", "metadata:\n  name: fixed\n")
    text = "---\n".join([gen_job("x-", "PreSync"), gen_job("x-", "PreSync", kind="Pod"), named])
    assert hits("HL207", text) == []


@pytest.mark.parametrize(
    ("length", "hook", "fires"),
    [(36, "PostSync", False), (37, "PostSync", True), (36, "SyncFail", False), (37, "SyncFail", True),
     (40, "Sync", False), (41, "Sync", True), (37, "PreSync", False), (38, "PreSync", True)],
)  # fmt: skip
def test_hl207_length_limit_per_phase(length, hook, fires):
    prefix = "a" * (length - 1) + "-"
    got = hits("HL207", gen_job(prefix, hook))
    assert [(line, col) for line, col, _ in got] == ([(4, 17)] if fires else [])


# --- HL013 -------------------------------------------------------------------------------------


def annotated(options: str, kind: str = "ConfigMap") -> str:
    return f"apiVersion: v1\nkind: {kind}\nmetadata:\n  name: cm\n  annotations:\n" \
           f"    argocd.argoproj.io/sync-options: {options}\n"


@pytest.mark.parametrize(
    ("options", "messages"),
    [
        ("Prune=true,Prune=false", ["'Prune=false' is ignored: Argo CD reads only the first 'Prune=' item ('Prune=true')."]),
        ("CreateNamespace", ["'CreateNamespace' has no value and is silently ignored. Did you mean 'CreateNamespace=true'?"]),
        ("PruneLst=true", ["'PruneLst=true' is not a sync option Argo CD knows and is silently ignored. Did you mean 'PruneLast=true'?"]),
        ("Prune=no", ["'Prune=no' is not a value Argo CD knows and is silently ignored; it acts only on Prune=false and Prune=confirm."]),
        ("ServerSideApply=True", ["'ServerSideApply=True' is misspelt and silently ignored. Did you mean 'ServerSideApply=true'?"]),
        ("Validate=true,Replace=false,PruneLast=false", []),
        ("ApplyOutOfSyncOnly=true", ["'ApplyOutOfSyncOnly=true' is an application-level option: Argo CD reads it only from the Application's spec.syncPolicy.syncOptions and ignores it on a resource."]),
        # newuser8: never a destructive option by spelling distance (Replace=true replaces, Force=true
        # recreates, PrunePropagationPolicy decides what a prune deletes); only but for case or spaces
        ("Retry=true", ["'Retry=true' is not a sync option and is silently ignored: to retry a failed sync, set the Application's spec.syncPolicy.retry (limit, backoff)."]),
        ("selfHeal=true", ["'selfHeal=true' is not a sync option and is silently ignored: to revert drift, set the Application's spec.syncPolicy.automated.selfHeal."]),
        ("Replce=true", ["'Replce=true' is not a sync option Argo CD knows and is silently ignored."]),
        ("Forse=true", ["'Forse=true' is not a sync option Argo CD knows and is silently ignored."]),
        ("PrunePropagationPolic=orphan", ["'PrunePropagationPolic=orphan' is not a sync option Argo CD knows and is silently ignored."]),
        ("replace=true", ["'replace=true' is misspelt (options are case-sensitive) and silently ignored. Did you mean 'Replace=true'?"]),
        ("Force = true", ["'Force = true' is misspelt (spaces around '=') and silently ignored. Did you mean 'Force=true'?"]),
    ],
)  # fmt: skip
def test_hl013_items(options, messages):
    got = hits("HL013", annotated(options))
    assert [m for _, _, m in got] == [f"argocd.argoproj.io/sync-options on ConfigMap/cm: {m}" for m in messages]
    assert all((line, col) == (6, 38) for line, col, _ in got)


APPSET = """\
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: tenants
spec:
  generators:
    - list: {elements: [{name: a}]}
  template:
    metadata:
      name: '{{name}}'
    spec:
      project: tenants
      source: {repoURL: https://github.com/acme/deploy.git, path: tenants, targetRevision: main}
      destination: {server: https://kubernetes.default.svc, namespace: '{{name}}'}
      syncPolicy:
        syncOptions:
          - CreateNamespace=true
          - SkipDryRunOnMissingResource=true
          - '{{extraOption}}'
          - Replace=ture
"""


def test_hl013_applicationset_template_and_version():
    got = hits("HL013", APPSET, argocd_version="3.0")
    assert [(line, col) for line, col, _ in got] == [(18, 13), (20, 13)]
    assert got[0][2] == (
        "spec.template.spec.syncPolicy.syncOptions of ApplicationSet/tenants: 'SkipDryRunOnMissingResource=true' "
        "is read only since Argo CD 3.1 (configured: 3.0.23): set it in the argocd.argoproj.io/sync-options "
        "annotation of the custom resources instead."
    )
    assert got[1][2] == (
        "spec.template.spec.syncPolicy.syncOptions of ApplicationSet/tenants: 'Replace=ture' is not a value Argo "
        "CD knows and is silently ignored; it acts only on Replace=true."
    )
    assert where("HL013", APPSET, argocd_version="3.1") == [(20, 13)]


# --- HL015 / HL016 / HL017 ---------------------------------------------------------------------


def test_hl015_unknown_event_gets_a_suggestion():
    got = hits("HL015", hook_job("helm.sh/hook: pre-instal\n"))
    assert got == [(
        6, 19,
        "helm.sh/hook on Job/task: Argo CD never runs 'pre-instal' (unknown; did you mean 'pre-install'?) (it maps "
        "only pre/post-install and -upgrade to PreSync/PostSync, and pre/post-delete to deletion hooks); the "
        "object is a hook with no type Argo CD knows, so it is never applied. Use a hook event Argo CD runs, or "
        "an argocd.argoproj.io/hook annotation.",
    )]  # fmt: skip


def test_hl015_pre_delete_follows_the_version():
    text = hook_job("helm.sh/hook: pre-delete\n")
    assert hits("HL015", text) == []
    (got,) = hits("HL015", text, argocd_version="3.2")
    assert "never runs 'pre-delete' (needs Argo CD 3.3; configured: 3.2.12)" in got[2]


def test_hl015_crd_install_with_an_invalid_argo_hook_is_dropped():
    got = hits("HL015", hook_job("argocd.argoproj.io/hook: presync\nhelm.sh/hook: crd-install\n"))
    assert [(line, col) for line, col, _ in got] == [(7, 19)]
    assert "the object is a hook with no type Argo CD knows, so it is never applied" in got[0][2]


def test_hl015_mixed_values_name_the_phase_that_runs():
    (got,) = hits("HL015", hook_job("helm.sh/hook: pre-install,test-success,test-failure\n"))
    assert "Argo CD never runs 'test-success', 'test-failure'" in got[2]
    assert "it runs the object as a PreSync hook only" in got[2]


def test_hl016_only_sync_phases_are_compared():
    assert hits("HL016", hook_job("argocd.argoproj.io/hook: PreSync\nhelm.sh/hook: test\n")) == []
    assert hits("HL016", hook_job("argocd.argoproj.io/hook: PreSync,PostSync\nhelm.sh/hook: pre-install,post-install\n")) == []
    assert where("HL016", hook_job("argocd.argoproj.io/hook: PreSync,PostSync\nhelm.sh/hook: pre-install\n")) == [(6, 30)]


def test_hl017_delete_types_follow_the_version():
    text = hook_job("argocd.argoproj.io/hook: Skip,PreDelete\n")
    assert hits("HL017", text) == [(
        6, 30,
        "argocd.argoproj.io/hook 'Skip,PreDelete' on Job/task combines Skip with PreDelete: Skip counts only when "
        "it is the only hook type, so Argo CD runs the object as a PreDelete hook after all. Use Skip alone to "
        "keep Argo CD from applying it, or drop Skip.",
    )]  # fmt: skip
    assert hits("HL017", text, argocd_version="3.2") == []
    assert hits("HL017", hook_job("argocd.argoproj.io/hook: Skip,Garbage\n")) == []


def test_hl010_delete_hook_types_follow_argocd_version():
    """PostDelete exists since 2.10 and PreDelete since 3.3 (§4d): older versions ignore them."""
    from hooklint.config import parse_config
    from hooklint.pipeline import lint_text

    text = (
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: cleanup\n  annotations:\n"
        "    argocd.argoproj.io/hook: PostDelete\n"
    )
    old = [f for f in lint_text(text, parse_config({"argocd-version": "2.9"}, "x")) if f.rule_id == "HL010"]
    assert [(f.span.line, f.span.column, f.message) for f in old] == [(
        6, 30,
        "Hook type 'PostDelete' on Job/cleanup needs Argo CD 2.10 or later, and argocd-version is 2.9.22: "
        "that Argo CD treats it as an unknown type, so the hook never runs. Upgrade Argo CD, or set "
        "argocd-version to the version you run.",
    )]  # fmt: skip
    assert [f for f in lint_text(text, parse_config({"argocd-version": "2.10"}, "x")) if f.rule_id == "HL010"] == []
    pre = text.replace("PostDelete", "PreDelete")
    assert [f.span.line for f in lint_text(pre, parse_config({"argocd-version": "3.2"}, "x")) if f.rule_id == "HL010"] == [6]
    assert [f for f in lint_text(pre, parse_config({"argocd-version": "3.3"}, "x")) if f.rule_id == "HL010"] == []


# --- HL306 -------------------------------------------------------------------------------------

CLAIM_BEFORE_ITS_POD = """\
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: cache
spec:
  storageClassName: local-path
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Pod
metadata:
  name: warm
  annotations:
    argocd.argoproj.io/sync-wave: "1"
spec:
  containers:
    - name: warm
      image: busybox:1.36
  volumes:
    - name: data
      persistentVolumeClaim: {claimName: cache}
"""


def test_hl306_cluster_classes_come_from_the_configuration_and_the_run_wins():
    assert where("HL306", CLAIM_BEFORE_ITS_POD) == []  # the cluster's classes are unknown
    assert where("HL306", CLAIM_BEFORE_ITS_POD, wait_for_first_consumer_classes=["local-path"]) == [(6, 21)]
    immediate = "---\napiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: local-path\n" \
        "provisioner: rancher.io/local-path\nvolumeBindingMode: Immediate\n"
    # the run applies a StorageClass of that name that binds at once: it is what the cluster will hold
    assert where("HL306", CLAIM_BEFORE_ITS_POD + immediate, wait_for_first_consumer_classes=["local-path"]) == []
