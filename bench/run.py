"""Speed and memory figures for hooklint (a script that prints figures, not a timed test).

    python bench/run.py                    # every figure at the sizes of the targets (issue 34's table)
    python bench/run.py --quick            # a smoke run: 1 run per figure, smaller sizes
    python bench/run.py --profile          # also where an in-process run spends its CPU time
    python bench/run.py --baseline none    # no comparison with another commit
    python bench/run.py [--corpus DIR] [--files 2000] [--runs 3] [--single-runs 20] [--jobs N]
                        [--app-objects 5000] [--big-file-docs 40000] [--overlays 100] [--baseline d81bbfd]

The machine running this is assumed noisy, so every speed figure is a ratio to a "parse floor"
measured in the same run, interleaved with the hooklint runs it is compared with: PyYAML's C loader
(``yaml.compose_all``, CSafeLoader) composing the same files, reading included, timed inside one
Python process ("in process", the reference floor) and as the wall time of that whole subprocess
("as a subprocess", interpreter and ``import yaml`` included). Each figure is printed as wall
seconds and CPU seconds (user + system of hooklint and of the children it waited for: ``--jobs``
workers and renderers), both as ratios to the floor; the wall ratio is the targeted one. Every
targeted figure is printed with its target and ``ok`` / ``MISSED`` (``ERROR`` when hooklint
failed), and repeated in a summary table at the end.

This checkout's ``hooklint/`` and ``rules/`` as they stand (uncommitted changes included) are
staged in the bench's temporary folder (:func:`stage_tree`) and run from there with ``PYTHONPATH``,
as the baseline is, with the bench's folder as the current one (``python -m`` puts the current
folder first on ``sys.path``). Run it with a Python in which hooklint is not installed editable
(``pip install .``, the wheel, or not installed): an editable install's finder comes before
``PYTHONPATH``, so every run, the baseline's too, would import the editable checkout and a paired
figure would compare it with itself; the bench checks where each tree's ``import hooklint`` lands
and refuses to run otherwise.

Every figure of issue 34's table is also measured on the baseline commit (``--baseline``, default
``d81bbfd``): its tree is exported with ``git archive`` into the bench's temporary folder and run
from there with ``PYTHONPATH`` (``rules/`` linked as ``hooklint/rules``, as installed), each run of
it next to the run of this checkout on the same inputs (which goes first alternates by round), with
a private cache of its own. Case (i) prints CPU seconds new / old per figure (target: not slower,
<= 1.0x): the median of each round's ratio, the two trees' runs of a round next to each other (a
shared machine's speed drifts by tens of percent over minutes; a ratio of medians taken over
all rounds moved with it), with the lowest and highest and the number of rounds; case (e) runs at
least 5 rounds (a second each). Figures of the table and their cases: 2,000 plain files ``--jobs
1`` no (result) cache, the same with the default jobs and the same ``--jobs 1`` with a warm cache (a); one file, wall (b); one
application of 5,000 objects (e); a 40,000-document file, ratio and MB (f); 100 kustomize
applications with a warm cache (h); against ``d81bbfd`` (i).

Cases, on copies of the public corpus (the application folders kept: ``r0000/<corpus>``,
``r0001/<corpus>``, ...) and on generated trees:

(a) ``hooklint lint -f json`` (a subprocess, output to /dev/null) on 2,000 plain files (``--files``)
    with no result cache (:func:`drop_results` before each run, untimed) and the renders of the
    corpus copies' kustomizations from the render cache, as the table's "today" was measured
    (its bench kept a warm render cache; the result cache is issue 34's own): ``--jobs 1``
    (target <= 2.2x the in-process floor) and ``--jobs 0`` or ``--jobs N`` (default: 0, one
    worker per CPU; target <= 2.0x); ``--jobs 1`` with both caches warm (target <= 0.6x);
    ``--jobs 1`` with every cache off (``HOOKLINT_CACHE_DIR=off``: a first run, kubectl's
    renders timed; no target, paired); also the files/second of the tree of a fifth of the files;
(a') file-system calls per file on that tree (a counter, not a timing): ``hooklint lint --jobs 1``
    run in a child ``python -c`` that wraps ``os.stat`` and ``os.lstat`` (``Path.stat``,
    ``os.path.isfile`` / ``isdir`` / ``exists`` / ``islink`` / ``realpath`` go through them) and
    ``hooklint.sources.repository.git.git_root``; printed per file, with the folders of the tree
    (target: ``stat`` + ``lstat`` <= 3 per file; ``git_root`` calls <= folders);
(b) ``hooklint lint one-file.yaml``: median wall time of ``--single-runs`` (target <= 0.08 s) and
    median CPU seconds (target <= 0.07 s), and the slowest imports (``python -X importtime``);
(c) ``--jobs N`` against ``--jobs 1`` on the plain files: speed-up (target >= 1.6x on 2 cores) and
    byte-identical outputs;
(d) peak memory (max RSS) of the plain-files run (target <= 250 MB);
(e) one application: one folder of 5,000 objects (``--app-objects``) in 100 files of 100
    documents: ``hooklint lint -f json --jobs 1`` against the floor of those files (target <= 2.5x),
    and ``hooklint plan`` of the folder (no target);
(f) one generated ~10 MB file of 40,000 small documents (``--big-file-docs``; ConfigMaps,
    ServiceAccounts and hook Jobs, ~250 bytes each, kept under the default 10 MiB max-file-size
    and linted with a ``--config`` raising it anyway): ``hooklint lint -f json --jobs 1`` against
    the floor of that file (target <= 4.0x) and its peak RSS (target <= 150 MB; the baseline's
    printed beside it);
(g) linearity: the cost per file (``lint --jobs 1`` minus the start-up, a folder of one tiny
    object, divided by the files) on the two plain-file trees, and the cost per object of one
    application of half and all of ``--app-objects``; target: large / small <= 1.25 for both;
    (e), (f) and (g)'s application run with every cache off (``HOOKLINT_CACHE_DIR=off``): they
    measure linting, not the result cache's stat pass (a run over an unchanged tree: (a) warm, (h));
    (g)'s plain trees run with no renderer program on ``PATH`` (only the Python interpreter's folder),
    or kubectl's renders of the corpus copies would be timed, not hooklint;
(h) kustomize overlays: 100 generated applications (``--overlays``; a ``base/`` with a hook Job and
    a ConfigMap, an ``overlays/prod/`` using ``resources``, ``images``, ``namePrefix``,
    ``commonAnnotations`` and a ``configMapGenerator``) linted with ``hooklint lint -f json
    --jobs 1``: a fresh ``HOOKLINT_CACHE_DIR`` (cold) then the same folder again (warm), printed;
    then the warm run against the floor of the tree's files (target <= 1.0x); skipped when
    neither ``kustomize`` nor ``kubectl`` is on PATH;
(i) the comparison with the baseline (above).

``--profile`` adds a cProfile of an in-process ``lint_paths(jobs=1)`` on the small tree, timed with
``time.process_time`` (CPU seconds, so the machine's load does not count), summed per module.

``--quick`` is a smoke run: 1 run per measurement and smaller sizes (500 files, an application of
1,000 objects, a file of 8,000 documents, 10 overlays, 5 single runs); its figures do not meet the
sizes the targets are stated for.

Subprocesses run with a private ``PYTHONPYCACHEPREFIX`` and ``PYTHONDONTWRITEBYTECODE`` unset (it
is set on the shared development machine), so bytecode is written and reused as an installed
hooklint's would be: compiling every module on each start would otherwise add ~70 ms per run. They
also run with a private ``HOOKLINT_CACHE_DIR`` in the bench's temporary folder (every measurement is
preceded by an untimed run of each command, which fills it; the baseline has its own), so no figure
depends on the state of the user's cache; case (a)'s "no cache" figures drop its result cache before
each run, the "every cache off" figures set it to ``off``, and case (h)'s cold runs use fresh
folders of their own.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Mapping, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_CORPUS = os.path.join(ROOT, os.pardir, "shared", "corpus", "public")
SUFFIXES = (".yaml", ".yml", ".json")
DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024  # hooklint's default max-file-size (hooklint.loader)

#: Set by main(): the bench's private render cache (see the module docstring).
CACHE_DIR: Optional[str] = None


def manifest_files(root: str) -> list[str]:
    out: list[str] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        out.extend(os.path.join(folder, f) for f in sorted(files) if f.lower().endswith(SUFFIXES) and not f.startswith("."))
    return sorted(out)


def replicate(corpus: str, dest: str, min_files: int) -> int:
    """Copy the corpus to dest/r0000, dest/r0001, ... until at least ``min_files`` manifests; the
    last copy stops at a folder boundary (an application is never cut in half)."""
    files = manifest_files(corpus)
    by_folder: dict[str, list[str]] = {}
    for f in files:
        by_folder.setdefault(os.path.dirname(f), []).append(f)
    count, copy = 0, 0
    while count < min_files:
        for folder in sorted(by_folder):
            if count >= min_files:
                break
            target = os.path.join(dest, f"r{copy:04d}", os.path.relpath(folder, corpus))
            os.makedirs(target, exist_ok=True)
            for f in by_folder[folder]:
                shutil.copyfile(f, os.path.join(target, os.path.basename(f)))
                count += 1
        copy += 1
    return count


def plan_tree(dest: str, objects: int) -> None:
    """One directory holding ``objects`` objects (100 documents per file): hooks in several phases
    and waves, their ServiceAccounts and ConfigMaps, and plain resources."""
    os.makedirs(dest, exist_ok=True)
    phases = ["PreSync", "Sync", "PostSync", "SyncFail"]
    docs: list[str] = []
    for i in range(objects):
        kind = i % 4
        if kind == 0:
            docs.append(
                f"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: job-{i}\n  annotations:\n"
                f"    argocd.argoproj.io/hook: {phases[i % 3]}\n    argocd.argoproj.io/sync-wave: \"{i % 7 - 3}\"\n"
                "    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation\nspec:\n  backoffLimit: 1\n"
                f"  activeDeadlineSeconds: 600\n  template:\n    spec:\n      serviceAccountName: sa-{i + 1}\n"
                "      automountServiceAccountToken: false\n      restartPolicy: Never\n      containers:\n"
                f"        - name: main\n          image: ghcr.io/acme/tool:1.{i}\n          envFrom:\n"
                f"            - configMapRef:\n                name: cm-{i + 2}\n"
            )
        elif kind == 1:
            docs.append(f"apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa-{i}\n"
                        f"  annotations:\n    argocd.argoproj.io/sync-wave: \"{i % 5 - 4}\"\n")
        elif kind == 2:
            docs.append(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\ndata:\n  key: value-{i}\n")
        else:
            docs.append(f"apiVersion: v1\nkind: Service\nmetadata:\n  name: svc-{i}\nspec:\n  ports:\n    - port: 80\n")
    for n in range(0, objects, 100):
        with open(os.path.join(dest, f"objects-{n // 100:03d}.yaml"), "w", encoding="utf-8") as handle:
            handle.write("---\n".join(docs[n : n + 100]))


def big_file(path: str, documents: int) -> int:
    """One file of ``documents`` small documents (~250 bytes each, ``---`` included): ConfigMaps,
    ServiceAccounts and hook Jobs in turn. Returns its size in bytes."""
    phases = ["PreSync", "Sync", "PostSync"]
    docs: list[str] = []
    for i in range(documents):
        kind = i % 3
        if kind == 0:
            docs.append(
                f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings-{i:05d}\n  labels:\n"
                f"    app.kubernetes.io/name: app-{i % 97:02d}\n    app.kubernetes.io/part-of: bench\n"
                f"data:\n  LOG_LEVEL: info\n  ENDPOINT: https://api.example.com/v{i % 3}\n"
            )
        elif kind == 1:
            docs.append(
                f"apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: runner-{i:05d}\n  labels:\n"
                f"    app.kubernetes.io/name: app-{i % 97:02d}\n    app.kubernetes.io/part-of: bench\n"
                f"  annotations:\n    argocd.argoproj.io/sync-wave: \"{i % 5 - 2}\"\nautomountServiceAccountToken: false\n"
            )
        else:
            docs.append(
                f"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: hook-{i:05d}\n  annotations:\n"
                f"    argocd.argoproj.io/hook: {phases[i % 3]}\n    argocd.argoproj.io/hook-delete-policy: HookSucceeded\n"
                f"spec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n"
                f"        - name: main\n          image: ghcr.io/acme/tool:1.{i % 50}\n"
            )
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("---\n".join(docs))
    return os.path.getsize(path)


def kustomize_tree(dest: str, apps: int) -> list[str]:
    """``apps`` kustomize applications ``app-NNN/{base,overlays/prod}``; returns the overlays."""
    overlays = []
    for n in range(apps):
        base = os.path.join(dest, f"app-{n:03d}", "base")
        prod = os.path.join(dest, f"app-{n:03d}", "overlays", "prod")
        os.makedirs(base)
        os.makedirs(prod)
        files = {
            os.path.join(base, "kustomization.yaml"): (
                "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
                "resources:\n  - migrate-job.yaml\n  - settings.yaml\n"
            ),
            os.path.join(base, "migrate-job.yaml"): (
                f"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate-{n:03d}\n  annotations:\n"
                "    argocd.argoproj.io/hook: PreSync\n    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation\n"
                "    argocd.argoproj.io/sync-wave: \"-1\"\nspec:\n  backoffLimit: 1\n  activeDeadlineSeconds: 300\n"
                "  template:\n    spec:\n      restartPolicy: Never\n      automountServiceAccountToken: false\n"
                "      containers:\n        - name: migrate\n          image: ghcr.io/acme/migrate:1.0.0\n"
                "          envFrom:\n            - configMapRef:\n                name: settings\n"
                "          securityContext:\n            runAsNonRoot: true\n            allowPrivilegeEscalation: false\n"
            ),
            os.path.join(base, "settings.yaml"): (
                f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  APP: app-{n:03d}\n  LOG_LEVEL: debug\n"
            ),
            os.path.join(prod, "kustomization.yaml"): (
                "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
                "resources:\n  - ../../base\n"
                "namePrefix: prod-\n"
                f"images:\n  - name: ghcr.io/acme/migrate\n    newTag: \"2.{n}.0\"\n"
                f"commonAnnotations:\n  acme.example.com/team: team-{n % 7}\n  acme.example.com/env: prod\n"
                f"configMapGenerator:\n  - name: release\n    literals:\n      - RELEASE=2.{n}.0\n      - REGION=eu-west-1\n"
            ),
        }
        for path, text in files.items():
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
        overlays.append(prod)
    return overlays


def env(tree: Optional[str] = None, **extra: str) -> dict[str, str]:
    """The environment of a hooklint subprocess: ``tree``'s hooklint (this checkout by default,
    :data:`OLD` for the baseline), bytecode written to a private prefix, the bench's private
    cache (the baseline's own, :data:`OLD_CACHE_DIR`), then ``extra``."""
    tree = tree or NEW
    out = dict(os.environ)
    out.pop("PYTHONDONTWRITEBYTECODE", None)
    out["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), "hooklint-bench-pycache")
    out["PYTHONPATH"] = tree + os.pathsep + out.get("PYTHONPATH", "")
    cache = OLD_CACHE_DIR if tree != NEW else CACHE_DIR
    if cache is not None:
        out["HOOKLINT_CACHE_DIR"] = cache
    out.update(extra)
    return out


def hooklint_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "hooklint", *args]


#: ``HOOKLINT_CACHE_DIR=off``: every cache off (a "no cache" figure).
NO_CACHE = {"HOOKLINT_CACHE_DIR": "off"}


@dataclass
class Cmd:
    """A hooklint command line with the environment it runs in (on top of :func:`env`)."""

    argv: list[str]
    extra_env: Optional[dict[str, str]] = None
    #: Drop the result cache (``results/`` and ``runs/`` of the tree's private cache) before each
    #: run, untimed, and keep the render cache: "no cache" as issue 34's table measured it (its
    #: "today" figures ran with the render cache warm; the result cache is the issue's own).
    no_results: bool = False


def drop_results(tree: Optional[str]) -> None:
    """Remove the result cache of ``tree``'s private cache folder (:func:`env`), keeping its render
    cache; the baseline (older than the result cache) has none to remove."""
    cache = OLD_CACHE_DIR if tree not in (None, NEW) else CACHE_DIR
    if cache is not None:
        for part in ("results", "runs"):
            shutil.rmtree(os.path.join(cache, part), ignore_errors=True)


def run(cmd: "list[str] | Cmd", output: str = os.devnull, extra_env: Optional[dict[str, str]] = None,
        tree: Optional[str] = None) -> tuple[float, int, float]:  # fmt: skip
    """Wall time, exit code and CPU seconds (user + system of the child and of the children it
    waited for: --jobs workers, renderers) of ``cmd``; a failure (an exit code other than 0 or 1:
    hooklint crashed or refused its arguments) prints the end of its stderr."""
    if isinstance(cmd, Cmd):
        extra_env = {**(cmd.extra_env or {}), **(extra_env or {})}
        if cmd.no_results:
            drop_results(tree)
        cmd = cmd.argv
    with open(output, "w") as sink:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(cmd, stdout=sink, stderr=subprocess.PIPE, env=env(tree, **(extra_env or {})))
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in (0, 1):
        shown = " ".join(os.path.basename(part) if os.sep in part else part for part in cmd[2:])
        sys.stdout.flush()
        sys.stderr.write(f"  !! `{shown}`{' (baseline)' if tree and tree != NEW else ''} exited {proc.returncode}:\n")
        sys.stderr.write("     " + proc.stderr.decode(errors="replace")[-1500:].strip().replace("\n", "\n     ") + "\n")
        sys.stderr.flush()
    return elapsed, proc.returncode, cpu


@dataclass
class Timing:
    """Median wall time and median CPU seconds (user + system) of a command over the runs;
    ``error`` says why it cannot be trusted."""

    seconds: float
    error: Optional[str] = None
    cpu: float = float("nan")

    def __truediv__(self, other: "Timing | float") -> float:
        return self.seconds / (other.seconds if isinstance(other, Timing) else other)

    def cpu_ratio(self, other: "Timing") -> float:
        return self.cpu / other.cpu if other.cpu > 0 else float("nan")


FLOOR = (
    "import sys, time, yaml\n"
    "files = open(sys.argv[1], encoding='utf-8').read().split(chr(10))\n"
    "start, cpu = time.perf_counter(), time.process_time()\n"
    "for path in files:\n"
    "    with open(path, 'rb') as handle:\n"
    "        data = handle.read()\n"
    "    try:\n"
    "        for node in yaml.compose_all(data, Loader=yaml.CSafeLoader):\n"
    "            pass\n"
    "    except yaml.YAMLError:\n"
    "        pass\n"
    "print(time.perf_counter() - start, time.process_time() - cpu)\n"
)


def floor_once(listing: str) -> tuple[float, float, float, float]:
    """(in-process compose wall time, wall time of the subprocess, in-process CPU seconds, CPU
    seconds of the subprocess) of one floor run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", FLOOR, listing], capture_output=True, text=True, env=env())
    outer = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise RuntimeError(f"the parse floor failed: {out.stderr[-1500:]}")
    inner, inner_cpu = (float(x) for x in out.stdout.split())
    outer_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return inner, outer, inner_cpu, outer_cpu


#: Set by main(): this checkout's hooklint as it stands, staged in the bench's folder (:func:`stage_tree`).
NEW = ROOT
#: Set by main(): the baseline's tree (``--baseline``, exported from git), or None (no comparison).
OLD: Optional[str] = None
OLD_CACHE_DIR: Optional[str] = None
BASELINE = "d81bbfd"

#: Paired figures for the comparison with the baseline (:class:`Paired`), in the order measured.
PAIRED: list["Paired"] = []


@dataclass
class Paired:
    """One figure of case (i): this tree's and the baseline's median CPU seconds, and the median,
    lowest and highest of the rounds' ratios (each round's new / old, the two runs next to each
    other: a machine whose speed drifts between rounds moves both alike, and their ratio less
    than either median), over ``rounds`` rounds."""

    label: str
    new: float
    old: float
    ratio: float
    low: float
    high: float
    rounds: int
    error: Optional[str]


def measure(cmds: "Mapping[str, list[str] | Cmd]", runs: int, floor_files: Optional[list[str]] = None,
            warmup: bool = True, paired: Optional[dict[str, str]] = None) -> dict[str, Timing]:  # fmt: skip
    """Median wall time (and CPU seconds) of each command over ``runs`` rounds, the commands (and
    the parse floor of ``floor_files``: keys ``floor`` in process, ``floor_subprocess`` its wall
    time) taking turns within each round, so that the machine's noise falls on all of them alike.
    ``warmup``: one untimed round first (bytecode, page cache, the private caches). ``paired``:
    {name: label} of the commands also run with the baseline's tree (:data:`OLD`), interleaved
    with this tree's runs (new then old, old then new in turn), under the key ``old:NAME``; each
    pair's CPU figures go to :data:`PAIRED`."""
    listing = None
    if floor_files is not None:
        fd, listing = tempfile.mkstemp(prefix="floor-", suffix=".txt", dir=WORK)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write("\n".join(floor_files))
    paired = paired if OLD is not None else None
    groups: list[list[tuple[str, "list[str] | Cmd", Optional[str]]]] = []
    for name, cmd in cmds.items():
        groups.append([(name, cmd, None)] + ([("old:" + name, cmd, OLD)] if paired and name in paired else []))
    plan = [item for group in groups for item in group]
    samples: dict[str, list[float]] = {name: [] for name, _, _ in plan}
    cpus: dict[str, list[float]] = {name: [] for name, _, _ in plan}
    errors: dict[str, str] = {}
    inner: list[float] = []
    outer: list[float] = []
    inner_cpu: list[float] = []
    outer_cpu: list[float] = []
    if warmup:
        for name, cmd, tree in plan:
            if run(cmd, tree=tree)[1] not in (0, 1):
                errors[name] = "hooklint failed"
    for round_ in range(max(1, runs)):
        if listing is not None:
            i, o, ic, oc = floor_once(listing)
            inner.append(i)
            outer.append(o)
            inner_cpu.append(ic)
            outer_cpu.append(oc)
        # the baseline first in every other round: neither tree always runs right after the other
        for name, cmd, tree in (item for group in groups for item in (group[::-1] if round_ % 2 else group)):
            elapsed, code, cpu = run(cmd, tree=tree)
            samples[name].append(elapsed)
            cpus[name].append(cpu)
            if code not in (0, 1):
                errors[name] = f"hooklint{' (baseline)' if tree else ''} exited {code}"
    out = {name: Timing(statistics.median(values), errors.get(name), statistics.median(cpus[name]))
           for name, values in samples.items()}  # fmt: skip
    if listing is not None:
        out["floor"] = Timing(statistics.median(inner), cpu=statistics.median(inner_cpu))
        out["floor_subprocess"] = Timing(statistics.median(outer), cpu=statistics.median(outer_cpu))
        os.unlink(listing)
    for name, label in (paired or {}).items():
        new, old = out[name], out["old:" + name]
        ratios = [n / o for n, o in zip(cpus[name], cpus["old:" + name]) if o > 0] or [float("nan")]
        PAIRED.append(Paired(label, new.cpu, old.cpu, statistics.median(ratios), min(ratios), max(ratios), len(ratios),
                             new.error or old.error))  # fmt: skip
    return out


