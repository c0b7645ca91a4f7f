"""Hostile and broken input: every case ends in a finding or a one-line input error naming the file,
in bounded time and memory, and the rest of the run goes on.

Files here contain ``apiVersion:``, ``kind:`` and ``metadata:`` where they should be linted: Argo CD
(and so hooklint) ignores YAML files that do not look like manifests.
"""

from __future__ import annotations

import codecs
import errno
import json
import os
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

import hooklint.sources.appmap.discovery as discovery
from hooklint.catalog import load_catalog
from hooklint.config import Config
from hooklint.pipeline import lint_paths, lint_text
from hooklint.findings import RunResult
from hooklint.loader import parse_text, read_file
from hooklint.yamlio import MAX_DEPTH, go_resolve_plain
from tests.manifests import CONFIGMAP, LATEST_TAG_HOOK

ROOT = Path(__file__).resolve().parents[1]

#: LATEST_TAG_HOOK's one finding: HL102 on the image (line 17, column 18).
WITNESS = ("HL102", 17, 18)
MANIFEST_HEAD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hostile\ndata:\n"




CATALOG = load_catalog()


def lint(*paths, config: Config | None = None) -> RunResult:
    return lint_paths([str(p) for p in paths], config or Config(), CATALOG, jobs=1)


def where(result_or_findings, rule_id: str | None = None) -> list[tuple[str, int, int]]:
    findings = result_or_findings.findings if isinstance(result_or_findings, RunResult) else result_or_findings
    return [(f.rule_id, f.span.line, f.span.column) for f in findings if rule_id in (None, f.rule_id)]


def errors_of(result: RunResult) -> dict[str, str]:
    return {os.path.basename(e.path): e.message for e in result.errors}


@pytest.fixture
def app(tmp_path):
    """An application folder with one good hook (the witness that the run goes on)."""
    folder = tmp_path / "app"
    folder.mkdir()
    (folder / "hook.yaml").write_text(LATEST_TAG_HOOK)
    (folder / "settings.yaml").write_text(CONFIGMAP)
    return folder


def bounded(fn, seconds: float = 10.0, megabytes: float | None = 64.0):
    """Run ``fn`` and check it stays within ``seconds`` and ``megabytes`` of Python allocations
    (traced with tracemalloc, which slows allocation-heavy code: None skips it)."""
    if megabytes is not None:
        tracemalloc.start()
    start = time.perf_counter()
    try:
        out = fn()
        elapsed = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1] / 1e6 if megabytes is not None else 0.0
    finally:
        if megabytes is not None:
            tracemalloc.stop()
    assert elapsed < seconds, f"took {elapsed:.1f} s"
    assert megabytes is None or peak < megabytes, f"allocated {peak:.0f} MB"
    return out


# --- alias bombs and deep nesting -------------------------------------------------------------


