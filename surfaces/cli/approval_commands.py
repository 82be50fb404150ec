"""`codedesk approvals|approve|decline|withdraw|hold`: people's answers and the agent's seam."""

from __future__ import annotations

import json
import sys
from enum import StrEnum

import typer

from desk.approvals import ApprovalState, Decision, Principal
from desk.errors import DeskError, HoldError
from surfaces.approvals_client import ApprovalsClient
from surfaces.card_layout import approval_card
from surfaces.cli.render import print_blocks
from surfaces.cli.runner import err, out, run, settings
from surfaces.hold import ask_job, claude_output, job_from_environment, read_request
from workers.client import connect

ID = typer.Argument(..., metavar="ID", help="An approval id, or a unique part of one.")
HOLD_REFUSED = 2
"""The exit code of a refused hold: Claude Code's PreToolUse contract for "do not run"."""


class HoldFormat(StrEnum):
    PLAIN = "plain"
    CLAUDE = "claude"


def approvals(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List open approvals, each as a card rendered for this terminal."""
    config = settings()

    async def body() -> None:
        states = await ApprovalsClient(await connect(config), config.task_queue).open_approvals()
        if as_json:
            typer.echo(json.dumps([state.model_dump(mode="json") for state in states], indent=2))
            return
        if not states:
            out.print("No open approvals.")
            return
        for state in states:
            print_card(state, config.card_value_chars)

    run(body())


def approve(approval: str = ID) -> None:
    """Approve an open approval as the local owner."""
    raise typer.Exit(_answer(approval, Decision.APPROVE))


def decline(approval: str = ID) -> None:
    """Decline an open approval as the local owner."""
    raise typer.Exit(_answer(approval, Decision.DECLINE))


def withdraw(
    approval: str = ID,
    reason: str = typer.Option("", "--reason", help="Why it is withdrawn (shown on the card)."),
) -> None:
    """Withdraw an open approval for every caller waiting on it."""
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
    print_blocks(approval_card(state, value_chars=value_chars))
    out.print()
