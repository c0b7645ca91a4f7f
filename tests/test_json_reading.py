"""A manifest file read as Argo CD reads it, and never passed over when Argo CD may apply it (trial 7 F4, F10).

Argo CD v3.5.1 ``reposerver/repository/repository.go`` ``getObjsFromYAMLOrJSON`` decodes a ``.json``
file with Go's ``encoding/json``, and any other file with ``splitYAMLOrJSON``: k8s.io/apimachinery
``pkg/util/yaml`` ``NewYAMLOrJSONDecoder(reader, 4096)`` decodes a stream whose first non-space
character is ``{`` with Go's ``encoding/json`` (``GuessJSONStream``), the rest with sigs.k8s.io/yaml.
A file its reader stops on before any object, lacking ``apiVersion:``, ``kind:`` or ``metadata:`` as
written, is passed over as "an unrelated YAML file": hooklint does so only when it is sure Argo CD's
reader stops there too.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.loader import go_json_surrogates, json_stream_end, parse_text

runner = CliRunner()

# Python's json.dumps of a privileged PreSync Job whose annotation holds an emoji (ensure_ascii):
# "\ud83d\ude00" is the surrogate pair Go's encoding/json decodes and libyaml refuses
# (attack7 fixtures surrogate/app/job.yaml and jsonsurr/job.json).
EMOJI_JOB = (
    '{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "evil", "annotations": '
    '{"argocd.argoproj.io/hook": "PreSync", "argocd.argoproj.io/hook-delete-policy": "BeforeHookCreation", '
    '"note": "\\ud83d\\ude00 ok"}}, "spec": {"backoffLimit": 1, "activeDeadlineSeconds": 100, "template": '
    '{"spec": {"restartPolicy": "Never", "automountServiceAccountToken": false, "serviceAccountName": "r", '
    '"hostPID": true, "containers": [{"name": "c", "image": "registry.example.com/x@sha256:'
    + "0" * 64 + '", "securityContext": {"privileged": true}}]}}}}\n'
)
HOSTPID = ("HL105", 1, 401, "Job/evil sets hostPID: true: a PreSync hook runs on every sync and then controls "
           "the node, not just its pod. Remove it, or do this work outside the cluster's workloads.")  # fmt: skip
PRIVILEGED = ("HL105", 1, 577, "The container 'c' of Job/evil is privileged: a PreSync hook runs on every sync "
              "and then controls the node, not just its pod. Remove it, or do this work outside the cluster's "
              "workloads.")  # fmt: skip


def _lint(tmp_path, monkeypatch, files: dict[str, str], *args: str) -> tuple[int, dict]:
    monkeypatch.chdir(tmp_path)
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["lint", "-f", "json", *args, "app"])
    return result.exit_code, json.loads(result.stdout)


def _found(doc: dict, rule: str | None = None) -> list[tuple]:
    return [(f["rule_id"], f["line"], f["column"], f["message"]) for f in doc["findings"]
            if rule is None or f["rule_id"] == rule]  # fmt: skip


@pytest.mark.parametrize("name", ["app/job.yaml", "app/job.yml", "app/job.json"])
def test_json_with_a_surrogate_pair_is_decoded_and_linted_in_every_manifest_file(tmp_path, monkeypatch, name):
    """F4 trigger A: the .yaml file was skipped whole as unrelated YAML (no literal ``kind:``), exit 0;
    F10: the .json file was HL001 "found invalid Unicode character escape code". Go decodes the pair."""
    code, doc = _lint(tmp_path, monkeypatch, {name: EMOJI_JOB}, "--select", "HL001,HL105")
    assert (code, doc["skipped"], _found(doc)) == (1, [], [HOSTPID, PRIVILEGED])


def test_a_surrogate_pair_is_one_character_and_positions_after_it_stay_where_written():
    loaded = parse_text("job.yaml", EMOJI_JOB)
    [job] = loaded.documents
    assert (loaded.issues, job.value["metadata"]["annotations"]["note"]) == ([], "\U0001f600 ok")
    spec = job.value["spec"]["template"]["spec"]
    assert (spec.key_span("hostPID").line, spec.key_span("hostPID").column) == (1, 390)
    assert EMOJI_JOB[389:398] == '"hostPID"'


def test_go_json_surrogates_decodes_pairs_and_replaces_unpaired_ones():
    """Go's ``unquote``: a pair is one rune, a surrogate that pairs with nothing is U+FFFD, an escaped
    backslash is no escape; only ``text[:end]`` (the JSON values) is rewritten."""
    text = r'["s\ud800", "\ud83d\ude00", "\\ud800", "\\\udc00x", "\ud800\u0041", "\uD83D\uDE00"] "\ud83d\ude00"'
    assert go_json_surrogates(text, 83) == (
        r'["s\ufffd", "\U0001f600", "\\ud800", "\\\ufffdx", "\ufffd\u0041", "\U0001f600"] "\ud83d\ude00"', [23, 77])


@pytest.mark.parametrize(("text", "end"), [
    ('{"kind": "a"}\n---\nkind: b\n', 14),  # the YAML after the JSON value is go-yaml's
    ('  \n{"a": "}"}{"b": [1, {"c": 2}]}  \n{"d": 3}', 44),  # values one after another, to the last
    ('# a comment first\n{"a": 1}\n', 0),  # a stream opening with '#' is YAML throughout
    ('---\n{"a": 1}\n', 0),
    ('\ufeff{"a": 1', 8),  # unclosed: to the end
    (" " * 4096 + '{"a": 1}', 0),  # GuessJSONStream peeks at 4,096 bytes
])  # fmt: skip
def test_json_stream_end_is_where_go_stops_reading_json(text, end):
    assert json_stream_end(text) == end


def test_a_surrogate_pair_in_yaml_stays_an_error_as_go_yaml_refuses_it(tmp_path, monkeypatch):
    """Only Go's JSON reader takes the escape: in a YAML document after the JSON one it is HL001."""
    text = EMOJI_JOB + '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  k: "\\ud83d\\ude00"\n'
    code, doc = _lint(tmp_path, monkeypatch, {"app/job.yaml": text}, "--select", "HL001,HL105")
    assert (code, _found(doc)) == (1, [HOSTPID, PRIVILEGED, (
        "HL001", 8, 9, "YAML syntax error: found invalid Unicode character escape code (while parsing a quoted "
        "scalar). Argo CD cannot render this document, so the whole application fails to sync; fix the YAML.")])
