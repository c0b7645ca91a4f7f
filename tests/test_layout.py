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
references, the configuration, the rule catalog, signal handling, the run's deadline and node budget) are shared by every stage and
import no stage.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "hooklint"
STAGES: list[tuple[str, ...]] = [
    # "sources": the package itself, which holds only its docstring (a module of it at this rank is
    # one outside its stages: test_every_module_of_sources_belongs_to_one_of_its_stages)
    ("findings", "text", "files", "yamlio", "gojsonread", "argocd", "images", "config", "catalog", "rules", "interrupt",
     "reasons", "deadline", "runnodes", "collector", "prune", "sources"),
    ("loader",),
    ("sources.bounded", "sources.sandbox"),
    ("sources.repository",),
    ("sources.fetch",),
    ("sources.spec",),
    ("sources.render",),
    ("sources.appmap",),
    ("sources.load",),
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


#: The modules that may open a file for reading by themselves, and why. Every other read of a file
#: goes through :func:`hooklint.files.read_bytes` (bounded, never blocking, regular files only, the
#: run's deadline checked) or what is built on it (:func:`hooklint.loader.read_file`), so no module
#: reads a repository file any other way (issue 34).
OWN_READS = {
    "hooklint.files.read_bytes": "the one reader",
    "hooklint.argocd._lua_health": "hooklint's own data (argocd_health.txt)",
    "hooklint.catalog.Rule.meta": "hooklint's own rule files",
    "hooklint.catalog.load_catalog": "hooklint's own rule files",
    "hooklint.catalog.load_examples": "hooklint's own rule files",
    "hooklint.config.schema": "hooklint's own configuration schema",
    "hooklint.fix.read_stamped": "a file fix rewrites: its bytes and the fstat of the same open file",
    "hooklint.fix.write_atomically.unchanged": "the same file again, just before it is replaced",
    "hooklint.sources.render.kustomize._original_text": "the kustomizations of the sandbox's copy, made with read_bytes",
    "hooklint.sources.render._helm_child": "the Helm child reads its request and the sandbox's copy",
    "hooklint.sources.render.cache": "its own entries, under the cache folder",
    "hooklint.files.read_entry": "the caches' own entries, under the cache folder, never through a link",
    "hooklint.sources.fetch": "its own refs under the cache folder, and the credentials file the configuration names",
}


def _reads_a_file(node: ast.AST) -> bool:
    """Whether ``node`` is a call that opens a file for reading: ``open(path)`` / ``open(path, "rb")``
    (no write mode), ``os.open`` without a write flag, ``tarfile.open(path)`` / ``tarfile.open(name=...)``,
    ``Path.read_text()`` / ``read_bytes()``, ``io.open``."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    owner = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else ""
    if name == "open" and owner in ("", "io"):
        mode = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "mode"), None)
        return not (isinstance(mode, ast.Constant) and isinstance(mode.value, str) and set(mode.value) & set("wxa+"))
    if name == "open" and owner == "os":
        flags = ast.unparse(node.args[1]) if len(node.args) > 1 else ""
        return not any(flag in flags for flag in ("O_WRONLY", "O_RDWR", "O_CREAT", "O_DIRECTORY"))
    if name == "open" and owner == "tarfile":
        return bool(node.args) or any(k.arg == "name" for k in node.keywords)
    return name in ("read_text", "read_bytes") and isinstance(func, ast.Attribute) and owner != "files"


def _reads(tree: ast.AST, prefix: str) -> list[tuple[str, ast.Call]]:
    """``(qualified name of the enclosing function or class, call)`` of every read of a file in ``tree``."""
    found = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found += _reads(node, f"{prefix}.{node.name}")
        else:
            if _reads_a_file(node):
                found.append((prefix, node))
            found += _reads(node, prefix)
    return found


def test_only_the_reader_opens_files_for_reading() -> None:
    found = []
    for module, path in _modules():
        for where, node in _reads(ast.parse(path.read_text(encoding="utf-8")), module):
            if not any(where == own or where.startswith(own + ".") for own in OWN_READS):
                found.append(f"{where}:{node.lineno}: {ast.unparse(node)[:80]}")
    assert found == []


@pytest.mark.parametrize("call,reads", [
    ("open(p)", True), ("open(p, 'rb')", True), ("open(p, mode='r')", True), ("open(p, 'w')", False),
    ("open(p, 'xb')", False), ("os.open(p, os.O_RDONLY)", True), ("os.open(p, os.O_WRONLY | os.O_CREAT)", False),
    ("os.open(d, os.O_RDONLY | os.O_DIRECTORY)", False),
    ("tarfile.open(p, 'r:gz')", True), ("tarfile.open(fileobj=f, mode='r|')", False), ("Path(p).read_text()", True),
    ("files.read_bytes(p, 10)", False), ("read_bytes(p, 10)", False), ("io.open(p)", True),
])  # fmt: skip
def test_what_counts_as_opening_a_file_for_reading(call: str, reads: bool) -> None:
    assert _reads_a_file(ast.parse(call).body[0].value) is reads  # type: ignore[attr-defined]
