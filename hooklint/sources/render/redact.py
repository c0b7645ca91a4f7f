"""Secret values kept out of everything hooklint prints: renderer messages (HL007, HL009), findings
and the sync plan.

**What a secret value is** (issue 34): the values of Secrets (``stringData``, and ``data`` both as
written and decoded from base64) and the values under keys that name a secret (:func:`secret_key`:
``password``, ``token``, ``credential``...; the ``value`` of a ``{name: DB_PASSWORD, value: ...}``
entry); the ``literals``, ``files`` and ``envs`` of kustomize's ``secretGenerator``; the values files of packaged
subcharts (``charts/*.tgz``, :func:`archive_secrets`) as those of unpacked ones; an ApplicationSet
generator's parameters under such keys, for every Application it makes, wherever its template
copies them (:attr:`SecretValues.carried`); the files an
Application passes as Helm values (``helm.fileParameters``, ``--set-file``); and, in files that are
not YAML (a chart's ``files/``, an ``.env``, a ``.properties``), the values of ``KEY=value`` lines whose
key names a secret (multi-line ones, XML and other forms: :func:`_plain_text`) and the whole content of
a file whose name, a part of it or a folder of its path does (``db-password.txt``, ``tls.key``,
``db.password``, ``secrets/db.txt``). **Never** a secret:

- a value shorter than :data:`MIN_LENGTH` (8) characters, and ``true``, ``null`` and the like;
- a placeholder (:func:`placeholder`): ``xxxxxxxx``, ``changeme``, ``<your-password>``,
  ``{{ .Values.db.password }}``, ``${DB_PASSWORD}``, ``<path:vault#key>``;
- a reference to a Secret by its name (:data:`_REFERENCE_KEY`: ``existingSecret``, ``secretName``,
  ``*Ref.name``, ``*SecretName``), even under a key that names a secret (Bitnami's
  ``auth.existingSecret``);
- a value the application also writes where nothing is secret (:attr:`SecretValues.public`): a
  name, a namespace, a label, a ConfigMap's data, any value under a key that names no secret, a
  mapping key, a folder or file name of its inputs, its Application's name and namespace. A secret
  that is part of such a name (``xxx-postdelete``) is none either (:attr:`SecretValues.names`). A
  Secret's own value is public only so (:attr:`SecretValues.stored`): written also in an annotation
  or a ConfigMap, it is still a secret (attacker trial 10 item 9).

**How it is found**: each secret value as written, JSON-escaped, with control characters escaped as
one-line messages write them (:func:`hooklint.text.escape_controls`), base64-encoded, as Go's byte list
(kustomize's ``line [80 65 ...]``), line by line for a value of several lines, and in any case with
its separators changed or dropped (a chart's ``fail`` may print ``upper`` or ``join`` of it), by one
matcher (:class:`Redactor`: two Aho-Corasick automata of the ``pyahocorasick`` package), built once
per run for a set of values (:func:`redactor`). Where a text quotes one, it says ``[the value of
`KEY`]`` (the key that holds it) instead, or ``[redacted]`` where no key names it. Paths and object
identities the application writes are never rewritten (they are public). Credentials in URLs are
always removed (:func:`url_credentials`), and the quoted literals after renderer message prefixes
that quote input values are replaced whatever they hold (:data:`_SCRUBS`).

**Chains of encodings** (trial 4): before the automata look, :class:`Redactor` decodes a text's
escapes and base64 runs, three decodings deep (:meth:`Redactor._hidden`); base64, hex and base32 are
found in any letter case (:func:`_folded_forms`); base64 also unpadded and as base64url
(:func:`_base64_forms`); the hex of the value and of its base64 with any separators between the bytes
(``printf "% x"``: :func:`_hex_forms`, found by the letters automaton; trial 20 B2, B4).

**Outside the promise** (README): a value a template transforms otherwise (a substring, ``shuffle``,
a hash) before a renderer prints it; chains deeper than :data:`DECODE_DEPTH`; a case change after
base64 applied twice; hex of anything but the value and its base64 (hex is not decoded); base64 split by spaces; past :data:`DECODE_BUDGET` (fail closed: every base64
run and escaped word replaced); values shorter than 8 characters; a value of fewer than 8 letters
and digits with its separators changed (it is found as written and with each kind of its other
characters dropped: attacker trial 32, B).

Renderer messages: kustomize and Helm fail with messages that quote what they read: kustomize echoes
every ``secretGenerator`` literal of a generator with one bad literal (``literal sources [a=s3cret
b:x]: invalid literal source b:x, expected key=value``), an env file line with invalid UTF-8 both as
text and as its byte values; Helm's JSON Schema check quotes the value that fails (``at
'/db/password': 's3cret' does not match pattern ...``), ``fail`` and ``required`` print messages
templates build from values, PyYAML's errors quote the line they stopped on, go-yaml quotes a scalar
(``cannot unmarshal !!str `s3cret...```). hooklint repeats those messages, and its reports go to CI
logs and pull-request comments, so before a render error becomes a load issue
(:func:`hooklint.sources.render.render`, the one place that happens) its message passes through
:func:`render_error_redactor`, with the secret values of the files the rendering read.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import functools
import json
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import ahocorasick
import yaml

from hooklint.files import read_bytes, walk_tree
from hooklint.sources.repository import facts
from hooklint.sources.render.rendered import RenderError
from hooklint.text import REDACTED, SECRET_KEY, escape_controls, go_to_lower, go_to_upper, url_credentials
from hooklint.yamlio import BoundedLoader, go_first_document, written_pairs

T = TypeVar("T")


#: Keys that name a secret without holding one (``secretKeyRef``, ``secretName``, ``existingSecret``,
#: ``passwordSecretName``; Bitnami's ``secretKeys.adminPasswordKey``, the name of a key of a Secret),
#: whose values are references even under a key that names a secret.
_REFERENCE_KEY = re.compile(r"(?:refs?|names?|password[-_]?key|secret[-_]?keys)$|^existing|^automount", re.IGNORECASE)
#: A key's last word read backwards (``existingSecret``: ``existing\w*$`` as a search costs the square
#: of a long word's length; this is matched once, at the start of the reversed key).
_LAST_WORD_REVERSED = re.compile(r"\w*")
#: Scalars that are no secret wherever they are (go-yaml v2's booleans and null).
_NOT_SECRET = frozenset("y Y yes Yes YES n N no No NO true True TRUE false False FALSE on On ON off Off OFF null Null NULL ~".split())


def secret_key(key: str) -> bool:
    """Whether values under mapping key ``key`` are secrets (:data:`~hooklint.text.SECRET_KEY`, the
    list URL query parameters are read with too; not a reference)."""
    return bool(SECRET_KEY.search(key)) and not reference_key(key)


def reference_key(key: str) -> bool:
    """Whether mapping key ``key`` names a secret without holding one (:data:`_REFERENCE_KEY`, or
    its last word holds ``existing``: ``dbExistingSecret``), in time linear in its length."""
    if _REFERENCE_KEY.search(key):
        return True
    last = _LAST_WORD_REVERSED.match(key[::-1])
    return last is not None and "gnitsixe" in last.group().lower()


def named_secret(pairs: Iterable[tuple[str, object]]) -> bool:
    """Whether the mapping of ``pairs`` (key, value node or value) is a named value whose name is
    a secret's: ``{name: DB_PASSWORD, value: ...}`` (a container's ``env`` entry, an Application's
    Helm parameter), whose ``value`` then holds the secret whatever it is called."""
    for key, value in pairs:
        if key == "name":
            name = value.value if isinstance(value, yaml.ScalarNode) else value
            return isinstance(name, str) and secret_key(name)
    return False


#: Bounds on what is read to find secret values (the files are the rendering's own inputs).
MAX_FILE_BYTES = 1 << 20
MAX_FILES = 5000
MAX_VALUES = 50000
#: Nodes :func:`_node` walks in one document at most: more than the loader lets a document hold
#: (:data:`~hooklint.yamlio.MAX_NODES`, and :data:`~hooklint.yamlio.MAX_EXPANDED_NODES` through
#: aliases), so it never stops first; if it did, the values are incomplete (fail closed).
MAX_WALK = 2_000_000
#: Largest packaged subchart (``charts/*.tgz``) whose files are read (:func:`archive_secrets`).
MAX_ARCHIVE_BYTES = 16 << 20
#: Shortest secret value: a shorter one is never searched for (it would eat the words of messages).
MIN_LENGTH = 8
#: Longest form of a value written as Go's byte list (kustomize prints env file lines so).
_MAX_BYTE_LIST = 1024

_KUSTOMIZATIONS = ("kustomization.yaml", "kustomization.yml", "kustomization")
_YAML = (".yaml", ".yml", ".json")
_Loader = BoundedLoader

#: Placeholders, whole values: one character repeated (``xxxxxxxx``, ``********``); a template or
#: a reference to a value kept elsewhere (``{{ .Values.x }}``, ``${VAR}``, ``$(VAR)``,
#: argocd-vault-plugin's ``<path:...>``, ``<% ... %>``); a description in angle brackets
#: (``<your-password>``: letters, spaces, ``-`` and ``_``). Only whole: ``changeme-Xk3...``,
#: ``Xk3$(Lp9...``, ``${TOKEN:-Qw8e...}`` and ``<Zq9x...>`` are secrets (attacker trial 25, B5); and
#: a template only when it reads as one (a field, a variable, a call with arguments: ``{{ Zq9x...
#: }}`` is a word in braces, a secret).
_PLACEHOLDER = re.compile(r"(.)\1*|\{\{-?\s*(?:[.$(\"]|[A-Za-z_]\w*\s+\S|end\b|else\b).*\}\}|\$\{[A-Za-z_][\w.]*\}|\$\([A-Za-z_][\w.]*\)|<path:[^<>]*>|<%.*%>"
                          r"|<[A-Za-z][A-Za-z _-]*>", re.DOTALL)
#: A string literal inside a template (``{{ .Values.x | default "s3cret" }}``): a secret itself.
_TEMPLATE_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.){8,4096})"|`([^`]{8,4096})`')
#: Placeholder words, compared without case and separators (``change-me``, ``CHANGE_ME``).
_PLACEHOLDER_WORDS = frozenset(
    "changeme changeit replaceme placeholder password passw0rd secret secretvalue redacted example dummy default "
    "notasecret notsecret undefined todo tbd none null empty sample testtest mypassword mysecret".split())  # fmt: skip
_PLACEHOLDER_STARTS = ("your", "changeme", "changeit", "replaceme", "replacewith", "insert", "enteryour", "putyour")
_SEPARATORS = re.compile(r"[\W_]+")
#: The ASCII characters :data:`_SEPARATORS` matches (all but letters and digits), for :func:`_letters_of`.
_ASCII_SEPARATORS = bytes(c for c in range(128) if not chr(c).isalnum())


def _letters_of(text: str) -> str:
    """``text`` without what :data:`_SEPARATORS` matches (its letters and digits, as written): an
    ASCII text through ``bytes.translate``, which is a hundred times faster than the expression on
    a certificate (a run's redactors took 80 ms for it)."""
    if text.isascii():
        return text.encode("ascii").translate(None, _ASCII_SEPARATORS).decode("ascii")
    return _SEPARATORS.sub("", text)


_ALNUM_RUN = re.compile(r"[^\W_]+")
#: The armour lines of a PEM block: the same in every key and certificate.
_PEM_ARMOUR = re.compile(r"-----(?:BEGIN|END) [A-Z0-9 ]+-----")


def placeholder(value: str) -> bool:
    """Whether ``value`` is a placeholder rather than a secret: :data:`_PLACEHOLDER` whole, or one
    of :data:`_PLACEHOLDER_WORDS` or, without a digit, starting like ``your-...``/``change-me-...``,
    once its case and separators are dropped (``changeme-Zq9x...`` and ``Insert9Qr7...`` are
    secrets: attacker trial 25, B5)."""
    text = value.strip()
    if _PLACEHOLDER.fullmatch(text):
        return True
    word = _letters_of(text).lower()
    return len(set(word)) <= 1 or word in _PLACEHOLDER_WORDS or (
        word.startswith(_PLACEHOLDER_STARTS) and not any(char.isdigit() for char in word))


_LITERAL_SOURCES = "literal sources ["
_LITERAL_ERROR = "]: invalid literal source"
_KEY_NAME_ERROR = '" is not a valid key name'
_YAML_MARK = re.compile(r"(line \d+, column \d+):\s")


def _literal_sources_scrubbed(message: str) -> str:
    r"""``message`` with, on each line, what lies from the first ``literal sources [`` to the last
    ``]`` that ``: invalid literal source`` follows written ``literal sources [redacted]``, as
    ``literal sources \[.*\](?=: invalid literal source)`` would (kustomize ``api/kv``: ``literal
    sources [a=1 b:2]: invalid literal source b:2, expected key=value``), but each line looked at
    once (that expression costs the square of a line of ``literal sources [``)."""
    if _LITERAL_SOURCES not in message:
        return message
    lines = message.split("\n")
    for number, line in enumerate(lines):
        first = line.find(_LITERAL_SOURCES)
        last = line.rfind(_LITERAL_ERROR) if first >= 0 else -1
        if last >= first + len(_LITERAL_SOURCES):
            lines[number] = f"{line[:first]}literal sources {REDACTED}{line[last + 1:]}"
    return "\n".join(lines)


def _up_to_last(pattern: re.Pattern[str], replacement: str, closing: str) -> Callable[[str], str]:
    """``pattern.sub(replacement, ...)`` of a message up to its last ``closing`` character only: a
    pattern ``...[^c]*c`` then never scans to the end of the message in vain, once for each place it
    may start (the square of the message's length)."""

    def scrub(message: str) -> str:
        last = message.rfind(closing) + 1
        return pattern.sub(replacement, message[:last]) + message[last:] if last else message

    return scrub


def _sub(pattern: re.Pattern[str], replacement: str) -> Callable[[str], str]:
    """``pattern.sub(replacement, ...)``, for a pattern whose scans never overlap (linear)."""
    return functools.partial(pattern.sub, replacement)


#: What :func:`scrubbed` does to every renderer message before the values are removed, in order;
#: each in time linear in the message's length (attacker trial 10 item 8).
_SCRUBS: tuple[Callable[[str], str], ...] = (
    # kustomize api/kv: "literal sources [a=1 b:2]: invalid literal source b:2, expected key=value"
    _literal_sources_scrubbed,
    _sub(re.compile(r"(invalid literal source ).*?(?=, expected key=value|$)"), rf"\g<1>{REDACTED}"),
    _up_to_last(re.compile(r"literal sources \[[^\]]*\]"), f"literal sources {REDACTED}", "]"),
    # kustomize api/kv: "line [80 65 ...] has invalid utf8 bytes : PASS=..."
    _sub(re.compile(r"line \[[\d ]*\] has invalid utf8 bytes\s*:.*"), f"line {REDACTED} has invalid utf8 bytes : {REDACTED}"),
    # kustomize: "KEY" is not a valid key name
    lambda message: _key_names_scrubbed(message),
    # go-yaml: cannot unmarshal !!str `s3cret...` into ...
    _up_to_last(re.compile(r"(!!\w+ )`[^`]*`"), rf"\1`{REDACTED}`", "`"),
    # Helm 4 JSON Schema (santhosh-tekuri/jsonschema): "at '/db/password': 's3cret' does not match ..."
    _sub(re.compile(r"(at '(?:[^'\\]|\\.)*': )'(?:[^'\\]|\\.)*'"), rf"\1'{REDACTED}'"),
    # Go strconv: parsing "s3cret": invalid syntax
    _sub(re.compile(r'(parsing )"(?:[^"\\]|\\.)*"(?=: )'), rf'\1"{REDACTED}"'),
    # PyYAML: '... in "<unicode string>", line 2, column 14:  b: s3cret: c  ^' (the quoted line)
    lambda message: _yaml_marks_scrubbed(message),
)


def scrubbed(message: str) -> str:
    """``message`` (a renderer's) with the literals quoted after the prefixes known to quote input
    values replaced by ``[redacted]`` (:data:`_SCRUBS`, in order), in time linear in its length."""
    for scrub in _SCRUBS:
        message = scrub(message)
    return message


def _key_names_scrubbed(message: str) -> str:
    """``message`` with each ``"KEY" is not a valid key name`` (kustomize) written ``"[redacted]" is
    not a valid key name``: the quoted text is from the leftmost ``"`` such that no quote between
    it and the closing one is unescaped (a quote after an even run of backslashes), as the regular
    expression ``"(?:[^"\\]|\\.)*" is not a valid key name`` finds it, but in one pass (that
    expression costs the square of the length of ``"\"\"\"...``)."""
    if _KEY_NAME_ERROR not in message:
        return message
    pieces: list[str] = []
    copied = 0
    opening = -1  # the leftmost quote a closing one here could close: none yet
    at = message.find('"')
    while at >= 0:
        run = 0
        while at - run > copied and message[at - run - 1] == "\\":
            run += 1
        escaped = run % 2 == 1
        if not escaped and opening >= 0 and message.startswith(_KEY_NAME_ERROR, at):
            pieces += [message[copied:opening], f'"{REDACTED}"']
            copied, opening = at + 1, -1
        elif not escaped or opening < 0:
            opening = at
        at = message.find('"', at + 1)
    return "".join(pieces) + message[copied:]


def _yaml_marks_scrubbed(message: str) -> str:
    """``message`` with each PyYAML mark (``line 2, column 14:``, then a space or a line break) and
    what follows it up to the next ``^`` on the same line (the quoted line) replaced by the mark's
    ``line 2, column 14``, as ``(line \\d+, column \\d+):\\s.*?\\^`` would, but with the next ``^``
    and line break found once for every mark (that expression costs the square of a long line of
    marks)."""
    if "column" not in message:
        return message
    pieces: list[str] = []
    copied = position = 0
    caret = newline = -2  # the next ^ and line break after a position (-2: not looked for; -1: none)
    while (mark := _YAML_MARK.search(message, position)) is not None:
        end = mark.end()
        if caret == -2 or 0 <= caret < end:
            caret = message.find("^", end)
        if newline == -2 or 0 <= newline < end:
            newline = message.find("\n", end)
        if caret >= 0 and (newline < 0 or caret < newline):
            pieces += [message[copied:mark.start()], mark.group(1)]
            copied = position = caret + 1
        else:
            position = mark.start() + 1
    return "".join(pieces) + message[copied:]


@dataclass
class SecretValues:
    """The secret values of an application's inputs, each with the key that holds it, and what the
    application writes where nothing is secret (which is therefore no secret)."""

    #: value as written (stripped) -> the key holding it (``DB_PASSWORD``; "" when none names it)
    secrets: dict[str, str] = field(default_factory=dict)
    #: values written where nothing is secret, mapping keys, path components: never a secret
    public: set[str] = field(default_factory=set)
    #: names and namespaces of objects and Applications, label values, path components: a value
    #: that is part of one is no secret either (``xxx`` of ``Job/xxx-postdelete``)
    names: set[str] = field(default_factory=set)
    #: secrets by where they come from, kept even where also written where nothing is secret: an
    #: ApplicationSet generator's parameters under secret keys (:meth:`add_carried`)
    carried: set[str] = field(default_factory=set)
    #: the values of Secrets (``data``, ``stringData``: :meth:`add_stored`), kept even where also
    #: written where nothing is secret (an annotation, a ConfigMap), but not when a name holds one
    stored: set[str] = field(default_factory=set)
    #: why the secret values found may not be all of them (a text that is not YAML hooklint reads,
    #: a file or walk past a bound): a renderer's message is then not shown (fail closed:
    #: :func:`render_error_redactor`), nor a chart rendered (:func:`hooklint.sources.load`)
    incomplete: list[str] = field(default_factory=list)
    #: pieces of a secret as hooklint's own findings quote them, each found as written (value ->
    #: key): what an annotation Argo CD reads as a comma-separated list splits a secret into
    #: (:func:`listed_pieces`), however short
    pieces: dict[str, str] = field(default_factory=dict)

    def add(self, value: object, key: str = "") -> None:
        """Add ``value`` (a scalar as written; other types are ignored) as the secret under ``key``,
        unless it can be none (shorter than :data:`MIN_LENGTH`, a boolean or null, a placeholder)."""
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        if not isinstance(value, str):
            return
        if len(self.secrets) >= MAX_VALUES:
            self.left_out(f"more than {MAX_VALUES:,} secret values")
            return
        text = value.strip()
        if text.startswith("{{") and text.endswith("}}"):  # a template's literals are secrets (trial 25, B8)
            for literal in _TEMPLATE_LITERAL.finditer(text):
                self.add(literal.group(1) or literal.group(2), key)
        if len(text) < MIN_LENGTH or text in _NOT_SECRET or placeholder(text):
            return
        self.secrets.setdefault(text, key)

    def add_carried(self, value: object, key: str = "") -> None:
        """:meth:`add` ``value``, a secret wherever the application also writes it: a parameter of
        the ApplicationSet generator that made it, under a key that names a secret, which the
        template may copy into a Helm parameter of any name (:attr:`ApplicationSource.secrets
        <hooklint.sources.spec.ApplicationSource.secrets>`)."""
        self.add(value, key)
        if isinstance(value, str) and value.strip() in self.secrets:
            self.carried.add(value.strip())

    def add_encoded(self, value: object, key: str = "") -> None:
        """:meth:`add` ``value`` and, when it is base64 of UTF-8 text (a Secret's ``data``), what it decodes to."""
        self.add(value, key)
        if isinstance(value, str):
            for decoded in _decoded_texts(value):
                self.add(decoded, key)

    def add_stored(self, value: object, key: str = "", *, encoded: bool = False) -> None:
        """:meth:`add` ``value``, a Secret's ``stringData`` value (``encoded``: a ``data`` value, also
        as what it decodes to, :meth:`add_encoded`), a secret wherever the application also writes
        it but in a name, a namespace, a label or a path (:meth:`kept`): an annotation or a
        ConfigMap that holds a Secret's password is where it leaks, not what makes it public
        (attacker trial 10 item 9: a directory source printed it in HL012, kustomize did not)."""
        if encoded:
            self.add_encoded(value, key)
        else:
            self.add(value, key)
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        for text in (value, *(_decoded_texts(value) if encoded and isinstance(value, str) else ())):
            if isinstance(text, str) and text.strip() in self.secrets:
                self.stored.add(text.strip())

    def add_public(self, value: object, *, name: bool = False) -> None:
        """Record ``value`` as written where nothing is secret (``name``: an identity or a path component)."""
        if isinstance(value, str):
            self.public.add(value)
            if name and len(value) >= MIN_LENGTH:
                self.names.add(value)

    def left_out(self, why: str) -> None:
        """Record that some secret values may be missing, and ``why`` (:attr:`incomplete`)."""
        if why not in self.incomplete:
            self.incomplete.append(why)

    def add_path(self, path: str, root: str = "") -> None:
        """Record the components of ``path`` (relative to ``root`` when given) as names."""
        relative = os.path.relpath(path, root) if root else path
        for part in relative.split(os.sep):
            if part not in ("", ".", ".."):
                self.add_public(part, name=True)

    def kept(self) -> dict[str, str]:
        """The secrets that are secrets: neither written where nothing is secret (but a Secret's own
        value, :attr:`stored`, which is one wherever else it is written) nor part of a name."""
        if not self.secrets:
            return {}
        names = "\n".join(sorted(self.names))
        return {value: key for value, key in self.secrets.items() if value in self.carried or (
                (value not in self.public or value in self.stored) and ("\n" in value or value not in names))}  # fmt: skip


def _decoded(value: str) -> str | None:
    """``value`` decoded from base64 when it is base64 of UTF-8 text (a Secret's ``data``)."""
    compact = "".join(value.split())
    if len(compact) < 4 or len(compact) % 4:
        return None
    try:
        decoded = base64.b64decode(compact, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    # text: every character printable or white space (a value with a trailing CR, a tab or a
    # no-break space is text a template prints; attacker trial 24, B7)
    return decoded if decoded.isprintable() or "\n" in decoded or all(c.isprintable() or c.isspace() for c in decoded) else None


#: What splits bytes that are not all text into the pieces :func:`_decoded_texts` registers: an
#: invalid byte (a lone surrogate of ``surrogateescape``), U+FFFD, and the C0 and C1 controls but
#: white space (NUL, ESC, DEL).
_UNDECODED = re.compile("[\ud800-\udfff\ufffd\x00-\x08\x0e-\x1f\x7f-\x9f]+")


def _decoded_texts(value: str) -> list[str]:
    """What the base64 ``value`` (a Secret's ``data``) decodes to, as texts a message may quote:
    :func:`_decoded` when that is text; else, after a byte order mark (UTF-8's, or UTF-16's, which
    decodes the rest as UTF-16; UTF-16 without one when every other byte is zero, as Latin-1 text
    in UTF-16 is: :func:`_unicode`), the pieces between invalid bytes and control characters, each of at least
    :data:`MIN_LENGTH` characters, unless they are more than one in eight (bytes that are no text:
    their printable runs are no value a template prints) (attacker trial 25, B11: a BOM, UTF-16 or a stray ``\\xff`` or
    NUL hid the value, which a template printing ``b64dec`` or a user copying it shows). Empty for
    no base64."""
    whole = _decoded(value)
    if whole is not None and "\x00" not in whole:  # UTF-16 is valid UTF-8 too, a NUL after each letter
        return [whole]
    compact = "".join(value.split())
    if len(compact) < 4 or len(compact) % 4:
        return []
    try:
        raw = base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        return []
    text = _unicode(raw, "surrogateescape")
    if sum(map(len, _UNDECODED.findall(text))) * 8 > len(text):  # binary (a DER certificate, a keystore)
        return []
    pieces = [piece.strip() for piece in _UNDECODED.split(text)]
    return [piece for piece in pieces if len(piece) >= MIN_LENGTH]


def _unicode(raw: bytes, errors: str) -> str:
    """``raw`` as text: after a byte order mark, UTF-8 or UTF-16 (the rest as UTF-16); UTF-16
    without one when every other byte is zero, as text of Latin-1 letters in UTF-16 is (what
    Windows' editors write; UTF-8 text holds no NUL); else UTF-8, invalid bytes handled by
    ``errors`` (``"replace"``, ``"surrogateescape"``)."""
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return raw[: len(raw) // 2 * 2].decode("utf-16", "replace")
    if len(raw) >= 2 * MIN_LENGTH and not any(raw[1::2]):  # Latin-1 letters too (attacker trial 33, L2)
        return raw.decode("utf-16-le", "replace")
    if len(raw) >= 2 * MIN_LENGTH and not any(raw[::2]):
        return raw.decode("utf-16-be", "replace")
    return raw.removeprefix(b"\xef\xbb\xbf").decode("utf-8", errors)


#: The fewest letters and digits of a piece :func:`listed_pieces` hides: a shorter one is no
#: part of a secret a reader could put together, and would hide that letter everywhere.
MIN_PIECE = 3


def listed_pieces(texts: Iterable[str], values: SecretValues, hide: Callable[[str], str]) -> dict[str, str]:
    """The pieces of ``texts`` (annotation values: Argo CD reads ``hook``, ``hook-delete-policy``,
    ``sync-options`` and Helm's hook annotations as comma-separated lists, and the checks quote
    each piece in a finding of its own) that are parts of a secret of ``values``: of a text that
    holds a secret (:func:`redactor` changes it), each comma-separated piece whose letters and
    digits, in lower case, are :data:`MIN_PIECE` or more and part of a kept secret's; ``{piece:
    key}``. ``hide``: the redactor of ``values`` (:func:`redactor`), which the caller has built. A secret written with commas put into it (``Zq9xK3mP,w7LrT5vB``) is then hidden in each
    finding that quotes one piece (attacker trial 33, L4); the text's other pieces (``PreSync``)
    are not."""
    letters: list[tuple[str, str]] | None = None  # each kept secret's letters and digits, when one is split
    out: dict[str, str] = {}
    for text in texts:
        if "," not in text or hide(text) == text:
            continue
        if letters is None:
            letters = [(_letters_of(value).lower(), key) for value, key in sorted(values.kept().items())]
        for piece in text.split(","):
            piece = piece.strip()
            word = _letters_of(piece).lower()
            if len(word) < MIN_PIECE:
                continue
            key = next((key for secret, key in letters if word in secret), None)
            if key is not None:
                out.setdefault(piece, key)
    return out


def merged(*parts: SecretValues) -> SecretValues:
    """One :class:`SecretValues` holding every value of ``parts`` (the first key of a value wins)."""
    out = SecretValues()
    for part in parts:
        for value, key in part.secrets.items():
            out.secrets.setdefault(value, key)
        out.public |= part.public
        out.names |= part.names
        out.carried |= part.carried
        out.stored |= part.stored
        for value, key in part.pieces.items():
            out.pieces.setdefault(value, key)
        for why in part.incomplete:
            out.left_out(why)
    return out


def redact(message: str, values: SecretValues) -> str:
    """``message`` with the quoted literals after known prefixes scrubbed (:data:`_SCRUBS`), then
    every one of ``values`` replaced (:func:`redactor`)."""
    return redactor(values)(scrubbed(message))


_KEY_SHOWN = re.compile(r"[\w.\-/\[\]]{1,100}")


def shown(key: str) -> str:
    """What a text says instead of a secret value held by ``key``: ``[the value of `KEY`]``, or
    ``[redacted]`` when no key (or no key that prints as a plain name) holds it."""
    return f"[the value of `{key}`]" if _KEY_SHOWN.fullmatch(key) else REDACTED


@functools.lru_cache(maxsize=1024)
def _forms(value: str) -> frozenset[str]:
    """The forms messages write secret ``value`` in, of :data:`MIN_LENGTH` characters or more:
    as written (without a byte-order mark, around bytes that were not UTF-8, line by line and its
    lines joined), each JSON-escaped (as Python writes it and as Go's ``encoding/json`` does, ``<``,
    ``>``, ``&`` as ``\\u003c``...), control characters escaped, quoted as Go quotes it
    (:func:`go_quoted`), escaped by a template's ``html``, ``urlquery`` and ``js``
    (:func:`template_escaped`), base64-encoded at each of the three offsets it may start at inside a
    longer encoding (:func:`base64_cores`) and as Go's byte list (kustomize's env file lines).
    Memoised: overlays and copies of a chart share their Secrets' values, and a certificate's forms
    are costly to spell."""
    text = value.strip()
    forms = {text, text.removeprefix("\ufeff")}
    forms.update(piece.strip() for piece in text.split("\ufffd"))  # around bytes that were not UTF-8
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) > 1:
        forms.update(lines)
        forms.add(" ".join(lines))
    for form in list(forms):
        escaped = json.dumps(form, ensure_ascii=False)[1:-1]
        forms.add(escaped)
        # Go's encoding/json (Helm's toJson, toPrettyJson; kustomize's JSON) also writes <, > and & as
        # \u003c, \u003e, \u0026 (HTMLEscape) and U+2028/U+2029 as \u2028/\u2029 (encoding/json encode.go)
        forms.add(escaped.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
                  .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))  # fmt: skip
        forms.add(escape_controls(form))  # as one-line messages write it (yamlio.shown): ESC as \x1b
        forms.add(go_quoted(form))  # as a template's printf "%q" writes it (strconv.Quote)
        forms.add(go_quoted(form, ascii_only=True))  # "%+q" (strconv.QuoteToASCII)
        forms.update(template_escaped(form))
        raw = form.encode("utf-8")
        cores = _base64_forms(raw)
        forms.update(cores)
        if len(raw) <= _MAX_BYTE_LIST:
            forms.add(" ".join(str(b) for b in raw))
    return frozenset(f for f in forms if len(f) >= MIN_LENGTH and not _PEM_ARMOUR.fullmatch(f))


def _translated(text: str, spelled: Callable[[str], str]) -> str:
    """``text`` with each character written as ``spelled`` writes it: ``spelled`` asked once per
    distinct character, the text rewritten by ``str.translate`` (a secret may be a certificate of
    thousands of characters)."""
    table = {ord(char): form for char in set(text) if (form := spelled(char)) != char}
    return text.translate(table) if table else text


def template_escaped(text: str) -> set[str]:
    r"""``text`` as the template functions Helm and Argo CD give (Go's ``text/template``) escape it:
    ``html`` (``HTMLEscapeString``: ``<`` ``&lt;``, ``>`` ``&gt;``, ``&`` ``&amp;``, ``'`` ``&#39;``,
    ``"`` ``&#34;``), ``urlquery`` (``url.QueryEscape``: a space ``+``, every byte but letters,
    digits and ``-_.~`` as ``%XX``) and ``js`` (``JSEscapeString``: ``\\``, ``\'``, ``\"``,
    ``<`` ``>`` ``&`` ``=`` and controls as ``\uXXXX`` in upper-case hex). An escape is not a
    transformation: a connection string's ``urlquery`` of a password still spells it (third attacker
    trial)."""
    html = (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;")
            .replace('"', "&#34;"))  # fmt: skip
    query = _translated(text, _query_escaped)
    return {html, query, _translated(text, _js_escaped)}


def _query_escaped(char: str) -> str:
    """``char`` as Go's ``url.QueryEscape`` writes it: letters, digits and ``-_.~`` of ASCII as
    they are, a space as ``+``, anything else as its UTF-8 bytes in ``%XX``."""
    if char.isascii() and (char.isalnum() or char in "-_.~"):
        return char
    return "+" if char == " " else "".join(f"%{b:02X}" for b in char.encode("utf-8"))


def _js_escaped(char: str) -> str:
    """``char`` as Go's ``template.JSEscapeString`` writes it: ``\\``, ``'`` and ``"`` after a
    backslash, ``<>&=`` and controls as ``\\uXXXX``."""
    if char in "\\'\"":
        return "\\" + char
    return f"\\u{ord(char):04X}" if char in "<>&=" or ord(char) < 0x20 else char


def base64_cores(raw: bytes) -> set[str]:
    """The base64 characters that only ``raw`` decides, wherever it starts inside a longer encoded
    text (``printf "%s:%s" .user .password | b64enc``: a ``.dockerconfigjson`` ``auth``): for each
    of the three byte offsets, the encoding of ``raw`` after that many bytes without the group it
    shares with what comes before and the one it shares with what comes after; and the encoding of
    ``raw`` alone, padding included."""
    cores = {base64.b64encode(raw).decode("ascii")}
    for offset in range(3):
        encoded = base64.b64encode(bytes(offset) + raw).decode("ascii")
        start = 4 if offset else 0
        end = (offset + len(raw)) // 3 * 4
        cores.add(encoded[start:end])
    return cores


#: The escapes Go's ``strconv`` writes for these characters (``appendEscapedRune``).
_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
               '"': '\\"', "\\": "\\\\"}  # fmt: skip


