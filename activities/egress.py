"""The egress proxy: a sandboxed agent's only way out, served by the worker on a Unix socket.

The agent's sandbox has a network namespace of its own (only loopback). A forwarder inside
(activities/egress_forwarder.py) relays each connection to this proxy, which speaks HTTP
CONNECT (https and anything else) and absolute-URI forwarding (plain http), and refuses what
the policy forbids with a 403 that says why: the Temporal frontend always, and loopback,
link-local and the worker's own addresses unless a setting names the destination.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import os
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

from desk.egress_rules import EgressPolicy, IPAddress, parse_patterns, split_host_port
from desk.scrub import scrub
from desk.settings import DeskSettings

HEAD_LIMIT = 1 << 16
HEAD_TIMEOUT = 30.0
CONNECT_TIMEOUT = 30.0
READ_CHUNK = 1 << 16
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "proxy-authorization", "te"}

log = logging.getLogger(__name__)
Refused = Callable[[str], None]


class _Refusal(Exception):
    def __init__(self, status: str, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def egress_policy(settings: DeskSettings, frontend: str) -> EgressPolicy:
    """The policy of `settings`, guarding the Temporal frontend at `frontend` (host:port)."""
    host, port = split_host_port(frontend, default=7233)
    assert port is not None
    return EgressPolicy(
        allow=parse_patterns(settings.sandbox_egress),
        deny=parse_patterns(settings.sandbox_egress_deny),
        frontend=(host, port),
    )


@contextlib.asynccontextmanager
async def serve_egress(
    socket_path: Path, policy: EgressPolicy, on_refused: Refused | None = None
) -> AsyncIterator[None]:
    """Serve the proxy on `socket_path` while the block runs; every connection ends with it."""
    frontend = await _addresses(policy.frontend[0], policy.frontend[1])
    policy = replace(policy, frontend_addresses=frozenset(frontend))
    open_ones: dict[asyncio.Task[None], asyncio.StreamWriter] = {}

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await _serve_one(reader, writer, policy, on_refused)
        finally:
            writer.close()

    def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        # Registered as the connection is accepted, so the end of the block closes it even
        # when its task has not started yet.
        task = asyncio.ensure_future(serve(reader, writer))
        open_ones[task] = writer
        task.add_done_callback(lambda done: open_ones.pop(done, None))

    server = await asyncio.start_unix_server(accepted, path=str(socket_path), limit=HEAD_LIMIT)
    os.chmod(socket_path, 0o600)
    try:
        yield
    finally:
        server.close()
        for task, writer in list(open_ones.items()):
            task.cancel()
            writer.close()
        await asyncio.gather(*open_ones, return_exceptions=True)
        await server.wait_closed()


async def _serve_one(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    policy: EgressPolicy,
    on_refused: Refused | None,
) -> None:
    request = "(no request)"
    try:
        head = await _read_head(reader)
        request = head.split("\r\n", 1)[0]
        method, host, port, forwarded = _parse(head)
        upstream = await _open(policy, host, port)
    except _Refusal as refusal:
        line = scrub(f"egress refused {request!r}: {refusal.reason}")
        log.warning(line)
        if on_refused is not None:
            on_refused(line)
        body = f"codedesk egress proxy: {refusal.reason}\n".encode()
        head_out = f"HTTP/1.1 {refusal.status}\r\nContent-Type: text/plain\r\n"
        head_out += f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        with contextlib.suppress(ConnectionError):
            writer.write(head_out.encode() + body)
            await writer.drain()
        return
    up_reader, up_writer = upstream
    try:
        if method == "CONNECT":
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            up_writer.write(forwarded)
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
    finally:
        up_writer.close()


async def _read_head(reader: asyncio.StreamReader) -> str:
    try:
        raw = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_TIMEOUT)
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
        raise _Refusal("400 Bad Request", "no complete request head") from None
    return raw.decode("latin-1")


def _parse(head: str) -> tuple[str, str, int, bytes]:
    """The method, destination and (for plain http) the request to send on."""
    line, *headers = head.rstrip("\r\n").split("\r\n")
    parts = line.split(" ")
    if len(parts) != 3:
        raise _Refusal("400 Bad Request", "the request line is not METHOD TARGET VERSION")
    method, target, version = parts
    try:
        if method == "CONNECT":
            host, port = split_host_port(target, default=None)
            if port is None:
                raise ValueError("CONNECT needs host:port")
            return method, host, port, b""
        url = urlsplit(target)
        if url.scheme != "http" or not url.hostname:
            raise ValueError("only CONNECT or an absolute http:// URI is proxied")
        port = url.port or 80
    except ValueError as error:
        raise _Refusal("400 Bad Request", str(error)) from None
    path = (url.path or "/") + (f"?{url.query}" if url.query else "")
    kept = [h for h in headers if h.split(":", 1)[0].strip().lower() not in HOP_BY_HOP]
    forwarded = "\r\n".join([f"{method} {path} {version}", *kept, "Connection: close", "", ""])
    return method, url.hostname, port, forwarded.encode("latin-1")


async def _open(
    policy: EgressPolicy, host: str, port: int
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Connect to `host:port` at an address the policy allows (resolved once, so a name
    cannot resolve to an allowed address when checked and to a forbidden one when used)."""
    reason = policy.refuse_name(host, port)
    if reason:
        raise _Refusal("403 Forbidden", f"{host}:{port} is refused: {reason}")
    addresses = await _addresses(host, port)
    if not addresses:
        raise _Refusal("502 Bad Gateway", f"{host} cannot be resolved")
    for address in addresses:
        reason = policy.refuse_address(host, address, port)
        if reason:
            raise _Refusal("403 Forbidden", f"{host}:{port} is refused: {reason}")
    problems = []
    for address in addresses:
        try:
            return await asyncio.wait_for(
                asyncio.open_connection(str(address), port, limit=READ_CHUNK), CONNECT_TIMEOUT
            )
        except (OSError, TimeoutError) as failed:
            problems.append(f"{address}: {failed or type(failed).__name__}")
    raise _Refusal("502 Bad Gateway", f"{host}:{port} cannot be reached ({'; '.join(problems)})")


async def _addresses(host: str, port: int) -> list[IPAddress]:
    """Every address `host` resolves to (a literal address is its own); empty when none."""
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    loop = asyncio.get_running_loop()
    try:
        found = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        return []
    return list(dict.fromkeys(ipaddress.ip_address(item[4][0]) for item in found))


async def _pipe(source: asyncio.StreamReader, target: asyncio.StreamWriter) -> None:
    """Copy until the source ends, then end the target's sending side."""
    with contextlib.suppress(ConnectionError, OSError):
        while data := await source.read(READ_CHUNK):
            target.write(data)
            await target.drain()
        if target.can_write_eof():
            target.write_eof()
