"""The rule catalog: ``rules/<ID>-<slug>.yaml``, one file per rule.

Each file holds two YAML documents: the rule's metadata (id, slug, severity, summary, what/why/fix,
tags, parameters) and then its examples (``good``/``bad`` manifests; each bad one lists the exact
``line``/``column`` it must be reported at). A lint run reads only the ``id``, ``slug`` and
``severity`` lines of each file; the rest of the metadata is parsed when a report needs it (SARIF,
``rules``, ``explain``), and the examples by ``explain`` and the tests. ``rules/rule.schema.json`` describes
both documents and is enforced by the test suite, not at run time.

What the ``rules`` and ``explain`` commands print is built here (:func:`rules_listing`,
:func:`explain_text`, :func:`markdown_table`), as are the rule pages of ``docs/rules``.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass, field
from functools import lru_cache
from typing import AbstractSet, Any, Mapping

from hooklint.files import UnsafeWrite, check_folders, make_folders, walk_tree, write_output


def rules_dir() -> str:
    """The folder holding the rule files (``rules/`` in the source tree, ``hooklint/rules`` when
    installed)."""
    from hooklint import rules  # type: ignore[attr-defined]  # rules/ is installed as hooklint.rules

    return os.path.dirname(os.path.abspath(rules.__file__))


@lru_cache(maxsize=1)
def code_signature() -> str:
    """A hex SHA-256 over the stat signatures (:func:`hooklint.files.stat_signature`) of hooklint's
    own files (its modules, data and rule files, wherever :func:`rules_dir` finds the rules), taken
    once per process: a changed checkout of hooklint with the same version number is another
    hooklint, so neither the render cache nor the result cache serves what the other one made."""
    import hashlib  # noqa: PLC0415 - only a run with a cache asks

    from hooklint.files import stat_signature  # noqa: PLC0415

    digest = hashlib.sha256()
    for top in sorted({os.path.dirname(os.path.abspath(__file__)), rules_dir()}):
        for folder, dirs, names in walk_tree(top):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(names):
                if name.endswith((".py", ".yaml", ".json", ".txt")):
                    path = os.path.join(folder, name)
                    digest.update(repr((path, stat_signature(path))).encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


#: The first lines of a rule file hold id, slug and severity (the test suite checks it).
HEADER_BYTES = 512
_HEADER = re.compile(r"^(id|slug|severity):[ \t]*(\S+)[ \t]*$", re.MULTILINE)


class Rule:
    """One rule. ``id``, ``slug`` and ``severity`` come from the file's first lines, which is all a
    lint run needs; the rest of the metadata (summary, what/why/fix, tags, precision,
    ``security-severity``, parameters) is parsed from the YAML on first use."""

    __slots__ = ("id", "slug", "severity", "file", "_meta")

    def __init__(self, id: str, slug: str, severity: str, file: str, meta: dict[str, Any] | None = None):
        self.id, self.slug, self.severity, self.file = id, slug, severity, file
        self._meta = meta

    def __repr__(self) -> str:
        return f"Rule({self.id!r}, {self.slug!r}, {self.severity!r})"

    @property
    def meta(self) -> dict[str, Any]:
        """The whole metadata document of the rule file."""
        if self._meta is None:
            with open(self.file, encoding="utf-8") as handle:
                self._meta = _yaml_load(_first_document(handle.read()))
        return self._meta

    summary = property(lambda self: self.meta["summary"].strip())
    what = property(lambda self: self.meta["what"].strip())
    why = property(lambda self: self.meta["why"].strip())
    fix = property(lambda self: self.meta["fix"].strip())
    tags = property(lambda self: tuple(self.meta.get("tags", ())))
    precision = property(lambda self: self.meta.get("precision", "high"))
    security_severity = property(lambda self: self.meta.get("security-severity"))
    parameters = property(lambda self: tuple(self.meta.get("parameters", ())))
    #: ``"safe"``, ``"unsafe"`` or None: whether ``hooklint fix`` can repair the rule's findings,
    #: and whether that needs ``--unsafe-fixes`` (see :mod:`hooklint.fix`).
    autofix = property(lambda self: self.meta.get("autofix"))
    #: Where the rule lives in the source tree: ``checks`` (``path::function`` of each check, or of
    #: the engine step reporting it), ``fix`` (the fixer, with ``autofix``) and ``tests`` (test files;
    #: the first, ``tests/test_rules.py``, runs the rule file's examples). tests/test_rule_code.py
    #: holds each to the code.
    code = property(lambda self: self.meta.get("code") or {})

    @property
    def name(self) -> str:
        """PascalCase name for SARIF (``hook-image-mutable-tag`` -> ``HookImageMutableTag``)."""
        return "".join(part.capitalize() for part in self.slug.split("-"))


def read_header(text: str) -> dict[str, str]:
    """``id``, ``slug`` and ``severity`` from the top-level plain-scalar lines of a rule file's
    first document (the test suite checks they equal what a YAML parser reads)."""
    return {m.group(1): m.group(2) for m in _HEADER.finditer(_first_document(text))}


@dataclass(slots=True)
class Catalog:
    rules: dict[str, Rule] = field(default_factory=dict)

    def resolve(self, name: str) -> Rule | None:
        """A rule by id (``HL101``, any case) or slug."""
        upper = name.upper()
        if upper in self.rules:
            return self.rules[upper]
        for rule in self.rules.values():
            if rule.slug == name:
                return rule
        return None

    def sorted(self) -> list[Rule]:
        return [self.rules[k] for k in sorted(self.rules)]

    def suggest(self, name: str) -> str | None:
        """The rule id or slug nearest to ``name`` (a typo: ``hook-image-mutable-tags``, ``hl1O2``),
        or None when none is close enough: difflib ratio 0.6 for a slug, as Python's own suggestions,
        and 0.75 for an id, where one wrong character of five is a typo and two a different rule
        (``HL77`` is no ``HL307``)."""
        import difflib

        ids, slugs = [r.id for r in self.sorted()], [r.slug for r in self.sorted()]
        close = (difflib.get_close_matches(name.strip().upper(), ids, n=1, cutoff=0.75)
                 or difflib.get_close_matches(name.strip(), slugs, n=1, cutoff=0.6))  # fmt: skip
        return close[0] if close else None


def rule_files() -> list[str]:
    folder = rules_dir()
    return sorted(
        os.path.join(folder, name)
        for name in os.listdir(folder)
        if name.startswith("HL") and name.endswith(".yaml")
    )


def _first_document(text: str) -> str:
    marker = text.find("\n---")
    return text if marker < 0 else text[:marker]


@lru_cache(maxsize=1)
def load_catalog() -> Catalog:
    """Every rule file's id, slug and severity (the rest is read on first use)."""
    catalog = Catalog()
    for file in rule_files():
        with open(file, encoding="utf-8") as handle:
            header = read_header(handle.read(HEADER_BYTES))  # id, slug, severity open the file
        rule = Rule(header["id"], header["slug"], header["severity"], file)
        catalog.rules[rule.id] = rule
    return catalog


