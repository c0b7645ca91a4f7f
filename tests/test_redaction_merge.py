"""Secrets that go-yaml v2 sees through a YAML merge key (attack 11 item 6, issue 32): ``<<: {kind:
Secret}`` makes a Secret for Argo CD, kustomize and ``kubectl`` as ``kind: Secret`` does, and ``<<:
{name: DB_PASSWORD}`` a named secret; every place that decides what a secret value is reads the
mapping so (:func:`hooklint.yamlio.written_pairs`)."""

from __future__ import annotations

import re
import subprocess
import textwrap

import pytest
import yaml
from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.sources.render import redact
from hooklint.sources.render.kustomize import find_kustomize
from hooklint.yamlio import BoundedLoader, Unreadable, go_pairs, written_pairs

runner = CliRunner()
needs_kustomize = pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """An empty repository (a folder with .git) as the current directory, without a cache."""
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(root, files: dict[str, str]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(content), encoding="utf-8")


# --- the mapping as go-yaml v2 reads it -------------------------------------------------------


def composed(text: str) -> yaml.MappingNode:
    node = yaml.compose(text, Loader=BoundedLoader)
    assert isinstance(node, yaml.MappingNode)
    return node


def test_go_pairs_apply_merge_keys_in_go_yaml_v2s_order():
    # a merge writes its mapping where it stands: a later key replaces it, and it replaces an
    # earlier one (go-yaml v2 decode.go mapping/merge); a list of mappings is written last first
    node = composed("a: 1\n<<: {a: 2, b: 2}\nb: 3\n<<: [{c: first}, {c: second}]\n")
    assert {k: v.value for k, (_, v) in go_pairs(node).items()} == {"a": "2", "b": "3", "c": "first"}
    # an alias to a mapping, and a mapping merged into itself (written once)
    # (BoundedLoader refuses such a document; PyYAML's own composer makes it)
    node = yaml.compose("x: &base {kind: Secret}\ny: &self {<<: [*base, *self], name: n}\n", Loader=yaml.SafeLoader)
    inner = node.value[1][1]
    assert {k: v.value for k, (_, v) in go_pairs(inner).items()} == {"kind": "Secret", "name": "n"}
    # a quoted "<<" is a key, no merge key
    assert list(go_pairs(composed('"<<": {kind: Secret}\n'))) == ["<<"]
    # a merge value that is no mapping: go-yaml fails; the lenient walk keeps the pair
    with pytest.raises(Unreadable, match="map merge requires map"):
        list(written_pairs(composed("<<: 5\n")))
    assert [k.value for k, _ in written_pairs(composed("<<: 5\n"), strict=False)] == ["<<"]


MERGED_SECRET = """\
apiVersion: v1
<<: {kind: Secret}
metadata:
  name: creds
  annotations:
    argocd.argoproj.io/sync-wave: -2
stringData:
  blob: Merged-Blob-Value-7781
---
apiVersion: batch/v1
kind: Job
metadata:
  name: seed
  annotations:
    argocd.argoproj.io/sync-wave: ~
spec:
  template: {spec: {restartPolicy: Never, containers: [{name: x, env: [{<<: {name: API_TOKEN}, value: merged-env-value-55}]}]}}
"""


def test_secret_lines_of_a_secret_and_a_named_secret_through_merge_keys():
    assert sorted(redact.secret_lines(MERGED_SECRET)) == [7, 16]
    # through aliases: the kind, the stringData mapping and an env entry's name
    text = ("apiVersion: v1\nx: &k {kind: Secret}\n<<: *k\nstringData: &d\n  one: alias-secret-1234\n---\n"
            "env:\n- &n {name: DB_PASSWORD}\n- {<<: *n, value: alias-env-secret-99}\n- {name: LEVEL, value: info}\n")
    assert sorted(redact.secret_lines(text)) == [4, 8]


def test_secret_values_of_a_merged_secret_are_secrets_not_public(tmp_path):
    (tmp_path / "s.yaml").write_text(MERGED_SECRET)
    found = redact.secret_values([str(tmp_path / "s.yaml")], str(tmp_path))
    kept = found.kept()
    assert kept["Merged-Blob-Value-7781"] == "blob"
    assert kept["merged-env-value-55"] == "API_TOKEN"


