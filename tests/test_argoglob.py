"""Argo CD's directory globs (``util/glob`` ``Match``: gobwas/glob v0.2.3, no separators), as
:mod:`hooklint.sources.appmap.argoglob` ports them.

The tables come from gobwas/glob v0.2.3 itself (``glob_test.go`` ``TestGlob``,
``syntax/lexer/lexer_test.go`` ``TestLexGood``), from its bug reports (issues 43, 61, 62, 66: the
v0.2.3 results, which Argo CD v3.5.1 still has) and from reading ``syntax/lexer/lexer.go``
``fetchRange`` / ``fetchText`` and ``syntax/ast/parser.go`` ``parserRange``.
"""

from __future__ import annotations

import json
import random
import re

import pytest

from hooklint.sources.appmap import argoglob
from hooklint.sources.appmap.applications import DirectoryOptions, glob_match
from hooklint.sources.appmap.argoglob import Glob, GlobError, compile_glob

PATTERN_ALL = "[a-z][!a-x]*cat*[h][!b]*eyes*"
ALTERNATIVES = "{https://*.google.*,*yandex.*,*yahoo.*,*mail.ru}"
ALTERNATIVES_SUFFIX = "{https://*gobwas.com,http://exclude.gobwas.com}"

#: gobwas/glob v0.2.3 ``glob_test.go`` ``TestGlob``: (should, pattern, text, separators).
GOBWAS_TEST_GLOB = [
    (True, "* ?at * eyes", "my cat has very bright eyes", ""),
    (True, "", "", ""),
    (False, "", "b", ""),
    (True, "*ä", "åä", ""),
    (True, "abc", "abc", ""),
    (True, "a*c", "abc", ""),
    (True, "a*c", "a12345c", ""),
    (True, "a?c", "a1c", ""),
    (True, "a.b", "a.b", "."),
    (True, "a.*", "a.b", "."),
    (True, "a.**", "a.b.c", "."),
    (True, "a.?.c", "a.b.c", "."),
    (True, "a.?.?", "a.b.c", "."),
    (True, "?at", "cat", ""),
    (True, "?at", "fat", ""),
    (True, "*", "abc", ""),
    (True, "\\*", "*", ""),
    (True, "**", "a.b.c", "."),
    (False, "?at", "at", ""),
    (False, "?at", "fat", "f"),
    (False, "a.*", "a.b.c", "."),
    (False, "a.?.c", "a.bb.c", "."),
    (False, "*", "a.b.c", "."),
    (True, "*test", "this is a test", ""),
    (True, "this*", "this is a test", ""),
    (True, "*is *", "this is a test", ""),
    (True, "*is*a*", "this is a test", ""),
    (True, "**test**", "this is a test", ""),
    (True, "**is**a***test*", "this is a test", ""),
    (False, "*is", "this is a test", ""),
    (False, "*no*", "this is a test", ""),
    (True, "[!a]*", "this is a test3", ""),
    (True, "*abc", "abcabc", ""),
    (True, "**abc", "abcabc", ""),
    (True, "???", "abc", ""),
    (True, "?*?", "abc", ""),
    (True, "?*?", "ac", ""),
    (False, "sta", "stagnation", ""),
    (True, "sta*", "stagnation", ""),
    (False, "sta?", "stagnation", ""),
    (False, "sta?n", "stagnation", ""),
    (True, "{abc,def}ghi", "defghi", ""),
    (True, "{abc,abcd}a", "abcda", ""),
    (True, "{a,ab}{bc,f}", "abc", ""),
    (True, "{*,**}{a,b}", "ab", ""),
    (False, "{*,**}{a,b}", "ac", ""),
    (True, "/{rate,[a-z][a-z][a-z]}*", "/rate", ""),
    (True, "/{rate,[0-9][0-9][0-9]}*", "/rate", ""),
    (True, "/{rate,[a-z][a-z][a-z]}*", "/usd", ""),
    (True, "{*.google.*,*.yandex.*}", "www.google.com", "."),
    (True, "{*.google.*,*.yandex.*}", "www.yandex.com", "."),
    (False, "{*.google.*,*.yandex.*}", "yandex.com", "."),
    (False, "{*.google.*,*.yandex.*}", "google.com", "."),
    (True, "{*.google.*,yandex.*}", "www.google.com", "."),
    (True, "{*.google.*,yandex.*}", "yandex.com", "."),
    (False, "{*.google.*,yandex.*}", "www.yandex.com", "."),
    (False, "{*.google.*,yandex.*}", "google.com", "."),
    (True, "*//{,*.}example.com", "https://www.example.com", ""),  # added to the table after v0.2.3
    (True, "*//{,*.}example.com", "http://example.com", ""),
    (False, "*//{,*.}example.com", "http://example.com.net", ""),
    (True, PATTERN_ALL, "my cat has very bright eyes", ""),
    (False, PATTERN_ALL, "my dog has very bright eyes", ""),
    (True, "google.com", "google.com", ""),
    (False, "google.com", "gobwas.com", ""),
    (True, "https://*.google.*", "https://account.google.com", ""),
    (False, "https://*.google.*", "https://google.com", ""),
    (True, ALTERNATIVES, "http://yahoo.com", ""),
    (False, ALTERNATIVES, "http://google.com", ""),
    (True, ALTERNATIVES_SUFFIX, "https://safe.gobwas.com", ""),
    (False, ALTERNATIVES_SUFFIX, "http://safe.gobwas.com", ""),
    (True, ALTERNATIVES_SUFFIX, "http://exclude.gobwas.com", ""),
    (True, "{abc*[a-c]def,abc?[d-g]def,abc[zte]?def}", "abczqdef", ""),
    (True, "{abc*def,abc?def,abc[zte]def}", "abczdef", ""),
    (True, "abc*", "abcdef", ""),
    (False, "abc*", "af", ""),
    (True, "*def", "abcdef", ""),
    (False, "*def", "af", ""),
    (True, "ab*ef", "abcdef", ""),
    (False, "ab*ef", "af", ""),
]


