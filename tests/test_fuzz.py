"""Property tests: mutated corpus manifests through ``lint_text``.

The mutations are bench/fuzz.py's (keys dropped, values of other types, edge-case strings, text-level
damage), drawn here by hypothesis; ``python bench/fuzz.py 100000`` runs the same for long. For every
input: no exception escapes ``lint_text``, every finding lies inside its text, and the JSON report is
valid JSON. ``max_examples`` keeps the whole file well under 30 seconds.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from hooklint.catalog import load_catalog
from hooklint.loader import parse_text

#: The rules whose messages quote what the parser read (a hostile key, tag or problem text).
PARSER_RULES = frozenset({"HL001", "HL002", "HL005"})
from hooklint.yamlio import Positions, go_resolve_plain

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "public"

_spec = importlib.util.spec_from_file_location("hooklint_bench_fuzz", ROOT / "bench" / "fuzz.py")
fuzz = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz)

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="the public corpus is not here")

#: Derandomized: the same examples on every run, so the suite is reproducible; bench/fuzz.py explores.
SETTINGS = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip


@pytest.fixture(scope="module")
def corpus():
    docs = fuzz.corpus_documents(str(CORPUS))
    texts = [p.read_text(encoding="utf-8") for p in sorted(CORPUS.rglob("*.y*ml"))[:400]]
    return {"docs": docs, "texts": texts, "catalog": load_catalog(), "configs": fuzz.fuzz_configs()}


@SETTINGS
@given(rng=st.randoms(use_true_random=False))
def test_mutated_corpus_objects(corpus, rng):
    """Objects of the corpus with keys dropped, values retyped, strings replaced, text damaged."""
    text = fuzz.make_input(corpus["docs"], rng)
    fuzz.check(text, corpus["catalog"], corpus["configs"], one_line=PARSER_RULES)


EDITS = st.one_of(
    st.sampled_from(fuzz.TEXT_EDITS + fuzz.EDGE_STRINGS),
    st.text(max_size=12),
    st.text(alphabet=st.sampled_from(list("-:[]{}&*!|>'\"#%@`?,\n\r\t ")), max_size=8),
)


@SETTINGS
@given(data=st.data(), edits=st.lists(st.tuples(st.floats(0, 1), EDITS, st.integers(0, 30)), min_size=1, max_size=4))
def test_damaged_corpus_files(corpus, data, edits):
    """Real files as written (comments, anchors, Helm output), with text inserted and cut out."""
    text = data.draw(st.sampled_from(corpus["texts"]))
    for where, insert, cut in edits:
        at = int(where * len(text))
        text = text[:at] + insert + text[at + cut :]
    fuzz.check(text, corpus["catalog"], corpus["configs"][:1], one_line=PARSER_RULES)


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(), st.from_regex(r"[-+]?(0[xob])?[0-9a-fA-F_.eE+-]{0,40}", fullmatch=True)))
def test_scalar_typing_never_raises(text):
    tag, value = go_resolve_plain(text)
    assert tag.startswith("tag:yaml.org,2002:")
    assert isinstance(value, (str, int, float, bool, type(None)))


_BREAK = re.compile(r"\r\n|\r|\n")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(["a", "é", " ", "\n", "\r", "\t", "🙂"]), max_size=300), st.data())
def test_positions_match_a_naive_count(text, data):
    index = data.draw(st.integers(0, len(text)))
    assume(not (text[index - 1 : index + 1] == "\r\n" and index > 0))  # inside one line break
    lines = _BREAK.split(text[:index])
    for direct in (16, 0):  # counted directly, then from the block table
        pos = Positions(text)
        pos._direct = direct
        assert pos.line_col(index) == (len(lines), len(lines[-1]) + 1)


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=400))
def test_any_bytes_read_as_a_file(tmp_path_factory, data):
    """Whatever the bytes: a LoadedFile with an input error or documents, never an exception."""
    from hooklint.loader import read_file

    path = tmp_path_factory.mktemp("bytes") / "f.yaml"
    path.write_bytes(data)
    loaded = read_file(str(path))
    assert loaded.error is None or ("\n" not in loaded.error.message and loaded.documents == [])


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_any_text_parses_without_raising(text):
    loaded = parse_text("t.yaml", text)
    lines = _BREAK.split(text)
    for issue, _ in loaded.issues:
        assert 1 <= issue.span.line <= len(lines)
        assert 1 <= issue.span.column <= len(lines[issue.span.line - 1]) + 1
