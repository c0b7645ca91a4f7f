"""``hooklint fix``: automatic repairs that keep every other byte of the file.

How a file is changed, and why not with ruamel.yaml
---------------------------------------------------
Issue 11 names ruamel.yaml's round-trip mode. Measured on the 800 YAML files of
``../shared/corpus/public`` with ruamel.yaml 0.19.1 (``typ="rt"``, ``preserve_quotes=True``,
``width=4096``), a load and dump with *no change at all* gave back the same text for 168 files;
628 came back different (block sequences re-indented to one style, long plain scalars re-wrapped
or joined, and the like) and 4 did not load; it took 32.6 s, against about 2 s for a whole
``hooklint lint`` of the corpus. Guessing each file's indentation settings would still leave
differences outside the changed node, which is exactly what the issue forbids. So this module does
not dump YAML at all. It *splices small text
edits* into the original text at the character offsets that :mod:`hooklint.yamlio` (hooklint's own
parser, the one every finding comes from) records for every key and value:

- replace one scalar's text (``Presync`` -> ``PreSync``, ``Always`` -> ``Never``);
- quote one scalar as written (``sync-wave: -1`` -> ``sync-wave: "-1"``);
- insert one ``key: value`` line into a block mapping, with the indentation of its sibling keys
  and the line ending of the line it is placed next to.

Nothing else of the file is touched: comments, key order, quoting, indentation, flow or block
style, document markers, line endings and the final newline outside the edited node are the
original bytes. Every edit is then *verified*, not trusted: the edited text is parsed again (no
syntax error, duplicate key or unsafe tag may appear) and linted again (the finding it targeted
must be gone, and no loading finding may be added); an edit that fails either check is dropped
and the finding is left for a person. ruamel.yaml is therefore not needed, as a writer or as a
verifier (hooklint's own parser is the stricter verifier: it types scalars as Kubernetes does), and
it stays out of the dependencies.

Which findings are fixed
------------------------
A rule file's ``autofix`` key says whether its rule has a fix and whether it is ``safe`` (it cannot
change what the cluster runs beyond the finding) or ``unsafe`` (a person must judge it; needs
``--unsafe-fixes``). A finding is fixed only where its position is in the user's file that holds the
field as written: the edit's anchor in that file (the value, key or mapping the finding points at)
must be exactly the finding's span. That holds for directory sources and for kustomize objects
whose resource file holds the field; a value that a kustomize patch or transformer set (the finding
then points into the kustomization) and every Helm template (a finding under a chart) are left for
a person, and the report says so.

The first round fixes the findings of a normal ``lint`` run (so configuration, suppressions and
the whole application are taken into account). A fix can reveal findings that were hidden (a quoted
``sync-wave`` makes Argo CD read the object's hook annotation at all); later rounds lint the edited
file on its own and fix only findings that were not there before the edits, up to
:data:`MAX_ROUNDS`. Running fix twice changes nothing the second time.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
import stat
from dataclasses import dataclass, field
from typing import Any, Callable

from hooklint import argocd
from hooklint.catalog import Catalog
from hooklint.checks.security import BOUND_ELSEWHERE
from hooklint.config import Config
from hooklint.files import UnsafeWrite, write_output
from hooklint.findings import Finding, Span
from hooklint.loader import LoadedFile, parse_text, user_path, within
from hooklint.sources.render.redact import redact_line, secret_lines
from hooklint.text import go_trim_space
from hooklint.yamlio import (
    DUPLICATE_KEY,
    STR,
    SYNTAX_ERROR,
    TIMESTAMP,
    TOO_COMPLEX,
    UNSAFE_TAG,
    Map,
    Positions,
    Seq,
    go_resolve_plain,
)

SAFE, UNSAFE = "safe", "unsafe"
#: Rounds of fix-then-relint per file (a fix may reveal a finding that another fix repairs).
MAX_ROUNDS = 4
#: Rules whose findings an edit must never add: the file would no longer read as it did.
LOADING_RULES = frozenset({"HL001", "HL002", "HL003", "HL005", "HL006"})
_BAD_ISSUES = frozenset({SYNTAX_ERROR, TOO_COMPLEX, DUPLICATE_KEY, UNSAFE_TAG})
_NULL_WORDS = frozenset({"~", "null", "Null", "NULL"})


@dataclass(slots=True)
class FixOptions:
    """What ``fix`` may do: ``unsafe`` allows the fixes marked unsafe; ``backoff_limit`` and
    ``active_deadline_seconds`` are the values HL201 and HL202 insert."""

    unsafe: bool = False
    backoff_limit: int = 1
    active_deadline_seconds: int = 900


@dataclass(slots=True)
class FileFix:
    """The outcome for one file: its original and fixed text, the findings fixed, and the findings
    of fixable rules left for a person with the reason."""

    path: str
    original: str
    fixed: str
    fixed_findings: list[Finding] = field(default_factory=list)
    left: list[tuple[Finding, str]] = field(default_factory=list)
    bom: bool = False
    #: What the file was when it was read (:func:`read_stamped`): the write happens only while it
    #: still is (:func:`write_atomically`). None for stdin.
    stamp: Stamp | None = None
    #: The secret matcher of the file's application(s), the one its lint report used
    #: (:func:`hooklint.pipeline.secrets_of`): what ``--diff`` and the reasons never print. None:
    #: the file's own Secrets (:func:`hooklint.pipeline.text_secrets`).
    hide: Callable[[str], str] | None = None

    @property
    def changed(self) -> bool:
        return self.fixed != self.original


class LeftForAPerson(Exception):
    """Raised by an edit builder: the finding cannot be fixed safely here (the message says why)."""


# --------------------------------------------------------------------------------------------
# Locating the node a finding is about


def _entry(m: Map, key: str) -> tuple[int, int, int, int] | None:
    """(key start, key end, value start, value end) of ``key`` written in ``m`` itself (not
    brought in by a ``<<`` merge), as character offsets of the file's text."""
    return m._offsets(key) if getattr(m, "_entries", None) is not None else None