def billion_laughs(levels: int = 9) -> str:
    lines = [MANIFEST_HEAD.rstrip("\n"), '  a0: &a0 "lol"']
    for i in range(1, levels + 1):
        lines.append(f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    return "\n".join(lines) + "\n"


def merge_bomb(levels: int = 12) -> str:
    lines = [MANIFEST_HEAD.rstrip("\n"), "  m0: &m0 {k0: 0, k1: 1, k2: 2, k3: 3, k4: 4, k5: 5, k6: 6, k7: 7}"]
    for i in range(1, levels + 1):
        lines.append(f"  m{i}: &m{i}\n    <<: [" + ", ".join([f"*m{i - 1}"] * 10) + f"]\n    own{i}: {i}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("text, line", [(billion_laughs(), 12), (merge_bomb(), 20)], ids=["billion-laughs", "merge-keys"])
def test_alias_bombs_are_bounded_and_reported(app, text, line):
    (app / "bomb.yaml").write_text(text + "---\n" + LATEST_TAG_HOOK)
    result = bounded(lambda: lint(app), seconds=10, megabytes=64)
    hl001 = [f for f in result.findings if f.rule_id == "HL001"]
    assert len(hl001) == 1 and hl001[0].path.endswith("bomb.yaml")
    assert "excessive aliasing" in hl001[0].message and hl001[0].span.line == line
    # the document after the bomb, and the other file, are still linted
    after = text.count("\n") + 1 + 17
    assert sorted(where(result, "HL102")) == sorted([("HL102", 17, 18), ("HL102", after, 18)])


def test_alias_to_itself_and_unknown_alias_are_syntax_errors():
    text = MANIFEST_HEAD + "  a: &a [1, *a]\n---\n" + MANIFEST_HEAD + "  b: *nowhere\n"
    found = lint_text(text, catalog=CATALOG)
    messages = [f.message for f in found if f.rule_id == "HL001"]
    assert len(messages) == 2
    assert "anchor 'a' value contains itself" in messages[0]
    assert "unknown anchor 'nowhere' referenced" in messages[1]


def test_anchor_redefinition_is_allowed_as_in_go_yaml():
    text = MANIFEST_HEAD + "  a: &x one\n  b: *x\n  c: &x two\n  d: *x\n"
    assert where(lint_text(text, catalog=CATALOG), "HL001") == []
    doc = parse_text("x.yaml", text).documents[0]
    assert doc.value["data"] == {"a": "one", "b": "one", "c": "two", "d": "two"}


DEEP = 100_000


@pytest.mark.parametrize(
    "body",
    [
        "  deep: " + "[" * DEEP + "]" * DEEP + "\n",  # flow sequences
        "  deep: " + "{a: " * DEEP + "1" + "}" * DEEP + "\n",  # flow mappings
        "".join("  " * (i + 1) + f"k{i}:\n" for i in range(3000)) + "  " * 3001 + "leaf: 1\n",  # block mappings
        "  deep:\n" + "".join("  " * (i + 2) + "-\n" for i in range(3000)) + "  " * 3002 + "- leaf\n",  # block sequences
        "  deep:\n    " + "- " * 5000 + "leaf\n",  # compact block sequences
    ],
    ids=["flow-seq", "flow-map", "block-map", "block-seq", "compact-seq"],
)
def test_deep_nesting_is_bounded_and_reported(app, body):
    (app / "deep.yaml").write_text(MANIFEST_HEAD + body + "---\n" + LATEST_TAG_HOOK)
    result = bounded(lambda: lint(app), seconds=10, megabytes=64)
    hl001 = [f for f in result.findings if f.rule_id == "HL001"]
    assert len(hl001) == 1, where(result)
    # libyaml's scanner stops flow nesting itself (at 1,000 levels) before hooklint's limit
    assert f"nested more than {MAX_DEPTH} levels" in hl001[0].message or "maximum nesting depth" in hl001[0].message
    assert ("HL102", 17, 18) in where(result) and len(where(result, "HL102")) == 2


def test_nesting_below_the_limit_is_read():
    text = MANIFEST_HEAD + "  deep: " + "[" * (MAX_DEPTH - 5) + "]" * (MAX_DEPTH - 5) + "\n"
    assert where(lint_text(text, catalog=CATALOG), "HL001") == []


# --- files too large, binary, badly encoded ---------------------------------------------------


def test_file_over_max_file_size_is_an_input_error_and_not_read(app, monkeypatch):
    (app / "big.yaml").write_text(MANIFEST_HEAD + "  x: " + "y" * 5000 + "\n")
    opened: dict[int, str] = {}
    read_from: list[str] = []
    real_open, real_read = os.open, os.read

    def opener(path, flags, *args, **kwargs):
        fd = real_open(path, flags, *args, **kwargs)
        opened[fd] = os.path.basename(path)
        return fd

    monkeypatch.setattr(os, "open", opener)
    monkeypatch.setattr(os, "read", lambda fd, n: read_from.append(opened.get(fd, "?")) or real_read(fd, n))
    result = lint(app, config=Config(max_file_size=4096))
    assert errors_of(result) == {"big.yaml": "larger than max-file-size (4,096 bytes); not linted"}
    assert where(result) == [WITNESS]
    assert "big.yaml" not in read_from  # refused from its size, never read


def test_default_max_file_size_through_the_cli(app):
    with open(app / "huge.yaml", "wb") as handle:  # sparse: 11 MB without writing them
        handle.truncate(11 * 1024 * 1024)
    proc = run_cli("lint", "-f", "json", str(app))
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [f"hooklint: error: {app / 'huge.yaml'}: larger than max-file-size (10,485,760 bytes); not linted"]
    assert [f["rule_id"] for f in json.loads(proc.stdout)["findings"]] == ["HL102"]


@pytest.mark.parametrize(
    "data, message",
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), "binary content (NUL byte at offset 8); not a manifest"),
        (LATEST_TAG_HOOK.encode().replace(b"PreSync", b"Pre\x00Sync"),
         f"binary content (NUL byte at offset {LATEST_TAG_HOOK.index('PreSync') + 3}); not a manifest"),
        (b"apiVersion: v1\nkind: \xff\xfeConfigMap\n", "not valid UTF-8 (byte 0xff at offset 21); save the file as UTF-8"),
        (b"apiVersion: v1\nkind: Caf\xc3", "not valid UTF-8 (byte 0xc3 at offset 24); save the file as UTF-8"),
        (codecs.BOM_UTF16_LE + "apiVersion: v1\n".encode("utf-16-le")[:-1], "invalid UTF-16 at byte 30"),
    ],
    ids=["png", "nul-in-text", "invalid-utf8", "truncated-utf8", "odd-utf16"],
)
def test_binary_and_badly_encoded_files_are_input_errors(app, data, message):
    (app / "bad.yaml").write_bytes(data)
    result = lint(app)
    assert errors_of(result) == {"bad.yaml": message}
    assert where(result) == [WITNESS]