def _yaml_load(text: str, every: bool = False) -> Any:
    """The first document of ``text`` (a rule file of the package), or with ``every`` the list of
    them, by PyYAML's safe loader (its C one when built with libyaml). PyYAML is imported here,
    not with the module: a run the result cache answers whole loads no rule file, and its start-up
    is most of what it costs."""
    import yaml  # noqa: PLC0415 - see above

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return list(yaml.load_all(text, Loader=loader)) if every else yaml.load(text, Loader=loader)


def load_examples(rule: Rule) -> dict[str, list[dict[str, Any]]]:
    """The second document of a rule file: ``{"good": [...], "bad": [...]}``."""
    with open(rule.file, encoding="utf-8") as handle:
        docs = _yaml_load(handle.read(), every=True)
    examples = docs[1] if len(docs) > 1 else {}
    return {"good": examples.get("good", []), "bad": examples.get("bad", [])}


def markdown_table(catalog: Catalog) -> str:
    """The README's rule table, generated from the rule files."""
    lines = ["| id | slug | severity | reports |", "|---|---|---|---|"]
    for rule in catalog.sorted():
        summary = rule.summary.replace("|", "\\|")
        lines.append(f"| {rule.id} | `{rule.slug}` | {rule.severity} | {summary} |")
    return "\n".join(lines) + "\n"


class UnknownRule(LookupError):
    """Raised by :func:`explain_text`: the name is no rule's id or slug, or is an id prefix of
    several rules. ``str()`` is the one-line message the command line prints after
    ``hooklint: error: ``."""


#: The most rules ``explain`` suggests for an unknown name (``hook``: most slugs hold the word).
_MAX_SUGGESTED = 6


