"""The fake Discord across a process boundary: the bot as a subprocess, driven by JSON lines.

The test keeps the one `FakeDiscord` (Discord keeps its messages while a bot process is gone)
and serves it with `DiscordServer` on a local TCP port. A bot process
(tests/surfaces/bot_process.py) reaches it through `RemoteDiscord`, its HTTP layer's
`DiscordApi`: each REST request is a line `{"id", "method", "path", "body", "params"}`, each
answer a line `{"id", "answer"}`, `{"id", "refused": [status, code, message]}` (Discord
refusing, raised in the bot as discord.py's HTTPException) or `{"id", "failed": text}` (the
fake itself broke). A test can `withhold` the answer to one request: Discord does what it
asks (or not: the bot died as it sent it), and the bot never hears so. `BotProcess` is the
test's handle on one bot process: it delivers interactions on its stdin and reads its
acknowledgements on its stdout.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

from tests.helpers.waiting import awaited
from tests.surfaces.fake_discord import DiscordError, FakeDiscord

LINE_LIMIT = 16 * 1024 * 1024
"""Bytes one line may take (a channel's history of messages is one answer)."""
ROOT = Path(__file__).parents[2]

Request = Callable[[str, str, Any], bool]
"""Whether a request (method, path, JSON body) is the one a test is waiting for."""


def line(value: dict[str, Any]) -> bytes:
    return json.dumps(value).encode() + b"\n"


class DiscordServer:
    """Serves `fake` to bot processes; `address` is what `RemoteDiscord.connect` takes."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.address = ""
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._withheld: list[tuple[Request, bool, asyncio.Event]] = []

    def withhold(self, request: Request, *, done_in_discord: bool = True) -> asyncio.Event:
        """Never answer the bot's next request that matches; Discord still does what it asks,
        unless not `done_in_discord` (the bot died as it sent it). The event is set after."""
        reached = asyncio.Event()
        self._withheld.append((request, done_in_discord, reached))
        return reached

    async def __aenter__(self) -> DiscordServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, limit=LINE_LIMIT)
        port = self._server.sockets[0].getsockname()[1]
        self.address = f"127.0.0.1:{port}"
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for writer in list(self._writers):
            writer.close()
        await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            while asked := await reader.readline():
                decoded = json.loads(asked)
                withheld = self._withheld_for(decoded)
                if withheld is None:
                    writer.write(line(self._answer(decoded)))
                    await writer.drain()
                    continue
                _, done_in_discord, reached = withheld
                if done_in_discord:
                    self._answer(decoded)
                reached.set()
        except ConnectionError:
            pass  # the bot process was killed mid-request: Discord would not care either
        finally:
            self._writers.discard(writer)
            writer.close()

    def _withheld_for(self, asked: dict[str, Any]) -> tuple[Request, bool, asyncio.Event] | None:
        for withheld in self._withheld:
            if withheld[0](asked["method"], asked["path"], asked["body"]):
                self._withheld.remove(withheld)
                return withheld
        return None

    def _answer(self, asked: dict[str, Any]) -> dict[str, Any]:
        reply: dict[str, Any] = {"id": asked["id"]}
        try:
            args = (asked["method"], asked["path"], asked["body"], asked["params"])
            reply["answer"] = self.fake.answer(*args)
        except DiscordError as error:
            reply["refused"] = [error.status, error.code, error.message]
        except Exception as error:  # the fake broke: the bot sees it, the test's log says why
            reply["failed"] = f"{type(error).__name__}: {error}"
        return reply


class RemoteDiscord:
    """A `DiscordApi` in the bot process: every request asked of the test's `DiscordServer`.

    Requests may be in flight at once (and cancelled): each answer finds its request by id.
    """

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writer = writer
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._reading = asyncio.create_task(self._read(reader), name="remote-discord")

    @classmethod
    async def connect(cls, address: str) -> RemoteDiscord:
        host, port = address.rsplit(":", 1)
        reader, writer = await asyncio.open_connection(host, int(port), limit=LINE_LIMIT)
        return cls(reader, writer)

    async def ask(self, method: str, path: str, body: Any, params: Any) -> Any:
        ident = next(self._ids)
        answer = asyncio.get_running_loop().create_future()
        self._waiting[ident] = answer
        try:
            asked = {"id": ident, "method": method, "path": path, "body": body, "params": params}
            self._writer.write(line(asked))
            await self._writer.drain()
            reply = await answer
        finally:
            self._waiting.pop(ident, None)
        if "refused" in reply:
            raise DiscordError(*reply["refused"])
        if "failed" in reply:
            raise RuntimeError(f"the fake Discord failed on {method} {path}: {reply['failed']}")
        return reply["answer"]

    async def close(self) -> None:
        self._reading.cancel()
        self._writer.close()
        with suppress(ConnectionError):
            await self._writer.wait_closed()

    async def _read(self, reader: asyncio.StreamReader) -> None:
        while reply := await reader.readline():
            decoded = json.loads(reply)
            waiting = self._waiting.get(decoded["id"])
            if waiting is not None and not waiting.done():
                waiting.set_result(decoded)
        gone = ConnectionError("the fake Discord closed its socket")
        for waiting in self._waiting.values():
            if not waiting.done():
                waiting.set_exception(gone)


class BotProcess:
    """One bot process on the harness: `deliver` an interaction, `kill` it as a crash does."""

    def __init__(self, process: asyncio.subprocess.Process, log: Path) -> None:
        self.process, self.log = process, log

    async def said(self, what: str) -> dict[str, Any]:
        """The next line the bot process says on stdout; it ending first fails naming `what`."""
        assert self.process.stdout is not None
        said = await awaited(self.process.stdout.readline(), what)
        if not said:
            await awaited(self.process.wait(), "the bot process to exit")
            raise AssertionError(
                f"the bot process ended (exit {self.process.returncode}) before {what}; "
                f"its log:\n{self.log.read_text()}"
            )
        decoded: dict[str, Any] = json.loads(said)
        return decoded

    async def send(self, payload: dict[str, Any]) -> None:
        """Send one INTERACTION_CREATE to the bot, as the gateway does: no waiting for it."""
        assert self.process.stdin is not None
        self.process.stdin.write(line({"deliver": payload}))
        await self.process.stdin.drain()

    async def deliver(self, payload: dict[str, Any]) -> None:
        """Deliver one INTERACTION_CREATE; return once the bot's handlers have finished."""
        await self.send(payload)
        said = await self.said(f"the bot to handle interaction {payload['id']}")
        assert said == {"delivered": payload["id"]}, said

    async def kill(self) -> None:
        """SIGKILL the bot process and reap it: no close, no goodbye to anyone."""
        if self.process.returncode is None:
            os.kill(self.process.pid, signal.SIGKILL)
        await awaited(self.process.wait(), "the killed bot process to be reaped")

    async def close(self) -> None:
        """Close its stdin: the bot closes as it would on Ctrl-C, and exits 0."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        code = await awaited(self.process.wait(), "the bot process to exit")
        assert code == 0, f"the bot process exited {code}; its log:\n{self.log.read_text()}"


@asynccontextmanager
async def bot_process(
    env: dict[str, str], discord: DiscordServer, queue: str, log: Path
) -> AsyncIterator[BotProcess]:
    """A bot process logged in to `discord`, hosting its surface on `queue`, logging to `log`;
    SIGKILLed at the end if it still runs."""
    with log.open("wb") as output:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.surfaces.bot_process",
            discord.address,
            queue,
            env=env,
            cwd=ROOT,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=output,
            limit=LINE_LIMIT,
            start_new_session=True,
        )
    bot = BotProcess(process, log)
    try:
        said = await bot.said("the bot process to log in")
        assert said == {"ready": queue}, said
        yield bot
    finally:
        with suppress(ProcessLookupError):
            await bot.kill()
