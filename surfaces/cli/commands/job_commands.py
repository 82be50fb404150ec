"""`codedesk task|jobs|show|watch|logs|cancel`: starting and watching coding jobs."""

from __future__ import annotations

import getpass
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from desk.agents.presets import PRESETS, preset_command
from desk.errors import AgentCommandError
from surfaces.cli.common.options import JOB_NUMBER
from surfaces.cli.common.runner import (
    more_line,
    reach,
    run,
    settings,
    with_desk,
)
from surfaces.render.terminal.console import err, out

if TYPE_CHECKING:
    from desk.payloads.jobs import JobReport
    from desk.policy.daily import DayLimitReached
    from desk.usage.tally import Usage
    from surfaces.clients.desk_client import DeskClient

NUMBER = JOB_NUMBER


def _requester() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return ""


def task(
    repo: str = typer.Argument(..., metavar="OWNER/REPO", help="A repository on the shelf."),
    text: str = typer.Argument(
        None,
        metavar="TASK",
        help="What the agent should do: any text, even one starting with '-'; '-' reads stdin.",
    ),
    task_file: str = typer.Option(None, "--task-file", help="Read the task from this file."),
    agent_command: str = typer.Option(
        None, "--agent-command", help="The agent command for this job ({task} = the task)."
    ),
    agent_preset: str = typer.Option(
        None, "--agent", help=f"A preset agent: {', '.join(sorted(PRESETS))}."
    ),
    timeout: str = typer.Option(
        None,
        "--timeout",
        help="Work-time budget, e.g. 10m or 1h, up to the host's bound (default: the host's).",
    ),
    spend_limit: str = typer.Option(
        None,
        "--spend-limit",
        help="Stop the agent once it has spent this many US dollars, within the host's limit.",
    ),
    hold: Annotated[
        list[str] | None,
        typer.Option("--hold", metavar="CLASS", help="Also hold this class of call (repeatable)."),
    ] = None,
    review: bool = typer.Option(
        False,
        "--review",
        help="Let the work wait for your review before it lands: `codedesk integrate N`, "
        "`codedesk say N TEXT` (revise) or `codedesk discard N`.",
    ),
    agents: str = typer.Option(
        None,
        "--agents",
        metavar="PRESETS",
        help="Several agents at the task side by side, e.g. claude,codex; you pick one "
        "(`codedesk pick N b`).",
    ),
    attempts: int = typer.Option(
        None, "--attempts", metavar="K", help="K attempts of the one agent, side by side."
    ),
    pick_first_passing: bool = typer.Option(
        False,
        "--pick-first-passing",
        help="With attempts: the first whose check passes integrates, the others stop.",
    ),
    wait: bool = typer.Option(False, "--wait", help="Follow the job and print its report."),
) -> None:
    """Start a coding job on OWNER/REPO; prints the job number at once."""
    text = _task_text(text, task_file)
    from desk.names import job_workflow_id
    from desk.payloads.jobs import JobOutcome
    from desk.policy.host import asked_budget, asked_spend_limit
    from surfaces.clients.conversation.attempt_asks import attempts_asked
    from workers.host_queues import host_polled

    async def body(desk: DeskClient) -> int:
        budget = asked_budget(timeout) if timeout is not None else None
        limit = asked_spend_limit(spend_limit) if spend_limit is not None else None
        if agent_preset is not None and agent_command is not None:
            raise AgentCommandError("Give --agent or --agent-command, not both.")
        command = preset_command(agent_preset) if agent_preset is not None else agent_command
        tries = attempts_asked(
            agents,
            attempts,
            command or desk.settings.agent_command,
            pick_first_passing=pick_first_passing,
        )
        admission = await desk.submit_job(
            repo,
            text,
            agent_command=command,
            budget=budget,
            requester=_requester(),
            hold_classes=hold or (),
            spend_limit=limit,
            review=review,
            attempts=tries,
            pick_first_passing=pick_first_passing,
        )
        number = admission.number
        host = admission.host
        if host and not await host_polled(desk.client, desk.settings.task_queue, host):
            err.print(
                f"warning: host {host}, where {repo} lives, has no worker polling now: job "
                f"{number} waits for it (start `codedesk worker` there with CODEDESK_HOST={host}).",
                markup=False,
            )
        if admission.day_limit is not None:
            from surfaces.render.words.daily_limit_words import day_limit_reason

            why = day_limit_reason(admission.day_limit, desk.settings.time_zone)
            out.print(
                f"job {number} queued at position {admission.position} on {repo}: {why} "
                f"(workflow {job_workflow_id(number)})",
                markup=False,
            )
        elif admission.position:
            out.print(
                f"job {number} queued at position {admission.position} on {repo} "
                f"({admission.running} running, {admission.queued} waiting; "
                f"workflow {job_workflow_id(number)})"
            )
        else:
            out.print(f"job {number} started on {repo} (workflow {job_workflow_id(number)})")
        if not wait:
            out.print(
                f"Follow it with `codedesk watch {number}`; see it with `codedesk show {number}`."
            )
            return 0
        await _follow(desk, number)
        report = await desk.wait(number)
        _print_report(report, desk.settings.time_zone)
        return 0 if report.outcome == JobOutcome.INTEGRATED else 1

    raise typer.Exit(with_desk(body))


