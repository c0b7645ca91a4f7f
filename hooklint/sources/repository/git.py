"""The Git checkout holding a folder, read as files: its top (the nearest folder with ``.git``) and
the ``url`` of each remote in its configuration. Git itself is never run here; these answer "which
repository is this" for containment (:mod:`hooklint.sources.repository.tree`) and for "this
repository" in Argo CD's ``repoURL`` sense (:mod:`hooklint.sources.appmap.applications`)."""

from __future__ import annotations

import os

from hooklint.files import read_bytes
from hooklint.loader import DEFAULT_MAX_FILE_SIZE


def git_root(folder: str, _roots: dict[str, str | None] | None = None) -> str | None:
    """The git repository holding ``folder``: the nearest folder above it (itself included) with
    ``.git`` (a folder, or a file ``gitdir: ...`` as in worktrees and submodules), absolute; None
    outside one. ``_roots`` memoises the answer for every folder visited (many folders of one
    tree)."""
    roots = _roots if _roots is not None else {}
    probe = os.path.abspath(folder)
    visited = []
    root: str | None = None
    while True:
        if probe in roots:
            root = roots[probe]
            break
        visited.append(probe)
        if os.path.exists(os.path.join(probe, ".git")):
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