def _document_at(loaded: LoadedFile, span: Span) -> tuple[int, Map | None]:
    """(index in the file, object) of the object of ``loaded`` whose lines hold ``span``: a root
    mapping, or the item of its ``items`` sequence that holds it (a ``kind: List``, whose items
    Argo CD applies as objects: :func:`hooklint.model.manifests_from_document`); (-1, None) when
    there is none."""
    for doc in loaded.documents:
        value = doc.value
        if isinstance(value, Map) and getattr(value, "_pos", None) is not None:
            if value.span.line <= span.line <= value.span.end_line:
                items = value.get("items")
                for item in items if isinstance(items, Seq) else ():
                    if isinstance(item, Map) and item.span.line <= span.line <= item.span.end_line:
                        return doc.index, item
                return doc.index, value
    return -1, None


def _walk(root: Map, parts: list[str]) -> Any:
    """Follow dotted-path ``parts`` (``["spec", "template", "spec"]``; ``containers[0]`` style
    items allowed) from ``root``; None when something on the way is missing."""
    node: Any = root
    for part in parts:
        name, _, rest = part.partition("[")
        if name:
            if not isinstance(node, Map) or name not in node or _entry(node, name) is None:
                return None
            node = node[name]
        while rest:
            index, _, rest = rest.partition("]")
            rest = rest.lstrip("[")
            if not isinstance(node, list) or not index.isdigit() or int(index) >= len(node):
                return None
            node = node[int(index)]
    return node


def _parent_and_key(root: Map, field_path: str) -> tuple[Map, str]:
    """The mapping holding the last key of ``field_path`` and that key (annotation keys, which
    hold dots, are kept whole)."""
    prefix = "metadata.annotations."
    if field_path.startswith(prefix):
        parent, key = _walk(root, ["metadata", "annotations"]), field_path[len(prefix):]
    else:
        parts = field_path.split(".")
        parent, key = _walk(root, parts[:-1]), parts[-1]
    if not isinstance(parent, Map):
        where = "metadata.annotations" if field_path.startswith(prefix) else ".".join(field_path.split(".")[:-1])
        raise LeftForAPerson(f"{where or 'the object'} is not a mapping written in this file")
    return parent, key


def _parent_key_span(root: Map, field_path: str) -> Span:
    """Where the key holding the mapping of ``field_path``'s last key is written (the span HL104,
    HL205 report a missing pod-spec field at)."""
    parts = field_path.split(".")[:-1]
    holder = _walk(root, parts[:-1])
    if not isinstance(holder, Map) or parts[-1] not in holder:
        raise LeftForAPerson("the pod spec is not written in this file")
    return holder.key_span(parts[-1])


# --------------------------------------------------------------------------------------------
# Text edits


def _line_end(text: str, index: int) -> tuple[int, str]:
    """(offset of the line break ending the line holding ``index``, that break); at the end of a
    text without a final newline, (len(text), the file's usual break)."""
    newline = text.find("\n", index)
    if newline < 0:
        return len(text), "\r\n" if "\r\n" in text else "\n"
    if newline > 0 and text[newline - 1] == "\r":
        return newline - 1, "\r\n"
    return newline, "\n"


def _line_start(text: str, index: int) -> int:
    return max(text.rfind("\n", 0, index), text.rfind("\r", 0, index)) + 1


def insert_key(text: str, m: Map, key: str, value: str, after: str | None = None) -> tuple[int, int, str]:
    """An edit adding ``key: value`` as a new line of block mapping ``m``, at the indentation of its
    keys: after the line of ``after`` (or, failing that, of any key whose value ends on its own line
    with only a comment after it) or before the first key when that key starts its line.

    Returns ``(start, end, new)``; raises :class:`LeftForAPerson` for a flow mapping (``{...}``) or
    a layout where no such line exists. ``key`` and ``value`` must be plain YAML scalars."""
    entries = getattr(m, "_entries", None) or []
    if not entries or text[m._start] == "{":
        raise LeftForAPerson("the mapping is written in flow style or is empty")
    first = m._places[m._at + 2]  # where the first key written starts (after the mapping's start and end)
    indent = first - _line_start(text, first)
    keys = list(entries)
    order = ([after] if after in keys else []) + keys
    for name in order:
        offsets = m._offsets(name)
        assert offsets is not None  # name is one of the mapping's keys
        k_start, _, v_start, v_end = offsets
        end, eol = _line_end(text, k_start)
        rest = text[v_end:end].strip()
        if v_end <= end and (not rest or rest.startswith("#")) and _line_start(text, v_start) == _line_start(text, k_start):
            if name == after or name == keys[-1] or _line_start(text, k_start) + indent == k_start:
                return end, end, f"{eol}{' ' * indent}{key}: {value}"
    if not text[_line_start(text, first):first].strip(" "):
        end, eol = _line_end(text, first)
        start = _line_start(text, first)
        return start, start, f"{' ' * indent}{key}: {value}{eol}"
    raise LeftForAPerson("no line of the mapping to add a key next to")


def scalar_text(text: str, start: int, end: int, value: Any) -> tuple[str, str] | None:
    """(quote character or ``""`` for plain, content) of a one-line scalar written at
    ``text[start:end]`` whose content is exactly ``value`` (no escapes, no folding); None otherwise."""
    raw = text[start:end]
    if not raw or "\n" in raw or "\r" in raw:
        return None
    if raw[0] in "\"'" and len(raw) >= 2 and raw[-1] == raw[0] and raw[1:-1] == value and "\\" not in raw and raw[0] not in value:
        return raw[0], value
    if raw == value and raw[0] not in "!&*|>\"'":
        return "", value
    return None


