"""The command line: options in, exit codes out, no logic.

Each command parses its options, calls the module that does the work (the pipeline, :mod:`hooklint.fix`,
:mod:`hooklint.review`, the catalog's :func:`~hooklint.catalog.explain_text` and
:func:`~hooklint.catalog.rules_listing`), prints what it returns (lint, diff and plan through the
reporter their ``--format`` names) and maps it to an exit code (:meth:`hooklint.config.Config.failing`
says whether findings fail the run).

Exit codes: 0 nothing at or above ``--fail-on``; 1 findings at or above it; 2 usage, configuration
or input errors (a missing path, an unreadable file), and any internal error.
"""

from __future__ import annotations

import copy
import os
import sys
from enum import Enum
from typing import Annotated, Iterable, Iterator, NoReturn, Optional

import typer

from hooklint import __version__
from hooklint.text import escape_controls, url_credentials

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class Format(str, Enum):
    text = "text"
    concise = "concise"
    json = "json"
    sarif = "sarif"
    github = "github"
    gitlab = "gitlab"
    markdown = "markdown"


class FailOn(str, Enum):
    error = "error"
    warning = "warning"
    note = "note"
    never = "never"


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"hooklint {__version__}")
        raise typer.Exit(EXIT_CLEAN)


class _OneLineUsage:
    """Usage errors (an unknown option or command, a bad value: exit code 2) printed as one line,
    ``hooklint: error: <what> (see hooklint lint --help)``, not click's three-line block of usage,
    hint and error: mixed into the command group and every command, which raise them while parsing
    (and the group while resolving a command's name)."""

    def parse_args(self, ctx, args):  # noqa: ANN001, ANN201 - click's signature
        try:
            return super().parse_args(ctx, args)
        except Exception as exc:
            _one_line(exc, ctx)
            raise


def _one_line(error: Exception, ctx) -> None:  # noqa: ANN001 - click's context
    """Give click's usage ``error`` a ``show`` that prints it as one line (:class:`_OneLineUsage`).
    A bare ``hooklint`` (``no_args_is_help``) raises a usage error whose message is the whole help:
    it keeps click's own ``show``, the help as ``hooklint --help`` prints it (on stderr, exit code 2)."""
    if type(error).__name__ == "NoArgsIsHelpError":  # typer's vendored click or click itself
        return
    if getattr(error, "exit_code", None) == 2 and hasattr(error, "format_message"):
        where = getattr(getattr(error, "ctx", None), "command_path", None) or ctx.command_path

        def show(file=None) -> None:  # noqa: ANN001 - click's signature
            typer.echo(_said(f"hooklint: error: {error.format_message().rstrip('.')} (see {where} --help)"), err=True)

        error.show = show  # type: ignore[attr-defined]


class _Group(_OneLineUsage, typer.core.TyperGroup):
    """The command group (``No such command 'lnt'. Did you mean 'lint'?`` is one line)."""

    def resolve_command(self, ctx, args):  # noqa: ANN001, ANN201 - click's signature
        try:
            return super().resolve_command(ctx, args)
        except Exception as exc:
            _one_line(exc, ctx)
            raise


class _Choice(typer.main.TyperChoice):
    """typer's choice of an enum option whose error for a value that is none of them names the
    nearest one, as an unknown rule or configuration key does: ``'warnings' is not one of 'error',
    'warning', 'note', 'never'; did you mean 'warning'?`` (difflib ratio 0.6, Python's own cutoff)."""

    def get_invalid_choice_message(self, value, ctx):  # noqa: ANN001, ANN201 - typer's signature
        import difflib

        message = super().get_invalid_choice_message(value, ctx)
        choices = list(self._normalized_mapping(ctx=ctx).values())
        close = difflib.get_close_matches(str(value).casefold(), choices, n=1, cutoff=0.6)
        return f"{message.rstrip('.')}; did you mean {close[0]!r}?" if close else message


class _Command(_OneLineUsage, typer.core.TyperCommand):
    """A command whose usage line names its arguments as people write them (``BASE [PATH]...``),
    not as typer does without rich (``{base} [paths]...``), and whose usage errors are one line.
    The run's deadline (:mod:`hooklint.deadline`) and node budget (:mod:`hooklint.runnodes`) end
    with the command; one that passes where no
    stage reports it (a rendering outside the pipeline) is one line and exit code 2. After a command
    that wrote cache entries, the cache folder is kept under its cap (:func:`hooklint.prune.after_run`:
    at most once an hour, silently, whatever the exit code)."""

    def invoke(self, ctx):  # noqa: ANN001, ANN201 - click's signature
        from hooklint import deadline, runnodes

        try:
            return super().invoke(ctx)
        except runnodes.RunNodesSpent as exc:  # the node budget (max-run-nodes), likewise
            _fail(f"{exc}; the run stopped before it checked everything: {exc.remedy}")
        except deadline.RunTimeout as exc:
            _fail(f"{exc}; the run stopped before it checked everything: give it more time with --run-timeout "
                  "SECONDS")  # fmt: skip
        finally:
            deadline.stop()
            runnodes.stop()
            files = sys.modules.get("hooklint.files")  # not loaded: the command wrote no cache entry
            if files is not None and files.entries_written():
                from hooklint.prune import after_run

                after_run()

    def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003 - click's signature
        super().__init__(*args, **kwargs)
        for param in self.params:  # an enum option's bad value gets a "did you mean" (--fail-on warnings)
            if type(param.type) is typer.main.TyperChoice:
                param.type.__class__ = _Choice

    def collect_usage_pieces(self, ctx):  # noqa: ANN001, ANN201 - click's signature
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name != "argument":
                pieces.extend(param.get_usage_pieces(ctx))
                continue
            name = param.metavar or (param.name or "").upper()
            more = "..." if param.nargs != 1 else ""
            pieces.append(f"{name}{more}" if param.required else f"[{name}]{more}")
        return pieces


