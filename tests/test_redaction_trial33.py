"""Attacker trial 33: a file's bytes as ``printf "%.6U"`` pads them, a file or a Secret's data in
UTF-16 with Latin-1 letters and no byte order mark or holding an env file, are found (L1-L3); a
date's or a version's zeros in a name are read as written (P1)."""

from __future__ import annotations

import base64
import re

import pytest

from hooklint.sources.render import redact

SECRET = "Hv8sT2nQ5wJd"
RAW = SECRET.encode()


@pytest.mark.parametrize("spell", [
    lambda b: f"U+{b:06X}",  # %.6U
    lambda b: f"U+{b:05X}",  # %.5U
    lambda b: f"U+{b:06X} '{chr(b)}'",  # %#.6U
], ids=["%.6U", "%.5U", "%#.6U"])  # fmt: skip
def test_a_bytes_u_with_a_precision_is_found(spell):
    values = redact.SecretValues()
    values.add(SECRET, "password")
    text = "[" + " ".join(spell(b) for b in RAW) + "]"
    hidden = redact.redactor(values)(f"wave '{text}' on ConfigMap/wave")
    assert re.fullmatch(r"wave '\[(U\+)?\[the value of `password`\]'?\]' on ConfigMap/wave", hidden), hidden


def test_a_secret_named_file_in_utf16_with_latin1_letters_and_no_bom_is_a_secret(tmp_path):
    (tmp_path / "db-password.txt").write_bytes("Éclair-Tür88x".encode("utf-16-le"))
    found = redact.secret_values([str(tmp_path / "db-password.txt")], str(tmp_path))
    assert found.kept() == {"Éclair-Tür88x": "db-password"}


@pytest.mark.parametrize("bom", [b"\xff\xfe", b""], ids=["with a byte order mark", "without"])
def test_an_env_file_in_a_secrets_data_in_utf16_holds_secrets(bom):
    env = bom + "DB_PASSWORD=Zq9xK3mPw7Lr\nMODE=prod\n".encode("utf-16-le")
    secret = {"kind": "Secret", "data": {"app.env": base64.b64encode(env).decode()}}
    found = redact.object_secrets([secret])
    assert found.secrets.get("Zq9xK3mPw7Lr") == "DB_PASSWORD"
    assert redact.redactor(found)("sync-wave 'Zq9xK3mPw7Lr'") == "sync-wave '[the value of `DB_PASSWORD`]'"


@pytest.mark.parametrize("text", [
    "ConfigMap/report-2024-01-05-12",  # 20241512 once its zeros are dropped: a date, read as written
    "Job/backup-02024-001-05-0012",
    "image app:2024.01.05.12, mode 0644",
])  # fmt: skip
def test_a_names_zeros_are_read_as_written(text):
    values = redact.SecretValues()
    values.add("20241512", "pin")
    assert redact.redactor(values)(text) == text
