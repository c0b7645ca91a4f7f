"""A chart whose rendering is not a function of the repository (attack round 11, items 2 and 7;
issue 32: never a silent pass): a hook gated on the clock, randomness or DNS, which Argo CD's repo
server renders again on each refresh and on the cluster's network, and a chart at the checkout's
top reading ``.git`` through ``.Files``, which Argo CD's Helm reads from its clone and hooklint's
copy leaves out. Both are HL009 at the template line; the idioms that only print such a value
(a checksum, ``rollme``, a timestamp label, a generated password) are not."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.sources.render.helm import NONHERMETIC_FUNCTIONS, find_helm
from hooklint.sources.render.hermetic import _glob_regex, nonhermetic_decisions

runner = CliRunner()
needs_helm = pytest.mark.skipif(find_helm() is None, reason="needs a Helm renderer")

DIGEST = "sha256:" + "b" * 64
#: A privileged PreSync hook, nothing else of it reported (digest, backoffLimit, deadline, own SA).
HOOK = f"""\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 120
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: migrate
      automountServiceAccountToken: false
      hostNetwork: true
      containers: [{{name: m, image: "ghcr.io/acme/migrate@{DIGEST}"}}]
"""
SETTINGS = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata: {a: b}\n"
TAIL = ("Argo CD's repo server renders the chart again on each refresh and when its manifest cache expires, at "
        "another time and on the cluster's network, and may render other objects and fields then. hooklint "
        "rendered it once, here and now, so the objects under it were checked only as rendered now; decide it "
        "with a value of the chart instead (set per environment by the Application).")
GIT_TAIL = ("Argo CD's Helm reads its own clone's .git there: the chart is where the checkout's .git is, and Helm's "
            "loader skips only what .helmignore lists and templates/.?* (helm pkg/ignore/rules.go AddDefaults). "
            "hooklint rendered it without .git, so the objects and fields that depend on what it reads were checked "
            "only as rendered without it; list .git/ in the chart's .helmignore, or move the chart into a folder of "
            "its own.")


def _chart(folder: Path, templates: dict[str, str], extra: dict[str, str] | None = None) -> None:
    (folder / "templates").mkdir(parents=True, exist_ok=True)
    (folder / "Chart.yaml").write_text("apiVersion: v2\nname: shop\nversion: 0.1.0\n")
    (folder / "templates" / "settings.yaml").write_text(SETTINGS)
    for name, text in {**templates, **(extra or {})}.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)


def _lint(folder: Path, monkeypatch) -> tuple[int, list[str]]:
    monkeypatch.chdir(folder)
    result = runner.invoke(app, ["lint", "--no-cache", "."])
    return result.exit_code, [line for line in result.output.splitlines() if re.search(r": (error|warning|note) HL", line)]


def _decided(construct: str, function: str, cause: str) -> str:
    return (f"warning HL009 source-not-rendered: {construct} here depends on `{function}` ({cause}), so what this "
            f"chart renders is not a function of the repository. {TAIL}")


@needs_helm
@pytest.mark.parametrize(("gate", "function", "cause"), [
    ('{{- if ge (now | date "2006-01-02") "2099-12-07" }}', "now", "the time Helm renders at"),
    ('{{- if getHostByName "kubernetes.default.svc.cluster.local" }}', "getHostByName",
     "a DNS lookup, made from the network Helm renders on"),
    ("{{- with $n := randInt 0 1 }}", "randInt", "a random value drawn at each rendering"),
    # template text in a string that tpl runs (attacker trial 40, 3): its functions decide too
    ('{{- if ge (atoi (tpl "{{ now | date \\"20060102\\" }}" .)) 20991207 }}', "now", "the time Helm renders at"),
    ('{{- if eq (tpl "{{ randInt 0 1 }}" .) "1" }}', "randInt", "a random value drawn at each rendering"),
])  # fmt: skip
def test_a_hook_gated_on_time_dns_or_chance_is_hl009_at_the_gate(tmp_path, monkeypatch, gate, function, cause):
    """Before: ``0 errors, 0 warnings, 0 notes``, exit 0: the hook was not rendered today, nothing said so."""
    construct = "the `with` condition" if gate.startswith("{{- with") else "the `if` condition"
    _chart(tmp_path / "shop", {"templates/hook.yaml": f"{gate}\n{HOOK}{{{{- end }}}}\n"})
    code, lines = _lint(tmp_path / "shop", monkeypatch)
    assert (code, lines) == (1, [f"templates/hook.yaml:1:1: {_decided(construct, function, cause)}"])


@needs_helm
def test_through_a_variable_and_a_helper(tmp_path, monkeypatch):
    """A variable assigned from an ``include`` of a helper that calls ``now``, compared later."""
    helpers = '{{- define "shop.day" -}}\n{{ now | date "Mon" }}\n{{- end }}\n'
    hook = '{{- $day := include "shop.day" . }}\n# comment\n  {{- if eq $day "Someday" }}\n' + HOOK + "{{- end }}\n"
    _chart(tmp_path / "shop", {"templates/_helpers.tpl": helpers, "templates/hook.yaml": hook})
    code, lines = _lint(tmp_path / "shop", monkeypatch)
    expected = _decided("the `if` condition", "now", "the time Helm renders at")
    expected = expected.replace("`now` (", '`now` through include "shop.day" (')
    assert (code, lines) == (1, [f"templates/hook.yaml:3:3: {expected}"])


@needs_helm
def test_a_checked_field_printed_from_one(tmp_path, monkeypatch):
    """``hostNetwork: {{ ... }}`` of a tainted choice, and a sync wave's value."""
    hook = HOOK.replace("hostNetwork: true", 'hostNetwork: {{ uuidv4 | hasPrefix "0" }}')
    other = HOOK.replace("migrate\n  annotations", "seed\n  annotations").replace(
        "argocd.argoproj.io/hook: PreSync", "argocd.argoproj.io/hook: PreSync\n    "
        "argocd.argoproj.io/sync-wave: {{ randInt -5 5 | quote }}").replace("hostNetwork: true", "hostIPC: false")
    _chart(tmp_path / "shop", {"templates/hook.yaml": hook, "templates/seed.yaml": other})
    code, lines = _lint(tmp_path / "shop", monkeypatch)
    assert [line.split(" HL")[0] for line in lines if "HL009" in line] == [
        "templates/hook.yaml:15:20: warning", "templates/seed.yaml:7:35: warning"]
    assert _decided("the result of `hasPrefix`", "uuidv4", "a random value drawn at each rendering") in lines[0] + lines[1]
    assert any(_decided("the value of argocd.argoproj.io/sync-wave", "randInt", "a random value drawn at each "
                        "rendering") in line for line in lines)
    assert code == 1