app = typer.Typer(
    name="hooklint",
    help="Security policy linter for Argo CD resource hooks and sync waves.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    cls=_Group,
)


@app.callback()
def _root(
    version: Annotated[
        Optional[bool],
        typer.Option("--version", help="Print the version and exit.", callback=_version_callback, is_eager=True),
    ] = None,
) -> None:
    """Security policy linter for Argo CD resource hooks and sync waves."""


def _said(text: str) -> str:
    """``text`` as hooklint writes it on stderr: the credentials of the URLs it quotes removed
    (:func:`~hooklint.text.url_credentials`: a configuration's or an option's value may be a URL
    with a password, attacker trial 19 B4/B5) and its control characters escaped."""
    return escape_controls(url_credentials(text))


def _fail(message: str) -> NoReturn:
    typer.echo(_said(f"hooklint: error: {message}"), err=True)
    raise typer.Exit(EXIT_ERROR)


def _load_config(config_path: Optional[str], paths: Optional[list[str]] = None):
    """``--config``, else the configuration found from the linted ``paths`` upward (None: from the
    current folder); says once, on stderr, when ``argocd-version`` is read as another release."""
    from hooklint.config import ConfigError, load_config

    try:
        cfg = load_config(config_path, paths)
    except ConfigError as exc:
        _fail(str(exc))
    if cfg.version_note:
        typer.echo(_said(f"hooklint: note: {cfg.version_note}"), err=True)
    return cfg


def _colour(stream) -> bool:
    """Whether to colour text written to ``stream``: never with ``NO_COLOR`` set (non-empty),
    always with ``FORCE_COLOR`` set (non-empty, not ``0``), else when ``stream`` is a terminal."""
    import os

    if os.environ.get("NO_COLOR"):
        return False
    force = os.environ.get("FORCE_COLOR")
    if force and force != "0":
        return True
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _names(values: Optional[list[str]]) -> Optional[list[str]]:
    """Repeated and comma-separated option values, as one list."""
    if values is None:
        return None
    return [name.strip() for value in values for name in value.split(",") if name.strip()]


def _override(cfg, select, ignore, exclude, fail_on):
    """The configuration with the command line's ``--select``, ``--ignore``, ``--exclude`` and
    ``--fail-on`` in place of the file's values (``--exclude`` globs are relative to the current
    folder; leading ``../`` steps go up from it)."""
    from hooklint.config import PathFilter

    if select is not None:
        cfg.select, cfg.overridden["select"] = _names(select), "--select"
    if ignore is not None:
        cfg.ignore, cfg.disable, cfg.overridden["ignore"] = _names(ignore), [], "--ignore"
    if exclude is not None:
        try:
            cfg.exclude, cfg.overridden["exclude"] = PathFilter(".", [e for e in exclude if e.strip()]), "--exclude"
        except ValueError as exc:
            _fail(f"--exclude: {exc}")
    if fail_on is not None:
        cfg.fail_on = fail_on.value
    return cfg


def _limits(cfg, run_timeout: Optional[int], max_run_nodes: Optional[int] = None):
    """The configuration with ``--run-timeout`` and ``--max-run-nodes`` in place of its
    ``run-timeout`` and ``max-run-nodes``; prints, on stderr, the notes of limits a found
    configuration tried to raise (:func:`hooklint.config.lowered_only`) but those the command line
    sets, and starts the run's deadline (:mod:`hooklint.deadline`) and node budget
    (:mod:`hooklint.runnodes`)."""
    from hooklint import deadline, runnodes

    if run_timeout is not None:
        cfg.run_timeout, cfg.overridden["run-timeout"] = run_timeout, "--run-timeout"
    if max_run_nodes is not None:
        cfg.max_run_nodes, cfg.overridden["max-run-nodes"] = max_run_nodes, "--max-run-nodes"
    for key, note in cfg.limit_notes.items():
        if key not in cfg.overridden:
            typer.echo(_said(f"hooklint: note: {note}"), err=True)
    deadline.start(cfg.run_timeout)
    runnodes.start(cfg.max_run_nodes)
    return cfg


#: ``--run-timeout``, as lint, plan, fix and diff take it.
RunTimeoutOption = Annotated[Optional[int], typer.Option(
    "--run-timeout", metavar="SECONDS", min=1, show_default=False,
    help="Seconds the whole run may take (default: the configuration's run-timeout, else 300); the applications "
         "not checked by then are named in one error (exit code 2).")]  # fmt: skip

#: ``--max-run-nodes``, as lint, plan, fix and diff take it.
MaxRunNodesOption = Annotated[Optional[int], typer.Option(
    "--max-run-nodes", metavar="NODES", min=1, show_default=False,
    help="YAML nodes the whole run may parse (default: the configuration's max-run-nodes, else 10,000,000); the "
         "applications not checked by then are named in one error (exit code 2).")]  # fmt: skip


NoCacheOption = Annotated[bool, typer.Option(
    "--no-cache", help="Use no cache: render every source and lint every application again, and keep nothing "
                       "(as HOOKLINT_CACHE_DIR=off). By default renderings and each application's results are kept in "
                       "$HOOKLINT_CACHE_DIR, else $XDG_CACHE_HOME/hooklint or ~/.cache/hooklint, and reused while its "
                       "files, the configuration, the Argo CD version, the renderers and hooklint are unchanged.")]  # fmt: skip


def _caching(no_cache: bool) -> None:
    """``--no-cache``: every cache off for this run and the processes it starts (the render
    cache, the result cache: :func:`hooklint.files.cache_dir`)."""
    if no_cache:
        os.environ["HOOKLINT_CACHE_DIR"] = "off"


