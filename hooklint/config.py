"""``.hooklint.yaml`` or ``[tool.hooklint]`` of ``pyproject.toml`` -> :class:`Config`.

The file is the one named with ``--config``, else the nearest one walking up from the linted path
(:func:`find_config_for`: from each path's folder up to the repository's top folder; with no path,
or for ``-``, from the current directory; a folder holding two is an error, and so are two paths
that find different files). Keys (``hooklint/config.schema.json`` describes them and
is published for editors):

============================  ==========================================================  =======
key                           meaning                                                     default
============================  ==========================================================  =======
``select``                    rule ids, slugs or id prefixes (``HL1``, ``HL20``) to run     all
``ignore``                    rule ids, slugs or id prefixes not to run (wins)            ``[]``
``disable``                   deprecated alias of ``ignore``                              ``[]``
``severity``                  ``{HL208: note}``: severity overrides                       ``{}``
``fail-on``                   lowest severity that makes the exit code 1                  warning
``fail-on-unrendered``        HL009 (something hooklint did not render) fails the run    false
                              whatever ``fail-on`` says (a warning, it fails at ``warning``)
``exclude``                   gitignore-style globs (relative to the file) not reported   ``[]``
``per-path-ignores``          ``{"legacy/**": [HL103]}``: rules not reported on paths     ``{}``
``baseline``                  a ``--write-baseline`` file (relative to the config file)   none
``workload-scope``            ``hooks`` or ``all`` (``check-all-workloads``: deprecated)  hooks
``allowed-registries``        registry hosts or host/path prefixes hook images may use    ``[]``
``require-digest``            HL102 wants an ``@sha256`` digest on every image            false
``argocd-version``            the Argo CD version whose behaviour rules follow            3.5.1
``argocd-namespace``          the namespace Argo CD's controller runs in (instance names) what the
                              repository says (:func:`hooklint.argocd.control_plane_namespaces`)
``max-file-size``             bytes; larger files are not linted                          10 MB
``render-timeout``            seconds one kustomize build or Helm rendering may take      60
``render-memory``             MiB of memory one rendering may use                         2048
``render-output``             MiB of output one rendering may print                       64
``render-objects``            objects (YAML documents) one rendering may print            20,000
``run-timeout``               seconds one run (one command) may take                      300
``max-run-nodes``             YAML nodes one run (one command) may parse                  10,000,000
``max-waves``                 HL304's limit of (phase, wave) steps                        10
``wait-for-first-consumer-classes``  the cluster's StorageClasses binding WaitForFirstConsumer  ``[]``
                              (HL306; a StorageClass in the run wins over this list)
``repo-urls``                 more URLs of this repository (Applications pointing here)   ``[]``
``clusters``                  clusters for ApplicationSet clusters generators: ``name``,  ``[]``
                              ``server``, ``labels``, ``annotations``, ``project``
``kube-version``              Helm's ``--kube-version`` (``.Capabilities.KubeVersion``)   Helm's
``api-versions``              Helm's ``--api-versions`` (``.Capabilities.APIVersions``)   ``[]``
``fetch-hosts``               hosts ``--fetch`` may download from (``host[:port]``,        ``[]``
                              ``http://host[:port]``)
``helm-repositories``         Argo CD's Helm repositories by name (``@name``,             ``{}``
                              ``alias:name`` dependencies): name -> ``https://`` URL
``fetch-credentials``         a file of credentials for those hosts (in the repository)   none
``fetch-max-bytes``           bytes one fetched source may download or unpack            200 MiB
``fetch-max-files``           files one fetched source may hold                          10,000
``fetch-timeout``             seconds one source's fetch may take                        120
============================  ==========================================================  =======

A file that was found, not named with ``--config``, may lower the limits (``max-file-size``,
``render-timeout``, ``render-memory``, ``render-output``, ``render-objects``, ``run-timeout``,
``max-run-nodes`` and the three ``fetch-`` limits: :data:`LIMITS`), never raise them
(:func:`lowered_only`): it comes with the repository being linted, which may be a stranger's.

The schema is validated here by a small walker that understands the keywords the schema uses
(importing jsonschema would cost a tenth of a second on every pre-commit run; the test suite checks
the schema itself with jsonschema). Every error is one line naming the file, the line and the key.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import urllib.parse
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable

from hooklint import argocd
from hooklint.files import repository_of, top_outside_git
from hooklint.images import RegistryEntry
from hooklint.text import REDACTED, SECRET_KEY, url_credentials

if TYPE_CHECKING:
    from hooklint.findings import Finding

YAML_NAMES = (".hooklint.yaml", ".hooklint.yml")
PYPROJECT = "pyproject.toml"
#: Files larger than this (bytes) are not linted (``max-file-size``).
DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024
#: Seconds one rendering may take, MiB it may use (``render-timeout``, ``render-memory``; see
#: :mod:`hooklint.sources.bounded`).
DEFAULT_RENDER_TIMEOUT = 60
DEFAULT_RENDER_MEMORY = 2048
#: MiB of output (stdout) one rendering may print, and objects (YAML documents) it may print
#: (``render-output``, ``render-objects``; see :mod:`hooklint.sources.bounded`). hooklint holds a
#: rendering's output, then its objects, in its own memory: these bound it. Measured: the largest
#: rendering of the corpus (``shared/corpus``) prints 37 KB; Argo CD's own chart (argo-helm
#: ``charts/argo-cd`` 10.1.1, its CRDs included) 1.9 MB in 59 objects (63,449 YAML nodes). Argo CD's
#: repo server answers with at most 100 MiB of manifests (``reposerver/apiclient/clientset.go``,
#: ``ARGOCD_GRPC_MAX_SIZE_MB``).
DEFAULT_RENDER_OUTPUT = 64
DEFAULT_RENDER_OBJECTS = 20_000
#: Seconds one run (one command) may take (``run-timeout``; see :mod:`hooklint.deadline`).
DEFAULT_RUN_TIMEOUT = 300
#: YAML nodes one run may parse (``max-run-nodes``; see :mod:`hooklint.runnodes`): each costs about
#: 90 bytes, all of one application's held at once. Measured: the whole corpus (``shared/corpus/public``,
#: 768 files, its renderings included) parses 56,726 nodes, Argo CD's own chart 63,449: this is 176
#: times the corpus, and about 0.9 GB of values at most (attack 15's 16 copies of a file of 990,000
#: nodes in one folder: exit 2 at a peak RSS of 954 MB, was 1,437 MB and growing 90 MB a copy).
DEFAULT_MAX_RUN_NODES = 10_000_000
#: What one fetched source may download or unpack (bytes), hold (files) and take (seconds):
#: ``fetch-max-bytes``, ``fetch-max-files``, ``fetch-timeout`` (see :mod:`hooklint.sources.fetch`).
DEFAULT_FETCH_MAX_BYTES = 200 * 1024 * 1024
DEFAULT_FETCH_MAX_FILES = 10_000
DEFAULT_FETCH_TIMEOUT = 120
SCHEMA_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "config.schema.json")
SCHEMA_URL = "https://raw.githubusercontent.com/hooklint/hooklint/main/hooklint/config.schema.json"


class ConfigError(Exception):
    """A configuration problem; the message is one line naming the file, the line and the key. The
    credentials of a URL it quotes are removed (:func:`~hooklint.text.url_credentials`): a
    configuration's value echoed as written may be ``https://user:password@...`` (attacker trial 19
    B5), and the message reaches CI logs, ``doctor`` and a review's notes."""

    def __init__(self, message: str) -> None:
        super().__init__(url_credentials(message))


