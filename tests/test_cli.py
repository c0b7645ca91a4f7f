"""The command line: exit codes, output formats, stdin, errors (typer's CliRunner, and once as a
real subprocess)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hooklint import __version__
from hooklint.cli import app
from tests.manifests import CONFIGMAP, LATEST_TAG_HOOK

ROOT = Path(__file__).resolve().parents[1]

HL102_MESSAGE = (
    "Image 'ghcr.io/acme/migrate:latest' of container 'migrate' of Job/db-migrate uses the mutable "
    "tag ':latest': each sync may run different code than was reviewed. Pin a version tag or, "
    "better, an @sha256 digest."
)

runner = CliRunner()


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A repository with one bad hook Job and an empty config (no walking up into the repo's); a
    Git work tree, so that runs from its folders and from elsewhere find it (outside Git the
    search stops at the current folder, or at the folder named)."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".hooklint.yaml").write_text("allowed-registries: [ghcr.io/acme]\n")
    app_dir = tmp_path / "app"
    app_dir.mkdir()
    (app_dir / "job.yaml").write_text(LATEST_TAG_HOOK)
    (app_dir / "config.yaml").write_text(CONFIGMAP)  # a plain resource, so HL305 stays quiet
    monkeypatch.chdir(tmp_path)
    return tmp_path


def invoke(*args, input=None):
    return runner.invoke(app, list(args), input=input)


def test_version():
    result = invoke("--version")
    assert (result.exit_code, result.output) == (0, f"hooklint {__version__}\n")


def test_text_output_and_exit_1(tree):
    result = invoke("lint", "app")
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"app/job.yaml:17:18: warning HL102 hook-image-mutable-tag: {HL102_MESSAGE}",
        "",
        "0 errors, 1 warning, 0 notes in 2 files",
    ]


def test_fail_on_error_ignores_warnings(tree):
    assert invoke("lint", "--fail-on", "error", "app").exit_code == 0


def test_write_baseline_to_a_path_that_cannot_be_written_is_one_error_line(tree):
    """Before: ``internal error: UnboundLocalError`` (BaselineError was imported only for --baseline)."""
    target = tree / "missing" / "baseline.json"
    result = invoke("lint", "--write-baseline", str(target), "app")
    assert (result.exit_code, result.stderr) == (
        2, f"hooklint: error: {target}: cannot write baseline: No such file or directory\n")
    assert result.stdout.splitlines()[-1] == "0 errors, 1 warning, 0 notes in 2 files"
    assert not target.parent.exists()


def test_write_baseline_prints_the_summary_not_the_report(tree):
    """Before: every finding was printed, then written to the baseline too."""
    result = invoke("lint", "--write-baseline", "b.json", "app")
    assert (result.exit_code, result.stdout, result.stderr) == (
        0, "0 errors, 1 warning, 0 notes in 2 files\n", "hooklint: wrote 1 finding to the baseline b.json\n")
    result = invoke("lint", "--write-baseline", "b.json", "-f", "json", "-o", "report.json", "app")
    assert result.exit_code == 0 and len(json.loads((tree / "report.json").read_text())["findings"]) == 1


@pytest.mark.parametrize(
    "fail_on, expected", [("error", 0), ("warning", 1), ("note", 1), ("never", 0)])
def test_one_fail_threshold_for_lint_fix_and_diff(tree, fail_on, expected):
    """Config.failing decides it for every command: the one warning fails at warning and note only."""
    assert invoke("lint", "--fail-on", fail_on, "app").exit_code == expected
    assert invoke("fix", "--diff", "--fail-on", fail_on, "app").exit_code == expected
    assert invoke("lint", "--fail-on", "never", "app").exit_code == 0
    assert invoke("lint", "--fail-on", "note", "app").exit_code == 1


def test_json_output_shape(tree):
    result = invoke("lint", "--format", "json", "app")
    doc = json.loads(result.output)
    assert doc["version"] == __version__
    assert doc["summary"] == {"error": 0, "warning": 1, "note": 0, "files": 2, "suppressed": 0, "stale_baseline": 0}
    assert doc["errors"] == []
    assert doc["findings"] == [
        {
            "rule_id": "HL102", "slug": "hook-image-mutable-tag", "severity": "warning",
            "message": HL102_MESSAGE, "path": "app/job.yaml", "line": 17, "column": 18,
            "end_line": 17, "end_column": 45,
            "object": {"api_version": "batch/v1", "kind": "Job", "name": "db-migrate",
                       "generate_name": None, "namespace": None},
            "hook": {"phases": ["PreSync"], "wave": 0},
            "suppression": None,
        }
    ]  # fmt: skip


def test_output_file(tree):
    result = invoke("lint", "--format", "json", "--output", "report.json", "app")
    # the report goes to the file; stderr gets the one-line summary for the CI log
    assert result.exit_code == 1 and result.output == "hooklint: 0 errors, 1 warning, 0 notes in 2 files (report in report.json)\n"
    assert json.loads((tree / "report.json").read_text())["summary"]["warning"] == 1


def test_missing_path_is_exit_2_and_the_rest_is_linted(tree):
    result = invoke("lint", "nope.yaml", "app")
    assert result.exit_code == 2
    assert "hooklint: error: nope.yaml: no such file or directory" in result.output
    assert "app/job.yaml:17:18: warning HL102" in result.output


def test_bad_config_is_one_line_and_exit_2(tree):
    (tree / ".hooklint.yaml").write_text("require-digest: maybe\n")
    result = invoke("lint", "app")
    assert result.exit_code == 2
    assert result.output == f"hooklint: error: {tree / '.hooklint.yaml'}:1: 'require-digest' must be true or false, not 'maybe'\n"


def test_unknown_format_is_a_usage_error(tree):
    assert invoke("lint", "--format", "xml", "app").exit_code == 2


def test_stdin_names_helm_templates(tree):
    stream = "---\n# Source: shop/templates/migrate.yaml\n" + LATEST_TAG_HOOK + "---\n" + CONFIGMAP
    result = invoke("lint", "-", input=stream)
    assert result.exit_code == 1
    # lines count from the "# Source:" comment: line 1 is the template's first line
    assert result.output.startswith("shop/templates/migrate.yaml:17:18: warning HL102 ")


def test_inactive_registry_rule_is_said_once(tree):
    (tree / ".hooklint.yaml").write_text("{}\n")
    result = invoke("lint", "app")
    assert result.output.count("HL101 (hook-image-registry-not-allowed) is inactive") == 1


def test_disable_by_slug(tree):
    (tree / ".hooklint.yaml").write_text("disable: [hook-image-mutable-tag]\n")
    result = invoke("lint", "app")
    assert "HL102" not in result.output


def test_rules_and_explain():
    listing = invoke("rules").output
    assert "HL102  warning  hook-image-mutable-tag" in listing
    explained = invoke("explain", "HL102")
    assert explained.exit_code == 0
    assert explained.output.startswith("HL102 hook-image-mutable-tag (warning)\n")
    assert "Example that is reported (fires-on-latest-tag):" in explained.output
    assert invoke("explain", "HL999").exit_code == 2


def test_real_subprocess(tree):
    """The console script as a user runs it: exit code and first line."""
    proc = subprocess.run(
        [sys.executable, "-m", "hooklint", "lint", "app"], capture_output=True, text=True, cwd=tree
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("app/job.yaml:17:18: warning HL102 hook-image-mutable-tag: ")
    assert proc.stderr == ""


def test_text_output_keeps_each_finding_on_one_line(tree):
    (tree / "app" / "job.yaml").write_text(LATEST_TAG_HOOK.replace(
        "    argocd.argoproj.io/hook: PreSync\n",
        "    argocd.argoproj.io/hook: PreSync\n    argocd.argoproj.io/sync-wave: |\n      5\n"))
    result = invoke("lint", "app")
    line = next(l for l in result.output.splitlines() if " HL012 " in l)
    assert line.startswith("app/job.yaml:7:35: error HL012 invalid-sync-wave: argocd.argoproj.io/sync-wave '5\\n' on Job/db-migrate")


def test_output_dash_means_stdout(tree):
    result = invoke("lint", "--format", "json", "--output", "-", "app")
    assert json.loads(result.output)["summary"]["warning"] == 1
    assert not (tree / "-").exists()


# --- issue 10, part 5: colour, --statistics --------------------------------------------------------


def test_colour_follows_no_color_and_force_color(tree, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    plain = invoke("lint", "app").output  # not a terminal: no colour
    assert "\x1b[" not in plain
    monkeypatch.setenv("FORCE_COLOR", "1")
    coloured = invoke("lint", "app").output
    assert coloured.startswith("\x1b[1mapp/job.yaml:17:18:\x1b[0m \x1b[33mwarning\x1b[0m HL102 hook-image-mutable-tag: ")
    assert "\x1b[" not in invoke("lint", "--format", "json", "app").output
    monkeypatch.setenv("NO_COLOR", "1")  # NO_COLOR wins
    assert invoke("lint", "app").output == plain
    monkeypatch.setenv("NO_COLOR", "")  # empty: not set
    assert invoke("lint", "app").output == coloured


def test_statistics_count_each_rule(tree):
    (tree / "app" / "other.yaml").write_text(LATEST_TAG_HOOK.replace("db-migrate", "db-seed"))
    result = invoke("lint", "--statistics", "app")
    lines = result.output.splitlines()
    assert lines[2:5] == ["", "2  HL102  warning  hook-image-mutable-tag", ""]
    assert lines[5] == "0 errors, 2 warnings, 0 notes in 3 files"


def test_python_m_hooklint_without_its_dependencies_says_so_in_one_line(tmp_path):
    """``python -S`` leaves out site-packages, where typer lives: one line and exit 2, no traceback."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.run([sys.executable, "-S", "-m", "hooklint", "lint", "."], cwd=tmp_path, env=env,
                          capture_output=True, text=True)  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"hooklint: error: typer is not installed for {sys.executable}: install hooklint first (pip install -e . "
        "from the repository, as its README says)"]


