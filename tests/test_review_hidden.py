"""hooklint diff and the files of hidden folders no Application of the repository reads (attacker
trial 7, F6).

hooklint walks a hidden folder (``app/.hooks``) only when it is named or an Application of the
repository reads a folder above it with ``directory.recurse``; ``lint`` lists what such a folder holds
that looks like a Kubernetes object as not linted. That is hooklint's choice, not Argo CD's: a
recursive directory Application elsewhere (another repository, which the README allows) applies it.
So in ``hooklint diff`` a file of such a folder that the change adds or edits and that holds
Kubernetes objects is linted as if its folder were named, its findings new, and a note names it;
a file unchanged since the base stays as ``lint`` lists it (no noise for existing repositories). The
attacker's fixture (/work/attack7/f/hidden2) is rebuilt here as a small git repository.

Attacker trial 8, F5 (/work/attack8/hid): such a file that is an Application joins the map as a named
folder's does (its chart rendered with its values); in ``lint``, one joins it when a directory
Application of the repository applies its folder (recurse, or a hidden path)."""

from __future__ import annotations

import json

import pytest

from test_review_leaving import CM, EVIL, commit, diff, diff_json, repo  # noqa: F401 - the fixture

JOB = EVIL.replace("name: evil", "name: evil")
HIDDEN = ("in the hidden folder app/.hooks/, which hooklint walks only when named or when an Application of this "
          "repository reads app/ (or a folder above) with directory.recurse, as Argo CD then applies it: lint it with "
          "`hooklint lint app/.hooks`")  # fmt: skip


def note(path: str, verb: str, it: str = "it") -> str:
    return (f"{path}: {HIDDEN}; the change {verb} {it}, and a change cannot hide a manifest from its review: linted as "
            "if its hidden folder were named")


def test_hidden2_a_hook_the_change_adds_in_a_hidden_folder_is_new(repo):
    """/work/attack7/f/hidden2: the change adds app/.hooks/job.yaml, a privileged PreSync Job that a
    recursive directory Application (in another repository) applies. Was: 0 new findings, no plan
    change, exit 0."""
    commit(repo, "base", {"app/cm.yaml": CM})
    commit(repo, "head", {"app/.hooks/job.yaml": JOB})
    code, out, err = diff("base", "--head", "head")
    said = note("app/.hooks/job.yaml", "adds")
    assert (code, out) == (1, """hooklint diff base -> head: 3 new findings, 0 fixed, 0 unchanged; plan changes in 1 application

New findings:
  app/.hooks/job.yaml:6:30: note HL305 hooks-only-application: Every object of this application is a hook (1 hook run during a sync, no plain resource): hooks do not count toward sync status, so Argo CD shows the application Synced and auto-sync has no reason to start a sync. Add at least one plain resource (a ConfigMap is enough), or run the hooks from an application that has resources.
  app/.hooks/job.yaml:16:16: error HL105 hook-privileged-pod: Job/evil sets hostPID: true: a PreSync hook runs on every sync and then controls the node, not just its pod. Remove it, or do this work outside the cluster's workloads.
  app/.hooks/job.yaml:21:23: error HL105 hook-privileged-pod: The container 'c' of Job/evil is privileged: a PreSync hook runs on every sync and then controls the node, not just its pod. Remove it, or do this work outside the cluster's workloads.

Plan of app/.hooks:
  added    Job/evil: PreSync wave 0

Notes:
  """ + said + "\n")
    assert err == f"hooklint: note: {said}\n"
    code, doc = diff_json("base", "--head", "head")
    assert (code, doc["notes"]) == (1, [said])
    assert sorted((f["path"], f["line"], f["rule_id"]) for f in doc["new"]) == [
        ("app/.hooks/job.yaml", 6, "HL305"), ("app/.hooks/job.yaml", 16, "HL105"), ("app/.hooks/job.yaml", 21, "HL105")]


def test_the_working_tree_as_head_too(repo):
    """Without ``--head``: the working tree's new hidden file is the change's."""
    commit(repo, "base", {"app/cm.yaml": CM})
    (repo / "app" / ".hooks").mkdir()
    (repo / "app" / ".hooks" / "job.yaml").write_text(JOB)
    code, doc = diff_json("base")
    assert (code, len(doc["new"]), doc["notes"]) == (1, 3, [note("app/.hooks/job.yaml", "adds")])