@pytest.mark.parametrize("should, pattern, text, separators", GOBWAS_TEST_GLOB)
def test_gobwas_glob_own_table(should, pattern, text, separators):
    assert Glob(pattern, separators).match(text) is should


#: gobwas/glob v0.2.3 ``syntax/lexer/lexer_test.go`` ``TestLexGood``, token names as in ``token.go``.
GOBWAS_TEST_LEX = [
    ("", [("EOF", "")]),
    ("hello", [("TEXT", "hello"), ("EOF", "")]),
    ("/{rate,[0-9]]}*", [("TEXT", "/"), ("TERMS_OPEN", "{"), ("TEXT", "rate"), ("SEPARATOR", ","),
                         ("RANGE_OPEN", "["), ("RANGE_LO", "0"), ("RANGE_BETWEEN", "-"), ("RANGE_HI", "9"),
                         ("RANGE_CLOSE", "]"), ("TEXT", "]"), ("TERMS_CLOSE", "}"), ("ANY", "*"), ("EOF", "")]),
    ("hello,world", [("TEXT", "hello,world"), ("EOF", "")]),
    ("hello\\,world", [("TEXT", "hello,world"), ("EOF", "")]),
    ("hello\\{world", [("TEXT", "hello{world"), ("EOF", "")]),
    ("hello?", [("TEXT", "hello"), ("SINGLE", "?"), ("EOF", "")]),
    ("hellof*", [("TEXT", "hellof"), ("ANY", "*"), ("EOF", "")]),
    ("hello**", [("TEXT", "hello"), ("SUPER", "**"), ("EOF", "")]),
    ("[日-語]", [("RANGE_OPEN", "["), ("RANGE_LO", "日"), ("RANGE_BETWEEN", "-"), ("RANGE_HI", "語"),
                ("RANGE_CLOSE", "]"), ("EOF", "")]),
    ("[!日-語]", [("RANGE_OPEN", "["), ("NOT", "!"), ("RANGE_LO", "日"), ("RANGE_BETWEEN", "-"),
                 ("RANGE_HI", "語"), ("RANGE_CLOSE", "]"), ("EOF", "")]),
    ("[日本語]", [("RANGE_OPEN", "["), ("TEXT", "日本語"), ("RANGE_CLOSE", "]"), ("EOF", "")]),
    ("[!日本語]", [("RANGE_OPEN", "["), ("NOT", "!"), ("TEXT", "日本語"), ("RANGE_CLOSE", "]"), ("EOF", "")]),
    ("{a,b}", [("TERMS_OPEN", "{"), ("TEXT", "a"), ("SEPARATOR", ","), ("TEXT", "b"), ("TERMS_CLOSE", "}"),
               ("EOF", "")]),
    ("{[!日-語],*,?,{a,b,\\c}}", [
        ("TERMS_OPEN", "{"), ("RANGE_OPEN", "["), ("NOT", "!"), ("RANGE_LO", "日"), ("RANGE_BETWEEN", "-"),
        ("RANGE_HI", "語"), ("RANGE_CLOSE", "]"), ("SEPARATOR", ","), ("ANY", "*"), ("SEPARATOR", ","),
        ("SINGLE", "?"), ("SEPARATOR", ","), ("TERMS_OPEN", "{"), ("TEXT", "a"), ("SEPARATOR", ","),
        ("TEXT", "b"), ("SEPARATOR", ","), ("TEXT", "c"), ("TERMS_CLOSE", "}"), ("TERMS_CLOSE", "}"),
        ("EOF", "")]),
]


