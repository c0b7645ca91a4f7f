"""Mutation testing of ``hooklint/checks`` with mutmut (issue 36), run from the repository's top:

    python bench/mutmut_checks.py                       # every mutant of hooklint/checks
    python bench/mutmut_checks.py 'lifecycle.x_plain_job_fixed_name*' 'ordering.x_too_many_waves*'

mutmut 3 leaves every decorated function alone (``mutation/file_mutation.py``: a decorator runs at
import time), and every check is registered by the ``@check(...)`` decorator, so on the repository
as it stands mutmut mutates only the checks' helpers, never a rule's own body. This script copies
the repository into a temporary folder, rewrites each ``@check(...)`` over ``def name`` into the
same registration written after the module's last line (``name = check(...)(name)``: the same
registry, the same functions), runs ``mutmut run`` there with the ``[tool.mutmut]`` settings of
pyproject.toml (the checks' own tests; ``HOOKLINT_MUTMUT_TESTS="tests/a.py tests/b.py -k 'HL023 or
policy'"`` picks others, split as a shell splits them; ``HOOKLINT_MUTMUT_JOBS=1`` runs one mutant at
a time instead of one per core), and prints ``mutmut results`` and the kill rate
(``HOOKLINT_MUTMUT_DIR`` keeps the copy, where ``mutmut show NAME`` prints a mutant). Patterns name
mutants as mutmut does, ``<module>.x_<function>*``, relative to ``hooklint.checks.`` (or in full,
``hooklint.sources.appmap.applicationsets.x_rollout_problems*``, where HL403-HL405 are decided,
for a check's helpers kept elsewhere; a method is ``<module>.xǁ<Class>ǁ<method>*``, as in
``'hooklint.model.xǁManifestǁcontainers*'``); with patterns, only the modules they name are mutated. The working tree is never
changed. Needs mutmut (``pip install -e '.[test,mutation]'``); hours for every mutant on two cores, minutes for a
few functions.
"""

from __future__ import annotations

import json
import os
import re
import shlex
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
            _set_list(copy / "pyproject.toml", "pytest_add_cli_args_test_selection", shlex.split(tests))
        # a pattern names a function of hooklint.checks, or of another module when written in full
        names = [p if p.startswith("hooklint.") else f"hooklint.checks.{p}" for p in patterns]
        modules = sorted({re.split(r"\.x[_ǁ]", n, maxsplit=1)[0] for n in names})
        if modules and all(re.fullmatch(r"hooklint(\.\w+)+", m) for m in modules):
            _set_list(copy / "pyproject.toml", "only_mutate", [_source(copy, m) for m in modules])
        mutmut = [sys.executable, "-m", "mutmut"]
        jobs = os.environ.get("HOOKLINT_MUTMUT_JOBS")  # mutants run at once (mutmut: one per core)
        options = ["--max-children", jobs] if jobs else []
        run = subprocess.run([*mutmut, "run", *options, *names], cwd=copy, env={**os.environ, "PYTHONPATH": str(copy)})
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


def _set_list(pyproject: Path, key: str, values: list[str]) -> None:
    """Rewrite the one-line-or-more ``key = [...]`` list of ``pyproject`` (the copy's) to ``values``."""
    text = pyproject.read_text(encoding="utf-8")
    start = text.index(f"\n{key} = [") + 1
    end = text.index("]", start) + 1
    chosen = ", ".join(json.dumps(v) for v in values)
    pyproject.write_text(text[:start] + f"{key} = [{chosen}]" + text[end:], encoding="utf-8")


def _source(copy: Path, module: str) -> str:
    """The file of ``module`` relative to ``copy``: ``a/b.py``, or ``a/b/__init__.py`` for a package
    (``hooklint.checks.xǁContextǁin_scope*`` names ``hooklint/checks/__init__.py``)."""
    path = module.replace(".", "/")
    return f"{path}/__init__.py" if (copy / path / "__init__.py").is_file() else f"{path}.py"


def _matches(line: str, pattern: str) -> bool:
    from fnmatch import fnmatchcase

    return fnmatchcase(line.rsplit(": ", 1)[0], pattern)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