def test_an_edited_hidden_file_is_linted_an_unchanged_one_stays_quiet(repo):
    """The hook was already in the base (listed as not linted there, as ``lint`` lists it): a change
    elsewhere says nothing of it; a change that edits it has it linted, its findings new."""
    commit(repo, "base", {"app/cm.yaml": CM, "app/.hooks/job.yaml": JOB})
    commit(repo, "other", {"app/cm.yaml": CM.replace("a: b", "a: c")})
    code, doc = diff_json("base", "--head", "other")
    assert (code, doc["new"], doc["notes"], doc["plan_changes"]) == (0, [], [], [])
    commit(repo, "edit", {"app/.hooks/job.yaml": JOB.replace("backoffLimit: 1", "backoffLimit: 2")})
    code, doc = diff_json("other", "--head", "edit")
    assert (code, len(doc["new"]), doc["notes"]) == (1, 3, [note("app/.hooks/job.yaml", "edits")])


def test_only_the_changed_files_of_a_hidden_folder_are_linted(repo):
    """Two files of one hidden folder, one the base has unchanged: only the new one is linted."""
    commit(repo, "base", {"app/cm.yaml": CM, "app/.hooks/old.yaml": JOB.replace("name: evil", "name: old")})
    commit(repo, "head", {"app/.hooks/job.yaml": JOB})
    code, doc = diff_json("base", "--head", "head")
    assert (code, sorted({f["path"] for f in doc["new"]}), doc["notes"]) == (
        1, ["app/.hooks/job.yaml"], [note("app/.hooks/job.yaml", "adds")])


def test_a_new_hidden_file_holding_no_object_stays_quiet(repo):
    """It has ``apiVersion`` and ``kind`` keys (``lint`` lists it), but no document is an object with a
    kind: data, never applied. No finding, no note, no plan change."""
    commit(repo, "base", {"app/cm.yaml": CM})
    data = "settings:\n  apiVersion: v1\n  kind: Pod\nowner: team-a\n"
    commit(repo, "head", {"app/.hooks/data.yaml": data, "app/.config/tool.json": '{"x": {"apiVersion": 1, "kind": 2}}'})
    code, doc = diff_json("base", "--head", "head")
    assert (code, doc["new"], doc["notes"], doc["plan_changes"]) == (0, [], [], [])


def test_lint_still_lists_it_as_not_linted(repo):
    """``lint`` has no base to compare with: unchanged behaviour (tests/test_hidden_folders.py)."""
    from typer.testing import CliRunner

    from hooklint.cli import app

    commit(repo, "base", {"app/cm.yaml": CM, "app/.hooks/job.yaml": JOB})
    result = CliRunner().invoke(app, ["lint", "-f", "json", "."])
    report = json.loads(result.stdout)
    assert (result.exit_code, report["skipped"]) == (0, [{"path": "app/.hooks/job.yaml", "reason": HIDDEN}])


@pytest.mark.parametrize("exclude", ["app/.hooks/", "'**/job.yaml'"])
def test_the_bases_exclude_still_leaves_it_out(repo, exclude):
    """``exclude`` is the base's policy in a review: a new hidden file it matches stays left out."""
    commit(repo, "base", {"app/cm.yaml": CM, ".hooklint.yaml": f"exclude: [{exclude}]\n"})
    commit(repo, "head", {"app/.hooks/job.yaml": JOB})
    code, doc = diff_json("base", "--head", "head")
    assert (code, doc["new"], doc["notes"]) == (0, [], [])


def test_a_file_git_ignores_in_the_working_tree_is_not_the_changes(repo):
    """Without ``--head``, a hidden folder git ignores (a ``.venv`` made in the checkout, a tool's
    cache) is in no commit, so no Application applies it: it stays listed as not linted, quietly.
    The same file not ignored is the change's."""
    commit(repo, "base", {"app/cm.yaml": CM, ".gitignore": ".venv/\napp/.cache/\n"})
    for folder in (".venv/lib/x", "app/.cache"):
        (repo / folder).mkdir(parents=True)
        (repo / folder / "job.yaml").write_text(JOB)
    (repo / "top.yaml").write_text(CM.replace("name: cm", "name: top"))  # .venv lies in a folder of manifests
    code, doc = diff_json("base")
    assert (code, doc["new"], doc["notes"]) == (0, [], [])
    (repo / ".gitignore").write_text(".venv/\n")
    code, doc = diff_json("base")
    assert (code, sorted({f["path"] for f in doc["new"]})) == (1, ["app/.cache/job.yaml"])


