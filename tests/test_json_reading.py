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
    ('\ufeff{"a": 1', 0),  # unclosed: Go's reader refuses it
    ('{"a": 1}\n{{ .Values.x }}\n', 9),  # Go's reader stops at the second: YAML from there
    ('{"a": ' + "[" * 2000 + "]" * 2000 + "}", 4007),  # deeper than Python's reader goes
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


def _job(name: str, **annotations: str) -> dict:
    job = json.loads(EMOJI_JOB)
    job["metadata"]["name"] = name
    del job["metadata"]["annotations"]["note"]
    job["metadata"]["annotations"].update(annotations)
    return job


# JSON Go's encoding/json reads and libyaml refuses: each was passed over as unrelated YAML in a .yaml
# file without a literal "kind:" (exit 0), or HL001 with its hook unchecked in a .json file.
@pytest.mark.parametrize(("name", "text"), [
    ("app/nl.yaml", json.dumps(_job("evil")).replace('"kind": "Job"', '"kind"\n: "Job"')),
    ("app/del.yml", json.dumps(_job("evil", note="x\x7fy"), ensure_ascii=False)),
    ("app/nonchar.yaml", json.dumps(_job("evil", note="x\ufffey"), ensure_ascii=False)),
    ("app/long.json", json.dumps(_job("evil", **{"k" * 1100: "v"}))),
])  # fmt: skip
def test_json_libyaml_refuses_and_go_reads_is_linted(tmp_path, monkeypatch, name, text):
    """A line break before ':', a raw DEL or U+FFFE, a key past libyaml's 1,024 characters."""
    code, doc = _lint(tmp_path, monkeypatch, {name: text}, "--select", "HL001,HL105")
    line = text.count("\n") + 1  # each case puts its line break before the pod spec
    hostpid = text.index('"hostPID": true') + len('"hostPID": ') - text.rfind("\n") - 1 + 1
    privileged = text.index('"privileged": true') + len('"privileged": ') - text.rfind("\n") - 1 + 1
    assert (code, doc["skipped"], [(f[0], f[1], f[2]) for f in _found(doc)]) == (
        1, [], [("HL105", line, hostpid), ("HL105", line, privileged)])


def test_a_list_nested_past_hooklints_limit_is_linted_and_reported(tmp_path, monkeypatch):
    """F4 trigger B: Argo CD reads 10,000 levels (Go's encoding/json), expands the List's items
    (IsList) and applies the hook; hooklint skipped the file as unrelated YAML (exit 0)."""
    job = _job("evil")
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": [job]})[:-1]
    text += ', "x": ' + "[" * 120 + "]" * 120 + "}"
    code, doc = _lint(tmp_path, monkeypatch, {"app/hooks.yaml": text}, "--select", "HL001,HL105")
    assert (code, doc["skipped"]) == (1, [])
    hostpid, privileged, deep = (text.index('"hostPID": true') + 12, text.index('"privileged": true') + 15,
                                 text.index("[" * 120) + 100)  # fmt: skip  (the 100th bracket, in the root mapping)
    assert (hostpid, privileged, deep) == (421, 597, 715)
    assert _found(doc) == [
        ("HL105", 1, 421, HOSTPID[3]), ("HL105", 1, 597, PRIVILEGED[3]),
        ("HL001", 1, 715, "Document cannot be read safely: document is nested more than 100 levels deep; Argo CD "
                          "reads it (Go's JSON reader goes 10,000 levels deep) and hooklint checks it without what "
                          "lies deeper. Simplify the document.")]  # fmt: skip


MAYBE = ("The file lacks apiVersion:, kind: or metadata: as written, so Argo CD passes over it as unrelated YAML "
         "if its own reader (Go's JSON reader for a file opening with '{', go-yaml otherwise) fails here too; it "
         "may not, and then applies objects hooklint cannot check, so the file is not skipped. Fix the YAML.")


