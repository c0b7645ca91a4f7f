"""What of a chart's rendering is not a function of the repository: template actions that decide
what Argo CD applies from the clock, randomness or DNS, and templates that read the checkout's
``.git`` (issue 32: never a silent pass).

hooklint renders a chart once, here and now, on a copy without Git's data
(:mod:`hooklint.sources.repository.withheld`). Argo CD's repo server renders it again on each
refresh and whenever its manifest cache expires, on the cluster's network, in its own clone: Helm's
``funcMap`` (helm ``pkg/engine/funcs.go``: Sprig's ``TxtFuncMap`` less ``env`` and ``expandenv``)
keeps ``now``, ``date``, ``randAlphaNum``, ``uuidv4``, ``genCA``, ``getHostByName``..., and Helm's
loader skips only what ``.helmignore`` lists and ``templates/.?*`` (``pkg/ignore/rules.go``
``AddDefaults``), so ``.Files.Get ".git/HEAD"`` reads the clone's. A template that lets one of them
decide which objects or checked fields exist renders something else there than hooklint checked:
:func:`nonhermetic_decisions` and :func:`git_reads` find those places, which
:mod:`hooklint.sources.render.helm` reports as HL009 (an
:class:`~hooklint.sources.render.rendered.Omission` at the template line). The common idioms that
only print such a value into a label, an annotation, a checksum or a generated password decide
nothing and are not reported.

The analysis reads the text of each action (``{{ ... }}``), not Go's full grammar: a call taints
the pipeline it is in, a variable assigned from a tainted pipeline (or a map ``set`` from one) is
tainted, and a helper (``define``) whose output holds a tainted value taints every ``include`` or
``template`` of it (one whose name is built at render time is tainted when any helper is). A
taint has a level: a generated string or a time is never empty, so only its content changes
(:data:`CONTENT`: ``{{ if $password }}`` renders the same objects every time), until a function
other than those that keep it non-empty (:data:`_KEEPS_TRUTH`: a comparison, ``mod``, ``atoi``)
makes its truth change too (:data:`TRUTH`, as ``randInt`` and ``getHostByName`` are). A tainted
pipeline decides when its truth is the condition of ``if``, when it is the value of ``with`` or
``range``, when a truth taint goes through a deciding function (:data:`DECIDING_FUNCTIONS`) even
when only printed, or when it is printed as the value of a field hooklint checks
(:data:`CHECKED_KEYS`). When in doubt it reports.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import hashlib
import os
import re
import zlib
from dataclasses import dataclass
from typing import Iterable, Iterator

from hooklint.files import FileTooLarge, NotRegularFile, read_bytes, walk_tree
from hooklint.sources.repository.withheld import GIT_DATA, GIT_REASON, Withheld

#: The largest decompressed packaged subchart read (bytes), as Helm's own loader bound.
_MAX_ARCHIVE = 64 * 1024 * 1024
#: Functions of the non-hermetic set that do not make a rendering differ by themselves: ``tpl``
#: runs a string as a template (the value files holding one are read as templates too), ``env``
#: and ``expandenv`` are not in Helm's ``funcMap`` (a template calling them does not parse).
_NOT_DECIDING = frozenset({"tpl", "env", "expandenv"})
#: Functions whose result decides between values: a tainted argument makes the choice tainted
#: even when the action only prints it (``{{ ternary "hostPID: true" "" (ge (now | date ...) ...) }}``).
DECIDING_FUNCTIONS = frozenset({
    "eq", "ne", "lt", "le", "gt", "ge", "and", "or", "not", "ternary", "empty", "semverCompare", "regexMatch",
    "mustRegexMatch", "contains", "hasPrefix", "hasSuffix", "has", "hasKey", "kindIs", "typeIs", "deepEqual",
})  # fmt: skip
#: The YAML keys whose value hooklint's checks read (a pod's security settings, host namespaces,
#: volumes, service account and image; an object's kind; RBAC rules; the hook, wave and deletion
#: annotations of Argo CD and Helm): a tainted value printed after one of them decides what is checked.
CHECKED_KEYS = frozenset({
    "kind", "apiVersion", "securityContext", "privileged", "allowPrivilegeEscalation", "runAsUser", "runAsGroup",
    "runAsNonRoot", "capabilities", "add", "procMount", "seccompProfile", "appArmorProfile", "seLinuxOptions",
    "hostPID", "hostIPC", "hostNetwork", "hostUsers", "hostPath", "hostPort", "volumes", "serviceAccountName",
    "serviceAccount", "automountServiceAccountToken", "image", "verbs", "resources", "apiGroups", "roleRef",
    "subjects", "argocd.argoproj.io/hook", "argocd.argoproj.io/hook-delete-policy", "argocd.argoproj.io/sync-wave",
    "argocd.argoproj.io/sync-options", "argocd.argoproj.io/compare-options", "helm.sh/hook", "helm.sh/hook-weight",
    "helm.sh/hook-delete-policy",
})  # fmt: skip
#: Sprig functions that change the map given first in place (``set $d "k" v``).
_MUTATING = frozenset({"set", "unset", "merge", "mustMerge", "mergeOverwrite", "mustMergeOverwrite"})
_CONTROL = ("if", "with", "range")
_CLOCK = frozenset({
    "now", "date", "date_in_zone", "dateInZone", "date_modify", "dateModify", "must_date_modify", "mustDateModify",
    "htmlDate", "htmlDateInZone", "ago", "durationRound", "toDate", "mustToDate",
})  # fmt: skip

#: One token of an action: a string (quoted, raw, character), a comment, a name (a function,
#: ``.Field.Path``, ``$var.Field``), ``:=``, ``=``, or one other character.
_TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"|`[^`]*`|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|[$.\w][\w.$]*|:=|\S', re.DOTALL)
_ACTION_END = re.compile(rb'"(?:\\.|[^"\\\n])*"|`[^`]*`|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|\}\}|[^"`\'/}]+|.', re.DOTALL)
#: A YAML key before the action on its line (``hostPID: {{``, ``- image: "repo:{{``).
_KEY = re.compile(r'["\']?([\w./-]+)["\']?\s*:(?=\s|$)')


@dataclass(frozen=True, slots=True)
class Decision:
    """One place where a non-hermetic value decides what a chart renders: ``path`` (as given),
    1-based ``line`` and ``column`` of the action, ``function`` (``now``; ``now`` through an
    ``include``: ``now (through include "x")``; :attr:`through`) and ``construct`` (what it decides: "the `if`
    condition", "the value of hostPID")."""

    path: str
    line: int
    column: int
    function: str
    construct: str
    #: ``sha256:`` and 16 hex digits of the file's bytes: an edit of it is a new finding in ``diff``.
    digest: str = ""
    #: The strings written in the deciding actions of the file (:func:`release_decisions` only):
    #: the names a release is compared with.
    literals: tuple[str, ...] = ()

    @property
    def called(self) -> str:
        """The function called (``now``), without the helper it is reached through."""
        return self.function.partition(" (through ")[0]

    @property
    def through(self) -> str:
        """`` through include "x"`` when the function is reached through a helper, else empty."""
        _, _, via = self.function.partition(" (through ")
        return f" through {via[:-1]}" if via else ""


@dataclass(slots=True)
class _Action:
    offset: int  # of the ``{{`` in the file
    tokens: list[str]
    prefix: str  # the text of the line before the ``{{``


def _actions(data: bytes, depth: int = 0) -> Iterator[_Action]:
    """Every ``{{ ... }}`` action of template text ``data``, tokenized (comments and trim markers
    left out), with its offset and the text before it on its line. A string of an action that
    holds template text (``tpl "{{ now | date \"20060102\" }}" .``) is followed by the tokens of
    the actions in it, in parentheses: ``tpl`` runs them, and their functions and fields decide
    as the action's own do (attacker trial 40, 3: the clock read inside such a string gated a
    privileged hook, unseen); strings in those, :data:`MAX_TEMPLATE_DEPTH` deep."""
    start = data.find(b"{{")
    while start >= 0:
        position, end = start + 2, len(data)
        while position < len(data):
            token = _ACTION_END.match(data, position)
            assert token is not None  # "." matches any byte
            if token.group() == b"}}":
                end = token.start()
                break
            position = token.end()
        text = data[start + 2:end].decode("utf-8", "replace").strip()
        text = text[1:] if text.startswith("-") else text
        text = text[:-1] if text.endswith("-") else text
        tokens = [t for t in _TOKEN.findall(text) if not t.startswith("/*")]
        if depth < MAX_TEMPLATE_DEPTH and "{{" in text:
            tokens = _with_template_text(tokens, depth)
        line_start = data.rfind(b"\n", 0, start) + 1
        yield _Action(start, tokens, data[line_start:start].decode("utf-8", "replace"))
        start = data.find(b"{{", end)


#: How deep :func:`_actions` reads template text held in strings of template text.
MAX_TEMPLATE_DEPTH = 4


def _with_template_text(tokens: list[str], depth: int) -> list[str]:
    """``tokens`` with each string literal that holds template text followed by the tokens of its
    actions, each action in parentheses (:func:`_actions`)."""
    out: list[str] = []
    for token in tokens:
        out.append(token)
        value = _literal(token)
        if value is not None and "{{" in value:
            for inner in _actions(value.encode("utf-8", "surrogateescape"), depth + 1):
                out += ["(", *inner.tokens, ")"]
    return out


def _literal(token: str) -> str | None:
    """The value of a Go string literal token, or None when ``token`` is not one: a raw string
    (backquotes) as written, an interpreted one with its escapes decoded (:func:`go_unquote`)."""
    if len(token) >= 2 and token[0] == token[-1] and token[0] in "\"`":
        body = token[1:-1]
        return body if token[0] == "`" else go_unquote(body)
    return None


#: An escape of a Go interpreted string literal (the Go specification, "Rune literals" and "String
#: literals"; text/template's lexer takes them as Go does, ``strconv.Unquote``).
_GO_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|[0-7]{3}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.DOTALL)
_GO_SIMPLE = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
#: An escape that may spell a letter of a name: ``"R\x65lease"``, ``"\103apabilities"``, ``"\u0052"``.
SPELLING_ESCAPE = re.compile(rb"\\(?:x[0-9a-fA-F]{2}|[0-7]{3}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})")


