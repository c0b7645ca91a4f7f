"""hooklint diff and what the change's Argo CD Applications leave out (attacker trial 7, F3 and F9).

A review's policy is the base's, and which files an Application leaves out (``directory.include`` /
``exclude``, a ``plugin`` source, a ``helm.valueFiles`` entry) is policy: a file of the head that the
head's Applications leave out, and the base's do not leave out the same way (the same Application,
by file and name, the same filter), is linted as if it were not left out, and a note names it, the
Application (file:line) and the field. The attacker's fixtures (/work/attack7/f/appexcl, appexcl2,
appcase) are rebuilt here as small git repositories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import git
from hooklint.cli import app

runner = CliRunner()

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {a: b}\n"

#: The attacker's privileged PreSync Job (hostPID, privileged): two HL105 errors.
EVIL = """apiVersion: batch/v1
kind: Job
metadata:
  name: evil
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 100
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: runner
      automountServiceAccountToken: false
      hostPID: true
      containers:
      - name: c
        image: registry.example.com/x@sha256:0000000000000000000000000000000000000000000000000000000000000000
        securityContext:
          privileged: true
"""


def application(name: str, extra: str = "", source: str = "") -> str:
    """An Application of this repository deploying ``app``, with ``extra`` lines under its source."""
    return f"""apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: {name}
  namespace: argocd
