"""The ``github`` (workflow commands) and ``gitlab`` (Code Quality) formats, and the snippets of
docs/ci.md that use them, run as written."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hooklint import __version__
from hooklint.catalog import load_catalog
from hooklint.config import Config
from hooklint.pipeline import lint_paths
from hooklint.findings import Finding, InputError, ObjectRef, RunResult, Span
from hooklint.reporters import github, gitlab, sarif
from tests.manifests import HL102_BAD, HL102_MESSAGE, doc_blocks

REPO = Path(__file__).resolve().parents[1]

# sha256 of "HL102 \x1f deploy/hooks/presync-job.yaml \x1f Job \x1f \x1f db-migrate \x1f
# spec.template.spec.containers[0].image \x1f 1" (see tests/test_sarif.py).
HL102_FINGERPRINT = "c0fbbb532fd000b9a1b7185a57a3e5e6a63867f6c88d064439b95cc69ed30897"


def only_hl102() -> Config:
    return Config(disable=[r for r in load_catalog().rules if r != "HL102"])


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A repository (a folder with .git) as the current directory, holding one bad hook and a
    .hooklint.yaml that runs only HL102, so outputs stay exact as rules are added."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "deploy/hooks").mkdir(parents=True)
    (tmp_path / "deploy/hooks/presync-job.yaml").write_text(HL102_BAD, encoding="utf-8")
    (tmp_path / ".hooklint.yaml").write_text("disable: [" + ", ".join(sorted(only_hl102().disable)) + "]\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def known_result() -> RunResult:
    return lint_paths(["deploy/hooks/presync-job.yaml"], only_hl102(), load_catalog())


def finding(severity: str, message: str = "Something is wrong.", path: str = "a.yaml",
            span: Span = Span(3, 5, 3, 9), rule_id: str = "HL999") -> Finding:  # fmt: skip
    return Finding(rule_id, "some-rule", severity, message, path, span, ObjectRef(kind="Job", name="j"), field_path="spec.x")


# --- github ------------------------------------------------------------------------------------


def test_github_escaping_follows_actions_core():
    assert github.escape_data("100% done\r\nnext: a, b") == "100%25 done%0D%0Anext: a, b"
    assert github.escape_property("100% done\r\nnext: a, b") == "100%25 done%0D%0Anext%3A a%2C b"
    assert github.escape_data("%0A") == "%250A"  # % first, so escapes are not escaped twice


def test_github_known_finding_exact(repo):
    assert github.render(known_result(), load_catalog()) == (
        "::warning file=deploy/hooks/presync-job.yaml,line=12,col=18,endLine=12,endColumn=45,"
        f"title=HL102 hook-image-mutable-tag::{HL102_MESSAGE}\n"
        "0 errors, 1 warning, 0 notes in 1 file\n"
    )


@pytest.mark.parametrize(("severity", "command"), [("error", "error"), ("warning", "warning"), ("note", "notice")])
def test_github_command_per_severity(repo, severity, command):
    out = github.render(RunResult(findings=[finding(severity)], files=1), load_catalog())
    assert out.splitlines()[0] == f"::{command} file=a.yaml,line=3,col=5,endLine=3,endColumn=9,title=HL999 some-rule::Something is wrong."


def test_github_multiline_span_has_no_columns_and_values_are_escaped(repo):
    f = finding("error", message="50% of it\nis bad: yes", path="odd,dir:x/a.yaml", span=Span(3, 5, 6, 2))
    out = github.render(RunResult(findings=[f], files=1), load_catalog())
    assert out.splitlines()[0] == (
        "::error file=odd%2Cdir%3Ax/a.yaml,line=3,endLine=6,title=HL999 some-rule::50%25 of it%0Ais bad: yes"
    )


def test_github_input_errors_and_notices(repo):
    result = RunResult(errors=[InputError("deploy/missing.yaml", "no such file or directory")],
                       notices=["HL101 is inactive."])  # fmt: skip
    assert github.render(result, load_catalog()) == (
        "::error file=deploy/missing.yaml,title=hooklint::deploy/missing.yaml: no such file or directory\n"
        "note: HL101 is inactive.\n"
        "0 errors, 0 warnings, 0 notes in 0 files\n"
    )


def test_github_paths_are_relative_to_the_repository_root(repo):
    os.chdir(repo / "deploy")
    result = lint_paths(["hooks/presync-job.yaml"], only_hl102(), load_catalog())
    assert github.render(result, load_catalog()).startswith("::warning file=deploy/hooks/presync-job.yaml,line=12,")


# --- gitlab ------------------------------------------------------------------------------------


def test_gitlab_known_finding_exact(repo):
    text = gitlab.render(known_result(), load_catalog())
    assert json.loads(text) == [
        {
            "description": f"HL102 hook-image-mutable-tag: {HL102_MESSAGE}",
            "check_name": "hooklint/HL102",
            "fingerprint": HL102_FINGERPRINT,
            "severity": "major",
            "location": {"path": "deploy/hooks/presync-job.yaml", "lines": {"begin": 12}},
        }
    ]
    assert text.endswith("]\n")
    # The same fingerprint as SARIF's hooklint/v1.
    doc = json.loads(sarif.render(known_result(), load_catalog()))
    assert doc["runs"][0]["results"][0]["partialFingerprints"]["hooklint/v1"] == HL102_FINGERPRINT


def test_gitlab_severity_mapping(repo):
    findings = [finding("error", rule_id="HL901"), finding("warning", rule_id="HL902"), finding("note", rule_id="HL903")]
    items = json.loads(gitlab.render(RunResult(findings=findings), load_catalog()))
    assert [(i["check_name"], i["severity"]) for i in items] == [
        ("hooklint/HL901", "critical"), ("hooklint/HL902", "major"), ("hooklint/HL903", "minor")]
    assert len({i["fingerprint"] for i in items}) == 3


def test_gitlab_clean_run_and_input_errors_give_an_empty_list(repo):
    assert gitlab.render(RunResult(), load_catalog()) == "[]\n"
    assert gitlab.render(RunResult(errors=[InputError("x.yaml", "no such file or directory")]), load_catalog()) == "[]\n"


def test_gitlab_fingerprint_ignores_lines_inserted_above(repo):
    before = json.loads(gitlab.render(known_result(), load_catalog()))[0]
    path = repo / "deploy/hooks/presync-job.yaml"
    path.write_text("# one\n# two\n# three\n# four\n# five\n" + HL102_BAD, encoding="utf-8")
    after = json.loads(gitlab.render(known_result(), load_catalog()))[0]
    assert after["location"]["lines"]["begin"] == 17
    assert after["fingerprint"] == before["fingerprint"] == HL102_FINGERPRINT


# --- the docs/ci.md snippets, run as written ---------------------------------------------------


def run_commands(commands: list[str], cwd: Path) -> list[subprocess.CompletedProcess]:
    """Run each command with bash in ``cwd``, with this interpreter's ``hooklint`` first on PATH.
    ``pip install`` lines are checked, not run: hooklint is installed already."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "CI_"))}
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    done = []
    for command in commands:
        if "pip install" in command:  # with the Helm renderer (issue 35)
            assert f'"hooklint[helm] @ git+https://github.com/hooklint/hooklint@v{__version__}"' in command
            continue
        done.append(subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True))
    return done


