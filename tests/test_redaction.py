"""Secret values never reach a report (hooklint.sources.render.redact): renderer messages quoting
kustomize's and Helm's inputs, reproduced with the real renderers, in every output format; and
``hooklint fix --diff`` context lines inside a Secret's data."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.sources.render import redact
from hooklint.sources.render.helm import find_helm
from hooklint.sources.render.kustomize import find_kustomize
from hooklint.sources.render.redact import SecretValues, redact_message, secret_values

#: What a report says instead of a secret value.
REPLACED = re.compile(r"\[redacted\]|\[the value of `[^`]+`\]")

needs_kustomize = pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")
needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")

runner = CliRunner()

TAIL = (". Argo CD's repo server fails the same way, so the application cannot sync; nothing of it is "
        "checked until it renders.")  # fmt: skip
CHART_YAML = "apiVersion: v2\nname: shop\nversion: 0.1.0\n"


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """An empty repository (a folder with .git) as the current directory."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".hooklint.yaml").write_text("allowed-registries: [ghcr.io/acme]\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(root, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content), encoding="utf-8")


def hl007(*args: str) -> list[str]:
    """The HL007 lines of ``hooklint lint`` (text) on ``args``."""
    result = runner.invoke(app, ["lint", *args])
    return [line for line in result.output.splitlines() if "HL007" in line]


# --- each kind of message, from the real renderer -------------------------------------------

LITERAL_APP = {
    "app/kustomization.yaml": """\
        secretGenerator:
        - name: db
          literals:
          - user=admin-of-shop
          - password:hunter2-literal
        """,
}

ENV_BOM_APP = {
    "app/kustomization.yaml": "secretGenerator:\n- name: db\n  envs: [db.env]\n",
    # a byte-order mark, then a byte that is not UTF-8: kustomize prints the line as text and as bytes
    "app/db.env": b"\xef\xbb\xbfPASSWORD=bom-env-secret\xff\n",
}

SCHEMA_CHART = {
    "chart/Chart.yaml": CHART_YAML,
    "chart/values.yaml": "db:\n  password: schema-pw-secret\n",
    "chart/values.schema.json": json.dumps({
        "type": "object",
        "properties": {"db": {"type": "object", "properties": {"password": {"type": "string", "pattern": "^[0-9]+$"}}}},
    }),  # fmt: skip
    "chart/templates/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: db}\nstringData:\n  password: {{ .Values.db.password }}\n",
}

FAIL_CHART = {
    "chart/Chart.yaml": CHART_YAML,
    # a values scalar under a secret-looking key: a fail message can quote any value
    "chart/values.yaml": "upstreamToken: fail-msg-secret\nupstream: db.example.internal\n",
    "chart/templates/check.yaml": '{{ fail (printf "cannot reach %s with %s" .Values.upstream .Values.upstreamToken) }}\n',
}

REQUIRED_CHART = {
    "chart/Chart.yaml": CHART_YAML,
    "chart/values.yaml": "apiToken: tok-12345678\n",  # under a secret key
    "chart/templates/check.yaml": '{{ required (printf "token %s needs a user" .Values.apiToken) .Values.user }}\n',
}


@needs_kustomize
def test_secret_generator_literal_written_with_a_colon(repo):
    # kubectl kustomize: literal sources [user=admin-of-shop password:hunter2-literal]: invalid
    # literal source password:hunter2-literal, expected key=value (every literal echoed)
    write(repo, LITERAL_APP)
    assert hl007("app") == [
        "app/kustomization.yaml:1:1: error HL007 render-failed: Rendering failed: app/kustomization.yaml: loading "
        "KV pairs: literal sources [redacted]: invalid literal source [redacted], expected key=value" + TAIL
    ]  # fmt: skip


@needs_kustomize
def test_env_file_line_with_a_byte_order_mark(repo):
    write(repo, ENV_BOM_APP)
    assert hl007("app") == [
        "app/kustomization.yaml:1:1: error HL007 render-failed: Rendering failed: app/kustomization.yaml: loading "
        "KV pairs: env source files: [db.env]: line [redacted] has invalid utf8 bytes : [redacted]" + TAIL
    ]  # fmt: skip


@needs_helm
def test_helm_schema_pattern_error_on_a_password(repo):
    write(repo, SCHEMA_CHART)
    assert hl007("chart") == [
        "chart/Chart.yaml:1:1: error HL007 render-failed: Rendering failed: values don't meet the specifications of "
        "the schema(s) in the following chart(s): shop: - at '/db/password': '[redacted]' does not match pattern "
        "'^[0-9]+$'" + TAIL
    ]  # fmt: skip


@needs_helm
def test_helm_fail_message_built_from_values(repo):
    write(repo, FAIL_CHART)
    assert hl007("chart") == [
        "chart/templates/check.yaml:1:3: error HL007 render-failed: Rendering failed: execution error at "
        "(shop/templates/check.yaml:1:3): cannot reach db.example.internal with [the value of `upstreamToken`]" + TAIL
    ]  # fmt: skip


@needs_helm
def test_helm_required_message_built_from_a_secret_value(repo):
    write(repo, REQUIRED_CHART)
    assert hl007("chart") == [
        "chart/templates/check.yaml:1:3: error HL007 render-failed: Rendering failed: execution error at "
        "(shop/templates/check.yaml:1:3): token [the value of `apiToken`] needs a user" + TAIL
    ]  # fmt: skip


@needs_helm
def test_inline_values_of_the_application_are_redacted(repo):
    write(repo, {
        "chart/Chart.yaml": CHART_YAML,
        "chart/templates/check.yaml": '{{ fail (printf "bad upstream %s" .Values.upstream) }}\n',
        "apps/shop.yaml": """\
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: shop, namespace: argocd}
            spec:
              source:
                repoURL: https://example.com/acme/deploy.git
                path: chart
                helm:
                  values: |
                    upstream: postgres://u:inline-secret@db
              destination: {namespace: shop, server: https://kubernetes.default.svc}
            """,
        ".hooklint.yaml": "allowed-registries: [ghcr.io/acme]\nrepo-urls: [https://example.com/acme/deploy.git]\n",
    })  # fmt: skip
    lines = hl007("chart")
    assert lines == [
        "chart/templates/check.yaml:1:3: error HL007 render-failed: Rendering failed: execution error at "
        "(shop/templates/check.yaml:1:3): bad upstream postgres://u:[redacted]@db" + TAIL
    ], lines


@needs_helm
def test_parameters_of_the_application_are_redacted(repo):
    write(repo, {
        "chart/Chart.yaml": CHART_YAML,
        "chart/templates/check.yaml": '{{ fail (printf "pw %s, host %s" .Values.db.password .Values.db.host) }}\n',
        "apps/shop.yaml": """\
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: shop, namespace: argocd}
            spec:
              source:
                repoURL: https://example.com/acme/deploy.git
                path: chart
                helm:
                  parameters:
                  - {name: db.password, value: pw9-secret-param}
                  - {name: db.host, value: param-host-name}
              destination: {namespace: shop, server: https://kubernetes.default.svc}
            """,
        ".hooklint.yaml": "allowed-registries: [ghcr.io/acme]\nrepo-urls: [https://example.com/acme/deploy.git]\n",
    })  # fmt: skip
    assert hl007("chart") == [
        "chart/templates/check.yaml:1:3: error HL007 render-failed: Rendering failed: execution error at "
        "(shop/templates/check.yaml:1:3): pw [the value of `db.password`], host param-host-name" + TAIL
    ]


def test_an_error_raised_before_the_inputs_are_known_is_redacted_with_the_folder(tmp_path):
    from hooklint.sources.render.rendered import RenderError

    write(tmp_path, {"app/secret.yaml": "kind: Secret\nstringData: {pw: folder-secret}\n",
                     "app/link.yaml": ""})  # fmt: skip
    (tmp_path / "outside.yaml").write_text("kind: Secret\nstringData: {pw: outside-value}\n")
    error = RenderError("cannot use folder-secret or outside-value", str(tmp_path / "app/kustomization.yaml"))
    assert redact.redact_render_error(error.message, error, str(tmp_path / "app"), str(tmp_path / "app")) == (
        "cannot use [the value of `pw`] or outside-value"
    )