def test_an_empty_select_on_the_command_line_is_exit_2_not_a_silent_pass(tree):
    """`--select "$RULES"` with RULES unset must not turn the gate off."""
    result = invoke("lint", "--select", "", "app")
    assert (result.exit_code, result.output) == (
        2, "hooklint: error: --select names no rule, so nothing would be checked: leave it out to run every rule\n")
    result = invoke("lint", "--ignore", "HL", "app")
    assert (result.exit_code, result.output) == (2, "hooklint: error: --ignore leaves no rule to run, so nothing would be checked\n")


# --- paths, usage lines, configuration from the linted path (issue 23) ----------------------------


@pytest.mark.parametrize(
    "command, usage",
    [
        ("lint", "Usage: hooklint lint [OPTIONS] [PATH]..."),
        ("plan", "Usage: hooklint plan [OPTIONS] [PATH]..."),
        ("fix", "Usage: hooklint fix [OPTIONS] [PATH]..."),
        ("diff", "Usage: hooklint diff [OPTIONS] BASE [PATH]..."),
        ("explain", "Usage: hooklint explain [OPTIONS] RULE"),
    ],
)
def test_usage_lines_name_the_arguments(command, usage):
    result = runner.invoke(app, [command, "--help"], prog_name="hooklint")
    assert result.output.splitlines()[0] == usage


