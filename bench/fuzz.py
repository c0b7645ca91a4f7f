"""Long fuzz run: mutated corpus manifests through ``lint_text``.

    python bench/fuzz.py [COUNT] [--seed N] [--corpus DIR] [--save DIR]

COUNT inputs (default 100,000) are built from the manifests of the public corpus and mutated the
way ``tests/test_fuzz.py`` mutates them (that test draws the same mutations through hypothesis):
keys dropped, values swapped for values of other types, strings replaced with edge cases, and
text-level damage (cut, spliced, tagged, anchored, re-indented). Each input is linted with every
rule enabled, and three properties are checked:

- no exception escapes ``lint_text``;
- every finding lies inside its text (line within the lines, column within that line + 1);
- the JSON report (``hooklint.reporters.json.render``) is valid JSON;
- (also reported) every message fits on one line.

Prints the count, the exceptions and property failures found (each with up to three inputs that
caused it, saved under ``--save``), and the time taken. Exit code 1 when anything failed.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import re
import sys
import time
import traceback
from typing import Any, Callable

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_CORPUS = os.path.join(ROOT, os.pardir, "shared", "corpus", "public")

#: Strings that have broken YAML tools and linters: typing traps (yes, 0x1F, 1e400), YAML syntax
#: (---, *a, !!tags, {{ }}), Unicode line and format characters, very long and empty values.
EDGE_STRINGS = [
    "", " ", "\t", "\n", "\r\n", "  leading", "trailing  ", "yes", "no", "on", "off", "y", "n", "~",
    "null", "Null", "true", "True", "0", "-0", "007", "0x1F", "0o17", "0b101", "1_000", "1e3",
    "1e400", "-1e400", ".inf", "-.inf", ".nan", "9" * 30, "1" * 5000, "-9223372036854775809",
    "18446744073709551616", "+1", " 1", "1 ", "-", "--", "---", "...", "<<", "*a", "&a", "!", "!!",
    "!!python/object/apply:os.system", "{{ .Values.image }}", "{a: b}", "[a, b]", "a: b", "a #b",
    "#", "%", "@", "`", "'", '"', "\\", "é", "ÿ", "🙂", "\u2028", "\u2029", "\u0085", "\ufeff",
    "\u200b", "\u202e", "ﬀ", "x" * 10_000, "PreSync", "presync", "Skip,PreSync", " PreSync ",
    "PreSync,,PostSync", "BeforeHookCreation", "HookSucceeded,HookFailed", "hook-succeeded",
    "-2147483649", "2147483648", "9223372036854775808", "latest", "nginx", "nginx:latest",
    "ghcr.io/acme/x@sha256:" + "0" * 64, "a:b:c", "http://x", "localhost:5000/x", "ALL",
    "SYS_ADMIN", "default", "cluster-admin", "*", "secrets", "CreateNamespace=true",
    "Replace=true,Force=true", "PASSWORD", "v1", "batch/v1", "argoproj.io/v1alpha1", "List",
    "Job", "Pod", "CronJob", "Deployment", "ServiceAccount", "RoleBinding", "Application",
]

EDGE_VALUES: list[Any] = [None, True, False, 0, -1, 1, 2**63, -(2**63) - 1, 1.5, float("inf"), [], {}, [None],
                          [""], [[]], [{}], {"": None}, {"a": []}, 5, "5", [5], {"5": 5}]  # fmt: skip

ANNOTATION_KEYS = [
    "argocd.argoproj.io/hook", "argocd.argoproj.io/hook-delete-policy", "argocd.argoproj.io/sync-wave",
    "argocd.argoproj.io/sync-options", "helm.sh/hook", "helm.sh/hook-delete-policy", "helm.sh/hook-weight",
    "hooklint.io/ignore",
]  # fmt: skip


def corpus_documents(corpus: str = DEFAULT_CORPUS, limit: int | None = None) -> list[Any]:
    """The object documents of the corpus (parsed with PyYAML's safe loader), in a stable order."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    docs: list[Any] = []
    for folder, dirs, files in os.walk(corpus):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith((".yaml", ".yml")):
                continue
            try:
                with open(os.path.join(folder, name), encoding="utf-8") as handle:
                    for doc in yaml.load_all(handle, Loader=loader):
                        if isinstance(doc, dict) and doc.get("kind"):
                            docs.append(doc)
            except (yaml.YAMLError, UnicodeDecodeError, ValueError):
                continue
            if limit is not None and len(docs) >= limit:
                return docs
    return docs


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (tuple of keys and indexes) to a value inside ``node``."""
    out = []
    if isinstance(node, dict):
        for key, value in node.items():
            out.append(prefix + (key,))
            out.extend(_paths(value, prefix + (key,)))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out.append(prefix + (i,))
            out.extend(_paths(value, prefix + (i,)))
    return out


def _parent(doc: Any, path: tuple) -> tuple[Any, Any]:
    node = doc
    for step in path[:-1]:
        node = node[step]
    return node, path[-1]


def _edge_value(rng: random.Random) -> Any:
    if rng.random() < 0.6:
        return rng.choice(EDGE_STRINGS)
    return copy.deepcopy(rng.choice(EDGE_VALUES))


def _drop_key(doc: Any, rng: random.Random) -> None:
    paths = [p for p in _paths(doc) if isinstance(_parent(doc, p)[0], dict)]
    if paths:
        parent, key = _parent(doc, rng.choice(paths))
        del parent[key]


def _swap_type(doc: Any, rng: random.Random) -> None:
    paths = _paths(doc)
    if paths:
        parent, key = _parent(doc, rng.choice(paths))
        parent[key] = _edge_value(rng)


def _replace_string(doc: Any, rng: random.Random) -> None:
    paths = [p for p in _paths(doc) if isinstance(_parent(doc, p)[0][p[-1]], str)]
    if paths:
        parent, key = _parent(doc, rng.choice(paths))
        parent[key] = rng.choice(EDGE_STRINGS)


def _annotate(doc: Any, rng: random.Random) -> None:
    """Make it a hook (or half of one): the checks that matter most only look at hooks."""
    metadata = doc.get("metadata") if isinstance(doc, dict) else None
    if not isinstance(metadata, dict):
        return
    annotations = metadata.get("annotations")
    if not isinstance(annotations, dict):
        annotations = metadata["annotations"] = {}
    annotations[rng.choice(ANNOTATION_KEYS)] = rng.choice(EDGE_STRINGS + ["PreSync", "PostSync", "1"])


def _retype_top(doc: Any, rng: random.Random) -> None:
    """Wrong shapes at the places checks read first: kind, metadata, spec, containers, image, env."""
    if not isinstance(doc, dict):
        return
    target = rng.choice(["kind", "metadata", "spec", "apiVersion", "containers", "image", "env", "items"])
    if target in ("kind", "metadata", "spec", "apiVersion", "items"):
        doc[target] = _edge_value(rng)
        return
    for path in _paths(doc):
        if path and path[-1] == target:
            parent, key = _parent(doc, path)
            parent[key] = _edge_value(rng)
            return


MUTATIONS: list[Callable[[Any, random.Random], None]] = [_drop_key, _swap_type, _replace_string, _annotate, _retype_top]


def _dump(docs: list[Any], rng: random.Random) -> str:
    import yaml

    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    style = rng.choice([None, True, False])
    try:
        return yaml.dump_all(docs, Dumper=dumper, default_flow_style=style, allow_unicode=rng.random() < 0.5,
                             width=rng.choice([40, 80, 10_000]), sort_keys=False)  # fmt: skip
    except (yaml.YAMLError, ValueError, TypeError, OverflowError):
        return json.dumps(docs, default=str)


TEXT_EDITS = [
    "---\n", "...\n", "- ", ": ", "{", "}", "[", "]", "&a ", "*a", "*b", "<<: *a\n", "!!python/object/apply:os.system ",
    "!foo ", "!!binary ", "? ", "|\n", ">-\n", "'", '"', "#", "\t", "  ", "\n", "\r\n", "\r", "%YAML 1.1\n",
    "%TAG ! tag:evil:\n", "\ufeff", "\u2028", "\x85", "\x07", "\x00", "\ud800", "é", "{{ .Values.x }}",
    "&a [*a]", "[" * 120, "{a: " * 60, "- " * 120,
]  # fmt: skip


def _damage(text: str, rng: random.Random) -> str:
    """Text-level damage that a dict round trip cannot produce."""
    for _ in range(rng.randint(1, 3)):
        if not text:
            return rng.choice(TEXT_EDITS)
        choice = rng.random()
        at = rng.randrange(len(text) + 1)
        if choice < 0.45:
            text = text[:at] + rng.choice(TEXT_EDITS) + text[at:]
        elif choice < 0.65:
            text = text[:at]  # truncated
        elif choice < 0.8:
            end = min(len(text), at + rng.randint(1, 40))
            text = text[:at] + text[end:]
        elif choice < 0.9:
            lines = text.split("\n")
            i = rng.randrange(len(lines))
            lines[i] = " " * rng.randint(0, 6) + lines[i].lstrip()  # re-indented
            text = "\n".join(lines)
        else:
            lines = text.split("\n")
            i = rng.randrange(len(lines))
            lines.insert(i, lines[rng.randrange(len(lines))])  # a duplicated line (duplicate key)
            text = "\n".join(lines)
    return text


def make_input(corpus_docs: list[Any], rng: random.Random) -> str:
    """One fuzz input: one to three corpus objects, mutated, dumped, sometimes damaged as text."""
    docs = [copy.deepcopy(rng.choice(corpus_docs)) for _ in range(rng.choice([1, 1, 1, 2, 3]))]
    for doc in docs:
        for _ in range(rng.randint(1, 4)):
            rng.choice(MUTATIONS)(doc, rng)
    if rng.random() < 0.08:
        docs.append(_edge_value(rng))  # a document that is not an object
    text = _dump(docs, rng)
    if rng.random() < 0.35:
        text = _damage(text, rng)
    return text


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class PropertyFailure(AssertionError):
    """A finding outside its text, a report that is not JSON, or a message on several lines."""


def check(text: str, catalog: Any, configs: list[Any], one_line: frozenset[str] | None = None) -> None:
    """Lint ``text`` under each config and check the properties: raises whatever ``lint_text``
    raises, or :class:`PropertyFailure`. Messages must fit on one line for the rules in
    ``one_line`` (every rule when None)."""
    from hooklint.pipeline import lint_text
    from hooklint.findings import RunResult
    from hooklint.reporters.json import render

    lines = _LINE_BREAK.split(text)
    for config in configs:
        findings = lint_text(text, config=config, catalog=catalog)
        for f in findings:
            s = f.span
            for line, column in ((s.line, s.column), (s.end_line, s.end_column)):
                if not 1 <= line <= len(lines):
                    raise PropertyFailure(f"{f.rule_id} line {line} outside 1..{len(lines)}")
                if not 1 <= column <= len(lines[line - 1]) + 1:
                    raise PropertyFailure(f"{f.rule_id} column {column} outside 1..{len(lines[line - 1]) + 1} on line {line}")
            if (s.line, s.column) > (s.end_line, s.end_column):
                raise PropertyFailure(f"{f.rule_id} span ends before it starts")
            if (one_line is None or f.rule_id in one_line) and _LINE_BREAK.search(f.message):
                raise PropertyFailure(f"{f.rule_id} message spans lines")
        report = render(RunResult(findings=findings, files=1))
        try:
            parsed = json.loads(report)
        except ValueError as exc:
            raise PropertyFailure(f"JSON report is not valid JSON: {exc}") from None
        if len(parsed["findings"]) != len(findings):
            raise PropertyFailure("JSON report lost findings")




def fuzz_configs() -> list[Any]:
    from hooklint.config import Config

    return [Config(), Config(check_all_workloads=True, require_digest=True, allowed_registries=["ghcr.io/acme"])]


def main() -> int:
    parser = argparse.ArgumentParser(description="Fuzz lint_text with mutated corpus manifests.")
    parser.add_argument("count", nargs="?", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--corpus", default=DEFAULT_CORPUS)
    parser.add_argument("--save", default=os.path.join(ROOT, ".fuzz-failures"),
                        help="folder for the inputs that failed (created when needed)")  # fmt: skip
    parser.add_argument("--progress", type=int, default=10_000, help="print a line every N inputs (0: never)")
    args = parser.parse_args()

    sys.path.insert(0, ROOT)
    from hooklint.catalog import load_catalog

    catalog, configs = load_catalog(), fuzz_configs()
    docs = corpus_documents(args.corpus)
    rng = random.Random(args.seed)
    failures: dict[str, list[str]] = {}
    kinds = {"exception": set(), "property": set()}
    start = time.perf_counter()
    for i in range(1, args.count + 1):
        text = make_input(docs, rng)
        try:
            check(text, catalog, configs)
        except Exception as exc:  # noqa: BLE001 - the point is to catch anything
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            detail = re.sub(r"\b\d+\b", "N", str(exc).splitlines()[0] if str(exc) else "")[:120]
            signature = f"{type(exc).__name__} at {os.path.relpath(frame.filename, ROOT)}:{frame.lineno}: {detail}"
            kinds["property" if isinstance(exc, PropertyFailure) else "exception"].add(signature)
            seen = failures.setdefault(signature, [])
            if len(seen) < 3:
                seen.append(text)
                os.makedirs(args.save, exist_ok=True)
                name = f"failure-{len(failures):03d}-{len(seen)}.yaml"
                with open(os.path.join(args.save, name), "w", encoding="utf-8", errors="surrogatepass") as handle:
                    handle.write(text)
        if args.progress and i % args.progress == 0:
            elapsed = time.perf_counter() - start
            print(f"  {i:,} inputs, {len(failures)} distinct failures, {elapsed:.0f} s", flush=True)
    elapsed = time.perf_counter() - start
    print(f"fuzz: {args.count:,} inputs (seed {args.seed}, {len(docs)} corpus objects, {len(configs)} "
          f"configurations each), {len(kinds['exception'])} distinct exceptions escaping lint_text, "
          f"{len(kinds['property'])} distinct property failures, {elapsed:.1f} s "
          f"({args.count / elapsed:.0f} inputs/s)")  # fmt: skip
    for kind in ("exception", "property"):
        for signature in sorted(kinds[kind]):
            print(f"  {kind.upper()} {signature} ({len(failures[signature])} example(s) saved in {args.save})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