def glob_problem(pattern: str) -> str | None:
    """Why :class:`PathFilter` cannot use ``pattern``, or None. ``..`` may only lead a glob
    (``../legacy/``): gitignore has no ``..``, and one inside a glob would silently match nothing."""
    parts = pattern.removeprefix("!").lstrip("/").split("/")
    while parts and parts[0] in (".", ".."):
        parts.pop(0)
    if ".." in parts:
        return f"glob {pattern!r} has '..' after its start: only leading '../' steps up from the folder it is relative to"
    try:
        PathFilter._translate(pattern)
    except ValueError as exc:
        return str(exc)
    return None


class PathFilter:
    """gitignore-style globs relative to ``base`` (a folder): ``*`` and ``?`` stay inside one path
    component, ``**`` crosses folders, a pattern without ``/`` (other than a trailing one) matches a
    name at any depth, a trailing ``/`` matches folders only, a leading ``!`` re-includes, and the
    last matching pattern wins. A folder that matches takes everything below it along.

    Leading ``./`` and ``../`` steps (not gitignore's: there the base is always the top) move the
    glob's own base, so ``--exclude ../variants/`` run from ``envs/`` means the ``variants`` folder
    beside it, and ``--exclude ..`` everything in the folder above; the rest of the glob is then
    anchored there. A ``..`` after the start is refused (:func:`glob_problem`, ValueError), and so
    is a bracket expression no glob can hold (``[z-a]``; it was an internal error)."""

    __slots__ = ("base", "patterns", "_compiled", "files")

    def __init__(self, base: str, patterns: list[str], files: frozenset[str] = frozenset()):
        self.base = os.path.abspath(base)
        self.patterns = list(patterns)
        self._compiled = [self._compile(p) for p in self.patterns]
        #: files matched whatever the patterns say (absolute paths: hooklint's own baseline)
        self.files = files

    def moved(self, old: str, new: str) -> "PathFilter":
        """This filter for a copy of the folder ``old`` at ``new``: its ``base`` and its ``files``
        inside ``old`` taken to the same place under ``new`` (``hooklint diff`` lints revisions in
        copies: the baseline file stays hooklint's own there, not a manifest); one whose ``base`` is
        outside ``old`` is returned as it is."""
        def inside(path: str) -> str | None:
            relative = os.path.relpath(path, old)
            return None if relative == ".." or relative.startswith(".." + os.sep) else os.path.join(new, relative)

        base = inside(self.base)
        if base is None:
            return self
        return PathFilter(base, self.patterns, frozenset(inside(f) or f for f in self.files))

    def with_files(self, paths: list[str]) -> "PathFilter":
        """This filter, also matching the files ``paths``."""
        return PathFilter(self.base, self.patterns, self.files | {os.path.abspath(p) for p in paths})

    @staticmethod
    def _compile(pattern: str) -> tuple[bool, bool, re.Pattern[str], int]:
        """(re-include, folders only, the regex, how many folders above ``base`` it is relative to)."""
        problem = glob_problem(pattern)
        if problem is not None:
            raise ValueError(problem)
        return PathFilter._translate(pattern)

    @staticmethod
    def _translate(pattern: str) -> tuple[bool, bool, re.Pattern[str], int]:
        """:meth:`_compile` without the check of ``..``; ValueError for a glob no regex holds."""
        written = pattern
        negate = pattern.startswith("!")
        if negate:
            pattern = pattern[1:]
        up = 0
        parts = pattern.split("/")
        if parts[0] in (".", "..") or (parts[0] == "" and len(parts) > 1 and parts[1] in (".", "..")):
            parts = [p for p in parts if p]  # ./x, ../x, /../x: steps, then a glob anchored there
            while parts and parts[0] in (".", ".."):
                up += parts.pop(0) == ".."
            pattern = "/" + "/".join(parts) + "/" * pattern.endswith("/") if parts else "**"
        dir_only = pattern.endswith("/")
        pattern = pattern.rstrip("/") if dir_only else pattern
        anchored = "/" in pattern  # a leading one too: /legacy/ is the top folder's only
        pattern = pattern.lstrip("/")
        out, i = [], 0
        while i < len(pattern):
            if pattern.startswith("**/", i):
                out.append("(?:.*/)?")
                i += 3
            elif pattern.startswith("**", i):
                out.append(".*")
                i += 2
            elif pattern[i] == "*":
                out.append("[^/]*")
                i += 1
            elif pattern[i] == "?":
                out.append("[^/]")
                i += 1
            elif pattern[i] == "[" and "]" in pattern[i + 2 :]:
                close = pattern.index("]", i + 2)
                body = pattern[i + 1 : close].replace("\\", "\\\\")
                out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
                i = close + 1
            else:
                out.append(re.escape(pattern[i]))
                i += 1
        regex = "".join(out)
        if not anchored:
            regex = "(?:.*/)?" + regex
        try:
            return negate, dir_only, re.compile(regex), up
        except re.error as exc:  # a bracket expression out of order: [z-a]
            raise ValueError(f"glob {written!r} is not a valid glob ({exc.msg})") from None

    def __bool__(self) -> bool:
        return bool(self.patterns or self.files)

    def __call__(self, path: str) -> bool:
        """Whether ``path`` (a file, as named on the command line) is matched."""
        return self.matching(path) is not None

    def matching(self, path: str) -> int | None:
        """The index in ``patterns`` of the pattern that decides that ``path`` (a file, as named on
        the command line) is matched, the last that matches; -1 when it is one of ``files``; None
        when ``path`` is not matched (or a re-including ``!`` pattern decides it)."""
        if not (self.patterns or self.files) or path == "-":
            return None
        full = os.path.abspath(path)
        if self.files and full in self.files:
            return -1
        relatives: dict[int, tuple[str, list[str]] | None] = {}
        matched: int | None = None
        for index, (negate, dir_only, regex, up) in enumerate(self._compiled):
            if up not in relatives:
                base = self.base
                for _ in range(up):
                    base = os.path.dirname(base)
                rel = os.path.relpath(full, base).replace(os.sep, "/")
                parts = rel.split("/")
                relatives[up] = None if parts[0] == ".." else (rel, ["/".join(parts[:n]) for n in range(1, len(parts))])
            seen = relatives[up]
            if seen is None:  # outside the glob's folder
                continue
            rel, folders = seen
            hit = any(regex.fullmatch(f) for f in folders) or (not dir_only and regex.fullmatch(rel) is not None)
            if hit:
                matched = None if negate else index
        return matched