@pytest.mark.parametrize(
    "encode",
    [
        lambda t: codecs.BOM_UTF8 + t.encode("utf-8"),
        lambda t: codecs.BOM_UTF16_LE + t.encode("utf-16-le"),
        lambda t: codecs.BOM_UTF16_BE + t.encode("utf-16-be"),
        lambda t: codecs.BOM_UTF32_LE + t.encode("utf-32-le"),
        lambda t: t.replace("\n", "\r\n").encode("utf-8"),
    ],
    ids=["utf8-bom", "utf16-le", "utf16-be", "utf32-le", "crlf"],
)
def test_other_encodings_are_decoded_and_positions_match_utf8(tmp_path, encode):
    text = LATEST_TAG_HOOK.replace("name: db-migrate", "name: db-migrate-é") + "---\n" + MANIFEST_HEAD + "  a: 1\n  a: 2\n"
    (tmp_path / "plain").mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "plain" / "m.yaml").write_bytes(text.encode("utf-8"))
    (tmp_path / "other" / "m.yaml").write_bytes(encode(text))
    plain, other = lint(tmp_path / "plain"), lint(tmp_path / "other")
    assert other.errors == []
    assert where(other) == where(plain)
    assert ("HL002", 25, 3) in where(other) and ("HL102", 17, 18) in where(other)


def test_control_characters_fail_only_their_document(app):
    text = MANIFEST_HEAD + "  bell: \"\x07\"\n---\n" + LATEST_TAG_HOOK
    (app / "bell.yaml").write_text(text)
    result = lint(app)
    hl001 = [f for f in result.findings if f.rule_id == "HL001"]
    assert [(f.span.line, f.span.column) for f in hl001] == [(6, 10)]
    assert "U+0007 is not allowed" in hl001[0].message
    assert len(where(result, "HL102")) == 2


def test_lone_surrogates_in_text_do_not_escape_lint_text():
    found = lint_text(MANIFEST_HEAD + "  s: \ud800\n", catalog=CATALOG)
    assert [(f.rule_id, f.span.line, f.span.column) for f in found] == [("HL001", 6, 6)]


# --- tags that would construct objects --------------------------------------------------------


def test_python_tags_are_never_executed_and_are_reported(tmp_path, app):
    marker = tmp_path / "pwned"
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n"
        f"  a: !!python/object/apply:os.system ['touch {marker}']\n"
        f"  b: !!python/object/apply:subprocess.check_call [['touch', '{marker}']]\n"
        f"  c: !!python/object/new:os.system ['touch {marker}']\n"
        "  d: !!python/name:os.system\n"
        "  e: !<tag:yaml.org,2002:python/object/apply:os.system> ['id']\n"
        "  f: !custom {x: 1}\n"
    )
    (app / "evil.yaml").write_text(text)
    result = lint(app)
    assert not marker.exists()
    assert where(result, "HL005") == [("HL005", 6, 6), ("HL005", 7, 6), ("HL005", 8, 6), ("HL005", 9, 6), ("HL005", 10, 6), ("HL005", 11, 6)]
    assert "python/object/apply:os.system" in result.findings[0].message or any(
        "python/object/apply:os.system" in f.message for f in result.findings
    )
    assert ("HL102", 17, 18) in where(result)
    assert not marker.exists()


# --- unreadable files and folders, links, paths that disappear -------------------------------


def test_file_whose_reading_fails_is_an_input_error(app, monkeypatch):
    (app / "locked.yaml").write_text(LATEST_TAG_HOOK)
    real_open = os.open

    def guarded(path, flags, *args, **kwargs):
        if str(path).endswith("locked.yaml"):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", guarded)
    result = lint(app)
    assert errors_of(result) == {"locked.yaml": "permission denied"}
    assert where(result) == [WITNESS]


def test_read_error_in_the_middle_of_a_file_is_an_input_error(app, monkeypatch):
    (app / "flaky.yaml").write_text(LATEST_TAG_HOOK)
    real_read = os.read
    state = {"fd": None}
    real_open = os.open

    def opener(path, flags, *args, **kwargs):
        fd = real_open(path, flags, *args, **kwargs)
        state["fd"] = fd if str(path).endswith("flaky.yaml") else None
        return fd

    def reader(fd, n):
        if fd == state["fd"]:
            raise OSError(errno.EIO, "Input/output error")
        return real_read(fd, n)

    monkeypatch.setattr(os, "open", opener)
    monkeypatch.setattr(os, "read", reader)
    result = lint(app)
    assert errors_of(result) == {"flaky.yaml": "Input/output error"}
    assert where(result) == [WITNESS]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads files whatever their mode")
def test_file_without_read_permission(app):
    locked = app / "locked.yaml"
    locked.write_text(LATEST_TAG_HOOK)
    locked.chmod(0)
    try:
        assert errors_of(lint(app)) == {"locked.yaml": "permission denied"}
    finally:
        locked.chmod(0o644)


def test_unreadable_folder_is_an_input_error_and_the_rest_is_linted(tmp_path, app, monkeypatch):
    hidden = tmp_path / "app" / "sub"
    hidden.mkdir()
    (hidden / "x.yaml").write_text(LATEST_TAG_HOOK)
    real_scandir = os.scandir

    def scandir(path="."):
        if os.fspath(path).endswith("sub"):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    result = lint(tmp_path)
    assert errors_of(result) == {"sub": "permission denied"}
    assert where(result) == [WITNESS]


