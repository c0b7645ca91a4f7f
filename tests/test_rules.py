"""The rule files in ``rules/``: their format, their examples, and their parity with the checks.

A rule's examples are its tests: every ``bad`` example lists the exact (line, column) of each
finding of that rule (and optionally the exact message), every ``good`` example must stay silent
for that rule and, being a manifest to copy, for every other rule too. Each example runs through
:func:`hooklint.engine.lint_text` with its own ``config`` and ``context``, exactly as ``hooklint
explain`` shows it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from hooklint.catalog import rules_dir
from hooklint.checks import ENGINE_RULES
from hooklint.config import parse_config
from tests.manifests import lint_example_as_written

RULES_DIR = Path(rules_dir())
SCHEMA = json.loads((RULES_DIR / "rule.schema.json").read_text(encoding="utf-8"))
RULE_FILES = sorted(RULES_DIR.glob("HL*.yaml"))
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _documents(path: Path) -> list[Any]:
    with open(path, encoding="utf-8") as handle:
        return list(yaml.load_all(handle, Loader=_Loader))


def _validator(definition: str) -> jsonschema.Draft202012Validator:
    """A validator for ``$defs/<definition>`` that still resolves the schema's other ``$defs``."""
    return jsonschema.Draft202012Validator({**SCHEMA, "$ref": f"#/$defs/{definition}"})


def _example_params() -> list[Any]:
    """One pytest param per example of every rule file, with a readable id
    (``HL102-fires-on-latest-tag``). A file that does not load yields no params here; the schema
    test reports it."""
    params = []
    for path in RULE_FILES:
        try:
            docs = _documents(path)
            rule_id = docs[0]["id"]
            examples = docs[1] if len(docs) > 1 and isinstance(docs[1], dict) else {}
        except (yaml.YAMLError, KeyError, TypeError, IndexError):
            continue
        for kind in ("bad", "good"):
            for example in examples.get(kind) or []:
                name = example.get("name", "?") if isinstance(example, dict) else "?"
                params.append(pytest.param(rule_id, kind, example, id=f"{rule_id}-{name}"))
    return params


def test_schema_is_a_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("path", RULE_FILES, ids=[p.stem.split("-", 1)[0] for p in RULE_FILES])
def test_rule_file_matches_schema(path: Path) -> None:
    docs = _documents(path)
    assert len(docs) == 2, f"{path.name}: expected two YAML documents (metadata, examples), got {len(docs)}"
    meta, examples = docs
    for definition, document in (("metadata", meta), ("examples", examples)):
        errors = sorted(_validator(definition).iter_errors(document), key=lambda e: list(e.absolute_path))
        assert not errors, f"{path.name} ({definition}): " + "; ".join(
            f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in errors
        )
    assert path.name == f"{meta['id']}-{meta['slug']}.yaml", "file name must be <id>-<slug>.yaml"
    names = [e["name"] for kind in ("good", "bad") for e in examples[kind]]
    assert len(names) == len(set(names)), f"{path.name}: example names repeat"


@pytest.mark.parametrize(("rule_id", "kind", "example"), _example_params())
def test_rule_example(rule_id: str, kind: str, example: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    config = parse_config(example.get("config") or {}, "example")
    findings = lint_example_as_written(example, config, monkeypatch)
    mine = [f for f in findings if f.rule_id == rule_id]
    got = [(f.span.line, f.span.column) for f in mine]
    shown = "\n".join(f"  {f.span.line}:{f.span.column} {f.message}" for f in mine)
    if kind == "good":
        assert got == [], f"{rule_id} must not fire on this good example, but reported:\n{shown}"
        return
    expect = sorted(example["expect"], key=lambda e: (e["line"], e["column"]))
    assert got == [(e["line"], e["column"]) for e in expect], f"{rule_id} reported:\n{shown}"
    for e in expect:
        if "message" in e:
            at = [f.message for f in mine if (f.span.line, f.span.column) == (e["line"], e["column"])]
            assert e["message"] in at, f"message at {e['line']}:{e['column']}"


@pytest.mark.parametrize(("rule_id", "kind", "example"), [p for p in _example_params() if p.values[1] == "good"])
def test_good_example_is_clean_of_every_rule(
    rule_id: str, kind: str, example: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A good example is a manifest to copy: with every rule enabled (and the example's own
    configuration, which sets any parameter it needs: HL101 stays inactive unless it sets
    allowed-registries) it is reported by no rule at all, not only by its own. An example whose point
    is that its rule leaves a problem to another rule lists that finding, with why, under
    ``reported-instead`` in its rule file (the docs show it); a listed finding that is no longer
    reported fails too."""
    config = parse_config(example.get("config") or {}, "example")
    assert config.select is None and not config.ignore and not config.disable, "a good example runs every rule"
    findings = lint_example_as_written(example, config, monkeypatch)
    allowed = [(o["rule"], o["line"], o["column"]) for o in example.get("reported-instead") or []]
    got = [(f.rule_id, f.span.line, f.span.column) for f in findings]
    shown = "\n".join(f"  {f.rule_id} {f.span.line}:{f.span.column} {f.message}" for f in findings)
    assert sorted(got) == sorted(allowed), (
        f"this good example must lint clean of every rule (but what its reported-instead lists), yet:\n{shown}"
    )


def test_every_rule_file_has_a_check_and_every_check_a_rule_file() -> None:
    """Parity, flake8-style: rule files == checks | engine rules. ``load_all()`` runs in a fresh interpreter: in this process another
    test may already have imported a check module, which would hide one that ``load_all()`` itself
    fails to import (and that a real ``hooklint lint`` run would therefore never run)."""
    code = "import json; from hooklint.checks import load_all; print(json.dumps(sorted(load_all())))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    registered = set(json.loads(done.stdout)) | ENGINE_RULES
    with_files = {path.name.split("-", 1)[0] for path in RULE_FILES}
    assert sorted(with_files - registered) == [], "rule files without a check"
    assert sorted(registered - with_files) == [], "checks without a rule file"


@pytest.mark.parametrize("path", RULE_FILES, ids=[p.stem.split("-", 1)[0] for p in RULE_FILES])
def test_every_rule_has_good_and_bad_examples(path: Path) -> None:
    docs = _documents(path)
    examples = docs[1] if len(docs) > 1 and isinstance(docs[1], dict) else {}
    assert len(examples.get("good") or []) >= 1, f"{path.name}: no good example"
    assert len(examples.get("bad") or []) >= 1, f"{path.name}: no bad example"
