"""``hooklint fix`` (issue 11): every fix on its rule's bad examples, byte for byte; the public
corpus fixed in a throwaway git repository; the safety rules (no write through a symbolic link out
of the tree, none into an unreadable file, atomic and mode-keeping, stdin to stdout).

The expected texts are in ``tests/snapshots/fix/<rule>-<example>.yaml``; regenerate them with
``HOOKLINT_UPDATE_SNAPSHOT=1 python -m pytest tests/test_fix.py`` and review the diff.
"""

from __future__ import annotations

import difflib
import os
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hooklint.catalog import load_catalog, load_examples
from hooklint.cli import app
from hooklint.config import Config
from hooklint.fix import FIXERS, SAFE, FixOptions, fix_paths, fix_text, unique_near_match
from hooklint.pipeline import lint_paths, lint_text

REPO = Path(__file__).resolve().parents[1]
EXPECTED = REPO / "tests" / "snapshots" / "fix"
CORPUS = REPO.parent / "shared" / "corpus" / "public"
UPDATE = os.environ.get("HOOKLINT_UPDATE_SNAPSHOT") == "1"
runner = CliRunner()


def _bad_examples():
    catalog = load_catalog()
    for rule_id in sorted(FIXERS):
        rule = catalog.resolve(rule_id)
        for example in load_examples(rule)["bad"]:
            if "path" not in example and "files" not in example:
                yield pytest.param(rule, example, id=f"{rule_id}-{example['name']}")


def _options(rule) -> FixOptions:
    return FixOptions(unsafe=rule.autofix != SAFE)


def test_every_fixable_rule_declares_its_kind():
    catalog = load_catalog()
    declared = {r.id for r in catalog.sorted() if r.autofix is not None}
    assert declared == set(FIXERS)
    assert {r.id: r.autofix for r in catalog.sorted() if r.autofix == "unsafe"} == {
        "HL104": "unsafe", "HL201": "unsafe", "HL202": "unsafe",
    }  # fmt: skip


@pytest.mark.parametrize("rule,example", list(_bad_examples()))
def test_fix_on_bad_example(rule, example):
    """Fixed text equals the stored text byte for byte, lints clean of the rule (or the finding is
    left for a person with a reason), and a second fix changes nothing."""
    config, catalog, context = Config(), load_catalog(), example.get("context")
    text = example["manifest"]
    findings = lint_text(text, config, catalog, context=context)
    mine = [f for f in findings if f.rule_id == rule.id]
    assert mine
    out = fix_text("manifest.yaml", text, findings, config, catalog, _options(rule))
    expected = EXPECTED / f"{rule.id}-{example['name']}.yaml"
    if UPDATE:
        expected.parent.mkdir(parents=True, exist_ok=True)
        expected.write_bytes(out.fixed.encode("utf-8"))
    assert out.fixed.encode("utf-8") == expected.read_bytes()
    remaining = [f for f in lint_text(out.fixed, config, catalog, context=context) if f.rule_id == rule.id]
    if out.fixed == text:
        assert remaining and all(reason for f, reason in out.left if f.rule_id == rule.id)
        assert {f.rule_id for f, _ in out.left} >= {rule.id}
    else:
        assert remaining == []
    again = fix_text("manifest.yaml", out.fixed, lint_text(out.fixed, config, catalog, context=context), config,
                     catalog, _options(rule))  # fmt: skip
    assert again.fixed == out.fixed


@pytest.mark.parametrize(
    "item,choices,expected",
    [
        ("Presync", ("PreSync", "PostSync", "Sync"), "PreSync"),
        ("post-sync", ("PreSync", "PostSync", "Sync"), "PostSync"),
        ("PostSynch", ("PreSync", "PostSync", "Sync"), "PostSync"),
        ("pre-install", ("PreSync", "PostSync", "Sync"), None),
        ("HookSucceed", ("HookSucceeded", "HookFailed", "BeforeHookCreation"), "HookSucceeded"),
        ("Hook", ("HookSucceeded", "HookFailed", "BeforeHookCreation"), None),
    ],
)
def test_unique_near_match(item, choices, expected):
    assert unique_near_match(item, choices) == expected


