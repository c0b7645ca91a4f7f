"""Positions and findings: the values that flow from the loader and the checks to the reporters,
and a finding's identity (its file relative to the repository root, its fingerprint).

Positions are converted from character offsets to 1-based lines and columns exactly once, in
:class:`hooklint.yamlio.Positions`; everything downstream of the loader sees 1-based values only.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable
from urllib.parse import quote

from hooklint.text import url_credentials

if TYPE_CHECKING:
    from hooklint.reasons import Skip

SEVERITY_RANK = {"note": 0, "warning": 1, "error": 2}


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A region of a file: 1-based line and column; ``end_column`` is the column *after* the last
    character (SARIF's convention), so a one-character value at column 5 is ``(l, 5, l, 6)``.
    Columns count Unicode code points."""

    line: int
    column: int
    end_line: int
    end_column: int

    def in_template(self, source_line: int) -> "Span":
        """This span with lines counted from a Helm ``# Source:`` comment at ``source_line``
        (so line 1 is the template's first line); unchanged for 0."""
        if not source_line:
            return self
        return Span(self.line - source_line, self.column, self.end_line - source_line, self.end_column)

    @staticmethod
    def point(line: int, column: int) -> "Span":
        """A one-character span at 1-based ``line``/``column``."""
        return Span(line, column, line, column + 1)


def printable_path(path: str) -> str:
    """A file name as text every report can carry: bytes that are not UTF-8 (kept by Python as
    lone surrogates) become U+FFFD, so JSON, SARIF and GitLab output stay valid UTF-8."""
    if path.isascii():  # nearly every path: no encoding needed (every finding passes here)
        return path
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


@dataclass(frozen=True, slots=True)
class ObjectRef:
    """The Kubernetes object a finding is about, as written in its manifest."""

    api_version: str | None = None
    kind: str | None = None
    name: str | None = None
    generate_name: str | None = None
    namespace: str | None = None

    def label(self) -> str:
        """``Kind/name``, ``Kind/prefix-*`` for a ``generateName`` object, ``Kind (unnamed)``
        without either."""
        kind = self.kind or "object"
        if self.name:
            return f"{kind}/{self.name}"
        if self.generate_name:
            return f"{kind}/{self.generate_name}*"
        return f"{kind} (unnamed)"

    def as_dict(self) -> dict[str, str | None]:
        return {
            "api_version": self.api_version,
            "kind": self.kind,
            "name": self.name,
            "generate_name": self.generate_name,
            "namespace": self.namespace,
        }


@dataclass(frozen=True, slots=True)
class HookRef:
    """What Argo CD does with a hook: its sync phases (in phase order) and its sync wave."""

    phases: tuple[str, ...]
    wave: int

    def as_dict(self) -> dict[str, Any]:
        return {"phases": list(self.phases), "wave": self.wave}


