"""Docstrings that name rules say true things: each check module's summary line lists exactly the
rules whose checks it registers (issue 20: five module docstrings listed the wrong rules)."""

from __future__ import annotations

import importlib
import re

import pytest

from hooklint.checks import CHECK_MODULES, load_all


def _named(summary: str) -> set[str]:
    """The rule ids a summary line names, ``HL201-HL211`` ranges expanded to every id in between."""
    named: set[str] = set()
    for first, last in re.findall(r"HL(\d{3})(?:-HL(\d{3}))?", summary):
        named.update(f"HL{n:03d}" for n in range(int(first), int(last or first) + 1))
    return named


@pytest.mark.parametrize("name", CHECK_MODULES)
def test_a_check_modules_summary_names_exactly_the_rules_it_registers(name: str) -> None:
    registry = load_all()
    module = importlib.import_module(f"hooklint.checks.{name}")
    registered = {rule for rule, checks in registry.items() if any(c.fn.__module__ == module.__name__ for c in checks)}
    summary = (module.__doc__ or "").split(":", 1)[0]
    assert _named(summary) == registered
