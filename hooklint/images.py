"""Container image references, read by Docker's rules (``distribution/reference``
``ParseNormalizedNamed``), and registry allowlist matching on boundaries.

- The first path component is a registry host only if it contains ``.`` or ``:`` or is
  ``localhost``; otherwise the host is ``docker.io`` (and a one-component name gets ``library/``).
- ``index.docker.io`` is the legacy name of ``docker.io``.
- Hosts compare case-insensitively; repository paths compare exactly.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

DOCKER_HUB = "docker.io"
_DIGEST = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$")
_SHA256 = re.compile(r"^sha256:[0-9a-f]{64}$")
_SPACE = re.compile(r"\s")  # what str.isspace() says, for every character at once


@dataclass(frozen=True, slots=True)
class ImageRef:
    """A parsed image reference: ``host`` (lower case, with ``:port`` if given), ``path``
    (``library/nginx``), ``tag`` and ``digest`` (None when absent)."""

    host: str
    path: str
    tag: str | None
    digest: str | None

    @property
    def hostname(self) -> str:
        """The host without its port."""
        return self.host.rsplit(":", 1)[0] if ":" in self.host else self.host

    @property
    def has_sha256_digest(self) -> bool:
        return bool(self.digest and _SHA256.match(self.digest))


def is_templated(image: str) -> bool:
    """True for values a linter cannot judge: Helm/Go templates or shell-style variables."""
    return "{{" in image or "$(" in image or "${" in image


@functools.lru_cache(maxsize=4096)  # a pure function of a string, asked by several rules per container
def parse_image(image: str) -> ImageRef | None:
    """Parse ``image`` (``[host[:port]/]path[:tag][@digest]``); None when it is empty, has
    whitespace, or is not a reference at all (a colon inside the path, ``host/team:x/app``, is not:
    ``distribution/reference`` path components hold no colon, and the runtime refuses the pull)."""
    if not image or _SPACE.search(image):
        return None
    name, digest = image, None
    if "@" in image:
        name, digest = image.split("@", 1)
        if not _DIGEST.match(digest):
            return None
    tag = None
    slash = name.rfind("/")
    colon = name.rfind(":")
    if colon > slash:
        name, tag = name[:colon], name[colon + 1 :]
        if not tag:
            return None
    if not name or name.startswith("/") or name.endswith("/") or "//" in name:
        return None
    first, _, rest = name.partition("/")
    if rest and ("." in first or ":" in first or first == "localhost"):
        host, path = first.lower(), rest
    else:
        host, path = DOCKER_HUB, name
    if ":" in path:  # a colon ends the host (its port) or the name (the tag), never a path component
        return None
    if host == "index.docker.io":
        host = DOCKER_HUB
    if host == DOCKER_HUB and "/" not in path:
        path = f"library/{path}"
    return ImageRef(host, path, tag, digest)


@dataclass(frozen=True, slots=True)
class RegistryEntry:
    """One ``allowed-registries`` entry: a host (``:port`` optional) and an optional path prefix."""

    host: str
    path: str

    @classmethod
    def parse(cls, text: str) -> "RegistryEntry":
        text = text.strip().rstrip("/")
        host, _, path = text.partition("/")
        host = host.lower()
        if host == "index.docker.io":
            host = DOCKER_HUB
        return cls(host, path)

    def admits(self, ref: ImageRef) -> bool:
        """Whole-host match (an entry without a port admits every port of that host; one with a
        port admits only that port), then a path prefix that ends at a ``/`` boundary:
        ``registry.example.com`` never admits ``registry.example.com.evil.net``, and
        ``registry.example.com/team`` never admits ``registry.example.com/teamx/app``."""
        if ":" in self.host:
            if ref.host != self.host:
                return False
        elif ref.hostname != self.host:
            return False
        if not self.path:
            return True
        return ref.path == self.path or ref.path.startswith(self.path + "/")


def allowed(ref: ImageRef, entries: list[RegistryEntry]) -> bool:
    return any(entry.admits(ref) for entry in entries)
