"""How codedesk's clients talk to the Temporal frontend: compressed only across a network.

The SDK gzips every request and response by default. To a server on this machine (the
embedded one `codedesk up` starts, or any on loopback) that saves no bandwidth and costs CPU at
both ends of every call: a job made about 60 calls, and went 20-30 ms faster without it on
this machine's two cores (issue 13). A server elsewhere keeps the SDK's gzip.
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from temporalio.service import GrpcCompression

LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain"})


def on_this_machine(address: str) -> bool:
    """Whether `host:port` (or `[v6]:port`, or a bare host) names a loopback address."""
    host = _host(address).lower()
    if host in LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _host(address: str) -> str:
    if address.startswith("["):
        return address[1:].split("]", 1)[0]
    if address.count(":") == 1:
        return address.split(":", 1)[0]
    return address  # a bare host, or a bare IPv6 address


def grpc_compression(address: str) -> GrpcCompression:
    """None for a server on this machine, the SDK's gzip for one elsewhere."""
    from temporalio.service import GrpcCompression

    return GrpcCompression.NONE if on_this_machine(address) else GrpcCompression.GZIP
