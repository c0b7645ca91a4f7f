"""The wheel users install holds every package and data file of the source tree (issue 19, class 1).

CI installed hooklint in editable mode only, so a subpackage missing from a hand-kept list in
pyproject.toml (``hooklint.review``) went unseen until ``hooklint diff`` failed for every user of
the wheel. The test builds the wheel from a copy of the source tree, offline and without build
isolation (setuptools comes from the test extra), and compares its members with the tree.
``.ci/installed-smoke`` then installs it into a fresh environment and runs every command."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: What the build reads; everything else of the checkout (.venv, .git, caches) stays out.
SOURCES = ("pyproject.toml", "setup.py", "README.md", "hooklint", "rules")


def _package_data(root: str) -> set[str]:
    """The data file names pyproject.toml ships with the ``hooklint`` package, each of which must
    exist in the tree (a name listed there but missing fails here, not in a user's install)."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    with open(os.path.join(root, "pyproject.toml"), "rb") as handle:
        names = set(tomllib.load(handle)["tool"]["setuptools"]["package-data"]["hooklint"])
    assert all(os.path.isfile(os.path.join(root, "hooklint", name)) for name in names), names
    return names


def _expected(root: str) -> set[str]:
    """The wheel members the source tree at ``root`` calls for: every module and data file of
    every package under ``hooklint/`` (a folder with ``__init__.py``), and ``rules/`` as
    ``hooklint/rules/`` (its ``__init__.py``, rule files and schema)."""
    out: set[str] = set()
    data = _package_data(root)
    for folder, names, files in os.walk(os.path.join(root, "hooklint")):
        names[:] = [n for n in names if n != "__pycache__"]
        if "__init__.py" not in files:
            continue
        rel = os.path.relpath(folder, root).replace(os.sep, "/")
        out.update(f"{rel}/{name}" for name in files if name.endswith(".py") or (rel == "hooklint" and name in data))
    for name in os.listdir(os.path.join(root, "rules")):
        if name.endswith((".yaml", ".json")) or name == "__init__.py":
            out.add(f"hooklint/rules/{name}")
    return out


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    pytest.importorskip("setuptools", minversion="77")
    source = tmp_path_factory.mktemp("source")
    for name in SOURCES:
        path = os.path.join(ROOT, name)
        if os.path.isdir(path):
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(path, source / name)
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                           "--quiet", "-w", str(out), str(source)], capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    (built,) = [p for p in os.listdir(out) if p.endswith(".whl")]
    with zipfile.ZipFile(out / built) as archive:
        yield archive


def test_the_wheel_holds_every_package_module_and_data_file(wheel: zipfile.ZipFile) -> None:
    members = {n for n in wheel.namelist() if not n.startswith("hooklint-")}
    expected = _expected(ROOT)
    assert sorted(expected - members) == []
    assert sorted(members - expected) == []  # nothing else, a tests/ or examples/ folder least of all


def test_the_wheel_holds_the_packages_once_left_out_and_every_rule(wheel: zipfile.ZipFile) -> None:
    members = set(wheel.namelist())
    for package in ("hooklint", "hooklint/checks", "hooklint/reporters", "hooklint/review", "hooklint/rules",
                    "hooklint/sources"):  # fmt: skip
        assert f"{package}/__init__.py" in members
    assert {"hooklint/py.typed", "hooklint/config.schema.json", "hooklint/rules/rule.schema.json"} <= members
    rules = [n for n in os.listdir(os.path.join(ROOT, "rules")) if n.startswith("HL") and n.endswith(".yaml")]
    assert len(rules) > 40
    assert all(f"hooklint/rules/{name}" in members for name in rules)


def test_the_wheel_says_its_entry_point(wheel: zipfile.ZipFile) -> None:
    (entry_points,) = [n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt")]
    assert "hooklint = hooklint.cli:main" in wheel.read(entry_points).decode()


def test_expected_members_follow_the_tree(tmp_path) -> None:
    """The expectation is computed from the tree, so a new subpackage is expected without editing
    this test: a folder with ``__init__.py`` counts, one without does not."""
    (tmp_path / "hooklint" / "new").mkdir(parents=True)
    (tmp_path / "hooklint" / "__init__.py").write_text("")
    (tmp_path / "hooklint" / "new" / "__init__.py").write_text("")
    (tmp_path / "hooklint" / "new" / "mod.py").write_text("")
    (tmp_path / "hooklint" / "notes").mkdir()
    (tmp_path / "hooklint" / "notes" / "x.py").write_text("")
    (tmp_path / "hooklint" / "data.txt").write_text("")
    (tmp_path / "hooklint" / "new" / "data.txt").write_text("")  # the data list is the top package's
    (tmp_path / "pyproject.toml").write_text('[tool.setuptools.package-data]\nhooklint = ["data.txt"]\n')
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "HL001-x.yaml").write_text("")
    assert _expected(str(tmp_path)) == {"hooklint/__init__.py", "hooklint/data.txt", "hooklint/new/__init__.py",
                                        "hooklint/new/mod.py", "hooklint/rules/HL001-x.yaml"}  # fmt: skip
