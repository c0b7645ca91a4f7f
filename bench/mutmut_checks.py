"""Mutation testing of ``hooklint/checks`` with mutmut (issue 36), run from the repository's top:

    python bench/mutmut_checks.py                       # every mutant of hooklint/checks
    python bench/mutmut_checks.py 'lifecycle.x_plain_job_fixed_name*' 'ordering.x_too_many_waves*'

mutmut 3 leaves every decorated function alone (``mutation/file_mutation.py``: a decorator runs at
import time), and every check is registered by the ``@check(...)`` decorator, so on the repository
as it stands mutmut mutates only the checks' helpers, never a rule's own body. This script copies
the repository into a temporary folder, rewrites each ``@check(...)`` over ``def name`` into the
same registration written after the module's last line (``name = check(...)(name)``: the same
registry, the same functions), runs ``mutmut run`` there with the ``[tool.mutmut]`` settings of
pyproject.toml (the checks' own tests; ``HOOKLINT_MUTMUT_TESTS="tests/a.py tests/b.py"`` picks
others), and prints ``mutmut results`` and the kill rate (``HOOKLINT_MUTMUT_DIR`` keeps the copy,
where ``mutmut show NAME`` prints a mutant). Patterns
name mutants as mutmut does, ``<module>.x_<function>*``, relative to ``hooklint.checks.``. The
working tree is never changed. Needs mutmut (``pip install mutmut``); hours for every mutant on
two cores, minutes for a few functions.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
_DECORATED = re.compile(r"^@check\((?P<args>.*)\)\n(?=def (?P<name>\w+)\()", re.MULTILINE)


def undecorate(text: str) -> str:
    """``text`` of a check module with each one-line ``@check(...)`` moved below the module as a
    call on the function it decorated, in the original order."""
    calls = [f"{m['name']} = check({m['args']})({m['name']})" for m in _DECORATED.finditer(text)]
    if not calls:
        return text
    return _DECORATED.sub("", text).rstrip("\n") + "\n\n\n" + "\n".join(calls) + "\n"


def main(patterns: list[str]) -> int:
    keep = os.environ.get("HOOKLINT_MUTMUT_DIR")  # a folder to keep the copy in (for mutmut show)
    with tempfile.TemporaryDirectory(prefix="hooklint-mutmut-") as tmp:
        copy = Path(keep) if keep else Path(tmp) / "repo"
        shutil.copytree(REPO, copy, ignore=shutil.ignore_patterns(".git", ".venv", "mutants", "__pycache__", "*.egg-info"))
        for path in sorted((copy / "hooklint" / "checks").glob("*.py")):
            path.write_text(undecorate(path.read_text(encoding="utf-8")), encoding="utf-8")
        tests = os.environ.get("HOOKLINT_MUTMUT_TESTS")  # test files instead of [tool.mutmut]'s
        if tests:
            pyproject = copy / "pyproject.toml"
            text = pyproject.read_text(encoding="utf-8")
            start = text.index("pytest_add_cli_args_test_selection = [")
            end = text.index("]", start) + 1
            chosen = ", ".join(f'"{t}"' for t in tests.split())
            pyproject.write_text(text[:start] + f"pytest_add_cli_args_test_selection = [{chosen}]" + text[end:], encoding="utf-8")
        mutmut = [sys.executable, "-m", "mutmut"]
        names = [f"hooklint.checks.{p}" for p in patterns]
        run = subprocess.run([*mutmut, "run", *names], cwd=copy, env={**os.environ, "PYTHONPATH": str(copy)})
        results = subprocess.run([*mutmut, "results", "--all", "true"], cwd=copy, capture_output=True, text=True)
        lines = [line.strip() for line in results.stdout.splitlines() if ": " in line]
        wanted = [line for line in lines if not names or any(_matches(line, n) for n in names)]
        status: dict[str, int] = {}
        for line in wanted:
            status[line.rsplit(": ", 1)[1]] = status.get(line.rsplit(": ", 1)[1], 0) + 1
        for line in wanted:
            if not line.endswith(": killed"):
                print(line)
        killed, checked = status.get("killed", 0), sum(v for k, v in status.items() if k != "not checked")
        print(f"{status}\nkill rate: {killed}/{checked}" + (f" = {killed / checked:.1%}" if checked else ""))
        return run.returncode


def _matches(line: str, pattern: str) -> bool:
    from fnmatch import fnmatchcase

    return fnmatchcase(line.rsplit(": ", 1)[0], pattern)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
