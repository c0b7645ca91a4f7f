"""``hooklint lint|plan|diff --fetch`` (issue 33, items 4 and 5): an Application's chart from a
loopback chart repository or OCI registry, or another repository's Git source, fetched, rendered
with the Application's values and checked; findings on the Application's source entry, the place
in the chart in their message and in SARIF's relatedLocations; without --fetch nothing connects."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

sys.path.insert(0, os.path.dirname(__file__))

from fetch_servers import HOOK_JOB, chart_archive, chart_repository, http_server, oci_registry, sha256  # noqa: E402

from hooklint.cli import app  # noqa: E402

runner = CliRunner()
ORIGIN = '[remote "origin"]\n\turl = https://github.com/acme/deploy.git\n'


def application(source: str) -> str:
    """The Application ``hooks`` whose ``spec.sources`` are ``source`` (indented YAML lines); its first
    source's ``repoURL`` is on line 8, its ``chart`` on line 9."""
    return ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: hooks\nspec:\n  project: infra\n"
            f"  sources:\n{source}  destination:\n    namespace: hooks\n")  # fmt: skip


def chart_source(url: str, revision: str = "^1.0") -> str:
    return (f"    - repoURL: {url}\n      chart: hookchart\n      targetRevision: {revision}\n"
            "      helm:\n        valueFiles:\n          - $values/values/hook.yaml\n"
            "    - repoURL: https://github.com/acme/deploy.git\n      targetRevision: main\n      ref: values\n")


@pytest.fixture
def repo(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".git/config").write_text(ORIGIN)
    (root / "values").mkdir()
    (root / "values/hook.yaml").write_text("image: evil.example.com/migrate:latest\n")
    (root / "apps").mkdir()
    monkeypatch.chdir(root)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / "cache"))
    return root


def lint(*args: str) -> tuple[int, list[dict]]:
    result = runner.invoke(app, ["lint", "--format", "json", *args])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.output)["findings"]


def by_rule(found: list[dict]) -> dict[str, tuple[str, int, int, str]]:
    return {f["rule_id"]: (f["path"], f["line"], f["column"], f["message"]) for f in found}


def test_a_chart_of_a_chart_repository_is_fetched_rendered_with_the_values_and_checked(repo):
    archive = chart_archive()
    with http_server() as served:
        chart_repository(served, archive)
        (repo / "apps/hook.yaml").write_text(application(chart_source(served.base)))
        code, found = lint("--fetch", "--fetch-host", f"http://127.0.0.1:{served.port}", ".")
        asked = [r[0] for r in served.requests]
    rules = by_rule(found)
    assert code == 1
    assert asked == ["/index.yaml", "/charts/hookchart-1.2.0.tgz"]
    assert "HL009" not in rules
    assert rules["HL105"] == ("apps/hook.yaml", 9, 7, "hookchart 1.2.0 templates/job.yaml:16: The container 'migrate' of "
                              "Job/hooks-migrate is privileged: a PreSync hook runs on every sync and then controls the "
                              "node, not just its pod. Remove it, or do this work outside the cluster's workloads.")  # fmt: skip
    # the $values file of this repository was the chart's values: the image is the one it sets
    assert rules["HL102"][:3] == ("apps/hook.yaml", 9, 7)
    assert rules["HL102"][3].startswith("hookchart 1.2.0 templates/job.yaml:14: ")
    assert "evil.example.com/migrate:latest" in rules["HL102"][3]


def test_without_fetch_nothing_connects_and_the_chart_is_hl009(repo):
    with http_server() as served:
        chart_repository(served, chart_archive())
        (repo / "apps/hook.yaml").write_text(application(chart_source(served.base)))
        code, found = lint(".")
        assert served.requests == []
    assert code == 1
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in found] == [("HL009", "apps/hook.yaml", 9, 7)]


