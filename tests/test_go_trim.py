"""Values trimmed as Go trims them (issue 32, attack 10 items 1, 3 and 4): a parser differential
between Python's ``str.strip()`` and Go's ``strings.TrimSpace``, and fasttemplate's tags.

Go's ``strings.TrimSpace`` trims what ``unicode.IsSpace`` calls space; Python's ``str.strip()`` also
trims U+001C-U+001F. gitops-engine's ``GetAnnotationCSVs`` (``pkg/sync/resource/annotations.go``)
trims hook types with Go's, so ``argocd.argoproj.io/hook: "\\x1cSkip"`` is no ``Skip``: with
``helm.sh/hook: pre-install`` the object is a PreSync hook (``hook.go`` ``Types()`` falls back to
Helm's types), which hooklint read as never applied. The ApplicationSet controller's fasttemplate
(``applicationset/utils/utils.go`` ``Replace``, v3.5.1) looks a tag up after Go's trim, so
``{{\\x1cfolder}}`` stays as written, and templates a string only when ``.*{{.*}}.*`` matches it
(Go's ``.`` never matches a line break), so ``apps/{{\\nfolder}}/tools`` stays as written too:
Argo CD deploys the folder literally so named, which hooklint read as ``apps/benign/tools``.
An Application's ``spec.source.path`` (``util/app/path/path.go`` ``Path``) and its
``spec.syncPolicy.syncOptions`` (``SyncOptions.HasOption``) are never trimmed at all.

The inputs are written from scratch after the attacker's fixtures; every test here failed before
the fix."""

from __future__ import annotations

import json
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from conftest import git, write
from hooklint.cli import app
from hooklint.sources.appmap.applicationsets import Unexpanded, fast_replace
from hooklint.sources.render.helm import find_helm
from hooklint.text import GO_SPACE, go_to_lower, go_trim_space

runner = CliRunner()
needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")

#: Go's ``unicode.IsSpace`` as ``src/unicode/graphic.go`` defines it: these eight in Latin-1, and
#: the ``White_Space`` property (``src/unicode/tables.go``) above it. Written out here, not taken
#: from hooklint.
GO_IS_SPACE = {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028,
               0x2029, 0x202F, 0x205F, 0x3000}  # fmt: skip


# --- the trim itself --------------------------------------------------------------------------


def test_go_space_is_exactly_gos_white_space():
    assert {ord(c) for c in GO_SPACE} == GO_IS_SPACE
    assert len(GO_SPACE) == len(GO_IS_SPACE) == 25


def test_every_code_point_is_trimmed_as_go_trims_it():
    """All 1,114,112 code points, each at both ends of a word: trimmed exactly when Go's
    ``unicode.IsSpace`` says so; ``str.strip()`` trims four more (U+001C-U+001F)."""
    python_only = []
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        text = f"{char}{char}Skip{char}"
        assert go_trim_space(text) == ("Skip" if code in GO_IS_SPACE else text), hex(code)
        if text.strip() != go_trim_space(text):
            python_only.append(code)
    assert python_only == [0x1C, 0x1D, 0x1E, 0x1F]


@given(st.text(alphabet=st.sampled_from(sorted(map(chr, GO_IS_SPACE | {0x1C, 0x1D, 0x1E, 0x1F, 0x41, 0x2C})))))
def test_the_trim_removes_only_go_space_and_only_at_the_edges(text):
    trimmed = go_trim_space(text)
    start = text.index(trimmed) if trimmed else len(text)
    assert text[start : start + len(trimmed)] == trimmed
    assert all(ord(c) in GO_IS_SPACE for c in text[:start] + text[start + len(trimmed):])
    assert not trimmed or (ord(trimmed[0]) not in GO_IS_SPACE and ord(trimmed[-1]) not in GO_IS_SPACE)


@pytest.mark.parametrize("text, lower", [
    ("PRE-INSTALL", "pre-install"),
    ("pre-\u0130nstall", "pre-install"),  # Go's unicode.ToLower(U+0130) is 'i'; Python's lower() adds U+0307
    ("\u212a", "k"),  # the Kelvin sign
    ("\u039f\u03a3", "\u03bf\u03c3"),  # no final sigma in Go
])  # fmt: skip
def test_lower_case_as_go_writes_it(text, lower):
    assert go_to_lower(text) == lower


