"""What a rendering costs hooklint itself (issue 32, "bounded runs"): a renderer's output is read
as a stream of at most ``render-output`` MiB, split into at most ``render-objects`` objects, and
parsed with one budget of YAML nodes for the whole rendering (:data:`hooklint.yamlio.MAX_NODES`,
as for one file); the YAML hooklint reads with PyYAML holds the same node limit. Limits are made
small through the configuration (or ``MAX_NODES`` patched), so every test is quick."""

from __future__ import annotations

import os
import sys
import textwrap
import time

import pytest
import yaml

from conftest import gone, write
from hooklint import yamlio
from hooklint.catalog import load_catalog
from hooklint.config import ConfigError, Config, load_config
from hooklint.findings import RunResult
from hooklint.loader import parse_text
from hooklint.pipeline import lint_paths
from hooklint.sources import bounded
from hooklint.sources.render import kustomize
from hooklint.sources.render.helm import find_helm
from hooklint.yamlio import BoundedLoader, YamlTooComplex, go_first_document
from tests.manifests import CONFIGMAP, LATEST_TAG_HOOK

CATALOG = load_catalog()
sdk_only = pytest.mark.skipif((find_helm() or ("",))[0] != "sdk", reason="helm-python-sdk is not installed")
kustomize_only = pytest.mark.skipif(kustomize.find_kustomize() is None, reason="neither kustomize nor kubectl is installed")
CHART = "apiVersion: v2\nname: {name}\nversion: 0.1.0\n"
RAISE = "a configuration named with --config may raise it"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    (tmp_path / ".git").mkdir()
    return tmp_path


@pytest.fixture
def fake_kustomize(tmp_path_factory, monkeypatch):
    """``install(body)``: a ``kustomize`` on PATH (outside the repository) whose build runs the
    Python ``body``."""

    def install(body: str) -> None:
        bin_dir = tmp_path_factory.mktemp("bin")
        script = bin_dir / "kustomize"
        script.write_text(f"#!{sys.executable}\nimport sys\nif sys.argv[1] == 'version':\n    print('v5.5.0')\n"
                          f"    sys.exit(0)\n" + textwrap.dedent(body))  # fmt: skip
        script.chmod(0o755)
        monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
        kustomize.find_kustomize.cache_clear()

    yield install
    kustomize.find_kustomize.cache_clear()


def lint(*paths: str, **settings) -> RunResult:
    return lint_paths(list(paths), Config(**settings), CATALOG, jobs=1)


def findings(result: RunResult) -> list[tuple[str, str, int, int, str]]:
    return [(f.path, f.rule_id, f.span.line, f.span.column, f.message) for f in result.findings]


def stopped(detail: str) -> str:
    """HL007's message for a rendering one of hooklint's own limits stopped."""
    return (f"Rendering stopped: {detail}. The limit is hooklint's, not Argo CD's: Argo CD may render and sync "
            "this application, and nothing of it is checked here. If the rendering is meant to be this large or slow, "
            "raise the limit in a configuration named with --config.")  # fmt: skip


def hl007(detail: str) -> str:
    return (f"Rendering failed: {detail}. Argo CD's repo server fails the same way, so the application cannot "
            "sync; nothing of it is checked until it renders.")  # fmt: skip


def hl001(detail: str) -> str:
    return f"Document cannot be read safely: {detail}. Simplify the document."


