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

The entries of one run key are kept together in one file, its pack (under ``results/``), as
ruff keeps one cache file per project: a run reads it once, at its first lookup, and writes it
once, at its end (:meth:`ResultCache.flush`), with the entries it made or renewed over those
another run wrote meanwhile (a file per application cost a file creation each, about a fifth of
a run that stores all of them). A ``--jobs`` worker hands the entries it made back with its
outcomes. An entry not made or renewed for :data:`PACK_KEEP_NS` is left out when the pack is
written: an application renamed or removed leaves no entry behind for long.

An application with Secrets is linted on every run that is not answered whole (its entry is a
miss): the values of its Secrets redact every other application's findings
(:func:`hooklint.pipeline.run_redacted`), and they are never written here.

What is kept is the application's :data:`~hooklint.pipeline.Outcome` after its suppression
stage (``hooklint.io/ignore`` annotations and ``# hooklint: ignore[...]`` comments, read from its
own inputs, so the key covers them), with suppressed findings kept and marked: the run's
``per-path-ignores``, ``exclude`` and baseline are applied after the cache, on every run, so a
baseline written or edited since is honoured. Findings are stored already redacted, never a
secret as written.

A whole run is kept too (:meth:`ResultCache.lookup_run`, :meth:`ResultCache.store_run`, under
``runs/``): its :class:`~hooklint.findings.RunResult` before the baseline, under the run's key and
the paths as given, with every input of it: each file it read (its hash), each folder it listed
and each path it looked at (:func:`observing`: present or missing, by stat signature; a folder only
looked at by its kind, link and real folder), and the inputs of each application's entry (a
worker's reads are not seen by the parent). A run over an unchanged tree is then one stat pass: no
discovery, no application loaded. Not kept whole: a run with an input error (a missing path, an
application the deadline stopped) or with an application that has no entry.

Never kept: a run with ``--fetch`` (what a server answers is not an input), stdin or a stream, an
application whose render was stopped by a limit or failed before its inputs were known
(:func:`hooklint.files.note_volatile`), one hooklint failed on, one the deadline stopped, and a
run that keeps plans (``plan``, ``diff``, the markdown report). ``HOOKLINT_CACHE_DIR=off`` or
``--no-cache`` turns it off with the render cache. Entries are JSON written atomically, never read
through a link; a corrupt entry is a miss.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import hashlib
import json
import os
import re
import stat
import sys
import tempfile
import time
from typing import Any, Iterable, Iterator

from hooklint import __version__, deadline, runnodes
from hooklint.catalog import code_signature
from hooklint.config import Config
from hooklint.deadline import RunTimeout
from hooklint.files import (OBSERVERS, RACY_NS, SIGNATURE_WAY, STDIN, VOLATILE, cache_dir, changed_at, content_digest,
                            is_stream, linting, package_identity, read_entry, sdk_identity, stat_signature, store_entry,
                            trusted, wrapper)
from hooklint.findings import Finding, HookRef, InputError, ObjectRef, RunResult, Span, Suppression
from hooklint.reasons import Skip, SkipKind

#: Bumped when what is stored changes shape or meaning: old entries then miss.
RESULT_FORMAT = "4"

#: Configuration fields that change no finding (how long the run may take, how many YAML nodes it
#: may parse) and stay out of the key.
_NOT_IN_KEY = frozenset({"run_timeout", "max_run_nodes"})

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
    if isinstance(value, frozenset):
        return _canonical_frozenset(value)
    if isinstance(value, set):
        return ["set", sorted((canonical(v) for v in value), key=_order)]
    if isinstance(value, dict):
        return ["map", sorted(([canonical(k), canonical(v)] for k, v in value.items()), key=_order)]
    if isinstance(value, re.Pattern):
        return ["re", value.pattern, value.flags]
    slots = [s for cls in type(value).__mro__ for s in getattr(cls, "__slots__", ())]
    if slots:
        return ["obj", type(value).__name__, [[s, canonical(getattr(value, s, None))] for s in slots]]
    raise Uncacheable(type(value).__name__)


#: id -> (the frozenset, its canonical form) of the last few written (:func:`_canonical_frozenset`).
_FROZEN: dict[int, tuple[frozenset, Any]] = {}


