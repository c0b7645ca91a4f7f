"""Renderers in bounded child processes (hooklint.sources.bounded): a template that loops or eats
memory, a kustomize that hangs, ends in HL007 naming the limit, in bounded time, with the rest of
the run reported; Ctrl-C and SIGTERM leave no child behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import gone, write
from hooklint.catalog import load_catalog
from hooklint.config import Config
from hooklint.findings import RunResult
from hooklint.pipeline import lint_paths
from hooklint.sources import bounded
from hooklint.sources.render import kustomize
from hooklint.sources.render.helm import find_helm
from tests.manifests import CONFIGMAP, LATEST_TAG_HOOK

ROOT = Path(__file__).resolve().parents[1]
CATALOG = load_catalog()
sdk_only = pytest.mark.skipif((find_helm() or ("",))[0] != "sdk", reason="helm-python-sdk is not installed")

CHART = "apiVersion: v2\nname: {name}\nversion: 0.1.0\n"
#: Two nested loops of 100,000 iterations each: 10^10 steps, hours of Go template execution.
RANGE_BOMB = (
    "{{- range $i := until 100000 }}{{- range $j := until 100000 }}{{- end }}{{- end }}\n"
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"
)
#: A string doubled forty times: 2 TiB.
DOUBLING_BOMB = (
    '{{- $s := "ab" }}' + "".join("{{- $s = print $s $s }}" for _ in range(40)) + "\n"
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  size: {{ len $s | quote }}\n"
)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A repository (``.git``) holding a plain application ``good`` with one finding (HL102 at
    17:18), the witness that the run goes on."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    (tmp_path / ".git").mkdir()
    write(tmp_path, {"good/hook.yaml": LATEST_TAG_HOOK, "good/settings.yaml": CONFIGMAP})
    return tmp_path


def lint(*paths: str, **settings) -> RunResult:
    return lint_paths(list(paths), Config(**settings), CATALOG, jobs=1)


def findings(result: RunResult) -> list[tuple[str, str, int, int, str]]:
    return [(f.path, f.rule_id, f.span.line, f.span.column, f.message) for f in result.findings
            if f.rule_id in ("HL007", "HL102")]  # fmt: skip


def stopped(detail: str) -> str:
    """HL007's message for a rendering one of hooklint's own limits stopped."""
    return (f"Rendering stopped: {detail}. The limit is hooklint's, not Argo CD's: Argo CD may render and sync "
            "this application, and nothing of it is checked here. If the rendering is meant to be this large or slow, "
            "raise the limit in a configuration named with --config.")  # fmt: skip


def hl007(detail: str) -> str:
    return (f"Rendering failed: {detail}. Argo CD's repo server fails the same way, so the application cannot "
            "sync; nothing of it is checked until it renders.")  # fmt: skip


WITNESS = ("good/hook.yaml", "HL102", 17, 18)


@sdk_only
def test_a_template_that_loops_for_hours_stops_at_the_time_limit(repo):
    write(repo, {"loop/Chart.yaml": CHART.format(name="loop"), "loop/templates/cm.yaml": RANGE_BOMB})
    start = time.perf_counter()
    result = lint("loop", "good", render_timeout=2)
    assert time.perf_counter() - start < 15
    got = findings(result)
    assert got[0] == ("good/hook.yaml", "HL102", 17, 18, got[0][4])
    assert got[1:] == [("loop/Chart.yaml", "HL007", 1, 1, stopped(
        "Helm rendering of chart loop stopped after 2 s (limit: render-timeout)"))]  # fmt: skip


@sdk_only
def test_a_template_that_eats_memory_stops_at_the_memory_limit(repo):
    write(repo, {"grow/Chart.yaml": CHART.format(name="grow"), "grow/templates/cm.yaml": DOUBLING_BOMB})
    start = time.perf_counter()
    result = lint("grow", "good", render_memory=256, render_timeout=60)
    assert time.perf_counter() - start < 30
    got = findings(result)
    assert [g[:4] for g in got] == [WITNESS, ("grow/Chart.yaml", "HL007", 1, 1)]
    assert got[1][4] == stopped("Helm rendering of chart grow used more than 256 MiB of memory (limit: render-memory)")


@sdk_only
def test_a_chart_renders_within_the_default_limits(repo):
    write(repo, {"shop/Chart.yaml": CHART.format(name="shop"), "shop/templates/job.yaml": LATEST_TAG_HOOK})
    assert [g[:4] for g in findings(lint("shop"))] == [("shop/templates/job.yaml", "HL102", 17, 11)]


@pytest.mark.skipif(kustomize.find_kustomize() is None, reason="neither kustomize nor kubectl is installed")
@pytest.mark.parametrize("source", ["kustomize", pytest.param("helm", marks=sdk_only)])
def test_the_largest_limits_the_configuration_allows_still_render(repo, source):
    """render-timeout 86,400 s and render-memory 1,048,576 MiB (the schema's maximums) are limits
    the operating system can set; above them, a timeout overflowed Python's clock and a memory
    limit failed the child's setrlimit: an internal error of every render."""
    files = ({"app/kustomization.yaml": "resources: [job.yaml]\n", "app/job.yaml": LATEST_TAG_HOOK}
             if source == "kustomize" else {"app/Chart.yaml": CHART.format(name="app"), "app/templates/job.yaml": LATEST_TAG_HOOK})  # fmt: skip
    write(repo, files)
    got = findings(lint("app", render_timeout=86400, render_memory=1048576))
    assert [g[:2] for g in got] == [("app/job.yaml" if source == "kustomize" else "app/templates/job.yaml", "HL102")]


# --- kustomize ------------------------------------------------------------------------------


@pytest.fixture
def hanging_kustomize(tmp_path, tmp_path_factory, monkeypatch):
    """A ``kustomize`` on PATH (outside the repository: hooklint never runs one inside it) whose
    build starts a grandchild and then hangs; the grandchild's pid is written to
    ``grandchild.pid``."""
    bin_dir = tmp_path_factory.mktemp("bin")
    script = bin_dir / "kustomize"
    script.write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        import subprocess, sys, time
        if sys.argv[1] == "version":
            print("v5.5.0")
            sys.exit(0)
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
        open({str(tmp_path / "grandchild.pid")!r}, "w").write(str(child.pid))
        time.sleep(300)
        """))
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    kustomize.find_kustomize.cache_clear()
    yield tmp_path / "grandchild.pid"
    kustomize.find_kustomize.cache_clear()


def test_a_hanging_kustomize_is_stopped_with_its_process_group(repo, hanging_kustomize):
    write(repo, {"app/kustomization.yaml": "resources:\n- cm.yaml\n", "app/cm.yaml": CONFIGMAP})
    start = time.perf_counter()
    result = lint("app", "good", render_timeout=1)
    assert time.perf_counter() - start < 10
    assert findings(result) == [
        ("app/kustomization.yaml", "HL007", 1, 1, stopped("kustomize build of app stopped after 1 s (limit: render-timeout)")),
        (*WITNESS, findings(result)[1][4]),
    ]  # fmt: skip
    assert gone(int(hanging_kustomize.read_text()))


# --- the child process itself ---------------------------------------------------------------


def run(code: str, **limits) -> subprocess.CompletedProcess:
    limits = {"timeout": 10, "memory": 256 << 20, **limits}
    return bounded.run([sys.executable, "-c", code], cwd=None, env=dict(os.environ), **limits)


def test_a_child_ended_by_a_signal_is_said_so():
    with pytest.raises(bounded.Stopped) as stopped:
        run("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")
    assert (stopped.value.reason, stopped.value.limit) == ("was ended by signal SIGSEGV", None)


def test_a_child_that_allocates_too_much_is_stopped_by_the_memory_limit():
    with pytest.raises(bounded.Stopped) as stopped:
        run("x = bytearray(512 << 20)", memory=128 << 20)
    assert (stopped.value.reason, stopped.value.limit) == (
        "used more than 128 MiB of memory (limit: render-memory)", "render-memory")


def test_a_child_gets_its_input_and_runs_in_its_own_session():
    done = run("import os, sys; print(sys.stdin.read(), os.getsid(0) == os.getpid(), os.environ['GOMEMLIMIT'])",
               input="hello")  # fmt: skip
    assert done.stdout == f"hello True {(256 << 20) - (32 << 20)}\n"


def test_kustomize_collects_garbage_less_often_under_the_same_memory_limit():
    from hooklint.sources.render.kustomize import _environment

    assert _environment("/nonexistent-home")["GOGC"] == "400"


LIMITS_AND_DEATH_SIGNAL = """
import ctypes, resource
signum = ctypes.c_int(-1)
ctypes.CDLL(None).prctl(2, ctypes.byref(signum))  # PR_GET_PDEATHSIG
print(resource.getrlimit(resource.RLIMIT_DATA), resource.getrlimit(resource.RLIMIT_AS), signum.value)
"""


@pytest.mark.parametrize("util_linux", [True, False], ids=["prlimit-setpriv", "preexec_fn"])
def test_a_child_is_limited_and_dies_with_hooklint_whichever_way_it_is_started(monkeypatch, util_linux):
    """With util-linux's prlimit and setpriv (vfork, no preexec_fn) and without them (preexec_fn):
    the same memory limits, hard too, and SIGKILL when hooklint dies."""
    if util_linux:
        assert bounded.launcher(256 << 20) is not None, "this machine has util-linux: the fast way must be taken"
    else:
        monkeypatch.setattr(bounded, "_util_linux", lambda: None)
    memory, space = 256 << 20, (256 << 20) + bounded._ADDRESS_SPACE_SLACK
    assert run(LIMITS_AND_DEATH_SIGNAL).stdout == f"({memory}, {memory}) ({space}, {space}) {int(signal.SIGKILL)}\n"


def test_the_launcher_is_found_in_the_systems_folders_only(monkeypatch, tmp_path):
    """A ``prlimit`` first on ``PATH`` is never the one run: hooklint asks /usr/bin and /bin."""
    (tmp_path / "prlimit").write_text("#!/bin/sh\nexit 0\n")
    (tmp_path / "prlimit").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    prefix = bounded.launcher(64 << 20)
    assert prefix is not None and prefix[0] in ("/usr/bin/prlimit", "/bin/prlimit")
    assert prefix[1:4] == (f"--data={64 << 20}:{64 << 20}", f"--as={(64 << 20) + bounded._ADDRESS_SPACE_SLACK}:"
                           f"{(64 << 20) + bounded._ADDRESS_SPACE_SLACK}", "--")  # fmt: skip
    assert prefix[5:] == ("--pdeathsig", "KILL", "--")


def test_a_program_that_is_not_there_cannot_start():
    with pytest.raises(FileNotFoundError):
        bounded.run(["/nonexistent/kubectl", "version"], cwd=None, env={}, timeout=10, memory=64 << 20)


def test_any_exception_while_waiting_kills_the_childs_process_group(tmp_path):
    """Ctrl-C's KeyboardInterrupt (or the exception a SIGTERM handler raises) while a child runs:
    the child and its own children are killed before the exception goes on."""
    pid_file = tmp_path / "grandchild.pid"
    code = ("import subprocess, sys, time; child = subprocess.Popen([sys.executable, '-c', 'import time; "
            f"time.sleep(300)']); open({str(pid_file)!r}, 'w').write(str(child.pid)); time.sleep(300)")  # fmt: skip

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 1.5)
    try:
        with pytest.raises(KeyboardInterrupt):
            run(code, timeout=60)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert gone(int(pid_file.read_text()))


def test_size_text():
    assert [bounded.size_text(n << 20) for n in (256, 1024, 2048, 1536)] == ["256 MiB", "1 GiB", "2 GiB", "1.5 GiB"]


def children_of(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    if int(handle.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
                pass
    return found


@sdk_only
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_ctrl_c_and_sigterm_stop_a_helm_rendering_and_its_child(repo, signum):
    write(repo, {"loop/Chart.yaml": CHART.format(name="loop"), "loop/templates/cm.yaml": RANGE_BOMB})
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "hooklint", "lint", "loop"], cwd=repo, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
    try:
        deadline, kids = time.monotonic() + 30, []
        while not kids and time.monotonic() < deadline:  # a child alive for a second: the rendering
            before = set(children_of(proc.pid))
            time.sleep(1)
            kids = sorted(before & set(children_of(proc.pid)))
        assert kids, "no Helm child started"
        proc.send_signal(signum)
        proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode != 0
    assert all(gone(kid) for kid in kids)


# --- YAML hooklint reads with PyYAML: aliases and depth bounded --------------------------------


def alias_bomb(levels: int = 9, width: int = 10, indent: str = "") -> str:
    lines = [f'{indent}a0: &a0 ["lol"]']
    for i in range(1, levels + 1):
        lines.append(f"{indent}a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def merge_bomb(levels: int = 12, width: int = 10, indent: str = "") -> str:
    lines = [f"{indent}m0: &m0 {{k0: 0, k1: 1, k2: 2, k3: 3}}"]
    for i in range(1, levels + 1):
        lines.append(f"{indent}m{i}: &m{i}\n{indent}  <<: [" + ", ".join([f"*m{i - 1}"] * width) + f"]\n{indent}  own{i}: {i}")
    return "\n".join(lines) + "\n"


def test_an_alias_bomb_in_a_kustomization_is_refused_before_anything_walks_it(repo):
    bomb = "resources:\n- cm.yaml\n" + alias_bomb()
    write(repo, {"app/kustomization.yaml": bomb, "app/cm.yaml": CONFIGMAP,
                 "overlay/kustomization.yaml": "resources:\n- ../app\n"})  # fmt: skip
    start = time.perf_counter()
    result = lint("app", "overlay", "good")
    assert time.perf_counter() - start < 20
    aliasing = "document contains excessive aliasing (more than 200,000 nodes reached through aliases)"
    assert findings(result)[:1] == [(*WITNESS, findings(result)[0][4])]
    assert [(f.path, f.rule_id, f.span.line, f.span.column, f.message) for f in result.findings if f.rule_id != "HL102"] == [
        # the kustomization itself, read as YAML: at the alias that crosses the limit
        ("app/kustomization.yaml", "HL001", 8, 50, f"Document cannot be read safely: {aliasing}; Kubernetes "
         "rejects it too. Simplify the document."),
        # the overlay that builds on it: at its entry, naming the anchor whose aliases are too many
        ("overlay/kustomization.yaml", "HL007", 2, 3, hl007(f"app/kustomization.yaml:7:5: {aliasing}")),
    ]  # fmt: skip


def test_an_alias_bomb_in_the_configuration_is_a_configuration_error(tmp_path):
    from hooklint.config import ConfigError, load_config

    (tmp_path / ".hooklint.yaml").write_text(alias_bomb())
    with pytest.raises(ConfigError) as error:
        load_config(str(tmp_path / ".hooklint.yaml"))
    assert str(error.value) == (f"{tmp_path / '.hooklint.yaml'}:5:5: invalid YAML in configuration: document "
                                "contains excessive aliasing (more than 200,000 nodes reached through aliases)")  # fmt: skip


def test_an_alias_bomb_in_chart_yaml_is_hl001_and_nothing_else(repo):
    write(repo, {"bomb/Chart.yaml": CHART.format(name="bomb") + alias_bomb(), "bomb/templates/cm.yaml": CONFIGMAP})
    result = bounded_call(lambda: lint("bomb"))
    assert [(f.path, f.rule_id, f.span.line) for f in result.findings] == [("bomb/Chart.yaml", "HL001", 9)]


@sdk_only
@pytest.mark.parametrize("body, problem", [
    (merge_bomb(indent="  "), "document contains excessive aliasing (more than 200,000 nodes reached through aliases); "
     "Kubernetes rejects it too"),
    ("  d: " + "[" * 150 + "]" * 150 + "\n", "document is nested more than 100 levels deep; Argo CD reads it (go-yaml "
     "goes 10,000 levels deep) and hooklint checks it without what lies deeper"),
], ids=["merge-keys", "deep"])  # fmt: skip
def test_a_rendered_object_hooklint_cannot_read_is_hl001_never_a_silent_pass(repo, body, problem):
    """Helm prints these; hooklint's reading of the rendered object (a merge bomb would expand while
    Helm's document head is read) stops at its limits and says so on Chart.yaml."""
    write(repo, {"hc/Chart.yaml": CHART.format(name="hc"),
                 "hc/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n" + body})  # fmt: skip
    result = bounded_call(lambda: lint("hc"))
    assert [(f.path, f.rule_id, f.span.line, f.message) for f in result.findings] == [
        ("hc/Chart.yaml", "HL001", 1, f"Document cannot be read safely: an object rendered from "
         f"hc/templates/cm.yaml: {problem}. Simplify the document.")]  # fmt: skip


def bounded_call(fn, seconds: float = 20.0, megabytes: float = 64.0):
    """``fn()``, checked to take less than ``seconds`` and to allocate less than ``megabytes`` of
    Python memory (tracemalloc)."""
    import tracemalloc

    tracemalloc.start()
    start = time.perf_counter()
    try:
        out = fn()
        elapsed, peak = time.perf_counter() - start, tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()
    assert elapsed < seconds, f"took {elapsed:.1f} s"
    assert peak < megabytes, f"allocated {peak:.0f} MB"
    return out


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])  # fmt: skip
@given(shape=st.sampled_from(["aliases", "merge", "mapping", "chain"]), levels=st.integers(1, 40),
       width=st.integers(1, 40))  # fmt: skip
