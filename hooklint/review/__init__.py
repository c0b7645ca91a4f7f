"""Reviewing a change: ``hooklint diff BASE [PATH...]`` (issue 12).

Both sides of a change are linted and planned as a lint run would (the rendering stage and the
configuration apply to both): the base revision is read from git into a temporary folder (``git
archive``), the head is the working tree as it is, or another revision read the same way
(``--head``). Nothing in the working tree is touched. Findings are matched by their ``hooklint/v1``
fingerprint (:func:`hooklint.reporters.sarif.fingerprints`: rule, path, object and field, never the
line), then by object and field alone, so a finding that only moved, or whose file was renamed, is
unchanged; an application that renders on one side only is not compared. Plans are compared object by object: tasks added,
removed, moved to another step (phase and wave), and changed hook types or delete policies.

This module sits after the reporters in the pipeline's layout: it runs the pipeline twice and reuses
the reporters' fingerprints and plan shapes; :mod:`hooklint.review.markdown` and
:mod:`hooklint.review.report` print what it finds.
"""

from __future__ import annotations

import dataclasses
import io
import os
import subprocess
import tarfile
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from hooklint.catalog import Catalog
from hooklint.config import Config, PathFilter
from hooklint.findings import Finding, InputError, RunResult
from hooklint.engine import Engine
from hooklint.pipeline import PlannedApplication, lint_application, lint_paths, plan_paths
from hooklint.reporters.plan import plan_dict
from hooklint.reporters.sarif import fingerprints, identity
from hooklint.sources import group_applications
from hooklint.sources.applications import git_remote_urls


class ReviewError(Exception):
    """Not a git repository, an unknown revision, git missing: one line for the user (exit 2)."""


@dataclass(slots=True)
class Side:
    """One side of the change: its revision (``None``: the working tree), lint result and plans."""

    revision: str | None
    result: RunResult
    plans: list[PlannedApplication]


@dataclass(slots=True)
class Review:
    """What a change does: ``new`` and ``fixed`` findings (head and base findings, in report
    order), how many are ``unchanged``, the ``plan_changes`` per application (see
    :func:`plan_changes`), both sides, the input errors of the head, and the applications not
    compared because they did not render on one side."""

    base: Side
    head: Side
    new: list[Finding] = field(default_factory=list)
    fixed: list[Finding] = field(default_factory=list)
    unchanged: int = 0
    plan_changes: list[dict[str, Any]] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    #: Applications that did not render on one side: neither their findings nor plans are compared.
    not_compared: list[str] = field(default_factory=list)


def _git(args: list[str], cwd: str, binary: bool = False) -> Any:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=120, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise ReviewError("git is not installed") from None
    except subprocess.TimeoutExpired:
        raise ReviewError(f"git {args[0]} took longer than 120 s") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ReviewError(message[0] if message else f"git {args[0]} failed")
    return done.stdout if binary else done.stdout.decode("utf-8", "replace").strip()


def repository(cwd: str) -> tuple[str, str]:
    """``(top folder, prefix)`` of the git repository holding ``cwd``: the prefix is ``cwd``
    relative to the top (``""`` or ``"deploy/"``). Raises :class:`ReviewError`."""
    try:
        top = _git(["rev-parse", "--show-toplevel"], cwd)
    except ReviewError as exc:
        if "not a git repository" in str(exc).lower():
            raise ReviewError(f"{cwd} is not in a git repository: hooklint diff compares git revisions") from None
        raise
    return top, _git(["rev-parse", "--show-prefix"], cwd)


def resolve_revision(top: str, revision: str) -> str:
    """The commit id of ``revision``. Raises :class:`ReviewError` for an unknown revision."""
    try:
        return _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}"], top)
    except ReviewError:
        raise ReviewError(f"unknown revision {revision!r}: give a commit, branch or tag of this repository") from None


@contextmanager
def checkout(top: str, commit: str) -> Iterator[str]:
    """A temporary folder holding the tree of ``commit`` (``git archive``; no ``.git``, nothing
    of the working tree), removed afterwards. Members that would land outside it are refused."""
    data = _git(["archive", "--format=tar", commit], top, binary=True)
    with tempfile.TemporaryDirectory(prefix="hooklint-diff-") as folder:
        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            if hasattr(tarfile, "data_filter"):  # Python 3.12, and 3.10.12 / 3.11.4 onwards
                archive.extractall(folder, filter="data")
            else:
                archive.extractall(folder, members=_safe_members(archive))
        # an empty .git marks the copy as the repository's top, as in the working tree (renderers'
        # boundary, the search for Application manifests); the remotes come from the configuration
        os.makedirs(os.path.join(folder, ".git"), exist_ok=True)
        yield folder


def _safe_members(archive: tarfile.TarFile) -> Iterator[tarfile.TarInfo]:
    """Regular files, folders and symlinks that stay inside the extraction folder (what the
    ``data`` filter keeps), for Pythons without it."""
    for member in archive.getmembers():
        name = os.path.normpath(member.name)
        if name.startswith(("..", "/")) or not (member.isfile() or member.isdir() or member.issym()):
            continue
        if member.issym():
            target = os.path.normpath(os.path.join(os.path.dirname(name), member.linkname))
            if os.path.isabs(member.linkname) or target.startswith(".."):
                continue
        yield member