def _canonical_frozenset(value: frozenset) -> Any:
    """:func:`canonical` of a frozenset: ``["set-sha256", the SHA-256 of its sorted members written
    as JSON]`` (a key is a SHA-256 of its description anyway), written once for the same object.
    The repository-wide sets every application of a run shares (the bindings its files write,
    HL104: about 27 kB of JSON on the corpus) were written whole into each application's key,
    three times each: a third of a run whose renders the render cache answered. By identity, never
    by equality (``{1}`` and ``{1.0}`` are equal and write differently); the object is kept, so its
    id is not reused."""
    held = _FROZEN.get(id(value))
    if held is not None and held[0] is value:
        return held[1]
    members = json.dumps(sorted((canonical(v) for v in value), key=_order), separators=(",", ":"))
    written = ["set-sha256", hashlib.sha256(members.encode("utf-8", "surrogatepass")).hexdigest()]
    if len(_FROZEN) >= 64:
        _FROZEN.clear()
    _FROZEN[id(value)] = (value, written)
    return written


def _order(item: Any) -> str:
    return json.dumps(item, sort_keys=True, default=str)


def _environment() -> list[list[str]]:
    """The variables that reach a renderer or change what hooklint does (the locale, ``HOOKLINT_*``
    but the cache folder and its size cap)."""
    return sorted([k, v] for k, v in os.environ.items()
                  if k.startswith(("LC_", "LANG", "HOOKLINT_")) and k not in _CACHE_VARIABLES)  # fmt: skip


#: The variables that say where the caches are and how large they may grow: no finding depends on them.
_CACHE_VARIABLES = frozenset({"HOOKLINT_CACHE_DIR", "HOOKLINT_CACHE_MAX_MB"})


def _renderer_signature() -> list[Any]:
    """``PATH`` and, for every renderer program in its folders, its path and stat signature; the
    Helm SDK's files, library and ``HELM_C_LIB`` when it is installed (found without importing it:
    :func:`hooklint.files.sdk_identity`; its folder's signature alone missed a library
    replaced in place, and ``HELM_C_LIB``: attacker trial 44, 1)."""
    path = os.environ.get("PATH", os.defpath)
    found: list[Any] = [path]
    for folder in path.split(os.pathsep):
        for name in _RENDERERS:
            candidate = os.path.join(folder or ".", name)
            signature = stat_signature(candidate)
            if signature[0] != "-":
                real = os.path.realpath(candidate)
                if wrapper(candidate, real, signature[1]):  # its file does not say which build runs: no result is kept
                    raise Uncacheable(f"{candidate} may run another program than its file (hooklint.files.dispatched)")
                found.append([candidate, signature, real])
    try:  # the Helm SDK: where it would be imported from and its folder's signature
        import importlib.util  # noqa: PLC0415 - the key of a run only

        spec = importlib.util.find_spec("helm_python")
        places = list(spec.submodule_search_locations or []) if spec is not None else []
    except (ImportError, ValueError):
        places = []
    found.extend([place, sdk_identity(os.path.dirname(os.path.abspath(place)))] for place in places)
    return found


#: An entry of a pack neither made nor renewed for this long (30 days, in ns) is left out when the
#: pack is written again (:meth:`ResultCache.flush`): one whose application was renamed or removed
#: is never looked up again, and an unchanged one is made again once a month.
PACK_KEEP_NS = 30 * 86400 * 1_000_000_000


