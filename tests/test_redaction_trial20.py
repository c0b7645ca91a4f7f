"""A Secret's value is printed in no form the README promises to find, in no text of the repository a
report prints, in every format (attacker trial 20):

- B3: written as a suppression's reason (``hooklint.io/ignore: "HL202: <value>"``, ``# hooklint:
  ignore[HL105] <value> approved``), it was printed by ``--show-suppressed``, JSON's ``reason``,
  SARIF's ``justification`` and ``diff``'s "Suppressed by this change" line;
- B2: as hex with separators between its bytes (Go's ``printf "% x"``, ``% X``, bytes joined by
  ``:``), of the value and of its base64 (``b64enc | printf "% x"``);
- B4: as base64url (RFC 4648 section 5: ``-`` and ``_`` for ``+`` and ``/``), padded or not.
"""

from __future__ import annotations

import base64

import pytest
from typer.testing import CliRunner

from conftest import git, write
from hooklint.cli import app
from hooklint.sources.render.helm import find_helm

#: Its base64 holds ``/`` and ``+``, so its base64url differs (``S3A0dz8_UnQ4dj4-...``).
VALUE = "Kp4w??Rt8v>>Nz2q~~Lm"
RAW = VALUE.encode()
B64 = base64.b64encode(RAW).decode()
B64URL = base64.urlsafe_b64encode(RAW).decode()
LINT_FORMATS = ("text", "concise", "json", "sarif", "github", "gitlab", "markdown")
DIFF_FORMATS = ("text", "json", "markdown")
SHOWN = "[the value of `foo`]"

SECRET = f'apiVersion: v1\nkind: Secret\nmetadata: {{name: s}}\nstringData:\n  foo: "{VALUE}"\n'

#: each hidden form of the value, as a hook annotation of its own ConfigMap
FORMS = {
    "hex-spaced": RAW.hex(" "),  # printf "% x"
    "hex-spaced-upper": RAW.hex(" ").upper(),  # printf "% X"
    "hex-colons": RAW.hex(":"),
    "hex-dashes-upper": RAW.hex("-").upper(),
    "hex-of-base64-spaced": B64.encode().hex(" "),  # b64enc | printf "% x"
    "base64url": B64URL,
    "base64url-unpadded": B64URL.rstrip("="),
    "base64-unpadded": B64.rstrip("="),
}


def _config_maps(forms: dict[str, str]) -> str:
    return "".join(f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c-{name}\n  annotations:\n"
                   f'    argocd.argoproj.io/hook: "{form}"\n' for name, form in forms.items())  # fmt: skip


JOB = """\
---
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
{ignore}spec:
  backoffLimit: 1
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: sa
      automountServiceAccountToken: false
      containers:
      - name: m
        image: busybox:1
        securityContext: {{privileged: true}}{comment}
"""
SUPPRESSED = JOB.format(ignore=f'    hooklint.io/ignore: "HL202: {VALUE} ok, HL999 {VALUE}"\n',
                        comment=f"  # hooklint: ignore[HL105] {VALUE} approved")  # fmt: skip
UNSUPPRESSED = JOB.format(ignore="", comment="")


def _printed(output: str) -> list[str]:
    """The forms of the value ``output`` prints (its own, and each of :data:`FORMS`)."""
    return [name for name, form in {"as written": VALUE, **FORMS}.items() if form in output or form.lower() in output.lower()]


def _repo(tmp_path, monkeypatch, base: dict[str, str], head: dict[str, str]):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, base)
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "config", "user.email", "ci@example.com")
    git(tmp_path, "config", "user.name", "ci")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    write(tmp_path, head)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_secrets_value_in_a_hidden_form_is_never_printed_by_lint(tmp_path, monkeypatch, form):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"s.yaml": SECRET + _config_maps({form: FORMS[form]})})
    concise = CliRunner().invoke(app, ["lint", "-f", "concise", "."]).output
    assert f"s.yaml:12:30: HL010 Unknown hook type '{SHOWN}' on ConfigMap/c-{form}" in concise.splitlines(), concise
    for fmt in LINT_FORMATS:
        result = CliRunner().invoke(app, ["lint", "-f", fmt, "."])
        assert result.exit_code == 1, (fmt, result.output)
        assert _printed(result.output) == [], (fmt, result.output)


