"""A new user's first run from the README (helper ``ux``): the bare command's help, HL310's
sentence in each case, HL015 on the test Pod of every ``helm create`` chart, a README named
beside a manifest, the current configuration key in ``explain``, suggestions for unknown rule
names and option values, and HL301's "on the first sync"."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hooklint.catalog import load_catalog
from hooklint.cli import app, app_for
from hooklint.pipeline import lint_text

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]


def found(rule: str, text: str) -> list[tuple[int, int, str, str]]:
    return [(f.span.line, f.span.column, f.severity, f.message)
            for f in lint_text(textwrap.dedent(text)) if f.rule_id == rule]  # fmt: skip


# --- 1. bare hooklint -----------------------------------------------------------------------


def test_bare_hooklint_prints_the_help_as_help_does():
    """Before: the whole usage on one stderr line, each newline written ``\\n``, then ``(see hooklint
    --help)``."""
    help_text = runner.invoke(app, ["--help"]).stdout
    result = runner.invoke(app_for([]), [])
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", help_text)
    assert help_text.splitlines()[:3] == ["Usage: hooklint [OPTIONS] COMMAND [ARGS]...", "",
                                          "  Security policy linter for Argo CD resource hooks and sync waves."]  # fmt: skip
    assert "\\n" not in result.stderr


def test_a_misspelt_command_is_still_one_line():
    result = runner.invoke(app, ["lnt"])
    assert (result.exit_code, result.stderr) == (
        2, "hooklint: error: No such command 'lnt'. Did you mean 'lint'? (see hooklint --help)\n")


# --- 2. HL310 -------------------------------------------------------------------------------

HL310_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  namespace: shop
  annotations:
    argocd.argoproj.io/hook: Sync
spec:
  backoffLimit: 0
  template:
    spec:
      serviceAccountName: runner
      restartPolicy: Never
      containers:
        - name: migrate
          image: ghcr.io/acme/migrate:1.4.2
"""

HOOK = "\n  annotations:\n    argocd.argoproj.io/hook: Sync"


def rbac(binding_hook: bool, role_hook: bool, cluster_binding: bool | None = None) -> str:
    """A RoleBinding of ServiceAccount runner to Role writer (each a Sync hook or a plain
    resource), and with ``cluster_binding`` a ClusterRoleBinding of it too."""
    text = f"""\
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: writer
  namespace: shop{HOOK if role_hook else ""}
rules: [{{apiGroups: [""], resources: [configmaps], verbs: [get]}}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: runner-writer
  namespace: shop{HOOK if binding_hook else ""}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: writer}}
subjects: [{{kind: ServiceAccount, name: runner, namespace: shop}}]
"""
    if cluster_binding is not None:
        text += f"""\
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: runner-view{HOOK if cluster_binding else ""}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}}
subjects: [{{kind: ServiceAccount, name: runner, namespace: shop}}]
"""
    return text


def hl310(text: str) -> str:
    [(line, column, severity, message)] = found("HL310", text)
    assert (line, column, severity) == (12, 27, "note")
    return message


HL310_HEAD = ("Job/migrate runs as ServiceAccount runner, and {names} are applied in the same step (Sync wave 0): "
              "Argo CD creates them just before the hook (kind order), but the API server's RBAC authorizer sees a "
              "new Role or binding only once its cache has it, so the hook's first API calls can fail with Forbidden "
              "{when}. Apply them in an earlier step (a sync-wave lower than 0, or before the Sync phase).")  # fmt: skip


@pytest.mark.parametrize(("hooks", "names", "when"), [
    ((True, True, None), "RoleBinding/runner-writer and Role/writer",
     "on every sync: they are hooks too, created again with the hook each time"),
    ((False, False, None), "RoleBinding/runner-writer and Role/writer", "on the first sync"),
    ((True, False, None), "RoleBinding/runner-writer and Role/writer",
     "on every sync: RoleBinding/runner-writer is a hook too, created again with the hook each time"),
    ((True, True, False), "RoleBinding/runner-writer, Role/writer and ClusterRoleBinding/runner-view",
     "on every sync: RoleBinding/runner-writer and Role/writer are hooks too, created again with the hook each time"),
])  # fmt: skip
def test_hl310_says_when_the_hook_can_fail_in_every_case(hooks, names, when):
    """Before: ``... with Forbidden on every sync, as they are hooks created again with it.`` and
    ``... on every sync for the hooks among them.``"""
    assert hl310(HL310_JOB + rbac(*hooks)) == HL310_HEAD.format(names=names, when=when)