class ResultCache:
    """The result cache of one run (see the module docstring): :meth:`lookup` and :meth:`store`
    of one application's outcome. Made by :func:`run_cache`; picklable (a worker receives it)."""

    def __init__(self, folder: str, run_key: str):
        self.folder = folder
        self.run_key = run_key
        #: folder as reached (as spelled; the current folder is the run's) -> its resolved path, this run
        self._real: dict[str, str] = {}
        #: (id of an application, mapped) -> (the application, its entry key): asked three times a run
        self._entries: dict[tuple[int, bool], tuple[Any, str | None]] = {}
        #: :meth:`_not_inputs`, once worked out
        self._skipped: list[str] | None = None
        #: the pack's entries, by entry key, read at the first lookup (:meth:`_pack`), and the pack
        #: file's stat signature taken before that read (a pack written since is another file)
        self._read: dict[str, Any] | None = None
        self._read_as: list[Any] | None = None
        #: the entries this process made or renewed in the run, by entry key: written by :meth:`flush`
        self._made: dict[str, Any] = {}

    def __getstate__(self) -> dict[str, Any]:
        """What a worker receives: not the entries of this process's applications, nor its pack
        (a worker reads it itself, if it looks one up)."""
        return {**self.__dict__, "_entries": {}, "_read": None, "_read_as": None, "_made": {}}

    def _pack_file(self) -> str:
        """The file holding this run key's entries."""
        return os.path.join(self.folder, self.run_key[:2], self.run_key + ".json")

    def _pack(self) -> dict[str, Any]:
        """The entries of the pack as this run found it (read once; a missing, corrupt or linked
        pack holds none)."""
        if self._read is None:
            self._read_as = stat_signature(self._pack_file())
            self._read = self._entries_of(read_entry(self._pack_file()))
        return self._read

    @staticmethod
    def _entries_of(stored: Any) -> dict[str, Any]:
        """The entries of a pack as :func:`~hooklint.files.read_entry` gave it (none for a missing,
        corrupt or linked one)."""
        entries = stored.get("entries") if isinstance(stored, dict) else None
        return entries if isinstance(entries, dict) else {}

    def _stored(self, entry: str) -> Any:
        """The entry under key ``entry``: made in this run, else read from the pack; None."""
        made = self._made.get(entry)
        return made if made is not None else self._pack().get(entry)

    def made(self) -> dict[str, Any]:
        """The entries this process made or renewed since it last handed them over, handed over
        now (a ``--jobs`` worker's, for the parent's :meth:`keep`)."""
        made, self._made = self._made, {}
        return made

    def keep(self, made: dict[str, Any]) -> None:
        """Take entries another process made (:meth:`made`), to be written by :meth:`flush`."""
        self._made.update(made)

    def flush(self) -> None:
        """Write the pack: the entries made or renewed in this run over those the pack holds now
        (another run may have written it meanwhile), leaving out those neither made nor renewed
        for :data:`PACK_KEEP_NS`. Nothing is written when the run made none. Never raises: a cache
        that cannot be written is ignored."""
        if not self._made:
            return
        try:
            kept = self._current()
            oldest = time.time_ns() - PACK_KEEP_NS
            kept = {key: value for key, value in kept.items()
                    if isinstance(value, dict) and isinstance(value.get("taken"), int) and value["taken"] >= oldest}
            kept.update(self._made)
            store_entry(self._pack_file(), {"entries": kept})
            self._read, self._read_as, self._made = kept, None, {}
        except (OSError, ValueError, TypeError):
            pass

    def _current(self) -> dict[str, Any]:
        """The pack's entries as its file holds them now: those this run read, unless another run
        wrote it since (a write renames a new file over it: another inode and change time), else
        read again."""
        read, pack = self._read, self._pack_file()
        if read is not None and self._read_as is not None and self._read_as[0] == "f" \
                and stat_signature(pack) == self._read_as:  # fmt: skip
            return read
        return self._entries_of(read_entry(pack))

    def _entry(self, app: Any, mapped: bool) -> str | None:
        """The entry of ``app``: its key covers the run's, ``app`` as discovery describes it, and
        the repository each of its folders belongs to (a ``.git`` made inside it turns a link
        into one that leads out of its repository: HL007). Worked out once per application object
        in a run (:meth:`lookup`, :meth:`store` and :meth:`inputs_of` ask; the object is kept, so
        its id is not reused)."""
        held = self._entries.get((id(app), mapped))
        if held is not None and held[0] is app:
            return held[1]
        entry = self._entry_of(app, mapped)
        self._entries[(id(app), mapped)] = (app, entry)
        return entry

    def _entry_of(self, app: Any, mapped: bool) -> str | None:
        """:meth:`_entry`, worked out."""
        # an application's entry is asked only by a run that loads applications (the repository
        # stage is imported then): a run answered whole needs neither it nor the YAML reader
        from hooklint.sources.repository.tree import repository_boundary  # noqa: PLC0415 - see above

        try:
            folders = {os.path.dirname(f) for part in [app, *app.parts] for f in [*part.reported, *part.context]}
            boundaries = sorted({repository_boundary(folder) for folder in folders})
            described = json.dumps([self.run_key, mapped, canonical(app), boundaries], separators=(",", ":"))
        except (Uncacheable, ValueError, TypeError, RecursionError, OSError):
            return None
        return hashlib.sha256(described.encode("utf-8", "surrogatepass")).hexdigest()

    def _signature(self, path: str) -> list[Any]:
        """:func:`~hooklint.files.stat_signature` of ``path`` and the resolved path of its folder
        (a re-pointed link on the way is another input), each folder resolved once per run."""
        return [*stat_signature(path), self._real_folder(os.path.dirname(path))]

    def _real_folder(self, folder: str) -> str:
        """``os.path.realpath`` of ``folder`` (``""``: the current one), from its parent's, each
        folder asked once per run: one ``lstat`` of a folder that is not a link."""
        below: list[tuple[str, str]] = []  # (folder, name) under the nearest one resolved
        probe = folder
        while probe not in self._real:
            parent, name = os.path.split(probe)
            try:
                linked = name in ("", ".", "..") or stat.S_ISLNK(os.lstat(probe).st_mode)
            except (OSError, ValueError):
                linked = True
            if linked or not parent or parent == probe:
                self._real[probe] = os.path.realpath(probe or ".")
                break
            below.append((probe, name))
            probe = parent
        for child, name in reversed(below):
            self._real[child] = os.path.join(self._real[os.path.dirname(child)], name)
        return self._real[folder]

    def _not_inputs(self) -> list[str]:
        """The folders whose paths are never an input of an entry: the caches' folder, and the
        run's own temporary folder (:func:`hooklint.interrupt.guarded`); worked out once a run."""
        if self._skipped is None:
            skipped = [os.path.realpath(os.path.dirname(self.folder))]
            scratch = tempfile.gettempdir()
            if os.path.basename(scratch).startswith("hooklint-run-"):
                skipped.append(os.path.realpath(scratch))
            self._skipped = skipped
        return self._skipped

    def lookup(self, app: Any, mapped: bool) -> tuple | None:
        """The outcome stored for ``app`` when every input it recorded is unchanged (stat
        signature equal and not racily new, else the same kind, links and bytes: the entry is then
        written again with the new signatures); None otherwise, or for a corrupt entry."""
        entry = self._entry(app, mapped)
        stored = self._stored(entry) if entry is not None else None
        if not isinstance(stored, dict):
            return None
        if isinstance(stored.get("outcome"), dict) and stored["outcome"].get("secrets"):
            return None  # the run needs the values of its Secrets (pipeline.run_redacted): never written here
        try:
            unchanged = self._unchanged(stored["inputs"], stored["taken"])
            if unchanged is None:
                return None
            renewed, changed = unchanged
            outcome = _outcome_of(stored["outcome"])
            nodes = stored["nodes"]
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            return None
        # the YAML nodes its loading parsed count against the run's max-run-nodes as if it were
        # parsed: one the budget runs out in is linted, so that it stops where a run without the
        # cache stops (attacker trial 42: a cache hit spent nothing, and each warm run got further)
        left = runnodes.left()
        if left is not None:
            if not isinstance(nodes, int) or nodes > left:
                return None
            runnodes.spend(nodes)
        if changed and entry is not None:  # the same bytes under a new signature: next time a stat pass
            self._write(entry, renewed, stored["outcome"], time.time_ns(), nodes)
        return outcome

    def _unchanged(self, inputs: list, taken: int) -> tuple[list, bool] | None:
        """``inputs`` of an entry stored at ``taken`` with their signatures of now, and whether one
        changed, when every one is unchanged: the same stat signature, not racily new, else the
        same kind, link, folder and bytes; None otherwise. Raises TypeError, ValueError,
        IndexError for a corrupt entry."""
        renewed = []
        changed = False
        for path, signature, digest in inputs:
            now = self._signature(path)
            if digest == LOOKED_AT:  # a folder only looked at: still a folder, reached the same way
                if now[0] != "d" or now[SIGNATURE_WAY:] != signature[SIGNATURE_WAY:]:
                    return None
            elif now != signature or not trusted(signature, taken):
                # kind, link and folder first: a path that now leads elsewhere is never opened
                if now[0] != signature[0] or now[SIGNATURE_WAY:] != signature[SIGNATURE_WAY:] or digest is None:
                    return None
                if content_digest(path, now[0]) != digest:
                    return None
                changed = changed or now != signature
            renewed.append([path, now, digest])
        return renewed, changed

    def store(self, app: Any, mapped: bool, outcome: tuple, reads: dict[str, str | None], taken: int,
              seen: "Observed | None" = None, nodes: int | None = None) -> None:  # fmt: skip
        """Keep ``outcome`` of ``app`` with its inputs: ``reads`` (what its loading recorded, with
        the hashes of the bytes read), its own files (read or not: a link left unread is an input
        too), for a rendered source the folders holding them, and every path its loading asked the
        file system about (``seen``, :func:`observing`: the folders listed by their stat signature,
        the files and links looked at, there or not, by theirs, the folders only looked at by their
        kind, link and real folder, :data:`LOOKED_AT`; the caches' folder and the run's temporary
        folder left out, as :meth:`store_run` leaves them). ``taken``: ``time.time_ns()`` when its
        loading began; ``nodes``: the YAML nodes its loading parsed (:mod:`hooklint.runnodes`; a
        hit spends them again). Nothing is kept when the loading was volatile, when an input is not a
        regular file or folder (a stream), or changed while it was linted.

        What was looked at is an input because the answer may decide the outcome: attacker trial
        38, 1, a kustomize component skipped as missing under ``ignoreMissingComponents`` and made
        by a later change, was answered with the result that left it out."""
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
        looked: set[str] = set()  # only looked at: a folder by its kind and way (LOOKED_AT)
        here = os.getcwd()  # os.path.abspath asks it for every path
        if seen is not None:
            skipped = self._not_inputs()
            for path in [*seen.listed, *seen.looked]:
                place = os.path.normpath(os.path.join(here, path))
                if path in paths or any(place == top or place.startswith(top + os.sep) for top in skipped):
                    continue
                paths[path] = None
                if path not in seen.listed:
                    looked.add(path)
        own = [*app.reported, *app.context, app.manifest_file, app.source_note]
        if app.argocd is not None:
            own.append(app.argocd.manifest)
        for part in app.parts:
            own.extend([*part.reported, *part.context, part.manifest_file])
        for path in own:
            if path and path not in paths:
                paths[path] = None
        inputs: list[list[Any]] = []
        # one spelling of each place (a render names its inputs by absolute path), unless another
        # spelling answers otherwise: "" (the current folder as os.path.dirname spells it, missing
        # for os.stat) and "." are one place (attacker trial 41, 1)
        spelled: dict[str, list[Any]] = {}  # place -> the signature of its first spelling
        for path in sorted(paths):
            absolute = os.path.normpath(os.path.join(here, path))
            signature = self._signature(path)
            if paths[path] is None and spelled.get(absolute) == signature:
                continue
            spelled.setdefault(absolute, signature)
            if signature[0] == "x":
                return
            if path in looked and signature[0] == "d":  # a folder passed on the way: its entries are not an input
                inputs.append([path, signature, LOOKED_AT])
                continue
            # a path it looked at but did not read (a link out of the repository, a folder a
            # kustomization names, a missing entry) is never opened here: its signature alone
            # stands for it (digest None: any change, or a racily new signature, is a miss)
            recorded = paths[path]
            digest: str | None = None
            if path in hashed:
                # neither time within 2 s of the loading's start or after: the bytes it read (a
                # change since moves the change time, its modification time set back or not, by
                # more than a clock tick); else hashed again
                unsure = recorded is None or changed_at(signature) >= taken - RACY_NS
                digest = content_digest(path, signature[0]) if unsure else recorded
            if recorded is not None and recorded != digest:  # changed since it was read
                return
            if recorded is None and signature[0] != "-" and changed_at(signature) >= taken:  # changed while it was linted
                return
            inputs.append([path, signature, digest])
        self._write(entry, inputs, _outcome_json(outcome), taken, nodes)

    def _write(self, entry: str, inputs: list, outcome: Any, taken: int, nodes: int | None) -> None:
        """Make the entry under key ``entry``: kept by :meth:`flush` at the run's end."""
        self._made[entry] = {"taken": taken, "inputs": inputs, "outcome": outcome, "nodes": nodes}

    def inputs_of(self, app: Any, mapped: bool) -> list | None:
        """The inputs the entry of ``app`` holds, as ``[[path, signature, digest], ...]`` (what
        :meth:`store` made, a worker's :meth:`keep` handed over, or a lookup renewed), or None
        when it has none."""
        entry = self._entry(app, mapped)
        stored = self._stored(entry) if entry is not None else None
        inputs = stored.get("inputs") if isinstance(stored, dict) else None
        return inputs if isinstance(inputs, list) else None

    # --- the run entry ----------------------------------------------------------------------------

    def _run_entry(self, paths: list[str]) -> str:
        described = json.dumps([self.run_key, "run", paths], separators=(",", ":"))
        key = hashlib.sha256(described.encode("utf-8", "surrogatepass")).hexdigest()
        return os.path.join(os.path.dirname(self.folder), "runs", key[:2], key + ".json")

    def lookup_run(self, paths: list[str]) -> RunResult | None:
        """The result a run over ``paths`` (as the command line spelled them) gave under this key,
        before its baseline, when every input it recorded is unchanged (as :meth:`lookup`); None
        otherwise: a corrupt entry, a failure, or the run's deadline passing while it hashes (the
        run then stops where it always does). Never raises: the cache makes a run faster, never
        failing."""
        try:
            return self._lookup_run(paths)
        except (Exception, RunTimeout):  # noqa: BLE001 - a miss
            return None

    def _lookup_run(self, paths: list[str]) -> RunResult | None:
        entry = self._run_entry(paths)
        stored = read_entry(entry)
        if not isinstance(stored, dict):
            return None
        try:
            unchanged = self._unchanged(stored["inputs"], stored["taken"])
            if unchanged is None:
                return None
            renewed, changed = unchanged
            result = _run_result_of(stored["result"])
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            return None
        if changed:
            store_entry(entry, {"taken": time.time_ns(), "inputs": renewed, "result": stored["result"]})
        return result

    def store_run(self, paths: list[str], result: RunResult, reads: dict[str, str | None], seen: "Observed",
                  apps: Iterable[list | None], taken: int) -> None:  # fmt: skip
        """Keep ``result`` (before its baseline) of a run over ``paths`` that began at ``taken``
        (``time.time_ns()``), with every input of it: the files it read with their hashes
        (``reads``, its :func:`hooklint.files.recording`), every path it asked the file system about
        (``seen``, :func:`observing`: the folders it listed by their stat signature, which changes
        with their entries; the files and links it looked at, present or not, by theirs; the
        folders it only looked at, such as those ``os.path.realpath`` passes, by their kind, link
        and real folder: :data:`LOOKED_AT`), and the inputs of each application's entry (``apps``, from
        :meth:`inputs_of`). Nothing is kept for a run with an input error, one whose loading was
        volatile, one with an application that has no entry (``None`` in ``apps``: not kept, as
        :meth:`store` says), one with an input that is not a regular file or folder, or that
        changed since the run began; nor are this run's own temporary folder and the cache's
        entries inputs."""
        if result.errors or VOLATILE in reads:
            return
        digests: dict[str, str | None] = {}
        passed: set[str] = set()  # folders an application only looked at (a worker's too)
        for inputs in apps:
            if inputs is None:
                return
            for path, _, digest in inputs:
                if digest == LOOKED_AT:
                    passed.add(path)
                else:
                    digests.setdefault(path, digest)
        for path, digest in reads.items():
            if digest is not None or path not in digests:
                digests[path] = digest
        for path in seen.listed:
            digests.setdefault(path, None)
        looked = {path for path in [*seen.looked, *passed] if path not in digests}
        for path in looked:
            digests[path] = None
        skipped = self._not_inputs()
        here = os.getcwd()  # os.path.abspath asks it for every path
        listed = {os.path.normpath(os.path.join(here, path)) for path in seen.listed}
        by_place: dict[str, tuple[str, str | None]] = {}
        spellings: dict[str, list[str]] = {}  # place -> every spelling of it
        for path, digest in digests.items():
            place = os.path.normpath(os.path.join(here, path))
            if any(place == top or place.startswith(top + os.sep) for top in skipped):
                continue
            spellings.setdefault(place, []).append(path)
            kept = by_place.get(place)
            if place in listed:  # by its stat signature, whatever its names hash to: a spelling listed
                by_place[place] = kept[0] if kept is not None and kept[0] in seen.listed else path, None
            elif kept is None or (kept[1] is None and digest is not None):
                by_place[place] = (path, digest)
        inputs = []
        for place in sorted(by_place):
            path, recorded = by_place[place]
            signature = self._signature(path)
            if signature[0] == "x":
                return
            for other in spellings[place]:
                # another spelling of the place that answers otherwise is an input of its own: ""
                # (the current folder as os.path.dirname spells it, missing for os.stat) kept for
                # "." hid the listing of the run's top folder (attacker trial 41, 1)
                answer = self._signature(other) if other != path else signature
                if answer == signature:
                    continue
                if answer[0] == "x" or (answer[0] != "-" and changed_at(answer) >= taken):
                    return
                inputs.append([other, answer, None])
            if recorded is None and place not in listed and os.path.dirname(place) in listed and (
                    signature[0] == "-" or (signature[0] == "d" and path in looked)):
                continue  # its folder's listing stands for it: one made, removed or replaced there changes it
            if recorded is None and signature[0] == "d" and path in looked:
                recorded = LOOKED_AT
            elif recorded is not None:
                # neither time within 2 s of the run's start or after: the bytes it read; else
                # hashed again (as ResultCache.store does). A change during the run moves the change
                # time, its modification time set back or not (attacker trial 35, 3), but the
                # kernel stamps it with a coarse clock that lags by up to a tick: an edit made just
                # after the run began was stamped 1.8 ms before it, and kept with the old result
                unsure = not trusted(signature, taken) or changed_at(signature) >= taken - RACY_NS
                if unsure and content_digest(path, signature[0]) != recorded:
                    return
            elif signature[0] != "-" and changed_at(signature) >= taken:  # changed while the run ran
                return
            inputs.append([path, signature, recorded])
        store_entry(self._run_entry(paths), {"taken": taken, "inputs": inputs, "result": _run_result_json(result)})