def go_unquote(body: str) -> str:
    """The text of the Go interpreted string literal whose body (between the quotes) is ``body``:
    ``\\xHH`` and ``\\NNN`` are bytes, ``\\uHHHH`` and ``\\UHHHHHHHH`` code points, ``\\n`` and
    the like their characters, any other escaped character itself; the bytes decoded as UTF-8
    (an invalid sequence replaced). Attacker trial 40, 2: ``index $ "R\\x65lease" "N\\x61mespace"``
    reads ``.Release.Namespace`` without writing the word."""
    out = bytearray()
    at = 0
    for found in _GO_ESCAPE.finditer(body):
        out += body[at:found.start()].encode("utf-8", "surrogateescape")
        escape = found.group(1)
        if escape[0] == "x" and len(escape) == 3:
            out.append(int(escape[1:], 16))
        elif len(escape) == 3 and escape[0] in "01234567":
            out.append(int(escape, 8) & 0xFF)
        elif escape[0] in "uU" and len(escape) > 1:
            code = int(escape[1:], 16)
            out += (chr(code) if code <= 0x10FFFF else "\ufffd").encode("utf-8", "surrogatepass")
        else:
            out += _GO_SIMPLE.get(escape, escape).encode("utf-8", "surrogateescape")
        at = found.end()
    out += body[at:].encode("utf-8", "surrogateescape")
    return out.decode("utf-8", "replace")


