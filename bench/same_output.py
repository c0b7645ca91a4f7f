"""Compare hooklint's reports of two trees byte for byte: ``python bench/same_output.py OLD_TREE
[INPUT ...]`` runs ``hooklint lint -f FORMAT`` of this checkout and of ``OLD_TREE`` (a checkout or a
``git archive`` of the commit to compare with, e.g. ``main``) on each input in every format (text,
json, sarif, github, gitlab, markdown), with every cache off, and prints each input and format whose
output or exit code differs. Exit code 1 when any differs. Default inputs: ``examples/`` and a
sample of ``../shared/corpus/public``.

It guards work on the loader, model, engine and reporters that must not change a report (issue 34:
"output byte-identical before and after"); it is not part of the test suite (it starts 2 x 6
processes per input)."""

from __future__ import annotations

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FORMATS = ("text", "json", "sarif", "github", "gitlab", "markdown")
CORPUS = os.path.join(ROOT, "..", "shared", "corpus", "public")
SAMPLE = ("argoproj__argo-cd", "bridgecrewio__checkov", "redhat-ai-services__ai-accelerator",
          "redhat-scholars__argocd-tutorial", "open-cluster-management-io__policy-collection",
          "rh-aiservices-bu__insurance-claim-processing")  # fmt: skip


def report(tree: str, fmt: str, path: str) -> tuple[int, bytes]:
    """(exit code, stdout) of ``hooklint lint -f fmt --jobs 1 path`` with ``tree``'s hooklint."""
    env = dict(os.environ, HOOKLINT_CACHE_DIR="off")
    run = f"import sys; sys.path.insert(0, {tree!r}); sys.argv[0] = 'hooklint'; from hooklint.cli import main; main()"
    out = subprocess.run([sys.executable, "-c", run, "lint", "-f", fmt, "--jobs", "1", path],
                         capture_output=True, env=env, cwd=ROOT)  # fmt: skip
    return out.returncode, out.stdout + b"\n--stderr--\n" + out.stderr


def main(argv: list[str]) -> int:
    old = os.path.abspath(argv[0])
    inputs = argv[1:] or [os.path.join("examples", n) for n in sorted(os.listdir(os.path.join(ROOT, "examples")))] + [
        os.path.relpath(os.path.join(CORPUS, n), ROOT) for n in SAMPLE if os.path.isdir(os.path.join(CORPUS, n))]
    differ = 0
    for path in inputs:
        for fmt in FORMATS:
            new_out, old_out = report(ROOT, fmt, path), report(old, fmt, path)
            same = new_out == old_out
            differ += not same
            print(f"{'same' if same else 'DIFFERENT'}  {fmt:8}  {path}  (exit {new_out[0]}, {len(new_out[1]):,} bytes)",
                  flush=True)  # fmt: skip
    print(f"{differ} of {len(inputs) * len(FORMATS)} reports differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