@needs_kustomize
def test_values_are_removed_by_what_the_inputs_hold_not_only_by_the_prefix_scrubs(repo, monkeypatch):
    # the same kustomize error with the prefix scrubs turned off: the literals read from the
    # kustomization are still gone
    monkeypatch.setattr(redact, "_SCRUBS", ())
    write(repo, LITERAL_APP)
    assert hl007("app") == [
        "app/kustomization.yaml:1:1: error HL007 render-failed: Rendering failed: app/kustomization.yaml: loading "
        "KV pairs: literal sources [[the value of `user`] [the value of `password`]]: invalid literal source "
        "[the value of `password`], expected key=value" + TAIL
    ]  # fmt: skip
    write(repo, ENV_BOM_APP)
    (repo / "app/kustomization.yaml").write_text(ENV_BOM_APP["app/kustomization.yaml"])
    [line] = hl007("app")
    assert "bom-env-secret" not in line and "98 111 109 45" not in line  # the text and kustomize's byte list
    assert "line [[the value of `PASSWORD`]] has invalid utf8 bytes : \\ufeff[the value of `PASSWORD`]\\xff" in line


@needs_kustomize
def test_a_secret_in_a_base_is_redacted_in_the_overlays_message(repo):
    # the overlay's build reads the base's Secret and generator: the failure there is reported on
    # the overlay's entry, its values gone
    write(repo, {
        "base/kustomization.yaml": "resources: [secret.yaml]\nsecretGenerator:\n- name: x\n  literals: [token:base-lit-secret]\n",
        "base/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {a: b}\n",
        "overlay/kustomization.yaml": "resources: [../base]\n",
    })  # fmt: skip
    [line] = hl007("overlay")
    assert "base-lit-secret" not in line and "invalid literal source [redacted], expected key=value" in line


def test_a_pyyaml_error_quoting_a_line_of_stringdata(tmp_path):
    # PyYAML's pure-Python parser quotes the line it stopped on (the C parser does not): a Secret
    # rendered from a template with a bad line
    text = "apiVersion: v1\nkind: Secret\nmetadata: {name: db}\nstringData:\n  password: yaml-line-secret: x\n"
    (tmp_path / "secret.yaml").write_text(text)
    with pytest.raises(yaml.YAMLError) as caught:
        yaml.load(text, Loader=yaml.SafeLoader)
    message = " ".join(part.strip() for part in str(caught.value).splitlines())
    assert "yaml-line-secret" in message  # the input quotes it
    assert redact_message(message, [str(tmp_path / "secret.yaml")], str(tmp_path)) == (
        'mapping values are not allowed here in "<unicode string>", line 5, column 29'
    )


# --- what counts as a secret value ------------------------------------------------------------


def values_of(tmp_path, files: dict[str, str | bytes], *, helm: bool = False) -> SecretValues:
    write(tmp_path, files)
    return secret_values([str(tmp_path / name) for name in files], str(tmp_path), helm=helm)


def test_secret_data_string_data_and_base64_decoded_data(tmp_path):
    encoded = base64.b64encode(b"decoded-secret").decode()
    found = values_of(tmp_path, {"s.yaml": f"""\
        apiVersion: v1
        kind: Secret
        metadata: {{name: s, labels: {{app: shop-frontend}}}}
        data: {{tls.key: {encoded}}}
        stringData:
          config: |
            user=admin
            pass=block-secret
        """})  # fmt: skip
    message = f"x {encoded} decoded-secret pass=block-secret shop-frontend s.yaml"
    assert redact.redact(message, found) == (
        "x [the value of `tls.key`] [the value of `tls.key`] [the value of `config`] shop-frontend s.yaml")


def test_values_under_secret_keys_in_any_object_but_not_references(tmp_path):
    found = values_of(tmp_path, {"job.yaml": """\
        kind: Job
        spec:
          env:
          - {name: DB_PASSWORD, value: env-pw}
          dbPassword: dbpw-123
          secretKeyRef: {name: db-creds, key: password}
        """})  # fmt: skip
    # a name that refers to a secret is not one; the value under dbPassword is
    assert redact.redact("dbpw-123 db-creds password", found) == "[the value of `dbPassword`] db-creds password"


def test_short_values_placeholders_and_references_are_never_secrets(tmp_path):
    """Issue 34: a value shorter than 8 characters, a placeholder and a Secret's name under a key
    that names a secret (Bitnami's ``auth.existingSecret``) are no secrets; nor are values under keys
    that name none (before, every scalar of a chart's values files was searched for as a word)."""
    found = values_of(tmp_path, {"chart/values.yaml": """\
        token: abc1234
        repository: shop-api-server
        auth:
          existingSecret: keycloak-db
          password: changeme
          adminPassword: xxxxxxxxxx
          apiKey: "{{ .Values.global.key }}"
          clientSecret: <your-client-secret>
          vaultToken: <path:secret/data/shop#token>
          secretKey: real-secret-key-1
          secretKeys: {adminPasswordKey: postgres-password, userPasswordKey: user-password}
          username: bn_keycloak
          database: bitnami_keycloak
        passwordSecretName: shop-db-secret
        db:
          passwordRef: {name: shop-db-ref-secret, key: pw}
        """}, helm=True)  # fmt: skip
    assert found.kept() == {"real-secret-key-1": "secretKey"}
    assert redact.redact("keycloak-db shop-api-server abc1234 real-secret-key-1 chart/values.yaml", found) == (
        "keycloak-db shop-api-server abc1234 [the value of `secretKey`] chart/values.yaml")


def test_a_value_the_application_writes_where_nothing_is_secret_is_none(tmp_path):
    """A Secret's ``DB_USER`` is its namespace's name: the namespace, and every name holding it,
    stay readable; the password is still a secret."""
    found = values_of(tmp_path, {"shop-payments/secret.yaml": """\
        apiVersion: v1
        kind: Secret
        metadata: {name: db, namespace: shop-payments}
        stringData: {DB_USER: shop-payments, DB_PASSWORD: s3cret-Passw0rd-long}
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: settings, namespace: shop-payments}
        data: {password_file: /etc/db/password-file}
        """})  # fmt: skip
    assert found.kept() == {"s3cret-Passw0rd-long": "DB_PASSWORD"}
    assert redact.redact("Job/shop-payments-migrate in shop-payments/secret.yaml: s3cret-Passw0rd-long", found) == (
        "Job/shop-payments-migrate in shop-payments/secret.yaml: [the value of `DB_PASSWORD`]")


