"""Issue 36: the mutants mutmut left alive in the rules the issue touches (``bench/mutmut_checks.py``
over their functions, each with its own tests); each test here fails on the mutant it names and
asserts exact positions, messages or the absence of a finding on a realistic manifest."""

from __future__ import annotations

from conftest import hits

WEB = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-settings
  namespace: shop
data:
  LISTEN: ":8080"
---
apiVersion: v1
kind: Service
metadata:
  name: web-internal
  namespace: shop
spec:
  type: ClusterIP
  ports: [{port: 8080}]
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
spec:
  type: LoadBalancer
  ports: [{port: 443}]
---
apiVersion: v1
kind: Service
metadata:
  name: admin
  namespace: shop
spec:
  type: LoadBalancer
  ports: [{port: 8443}]
"""

SMOKE_TEST = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: smoke-test
  namespace: shop
  annotations:
    argocd.argoproj.io/hook: PostSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 300
  template:
    spec:
      serviceAccountName: smoke
      automountServiceAccountToken: false
      restartPolicy: Never
      containers:
      - name: smoke
        image: ghcr.io/acme/smoke:1.4.2
"""


def test_hl311_reports_every_loadbalancer_service_after_other_objects():
    """A ConfigMap and a ClusterIP Service come before the two LoadBalancer Services: each
    LoadBalancer Service is reported at its type (mutants: ``break`` for the first ``continue``
    of the kind test or of the type test, ``return`` after the first Service's finding)."""
    found = hits("HL311", WEB, context=SMOKE_TEST)
    assert [(line, column, message[:60]) for line, column, message in found] == [
        (24, 9, "Service/web is a LoadBalancer Service applied in Sync wave 0"),
        (33, 9, "Service/admin is a LoadBalancer Service applied in Sync wave"),
    ]
    assert "and 1 later step follows (the next, PostSync wave 0, starts with Job/smoke-test)" in found[0][2]


MIGRATE_SECRET = """\
apiVersion: v1
kind: Secret
metadata:
  name: migrate-credentials
  namespace: shop
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
type: Opaque
data:
  DATABASE_URL: cG9zdGdyZXM6Ly9taWdyYXRlQGRiOjU0MzIvc2hvcA==
"""


def test_hl209_a_hook_secret_with_data_holds_nothing_generated():
    """A hook Secret that carries its ``data`` is re-created from the manifest each sync, nothing
    lost: no HL209. Without ``data`` or ``stringData`` a controller fills it, so deleting it loses
    what was generated (mutants: the ``data`` key read under another name)."""
    assert hits("HL209", MIGRATE_SECRET) == []
    generated = MIGRATE_SECRET.replace("data:\n  DATABASE_URL: cG9zdGdyZXM6Ly9taWdyYXRlQGRiOjU0MzIvc2hvcA==\n", "")
    assert hits("HL209", generated) == [(
        7, 30,
        "Secret/migrate-credentials is a hook, so Argo CD deletes and re-creates it at every sync "
        "(BeforeHookCreation), and its data goes with it. Make it a normal resource with a sync wave.",
    )]


# --- HL308 -------------------------------------------------------------------------------------

REDIS = """\
apiVersion: redis.redis.opstreelabs.in/v1beta2
kind: Redis
metadata:
  name: cart-cache
  namespace: shop
  annotations:
    argocd.argoproj.io/sync-wave: "-1"
spec:
  kubernetesConfig:
    image: quay.io/opstree/redis:v7.0.12
    redisSecret:
      name: cart-cache-auth
      key: password
"""

CART = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: cart
  namespace: shop
spec:
  template:
    spec:
      containers:
      - name: cart
        image: ghcr.io/acme/cart:2.3.1
        env:
        - name: REDIS_PASSWORD
          valueFrom:
            secretKeyRef: {name: cart-cache-auth, key: password}
"""

ARGOCD_CM = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-cm
  namespace: argocd
data:
  url: https://argocd.example.com
"""

ARGOCD = """\
apiVersion: argoproj.io/v1beta1
kind: ArgoCD
metadata:
  name: argocd
  namespace: argocd
"""


def _lint(*documents: str) -> list:
    """The findings of ``documents``, one application in that order."""
    from hooklint.config import parse_config
    from hooklint.pipeline import lint_text

    return lint_text("---\n".join(documents), config=parse_config({}, "test"))


def _hl308(*documents: str) -> list[tuple[int, int, str, str, str]]:
    """``(line, column, severity, field path, the object the message starts with)`` of each HL308
    finding of ``documents``, one application in that order."""
    return [(f.span.line, f.span.column, f.severity, f.field_path, f.message.split(" ", 1)[0])
            for f in _lint(*documents) if f.rule_id == "HL308"]


def _shifted(lines: int) -> tuple[int, int, str, str, str]:
    """The warning at Deployment/cart's secretKeyRef name when ``lines`` lines come before REDIS."""
    return (lines + 29, 34, "warning", "spec.template.spec.containers[0].env[0].valueFrom.secretKeyRef.name", "Deployment/cart")


def test_hl308_the_base_warning():
    assert _hl308(REDIS, CART) == [_shifted(0)]


def test_hl308_only_argocd_cms_health_keys_configure_a_health_check():
    """argocd-cm's other settings, a misspelt key (``heatlh``, as long as ``health``) and the same
    key in another ConfigMap configure nothing (mutants: ``or`` for ``and`` in the name, the
    prefix and the key tests; argocd-cm placed first also kills ``break`` for the first loop's
    ``continue``)."""
    lines = ARGOCD_CM.count("\n") + 1
    assert _hl308(ARGOCD_CM, REDIS, CART) == [_shifted(lines)]
    misspelt = ARGOCD_CM + "  resource.customizations.heatlh.redis.redis.opstreelabs.in_Redis: |\n    return {status = \"Healthy\"}\n"
    assert _hl308(misspelt, REDIS, CART) == [_shifted(lines + 2)]
    spelt = misspelt.replace("heatlh", "health")
    assert _hl308(spelt, REDIS, CART) == []
    elsewhere = spelt.replace("name: argocd-cm", "name: argocd-cm-staging")
    assert _hl308(elsewhere, REDIS, CART) == [_shifted(lines + 2)]


def test_hl308_reads_the_older_resource_customizations_block():
    """``resource.customizations`` (one YAML block for every kind) configures the kind's health
    only with a ``health.lua`` under ``<group>/<kind>`` (mutants: the block never read, ``or``
    for ``and``, ``not in``, the word ``health.lua`` changed, ``return False``)."""
    block = ARGOCD_CM + "  resource.customizations: |\n    redis.redis.opstreelabs.in/Redis:\n      {entry}\n"
    lines = block.count("\n") + 1
    health = block.format(entry="health.lua: |\n        return {status = \"Healthy\"}")
    assert _hl308(health, REDIS, CART) == []
    ignore = block.format(entry="ignoreDifferences: |\n        jsonPointers: [/spec/kubernetesConfig/image]")
    assert _hl308(ignore, REDIS, CART) == [_shifted(lines + 1)]
    other_kind = health.replace("redis.redis.opstreelabs.in/Redis:", "cert-manager.io/Certificate:")
    assert _hl308(other_kind, REDIS, CART) == [_shifted(lines + 1)]


