"""Values hooklint took for no secret, or never read, that a renderer or a finding printed (attacker
trial 25):

- B5: a value holding a template or reference anywhere (``Xk3$(Lp9...``, ``${TOKEN:-...}``), in angle
  brackets, or starting like a placeholder word (``changeme-Zq9x...``) was taken for a placeholder;
- B6: ``db``, ``url``, ``uri`` and ``endpoint`` under a key that names a secret were taken for no
  secret (``credentials: {db: ...}``, ``slackWebhook: {url: ...}``);
- B7: a packaged subchart's member of a type Python's tarfile skips and Go reads as a file
  (``Z``, ``A``), or renamed by a global PAX header for Python only, was never read;
- B8: a literal in a template that makes a Secret (``{{- $pw := "..." }}``, ``default "..."``);
- B9: a ``!!binary`` key (``? !!binary cGFzc3dvcmQ=``: ``password``).
"""

from __future__ import annotations

import io
import tarfile

import pytest

from hooklint.sources.render import redact
from hooklint.sources.render.redact import SecretValues, secret_values
from hooklint.sources.repository.charts import packaged_files

SECRET = "Zq9xW7vK2mPLr4"


@pytest.mark.parametrize("value, expected", [
    ("xxxxxxxx", True), ("{{ .Values.db.password }}", True), ("${DB_PASSWORD}", True), ("$(DB_PASSWORD)", True),
    ("<path:secret/data/db#password>", True), ("<your-password>", True), ("changeme", True),
    ("your-password-here", True), ("CHANGE_ME_PLEASE", True),
    (f"changeme-{SECRET}", False), ("Xk3$(Lp9Qr7Zt2", False), ("Insert9Qr7Zt2Lp", False),
    ("${TOKEN:-Qw8eRt6yUi4oP2}", False), (f"<{SECRET}>", False), (f"{SECRET}{{{{", False),
    ("{{ randAlphaNum 16 }}", True), ("{{- $x -}}", True), (f"{{{{ {SECRET} }}}}", False),  # a word in braces
])  # fmt: skip
def test_only_a_whole_placeholder_is_one(value, expected):
    """B5: a template, reference or placeholder word only as the whole value."""
    assert redact.placeholder(value) is expected


def test_a_templates_literals_under_a_secret_key_are_secrets():
    """B8: ``{{ .Values.db.password | default "..." }}`` holds its default as a literal."""
    found = SecretValues()
    found.add('{{ .Values.db.password | default "' + SECRET + '" | quote }}', "password")
    assert found.kept() == {SECRET: "password"}


@pytest.mark.parametrize("yaml_text, value, key", [
    (f"credentials: {{db: {SECRET}}}\n", SECRET, "credentials"),
    (f"password: {{db: {SECRET}}}\n", SECRET, "password"),
    (f"slackWebhook:\n  url: https://hooks.slack.com/services/{SECRET}\n", f"https://hooks.slack.com/services/{SECRET}",
     "slackWebhook"),
    (f"apiToken: {{endpoint: {SECRET}}}\n", SECRET, "apiToken"),
    (f"? !!binary cGFzc3dvcmQ=\n: {SECRET}\n", SECRET, "password"),
])  # fmt: skip
def test_values_under_a_secret_key_and_binary_keys_are_secrets(yaml_text, value, key):
    """B6, B9."""
    assert redact.value_secrets([yaml_text]).kept() == {value: key}


def test_a_user_name_under_a_secret_key_stays_public():
    found = redact.value_secrets([f"auth:\n  username: ci-robot-account\n  password: {SECRET}\n"])
    assert found.kept() == {SECRET: "password"}


def test_a_template_that_makes_a_secret_holds_its_literals_as_secrets(tmp_path):
    """B8: the Secret's value carried by a template variable (``{{- $pw := "..." }}``), printed by
    another template's ``fail`` through ``include``."""
    (tmp_path / "c/templates").mkdir(parents=True)
    (tmp_path / "c/templates/secret.yaml").write_text(
        f'{{{{- $pw := "{SECRET}" }}}}\napiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n'
        "stringData:\n  password: {{ $pw }}\n")  # fmt: skip
    (tmp_path / "c/templates/cm.yaml").write_text('{{ $x := "not-a-secret-literal" }}\nkind: ConfigMap\n')
    found = secret_values([str(tmp_path / "c/templates/secret.yaml"), str(tmp_path / "c/templates/cm.yaml")],
                          str(tmp_path))  # fmt: skip
    assert SECRET in found.kept() and "not-a-secret-literal" not in found.kept()


def _archive(members: list[tarfile.TarInfo], data: dict[str, bytes], pax: dict[str, str] | None = None) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz", format=tarfile.PAX_FORMAT, pax_headers=pax or {}) as tar:
        for info in members:
            tar.addfile(info, io.BytesIO(data.get(info.name, b"")))
    return out.getvalue()


def _member(name: str, content: bytes, kind: bytes = tarfile.REGTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size, info.type = len(content), kind
    return info


@pytest.mark.parametrize("kind", [b"Z", b"A"])
def test_a_member_of_a_type_python_skips_leaves_the_archive_unread(kind):
    """B7: Go's archive/tar hands Helm a member of an unknown type as a file; Python's tarfile
    does not read it as one: the archive is not read whole."""
    values = f"password: {SECRET}\n".encode()
    data = _archive([_member("sub/Chart.yaml", b"name: sub\n"), _member("sub/values.yaml", values, kind)],
                    {"sub/Chart.yaml": b"name: sub\n", "sub/values.yaml": values})  # fmt: skip
    files, whole = packaged_files(data)
    assert ([name for name, _ in files], whole) == (["sub/Chart.yaml"], False)


def test_a_global_pax_header_leaves_the_archive_unread():
    """B7: a global PAX header's ``path=`` renames members for Python's tarfile, not for Go's."""
    values = f"password: {SECRET}\n".encode()
    data = _archive([_member("sub/values.yaml", values)], {"sub/values.yaml": values}, pax={"path": "sub/other.txt"})
    assert packaged_files(data)[1] is False


def test_a_plain_archive_is_read_whole():
    values = f"password: {SECRET}\n".encode()
    data = _archive([_member("sub/values.yaml", values)], {"sub/values.yaml": values})
    assert packaged_files(data) == ([("sub/values.yaml", values)], True)


def test_the_secrets_inside_a_secrets_yaml_file_and_registry_auth_are_secrets():
    """B12: a Secret's ``app.yaml`` with a ``!!binary`` key, and a ``.dockerconfigjson`` whose
    ``auth`` is base64 of ``user:password``: the password alone was printed."""
    found = redact.object_secrets([{"kind": "Secret", "stringData": {
        "app.yaml": "? !!binary cGFzc3dvcmQ=\n: Bc4eFg6iJk8lMn\n",
        ".dockerconfigjson": '{"auths": {"r.io": {"auth": "cm9ib3Q6RGU2Z0hpOGtMbTBuT3A="}}}'}}])
    assert {value: key for value, key in found.kept().items() if "\n" not in value and "{" not in value} == {
        "Bc4eFg6iJk8lMn": "password", "cm9ib3Q6RGU2Z0hpOGtMbTBuT3A=": "auth", "robot:De6gHi8kLm0nOp": "auth",
        "De6gHi8kLm0nOp": "auth"}