def test_generator_files_and_envs_are_read_inside_the_repository_only(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("outside-secret\n")
    (tmp_path / "repo").mkdir()
    found = values_of(tmp_path / "repo", {
        "kustomization.yaml": "secretGenerator:\n- name: a\n  files: [key=pw.txt, ../outside.txt]\n  envs: [a.env]\n",
        "pw.txt": "file-secret\n",
        "a.env": "# comment\nA=env-secret\n",
    })  # fmt: skip
    assert redact.redact("file-secret env-secret A=env-secret outside-secret", found) == (
        "[the value of `key`] [the value of `A`] [the value of `A`] outside-secret"
    )


def test_a_secret_generators_file_names_are_no_secrets(tmp_path):
    found = values_of(tmp_path, {
        "kustomization.yaml": "secretGenerator:\n- name: tls-bundle\n  files: [tls.crt=certs/server.crt]\n"
                              "  envs: [settings/db.env]\n  options: {labels: {app.kubernetes.io/name: shop}}\n",
        "certs/server.crt": "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUexample\n-----END CERTIFICATE-----\n",
        "settings/db.env": "DB_PASSWORD=env-file-secret\n",
    })  # fmt: skip
    kept = found.kept()
    # the env line, its value, its bytes; the file, under its folder's name (read first, as a file in a
    # folder that names a secret: attacker trial 25, B3)
    assert sorted(kept.values()) == ["DB_PASSWORD"] * 3 + ["certs"]
    assert not [value for value in kept if "server.crt" in value or "db.env" in value or "tls-bundle" in value]
    assert redact.redact("evalsymlink failure on 'certs/server.crt' -----BEGIN CERTIFICATE----- MIIBszCCAVmgAwIBAgIUexample",
                         found) == "evalsymlink failure on 'certs/server.crt' -----BEGIN CERTIFICATE----- [the value of `certs`]"


def test_a_fifo_among_the_inputs_is_not_opened(tmp_path):
    os.mkfifo(tmp_path / "pipe.yaml")
    assert secret_values([str(tmp_path / "pipe.yaml")], str(tmp_path)).secrets == {}


@pytest.mark.parametrize(("message", "expected"), [
    ("literal sources [a=1 b:2]: invalid literal source b:2, expected key=value",
     "literal sources [redacted]: invalid literal source [redacted], expected key=value"),
    ("line [80 65 61 255] has invalid utf8 bytes : PA=\\xff", "line [redacted] has invalid utf8 bytes : [redacted]"),
    ("yaml: unmarshal errors: line 3: cannot unmarshal !!str `hunter2...` into []string",
     "yaml: unmarshal errors: line 3: cannot unmarshal !!str `[redacted]` into []string"),
    ("- at '/db/password': 'it\\'s' does not match pattern '^x$'", "- at '/db/password': '[redacted]' does not match pattern '^x$'"),
    ('strconv.Atoi: parsing "pw12": invalid syntax', 'strconv.Atoi: parsing "[redacted]": invalid syntax'),
    ('"PASS x" is not a valid key name: a valid environment variable name', '"[redacted]" is not a valid key name: a valid environment variable name'),
    ('found x in "<unicode string>", line 5, column 28: password: s3: x ^ next', 'found x in "<unicode string>", line 5, column 28 next'),
])  # fmt: skip
def test_prefix_scrubs(message, expected):
    assert redact.redact(message, SecretValues()) == expected


# --- every output format ----------------------------------------------------------------------

SECRETS = ("hunter2-literal", "admin-of-shop", "bom-env-secret", "schema-pw-secret", "fail-msg-secret")
FORMATS = [
    ("lint", "text"), ("lint", "json"), ("lint", "sarif"), ("lint", "github"), ("lint", "gitlab"),
    ("lint", "markdown"), ("plan", "text"), ("plan", "json"),
]  # fmt: skip


@needs_kustomize
@needs_helm
@pytest.mark.parametrize(("command", "fmt"), FORMATS)
@pytest.mark.parametrize("to_file", [False, True], ids=["stdout", "file"])
def test_no_format_prints_a_secret(repo, command, fmt, to_file):
    write(repo, {**LITERAL_APP, **{k.replace("app/", "env/"): v for k, v in ENV_BOM_APP.items()},
                 **SCHEMA_CHART, **{k.replace("chart/", "failing/"): v for k, v in FAIL_CHART.items()}})  # fmt: skip
    args = [command, "--format", fmt, "app", "env", "chart", "failing"]
    if to_file:
        args += ["--output", "report.out"]
    result = runner.invoke(app, args)
    written = (repo / "report.out").read_text(encoding="utf-8") if to_file else ""
    everything = result.output + written
    assert result.exit_code == (1 if command == "lint" else 0), everything
    for secret in SECRETS:
        assert secret not in everything, (secret, everything)
    if command == "lint":
        # the findings are there, their values replaced (a Markdown cell escapes the brackets)
        assert len(REPLACED.findall(everything.replace("\\[", "[").replace("\\]", "]"))) >= 4 and "HL007" in everything


@needs_kustomize
def test_a_real_subprocess_prints_no_secret_on_stdout_or_stderr(repo):
    write(repo, LITERAL_APP)
    done = subprocess.run([sys.executable, "-m", "hooklint", "lint", "app"], capture_output=True, text=True, check=False,
                          env={**os.environ, "HOOKLINT_CACHE_DIR": "off"})  # fmt: skip
    assert done.returncode == 1 and "[redacted]" in done.stdout
    assert "hunter2" not in done.stdout + done.stderr and "admin-of-shop" not in done.stdout + done.stderr


# --- hooklint fix --diff ----------------------------------------------------------------------

SECRET_BESIDE_FIXES = """\
apiVersion: v1
kind: Secret
metadata:
  name: db
  annotations:
    argocd.argoproj.io/sync-wave: -1
stringData:
  password: diff-ctx-secret
  user: admin
type: Opaque
---
apiVersion: v1
kind: Secret
metadata: {name: one-line, annotations: {argocd.argoproj.io/sync-wave: 2}}
data: {token: b25lLWxpbmUtc2VjcmV0}
"""


def test_fix_diff_never_shows_secret_data_as_context_and_still_applies(repo):
    write(repo, {"app/secret.yaml": SECRET_BESIDE_FIXES})
    result = runner.invoke(app, ["fix", "--diff", "app"])
    diff = result.stdout
    # before: three lines of context each side, the Secret's stringData and data among them
    assert diff == (
        "--- a/app/secret.yaml\n"
        "+++ b/app/secret.yaml\n"
        "@@ -5,3 +5,3 @@\n"
        "   annotations:\n"
        "-    argocd.argoproj.io/sync-wave: -1\n"
        '+    argocd.argoproj.io/sync-wave: "-1"\n'
        " stringData:\n"
        "@@ -14 +14 @@\n"
        "-metadata: {name: one-line, annotations: {argocd.argoproj.io/sync-wave: 2}}\n"
        '+metadata: {name: one-line, annotations: {argocd.argoproj.io/sync-wave: "2"}}\n'
    )
    assert (repo / "app/secret.yaml").read_text() == SECRET_BESIDE_FIXES  # --diff changes nothing
    patched = subprocess.run(["patch", "-p1", "-s"], cwd=repo, input=diff, text=True, capture_output=True, check=False)
    assert patched.returncode == 0, patched.stdout + patched.stderr
    assert runner.invoke(app, ["fix", "--diff", "app"]).stdout == ""  # the patched file needs no fix


def test_fix_diff_redacts_a_changed_line_that_holds_a_secret(repo):
    # a Secret written on one line: the changed line itself holds the value
    write(repo, {"app/s.yaml": "{apiVersion: v1, kind: Secret, metadata: {name: s, annotations: "
                               "{argocd.argoproj.io/sync-wave: 1}}, stringData: {pw: flow-secret}}\n"})  # fmt: skip
    result = runner.invoke(app, ["fix", "--diff", "app"])
    assert result.stdout == (
        "--- a/app/s.yaml\n+++ b/app/s.yaml\n@@ -1 +1 @@\n-[redacted]\n+[redacted]\n"
    )


ENV_BESIDE_A_FIX = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: j
  annotations:
    argocd.argoproj.io/sync-wave: ~
spec:
  template: {spec: {restartPolicy: Never, containers: [{name: x, env: [{name: DB_PASSWORD, value: env-flow-secret}]}]}}
"""


def test_fix_diff_never_shows_an_env_value_named_as_a_secret_as_context(repo):
    """``env: [{name: DB_PASSWORD, value: ...}]``: the value's key is ``value``, its name says it is
    a secret. Before, the line was a context line of the sync-wave fix three lines above it."""
    write(repo, {"app/job.yaml": ENV_BESIDE_A_FIX})
    result = runner.invoke(app, ["fix", "--diff", "app"])
    assert result.stdout == (
        "--- a/app/job.yaml\n"
        "+++ b/app/job.yaml\n"
        "@@ -5,3 +5,3 @@\n"  # the context stops before the env line, as long on both sides
        "   annotations:\n"
        "-    argocd.argoproj.io/sync-wave: ~\n"
        '+    argocd.argoproj.io/sync-wave: ""\n'
        " spec:\n"
    )
    assert sorted(redact.secret_lines(ENV_BESIDE_A_FIX)) == [7]
    assert sorted(redact.secret_lines("env:\n- name: API_TOKEN\n  value: block-secret\n- name: LEVEL\n  value: info\n")) == [2]


@pytest.mark.parametrize(("line", "expected"), [
    ("  password: s3cret\n", "  password: [redacted]\n"),
    ("  'pass word': \"s3cret\"\r\n", "  'pass word': [redacted]\r\n"),
    ("  key: |\n", "  key: |\n"),
    ("    block line two\n", "    [redacted]\n"),
    ("  - item-secret", "  - [redacted]"),
    ("stringData: {a: b}\n", "stringData: [redacted]\n"),
])  # fmt: skip
def test_redact_line_keeps_the_line_structure(line, expected):
    assert redact.redact_line(line) == expected


def test_secret_lines():
    text = (
        "kind: Secret\nmetadata:\n  name: s\n  annotations:\n"
        "    kubectl.kubernetes.io/last-applied-configuration: '{\"data\": {\"a\": \"eA==\"}}'\n"
        "data:\n  a: eA==\n  b: |\n    one\n    two\nstringData: {x: y}\ntype: Opaque\n---\n"
        "kind: Job\nspec:\n  apiToken: t\n  env: [{name: A, valueFrom: {secretKeyRef: {name: s, key: a}}}]\n"
    )
    assert sorted(redact.secret_lines(text)) == [4, 6, 7, 8, 9, 10, 15]
    # a text that does not parse: data blocks by indentation
    assert sorted(redact.secret_lines("kind: Secret\ndata:\n  a: [\n  b: x\nkind2: y\n")) == [2, 3]


@pytest.mark.skipif(shutil.which("patch") is None, reason="needs patch")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["plain", "secret", "change", "insert"]), st.integers(0, 9)), max_size=30))
def test_fix_diff_of_any_layout_applies_and_shows_no_secret(tmp_path_factory, layout):
    # Secrets (data in block and flow style) and plain lines (comments) in any order; the fixes
    # change or add plain lines only, as hooklint's fixes never touch data
    folder = tmp_path_factory.mktemp("diff")
    original: list[str] = []
    fixed: list[str] = []
    for number, (what, value) in enumerate(layout):
        if what == "secret":
            lines = ["---\n", "kind: Secret\n", "data:\n", f"  s{number}: secret-{value}-value\n"]
            if value % 3 == 0:
                lines[2:] = [f"data: {{s{number}: secret-{value}-value}}\n"]
            elif value % 3 == 1:
                lines[3:] = ["  s: |\n", f"    secret-{value}-value\n", "    more-value\n"]
            original += lines
            fixed += lines
        else:
            original.append(f"# plain {number} {value}\n")
            fixed.append(original[-1] if what != "change" else f"# fixed {number}\n")
            if what == "insert":
                fixed.append(f"# added {number}\n")
    from hooklint.fix import FileFix, unified_diff

    (folder / "f.yaml").write_text("".join(original))
    diff = unified_diff(FileFix(str(folder / "f.yaml"), "".join(original), "".join(fixed)), str(folder))
    assert "-value\n" not in diff
    if diff:
        done = subprocess.run(["patch", "-p1", "-s", "-F0"], cwd=folder, input=diff, text=True, capture_output=True, check=False)
        assert done.returncode == 0, diff + done.stdout
    assert (folder / "f.yaml").read_text() == "".join(fixed)


ROUTED = {
    "app/kustomization.yaml": (
        "resources: [secret.yaml, job.yaml]\nreplacements:\n"
        "- source: {kind: Secret, name: db, fieldPath: stringData.password}\n"
        "  targets:\n  - select: {kind: Job}\n"
        "    fieldPaths: [metadata.annotations.argocd\\.argoproj\\.io/sync-wave, metadata.name]\n"),
    "app/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: db}\nstringData: {password: Routed-Secret-42}\n",
    "app/job.yaml": (
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n"
        "  annotations: {argocd.argoproj.io/hook: PreSync, argocd.argoproj.io/sync-wave: \"1\"}\n"
        "spec: {backoffLimit: 1, activeDeadlineSeconds: 60, template: {spec: {restartPolicy: Never, "
        "containers: [{name: x, image: \"ghcr.io/acme/x:1.25\"}]}}}\n"),
}


@needs_kustomize
@pytest.mark.parametrize("args", [["lint", "-f", "json"], ["lint", "-f", "sarif"], ["lint", "-f", "markdown"],
                                  ["lint"], ["plan"], ["plan", "-f", "json"]])  # fmt: skip
def test_a_secret_value_copied_into_a_name_or_annotation_is_never_quoted(repo, args):
    """kustomize ``replacements`` copy a Secret's password into a Job's name and sync-wave
    annotation: HL012 and the plan quoted the rendered values. They are ``[redacted]`` now, in
    every format; what is wrong is still said."""
    write(repo, ROUTED)
    result = runner.invoke(app, [*args, "app"])
    assert "Routed-Secret-42" not in result.output
    assert "routed-secret-42" not in result.output.lower()
    assert "[the value of `password`]" in result.output.replace("\\[", "[").replace("\\]", "]").replace("\\`", "`")


@needs_kustomize
@pytest.mark.parametrize("control", ["\\u001b", "\\u202e", "\\u0007"], ids=["escape", "bidi", "bell"])
@pytest.mark.parametrize("args", [["lint"], ["lint", "-f", "json"], ["lint", "-f", "sarif"], ["lint", "-f", "gitlab"],
                                  ["lint", "-f", "markdown"], ["plan"], ["plan", "-f", "json"]])  # fmt: skip
def test_a_secret_value_holding_a_control_character_is_redacted_as_messages_escape_it(repo, args, control):
    """Messages write control and bidirectional characters as escapes (``\\x1b``), so the
    password as written no longer matched what HL012 and the plan printed: it was quoted whole."""
    write(repo, {**ROUTED, "app/secret.yaml": ROUTED["app/secret.yaml"].replace(
        "{password: Routed-Secret-42}", f'{{password: "Routed{control}Secret-42"}}')})
    result = runner.invoke(app, [*args, "app"])
    assert "Secret-42" not in result.output
    assert "[the value of `password`]" in result.output.replace("\\[", "[").replace("\\]", "]").replace("\\`", "`")


@pytest.mark.parametrize("entry, shown", [
    ("https://oauth2:ghpS3CRETurlTOKEN@github.com/org/repo//base?ref=v1",
     "https://oauth2:[redacted]@github.com/org/repo//base?ref=v1"),
    ("https://ghpS3CRETurlTOKEN@github.com/org/repo//base", "https://[redacted]@github.com/org/repo//base"),
    ("https://example.com/x.yaml?ref=v1&access_token=S3CRETquerytoken", "https://example.com/x.yaml?ref=v1&access_token=[redacted]"),
    ("ssh://git@github.com/org/repo//base", "ssh://git@github.com/org/repo//base"),
    ("git@github.com:org/repo//base", "git@github.com:org/repo//base"),
])  # fmt: skip
def test_credentials_in_a_remote_entry_are_never_quoted(repo, entry, shown):
    """HL009 quotes a remote entry as written; the token a URL embeds is ``[redacted]``, the rest kept."""
    write(repo, {"app/kustomization.yaml": f"resources:\n- cm.yaml\n- {entry}\n",
                 "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"})  # fmt: skip
    result = runner.invoke(app, ["lint", "--select", "HL009", "app"])
    assert "S3CRET" not in result.output
    assert f"resources entry '{shown}' is remote" in result.output.splitlines()[0]


@needs_kustomize
def test_the_redacted_finding_says_what_is_wrong(repo):
    write(repo, ROUTED)
    result = runner.invoke(app, ["lint", "--select", "HL012", "app"])
    assert result.output.splitlines()[0] == (
        "app/kustomization.yaml:2:1: error HL012 invalid-sync-wave: argocd.argoproj.io/sync-wave '[the value of "
        "`password`]' on Job/[the value of `password`] is not an integer Argo CD can read (Go strconv.Atoi: optional sign and digits, no spaces): "
        "Argo CD silently uses wave 0. Use a whole number such as \"1\" or \"-2\".")


def test_a_secret_value_is_found_in_any_case_and_with_its_separators_changed():
    """A chart's ``fail`` message may print ``upper``, ``lower`` or ``join`` of a value."""
    values = redact.SecretValues()
    values.add("hunter2-Secret-value", "db.password")
    values.add("{{ .Values.missing.deep }}", "password")  # a template: a placeholder, no secret
    hide = redact.redactor(values)
    assert [hide(m) for m in ("x HUNTER2-SECRET-VALUE y", "hunter2,secret,value", "hunter2Secretvalue!",
                              "a hunter2 secret  value", "at <.Values.missing.deep>")] == [
        "x [the value of `db.password`] y", "[the value of `db.password`]", "[the value of `db.password`]!",
        "a [the value of `db.password`]", "at <.Values.missing.deep>"]  # fmt: skip


def test_one_matcher_built_once_for_a_set_of_values():
    """Building a regular expression of every secret value was about 60 % of a warm run (a Secret's
    certificate made an expression of about 800 kB). The values are now two Aho-Corasick automata,
    built once for a set of values when a text first needs them, and left behind when a worker
    sends the redactor back with the plan it guards."""
    import pickle

    certificate = base64.b64encode(bytes(range(256)) * 12).decode()  # 4096 characters
    values = redact.SecretValues()
    values.add(certificate, "tls.crt")
    values.add("hunter2-Secret-value", "password")
    hide = redact.redactor(values)
    assert redact.redactor(values) is hide and hide.built == []  # one per set of values, built when needed
    assert hide("x HUNTER2-SECRET-VALUE y") == "x [the value of `password`] y"
    assert len(hide.built) == 4  # exact, loose, folded, loose with long values' spellings (none here)
    assert hide(f"ca {certificate.lower()} and {certificate}!") == (
        "ca [the value of `tls.crt`]/ and [the value of `tls.crt`]!")  # it ends in "/": no letter
    assert hide(f"ca {certificate[:-2]}") == f"ca {certificate[:-2]}"  # its last letter short: no value of it
    back = pickle.loads(pickle.dumps(hide))  # sent from a worker without what it built
    assert back.built == [] and back("x hunter2 secret value") == "x [the value of `password`]"
    many = redact.SecretValues()
    for n in range(1000):
        many.add(f"secret-{n:05d}-" + "k" * 40, f"KEY_{n}")
    hide = redact.redactor(many)
    texts = [hide(f"finding {n}: Job/migrate-{n} has secret-{n:05d}-{'k' * 40}") for n in range(1000)]
    assert len(hide.built) == 4 and hide.built[3] is None  # built once for the 1,000 texts (a count, not a timing)
    assert texts[7] == "finding 7: Job/migrate-7 has [the value of `KEY_7`]"
    assert texts[999] == "finding 999: Job/migrate-999 has [the value of `KEY_999`]"


def test_a_long_values_byte_spellings_are_built_for_a_text_long_enough_to_hold_one(monkeypatch):
    """A value of more than 4,096 UTF-8 bytes (a certificate bundle: the corpus has one of 131 kB)
    is spelled byte by byte (``%d``, ``%o``, ``%b``, ``%U``, hex; UTF-8 and UTF-16: megabytes, a
    fifth of a run) only when a text has as many letters and digits as it has bytes (each
    spelling has at least one per byte): findings of a few hundred characters never pay for it,
    and a text that prints it is still hidden."""
    import sys

    bundle = "".join(f"MIIC{n:05d}xQ9" for n in range(400))  # 4,800 bytes
    values = redact.SecretValues()
    values.add(bundle, "ca.crt")
    values.add("hunter2-Secret-value", "password")
    spelled: list[str] = []
    hex_forms = redact._hex_forms
    monkeypatch.setattr(redact, "_hex_forms", lambda value: spelled.append(value[:4]) or hex_forms(value))
    hide = redact.redactor(values)
    assert hide.long == ((bundle, "ca.crt"),) and spelled == ["hunt"]  # the short value's spellings only
    assert hide("Job/migrate: HUNTER2 SECRET VALUE and more") == "Job/migrate: [the value of `password`] and more"
    assert spelled == ["hunt"] and hide.built[3] is None
    printed = "[" + " ".join(str(byte) for byte in bundle.encode("utf-8")) + "]"  # printf "%v" of .Files.GetBytes
    assert hide(f"wave: {printed}") == "wave: [[the value of `ca.crt`]]"
    assert spelled == ["hunt", "MIIC"] and hide.built[3][1] == sys.maxsize  # every long value in: built once
    octal = " ".join(format(byte, "o") for byte in bundle.encode("utf-16-be"))  # printf "%o", UTF-16
    assert hide(octal) == "[the value of `ca.crt`]" and spelled == ["hunt", "MIIC"]
    assert hide("x" * 6000) == "x" * 6000


def test_long_values_that_share_their_first_characters_are_each_found_whole():
    """An automaton holds each form's first characters (``redact._PREFIX``) and compares the rest
    where they are found: two certificates that differ past them are each found whole, under their
    own key, in every automaton (as written, by their letters, in one case); a text that holds only
    their common start, or one of them cut short, shows as it is."""
    head = "MIIC" + "A" * (redact._PREFIX + 10)
    first, second = head + "firstTailQ9", head + "secondTailZ7"
    values = redact.SecretValues()
    values.add(first, "tls.crt")
    values.add(second, "ca.crt")
    hide = redact.redactor(values)
    assert hide(f"a {second} b {first}") == "a [the value of `ca.crt`] b [the value of `tls.crt`]"
    assert hide(f"{first[:-1]}-{second[:-2]}") == f"{first[:-1]}-{second[:-2]}"
    assert hide(f"x {head}") == f"x {head}"
    assert hide(f"spaced: {' '.join(second)}.") == "spaced: [the value of `ca.crt`]."
    assert hide(f"upper {first.upper()}!") == "upper [the value of `tls.crt`]!"
    assert hide(f"b64 {base64.b64encode(first.encode()).decode().upper()}") == "b64 [the value of `tls.crt`]"


@given(st.binary(min_size=redact.MIN_LENGTH, max_size=300))
@settings(max_examples=300, deadline=None)
def test_no_folded_form_is_shorter_than_its_value_less_the_slack(raw):
    """The bound :meth:`redact.Redactor._folded` leaves long values out by: every folded form of a
    value (base64 cores, base64url, hex, base32 at each offset) is at least as long as its UTF-8
    bytes less ``_FOLDED_SLACK``."""
    value = raw.decode("utf-8", "replace").strip()
    size = len(value.encode("utf-8"))
    assert all(len(form) >= size - redact._FOLDED_SLACK for form in redact._folded_forms(value))


@given(st.text(alphabet=st.characters(max_codepoint=0x2FF), max_size=40) | st.text(max_size=40))
@settings(max_examples=500, deadline=None)
def test_the_letters_of_a_text_are_what_the_separators_expression_leaves(text):
    """``_letters_of`` (``bytes.translate`` for an ASCII text) leaves what ``_SEPARATORS`` does."""
    assert redact._letters_of(text) == redact._SEPARATORS.sub("", text)


def test_a_long_value_is_folded_only_for_a_text_with_a_run_as_long():
    """A certificate's folded forms are built only when a text has a run of base64 characters long
    enough to hold one; a short value's are built for the first text that needs any."""
    certificate = base64.b64encode(bytes(range(256)) * 4).decode()  # 1,368 characters
    values = redact.SecretValues()
    values.add(certificate, "tls.crt")
    values.add("hunter2-Secret-value", "password")
    hide = redact.redactor(values)
    short = base64.b64encode(b"hunter2-Secret-value").decode().upper()
    assert hide(f"digest 0123456789ABCDEF0123 and {short}") == "digest 0123456789ABCDEF0123 and [the value of `password`]"
    assert hide.built[2][1] == 28  # the longest run of that text: the certificate is left out
    long = base64.b64encode(certificate.encode()).decode().lower()
    assert hide(f"ca: {long}.") == "ca: [the value of `tls.crt`]."
    assert hide.built[2][1] == sys.maxsize  # every value in: never built again


@needs_helm
@pytest.mark.parametrize("expression", ["upper .Values.db.password", "lower .Values.db.password",
                                        '.Values.db.password | splitList "-" | join ","',
                                        '.Values.db.password | replace "-" " "'])  # fmt: skip
def test_a_fail_message_of_a_transformed_secret_is_redacted(repo, expression):
    write(repo, {"chart/Chart.yaml": CHART_YAML, "chart/values.yaml": "db:\n  password: Hunter2-Secret-Value\n",
                 "chart/templates/check.yaml": f'{{{{ fail (printf "pw %s!" ({expression})) }}}}\n'})  # fmt: skip
    assert hl007("chart") == [
        "chart/templates/check.yaml:1:3: error HL007 render-failed: Rendering failed: execution error at "
        "(shop/templates/check.yaml:1:3): pw [the value of `password`]!" + TAIL
    ]  # fmt: skip


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "gitlab", "markdown"])
def test_a_chart_value_under_a_secret_key_is_never_quoted_by_a_finding(tmp_path, monkeypatch, fmt):
    """Second helper trial: ``sync-wave: "{{ .Values.db.password }}"`` printed the password in
    HL012, in every format (a kustomize Secret copied by replacements was already [redacted])."""
    from typer.testing import CliRunner

    from hooklint.cli import app
    from hooklint.sources.render.helm import find_helm

    if find_helm() is None:
        pytest.skip("no Helm")
    (tmp_path / ".git").mkdir()
    (tmp_path / "c/templates").mkdir(parents=True)
    (tmp_path / "c/Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 1.0.0\n")
    (tmp_path / "c/values.yaml").write_text("db:\n  password: Hunter2SecretValue\n")
    (tmp_path / "c/templates/cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n"
        "    argocd.argoproj.io/sync-wave: \"{{ .Values.db.password }}\"\n")  # fmt: skip
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    result = CliRunner().invoke(app, ["lint", "-f", fmt, "c"])
    assert result.exit_code == 1
    assert "Hunter2SecretValue" not in result.output and "the value of" in result.output


