"""Rule documentation (issue 10, part 4): ``hooklint rules`` (text and JSON, enabled under the
configuration), ``explain`` by id or slug with a suggestion for a typo, and ``docs/rules/`` generated
from the rule files (this test fails when a page is stale)."""

import json
from pathlib import Path

from typer.testing import CliRunner

from hooklint.catalog import DOCS_DIR, load_catalog, page_name, rule_page
from hooklint.cli import app
from hooklint.reporters.sarif import rule_help_uri

REPO = Path(__file__).resolve().parents[1]
runner = CliRunner()


def test_rule_pages_are_generated_and_current():
    folder = REPO / DOCS_DIR
    catalog = load_catalog()
    expected = {page_name(rule): rule_page(rule) for rule in catalog.sorted()}
    present = {p.name for p in folder.glob("HL*.md")}
    assert present == set(expected), "run: hooklint rules --docs docs/rules"
    stale = [name for name, text in expected.items() if (folder / name).read_text(encoding="utf-8") != text]
    assert stale == [], f"stale rule pages {stale}: run hooklint rules --docs docs/rules"


def test_sarif_help_uri_points_at_the_rule_page():
    rule = load_catalog().rules["HL203"]
    assert rule_help_uri(rule) == "https://github.com/hooklint/hooklint/blob/main/docs/rules/HL203-hook-fixed-name-collision.md"
    assert (REPO / DOCS_DIR / "HL203-hook-fixed-name-collision.md").is_file()


def test_page_shows_examples_with_their_positions():
    text = rule_page(load_catalog().rules["HL102"])
    assert text.startswith("# HL102 hook-image-mutable-tag\n\n**Severity:** warning")
    assert "\n## Examples that are reported\n\n### fires-on-latest-tag\n" in text
    assert "\nReported at line 12, column 18" in text


def test_page_says_which_rule_reports_a_good_example_instead():
    text = rule_page(load_catalog().rules["HL010"])
    assert ("\nHL015 reports line 6, column 19 instead: an unknown helm.sh/hook value is HL015's finding, not an "
            "unknown Argo CD hook type\n") in text  # fmt: skip


def test_rules_json_says_what_the_configuration_enables(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".hooklint.yaml").write_text("ignore: [HL1]\n")
    result = runner.invoke(app, ["rules", "--format", "json"])
    assert result.exit_code == 0
    rows = {r["id"]: r for r in json.loads(result.output)["rules"]}
    assert set(rows) == set(load_catalog().rules)
    assert rows["HL102"] == {"id": "HL102", "slug": "hook-image-mutable-tag", "severity": "warning", "enabled": False,
                             "fix": None, "summary": load_catalog().rules["HL102"].summary}  # fmt: skip
    assert rows["HL203"]["enabled"] is True
    text = runner.invoke(app, ["rules"]).output.splitlines()
    assert next(l for l in text if l.startswith("HL102")).startswith(f"HL102  warning  {'hook-image-mutable-tag':<36}  off  -       A hook's image")
    assert next(l for l in text if l.startswith("HL203")).startswith(f"HL203  error    {'hook-fixed-name-collision':<36}  on   safe    A hook")


def test_explain_by_slug_shows_where_the_bad_example_is_reported():
    result = runner.invoke(app, ["explain", "hook-image-mutable-tag"])
    assert result.exit_code == 0
    assert result.output.startswith("HL102 hook-image-mutable-tag (warning)\n")
    assert "\n-> reported at line 12, column 18" in result.output


def test_explain_suggests_the_nearest_id_or_slug():
    for typo, message in (
        ("hook-image-mutabel-tag", "hooklint: error: unknown rule 'hook-image-mutabel-tag'; did you mean 'hook-image-mutable-tag'? ('hooklint rules' lists them)\n"),
        ("hl1022", "hooklint: error: unknown rule 'hl1022'; did you mean 'HL102'? ('hooklint rules' lists them)\n"),
        ("zzz", "hooklint: error: unknown rule 'zzz' ('hooklint rules' lists them)\n"),
        # an id prefix (as --select takes) lists the rules it stands for
        ("HL00", "hooklint: error: 'HL00' is a prefix of 9 rules (HL001 yaml-syntax-error, HL002 duplicate-key, "
                 "HL003 not-a-kubernetes-object, HL004 annotation-value-not-string, HL005 unsafe-yaml-tag, "
                 "HL006 wrong-field-type, HL007 render-failed, HL008 renderer-unavailable, HL009 "
                 "source-not-rendered): explain one of them\n"),
    ):  # fmt: skip
        result = runner.invoke(app, ["explain", typo])
        assert (result.exit_code, result.output) == (2, message)


def test_rules_show_the_configurations_severity(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".hooklint.yaml").write_text("severity: {HL203: note}\n")
    text = runner.invoke(app, ["rules"]).output.splitlines()
    assert next(l for l in text if l.startswith("HL203")).startswith("HL203  note     hook-fixed-name-collision")
    rows = {r["id"]: r for r in json.loads(runner.invoke(app, ["rules", "--format", "json"]).output)["rules"]}
    assert (rows["HL203"]["severity"], rows["HL102"]["severity"]) == ("note", "warning")
