"""Clients talk to a server on this machine without gzip, and to one elsewhere with it."""

from __future__ import annotations

import pytest
from temporalio.client import Client
from temporalio.service import GrpcCompression

from desk.config.settings import DeskSettings
from workers.temporal.client import connect
from workers.temporal.transport import grpc_compression, on_this_machine


@pytest.mark.parametrize(
    "address",
    ["127.0.0.1:7233", "127.4.5.6:7233", "localhost:7233", "LOCALHOST:7233", "[::1]:7233", "::1"],
)
def test_a_loopback_address_is_on_this_machine(address: str) -> None:
    assert on_this_machine(address)
    assert grpc_compression(address) == GrpcCompression.NONE


@pytest.mark.parametrize(
    "address",
    ["10.0.0.5:7233", "temporal.example.com:7233", "[2001:db8::1]:7233", "localhostile:7233"],
)
def test_any_other_address_keeps_the_sdks_gzip(address: str) -> None:
    assert not on_this_machine(address)
    assert grpc_compression(address) == GrpcCompression.GZIP


async def test_codedesk_connects_to_its_local_server_without_compression(
    client: Client, settings: DeskSettings
) -> None:
    connected = await connect(settings, client.service_client.config.target_host)

    assert connected.service_client.config.grpc_compression == GrpcCompression.NONE
