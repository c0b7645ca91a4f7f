"""The Argo CD model, pinned case by case to argocd-semantics.md and the upstream tests it cites."""

import pytest

from hooklint import argocd
from hooklint.argocd import hook_info

HOOK, POLICY, WAVE = argocd.HOOK, argocd.HOOK_DELETE_POLICY, argocd.SYNC_WAVE
HELM, HELM_POLICY, HELM_WEIGHT = argocd.HELM_HOOK, argocd.HELM_HOOK_DELETE_POLICY, argocd.HELM_HOOK_WEIGHT


@pytest.mark.parametrize(
    "text, expected",
    [
        ("5", 5), ("-3", -3), ("007", 7), ("+1", 1), ("0", 0),
        ("1.5", None), ("1e3", None), ("abc", None), ("0x10", None), ("1_000", None),
        (" 1", None), ("1 ", None), ("", None), ("+", None), ("-", None),
        ("99999999999999999999", None), ("9223372036854775807", 9223372036854775807),
        ("-9223372036854775808", -9223372036854775808), ("9223372036854775808", None),
        ("١٢", None),  # Arabic-Indic digits: Python's isdigit() accepts them, Go's Atoi does not
    ],
)  # fmt: skip
def test_atoi_follows_go_strconv(text, expected):
    """§1 table: strconv.Atoi accepts an optional sign and ASCII digits, nothing else."""
    assert argocd.atoi(text) == expected


@pytest.mark.parametrize(
    "annotations, wave, source",
    [
        ({}, 0, "default"),
        ({WAVE: "5"}, 5, "argocd"),
        ({WAVE: "-3"}, -3, "argocd"),
        ({WAVE: "1.5"}, 0, "default"),
        ({WAVE: " 1"}, 0, "default"),
        ({WAVE: "abc", HELM_WEIGHT: "7"}, 7, "helm"),
        ({WAVE: "2", HELM_WEIGHT: "7"}, 2, "argocd"),
        ({HELM_WEIGHT: "-5"}, -5, "helm"),
        ({HELM_WEIGHT: "x"}, 0, "default"),
    ],
)
def test_sync_wave_precedence(annotations, wave, source):
    """§1: a valid Argo wave wins; an invalid one falls back to the Helm weight (also on
    non-hooks), then 0 (waves_test.go TestWave, weight_test.go)."""
    assert argocd.sync_wave(annotations) == argocd.Wave(wave, source)


@pytest.mark.parametrize(
    "annotations, is_hook, types, phases, ignored",
    [
        ({HOOK: "PreSync"}, True, ("PreSync",), ("PreSync",), False),
        ({HOOK: "PreSync "}, True, ("PreSync",), ("PreSync",), False),
        ({HOOK: "PreSync,,PreSync"}, True, ("PreSync",), ("PreSync",), False),
        ({HOOK: "Presync"}, True, (), (), True),  # TestGarbageHook
        ({HOOK: "presync"}, True, (), (), True),
        ({HOOK: ""}, True, (), (), True),
        ({HOOK: "Sync,Garbage"}, True, ("Sync",), ("Sync",), False),  # TestGarbageAndHook
        ({HOOK: "PostSync,PreSync"}, True, ("PostSync", "PreSync"), ("PreSync", "PostSync"), False),
        ({HOOK: "Skip"}, False, ("Skip",), (), False),
        ({HOOK: "Skip,PreSync,PostSync"}, True, ("Skip", "PreSync", "PostSync"), ("PreSync", "PostSync"), False),  # TestSkipAndHook
        ({HOOK: "PostDelete"}, True, (), (), True),
        ({HOOK: "Sync", HELM: "pre-install"}, True, ("Sync",), ("Sync",), False),  # TestBothHooks
        ({HOOK: "Presync", HELM: "pre-install"}, True, ("PreSync",), ("PreSync",), False),
        ({HELM: "pre-install"}, True, ("PreSync",), ("PreSync",), False),
        ({HELM: "pre-install, pre-upgrade"}, True, ("PreSync",), ("PreSync",), False),  # TestSyncDuplicatedPhases
        ({HELM: "post-install,post-upgrade"}, True, ("PostSync",), ("PostSync",), False),
        ({HELM: "pre-install,post-upgrade"}, True, ("PreSync", "PostSync"), ("PreSync", "PostSync"), False),
        ({HELM: "crd-install"}, False, (), ("Sync",), False),
        ({HELM: "crd-install,pre-install"}, True, ("PreSync",), ("PreSync",), False),
        ({HELM: "test"}, True, (), (), True),
        ({HELM: "pre-rollback"}, True, (), (), True),
        ({HELM: "pre-delete"}, True, (), (), True),
        ({}, False, (), ("Sync",), False),
    ],
)  # fmt: skip
def test_hook_types_and_phases(annotations, is_hook, types, phases, ignored):
    """§2b and §3 outcome tables (hook_test.go, ignore_test.go, helm/type_test.go)."""
    info = hook_info(annotations)
    assert (info.is_hook, info.types, info.phases, info.ignored) == (is_hook, types, phases, ignored)


