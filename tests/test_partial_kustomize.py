"""Issue 22 (never blind), the kustomize half: a kustomization with entries that need the network
(remote bases, ``helmCharts``) is rendered without them on hooklint's copy and every object of the
rest is checked, at its exact place in the user's files; each left-out entry is HL009 where it is
written; plans say ``rendered: full | partial | none``; Component folders render on their own;
``fail-on-unrendered`` makes HL009 fail the run. kustomize is never handed a URL, and no test
opens a connection (no entry is ever fetched: they are removed before kustomize runs)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import write
from hooklint.cli import app
from hooklint.sources import bounded
from hooklint.sources.render.kustomize import find_kustomize

needs_kustomize = pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")
runner = CliRunner()

REMOTE = "https://github.com/acme/platform//deploy?ref=v1"

#: A PreSync hook Job with three findings of its own: a mutable tag (HL102, line 13 col 16), the
#: default ServiceAccount (HL103/HL104 at spec.template.spec, line 9), no backoffLimit (HL201) and
#: no activeDeadlineSeconds (HL202), both at line 7 (spec).
HOOK = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: migrate
        image: busybox
"""

HL009_REMOTE = (
    "warning HL009 source-not-rendered: resources entry '{entry}' is remote and needs the network; {hint}. Argo CD "
    "fetches it when it renders the application. hooklint left it out, so the objects it adds, possibly hooks, were "
    "not checked{dropped}; the rest of the application was."
)
GITHUB_HINT = ("hooklint fetches it only with `--fetch`: run with `--fetch` and list github.com in `fetch-hosts` (or "
               "give `--fetch-host github.com`) to check it, or vendor the base into the repository")
SSH_HINT = ("hooklint never fetches an ssh Git remote: ssh signs in with the keys, agent and configuration of the "
            "machine it runs on, and the fetch step takes no credentials from the environment: vendor the base into "
            "the repository")