def configmaps(count: int, start: int = 0) -> str:
    return "".join(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n---\n" for i in range(start, count))


KUSTOMIZATION = {"app/kustomization.yaml": "resources:\n- cm.yaml\n", "app/cm.yaml": CONFIGMAP}


# --- render-output: the output is read as a stream, at most so many bytes ------------------------


def run(code: str, **limits) -> object:
    limits = {"timeout": 30, "memory": 256 << 20, **limits}
    return bounded.run([sys.executable, "-c", code], cwd=None, env=dict(os.environ), **limits)


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_a_child_that_prints_past_the_output_limit_is_stopped_with_its_process_group(tmp_path, stream):
    """It prints forever (and its own child sleeps): without the cap, hooklint held all of it until
    render-timeout; now it is killed, group and all, once 1 MiB is passed."""
    pid_file = tmp_path / "grandchild.pid"
    code = (f"import subprocess, sys; child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)']); "
            f"open({str(pid_file)!r}, 'w').write(str(child.pid))\nwhile True: sys.{stream}.write('x' * 65536)")  # fmt: skip
    start = time.perf_counter()
    with pytest.raises(bounded.Stopped) as stopped:
        run(code, output=1 << 20)
    assert time.perf_counter() - start < 10
    assert (stopped.value.reason, stopped.value.limit) == (
        f"printed more than 1 MiB of output (limit: render-output; {RAISE})", "render-output")
    assert gone(int(pid_file.read_text()))


def test_output_up_to_the_limit_and_a_large_input_pass_whole():
    """Input and output larger than a pipe's buffer, written and read at once (no deadlock), and
    output of exactly the limit kept."""
    done = run("import sys; data = sys.stdin.read(); sys.stdout.write(data); sys.stderr.write('e' * 1000)",
               input="y" * (1 << 20), output=1 << 20)  # fmt: skip
    assert (done.returncode, len(done.stdout), done.stdout[:3], done.stderr) == (0, 1 << 20, "yyy", "e" * 1000)


def test_a_kustomize_build_that_prints_past_render_output_is_hl007(repo, fake_kustomize):
    fake_kustomize("""\
        import time
        sys.stdout.write("apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: big\\ndata:\\n  x: " + "a" * (2 << 20) + "\\n")
        sys.stdout.flush()
        time.sleep(300)
        """)
    write(repo, KUSTOMIZATION)
    start = time.perf_counter()
    result = lint("app", render_output=1)
    assert time.perf_counter() - start < 15
    assert findings(result) == [("app/kustomization.yaml", "HL007", 1, 1, stopped(
        f"kustomize build of app printed more than 1 MiB of output (limit: render-output; {RAISE})"))]


@sdk_only
def test_a_helm_rendering_that_prints_past_render_output_is_hl007(repo):
    write(repo, {"big/Chart.yaml": CHART.format(name="big"), "big/templates/cm.yaml":
                 "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  x: {{ repeat 1200000 \"a\" | quote }}\n"})  # fmt: skip
    assert findings(lint("big", render_output=1)) == [("big/Chart.yaml", "HL007", 1, 1, stopped(
        f"Helm rendering of chart big printed more than 1 MiB of output (limit: render-output; {RAISE})"))]


# --- render-objects: at most so many objects, counted as the output is split ----------------------


@pytest.mark.parametrize("count", [100, 101])
def test_a_kustomize_build_of_more_objects_than_render_objects_is_hl007(repo, fake_kustomize, count):
    """100 objects (the last a hook, whose HL102 shows the rendering was read) pass; 101 are HL007."""
    fake_kustomize(f"sys.stdout.write({(configmaps(count - 1) + LATEST_TAG_HOOK)!r})\n")
    write(repo, KUSTOMIZATION)
    got = findings(lint("app", render_objects=100))
    if count == 100:
        assert [g[:2] for g in got] == [("app/kustomization.yaml", "HL102")]
    else:
        assert got == [("app/kustomization.yaml", "HL007", 1, 1, stopped(
            f"kustomize build of app printed more than 100 objects (limit: render-objects; {RAISE})"))]


@sdk_only
@pytest.mark.parametrize("crds", [False, True], ids=["templates", "crds"])
def test_a_helm_rendering_of_more_objects_than_render_objects_is_hl007(repo, crds):
    """Counted over the chart's templates and its crds/ files together."""
    files = {"many/Chart.yaml": CHART.format(name="many"), "many/templates/cm.yaml":
             "{{- range until 60 }}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{{ . }}\n{{- end }}\n"}
    if crds:
        files["many/crds/crds.yaml"] = "".join(
            f"---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: r{i}.example.com\n"
            for i in range(41))  # fmt: skip
    write(repo, files)
    total = 101 if crds else 60
    assert findings(lint("many", render_objects=total - 1)) == [("many/Chart.yaml", "HL007", 1, 1, stopped(
        f"Helm rendering of chart many printed more than {total - 1} objects (limit: render-objects; {RAISE})"))]
    assert not [g for g in findings(lint("many", render_objects=total)) if g[1] == "HL007"]


@sdk_only
@pytest.mark.parametrize("limit", [49, 50])
def test_the_items_of_a_kind_list_count_against_render_objects(repo, limit):
    """One document, a ``kind: List`` of 50 hook Jobs: 50 objects Argo CD applies, each counted
    (before: the List was one object, linted whole with ``render-objects: 5``)."""
    write(repo, {"many/Chart.yaml": CHART.format(name="many"), "many/templates/list.yaml":
                 "apiVersion: v1\nkind: List\nitems:\n{{- range until 50 }}\n- apiVersion: batch/v1\n  kind: Job\n"
                 "  metadata: {name: j{{ . }}, annotations: {argocd.argoproj.io/hook: PreSync}}\n{{- end }}\n"})  # fmt: skip
    got = findings(lint("many", render_objects=limit))
    if limit == 49:
        assert got == [("many/Chart.yaml", "HL007", 1, 1, stopped(
            f"Helm rendering of chart many printed more than 49 objects (limit: render-objects; {RAISE})"))]
    else:
        assert not [g for g in got if g[1] == "HL007"] and got


@pytest.mark.parametrize("count", [5, 6])
def test_the_items_of_a_kustomize_list_count_too(repo, fake_kustomize, count):
    listed = "apiVersion: v1\nkind: List\nitems:\n" + "".join(
        f"- {{apiVersion: v1, kind: ConfigMap, metadata: {{name: c{i}}}}}\n" for i in range(count - 1))
    fake_kustomize(f"sys.stdout.write({(listed + '---' + chr(10) + LATEST_TAG_HOOK)!r})\n")
    write(repo, KUSTOMIZATION)
    got = findings(lint("app", render_objects=5))
    if count == 5:
        assert [g[:2] for g in got] == [("app/kustomization.yaml", "HL102")]
    else:
        assert got == [("app/kustomization.yaml", "HL007", 1, 1, stopped(
            f"kustomize build of app printed more than 5 objects (limit: render-objects; {RAISE})"))]


# --- the limits are the user's ------------------------------------------------------------------


def test_render_output_and_render_objects_defaults_and_limits():
    config = Config()
    assert (config.render_output, config.render_objects) == (64, 20_000)
    limits = bounded.Limits.of(Config(render_output=3, render_objects=7))
    assert (limits.output, limits.objects) == (3 << 20, 7)


def test_a_found_configuration_may_lower_render_output_and_render_objects_never_raise_them(repo):
    write(repo, {".hooklint.yaml": "render-output: 100000\nrender-objects: 5000000\n"})
    config = load_config(None, ["."])
    assert (config.render_output, config.render_objects) == (64, 20_000)
    assert list(config.limit_notes.values()) == [
        ".hooklint.yaml:1: 'render-output' 100,000 MiB is above hooklint's default of 64 MiB, and a configuration found "
        "in the repository may lower a limit, never raise it: 64 MiB is used (name the file with --config to raise it)",
        ".hooklint.yaml:2: 'render-objects' 5,000,000 objects is above hooklint's default of 20,000 objects, and a "
        "configuration found in the repository may lower a limit, never raise it: 20,000 objects is used (name the "
        "file with --config to raise it)",
    ]  # fmt: skip
    named = load_config(".hooklint.yaml", ["."])
    assert (named.render_output, named.render_objects, named.limit_notes) == (100000, 5000000, {})
    write(repo, {".hooklint.yaml": "render-output: 2\nrender-objects: 10\n"})
    lowered = load_config(None, ["."])
    assert (lowered.render_output, lowered.render_objects, lowered.limit_notes) == (2, 10, {})


@pytest.mark.parametrize("key, value", [("render-output", 0), ("render-objects", "many")])
def test_render_output_and_render_objects_must_be_positive_whole_numbers(repo, key, value):
    write(repo, {"x.yaml": f"{key}: {value}\n"})
    with pytest.raises(ConfigError) as error:
        load_config("x.yaml")
    top = "1,048,576" if key == "render-output" else "100,000,000"
    assert str(error.value) == f"x.yaml:1: '{key}' must be a whole number from 1 to {top}, not {value!r}"


# --- MAX_NODES: per file, and per rendering -----------------------------------------------------


@pytest.fixture
def hundred_nodes(monkeypatch):
    monkeypatch.setattr(yamlio, "MAX_NODES", 100)


#: 100 documents of 3 nodes each (a mapping, a key, a value): the 34th goes past 100, at its key.
SMALL_DOCUMENTS = "".join(f"---\na: {i}\n" for i in range(100))
PAST = "the file has more than 100 YAML nodes, far more than any Kubernetes object; the rest of the file is not read"


def test_a_file_of_many_small_documents_stops_at_the_node_limit(hundred_nodes):
    loaded = parse_text("many.yaml", SMALL_DOCUMENTS)
    assert len(loaded.documents) == 33
    assert [(i.kind, i.span.line, i.span.column, i.detail, index) for i, index in loaded.issues] == [
        ("too-complex", 68, 1, PAST, 33)]


@pytest.mark.parametrize("source", [pytest.param("kustomize", marks=kustomize_only), pytest.param("helm", marks=sdk_only)])
def test_a_rendering_of_many_small_objects_stops_at_the_node_limit(repo, hundred_nodes, source):
    """Twelve ConfigMaps of 9 nodes each: every one was parsed with a budget of its own, so no
    rendering ever reached the limit; the rendering's objects now share one."""
    if source == "kustomize":
        files = {"app/kustomization.yaml": "resources:\n" + "".join(f"- cm{i:02}.yaml\n" for i in range(12))}
        files.update({f"app/cm{i:02}.yaml": f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i:02}\n"
                      for i in range(12)})  # fmt: skip
        where, origin = "app/kustomization.yaml", "app/cm11.yaml"
    else:
        files = {"app/Chart.yaml": CHART.format(name="app"), "app/templates/cm.yaml":
                 "{{- range until 12 }}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{{ . }}\n{{- end }}\n"}
        where, origin = "app/Chart.yaml", "app/templates/cm.yaml"
    write(repo, files)
    assert findings(lint("app")) == [(where, "HL001", 1, 1, hl001(
        f"an object rendered from {origin}: {PAST.replace('file', 'rendering')}"))]


