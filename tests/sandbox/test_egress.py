"""The egress proxy on its real Unix socket, with real TCP servers behind it."""

from __future__ import annotations

import asyncio
import ipaddress
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from activities.sandbox.egress_proxy import Traffic, egress_policy, serve_egress
from desk.config.settings import DeskSettings, load_settings
from desk.errors import SettingsError
from desk.policy.egress_policy import EgressPolicy, parse_patterns
from tests.helpers.stand_ins.local_http import BODY, Listener, Served, http_server, tcp_listener


@pytest.fixture
def served() -> Iterator[Served]:
    with http_server() as server:
        yield server


@pytest.fixture
def frontend() -> Iterator[Listener]:
    """Stands in for the Temporal frontend: it must never see a connection."""
    with tcp_listener() as listener:
        yield listener


@pytest.fixture
def socket_path() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="codedesk-egress-") as folder:
        yield Path(folder) / "egress.sock"


def policy(
    settings: DeskSettings, frontend: Listener, allow: list[str], deny: list[str] | None = None
) -> EgressPolicy:
    local = settings.model_copy(update={"sandbox_egress": allow, "sandbox_egress_deny": deny or []})
    return egress_policy(local, f"127.0.0.1:{frontend.port}")


async def ask(socket_path: Path, head: str, then: bytes = b"") -> bytes:
    """Send `head` (and `then` once the proxy answered) and read until the proxy closes."""
    reader, writer = await asyncio.open_unix_connection(str(socket_path))
    writer.write(head.encode())
    await writer.drain()
    if then:
        answer = await reader.readuntil(b"\r\n\r\n")
        writer.write(then)
        await writer.drain()
        rest = await reader.read()
        writer.close()
        return answer + rest
    rest = await reader.read()
    writer.close()
    return rest


async def test_plain_http_to_an_allowed_local_server_is_forwarded(
    settings: DeskSettings, served: Served, frontend: Listener, socket_path: Path
) -> None:
    rules = policy(settings, frontend, ["*", f"127.0.0.1:{served.port}"])
    async with serve_egress(socket_path, rules):
        answer = await ask(
            socket_path, f"GET {served.url}/v1/models?x=1 HTTP/1.1\r\nHost: h\r\n\r\n"
        )
    assert answer.startswith(b"HTTP/1.0 200"), answer
    assert answer.endswith(BODY)
    assert served.paths == ["/v1/models?x=1"]


async def test_connect_to_an_allowed_local_server_tunnels(
    settings: DeskSettings, served: Served, frontend: Listener, socket_path: Path
) -> None:
    rules = policy(settings, frontend, [f"127.0.0.1:{served.port}"])
    async with serve_egress(socket_path, rules):
        answer = await ask(
            socket_path,
            f"CONNECT 127.0.0.1:{served.port} HTTP/1.1\r\n\r\n",
            then=b"GET /tunnelled HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
        )
    assert answer.startswith(b"HTTP/1.1 200 Connection established\r\n\r\nHTTP/1.0 200"), answer
    assert answer.endswith(BODY)
    assert served.paths == ["/tunnelled"]


async def test_a_model_named_by_its_host_name_is_reached_both_ways(
    settings: DeskSettings, served: Served, frontend: Listener, socket_path: Path
) -> None:
    # `localhost` resolves to ::1 too, where nothing listens: the proxy goes on to 127.0.0.1.
    rules = policy(settings, frontend, ["*", f"localhost:{served.port}"])
    async with serve_egress(socket_path, rules):
        plain = await ask(socket_path, f"GET http://localhost:{served.port}/plain HTTP/1.1\r\n\r\n")
        tunnel = await ask(
            socket_path,
            f"CONNECT localhost:{served.port} HTTP/1.1\r\n\r\n",
            then=b"GET /tunnelled HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
        )
    assert plain.startswith(b"HTTP/1.0 200") and plain.endswith(BODY), plain
    assert tunnel.startswith(b"HTTP/1.1 200 Connection established"), tunnel
    assert served.paths == ["/plain", "/tunnelled"]