@dataclass(frozen=True, slots=True)
class Suppression:
    """Why a finding is not shown: ``kind`` is ``annotation`` (``hooklint.io/ignore``), ``comment``
    (``# hooklint: ignore[...]``) or ``baseline``; ``reason`` is the text the user wrote, or None.
    For a comment, ``line`` is its 1-based line in the finding's file and ``names`` the rule names
    written between its brackets; for an annotation, the line of its value and the names of the
    finding's rule it writes (0 and ``()`` for the baseline): ``hooklint diff`` tells by them
    whether a change wrote the suppression (:func:`hooklint.review.compare`). Reports show neither."""

    kind: str
    reason: str | None = None
    line: int = 0
    names: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, str | None]:
        return {"kind": self.kind, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Finding:
    """One reported problem. ``path`` is the file as the user named it (``-`` or a Helm ``# Source:``
    template for stdin); ``field_path`` is the dotted path of the offending field inside the object
    (``spec.template.spec.containers[0].image``), used for stable fingerprints."""

    rule_id: str
    slug: str
    severity: str
    message: str
    path: str
    span: Span
    obj: ObjectRef | None = None
    hook: HookRef | None = None
    field_path: str = ""
    doc_index: int = 0
    #: Set when a suppression hides this finding (it is then reported only where a report keeps
    #: suppressed findings: JSON, SARIF, ``--show-suppressed``).
    suppression: Suppression | None = None
    #: Places outside the repository the finding is about, as text (a fetched chart's template:
    #: ``hookchart 1.2.0 templates/job.yaml:14``); SARIF's ``relatedLocations``.
    related: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", printable_path(self.path))

    def sort_key(self) -> tuple:
        return (self.path, self.span.line, self.span.column, self.rule_id, self.message)

    def as_dict(self) -> dict[str, Any]:
        """The documented JSON shape of one finding (see README, "JSON output")."""
        return {
            "rule_id": self.rule_id,
            "slug": self.slug,
            "severity": self.severity,
            "message": self.message,
            "path": self.path,
            "line": self.span.line,
            "column": self.span.column,
            "end_line": self.span.end_line,
            "end_column": self.span.end_column,
            "object": self.obj.as_dict() if self.obj else None,
            "hook": self.hook.as_dict() if self.hook else None,
            "suppression": self.suppression.as_dict() if self.suppression else None,
        }


@dataclass(slots=True)
class InputError:
    """A path that could not be read at all (missing, unreadable, not a regular file). Reported on
    stderr and by exit code 2; never a finding, because there is no object to attach it to."""

    path: str
    message: str

    def __post_init__(self) -> None:
        self.path = printable_path(self.path)
        # a remote's or a fetch's URL quoted in the message may hold a token (GitLab CI's origin does)
        self.message = url_credentials(self.message)


@dataclass(slots=True)
class RunResult:
    """Everything one ``lint`` run produced, sorted and ready for a reporter."""

    findings: list[Finding] = field(default_factory=list)
    #: Findings a suppression hides (each with ``suppression`` set), sorted like ``findings``.
    suppressed: list[Finding] = field(default_factory=list)
    #: Entries of the baseline in use that matched no finding of this run (fixed debt).
    stale_baseline: int = 0
    errors: list[InputError] = field(default_factory=list)
    files: int = 0
    skipped: int = 0
    #: The files not linted, as ``(path, reason)`` (:class:`~hooklint.reasons.Skip`), in path order: Argo CD does not render them, or
    #: they are over max-file-size; ``skipped`` is their number.
    skipped_files: list[tuple[str, Skip]] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    #: The renderers that made this run's kustomize and Helm manifests, as ``"name version"``
    #: (``kubectl kustomize v5.7.1``), sorted, each once; empty when every source was a directory.
    renderers: list[str] = field(default_factory=list)
    #: When a Helm chart was rendered: ``{"rendered": 4, "argocd": 3, "argocd_version": "3.4.7",
    #: "differs": true}``, the Helm major that rendered and the one the configured Argo CD runs.
    helm: dict[str, Any] | None = None
    #: Each application's sync plan with its findings (``hooklint.pipeline.PlannedApplication``), in
    #: application order, when the run was asked to keep them (``lint_paths(plans=True)``); else empty.
    plans: list[Any] = field(default_factory=list)
    #: The origins of what the run's Applications leave out (directory filters, plugin sources,
    #: value files, generator inputs: :func:`hooklint.sources.appmap.discovery.leaving_origin`),
    #: and the files linted although an Application leaves them out, with that reason, because
    #: ``Config.trusted_leaving_out`` does not hold its origin (``hooklint diff``: never cached).
    leaving_origins: set[tuple[str, ...]] = field(default_factory=set)
    not_left_out: list[tuple[str, Any]] = field(default_factory=list)
    #: Each application as merged into this result, for the run's redaction of the values of its
    #: Secrets in every other application's reports (:func:`hooklint.pipeline.run_redacted`): where
    #: its findings are in ``findings`` (start, end), its plan or None, and the values of its
    #: Secrets as ``(value, key)``. Emptied by that redaction; never reported, never cached.
    by_application: list[tuple[int, int, Any, tuple[tuple[str, str], ...]]] = field(default_factory=list, repr=False)

    def summary(self) -> str:
        """The run's tally in words, the last line of the text and GitHub reports: ``2 errors,
        1 warning, 0 notes in 3 files``, then how many findings are suppressed and how many
        baseline entries no longer match, when any."""
        counts = {"error": 0, "warning": 0, "note": 0}
        for f in self.findings:
            counts[f.severity] += 1
        parts = [f"{n} {sev}{'s' if n != 1 else ''}" for sev, n in counts.items()]
        files = f"{self.files} file{'s' if self.files != 1 else ''}"
        line = f"{', '.join(parts)} in {files}"
        if self.suppressed:
            line += f", {len(self.suppressed)} suppressed"
        if self.stale_baseline:
            n = self.stale_baseline
            line += f", {n} baseline {'entry no longer matches' if n == 1 else 'entries no longer match'}"
        return line


def same_place(findings: Iterable[Finding]) -> list[list[Finding]]:
    """``findings`` (in report order) cut into runs of neighbours that are one finding made many
    times: the same rule, severity, file, line and column, all live or all suppressed, each about an
    object, and the same message but for the object's ``Kind/name``. A kustomize base that three
    overlays render, or a Helm template a ``range`` repeats, gives one such run; the text and
    Markdown reports show it once, with the other objects named (:func:`more_objects`). Two
    different findings at one place (two stale entries of one comment) are never one run."""
    groups: list[list[Finding]] = []
    keys: list[tuple | None] = []
    for finding in findings:
        key = None
        if finding.obj is not None:
            key = (finding.rule_id, finding.severity, finding.path, finding.span.line, finding.span.column,
                   finding.suppression is None, finding.message.replace(finding.obj.label(), "\0"))  # fmt: skip
        if key is not None and keys and keys[-1] == key:
            groups[-1].append(finding)
        else:
            groups.append([finding])
            keys.append(key)
    return groups


def more_objects(group: list[Finding], shown: int = 5) -> str:
    """``the same for 3 more objects made at this place: Job/e1-migrate, Job/e2-migrate,
    Job/e3-migrate`` for the findings after the first of a :func:`same_place` run (the first
    ``shown`` objects named, then how many more), or an empty string for a run of one."""
    rest = group[1:]
    if not rest:
        return ""
    labels = [f.obj.label() if f.obj is not None else "an object" for f in rest]
    named = ", ".join(labels[:shown]) + (f" and {len(labels) - shown} more" if len(labels) > shown else "")
    return f"the same for {len(rest)} more object{'s' if len(rest) != 1 else ''} made at this place: {named}"


# --- identity: where a finding is in the repository, and what it is about ---------------------
#
# Shared by every report that names files relative to the repository (SARIF, GitHub, GitLab), the
# baseline and ``hooklint diff``: one spelling of a finding's file and one fingerprint.

SRCROOT = "%SRCROOT%"
#: The key of the fingerprint in SARIF's ``partialFingerprints`` (and of a baseline's entries).
FINGERPRINT_KEY = "hooklint/v1"
STDIN = "-"


def repository_root(start: str | os.PathLike[str] | None = None) -> Path:
    """The nearest folder at or above ``start`` (the current directory) that holds ``.git`` (a
    folder, or a file in a worktree or submodule); ``start`` itself when there is none. Returned
    with symbolic links resolved."""
    here = Path(os.path.realpath(start if start is not None else os.getcwd()))
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return here


def artifact_path(path: str, root: Path) -> str | None:
    """``path`` (as the user named it, relative to the current directory) relative to ``root``,
    with forward slashes and symbolic links resolved (GitHub does not show results in symlinked
    files). None for stdin and for a file outside ``root``."""
    if path == STDIN:
        return None
    absolute = Path(os.path.realpath(path))
    try:
        return absolute.relative_to(root).as_posix()
    except ValueError:
        return None


def artifact_uri(path: str, root: Path) -> tuple[str, str | None]:
    """``(uri, uriBaseId)`` for a finding's path: a percent-encoded relative reference based on
    ``%SRCROOT%`` inside ``root``, an absolute ``file://`` URI outside it, ``-`` for stdin."""
    if path == STDIN:
        return STDIN, None
    relative = artifact_path(path, root)
    if relative is None:
        return Path(os.path.realpath(path)).as_uri(), None
    return quote(relative, safe="/"), SRCROOT


def identity(finding: Finding, uri: str) -> tuple[str, ...]:
    """What a finding is about, without where in the file it is: rule id, artifact URI, the
    object's kind, namespace and name (``generateName`` marked with a trailing ``*``), and the
    dotted path of the offending field."""
    obj = finding.obj or ObjectRef()
    if obj.name:
        name = obj.name
    elif obj.generate_name:
        name = obj.generate_name + "*"
    else:
        name = ""
    return (finding.rule_id, uri, obj.kind or "", obj.namespace or "", name, finding.field_path)


def fingerprints(findings: Iterable[Finding], uris: Iterable[str]) -> list[str]:
    """The ``hooklint/v1`` fingerprint of each finding: the SHA-256 (hex) of
    ``"\\x1f".join(identity + (occurrence,))``, where ``occurrence`` counts, from 1, the findings
    before it (in the given order, which is file order) with the same identity, so two findings
    that share an identity still differ. No line or column goes in: inserting lines above an
    object leaves its fingerprints unchanged."""
    import hashlib  # here: OpenSSL's module is 4 ms of every run's start-up, and only SARIF and baselines hash

    seen: dict[tuple[str, ...], int] = {}
    out = []
    for finding, uri in zip(findings, uris):
        key = identity(finding, uri)
        seen[key] = seen.get(key, 0) + 1
        text = "\x1f".join((*key, str(seen[key])))
        out.append(hashlib.sha256(text.encode("utf-8")).hexdigest())
    return out