def kept_run(paths: list[str], config: Config, baseline: str | None = None) -> RunResult | None:
    """What :func:`hooklint.pipeline.lint_paths` would give for ``paths`` under ``config`` (with
    ``baseline`` applied), when the result cache holds the run whole and nothing it depends on
    changed (:meth:`ResultCache.lookup_run`); None otherwise: caching off, stdin or a stream among
    the paths, no entry, a changed input, or the run's deadline passing meanwhile. It imports no
    stage after the result cache's own (the command line asks it before loading the checks, so a
    run over an unchanged tree costs its start-up and a stat pass). Raises
    :class:`~hooklint.suppression.BaselineError` for a baseline that cannot be read, as
    ``lint_paths`` does."""
    linting(paths)  # a cache folder among them is not used (hooklint.files.cache_refusal)
    cache = run_cache(config)
    if cache is None or any(p == STDIN or is_stream(p) for p in paths):
        return None
    with deadline.running(config.run_timeout):
        known = None
        if baseline is not None:
            from hooklint.suppression.baseline import load_baseline  # noqa: PLC0415 - with a baseline only

            known = load_baseline(baseline, config.max_file_size)
        result = cache.lookup_run(list(paths))
        if result is not None and known is not None:
            from hooklint.suppression.baseline import apply_baseline, run_scope  # noqa: PLC0415

            result.stale_baseline = apply_baseline(result, known, scope=run_scope(paths, config.excluded))
        return result