@dataclass(slots=True)
class Config:
    allowed_registries: list[str] = field(default_factory=list)
    require_digest: bool = False
    disable: list[str] = field(default_factory=list)
    check_all_workloads: bool = False
    argocd_version: argocd.Version = argocd.DEFAULT_VERSION
    #: ``where: argocd-version '3.6' is newer than ...`` when ``argocd-version`` is newer than
    #: every release hooklint knows and was read as the newest known (:func:`argocd.read_version`);
    #: the command line prints it once, on stderr
    version_note: str | None = None
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    max_waves: int = 10
    #: HL109: globs of image references no hook may use (``docker.io/acme-old/*``)
    denied_images: list[str] = field(default_factory=list)
    render_timeout: int = DEFAULT_RENDER_TIMEOUT
    render_memory: int = DEFAULT_RENDER_MEMORY
    render_output: int = DEFAULT_RENDER_OUTPUT
    render_objects: int = DEFAULT_RENDER_OBJECTS
    run_timeout: int = DEFAULT_RUN_TIMEOUT
    max_run_nodes: int = DEFAULT_MAX_RUN_NODES
    #: names of the cluster's StorageClasses with volumeBindingMode WaitForFirstConsumer (HL306)
    wait_for_first_consumer_classes: list[str] = field(default_factory=list)
    repo_urls: list[str] = field(default_factory=list)
    #: clusters an ApplicationSet clusters generator sees besides the cluster Secrets of the
    #: repository: ``{"name", "server", "labels", "annotations", "project"}`` each
    clusters: list[dict] = field(default_factory=list)
    kube_version: str | None = None
    #: ``argocd-namespace``: the namespace Argo CD's application controller runs in, which names
    #: each Application for the repo server (``InstanceName``); None: what the repository says
    #: (:func:`hooklint.argocd.control_plane_namespaces`)
    argocd_namespace: str | None = None
    api_versions: list[str] = field(default_factory=list)
    #: ``fetch-hosts`` entries as written (see :mod:`hooklint.sources.fetch.net`), the
    #: ``fetch-credentials`` file (absolute) and the per-source limits of ``--fetch``
    fetch_hosts: list[str] = field(default_factory=list)
    #: ``helm-repositories``: Argo CD's Helm repositories by name (the ``name`` and ``url`` of its
    #: repository Secrets), which chart dependencies written ``@name`` or ``alias:name`` use
    helm_repositories: dict[str, str] = field(default_factory=dict)
    fetch_credentials: str | None = None
    fetch_max_bytes: int = DEFAULT_FETCH_MAX_BYTES
    fetch_max_files: int = DEFAULT_FETCH_MAX_FILES
    fetch_timeout: int = DEFAULT_FETCH_TIMEOUT
    #: ``--fetch``: download what Argo CD's repo server would (:mod:`hooklint.sources.fetch`), and
    #: the ``--fetch-host`` entries of the command line, admitted besides ``fetch-hosts``
    fetch: bool = False
    fetch_command_hosts: list[str] = field(default_factory=list)
    path: str | None = None
    registry_entries: list[RegistryEntry] = field(default_factory=list)
    #: rule names, slugs or id prefixes to run (None: every rule) and not to run
    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    #: rule name -> severity
    severity: dict[str, str] = field(default_factory=dict)
    fail_on: str = "warning"
    #: HL009 (a source or entry Argo CD renders and hooklint did not) makes the exit code 1 as an
    #: error would, whatever ``fail-on`` says (issue 22: for teams that want every hook proven)
    fail_on_unrendered: bool = False
    exclude: PathFilter = field(default_factory=lambda: PathFilter(".", []))
    #: (glob filter, rule names) pairs
    per_path_ignores: list[tuple[PathFilter, list[str]]] = field(default_factory=list)
    #: the baseline file (``baseline``), relative to the configuration file's folder made absolute
    baseline: str | None = None
    #: key path (``("select", 2)``) -> 1-based line in ``path``
    lines: dict[tuple, int] = field(default_factory=dict)
    #: keys set on the command line, with the option that set them
    overridden: dict[str, str] = field(default_factory=dict)
    #: limit key -> the note saying that a found configuration tried to raise it and was not
    #: followed (:func:`lowered_only`); the command line prints those of keys it does not set
    limit_notes: dict[str, str] = field(default_factory=dict)
    #: the file was found in the repository, not named with ``--config`` (:func:`load_config`): its
    #: limits may only be lowered, and its ``fetch-hosts`` admit no loopback, private or other
    #: special address (:func:`hooklint.sources.fetch.net.check_address`)
    found: bool = False
    #: ``hooklint diff``: the origins of what the base's Applications leave out
    #: (:class:`hooklint.sources.appmap.discovery.Leaving`); None (``lint``): every leaving-out an
    #: Application of the run makes is believed. Never read from a file.
    trusted_leaving_out: frozenset[tuple[str, ...]] | None = None
    #: ``hooklint diff``: the folder holding the base revision's copy, for the change's side: a file
    #: of a hidden folder no Application reads that differs from its copy there (or that it lacks) is
    #: the change's, and linted (:class:`hooklint.sources.appmap.discovery.Leaving`). None: ``lint``,
    #: or the base's side. Never read from a file.
    changed_since: str | None = None
    #: ``hooklint diff`` of the working tree: the untracked paths git ignores (relative to the top,
    #: a folder ending in ``/``), in no commit, so never the change's. Never read from a file.
    ignored_paths: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        self.registry_entries = [RegistryEntry.parse(e) for e in self.allowed_registries]

    @property
    def workload_scope(self) -> str:
        return "all" if self.check_all_workloads else "hooks"

    def at(self, *key: Any) -> str:
        """Where ``key`` was set, for an error message: ``--select``, ``file:line``, or the file."""
        if key and key[0] in self.overridden:
            return self.overridden[key[0]]
        return _where(self.path or "configuration", self.lines, key)

    def excluded(self, path: str) -> bool:
        return self.exclude(path)

    def failing(self, findings: Iterable[Finding]) -> bool:
        """Whether ``findings`` fail the run: one at or above the ``fail-on`` severity
        (``--fail-on``; ``never``: none does), or an HL009 with ``fail-on-unrendered: true``.
        The one place lint, diff and fix ask it (their exit code 1)."""
        from hooklint.findings import SEVERITY_RANK

        findings = list(findings)
        if self.fail_on_unrendered and any(f.rule_id == "HL009" for f in findings):
            return True  # fail-on-unrendered: an HL009 fails the run as an error would
        if self.fail_on == "never":
            return False
        threshold = SEVERITY_RANK[self.fail_on]
        return any(SEVERITY_RANK[f.severity] >= threshold for f in findings)


