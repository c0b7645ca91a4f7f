"""The collector paused for a command's start-up (hooklint.collector.start_up) and resumed when the
run's code is loaded or the command ends."""

from __future__ import annotations

import gc
import sys

import pytest

from hooklint import cli, collector
from hooklint.catalog import load_catalog
from hooklint.config import Config
from hooklint.pipeline import lint_paths


@pytest.fixture
def collecting():
    """The collector on, and nothing paused for start-up, before and after the test."""
    gc.enable()
    collector._starting = False
    yield
    collector._starting = False
    gc.enable()


def test_start_up_pauses_the_collector_and_started_resumes_it_with_start_up_frozen(collecting):
    frozen = gc.get_freeze_count()
    collector.start_up()
    assert not gc.isenabled()
    collector.started()
    assert gc.isenabled() and gc.get_freeze_count() >= frozen
    collector.started()  # a second call does nothing
    assert gc.isenabled()


def test_a_collector_paused_elsewhere_is_left_paused(collecting):
    """start_up does not take over a collector some caller switched off: started leaves it off."""
    gc.disable()
    collector.start_up()
    collector.started()
    assert not gc.isenabled()


def test_a_run_resumes_the_collector_once_its_rules_are_loaded(collecting, tmp_path, monkeypatch):
    (tmp_path / "job.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")
    monkeypatch.chdir(tmp_path)
    collector.start_up()
    result = lint_paths(["job.yaml"], Config(), load_catalog())
    assert gc.isenabled() and result.findings == []


def test_a_command_that_runs_nothing_resumes_the_collector_when_it_ends(collecting, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["hooklint", "explain", "HL101"])
    with pytest.raises(SystemExit) as ended:
        cli.main()
    assert (ended.value.code, gc.isenabled()) == (0, True)
    assert capsys.readouterr().out.startswith("HL101")
