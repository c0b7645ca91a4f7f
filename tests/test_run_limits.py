"""Limits the repository cannot lift (issue 32, item 3): a run ends at ``run-timeout`` with one
error naming what it did not check (exit 2, never a silent pass; what it checked still reported),
across ``--jobs`` workers and their renderers; a configuration found in the repository may lower
``max-file-size``, ``render-timeout``, ``render-memory`` and ``run-timeout``, never raise them.

The attacker's inputs are written here from scratch: an ApplicationSet of a few lines whose every
element is a rendering of its own, and a ``.hooklint.yaml`` that lifts every limit."""

from __future__ import annotations

import json
import os
import re
import sys
import textwrap
import time

import pytest
from typer.testing import CliRunner

from conftest import gone, write
from hooklint import deadline, pipeline
from hooklint.catalog import load_catalog
from hooklint.cli import app
from hooklint.config import Config, load_config
from hooklint.pipeline import lint_paths, plan_paths
from hooklint.sources.render import kustomize
from tests.manifests import CONFIGMAP, LATEST_TAG_HOOK

CATALOG = load_catalog()
runner = CliRunner()
REPO_URL = "https://git.example.com/acme/shop.git"

#: One ApplicationSet, 6 Applications, each rendering the kustomization ``shop`` with a prefix of
#: its own: six renderings, none the same as another.
APPSET = f"""\
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: fleet
spec:
  generators:
  - list:
      elements:
      - {{name: a}}
      - {{name: b}}
      - {{name: c}}
      - {{name: d}}
      - {{name: e}}
      - {{name: f}}
  template:
    metadata:
      name: "shop-{{{{name}}}}"
    spec:
      project: shop
      source:
        repoURL: {REPO_URL}
        path: shop
        kustomize:
          namePrefix: "{{{{name}}}}-"
      destination:
        namespace: shop
"""


@pytest.fixture
def slow_kustomize(tmp_path_factory, monkeypatch):
    """A ``kustomize`` on PATH (outside the repository) whose every build takes ``SLOW_BUILD``
    seconds (a file ``hang`` beside it: forever, in a grandchild it starts too, whose pid it
    writes into ``pids/``), then prints the YAML files of the folder it builds."""
    bin_dir = tmp_path_factory.mktemp("bin")
    (bin_dir / "pids").mkdir()
    script = bin_dir / "kustomize"
    script.write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        import os, subprocess, sys, time
        if sys.argv[1] == "version":
            print("v5.5.0")
            sys.exit(0)
        if os.path.exists({str(bin_dir / "hang")!r}):
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
            open(os.path.join({str(bin_dir / "pids")!r}, str(child.pid)), "w").close()
            time.sleep(300)
        time.sleep({SLOW_BUILD})
        folder = sys.argv[-1]
        for name in sorted(os.listdir(folder)):
            if name.endswith(".yaml") and name != "kustomization.yaml":
                print("---")
                print(open(os.path.join(folder, name)).read())
        """))
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    kustomize.find_kustomize.cache_clear()
    yield bin_dir
    kustomize.find_kustomize.cache_clear()


#: Seconds one build of the slow kustomize takes, and the run's limit in the tests: one build fits
#: (with time to spare on a busy machine), two do not.
SLOW_BUILD = 2.5
LIMIT = 4


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    write(tmp_path, {".git/config": f'[remote "origin"]\n\turl = {REPO_URL}\n', "apps/fleet.yaml": APPSET,
                     "shop/kustomization.yaml": "resources:\n- job.yaml\n", "shop/job.yaml": LATEST_TAG_HOOK})  # fmt: skip
    yield tmp_path
    assert not deadline.active()  # a run's deadline ends with the run


def hl102(result) -> list[tuple[str, int, int]]:
    return [(f.path, f.span.line, f.span.column) for f in result.findings if f.rule_id == "HL102"]


def unchecked_message(limit: int, names: list[str], total: int, listed: bool = True) -> str:
    shown = ", ".join(f"Application shop-{n} (apps/fleet.yaml:21)" for n in names[:5])
    shown += f" and {len(names) - 5} more" if len(names) > 5 else ""
    them = "them" if len(names) != 1 else "it"
    return (f"the run reached its time limit of {limit} s (limit: run-timeout) with {len(names)} of {total} "
            f"applications not checked: {shown}; nothing of {them} is reported"
            f"{' (--show-skipped lists the files)' if listed else ''}: give the run more time with --run-timeout SECONDS")


def test_an_applicationset_of_many_renderings_stops_at_run_timeout_and_names_what_it_left(repo, slow_kustomize):
    """Six renderings of 2.5 s each under a run-timeout of 4 s: the first one is checked and
    reported, the run stops in about 4 s (not 15), and the five it did not check are named."""
    start = time.perf_counter()
    result = lint_paths(["."], Config(run_timeout=LIMIT), CATALOG)
    assert time.perf_counter() - start < LIMIT + 3
    assert len(hl102(result)) == 1  # shop-a's: checked and reported
    [error] = result.errors
    assert (error.path, error.message) == ("apps/fleet.yaml", unchecked_message(LIMIT, ["b", "c", "d", "e", "f"], 7))
    assert [p for p, r in result.skipped_files if r.kind.name == "NOT_CHECKED"] == []  # shop-a read shop/


def test_the_command_line_exits_2_with_one_line_and_still_reports_what_it_checked(repo, slow_kustomize):
    done = runner.invoke(app, ["lint", "--format", "json", "--run-timeout", str(LIMIT), "."])
    assert done.exit_code == 2
    report = json.loads(done.stdout)
    assert len([f for f in report["findings"] if f["rule_id"] == "HL102"]) == 1  # shop-a's, checked
    assert report["errors"] == [{"path": "apps/fleet.yaml",
                                 "message": unchecked_message(LIMIT, ["b", "c", "d", "e", "f"], 7)}]  # fmt: skip
    assert done.stderr == f"hooklint: error: apps/fleet.yaml: {unchecked_message(LIMIT, ['b', 'c', 'd', 'e', 'f'], 7)}\n"


def test_a_plan_stops_at_run_timeout_too(repo, slow_kustomize):
    plans, errors = plan_paths(["."], Config(run_timeout=LIMIT))
    assert [(e.path, e.message) for e in errors] == [
        ("apps/fleet.yaml", unchecked_message(LIMIT, ["b", "c", "d", "e", "f"], 7, listed=False))]
    assert len(plans) == 2  # the root folder and shop-a


def test_the_deadline_holds_across_workers_and_kills_their_renderers(repo, slow_kustomize, monkeypatch):
    """``--jobs 2``: each worker's hanging renderer (render-timeout 60 s, its grandchild too) is
    killed at the run's deadline, and every application is named as not checked."""
    (slow_kustomize / "hang").touch()
    monkeypatch.setattr(pipeline, "PARALLEL_MIN_FILES", 1)
    start = time.perf_counter()
    result = lint_paths(["."], Config(run_timeout=3), CATALOG, jobs=2)
    assert time.perf_counter() - start < 3 + 4
    [error] = result.errors
    assert error.message == unchecked_message(3, ["a", "b", "c", "d", "e", "f"], 7)
    assert [p for p, r in result.skipped_files if r.kind.name == "NOT_CHECKED"] == ["shop/job.yaml",
                                                                                   "shop/kustomization.yaml"]
    pids = [int(p.name) for p in (slow_kustomize / "pids").iterdir()]
    assert pids and all(gone(pid) for pid in pids)