def test_a_host_missing_from_fetch_hosts_is_hl009_saying_so_and_not_contacted(repo):
    with http_server() as served:
        chart_repository(served, chart_archive())
        (repo / "apps/hook.yaml").write_text(application(chart_source(served.base)))
        code, found = lint("--fetch", ".")
        assert served.requests == []
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in found] == [("HL009", "apps/hook.yaml", 9, 7)]
    assert (f"spec.sources[0] is the chart hookchart ^1.0 of the chart repository {served.base}: --fetch did not fetch it "
            f"({served.base}/index.yaml: http://127.0.0.1:{served.port} is not in fetch-hosts: not contacted)") in found[0]["message"]  # fmt: skip


def test_fetch_hosts_of_a_named_configuration_admit_a_loopback_address(repo):
    with http_server() as served:
        chart_repository(served, chart_archive())
        (repo / "ci.hooklint.yaml").write_text(f"fetch-hosts: ['http://127.0.0.1:{served.port}']\n")
        (repo / "apps/hook.yaml").write_text(application(chart_source(served.base)))
        _, found = lint("--fetch", "--config", "ci.hooklint.yaml", ".")
    assert "HL105" in by_rule(found) and "HL009" not in by_rule(found)


def test_fetch_hosts_of_a_found_configuration_admit_no_loopback_or_private_address(repo):
    """Attacker trial: in lint mode the repository's own .hooklint.yaml listed http://127.0.0.1:PORT
    and an Application's chart pointed there: a pull request reached the runner's own services.
    A found configuration's entries admit public hosts only; --fetch-host or --config admit more."""
    with http_server() as served:
        chart_repository(served, chart_archive())
        (repo / ".hooklint.yaml").write_text(f"fetch-hosts: ['http://127.0.0.1:{served.port}']\n")
        (repo / "apps/hook.yaml").write_text(application(chart_source(served.base)))
        _, found = lint("--fetch", ".")
        assert served.requests == []
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in found] == [("HL009", "apps/hook.yaml", 9, 7)]
    assert ("--fetch did not fetch it (127.0.0.1 is a loopback address, which "
            "fetch-hosts of a configuration found in the repository cannot admit: refused (give --fetch-host "
            f"http://127.0.0.1:{served.port}, or name the configuration with --config))") in found[0]["message"]  # fmt: skip


def test_a_second_run_needs_no_network(repo):
    with http_server() as served:
        chart_repository(served, chart_archive())
        (repo / "apps/hook.yaml").write_text(application(chart_source(served.base, "1.2.0")))
        first = lint("--fetch", "--fetch-host", f"http://127.0.0.1:{served.port}", ".")
        port = served.port
    again = lint("--fetch", "--fetch-host", f"http://127.0.0.1:{port}", ".")  # the server is gone
    assert again == first and "HL105" in by_rule(first[1])


def test_an_oci_chart_is_fetched_and_checked(repo):
    with http_server() as served:
        oci_registry(served, chart_archive())
        source = f"    - repoURL: oci://127.0.0.1:{served.port}/charts\n      chart: hookchart\n      targetRevision: 1.2.0\n"
        (repo / "apps/hook.yaml").write_text(application(source))
        _, found = lint("--fetch", "--fetch-host", f"http://127.0.0.1:{served.port}", ".")
    rules = by_rule(found)
    assert rules["HL105"][:3] == ("apps/hook.yaml", 9, 7)
    assert rules["HL105"][3].startswith("hookchart 1.2.0 templates/job.yaml:16: ")
    assert "busybox:latest" in rules["HL102"][3]  # the chart's own values: the Application sets none


def test_sarif_places_the_finding_in_the_repository_and_the_chart_in_related_locations(repo):
    with http_server() as served:
        chart_repository(served, chart_archive())
        (repo / "apps/hook.yaml").write_text(application(chart_source(served.base)))
        result = runner.invoke(app, ["lint", "--format", "sarif", "--fetch", "--fetch-host", f"http://127.0.0.1:{served.port}", "."])
    results = json.loads(result.output)["runs"][0]["results"]
    privileged = next(r for r in results if r["ruleId"] == "HL105")
    location = privileged["locations"][0]["physicalLocation"]
    assert (location["artifactLocation"]["uri"], location["region"]["startLine"]) == ("apps/hook.yaml", 9)
    assert privileged["relatedLocations"] == [{"id": 0, "message": {"text": "hookchart 1.2.0 templates/job.yaml:16"}}]


