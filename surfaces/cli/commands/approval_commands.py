"""`codedesk approvals|approve|decline|withdraw|hold`: people's answers and the agent's seam."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from typing import TYPE_CHECKING

import typer

from surfaces.cli.common.runner import more_line, reach, refuse_inside_a_job, run, settings
from surfaces.render.terminal.console import out

if TYPE_CHECKING:
    from desk.holds.approvals import ApprovalState, Decision

ID = typer.Argument(..., metavar="ID", help="An approval id, or a unique part of one.")


class HoldFormat(StrEnum):
    PLAIN = "plain"
    CLAUDE = "claude"
    CODEX = "codex"
    OPENCODE = "opencode"


def approvals(
    limit: int = typer.Option(
        None, "--limit", min=1, help="How many to show, newest first (default: the setting)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """List open approvals, newest first, each as a card rendered for this terminal."""
    from surfaces.clients.listings.approval_listing import open_page
    from workers.temporal.runtime import server_address
    from workers.temporal.service import connect_service

    where = reach()

    async def body() -> None:
        service = await connect_service(
            server_address(where.home, where.temporal_address), where.settings
        )
        page = await open_page(
            service, where.namespace, where.task_queue, limit or where.list_limit
        )
        if as_json:
            states = page.items
            typer.echo(json.dumps([state.model_dump(mode="json") for state in states], indent=2))
        elif not page.items:
            typer.echo("No open approvals.")
        else:
            for state in page.items:
                print_card(state, where.card_value_chars)
        more_line(page, "open approval", "approvals")

    run(body())


def approve(approval: str = ID) -> None:
    """Approve an open approval as the local owner."""
    refuse_inside_a_job("approve")
    from desk.holds.approvals import Decision

    raise typer.Exit(_answer(approval, Decision.APPROVE))


def decline(approval: str = ID) -> None:
    """Decline an open approval as the local owner."""
    refuse_inside_a_job("decline")
    from desk.holds.approvals import Decision

    raise typer.Exit(_answer(approval, Decision.DECLINE))


def withdraw(
    approval: str = ID,
    reason: str = typer.Option("", "--reason", help="Why it is withdrawn (shown on the card)."),
) -> None:
    """Withdraw a held call: its open approval, or a late approval no call used yet.

    A withdrawn call is never held again: its job refuses an identical call as withdrawn."""
    refuse_inside_a_job("withdraw")
    from surfaces.clients.approval_client import ApprovalsClient
    from surfaces.render.layout.answer_outcomes import withdrawal_words
    from workers.temporal.client import connect

    config = settings()

    async def body() -> None:
        client = ApprovalsClient(await connect(config), config.task_queue)
        done = await client.withdraw_call(approval, reason, config.owner)
        out.print(withdrawal_words(done), markup=False)

    run(body())


FORMAT = typer.Option(
    HoldFormat.PLAIN,
    "--format",
    help=(
        "The agent CLI's hook form: plain (exit 0 or 2), claude (also Claude Code's hook JSON), "
        "codex (its PreToolUse input), opencode (codedesk's plugin's request)."
    ),
)


def hold(output: HoldFormat = FORMAT) -> None:
    """Ask the job whether an agent's tool call may run (hook seam; JSON request on stdin)."""
    from surfaces.hook import main as hook_main

    raise typer.Exit(hook_main(["--format", output.value], sys.stdin.buffer))


def _answer(given: str, decision: Decision) -> int:
    from desk.holds.approvals import Decision, Principal
    from surfaces.clients.approval_client import ApprovalsClient
    from surfaces.render.layout.answer_outcomes import answer_led_to
    from surfaces.render.terminal.printing import print_blocks
    from workers.temporal.client import connect, ui_url, workflow_url

    config = settings()
    by = Principal(id=config.owner, name=config.owner.removeprefix("local:"))

    async def body() -> int:
        client = ApprovalsClient(await connect(config), config.task_queue)
        ident = await client.resolve(given)
        result, by_signal = await client.answer(ident, decision, by)
        verb = "approved" if decision == Decision.APPROVE else "declined"
        if by_signal:
            out.print(
                f"{result.reason} Your answer to {ident} was sent as a durable signal: it counts "
                "when a worker runs, unless the approval settled first.",
                markup=False,
            )
            return 0
        if result.counted:
            out.print(f"{ident}: {verb}.")
            followed = await client.followed(ident, config.outcome_wait)
            link = workflow_url(ui_url(config), config.namespace, followed.asker)
            request = followed.state.request if followed.state else None
            print_blocks(answer_led_to(decision, request, followed.asker, followed.push, link))
            return 0
        out.print(f"{ident}: your answer did not count. {result.reason}")
        return 1

    return run(body())


def print_card(state: ApprovalState, value_chars: int) -> None:
    """One open approval as a terminal card, from its structured payload."""
    from surfaces.render.layout.approval_layout import approval_card
    from surfaces.render.terminal.printing import print_blocks

    print_blocks(approval_card(state, value_chars=value_chars))
    out.print()