def test_the_bounded_loader_stops_a_text_at_the_node_limit_as_the_file_reader_does(hundred_nodes):
    """Value files, a Git generator's files, kustomizations, the configuration: PyYAML composed every
    node of any of them. The documents before the one past the limit load; that one raises, at the
    position the file reader gives."""
    loaded = []
    with pytest.raises(YamlTooComplex) as error:
        for document in yaml.load_all(SMALL_DOCUMENTS, Loader=BoundedLoader):
            loaded.append(document)
    assert loaded == [{"a": i} for i in range(33)]
    mark = error.value.problem_mark
    assert (error.value.problem, mark.line + 1, mark.column + 1) == (PAST, 68, 1)
    items = "items:\n" + "".join(f"- {i}\n" for i in range(120))
    for read in (lambda: yaml.load(items, Loader=BoundedLoader), lambda: go_first_document(items)):
        with pytest.raises(YamlTooComplex) as error:
            read()
        assert (error.value.problem, error.value.problem_mark.line + 1) == (PAST, 99)


def test_a_configuration_past_the_node_limit_is_a_configuration_error(repo, hundred_nodes):
    write(repo, {"x.yaml": "allowed-registries:\n" + "".join(f"- r{i}.example.com\n" for i in range(120))})
    with pytest.raises(ConfigError) as error:
        load_config("x.yaml")
    assert str(error.value) == f"x.yaml:99:3: invalid YAML in configuration: {PAST}"


