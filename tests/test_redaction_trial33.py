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


LISTED_SECRET = "Zq9xK3mPw7LrT5vB"


def test_the_pieces_of_a_listed_annotation_that_are_parts_of_a_secret():
    """Only the pieces of a text that holds a secret, and only those that are part of one."""
    values = redact.SecretValues()
    values.add(LISTED_SECRET, "password")
    texts = ["Zq9xK3mP,w7LrT5vB", "PreSync, Zq9xK3mPw7LrT5vB", "Zq9x,K3mP,w7Lr,T5vB,Zq", "PreSync,PostSync", "K3mP"]
    assert redact.listed_pieces(texts, values, redact.redactor(values)) == {
        "Zq9xK3mP": "password", "w7LrT5vB": "password", "Zq9xK3mPw7LrT5vB": "password",
        "Zq9x": "password", "K3mP": "password", "w7Lr": "password", "T5vB": "password",
    }  # fmt: skip


@pytest.mark.parametrize("annotation", [
    "argocd.argoproj.io/hook: Zq9xK3mP,w7LrT5vB",
    "argocd.argoproj.io/hook: PreSync\n    argocd.argoproj.io/hook-delete-policy: Zq9x,K3mP,w7Lr,T5vB",
    "helm.sh/hook: Zq9xK3mP,w7LrT5vB",
    "argocd.argoproj.io/sync-options: Zq9xK3mP,w7LrT5vB",
])  # fmt: skip
def test_a_secret_written_with_commas_into_a_listed_annotation_is_never_printed(tmp_path, monkeypatch, annotation):
    """Argo CD reads these annotations as comma-separated lists, and each finding quotes one piece:
    each piece of a secret is hidden (attacker trial 33, L4: HL010 printed 'Zq9xK3mP' and
    'w7LrT5vB', each too short to be found alone)."""
    from typer.testing import CliRunner

    from hooklint.cli import app

    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "all.yaml").write_text(
        f"apiVersion: v1\nkind: Secret\nmetadata: {{name: db}}\nstringData:\n  password: {LISTED_SECRET}\n---\n"
        f"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n    {annotation}\n"
        "spec:\n  backoffLimit: 1\n  template:\n    spec:\n      restartPolicy: Never\n"
        "      containers: [{name: c, image: busybox:1.36}]\n")  # fmt: skip
    for fmt in ("text", "json", "sarif", "markdown"):
        out = CliRunner().invoke(app, ["lint", "-f", fmt, "app"]).output
        assert "the value of" in out, fmt
        assert not any(piece in out for piece in ("Zq9x", "K3mP", "w7Lr", "T5vB")), (fmt, out)