@contextmanager
def _inside(folder: str) -> Iterator[None]:
    old = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(old)


def _rebased(config: Config, top: str, folder: str) -> Config:
    """``config`` with its ``exclude`` and ``per-path-ignores`` globs, relative to the
    configuration file's folder in the repository at ``top``, made relative to the same folder of
    the copy at ``folder``."""
    if os.path.abspath(folder) == os.path.abspath(top):
        return config

    def move(path_filter: PathFilter) -> PathFilter:
        relative = os.path.relpath(path_filter.base, top)
        if relative == ".." or relative.startswith(".." + os.sep):
            return path_filter
        return PathFilter(os.path.join(folder, relative), path_filter.patterns)

    return dataclasses.replace(config, exclude=move(config.exclude),
                               per_path_ignores=[(move(f), rules) for f, rules in config.per_path_ignores])  # fmt: skip


def _side(folder: str, revision: str | None, paths: list[str], config: Config, catalog: Catalog, top: str) -> Side:
    """Lint and plan ``paths`` (relative to the repository's top) inside ``folder``. A path that
    does not exist on this side (a folder added or removed by the change) is left out."""
    config = _rebased(config, top, folder)
    with _inside(folder):
        present = [p for p in paths if os.path.lexists(p)] if paths != ["."] else ["."]
        if not present:
            return Side(revision, RunResult(), [])
        result = lint_paths(present, config, catalog)
        plans, _ = plan_paths(present, config)
    return Side(revision, result, plans)


def review(base: str, paths: list[str], config: Config, catalog: Catalog, head: str | None = None,
           cwd: str | None = None) -> Review:  # fmt: skip
    """Compare revision ``base`` with the working tree (or revision ``head``) for ``paths``
    (relative to ``cwd``, default the current directory; none: the whole repository). Raises
    :class:`ReviewError` for git problems. Paths in the result are relative to the repository's
    top folder on both sides."""
    cwd = os.path.abspath(cwd or os.getcwd())
    top, prefix = repository(cwd)
    relative = [os.path.normpath(os.path.join(prefix, p)) for p in paths] or ["."]
    for p in relative:
        if p.startswith(".."):
            raise ReviewError(f"{p}: outside the repository {top}")
    base_commit = resolve_revision(top, base)
    head_commit = resolve_revision(top, head) if head is not None else None
    # both sides know this repository's URLs (the temporary folders have no .git)
    _, urls = git_remote_urls(top)
    config.repo_urls = list(dict.fromkeys([*config.repo_urls, *urls]))
    with checkout(top, base_commit) as base_folder:
        if head_commit is None:
            _exists_on_a_side(relative, base_folder, base, top, None)
        base_side = _side(base_folder, base, relative, config, catalog, top)
        if head_commit is None:
            head_side = _side(top, None, relative, config, catalog, top)
            return compare(base_side, head_side, lambda side, key: _findings_of(
                base_folder if side is base_side else top, key, relative, config, catalog, top))
        with checkout(top, head_commit) as head_folder:
            _exists_on_a_side(relative, base_folder, base, head_folder, head)
            head_side = _side(head_folder, head, relative, config, catalog, top)
            return compare(base_side, head_side, lambda side, key: _findings_of(
                base_folder if side is base_side else head_folder, key, relative, config, catalog, top))


def _exists_on_a_side(paths: list[str], base_folder: str, base: str, head_folder: str, head: str | None) -> None:
    """Raise :class:`ReviewError` for a path (relative to the repository's top) that exists on
    neither side (``head`` None: the working tree): a typo would otherwise compare nothing with
    nothing and pass."""
    for p in paths:
        if p == "." or os.path.lexists(os.path.join(base_folder, p)):
            continue
        if not os.path.lexists(os.path.join(head_folder, p)):
            where = f"{base} nor in {head}" if head is not None else f"{base} nor in the working tree"
            raise ReviewError(f"{p}: no such file or directory in {where}")


def _findings_of(folder: str, key: str, paths: list[str], config: Config, catalog: Catalog, top: str) -> list[Finding]:
    """The findings of application ``key`` alone, on the side checked out at ``folder``."""
    config = _rebased(config, top, folder)
    with _inside(folder):
        present = [p for p in paths if os.path.lexists(p)] if paths != ["."] else ["."]
        engine = Engine(config, catalog)
        for app in group_applications(present, [], [], config.repo_urls, excluded=config.exclude or None, config=config):
            if app.key == key:
                return [f for f in lint_application(engine, app)[0] if f.suppression is None]
    return []


def _unrendered(side: Side) -> set[str]:
    """The kustomize and Helm applications of ``side`` that did not render (HL007, HL008, HL009)."""
    return {p.key for p in side.plans if p.source_type not in ("directory",) and p.renderer is None}


def _loose_identity(f: Finding) -> tuple[str, ...]:
    """A finding's identity without its file: what a rename keeps."""
    return identity(f, "")


