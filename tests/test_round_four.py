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