def test_lint_plan_and_fix_without_a_path_take_the_current_folder(tree, monkeypatch):
    monkeypatch.chdir(tree / "app")
    result = invoke("lint")
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"job.yaml:17:18: warning HL102 hook-image-mutable-tag: {HL102_MESSAGE}",
        "",
        "0 errors, 1 warning, 0 notes in 2 files",
    ]
    assert invoke("plan").output.splitlines()[0] == "Application .: 2 objects, 2 steps (Argo CD 3.5.1, directory source)"
    fixed = invoke("fix", "--diff")
    assert (fixed.exit_code, fixed.output.splitlines()[-1]) == (1, "hooklint: would fix 0 findings in 0 files")


def test_the_configuration_is_the_linted_trees_not_the_current_folders(tree, tmp_path_factory, monkeypatch):
    """``hooklint lint ../deploy`` from another folder reads deploy's configuration, as
    ``hooklint lint .`` inside it does."""
    (tree / ".hooklint.yaml").write_text("allowed-registries: [ghcr.io/acme]\nignore: [HL102]\n")
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / ".hooklint.yaml").write_text("select: [HL999]\n")  # would be a configuration error
    monkeypatch.chdir(elsewhere)
    for command in ("lint", "plan", "fix"):
        result = invoke(command, str(tree / "app"), *(["--diff"] if command == "fix" else []))
        assert result.exit_code == 0, (command, result.output)
    assert invoke("lint", str(tree / "app")).output == "0 errors, 0 warnings, 0 notes in 2 files\n"
    assert invoke("lint", "-").exit_code == 2  # stdin: the current folder's, which names no rule HL999


def test_a_newer_argocd_version_is_read_as_the_newest_known_with_one_note(tree):
    (tree / ".hooklint.yaml").write_text('allowed-registries: [ghcr.io/acme]\nargocd-version: "3.6"\n')
    note = (f"hooklint: note: {tree / '.hooklint.yaml'}:2: argocd-version '3.6' is newer than the newest Argo CD "
            "release hooklint knows (3.5.1): rules follow 3.5.1")
    for args in (["lint", "app"], ["lint", "-f", "json", "app"], ["lint", "-f", "sarif", "app"], ["plan", "app"],
                 ["rules"]):  # fmt: skip
        result = runner.invoke(app, args)
        assert result.exit_code in (0, 1), (args, result.output)
        assert result.stderr.splitlines() == [note], args
        assert note not in result.stdout
    assert invoke("plan", "app").stdout.splitlines()[0] == "Application app: 2 objects, 2 steps (Argo CD 3.5.1, directory source)"
    (tree / ".hooklint.yaml").write_text('argocd-version: "3.6.x"\n')  # malformed: still refused
    result = invoke("lint", "app")
    assert (result.exit_code, result.output) == (
        2, f"hooklint: error: {tree / '.hooklint.yaml'}:1: argocd-version must look like \"3.3\" or \"2.14.1\", not '3.6.x'\n")