spec:
  project: shop
  source:
    repoURL: https://github.com/acme/deploy.git
    path: {source or 'app'}
{extra}  destination: {{server: https://kubernetes.default.svc, namespace: shop}}
"""


EXCLUDE = "    directory:\n      exclude: evil.yaml\n"
SHOP = application("shop")
NEW_FINDINGS = """New findings:
  app/evil.yaml:16:16: error HL105 hook-privileged-pod: Job/evil sets hostPID: true: a PreSync hook runs on every sync and then controls the node, not just its pod. Remove it, or do this work outside the cluster's workloads.
  app/evil.yaml:21:23: error HL105 hook-privileged-pod: The container 'c' of Job/evil is privileged: a PreSync hook runs on every sync and then controls the node, not just its pod. Remove it, or do this work outside the cluster's workloads.
"""


def note(path: str, who: str, why: str, base: str = "base") -> str:
    return (f"{path}: {who} leaves it out (spec.source.directory): it {why}; {base} does not leave it out this way, "
            "and a change cannot narrow its own review: linted as if it were not left out")


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """An empty repository whose remote is https://github.com/acme/deploy.git (the Applications'
    repoURL), the current folder."""
    repo = tmp_path / "repo"
    repo.mkdir()
    monkeypatch.chdir(repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "ci@example.com")
    git(repo, "config", "user.name", "ci")
    git(repo, "remote", "add", "origin", "https://github.com/acme/deploy.git")
    return repo


def commit(repo: Path, tag: str, files: dict[str, str | None]) -> None:
    """Write (or, for None, delete) ``files`` and commit them, tagged ``tag``."""
    for rel, text in files.items():
        path = repo / rel
        if text is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", tag)
    git(repo, "tag", tag)


def diff(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["diff", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout, result.stderr


def diff_json(*args: str) -> tuple[int, dict]:
    code, out, _ = diff("--format", "json", *args)
    return code, json.loads(out)


def hl105(doc: dict) -> list[tuple[str, int, str]]:
    return sorted((f["path"], f["line"], f["rule_id"]) for f in doc["new"] if f["rule_id"] == "HL105")


EVIL_FOUND = [("app/evil.yaml", 16, "HL105"), ("app/evil.yaml", 21, "HL105")]


def test_appexcl_an_application_nobody_deploys_cannot_exclude_the_new_hook(repo):
    """F3: the change adds docs/example.yaml, an Application nobody applies, excluding evil.yaml from
    app/ (deployed by an Application elsewhere), and app/evil.yaml. Was: 0 new findings, exit 0."""
    commit(repo, "base", {"app/cm.yaml": CM})
    commit(repo, "head", {"docs/example.yaml": application("example", EXCLUDE), "app/evil.yaml": EVIL})
    code, out, err = diff("base", "--head", "head")
    said = note("app/evil.yaml", "Application example (docs/example.yaml:9)", "matches directory.exclude 'evil.yaml'")
    assert (code, out) == (1, "hooklint diff base -> head: 2 new findings, 0 fixed, 0 unchanged; plan changes in 2 "
                              "applications\n\n" + NEW_FINDINGS + """
Plan of app:
  added    Job/shop/evil: PreSync wave 0
  added    ConfigMap/shop/cm: Sync wave 0
  removed  ConfigMap/cm

Plan of docs:
  added    Application/argocd/example: Sync wave 0

Notes:
  """ + said + "\n")
    assert err == f"hooklint: note: {said}\n"
    code, doc = diff_json("base", "--head", "head")
    assert (code, hl105(doc), doc["notes"], doc["no_longer_checked"]) == (1, EVIL_FOUND, [said], [])
    # lint believes the Applications it is given (no base to judge by): the file is listed as left out
    result = runner.invoke(app, ["lint", "--show-skipped", "-f", "json", "."])
    assert result.exit_code == 0
    assert [s for s in json.loads(result.stdout)["skipped"] if s["path"] == "app/evil.yaml"] == [
        {"path": "app/evil.yaml", "reason": "Application example (docs/example.yaml:9) leaves it out "
                                            "(spec.source.directory): it matches directory.exclude 'evil.yaml'"}]


def test_appexcl2_the_real_application_in_the_base_still_lints_it_and_nothing_more_is_said(repo):
    """Held before: the deploying Application is in the repository at base, so the fake one's
    exclude never hid the hook. Unchanged: 2 new HL105, exit 1, no note (the file is linted)."""
    commit(repo, "base", {"app/cm.yaml": CM, "apps/shop.yaml": SHOP})
    commit(repo, "head", {"docs/example.yaml": application("shop-docs", EXCLUDE), "app/evil.yaml": EVIL})
    code, out, err = diff("base", "--head", "head")
    assert (code, err) == (1, "")
    assert out == ("hooklint diff base -> head: 2 new findings, 0 fixed, 0 unchanged; plan changes in 4 applications"
                   "\n\n" + NEW_FINDINGS + """
Plan of app:
  removed  ConfigMap/shop/cm

Plan of app (shop):
  added    Job/shop/evil: PreSync wave 0
  added    ConfigMap/shop/cm: Sync wave 0

Plan of app (shop-docs):
  added    ConfigMap/shop/cm: Sync wave 0

Plan of docs:
  added    Application/argocd/shop-docs: Sync wave 0
""")


def test_appcase_the_real_application_renamed_to_an_invalid_name_with_an_exclude(repo):
    """F9: the change renames the real Application to Shop_App (the API server refuses it, so the
    live ``shop`` keeps its spec and applies evil.yaml), adds the exclude and the hook in one
    edit. Was: 0 new findings, exit 0."""
    commit(repo, "base", {"app/cm.yaml": CM, "apps/shop.yaml": SHOP})
    commit(repo, "head", {"apps/shop.yaml": application("Shop_App", EXCLUDE), "app/evil.yaml": EVIL})
    code, out, err = diff("base", "--head", "head")
    said = note("app/evil.yaml", "Application Shop_App (apps/shop.yaml:9)", "matches directory.exclude 'evil.yaml'")
    assert (code, out) == (1, "hooklint diff base -> head: 2 new findings, 0 fixed, 0 unchanged; plan changes in 2 "
                              "applications\n\n" + NEW_FINDINGS + """
Plan of app:
  added    Job/shop/evil: PreSync wave 0

Plan of apps:
  added    Application/argocd/Shop_App: Sync wave 0
  removed  Application/argocd/shop

Notes:
  """ + said + "\n")
    assert err == f"hooklint: note: {said}\n"


@pytest.mark.parametrize("extra", [
    "    directory:\n      include: cm.yaml\n",  # include instead of exclude
    "    directory:\n      exclude: '{evil.yaml,x.yaml}'\n",  # another spelling of the filter
])
def test_the_same_application_given_a_filter_in_the_change(repo, extra):
    """The same Application (same file and name) with a filter it did not have: the filter is the
    change's, so the new hook is linted."""
    commit(repo, "base", {"app/cm.yaml": CM, "apps/shop.yaml": SHOP})
    commit(repo, "head", {"apps/shop.yaml": application("shop", extra), "app/evil.yaml": EVIL})
    code, doc = diff_json("base", "--head", "head")
    assert (code, hl105(doc), len(doc["notes"])) == (1, EVIL_FOUND, 1)
    assert doc["notes"][0].startswith("app/evil.yaml: Application shop (apps/shop.yaml:9) leaves it out "
                                      "(spec.source.directory): it ")


def test_an_exclude_the_base_has_keeps_working_quietly(repo):
    """An exclude the base already has is the policy in force: a new file it leaves out is not
    linted, and nothing is said, even when the change edits the Application elsewhere (a label
    moves its lines)."""
    commit(repo, "base", {"app/cm.yaml": CM, "apps/shop.yaml": application("shop", EXCLUDE)})
    moved = application("shop", EXCLUDE).replace("  namespace: argocd\n", "  namespace: argocd\n  labels: {a: b}\n")
    commit(repo, "head", {"app/evil.yaml": EVIL, "apps/shop.yaml": moved})
    code, doc = diff_json("base", "--head", "head")
    assert (code, doc["new"], doc["fixed"], doc["notes"]) == (0, [], [], [])


def test_a_file_the_base_linted_that_the_change_excludes_is_not_fixed(repo):
    """Before, excluding a file counted its findings as fixed; now they are unchanged."""
    commit(repo, "base", {"app/cm.yaml": CM, "app/evil.yaml": EVIL, "apps/shop.yaml": SHOP})
    commit(repo, "head", {"apps/shop.yaml": application("shop", EXCLUDE)})
    code, doc = diff_json("base", "--head", "head")
    assert (code, doc["new"], doc["fixed"], doc["unchanged"]) == (0, [], [], 2)
    assert doc["notes"] == [note("app/evil.yaml", "Application shop (apps/shop.yaml:9)",
                                 "matches directory.exclude 'evil.yaml'")]


def test_a_new_application_excluding_data_files_is_not_noisy(repo):
    """A legitimate change: a new Application excluding files that hold no Kubernetes object (JSON
    data, unrelated YAML) adds no finding and no note."""
    commit(repo, "base", {"app/cm.yaml": CM})
    commit(repo, "head", {"apps/shop.yaml": application("shop", "    directory:\n      exclude: '{*.json,notes.yaml}'\n"),
                          "app/data.json": '{"renovate": true}\n', "app/notes.yaml": "owner: team-a\nlinks: []\n"})
    code, doc = diff_json("base", "--head", "head")
    assert (code, doc["new"], doc["notes"]) == (0, [], [])


def test_a_plugin_source_the_change_adds_does_not_hide_the_folder(repo):
    """An Application the change adds that renders app/ with a config management plugin (never run
    by hooklint) no longer turns the folder into "not linted"."""
    commit(repo, "base", {"app/cm.yaml": CM})
    commit(repo, "head", {"docs/example.yaml": application("example", "    plugin: {name: nothing}\n"),
                          "app/evil.yaml": EVIL})
    code, doc = diff_json("base", "--head", "head")
    assert (code, hl105(doc)) == (1, EVIL_FOUND)
    assert doc["notes"] == [
        "app/cm.yaml, app/evil.yaml: Application example (docs/example.yaml:9) renders it with a config management "
        "plugin (spec.source.plugin), which hooklint never runs; base does not leave them out this way, and a change "
        "cannot narrow its own review: linted as if they were not left out"]


def test_a_value_file_the_change_adds_does_not_hide_the_hook(repo):
    """An Application the change adds whose Helm source names app/evil.yaml as a value file: Argo CD
    reads it as values for that chart, but app/ is deployed elsewhere as a folder."""
    commit(repo, "base", {"app/cm.yaml": CM, "chart/Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n"})
    commit(repo, "head", {"docs/example.yaml": application("example", "    helm:\n      valueFiles: [../app/evil.yaml]\n",
                                                           source="chart"),
                          "app/evil.yaml": EVIL})
    code, doc = diff_json("base", "--head", "head")
    assert (code, hl105(doc)) == (1, EVIL_FOUND)
    assert any(n.startswith("app/evil.yaml: a value file of Application example (docs/example.yaml:9)")
               for n in doc["notes"])


def test_an_argocd_source_file_the_change_adds_is_the_changes_filter(repo):
    """``app/.argocd-source.yaml`` (merged into the Application's source by the repo server) with
    an exclude, added with the hook: the filter is the change's."""
    commit(repo, "base", {"app/cm.yaml": CM, "apps/shop.yaml": SHOP})
    commit(repo, "head", {"app/.argocd-source.yaml": "directory:\n  exclude: evil.yaml\n", "app/evil.yaml": EVIL})
    code, doc = diff_json("base", "--head", "head")
    assert (code, hl105(doc)) == (1, EVIL_FOUND)
    assert doc["notes"] == [note("app/evil.yaml", "Application shop (apps/shop.yaml:9)",
                                 "matches directory.exclude 'evil.yaml'")]


SET = """apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: gen
  namespace: argocd
spec:
  goTemplate: true
  generators:
  - git:
      repoURL: https://github.com/acme/deploy.git
      revision: HEAD
      files:
      - path: "app/evil.yaml"
  template:
    metadata:
      name: 'x-{{ .metadata.name }}'
    spec:
      project: shop
      source:
        repoURL: https://github.com/acme/deploy.git
        path: docs
      destination: {server: https://kubernetes.default.svc, namespace: shop}
"""


def test_a_generator_input_the_change_adds_does_not_hide_the_hook(repo):
    """An ApplicationSet the change adds whose git files generator reads app/evil.yaml as
    parameters: the file is still a manifest of app/, which an Application elsewhere deploys."""
    commit(repo, "base", {"app/cm.yaml": CM})
    commit(repo, "head", {"docs/set.yaml": SET, "app/evil.yaml": EVIL})
    code, doc = diff_json("base", "--head", "head")
    assert (code, hl105(doc)) == (1, EVIL_FOUND)
    assert doc["notes"] == [
        "app/evil.yaml: an input of the git files generator of ApplicationSet gen (docs/set.yaml:1): read as parameters, "
        "never applied; base does not leave it out this way, and a change cannot narrow its own review: linted as if "
        "it were not left out"]
    # the same ApplicationSet in the base: its input stays a parameter file, quietly
    commit(repo, "head2", {"app/evil.yaml": None})
    commit(repo, "head3", {"app/evil.yaml": EVIL})
    code, doc = diff_json("head2", "--head", "head3")
    assert (code, doc["new"], doc["notes"]) == (0, [], [])


def test_a_link_out_of_the_repository_the_change_excludes_is_never_read(repo):
    """A left-out file is opened to see whether it holds objects only inside its repository: a link
    out is linted (HL007 names it), its target never read."""
    commit(repo, "base", {"app/cm.yaml": CM})
    (repo / "app").joinpath("evil.yaml").symlink_to("/etc/hostname")
    commit(repo, "head", {"docs/example.yaml": application("example", EXCLUDE)})
    code, doc = diff_json("base", "--head", "head")
    assert (code, [(f["path"], f["rule_id"]) for f in doc["new"]]) == (1, [("app/evil.yaml", "HL007")])
    assert "/etc/hostname, outside the repository" in doc["new"][0]["message"]


def test_one_note_per_reason_naming_at_most_ten_files(repo):
    """A legitimate new plugin Application over a folder of clean manifests: no finding, exit 0,
    and one note (not one per file) naming ten files and how many more."""
    commit(repo, "base", {"app/cm.yaml": CM})
    many = {f"app/cm{i:02}.yaml": CM.replace("name: cm", f"name: cm{i:02}") for i in range(12)}
    commit(repo, "head", {"docs/example.yaml": application("example", "    plugin: {name: nothing}\n"), **many})
    code, doc = diff_json("base", "--head", "head")
    assert (code, doc["new"]) == (0, [])
    named = ", ".join(["app/cm.yaml"] + [f"app/cm{i:02}.yaml" for i in range(9)])
    assert doc["notes"] == [
        f"{named} and 3 more files: Application example (docs/example.yaml:9) renders it with a config management "
        "plugin (spec.source.plugin), which hooklint never runs; base does not leave them out this way, and a change "
        "cannot narrow its own review: linted as if they were not left out"]