FIXED_KEYS = ("restartPolicy", "automountServiceAccountToken", "backoffLimit", "activeDeadlineSeconds",
              "argocd.argoproj.io/hook-delete-policy")  # fmt: skip
_ADDED = re.compile(r"^( *)(restartPolicy: Never|automountServiceAccountToken: false|backoffLimit: \d+|"
                    r"activeDeadlineSeconds: \d+|argocd\.argoproj\.io/hook-delete-policy: BeforeHookCreation)$")  # fmt: skip
_KEY = re.compile(r"^( *(?:- )?[^\s:#][^:#]*:(?: |$))")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _check_changed_lines(path: str, old: str, new: str, fixed_lines: set[int]) -> None:
    """Every changed line of ``path`` is inside a fixed node (same key, a line where a fixed
    finding's node is) or was added to one (a ``key: value`` line a fix adds, indented as the key
    line before or after it)."""
    a, b = old.splitlines(), new.splitlines()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        assert tag in ("insert", "replace"), (path, tag, a[i1:i2])
        pairs = list(zip(a[i1:i2], b[j1:j2]))
        assert len(pairs) == i2 - i1, (path, "a line was removed", a[i1:i2])
        for number, (before, after) in enumerate(pairs, start=i1 + 1):
            prefix = _KEY.match(before)
            assert prefix and after.startswith(prefix.group(1)), (path, before, after)
            assert number in fixed_lines, (path, number, before)
        for line in b[j1 + len(pairs):j2]:
            added = _ADDED.match(line)
            assert added, (path, line)
            neighbours = [b[j] for j in (j1 + len(pairs) - 1, j2) if 0 <= j < len(b)]
            assert any(_indent(n) == len(added.group(1)) or _indent(n) + 2 == len(added.group(1))
                       for n in neighbours if _KEY.match(n)), (path, line, neighbours)  # fmt: skip


def _git_repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(CORPUS, root / "corpus", symlinks=True)
    for path in (root / "corpus").rglob("*"):  # the shared corpus is read-only; a checkout is not
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e"}  # fmt: skip
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "corpus"]):
        subprocess.run(["git", *args], cwd=root, check=True, env=env)
    return root