def go_quoted(text: str, *, ascii_only: bool = False) -> str:
    """``text`` as Go's ``strconv.Quote`` writes it between its quotes (a template's ``printf "%q"``):
    ``"`` and ``\\`` escaped, ``\\n`` and the like as such, other characters that are not printable
    as ``\\x1b`` (below U+0080), ``\\u00a0`` or ``\\U0001f600``; with ``ascii_only``, as
    ``strconv.QuoteToASCII`` (``printf "%+q"``) writes it: every character past ASCII escaped so
    too (``\\u00e9``). Go's ``unicode.IsPrint`` and Python's ``str.isprintable`` both take the
    letters, marks, numbers, punctuation, symbols and the ASCII space (``strconv/quote.go``
    ``appendQuotedWith``, ``appendEscapedRune``)."""
    return _translated(text, _go_escaped_ascii if ascii_only else _go_escaped)


def _go_escaped(char: str, ascii_only: bool = False) -> str:
    """``char`` as :func:`go_quoted` writes it."""
    code = ord(char)
    if char in _GO_ESCAPES:
        return _GO_ESCAPES[char]
    if char.isprintable() and not (ascii_only and code >= 0x80):
        return char
    if code < 0x80:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _go_escaped_ascii(char: str) -> str:
    """``char`` as :func:`go_quoted` writes it with ``ascii_only``."""
    return _go_escaped(char, ascii_only=True)