def _variable(token: str) -> str | None:
    """``$name`` of a token ``$name`` or ``$name.Field``; None for others (``$`` alone included)."""
    if token.startswith("$") and len(token) > 1 and token[1] != ".":
        return token.split(".", 1)[0]
    return None


#: A taint: what it comes from, as messages name it (``now``; ``now (through include "x")``), and
#: whether it reaches the truth of a value (:data:`TRUTH`) or only its content (:data:`CONTENT`).
_Taint = tuple[str, int]
#: The value's content differs between renderings, its truth does not: a generated password or
#: timestamp is never empty, so ``{{ if $password }}`` renders the same objects every time.
CONTENT = 1
#: Its truth differs too: ``randInt 0 2`` is 0 or 1, ``getHostByName`` is empty when the name does
#: not resolve, and a comparison (``eq``, ``ge``...) of a changing content is true or false.
TRUTH = 2
#: Sources whose truth changes by themselves.
_TRUTH_SOURCES = frozenset({"randInt", "getHostByName"})


#: The functions through which a never-empty value stays never empty, or that test or pick by
#: truth only (Sprig's string, encoding and hashing functions, Helm's ``include``/``toYaml``...):
#: any other function of a content taint (``eq``, ``mod``, ``regexFind``, ``trunc``...) may make
#: its truth change (fail closed).
_KEEPS_TRUTH = frozenset({
    "and", "or", "not", "empty", "ternary", "default", "coalesce", "required", "include", "template", "print",
    "printf", "println", "quote", "squote", "cat", "upper", "lower", "title", "toString", "toYaml", "toJson",
    "mustToJson", "toPrettyJson", "toRawJson", "fromYaml", "nindent", "indent", "b64enc", "b32enc", "sha1sum",
    "sha256sum", "sha512sum", "adler32sum", "urlquery", "list", "dict", "append", "mustAppend", "join", "deepCopy",
    "set", "unset", "merge", "mustMerge", "mergeOverwrite", "mustMergeOverwrite", "trimAll", "b64dec", "unixEpoch",
    "htmlDate", "trim", "nospace", "abbrev", "wrap", "derivePassword", "replace", "toStrings", "pick", "get",
    # reshaping a generated string (Bitnami's common.secrets.passwords.manage): empty only with a zero length
    "substr", "trunc", "regexReplaceAll", "regexReplaceAllLiteral", "trimPrefix", "trimSuffix", "repeat",
})  # fmt: skip
#: A function name in an action (not a field, variable, keyword, literal or number).
_FUNCTION = re.compile(r"(?!(?:true|false|nil|if|else|with|range|end|define|block|break|continue)\b)[A-Za-z_]\w*\Z")


