"""Reviewing a change: ``hooklint diff BASE [PATH...]`` (issue 12).

Both sides of a change are linted and planned as a lint run would (the rendering stage and the
configuration apply to both): the base revision is read from git into a temporary folder (``git
ls-tree`` and ``git cat-file --batch``: no attributes, filters or network; :func:`checkout`), the head is the working tree as it is, or another revision read the same way
(``--head``). Nothing in the working tree is touched. The repository must be one repository
(:func:`one_repository`: no alternates, ``gitdir:`` file, worktree, replace refs or grafts), and
the policy is the base's (:func:`_policy`). Findings are matched by their ``hooklint/v1``
fingerprint (:func:`hooklint.findings.fingerprints`: rule, path, object and field, never the
line), then by object and field alone, so a finding that only moved, or whose file was renamed, is
unchanged, each only when it says the same thing (its message) and only where Argo CD deploys it (the same Application on the same cluster:
:func:`_same_place`), then in the same file by rule, kind, name and field when only one side knows the object's
namespace (:func:`_namespace_became_known`). A ``# hooklint: ignore`` comment or ``hooklint.io/ignore``
annotation the change did not write covers only the findings the base had under it; any other
finding it hides is new (:func:`_not_covered`). An application that renders on one side only cannot be compared and never passes
unseen (:func:`compare`: what the base did not render is all new). A base finding whose
object is still there but no longer runs as a hook (a typo in its hook type, ``Skip``) is not fixed:
hook rules no longer look at the object, so it is reported as "no longer checked", with why. Plans
are compared object by object: tasks added (with their step), removed, moved to another step
(phase and wave), leaving every step while staying in the application (an ignored hook: with the
reason), and changed hook types or delete policies.

This module sits after the reporters in the pipeline's layout: it runs the pipeline twice and reuses
the reporters' fingerprints and plan shapes; :mod:`hooklint.review.markdown` and
:mod:`hooklint.review.report` print what it finds.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import json
import os
import re
import stat
import subprocess
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from hooklint.catalog import Catalog
from hooklint.config import DEFAULT_MAX_FILE_SIZE, Config, ConfigError, PathFilter, check_found, find_config_for
from hooklint.files import read_bytes, temporary_folder, walk_tree
from hooklint.loader import within as within_folder
from hooklint.findings import Finding, InputError, RunResult, fingerprints, identity
from hooklint.pipeline import PlannedApplication, lint_paths
from hooklint.reasons import SkipKind
from hooklint.reporters.plan import plan_dict
from hooklint.sources.repository.git import git_remote_urls, git_root
from hooklint.sources.repository.submodules import register, unregister
from hooklint.sources.sandbox import distrust, find_program, program_path
from hooklint.suppression import SUPPRESS_ANNOTATION, UNUSED_SUPPRESSION
from hooklint.text import url_credentials


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
    order), the base findings ``no_longer_checked`` (each with why: its object left the scope of
    hook rules), how many are ``unchanged``, the ``plan_changes`` per application (see
    :func:`plan_changes`), both sides, the input errors of the head, and the applications not
    compared because they did not render on one side."""

    base: Side
    head: Side
    new: list[Finding] = field(default_factory=list)
    fixed: list[Finding] = field(default_factory=list)
    no_longer_checked: list[tuple[Finding, str]] = field(default_factory=list)
    #: The head's suppressed findings that the base did not suppress: the change adds the
    #: ``hooklint.io/ignore`` or ``# hooklint: ignore`` that hides them (shown to the reviewer, never
    #: counted as fixed nor failing the run: a suppression is an acceptance someone must see).
    suppressed: list[Finding] = field(default_factory=list)
    #: Why each of the ``new`` findings that a comment or annotation the change did not write hides
    #: on the head is new (:func:`_not_covered`), by the finding's ``id``: ``Not covered by the
    #: comment suppression at a.yaml:19: ...``. Those findings are in ``new`` without their suppression.
    not_covered: dict[int, str] = field(default_factory=dict)
    unchanged: int = 0
    plan_changes: list[dict[str, Any]] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    #: Applications that did not render on one side: neither their findings nor plans are compared.
    not_compared: list[str] = field(default_factory=list)
    #: What a revision holds that was not compared (submodules; see :func:`checkout`) and the
    #: configuration of the change that was ignored (:func:`_policy`), one line each; every report
    #: shows them (JSON ``notes``), and the command line on stderr.
    notes: list[str] = field(default_factory=list)
    #: The configuration both sides were checked with (the base's when the change edits it:
    #: :func:`_policy`); its ``fail-on`` decides the exit code. None: the one the caller gave.
    policy: Config | None = None


#: Seconds any one git command may take.
GIT_TIMEOUT = 120


def _git_program(repository: str) -> str | None:
    """The absolute path of the ``git`` hooklint runs: the first in ``PATH`` whose resolved file
    is outside ``repository`` (the work tree's root, or the folder git is run in), skipping empty,
    relative and in-repository elements (:func:`hooklint.sources.sandbox.find_program`): a
    pull request's ``bin/git`` is never run, whatever ``PATH`` says. None when there is none."""
    return find_program("git", repository)


def _repository_of(cwd: str) -> str:
    """The work tree ``cwd`` is in (the nearest folder above it holding ``.git``), else ``cwd``;
    no program is taken from inside it for the rest of the run (renderers included, which run on
    checkouts elsewhere: :func:`hooklint.sources.sandbox.distrust`)."""
    top = git_root(os.path.abspath(cwd)) or os.path.abspath(cwd)
    distrust(top)
    return top


def _safe_directories(repository: str) -> list[str]:
    """The ``safe.directory`` values of the user's own (system and global) git configuration:
    :func:`_git` runs git without that configuration, but a checkout owned by another user (a CI
    container) must still be readable where the user said it may be. Read outside any repository,
    so no repository configuration is involved; nothing is run but ``git config``."""
    git = _git_program(repository)
    if git is None:
        return []
    try:
        done = subprocess.run([git, "config", "--get-all", "safe.directory"], cwd=os.path.sep, capture_output=True,
                              timeout=GIT_TIMEOUT, stdin=subprocess.DEVNULL,
                              env={**os.environ, "PATH": program_path(repository)})  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [v for v in done.stdout.decode("utf-8", "replace").splitlines() if v and "\n" not in v]


@contextmanager
def _git_command(args: list[str], repository: str) -> Iterator[tuple[list[str], dict[str, str]]]:
    """The command line and environment that run ``git ARGS`` so that nothing of the repository,
    of the user's configuration or of the network can take part: no system or global
    configuration (``GIT_CONFIG_NOSYSTEM``, ``GIT_CONFIG_GLOBAL=/dev/null``, ``HOME`` and
    ``XDG_CONFIG_HOME`` an empty temporary folder, removed afterwards), no attributes file
    (``GIT_ATTR_NOSYSTEM``, ``core.attributesFile=/dev/null``), no transport at all
    (``GIT_ALLOW_PROTOCOL`` empty, ``protocol.allow=never``: a partial clone cannot fetch a missing
    object; ``GIT_NO_LAZY_FETCH`` says so to git 2.44 and later), no prompt (``core.askPass`` and
    ``credential.helper`` emptied), no fsmonitor, no hooks, no pager (``--no-pager``), no replace
    objects, no automatic gc or maintenance. The repository's own configuration is still read by git
    (after :func:`one_repository` refused an include of anything but a regular file, and a work tree
    elsewhere), which is why only
    commands that run neither filters, textconv, hooks, editors nor transports are used
    (``rev-parse``, ``ls-tree``, ``cat-file --batch``, ``for-each-ref``, ``config --file``)."""
    with tempfile.TemporaryDirectory(prefix="hooklint-git-home-") as home:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in ("GIT_DIR", "GIT_WORK_TREE")}
        env.update(HOME=home, XDG_CONFIG_HOME=home, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull,
                   GIT_ATTR_NOSYSTEM="1", GIT_ALLOW_PROTOCOL="", GIT_NO_LAZY_FETCH="1", GIT_TERMINAL_PROMPT="0",
                   GIT_NO_REPLACE_OBJECTS="1", GIT_OPTIONAL_LOCKS="0", GIT_PAGER="cat", LC_ALL="C")  # fmt: skip
        options = ["--no-pager", "-c", f"core.attributesFile={os.devnull}", "-c", "protocol.allow=never",
                   "-c", "core.fsmonitor=false", "-c", "core.hooksPath=" + os.devnull, "-c", "core.useReplaceRefs=false",
                   "-c", "core.pager=cat", "-c", "credential.helper=", "-c", "core.askPass=", "-c", "gc.auto=0",
                   "-c", "maintenance.auto=false"]  # fmt: skip
        for directory in _safe_directories(repository):
            options += ["-c", f"safe.directory={directory}"]
        env["PATH"] = program_path(repository)  # nothing git starts is looked up in the repository
        git = _git_program(repository)
        if git is None:
            raise ReviewError("git is not installed (none in PATH outside the repository)")
        yield [git, *options, *args], env


