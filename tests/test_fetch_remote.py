"""Sources from elsewhere, the rest of issue 33: HL009 says how ``--fetch`` would fetch a source (and
why it never fetches an ssh remote); bare OCI registries as Argo CD reads them; remote kustomize bases
and components fetched and rendered with their kustomization; chart dependencies of a repository
Argo CD knows by name; links inside a fetched Git tree. Servers and Git remotes are loopback or
file-based, started inside each test."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

sys.path.insert(0, os.path.dirname(__file__))

from fetch_servers import chart_archive, chart_repository, http_server, oci_registry, recording_listener  # noqa: E402

from hooklint.cli import app  # noqa: E402

runner = CliRunner()
ORIGIN = '[remote "origin"]\n\turl = https://github.com/acme/deploy.git\n'
TAIL = ("Argo CD's repo server fetches it when it renders the application. hooklint did not render it, so none of its "
        "objects were checked, hooks included; ")
VENDOR = ("vendor it into this repository, or lint what it renders (`helm template` or `kustomize build` output) with "
          "`hooklint lint -`.")


def application(source: str) -> str:
    """The Application ``hooks`` whose ``spec.sources`` are ``source`` (indented YAML lines); its first
    source's ``repoURL`` is on line 8, its ``chart`` on line 9."""
    return ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: hooks\nspec:\n  project: infra\n"
            f"  sources:\n{source}  destination:\n    namespace: hooks\n")  # fmt: skip


@pytest.fixture
def repo(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".git/config").write_text(ORIGIN)
    (root / "apps").mkdir()
    monkeypatch.chdir(root)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / "cache"))
    return root


def lint(*args: str) -> tuple[int, list[dict]]:
    result = runner.invoke(app, ["lint", "--format", "json", *args])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.output)["findings"]


def hl009(found: list[dict]) -> list[tuple[str, int, int, str]]:
    return [(f["path"], f["line"], f["column"], f["message"]) for f in found if f["rule_id"] == "HL009"]


def git_repository(folder, files: dict[str, str], links: dict[str, str] | None = None) -> None:
    """A Git repository at ``folder`` (branch ``main``, one commit) holding ``files`` and the
    symbolic links ``links`` (path -> target)."""
    for path, text in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text)
    for path, target in (links or {}).items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).symlink_to(target)
    for args in (["init", "-q", "-b", "main"], ["add", "."],
                 ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "one"]):  # fmt: skip
        subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True)


# --- 1. HL009 says how --fetch would fetch it ----------------------------------------------------------


@pytest.mark.parametrize("url, chart, entry", [
    ("https://charts.jetstack.io", "cert-manager", "charts.jetstack.io"),
    ("https://charts.example.com:8443/stable", "redis", "charts.example.com:8443"),
    ("http://10.0.0.5:8080/charts", "redis", "http://10.0.0.5:8080"),
    ("oci://ghcr.io/acme/charts", "podinfo", "ghcr.io"),
])  # fmt: skip
def test_hl009_without_fetch_says_which_host_fetch_hosts_must_list(repo, url, chart, entry):
    """Before: "hooklint never fetches it", and nothing about --fetch or fetch-hosts."""
    (repo / "apps/hook.yaml").write_text(application(f"    - repoURL: {url}\n      chart: {chart}\n"
                                                     "      targetRevision: 1.0.0\n"))  # fmt: skip
    what = (f"the chart {chart} 1.0.0 of the OCI registry {url}" if url.startswith("oci://")
            else f"the chart {chart} 1.0.0 of the chart repository {url}")  # fmt: skip
    assert hl009(lint(".")[1]) == [("apps/hook.yaml", 9, 7, (
        f"Application hooks (apps/hook.yaml:8): spec.sources[0] is {what}: hooklint fetches it only with `--fetch`. "
        f"{TAIL}run with `--fetch` and list {entry} in `fetch-hosts` (or give `--fetch-host {entry}`) to check it, "
        f"{VENDOR}"))]