@needs_helm
def test_the_common_idioms_that_only_print_such_a_value_are_not_reported(tmp_path, monkeypatch):
    """checksum/config, rollme, a timestamp label and annotation, a generated password, a uuid in
    data, a helper of labels holding ``now``: they decide no object and no checked field."""
    helpers = ('{{- define "shop.labels" -}}\napp: shop\ndeployed: {{ now | date "20060102" | quote }}\n{{- end }}\n'
               '{{- define "shop.password" -}}\n{{- randAlphaNum 24 | b64enc -}}\n{{- end }}\n')  # fmt: skip
    deploy = f"""\
{{{{- $password := include "shop.password" . }}}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    {{{{- include "shop.labels" . | nindent 4 }}}}
spec:
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata:
      labels: {{app: web}}
      annotations:
        checksum/config: {{{{ include (print $.Template.BasePath "/settings.yaml") . | sha256sum }}}}
        rollme: {{{{ randAlphaNum 5 | quote }}}}
        restartedAt: {{{{ now | date "2006-01-02T15:04:05Z07:00" | quote }}}}
    spec:
      automountServiceAccountToken: false
      containers:
        - name: web
          image: "nginx@{DIGEST}"
          env:
            - {{name: PASSWORD, value: {{{{ $password | quote }}}}}}
            - {{name: BOOT_ID, value: {{{{ uuidv4 | quote }}}}}}
"""
    _chart(tmp_path / "shop", {"templates/_helpers.tpl": helpers, "templates/deploy.yaml": deploy})
    assert _lint(tmp_path / "shop", monkeypatch) == (0, [])


