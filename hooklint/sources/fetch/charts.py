"""The chart fetch of the fetch step (:func:`fetch_chart`): a chart from an HTTP(S) chart
repository or an OCI registry, as :mod:`hooklint.sources.fetch` describes, each request through
:mod:`.client` under the source's budget, each archive checked against its digest and unpacked by
:mod:`.archive`. Imported only when a run fetches a chart.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import urllib.parse

import yaml

from hooklint.sources.fetch import client
from hooklint.sources.fetch.archive import unpack_chart
from hooklint.sources.fetch.net import FetchError
from hooklint.sources.fetch.request import FetchPolicy, Fetched, RemoteSource, read_ref, ref_key, write_ref
from hooklint.sources.fetch.semver import ResolveError, index_get, max_version, parse_version

_HELM_CONFIG = "application/vnd.cncf.helm.config.v1+json"
_HELM_LAYER = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"
_MANIFEST_TYPES = "application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json"
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")


def fetch_chart(source: RemoteSource, policy: FetchPolicy) -> Fetched:
    """The chart ``source`` names (``kind`` ``helm`` or ``oci``) on disk, from the cache when it
    holds it, else downloaded under ``policy``. Raises :class:`FetchError` with one line."""
    fetching = _Fetch(policy)
    return fetching.chart_repository(source) if source.kind == "helm" else fetching.oci(source)


class _Fetch:
    """One source's fetch: the policy and its budget."""

    def __init__(self, policy: FetchPolicy):
        self.policy = policy
        self.budget = policy.budget()

    def get(self, url: str, headers: dict[str, str] | None = None) -> client.Response:
        return client.get(url, self.policy.hosts, self.budget, headers, self.policy.credentials)

    # chart repositories -------------------------------------------------------------------------

    def chart_repository(self, source: RemoteSource) -> Fetched:
        key = ref_key("helm", source.repo_url.rstrip("/"), source.chart, source.revision)
        known = read_ref(self.policy, key, pinned=False)
        if known is None:  # a version the index lists exactly so is a pin: asked for once (1.2 may become 1.2.8)
            known = read_ref(self.policy, key, pinned=True)
            known = known if known is not None and known.get("version") == source.revision else None
        if known is not None:
            tree = self._tree(str(known.get("digest", "")))
            if tree is not None:
                return Fetched(tree, os.path.dirname(tree), source.chart, str(known.get("version")), known["digest"], True)
        base = source.repo_url.rstrip("/") + "/"
        index = _yaml(self.get(urllib.parse.urljoin(base, "index.yaml")).body, f"{base}index.yaml")
        entries = index.get("entries") if isinstance(index, dict) else None
        versions = entries.get(source.chart) if isinstance(entries, dict) else None
        if not isinstance(versions, list):
            raise FetchError(f"chart {source.chart!r} not found in {base}index.yaml")
        listed = [v for v in versions if isinstance(v, dict) and isinstance(v.get("version"), str)]
        try:
            wanted = max_version(source.revision, [v["version"] for v in listed]) if source.revision else "*"
        except ResolveError as exc:
            raise FetchError(f"chart {source.chart}: {exc}") from None
        chosen = index_get(wanted, [v["version"] for v in listed])
        if chosen is None:
            raise FetchError(f"chart {source.chart} version {wanted} not found in {base}index.yaml")
        entry = next(v for v in listed if v["version"] == chosen)
        urls = entry.get("urls")
        if not isinstance(urls, list) or not urls or not isinstance(urls[0], str):
            raise FetchError(f"chart {source.chart} {chosen} has no archive URL in {base}index.yaml")
        archive_url = urllib.parse.urljoin(base, urls[0])
        expected = _index_digest(entry.get("digest"), f"chart {source.chart} {chosen}", f"{base}index.yaml")
        data = self.get(archive_url).body
        actual = "sha256:" + hashlib.sha256(data).hexdigest()
        if expected != actual:
            raise FetchError(f"chart {source.chart} {chosen}: the archive's digest {actual} is not the index's "
                             f"{expected}: refused")  # fmt: skip
        folder = self._unpack(data, actual, f"chart {source.chart} {chosen}")
        write_ref(self.policy, key, {"digest": actual, "version": chosen})
        return Fetched(folder, os.path.dirname(folder), source.chart, chosen, actual)

    # OCI registries -----------------------------------------------------------------------------

    def oci(self, source: RemoteSource) -> Fetched:
        rest = source.repo_url.split("://", 1)[1] if "://" in source.repo_url else source.repo_url
        host, _, path = rest.strip("/").partition("/")
        name = "/".join(p for p in (path, source.chart) if p)
        scheme = "https"
        parsed = urllib.parse.urlsplit(f"//{host}")
        try:
            port = parsed.port
        except ValueError:
            raise FetchError(f"{source.repo_url}: not a valid registry host") from None
        hostname = parsed.hostname or ""
        entry = self.policy.hosts.entry_for("http", hostname, port)
        if entry is not None:
            scheme = "http"  # listed as http://host: the registry speaks plain HTTP (insecureOCIForceHttp)
        registry = f"{scheme}://{host}"
        revision = source.revision
        pinned = bool(_DIGEST.match(revision)) or parse_version(revision) is not None
        key = ref_key("oci", registry, name, revision)
        known = read_ref(self.policy, key, pinned)
        if known is not None:
            tree = self._tree(str(known.get("digest", "")))
            if tree is not None:
                return Fetched(tree, os.path.dirname(tree), source.chart, str(known.get("version")), known["digest"], True)
        self.token: str | None = None
        if not _DIGEST.match(revision) and (not revision or parse_version(revision) is None):
            listed = _json(self._registry_get(registry, name, f"/v2/{name}/tags/list").body, "tags/list")
            tags = [t.replace("_", "+") for t in listed.get("tags") or [] if isinstance(t, str)] if isinstance(listed, dict) else []
            try:
                revision = max_version(revision or "*", tags)
            except ResolveError as exc:
                raise FetchError(f"chart {source.chart}: {exc}") from None
        reference = revision if _DIGEST.match(revision) else revision.replace("+", "_")
        answer = self._registry_get(registry, name, f"/v2/{name}/manifests/{reference}", {"Accept": _MANIFEST_TYPES})
        manifest_digest = "sha256:" + hashlib.sha256(answer.body).hexdigest()
        if _DIGEST.match(revision) and manifest_digest != revision:
            raise FetchError(f"chart {source.chart}: the manifest's digest {manifest_digest} is not {revision}: refused")
        said = answer.headers.get("docker-content-digest")
        if said and _DIGEST.match(said) and said != manifest_digest:
            raise FetchError(f"chart {source.chart} {revision}: the manifest's digest {manifest_digest} is not the "
                             f"registry's {said}: refused")  # fmt: skip
        manifest = _json(answer.body, "the manifest")
        layers = manifest.get("layers") if isinstance(manifest, dict) else None
        chart_layers = [la for la in layers or [] if isinstance(la, dict) and la.get("mediaType") == _HELM_LAYER]
        if len(chart_layers) != 1 or not isinstance(chart_layers[0].get("digest"), str) or not _DIGEST.match(chart_layers[0]["digest"]):
            raise FetchError(f"chart {source.chart} {revision}: the manifest holds no single Helm chart layer ({_HELM_LAYER})")
        digest = chart_layers[0]["digest"]
        tree = self._tree(digest)
        if tree is None:
            data = self._registry_get(registry, name, f"/v2/{name}/blobs/{digest}").body
            actual = "sha256:" + hashlib.sha256(data).hexdigest()
            if actual != digest:
                raise FetchError(f"chart {source.chart} {revision}: the layer's digest {actual} is not the manifest's "
                                 f"{digest}: refused")  # fmt: skip
            tree = self._unpack(data, digest, f"chart {source.chart} {revision}")
        version = revision if not _DIGEST.match(revision) else revision[:19]
        write_ref(self.policy, key, {"digest": digest, "version": version})
        return Fetched(tree, os.path.dirname(tree), source.chart, version, digest)

    def _registry_get(self, registry: str, name: str, path: str, headers: dict[str, str] | None = None) -> client.Response:
        """GET ``registry + path``; on a 401 with a ``Bearer`` challenge, once more with the token of
        its realm (the realm's host must be listed too; credentials for the registry go to it)."""
        sent = dict(headers or {})
        if self.token:
            sent["Authorization"] = f"Bearer {self.token}"
        answer = client.get(registry + path, self.policy.hosts, self.budget, sent, self.policy.credentials,
                         accept_status=(200, 401))  # fmt: skip
        if answer.status == 200:
            return answer
        challenge = answer.headers.get("www-authenticate", "")
        if self.token or not challenge.lower().startswith("bearer "):
            raise FetchError(f"{registry}{path}: HTTP 401 (credentials for this registry go in the file fetch-credentials names)")
        params = dict(re.findall(r'(\w+)="([^"]*)"', challenge))
        realm = params.pop("realm", "")
        query = urllib.parse.urlencode({k: v for k, v in params.items() if k in ("service", "scope")}
                                       or {"scope": f"repository:{name}:pull"})  # fmt: skip
        registry_key = _host_key(registry)
        auth = {}
        if registry_key in self.policy.credentials:
            auth = {_host_key(realm): self.policy.credentials[registry_key]}
        token_answer = client.get(f"{realm}?{query}", self.policy.hosts, self.budget, None, auth)
        body = _json(token_answer.body, "the registry's token")
        token = body.get("token") or body.get("access_token") if isinstance(body, dict) else None
        if not isinstance(token, str) or not token:
            raise FetchError(f"{realm}: no token in the answer")
        self.token = token
        return self._registry_get(registry, name, path, headers)

    # the cache ----------------------------------------------------------------------------------

    def _tree(self, digest: str) -> str | None:
        """The unpacked chart of archive ``digest`` in the cache, or None."""
        if not _DIGEST.match(digest):
            return None
        top = os.path.join(self.policy.cache, "trees", digest.replace(":", "-"))
        try:
            names = [n for n in os.listdir(top) if not n.startswith(".")]
        except OSError:
            return None
        if len(names) == 1 and os.path.isfile(os.path.join(top, names[0], "Chart.yaml")):
            return os.path.join(top, names[0])
        return None

    def _unpack(self, data: bytes, digest: str, what: str) -> str:
        """Unpack the verified archive ``data`` into the cache under its ``digest``; its chart folder."""
        trees = os.path.join(self.policy.cache, "trees")
        os.makedirs(trees, 0o700, exist_ok=True)
        scratch = tempfile.mkdtemp(dir=trees, prefix=".unpack-")
        try:
            chart = unpack_chart(data, os.path.join(scratch, "t"), self.budget, what)
            final = os.path.join(trees, digest.replace(":", "-"))
            try:
                os.rename(os.path.join(scratch, "t"), final)
            except OSError:  # another run stored it first
                existing = self._tree(digest)
                if existing is None:
                    raise
                return existing
            return os.path.join(final, os.path.basename(chart))
        finally:
            from hooklint.files import remove_tree  # noqa: PLC0415

            remove_tree(scratch)