def explain_text(catalog: Catalog, name: str) -> str:
    """What ``hooklint explain NAME`` prints (without the final newline): the rule's id, slug,
    severity and summary, what it does, why it matters, how to fix it, and its first bad and first
    good example, the bad one with the positions (and messages) it is reported at.

    ``name`` is an id (any case) or a slug; surrounding blanks are ignored. Raises
    :class:`UnknownRule` for an id prefix of rules (``HL1``: it lists them) and for a name that is
    no rule: it suggests every slug holding all the words of ``name`` (``fixed-name``: each rule
    whose slug has both words), else the nearest id or slug, when one is close enough."""
    rule = catalog.resolve(name.strip())
    prefix = name.strip().upper()
    if rule is None and re.fullmatch(r"HL\d{0,2}", prefix):
        matching = [f"{r.id} {r.slug}" for r in catalog.sorted() if r.id.startswith(prefix)]
        if matching:  # an id prefix, as --select takes: one rule at a time here
            raise UnknownRule(f"{name.strip()!r} is a prefix of {len(matching)} rules ({', '.join(matching)}): explain one of them")
    if rule is None:
        words = set(re.findall(r"[a-z0-9]+", name.lower()))
        holding = [r.slug for r in catalog.sorted() if words and words <= set(r.slug.split("-"))]
        close = holding or [c for c in (catalog.suggest(name),) if c]
        shown = [repr(c) for c in close[:_MAX_SUGGESTED]]
        if len(close) > _MAX_SUGGESTED:
            shown.append(f"one of {len(close) - _MAX_SUGGESTED} more")
        hint = f"; did you mean {', '.join(shown[:-1]) + ' or ' if len(shown) > 1 else ''}{shown[-1]}?" if close else ""
        raise UnknownRule(f"unknown rule {name!r}{hint} ('hooklint rules' lists them)")
    examples = load_examples(rule)
    out = [f"{rule.id} {rule.slug} ({rule.severity})", "", rule.summary, "",
           "What it does", rule.what, "", "Why it matters", rule.why, "", "How to fix", rule.fix]  # fmt: skip
    for kind, title in (("bad", "Example that is reported"), ("good", "Use instead")):
        for example in examples[kind][:1]:
            out += ["", f"{title} ({example['name']}):", example["manifest"].rstrip()]
            for expect in example.get("expect") or []:
                message = f": {expect['message']}" if expect.get("message") else ""
                out.append(f"-> reported at line {expect['line']}, column {expect['column']}{message}")
    return "\n".join(out)


def rules_listing(catalog: Catalog, enabled: AbstractSet[str], severity: Mapping[str, str], as_json: bool = False) -> str:
    """What ``hooklint rules`` prints, one row per rule in id order: its id, severity (``severity``
    maps a rule id to the configuration's override, as lint reports it; else the rule file's),
    slug, whether it is in ``enabled``, its fix (``safe``, ``unsafe`` or none) and summary.

    Text: one aligned line per rule (``on``/``off``, ``-`` for no fix). ``as_json``:
    ``{"rules": [{"id", "slug", "severity", "enabled", "fix", "summary"}, ...]}`` indented by 2,
    ``fix`` null for none. Either ends with a newline."""

    def shown(rule: Rule) -> str:
        return severity.get(rule.id, rule.severity)

    if as_json:
        import json

        rows = [{"id": r.id, "slug": r.slug, "severity": shown(r), "enabled": r.id in enabled,
                 "fix": r.autofix, "summary": r.summary} for r in catalog.sorted()]  # fmt: skip
        return json.dumps({"rules": rows}, indent=2, ensure_ascii=False) + "\n"
    lines = []
    for rule in catalog.sorted():
        state = "on " if rule.id in enabled else "off"
        lines.append(f"{rule.id}  {shown(rule):<7}  {rule.slug:<36}  {state}  {rule.autofix or '-':<6}  {rule.summary}\n")
    return "".join(lines)


#: Where the generated rule pages live in the repository.
DOCS_DIR = "docs/rules"


def page_name(rule: Rule) -> str:
    """The file name of a rule's documentation page: ``HL102-hook-image-mutable-tag.md``."""
    return f"{rule.id}-{rule.slug}.md"