def test_hl308_reads_the_operators_resource_health_checks():
    """An ``ArgoCD`` resource (the Argo CD operator's) configures health in
    ``spec.resourceHealthChecks``, matched on group and kind; one without a spec configures none;
    an argocd-cm without data before it is passed over (mutants: ``break`` for ``continue``,
    ``or True`` on the spec test, ``or`` for ``and`` in the entry test)."""
    checks = ARGOCD + "spec:\n  resourceHealthChecks:\n  - group: {group}\n    kind: Redis\n    check: |\n      return {{status = \"Healthy\"}}\n"
    no_data = ARGOCD_CM.replace("data:\n  url: https://argocd.example.com\n", "")
    assert _hl308(no_data, checks.format(group="redis.redis.opstreelabs.in"), REDIS, CART) == []
    other_group = checks.format(group="cache.example.com")
    assert _hl308(other_group, REDIS, CART) == [_shifted(other_group.count("\n") + 1)]
    assert _hl308(ARGOCD, REDIS, CART) == [_shifted(ARGOCD.count("\n") + 1)]


def test_hl308_reads_names_only_below_keys_that_mention_a_secret_or_configmap():
    """The custom resource proves the dependency only when it names the Secret or ConfigMap below
    a key that mentions one (``configMapRef``; a list of ``secrets``); the same string under
    another key is no proof, so only the note (mutants: ``inside=True`` by default, ``not in``,
    the word ``configmap`` changed, a list's items not inside their key)."""
    settings = CART.replace("        env:\n        - name: REDIS_PASSWORD\n          valueFrom:\n"
                            "            secretKeyRef: {name: cart-cache-auth, key: password}\n",
                            "        envFrom:\n        - configMapRef: {name: cart-settings}\n")
    by_config_map = REDIS.replace("spec:\n", "spec:\n  configMapRef: {name: cart-settings}\n")
    warning = (28, 32, "warning", "spec.template.spec.containers[0].envFrom[0].configMapRef.name", "Deployment/cart")
    assert _hl308(by_config_map, settings) == [warning]
    note = (7, 35, "note", "metadata.annotations.argocd.argoproj.io/sync-wave", "Redis/cart-cache")
    by_name = REDIS.replace("spec:\n", "spec:\n  serviceName: cart-settings\n")
    assert _hl308(by_name, settings) == [note]
    listed = REDIS.replace("    redisSecret:\n      name: cart-cache-auth\n      key: password\n",
                           "  acl:\n    secrets: [cart-cache-auth]\n")
    assert _hl308(listed, CART) == [(28, 34, *_shifted(0)[2:])]
    # a ConfigMap the application defines is applied by Argo CD, not written by the controller
    defined = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cart-settings\n  namespace: shop\n"
    assert _hl308(defined, by_config_map, settings) == [(13, 35, *note[2:])]


SMOKE_READS = SMOKE_TEST.replace("        image: ghcr.io/acme/smoke:1.4.2\n", "        image: ghcr.io/acme/smoke:1.4.2\n"
                                 "        envFrom:\n        - secretRef: {name: cart-cache-auth}\n")


def test_hl308_leaves_out_what_argo_cd_does_not_gate():
    """Kubernetes' own kinds and Applications are no writers (a ConfigMap or an Application in an
    earlier wave: nothing); SyncFail hooks and CronJobs never wait on the resource (no warning,
    and a SyncFail hook is no follower either); an object no sync applies (a Skip hook) has no
    task (mutants: ``and`` for ``or`` in the writer and reader tests, which also fail on a
    missing task; the words SyncFail and CronJob changed)."""
    early = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cart-flags\n  namespace: shop\n  annotations:\n    argocd.argoproj.io/sync-wave: "-1"\n'
    assert _hl308(early, SMOKE_TEST) == []
    policy = ("apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: cart-ingress\n  namespace: shop\n"
              '  annotations:\n    argocd.argoproj.io/sync-wave: "-1"\nspec:\n  podSelector: {matchLabels: {app: cart}}\n'
              "  policyTypes: [Ingress]\n")  # fmt: skip
    assert _hl308(policy, SMOKE_TEST) == []  # a kind of Kubernetes' own with a spec and no health check
    child = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: shop-db\n  namespace: shop\n"
             '  annotations:\n    argocd.argoproj.io/sync-wave: "-1"\nspec:\n  project: shop\n'
             "  source: {repoURL: https://github.com/acme/shop, path: db}\n"
             "  destination: {server: https://kubernetes.default.svc, namespace: shop}\n")  # fmt: skip
    assert _hl308(child, SMOKE_TEST) == []
    sync_fail = SMOKE_READS.replace("PostSync", "SyncFail")
    assert _hl308(REDIS, sync_fail) == []
    cron = ("apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: cart-report\n  namespace: shop\nspec:\n"
            '  schedule: "0 3 * * *"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n'
            "          restartPolicy: OnFailure\n          containers:\n          - name: report\n"
            "            image: ghcr.io/acme/cart-report:2.3.1\n            envFrom:\n"
            "            - secretRef: {name: cart-cache-auth}\n")  # fmt: skip
    note = (7, 35, "note", "metadata.annotations.argocd.argoproj.io/sync-wave", "Redis/cart-cache")
    assert _hl308(REDIS, cron) == [note]
    skipped = REDIS.replace("name: cart-cache\n", "name: cart-cache-replica\n").replace(
        'argocd.argoproj.io/sync-wave: "-1"', "argocd.argoproj.io/hook: Skip")
    assert _hl308(REDIS, skipped, CART) == [_shifted(skipped.count("\n") + 1)]
    # a kind with a bundled health check before the resource (mutant: break for continue)
    certificate = ("apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: cart-tls\n  namespace: shop\n"
                   '  annotations:\n    argocd.argoproj.io/sync-wave: "-2"\nspec:\n  secretName: cart-tls\n'
                   "  dnsNames: [cart.example.com]\n  issuerRef: {name: letsencrypt, kind: ClusterIssuer}\n")  # fmt: skip
    assert _hl308(certificate, REDIS, CART) == [_shifted(certificate.count("\n") + 1)]
    # the objects passed over come before the one that reads the Secret (mutant: break for continue)
    assert _hl308(REDIS, sync_fail, cron, CART) == [_shifted(sync_fail.count("\n") + cron.count("\n") + 2)]


