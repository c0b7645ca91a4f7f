"""Repository text in the Markdown report renders as the text it is (trial 4 item 8): an annotation
value holding ``https://evil.example/login``, ``www.evil.example``, ``#1`` or ``$$\\alpha$$`` came out
so that GitHub linked or rendered it. Checked with GitHub's own cmark-gfm (``cmarkgfm``, the GFM
extensions: autolink, table, strikethrough, tagfilter): no link, no emphasis, no HTML, and the cell
reads as the message, zero-width spaces aside; GitHub's own passes after it (mentions, issue
references, emoji, math) find nothing either: a zero-width space splits each, ``$`` is escaped."""

from __future__ import annotations

import html
import re

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.review import markdown

runner = CliRunner()

VALUE = ("https://evil.example/login?x=1 www.evil.example HTTP://EVIL.EXAMPLE ftp://x.example a@b.example @octocat #1 "
         "acme/x#2 :+1: $$\\alpha$$ $x$ *em* _em_ ~~del~~ **b** <b>h</b> [l](https://e.example) ![i](https://e.example/i.png) "
         "`c` | ] \\[x\\](https://e.example) &lt;")  # fmt: skip
MESSAGE = (f"Unknown hook type '{VALUE}' on Job/j: hook types are case-sensitive, and Argo CD treats Job/j as a "
           "hook with no valid type and silently never applies it.")  # fmt: skip
Z = "&#8203;"


def _job(value: str) -> str:
    return ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  annotations:\n"
            f"    argocd.argoproj.io/hook: '{value}'\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n"
            "      containers: [{name: c, image: 'ghcr.io/acme/x:1.0'}]\n")  # fmt: skip


@pytest.fixture
def report(tmp_path, monkeypatch) -> str:
    (tmp_path / ".git").mkdir()
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "job.yaml").write_text(_job(VALUE))
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["lint", "-f", "markdown", "app"])
    assert result.exit_code == 1
    return result.output


def test_the_cell_escapes_every_kind_of_live_text(report):
    row = next(line for line in report.splitlines() if "HL010" in line)
    assert row == (
        "| 🛑 | `HL010` unknown-hook-type | app/job.yaml:6 | Unknown hook type '"
        f"https:{Z}//evil.example/login?x=1 www{Z}.evil.example HTTP:{Z}//EVIL.EXAMPLE ftp:{Z}//x.example a@{Z}b.example "
        f"@{Z}octocat #{Z}1 acme/x#{Z}2 :{Z}+1: \\$\\$\\\\alpha\\$\\$ \\$x\\$ \\*em\\* \\_em\\_ \\~\\~del\\~\\~ \\*\\*b\\*\\* "
        f"&lt;b&gt;h&lt;/b&gt; \\[l\\](https:{Z}//e.example) !\\[i\\](https:{Z}//e.example/i.png) \\`c\\` \\| \\] "
        f"\\\\\\[x\\\\\\](https:{Z}//e.example) &amp;lt;' on Job/j: hook types are case-sensitive, and Argo CD treats "
        "Job/j as a hook with no valid type and silently never applies it. |")


def test_github_renders_the_cell_as_the_text_it_is(report):
    rendered = cmarkgfm.github_flavored_markdown_to_html(report, options=Options.CMARK_OPT_UNSAFE)
    cells = re.findall(r"<td>(.*?)</td>", rendered)
    message = cells[-1]
    assert re.findall(r"<(?!/?code\b)[a-z]+", message) == []  # no link, emphasis, image, HTML of its own
    assert html.unescape(message).replace("\u200b", "") == MESSAGE
    assert "<a " not in rendered and "<img" not in rendered and "<em>" not in rendered and "<del>" not in rendered


@pytest.mark.parametrize("text, cell", [
    ("see https://evil.example/x", f"see https:{Z}//evil.example/x"),
    ("www.evil.example", f"www{Z}.evil.example"),
    ("fixes #12 and GH#3", f"fixes #{Z}12 and GH#{Z}3"),
    ("@everyone", f"@{Z}everyone"),
    ("$$\\alpha$$", "\\$\\$\\\\alpha\\$\\$"),
    ("a *b* _c_ ~d~", "a \\*b\\* \\_c\\_ \\~d\\~"),
    (":rocket: ok", f":{Z}rocket: ok"),
    ("Job/j: name", "Job/j: name"),  # hooklint's own colons stay as they are
    ("x.yaml:100:5: m", f"x.yaml:{Z}100:{Z}5: m"),  # ":100:" is GitHub's emoji 💯
])  # fmt: skip
def test_each_kind_of_live_text(text, cell):
    assert markdown._cell(text) == cell


def test_summary_code_mentions_no_one():
    assert markdown._html("@acme/team <b>#1</b> & x") == f"@{Z}acme/team &lt;b&gt;#1&lt;/b&gt; &amp; x"