def test_a_secrets_value_in_hidden_forms_is_never_printed_by_plan_or_diff(tmp_path, monkeypatch):
    _repo(tmp_path, monkeypatch, {"s.yaml": SECRET}, {"s.yaml": SECRET + _config_maps(FORMS)})
    for fmt in ("text", "json"):
        result = CliRunner().invoke(app, ["plan", "-f", fmt, "."])
        assert result.exit_code == 0, (fmt, result.output)
        assert _printed(result.output) == [], (fmt, result.output)
    for fmt in DIFF_FORMATS:
        result = CliRunner().invoke(app, ["diff", "-f", fmt, "HEAD"])
        assert result.exit_code == 1, (fmt, result.output)
        assert result.output.count("the value of ") >= len(FORMS), (fmt, result.output)
        assert _printed(result.output) == [], (fmt, result.output)


def test_a_suppressions_reason_is_redacted_in_every_lint_format(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"s.yaml": SECRET + SUPPRESSED})
    text = CliRunner().invoke(app, ["lint", "--show-suppressed", "."]).output
    assert f"[suppressed by comment: {SHOWN} approved]" in text, text
    assert f"[suppressed by annotation: {SHOWN} ok, HL999 {SHOWN}]" in text, text
    json_out = CliRunner().invoke(app, ["lint", "-f", "json", "."]).output
    assert f'"reason": "{SHOWN} approved"' in json_out.replace("\\u0060", "`"), json_out
    sarif = CliRunner().invoke(app, ["lint", "-f", "sarif", "."]).output
    assert f'"justification": "{SHOWN} approved"' in sarif.replace("\\u0060", "`"), sarif
    for fmt in LINT_FORMATS:
        for flags in ([], ["--show-suppressed"]):
            result = CliRunner().invoke(app, ["lint", "-f", fmt, *flags, "."])
            assert result.exit_code == 0, (fmt, flags, result.output)
            assert VALUE not in result.output, (fmt, flags, result.output)
    assert VALUE not in CliRunner().invoke(app, ["plan", "."]).output


def test_a_suppressions_reason_written_by_a_change_is_redacted_in_every_diff_format(tmp_path, monkeypatch):
    _repo(tmp_path, monkeypatch, {"s.yaml": SECRET + UNSUPPRESSED}, {"s.yaml": SECRET + SUPPRESSED})
    markdown = CliRunner().invoke(app, ["diff", "-f", "markdown", "HEAD"]).output
    assert f"Suppressed by this change (comment: \\{SHOWN[:-1]}\\] approved)".replace("`", "\\`") in markdown, markdown
    for fmt in DIFF_FORMATS:
        result = CliRunner().invoke(app, ["diff", "-f", fmt, "HEAD"])
        assert VALUE not in result.output, (fmt, result.output)
        assert "approved" in result.output, (fmt, result.output)


needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")

CHART_TEMPLATES = {
    "space": 'printf "% x" .Values.password',
    "space-upper": 'printf "% X" .Values.password',
    "colons": 'regexReplaceAll "(..)" (printf "%x" .Values.password) "${1}:"',
    "base64-space": 'b64enc .Values.password | printf "% x"',
    "base64url": 'b64enc .Values.password | replace "+" "-" | replace "/" "_"',
    "base64url-unpadded": 'b64enc .Values.password | replace "+" "-" | replace "/" "_" | trimSuffix "="',
}