#: /work/attack8/hid (attacker trial 8, F5): a chart whose privileged PreSync Job is behind
#: ``.Values.migrate.enabled`` (default false), and an Application of this repository that turns it on.
CHART = {
    "chart/Chart.yaml": "apiVersion: v2\nname: chart\nversion: 0.1.0\n",
    "chart/values.yaml": "migrate:\n  enabled: false\n",
    "chart/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata: {a: b}\n",
    "deploy/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n",
}
HOOK = """{{- if .Values.migrate.enabled }}
apiVersion: batch/v1
kind: Job
metadata:
  name: pwn
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 0
  activeDeadlineSeconds: 60
  template:
    spec:
      serviceAccountName: ops
      automountServiceAccountToken: false
      hostPID: true
      hostNetwork: true
      containers:
      - name: x
        image: ghcr.io/acme/tool:1.0
        securityContext: {privileged: true}
      restartPolicy: Never
{{- end }}
"""
SHOP = """apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: shop, namespace: argocd}
spec:
  project: shop
  source:
    repoURL: https://github.com/acme/deploy.git
    path: chart
    helm: {valuesObject: {migrate: {enabled: true}}}
  destination: {server: https://kubernetes.default.svc, namespace: shop}
"""
PRIVILEGED = "a PreSync hook runs on every sync and then controls the node, not just its pod. Remove it, or do this work outside the cluster's workloads."
HOOK_FOUND = [("chart/templates/hook.yaml", 2, "HL105"), ("chart/templates/hook.yaml", 16, "HL105"),
              ("chart/templates/hook.yaml", 17, "HL105")]


def test_hid_an_application_the_change_adds_in_a_hidden_folder_joins_the_map(repo):
    """/work/attack8/hid (F5): the change adds the chart's hook behind ``migrate.enabled`` and, in the
    hidden folder deploy/.argocd/, an Application of this repository that renders the chart with
    ``migrate.enabled: true`` (a recursive Application elsewhere applies it). Was: the Application
    "linted as if its hidden folder were named" as an object only, the chart rendered with its
    defaults: 0 new findings, exit 0 (``hooklint lint deploy/.argocd chart`` gives the 3 HL105)."""
    commit(repo, "base", CHART)
    commit(repo, "head", {"chart/templates/hook.yaml": HOOK, "deploy/.argocd/shop.yaml": SHOP})
    code, out, err = diff("base", "--head", "head")
    said = note("deploy/.argocd/shop.yaml", "adds").replace("app/.hooks", "deploy/.argocd").replace("app/", "deploy/")
    assert (code, out) == (1, f"""hooklint diff base -> head: 3 new findings, 0 fixed, 0 unchanged; plan changes in 2 applications

New findings:
  chart/templates/hook.yaml:2:1: error HL105 hook-privileged-pod: The container 'x' of Job/pwn is privileged: {PRIVILEGED}
  chart/templates/hook.yaml:16:7: error HL105 hook-privileged-pod: Job/pwn sets hostPID: true: {PRIVILEGED}
  chart/templates/hook.yaml:17:7: error HL105 hook-privileged-pod: Job/pwn sets hostNetwork: true: {PRIVILEGED}

Plan of chart:
  added    Job/shop/pwn: PreSync wave 0
  added    ConfigMap/shop/cm: Sync wave 0
  removed  ConfigMap/cm

Plan of deploy/.argocd:
  added    Application/argocd/shop: Sync wave 0

Notes:
  {said}
""")
    assert err == f"hooklint: note: {said}\n"
    code, doc = diff_json("base", "--head", "head")
    assert (code, sorted((f["path"], f["line"], f["rule_id"]) for f in doc["new"])) == (1, HOOK_FOUND)


