"""Tests for the one-line mutants issue 20's probe left alive in the annotation, hook, security and
fix modules and in the directory source (each asserts exact values, so the mutant it names fails):

- ``near_miss`` cutoffs (``PreSyncc``; the case-sensitive and the lower-case pass, at 0.6);
- HL106 on a role that only ``watch``es secrets (``read == ["watch"]``);
- a repeated identical ``Prune=false`` stays silent (``first[key] != item``);
- the HL004 fix of ``sync-wave: ~`` (``_NULL_WORDS``: ``""``, not ``"~"``);
- ``kind: ""`` in unrelated YAML (``kind != ""`` in ``directory._decodes``);
- from the rerun of that probe (a hand-made list of mutants, since replaced by mutmut: ``bench/mutmut_checks.py``): HL106's one phrase for the wildcard verbs of several rules
  (``len(every_verb) > 1``), a file named ``Kustomization``, and a folder holding both a chart and a
  kustomization (Kustomize, its subfolders walked);
and that every test's cache folder is its own (``conftest.isolated_cache``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import hits
from hooklint import argocd
from hooklint.catalog import load_catalog
from hooklint.checks.annotations import near_miss
from hooklint.config import Config
from hooklint.fix import FixOptions, fix_text
from hooklint.pipeline import lint_paths, lint_text
from hooklint.sources.render import cache
from hooklint.sources.render.directory import UNRELATED_YAML_REASON

HOOK_TYPES = argocd.known_hook_types(argocd.DEFAULT_VERSION)


def test_every_test_has_a_cache_folder_of_its_own(isolated_cache):
    assert cache.cache_dir() == os.environ["HOOKLINT_CACHE_DIR"] == str(isolated_cache)
    assert list(isolated_cache.iterdir()) == []
    assert not str(isolated_cache).startswith(os.path.expanduser("~/.cache"))


# --- near_miss ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, expected",
    [
        ("PreSyncc", "PreSync"),  # one letter too many: ratio 0.93
        ("Pre", "PreSync"),  # ratio exactly 0.6: the cutoff is inclusive
        ("PreXyzw", None),  # best ratio 0.57: below the cutoff
        ("Pos", None),  # 0.55
        ("PREsy", "PreSync"),  # case-sensitive best is PostSync at 0.46 (< 0.6): the lower-case pass finds it
        ("PRE", "PreSync"),  # case-sensitive 0.2; lower-case 'pre' vs 'presync' exactly 0.6
        ("SnFCi", "SyncFail"),  # case-sensitive SyncFail at 0.615 wins; the lower-case pass alone says Sync
        ("presync", "PreSync"),  # case-insensitive equality first
        ("Pre_Sync", "PreSync"),  # '-' and '_' squashed
    ],
)
def test_near_miss_cutoffs(value, expected):
    assert near_miss(value, HOOK_TYPES) == expected


def test_hl010_suggests_the_near_miss_of_presyncc():
    text = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: task\n  annotations:\n    argocd.argoproj.io/hook: PreSyncc\n"
    assert hits("HL010", text) == [(
        6, 30,
        "Unknown hook type 'PreSyncc' on Job/task: hook types are case-sensitive, and Argo CD treats Job/task as "
        "a hook with no valid type and silently never applies it. Did you mean 'PreSync'?",
    )]  # fmt: skip
    assert hits("HL010", text.replace("PreSyncc", "PreXyzw"))[0][2].endswith("silently never applies it.")


# --- HL106: a role that only watches secrets ---------------------------------------------------

WATCHER = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: task
  namespace: shop
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  template:
    spec:
      serviceAccountName: runner
      containers:
        - name: main
          image: ghcr.io/acme/task:1
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: secret-watcher
rules:
  - apiGroups: [""]
    resources: [secrets]
    verbs: [{verbs}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: runner-secrets
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: secret-watcher}}
subjects:
  - {{kind: ServiceAccount, name: runner, namespace: shop}}
"""


@pytest.mark.parametrize(
    "verbs, grant",
    [
        ("watch", "watching secrets cluster-wide (a watch streams every Secret with its data)"),
        ("list, watch", "reading secrets cluster-wide"),
        ("get", "reading secrets cluster-wide"),
    ],
)
def test_hl106_names_a_watch_of_secrets(verbs, grant):
    assert hits("HL106", WATCHER.format(verbs=verbs)) == [(
        11, 27,
        f"Job/task runs as ServiceAccount 'runner', and ClusterRoleBinding/runner-secrets grants {grant} through "
        "ClusterRole 'secret-watcher': a PreSync hook runs on every sync, so whoever controls its image or command "
        "holds those rights over the cluster. Grant only the verbs and resources it needs.",
    )]  # fmt: skip


def test_hl106_does_not_call_creating_secrets_reading_them():
    """``create`` reads no Secret (the mutant ``read`` of any verb); cluster-wide it adds a
    credential to Argo CD's namespace, which is what HL106 says of it."""
    assert hits("HL106", WATCHER.format(verbs="create")) == [(11, 27, (
        "Job/task runs as ServiceAccount 'runner', and ClusterRoleBinding/runner-secrets grants create on secrets "
        "cluster-wide (it can add a cluster or repository credential to Argo CD, a Secret labelled "
        "argocd.argoproj.io/secret-type: cluster, repository or repo-creds) through ClusterRole 'secret-watcher': a "
        "PreSync hook runs on every sync, so whoever controls its image or command holds those rights over the "
        "cluster. Grant only the verbs and resources it needs."))]  # fmt: skip