def _texts(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
            and ".git" not in p.relative_to(root).parts}  # fmt: skip


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not beside the clone")
@pytest.mark.skipif(shutil.which("git") is None or shutil.which("patch") is None, reason="needs git and patch")
def test_corpus_fixed_in_a_git_repository(tmp_path, monkeypatch, session_cache):
    root = _git_repo(tmp_path)
    monkeypatch.chdir(root)
    # renders keyed by content: the session's cache, where the pristine corpus may be rendered already
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(session_cache))
    catalog, config = load_catalog(), Config()
    fixable = set(FIXERS)
    original = _texts(root)

    planned = fix_paths(["corpus"], config, catalog, FixOptions(unsafe=True), write=False)
    assert _texts(root) == original  # planning writes nothing
    assert any(f.rule_id in fixable for outcome in planned.files for f in outcome.fixed_findings)
    diff = runner.invoke(app, ["fix", "--diff", "--unsafe-fixes", "corpus"])
    assert diff.exit_code == 1 and diff.stdout.startswith("diff") is False and "--- a/corpus/" in diff.stdout
    assert _texts(root) == original  # --diff changes nothing

    result = runner.invoke(app, ["fix", "--unsafe-fixes", "corpus"])
    assert result.exit_code in (0, 1), result.output
    fixed = _texts(root)
    assert fixed != original
    # what the planning left for a person (a hook's token a binding of another application names: HL104) stays
    def key(f):  # not its line: the fixes above it move it
        return f.rule_id, f.path, f.obj.label() if f.obj else "", f.field_path

    left = {key(f) for outcome in planned.files for f, _ in outcome.left}
    remaining = [f for f in lint_paths(["corpus"], config, catalog).findings if f.rule_id in fixable]
    assert [f for f in remaining if key(f) not in left] == []
    assert {(f.rule_id, "a binding of another application names it" in f.message) for f in remaining} <= {("HL104", True)}

    fixed_lines: dict[str, set[int]] = {}
    for outcome in planned.files:
        lines = fixed_lines.setdefault(outcome.path, set())
        for f in outcome.fixed_findings:
            lines.update(range(f.span.line, f.span.end_line + 1))
        # HL203 edits the delete policy of the object it names: that annotation line is its node
        for number, line in enumerate(outcome.original.splitlines(), start=1):
            if "hook-delete-policy:" in line and any(f.rule_id == "HL203" for f in outcome.fixed_findings):
                lines.add(number)
    for name, data in fixed.items():
        if data == original[name]:
            continue
        old, new = original[name].decode("utf-8"), data.decode("utf-8")
        comments = [line for line in old.splitlines() if line.lstrip().startswith("#")]
        kept = new.splitlines()
        assert all(line in kept for line in comments), name  # every comment line is still there
        assert old.endswith("\n") == new.endswith("\n"), name
        assert ("\r\n" in old) == ("\r\n" in new), name
        _check_changed_lines(name, old, new, fixed_lines[name])

    again = runner.invoke(app, ["fix", "--unsafe-fixes", "corpus"])
    assert _texts(root) == fixed, "a second run changed something"
    assert "fixed 0 findings in 0 files" in again.output

    # the --diff output, applied with patch -p1 from the repository root, gives the same files
    subprocess.run(["git", "checkout", "-q", "--", "."], cwd=root, check=True)
    assert _texts(root) == original
    subprocess.run(["patch", "-p1", "-s"], cwd=root, input=diff.stdout.encode("utf-8"), check=True)
    assert _texts(root) == fixed


JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: db-migrate
  annotations:
    argocd.argoproj.io/hook: Presync  # a typo
spec:
  template:
    spec:
      containers:
        - name: migrate
          image: ghcr.io/acme/migrate:1.0.0
