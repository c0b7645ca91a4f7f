"""A secret's bytes in hex with Go's ``0x`` before each (``printf "% #x"``, ``"%#04x"``), and its
characters as ``printf "%U"`` writes them, are found (attacker trial 26, B1: a template printed them
in an annotation and in ``fail``)."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hooklint.sources.render import redact

SECRET = "Zq8xKp2mWv7nLr4t"
RAW = SECRET.encode()
B64 = base64.b64encode(RAW)


@pytest.mark.parametrize("text", [
    " ".join(f"0x{b:02x}" for b in RAW),  # printf "% #x"
    " ".join(f"0X{b:02X}" for b in RAW),  # printf "% #X"
    ",".join(f"0x{b:04x}" for b in RAW),  # printf "%#04x" of each byte
    " ".join(f"U+{ord(c):04X}" for c in SECRET),  # printf "%U" of each character
    " ".join(f"0x{b:02x}" for b in B64),  # b64enc | printf "% #x"
])  # fmt: skip
def test_hex_with_a_prefix_before_each_byte_is_found(text):
    values = redact.SecretValues()
    values.add(SECRET, "password")
    assert redact.redactor(values)(f"wave '{text}' on ConfigMap/cm") == "wave '[the value of `password`]' on ConfigMap/cm"


def _spelled_per_byte(value: str) -> set[str]:
    """:func:`redact._hex_forms` as Go's printf spells each byte and rune, one at a time."""
    raw = value.strip().encode("utf-8")
    forms = set()
    for data in (raw, *(c.encode("ascii") for c in redact._base64_forms(raw) if len(c) >= redact.MIN_LENGTH)):
        forms.add("".join(f"{b:02x}" for b in data))
        forms.add("".join(f"0x{b:02x}" for b in data))  # "% #x"
        forms.add("".join(f"0x{b:04x}" for b in data))  # "%#04x"
    forms.add("".join(f"u{ord(c):04x}" for c in value.strip()))  # "%U", at least four digits

    def sharp_u(runes: str) -> str:  # "%#U"
        return "".join(f"u{ord(c):04x}" + (c.lower() if c.isalnum() else "") if c.isprintable() else f"u{ord(c):04x}"
                       for c in runes)  # fmt: skip

    forms.add(sharp_u(value.strip()))
    # a []byte of it in UTF-8, UTF-16LE and UTF-16BE (attacker trial 32, C)
    for data in (raw, value.strip().encode("utf-16-le"), value.strip().encode("utf-16-be")) if raw else ():
        if data is not raw:
            forms.add("".join(f"{b:02x}" for b in data))
        forms.add("".join(f"u{b:04x}" for b in data))  # "%U" of a []byte
        forms.add(sharp_u(data.decode("latin-1")))  # "%#U" of a []byte
        for base in ("d", "o", "b", "x"):  # "%d", "%o", "%b" of a []byte; each byte's hex, unpadded
            forms.add("".join(format(b, base) for b in data))
        # "%U" and "%#U" of a []byte without their zeros ("%.6U": U+00005A; attacker trial 33, L1)
        forms.add("".join(f"u{b:x}" for b in data))
        forms.add("".join(f"u{b:x}" + (chr(b).lower() if chr(b).isalnum() and chr(b).isprintable() else "")
                          for b in data))  # fmt: skip
    return forms


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40))
def test_the_hex_forms_spell_each_byte_and_rune_as_printf_does(value):
    """Spelled with ``bytes.hex``'s separator and UTF-16 code units (a certificate's forms took
    seconds byte by byte, and again for each application sharing its Secret: issue 34)."""
    assert redact._hex_forms.__wrapped__(value) == _spelled_per_byte(value)


@pytest.mark.parametrize("value", [
    "".join(chr(code) for code in range(1, 256)),  # every rune the tables spell (Latin-1 and its bytes)
    "x9Kq2\u00e9" * 300,  # a certificate's length, runes below 256
    "x9Kq2\u0130" * 40,  # a rune just above 255: spelled rune by rune
    "x9Kq2\u0130\u03a3" * 40,
])  # fmt: skip
def test_the_tables_spell_each_rune_and_byte_as_printf_does(value):
    """``%#U``, ``%d``, ``%o`` and ``%b`` are spelled through a table of the bytes 0 to 255 (a
    certificate's took 5 ms formatted rune by rune, for each value of a run)."""
    assert redact._hex_forms.__wrapped__(value) == _spelled_per_byte(value)


def test_a_values_forms_are_spelled_once_per_run_whatever_shares_it():
    """A second application sharing a Secret's value (an overlay, a copy of a chart) spells none of
    its forms again."""
    cert = "MIIB" + "x9Kq2" * 800
    first, second = redact.SecretValues(), redact.SecretValues()
    first.add(cert, "tls.key")
    second.add(cert, "tls.key")
    second.add("another-long-secret-value", "password")
    redact.redactor(first)
    memos = (redact._forms, redact._hex_forms)
    misses = [memo.cache_info().misses for memo in memos]
    redact.redactor(second)
    assert [memo.cache_info().misses for memo in memos] == [m + 1 for m in misses]  # the new value only


NON_ASCII = "Zq8vR\u00e93pLx7mW2nKd"
NON_ASCII_RAW = NON_ASCII.encode()


@pytest.mark.parametrize("text", [
    " ".join(f"U+{b:04X}" for b in NON_ASCII_RAW),  # printf "%U" (.Files.GetBytes ...): each byte
    " ".join(f"U+{b:04X} '{chr(b)}'" for b in NON_ASCII_RAW),  # "%#U" of the bytes
    " ".join(f"U+{ord(c):04X} '{c}'" for c in NON_ASCII),  # "%#U" of the string
    "[" + " ".join(str(b) for b in NON_ASCII_RAW) + "]",  # "%d", "%v"
    "[" + " ".join(f"{b:o}" for b in NON_ASCII_RAW) + "]",  # "%o"
    "[" + " ".join(f"{b:b}" for b in NON_ASCII_RAW) + "]",  # "%b"
])  # fmt: skip
def test_a_byte_slice_printed_byte_by_byte_is_found(text):
    """Go's fmt applies the verb to each byte of a []byte (attacker trial 29, B3: ``printf "%U"
    (.Files.GetBytes "files/db-password.txt")`` printed a non-ASCII password in HL007; B4: ``%#U``,
    ``%o``)."""
    values = redact.SecretValues()
    values.add(NON_ASCII, "password")
    shown = redact.redactor(values)(f"fail: {text} on ConfigMap/cm")
    assert "[the value of `password`]" in shown and "U+005A" not in shown and " 132 " not in shown, shown