def peak_rss_mb(cmd: "list[str] | Cmd", tree: Optional[str] = None) -> float:
    """Max RSS of ``cmd`` (``tree``'s hooklint: :func:`env`) and of its own children (the --jobs
    workers), in MB, measured from a fresh wrapper process so that earlier runs do not count."""
    extra = cmd.extra_env or {} if isinstance(cmd, Cmd) else {}
    cmd = cmd.argv if isinstance(cmd, Cmd) else cmd
    probe = (
        "import resource, subprocess, sys\n"
        "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe, *cmd], capture_output=True, text=True, env=env(tree, **extra))
    return int(out.stdout.strip() or 0) / 1024  # Linux reports KB


#: Run in a child ``python -c ROOT ARGS...``: ``hooklint lint ARGS`` in process, counting calls of
#: os.stat, os.lstat (Path.stat and the os.path predicates and realpath go through them) and of
#: git_root (patched in its module before any other hooklint module imports it); prints JSON.
FS_COUNTER = (
    "import json, os, sys\n"
    "counts = {'stat': 0, 'lstat': 0, 'git_root': 0}\n"
    "def wrap(name, real):\n"
    "    def counted(*args, **kwargs):\n"
    "        counts[name] += 1\n"
    "        return real(*args, **kwargs)\n"
    "    return counted\n"
    "import hooklint.sources.repository.git as git\n"
    "git.git_root = wrap('git_root', git.git_root)\n"
    "from hooklint.cli import app\n"
    "real = os.stat, os.lstat\n"
    "os.stat, os.lstat = wrap('stat', os.stat), wrap('lstat', os.lstat)\n"
    "try:\n"
    "    app(args=['lint', '-f', 'json', '--jobs', '1', '-o', os.devnull, *sys.argv[1:]], standalone_mode=False)\n"
    "except SystemExit:\n"
    "    pass\n"
    "os.stat, os.lstat = real\n"
    "print(json.dumps(counts))\n"
)


def fs_calls(root: str) -> tuple[dict[str, int], Optional[str]]:
    """The counts of :data:`FS_COUNTER` for ``hooklint lint --jobs 1 root`` (None on failure, with why)."""
    out = subprocess.run([sys.executable, "-c", FS_COUNTER, root], capture_output=True, text=True, env=env())
    try:
        return json.loads(out.stdout.strip().splitlines()[-1]), None
    except (ValueError, IndexError):
        return {"stat": 0, "lstat": 0, "git_root": 0}, f"counter failed: {out.stderr[-300:]}"


def json_report(cmd: "list[str] | Cmd", output: str) -> tuple[Optional[dict], str]:
    """Run a ``-f json`` command once into ``output``: (the report or None, a one-line description)."""
    _, code, _ = run(cmd, output)
    try:
        with open(output, encoding="utf-8") as handle:
            report = json.load(handle)
    except (OSError, ValueError):
        return None, f"no JSON report (exit code {code})"
    summary = report.get("summary") or {}
    errors = report.get("errors") or []
    text = f"{summary.get('files', '?')} files, {len(report.get('findings') or [])} findings, {len(errors)} input errors"
    if errors:
        first = errors[0]
        text += f" (first: {first.get('message', first) if isinstance(first, dict) else first})"
    return report, text


# ---------------------------------------------------------------------------------------------
# Targets: every targeted figure is printed with its target and status, and kept for the summary.


@dataclass
class Figure:
    case: str
    label: str
    value: float
    unit: str  # "x", "s", "MB", "bool"
    op: str  # "<=" or ">="
    limit: float
    status: str


FIGURES: list[Figure] = []


def show(value: float, unit: str) -> str:
    if unit == "x":
        return f"{value:.2f}x"
    if unit == "s":
        return f"{value:.3f} s"
    if unit == "MB":
        return f"{value:.0f} MB"
    if unit == "bool":
        return "yes" if value else "no"
    return f"{value:g}"


def target(case: str, label: str, value: float, op: str, limit: float, unit: str,
           error: Optional[str] = None) -> str:  # fmt: skip
    """Record a targeted figure; returns ``(target <= 1.6x: ok)`` for the line that prints it."""
    if error:
        status = "ERROR"
    elif op == "<=":
        status = "ok" if value <= limit else "MISSED"
    elif op == ">=":
        status = "ok" if value >= limit else "MISSED"
    else:
        status = "ok" if value == limit else "MISSED"
    FIGURES.append(Figure(case, label, value, unit, op, limit, status))
    limit_text = show(limit, unit) if unit != "bool" else ("yes" if limit else "no")
    return f"(target {op} {limit_text}: {status}{'; ' + error if error else ''})"


def figure_line(case: str, what: str, timing: Timing, floor: Timing, label: str, limit: float,
                files: Optional[int] = None) -> str:  # fmt: skip
    """One timed figure: wall and CPU seconds, both as ratios to the in-process floor of the same
    files; the wall ratio is the targeted one (recorded with :func:`target`)."""
    rate = f"  ({files / timing.seconds:6.0f} files/s)" if files else ""
    return (f"  {what:<34} {timing.seconds:7.3f} s  {timing.cpu:6.3f} s CPU{rate}  {timing / floor:4.2f}x floor "
            f"(CPU {timing.cpu_ratio(floor):4.2f}x)  " + target(case, label, timing / floor, "<=", limit, "x", timing.error))


def first_error(*timings: Timing) -> Optional[str]:
    return next((t.error for t in timings if t.error), None)


def summary(quick: bool) -> None:
    print("\nsummary: targeted figures (time ratios are to the in-process parse floor of the same files, same run)")
    if quick:
        print("  (--quick: smaller sizes and 1 run; the targets are stated for the full sizes)")
    width = max(len(f.label) for f in FIGURES) if FIGURES else 10
    print(f"  {'case':<5} {'figure':<{width}}  {'value':>9}  {'target':>10}  status")
    for f in FIGURES:
        limit = show(f.limit, f.unit) if f.unit != "bool" else ("yes" if f.limit else "no")
        print(f"  {f.case:<5} {f.label:<{width}}  {show(f.value, f.unit):>9}  {f.op + ' ' + limit:>10}  {f.status}")
    counts = {s: sum(f.status == s for f in FIGURES) for s in ("ok", "MISSED", "ERROR")}
    print(f"  {counts['ok']} ok, {counts['MISSED']} MISSED, {counts['ERROR']} ERROR of {len(FIGURES)}")


# ---------------------------------------------------------------------------------------------


def importtime(one: str, top: int = 12) -> list[str]:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "hooklint", "lint", one],
                          capture_output=True, text=True, env=env())  # fmt: skip
    rows = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        self_us, cumulative, name = (part.strip() for part in line[len("import time:"):].split("|", 2))
        rows.append((int(cumulative), int(self_us), name))
    rows.sort(reverse=True)
    return [f"{c / 1000:7.1f} ms cumulative {s / 1000:6.1f} ms self  {n}" for c, s, n in rows[:top]]