# --- precise redaction (issue 34): names and paths stay readable, secrets name their key -------

JOB = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {name}\n  namespace: shop-payments\n"
       "  annotations: {{argocd.argoproj.io/hook: PreSync, argocd.argoproj.io/sync-wave: \"x1\"}}\n"
       "spec: {{backoffLimit: 1, activeDeadlineSeconds: 60, template: {{spec: {{restartPolicy: Never, "
       "containers: [{{name: x, image: \"ghcr.io/acme/x:1.25\"}}]}}}}}}\n")  # fmt: skip


def test_a_secret_whose_user_is_its_namespace_hides_no_name_or_path(repo):
    """A Secret's ``DB_USER`` is the name of its namespace: every name holding it was
    ``[redacted]`` (``Job/[redacted]-migrate``, ``Application [redacted]``, the plan's namespaces),
    while the JSON ``namespace`` field printed it. It is written where nothing is secret: no secret."""
    write(repo, {
        "shop-payments/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: db, namespace: shop-payments}\n"
                                     "stringData: {DB_USER: shop-payments, DB_PASSWORD: s3cret-Passw0rd-long}\n",
        "shop-payments/job.yaml": JOB.format(name="shop-payments-migrate"),
    })  # fmt: skip
    lint = runner.invoke(app, ["lint", "--select", "HL012", "shop-payments"])
    assert lint.output.splitlines()[0] == (
        "shop-payments/job.yaml:6:81: error HL012 invalid-sync-wave: argocd.argoproj.io/sync-wave 'x1' on "
        "Job/shop-payments-migrate is not an integer Argo CD can read (Go strconv.Atoi: optional sign and digits, no "
        "spaces): Argo CD silently uses wave 0. Use a whole number such as \"1\" or \"-2\".")
    plan = runner.invoke(app, ["plan", "shop-payments"]).output.splitlines()
    assert plan[0] == "Application shop-payments: 2 objects, 2 steps (Argo CD 3.5.1, directory source)"
    assert [line.split()[:6] for line in plan[2:4]] == [
        ["1", "PreSync", "0", "Job", "shop-payments/shop-payments-migrate", "PreSync"],
        ["2", "Sync", "0", "Secret", "shop-payments/db", "-"]]  # fmt: skip