# --- HL013: Prune=/Delete= repeated ------------------------------------------------------------

SYNC_OPTIONS = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  annotations:\n    argocd.argoproj.io/sync-options: {}\n"


@pytest.mark.parametrize("value", ["Prune=false,Prune=false", "Prune=false, Prune=false", "Delete=false,Delete=false"])
def test_a_repeated_identical_prune_or_delete_stays_silent(value):
    assert hits("HL013", SYNC_OPTIONS.format(value)) == []


def test_a_shadowed_prune_is_reported():
    assert hits("HL013", SYNC_OPTIONS.format("Prune=false,Prune=true")) == [(
        6, 38,
        "argocd.argoproj.io/sync-options on ConfigMap/settings: 'Prune=true' is ignored: Argo CD reads only the "
        "first 'Prune=' item ('Prune=false').",
    )]  # fmt: skip


# --- HL004 fix of a null annotation value ------------------------------------------------------


@pytest.mark.parametrize("written", ["~", "null", "NULL", ""])
def test_hl004_fix_of_a_null_sync_wave_is_an_empty_string(written):
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  annotations:\n"
            f"    argocd.argoproj.io/sync-wave: {written}\n").replace(": \n", ":\n")  # fmt: skip
    config, catalog = Config(), load_catalog()
    findings = [f for f in lint_text(text, config, catalog, path="settings.yaml") if f.rule_id == "HL004"]
    assert [(f.span.line, f.span.column) for f in findings] == [(6, 35 if written else 34)]
    fixed = fix_text("settings.yaml", text, findings, config, catalog, FixOptions()).fixed
    assert fixed == ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  annotations:\n"
                     '    argocd.argoproj.io/sync-wave: ""\n')  # fmt: skip


# --- kind: "" in unrelated YAML ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text, skipped, rules",
    [
        ('kind: ""\nname: tool settings\n', True, []),  # kind empty: no object decoded, and no apiVersion:/metadata:
        ("kind: Tool\nname: tool settings\n", False, ["HL003"]),  # a non-empty kind decodes: linted, and wrong
        ('kind: ""\nmetadata: {name: x}\napiVersion: v1\n', False, ["HL003"]),  # looks like a manifest: fails
    ],
)  # fmt: skip
def test_kind_empty_string_is_unrelated_yaml(tmp_path, monkeypatch, text, skipped, rules):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / "app").mkdir()
    Path(tmp_path / "app" / "tool.yaml").write_text(text)
    (tmp_path / "app" / "settings.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n")
    result = lint_paths(["app"], Config(), load_catalog())
    assert [(p, str(r)) for p, r in result.skipped_files] == ([("app/tool.yaml", str(UNRELATED_YAML_REASON))] if skipped else [])
    assert sorted({f.rule_id for f in result.findings}) == rules


def test_hl106_says_the_wildcard_verbs_of_several_rules_in_one_phrase():
    """Two rules with ``verbs: ["*"]`` make one "every verb on ..." phrase, in rule order."""
    text = WATCHER.format(verbs='"*"').replace(
        '    verbs: ["*"]\n', '    verbs: ["*"]\n  - apiGroups: [""]\n    resources: [configmaps]\n    verbs: ["*"]\n')
    assert [message.split(" grants ")[1].split(" through ")[0] for _, _, message in hits("HL106", text)] == [
        "every verb on secrets, configmaps"]  # fmt: skip


# --- which folder is which source (util/app/discovery/discovery.go) ------------------------------

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  template:
    spec:
      containers: [{name: m, image: busybox}]
"""


def _sources(tmp_path, monkeypatch, files: dict[str, str]) -> tuple[int, list[tuple[str, str]]]:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    result = lint_paths(["app"], Config(), load_catalog(), plans=True)
    return result.files, [(p.key, p.source_type) for p in result.plans]


def test_a_file_named_kustomization_without_extension_makes_a_kustomize_source(tmp_path, monkeypatch):
    """``kustomize.IsKustomization``: ``kustomization.yaml``, ``kustomization.yml`` or ``Kustomization``."""
    files = {"app/Kustomization": "resources:\n- job.yaml\n", "app/job.yaml": JOB}
    assert _sources(tmp_path, monkeypatch, files) == (2, [("app", "kustomize")])


def test_a_folder_with_a_chart_and_a_kustomization_is_kustomize_and_its_subfolders_are_walked(tmp_path, monkeypatch):
    """Argo CD's discovery checks for a kustomization after Chart.yaml, so the folder is Kustomize
    (argocd-rendering.md, section 1): it is no chart, and its subfolders are folders like any other."""
    files = {"app/kustomization.yaml": "resources:\n- job.yaml\n", "app/job.yaml": JOB,
             "app/Chart.yaml": "apiVersion: v2\nname: shop\nversion: 1.0.0\n",
             "app/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"}  # fmt: skip
    assert _sources(tmp_path, monkeypatch, files) == (3, [("app", "kustomize"), ("app/templates", "directory")])