def test_hl009_of_a_git_source_over_https_names_its_host(repo):
    (repo / "apps/hook.yaml").write_text(application("    - repoURL: https://git.example.com/acme/other.git\n"
                                                     "      path: hooks\n"))  # fmt: skip
    assert hl009(lint(".")[1]) == [("apps/hook.yaml", 8, 7, (
        "Application hooks (apps/hook.yaml:8): spec.sources[0] is the Git repository https://git.example.com/acme/other.git "
        "(path hooks), not this one: hooklint fetches it only with `--fetch`. "
        f"{TAIL}run with `--fetch` and list git.example.com in `fetch-hosts` (or give `--fetch-host git.example.com`) "
        f"to check it, {VENDOR}"))]


@pytest.mark.parametrize("url, why", [
    ("s3://charts.example.com/stable", "the chart thing 1.0.0 of s3://charts.example.com/stable, whose scheme hooklint "
                                      "does not know: hooklint never fetches it"),
])  # fmt: skip
def test_hl009_offers_no_fetch_for_what_hooklint_never_fetches(repo, url, why):
    (repo / "apps/hook.yaml").write_text(application(f"    - repoURL: {url}\n      chart: thing\n"
                                                     "      targetRevision: 1.0.0\n"))  # fmt: skip
    assert hl009(lint(".")[1]) == [("apps/hook.yaml", 9, 7, f"Application hooks (apps/hook.yaml:8): spec.sources[0] is "
                                                            f"{why}. {TAIL}{VENDOR}")]  # fmt: skip


def test_following_the_advice_fetches_the_chart(repo):
    """The entry HL009 names is the one --fetch needs: given as --fetch-host, the chart is checked."""
    with http_server() as served:
        chart_repository(served, chart_archive())
        (repo / "values.yaml").write_text("")
        (repo / "apps/hook.yaml").write_text(application(f"    - repoURL: {served.base}\n      chart: hookchart\n"
                                                         "      targetRevision: 1.2.0\n"))  # fmt: skip
        _, before = lint(".")
        assert served.requests == []
        entry = before[0]["message"].split("(or give `--fetch-host ")[1].split("`")[0]
        assert entry == f"http://127.0.0.1:{served.port}"
        _, after = lint("--fetch", "--fetch-host", entry, ".")
    assert hl009(after) == [] and "HL105" in {f["rule_id"] for f in after}


# --- 2. an OCI registry written without oci:// ---------------------------------------------------------


@pytest.mark.parametrize("url, oci", [
    ("ghcr.io/acme/charts", True), ("registry-1.docker.io/bitnamicharts", True), ("localhost:5000/charts", True),
    ("127.0.0.1:5000/charts", False),  # Go: "first path segment in URL cannot contain colon": not OCI
    ("oci://ghcr.io/acme/charts", False), ("https://charts.example.com", False), ("s3://bucket/charts", False),
])  # fmt: skip
def test_a_repo_url_without_a_host_is_an_oci_registry_as_argo_cd_reads_it(url, oci):
    """Argo CD v3.5.1 util/helm/client.go IsHelmOciRepo: ``url.Parse(repoURL)`` without error and
    with an empty Host; newHelmClientResolveRevision then enables OCI whatever enableOCI says."""
    from hooklint.sources.appmap.applications import is_helm_oci_repo

    assert is_helm_oci_repo(url) is oci


def test_a_bare_oci_registry_is_named_as_one_not_an_unknown_scheme(repo):
    """Before: "the chart podinfo 6.5.0 of ghcr.io/acme/charts, whose scheme hooklint does not know"
    (Argo CD's own documentation writes Helm OCI sources this way: "the oci:// syntax is not included")."""
    (repo / "apps/hook.yaml").write_text(application("    - repoURL: ghcr.io/acme/charts\n      chart: podinfo\n"
                                                     "      targetRevision: 6.5.0\n"))  # fmt: skip
    assert hl009(lint(".")[1]) == [("apps/hook.yaml", 9, 7, (
        "Application hooks (apps/hook.yaml:8): spec.sources[0] is the chart podinfo 6.5.0 of the OCI registry "
        "ghcr.io/acme/charts: hooklint fetches it only with `--fetch`. "
        f"{TAIL}run with `--fetch` and list ghcr.io in `fetch-hosts` (or give `--fetch-host ghcr.io`) to check it, "
        f"{VENDOR}"))]
    result = runner.invoke(app, ["plan", "--format", "json", "."])
    planned = {a["application"]: a for a in json.loads(result.output)["applications"]}["apps/hook.yaml (hooks)"]
    assert planned["rendered_reasons"] == ["apps/hook.yaml:9:7: spec.sources[0] is the chart podinfo 6.5.0 of the OCI "
                                           "registry ghcr.io/acme/charts: hooklint fetches it only with `--fetch`"]


