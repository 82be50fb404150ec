"""`codedesk up` and `codedesk worker`: hosting the desk."""

from __future__ import annotations

import typer

from surfaces.cli.commands.discord_commands import bot_beside
from surfaces.cli.common.runner import refuse_inside_a_job, run, settings
from surfaces.render.terminal.console import out


def up(
    port: int | None = typer.Option(
        None, "--port", envvar="CODEDESK_PORT", help="Port of the embedded Temporal server."
    ),
    ui_port: int | None = typer.Option(
        None, "--ui-port", envvar="CODEDESK_UI_PORT", help="Port of the Temporal web UI."
    ),
    headless: bool = typer.Option(False, "--headless", help="Start the server without its UI."),
) -> None:
    """Start the embedded Temporal server (unless CODEDESK_TEMPORAL_ADDRESS is set) and a worker.

    With CODEDESK_DISCORD_TOKEN set, the Discord bot runs beside them.
    """
    refuse_inside_a_job("up")
    from workers.hosting import serve_up

    config = settings(port=port, ui_port=ui_port)
    also = bot_beside(config) if config.discord_token.get_secret_value() else None
    run(serve_up(config, out.print, headless=headless, also=also))


def worker() -> None:
    """Run only a worker against the configured or recorded Temporal server."""
    refuse_inside_a_job("worker")
    from activities.sandbox.bubblewrap import choose_sandbox, describe
    from workers.hosting import prepare_directories, serve_worker, stop_on_signals
    from workers.temporal.client import connect

    config = settings()

    async def body() -> None:
        prepare_directories(config)
        client = await connect(config)
        stop = stop_on_signals()
        out.print(describe(choose_sandbox(config.sandbox)), markup=False)

        def ready() -> None:
            out.print(
                f"Worker polling task queue {config.task_queue!r} as host {config.host!r}. "
                "Press Ctrl-C to stop."
            )

        await serve_worker(client, config, stop, ready)

    run(body())