@pytest.mark.parametrize(
    "args, line",
    [
        (["lint", "--format", "bogus", "x"], "Invalid value for '--format' / '-f' / '--output-format': 'bogus' is not one of 'text', 'concise', 'json', "
                                             "'sarif', 'github', 'gitlab', 'markdown' (see hooklint lint --help)"),
        (["lint", "--jobs", "-3"], "Invalid value for '--jobs' / '-j': -3 is not in the range x>=0 (see hooklint lint --help)"),
        (["plan", "-f", "sarif"], "Invalid value for '--format' / '-f': 'sarif' is not one of 'text', 'json' (see "
                                  "hooklint plan --help)"),
        (["diff"], "Missing argument 'BASE' (see hooklint diff --help)"),
        (["lnt"], "No such command 'lnt'. Did you mean 'lint'? (see hooklint --help)"),
        (["--bogus"], "No such option: --bogus (see hooklint --help)"),
    ],
)  # fmt: skip
def test_a_usage_error_is_one_line_and_exit_code_2(args, line):
    """click printed three lines (usage, a hint, the error); every bad input is one line."""
    result = runner.invoke(app, args, prog_name="hooklint")
    assert (result.exit_code, result.output) == (2, f"hooklint: error: {line}\n")


def test_a_report_that_cannot_be_written_is_one_line_not_an_internal_error(tmp_path):
    """``hooklint plan > /dev/full`` ended in ``internal error: OSError`` (helper trial)."""
    import subprocess
    import sys

    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "hooklint", "plan", "-f", "json", str(Path(__file__).resolve().parents[1] / "examples")], stdout=full,
                              stderr=subprocess.PIPE, text=True, env=dict(os.environ, HOOKLINT_CACHE_DIR="off"),
                              timeout=120)  # fmt: skip
    assert (done.returncode, done.stderr) == (2, "hooklint: error: cannot write the report: No space left on device\n")


def test_a_file_that_is_no_manifest_named_on_the_command_line_is_an_input_error(tree):
    """Before: ``hooklint lint notes.txt`` linted nothing and exited 0. Like a missing file, it is an
    error for itself only: the other paths are linted and reported (before: nothing was)."""
    (tree / "notes.txt").write_text("hello\n")
    (tree / "README.md").write_text("# app\n")
    result = invoke("lint", "notes.txt", "app", "README.md")
    assert (result.exit_code, result.stdout) == (2, invoke("lint", "app").stdout)
    assert "HL102" in result.stdout
    result = invoke("lint", "notes.txt", "README.md")
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", (
        "hooklint: error: notes.txt: not a YAML or JSON file (hooklint lints *.yaml, *.yml and *.json manifests); "
        "name the manifests or their folder\n"
        "hooklint: error: README.md: not a YAML or JSON file (hooklint lints *.yaml, *.yml and *.json manifests); "
        "name the manifests or their folder\n"))  # fmt: skip
    # a folder holding such files, a Kustomization and a chart's NOTES.txt are fine
    (tree / "app/notes.txt").write_text("hello\n")
    assert invoke("lint", "app").exit_code == 1
    (tree / "chart/templates").mkdir(parents=True)
    (tree / "chart/Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (tree / "chart/templates/NOTES.txt").write_text("Installed.\n")
    assert invoke("lint", "chart/templates/NOTES.txt").exit_code in (0, 1)


@pytest.mark.parametrize(("config", "args", "message"), [
    ("allowed-registry: [ghcr.io/acme]\n", [],
     "{cfg}:1: unknown key 'allowed-registry'; did you mean 'allowed-registries'? (known: allowed-registries, "),
    ("Fail_On: error\n", [], "{cfg}:1: unknown key 'Fail_On'; did you mean 'fail-on'? (known: "),
    ("ignore: [hook-image-mutable-tags]\n", [],
     "{cfg}:1: 'ignore' names unknown rule 'hook-image-mutable-tags'; did you mean 'hook-image-mutable-tag'? (a rule "
     "id, slug or id prefix such as HL1)"),
    ("", ["--select", "HL1O2"],
     "--select names unknown rule 'HL1O2'; did you mean 'HL102'? (a rule id, slug or id prefix such as HL1)"),
    ("", ["--ignore", "zzzz"], "--ignore names unknown rule 'zzzz' (a rule id, slug or id prefix such as HL1)"),
])  # fmt: skip
def test_did_you_mean_for_configuration_keys_and_rule_names(tree, config, args, message):
    (tree / ".hooklint.yaml").write_text(config)
    result = invoke("lint", *args, "app")
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith("hooklint: error: " + message.format(cfg=tree / ".hooklint.yaml"))