def compare(base: Side, head: Side, findings_of: Callable[[Side, str], list[Finding]]) -> Review:
    """The :class:`Review` of two linted sides. Findings match by fingerprint, then, for what is
    left, by identity without the file (a renamed or moved file keeps its findings). An
    application that did not render on one side (HL007, HL008, HL009) is not compared: its findings on the
    other side (``findings_of(side, key)``) are neither new nor fixed, and its plan is not
    diffed; ``not_compared`` names it."""
    out = Review(base, head)
    out.not_compared = sorted(_unrendered(base) ^ _unrendered(head))
    skip_base = {fingerprint for key in sorted(_unrendered(head) - _unrendered(base))
                 for fingerprint in _prints(findings_of(base, key))}  # fmt: skip
    skip_head = {fingerprint for key in sorted(_unrendered(base) - _unrendered(head))
                 for fingerprint in _prints(findings_of(head, key))}  # fmt: skip
    base_fps = dict(zip(_prints(base.result.findings), base.result.findings))
    head_fps = dict(zip(_prints(head.result.findings), head.result.findings))
    new = [f for fp, f in head_fps.items() if fp not in base_fps and fp not in skip_head]
    fixed = [f for fp, f in base_fps.items() if fp not in head_fps and fp not in skip_base]
    out.unchanged = sum(1 for fp in head_fps if fp in base_fps)
    # a renamed file: the same finding on the same object and field, elsewhere
    waiting: dict[tuple[str, ...], list[Finding]] = {}
    for f in fixed:
        waiting.setdefault(_loose_identity(f), []).append(f)
    out.new = []
    for f in new:
        twins = waiting.get(_loose_identity(f))
        if twins:
            twins.pop(0)
            out.unchanged += 1
        else:
            out.new.append(f)
    left = {id(f) for twins in waiting.values() for f in twins}
    out.fixed = [f for f in fixed if id(f) in left]
    keep = set(out.not_compared)
    out.plan_changes = plan_changes([p for p in base.plans if p.key not in keep], [p for p in head.plans if p.key not in keep])
    out.errors = head.result.errors
    return out


def _prints(findings: list[Finding]) -> list[str]:
    return fingerprints(findings, (f.path for f in findings))


def _task_key(task: dict[str, Any]) -> tuple[str, str, str, str]:
    """An object's identity as Argo CD keys it (``kube.ResourceKey``: group, kind, namespace,
    name): ``apps/v1beta2`` -> ``apps/v1`` is the same Deployment."""
    name = task["name"] or (f"{task['generate_name']}*" if task["generate_name"] else "")
    api_version = task["api_version"] or ""
    group = api_version.split("/", 1)[0] if "/" in api_version else ""
    return (group, task["kind"] or "", task["namespace"] or "", name)


def _tasks(planned: PlannedApplication) -> dict[tuple, list[tuple[dict[str, Any], str, int]]]:
    """Each object of a plan (key: group, kind, namespace, name) with its steps, in order."""
    out: dict[tuple, list[tuple[dict[str, Any], str, int]]] = {}
    for step in plan_dict(planned)["steps"]:
        for task in step["tasks"]:
            out.setdefault(_task_key(task), []).append((task, step["phase"], step["wave"]))
    return out


def plan_changes(base: list[PlannedApplication], head: list[PlannedApplication]) -> list[dict[str, Any]]:
    """Per application (in key order; only those that changed): ``added`` and ``removed`` tasks,
    ``moved`` tasks (``{"task", "from": {"phase", "wave"}, "to": {"phase", "wave"}}``; an object
    that runs in several steps, a hook of several types, moves when its first step moves) and
    ``changed`` tasks (``{"task", "field", "from", "to"}`` for ``hook_types`` and
    ``delete_policies``). Tasks are shaped as in ``hooklint plan -f json``."""
    before = {p.key: _tasks(p) for p in base}
    after = {p.key: _tasks(p) for p in head}
    changes = []
    for key in sorted(set(before) | set(after)):
        old, new = before.get(key, {}), after.get(key, {})
        entry: dict[str, Any] = {"application": key, "added": [], "removed": [], "moved": [], "changed": []}
        for obj in new:
            if obj not in old:
                entry["added"].extend(task for task, _, _ in new[obj][:1])
        for obj in old:
            if obj not in new:
                entry["removed"].extend(task for task, _, _ in old[obj][:1])
        for obj in new:
            if obj not in old:
                continue
            (task, phase, wave), (was, old_phase, old_wave) = new[obj][0], old[obj][0]
            if (phase, wave) != (old_phase, old_wave):
                entry["moved"].append({"task": task, "from": {"phase": old_phase, "wave": old_wave},
                                       "to": {"phase": phase, "wave": wave}})  # fmt: skip
            for name in ("hook_types", "delete_policies"):
                if was.get(name, []) != task.get(name, []):
                    entry["changed"].append({"task": task, "field": name, "from": was.get(name, []),
                                             "to": task.get(name, [])})  # fmt: skip
        if any(entry[k] for k in ("added", "removed", "moved", "changed")):
            changes.append(entry)
    return changes