# The unrelated-YAML pass fails closed: a file hooklint cannot read that may hold an object in any
# spelling is reported, never passed over (Argo CD's own test is the literal apiVersion:, kind:, metadata:).
@pytest.mark.parametrize(("text", "where"), [
    ('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"a": [}}\n', (1, 85)),  # JSON
    ("kind : ConfigMap\nmetadata :\n  name: a\ndata: [x\n", (4, 7)),  # spaces before the colon
    ("'kind': ConfigMap\n'metadata': {name: a}\ndata: {a: 1\n", (3, 7)),  # quoted keys
    ("{apiVersion: v1, kind: ConfigMap, data: {a: [}}\n", (1, 46)),  # flow mapping
    ("!!str apiVersion: v1\n? kind\n: ConfigMap\nmetadata: &m {name: a}\ndata: *n\n", (5, 7)),  # tags, anchors
    ('"\\x6bind": ConfigMap\nx: [\n', (2, 4)),  # an escape spelling the word
])  # fmt: skip
def test_a_file_hooklint_cannot_read_that_may_hold_an_object_is_reported_not_passed_over(tmp_path, monkeypatch, text,
                                                                                          where):
    code, doc = _lint(tmp_path, monkeypatch, {"app/x.yaml": text}, "--select", "HL001")
    [(rule, line, column, message)] = _found(doc)
    assert (code, doc["skipped"], rule, (line, column)) == (1, [], "HL001", where)
    assert message.startswith("YAML syntax error: ") and message.endswith(MAYBE)


@pytest.mark.parametrize("text", [
    "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps: [{run: make}]\n",  # read: no kind
    "image:\n  repository: nginx\n  tag: 1.27\nresources: {}\n",  # Helm values
    "steps: [make\n",  # broken, with no sign of a kind key
])  # fmt: skip
def test_non_kubernetes_yaml_is_still_passed_over_quietly(tmp_path, monkeypatch, text):
    files = {"app/x.yaml": text, "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"}
    code, doc = _lint(tmp_path, monkeypatch, files)
    assert (code, [s["path"] for s in doc["skipped"]], doc["findings"]) == (0, ["app/x.yaml"], [])


def test_a_yaml_list_nested_past_hooklints_limit_is_linted_and_reported(tmp_path, monkeypatch):
    """go-yaml reads 10,000 levels (gopkg.in/yaml.v2 v2.4.0 scannerc.go max_flow_level, max_indents):
    a List without the literal markers whose first document is deep was passed over as unrelated YAML."""
    job = "\n".join("    " + line for line in BLOCK_JOB.splitlines())
    text = "apiVersion : v1\nkind : List\nitems:\n  -\n" + job + "\nx: " + "[" * 120 + "]" * 120 + "\n"
    code, doc = _lint(tmp_path, monkeypatch, {"app/x.yaml": text}, "--select", "HL001,HL105")
    assert (code, doc["skipped"], [(f[0], f[1], f[2], f[3][:91]) for f in _found(doc)]) == (1, [], [
        ("HL105", 20, 20, HOSTPID[3][:91]), ("HL105", 25, 27, PRIVILEGED[3][:91]),
        ("HL001", 26, 103, "Document cannot be read safely: document is nested more than 100 levels deep; Argo CD reads")])
    assert _found(doc, "HL001")[0][3].endswith("(go-yaml goes 10,000 levels deep) and hooklint checks it without what "
                                               "lies deeper. Simplify the document.")


BLOCK_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: evil
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 100
  template:
    spec:
      restartPolicy: Never
      automountServiceAccountToken: false
      serviceAccountName: r
      hostPID: true
      containers:
      - name: c
        image: registry.example.com/x@sha256:""" + "0" * 64 + """
        securityContext:
          privileged: true"""


@pytest.mark.parametrize(("text", "found"), [
    # a Helm template opens with '{': Go's JSON reader refuses it at once and go-yaml reads the whole file
    ('{{- /*\nc\n*/}}\n\n{{- if .Values.x }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.n }}\n',
     [("HL001", 1, 3)]),
    # YAML flow mappings opening the file: not JSON, read as YAML throughout
    ("{kind: ConfigMap, apiVersion: v1, metadata: {name: a}}\n{kind: Secret}\n", [("HL001", 2, 1)]),
])  # fmt: skip
def test_a_file_opening_with_a_brace_go_does_not_read_as_json_is_yaml_throughout(tmp_path, monkeypatch, text, found):
    code, doc = _lint(tmp_path, monkeypatch, {"app/x.yaml": text}, "--select", "HL001")
    assert (code, [(f[0], f[1], f[2]) for f in _found(doc)]) == (1, found)


def test_a_control_character_go_refuses_too_is_hl001_where_it_is(tmp_path, monkeypatch):
    """A raw U+0001 in a JSON string: Go's reader refuses it as libyaml does; HL001 points at it."""
    text = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": "x\x01"}}\n'
    code, doc = _lint(tmp_path, monkeypatch, {"app/cm.json": text}, "--select", "HL001")
    assert (code, _found(doc)) == (1, [("HL001", 1, 86, "JSON syntax error: character U+0001 is not allowed in YAML "
                                        "(control characters and unpaired surrogates are refused by Kubernetes' YAML "
                                        "reader too). Argo CD cannot render this document, so the whole application "
                                        "fails to sync; fix the JSON.")])  # fmt: skip


