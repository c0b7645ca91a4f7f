"""The run's node budget (``max-run-nodes``; attack 15, break 2): the node limit held per file and
per rendering, nothing bounded their sum, and identical copies of one 5.8 MB file of 990,000 nodes
took 90 MB each (16 of them, one 2 MiB git blob, 1.44 GB; 100 would kill a CI runner). Past the
budget no more is read; the applications not checked are named in one error (exit code 2, never a
silent pass), their files as not linted, and what was checked is reported. A configuration found in
the repository may lower the budget, never raise it.

The attacker's files are written here from scratch, a thousand times smaller: a ConfigMap holding
a flow list of 1,000 items (1,015 nodes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from conftest import write
from hooklint import pipeline, runnodes
from hooklint.catalog import load_catalog
from hooklint.cli import app
from hooklint.config import DEFAULT_MAX_RUN_NODES, Config, load_config
from hooklint.loader import parse_text
from hooklint.pipeline import lint_paths, plan_paths
from tests.manifests import CONFIGMAP, LATEST_TAG_HOOK

CATALOG = load_catalog()
runner = CliRunner()

#: A ConfigMap with a flow list of 1,000 items: 1,015 YAML nodes.
BIG = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  k: v\nlist: [" + ", ".join(["x"] * 1000) + "]\n"
#: Nodes of BIG and of LATEST_TAG_HOOK.
BIG_NODES, HOOK_NODES = 1015, 36
#: a/ (a hook: HL102), b/ and c/ (one BIG each), d/ (a ConfigMap): under a budget of 1,500 nodes,
#: a and b are checked (1,051 nodes), c goes past it, and d is never read.
BUDGET = 1500


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    write(tmp_path, {"a/hook.yaml": LATEST_TAG_HOOK, "b/big.yaml": BIG, "c/big.yaml": BIG, "d/cm.yaml": CONFIGMAP})
    yield tmp_path
    assert runnodes.left() is None  # a run's budget ends with the run


def message(names: list[str], total: int, listed: bool = True, limit: int = BUDGET) -> str:
    them = "them" if len(names) != 1 else "it"
    return (f"the run reached its limit of {limit:,} YAML nodes (limit: max-run-nodes) with {len(names)} of {total} "
            f"applications not checked: {', '.join(names)}; nothing of {them} is reported"
            f"{' (--show-skipped lists the files)' if listed else ''}: raise the limit with --max-run-nodes NODES")


def test_the_nodes_counted_are_those_parsed():
    runnodes.start(10**9)
    try:
        parse_text("big.yaml", BIG)
        parse_text("hook.yaml", LATEST_TAG_HOOK)
        assert 10**9 - runnodes.left() == BIG_NODES + HOOK_NODES
    finally:
        runnodes.stop()


def test_a_run_past_its_node_budget_names_what_it_did_not_check(repo):
    result = lint_paths(["."], Config(max_run_nodes=BUDGET), CATALOG)
    assert [(f.rule_id, f.path) for f in result.findings if f.rule_id == "HL102"] == [("HL102", "a/hook.yaml")]
    assert [(e.path, e.message) for e in result.errors] == [("c/big.yaml", message(["c", "d"], 4))]
    assert [(p, r.kind.name, r.detail) for p, r in result.skipped_files] == [
        (p, "NOT_CHECKED_NODES", "not checked: the run reached max-run-nodes (1,500 YAML nodes) first")
        for p in ("c/big.yaml", "d/cm.yaml")]  # fmt: skip
    assert result.files == 2  # a's and b's


def test_under_its_budget_a_run_checks_everything(repo):
    result = lint_paths(["."], Config(max_run_nodes=2 * BIG_NODES + HOOK_NODES + 20), CATALOG)
    assert (result.errors, result.files) == ([], 4)


def test_the_command_line_exits_2_with_one_line(repo):
    done = runner.invoke(app, ["lint", "--format", "json", "--max-run-nodes", str(BUDGET), "."])
    assert done.exit_code == 2
    report = json.loads(done.stdout)
    assert [f["path"] for f in report["findings"] if f["rule_id"] == "HL102"] == ["a/hook.yaml"]
    assert report["errors"] == [{"path": "c/big.yaml", "message": message(["c", "d"], 4)}]
    assert done.stderr == f"hooklint: error: c/big.yaml: {message(['c', 'd'], 4)}\n"


def test_one_document_past_the_budget_stops_where_it_does(repo):
    """The budget is held within a document too: a budget of 100 nodes stops b's 1,015-node list
    (a's 36 are read), not after it."""
    result = lint_paths(["."], Config(max_run_nodes=100), CATALOG)
    assert [(e.path, e.message) for e in result.errors] == [("b/big.yaml", message(["b", "c", "d"], 4, limit=100))]


def test_a_plan_stops_at_the_budget_too(repo):
    plans, errors = plan_paths(["."], Config(max_run_nodes=BUDGET))
    assert [(e.path, e.message) for e in errors] == [("c/big.yaml", message(["c", "d"], 4, listed=False))]
    assert [p.key for p in plans] == ["a", "b"]


def test_the_budget_is_shared_out_across_workers(repo, monkeypatch):
    """``--jobs 2``: each worker may parse half of it (750 nodes), so that the workers together
    hold no more than one process would: b's 1,015 nodes are past a worker's share (a's 36 are
    not), where one process checks both."""
    monkeypatch.setattr(pipeline, "PARALLEL_MIN_FILES", 1)
    result = lint_paths(["a", "b"], Config(max_run_nodes=BUDGET), CATALOG, jobs=2)
    assert [(e.path, e.message) for e in result.errors] == [("b/big.yaml", message(["b"], 2))]
    assert [(p, r.kind.name) for p, r in result.skipped_files] == [("b/big.yaml", "NOT_CHECKED_NODES")]
    assert [f.path for f in result.findings if f.rule_id == "HL102"] == ["a/hook.yaml"]
    assert lint_paths(["a", "b"], Config(max_run_nodes=BUDGET), CATALOG, jobs=1).errors == []


def test_a_run_past_its_budget_while_finding_its_applications_says_so(repo):
    write(repo, {"apps/app.yaml": "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: shop\n"
                                  "spec:\n  source:\n    repoURL: https://example.com/x.git\n    path: a\n"})
    result = lint_paths(["."], Config(max_run_nodes=5), CATALOG)
    assert [(e.path, e.message) for e in result.errors] == [(
        ".", "the run reached its limit of 5 YAML nodes (limit: max-run-nodes) while finding the applications of .; "
        "nothing is checked: raise the limit with --max-run-nodes NODES")]  # fmt: skip
    assert (result.findings, result.files) == ([], 0)


# --- a limit a found configuration cannot raise ------------------------------------------------

def test_a_found_configuration_cannot_raise_the_budget(repo):
    write(repo, {".hooklint.yaml": "fail-on: warning\nmax-run-nodes: 1000000000\n"})
    config = load_config(None, ["."])
    assert config.max_run_nodes == DEFAULT_MAX_RUN_NODES == 10_000_000
    assert list(config.limit_notes.values()) == [
        ".hooklint.yaml:2: 'max-run-nodes' 1,000,000,000 nodes is above hooklint's default of 10,000,000 nodes, and a "
        "configuration found in the repository may lower a limit, never raise it: 10,000,000 nodes is used (name the "
        "file with --config, or give --max-run-nodes, to raise it)"]  # fmt: skip


def test_a_found_configuration_may_lower_the_budget_and_config_may_raise_it(repo):
    write(repo, {".hooklint.yaml": f"max-run-nodes: {BUDGET}\n"})
    assert (load_config(None, ["."]).max_run_nodes, load_config(None, ["."]).limit_notes) == (BUDGET, {})
    done = runner.invoke(app, ["lint", "--format", "concise", "."])
    assert (done.exit_code, done.stderr) == (2, f"hooklint: error: c/big.yaml: {message(['c', 'd'], 5)}\n")  # . too
    write(repo, {".hooklint.yaml": "max-run-nodes: 20000000\n"})
    assert load_config(".hooklint.yaml", ["."]).max_run_nodes == 20_000_000


def test_the_command_line_raises_what_a_found_configuration_lowered(repo):
    write(repo, {".hooklint.yaml": f"max-run-nodes: {BUDGET}\n"})
    done = runner.invoke(app, ["lint", "--format", "concise", "--max-run-nodes", "5000", "."])
    assert (done.exit_code, done.stderr) == (1, "")  # a's HL102, everything checked


def test_a_found_configuration_that_raises_it_still_stops_the_attack(repo):
    """The attacker's ``.hooklint.yaml`` lifts the budget; the default holds (here lowered on the
    command line to the fixture's scale, which a found file cannot raise either)."""
    write(repo, {".hooklint.yaml": "max-run-nodes: 1000000000\n"})
    config = load_config(None, ["."])
    config.max_run_nodes = min(config.max_run_nodes, BUDGET)
    result = lint_paths(["."], config, CATALOG)
    assert [e.message for e in result.errors] == [message(["c", "d"], 5)]  # the root folder is one too


# --- memory ------------------------------------------------------------------------------------

def peak_rss_kib(args: list[str], cwd) -> tuple[int, int]:
    """(exit code, peak RSS in KiB) of ``hooklint ARGS`` in ``cwd`` (its own process)."""
    code = ("import resource, subprocess, sys; "
            "done = subprocess.run([sys.executable, '-m', 'hooklint', *sys.argv[1:]], stdout=subprocess.DEVNULL, "
            "stderr=subprocess.DEVNULL); "
            "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, check=True,
                         env={**os.environ, "HOOKLINT_CACHE_DIR": "off"}).stdout.split()  # fmt: skip
    return int(out[0]), int(out[1])


def test_identical_copies_of_a_big_file_stop_at_the_budget_not_at_the_memory_of_the_machine(tmp_path):
    """The attacker's folder at a fortieth of its size: 8 copies of a list of 150,000 distinct
    items (1.2 million nodes, about 100 MB of values held at once) under a budget of 400,000 nodes:
    the run stops in the third copy, exit code 2, and holds far less."""
    item = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\nx: ["
            + ",".join(f"{i:x}" for i in range(150_000)) + "]\n")  # fmt: skip
    write(tmp_path, {f"app/c{i}.yaml": item for i in range(8)})
    code, bounded = peak_rss_kib(["lint", "--max-run-nodes", "400000", "app"], tmp_path)
    assert code == 2
    code, whole = peak_rss_kib(["lint", "--max-run-nodes", "5000000", "app"], tmp_path)
    assert code == 1  # HL019: 8 copies of one ConfigMap
    assert bounded < whole - 50_000, (bounded, whole)


# --- the result cache ----------------------------------------------------------------------------

def test_an_application_the_result_cache_answers_costs_the_nodes_its_loading_parsed(repo, monkeypatch, tmp_path_factory,
                                                                                  parsed):  # fmt: skip
    """A cached application is not parsed, but the nodes its loading parsed count as if it were
    (its entry keeps them): a run that stopped at the budget keeps what it checked (a, b), and the
    next run under the same budget parses none of them and stops where the first did, as a run
    without the cache does. Attacker trial 42: a hit spent nothing, so each warm run got further
    (exit 2 naming applications not checked, then fewer, then exit 0)."""
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    first = lint_paths(["."], Config(max_run_nodes=BUDGET), CATALOG)
    assert [e.message for e in first.errors] == [message(["c", "d"], 4)]
    parsed.clear()
    second = lint_paths(["."], Config(max_run_nodes=BUDGET), CATALOG)
    assert (second.errors, second.files, second.findings) == (first.errors, first.files, first.findings)
    assert "a/hook.yaml" not in parsed and "b/big.yaml" not in parsed  # answered by the cache
    assert [f.path for f in second.findings if f.rule_id == "HL102"] == ["a/hook.yaml"]