def test_docs_plain_github_workflow_runs(repo):
    workflow = yaml.safe_load(doc_blocks()[".github/workflows/hooklint-annotations.yml"])
    steps = workflow["jobs"]["hooklint"]["steps"]
    assert steps[0] == {"uses": "actions/checkout@v7"}
    commands = [s["run"] for s in steps if "run" in s]
    assert len(commands) == 2
    (proc,) = run_commands(commands, repo)
    assert proc.returncode == 1
    assert proc.stdout == (
        "::warning file=deploy/hooks/presync-job.yaml,line=12,col=18,endLine=12,endColumn=45,"
        f"title=HL102 hook-image-mutable-tag::{HL102_MESSAGE}\n"
        "0 errors, 1 warning, 0 notes in 1 file\n"
    )


def test_docs_plain_github_workflow_passes_when_clean(repo):
    (repo / "deploy/hooks/presync-job.yaml").write_text(HL102_BAD.replace(":latest", ":1.4.2"), encoding="utf-8")
    workflow = yaml.safe_load(doc_blocks()[".github/workflows/hooklint-annotations.yml"])
    (proc,) = run_commands([s["run"] for s in workflow["jobs"]["hooklint"]["steps"] if "run" in s], repo)
    assert (proc.returncode, proc.stdout) == (0, "0 errors, 0 warnings, 0 notes in 1 file\n")