def test_fifo_is_refused_without_blocking(tmp_path, app):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    os.mkfifo(app / "pipe.yaml")
    # through the CLI, with a timeout: a blocking read of a FIFO without a writer never returns
    proc = run_cli("lint", "-f", "json", str(app), timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [f"hooklint: error: {app / 'pipe.yaml'}: not a regular file (a FIFO); not read"]
    assert [f["rule_id"] for f in json.loads(proc.stdout)["findings"]] == ["HL102"]
    named = run_cli("lint", str(app / "pipe.yaml"), timeout=60)
    assert named.returncode == 2 and "not a regular file (a FIFO)" in named.stderr


def test_pipe_named_through_dev_fd_is_read(tmp_path):
    """Process substitution (``hooklint lint <(helm template .)``) hands over /dev/fd/N: a pipe."""
    read, write = os.pipe()
    os.write(write, (LATEST_TAG_HOOK + "---\n" + CONFIGMAP).encode())
    os.close(write)
    try:
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        proc = subprocess.run([sys.executable, "-m", "hooklint", "lint", "-f", "json", f"/dev/fd/{read}"],
                              capture_output=True, timeout=60, pass_fds=(read,), env=env, text=True)  # fmt: skip
    finally:
        os.close(read)
    assert proc.stderr == ""
    assert [(f["rule_id"], f["line"]) for f in json.loads(proc.stdout)["findings"]] == [("HL102", 17)]


def test_directory_named_like_a_manifest(app):
    (app / "dir.yaml").mkdir()
    # a folder: walked as one; empty, so nothing to lint, which is an input error (issue 13 item 6)
    assert [e.message for e in lint(app / "dir.yaml").errors] == [
        "no YAML or JSON file (*.yaml, *.yml, *.json) in this folder or below it; nothing to lint"]
    assert read_file(str(app / "dir.yaml")).error.message == "is a directory"


def test_broken_and_looping_symbolic_links(app):
    """A dangling link in a folder is skipped, as Argo CD skips it ("destination of symlink is
    missing"); a loop fails Argo CD's EvalSymlinks otherwise, so it stays an input error; a dangling
    link named on its own is one too (the user asked for that very file)."""
    (app / "broken.yaml").symlink_to(app / "missing.yaml")
    (app / "loop1.yaml").symlink_to(app / "loop2.yaml")
    (app / "loop2.yaml").symlink_to(app / "loop1.yaml")
    (app / "up").symlink_to(app, target_is_directory=True)  # a folder cycle: never followed
    result = bounded(lambda: lint(app), seconds=10)
    assert errors_of(result) == {
        "loop1.yaml": "symbolic link loop",
        "loop2.yaml": "symbolic link loop",
    }
    assert [(p, str(r)) for p, r in result.skipped_files] == [(str(app / "broken.yaml"), f"a symbolic link to {app / 'missing.yaml'}, which "
                                     "does not exist: Argo CD skips it (destination of symlink is missing)")]  # fmt: skip
    assert where(result) == [WITNESS]
    named = lint(app / "broken.yaml", app / "hook.yaml")  # the loops are context here, not reported
    assert errors_of(named) == {"broken.yaml": "broken symbolic link"} and where(named) == [WITNESS]
    assert named.skipped_files == []
    both = lint(app, app / "broken.yaml")  # named and found in a folder: named wins
    assert errors_of(both) == {"broken.yaml": "broken symbolic link", "loop1.yaml": "symbolic link loop",
                               "loop2.yaml": "symbolic link loop"}  # fmt: skip


def test_cli_a_dangling_link_in_a_folder_is_skipped_and_named_alone_is_an_input_error(tmp_path):
    """Reported: ``ln -s nowhere link.json`` beside a ConfigMap failed the whole run with exit 2."""
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")
    (tmp_path / "link.json").symlink_to("nowhere")
    (tmp_path / "escape.yaml").symlink_to("../../../../../../../../../../nowhere/x.yaml")  # dangling wins
    proc = run_cli("lint", "-f", "json", ".", cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (0, "")
    doc = json.loads(proc.stdout)
    assert (doc["findings"], doc["errors"]) == ([], [])
    assert doc["skipped"] == [
        {"path": "escape.yaml", "reason": "a symbolic link to ../../../../../../../../../../nowhere/x.yaml, which does "
                                          "not exist: Argo CD skips it (destination of symlink is missing)"},
        {"path": "link.json", "reason": "a symbolic link to nowhere, which does not exist: Argo CD skips it "
                                        "(destination of symlink is missing)"},
    ]  # fmt: skip
    named = run_cli("lint", "link.json", cwd=tmp_path)
    assert (named.returncode, named.stdout, named.stderr) == (2, "", "hooklint: error: link.json: broken symbolic link\n")


def test_file_that_disappears_mid_run(tmp_path, app, monkeypatch):
    (app / "gone.yaml").write_text(LATEST_TAG_HOOK)
    other = tmp_path / "other"
    other.mkdir()
    (other / "gone-too.yaml").write_text(LATEST_TAG_HOOK)
    real_walk = discovery.walk

    def walk_then_delete(root, errors, notices=None, **options):
        found = real_walk(root, errors, notices, **options)
        (app / "gone.yaml").unlink(missing_ok=True)  # listed, then deleted before it is read
        if (other / "gone-too.yaml").exists():
            (other / "gone-too.yaml").unlink()
            other.rmdir()  # its whole folder too
        return found

    monkeypatch.setattr(discovery, "walk", walk_then_delete)
    result = lint(tmp_path)
    assert errors_of(result) == {"gone.yaml": "no such file or directory", "gone-too.yaml": "no such file or directory"}
    assert where(result) == [WITNESS]


def test_named_path_that_does_not_exist(app):
    result = lint(app / "nope.yaml", app)
    assert errors_of(result) == {"nope.yaml": "no such file or directory"}
    assert where(result) == [WITNESS]


# --- valid YAML that is not an object, objects of the wrong shape -----------------------------


def test_documents_that_are_not_objects(app):
    text = LATEST_TAG_HOOK + "---\n- a\n- b\n---\njust a string\n---\n42\n---\nnull\n---\n~\n---\n# only a comment\n---\n"
    (app / "hook.yaml").write_text(text)
    result = lint(app)
    hl003 = [(f.span.line, f.message.split(",")[0]) for f in result.findings if f.rule_id == "HL003"]
    assert hl003 == [
        (19, "Document is a list"),
        (22, "Document is a string"),
        (24, "Document is an integer"),
    ]
    # `null`, `~` and empty documents are skipped by Argo CD (gitops-engine SplitYAMLToString drops
    # documents that decode to null), so hooklint reports nothing for them
    assert where(result, "HL102") == [WITNESS]


def _replace(old: str, new: str) -> str:
    assert old in LATEST_TAG_HOOK, old
    return LATEST_TAG_HOOK.replace(old, new)


CONTAINERS = "      containers:\n        - name: migrate\n          image: ghcr.io/acme/migrate:latest\n"
WRONG_SHAPES = {
    "containers-string": (_replace(CONTAINERS, '      containers: "oops"\n'), "HL006"),
    "annotations-list": (_replace("  annotations:\n    argocd.argoproj.io/hook: PreSync\n", "  annotations: []\n"), "HL006"),
    "spec-integer": (LATEST_TAG_HOOK.split("spec:\n  backoffLimit")[0] + "spec: 5\n", "HL006"),
    "metadata-integer": ("apiVersion: batch/v1\nkind: Job\nmetadata: 5\nspec: {}\n", "HL006"),
    "kind-integer": (_replace("kind: Job", "kind: 5"), "HL003"),
    "apiVersion-integer": (_replace("apiVersion: batch/v1", "apiVersion: 5"), "HL003"),
    "containers-of-strings": (_replace(CONTAINERS, "      containers:\n        - migrate\n        - seed\n"), "HL006"),
    "template-list": (LATEST_TAG_HOOK.split("  template:")[0] + "  template: []\n", "HL006"),
    "pod-spec-string": (LATEST_TAG_HOOK.split("    spec:\n      serviceAccountName")[0] + "    spec: x\n", "HL006"),
    "name-integer": (_replace("  name: db-migrate", "  name: 5"), "HL006"),
    "hook-annotation-list": (_replace("argocd.argoproj.io/hook: PreSync", "argocd.argoproj.io/hook: [PreSync]"), "HL004"),
    "list-items-integer": ("apiVersion: v1\nkind: List\nmetadata: {}\nitems: 5\n", "HL003"),
    "cronjob-template-integer": ("apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: c\nspec:\n  jobTemplate: 5\n", "HL006"),
    "restart-policy-integer": (_replace("restartPolicy: Never", "restartPolicy: 5"), "HL205"),
}
#: Wrong shapes inside pod specs and lists (HL006 container/pod fields, HL003 List items).
NESTED_SHAPES = {
    "image-integer": (_replace("image: ghcr.io/acme/migrate:latest", "image: 5"), "HL006"),
    "env-string": (_replace("image: ghcr.io/acme/migrate:latest", 'image: ghcr.io/acme/migrate:latest\n          env: "x"'), "HL006"),
    "env-items-integers": (_replace("image: ghcr.io/acme/migrate:latest", "image: ghcr.io/acme/migrate:latest\n          env: [5]"), "HL006"),
    "security-context-string": (_replace("image: ghcr.io/acme/migrate:latest", "image: ghcr.io/acme/migrate:latest\n          securityContext: x"), "HL006"),
    "volumes-integer": (_replace("      containers:", "      volumes: 5\n      containers:"), "HL006"),
    "list-items-scalars": ("apiVersion: v1\nkind: List\nmetadata: {}\nitems: [1, a, null]\n", "HL003"),
}


def _no_exception(text: str, config: Config) -> list:
    return lint_text(text, config=config, catalog=CATALOG)


CONFIGS = [Config(), Config(check_all_workloads=True, require_digest=True, allowed_registries=["ghcr.io/acme"])]


@pytest.mark.parametrize("name", sorted(WRONG_SHAPES))
def test_wrong_shapes_are_findings_never_exceptions(name):
    text, rule = WRONG_SHAPES[name]
    for config in CONFIGS:
        found = _no_exception(text, config)
        assert rule in {f.rule_id for f in found}, where(found)


@pytest.mark.parametrize("name", sorted(NESTED_SHAPES))
def test_nested_wrong_shapes_are_findings_never_exceptions(name):
    text, rule = NESTED_SHAPES[name]
    for config in CONFIGS:
        assert rule in {f.rule_id for f in _no_exception(text, config)}


def test_very_long_sync_wave_is_a_finding_not_an_exception():
    text = _replace("argocd.argoproj.io/hook: PreSync", f'argocd.argoproj.io/hook: PreSync\n    argocd.argoproj.io/sync-wave: "{"1" * 5000}"')
    assert "HL012" in {f.rule_id for f in lint_text(text, catalog=CATALOG)}


def test_messages_stay_on_one_line_whatever_the_names():
    text = _replace("  name: db-migrate", '  name: "db\\nmigrate"').replace("PreSync", '"PreSync,\\nPostSyncc"')
    found = lint_text(text, config=CONFIGS[1], catalog=CATALOG)
    assert found and all("\n" not in f.message for f in found), [f.message for f in found if "\n" in f.message]


# --- scalars, keys and the parser's own limits -------------------------------------------------


def test_huge_numbers_are_typed_like_go_yaml():
    assert go_resolve_plain("1" * 5000) == ("tag:yaml.org,2002:str", "1" * 5000)  # ValueError before
    assert go_resolve_plain("0x" + "0" * 5000 + "1")[1] == 1
    assert go_resolve_plain("1e400") == ("tag:yaml.org,2002:str", "1e400")  # ParseFloat: ErrRange
    text = MANIFEST_HEAD + f"  a: {'9' * 5000}\n  {'1' * 1000}: key\n  c: !!int \"{'1' * 5000}\"\n"
    doc = parse_text("x.yaml", text).documents[0]
    assert doc.value["data"]["a"] == "9" * 5000 and doc.value["data"]["c"] == "1" * 5000


def test_mapping_as_key_is_a_syntax_error_and_other_documents_go_on():
    text = MANIFEST_HEAD + "  image: {{ .Values.image }}\n---\n" + LATEST_TAG_HOOK
    found = lint_text(text, catalog=CATALOG)
    assert where(found, "HL001") == [("HL001", 6, 11)]
    assert "invalid map key" in [f for f in found if f.rule_id == "HL001"][0].message
    assert ("HL102", 24, 18) in where(found)


def test_duplicate_key_flood_is_summarised():
    text = MANIFEST_HEAD + "  a: 1\n" * 5000
    found = bounded(lambda: lint_text(text, catalog=CATALOG), seconds=10)
    hl002 = [f for f in found if f.rule_id == "HL002"]
    assert len(hl002) == 101 and "More than 100 problems" in hl002[-1].message


LARGE = {
    "markers": '"---\\n" * 200_000',  # documents without content
    "end-markers": '"...\\n" * 200_000',  # end markers without documents
    "huge-list": 'MANIFEST_HEAD + "  x: [" + "1," * 1_500_000 + "]\\n"',  # one huge list: the node budget
    "many-documents": '(MANIFEST_HEAD + "  a: 1\\n---\\n") * 60_000',  # many small documents
    "long-line": '"# Source: a.yaml" + " " * 200_000 + "b\\n" + MANIFEST_HEAD + "  x: " + "[" * 300_000',
    "many-errors": '"kind: x\\n]\\n---\\n" * 50_000',  # a syntax error in every document
}


@pytest.mark.parametrize("name", sorted(LARGE))
def test_large_hostile_files_are_bounded(name):
    """In a fresh process, to measure its peak memory (RSS) as well as the time."""
    script = (
        "import json, resource, sys, time\n"
        "from tests.test_hostile import MANIFEST_HEAD\n"
        "from hooklint.loader import parse_text\n"
        f"text = {LARGE[name]}\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "start = time.perf_counter()\n"
        "loaded = parse_text('big.yaml', text)\n"
        "print(json.dumps({'seconds': time.perf_counter() - start,\n"
        "    'mb': (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024,\n"
        "    'messages': [issue.detail for issue, _ in loaded.issues]}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout)
    assert out["seconds"] < 30 and out["mb"] < 400, out | {"messages": out["messages"][:2]}
    assert all("\n" not in message for message in out["messages"])


def test_document_cut_by_an_error_does_not_hide_the_next_ones():
    text = LATEST_TAG_HOOK + "---\n" + MANIFEST_HEAD + "  a: [1, 2\n---\n" + LATEST_TAG_HOOK + "---\n" + MANIFEST_HEAD + "  b: 'open\n"
    found = lint_text(text, catalog=CATALOG)
    assert where(found, "HL001") == [("HL001", 25, 1), ("HL001", 49, 6)]
    assert where(found, "HL102") == [("HL102", 17, 18), ("HL102", 42, 18)]


def test_error_at_end_of_line_stays_inside_the_line():
    text = MANIFEST_HEAD + "  a: [1, 2\n"
    (finding,) = [f for f in lint_text(text, catalog=CATALOG) if f.rule_id == "HL001"]
    lines = text.split("\n")
    assert finding.span.end_column <= len(lines[finding.span.end_line - 1]) + 1


# --- the whole run through the command line ---------------------------------------------------


def run_cli(*args: str, timeout: float = 120, stdin: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-m", "hooklint", *args], capture_output=True, timeout=timeout,
                          input=stdin, env=env, cwd=cwd)  # fmt: skip
    proc.stdout = proc.stdout.decode("utf-8")
    proc.stderr = proc.stderr.decode("utf-8")
    return proc


def test_cli_keeps_going_through_a_folder_of_hostile_files(tmp_path, app):
    (app / "bomb.yaml").write_text(billion_laughs())
    (app / "deep.yaml").write_text(MANIFEST_HEAD + "  d: " + "[" * 50_000 + "\n")
    (app / "binary.yaml").write_bytes(b"\x00\x01\x02")
    (app / "latin1.yaml").write_bytes("kind: Café\n".encode("latin-1"))
    (app / "broken.yaml").symlink_to(tmp_path / "missing")
    (app / "evil.yaml").write_text(MANIFEST_HEAD + f"  x: !!python/object/apply:os.system ['touch {tmp_path / 'pwned'}']\n")
    start = time.perf_counter()
    proc = run_cli("lint", "-f", "json", str(app), "--jobs", "1", timeout=120)
    assert time.perf_counter() - start < 60
    assert proc.returncode == 2
    errors = proc.stderr.splitlines()
    assert errors == [
        f"hooklint: error: {app / 'binary.yaml'}: binary content (NUL byte at offset 0); not a manifest",
        f"hooklint: error: {app / 'latin1.yaml'}: not valid UTF-8 (byte 0xe9 at offset 9); save the file as UTF-8",
    ]
    report = json.loads(proc.stdout)
    assert report["skipped"] == [{"path": str(app / "broken.yaml"), "reason": f"a symbolic link to {tmp_path / 'missing'}, "
                                  "which does not exist: Argo CD skips it (destination of symlink is missing)"}]  # fmt: skip
    got = sorted((os.path.basename(f["path"]), f["rule_id"], f["line"]) for f in report["findings"])
    assert ("hook.yaml", "HL102", 17) in got
    assert ("bomb.yaml", "HL001", 12) in got and ("deep.yaml", "HL001", 6) in got and ("evil.yaml", "HL005", 6) in got
    assert not (tmp_path / "pwned").exists()
    assert all("\n" not in f["message"] for f in report["findings"])


def test_cli_stdin_that_is_binary(tmp_path):
    proc = run_cli("lint", "-", stdin=b"\x00\x01binary", timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == ["hooklint: error: -: binary content (NUL byte at offset 0); not a manifest"]


# --- a NUL in a path a repository names ---------------------------------------------------------

# Every field that names a path, holding a NUL (``"x\\0y"`` in YAML): Python's file-system calls
# raise ValueError for one (Go's fail with "invalid argument"), which stopped the whole run
# ("internal error: ValueError: embedded null byte", helper trial) or an application's lint.
NUL = "x\\0y"  # YAML escape: a NUL inside a double-quoted scalar
NUL_REPO = "https://example.com/acme/deploy.git"
NUL_CASES = {
 "k-resources": {"k/kustomization.yaml": f'resources:\n- "{NUL}"\n'},
 "k-bases": {"k/kustomization.yaml": f'bases:\n- "{NUL}"\n'},
 "k-components": {"k/kustomization.yaml": f'components:\n- "{NUL}"\n'},
 "k-patch-path": {"k/kustomization.yaml": f'resources: [cm.yaml]\npatches:\n- path: "{NUL}"\n', "k/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"},
 "k-psm": {"k/kustomization.yaml": f'resources: [cm.yaml]\npatchesStrategicMerge:\n- "{NUL}"\n', "k/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"},
 "k-cmgen-files": {"k/kustomization.yaml": f'configMapGenerator:\n- name: a\n  files: ["{NUL}"]\n'},
 "k-cmgen-env": {"k/kustomization.yaml": f'configMapGenerator:\n- name: a\n  envs: ["{NUL}"]\n'},
 "k-replacements": {"k/kustomization.yaml": f'resources: [cm.yaml]\nreplacements:\n- path: "{NUL}"\n', "k/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"},
 "k-openapi": {"k/kustomization.yaml": f'openapi:\n  path: "{NUL}"\n'},
 "k-crds": {"k/kustomization.yaml": f'crds: ["{NUL}"]\n'},
 "k-transformers": {"k/kustomization.yaml": f'transformers: ["{NUL}"]\n'},
 "app-path": {".git/config": f'[remote "origin"]\n\turl = {NUL_REPO}\n', "apps/a.yaml": f'apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: a\nspec:\n  project: p\n  source:\n    repoURL: {NUL_REPO}\n    path: "{NUL}"\n  destination:\n    namespace: d\n'},
 "app-valuefiles": {".git/config": f'[remote "origin"]\n\turl = {NUL_REPO}\n', "c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n", "c/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n", "apps/a.yaml": f'apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: a\nspec:\n  project: p\n  source:\n    repoURL: {NUL_REPO}\n    path: c\n    helm:\n      valueFiles: ["{NUL}"]\n  destination:\n    namespace: d\n'},
 "app-components": {".git/config": f'[remote "origin"]\n\turl = {NUL_REPO}\n', "k/kustomization.yaml": "resources: [cm.yaml]\n", "k/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n", "apps/a.yaml": f'apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: a\nspec:\n  project: p\n  source:\n    repoURL: {NUL_REPO}\n    path: k\n    kustomize:\n      components: ["{NUL}"]\n  destination:\n    namespace: d\n'},
 "appset-git-files": {".git/config": f'[remote "origin"]\n\turl = {NUL_REPO}\n', "apps/s.yaml": f'apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: s\nspec:\n  generators:\n  - git:\n      repoURL: {NUL_REPO}\n      revision: HEAD\n      files:\n      - path: "{NUL}"\n  template:\n    metadata:\n      name: x\n    spec:\n      project: p\n      source:\n        repoURL: {NUL_REPO}\n        path: k\n      destination:\n        namespace: d\n'},
 "appset-git-dirs": {".git/config": f'[remote "origin"]\n\turl = {NUL_REPO}\n', "apps/s.yaml": f'apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: s\nspec:\n  generators:\n  - git:\n      repoURL: {NUL_REPO}\n      revision: HEAD\n      directories:\n      - path: "{NUL}"\n  template:\n    metadata:\n      name: "{{{{path.basename}}}}"\n    spec:\n      project: p\n      source:\n        repoURL: {NUL_REPO}\n        path: "{{{{path}}}}"\n      destination:\n        namespace: d\n'},
 "chart-dep": {"c/Chart.yaml": f'apiVersion: v2\nname: c\nversion: 1.0.0\ndependencies:\n- name: d\n  version: 1.0.0\n  repository: "file://{NUL}"\n', "c/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"},
}

NUL_WHERE = {"app-path": "apps/a.yaml:8:5", "chart-dep": "c/Chart.yaml:5:3", "app-valuefiles": "c/Chart.yaml:1:1",
             "appset-git-files": None, "appset-git-dirs": None}  # fmt: skip


@pytest.mark.parametrize("case", sorted(NUL_CASES))
def test_a_nul_in_a_named_path_is_the_applications_hl007_never_a_crash(case, tmp_path, monkeypatch):
    from hooklint.sources.render.helm import find_helm
    from hooklint.sources.render.kustomize import find_kustomize

    if case.startswith("k-") or case == "app-components":
        if find_kustomize() is None:
            pytest.skip("neither kustomize nor kubectl is installed")
    elif case in ("app-valuefiles", "chart-dep") and find_helm() is None:
        pytest.skip("no Helm")
    (tmp_path / ".git").mkdir()
    for name, text in NUL_CASES[case].items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    env = dict(os.environ, HOOKLINT_CACHE_DIR="off")
    done = subprocess.run([sys.executable, "-m", "hooklint", "lint", "-f", "json", "."], env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert "internal error" not in done.stdout + done.stderr
    where = NUL_WHERE.get(case, "k/kustomization.yaml:1:1")
    found = [f"{f['path']}:{f['line']}:{f['column']}" for f in json.loads(done.stdout)["findings"] if f["rule_id"] == "HL007"]
    assert (done.returncode, found) == ((1, [where]) if where else (0, [])), done.stdout


def test_a_kustomization_that_is_not_utf8_is_an_input_error_never_an_internal_one(tmp_path, monkeypatch):
    """Second helper trial: a kustomization ending in bytes ``\\xff\\xfe`` was HL007 "internal
    error: UnicodeDecodeError" (the copy kustomize builds in was read as UTF-8); it is the file's
    input error, as any file that is not UTF-8 is, exit 2."""
    from typer.testing import CliRunner

    from hooklint.cli import app
    from hooklint.sources.render.kustomize import find_kustomize

    if find_kustomize() is None:
        pytest.skip("neither kustomize nor kubectl is installed")
    (tmp_path / ".git").mkdir()
    (tmp_path / "k").mkdir()
    (tmp_path / "k/kustomization.yaml").write_bytes(b"resources:\n- cm.yaml\n\xff\xfe")
    (tmp_path / "k/cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    result = CliRunner().invoke(app, ["lint", "k"])
    assert result.exit_code == 2 and "internal error" not in result.output
    assert "hooklint: error: k/kustomization.yaml: not valid UTF-8 (byte 0xff at offset 21); save the file as UTF-8" in (
        result.output)
