"""A secret's bytes as Go's ``printf`` writes them padded with zeros or with a base prefix
(``%03d``, ``%08b``, ``%04o``, ``%#o``, ``%O``, ``%#b``, ``%#08b``), and the bytes of its UTF-16
encodings (a file in UTF-16 read with ``.Files.GetBytes``) in every byte spelling, are found
(attacker trial 32, A and C)."""

from __future__ import annotations

import base64
import re

import pytest

from hooklint.sources.render import redact

SECRET = "Zq8vT3xKpL9w"
RAW = SECRET.encode()
UTF16 = b"\xff\xfe" + SECRET.encode("utf-16-le")  # as Windows' Notepad writes a file


def _go_list(data: bytes, spell) -> str:
    """``printf VERB`` of a ``[]byte``: each byte spelled, between brackets, separated by spaces."""
    return "[" + " ".join(spell(b) for b in data) + "]"


@pytest.mark.parametrize("spell", [
    lambda b: f"{b:03d}",  # %03d
    lambda b: f"{b:08b}",  # %08b
    lambda b: f"{b:04o}",  # %04o
    lambda b: f"0{b:o}" if b else "0",  # %#o
    lambda b: f"0o{b:o}",  # %O
    lambda b: f"0b{b:b}",  # %#b
    lambda b: f"0b{b:08b}",  # %#08b
    lambda b: f"+{b}",  # %+d
    lambda b: f"{b:5d}",  # %5d
], ids=["%03d", "%08b", "%04o", "%#o", "%O", "%#b", "%#08b", "%+d", "%5d"])  # fmt: skip
def test_a_bytes_padded_or_prefixed_numbers_are_found(spell):
    values = redact.SecretValues()
    values.add(SECRET, "password")
    text = _go_list(RAW, spell)
    hidden = redact.redactor(values)(f"wave '{text}' on ConfigMap/cm")
    # what a first byte's padding writes before its digits (%5d's spaces, %+d's sign) may stay
    assert re.fullmatch(r"wave '\[[ +]*\[the value of `password`\]\]' on ConfigMap/cm", hidden), hidden


@pytest.mark.parametrize("text", [
    UTF16.hex(),  # printf "%x"
    UTF16.hex(" "),  # printf "% x"
    UTF16.hex(" ").upper(),  # printf "% X"
    " ".join(f"0x{b:02x}" for b in UTF16),  # printf "% #x"
    _go_list(UTF16, str),  # printf "%d", "%v"
    _go_list(UTF16, lambda b: f"{b:o}"),  # printf "%o"
    _go_list(UTF16, lambda b: f"{b:b}"),  # printf "%b"
    _go_list(UTF16, lambda b: f"{b:03d}"),  # printf "%03d"
    _go_list(UTF16, lambda b: f"U+{b:04X}"),  # printf "%U"
    _go_list(UTF16, lambda b: f"U+{b:04X} '{chr(b)}'" if chr(b).isprintable() else f"U+{b:04X}"),  # printf "%#U"
    _go_list(SECRET.encode("utf-16-be"), str),  # big-endian, no byte order mark
])  # fmt: skip
def test_the_bytes_of_a_utf16_file_are_found(text):
    """The Secret's ``data`` holds the file as written (UTF-16 with a byte order mark), which
    hooklint decodes to the value; a template prints the file's bytes."""
    values = redact.SecretValues()
    values.add_stored(base64.b64encode(UTF16).decode(), "password", encoded=True)
    hidden = redact.redactor(values)(f"wave '{text}' on ConfigMap/cm")
    assert hidden.startswith("wave '") and hidden.endswith("' on ConfigMap/cm")
    assert "[the value of `password`]" in hidden
    assert not any(piece in hidden for piece in ("113", "161", "1110001", "71 00", "710038", "U+0071"))


def test_numbers_that_spell_no_secret_are_left_as_written():
    """The padded numbers of a text are read without their zeros only to look for secrets: a
    text that holds none is printed as written."""
    values = redact.SecretValues()
    values.add(SECRET, "password")
    text = "sync-wave '007', image app:0.0.10, mode 0644, [090 113 056], 0x00ff"
    assert redact.redactor(values)(text) == text