@pytest.mark.parametrize(
    "annotations, expected",
    [
        ({HOOK: "PostDelete"}, ("PostDelete",)),
        ({HOOK: "PreDelete, PostDelete"}, ("PreDelete", "PostDelete")),
        ({HOOK: "predelete"}, ()),
        ({HELM: "pre-delete"}, ("PreDelete",)),
        ({HELM: "post-delete,post-install"}, ("PostDelete",)),
        ({HOOK: "PreSync"}, ()),
    ],
)
def test_delete_hook_types(annotations, expected):
    """§4d: controller/hook.go isHookOfType, CSV, trimmed, case-sensitive."""
    assert hook_info(annotations).delete_types == expected


@pytest.mark.parametrize(
    "annotations, expected",
    [
        ({}, ("BeforeHookCreation",)),
        ({POLICY: "garbage"}, ("BeforeHookCreation",)),  # TestDeletePolicies
        ({POLICY: "HookSucceed"}, ("BeforeHookCreation",)),
        ({POLICY: "HookSucceeded"}, ("HookSucceeded",)),
        ({POLICY: "HookSucceeded, HookFailed"}, ("HookSucceeded", "HookFailed")),
        ({POLICY: "hooksucceeded"}, ("BeforeHookCreation",)),
        ({HELM_POLICY: "hook-succeeded"}, ("HookSucceeded",)),
        ({POLICY: "HookFailed", HELM_POLICY: "before-hook-creation"}, ("HookFailed", "BeforeHookCreation")),
        ({POLICY: "HookSucceeded", HELM_POLICY: "hook-succeeded"}, ("HookSucceeded",)),
    ],
)
def test_delete_policies_union_and_default(annotations, expected):
    """§2 delete policies: Argo's and Helm's merged, unknown ignored, default BeforeHookCreation."""
    assert hook_info(annotations).delete_policies == expected


def test_one_non_string_annotation_hides_all_of_them():
    """§1: NestedStringMap returns nil when any value is not a string (pitfall P14)."""
    assert argocd.visible_annotations({HOOK: "PreSync", WAVE: 5}) == {}
    assert argocd.visible_annotations({HOOK: "PreSync", WAVE: "5"}) == {HOOK: "PreSync", WAVE: "5"}
    assert argocd.visible_annotations([]) == {}


def test_kind_order_table():
    """§4a: Namespace -35, APIService -1, unknown kinds 0 (Test_syncTasks_kindOrder)."""
    assert argocd.kind_order("Namespace") == -35
    assert argocd.kind_order("ServiceAccount") == -29
    assert argocd.kind_order("Job") == -5
    assert argocd.kind_order("APIService") == -1
    assert argocd.kind_order("Endpoints") == 0
    assert argocd.kind_order("Rollout") == 0
    assert argocd.kind_order(None) == 0
    assert len(argocd.KIND_ORDER_LIST) == 35


def test_generated_name_length():
    """§4c: generateName + 7 revision characters + '-' + phase + '-' + 10-digit Unix time."""
    assert argocd.hook_generated_name_length("db-migrate-", "PreSync") == 11 + 7 + 1 + 7 + 1 + 10


@pytest.mark.parametrize("api_version, kind, expected", [
    ("argoproj.io/v1alpha1", "Application", True),
    ("argoproj.io/v1beta1", "Application", True),  # any version of the group
    ("argoproj.io", "Application", False),  # no version: the core group's "argoproj.io" version
    ("argoproj.io.example.com/v1", "Application", False),
    ("example.com/v1", "Application", False),
    ("argoproj.io/v1alpha1", "application", False),  # kinds are case-sensitive
    (None, "Application", False),
    (1, "Application", False),
    ("argoproj.io/v1alpha1", ["Application"], False),
])  # fmt: skip
def test_argo_kinds_are_told_by_group_and_kind(api_version, kind, expected):
    assert argocd.is_argo_kind(api_version, kind, "Application", "ApplicationSet") is expected
