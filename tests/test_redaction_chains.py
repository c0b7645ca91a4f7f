"""Secrets printed through chains of encodings are redacted (trial 4 item 5; hooklint.sources.render.redact
``Redactor._hidden``): ``b64enc | b64enc``, ``upper | b64enc``, ``b64enc | upper``, ``toJson | toJson``,
``urlquery | b64enc``, ``html | b64enc`` printed the password recoverably, reproduced with the real
renderer; and the fetch credentials file base64'd twice."""

from __future__ import annotations

import base64
import json
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.sources.render import redact
from hooklint.sources.render.helm import find_helm

needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")
runner = CliRunner()

TAIL = (". Argo CD's repo server fails the same way, so the application cannot sync; nothing of it is "
        "checked until it renders.")  # fmt: skip
#: The attacker's password: non-ASCII, quotes, <&>, a backslash, spaces (every escape has work).
PASSWORD = "Hunter2-é'\"<&>\\ Zq9 Kx7-secretTAIL"
SHOWN = "[the value of `password`]"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".hooklint.yaml").write_text("allowed-registries: [ghcr.io/acme]\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@needs_helm
@pytest.mark.parametrize("expression, printed", [
    (".Values.db.password | b64enc | b64enc", SHOWN),
    (".Values.db.password | b64enc | b64enc | b64enc", SHOWN),
    (".Values.db.password | upper | b64enc", SHOWN),
    (".Values.db.password | lower | b64enc | b64enc", SHOWN),
    (".Values.db.password | b64enc | upper", SHOWN),
    (".Values.db.password | b64enc | lower", SHOWN),
    (".Values.db.password | toJson | toJson", f'"\\"{SHOWN}\\""'),
    (".Values.db.password | toJson | toJson | toJson", f'"\\"\\\\\\"{SHOWN}\\\\\\"\\""'),
    (".Values.db.password | toJson | toJson | b64enc", SHOWN),
    (".Values.db.password | urlquery | b64enc", SHOWN),
    (".Values.db.password | b64enc | urlquery", SHOWN),
    (".Values.db.password | html | b64enc", SHOWN),
    (".Values.db.password | html | html", SHOWN),
    (".Values.db.password | js | b64enc", SHOWN),
    ('printf "%q" .Values.db.password | b64enc', SHOWN),
    (".Values.db.password | nospace", SHOWN),
    ('printf "%x" .Values.db.password', SHOWN),
    (".Values.db.password | b32enc", SHOWN),
    ('printf "user:%s" .Values.db.password | b64enc | b64enc', SHOWN),
])  # fmt: skip
def test_a_secret_through_a_chain_of_encodings_is_redacted(repo, expression, printed):
    (repo / "chart" / "templates").mkdir(parents=True)
    (repo / "chart" / "Chart.yaml").write_text("apiVersion: v2\nname: shop\nversion: 0.1.0\n")
    (repo / "chart" / "values.yaml").write_text(f"db:\n  password: {json.dumps(PASSWORD)}\n")
    (repo / "chart" / "templates" / "cm.yaml").write_text(f'{{{{ fail (printf "v=%s" ({expression})) }}}}\n')
    result = runner.invoke(app, ["lint", "--format", "text", "chart"])
    assert [line for line in result.output.splitlines() if "HL007" in line] == [
        "chart/templates/cm.yaml:1:3: error HL007 render-failed: Rendering failed: execution error at "
        f"(shop/templates/cm.yaml:1:3): v={printed}" + TAIL]


CREDENTIALS = textwrap.dedent("""\
    charts.example.com:
      username: ci-bot
      password: VerySecretRegistryPassw0rd
    ghcr.io:
      token: ghp_TOKENVALUE1234567890abcdef
    """)


def test_the_fetch_credentials_base64_twice_are_redacted(tmp_path):
    """/tmp/attack-fcred: ``.Files.Get ".fetch-credentials.yaml" | b64enc | b64enc`` returned the
    registry password (the file is now also out of every renderer's copy: test_withheld.py)."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".fetch-credentials.yaml").write_text(CREDENTIALS)
    twice = base64.b64encode(base64.b64encode(CREDENTIALS.encode())).decode()
    thrice = base64.b64encode(twice.encode()).decode()
    message = f"execution error at (root/templates/cm.yaml:1:3): A={CREDENTIALS!r} B={twice} C={thrice}"
    inputs = [str(tmp_path / ".fetch-credentials.yaml")]
    assert redact.redact_message(message, inputs, str(tmp_path), helm=True) == (
        "execution error at (root/templates/cm.yaml:1:3): A='charts.example.com:\\n  username: ci-bot\\n  "
        "password: [the value of `password`]\\nghcr.io:\\n  token: [the value of `token`]\\n' "
        "B=[the value of `password`] C=[the value of `password`]")  # fmt: skip


def hide_password() -> redact.Redactor:
    values = redact.SecretValues()
    values.add(PASSWORD, "password")
    return redact.redactor(values)


def test_what_carries_no_secret_is_left_as_written():
    """No noise: base64 of other text, escapes, long words and URLs stay as they are."""
    hide = hide_password()
    other = base64.b64encode(base64.b64encode(b"nothing secret here, only a banner")).decode()
    texts = [f"banner {other} and {other.upper()}", 'v="\\"a \\\\u003c b\\"" %3Cb%3E &lt;b&gt;',
             "accumulating resources from ValidatingWebhookConfiguration/x", "see https://example.com/a%20b?x=1"]
    assert [hide(text) for text in texts] == texts


def test_an_escaped_secret_is_replaced_where_it_is_written_and_a_base64_run_whole():
    hide = hide_password()
    quoted = json.dumps(json.dumps(PASSWORD))
    run = base64.b64encode(b"user:" + PASSWORD.encode()).decode()
    assert hide(f"a {quoted} b {run} c") == f'a "\\"{SHOWN}\\"" b {SHOWN} c'


def test_the_decoding_is_bounded_and_fails_closed(monkeypatch):
    """Past :data:`~hooklint.sources.render.redact.DECODE_BUDGET` characters decoded, every base64
    run and every word with an escape is replaced whole: what was not decoded may hide a secret."""
    hide = hide_password()
    noise = base64.b64encode(bytes(range(256)) * 3).decode()
    message = f"x {noise} y \\u0041b z plain"
    assert hide(message) == message
    monkeypatch.setattr(redact, "DECODE_BUDGET", 100)
    assert hide(message) == "x [redacted] y [redacted] z plain"


@pytest.mark.parametrize("shown", [
    "bitnami/" + base64.b64encode(b"Sup3rS3cretValue22").decode().upper(),  # b64enc | upper after a path
    "bitnami/-" + base64.b32encode(base64.b64encode(b"Sup3rS3cretValue22")).decode(),  # b64enc | b32enc
    "x " + base64.b32encode(base64.b64encode(b"Sup3rS3cretValue22")).decode() + " y",
    "bitnami/a" + b"Sup3rS3cretValue22".hex().upper(),  # printf "%X" after a hex digit
])  # fmt: skip
def test_encodings_inside_a_longer_word_are_found(shown):
    """Attacker trial 6: an upper-cased encoding right after other base64 or hex characters (a path,
    a hex digit) was not looked at in one case, and base32 of base64 was never decoded."""
    values = redact.SecretValues()
    values.add("Sup3rS3cretValue22", "apiKey")
    hidden = redact.redactor(values)(f"Image '{shown}' of container 'c'")
    assert "[the value of `apiKey`]" in hidden
    assert all(part not in hidden for part in (shown[-12:], shown[9:21]))


def _go_quote_reference(text: str, ascii_only: bool) -> str:
    """Go's strconv.Quote between its quotes, one character at a time (appendEscapedRune)."""
    out = []
    for char in text:
        code = ord(char)
        if char in '\a\b\f\n\r\t\v"\\':
            out.append({"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
                        "\v": "\\v", '"': '\\"', "\\": "\\\\"}[char])  # fmt: skip
        elif char.isprintable() and not (ascii_only and code >= 0x80):
            out.append(char)
        elif code < 0x80:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return "".join(out)


def _template_reference(text: str) -> set[str]:
    """html, urlquery (byte by byte) and js of Go's text/template, one character at a time."""
    html = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;").replace('"', "&#34;")
    query = "".join(chr(b) if b < 0x80 and (chr(b).isalnum() or chr(b) in "-_.~") else "+" if b == 0x20 else f"%{b:02X}"
                    for b in text.encode("utf-8"))  # fmt: skip
    js = "".join("\\" + c if c in "\\'\"" else f"\\u{ord(c):04X}" if c in "<>&=" or ord(c) < 0x20 else c for c in text)
    return {html, query, js}


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=40))
def test_escapes_by_distinct_character_write_what_go_writes_character_by_character(text: str) -> None:
    """go_quoted and template_escaped rewrite a text by a table of its distinct characters (a
    certificate's forms cost 44 ms a value one character at a time): the same text as the
    character-by-character spelling of strconv.Quote, QuoteToASCII, html, urlquery and js."""
    assert redact.go_quoted(text) == _go_quote_reference(text, False)
    assert redact.go_quoted(text, ascii_only=True) == _go_quote_reference(text, True)
    assert redact.template_escaped(text) == _template_reference(text)


def test_go_quoted_and_template_escaped_of_known_texts() -> None:
    assert redact.go_quoted('a"b\\c\n\x1b\u00e9\U0001f600\u00a0') == 'a\\"b\\\\c\\n\\x1b\u00e9\U0001f600\\u00a0'
    assert redact.go_quoted("\u00e9\U0001f600", ascii_only=True) == "\\u00e9\\U0001f600"
    assert redact.template_escaped("a b&<é='\"\\\t") == {
        "a b&amp;&lt;é=&#39;&#34;\\\t", "a+b%26%3C%C3%A9%3D%27%22%5C%09", "a b\\u0026\\u003Cé\\u003D\\'\\\"\\\\\\u0009"}
