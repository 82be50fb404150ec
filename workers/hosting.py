"""Hosting: run the worker (and for `up`, the embedded server) until SIGINT or SIGTERM."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Awaitable, Callable

from temporalio.client import Client

from activities.sandbox.bubblewrap import choose_sandbox, describe
from desk.config.settings import ENV_PREFIX, DeskSettings
from desk.errors import SettingsError
from workers.desk_handle import configure_desk
from workers.devserver import DevServer
from workers.host_queues import host_polled
from workers.log_scrub import scrub_log_output
from workers.search_attributes import ensure_search_attributes
from workers.shelf_look import ask_entities_to_look
from workers.temporal.client import connect
from workers.temporal.runtime import RuntimeRecord, clear_runtime, write_runtime
from workers.worker import build_worker


def stop_on_signals() -> asyncio.Event:
    """An event set by SIGINT or SIGTERM, so the worker can drain and the server stop."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    return stop


def prepare_directories(settings: DeskSettings) -> None:
    """Create the home and the shelf, or say in one line why they cannot be used.

    A host writes its server database, runtime record, job logs and clones there, so a path
    that cannot be created or written is refused before anything starts.
    """
    for name, path in (("home", settings.home), ("shelf", settings.shelf_dir)):
        try:
            path.mkdir(parents=True, exist_ok=True)
            if not os.access(path, os.W_OK | os.X_OK):
                raise PermissionError(13, "not writable")
        except OSError as error:
            raise SettingsError(
                f"Setting {name!r} ({ENV_PREFIX}{name.upper()}) is {str(path)!r}, which cannot be "
                f"used as a directory ({error.strerror or error}): name a directory you may write."
            ) from None


async def serve_worker(
    client: Client,
    settings: DeskSettings,
    stop: asyncio.Event,
    ready: Callable[[], None] = lambda: None,
) -> None:
    """Run a worker until `stop`; once it polls, tell the desk this host's limits.

    `ready` is called once the desk has answered, so the worker is really polling then.
    """
    scrub_log_output()
    await ensure_search_attributes(client)
    others = await host_polled(client, settings.task_queue, settings.host)
    async with build_worker(client, settings):
        await configure_desk(client, settings, others_polling=others)
        await ask_entities_to_look(client, settings)
        ready()
        await stop.wait()


async def serve_up(
    settings: DeskSettings,
    say: Callable[[str], None],
    *,
    headless: bool = False,
    also: Callable[[Client, asyncio.Event], Awaitable[None]] | None = None,
) -> None:
    """`codedesk up`: the embedded server (unless an address is set) and a worker.

    `also` runs beside the worker until the same stop (the Discord bot, when configured).
    """
    prepare_directories(settings)
    stop = stop_on_signals()
    server: DevServer | None = None
    if settings.temporal_address:
        address, ui = settings.temporal_address, ""
        say(
            f"Using the Temporal server at {address} (CODEDESK_TEMPORAL_ADDRESS); "
            "no server started."
        )
    else:
        server = DevServer(
            settings.home,
            settings.port,
            settings.ui_port,
            headless=headless,
            sync=settings.server_sync,
        )
        await server.start()
        await server.register_search_attributes(settings.namespace)
        address, ui = server.address, server.ui_url
        write_runtime(
            settings.home,
            RuntimeRecord(
                address=address, ui_url=ui, namespace=settings.namespace, pid=os.getpid()
            ),
        )
    try:
        client = await connect(settings, address)
        say(f"Temporal server: {address}   namespace: {settings.namespace}")
        if ui:
            say(f"Temporal UI:     {ui}/namespaces/{settings.namespace}/workflows")
        say(describe(choose_sandbox(settings.sandbox)))

        def ready() -> None:
            say(
                f"Worker polling task queue {settings.task_queue!r} as host {settings.host!r}. "
                "Press Ctrl-C to stop."
            )

        if also is None:
            await serve_worker(client, settings, stop, ready)
        else:
            await asyncio.gather(serve_worker(client, settings, stop, ready), also(client, stop))
        say("Stopping: the worker drained; stopping the server.")
    finally:
        if server is not None:
            clear_runtime(settings.home, os.getpid())
            server.stop()