def _fetching(cfg, fetch: bool, hosts: Optional[list[str]]):
    """The configuration with ``--fetch`` and its ``--fetch-host`` entries (each checked: exit 2
    with one line for a bad one, or for ``--fetch-host`` without ``--fetch``); the credentials
    file ``fetch-credentials`` names is read once here, so a bad one is one line too."""
    from hooklint.config import parse_host_entry

    if hosts and not fetch:
        _fail("--fetch-host needs --fetch")
    for entry in hosts or []:
        try:
            parse_host_entry(entry, command_line=True)
        except ValueError as exc:
            _fail(f"--fetch-host: {exc}")
    cfg.fetch, cfg.fetch_command_hosts = fetch, list(hosts or [])
    if fetch and cfg.fetch_credentials:
        from hooklint.sources.fetch import load_credentials

        try:
            load_credentials(cfg.fetch_credentials)
        except ValueError as exc:
            _fail(str(exc))
    return cfg


def _write(text: "str | Iterable[str]", output: Optional[str]) -> None:
    """Write a report (its text, or its text in pieces) to stdout or to ``output``
    (:func:`hooklint.files.write_output`: never through a symbolic link)."""
    chunks = (text,) if isinstance(text, str) else text
    if output is None or output == "-":
        for chunk in chunks:
            sys.stdout.write(chunk)
        return
    from hooklint.files import UnsafeWrite, write_output

    try:  # never through a link, never out of the repository unless named there (issue 32)
        write_output(output, (chunk.encode("utf-8") for chunk in chunks))
    except UnsafeWrite as exc:
        _fail(f"{output}: cannot write output: {exc}")
    except OSError as exc:
        _fail(f"{output}: cannot write output: {exc.strerror or exc}")


def _sarif_left_out(result) -> None:  # noqa: ANN001 - a RunResult
    """Say on stderr what GitHub's result limit kept out of a SARIF report, when anything."""
    from hooklint.reporters.sarif import left_out_message

    message = left_out_message(result)
    if message is not None:
        typer.echo(_said(f"hooklint: warning: {message}"), err=True)


def _named_manifests(paths: list[str]) -> list[str]:
    """The files named on the command line that (an input error: ``not a YAML or JSON file ...``) are
    is no manifest: not ``*.yaml``, ``*.yml``, ``*.json`` (or ``*.jsonnet``, which hooklint does not
    evaluate: HL009), not a ``Kustomization``, and not inside a Helm chart (whose templates are
    linted with their chart). Like a missing file, it is reported and makes the exit code 2 while the
    other paths are still linted; when every path is such a file, the errors are printed and the run
    ends with exit code 2 (nothing to lint). Before, ``hooklint lint notes.txt`` linted nothing and
    exited 0, and then ``hooklint lint job.yaml README.md`` linted nothing and exited 2."""
    import os

    named_files = [path for path in paths if path != "-" and os.path.isfile(path)]
    if not named_files:  # folders only: the repository stage is not imported for them (a run answered whole)
        return []
    from hooklint.sources.repository.tree import KUSTOMIZATION_NAMES, MANIFEST_SUFFIXES, chart_of

    bad = [path for path in named_files
           if not path.endswith(MANIFEST_SUFFIXES) and os.path.basename(path) not in KUSTOMIZATION_NAMES
           and chart_of(path) is None]  # fmt: skip
    if bad and len(bad) == len(paths):
        for path in bad:
            typer.echo(_said(f"hooklint: error: {path}: {NOT_A_MANIFEST}"), err=True)
        raise typer.Exit(EXIT_ERROR)
    return bad


#: The input error of a file named on the command line that is no manifest (:func:`_named_manifests`).
NOT_A_MANIFEST = "not a YAML or JSON file (hooklint lints *.yaml, *.yml and *.json manifests); name the manifests or their folder"