def test_hl310_one_hook_binding_alone():
    binding = rbac(True, False).split("---\n")[2]
    assert hl310(HL310_JOB + "---\n" + binding.replace("kind: Role, name: writer", "kind: ClusterRole, name: view")) == (
        "Job/migrate runs as ServiceAccount runner, and RoleBinding/runner-writer is applied in the same step (Sync "
        "wave 0): Argo CD creates it just before the hook (kind order), but the API server's RBAC authorizer sees a "
        "new Role or binding only once its cache has it, so the hook's first API calls can fail with Forbidden on "
        "every sync: it is a hook too, created again with the hook each time. Apply it in an earlier step (a "
        "sync-wave lower than 0, or before the Sync phase).")  # fmt: skip


# --- 3. HL015 on Helm test hooks ------------------------------------------------------------

TEST_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: api-test-connection
  annotations:
    helm.sh/hook: {events}
spec:
  restartPolicy: Never
  containers:
    - name: wget
      image: busybox:1.36
      command: [wget, "api:80"]
"""


@pytest.mark.parametrize(("events", "words"), [
    ("test", "'test'"), ("test-success", "'test-success'"), ("test-failure", "'test-failure'"),
    ("test-success,test-failure", "'test-success', 'test-failure'"),
])  # fmt: skip
def test_hl015_a_helm_test_hook_is_a_note_saying_argocd_never_runs_it(events, words):
    """gitops-engine ``pkg/sync/hook/helm/type.go`` maps no test event; docs ``user-guide/helm.md``
    "Helm Hooks": test-success and test-failure "Not supported" (v3.5.1). Before: a warning telling to
    "Use a hook event Argo CD runs"."""
    assert found("HL015", TEST_POD.format(events=events)) == [(6, 19, "note", (
        f"helm.sh/hook {words} on Pod/api-test-connection marks a Helm test: Argo CD never creates it as part of a "
        "sync (it maps no test event to a hook type) and does not run `helm test`, so the test never runs under "
        "Argo CD. To run it after each sync, add argocd.argoproj.io/hook: PostSync; else run `helm test` outside "
        "Argo CD."))]  # fmt: skip


def test_hl015_other_ignored_events_stay_warnings():
    assert found("HL015", TEST_POD.format(events="pre-rollback")) == [(6, 19, "warning", (
        "helm.sh/hook on Pod/api-test-connection: Argo CD never runs 'pre-rollback' (it maps only pre/post-install "
        "and -upgrade to PreSync/PostSync, and pre/post-delete to deletion hooks); the object is a hook with no type "
        "Argo CD knows, so it is never applied. Use a hook event Argo CD runs, or an argocd.argoproj.io/hook "
        "annotation."))]  # fmt: skip
    assert found("HL015", TEST_POD.format(events="test,pre-rollback"))[0][2] == "warning"
    assert found("HL015", TEST_POD.format(events="post-install,test"))[0][2] == "warning"


def test_readme_names_hl015_among_the_rules_that_lower_a_severity():
    readme = (ROOT / "README.md").read_text()
    assert "Five rules give some findings a lower one" in readme
    assert "HL015 a note for a Helm test hook" in readme


# --- 4. a file that is no manifest beside one -------------------------------------------------

NOT_A_MANIFEST = ("not a YAML or JSON file (hooklint lints *.yaml, *.yml and *.json manifests); name the manifests "
                  "or their folder")  # fmt: skip


@pytest.fixture
def smoke(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad/smoke-test.yaml").write_text(TEST_POD.format(events="test"))
    (tmp_path / "README.md").write_text("# app\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    return tmp_path


def test_a_readme_named_beside_a_manifest_is_an_input_error_for_it_alone(smoke):
    """Before: exit 2 and nothing linted; as for a missing file, the rest is linted and reported."""
    result = runner.invoke(app, ["lint", "-f", "concise", "bad/smoke-test.yaml", "README.md"])
    assert (result.exit_code, result.stderr) == (2, f"hooklint: error: README.md: {NOT_A_MANIFEST}\n")
    assert result.stdout.splitlines()[0].startswith("bad/smoke-test.yaml:6:19: HL015 helm.sh/hook 'test' on ")
    assert "0 errors, 0 warnings, 1 note in 1 file" in result.stdout.splitlines()
    missing = runner.invoke(app, ["lint", "-f", "concise", "bad/smoke-test.yaml", "gone.yaml"])
    assert (missing.exit_code, missing.stdout) == (2, result.stdout)


def test_the_json_report_lists_it_with_the_other_input_errors(smoke):
    result = runner.invoke(app, ["lint", "-f", "json", "README.md", "bad", "gone.yaml"])
    doc = json.loads(result.stdout)
    assert result.exit_code == 2
    assert doc["errors"] == [{"path": "README.md", "message": NOT_A_MANIFEST},
                             {"path": "gone.yaml", "message": "no such file or directory"}]  # fmt: skip
    assert [f["rule_id"] for f in doc["findings"]] == ["HL015"]


def test_only_files_that_are_no_manifests_still_lint_nothing(smoke):
    result = runner.invoke(app, ["lint", "README.md"])
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"hooklint: error: README.md: {NOT_A_MANIFEST}\n")


def test_readme_exit_codes_name_a_file_that_is_no_manifest():
    assert ("a folder argument holding no `*.yaml`, `*.yml` or `*.json` file at all, a file argument that is none of "
            "them (named on stderr, one line each; the other inputs are still linted)") in (ROOT / "README.md").read_text()


# --- 5. explain and option values -----------------------------------------------------------


def test_rule_docs_name_the_current_workload_scope_key():
    """``init`` writes ``workload-scope``; ``check-all-workloads`` is its deprecated spelling."""
    result = runner.invoke(app, ["explain", "HL201"])
    assert "With `workload-scope: all` the rule also checks non-hook Jobs." in result.stdout
    assert [r.id for r in load_catalog().sorted() if "check-all-workloads" in Path(r.file).read_text()] == []


@pytest.mark.parametrize(("name", "hint"), [
    ("fixed-name", "did you mean 'hook-fixed-name-collision' or 'plain-job-fixed-name'?"),
    ("Fixed Name", "did you mean 'hook-fixed-name-collision' or 'plain-job-fixed-name'?"),
    ("hook-image-mutabel-tag", "did you mean 'hook-image-mutable-tag'?"),
])  # fmt: skip
def test_explain_suggests_every_slug_holding_the_words(name, hint):
    result = runner.invoke(app, ["explain", name])
    assert (result.exit_code, result.stderr) == (
        2, f"hooklint: error: unknown rule {name!r}; {hint} ('hooklint rules' lists them)\n")


def test_explain_suggests_six_slugs_at_most():
    result = runner.invoke(app, ["explain", "hook"])
    holding = [r.slug for r in load_catalog().sorted() if "hook" in r.slug.split("-")]
    assert len(holding) > 6
    assert result.stderr == ("hooklint: error: unknown rule 'hook'; did you mean "
                             + ", ".join(repr(s) for s in holding[:6])
                             + f" or one of {len(holding) - 6} more? ('hooklint rules' lists them)\n")


@pytest.mark.parametrize(("args", "message"), [
    (["--fail-on", "warnings"], "Invalid value for '--fail-on': 'warnings' is not one of 'error', 'warning', 'note', "
                                "'never'; did you mean 'warning'? (see hooklint lint --help)"),
    (["-f", "jsn"], "Invalid value for '--format' / '-f' / '--output-format': 'jsn' is not one of 'text', 'concise', "
                    "'json', 'sarif', 'github', 'gitlab', 'markdown'; did you mean 'json'? (see hooklint lint --help)"),
    (["--fail-on", "xyz"], "Invalid value for '--fail-on': 'xyz' is not one of 'error', 'warning', 'note', 'never' "
                           "(see hooklint lint --help)"),
])  # fmt: skip
def test_a_bad_option_value_gets_a_did_you_mean(smoke, args, message):
    result = runner.invoke(app_for(["lint"]), ["lint", *args, "bad"])
    assert (result.exit_code, result.stderr) == (2, f"hooklint: error: {message}\n")


# --- 6. HL301: on the first sync --------------------------------------------------------------

HL301_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  backoffLimit: 0
  template:
    spec:
      serviceAccountName: migrator
      restartPolicy: Never
      containers:
        - name: migrate
          image: ghcr.io/acme/migrate:1.4.2
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: migrator
"""


def test_hl301_says_the_step_never_completes_on_the_first_sync():
    """A plain ServiceAccount is in the cluster from the sync that first applied it. Before: "so the
    step never completes." (``explain HL301``: "on the first sync")."""
    assert found("HL301", HL301_JOB) == [(11, 27, "error", (
        "Job/migrate (PreSync wave 0) uses ServiceAccount/migrator (serviceAccountName), which Argo CD applies only "
        "in a later step (Sync wave 0): its pods are rejected (serviceaccount \"migrator\" not found), so the step "
        "never completes on the first sync. Apply ServiceAccount/migrator in PreSync wave 0 or earlier (for a "
        "PreSync hook: make it a PreSync hook with a sync-wave of 0 or lower), or move Job/migrate to a later "
        "step."))]  # fmt: skip


def test_hl301_a_hook_deleted_once_it_succeeds_is_missing_on_every_sync():
    text = HL301_JOB + ("  annotations:\n    argocd.argoproj.io/hook: PostSync\n"
                        "    argocd.argoproj.io/hook-delete-policy: HookSucceeded\n")  # fmt: skip
    [(_, _, _, message)] = found("HL301", text)
    assert "(serviceaccount \"migrator\" not found), so the step never completes. Apply" in message
