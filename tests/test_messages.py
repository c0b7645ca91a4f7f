"""Messages that must stay short, or name each other, across rules (issue 23, "Messages and
reports"). The rule files pin each message; these tests pin the properties across all examples."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from hooklint.catalog import rules_dir
from hooklint.config import parse_config
from hooklint.pipeline import lint_text
from tests.manifests import lint_example_as_written

RULES = Path(rules_dir())


def _bad_examples(rule_id: str) -> list[dict]:
    path = next(RULES.glob(f"{rule_id}-*.yaml"))
    return list(yaml.safe_load_all(path.read_text(encoding="utf-8")))[1]["bad"]


@pytest.mark.parametrize("example", _bad_examples("HL104"), ids=lambda e: e["name"])
def test_hl104_message_is_under_300_characters(example: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    """The detail lives in the rule file's what/why (hooklint explain HL104), not in each finding."""
    findings = lint_example_as_written(example, parse_config(example.get("config") or {}, "example"), monkeypatch)
    messages = [f.message for f in findings if f.rule_id == "HL104"]
    assert messages and all(len(m) < 300 for m in messages), [(len(m), m) for m in messages]


JOB_WITHOUT_SERVICE_ACCOUNT = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: warm-cache
  annotations:
    argocd.argoproj.io/hook: PostSync
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 300
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: warm
          image: ghcr.io/acme/warm-cache:1.2.0