@needs_helm
def test_a_charts_secret_through_printf_space_hex_and_base64url_is_never_printed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"chart/Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n",
                     "chart/values.yaml": f'password: "{VALUE}"\n',
                     **{f"chart/templates/{name}.yaml": f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n"
                        f"  annotations:\n    argocd.argoproj.io/hook: {{{{ {call} | quote }}}}\n"
                        for name, call in CHART_TEMPLATES.items()}})  # fmt: skip
    concise = CliRunner().invoke(app, ["lint", "-f", "concise", "."]).output
    assert concise.count("Unknown hook type '[the value of `password`]") == len(CHART_TEMPLATES), concise
    for fmt in LINT_FORMATS:
        result = CliRunner().invoke(app, ["lint", "-f", fmt, "."])
        assert result.exit_code == 1, (fmt, result.output)
        assert _printed(result.output) == [], (fmt, result.output)
    assert _printed(CliRunner().invoke(app, ["plan", "."]).output) == []


# --- B1: a Secret's value is a secret for every application of the run ---------------------------

CROSS_SECRET = f'apiVersion: v1\nkind: Secret\nmetadata: {{name: s}}\nstringData:\n  foo: "{VALUE}"\n'
CROSS_JOB = f"""\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    argocd.argoproj.io/hook: "{VALUE}"
    argocd.argoproj.io/sync-wave: "{B64URL}"
    hooklint.io/ignore: "HL202: {VALUE} approved"
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {{name: m, image: busybox:1}}
"""
CROSS_LINES = [f"b/j.yaml:6:30: HL010 Unknown hook type '{SHOWN}' on Job/migrate",
               f"b/j.yaml:7:35: HL012 argocd.argoproj.io/sync-wave '{SHOWN}' on Job/migrate is not an integer Argo CD "
               "can read (Go strconv.Atoi: optional sign and digits, no spaces)"]  # fmt: skip


def test_a_secrets_value_in_another_application_is_never_printed_by_lint(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"a/s.yaml": CROSS_SECRET, "b/j.yaml": CROSS_JOB})
    for args in (["."], ["a/s.yaml", "b/j.yaml"]):
        concise = CliRunner().invoke(app, ["lint", "-f", "concise", *args]).output
        assert concise.splitlines()[:2] == CROSS_LINES, (args, concise)
    for fmt in LINT_FORMATS:
        for flags in ([], ["--show-suppressed"]):
            result = CliRunner().invoke(app, ["lint", "-f", fmt, *flags, "."])
            assert result.exit_code == 1, (fmt, result.output)
            assert _printed(result.output) == [], (fmt, flags, result.output)
    for fmt in ("text", "json"):
        assert _printed(CliRunner().invoke(app, ["plan", "-f", fmt, "."]).output) == [], fmt


def test_a_secrets_value_in_another_application_is_never_printed_by_diff(tmp_path, monkeypatch):
    _repo(tmp_path, monkeypatch, {"a/s.yaml": CROSS_SECRET}, {"b/j.yaml": CROSS_JOB})
    for fmt in DIFF_FORMATS:
        result = CliRunner().invoke(app, ["diff", "-f", fmt, "HEAD"])
        assert result.exit_code == 1, (fmt, result.output)
        assert "the value of " in result.output and _printed(result.output) == [], (fmt, result.output)


