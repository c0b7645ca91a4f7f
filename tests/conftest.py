"""What every test shares: an isolated cache folder, and the helpers several modules used to copy.

- Every test runs with ``HOOKLINT_CACHE_DIR`` set to a fresh temporary folder of its own (autouse),
  so no test reads or writes the user's real cache (``~/.cache/hooklint``) and no test sees another
  test's renderings. A test that wants the cache off, or a folder of its own, sets the variable
  again (``monkeypatch.setenv``); subprocesses inherit it through ``os.environ``.
- :func:`hits` / :func:`positions`: a rule's findings for a text, as exact ``(line, column,
  message)`` tuples; :func:`git`: run git in a test repository; :func:`write`: files
  under a folder; :func:`gone`: whether a process
  has ended. Test modules import them
  (``from conftest import hits``): pytest has already loaded this module as ``conftest``.
- Expensive fixtures several modules use, built once per test process (with pytest-xdist, once
  per worker): :func:`corpus_result`, the public corpus linted in process, over
  :func:`session_cache`, a render cache of the session's own.

Every test must be process-safe (the suite runs in pytest-xdist workers, ``-n`` in pyproject's
``addopts``): its files in its own ``tmp_path`` (or ``tmp_path_factory``), a listener on a free port
(or one that counts only its own process's connections), a ``TMPDIR`` of its own when it watches
the temporary folder, and nothing written into the repository.
"""

from __future__ import annotations

import subprocess
import time
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


def write(root: Path, files: dict[str, str]) -> None:
    """Each ``{relative path: text}`` of ``files`` written under ``root``, its folders made."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def gone(pid: int, within: float = 5.0) -> bool:
    """Whether process ``pid`` has ended (or is a zombie) within ``within`` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as handle:
                if handle.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


def git(repo: Path, *args: str) -> str:
    """``git ARGS`` in ``repo``; its stripped stdout. Raises CalledProcessError when git fails."""
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def git_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, origin: str = "https://github.com/acme/deploy.git") -> Path:
    """An empty git repository ``tmp_path/repo`` whose ``origin`` is ``origin``, made the current
    folder, with every cache off: the checkout a review (``hooklint diff``) runs in."""
    repo = tmp_path / "repo"
    repo.mkdir()
    monkeypatch.chdir(repo)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "ci@example.com")
    git(repo, "config", "user.name", "ci")
    git(repo, "remote", "add", "origin", origin)
    return repo


def commit_tagged(repo: Path, tag: str, files: dict[str, str]) -> None:
    """Write ``files`` into ``repo``, commit everything and tag the commit ``tag``."""
    write(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", tag)
    git(repo, "tag", tag)


# --- shared expensive fixtures (built once per test process; with pytest-xdist, once per worker) ---

REPO = Path(__file__).resolve().parents[1]
#: The public corpus (../shared/corpus/public beside the clone): read, never copied into the repository.
CORPUS = REPO.parent / "shared" / "corpus" / "public"


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The path of every file the loader parses while the test runs (``_FileParser.run``), in order."""
    from hooklint import loader

    found: list[str] = []
    real = loader._FileParser.run

    def counted(self: Any) -> Any:
        found.append(self.path)
        return real(self)

    monkeypatch.setattr(loader._FileParser, "run", counted)
    return found


@pytest.fixture(scope="session")
def session_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A render cache shared by the session-scoped fixtures below (never the user's own): a
    rendering of the corpus made by one of them is reused by the next, as a user's second run
    would reuse it. Tests still get their own empty cache (:func:`isolated_cache`)."""
    return tmp_path_factory.mktemp("hooklint-session-cache")


@pytest.fixture(scope="session")
def corpus_result(session_cache: Path) -> Any:
    """``lint_paths([CORPUS])`` with the default configuration, run once from the repository's
    root (test_corpus.py and test_sarif.py read it; no test may change it)."""
    from hooklint.catalog import load_catalog
    from hooklint.config import Config
    from hooklint.pipeline import lint_paths

    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not beside the clone")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOOKLINT_CACHE_DIR", str(session_cache))
        patch.chdir(REPO)
        return lint_paths([str(CORPUS)], Config(), load_catalog())