class _Scan:
    """The taint state of one pass over a chart's files: tainted helpers (``include``/``template``
    names, and files) and the fields of ``.`` or ``$`` a ``set`` stored a tainted value in;
    ``keys``, the YAML keys a tainted value printed after decides (:data:`CHECKED_KEYS`)."""

    def __init__(self, functions: frozenset[str], helpers: dict[str, _Taint], paths: dict[str, _Taint],
                 keys: frozenset[str] = CHECKED_KEYS) -> None:  # fmt: skip
        self.functions = functions - _NOT_DECIDING
        self.helpers = helpers
        self.paths = paths
        self.keys = keys
        #: A field named so (``.Release.Name``, ``$ctx.Release``) or a string so (``index . "Release"``)
        #: is a source too (:func:`release_decisions`).
        self.fields: frozenset[str] = frozenset()

    def taint(self, tokens: list[str], variables: dict[str, _Taint]) -> _Taint | None:
        """The strongest non-hermetic source in ``tokens`` (a function, a tainted variable or
        field, an include of a tainted helper), with its level after the functions of the
        pipeline (a comparison of a content makes a truth), or None."""
        found: list[_Taint] = []
        for i, token in enumerate(tokens):
            if self.fields and (_literal(token) in self.fields or _reads_field(token, self.fields)):
                found.append((_literal(token) or token, CONTENT))
                continue
            if token in self.functions and (i == 0 or tokens[i - 1] != "define"):
                found.append((token, TRUTH if token in _TRUTH_SOURCES else CONTENT))
                continue
            var = _variable(token)
            if var is not None and var in variables:
                found.append(variables[var])
                continue
            field = token[1:] if token.startswith("$.") else token
            if field.startswith("."):
                found += [t for p, t in self.paths.items() if field == p or field.startswith(p + ".")]
            if token in ("include", "template") and i + 1 < len(tokens):
                name = _literal(tokens[i + 1])
                if name is None and self.helpers:  # a name built at render time: any helper or file
                    function, level = max(self.helpers.values(), key=lambda t: t[1])
                    found.append((f"{function.split(' (through', 1)[0]} (through {token} of a name built at "
                                  "render time)", level))  # fmt: skip
                elif name is not None and name in self.helpers:
                    function, level = self.helpers[name]
                    found.append((f"{function.split(' (through', 1)[0]} (through {token} {tokens[i + 1]})", level))
        if not found:
            return None
        function, level = max(found, key=lambda t: t[1])
        if level == CONTENT and any(_FUNCTION.match(t) and t not in _KEEPS_TRUTH and t not in self.functions
                                    for t in tokens):  # fmt: skip
            level = TRUTH  # ``mod (now | unixEpoch) 2``, ``eq $password "x"``: the truth changes too
        return function, level


