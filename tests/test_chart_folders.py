"""Folders of a Helm chart that are not the chart's own (attacker trial 9, F13).

hooklint renders a folder holding ``Chart.yaml`` as a chart and walks none of its subfolders. But a
folder such as ``chart/hooks/`` with plain manifests is applied by an Application whose path is it
(a directory source: ``discovery.AppType`` looks at that folder only; often in a central Argo CD
repository hooklint does not see). Like a hidden folder's (tests/test_hidden_folders.py), what such
a folder holds that looks like a Kubernetes object is listed as not linted with the reason, and
``hooklint diff`` lints the files the change adds or edits. The chart's own ``templates/``,
``charts/`` and ``crds/`` are never listed. Fixtures /work/attack9/fx/za_chartsub and zb_chartsubdiff
were "skipped": [] and "0 new findings", exit 0."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from conftest import write
from hooklint.cli import app
from test_review_leaving import CM, EVIL, commit, diff, repo  # noqa: F401 - the fixture

runner = CliRunner()
WHY = ("in the folder chart/hooks/ of the Helm chart chart/, which hooklint renders as a chart (its templates/), while "
       "an Application whose path is chart/hooks (in another repository too) applies its files as a directory source: "
       "lint it with `hooklint lint chart/hooks`")  # fmt: skip
CHART = {
    "chart/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
    "chart/templates/cm.yaml": CM,
    "chart/crds/cm.yaml": CM.replace("name: cm", "name: crd"),
    "chart/charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
    "chart/charts/sub/templates/cm.yaml": CM.replace("name: cm", "name: sub"),
}


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    write(tmp_path, {**CHART, "chart/hooks/job.yaml": EVIL, "chart/hooks/notes.yaml": "title: not an object\n"})
    return tmp_path


def test_a_chart_folder_of_manifests_is_listed_as_not_linted(tree):
    result = runner.invoke(app, ["lint", "--no-cache", "--show-skipped", "."])
    assert result.exit_code == 0, result.output
    assert [line for line in result.output.splitlines() if line.startswith("note: ")][:2] == [
        "note: 1 file not linted on its own (1 in folders of Helm charts no Application reads); --show-skipped lists "
        "it.",
        "note: HL101 (hook-image-registry-not-allowed) is inactive: set allowed-registries in .hooklint.yaml to check "
        "where hook images come from.",
    ]
    assert f"note: not linted: chart/hooks/job.yaml: {WHY}" in result.output.splitlines()
    doc = json.loads(runner.invoke(app, ["lint", "--no-cache", "-f", "json", "."]).output)
    assert doc["skipped"] == [{"path": "chart/hooks/job.yaml", "reason": WHY}]


def test_named_it_is_linted(tree):
    result = runner.invoke(app, ["lint", "--no-cache", "chart/hooks"])
    assert result.exit_code == 1
    assert "HL105" in result.output


def test_an_application_of_the_repository_that_deploys_it_lints_it(tree):
    write(tree, {".hooklint.yaml": "repo-urls: [https://example.com/x.git]\n", "apps/app.yaml": """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: hooks, namespace: argocd}
spec:
  project: default
  destination: {server: https://kubernetes.default.svc, namespace: shop}
  source: {repoURL: https://example.com/x.git, path: chart/hooks}
"""})  # fmt: skip
    doc = json.loads(runner.invoke(app, ["lint", "--no-cache", "-f", "json", "."]).output)
    assert [s["path"] for s in doc["skipped"] if s["path"].startswith("chart/")] == ["chart/hooks/notes.yaml"]  # no object
    assert sorted({(f["path"], f["rule_id"]) for f in doc["findings"]}) == [
        ("apps/app.yaml", "HL401"), ("chart/hooks/job.yaml", "HL105"), ("chart/hooks/job.yaml", "HL305")]


def test_diff_lints_a_chart_folder_file_the_change_adds(repo):
    commit(repo, "base", CHART)
    commit(repo, "head", {"chart/hooks/job.yaml": EVIL})
    code, out, err = diff("base", "--head", "head")
    said = (f"chart/hooks/job.yaml: {WHY}; the change adds it, and a change cannot hide a manifest from its review: "
            "linted as if its folder were named")
    assert code == 1
    assert [line for line in out.splitlines() if "HL105" in line] == [
        "  chart/hooks/job.yaml:16:16: error HL105 hook-privileged-pod: Job/evil sets hostPID: true: a PreSync hook "
        "runs on every sync and then controls the node, not just its pod. Remove it, or do this work outside the "
        "cluster's workloads.",
        "  chart/hooks/job.yaml:21:23: error HL105 hook-privileged-pod: The container 'c' of Job/evil is privileged: a "
        "PreSync hook runs on every sync and then controls the node, not just its pod. Remove it, or do this work "
        "outside the cluster's workloads.",
    ]
    assert err == f"hooklint: note: {said}\n"


def test_diff_leaves_an_unchanged_one_listed(repo):
    commit(repo, "base", {**CHART, "chart/hooks/job.yaml": EVIL})
    commit(repo, "head", {"chart/templates/cm.yaml": CM.replace("b", "c")})
    code, out, err = diff("base", "--head", "head")
    assert (code, err) == (0, "")
