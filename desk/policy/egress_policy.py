"""Where a sandboxed agent may connect through the egress proxy, and why a place is refused."""

from __future__ import annotations

import fnmatch
import ipaddress
import socket
from dataclasses import dataclass

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
ANYWHERE = "*"
GLOB_CHARS = "*?["


@dataclass(frozen=True)
class Pattern:
    """One `host[:port]` pattern: the host may be an `fnmatch` glob; no port means any."""

    host: str
    port: int | None

    @classmethod
    def parse(cls, text: str) -> Pattern:
        """`example.com`, `*.example.com:443`, `127.0.0.1:8080`, `[::1]:8080`."""
        host, port = split_host_port(text.strip(), default=None)
        return cls(host.lower(), port)

    def matches(self, host: str, port: int) -> bool:
        return fnmatch.fnmatchcase(host.lower(), self.host) and self.port in (None, port)

    @property
    def names_a_host(self) -> bool:
        """Whether the pattern names one host (no glob): it may then reach a loopback one."""
        return not any(char in self.host for char in GLOB_CHARS)


def split_host_port(text: str, default: int | None) -> tuple[str, int | None]:
    """`host:port` or `[v6]:port` (or a bare host, with `default`); a bad port is an error."""
    if text.startswith("["):
        host, sep, rest = text[1:].partition("]")
        if not sep or (rest and not rest.startswith(":")):
            raise ValueError(f"{text!r} is not [address]:port")
        port_text = rest[1:]
    elif text.count(":") == 1:
        host, _, port_text = text.partition(":")
    else:
        host, port_text = text, ""
    if not host:
        raise ValueError(f"{text!r} names no host")
    if not port_text:
        return host, default
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ValueError(f"{text!r} has no valid port")
    return host, int(port_text)


def parse_patterns(items: list[str]) -> tuple[Pattern, ...]:
    """The patterns of a setting; `*` stays as a pattern matching every host."""
    return tuple(Pattern.parse(item) for item in items)


@dataclass(frozen=True)
class EgressPolicy:
    """The allow and deny patterns, and the Temporal frontend that is never reachable."""

    allow: tuple[Pattern, ...]
    deny: tuple[Pattern, ...]
    frontend: tuple[str, int]
    frontend_addresses: frozenset[IPAddress] = frozenset()

    def refuse_name(self, host: str, port: int) -> str:
        """Why `host:port` is refused before it is resolved; empty when it may go on."""
        if (host.lower(), port) == (self.frontend[0].lower(), self.frontend[1]):
            return "it is the Temporal frontend"
        denied = next((p for p in self.deny if p.matches(host, port)), None)
        if denied is not None:
            return f"it matches CODEDESK_SANDBOX_EGRESS_DENY ({_show(denied)})"
        if not any(p.matches(host, port) for p in self.allow):
            return "it is not in CODEDESK_SANDBOX_EGRESS"
        return ""

    def refuse_address(self, host: str, address: IPAddress, port: int) -> str:
        """Why connecting to `address:port` (what `host` resolved to) is refused; or empty."""
        address = _unmapped(address)
        local = is_local(address)
        if port == self.frontend[1] and (address in self.frontend_addresses or local):
            return f"{address} is the Temporal frontend"
        denied = next((p for p in self.deny if p.matches(str(address), port)), None)
        if denied is not None:
            return f"{address} matches CODEDESK_SANDBOX_EGRESS_DENY ({_show(denied)})"
        if any(p.names_a_host and p.matches(host, port) for p in self.allow):
            return ""
        if address.is_loopback or address.is_unspecified:
            return f"{address} is a loopback address"
        if address.is_link_local:
            return f"{address} is a link-local address"
        if address.is_multicast:
            return f"{address} is a multicast address"
        if local:
            return f"{address} is an address of the worker's own host"
        return ""


def is_local(address: IPAddress) -> bool:
    """Whether `address` is one of this host's own (a socket can be bound to it)."""
    address = _unmapped(address)
    if address.is_loopback or address.is_unspecified:
        return True
    family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((str(address), 0))
        except OSError:
            return False
    return True


def _unmapped(address: IPAddress) -> IPAddress:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _show(pattern: Pattern) -> str:
    return pattern.host if pattern.port is None else f"{pattern.host}:{pattern.port}"