def _git(args: list[str], cwd: str, binary: bool = False) -> Any:
    """Run ``git ARGS`` in ``cwd`` (:func:`_git_command`) and return its output (text, stripped,
    or bytes). Raises :class:`ReviewError` with git's first line of error."""
    with _git_command(args, _repository_of(cwd)) as (command, env):
        try:
            done = subprocess.run(command, cwd=cwd, capture_output=True, timeout=GIT_TIMEOUT, stdin=subprocess.DEVNULL,
                                  env=env)  # fmt: skip
        except FileNotFoundError:
            raise ReviewError("git is not installed") from None
        except subprocess.TimeoutExpired:
            raise ReviewError(f"git {args[0]} took longer than {GIT_TIMEOUT} s") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ReviewError(message[0] if message else f"git {args[0]} failed")
    return done.stdout if binary else done.stdout.decode("utf-8", "replace").strip()


def repository(cwd: str) -> tuple[str, str]:
    """``(top folder, prefix)`` of the git repository holding ``cwd``: the prefix is ``cwd``
    relative to the top (``""`` or ``"deploy/"``). The repository must be one repository
    (:func:`one_repository`; its ``.git`` folder is checked before git first runs). Raises
    :class:`ReviewError`."""
    found = git_root(os.path.abspath(cwd))
    if found is not None:
        _git_folder(found)
    try:
        top = _git(["rev-parse", "--show-toplevel"], cwd)
    except ReviewError as exc:
        if "not a git repository" in str(exc).lower():
            raise ReviewError(f"{cwd} is not in a git repository: hooklint diff compares git revisions") from None
        raise
    one_repository(found or top, cwd, checked=found is not None)
    return top, _git(["rev-parse", "--show-prefix"], cwd)


#: Files of a git directory that make git read objects, history or refs from elsewhere than the
#: repository's own objects (relative to the git directory, with why): alternates, grafts, a
#: linked worktree's ``commondir`` (git's ``repository-layout``: ``objects/info/alternates``,
#: ``objects/info/http-alternates``, ``info/grafts``, ``commondir``).
_ELSEWHERE = {
    "objects/info/alternates": "git reads objects of the repositories it lists",
    "objects/info/http-alternates": "git reads objects of the repositories it lists",
    "info/grafts": "git takes commits' parents from it, not from the commits",
    "commondir": "a linked worktree: its objects and refs are another folder's",
}

#: The include keys of a git configuration file, as ``git config --get-regexp`` lists them (section
#: and key lowercased, an ``includeIf`` condition kept as written): ``include.path`` and
#: ``includeIf.<condition>.path`` (git's ``config.c``). actions/checkout v6 writes one into every
#: checkout (``includeIf "gitdir:..."`` naming its credentials file in the runner's temporary
#: folder), and GitLab Runner 18.6 an ``include.path``: a plain clone in CI has them.
_INCLUDE_KEY = r"^include(if\..*)?\.path$"
#: How deep git follows includes (``config.c``: ``MAX_INCLUDE_DEPTH``).
_MAX_INCLUDE_DEPTH = 10


def _refuse(what: str) -> ReviewError:
    return ReviewError(f"{what}: hooklint diff reads one repository, and nothing that makes git read objects, refs "
                       "or configuration from elsewhere (run it in a plain clone of its own)")  # fmt: skip


def _git_folder(top: str) -> None:
    """Raise :class:`ReviewError` unless ``TOP/.git`` is a plain git folder, judged by its files
    alone (git has not run yet): a folder (not a ``gitdir:`` file, as worktrees and submodules
    have, nor a link); no alternates, grafts or ``commondir`` with an entry (:data:`_ELSEWHERE`);
    a ``config`` (and ``config.worktree``) that is a regular file whose includes name regular files
    (:func:`_includes`); nothing in it a link resolving outside it, a FIFO or a device (git would
    read, or hang on, it)."""
    dot_git = os.path.join(top, ".git")
    if os.path.islink(dot_git):
        raise _refuse(f"{dot_git} is a symbolic link (to {os.readlink(dot_git)})")
    if not os.path.isdir(dot_git):
        raise _refuse(f"{dot_git} is not a folder (a 'gitdir:' file: a worktree, a submodule or another repository)")
    for folder, dirs, files in walk_tree(dot_git):
        for entry in dirs + files:
            path = os.path.join(folder, entry)
            try:
                mode = os.lstat(path).st_mode
            except OSError:  # gone since it was listed (git gc)
                continue
            if stat.S_ISLNK(mode) and not within_folder(os.path.realpath(path), os.path.realpath(dot_git)):
                raise _refuse(f"{path} is a symbolic link to {os.path.realpath(path)}, outside the repository")
            if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
                raise _refuse(f"{path} is not a regular file (a FIFO or a device)")
    for rel, why in _ELSEWHERE.items():
        path = os.path.join(dot_git, rel)
        if not os.path.lexists(path):
            continue
        text = _bytes_of(path) if os.path.isfile(path) else None
        if text is None or any(line.strip() and not line.lstrip().startswith(b"#") for line in text.splitlines()):
            raise _refuse(f"{path}: {why}")
    for name in ("config", "config.worktree"):
        path = os.path.join(dot_git, name)
        if not os.path.lexists(path):
            continue
        text = _bytes_of(path) if os.path.isfile(path) else None
        if text is None:
            raise _refuse(f"{path} is not a regular file")
        _includes(path, top)


def _includes(config: str, top: str, depth: int = 0) -> None:
    """Raise :class:`ReviewError` unless every file the git configuration file ``config`` includes
    (:data:`_INCLUDE_KEY`, read by git's own parser with ``git config --file``, run outside any
    repository, includes not followed; then each included file the same way, as deep as git goes)
    is a regular file or missing (git skips a missing one): a FIFO would hang git, a device feed it
    without end. An included file is configuration (of the checkout, as the CI runner writes it),
    and every key of it that could start a program or reach a network is overridden on git's command
    line (:func:`_git_command`), as the repository's own configuration is."""
    if depth > _MAX_INCLUDE_DEPTH:
        raise _refuse(f"{config}: includes nested more than {_MAX_INCLUDE_DEPTH} deep")
    with _git_command(["config", "--file", config, "--no-includes", "--get-regexp", _INCLUDE_KEY], top) as (
            command, env):  # fmt: skip
        try:
            done = subprocess.run(command, cwd=os.path.sep, capture_output=True, timeout=GIT_TIMEOUT,
                                  stdin=subprocess.DEVNULL, env=env)  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise _refuse(f"{config}: its includes could not be read ({exc})") from None
    if done.returncode not in (0, 1):  # 1: no include key
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise _refuse(f"{config}: {message[0] if message else 'git config failed'}")
    for line in done.stdout.decode("utf-8", "surrogateescape").splitlines():
        value = line.split(" ", 1)[1] if " " in line else ""
        if not value:
            continue
        if value.startswith("~/"):
            target = os.path.join(os.path.expanduser("~"), value[2:])
        else:
            target = os.path.join(os.path.dirname(os.path.abspath(config)), value)
        try:
            mode = os.stat(target).st_mode
        except OSError:  # missing: git skips it
            continue
        if not stat.S_ISREG(mode):
            raise _refuse(f"{config}: an include names {target}, which is not a regular file")
        _includes(target, top, depth + 1)


def one_repository(top: str, cwd: str, checked: bool = False) -> None:
    """Raise :class:`ReviewError` (one line) unless git, run in ``cwd``, reads one repository: the
    one whose work tree is ``top`` (the nearest folder holding ``.git``) and whose git directory is
    ``TOP/.git``, a plain folder (:func:`_git_folder`, unless ``checked``: done before git first
    ran). Refused too: a git directory or work tree elsewhere (``GIT_DIR``, ``core.worktree``, a
    linked worktree: ``git rev-parse --absolute-git-dir --git-common-dir --show-toplevel``) and
    replace refs (``refs/replace/``: ignored by every git hooklint runs, ``GIT_NO_REPLACE_OBJECTS``,
    but a reviewer's git would show them). Issue 32: ``objects/info/alternates`` or a ``gitdir:``
    file made ``diff`` read another repository's objects."""
    if not checked:
        _git_folder(top)
    real = os.path.realpath(os.path.join(top, ".git"))
    answer = _git(["rev-parse", "--absolute-git-dir", "--git-common-dir", "--show-toplevel"], cwd).splitlines()
    if len(answer) != 3:
        raise ReviewError("git rev-parse: unexpected answer for the git directory")
    # --git-common-dir is relative to cwd before git 2.31's --path-format
    git_dir, common, work_tree = (os.path.realpath(os.path.join(cwd, a)) for a in answer)
    if git_dir != real or common != real:
        raise _refuse(f"git reads the repository at {common if common != real else git_dir}, not {real}")
    if work_tree != os.path.realpath(top):
        raise _refuse(f"git's work tree is {work_tree} (core.worktree), not {top}")
    replaced = _git(["for-each-ref", "--count=1", "--format=%(refname)", "refs/replace/"], cwd)
    if replaced:
        raise _refuse(f"{replaced}: a replace ref (git would show another object in place of one of the repository's)")