KEYCLOAK = {
    "keycloak/Chart.yaml": "apiVersion: v2\nname: keycloak\nversion: 0.1.0\n",
    "keycloak/values.yaml": "auth:\n  existingSecret: keycloak-db\ndb:\n  password: xxx\n  adminPassword: changeme-please\n",
    "keycloak/templates/job.yaml": (
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ .Values.auth.existingSecret }}-init\n"
        "  annotations: {argocd.argoproj.io/hook: PreSync, argocd.argoproj.io/sync-wave: \"{{ .Values.db.adminPassword }}\"}\n"
        "spec:\n  backoffLimit: 1\n  activeDeadlineSeconds: 60\n  template:\n    spec:\n      restartPolicy: Never\n"
        "      serviceAccountName: init\n      automountServiceAccountToken: false\n"
        "      containers: [{name: x, image: ghcr.io/acme/x:1.25, envFrom: [{secretRef: {name: {{ .Values.auth.existingSecret }}}}]}]\n"
        "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: xxx-postdelete\n"
        "  annotations: {argocd.argoproj.io/hook: PostDelete}\nspec:\n  backoffLimit: 1\n  activeDeadlineSeconds: 60\n"
        "  template:\n    spec:\n      restartPolicy: Never\n      serviceAccountName: init\n"
        "      automountServiceAccountToken: false\n      containers: [{name: x, image: \"ghcr.io/acme/x:1.25\"}]\n"),
}  # fmt: skip


