"""Secret values kept out of renderer messages (HL007, HL009).

kustomize and Helm fail with messages that quote what they read: kustomize echoes every
``secretGenerator`` literal of a generator with one bad literal (``literal sources [a=s3cret
b:x]: invalid literal source b:x, expected key=value``), an env file line with invalid UTF-8 both
as text and as its byte values; Helm's JSON Schema check quotes the value that fails
(``at '/db/password': 's3cret' does not match pattern ...``), ``fail`` and ``required`` print
messages templates build from values, PyYAML's errors quote the line they stopped on, go-yaml
quotes a scalar (``cannot unmarshal !!str `s3cret...```). hooklint repeats those messages, and
its reports go to CI logs and pull-request comments, so before a render error becomes a load
issue (:func:`hooklint.sources.render.render`, the one place that happens) its message passes
through :func:`redact_message`:

- every value the rendering's input files hold that hooklint knows to be secret-bearing is
  replaced by ``[redacted]`` wherever it occurs (:func:`secret_values`): a Secret's ``data`` and
  ``stringData`` values (and ``data`` decoded from base64), the ``literals`` of kustomize's
  ``secretGenerator`` and ``configMapGenerator`` (whole and their value), the contents of their
  ``files`` and the lines and values of their ``envs``/``env`` files, inline patches holding such
  Secrets, and any scalar under a key that names a secret (``password``, ``token``, ``secret``,
  ``credential``, ``private``, ``auth``, ``apikey``...); for a Helm chart also every scalar of its
  values files and of the Application's inline values (a ``fail`` message can quote any of them),
  of 6 characters or more, as a whole word. Each value is also searched for in the forms messages
  write it in: Go-quoted, base64 and Go's byte-slice (``[112 97 115 115]``).
- and, first, the quoted literals after the message prefixes that quote input values are
  replaced whatever they hold (:data:`_SCRUBS`).

The message keeps what is wrong and where (files, lines, keys, the schema's pattern), never the
value. Values of 1 or 2 characters are not searched for (they would eat the message); the
scrubs cover the messages that quote values in known places.
"""

from __future__ import annotations

import base64
import bisect
import binascii
import json
import os
import re
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import yaml

from hooklint.sources import facts
from hooklint.sources.rendered import RenderError
from hooklint.text import escape_controls

T = TypeVar("T")

REDACTED = "[redacted]"

#: Keys whose values are secrets wherever they are (any object, values files, kustomizations).
SECRET_KEY = re.compile(r"pass(?:word|wd|phrase)?|pwd|secret|token|credential|private|auth|api[-_.]?key|"
                        r"access[-_.]?key|cert|dsn|connection[-_]?string", re.IGNORECASE)  # fmt: skip
#: Keys that name a secret without holding one (``secretKeyRef``, ``secretName``, ``existingSecret``).
_REFERENCE_KEY = re.compile(r"(?:refs?|names?|existing\w*)$|^existing|^automount", re.IGNORECASE)
#: Scalars that are no secret wherever they are (go-yaml v2's booleans and null).
_NOT_SECRET = frozenset("y Y yes Yes YES n N no No NO true True TRUE false False FALSE on On ON off Off OFF null Null NULL ~".split())


def secret_key(key: str) -> bool:
    """Whether values under mapping key ``key`` are secrets (``SECRET_KEY``, not a reference)."""
    return bool(SECRET_KEY.search(key)) and not _REFERENCE_KEY.search(key)


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
#: Shortest value searched for; values shorter than WORD_AT are matched as whole words only.
MIN_LENGTH = 3
WORD_AT = 8
#: Shortest values-file scalar (not under a secret key) searched for, as a whole word.
MIN_VALUES_SCALAR = 6

