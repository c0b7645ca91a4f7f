"""The Git checkout holding a folder, read as files: its top (the nearest folder with ``.git``) and
the ``url`` of each remote in its configuration. Git itself is never run here; these answer "which
repository is this" for containment (:mod:`hooklint.sources.repository.tree`) and for "this
repository" in Argo CD's ``repoURL`` sense (:mod:`hooklint.sources.appmap.applications`), and
:func:`checked_out` says which commit is checked out and which tags and branches name it, for a
``targetRevision`` of this repository (issue 32)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from hooklint.files import read_bytes, walk_tree
from hooklint.loader import DEFAULT_MAX_FILE_SIZE


def git_root(folder: str, _roots: dict[str, str | None] | None = None,
             _without_git: "set[str] | frozenset[str]" = frozenset()) -> str | None:
    """The git repository holding ``folder``: the nearest folder above it (itself included) with
    ``.git`` (a folder, or a file ``gitdir: ...`` as in worktrees and submodules), absolute; None
    outside one. ``_roots`` memoises the answer for every folder visited (many folders of one
    tree); ``_without_git`` holds absolute folders known to have no ``.git`` entry (listed by the
    run's walk), not asked again."""
    roots = _roots if _roots is not None else {}
    probe = os.path.abspath(folder)
    visited = []
    root: str | None = None
    while True:
        if probe in roots:
            root = roots[probe]
            break
        visited.append(probe)
        if probe not in _without_git and os.path.exists(os.path.join(probe, ".git")):
            root = probe
            break
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    for seen in visited:
        roots[seen] = root
    return root


def git_remote_urls(folder: str, _roots: dict[str, str | None] | None = None) -> tuple[str | None, list[str]]:
    """``(repository root, remote urls)`` of the git repository holding ``folder``
    (:func:`git_root`) and the ``url`` of each ``[remote ...]`` of its configuration. ``(None, [])``
    outside a repository; unreadable configuration gives no urls. Git itself is not run."""
    root = git_root(folder, _roots)
    return (root, remote_urls(os.path.join(root, ".git"))) if root is not None else (None, [])


def remote_urls(dot_git: str) -> list[str]:
    git_dir = dot_git
    import configparser  # only for a run inside a git checkout (2.6 ms of start-up otherwise)

    def text(path: str) -> str:  # regular files only, never a blocking read
        return read_bytes(path, DEFAULT_MAX_FILE_SIZE).decode("utf-8")

    try:
        if os.path.isfile(dot_git):
            pointer = text(dot_git).strip()
            if not pointer.startswith("gitdir:"):
                return []
            git_dir = os.path.join(os.path.dirname(dot_git), pointer[len("gitdir:"):].strip())
            common = os.path.join(git_dir, "commondir")
            if os.path.isfile(common):
                git_dir = os.path.join(git_dir, text(common).strip())
        parser = configparser.ConfigParser(strict=False, interpolation=None)
        config = os.path.join(git_dir, "config")
        if os.path.exists(config):
            parser.read_string(text(config), source=config)
    except (OSError, UnicodeDecodeError, configparser.Error):
        return []
    return [parser[s]["url"] for s in parser.sections() if s.startswith("remote ") and "url" in parser[s]]


#: The most bytes of ``packed-refs``, and the most loose refs, :func:`checked_out` reads (a
#: repository with more is read as far as that: a tag or branch beyond it is not known).
MAX_PACKED_REFS = 8 << 20
MAX_LOOSE_REFS = 10_000
#: The most bytes of a loose object (compressed, and once inflated) read to peel an annotated tag.
MAX_TAG_OBJECT = 64 << 10

_HEX40 = frozenset("0123456789abcdef")


@dataclass(frozen=True, slots=True)
class CheckedOut:
    """What a Git checkout says about its own revision, read as files (git is never run):
    ``commit``, the checked-out commit (40 lower-case hex digits; None when unknown: no git
    repository, an unborn branch, a ref that cannot be read); ``tags``, the short name of every tag
    known here -> the commit it names once peeled (None when an annotated tag cannot be peeled
    from a loose object); ``branches``, the short names of the local branches and of the
    remote-tracking ones (``refs/remotes/REMOTE/NAME`` as ``NAME``)."""

    commit: str | None = None
    tags: dict[str, str | None] = field(default_factory=dict)
    branches: frozenset[str] = frozenset()


def _git_dirs(dot_git: str) -> tuple[str, str] | None:
    """``(git directory, common directory)`` of the ``.git`` entry ``dot_git`` (a folder, or a file
    ``gitdir: PATH`` with a ``commondir`` as a linked worktree has); None when it is neither."""
    try:
        if os.path.isdir(dot_git):
            return dot_git, dot_git
        pointer = read_bytes(dot_git, 4096).decode("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not pointer.startswith("gitdir:"):
        return None
    git_dir = os.path.join(os.path.dirname(dot_git), pointer[len("gitdir:"):].strip())
    common = git_dir
    try:
        if os.path.isfile(os.path.join(git_dir, "commondir")):
            common = os.path.join(git_dir, read_bytes(os.path.join(git_dir, "commondir"), 4096).decode("utf-8").strip())
    except (OSError, UnicodeDecodeError):
        return None
    return git_dir, common


def _packed_refs(common: str) -> dict[str, tuple[str, str | None]]:
    """``refname -> (object id, peeled commit or None)`` of ``packed-refs`` (git's
    ``refs/packed-backend.c`` format: ``OID REFNAME`` lines, each optionally followed by ``^PEELED``)."""
    out: dict[str, tuple[str, str | None]] = {}
    try:
        text = read_bytes(os.path.join(common, "packed-refs"), MAX_PACKED_REFS).decode("utf-8", "replace")
    except OSError:
        return out
    last = None
    for line in text.splitlines():
        if line.startswith("^") and last is not None and _is_oid(line[1:].strip()):
            out[last] = (out[last][0], line[1:].strip())
        elif not line.startswith("#"):
            oid, _, name = line.partition(" ")
            last = name.strip() if _is_oid(oid) and name.strip() else None
            if last is not None:
                out[last] = (oid, None)
    return out


def _is_oid(text: str) -> bool:
    return len(text) == 40 and set(text) <= _HEX40


def _loose_refs(common: str, prefix: str, budget: list[int]) -> dict[str, str]:
    """``refname -> object id`` of the loose refs under ``common/prefix`` (``refs/tags``...), at
    most ``budget[0]`` of them in all (decremented); a symbolic or unreadable one is left out."""
    out: dict[str, str] = {}
    top = os.path.join(common, prefix)
    for folder, dirs, names in walk_tree(top):
        dirs.sort()
        for name in sorted(names):
            if budget[0] <= 0:
                return out
            budget[0] -= 1
            full = os.path.join(folder, name)
            try:
                oid = read_bytes(full, 4096).decode("ascii").strip()
            except (OSError, UnicodeDecodeError):
                continue
            if _is_oid(oid):
                out[os.path.relpath(full, common).replace(os.sep, "/")] = oid
    return out


def _peeled(common: str, oid: str) -> str | None:
    """The commit the object ``oid`` names once annotated tags are peeled, read from the
    repository's own loose objects (``objects/XX/REST``, zlib: a ``tag SIZE\\0`` header and an
    ``object OID`` first line); ``oid`` itself when it is no loose tag object (a commit, or packed:
    its caller compares it as a commit, which then fails unless it is one); None when a loose tag
    cannot be read. Alternates are never followed."""
    import zlib  # noqa: PLC0415 - only to peel a loose annotated tag

    for _ in range(4):  # a tag of a tag of a tag...
        path = os.path.join(common, "objects", oid[:2], oid[2:])
        if not os.path.isfile(path):
            return oid
        try:
            data = zlib.decompressobj().decompress(read_bytes(path, MAX_TAG_OBJECT), MAX_TAG_OBJECT)
        except (OSError, zlib.error):
            return None
        header, _, body = data.partition(b"\0")
        if not header.startswith(b"tag "):
            return oid
        first = body.split(b"\n", 1)[0]
        target = first[len(b"object "):].decode("ascii", "replace")
        if not first.startswith(b"object ") or not _is_oid(target):
            return None
        oid = target
    return None


def checked_out(root: str) -> CheckedOut:
    """The :class:`CheckedOut` of the git repository whose top folder is ``root``: ``HEAD`` (a
    commit id, or ``ref: REFNAME`` followed through loose refs and ``packed-refs``), its tags and
    branches (loose refs under ``refs/tags``, ``refs/heads``, ``refs/remotes`` and ``packed-refs``,
    at most :data:`MAX_LOOSE_REFS` and :data:`MAX_PACKED_REFS` bytes). Only files are read, each
    bounded; git, whose configuration the repository writes, is never run. An empty
    :class:`CheckedOut` when ``root`` holds no readable ``.git``."""
    dirs = _git_dirs(os.path.join(root, ".git"))
    if dirs is None:
        return CheckedOut()
    git_dir, common = dirs
    packed = _packed_refs(common)
    budget = [MAX_LOOSE_REFS]
    loose = {**_loose_refs(common, "refs/heads", budget), **_loose_refs(common, "refs/remotes", budget),
             **_loose_refs(common, "refs/tags", budget)}  # fmt: skip

    def resolve(name: str) -> str | None:
        for _ in range(5):  # symbolic refs: ref: refs/heads/main
            try:
                folder = git_dir if name == "HEAD" else common  # HEAD is a worktree's own
                text = read_bytes(os.path.join(folder, name), 4096).decode("ascii").strip()
            except (OSError, UnicodeDecodeError):
                text = loose.get(name) or (packed[name][0] if name in packed else "")
            if _is_oid(text.lower()):
                return text.lower()
            if not text.startswith("ref:"):
                return None
            name = text[4:].strip()
        return None

    tags: dict[str, str | None] = {}
    refs = {name: (oid, peeled) for name, (oid, peeled) in packed.items()}
    refs.update({name: (oid, None) for name, oid in loose.items()})
    branches = set()
    for name, (oid, peeled) in refs.items():
        if name.startswith("refs/tags/"):
            tags[name[len("refs/tags/"):]] = peeled or _peeled(common, oid)
        elif name.startswith("refs/heads/"):
            branches.add(name[len("refs/heads/"):])
        elif name.startswith("refs/remotes/") and name.count("/") >= 3 and not name.endswith("/HEAD"):
            branches.add(name.split("/", 3)[3])
    return CheckedOut(resolve("HEAD"), tags, frozenset(branches))