@needs_helm
def test_existing_secret_names_a_secret_and_placeholders_are_no_secrets(repo):
    """Bitnami's ``auth.existingSecret: keycloak-db`` is the *name* of a Secret (``auth`` names a
    secret, so every value under it was one): ``Job/[redacted]-init``. A placeholder password
    ``xxx`` made ``Job/[redacted]-postdelete``, and ``changeme-please`` was hidden in HL012."""
    write(repo, KEYCLOAK)
    lint = runner.invoke(app, ["lint", "--select", "HL012,HL210", "keycloak"]).output.splitlines()
    assert lint[0] == (
        "keycloak/templates/job.yaml:1:1: error HL012 invalid-sync-wave: argocd.argoproj.io/sync-wave 'changeme-please' "
        "on Job/keycloak-db-init is not an integer Argo CD can read (Go strconv.Atoi: optional sign and digits, no "
        "spaces): Argo CD silently uses wave 0. Use a whole number such as \"1\" or \"-2\".")
    assert lint[1].startswith("keycloak/templates/job.yaml:16:1: note HL210 delete-hook-left-behind: PostDelete hook "
                              "Job/xxx-postdelete has neither")  # fmt: skip
    plan = runner.invoke(app, ["plan", "keycloak"]).output.splitlines()
    assert plan[2].split()[:5] == ["1", "PreSync", "0", "Job", "keycloak-db-init"]
    assert plan[-1].split()[:2] == ["Job", "xxx-postdelete"]


LONG_PASSWORD_CHART = {
    "c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n",
    "c/values.yaml": "db:\n  password: Hunter2-Secret-Value\n",
    "c/templates/cm.yaml": ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  annotations:\n"
                            "    argocd.argoproj.io/sync-wave: \"{{ .Values.db.password }}\"\n"),
}  # fmt: skip


@needs_helm
@pytest.mark.parametrize(("command", "fmt"), FORMATS)
def test_a_long_password_is_still_redacted_in_every_format_and_names_its_key(repo, command, fmt):
    """What a report says instead of a secret names the key that holds it (issue 34)."""
    write(repo, LONG_PASSWORD_CHART)
    result = runner.invoke(app, [command, "--format", fmt, "c"])
    out = result.output
    for form in ("Hunter2-Secret-Value", "hunter2-secret-value", base64.b64encode(b"Hunter2-Secret-Value").decode()):
        assert form not in out
    unescaped = out.replace("\\[", "[").replace("\\]", "]").replace("\\`", "`").replace("\\\\", "\\")
    assert "[the value of `password`]" in unescaped or "[the value of \\u0060password\\u0060]" in unescaped, out


def file_parameter_application(name: str, path: str) -> dict[str, str]:
    """An Application of this repository (``repo-urls``) rendering ``chart`` with the file
    parameter ``name`` read from ``chart/PATH``, and the configuration that maps it."""
    return {
        "apps/shop.yaml": f"""\
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {{name: shop, namespace: argocd}}
            spec:
              source:
                repoURL: https://example.com/acme/deploy.git
                path: chart
                helm:
                  fileParameters:
                  - {{name: {name}, path: {path}}}
              destination: {{namespace: shop, server: https://kubernetes.default.svc}}
            """,
        ".hooklint.yaml": "allowed-registries: [ghcr.io/acme]\nrepo-urls: [https://example.com/acme/deploy.git]\n",
    }


@needs_helm
def test_a_file_parameter_and_a_file_a_renderer_quotes_are_redacted(repo):
    """Issue 32: the content of a ``helm.fileParameters`` file (``--set-file``) and a chart file
    that is not YAML (``.Files.Get``) were never read for secrets: a ``fail`` message quoted them."""
    write(repo, {
        "chart/Chart.yaml": CHART_YAML,
        "chart/files/banner.txt": "BANNER-7f3a9c2e-token-from-a-file\n",
        "chart/files/db.properties": "# the database\ndb.host=db.example.internal\ndb.password=props-Secret-123\n",
        "chart/templates/check.yaml": '{{ fail (printf "banner %s; config %s" .Values.banner (.Files.Get "files/db.properties")) }}\n',
        **file_parameter_application("banner", "files/banner.txt"),
    })  # fmt: skip
    assert hl007("chart") == [
        "chart/templates/check.yaml:1:3: error HL007 render-failed: Rendering failed: execution error at "
        "(shop/templates/check.yaml:1:3): banner [the value of `banner`] ; config # the database "
        "db.host=db.example.internal db.password=[the value of `db.password`]" + TAIL
    ]  # fmt: skip


@needs_helm
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_file_parameter_copied_into_an_annotation_is_never_quoted_by_a_finding(repo, fmt):
    write(repo, {
        "chart/Chart.yaml": CHART_YAML,
        "chart/files/wave.txt": "wave-from-a-file-9f8e7d\n",
        "chart/templates/cm.yaml": ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  annotations:\n"
                                    "    argocd.argoproj.io/sync-wave: {{ .Values.wave | trim | quote }}\n"),
        **file_parameter_application("wave", "files/wave.txt"),
    })  # fmt: skip
    result = runner.invoke(app, ["lint", "--select", "HL012", "-f", fmt, "chart"])
    assert "wave-from-a-file" not in result.output and "the value of `wave`" in result.output.replace("\\u0060", "`")


@pytest.mark.parametrize(("name", "text", "key"), [
    ("db.properties", "# db\ndb.host=db.example.internal\ndb.password=props-Secret-123\n", "db.password"),
    ("app.ini", "[db]\nhost = db.example.internal\npassword = \"props-Secret-123\"\n", "password"),
    ("settings.json.tpl", '{\n  "host": "db.example.internal",\n  "apiToken": "props-Secret-123",\n}\n', "apiToken"),
    ("server.xml", "<db><host>db.example.internal</host><password>props-Secret-123</password></db>\n", "password"),
    ("admin-password.txt", "props-Secret-123\n", "admin-password"),
    ("tls.key", "props-Secret-123\n", "tls"),
])  # fmt: skip
def test_secret_values_of_files_that_are_not_yaml(tmp_path, name, text, key):
    """Issue 32: a renderer quotes files that are not YAML (a chart's ``.Files.Get``): their values
    under keys that name a secret, or the whole file when its name does, are secrets."""
    found = values_of(tmp_path, {f"chart/files/{name}": text})
    assert redact.redact("got props-Secret-123 from db.example.internal", found) == (
        f"got [the value of `{key}`] from db.example.internal")


