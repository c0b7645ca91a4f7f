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