# --- what follows a .json file's one object (attack13 jtrail) ---------------------------------------
# Argo CD reposerver/repository/repository.go getObjsFromYAMLOrJSON (v2.5.0 on, and the 2.4.1, 2.3.5,
# 2.2.10, 2.1.16 patches) decodes one value with json.NewDecoder, then fails only when decoder.More()
# is true; Go's Decoder.More (encoding/json stream.go) skips space, tab, CR and LF and is false at the
# end and before ']' or '}'. Before, json.Unmarshal refuses anything but whitespace after the value.
PRIVILEGED_JOB = (
    '{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "annotations": {"argocd.argoproj.io/hook": '
    '"PreSync", "argocd.argoproj.io/hook-delete-policy": "BeforeHookCreation"}}, "spec": {"backoffLimit": 0, '
    '"activeDeadlineSeconds": 60, "template": {"spec": {"restartPolicy": "Never", "serviceAccountName": "sa", '
    '"automountServiceAccountToken": false, "containers": [{"name": "c", "image": "busybox:1.36", '
    '"securityContext": {"privileged": true}}]}}}}'
)
JOB_PRIVILEGED = ("HL105", 1, 448, "The container 'c' of Job/j is privileged: a PreSync hook runs on every sync and "
                  "then controls the node, not just its pod. Remove it, or do this work outside the cluster's "
                  "workloads.")  # fmt: skip
_MULTIPLE = ("after the first object: Argo CD reads one object per .json file (\"Found multiple objects ... Only "
             "single objects are allowed in JSON files\"). Argo CD cannot render this document, so the whole "
             "application fails to sync; fix the JSON.")  # fmt: skip


@pytest.mark.parametrize("after", [
    "\n] garbage {{ not json",  # the attacker's file: More() is false before ']'
    "\n}",
    " \t\r\n}\x0c anything after the closer is never read",
    "]{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"hidden\"}}",
    "\n \t",
])  # fmt: skip
def test_a_closer_or_whitespace_after_a_json_object_is_read_past_as_argo_cd_does(tmp_path, monkeypatch, after):
    """It was HL001 "JSON syntax error" at the ']' while Argo CD applies the Job: the Job is checked and
    nothing else is reported (the ConfigMap after ']' is never read by Argo CD, nor by hooklint)."""
    code, doc = _lint(tmp_path, monkeypatch, {"app/job.json": PRIVILEGED_JOB + after}, "--select", "HL001,HL105")
    assert (code, _found(doc)) == (1, [JOB_PRIVILEGED])


@pytest.mark.parametrize(("after", "line", "column", "what"), [
    ("\n# a comment", 2, 1, "'#'"),  # YAML reads a comment; Go's More() is true
    ("\n---\n{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"b\"}}", 2, 1, "'-'"),
    ("\x0c", 1, 459, "'\\x0c'"),  # form feed: not encoding/json whitespace
    ("\n\u00a0", 2, 1, "'\\xa0'"),
    (" {\"kind\": \"ConfigMap\"}", 1, 460, "a second JSON value"),
    ("\nnull", 2, 1, "'n'"),
    ("\n[]", 2, 1, "a second JSON value"),
])  # fmt: skip
def test_anything_else_after_a_json_object_is_hl001_where_it_is(tmp_path, monkeypatch, after, line, column, what):
    """Go's More() is true: Argo CD fails "Found multiple objects"; the object itself is still checked."""
    code, doc = _lint(tmp_path, monkeypatch, {"app/job.json": PRIVILEGED_JOB + after}, "--select", "HL001,HL105")
    expected = ("HL001", line, column, f"JSON syntax error: {what} {_MULTIPLE}")
    assert (code, _found(doc)) == (1, [JOB_PRIVILEGED, expected])