def test_a_key_that_holds_a_secret_is_never_shown():
    """A ``secretGenerator`` literal or an env file line without ``=`` is its own key: what a
    report says instead of it must not be ``[the value of `<the secret>`]``."""
    values = redact.SecretValues()
    values.add("hunter2-literal-alone", "hunter2-literal-alone")
    values.add("Other-Secret-Value", "OTHER_SECRET_VALUE")
    values.add("db-password-value", "DB_PASSWORD")
    hide = redact.redactor(values)
    assert hide("x hunter2-literal-alone, other-secret-value, db-password-value") == (
        "x [redacted], [redacted], [the value of `DB_PASSWORD`]")


@settings(max_examples=200, deadline=None)
@given(st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=8, max_size=40),
       st.sampled_from(["as written", "json", "base64", "upper", "escaped"]),
       st.text(st.characters(codec="ascii"), max_size=20), st.text(st.characters(codec="ascii"), max_size=20))  # fmt: skip
def test_a_secret_is_never_left_in_a_text_in_any_form(secret, form, before, after):
    """Whatever a secret value holds, the matcher leaves none of the forms messages write it in."""
    values = redact.SecretValues()
    values.add(secret, "DB_PASSWORD")
    if not values.secrets:  # a placeholder, or shorter than 8 characters once stripped: never a secret
        return
    value = next(iter(values.secrets))
    written = {"as written": value, "json": json.dumps(value, ensure_ascii=False)[1:-1],
               "base64": base64.b64encode(value.encode()).decode(), "upper": value.upper(),
               "escaped": redact.escape_controls(value)}[form]  # fmt: skip
    hidden = redact.redactor(values)(before + written + after)
    letters = redact._SEPARATORS.sub("", value).lower()
    if form == "upper" and (len(letters) < redact.MIN_LENGTH or value.upper().lower() != value.lower()):
        return  # found by its letters only: when it has 8 of them, and when case changes keep them
    assert written not in hidden, (value, written, hidden)


# --- attacker trial of the wheel: three ways a secret was printed ------------------------------


def _tgz(files: dict[str, str]) -> bytes:
    """A gzipped tar archive of ``files`` (a packaged chart, as ``helm package`` writes one)."""
    import io
    import tarfile

    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, text in files.items():
            data = text.encode("utf-8")
            member = tarfile.TarInfo(name)
            member.size = len(data)
            tar.addfile(member, io.BytesIO(data))
    return out.getvalue()


SUB_CHART = {"sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
             "sub/values.yaml": "password: S3cretSubchartTGZ01\n",
             "sub/templates/own.yaml": '{{ if .Values.own }}{{ fail (printf "%s" .Values.password) }}{{ end }}\n'}
P_CHART = "apiVersion: v2\nname: p\nversion: 0.1.0\ndependencies:\n- {name: sub, version: 0.1.0}\n"
WAVE_CM = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n"
           "    argocd.argoproj.io/sync-wave: \"{{ .Values.sub.password }}\"\n")  # fmt: skip


@needs_helm
@pytest.mark.parametrize("packaged", [True, False], ids=["tgz", "folder"])
@pytest.mark.parametrize("template", [True, False], ids=["parent-template", "subchart-template"])
def test_a_packaged_subcharts_values_are_redacted(repo, packaged, template):
    """Attacker trial: the values of a subchart packaged as ``charts/sub-0.1.0.tgz`` were never read
    for redaction (only ``charts/*/values.yaml``), so HL007 printed its password, from the parent's
    template or the subchart's own; the same chart unpacked (``charts/sub2/``) was redacted."""
    write(repo, {"p/Chart.yaml": P_CHART, "p/values.yaml": "" if template else "sub: {own: true}\n"})
    if packaged:
        write(repo, {"p/charts/sub-0.1.0.tgz": _tgz(SUB_CHART)})
    else:
        write(repo, {f"p/charts/sub2/{name[len('sub/'):]}": text for name, text in SUB_CHART.items()})
    if template:
        write(repo, {"p/templates/check.yaml": '{{ fail (printf "%s" .Values.sub.password) }}\n'})
    at, where = (("p/templates/check.yaml:1:3", "p/templates/check.yaml:1:3") if template else
                 ("p/Chart.yaml:1:1" if packaged else "p/charts/sub2/templates/own.yaml:1:23",
                  "p/charts/sub/templates/own.yaml:1:23"))  # Helm names the subchart, not its folder
    assert hl007("p") == [
        f"{at}: error HL007 render-failed: Rendering failed: execution error at ({where}): "
        "[the value of `password`]" + TAIL
    ]  # fmt: skip


@needs_helm
def test_a_packaged_subcharts_value_in_a_sync_wave_is_redacted(repo):
    """The same password in a sync-wave annotation: HL012 and ``hooklint plan`` quoted it."""
    write(repo, {"p/Chart.yaml": P_CHART, "p/charts/sub-0.1.0.tgz": _tgz(SUB_CHART), "p/templates/cm.yaml": WAVE_CM})
    lint = runner.invoke(app, ["lint", "--select", "HL012", "p"]).output.splitlines()
    assert lint[0] == (
        "p/templates/cm.yaml:6:5: error HL012 invalid-sync-wave: argocd.argoproj.io/sync-wave '[the value of "
        "`password`]' on ConfigMap/a is not an integer Argo CD can read (Go strconv.Atoi: optional sign and digits, "
        "no spaces): Argo CD silently uses wave 0. Use a whole number such as \"1\" or \"-2\".")
    plan = runner.invoke(app, ["plan", "p"]).output.splitlines()
    assert plan[2].split(None, 7)[7] == (
        "sync-wave '[the value of `password`]' is not an integer: falls back to default wave 0")


@needs_helm
@pytest.mark.parametrize("written, verb, printed", [
    ('"S3cret\\u00a0NbspVALUE01"', "%q", '"[the value of `password`]"'),  # a no-break space: \u00a0
    ('"S3cret\\u00e9AccentVALUE02"', "%+q", '"[the value of `password`]"'),  # QuoteToASCII: \u00e9
    ('"S3cret\\u00e9AccentVALUE02"', "%q", '"[the value of `password`]"'),  # printable: as written
    ('"S3cret\\u200bZwspVALUE03\\U0001F600"', "%+q", '"[the value of `password`]"'),  # \u200b, \U0001f600
    ('"S3cret\\"Quote\\\\VALUE04\\x1b"', "%q", '"[the value of `password`]"'),  # \" \\ \x1b
], ids=["nbsp-q", "accent-plus-q", "accent-q", "astral-plus-q", "escapes-q"])  # fmt: skip
def test_a_secret_quoted_as_go_quotes_it_is_redacted(repo, written, verb, printed):
    """Attacker trial: ``printf "%q"`` (Go's strconv.Quote) writes a no-break space as ``\\u00a0``
    and ``"%+q"`` (strconv.QuoteToASCII) an ``é`` as ``\\u00e9``: neither form was one the matcher
    held, so HL007 printed the password. Both quotings are forms of every value now."""
    write(repo, {"chart/Chart.yaml": CHART_YAML, "chart/values.yaml": f"password: {written}\n",
                 "chart/templates/check.yaml": f'{{{{ fail (printf "{verb}" .Values.password) }}}}\n'})  # fmt: skip
    assert hl007("chart") == [
        "chart/templates/check.yaml:1:3: error HL007 render-failed: Rendering failed: execution error at "
        f"(shop/templates/check.yaml:1:3): {printed}" + TAIL
    ]  # fmt: skip


@needs_helm
@pytest.mark.parametrize("function", ["toJson", "toPrettyJson"])
def test_a_secret_encoded_by_gos_json_encoder_is_redacted(repo, function):
    """Second attacker trial: Go's encoding/json (Helm's toJson) writes <, > and & as \\u003c,
    \\u003e and \\u0026, a JSON escaping the matcher did not hold, so HL007 printed the password."""
    write(repo, {"chart/Chart.yaml": CHART_YAML, "chart/values.yaml": "dbPassword: \"Sup3r<Secret>&Val'ue#1\"\n",
                 "chart/templates/check.yaml": f'{{{{ fail (printf "J=%s" ({function} .Values.dbPassword)) }}}}\n'})  # fmt: skip
    assert hl007("chart") == [
        "chart/templates/check.yaml:1:3: error HL007 render-failed: Rendering failed: execution error at "
        '(shop/templates/check.yaml:1:3): J="[the value of `dbPassword`]"' + TAIL
    ]  # fmt: skip

