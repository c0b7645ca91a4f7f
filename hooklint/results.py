"""The result cache: what linting one application gave, kept per application as ruff keeps one
per file, so that a run over an unchanged application costs a stat pass over its inputs.

An entry is stored under a key over everything of the run that can change a finding (hooklint's
version and the stat signatures of its own files and rule files, the whole configuration but its
run deadline, the Argo CD version it names, the current folder, the renderers ``PATH`` finds, the
locale and ``HOOKLINT_*`` variables, the Python and YAML libraries) and the application as
discovery describes it (its files, source type, Argo CD source and options, what is left out and
why, ``mapped``). The entry holds every
input the application's loading and rendering read (:func:`hooklint.files.recording`: the files
of a directory source, every file the render cache keyed a rendering on, the kustomizations read
on the way; for a rendered source also the folders holding them, by their entry names), each with
its stat signature and the SHA-256 of its bytes: a lookup stats each input, and hashes one only
when its signature changed or was racily new; one changed byte, one new file in such a folder,
one re-pointed link is a miss.

What is kept is the application's :data:`~hooklint.pipeline.Outcome` after its suppression
stage (``hooklint.io/ignore`` annotations and ``# hooklint: ignore[...]`` comments, read from its
own inputs, so the key covers them), with suppressed findings kept and marked: the run's
``per-path-ignores``, ``exclude`` and baseline are applied after the cache, on every run, so a
baseline written or edited since is honoured. Findings are stored already redacted, never a
secret as written.

Never kept: a run with ``--fetch`` (what a server answers is not an input), stdin or a stream, an
application whose render was stopped by a limit or failed before its inputs were known
(:func:`hooklint.files.note_volatile`), one hooklint failed on, one the deadline stopped, and a
run that keeps plans (``plan``, ``diff``, the markdown report). ``HOOKLINT_CACHE_DIR=off`` or
``--no-cache`` turns it off with the render cache. Entries are JSON written atomically, never read
through a link; a corrupt entry is a miss.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import os
import re
import sys
import time
from typing import Any

from hooklint import __version__
from hooklint.catalog import code_signature
from hooklint.config import Config
from hooklint.files import VOLATILE, cache_dir, content_digest, read_entry, stat_signature, store_entry, trusted
from hooklint.findings import Finding, HookRef, InputError, ObjectRef, Span, Suppression
from hooklint.reasons import Skip, SkipKind

#: Bumped when what is stored changes shape or meaning: old entries then miss.
RESULT_FORMAT = "1"

#: Configuration fields that change no finding (how long the run may take) and stay out of the key.
_NOT_IN_KEY = frozenset({"run_timeout"})

#: The programs that render (their paths and stat signatures are in the key).
_RENDERERS = ("kustomize", "kubectl", "helm")


class Uncacheable(ValueError):
    """A value :func:`canonical` cannot write the same way in every run (an object shown by address)."""


def canonical(value: Any) -> Any:
    """``value`` as plain JSON values written the same in every run: dataclasses as their fields,
    sets sorted, enums by name, compiled patterns by their text, objects with ``__slots__`` by their
    slots. Raises :class:`Uncacheable` for anything else (never a key that differs by address)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, enum.Enum):
        return ["enum", type(value).__name__, value.name]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return ["dc", type(value).__name__,
                [[f.name, canonical(getattr(value, f.name))] for f in dataclasses.fields(value)]]  # fmt: skip
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return ["set", sorted((canonical(v) for v in value), key=_order)]
    if isinstance(value, dict):
        return ["map", sorted(([canonical(k), canonical(v)] for k, v in value.items()), key=_order)]
    if isinstance(value, re.Pattern):
        return ["re", value.pattern, value.flags]
    slots = [s for cls in type(value).__mro__ for s in getattr(cls, "__slots__", ())]
    if slots:
        return ["obj", type(value).__name__, [[s, canonical(getattr(value, s, None))] for s in slots]]
    raise Uncacheable(type(value).__name__)


def _order(item: Any) -> str:
    return json.dumps(item, sort_keys=True, default=str)


def _environment() -> list[list[str]]:
    """The variables that reach a renderer or change what hooklint does (the locale, ``HOOKLINT_*``
    but the cache folder)."""
    return sorted([k, v] for k, v in os.environ.items()
                  if k.startswith(("LC_", "LANG", "HOOKLINT_")) and k != "HOOKLINT_CACHE_DIR")  # fmt: skip


