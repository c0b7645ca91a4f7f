"""``python -m hooklint``: the same entry point as the ``hooklint`` console script.

Run from a source tree outside the environment hooklint was installed into, a missing dependency
is said in one line (exit 2), never as a traceback."""

import sys

try:
    from hooklint.cli import main
except ModuleNotFoundError as exc:  # typer or PyYAML not installed for this interpreter
    if (exc.name or "hooklint").split(".")[0] == "hooklint":
        raise
    sys.stderr.write(f"hooklint: error: {exc.name} is not installed for {sys.executable}: install hooklint "
                     "first (pip install -e . from the repository, as its README says)\n")
    raise SystemExit(2) from None

if __name__ == "__main__":
    main()