def test_hl308_each_resource_is_weighed_against_each_reader():
    """Two custom resources before the Deployment: the first names another Secret (a note: it is
    followed, but nothing proves a dependency), lives in another namespace, or is of a kind with a
    configured health check; the second names the Secret the Deployment reads (the warning)
    (mutants: ``break`` for each ``continue`` of the loop over the resources)."""
    sessions = REDIS.replace("cart-cache", "sessions")
    lines = sessions.count("\n") + 1
    assert _hl308(sessions, REDIS, CART) == [
        (7, 35, "note", "metadata.annotations.argocd.argoproj.io/sync-wave", "Redis/sessions"),
        _shifted(lines),
    ]
    # one in another namespace first (no follower there: nothing), then the one the Deployment reads
    cache = REDIS.replace("namespace: shop", "namespace: cache")
    assert _hl308(cache, REDIS, CART) == [_shifted(lines)]
    # Redis has a configured health check: the replication that names the same Secret is the warning
    health = ARGOCD_CM + "  resource.customizations.health.redis.redis.opstreelabs.in_Redis: |\n    return {status = \"Healthy\"}\n"
    replication = REDIS.replace("kind: Redis", "kind: RedisReplication").replace("name: cart-cache\n", "name: cart-cache-replica\n")
    found = _hl308(health, REDIS, replication, CART)
    assert found == [_shifted(health.count("\n") + lines + 1)]
    message = next(f.message for f in _lint(health, REDIS, replication, CART) if f.rule_id == "HL308")
    assert "which RedisReplication/cart-cache-replica (Sync wave -1) names in spec.kubernetesConfig.redisSecret.name" in message


def test_hl308_note_without_a_step_annotation_is_at_the_name():
    """A resource in the default wave followed by a PostSync hook: the note is at the object, about
    its ``metadata.name`` (mutants: the field path of an annotation never written, or misspelt)."""
    plain = REDIS.replace('  annotations:\n    argocd.argoproj.io/sync-wave: "-1"\n', "")
    assert _hl308(plain, SMOKE_TEST) == [(4, 9, "note", "metadata.name", "Redis/cart-cache")]


# --- HL202 and the helpers HL201, HL202 and HL206 share ----------------------------------------

SEED = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: seed
  namespace: shop
  annotations:
    argocd.argoproj.io/hook: {hook}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: seed
        image: ghcr.io/acme/seed:1.4.2
"""


def test_a_hook_says_what_it_holds_up():
    """What a hook's retries hold up: the sync for a sync-phase hook, the Application's deletion
    for a delete hook, both for a hook of both, and the sync for a plain Job linted with
    check-all-workloads (mutants of ``_waiting``: each condition and each phrase)."""
    def waits(text: str, config: dict | None = None) -> str:
        (message,) = [message for _, _, message in hits("HL201", text, config)]
        return message.split(" with growing back-off while ", 1)[1].split(" waits.", 1)[0]

    assert waits(SEED.format(hook="PreSync")) == "the sync"
    assert waits(SEED.format(hook="PostDelete")) == "the Application's deletion"
    assert waits(SEED.format(hook="PreSync,PostDelete")) == "the sync (or the Application's deletion)"
    plain = SEED.replace("  annotations:\n    argocd.argoproj.io/hook: {hook}\n", "")
    assert waits(plain, {"check-all-workloads": True}) == "the sync"
    assert waits(SEED.format(hook="Skip,PostDelete")) == "the Application's deletion"
    never = "whatever created it (Argo CD never applies it as it stands, so no sync or Application deletion waits for it)"
    for hook in ("Skip", "Cleanup"):  # no sync phase and no delete type: only linted with workload-scope all
        assert waits(SEED.format(hook=hook), {"workload-scope": "all"}) == never


def test_hl202_says_what_a_hanging_workload_holds_up():
    """HL202 on a workload Argo CD never applies (``Skip``, or an ignored hook: no valid type)
    linted with workload-scope all: nothing of Argo CD waits for it, unlike a delete hook (it said
    the hook blocked the Application's deletion: the branch mutant 9 of ``_waiting`` showed was
    untested)."""
    def hangs(hook: str) -> list[tuple[int, int, str]]:
        return hits("HL202", SEED.format(hook=hook), {"workload-scope": "all"})

    never = ("Job/seed has no spec.activeDeadlineSeconds: a hook that hangs runs until someone deletes it (Argo CD "
             "never applies it as it stands, so no sync or Application deletion waits for it). Set "
             "spec.activeDeadlineSeconds.")
    assert hangs("Skip") == [(8, 1, never)]
    assert hangs("Cleanup") == [(8, 1, never)]
    assert hangs("Skip,PostDelete") == [(8, 1, (
        "Job/seed has no spec.activeDeadlineSeconds: a hook that hangs blocks deleting the Application (Argo CD "
        "waits for every delete hook before it goes on) until someone deletes the hook. Set "
        "spec.activeDeadlineSeconds."))]
    assert hangs("PreSync,PostDelete") == [(8, 1, (
        "Job/seed has no spec.activeDeadlineSeconds: a hook that hangs keeps Argo CD \"waiting for completion of "
        "hook\" and wedges every sync until someone terminates it, and blocks deleting the Application until "
        "someone deletes the hook. Set spec.activeDeadlineSeconds."))]


def test_hl201_and_hl202_call_a_plain_workload_by_its_kind():
    """A plain Job linted with workload-scope all is no hook: Argo CD applies it in its wave and
    waits for its health ("waiting for healthy state of batch/Job/seed", setRunningPhase in
    gitops-engine/pkg/sync/sync_context.go). The messages said "a failing hook" and "waiting for
    completion of hook" of it."""
    plain = SEED.replace("  annotations:\n    argocd.argoproj.io/hook: {hook}\n", "")
    assert hits("HL201", plain, {"workload-scope": "all"}) == [(6, 1, (
        "Job/seed has no spec.backoffLimit, so a failing Job is retried 6 times (the Kubernetes default) with "
        "growing back-off while the sync waits. Set spec.backoffLimit (0-2 is typical for a Job that runs a task "
        "during a sync)."))]
    assert hits("HL202", plain, {"workload-scope": "all"}) == [(6, 1, (
        "Job/seed has no spec.activeDeadlineSeconds: a Job that hangs keeps Argo CD \"waiting for healthy state of "
        "batch/Job/seed\" and wedges every sync until someone terminates it. Set spec.activeDeadlineSeconds."))]
    skipped = [m for _, _, m in hits("HL202", SEED.format(hook="Skip"), {"workload-scope": "all"})]
    assert [m.split(":", 1)[1][:22] for m in skipped] == [" a hook that hangs run"]


def test_a_hook_job_without_a_spec_is_reported_at_its_name():
    """A hook Job with no spec at all (half-written): HL201 and HL202 at its name, where the
    engine anchors the object (mutant of ``_spec_key_span``: the spec key read though absent)."""
    bare = SEED.split("spec:\n", 1)[0].format(hook="PreSync")
    assert [(line, column) for line, column, _ in hits("HL202", bare)] == [(4, 9)]
    assert [(line, column) for line, column, _ in hits("HL201", bare)] == [(4, 9)]


# --- HL304 -------------------------------------------------------------------------------------

HELM_HOOK = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  namespace: shop
  annotations:
    helm.sh/hook: {hook}
{weight}spec:
  backoffLimit: 1
  activeDeadlineSeconds: 300
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: {name}
        image: ghcr.io/acme/shop-tools:1.4.2