"""


@pytest.fixture
def app_dir(tmp_path, monkeypatch):
    (tmp_path / ".hooklint.yaml").write_text("allowed-registries: [ghcr.io/acme]\n")
    folder = tmp_path / "app"
    folder.mkdir()
    monkeypatch.chdir(tmp_path)
    return folder


def test_fix_in_place_keeps_mode_and_crlf(app_dir):
    job = app_dir / "job.yaml"
    job.write_bytes(JOB.replace("\n", "\r\n").encode())
    job.chmod(0o640)
    result = runner.invoke(app, ["fix", "app"])
    data = job.read_bytes()
    assert b"argocd.argoproj.io/hook: PreSync  # a typo\r\n" in data
    assert b"      restartPolicy: Never\r\n      containers:\r\n" in data
    assert data.count(b"\n") == data.count(b"\r\n")
    assert b"backoffLimit" not in data  # an unsafe fix, not asked for
    assert oct(job.stat().st_mode & 0o777) == oct(0o640)
    assert "fixed 2 findings in 1 file" in result.output
    assert [p.name for p in app_dir.iterdir()] == ["job.yaml"]  # no temporary file left behind
    assert result.exit_code == 1  # HL201/HL202 remain


def test_lint_fix_and_unsafe_fixes(app_dir):
    (app_dir / "job.yaml").write_text(JOB)
    result = runner.invoke(app, ["lint", "--fix", "--unsafe-fixes", "app"])
    text = (app_dir / "job.yaml").read_text()
    assert "backoffLimit: 1" in text and "activeDeadlineSeconds: 900" in text
    assert "automountServiceAccountToken: false" in text
    assert " HL201 " not in result.stdout and " HL010 " not in result.stdout
    assert runner.invoke(app, ["lint", "--unsafe-fixes", "app"]).exit_code == 2


def test_diff_changes_nothing(app_dir):
    (app_dir / "job.yaml").write_text(JOB)
    result = runner.invoke(app, ["fix", "--diff", "app"])
    assert (app_dir / "job.yaml").read_text() == JOB
    assert result.exit_code == 1
    assert "--- a/app/job.yaml\n+++ b/app/job.yaml\n" in result.stdout
    assert "-    argocd.argoproj.io/hook: Presync  # a typo\n+    argocd.argoproj.io/hook: PreSync  # a typo\n" in result.stdout


def test_stdin_gives_the_fixed_stream_on_stdout():
    result = runner.invoke(app, ["fix", "-"], input=JOB)
    assert result.stdout == JOB.replace("Presync", "PreSync").replace(
        "    spec:\n      containers:", "    spec:\n      restartPolicy: Never\n      containers:"
    )


def test_never_writes_a_file_with_a_duplicate_key(app_dir):
    text = JOB.replace("  name: db-migrate\n", "  name: db-migrate\n  name: db-migrate-2\n")
    (app_dir / "job.yaml").write_text(text)
    result = runner.invoke(app, ["fix", "app"])
    assert (app_dir / "job.yaml").read_text() == text
    assert "left for a person: the file has a syntax error, a duplicate key or an unsafe tag" in result.output


def test_never_writes_through_a_symlink_out_of_the_tree(tmp_path, monkeypatch):
    # out of the named tree (app/), inside the repository: linted, never written through
    tree = tmp_path / "tree"
    outside = tree / "outside"
    outside.mkdir(parents=True)
    (outside / "job.yaml").write_text(JOB)
    (tree / "app").mkdir(parents=True)
    (tree / "app" / "job.yaml").symlink_to(outside / "job.yaml")
    monkeypatch.chdir(tree)
    result = runner.invoke(app, ["fix", "app"])
    assert (outside / "job.yaml").read_text() == JOB
    assert "a symbolic link out of the named tree" in result.output
    # out of the repository: Argo CD refuses it (HL007), and nothing is read or written
    (tree / "app" / "job.yaml").unlink()
    (tmp_path / "far.yaml").write_text(JOB)
    (tree / "app" / "job.yaml").symlink_to(tmp_path / "far.yaml")
    result = runner.invoke(app, ["fix", "app"])
    assert (tmp_path / "far.yaml").read_text() == JOB
    assert "illegal filepath in symlink" in result.output


def test_helm_output_is_never_edited():
    stream = "---\n# Source: db/templates/job.yaml\n" + JOB
    result = runner.invoke(app, ["fix", "-"], input=stream)
    assert result.stdout == stream
    assert "db/templates/job.yaml is a Helm template rendered into this stream: never edited" in result.output


def test_rules_shows_the_fix_column():
    listing = runner.invoke(app, ["rules"]).stdout
    assert re.search(r"^HL004  error    annotation-value-not-string +on +safe +A metadata", listing, re.M)
    assert re.search(r"^HL201  warning  hook-missing-backoff-limit +on +unsafe ", listing, re.M)
    assert re.search(r"^HL101  \w+ +hook-image-registry-not-allowed +on +- +", listing, re.M)
    rows = {r["id"]: r["fix"] for r in json.loads(runner.invoke(app, ["rules", "--format", "json"]).stdout)["rules"]}
    assert (rows["HL004"], rows["HL201"], rows["HL101"]) == ("safe", "unsafe", None)


def test_fix_as_a_subprocess(app_dir):
    (app_dir / "job.yaml").write_text(JOB)
    proc = subprocess.run([sys.executable, "-m", "hooklint", "fix", "app"], capture_output=True, text=True,
                          cwd=app_dir.parent)  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert "hooklint: fixed 2 findings in 1 file\n" in proc.stderr


@pytest.mark.skipif(shutil.which("kustomize") is None and shutil.which("kubectl") is None,
                    reason="neither kustomize nor kubectl is installed")  # fmt: skip
def test_kustomize_fixes_the_resource_file_and_leaves_the_kustomization(app_dir, monkeypatch):
    """A kustomize object whose resource file holds the field is fixed there; a value that comes
    from the kustomization (commonAnnotations, for every object) is left for a person."""
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    kustomization = ("resources:\n  - job.yaml\nnamePrefix: dev-\ncommonAnnotations:\n"
                     "  argocd.argoproj.io/hook-delete-policy: HookSucceed\n")  # fmt: skip
    (app_dir / "kustomization.yaml").write_text(kustomization)
    (app_dir / "job.yaml").write_text(JOB)
    result = runner.invoke(app, ["fix", "app"])
    assert (app_dir / "kustomization.yaml").read_text() == kustomization
    text = (app_dir / "job.yaml").read_text()
    assert "argocd.argoproj.io/hook: PreSync  # a typo\n" in text and "restartPolicy: Never\n" in text
    assert ("app/kustomization.yaml:5:3: HL011 left for a person: the finding points into a kustomization, not "
            "at the Job's field as written: kustomize set the value") in result.output  # fmt: skip


@pytest.mark.skipif(shutil.which("kustomize") is None and shutil.which("kubectl") is None,
                    reason="neither kustomize nor kubectl is installed")  # fmt: skip
def test_kustomize_patched_values_are_left_for_a_person(app_dir, monkeypatch):
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    files = {
        "kustomization.yaml": "resources:\n  - job.yaml\npatches:\n  - path: patch.yaml\n",
        "patch.yaml": ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: db-migrate\n  annotations:\n"
                       "    argocd.argoproj.io/hook: Presync\nspec:\n  template:\n    spec:\n      restartPolicy: Always\n"),
        "job.yaml": JOB.replace("  annotations:\n    argocd.argoproj.io/hook: Presync  # a typo\n", ""),
    }  # fmt: skip
    for name, text in files.items():
        (app_dir / name).write_text(text)
    result = runner.invoke(app, ["fix", "app"])
    assert {name: (app_dir / name).read_text() for name in files} == files
    assert "app/kustomization.yaml:3:1: HL010 left for a person" in result.output
    assert "app/kustomization.yaml:3:1: HL205 left for a person" in result.output


def _all_examples():
    catalog = load_catalog()
    for rule in catalog.sorted():
        for example in load_examples(rule)["bad"]:
            if "path" not in example and "files" not in example:
                yield pytest.param(example, id=f"{rule.id}-{example['name']}")


@pytest.mark.parametrize("example", list(_all_examples()))
@pytest.mark.parametrize("variant", ["lf", "crlf", "no-final-newline"])
def test_every_bad_example_fixes_once_and_keeps_line_endings(example, variant):
    """Every rule's bad examples, all fixes on: line endings and the final newline kept, and a second
    fix a no-op (a regression: a line inserted right after a value once moved that value's span)."""
    text = {"lf": example["manifest"], "crlf": example["manifest"].replace("\n", "\r\n"),
            "no-final-newline": example["manifest"].rstrip("\n")}[variant]  # fmt: skip
    config, catalog, context, options = Config(), load_catalog(), example.get("context"), FixOptions(unsafe=True)
    out = fix_text("manifest.yaml", text, lint_text(text, config, catalog, context=context), config, catalog, options)
    assert out.fixed.endswith("\n") == text.endswith("\n")
    assert out.fixed.count("\r\n") == (out.fixed.count("\n") if variant == "crlf" else 0)
    again = lint_text(out.fixed, config, catalog, context=context)
    assert fix_text("manifest.yaml", out.fixed, again, config, catalog, options).fixed == out.fixed


def test_helm_chart_templates_are_never_edited(app_dir, monkeypatch):
    """A chart's template is never edited, even when it is plain YAML the fix could splice into."""
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    (app_dir / "Chart.yaml").write_text("apiVersion: v2\nname: db\nversion: 0.1.0\n")
    (app_dir / "templates").mkdir()
    (app_dir / "templates" / "job.yaml").write_text(JOB)
    result = runner.invoke(app, ["fix", "--unsafe-fixes", "app"])
    assert (app_dir / "templates" / "job.yaml").read_text() == JOB
    if "HL008" not in result.output:  # a Helm renderer is installed: the findings are in the template
        assert "app/templates/job.yaml:6:5: HL010 left for a person: a Helm template" in result.output


def test_diff_exit_codes(app_dir):
    clean = JOB.replace("Presync  # a typo", "PreSync").replace(
        "    spec:\n      containers:", "    spec:\n      restartPolicy: Never\n      containers:"
    )
    (app_dir / "job.yaml").write_text(clean)
    # nothing safe to change, but HL201/HL202 (unsafe fixes, not asked for) remain
    assert runner.invoke(app, ["fix", "--diff", "app"]).exit_code == 1
    assert runner.invoke(app, ["fix", "--diff", "--fail-on", "error", "app"]).exit_code == 0
    assert runner.invoke(app, ["fix", "--diff", "--fail-on", "error", "--unsafe-fixes", "app"]).exit_code == 1
    assert runner.invoke(app, ["fix", "--diff", "missing"]).exit_code == 2


def test_bare_carriage_returns_are_left_alone():
    text = JOB.replace("\n", "\r")
    config, catalog = Config(), load_catalog()
    out = fix_text("manifest.yaml", text, lint_text(text, config, catalog), config, catalog, FixOptions(unsafe=True))
    assert out.fixed == text
    assert {reason for _, reason in out.left} == {"the file has lines ending in a bare carriage return"}


def test_fix_and_diff_follow_the_configurations_fail_on(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".hooklint.yaml").write_text("fail-on: never\n")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "job.yaml").write_text(JOB)
    assert runner.invoke(app, ["fix", "app"]).exit_code == 0
    assert runner.invoke(app, ["fix", "--fail-on", "warning", "app"]).exit_code == 1