def _decision(action: _Action, scan: _Scan, variables: dict[str, _Taint]) -> tuple[str, str] | None:
    """What tainted ``action`` decides, as ``(function, construct)``, or None; records the
    variables and fields it taints in ``variables`` and ``scan.paths``."""
    tokens = action.tokens
    if not tokens:
        return None
    keyword = tokens[0]
    body = tokens[1:] if keyword in _CONTROL or keyword == "else" else tokens
    if keyword == "else" and body and body[0] in _CONTROL:
        keyword, body = body[0], body[1:]
    taint = scan.taint(body, variables)
    if taint is None:
        return None
    source, level = taint
    if keyword in _CONTROL:
        for token in body:  # {{ range $i, $v := until (randInt 1 4) }}
            var = _variable(token)
            if var is not None:
                variables[var] = taint
        if keyword != "if" or level == TRUTH:  # with/range: ``.`` is the value in the body
            return source, f"the `{keyword}` {'list' if keyword == 'range' else 'condition'}"
        return None
    if keyword in ("end", "define", "block", "break", "continue", "else"):
        return None
    assigned = len(tokens) >= 2 and _variable(tokens[0]) is not None and tokens[1] in (":=", "=")
    if assigned:
        variables[_variable(tokens[0]) or tokens[0]] = taint
    for i, token in enumerate(tokens[:-1]):
        if token in _MUTATING:
            target = tokens[i + 1]
            var = _variable(target)
            if var is not None:
                variables[var] = taint
            elif target.startswith((".", "$")):  # ``set .Values.global "password" $generated``
                field = target[1:] if target.startswith("$.") else "." if target == "$" else target
                if scan.paths.get(field, ("", 0))[1] < level:
                    scan.paths[field] = taint
    if level == TRUTH:
        deciding = next((t for t in body if t in DECIDING_FUNCTIONS), None)
        if deciding is not None:
            return source, f"the result of `{deciding}`"
    if assigned:
        return None
    keys = [k for k in _KEY.findall(action.prefix) if k in scan.keys]
    if keys:
        return source, f"the value of {keys[-1]}"
    return None


def _helper_outputs(action: _Action, stack: list[str], scan: _Scan, variables: dict[str, _Taint],
                    found: dict[str, _Taint]) -> None:  # fmt: skip
    """Record in ``found`` the helper (innermost ``define``/``block`` of ``stack``, else the
    file, ``stack[0]``) whose output a tainted ``action`` reaches, at its strongest level."""
    tokens = action.tokens
    if tokens[:1] == ["else"]:
        tokens = tokens[1:]
    taint = scan.taint(tokens[1:] if tokens[:1] in (["if"], ["with"], ["range"]) else tokens, variables)
    if taint is not None:
        name = next((s for s in reversed(stack) if s), "")
        if found.get(name, ("", 0))[1] < taint[1]:
            found[name] = taint


_IN_TEMPLATES = re.compile(r"(?:^|/)templates/")
#: A ``tpl`` of a file the chart reads (``tpl (.Files.Get "conf/app.yaml") .``).
_TPL_OF_FILES = re.compile(rb"\btpl\b[^}]*Files|Files[^}]*\|\s*tpl\b")


def template_texts(files: list[tuple[str, str]], max_file_size: int) -> list[tuple[str, str]]:
    """The files of a chart (``(path, name in the chart)``: its own, its subcharts', ``file://``
    dependencies') that Helm renders as templates: those in a ``templates`` folder, packaged
    subcharts (``.tgz``), and ``values*.yaml`` (``tpl`` renders a value), or every file when a
    template runs ``tpl`` on something read through ``.Files``. A README or a changelog that shows
    template code renders nothing."""
    def renders(name: str) -> bool:
        parts = name.replace(os.sep, "/").split("/")
        return ("templates" in parts[:-1] or parts[-1].endswith(".tgz")
                or parts[-1].startswith("values") and parts[-1].endswith((".yaml", ".yml")))  # fmt: skip

    chosen = [(path, name) for path, name in files if renders(name)]
    for _, _, data, _ in _texts(chosen, max_file_size):
        if _TPL_OF_FILES.search(data):
            return list(files)
    return chosen


def _texts(paths: Iterable[tuple[str, str]], max_file_size: int) -> Iterator[tuple[str, str, bytes, bool]]:
    """``(path, name, bytes, archive)`` of each ``(path, name)`` readable (a ``.tgz`` decompressed)."""
    for path, name in paths:
        try:
            data = read_bytes(path, max_file_size)
        except (OSError, FileTooLarge, NotRegularFile):
            continue
        archive = data[:2] == b"\x1f\x8b"
        if archive:
            unzip = zlib.decompressobj(16 + zlib.MAX_WBITS)
            try:
                data = unzip.decompress(data, _MAX_ARCHIVE)
            except zlib.error:
                data = b""
        if not archive and not _IN_TEMPLATES.search(name.replace(os.sep, "/")):
            data = data.replace(b'\\"', b'"')  # a YAML double-quoted value: the template is its text
        yield path, name, data, archive


def _walk(data: bytes, name: str, scan: _Scan, helpers: dict[str, _Taint]) -> Iterator[tuple[_Action, str, str]]:
    """Each action of one file's ``data`` that decides something, with ``(function, construct)``;
    records the helpers whose output is tainted in ``helpers``."""
    stack, variables = [name], {}  # type: list[str], dict[str, _Taint]
    for action in _actions(data):
        tokens = action.tokens
        head = tokens[0] if tokens else ""
        if head in ("define", "block") and len(tokens) > 1:
            stack.append(_literal(tokens[1]) or "")
            variables = {}
            continue
        if head in ("if", "with", "range"):
            stack.append("")
        elif head == "end" and len(stack) > 1:
            popped = stack.pop()
            if popped:
                variables = {}
        decided = _decision(action, scan, variables)
        _helper_outputs(action, stack, scan, variables, helpers)
        if decided is not None:
            yield action, decided[0], decided[1]


