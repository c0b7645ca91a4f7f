"""The catalog's fast header read agrees with a YAML parser for every rule file."""

import yaml

from hooklint.catalog import _first_document, load_catalog, read_header, rule_files


def test_header_lines_equal_the_parsed_metadata():
    files = rule_files()
    assert files, "no rule files found"
    for file in files:
        text = open(file, encoding="utf-8").read()
        meta = yaml.safe_load(_first_document(text))
        assert read_header(text) == {k: meta[k] for k in ("id", "slug", "severity")}, file


def test_rule_metadata_is_read_on_demand():
    rule = load_catalog().rules["HL102"]
    assert (rule.id, rule.slug, rule.severity, rule.name) == (
        "HL102", "hook-image-mutable-tag", "warning", "HookImageMutableTag")  # fmt: skip
    assert rule.summary.startswith("A hook's image has no tag")
    assert rule.security_severity == 5.5
    assert load_catalog().resolve("hook-image-mutable-tag") is rule
    assert load_catalog().resolve("hl102") is rule


def test_readme_rule_table_is_generated_from_the_rule_files():
    from pathlib import Path

    from hooklint.catalog import markdown_table

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert markdown_table(load_catalog()) in readme


def test_id_slug_and_severity_open_every_rule_file():
    from hooklint.catalog import HEADER_BYTES

    for file in rule_files():
        head = open(file, encoding="utf-8").read(HEADER_BYTES)
        assert set(read_header(head)) == {"id", "slug", "severity"}, file