def _index_digest(listed: object, what: str, index: str) -> str:
    """The ``sha256:<hex>`` digest a chart repository's ``index.yaml`` gives a chart version
    (``listed``: the entry's ``digest``, hex as ``helm repo index`` writes it, or with a
    ``sha256:`` prefix; any case). Raises :class:`FetchError` (``what``: ``chart NAME VERSION``) for
    an entry without one, or with one that is not a sha256 digest: the archive could not be
    checked, and an unchecked download is never rendered (fail closed; Helm's own ``helm pull``
    would take it unchecked, hooklint does not)."""
    if listed is None or listed == "":
        raise FetchError(f"{what}: {index} gives no digest for it, so its archive cannot be checked: refused "
                         "(the repository's index.yaml needs the archive's sha256 digest, as 'helm repo index' writes it)")  # fmt: skip
    text = listed.lower() if isinstance(listed, str) else ""
    expected = text if text.startswith("sha256:") else "sha256:" + text
    if not _DIGEST.match(expected):
        raise FetchError(f"{what}: {index} gives the digest {str(listed)[:80]!r}, which is not a sha256 digest (64 hex "
                         "digits), so its archive cannot be checked: refused")  # fmt: skip
    return expected


def _host_key(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    return f"{(parts.hostname or '').lower()}:{port or (443 if parts.scheme == 'https' else 80)}"


def _yaml(data: bytes, what: str) -> object:
    from hooklint.yamlio import BoundedLoader  # noqa: PLC0415

    try:
        loader = BoundedLoader(data)
        try:
            node = loader.get_single_node()
            return loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        raise FetchError(f"{what} is not readable YAML ({getattr(exc, 'problem', None) or type(exc).__name__})") from None


def _json(data: bytes, what: str) -> object:
    try:
        return json.loads(data)
    except ValueError:
        raise FetchError(f"{what} is not JSON") from None
