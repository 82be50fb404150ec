"""The egress proxy: a sandboxed agent's only way out, served by the worker on a Unix socket.

The agent's sandbox has a network namespace of its own (only loopback). A forwarder inside
(activities/sandbox/egress_forwarder.py) relays each connection to this proxy, which speaks HTTP
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

from desk.config.settings import DeskSettings
from desk.policy.egress_policy import EgressPolicy, IPAddress, parse_patterns, split_host_port
from desk.scrub import scrub

HEAD_LIMIT = 1 << 16
HEAD_TIMEOUT = 30.0
CONNECT_TIMEOUT = 30.0
READ_CHUNK = 1 << 16
TEMPORAL_PORT = 7233
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "proxy-authorization", "te"}

log = logging.getLogger(__name__)
Refused = Callable[[str], None]


class Traffic:
    """The bytes one job's proxy has carried, both ways: the hold channel reads it to tell an
    agent that talks to its model (no CPU to speak of) from one blocked on its hold."""

    def __init__(self) -> None:
        self.bytes = 0


class _Refusal(Exception):
    def __init__(self, status: str, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def egress_policy(settings: DeskSettings, frontend: str) -> EgressPolicy:
    """The policy of `settings`, guarding the Temporal frontend at `frontend` (host:port)."""
    host, port = split_host_port(frontend, default=None)
    return EgressPolicy(
        allow=parse_patterns(settings.sandbox_egress),
        deny=parse_patterns(settings.sandbox_egress_deny),
        frontend=(host, port or TEMPORAL_PORT),
    )


@contextlib.asynccontextmanager
async def serve_egress(
    socket_path: Path,
    policy: EgressPolicy,
    on_refused: Refused | None = None,
    traffic: Traffic | None = None,
) -> AsyncIterator[None]:
    """Serve the proxy on `socket_path` while the block runs; every connection ends with it.

    Every byte read from either side, a refused request's included, is added to `traffic`.

    Plain non-blocking sockets, each owned by this block from `accept` on, so its end closes
    every one of them whatever state its connection is in.
    """
    frontend = await _addresses(policy.frontend[0], policy.frontend[1])
    policy = replace(policy, frontend_addresses=frozenset(frontend))
    loop = asyncio.get_running_loop()
    owned: set[socket.socket] = set()
    serving: set[asyncio.Task[None]] = set()
    counted = traffic or Traffic()

    async def serve(conn: socket.socket) -> None:
        await _serve_one(loop, conn, owned, policy, on_refused, counted)

    def accept() -> None:
        # Called by the loop when the listener is readable: every accepted socket is owned
        # at once, so none is lost between `accept` and its task.
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:  # nothing more to accept (or no descriptor left for it now)
                return
            conn.setblocking(False)
            owned.add(conn)
            task = asyncio.create_task(serve(conn))
            serving.add(task)
            task.add_done_callback(serving.discard)

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    owned.add(listener)
    try:
        listener.bind(str(socket_path))
        os.chmod(socket_path, 0o600)
        listener.listen(64)
        listener.setblocking(False)
        loop.add_reader(listener, accept)
        try:
            yield
        finally:
            loop.remove_reader(listener)
            for task in serving:
                task.cancel()
            await asyncio.gather(*serving, return_exceptions=True)
    finally:
        for sock in owned:
            sock.close()
        socket_path.unlink(missing_ok=True)


async def _serve_one(
    loop: asyncio.AbstractEventLoop,
    conn: socket.socket,
    owned: set[socket.socket],
    policy: EgressPolicy,
    on_refused: Refused | None,
    traffic: Traffic,
) -> None:
    request = "(no request)"
    try:
        head, early = await _read_head(loop, conn, traffic)
        request = head.split("\r\n", 1)[0]
        method, host, port, forwarded = _parse(head)
        upstream = await _open(loop, owned, policy, host, port)
    except _Refusal as refusal:
        line = scrub(f"egress refused {request!r}: {refusal.reason}")
        log.warning(line)
        if on_refused is not None:
            on_refused(line)
        body = f"codedesk egress proxy: {refusal.reason}\n".encode()
        head_out = f"HTTP/1.1 {refusal.status}\r\nContent-Type: text/plain\r\n"
        head_out += f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        with contextlib.suppress(OSError):
            await loop.sock_sendall(conn, head_out.encode() + body)
        _close(conn, owned)
        return
    try:
        if method == "CONNECT":
            await loop.sock_sendall(conn, b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            await loop.sock_sendall(upstream, forwarded)
        if early:
            await loop.sock_sendall(upstream, early)
        await _relay(loop, conn, upstream, traffic)
    except OSError:
        pass
    finally:
        _close(conn, owned)
        _close(upstream, owned)


def _close(sock: socket.socket, owned: set[socket.socket]) -> None:
    owned.discard(sock)
    sock.close()


async def _read_head(
    loop: asyncio.AbstractEventLoop, conn: socket.socket, traffic: Traffic
) -> tuple[str, bytes]:
    """The request head, and whatever the client sent after it already."""
    data = b""
    try:
        async with asyncio.timeout(HEAD_TIMEOUT):
            while b"\r\n\r\n" not in data and len(data) <= HEAD_LIMIT:
                chunk = await loop.sock_recv(conn, READ_CHUNK)
                if not chunk:
                    break
                traffic.bytes += len(chunk)
                data += chunk
    except (TimeoutError, OSError):
        pass
    head, sep, early = data.partition(b"\r\n\r\n")
    if not sep or len(head) > HEAD_LIMIT:
        raise _Refusal("400 Bad Request", "no complete request head")
    return head.decode("latin-1"), early


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
    loop: asyncio.AbstractEventLoop,
    owned: set[socket.socket],
    policy: EgressPolicy,
    host: str,
    port: int,
) -> socket.socket:
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
        family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
        upstream = socket.socket(family, socket.SOCK_STREAM)
        owned.add(upstream)
        upstream.setblocking(False)
        try:
            async with asyncio.timeout(CONNECT_TIMEOUT):
                await loop.sock_connect(upstream, (str(address), port))
        except (OSError, TimeoutError) as failed:
            _close(upstream, owned)
            problems.append(f"{address}: {failed or type(failed).__name__}")
            continue
        return upstream
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


async def _relay(
    loop: asyncio.AbstractEventLoop, one: socket.socket, other: socket.socket, traffic: Traffic
) -> None:
    """Copy both ways; a side that ends cleanly half-closes the other, an error ends both."""
    tasks = {
        asyncio.create_task(_pipe(loop, one, other, traffic)),
        asyncio.create_task(_pipe(loop, other, one, traffic)),
    }
    try:
        while tasks:
            done, tasks = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            if any(task.exception() is not None for task in done):
                return
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _pipe(
    loop: asyncio.AbstractEventLoop, source: socket.socket, target: socket.socket, traffic: Traffic
) -> None:
    """Copy until the source ends, then end the target's sending side."""
    while data := await loop.sock_recv(source, READ_CHUNK):
        traffic.bytes += len(data)
        await loop.sock_sendall(target, data)
    target.shutdown(socket.SHUT_WR)
