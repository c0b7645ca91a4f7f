"""Speed and memory figures for hooklint (a script that prints figures, not a timed test).

    python bench/run.py [--corpus DIR] [--files 5000] [--runs 3] [--single-runs 20] [--jobs N]

Cases, on copies of the public corpus (the application folders kept: ``r0000/<corpus>``,
``r0001/<corpus>``, ...):

(a) throughput of ``hooklint lint -f json`` (a subprocess, output to /dev/null) on >= 5,000 files,
    against the parse floor: PyYAML's C loader (``yaml.compose_all``, CSafeLoader) composing the same
    files, reading included; also the files/second of a 1,000-file tree;
(b) ``hooklint lint one-file.yaml`` wall time (median of ``--single-runs``) and the slowest imports
    (``python -X importtime``);
(c) ``--jobs N`` (default: the CPUs) against ``--jobs 1`` on the 5,000-file tree, outputs compared;
(d) peak memory (max RSS) of the 5,000-file run;
(e) ``hooklint plan`` on one directory of 5,000 objects (skipped while hooklint.plan is missing).

Subprocesses run with a private ``PYTHONPYCACHEPREFIX`` (and bytecode writing on), as an installed
hooklint would: compiling every module on each start would otherwise add ~70 ms per run.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_CORPUS = os.path.join(ROOT, os.pardir, "shared", "corpus", "public")
SUFFIXES = (".yaml", ".yml", ".json")


def manifest_files(root: str) -> list[str]:
    out = []
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


def env() -> dict[str, str]:
    out = dict(os.environ)
    out.pop("PYTHONDONTWRITEBYTECODE", None)
    out["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), "hooklint-bench-pycache")
    out["PYTHONPATH"] = ROOT + os.pathsep + out.get("PYTHONPATH", "")  # this checkout's hooklint
    return out


def hooklint_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "hooklint", *args]


def run(cmd: list[str], output: str = os.devnull) -> tuple[float, int]:
    with open(output, "w") as sink:
        start = time.perf_counter()
        proc = subprocess.run(cmd, stdout=sink, stderr=subprocess.PIPE, env=env())
        elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        sys.stderr.write(proc.stderr.decode(errors="replace")[-2000:])
    return elapsed, proc.returncode


def timed(cmd: list[str], runs: int) -> float:
    return statistics.median(run(cmd)[0] for _ in range(runs))


def peak_rss_mb(cmd: list[str]) -> float:
    """Max RSS of ``cmd`` and of its own children (the --jobs workers), in MB, measured from a
    fresh wrapper process so that earlier runs do not count."""
    probe = (
        "import resource, subprocess, sys\n"
        "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe, *cmd], capture_output=True, text=True, env=env())
    return int(out.stdout.strip() or 0) / 1024  # Linux reports KB


FLOOR = (
    "import sys, time, yaml\n"
    "files = sys.argv[1:]\n"
    "start = time.perf_counter()\n"
    "for path in files:\n"
    "    with open(path, 'rb') as handle:\n"
    "        data = handle.read()\n"
    "    try:\n"
    "        for node in yaml.compose_all(data, Loader=yaml.CSafeLoader):\n"
    "            pass\n"
    "    except yaml.YAMLError:\n"
    "        pass\n"
    "print(time.perf_counter() - start)\n"
)


def floor(files: list[str], runs: int) -> tuple[float, float]:
    """(in-process compose time, wall time of a subprocess doing the same, interpreter included)."""
    inner, outer = [], []
    listing = os.path.join(tempfile.gettempdir(), "hooklint-bench-files.txt")
    with open(listing, "w", encoding="utf-8") as handle:
        handle.write("\n".join(files))
    script = FLOOR.replace("files = sys.argv[1:]", f"files = open({listing!r}).read().split(chr(10))")
    for _ in range(runs):
        start = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env())
        outer.append(time.perf_counter() - start)
        inner.append(float(out.stdout))
    return statistics.median(inner), statistics.median(outer)


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
    """cProfile of an in-process ``lint_paths(jobs=1)`` over ``root``: own time per module."""
    import cProfile
    import pstats

    from hooklint.catalog import load_catalog
    from hooklint.config import Config
    from hooklint.engine import lint_paths

    catalog = load_catalog()
    profiler = cProfile.Profile()
    profiler.enable()
    lint_paths([root], Config(), catalog, jobs=1)
    profiler.disable()
    by_module: dict[str, float] = {}
    total = 0.0
    for (filename, _, name), (_, _, tottime, _, _) in pstats.Stats(profiler).stats.items():  # type: ignore[attr-defined]
        if filename == "~":
            module = "libyaml and other C code (" + name.split(" of ")[-1].strip("'>") + ")" if "yaml" in name else "builtins"
        else:
            module = os.path.relpath(filename, ROOT) if filename.startswith(ROOT) else "stdlib/site-packages: " + os.path.basename(filename)
        by_module[module] = by_module.get(module, 0.0) + tottime
        total += tottime
    rows = sorted(by_module.items(), key=lambda kv: -kv[1])[:top]
    return [f"{seconds:6.3f} s {100 * seconds / total:5.1f} %  {module}" for module, seconds in rows]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=DEFAULT_CORPUS)
    parser.add_argument("--files", type=int, default=5000, help="files of the large case (default 5000)")
    parser.add_argument("--runs", type=int, default=3, help="runs per large measurement (median)")
    parser.add_argument("--single-runs", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=0, help="workers for case (c); 0: the CPUs")
    parser.add_argument("--profile", action="store_true", help="also print where an in-process run spends its time")
    args = parser.parse_args()

    sys.path.insert(0, ROOT)
    from hooklint.engine import resolve_jobs

    jobs = resolve_jobs(args.jobs)
    work = tempfile.mkdtemp(prefix="hooklint-bench-")
    try:
        big, small, plan_dir = (os.path.join(work, n) for n in ("big", "small", "plan"))
        n_big = replicate(args.corpus, big, args.files)
        n_small = replicate(args.corpus, small, 1000)
        big_files = manifest_files(big)
        size_mb = sum(os.path.getsize(f) for f in big_files) / 1e6
        print(f"hooklint bench: python {sys.version.split()[0]}, {os.cpu_count()} CPUs ({jobs} usable), "
              f"corpus {args.corpus}")  # fmt: skip
        print(f"trees: {n_big} files ({size_mb:.1f} MB) in {big}; {n_small} files in {small}")
        run(hooklint_cmd("lint", "-f", "json", small))  # warm the bytecode cache and the page cache

        print("\n(a) throughput vs the parse floor (yaml.compose_all, CSafeLoader, reading included)")
        inner, outer = floor(big_files, args.runs)
        lint1 = timed(hooklint_cmd("lint", "-f", "json", "--jobs", "1", big), args.runs)
        lintn = timed(hooklint_cmd("lint", "-f", "json", "--jobs", str(jobs), big), args.runs)
        os.makedirs(os.path.join(work, "empty"))
        startup = timed(hooklint_cmd("lint", "-f", "json", os.path.join(work, "empty")), 5)
        print(f"  parse floor, in process            {inner:7.3f} s  ({n_big / inner:8.0f} files/s)")
        print(f"  parse floor, as a subprocess       {outer:7.3f} s  (interpreter and import yaml included)")
        print(f"  hooklint lint --jobs 1             {lint1:7.3f} s  ({n_big / lint1:8.0f} files/s)"
              f"  ratio {lint1 / inner:4.2f}x in-process floor, {lint1 / outer:4.2f}x subprocess floor")  # fmt: skip
        print(f"  hooklint lint --jobs {jobs:<2d}            {lintn:7.3f} s  ({n_big / lintn:8.0f} files/s)"
              f"  ratio {lintn / inner:4.2f}x in-process floor, {lintn / outer:4.2f}x subprocess floor  (target <= 2x)")  # fmt: skip
        print(f"  hooklint start-up (empty folder)   {startup:7.3f} s")
        small_time = timed(hooklint_cmd("lint", "-f", "json", small), args.runs)
        small1 = timed(hooklint_cmd("lint", "-f", "json", "--jobs", "1", small), args.runs)
        print(f"  {n_small} files: {small_time:.3f} s = {n_small / small_time:.0f} files/s "
              f"(--jobs 1: {small1:.3f} s = {n_small / small1:.0f} files/s)")  # fmt: skip

        print("\n(b) one file")
        one = os.path.join(small, "one.yaml")
        source = next(f for f in big_files if "job" in os.path.basename(f).lower())
        shutil.copyfile(source, one)
        single = [run(hooklint_cmd("lint", one))[0] for _ in range(args.single_runs)]
        print(f"  hooklint lint {os.path.basename(source)}: median {statistics.median(single):.3f} s, "
              f"min {min(single):.3f} s over {len(single)} runs (target <= 0.15 s)")  # fmt: skip
        print("  slowest imports (python -X importtime):")
        for line in importtime(one):
            print(f"    {line}")

        print(f"\n(c) --jobs {jobs} vs --jobs 1 on {n_big} files")
        out1, outn = os.path.join(work, "jobs1.json"), os.path.join(work, "jobsn.json")
        run(hooklint_cmd("lint", "-f", "json", "--jobs", "1", big), out1)
        run(hooklint_cmd("lint", "-f", "json", "--jobs", str(jobs), big), outn)
        same = open(out1, "rb").read() == open(outn, "rb").read()
        print(f"  --jobs 1 {lint1:.3f} s, --jobs {jobs} {lintn:.3f} s: speed-up {lint1 / lintn:.2f}x "
              f"(target >= 1.6x on 2 cores); outputs byte-identical: {same}")  # fmt: skip

        print(f"\n(d) peak memory (max RSS) on {n_big} files")
        rss1 = peak_rss_mb(hooklint_cmd("lint", "-f", "json", "--jobs", "1", big))
        rssn = peak_rss_mb(hooklint_cmd("lint", "-f", "json", "--jobs", str(jobs), big))
        print(f"  --jobs 1: {rss1:.0f} MB; --jobs {jobs}: {rssn:.0f} MB per process at most (target <= 250 MB)")

        if args.profile:
            print(f"\n(profile) own time per module, cProfile of lint_paths(jobs=1) on {n_small} files")
            for line in profile_by_module(small):
                print(f"    {line}")

        print("\n(e) hooklint plan, one directory of 5,000 objects")
        if importlib.util.find_spec("hooklint.plan") is None:
            print("  skipped: hooklint.plan is not written yet")
        else:
            plan_tree(plan_dir, 5000)
            elapsed = [run(hooklint_cmd("plan", plan_dir))[0] for _ in range(args.runs)]
            lint_dir = timed(hooklint_cmd("lint", "-f", "json", plan_dir), args.runs)
            print(f"  hooklint plan: {statistics.median(elapsed):.3f} s; hooklint lint of the same folder: {lint_dir:.3f} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