def test_a_worker_that_does_not_stop_at_the_deadline_is_stopped(repo, monkeypatch):
    """A worker busy past the deadline where its own timer cannot stop it (here: asleep in the
    middle of an application with SIGALRM blocked, as in a long call into C) is terminated by the
    parent a moment after it, and its applications are named as not checked."""
    import signal

    slow = pipeline.lint_application

    def stuck(engine, application, *rest):
        if application.argocd is not None and application.argocd.name == "shop-c":
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
            time.sleep(120)
        return slow(engine, application, *rest)

    monkeypatch.setattr(pipeline, "lint_application", stuck)
    monkeypatch.setattr(pipeline, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(pipeline, "WORKER_GRACE", 0.5)
    start = time.perf_counter()
    result = lint_paths(["apps", "shop"], Config(run_timeout=3), CATALOG, jobs=2)
    assert time.perf_counter() - start < 8
    [error] = result.errors  # shop-c and every application after it (the pool's order), some before it on a busy machine
    count = int(re.search(r"with (\d) of 7", error.message).group(1))
    assert count >= 4 and error.message == unchecked_message(3, ["a", "b", "c", "d", "e", "f"][6 - count:], 7)


# --- limits a found configuration cannot raise ------------------------------------------------

LIFTED = """\
fail-on: warning
max-file-size: 1073741824
render-timeout: 86400
render-memory: 1048576
run-timeout: 86400
fetch-max-bytes: 17179869184
fetch-max-files: 1000000
fetch-timeout: 86400
"""


def lifted_note(line: int, key: str, value: str, default: str) -> str:
    option = ", or give --run-timeout," if key == "run-timeout" else ""
    return (f".hooklint.yaml:{line}: '{key}' {value} is above hooklint's default of {default}, and a configuration "
            f"found in the repository may lower a limit, never raise it: {default} is used (name the file with "
            f"--config{option} to raise it)")


NOTES = [
    lifted_note(2, "max-file-size", "1,073,741,824 bytes", "10,485,760 bytes"),
    lifted_note(3, "render-timeout", "86,400 s", "60 s"),
    lifted_note(4, "render-memory", "1,048,576 MiB", "2,048 MiB"),
    lifted_note(5, "run-timeout", "86,400 s", "300 s"),
    lifted_note(6, "fetch-max-bytes", "17,179,869,184 bytes", "209,715,200 bytes"),
    lifted_note(7, "fetch-max-files", "1,000,000 files", "10,000 files"),
    lifted_note(8, "fetch-timeout", "86,400 s", "120 s"),
]


def limits(config: Config) -> tuple[int, ...]:
    return (config.max_file_size, config.render_timeout, config.render_memory, config.run_timeout,
            config.fetch_max_bytes, config.fetch_max_files, config.fetch_timeout)


def test_a_found_configuration_cannot_raise_a_limit(repo):
    write(repo, {".hooklint.yaml": LIFTED})
    config = load_config(None, ["."])
    assert limits(config) == (10 * 1024 * 1024, 60, 2048, 300, 200 * 1024 * 1024, 10_000, 120)
    assert list(config.limit_notes.values()) == NOTES


def test_a_found_pyproject_cannot_raise_a_limit(repo):
    write(repo, {"pyproject.toml": "[project]\nname = 'x'\n\n[tool.hooklint]\nrender-timeout = 86400\n"})
    config = load_config(None, ["."])
    assert config.render_timeout == 60
    assert list(config.limit_notes.values()) == [
        lifted_note(5, "render-timeout", "86,400 s", "60 s").replace(".hooklint.yaml", "pyproject.toml")]


def test_a_found_configuration_may_lower_every_limit(repo):
    write(repo, {".hooklint.yaml": "max-file-size: 1000\nrender-timeout: 5\nrender-memory: 256\nrun-timeout: 30\n"
                                   "fetch-max-bytes: 1000\nfetch-max-files: 10\nfetch-timeout: 5\n"})
    config = load_config(None, ["."])
    assert (limits(config), config.limit_notes) == ((1000, 5, 256, 30, 1000, 10, 5), {})


def test_a_configuration_named_with_config_may_raise_every_limit(repo):
    write(repo, {".hooklint.yaml": LIFTED})
    config = load_config(".hooklint.yaml", ["."])
    assert (limits(config), config.limit_notes) == ((1073741824, 86400, 1048576, 86400, 17179869184, 1000000, 86400),
                                                    {})


def test_the_command_line_says_which_limits_it_did_not_lift_and_run_timeout_may_lift_one(repo, monkeypatch):
    write(repo, {".hooklint.yaml": LIFTED, "plain/cm.yaml": CONFIGMAP})
    seen: list[tuple[int, int, float | None]] = []
    real = pipeline._lint_paths

    def spy(paths, config, *rest):
        seen.append((config.render_timeout, config.run_timeout, deadline.limit()))
        return real(paths, config, *rest)

    monkeypatch.setattr(pipeline, "_lint_paths", spy)
    done = runner.invoke(app, ["lint", "plain/cm.yaml"])
    assert (done.exit_code, done.stderr) == (0, "".join(f"hooklint: note: {n}\n" for n in NOTES))
    assert seen == [(60, 300, 300)]
    done = runner.invoke(app, ["lint", "--run-timeout", "1000", "plain/cm.yaml"])
    assert (done.exit_code, done.stderr) == (0, "".join(f"hooklint: note: {n}\n" for n in NOTES[:3] + NOTES[4:]))
    assert seen[1] == (60, 1000, 1000)
    done = runner.invoke(app, ["lint", "--config", ".hooklint.yaml", "plain/cm.yaml"])
    assert (done.exit_code, done.stderr, seen[2]) == (0, "", (86400, 86400, 86400))


def test_a_review_reads_the_base_configuration_as_found(tmp_path, monkeypatch):
    """``hooklint diff``: a change that edits the configuration is checked with the base's, which
    was found in the repository as much as the change's is: its limits too may only be lowered."""
    from conftest import git
    from hooklint import review

    top = tmp_path / "repo"
    (top / "app").mkdir(parents=True)
    monkeypatch.chdir(top)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    git(top, "init", "-q", "-b", "main")
    git(top, "config", "user.email", "ci@example.com")
    git(top, "config", "user.name", "ci")
    write(top, {".hooklint.yaml": "render-timeout: 86400\n", "app/cm.yaml": CONFIGMAP})
    git(top, "add", "-A")
    git(top, "commit", "-qm", "base")
    write(top, {".hooklint.yaml": "render-timeout: 86400\nfail-on: error\n"})
    seen: list[tuple[int, int]] = []
    real = review.lint_paths

    def spy(paths, config, *rest, **options):
        seen.append((config.render_timeout, getattr(config, "run_timeout", None)))
        return real(paths, config, *rest, **options)

    monkeypatch.setattr(review, "lint_paths", spy)
    done = runner.invoke(app, ["diff", "HEAD", "app"])
    assert done.exit_code == 0, done.output
    assert seen == [(60, 300), (60, 300)]


def test_a_run_out_of_time_before_any_application_is_checked_says_so(repo):
    """The deadline passes while the applications are being found (every file read is a point
    where the run stops): nothing is checked, and one error says so."""
    result = lint_paths(["shop"], Config(run_timeout=0), CATALOG)
    assert [(e.path, e.message) for e in result.errors] == [(
        "shop", "the run reached its time limit of 0 s (limit: run-timeout) while finding the applications of shop; "
        "nothing is checked: give the run more time with --run-timeout SECONDS")]  # fmt: skip
    assert (result.findings, result.files) == ([], 0)


def test_the_deadline_holds_within_one_application_of_many_objects(tmp_path, monkeypatch):
    """Attacker trial: the deadline was checked at renderers, file reads and between applications
    only, so one folder of 70,000 hook documents ran 62 s past ``--run-timeout 20`` and exited 1
    with its whole report. Each object's checks here take 10 ms (2,000 objects: 20 s)."""
    from hooklint.engine import Engine

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    hook = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  generateName: x-\n  annotations:\n"
            "    argocd.argoproj.io/hook: PreSync\n")  # fmt: skip
    write(tmp_path, {"app/jobs.yaml": "---\n".join([hook] * 2000)})
    real = Engine._checks_for

    def slow(self, manifest):
        time.sleep(0.01)
        return real(self, manifest)

    monkeypatch.setattr(Engine, "_checks_for", slow)
    started = time.monotonic()
    result = runner.invoke(app, ["lint", "--run-timeout", "1", "app"])
    assert time.monotonic() - started < 10
    assert (result.exit_code, result.stderr) == (2, (
        "hooklint: error: app/jobs.yaml: the run reached its time limit of 1 s (limit: run-timeout) with 1 of 1 "
        "application not checked: app; nothing of it is reported (--show-skipped lists the files): give the run more "
        "time with --run-timeout SECONDS\n"))  # fmt: skip
    assert not deadline.active()