def test_a_secret_generator_kustomize_reads_through_a_merge_key_is_read(tmp_path):
    # go-yaml v2 (kustomize) writes the merge where it stands: it replaces the secretGenerator
    # before it, which PyYAML's constructor keeps; the literal's value alone is a secret either way
    (tmp_path / "kustomization.yaml").write_text(
        "secretGenerator:\n- name: plain\n  literals: [LEVEL=info]\n"
        "<<:\n  secretGenerator:\n  - name: db\n    literals: [DB_PASSWORD=kustomize-merged-literal]\n")
    kept = redact.secret_values([str(tmp_path / "kustomization.yaml")], str(tmp_path)).kept()
    assert kept["kustomize-merged-literal"] == "DB_PASSWORD"


def test_a_named_secrets_value_in_an_object_is_never_public():
    # an env entry {name: API_TOKEN, value: ...} (its mapping as the manifest reader gives it, merge
    # keys applied) writes no value where nothing is secret: the same value in a Secret stays hidden
    found = redact.object_secrets([{"kind": "Secret", "stringData": {"token": "shared-token-value-1"}}])
    env = {"kind": "Job", "spec": {"env": [{"name": "API_TOKEN", "value": "shared-token-value-1"},
                                           {"name": "LEVEL", "value": "verbose-level"}]}}  # fmt: skip
    redact.public_of_objects([env], found)
    assert "shared-token-value-1" not in found.public and "verbose-level" in found.public
    assert found.kept() == {"shared-token-value-1": "token"}


# --- hooklint fix --diff ----------------------------------------------------------------------


def test_fix_diff_never_shows_a_merged_secrets_data_or_a_merged_named_secret_as_context(repo):
    write(repo, {"app/all.yaml": MERGED_SECRET})
    result = runner.invoke(app, ["fix", "--diff", "app"])
    assert result.stdout == (
        "--- a/app/all.yaml\n"
        "+++ b/app/all.yaml\n"
        "@@ -5,3 +5,3 @@\n"  # the context stops before stringData's value
        "   annotations:\n"
        "-    argocd.argoproj.io/sync-wave: -2\n"
        '+    argocd.argoproj.io/sync-wave: "-2"\n'
        " stringData:\n"
        "@@ -14,3 +14,3 @@\n"  # and before the env line whose name, merged, names a secret
        "   annotations:\n"
        "-    argocd.argoproj.io/sync-wave: ~\n"
        '+    argocd.argoproj.io/sync-wave: ""\n'
        " spec:\n"
    )
    patched = subprocess.run(["patch", "-p1", "-s", "--dry-run"], cwd=repo, input=result.stdout, text=True,
                             capture_output=True, check=False)  # fmt: skip
    assert patched.returncode == 0, patched.stdout + patched.stderr


# --- a renderer's message, in every format ----------------------------------------------------

KUSTOMIZE_APP = {
    "app/kustomization.yaml": """\
        resources: [objects.yaml]
        replacements:
        - source: {kind: Secret, name: creds, fieldPath: stringData.blob, options: {delimiter: "-", index: 9}}
          targets:
          - select: {kind: ConfigMap, name: settings}
            fieldPaths: [data.level]
        """,
    "app/objects.yaml": """\
        apiVersion: v1
        metadata: {name: creds}
        <<: &secret {kind: Secret}
        stringData:
          blob: Merged-Blob-Value-7781
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: settings}
        data: {level: info}
        """,
}

SAID = "options.index 9 is out of bounds for value [the value of `blob`]."


@needs_kustomize
@pytest.mark.parametrize(("fmt", "said"), [
    ("text", SAID), ("json", SAID), ("sarif", SAID), ("github", SAID),
    ("markdown", SAID.replace("[", "\\[").replace("]", "\\]").replace("`", "\\`")),
])  # fmt: skip
def test_a_renderer_message_quoting_a_merged_secrets_value_is_redacted_in_every_format(repo, fmt, said):
    write(repo, KUSTOMIZE_APP)
    result = runner.invoke(app, ["lint", "--format", fmt, "app"])
    assert result.exit_code == 1, result.output
    assert "Merged-Blob-Value" not in result.output and "7781" not in result.output
    assert said in result.output
    assert len(re.findall("HL007", result.output)) >= 1