@app.command(cls=_Command)
def lint(
    paths: Annotated[Optional[list[str]], typer.Argument(metavar="PATH", help="Files, folders, or - for stdin (default: the current folder).", show_default=False)] = None,
    format: Annotated[Format, typer.Option("--format", "-f", "--output-format", help="Output format (concise: one short line per finding).")] = Format.text,
    output: Annotated[Optional[str], typer.Option("--output", "-o", help="Write the report to this file (- for stdout).")] = None,
    config: Annotated[Optional[str], typer.Option("--config", "-c", help="Configuration file (default: the nearest .hooklint.yaml from the first path up to the repository top).")] = None,
    fail_on: Annotated[Optional[FailOn], typer.Option("--fail-on", help="Lowest severity that makes the exit code 1 (default: the configuration's fail-on, else warning).", show_default=False)] = None,
    select: Annotated[Optional[list[str]], typer.Option("--select", help="Rules to run (ids, slugs, prefixes such as HL1; comma-separated or repeated); replaces the configuration's select.", show_default=False)] = None,
    ignore: Annotated[Optional[list[str]], typer.Option("--ignore", help="Rules not to run; replaces the configuration's ignore.", show_default=False)] = None,
    exclude: Annotated[Optional[list[str]], typer.Option("--exclude", help="gitignore-style glob, relative to the current folder, of files not to report (repeatable); replaces the configuration's exclude.", show_default=False)] = None,
    category: Annotated[str, typer.Option("--category", help="SARIF automationDetails.id category.")] = "hooklint",
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Worker processes (0: one per CPU).", min=0)] = 0,
    link_base: Annotated[Optional[str], typer.Option("--link-base", help="markdown: URL prefix of file links, e.g. https://github.com/ORG/REPO/blob/SHA.")] = None,
    fix: Annotated[bool, typer.Option("--fix", help="Apply safe fixes in place first (as 'hooklint fix').")] = False,
    unsafe_fixes: Annotated[bool, typer.Option("--unsafe-fixes", help="With --fix: apply unsafe fixes too.")] = False,
    baseline: Annotated[Optional[str], typer.Option("--baseline", help="Suppress the findings this baseline records (default: the configuration's baseline).", show_default=False)] = None,
    write_baseline: Annotated[Optional[str], typer.Option("--write-baseline", help="Record today's findings in this file, but HL007 and HL008, which it says it left out (exit 0 unless an input error); prints the run's summary, not the findings (--output still gets the whole report).", show_default=False)] = None,
    stats: Annotated[bool, typer.Option("--statistics", help="Text format: add the number of findings of each rule.")] = False,
    show_suppressed: Annotated[bool, typer.Option("--show-suppressed", help="Text format: list suppressed findings too, each marked with its suppression.")] = False,
    show_skipped: Annotated[bool, typer.Option("--show-skipped", help="List the files not linted, with the reason (text).")] = False,
    fetch: Annotated[bool, typer.Option("--fetch", help="Download the charts, Git sources of other repositories and remote kustomize bases that Applications and kustomizations name, from fetch-hosts only, and check them (README: Sources from elsewhere).")] = False,
    fetch_host: Annotated[Optional[list[str]], typer.Option("--fetch-host", help="With --fetch: admit one more host for this run: host[:port] (HTTPS), http://host[:port], or file:///folder (Git remotes under it); repeatable.", show_default=False)] = None,
    run_timeout: RunTimeoutOption = None,
    max_run_nodes: MaxRunNodesOption = None,
    no_cache: NoCacheOption = False,
) -> None:
    """Lint manifests and report findings."""
    _caching(no_cache)
    from hooklint.catalog import load_catalog
    from hooklint.config import ConfigError
    from hooklint.results import kept_run

    from hooklint.files import linting

    paths = paths or ["."]
    linting(paths)  # where the run reads, before a chart is looked for (hooklint.sources.repository.tree._top_above)
    not_manifests = _named_manifests(paths)
    named, paths = paths, [p for p in paths if p not in not_manifests]
    cfg = _limits(_fetching(_override(_load_config(config, named), select, ignore, exclude, fail_on), fetch,
                            fetch_host), run_timeout, max_run_nodes)
    baseline = baseline if baseline is not None else cfg.baseline
    own = [p for p in (baseline, write_baseline) if p is not None]
    if own:  # hooklint's own baseline is JSON in the repository, not a manifest
        cfg.exclude = cfg.exclude.with_files(own)
    if unsafe_fixes and not fix:
        _fail("--unsafe-fixes needs --fix")
    not_written = False  # lint --fix: a file the fixes could not be written to makes the exit code 1
    if fix:
        if "-" in paths:
            _fail("lint --fix cannot rewrite stdin; use 'hooklint fix -', which writes the fixed stream to stdout")
        not_written = bool(_run_fix(paths, cfg, unsafe_fixes, diff=False).not_written)
    from hooklint.suppression import BaselineError

    plans = format is Format.markdown
    try:
        # a run the result cache holds whole costs a stat pass, without loading the checks
        kept = None if plans else kept_run(paths, cfg, baseline if write_baseline is None else None)
        if kept is not None:
            result = kept
        else:
            from hooklint.pipeline import lint_paths

            result = lint_paths(paths, cfg, load_catalog(), jobs=jobs, plans=plans,
                                baseline=baseline if write_baseline is None else None, looked_up=not plans)  # fmt: skip
    except (ConfigError, BaselineError) as exc:
        _fail(str(exc))
    if not_manifests:  # reported like a missing file (a new list: the run's may be a cached run's)
        from hooklint.findings import InputError

        result.errors = [*(InputError(p, NOT_A_MANIFEST) for p in not_manifests), *result.errors]
    for error in result.errors:
        typer.echo(_said(f"hooklint: error: {error.path}: {error.message}"), err=True)
    if result.errors and not result.files and format in (Format.text, Format.concise):
        raise typer.Exit(EXIT_ERROR)  # nothing was linted: the errors above are the whole report
    from hooklint.collector import collector_paused

    text: str | Iterator[str]
    with collector_paused():  # a report of many findings makes many objects and no cycles
        if write_baseline is not None and output is None:  # the findings go to the baseline: a summary
            from hooklint.reporters.text import render_summary

            text = render_summary(result)
        elif format is Format.concise:
            from hooklint.reporters.text import render_concise

            text = render_concise(result)
        elif format is Format.text:
            from hooklint.reporters.text import render

            text = render(result, show_suppressed=show_suppressed, stats=stats, show_skipped=show_skipped,
                          colour=(output is None or output == "-") and _colour(sys.stdout))
        elif format is Format.json:
            from hooklint.reporters.json import render_chunks

            text = render_chunks(result)  # written piece by piece: a large report is never held whole
        elif format is Format.markdown:
            from hooklint.review.markdown import render_tree

            text = render_tree(result, result.plans, link_base)
        else:
            from importlib import import_module

            module = import_module(f"hooklint.reporters.{format.value}")
            # SARIF is written piece by piece too (a large report is never held whole)
            writer = module.render_chunks if format is Format.sarif else module.render
            text = writer(result, load_catalog(), category=category)
            if format is Format.sarif:
                _sarif_left_out(result)
        _write(text, output)
    if output is not None and output != "-":  # a CI log still shows what was found
        typer.echo(_said(f"hooklint: {result.summary()} (report in {output})"), err=True)
    if result.errors:
        raise typer.Exit(EXIT_ERROR)
    if write_baseline is not None:
        from hooklint.suppression.baseline import write_baseline as write

        try:
            written = write(write_baseline, result)
        except BaselineError as exc:
            _fail(str(exc))
        typer.echo(written.summary(write_baseline), err=True)
        raise typer.Exit(EXIT_CLEAN)
    raise typer.Exit(EXIT_FINDINGS if cfg.failing(result.findings) or not_written else EXIT_CLEAN)