"""


def test_hl304_points_at_the_helm_hook_of_a_step_without_a_weight():
    """A chart's hooks: two pre-install weights, then a post-install hook with no weight. Over
    max-waves 2, step 3 starts with the post-install Job, whose only step annotation is
    ``helm.sh/hook``: the finding is at its value (mutants: ``helm.sh/hook`` left out of the
    annotations the position is read from)."""
    text = "---\n".join([
        HELM_HOOK.format(name="backup", hook="pre-install", weight='    helm.sh/hook-weight: "-2"\n'),
        HELM_HOOK.format(name="migrate", hook="pre-install", weight='    helm.sh/hook-weight: "-1"\n'),
        HELM_HOOK.format(name="smoke-test", hook="post-install", weight=""),
    ])
    found = hits("HL304", text, {"max-waves": 2})
    assert [(line, column, message[:90]) for line, column, message in found] == [
        (43, 19, "The sync plan has 3 health-gated (phase, wave) steps, more than max-waves (2); step 3 (Pos"),
    ]


def test_hl305_names_the_argocd_hook_when_a_hook_has_both_annotations():
    """A chart written for Helm and Argo CD alike: its only object carries ``helm.sh/hook`` and
    ``argocd.argoproj.io/hook``; Argo CD reads its own (HL016 says so), and HL305 is at that key,
    its field path naming it (mutants: the Argo CD key left out of the field path's lookup)."""
    both = HELM_HOOK.format(name="migrate", hook="pre-install", weight="    argocd.argoproj.io/hook: PreSync\n")
    assert [(f.span.line, f.span.column, f.field_path) for f in _lint(both) if f.rule_id == "HL305"] == [
        (8, 30, "metadata.annotations.argocd.argoproj.io/hook"),
    ]


# --- HL206's Pod Security controls ------------------------------------------------------------

NODE_TUNING = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: node-tuning
  namespace: shop
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 300
  template:
    metadata:
      annotations:
        container.apparmor.security.beta.kubernetes.io/tune: unconfined
        container.apparmor.security.beta.kubernetes.io/wait: localhost/tune-profile
        container.apparmor.security.beta.kubernetes.io/log: runtime/default
    spec:
      restartPolicy: Never
      hostNetwork: true
      hostPID: true
      hostIPC: true
      securityContext:
        seccompProfile: {type: Unconfined}
        seLinuxOptions: {type: spc_t, user: system_u, role: system_r}
        appArmorProfile: {type: Unconfined}
      initContainers:
      - name: wait
        image: ghcr.io/acme/wait:1.0.0
        securityContext:
          privileged: true
          procMount: Unmasked
      containers:
      - name: tune
        image: ghcr.io/acme/tune:1.0.0
        ports:
        - {containerPort: 9100, hostPort: 9100}
        - {containerPort: 9101, hostPort: 0}
        securityContext:
          capabilities:
            add: [NET_BIND_SERVICE, SYS_ADMIN]
          seccompProfile: {}
          windowsOptions: {hostProcess: true}
      volumes:
      - name: sys
        hostPath: {path: /sys}
      - name: scratch
        emptyDir: {}
      - name: share
        nfs: {server: nfs.example.com, path: /exports}
"""

SMOKE_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: smoke-test
  namespace: shop
  annotations:
    argocd.argoproj.io/hook: PostSync
spec:
  restartPolicy: Never
  securityContext:
    runAsNonRoot: false
    runAsUser: 0
    seccompProfile: {type: RuntimeDefault}
  containers:
  - name: smoke
    image: ghcr.io/acme/smoke:1.4.2
    securityContext:
      allowPrivilegeEscalation: true
      runAsNonRoot: false
      runAsUser: 0
      capabilities:
        drop: [ALL]
        add: [NET_BIND_SERVICE, CHOWN]
  - name: report
    image: ghcr.io/acme/report:1.4.2
    securityContext:
      allowPrivilegeEscalation: false
      runAsUser: 1000
      capabilities: {drop: [NET_RAW]}
"""

WINDOWS_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: win-smoke
  namespace: shop
  annotations:
    argocd.argoproj.io/hook: PostSync
spec:
  os: {name: windows}
  hostUsers: false
  restartPolicy: Never
  securityContext:
    seccompProfile: {type: Unconfined}
    windowsOptions: {hostProcess: true}
  containers:
  - name: smoke
    image: ghcr.io/acme/smoke:1.4.2
    securityContext:
      procMount: Unmasked
      runAsUser: 0
      capabilities: {drop: [ALL]}
"""

NON_ROOT_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: smoke-test
  namespace: shop
  annotations:
    argocd.argoproj.io/hook: PostSync
spec:
  restartPolicy: Never
  securityContext:
    runAsNonRoot: true
  containers:
  - name: smoke
    image: ghcr.io/acme/smoke:1.4.2
    securityContext:
      allowPrivilegeEscalation: false
      capabilities: {drop: [ALL]}
  - name: report
    image: ghcr.io/acme/report:1.4.2
    securityContext:
      allowPrivilegeEscalation: false
      runAsNonRoot: false
      seccompProfile: {type: Localhost, localhostProfile: report.json}
      capabilities: {drop: [ALL]}
"""


def _violations(text: str, level: str) -> list[tuple[str, str, int, int, str]]:
    """``(control, detail, line, column, field path)`` of each Pod Security violation of the hook
    Job or Pod of ``text`` at ``level``, as HL206 reads them (its message names the controls and
    details; its position is the first violation's)."""
    from hooklint.checks.lifecycle import _pss_violations
    from hooklint.loader import parse_text
    from hooklint.model import get_map, manifests_of

    (m,) = [m for m in manifests_of([parse_text("hook.yaml", text)]) if m.kind in ("Job", "Pod")]
    pod = m.pod_spec()
    assert pod is not None
    owner = m.body if m.kind == "Pod" else get_map(get_map(m.body, "spec"), "template")
    return [(control, detail, span.line, span.column, path)
            for control, detail, span, path in _pss_violations(pod, get_map(owner, "metadata"), m, level)]


def test_hl206_every_baseline_control_of_a_node_tuning_hook():
    """A hook that tunes nodes breaks most baseline controls at once: every one is found, in the
    standard's order, at its field (mutants of ``_pss_violations``: each test, span and path);
    the restricted level adds its own and swaps the capability and volume checks."""
    assert _violations(NODE_TUNING, "baseline") == [
        ("Host Namespaces", "hostNetwork=true", 19, 20, "spec.template.spec.hostNetwork"),
        ("Host Namespaces", "hostPID=true", 20, 16, "spec.template.spec.hostPID"),
        ("Host Namespaces", "hostIPC=true", 21, 16, "spec.template.spec.hostIPC"),
        ("Privileged Containers", "container 'wait' must not set securityContext.privileged=true", 30, 23, "spec.template.spec.initContainers[0].securityContext.privileged"),
        ("Capabilities", "container 'tune' must not add SYS_ADMIN", 40, 37, "spec.template.spec.containers[0].securityContext.capabilities.add[1]"),
        ("HostPath Volumes", "volume 'sys' uses hostPath", 45, 9, "spec.template.spec.volumes[0].hostPath"),
        ("Host Ports", "container 'tune' must not set hostPort=9100", 36, 43, "spec.template.spec.containers[0].ports[0].hostPort"),
        ("AppArmor", "annotation container.apparmor.security.beta.kubernetes.io/tune=unconfined", 14, 62, "metadata.annotations.container.apparmor.security.beta.kubernetes.io/tune"),
        ("AppArmor", "pod must not set appArmorProfile.type=Unconfined", 25, 33, "spec.template.spec.securityContext.appArmorProfile.type"),
        ("SELinux", "pod must not set seLinuxOptions.type=spc_t", 24, 32, "spec.template.spec.securityContext.seLinuxOptions.type"),
        ("SELinux", "pod must not set seLinuxOptions.user", 24, 45, "spec.template.spec.securityContext.seLinuxOptions.user"),
        ("SELinux", "pod must not set seLinuxOptions.role", 24, 61, "spec.template.spec.securityContext.seLinuxOptions.role"),
        ("Seccomp", "pod must not set seccompProfile.type=Unconfined", 23, 32, "spec.template.spec.securityContext.seccompProfile.type"),
        ("Seccomp", "container 'tune' must not set seccompProfile.type=\"\"", 41, 11, "spec.template.spec.containers[0].securityContext.seccompProfile.type"),
        ("HostProcess", "container 'tune' must not set windowsOptions.hostProcess=true", 42, 41, "spec.template.spec.containers[0].securityContext.windowsOptions.hostProcess"),
        ("/proc Mount Type", "container 'wait' must not set securityContext.procMount=Unmasked", 31, 22, "spec.template.spec.initContainers[0].securityContext.procMount"),
    ]
    assert _violations(NODE_TUNING, "restricted") == [
        ("Host Namespaces", "hostNetwork=true", 19, 20, "spec.template.spec.hostNetwork"),
        ("Host Namespaces", "hostPID=true", 20, 16, "spec.template.spec.hostPID"),
        ("Host Namespaces", "hostIPC=true", 21, 16, "spec.template.spec.hostIPC"),
        ("Privileged Containers", "container 'wait' must not set securityContext.privileged=true", 30, 23, "spec.template.spec.initContainers[0].securityContext.privileged"),
        ("Volume Types", "volume 'sys' uses hostPath", 45, 9, "spec.template.spec.volumes[0].hostPath"),
        ("Volume Types", "volume 'share' uses nfs", 49, 9, "spec.template.spec.volumes[2].nfs"),
        ("Host Ports", "container 'tune' must not set hostPort=9100", 36, 43, "spec.template.spec.containers[0].ports[0].hostPort"),
        ("AppArmor", "annotation container.apparmor.security.beta.kubernetes.io/tune=unconfined", 14, 62, "metadata.annotations.container.apparmor.security.beta.kubernetes.io/tune"),
        ("AppArmor", "pod must not set appArmorProfile.type=Unconfined", 25, 33, "spec.template.spec.securityContext.appArmorProfile.type"),
        ("SELinux", "pod must not set seLinuxOptions.type=spc_t", 24, 32, "spec.template.spec.securityContext.seLinuxOptions.type"),
        ("SELinux", "pod must not set seLinuxOptions.user", 24, 45, "spec.template.spec.securityContext.seLinuxOptions.user"),
        ("SELinux", "pod must not set seLinuxOptions.role", 24, 61, "spec.template.spec.securityContext.seLinuxOptions.role"),
        ("Seccomp", "pod must not set seccompProfile.type=Unconfined", 23, 32, "spec.template.spec.securityContext.seccompProfile.type"),
        ("Seccomp", "container 'tune' must not set seccompProfile.type=\"\"", 41, 11, "spec.template.spec.containers[0].securityContext.seccompProfile.type"),
        ("HostProcess", "container 'tune' must not set windowsOptions.hostProcess=true", 42, 41, "spec.template.spec.containers[0].securityContext.windowsOptions.hostProcess"),
        ("/proc Mount Type", "container 'wait' must not set securityContext.procMount=Unmasked", 31, 22, "spec.template.spec.initContainers[0].securityContext.procMount"),
        ("Privilege Escalation", "containers 'wait', 'tune' must set securityContext.allowPrivilegeEscalation=false", 27, 15, "spec.template.spec.initContainers[0].securityContext.allowPrivilegeEscalation"),
        ("Running as Non-root", "pod or containers 'wait', 'tune' must set securityContext.runAsNonRoot=true", 17, 5, "spec.template.spec.securityContext.runAsNonRoot"),
        ("Capabilities", "container 'wait' must set securityContext.capabilities.drop=[\"ALL\"]", 27, 15, "spec.template.spec.initContainers[0].securityContext.capabilities.drop"),
        ("Capabilities", "container 'tune' must set securityContext.capabilities.drop=[\"ALL\"]", 33, 15, "spec.template.spec.containers[0].securityContext.capabilities.drop"),
        ("Capabilities", "container 'tune' must not add SYS_ADMIN", 40, 37, "spec.template.spec.containers[0].securityContext.capabilities.add[1]"),
    ]


def test_hl206_restricted_controls_of_a_smoke_test_pod():
    """Explicit ``runAsNonRoot: false`` and ``runAsUser: 0`` on the pod and a container, an added
    capability other than NET_BIND_SERVICE, a drop list without ALL: restricted only."""
    assert _violations(SMOKE_POD, "baseline") == []
    assert _violations(SMOKE_POD, "restricted") == [
        ("Privilege Escalation", "container 'smoke' must set securityContext.allowPrivilegeEscalation=false", 18, 33, "spec.containers[0].securityContext.allowPrivilegeEscalation"),
        ("Running as Non-root", "pod must not set securityContext.runAsNonRoot=false", 11, 19, "spec.securityContext.runAsNonRoot"),
        ("Running as Non-root", "container 'smoke' must not set securityContext.runAsNonRoot=false", 19, 21, "spec.containers[0].securityContext.runAsNonRoot"),
        ("Running as Non-root user", "pod must not set runAsUser=0", 12, 16, "spec.securityContext.runAsUser"),
        ("Running as Non-root user", "container 'smoke' must not set runAsUser=0", 20, 18, "spec.containers[0].securityContext.runAsUser"),
        ("Capabilities", "container 'smoke' must not add CHOWN", 23, 33, "spec.containers[0].securityContext.capabilities.add[1]"),
        ("Capabilities", "container 'report' must set securityContext.capabilities.drop=[\"ALL\"]", 29, 22, "spec.containers[1].securityContext.capabilities.drop"),
    ]


def test_hl206_a_windows_pod_in_a_user_namespace():
    """A Windows pod skips restricted's seccomp, privilege escalation and capability checks; a pod
    in a user namespace (``hostUsers: false``) skips procMount and the non-root checks."""
    assert _violations(WINDOWS_POD, "baseline") == [
        ("Seccomp", "pod must not set seccompProfile.type=Unconfined", 13, 28, "spec.securityContext.seccompProfile.type"),
        ("HostProcess", "pod must not set windowsOptions.hostProcess=true", 14, 35, "spec.securityContext.windowsOptions.hostProcess"),
    ]
    assert _violations(WINDOWS_POD, "restricted") == [
        ("HostProcess", "pod must not set windowsOptions.hostProcess=true", 14, 35, "spec.securityContext.windowsOptions.hostProcess"),
    ]


def test_hl206_run_as_non_root_and_seccomp_read_per_container():
    """The pod's ``runAsNonRoot: true`` covers the first container, not the second that sets false;
    the second's own Localhost seccomp profile covers it, not the first."""
    assert _violations(NON_ROOT_POD, "baseline") == []
    assert _violations(NON_ROOT_POD, "restricted") == [
        ("Running as Non-root", "container 'report' must not set securityContext.runAsNonRoot=false", 22, 21, "spec.containers[1].securityContext.runAsNonRoot"),
        ("Seccomp", "pod or container 'smoke' must set securityContext.seccompProfile.type to RuntimeDefault or Localhost", 8, 1, "spec.securityContext.seccompProfile.type"),
    ]


SHOP_NAMESPACE = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n"


def test_hl206_linkerd_reads_its_inject_key_as_an_annotation_only():
    """Linkerd's proxy injector reads ``linkerd.io/inject`` from the annotations of the namespace
    and of the pod, never from labels: a namespace labelled (not annotated) injects nothing, and a
    pod template labelled ``disabled`` in an annotated namespace is still injected (before: both
    labels were read as the annotation)."""
    job = SEED.format(hook="PreSync").replace("spec:\n  template:\n", "spec:\n  backoffLimit: 1\n  activeDeadlineSeconds: 300\n  template:\n")
    labelled = SHOP_NAMESPACE + "  labels:\n    linkerd.io/inject: enabled\n"
    assert hits("HL206", job, context=labelled) == []
    annotated = SHOP_NAMESPACE + "  annotations:\n    linkerd.io/inject: enabled\n"
    opted_out_by_label = job.replace("  template:\n    spec:\n",
                                     "  template:\n    metadata:\n      labels:\n        linkerd.io/inject: disabled\n    spec:\n")
    assert [(line, column, message[:100]) for line, column, message in hits("HL206", opted_out_by_label, context=annotated)] == [
        (12, 5, "Hook Job/seed runs in namespace 'shop', where Linkerd (linkerd.io/inject: enabled) injects a sidecar"),
    ]
    opted_out = opted_out_by_label.replace("      labels:\n", "      annotations:\n")
    assert hits("HL206", opted_out, context=annotated) == []


def test_hl206_names_the_istio_revision_that_injects():
    """A namespace on an Istio revision (``istio.io/rev: 1-22``, as revision-based upgrades label
    it): the message names that revision (mutants: the label read under another key)."""
    job = SEED.format(hook="PreSync").replace("spec:\n  template:\n", "spec:\n  backoffLimit: 1\n  activeDeadlineSeconds: 300\n  template:\n")
    revision = SHOP_NAMESPACE + "  labels:\n    istio.io/rev: 1-22\n"
    (found,) = hits("HL206", job, context=revision)
    assert found[:2] == (11, 3)  # the template has no metadata: at its key, where the opt-out goes
    assert found[2].startswith("Hook Job/seed runs in namespace 'shop', where Istio (label istio.io/rev: 1-22) injects a sidecar proxy")
    # the opt-out as an annotation of the template (Istio reads the label or the annotation)
    opted_out = job.replace("  template:\n    spec:\n",
                            '  template:\n    metadata:\n      annotations:\n        sidecar.istio.io/inject: "false"\n    spec:\n')
    assert hits("HL206", opted_out, context=revision) == []


def test_hl206_reads_a_pod_hooks_own_apparmor_annotation():
    """A Pod hook carries its AppArmor annotation in its own metadata (a Job in its template's): in
    a baseline namespace the unconfined profile is a violation (mutants: a Pod's metadata read
    from a template it does not have)."""
    pod = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: smoke-test\n  namespace: shop\n  annotations:\n"
           "    argocd.argoproj.io/hook: PostSync\n"
           "    container.apparmor.security.beta.kubernetes.io/smoke: unconfined\nspec:\n  restartPolicy: Never\n"
           "  activeDeadlineSeconds: 300\n  containers:\n  - name: smoke\n    image: ghcr.io/acme/smoke:1.4.2\n")  # fmt: skip
    baseline = SHOP_NAMESPACE + "  labels:\n    pod-security.kubernetes.io/enforce: baseline\n"
    assert hits("HL206", pod, context=baseline) == [(
        8, 59,
        "Hook Pod/smoke-test runs in namespace 'shop', whose Namespace enforces the Pod Security level 'baseline' "
        "(pod-security.kubernetes.io/enforce), and its pod template violates AppArmor (annotation "
        "container.apparmor.security.beta.kubernetes.io/smoke=unconfined): the API server rejects the Pod when "
        "Argo CD creates it, so the sync fails. Make the pod template meet the 'baseline' level, or run the hook "
        "in a namespace that allows it.",
    )]