def replace_csv_items(text: str, start: int, end: int, value: str, new_items: dict[str, str] | None = None,
                      append: str | None = None) -> str | None:  # fmt: skip
    """The new text of a one-line comma-separated annotation scalar at ``text[start:end]``: items
    renamed by ``new_items`` (surrounding spaces kept), ``append`` added as a last item, the
    original quoting kept. None when the scalar is not written as its plain content."""
    written = scalar_text(text, start, end, value)
    if written is None:
        return None
    quote, content = written
    parts = content.split(",")
    for i, part in enumerate(parts):
        core = go_trim_space(part)  # the item as GetAnnotationCSVs reads it
        if new_items and core in new_items:
            parts[i] = part.replace(core, new_items[core], 1)
    content = ",".join(parts)
    if append:
        separator = ", " if ", " in content else ","  # the separator the author used
        content = f"{content.rstrip().rstrip(',').rstrip()}{separator}{append}" if content.strip(" ,") else append
    return f"{quote}{content}{quote}"


def unique_near_match(item: str, choices: tuple[str, ...]) -> str | None:
    """The one valid value ``item`` is a typo of, or None when there is none or more than one.

    Tried in order, each accepted only when it gives exactly one candidate: equal ignoring case;
    equal ignoring case, ``-`` and ``_``; difflib similarity of at least 0.8 ignoring case. Stricter
    than the suggestion in HL010/HL011's messages on purpose: a fix must not guess."""
    lowered = item.lower()
    squashed = lowered.replace("-", "").replace("_", "")
    for same in (
        [c for c in choices if c.lower() == lowered],
        [c for c in choices if c.lower().replace("-", "").replace("_", "") == squashed],
    ):
        if len(same) == 1:
            return same[0]
        if len(same) > 1:
            return None
    by_lower = {c.lower(): c for c in choices}
    close = difflib.get_close_matches(lowered, list(by_lower), n=2, cutoff=0.8)
    return by_lower[close[0]] if len(close) == 1 else None


# --------------------------------------------------------------------------------------------
# One edit per rule


def _expect_span(actual: Span, f: Finding) -> None:
    if actual != f.span:
        raise LeftForAPerson("the field is not written in this file where the finding points (a rendered object)")


def _fix_annotation_value(text: str, root: Map, f: Finding, options: FixOptions, config: Config) -> tuple[int, int, str]:
    """HL004: quote a scalar annotation value as written (``-1`` -> ``"-1"``, ``no`` -> ``"no"``);
    an empty or null value becomes ``""``. Lists and mappings are left: what string was meant is a
    guess."""
    parent, key = _parent_and_key(root, f.field_path)
    where = _entry(parent, key)
    if where is None:
        raise LeftForAPerson("the annotation is not written in this mapping")
    _, _, start, end = where
    _expect_span(parent.value_span(key), f)
    value, raw = parent[key], text[start:end]
    if isinstance(value, (Map, list)):
        raise LeftForAPerson("the value is a list or mapping; which string was meant is for a person")
    if value is None and raw == "":
        return start, start, '""' if text[start - 1:start] in (" ", "\t") else ' ""'
    if value is None and raw in _NULL_WORDS:
        return start, end, '""'
    if raw and "\n" not in raw and raw[0] not in "!&*\"'" and go_resolve_plain(raw)[0] not in (STR, TIMESTAMP):
        return start, end, f'"{raw}"'
    raise LeftForAPerson("the value is not a plain one-line scalar")


def _fix_csv_typo(text: str, root: Map, f: Finding, options: FixOptions, config: Config) -> tuple[int, int, str]:
    """HL010/HL011: each unknown item of a hook-type or delete-policy annotation that has exactly
    one near match (:func:`unique_near_match`) is replaced by it. Helm hook names in the Argo CD
    annotation and delete hook types the configured Argo CD lacks are not typos: left."""
    parent, key = _parent_and_key(root, f.field_path)
    where = _entry(parent, key)
    if where is None or not isinstance(parent[key], str):
        raise LeftForAPerson("the annotation is not a string written in this mapping")
    _expect_span(parent.value_span(key), f)
    if key == argocd.HOOK:
        version = config.argocd_version
        choices = argocd.known_hook_types(version)
        not_typos = set(argocd.DELETE_HOOK_TYPES) | set(argocd.HELM_SYNC_HOOKS) | set(argocd.HELM_DELETE_HOOKS)
    elif key == argocd.HOOK_DELETE_POLICY:
        choices, not_typos = argocd.DELETE_POLICIES, set()
    else:
        choices, not_typos = tuple(argocd.HELM_DELETE_POLICIES), set()
    renames: dict[str, str] = {}
    for item in argocd.annotation_csv(parent[key]):
        if item in choices or item in not_typos:
            continue
        match = unique_near_match(item, choices)
        if match is None:
            raise LeftForAPerson(f"'{item}' has no single near match")
        renames[item] = match
    if not renames:
        raise LeftForAPerson("no item is a typo with a single near match")
    new = replace_csv_items(text, where[2], where[3], parent[key], renames)
    if new is None:
        raise LeftForAPerson("the annotation is not written as a one-line scalar without escapes")
    return where[2], where[3], new