_KUSTOMIZATIONS = ("kustomization.yaml", "kustomization.yml", "kustomization")
_YAML = (".yaml", ".yml", ".json")
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: (pattern, replacement) applied to every renderer message after the values are removed.
_SCRUBS: tuple[tuple[re.Pattern[str], str], ...] = (
    # kustomize api/kv: "literal sources [a=1 b:2]: invalid literal source b:2, expected key=value"
    (re.compile(r"literal sources \[.*\](?=: invalid literal source)"), f"literal sources {REDACTED}"),
    (re.compile(r"(invalid literal source ).*?(?=, expected key=value|$)"), rf"\g<1>{REDACTED}"),
    (re.compile(r"literal sources \[[^\]]*\]"), f"literal sources {REDACTED}"),
    # kustomize api/kv: "line [80 65 ...] has invalid utf8 bytes : PASS=..."
    (re.compile(r"line \[[\d ]*\] has invalid utf8 bytes\s*:.*"), f"line {REDACTED} has invalid utf8 bytes : {REDACTED}"),
    (re.compile(r'"(?:[^"\\]|\\.)*"( is not a valid key name)'), rf'"{REDACTED}"\1'),
    # go-yaml: cannot unmarshal !!str `s3cret...` into ...
    (re.compile(r"(!!\w+ )`[^`]*`"), rf"\1`{REDACTED}`"),
    # Helm 4 JSON Schema (santhosh-tekuri/jsonschema): "at '/db/password': 's3cret' does not match ..."
    (re.compile(r"(at '(?:[^'\\]|\\.)*': )'(?:[^'\\]|\\.)*'"), rf"\1'{REDACTED}'"),
    # Go strconv: parsing "s3cret": invalid syntax
    (re.compile(r'(parsing )"(?:[^"\\]|\\.)*"(?=: )'), rf'\1"{REDACTED}"'),
    # PyYAML: '... in "<unicode string>", line 2, column 14:  b: s3cret: c  ^' (the quoted line)
    (re.compile(r"(line \d+, column \d+):\s.*?\^"), r"\1"),
)


@dataclass
class SecretValues:
    """Values to remove from messages: ``anywhere`` as substrings (or whole words when short),
    ``words`` only as whole words (values-file scalars that are not known secrets)."""

    anywhere: set[str] = field(default_factory=set)
    words: set[str] = field(default_factory=set)
    #: mapping keys and path components of the inputs: what a message names, never removed
    keys: set[str] = field(default_factory=set)
    #: values known to be secrets (a Secret's data, a secret key's value): also found transformed
    loose: set[str] = field(default_factory=set)

    def add(self, value: object, *, word: bool = False, loose: bool = False) -> None:
        """Add ``value`` (a scalar as written; other types are ignored) with the forms messages
        write it in; ``loose``: a known secret, found in any case and with its separators changed
        too (:func:`redactor`)."""
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        if not isinstance(value, str) or value.strip() in _NOT_SECRET or len(self.anywhere) + len(self.words) > MAX_VALUES:
            return
        target = self.words if word else self.anywhere
        text = value.strip()
        if loose and not word:
            self.loose.add(text)
        forms = {text, text.removeprefix("\ufeff")}
        forms.update(piece.strip() for piece in text.split("\ufffd"))  # around bytes that were not UTF-8
        if not word:
            lines = [line.strip() for line in text.splitlines() if line.strip()]
            forms.update(lines)
            forms.add(" ".join(lines))
        for form in list(forms):
            quoted = json.dumps(form, ensure_ascii=False)[1:-1]
            forms.add(quoted)
            forms.add(escape_controls(form))  # as one-line messages write it (yamlio.shown): ESC as \x1b
            if not word and len(form) >= MIN_LENGTH:
                forms.add(base64.b64encode(form.encode("utf-8")).decode("ascii"))
                forms.add(" ".join(str(b) for b in form.encode("utf-8")))
        target.update(f for f in forms if len(f) >= (MIN_VALUES_SCALAR if word else MIN_LENGTH))