@dataclass(frozen=True, slots=True)
class Redactor:
    """What :func:`redactor` returns: called with a text, the text with every secret value it was
    made of replaced by what :func:`shown` says of its key, and the credentials of URLs removed
    (:func:`url_credentials`).

    ``exact`` holds ``(form, key)``: each form of each value (:func:`_forms`), found as a substring;
    ``loose`` holds ``(letters, key)``: each value's letters and digits in lower case, found in the
    letters and digits of a text in lower case (any case, separators changed or dropped);
    ``folded`` holds ``(value, key)``: its forms whose letters' case a template may change and that
    cannot be decoded once it has (:func:`_folded_forms`: base64, hex, base32), in ASCII lower case,
    are found in the text in ASCII lower case, and only in a text with a run of such characters all
    in one case (``b64enc | upper``; hex; base32). Each is one Aho-Corasick automaton,
    built when a text first needs it: one pass over a text whatever the number of values, where a
    regular expression of every value cost most of a run to compile. Every match is found
    (``iter``: ``iter_long`` misses a short value inside a longer one that fails, pyahocorasick
    2.3) and overlapping matches are replaced as one.

    Chains of encodings (trial 4 item 5: ``b64enc | b64enc``, ``toJson | toJson``, ``urlquery |
    b64enc``, ``html | b64enc``, ``upper | b64enc``) are undone before the automata look
    (:meth:`_hidden`): the text's backslash escapes (JSON's, Go's ``%q``, ``js``), URL escapes and
    HTML character references are each decoded, and each run of base64 characters long enough to
    hold a secret is decoded at each of its four alignments, then the automata look at what came
    out, and so on, :data:`DECODE_DEPTH` decodings deep. A secret found under an escape replaces the
    escaped text it came from; one found in a base64 run replaces the whole run. The work is bounded
    (:data:`DECODE_BUDGET` characters decoded per text); past it, every base64 run and every word
    with an escape is replaced whole (fail closed).

    A class, not a closure, so that a worker process sends it back with the plan it guards (the
    automata stay behind)."""

    exact: tuple[tuple[str, str], ...] = ()
    loose: tuple[tuple[str, str], ...] = ()
    folded: tuple[tuple[str, str], ...] = ()
    #: ``(value, key)`` of the values of more than :data:`_LONG_BYTES` bytes in their shorter
    #: encoding (:func:`_least_bytes`), whose byte spellings (:func:`_hex_forms`) join ``loose``
    #: only for a text long enough to hold one (:meth:`_loose`).
    long: tuple[tuple[str, str], ...] = ()
    #: The automata of ``exact``, ``loose`` and ``folded`` (None: nothing to find), once built, and
    #: ``loose`` with the long values' spellings, with the letters it covers (or None).
    built: list[Any] = field(default_factory=list, compare=False)
    #: What each base64 or base32 run decoded to, at a depth:
    #: ``(its pattern, run, depth) -> (carries a secret, its key)``.
    memo: dict[tuple[re.Pattern[str], str, int], tuple[bool, str]] = field(default_factory=dict, compare=False)
    #: What it said of each text of at most :data:`_SAID_LENGTH` characters: a report asks again
    #: for the same kinds, API versions, names and namespaces in every finding of an object.
    said: dict[str, str] = field(default_factory=dict, compare=False)

    def __call__(self, text: str) -> str:
        known = self.said.get(text)
        if known is not None:
            return known
        asked = text
        if text and (self.exact or self.loose or self.folded or self.long):
            budget = [DECODE_BUDGET]
            spans = self._hidden(text, DECODE_DEPTH, budget)
            if budget[0] < 0:  # fail closed: what was not decoded may hide a secret
                spans += _suspect(text)
            if spans:
                text = _replaced(text, spans)
        text = url_credentials(text)
        if len(asked) <= _SAID_LENGTH:
            if len(self.said) >= _MEMO_SIZE:
                self.said.clear()
            self.said[asked] = text
        return text

    def _spans(self, text: str) -> list[tuple[int, int, str]]:
        if not self.built:
            self.built.extend((_automaton(self.exact), _automaton(self.loose), None, None))
        exact = self.built[0]
        spans = []
        if exact is not None:
            spans = _found(exact, text)
        lowered = _letters_of(text).lower()
        loose = self._loose(len(lowered))
        if loose is not None and next(loose.iter(lowered), None) is not None:
            spans += self._loose_spans(*_letters(text))
        if (self.loose or self.long) and _PADDED_NUMBER.search(text):
            spans += self._loose_spans(*_unpadded(text))
        if (self.loose or self.long) and _BAD_VERB.search(text):
            # a verb Go's fmt has no meaning for writes each item of a slice as %!e(uint8=45) or
            # %!t(string=Z): the items alone, as %d or %s writes them (attacker trials 36 and 37)
            blanked = _BAD_VERB.sub(lambda wrapper: " " * len(wrapper.group()), text)
            spans += self._loose_spans(*_letters(blanked))
            if _PADDED_NUMBER.search(blanked):
                spans += self._loose_spans(*_unpadded(blanked))
        if self.folded and _SINGLE_CASE_RUN.search(text):
            folded = self._folded(max(map(len, _FORM_RUN.findall(text))))
            if folded is not None:
                spans += _found(folded, text.translate(_ASCII_LOWER))
        return spans

    def _loose_spans(self, letters: str, where: list[int]) -> list[tuple[int, int, str]]:
        """The spans ``(start, end, key)`` of a text whose letters and digits, read by
        :func:`_letters` or :func:`_unpadded`, are ``letters`` (``where``: each one's place in the
        text) where the loose automaton for their length (:meth:`_loose`) finds a form."""
        loose = self._loose(len(letters))
        if loose is None:
            return []
        return [(where[start], where[end - 1] + 1, key) for start, end, key in _found(loose, letters)]

    def _loose(self, letters: int) -> Any:
        """The automaton of ``loose`` for a text of ``letters`` letters and digits: with the byte
        spellings (:func:`_hex_forms`) of the long values (:attr:`long`) that fit in it. Each
        spelling of a value has at least a character per byte of it in UTF-8 or UTF-16, whichever
        is shorter (:func:`_least_bytes`), so a value longer than the text is left out: a 131 kB
        value's spellings (seven verbs, UTF-8 and UTF-16: megabytes) took a fifth of a run, for
        findings a few hundred characters long. Built again, for at least twice the letters, when
        a text has more, as :meth:`_folded` is."""
        if not self.long:
            return self.built[1]
        built = self.built[3]
        if built is not None and built[1] >= letters:
            return built[0]
        shortest = min(_least_bytes(value) for value, _ in self.long)
        if letters < shortest:
            return self.built[1]
        covers = max(letters, 2 * built[1]) if built is not None else letters
        entries = dict(self.loose)
        fitting = [(value, key) for value, key in self.long if _least_bytes(value) <= covers]
        for value, key in fitting:
            for hexed in sorted(_hex_forms(value)):
                entries.setdefault(hexed, key)
        if len(fitting) == len(self.long):
            covers = sys.maxsize  # every value is in: never built again
        automaton = _automaton(tuple(entries.items()))
        self.built[3] = (automaton, covers)
        return automaton

    def _folded(self, run: int) -> Any:
        """The automaton of the folded forms (:func:`_folded_forms`) of the secrets that fit in a
        run of ``run`` base64, hex or base32 characters (:data:`_FORM_RUN`): each form of a value is
        at least as long as its UTF-8 bytes less :data:`_FOLDED_SLACK` (base32 after four bytes: 8
        characters per 5 bytes, less the first group), so a long value (a certificate bundle, whose
        base32 alone took a fifth of a run's redaction) is left out until a text has a run that
        long. Built again, for at least twice the run, when a text has a longer one."""
        built = self.built[2]
        if built is not None and built[1] >= run:
            return built[0]
        covers = max(run, 2 * built[1]) if built is not None else run
        sizes = [(len(value.strip().encode("utf-8")), value, key) for value, key in self.folded]
        automaton = _automaton(tuple((form, key) for size, value, key in sizes if size - _FOLDED_SLACK <= covers
                                     for form in sorted(_folded_forms(value))))  # fmt: skip
        if all(size - _FOLDED_SLACK <= covers for size, _, _ in sizes):
            covers = sys.maxsize  # every value is in: never built again
        self.built[2] = (automaton, covers)
        return automaton

    def _exact(self, text: str) -> list[tuple[int, int, str]]:
        """The spans of ``text`` that are a form of a secret as written (the ``exact`` automaton)."""
        exact = self.built[0]
        return [] if exact is None else _found(exact, text)

    def _hidden(self, text: str, depth: int, budget: list[int]) -> list[tuple[int, int, str]]:
        """The spans ``(start, end, key)`` of ``text`` that carry a secret: found by the automata
        (:meth:`_spans`), or, ``depth`` decodings deep, in what a layer of escapes or a base64 run
        decodes to (the escaped text it came from; the whole run). ``budget`` (a one-item list)
        counts down the characters decoded; below zero, nothing more is decoded."""
        spans = self._spans(text)
        if depth <= 0 or budget[0] < 0:
            return spans
        for decode in _UNESCAPES:
            layer = decode(text)
            if layer is None:
                continue
            decoded, segments = layer
            budget[0] -= len(decoded)
            if budget[0] < 0:
                return spans
            spans += [(*_source(segments, start, end), key) for start, end, key in self._hidden(decoded, depth - 1, budget)]
        for pattern, decodings, one_case in _RUNS:
            for run in pattern.finditer(text):
                token = run.group()
                if not one_case and (token == token.lower() or token == token.upper()):
                    continue  # base64 letters of one case: not decodable (the folded automaton looks at it)
                if any(start <= run.start() and run.end() <= end for start, end, _ in spans):
                    continue  # already replaced whole
                known = self.memo.get((pattern, token, depth))
                if known is not None:  # the same word in many texts (a kind, a digest): decoded once
                    if known[0]:
                        spans.append((run.start(), run.end(), known[1]))
                    continue
                for decoded in decodings(token):
                    budget[0] -= len(decoded)
                    if budget[0] < 0:
                        return spans
                    # bytes that are not text (a wrong alignment, a binary file): looked at, never decoded further
                    binary = len(_NOT_TEXT.findall(decoded)) * 8 > len(decoded)
                    found = self._exact(decoded) if binary else self._hidden(decoded, depth - 1, budget)
                    if found:
                        spans.append((run.start(), run.end(), found[0][2]))
                        break
                else:
                    found = []
                if len(self.memo) >= _MEMO_SIZE:
                    self.memo.clear()
                self.memo[pattern, token, depth] = (bool(found), found[0][2] if found else "")
        return spans

    def __reduce__(self) -> tuple[type[Redactor], tuple[Any, ...]]:
        return Redactor, (self.exact, self.loose, self.folded, self.long)


#: A value of more bytes than this in its shorter encoding (:func:`_least_bytes`; a certificate
#: bundle) has its byte spellings (:func:`_hex_forms`) built only for a text long enough to hold
#: one (:meth:`Redactor._loose`).
_LONG_BYTES = 4096
#: A run of the characters of a folded form (:func:`_folded_forms`: base64, base64url, hex, base32).
_FORM_RUN = re.compile(r"[A-Za-z0-9+/=_-]+")
#: How much shorter than a value's UTF-8 bytes a folded form of it may be (:meth:`Redactor._folded`:
#: its base32 after four bytes is 8 characters per 5 bytes less one group; its base64 cores, 4
#: per 3 less one group; its hex, 2 per byte).
_FOLDED_SLACK = 16
#: The longest text :attr:`Redactor.said` remembers what it said of.
_SAID_LENGTH = 1024
#: The base64 and base32 runs :attr:`Redactor.memo`, and the texts :attr:`Redactor.said`, remember at most (then it starts again).
_MEMO_SIZE = 4096
#: How many decodings deep :class:`Redactor` looks: ``b64enc`` of ``toJson | toJson`` is three.
DECODE_DEPTH = 3
#: The characters :class:`Redactor` decodes in one text at most (a renderer's message is rarely
#: 10 kB; 4 MiB of decoding costs about 0.3 s, and a message of 300 kB of base64 fits).
DECODE_BUDGET = 4 << 20
#: Lower-casing of ASCII letters only (a text keeps its length, so positions stay true).
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
#: A run of base64 characters that could hold a secret (12 characters encode :data:`MIN_LENGTH` bytes).
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{12,}={0,2}")
#: What text seldom holds: controls (but tab, line feeds) and bytes that were not UTF-8.
_NOT_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd]")
#: A run of base64, hex or base32 characters whose letters are all in one case.
#: Anywhere in a text, not only as a whole word: ``bitnami/U3VW...`` (``b64enc | upper`` after a
#: path) and ``a5375...`` (``%X`` after a hex digit) hold one (attacker trial 6).
_SINGLE_CASE_RUN = re.compile(r"[A-Z0-9+/]{12,}|[a-z0-9+/]{12,}")
#: A run of base32 characters, in one case, that could hold a secret's encoding (``b64enc | b32enc``).
_BASE32_RUN = re.compile(r"[A-Z2-7]{16,}={0,6}|[a-z2-7]{16,}={0,6}")
#: What may hide a secret when the decoding budget ran out: a base64 run (:data:`_BASE64_RUN`), a
#: word (:data:`_WORD`) with an escape (:data:`_ESCAPE`) (:func:`_suspect`).
_WORD = re.compile(r"\S+")
_ESCAPE = re.compile(r"\\|%[0-9A-Fa-f]{2}|&#?\w+;")


