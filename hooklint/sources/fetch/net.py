"""The only network hooklint uses: HTTP(S) GETs to the hosts ``fetch-hosts`` lists, under limits.

Who may be contacted (:class:`Hosts`): an entry ``host[:port]`` admits HTTPS to that host (port 443
when none is given), ``http://host[:port]`` also plain HTTP (port 80 when none); ``file:///folder``
(only from ``--fetch-host``, never from a configuration file) admits Git remotes under that folder.
Names are compared in lower case, exactly: no wildcard, no suffix match.

How a request is made (:func:`hooklint.sources.fetch.client.get`), so that what was checked is what is contacted:

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

import ipaddress
import time
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
