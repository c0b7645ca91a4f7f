"""The package's layout follows the pipeline: no module imports a stage after its own.

    files (loader) -> sources -> manifests (model) -> plan -> checks -> findings (engine)
    -> suppression -> pipeline (runs the stages) -> fix (edits files, lints through the pipeline) -> reporters
    -> review (runs the pipeline on two revisions), doctor (reports what a run would use) -> cli

The foundations (positions and findings, reading files, the YAML reader, Argo CD's rules, image
references, the configuration, the rule catalog, signal handling, the run's deadline) are shared by every stage and
import no stage.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "hooklint"
STAGES: list[tuple[str, ...]] = [
    ("findings", "text", "files", "yamlio", "argocd", "images", "config", "catalog", "rules", "interrupt", "reasons",
     "deadline"),
    ("loader",),
    ("sources",),
    ("model",),
    ("plan",),
    ("checks",),
    ("engine",),
    ("suppression",),
    ("pipeline",),
    ("fix",),
    ("reporters",),
    ("review", "doctor"),
    ("cli", "__main__"),
]
RANK = {name: i for i, names in enumerate(STAGES) for name in names}


def _stage(module: str) -> int:
    """The stage of ``hooklint.x.y`` (its first part below the package)."""
    return RANK[module.split(".")[1]]


def _modules() -> list[tuple[str, Path]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if len(parts) > 1:
            out.append((".".join(parts), path))
    return out


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("hooklint."):
            found.add(node.module)
        elif isinstance(node, ast.ImportFrom) and node.module == "hooklint":
            found.update(f"hooklint.{alias.name}" for alias in node.names if alias.name in RANK)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("hooklint."))
    return found


@pytest.mark.parametrize("module,path", _modules(), ids=[m for m, _ in _modules()])
def test_no_module_imports_a_later_stage(module: str, path: Path) -> None:
    later = sorted(i for i in _imports(path) if _stage(i) > _stage(module))
    assert later == [], f"{module} imports later stages"


def test_every_module_belongs_to_a_stage() -> None:
    assert sorted({m.split(".")[1] for m, _ in _modules()} - set(RANK)) == []