def split_pre_commit_arguments(args: list[str], options: dict[str, bool]) -> tuple[list[str], list[str]]:
    """``(options, paths)`` of the arguments pre-commit gives a hook: its ``entry``, then the hook's
    ``args:`` (options, each a key of ``options``, whose value says whether it takes a value: the
    next argument, unless written ``--name=value`` or ``-fVALUE``), then the staged file names
    (pre-commit's ``lang_base.hook_cmd`` and ``xargs``: no ``--`` in between). Options end at the
    first argument that does not start with ``-``, at ``--`` (dropped), and at the first that names
    an existing file or folder: pre-commit passes only files that exist, so a committed file named
    ``--exclude=evil*.yaml`` or ``--config=c.yaml`` is a path, never an option. Every argument from
    there on is a path, ``-`` written ``./-`` (a file so named, never stdin)."""
    import os

    out: list[str] = []
    i = 0
    while i < len(args):
        token = args[i]
        if token == "--":
            i += 1
            break
        if not token.startswith("-") or token == "-" or os.path.lexists(token):
            break
        out.append(token)
        name = token.split("=", 1)[0]
        attached = "=" in token or (not token.startswith("--") and len(token) > 2 and options.get(token[:2], False))
        if options.get(name, False) and not attached and i + 1 < len(args):
            out.append(args[i + 1])
            i += 1
        i += 1
    return out, ["./-" if path == "-" else path for path in args[i:]]


@app.command("pre-commit", context_settings={"ignore_unknown_options": True, "allow_extra_args": True,
                                             "allow_interspersed_args": False, "help_option_names": []})  # fmt: skip
def pre_commit(ctx: typer.Context) -> None:
    """The pre-commit hook: 'hooklint lint' with the hook's args, then the staged files, each a path."""
    group = ctx.parent.command if ctx.parent is not None else None
    lint_command = group.get_command(ctx.parent, "lint") if group is not None else None  # type: ignore[attr-defined]
    assert lint_command is not None
    options = {name: not (getattr(param, "is_flag", False) or getattr(param, "count", False))
               for param in lint_command.params if param.param_type_name == "option"
               for name in [*param.opts, *param.secondary_opts]}  # fmt: skip
    given, paths = split_pre_commit_arguments(list(ctx.args), options)
    lint_command.main([*given, "--", *paths], prog_name="hooklint lint", standalone_mode=True)


class DiffFormat(str, Enum):
    text = "text"
    json = "json"
    sarif = "sarif"
    markdown = "markdown"


@app.command(cls=_Command)
def diff(
    base: Annotated[str, typer.Argument(metavar="BASE", help="The git revision to compare with (a commit, branch or tag).", show_default=False)],
    paths: Annotated[Optional[list[str]], typer.Argument(metavar="PATH", help="Files or folders (default: the whole repository).", show_default=False)] = None,
    head: Annotated[Optional[str], typer.Option("--head", help="Compare with this revision instead of the working tree.")] = None,
    format: Annotated[DiffFormat, typer.Option("--format", "-f", help="Output format.")] = DiffFormat.text,
    output: Annotated[Optional[str], typer.Option("--output", "-o", help="Write the report to this file (- for stdout).")] = None,
    config: Annotated[Optional[str], typer.Option("--config", "-c", help="Configuration file (default: the nearest .hooklint.yaml from the first path up to the repository top).")] = None,
    fail_on: Annotated[Optional[FailOn], typer.Option("--fail-on", help="Lowest severity of a NEW finding that makes the exit code 1 (default: the configuration's fail-on, else warning).", show_default=False)] = None,
    category: Annotated[str, typer.Option("--category", help="SARIF code scanning category; the run's automationDetails.id is CATEGORY/diff/, never lint's, so that uploading it closes no alert of lint's.")] = "hooklint",
    link_base: Annotated[Optional[str], typer.Option("--link-base", help="markdown: URL prefix of file links, e.g. https://github.com/ORG/REPO/blob/SHA.")] = None,
    fetch: Annotated[bool, typer.Option("--fetch", help="Download the charts, Git sources of other repositories and remote kustomize bases that Applications and kustomizations name, from fetch-hosts only, and check them (README: Sources from elsewhere).")] = False,
    fetch_host: Annotated[Optional[list[str]], typer.Option("--fetch-host", help="With --fetch: admit one more host for this run: host[:port] (HTTPS), http://host[:port], or file:///folder (Git remotes under it); repeatable.", show_default=False)] = None,
    run_timeout: RunTimeoutOption = None,
    max_run_nodes: MaxRunNodesOption = None,
    no_cache: NoCacheOption = False,
) -> None:
    """Review a change: findings it adds and fixes, and how it changes each sync plan."""
    _caching(no_cache)
    from hooklint.catalog import load_catalog
    from hooklint.config import ConfigError
    from hooklint.review import ReviewError, review
    from hooklint.review import report

    broken = None
    if config is None:  # a configuration the change breaks is judged by the base's (review's _policy)
        from hooklint.config import Config, load_config

        try:
            cfg = _fetching(_override(load_config(None, paths or ["."]), None, None, None, fail_on), fetch, fetch_host)
        except ConfigError as exc:
            broken, cfg = str(exc), _fetching(_override(Config(), None, None, None, fail_on), fetch, fetch_host)
        if cfg.version_note:
            typer.echo(_said(f"hooklint: note: {cfg.version_note}"), err=True)
    else:
        cfg = _fetching(_override(_load_config(config, paths or ["."]), None, None, None, fail_on), fetch, fetch_host)
    cfg = _limits(cfg, run_timeout, max_run_nodes)
    catalog = load_catalog()
    def reload(path: Optional[str]):  # the base revision's configuration, as this command line applies it
        from hooklint.config import Config, load_config

        # found in the repository (the base's): it may lower a limit, never raise one; fetch-hosts and
        # fetch-credentials are the base's: a change never admits a host
        return _fetching(_override(load_config(path, found=True) if path is not None else Config(), None, None, None,
                                   fail_on), fetch, fetch_host)

    try:  # a found (not named) configuration that the change edits is judged by the base's
        change = review(base, paths or [], cfg, catalog, head=head, reload=reload if config is None else None,
                        broken=broken)  # fmt: skip
    except (ReviewError, ConfigError) as exc:
        _fail(str(exc))
    for note in change.notes:
        typer.echo(_said(f"hooklint: note: {note}"), err=True)
    for error in change.errors:
        typer.echo(_said(f"hooklint: error: {error.path}: {error.message}"), err=True)
    if format is DiffFormat.json:
        text = report.render_json(change)
    elif format is DiffFormat.sarif:
        text = report.render_sarif(change, catalog, category)
        _sarif_left_out(report.sarif_result(change))
    elif format is DiffFormat.markdown:
        from hooklint.review.markdown import render_review

        text = render_review(change, link_base)
    else:
        text = report.render_text(change)
    _write(text, output)
    if change.errors:
        raise typer.Exit(EXIT_ERROR)
    raise typer.Exit(EXIT_FINDINGS if (change.policy or cfg).failing(change.new) else EXIT_CLEAN)