def _suspect(text: str) -> list[tuple[int, int, str]]:
    """The spans ``(start, end, "")`` of ``text`` that may hide a secret when the decoding budget ran
    out: each base64 run and each word holding an escape, found in time linear in the text's length
    (``\\S*(?:\\\\|...)\\S*`` as one expression scanned a long word once for each of its characters)."""
    spans = [(m.start(), m.end(), "") for m in _BASE64_RUN.finditer(text)]
    return spans + [(m.start(), m.end(), "") for m in _WORD.finditer(text) if _ESCAPE.search(m.group())]


def _base64_decodings(run: str) -> Iterator[str]:
    """What the base64 ``run`` decodes to at each of its four alignments (its first 0 to 3
    characters may belong to what came before it), as UTF-8 text (bytes that are not UTF-8 as
    U+FFFD), each of :data:`MIN_LENGTH` characters or more."""
    body = run.rstrip("=")
    for skip in range(4):
        chunk = body[skip:]
        if len(chunk) % 4 == 1:
            chunk = chunk[:-1]
        try:
            raw = binascii.a2b_base64(chunk + "=" * (-len(chunk) % 4))
        except binascii.Error:
            continue
        if len(raw) >= MIN_LENGTH:
            yield raw.decode("utf-8", "replace")


def _base32_decodings(run: str) -> Iterator[str]:
    """What the base32 ``run`` decodes to at each of its eight alignments (its first 0 to 7
    characters may belong to what came before it), as text, each of :data:`MIN_LENGTH` characters or
    more; a tail that is no whole base32 group is dropped."""
    body = run.rstrip("=").upper()
    for skip in range(8):
        chunk = body[skip:]
        while len(chunk) % 8 in (1, 3, 6):
            chunk = chunk[:-1]
        try:
            raw = base64.b32decode(chunk + "=" * (-len(chunk) % 8))
        except (binascii.Error, ValueError):
            continue
        if len(raw) >= MIN_LENGTH:
            yield raw.decode("utf-8", "replace")


#: The runs :meth:`Redactor._hidden` decodes: their pattern, their decodings, and whether a run in
#: one case can be one (base32 is; base64 in one case is not decodable: the folded automaton looks
#: at it).
_RUNS = ((_BASE64_RUN, _base64_decodings, False), (_BASE32_RUN, _base32_decodings, True))


#: A layer of escapes decoded: the text, and its segments ``(start in the text, start in the
#: source, end in the source, literal)``: a literal segment's characters are the source's one for
#: one; an escape's characters all come from its whole source span.
_Segments = list[tuple[int, int, int, bool]]


def _decoded_layer(text: str, pattern: re.Pattern[str], replace: Callable[[re.Match[str]], str]) -> tuple[str, _Segments] | None:
    """``text`` with each match of ``pattern`` replaced by ``replace`` of it, and its segments;
    None when nothing matched (or nothing changed)."""
    pieces: list[str] = []
    segments: _Segments = []
    at = out = 0
    for match in pattern.finditer(text):
        if match.start() > at:
            segments.append((out, at, match.start(), True))
            pieces.append(text[at:match.start()])
            out += match.start() - at
        value = replace(match)
        segments.append((out, match.start(), match.end(), False))
        pieces.append(value)
        out += len(value)
        at = match.end()
    if not segments:
        return None
    if at < len(text):
        segments.append((out, at, len(text), True))
        pieces.append(text[at:])
    decoded = "".join(pieces)
    return None if decoded == text else (decoded, segments)


def _source(segments: _Segments, start: int, end: int) -> tuple[int, int]:
    """The span of the source that the decoded span ``[start, end)`` comes from."""
    starts = [segment[0] for segment in segments]

    def at(index: int, last: bool) -> int:
        out, source, source_end, literal = segments[bisect.bisect_right(starts, index) - 1]
        if literal:
            return source + (index - out) + (1 if last else 0)
        return source_end if last else source

    return at(start, False), at(max(start, end - 1), True)


#: Escapes of JSON, Go's ``strconv.Quote``, ``js``, in either case (``upper`` of an escaped text):
#: surrogate pairs first, then ``\uXXXX``, ``\UXXXXXXXX``, ``\xXX``, octal, one character.
_BACKSLASH = re.compile(r"\\[uU](d[89ab][0-9a-f]{2})\\[uU](d[c-f][0-9a-f]{2})|\\U([0-9a-fA-F]{8})|\\[uU]([0-9a-fA-F]{4})"
                        r"|\\[xX]([0-9a-fA-F]{2})|\\([0-7]{3})|\\(.)", re.DOTALL | re.IGNORECASE)  # fmt: skip
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "a": "\a", "v": "\v", "0": "\0"}


def _unbackslash(match: re.Match[str]) -> str:
    high, low, long, short, byte, octal, char = match.groups()
    if high is not None:
        return chr(0x10000 + ((int(high, 16) - 0xD800) << 10) + (int(low, 16) - 0xDC00))
    for digits in (long, short, byte, octal):
        if digits is not None:
            code = int(digits, 8 if digits is octal else 16)
            return chr(code) if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"
    return _SIMPLE_ESCAPES.get(char.lower(), char)


#: URL escapes (``urlquery``, ``url.QueryEscape``): a run of ``%XX`` bytes, decoded as UTF-8.
_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
#: HTML character references (``html``: ``&lt;``, ``&#39;``, ``&#34;``; any in HTML 5's list).
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def _unescaped(text: str) -> tuple[str, _Segments] | None:
    return _decoded_layer(text, _BACKSLASH, _unbackslash) if "\\" in text else None


def _url_decoded(text: str) -> tuple[str, _Segments] | None:
    if "%" not in text:
        return None
    return _decoded_layer(text, _PERCENT, lambda m: bytes.fromhex(m.group().replace("%", "")).decode("utf-8", "replace"))


def _html_unescaped(text: str) -> tuple[str, _Segments] | None:
    if "&" not in text:
        return None
    import html  # noqa: PLC0415 - its table of 2,231 entities only for a text with an entity

    return _decoded_layer(text, _ENTITY, lambda m: html.unescape(m.group()))


#: The layers of escapes :meth:`Redactor._hidden` decodes, each on its own.
_UNESCAPES = (_unescaped, _url_decoded, _html_unescaped)


#: The characters of a form an automaton holds (:func:`_automaton`): a longer form (a certificate,
#: its base64, hex and base32) is found by its first ones and then compared whole, so that a run
#: with a few long secrets builds a small automaton (building one is linear in what it holds:
#: 0.5 s for the corpus's certificates whole).
_PREFIX = 64


def _automaton(entries: tuple[tuple[str, str], ...]) -> Any:
    """An Aho-Corasick automaton of ``entries`` (``(form, key)``; for one form, the last key), or
    None: each form is found by its first :data:`_PREFIX` characters, whose payload is
    ``(prefix length, ((form, key), ...))`` (:func:`_found`)."""
    if not entries:
        return None
    by_prefix: dict[str, dict[str, str]] = {}
    for form, key in entries:
        by_prefix.setdefault(form[:_PREFIX], {})[form] = key
    automaton = ahocorasick.Automaton()
    for prefix, forms in by_prefix.items():
        automaton.add_word(prefix, (len(prefix), tuple(forms.items())))
    automaton.make_automaton()
    return automaton


def _found(automaton: Any, text: str) -> list[tuple[int, int, str]]:
    """The spans ``(start, end, key)`` of ``text`` where a form of ``automaton`` (:func:`_automaton`)
    is written whole, every occurrence, overlapping ones too."""
    spans = []
    for end, (length, forms) in automaton.iter(text):
        start = end - length + 1
        spans += [(start, start + len(form), key) for form, key in forms if text.startswith(form, start)]
    return spans


def _letters(text: str) -> tuple[str, list[int]]:
    """The letters and digits of ``text`` in lower case, and where in ``text`` each one is."""
    chars: list[str] = []
    where: list[int] = []
    for run in _ALNUM_RUN.finditer(text):
        _add_lower(run.group(), run.start(), chars, where)
    return "".join(chars), where


def _add_lower(word: str, start: int, chars: list[str], where: list[int]) -> None:
    """Append ``word`` (at ``start`` in a text) in lower case to ``chars``, and where in the text
    each of its characters is to ``where`` (a letter whose lower case is longer, İ, stands for each)."""
    lower = word.lower()
    if len(lower) == len(word):
        chars.append(lower)
        where.extend(range(start, start + len(word)))
        return
    for offset, char in enumerate(word):
        chars.append(char.lower())
        where.extend([start + offset] * len(char.lower()))


#: What Go's ``fmt`` writes before each item of a slice under a verb that has no meaning for it
#: (``%e``, ``%f``, ``%t``, ``%z``...), whatever the item's type: ``%!e(uint8=`` of a byte of a
#: ``[]byte`` (``%!e(uint8=45)``), ``%!t(string=`` of a character ``splitList ""`` cut,
#: ``%!s(int=``, ``%!e(int64=`` of a byte a template converted (attacker trials 36, 1, and 37, 1-2).
_BAD_VERB = re.compile(r"%![^\s(]{0,4}\([\w.*\[\]]{1,32}=")
#: A number as Go's ``fmt`` writes a byte with a base prefix (``%#x`` ``0x5a``, ``%O`` ``0o132``,
#: ``%#b`` ``0b1011010``, ``%#o`` ``0132``) or padded with zeros (``%03d`` ``090``, ``%08b``,
#: ``%04x``): a word of letters and digits that starts with ``0`` and holds more.
_PADDED_NUMBER = re.compile(r"(?<![^\W_])0[0-9a-zA-Z]")
#: One such word: its prefix and leading zeros, then its digits (at least one).
_NUMBER_WORD = re.compile(r"(?:0[xXoObB](?=[0-9a-fA-F]))?0*([0-9a-fA-F]+)")


def _unpadded(text: str) -> tuple[str, list[int]]:
    """:func:`_letters` of ``text`` with each word that is a number (:data:`_NUMBER_WORD`) written
    without its base prefix and leading zeros (``0`` for zero): what each byte of a ``[]byte``
    reads as when ``printf`` pads it or prefixes its base (``%03d``, ``%08b``, ``%#o``, ``%O``,
    ``%#b``, ``%04x``: ``[090 113 056]``; ``%.6U``: ``U+000048``), found by the loose automaton's
    unpadded forms (``%d``, ``%o``, ``%b``, and hex and ``%U`` a byte at a time: :func:`_hex_forms`;
    attacker trials 32, A, and 33, L1). Only in a run of :data:`MIN_LENGTH` numbers or more (a
    secret's bytes), words of one letter between them (``%U``'s ``U``, ``%#U``'s rune): a date's or
    a version's zeros are read as written (``report-2024-01-05``; attacker trial 33, P1)."""
    words = list(_ALNUM_RUN.finditer(text))
    numbers = [_NUMBER_WORD.fullmatch(run.group()) for run in words]
    read: set[int] = set()  # the words read without their zeros
    run_of: list[int] = []
    for i, run in enumerate(words + [None]):
        if run is not None and numbers[i] is not None:
            run_of.append(i)
        elif run is None or len(run.group()) > 1:  # a longer word ends the run; one letter does not
            if len(run_of) >= MIN_LENGTH:
                read.update(run_of)
            run_of = []
    chars: list[str] = []
    where: list[int] = []
    for i, run in enumerate(words):
        word, start = run.group(), run.start()
        number = numbers[i] if i in read else None
        if number is not None:
            digits = number.group(1).lstrip("0") or "0"
            chars.append(digits.lower())
            end = start + number.end(1)
            where.append(start)  # the first digit stands for the word's prefix and zeros: replaced with it
            where.extend(range(end - len(digits) + 1, end))
        else:
            _add_lower(word, start, chars, where)
    return "".join(chars), where


def _replaced(text: str, spans: list[tuple[int, int, str]]) -> str:
    """``text`` with each of ``spans`` (start, end, key), overlapping ones as one, replaced."""
    spans.sort(key=lambda span: (span[0], -span[1]))
    out, at = [], 0
    start, end, key = spans[0]
    for next_start, next_end, next_key in spans[1:]:
        if next_start < end:
            end = max(end, next_end)
            continue
        out += [text[at:start], shown(key)]
        at, (start, end, key) = end, (next_start, next_end, next_key)
    out += [text[at:start], shown(key), text[end:]]
    return "".join(out)


#: Redactors by what they find: one per distinct set of values in a run (:func:`redactor`).
_REDACTORS: dict[tuple[tuple[tuple[str, str], ...], ...], Redactor] = {}