def test_decisions_unit(tmp_path):
    """Positions, constructs and the fixed point of helpers of helpers; a define's own name and a
    string naming a function decide nothing."""
    helpers = tmp_path / "_h.tpl"
    helpers.write_text('{{ define "a" }}{{ randAlpha 3 }}{{ end }}\n{{ define "b" }}{{ include "a" . }}{{ end }}\n'
                       '{{ define "now" }}x{{ end }}\n')
    uses = tmp_path / "u.yaml"
    uses.write_text('x: {{ "now" }}\n{{ range until 3 }}{{ end }}\nkind: {{ include "b" . }}\n')
    found = nonhermetic_decisions([(str(helpers), "_h.tpl"), (str(uses), "u.yaml")], NONHERMETIC_FUNCTIONS, 1 << 20)
    assert [(d.path, d.line, d.column, d.function, d.construct) for d in found] == [
        (str(uses), 3, 7, 'randAlpha (through include "b")', "the value of kind")]


def test_template_text_in_a_string_is_read_as_tpl_reads_it(tmp_path):
    """A string holding template text, four strings deep at most, adds the tokens of its actions to
    the action holding it; a string naming a function without an action decides nothing."""
    uses = tmp_path / "u.yaml"
    uses.write_text('{{ if eq (tpl "{{ tpl \\"{{ now }}\\" . }}" .) "x" }}{{ end }}\n{{ if eq "now" "x" }}{{ end }}\n')
    found = nonhermetic_decisions([(str(uses), "u.yaml")], NONHERMETIC_FUNCTIONS, 1 << 20)
    assert [(d.line, d.column, d.function, d.construct) for d in found] == [(1, 1, "now", "the `if` condition")]


@needs_helm
def test_diff_counts_the_head_adding_a_time_gated_hook_as_new(tmp_path, monkeypatch):
    """Before: ``0 new findings, 0 fixed, 0 unchanged; no plan change``, exit 0."""
    repo = tmp_path / "repo"
    _chart(repo / "shop", {})
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=repo, check=True)
    (repo / "shop" / "templates" / "hook.yaml").write_text('{{- if ge (now | date "2006-01-02") "2099-12-07" }}\n'
                                                  + HOOK + "{{- end }}\n")
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "head"], cwd=repo, check=True)
    monkeypatch.chdir(repo)
    result = runner.invoke(app, ["diff", "--no-cache", "HEAD~1"])
    assert result.exit_code == 1, result.output
    assert "1 new finding," in result.output.splitlines()[0]
    assert f"shop/templates/hook.yaml:1:1: {_decided('the `if` condition', 'now', 'the time Helm renders at')}" in result.output


# --- .git through .Files -----------------------------------------------------------------------

GIT_GATES = [
    ('{{- if .Files.Get ".git/HEAD" }}', '.Files.Get ".git/HEAD"'),
    ('{{- if (.Files.Glob ".g?t/refs/**").AsConfig }}', '.Files.Glob ".g?t/refs/**"'),
    ("{{- if $.Files.Lines .Values.path }}", ".Files.Lines .Values.path"),
    ("{{- range $k, $v := .Files }}{{ end }}{{- if true }}", ".Files"),
]


@needs_helm
@pytest.mark.parametrize(("gate", "what"), GIT_GATES)
def test_a_chart_at_the_top_reading_git_is_hl009(tmp_path, monkeypatch, gate, what):
    """Before: nothing reported, exit 0 (Argo CD's Helm reads its clone's .git, hooklint's copy has none)."""
    _chart(tmp_path / "shop", {"templates/hook.yaml": f"{gate}\n{HOOK}{{{{- end }}}}\n"},
           {".git/HEAD": "ref: refs/heads/main\n", ".git/refs/heads/main": "0" * 40 + "\n", "values.yaml": "path: x\n"})
    code, lines = _lint(tmp_path / "shop", monkeypatch)
    assert (code, [line for line in lines if "HL009" in line]) == (1, [
        f"templates/hook.yaml:1:1: warning HL009 source-not-rendered: this template reads the chart's .git through "
        f"`{what}`, and .git is Git's data (.git: it may hold the CI job's token): hooklint never hands it to a "
        f"renderer. {GIT_TAIL}"])


