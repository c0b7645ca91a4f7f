"""Text taken from manifests, made safe to print: the one escaping every reporter uses.

A manifest is written by whoever opened the pull request, and its names, namespaces, annotation
values, images and file names reach terminals, CI logs, workflow commands, pull-request comments
and code-scanning alerts. A carriage return or an escape sequence in a name can rewrite the
terminal line a reviewer reads (``plan`` showed ``Job/x\\r<ESC>[2K...``), a bidirectional override
can make text read differently from what it is (Trojan Source, CVE-2021-42574), a line break can
forge a GitHub workflow command or a row of a Markdown table.

:func:`escape_controls` writes such characters as the backslash escapes Python and Go use
(``\\x1b``, ``\\r``, ``\\n``, ``\\t``, ``\\u202e``), so nothing is hidden or lost. It escapes C0
controls (U+0000–U+001F: the line breaks and tabs of a value too; a reporter's own line breaks are
added around the escaped text, never inside it), DEL (U+007F), C1 controls (U+0080–U+009F, NEL
among them), the line and paragraph separators U+2028/U+2029, and the bidirectional controls
U+061C, U+200E, U+200F, U+202A–U+202E and U+2066–U+2069. A backslash already in the text is kept
as it is: the escaped text is for reading, not for decoding.

JSON outputs (``json``, ``sarif``, ``gitlab``, ``plan -f json``, the baseline) keep values as the
manifest holds them, as data must, and :func:`json_safe` writes those characters in the JSON text
as ``\\uXXXX`` escapes (JSON itself escapes only C0): a reader decodes the same value, and no raw
control character is in the file. The strings a service shows to people (SARIF ``message.text``,
GitLab's ``description``) are escaped with :func:`escape_controls` too, as on a terminal.

The GitHub Actions runner also reads the legacy ``##[command]`` form of its workflow commands
anywhere in a line of a step's output, not only at its start (``ActionCommand.TryParse`` in
actions/runner's ``src/Runner.Common/ActionCommand.cs`` looks for ``##[`` with ``IndexOf``): an
Application named ``x##[warning]x`` or an image holding ``##[error]`` would forge an annotation
from any report printed in a step. :func:`escape_controls` writes the second ``#`` of ``##[`` as
``\\x23``, and :func:`escape_commands` does the same over a whole report, for the text, GitHub and
Markdown reports whose lines join repository text with hooklint's own.

:func:`go_trim_space` trims text as Go's ``strings.TrimSpace`` does: how Argo CD, gitops-engine,
Helm and the ApplicationSet controller trim the values hooklint models. Python's ``str.strip()``
trims more (U+001C-U+001F too), so a value it trims may be one Go keeps as written.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

#: Every character :func:`escape_controls` escapes.
CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
#: The same but C0 (which JSON escapes itself).
_JSON_RAW = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: The GitHub runner's legacy command prefix, and how it is written out (``#\x23[``).
LEGACY_COMMAND, LEGACY_COMMAND_ESCAPED = "##[", "#\\x23["


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str, keep: str = "") -> str:
    """``text`` with every control, line-break, separator and bidirectional-control character
    written as a backslash escape (module docstring), but the characters of ``keep`` (for a format
    that encodes them its own way: GitHub's ``%0A``); any other character unchanged."""
    if CONTROLS.search(text):
        text = CONTROLS.sub(lambda m: m.group() if m.group() in keep else _escape(m), text)
    return escape_commands(text)


#: ``::`` at the start of a line, after any blanks: where the runner reads a workflow command.
_LINE_COMMAND = re.compile(r"^([^\S\n]*):(?=:)", re.MULTILINE)


def escape_line_commands(text: str) -> str:
    """``text`` (a whole report) with each line that starts with ``::`` after blanks written
    ``\\x3a:``. The runner reads a workflow command from a line that starts with ``::`` once
    leading white space is trimmed (``ActionCommand.TryParseV2``); a text report's line starts with
    a path from the repository, and a folder named ``::error::x`` would forge an error annotation.
    Not for ``-f github``, whose own lines are such commands (its values are escaped instead)."""
    return _LINE_COMMAND.sub(r"\1\\x3a", text) if "::" in text else text


def escape_commands(text: str) -> str:
    """``text`` with every ``##[`` (the GitHub runner's legacy workflow-command prefix, read
    anywhere in a line) written ``#\\x23[``; anything else unchanged. Applied to whole reports too,
    so that no ``##[`` forms where repository text meets hooklint's own."""
    return text.replace(LEGACY_COMMAND, LEGACY_COMMAND_ESCAPED) if LEGACY_COMMAND in text else text


def json_safe(text: str) -> str:
    """JSON text with DEL, C1, U+2028/U+2029 and the bidirectional controls written as ``\\uXXXX``
    escapes (the text decodes to the same values; JSON's own escaping covers C0), and the second
    ``#`` of ``##[`` (the GitHub runner's legacy command prefix; JSON has no ``#`` outside strings)
    as ``\\u0023``, so that a JSON report printed in a workflow step forges no command either."""
    if (not text.isascii() or "\x7f" in text) and _JSON_RAW.search(text):  # each is DEL or past ASCII
        text = _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text.replace(LEGACY_COMMAND, "#\\u0023[") if LEGACY_COMMAND in text else text


REDACTED = "[redacted]"


#: Keys whose values are secrets wherever they are (any object, values files, kustomizations, the
#: query parameters of a URL): the one list (:func:`hooklint.sources.render.redact.secret_key` reads
#: it; :func:`url_credentials` too).
SECRET_KEY = re.compile(r"pass(?:word|wd|phrase)?|pwd|secret|token|credential|private|auth|api[-_.]?key|"
                        r"access[-_.]?key|cert|dsn|connection[-_]?string|bearer|cookie|jwt|kubeconfig|mnemonic|"
                        r"hmac|id_(?:rsa|dsa|ecdsa|ed25519)|database[-_.]?url|webhook[-_.]?url|slack[-_.]?webhook|"
                        r"(?:session|signing|ssh|encryption|master|license|tls|host|sas|shared|crypt)[-_.]?key|"
                        r"(?:^|[-_.])(?:pat|sas|otp|pin|salt|seed)$", re.IGNORECASE)  # fmt: skip
#: What names a secret in a URL's query beyond :data:`SECRET_KEY`: a signed URL's ``sig`` and
#: ``signature`` (Azure SAS, ``X-Amz-Signature``) and an API's ``key`` (``?key=``), which as mapping
#: keys name no secret (``secretKeyRef.key``).
_URL_SECRET_PARAMETER = re.compile(r"key|sig", re.IGNORECASE)

#: The credentials a URL can carry: its userinfo, ``scheme://user:password@`` (the password) or
#: ``scheme://token@`` (the whole user part, but ``git``), for every scheme; the password of a
#: scp-like Git address ``user:password@host:path``; and the values of query parameters named like
#: secrets (:data:`SECRET_KEY`, :data:`_URL_SECRET_PARAMETER`: ``?access_token=``, ``&sig=``,
#: ``?jwt=``). The userinfo is read as Go's ``net/url`` ``parse`` reads it (kustomize's and Argo
#: CD's Git URLs): the authority is what follows ``//`` up to the first ``/`` (``?`` and ``#``
#: end it first), and its userinfo what precedes its LAST ``@`` (``strings.LastIndex(authority,
#: "@")``), which ``validUserinfo`` lets hold RFC 3986's sub-delims (``'``, ``!``, ``;``...) and
#: ``@`` (attacker trial 19 B6: a password with ``'`` was printed whole, one with ``@`` half). In a
#: message the authority also ends at white space (no userinfo holds any). Each is found in time
#: linear in the text's length (attacker trial 10 item 8): each ``://`` once, its scheme before it
#: (:data:`_SCHEME_CHAR`), each white-space-separated word once (scp-like), each parameter's name
#: (:data:`_URL_PARAMETER`), then whether it names a secret.
_URL_START = re.compile(r"://")
_AUTHORITY = re.compile(r"[^/?#\s]*")
_SCHEME_CHAR = re.compile(r"[\w+.-]")
_URL_PARAMETER = re.compile(r"[?&]([\w.-]*)=(?=[^&\s'\"#])")
_PARAMETER_VALUE = re.compile(r"[^&\s'\"#]+")
_WORD = re.compile(r"\S+")
#: A scp-like Git address's user (a word, after any opening quote or bracket) and its host with the
#: ``:`` before the path.
_SCP_USER = re.compile(r"[\"'(<\[=]*([\w.~+-]+):")
_SCP_HOST = re.compile(r"[A-Za-z0-9][A-Za-z0-9.-]*:")
#: ``algorithm:hex``: an image digest (``name:tag@sha256:...``), no scp-like host.
_DIGEST = re.compile(r"[A-Za-z0-9]+[.+_-]?[A-Za-z0-9]*:[0-9a-fA-F]{32,}")


def _after_scheme(text: str, at: int) -> bool:
    """Whether ``text[:at]`` ends with a URL scheme as ``\\b[A-Za-z][\\w+.-]*`` finds one: in the
    run of ``[\\w+.-]`` characters before ``at``, an ASCII letter at the run's start or after a
    ``+``, ``.`` or ``-``."""
    start = at
    while start > 0 and _SCHEME_CHAR.match(text, start - 1):
        start -= 1
    return any(text[i].isascii() and text[i].isalpha() and (i == start or text[i - 1] in "+.-")
               for i in range(start, at))


def _hidden_userinfo(userinfo: str) -> str:
    """``userinfo`` with its password (after the first ``:``, as Go's ``strings.Cut``) replaced,
    or all of it when it has none (a token), but ``git`` (no secret)."""
    if ":" in userinfo:
        return userinfo.split(":", 1)[0] + ":" + REDACTED
    return userinfo if userinfo == "git" else REDACTED


def _userinfo(text: str) -> str:
    pieces: list[str] = []
    copied = 0
    for found in _URL_START.finditer(text):
        if found.start() < copied or not _after_scheme(text, found.start()):
            continue
        authority = _AUTHORITY.match(text, found.end()).group()  # type: ignore[union-attr]  # matches ""
        at = authority.rfind("@")
        if at > 0:
            pieces += [text[copied:found.end()], _hidden_userinfo(authority[:at])]
            copied = found.end() + at
    return "".join(pieces) + text[copied:]


def _scp_passwords(text: str) -> str:
    """``text`` with the password of each scp-like Git address ``user:password@host:path`` (a word
    without ``://``; the password up to the word's last ``@`` before a host, no ``/`` in it)
    replaced; an image reference ``name:tag@sha256:...`` is none."""
    pieces: list[str] = []
    copied = 0
    for word in _WORD.finditer(text):
        value = word.group()
        if "@" not in value or ":" not in value or "://" in value:
            continue
        user = _SCP_USER.match(value)
        if user is None:
            continue
        slash = value.find("/", user.end())
        at = value.rfind("@", user.end(), slash if slash >= 0 else len(value))
        while at > user.end():
            if _SCP_HOST.match(value, at + 1) and not _DIGEST.match(value, at + 1):
                pieces += [text[copied:word.start() + user.end()], REDACTED]
                copied = word.start() + at
                break
            at = value.rfind("@", user.end(), at)
    return "".join(pieces) + text[copied:]


def _secret_parameter(name: str) -> bool:
    return bool(SECRET_KEY.search(name) or _URL_SECRET_PARAMETER.search(name))


def _query_values(text: str) -> str:
    pieces: list[str] = []
    copied = position = 0
    while (parameter := _URL_PARAMETER.search(text, position)) is not None:
        position = parameter.end()
        if _secret_parameter(parameter.group(1)):
            value = _PARAMETER_VALUE.match(text, position)
            if value is not None:
                pieces += [text[copied:position], REDACTED]
                copied = position = value.end()
    return "".join(pieces) + text[copied:]


def holds_url_credentials(text: str) -> bool:
    """Whether :func:`url_credentials` may change ``text``: only a text with ``@`` (userinfo, a
    scp-like password) or ``=`` (a query parameter) holds credentials it removes."""
    return "@" in text or "=" in text


def url_credentials(text: str) -> str:
    """``text`` with the credentials of every URL in it replaced by ``[redacted]`` (the userinfo as
    Go reads it, a scp-like address's password, query parameters named like secrets: see
    :data:`SECRET_KEY` and the notes above it): a remote kustomize entry or repoURL may embed a
    token, and findings, notes, errors and ``doctor`` quote entries as written. Linear in the
    length of ``text``."""
    if "@" in text:
        text = _scp_passwords(_userinfo(text))
    if "=" in text:
        text = _query_values(text)
    return text


#: The body of a double-quoted literal, unrolled (each character read one way): up to its closing
#: quote, a backslash before a line break (without ``dotall``) or the end.
_QUOTED_BODY = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*')
_QUOTED_BODY_DOTALL = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*', re.DOTALL)


def literal_spans(text: str, start: int = 0, end: int | None = None, *, dotall: bool = False,
                  raw: bool = False) -> Iterator[tuple[int, int]]:  # fmt: skip
    """The spans ``(start, end)`` of ``text[start:end]``'s double-quoted literals (backslash escapes;
    a backslash escapes a line break only with ``dotall``) and, with ``raw``, its backquoted ones
    (no escapes), left to right, as ``re.finditer(r'"(?:[^"\\\\]|\\\\.)*"|`[^`]*`', ...)`` finds
    them, in time linear in the length: that expression reads a quote that closes nothing to the
    end once for every quote (``"\\"\\"\\"...``). A quote that closes nothing fails where its body
    ends, and so does every quote its body read past (each read as ``\\"``, after which both bodies
    are the same), so none of them is read again."""
    end = len(text) if end is None else end
    body = _QUOTED_BODY_DOTALL if dotall else _QUOTED_BODY
    opening = re.compile('["`]' if raw else '"')
    fails_before = -1  # a quote before this position closes nothing
    raw_closes = True  # a backquote may still close
    at = start
    while (found := opening.search(text, at, end)) is not None:
        first = found.start()
        at = first + 1
        if text[first] == "`":
            close = text.find("`", first + 1, end) if raw_closes else -1
            if close < 0:
                raw_closes = False
                continue
            yield first, close + 1
            at = close + 1
        elif first >= fails_before:
            stop = body.match(text, first + 1, end).end()  # type: ignore[union-attr]  # matches the empty string
            if stop < end and text[stop] == '"':
                yield first, stop + 1
                at = stop + 1
            else:
                fails_before = stop


#: Go's ``unicode.IsSpace`` (``src/unicode/graphic.go``): ``'\t'``, ``'\n'``, ``'\v'``, ``'\f'``,
#: ``'\r'``, ``' '``, U+0085 (NEL) and U+00A0 (NBSP) in Latin-1, and above it the ``White_Space``
#: property (``src/unicode/tables.go``: U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F,
#: U+3000). Python's ``str.isspace()`` is true for exactly these and for U+001C-U+001F (the file,
#: group, record and unit separators: bidirectional class B or S), which Go does not trim.
GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"


def go_trim_space(text: str) -> str:
    """``text`` without the :data:`GO_SPACE` characters at either end: Go's ``strings.TrimSpace``
    (``src/strings/strings.go``), as gitops-engine's ``GetAnnotationCSVs``
    (``pkg/sync/resource/annotations.go``: hook types, delete policies, sync and compare options,
    ``helm.sh/hook``, ``helm.sh/resource-policy``), Argo CD's ``isHookOfType``
    (``controller/hook.go``), Helm's ``SortManifests`` (``pkg/release/util/manifest_sorter.go``),
    the ApplicationSet controller's fasttemplate tags (``applicationset/utils/utils.go``
    ``Replace``) and ``NormalizeGitURL`` (``util/git/git.go``) trim. Unlike ``str.strip()`` it
    keeps U+001C-U+001F, so ``"\\x1cSkip"`` stays ``"\\x1cSkip"``: no hook type to Argo CD."""
    return text.strip(GO_SPACE)


def go_to_upper(text: str) -> str:
    """``text`` as Go's ``strings.ToUpper`` writes it (sprig's ``upper``): each character through
    ``unicode.ToUpper``, the simple one-to-one case mapping. Python's ``str.upper()`` uses the full
    mapping, which writes some characters as two (``ß`` -> ``SS``; Go leaves ``ß``); the rest agree
    (``ſ`` -> ``S``, ``ı`` -> ``I``, ``ς`` -> ``Σ``)."""
    if text.isascii():
        return text.upper()
    return "".join(upper if len(upper := char.upper()) == 1 else char for char in text)


def go_to_lower(text: str) -> str:
    """``text`` as Go's ``strings.ToLower`` writes it: each character through ``unicode.ToLower``,
    the simple one-to-one case mapping. Python's ``str.lower()`` differs on U+0130 (``İ``: Go
    gives ``i``, Python ``i`` and a combining dot) and on a final capital sigma (Go ``σ``, Python
    ``ς``), so ``pre-İnstall`` is Helm's ``pre-install``."""
    if text.isascii():
        return text.lower()
    return "".join("i" if char == "\u0130" else char.lower() for char in text)


def internal_error(exc: BaseException) -> str:
    """``exc`` as an internal error's message names it: its type and where it was raised
    (``KeyError at model.py:812 in _grantee``), never its text, which may quote a value of the
    application, a Secret's among them, that the redaction of an application hooklint failed on
    never learnt (attacker trial 27: a Python exception's text reached a finding)."""
    import traceback  # here: only a failure pays for it

    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno} in {frames[-1].name}" if frames else ""
    return f"{type(exc).__name__}{where}"