# --- inside one step: the deadline's timer (attacker trial 15: HL106 over 2,000 pods and 2,000
# bindings ran 97 s past a 30 s run-timeout, no check between its steps) -------------------------


def _spin() -> None:
    """hooklint's own work that never checks the deadline: a loop of pure Python."""
    while True:
        sum(range(1000))


def test_the_timer_stops_an_armed_block_that_never_checks_the_deadline():
    deadline.start(0.3)
    started = time.monotonic()
    try:
        with pytest.raises(deadline.RunTimeout, match=r"^the run reached its time limit of 0.3 s \(limit: run-timeout\)$"):
            with deadline.armed():
                _spin()
        # it raised once and disarmed itself: the except clause that takes it is never cut short
        assert deadline._armed is False
        time.sleep(0.2)  # the timer fires again meanwhile (every RECHECK seconds), raising nothing
    finally:
        deadline.stop()
    assert time.monotonic() - started < 5


def test_outside_an_armed_block_the_timer_waits_then_the_next_block_stops_at_once():
    deadline.start(0.1)
    try:
        end = time.monotonic() + 0.4
        while time.monotonic() < end:  # past the deadline, not armed: no exception here (a report being printed)
            sum(range(1000))
        with pytest.raises(deadline.RunTimeout):
            with deadline.armed():
                pytest.fail("an armed block past the deadline must not start")
    finally:
        deadline.stop()


def test_stop_cancels_the_timer_and_gives_back_the_previous_handler():
    import signal

    def mine(signum, frame):
        pass

    previous = signal.signal(signal.SIGALRM, mine)
    try:
        deadline.start(30)
        assert signal.getsignal(signal.SIGALRM) is not mine
        deadline.stop()
        assert signal.getsignal(signal.SIGALRM) is mine
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    finally:
        signal.signal(signal.SIGALRM, previous)


def test_a_check_of_the_whole_application_that_never_ends_stops_at_run_timeout(repo, monkeypatch):
    """The command line, with an application check that never returns nor checks the deadline."""
    from hooklint import engine

    monkeypatch.setattr(engine.Engine, "check_application", lambda self, *args, **kwargs: _spin())
    write(repo, {"app/cm.yaml": CONFIGMAP})
    started = time.monotonic()
    done = runner.invoke(app, ["lint", "--run-timeout", "1", "app"])
    assert time.monotonic() - started < 15
    assert done.exit_code == 2
    assert done.stderr.startswith("hooklint: error: app/cm.yaml: the run reached its time limit of 1 s (limit: "
                                  "run-timeout) with 1 of 1 application not checked: app")
