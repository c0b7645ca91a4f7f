"""examples/: the good application lints clean, and the README quotes the real output."""

import re
from pathlib import Path

from typer.testing import CliRunner

from hooklint.cli import app

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args))


def readme_block(command: str) -> str:
    """The console block of the README that starts with ``$ command``, without the prompt line."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"```console\n\$ " + re.escape(command) + r"\n(.*?)```", text, re.S)
    assert match, f"README has no console block for {command!r}"
    return match.group(1)


def test_good_example_is_clean(monkeypatch):
    monkeypatch.chdir(ROOT)
    result = run("lint", "--config", "examples/.hooklint.yaml", "examples/good")
    assert (result.exit_code, result.output) == (0, "0 errors, 0 warnings, 0 notes in 6 files\n")


def test_bad_example_output_is_what_the_readme_shows(monkeypatch):
    monkeypatch.chdir(ROOT)
    result = run("lint", "--config", "examples/.hooklint.yaml", "examples/bad")
    assert result.exit_code == 1
    assert result.output == readme_block("hooklint lint --config examples/.hooklint.yaml examples/bad")
    rules = sorted({line.split()[2] for line in result.output.splitlines() if ": error " in line or ": warning " in line})
    assert rules == ["HL004", "HL010", "HL012", "HL014", "HL101", "HL102", "HL104", "HL201",
                     "HL202", "HL203", "HL205", "HL301"]  # fmt: skip


def test_plan_output_is_what_the_readme_shows(monkeypatch):
    monkeypatch.chdir(ROOT)
    result = run("plan", "examples/good")
    assert result.exit_code == 0
    assert result.output == readme_block("hooklint plan examples/good")