def test_the_plan_shows_the_charts_hooks_in_their_phases_and_waves(repo):
    with http_server() as served:
        chart_repository(served, chart_archive())
        (repo / "apps/hook.yaml").write_text(application(chart_source(served.base)))
        result = runner.invoke(app, ["plan", "--format", "json", "--fetch", "--fetch-host", f"http://127.0.0.1:{served.port}", "apps"])
    planned = {a["application"]: a for a in json.loads(result.output)["applications"]}["apps/hook.yaml (hooks)"]
    assert planned["rendered"] == "full"
    assert planned["source"]["fetched"][0].startswith("hookchart 1.2.0 (sha256:")
    assert [(s["phase"], s["wave"], [(t["kind"], t["name"], t["path"], t["line"]) for t in s["tasks"]]) for s in planned["steps"]] == [
        ("PreSync", -1, [("Job", "hooks-migrate", "hookchart 1.2.0 templates/job.yaml", 1)])]


def test_another_repositorys_git_source_is_fetched_and_checked(repo, tmp_path):
    other = tmp_path / "other"
    (other / "hooks").mkdir(parents=True)
    (other / "hooks/job.yaml").write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: seed\n  annotations:\n    argocd.argoproj.io/hook: PostSync\n"
        "spec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n        - name: seed\n"
        "          image: busybox:1.36\n          securityContext:\n            privileged: true\n")  # fmt: skip
    for args in (["init", "-q", "-b", "main"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "one"]):
        subprocess.run(["git", "-C", str(other), *args], check=True, capture_output=True)
    (repo / "apps/hook.yaml").write_text(application(f"    - repoURL: file://{other}\n      path: hooks\n      targetRevision: main\n"))
    _, without = lint("--fetch", ".")
    _, found = lint("--fetch", "--fetch-host", f"file://{other}", ".")
    assert [f["rule_id"] for f in without] == ["HL009"]
    rules = by_rule(found)
    assert rules["HL105"][:3] == ("apps/hook.yaml", 8, 7)
    assert rules["HL105"][3].startswith(f"file://{other}@")
    assert " hooks/job.yaml:15: The container 'seed' of Job/seed is privileged" in rules["HL105"][3]


def test_a_git_source_holding_a_symbolic_link_is_never_a_silent_pass(repo, tmp_path):
    """Second attacker trial: a fetched directory source whose manifests were links (one inside the
    other repository, one out of it) was linted as empty: 0 findings, exit 0, the plan '0 objects'.
    The link inside is read as the file it names (as Argo CD's directory source reads it); the one
    out of the tree refuses it (tests/test_fetch_remote.py)."""
    other = tmp_path / "other"
    (other / "app").mkdir(parents=True)
    (other / "real").mkdir()
    (other / "real/job.yaml").write_text("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: seed\n  annotations:\n"
                                         "    argocd.argoproj.io/hook: PreSync\n")  # fmt: skip
    (other / "app/job.yaml").symlink_to("../real/job.yaml")
    for args in (["init", "-q", "-b", "main"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "one"]):
        subprocess.run(["git", "-C", str(other), *args], check=True, capture_output=True)
    (repo / "apps/hook.yaml").write_text(application(f"    - repoURL: file://{other}\n      path: app\n      targetRevision: main\n"))
    code, found = lint("--fetch", "--fetch-host", f"file://{other}", ".")
    assert code == 1
    assert "HL009" not in {f["rule_id"] for f in found}
    assert {(f["path"], f["line"], f["column"]) for f in found} == {("apps/hook.yaml", 8, 7)}
    assert all(" app/job.yaml:" in f["message"] for f in found) and found  # its Job checked, at the link's path


