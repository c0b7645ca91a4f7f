"""A rule's story starts at its rule file (issue 20): its ``code`` section names the check that
reports it, the fixer that repairs it and the test files that hold it, and this test holds each
entry to the code, so a newcomer told a rule id can open each from ``rules/<ID>-<slug>.yaml``."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

from hooklint import fix
from hooklint.catalog import load_catalog
from hooklint.checks import ENGINE_RULES, load_all

REPO = Path(__file__).resolve().parents[1]
CATALOG = load_catalog()


def _resolve(entry: str) -> object:
    """The function ``hooklint/x/y.py::Name.attr`` names (AttributeError when it does not exist)."""
    file, _, dotted = entry.partition("::")
    target: object = importlib.import_module(file.removesuffix(".py").replace("/", "."))
    for part in dotted.split("."):
        target = getattr(target, part)
    return target


def _where(fn: object) -> str:
    """``fn``'s entry as a rule file writes it; a fixer made by a factory is named by the factory."""
    path = Path(inspect.getsourcefile(fn)).resolve().relative_to(REPO).as_posix()  # type: ignore[arg-type]
    return f"{path}::{fn.__qualname__.split('.<locals>')[0]}"  # type: ignore[attr-defined]


@pytest.mark.parametrize("rule_id", sorted(CATALOG.rules))
def test_a_rule_files_code_section_names_its_checks_fix_and_tests(rule_id: str) -> None:
    code = CATALOG.rules[rule_id].code
    if rule_id in ENGINE_RULES:  # reported by the suppression stage, not a registered check
        assert all(callable(_resolve(entry)) for entry in code["checks"])
        assert all(re.search(rf"\b{rule_id}\b|{'UNUSED_SUPPRESSION' if rule_id == 'HL901' else 'MISSING_REASON'}",
                             inspect.getsource(_resolve(entry))) for entry in code["checks"])  # type: ignore[arg-type]  # fmt: skip
    else:
        assert sorted(code["checks"]) == sorted(_where(c.fn) for c in load_all()[rule_id])
    fixer = fix.FIXERS.get(rule_id)
    assert code.get("fix") == (_where(fixer) if fixer is not None else None)
    assert (code.get("fix") is not None) == (CATALOG.rules[rule_id].autofix is not None)
    assert code["tests"][0] == "tests/test_rules.py"
    for test_file in code["tests"][1:]:
        assert re.search(rf"\b{rule_id}\b", (REPO / test_file).read_text(encoding="utf-8")), test_file


def test_a_check_entry_that_names_no_function_fails_to_resolve() -> None:
    with pytest.raises(AttributeError):
        _resolve("hooklint/checks/ordering.py::too_many_wavez")
