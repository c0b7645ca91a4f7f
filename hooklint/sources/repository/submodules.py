"""The git submodules of a repository, read from Git's index as files: nothing of Git is run, no
``.gitmodules`` URL is ever used.

Argo CD's repo server checks a revision out and then, when the checkout's top holds
``.gitmodules`` (any kind of file: ``os.Stat``) and submodules are enabled (they are by default:
``ARGOCD_GIT_MODULES_ENABLED``, ``cmd/argocd-repo-server/commands/argocd_repo_server.go``), runs
``git submodule sync --recursive`` and ``git submodule update --init --recursive``
(``util/git/client.go`` ``Checkout`` and ``Submodule``, v3.5.1): every gitlink of the revision
(a tree entry of mode ``160000``) becomes a folder holding the commit it names, fetched from the
URL ``.gitmodules`` gives, and every application reading that folder renders and applies what it
holds. In a CI checkout (``actions/checkout`` without ``submodules:``) the folder is empty, so
hooklint would see nothing there: a pull request pinning a submodule to a commit with a
privileged hook would pass silently (attack 10, item 6).

:func:`submodules_of` tells which folders of a repository are submodules: the gitlinks of its
index (``.git/index``, versions 2 to 4, read with :func:`hooklint.files.read_bytes`; a worktree's
``gitdir:`` file followed as :func:`~hooklint.sources.repository.git.remote_urls` does), or, for
a revision ``hooklint diff`` wrote out (:func:`register`), of that revision's tree. An index
hooklint cannot read whole (a split index, a sparse one, a format it does not know) and a tree
without ``.git`` fall back to the ``path`` entries of ``.gitmodules``, read as text (never run:
no URL in it is ever used). Without ``.gitmodules`` Argo CD checks no submodule out, so none
matters: :attr:`Submodules.active` is False.
"""

from __future__ import annotations

import os
import re
import struct
from dataclasses import dataclass

from hooklint.files import note_input, read_bytes

#: The name of the file that lists a repository's submodules, at its top.
GITMODULES = ".gitmodules"
#: The most bytes of ``.git/index`` read (a checkout of 2 million files is about 200 MB).
MAX_INDEX_SIZE = 512 * 1024 * 1024
#: The most bytes of ``.gitmodules`` read.
MAX_GITMODULES_SIZE = 1024 * 1024
#: A gitlink's mode in the index and in trees.
GITLINK_MODE = 0o160000


@dataclass(frozen=True, order=True, slots=True)
class Submodule:
    """One submodule: its ``path`` from the repository's top (``/`` separators), the ``commit`` it
    is pinned to (hex; empty when only ``.gitmodules`` named it) and where ``.gitmodules`` names it
    (``line``, ``column`` of its ``path`` key, 1-based; ``(0, 0)`` when it does not)."""

    path: str
    commit: str = ""
    line: int = 0
    column: int = 0

    def field(self) -> str:
        """``submodule[tools]@0dbbdb4a...``: what a finding about it is about (its fingerprint's
        field: :func:`hooklint.findings.identity`), its commit included."""
        return f"submodule[{self.path}]@{self.commit}"

    def described(self) -> str:
        """``the git submodule tools (commit 0dbbdb4a74f7)``."""
        return f"the git submodule {self.path}" + (f" (commit {self.commit[:12]})" if self.commit else "")


@dataclass(frozen=True, slots=True)
class Submodules:
    """The submodules of the repository whose top is ``root`` (absolute): ``gitmodules`` is the
    path of its ``.gitmodules`` when there is one (then Argo CD checks them out: ``active``)."""

    root: str
    gitmodules: str | None = None
    found: tuple[Submodule, ...] = ()

    @property
    def active(self) -> bool:
        """Whether Argo CD's repo server checks these submodules out (``.gitmodules`` exists)."""
        return self.gitmodules is not None and bool(self.found)

    def _relative(self, path: str) -> str | None:
        relative = os.path.relpath(os.path.abspath(path), self.root)
        if relative == os.curdir:
            return ""
        if relative.startswith(os.pardir + os.sep) or relative == os.pardir:
            return None
        return relative.replace(os.sep, "/")

    def holding(self, path: str) -> Submodule | None:
        """The submodule ``path`` (a file or folder) is in, or is: Argo CD finds there what the
        submodule's commit holds, hooklint an empty folder. None when there is none."""
        if not self.active:
            return None
        relative = self._relative(path)
        if not relative:
            return None
        for sub in self.found:
            if relative == sub.path or relative.startswith(sub.path + "/"):
                return sub
        return None

    def below(self, folder: str) -> list[Submodule]:
        """The submodules strictly inside ``folder``, in path order."""
        if not self.active:
            return []
        relative = self._relative(folder)
        if relative is None:
            return []
        return [s for s in self.found if not relative or s.path.startswith(relative + "/")]

    def location(self, sub: Submodule) -> tuple[str, int, int]:
        """``(file, line, column)`` where ``.gitmodules`` names ``sub`` (its ``path`` key), else its
        first line."""
        assert self.gitmodules is not None
        return (self.gitmodules, sub.line or 1, sub.column or 1)