def resolve_revision(top: str, revision: str) -> str:
    """The commit id of ``revision``. Raises :class:`ReviewError` for an unknown revision."""
    try:
        return _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}"], top)
    except ReviewError:
        raise ReviewError(f"unknown revision {revision!r}: give a commit, branch or tag of this repository") from None


#: ``git ls-tree`` modes: regular files (``100664`` is an old spelling of ``100644``), symbolic
#: links, submodules (gitlinks).
_FILE_MODES = {b"100644": 0o644, b"100664": 0o644, b"100755": 0o755}
_LINK_MODE, _SUBMODULE_MODE = b"120000", b"160000"


@dataclass(slots=True)
class Checkout:
    """A revision's tree written to ``folder``, and what was not written, one line each
    (``notes``: submodules, entries git should never hold)."""

    folder: str
    notes: list[str] = field(default_factory=list)


@contextmanager
def checkout(top: str, commit: str) -> Iterator[Checkout]:
    """A temporary folder holding the tree of ``commit`` (nothing of the working tree; a ``.git``
    folder holding only ``HEAD``, the commit, and ``packed-refs``, the repository's branches and
    tags, so an Application's ``targetRevision`` is compared with the copy's own commit: issue 32),
    removed afterwards, whatever ends the run.

    The tree is read with ``git ls-tree -r -z --full-tree`` and its blobs with ``git cat-file
    --batch``, both run by :func:`_git_command`: no ``.gitattributes`` applies (``git archive``
    ran smudge filters, which git-lfs turns into network fetches, and honoured ``export-ignore``,
    with which a change could hide its own new files from the comparison), no filter, no textconv,
    no transport. Regular files are written byte for byte as stored; symbolic links (mode
    ``120000``) are written as symbolic links with the target stored in the revision, whatever it
    is (absolute, dangling, out of the folder: hooklint's containment judges them as in a working
    tree), after every file, so that no file is ever written through one; submodules (``160000``)
    are not written and are named in ``notes``, as are entries with a ``.``, ``..``, empty or
    ``.git`` path component and entries that clash with another (a crafted tree); the submodules are
    registered as the folder's (:func:`hooklint.sources.repository.submodules.register`: an
    application that reads one is HL009, as in a working tree). Raises
    :class:`ReviewError`: a missing object (a partial clone: nothing is fetched), git failing."""
    listing = _git(["ls-tree", "-r", "-z", "--full-tree", "--end-of-options", commit], top, binary=True)
    with temporary_folder("hooklint-diff-") as scratch:
        # named as the repository's top, as the working tree is: a chart there is named after its
        # folder (its release name), which a random temporary name made invalid on the base side
        folder = os.path.join(scratch, os.path.basename(os.path.normpath(top)) or "repository")
        os.mkdir(folder, 0o700)
        out = Checkout(folder)
        files: list[tuple[bytes, bytes, int]] = []
        links: list[tuple[bytes, bytes]] = []
        gitlinks: list[tuple[str, str]] = []
        for entry in listing.split(b"\0"):
            if not entry:
                continue
            meta, _, path = entry.partition(b"\t")
            mode, kind, oid = (meta.split(b" ") + [b"", b""])[:3]
            shown = path.decode("utf-8", "backslashreplace")
            parts = path.split(b"/")
            if any(p in (b"", b".", b"..") or p.lower() == b".git" for p in parts):
                out.notes.append(f"{shown}: not a path a checkout can hold; not compared")
            elif mode == _SUBMODULE_MODE:
                gitlinks.append((path.decode("utf-8", "surrogateescape"), oid.decode("ascii", "replace")))
                out.notes.append(f"{shown}: a git submodule (commit {oid.decode('ascii', 'replace')[:12]}); hooklint "
                                 "does not read submodules: not compared")  # fmt: skip
            elif mode == _LINK_MODE and kind == b"blob":
                links.append((path, oid))
            elif mode in _FILE_MODES and kind == b"blob":
                files.append((path, oid, _FILE_MODES[mode]))
            else:
                out.notes.append(f"{shown}: git mode {mode.decode('ascii', 'replace')} {kind.decode('ascii', 'replace')}"
                                 "; not compared")  # fmt: skip
        targets: dict[bytes, bytes] = {}
        with _Blobs(top) as blobs:
            for path, oid, mode in files:
                problem = _write_file(folder, path, mode, functools.partial(blobs.copy, oid))
                if problem:
                    out.notes.append(f"{path.decode('utf-8', 'backslashreplace')}: {problem}; not compared")
            for path, oid in links:
                targets[path] = blobs.read(oid, limit=4096)
        for path, target in targets.items():
            problem = _write_link(folder, path, target)
            if problem:
                out.notes.append(f"{path.decode('utf-8', 'backslashreplace')}: {problem}; not compared")
        # an empty .git marks the copy as the repository's top, as in the working tree (renderers'
        # boundary, the search for Application manifests); the remotes come from the configuration
        os.makedirs(os.path.join(folder, ".git"), exist_ok=True)
        # and its HEAD says which commit the copy is, as a checkout's does: an Application's
        # targetRevision naming another commit is not read from the copy (issue 32)
        with open(os.path.join(folder, ".git", "HEAD"), "w", encoding="ascii") as head:
            head.write(commit + "\n")
        # with the repository's branches and tags (annotated ones peeled), so a tag of that commit is
        # known as one (git's packed-refs format, hooklint.sources.repository.git.checked_out reads it)
        listed = _git(["for-each-ref", "--format=%(objectname) %(refname) %(*objectname)", "refs/heads/", "refs/tags/",
                       "refs/remotes/"], top)  # fmt: skip
        with open(os.path.join(folder, ".git", "packed-refs"), "w", encoding="utf-8") as packed:
            for line in listed.splitlines():
                oid, _, rest = line.partition(" ")
                name, _, peeled = rest.partition(" ")
                packed.write(f"{oid} {name}\n" + (f"^{peeled}\n" if peeled.strip() else ""))
        register(folder, gitlinks)  # its .git holds no index: lint reads its submodules from here
        try:
            yield out
        finally:
            unregister(folder)


def _parent(folder: str, path: bytes) -> "bytes | None":
    """The folder ``path`` (relative, ``/``-separated) goes into under ``folder``, made as real
    folders; None when a component of it is already something else (a crafted tree's clash)."""
    parent = os.fsencode(folder)
    for part in path.split(b"/")[:-1]:
        parent = os.path.join(parent, part)
        try:
            os.mkdir(parent, 0o755)
        except FileExistsError:
            if os.path.islink(parent) or not os.path.isdir(parent):
                return None
    return os.path.join(parent, path.split(b"/")[-1])


def _write_file(folder: str, path: bytes, mode: int, fill: Callable[[Any], None]) -> str | None:
    """Create the regular file ``path`` under ``folder`` (never through a link, never over an
    existing entry) and let ``fill(handle)`` write it. Returns a problem or None."""
    target = _parent(folder, path)
    if target is None:
        return "its folder clashes with a file of the same name"
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), mode)
    except OSError as exc:
        return f"cannot be written ({exc.strerror})"
    with os.fdopen(fd, "wb") as handle:
        fill(handle)
    return None


def _write_link(folder: str, path: bytes, target: bytes) -> str | None:
    """Create the symbolic link ``path`` -> ``target`` under ``folder``. Returns a problem or None."""
    if not target or b"\0" in target:
        return "a symbolic link with no usable target"
    where = _parent(folder, path)
    if where is None:
        return "its folder clashes with a file of the same name"
    try:
        os.symlink(target, where)
    except OSError as exc:
        return f"a symbolic link that cannot be made ({exc.strerror})"
    return None


