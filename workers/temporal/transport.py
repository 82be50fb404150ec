"""How codedesk's clients talk to the Temporal frontend: compressed only across a network, with
TLS (and mTLS or an API key) where the settings ask for it.

The SDK gzips every request and response by default. To a server on this machine (the
embedded one `codedesk up` starts, or any on loopback) that saves no bandwidth and costs CPU at
both ends of every call: a job made about 60 calls, and went 20-30 ms faster without it on
this machine's two cores (issue 13). A server elsewhere keeps the SDK's gzip.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import TYPE_CHECKING

from desk.errors import SettingsError

if TYPE_CHECKING:
    from temporalio.service import GrpcCompression, TLSConfig

    from desk.config.settings import DeskSettings

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


def tls_config(settings: DeskSettings) -> TLSConfig | bool:
    """TLS to the frontend as the settings ask: a CA, a client certificate for mTLS, a server
    name, or an API key (which needs TLS); none of them: plain text (the embedded server)."""
    from temporalio.service import TLSConfig

    api_key = bool(settings.temporal_api_key.get_secret_value())
    if not (settings.temporal_tls_ca or settings.temporal_tls_cert or api_key):
        return False
    return TLSConfig(
        server_root_ca_cert=_pem(settings.temporal_tls_ca),
        domain=settings.temporal_tls_server_name or None,
        client_cert=_pem(settings.temporal_tls_cert),
        client_private_key=_pem(settings.temporal_tls_key),
    )


def _pem(path: Path | None) -> bytes | None:
    if path is None:
        return None
    try:
        return path.read_bytes()
    except OSError as error:
        raise SettingsError(
            f"{path} could not be read ({error.strerror}): name a PEM file this process may read."
        ) from None