#: The revisions ``hooklint diff`` wrote out (:func:`register`): folder -> their gitlinks.
_registered: dict[str, tuple[tuple[str, str], ...]] = {}
#: What :func:`submodules_of` found this run, by top folder (:func:`forget` empties it).
_known: dict[str, Submodules] = {}


def register(folder: str, gitlinks: list[tuple[str, str]]) -> None:
    """Say that ``folder`` holds a revision's tree written without its submodules, whose gitlinks
    are ``gitlinks`` (``(path from the top with /, commit hex)``, from ``git ls-tree``): its
    ``.git`` is empty, so they cannot be read from an index (``hooklint diff``)."""
    _registered[os.path.abspath(folder)] = tuple(sorted(gitlinks))
    forget()


def unregister(folder: str) -> None:
    """Forget what :func:`register` said of ``folder`` (removed)."""
    _registered.pop(os.path.abspath(folder), None)
    forget()


def forget() -> None:
    """Forget every answer of :func:`submodules_of` (the index may change between runs)."""
    _known.clear()


def submodules_of(root: str) -> Submodules:
    """The submodules of the repository whose top folder is ``root`` (:class:`Submodules`), asked
    once per run. Never raises: an unreadable index falls back to ``.gitmodules``."""
    top = os.path.abspath(root)
    found = _known.get(top)
    if found is None:
        found = _known[top] = _read(top)
    return found


def _read(top: str) -> Submodules:
    gitmodules = os.path.join(top, GITMODULES)
    if not os.path.lexists(gitmodules):
        note_input(gitmodules)  # one added later is another run
        return Submodules(top)
    entries = _gitmodules_paths(gitmodules)
    places = {path: (line, column) for path, line, column in entries}
    gitlinks = _registered.get(top)
    if gitlinks is None:
        gitlinks = _index_gitlinks(os.path.join(top, ".git"))
    if gitlinks is None:  # no index hooklint can read: what .gitmodules names
        gitlinks = tuple((path, "") for path, _, _ in entries)
    subs = tuple(sorted({Submodule(path, commit, *places.get(path, (0, 0))) for path, commit in gitlinks}))
    return Submodules(top, gitmodules, subs)


#: ``path =`` at a line's start; its value is the rest of the line without the blanks around it
#: (``\s*=\s*(.*?)\s*$`` as one expression cost the square of a line of blanks).
_PATH_KEY = re.compile(rb"(\s*)(path)\s*=", re.IGNORECASE)


def _gitmodules_paths(path: str) -> list[tuple[str, int, int]]:
    """The ``path`` values of ``.gitmodules`` at ``path`` with their line and column, read as
    text: quotes and a trailing comment removed, nothing else interpreted (only where a finding
    goes, and the fallback when no index is readable). Unreadable: none."""
    try:
        data = read_bytes(path, MAX_GITMODULES_SIZE)
    except (OSError, ValueError):
        return []
    out = []
    for number, line in enumerate(data.splitlines(), 1):
        match = _PATH_KEY.match(line)
        if match is None:
            continue
        text = _config_value(line[match.end():].strip().decode("utf-8", "replace")).strip("/")
        if text:
            out.append((os.path.normpath(text).replace(os.sep, "/"), number, len(match.group(1)) + 1))
    return out


def _config_value(raw: str) -> str:
    """A git configuration value as git reads it (``config.c`` ``parse_value``): ``"`` quotes,
    ``\\`` escapes (``\\n``, ``\\t``, ``\\b``, ``\\\\``, ``\\"``), ``#`` or ``;`` outside quotes
    ends it, each blank outside quotes between words is one space, trailing ones dropped."""
    out: list[str] = []
    quoted, spaces, at = False, 0, 0
    while at < len(raw):
        char = raw[at]
        at += 1
        if not quoted and char in "#;":
            break
        if not quoted and char.isspace():
            spaces += 1 if any(out) else 0
            continue
        out.append(" " * spaces)
        spaces = 0
        if char == "\\":
            escaped = raw[at : at + 1]
            at += 1
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(escaped, escaped))
        elif char == '"':
            quoted = not quoted
        else:
            out.append(char)
    return "".join(out)


def _git_dir(dot_git: str) -> str | None:
    """The git directory ``dot_git`` (a folder, or a ``gitdir:`` file) stands for; None if none."""
    if os.path.isdir(dot_git):
        return dot_git
    try:
        pointer = read_bytes(dot_git, 4096).decode("utf-8").strip()
    except (OSError, ValueError):
        return None
    if not pointer.startswith("gitdir:"):
        return None
    return os.path.join(os.path.dirname(dot_git), pointer[len("gitdir:"):].strip())


def _hash_size(git_dir: str) -> int:
    """20 (SHA-1), or 32 when the repository's ``extensions.objectFormat`` is ``sha256``."""
    for folder in (git_dir, _common_dir(git_dir)):
        try:
            text = read_bytes(os.path.join(folder, "config"), 1024 * 1024).decode("utf-8", "replace")
        except (OSError, ValueError):
            continue
        if re.search(r"^\s*objectformat\s*=\s*\"?sha256\"?\s*$", text, re.IGNORECASE | re.MULTILINE):
            return 32
    return 20