@pytest.mark.parametrize("pattern, tokens", GOBWAS_TEST_LEX)
def test_gobwas_lexer_own_table(pattern, tokens):
    lexer = argoglob._Lexer(pattern.encode())
    got = [lexer.next() for _ in tokens]
    assert [(k, raw.decode()) for k, raw in got] == [(getattr(argoglob, name), raw) for name, raw in tokens]


@pytest.mark.parametrize(
    "pattern, error",
    [
        ("[a-z0-9]vil.yaml", "expected close range character"),  # trial 4 item 2: one range per class
        ("[a-zA-Z]*", "expected close range character"),
        ("[ab", "unexpected end of input"),
        ("[a-z", "unexpected end of input"),
        ("[a-]", "unexpected end of input"),  # ']' is the range's high end; no close follows
        ("[]", "could not parse range"),
        ("[!]", "could not parse range"),
        ("[z-a]", "hi character 'a' should be greater than lo 'z'"),
        ("a[\x00]", "unexpected end of input"),  # the lexer's eof rune is NUL
        ("a\ufffd", "could not read rune"),  # utf8.RuneError, whether written or decoded
    ],
)
def test_patterns_gobwas_glob_refuses(pattern, error):
    with pytest.raises(GlobError) as caught:
        Glob(pattern)
    assert str(caught.value) == error
    assert compile_glob(pattern) is None
    assert glob_match(pattern, "evil.yaml") is False  # util/glob Match: logged, false


@pytest.mark.parametrize(
    "pattern, text, matched",
    [
        # classes: '!' negates, '^' is a character; one run or one range; '-' elsewhere is a character
        ("[^x]vil.yaml", "evil.yaml", False),
        ("[^x]vil.yaml", "^vil.yaml", True),
        ("[^x]vil.yaml", "xvil.yaml", True),
        ("[!x]vil.yaml", "evil.yaml", True),
        ("[!x]vil.yaml", "xvil.yaml", False),
        ("[!!]", "!", False),
        ("[a!]", "!", True),
        ("[abc-z]", "q", False),  # a run: a, b, c, '-', z
        ("[abc-z]", "-", True),
        ("[-a]", "-", True),
        ("[A-]]", "[", True),  # the range A..]
        ("[\\]]", "]", True),  # an escape inside a run
        ("[\\-a]", "_", True),  # no escape at a range's low end: the range '\\'..a
        ("[]a]x", "a]x", False),  # '[]' then text: does not compile
        ("[é-ë]", "ê", True),
        ("[!é-ë]", "e", True),
        # braces: unclosed compiles, a stray '}' or ',' is text
        ("{a,b", "a", True),
        ("{a,b", "b", True),
        ("a}", "a}", True),
        ("a,b", "a,b", True),
        ("{a,{b,c}}d", "cd", True),
        # escapes: any character; a trailing backslash is dropped
        ("\\*.yaml", "*.yaml", True),
        ("\\*.yaml", "a.yaml", False),
        ("evil.yaml\\", "evil.yaml", True),
        ("\\[a]", "[a]", True),
        # '*' and '**' cross '/' (no separators)
        ("*.yaml", "sub/a.yaml", True),
        ("**/a.yaml", "x/y/a.yaml", True),
        ("?", "é", True),
        ("?", "", True),  # Single.Match(""): DecodeRuneInString gives RuneError, width 0, no separator
        ("[!a]", "", True),
        ("??", "", False),
        # NUL: read as the end of a token
        ("*\x00evil.yaml", "anything", True),  # the pattern stops after '*'
        ("ev\x00il.yaml", "evil.yaml", True),  # dropped inside text
        # gobwas/glob v0.2.3's optimiser, as Argo CD v3.5.1 runs it (issues 43, 61, 62, 66)
        ("start*art", "start", True),
        ("{*.,}google*", "google.com", False),
        ("{*.,}google*", "a.google.com", False),
        ("{,*.}google*", "google.com", True),
        ("{a,}{a,}a", "a", False),
        ("{**/daxing,daxing}/**/*dev*.yaml", "playground/daxing/generated/dev.yaml", False),
        ("{**/daxing}/**/*dev*.yaml", "playground/daxing/generated/dev.yaml", True),
        ("{**/daxing,daxing,x}/**/*dev*.yaml", "playground/daxing/generated/dev.yaml", True),
    ],
)
def test_argo_cd_directory_globs(pattern, text, matched):
    assert glob_match(pattern, text) is matched


