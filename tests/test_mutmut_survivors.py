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
