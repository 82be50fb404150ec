"""`codedesk approvals|approve|decline|withdraw|hold`: people's answers and the agent's seam."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from typing import TYPE_CHECKING

import typer

from desk.errors import DeskError, HoldError
from surfaces.cli.runner import err, more_line, out, run, settings

if TYPE_CHECKING:
    from desk.approvals import ApprovalState, Decision

ID = typer.Argument(..., metavar="ID", help="An approval id, or a unique part of one.")
HOLD_REFUSED = 2
"""The exit code of a refused hold: Claude Code's PreToolUse contract for "do not run"."""


class HoldFormat(StrEnum):
    PLAIN = "plain"
    CLAUDE = "claude"


def approvals(
    limit: int = typer.Option(
        None, "--limit", min=1, help="How many to show, newest first (default: the setting)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """List open approvals, newest first, each as a card rendered for this terminal."""
    from surfaces.approvals_client import ApprovalsClient
    from workers.client import connect

    config = settings()

    async def body() -> None:
        client = ApprovalsClient(await connect(config), config.task_queue)
        page = await client.open_page(limit or config.list_limit)
        if as_json:
            states = page.items
            typer.echo(json.dumps([state.model_dump(mode="json") for state in states], indent=2))
        elif not page.items:
            out.print("No open approvals.")
        else:
            for state in page.items:
                print_card(state, config.card_value_chars)
        more_line(page, "open approval", "approvals")

    run(body())


def approve(approval: str = ID) -> None:
    """Approve an open approval as the local owner."""
    from desk.approvals import Decision

    raise typer.Exit(_answer(approval, Decision.APPROVE))


def decline(approval: str = ID) -> None:
    """Decline an open approval as the local owner."""
    from desk.approvals import Decision

    raise typer.Exit(_answer(approval, Decision.DECLINE))


def withdraw(
    approval: str = ID,
    reason: str = typer.Option("", "--reason", help="Why it is withdrawn (shown on the card)."),
) -> None:
    """Withdraw an open approval for every caller waiting on it."""
    from surfaces.approvals_client import ApprovalsClient
    from workers.client import connect

    config = settings()

    async def body() -> None:
        client = ApprovalsClient(await connect(config), config.task_queue)
        ident = await client.resolve(approval)
        await client.withdraw(ident, reason, config.owner)
        out.print(f"Withdrawal of {ident} sent; it counts unless the approval settled first.")

    run(body())


FORMAT = typer.Option(
    HoldFormat.PLAIN, "--format", help="plain: exit 0 or 2; claude: Claude Code hook JSON."
)


def hold(output: HoldFormat = FORMAT) -> None:
    """Ask the job whether an agent's tool call may run (hook seam; JSON request on stdin)."""
    from surfaces.hold import ask_job, claude_output, job_from_environment, read_request
    from workers.client import connect

    try:
        config = settings()
        request = read_request(sys.stdin.read(), config.hold_wait)
        number = job_from_environment()

        async def body() -> None:
            answer = await ask_job(await connect(config), number, request)
            if output == HoldFormat.CLAUDE:
                typer.echo(json.dumps(claude_output(answer)))
                return
            if not answer.may_run:
                raise HoldError(answer.reason or f"The call was {answer.verdict.value}.")

        run(body())
    except (DeskError, typer.Exit) as refusal:
        if isinstance(refusal, typer.Exit) and refusal.exit_code == 0:
            raise
        message = str(refusal) if isinstance(refusal, DeskError) else "The hold failed."
        if isinstance(refusal, DeskError):
            err.print(message, markup=False)
        raise typer.Exit(HOLD_REFUSED) from None


def _answer(given: str, decision: Decision) -> int:
    from desk.approvals import Decision, Principal
    from surfaces.approvals_client import ApprovalsClient
    from workers.client import connect

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
            return 0
        out.print(f"{ident}: your answer did not count. {result.reason}")
        return 1

    return run(body())


def print_card(state: ApprovalState, value_chars: int) -> None:
    """One open approval as a terminal card, from its structured payload."""
    from surfaces.card_layout import approval_card
    from surfaces.cli.render import print_blocks

    print_blocks(approval_card(state, value_chars=value_chars))
    out.print()