#: The resource limits a configuration sets: key -> (:class:`Config` attribute, built-in default,
#: unit). A configuration found in the repository may lower them, never raise them (:func:`lowered_only`).
LIMITS: dict[str, tuple[str, int, str]] = {
    "max-file-size": ("max_file_size", DEFAULT_MAX_FILE_SIZE, "bytes"),
    "render-timeout": ("render_timeout", DEFAULT_RENDER_TIMEOUT, "s"),
    "render-memory": ("render_memory", DEFAULT_RENDER_MEMORY, "MiB"),
    "render-output": ("render_output", DEFAULT_RENDER_OUTPUT, "MiB"),
    "render-objects": ("render_objects", DEFAULT_RENDER_OBJECTS, "objects"),
    "run-timeout": ("run_timeout", DEFAULT_RUN_TIMEOUT, "s"),
    "max-run-nodes": ("max_run_nodes", DEFAULT_MAX_RUN_NODES, "nodes"),
    "fetch-max-bytes": ("fetch_max_bytes", DEFAULT_FETCH_MAX_BYTES, "bytes"),
    "fetch-max-files": ("fetch_max_files", DEFAULT_FETCH_MAX_FILES, "files"),
    "fetch-timeout": ("fetch_timeout", DEFAULT_FETCH_TIMEOUT, "s"),
}


def lowered_only(config: Config) -> Config:
    """``config``, a configuration found in the repository (not named with ``--config``), with
    every limit of :data:`LIMITS` it sets above the built-in default put back to the default, and a
    note for each in ``limit_notes`` (``.hooklint.yaml:3: 'render-timeout' 86,400 s is above ...``).

    hooklint runs on the repositories it reviews, pull requests of strangers included: their
    configuration may tighten a limit, never lift one (issue 32: ``render-timeout: 86400`` made one
    rendering a day long). The user lifts one by naming the file with ``--config`` (or
    ``--run-timeout`` on the command line)."""
    shown = config.path or "configuration"  # relative to the current folder when inside it
    relative = os.path.relpath(shown) if config.path else shown
    shown = shown if relative == ".." or relative.startswith(".." + os.sep) else relative
    for key, (attribute, default, unit) in LIMITS.items():
        value = getattr(config, attribute)
        if value <= default:
            continue
        setattr(config, attribute, default)
        option = f", or give --{key}," if key in ("run-timeout", "max-run-nodes") else ""
        config.limit_notes[key] = (
            f"{_where(shown, config.lines, (key,))}: '{key}' {value:,} {unit} is above hooklint's default of {default:,} {unit}, and a "
            f"configuration found in the repository may lower a limit, never raise it: {default:,} {unit} is used "
            f"(name the file with --config{option} to raise it)")  # fmt: skip
    # in the file's order
    config.limit_notes = dict(sorted(config.limit_notes.items(), key=lambda kv: config.lines.get((kv[0],), 0)))
    return config


def _where(path: str, lines: dict[tuple, int], key: tuple) -> str:
    for n in range(len(key), 0, -1):
        line = lines.get(tuple(key[:n]))
        if line is not None:
            return f"{path}:{line}"
    return path


def shown_value(value: Any, secret: bool = False) -> str:
    """How a configuration error quotes the wrong ``value``: a mapping or a list only by what it is
    (``a mapping``: never whole, it may hold a secret, e.g. ``argocd-version: {apiKey: ...}``:
    attacker trial 25, B14), a scalar under a key that names a secret (``secret``) by its type only
    (``str <redacted>``), any other scalar as written (``'maybe'``, ``0``)."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, (list, tuple, set)):
        return "a list"
    return f"{type(value).__name__} {REDACTED}" if secret else repr(value)


def _version(value: Any, where: str) -> tuple[argocd.Version, str | None]:
    """``argocd-version`` read by :func:`argocd.read_version`, its note prefixed with ``where``.
    Raises :class:`ConfigError` for a number or a malformed or unknown version."""
    if isinstance(value, float):
        # YAML reads an unquoted 2.10 as the number 2.1: refuse to guess which was meant
        raise ConfigError(f"{where}: argocd-version must be quoted (\"{value}\" is read as a number; write e.g. \"2.10\")")
    if isinstance(value, (dict, list, tuple, set)):
        raise ConfigError(f"{where}: argocd-version must look like \"3.3\" or \"2.14.1\", not {shown_value(value)}")
    try:
        version, note = argocd.read_version(str(value))
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    return version, f"{where}: {note}" if note else None


def _kube_version(value: Any, where: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, float):
        raise ConfigError(f"{where}: kube-version must be quoted (\"{value}\" is read as a number; write e.g. \"1.30\")")
    text = str(value).strip()
    if not re.fullmatch(r"v?\d+\.\d+(\.\d+)?", text):
        shown = shown_value(value) if isinstance(value, (dict, list, tuple, set)) else repr(text)
        raise ConfigError(f"{where}: kube-version must look like \"1.30\" or \"v1.30.2\", not {shown}")
    return text


_SCHEMA: dict[str, Any] | None = None


def schema() -> dict[str, Any]:
    """The configuration's JSON Schema (``hooklint/config.schema.json``)."""
    global _SCHEMA
    if _SCHEMA is None:
        with open(SCHEMA_FILE, encoding="utf-8") as handle:
            _SCHEMA = json.load(handle)
    return _SCHEMA