async def test_an_unnamed_loopback_port_stays_refused_beside_a_named_one(
    settings: DeskSettings, served: Served, frontend: Listener, socket_path: Path
) -> None:
    lines: list[str] = []
    rules = policy(
        settings, frontend, ["*", f"127.0.0.1:{served.port}", f"localhost:{served.port}"]
    )
    with tcp_listener() as other:
        async with serve_egress(socket_path, rules, lines.append):
            for head in (
                f"CONNECT 127.0.0.1:{other.port} HTTP/1.1\r\n\r\n",
                f"GET http://127.0.0.1:{other.port}/ HTTP/1.1\r\n\r\n",
                f"CONNECT localhost:{other.port} HTTP/1.1\r\n\r\n",
                f"GET http://[::1]:{other.port}/ HTTP/1.1\r\n\r\n",
            ):
                answer = await ask(socket_path, head)
                assert answer.startswith(b"HTTP/1.1 403 Forbidden"), (head, answer)
                assert b"loopback address" in answer, answer
        assert other.connections() == 0
    assert served.paths == []
    assert len(lines) == 4 and all("egress refused" in line for line in lines), lines


async def test_the_proxy_counts_every_byte_it_carries_or_refuses(
    settings: DeskSettings, served: Served, frontend: Listener, socket_path: Path
) -> None:
    """The hold channel's work clock reads this count: a model call is traffic here."""
    traffic = Traffic()
    rules = policy(settings, frontend, [f"127.0.0.1:{served.port}"])
    connect = f"CONNECT 127.0.0.1:{served.port} HTTP/1.1\r\n\r\n"
    request = b"GET /counted HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"
    forbidden = f"CONNECT 127.0.0.1:{frontend.port} HTTP/1.1\r\n\r\n"
    async with serve_egress(socket_path, rules, traffic=traffic):
        answer = await ask(socket_path, connect, then=request)
        carried = traffic.bytes
        refused = await ask(socket_path, forbidden)
    served_back = answer.split(b"\r\n\r\n", 1)[1]  # the proxy's own 200 is not carried
    assert served_back.endswith(BODY), answer
    assert carried == len(connect) + len(request) + len(served_back)
    assert refused.startswith(b"HTTP/1.1 403"), refused
    assert traffic.bytes == carried + len(forbidden)


async def test_the_temporal_frontend_is_refused_even_when_allowed_by_name(
    settings: DeskSettings, frontend: Listener, socket_path: Path
) -> None:
    lines: list[str] = []
    rules = policy(settings, frontend, ["*", f"127.0.0.1:{frontend.port}", "localhost"])
    async with serve_egress(socket_path, rules, lines.append):
        for target in (f"127.0.0.1:{frontend.port}", f"localhost:{frontend.port}"):
            answer = await ask(socket_path, f"CONNECT {target} HTTP/1.1\r\n\r\n")
            assert answer.startswith(b"HTTP/1.1 403 Forbidden"), answer
            assert b"Temporal frontend" in answer
        plain = await ask(
            socket_path, f"GET http://[::ffff:127.0.0.1]:{frontend.port}/ HTTP/1.1\r\n\r\n"
        )
        assert plain.startswith(b"HTTP/1.1 403 Forbidden"), plain
    assert frontend.connections() == 0
    assert len(lines) == 3 and all("Temporal frontend" in line for line in lines), lines


async def test_loopback_is_refused_unless_a_setting_names_it(
    settings: DeskSettings, served: Served, frontend: Listener, socket_path: Path
) -> None:
    lines: list[str] = []
    async with serve_egress(socket_path, policy(settings, frontend, ["*"]), lines.append):
        for target in (
            f"127.0.0.1:{served.port}",
            f"localhost:{served.port}",
            f"0.0.0.0:{served.port}",
        ):
            answer = await ask(socket_path, f"CONNECT {target} HTTP/1.1\r\n\r\n")
            assert answer.startswith(b"HTTP/1.1 403 Forbidden"), answer
            assert b"loopback" in answer
    assert served.paths == []
    assert len(lines) == 3


