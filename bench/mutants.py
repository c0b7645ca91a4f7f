"""A mutation probe: one-line changes to hooklint's own modules, each run against the tests that
hold that code (issue 20: kill at least 28 of 30). Run from the repository's top:

    python bench/mutants.py            # every mutant; prints each as killed or SURVIVED, then the score
    python bench/mutants.py 3 7        # only those (1-based)

Each mutant replaces one exact text (it must occur exactly once in its file) in a copy of the
repository in a temporary folder, then runs ``pytest -x -q`` on its test files there; a mutant is
killed when they fail. The working tree is never changed. Ten to twenty minutes on two cores.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time

#: (file, text as written, the mutant's text, tests that should kill it)
MUTANTS: list[tuple[str, str, str, str]] = [
    ("hooklint/argocd.py", "if item and item not in out:", "if item:", "tests/test_argocd.py tests/test_hook_versions.py"),
    ("hooklint/argocd.py", "return version >= entry.since or any(", "return version > entry.since or any(",
     "tests/test_hook_versions.py tests/test_argocd.py"),
    ("hooklint/argocd.py", 'return 4 if supports(version, "helm4") else 3', 'return 4 if supports(version, "helm4") else 4',
     "tests/test_argocd.py tests/test_helm.py"),
    ("hooklint/argocd.py", 'return f"{major}.{minor}" if patch == 0 else', 'return f"{major}.{minor}" if patch == 1 else',
     "tests/test_argocd.py tests/test_plan.py tests/test_hook_versions.py"),
    ("hooklint/plan.py", 'return [s for s in self.steps if s.phase != "SyncFail"]', "return list(self.steps)",
     "tests/test_plan.py tests/test_ordering_rules.py"),
    ("hooklint/plan.py", "return (argocd.PHASE_ORDER[self.phase], self.wave, self.kind_order, self.sort_name, self.seq)",
     "return (argocd.PHASE_ORDER[self.phase], self.wave, self.sort_name, self.kind_order, self.seq)", "tests/test_plan.py"),
    ("hooklint/plan.py", 'phases = [p for p in m.hook.phases if p != "SyncFail"]', "phases = list(m.hook.phases)",
     "tests/test_plan.py tests/test_ordering_rules.py"),
    ("hooklint/checks/ordering.py", "if target_task.step_key <= first.step_key:", "if target_task.step_key < first.step_key:",
     "tests/test_ordering_rules.py tests/test_new_rules.py tests/test_rules.py"),
    ("hooklint/checks/ordering.py", "if length > NAME_LIMIT:", "if length >= NAME_LIMIT:",
     "tests/test_ordering_rules.py tests/test_new_rules.py tests/test_rules.py"),
    ("hooklint/checks/ordering.py", "if own.step_key >= first_use.step_key:", "if own.step_key > first_use.step_key:",
     "tests/test_ordering_rules.py tests/test_new_rules.py tests/test_rules.py"),
    ("hooklint/checks/annotations.py", "if own is not None and key in own and own.get(key) == value:",
     "if own is not None and key in own:", "tests/test_rules.py tests/test_rules_extra.py tests/test_new_rules.py"),
    ("hooklint/checks/hooks.py", "version >= (2, 14, 0)", "version >= (2, 15, 0)",
     "tests/test_rules.py tests/test_hook_versions.py tests/test_new_rules.py tests/test_rules_extra.py"),
    ("hooklint/checks/security.py", "if len(every_verb) > 1:", "if len(every_verb) > 2:",
     "tests/test_rules.py tests/test_rules_extra.py tests/test_new_rules.py tests/test_survivors.py"),
    ("hooklint/checks/security.py", 'elif name == "default":', 'elif name == "Default":',
     "tests/test_rules.py tests/test_rules_extra.py tests/test_new_rules.py"),
    ("hooklint/checks/lifecycle.py", 'if spec is not None and "backoffLimit" in spec:', "if spec is not None:",
     "tests/test_rules.py tests/test_rules_extra.py"),
    ("hooklint/sources/appmap/discovery.py", 'KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")',
     'KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml")', "tests/test_survivors.py tests/test_kustomize.py"),
    ("hooklint/sources/appmap/discovery.py", "if HELM_CHART_FILE in files and not any(n in files for n in KUSTOMIZATION_NAMES):",
     "if HELM_CHART_FILE in files:", "tests/test_survivors.py tests/test_helm.py tests/test_kustomize.py"),
    ("hooklint/sources/render/helm.py", "if not within(real or os.path.realpath(path), real_root):", "if False:",
     "tests/test_containment.py tests/test_hostile.py tests/test_helm.py"),
    ("hooklint/sources/render/redact.py", "if len(text) < MIN_LENGTH or text in _NOT_SECRET or placeholder(text):",
     "if len(text) <= MIN_LENGTH or text in _NOT_SECRET or placeholder(text):", "tests/test_redaction.py"),
    ("hooklint/sources/render/redact.py", 'm.group(0) if m.group(2) == "git" else', 'm.group(0) if m.group(2) == "gitx" else',
     "tests/test_redaction.py tests/test_escaping.py"),
    ("hooklint/sources/render/redact.py", "elif secret is not None and _NOT_SECRET_LEAF.search(key):", "elif False:",
     "tests/test_redaction.py"),
    ("hooklint/sources/render/kustomize.py", 'kinds = [k for k in ("exec", "container", "starlark") if isinstance(spec, dict) and k in spec]',
     'kinds = [k for k in ("container", "starlark") if isinstance(spec, dict) and k in spec]',
     "tests/test_kustomize.py tests/test_hostile.py tests/test_rendering.py"),
    ("hooklint/fix.py", 'return _set_field(text, root, f, "false", replace_any=True)',
     'return _set_field(text, root, f, "true", replace_any=True)', "tests/test_fix.py"),
    ("hooklint/fix.py", 'number = options.backoff_limit if key == "backoffLimit" else options.active_deadline_seconds',
     'number = options.active_deadline_seconds if key == "backoffLimit" else options.backoff_limit', "tests/test_fix.py"),
    ("hooklint/reporters/sarif.py", '_PROBLEM_SEVERITY = {"error": "error", "warning": "warning", "note": "recommendation"}',
     '_PROBLEM_SEVERITY = {"error": "error", "warning": "warning", "note": "warning"}', "tests/test_sarif.py tests/test_formats.py"),
    ("hooklint/reporters/sarif.py", "level=finding.severity,", 'level="warning",', "tests/test_sarif.py tests/test_formats.py"),
    ("hooklint/reporters/gitlab.py", 'SEVERITY = {"error": "critical", "warning": "major", "note": "minor"}',
     'SEVERITY = {"error": "major", "warning": "major", "note": "minor"}', "tests/test_formats.py"),
    ("hooklint/model.py", """for key in ("serviceAccountName", "serviceAccount"):""", """for key in ("serviceAccountName",):""",
     "tests/test_new_rules.py tests/test_rules.py"),
    ("hooklint/pipeline.py", "if keep_plan and not app.applied_elsewhere:", "if keep_plan:", "tests/test_diff.py tests/test_plan.py"),
    ("hooklint/plan.py", "out._by_manifest = {id(copies[key]): tasks for key, tasks in out._by_manifest.items()}",
     "pass", "tests/test_plan.py"),
]


def main(argv: list[str]) -> int:
    """Run the mutants named by 1-based number in ``argv`` (all when empty); exit 1 when one survives."""
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    chosen = [int(a) for a in argv] or list(range(1, len(MUTANTS) + 1))
    survived: list[int] = []
    with tempfile.TemporaryDirectory(prefix="hooklint-mutants-") as folder:
        copy = os.path.join(folder, "repo")
        shutil.copytree(top, copy, ignore=shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.egg-info"))
        if not os.path.isdir(os.path.join(folder, "shared")) and os.path.isdir(os.path.join(top, "..", "shared")):
            os.symlink(os.path.realpath(os.path.join(top, "..", "shared")), os.path.join(folder, "shared"))
        env = dict(os.environ, PYTHONPATH=copy)
        for number in chosen:
            path, old, new, tests = MUTANTS[number - 1]
            target = os.path.join(copy, path)
            with open(target, encoding="utf-8") as handle:
                original = handle.read()
            if original.count(old) != 1:
                print(f"{number:2} {path}: the text occurs {original.count(old)} times, not once: {old!r}")
                return 2
            with open(target, "w", encoding="utf-8") as handle:
                handle.write(original.replace(old, new))
            started = time.monotonic()
            try:
                run = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests.split()],
                                     cwd=copy, env=env, capture_output=True, text=True, timeout=900)  # fmt: skip
                killed = run.returncode != 0
            except subprocess.TimeoutExpired:
                killed = True
            finally:
                with open(target, "w", encoding="utf-8") as handle:
                    handle.write(original)
            if not killed:
                survived.append(number)
            print(f"{number:2} {'killed  ' if killed else 'SURVIVED'} {time.monotonic() - started:5.0f} s  {path}: {new}", flush=True)
    print(f"killed {len(chosen) - len(survived)} of {len(chosen)}; survivors: {survived or 'none'}")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
