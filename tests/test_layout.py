"""The package's layout follows the pipeline: no module imports a stage after its own.

    files (loader) -> sources -> manifests (model) -> plan -> checks -> findings (engine)
    -> suppression -> pipeline (runs the stages) -> fix (edits files, lints through the pipeline) -> reporters
    -> review (runs the pipeline on two revisions), doctor (reports what a run would use) -> cli

The sources stage is three stages of its own (issue 34), each importing only the ones below it:

    child processes (bounded, sandbox) -> repository (the tree, containment, what a kustomization or a
    packaged chart says) -> fetch (sources from elsewhere, opt-in) -> the Application source record
    (spec) -> render (kustomize, Helm, directory, partial renderings, redaction, the render cache)
    -> application map (written Applications, app of apps, ApplicationSets, fetched sources)
    -> sources (one application loaded: the stage's entry)

No module is part of an import circle, function-level imports included: a lazy import is for speed,
never to break a circle.

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
    ("sources.bounded", "sources.sandbox"),
    ("sources.repository",),
    ("sources.fetch",),
    ("sources.spec",),
    ("sources.render",),
    ("sources.appmap",),
    ("sources",),
    ("model",),
    ("plan",),
    ("checks",),
    ("engine",),
    ("suppression",),
    ("pipeline", "results"),
    ("fix",),
    ("reporters",),
    ("review", "doctor"),
    ("cli", "__main__"),
]
RANK = {name: i for i, names in enumerate(STAGES) for name in names}


def _stage(module: str) -> int:
    """The stage of ``hooklint.x.y.z``: that of its longest prefix below the package that names one
    (``sources.render`` for ``hooklint.sources.render.helm``, ``checks`` for ``hooklint.checks.rbac``)."""
    parts = module.split(".")[1:]
    for end in range(len(parts), 0, -1):
        key = ".".join(parts[:end])
        if key in RANK:
            return RANK[key]
    raise KeyError(module)


def _modules() -> list[tuple[str, Path]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if len(parts) > 1:
            out.append((".".join(parts), path))
    return out


@pytest.mark.parametrize("module,path", _modules(), ids=[m for m, _ in _modules()])
def test_no_module_imports_a_later_stage(module: str, path: Path) -> None:
    known = {m for m, _ in _modules()}
    later = sorted(i for i in _module_imports(module, path, known) if _stage(i) > _stage(module))
    assert later == [], f"{module} imports later stages"


def test_every_module_belongs_to_a_stage() -> None:
    assert sorted({m.split(".")[1] for m, _ in _modules()} - set(RANK)) == []


def test_every_module_of_sources_belongs_to_one_of_its_stages() -> None:
    top = RANK["sources"]
    assert sorted(m for m, _ in _modules() if m.startswith("hooklint.sources.") and _stage(m) == top) == []


def _module_imports(module: str, path: Path, known: set[str]) -> set[str]:
    """The package modules ``module`` imports anywhere in its file (functions included):
    ``from hooklint.a import b`` is ``hooklint.a.b`` when that is a module, else ``hooklint.a``;
    relative imports resolved."""
    found = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            for alias in node.names:
                name = f"{base}.{alias.name}"
                found.add(name if name in known else base)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return {m for m in found if m in known and m != module}


def test_no_import_circle() -> None:
    modules = dict(_modules())
    known = set(modules) | {"hooklint"}
    graph = {m: _module_imports(m, p, known) - {"hooklint"} for m, p in modules.items()}
    circles = []
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()

    def visit(module: str) -> None:  # Tarjan's strongly connected components
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph[module]):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == module:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    assert circles == []


def test_the_circle_test_finds_a_circle(tmp_path) -> None:
    """The resolution the circle test relies on sees a function-level import of a sibling."""
    one = tmp_path / "one.py"
    one.write_text("def f():\n    from hooklint.sources.render import helm\n")
    known = {"hooklint.sources.render", "hooklint.sources.render.helm", "hooklint.sources.x.one"}
    assert _module_imports("hooklint.sources.x.one", one, known) == {"hooklint.sources.render.helm"}
