"""The package type-checks: it ships ``py.typed``, so its annotations are a promise to its users.

mypy runs with the project's configuration (``[tool.mypy]`` in ``pyproject.toml``), its cache in a
temporary folder (nothing written into the checkout).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_mypy_finds_no_error_in_the_package(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy")],
                            cwd=REPO, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("Success: no issues found in ")