def _fix_before_hook_creation(text: str, root: Map, f: Finding, options: FixOptions, config: Config) -> tuple[int, int, str]:
    """HL203: add BeforeHookCreation to the delete policy Argo CD reads (``DeletePolicies()``
    unions the Argo CD and the Helm annotation): appended to argocd.argoproj.io/hook-delete-policy
    when it is written, else ``before-hook-creation`` to helm.sh/hook-delete-policy when only that
    is written, else a new argocd.argoproj.io/hook-delete-policy line after the hook annotation.
    Deleting a finished hook before creating it again changes nothing else the cluster runs."""
    metadata = root.get("metadata")
    if not isinstance(metadata, Map) or "name" not in metadata:
        raise LeftForAPerson("metadata.name is not written in this file")
    annotations = metadata.get("annotations")
    if not isinstance(annotations, Map):
        raise LeftForAPerson("metadata.annotations is not a mapping written in this file")
    # the finding points at the delete-policy annotation it names, else at metadata.name
    written = next((k for k in (argocd.HOOK_DELETE_POLICY, argocd.HELM_HOOK_DELETE_POLICY) if k in annotations), None)
    _expect_span(annotations.value_span(written) if written else metadata.value_span("name"), f)
    for key, policy in ((argocd.HOOK_DELETE_POLICY, "BeforeHookCreation"),
                        (argocd.HELM_HOOK_DELETE_POLICY, "before-hook-creation")):  # fmt: skip
        where = _entry(annotations, key)
        if where is None:
            continue
        if not isinstance(annotations[key], str):
            raise LeftForAPerson(f"{key} is not a string")
        new = replace_csv_items(text, where[2], where[3], annotations[key], append=policy)
        if new is None:
            raise LeftForAPerson(f"{key} is not written as a one-line scalar without escapes")
        return where[2], where[3], new
    after = argocd.HOOK if argocd.HOOK in annotations else argocd.HELM_HOOK
    return insert_key(text, annotations, argocd.HOOK_DELETE_POLICY, "BeforeHookCreation", after)


def _set_field(text: str, root: Map, f: Finding, value: str, *, replace_any: bool) -> tuple[int, int, str]:
    """Set the last key of ``f.field_path`` to plain ``value``: a new line when the key is missing
    (the finding then points at the key holding the mapping), else the written scalar replaced
    (when ``replace_any``)."""
    parent, key = _parent_and_key(root, f.field_path)
    where = _entry(parent, key)
    if where is None:
        if key in parent:
            raise LeftForAPerson(f"{key} comes from a merge key")
        _expect_span(_parent_key_span(root, f.field_path), f)
        return insert_key(text, parent, key, value)
    _expect_span(parent.value_span(key), f)
    raw = text[where[2]:where[3]]
    if not replace_any or isinstance(parent[key], (Map, list)) or not raw or "\n" in raw or raw[0] in "!&*|>":
        raise LeftForAPerson(f"{key} is written with a value that is not a one-line scalar")
    return where[2], where[3], value


def _fix_restart_policy(text, root, f, options, config):
    """HL205: ``restartPolicy: Never`` on a Job's pod template that has none or one the API server
    rejects for a Job (so the object cannot have been running with it)."""
    return _set_field(text, root, f, "Never", replace_any=True)


def _fix_automount(text, root, f, options, config):
    """HL104 (unsafe: a hook that calls the Kubernetes API stops working):
    ``automountServiceAccountToken: false`` in the pod spec; a ServiceAccount a binding of another
    application names (:data:`~hooklint.checks.security.BOUND_ELSEWHERE` in the message), a token from a projected
    ``serviceAccountToken`` volume is left for a person (the pod may need the volume's other
    sources), and so is an Argo Workflows Workflow without ``spec.executor.serviceAccountName``
    (the workflow controller then refuses the Workflow)."""
    if not f.field_path.endswith(".automountServiceAccountToken"):
        raise LeftForAPerson("the token comes from a projected serviceAccountToken volume")
    if BOUND_ELSEWHERE in f.message:  # the hook may use its token: a person decides (new-user trial 28)
        raise LeftForAPerson("a binding of another application of the repository names its ServiceAccount: the hook "
                             "may call the Kubernetes API with its token")  # fmt: skip
    spec = root.get("spec")
    executor = spec.get("executor") if isinstance(spec, Map) else None
    if (root.get("kind") == "Workflow" and str(root.get("apiVersion", "")).startswith("argoproj.io/")
            and not (isinstance(executor, Map) and executor.get("serviceAccountName"))):  # fmt: skip
        # the workflow controller refuses automountServiceAccountToken: false without
        # executor.serviceAccountName (argo-workflows workflowpod.go setupServiceAccount)
        raise LeftForAPerson("a Workflow that turns the token off also needs spec.executor.serviceAccountName")
    return _set_field(text, root, f, "false", replace_any=True)


def _fix_spec_number(key: str):
    def build(text, root, f, options, config):
        """HL201/HL202 (unsafe: a retry or deadline budget is a judgement): ``key: N`` in the
        object's ``spec``, N from :class:`FixOptions`."""
        spec = root.get("spec")
        if not isinstance(spec, Map) or _entry(root, "spec") is None:
            raise LeftForAPerson("the object has no spec mapping written in this file")
        _expect_span(root.key_span("spec"), f)
        if key in spec:
            raise LeftForAPerson(f"spec.{key} is already there")
        number = options.backoff_limit if key == "backoffLimit" else options.active_deadline_seconds
        return insert_key(text, spec, key, str(int(number)))

    return build


#: rule id -> edit builder ``(text, object, finding, options, config) -> (start, end, new)``.
FIXERS = {
    "HL004": _fix_annotation_value,
    "HL010": _fix_csv_typo,
    "HL011": _fix_csv_typo,
    "HL203": _fix_before_hook_creation,
    "HL205": _fix_restart_policy,
    "HL201": _fix_spec_number("backoffLimit"),
    "HL202": _fix_spec_number("activeDeadlineSeconds"),
    "HL104": _fix_automount,
}


# --------------------------------------------------------------------------------------------
# Fixing one text


def fixable(rule_id: str, catalog: Catalog, options: FixOptions) -> bool:
    rule = catalog.resolve(rule_id)
    kind = rule.autofix if rule is not None else None
    return rule_id in FIXERS and (kind == SAFE or (kind == UNSAFE and options.unsafe))


def _key(f: Finding) -> tuple:
    """A finding's identity across edits (lines move when a line is inserted)."""
    return (f.rule_id, f.doc_index, f.field_path, f.message)