def test_a_bare_oci_registry_is_fetched_as_oci_with_fetch(repo, monkeypatch):
    """helm pull oci://REPOURL/CHART --version V (util/helm/cmd.go PullOCI): the distribution API's
    manifest and the chart layer, from the registry the repoURL names. A bare repoURL names its
    registry by a name (``127.0.0.1:PORT/x`` is no URL to Go: a colon in the first segment), and a
    name of a loopback address is refused (tests/test_fetch.py): here that check alone is lifted."""
    from hooklint.sources.fetch import client

    monkeypatch.setattr(client, "check_address", lambda address, entry, host: None)
    with http_server() as served:
        oci_registry(served, chart_archive(), tag="1.2.0")
        (repo / "apps/hook.yaml").write_text(application(f"    - repoURL: localhost:{served.port}/charts\n"
                                                         "      chart: hookchart\n      targetRevision: 1.2.0\n"))
        _, found = lint("--fetch", "--fetch-host", f"http://localhost:{served.port}", ".")
        asked = [r[0] for r in served.requests]
    assert asked[0] == "/v2/charts/hookchart/manifests/1.2.0" and asked[-1].startswith("/v2/charts/hookchart/blobs/sha256:")
    assert hl009(found) == []
    assert [(f["rule_id"], f["path"], f["line"], f["message"].split(": ")[0]) for f in found if f["rule_id"] == "HL105"] == [
        ("HL105", "apps/hook.yaml", 9, "hookchart 1.2.0 templates/job.yaml:16")]


# --- 3. remote kustomize bases and components ----------------------------------------------------------

SEED_JOB = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: seed\n  annotations:\n"
            "    argocd.argoproj.io/hook: PostSync\nspec:\n  backoffLimit: 0\n  activeDeadlineSeconds: 60\n"
            "  template:\n    spec:\n      restartPolicy: Never\n      serviceAccountName: seed\n"
            "      automountServiceAccountToken: false\n      containers:\n        - name: seed\n"
            "          image: busybox:1.36\n          securityContext:\n            privileged: true\n")  # fmt: skip
CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"


def overlay(repo, entry: str, field: str = "resources") -> str:
    """overlays/prod: a kustomization listing ``entry`` (line 3) and a local ConfigMap; its text."""
    text = (f"namePrefix: prod-\n{field}:\n  - {entry}\n" + ("resources:\n" if field != "resources" else "")
            + "  - cm.yaml\n")  # fmt: skip
    (repo / "overlays/prod").mkdir(parents=True)
    (repo / "overlays/prod/kustomization.yaml").write_text(text)
    (repo / "overlays/prod/cm.yaml").write_text(CONFIG_MAP)
    return text


def other_repository(tmp_path, kustomization: str = "resources:\n- job.yaml\n", folder: str = "base"):
    other = tmp_path / "other"
    git_repository(other, {f"{folder}/kustomization.yaml": kustomization, f"{folder}/job.yaml": SEED_JOB})
    return other


needs_kustomize = pytest.mark.skipif(not any(os.path.exists(os.path.join(p, n)) for p in os.environ.get("PATH", "").split(os.pathsep)
                                            for n in ("kustomize", "kubectl")), reason="needs kustomize or kubectl")  # fmt: skip