def test_the_secrets_application_is_linted_again_when_another_one_changes(tmp_path, monkeypatch):
    """The result cache keeps no application with Secrets: its values redact the others' findings."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"a/s.yaml": CROSS_SECRET, "b/j.yaml": CROSS_JOB.replace(VALUE, "PreSync").replace(B64URL, "1")})
    first = CliRunner().invoke(app, ["lint", "-f", "concise", "."]).output
    assert "HL010" not in first and "HL012" not in first, first
    write(tmp_path, {"b/j.yaml": CROSS_JOB})
    concise = CliRunner().invoke(app, ["lint", "-f", "concise", "."]).output
    assert concise.splitlines()[:2] == CROSS_LINES, concise


def test_a_secrets_value_in_another_application_is_redacted_by_parallel_workers(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    filler = {f"c{i}/cm.yaml": f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}}}\n" for i in range(70)}
    write(tmp_path, {"a/s.yaml": CROSS_SECRET, "b/j.yaml": CROSS_JOB, **filler})
    concise = CliRunner().invoke(app, ["lint", "-j", "2", "-f", "concise", "."]).output
    assert concise.splitlines()[:2] == CROSS_LINES, concise


def test_a_value_another_application_writes_as_a_name_stays_readable_there(tmp_path, monkeypatch):
    name = "kq8vlm3ntq9wxrpq"
    secret = f"apiVersion: v1\nkind: Secret\nmetadata: {{name: s}}\nstringData:\n  foo: {name}\n"
    job = CROSS_JOB.replace("name: migrate", f"name: {name}").replace(VALUE, "Bogus").replace(B64URL, "1")
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"a/s.yaml": secret, "b/j.yaml": job})
    concise = CliRunner().invoke(app, ["lint", "-f", "concise", "."]).output
    assert concise.splitlines()[0] == f"b/j.yaml:6:30: HL010 Unknown hook type 'Bogus' on Job/{name}", concise


def test_a_secrets_value_another_application_writes_as_a_name_stays_readable_in_its_plan(tmp_path, monkeypatch):
    """The run's matcher of every Secret's values leaves the names of each plan readable, as the
    application's own matcher does: folder ``b/`` names a ConfigMap with the value of a Secret of
    folder ``a/`` (no finding of ``b/`` names it), and its plan still shows it."""
    name = "kq8vlm3ntq9wxrpq"
    secret = f"apiVersion: v1\nkind: Secret\nmetadata: {{name: s}}\nstringData:\n  foo: {name}\n"
    config_map = f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}}}\n"
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"a/s.yaml": secret, "b/cm.yaml": config_map})
    plan = CliRunner().invoke(app, ["plan", "."]).output
    assert [line.split() for line in plan.splitlines() if "ConfigMap" in line] == [["1", "Sync", "0", "ConfigMap", name, "-", "-"]], plan
    markdown = CliRunner().invoke(app, ["lint", "-f", "markdown", "."]).output
    assert name in markdown and "the value of" not in markdown, markdown


@pytest.mark.parametrize("value, printed", [
    ("\u017fuper\u017fecretpassword1", "SUPERSECRETPASSWORD1"),  # ſ: Go's ToUpper writes S
    ("\u0131amtheadminpassword2", "IAMTHEADMINPASSWORD2"),  # dotless ı: I
    ("\u0130stanbuldbpassword3", "istanbuldbpassword3"),  # İ: Go's ToLower writes i (Python: i and a dot)
    ("zeusdbpassword\u03c2", "ZEUSDBPASSWORD\u03a3"),  # final sigma: Σ
])  # fmt: skip
def test_a_secret_through_gos_upper_or_lower_is_found(value, printed):
    """Attacker trial 22, B2: a value under `password` with letters whose case Go maps otherwise
    than Python's lower case, through sprig's ``upper`` or ``lower``, was printed whole."""
    from hooklint.sources.render.redact import SecretValues, redactor

    values = SecretValues()
    values.add_stored(value, "password")
    assert redactor(values)(f"sync-wave '{printed}' is not an integer") == (
        "sync-wave '[the value of `password`]' is not an integer")


def test_a_secret_of_few_letters_is_found_with_one_of_its_other_characters_dropped():
    """Attacker trial 22, B4: ``Ab#$%^&*()!@Cd-+`` through ``replace "#" ""`` was printed but for
    its '#': four letters are too few for the letters-and-digits matcher."""
    from hooklint.sources.render.redact import SecretValues, redactor

    values = SecretValues()
    values.add_stored("Ab#$%^&*()!@Cd-+", "password")
    hide = redactor(values)
    assert hide("wave 'Ab$%^&*()!@Cd-+' is not an integer") == "wave '[the value of `password`]' is not an integer"
    assert hide("wave 'Ab#$%^&*()!@Cd+' is not an integer") == "wave '[the value of `password`]' is not an integer"
    assert hide("wave 'Ab#$%^&*()!@Cd-+' is not an integer") == "wave '[the value of `password`]' is not an integer"