def _readable(text: str, path: str) -> bool:
    loaded = parse_text(path, text)
    return loaded.error is None and not any(issue.kind in _BAD_ISSUES for issue, _ in loaded.issues)


def _apply(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


def fix_text(path: str, text: str, findings: list[Finding], config: Config, catalog: Catalog,
             options: FixOptions) -> FileFix:  # fmt: skip
    """Fix ``findings`` (of ``path``, whose text is ``text``) and the findings the edits reveal.

    Returns a :class:`FileFix`. Each edit is applied alone, then kept only if the text still parses
    without a syntax error, duplicate key or unsafe tag, the file linted on its own no longer has the
    finding, and no loading finding (HL001-HL006) was added. Never raises for bad input."""
    from hooklint.pipeline import lint_text

    out = FileFix(path, text, text)
    if not _readable(text, path):
        out.left = [(f, "the file has a syntax error, a duplicate key or an unsafe tag") for f in findings]
        return out
    if text.count("\r") != text.count("\r\n"):
        out.left = [(f, "the file has lines ending in a bare carriage return") for f in findings]
        return out
    before = lint_text(text, config, catalog, path=path)
    known = {_key(f) for f in before}
    loading = sum(1 for f in before if f.rule_id in LOADING_RULES)
    todo = [f for f in findings if fixable(f.rule_id, catalog, options)]
    left: dict[tuple, tuple[Finding, str]] = {}
    current = before
    for _ in range(MAX_ROUNDS):
        done_any = False
        # where each finding is, as offsets of the current text, moved along as edits are applied
        places = {id(f): _offsets(out.fixed, f.span) for f in todo}
        for f in todo:
            if f.rule_id not in FIXERS:
                continue
            place = places.pop(id(f))
            if f.path != path:
                left[_key(f)] = (f, f"{f.path} is a Helm template rendered into this stream: never edited")
                continue
            orig, f = f, _moved(f, out.fixed, place)
            loaded = parse_text(path, out.fixed)
            index, root = _document_at(loaded, f.span)
            had = sum(1 for g in current if _same_target(f, g, index))
            if out.changed and had == 0 and any(_same_target(f, g, index) for g in before):
                out.fixed_findings.append(orig)  # an earlier edit of this round fixed it too
                left.pop(_key(f), None)
                continue
            try:
                if root is None:
                    raise LeftForAPerson("the object is not in this file as written")
                if f.obj is not None and f.obj.kind and root.get("kind") != f.obj.kind:
                    raise LeftForAPerson(
                        f"the finding points into {root.get('kind') or 'a kustomization'}, not at the "
                        f"{f.obj.kind}'s field as written: kustomize set the value (a patch, or a field "
                        "such as commonAnnotations)"
                    )
                start, end, new = FIXERS[f.rule_id](out.fixed, root, f, options, config)
            except LeftForAPerson as why:
                left[_key(f)] = (orig, str(why))
                continue
            candidate = _apply(out.fixed, start, end, new)
            if candidate == out.fixed or not _readable(candidate, path):
                left[_key(f)] = (orig, "the edit would not leave a readable file")
                continue
            after = lint_text(candidate, config, catalog, path=path)
            if (had and sum(1 for g in after if _same_target(f, g, index)) >= had) or \
                    sum(1 for g in after if g.rule_id in LOADING_RULES) > loading:  # fmt: skip
                left[_key(f)] = (orig, "the edit did not remove the finding")
                continue
            out.fixed, current = candidate, after
            delta = len(new) - (end - start)
            for key, (a, b) in places.items():
                # a span ending where a line is inserted stays before it; one ending at the end of a
                # replaced scalar holds that scalar and moves with it
                moves_end = b > end or (b == end and start < end)
                places[key] = (a + delta if a >= end else a, b + delta if moves_end else b)
            out.fixed_findings.append(orig)
            left.pop(_key(f), None)
            done_any = True
        if not done_any:
            break
        # findings the edits revealed (not there in the file as it was): fixed in the next round
        current = lint_text(out.fixed, config, catalog, path=path)
        todo = [g for g in current if _key(g) not in known and fixable(g.rule_id, catalog, options)
                and _key(g) not in left]  # fmt: skip
        if not todo:
            break
    out.left = list(left.values())
    return out


_BREAK = re.compile(r"\r\n|\r|\n")


def _offsets(text: str, span: Span) -> tuple[int, int]:
    r"""Character offsets of 1-based ``span`` in ``text`` (lines end at ``\n``, ``\r\n`` or
    ``\r``, as :class:`~hooklint.yamlio.Positions` counts them)."""
    starts = [0] + [m.end() for m in _BREAK.finditer(text)]

    def at(line: int, column: int) -> int:
        return starts[min(line, len(starts)) - 1] + column - 1

    return at(span.line, span.column), at(span.end_line, span.end_column)


def _moved(f: Finding, text: str, place: tuple[int, int]) -> Finding:
    """``f`` with its span where its offsets now are in ``text``."""
    span = Positions(text).span(*place)
    return f if span == f.span else dataclasses.replace(f, span=span)


def _same_target(f: Finding, g: Finding, index: int) -> bool:
    """Whether ``g`` (from the edited file linted on its own) is ``f`` again: same rule, same
    field, same document ``index`` of the file."""
    return g.rule_id == f.rule_id and g.doc_index == index and g.field_path == f.field_path


# --------------------------------------------------------------------------------------------
# Files


def unified_diff(fix: FileFix, root: str) -> str:
    """A unified diff of one file, with ``a/`` and ``b/`` prefixes on its path relative to ``root``
    (``patch -p1`` from ``root`` applies it, as the README says: the diff is both for reading and
    for applying). Line endings are kept in the hunks; a missing final newline is marked as diff(1)
    does.

    No secret value is printed. A line *holds one* when it is a line of a Secret's ``data`` or
    ``stringData`` or a value under a key that names a secret
    (:func:`hooklint.sources.render.redact.secret_lines`), or when the secret matcher of the file's
    application (``fix.hide``: :func:`hooklint.pipeline.secrets_of`, the one its lint report uses)
    changes it: a Secret's value also written in an annotation or a ConfigMap, as written, escaped
    or base64, a credential in a URL. Such a line is never used as context: a hunk's context stops
    before it (up to 3 lines each side, as ``diff -u``), hunks are split at it, and the context of a
    hunk is kept as long on both sides unless a side reaches the start or end of the file, so that
    ``patch`` (whose fuzz allows 2 lines of difference) and ``git apply`` still place it. A changed
    line holding one (a fix on a flow-style Secret written on one line, a flow mapping that also
    holds the value) is printed with its value part as ``[redacted]`` (a Secret's own line, keeping
    the key and the line's structure) or as the matcher writes it (``[the value of `KEY`]``): that
    hunk is for reading only and does not apply. Every printed line, headers too, passes through
    the matcher last (paths are public to it, so a header never changes)."""
    rel = os.path.relpath(fix.path, root).replace(os.sep, "/")
    a, b = fix.original.splitlines(keepends=True), fix.fixed.splitlines(keepends=True)
    hide = fix.hide
    if hide is None:
        from hooklint.pipeline import text_secrets  # noqa: PLC0415 - the pipeline imports this module

        hide = text_secrets(fix.original, path=fix.path)
    lines_a, lines_b = secret_lines(fix.original), secret_lines(fix.fixed)
    hidden_a = _Hidden(a, lines_a, hide)

    def shown(lines: list[str], k: int, own: set[int]) -> str:
        return hide(redact_line(lines[k]) if k in own else lines[k])

    out: list[str] = []
    for (i1, i2, j1, j2), ops in _hunks(a, b, hidden_a):
        if not out:
            out += [hide(f"--- a/{rel}\n"), hide(f"+++ b/{rel}\n")]
        out.append(f"@@ -{_range(i1, i2)} +{_range(j1, j2)} @@\n")
        for tag, k1, k2, l1, l2 in ops:
            if tag == "equal":
                out += [" " + hide(line) for line in a[k1:k2]]  # never a hidden line (_hunks)
                continue
            out += ["-" + shown(a, k, lines_a) for k in range(k1, k2)]
            out += ["+" + shown(b, k, lines_b) for k in range(l1, l2)]
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in out)