@needs_kustomize
def test_a_remote_base_is_fetched_and_rendered_with_its_overlay(repo, tmp_path):
    """Before: left out (HL009), its PostSync Job never checked, even with --fetch."""
    other = other_repository(tmp_path)
    text = overlay(repo, f"file://{other}//base?ref=main")
    code, found = lint("--fetch", "--fetch-host", f"file://{other}", "overlays/prod")
    assert code == 1 and hl009(found) == []
    [privileged] = [f for f in found if f["rule_id"] == "HL105"]
    commit = subprocess.run(["git", "-C", str(other), "rev-parse", "HEAD"], capture_output=True, text=True).stdout[:12]
    assert (privileged["path"], privileged["line"], privileged["column"], privileged["message"]) == (
        "overlays/prod/kustomization.yaml", 3, 5,
        f"file://{other}@{commit} base/job.yaml:19: The container 'seed' of Job/prod-seed is privileged: a PostSync hook "
        "runs on every sync and then controls the node, not just its pod. Remove it, or do this work outside the "
        "cluster's workloads.")  # fmt: skip
    result = runner.invoke(app, ["plan", "--format", "json", "--fetch", "--fetch-host", f"file://{other}", "overlays/prod"])
    [planned] = json.loads(result.output)["applications"]
    assert planned["rendered"] == "full"
    assert [(s["phase"], [(t["kind"], t["name"], t["path"]) for t in s["tasks"]]) for s in planned["steps"]] == [
        ("Sync", [("ConfigMap", "prod-settings", "overlays/prod/cm.yaml")]),
        ("PostSync", [("Job", "prod-seed", f"file://{other}@{commit} base/job.yaml")])]
    assert (repo / "overlays/prod/kustomization.yaml").read_text() == text  # the user's file never edited


@needs_kustomize
def test_without_fetch_a_remote_base_is_left_out_and_named(repo, tmp_path):
    other = other_repository(tmp_path)
    overlay(repo, f"file://{other}//base?ref=main")
    code, found = lint("overlays/prod")
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in found] == [
        ("HL009", "overlays/prod/kustomization.yaml", 3, 5)]
    assert found[0]["message"] == (
        f"resources entry 'file://{other}//base?ref=main' is remote and needs the network; hooklint fetches it only "
        f"with `--fetch`: run with `--fetch --fetch-host file://{other}` to check it, or vendor the base into the "
        "repository. Argo CD fetches it when it renders the application. hooklint left it out, so the objects it adds, "
        "possibly hooks, were not checked; the rest of the application was.")
    _, fetched = lint("--fetch", "--fetch-host", f"file://{other}", "overlays/prod")  # the advice, followed
    assert hl009(fetched) == [] and [f["rule_id"] for f in fetched] == ["HL105"]


@needs_kustomize
def test_a_remote_component_is_fetched_and_rendered(repo, tmp_path):
    component = ("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n- job.yaml\n")
    other = other_repository(tmp_path, component, "comp")
    overlay(repo, f"file://{other}//comp", field="components")
    _, found = lint("--fetch", "--fetch-host", f"file://{other}", "overlays/prod")
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in found] == [
        ("HL105", "overlays/prod/kustomization.yaml", 3, 5)]
    assert " comp/job.yaml:19: " in found[0]["message"]


@needs_kustomize
def test_a_remote_base_of_a_remote_base_is_fetched_too_and_placed_on_the_entry_here(repo, tmp_path):
    inner = tmp_path / "remotes/inner"
    git_repository(inner, {"base/kustomization.yaml": "resources:\n- job.yaml\n", "base/job.yaml": SEED_JOB})
    outer = tmp_path / "remotes/outer"
    git_repository(outer, {"app/kustomization.yaml": f"resources:\n- file://{inner}//base\n"})
    overlay(repo, f"file://{outer}//app")
    _, found = lint("--fetch", "--fetch-host", f"file://{tmp_path / 'remotes'}", "overlays/prod")
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in found] == [
        ("HL105", "overlays/prod/kustomization.yaml", 3, 5)]
    assert found[0]["message"].startswith(f"file://{inner}@")


@needs_kustomize
def test_a_fetched_base_that_would_leave_an_entry_out_is_left_out_whole(repo, tmp_path):
    """Fail closed: the fetched kustomization names a remote base --fetch may not fetch."""
    other = other_repository(tmp_path, "resources:\n- job.yaml\n- https://git.example.com/org/x.git//y\n")
    overlay(repo, f"file://{other}//base")
    _, found = lint("--fetch", "--fetch-host", f"file://{other}", "overlays/prod")
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in found] == [
        ("HL009", "overlays/prod/kustomization.yaml", 3, 5)]
    assert found[0]["message"].startswith(
        f"resources entry 'file://{other}//base' is remote: --fetch did not fetch it (what it fetched would be rendered "
        "without an entry: resources entry 'https://git.example.com/org/x.git//y' is remote: --fetch did not fetch it "
        "(https://git.example.com/org/x.git: https://git.example.com:443 is not in fetch-hosts: not contacted))")


