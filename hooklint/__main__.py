"""``python -m hooklint``: the same entry point as the ``hooklint`` console script."""

from hooklint.cli import main

if __name__ == "__main__":
    main()