@needs_helm
@pytest.mark.parametrize("function", ["html", "urlquery", "js"])
def test_a_secret_escaped_by_a_template_function_is_redacted(repo, function):
    """Third attacker trial: ``html``, ``urlquery`` and ``js`` escape a password's <, & and > (as
    &lt;, %3C, \\u003C): escapes, not transformations, and HL007 printed them."""
    write(repo, {"chart/Chart.yaml": CHART_YAML, "chart/values.yaml": 'db: {password: "Zq7<rT9&kLm2>Wx4"}\n',
                 "chart/templates/check.yaml": f'{{{{ fail (printf "v=%s" (.Values.db.password | {function})) }}}}\n'})  # fmt: skip
    assert hl007("chart") == [
        "chart/templates/check.yaml:1:3: error HL007 render-failed: Rendering failed: execution error at "
        "(shop/templates/check.yaml:1:3): v=[the value of `password`]" + TAIL
    ]  # fmt: skip


@needs_helm
@pytest.mark.parametrize("user, printed", [
    ("deployer", "[the value of `password`]"),  # the password starts a base64 group
    ("deploy", "[the value of `password`]"),  # it starts inside one: 'Hu' is in 'Okh1'
    ("ab", "[the value of `password`]"),
], ids=["offset-0", "offset-1", "offset-2"])  # fmt: skip
def test_a_secret_base64_encoded_after_other_bytes_is_redacted(repo, user, printed):
    """Third attacker trial: ``printf "%s:%s" .user .password | b64enc`` (a .dockerconfigjson
    ``auth``) printed a base64 that decodes to the password unless the user's name and the colon
    were a multiple of 3 bytes: each of the three offsets is a form of the secret. Since trial 4
    (chains of encodings) the whole base64 run that carried it is replaced, its user's part too."""
    write(repo, {"chart/Chart.yaml": CHART_YAML,
                 "chart/values.yaml": f"registry: {{username: {user}, password: Hunter2Secret99xy}}\n",
                 "chart/templates/check.yaml": '{{ fail (printf "auth=%s" (printf "%s:%s" .Values.registry.username '
                                               '.Values.registry.password | b64enc)) }}\n'})  # fmt: skip
    assert hl007("chart") == [
        "chart/templates/check.yaml:1:3: error HL007 render-failed: Rendering failed: execution error at "
        f"(shop/templates/check.yaml:1:3): auth={printed}" + TAIL
    ]  # fmt: skip

APPSET = """\
    apiVersion: argoproj.io/v1alpha1
    kind: ApplicationSet
    metadata: {name: shops, namespace: argocd}
    spec:
      goTemplate: GO
      generators:
      - list:
          elements:
          - {name: e1, password: S3cretAppSetElem05}
      template:
        metadata: {name: 'NAME'}
        spec:
          project: shop
          source:
            repoURL: https://example.com/acme/deploy.git
            path: chart
            helm:
              parameters:
              - {name: x, value: 'PASSWORD'}
          destination: {namespace: shop, server: https://kubernetes.default.svc}
    """


def _appset(go: bool) -> str:
    """:data:`APPSET` with fasttemplate's ``{{password}}`` or goTemplate's ``{{ .password }}``."""
    name, password = ("{{ .name }}", "{{ .password }}") if go else ("{{name}}", "{{password}}")
    return APPSET.replace("GO", str(go).lower()).replace("NAME", name).replace("PASSWORD", password)


@needs_helm
@pytest.mark.parametrize("go", [False, True], ids=["fasttemplate", "goTemplate"])
def test_an_applicationset_generators_secret_is_a_secret_of_its_applications(repo, go):
    """Attacker trial: a list generator element's ``password`` templated into the Helm parameter
    ``x`` (a name that names no secret) was public, so ``fail (toJson .Values)`` printed it in
    HL007. A generator parameter under a secret key is a secret of every Application it makes."""
    write(repo, {"chart/Chart.yaml": CHART_YAML, "chart/templates/check.yaml": "{{ fail (toJson .Values) }}\n",
                 "apps/set.yaml": _appset(go),
                 ".hooklint.yaml": "allowed-registries: [ghcr.io/acme]\nrepo-urls: [https://example.com/acme/deploy.git]\n"})  # fmt: skip
    assert hl007(".") == [
        "chart/templates/check.yaml:1:3: error HL007 render-failed: Rendering failed: execution error at "
        '(shop/templates/check.yaml:1:3): {"x":"[the value of `password`]"}' + TAIL
    ]  # fmt: skip


@needs_helm
def test_an_applicationset_generators_secret_in_a_sync_wave_is_redacted(repo):
    """The same parameter in a sync-wave annotation: HL012 and the plan quote its key instead."""
    write(repo, {"chart/Chart.yaml": CHART_YAML, "apps/set.yaml": _appset(False),
                 "chart/templates/cm.yaml": WAVE_CM.replace(".Values.sub.password", ".Values.x"),
                 ".hooklint.yaml": "allowed-registries: [ghcr.io/acme]\nrepo-urls: [https://example.com/acme/deploy.git]\n"})  # fmt: skip
    lint = runner.invoke(app, ["lint", "--select", "HL012", "."]).output
    assert "S3cretAppSetElem05" not in lint
    assert lint.splitlines()[0] == (
        "chart/templates/cm.yaml:6:5: error HL012 invalid-sync-wave: argocd.argoproj.io/sync-wave '[the value of "
        "`password`]' on ConfigMap/a is not an integer Argo CD can read (Go strconv.Atoi: optional sign and digits, "
        "no spaces): Argo CD silently uses wave 0. Use a whole number such as \"1\" or \"-2\".")
    plan = runner.invoke(app, ["plan", "."]).output
    assert "S3cretAppSetElem05" not in plan and "sync-wave '[the value of `password`]' is not an integer" in plan


#: Keys whose values are secrets (attacker trial 16, F7: 23 of these 41 chart value keys were printed
#: as written in HL012 messages), and keys that hold names (never hidden: a name is no secret).
SECRET_NAMED = ("passwd pwd PGPASSWORD private_key privateKey credentials credential connection_string connectionString "
                "DATABASE_URL dsn secret_access_key AWS_SECRET_ACCESS_KEY sas bearer cookie session_key signing_key "
                "github_pat kubeconfig passphrase pin otp client_secret ssh_key id_rsa id_ed25519 encryption_key "
                "master_key salt license_key webhook_url slack_webhook npm_auth jwt access_key_id hmac seed mnemonic "
                "cert_key tls_key").split()  # fmt: skip
NOT_SECRET_NAMED = ("name namespace key mapping spinnaker shipping image hostname hostPath secretKeyRef existingSecret "
                    "saltstack seeds opt pins patches path pattern tlsSecretName webhooks mutatingWebhook").split()  # fmt: skip


@pytest.mark.parametrize("key", SECRET_NAMED)
def test_a_key_that_names_a_secret_holds_one(key):
    from hooklint.sources.render.redact import secret_key

    assert secret_key(key)


@pytest.mark.parametrize("key", NOT_SECRET_NAMED)
def test_a_key_that_names_no_secret_holds_none(key):
    from hooklint.sources.render.redact import secret_key

    assert not secret_key(key)


@pytest.mark.parametrize("field, value, key", [
    ("data", base64.b64encode(b"DB_USER=app\nDB_PASSWORD=Hx7pLq2Wz9Rt\n").decode(), "DB_PASSWORD"),
    ("stringData", "|\n    db: {host: pg, password: Hx7pLq2Wz9Rt}\n    port: 5432", "password"),
    ("stringData", "'{\"auths\": {\"r.example.com\": {\"username\": \"u\", \"password\": \"Hx7pLq2Wz9Rt\"}}}'", "password"),
])  # fmt: skip
def test_a_secret_inside_a_secrets_file_is_a_secret(field, value, key, tmp_path, monkeypatch):
    """Attacker trial 18: a password inside a Secret's env file (or YAML, or .dockerconfigjson)
    value was printed as written in HL012 when a hook's sync-wave held it."""
    text = (f"apiVersion: v1\nkind: Secret\nmetadata: {{name: app-env}}\n{field}:\n  app.env: {value}\n---\n"
            "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: mig\n  annotations:\n"
            "    argocd.argoproj.io/hook: PreSync\n    argocd.argoproj.io/sync-wave: Hx7pLq2Wz9Rt\n")  # fmt: skip
    from typer.testing import CliRunner

    from hooklint.cli import app

    (tmp_path / "a.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    result = CliRunner().invoke(app, ["lint", "-f", "json", "a.yaml"])
    assert "Hx7pLq2Wz9Rt" not in result.output
    messages = [f["message"] for f in json.loads(result.stdout)["findings"] if f["rule_id"] == "HL012"]
    assert len(messages) == 1
    assert messages[0].startswith(f"argocd.argoproj.io/sync-wave '[the value of `{key}`]' on Job/mig")
