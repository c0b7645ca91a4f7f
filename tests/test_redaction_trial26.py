"""A secret's bytes in hex with Go's ``0x`` before each (``printf "% #x"``, ``"%#04x"``), and its
characters as ``printf "%U"`` writes them, are found (attacker trial 26, B1: a template printed them
in an annotation and in ``fail``)."""

from __future__ import annotations

import base64

import pytest

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
