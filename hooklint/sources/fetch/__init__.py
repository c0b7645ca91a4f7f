"""The fetch step (``--fetch``): a remote source downloaded as Argo CD's repo server would, into a
cache keyed by digest, and handed back as a local folder to render like any other.

What is fetched (:class:`RemoteSource`, :func:`fetch`; charts by :mod:`.charts`):

- a chart from an HTTP(S) chart repository: ``index.yaml``, the version ``targetRevision`` names
  (:mod:`.semver`: Argo CD's ``MaxVersion``, then Helm's ``IndexFile.Get``), the archive its
  ``urls`` give, checked against its ``digest`` (sha256; an entry without one is refused) before anything reads it
  (``reposerver/repository/repository.go`` ``newHelmClientResolveRevision``,
  ``util/helm/client.go`` ``ExtractChart``);
- a chart from an OCI registry (``oci://host/path`` or ``host/path`` with ``chart``): the
  distribution API's ``/v2/NAME/tags/list`` for a constraint (Helm writes ``+`` as ``_`` in tags),
  ``/v2/NAME/manifests/REF`` and the chart layer's blob
  (``application/vnd.cncf.helm.chart.content.v1.tar+gzip``), both checked against their digests
  (``util/oci/client.go``), with the registry's anonymous or credentialed bearer token;
- a Git repository of another repository at its revision (:mod:`.git`).

Every request goes through :mod:`.client` by the rules of :mod:`.net` (listed hosts only, checked addresses, no environment
credentials or proxies) under one :class:`~.net.Budget` per source; archives are unpacked by
:mod:`.archive`. What a run fetched is kept under ``fetch/`` of the cache folder
(:func:`hooklint.sources.render.cache.cache_dir`): blobs and unpacked trees by their sha256 or commit,
and each resolution (repository, chart, revision -> digest) in ``refs/``; a pinned version, digest
or commit is never asked again, a constraint, tag or branch again after
:data:`~hooklint.sources.fetch.request.REF_TTL` seconds.
So a second run needs no network. With the cache off, the run's scratch folder holds them.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from typing import Any

import yaml

from hooklint.config import parse_host_entry

from hooklint.sources.fetch.net import FetchError
from hooklint.sources.fetch.request import FetchPolicy, Fetched, RemoteSource

__all__ = ["SSH_NEVER", "FetchError", "FetchPolicy", "Fetched", "RemoteSource", "base_not_fetched", "fetch", "fetch_advice",
           "host_entry", "is_ssh", "load_credentials"]



def load_credentials(path: str) -> dict[str, str]:
    """The credentials file ``path`` (YAML or JSON): a mapping of ``host[:port]`` to ``{username,
    password}`` (HTTP basic) or ``{token}`` (bearer), as ``host:port`` -> ``Authorization`` value
    (port 443 when none is given). Raises ValueError naming the file and entry, never a value."""
    import base64

    from hooklint.yamlio import BoundedLoader  # noqa: PLC0415 - a file of the repository: aliases and nodes bounded

    try:
        with open(path, "rb") as handle:
            data = yaml.load(handle.read(1 << 20), Loader=BoundedLoader)
    except (OSError, yaml.YAMLError) as exc:
        raise ValueError(f"{path}: cannot read the fetch credentials ({getattr(exc, 'strerror', None) or type(exc).__name__})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: fetch credentials must be a mapping of host[:port] to username/password or token")
    out = {}
    for host, entry in data.items():
        try:
            parsed = parse_host_entry(str(host))
        except ValueError:
            raise ValueError(f"{path}: fetch credentials entry {str(host)!r} must be host[:port]") from None
        key = f"{parsed.host}:{parsed.port or 443}"
        if isinstance(entry, dict) and isinstance(entry.get("token"), str):
            out[key] = f"Bearer {entry['token']}"
        elif isinstance(entry, dict) and isinstance(entry.get("username"), str) and isinstance(entry.get("password"), str):
            pair = f"{entry['username']}:{entry['password']}".encode()
            out[key] = "Basic " + base64.b64encode(pair).decode("ascii")
        else:
            raise ValueError(f"{path}: fetch credentials entry {str(host)!r} needs username and password, or token")
    return out


def fetch(source: RemoteSource, policy: FetchPolicy) -> Fetched:
    """``source`` on disk (:class:`Fetched`), from the cache when it holds it, else downloaded
    under ``policy``. Raises :class:`FetchError` with one line (the source named by the caller)."""
    if not policy.cache:
        raise FetchError("no folder to keep fetched sources in")
    os.makedirs(policy.cache, 0o700, exist_ok=True)
    if source.kind in ("helm", "oci"):
        from hooklint.sources.fetch.charts import fetch_chart  # noqa: PLC0415 - HTTP and archives only when fetching

        return fetch_chart(source, policy)
    if source.kind == "git":
        from hooklint.sources.fetch.git import fetch_git  # noqa: PLC0415 - the Git step only when needed

        return fetch_git(source, policy)
    raise FetchError(f"{source.repo_url}: hooklint does not fetch this kind of source")


def host_entry(url: str) -> str | None:
    """The ``fetch-hosts`` entry that admits ``url`` (a chart repository, an OCI registry with or
    without ``oci://``, an ``http(s)://`` Git remote): ``charts.example.com`` (HTTPS, port 443),
    ``charts.example.com:8443``, ``http://10.0.0.5:8080`` (plain HTTP); ``file:///srv/git/repo``
    for a ``file://`` Git remote (``--fetch-host`` only); None for a URL the fetch step never
    contacts (``ssh://``, scp-like ``git@host:path``, a URL holding credentials, an unknown scheme,
    a ``file://`` URL holding ``%``, ``?`` or ``#``, which :mod:`hooklint.sources.fetch.git` refuses)."""
    url = url.strip()
    scheme = url.partition("://")[0].lower() if "://" in url else ""
    if scheme == "file":
        if any(c in url for c in "%?#"):
            return None
        parts = urllib.parse.urlsplit(url)
        return f"file://{parts.path}" if not parts.netloc and parts.path.startswith("/") else None
    if scheme not in ("", "http", "https", "oci") or (not scheme and re.match(r"^[^/]*@", url)):
        return None
    parts = urllib.parse.urlsplit(url if scheme else f"//{url}")
    try:
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname or parts.username is not None or parts.password is not None:
        return None
    host = parts.hostname.lower()
    host = f"[{host}]" if ":" in host else host
    if scheme == "http":
        return f"http://{host}" + (f":{port}" if port not in (None, 80) else "")
    return host + (f":{port}" if port not in (None, 443) else "")


def fetch_advice(url: str) -> str | None:
    """How to have ``--fetch`` fetch a source or chart dependency at ``url``, a clause for a
    message's fix: ``run with `--fetch` and list charts.example.com in `fetch-hosts` (or give
    `--fetch-host charts.example.com`)``; None when the fetch step never contacts ``url``
    (:func:`host_entry`)."""
    entry = host_entry(url)
    if entry is None:
        return None
    if entry.startswith("file://"):
        return f"run with `--fetch --fetch-host {entry}`"
    return f"run with `--fetch` and list {entry} in `fetch-hosts` (or give `--fetch-host {entry}`)"


#: Why an ssh Git remote (``ssh://``, ``git+ssh://``, scp-like ``git@host:org/repo.git``) is never fetched.
SSH_NEVER = ("hooklint never fetches an ssh Git remote: ssh signs in with the keys, agent and configuration of the "
             "machine it runs on, and the fetch step takes no credentials from the environment")  # fmt: skip
_SSH = re.compile(r"^(?:(?:ssh|git\+ssh|ssh\+git)://|[\w.-]+@[\w.-]+:)", re.IGNORECASE)


def is_ssh(url: str) -> bool:
    """Whether the Git URL ``url`` is an ssh one (``ssh://``, ``git+ssh://``, scp-like ``user@host:path``)."""
    return _SSH.match(url.strip()) is not None


def base_not_fetched(entry: str, spec: Any) -> str | None:
    """Why the fetch step never fetches the remote kustomize entry ``entry`` (its
    :class:`~hooklint.sources.repository.kustomize_spec.RepoSpec` ``spec``), or None: an ssh remote
    (:data:`SSH_NEVER`), or a ``http(s)://`` entry naming a ``.yaml``/``.yml``/``.json`` file, which
    kustomize reads as a file over HTTP (``api/internal/target/kusttarget.go``
    ``accumulateResources`` asks an entry as a file first, then as a repository), not a Git base."""
    from hooklint.sources.repository.kustomize_spec import is_remote_file  # noqa: PLC0415

    if is_ssh(spec.clone_url()):
        return SSH_NEVER
    if is_remote_file(entry) and entry.partition("?")[0].lower().endswith((".yaml", ".yml", ".json")):
        return "kustomize reads it as a file over HTTP, which --fetch does not fetch"
    return None