#: The functions of :mod:`os` that :func:`observing` watches: every question hooklint's code (and
#: :mod:`os.path`, :mod:`glob`, :mod:`pathlib`, :mod:`shutil` through them) asks of a path.
_OBSERVED = ("stat", "lstat", "scandir", "listdir", "readlink")


#: The digest of a run entry's input that is a folder only looked at (never listed, never read):
#: its kind, link and real folder stand for it, not its time (``os.path.realpath`` looks at every
#: folder above a path, and ``/tmp``'s time changes all day).
LOOKED_AT = "looked-at"


@dataclasses.dataclass
class Observed:
    """What :func:`observing` saw: the folders listed and the paths looked at, as spelled."""

    listed: set[str] = dataclasses.field(default_factory=set)
    looked: set[str] = dataclasses.field(default_factory=set)


@contextlib.contextmanager
def observing() -> Iterator[Observed]:
    """Yield an :class:`Observed` that receives every path this process asks the file system about
    while the block runs, as spelled: in ``listed`` the folders ``os.scandir`` and ``os.listdir``
    list (``os.walk``, :mod:`glob`), in ``looked`` the paths ``os.stat``, ``os.lstat`` and
    ``os.readlink`` look at (``os.path.exists``, ``isfile``, ``isdir``, ``islink``, ``realpath``,
    :mod:`pathlib` and :mod:`shutil` call them): what a run's result depends on besides the bytes
    it read. A folder listed stands for its entries (its time changes when one is added, removed or
    renamed), a path looked at and missing for its absence. Paths given as descriptors, bytes or
    relative to a folder descriptor (the output writer's) are not recorded. Nested (a run's, then
    each application's): every block running receives each path, through one wrapper of each
    function; the functions are restored when the outermost block ends."""
    seen = Observed()
    outermost = not OBSERVERS
    if outermost:
        _originals.update({name: getattr(os, name) for name in _OBSERVED})
        for name, call in _originals.items():
            setattr(os, name, _watched(call, name in ("scandir", "listdir")))
    sets = (seen.listed, seen.looked)
    OBSERVERS.append(sets)  # hooklint.files.note_looked: what the run's memos answer, too
    try:
        yield seen
    finally:
        OBSERVERS.remove(sets)
        if outermost:
            for name, call in _originals.items():
                setattr(os, name, call)
            _originals.clear()