def test_a_symlink_in_the_tree_is_fixed_once_through_its_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app" / "sub").mkdir(parents=True)
    (tmp_path / "app" / "job.yaml").write_text(JOB)
    (tmp_path / "app" / "link.yaml").symlink_to("job.yaml")
    (tmp_path / "app" / "sub" / "l.yaml").symlink_to("../job.yaml")
    result = runner.invoke(app, ["fix", "--diff", "app"])
    diff = result.stdout
    assert diff.count("\n+++ ") + diff.startswith("+++ ") == 1 and "b/app/job.yaml" in diff
    assert "hooklint: would fix 2 findings in 1 file" in result.stderr
    patched = subprocess.run(["patch", "-p1"], input=diff, text=True, capture_output=True, cwd=tmp_path)
    assert patched.returncode == 0, patched.stdout + patched.stderr
    assert (tmp_path / "app" / "link.yaml").is_symlink()


@pytest.mark.skipif(shutil.which("kustomize") is None and shutil.which("kubectl") is None,
                    reason="neither kustomize nor kubectl is installed")  # fmt: skip
def test_hl203_under_a_name_prefix_is_placed_and_fixed_in_the_hooks_own_file(tmp_path, monkeypatch):
    """argocd-example-apps pre-post-sync: kustomize's namePrefix changes the name, not the delete
    policy, so the finding lies on the policy as written and the safe fix edits it there."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "kustomization.yaml").write_text("namePrefix: shop-\nresources:\n- job.yaml\n")
    job = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: before\n  annotations:\n"
           "    argocd.argoproj.io/hook: PreSync\n    argocd.argoproj.io/hook-delete-policy: HookSucceeded\n")  # fmt: skip
    (tmp_path / "app" / "job.yaml").write_text(job)
    doc = json.loads(runner.invoke(app, ["lint", "-f", "json", "--select", "HL203", "app"]).stdout)
    assert [(f["path"], f["line"], f["column"]) for f in doc["findings"]] == [("app/job.yaml", 7, 44)]
    result = runner.invoke(app, ["fix", "--fail-on", "never", "app"])
    assert result.exit_code == 0
    assert (tmp_path / "app" / "job.yaml").read_text() == job.replace("HookSucceeded", "HookSucceeded,BeforeHookCreation")


# --- read-only files and files changed meanwhile (issue 19, class 9) ----------------------------


def test_a_read_only_file_is_left_alone_and_said_in_one_line(app_dir):
    """Before: the temporary file and rename replaced a ``chmod 0444`` file (root or not: a rename
    needs only the folder's permission). The tests run as root, for whom ``os.access`` says every
    file is writable: the mode bits decide."""
    job, other = app_dir / "job.yaml", app_dir / "other.yaml"
    job.write_text(JOB)
    other.write_text(JOB.replace("db-migrate", "db-seed"))
    job.chmod(0o444)
    inode = job.stat().st_ino
    result = runner.invoke(app, ["fix", "app"])
    assert job.read_text() == JOB and oct(job.stat().st_mode & 0o777) == oct(0o444) and job.stat().st_ino == inode
    assert "hook: PreSync  # a typo" in other.read_text()  # the writable file is fixed
    assert [line for line in result.stderr.splitlines() if "read-only" in line] == [
        "hooklint: app/job.yaml: a read-only file: not written (2 fixes not applied)"]
    assert "hooklint: fixed 2 findings in 1 file" in result.stderr
    assert result.exit_code == 1
    assert sorted(p.name for p in app_dir.iterdir()) == ["job.yaml", "other.yaml"]  # no temporary file left


def test_a_read_only_file_makes_the_exit_code_1_whatever_fail_on_says(app_dir):
    (app_dir / "job.yaml").write_text(JOB)
    (app_dir / "job.yaml").chmod(0o444)
    result = runner.invoke(app, ["fix", "--fail-on", "never", "app"])
    assert (result.exit_code, (app_dir / "job.yaml").read_text()) == (1, JOB)
    result = runner.invoke(app, ["lint", "--fix", "--fail-on", "never", "app"])
    assert (result.exit_code, (app_dir / "job.yaml").read_text()) == (1, JOB)
    assert "hooklint: app/job.yaml: a read-only file: not written (2 fixes not applied)" in result.stderr
    # --diff writes nothing, so a read-only file is shown like any other
    result = runner.invoke(app, ["fix", "--diff", "app"])
    assert "+    argocd.argoproj.io/hook: PreSync  # a typo\n" in result.stdout and "read-only" not in result.stderr
    (app_dir / "job.yaml").chmod(0o644)
    assert runner.invoke(app, ["fix", "--fail-on", "never", "app"]).exit_code == 0


def test_read_only_looks_at_the_mode_bits_and_at_access(tmp_path, monkeypatch):
    from hooklint.fix import read_only

    path = tmp_path / "f.yaml"
    path.write_text("a: 1\n")
    for mode, expected in ((0o644, False), (0o444, True), (0o400, True), (0o200, False), (0o020, False), (0o000, True)):
        path.chmod(mode)
        assert read_only(str(path)) is expected, oct(mode)
    path.chmod(0o644)
    monkeypatch.setattr(os, "access", lambda p, mode: mode != os.W_OK)  # another user's file
    assert read_only(str(path)) is True


@pytest.mark.parametrize("edit", ["new content", "same size", "same bytes, new mtime", "replaced", "removed"])
def test_a_file_changed_since_it_was_read_is_never_overwritten(app_dir, monkeypatch, edit):
    """Someone (an editor, a formatter, a second hooklint) writes the file between hooklint's read
    and its write: theirs wins, whatever changed (content, or only its stat identity)."""
    import hooklint.fix as fix

    job = app_dir / "job.yaml"
    job.write_text(JOB)
    theirs = {"new content": JOB + "# theirs\n", "same size": JOB.replace("db-migrate", "db-migrat3"),
              "same bytes, new mtime": JOB, "replaced": JOB, "removed": None}[edit]  # fmt: skip
    real_fix_text = fix.fix_text

    def meanwhile(*args, **kwargs):
        out = real_fix_text(*args, **kwargs)
        info = job.stat()
        if edit == "replaced":
            (app_dir / "new.tmp").write_text(theirs)
            os.replace(app_dir / "new.tmp", job)
        elif edit == "removed":
            job.unlink()
        else:
            job.write_text(theirs)
        if edit == "same size":  # the stat identity kept: only the content tells
            os.utime(job, ns=(info.st_atime_ns, info.st_mtime_ns))
        elif edit == "same bytes, new mtime":
            os.utime(job, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000))
        return out

    monkeypatch.setattr(fix, "fix_text", meanwhile)
    run = fix_paths(["app"], Config(), load_catalog(), FixOptions(), write=True)
    why = "removed since hooklint read it" if edit == "removed" else "changed since hooklint read it"
    assert run.not_written == [("app/job.yaml", why, 2)]
    assert run.written == [] and run.fixed_count == 0
    assert (job.read_text() if job.exists() else None) == theirs
    assert [p.name for p in app_dir.iterdir()] == ([] if edit == "removed" else ["job.yaml"])


def test_write_atomically_checks_the_file_just_before_the_rename(tmp_path, monkeypatch):
    """The check is after the new file is written (the slow part), just before ``os.replace``."""
    from hooklint.fix import FileChanged, read_stamped, write_atomically

    path = tmp_path / "f.yaml"
    path.write_text("a: 1\n")
    path.chmod(0o640)
    _, _, stamp = read_stamped(str(path))
    real_fsync = os.fsync

    def slow_fsync(fd):  # another writer, while the temporary file is being written
        real_fsync(fd)
        path.write_text("a: 2\n")

    monkeypatch.setattr(os, "fsync", slow_fsync)
    with pytest.raises(FileChanged):
        write_atomically(str(path), "a: 3\n", unchanged_since=stamp)
    assert path.read_text() == "a: 2\n" and [p.name for p in tmp_path.iterdir()] == ["f.yaml"]
    monkeypatch.setattr(os, "fsync", real_fsync)
    _, _, stamp = read_stamped(str(path))
    write_atomically(str(path), "a: 3\n", unchanged_since=stamp)
    assert path.read_text() == "a: 3\n" and oct(path.stat().st_mode & 0o777) == oct(0o640)


LIST = """apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: c
- apiVersion: batch/v1
  kind: Job
  metadata:
    name: migrate
    annotations:
      argocd.argoproj.io/hook: PreSync
      argocd.argoproj.io/hook-delete-policy: HookSucceeded
  spec:
    template:
      spec:
        restartPolicy: Always
        containers:
        - name: m
          image: registry.example.com/m:1.0
"""


def test_the_items_of_a_list_are_fixed_where_they_are_written():
    """A ``kind: List``'s items are the objects Argo CD applies: their fixes edit the item (they
    were left for a person, "the finding points into List ... kustomize set the value")."""
    result = runner.invoke(app, ["fix", "-"], input=LIST)
    assert result.exit_code == 1  # HL201, HL202, HL103, HL104 have no safe fix and stay
    assert "left for a person" not in result.stderr
    assert result.stdout == LIST.replace("HookSucceeded", "HookSucceeded,BeforeHookCreation").replace(
        "restartPolicy: Always", "restartPolicy: Never"
    )