def test_billion_laughs_of_any_shape_are_loaded_or_refused_in_bounded_time_and_memory(shape, levels, width):
    """Whatever the depth and width of an alias bomb, the bounded PyYAML loader and a full walk of
    what it returns (``json.dumps``, as kustomize option editing does) take bounded time and
    memory, or the loader refuses the document; a small expansion always loads."""
    import json

    import yaml

    from hooklint.yamlio import MAX_EXPANDED_NODES, BoundedLoader

    if shape == "aliases":
        text, expanded = alias_bomb(levels, width), width**levels
    elif shape == "merge":
        text, expanded = merge_bomb(levels, width), width**levels
    elif shape == "mapping":
        text = 'a0: &a0 {x: "lol"}\n' + "".join(
            f"a{i}: &a{i} {{" + ", ".join(f"k{j}: *a{i - 1}" for j in range(width)) + "}\n" for i in range(1, levels + 1))
        expanded = width**levels
    else:  # each anchor one level deeper than the last: deep once expanded, small as text
        text = 'a0: &a0 ["lol"]\n' + "".join(f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}]\n" if width == 2 and i < 12 else
                                             f"a{i}: &a{i} [*a{i - 1}]\n" for i in range(1, levels * 10))  # fmt: skip
        expanded = levels * 10

    def load_and_walk():
        try:
            return len(json.dumps(yaml.load(text, Loader=BoundedLoader)))
        except yaml.YAMLError:
            return None

    size = bounded_call(load_and_walk, seconds=5, megabytes=64)
    if expanded * levels * 10 < MAX_EXPANDED_NODES and shape != "chain":
        assert size is not None