async def test_the_deny_setting_and_an_allowlist_restrict_egress(
    settings: DeskSettings, served: Served, frontend: Listener, socket_path: Path
) -> None:
    named = f"127.0.0.1:{served.port}"
    async with serve_egress(socket_path, policy(settings, frontend, [named], deny=["127.0.0.*"])):
        denied = await ask(socket_path, f"CONNECT {named} HTTP/1.1\r\n\r\n")
    async with serve_egress(socket_path, policy(settings, frontend, ["*"], deny=["127.*", "::1"])):
        by_address = await ask(socket_path, f"CONNECT localhost:{served.port} HTTP/1.1\r\n\r\n")
    async with serve_egress(socket_path, policy(settings, frontend, ["api.example.com:443"])):
        unlisted = await ask(socket_path, f"CONNECT {named} HTTP/1.1\r\n\r\n")
    assert b"CODEDESK_SANDBOX_EGRESS_DENY (127.0.0.*)" in denied, denied
    assert b"not in CODEDESK_SANDBOX_EGRESS" in unlisted, unlisted
    assert b"matches CODEDESK_SANDBOX_EGRESS_DENY" in by_address, by_address
    assert served.paths == []


async def test_bad_requests_get_400_and_the_proxy_ends_with_its_block(
    settings: DeskSettings, frontend: Listener, socket_path: Path
) -> None:
    async with serve_egress(socket_path, policy(settings, frontend, ["*"])):
        for head in ("CONNECT nowhere HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\n\r\n", "junk\r\n\r\n"):
            answer = await ask(socket_path, head)
            assert answer.startswith(b"HTTP/1.1 400 Bad Request"), (head, answer)
        # A connection still open when the block ends is closed with it.
        _, lingering = await asyncio.open_unix_connection(str(socket_path))
    with pytest.raises(OSError):
        await asyncio.open_unix_connection(str(socket_path))
    lingering.close()


def test_addresses_that_are_never_reached_without_a_named_allow() -> None:
    rules = EgressPolicy(allow=parse_patterns(["*"]), deny=(), frontend=("temporal", 7233))
    for address, why in [
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("::1", "loopback"),
        ("::ffff:127.0.0.1", "loopback"),
        ("224.0.0.1", "multicast"),
    ]:
        assert why in rules.refuse_address("h", ipaddress.ip_address(address), 80), address
    assert rules.refuse_address("h", ipaddress.ip_address("93.184.216.34"), 443) == ""
    assert "Temporal frontend" in rules.refuse_name("Temporal", 7233)


def test_egress_settings_with_a_bad_pattern_are_refused(home: Path) -> None:
    with pytest.raises(SettingsError, match="sandbox_egress.*no valid port"):
        load_settings(home=home, sandbox_egress="api.example.com:https")


def own_private_addresses() -> list[ipaddress.IPv4Address]:
    """This host's own IPv4 addresses other than loopback (the kernel's local routes)."""
    text = Path("/proc/net/fib_trie").read_text() if Path("/proc/net/fib_trie").exists() else ""
    found = {ipaddress.IPv4Address(a) for a in re.findall(r"\|-- (\S+)\n\s+/32 host LOCAL", text)}
    return sorted(address for address in found if not address.is_loopback)


def test_a_model_on_the_workers_own_address_is_reached_only_at_the_port_named() -> None:
    # A model server on the host's own (private) address, as a local one often listens on
    # 0.0.0.0: refused as the worker's own host, unless a setting names it, and then only there.
    addresses = own_private_addresses()
    if not addresses:
        pytest.skip("this host has no address but loopback")
    address = addresses[0]
    frontend = ("127.0.0.1", 7233)
    closed = EgressPolicy(allow=parse_patterns(["*"]), deny=(), frontend=frontend)
    named = EgressPolicy(
        allow=parse_patterns(["*", f"{address}:11434"]), deny=(), frontend=frontend
    )
    assert "the worker's own host" in closed.refuse_address(str(address), address, 11434)
    assert named.refuse_address(str(address), address, 11434) == ""
    assert "the worker's own host" in named.refuse_address(str(address), address, 11435)
