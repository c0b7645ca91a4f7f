"""The command line: options in, exit codes out, no logic.

Exit codes: 0 nothing at or above ``--fail-on``; 1 findings at or above it; 2 usage, configuration
or input errors (a missing path, an unreadable file), and any internal error.
"""

from __future__ import annotations

import sys
from enum import Enum
from typing import Annotated, Optional

import typer

from hooklint import __version__

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

app = typer.Typer(
    name="hooklint",
    help="Security policy linter for Argo CD resource hooks and sync waves.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


class Format(str, Enum):
    text = "text"
    json = "json"
    sarif = "sarif"
    github = "github"
    gitlab = "gitlab"


class FailOn(str, Enum):
    error = "error"
    warning = "warning"
    note = "note"
    never = "never"


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"hooklint {__version__}")
        raise typer.Exit(EXIT_CLEAN)


@app.callback()
def _root(
    version: Annotated[
        Optional[bool],
        typer.Option("--version", help="Print the version and exit.", callback=_version_callback, is_eager=True),
    ] = None,
) -> None:
    """Security policy linter for Argo CD resource hooks and sync waves."""


def _fail(message: str) -> None:
    typer.echo(f"hooklint: error: {message}", err=True)
    raise typer.Exit(EXIT_ERROR)


def _load_config(config_path: Optional[str]):
    from hooklint.config import ConfigError, load_config

    try:
        return load_config(config_path)
    except ConfigError as exc:
        _fail(str(exc))


def _write(text: str, output: Optional[str]) -> None:
    if output is None or output == "-":
        sys.stdout.write(text)
        return
    try:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        _fail(f"{output}: cannot write output: {exc.strerror or exc}")


@app.command()
def lint(
    paths: Annotated[list[str], typer.Argument(help="Files, folders, or - for stdin.", show_default=False)],
    format: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.text,
    output: Annotated[Optional[str], typer.Option("--output", "-o", help="Write the report to this file (- for stdout).")] = None,
    config: Annotated[Optional[str], typer.Option("--config", "-c", help="Configuration file (default: nearest .hooklint.yaml).")] = None,
    fail_on: Annotated[FailOn, typer.Option("--fail-on", help="Lowest severity that makes the exit code 1.")] = FailOn.warning,
    category: Annotated[str, typer.Option("--category", help="SARIF automationDetails.id category.")] = "hooklint",
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Worker processes (0: one per CPU).", min=0)] = 0,
    show_skipped: Annotated[bool, typer.Option("--show-skipped", help="List the files not linted, with the reason (text).")] = False,
) -> None:
    """Lint manifests and report findings."""
    from hooklint.catalog import load_catalog
    from hooklint.config import ConfigError
    from hooklint.pipeline import lint_paths
    from hooklint.findings import SEVERITY_RANK

    cfg = _load_config(config)
    try:
        result = lint_paths(paths, cfg, load_catalog(), jobs=jobs)
    except ConfigError as exc:
        _fail(str(exc))
    for error in result.errors:
        typer.echo(f"hooklint: error: {error.path}: {error.message}", err=True)
    if format is Format.text:
        from hooklint.reporters.text import render

        text = render(result, show_skipped=show_skipped)
    elif format is Format.json:
        from hooklint.reporters.json import render

        text = render(result)
    else:
        from importlib import import_module

        module = import_module(f"hooklint.reporters.{format.value}")
        text = module.render(result, load_catalog(), category=category)
    _write(text, output)
    if result.errors:
        raise typer.Exit(EXIT_ERROR)
    threshold = None if fail_on is FailOn.never else SEVERITY_RANK[fail_on.value]
    failing = threshold is not None and any(SEVERITY_RANK[f.severity] >= threshold for f in result.findings)
    raise typer.Exit(EXIT_FINDINGS if failing else EXIT_CLEAN)


class PlanFormat(str, Enum):
    text = "text"
    json = "json"


@app.command()
def plan(
    paths: Annotated[list[str], typer.Argument(help="Files, folders, or - for stdin.", show_default=False)],
    format: Annotated[PlanFormat, typer.Option("--format", "-f", help="Output format.")] = PlanFormat.text,
    output: Annotated[Optional[str], typer.Option("--output", "-o", help="Write the plan to this file.")] = None,
    config: Annotated[Optional[str], typer.Option("--config", "-c", help="Configuration file (default: nearest .hooklint.yaml).")] = None,
) -> None:
    """Print the sync plan Argo CD would execute, one application at a time."""
    from hooklint.pipeline import plan_paths
    from hooklint.reporters.plan import render

    cfg = _load_config(config)
    plans, errors = plan_paths(paths, cfg)
    text = render(plans, format.value)
    for error in errors:
        typer.echo(f"hooklint: error: {error.path}: {error.message}", err=True)
    _write(text, output)
    raise typer.Exit(EXIT_ERROR if errors else EXIT_CLEAN)


@app.command()
def rules(
    markdown: Annotated[bool, typer.Option("--markdown", help="A Markdown table (the README's).")] = False,
) -> None:
    """List every rule: id, severity, slug and summary."""
    from hooklint.catalog import load_catalog, markdown_table

    if markdown:
        typer.echo(markdown_table(load_catalog()), nl=False)
        return
    for rule in load_catalog().sorted():
        typer.echo(f"{rule.id}  {rule.severity:<7}  {rule.slug:<36}  {rule.summary}")


@app.command()
def explain(rule_id: Annotated[str, typer.Argument(help="Rule id (HL101) or slug.")]) -> None:
    """Show a rule's documentation and its examples."""
    from hooklint.catalog import load_catalog, load_examples

    rule = load_catalog().resolve(rule_id)
    if rule is None:
        _fail(f"unknown rule {rule_id!r}; 'hooklint rules' lists them")
    examples = load_examples(rule)
    out = [f"{rule.id} {rule.slug} ({rule.severity})", "", rule.summary, "",
           "What it does", rule.what, "", "Why it matters", rule.why, "", "How to fix", rule.fix]  # fmt: skip
    for kind, title in (("bad", "Example that is reported"), ("good", "Use instead")):
        for example in examples[kind][:1]:
            out += ["", f"{title} ({example['name']}):", example["manifest"].rstrip()]
    typer.echo("\n".join(out))


def main() -> None:
    """Console-script entry point: runs the app and turns any unexpected exception into one line
    on stderr and exit code 2 (never a traceback, never exit 1, which means findings)."""
    try:
        app(standalone_mode=True)
    except SystemExit:
        raise
    except KeyboardInterrupt:
        sys.stderr.write("hooklint: interrupted\n")
        sys.exit(EXIT_ERROR)
    except Exception as exc:  # pragma: no cover - last resort
        sys.stderr.write(f"hooklint: internal error: {type(exc).__name__}: {exc}\n")
        sys.exit(EXIT_ERROR)