class _Blobs:
    """``git cat-file --batch`` as a context manager: one child process for every blob of a
    revision, asked one object at a time (so neither pipe can fill while the other waits), killed
    on leaving, however the block ends (an error, Ctrl-C, SIGTERM). Each object's answer must come
    within :data:`GIT_TIMEOUT` seconds."""

    CHUNK = 1 << 20

    def __init__(self, top: str) -> None:
        self.top = top
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> "_Blobs":
        self._command = _git_command(["cat-file", "--batch"], _repository_of(self.top))
        command, env = self._command.__enter__()
        try:
            self.process = subprocess.Popen(command, cwd=self.top, env=env, stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)  # fmt: skip
        except FileNotFoundError:
            self._command.__exit__(None, None, None)
            raise ReviewError("git is not installed") from None
        self._timer: Any = None
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.process is not None
        try:
            self.process.kill()
            self.process.wait()
            for pipe in (self.process.stdin, self.process.stdout):
                if pipe is not None:
                    try:
                        pipe.close()
                    except OSError:
                        pass
        finally:
            self._command.__exit__(None, None, None)

    def _ask(self, oid: bytes) -> int:
        """Ask for ``oid``; returns its size, the content waiting on stdout."""
        assert self.process is not None and self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.write(oid + b"\n")
            self.process.stdin.flush()
        except OSError:
            raise ReviewError("git cat-file ended early") from None
        fields = self.process.stdout.readline().split()
        if len(fields) == 2 and fields[1] == b"missing":
            raise ReviewError(f"object {oid.decode('ascii', 'replace')} is not in this clone (a partial or shallow "
                              "clone?): hooklint diff fetches nothing; fetch the revisions it compares first")  # fmt: skip
        if len(fields) != 3 or fields[1] != b"blob" or not fields[2].isdigit():
            raise ReviewError(f"git cat-file: unexpected answer for {oid.decode('ascii', 'replace')}")
        return int(fields[2])

    def copy(self, oid: bytes, handle: Any, limit: int | None = None) -> None:
        """Write blob ``oid`` to ``handle``, a megabyte at a time (only its first ``limit`` bytes,
        when given; the rest is read and dropped). Raises :class:`ReviewError`; git is killed when
        one object takes longer than :data:`GIT_TIMEOUT` seconds."""
        import threading

        assert self.process is not None and self.process.stdout is not None
        timer = threading.Timer(GIT_TIMEOUT, self.process.kill)
        timer.daemon = True
        timer.start()
        try:
            left = self._ask(oid)
            kept = 0
            while left:
                data = self.process.stdout.read(min(left, self.CHUNK))
                if not data:
                    raise ReviewError("git cat-file ended early")
                if limit is None or kept < limit:
                    handle.write(data if limit is None else data[: limit - kept])
                    kept += len(data)
                left -= len(data)
            self.process.stdout.read(1)  # the newline after each object
        finally:
            timer.cancel()

    def read(self, oid: bytes, limit: int) -> bytes:
        """The first ``limit`` bytes of blob ``oid`` (a link's target)."""
        buffer = io.BytesIO()
        self.copy(oid, buffer, limit)
        return buffer.getvalue()


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
        return path_filter.moved(top, folder)

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
        result = lint_paths(present, config, catalog, plans=True)
    return Side(revision, result, result.plans)


def _policy(config: Config, reload: Callable[[str | None], Config], top: str, base_folder: str, head_folder: str,
            paths: list[str], base: str, broken: str | None = None) -> tuple[Config, list[str]]:  # fmt: skip
    """The configuration both sides are checked with, and the notes saying what of the change's
    configuration was ignored. The policy of a review is ``base``'s: the configuration file
    :func:`hooklint.config.find_config_for` finds for ``paths`` (relative to the top) in the base's
    copy at ``base_folder`` (the root's, or one nearer to a path; ``reload(path)``: that file, or the
    defaults for None, with the command line's options), its globs moved to the same folder of the
    repository at ``top``. Else a pull request could turn off the very check that reviews it: a
    ``.hooklint.yaml`` of ``fail-on: never`` (helper trial), or one the change adds nearer to the
    reviewed path, ``app/.hooklint.yaml`` with the defaults (issue 32: the Action's ``paths: app``
    reviewed a docker.io PreSync Job as 0 new findings). Each file that applies on either side
    (found on the head at ``head_folder``, or on the base) and that the change adds, edits or deletes
    is named in a note, as ignored; ``broken`` (why the working tree's configuration did not load: a
    second file beside it, invalid YAML; it was exit 2, second helper trial) and a head whose
    configuration does not load are said too, as is, with ``--head``, a working tree's file that is
    neither side's. ``config`` (the one found from the working tree) is kept when it is the base's
    file, byte for byte. Raises :class:`ReviewError` when the base's does not load."""
    base_rel = _found_config(base_folder, head_folder, paths, base)
    notes: list[str] = []
    if broken is not None:
        notes.append(f"the configuration does not load here ({broken}), ignored")
    try:
        head_rel = _found_config(head_folder, head_folder, paths, None)
    except ReviewError as exc:
        head_rel = None
        if broken is None:  # else said: the working tree's (the head, or like it) does not load
            notes.append(f"the configuration does not load on the change's side ({exc}), ignored")
    for rel in dict.fromkeys(r for r in (head_rel, base_rel) if r is not None):
        head_bytes, base_bytes = _policy_of(os.path.join(head_folder, rel)), _policy_of(os.path.join(base_folder, rel))
        if head_bytes != base_bytes:
            verb = "adds" if base_bytes is None else "deletes" if head_bytes is None else "edits"
            notes.append(f"the change {verb} {rel}, ignored")
    found = os.path.realpath(config.path) if config.path else None
    real_top = os.path.realpath(top)
    working = os.path.relpath(found, real_top) if found is not None and within_folder(found, real_top) else None
    kept = broken is None and working == base_rel and (base_rel is None or _policy_of(os.path.join(top, base_rel)) ==
                                                       _policy_of(os.path.join(base_folder, base_rel)))  # fmt: skip
    if not kept and broken is None and working is not None and working not in (head_rel, base_rel) and _policy_of(
            os.path.join(top, working)) != _policy_of(os.path.join(base_folder, working)):  # fmt: skip
        # the one found from the current folder (hooklint diff run in app/, no path: the whole
        # repository is reviewed), or with --head the working tree's own file, neither side's
        if os.path.abspath(head_folder) == os.path.abspath(top):
            verb = "adds" if _policy_of(os.path.join(base_folder, working)) is None else "edits"
            notes.append(f"the change {verb} {working}, ignored")
        else:
            notes.append(f"the working tree's {working} is not {base}'s, ignored")
    used = base_rel if base_rel is not None else "none: the defaults"
    notes = [f"{n}: both revisions are checked with {base}'s configuration ({used}), the policy in force (land a "
             "change to the policy on its own first, or pass --config)" for n in notes]  # fmt: skip
    policy = config if kept else _load_base(reload, config, base_rel, top, base_folder, base)
    if policy.baseline:  # hooklint's own baseline is JSON in the repository, not a manifest (as lint has it)
        policy = dataclasses.replace(policy, exclude=policy.exclude.with_files([policy.baseline]))
    return policy, notes


def _named(config: Config, top: str, base_folder: str, head_folder: str) -> list[str]:
    """A note when the configuration named with ``--config`` is a file of the repository that the
    change adds, edits or deletes: it is used as named (the user's choice), but a reviewer must see
    that the change wrote the policy that reviews it (a workflow's ``--config ci/.hooklint.yaml``)."""
    found = os.path.realpath(config.path) if config.path else None
    if found is None or not within_folder(found, os.path.realpath(top)):
        return []
    rel = os.path.relpath(found, os.path.realpath(top))
    head, was = _policy_of(os.path.join(head_folder, rel)), _policy_of(os.path.join(base_folder, rel))
    if head == was:
        return []
    verb = "adds" if was is None else "deletes" if head is None else "edits"
    return [f"the change {verb} {rel}, named with --config: used as named, so the change wrote the policy that "
            "reviews it"]


def _found_config(folder: str, head_folder: str, paths: list[str], base: str | None) -> str | None:
    """The configuration file (relative to the top) that :func:`hooklint.config.find_config_for`
    finds for ``paths`` in the tree at ``folder`` (a path that is a folder on either side is
    searched from itself, else from its folder), or None. Raises :class:`ReviewError` when it does
    not load (two files in one folder, two paths configured by different files, a link out), its
    message starting with ``base:`` when given and naming files relative to the top."""
    starts = [p if os.path.isdir(os.path.join(head_folder, p)) or os.path.isdir(os.path.join(folder, p))
              else os.path.dirname(os.path.normpath(p)) for p in paths]  # fmt: skip
    try:
        found = find_config_for([os.path.join(folder, s, "") for s in starts])
        if found is not None:
            check_found(found)
    except ConfigError as exc:
        message = str(exc).replace(folder + os.sep, "").replace(folder, "the top folder")
        raise ReviewError(f"{base}: {message}" if base is not None else message) from None
    return os.path.relpath(found, folder) if found is not None else None


