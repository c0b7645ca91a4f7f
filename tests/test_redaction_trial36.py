"""Attacker trials 36 and 37: a file's bytes or a value's characters under a verb Go's ``fmt`` has no
meaning for (``%e``, ``%t``, ``%f``, ``%z``: ``%!e(uint8=45)``, ``%!t(string=Z)``, ``%!s(int=45)``
per item) are found as ``%d`` or ``%s`` writes them (36, 1; 37, 1 and 2); a long value
whose UTF-16 encoding is shorter than its UTF-8 has its byte spellings looked for in a text as long
as its UTF-16 bytes (2)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import write
from hooklint.catalog import load_catalog
from hooklint.config import Config
from hooklint.pipeline import lint_paths
from hooklint.sources.render import redact
from hooklint.sources.render.helm import find_helm

needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")

SECRET = "Hv8sT2nQ5wJd-Zq9xK3mP"


@pytest.mark.parametrize("spelled", [
    "[" + " ".join(f"%!e(uint8={b})" for b in SECRET.encode()) + "]",  # printf "%e" (.Files.GetBytes ...)
    "[" + " ".join(f"%!t(uint8={b})" for b in SECRET.encode()) + "]",  # %t
    "[" + " ".join(f"%!z(uint8={b:03d})" for b in SECRET.encode()) + "]",  # padded
    "[" + " ".join(f"%!f(uint8={b})" for b in SECRET.encode("utf-16-le")) + "]",  # a file in UTF-16
    "[" + " ".join(f"%!s(int={b})" for b in SECRET.encode()) + "]",  # trial 37, 2: each byte after `int`
    "[" + " ".join(f"%!e(int64={b})" for b in SECRET.encode()) + "]",  # after `int64`
    "[" + " ".join(f"%!t(string={c})" for c in SECRET) + "]",  # trial 37, 1: splitList "" of the value
], ids=["%e", "%t", "%z padded", "%f utf-16", "int", "int64", "string"])  # fmt: skip
def test_a_bytes_bad_verb_spelling_is_found(spelled):
    values = redact.SecretValues()
    values.add(SECRET, "tls")
    hidden = redact.redactor(values)(f"execution error: {spelled}")
    assert re.fullmatch(r"execution error: \[%!\w\((?:u?int\d*|string)=\[the value of `tls`\]\)\]", hidden), hidden


def test_a_bad_verb_of_other_bytes_is_printed_as_written():
    values = redact.SecretValues()
    values.add(SECRET, "tls")
    text = "[" + " ".join(f"%!e(uint8={b})" for b in b"not the secret at all") + "]"
    assert redact.redactor(values)(text) == text


@needs_helm
def test_a_chart_printing_a_secret_file_under_a_bad_verb_prints_none_of_it(tmp_path, monkeypatch):
    """The chart of the trial, rendered by Helm: its ``fail`` message is Go's own spelling."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {
        "chart/Chart.yaml": "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
        "chart/files/tls.key": SECRET + "\n",
        "chart/templates/cm.yaml": '{{ fail (printf "%e" (.Files.GetBytes "files/tls.key")) }}\n',
    })  # fmt: skip
    result = lint_paths(["chart"], Config(), load_catalog())
    [message] = [f.message for f in result.findings if f.rule_id == "HL007"]
    assert "[%!e(uint8=[the value of `tls`]) %!e(uint8=10)]" in message, message
    numbers = bytes(int(n) for n in re.findall(r"uint8=(\d+)", message))
    assert numbers == b"\n"


LONG = "इसउपकरणकाउपयोगअधिकृतउपयोगकर्ताहीकरें" * 60  # 6,480 bytes in UTF-8, 4,320 in UTF-16


def test_a_long_value_shorter_in_utf16_is_found_spelled_as_utf16():
    """``%d`` writes ``अ`` in UTF-16 as ``5 9``: two digits for three UTF-8 bytes. Its spellings
    are built for a text with as many letters and digits as its UTF-16 bytes, not its UTF-8."""
    values = redact.SecretValues()
    values.add(LONG, "tls")
    hide = redact.redactor(values)
    assert hide.long == ((LONG, "tls"),)
    data = b"\xff\xfe" + LONG.encode("utf-16-le")
    hidden = hide("[" + " ".join(str(b) for b in data) + "]")
    assert hidden == "[255 254 [the value of `tls`]]"


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=40))
def test_every_byte_spelling_has_a_letter_or_digit_per_byte_of_the_shorter_encoding(value):
    """What :meth:`Redactor._loose` leaves a long value out by: no spelling of it is shorter than
    :func:`redact._least_bytes`."""
    forms = redact._hex_forms.__wrapped__(value)
    if value.strip():
        assert min(len(form) for form in forms) >= redact._least_bytes(value)