def test_fetch_host_needs_fetch_and_a_bad_entry_is_one_line(repo):
    result = runner.invoke(app, ["lint", "--fetch-host", "charts.example.com", "."])
    assert (result.exit_code, result.output) == (2, "hooklint: error: --fetch-host needs --fetch\n")
    result = runner.invoke(app, ["plan", "--fetch", "--fetch-host", "https://charts.example.com", "."])
    assert (result.exit_code, result.output) == (2, "hooklint: error: --fetch-host: 'https://charts.example.com' must be "
                                                    "host[:port] (HTTPS) or http://host[:port] (plain HTTP too)\n")  # fmt: skip


def test_in_diff_a_host_the_change_adds_to_fetch_hosts_is_not_contacted(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    root.mkdir()
    monkeypatch.chdir(root)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")

    def git(*args: str) -> None:
        subprocess.run(["git", *args], check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("remote", "add", "origin", "https://github.com/acme/deploy.git")
    with http_server() as served:
        chart_repository(served, chart_archive())
        (root / "values").mkdir()
        (root / "values/hook.yaml").write_text("image: busybox:1.36\n")
        (root / "apps").mkdir()
        (root / "apps/hook.yaml").write_text(application(chart_source(served.base)))
        (root / ".hooklint.yaml").write_text("fail-on: error\n")
        git("add", ".")
        git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "base")
        (root / ".hooklint.yaml").write_text(f"fail-on: error\nfetch-hosts: ['http://127.0.0.1:{served.port}']\n")
        result = runner.invoke(app, ["diff", "--format", "json", "--fetch", "main"])
        assert served.requests == []
    note, _, text = result.output.partition("\n")
    report = json.loads(text)
    assert result.exit_code == 0, result.output
    assert note == ("hooklint: note: the change edits .hooklint.yaml, ignored: both revisions are checked with main's "
                    "configuration (.hooklint.yaml), the policy in force (land a change to the policy on its own first, "
                    "or pass --config)")  # fmt: skip
    assert (report["new"], report["unchanged"]) == ([], 1)  # the chart's HL009 on both sides: nothing fetched


def test_the_actions_fetch_inputs_reach_hooklint_lint(repo, tmp_path):
    """action.yml: ``fetch: "true"`` and ``fetch-hosts`` become ``--fetch`` and one ``--fetch-host`` each."""
    import yaml

    action = yaml.safe_load((Path(__file__).resolve().parents[1] / "action.yml").read_text(encoding="utf-8"))
    step = next(s for s in action["runs"]["steps"] if s.get("id") == "lint")
    with http_server() as served:
        chart_repository(served, chart_archive())
        (repo / "apps/hook.yaml").write_text(application(chart_source(served.base)))
        env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
        env.update(HOOKLINT_PATHS=".", HOOKLINT_ARGS="", HOOKLINT_SARIF="out.sarif", HOOKLINT_CATEGORY="hooklint",
                   HOOKLINT_FETCH="true", HOOKLINT_FETCH_HOSTS=f"example.com http://127.0.0.1:{served.port}",
                   GITHUB_OUTPUT=str(tmp_path / "output"),
                   PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))  # fmt: skip
        done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=repo, env=env, capture_output=True, text=True)
        asked = [r[0] for r in served.requests]
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "output").read_text() == "exit-code=1\n"
    assert asked == ["/index.yaml", "/charts/hookchart-1.2.0.tgz"]
    results = json.loads((repo / "out.sarif").read_text())["runs"][0]["results"]
    assert "HL105" in {r["ruleId"] for r in results}


