"""HL403-HL405: an ApplicationSet's RollingSync strategy decided on the Applications it generates,
as argo-cd v3.5.1 ``applicationset/progressivesync/progressive_sync.go`` decides it."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.loader import parse_text
from hooklint.sources.appmap.applicationsets import rollout_problems

runner = CliRunner()


def body(strategy: str):
    text = "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: s\nspec:\n" + strategy
    return parse_text("appset.yaml", text).documents[0].value


def application(name: str, **labels: str) -> dict:
    return {"metadata": {"name": name, "labels": labels}}


def said(strategy: str, apps: list[dict]) -> list[tuple[str, int, int]]:
    return [(p.rule, p.line, p.column) for p in rollout_problems(body(strategy), apps)]


STEPS = "  strategy:\n    type: RollingSync\n    rollingSync:\n      steps:\n"


def test_an_unsupported_operator_leaves_out_labelled_applications_and_selects_the_others():
    """``labelMatchedExpression`` is false for an unsupported operator when the label is there;
    without the label only ``In`` fails, so ``Exists`` selects exactly the unlabelled Application."""
    strategy = STEPS + "      - matchExpressions:\n        - key: canary\n          operator: Exists\n"
    problems = rollout_problems(body(strategy), [application("a", canary="yes"), application("b")])
    assert [(p.rule, p.line, p.column) for p in problems] == [("invalid", 12, 21), ("unselected", 9, 7)]
    assert "'a'" in problems[1].message and "'b'" not in problems[1].message


def test_not_in_selects_an_application_without_the_label_and_in_does_not():
    strategy = (STEPS + "      - matchExpressions:\n        - {key: env, operator: In, values: [dev]}\n"
                "      - matchExpressions:\n        - {key: env, operator: NotIn, values: [dev]}\n")
    assert said(strategy, [application("dev", env="dev"), application("none")]) == []
    only_in = STEPS + "      - matchExpressions:\n        - {key: env, operator: In, values: [dev]}\n"
    assert said(only_in, [application("dev", env="dev"), application("none")]) == [("unselected", 9, 7)]


def test_every_expression_of_a_step_must_hold():
    strategy = (STEPS + "      - matchExpressions:\n        - {key: env, operator: In, values: [prod]}\n"
                "        - {key: region, operator: In, values: [eu]}\n")
    assert said(strategy, [application("a", env="prod", region="us")]) == [("unselected", 9, 7)]
    assert said(strategy, [application("a", env="prod", region="eu")]) == []


def test_a_missing_operator_is_reported_at_the_expression():
    strategy = STEPS + "      - matchExpressions:\n        - key: env\n          values: [dev]\n"
    problems = rollout_problems(body(strategy), [])
    assert [(p.rule, p.line, p.column) for p in problems] == [("invalid", 11, 11)]
    assert "with no operator" in problems[0].message


def test_an_application_three_steps_select_is_said_once_at_the_second():
    strategy = STEPS + "      - matchExpressions: []\n" * 3
    assert said(strategy, [application("a"), application("b")]) == [("invalid", 11, 9)]
    message = rollout_problems(body(strategy), [application("a"), application("b")])[0].message
    assert message.startswith("step 2 of the RollingSync selects the generated Applications 'a', 'b', which step 1 "
                              "already selects:")


def test_many_unselected_applications_are_named_five_and_counted():
    strategy = STEPS + "      - matchExpressions:\n        - {key: env, operator: In, values: [x]}\n"
    message = rollout_problems(body(strategy), [application(f"a{i}") for i in range(7)])[0].message
    assert "Applications 'a0', 'a1', 'a2', 'a3', 'a4' and 2 more:" in message


def test_steps_are_checked_only_when_the_rolling_sync_is_enabled():
    """``RollingSyncStrategyEnabled``: type RollingSync, rollingSync set, at least one step;
    otherwise the controller does not run the strategy (no HL403/HL404)."""
    unselecting = "      - matchExpressions:\n        - {key: env, operator: Exists}\n"
    assert said("  strategy:\n    type: AllAtOnce\n    rollingSync:\n      steps:\n" + unselecting,
                [application("a", env="x")]) == []
    assert said("  strategy:\n    type: RollingSync\n    rollingSync:\n      steps: []\n", [application("a")]) == []
    assert said("  strategy:\n    rollingSync:\n      steps:\n" + unselecting, [application("a", env="x")]) == []


def test_deletion_order_reverse_is_read_in_any_case_and_ignored_without_steps():
    """``IsDeletionOrderReversed``: ``strings.EqualFold(DeletionOrder, "Reverse")`` and an enabled
    RollingSync; ``AllAtOnce`` is never reported."""
    assert said("  strategy:\n    deletionOrder: reverse\n", []) == [("ignored", 7, 20)]
    empty = rollout_problems(body("  strategy:\n    type: RollingSync\n    deletionOrder: REVERSE\n"
                                  "    rollingSync:\n      steps: []\n"), [])
    assert [(p.rule, p.line, p.column) for p in empty] == [("ignored", 8, 20)]
    assert "because its RollingSync strategy has no steps:" in empty[0].message
    assert said("  strategy:\n    deletionOrder: AllAtOnce\n", []) == []
    assert said(STEPS + "      - matchExpressions: []\n    deletionOrder: Reverse\n", [application("a")]) == []


def test_rollout_is_decided_on_applications_a_matrix_and_a_merge_generate(tmp_path: Path, monkeypatch):
    """The Applications of a matrix (list x list) and a merge generator are expanded first, so the
    labels the steps read are the generated ones."""
    appset = """\
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: shops
spec:
  generators:
    - matrix:
        generators:
          - list:
              elements: [{env: dev}, {env: prod}]
          - list:
              elements: [{region: eu}, {region: us}]
    - merge:
        mergeKeys: [env]
        generators:
          - list:
              elements: [{env: qa, region: eu}]
          - list:
              elements: [{env: qa, region: ap}]
  strategy:
    type: RollingSync
    rollingSync:
      steps:
        - matchExpressions:
            - {key: env, operator: In, values: [dev]}
        - matchExpressions:
            - {key: region, operator: In, values: [eu, us]}
  template:
    metadata:
      name: 'shop-{{env}}-{{region}}'
      labels: {env: '{{env}}', region: '{{region}}'}
    spec:
      project: shop
      source: {repoURL: https://github.com/acme/shop, path: deploy}
      destination: {server: https://kubernetes.default.svc, namespace: shop}
"""
    (tmp_path / "appset.yaml").write_text(appset)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["lint", "--format", "json", "appset.yaml"])
    found = [(f["rule_id"], f["line"], f["column"], f["message"].split(": ", 1)[1][:70])
             for f in json.loads(result.output)["findings"] if f["rule_id"] in ("HL403", "HL404")]
    assert found == [
        ("HL403", 23, 7, "no RollingSync step selects the generated Application 'shop-qa-ap': th"),
        ("HL404", 26, 11, "step 2 of the RollingSync selects the generated Applications 'shop-dev"),
    ]


def test_rollout_is_decided_on_applications_a_git_directories_generator_makes(tmp_path: Path, monkeypatch):
    """A git generator of this repository: one Application per folder, labelled by its basename."""
    import subprocess

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "remote", "add", "origin", "https://github.com/acme/shop"], check=True)
    for env in ("dev", "staging", "prod"):
        (tmp_path / "envs" / env).mkdir(parents=True)
        (tmp_path / "envs" / env / "cm.yaml").write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {env}\n")
    (tmp_path / "argocd").mkdir()
    (tmp_path / "argocd" / "appset.yaml").write_text("""\
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: envs
spec:
  generators:
    - git:
        repoURL: https://github.com/acme/shop.git
        revision: HEAD
        directories:
          - path: envs/*
  strategy:
    type: RollingSync
    rollingSync:
      steps:
        - matchExpressions:
            - {key: env, operator: In, values: [dev]}
        - matchExpressions:
            - {key: env, operator: In, values: [prod]}
  template:
    metadata:
      name: 'shop-{{path.basename}}'
      labels: {env: '{{path.basename}}'}
    spec:
      project: shop
      source: {repoURL: https://github.com/acme/shop.git, path: '{{path}}'}
      destination: {server: https://kubernetes.default.svc, namespace: '{{path.basename}}'}
""")
    monkeypatch.chdir(tmp_path)
    doc = json.loads(runner.invoke(app, ["lint", "--format", "json", "."]).output)
    found = [(f["rule_id"], f["path"], f["line"], f["column"]) for f in doc["findings"] if f["rule_id"].startswith("HL40")]
    assert found == [("HL403", "argocd/appset.yaml", 15, 7)]
    assert "'shop-staging'" in next(f["message"] for f in doc["findings"] if f["rule_id"] == "HL403")


def test_deletion_order_with_a_rolling_sync_type_and_no_rolling_sync_says_it_has_no_steps():
    problems = rollout_problems(body("  strategy:\n    type: RollingSync\n    deletionOrder: Reverse\n"), [])
    assert [(p.rule, p.line, p.column) for p in problems] == [("ignored", 8, 20)]
    assert "because its RollingSync strategy has no steps:" in problems[0].message


ORDERED_SET = """\
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: shop
  annotations:
    hooklint.io/ignore: "HL403: qa is synced by hand after the release review"
spec:
  generators:
    - list:
        elements:
          - {env: dev}
          - {env: qa}
  strategy:
    type: RollingSync
    rollingSync:
      steps:
        - matchExpressions:
            - {key: env, operator: In, values: [dev]}
  template:
    metadata:
      name: 'shop-{{env}}'
      labels: {env: '{{env}}'}
    spec:
      project: shop
      source: {repoURL: https://github.com/acme/shop, path: deploy}
      destination: {server: https://kubernetes.default.svc, namespace: shop}
"""


def _rollout_findings(result) -> list[tuple]:
    return [(f.rule_id, f.path, f.span.line, f.span.column, f.field_path, f.doc_index,
             f.obj.label() if f.obj else None, f.suppression.reason if f.suppression else None)
            for f in result.findings + result.suppressed if f.rule_id.startswith("HL40")]


def test_rollout_findings_belong_to_the_application_set_and_its_annotation_suppresses_them(tmp_path: Path, monkeypatch):
    """HL403-HL405 are the ApplicationSet's findings (its document, no field path): its own
    ``hooklint.io/ignore`` suppresses them, and they name it as their object."""
    from hooklint.catalog import load_catalog
    from hooklint.config import parse_config
    from hooklint.pipeline import lint_paths

    (tmp_path / "appset.yaml").write_text(ORDERED_SET)
    monkeypatch.chdir(tmp_path)
    result = lint_paths(["appset.yaml"], parse_config({}, "test"), load_catalog())
    assert _rollout_findings(result) == [
        ("HL403", "appset.yaml", 16, 7, "", 0, "ApplicationSet/shop", "qa is synced by hand after the release review"),
    ]


def test_deletion_order_reverse_without_a_rolling_sync_is_hl405_through_lint(tmp_path: Path, monkeypatch):
    """``deletionOrder: Reverse`` under an ``AllAtOnce`` strategy: HL405 at the value, and no
    HL403/HL404 (the strategy selects nothing, so nothing is unselected)."""
    from hooklint.catalog import load_catalog
    from hooklint.config import parse_config
    from hooklint.pipeline import lint_paths

    text = ORDERED_SET.replace('    hooklint.io/ignore: "HL403: qa is synced by hand after the release review"\n', "")
    text = text.replace("  annotations:\n", "").replace("    type: RollingSync\n", "    type: AllAtOnce\n    deletionOrder: Reverse\n")
    (tmp_path / "appset.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    result = lint_paths(["appset.yaml"], parse_config({}, "test"), load_catalog())
    assert _rollout_findings(result) == [("HL405", "appset.yaml", 13, 20, "", 0, "ApplicationSet/shop", None)]
    message = next(f.message for f in result.findings if f.rule_id == "HL405")
    assert message.startswith("ApplicationSet shop (appset.yaml:1): deletionOrder 'Reverse' is ignored because its "
                              "strategy type is 'AllAtOnce'")


def messages(strategy: str, apps: list[dict]) -> list[tuple[str, int, int, str]]:
    return [(p.rule, p.line, p.column, p.message) for p in rollout_problems(body(strategy), apps)]


UNSELECTING = STEPS + "      - matchExpressions:\n        - {key: env, operator: In, values: [x]}\n"
TWICE = ("the controller rolls {it} out with the first step and lists {it} in step {step} too (logged as an invalid "
         "matchExpression that selects an Application twice; Argo CD 3.6 sets the InvalidRolloutConfig condition). "
         "Make the steps' matchExpressions select each Application once")


def test_an_application_set_without_a_strategy_or_a_spec_mapping_has_no_rollout_problems():
    """mutmut survivor (rollout_problems 8): a ``spec`` that is missing or not a mapping."""
    head = "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: s\n"
    for text in (head, head + "spec: none\n"):
        assert rollout_problems(parse_text("appset.yaml", text).documents[0].value, [application("a")]) == []


def test_deletion_order_ignored_says_why_for_each_strategy():
    """Exact HL405 messages without a strategy type and with another type (survivors 69, 76-78)."""
    tail = (": the controller deletes the generated Applications all at once, not in the reverse order of the steps "
            "(IsDeletionOrderReversed). Set spec.strategy.type RollingSync with steps, or remove deletionOrder")
    assert messages("  strategy:\n    deletionOrder: Reverse\n", []) == [
        ("ignored", 7, 20, "deletionOrder 'Reverse' is ignored because it has no RollingSync strategy" + tail)]
    assert messages("  strategy:\n    type: AllAtOnce\n    deletionOrder: Reverse\n", []) == [
        ("ignored", 8, 20, "deletionOrder 'Reverse' is ignored because its strategy type is 'AllAtOnce', not "
         "RollingSync" + tail)]


def test_steps_without_match_expressions_select_every_application():
    """A null step and a step with only maxUpdate have no matchExpressions (Go decodes null into an
    empty step), so each selects every Application: the second lists it again (survivors 104,
    165, 194)."""
    assert messages(STEPS + "      -\n      - maxUpdate: 1\n", [application("a")]) == [
        ("invalid", 11, 9, "step 2 of the RollingSync selects the generated Application 'a', which step 1 already "
         "selects: " + TWICE.format(it="it", step=2))]


def test_every_step_and_every_expression_is_checked_for_its_operator():
    """A step without matchExpressions does not end the search, nor does a valid expression before
    an invalid one (survivors 110 and 119: ``continue`` made ``break``)."""
    unsupported = ("only 'In' and 'NotIn' are supported, so the controller never selects an Application that has the "
                   "label 'env' for this step, and selects one that lacks it. Use 'In' or 'NotIn'")
    after_a_plain_step = STEPS + "      - maxUpdate: 1\n      - matchExpressions:\n        - {key: env, operator: Exists}\n"
    assert messages(after_a_plain_step, []) == [
        ("invalid", 12, 32, "step 2 of the RollingSync has a matchExpression with operator 'Exists': " + unsupported)]
    after_a_valid_one = (STEPS + "      - matchExpressions:\n        - {key: env, operator: In, values: [x]}\n"
                         "        - {key: env, operator: Gt}\n")
    assert messages(after_a_valid_one, []) == [
        ("invalid", 12, 32, "step 1 of the RollingSync has a matchExpression with operator 'Gt': " + unsupported)]


def test_a_match_expression_that_is_not_a_mapping_or_has_no_key():
    """An expression that is null or a plain string has no operator, reported at the item; one
    without a key names the label Go reads, '' (it said "the the label"; survivors 114, 127, 133,
    139-141)."""
    said_of = ("only 'In' and 'NotIn' are supported, so the controller never selects an Application that has the "
               "label '' (no key is written) for this step, and selects one that lacks it. Use 'In' or 'NotIn'")
    strategy = STEPS + "      - matchExpressions:\n        -\n        - env\n        - {operator: Exists}\n"
    assert messages(strategy, []) == [
        ("invalid", 11, 10, "step 1 of the RollingSync has a matchExpression with no operator: " + said_of),
        ("invalid", 12, 11, "step 1 of the RollingSync has a matchExpression with no operator: " + said_of),
        ("invalid", 13, 22, "step 1 of the RollingSync has a matchExpression with operator 'Exists': " + said_of),
    ]


def test_unselected_applications_without_a_name_are_left_out_and_the_rest_are_named():
    """A generated Application with an empty or non-string name is not named (another finding says
    it is invalid), and those after it still are (survivors 178, 181); one name is singular."""
    apps = [application(""), {"metadata": {"name": 5}}, application("b")]
    assert messages(UNSELECTING, apps) == [
        ("unselected", 9, 7, "no RollingSync step selects the generated Application 'b': the controller turns off its "
         "automated sync and never syncs it, so changes to it are never deployed. Add a step whose matchExpressions "
         "select it (a last step without matchExpressions selects every Application)")]


def test_two_unselected_applications_are_plural():
    """Survivors 210, 228-243 (each pronoun) and _names 8 (five names are all shown, without "and 0 more")."""
    plural = ("the controller turns off their automated sync and never syncs them, so changes to them are never "
              "deployed. Add a step whose matchExpressions select them (a last step without matchExpressions selects "
              "every Application)")
    assert messages(UNSELECTING, [application("a"), application("b")]) == [
        ("unselected", 9, 7, "no RollingSync step selects the generated Applications 'a', 'b': " + plural)]
    assert messages(UNSELECTING, [application(f"a{i}") for i in range(5)]) == [
        ("unselected", 9, 7, "no RollingSync step selects the generated Applications 'a0', 'a1', 'a2', 'a3', 'a4': "
         + plural)]


def test_unselected_is_reported_at_the_steps_key_of_a_flow_mapping():
    """At ``steps``, not at the ``rollingSync`` mapping, which starts elsewhere when written in flow
    style (survivors 205-207)."""
    strategy = ("  strategy:\n    type: RollingSync\n"
                "    rollingSync: {steps: [{matchExpressions: [{key: env, operator: In, values: [x]}]}]}\n")
    assert said(strategy, [application("a")]) == [("unselected", 8, 19)]


def test_applications_two_steps_select_after_different_first_steps():
    """Step 3 selects 'a' (first selected by step 1) and 'b' (by step 2): "steps 1 and 2 already
    select" (it said "step 1 and 2"), plural pronouns (survivors 291-310)."""
    strategy = (STEPS + "      - matchExpressions: [{key: env, operator: In, values: [a]}]\n"
                "      - matchExpressions: [{key: env, operator: In, values: [b]}]\n      - matchExpressions: []\n")
    assert messages(strategy, [application("a", env="a"), application("b", env="b")]) == [
        ("invalid", 12, 9, "step 3 of the RollingSync selects the generated Applications 'a', 'b', which steps 1 and 2 "
         "already select: " + TWICE.format(it="them", step=3))]


def test_not_in_without_values_selects_an_application_with_the_label():
    """``labelMatchedExpression``: NotIn over no values holds for any value (``_selected`` survivor
    16: values read when not a list)."""
    assert said(STEPS + "      - matchExpressions: [{key: env, operator: NotIn}]\n", [application("a", env="x")]) == []