@functools.lru_cache(maxsize=1024)
def _folded_forms(value: str) -> frozenset[str]:
    """The forms of secret ``value`` a template's ``upper`` or ``lower`` may change past decoding, in
    ASCII lower case (:attr:`Redactor.folded`): its base64 encodings (:func:`base64_cores`), those of
    each of them (``b64enc | b64enc | upper``), its hex (``printf "%x"``) and its base32 at each of
    the five byte offsets it may start at (``b32enc``), each of :data:`MIN_LENGTH` characters or more."""
    raw = value.strip().encode("utf-8")
    forms = _base64_forms(raw)
    forms.add(raw.hex())
    for offset in range(5):
        encoded = base64.b32encode(bytes(offset) + raw).decode("ascii")
        forms.add(encoded[8 if offset else 0:(offset + len(raw)) // 5 * 8])
    return frozenset(form.lower() for form in forms if len(form) >= MIN_LENGTH)


#: base64 to base64url (RFC 4648 section 5: ``-`` and ``_`` for ``+`` and ``/``).
_URLSAFE = str.maketrans("+/", "-_")


@functools.lru_cache(maxsize=1024)
def _least_bytes(value: str) -> int:
    """The fewest bytes of ``value`` stripped in an encoding :func:`_hex_forms` spells: UTF-8 or
    UTF-16, whichever is shorter (a character from U+0800 to U+FFFF is 3 bytes in UTF-8, 2 in
    UTF-16: ``%d`` writes ``अ`` in UTF-16 as ``5 9``; attacker trial 36, 2). Every spelling has at
    least one letter or digit per byte of its encoding. Once per value in a run (a redactor asks
    for each long value on each text until one is long enough)."""
    text = value.strip()
    return min(len(text.encode("utf-8")), len(text.encode("utf-16-le")))


@functools.lru_cache(maxsize=1024)
def _hex_forms(value: str) -> frozenset[str]:
    """The hex of secret ``value``'s UTF-8 bytes and of each of its base64 encodings
    (:func:`base64_cores`, standard and base64url), in lower case: what :attr:`Redactor.loose` finds
    in a text's letters and digits, so with any separators between the bytes (``printf "% x"``:
    ``5a 71 38``; ``5A:71:38``) and in any case; also with ``0x`` before each byte (``printf "% #x"``,
    ``"%#04x"``), and each character as ``printf "%U"`` writes it (``U+005A``). Built once per value
    in a run (the applications sharing a Secret ask again), each byte's spelling by ``bytes.hex``'s
    separator, not a format per byte (a certificate's took seconds).

    Go's ``fmt`` applies a verb to each byte of a ``[]byte`` (``.Files.GetBytes``): so also its
    bytes as ``%U`` writes them (``U+00C3 U+00A9`` for ``é``), as ``%#U`` writes each rune or byte
    (``U+005A 'Z'``: the rune after the code), and as the numbers ``%d``/``%v``, ``%o`` and ``%b``
    write (``[90 113 56]``) (attacker trial 29, B3 and B4); those numbers and each byte's hex also
    without padding or prefix, as :func:`_unpadded` reads a text's numbers (``%03d``, ``%#o``,
    ``%#x``); and each of these byte forms of the value's UTF-16 encodings too (a file in UTF-16
    read with ``.Files.GetBytes``; attacker trial 32, A and C)."""
    text = value.strip()
    raw = text.encode("utf-8")
    forms = set()
    for data in (raw, *(core.encode("ascii") for core in _base64_forms(raw) if len(core) >= MIN_LENGTH)):
        forms.add(data.hex())
        # each byte with Go's prefix (printf "% #x": 0x5a 0x71; "%#04x": 0x005a; attacker trial 26, B1)
        spaced = data.hex(" ")
        forms.add("0x" + spaced.replace(" ", "0x") if data else "")
        forms.add("0x00" + spaced.replace(" ", "0x00") if data else "")
    forms.add(_runes_as_u(text))  # each rune as printf "%U" writes it: U+005A
    forms.add(_sharp_u_letters(text))  # printf "%#U" of a string: each rune
    # a []byte (.Files.GetBytes) of the value in UTF-8, or in UTF-16 (a file written so, which
    # Secret data decodes after its byte order mark; attacker trial 32, C): its hex, each byte as
    # %U, %#U, %d ("%v"), %o and %b write it ([90 113 56]), and each byte's hex and those numbers
    # without padding or prefix, as the text's numbers are read for them (:func:`_unpadded`)
    for data in (raw, text.encode("utf-16-le"), text.encode("utf-16-be")) if raw else ():
        if data is not raw:
            forms.add(data.hex())  # its "% #x" with 0x before each byte: read without them (_unpadded)
        forms.add("u00" + data.hex(" ").replace(" ", "u00"))
        for verb in ("#U", "d", "o", "b", "x", "U", "#Ux"):
            table = _byte_table(verb)
            forms.add("".join([table[byte] for byte in data]))
    return frozenset(forms)


def _sharp_u(text: str) -> str:
    """``text`` as ``printf "%#U"`` writes each of its runes: ``U+005A 'Z'``, the rune quoted
    after its code when Go prints it (``strconv.IsPrint``), else the code alone."""
    return " ".join(f"U+{ord(char):04X} '{char}'" if char.isprintable() else f"U+{ord(char):04X}" for char in text)


def _sharp_u_letters(text: str) -> str:
    """The letters and digits of ``printf "%#U"`` of ``text`` (:func:`_sharp_u`), in lower case:
    ``u005az`` for ``Z``. A text of runes below 256 through a table of them (:func:`_byte_table`;
    formatted rune by rune, a certificate's took milliseconds for each value of a run); another rune
    by rune."""
    if not text or max(text) < "\u0100":
        table = _byte_table("#U")
        return "".join([table[byte] for byte in text.encode("latin-1")])
    return _letters_of(_sharp_u(text)).lower()


@functools.lru_cache(maxsize=None)
def _byte_table(verb: str) -> tuple[str, ...]:
    """The spellings of the bytes 0 to 255 (a byte's, or a rune's below 256), indexed by it, as
    Go's ``fmt`` spells each byte: ``verb`` ``"d"``, ``"o"``, ``"b"`` or ``"x"`` (``%d``, ``%o``,
    ``%b``: ``90``, ``132``, ``1011010``; ``a`` for 10, as :func:`_unpadded` reads ``%#x``), ``"U"``
    and ``"#Ux"`` (``%U`` and ``%#U`` as :func:`_unpadded` reads them: ``u5a``, ``u5az``), or
    ``"#U"``, the letters and digits of ``%#U`` in lower case (``u005az``). Built on first use, once
    per run."""
    if verb == "#U":
        return tuple(_letters_of(_sharp_u(chr(code))).lower() for code in range(256))
    if verb in ("U", "#Ux"):  # %U and %#U read without their zeros (_unpadded): u5a, u5az
        return tuple(f"u{code:x}" + (_letters_of(chr(code)).lower() if verb == "#Ux" and chr(code).isprintable() else "")
                     for code in range(256))  # fmt: skip
    return tuple(format(code, verb) for code in range(256))  # "x": a byte's hex without its leading 0


def _runes_as_u(text: str) -> str:
    """Each character of ``text`` as ``printf "%U"`` writes it, in lower case and without the
    ``+`` (``u005a``: at least four hex digits), all joined; ``""`` for ``""``."""
    if not text:
        return ""
    if max(text) < "\ud800":  # every rune is 4 hex digits: its UTF-16 code unit
        return "u" + text.encode("utf-16-be").hex(" ", 2).replace(" ", "u")
    return "".join(f"u{ord(char):04x}" for char in text)


def _base64_forms(raw: bytes) -> set[str]:
    """``raw``'s base64 encodings (:func:`base64_cores`), the whole one also without its padding
    (``b64enc | trimSuffix "="``), each also as base64url (RFC 4648 section 5: ``-`` and ``_`` for ``+``
    and ``/``, Go's ``base64.URLEncoding`` and ``RawURLEncoding``; ``b64enc | replace "+" "-" | replace
    "/" "_"``): a base64url run is cut by its ``-`` and ``_`` into pieces the base64 decoding misses."""
    forms = base64_cores(raw)
    forms.add(base64.b64encode(raw).decode("ascii").rstrip("="))
    return forms | {form.translate(_URLSAFE) for form in forms}


def redactor(values: SecretValues) -> Redactor:
    """The :class:`Redactor` of the secrets of ``values`` that are secrets (:meth:`SecretValues.kept`):
    each form of each (:func:`_forms`) but those the application writes where nothing is secret,
    and its letters (``loose``) when it has :data:`MIN_LENGTH` of them. One per distinct set of
    values in a run: the applications that share a chart's values or a Secret share it."""
    kept = values.kept()
    shows = _KeyCheck(kept)
    exact: dict[str, str] = {}
    loose: dict[str, str] = {}
    folded: dict[str, str] = {}
    long: dict[str, str] = {}
    for value, key in sorted(kept.items()):
        key = key if shows(key) else ""
        for form in _forms(value):
            if form not in values.public or value in values.carried or (value in values.stored and form not in values.names):
                exact.setdefault(form, key)
        folded.setdefault(value, key)
        stripped = value.strip()
        if len(_letters_of(stripped)) < MIN_LENGTH:
            # too few letters and digits for the loose matcher (``Ab#$%^&*()!@Cd-+``): as written with
            # each of its other characters dropped, as a template's ``replace "#" ""`` writes it
            # (attacker trial 22, B4)
            for char in sorted({c for c in stripped if _SEPARATORS.fullmatch(c)}):
                dropped = stripped.replace(char, "")
                if len(dropped) >= MIN_LENGTH and dropped not in values.names:
                    exact.setdefault(dropped, key)
        # as its letters, as its UTF-8 bytes read as Latin-1 (sprig's nospace walks bytes), and as
        # Go's upper and lower case write it (sprig's upper/lower: ſ, ı, İ and ς map otherwise than
        # Python's lower case of them; attacker trial 22, B2)
        for spelled in {value, value.encode("utf-8").decode("latin-1"), go_to_upper(value), go_to_lower(value)}:
            letters = _letters_of(spelled).lower()
            if len(letters) >= MIN_LENGTH:
                loose.setdefault(letters, key)
                # Python writes a lower-case sigma as final (ς) or not (σ) by what follows it in the
                # text searched, which a value cannot know: both
                for sigma in ("\u03c2", "\u03c3"):
                    if sigma in letters:
                        loose.setdefault(letters.replace(sigma, "\u03c3" if sigma == "\u03c2" else "\u03c2"), key)
        # as hex with separators between its bytes, or none, in any case (Go's printf "% x", "% X",
        # bytes joined by ":"), of the value and of its base64 (b64enc | printf "% x"): hex is all
        # letters and digits, so the loose automaton finds it whatever separates its bytes
        if _least_bytes(value) > _LONG_BYTES:
            long.setdefault(value, key)  # spelled when a text is long enough to hold one (Redactor._loose)
            continue
        for hexed in _hex_forms(value):
            loose.setdefault(hexed, key)
    for piece, key in sorted(values.pieces.items()):
        exact.setdefault(piece, key if shows(key) else "")
    identity = (tuple(sorted(exact.items())), tuple(sorted(loose.items())), tuple(sorted(folded.items())),
                tuple(sorted(long.items())))  # fmt: skip
    found = _REDACTORS.get(identity)
    if found is None:
        if len(_REDACTORS) >= 256:
            _REDACTORS.clear()
        found = _REDACTORS[identity] = Redactor(*identity)
    return found


class _KeyCheck:
    """Called with a key, whether it can be shown for its value: it holds none of ``secrets``, as
    written or by its letters (an env file line or a literal without ``=`` is its own key). Each key
    is checked once, against the values no longer than it."""

    def __init__(self, secrets: Iterable[str]):
        self.values = sorted((len(v), v, _letters_of(v).lower()) for v in secrets)
        self.lengths = [length for length, _, _ in self.values]
        self.known: dict[str, bool] = {}

    def __call__(self, key: str) -> bool:
        if key not in self.known:
            letters = _letters_of(key).lower()
            shorter = self.values[: bisect.bisect_right(self.lengths, len(key))]
            self.known[key] = not any(value in key or (short and short in letters) for _, value, short in shorter)
        return self.known[key]


# --- where secret values are: objects, values, the files a rendering reads ---------------------


def object_secrets(bodies: Iterable[object]) -> SecretValues:
    """The values of the Secrets among ``bodies`` (parsed objects): ``stringData`` values, and
    ``data`` values as written and with what they decode to, each under its key. A kustomize
    ``replacements`` entry or a chart can copy one into a name, a label or an annotation, which
    findings and the plan quote; those quote its key instead (:func:`redactor`)."""
    found = SecretValues()
    for body in bodies:
        if not isinstance(body, dict) or body.get("kind") != "Secret":
            continue
        for field_name in ("stringData", "data"):
            values = body.get(field_name)
            for key, value in values.items() if isinstance(values, dict) else ():
                found.add_stored(value, str(key), encoded=field_name == "data")
                # data: what it decodes to, in UTF-8 or UTF-16 (attacker trial 33, L3: an env file in UTF-16)
                texts = _decoded_texts(value) if field_name == "data" and isinstance(value, str) else [value]
                for text in texts:
                    if isinstance(text, str) and ("\n" in text.strip() or text.lstrip()[:1] in ("{", "[")):
                        _embedded(str(key), text, found)
    return found


#: ``key: value`` or ``"key": "value"`` inside a flow mapping or JSON (``{db: {password: x}}``).
_FLOW_PAIR = re.compile(r"[{,]\s*[\"']?([A-Za-z_][\w.-]*)[\"']?\s*:\s*[\"']?([^,{}\[\]\"'\s]+)")


def _embedded(name: str, text: str, found: SecretValues) -> None:
    """The secrets inside a Secret's value that is a file (an env file under ``envFrom``, a
    ``config.yaml``, a ``.dockerconfigjson``): the values of its ``KEY=value`` and ``key: value``
    lines, XML elements and JSON or flow-mapping pairs whose key names a secret, each kept as a
    Secret's own value is (:meth:`SecretValues.add_stored`: attacker trial 18, a password inside a
    Secret's env file was printed in HL012)."""
    inner = SecretValues()
    _plain_text(name, text, inner)
    if name.lower().endswith(_YAML) or text.lstrip()[:1] in ("{", "["):  # parsed too: a !!binary key
        _yaml_text(text, inner)  # (attacker trial 25, B12), a nested mapping
    for match in _FLOW_PAIR.finditer(text):
        if secret_key(match.group(1)):
            inner.add(match.group(2), match.group(1))
            decoded = _decoded(match.group(2)) if match.group(1) == "auth" else None
            if decoded is not None and ":" in decoded:  # a registry's auth: base64 of user:password
                inner.add(decoded.split(":", 1)[1], "auth")
    for value, key in inner.secrets.items():
        found.add_stored(value, key)


def public_of_objects(bodies: Iterable[object], found: SecretValues) -> None:
    """Add to ``found`` what ``bodies`` (parsed objects as the application writes them) hold where
    nothing is secret: every scalar outside a Secret's data, outside keys that name a secret and
    outside a named secret's ``value`` (:func:`named_secret`), every mapping key; names, namespaces
    and label values as names."""
    public, names = found.public, found.names
    for body in bodies:
        stack: list[tuple[object, bool | str]] = [(body, False)]
        steps = 0
        while stack and steps < MAX_VALUES:
            steps += 1
            value, identity = stack.pop()
            if isinstance(value, dict):
                kind = value.get("kind")
                named = named_secret([("name", value.get("name"))])
                for key, item in value.items():
                    key = str(key)
                    public.add(key)
                    if (kind == "Secret" and key in ("data", "stringData")) or secret_key(key) or (named and key == "value"):
                        continue
                    stack.append((item, identity == "labels" or (key if key in _IDENTITY_KEYS else False)))
            elif isinstance(value, list):
                stack.extend((item, False) for item in value)
            elif isinstance(value, str):
                public.add(value)
                if identity and len(value) >= MIN_LENGTH:
                    names.add(value)


def value_secrets(texts: Iterable[str], parameters: Iterable[tuple[str, str]] = ()) -> SecretValues:
    """The values under secret keys (:func:`secret_key`: ``password``, ``token``...) of Helm value
    texts (a chart's ``values.yaml`` files, an Application's value files and ``helm.values``), and
    the values of ``parameters`` whose name is a secret's: a chart can copy one into a name or an
    annotation, which findings and the plan quote (second helper trial: ``sync-wave: "{{
    .Values.db.password }}"`` printed the password in HL012, in every format). The other values are
    public: written where nothing is secret."""
    found = SecretValues()
    for text in texts:
        _yaml_text(text, found, "a values file")
    parameter_secrets(parameters, found)
    return found


def parameter_secrets(parameters: Iterable[tuple[str, str]], found: SecretValues) -> None:
    """Add to ``found`` the values of an Application's Helm ``parameters`` (``(name, value)``): the
    value of one whose name is a secret's is a secret, any other one public; and every value the
    name itself assigns under a path with a key naming a secret (:func:`secret_key`). Argo CD
    passes each as ``--set name=value`` with only the value escaped (``util/helm/cmd.go``
    ``cleanSetParameters``, v3.5.1), so Helm's parser reads a name holding ``=`` and ``,`` as more
    assignments (``x=1,db.token=...,y`` sets ``db.token``: attacker trial 25, B10); each is read
    with Helm's own parser (:func:`~hooklint.sources.render.strvals.assignments`: up to an error,
    where Helm stops too), a secret wherever the application writes it (:meth:`SecretValues.add_carried`:
    the walk of the Application takes the parameter's name for a name, which hides no secret)."""
    from hooklint.sources.render.strvals import assignments  # noqa: PLC0415 - only for parameters

    for name, value in parameters:
        if secret_key(name):
            found.add(value, name)
        else:
            found.add_public(value)
        if "=" not in name:
            continue
        for assigned in assignments(f"{name}=")[0]:
            keys = [k for k in assigned.path if isinstance(k, str) and secret_key(k)]
            if keys:
                texts = assigned.value if isinstance(assigned.value, tuple) else (assigned.value,)
                for text in texts:  # a secret though written in the parameter's name (a name, to the walk)
                    found.add_carried(text, keys[-1])


def redact_message(message: str, inputs: Iterable[str], root: str, *, helm: bool = False,
                   extra_values: Iterable[str] = ()) -> str:  # fmt: skip
    """``message`` (a renderer's error) without the secret values of ``inputs`` (the files the
    rendering read, absolute or relative to the current folder; only regular files inside
    ``root`` by resolved path are read, at most :data:`MAX_FILE_BYTES` each) and of
    ``extra_values`` (YAML texts: an Application's inline Helm values)."""
    return redact(message, secret_values(inputs, root, helm=helm, extra_values=extra_values))


def secret_values(inputs: Iterable[str], root: str, *, helm: bool = False,
                  extra_values: Iterable[str] = ()) -> SecretValues:  # fmt: skip
    """The secret values of ``inputs`` (see :func:`redact_message` and the module docstring), and
    what they write where nothing is secret. ``helm`` is kept for the callers: a chart's values
    files are read as every other YAML file."""
    found = SecretValues()
    root_real = facts.realpath(root)
    paths = [os.path.abspath(p) for p in inputs]
    if len(paths) > MAX_FILES:  # attacker trial 24, B3: the files past the bound were never read
        found.left_out(f"more than {MAX_FILES:,} input files")
        paths = paths[:MAX_FILES]
    readable = {p for p in paths if _inside(p, root_real)}
    for path in sorted(readable):
        found.add_path(facts.realpath(path), root_real)
        base = os.path.basename(path).lower()
        if base.endswith(".schema.json"):
            continue  # a JSON Schema holds no values: its patterns are what a message must keep
        shown = os.path.relpath(path, root_real)
        if base.endswith(".tgz"):  # a packaged subchart: every file in it, read within bounds
            _archive_files(path, shown, found)
            continue
        text = _read(path)
        if text is None:
            if _oversized(path, MAX_FILE_BYTES):  # attacker trial 24, B4: a renderer reads it whole
                found.left_out(f"{shown} is larger than {MAX_FILE_BYTES:,} bytes")
            continue
        _file_text(path, shown, text, root_real, found)
    for text in extra_values:
        _yaml_text(text, found, "the Application's helm.values")
    return found


def _file_text(path: str, shown: str, text: str, root_real: str | None, found: SecretValues) -> None:
    """The secret values of one input file's ``text`` (``path``; ``shown``: its path from the
    repository's top): a kustomization's generators (``root_real``: the resolved repository top
    its generators' files are read within; None for a file of an archive, whose kustomization
    nothing builds), a YAML file's values (a chart's template may fail to parse; any other YAML file
    must: :func:`_yaml_text`, and its commented-out lines: :func:`_commented`), another file's
    assignments (:func:`_plain_text`, with the folders of ``shown``)."""
    base = os.path.basename(path).lower()
    if base in _KUSTOMIZATIONS and root_real is not None:
        _kustomization(text, os.path.dirname(path), root_real, found)
    if base.endswith(_YAML) or base in _KUSTOMIZATIONS:
        _yaml_text(text, found, None if _template(shown) else shown)
        _commented(text, found)
    else:  # Helm's .Files cannot read templates/: only a data file's folders make it a secret
        folders = () if _template(shown) else shown.replace(os.sep, "/").split("/")[:-1]
        _plain_text(os.path.basename(path), text, found, folders)
    if _template(shown) and _SECRET_KIND.search(text):
        # a template that makes a Secret: a literal in its actions may be its value, however the
        # template carries it there ({{- $pw := "..." }} ... {{ $pw }}: attacker trial 25, B8)
        for action in _ACTION.finditer(text):
            for literal in _TEMPLATE_LITERAL.finditer(action.group()):
                found.add(literal.group(1) or literal.group(2))


#: ``kind: Secret`` in a template (the kind may be quoted).
_SECRET_KIND = re.compile(r"""^\s*kind:\s*["']?Secret\b""", re.MULTILINE)
#: A template action, ``{{ ... }}`` (at most 4 kB: linear).
_ACTION = re.compile(r"\{\{.{0,4096}?\}\}", re.DOTALL)


def _template(path: str) -> bool:
    """Whether ``path`` (``/`` or the OS separator) lies in a chart's ``templates/`` folder: a Go
    template, which need not parse as YAML before Helm renders it."""
    return "templates" in path.replace(os.sep, "/").split("/")[:-1]


def _oversized(path: str, limit: int) -> bool:
    """Whether ``path`` is a regular file larger than ``limit`` bytes (links followed)."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(info.st_mode) and info.st_size > limit


def _archive_files(path: str, shown: str, found: SecretValues) -> None:
    """The secret values of every file of the packaged chart ``path`` (``charts/*.tgz``, nested ones
    included: :func:`hooklint.sources.repository.charts.packaged_files`), each read as the same file
    unpacked is (:func:`_file_text`): Helm reads its templates, values and ``files/`` from the
    archive, so a template may print any of them (attacker trial 24, B5: ``.Files.Get`` of a
    password file). An archive or member past the bounds, or one that does not read, leaves
    ``found`` incomplete."""
    from hooklint.sources.repository.charts import packaged_files  # noqa: PLC0415 - tarfile, only for a packaged chart

    data = _read(path, raw=True, limit=MAX_ARCHIVE_BYTES)
    if data is None:
        if _oversized(path, MAX_ARCHIVE_BYTES):
            found.left_out(f"{shown} is larger than {MAX_ARCHIVE_BYTES:,} bytes")
        return
    files, whole = packaged_files(data)
    if not whole:
        found.left_out(f"{shown} is an archive hooklint does not read whole")
    for name, content in files:
        member = f"{shown}/{name}"
        _file_text(member, member, content.decode("utf-8", "replace").removeprefix("\ufeff"), None, found)


def archive_secrets(path: str, root_real: str, found: SecretValues) -> None:
    """Add to ``found`` the secret values of every file of the packaged chart ``path`` (a
    ``charts/*.tgz`` inside ``root_real``, the resolved repository top: :func:`_archive_files`), or
    say why they may be incomplete (an archive not read whole): a chart's values for its findings
    (:func:`hooklint.sources.render.chart_value_secrets`)."""
    _archive_files(path, os.path.relpath(facts.realpath(path), root_real), found)


def _plain_text(name: str, text: str, found: SecretValues, folders: Iterable[str] = ()) -> None:
    """Secret values of a file that is not YAML (a chart's ``files/``, an env or properties file):
    its whole content when a part of its name names a secret (``db-password.txt``, ``db.password``,
    ``users.htpasswd``, ``tls.key``) or one of its ``folders`` does (``secrets/db.txt``: the folders
    of its path from the repository's top), and an OpenSSH or PEM private key block anywhere in it
    (:func:`_private_keys`); else the values of its assignment lines whose key names a secret
    (:func:`_line_secrets`), commented-out ones included, with the lines of a multi-line value
    (:func:`_continued`), every value of a TOML or INI section whose name names a secret
    (``[users.password]``), and its XML elements and attributes (:func:`_xml_secrets`)."""
    stem = name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name
    if secret_key(stem) or name.lower().endswith(_KEY_FILES):
        found.add(text, stem)
        return
    named = next((part for part in (*name.split("."), *folders) if part and secret_key(part)), None)
    if named is not None:  # attacker trial 25, B3: db.password, api.token, users.htpasswd, secrets/db.txt
        found.add(text, name if named in name.split(".") else named)
        return
    _private_keys(text, found)
    lines = text.splitlines()
    section = False  # whether the current TOML or INI section's name names a secret
    budget = _CONTINUED_BUDGET
    for index, line in enumerate(lines):
        header = _SECTION.match(line)
        if header is not None:
            section = secret_key(header.group(1).strip().strip("\"'"))
            continue
        for key, rest in _line_secrets(line, section):
            found.add(assigned(rest).strip("'\""), key)
            if budget <= 0:
                continue
            value, read = _continued(lines, index, rest)
            budget -= read
            found.add(value, key)
            if budget <= 0:  # many values that open and never close: linear time, and fail closed
                found.left_out(f"{name} opens more multi-line values than hooklint reads")
    _xml_secrets(text, found)


#: ``KEY=`` and ``KEY:`` of ``KEY=value``, ``KEY: value``, ``key = "value"`` (env, properties, INI,
#: TOML), ``export KEY=value``; the value is the rest of the line (:func:`assigned`). One expression
#: for the whole line, ``...[=:]\s*(.*?)\s*,?\s*$``, cost the cube of a line of spaces (attacker
#: trial 10 item 8: an 80 kB ``files/app.env`` outlived ``--run-timeout``).
_ASSIGNMENT = re.compile(r"\s*(?:export\s+)?[\"']?([A-Za-z_][\w.-]*)[\"']?\s*[=:]")


def _other_assignments(line: str) -> list[tuple[str, str]]:
    """The ``(key, rest of the line)`` a line may assign that :data:`_ASSIGNMENT` does not read
    (attacker trial 24, B8), in time linear in its length: a Java properties line's key, which ends
    at its first white space, ``=`` or ``:`` (``db.password   s3cret``: ``java.util.Properties.load``),
    and an INI or TOML key up to the first ``=`` or ``:``, spaces and quotes included (``db password
    = s3cret``, ``"db password" = "s3cret"``). A comment line (``#``, ``;``, ``!``) assigns nothing,
    nor a key with a ``<`` (an XML line, :func:`_xml_secrets`)."""
    stripped = line.strip()
    if not stripped or stripped[0] in "#;!":
        return []
    found = []
    end = next((i for i, char in enumerate(stripped) if char in "=:" or char.isspace()), len(stripped))
    rest = stripped[end:].lstrip()
    if rest[:1] in ("=", ":"):
        rest = rest[1:]
    if end and rest.strip() and "<" not in stripped[:end]:
        found.append((stripped[:end], rest))
    at = min((i for i in (stripped.find("="), stripped.find(":")) if i > 0), default=-1)
    if at > 0:
        key = stripped[:at].strip().strip("\"'")
        if key and key != stripped[:end] and "<" not in key:
            found.append((key[:256], stripped[at + 1:]))
    words = stripped.split()  # .netrc: machine h login u password s3cret
    found += [(word, value) for word, value in zip(words[1:-1], words[2:]) if word in _NETRC_WORDS]
    return found


#: The .netrc words a secret follows (``password``; ``account`` may be one too: ``man netrc``).
_NETRC_WORDS = frozenset(("password", "account", "passwd"))


def assigned(rest: str) -> str:
    """The value of an assignment line from after its ``=`` or ``:`` (``rest``): without the spaces
    around it and one trailing comma (``key = "value",``)."""
    value = rest.strip()
    return value[:-1].rstrip() if value.endswith(",") else value
#: An XML or HTML attribute, ``password="value"`` (each of its parts bounded: linear).
_ATTRIBUTE = re.compile(r"\b([A-Za-z_][\w.-]{0,100})\s{0,100}=\s{0,100}(?:\"([^\"<>\n]{1,4096})\"|'([^'<>\n]{1,4096})')")
#: ``key="password" value="..."`` (.NET ``appSettings``' ``<add key= value=/>``; attacker trial 24, B8), and
#: ``name="password" value="..."`` (Spring's ``<property>``, ``<param>``).
_KEY_VALUE = re.compile(r"\b(?:key|name)[ \t]*=[ \t]*([\"'])([^\"'<>\n]{1,256})\1[ \t]+value[ \t]*=[ \t]*([\"'])([^\"'<>\n]{1,4096})\3")


#: The extensions of key and keystore files (PuTTY's ``.ppk``, PKCS #8 ``.p8``), whose content is a secret.
_KEY_FILES = (".key", ".pem", ".p12", ".pfx", ".jks", ".keystore", ".ppk", ".p8", ".pk8", ".pkcs12")
#: :data:`~hooklint.text.SECRET_KEY` without its anchors: a line none of whose parts it matches holds
#: no key that names a secret (the line is then not read further: a cheap test of every line).
_KEY_HINT = re.compile(SECRET_KEY.pattern.replace("(?:^|[-_.])", "").replace("$", ""), re.IGNORECASE)
#: A TOML or INI section header, ``[users.password]``, ``[[users]]``, ``["db password"]``.
_SECTION = re.compile(r"[ \t]{0,100}\[{1,2}([^\[\]\n]{1,256})\]{1,2}[ \t]{0,100}(?:[#;].{0,4096})?$")
#: A comment's marker at the start of a line (``#``, ``;``, ``!``, ``//``, ``--``, ``/*``, ``*``, ``REM``).
_COMMENT = re.compile(r"[ \t]{0,100}(?:[#;!*]|//|--|/\*|(?i:rem)\b)[#;!*/ \t-]{0,100}")
#: Shell, Dockerfile and Batch words before an assignment (``ENV PASSWORD s3cret``, ``ARG``, ``set``).
_COMMAND_WORDS = frozenset(("env", "arg", "export", "set", "setx", "declare", "local", "readonly", "typeset"))
#: ``key: value`` and ``key = value`` anywhere in a line (a JavaScript object's ``{ password: "s3cret" }``,
#: ``--password=s3cret``, ``//host/:_authToken=s3cret``); each part bounded (linear).
_PAIR = re.compile(r"(?<![\w$.-])([A-Za-z_$][\w$.-]{0,100})[\"']?[ \t]{0,100}[:=][ \t]{0,100}"
                   r"(?:\"([^\"\n]{1,4096})\"|'([^'\n]{1,4096})'|`([^`\n]{1,4096})`|([^\s,;'\"`{}()\[\]]{1,4096}))")
#: A command line's ``--password s3cret``, ``--password=s3cret`` and ``-password 's3cret'``.
_FLAG = re.compile(r"(?<![\w-])--?([A-Za-z][\w.-]{0,100})(?:[ \t]{1,100}|=)(?!-)"
                   r"(?:\"([^\"\n]{1,4096})\"|'([^'\n]{1,4096})'|([^\s\"'|;&<>]{1,4096}))")
#: A call whose first argument names what its second holds: PHP's ``define('DB_PASSWORD', 's3cret')``,
#: ``setenv("TOKEN", "s3cret")``, ``ENV.fetch('PASSWORD', 's3cret')``.
_CALL = re.compile(r"\([ \t]{0,100}([\"'])([^\"'\n]{1,256})\1[ \t]{0,100},[ \t]{0,100}"
                   r"(?:\"([^\"\n]{1,4096})\"|'([^'\n]{1,4096})')")
#: The most lines a multi-line value is read over (:func:`_continued`), and the characters all of a
#: file's are read over together (past it, its values are left incomplete: a message is not shown).
_MAX_CONTINUED = 1000
_CONTINUED_BUDGET = 4 << 20
#: A here-document's start, ``<<EOF``, ``<<-EOF``, ``<<~EOF``, ``<<'EOF'`` (Terraform, shell, Ruby).
_HEREDOC = re.compile(r"<<[-~]?[ \t]{0,10}([\"']?)([A-Za-z_]\w{0,100})\1")
#: A YAML block scalar's indicator (``|``, ``>-``, ``|2+``).
_BLOCK_INDICATOR = re.compile(r"[|>][-+0-9]{0,3}")


def _line_secrets(line: str, section: bool) -> list[tuple[str, str]]:
    """The ``(key, rest of the line)`` pairs of ``line`` whose key names a secret (every pair of a
    section whose name does: ``section``), in time linear in its length: its assignment
    (:data:`_ASSIGNMENT`, :func:`_other_assignments`), the line uncommented when it is a comment
    (``# password: s3cret`` may be restored, and a renderer prints a file whole), the line without a
    leading shell or Dockerfile word (``ENV PASSWORD s3cret``), the key up to the first ``=``
    (``.npmrc``'s ``//host/:_authToken=s3cret``), and the pairs inside it
    (:data:`_PAIR`, :data:`_FLAG`, :data:`_CALL`; attacker trial 25, B15)."""
    comment = _COMMENT.match(line)
    if comment is not None and comment.end() < len(line):
        line = line[comment.end():]
    if not section and _KEY_HINT.search(line) is None:
        return []  # no key of the line can name a secret: each is a part of it
    match = _ASSIGNMENT.match(line)
    if match is not None and (section or secret_key(match.group(1))):
        return [(match.group(1), line[match.end():])]
    found = [(key, rest) for key, rest in _other_assignments(line) if section or secret_key(key)]
    words = line.split(None, 1)
    if len(words) == 2 and words[0].lower() in _COMMAND_WORDS:
        match = _ASSIGNMENT.match(words[1])
        if match is not None and (section or secret_key(match.group(1))):
            found.append((match.group(1), words[1][match.end():]))
        found += [(key, rest) for key, rest in _other_assignments(words[1]) if section or secret_key(key)]
    for pair in _PAIR.finditer(line):
        if secret_key(pair.group(1)):
            found.append((pair.group(1), next(v for v in pair.groups()[1:] if v is not None)))
    for flag in _FLAG.finditer(line):
        if secret_key(flag.group(1)):
            found.append((flag.group(1), next(v for v in flag.groups()[1:] if v is not None)))
    for call in _CALL.finditer(line):
        if secret_key(call.group(2)):
            found.append((call.group(2), call.group(3) if call.group(3) is not None else call.group(4)))
    equals = line.find("=")  # .npmrc: //host/:_authToken=s3cret, a key up to the first = (B4)
    if not found and equals > 0 and "<" not in line[:equals] and secret_key(line[:equals].strip()):
        found.append((line[:equals].strip()[:256], line[equals + 1:]))
    return found


def _continued(lines: list[str], index: int, rest: str) -> tuple[str, int]:
    """The multi-line value that ``rest`` (what follows a secret's key on line ``index`` of
    ``lines``) opens, its lines joined by newlines without their delimiters ("" when it opens none),
    and about how many characters it read.
    It opens one when it is empty or a YAML block indicator (``|``, ``>``: the lines indented more
    than the key's, up to a blank line; an INI continuation), ends with ``\\`` (a properties
    continuation: while lines end with one), starts ``\"\"\"`` or ``'''`` (TOML) or a quote it does
    not close (an env file) or is a here-document (``<<EOF``: Terraform, shell), up to the line
    that closes it; any other value continues on the lines indented more than the key's (an INI
    value, a YAML plain scalar); at most :data:`_MAX_CONTINUED` lines (attacker trial 25, B1)."""
    value = rest.strip()
    heredoc = _HEREDOC.match(value)
    if index + 1 >= len(lines):
        return "", 0
    indent = len(lines[index]) - len(lines[index].lstrip())
    plain = not (not value or _BLOCK_INDICATOR.fullmatch(value) or value.endswith("\\") or heredoc is not None
                 or (value[:1] in "\"'`" and _unescaped_count(value, value[0]) in (1, 3)))  # fmt: skip
    if plain and (not lines[index + 1].strip() or len(lines[index + 1]) - len(lines[index + 1].lstrip()) <= indent):
        return "", 0  # a value of one line (the slice below is not made for each)
    following = lines[index + 1:index + 1 + _MAX_CONTINUED]
    pieces: list[str] = []
    if not value or _BLOCK_INDICATOR.fullmatch(value):
        for line in following:  # blank lines do not end a YAML block or configparser's value
            if line.strip() and len(line) - len(line.lstrip()) <= indent:
                break
            match = _ASSIGNMENT.match(line)
            piece = line[match.end():] if match is not None and not value else line
            pieces.append(assigned(piece).strip("'\""))  # a JSON value on the next line: "s3cret",
    elif value.endswith("\\"):
        pieces.append(value[:-1].strip())
        for line in following:
            pieces.append(line.strip().removesuffix("\\").strip())
            if not line.rstrip().endswith("\\"):
                break
    elif value[:3] in ('"""', "'''") and value.count(value[:3]) == 1:
        pieces += _delimited(value[3:], following, value[:3])
    elif value[:1] in "\"'`" and _unescaped_count(value, value[0]) == 1:
        pieces += _delimited(value[1:], following, value[0])
    elif heredoc is not None:
        word = heredoc.group(2)
        for line in following:
            if line.strip() == word:
                break
            pieces.append(line.strip())
    else:  # an INI value continued on lines indented more (configparser), a YAML plain scalar's lines
        for line in following:
            if line.strip() and len(line) - len(line.lstrip()) <= indent:
                break
            pieces.append(line.strip())
        read = sum(len(line) + 1 for line in following[:len(pieces)])
        return "\n".join([assigned(value).strip("'\""), *pieces]), read + 1
    read = sum(len(line) + 1 for line in following[:len(pieces)])
    return "\n".join(piece for piece in pieces if piece), read + 1


def _unescaped_count(text: str, quote: str) -> int:
    """How many times ``quote`` is in ``text`` not escaped by a backslash (a ``"`` quote; a shell's
    and TOML's ``'`` take no escapes)."""
    if quote != '"':
        return text.count(quote)
    return text.replace("\\\\", "").replace('\\"', "").count(quote)


def _delimited(first: str, following: list[str], closing: str) -> list[str]:
    """The lines of a value opened on a line whose rest is ``first`` and closed by ``closing`` on
    one of the ``following`` lines (or at their end; a ``\\"`` does not close a ``"``), without
    the delimiter."""
    pieces = [first.strip()]
    for line in following:
        bare = line.replace("\\\\", "  ").replace('\\"', "  ") if closing == '"' else line
        at = bare.find(closing)
        if at >= 0:
            pieces.append(line[:at].strip())
            break
        pieces.append(line.strip())
    return pieces


#: An OpenSSH or PEM private key's armour (``-----BEGIN OPENSSH PRIVATE KEY-----``).
_PRIVATE_KEY_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]{0,64}PRIVATE KEY-----")


def _commented(text: str, found: SecretValues) -> None:
    """The secret values of the comments of a YAML ``text`` (``# password: s3cret``, which the parse
    drops and a renderer prints with the file: attacker trial 25, B15), each read as a plain text
    line is (:func:`_line_secrets`)."""
    if "#" not in text:
        return
    for line in text.splitlines():
        at = line.find("#")
        if at >= 0:  # a comment line, or a comment after a value (``user: app # password: s3cret``)
            for key, rest in _line_secrets(line[at:], False):
                found.add(assigned(rest).strip("'\""), key)


def _private_keys(text: str, found: SecretValues) -> None:
    """Each OpenSSH or PEM private key block of ``text``, from its ``BEGIN`` line to its ``END`` one
    (or the text's end), wherever it is (attacker trial 25, B15: a ``deploy_key``), in linear time."""
    position = 0
    while (begin := _PRIVATE_KEY_BEGIN.search(text, position)) is not None:
        end = text.find("-----END", begin.end())
        if end < 0:
            found.add(text[begin.start():], "private key")
            return
        close = text.find("-----", end + 8)
        position = len(text) if close < 0 else close + 5
        found.add(text[begin.start():position], "private key")


#: An XML element's start tag, namespace prefix and attributes included (``<ns:password a="b"\n>``).
_XML_START = re.compile(r"<(?:[A-Za-z_][\w.-]{0,100}:)?([A-Za-z_][\w.-]{0,100})(\s[^<>]{0,4096})?>")
#: An element's text up to its end tag (``</password\n>``); a CDATA section is a token here (:func:`_xml_text`).
_XML_CONTENT = re.compile(r"([^<>]{1,4096})</(?:[A-Za-z_][\w.-]{0,100}:)?([A-Za-z_][\w.-]{0,100})\s{0,100}>")
#: The attribute that names what an element holds (Java's XML properties ``<entry key="db.password">``).
_XML_KEY = re.compile(r"\b(?:key|name)\s{0,100}=\s{0,100}(?:\"([^\"]{1,256})\"|'([^']{1,256})')")
#: Hadoop's ``<name>db.password</name><value>s3cret</value>`` (a ``<description>`` may come between).
_XML_NAME_VALUE = re.compile(r"<name>\s{0,100}([^<>]{1,256}?)\s{0,100}</name>\s{0,100}"
                             r"(?:<description>[^<>]{0,4096}</description>\s{0,100})?<value>([^<>]{1,4096})</value>")
#: An element's only child holding its text (Spring's ``<property name="password"><value>s3cret</value>``).
_XML_VALUE_CHILD = re.compile(r"\s{0,100}<(?:[A-Za-z_][\w.-]{0,100}:)?([A-Za-z_][\w.-]{0,100})(?:\s[^<>]{0,4096})?>"
                              r"([^<>]{1,4096})</(?:[A-Za-z_][\w.-]{0,100}:)?\1\s{0,100}>")
#: A CDATA section's stand-in in :func:`_xml_text` (``\\x00`` and its index).
_XML_TOKEN = re.compile("\x00([0-9]{1,7})\x00")


def _xml_text(text: str) -> tuple[str, list[str], list[str]]:
    """``text`` with its XML comments removed and each CDATA section replaced by a stand-in
    (:data:`_XML_TOKEN`), the sections' contents and the comments'; in linear time (``str.find``, no
    backtracking; no XML parser: entity expansion)."""
    if "<!" not in text:
        return text, [], []
    pieces: list[str] = []
    sections: list[str] = []
    comments: list[str] = []
    position = 0
    while (start := text.find("<!", position)) >= 0:
        if text.startswith("<![CDATA[", start):
            end = text.find("]]>", start + 9)
            if end < 0:
                break
            pieces += [text[position:start], f"\x00{len(sections)}\x00"]
            sections.append(text[start + 9:end])
            position = end + 3
        elif text.startswith("<!--", start):
            end = text.find("-->", start + 4)
            if end < 0:
                break
            pieces.append(text[position:start])
            comments.append(text[start + 4:end])
            position = end + 3
        else:
            pieces.append(text[position:start + 2])
            position = start + 2
    pieces.append(text[position:])
    return "".join(pieces), sections, comments


def _xml_secrets(text: str, found: SecretValues) -> None:
    """The secret values of the XML of ``text`` (attacker trial 25, B2): the text of each element whose
    name names a secret (a namespace prefix, attributes and line breaks inside its tags, comments
    and CDATA sections inside it), or whose ``key`` or ``name`` attribute does (``<entry
    key="db.password">``), Hadoop's ``<name>``/``<value>`` pairs, attributes (``password="..."``,
    a line break before ``=`` too), ``<add key= value=/>`` and ``name= value=`` pairs, in the text and
    in its comments (``<!-- <password>s3cret</password> -->``)."""
    if "<" not in text and "=" not in text:
        return
    plain, sections, comments = _xml_text(text)
    if comments:  # a commented-out element still holds its secret (read once, not nested)
        _xml_secrets("\n".join(comment.replace("<!", "<") for comment in comments), found)

    def restored(value: str) -> str:
        return _XML_TOKEN.sub(lambda token: sections[int(token.group(1))] if int(token.group(1)) < len(sections)
                              else token.group(), value)  # fmt: skip

    for start in _XML_START.finditer(plain):
        key = start.group(1)
        if not secret_key(key):
            named = _XML_KEY.search(start.group(2) or "")
            key = named and (named.group(1) or named.group(2))
            if not key or not secret_key(key):
                continue
        content = _XML_CONTENT.match(plain, start.end())
        if content is not None and content.group(2) == start.group(1):
            found.add(restored(content.group(1)), key)
        elif (child := _XML_VALUE_CHILD.match(plain, start.end())) is not None:
            found.add(restored(child.group(2)), key)
    for match in _XML_NAME_VALUE.finditer(plain):
        if secret_key(match.group(1)):
            found.add(restored(match.group(2)), match.group(1))
    for match in _ATTRIBUTE.finditer(plain):  # password="..." (and '...')
        if secret_key(match.group(1)):
            found.add(match.group(2) or match.group(3), match.group(1))
    for match in _KEY_VALUE.finditer(plain):
        if secret_key(match.group(2)):
            found.add(match.group(4), match.group(2))


def _inside(path: str, root_real: str) -> bool:
    real = facts.realpath(path)
    return real == root_real or real.startswith(root_real.rstrip(os.sep) + os.sep)


def _read(path: str, *, raw: bool = False, limit: int | None = None):
    """The text of ``path`` when it is a regular file of at most ``limit`` bytes (default
    :data:`MAX_FILE_BYTES`; never a FIFO or device), read as a Secret's data is (:func:`_unicode`:
    UTF-16 after its byte order mark, a file in UTF-16 whose secret-named name makes it a secret
    whole; attacker trial 32, C), undecodable bytes replaced (``raw``: its bytes); None otherwise."""
    try:
        data = read_bytes(path, MAX_FILE_BYTES if limit is None else limit)
    except (OSError, ValueError):  # ValueError: a NUL in the name
        return None
    return data if raw else _unicode(data, "replace")


#: What :func:`written_values` found in a user's file, by (path, size, modification time).
_WRITTEN: dict[tuple[str, int, int], SecretValues] = {}


def written_values(path: str, candidates: Iterable[str] = ()) -> SecretValues | None:
    """The secret and public values of the user's file ``path`` (:func:`_yaml_text`), each file
    parsed once per run while it is unchanged; None when it cannot be read (:func:`_read`), or when
    ``candidates`` are given and it holds none of them (it then makes none public: never parsed)."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    identity = (os.path.abspath(path), info.st_size, info.st_mtime_ns)
    found = _WRITTEN.get(identity)
    if found is None:
        text = _read(path)
        if text is None or (candidates and not any(candidate in text for candidate in candidates)):
            return None
        found = SecretValues()
        _yaml_text(text, found)
        if len(_WRITTEN) >= 4096:
            _WRITTEN.clear()
        _WRITTEN[identity] = found
    return found


def _yaml_text(text: str, found: SecretValues, what: str | None = None) -> None:
    """Secret and public values of a YAML text: parsed when it parses, else line by line (a file that
    does not parse, such as a Helm template, is what a YAML error quotes). ``what`` names a text
    that must parse (a values file, a manifest, not a template): one that does not may hold values
    the renderer reads and the lines miss (a flow mapping after a byte order mark, which Go reads
    and libyaml refuses: attacker trial 24, B2), so ``found`` is then incomplete."""
    try:
        nodes = list(yaml.compose_all(text, Loader=_Loader))
    except (yaml.YAMLError, RecursionError, ValueError):
        _lines(text, found)
        if what is not None:
            found.left_out(f"{what} is not YAML hooklint reads")
        return
    for node in nodes:
        if node is not None:
            _node(node, found)


#: Keys whose values name objects (their values, and a ``labels`` mapping's, are also :attr:`SecretValues.names`).
_IDENTITY_KEYS = frozenset(("name", "namespace", "generateName", "labels", "releaseName", "fullnameOverride",
                            "nameOverride"))  # fmt: skip
#: Keys under a key that names a secret whose values are none (``auth.username``, ``auth.database``,
#: a ``secretGenerator``'s ``files`` and ``envs``, which name files).
_NOT_SECRET_LEAF = re.compile(r"(?:user(?:name)?|users|database|host(?:name)?|port|"
                              r"enabled|type|mode|version|path|file(?:name)?|namespace|realm|issuer|audience|"
                              r"scopes?|method|provider|policy|files|envs?|behavior|options)$",
                              re.IGNORECASE)  # fmt: skip


_BINARY = "tag:yaml.org,2002:binary"


def _key_text(key: yaml.Node) -> str:
    """A mapping key as go-yaml reads it: a scalar's text, a ``!!binary`` one decoded
    (``? !!binary cGFzc3dvcmQ=`` is the key ``password``: attacker trial 25, B9); "" for any other."""
    if key.__class__ is not yaml.ScalarNode:
        return ""
    if key.tag == _BINARY:
        try:
            return base64.b64decode("".join(key.value.split()), validate=True).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            return key.value
    return key.value


def _as_go_reads(node: yaml.MappingNode, written: list[tuple[yaml.Node, yaml.Node]] | None = None,
                 ) -> tuple[list[tuple[str, yaml.Node]], str | None, bool]:  # fmt: skip
    """The mapping ``node`` as go-yaml v2 (Argo CD, kustomize, ``kubectl``) reads it, merge keys
    applied (:func:`~hooklint.yamlio.written_pairs`; ``written``: those pairs, when known): its
    ``(key, value node)`` pairs, a merged one and one a later key replaces included (a key that is
    no scalar as ""), its ``kind`` ("Secret" when any of its ``kind`` pairs says so, else the one
    go-yaml keeps: :func:`~hooklint.yamlio.go_pairs`) and whether it is a named secret
    (:func:`named_secret` of its ``name`` as go-yaml keeps it). ``<<: {kind: Secret}`` makes a
    Secret for go-yaml as ``kind: Secret`` does (attack 11 item 6)."""
    if written is None:
        written = list(written_pairs(node, strict=False))
    pairs = [(_key_text(k), v) for k, v in written]
    kinds = [v.value for k, v in pairs if k == "kind" and v.__class__ is yaml.ScalarNode]
    kind = "Secret" if "Secret" in kinds else (kinds[-1] if kinds else None)
    name = next((v for k, v in reversed(pairs) if k == "name"), None)
    return pairs, kind, name is not None and named_secret([("name", name)])


def _node(root: yaml.Node, found: SecretValues) -> None:
    """Walk one document: a Secret's ``data``/``stringData`` values (under their keys), values under
    secret keys and a named secret's ``value`` are secrets, references to a Secret never; inline YAML
    strings under ``patch``-like keys are walked too; the rest is public (a ConfigMap's data included)."""
    public, names = found.public, found.names
    scalar, sequence, mapping = yaml.ScalarNode, yaml.SequenceNode, yaml.MappingNode
    # (node, the key naming the secret it holds or None, whether it names an object: True, or
    # "labels" for a labels mapping, whose values do)
    stack: list[tuple[yaml.Node, str | None, bool | str]] = [(root, None, False)]
    steps = 0
    while stack:
        steps += 1
        if steps > MAX_WALK:  # never before the loader's own bounds; if so, fail closed
            found.left_out(f"a document of more than {MAX_WALK:,} nodes")
            return
        node, secret, identity = stack.pop()
        cls = node.__class__
        if cls is scalar:
            if secret is None:
                public.add(node.value)
                if identity and len(node.value) >= MIN_LENGTH:
                    names.add(node.value)
            else:
                found.add_encoded(node.value, secret)
            continue
        if cls is sequence:
            stack.extend((item, secret, False) for item in node.value)
            continue
        if cls is not mapping:
            continue
        pairs, kind, named = _as_go_reads(node)
        for key, value in pairs:
            public.add(key)
            if kind == "Secret" and key in ("data", "stringData") and value.__class__ is mapping:
                for entry_key, entry in value.value:
                    entry_name = entry_key.value if entry_key.__class__ is scalar else ""
                    public.add(entry_name)
                    if entry.__class__ is scalar:  # a Secret's own value: a secret wherever else it is written
                        found.add_stored(entry.value, entry_name, encoded=True)
                    else:
                        stack.append((entry, entry_name, False))
                continue
            if kind == "ConfigMap" and key in ("data", "binaryData") and value.__class__ is mapping:
                for entry_key, entry in value.value:  # never secret, whatever its keys say: public
                    public.update(part.value for part in (entry_key, entry) if part.__class__ is scalar)
                continue
            child: str | None
            if reference_key(key):
                child = None  # a reference to a Secret by name, even under a key that names a secret
            elif named and key == "value":
                child = next(v.value for k, v in reversed(pairs) if k == "name")
            elif secret_key(key):
                child = key
            elif secret is not None and _NOT_SECRET_LEAF.search(key):
                child = None  # auth.username, auth.database: under a key that names a secret, no secret
            else:
                child = secret
            if child is None and key.lower() in ("patch", "patches", "patchesstrategicmerge") and value.__class__ is scalar:
                _yaml_text(value.value, found)
                continue
            stack.append((value, child, identity == "labels" or (key if key in _IDENTITY_KEYS else False)))


_BLOCK = re.compile(r"^(\s*)(?:-\s+)?[\"']?(data|stringData)[\"']?\s*:\s*(.*)$")
#: ``key: value`` (the key to its first ``:``; ``[^:#]*?\s*:`` cost the square of a line of spaces).
_ENTRY = re.compile(r"^(\s*)(?:-\s+)?(?:\"[^\"]*\"\s*|'[^']*'\s*|[^:#\s][^:#]*):(?:\s+(.*))?$")


def _lines(text: str, found: SecretValues) -> None:
    """Line by line (no parse): the values of the ``key: value`` lines more indented than a
    ``data:``/``stringData:`` line (block scalars' lines too), the rest of such a line, and the
    values of lines whose key names a secret are secrets; the values of other ``key: value`` lines
    are public."""
    inside: int | None = None
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        if inside is not None and indent <= inside:
            inside = None
        block = _BLOCK.match(line)
        if block is not None:
            inside = len(block.group(1))
            if block.group(3):
                found.add(block.group(3))  # flow style or a scalar on the same line
            continue
        entry = _ENTRY.match(line)
        key = line.split(":", 1)[0].strip(" -\"'") if entry is not None else ""
        if inside is not None:
            if entry is not None and entry.group(2):
                found.add_encoded(entry.group(2).strip().strip("'\""), key)
            elif entry is None:
                found.add(line)  # a block scalar's line, a continuation
            continue
        if entry is not None and entry.group(2):
            value = entry.group(2).strip().strip("'\"")
            if secret_key(key):
                found.add(value, key)
            else:
                found.add_public(key)
                found.add_public(value, name=key.split(".")[-1] in _IDENTITY_KEYS)


def _kustomization(text: str, folder: str, root_real: str, found: SecretValues) -> None:
    """The inputs of one kustomization's ``secretGenerator`` (keys in any case, as hooklint cannot
    know which spelling kustomize reads): its literals (whole and their value, under their key), the
    contents of its ``files`` and the lines and values of its ``envs``, read only inside the
    repository. A ``configMapGenerator``'s are no secret (a ConfigMap's data). The kustomization is
    read both as PyYAML and as go-yaml v2 (kustomize) apply its merge keys, so that a generator
    either reader keeps is read."""
    try:
        config = yaml.load(text, Loader=_Loader)
    except (yaml.YAMLError, RecursionError, ValueError):
        config = None
    try:  # as kustomize reads it (go-yaml v2: a merge key written where it stands replaces a key before it)
        go_config = go_first_document(text).value
    except (yaml.YAMLError, RecursionError, ValueError):
        go_config = None
    entries = [item for read in (config, go_config) if isinstance(read, dict) for item in read.items()]
    for key, generators in entries:
        if str(key).lower() != "secretgenerator" or not isinstance(generators, list):
            continue
        for generator in generators:
            if not isinstance(generator, dict):
                continue
            fields = {str(k).lower(): v for k, v in generator.items()}
            for literal in _strings(fields.get("literals")):
                name = re.split(r"[=:]", literal, maxsplit=1)[0].strip()
                found.add(literal, name)
                for sep in ("=", ":"):
                    if sep in literal:
                        found.add(literal.split(sep, 1)[1].strip().strip("'\""), name)
            for entry in _strings(fields.get("files")):
                name, _, path = entry.rpartition("=")
                text_of = _read_inside(folder, path, root_real, found)
                if text_of is not None:
                    found.add(text_of, name.strip() or os.path.basename(path.strip()))
            for entry in _strings(fields.get("envs")) + _strings(fields.get("env")):
                _env_file(_read_inside(folder, entry, root_real, found, raw=True), found)


def _env_file(data: bytes | None, found: SecretValues) -> None:
    """The lines of an env file and their values under their names (each line's bytes too, as
    kustomize prints a line that is not UTF-8: ``line [80 65 ...]``, :func:`_forms`)."""
    for raw in (data or b"").splitlines():
        line = raw.decode("utf-8", "replace").strip().removeprefix("\ufeff")
        if line and not line.startswith("#"):
            name = line.split("=", 1)[0].strip()
            for form in {raw.strip(), raw.strip().removeprefix(b"\xef\xbb\xbf")}:  # its bytes as kustomize lists them
                found.add(" ".join(str(b) for b in form), name)
            found.add(line, name)
            if "=" in line:
                found.add(line.split("=", 1)[1].strip().strip("'\""), name)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [str(item) for item in value if isinstance(item, (str, int, float))]
    return []


def _read_inside(folder: str, name: str, root_real: str, found: SecretValues, *, raw: bool = False):
    """:func:`_read` of ``name`` in ``folder`` when it resolves inside ``root_real``, else None; a
    file there too large to read leaves ``found`` incomplete (its renderer reads it whole)."""
    path = os.path.normpath(os.path.join(folder, name.strip()))
    if not _inside(path, root_real):
        return None
    text = _read(path, raw=raw)
    if text is None and _oversized(path, MAX_FILE_BYTES):
        found.left_out(f"{os.path.relpath(path, root_real)} is larger than {MAX_FILE_BYTES:,} bytes")
    return text


def file_parameter_secrets(file_parameters: Iterable[tuple[str, str]], chart: str, root: str,
                           found: SecretValues | None = None) -> SecretValues:  # fmt: skip
    """The contents of the files an Application passes as Helm values (``helm.fileParameters``,
    ``--set-file name=path``; the path relative to the chart ``chart``, or to the repository ``root``
    with a leading ``/``, as Argo CD resolves it), each a secret under its parameter's name: a
    template may print it (issue 32). Only regular files inside ``root`` are read."""
    found = found if found is not None else SecretValues()
    root_real = facts.realpath(root)
    for name, path in file_parameters:
        if "://" in path:
            continue
        full = os.path.join(root, path.lstrip("/")) if path.startswith("/") else os.path.join(chart, path)
        text = _read_inside(os.path.dirname(full), os.path.basename(full), root_real, found)
        if text is not None:
            found.add(text, name)
    return found


def tagging_inputs(inputs: Iterable[str], render: Callable[[], T]) -> Callable[[], T]:
    """``render`` with the :class:`~hooklint.sources.render.rendered.RenderError` it raises tagged with
    ``inputs`` (the files the rendering reads), so its message can be redacted."""
    paths = tuple(inputs)

    def run() -> T:
        try:
            return render()
        except RenderError as error:
            error.inputs = error.inputs or paths
            raise

    return run


def redact_render_error(message: str, error: RenderError, folder: str, root: str, *, helm: bool = False,
                        extra_values: Iterable[str | None] = (), parameters: Iterable[tuple[str, str]] = (),
                        file_parameters: Iterable[tuple[str, str]] = (),
                        names: Iterable[str | None] = (), carried: Iterable[tuple[str, str]] = ()) -> str:  # fmt: skip
    """``message`` (what ``error`` of the application in ``folder`` will report) redacted
    (:func:`render_error_redactor`)."""
    return render_error_redactor(error, folder, root, helm=helm, extra_values=extra_values, parameters=parameters,
                                 file_parameters=file_parameters, names=names, carried=carried)(message)  # fmt: skip


def render_error_redactor(error: RenderError, folder: str, root: str, *, helm: bool = False,
                          extra_values: Iterable[str | None] = (), parameters: Iterable[tuple[str, str]] = (),
                          file_parameters: Iterable[tuple[str, str]] = (), names: Iterable[str | None] = (),
                          carried: Iterable[tuple[str, str]] = ()) -> Callable[[str], str]:  # fmt: skip
    """A function of a message (what ``error`` of the application in ``folder`` reports) that scrubs
    it (:data:`_SCRUBS`) and removes the secret values of the error's ``inputs``, or, when the
    renderer failed before it knew them, of the regular files of ``folder`` and its subfolders
    (symbolic links not followed, at most :data:`MAX_FILES`); of ``extra_values`` (YAML texts of
    values: an Application's ``helm.values``), of ``parameters`` (``(name, value)``: its
    ``helm.parameters``, a value under a secret name is a secret, any other one public) and of the
    files of ``file_parameters`` (:func:`file_parameter_secrets`). ``names`` (the Application's
    name, namespace, release name) are public; ``carried`` (``(value, key)``: the secrets of the
    ApplicationSet generator that made the Application) are secrets wherever they are also
    written (:meth:`SecretValues.add_carried`). The inputs are read once, for every message of
    errors with the same inputs (the omissions of one partial rendering)."""
    inputs: Iterable[str] = error.inputs or _files_under(folder)
    found = secret_values(inputs, root, helm=helm, extra_values=[text for text in extra_values if text])
    parameter_secrets(parameters, found)
    file_parameter_secrets(file_parameters, folder, root, found)
    for identity in names:
        if identity:
            found.add_public(identity, name=True)
    for value, key in carried:
        found.add_carried(value, key)
    if found.incomplete:  # fail closed: what it could not read may be what the message quotes
        return functools.partial(withheld, found.incomplete[0])
    hide = redactor(found)

    def redacted(message: str) -> str:  # redact(message, found), its redactor made once
        return hide(scrubbed(message))

    return redacted


def withheld(why: str, message: str = "") -> str:
    """What a renderer's ``message`` is replaced by when the values it may quote could not all be
    read (``why``: :attr:`SecretValues.incomplete`): it may hold a secret hooklint cannot find, so
    it is not shown (attacker trial 24: a values file past a bound, or one libyaml refuses and Go
    reads, let ``fail`` print a password)."""
    return (f"the renderer's message is not shown, as it may quote a secret value hooklint could not "
            f"look for ({why}); run the renderer yourself to read it")


def _files_under(folder: str) -> list[str]:
    found: list[str] = []
    for top, dirs, files in walk_tree(folder):
        dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(top, d)))
        found.extend(os.path.join(top, f) for f in sorted(files))
        if len(found) >= MAX_FILES:
            break
    return found[:MAX_FILES]