#: The functions :func:`observing` wrapped, while a block runs.
_originals: dict[str, Any] = {}


def _watched(call: Any, listing: bool) -> Any:
    """``call`` (an :mod:`os` function of :data:`_OBSERVED`) telling every :func:`observing` block
    running the path it is given: into ``listed`` for a listing, else ``looked``."""
    def observed(path: Any = ".", *args: Any, **kwargs: Any) -> Any:
        if isinstance(path, (str, os.PathLike)) and kwargs.get("dir_fd") is None:
            spelled = os.fspath(path)
            if isinstance(spelled, str):
                for listed, looked in OBSERVERS:
                    (listed if listing else looked).add(spelled)
        return call(path, *args, **kwargs)

    return observed


def run_cache(config: Config) -> ResultCache | None:
    """The result cache of a run under ``config``, or None when caching is off
    (``HOOKLINT_CACHE_DIR=off``, ``--no-cache``), with ``--fetch``, or for a configuration that
    cannot be written as a key."""
    folder = cache_dir()
    if folder is None or config.fetch:
        return None
    try:
        settings = [[f.name, canonical(getattr(config, f.name))] for f in dataclasses.fields(config)
                    if f.name not in _NOT_IN_KEY]  # fmt: skip
        # the YAML library reads every file: its files are in the key (not imported for it: a run
        # answered whole never parses), and so is whether its C loader is there to be used
        described = json.dumps([RESULT_FORMAT, __version__, sys.version, package_identity("yaml"), os.getcwd(),
                                settings, code_signature(), _renderer_signature(), _environment()],
                               separators=(",", ":"))  # fmt: skip
    except (Uncacheable, ValueError, TypeError, OSError):
        return None
    return ResultCache(os.path.join(folder, "results"), hashlib.sha256(described.encode("utf-8", "surrogatepass")).hexdigest())