@needs_helm
@pytest.mark.parametrize("case", ["helmignore", "subfolder", "safe-glob"])
def test_no_git_read_reported_when_helm_cannot_reach_it(tmp_path, monkeypatch, case):
    """``.helmignore`` lists ``.git/`` (``helm create`` writes it); the chart is not at the top;
    a Glob of ``files/*`` and a Get of each path it ranges over."""
    gate = '{{- if .Files.Get ".git/HEAD" }}'
    extra = {".git/HEAD": "ref: refs/heads/main\n"}
    chart = tmp_path / "shop"
    if case == "helmignore":
        extra[".helmignore"] = "# Patterns to ignore\n.DS_Store\n.git/\n"
    elif case == "subfolder":
        chart = tmp_path / "shop" / "deploy"
    else:
        gate = '{{- range $path, $_ := .Files.Glob "files/*" }}{{- $c := $.Files.Get $path }}{{ end }}{{- if true }}'
        extra["files/a.txt"] = "a\n"
    (tmp_path / "shop" / ".git").mkdir(parents=True, exist_ok=True)
    (tmp_path / "shop" / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    _chart(chart, {"templates/hook.yaml": f"{gate}\n{HOOK}{{{{- end }}}}\n"}, {k: v for k, v in extra.items() if k != ".git/HEAD"})
    code, lines = _lint(tmp_path / "shop", monkeypatch)
    assert not [line for line in lines if "HL009" in line]
    # the hook is rendered only for the Glob (.Files.Get of a file Helm does not load is empty)
    assert (code, bool([line for line in lines if "HL105" in line])) == ((1, True) if case == "safe-glob" else (0, False))


def test_glob_regex_is_gobwas_with_a_slash_separator():
    assert _glob_regex("**").match(".git/HEAD")
    assert not _glob_regex("*").match(".git/HEAD")
    assert _glob_regex("{files,.git}/*").match(".git/HEAD")
    assert not _glob_regex("files/*").match(".git/HEAD")
    assert _glob_regex("[.]git/[!x]*").match(".git/HEAD")


@needs_helm
def test_diff_counts_an_edit_under_an_existing_gate_as_new_and_an_untouched_one_as_unchanged(tmp_path, monkeypatch):
    """The objects under the gate were never checked as Argo CD may render them: an edit of the
    template (here, the date moved, still ahead) is a new finding; an edit elsewhere leaves it unchanged."""
    repo = tmp_path / "repo"
    gate = '{{- if ge (now | date "2006-01-02") "2099-12-07" }}\n'
    _chart(repo / "shop", {"templates/hook.yaml": gate + HOOK + "{{- end }}\n"})
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)

    def commit(message: str) -> None:
        subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
        subprocess.run([*git, "commit", "-qm", message], cwd=repo, check=True)

    commit("base")
    monkeypatch.chdir(repo)
    (repo / "shop" / "templates" / "settings.yaml").write_text(SETTINGS.replace("{a: b}", "{a: c}"))
    first = runner.invoke(app, ["diff", "--no-cache", "HEAD"])
    assert (first.exit_code, first.output.splitlines()[0].split(": ", 1)[1]) == (
        0, "0 new findings, 0 fixed, 1 unchanged; no plan change"), first.output
    commit("elsewhere")
    (repo / "shop" / "templates" / "hook.yaml").write_text(gate.replace("2099-12-07", "2099-01-01") + HOOK + "{{- end }}\n")
    second = runner.invoke(app, ["diff", "--no-cache", "HEAD"])
    assert second.exit_code == 1, second.output
    # the base's HL009 on that template is the one the new one replaces (the field is a digest of what
    # was not checked), not a fixed one
    assert second.output.splitlines()[0].split(": ", 1)[1] == "1 new finding, 0 fixed, 0 unchanged; no plan change"
    assert "shop/templates/hook.yaml:1:1: warning HL009" in second.output