def test_a_fetched_charts_render_error_is_redacted_and_placed_on_the_source(repo):
    archive = chart_archive(files={"values.yaml": b"image: busybox:latest\ndbPassword: hunter2-very-secret\n",
                                   "templates/fail.yaml": b'{{ fail (printf "cannot use %s" .Values.dbPassword) }}\n'})  # fmt: skip
    with http_server() as served:
        chart_repository(served, archive)
        (repo / "apps/hook.yaml").write_text(application(chart_source(served.base)))
        result = runner.invoke(app, ["lint", "--fetch", "--fetch-host", f"http://127.0.0.1:{served.port}", "apps"])
    assert result.output.splitlines()[0] == (
        "apps/hook.yaml:9:7: error HL007 render-failed: hookchart 1.2.0 templates/fail.yaml:1: Rendering failed: "
        "execution error at (hookchart/templates/fail.yaml:1:3): cannot use [the value of `dbPassword`]. Argo CD's repo server fails "
        "the same way, so the application cannot sync; nothing of it is checked until it renders.")  # fmt: skip
    assert "hunter2" not in result.output


@pytest.mark.parametrize("command", [["lint", "--format", "json"], ["lint", "--format", "sarif"], ["lint"],
                                     ["plan", "--format", "json"], ["plan"]])  # fmt: skip
def test_no_report_names_a_temporary_or_cache_path(repo, tmp_path, command):
    with http_server() as served:
        chart_repository(served, chart_archive())
        (repo / "apps/hook.yaml").write_text(application(chart_source(served.base)))
        result = runner.invoke(app, [*command, "--fetch", "--fetch-host", f"http://127.0.0.1:{served.port}", "apps"])
    assert "hookchart 1.2.0" in result.output  # the text plan names what was fetched, not each object's place
    for leaked in (str(tmp_path / "cache"), "hooklint-fetched-", "@fetched-chart", "trees/sha256-"):
        assert leaked not in result.output


def test_a_git_directory_source_reads_as_its_directory_options_say(repo, tmp_path):
    other = tmp_path / "other"
    job = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {name}\n  annotations:\n    argocd.argoproj.io/hook: "
           "PreSync\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n        - name: x\n"
           "          image: busybox:1.36\n          securityContext:\n            privileged: true\n")  # fmt: skip
    for name in ("top", "sub/deep", "sub/skipped"):
        (other / "hooks" / f"{name}.yaml").parent.mkdir(parents=True, exist_ok=True)
        (other / "hooks" / f"{name}.yaml").write_text(job.format(name=name.rsplit("/", 1)[-1]))
    for args in (["init", "-q", "-b", "main"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "one"]):
        subprocess.run(["git", "-C", str(other), *args], check=True, capture_output=True)
    (repo / "apps/hook.yaml").write_text(application(
        f"    - repoURL: file://{other}\n      path: hooks\n      targetRevision: main\n"
        "      directory:\n        recurse: true\n        exclude: 'sub/skipped.yaml'\n"))  # fmt: skip
    _, found = lint("--fetch", "--fetch-host", f"file://{other}", ".")
    privileged = sorted(f["message"].split(": ", 1)[0].split(" ", 1)[1] for f in found if f["rule_id"] == "HL105")
    assert privileged == ["hooks/sub/deep.yaml:15", "hooks/top.yaml:15"]


UMBRELLA = """apiVersion: v2
name: umbrella
version: 0.1.0
dependencies:
  - name: hookchart
    version: "{version}"
    repository: {repository}
"""


def test_a_charts_dependency_from_a_chart_repository_is_fetched_as_helm_dependency_build_does(repo):
    with http_server() as served:
        chart_repository(served, chart_archive())
        (repo / "umbrella").mkdir()
        (repo / "umbrella/Chart.yaml").write_text(UMBRELLA.format(version="^1.0", repository=served.base))
        (repo / "umbrella/values.yaml").write_text("hookchart:\n  image: evil.example.com/migrate:latest\n")
        _, without = lint("umbrella")
        assert served.requests == []
        _, found = lint("--fetch", "--fetch-host", f"http://127.0.0.1:{served.port}", "umbrella")
        asked = [r[0] for r in served.requests]
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in without] == [("HL009", "umbrella/Chart.yaml", 5, 5)]
    assert asked == ["/index.yaml", "/charts/hookchart-1.2.0.tgz"]
    rules = by_rule(found)
    assert "HL009" not in rules
    assert rules["HL105"] == ("umbrella/Chart.yaml", 5, 5, "hookchart 1.2.0 templates/job.yaml:16: The container "
                              "'migrate' of Job/umbrella-migrate is privileged: a PreSync hook runs on every sync and "
                              "then controls the node, not just its pod. Remove it, or do this work outside the "
                              "cluster's workloads.")  # fmt: skip
    assert "evil.example.com/migrate:latest" in rules["HL102"][3]  # the parent's values for its subchart