def _load_base(reload: Callable[[str | None], Config], config: Config, rel: str | None, top: str, base_folder: str,
               base: str) -> Config:  # fmt: skip
    """``reload`` of the base's configuration file ``rel`` (relative to the top; None: the
    defaults), its globs and path moved from the copy at ``base_folder`` to the same folder of the
    repository at ``top``, with ``config``'s repository URLs. Raises :class:`ReviewError`."""
    try:
        policy = reload(os.path.join(base_folder, rel) if rel is not None else None)
    except ConfigError as exc:
        raise ReviewError(f"{base}: {str(exc).replace(base_folder + os.sep, '')}") from None
    if rel is not None:
        policy.path = os.path.join(top, rel)
        if policy.baseline and within_folder(policy.baseline, base_folder):
            policy.baseline = os.path.join(top, os.path.relpath(policy.baseline, base_folder))

        def move(path_filter: PathFilter) -> PathFilter:
            return path_filter.moved(base_folder, top)

        policy = dataclasses.replace(policy, exclude=move(policy.exclude),
                                     per_path_ignores=[(move(f), r) for f, r in policy.per_path_ignores])  # fmt: skip
        if policy.fetch_credentials and within_folder(policy.fetch_credentials, base_folder):  # CI writes it in the tree
            policy.fetch_credentials = os.path.join(top, os.path.relpath(policy.fetch_credentials, base_folder))
    policy.repo_urls = list(config.repo_urls)
    return policy


def _policy_of(path: str) -> bytes | None:
    """What of the configuration file ``path`` is policy, to compare two revisions' by: its bytes;
    for a ``pyproject.toml``, its ``[tool.hooklint]`` table alone (an edit elsewhere in the file,
    a dependency bumped, is no change of policy), or the bytes when it does not parse. None when
    there is no such file (or no table)."""
    data = _bytes_of(path)
    if data is None or not path.endswith(".toml"):
        return data
    try:
        import tomllib  # type: ignore[import-not-found]
    except ImportError:  # Python 3.10
        import tomli as tomllib  # type: ignore[import-not-found]
    try:
        tool = tomllib.loads(data.decode("utf-8")).get("tool")
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return data
    table = tool.get("hooklint") if isinstance(tool, dict) else None
    return None if table is None else json.dumps(table, sort_keys=True, default=str).encode()


def _bytes_of(path: str) -> bytes | None:
    """The bytes of the regular file ``path`` (None when there is none)."""
    try:
        return read_bytes(path, DEFAULT_MAX_FILE_SIZE)
    except OSError:
        return None


def review(base: str, paths: list[str], config: Config, catalog: Catalog, head: str | None = None,
           cwd: str | None = None, reload: Callable[[str | None], Config] | None = None,
           broken: str | None = None) -> Review:  # fmt: skip
    """Compare revision ``base`` with the working tree (or revision ``head``) for ``paths``
    (relative to ``cwd``, default the current directory; none: the whole repository). Raises
    :class:`ReviewError` for git problems. Paths in the result are relative to the repository's
    top folder on both sides. With ``reload`` (the configuration was found, not named), a change
    to the configuration file is judged by ``base``'s (:func:`_policy`, said in the notes); without it
    (named with ``--config``), a change to that file is said in the notes (:func:`_named`)."""
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
    with checkout(top, base_commit) as base_copy:
        base_folder = base_copy.folder
        notes = [f"{base}: {note}" for note in base_copy.notes]
        if head_commit is None:
            _exists_on_a_side(relative, base_folder, base, top, None)
            if reload is not None:
                config, said = _policy(config, reload, top, base_folder, top, relative, base, broken)
                notes += said
            else:
                notes += _named(config, top, base_folder, top)
        base_side = _side(base_folder, base, relative, config, catalog, top) if head_commit is None else None
        if head_commit is None:
            assert base_side is not None
            head_config = dataclasses.replace(_leaving_as(config, base_side, base_folder), ignored_paths=_ignored(top))
            head_side = _side(top, None, relative, head_config, catalog, top)
            return _compared(base_side, head_side, config, notes, base, base_folder, top)
        with checkout(top, head_commit) as head_copy:
            head_folder = head_copy.folder
            notes += [f"{head}: {note}" for note in head_copy.notes]
            _exists_on_a_side(relative, base_folder, base, head_folder, head)
            if reload is not None:
                config, said = _policy(config, reload, top, base_folder, head_folder, relative, base, broken)
                notes += said
            else:
                notes += _named(config, top, base_folder, head_folder)
            base_side = _side(base_folder, base, relative, config, catalog, top)
            head_side = _side(head_folder, head, relative, _leaving_as(config, base_side, base_folder), catalog, top)
            return _compared(base_side, head_side, config, notes, base, base_folder, top)


def _compared(base_side: Side, head_side: Side, config: Config, notes: list[str], base: str, base_folder: str,
              top: str) -> Review:
    """:func:`compare` of the two sides under the review's ``config``, with the review's ``notes``
    first, then what the base's leaving-out did not cover (:func:`_not_left_out`), then the
    comparison's own, each with a URL's credentials redacted (a note may quote a remote)."""
    out = compare(base_side, head_side, _findings_of, _comments_in(base_folder, config, top))
    out.notes = [url_credentials(n) for n in notes + _not_left_out(head_side, base, base_folder) + out.notes]
    out.policy = config
    return out


def _comments_in(folder: str, config: Config, top: str) -> Callable[[str], list]:
    """The ``# hooklint: ignore[...]`` comments of a file of the side checked out in ``folder``, by
    its path relative to the repository's top (:func:`hooklint.sources.render.comments_of`: read
    as the lint read it, under ``config``'s ``max-file-size``, none for a file that is missing,
    unreadable or leads out of the checkout), each file read once."""
    from hooklint.sources.render import comments_of  # noqa: PLC0415 - only a review reads them again

    config = _rebased(config, top, folder)
    read: dict[str, list] = {}

    def comments(path: str) -> list:
        if path not in read:
            with _inside(folder):
                read[path] = comments_of(path, config) if not os.path.isabs(path) else []
        return read[path]

    return comments


def _leaving_as(config: Config, base: Side, base_folder: str) -> Config:
    """``config`` for the change's side: the files its Applications leave out are believed only
    when ``base``'s Applications leave them out the same way (the same Application, by file and
    name, and the same filter: :class:`hooklint.sources.appmap.discovery.Leaving`). Attacker trial 7
    F3: a PR-added ``docs/example.yaml`` Application nobody deploys, with ``directory.exclude:
    evil.yaml`` over a folder an Application elsewhere deploys, hid the privileged PreSync Job it
    added (0 new findings, exit 0); F9: the real Application renamed to a name the API server
    refuses (the live one keeps its spec) with the same exclude added. A leaving-out is policy, and
    a review's policy is the base's.

    Leaving hidden folders unwalked is hooklint's choice, not Argo CD's (its recursive directory
    source applies them; trial 7 F6): what a hidden folder no Application of the change reads holds
    is believed left out only when unchanged since the base's copy at ``base_folder``
    (``Config.changed_since``); a changed one is linted as if its folder were named, and the
    Applications it writes join the map (trial 8 F5). Of the other reasons a file is not linted, those of Argo CD,
    kustomize or Helm stand (linted through a rendering, or a rendering that failed, which is a
    finding; not listed by its kustomization; an unused Component; ``+argocd:skip-file-rendering``;
    unrelated YAML; JSON data; a dangling link), as does the base's ``exclude`` (the review's
    policy); a file over ``max-file-size`` or not checked before ``run-timeout`` is an input error
    of the run (exit 2), and jsonnet, which hooklint cannot evaluate, is named as not fully rendered."""
    return dataclasses.replace(config, trusted_leaving_out=frozenset(base.result.leaving_origins),
                               changed_since=base_folder)  # fmt: skip


def _ignored(top: str) -> tuple[str, ...]:
    """The untracked paths of the working tree at ``top`` that git ignores (``git ls-files --others
    --ignored --exclude-standard --directory``: ``.gitignore`` files, ``info/exclude``; no filter,
    hook or program runs), relative to the top with ``/``, a folder ending in ``/``: they are in no
    commit, so no Application applies them, and a review's hidden-folder check
    (:func:`_leaving_as`) does not count them as the change's (a ``.venv`` made in the checkout)."""
    listing = _git(["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"], top, binary=True)
    return tuple(sorted(os.fsdecode(p) for p in listing.split(b"\0") if p))


#: The most files one note of :func:`_not_left_out` names (a plugin source over a large folder).
MAX_NAMED_NOT_LEFT_OUT = 10


def _not_left_out(head: Side, base: str, base_folder: str) -> list[str]:
    """The notes naming the files of ``head`` linted although its Applications leave them out,
    because ``base``'s do not leave them out that way (:func:`_leaving_as`): one note per reason
    (who leaves them out, at which ``file:line`` and field), naming its files (at most
    :data:`MAX_NAMED_NOT_LEFT_OUT`, then how many more); and those of hidden folders no Application
    reads that the change adds or edits (their copy in ``base_folder`` missing or not the same),
    one note per hidden folder and verb."""
    by_reason: dict[tuple[str, str], list[str]] = {}
    for path, why in head.result.not_left_out:
        verb = ""
        if why.kind in (SkipKind.HIDDEN_FOLDER, SkipKind.CHART_FOLDER):
            verb = "edits" if os.path.lexists(os.path.join(base_folder, path)) else "adds"
        by_reason.setdefault((why.detail, verb), []).append(path)
    notes = []
    for (detail, verb), paths in by_reason.items():
        named = ", ".join(paths[:MAX_NAMED_NOT_LEFT_OUT])
        more = len(paths) - MAX_NAMED_NOT_LEFT_OUT
        named += f" and {more} more file{'s' if more != 1 else ''}" if more > 0 else ""
        them = "them" if len(paths) != 1 else "it"
        if verb:
            notes.append(f"{named}: {detail}; the change {verb} {them}, and a change cannot hide a manifest from its "
                         f"review: linted as if its {'hidden ' if detail.startswith('in the hidden') else ''}folder were named")  # fmt: skip
            continue
        notes.append(f"{named}: {detail}; {base} does not leave {them} out this way, and a change cannot narrow its own "
                     f"review: linted as if {'they were' if len(paths) != 1 else 'it were'} not left out")  # fmt: skip
    return notes


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