#: The credentials a URL can carry: ``scheme://user:password@`` (the password), ``scheme://token@``
#: (the whole user part, but ``git``), and the values of query parameters named like secrets
#: (``?access_token=``, ``&sig=``, ``X-Amz-Signature=``).
_URL_USER = re.compile(r"(\b[A-Za-z][\w+.-]*://)([^/\s@'\"?#]+)@")
_URL_QUERY = re.compile(r"([?&][\w.-]*(?:token|key|secret|passw(?:or)?d|pwd|sig|signature|auth|credential)[\w.-]*=)"
                        r"[^&\s'\"#]+", re.IGNORECASE)  # fmt: skip


def url_credentials(text: str) -> str:
    """``text`` with the credentials of every URL in it replaced by ``[redacted]``
    (:data:`_URL_USER`, :data:`_URL_QUERY`): a remote kustomize entry or repoURL may embed a token,
    and findings quote entries as written."""
    if "@" in text:
        text = _URL_USER.sub(lambda m: m.group(0) if m.group(2) == "git" else m.group(1) + (
            m.group(2).split(":", 1)[0] + ":" + REDACTED if ":" in m.group(2) else REDACTED) + "@", text)
    if "=" in text:
        text = _URL_QUERY.sub(rf"\1{REDACTED}", text)
    return text


def redact(message: str, values: SecretValues) -> str:
    """``message`` with the quoted literals after known prefixes scrubbed (:data:`_SCRUBS`), then
    every one of ``values`` replaced by ``[redacted]`` (:func:`redactor`)."""
    for pattern, replacement in _SCRUBS:
        message = pattern.sub(replacement, message)
    return redactor(values)(message)


def _loose(value: str) -> str:
    """A pattern for ``value`` as a template may have transformed it: any case (``upper``,
    ``lower``, ``title``) and any run of up to 3 separators between its letters and digits where
    it has separators, or none (``splitList``/``join``, ``replace``, ``nospace``)."""
    return r"[\W_]{0,3}".join(re.escape(piece) for piece in re.split(r"[\W_]+", value) if piece)


@dataclass(frozen=True, slots=True)
class Redactor:
    """What :func:`redactor` returns: called with a text, the text with every value it was made of
    replaced by ``[redacted]`` and the credentials of URLs removed (:func:`url_credentials`).

    The values are alternatives of one regular expression, tried in order at each position:
    ``anywhere`` as substrings, ``words`` as whole words, each ``(value, loose, shortest)``, where
    ``loose`` asks for :func:`_loose` matching (any case, separators changed) and ``shortest`` is
    the fewest characters a match of it has. A text shorter than that cannot hold it, so the
    expression applied to a text leaves it out: leaving out an alternative that cannot match
    changes no match. Each such expression is compiled when a text first needs it and kept; a
    Secret's certificate (a 100 kB value makes an expression of about 800 kB, 0.8 s to compile,
    half of a corpus run once) is compiled only for a text as long as it, which findings and plan
    lines never are. A class, not a closure, so that a worker process sends it back with the
    plan it guards (the compiled expressions stay behind)."""

    anywhere: tuple[tuple[str, bool, int], ...] = ()
    words: tuple[tuple[str, bool, int], ...] = ()
    #: The distinct ``shortest`` of all alternatives, ascending.
    cutoffs: tuple[int, ...] = ()
    #: Compiled expressions by how many ``cutoffs`` a text reaches (None: no alternative).
    compiled: dict[int, re.Pattern[str] | None] = field(default_factory=dict, compare=False)

    def __call__(self, text: str) -> str:
        reach = bisect.bisect_right(self.cutoffs, len(text))
        if reach in self.compiled:
            pattern = self.compiled[reach]
        else:
            pattern = self.compiled[reach] = self._compile(self.cutoffs[reach - 1] if reach else -1)
        if pattern is not None:
            text = pattern.sub(REDACTED, text)
        return url_credentials(text)

    def _compile(self, size: int) -> re.Pattern[str] | None:
        """The expression of the alternatives a text of ``size`` characters can hold."""

        def alternatives(entries: tuple[tuple[str, bool, int], ...]) -> str:
            return "|".join(f"(?i:{_loose(v)})" if loose else re.escape(v) for v, loose, shortest in entries
                            if shortest <= size)  # fmt: skip

        parts = []
        anywhere, words = alternatives(self.anywhere), alternatives(self.words)
        if anywhere:
            parts.append("(?:" + anywhere + ")")
        if words:
            parts.append(r"(?<![\w])(?:" + words + r")(?![\w])")
        return re.compile("|".join(parts)) if parts else None

    def __reduce__(self) -> tuple[type[Redactor], tuple[Any, ...]]:
        return Redactor, (self.anywhere, self.words, self.cutoffs)


