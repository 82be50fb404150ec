"""mTLS to the Temporal frontend: the right client certificate connects, any other is refused.

The dev server speaks plain text, so the test puts a TLS front before it, as a cluster's
frontend or a proxy would: it asks every client for a certificate signed by the test's CA
(openssl makes the certificates) and relays the accepted connections to the dev server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from desk.config.settings import DeskSettings, load_settings
from desk.errors import ServerError, SettingsError
from tests.helpers.cli_helpers import run_cli, settings_env, shown
from workers.temporal.client import connect

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is missing")


@dataclass(frozen=True)
class Pki:
    ca: Path
    server: tuple[Path, Path]
    client: tuple[Path, Path]
    stranger: tuple[Path, Path]
    """A client certificate signed by another CA."""


def _openssl(folder: Path, *args: str) -> None:
    subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)


def _authority(folder: Path, name: str) -> tuple[Path, Path]:
    key, cert = folder / f"{name}.key", folder / f"{name}.pem"
    _openssl(
        folder, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
        "-nodes", "-keyout", str(key), "-out", str(cert), "-subj", f"/CN={name}", "-days", "2",
    )  # fmt: skip
    return key, cert


def _signed(folder: Path, name: str, ca: tuple[Path, Path], extensions: str) -> tuple[Path, Path]:
    key, csr, cert = folder / f"{name}.key", folder / f"{name}.csr", folder / f"{name}.pem"
    _openssl(
        folder, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", str(key), "-out", str(csr), "-subj", f"/CN={name}",
    )  # fmt: skip
    ext = folder / f"{name}.ext"
    ext.write_text(extensions + "\n")
    _openssl(
        folder, "x509", "-req", "-in", str(csr), "-CA", str(ca[1]), "-CAkey", str(ca[0]),
        "-CAcreateserial", "-out", str(cert), "-days", "2", "-extfile", str(ext),
    )  # fmt: skip
    return cert, key


@pytest.fixture
def pki(tmp_path: Path) -> Pki:
    folder = tmp_path / "pki"
    folder.mkdir()
    ca = _authority(folder, "ca")
    other = _authority(folder, "other-ca")
    server = _signed(
        folder, "server", ca, "subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth"
    )
    client = _signed(folder, "client", ca, "extendedKeyUsage=clientAuth")
    stranger = _signed(folder, "stranger", other, "extendedKeyUsage=clientAuth")
    return Pki(ca=ca[1], server=server, client=client, stranger=stranger)


async def _relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError, ssl.SSLError):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    writer.close()


@pytest.fixture
async def tls_front(pki: Pki, settings: DeskSettings) -> AsyncIterator[str]:
    """`localhost:PORT`: TLS that requires a client certificate of the CA, then the dev server."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=str(pki.ca))
    context.verify_mode = ssl.CERT_REQUIRED
    context.load_cert_chain(str(pki.server[0]), str(pki.server[1]))
    context.set_alpn_protocols(["h2"])
    host, port = settings.temporal_address.rsplit(":", 1)

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(host, int(port))
        except OSError:
            writer.close()
            return
        await asyncio.gather(_relay(reader, upstream_writer), _relay(upstream_reader, writer))

    server = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=context)
    front = server.sockets[0].getsockname()[1]
    async with server:
        yield f"localhost:{front}"
        server.close()


def _tls(settings: DeskSettings, pki: Pki, client: tuple[Path, Path] | None) -> DeskSettings:
    cert, key = client if client is not None else (None, None)
    return settings.model_copy(
        update={
            "temporal_tls_ca": pki.ca,
            "temporal_tls_cert": cert,
            "temporal_tls_key": key,
            "temporal_tls_server_name": "localhost",
        }
    )


async def test_the_right_client_certificate_connects(
    settings: DeskSettings, pki: Pki, tls_front: str
) -> None:
    client = await connect(_tls(settings, pki, pki.client), tls_front)
    assert await client.service_client.check_health()
    assert [item async for item in client.list_workflows()] == []


@pytest.mark.parametrize("who", ["stranger", "no certificate", "plain text"])
async def test_any_other_client_is_refused(
    settings: DeskSettings, pki: Pki, tls_front: str, who: str
) -> None:
    config = {
        "stranger": _tls(settings, pki, pki.stranger),
        "no certificate": _tls(settings, pki, None),
        "plain text": settings,
    }[who]
    with pytest.raises(ServerError, match="Cannot reach the Temporal server"):
        client = await connect(config, tls_front)
        await client.service_client.check_health()


async def test_the_cli_connects_with_the_tls_settings(
    desk: object, settings: DeskSettings, pki: Pki, tls_front: str, tmp_path: Path
) -> None:
    env = settings_env(
        settings,
        CODEDESK_TEMPORAL_ADDRESS=tls_front,
        CODEDESK_TEMPORAL_TLS_CA=str(pki.ca),
        CODEDESK_TEMPORAL_TLS_CERT=str(pki.client[0]),
        CODEDESK_TEMPORAL_TLS_KEY=str(pki.client[1]),
        CODEDESK_TEMPORAL_TLS_SERVER_NAME="localhost",
    )
    checked = await run_cli(env, "doctor", "--json", cwd=tmp_path)
    server = next(check for check in json.loads(checked.stdout) if check["name"] == "server")
    assert server["status"] == "ok", shown(checked)
    for command in (["jobs"], ["approvals"]):
        done = await run_cli(env, *command, cwd=tmp_path)
        assert done.returncode == 0, shown(done)
    env["CODEDESK_TEMPORAL_TLS_CERT"] = str(pki.stranger[0])
    env["CODEDESK_TEMPORAL_TLS_KEY"] = str(pki.stranger[1])
    refused = await run_cli(env, "jobs", cwd=tmp_path)
    assert refused.returncode != 0 and "Cannot reach the Temporal server" in refused.stderr


def test_a_certificate_without_its_key_is_a_settings_error(pki: Pki) -> None:
    with pytest.raises(SettingsError, match="go together"):
        load_settings(temporal_tls_cert=pki.client[0])