# --- files of the wrong kind and size --------------------------------------------------------


def run_cli(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOOKLINT_CACHE_DIR": "off"}
    return subprocess.run([sys.executable, "-m", "hooklint", *args], capture_output=True, text=True, timeout=timeout,
                          cwd=cwd, env=env)  # fmt: skip


@pytest.mark.parametrize("name, kustomization, line, column, what", [
    ("pipe.yaml", "resources:\n- cm.yaml\n- pipe.yaml\n", 3, 3, "resources entry 'pipe.yaml' names app/pipe.yaml, "
     "which is a FIFO, not a regular file: not read"),
    ("patch.yaml", "resources:\n- cm.yaml\npatches:\n- path: patch.yaml\n", 4, 9, "patches entry 'patch.yaml' names "
     "app/patch.yaml, which is a FIFO, not a regular file: not read"),
    ("env", "resources:\n- cm.yaml\nconfigMapGenerator:\n- name: c\n  envs: [env]\n", 5, 3, "configMapGenerator entry "
     "'env' names app/env, which is a FIFO, not a regular file: not read"),
], ids=["resource", "patch", "generator"])  # fmt: skip
def test_a_fifo_named_by_a_kustomization_is_hl007_without_blocking(repo, name, kustomization, line, column, what):
    write(repo, {"app/kustomization.yaml": kustomization, "app/cm.yaml": CONFIGMAP})
    os.mkfifo(repo / "app" / name)
    result = bounded_call(lambda: lint("app", "good"))
    assert findings(result) == [("app/kustomization.yaml", "HL007", line, column, hl007(what)),
                                (*WITNESS, findings(result)[1][4])]  # fmt: skip


def test_a_kustomization_that_is_a_fifo_in_a_base_is_hl007(repo):
    write(repo, {"overlay/kustomization.yaml": "resources:\n- ../base\n", "base/cm.yaml": CONFIGMAP})
    os.mkfifo(repo / "base" / "kustomization.yaml")
    result = bounded_call(lambda: lint("overlay"))
    assert findings(result) == [("overlay/kustomization.yaml", "HL007", 2, 3, hl007(
        "base/kustomization.yaml:1:1: base/kustomization.yaml is a FIFO, not a regular file: hooklint renders regular files only"))]  # fmt: skip


def test_a_resource_over_max_file_size_is_hl007_and_other_big_files_are_not_copied(repo):
    write(repo, {"app/kustomization.yaml": "resources:\n- cm.yaml\n- big.yaml\n", "app/cm.yaml": CONFIGMAP,
                 "app/big.yaml": CONFIGMAP + "  pad: '" + "x" * 5000 + "'\n", "other/kustomization.yaml":
                 "resources:\n- cm.yaml\n", "other/cm.yaml": CONFIGMAP, "other/unused.bin": "x" * 5000})  # fmt: skip
    result = lint("app", "other", max_file_size=4096)
    assert findings(result) == [("app/kustomization.yaml", "HL007", 3, 3, hl007(
        "resources entry 'big.yaml' names app/big.yaml, which is larger than max-file-size (4,096 bytes): not read"))]
    files = kustomize._Inputs(str(repo), lambda p: p, 4096).collect(str(repo / "other"), kustomize.KustomizeOptions())
    assert [os.path.relpath(f, repo) for f in files] == ["other/cm.yaml", "other/kustomization.yaml"]


@pytest.mark.parametrize("name", ["templates/pipe.yaml", "values.yaml", "charts/sub/Chart.yaml"])
def test_a_fifo_in_a_chart_is_hl007_without_blocking(repo, name):
    write(repo, {"shop/Chart.yaml": CHART.format(name="shop"), "shop/templates/cm.yaml": CONFIGMAP})
    (repo / "shop" / name).parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(repo / "shop" / name)
    result = bounded_call(lambda: lint("shop"))
    where = os.path.join("shop", name)
    # the chart's files are listed (and checked) before any Chart.yaml is read, a subchart's too
    assert findings(result) == [("shop/Chart.yaml", "HL007", 1, 1, hl007(
        f"chart file {where} is a FIFO, not a regular file: not read"))]


def test_a_value_file_that_is_a_fifo_is_hl007(repo):
    from hooklint.sources.render.helm import HelmOptions, render_helm
    from hooklint.sources.render.rendered import RenderError

    write(repo, {"shop/Chart.yaml": CHART.format(name="shop")})
    os.mkfifo(repo / "prod.yaml")
    with pytest.raises(RenderError) as error:
        render_helm("shop", str(repo), HelmOptions("shop", value_files=("/prod.yaml",)))
    assert error.value.message == f"value file {repo / 'prod.yaml'} is a FIFO, not a regular file: not read"


@pytest.mark.parametrize("make, message", [
    (lambda p: os.mkfifo(p), "cannot read baseline: not a regular file (a FIFO); not read"),
    (lambda p: p.write_text(" " * (10 << 20) + "{}"), "cannot read baseline: larger than max-file-size (10,485,760 bytes)"),
    (lambda p: p.write_text("[" * 100_000), "not a hooklint baseline (invalid JSON: nested too deeply)"),
], ids=["fifo", "huge", "deep"])  # fmt: skip
def test_a_baseline_that_cannot_be_read_is_one_line_and_exit_2(repo, make, message):
    make(repo / "baseline.json")
    (repo / ".hooklint.yaml").write_text("baseline: baseline.json\n")
    proc = run_cli("lint", "good", cwd=repo)
    assert (proc.returncode, proc.stderr) == (2, f"hooklint: error: {repo / 'baseline.json'}: {message}\n")


def test_dev_zero_as_baseline_or_configuration_is_one_line_and_exit_2(repo):
    proc = run_cli("lint", "--baseline", "/dev/zero", "good", cwd=repo)
    assert (proc.returncode, proc.stderr) == (
        2, "hooklint: error: /dev/zero: cannot read baseline: not a regular file (a device); not read\n")
    proc = run_cli("lint", "--config", "/dev/zero", "good", cwd=repo)
    assert (proc.returncode, proc.stderr) == (
        2, "hooklint: error: /dev/zero: cannot read configuration: not a regular file (a device); not read\n")


def test_a_configuration_file_that_is_a_fifo_is_refused_not_skipped(repo):
    os.mkfifo(repo / ".hooklint.yaml")
    proc = run_cli("lint", "good", cwd=repo)
    assert (proc.returncode, proc.stderr) == (
        2, f"hooklint: error: {repo / '.hooklint.yaml'}: cannot read configuration: not a regular file\n")


# --- depth ------------------------------------------------------------------------------------


def test_four_hundred_nested_bases_render_and_the_deepest_hook_is_reported(repo):
    """kustomize has no nesting limit; hooklint walks the bases with a stack (400 levels ended in
    `internal error: RecursionError` and no report)."""
    depth = 400
    for i in range(depth):
        kustomization = f"resources:\n- ../b{i + 1}\n" if i < depth - 1 else "resources:\n- hook.yaml\n- settings.yaml\n"
        write(repo, {f"b{i}/kustomization.yaml": kustomization})
    write(repo, {f"b{depth - 1}/hook.yaml": LATEST_TAG_HOOK, f"b{depth - 1}/settings.yaml": CONFIGMAP})
    result = lint("b0", "good")
    assert [g[:4] for g in findings(result)] == [(f"b{depth - 1}/hook.yaml", "HL102", 17, 18), WITNESS]


def test_subcharts_nested_too_deep_are_hl007_at_the_stated_limit(repo):
    from hooklint.sources.render.helm import MAX_SUBCHART_DEPTH

    folder = "top"
    write(repo, {"top/Chart.yaml": CHART.format(name="top")})
    for i in range(MAX_SUBCHART_DEPTH + 1):
        folder += f"/charts/c{i}"
        write(repo, {f"{folder}/Chart.yaml": CHART.format(name=f"c{i}")})
    result = lint("top", "good")
    deepest = os.path.join(*folder.split("/")[:-2])  # the chart whose subchart is one level too deep
    assert findings(result)[0][:4] == WITNESS
    assert findings(result)[1:] == [(os.path.join(deepest, "Chart.yaml"), "HL007", 1, 1, hl007(
        f"subcharts are nested more than {MAX_SUBCHART_DEPTH} levels deep ({folder}): hooklint reads no deeper"))]


@pytest.mark.parametrize("kind", ["directory", "helm"])
def test_folders_nested_deeper_than_pythons_recursion_limit_are_walked_and_removed(repo, kind, tmp_path_factory,
                                                                                   monkeypatch):
    """Walked (discovery, a chart's files) and, copied for a renderer, removed again without
    recursion (Python 3.11's os.walk and shutil.rmtree recurse once per level). The temporary
    folder is this test's own, so other hooklint runs on the machine cannot leave folders in it."""
    import tempfile

    from hooklint.files import remove_tree

    private = str(tmp_path_factory.mktemp("tmp"))
    monkeypatch.setenv("TMPDIR", private)
    monkeypatch.setattr(tempfile, "tempdir", private)

    folder = repo / "deep"
    folder.mkdir()
    if kind == "helm":
        write(folder, {"Chart.yaml": CHART.format(name="deep")})
        (folder / "templates").mkdir()
        os.chdir(folder / "templates")
    else:
        os.chdir(folder)
    for _ in range(sys.getrecursionlimit() + 100):
        os.mkdir("d")
        os.chdir("d")
    Path("hook.yaml").write_text(LATEST_TAG_HOOK)
    Path("settings.yaml").write_text(CONFIGMAP)
    os.chdir(repo)
    before = set(os.listdir(tempfile.gettempdir()))
    try:
        result = lint("deep")
    finally:
        left = set(os.listdir(tempfile.gettempdir())) - before
        remove_tree(str(folder))  # else pytest's own clean-up recurses
    assert not folder.exists()
    assert not [name for name in left if name.startswith("hooklint-")]
    if kind == "directory" or find_helm() is not None:
        assert [(f.rule_id, f.span.line, os.path.basename(f.path)) for f in result.findings] == [("HL102", 17, "hook.yaml")]


@pytest.mark.parametrize("kind", ["directory", "kustomize", "helm"])
def test_the_file_system_calls_of_a_deep_tree_grow_with_its_folders_not_with_their_square(tmp_path, kind, monkeypatch):
    """Each folder's real path is its parent's joined with its name, one ``lstat`` (issue 34):
    ``os.path.realpath`` of every folder and file of a chart, one ``lstat`` per level of its path,
    made a chart of 1,100 nested folders take 20 s. Twice the depth is at most about twice the calls
    (each tree in a repository of its own, after a first run that pays what any run pays once)."""
    if kind == "helm" and find_helm() is None:
        pytest.skip("no Helm renderer")
    if kind == "kustomize" and kustomize.find_kustomize() is None:
        pytest.skip("no kustomize")
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")

    def calls(depth: int) -> int:
        repo = tmp_path / f"repo{depth}"
        (repo / ".git").mkdir(parents=True)
        monkeypatch.chdir(repo)
        nested = "/".join(["d"] * depth)
        if kind == "helm":
            write(repo, {"app/Chart.yaml": CHART.format(name="deep"), f"app/templates/{nested}/hook.yaml": LATEST_TAG_HOOK})
        else:
            write(repo, {f"app/{nested}/hook.yaml": LATEST_TAG_HOOK})
        if kind == "kustomize":
            write(repo, {"app/kustomization.yaml": f"resources:\n- {nested}/hook.yaml\n"})
        counted = [0]
        real_lstat = os.lstat

        def lstat(path, *args, **kwargs):
            counted[0] += 1
            return real_lstat(path, *args, **kwargs)

        monkeypatch.setattr(os, "lstat", lstat)
        try:
            result = lint("app")
        finally:
            monkeypatch.setattr(os, "lstat", real_lstat)
        assert [(f.rule_id, os.path.basename(f.path)) for f in result.findings if f.rule_id == "HL102"] == [
            ("HL102", "hook.yaml")]
        return counted[0]

    calls(1)
    shallow, deep = calls(100), calls(200)
    assert deep <= 2.2 * shallow, (shallow, deep)


@pytest.mark.parametrize("name, text, message", [
    ("kustomization.yaml", "resources: " + "[" * 100_000 + "\n", "HL001"),
    ("Chart.yaml", CHART.format(name="x") + "deep: " + "[" * 100_000 + "\n", "HL001"),
], ids=["kustomization", "chart"])  # fmt: skip
def test_a_hundred_thousand_nested_brackets_in_a_renderer_input_are_hl001(repo, name, text, message):
    write(repo, {f"app/{name}": text})
    result = bounded_call(lambda: lint("app", "good"))
    assert [(f.path, f.rule_id) for f in result.findings] == [(f"app/{name}", message), WITNESS[:2]]


def test_deeply_nested_toml_configuration_is_a_configuration_error(tmp_path):
    from hooklint.config import ConfigError, load_config

    (tmp_path / "pyproject.toml").write_text("[tool.hooklint]\nselect = " + "[" * 100_000 + "\n")
    with pytest.raises(ConfigError) as error:
        load_config(str(tmp_path / "pyproject.toml"))
    assert str(error.value).endswith(": invalid TOML in configuration: nested too deeply")


def test_an_application_hooklint_fails_on_is_one_hl007_and_the_others_are_reported(repo, monkeypatch):
    """Isolation: an internal error (here a RecursionError raised while loading one application)
    becomes that application's finding, named by its type and where it was raised, never by its
    text (which may quote a value of the application); the run and its report go on."""
    import hooklint.pipeline as pipeline

    write(repo, {"bad/hook.yaml": LATEST_TAG_HOOK})
    real = pipeline.load_application

    def load(app, config):
        if app.key == "bad":
            raise RecursionError("maximum recursion depth exceeded near 'hunter2-db-password'")
        return real(app, config)

    monkeypatch.setattr(pipeline, "load_application", load)
    result = lint("bad", "good")
    raised = f"RecursionError at test_limits.py:{load.__code__.co_firstlineno + 2} in load"
    assert findings(result) == [
        ("bad/hook.yaml", "HL007", 1, 1, f"hooklint failed on this application (internal error: {raised}); nothing of it is checked. Please report it with the files that cause it."),
        (*WITNESS, findings(result)[1][4]),
    ]  # fmt: skip
    plans, errors = pipeline.plan_paths(["bad", "good"], Config())
    assert [p.key for p in plans] == ["good"]
    assert [(e.path, e.message) for e in errors] == [("bad/hook.yaml", "hooklint failed on this application (internal "
                                                      f"error: {raised}); no plan")]