@needs_helm
def test_a_value_file_read_through_tpl_and_a_subchart_reading_its_own_files(tmp_path, monkeypatch):
    """A value that ``tpl`` renders is a template too (HL009 in the value file); a subchart's
    ``.Files`` are its own files, never the top chart's ``.git``."""
    values = "extra: |\n  {{- if eq (randInt 0 1) 1 }}\n  kind: ConfigMap\n  {{- end }}\n"
    sub = {"charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
           "charts/sub/templates/cm.yaml": '{{- if .Files.Get ".git/HEAD" }}\nkind: ConfigMap\n{{- end }}\n'}
    _chart(tmp_path / "shop", {"templates/x.yaml": "{{ tpl .Values.extra . }}\n"},
           {"values.yaml": values, ".git/HEAD": "ref: refs/heads/main\n", **sub})
    code, lines = _lint(tmp_path / "shop", monkeypatch)
    assert (code, lines) == (1, [f"values.yaml:2:3: {_decided('the `if` condition', 'randInt', 'a random value drawn at each rendering')}"])


def test_truth_of_a_generated_value_decides_nothing_its_comparison_does(tmp_path):
    """Bitnami's ``common.secrets.passwords.manage`` idiom: a generated password stored with ``set``
    and tested with ``if`` is never empty (no finding); compared, or from ``randInt``, it decides."""
    helpers = tmp_path / "_h.tpl"
    helpers.write_text('{{- define "pw" -}}\n{{- $p := randAlphaNum 10 -}}\n{{- $_ := set .Values.global "password" $p -}}\n'
                       "{{- .Values.global.password -}}\n{{- end }}\n")
    quiet = tmp_path / "secret.yaml"
    quiet.write_text('{{- $password := include "pw" . }}\n{{- if $password }}\npassword: {{ $password | b64enc }}\n'
                     "{{- end }}\n{{- if and .Values.x (empty .Values.global.password) }}\n{{- end }}\n")
    compared = tmp_path / "hook.yaml"
    compared.write_text('{{- if hasPrefix "a" .Values.global.password }}\nkind: Job\n{{- end }}\n')
    dice = tmp_path / "dice.yaml"
    dice.write_text("{{- $n := randInt 0 2 }}\n{{- if $n }}\nkind: Job\n{{- end }}\n")
    odd = tmp_path / "odd.yaml"
    odd.write_text('{{- $t := now | unixEpoch | quote }}\n{{- if mod ($t | atoi) 2 }}{{ end }}\n')
    found = nonhermetic_decisions([(str(p), p.name) for p in (helpers, quiet, compared, dice, odd)], NONHERMETIC_FUNCTIONS,
                                  1 << 20)  # fmt: skip
    assert [(os.path.basename(d.path), d.line, d.column, d.function, d.construct) for d in found] == [
        ("hook.yaml", 1, 1, "randAlphaNum", "the `if` condition"), ("dice.yaml", 2, 1, "randInt", "the `if` condition"),
        ("odd.yaml", 2, 1, "now", "the `if` condition")]


@needs_helm
def test_application_values_rendered_through_tpl(tmp_path, monkeypatch):
    """An Application's ``helm.values`` that the chart runs through ``tpl``: reported at 1:1 of
    ``Chart.yaml`` (where the values are written is not known to the renderer)."""
    repo = tmp_path / "repo"
    _chart(repo / "shop", {"templates/x.yaml": '{{ tpl (.Values.extra | default "") . }}\n'})
    (repo / "app.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: shop, namespace: argocd}\nspec:\n"
        "  project: shop\n  source:\n    repoURL: https://git.example.com/acme/deploy.git\n    path: shop\n"
        "    helm:\n      values: |\n        extra: |\n          {{- if eq (randInt 0 1) 1 }}\n"
        "          kind: ConfigMap\n          {{- end }}\n"
        "  destination: {server: https://kubernetes.default.svc, namespace: shop}\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "remote", "add", "origin", "https://git.example.com/acme/deploy.git"], cwd=repo, check=True)
    code, lines = _lint(repo, monkeypatch)
    assert (code, [line for line in lines if "HL009" in line]) == (1, [
        "shop/Chart.yaml:1:1: warning HL009 source-not-rendered: the Application's helm values or parameters, which "
        "the chart renders through tpl: the `if` condition depends on `randInt` (a random value drawn at each "
        f"rendering), so what this chart renders is not a function of the repository. {TAIL}"])