@needs_kustomize
def test_a_remote_base_of_an_unlisted_host_is_never_contacted(repo):
    with recording_listener() as listener:
        overlay(repo, f"https://127.0.0.1:{listener.port}/org/repo.git//base?ref=v1")
        lint("overlays/prod")  # a rendering without --fetch first: its message is not the one --fetch gives
        code, found = lint("--fetch", "overlays/prod")
        assert listener.seen == []
    assert [(f["rule_id"], f["line"], f["column"]) for f in found] == [("HL009", 3, 5)]
    assert found[0]["message"].startswith(
        f"resources entry 'https://127.0.0.1:{listener.port}/org/repo.git//base?ref=v1' is remote: --fetch did not fetch "
        f"it (https://127.0.0.1:{listener.port}/org/repo.git: https://127.0.0.1:{listener.port} is not in fetch-hosts: "
        "not contacted)")


# --- 4. repositories Argo CD's settings name, and ssh Git URLs --------------------------------------------

UMBRELLA = ("apiVersion: v2\nname: umbrella\nversion: 0.1.0\ndependencies:\n  - name: hookchart\n"
            "    version: \"^1.0\"\n    repository: \"{repository}\"\n")  # fmt: skip


@pytest.mark.parametrize("repository", ["@hooks", "alias:hooks"])
def test_a_dependency_of_a_named_repository_is_fetched_from_the_url_helm_repositories_gives(repo, repository):
    """Argo CD v3.5.1 getHelmDependencyRepos reads "@hooks" and "alias:hooks" as the repository
    named hooks, getHelmRepos adds the declared repository of that name before helm dependency
    build. Before: "hooklint cannot know", never fetched."""
    with http_server() as served:
        chart_repository(served, chart_archive())
        (repo / "umbrella").mkdir()
        (repo / "umbrella/Chart.yaml").write_text(UMBRELLA.format(repository=repository))
        (repo / ".hooklint.yaml").write_text(f"helm-repositories:\n  hooks: {served.base}\n")
        _, found = lint("--fetch", "--fetch-host", f"http://127.0.0.1:{served.port}", "umbrella")
        asked = [r[0] for r in served.requests]
    assert asked == ["/index.yaml", "/charts/hookchart-1.2.0.tgz"]
    assert hl009(found) == []
    [privileged] = [f for f in found if f["rule_id"] == "HL105"]
    assert (privileged["path"], privileged["line"], privileged["column"]) == ("umbrella/Chart.yaml", 5, 5)
    assert privileged["message"].startswith("hookchart 1.2.0 templates/job.yaml:16: ")


@pytest.mark.parametrize("repository", ["@hooks", "alias:hooks"])
def test_a_dependency_of_a_repository_nobody_named_says_how_to_name_it(repo, repository):
    (repo / "umbrella").mkdir()
    (repo / "umbrella/Chart.yaml").write_text(UMBRELLA.format(repository=repository))
    _, found = lint("umbrella")
    unchecked = ("Argo CD runs helm dependency build, which fetches it, before it renders the chart. hooklint left it "
                 "out, so the objects it adds, possibly hooks, were not checked; the chart's own were")
    assert hl009(found) == [("umbrella/Chart.yaml", 5, 5, (
        f"chart dependency hookchart ({repository}) needs the chart repository Argo CD's settings name hooks: hooklint "
        f"fetches it only with `--fetch`, from the URL `helm-repositories` names. {unchecked}; name its URL under "
        "`helm-repositories` in the configuration (hooks: https://...), list its host in `fetch-hosts` and run with "
        "`--fetch` to check it."))]
    _, fetching = lint("--fetch", "umbrella")
    assert hl009(fetching) == [("umbrella/Chart.yaml", 5, 5, (
        f"chart dependency hookchart ({repository}) needs the chart repository Argo CD's settings name hooks: --fetch "
        f"did not fetch it ({repository} is the repository Argo CD's settings name hooks, whose URL hooklint does not "
        f"know: name it under `helm-repositories` in the configuration (hooks: https://...), or declare it in this "
        f"repository (a Secret labelled argocd.argoproj.io/secret-type: repository)). {unchecked}."))]


