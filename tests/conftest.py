"""What every test shares: an isolated cache folder, and the helpers several modules used to copy.

- Every test runs with ``HOOKLINT_CACHE_DIR`` set to a fresh temporary folder of its own (autouse),
  so no test reads or writes the user's real cache (``~/.cache/hooklint``) and no test sees another
  test's renderings. A test that wants the cache off, or a folder of its own, sets the variable
  again (``monkeypatch.setenv``); subprocesses inherit it through ``os.environ``.
- :func:`hits` / :func:`positions`: a rule's findings for a text, as exact ``(line, column,
  message)`` tuples; :func:`git`: run git in a test repository. Test modules import them
  (``from conftest import hits``): pytest has already loaded this module as ``conftest``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from hooklint.config import parse_config
from hooklint.pipeline import lint_text


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``HOOKLINT_CACHE_DIR`` for this test only: an empty folder outside its ``tmp_path``."""
    folder = tmp_path_factory.mktemp("hooklint-cache")
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(folder))
    return folder


def hits(rule_id: str, text: str, config: dict[str, Any] | None = None,
         context: str | None = None) -> list[tuple[int, int, str]]:  # fmt: skip
    """``(line, column, message)`` of every ``rule_id`` finding for ``text`` (with more manifests
    of the application in ``context``) under the configuration ``config``, in report order."""
    findings = lint_text(text, config=parse_config(config or {}, "test"), context=context)
    return [(f.span.line, f.span.column, f.message) for f in findings if f.rule_id == rule_id]


def positions(rule_id: str, text: str, config: dict[str, Any] | None = None,
              context: str | None = None) -> list[tuple[int, int]]:  # fmt: skip
    """``(line, column)`` of every ``rule_id`` finding (:func:`hits`)."""
    return [(line, column) for line, column, _ in hits(rule_id, text, config, context)]


def git(repo: Path, *args: str) -> str:
    """``git ARGS`` in ``repo``; its stripped stdout. Raises CalledProcessError when git fails."""
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()