# --- an outcome as JSON and back -----------------------------------------------------------------


def _finding_json(f: Finding) -> list[Any]:
    return [f.rule_id, f.slug, f.severity, f.message, f.path, [f.span.line, f.span.column, f.span.end_line, f.span.end_column],
            [f.obj.api_version, f.obj.kind, f.obj.name, f.obj.generate_name, f.obj.namespace] if f.obj else None,
            [list(f.hook.phases), f.hook.wave] if f.hook else None, f.field_path, f.doc_index,
            [f.suppression.kind, f.suppression.reason, f.suppression.line, list(f.suppression.names)]
            if f.suppression else None, list(f.related)]  # fmt: skip


def _finding_of(data: list[Any]) -> Finding:
    rule_id, slug, severity, message, path, span, obj, hook, field_path, doc_index, suppression, related = data
    return Finding(rule_id, slug, severity, message, path, Span(*span), ObjectRef(*obj) if obj is not None else None,
                   HookRef(tuple(hook[0]), hook[1]) if hook is not None else None, field_path, doc_index,
                   _suppression_of(suppression) if suppression is not None else None, tuple(related))  # fmt: skip


def _suppression_of(data: list[Any]) -> Suppression:
    kind, reason, line, names = data
    return Suppression(kind, reason, line, tuple(names))


