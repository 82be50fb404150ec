"""`codedesk withdraw` sticks, and reaches a call approved late (issue 43, item 17).

The seed (pi-roundtable 0.15): a call it withdrew is never held again; withdrawing also forgets
a held call nobody used yet, and a call approved late but not made yet is withdrawable until the
call is made; an approval answered first stands; aborting twice does nothing.
"""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent

from desk.config.settings import DeskSettings
from desk.holds.approvals import (
    Decision,
    HoldVerdict,
    HoldWhy,
    OutcomeKind,
    Principal,
    approval_id,
)
from desk.payloads.jobs import JobOutcome
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from surfaces.render.layout.report_layout import job_report
from surfaces.render.terminal.block_lines import plain
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import assert_refused, run_cli, settings_env, shown
from tests.helpers.holds.asked_holds import REPO, ask, runs_of
from tests.helpers.job_waits import open_ids, working
from tests.helpers.waiting import awaited, until
from workflows.shipping.approval import Approval

LATE = {"command": "git push origin main"}
IN_TIME = {"command": "git push origin feature"}


async def test_a_call_approved_late_is_withdrawn_and_never_runs(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "wait", agent_command=agent("sleep:60"))
    await working(desk, number)
    approvals = ApprovalsClient(desk.client)
    owner = Principal(id=settings.owner)
    env = settings_env(settings)

    async def withdraw(given: str) -> subprocess.CompletedProcess[str]:
        return await run_cli(env, "withdraw", given, "--reason", "not any more", cwd=tmp_path)

    # The hook gives up; the owner approves after that: the next identical call could use it.
    gave_up = await ask(desk, number, "Bash", LATE, wait=0.5)
    assert gave_up.verdict == HoldVerdict.PENDING, gave_up
    ident = approval_id(f"job-{number}", "Bash", LATE)
    assert (await approvals.answer(ident, Decision.APPROVE, owner))[0].counted
    outcome = await desk.client.get_workflow_handle_for(Approval.run, ident).result()
    assert outcome.kind == OutcomeKind.APPROVED

    async def kept_late() -> bool:
        """The job has taken the approval's end (a workflow task after the child's end)."""
        events = [event async for event in desk.job(number).fetch_history_events()]
        ended = [
            event.event_id
            for event in events
            if event.event_type == EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED
            and _child_id(event) == ident
        ]
        return bool(ended) and any(
            event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED
            and event.event_id > ended[0]
            for event in events
        )

    await until(kept_late, "the job to keep the late approval")

    # Its card is closed, yet `withdraw` finds it by a part of its id, and forgets it.
    withdrawn = await withdraw(f"job-{number}")
    assert withdrawn.returncode == 0, shown(withdrawn)
    said = " ".join(withdrawn.stdout.split())
    assert f"Withdrew {ident}: it was approved late" in said and "will not run" in said, said
    assert (await desk.status(number))[1].late_approvals == []

    # The identical call does not run: refused as withdrawn, without a card.
    again = await ask(desk, number, "Bash", LATE, wait=30)
    assert again.verdict == HoldVerdict.WITHDRAWN and again.why == HoldWhy.WITHDRAWN, again
    assert again.note == "not any more" and not again.may_run
    assert len(await runs_of(desk.client, ident)) == 1
    assert await approvals.open_approvals() == []

    # Aborting twice does nothing.
    twice = await withdraw(ident)
    assert twice.returncode == 0, shown(twice)
    assert f"{ident} was withdrawn already; nothing changed." in twice.stdout

    # An approval answered first stands: its call runs, and a withdrawal changes nothing.
    in_time = asyncio.create_task(ask(desk, number, "Bash", IN_TIME))
    [first] = await open_ids(approvals)
    assert (await approvals.answer(first, Decision.APPROVE, owner))[0].counted
    assert (await awaited(in_time, "the call approved in time")).verdict == HoldVerdict.APPROVED
    assert_refused(await withdraw(first), "was approved before this withdrawal")

    await desk.cancel(number)
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.CANCELLED, report
    [late] = [call for call in report.held_calls if call.approval_id == ident]
    assert late.verdict == HoldVerdict.WITHDRAWN, late
    assert late.note_kind == "late_approval_withdrawn" and late.note == "not any more"
    said = " ".join(" ".join(plain(job_report(report))).split())
    assert "then withdrawn before any call used it" in said, said


def _child_id(event: HistoryEvent) -> str:
    return event.child_workflow_execution_completed_event_attributes.workflow_execution.workflow_id