def test_hl206_a_long_running_hook_is_told_to_be_a_job_not_about_pod_security():
    """A PreSync Deployment with host networking in a baseline namespace with Istio injection:
    HL206 says once that a Deployment never completes as a hook; the Pod Security and sidecar
    parts are for hook Jobs and Pods (mutants: ``and`` for ``or`` in their kind and namespace
    tests)."""
    deployment = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: warmup\n  namespace: shop\n  annotations:\n"
                  "    argocd.argoproj.io/hook: PreSync\nspec:\n  template:\n    spec:\n      hostNetwork: true\n"
                  "      containers:\n      - name: warmup\n        image: ghcr.io/acme/warmup:1.4.2\n")  # fmt: skip
    baseline = SHOP_NAMESPACE + "  labels:\n    pod-security.kubernetes.io/enforce: baseline\n    istio-injection: enabled\n"
    assert [(line, column, message[:60]) for line, column, message in hits("HL206", deployment, context=baseline)] == [
        (7, 30, "Deployment/warmup is a PreSync hook, but a Deployment never "),
    ]


def test_hl206_an_empty_apparmor_annotation_is_allowed():
    """``check_appArmorProfile.go`` allows an annotation value of ``""``, ``runtime/default`` or
    ``localhost/*``: an empty value adds no violation (mutant: the allowed empty value changed)."""
    empty = NODE_TUNING.replace("kubernetes.io/log: runtime/default", 'kubernetes.io/log: ""')
    assert empty != NODE_TUNING
    assert _violations(empty, "baseline") == _violations(NODE_TUNING, "baseline")


