"""Starting the embedded server when a port it binds is taken between its pick and its bind."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from desk.errors import ServerError
from workers import devserver
from workers.devserver import LOG_FILE, DevServer, free_port


@contextmanager
def listening_on(port: int) -> Iterator[socket.socket]:
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    holder.bind(("127.0.0.1", port))
    holder.listen()
    try:
        yield holder
    finally:
        holder.close()


async def test_a_port_taken_at_bind_once_is_retried_and_the_server_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race itself is another program taking a port the server picked (its HTTP API's,
    its metrics'): here the UI port is held until the first start has exited over it, so the
    second start finds it free, as a port picked afresh would be."""
    ui_port = free_port()
    server = DevServer(tmp_path, free_port(), ui_port)
    with listening_on(ui_port) as holder:
        lost_a_race = devserver.lost_a_port_race

        def release_once_lost(log_path: Path, written_before: int) -> bool:
            lost = lost_a_race(log_path, written_before)
            if lost:
                holder.close()
            return lost

        monkeypatch.setattr(devserver, "lost_a_port_race", release_once_lost)
        try:
            await server.start()
            log = (tmp_path / LOG_FILE).read_text()
            assert log.count("address already in use") == 1, log
            assert server.process is not None and server.process.poll() is None
        finally:
            server.stop()


async def test_a_port_taken_at_every_start_is_named_with_the_log(tmp_path: Path) -> None:
    ui_port = free_port()
    server = DevServer(tmp_path, free_port(), ui_port)
    with listening_on(ui_port), pytest.raises(ServerError) as refused:
        await server.start()
    message = str(refused.value)
    assert f"--ui-port {ui_port}" in message and str(tmp_path / LOG_FILE) in message, message
    assert (tmp_path / LOG_FILE).read_text().count("address already in use") == 2
