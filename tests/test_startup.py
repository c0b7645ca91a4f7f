"""Start-up (issue 24): a one-file lint run imports nothing it does not use."""

from __future__ import annotations

import os
import subprocess
import sys

#: Imported only when asked: renderers (and their sandbox, child-process limits, placement of
#: rendered objects, partial renderings and cache), packaged charts (tarfile), the fetch step,
#: SARIF and the baseline, review, fix, ApplicationSet expansion, the configuration schema;
#: redaction (its scrubbers, its Aho-Corasick automata, html's entity table) for an application
#: without a Secret or a chart's values, what a kustomization says (issue 34).
NOT_FOR_ONE_FILE = ("hooklint.sources.render.redact", "ahocorasick", "html", "html.entities",
                    "hooklint.sources.render.rendered", "hooklint.sources.repository.withheld",
                    "hooklint.sources.appmap.argoglob",
                    "hooklint.sources.render.helm", "hooklint.sources.render.kustomize", "hooklint.sources.sandbox",
                    "hooklint.sources.render.cache", "hooklint.sources.bounded", "hooklint.sources.render.placement",
                    "hooklint.sources.render.partial", "hooklint.sources.render._helm_child",
                    "hooklint.sources.repository.charts", "tarfile", "hooklint.sources.fetch",
                    "hooklint.sources.appmap.remote", "hooklint.reporters.sarif", "hooklint.suppression.baseline",
                    "hooklint.review", "hooklint.fix", "hooklint.sources.appmap.applicationsets", "jsonschema",
                    "hooklint.sources.repository.kustomize_spec")  # fmt: skip

PROBE = (
    "import json, sys\n"
    "from hooklint.cli import app\n"
    "try:\n"
    "    app(args=['lint', *sys.argv[1:]], standalone_mode=False)\n"
    "except SystemExit:\n"
    "    pass\n"
    "print(json.dumps(sorted(m for m in sys.modules if m in " + repr(NOT_FOR_ONE_FILE) + ")))\n"
)


def test_one_file_run_imports_no_renderer_sarif_review_fix_or_schema(tmp_path):
    one = tmp_path / "job.yaml"
    one.write_text("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n"
                   "    argocd.argoproj.io/hook: PreSync\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n"
                   "      containers:\n        - name: main\n          image: ghcr.io/acme/tool:1.0\n")  # fmt: skip
    for args in ([str(one)], ["-f", "json", str(one)]):
        proc = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True,
                              cwd=tmp_path, env={**os.environ, "HOOKLINT_CACHE_DIR": str(tmp_path / "cache")})  # fmt: skip
        assert proc.stdout.strip().splitlines()[-1] == "[]", (args, proc.stdout, proc.stderr)


def test_a_named_command_is_built_alone():
    """typer builds the click command of every registered command before it parses: a run of one
    command builds that one (and what it runs: pre-commit runs lint), anything else the whole app."""
    import typer

    from hooklint.cli import app, app_for

    def built(args):
        return sorted(typer.main.get_command(app_for(args)).commands)  # type: ignore[attr-defined]

    everything = sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]
    assert len(everything) > 2
    assert built(["lint", "one.yaml"]) == ["lint"]
    assert built(["explain", "HL101"]) == ["explain"]
    assert built(["pre-commit", "a.yaml"]) == ["lint", "pre-commit"]
    for args in ([], ["--help"], ["--version"], ["lnt"], ["LINT"], ["-f", "json"]):
        assert built(args) == everything, args
    assert app_for([]) is app


def test_a_command_built_alone_says_the_same(tmp_path, monkeypatch):
    """Help, usage errors and the lint report of a command built alone are those of the whole app."""
    from typer.testing import CliRunner

    from hooklint.cli import app, app_for

    one = tmp_path / "job.yaml"
    one.write_text("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n"
                   "    argocd.argoproj.io/hook: PreSync\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n"
                   "      containers:\n        - name: main\n          image: ghcr.io/acme/tool:latest\n")  # fmt: skip
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    for args in (["lint", "--help"], ["lint", "--bogus"], ["lint", "-f", "nope", "job.yaml"], ["lint", "job.yaml"],
                 ["lint", "-f", "json", "job.yaml"], ["pre-commit", "job.yaml"], ["explain", "HL102"], ["rules", "--help"],
                 ["explain"]):  # fmt: skip
        whole = CliRunner().invoke(app, args)
        alone = CliRunner().invoke(app_for(args), args)
        assert (alone.exit_code, alone.output) == (whole.exit_code, whole.output), args
        assert whole.exit_code in (0, 1, 2) and whole.output, args


#: Not imported by a run the result cache holds whole (:func:`hooklint.results.kept_run`): it costs
#: its start-up and a stat pass, never loading a manifest or a check.
NOT_FOR_A_KEPT_RUN = ("hooklint.pipeline", "hooklint.engine", "hooklint.checks", "hooklint.model", "hooklint.plan",
                      "hooklint.sources.load", "hooklint.sources.render", "hooklint.sources.appmap")  # fmt: skip


def test_a_run_the_result_cache_holds_imports_no_check(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    one = work / "job.yaml"
    one.write_text("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n"
                   "    argocd.argoproj.io/hook: PreSync\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n"
                   "      containers:\n        - name: main\n          image: ghcr.io/acme/tool:1.0\n")  # fmt: skip
    past = one.stat().st_mtime - 60  # written long before the run: its stat signature is trusted
    for path in (one, work):
        os.utime(path, (past, past))
    probe = PROBE.replace(repr(NOT_FOR_ONE_FILE), repr(NOT_FOR_A_KEPT_RUN))
    outputs = []
    for _ in range(2):  # the first run keeps its result, the second finds it
        proc = subprocess.run([sys.executable, "-c", probe, "job.yaml"], capture_output=True, text=True, cwd=work,
                              env={**os.environ, "HOOKLINT_CACHE_DIR": str(tmp_path / "cache")})  # fmt: skip
        outputs.append(proc.stdout.strip().splitlines()[-1])
    assert outputs[0] != "[]"  # the first run loads and checks
    assert outputs[1] == "[]", outputs