def _task_text(text: str | None, task_file: str | None) -> str:
    """The task from the TASK argument, `-` (stdin) or --task-file; a usage error otherwise."""
    if (text is None) == (task_file is None):
        raise typer.BadParameter(
            "Give the task as TASK (or '-' to read it from stdin) or --task-file, one of them."
        )
    if task_file is not None:
        try:
            text = Path(task_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise typer.BadParameter(f"--task-file {task_file} cannot be read: {error}.") from None
    elif text == "-":
        text = sys.stdin.read()
    assert text is not None
    if not text.strip():
        raise typer.BadParameter("The task is empty: say what the agent should do.")
    return text.strip("\n")


def jobs(
    limit: int = typer.Option(
        None, "--limit", min=1, help="How many jobs to show, newest first (default: the setting)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    sort: str = typer.Option(
        "number",
        "--sort",
        help="number (newest first) or cost (the page's dearest first; unknown costs last).",
    ),
) -> None:
    """List jobs, newest first: number, repository, phase, outcome, cost, requester, start."""
    if sort not in ("number", "cost"):
        raise typer.BadParameter(f"--sort {sort!r}: choose number or cost.")
    from surfaces.clients.listings.job_listing import job_page
    from surfaces.clients.listings.worker_check import no_worker
    from surfaces.render.terminal.tables import JOB_COLUMNS, job_cells, print_table
    from workers.temporal.runtime import server_address
    from workers.temporal.service import connect_service

    where = reach()

    async def body() -> None:
        service = await connect_service(
            server_address(where.home, where.temporal_address), where.settings
        )
        listing = await job_page(
            service, where.namespace, where.task_queue, limit or where.list_limit
        )
        if not listing.worker_polling:
            typer.echo(
                f"note: {no_worker(where.task_queue)} Until then queue positions are not shown.",
                err=True,
            )
        rows = listing.page.items
        if sort == "cost":
            rows = sorted(rows, key=lambda row: (row.cost is None, -(row.cost or 0.0)))
        if as_json:
            typer.echo(json.dumps([row.as_json() for row in rows], indent=2))
        elif not rows:
            typer.echo('No jobs yet: start one with `codedesk task OWNER/REPO "TASK"`.')
        else:
            print_table(JOB_COLUMNS, [job_cells(row, where.time_zone) for row in rows])
        more_line(listing.page, "job", "jobs")

    run(body())


async def _spent_so_far(desk: DeskClient, number: int) -> Usage | None:
    """What the running job's agent used so far, from its latest heartbeat (None: nothing yet,
    or the server could not say)."""
    from temporalio.service import RPCError

    from desk.names import job_workflow_id
    from surfaces.clients.agent_lines import agent_lines

    try:
        seen = await agent_lines(desk.client, job_workflow_id(number))
    except RPCError:
        return None
    return seen.usage if seen.usage is not None and not seen.usage.empty else None


async def _waiting_for_day(desk: DeskClient, number: int) -> DayLimitReached | None:
    """Why the queued job waits for the next UTC day: the desk's daily spend limit is reached
    (None: it waits for a slot, or no worker answers for the desk)."""
    from datetime import UTC, datetime

    state = await desk.desk_state()
    if state is None or state.policy is None or number not in state.queue:
        return None
    return state.day_spend.reached(state.policy.daily_spend_limit, datetime.now(UTC))


def show(number: int = NUMBER, as_json: bool = typer.Option(False, "--json")) -> None:
    """Show a job's status, report, history and Temporal UI link."""
    from temporalio.client import WorkflowExecutionStatus

    from desk.names import job_workflow_id
    from desk.payloads.jobs import JobPhase
    from surfaces.clients.result_deliveries import job_delivery
    from surfaces.render.layout.report_layout import delivery_lines
    from surfaces.render.layout.report_reasons import report_reason
    from surfaces.render.words.history_lines import history_lines
    from workers.temporal.client import ui_url, workflow_url

    async def body(desk: DeskClient) -> None:
        state, current = await desk.status(number)
        so_far = day = None
        if state == WorkflowExecutionStatus.RUNNING:
            await _note_when_no_worker(desk, "the phase shown is the last one recorded")
            so_far = await _spent_so_far(desk, number)
            if current.phase == JobPhase.QUEUED:
                day = await _waiting_for_day(desk, number)
        lines = history_lines(await desk.history(number))
        delivery = await job_delivery(desk.client, number)
        continued_by = [row.number for row in await desk.jobs() if row.continues == number]
        link = workflow_url(ui_url(desk.settings), desk.settings.namespace, job_workflow_id(number))
        if as_json:
            job = current.model_dump(mode="json")
            if current.report is not None:  # the report's reason in words, as the text shows it
                job["report"]["reason"] = report_reason(current.report)
            document = {
                "number": number,
                "status": state.name.lower(),
                "job": job,
                "spent_so_far": so_far.model_dump(mode="json") if so_far else None,
                "waiting_for_day": day.model_dump(mode="json") if day else None,
                "history": [{"at": line.at.isoformat(), "text": line.text} for line in lines],
                "ui_url": link,
                "delivery": delivery.model_dump(mode="json") if delivery else None,
                "continued_by": continued_by,
            }
            typer.echo(json.dumps(document, indent=2))
            return
        out.print(
            f"[bold]job {number}[/] {current.repo}: {state.name.lower()}, phase {current.phase}",
            markup=True,
        )
        if current.waiting_for_host:
            out.print(
                f"waiting for host {current.waiting_for_host}: no worker of that host polls "
                f"now; the job goes on when one does (CODEDESK_HOST={current.waiting_for_host}).",
                markup=False,
            )
        if current.phase == JobPhase.BUDGET_PAUSED and current.budget_pauses:
            pause = current.budget_pauses[-1]
            out.print(
                f"paused at its {pause.reason.value} budget (no process, no slot): "
                f"`codedesk approve {pause.approval_id}` lets it go on, `codedesk finish "
                f"{number}` integrates what it committed, `codedesk decline "
                f"{pause.approval_id}` stops it.",
                markup=False,
            )
        if current.phase == JobPhase.SUSPENDED:
            out.print(
                f"waiting for approval, suspended: {current.suspended_for} (no process, no "
                "slot; the agent resumes its session once the approval is answered).",
                markup=False,
            )
        if current.phase == JobPhase.REVIEW and current.attempts is not None:
            out.print(
                f"waiting for a pick among its attempts (no process, no slot): see one with "
                f"`codedesk diff {number} --attempt LABEL`; land it with `codedesk pick {number} "
                f"LABEL`, or drop them all with `codedesk discard {number}`.",
                markup=False,
            )
        elif current.phase == JobPhase.REVIEW:
            out.print(
                f"waiting for review (no process, no slot): see it with `codedesk diff {number}`;"
                f" land it with `codedesk integrate {number}`, ask for changes with `codedesk say "
                f"{number} TEXT`, or drop it with `codedesk discard {number}`.",
                markup=False,
            )
        if day is not None:
            from surfaces.render.words.daily_limit_words import day_limit_reason

            why = day_limit_reason(day, desk.settings.time_zone)
            out.print(f"waiting: {why}.", markup=False)
        if current.report is None:
            from desk.policy.modes import modes_said
            from surfaces.render.layout.work_rounds.usage_words import usage_words

            out.print(f"modes: {modes_said(current.modes, current.following)}", markup=False)
            if so_far is not None:
                out.print(f"spent so far: {usage_words(so_far)}", markup=False)
            from surfaces.render.layout.work_rounds.attempts_layout import attempts_blocks
            from surfaces.render.layout.work_rounds.check_layout import (
                check_blocks,
                check_round_blocks,
            )
            from surfaces.render.layout.work_rounds.review_layout import review_blocks
            from surfaces.render.terminal.printing import print_blocks
            from surfaces.render.words.message_words import message_blocks

            zone = desk.settings.time_zone
            print_blocks(check_round_blocks(current.check_rounds))
            print_blocks(check_blocks(current.check) if current.review_rounds else [])
            print_blocks(review_blocks(current.review_rounds, zone))
            print_blocks(attempts_blocks(current.attempts))
            print_blocks(message_blocks(current.messages, zone=zone))
        else:
            _print_report(current.report, desk.settings.time_zone)
        for later in continued_by:
            out.print(f"continued by job {later}", markup=False)
        for said in delivery_lines(delivery) if delivery else []:
            out.print(said, markup=False)
        out.print("history:")
        for line in lines:
            out.print(f"  {line.render(desk.settings.time_zone)}", markup=False)
        if link:
            out.print(f"Temporal UI: {link}", markup=False)

    with_desk(body)


def watch(number: int = NUMBER) -> None:
    """Follow a job's history and its agent's latest lines until it closes, then its report."""
    import asyncio

    async def body(desk: DeskClient) -> None:
        lines = asyncio.create_task(_follow_agent(desk, number))
        try:
            await _follow(desk, number)
        finally:
            lines.cancel()
        state, current = await desk.status(number)
        if current.report is not None:
            _print_report(current.report, desk.settings.time_zone)
        else:
            out.print(f"job {number} ended: {state.name.lower()}")

    with_desk(body)


def logs(
    number: int = NUMBER,
    follow: bool = typer.Option(False, "--follow", "-f", help="Keep printing until the job ends."),
) -> None:
    """Print (or follow) the agent's output of a job."""
    import asyncio

    from temporalio.client import WorkflowExecutionStatus

    from activities.agent.session.log import AGENT_LOG
    from activities.shelf_paths import job_dir

    config = settings()
    path = job_dir(config, number) / AGENT_LOG

    async def body(desk: DeskClient) -> None:
        await desk.status(number)
        position = 0
        while True:
            position = _print_from(path, position)
            if not follow:
                if position == 0:
                    out.print(f"job {number} has no agent output yet ({path}).", markup=False)
                return
            state, _ = await desk.status(number)
            if state != WorkflowExecutionStatus.RUNNING:
                _print_from(path, position)
                return
            await asyncio.sleep(0.5)

    with_desk(body)


def cancel(number: int = NUMBER) -> None:
    """Cancel a job: its agent's process group is killed and its report says cancelled."""
    import asyncio

    async def body(desk: DeskClient) -> None:
        await desk.cancel(number)
        out.print(f"Cancellation of job {number} requested; waiting for its report…")
        try:
            report = await asyncio.wait_for(desk.wait(number), timeout=60)
        except TimeoutError:
            out.print(f"job {number} has not finished yet; `codedesk show {number}` tells more.")
            return
        _print_report(report, desk.settings.time_zone)

    with_desk(body)


async def _note_when_no_worker(desk: DeskClient, consequence: str) -> None:
    """Say on stderr, at once, that no worker polls: nothing waits for one meanwhile."""
    from surfaces.clients.listings.worker_check import no_worker

    if not await desk.worker_polling():
        err.print(
            f"note: {no_worker(desk.settings.task_queue)} Until then {consequence}.",
            markup=False,
        )


async def _follow(desk: DeskClient, number: int) -> None:
    from surfaces.render.words.history_lines import HistoryReader

    reader = HistoryReader()
    async for event in desk.follow(number):
        line = reader.read(event)
        if line is not None:
            out.print(f"  {line.render(desk.settings.time_zone)}", markup=False)


async def _follow_agent(desk: DeskClient, number: int) -> None:
    """Print the agent's new lines from its heartbeat (as the job's thread shows them)."""
    import asyncio

    from temporalio.service import RPCError

    from desk.names import job_workflow_id
    from desk.scrub import scrub
    from surfaces.clients.agent_lines import NewLines, NewTexts, agent_lines
    from surfaces.render.terminal.block_lines import visible

    follower, texts = NewLines(), NewTexts()
    while True:
        try:
            seen = await agent_lines(desk.client, job_workflow_id(number))
        except RPCError:  # the server is away for a moment: the history follower says more
            seen = None
        if seen is not None:
            if not seen.job_running:
                return
            skipped, new = follower.take(seen)
            if skipped:
                out.print(f"  agent │ … {skipped} lines (codedesk logs {number})", markup=False)
            for line in new:
                out.print(f"  agent │ {visible(scrub(line))}", markup=False)
            missed, written = texts.take(seen)
            if missed:
                out.print(f"  agent ┃ … {missed} more texts (codedesk logs {number})", markup=False)
            for text in written:
                out.print("  agent wrote:", markup=False)
                for line in scrub(text).splitlines():
                    out.print(f"  agent ┃ {visible(line)}", markup=False)
        await asyncio.sleep(desk.settings.agent_progress_interval.total_seconds())


def _print_report(report: JobReport, zone: str) -> None:
    from surfaces.render.layout.report_layout import job_report
    from surfaces.render.terminal.printing import print_blocks

    print_blocks(job_report(report, zone))


def _print_from(path: Path, position: int) -> int:
    if not path.is_file():
        return position
    with path.open("r", encoding="utf-8", errors="replace") as log:
        log.seek(position)
        chunk = log.read()
        typer.echo(chunk, nl=False)
        return log.tell()
