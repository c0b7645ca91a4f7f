"""kustomize reads a ``resources`` entry as a local file first, and a Git URL only when no file is
there (kustomize v5.5.0 ``api/internal/target/kusttarget.go`` ``accumulateResources`` ->
``accumulateFile``; ``api/internal/loader/fileloader.go`` ``Load``, then ``New``, which clones a Git
URL before it looks for a local folder): a file at ``github.com/acme/repo`` or ``file:///srv/r.git``
(``file:/srv/r.git`` once cleaned) is rendered and checked, with or without ``--fetch``."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from hooklint.cli import app

runner = CliRunner()
JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: evil
  annotations: {argocd.argoproj.io/hook: PreSync}
spec:
  template:
    spec:
      restartPolicy: Never
      hostPID: true
      containers: [{name: c, image: "evil:latest", securityContext: {privileged: true}}]
"""
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"
#: what JOB holds: (line, column, rule id), by position
JOB_FINDINGS = [(6, 1, "HL201"), (6, 1, "HL202"), (8, 5, "HL103"), (8, 5, "HL104"), (10, 16, "HL105"),
                (11, 37, "HL102"), (11, 82, "HL105")]  # fmt: skip


@pytest.fixture
def repo(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "app").mkdir()
    (root / "app/cm.yaml").write_text(CM)
    monkeypatch.chdir(root)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / "cache"))
    return root


def lint(*args: str) -> tuple[int, list[tuple[str, int, int, str]], list[dict]]:
    result = runner.invoke(app, ["lint", "--format", "json", *args])
    assert result.exit_code in (0, 1), result.output
    found = json.loads(result.output)["findings"]
    return result.exit_code, sorted((f["path"], f["line"], f["column"], f["rule_id"]) for f in found), found


@pytest.mark.parametrize("entry, local", [
    ("github.com/acme/repo", "github.com/acme/repo"),
    ("file://{srv}/benign.git", "file:{srv}/benign.git"),
])  # fmt: skip
@pytest.mark.parametrize("fetch", [False, True])
def test_a_local_file_at_a_git_url_is_rendered_and_checked(repo, tmp_path, entry, local, fetch):
    srv = str(tmp_path / "srv")  # a --fetch-host folder; nothing is there, so a fetch would fail (HL009)
    entry, local = entry.format(srv=srv), local.format(srv=srv)
    (repo / "app/kustomization.yaml").write_text(f"resources:\n- cm.yaml\n- {entry}\n")
    (repo / "app" / local).parent.mkdir(parents=True)
    (repo / "app" / local).write_text(JOB)
    hosts = ["--fetch", "--fetch-host", f"file://{srv}", "--fetch-host", "github.com"] if fetch else []
    code, found, _ = lint(*hosts, "app")
    assert code == 1
    assert found == sorted((f"app/{local}", line, column, rule) for line, column, rule in JOB_FINDINGS)


def test_a_local_folder_at_a_git_url_is_still_remote_as_kustomize_clones_first(repo):
    (repo / "app/kustomization.yaml").write_text("resources:\n- cm.yaml\n- github.com/acme/repo\n")
    (repo / "app/github.com/acme/repo").mkdir(parents=True)
    (repo / "app/github.com/acme/repo/kustomization.yaml").write_text("resources:\n- job\n")
    (repo / "app/github.com/acme/repo/job").write_text(JOB)  # no .yaml: only a rendering would read it
    code, found, raw = lint("app")  # the folder, a kustomization itself, is rendered on its own too
    assert code == 1
    assert [f for f in found if f[3] == "HL009"] == [("app/kustomization.yaml", 3, 3, "HL009")]
    assert [f["message"] for f in raw if f["rule_id"] == "HL009"][0].startswith("resources entry 'github.com/acme/repo' is remote and needs the network; ")


def test_a_component_is_never_a_file_so_a_file_there_leaves_it_remote(repo):
    (repo / "app/kustomization.yaml").write_text("resources:\n- cm.yaml\ncomponents:\n- github.com/acme/repo\n")
    (repo / "app/github.com/acme").mkdir(parents=True)
    (repo / "app/github.com/acme/repo").write_text(JOB)
    code, found, raw = lint("app")
    assert code == 1
    assert found == [("app/kustomization.yaml", 4, 3, "HL009")]
    assert raw[0]["message"].startswith("components entry 'github.com/acme/repo' is remote and needs the network; ")