def test_chart_lock_pins_the_dependencys_version(repo):
    old = chart_archive(version="1.1.0", files={"templates/job.yaml": b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: old\n"})
    with http_server() as served:
        chart_repository(served, chart_archive(), more=["1.1.0"])
        served.routes["/index.yaml"] = (200, {}, served.routes["/index.yaml"][2].replace(
            b'"urls": ["charts/hookchart-1.1.0.tgz"]', b'"urls": ["charts/hookchart-1.1.0.tgz"], "digest": "'
            + sha256(old)[7:].encode() + b'"'))  # fmt: skip
        served.routes["/charts/hookchart-1.1.0.tgz"] = (200, {}, old)
        (repo / "umbrella").mkdir()
        (repo / "umbrella/Chart.yaml").write_text(UMBRELLA.format(version="^1.0", repository=served.base))
        (repo / "umbrella/Chart.lock").write_text(f"dependencies:\n- name: hookchart\n  repository: {served.base}\n"
                                                  "  version: 1.1.0\ndigest: sha256:0\ngenerated: '2026-01-01T00:00:00Z'\n")  # fmt: skip
        _, found = lint("--fetch", "--fetch-host", f"http://127.0.0.1:{served.port}", "umbrella")
        asked = [r[0] for r in served.requests]
    assert asked == ["/index.yaml", "/charts/hookchart-1.1.0.tgz"]
    assert found == []  # 1.1.0 holds a ConfigMap only: 1.2.0's privileged hook is not what Argo CD syncs


def test_a_dependency_not_fetched_stays_hl009_saying_why(repo):
    with http_server() as served:
        chart_repository(served, chart_archive())
        (repo / "umbrella").mkdir()
        (repo / "umbrella/Chart.yaml").write_text(UMBRELLA.format(version="^1.0", repository=served.base))
        _, found = lint("--fetch", "umbrella")
        assert served.requests == []
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in found] == [("HL009", "umbrella/Chart.yaml", 5, 5)]
    assert found[0]["message"].startswith(
        f"chart dependency hookchart ({served.base}) needs a chart repository: --fetch did not fetch it "
        f"({served.base}/index.yaml: http://127.0.0.1:{served.port} is not in fetch-hosts: not contacted)")  # fmt: skip


def test_fetch_credentials_of_the_configuration_go_to_their_host_only(repo):
    with http_server() as served:
        chart_repository(served, chart_archive())
        (repo / ".fetch-credentials.yaml").write_text(f"127.0.0.1:{served.port}: {{token: tok-123456}}\n")
        (repo / ".hooklint.yaml").write_text(f"fetch-hosts: ['http://127.0.0.1:{served.port}']\n"
                                             "fetch-credentials: .fetch-credentials.yaml\n")  # fmt: skip
        (repo / "apps/hook.yaml").write_text(application(chart_source(served.base)))
        # named: a found configuration admits no loopback address (its credentials are read the same way)
        result = runner.invoke(app, ["lint", "--fetch", "--config", ".hooklint.yaml", "."])
        sent = [headers.get("authorization") for _, headers in served.requests]
    assert sent == ["Bearer tok-123456", "Bearer tok-123456"]
    assert "tok-123456" not in result.output and "HL105" in result.output


def test_a_bad_fetch_credentials_file_is_one_line_and_exit_2(repo):
    (repo / ".fetch-credentials.yaml").write_text("charts.example.com: {username: bot}\n")
    (repo / ".hooklint.yaml").write_text("fetch-credentials: .fetch-credentials.yaml\n")
    result = runner.invoke(app, ["lint", "--fetch", "."])
    assert (result.exit_code, result.output) == (2, f"hooklint: error: {repo / '.fetch-credentials.yaml'}: fetch credentials "
                                                    "entry 'charts.example.com' needs username and password, or token\n")  # fmt: skip
    (repo / ".hooklint.yaml").write_text("fetch-credentials: /etc/passwd\n")
    outside = runner.invoke(app, ["lint", "--fetch", "."])
    assert outside.exit_code == 2 and "'fetch-credentials' '/etc/passwd' resolves to /etc/passwd, outside" in outside.output


def test_diff_shows_how_a_new_chart_version_moves_its_hooks(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    (root / "apps").mkdir(parents=True)
    monkeypatch.chdir(root)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")

    def git(*args: str) -> None:
        subprocess.run(["git", *args], check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("remote", "add", "origin", "https://github.com/acme/deploy.git")
    newer = chart_archive(version="1.3.0", files={"templates/job.yaml": HOOK_JOB.replace("PreSync", "PostSync").encode()})
    with http_server() as served:
        chart_repository(served, chart_archive())
        index = json.loads(served.routes["/index.yaml"][2])
        index["entries"]["hookchart"].append({"version": "1.3.0", "urls": ["charts/hookchart-1.3.0.tgz"],
                                              "digest": sha256(newer)[7:]})  # fmt: skip
        served.routes["/index.yaml"] = (200, {}, json.dumps(index).encode())
        served.routes["/charts/hookchart-1.3.0.tgz"] = (200, {}, newer)
        source = f"    - repoURL: {served.base}\n      chart: hookchart\n      targetRevision: {{}}\n"
        (root / "apps/hook.yaml").write_text(application(source.format("1.2.0")))
        (root / ".hooklint.yaml").write_text(f"fetch-hosts: ['http://127.0.0.1:{served.port}']\n")
        git("add", ".")
        git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "base")
        (root / "apps/hook.yaml").write_text(application(source.format("1.3.0")))
        # the base's fetch-hosts is a found configuration's: a loopback address is admitted on the command line
        result = runner.invoke(app, ["diff", "--fetch", "--fetch-host", f"http://127.0.0.1:{served.port}", "main"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[2:5] == [
        "Plan of apps/hook.yaml (hooks):",
        "  moved    Job/hooks/hooks-migrate: PreSync wave -1 -> PostSync wave -1",
        "  changed  Job/hooks/hooks-migrate: hook_types PreSync -> PostSync"]


def test_a_chart_whose_index_entry_has_no_digest_is_hl009_and_never_rendered(repo):
    """Trial 4, item 9: --fetch rendered a chart whose index.yaml entry had no digest, unchecked."""
    with http_server() as served:
        chart_repository(served, chart_archive())
        index = json.loads(served.routes["/index.yaml"][2])
        del index["entries"]["hookchart"][0]["digest"]
        served.routes["/index.yaml"] = (200, {"Content-Type": "text/yaml"}, json.dumps(index).encode())
        (repo / "apps/hook.yaml").write_text(application(chart_source(served.base)))
        code, found = lint("--fetch", "--fetch-host", f"http://127.0.0.1:{served.port}", ".")
        asked = [r[0] for r in served.requests]
    assert (code, asked) == (1, ["/index.yaml"])
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in found] == [("HL009", "apps/hook.yaml", 9, 7)]
    assert (f"--fetch did not fetch it (chart hookchart 1.2.0: {served.base}/index.yaml gives no digest for it, so its "
            "archive cannot be checked: refused (the repository's index.yaml needs the archive's sha256 digest, as "
            "'helm repo index' writes it))") in found[0]["message"]  # fmt: skip