def _renderer_signature() -> list[Any]:
    """``PATH`` and, for every renderer program in its folders, its path and stat signature; the
    Helm SDK's folder and its signature when it is installed (found without importing it)."""
    path = os.environ.get("PATH", os.defpath)
    found: list[Any] = [path]
    for folder in path.split(os.pathsep):
        for name in _RENDERERS:
            candidate = os.path.join(folder or ".", name)
            signature = stat_signature(candidate)
            if signature[0] != "-":
                found.append([candidate, signature, os.path.realpath(candidate)])
    try:  # the Helm SDK: where it would be imported from and its folder's signature
        import importlib.util  # noqa: PLC0415 - the key of a run only

        spec = importlib.util.find_spec("helm_python")
        places = list(spec.submodule_search_locations or []) if spec is not None else []
    except (ImportError, ValueError):
        places = []
    found.extend([place, stat_signature(place)] for place in places)
    return found


class ResultCache:
    """The result cache of one run (see the module docstring): :meth:`lookup` and :meth:`store`
    of one application's outcome. Made by :func:`run_cache`; picklable (a worker receives it)."""

    def __init__(self, folder: str, run_key: str):
        self.folder = folder
        self.run_key = run_key
        #: folder as reached (as spelled; the current folder is the run's) -> its resolved path, this run
        self._real: dict[str, str] = {}

    def _entry(self, app: Any, mapped: bool) -> str | None:
        try:
            described = json.dumps([self.run_key, mapped, canonical(app)], separators=(",", ":"))
        except (Uncacheable, ValueError, TypeError, RecursionError):
            return None
        key = hashlib.sha256(described.encode("utf-8", "surrogatepass")).hexdigest()
        return os.path.join(self.folder, key[:2], key + ".json")

    def _signature(self, path: str) -> list[Any]:
        """:func:`~hooklint.files.stat_signature` of ``path`` and the resolved path of its folder
        (a re-pointed link on the way is another input), each folder resolved once per run."""
        folder = os.path.dirname(path)
        real = self._real.get(folder)
        if real is None:
            real = self._real[folder] = os.path.realpath(folder or ".")
        return [*stat_signature(path), real]

    def lookup(self, app: Any, mapped: bool) -> tuple | None:
        """The outcome stored for ``app`` when every input it recorded is unchanged (stat
        signature equal and not racily new, else the same kind, links and bytes: the entry is then
        written again with the new signatures); None otherwise, or for a corrupt entry."""
        entry = self._entry(app, mapped)
        stored = read_entry(entry) if entry is not None else None
        if not isinstance(stored, dict):
            return None
        try:
            taken = stored["taken"]
            renewed = []
            changed = False
            for path, signature, digest in stored["inputs"]:
                now = self._signature(path)
                if now != signature or not trusted(signature, taken):
                    # kind, link and folder first: a path that now leads elsewhere is never opened
                    if now[0] != signature[0] or now[5:] != signature[5:] or digest is None:
                        return None
                    if content_digest(path, now[0]) != digest:
                        return None
                    changed = changed or now != signature
                renewed.append([path, now, digest])
            outcome = _outcome_of(stored["outcome"])
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            return None
        if changed and entry is not None:  # the same bytes under a new signature: next time a stat pass
            self._write(entry, renewed, stored["outcome"], time.time_ns())
        return outcome

    def store(self, app: Any, mapped: bool, outcome: tuple, reads: dict[str, str | None], taken: int) -> None:
        """Keep ``outcome`` of ``app`` with its inputs: ``reads`` (what its loading recorded, with
        the hashes of the bytes read), its own files (read or not: a link left unread is an input
        too), and for a rendered source the folders holding them. ``taken``: ``time.time_ns()``
        when its loading began. Nothing is kept when the loading was volatile, when an input is
        not a regular file or folder (a stream), or changed while it was linted."""
        if VOLATILE in reads or outcome[6] is not None:
            return
        entry = self._entry(app, mapped)
        if entry is None:
            return
        paths: dict[str, str | None] = dict(reads)
        hashed = {path for path, digest in reads.items() if digest is not None}  # read: inside the repository
        if app.source_type != "directory":  # the folders of what it read: a file added there is a miss
            for path in list(hashed):
                folder = os.path.dirname(path) or "."
                paths.setdefault(folder, None)
                hashed.add(folder)
        own = [*app.reported, *app.context, app.manifest_file, app.source_note]
        if app.argocd is not None:
            own.append(app.argocd.manifest)
        for part in app.parts:
            own.extend([*part.reported, *part.context, part.manifest_file])
        for path in own:
            if path and path not in paths:
                paths[path] = None
        inputs = []
        spelled: set[str] = set()  # one spelling of each (a render names its inputs by absolute path)
        for path in sorted(paths):
            absolute = os.path.abspath(path)
            if absolute in spelled and paths[path] is None:
                continue
            spelled.add(absolute)
            signature = self._signature(path)
            if signature[0] == "x":
                return
            # a path it looked at but did not read (a link out of the repository, a folder a
            # kustomization names, a missing entry) is never opened here: its signature alone
            # stands for it (digest None: any change, or a racily new signature, is a miss)
            digest: str | None = content_digest(path, signature[0]) if path in hashed else None
            recorded = paths[path]
            if recorded is not None and recorded != digest:  # changed since it was read
                return
            if recorded is None and signature[0] != "-" and signature[2] >= taken:  # changed while it was linted
                return
            inputs.append([path, signature, digest])
        self._write(entry, inputs, _outcome_json(outcome), taken)

    def _write(self, entry: str, inputs: list, outcome: Any, taken: int) -> None:
        store_entry(entry, {"taken": taken, "inputs": inputs, "outcome": outcome})


