"""A Secret's own value stays a secret wherever else the application writes it (attacker trial 10
item 9): a directory source whose ConfigMap annotation held a Secret's password printed it in
HL012, in every format, while the same value routed by kustomize ``replacements`` was
``[the value of `password`]``. Only a name, a namespace, a label or a path makes it public."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.sources.render import redact
from hooklint.sources.render.kustomize import find_kustomize

needs_kustomize = pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")
runner = CliRunner()

FORMATS = ["text", "json", "sarif", "markdown", "github"]
SECRET = "apiVersion: v1\nkind: Secret\nmetadata: {name: db}\nstringData:\n  password: Wv7StoredPassXi\n"
ENCODED = "apiVersion: v1\nkind: Secret\nmetadata: {name: db}\ndata:\n  password: V3Y3U3RvcmVkUGFzc1hp\n"  # Wv7StoredPassXi
CONFIG_MAP = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  annotations:\n"
              "    argocd.argoproj.io/sync-wave: Wv7StoredPassXi\ndata: {a: b}\n")  # fmt: skip
MESSAGE = ("argocd.argoproj.io/sync-wave '[the value of `password`]' on ConfigMap/cfg is not an integer Argo CD can "
           "read (Go strconv.Atoi: optional sign and digits, no spaces): Argo CD silently uses wave 0. Use a whole "
           "number such as \"1\" or \"-2\".")  # fmt: skip


@pytest.fixture(autouse=True)
def repo(tmp_path, monkeypatch):
    """An empty repository (a folder with .git) as the current directory, no cache."""
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def message_of(output: str, fmt: str) -> str:
    """The HL012 message of ``output`` in format ``fmt``, as the format writes it."""
    if fmt == "json":
        return next(f["message"] for f in json.loads(output)["findings"] if f["rule_id"] == "HL012")
    if fmt == "sarif":
        return next(r["message"]["text"] for r in json.loads(output)["runs"][0]["results"] if r["ruleId"] == "HL012")
    line = next(line for line in output.splitlines() if "sync-wave" in line)
    if fmt == "markdown":
        line = line.replace("\\[", "[").replace("\\]", "]").replace("\\`", "`")
    return line


@pytest.mark.parametrize("secret", [SECRET, ENCODED], ids=["stringData", "data"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_secrets_value_in_an_annotation_of_a_directory_source_is_redacted(repo, fmt, secret):
    write(repo, {"app/secret.yaml": secret, "app/cm.yaml": CONFIG_MAP})
    result = runner.invoke(app, ["lint", "-f", fmt, "--select", "HL012", "app"])
    assert result.exit_code == 1
    assert "Wv7StoredPassXi" not in result.output and "V3Y3U3RvcmVkUGFzc1hp" not in result.output
    found = message_of(result.output, fmt)
    if fmt in ("json", "sarif"):
        assert found == MESSAGE
    elif fmt == "text":
        assert found == f"app/cm.yaml:6:35: error HL012 invalid-sync-wave: {MESSAGE}"
    elif fmt == "github":
        assert found.startswith("::error file=app/cm.yaml,line=6,") and found.endswith(MESSAGE)
    else:
        assert MESSAGE in found


def test_a_secrets_value_in_an_annotation_of_a_directory_source_is_redacted_in_the_plan(repo):
    write(repo, {"app/secret.yaml": SECRET, "app/cm.yaml": CONFIG_MAP})
    result = runner.invoke(app, ["plan", "app"])
    assert "Wv7StoredPassXi" not in result.output
    assert "sync-wave '[the value of `password`]' is not an integer: falls back to default wave 0" in result.output


@needs_kustomize
def test_a_secrets_value_written_in_an_annotation_through_kustomize_is_redacted_the_same_way(repo):
    """The kustomize path read the ConfigMap as written (``written_values``), which made the value
    public there too: both paths now keep a Secret's value a secret."""
    write(repo, {"app/kustomization.yaml": "resources: [secret.yaml, cm.yaml]\n",
                 "app/secret.yaml": SECRET, "app/cm.yaml": CONFIG_MAP})  # fmt: skip
    result = runner.invoke(app, ["lint", "-f", "json", "--select", "HL012", "app"])
    assert "Wv7StoredPassXi" not in result.output
    assert message_of(result.output, "json") == MESSAGE


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_secrets_value_that_is_also_a_name_stays_readable(repo, fmt):
    """A name is public: a Secret holding the name of an object (a database's Service) does not hide it."""
    write(repo, {"app/secret.yaml": SECRET.replace("Wv7StoredPassXi", "orders-database"),
                 "app/cm.yaml": CONFIG_MAP.replace("name: cfg", "name: orders-database")
                 .replace("Wv7StoredPassXi", "orders-database")})  # fmt: skip
    result = runner.invoke(app, ["lint", "-f", fmt, "--select", "HL012", "app"])
    assert "[the value of" not in result.output.replace("\\[", "[")
    assert "sync-wave 'orders-database' on ConfigMap/orders-database" in message_of(result.output, fmt)


def test_what_keeps_a_secrets_value_a_secret():
    """:meth:`SecretValues.kept`: a Secret's value stays one where it is also public, not where it is a name."""
    found = redact.object_secrets([{"kind": "Secret", "stringData": {"password": "Wv7StoredPassXi", "user": "orders-db-user"},
                                    "data": {"token": "V3Y3U3RvcmVkUGFzc1hp"}}])  # fmt: skip
    redact.public_of_objects([{"kind": "ConfigMap", "metadata": {"name": "orders-db-user", "annotations": {
        "x": "Wv7StoredPassXi"}}, "data": {"k": "V3Y3U3RvcmVkUGFzc1hp"}}], found)  # fmt: skip
    assert found.kept() == {"Wv7StoredPassXi": "password", "V3Y3U3RvcmVkUGFzc1hp": "token"}
    values = redact.SecretValues()  # a value under a secret key of a chart's values: public where also written
    values.add("Wv7StoredPassXi", "password")
    values.add_public("Wv7StoredPassXi")
    assert values.kept() == {}