_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
}


def _expected(s: dict[str, Any]) -> str:
    """What a value of schema ``s`` must be, in words."""
    kind = s.get("type")
    if "enum" in s:
        return "one of " + ", ".join(s["enum"])
    if kind == "boolean":
        return "true or false"
    if kind == "integer":
        if "maximum" in s:
            return f"a whole number from {s.get('minimum', 0):,} to {s['maximum']:,}"
        return "a positive whole number" if s.get("minimum") == 1 else "a whole number"
    if kind == "array":
        return "a list of non-empty strings"
    if kind == "object":
        inner = s.get("additionalProperties")
        if isinstance(inner, dict) and inner.get("type") == "array":
            return "a mapping of globs to lists of rules"
        if isinstance(inner, dict) and "enum" in inner:
            return "a mapping of rules to " + ", ".join(inner["enum"])
        return "a mapping"
    if kind == "string" and "pattern" in s:
        return f"a string matching {s['pattern']}"
    if kind == "string":
        return "a non-empty string" if s.get("minLength") else "a string"
    return "valid"


def _name(key: tuple) -> str:
    head = f"'{key[0]}'"
    rest = [k for k in key[1:] if isinstance(k, str)]
    return f"{head} entry '{rest[0]}'" if rest else head


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``; did you mean 'allowed-registries'?`` for the known key nearest to ``name`` (difflib
    ratio 0.6; case and ``_`` for ``-`` forgiven), or an empty string when none is close enough."""
    import difflib

    choices = sorted(known)
    folded = {choice.lower(): choice for choice in choices}
    close = difflib.get_close_matches(str(name).lower().replace("_", "-"), list(folded), n=1, cutoff=0.6)
    return f"; did you mean '{folded[close[0]]}'?" if close else ""


def validate(data: Any, where: str, lines: dict[tuple, int] | None = None) -> None:
    """Check ``data`` against the configuration schema (the keywords ``type``, ``properties``,
    ``additionalProperties``, ``items``, ``enum``, ``minLength``, ``minimum``, ``maximum``, ``pattern``).
    Raises :class:`ConfigError` for the first problem, naming ``where`` (the file), the line and
    the key."""
    lines = lines or {}
    root = schema()
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: the configuration must be a mapping of keys to values")
    known = root["properties"]
    for key in data:
        if key not in known:
            at = _where(where, lines, (key,))
            raise ConfigError(f"{at}: unknown key '{key}'{did_you_mean(key, known)} (known: {', '.join(sorted(known))})")

    def fail(value: Any, key: tuple, s: dict[str, Any]) -> None:
        # a value under a name the user chose that names a secret (a helm-repositories entry 'token')
        # is not echoed (:data:`~hooklint.text.SECRET_KEY`); the configuration's own keys are no such name
        secret = any(isinstance(k, str) and k not in known and SECRET_KEY.search(k) for k in key)
        if key and isinstance(key[-1], int) and isinstance(value, list):  # one entry of a list is wrong
            shown = f"a list whose entry {key[-1] + 1} is {shown_value(value[key[-1]], bool(secret))}"
        else:
            shown = shown_value(value, bool(secret))
        raise ConfigError(f"{_where(where, lines, key)}: {_name(key)} must be {_expected(s)}, not {shown}")

    def walk(value: Any, s: dict[str, Any], key: tuple) -> None:
        kind = s.get("type")
        if kind and not _TYPES[kind](value):
            fail(value, key, s)
        if "enum" in s and value not in s["enum"]:
            fail(value, key, s)
        if kind == "string" and len(value.strip()) < s.get("minLength", 0):
            fail(value, key, s)
        if kind == "string" and "pattern" in s and re.search(s["pattern"], value) is None:
            fail(value, key, s)
        if kind == "integer" and "minimum" in s and value < s["minimum"]:
            fail(value, key, s)
        if kind == "integer" and "maximum" in s and value > s["maximum"]:  # a limit the OS can set
            fail(value, key, s)
        if kind == "array":
            item_schema = s.get("items", {})
            for i, item in enumerate(value):
                item_kind = item_schema.get("type", "string")
                if not _TYPES[item_kind](item) or (
                    item_kind == "string" and len(item.strip()) < item_schema.get("minLength", 0)
                ):
                    fail(value, key + (i,), s)
        if kind == "object":
            inner = s.get("additionalProperties")
            if isinstance(inner, dict):
                for sub, sub_value in value.items():
                    walk(sub_value, inner, key + (str(sub),))

    for key, value in data.items():
        if value is None:
            continue
        walk(value, known[key], (key,))


def parse_config(data: Any, where: str, lines: dict[tuple, int] | None = None) -> Config:
    """Validate a loaded configuration mapping (``lines``: key path -> line, for messages) and
    build the :class:`Config`. Globs are relative to the folder of ``where``. Raises
    :class:`ConfigError`."""
    lines = lines or {}
    if data is None:
        return Config(path=where)
    if isinstance(data, dict) and "argocd-version" in data:
        version, version_note = _version(data["argocd-version"], _where(where, lines, ("argocd-version",)))
    else:
        version, version_note = argocd.DEFAULT_VERSION, None
    kube_version = None
    if isinstance(data, dict) and data.get("kube-version") is not None:
        kube_version = _kube_version(data["kube-version"], _where(where, lines, ("kube-version",)))
    validate(data, where, lines)
    if "workload-scope" in data and "check-all-workloads" in data:
        raise ConfigError(
            f"{_where(where, lines, ('check-all-workloads',))}: 'check-all-workloads' is the deprecated "
            "spelling of 'workload-scope': keep only 'workload-scope'"
        )

    def get(key: str, default: Any) -> Any:
        value = data.get(key)
        return default if value is None else value

    def strings(key: str) -> list[str]:
        return [v.strip() for v in get(key, [])]

    registries = strings("allowed-registries")
    for i, entry in enumerate(registries):
        if "://" in entry or "*" in entry or " " in entry:
            raise ConfigError(
                f"{_where(where, lines, ('allowed-registries', i))}: 'allowed-registries' entry {entry!r} must "
                "be a host or host/path (no scheme, no wildcard)"
            )
    for i, glob in enumerate(strings("exclude")):
        if glob_problem(glob) is not None:
            raise ConfigError(f"{_where(where, lines, ('exclude', i))}: 'exclude': {glob_problem(glob)}")
    for i, entry in enumerate(strings("fetch-hosts")):
        problem = _fetch_host_problem(entry)
        if problem:
            raise ConfigError(f"{_where(where, lines, ('fetch-hosts', i))}: 'fetch-hosts' entry {problem}")
    for glob in get("per-path-ignores", {}):
        if glob_problem(str(glob)) is not None:
            raise ConfigError(f"{_where(where, lines, ('per-path-ignores', str(glob)))}: 'per-path-ignores': "
                              f"{glob_problem(str(glob))}")  # fmt: skip
    for i, cluster in enumerate(get("clusters", [])):  # the schema walker does not read nested objects
        for name in ("name", "server"):
            if not isinstance(cluster.get(name), str) or not cluster[name].strip():
                raise ConfigError(f"{_where(where, lines, ('clusters', i))}: 'clusters' entry {i} needs a non-empty "
                                  f"string '{name}'")  # fmt: skip
        for name in cluster:
            if name not in ("name", "server", "project", "labels", "annotations"):
                known_keys = ("annotations", "labels", "name", "project", "server")
                raise ConfigError(f"{_where(where, lines, ('clusters', i))}: 'clusters' entry {i}: unknown key "
                                  f"'{name}'{did_you_mean(str(name), known_keys)} (known: {', '.join(known_keys)})")  # fmt: skip
        for name in ("labels", "annotations"):
            value = cluster.get(name, {})
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                raise ConfigError(f"{_where(where, lines, ('clusters', i))}: 'clusters' entry {i}: '{name}' must "
                                  "be a mapping of strings")  # fmt: skip
    base = os.path.dirname(os.path.abspath(where))  # globs and the baseline are relative to the file
    scope = get("workload-scope", "all" if get("check-all-workloads", False) else "hooks")
    return Config(
        allowed_registries=registries,
        require_digest=get("require-digest", False),
        disable=strings("disable"),
        check_all_workloads=scope == "all",
        argocd_version=version,
        version_note=version_note,
        max_file_size=get("max-file-size", DEFAULT_MAX_FILE_SIZE),
        max_waves=get("max-waves", 10),
        denied_images=strings("denied-images"),
        render_timeout=get("render-timeout", DEFAULT_RENDER_TIMEOUT),
        render_memory=get("render-memory", DEFAULT_RENDER_MEMORY),
        render_output=get("render-output", DEFAULT_RENDER_OUTPUT),
        render_objects=get("render-objects", DEFAULT_RENDER_OBJECTS),
        run_timeout=get("run-timeout", DEFAULT_RUN_TIMEOUT),
        max_run_nodes=get("max-run-nodes", DEFAULT_MAX_RUN_NODES),
        wait_for_first_consumer_classes=strings("wait-for-first-consumer-classes"),
        repo_urls=strings("repo-urls"),
        clusters=[dict(c) for c in get("clusters", [])],
        kube_version=kube_version,
        argocd_namespace=data["argocd-namespace"].strip() if data.get("argocd-namespace") is not None else None,
        api_versions=strings("api-versions"),
        fetch_hosts=strings("fetch-hosts"),
        helm_repositories={str(k).strip(): str(v).strip() for k, v in get("helm-repositories", {}).items()},
        fetch_credentials=_contained(base, data["fetch-credentials"].strip(), "fetch-credentials",
                                     _where(where, lines, ("fetch-credentials",)))
        if data.get("fetch-credentials") else None,
        fetch_max_bytes=get("fetch-max-bytes", DEFAULT_FETCH_MAX_BYTES),
        fetch_max_files=get("fetch-max-files", DEFAULT_FETCH_MAX_FILES),
        fetch_timeout=get("fetch-timeout", DEFAULT_FETCH_TIMEOUT),
        path=where,
        select=strings("select") if data.get("select") is not None else None,
        ignore=strings("ignore"),
        severity={str(k): v for k, v in get("severity", {}).items()},
        fail_on=get("fail-on", "warning"),
        fail_on_unrendered=get("fail-on-unrendered", False),
        exclude=PathFilter(base, strings("exclude")),
        per_path_ignores=[(PathFilter(base, [glob]), [r.strip() for r in rules or []])
                          for glob, rules in get("per-path-ignores", {}).items()],  # fmt: skip
        baseline=_contained(base, data["baseline"].strip(), "baseline", _where(where, lines, ("baseline",)))
        if data.get("baseline") else None,
        lines=lines,
    )


def _fetch_host_problem(entry: str) -> str | None:
    """Why ``entry`` is no ``fetch-hosts`` entry (:func:`parse_host_entry`), or None."""
    try:
        parse_host_entry(entry)
    except ValueError as exc:
        return str(exc)
    return None


@dataclass(frozen=True, slots=True)
class HostEntry:
    """One ``fetch-hosts`` entry: ``scheme`` (``https``, ``http``: plain HTTP admitted too, or
    ``file``), ``host`` (lower case; an IP address in its compressed form), ``port`` (None: the
    scheme's default) and, for ``file``, the folder ``path``."""

    scheme: str
    host: str
    port: int | None = None
    path: str = ""
    #: from a configuration found in the repository (a pull request's): it admits no loopback,
    #: private or other special address, even one it names exactly
    found: bool = False

    def __str__(self) -> str:
        if self.scheme == "file":
            return f"file://{self.path}"
        host = f"[{self.host}]" if ":" in self.host else self.host
        where = f"{host}:{self.port}" if self.port is not None else host
        return f"http://{where}" if self.scheme == "http" else where


def host_address(host: str) -> "ipaddress.IPv4Address | ipaddress.IPv6Address | None":
    """``host`` as an IP address (brackets dropped), or None for a name."""
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def parse_host_entry(text: str, command_line: bool = False) -> HostEntry:
    """One ``fetch-hosts`` entry (or ``--fetch-host`` value) as a :class:`HostEntry`. Raises
    ValueError with what is wrong: a path, user, query or wildcard; a scheme other than ``http://``
    (``file://`` only when ``command_line``); a port out of range."""
    text = text.strip()
    scheme = "https"
    if text.startswith("file://"):
        if not command_line:
            raise ValueError(f"{text!r}: file:// remotes may only be admitted with --fetch-host")
        path = text[len("file://"):]
        if not path.startswith("/"):
            raise ValueError(f"{text!r}: a file:// entry needs an absolute folder (file:///srv/git)")
        return HostEntry("file", "", None, path.rstrip("/") or "/")
    if "://" in text:
        given, _, rest = text.partition("://")
        if given.lower() != "http":
            raise ValueError(f"{text!r} must be host[:port] (HTTPS) or http://host[:port] (plain HTTP too)")
        text, scheme = rest, "http"
    if not text or any(c in text for c in "/@?#* \t") or text.count("[") > 1:
        raise ValueError(f"{text!r} must be a host name or address with an optional port, no path, user or wildcard")
    parsed = urllib.parse.urlsplit(f"//{text}")
    try:
        port = parsed.port
    except ValueError:
        raise ValueError(f"{text!r}: the port must be a number from 1 to 65535") from None
    host = (parsed.hostname or "").lower()
    if not host or port == 0:
        raise ValueError(f"{text!r} must be a host name or address with an optional port (1 to 65535)")
    address = host_address(host)
    return HostEntry(scheme, str(address) if address else host, port)


def _contained(base: str, value: str, key: str, at: str) -> str:
    """The path ``value`` of the configuration key ``key`` (relative to ``base``, the folder of the
    configuration file), absolute. A configuration file usually comes with the repository being
    linted, which may be a stranger's pull request: a path it names must resolve
    (``os.path.realpath``, links followed) inside ``base`` or the git repository holding it, so
    that it cannot make hooklint read ``/etc`` or another checkout. Paths given on the command
    line (``--baseline``) are the user's own and are not checked. Raises :class:`ConfigError`."""
    path = os.path.join(base, value)
    real = os.path.realpath(path)
    tops = [os.path.realpath(base)]
    repository = repository_of(base)
    if repository is not None:
        tops.append(os.path.realpath(repository))
    if not any(real == top or real.startswith(top.rstrip(os.sep) + os.sep) for top in tops):
        inside = "the configuration file's folder or its repository" if repository else "the configuration file's folder"
        raise ConfigError(f"{at}: '{key}' {value!r} resolves to {real}, outside {inside}: a configuration may "
                          f"name files inside them only (name another file on the command line, --{key})")  # fmt: skip
    return path


def _check_found(where: str, named: Iterable[str] = ()) -> None:
    """Refuse a configuration file found (not named with ``--config``) that is a symbolic link
    resolving outside its repository: hooklint reads no file outside the repository on the
    repository's say-so. Its repository is its Git work tree; outside Git, where a run over
    ``named`` (the paths as given) reads (:func:`hooklint.files.top_outside_git`; attacker trial 46,
    2: a ``.hooklint.yaml`` linking to ``../outside.yaml`` was read outside Git). Raises
    :class:`ConfigError`."""
    folder = os.path.dirname(os.path.abspath(where))
    repository = repository_of(folder) or top_outside_git(folder, named)
    real, top = os.path.realpath(where), os.path.realpath(repository)
    if not real.startswith(top.rstrip(os.sep) + os.sep):
        raise ConfigError(f"{where}: the configuration is a symbolic link to {real}, outside its repository: "
                          "hooklint reads no file outside the repository (name a configuration with --config)")  # fmt: skip


#: :func:`_check_found` for callers outside this module (``hooklint diff`` checks the base's file).
check_found = _check_found


def _has_tool_table(path: str) -> bool:
    """Whether the ``pyproject.toml`` at ``path`` has a ``[tool.hooklint]`` table (a cheap look at
    the text: the file is parsed only when it is the one used)."""
    from hooklint.files import read_bytes  # noqa: PLC0415

    try:
        text = read_bytes(path, DEFAULT_MAX_FILE_SIZE).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return re.search(r"^\s*\[\s*tool\s*\.\s*hooklint\s*[\].]", text, re.MULTILINE) is not None or re.search(
        r"^\s*tool\s*\.\s*hooklint\s*[=.]", text, re.MULTILINE) is not None  # fmt: skip


def _is_repository_top(folder: str) -> bool:
    """Whether ``folder`` holds ``.git`` (a folder, the file of a worktree or submodule, or a link,
    even one that leads nowhere: :func:`hooklint.files.repository_of` counts it too)."""
    return os.path.lexists(os.path.join(folder, ".git"))


def find_config(start: str | None = None, memo: dict[str, str | None] | None = None,
                named: Iterable[str] = ()) -> str | None:  # fmt: skip
    """The nearest ``.hooklint.yaml`` (or ``.hooklint.yml``), or ``pyproject.toml`` with a
    ``[tool.hooklint]`` table, from folder ``start`` (the current directory) up to the repository's
    top folder (the first one holding ``.git``; a file above it configures another project).
    Outside a repository, up to where a run over ``named`` (the paths as given) reads
    (:func:`hooklint.files.top_outside_git`: the current folder when it holds ``start``, else the
    outermost named path holding it, else ``start``): a file above it is nobody's the run knows
    (attacker trial 46, 1: a ``/tmp/.hooklint.yaml`` ignoring every rule silenced every tree
    linted below ``/tmp`` outside Git). ``memo`` (folder -> answer) is filled for every folder
    passed, so that many paths of one tree walk it once. Raises :class:`ConfigError` when one folder
    holds two of them."""
    memo = {} if memo is None else memo
    folder = os.path.abspath(start or os.getcwd())
    top = None if repository_of(folder) is not None else top_outside_git(folder, named)
    passed: list[str] = []
    answer: str | None = None
    while True:
        if folder in memo:
            answer = memo[folder]
            break
        passed.append(folder)
        for name in YAML_NAMES:  # a FIFO or device named .hooklint.yaml: refused, never read nor skipped
            candidate = os.path.join(folder, name)
            if os.path.exists(candidate) and not os.path.isfile(candidate) and not os.path.isdir(candidate):
                raise ConfigError(f"{candidate}: cannot read configuration: not a regular file")
        found = [os.path.join(folder, n) for n in YAML_NAMES if os.path.isfile(os.path.join(folder, n))]
        pyproject = os.path.join(folder, PYPROJECT)
        if os.path.isfile(pyproject) and os.path.islink(pyproject):
            _check_found(pyproject, named)  # before reading it
        if os.path.isfile(pyproject) and _has_tool_table(pyproject):
            found.append(pyproject)
        if len(found) > 1:
            names = " and ".join(os.path.basename(f) for f in found)
            raise ConfigError(f"{folder}: {names} both configure hooklint: keep one (or name it with --config)")
        if found:
            answer = found[0]
            break
        parent = os.path.dirname(folder)
        if parent == folder or folder == top or _is_repository_top(folder):
            break
        folder = parent
    for folder in passed:
        memo[folder] = answer
    return answer


def find_config_for(paths: list[str]) -> str | None:
    """The configuration of a run over ``paths`` (files, folders, ``-``; as the user named them):
    :func:`find_config` from each path's folder (a folder itself; a file's folder; the current
    directory for ``-`` and for no path), as ruff finds its ``pyproject.toml`` from the files it
    checks.
    Paths that find no file take the one the others find. Raises :class:`ConfigError` when two
    paths find different files: one run has one configuration, and linting a tree with another
    tree's rules would pass what its own file forbids (lint them in separate runs, or name the file
    with ``--config``), and when one folder holds two of them."""
    found: dict[str, str] = {}  # configuration file (resolved) -> the first path that found it
    chosen: str | None = None
    memo: dict[str, str | None] = {}
    for path in paths or ["."]:
        if path == "-":
            folder = os.getcwd()
        else:
            folder = os.path.abspath(path)
            if not os.path.isdir(folder):
                folder = os.path.dirname(folder)
        config = find_config(folder, memo, paths)
        if config is not None:
            chosen = chosen or config
            found.setdefault(os.path.realpath(config), path)
            if len(found) > 1:
                (first, first_path), (second, second_path) = found.items()
                raise ConfigError(
                    f"{first_path} and {second_path} are configured by different files "
                    f"({os.path.relpath(first)}, {os.path.relpath(second)}): lint them in separate runs, "
                    "or name one file with --config"
                )
    return chosen


def _yaml_lines(node: Any, where: str = "configuration") -> dict[tuple, int]:
    """Key path -> 1-based line of a composed YAML mapping (top keys, their entries and items).
    Raises :class:`ConfigError` for a repeated key (YAML would silently keep the last value)."""
    import yaml

    lines: dict[tuple, int] = {}
    if not isinstance(node, yaml.MappingNode):
        return lines

    def first(path: tuple, line: int) -> None:
        if path in lines:
            raise ConfigError(f"{where}:{line}: key '{path[-1]}' is repeated (first at line {lines[path]}): "
                              "only the last value would count; keep one")  # fmt: skip
        lines[path] = line

    for key_node, value_node in node.value:
        key = (str(key_node.value),)
        first(key, key_node.start_mark.line + 1)
        if isinstance(value_node, yaml.MappingNode):
            for sub_key, sub_value in value_node.value:
                first(key + (str(sub_key.value),), sub_key.start_mark.line + 1)
                if isinstance(sub_value, yaml.SequenceNode):
                    for i, item in enumerate(sub_value.value):
                        lines[key + (str(sub_key.value), i)] = item.start_mark.line + 1
        elif isinstance(value_node, yaml.SequenceNode):
            for i, item in enumerate(value_node.value):
                lines[key + (i,)] = item.start_mark.line + 1
    return lines


_TOML_HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(?:#.*)?$")
_TOML_KEY = re.compile(r"""^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_.-]+)\s*=""")


def _toml_lines(text: str) -> dict[tuple, int]:
    """Key path -> 1-based line of the keys of ``[tool.hooklint]`` and its sub-tables (read from
    the text: ``tomllib`` keeps no positions)."""
    lines: dict[tuple, int] = {}
    table: tuple | None = None
    for number, line in enumerate(text.splitlines(), 1):
        header = _TOML_HEADER.match(line)
        if header:
            parts = tuple(p.strip().strip("\"'") for p in header.group(1).split("."))
            table = parts[2:] if parts[:2] == ("tool", "hooklint") else None
            if table:
                lines.setdefault(table[:1], number)
            continue
        key = _TOML_KEY.match(line)
        if key and table is not None:
            name = key.group(1).strip("\"'")
            path = table + ((name,) if key.group(1)[0] in "\"'" else tuple(name.split(".")))
            lines.setdefault(path, number)
    return lines


def _load_toml(where: str) -> tuple[Any, dict[tuple, int]]:
    try:
        import tomllib  # type: ignore[import-not-found]
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[import-not-found]  # a dependency on Python 3.10 only
    from hooklint.files import read_bytes  # noqa: PLC0415

    try:
        raw = read_bytes(where, DEFAULT_MAX_FILE_SIZE)
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read configuration: {exc.strerror or exc}") from None
    except RecursionError:
        raise ConfigError(f"{where}: invalid TOML in configuration: nested too deeply") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{where}: cannot read configuration: not valid UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        at = f":{found.group(1)}:{found.group(2)}" if found else ""
        problem = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", str(exc))
        raise ConfigError(f"{where}{at}: invalid TOML in configuration: {problem}") from None
    tool = data.get("tool", {}).get("hooklint") if isinstance(data.get("tool"), dict) else None
    if tool is None:
        raise ConfigError(f"{where}: no [tool.hooklint] table")
    return tool, _toml_lines(text)


def load_config(path: str | None = None, paths: list[str] | None = None, found: bool | None = None) -> Config:
    """Load ``path``, or the file :func:`find_config_for` finds for the linted ``paths`` (None: the
    current directory's, :func:`find_config`), or the defaults. A ``.toml`` file is read as
    ``pyproject.toml`` (its ``[tool.hooklint]`` table). Raises :class:`ConfigError` for a
    missing, unreadable or invalid file.

    A file that was found, not named (``found``; default: when ``path`` is None), may lower the
    limits of :data:`LIMITS`, never raise them (:func:`lowered_only`), and its ``fetch-hosts``
    admit no special address (``Config.found``)."""
    found = path is None if found is None else found
    config = _load_config(path, paths)
    if not (found and config.path is not None):
        return config
    config.found = True
    return lowered_only(config)


def _load_config(path: str | None, paths: list[str] | None) -> Config:
    where = path or (find_config_for(paths) if paths is not None else find_config())
    if where is None:
        return Config()
    import yaml  # noqa: PLC0415 - a run with no configuration file (answered whole) never parses YAML

    from hooklint.files import read_bytes  # noqa: PLC0415
    from hooklint.yamlio import BoundedLoader  # noqa: PLC0415
    if path is None:
        _check_found(where, paths or ())
    if where.endswith(".toml"):
        data, lines = _load_toml(where)
        return parse_config(data, where, lines)
    try:
        loader = BoundedLoader(read_bytes(where, DEFAULT_MAX_FILE_SIZE))
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read configuration: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{where}{at}: invalid YAML in configuration: {problem}") from None
    return parse_config(data, where, _yaml_lines(node, where))