"""


def test_hl103_and_hl104_on_one_hook_name_each_other() -> None:
    """One hook, one cause (the namespace's default ServiceAccount, its token mounted): two
    findings at the same place, each naming the other rule."""
    findings = {f.rule_id: f for f in lint_text(JOB_WITHOUT_SERVICE_ACCOUNT, parse_config({}, "t"))
                if f.rule_id in ("HL103", "HL104")}  # fmt: skip
    assert sorted(findings) == ["HL103", "HL104"]
    assert (findings["HL103"].span.line, findings["HL103"].span.column) == (findings["HL104"].span.line,
                                                                            findings["HL104"].span.column)  # fmt: skip
    assert "(HL104)" in findings["HL103"].message and "(HL103;" in findings["HL104"].message


def test_hl103_does_not_name_hl104_when_the_token_is_off() -> None:
    text = JOB_WITHOUT_SERVICE_ACCOUNT.replace("      restartPolicy: Never\n",
                                               "      restartPolicy: Never\n      automountServiceAccountToken: false\n")
    findings = [f for f in lint_text(text, parse_config({}, "t")) if f.rule_id in ("HL103", "HL104")]
    assert [f.rule_id for f in findings] == ["HL103"] and "HL104" not in findings[0].message


# --- HL009 says what was and was not checked ------------------------------------------------------

CHART_APPLICATION = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: shop
spec:
  project: shop
  destination:
    namespace: shop
  sources:
  - repoURL: git@github.com:acme/shop
    path: chart
    targetRevision: main
    helm:
      valueFiles:
        - {value_file}
  - repoURL: https://github.com/acme/shop-values
    ref: values
"""


@pytest.mark.skipif(__import__("hooklint.sources.render.helm").sources.render.helm.find_helm() is None, reason="no Helm")
@pytest.mark.parametrize(
    "value_file",
    ["https://example.com/values.yaml", "$values/shop/values.yaml", "values-$ARGOCD_APP_REVISION_SHORT.yaml"],
    ids=["url", "ref", "revision"],
)
def test_hl009_for_a_value_file_says_the_chart_was_checked_with_its_other_values(tmp_path, monkeypatch, value_file):
    """Every place that raises HL009 ends its message with what went unchecked. Issue 22: a value
    file hooklint cannot read is left out, the chart rendered and checked with its other values
    (the ConfigMap is checked), and HL009 is on the Application's valueFiles entry (it was the
    whole chart, at Chart.yaml:1:1)."""
    from typer.testing import CliRunner

    from hooklint.cli import app

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    files = {
        ".git/config": '[remote "origin"]\n\turl = git@github.com:acme/shop.git\n',
        "apps/shop.yaml": CHART_APPLICATION.format(value_file=value_file),
        "chart/Chart.yaml": "apiVersion: v2\nname: shop\nversion: 1.0.0\n",
        "chart/templates/settings.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    result = CliRunner().invoke(app, ["lint", "--format", "json", "."])
    [hl009] = [f for f in __import__("json").loads(result.output)["findings"] if f["rule_id"] == "HL009"]
    assert (hl009["path"], hl009["line"], hl009["column"]) == ("apps/shop.yaml", 15, 11)
    assert hl009["message"].startswith(f"value file {value_file} ")
    assert hl009["message"].endswith(
        ". hooklint left it out, so the chart was rendered and checked with its other values: objects and hooks "
        "that this file's values would add or change were not checked.")


# --- value file names as the repo server reads them (Env.Envsubst; $ref only with several sources) --

SINGLE_SOURCE_CHART = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: shop
spec:
  project: retail
  destination:
    namespace: shop-prod
  source:
    repoURL: git@github.com:acme/shop
    path: chart
    helm:
      valueFiles:
        - {value_file}
"""


@pytest.mark.parametrize(
    ("value_file", "expected"),
    [
        ("values-$ARGOCD_APP_NAME.yaml", "HL101"),  # values-shop.yaml: its hook image is checked
        ("values-${ARGOCD_APP_NAMESPACE}.yaml", "HL101"),  # values-shop-prod.yaml
        ("$values/shop/values.yaml", "HL007"),  # no reference in a single-source app: /shop/values.yaml, missing
    ],
    ids=["name", "braced-namespace", "dollar-values"],
)
def test_single_source_value_files_are_envsubst_as_argo_cd_reads_them(tmp_path, monkeypatch, value_file, expected):
    """A single-source Application's ``$values/...`` is no reference (``resolveReferencedSources``
    returns at once without several sources): Env.Envsubst makes it ``/shop/values.yaml``, which
    is missing, so the repo server fails (HL007). ``$ARGOCD_APP_NAME`` and friends are replaced."""
    import json

    from typer.testing import CliRunner

    from hooklint.cli import app

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    hook = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n"
            "    argocd.argoproj.io/hook: PreSync\nspec:\n  template:\n    spec:\n      containers:\n"
            "      - name: m\n        image: '{{ .Values.image }}'\n")  # fmt: skip
    files = {
        ".git/config": '[remote "origin"]\n\turl = git@github.com:acme/shop.git\n',
        ".hooklint.yaml": "allowed-registries: [registry.acme.example]\n",
        "apps/shop.yaml": SINGLE_SOURCE_CHART.format(value_file=value_file),
        "chart/Chart.yaml": "apiVersion: v2\nname: shop\nversion: 1.0.0\n",
        "chart/values.yaml": "image: registry.acme.example/migrate:1.0@sha256:" + "a" * 64 + "\n",
        "chart/values-shop.yaml": "image: docker.io/evil/migrate:1.0\n",
        "chart/values-shop-prod.yaml": "image: docker.io/evil/migrate:1.0\n",
        "chart/templates/job.yaml": hook,
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    result = CliRunner().invoke(app, ["lint", "--format", "json", "."])
    ids = {f["rule_id"] for f in json.loads(result.output)["findings"]}
    assert expected in ids, result.output
    if expected == "HL007":
        [hl007] = [f for f in json.loads(result.output)["findings"] if f["rule_id"] == "HL007"]
        assert "value file /shop/values.yaml not found" in hl007["message"] or "shop/values.yaml" in hl007["message"]


@pytest.mark.parametrize(
    ("text", "expanded"),
    [
        ("values-$ARGOCD_APP_NAME.yaml", "values-shop.yaml"),
        ("${ARGOCD_APP_NAMESPACE}/v.yaml", "prod/v.yaml"),
        ("$UNKNOWN/v.yaml", "/v.yaml"),
        ("cost$$.yaml", "cost$.yaml"),
        ("a${}b", "ab"),
        ("a${b", "ab"),
        ("tail$", "tail$"),
        ("$1x", "x"),
        ("v-$ARGOCD_APP_REVISION_SHORT.yaml", "v-$ARGOCD_APP_REVISION_SHORT.yaml"),
        ("v-${ARGOCD_APP_REVISION}.yaml", "v-${ARGOCD_APP_REVISION}.yaml"),
    ],
)
def test_envsubst_follows_go_os_expand(text, expanded):
    from hooklint.sources.appmap.applications import envsubst

    assert envsubst(text, {"ARGOCD_APP_NAME": "shop", "ARGOCD_APP_NAMESPACE": "prod"}) == expanded