# --- item 1: hook types ------------------------------------------------------------------------

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: node-debug
  annotations:
    argocd.argoproj.io/hook: "{hook}"
    helm.sh/hook: pre-install,pre-upgrade
spec:
  restartPolicy: Never
  activeDeadlineSeconds: 60
  automountServiceAccountToken: false
  serviceAccountName: runner
  hostPID: true
  containers:
  - name: c
    image: registry.example.com/x@sha256:1111111111111111111111111111111111111111111111111111111111111111
    securityContext:
      privileged: true
"""


def lint_json(*args: str) -> tuple[int, list[tuple]]:
    result = runner.invoke(app, ["lint", "--format", "json", *args])
    findings = json.loads(result.stdout)["findings"]
    return result.exit_code, [(f["path"], f["line"], f["column"], f["rule_id"], f["message"]) for f in findings]


def plan_tasks(*args: str) -> list[tuple]:
    result = runner.invoke(app, ["plan", "--format", "json", *args])
    assert result.exit_code == 0, result.output
    return [(a["application"], s["phase"], t["kind"], t["name"])
            for a in json.loads(result.stdout)["applications"] for s in a["steps"] for t in s["tasks"]]  # fmt: skip


PRIVILEGED = [
    ("hook.yaml", 13, 12, "HL105", "Pod/node-debug sets hostPID: true: a PreSync hook runs on every sync and then "
     "controls the node, not just its pod. Remove it, or do this work outside the cluster's workloads."),
    ("hook.yaml", 18, 19, "HL105", "The container 'c' of Pod/node-debug is privileged: a PreSync hook runs on every "
     "sync and then controls the node, not just its pod. Remove it, or do this work outside the cluster's workloads."),
]  # fmt: skip


@pytest.mark.parametrize("written, char", [
    ("\\x1cSkip", "U+001C"), ("\\x1dSkip", "U+001D"), ("Skip\\x1e", "U+001E"), ("\\x1f Skip", "U+001F"),
])  # fmt: skip
def test_a_skip_go_does_not_trim_to_skip_is_a_presync_hook_to_argo_cd(tmp_path, monkeypatch, written, char):
    """``GetAnnotationCSVs`` keeps U+001C-U+001F: no valid Argo CD type, so ``Types()`` takes
    ``helm.sh/hook``'s PreSync; the privileged Pod runs on every sync (HL105), and HL010 says why."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"hook.yaml": POD.format(hook=written)})
    code, findings = lint_json("hook.yaml")
    assert code == 1
    assert findings == [
        ("hook.yaml", 6, 30, "HL010", f"Unknown hook type '{written}' on Pod/node-debug: Argo CD trims only white "
         f"space around a hook type (Go's strings.TrimSpace), not {char}, and with no valid Argo CD type left, Argo "
         "CD falls back to helm.sh/hook and runs Pod/node-debug as a PreSync hook. Did you mean 'Skip'?"),
        ("hook.yaml", 6, 30, "HL305", "Every object of this application is a hook (1 hook run during a sync, no plain "
         "resource): hooks do not count toward sync status, so Argo CD shows the application Synced and auto-sync "
         "has no reason to start a sync. Add at least one plain resource (a ConfigMap is enough), or run the hooks "
         "from an application that has resources."),
        *PRIVILEGED,
    ]  # fmt: skip
    assert plan_tasks("hook.yaml") == [(".", "PreSync", "Pod", "node-debug")]