@pytest.mark.parametrize(("version", "found"), [
    ("2.3.4", True), ("2.3.5", False), ("2.4.0", True), ("2.4.1", False), ("2.1.15", True), ("2.1.16", False),
    ("2.2.9", True), ("2.2.10", False), ("2.5.0", False), ("2.0.5", True), ("3.5.1", False),
])  # fmt: skip
def test_a_closer_after_a_json_object_fails_the_releases_that_read_it_with_json_unmarshal(tmp_path, monkeypatch,
                                                                                           version, found):
    """Before GHSA-jhqp-vf4w-rpwq (f9c3319: v2.5.0, backported to 2.4.1, 2.3.5, 2.2.10, 2.1.16) Argo CD
    read a .json file with json.Unmarshal: "invalid character ']' after top-level value"."""
    files = {"app/job.json": PRIVILEGED_JOB + "\n] garbage", ".hooklint.yaml": f'argocd-version: "{version}"\n'}
    code, doc = _lint(tmp_path, monkeypatch, files, "--select", "HL001,HL105")
    expected = [JOB_PRIVILEGED]
    if found:
        expected.append(("HL001", 2, 1, f"JSON syntax error: ']' after the first object: Argo CD {version} reads a "
                         ".json file with json.Unmarshal, which refuses anything but whitespace after the value (from "
                         "2.5.0, 2.4.1, 2.3.5, 2.2.10, 2.1.16, Argo CD reads one value and stops at ']' or '}'). Argo "
                         "CD cannot render this document, so the whole application fails to sync; remove what follows "
                         "the object."))  # fmt: skip
    assert (code, _found(doc)) == (1, expected)


@pytest.mark.parametrize(("text", "line", "column", "what"), [
    ("null\n", 1, 1, "null"), ("  \n null \n] after", 2, 2, "null"), ('"x"', 1, 1, "a string"),
])  # fmt: skip
def test_a_json_file_holding_null_or_a_scalar_is_hl003_where_it_is(tmp_path, monkeypatch, text, line, column, what):
    """``null`` was an internal error (HL007 "hooklint failed on this application": its document had
    no position). Argo CD fails on it: v3.1.0's OCI fallback takes null, but the object it keeps has
    no kind and the controller refuses it (``UnmarshalToUnstructured``); before, decoding fails."""
    code, doc = _lint(tmp_path, monkeypatch, {"app/x.json": text}, "--select", "HL001,HL003,HL007")
    assert (code, _found(doc)) == (1, [("HL003", line, column, f"Document is {what}, not a Kubernetes object: Argo CD "
                                        "fails to sync an application with a manifest it cannot decode. Make it an "
                                        "object with apiVersion, kind and metadata, or move it out of the "
                                        "application's path.")])  # fmt: skip


# --- a .json object with no kind (reposerver/repository/repository.go getObjsFromYAMLOrJSON) --------
# Decoding into unstructured.Unstructured fails ("Object 'Kind' is missing"); from v3.1.0 (PR #18646,
# 18c4d9d) Argo CD then decodes the file into imagev1.Manifest and, when that succeeds, keeps the
# object: GenerateManifests applies a list's items (IsList) and passes a null list over (isNullList).
CM_ITEM = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}'
_NO_KIND_FIX = 'Add "apiVersion": "v1" and "kind": "List".'


@pytest.mark.parametrize("text", [
    '{"items": [%s]}' % CM_ITEM,
    '{"items": null}',
    '{"kind": "", "items": []}',
    '{"schemaVersion": 2, "mediaType": "x", "config": {"size": 1, "data": "aGk=", "platform": null}, '
    '"layers": [{"data": [0, 255]}], "annotations": {"a": "b"}, "Kind": "List", "items": []}',
])  # fmt: skip
def test_a_kindless_json_list_argo_cd_keeps_as_an_oci_manifest_is_quiet(tmp_path, monkeypatch, text):
    code, doc = _lint(tmp_path, monkeypatch, {"app/x.json": text}, "--select", "HL001,HL003")
    assert (code, _found(doc)) == (0, [])