# --- lines of a manifest that hold secret values (``hooklint fix --diff``) ----------------------

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def secret_lines(text: str) -> set[int]:
    """The 0-based numbers of the lines of ``text`` (a YAML or JSON manifest file) that hold a
    secret value: the values of a Secret's ``data`` and ``stringData`` (and its
    ``last-applied-configuration`` annotation, which repeats them), and values under keys that name a
    secret (:func:`secret_key`) in any object, each from its first line to its last. A text that does
    not parse is read line by line (``data:`` blocks by indentation, ``key: value`` lines)."""
    try:
        nodes = [node for node in yaml.compose_all(text, Loader=_Loader) if node is not None]
    except (yaml.YAMLError, RecursionError, ValueError):
        return _secret_lines_by_indent(text)
    found: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(node, False) for node in nodes]
    while stack:
        node, in_secret = stack.pop()
        if isinstance(node, yaml.SequenceNode):
            stack.extend((item, in_secret) for item in node.value)
        if not isinstance(node, yaml.MappingNode):
            continue
        written = list(written_pairs(node, strict=False))
        pairs = [(k.value if isinstance(k, yaml.ScalarNode) else "", k, v) for k, v in written]
        _, kind, env_secret = _as_go_reads(node, written)
        secret = in_secret or kind == "Secret"
        for key, key_node, value in pairs:
            named = (secret_key(key) or (env_secret and key == "value")) and not (
                isinstance(value, yaml.ScalarNode) and value.value in _NOT_SECRET)
            if (kind == "Secret" and key in ("data", "stringData")) or named or (secret and key == LAST_APPLIED):
                last = _last_line(value)
                first = value.start_mark.line
                if isinstance(value, yaml.MappingNode | yaml.SequenceNode) and value.flow_style is False:
                    first = max(first, key_node.end_mark.line + 1)  # the key's own line names no value
                found.update(range(first, last + 1))
            else:
                stack.append((value, secret and key in ("metadata", "annotations")))
    return found