def run_cache(config: Config) -> ResultCache | None:
    """The result cache of a run under ``config``, or None when caching is off
    (``HOOKLINT_CACHE_DIR=off``, ``--no-cache``), with ``--fetch``, or for a configuration that
    cannot be written as a key."""
    folder = cache_dir()
    if folder is None or config.fetch:
        return None
    import yaml  # noqa: PLC0415 - the YAML library reads every file: its version is in the key

    try:
        settings = [[f.name, canonical(getattr(config, f.name))] for f in dataclasses.fields(config)
                    if f.name not in _NOT_IN_KEY]  # fmt: skip
        described = json.dumps([RESULT_FORMAT, __version__, sys.version, yaml.__version__,
                                getattr(yaml, "__with_libyaml__", False), os.getcwd(), settings,
                                code_signature(), _renderer_signature(), _environment()],
                               separators=(",", ":"))  # fmt: skip
    except (Uncacheable, ValueError, TypeError, OSError):
        return None
    return ResultCache(os.path.join(folder, "results"), hashlib.sha256(described.encode("utf-8", "surrogatepass")).hexdigest())


# --- an outcome as JSON and back -----------------------------------------------------------------


def _finding_json(f: Finding) -> list[Any]:
    return [f.rule_id, f.slug, f.severity, f.message, f.path, [f.span.line, f.span.column, f.span.end_line, f.span.end_column],
            [f.obj.api_version, f.obj.kind, f.obj.name, f.obj.generate_name, f.obj.namespace] if f.obj else None,
            [list(f.hook.phases), f.hook.wave] if f.hook else None, f.field_path, f.doc_index,
            [f.suppression.kind, f.suppression.reason] if f.suppression else None, list(f.related)]  # fmt: skip


def _finding_of(data: list[Any]) -> Finding:
    rule_id, slug, severity, message, path, span, obj, hook, field_path, doc_index, suppression, related = data
    return Finding(rule_id, slug, severity, message, path, Span(*span), ObjectRef(*obj) if obj is not None else None,
                   HookRef(tuple(hook[0]), hook[1]) if hook is not None else None, field_path, doc_index,
                   Suppression(*suppression) if suppression is not None else None, tuple(related))  # fmt: skip


def _outcome_json(outcome: tuple) -> dict[str, Any]:
    findings, errors, files, skipped, renderer, unrendered, _ = outcome
    return {"findings": [_finding_json(f) for f in findings], "errors": [[e.path, e.message] for e in errors],
            "files": files, "skipped": [[p, s.detail, s.kind.name, s.through, s.subject] for p, s in skipped],
            "renderer": renderer, "unrendered": unrendered}  # fmt: skip


def _outcome_of(data: dict[str, Any]) -> tuple:
    """The outcome :func:`_outcome_json` wrote (TypeError, KeyError, ValueError: a corrupt entry)."""
    findings = [_finding_of(f) for f in data["findings"]]
    errors = [InputError(p, m) for p, m in data["errors"]]
    skipped = [(p, Skip(detail, SkipKind[kind], through, subject)) for p, detail, kind, through, subject in data["skipped"]]
    files, renderer, unrendered = data["files"], data["renderer"], data["unrendered"]
    if not isinstance(files, int) or not all(isinstance(v, (str, type(None))) for v in (renderer, unrendered)):
        raise ValueError("corrupt entry")
    for f in findings:
        if not all(isinstance(v, str) for v in (f.rule_id, f.slug, f.severity, f.message, f.path)):
            raise ValueError("corrupt entry")
    return findings, errors, files, skipped, renderer, unrendered, None