@pytest.fixture(autouse=True)
def repo(tmp_path, monkeypatch):
    """The current directory is a git repository with its own render cache."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / ".cache"))
    (tmp_path / ".git").mkdir()
    return tmp_path


@pytest.fixture
def handed(monkeypatch):
    """The text of every file hooklint's temporary folder holds (the copy, a Component's wrapper)
    each time kustomize runs."""
    texts: list[str] = []
    real = bounded.run

    def run(argv, *args, **kwargs):
        for folder, _, names in os.walk(os.path.dirname(kwargs["cwd"])):
            texts.extend(Path(folder, n).read_text() for n in names if os.path.isfile(Path(folder, n)))
        return real(argv, *args, **kwargs)

    monkeypatch.setattr(bounded, "run", run)
    return texts


def lines(result) -> list[str]:
    """The findings of a text report, as ``path:line:col: severity rule``."""
    return [line.split(" ", 3)[0] + " " + line.split(" ", 3)[2] for line in result.output.splitlines()
            if re.match(r"\S+:\d+:\d+: ", line)]


def hook_findings(path: str) -> list[str]:
    return [f"{path}:13:16: HL102", f"{path}:7:1: HL201", f"{path}:7:1: HL202", f"{path}:9:5: HL103",
            f"{path}:9:5: HL104"]  # fmt: skip


def ordered(found: list[str]) -> list[str]:
    return sorted(found, key=lambda s: (s.split(":")[0], int(s.split(":")[1]), int(s.split(":")[2].split()[0]), s))


@needs_kustomize
def test_a_local_presync_job_beside_a_remote_base_is_checked(repo, handed):
    write(repo, {"app/kustomization.yaml": f"resources:\n- job.yaml\n- {REMOTE}\n", "app/job.yaml": HOOK})
    result = runner.invoke(app, ["lint", "app"])
    assert result.exit_code == 1
    assert lines(result) == ordered(["app/kustomization.yaml:3:3: HL009", *hook_findings("app/job.yaml")])
    assert f"app/kustomization.yaml:3:3: {HL009_REMOTE.format(entry=REMOTE, dropped='', hint=GITHUB_HINT)}" in result.output.splitlines()
    assert handed and not any("github.com" in text for text in handed)
    plan = json.loads(runner.invoke(app, ["plan", "-f", "json", "app"]).output)["applications"][0]
    assert (plan["rendered"], plan["rendered_reasons"]) == ("partial", [
        f"app/kustomization.yaml:3:3: resources entry '{REMOTE}' is remote and needs the network"])
    assert [t["name"] for s in plan["steps"] for t in s["tasks"]] == ["migrate"]


@needs_kustomize
def test_three_levels_down_the_hl009_is_on_the_entry_where_it_is_written(repo, handed):
    entry = "git@github.com:acme/platform.git//hooks?ref=v2"
    write(repo, {
        "overlays/prod/kustomization.yaml": "resources:\n- ../../mid\nnamePrefix: prod-\n",
        "mid/kustomization.yaml": "resources:\n- ../base\n",
        "base/kustomization.yaml": "resources:\n- ../hooks\n",
        "hooks/kustomization.yaml": f"# hooks of the platform\nresources:\n- job.yaml\n-   {entry}\n",
        "hooks/job.yaml": HOOK,
    })  # fmt: skip
    result = runner.invoke(app, ["lint", "overlays/prod"])
    assert result.exit_code == 1
    assert lines(result) == ordered(["hooks/kustomization.yaml:4:5: HL009", *hook_findings("hooks/job.yaml")])
    assert f"hooks/kustomization.yaml:4:5: {HL009_REMOTE.format(entry=entry, dropped='', hint=SSH_HINT)}" in result.output
    assert "Job/prod-migrate" in result.output  # the overlay's prefix applied: the object Argo CD syncs
    assert handed and not any(entry in text for text in handed)
    text = runner.invoke(app, ["plan", "overlays/prod"]).output.splitlines()
    assert text[1:3] == [
        "  rendered: partial: hooklint left these entries out, so what they add or change is missing:",
        f"    hooks/kustomization.yaml:4:5: resources entry '{entry}' is remote and needs the network",
    ]


@needs_kustomize
def test_a_helm_charts_entry_beside_local_resources(repo, handed):
    write(repo, {
        "app/kustomization.yaml": "resources:\n- job.yaml\nhelmCharts:\n- name: redis\n  repo: https://charts.example.com\n"
                                  "  version: 17.0.0\n- name: minio\n  repo: oci://registry.example.com/charts\n",
        "app/job.yaml": HOOK,
    })  # fmt: skip
    result = runner.invoke(app, ["lint", "app"])
    assert result.exit_code == 1
    assert lines(result) == ordered(["app/kustomization.yaml:4:3: HL009", "app/kustomization.yaml:7:3: HL009",
                                     *hook_findings("app/job.yaml")])  # fmt: skip
    assert ("app/kustomization.yaml:7:3: warning HL009 source-not-rendered: helmCharts entry 'minio' inflates a Helm "
            "chart, which needs kustomize build --enable-helm (it runs helm and usually fetches the chart); hooklint "
            "never passes it: make the chart a Helm source of its own. Argo CD renders it when argocd-cm's "
            "kustomize.buildOptions has --enable-helm. hooklint left it out, so the chart's objects, possibly hooks, "
            "were not checked; the rest of the application was.") in result.output.splitlines()
    assert handed and not any("redis" in text or "example.com" in text for text in handed)


@needs_kustomize
@pytest.mark.parametrize("patch", [
    "patches:\n- patch: |\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata:\n      name: web\n"
    "    spec:\n      replicas: 2\n",
    "patchesStrategicMerge:\n- web-replicas.yaml\n",
    "replacements:\n- source: {kind: Deployment, name: web, fieldPath: metadata.name}\n  targets:\n"
    "  - select: {kind: Job}\n    fieldPaths: [metadata.annotations.web]\n    options: {create: true}\n",
], ids=["patches", "patchesStrategicMerge", "replacements"])  # fmt: skip
def test_a_patch_of_the_remote_bases_objects_is_dropped_with_it(repo, patch):
    """kustomize fails on a patch whose target only the remote base adds ("no matches for Id",
    "nothing selected by"): it is dropped on the copy too and the HL009 says so; the Job is checked."""
    write(repo, {
        "base/kustomization.yaml": f"resources:\n- job.yaml\n- {REMOTE}\n",
        "base/job.yaml": HOOK,
        "prod/kustomization.yaml": "resources:\n- ../base\n" + patch,
        "prod/web-replicas.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n",
    })  # fmt: skip
    result = runner.invoke(app, ["lint", "prod"])
    assert result.exit_code == 1, result.output
    assert lines(result) == ordered(["base/kustomization.yaml:3:3: HL009", *hook_findings("base/job.yaml")])
    field = patch.split(":")[0]
    dropped = (f", and the {field} entry at prod/kustomization.yaml:4:3 (it needs Deployment web) was dropped with "
               "it (no local entry adds what it needs)")  # fmt: skip
    assert f"base/kustomization.yaml:3:3: {HL009_REMOTE.format(entry=REMOTE, dropped=dropped, hint=GITHUB_HINT)}" in result.output
    assert (repo / "prod/kustomization.yaml").read_text() == "resources:\n- ../base\n" + patch  # the user's file


@needs_kustomize
@pytest.mark.parametrize(
    "field, needs",  # a secretGenerator's values are redacted, never its name (issue 34: it was [redacted])
    [("configMapGenerator", "ConfigMap settings"), ("secretGenerator", "Secret settings")],
)
@pytest.mark.parametrize("behavior", ["merge", "replace"])
def test_a_generator_that_merges_into_the_remote_bases_object_is_dropped_with_it(repo, field, needs, behavior):
    """argocd-autopilot's ``manifests/base``: Argo CD's install.yaml from a URL, and a
    ``configMapGenerator`` that merges into its ``argocd-cm``. Without the remote entry kustomize
    fails ("id ... does not exist; cannot merge or replace"): that was an HL007 where Argo CD
    renders fine; the generator is dropped with the entry, and said in its HL009."""
    write(repo, {"app/kustomization.yaml": f"resources:\n- job.yaml\n- {REMOTE}\n{field}:\n- name: settings\n"
                 f"  behavior: {behavior}\n  literals: [timeout=15s]\n", "app/job.yaml": HOOK})  # fmt: skip
    result = runner.invoke(app, ["lint", "app"])
    assert result.exit_code == 1, result.output
    assert lines(result) == ordered(["app/kustomization.yaml:3:3: HL009", *hook_findings("app/job.yaml")])
    dropped = (f", and the {field} entry at app/kustomization.yaml:5:3 (it needs {needs}) was dropped with "
               "it (no local entry adds what it needs)")  # fmt: skip
    assert f"app/kustomization.yaml:3:3: {HL009_REMOTE.format(entry=REMOTE, dropped=dropped, hint=GITHUB_HINT)}" in result.output


@needs_kustomize
def test_a_generator_that_merges_into_nothing_is_hl007_and_says_the_same_on_every_run(repo):
    """Nothing left out: the failure is the user's (HL007), and kustomize's message, which prints Go
    heap addresses (``merging from generator &{0xc000a1c750 0xc000547f00}``), is the same each run."""
    write(repo, {"app/kustomization.yaml": "resources:\n- job.yaml\nconfigMapGenerator:\n- name: settings\n"
                 "  behavior: merge\n  literals: [timeout=15s]\n", "app/job.yaml": HOOK})  # fmt: skip
    outputs = {runner.invoke(app, ["lint", "app"], env={"HOOKLINT_CACHE_DIR": "off"}).output for _ in range(2)}
    assert len(outputs) == 1
    (output,) = outputs
    assert [line.split(" ")[1] for line in output.splitlines() if re.match(r"\S+:\d+:\d+: ", line)] == ["error"]
    assert " HL007 render-failed: " in output
    assert "merging from generator &{0x… 0x…}: id resid.ResId{" in output and "0xc0" not in output


@needs_kustomize
def test_a_patch_that_misses_without_anything_left_out_is_still_hl007(repo):
    write(repo, {"app/kustomization.yaml": "resources:\n- job.yaml\npatches:\n- patch: |\n    apiVersion: apps/v1\n"
                 "    kind: Deployment\n    metadata:\n      name: web\n", "app/job.yaml": HOOK})  # fmt: skip
    result = runner.invoke(app, ["lint", "app"])
    assert [line.split(" ")[1] for line in lines(result)] == ["HL007"]
    assert "no matches for Id Deployment.v1.apps/web.[noNs]" in result.output


@needs_kustomize
def test_fail_on_unrendered_makes_hl009_fail_the_run(repo):
    write(repo, {"app/kustomization.yaml": f"resources:\n- job.yaml\n- {REMOTE}\n",
                 "app/job.yaml": HOOK.replace("image: busybox", "image: ghcr.io/acme/migrate:1.4.2")})  # fmt: skip
    assert runner.invoke(app, ["lint", "--fail-on", "error", "app"]).exit_code == 0
    (repo / ".hooklint.yaml").write_text("fail-on-unrendered: true\n")
    result = runner.invoke(app, ["lint", "--fail-on", "error", "app"])
    assert result.exit_code == 1
    (repo / ".hooklint.yaml").write_text("fail-on-unrendered: 1\n")
    bad = runner.invoke(app, ["lint", "app"])
    assert bad.exit_code == 2


@needs_kustomize
def test_plan_json_says_full_partial_or_none(repo):
    write(repo, {
        "full/kustomization.yaml": "resources:\n- job.yaml\n", "full/job.yaml": HOOK,
        "partial/kustomization.yaml": f"resources:\n- job.yaml\n- {REMOTE}\n", "partial/job.yaml": HOOK,
        "none/kustomization.yaml": "resources:\n- missing.yaml\n",
    })  # fmt: skip
    result = runner.invoke(app, ["plan", "-f", "json", "full", "partial", "none"])
    found = {a["application"]: (a["rendered"], a["rendered_reasons"]) for a in json.loads(result.output)["applications"]}
    assert found == {
        "full": ("full", []),
        "partial": ("partial", [f"partial/kustomization.yaml:3:3: resources entry '{REMOTE}' is remote and needs "
                                "the network"]),
        "none": ("none", ["none/kustomization.yaml:2:3: resources entry 'missing.yaml' names nothing: "
                          "none/missing.yaml does not exist"]),
    }  # fmt: skip
    text = runner.invoke(app, ["plan", "none"]).output.splitlines()
    assert text[1:] == [
        "  rendered: none: this is not the plan Argo CD syncs:",
        "    none/kustomization.yaml:2:3: resources entry 'missing.yaml' names nothing: none/missing.yaml does not exist",
        "  hooklint rendered nothing of it, so it cannot say what a sync applies (run hooklint lint)",
    ]


COMPONENT = (
    "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n- job.yaml\npatches:\n"
    "- patch: |\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata:\n      name: web\n    spec:\n"
    "      replicas: 2\n"
)


@needs_kustomize
@pytest.mark.parametrize("named", [["comp/"], ["comp/kustomization.yaml"], ["comp/job.yaml"]])
def test_a_component_nothing_uses_is_rendered_on_its_own(repo, named, handed):
    """Not "0 files, exit 0": the Component is built through a wrapper kustomization on the copy;
    its patch of what only its users add is left out of that rendering (HL009 on it, not HL007)."""
    write(repo, {"comp/kustomization.yaml": COMPONENT, "comp/job.yaml": HOOK})
    result = runner.invoke(app, ["lint", *named])
    assert result.exit_code == 1, result.output
    assert lines(result) == ordered(["comp/kustomization.yaml:6:3: HL009", *hook_findings("comp/job.yaml")])
    assert ("comp/kustomization.yaml:6:3: warning HL009 source-not-rendered: patches entry needs Deployment web, which "
            "this Component does not add. Argo CD applies a Component inside the kustomizations that list it under "
            "components, where its patches find their targets; hooklint rendered the Component on its own. hooklint "
            "left it out, so what it changes was not checked; the rest of the Component was.") in result.output
    assert any(text.startswith("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\ncomponents:\n- ")
               for text in handed)  # fmt: skip
    assert (repo / "comp/kustomization.yaml").read_text() == COMPONENT


@needs_kustomize
def test_a_component_a_kustomization_of_the_run_uses_is_linted_through_it(repo):
    write(repo, {
        "comp/kustomization.yaml": COMPONENT, "comp/job.yaml": HOOK,
        "app/kustomization.yaml": "resources:\n- web.yaml\ncomponents:\n- ../comp\n",
        "app/web.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n",
    })  # fmt: skip
    result = runner.invoke(app, ["lint", "--format", "json", "app", "comp"])
    found = sorted({(f["path"], f["rule_id"]) for f in json.loads(result.output)["findings"]})
    assert ("comp/job.yaml", "HL102") in found and not any(rule == "HL009" for _, rule in found)


@needs_kustomize
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_files_of_a_kustomization_that_did_not_render_are_not_listed_as_linted_through_it(repo, jobs):
    write(repo, {"comp/kustomization.yaml": COMPONENT, "comp/job.yaml": HOOK,
                 "app/kustomization.yaml": "resources:\n- missing.yaml\ncomponents:\n- ../comp\n"})  # fmt: skip
    result = runner.invoke(app, ["lint", "--format", "json", "--jobs", jobs, "."])
    why = ("a kustomize Component that app/kustomization.yaml renders: that kustomization did not render (its HL007, "
           "HL008 or HL009 says why), so it is checked nowhere")  # fmt: skip
    assert json.loads(result.output)["skipped"] == [{"path": "comp/job.yaml", "reason": why},
                                                    {"path": "comp/kustomization.yaml", "reason": why}]  # fmt: skip
    text = runner.invoke(app, ["lint", "--jobs", jobs, "."]).output
    assert "note: 2 files not linted on their own (2 read by a kustomization that did not render)" in text


@needs_kustomize
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_files_of_a_component_an_application_adds_to_a_kustomization_that_did_not_render_are_checked_nowhere(repo, jobs):
    """Before: told by searching each reason's words for the kustomization's path, a Component an
    Application adds (``kustomize.components``, whose reason names the Application) and a patch in
    a subfolder of a Component (whose reason names the Component) were both listed as "linted
    through" a rendering that failed. Now each reason carries the kustomization as data, and a
    Component's own kustomization leads to the one that renders it."""
    application = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: staging\nspec:\n"
                   "  project: shop\n  destination:\n    namespace: staging\n  source:\n"
                   "    repoURL: https://github.com/acme/shop.git\n    path: app\n    kustomize:\n"
                   "      components:\n      - ../comp\n")  # fmt: skip
    (repo / ".git/config").write_text('[remote "origin"]\n\turl = git@github.com:acme/shop.git\n')
    component = "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n- job.yaml\npatches:\n- path: sub/web.yaml\n"
    web = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n"
    write(repo, {"comp/kustomization.yaml": component, "comp/job.yaml": HOOK, "comp/sub/web.yaml": web,
                 "app/kustomization.yaml": "resources:\n- missing.yaml\n", "apps/apps.yaml": application})  # fmt: skip
    result = runner.invoke(app, ["lint", "--format", "json", "--jobs", jobs, "."])
    nowhere = "that kustomization did not render (its HL007, HL008 or HL009 says why), so it is checked nowhere"
    added = f"a kustomize Component that Application staging (apps/apps.yaml:10) adds (spec.source.kustomize.components): {nowhere}"
    assert json.loads(result.output)["skipped"] == [
        {"path": "comp/job.yaml", "reason": added},
        {"path": "comp/kustomization.yaml", "reason": added},
        {"path": "comp/sub/web.yaml", "reason": f"comp/kustomization.yaml reads it (patches): {nowhere}"},
    ]  # fmt: skip
    text = runner.invoke(app, ["lint", "--jobs", jobs, "."]).output
    assert "note: 3 files not linted on their own (3 read by a kustomization that did not render)" in text


