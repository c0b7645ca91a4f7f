"""The rule catalog: ``rules/<ID>-<slug>.yaml``, one file per rule.

Each file holds two YAML documents: the rule's metadata (id, slug, severity, summary, what/why/fix,
tags, parameters) and then its examples (``good``/``bad`` manifests; each bad one lists the exact
``line``/``column`` it must be reported at). A lint run reads only the first document of each
file; the examples are read by ``explain`` and by the tests. ``rules/rule.schema.json`` describes
both documents and is enforced by the test suite, not at run time.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import yaml

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def rules_dir() -> str:
    """The folder holding the rule files (``rules/`` in the source tree, ``hooklint/rules`` when
    installed)."""
    from hooklint import rules

    return os.path.dirname(os.path.abspath(rules.__file__))


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    slug: str
    severity: str
    summary: str
    what: str
    why: str
    fix: str
    tags: tuple[str, ...] = ()
    precision: str = "high"
    security_severity: float | None = None
    parameters: tuple[dict, ...] = ()
    file: str = ""

    @property
    def name(self) -> str:
        """PascalCase name for SARIF (``hook-image-mutable-tag`` -> ``HookImageMutableTag``)."""
        return "".join(part.capitalize() for part in self.slug.split("-"))


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


def _rule_from(meta: dict[str, Any], file: str) -> Rule:
    return Rule(
        id=meta["id"],
        slug=meta["slug"],
        severity=meta["severity"],
        summary=meta["summary"].strip(),
        what=meta["what"].strip(),
        why=meta["why"].strip(),
        fix=meta["fix"].strip(),
        tags=tuple(meta.get("tags", ())),
        precision=meta.get("precision", "high"),
        security_severity=meta.get("security-severity"),
        parameters=tuple(meta.get("parameters", ())),
        file=file,
    )


@lru_cache(maxsize=1)
def load_catalog() -> Catalog:
    """Read the metadata document of every rule file."""
    catalog = Catalog()
    for file in rule_files():
        with open(file, encoding="utf-8") as handle:
            meta = yaml.load(_first_document(handle.read()), Loader=_Loader)
        rule = _rule_from(meta, file)
        catalog.rules[rule.id] = rule
    return catalog


def load_examples(rule: Rule) -> dict[str, list[dict[str, Any]]]:
    """The second document of a rule file: ``{"good": [...], "bad": [...]}``."""
    with open(rule.file, encoding="utf-8") as handle:
        docs = list(yaml.load_all(handle, Loader=_Loader))
    examples = docs[1] if len(docs) > 1 else {}
    return {"good": examples.get("good", []), "bad": examples.get("bad", [])}