# --- HL209's words -----------------------------------------------------------------------------

CACHE_CLAIM = """\
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: build-cache
  namespace: shop
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: HookSucceeded
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 10Gi}}
"""


def test_hl209_says_when_each_delete_policy_deletes_the_hook():
    """A PreSync claim deleted after every successful sync (HookSucceeded); a hook kept by a
    ``Prune=false`` sync option is still deleted and re-created by the default policy (mutants of
    ``_deletion_words``, the ``Prune`` key of ``_keep_protections`` and the words of
    ``_protections_ignored``)."""
    assert hits("HL209", CACHE_CLAIM) == [(
        7, 30,
        "PersistentVolumeClaim/build-cache is a hook, so Argo CD deletes it after every successful sync "
        "(HookSucceeded), and its data goes with it. Make it a normal resource with a sync wave.",
    )]
    settings = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: migrate-settings\n  namespace: shop\n  annotations:\n"
                "    argocd.argoproj.io/hook: PreSync\n    argocd.argoproj.io/sync-options: Prune=false\n"
                "data:\n  BATCH_SIZE: \"500\"\n")  # fmt: skip
    assert hits("HL209", settings) == [(
        7, 30,
        "ConfigMap/migrate-settings is a hook with sync option Prune=false, but Argo CD deletes and re-creates it "
        "at every sync (BeforeHookCreation): sync option Prune=false does not stop that: Argo CD reads it only "
        "when it prunes resources or deletes the Application, never for a hook's delete policies. Make it a "
        "normal resource with a sync wave, where they work.",
    )]


