"""Package discovery, the one thing pyproject.toml cannot say: every package under ``hooklint/``
(found, so that a new subpackage can never be left out of the wheel, as ``hooklint.review`` once
was), plus the top-level ``rules/`` folder installed as ``hooklint.rules`` (its mapping is
``[tool.setuptools.package-dir]``; ``packages.find`` does not search mapped folders). Everything
else is in pyproject.toml; tests/test_packaging.py builds the wheel and checks its contents."""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["hooklint", "hooklint.*"]), "hooklint.rules",
                *(f"hooklint.rules.{name}" for name in find_packages("rules"))])  # fmt: skip