def test_fetch_credentials_past_the_node_limit_are_refused(tmp_path, hundred_nodes):
    """The last YAML of the repository PyYAML read unbounded (``yaml.safe_load``: no node limit, and
    merge keys expanded while constructing)."""
    from hooklint.sources.fetch import load_credentials

    path = tmp_path / "creds.yaml"
    path.write_text("".join(f"h{i}.example.com: {{token: t{i}}}\n" for i in range(30)))
    with pytest.raises(ValueError) as error:
        load_credentials(str(path))
    assert str(error.value) == f"{path}: cannot read the fetch credentials (YamlTooComplex)"


def test_helm_template_output_is_counted_as_it_is_split():
    """The helm binary's path (``helm template`` output, one ``# Source:`` per template)."""
    from hooklint.sources.render.helm import _parse_template_output

    output = "".join(f"---\n# Source: c/templates/cm{i}.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n"
                     for i in range(3))  # fmt: skip
    assert [doc.source for doc in _parse_template_output(output, bounded.Tally(3))] == [
        f"c/templates/cm{i}.yaml" for i in range(3)]
    with pytest.raises(bounded.Stopped) as stopped:
        _parse_template_output(output, bounded.Tally(2))
    assert (stopped.value.reason, stopped.value.limit) == (
        f"printed more than 2 objects (limit: render-objects; {RAISE})", "render-objects")


def test_kustomize_output_is_split_piece_by_piece_as_it_was_line_by_line():
    """The split no longer makes a list of every line (a string of a few bytes each: tens of bytes
    apiece in memory); its documents are the same as those of the line-by-line split, whatever
    line breaks the output holds."""
    import random

    def by_lines(output: str) -> list[str]:
        documents, current = [], []
        for line in output.splitlines(keepends=True):
            if line.rstrip("\r\n") == "---":
                documents.append("".join(current))
                current = []
            else:
                current.append(line)
        documents.append("".join(current))
        return [d for d in documents if d.strip()]

    parts = ["---", "-", "a", " ", "\n", "\r", "\r\n", "\v", "\x85", "\u2028", "x: 1", "--- ", "----"]
    rnd = random.Random(7)
    for _ in range(20_000):
        output = "".join(rnd.choice(parts) for _ in range(rnd.randint(0, 12)))
        assert kustomize._split(output) == by_lines(output), repr(output)