STARTER = """\
# yaml-language-server: $schema={schema}
# hooklint configuration: https://github.com/hooklint/hooklint#configuration
# Globs in exclude and per-path-ignores are gitignore-style, relative to this file's folder.

# Rules: ids (HL101), slugs (hook-image-mutable-tag) or id prefixes (HL1, HL20).
# select: [HL1, HL2]             # run only these (default: every rule)
ignore: []                       # never run these (wins over select)
# severity:                      # override a rule's severity: error, warning or note
#   HL208: note
fail-on: warning                 # lowest severity that fails the run: error, warning, note, never
fail-on-unrendered: false        # true: HL009 (a remote base, a helmCharts entry hooklint left out) fails the run
                                 #   whatever fail-on says (a warning, it already fails it at fail-on: warning)

exclude: []                      # files never reported, e.g. ["legacy/", "**/*-generated.yaml"]
# baseline: .hooklint-baseline.json  # findings recorded by hooklint lint --write-baseline
# per-path-ignores:              # rules not reported on some paths
#   "legacy/**": [HL103]
#   "charts/shop/**": [HL009]    # Argo CD fetches its dependencies; hooklint does not check it

workload-scope: hooks            # hooks, or all: security and lifecycle rules on every workload
allowed-registries: []           # HL101: registry hosts or host/path prefixes, e.g. [ghcr.io/acme]
require-digest: false            # HL102: require an @sha256 digest on every hook image
denied-images: []                # HL109: image globs no hook may use, e.g. ["docker.io/acme-old/*"]
argocd-version: "3.5"            # the Argo CD you run (quoted): "3.3" means 3.3's newest patch, "3.3.2" exactly
# Limits below may only be lowered here: to raise one, name this file with --config.
max-file-size: 10485760          # bytes; larger files are reported and not linted
render-timeout: 60               # seconds one kustomize build or Helm rendering may take (else HL007)
render-memory: 2048              # MiB of memory one kustomize build or Helm rendering may use (else HL007)
render-output: 64                # MiB of output one kustomize build or Helm rendering may print (else HL007)
render-objects: 20000            # objects one kustomize build or Helm rendering may print (else HL007)
run-timeout: 300                 # seconds the whole run may take (else exit 2, naming what was not checked)
max-run-nodes: 10000000          # YAML nodes the whole run may parse (else exit 2, naming what was not checked)
max-waves: 10                    # HL304: most (phase, wave) steps in one sync
wait-for-first-consumer-classes: []  # HL306: the cluster's WaitForFirstConsumer StorageClasses
"""


@app.command(cls=_Command)
def init(
    path: Annotated[str, typer.Argument(metavar="PATH", help="The file to write.")] = ".hooklint.yaml",
) -> None:
    """Write a commented starter .hooklint.yaml (never over an existing file)."""
    import os

    from hooklint.config import SCHEMA_URL
    from hooklint.files import UnsafeWrite, write_output

    if os.path.lexists(path):
        typer.echo(_said(f"hooklint: {path} already exists; not overwriting it"), err=True)
        raise typer.Exit(EXIT_FINDINGS)
    try:  # O_EXCL: never over a file, nor through a link, made meanwhile
        write_output(path, STARTER.format(schema=SCHEMA_URL).encode("utf-8"), exclusive=True)
    except FileExistsError:
        typer.echo(_said(f"hooklint: {path} already exists; not overwriting it"), err=True)
        raise typer.Exit(EXIT_FINDINGS)
    except UnsafeWrite as exc:
        _fail(f"{path}: cannot write configuration: {exc}")
    except OSError as exc:
        _fail(f"{path}: cannot write configuration: {exc.strerror or exc}")
    typer.echo(f"wrote {path}")


class PlanFormat(str, Enum):
    text = "text"
    json = "json"


@app.command(cls=_Command)
def plan(
    paths: Annotated[Optional[list[str]], typer.Argument(metavar="PATH", help="Files, folders, or - for stdin (default: the current folder).", show_default=False)] = None,
    format: Annotated[PlanFormat, typer.Option("--format", "-f", help="Output format.")] = PlanFormat.text,
    output: Annotated[Optional[str], typer.Option("--output", "-o", help="Write the plan to this file.")] = None,
    config: Annotated[Optional[str], typer.Option("--config", "-c", help="Configuration file (default: the nearest .hooklint.yaml from the first path up to the repository top).")] = None,
    fetch: Annotated[bool, typer.Option("--fetch", help="Download the charts, Git sources of other repositories and remote kustomize bases that Applications and kustomizations name, from fetch-hosts only, and check them (README: Sources from elsewhere).")] = False,
    fetch_host: Annotated[Optional[list[str]], typer.Option("--fetch-host", help="With --fetch: admit one more host for this run: host[:port] (HTTPS), http://host[:port], or file:///folder (Git remotes under it); repeatable.", show_default=False)] = None,
    run_timeout: RunTimeoutOption = None,
    max_run_nodes: MaxRunNodesOption = None,
    no_cache: NoCacheOption = False,
) -> None:
    """Print the sync plan Argo CD would execute, one application at a time."""
    _caching(no_cache)
    from hooklint.pipeline import plan_paths
    from hooklint.reporters.plan import render

    paths = paths or ["."]
    cfg = _limits(_fetching(_load_config(config, paths), fetch, fetch_host), run_timeout, max_run_nodes)
    plans, errors = plan_paths(paths, cfg)
    text = render(plans, format.value)
    for error in errors:
        typer.echo(_said(f"hooklint: error: {error.path}: {error.message}"), err=True)
    _write(text, output)
    raise typer.Exit(EXIT_ERROR if errors else EXIT_CLEAN)