def _last_line(node: yaml.Node) -> int:
    """The 0-based last line holding part of ``node``'s value: a block collection ends on its
    last scalar's line (not on the comments or blank lines PyYAML counts into it), a flow one on its
    closing bracket, a scalar where its text ends."""
    last = node.start_mark.line
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, yaml.ScalarNode) or getattr(item, "flow_style", False):
            end = item.end_mark
            last = max(last, end.line - (1 if end.column == 0 and end.line > item.start_mark.line else 0))
        elif isinstance(item, yaml.SequenceNode):
            stack.extend(item.value)
        elif isinstance(item, yaml.MappingNode):
            stack.extend(part for pair in item.value for part in pair)
    return last


def _secret_lines_by_indent(text: str) -> set[int]:
    found: set[int] = set()
    inside: int | None = None
    for number, line in enumerate(text.splitlines()):
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if inside is not None and indent <= inside:
            inside = None
        block = _BLOCK.match(line)
        if block is not None:
            inside = len(block.group(1))
            if block.group(3) and not block.group(3).startswith("#"):
                found.add(number)
        elif inside is not None:
            found.add(number)
        else:
            entry = _ENTRY.match(line)
            if entry is not None and entry.group(2) and secret_key(line.split(":", 1)[0].strip(" -\"'")):
                if entry.group(2).split("#")[0].strip() not in _NOT_SECRET:
                    found.add(number)
    return found


_VALUE_AT = re.compile(r"^(\s*(?:-\s+)?(?:\"(?:[^\"\\]|\\.)*\"\s*|'[^']*'\s*|[^\s:#'\"{\[][^:#]*):)(\s+)(\S.*?)(\r?\n?)$")
_ITEM_AT = re.compile(r"^(\s*-\s+)(\S.*?)(\r?\n?)$")
_INDENT_AT = re.compile(r"^(\s*)(\S.*?)(\r?\n?)$")


def redact_line(line: str) -> str:
    """``line`` (with its line ending, if any) with its value part replaced by ``[redacted]``: the
    key, the ``- `` of a sequence item, the indentation, a block scalar's ``|``/``>`` header and
    the line ending are kept."""
    match = _VALUE_AT.match(line)
    if match is not None:
        key, space, value, end = match.groups()
        return line if re.fullmatch(r"[|>][-+0-9]*", value) else f"{key}{space}{REDACTED}{end}"
    match = _ITEM_AT.match(line) or _INDENT_AT.match(line)
    if match is not None:
        lead, value, end = match.groups()
        return f"{lead}{REDACTED}{end}"
    return line