def profile_by_module(root: str, top: int = 14) -> list[str]:
    """cProfile of an in-process ``lint_paths(jobs=1)`` over ``root``, timed in CPU seconds
    (``time.process_time``): own time per module."""
    import cProfile
    import pstats

    from hooklint.catalog import load_catalog
    from hooklint.config import Config
    from hooklint.pipeline import lint_paths

    catalog = load_catalog()
    profiler = cProfile.Profile(time.process_time)  # CPU time: the machine's load does not count
    profiler.enable()
    lint_paths([root], Config(), catalog, jobs=1)
    profiler.disable()
    by_module: dict[str, float] = {}
    total = 0.0
    for (filename, _, name), (_, _, tottime, _, _) in pstats.Stats(profiler).stats.items():  # type: ignore[attr-defined]
        if filename == "~":
            module = "libyaml and other C code (" + name.split(" of ")[-1].strip("'>") + ")" if "yaml" in name else "builtins"
        else:
            module = os.path.relpath(filename, NEW) if filename.startswith(NEW) else "stdlib/site-packages: " + os.path.basename(filename)
        by_module[module] = by_module.get(module, 0.0) + tottime
        total += tottime
    rows = sorted(by_module.items(), key=lambda kv: -kv[1])[:top]
    return [f"{seconds:6.3f} s {100 * seconds / total:5.1f} %  {module}" for module, seconds in rows]