def _common_dir(git_dir: str) -> str:
    try:
        common = read_bytes(os.path.join(git_dir, "commondir"), 4096).decode("utf-8").strip()
    except (OSError, ValueError):
        return git_dir
    return os.path.join(git_dir, common)


def _index_gitlinks(dot_git: str) -> tuple[tuple[str, str], ...] | None:
    """The gitlinks of the index of the repository whose ``.git`` is ``dot_git``: ``(path, commit
    hex)``, every stage. None when there is no index or hooklint cannot read it whole (then the
    caller falls back to ``.gitmodules``)."""
    git_dir = _git_dir(dot_git)
    if git_dir is None:
        return None
    try:
        data = read_bytes(os.path.join(git_dir, "index"), MAX_INDEX_SIZE)
    except (OSError, ValueError):
        return None
    try:
        return parse_index(data, _hash_size(git_dir))
    except (ValueError, IndexError, struct.error):
        return None


def parse_index(data: bytes, hash_size: int = 20) -> tuple[tuple[str, str], ...]:
    """The gitlinks (``(path, commit hex)``) of the Git index ``data`` (the ``DIRC`` format,
    versions 2, 3 and 4: git's ``Documentation/gitformat-index.txt``). Raises ValueError for what
    it cannot read whole: another signature or version, a split index (``link`` extension: most
    entries are in another file) or a sparse one (``sdir``: folders stand for their files)."""
    if data[:4] != b"DIRC":
        raise ValueError("not a git index")
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4):
        raise ValueError(f"index version {version}")
    at, previous, found = 12, b"", []
    for _ in range(count):
        mode = struct.unpack(">I", data[at + 24 : at + 28])[0]
        oid = data[at + 40 : at + 40 + hash_size]
        flags = struct.unpack(">H", data[at + 40 + hash_size : at + 42 + hash_size])[0]
        name = at + 42 + hash_size + (2 if version >= 3 and flags & 0x4000 else 0)
        if version == 4:
            byte = data[name]
            name += 1
            strip = byte & 0x7F
            while byte & 0x80:
                byte = data[name]
                name += 1
                strip = ((strip + 1) << 7) | (byte & 0x7F)
            end = data.index(b"\0", name)
            if strip > len(previous):
                raise ValueError("bad path prefix")
            path = previous[: len(previous) - strip] + data[name:end]
            at = end + 1
        else:
            end = data.index(b"\0", name)
            path = data[name:end]
            at += ((end - at) + 8) & ~7
        previous = path
        if mode & 0o170000 == GITLINK_MODE:
            found.append((path.decode("utf-8", "surrogateescape"), oid.hex()))
    end = len(data) - hash_size
    while at + 8 <= end:  # extensions: 4-byte signature, 4-byte size
        signature, size = data[at : at + 4], struct.unpack(">I", data[at + 4 : at + 8])[0]
        if signature in (b"link", b"sdir"):
            raise ValueError(f"index extension {signature.decode('ascii', 'replace')}")
        at += 8 + size
    return tuple(found)


@dataclass(frozen=True, order=True, slots=True)
class Unseen:
    """A submodule an application reads, as the HL009 that says so: ``file``, ``line`` and
    ``column`` (1-based) where it goes, its ``detail``, and the ``submodule``'s path from the
    repository's top; ``whole``: the application's source is in it (nothing of it rendered);
    ``field``: the finding's field (:meth:`Submodule.field`), so that pinning it to another commit
    is a new finding in a review, not an unchanged one."""

    file: str
    line: int
    column: int
    detail: str
    submodule: str
    whole: bool = False
    field: str = ""


def unseen_detail(subject: str, sub: Submodule, whole: bool, same: bool = False) -> str:
    """What an HL009 says of ``sub``, read by ``subject`` (``Application NAME (FILE:LINE):
    spec.source.path 'tools'``, ``the Helm chart chart``): ``whole``, the source is in it (``same``:
    is it), else it lies in what the source reads."""
    checked_out = ("Argo CD's repo server checks git submodules out (`git submodule update --init --recursive`, "
                   "as the repository has .gitmodules) and renders what that commit holds")  # fmt: skip
    advice = (f"To check it, vendor its files into this repository, or check it out (`git submodule update --init "
              f"{sub.path}`) and lint "
              + (f"it on its own (`hooklint lint {sub.path}`)" if whole else "what Argo CD renders with `hooklint lint -`"))
    if whole:
        return (f"{subject} is {'' if same else 'in '}{sub.described()}: {checked_out}. hooklint does not fetch submodules, so none "
                f"of its objects were checked, hooks included. {advice}")
    return (f"{subject} reads {sub.described()}: {checked_out} with the rest. hooklint does not fetch submodules, so "
            f"the objects it adds, possibly hooks, were not checked. {advice}")
