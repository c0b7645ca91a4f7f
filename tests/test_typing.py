"""Scalars are typed as Kubernetes types them (go-yaml v2 resolve.go via sigs.k8s.io/yaml)."""

import math

import pytest

from hooklint.yamlio import go_resolve_plain, parse_documents


@pytest.mark.parametrize(
    "text, expected",
    [
        ("yes", True), ("Yes", True), ("YES", True), ("y", True), ("Y", True), ("on", True),
        ("true", True), ("no", False), ("n", False), ("off", False), ("OFF", False),
        ("yEs", "yEs"), ("~", None), ("null", None), ("", None),
        ("5", 5), ("-3", -3), ("+1", 1), ("007", 7), ("0x10", 16), ("0o17", 15), ("0b101", 5),
        ("1_000", 1000), ("08", 8.0), ("1e3", 1000.0), ("1.5", 1.5), (".5", 0.5),
        ("2024-01-01", "2024-01-01"), ("1:20", "1:20"), ("abc", "abc"),
        ("99999999999999999999", 1e20), ("18446744073709551615", 18446744073709551615),
    ],
)  # fmt: skip
def test_plain_scalars_resolve_like_go_yaml_v2(text, expected):
    assert go_resolve_plain(text)[1] == expected
    assert type(go_resolve_plain(text)[1]) is type(expected)


def test_special_floats():
    assert math.isinf(go_resolve_plain(".inf")[1])
    assert math.isnan(go_resolve_plain(".NaN")[1])


def test_quoted_and_explicitly_tagged_scalars_stay_strings():
    (doc,) = parse_documents('a: "yes"\nb: \'5\'\nc: !!str on\nd: no\ne: 5\n')
    assert doc.value == {"a": "yes", "b": "5", "c": "on", "d": False, "e": 5}


def test_non_string_keys_become_their_json_text():
    (doc,) = parse_documents("5: a\ntrue: b\nyes: c\n")
    assert list(doc.value) == ["5", "true"]
    assert doc.value["true"] == "c"  # `yes` is true as well: a duplicate key
    assert [i.kind for i in doc.issues] == ["duplicate-key"]


def test_spans_are_one_based_and_end_exclusive():
    (doc,) = parse_documents("kind: Job\nmetadata:\n  name: db-migrate\n", line_offset=10)
    md = doc.value["metadata"]
    span = md.value_span("name")
    assert (span.line, span.column, span.end_line, span.end_column) == (13, 9, 13, 19)
    key = doc.value.key_span("metadata")
    assert (key.line, key.column, key.end_line, key.end_column) == (12, 1, 12, 9)


def test_merge_keys_explicit_keys_win():
    (doc,) = parse_documents("base: &b {a: 1, b: 2}\nobj:\n  <<: *b\n  b: 3\n")
    assert doc.value["obj"] == {"b": 3, "a": 1}


def test_key_y_is_the_boolean_true_as_in_kubernetes():
    """go-yaml v2 resolves a plain `y` key to true, and sigs.k8s.io/yaml writes it as "true"."""
    (doc,) = parse_documents("x: 1\ny: 2\n")
    assert doc.value == {"x": 1, "true": 2}