def _findings_of(side: Side, key: str) -> list[Finding]:
    """The findings of application ``key`` alone on ``side``, as its lint gave them (the first
    application of that key, as the run ordered them), without the suppressed ones."""
    for planned in side.plans:
        if planned.key == key:
            return [f for f in planned.findings if f.suppression is None]
    return []


def _unrendered(side: Side) -> set[str]:
    """The kustomize and Helm applications of ``side`` that did not render (HL007, HL008, HL009)."""
    return {p.key for p in side.plans if p.source_type not in ("directory",) and p.renderer is None}


def _loose_identity(f: Finding) -> tuple[str, ...]:
    """A finding's identity without its file: what a rename keeps; a pod's deprecated
    ``serviceAccount`` field named as the field it stands for (:data:`_FIELD_ALIASES`)."""
    *rest, field_path = identity(f, "")
    return (*rest, _FIELD_ALIASES.sub(_FIELD_ALIAS_OF, field_path))


#: Fields Kubernetes reads as another, by their deprecated name (``core/v1`` ``PodSpec``:
#: ``DeprecatedServiceAccount`` "is a deprecated alias for ServiceAccountName"): writing one for the
#: other says nothing new (new-user trial 28: ``serviceAccount`` renamed ``serviceAccountName`` was
#: the same HL301 new and fixed). A review names each by the field it stands for, in a finding's
#: field path and message (:func:`_loose_identity`, :func:`_statement`).
_FIELD_ALIASES = re.compile(r"\bserviceAccount\b")
_FIELD_ALIAS_OF = "serviceAccountName"


def _destinations(side: Side, findings: list[Finding]) -> dict[int, str]:
    """Where Argo CD deploys each of ``findings`` (``side``'s run findings, by ``id``): the
    :attr:`~hooklint.pipeline.PlannedApplication.destination` (Application and cluster) of the
    application whose lint gave it, "" when none is known. A file two applications share gives a
    finding for each, in the run's order; each is paired with its application's in that order."""
    places: dict[tuple, list[str]] = {}
    for planned in side.plans:
        for f in planned.findings:
            places.setdefault(_spot(f), []).append(planned.destination)
    out: dict[int, str] = {}
    for f in findings:
        known = places.get(_spot(f))
        out[id(f)] = known.pop(0) if known else ""
    return out


def _spot(f: Finding) -> tuple:
    """A finding as an application's lint and the run's report both give it (suppression aside)."""
    return (identity(f, f.path), f.span, f.message)


def _same_place(where: dict[int, str], a: Finding, b: Finding) -> bool:
    """Whether findings ``a`` and ``b`` (of the two sides) are deployed to the same place: the same
    Application on the same cluster (``where``: :func:`_destinations`), or one of them by no
    Application known here (a change that adds the Application of a folder, or lints a folder on
    its own, does not move its objects: :func:`_namespace_became_known`). A hook moved to another
    cluster's Application runs there anew (attack 11 item 8: ``git mv dev/debug.yaml
    prod/debug.yaml`` between two Applications of one namespace on two clusters was unchanged)."""
    one, other = where.get(id(a), ""), where.get(id(b), "")
    return one == other or not one or not other


def _namespace_became_known(new: list[Finding], waiting: dict[tuple[str, ...], list[Finding]],
                            where: dict[int, str] | None = None) -> tuple[list[Finding], int]:  # fmt: skip
    """The ``new`` findings left once those whose object only gained (or lost) its namespace are
    matched, and how many were: a head finding matches a base finding still waiting in
    ``waiting`` (keyed by :func:`_loose_identity`; a match is popped from it) with the same rule,
    file, kind, name (``generateName*``) and field, when one of the two has no namespace and the
    other has one. An object's namespace often comes from the Application that renders its folder
    (``spec.destination.namespace``, applied by Argo CD to objects that set none: ``argo-cd``
    controller/sync.go, ``WithNamespaceModifier``); a change that adds that Application, or a folder
    rendered on its own on one side, makes the namespace known without moving the object. The two
    must say the same thing (their message), as every match of :func:`compare` must. Two
    different namespaces (``shop`` -> ``store``) are two objects in Kubernetes and never match."""
    spare: dict[tuple[str, ...], list[Finding]] = {}
    for twins in waiting.values():
        for f in twins:
            rule, uri, kind, namespace, name, field_path = identity(f, f.path)
            spare.setdefault((rule, uri, kind, name, field_path), []).append(f)
    out, matched = [], 0
    for f in new:
        rule, uri, kind, namespace, name, field_path = identity(f, f.path)
        candidates = spare.get((rule, uri, kind, name, field_path), [])
        twin = next((b for b in candidates if bool(b.obj and b.obj.namespace) != bool(namespace)
                     and _statement(b) == _statement(f) and _same_place(where or {}, f, b)), None)  # fmt: skip
        if twin is None:
            out.append(f)
            continue
        candidates.remove(twin)
        waiting[_loose_identity(twin)].remove(twin)
        matched += 1
    return out, matched


def _said(f: Finding) -> tuple[str, ...]:
    """What a suppression accepted: the finding's identity without its file (what a rename keeps:
    rule, kind, namespace, name, field) and its message. The fingerprint alone is not enough: it
    leaves out what the finding says, so the same field saying something worse (``add: [NET_ADMIN]``
    -> ``add: [ALL]``, both ``capabilities.add[0]``) has the base's fingerprint."""
    return (*_loose_identity(f), _statement(f))


#: A place a message names by line (``first at line 12``, ``apps/a.yaml:12``, a fetched chart's
#: ``hookchart 1.2.0 templates/job.yaml:14``): a line that moves says nothing new.
_LINE_REFERENCE = re.compile(r"(\bline |[\w.-]\.(?:ya?ml|json|jsonnet|tpl|txt):)[0-9]+\b")


def _unread_content(f: Finding) -> tuple[str, str, str] | None:
    """``(rule, file, statement)`` of a finding about content hooklint did not read whose field
    holds a digest of it (HL009 on jsonnet files, :func:`hooklint.sources.repository.tree.jsonnet_digest`;
    on an ``.argocd-source-NAME.yaml`` no Application of the repository merges, ``argocd-source[sha256:...]``):
    an edit makes the head's finding new (another digest), and the base's, on the same file saying
    the same, is the one it replaces, not a fixed one. None for any other finding."""
    if "sha256:" not in f.field_path:
        return None
    return (f.rule_id, f.path, _statement(f))


def _statement(f: Finding) -> str:
    """What ``f`` says, as two sides of a review compare it (:func:`compare`, :func:`_said`): its
    whole message, with only the parts known to vary without saying anything new made neutral:
    a deprecated field's name (:data:`_FIELD_ALIASES`), the place in a fetched source that prefixes
    it (``related``: a chart's new version), every line
    it names (:data:`_LINE_REFERENCE`: lines moving above it) and the hook's own phase words (why it
    matters follows the hook's phase, ``a PreSync hook`` -> ``a PostSync hook``, ``runs on every
    sync`` -> ``runs whenever a sync fails``: :data:`_HOOK_RUNS`; only the phases of ``f``'s own
    hook, :attr:`~hooklint.findings.HookRef.phases`). So the same field saying
    something worse (``adds capability NET_ADMIN`` -> ``adds capability ALL``) is another finding.

    The message is never cut at a sentence end or a colon: the values it quotes before its verdict
    are the repository's (a ClusterRoleBinding may be named ``migrator. tenant jobs``: Kubernetes's
    ``ValidateRBACName`` refuses only ``.``, ``..``, ``/`` and ``%``), and a cut there left out what
    the finding says (attacker trial 19, B7: a hook's role widened to ``*`` on ``*`` was unchanged
    and stayed covered by the base's suppression)."""
    message = f.message
    for place in f.related[:1]:
        message = message.removeprefix(f"{place}: ")
    message = _FIELD_ALIASES.sub(_FIELD_ALIAS_OF, message)
    message = _LINE_REFERENCE.sub(lambda m: f"{m.group(1)}N", message)
    phases = f.hook.phases if f.hook is not None else ()
    if phases:
        words = "|".join(re.escape(p) for p in sorted(set(phases), key=len, reverse=True))
        message = re.sub(rf"(?<![\w-])(?:{words})(?:/(?:{words}))*(?![\w-])", "<phase>", message)
        message = _HOOK_RUNS.sub("runs <when>", message)
    return message


