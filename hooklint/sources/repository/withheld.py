"""What no renderer's copy of a repository holds: Git's own data and the fetch step's credentials.

hooklint renders a chart or a kustomization on a temporary copy of the files the renderer may read
(:mod:`hooklint.sources.render.helm`, :mod:`hooklint.sources.render.kustomize`; a fetched source is
rendered the same way). A template reads any file of that copy (Helm's ``.Files.Get``,
``.Files.Glob``; a kustomization's ``resources``, ``configMapGenerator`` ``files``/``envs``) and can
print it in an error message. Two kinds of file must never be there:

- Git's data: every folder or file named ``.git`` (case-insensitively), at any depth, and anything
  reached through one (a link into ``.git/``). In CI the clone's ``.git/config`` holds the job's
  token (``actions/checkout`` writes ``http.https://github.com/.extraheader: AUTHORIZATION: basic
  ...``; GitLab writes ``https://gitlab-ci-token:TOKEN@...`` as the remote URL); a submodule's
  ``.git`` is a file (``gitdir: ...``) naming where its data is.
- The file ``fetch-credentials`` names (CI writes it into the repository, README "Fetching"), at
  that path in any checkout of the repository, and any link or hard link to it.

Helm does not leave ``.git`` out by itself: its chart loader ignores only what the chart's
``.helmignore`` lists plus ``templates/.?*`` (helm ``pkg/ignore/rules.go`` ``AddDefaults``, used by
``pkg/chart/v2/loader/directory.go`` ``LoadDir``; v4.2.3), so a chart at the top of a checkout
sees ``.git/config`` through ``.Files.Get`` unless its ``.helmignore`` lists ``.git/`` (``helm
create`` writes one that does). Leaving it out is no less faithful to Argo CD: its repo server
renders on its own checkout, whose ``.git/config`` holds no CI token (it passes credentials through
``GIT_ASKPASS``, ``util/git/client.go``), and never holds the CI's credentials file.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass

from hooklint.files import repository_of
from hooklint.sources.repository import facts

#: The name Git gives its data: a folder in a clone, a file (``gitdir: ...``) in a submodule or
#: linked worktree.
GIT_DATA = ".git"
#: Why a file of Git's data is left out, finishing "X is ...".
GIT_REASON = "Git's data (.git: it may hold the CI job's token)"
#: Why the fetch credentials file is left out, finishing "X is ...".
CREDENTIALS_REASON = "the fetch step's credentials file (fetch-credentials)"


def git_data(relative: str) -> bool:
    """Whether the path ``relative`` (to a repository's top, ``/`` or the OS separator) passes
    through a file or folder named ``.git`` (any letter case: a case-insensitive file system reads
    ``.GIT`` as ``.git``)."""
    return any(part.lower() == GIT_DATA for part in relative.replace(os.sep, "/").split("/"))


@functools.lru_cache(maxsize=64)
def _tops(root: str) -> tuple[str, str, str]:
    """``root`` absolute, resolved, and the resolved top of the repository holding it (or itself)."""
    real_root = os.path.realpath(root)
    return os.path.abspath(root), real_root, os.path.realpath(repository_of(real_root) or real_root)


@dataclass(frozen=True, slots=True)
class Withheld:
    """The files no renderer's copy holds besides Git's data: the fetch credentials file, by its
    path from its repository's top (``inside``, so the same path of another checkout, the base's
    in a review, is left out too) and by its identity (``identity``: ``(st_dev, st_ino)``, so a
    link or hard link to it elsewhere is left out). Empty when no ``fetch-credentials`` is set."""

    inside: str | None = None
    identity: tuple[int, int] | None = None

    @classmethod
    def of(cls, credentials: str | None) -> "Withheld":
        """The files withheld for the configuration key ``fetch-credentials`` set to ``credentials``
        (a path, or None); a file that does not exist is withheld by its path alone."""
        if not credentials:
            return cls()
        top = repository_of(os.path.dirname(os.path.abspath(credentials)))
        inside = os.path.relpath(os.path.abspath(credentials), top) if top is not None else None
        try:
            info = os.stat(credentials)
            identity: tuple[int, int] | None = (info.st_dev, info.st_ino)
        except (OSError, ValueError):
            identity = None
        return cls(inside if inside is not None and not inside.startswith("..") else None, identity)

    def why(self, path: str, root: str) -> str | None:
        """Why the file or folder ``path`` (under ``root``, the top of the tree being copied, as
        reached; links on the way followed) must stay out of a renderer's copy (:data:`GIT_REASON`,
        :data:`CREDENTIALS_REASON`), or None when it may be copied. Both the path as reached and
        its resolved path are checked, so a link to ``.git/config`` is withheld as the file is. Never
    raises."""
        absolute_root, real_root, real_top = _tops(root)
        reached = os.path.relpath(os.path.abspath(path), absolute_root)
        if "\0" in path:  # no such file (the caller's checks say so)
            return GIT_REASON if git_data(reached) else None
        real = facts.realpath(path)  # os.path.realpath's answer, one lstat per path of the run
        resolved = os.path.relpath(real, real_root)
        if git_data(reached) or (not resolved.startswith("..") and git_data(resolved)):
            return GIT_REASON
        if self.inside is not None and os.path.normcase(os.path.relpath(real, real_top)) == os.path.normcase(self.inside):
            return CREDENTIALS_REASON
        if self.identity is not None:
            try:
                info = os.stat(path)
            except (OSError, ValueError):
                return None
            if (info.st_dev, info.st_ino) == self.identity:
                return CREDENTIALS_REASON
        return None