class RulesFormat(str, Enum):
    text = "text"
    json = "json"


@app.command(cls=_Command)
def rules(
    markdown: Annotated[bool, typer.Option("--markdown", help="A Markdown table (the README's).")] = False,
    format: Annotated[RulesFormat, typer.Option("--format", "-f", help="Output format.")] = RulesFormat.text,
    config: Annotated[Optional[str], typer.Option("--config", "-c", help="Configuration file (default: the nearest one); decides which rules are enabled.")] = None,
    docs: Annotated[Optional[str], typer.Option("--docs", help="Write one Markdown page per rule into this folder (docs/rules in the repository) and exit.", show_default=False)] = None,
) -> None:
    """List every rule: id, severity, slug, whether the configuration enables it, whether
    'hooklint fix' can fix it (safe, unsafe or -), and its summary."""
    from hooklint.catalog import load_catalog, markdown_table, rules_listing, write_rule_pages
    from hooklint.config import ConfigError
    from hooklint.engine import Engine

    catalog = load_catalog()
    if markdown:
        typer.echo(markdown_table(catalog), nl=False)
        return
    if docs is not None:
        try:
            written = write_rule_pages(docs, catalog)
        except OSError as exc:
            _fail(f"{docs}: cannot write rule pages: {exc.strerror or exc}")
        typer.echo(f"wrote {len(written)} rule pages to {docs}")
        return
    try:
        engine = Engine(_load_config(config), catalog)
    except ConfigError as exc:
        _fail(str(exc))
    typer.echo(rules_listing(catalog, engine.enabled, engine.severity, as_json=format is RulesFormat.json), nl=False)


def _run_fix(paths: list[str], cfg, unsafe: bool, diff: bool, backoff_limit: int = 1,
             active_deadline_seconds: int = 900):  # fmt: skip
    """Run :func:`hooklint.fix.fix_paths` and say on stderr what was fixed and what was left for a
    person. Returns the :class:`~hooklint.fix.FixRun`."""
    from hooklint.catalog import load_catalog
    from hooklint.config import ConfigError
    from hooklint.fix import FixOptions, fix_paths, unified_diff

    options = FixOptions(unsafe, backoff_limit, active_deadline_seconds)
    try:
        run = fix_paths(paths, cfg, load_catalog(), options, write=not diff)
    except ConfigError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"{getattr(exc, 'filename', '') or ''}: cannot write: {exc.strerror or exc}")
    if diff:
        sys.stdout.write("".join(unified_diff(f, ".") for f in run.files if f.changed))
    for finding, reason in run.left:
        typer.echo(_said(f"{finding.path}:{finding.span.line}:{finding.span.column}: {finding.rule_id} left for a person: {reason}"), err=True)
    for path, why, count in run.not_written:
        typer.echo(_said(f"hooklint: {path}: {why}: not written ({count} fix{'es' if count != 1 else ''} not applied)"), err=True)
    typer.echo(run.summary(would=diff), err=True)
    return run


@app.command("fix", cls=_Command)
def fix_command(
    paths: Annotated[Optional[list[str]], typer.Argument(metavar="PATH", help="Files, folders, or - for stdin (fixed stream on stdout; default: the current folder).", show_default=False)] = None,
    diff: Annotated[bool, typer.Option("--diff", help="Print a unified diff (patch -p1 from here) and change nothing.")] = False,
    unsafe_fixes: Annotated[bool, typer.Option("--unsafe-fixes", help="Also apply fixes that change behaviour a person must judge.")] = False,
    backoff_limit: Annotated[int, typer.Option("--backoff-limit", help="spec.backoffLimit the HL201 fix adds.", min=0)] = 1,
    active_deadline_seconds: Annotated[int, typer.Option("--active-deadline-seconds", help="spec.activeDeadlineSeconds the HL202 fix adds.", min=1)] = 900,
    config: Annotated[Optional[str], typer.Option("--config", "-c", help="Configuration file (default: the nearest .hooklint.yaml from the first path up to the repository top).")] = None,
    fail_on: Annotated[Optional[FailOn], typer.Option("--fail-on", help="Lowest severity that makes the exit code 1 (default: the configuration's fail-on, else warning).", show_default=False)] = None,
    run_timeout: RunTimeoutOption = None,
    max_run_nodes: MaxRunNodesOption = None,
) -> None:
    """Fix findings in place, keeping every other byte of each file; then report what remains.
    Read-only files, and files changed since hooklint read them, are left as they are (one line
    on stderr each).

    Exit codes: 0 nothing left at or above --fail-on (with --diff: and nothing to change), 1 findings
    remain (or, with --diff, changes to make; or a file was left as it is, read-only or changed
    meanwhile, whatever --fail-on says), 2 usage or input errors."""
    from hooklint.catalog import load_catalog
    from hooklint.findings import RunResult
    from hooklint.reporters.text import render

    paths = paths or ["."]
    cfg = _limits(_override(_load_config(config, paths), None, None, None, fail_on), run_timeout, max_run_nodes)

    if "-" in paths:
        if len(paths) != 1:
            _fail("'-' (stdin) cannot be fixed together with other paths")
        from hooklint.fix import FixOptions, fix_stdin, unified_diff

        try:  # bytes, so that \r\n line endings come back as they went in
            text = sys.stdin.buffer.read().decode("utf-8")
        except UnicodeDecodeError as exc:
            _fail(f"-: not valid UTF-8 (byte {exc.start}); nothing fixed")
        done = fix_stdin(text, cfg, load_catalog(), FixOptions(unsafe_fixes, backoff_limit, active_deadline_seconds))
        sys.stdout.write(unified_diff(done.fix, ".") if diff else done.fix.fixed)
        for finding, reason in done.fix.left:
            typer.echo(_said(f"-:{finding.span.line}:{finding.span.column}: {finding.rule_id} left for a person: {reason}"), err=True)
        typer.echo(render(RunResult(findings=done.remaining, files=1)), err=True, nl=False)
        raise typer.Exit(EXIT_FINDINGS if cfg.failing(done.remaining) or (diff and done.fix.changed) else EXIT_CLEAN)
    run = _run_fix(paths, cfg, unsafe_fixes, diff, backoff_limit, active_deadline_seconds)
    if run.errors:
        for error in run.errors:
            typer.echo(_said(f"hooklint: error: {error.path}: {error.message}"), err=True)
        raise typer.Exit(EXIT_ERROR)
    if diff:
        raise typer.Exit(EXIT_FINDINGS if any(f.changed for f in run.files) or cfg.failing(run.unfixed()) else EXIT_CLEAN)
    from hooklint.pipeline import lint_paths

    result = lint_paths(paths, cfg, load_catalog(), jobs=1)
    sys.stdout.write(render(result))
    raise typer.Exit(EXIT_ERROR if result.errors else EXIT_FINDINGS if cfg.failing(result.findings) or run.not_written
                     else EXIT_CLEAN)  # fmt: skip