@needs_kustomize
def test_plan_of_a_partial_rendering_with_no_local_object_never_says_nothing_is_applied(repo):
    write(repo, {"remote/kustomization.yaml": f"resources:\n- {REMOTE}\n"})
    text = runner.invoke(app, ["plan", "remote"]).output.splitlines()
    assert text[-1] == "  no object of the part hooklint rendered is applied during a sync"
    markdown = runner.invoke(app, ["lint", "-f", "markdown", "remote"]).output
    assert '  empty["no object of the part hooklint rendered is applied during a sync"]' in markdown
    # GitHub links no URL, nor makes an emoji of ":2:" (":100:" is one; test_markdown_text.py)
    shown = REMOTE.replace("://", ":&#8203;//")
    assert f"| `remote` | partial | remote/kustomization.yaml:&#8203;2:&#8203;3: resources entry '{shown}' is remote " \
           "and needs the " \
           "network |" in markdown  # fmt: skip


HOOK_ONLY = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: wait-for-prereqs
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 300
  template:
    spec:
      serviceAccountName: wait
      automountServiceAccountToken: false
      restartPolicy: Never
      containers:
      - name: wait
        image: ghcr.io/acme/wait:latest
"""


@needs_kustomize
def test_a_component_nothing_uses_gets_no_application_level_finding(tmp_path, monkeypatch):
    """newuser8 (ai-accelerator wait-for-prereqs): a hooks-only Component that nothing uses is
    rendered on its own, but no Argo CD application syncs it alone (kustomize builds it into the
    kustomizations that list it, with their resources): HL305's "Argo CD shows the application
    Synced" is no statement about it. Its objects' own rules still hold (HL102); the same hooks in a
    Kustomization (an application) still get HL305."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    write(tmp_path, {"wait/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
                                                "resources:\n- job.yaml\n",
                     "wait/job.yaml": HOOK_ONLY,
                     "app/kustomization.yaml": "resources:\n- job.yaml\n", "app/job.yaml": HOOK_ONLY})
    result = runner.invoke(app, ["lint", "--format", "concise", "."])
    assert result.output.splitlines()[:3] == [
        "app/job.yaml:6:30: HL305 Every object of this application is a hook (1 hook run during a sync, no plain "
        "resource)",
        "app/job.yaml:17:16: HL102 Image 'ghcr.io/acme/wait:latest' of container 'wait' of Job/wait-for-prereqs uses "
        "the mutable tag ':latest'",
        "wait/job.yaml:17:16: HL102 Image 'ghcr.io/acme/wait:latest' of container 'wait' of Job/wait-for-prereqs uses "
        "the mutable tag ':latest'"]
    assert result.exit_code == 1