def test_helm_repositories_takes_http_urls_only(repo):
    (repo / ".hooklint.yaml").write_text("helm-repositories:\n  hooks: ftp://charts.example.com\n")
    result = runner.invoke(app, ["lint", "."])
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert "'helm-repositories' entry 'hooks' must be a string matching" in result.output


@pytest.mark.parametrize("template", ["git@github.com:acme/other.git", "ssh://git@127.0.0.1:{port}/acme/other.git"])
def test_an_ssh_git_source_says_why_it_is_never_fetched(repo, template):
    """Before: "hooklint never fetches it" (and, with --fetch, git's refusal of the scheme)."""
    never = ("hooklint never fetches an ssh Git remote: ssh signs in with the keys, agent and configuration of the "
             "machine it runs on, and the fetch step takes no credentials from the environment")
    with recording_listener() as listener:
        url = template.format(port=listener.port)
        (repo / "apps/hook.yaml").write_text(application(f"    - repoURL: {url}\n      path: hooks\n"))
        found = hl009(lint("--fetch", "--fetch-host", f"127.0.0.1:{listener.port}", ".")[1])
        assert listener.seen == []
    assert found == [("apps/hook.yaml", 8, 7, (
        f"Application hooks (apps/hook.yaml:8): spec.sources[0] is the Git repository {url} (path hooks), not this one: "
        f"--fetch did not fetch it ({never}). {TAIL}{VENDOR}"))]
    assert hl009(lint(".")[1]) == [("apps/hook.yaml", 8, 7, (
        f"Application hooks (apps/hook.yaml:8): spec.sources[0] is the Git repository {url} (path hooks), not this one: "
        f"{never}. {TAIL}{VENDOR}"))]


# --- 5. links in a fetched Git tree ----------------------------------------------------------------------


def test_links_inside_a_fetched_tree_are_placed_as_a_checkout_places_them(repo, tmp_path):
    """Before: any link refused the whole tree (HL009). A link to a file and one to a folder, both
    inside the other repository: the directory source reads the file link as its file."""
    other = tmp_path / "other"
    git_repository(other, {"real/job.yaml": SEED_JOB, "shared/cm.yaml": CONFIG_MAP},
                   {"app/job.yaml": "../real/job.yaml", "app/shared": "../shared"})
    (repo / "apps/hook.yaml").write_text(application(f"    - repoURL: file://{other}\n      path: app\n"
                                                     "      targetRevision: main\n"))  # fmt: skip
    _, found = lint("--fetch", "--fetch-host", f"file://{other}", ".")
    assert hl009(found) == []
    assert [(f["rule_id"], f["path"], f["line"], f["message"].split(": ")[0].split(" ", 1)[1]) for f in found
            if f["rule_id"] == "HL105"] == [("HL105", "apps/hook.yaml", 8, "app/job.yaml:19")]
    result = runner.invoke(app, ["plan", "--format", "json", "--fetch", "--fetch-host", f"file://{other}", "apps"])
    planned = {a["application"]: a for a in json.loads(result.output)["applications"]}["apps/hook.yaml (hooks)"]
    assert [t["name"] for s in planned["steps"] for t in s["tasks"]] == ["seed"]  # a folder link is not followed


@pytest.mark.parametrize("links", [
    {"app/job.yaml": "../../outside.yaml"},
    {"app/job.yaml": "/etc/hostname"},
    {"app/top": ".", "app/job.yaml": "top/../../outside.yaml"},  # inside as text, out once top is followed
    {"app/up": "..", "app/job.yaml": "up/../x"},  # up is the tree's top: its .. is not
])  # fmt: skip
def test_a_link_leading_out_of_the_fetched_tree_refuses_it(repo, tmp_path, links):
    other = tmp_path / "other"
    (tmp_path / "outside.yaml").write_text(CONFIG_MAP)
    git_repository(other, {"real/job.yaml": SEED_JOB}, links)
    (repo / "apps/hook.yaml").write_text(application(f"    - repoURL: file://{other}\n      path: app\n"
                                                     "      targetRevision: main\n"))  # fmt: skip
    _, found = lint("--fetch", "--fetch-host", f"file://{other}", ".")
    [(path, line, column, message)] = hl009(found)
    assert (path, line, column) == ("apps/hook.yaml", 8, 7)
    assert "which leaves the fetched tree: refused (Argo CD refuses a repository with out-of-bounds symlinks)" in message
    assert "--fetch did not fetch it (app/job.yaml is a symbolic link to " in message
    assert not [f for f in found if f["rule_id"] != "HL009"]
    assert not any(name.startswith(".tree-") for name in os.listdir(tmp_path / "cache/fetch/trees"))  # nothing left


