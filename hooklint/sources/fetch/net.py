"""The only network hooklint uses: HTTP(S) GETs to the hosts ``fetch-hosts`` lists, under limits.

Who may be contacted (:class:`Hosts`): an entry ``host[:port]`` admits HTTPS to that host (port 443
when none is given), ``http://host[:port]`` also plain HTTP (port 80 when none); ``file:///folder``
(only from ``--fetch-host``, never from a configuration file) admits Git remotes under that folder.
Names are compared in lower case, exactly: no wildcard, no suffix match.

How a request is made (:func:`get`), so that what was checked is what is contacted:

- the URL's scheme, host and port must match an entry before any name is resolved;
- the name is resolved here, and each address is checked before a socket is opened: a loopback,
  private, link-local, shared (CGNAT), multicast, reserved or unspecified address (IPv4 or IPv6,
  IPv4-mapped included) is refused unless the entry names that address itself (``127.0.0.1:8080``)
  and is not from a configuration found in the repository (``--fetch-host``, or ``--config``);
- the socket connects to that address, and the address it is connected to (``getpeername``) is
  checked again; TLS verifies the certificate for the host name (system trust store);
- redirects (at most 5) are followed by hand, each hop checked the same way; credentials go only to
  the host they are for, never along a redirect to another;
- no proxy, ``.netrc`` or other credential is read from the environment (``http.client`` is used
  directly, never ``urllib``), and credentials never appear in a message;
- every body is read against the byte budget of the fetch and every socket operation against its
  deadline (:class:`Budget`); each limit passed is one :class:`FetchError` line.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import time
import urllib.parse
from dataclasses import dataclass, field

from hooklint.config import HostEntry, host_address as _address

#: Redirects followed for one request.
MAX_REDIRECTS = 5
#: Bytes, files and seconds one source's fetch may take by default (``fetch-max-bytes``,
#: ``fetch-max-files``, ``fetch-timeout``).
DEFAULT_MAX_BYTES = 200 * 1024 * 1024
DEFAULT_MAX_FILES = 10_000
DEFAULT_TIMEOUT = 120


class FetchError(Exception):
    """A fetch that did not happen or was stopped; the message is one line, without credentials."""


@dataclass(slots=True)
class Hosts:
    """The entries a run admits (``fetch-hosts`` of the policy's configuration, then ``--fetch-host``)."""

    entries: list[HostEntry] = field(default_factory=list)

    def entry_for(self, scheme: str, host: str, port: int | None) -> HostEntry | None:
        """The entry admitting ``scheme://host:port`` (port None: the scheme's default), or None."""
        host = host.lower().strip("[]")
        address = _address(host)
        host = str(address) if address else host
        default = 443 if scheme == "https" else 80
        for entry in self.entries:
            if entry.scheme == "file" or entry.host != host:
                continue
            if scheme == "http" and entry.scheme != "http":
                continue
            wanted = entry.port if entry.port is not None else (443 if scheme == "https" else 80)
            if (port if port is not None else default) == wanted:
                return entry
        return None

    def file_allowed(self, path: str) -> bool:
        """Whether a ``file://`` Git remote at the absolute ``path`` lies under a ``file://`` entry."""
        import os

        real = os.path.realpath(path)
        for entry in self.entries:
            if entry.scheme == "file":
                top = os.path.realpath(entry.path)
                if real == top or real.startswith(top.rstrip("/") + "/"):
                    return True
        return False

    def __bool__(self) -> bool:
        return bool(self.entries)


def special_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why ``address`` is not a public one (``loopback``, ``private``, ``link-local``, ...), or None."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    for name, flag in (("loopback", address.is_loopback), ("link-local", address.is_link_local),
                       ("unspecified", address.is_unspecified), ("multicast", address.is_multicast),
                       ("private", address.is_private), ("reserved", address.is_reserved)):  # fmt: skip
        if flag:
            return name
    if isinstance(address, ipaddress.IPv4Address) and address in ipaddress.ip_network("100.64.0.0/10"):
        return "shared (carrier-grade NAT)"
    if not address.is_global:
        return "not global"
    return None


def check_address(address: str, entry: HostEntry, host: str) -> None:
    """Refuse (FetchError) connecting to ``address`` for ``host`` (admitted by ``entry``) when it is
    not a public address, unless ``entry`` names that very address and does not come from a
    configuration found in the repository (``entry.found``: a pull request could point the fetch at
    the runner's own services; attacker trial)."""
    parsed = ipaddress.ip_address(address.split("%", 1)[0])
    why = special_address(parsed)
    if why is None:
        return
    if _address(entry.host) == parsed and entry.found:
        named = f"{address} is" if host == address else f"{host} resolves to {address},"
        raise FetchError(f"{named} a {why} address, which fetch-hosts of a configuration found in the "
                         f"repository cannot admit: refused (give --fetch-host {entry}, or name the configuration "
                         "with --config)")  # fmt: skip
    if _address(entry.host) == parsed:
        return
    raise FetchError(f"{host} resolves to {address}, a {why} address: refused (list the address itself in "
                     "fetch-hosts to allow it)")  # fmt: skip


@dataclass(slots=True)
class Budget:
    """What one source's fetch may still take: ``max_bytes`` (every body, downloaded or unpacked),
    ``max_files`` (files written), ``timeout`` seconds from the budget's creation."""

    max_bytes: int = DEFAULT_MAX_BYTES
    max_files: int = DEFAULT_MAX_FILES
    timeout: float = DEFAULT_TIMEOUT
    used_bytes: int = 0
    used_files: int = 0
    started: float = field(default_factory=time.monotonic)

    def left(self) -> float:
        """Seconds left; FetchError when none."""
        left = self.timeout - (time.monotonic() - self.started)
        if left <= 0:
            raise FetchError(f"took longer than fetch-timeout ({self.timeout:g} s)")
        return left

    def take(self, count: int) -> None:
        """Count ``count`` more bytes; FetchError past ``max_bytes``."""
        self.used_bytes += count
        if self.used_bytes > self.max_bytes:
            raise FetchError(f"more than fetch-max-bytes ({self.max_bytes} bytes)")

    def file(self) -> None:
        """Count one more file; FetchError past ``max_files``."""
        self.used_files += 1
        if self.used_files > self.max_files:
            raise FetchError(f"more than fetch-max-files ({self.max_files} files)")


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
    sent only to that host. Raises :class:`FetchError`: a host not listed (nothing is resolved or
    contacted), a refused address, a limit, another status."""
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
        sent = dict(headers or {})
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
    if length and length.isdigit() and budget.used_bytes + int(length) > budget.max_bytes:
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