@app.command(cls=_Command)
def doctor(
    paths: Annotated[Optional[list[str]], typer.Argument(metavar="PATH", help="Files or folders whose Applications to list (default: the current folder).", show_default=False)] = None,
    config: Annotated[Optional[str], typer.Option("--config", "-c", help="Configuration file (default: the nearest .hooklint.yaml from the first path up to the repository top).")] = None,
) -> None:
    """Say what a run would use: renderers and versions, the configuration in force and where it
    was found, the repository URLs Applications are matched against, the Applications mapped and
    ignored (with the reasons), and the cache location. Exit 0, or 2 for a configuration error."""
    from hooklint.doctor import report

    paths = paths or ["."]
    cfg = _load_config(config, paths)
    if config is not None:
        origin = f"{config} (--config)"
    elif cfg.path is not None:
        origin = f"{cfg.path} (found from {paths[0]} upward)"
    else:
        origin = f"none found from {paths[0]} up to the repository top: the defaults (hooklint init writes one)"
    typer.echo(report(paths, cfg, origin), nl=False)


@app.command(cls=_Command)
def explain(rule_id: Annotated[str, typer.Argument(metavar="RULE", help="Rule id (HL101) or slug.")]) -> None:
    """Show a rule's documentation and its examples, with the positions each bad one is reported at."""
    from hooklint.catalog import UnknownRule, explain_text, load_catalog

    try:
        text = explain_text(load_catalog(), rule_id)
    except UnknownRule as exc:
        _fail(str(exc))
    typer.echo(text)


#: The commands a command runs through its group, kept with it by :func:`app_for`.
_SIBLINGS_USED = {"pre-commit": ("lint",)}


def app_for(args: list[str]) -> typer.Typer:
    """The app to run the command line ``args`` with: :data:`app` itself, or, when ``args[0]`` names
    a command, a copy of it holding that command (and the siblings it runs, :data:`_SIBLINGS_USED`)
    only. typer builds the click command of every registered command (each callback's signature, type
    hints and parameters) before it parses anything, about as long as importing typer itself; a run
    of one command never uses the others. Its output is the same byte for byte: a command's help,
    usage and errors name only itself, and anything that does not name a command exactly (``--help``,
    ``--version``, a misspelt command and its "Did you mean") gets the whole app."""
    named = {c.name or typer.main.get_command_name(c.callback.__name__ if c.callback else ""): c
             for c in app.registered_commands}  # fmt: skip
    if not args or args[0] not in named:
        return app
    one = copy.copy(app)
    keep = {args[0], *_SIBLINGS_USED.get(args[0], ())}
    one.registered_commands = [c for name, c in named.items() if name in keep]
    return one


def main() -> None:
    """Console-script entry point: runs the app and turns any unexpected exception into one line
    on stderr and exit code 2 (never a traceback, never exit 1, which means findings).

    SIGINT and SIGTERM end the run with one line (``hooklint: interrupted (SIGTERM)``) and exit
    130 or 143, every temporary file and folder removed and child processes killed
    (:mod:`hooklint.interrupt`)."""
    from hooklint.collector import start_up, started
    from hooklint.interrupt import Interrupted, guarded, report

    start_up()  # resumed once the run's code is loaded (hooklint.collector)
    try:
        with guarded():
            try:
                app_for(sys.argv[1:])(standalone_mode=True)
            except KeyboardInterrupt:  # a SIGINT before the handler was installed
                raise Interrupted(2) from None
    except SystemExit:
        raise
    except Interrupted as exc:
        report(exc)
    except OSError as exc:  # writing the report: stdout on a full disk (plan > /dev/full), a closed stream
        if isinstance(exc, BrokenPipeError):  # the reader went away (| head): nothing more to say
            sys.exit(EXIT_ERROR)
        what = f"{exc.filename}: {exc.strerror or exc}" if exc.filename else f"cannot write the report: {exc.strerror or exc}"
        sys.stderr.write(_said(f"hooklint: error: {what}") + "\n")
        sys.exit(EXIT_ERROR)
    except RecursionError:  # input nested past what a recursive step of the run follows (an application's own is HL007)
        sys.stderr.write("hooklint: error: the repository holds something nested too deeply for hooklint to follow "
                         "(Python's recursion limit); nothing was checked. Please report it with the files that "
                         "cause it.\n")  # fmt: skip
        sys.exit(EXIT_ERROR)
    except Exception as exc:  # pragma: no cover - last resort
        from hooklint.text import internal_error

        sys.stderr.write(_said(f"hooklint: internal error: {internal_error(exc)}") + "\n")
        sys.exit(EXIT_ERROR)
    finally:
        started()  # a command that never reached a run's loading (explain, a warm result cache)