OPENSHIFT_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: smoke-test
  namespace: shop
  annotations:
    argocd.argoproj.io/hook: PostSync
spec:
  restartPolicy: Never
  securityContext:
    runAsNonRoot: true
    seccompProfile: {type: RuntimeDefault}
    seLinuxOptions: {level: "s0:c26,c5"}
    appArmorProfile: {type: RuntimeDefault}
  containers:
  - name: smoke
    image: ghcr.io/acme/smoke:1.4.2
    securityContext:
      allowPrivilegeEscalation: false
      procMount: Default
      appArmorProfile: {type: Localhost, localhostProfile: smoke}
      capabilities: {drop: [ALL]}
"""


def test_hl206_what_the_restricted_level_allows():
    """OpenShift's restricted-v2 shape: an SELinux level without a type, the RuntimeDefault and
    Localhost AppArmor profiles, procMount Default: no violation at either level (mutants: the
    allowed values changed, the missing SELinux type read as None)."""
    assert _violations(OPENSHIFT_POD, "baseline") == []
    assert _violations(OPENSHIFT_POD, "restricted") == []


def test_hl206_pod_security_reads_half_written_pod_specs():
    """What a template leaves half-written is read as the API server would before rejecting it: a
    securityContext that is a list is no securityContext, a volume that is not a mapping is passed
    over (the next is still read), a volume named by a number is named by its index, an empty
    SELinux user sets nothing, and a container without a name is reported at the pod spec's key."""
    text = OPENSHIFT_POD.replace('    seLinuxOptions: {level: "s0:c26,c5"}\n', '    seLinuxOptions: {level: "s0:c26,c5", user: ""}\n')
    text = text.replace("  containers:\n", "  volumes:\n  - scratch\n  - name: 5\n    hostPath: {path: /tmp}\n  containers:\n")
    text += "  - image: ghcr.io/acme/report:1.4.2\n    securityContext: []\n"
    assert _violations(text, "restricted") == [
        ("Volume Types", "volume 'volumes[1]' uses hostPath", 18, 5, "spec.volumes[1].hostPath"),
        ("Privilege Escalation", "container 'containers[1]' must set securityContext.allowPrivilegeEscalation=false", 8, 1,
         "spec.containers[1].securityContext.allowPrivilegeEscalation"),
        ("Capabilities", "container 'containers[1]' must set securityContext.capabilities.drop=[\"ALL\"]", 8, 1,
         "spec.containers[1].securityContext.capabilities.drop"),
    ]


def test_hl206_pod_security_message_names_every_detail_and_what_waits():
    """The finding names each control once with all its details, and what the rejection does: a
    Job without a deadline waits forever, one with a deadline until it fails the Job, a PostDelete
    Pod fails the Application's deletion (mutants of ``_pod_security_rejects``' words)."""
    baseline = SHOP_NAMESPACE + "  labels:\n    pod-security.kubernetes.io/enforce: baseline\n"
    forever = NODE_TUNING.replace("  activeDeadlineSeconds: 300\n", "")
    assert hits("HL206", forever, context=baseline) == [(
        18, 20,
        "Hook Job/node-tuning runs in namespace 'shop', whose Namespace enforces the Pod Security level 'baseline' "
        "(pod-security.kubernetes.io/enforce), and its pod template violates Host Namespaces (hostNetwork=true, "
        "hostPID=true, hostIPC=true); Privileged Containers (container 'wait' must not set "
        "securityContext.privileged=true); Capabilities (container 'tune' must not add SYS_ADMIN); HostPath Volumes "
        "(volume 'sys' uses hostPath); Host Ports (container 'tune' must not set hostPort=9100); AppArmor (annotation "
        "container.apparmor.security.beta.kubernetes.io/tune=unconfined, pod must not set appArmorProfile.type=Unconfined); "
        "SELinux (pod must not set seLinuxOptions.type=spc_t, pod must not set seLinuxOptions.user, pod must not set "
        "seLinuxOptions.role); Seccomp (pod must not set seccompProfile.type=Unconfined, container 'tune' must not set "
        "seccompProfile.type=\"\"); HostProcess (container 'tune' must not set windowsOptions.hostProcess=true); /proc "
        "Mount Type (container 'wait' must not set securityContext.procMount=Unmasked): every pod the Job creates is "
        "rejected, so it never runs one and never completes, and the sync waits forever. Make the pod template meet "
        "the 'baseline' level, or run the hook in a namespace that allows it.",
    )]
    (deadline,) = hits("HL206", NODE_TUNING, context=baseline)
    assert "and the sync waits until spec.activeDeadlineSeconds fails the Job. Make" in deadline[2]
    post_delete = SMOKE_POD.replace("PostSync", "PostDelete").replace(
        "    runAsUser: 0\n    seccompProfile: {type: RuntimeDefault}\n", "    seccompProfile: {type: Unconfined}\n")
    (found,) = hits("HL206", post_delete, context=baseline)
    assert found[:2] == (12, 28)
    assert "the API server rejects the Pod when Argo CD creates it, so the Application deletion fails. Make" in found[2]


def test_hl206_a_suspended_hook_job():
    """A suspended Job's health stays Suspended: a sync hook waits forever, a delete hook is passed
    over and the Application deleted without its work (mutants of the Job test and of the words)."""
    suspended = SEED.replace("spec:\n  template:\n", "spec:\n  suspend: true\n  backoffLimit: 1\n  activeDeadlineSeconds: 300\n  template:\n")
    assert hits("HL206", suspended.format(hook="PreSync")) == [(
        9, 12,
        "Hook Job/seed sets spec.suspend: true: the Job's health stays Suspended, so Argo CD waits for completion "
        "of the hook forever and the sync never finishes. Remove suspend.",
    )]
    assert hits("HL206", suspended.format(hook="PostDelete")) == [(
        9, 12,
        "Hook Job/seed sets spec.suspend: true: the Job's health stays Suspended, so Argo CD does not wait on a "
        "Suspended delete hook, so the Application is deleted without the hook's work ever running. Remove suspend.",
    )]