def redactor(values: SecretValues) -> Redactor:
    """A function (a :class:`Redactor`) replacing every one of ``values`` in a text by ``[redacted]``, longest first, in
    one pass: ``anywhere`` values of :data:`WORD_AT` characters or more
    as substrings, and the known secrets among them (``loose``) also in any case and with their
    separators changed or dropped (:func:`_loose`: a chart's ``fail`` may print ``upper``/``join``
    of a value); shorter ones and ``words`` as whole words. Keys the inputs name are never removed.
    Credentials in URLs are always removed (:func:`url_credentials`)."""
    anywhere = sorted((v for v in values.anywhere - values.keys if len(v) >= WORD_AT), key=len, reverse=True)
    words = {v for v in values.anywhere if len(v) < WORD_AT} | values.words
    ordered = sorted(words - values.keys, key=len, reverse=True)
    substrings: list[tuple[str, bool, int]] = []
    if anywhere:
        substrings = [(v, False, len(v)) for v in anywhere]
        for v in sorted(values.loose - values.keys, key=len, reverse=True):
            letters = len(re.sub(r"[\W_]", "", v))  # what _loose's pattern matches at the least
            if letters >= WORD_AT:
                substrings.append((v, True, letters))
    whole = [(v, False, len(v)) for v in ordered]
    cutoffs = tuple(sorted({shortest for _, _, shortest in substrings + whole}))
    return Redactor(tuple(substrings), tuple(whole), cutoffs)


def value_secrets(texts: Iterable[str], parameters: Iterable[tuple[str, str]] = ()) -> SecretValues:
    """The values under secret keys (:func:`secret_key`: ``password``, ``token``...) of Helm value
    texts (a chart's ``values.yaml`` files, an Application's value files and ``helm.values``), and
    the values of ``parameters`` whose name is a secret's, as known secrets (``loose``): a chart can
    copy one into a name or an annotation, which findings and the plan quote (second helper trial:
    ``sync-wave: "{{ .Values.db.password }}"`` printed the password in HL012, in every format).
    Not every scalar, as a render error's redaction takes them: that would eat ordinary words."""
    found = SecretValues()
    for text in texts:
        _yaml_text(text, found)
    for name, value in parameters:
        if secret_key(name):
            found.add(value, loose=True)
    found.words.clear()
    return found


def merged(*parts: SecretValues) -> SecretValues:
    """One :class:`SecretValues` holding every value of ``parts``."""
    out = SecretValues()
    for part in parts:
        out.anywhere |= part.anywhere
        out.words |= part.words
        out.keys |= part.keys
        out.loose |= part.loose
    return out


def object_secrets(bodies: Iterable[object]) -> SecretValues:
    """The values of the Secrets among ``bodies`` (parsed objects): ``stringData`` values, and
    ``data`` values with what they decode to. A kustomize ``replacements`` entry or a chart can
    copy one into a name, a label or an annotation, which findings and the plan quote; those
    quote them ``[redacted]`` (:func:`redactor`). Values shorter than :data:`WORD_AT` characters
    are left out: ``admin`` or ``true`` would eat the words of every message."""
    found = SecretValues()
    for body in bodies:
        if not isinstance(body, dict) or body.get("kind") != "Secret":
            continue
        for field_name in ("stringData", "data"):
            values = body.get(field_name)
            for value in values.values() if isinstance(values, dict) else ():
                if not isinstance(value, str):
                    continue
                plain = value
                if field_name == "data":
                    try:
                        plain = base64.b64decode(value, validate=True).decode("utf-8")
                    except (binascii.Error, ValueError):
                        continue
                if len(plain.strip()) >= WORD_AT:
                    found.add(plain, loose=True)
    return found