def test_an_edited_hidden_application_joins_the_map_too(repo):
    """The Application was in the base without the values; the change edits it to turn the hook on."""
    commit(repo, "base", {**CHART, "chart/templates/hook.yaml": HOOK,
                          "deploy/.argocd/shop.yaml": SHOP.replace("    helm: {valuesObject: {migrate: {enabled: true}}}\n", "")})
    commit(repo, "head", {"deploy/.argocd/shop.yaml": SHOP})
    code, doc = diff_json("base", "--head", "head")
    assert (code, sorted((f["path"], f["line"], f["rule_id"]) for f in doc["new"])) == (1, HOOK_FOUND)


def test_an_unchanged_hidden_application_stays_as_today(repo):
    """The base already holds the hidden Application (listed as not linted, not in the map, as ``lint``
    has it): a change elsewhere neither maps it nor says anything of it."""
    commit(repo, "base", {**CHART, "chart/templates/hook.yaml": HOOK, "deploy/.argocd/shop.yaml": SHOP})
    commit(repo, "other", {"deploy/cm.yaml": CHART["deploy/cm.yaml"].replace("a: b", "a: c")})
    code, out, err = diff("base", "--head", "other")
    assert (code, out, err) == (0, "hooklint diff base -> other: 0 new findings, 0 fixed, 0 unchanged; no plan "
                                   "change\n", "")


ROOT = """apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: root, namespace: argocd}
spec:
  project: apps
  destination: {namespace: argocd, server: https://kubernetes.default.svc}
  source: {repoURL: https://github.com/acme/deploy.git, SOURCE}
"""


@pytest.mark.parametrize("source, mapped", [
    ("path: deploy, directory: {recurse: true}", True),  # Argo CD applies deploy/.argocd/shop.yaml
    ("path: deploy/.argocd", True),  # a hidden source folder: its files are applied
    ("path: deploy", False),  # no recurse: subfolders are not read, hidden or not
    (None, False),  # no Application reads it: listed as not linted, as today
])
def test_lint_maps_a_hidden_application_an_application_of_the_repository_applies(repo, source, mapped):
    """``lint``: an Application written in a hidden folder joins the map when Argo CD applies it, that
    is when a directory Application of this repository reads that folder (its path, or a folder above
    with ``directory.recurse``: ``getPotentiallyValidManifests`` prunes no hidden folder), as the file
    itself is then linted; otherwise the folder is listed as not linted (name it to lint it, and its
    Applications join the map). Was: the file linted, the chart rendered with its defaults (exit 0)."""
    from typer.testing import CliRunner

    from hooklint.cli import app

    files = {**CHART, "chart/templates/hook.yaml": HOOK, "deploy/.argocd/shop.yaml": SHOP}
    if source is not None:
        files["apps/root.yaml"] = ROOT.replace("SOURCE", source)
    commit(repo, "base", files)
    result = CliRunner().invoke(app, ["lint", "-f", "json", "--no-cache", "."])
    report = json.loads(result.stdout)
    found = sorted((f["path"], f["line"], f["rule_id"]) for f in report["findings"] if f["rule_id"] == "HL105")
    skipped = [{"path": "deploy/.argocd/shop.yaml", "reason": HIDDEN.replace("app/.hooks", "deploy/.argocd").replace("app/", "deploy/")}]
    assert (result.exit_code, found, report["skipped"]) == ((1, HOOK_FOUND, []) if mapped else (0, [], skipped))


def test_an_applicationset_the_change_adds_in_a_hidden_folder_joins_the_map(repo):
    """The same with an ApplicationSet (a list generator) generating that Application."""
    appset = ("apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: shop, namespace: argocd}\n"
              "spec:\n  generators:\n  - list:\n      elements:\n      - name: shop\n  template:\n"
              "    metadata: {name: '{{name}}'}\n    spec:\n"
              + "".join("    " + line + "\n" for line in SHOP.split("spec:\n", 1)[1].splitlines()))
    commit(repo, "base", CHART)
    commit(repo, "head", {"chart/templates/hook.yaml": HOOK, "deploy/.argocd/set.yaml": appset})
    code, doc = diff_json("base", "--head", "head")
    assert (code, sorted((f["path"], f["line"], f["rule_id"]) for f in doc["new"])) == (1, HOOK_FOUND)