def test_hl206_restart_policy_and_long_running_words():
    """A PostDelete Pod left to restart: its crash loop blocks the deletion, the finding about
    ``spec.restartPolicy`` (a misspelt value is shown as written); a Deployment hooked to two
    phases names both (mutants of ``hook_never_completes``' words and field path)."""
    pod = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: cleanup\n  namespace: shop\n  annotations:\n"
           "    argocd.argoproj.io/hook: PostDelete\nspec:\n  restartPolicy: always\n  activeDeadlineSeconds: 300\n"
           "  containers:\n  - name: cleanup\n    image: ghcr.io/acme/cleanup:1.0.0\n")  # fmt: skip
    found = [(f.span.line, f.span.column, f.field_path, f.message) for f in _lint(pod) if f.rule_id == "HL206"]
    assert [(line, column, path) for line, column, path, _ in found] == [(9, 18, "spec.restartPolicy")]
    assert found[0][3].startswith("Hook Pod/cleanup has restartPolicy always: the Pod never reaches Succeeded.")
    assert "and a crash loop blocks the deletion. Set restartPolicy: Never." in found[0][3]
    deployment = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: warmup\n  namespace: shop\n  annotations:\n"
                  "    argocd.argoproj.io/hook: PreSync,PostSync\nspec:\n  template:\n    spec:\n      containers:\n"
                  "      - name: warmup\n        image: ghcr.io/acme/warmup:1.4.2\n")  # fmt: skip
    (long_running,) = hits("HL206", deployment)
    assert long_running[2].startswith("Deployment/warmup is a PreSync/PostSync hook, but a Deployment never completes")


def test_binding_grantees_reads_each_subject_on_its_own():
    """Subjects that grant nobody (not a mapping, a User that is no ServiceAccount, an empty or
    non-string name, no namespace or an empty one in a ClusterRoleBinding) are skipped one by one,
    and the subjects after them still count; in a RoleBinding an empty namespace is the binding's
    own (mutmut survivors of ``binding_service_accounts``, now :func:`binding_grantees`: ``or``
    made ``and``, ``continue`` made ``break``)."""
    from hooklint.loader import parse_text
    from hooklint.model import Grantee, binding_grantees, manifests_of

    def accounts(kind: str, namespace: str = "") -> list[Grantee]:
        text = (f"apiVersion: rbac.authorization.k8s.io/v1\nkind: {kind}\nmetadata:\n  name: runner\n"
                + (f"  namespace: {namespace}\n" if namespace else "")
                + "roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}\nsubjects:\n"
                "  - runner\n"
                "  - {kind: User, name: alice, namespace: jobs}\n"
                "  - {kind: ServiceAccount, name: '', namespace: jobs}\n"
                "  - {kind: ServiceAccount, name: 5, namespace: jobs}\n"
                "  - {kind: ServiceAccount, name: no-namespace}\n"
                "  - {kind: ServiceAccount, name: empty-namespace, namespace: ''}\n"
                "  - {kind: ServiceAccount, name: migrate, namespace: jobs}\n")
        (m,) = manifests_of([parse_text("rbac.yaml", text)])
        return binding_grantees(m)

    assert accounts("ClusterRoleBinding") == [Grantee("jobs", "migrate")]
    assert accounts("RoleBinding", "shop") == [
        Grantee("shop", "no-namespace"), Grantee("shop", "empty-namespace"), Grantee("jobs", "migrate")]


CLUSTER_ROLE = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: job-runner{namespace}
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
rules:
- apiGroups: [""]
  resources: [{resources}]
  verbs: [{verbs}]
"""

CLUSTER_ROLE_BINDING = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: job-runner
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: job-runner}
subjects:
- {kind: ServiceAccount, name: runner, namespace: jobs}
"""


def test_hl108_judges_the_copy_argo_cd_keeps():
    """Two copies of one ClusterRole, the first with a stray metadata.namespace (cleared for a
    cluster-scoped kind, so it is the same object: ``DeduplicateTargetObjects``): Argo CD keeps the
    last, so HL108 reports that copy's grants, once (mutmut survivors of ``deduplicated`` and of
    ``object_key``'s cluster-scoped namespace)."""
    text = "---\n".join([
        CLUSTER_ROLE.format(namespace="\n  namespace: shop", resources="pods", verbs="delete"),
        CLUSTER_ROLE.format(namespace="", resources="jobs", verbs="get, create"),
        CLUSTER_ROLE_BINDING,
    ])
    assert hits("HL108", text) == [(20, 44, (
        "Hook ClusterRole/job-runner grants create on jobs, and its delete policies (BeforeHookCreation) do not "
        "delete it after a successful sync, nor do those of ClusterRoleBinding/job-runner (a plain resource), which "
        "binds it: the rights the hook needed for one step stay granted between syncs, to every subject of the "
        "binding, until the next sync deletes and re-creates them. Set argocd.argoproj.io/hook-delete-policy: "
        "BeforeHookCreation,HookSucceeded on the role and its bindings."))]



MIGRATE_WITH_CLUSTER_ROLE = """\
apiVersion: v1
kind: ServiceAccount
metadata:
  name: migrate
  namespace: shop
  annotations:
    argocd.argoproj.io/sync-wave: "-5"
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: schema-writer
  annotations:
    argocd.argoproj.io/hook: PreSync
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, create]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: migrate-schema-writer
  namespace: shop
  annotations:
    argocd.argoproj.io/hook: PreSync
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: schema-writer}
subjects:
- {kind: ServiceAccount, name: migrate, namespace: shop}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  namespace: shop
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 600
  template:
    spec:
      serviceAccountName: migrate
      restartPolicy: Never
      containers:
      - name: migrate
        image: ghcr.io/acme/migrate:1.4.2
"""


def test_hl310_finds_the_cluster_role_a_namespaced_role_binding_names():
    """A RoleBinding in namespace shop that binds a ClusterRole of the application: the ClusterRole
    is looked up without the binding's namespace (cluster-scoped; ``Context.find``), so HL310 names
    it beside the binding (mutmut survivor of ``Context.find``: the namespace kept)."""
    assert hits("HL310", MIGRATE_WITH_CLUSTER_ROLE) == [(44, 27, (
        "Job/migrate runs as ServiceAccount migrate, and RoleBinding/migrate-schema-writer and "
        "ClusterRole/schema-writer are applied in the same step (PreSync wave 0): Argo CD creates them just before "
        "the hook (kind order), but the API server's RBAC authorizer sees a new Role or binding only once its cache "
        "has it, so the hook's first API calls can fail with Forbidden on every sync: they are hooks too, created "
        "again with the hook each time. Apply them in an earlier step (a sync-wave lower than 0)."))]