@pytest.mark.parametrize("written", ["\\u3000Skip", "Skip\\u2029", "\\x85Skip\\t", "\\u00a0Skip\\u205f"])
def test_a_skip_go_trims_to_skip_is_never_applied(tmp_path, monkeypatch, written):
    """The control: Go's own white space is trimmed, so the object is skipped (HL016, no HL105)."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"hook.yaml": POD.format(hook=written)})
    code, findings = lint_json("hook.yaml")
    assert [f[3] for f in findings] == ["HL016"]
    assert plan_tasks("hook.yaml") == []


def test_a_delete_policy_go_does_not_trim_is_unknown(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pod = POD.format(hook="PreSync").replace("    helm.sh/hook: pre-install,pre-upgrade\n",
                                             '    argocd.argoproj.io/hook-delete-policy: "HookSucceeded\\x1c"\n')
    write(tmp_path, {"hook.yaml": pod})
    code, findings = lint_json("hook.yaml")
    assert [f for f in findings if f[3] == "HL011"] == [
        ("hook.yaml", 7, 44, "HL011", "Unknown delete policy 'HookSucceeded\\x1c' in argocd.argoproj.io/hook-delete-policy "
         "on Pod/node-debug: Argo CD ignores it silently (it trims only white space around an item, not U+001C), so "
         "the effective policies are BeforeHookCreation. Did you mean 'HookSucceeded'?"),
    ]  # fmt: skip


def test_diff_reports_the_presync_hook_a_suppressed_skip_warning_hid(tmp_path, monkeypatch):
    """The attacker's review: the pull request adds the Pod with an ignore comment for HL016
    (which no longer fires); the hook is new and privileged: exit 1, never "0 new findings"."""
    repo = tmp_path / "repo"
    monkeypatch.chdir(tmp_path)
    write(repo, {"app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: b\n",
                 ".hooklint.yaml": "fail-on: warning\n"})  # fmt: skip
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "ci@example.com")
    git(repo, "config", "user.name", "ci")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    pod = POD.format(hook="\\x1cSkip").replace(
        "  annotations:\n", "  annotations:\n    # hooklint: ignore[HL016] skipped by Argo CD, for plain helm installs\n")
    write(repo, {"app/pod.yaml": pod})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "head")
    monkeypatch.chdir(repo)
    result = runner.invoke(app, ["diff", "--format", "json", "HEAD~1", "--head", "HEAD"])
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert [(f["path"], f["line"], f["column"], f["rule_id"]) for f in doc["new"]] == [
        ("app/pod.yaml", 6, 5, "HL901"), ("app/pod.yaml", 7, 30, "HL010"),
        ("app/pod.yaml", 14, 12, "HL105"), ("app/pod.yaml", 19, 19, "HL105")]  # fmt: skip
    [change] = doc["plan_changes"]
    assert [(t["kind"], t["name"], t["hook_types"]) for t in change["added"]] == [("Pod", "node-debug", ["PreSync"])]


# --- sync options ------------------------------------------------------------------------------

APPLICATION = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: tools
  namespace: argocd
spec:
  project: tools
  source:
    repoURL: https://github.com/acme/deploy.git
    targetRevision: HEAD
    path: {path}
{helm}  destination:
    server: https://kubernetes.default.svc
    namespace: tools
  syncPolicy:
    syncOptions: [{options}]
"""