@needs_kustomize
def test_a_remote_base_holding_links_inside_it_is_rendered(repo, tmp_path):
    other = tmp_path / "other"
    git_repository(other, {"base/kustomization.yaml": "resources:\n- job.yaml\n", "base/files/job.yaml": SEED_JOB},
                   {"base/job.yaml": "files/job.yaml"})  # inside its root: kustomize's loader refuses one above it
    overlay(repo, f"file://{other}//base")
    _, found = lint("--fetch", "--fetch-host", f"file://{other}", "overlays/prod")
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in found] == [
        ("HL105", "overlays/prod/kustomization.yaml", 3, 5)]


@needs_kustomize
def test_a_remote_base_url_holding_credentials_is_not_fetched_and_never_printed(repo):
    overlay(repo, "https://bot:hunter2secret@git.example.com/org/repo.git//base?ref=v1")
    result = runner.invoke(app, ["lint", "--fetch", "--fetch-host", "git.example.com", "overlays/prod"])
    assert "hunter2secret" not in result.output
    assert ("resources entry 'https://bot:[redacted]@git.example.com/org/repo.git//base?ref=v1' is remote: --fetch did "
            "not fetch it (https://git.example.com/org/repo.git: a Git URL holding credentials is not fetched)") in result.output


@pytest.mark.parametrize("text, expected", [
    ("resources:\n  - github.com/a/b//x  # the platform\n  - cm.yaml\n",
     'resources:\n  - "../.hooklint-fetched/0/x"  # the platform\n  - cm.yaml\n'),  # in place: lines unchanged
    # written again, as JSON: every string stays a string to go-yaml (yamlio.go_yaml_text)
    ("resources: [github.com/a/b//x, cm.yaml]\n", '{"resources": ["../.hooklint-fetched/0/x", "cm.yaml"]}\n'),
])  # fmt: skip
def test_the_copy_names_the_fetched_folder_in_place_of_the_remote_entry(text, expected):
    from hooklint.sources.render.kustomize import _with_entries

    assert _with_entries(text, [("resources", 0, "../.hooklint-fetched/0/x")]) == expected


REPOSITORY_SECRET = ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: hooks-repo\n  namespace: argocd\n  labels:\n"
                     "    argocd.argoproj.io/secret-type: repository\nstringData:\n  name: hooks\n  type: helm\n"
                     "  url: {url}\n")  # fmt: skip


def test_a_dependency_of_a_repository_declared_in_this_repository_is_fetched_from_its_url(repo):
    """Argo CD's declarative setup: a repository Secret (name, url) in the repository; getHelmRepos
    matches "@hooks" to the declared repository named hooks."""
    with http_server() as served:
        chart_repository(served, chart_archive())
        (repo / "umbrella").mkdir()
        (repo / "umbrella/Chart.yaml").write_text(UMBRELLA.format(repository="@hooks"))
        (repo / "argocd").mkdir()
        (repo / "argocd/repositories.yaml").write_text(REPOSITORY_SECRET.format(url=served.base))
        _, found = lint("--fetch", "--fetch-host", f"http://127.0.0.1:{served.port}", "umbrella")
        asked = [r[0] for r in served.requests]
    assert asked == ["/index.yaml", "/charts/hookchart-1.2.0.tgz"]
    assert hl009(found) == [] and "HL105" in {f["rule_id"] for f in found}


