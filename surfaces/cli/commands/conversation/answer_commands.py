"""`codedesk say|finish|diff|integrate|discard`: talking to a job's agent and answering its
review."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import typer

from surfaces.cli.common.options import JOB_NUMBER as NUMBER
from surfaces.cli.common.runner import refuse_inside_a_job, with_desk
from surfaces.render.terminal.console import err, out

if TYPE_CHECKING:
    from surfaces.clients.desk_client import DeskClient


def say(
    number: int = NUMBER,
    text: str = typer.Argument(
        ...,
        metavar="TEXT",
        help="What the agent should hear: any text, even one starting with '-'; '-' reads stdin.",
    ),
) -> None:
    """Send a job's agent a message: it reads it while it works, or when its run ends; to a
    finished job, a new job continues it, its agent resuming the job's session."""
    refuse_inside_a_job("say")
    if text == "-":
        text = sys.stdin.read().strip("\n")
    from surfaces.render.words.message_words import say_answer

    async def body(desk: DeskClient) -> None:
        answer = await desk.say(number, text)
        out.print(say_answer(answer), markup=False)

    with_desk(body)


def finish(number: int = NUMBER) -> None:
    """End a job's agent at its budget card: the job checks and integrates what is committed."""
    refuse_inside_a_job("finish")

    async def body(desk: DeskClient) -> None:
        await desk.finish(number)
        out.print(
            f"job {number}: finished here; it checks and integrates what its agent committed "
            f"(`codedesk show {number}` shows its report once it ends).",
            markup=False,
        )

    with_desk(body)


def diff(
    number: int = NUMBER,
    stat: bool = typer.Option(False, "--stat", help="Only the stat: files and lines changed."),
    attempt: str = typer.Option(
        None, "--attempt", metavar="LABEL", help="One attempt of a job of several: a, b…"
    ),
) -> None:
    """Show a job's commits against the clone's HEAD: a stat, then the diff."""

    async def body(desk: DeskClient) -> None:
        job = await desk.attempt_number(number, attempt) if attempt is not None else number
        found = await desk.diff(job, stat_only=stat)
        typer.echo(found.stat.rstrip("\n") or f"job {number} changes nothing against HEAD")
        if not stat and found.diff:
            typer.echo("")
            typer.echo(found.diff.rstrip("\n"))
        if found.diff_cut:
            err.print(
                f"(the diff was cut: {found.diff_cut:,} more characters; see them in the job's "
                f"worktree with `git diff {found.head[:12]}...HEAD`)",
                markup=False,
            )

    with_desk(body)


def integrate(number: int = NUMBER) -> None:
    """Land a job's work waiting in review: rebase and fast-forward it into the clone."""
    _answer_review(number, "integrate")


def discard(number: int = NUMBER) -> None:
    """Discard a job's work waiting in review: its branch and worktree go, the clone stays."""
    _answer_review(number, "discard")


def _answer_review(number: int, verdict: str) -> None:
    refuse_inside_a_job(verdict)
    from desk.payloads.conversation.review_payloads import ReviewVerdict

    async def body(desk: DeskClient) -> None:
        answered = await desk.answer_review(number, ReviewVerdict(verdict))
        doing = "integrates" if answered.verdict == ReviewVerdict.INTEGRATE else "discards"
        out.print(
            f"job {number} {doing} its work now; `codedesk watch {number}` follows it.",
            markup=False,
        )

    with_desk(body)
