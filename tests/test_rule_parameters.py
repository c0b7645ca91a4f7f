"""A rule's parameters and defaults live in its rule file (issue 20, item 5): ``Config``'s
defaults, :func:`~hooklint.config.parse_config` of an empty file, the JSON schema of the
configuration (which must carry each default) and the starter file ``hooklint init`` writes all
say the same default, of the same type, for every parameter of every ``rules/HLxxx-*.yaml``."""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from typing import Any

import pytest
import yaml

from hooklint import argocd
from hooklint.catalog import load_catalog
from hooklint.cli import STARTER
from hooklint.config import SCHEMA_FILE, Config, parse_config

_SCHEMA_TYPES = {"boolean": "boolean", "integer": "integer", "string": "string", "list": "array"}


def _same(name: str, rule_default: Any, value: Any) -> bool:
    """Whether ``value`` (a Config field, or a value written in the schema or the starter file)
    is the rule file's ``rule_default``: ``argocd-version`` is compared as the release it reads as."""
    if name == "argocd-version":
        as_release = value if isinstance(value, tuple) else argocd.read_version(str(value))[0]
        return isinstance(rule_default, str) and argocd.read_version(rule_default)[0] == as_release
    return type(value) is type(rule_default) and value == rule_default


def drift(parameters: dict[str, dict], config: Config, parsed: Config, schema: dict, starter: dict) -> list[str]:
    """Every place that disagrees with the rule files' ``parameters`` (name -> rule file entry,
    with ``rule``): one line each, empty when all agree."""
    out = []
    properties = schema["properties"]
    for name, p in sorted(parameters.items()):
        field = name.replace("-", "_")
        for where, cfg in (("Config", config), ("parse_config", parsed)):
            if not hasattr(cfg, field):
                out.append(f"{p['rule']} {name}: no {where} field {field}")
            elif not _same(name, p["default"], getattr(cfg, field)):
                out.append(f"{p['rule']} {name}: {where} default {getattr(cfg, field)!r} != {p['default']!r}")
        prop = properties.get(name)
        if prop is None:
            out.append(f"{p['rule']} {name}: not in the configuration schema")
        else:
            if prop.get("type") != _SCHEMA_TYPES[p["type"]]:
                out.append(f"{p['rule']} {name}: schema type {prop.get('type')!r} != {p['type']}")
            if "default" not in prop:
                out.append(f"{p['rule']} {name}: the schema has no default")
            elif not _same(name, p["default"], prop["default"]):
                out.append(f"{p['rule']} {name}: schema default {prop['default']!r} != {p['default']!r}")
        if name not in starter:
            out.append(f"{p['rule']} {name}: not in the starter file")
        elif not _same(name, p["default"], starter[name]):
            out.append(f"{p['rule']} {name}: starter file says {starter[name]!r} != {p['default']!r}")
    return out


def _sources() -> tuple[dict[str, dict], Config, Config, dict, dict]:
    parameters: dict[str, dict] = {}
    for rule in load_catalog().rules.values():
        for p in rule.parameters:
            assert p["name"] not in parameters, f"{p['name']} is a parameter of two rules"
            parameters[p["name"]] = {**p, "rule": rule.id}
    with open(SCHEMA_FILE, encoding="utf-8") as handle:
        schema = json.load(handle)
    starter = yaml.safe_load(STARTER.format(schema="x"))
    return parameters, Config(), parse_config({}, "test"), schema, starter


def test_every_rule_parameter_has_one_default_everywhere():
    parameters, config, parsed, schema, starter = _sources()
    assert sorted(parameters) == ["allowed-registries", "argocd-version", "denied-images", "max-waves", "require-digest",
                                  "wait-for-first-consumer-classes"]  # fmt: skip
    assert drift(parameters, config, parsed, schema, starter) == []


def test_every_schema_property_that_names_a_rule_is_a_parameter_of_that_rule():
    """The reverse direction: a schema key described as ``HL304's ...`` or ``HL101: ...`` is in
    that rule's file, so a parameter cannot be added to the configuration alone."""
    parameters, *_, schema, _ = _sources()
    for name, prop in schema["properties"].items():
        match = re.match(r"(HL[0-9]{3})(:|'s) ", prop.get("description", ""))
        if match:  # (fail-on-unrendered, "HL009 (...) fails the run", is a setting of the run)
            assert name in parameters and parameters[name]["rule"] == match[1], name


_CHANGES = {
    "rule file": lambda s, n, v: s[0][n].__setitem__("default", v),
    "Config": lambda s, n, v: s.__setitem__(1, dataclasses.replace(s[1], **{n.replace("-", "_"): v})),
    "parse_config": lambda s, n, v: s.__setitem__(2, dataclasses.replace(s[2], **{n.replace("-", "_"): v})),
    "schema": lambda s, n, v: s[3]["properties"][n].__setitem__("default", v),
    "starter file": lambda s, n, v: s[4].__setitem__(n, v),
}


@pytest.mark.parametrize("where", sorted(_CHANGES))
@pytest.mark.parametrize("name,other", [("max-waves", 11), ("require-digest", True), ("allowed-registries", ["x.io"]),
                                        ("wait-for-first-consumer-classes", ["local"])])  # fmt: skip
def test_a_default_changed_in_one_place_only_is_drift(where, name, other):
    sources = list(copy.deepcopy(_sources()))
    _CHANGES[where](sources, name, other)
    found = drift(*sources)
    assert len(found) >= 1 and all(line.split(" ")[1] == f"{name}:" for line in found), found


def test_the_argocd_version_default_is_compared_as_the_release_it_reads_as():
    parameters, config, parsed, schema, starter = _sources()
    starter["argocd-version"] = "3.4"
    assert drift(parameters, config, parsed, schema, starter) == [
        "HL204 argocd-version: starter file says '3.4' != '3.5'"]