def redact_message(message: str, inputs: Iterable[str], root: str, *, helm: bool = False,
                   extra_values: Iterable[str] = ()) -> str:  # fmt: skip
    """``message`` (a renderer's error) without the secret values of ``inputs`` (the files the
    rendering read, absolute or relative to the current folder; only regular files inside
    ``root`` by resolved path are read, at most :data:`MAX_FILE_BYTES` each) and of
    ``extra_values`` (YAML texts: an Application's inline Helm values). ``helm``: the inputs are a
    chart's files, whose values files' scalars are all searched for (module docstring)."""
    return redact(message, secret_values(inputs, root, helm=helm, extra_values=extra_values))


def secret_values(inputs: Iterable[str], root: str, *, helm: bool = False,
                  extra_values: Iterable[str] = ()) -> SecretValues:  # fmt: skip
    """The secret-bearing values of ``inputs`` (see :func:`redact_message`)."""
    found = SecretValues()
    root_real = facts.realpath(root)
    paths = [os.path.abspath(p) for p in inputs][:MAX_FILES]
    readable = {p for p in paths if _inside(p, root_real)}
    for path in sorted(readable):
        found.keys.update(part for part in os.path.relpath(facts.realpath(path), root_real).split(os.sep))
        base = os.path.basename(path)
        if not base.lower().endswith(_YAML) and base.lower() not in _KUSTOMIZATIONS:
            continue
        if base.lower().endswith(".schema.json"):
            continue  # a JSON Schema holds no values: its patterns are what a message must keep
        text = _read(path)
        if text is None:
            continue
        if base.lower() in _KUSTOMIZATIONS:
            _kustomization(text, os.path.dirname(path), root_real, found)
        values_file = helm and _is_values_file(path)
        _yaml_text(text, found, all_scalars=values_file)
    for text in extra_values:
        _yaml_text(text, found, all_scalars=True)
    return found


def _is_values_file(path: str) -> bool:
    """A chart file that holds values: any YAML file outside ``templates/`` other than
    ``Chart.yaml``, ``Chart.lock`` and ``values.schema.json`` (value files named by an
    Application are inputs too)."""
    parts = os.path.normpath(path).split(os.sep)
    return "templates" not in parts[:-1] and parts[-1] not in ("Chart.yaml", "Chart.lock", "values.schema.json")


def _inside(path: str, root_real: str) -> bool:
    real = facts.realpath(path)
    return real == root_real or real.startswith(root_real.rstrip(os.sep) + os.sep)


