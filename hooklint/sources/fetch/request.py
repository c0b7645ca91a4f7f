"""What the fetch step is asked for and what it gives back: a :class:`RemoteSource`, the
:class:`FetchPolicy` it is fetched under (listed hosts, credentials, limits, the cache folder), the
:class:`Fetched` folder, and the cache of resolutions (``refs/``: repository, chart, revision ->
digest or commit). Shared by the chart and OCI fetch (:mod:`hooklint.sources.fetch`) and the Git
fetch (:mod:`hooklint.sources.fetch.git`), which import it and not each other's modules.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from dataclasses import dataclass, field

from hooklint.sources.fetch import net
from hooklint.sources.fetch.net import Budget, Hosts


#: Seconds a resolution of a constraint, tag or branch is reused without asking again.
REF_TTL = 3600


@dataclass(frozen=True, slots=True)
class RemoteSource:
    """A source of an Application that lives elsewhere: ``kind`` ``helm`` (a chart repository),
    ``oci`` (a chart in an OCI registry) or ``git`` (another Git repository); ``repo_url`` as
    written; ``chart`` (charts); ``revision`` (``targetRevision``, ``""`` for none); ``path`` (Git)."""

    kind: str
    repo_url: str
    chart: str = ""
    revision: str = ""
    path: str = ""

    @classmethod
    def of(cls, source: dict) -> "RemoteSource | None":
        """The remote source an Application's ``spec.source`` / ``spec.sources[N]`` mapping names,
        or None when it names none hooklint fetches (Argo CD: a ``chart`` makes a Helm source, its
        ``repoURL`` an OCI registry when it has the ``oci://`` scheme or none at all)."""
        url, chart = source.get("repoURL"), source.get("chart")
        revision = source.get("targetRevision")
        revision = revision.strip() if isinstance(revision, str) else ""
        if not isinstance(url, str) or not url.strip():
            return None
        url = url.strip()
        if isinstance(chart, str) and chart.strip():
            scheme = url.partition("://")[0].lower() if "://" in url else ""
            kind = "oci" if scheme in ("", "oci") else "helm" if scheme in ("http", "https") else ""
            return cls(kind, url, chart.strip(), revision) if kind else None
        path = source.get("path")
        if isinstance(path, str):
            return cls("git", url, "", revision, path)  # Path (util/app/path/path.go) never trims it
        return None

    def label(self) -> str:
        """How messages name it: ``chart hookchart from https://charts.example.com`` or the Git URL."""
        if self.kind == "git":
            return f"{self.repo_url} at {self.revision or 'HEAD'}"
        return f"chart {self.chart} {self.revision or '(newest)'} from {self.repo_url}"


@dataclass(frozen=True, slots=True)
class Fetched:
    """A fetched source on disk: ``folder`` (the chart's folder, or the Git source's ``path``),
    ``root`` (the folder nothing rendered may leave: the unpacked chart or the Git tree),
    ``name`` and ``version`` (the chart's; for Git the commit), ``digest`` (``sha256:...`` or the
    commit), and whether it came from the cache without any network (``cached``)."""

    folder: str
    root: str
    name: str
    version: str
    digest: str
    cached: bool = False

    def label(self) -> str:
        """``hookchart 1.2.0`` (for Git: ``URL@commit``), as findings in it name it."""
        return f"{self.name} {self.version}"


@dataclass(slots=True)
class FetchPolicy:
    """What a run may fetch and how: ``hosts`` (:class:`~.net.Hosts`), ``credentials``
    (``host:port`` -> ``Authorization`` value, from :func:`load_credentials`), the per-source limits
    ``max_bytes``, ``max_files`` and ``timeout`` (seconds), and ``cache`` (the folder for fetched
    content; made when missing)."""

    hosts: Hosts = field(default_factory=Hosts)
    credentials: dict[str, str] = field(default_factory=dict)
    max_bytes: int = net.DEFAULT_MAX_BYTES
    max_files: int = net.DEFAULT_MAX_FILES
    timeout: float = net.DEFAULT_TIMEOUT
    cache: str = ""

    def budget(self) -> Budget:
        """A fresh :class:`~.net.Budget` for one source."""
        return Budget(self.max_bytes, self.max_files, self.timeout)


def ref_key(*parts: str) -> str:
    """The ``refs/`` entry name of a resolution of ``parts``."""
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def read_ref(policy: FetchPolicy, key: str, pinned: bool) -> dict | None:
    """The stored resolution ``key``, when it exists and is still good (always when ``pinned``)."""
    try:
        with open(os.path.join(policy.cache, "refs", key + ".json"), encoding="utf-8") as handle:
            entry = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(entry, dict) or (not pinned and time.time() - float(entry.get("time", 0)) > REF_TTL):
        return None
    return entry


def write_ref(policy: FetchPolicy, key: str, entry: dict) -> None:
    """Store the resolution ``key`` (atomically; a cache that cannot be written is ignored)."""
    folder = os.path.join(policy.cache, "refs")
    try:
        os.makedirs(folder, 0o700, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=folder, prefix=".ref-")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump({**entry, "time": time.time()}, handle)
        os.replace(temporary, os.path.join(folder, key + ".json"))
    except OSError:
        pass