def test_docs_gitlab_job_runs_and_writes_the_code_quality_report(repo):
    job = yaml.safe_load(doc_blocks()[".gitlab-ci.yml"])["hooklint"]
    assert job["artifacts"]["when"] == "always"
    report = job["artifacts"]["reports"]["codequality"]
    assert report == "gl-code-quality-report.json"
    assert any(f"--output {report}" in line for line in job["script"])
    (proc,) = run_commands(job["script"], repo)
    assert proc.returncode == 1, proc.stderr
    assert json.loads((repo / report).read_text(encoding="utf-8")) == [
        {
            "description": f"HL102 hook-image-mutable-tag: {HL102_MESSAGE}",
            "check_name": "hooklint/HL102",
            "fingerprint": HL102_FINGERPRINT,
            "severity": "major",
            "location": {"path": "deploy/hooks/presync-job.yaml", "lines": {"begin": 12}},
        }
    ]


def test_docs_severity_table_matches_the_reporter():
    text = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    table = dict(re.findall(r"^\| (error|warning|note) \| (\w+) \|$", text, re.MULTILINE))
    assert table == gitlab.SEVERITY == {"error": "critical", "warning": "major", "note": "minor"}


# --- every documented path installs the renderers (issue 35) -----------------------------------

KUSTOMIZE_INSTALL = (
    'curl -sSfL "https://github.com/kubernetes-sigs/kustomize/releases/download/kustomize%2Fv5.7.1/'
    'kustomize_v5.7.1_linux_amd64.tar.gz" | tar -xzf - -C /usr/local/bin kustomize'
)


@pytest.mark.parametrize(("block", "name"), [(".gitlab-ci.yml", "hooklint"), (".gitlab-ci.yml (merge requests)", "hooklint-review")])
def test_docs_gitlab_jobs_install_helm_and_kustomize(block, name):
    """The documented GitLab jobs installed hooklint without its Helm extra and without kustomize:
    54 HL008 errors on one public repository, and a failed job."""
    job = yaml.safe_load(doc_blocks()[block])[name]
    assert job["image"] == "python:3.12"
    assert job["before_script"] == [KUSTOMIZE_INSTALL]
    assert job["script"][0] == f'python -I -m pip install "hooklint[helm] @ git+https://github.com/hooklint/hooklint@v{__version__}"'


def test_precommit_hook_installs_the_helm_extra():
    """pre-commit installs the hook's repository without extras: the manifest adds the Helm extra's
    package itself, at the version pyproject.toml pins."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    (hook,) = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    extra = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]["helm"]
    assert hook["additional_dependencies"] == extra == ["helm-python-sdk==0.2.2"]
    text = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    assert "keep `helm-python-sdk` among them" in text and "kubectl kustomize" in text


def test_readme_quick_start_installs_the_helm_extra():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    quick_start = readme.split("## Set up", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    assert "pip install -e '.[helm]' && hooklint lint" in quick_start


def test_docs_workflows_pass_actionlint(tmp_path):
    """Every GitHub workflow of docs/ci.md, as written, passes actionlint (shellcheck and pyflakes
    off: whether they are installed is the machine's business)."""
    import shutil

    actionlint = shutil.which("actionlint")
    if actionlint is None:
        pytest.skip("actionlint is not installed (pip install -e '.[test]' installs it)")
    folder = tmp_path / ".github" / "workflows"
    folder.mkdir(parents=True)
    names = [name for name in doc_blocks() if name.startswith(".github/workflows/")]
    assert names == [".github/workflows/hooklint.yml", ".github/workflows/hooklint-annotations.yml",
                     ".github/workflows/hooklint-review.yml"]  # fmt: skip
    for name in names:
        (tmp_path / name).write_text(doc_blocks()[name], encoding="utf-8")
    proc = subprocess.run([actionlint, "-no-color", "-shellcheck=", "-pyflakes=", *names], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    # and it does find faults: a step with both uses and run
    (tmp_path / names[0]).write_text(doc_blocks()[names[0]].replace("      - uses: actions/checkout@v7\n",
                                     "      - uses: actions/checkout@v7\n        run: echo x\n"))  # fmt: skip
    proc = subprocess.run([actionlint, "-no-color", "-shellcheck=", "-pyflakes=", names[0]], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 1 and "uses" in proc.stdout