#: The fields of ``.Release`` that are the same for every Application (``helm template``, as Argo
#: CD runs it, installs revision 1 with the service ``Helm``): only its ``Name`` and ``Namespace``
#: (or ``.Release`` itself, passed on) differ from one Application to another.
_RELEASE_CONSTANTS = frozenset({"Service", "IsInstall", "IsUpgrade", "Revision"})


def _reads_field(token: str, fields: frozenset[str]) -> bool:
    """Whether ``token`` (a field chain: ``.Release.Name``, ``$.Release``, ``$ctx.Release``) reads
    one of ``fields`` other than by a constant field of it (:data:`_RELEASE_CONSTANTS`)."""
    if token[:1] not in ".$":
        return False
    parts = token.split(".")
    for at, part in enumerate(parts):
        if part in fields:
            return at + 1 >= len(parts) or parts[at + 1] not in _RELEASE_CONSTANTS
    return False


def release_decisions(paths: list[tuple[str, str]], max_file_size: int,
                      inline: tuple[str, str] | None = None) -> list[Decision]:  # fmt: skip
    """The first place in each of a chart's files (``paths`` and ``inline`` as for
    :func:`nonhermetic_decisions`) where the release's name or namespace (``.Release.Name``,
    ``.Release.Namespace``, ``.Release`` itself, or the root's ``"Release"`` read by a string) decides what the chart
    renders: the condition of ``if`` (a comparison, ``contains``, ``hasPrefix``, ``regexMatch``...:
    a name is never empty, so ``{{ if .Release.Name }}`` decides nothing), the value of ``with`` or
    ``range``, a deciding function (``ternary``, ``eq``...), directly, through a variable, a ``set``
    or a helper whose output holds it. Printing them (names, labels, ``namespace:``, a
    ``serviceAccountName``) decides nothing: the Application's name and destination namespace
    change the text, not which objects and checked fields exist. Each :class:`Decision` names the
    field read as its ``function`` (``.Release.Name``)."""
    texts = list(_texts(paths, max_file_size))
    if inline is not None and "{{" in inline[1]:
        texts.append((inline[0], inline[0], inline[1].encode("utf-8", "surrogateescape"), True))
    if not any(b"Release" in data or SPELLING_ESCAPE.search(data) for _, _, data, _ in texts):
        return []  # most charts print it only; some never read it (an escape may spell it: go_unquote)
    return _decisions(texts, frozenset(), frozenset({"Release"}), frozenset())


def nonhermetic_decisions(paths: list[tuple[str, str]], functions: frozenset[str],
                          max_file_size: int, inline: tuple[str, str] | None = None) -> list[Decision]:  # fmt: skip
    """The first place in each of a chart's files where a call of ``functions`` (Helm's
    non-hermetic template functions, :data:`hooklint.sources.render.helm.NONHERMETIC_FUNCTIONS`)
    decides what the chart renders (module docstring), as :class:`Decision` (one per file, in
    ``paths`` order). ``paths`` are ``(path to read and report, template name)`` pairs: the chart's
    files, its subcharts' and ``file://`` dependencies' (``name``, as Helm names the template, is
    what an ``include`` of a whole file names: ``shop/templates/cm.yaml``) and the value files
    (a value becomes a template through ``tpl``). A packaged subchart is scanned decompressed and
    reported at 1:1; a file that cannot be read is skipped (Helm read it: the rendering is done).
    Helpers are resolved to a fixed point (a helper including a tainted one is tainted).
    ``inline`` is ``(path, text)`` of values not in a file (an Application's ``helm.values`` and
    parameters), read as a value file and reported at 1:1 of that path."""
    texts = list(_texts(paths, max_file_size))
    if inline is not None and "{{" in inline[1]:
        texts.append((inline[0], inline[0], inline[1].encode("utf-8", "surrogateescape"), True))
    named = re.compile(rb"(?<![\w.$])(?:" + b"|".join(sorted(n.encode() for n in functions - _NOT_DECIDING)) + rb")(?!\w)")
    if not any(named.search(data) for _, _, data, _ in texts):  # nothing to follow: most charts
        return []
    return _decisions(texts, functions, frozenset(), CHECKED_KEYS)