class _Hidden:
    """The 0-based numbers of the lines of ``lines`` that hold a secret value (see
    :func:`unified_diff`): those of ``own`` (:func:`~hooklint.sources.render.redact.secret_lines`)
    and those ``hide`` changes, asked line by line (only the lines a hunk may show are matched)."""

    def __init__(self, lines: list[str], own: set[int], hide: Callable[[str], str]) -> None:
        self.lines, self.own, self.hide = lines, own, hide
        self.seen: dict[int, bool] = {}

    def __contains__(self, k: object) -> bool:
        if not isinstance(k, int) or not 0 <= k < len(self.lines):
            return False
        if k in self.own:
            return True
        if k not in self.seen:
            self.seen[k] = self.hide(self.lines[k]) != self.lines[k]
        return self.seen[k]


#: Context lines each side of a change, as ``diff -u``.
_CONTEXT = 3


def _range(start: int, stop: int) -> str:
    """A hunk header's range, as difflib and diff(1) write it (1-based; ``n,0`` before line n+1)."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start if not length else start + 1},{length}"


def _hunks(a: list[str], b: list[str], hidden: _Hidden | set[int]):
    """The hunks of the diff of ``a`` and ``b``: ((i1, i2, j1, j2), opcodes), with no line of
    ``hidden`` (0-based lines of ``a``) as context (see :func:`unified_diff`)."""
    opcodes = difflib.SequenceMatcher(None, a, b).get_opcodes()
    # clusters of changes joined by short equal runs free of hidden lines
    clusters: list[list[tuple[str, int, int, int, int]]] = []
    current: list[tuple[str, int, int, int, int]] = []
    for index, op in enumerate(opcodes):
        tag, i1, i2, _, _ = op
        if tag != "equal":
            current.append(op)
            continue
        inner = 0 < index < len(opcodes) - 1
        if current and inner and i2 - i1 <= 2 * _CONTEXT and not any(k in hidden for k in range(i1, i2)):
            current.append(op)
        elif current:
            clusters.append(current)
            current = []
    if current:
        clusters.append(current)
    hunks = []
    for cluster in clusters:
        first, last = cluster[0], cluster[-1]
        lead, lead_edge = 0, first[1] <= _CONTEXT  # context lines free before the first change
        while lead < _CONTEXT and first[1] - lead - 1 >= 0 and first[1] - lead - 1 not in hidden:
            lead += 1
        lead_edge = lead_edge and lead == first[1]
        trail = 0
        while trail < _CONTEXT and last[2] + trail < len(a) and last[2] + trail not in hidden:
            trail += 1
        trail_edge = last[2] + trail == len(a)
        if not trail_edge:
            lead = min(lead, trail)
        if not lead_edge:
            trail = min(trail, lead)
        offset = first[3] - first[1]  # b's line = a's line + offset, before the first change
        after = last[4] - last[2]
        ops = list(cluster)
        if lead:
            ops.insert(0, ("equal", first[1] - lead, first[1], first[1] - lead + offset, first[1] + offset))
        if trail:
            ops.append(("equal", last[2], last[2] + trail, last[2] + after, last[2] + trail + after))
        hunks.append(((ops[0][1], ops[-1][2], ops[0][3], ops[-1][4]), ops))
    return hunks


@dataclass(frozen=True, slots=True)
class Stamp:
    """What a file was when ``fix`` read it: its bytes and its ``os.stat`` identity (device,
    inode, size, modification time in nanoseconds)."""

    data: bytes
    dev: int
    ino: int
    size: int
    mtime_ns: int

    @staticmethod
    def of(info: os.stat_result, data: bytes) -> "Stamp":
        return Stamp(data, info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)

    def same_file(self, info: os.stat_result) -> bool:
        return (self.dev, self.ino, self.size, self.mtime_ns) == (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


class FileChanged(OSError):
    """The file is no longer what ``fix`` read: someone wrote, replaced or removed it meanwhile."""


def read_only(path: str) -> bool:
    """Whether ``path`` is read-only: no write permission bit set for anyone (``chmod a-w``), or
    this process may not write it (``os.access``). The bits are looked at, not only ``os.access``:
    root may write any file, but a file its owner made read-only is still one ``fix`` leaves alone.
    (``fix`` writes by renaming a new file over the old one, which the file's own mode would not
    stop: the mode is the owner's word, and it is kept.)"""
    info = os.stat(path)
    return not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(path, os.W_OK)


def write_atomically(path: str, text: str, bom: bool = False, unchanged_since: Stamp | None = None) -> None:
    """Write ``text`` (UTF-8, byte for byte: no newline translation) to ``path`` through a temporary
    file in the same folder and a rename, keeping the file's permission bits (and its owner and group
    where this process may set them): :func:`hooklint.files.write_output`, so a reader sees the old
    file or the new one, a symbolic link is never written through (``UnsafeWrite``), nor a folder
    that leads out of the repository.

    With ``unchanged_since`` (what :func:`read_stamped` saw), the file is compared with it just
    before the rename, by ``os.stat`` identity (device, inode, size, mtime) and by content: when
    it changed, the temporary file is removed, ``path`` is left as it is and :class:`FileChanged`
    is raised. (A write in the microseconds between that check and the rename is not seen: no
    lock is shared with other writers.) Raises ``OSError``."""
    info = os.stat(path)
    if unchanged_since is not None and not unchanged_since.same_file(info):
        raise FileChanged(f"{path}: changed since it was read")

    def unchanged() -> None:
        if unchanged_since is None:
            return
        try:
            with open(path, "rb") as current:
                now = current.read()
                same = unchanged_since.same_file(os.fstat(current.fileno())) and now == unchanged_since.data
        except OSError:
            same = False
        if not same:
            raise FileChanged(f"{path}: changed since it was read")

    write_output(path, (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8", "surrogateescape"), durable=True,
                 before_replace=unchanged)  # fmt: skip


def inside(path: str, roots: list[str]) -> bool:
    """Whether ``path``, symbolic links resolved, is inside one of ``roots`` (resolved too)."""
    real = os.path.realpath(path)
    return any(within(real, os.path.realpath(root)) for root in roots)


def read_stamped(path: str) -> tuple[str, bool, Stamp]:
    """The text of ``path`` exactly as stored (no newline translation), whether it starts with a
    UTF-8 byte order mark, and the :class:`Stamp` of what was read (taken from the open file, so
    the stamp and the bytes are of the same file). Raises ``OSError`` or ``UnicodeDecodeError``."""
    with open(path, "rb") as handle:
        data = handle.read()
        info = os.fstat(handle.fileno())
    bom = data.startswith(b"\xef\xbb\xbf")
    return data[3 if bom else 0:].decode("utf-8"), bom, Stamp.of(info, data)


@dataclass(slots=True)
class FixRun:
    """What one ``fix`` run did: the per-file outcomes (changed or not), findings of fixable rules
    left for a person as ``(finding, reason)``, and the input errors of the lint it started from."""

    files: list[FileFix] = field(default_factory=list)
    left: list[tuple[Finding, str]] = field(default_factory=list)
    errors: list = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    #: Files with fixes that were not written, as ``(path, why, findings not fixed)``: read-only
    #: files, files changed since they were read. ``fix`` says each in one line and exits 1.
    not_written: list[tuple[str, str, int]] = field(default_factory=list)
    #: The findings of the lint the run started from (before any fix).
    findings: list[Finding] = field(default_factory=list)

    def unfixed(self) -> list[Finding]:
        """The starting findings no edit of this run fixed (what ``--diff`` would leave)."""
        done = {(f.path, f.span, f.rule_id, f.message) for one in self.files for f in one.fixed_findings}
        return [f for f in self.findings if (f.path, f.span, f.rule_id, f.message) not in done]

    @property
    def fixed_count(self) -> int:
        return sum(len(f.fixed_findings) for f in self.files)

    def summary(self, would: bool = False) -> str:
        """The last line ``fix`` prints on stderr (no newline): ``hooklint: fixed N findings in M
        files`` (M: the files changed), ``would fix`` for a run that writes nothing (``--diff``)."""
        changed = sum(1 for f in self.files if f.changed)
        verb = "would fix" if would else "fixed"
        return (f"hooklint: {verb} {self.fixed_count} finding{'s' if self.fixed_count != 1 else ''} in {changed} "
                f"file{'s' if changed != 1 else ''}")  # fmt: skip


def _named_roots(paths: list[str]) -> list[str]:
    """The trees a run may write in: each named folder, or the folder of each named file."""
    return [p if os.path.isdir(p) else os.path.dirname(os.path.abspath(p)) for p in paths]


def fix_paths(paths: list[str], config: Config, catalog: Catalog, options: FixOptions, write: bool) -> FixRun:
    """Fix the files of ``paths`` (files and folders, not stdin): lint them as ``hooklint lint``
    does, fix the findings of fixable rules (:func:`fix_text`) in each file that holds them, and,
    when ``write``, write the changed files atomically (:func:`write_atomically`).

    Never written, and reported in ``not_written``: read-only files (:func:`read_only`) and files
    that changed after they were read (compared just before the write). Never edited, and
    reported in ``left``: Helm templates (a finding's file under a folder with a
    ``Chart.yaml`` rendered as a Helm source), files outside the named trees once symbolic links
    are resolved, files that are not regular UTF-8 files. Raises :class:`~hooklint.config.ConfigError`
    as ``lint_paths`` does, and ``OSError`` when a write fails."""
    from hooklint.pipeline import lint_paths
    from hooklint.sources.repository.tree import HELM
    from hooklint.sources.appmap.discovery import group_applications

    run = FixRun()
    result = lint_paths(paths, config, catalog, jobs=1, plans=True)  # plans: each application's secret matcher
    hide_of = _matchers(result.plans)
    run.errors, run.findings = result.errors, result.findings
    charts = [os.path.dirname(os.path.abspath(a.manifest_file))
              for a in group_applications(paths, []) if a.source_type == HELM and a.manifest_file]  # fmt: skip
    roots = _named_roots(paths)
    by_path: dict[str, list[Finding]] = {}
    for f in result.findings:
        if fixable(f.rule_id, catalog, options):
            by_path.setdefault(f.path, []).append(f)
    linted_real = {os.path.abspath(p) for p in by_path if os.path.realpath(p) == os.path.abspath(p)}
    fixed_real: set[str] = set()
    for path in sorted(by_path):
        findings = by_path[path]
        reason = None
        absolute = os.path.abspath(path)
        real = os.path.realpath(path)
        if real != absolute and inside(path, roots):  # a link in the tree: fix the file it names, once
            target = user_path(real)
            if real in linted_real or real in fixed_real:
                continue  # the same findings, fixed through the file itself
            fixed_real.add(real)
            path = target
        if any(absolute.startswith(chart + os.sep) for chart in charts):
            reason = "a Helm template: hooklint never edits templates; fix the chart by hand"
        elif not os.path.isfile(path):
            reason = "not a file hooklint can edit (rendered output)"
        elif not inside(path, roots):
            reason = "a symbolic link out of the named tree: not written through"
        if reason is None:
            try:
                text, bom, stamp = read_stamped(path)
            except (OSError, UnicodeDecodeError) as exc:
                reason = f"cannot be read as UTF-8 text ({exc})"
        if reason is not None:
            run.left.extend((f, reason) for f in findings)
            continue
        outcome = fix_text(path, text, findings, config, catalog, options)
        outcome.bom, outcome.stamp, outcome.hide = bom, stamp, hide_of(findings[0].path, text)
        outcome.left = [(f, outcome.hide(why)) for f, why in outcome.left]  # a reason may quote a value
        run.files.append(outcome)
        run.left.extend(outcome.left)
    if write:
        for outcome in run.files:
            if not outcome.changed:
                continue
            why = None
            try:
                if read_only(outcome.path):
                    why = "a read-only file"
                else:  # the path itself, never its resolved form: write_output checks that one
                    write_atomically(outcome.path, outcome.fixed, outcome.bom, unchanged_since=outcome.stamp)
            except FileChanged:
                why = "changed since hooklint read it"  # someone else wrote it meanwhile: theirs wins
            except FileNotFoundError:
                why = "removed since hooklint read it"
            except UnsafeWrite as exc:  # a link made since it was read, a folder leading out of the repository
                why = str(exc)
            if why is not None:
                run.not_written.append((outcome.path, why, len(outcome.fixed_findings)))
                outcome.fixed, outcome.fixed_findings = outcome.original, []
                continue
            run.written.append(outcome.path)
    run.left.sort(key=lambda item: item[0].sort_key())
    return run


def _matchers(plans: list) -> Callable[[str, str], Callable[[str], str]]:
    """A function of (a finding's path, that file's text) giving the secret matcher of the file's
    applications: the :attr:`~hooklint.pipeline.PlannedApplication.hide` of each application whose
    findings name the file, applied one after the other (a file two Applications deploy), the one
    its lint report used. A file no plan names (fail closed): every application's matcher of the
    run and the file's own (:func:`hooklint.pipeline.text_secrets`)."""
    from hooklint.pipeline import text_secrets

    by_path: dict[str, list[Callable[[str], str]]] = {}
    every: list[Callable[[str], str]] = []
    for planned in plans:
        if planned.hide is None:
            continue
        every.append(planned.hide)
        for path in {f.path for f in planned.findings}:
            by_path.setdefault(path, []).append(planned.hide)

    def matcher(path: str, text: str) -> Callable[[str], str]:
        hides = by_path.get(path) or [*every, text_secrets(text, path=path)]

        def hide(line: str) -> str:
            for one in hides:
                line = one(line)
            return line

        return hide

    return matcher


@dataclass(slots=True)
class StdinFix:
    """What :func:`fix_stdin` did: ``fix``, the stream's outcome (path ``-``), and ``remaining``,
    the sorted findings of a lint of the fixed text (what decides the exit code)."""

    fix: FileFix
    remaining: list[Finding]


def fix_stdin(text: str, config: Config, catalog: Catalog, options: FixOptions) -> StdinFix:
    """Fix a stream read from stdin (path ``-``), then lint the fixed text as ``-``; the caller
    writes ``fix.fixed`` (or its diff) to stdout and reports ``remaining``. Touches no file.
    ``remaining`` and the reasons of ``fix.left`` quote no secret value of the stream: they pass
    through its secret matcher (:func:`hooklint.pipeline.text_secrets`, ``fix.hide``), as the report of
    ``hooklint lint -`` does."""
    from hooklint.pipeline import lint_text, redacted_findings, text_secrets

    findings = lint_text(text, config, catalog, path="-")
    outcome = fix_text("-", text, findings, config, catalog, options)
    hide = outcome.hide = text_secrets(text, config, path="-")  # as `hooklint lint -` redacts its report
    outcome.left = [(f, hide(why)) for f, why in outcome.left]
    return StdinFix(outcome, redacted_findings(lint_text(outcome.fixed, config, catalog, path="-"), hide))