def rule_page(rule: Rule) -> str:
    """A rule's documentation page (Markdown), generated from its rule file: what it does, why it
    matters, how to fix it, where its check, fix and tests live, its parameters, and every example, bad ones with the positions (and
    messages) they are reported at."""
    out = [f"# {rule.id} {rule.slug}", "", f"**Severity:** {rule.severity} · **Tags:** {', '.join(rule.tags)}"
           f" · **Precision:** {rule.precision}", "", rule.summary, "", "## What it does", "", rule.what, "",
           "## Why it matters", "", rule.why, "", "## How to fix", "", rule.fix]  # fmt: skip
    if rule.autofix == "safe":
        out += ["", "`hooklint fix` repairs it (a safe fix)."]
    elif rule.autofix == "unsafe":
        out += ["", "`hooklint fix --unsafe-fixes` repairs it (an unsafe fix: it changes behaviour a person must judge)."]
    if rule.code:
        out += ["", "## Where it lives", ""]
        for label, key in (("Check", "checks"), ("Fix", "fix"), ("Tests", "tests")):
            entries = rule.code.get(key) or []
            links = [f"[`{entry}`](../../{entry.partition('::')[0]})" for entry in ([entries] if isinstance(entries, str) else entries)]
            if links:
                out.append(f"- {label}: {', '.join(links)}")
    if rule.parameters:
        out += ["", "## Parameters", "", "| key | type | default | meaning |", "|---|---|---|---|"]
        for p in rule.parameters:
            out.append(f"| `{p['name']}` | {p['type']} | `{p['default']}` | {p['description'].strip()} |")
    examples = load_examples(rule)
    for kind, title in (("bad", "Examples that are reported"), ("good", "Examples that are not reported")):
        if not examples[kind]:
            continue
        out += ["", f"## {title}"]
        for example in examples[kind]:
            out += ["", f"### {example['name']}"]
            if example.get("description"):
                out += ["", str(example["description"]).strip()]
            if example.get("config"):
                out += ["", "With the configuration `" + ", ".join(f"{k}: {v}" for k, v in example["config"].items()) + "`:"]
            for name, text in (example.get("files") or {}).items():
                out += ["", f"`{name}`:", "", "```yaml", str(text).rstrip("\n"), "```"]
            if example.get("context"):
                out += ["", "Elsewhere in the application:", "", "```yaml", str(example["context"]).rstrip("\n"), "```"]
            path_label = f"`{example['path']}`:" if example.get("path") else None
            out += ([""] + [path_label] if path_label else []) + ["", "```yaml", str(example["manifest"]).rstrip("\n"), "```"]
            for expect in example.get("expect") or []:
                message = f": {expect['message']}" if expect.get("message") else ""
                out += ["", f"Reported at line {expect['line']}, column {expect['column']}{message}"]
            for other in example.get("reported-instead") or []:
                out += ["", f"{other['rule']} reports line {other['line']}, column {other['column']} instead: "
                            f"{other['why'].strip()}"]
    return "\n".join(out) + "\n"


def write_rule_pages(folder: str, catalog: Catalog) -> list[str]:
    """Write every rule's page into ``folder`` (created if needed) and remove pages (``HL*.md``)
    of rules that no longer exist; returns the paths written. Everything is checked before
    anything changes: ``folder`` and every existing folder above it up to the repository's top
    (:func:`hooklint.files.check_folders`: no symbolic link among them; ``folder`` itself not a
    link even when named outside the repository), and no current page a link or a folder; then
    the missing folders are made (:func:`hooklint.files.make_folders`), stale pages removed
    through the folder's descriptor (a link removed is the link, never what it points at) and
    each page written by :func:`hooklint.files.write_output`. Raises ``UnsafeWrite`` (nothing
    changed) and other ``OSError``."""
    check_folders(folder, own=True)
    wanted = {page_name(rule): rule for rule in catalog.sorted()}
    if os.path.isdir(folder):
        for name in wanted:
            try:
                info = os.lstat(os.path.join(folder, name))
            except FileNotFoundError:
                continue
            if stat.S_ISLNK(info.st_mode):
                raise UnsafeWrite(f"{name}: a symbolic link (to {os.readlink(os.path.join(folder, name))}): hooklint "
                                  "never writes through a link (remove it, or name another folder)")  # fmt: skip
            if stat.S_ISDIR(info.st_mode):
                raise IsADirectoryError(errno.EISDIR, "is a directory", name)
    real = make_folders(folder)
    directory = os.open(real, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
                        | getattr(os, "O_CLOEXEC", 0))  # fmt: skip
    try:
        for name in os.listdir(directory):
            if (name.startswith("HL") and name.endswith(".md") and name not in wanted
                    and not stat.S_ISDIR(os.stat(name, dir_fd=directory, follow_symlinks=False).st_mode)):
                os.unlink(name, dir_fd=directory)
    finally:
        os.close(directory)
    written = []
    for name, rule in wanted.items():
        path = os.path.join(folder, name)
        try:
            write_output(path, rule_page(rule).encode("utf-8"))  # never through a link
        except UnsafeWrite as exc:
            raise UnsafeWrite(f"{name}: {exc}") from None
        written.append(path)
    return written