def _decisions(texts: list[tuple[str, str, bytes, bool]], functions: frozenset[str], sources: frozenset[str],
               keys: frozenset[str]) -> list[Decision]:  # fmt: skip
    """The first deciding action of each of ``texts`` (:func:`_texts`), the taint coming from calls
    of ``functions`` and reads of the fields (or strings) ``sources``; a tainted value printed after
    one of ``keys`` decides too."""
    def new_scan(helpers: dict[str, _Taint], fields: dict[str, _Taint]) -> _Scan:
        scan = _Scan(functions, helpers, fields, keys)
        scan.fields = sources
        return scan

    helpers: dict[str, _Taint] = {}
    fields: dict[str, _Taint] = {}
    for _ in range(8):  # helpers of helpers: at most that deep, then what is known is used
        found: dict[str, _Taint] = {}
        known = dict(fields)
        scan = new_scan(dict(helpers), fields)
        for _, name, data, _ in texts:
            for _ in _walk(data, name, scan, found):
                pass
        found.pop("", None)
        grown = {k: v for k, v in found.items() if helpers.get(k, ("", 0))[1] < v[1]}
        if not grown and fields == known:
            break
        helpers.update(grown)
    scan = new_scan(helpers, fields)
    decisions = []
    for path, name, data, archive in texts:
        first: Decision | None = None
        literals: list[str] = []
        for action, function, construct in _walk(data, name, scan, {}):
            if sources:  # the strings the release is compared with, in every deciding action of the file
                literals += [t for t in map(_literal, action.tokens) if t is not None and t not in literals]
            if first is not None:
                continue
            line, column = 1, 1
            if not archive:
                line = data.count(b"\n", 0, action.offset) + 1
                column = len(data[data.rfind(b"\n", 0, action.offset) + 1:action.offset].decode("utf-8", "replace")) + 1
            first = Decision(os.path.normpath(path), line, column, function, construct, _digest(data))
            if not sources:
                break
        if first is not None:
            decisions.append(dataclasses.replace(first, literals=tuple(literals)))
    return decisions


def _digest(data: bytes) -> str:
    """``sha256:`` and the first 16 hex digits of the SHA-256 of ``data``."""
    return "sha256:" + hashlib.sha256(data).hexdigest()[:16]


def cause(function: str) -> str:
    """Why ``function`` (as :class:`Decision` names it) is not a function of the repository."""
    base = function.split(" (through", 1)[0]
    if base in _CLOCK:
        return "the time Helm renders at"
    if base == "getHostByName":
        return "a DNS lookup, made from the network Helm renders on"
    return "a random value drawn at each rendering"


# --- .git read through .Files ----------------------------------------------------------------

#: ``.Files`` (``.Files``, ``$.Files``, ``$root.Files``) and what is read of it: a method and its
#: first argument (a string literal, a variable, or other text).
_FILES = re.compile(r'(?<![\w])Files(?![\w])(?:\.(\w+))?')
_FILE_METHODS = ("Get", "GetBytes", "Lines", "Glob")


def _glob_regex(pattern: str) -> re.Pattern[str] | None:
    """gobwas/glob with separator ``/`` (Helm's ``Files.Glob``) as a regular expression: ``**``
    any text, ``*`` and ``?`` within a path part, ``[...]`` a class, ``{a,b}`` alternatives; None
    when it cannot be read so (the caller fails closed)."""
    out, i, depth = [], 0, 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = pattern.find("]", i + 1)
            if end < 0:
                return None
            body = pattern[i + 1:end]
            body = "^" + body[1:] if body.startswith("!") else body
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end + 1
            continue
        elif c == "{":
            out.append("(?:")
            depth += 1
        elif c == "}" and depth:
            out.append(")")
            depth -= 1
        elif c == "," and depth:
            out.append("|")
        elif c == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        else:
            out.append(re.escape(c))
        i += 1
    try:
        return re.compile("".join(out) + r"\Z", re.DOTALL) if not depth else None
    except re.error:
        return None


def git_paths(chart: str, limit: int = 20000) -> list[str]:
    """The paths Helm's loader would give the files of ``.git`` in folder ``chart``
    (``.git/HEAD``, ``.git/refs/heads/main``; ``.git`` itself for a ``gitdir:`` file), names only,
    at most ``limit`` (then the list so far: a pattern checked against it fails closed by its
    prefix too)."""
    top = os.path.join(chart, GIT_DATA)
    if not os.path.isdir(top) or os.path.islink(top):
        return [GIT_DATA] if os.path.lexists(top) else []
    found = []
    for folder, dirs, names in walk_tree(top):
        dirs.sort()
        for name in sorted(names):
            found.append(os.path.relpath(os.path.join(folder, name), chart).replace(os.sep, "/"))
            if len(found) >= limit:
                return found
    return found


