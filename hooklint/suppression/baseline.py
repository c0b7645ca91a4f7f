"""The baseline: today's findings, recorded so that a run reports only new ones.

``hooklint lint --write-baseline FILE`` writes every live finding's fingerprint (the SARIF report's
``partialFingerprints["hooklint/v1"]``, :func:`hooklint.findings.fingerprints`: rule, file
relative to the repository root, object and field, never a line, so a baseline survives lines
moving, files being reordered and unrelated edits), but those of :data:`NEVER_BASELINED`, which the
command says it left out. ``--baseline FILE`` (or ``baseline:`` in the
configuration) marks the findings whose fingerprint it holds as suppressed (kind ``baseline``) and
counts the entries that matched nothing (fixed debt, to be removed by writing the baseline again);
an entry of a file the run did not look at (a run on part of the tree, an excluded file) is not
counted: nothing says it was fixed.

It is the last step of the suppression stage: it needs every application's findings (their
fingerprints count occurrences across the run), so the pipeline applies it to the run's result
(``lint_paths(baseline=...)``), before any report.

The file is JSON: ``{"version": 1, "findings": [{"fingerprint", "rule_id", "path", "object"}]}``
(``fingerprint`` is read back, and ``path`` to tell whether the entry's file was in the run; the
rest is there for people reviewing the file).
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Callable
from urllib.parse import quote, unquote

from hooklint.config import DEFAULT_MAX_FILE_SIZE
from hooklint.files import UnsafeWrite, read_bytes, write_output
from hooklint.findings import Finding, RunResult, Suppression, artifact_path, artifact_uri, fingerprints, repository_root
from hooklint.suppression import BaselineError
from hooklint.text import json_safe

FORMAT_VERSION = 1


def _fingerprinted(result: RunResult, root: Path) -> list[tuple[Finding, str, str]]:
    """Every finding of ``result`` (live and suppressed), in the SARIF report's order, with its
    artifact URI and fingerprint (the same values the SARIF report carries)."""
    findings = sorted(result.findings + result.suppressed, key=lambda f: (f.sort_key(), f.field_path))
    uris = [artifact_uri(f.path, root)[0] for f in findings]
    return list(zip(findings, uris, fingerprints(findings, uris)))


#: Rules a baseline never records nor suppresses: an application that Argo CD cannot render either
#: (HL007) is broken, not debt: it does not sync, so accepting it would hide a failing application
#: and everything later added to it (its finding names no object); a missing renderer (HL008) is a
#: fact about the machine hooklint runs on, not about the repository. HL009 (Argo CD renders the
#: source, hooklint will not: a dependency not in ``charts/``, a remote base, ``helmCharts``) is
#: recorded: the application syncs, the state is stable until the team vendors what Argo CD
#: fetches, and it is the debt a team adopting hooklint may accept; when the source is vendored
#: the entry stops matching (reported as fixed debt) and the application's findings come in new.
NEVER_BASELINED = frozenset({"HL007", "HL008"})


@dataclasses.dataclass(frozen=True, slots=True)
class Written:
    """What :func:`write_baseline` wrote: ``count`` entries, and the rule ids of the live findings
    it left out (:data:`NEVER_BASELINED`), one per finding, sorted."""

    count: int
    left_out: tuple[str, ...] = ()

    def summary(self, path: str) -> str:
        """The line ``lint --write-baseline`` prints on stderr (no newline) once the baseline is
        written to ``path``: ``hooklint: wrote N findings to the baseline PATH``, and, when findings
        were left out, how many, of which rules, and that they are never baselined (they still fail
        a run with ``--baseline``: it says so now, not then), with the remedy (installing the
        renderer too, for an HL008)."""
        count, left = self.count, self.left_out
        line = f"hooklint: wrote {count} finding{'s' if count != 1 else ''} to the baseline {path}"
        if left:
            rules = ", ".join(sorted(set(left)))
            remedy = "fix the source" if "HL008" not in left else "fix the source or install its renderer"
            line += (f"; {len(left)} finding{'s' if len(left) != 1 else ''} ({rules}) "
                     f"{'is' if len(left) == 1 else 'are'} never baselined: {remedy}, or ignore the rule for "
                     "that path")  # fmt: skip
        return line


def write_baseline(path: str, result: RunResult, root: Path | None = None) -> Written:
    """Write the live findings of ``result`` (but those of :data:`NEVER_BASELINED`) to ``path``;
    returns how many, and which were left out. Raises :class:`BaselineError`."""
    root = root or repository_root()
    live = [(f, uri, fp) for f, uri, fp in _fingerprinted(result, root) if f.suppression is None]
    entries = [
        {"fingerprint": fp, "rule_id": f.rule_id, "path": uri, "object": f.obj.label() if f.obj else None}
        for f, uri, fp in live
        if f.rule_id not in NEVER_BASELINED
    ]
    entries.sort(key=lambda e: (e["path"], e["rule_id"], e["fingerprint"]))
    text = json_safe(json.dumps({"version": FORMAT_VERSION, "findings": entries}, indent=2, ensure_ascii=False)) + "\n"
    try:  # never through a link, never out of the repository unless named there (issue 32)
        write_output(path, text.encode("utf-8"))
    except UnsafeWrite as exc:
        raise BaselineError(f"{path}: cannot write baseline: {exc}") from None
    except OSError as exc:
        raise BaselineError(f"{path}: cannot write baseline: {exc.strerror or exc}") from None
    return Written(len(entries), tuple(sorted(f.rule_id for f, _, _ in live if f.rule_id in NEVER_BASELINED)))


def load_baseline(path: str, max_size: int = DEFAULT_MAX_FILE_SIZE) -> dict[str, str | None]:
    """The entries of the baseline at ``path``, a regular file of at most ``max_size`` bytes
    (``max-file-size``): fingerprint -> the entry's ``path`` (the file's URI relative to the
    repository root, as written; None when the entry has none). Raises :class:`BaselineError`
    (also for a FIFO or device such as ``/dev/zero``, which is never read, and for JSON nested too
    deeply to read)."""
    try:
        doc = json.loads(read_bytes(path, max_size).decode("utf-8"))
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read baseline: {exc.strerror or exc}") from None
    except RecursionError:
        raise BaselineError(f"{path}: not a hooklint baseline (invalid JSON: nested too deeply)") from None
    except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError, or an integer of too many digits
        raise BaselineError(f"{path}: not a hooklint baseline (invalid JSON: {exc})") from None
    entries = doc.get("findings") if isinstance(doc, dict) else None
    if doc.get("version") != FORMAT_VERSION if isinstance(doc, dict) else True:
        raise BaselineError(f"{path}: not a hooklint baseline (no \"version\": {FORMAT_VERSION}); write one with --write-baseline")
    if not isinstance(entries, list) or not all(isinstance(e, dict) and isinstance(e.get("fingerprint"), str) for e in entries):
        raise BaselineError(f"{path}: not a hooklint baseline (\"findings\" must be a list of objects with a \"fingerprint\")")
    return {e["fingerprint"]: e["path"] if isinstance(e.get("path"), str) else None for e in entries}


def run_scope(paths: list[str], excluded: Callable[[str], bool] | None = None,
              root: Path | None = None) -> Callable[[str], bool]:  # fmt: skip
    """Whether a baseline entry's file (its URI relative to ``root``, the repository root) was in
    a run over ``paths`` (files and folders as the user named them, ``-`` for stdin): at or under
    one of them, and not ``excluded`` (the configuration's ``exclude``, called with the path
    relative to the current directory)."""
    root = root or repository_root()
    prefixes = []
    for path in paths:
        if path == "-":
            continue
        relative = artifact_path(path, root)
        if relative is None:
            continue
        prefixes.append("" if relative == "." else quote(relative, safe="/"))

    def inside(uri: str) -> bool:
        if not any(p == "" or uri == p or uri.startswith(p + "/") for p in prefixes):
            return False
        return excluded is None or not excluded(os.path.relpath(os.path.join(root, unquote(uri))))

    return inside


def apply_baseline(result: RunResult, known: "dict[str, str | None] | set[str]", root: Path | None = None,
                   scope: Callable[[str], bool] | None = None) -> int:  # fmt: skip
    """Move the live findings of ``result`` whose fingerprint is in ``known`` (fingerprint -> the
    entry's path, :func:`load_baseline`) to ``result.suppressed`` (kind ``baseline``), never those
    of :data:`NEVER_BASELINED`. Returns how many baseline entries matched no finding of this run,
    counting only the entries of files in the run: ``scope(path)`` (:func:`run_scope`; None: every
    file), or a file with a finding in this run; an entry without a path always counts."""
    root = root or repository_root()
    matched: set[str] = set()
    baselined: set[int] = set()
    seen_files: set[str] = set()
    for f, uri, fp in _fingerprinted(result, root):
        seen_files.add(uri)
        if fp in known and f.rule_id not in NEVER_BASELINED:
            matched.add(fp)
            if f.suppression is None:
                baselined.add(id(f))
    if baselined:
        moved = [dataclasses.replace(f, suppression=Suppression("baseline")) for f in result.findings if id(f) in baselined]
        result.findings = [f for f in result.findings if id(f) not in baselined]
        result.suppressed = sorted(result.suppressed + moved, key=Finding.sort_key)
    paths = known if isinstance(known, dict) else dict.fromkeys(known)
    return sum(1 for fp, path in paths.items()
               if fp not in matched and (path is None or scope is None or path in seen_files or scope(path)))  # fmt: skip
