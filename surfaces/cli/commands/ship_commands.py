"""`codedesk report|push`: shipping the exact commit a person reviewed."""

from __future__ import annotations

import json

import typer

from surfaces.cli.common.runner import refuse_inside_a_job, run, settings
from surfaces.render.terminal.console import out

REPO = typer.Argument(..., metavar="OWNER/REPO", help="A repository on the shelf.")


def report(repo: str = REPO, as_json: bool = typer.Option(False, "--json")) -> None:
    """Fetch, check and describe what a push of the clone's HEAD would ship (keeps a receipt)."""
    refuse_inside_a_job("report")
    from surfaces.clients.ship_client import ShippingClient
    from surfaces.render.layout.report_layout import change_report
    from surfaces.render.terminal.printing import print_blocks
    from workers.temporal.client import connect

    config = settings()

    async def body() -> None:
        made = await ShippingClient(await connect(config), config).change_report(repo)
        if as_json:
            typer.echo(made.model_dump_json(indent=2))
            return
        print_blocks(change_report(made))
        out.print(f"\nTo ship it: codedesk push {made.repo} {made.head}", markup=False)

    run(body())


def push(
    repo: str = REPO,
    sha: str = typer.Argument(..., metavar="SHA", help="The full SHA `codedesk report` named."),
    wait: bool = typer.Option(False, "--wait", help="Wait for the approval and the push."),
    as_json: bool = typer.Option(False, "--json", help="With --wait: print the result as JSON."),
    hold: bool = typer.Option(
        False, "--hold", help="Wait for an owner's approval even if the host exempts the repo."
    ),
    pull_request: bool = typer.Option(
        False,
        "--pr",
        help="Ship as a pull request: SHA on a new branch, a pull request onto the default "
        "branch (through the host's gh).",
    ),
) -> None:
    """Ask to push exactly SHA to the default branch (or as a pull request); an owner approves
    it first."""
    refuse_inside_a_job("push")
    from desk.payloads.ship_payloads import PushStatus
    from surfaces.clients.ship_client import ShippingClient
    from surfaces.render.terminal.printing import print_blocks
    from surfaces.render.words.push_words import push_result
    from workers.temporal.client import connect

    config = settings()

    async def body() -> int:
        client = ShippingClient(await connect(config), config)
        finished = await client.finished_push(repo, sha)
        if finished is not None:
            if as_json:
                typer.echo(json.dumps(finished.model_dump(mode="json"), indent=2))
            else:
                out.print(f"The push of {sha} to {repo} is done already:", markup=False)
                print_blocks(push_result(finished))
            return 0
        handle, approval = await client.request_push(
            repo, sha, hold=hold, pull_request=pull_request
        )
        asked = await client.asked(handle, config.outcome_wait)
        if asked is not None and asked.result is not None:  # refused before anyone was asked
            if as_json:
                typer.echo(json.dumps(asked.result.model_dump(mode="json"), indent=2))
            else:
                print_blocks(push_result(asked.result))
            return 1
        if approval:
            out.print(
                f"The push of {sha} waits for an owner's approval: {approval}\n"
                f"  approve it: codedesk approve {approval}",
                markup=False,
            )
        else:
            out.print(
                f"The desk's host policy exempts {repo} (CODEDESK_OWNER_REPOS on its worker): "
                "the push runs without an owner's approval."
            )
        if not wait:
            out.print(f"Push workflow: {handle.id}", markup=False)
            return 0
        result = await handle.result()
        if as_json:
            typer.echo(json.dumps(result.model_dump(mode="json"), indent=2))
        else:
            print_blocks(push_result(result))
        return 0 if result.status == PushStatus.PUSHED else 1

    raise typer.Exit(run(body()))