def helm_ignores_git(chart: str, max_file_size: int) -> bool:
    """Whether the chart's ``.helmignore`` leaves ``.git`` out (a line ``.git``, ``.git/``,
    ``.*``, ``.git*``... matching the name as helm ``pkg/ignore`` matches a pattern without
    ``/``), with no ``!`` line that could bring it back (then False: fail closed)."""
    try:
        text = read_bytes(os.path.join(chart, ".helmignore"), max_file_size).decode("utf-8", "replace")
    except (OSError, FileTooLarge, NotRegularFile):
        return False
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]
    if any(line.startswith("!") for line in lines):
        return False
    return any(fnmatch.fnmatchcase(GIT_DATA, line.rstrip("/").lstrip("/")) for line in lines if "/" not in line.rstrip("/").lstrip("/"))


@dataclass(frozen=True, slots=True)
class GitRead:
    """A template's read of ``.Files`` that can reach the chart's ``.git``: ``path``, 1-based
    ``line`` and ``column`` (of ``Files``), and ``what`` (``.Files.Get ".git/HEAD"``, as
    written)."""

    path: str
    line: int
    column: int
    what: str
    #: As :attr:`Decision.digest`.
    digest: str = ""


def git_reads(chart: str, root: str, files: list[tuple[str, str]], max_file_size: int,
              withheld: Withheld | None = None) -> list[GitRead]:  # fmt: skip
    """Where the chart in folder ``chart`` (``root`` the repository's top) reads its own ``.git``
    through ``.Files`` (first place per file of ``files``, ``(path, name in the chart)`` pairs;
    those of subcharts, under ``charts/``, read their own files and are passed over),
    when the chart folder holds a ``.git`` that hooklint leaves out of its copy (``withheld``,
    :data:`~hooklint.sources.repository.withheld.GIT_REASON`) and its ``.helmignore`` does not:
    ``.Files.Get``/``GetBytes``/``Lines`` of a literal path in ``.git``, ``.Files.Glob`` of a
    pattern matching one of its files (gobwas/glob, as Helm), ``.Files`` used any other way
    (``.AsConfig``, ``.AsSecrets`` of all files, ``range``, ``index``) and a path or pattern not
    written as a literal (fail closed; but a variable bound by ``range`` over a ``.Files.Glob``
    that matches nothing in ``.git``). Empty otherwise."""
    withheld = withheld or Withheld()
    top = os.path.join(chart, GIT_DATA)
    if not os.path.lexists(top) or withheld.why(top, root) != GIT_REASON or helm_ignores_git(chart, max_file_size):
        return []
    inside = git_paths(chart)
    reads = []
    for path, name, data, archive in _texts(files, max_file_size):
        if archive or name.replace(os.sep, "/").startswith("charts/"):
            continue  # a subchart's .Files are its own files
        safe_variables: set[str] = set()
        for action in _actions(data):
            text = " ".join(action.tokens)
            for found in _FILES.finditer(text):
                method = found.group(1)
                rest = _TOKEN.findall(text[found.end():])
                argument = rest[0] if rest else ""
                if method in _FILE_METHODS and _reaches_git(method, argument, inside, safe_variables) is False:
                    if method == "Glob":
                        before = action.tokens[:action.tokens.index(":=")] if ":=" in action.tokens else []
                        safe_variables.update(v for v in (_variable(t) for t in before) if v)
                    continue
                written = f".Files.{method} {argument}".rstrip() if method else ".Files"
                offset = action.offset
                line = data.count(b"\n", 0, offset) + 1
                column = len(data[data.rfind(b"\n", 0, offset) + 1:offset].decode("utf-8", "replace")) + 1
                reads.append(GitRead(os.path.normpath(path), line, column, written, _digest(data)))
                break
            else:
                continue
            break
    return reads


def _reaches_git(method: str, argument: str, inside: list[str], safe_variables: set[str]) -> bool:
    """Whether ``.Files.<method> <argument>`` can read a file of ``.git`` (paths ``inside``)."""
    value = _literal(argument)
    if value is None:
        return _variable(argument) not in safe_variables
    if method != "Glob":
        return value == GIT_DATA or value.startswith(GIT_DATA + "/")
    regex = _glob_regex(value)
    if regex is None:
        return True
    return any(regex.match(p) for p in inside + [GIT_DATA + "/HEAD", GIT_DATA + "/config"])