@needs_kustomize
@pytest.mark.parametrize("escape", ["%2e%2e/other", "%2E%2E/other", "%2e%2e%2fother", "x/..%2f..%2fother"])
def test_a_percent_escaped_file_remote_never_leaves_its_fetch_host_folder(repo, tmp_path, escape):
    """Before: the --fetch-host folder was checked on the undecoded path, Git decoded %2e%2e to ..
    and fetched (and hooklint rendered) the repository beside it."""
    other_repository(tmp_path)  # tmp_path/other, outside the listed folder tmp_path/srv
    (tmp_path / "srv/x").mkdir(parents=True)
    url = f"file://{tmp_path}/srv/{escape}"
    overlay(repo, f"{url}//base?ref=main")
    code, found = lint("--fetch", "--fetch-host", f"file://{tmp_path}/srv", "overlays/prod")
    assert (code, [(f["rule_id"], f["line"], f["column"]) for f in found]) == (1, [("HL009", 3, 5)])
    assert found[0]["message"].startswith(
        f"resources entry '{url}//base?ref=main' is remote: --fetch did not fetch it ({url}: a file:// remote holding "
        "'%', '?' or '#' is not fetched: Git reads percent-escapes (%2e%2e is ..) and '?'/'#' as part of the path, so "
        "it could leave the --fetch-host folder; write the path plainly)")


def test_a_percent_escaped_file_source_never_leaves_its_fetch_host_folder(repo, tmp_path):
    """The same for an Application's Git source: the repository beside the listed folder is never read."""
    git_repository(tmp_path / "other", {"app/job.yaml": SEED_JOB})
    (tmp_path / "srv").mkdir()
    url = f"file://{tmp_path}/srv/%2E%2E/other"
    (repo / "apps/hook.yaml").write_text(application(f"    - repoURL: {url}\n      path: app\n"
                                                     "      targetRevision: main\n"))  # fmt: skip
    code, found = lint("--fetch", "--fetch-host", f"file://{tmp_path}/srv", ".")
    assert code == 1
    assert [(f["rule_id"], f["path"], f["line"]) for f in found] == [("HL009", "apps/hook.yaml", 8)]
    assert (f"({url}: a file:// remote holding '%', '?' or '#' is not fetched: Git reads percent-escapes (%2e%2e is ..)"
            " and '?'/'#' as part of the path, so it could leave the --fetch-host folder; write the path plainly)"
            in found[0]["message"])


def test_without_fetch_a_percent_escaped_file_base_is_not_advised_to_fetch(repo, tmp_path):
    """Before: HL009 advised `--fetch --fetch-host file://.../%2e%2e/other`, which the fetch step refuses."""
    url = f"file://{tmp_path}/srv/%2e%2e/other"
    overlay(repo, f"{url}//base")
    code, found = lint("overlays/prod")
    assert (code, hl009(found)) == (1, [("overlays/prod/kustomization.yaml", 3, 5,
        f"resources entry '{url}//base' is remote and needs the network; hooklint never uses the network: vendor the "
        "base into the repository. Argo CD fetches it when it renders the application. hooklint left it out, so the "
        "objects it adds, possibly hooks, were not checked; the rest of the application was.")])  # fmt: skip


def test_a_fetched_chart_whose_values_hooklint_cannot_read_is_not_checked_from_its_rendering(repo):
    """Fail closed for a fetched chart too (attacker trial 24, B2): a values file libyaml refuses and
    Go reads hides a secret the rendering may print; the chart is HL009, never checked from it."""
    values = "db: {password: Zq8vN3kLpW2xR7tY5uJ1}\n\ufeffx: y\nimage: busybox:latest\n".encode()
    with http_server() as served:
        chart_repository(served, chart_archive(files={"values.yaml": values}))
        (repo / "apps/hook.yaml").write_text(application(f"    - repoURL: {served.base}\n      chart: hookchart\n"
                                                         "      targetRevision: 1.2.0\n"))  # fmt: skip
        _, found = lint("--fetch", "--fetch-host", served.base, ".")
    expected = ("hookchart 1.2.0 Chart.yaml:1: hooklint could not look for the secret values of this chart (a values "
                "file is not YAML hooklint reads), so it does not use its rendering")
    assert [(f["rule_id"], f["message"][:len(expected)]) for f in found if f["rule_id"] in ("HL009", "HL105")] == [
        ("HL009", expected)]
