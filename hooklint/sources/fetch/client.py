"""The HTTP(S) GET of the fetch step (:func:`get`): the requests :mod:`.net`'s rules allow, made as
its docstring says (the name resolved here, each address checked before and after connecting, TLS
verified for the host name, redirects followed by hand, every body and socket operation under the
source's :class:`~.net.Budget`). Imported only when a run fetches: ``http.client``, ``ssl`` and
``socket`` stay out of every other run's start-up.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import time
import urllib.parse
from dataclasses import dataclass

from hooklint.config import HostEntry
from hooklint.sources.fetch.net import MAX_REDIRECTS, Budget, FetchError, Hosts, check_address


#: Request headers that carry a credential: sent only to the host the request was made for, never
#: along a redirect to another (Go's ``net/http`` ``shouldCopyHeaderOnRedirect``, and proxies').
CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "cookie2", "www-authenticate"})


@dataclass(frozen=True, slots=True)
class Response:
    """A response: ``status``, ``headers`` (lower-case names), ``body`` and the ``url`` it came from."""

    status: int
    headers: dict[str, str]
    body: bytes
    url: str


def _connect(entry: HostEntry, host: str, port: int, budget: Budget) -> socket.socket:
    """A TCP socket connected to a checked address of ``host``."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise FetchError(f"cannot resolve {host} ({exc.strerror if isinstance(exc, OSError) else exc})") from None
    refusal: FetchError | None = None
    for family, kind, proto, _, sockaddr in infos:
        try:
            check_address(str(sockaddr[0]), entry, host)
        except FetchError as exc:
            refusal = refusal or exc
            continue
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(min(budget.left(), 30))
            sock.connect(sockaddr)
            check_address(str(sock.getpeername()[0]), entry, host)
            return sock
        except FetchError:
            sock.close()
            raise
        except OSError as exc:
            sock.close()
            refusal = FetchError(f"cannot connect to {host}:{port} ({exc.strerror or type(exc).__name__})")
    raise refusal or FetchError(f"cannot resolve {host}")


class _Connection(http.client.HTTPConnection):
    """An HTTP connection whose socket is made by :func:`_connect` (TLS on top for HTTPS)."""

    def __init__(self, entry: HostEntry, host: str, port: int, tls: bool, budget: Budget):
        super().__init__(host, port, timeout=min(budget.left(), 30))
        self._entry, self._tls, self._budget = entry, tls, budget

    def connect(self) -> None:
        sock = _connect(self._entry, self.host, self.port, self._budget)
        if self._tls:
            context = ssl.create_default_context()
            try:
                sock = context.wrap_socket(sock, server_hostname=self.host)
            except (ssl.SSLError, OSError) as exc:
                sock.close()
                raise FetchError(f"TLS with {self.host}:{self.port} failed ({getattr(exc, 'reason', None) or exc})") from None
        self.sock = sock


def get(url: str, hosts: Hosts, budget: Budget, headers: dict[str, str] | None = None,
        credentials: dict[str, str] | None = None, accept_status: tuple[int, ...] = (200,)) -> Response:  # fmt: skip
    """GET ``url`` as the module docstring says and return the final :class:`Response` (its status
    one of ``accept_status``). ``credentials`` maps ``host:port`` to an ``Authorization`` value,
    sent only to that host. A header of ``headers`` that carries a credential
    (:data:`CREDENTIAL_HEADERS`: a registry's bearer token) goes only to the scheme, host and port
    of ``url`` itself, never along a redirect to another (Go's ``net/http`` ``Client`` drops
    ``Authorization``, ``WWW-Authenticate`` and ``Cookie`` on a redirect to another host:
    ``shouldCopyHeaderOnRedirect``, as Helm, Argo CD and containerd send them; hooklint also on
    another scheme or port). Raises :class:`FetchError`: a host not listed (nothing is resolved or
    contacted), a refused address, a limit, another status."""
    origin: tuple[str, str, int] | None = None
    for _ in range(MAX_REDIRECTS + 1):
        parts = urllib.parse.urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https") or not parts.hostname:
            raise FetchError(f"{_shown(url)}: only http:// and https:// URLs are fetched")
        try:
            port = parts.port or (443 if scheme == "https" else 80)
        except ValueError:
            raise FetchError(f"{_shown(url)}: not a valid port") from None
        host = parts.hostname.lower()
        entry = hosts.entry_for(scheme, host, port)
        if entry is None:
            raise FetchError(f"{_shown(url)}: {_where(scheme, host, port)} is not in fetch-hosts: not contacted")
        origin = origin or (scheme, host, port)
        sent = {k: v for k, v in (headers or {}).items()
                if origin == (scheme, host, port) or k.lower() not in CREDENTIAL_HEADERS}  # fmt: skip
        key = f"{host}:{port}"
        if credentials and key in credentials:
            sent.setdefault("Authorization", credentials[key])
        sent.setdefault("User-Agent", "hooklint")
        connection = _Connection(entry, host, port, scheme == "https", budget)
        try:
            target = urllib.parse.urlunsplit(("", "", parts.path or "/", parts.query, ""))
            connection.request("GET", target, headers=sent)
            response = connection.getresponse()
            status = response.status
            got = {k.lower(): v for k, v in response.getheaders()}
            if status in (301, 302, 303, 307, 308) and "location" in got:
                url = urllib.parse.urljoin(url, got["location"])
                response.close()
                continue
            body = _read(connection, response, budget, url) if status in accept_status else b""
        except FetchError:
            raise
        except TimeoutError:
            spent = time.monotonic() - budget.started >= budget.timeout - 0.05
            limit = f"fetch-timeout ({budget.timeout:g} s)" if spent else "30 s"
            raise FetchError(f"{_shown(url)}: no answer within {limit}") from None
        except (OSError, http.client.HTTPException) as exc:
            raise FetchError(f"{_shown(url)}: {exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__}") from None
        finally:
            connection.close()
        if status not in accept_status:
            raise FetchError(f"{_shown(url)}: HTTP {status}")
        return Response(status, got, body, url)
    raise FetchError(f"{_shown(url)}: more than {MAX_REDIRECTS} redirects")


def _read(connection: _Connection, response: http.client.HTTPResponse, budget: Budget, url: str) -> bytes:
    length = response.getheader("Content-Length")
    if length and length.isascii() and length.isdigit() and (len(length) > 20 or  # int() refuses 4,300 digits
                                                              budget.used_bytes + int(length) > budget.max_bytes):
        raise FetchError(f"{_shown(url)}: {length} bytes, more than fetch-max-bytes ({budget.max_bytes} bytes) allows")
    chunks = []
    while True:
        if connection.sock is not None:  # no read may outlast the fetch's deadline
            connection.sock.settimeout(min(budget.left(), 30))
        chunk = response.read(65536)
        if not chunk:
            break
        budget.take(len(chunk))
        chunks.append(chunk)
    return b"".join(chunks)


def _where(scheme: str, host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}:{port}"


def _shown(url: str) -> str:
    """``url`` without user information or query (neither goes into a message)."""
    parts = urllib.parse.urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2]
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", ""))