def _read(path: str, *, raw: bool = False):
    """The text of ``path`` when it is a regular file of at most MAX_FILE_BYTES (never a FIFO or
    device), undecodable bytes replaced (``raw``: its bytes); None otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except (OSError, ValueError):  # ValueError: a NUL in the name
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
            return None
        data = os.read(fd, MAX_FILE_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if raw else data.decode("utf-8", "replace")


def _yaml_text(text: str, found: SecretValues, *, all_scalars: bool = False) -> None:
    """Secret values of a YAML text: parsed when it parses, and line by line always (a file that
    does not parse is what a YAML error quotes)."""
    try:
        nodes = list(yaml.compose_all(text, Loader=_Loader))
    except (yaml.YAMLError, RecursionError, ValueError):
        nodes = []
    for node in nodes:
        if node is not None:
            _node(node, found, all_scalars=all_scalars)
    _lines(text, found)


def _scalars(node: yaml.Node, found: SecretValues) -> None:
    """Every scalar value under ``node`` (not mapping keys), and its base64 decoding."""
    stack = [node]
    seen = 0
    while stack and seen < MAX_VALUES:
        seen += 1
        item = stack.pop()
        if isinstance(item, yaml.ScalarNode):
            found.add(item.value, loose=True)
            _decoded(item.value, found)
        elif isinstance(item, yaml.SequenceNode):
            stack.extend(item.value)
        elif isinstance(item, yaml.MappingNode):
            stack.extend(value for _, value in item.value)


def _decoded(value: str, found: SecretValues) -> None:
    """``value`` decoded from base64 when it is base64 of UTF-8 text (a Secret's ``data``)."""
    compact = "".join(value.split())
    if len(compact) < 4 or len(compact) % 4:
        return
    try:
        decoded = base64.b64decode(compact, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return
    if decoded.isprintable() or "\n" in decoded:
        found.add(decoded)


def _node(root: yaml.Node, found: SecretValues, *, all_scalars: bool) -> None:
    """Walk one document: a Secret's ``data``/``stringData``, values under secret keys, inline
    YAML strings under ``patch``-like keys, and (``all_scalars``) every scalar as a word."""
    stack: list[tuple[yaml.Node, bool]] = [(root, True)]
    steps = 0
    while stack and steps < MAX_VALUES:
        steps += 1
        node, top = stack.pop()
        if isinstance(node, yaml.ScalarNode):
            if all_scalars:
                found.add(node.value, word=True)
            continue
        if isinstance(node, yaml.SequenceNode):
            stack.extend((item, False) for item in node.value)
            continue
        if not isinstance(node, yaml.MappingNode):
            continue
        pairs = [(k.value if isinstance(k, yaml.ScalarNode) else "", v) for k, v in node.value]
        kind = next((v.value for k, v in pairs if k == "kind" and isinstance(v, yaml.ScalarNode)), None)
        named = named_secret(pairs)
        for key, value in pairs:
            found.keys.add(key)
            if (kind == "Secret" and key in ("data", "stringData")) or secret_key(key) or (named and key == "value"):
                _scalars(value, found)
            elif key.lower() in ("patch", "patches", "patchesstrategicmerge") and isinstance(value, yaml.ScalarNode):
                _yaml_text(value.value, found)
            stack.append((value, False))


_BLOCK = re.compile(r"^(\s*)(?:-\s+)?[\"']?(data|stringData)[\"']?\s*:\s*(.*)$")
_ENTRY = re.compile(r"^(\s*)(?:-\s+)?(?:\"[^\"]*\"|'[^']*'|[^:#\s][^:#]*?)\s*:(?:\s+(.*))?$")


def _lines(text: str, found: SecretValues) -> None:
    """Line by line (no parse): the values of the ``key: value`` lines more indented than a
    ``data:``/``stringData:`` line, the rest of such a line, and of lines whose key names a
    secret; block scalars' lines too."""
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
        if inside is not None:
            if entry is not None and entry.group(2):
                found.add(entry.group(2).strip().strip("'\""))
            elif entry is None:
                found.add(line)  # a block scalar's line, a continuation
            continue
        if entry is not None and entry.group(2) and secret_key(line.split(":", 1)[0].strip(" -\"'")):
            found.add(entry.group(2).strip().strip("'\""))


def _kustomization(text: str, folder: str, root_real: str, found: SecretValues) -> None:
    """The generator inputs of one kustomization: literals, ``files`` contents and ``envs`` lines
    of ``secretGenerator`` and ``configMapGenerator`` (keys in any case, as hooklint cannot know
    which spelling kustomize reads), read only inside the repository."""
    try:
        config = yaml.load(text, Loader=_Loader)
    except (yaml.YAMLError, RecursionError, ValueError):
        config = None
    if not isinstance(config, dict):
        return
    for key, generators in config.items():
        if str(key).lower() not in ("secretgenerator", "configmapgenerator") or not isinstance(generators, list):
            continue
        for generator in generators:
            if not isinstance(generator, dict):
                continue
            fields = {str(k).lower(): v for k, v in generator.items()}
            for literal in _strings(fields.get("literals")):
                found.add(literal)
                for sep in ("=", ":"):
                    if sep in literal:
                        found.add(literal.split(sep, 1)[1].strip().strip("'\""))
            for entry in _strings(fields.get("files")):
                text_of = _read_inside(folder, entry.split("=", 1)[-1], root_real)
                if text_of is not None:
                    found.add(text_of)
            for entry in _strings(fields.get("envs")) + _strings(fields.get("env")):
                _env_file(_read_inside(folder, entry, root_real, raw=True), found)


def _env_file(data: bytes | None, found: SecretValues) -> None:
    """The lines of an env file and their values, and each line's bytes as kustomize prints a
    line that is not UTF-8 (``line [80 65 ...]``)."""
    for raw in (data or b"").splitlines():
        for form in {raw.strip(), raw.strip().removeprefix(b"\xef\xbb\xbf")}:
            if len(form) >= MIN_LENGTH:
                found.anywhere.add(" ".join(str(b) for b in form))
        line = raw.decode("utf-8", "replace").strip().removeprefix("\ufeff")
        if line and not line.startswith("#"):
            found.add(line)
            if "=" in line:
                found.add(line.split("=", 1)[1].strip().strip("'\""))


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [str(item) for item in value if isinstance(item, (str, int, float))]
    return []


def _read_inside(folder: str, name: str, root_real: str, *, raw: bool = False):
    path = os.path.normpath(os.path.join(folder, name.strip()))
    return _read(path, raw=raw) if _inside(path, root_real) else None


def tagging_inputs(inputs: Iterable[str], render: Callable[[], T]) -> Callable[[], T]:
    """``render`` with the :class:`~hooklint.sources.rendered.RenderError` it raises tagged with
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
                        extra_values: Iterable[str | None] = (),
                        parameters: Iterable[tuple[str, str]] = ()) -> str:  # fmt: skip
    """``message`` (what ``error`` of the application in ``folder`` will report) redacted with the
    error's ``inputs``; when the renderer failed before it knew them, with the regular files of
    ``folder`` and its subfolders (symbolic links not followed, at most :data:`MAX_FILES`).
    ``extra_values`` are YAML texts of values (an Application's ``helm.values``), ``parameters``
    ``(name, value)`` pairs (its ``helm.parameters``: a value under a secret name is a secret, any
    other one searched for as a word, as a values-file scalar)."""
    return render_error_redactor(error, folder, root, helm=helm, extra_values=extra_values,
                                 parameters=parameters)(message)  # fmt: skip


def render_error_redactor(error: RenderError, folder: str, root: str, *, helm: bool = False,
                          extra_values: Iterable[str | None] = (),
                          parameters: Iterable[tuple[str, str]] = ()) -> Callable[[str], str]:  # fmt: skip
    """What :func:`redact_render_error` does to a message, as a function of the message: the
    inputs are read once, for every message of errors with the same inputs (the omissions of one
    partial rendering, each of which would otherwise walk and read the whole folder again)."""
    inputs: Iterable[str] = error.inputs or _files_under(folder)
    found = secret_values(inputs, root, helm=helm, extra_values=[text for text in extra_values if text])
    for name, value in parameters:
        found.add(value, word=not secret_key(name))
    hide = redactor(found)

    def redacted(message: str) -> str:  # redact(message, found), its redactor made once
        for pattern, replacement in _SCRUBS:
            message = pattern.sub(replacement, message)
        return hide(message)

    return redacted


def _files_under(folder: str) -> list[str]:
    found: list[str] = []
    for top, dirs, files in os.walk(folder):
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
        pairs = [(k.value if isinstance(k, yaml.ScalarNode) else "", k, v) for k, v in node.value]
        kind = next((v.value for k, _, v in pairs if k == "kind" and isinstance(v, yaml.ScalarNode)), None)
        secret = in_secret or kind == "Secret"
        env_secret = named_secret([(k, v) for k, _, v in pairs])
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


_VALUE_AT = re.compile(r"^(\s*(?:-\s+)?(?:\"(?:[^\"\\]|\\.)*\"|'[^']*'|[^\s:#'\"{\[][^:#]*?)\s*:)(\s+)(\S.*?)(\r?\n?)$")
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