#: When a hook runs, as :func:`hooklint.checks.pods.runs` says it after the hook's phase words: it
#: follows the phase (``a SyncFail hook runs whenever a sync fails``), so a hook moved to another
#: phase says the same thing.
_HOOK_RUNS = re.compile(r"runs (?:on every sync|whenever a sync fails(?: and when the Application is deleted)?"
                        r"|when the Application is deleted)\b")


def _gist(message: str) -> str:
    """A short form of a finding's message for a reader (the reason :func:`_not_covered` gives; never
    compared: the text it cuts at may be the repository's, see :func:`_statement`): the text
    before the last ``": "`` that precedes its first sentence end (``The container 'c' of Job/j adds
    capability NET_ADMIN, beyond the baseline set``; ``Job/j sets hostNetwork: true``)."""
    first = message.find(". ")
    head = message if first < 0 else message[:first]
    cut = head.rfind(": ")
    return (head[:cut] if cut > 0 else head).rstrip(".")


#: The suppressions a review judges against the base (:func:`_not_covered`), with how its report
#: names each: the baseline is not one (``hooklint diff`` applies no baseline: both sides' findings
#: are compared live).
_WRITTEN = {"comment": ("comment suppression", "comment"),
            "annotation": (f"{SUPPRESS_ANNOTATION} annotation", "annotation")}  # fmt: skip


#: The field of a finding on an object's ``hooklint.io/ignore`` annotation (HL901, HL902).
_ANNOTATION_FIELD = f"metadata.annotations.{SUPPRESS_ANNOTATION}"
#: The entry an HL901 on an annotation names (``hooklint.io/ignore entry 'HL105' on Job/j suppressed nothing``).
_STALE_ENTRY = re.compile(re.escape(SUPPRESS_ANNOTATION) + r" entry '([^']*)' on .* suppressed nothing: ")


def _not_covered(base: Side, head: Side, base_comments: Callable[[str], list] | None,
                 unmatchable: set[tuple[str, ...]]) -> dict[int, tuple[Finding, str]]:  # fmt: skip
    """The head's findings that a ``# hooklint: ignore[...]`` comment or ``hooklint.io/ignore``
    annotation the change did not write hides, but that the base did not have under such a
    suppression, each (by the head finding's ``id``) without its suppression and with why.

    A suppression is an acceptance of the findings it hid when it was written and reviewed: in a
    review it covers, on the head, only a finding the base also had suppressed the same way (kind,
    names and reason), matched by :func:`_said` (identity without the file, and the message: a
    stronger finding of the same rule on the same field is another finding), each base finding
    covering one head finding. Any other finding it hides is new: a change that only edits
    ``securityContext: {capabilities: {add: [NET_ADMIN]}}`` under ``# hooklint: ignore[HL105]
    needs NET_ADMIN`` into ``..., privileged: true}`` would otherwise get a privileged hook past a
    reviewer shown only the old reason. The change wrote the suppression (listed as "suppressed
    by the change", for the reviewer, as before) when the base has none like it: for a comment, no
    comment with the same names and reason in the base's file at the same path (``base_comments``:
    path -> :func:`~hooklint.loader.ignore_comments`) nor, for a renamed file, one that suppressed a
    base finding on the same object; for an annotation, none on the same object that suppressed a
    base finding. Findings of an application the base did not render (``unmatchable``) are left
    to :func:`compare`'s rule for them."""
    accepted: dict[tuple, int] = {}
    written_for: dict[tuple, list[Finding]] = {}
    # the base's annotation entries that suppressed nothing (HL901 on their object, naming the entry):
    # an annotation the base had, stale, which the change did not write
    stale: dict[tuple, set[str]] = {}
    for f in base.result.findings:
        if f.rule_id == UNUSED_SUPPRESSION and f.field_path == _ANNOTATION_FIELD:
            entry = _STALE_ENTRY.match(f.message)
            if entry is not None:
                stale.setdefault(_loose_identity(f)[2:5], set()).add(entry.group(1))
    for f in base.result.suppressed:
        s = f.suppression
        if s is None or s.kind not in _WRITTEN:
            continue
        key = (_said(f), s.kind, s.names, s.reason)
        accepted[key] = accepted.get(key, 0) + 1
        written_for.setdefault((s.kind, f.path, s.names, s.reason), []).append(f)
        written_for.setdefault((s.kind, _loose_identity(f)[2:5], s.names, s.reason), []).append(f)
    out: dict[int, tuple[Finding, str]] = {}
    for f in head.result.suppressed:
        s = f.suppression
        if s is None or s.kind not in _WRITTEN or identity(f, f.path) in unmatchable:
            continue
        key = (_said(f), s.kind, s.names, s.reason)
        if accepted.get(key, 0) > 0:
            accepted[key] -= 1
            continue
        on_object = written_for.get((s.kind, _loose_identity(f)[2:5], s.names, s.reason), [])
        in_file = written_for.get((s.kind, f.path, s.names, s.reason), [])
        in_base_file = s.kind == "comment" and base_comments is not None and any(
            (names, reason) == (s.names, s.reason) for _, _, names, reason, _ in base_comments(f.path))  # fmt: skip
        stale_on_object = s.kind == "annotation" and any(
            name in stale.get(_loose_identity(f)[2:5], ()) for name in s.names)  # fmt: skip
        # the same annotation, in the same file, suppressed findings of another object on the base: a
        # base's hook rendered again into a namespace the change adds (an overlay for prod) is not
        # covered by what was accepted for dev (attacker trial 22, B1)
        in_base_file = in_base_file or (s.kind == "annotation" and bool(in_file))
        if not on_object and not in_base_file and not stale_on_object:
            continue  # the change wrote or edited the suppression: suppressed by the change
        was = in_file if in_file and (s.kind == "comment" or not on_object) else on_object
        gists = list(dict.fromkeys(f"{b.rule_id} {_gist(b.message)}" for b in was))
        what = "; ".join(gists[:3]) + (f"; and {len(gists) - 3} more" if len(gists) > 3 else "")
        title, word = _WRITTEN[s.kind]
        why = f"the {word} was written for: {what}" if gists else f"the {word} suppressed nothing on the base"
        out[id(f)] = (dataclasses.replace(f, suppression=None),
                      f"Not covered by the {title} at {f.path}:{s.line}: the base had no such finding under it; {why}.")
    return out