@pytest.mark.parametrize(("text", "column", "why"), [
    ('{"mediaType": 5, "items": [%s]}' % CM_ITEM, 18, "mediaType is a number, not a string"),
    ('{"SCHEMAVERSION": 1.0, "items": null}', 24, "SCHEMAVERSION is a number, not an integer"),
    ('{"\u017fchemaVersion": "2", "items": null}', 24, "\u017fchemaVersion is a string, not an integer"),
    ('{"layers": {}, "items": []}', 16, "layers is an object, not an array"),
    ('{"config": {"data": "!"}, "items": []}', 27, "config.data is not base64"),
    ('{"subject": {"platform": {"os.features": [1]}}, "items": []}', 49,
     "subject.platform.os.features[0] is a number, not a string"),
])  # fmt: skip
def test_a_kindless_json_list_that_is_no_oci_manifest_fails_argo_cd_and_is_hl003(tmp_path, monkeypatch, text, column,
                                                                                  why):
    """Argo CD returns "Failed to unmarshal": nothing of the application is applied. Its items are still checked."""
    code, doc = _lint(tmp_path, monkeypatch, {"app/x.json": text}, "--select", "HL001,HL003")
    assert (code, _found(doc)) == (1, [("HL003", 1, column, "This .json object has no kind, and Argo CD's second "
                                        f"reading of it, as an OCI image manifest, fails too ({why}): Argo CD does "
                                        "not apply its items, and the whole application fails to sync. "
                                        + _NO_KIND_FIX)])  # fmt: skip


@pytest.mark.parametrize(("version", "found"), [("3.0.23", True), ("2.14", True), ("3.1.0", False), ("3.5.1", False)])
def test_a_kindless_json_list_fails_before_argo_cd_3_1(tmp_path, monkeypatch, version, found):
    files = {"app/x.json": '{"items": [%s]}' % CM_ITEM, ".hooklint.yaml": f'argocd-version: "{version}"\n'}
    code, doc = _lint(tmp_path, monkeypatch, files, "--select", "HL001,HL003")
    full = {"2.14": "2.14.21"}.get(version, version)
    expected = [("HL003", 1, 2, f"This .json object has no kind: Argo CD {full} decodes a .json file into one "
                 "Kubernetes object and fails (\"Object 'Kind' is missing\"), so the whole application fails to sync "
                 "(from 3.1.0, Argo CD then reads the file as an OCI image manifest and keeps the object, applying its "
                 "items). " + _NO_KIND_FIX)] if found else []  # fmt: skip
    assert (code, _found(doc)) == (int(found), expected)


_GO_REFUSES = "the JSON reader Argo CD reads a .json file with"


@pytest.mark.parametrize(("text", "line", "column", "why"), [
    ('# a comment\n' + CM_ITEM, 1, 1, "Go's JSON reader, which Argo CD reads a .json file with, refuses this "
     "(Expecting value)"),
    ('---\n' + CM_ITEM, 1, 1, "Go's JSON reader, which Argo CD reads a .json file with, refuses this "
     "(Expecting value)"),
    ('{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}', 1, 2, "Go's JSON reader, which Argo CD reads a .json "
     "file with, refuses this (Expecting property name enclosed in double quotes)"),
    (CM_ITEM[:-1] + ', "x": 1e400}', 1, 1, f"Go's encoding/json refuses 1e400, {_GO_REFUSES}"),
    (CM_ITEM[:-1] + ', "x": 1%s}' % ("0" * 309), 1, 1, f"Go's encoding/json refuses 1{'0' * 309}, {_GO_REFUSES}"),
    ("", 1, 1, "the file holds no JSON value, and Argo CD reads one object from a .json file (Go: EOF)"),
    ("\n \n", 3, 1, "the file holds no JSON value, and Argo CD reads one object from a .json file (Go: EOF)"),
])  # fmt: skip
def test_json_libyaml_reads_and_go_refuses_is_hl001(tmp_path, monkeypatch, text, line, column, why):
    """libyaml reads these (a comment, a document marker, a YAML flow mapping, a float out of range, an
    empty file) and hooklint said nothing; Argo CD fails "Failed to unmarshal" on them."""
    code, doc = _lint(tmp_path, monkeypatch, {"app/x.json": text}, "--select", "HL001")
    assert (code, _found(doc)) == (1, [("HL001", line, column, f"JSON syntax error: {why}. Argo CD cannot render "
                                        "this document, so the whole application fails to sync; fix the "
                                        "JSON.")])  # fmt: skip