def test_sync_option_items_are_trimmed_as_argo_cd_trims_them(tmp_path, monkeypatch):
    """The annotation's items through ``GetAnnotationCSVs`` (Go's trim); the Application's compared
    whole (``SyncOptions.HasOption``): each item that only Python's trim made valid is HL013."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {
        "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep\n  annotations:\n"
                   '    argocd.argoproj.io/sync-options: "Prune=false\\x1c, Delete=false\\u3000"\n',
        "app.yaml": APPLICATION.format(path="apps", helm="", options='" CreateNamespace=true", "Validate=false"'),
    })  # fmt: skip
    code, findings = lint_json("cm.yaml", "app.yaml")
    assert [f for f in findings if f[3] == "HL013"] == [
        ("app.yaml", 16, 19, "HL013", "spec.syncPolicy.syncOptions of Application/tools: ' CreateNamespace=true' is "
         "silently ignored: Argo CD compares each item of spec.syncPolicy.syncOptions whole and never trims it "
         "(SyncOptions.HasOption). Did you mean 'CreateNamespace=true'?"),
        ("cm.yaml", 6, 38, "HL013", "argocd.argoproj.io/sync-options on ConfigMap/keep: 'Prune=false\\x1c' is "
         "silently ignored: Argo CD trims the items of the annotation of white space only (Go's strings.TrimSpace), "
         "not U+001C. Did you mean 'Prune=false'?"),
    ]  # fmt: skip


# --- items 3 and 4: fasttemplate ---------------------------------------------------------------


@pytest.mark.parametrize("text, rendered", [
    ("apps/{{folder}}/tools", "apps/benign/tools"),
    ("apps/{{ folder\t}}/tools", "apps/benign/tools"),
    ("apps/{{\u3000folder\u2028}}/tools", "apps/benign/tools"),  # Go's White_Space, trimmed
    ("apps/{{\x1cfolder}}/tools", "apps/{{\x1cfolder}}/tools"),  # kept by Go's trim: no such parameter
    ("apps/{{folder\x1f}}/tools", "apps/{{folder\x1f}}/tools"),
    ("apps/{{\nfolder}}/tools", "apps/{{\nfolder}}/tools"),  # isTemplatedRegex: no {{...}} on one line
    ("apps/{{folder\n}}/tools", "apps/{{folder\n}}/tools"),
    ("{{cluster}}/{{\nfolder}}", "prod/benign"),  # one line matches: fasttemplate reads every tag
    ("{{\nfolder}}\n{{cluster}}", "benign\nprod"),
    ("{{}}/{{ }}/{{missing}}", "{{}}/{{ }}/{{missing}}"),
    ("{{{folder}}}", "{{{folder}}}"),  # the tag is "{folder"
    ("{{count}}", "{{count}}"),  # not a string parameter
    ("no tag {folder}", "no tag {folder}"),
])  # fmt: skip
def test_fasttemplate_replaces_as_the_applicationset_controller_does(text, rendered):
    assert fast_replace(text, {"folder": "benign", "cluster": "prod", "count": 3}) == rendered


def test_a_tag_without_an_end_fails_as_fasttemplate_fails():
    with pytest.raises(Unexpanded) as caught:
        fast_replace("{{cluster}}/{{folder", {"folder": "benign", "cluster": "prod"})
    assert (caught.value.kind, caught.value.message) == (
        "failed", 'invalid template: Cannot find end tag="}}" in the template="{{cluster}}/{{folder" starting '
        'from "folder"')  # fmt: skip
    assert fast_replace("{{\ncluster}}/{{folder", {}) == "{{\ncluster}}/{{folder"  # never templated


APPSET = """\
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {{name: tools, namespace: argocd}}
spec:
  generators:
  - list:
      elements:
      - cluster: prod
        folder: benign
  template:
    metadata: {{name: 'tools-{{{{cluster}}}}'}}
    spec:
      project: tools
      source:
        repoURL: https://github.com/acme/deploy.git
        targetRevision: HEAD
        path: "apps/{{{{{tag}}}}}/tools"
        helm:
          values: |
            debug: true
      destination: {{server: https://kubernetes.default.svc, namespace: tools}}
"""
CHART = {
    "Chart.yaml": "apiVersion: v2\nname: tools\nversion: 0.1.0\n",
    "values.yaml": "debug: false\n",
    "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: tools}\ndata: {a: b}\n",
}
HOOK = """\
{{- if .Values.debug }}
apiVersion: v1
kind: Pod
metadata:
  name: node-shell
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  restartPolicy: Never
  activeDeadlineSeconds: 60
  automountServiceAccountToken: false
  serviceAccountName: tools
  hostPID: true
  containers:
  - name: c
    image: registry.example.com/x@sha256:1111111111111111111111111111111111111111111111111111111111111111
{{- end }}
"""


def _tools_repository(root, folder: str, manifest: str, name: str) -> None:
    """``apps/benign/tools`` (a ConfigMap) and ``folder`` (the same chart and a privileged hook when
    ``debug``), and ``manifest`` at ``name``; ``repo-urls`` names the repository."""
    files = {f"apps/benign/tools/{k}": v for k, v in CHART.items()}
    files.update({f"{folder}/{k}": v for k, v in CHART.items()})
    files[f"{folder}/templates/hook.yaml"] = HOOK
    files[name] = manifest
    files[".hooklint.yaml"] = "repo-urls: [https://github.com/acme/deploy.git]\n"
    write(root, files)


@needs_helm
@pytest.mark.parametrize("tag, folder", [("\\x1cfolder", "apps/{{\x1cfolder}}/tools"),
                                         ("\\nfolder", "apps/{{\nfolder}}/tools")])  # fmt: skip
def test_a_tag_argo_cd_leaves_as_written_deploys_that_folder(tmp_path, monkeypatch, tag, folder):
    monkeypatch.chdir(tmp_path)
    _tools_repository(tmp_path, folder, APPSET.format(tag=tag), "argocd/set.yaml")
    code, findings = lint_json(".")
    shown = folder.replace("\x1c", "\\x1c").replace("\n", "\\n")
    assert code == 1
    assert [(f[0], f[1], f[2], f[3]) for f in findings] == [
        (f"{folder}/templates/hook.yaml", 13, 3, "HL105")]  # fmt: skip
    assert findings[0][4] == ("Pod/node-shell sets hostPID: true: a PreSync hook runs on every sync and then "
                              "controls the node, not just its pod. Remove it, or do this work outside the "
                              "cluster's workloads.")  # fmt: skip
    result = runner.invoke(app, ["plan", "--format", "json", "."])
    plans = {a["application"]: a for a in json.loads(result.stdout)["applications"]}
    assert plans[folder]["source"]["application"].startswith("Application tools-prod ")
    assert [(s["phase"], t["kind"], t["name"]) for s in plans[folder]["steps"] for t in s["tasks"]] == [
        ("PreSync", "Pod", "node-shell"), ("Sync", "ConfigMap", "tools")]
    assert plans["apps/benign/tools"]["source"]["application"] is None
    assert shown in runner.invoke(app, ["plan", "."]).stdout


@needs_helm
def test_diff_reports_the_hook_of_a_folder_named_with_a_line_break(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    write(repo, {f"apps/benign/tools/{k}": v for k, v in CHART.items()})
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "ci@example.com")
    git(repo, "config", "user.name", "ci")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    _tools_repository(repo, "apps/{{\nfolder}}/tools", APPSET.format(tag="\\nfolder"), "argocd/set.yaml")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "head")
    monkeypatch.chdir(repo)
    result = runner.invoke(app, ["diff", "--format", "json", "HEAD~1", "--head", "HEAD"])
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert [(f["path"], f["line"], f["column"], f["rule_id"]) for f in doc["new"]] == [
        ("apps/{{\nfolder}}/tools/templates/hook.yaml", 13, 3, "HL105")]


# --- an Application's path ---------------------------------------------------------------------


@needs_helm
@pytest.mark.parametrize("written, folder", [('"\\x1capps/tools"', "\x1capps/tools"),
                                             ('" apps/tools"', " apps/tools")])  # fmt: skip
def test_an_application_path_is_never_trimmed(tmp_path, monkeypatch, written, folder):
    """``Path`` (``util/app/path/path.go``) joins ``spec.source.path`` as written: the Application
    renders the folder with the edge character, with its ``debug: true``."""
    monkeypatch.chdir(tmp_path)
    helm = "    helm:\n      values: |\n        debug: true\n"
    manifest = APPLICATION.format(path=written, helm=helm, options="").replace("\n  syncPolicy:\n    syncOptions: []", "")
    files = {f"apps/tools/{k}": v for k, v in CHART.items()}
    write(tmp_path, files)
    _tools_repository(tmp_path, folder, manifest, "argocd/tools.yaml")
    code, findings = lint_json(".")
    assert code == 1
    assert [(f[0], f[1], f[2], f[3]) for f in findings] == [(f"{folder}/templates/hook.yaml", 13, 3, "HL105")]


# --- Helm's own reading of helm.sh/hook --------------------------------------------------------


@needs_helm
def test_helm_skips_and_keeps_hooks_as_its_manifest_sorter_reads_them(tmp_path, monkeypatch):
    """``SortManifests`` (``manifest_sorter.go``) reads each item through Go's
    ``strings.ToLower(strings.TrimSpace(...))`` and skips an object with an unknown event: U+001C is
    kept (``a`` is skipped), ``İ`` lowers to ``i`` (``b`` is kept, and Argo CD, which does not
    lower-case, never applies it)."""
    monkeypatch.chdir(tmp_path)
    hooks = [("a", "\\x1cpre-install"), ("b", "pre-\\u0130nstall"), ("c", "PRE-INSTALL ")]
    write(tmp_path, {
        "c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
        "c/templates/x.yaml": "---\n".join(
            f'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  annotations:\n    helm.sh/hook: "{hook}"\n'
            for name, hook in hooks),
    })  # fmt: skip
    result = runner.invoke(app, ["plan", "--format", "json", "c"])
    [plan] = json.loads(result.stdout)["applications"]
    assert plan["steps"] == []
    assert [(o["name"], o["reason"]) for o in plan["not_applied"]] == [
        ("b", "helm.sh/hook 'pre-\u0130nstall' has no valid hook type: ignored hook, never applied"),
        ("c", "helm.sh/hook 'PRE-INSTALL ' has no valid hook type: ignored hook, never applied")]


def test_an_applicationset_with_an_unclosed_tag_is_hl007(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    appset = APPSET.format(tag="folder").replace('}}/tools"', '}}/tools/{{x"').replace("        helm:\n          values: |\n            debug: true\n", "")
    write(tmp_path, {"argocd/set.yaml": appset, "apps/benign/tools/cm.yaml": CHART["templates/cm.yaml"],
                     ".hooklint.yaml": "repo-urls: [https://github.com/acme/deploy.git]\n"})  # fmt: skip
    code, findings = lint_json(".")
    assert (code, findings) == (1, [
        ("argocd/set.yaml", 6, 5, "HL007", "Rendering failed: ApplicationSet tools (argocd/set.yaml:1): invalid "
         'template: Cannot find end tag="}}" in the template="apps/{{folder}}/tools/{{x" starting from "x". Argo '
         "CD's ApplicationSet controller fails the same way, so these Applications are not created; nothing of them "
         "is checked until it renders.")])  # fmt: skip


def test_an_untrimmed_server_side_apply_item_is_no_server_side_apply(tmp_path, monkeypatch):
    """HL020 is about ``ServerSideApply=true`` as ``HasOption`` finds it: ``"ServerSideApply=true "``
    is not it (HL013 instead), while the exact item still is (argocd-version 2.14.0)."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {".hooklint.yaml": "argocd-version: 2.14.0\n",
                     "a.yaml": APPLICATION.format(path="apps", helm="", options='"ServerSideApply=true "'),
                     "b.yaml": APPLICATION.format(path="apps", helm="", options='"ServerSideApply=true"')})  # fmt: skip
    code, findings = lint_json("a.yaml", "b.yaml")
    assert [(f[0], f[1], f[2], f[3]) for f in findings if f[3] in ("HL013", "HL020")] == [
        ("a.yaml", 16, 19, "HL013"), ("b.yaml", 16, 19, "HL020")]