def _outcome_json(outcome: tuple) -> dict[str, Any]:
    findings, errors, files, skipped, renderer, unrendered, _, stored = outcome
    # "secrets": whether it has Secrets whose values redact the run's other applications (never the
    # values): such an entry is a miss for lookup (the application is linted again), its inputs
    # still serve the whole run's entry
    return {"findings": [_finding_json(f) for f in findings], "errors": [[e.path, e.message] for e in errors],
            "files": files, "skipped": [[p, s.detail, s.kind.name, s.through, s.subject] for p, s in skipped],
            "renderer": renderer, "unrendered": unrendered, "secrets": bool(stored)}  # fmt: skip


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
    return findings, errors, files, skipped, renderer, unrendered, None, ()


def _run_result_json(result: RunResult) -> dict[str, Any]:
    return {"findings": [_finding_json(f) for f in result.findings],
            "suppressed": [_finding_json(f) for f in result.suppressed],
            "errors": [[e.path, e.message] for e in result.errors], "files": result.files, "skipped": result.skipped,
            "skipped_files": [[p, s.detail, s.kind.name, s.through, s.subject] for p, s in result.skipped_files],
            "notices": list(result.notices), "renderers": list(result.renderers), "helm": result.helm}  # fmt: skip


def _run_result_of(data: dict[str, Any]) -> RunResult:
    """The result :func:`_run_result_json` wrote (TypeError, KeyError, ValueError: a corrupt entry)."""
    result = RunResult(findings=[_finding_of(f) for f in data["findings"]],
                       suppressed=[_finding_of(f) for f in data["suppressed"]],
                       errors=[InputError(p, m) for p, m in data["errors"]], files=data["files"], skipped=data["skipped"],
                       skipped_files=[(p, Skip(detail, SkipKind[kind], through, subject))
                                      for p, detail, kind, through, subject in data["skipped_files"]],
                       notices=data["notices"], renderers=data["renderers"], helm=data["helm"])  # fmt: skip
    if not all(isinstance(v, int) for v in (result.files, result.skipped)) or not isinstance(result.notices, list) \
            or not all(isinstance(v, str) for v in result.notices + result.renderers) \
            or not isinstance(result.helm, (dict, type(None))):
        raise ValueError("corrupt entry")
    for f in result.findings + result.suppressed:
        if not all(isinstance(v, str) for v in (f.rule_id, f.slug, f.severity, f.message, f.path)):
            raise ValueError("corrupt entry")
    return result