def compare(base: Side, head: Side, findings_of: Callable[[Side, str], list[Finding]],
            base_comments: Callable[[str], list] | None = None) -> Review:  # fmt: skip
    """The :class:`Review` of two linted sides. Findings match by fingerprint, then, for what is
    left, by identity without the file (a renamed or moved file keeps its findings), both only
    when they say the same thing (the message: the fingerprint leaves it out, so ``add: [NET_ADMIN]``
    -> ``add: [ALL]`` keeps the fingerprint of ``capabilities.add[0]``, and a baseline that
    recorded the first hides the second in ``lint``; here it is a new finding and the old one
    fixed) and only where Argo CD deploys the two the same way (:func:`_same_place`: a hook moved to another
    cluster's or Application's folder is new there, and fixed at the old place). An
    application that did not render on one side (HL007, HL008, HL009) cannot be compared, and is
    named in ``not_compared`` and in a note; it never passes unseen: when nothing of it rendered on
    the base, nothing there can match, so each of its findings on the head (those its lint gave,
    in the head's report) is new (the head's suppressed ones are suppressed by the change)
    and its whole head plan is shown as added; when nothing of it rendered on the head, the head's
    HL007/HL008/HL009 finding is new, its base findings (``findings_of(base, key)``) are not
    counted as fixed, and its plan is not diffed (nothing on the head says what a sync applies).
    Last, a finding whose object only gained or lost its namespace, in the same file, is unchanged
    (:func:`_namespace_became_known`).

    A ``# hooklint: ignore[...]`` comment or ``hooklint.io/ignore`` annotation the change did not
    write covers, on the head, only the findings the base had suppressed by it (:func:`_not_covered`,
    reading the base's comments with ``base_comments``: path -> :func:`~hooklint.loader.ignore_comments`;
    None: only those that suppressed a base finding are known); any other finding it hides is new,
    without its suppression, and ``not_covered`` says why."""
    out = Review(base, head)
    unrendered_base, unrendered_head = _unrendered(base), _unrendered(head)
    out.not_compared = sorted(unrendered_base ^ unrendered_head)
    skip_base = {fingerprint for key in sorted(unrendered_head - unrendered_base)
                 for fingerprint in _prints(findings_of(base, key))}  # fmt: skip
    # the head's findings of an application the base did not render: nothing on the base can match them
    unmatched = {key: {identity(f, f.path) for planned in head.plans if planned.key == key for f in planned.findings}
                 for key in sorted(unrendered_base - unrendered_head)}  # fmt: skip
    unmatchable = set().union(*unmatched.values())
    base_fps = dict(zip(_prints(base.result.findings), base.result.findings))
    head_fps = {fp: f for fp, f in zip(_prints(head.result.findings), head.result.findings)
                if identity(f, f.path) not in unmatchable}  # fmt: skip
    # where each finding is deployed: one that moved to another cluster or Application is new there
    where = {**_destinations(base, base.result.findings), **_destinations(head, head.result.findings)}
    for fp in [fp for fp, f in head_fps.items() if fp in base_fps and not _same_place(where, f, base_fps[fp])]:
        base_fps[f"{fp}\x1fmoved"] = base_fps.pop(fp)  # no longer matches by fingerprint
    # the same field saying something else (add: [NET_ADMIN] -> add: [ALL]) is another finding
    for fp in [fp for fp, f in head_fps.items() if fp in base_fps and _statement(f) != _statement(base_fps[fp])]:
        base_fps[f"{fp}\x1fsays"] = base_fps.pop(fp)
    forced = [f for f in head.result.findings if identity(f, f.path) in unmatchable]
    base_hidden = set(_prints(base.result.suppressed))
    head_hidden = dict(zip(_prints(head.result.suppressed), head.result.suppressed))
    # hidden on the head by a comment the change did not write, for a finding the base did not have: new
    uncovered = _not_covered(base, head, base_comments, unmatchable)
    # suppressed by the change: hidden on the head, not on the base (it was live there, or absent)
    out.suppressed = [f for fp, f in head_hidden.items() if id(f) not in uncovered
                      and (fp not in base_hidden or identity(f, f.path) in unmatchable)]  # fmt: skip
    new = [f for fp, f in head_fps.items() if fp not in base_fps]
    fixed = [f for fp, f in base_fps.items() if fp not in head_fps and fp not in skip_base and fp not in head_hidden]
    out.unchanged = sum(1 for fp in head_fps if fp in base_fps)
    # a renamed file: the same finding on the same object and field, elsewhere
    waiting: dict[tuple[str, ...], list[Finding]] = {}
    for f in fixed:
        waiting.setdefault(_loose_identity(f), []).append(f)
    out.new = []
    for f in new:
        twins = [b for b in waiting.get(_loose_identity(f), []) if _statement(b) == _statement(f)]
        twin = next((b for b in twins if _same_place(where, f, b)), None)
        if twin is not None:
            waiting[_loose_identity(f)].remove(twin)
            out.unchanged += 1
        else:
            out.new.append(f)
    out.new, matched = _namespace_became_known(out.new, waiting, where)
    out.unchanged += matched
    out.not_covered = {id(f): why for f, why in uncovered.values()}
    out.new = sorted(out.new + forced + [f for f, _ in uncovered.values()], key=Finding.sort_key)
    left = {id(f) for twins in waiting.values() for f in twins}
    gone = _left_hook_scope(base, head)
    replaced = {_unread_content(f) for f in out.new} - {None}
    for f in fixed:
        if id(f) not in left or _unread_content(f) in replaced:
            continue
        why = gone.get(_object_key(f.obj)) if f.obj is not None and f.hook is not None and f.hook.phases else None
        if why is None:
            out.fixed.append(f)
        else:
            out.no_longer_checked.append((f, why))
    # a plan the base did not render is all added (it is left out of the base's side); one the head
    # did not render is not diffed
    out.plan_changes = plan_changes([p for p in base.plans if p.key not in out.not_compared],
                                    [p for p in head.plans if p.key not in unrendered_head - unrendered_base])
    out.notes = []
    for key in out.not_compared:
        old, now = base.revision, head.revision or "the working tree"
        if key in unmatched:
            n = sum(1 for f in forced if identity(f, f.path) in unmatched[key])
            out.notes.append(f"{key}: nothing of it rendered on {old} (lint {old} to see why), so nothing there can "
                             f"match it: its {n} finding{'s' if n != 1 else ''} on {now} count{'s' if n == 1 else ''} "
                             f"as new and its whole plan as added")  # fmt: skip
        else:
            n = len(findings_of(base, key))
            out.notes.append(f"{key}: nothing of it rendered on {now} (see its new finding), so it is not compared: its "
                             f"{n} finding{'s' if n != 1 else ''} on {old} {'are' if n != 1 else 'is'} not counted as "
                             f"fixed and its plan is not diffed")  # fmt: skip
    out.errors = head.result.errors
    return out


def _object_key(obj: Any) -> tuple[str, str, str, str]:
    """An :class:`~hooklint.findings.ObjectRef` (or a Manifest's ``ref``) keyed as :func:`_task_key`
    keys a task."""
    return _task_key({"name": obj.name, "generate_name": obj.generate_name, "api_version": obj.api_version,
                      "kind": obj.kind, "namespace": obj.namespace})  # fmt: skip


def _left_hook_scope(base: Side, head: Side) -> dict[tuple[str, str, str, str], str]:
    """The objects Argo CD runs as hooks on the base side that are still in the head but that it no
    longer runs as hooks, keyed as :func:`_task_key`, with why (the head plan's reason, or what
    the object became): ``Job/seed no longer runs as a hook: argocd.argoproj.io/hook 'PostSnyc'
    has no valid hook type: ignored hook, never applied``. Hook rules (security, lifecycle and
    ordering of hooks) stop looking at such an object, so their findings on it vanish unfixed."""
    hooks = {_object_key(m.ref) for planned in base.plans for m in _manifests(planned) if m.hook.runs_as_hook}
    out: dict[tuple[str, str, str, str], str] = {}
    for planned in head.plans:
        reasons = {id(entry.manifest): entry.reason for entry in planned.plan.not_applied}
        for m in _manifests(planned):
            key = _object_key(m.ref)
            if key not in hooks or m.hook.runs_as_hook or key in out:
                continue
            if id(m) in reasons:
                why = reasons[id(m)]
            else:
                step = next(t for t in planned.plan.tasks if t.manifest is m)
                why = f"it is now a plain resource ({step.phase} wave {step.wave})"
            out[key] = f"{m.label} no longer runs as a hook: {why}"
    return out


def _manifests(planned: PlannedApplication) -> Iterator[Any]:
    """Every object of a plan: those applied (once each) and those no sync applies."""
    seen: set[int] = set()
    for t in planned.plan.tasks:
        if id(t.manifest) not in seen:
            seen.add(id(t.manifest))
            yield t.manifest
    for entry in planned.plan.not_applied:
        yield entry.manifest


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


def _not_applied(planned: PlannedApplication) -> dict[tuple, dict[str, Any]]:
    """The objects of a plan that no sync applies (key as :func:`_tasks`), shaped as in ``hooklint
    plan -f json`` (with their ``reason``)."""
    return {_task_key(entry): entry for entry in plan_dict(planned)["not_applied"]}


def plan_changes(base: list[PlannedApplication], head: list[PlannedApplication]) -> list[dict[str, Any]]:
    """Per application (in key order; only those that changed): ``added`` tasks (each with the
    ``step`` ``{"phase", "wave"}`` it is added to, its first), ``removed`` tasks, ``moved`` tasks
    (``{"task", "from": {"phase", "wave"}, "to": {"phase", "wave"}}``; an object that runs in
    several steps, a hook of several types, moves when its first step moves), ``left`` tasks (``{"task",
    "from": {"phase", "wave"}, "reason"}``: the object is still in the application, but no sync
    applies it any more: a hook whose type became invalid, Skip) and ``changed`` tasks (``{"task",
    "field", "from", "to"}`` for ``hook_types`` and ``delete_policies``). Tasks are shaped as in
    ``hooklint plan -f json``."""
    before = {p.key: _tasks(p) for p in base}
    after = {p.key: _tasks(p) for p in head}
    unapplied = {p.key: _not_applied(p) for p in head}
    changes = []
    for key in sorted(set(before) | set(after)):
        old, new = before.get(key, {}), after.get(key, {})
        entry: dict[str, Any] = {"application": key, "added": [], "removed": [], "moved": [], "left": [], "changed": []}
        for obj in new:
            if obj not in old:
                task, phase, wave = new[obj][0]
                entry["added"].append({**task, "step": {"phase": phase, "wave": wave}})
        for obj in old:
            if obj in new:
                continue
            task, phase, wave = old[obj][0]
            now = unapplied.get(key, {}).get(obj)
            if now is None:
                entry["removed"].append(task)
            else:
                entry["left"].append({"task": now, "from": {"phase": phase, "wave": wave}, "reason": now["reason"]})
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
        if any(entry[k] for k in ("added", "removed", "moved", "left", "changed")):
            changes.append(entry)
    return changes