@needs_helm
@pytest.mark.parametrize("elements, problem", [
    ('"\\x1c"', "error unmarshling decoded ElementsYaml: yaml: unacceptable character #x001c: control characters "
                "are not allowed"),
    ('"\\u3000"', "error unmarshling decoded ElementsYaml: not a list of objects"),
    ('"  \\n# none\\n"', None),
])  # fmt: skip
def test_elements_yaml_is_read_untrimmed(tmp_path, monkeypatch, elements, problem):
    """``list.go`` unmarshals any non-empty ``elementsYaml``: U+001C fails go-yaml, U+3000 is a
    string (not a list), blanks and comments are no element; Python's ``strip()`` emptied the first
    two, and the generator's other elements were generated as if nothing were wrong."""
    monkeypatch.chdir(tmp_path)
    appset = APPSET.format(tag="folder").replace("        folder: benign\n", f"        folder: benign\n      elementsYaml: {elements}\n")
    write(tmp_path, {"argocd/set.yaml": appset, **{f"apps/benign/tools/{k}": v for k, v in CHART.items()},
                     ".hooklint.yaml": "repo-urls: [https://github.com/acme/deploy.git]\n"})  # fmt: skip
    code, findings = lint_json(".")
    expected = [] if problem is None else [
        ("argocd/set.yaml", 6, 5, "HL007", f"Rendering failed: ApplicationSet tools (argocd/set.yaml:1): {problem}. Argo "
         "CD's ApplicationSet controller fails the same way, so these Applications are not created; nothing of them "
         "is checked until it renders.")]  # fmt: skip
    assert (code, findings) == (1 if problem else 0, expected)
