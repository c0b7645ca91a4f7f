"""Control characters from manifests never reach an output raw (hooklint.text): the escaping
itself, each format's own rules (GitHub workflow commands, Markdown cells, Mermaid labels), and a
property test over every reporter."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from hooklint.catalog import load_catalog
from hooklint.cli import app
from hooklint.config import Config
from hooklint.findings import Finding, ObjectRef, RunResult, Span
from hooklint.pipeline import lint_paths, plan_paths
from hooklint.reporters import github, gitlab, sarif
from hooklint.reporters import json as json_reporter
from hooklint.reporters import plan as plan_reporter
from hooklint.reporters import text as text_reporter
from hooklint.review import Side, compare
from hooklint.review import markdown, report
from hooklint.text import CONTROLS, escape_controls, json_safe

runner = CliRunner()


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".hooklint.yaml").write_text("allowed-registries: [ghcr.io/acme]\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def q(text: str) -> str:
    """``text`` as a YAML double-quoted scalar, every character outside printable ASCII escaped."""
    out = []
    for char in text:
        code = ord(char)
        if 0x20 <= code < 0x7F and char not in '"\\':
            out.append(char)
        else:
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


def job(name: str, namespace: str = "shop", wave: str = "0", image: str = "ghcr.io/acme/seed:latest") -> str:
    """A PreSync hook Job; every field written as a double-quoted scalar (any character can be)."""
    return (
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n"
        f"  name: {q(name)}\n  namespace: {q(namespace)}\n  annotations:\n"
        f"    argocd.argoproj.io/hook: PreSync\n    argocd.argoproj.io/sync-wave: {q(wave)}\n"
        "    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation\n"
        "spec:\n  backoffLimit: 0\n  activeDeadlineSeconds: 60\n  template:\n    spec:\n"
        "      restartPolicy: Never\n      automountServiceAccountToken: false\n"
        f"      containers:\n      - name: seed\n        image: {q(image)}\n"
    )


# --- the escaping -----------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("plain ascii, ünïcode", "plain ascii, ünïcode"),
    ("a\rb\nc\td", "a\\rb\\nc\\td"),
    ("\x1b[2Kforged", "\\x1b[2Kforged"),
    ("\x00\x07\x7f", "\\x00\\x07\\x7f"),
    ("nel\x85csi\x9b", "nel\\x85csi\\x9b"),
    ("\u202eevil\u202c \u2066x\u2069 \u200f\u061c", "\\u202eevil\\u202c \\u2066x\\u2069 \\u200f\\u061c"),
    ("line\u2028para\u2029", "line\\u2028para\\u2029"),
    ("already \\x1b escaped", "already \\x1b escaped"),
])  # fmt: skip
def test_escape_controls(text, expected):
    assert escape_controls(text) == expected
    assert not CONTROLS.search(escape_controls(text))


def test_escape_controls_can_keep_what_a_format_encodes_itself():
    assert escape_controls("a\r\nb\x1b", keep="\r\n") == "a\r\nb\\x1b"


def test_json_safe_keeps_the_values():
    value = {"name": "a\x7fb\x85c\u202ed\u2028e\nf"}
    text = json_safe(json.dumps(value, ensure_ascii=False))
    assert text == '{"name": "a\\u007fb\\u0085c\\u202ed\\u2028e\\nf"}'
    assert json.loads(text) == value


# --- each format --------------------------------------------------------------------------------


def test_plan_text_escapes_a_name_that_would_rewrite_the_terminal_line(repo):
    (repo / "app").mkdir()
    (repo / "app/job.yaml").write_text(job("seed\r\x1b[2Kok", namespace="shop\u202e"))
    result = runner.invoke(app, ["plan", "app"])
    assert result.exit_code == 0
    assert "\r" not in result.output and "\x1b" not in result.output and "\u202e" not in result.output
    row = next(line for line in result.output.splitlines() if "Job" in line)
    assert row == "  1     PreSync  0     Job   shop\\u202e/seed\\r\\x1b[2Kok  PreSync  BeforeHookCreation"
    # the JSON plan keeps the name as it is (json escapes it)
    planned = json.loads(runner.invoke(app, ["plan", "-f", "json", "app"]).output)
    assert planned["applications"][0]["steps"][0]["tasks"][0]["name"] == "seed\r\x1b[2Kok"


def finding(message: str, path: str = "a.yaml", name: str = "j") -> Finding:
    return Finding("HL999", "some-rule", "warning", message, path, Span(3, 5, 3, 9), ObjectRef(kind="Job", name=name),
                   field_path="spec.x")  # fmt: skip


def test_github_commands_cannot_be_forged_from_a_message_or_a_path(tmp_path):
    f = finding("bad\n::error file=x::forged \x1b[31mred\u202e", path="dir::x,y\n::warning::z/a.yaml")
    out = github.render(RunResult(findings=[f], files=1, notices=["a\n::error::from a notice"]), root=tmp_path)
    lines = out.splitlines()
    assert lines[0] == (
        "::warning file=dir%3A%3Ax%2Cy\\n%3A%3Awarning%3A%3Az/a.yaml,line=3,col=5,endLine=3,endColumn=9,"
        "title=HL999 some-rule::bad%0A::error file=x::forged \\x1b[31mred\\u202e"
    )
    assert lines[1] == "note: a\\n::error::from a notice"
    assert [line for line in lines if line.startswith("::")] == [lines[0]]


def test_markdown_cells_hold_no_markup_from_a_manifest():
    cell = markdown._cell("`x` | [link](https://evil) ![i](https://evil/p.png) <b>\x1b\\")
    assert cell == ("\\`x\\` \\| \\[link\\](https:&#8203;//evil) !\\[i\\](https:&#8203;//evil/p.png) "
                    "&lt;b&gt;\\\\x1b\\\\")  # a URL split: GitHub links no text (test_markdown_text.py)
    assert markdown._code("a`b``c|d\r") == "```a`b``c\\|d\\r```"
    assert markdown._code("`x") == "`` `x ``"


def test_markdown_cells_mention_no_one():
    """A name or value quoting ``@everyone`` or ``@org/team`` stayed a live mention in a posted
    pull-request comment (helper trial): a zero-width space follows each ``@``."""
    assert markdown._cell("@everyone, @acme/platform-team") == "@&#8203;everyone, @&#8203;acme/platform-team"


def test_mermaid_labels_cannot_close_the_block():
    label = markdown._label('```\n#lt;b#gt; "x" <y> &z \u202e')
    assert label == '#96;#96;#96;\\n#35;lt;b#35;gt; #quot;x#quot; #lt;y#gt; #amp;z \\u202e'


def test_markdown_links_quote_the_path():
    rows = markdown._finding_rows([finding("m", path="a (1)/[x].yaml")], "https://github.com/o/r/blob/s")
    assert rows[2] == ("| ⚠️ | `HL999` some-rule | [a (1)/\\[x\\].yaml:3](https://github.com/o/r/blob/s/a%20%281%29/"
                       "%5Bx%5D.yaml#L3) | m |")  # fmt: skip


# --- every reporter, any text in a manifest -----------------------------------------------------

#: Characters that are never printed raw; a reporter's own line breaks are allowed.
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
DANGEROUS = "\x00\x07\x08\t\n\x0b\x0c\r\x1b\x7f\x85\x9b\u061c\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
texts = st.text(alphabet=st.sampled_from(DANGEROUS + "ab:/|`<>[]()#&%\"'*_@-.") | st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=20)


def every_output(root) -> dict[str, str]:
    config, catalog = Config(allowed_registries=["ghcr.io/acme"]), load_catalog()
    result = lint_paths(["app"], config, catalog)
    plans, _ = plan_paths(["app"], config)
    side = Side("base", RunResult(files=1), [])
    review = compare(side, Side("head", result, plans), lambda s, key: [])
    return {
        "text": text_reporter.render(result, show_suppressed=True, stats=True, show_skipped=True),
        "json": json_reporter.render(result),
        "sarif": sarif.render(result, catalog, root=root),
        "github": github.render(result, root=root),
        "gitlab": gitlab.render(result, root=root),
        "markdown": markdown.render_tree(result, plans),
        "plan": plan_reporter.render(plans),
        "plan-json": plan_reporter.render(plans, "json"),
        "diff-text": report.render_text(review),
        "diff-json": report.render_json(review),
        "diff-markdown": markdown.render_review(review),
    }


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=texts, namespace=texts, wave=texts, image=texts)
def test_no_reporter_prints_a_raw_control_character_from_a_manifest(repo, name, namespace, wave, image):
    (repo / "app").mkdir(exist_ok=True)
    (repo / "app/job.yaml").write_text(job(name, namespace, wave, f"ghcr.io/acme/{image}:latest"))
    outputs = every_output(repo)
    assert " Job " in outputs["plan"] and "Job/" in outputs["text"]  # the object reached the reports
    for fmt, out in outputs.items():
        found = RAW.search(out)
        assert found is None, (fmt, repr(found.group()), out)
    for fmt in ("json", "sarif", "gitlab", "plan-json", "diff-json"):
        json.loads(outputs[fmt])  # still JSON