WORK = tempfile.gettempdir()  # replaced by main() with the bench's own temporary folder


def stage_tree(dest: str) -> str:
    """This checkout's ``hooklint/`` and ``rules/`` as they are (uncommitted changes included) copied
    to ``dest``, laid out as the wheel installs them (``rules/`` at ``hooklint/rules``), so that a
    subprocess with ``PYTHONPATH=dest`` runs this checkout's hooklint without an install."""
    shutil.copytree(os.path.join(ROOT, "hooklint"), os.path.join(dest, "hooklint"),
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    if os.path.isdir(os.path.join(ROOT, "rules")) and not os.path.exists(os.path.join(dest, "hooklint", "rules")):
        shutil.copytree(os.path.join(ROOT, "rules"), os.path.join(dest, "hooklint", "rules"))
    return dest


def export_tree(commit: str, dest: str) -> tuple[Optional[str], str]:
    """This repository's tree at ``commit`` exported to ``dest`` (``git archive``), run like this
    checkout (``PYTHONPATH``; :func:`env`); ``rules/`` linked as ``hooklint/rules``, as the wheel
    installs it, so that the baseline reads its own rule files. Returns (dest, "") or (None, why)."""
    os.makedirs(dest)
    archive = subprocess.run(["git", "-C", ROOT, "archive", "--format=tar", commit], capture_output=True)
    if archive.returncode != 0:
        return None, archive.stderr.decode(errors="replace").strip()[-300:]
    unpacked = subprocess.run(["tar", "-x", "-C", dest], input=archive.stdout, capture_output=True)
    if unpacked.returncode != 0:
        return None, unpacked.stderr.decode(errors="replace").strip()[-300:]
    rules, link = os.path.join(dest, "rules"), os.path.join(dest, "hooklint", "rules")
    if os.path.isdir(rules) and not os.path.exists(link):
        os.symlink(os.path.join(os.pardir, "rules"), link)
    return dest, ""


def imported_from(tree: str) -> Optional[str]:
    """Why a hooklint subprocess for ``tree`` (:func:`env`) would not run ``tree``'s hooklint, or None.
    An editable install (``pip install -e``) puts a finder before ``PYTHONPATH``: every run, the
    baseline's too, then imports the editable checkout, and a paired figure compares it with itself."""
    out = subprocess.run([sys.executable, "-c", "import hooklint; print(hooklint.__file__)"], capture_output=True,
                         text=True, env=env(tree))  # fmt: skip
    found = os.path.realpath(out.stdout.strip() or "?")
    if not found.startswith(os.path.realpath(tree) + os.sep):
        return (f"`import hooklint` under PYTHONPATH={tree} loads {found}: run the bench with a Python where "
                "hooklint is not installed editable (pip install . or the wheel), or not installed")
    return None


def main() -> int:
    global CACHE_DIR, WORK, OLD, OLD_CACHE_DIR, BASELINE, NEW
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=DEFAULT_CORPUS)
    parser.add_argument("--quick", action="store_true", help="smoke run: 1 run, smaller sizes (explicit options win)")
    parser.add_argument("--files", type=int, help="files of the large tree (default 5000; --quick 1000); the small tree has a fifth")
    parser.add_argument("--runs", type=int, help="runs per measurement, median (default 3; --quick 1)")
    parser.add_argument("--single-runs", type=int, help="runs of case (b), median (default 20; --quick 5)")
    parser.add_argument("--jobs", type=int, default=0, help="workers of the parallel runs; 0 (default): one per CPU")
    parser.add_argument("--app-objects", type=int, help="objects of the one-application cases (default 5000; --quick 1000)")
    parser.add_argument("--big-file-docs", type=int, help="documents of the one-file case (default 40000; --quick 8000)")
    parser.add_argument("--overlays", type=int, help="kustomize applications of case (h) (default 50; --quick 10)")
    parser.add_argument("--profile", action="store_true", help="also print where an in-process run spends its CPU time")
    parser.add_argument("--baseline", default=BASELINE,
                        help=f"the commit every figure is compared with, paired (default {BASELINE}; 'none': no comparison)")
    args = parser.parse_args()
    defaults = {"files": (2000, 500), "runs": (3, 1), "single_runs": (20, 5), "app_objects": (5000, 1000),
                "big_file_docs": (40000, 8000), "overlays": (100, 10)}  # fmt: skip
    for name, (full, quick) in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, quick if args.quick else full)
    runs = args.runs

    WORK = tempfile.mkdtemp(prefix="hooklint-bench-")
    args.corpus = os.path.abspath(args.corpus)
    NEW = stage_tree(os.path.join(WORK, "new"))
    # `python -m hooklint` puts the current folder first on sys.path: never a checkout. A folder of its
    # own, holding the trees only: without .git, hooklint takes the current folder for the repository of
    # the trees below it, and the bench's outputs written there would change it between runs
    os.makedirs(os.path.join(WORK, "cwd"))
    os.chdir(os.path.join(WORK, "cwd"))
    sys.path.insert(0, NEW)
    from hooklint.pipeline import resolve_jobs  # --jobs as hooklint resolves it (0: one per usable CPU)

    jobs = resolve_jobs(args.jobs)
    jobs_arg = str(args.jobs)  # "0" by default: hooklint's own default, one worker per CPU
    jobs_label = f"--jobs {args.jobs}" + (f" (= {jobs} CPUs)" if args.jobs == 0 else "")
    started = time.perf_counter()
    CACHE_DIR = os.path.join(WORK, "render-cache")
    work = WORK
    try:
        wrong = imported_from(NEW)
        if wrong is not None:
            print(f"bench: {wrong}", file=sys.stderr)
            return 2
        if args.baseline.lower() != "none":
            BASELINE = args.baseline
            OLD, why = export_tree(args.baseline, os.path.join(work, "baseline"))
            OLD_CACHE_DIR = os.path.join(WORK, "render-cache-baseline")
            wrong = imported_from(OLD) if OLD is not None else None
            if wrong is not None:
                print(f"bench: {wrong}", file=sys.stderr)
                return 2
            if OLD is None:
                print(f"no comparison with {args.baseline}: {why}")
        # the trees in the current folder (WORK/cwd): without .git, it is their repository's top, where hooklint
        # stops looking up for a chart; above it, /tmp's listing changes all day (no run would be kept whole)
        trees = os.getcwd()
        big, small, plan_dir, empty, one_dir = (os.path.join(trees, n) for n in ("big", "small", "plan", "empty", "one"))
        n_big = replicate(args.corpus, big, args.files)
        n_small = replicate(args.corpus, small, max(1, args.files // 5))
        os.makedirs(empty)  # one tiny object: a folder with no manifest at all is an input error (exit 2)
        with open(os.path.join(empty, "cm.yaml"), "w", encoding="utf-8") as handle:
            handle.write("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: start-up\n")
        big_files = manifest_files(big)
        size_mb = sum(os.path.getsize(f) for f in big_files) / 1e6
        print(f"hooklint bench: python {sys.version.split()[0]}, {os.cpu_count()} CPUs ({jobs} usable), "
              f"corpus {os.path.normpath(args.corpus)}; {runs} run(s) per measurement (median)"
              + ("; --quick" if args.quick else ""))  # fmt: skip
        print(f"trees: {n_big} files ({size_mb:.1f} MB) in {big}; {n_small} files in {small}")
        if OLD is not None:
            print(f"baseline: {BASELINE} exported to {OLD}, run with its own cache; every figure of case (i) is paired")

        print(f"\n(a) {n_big} plain files vs the parse floor (yaml.compose_all, CSafeLoader, reading included)")
        lint1_cmd = hooklint_cmd("lint", "-f", "json", "--jobs", "1", big)
        lintn_cmd = hooklint_cmd("lint", "-f", "json", "--jobs", jobs_arg, big)
        # "no cache": no result cache, the renders from the render cache (filled by the warm-up round), as
        # the table's "today" was measured; "off": every cache off, kubectl's renders of the corpus copies timed
        t = measure({"lint1": Cmd(lint1_cmd, no_results=True),
                     "lintn": Cmd(lintn_cmd, no_results=True),
                     "warm1": Cmd(lint1_cmd),  # the private cache, filled by the warm-up round
                     "off1": Cmd(lint1_cmd, NO_CACHE),
                     "startup": hooklint_cmd("lint", "-f", "json", empty),
                     "small": hooklint_cmd("lint", "-f", "json", "--jobs", jobs_arg, small),
                     "small1": hooklint_cmd("lint", "-f", "json", "--jobs", "1", small)},
                    runs, floor_files=big_files,
                    paired={"lint1": f"{n_big} plain files, --jobs 1, no cache",
                            "lintn": f"{n_big} plain files, {jobs_label}, no cache",
                            "warm1": f"{n_big} plain files, --jobs 1, warm cache",
                            "off1": f"{n_big} plain files, --jobs 1, every cache off"})  # fmt: skip
        inner, outer, lint1, lintn, warm1 = t["floor"], t["floor_subprocess"], t["lint1"], t["lintn"], t["warm1"]
        print(f"  parse floor, in process            {inner.seconds:7.3f} s  {inner.cpu:6.3f} s CPU  "
              f"({n_big / inner.seconds:6.0f} files/s)  <- reference")  # fmt: skip
        print(f"  parse floor, as a subprocess       {outer.seconds:7.3f} s  {outer.cpu:6.3f} s CPU  (interpreter and import yaml included)")
        print(figure_line("(a)", "lint --jobs 1, no cache", lint1, inner, f"{n_big} files, --jobs 1, no cache / floor", 2.2, n_big))
        print(figure_line("(a)", f"lint {jobs_label}, no cache", lintn, inner,
                          f"{n_big} files, {jobs_label}, no cache / floor", 2.0, n_big))  # fmt: skip
        print(figure_line("(a)", "lint --jobs 1, warm cache", warm1, inner, f"{n_big} files, --jobs 1, warm cache / floor", 0.6, n_big))
        off1 = t["off1"]
        print(f"  lint --jobs 1, every cache off      {off1.seconds:7.3f} s  {off1.cpu:6.3f} s CPU  {off1 / inner:5.1f}x "
              "(kubectl renders the corpus copies' kustomizations; no target)" + (f"  [{off1.error}]" if off1.error else ""))  # fmt: skip
        print(f"  hooklint start-up (one tiny file)   {t['startup'].seconds:7.3f} s  {t['startup'].cpu:6.3f} s CPU")
        print(f"  {n_small} files: {t['small'].seconds:.3f} s = {n_small / t['small'].seconds:.0f} files/s with {jobs_label} "
              f"(--jobs 1: {t['small1'].seconds:.3f} s = {n_small / t['small1'].seconds:.0f} files/s)")  # fmt: skip

        folders = len({os.path.dirname(f) for f in big_files})
        counts, count_error = fs_calls(big)
        per_file = (counts["stat"] + counts["lstat"]) / n_big
        print(f"\n(a') file-system calls of lint --jobs 1 on {n_big} files in {folders} folders (a counter, not a timing)")
        print(f"  stat {counts['stat']}, lstat {counts['lstat']}: {per_file:.2f} per file "
              + target("(a')", "stat+lstat calls per file", per_file, "<=", 3, "x", count_error))  # fmt: skip
        print(f"  git_root {counts['git_root']} calls: {counts['git_root'] / n_big:.2f} per file, "
              f"{counts['git_root'] / folders:.2f} per folder "
              + target("(a')", "git_root calls per folder", counts["git_root"] / folders, "<=", 1, "x", count_error))  # fmt: skip

        print("\n(b) one file")
        os.makedirs(one_dir)
        one = os.path.join(one_dir, "one.yaml")
        source = next((f for f in big_files if "job" in os.path.basename(f).lower()), big_files[0])
        shutil.copyfile(source, one)
        t = measure({"one": hooklint_cmd("lint", one)}, args.single_runs, paired={"one": "one file"})
        single = t["one"]
        print(f"  hooklint lint {os.path.basename(source)}: median {single.seconds:.3f} s over {args.single_runs} runs "
              + target("(b)", "lint one file, wall", single.seconds, "<=", 0.08, "s", single.error))  # fmt: skip
        print(f"  CPU seconds (user + system), median: {single.cpu:.3f} s "
              + target("(b)", "lint one file, CPU seconds", single.cpu, "<=", 0.07, "s", single.error))  # fmt: skip
        print("  slowest imports (python -X importtime):")
        for line in importtime(one):
            print(f"    {line}")

        print(f"\n(c) {jobs_label} vs --jobs 1 on {n_big} files")
        out1, outn = os.path.join(work, "jobs1.json"), os.path.join(work, "jobsn.json")
        code1 = run(hooklint_cmd("lint", "-f", "json", "--jobs", "1", big), out1)[1]
        coden = run(hooklint_cmd("lint", "-f", "json", "--jobs", jobs_arg, big), outn)[1]
        same = open(out1, "rb").read() == open(outn, "rb").read() and os.path.getsize(out1) > 0
        compare_error = None if code1 in (0, 1) and coden in (0, 1) else "hooklint failed"
        print(f"  --jobs 1 {lint1.seconds:.3f} s, --jobs {args.jobs} {lintn.seconds:.3f} s: speed-up {lint1 / lintn:.2f}x "
              + target("(c)", f"speed-up {jobs_label} vs --jobs 1", lint1 / lintn, ">=", 1.6, "x", first_error(lint1, lintn)))  # fmt: skip
        print(f"  outputs byte-identical: {same} "
              + target("(c)", f"outputs of {jobs_label} and --jobs 1 identical", float(same), "==", 1.0, "bool", compare_error))  # fmt: skip

        print(f"\n(d) peak memory (max RSS) on {n_big} files")
        rss1 = peak_rss_mb(hooklint_cmd("lint", "-f", "json", "--jobs", "1", big))
        rssn = peak_rss_mb(hooklint_cmd("lint", "-f", "json", "--jobs", jobs_arg, big))
        print(f"  --jobs 1: {rss1:.0f} MB "
              + target("(d)", f"{n_big} files, peak RSS --jobs 1", rss1, "<=", 250, "MB", lint1.error))  # fmt: skip
        print(f"  {jobs_label}: {rssn:.0f} MB per process at most "
              + target("(d)", f"{n_big} files, peak RSS {jobs_label}", rssn, "<=", 250, "MB", lintn.error))  # fmt: skip

        if args.profile:
            print(f"\n(profile) own CPU time per module, cProfile (time.process_time) of lint_paths(jobs=1) on {n_small} files")
            for line in profile_by_module(small):
                print(f"    {line}")

        objects = args.app_objects
        plan_tree(plan_dir, objects)
        app_files = manifest_files(plan_dir)
        print(f"\n(e) one application: {objects} objects in {len(app_files)} files, one folder")
        has_plan = importlib.util.find_spec("hooklint.plan") is not None
        cmds: dict[str, "list[str] | Cmd"] = {"lint": Cmd(hooklint_cmd("lint", "-f", "json", "--jobs", "1", plan_dir), NO_CACHE)}
        if has_plan:
            cmds["plan"] = hooklint_cmd("plan", plan_dir)
        t = measure(cmds, max(runs, 5), floor_files=app_files, paired={"lint": f"one application of {objects} objects"})
        app_floor, app_lint = t["floor"], t["lint"]
        print(f"  parse floor, in process            {app_floor.seconds:7.3f} s  {app_floor.cpu:6.3f} s CPU  (its {len(app_files)} files; "
              f"as a subprocess {t['floor_subprocess'].seconds:.3f} s)")  # fmt: skip
        print(figure_line("(e)", "lint -f json --jobs 1", app_lint, app_floor,
                          f"application of {objects} objects, lint --jobs 1 / floor", 2.5))  # fmt: skip
        if has_plan:
            plan = t["plan"]
            print(f"  hooklint plan                      {plan.seconds:7.3f} s  {plan / app_floor:4.2f}x in-process floor (no target)"
                  + (f"  [{plan.error}]" if plan.error else ""))  # fmt: skip
        else:
            print("  hooklint plan: skipped, hooklint.plan is not written yet")

        docs = args.big_file_docs
        big_one = os.path.join(trees, "one-big-file", "documents.yaml")
        os.makedirs(os.path.dirname(big_one))
        size = big_file(big_one, docs)
        config = os.path.join(work, "max-file-size.hooklint.yaml")
        with open(config, "w", encoding="utf-8") as handle:
            handle.write("max-file-size: 20000000\n")
        print(f"\n(f) one file of {docs} small documents, {size / 1e6:.1f} MB ({size:,} bytes; default max-file-size "
              f"{DEFAULT_MAX_FILE_SIZE:,}; linted with --config {os.path.basename(config)}: max-file-size 20000000)")  # fmt: skip
        big_cmd = Cmd(hooklint_cmd("lint", "-f", "json", "--jobs", "1", "--config", config, big_one), NO_CACHE)
        report, described = json_report(big_cmd, os.path.join(work, "one-big-file.json"))
        print(f"  report: {described}")
        rejected = None
        if report is None:
            rejected = "no JSON report"
        elif (report.get("summary") or {}).get("files", 1) == 0 or any(
            "max-file-size" in str(e) for e in report.get("errors") or []
        ):
            rejected = "the file was not linted"
        t = measure({"lint": big_cmd}, runs, floor_files=[big_one], paired={"lint": f"one file of {docs} documents"})
        f_floor, f_lint = t["floor"], t["lint"]
        f_lint.error = f_lint.error or rejected
        print(f"  parse floor, in process            {f_floor.seconds:7.3f} s  {f_floor.cpu:6.3f} s CPU  "
              f"(as a subprocess {t['floor_subprocess'].seconds:.3f} s)")  # fmt: skip
        print(figure_line("(f)", "lint -f json --jobs 1", f_lint, f_floor, f"one file of {docs} documents, lint --jobs 1 / floor", 4.0))
        rss_file = peak_rss_mb(big_cmd)
        rss_old = f", baseline {peak_rss_mb(big_cmd, OLD):.0f} MB" if OLD is not None else ""
        print(f"  peak RSS --jobs 1                  {rss_file:7.0f} MB{rss_old} "
              + target("(f)", f"one file of {docs} documents, peak RSS", rss_file, "<=", 150, "MB", f_lint.error))  # fmt: skip

        half = max(100, objects // 2 // 100 * 100)
        half_dir = os.path.join(trees, "plan-half")
        plan_tree(half_dir, half)
        print(f"\n(g) linearity: cost per file ({n_small} and {n_big} files) and per object of one application "
              f"({half} and {objects} objects); lint -f json --jobs 1 minus the start-up (one tiny file)")  # fmt: skip
        # every cache off; the plain trees without kustomize or kubectl on PATH (their renders of the corpus
        # copies would be timed, not hooklint: each kustomization is then one "renderer unavailable" finding)
        bare = {**NO_CACHE, "PATH": os.path.dirname(sys.executable)}
        t = measure({"startup": Cmd(hooklint_cmd("lint", "-f", "json", "--jobs", "1", empty), bare),
                     "files_small": Cmd(hooklint_cmd("lint", "-f", "json", "--jobs", "1", small), bare),
                     "files_big": Cmd(hooklint_cmd("lint", "-f", "json", "--jobs", "1", big), bare),
                     "app_start": Cmd(hooklint_cmd("lint", "-f", "json", "--jobs", "1", empty), NO_CACHE),
                     "app_small": Cmd(hooklint_cmd("lint", "-f", "json", "--jobs", "1", half_dir), NO_CACHE),
                     "app_big": Cmd(hooklint_cmd("lint", "-f", "json", "--jobs", "1", plan_dir), NO_CACHE)}, runs)  # fmt: skip
        print(f"  start-up --jobs 1 (one tiny file)   {t['startup'].seconds:7.3f} s, every cache off {t['app_start'].seconds:7.3f} s")
        for kind, unit, small_key, big_key, n_lo, n_hi, start_key in (
            ("file", "files", "files_small", "files_big", n_small, n_big, "startup"),
            ("object", "objects", "app_small", "app_big", half, objects, "app_start"),
        ):
            lo, hi, startup = t[small_key], t[big_key], t[start_key].seconds
            cost_lo, cost_hi = (lo.seconds - startup) / n_lo, (hi.seconds - startup) / n_hi
            error = first_error(t[start_key], lo, hi) or (None if cost_lo > 0 else "small run not slower than start-up")
            cost_lo = cost_lo if cost_lo > 0 else float("nan")
            print(f"  per {kind:<6}  {n_lo:>5} {unit}: {lo.seconds:6.3f} s, {1e6 * cost_lo:7.1f} us/{kind};  "
                  f"{n_hi:>5} {unit}: {hi.seconds:6.3f} s, {1e6 * cost_hi:7.1f} us/{kind};  ratio {cost_hi / cost_lo:4.2f} "
                  + target("(g)", f"cost per {kind}, {n_hi} / {n_lo} {unit}", cost_hi / cost_lo, "<=", 1.25, "x", error))  # fmt: skip

        overlays = args.overlays
        print(f"\n(h) kustomize overlays: {overlays} applications (base + overlays/prod), lint -f json --jobs 1, "
              "cold then warm cache; the warm run against the floor of the tree's files")  # fmt: skip
        tool = shutil.which("kustomize")
        render = [tool, "build"] if tool else ([shutil.which("kubectl"), "kustomize"] if shutil.which("kubectl") else None)
        if render is None:
            print("  skipped: neither kustomize nor kubectl is on PATH")
        else:
            tree = os.path.join(trees, "kustomize")
            prods = kustomize_tree(tree, overlays)
            start = time.perf_counter()
            rendered = subprocess.run([*render, prods[0]], capture_output=True, text=True)
            took = time.perf_counter() - start
            if rendered.returncode == 0:
                kinds = [line.split(":", 1)[1].strip() for line in rendered.stdout.splitlines() if line.startswith("kind:")]
                print(f"  {' '.join(os.path.basename(p) for p in render)} {os.path.relpath(prods[0], tree)}: "
                      f"{len(kinds)} objects ({', '.join(kinds)}) in {took:.3f} s")  # fmt: skip
            else:
                print(f"  {' '.join(os.path.basename(p) for p in render)} {os.path.relpath(prods[0], tree)} failed: "
                      f"{rendered.stderr.strip()[-300:]}")  # fmt: skip
            cmd = hooklint_cmd("lint", "-f", "json", "--jobs", "1", tree)
            cold, warm, entries, same_out = [], [], 0, True
            failed = None
            for n in range(max(1, runs)):
                cache = os.path.join(work, f"kustomize-cache-{n}")  # fresh: does not exist yet
                out_cold, out_warm = os.path.join(work, "k-cold.json"), os.path.join(work, "k-warm.json")
                elapsed, code, _ = run(cmd, out_cold, {"HOOKLINT_CACHE_DIR": cache})
                cold.append(elapsed)
                entries = sum(len(files) for _, _, files in os.walk(cache))
                elapsed, code2, _ = run(cmd, out_warm, {"HOOKLINT_CACHE_DIR": cache})
                warm.append(elapsed)
                same_out = same_out and open(out_cold, "rb").read() == open(out_warm, "rb").read()
                if code not in (0, 1) or code2 not in (0, 1):
                    failed = f"hooklint exited {code if code not in (0, 1) else code2}"
            c, w = statistics.median(cold), statistics.median(warm)
            print(f"  cold cache {c:7.3f} s ({1000 * c / overlays:6.1f} ms per overlay); "
                  f"warm cache {w:7.3f} s ({1000 * w / overlays:6.1f} ms per overlay); warm / cold {w / c:4.2f}")  # fmt: skip
            print(f"  render-cache entries after a cold run: {entries}"
                  + (" (none: hooklint does not render kustomizations yet)" if entries == 0 else "")
                  + f"; cold and warm outputs identical: {same_out}" + (f"  [{failed}]" if failed else ""))  # fmt: skip
            # the bench's private caches (each tree its own), filled by the warm-up round
            t = measure({"warm": cmd}, runs, floor_files=manifest_files(tree),
                        paired={"warm": f"{overlays} kustomize applications, warm cache"})  # fmt: skip
            k_floor, k_warm = t["floor"], t["warm"]
            print(f"  parse floor, in process            {k_floor.seconds:7.3f} s  {k_floor.cpu:6.3f} s CPU  "
                  f"(its {len(manifest_files(tree))} files)")  # fmt: skip
            print(figure_line("(h)", "lint --jobs 1, warm cache", k_warm, k_floor,
                              f"{overlays} kustomize applications, warm cache / floor", 1.0))  # fmt: skip

        if OLD is not None:
            print(f"\n(i) against {BASELINE} (the same inputs, runs of the two trees interleaved): CPU seconds "
                  "(user + system, renderers and workers included), medians; new / old is the median of each "
                  "round's ratio (lowest-highest, rounds); target: not slower")  # fmt: skip
            width = max((len(p.label) for p in PAIRED), default=10)
            for p in PAIRED:
                print(f"  {p.label:<{width}}  new {p.new:7.3f} s  old {p.old:7.3f} s  new / old {p.ratio:4.2f}x "
                      f"({p.low:.2f}-{p.high:.2f}, {p.rounds})  "
                      + target("(i)", f"{p.label}: CPU new / {BASELINE}", p.ratio, "<=", 1.0, "x", p.error))  # fmt: skip

        summary(args.quick)
        print(f"\nbench took {time.perf_counter() - started:.0f} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