def test_a_directory_exclude_gobwas_refuses_excludes_nothing():
    """Trial 4 item 2: ``exclude: '[a-z0-9]vil.yaml'`` does not compile in Argo CD, so evil.yaml is
    deployed; ``[^x]`` does not negate."""
    assert DirectoryOptions.from_application({"exclude": "[a-z0-9]vil.yaml"}).excludes("evil.yaml") is None
    assert DirectoryOptions.from_application({"exclude": "[^x]vil.yaml"}).excludes("evil.yaml") is None
    assert DirectoryOptions.from_application({"exclude": "[!x]vil.yaml"}).excludes("evil.yaml") == (
        "matches directory.exclude '[!x]vil.yaml'")
    assert DirectoryOptions.from_application({"include": "[a-z0-9]*.yaml"}).excludes("a.yaml") == (
        "does not match directory.include '[a-z0-9]*.yaml'")


def test_a_glob_go_would_panic_on_leaves_nothing_out():
    """``a{,}b`` glues a Nothing (length 0) into a Row, whose matchAll slices past the end of a
    one-character rest in Go (``match/row.go``): a panic, so Argo CD does not leave the file out."""
    with pytest.raises(argoglob.GlobPanic):
        Glob("a{,}").match("a")
    assert DirectoryOptions.from_application({"exclude": "a{,}"}).excludes("a") is None


def _reference(pattern: str) -> re.Pattern[str]:
    """The plain meaning of a pattern of text, ``?`` and one-run or one-range classes."""
    out = []
    for part in re.findall(r"\[!?[^\]]+\]|\?|[^\[?]", pattern):
        if part == "?":
            out.append(".")
        elif part.startswith("["):
            negate = part[1] == "!"
            body = part[2 if negate else 1:-1]
            if len(body) == 3 and body[1] == "-":
                cls = re.escape(body[0]) + "-" + re.escape(body[2])
            else:
                cls = "".join(re.escape(c) for c in body)
            out.append("[" + ("^" if negate else "") + cls + "]")
        else:
            out.append(re.escape(part))
    return re.compile("".join(out), re.DOTALL)


def test_fixed_length_patterns_match_their_plain_meaning():
    """Property: a pattern without ``*`` or braces (a Row of fixed-length matchers) matches exactly
    what it says, over random ASCII patterns and texts (a lone ``?`` or negated class also matches
    the empty text: pinned above)."""
    rng = random.Random(4)
    letters = "abcxyz./-"
    for _ in range(3000):
        parts = []
        for _ in range(rng.randint(1, 4)):
            choice = rng.random()
            if choice < 0.4:
                parts.append(rng.choice("abcxyz./"))
            elif choice < 0.6:
                parts.append("?")
            elif choice < 0.8:
                lo, hi = sorted(rng.sample("abcxyz", 2))
                parts.append(f"[{rng.choice(['', '!'])}{lo}-{hi}]")
            else:
                parts.append(f"[{rng.choice(['', '!'])}{''.join(rng.sample('abcxyz.', rng.randint(1, 3)))}]")
        pattern = "".join(parts)
        compiled = Glob(pattern)
        reference = _reference(pattern)
        for _ in range(8):
            text = "".join(rng.choice(letters) for _ in range(rng.randint(0 if len(parts) > 1 else 1, 5)))
            assert compiled.match(text) is (reference.fullmatch(text) is not None), (pattern, text)


@pytest.mark.parametrize("exclude, linted", [("[a-z0-9]vil.yaml", True), ("[^x]vil.yaml", True),
                                             ("[!x]vil.yaml", False)])
def test_a_file_argo_cd_deploys_despite_the_exclude_is_linted(tmp_path, monkeypatch, exclude, linted):
    """Trial 4 item 2 (/tmp/attack-glob): the exclude Argo CD cannot compile, or whose ``[^x]`` is
    no negation, leaves evil.yaml in, and hooklint lints it."""
    from typer.testing import CliRunner

    from hooklint.cli import app

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git/config").write_text('[remote "origin"]\n\turl = https://github.com/acme/glob\n')
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps/app.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: app, namespace: argocd}\nspec:\n"
        "  project: team\n  destination: {server: https://kubernetes.default.svc, namespace: app}\n  source:\n"
        f"    repoURL: https://github.com/acme/glob\n    path: app\n    directory:\n      exclude: '{exclude}'\n")
    (tmp_path / "app").mkdir()
    (tmp_path / "app/cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    (tmp_path / "app/evil.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: evil\n  annotations:\n    x: 5\n")
    result = CliRunner().invoke(app, ["lint", "--format", "json", "."])
    findings = [(f["path"], f["rule_id"]) for f in json.loads(result.output)["findings"]]
    assert findings == ([("app/evil.yaml", "HL004")] if linted else [])
    assert result.exit_code == (1 if linted else 0)


#: Patterns nested deeper than this port's recursive compiler and matchers follow within Python's
#: recursion limit (Go's growing stacks compile and match them): a RecursionError ended the run as
#: "hooklint: internal error" (a `hooklint lint` over /tmp).
TOO_DEEP = ["{" * 400 + "evil.yaml" + "}" * 400, "{a," * 400 + "evil.yaml" + "}" * 400, "e*" * 1000]


@pytest.mark.parametrize("pattern", TOO_DEEP, ids=["braces", "alternatives", "stars"])
def test_a_glob_too_deep_to_follow_is_said_and_fails_closed(pattern):
    with pytest.raises(argoglob.GlobTooDeep):
        compile_glob(pattern).match("evil.yaml")  # type: ignore[union-attr]
    for key in ("include", "exclude"):
        assert DirectoryOptions.from_application({key: pattern}).excludes("evil.yaml") is None


@pytest.mark.parametrize("key", ["include", "exclude"])
def test_an_application_with_a_glob_too_deep_to_follow_is_linted_whole(tmp_path, monkeypatch, key):
    """The Application's include/exclude is nested 400 deep: the run ended in "hooklint: internal
    error: RecursionError"; its files are read and checked instead (fail closed)."""
    from typer.testing import CliRunner

    from hooklint.cli import app

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git/config").write_text('[remote "origin"]\n\turl = https://github.com/acme/glob\n')
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps/app.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: app, namespace: argocd}\nspec:\n"
        "  project: team\n  destination: {server: https://kubernetes.default.svc, namespace: app}\n  source:\n"
        f"    repoURL: https://github.com/acme/glob\n    path: app\n    directory:\n      {key}: '{TOO_DEEP[0]}'\n")
    (tmp_path / "app").mkdir()
    (tmp_path / "app/cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    (tmp_path / "app/evil.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: evil\n  annotations:\n    x: 5\n")
    result = CliRunner().invoke(app, ["lint", "--format", "json", "."])
    assert result.exit_code == 1, result.output
    findings = [(f["path"], f["rule_id"]) for f in json.loads(result.stdout)["findings"]]
    assert findings == [("app/evil.yaml", "HL004")]


BAD = "bad"
#: Go's ``src/path/match_test.go`` ``matchTests``: (pattern, name, matched or BAD for ErrBadPattern).
GO_PATH_MATCH_TESTS = [
    ("abc", "abc", True), ("*", "abc", True), ("*c", "abc", True), ("a*", "a", True), ("a*", "abc", True),
    ("a*", "ab/c", False), ("a*/b", "abc/b", True), ("a*/b", "a/c/b", False),
    ("a*b*c*d*e*/f", "axbxcxdxe/f", True), ("a*b*c*d*e*/f", "axbxcxdxexxx/f", True),
    ("a*b*c*d*e*/f", "axbxcxdxe/xxx/f", False), ("a*b*c*d*e*/f", "axbxcxdxexxx/fff", False),
    ("a*b?c*x", "abxbbxdbxebxczzx", True), ("a*b?c*x", "abxbbxdbxebxczzy", False),
    ("ab[c]", "abc", True), ("ab[b-d]", "abc", True), ("ab[e-g]", "abc", False), ("ab[^c]", "abc", False),
    ("ab[^b-d]", "abc", False), ("ab[^e-g]", "abc", True), ("a\\*b", "a*b", True), ("a\\*b", "ab", False),
    ("a?b", "a☺b", True), ("a[^a]b", "a☺b", True), ("a???b", "a☺b", False), ("a[^a][^a][^a]b", "a☺b", False),
    ("[a-ζ]*", "α", True), ("*[a-ζ]", "A", False), ("a?b", "a/b", False), ("a*b", "a/b", False),
    ("[\\]a]", "]", True), ("[\\-]", "-", True), ("[x\\-]", "x", True), ("[x\\-]", "-", True),
    ("[x\\-]", "z", False), ("[\\-x]", "x", True), ("[\\-x]", "-", True), ("[\\-x]", "a", False),
    ("[]a]", "]", BAD), ("[-]", "-", BAD), ("[x-]", "x", BAD), ("[x-]", "-", BAD), ("[x-]", "z", BAD),
    ("[-x]", "x", BAD), ("[-x]", "-", BAD), ("[-x]", "a", BAD), ("\\", "a", BAD), ("[a-b-c]", "a", BAD),
    ("[", "a", BAD), ("[^", "a", BAD), ("[^bc", "a", BAD), ("a[", "a", BAD), ("a[", "ab", BAD), ("a[", "x", BAD),
    ("a/b[", "x", BAD), ("*x", "xxx", True),
    # the git directories generator's differences from a regex translation
    ("apps/[a-z0-9]*", "apps/x1", True),  # several ranges in one class
    ("apps/[!x]*", "apps/evil", False),  # '!' is a character, '^' negates
    ("apps/[!x]*", "apps/!evil", True),
]


@pytest.mark.parametrize("pattern, name, matched", GO_PATH_MATCH_TESTS)
def test_go_path_match_own_table(pattern, name, matched):
    if matched == BAD:
        with pytest.raises(argoglob.BadPattern):
            argoglob.path_match(pattern, name)
    else:
        assert argoglob.path_match(pattern, name) is matched


#: A pattern of many ``*a?`` groups: each compiles to a tree that retries every split of the text
#: (attacker trial 14: eleven groups on a path of 600 ``a``s ran past run-timeout).
MANY_GROUPS = "*a?" * 11 + "*c"


def test_a_pattern_of_many_star_groups_costs_polynomial_steps(monkeypatch):
    calls = []
    tree_match = argoglob._BTree._match
    monkeypatch.setattr(argoglob._BTree, "_match", lambda self, s: calls.append(1) or tree_match(self, s))
    glob = compile_glob(MANY_GROUPS)
    assert glob.match("a" * 300 + "/x.yaml") is False
    assert glob.match("a" * 300 + "c") is True
    assert glob.match("a" * 21 + "c") is False  # eleven "a?" need 22 characters before the "c"
    assert glob.match("a" * 22 + "c") is True
    assert len(calls) < 20_000


def test_the_run_deadline_holds_inside_one_match(monkeypatch):
    from hooklint import deadline

    monkeypatch.setattr(argoglob._Memo, "MEMO_BYTES", 0)  # nothing remembered: exponential again
    deadline.start(0.3)
    try:
        with pytest.raises(deadline.RunTimeout):
            compile_glob(MANY_GROUPS).match("a" * 600 + "/x.yaml")
    finally:
        deadline.stop()


def test_a_directory_include_of_many_star_groups_is_judged_in_time(tmp_path, monkeypatch):
    """Trial 14 break 5: this include ran past ``--run-timeout 20`` (killed at 150 s). No path of
    the folder ends in ``c``, so Argo CD (and hooklint) leave the file out."""
    from typer.testing import CliRunner

    from hooklint.cli import app

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git/config").write_text('[remote "origin"]\n\turl = https://github.com/acme/glob\n')
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps/app.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: app, namespace: argocd}\nspec:\n"
        "  project: team\n  destination: {server: https://kubernetes.default.svc, namespace: app}\n  source:\n"
        f"    repoURL: https://github.com/acme/glob\n    path: app\n    directory:\n      recurse: true\n"
        f"      include: '{MANY_GROUPS}'\n")
    deep = tmp_path / "app" / ("a" * 200) / ("a" * 200)
    deep.mkdir(parents=True)
    (deep / ("a" * 150 + ".yaml")).write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: left-out\n  annotations:\n    x: 5\n")
    result = CliRunner().invoke(app, ["lint", "--format", "concise", "--run-timeout", "20", "."])
    assert result.output.splitlines()[:2] == [
        "0 errors, 0 warnings, 0 notes in 1 file",
        "note: 1 file not linted on its own (1 left out by an Application's directory.include/exclude); "
        "--show-skipped lists it.",
    ]
    assert result.exit_code == 0
