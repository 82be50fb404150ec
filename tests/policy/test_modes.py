"""yolo and long-running modes on a real desk: switched live by owners, followed by running jobs."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType

from desk.config.settings import DeskSettings
from desk.errors import JobFinishedError, JobNotFoundError, ModeRefusedError
from desk.holds.approvals import HeldCall, HoldVerdict, OutcomeKind, Principal
from desk.payloads.jobs import JobOutcome, JobReport
from desk.policy.modes import Mode, ScopeKind, modes_said
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.mode_client import ModesClient
from surfaces.render.discord.replies import report_text
from surfaces.render.layout.report_layout import job_report
from surfaces.render.layout.report_reasons import report_reason
from surfaces.render.terminal.block_lines import plain
from tests.helpers.agent_pids import agent_said
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import assert_refused, run_cli, settings_env, shown
from tests.helpers.desks import host_policy
from tests.helpers.holds.asked_holds import REPO, ask, hold_step
from tests.helpers.job_waits import open_ids, working
from tests.helpers.waiting import awaited, until
from workflows.shipping.approval import Approval

DESTRUCTIVE = {"command": "git update-ref -d refs/heads/main"}
PUSH = {"command": "git push origin main"}


def owner(desk: DeskClient) -> Principal:
    return Principal(id=desk.settings.owner, name="alice")


def modes(desk: DeskClient) -> ModesClient:
    return ModesClient(desk.client, desk.settings)


async def following(desk: DeskClient, number: int, wanted: list[str]) -> None:
    async def now() -> list[str]:
        return (await desk.status(number))[1].following

    for _ in range(300):
        if await now() == wanted:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"job {number} follows {await now()}, not {wanted}")


async def test_switching_yolo_on_releases_a_waiting_destructive_hold_and_the_report_lists_it(
    desk: DeskClient, origin: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(
        REPO, "clean up", agent_command=agent(hold_step("Bash", DESTRUCTIVE), "say:removed")
    )
    approvals = ApprovalsClient(desk.client)
    [ident] = await open_ids(approvals)

    switched = await modes(desk).switch("yolo", "on", by=owner(desk))

    assert switched.jobs == [number]
    assert switched.switch.on and switched.switch.by == owner(desk) and switched.switch.at
    report = await awaited(desk.wait(number), f"job {number}'s report")
    assert report.outcome == JobOutcome.NOTHING, report.reason
    assert "hold allowed" in report.output and "removed" in report.output
    [call] = report.yolo_approved
    assert call.approval_id == ident and call.verdict == HoldVerdict.APPROVED
    assert call.summary and "update-ref" in call.summary
    assert call.note == "yolo mode, switched on by alice"
    assert report.held_calls == []
    # The card closed: nobody is left asked.
    assert await approvals.open_approvals() == []
    outcome = await desk.client.get_workflow_handle_for(Approval.run, ident).result()
    assert outcome.kind == OutcomeKind.WITHDRAWN and "yolo mode" in outcome.note


async def test_yolo_still_cards_push_and_held_tools_unless_allowed(
    desk: DeskClient, origin: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    await modes(desk).switch("yolo", "on", by=owner(desk))
    await host_policy(desk, hold_tools=["WebFetch"])
    number = await desk.start_job(REPO, "wait", agent_command=agent("sleep:60"))
    await working(desk, number)
    await following(desk, number, ["yolo"])

    destructive = await ask(desk, number, "Bash", DESTRUCTIVE, wait=30)
    assert destructive.verdict == HoldVerdict.APPROVED
    assert destructive.by == "yolo mode, switched on by alice"
    push = await ask(desk, number, "Bash", PUSH, wait=0.5)
    assert push.verdict == HoldVerdict.PENDING and push.classes == ["push"]
    fetch = await ask(desk, number, "WebFetch", {"url": "https://example.com"}, wait=0.5)
    assert fetch.verdict == HoldVerdict.PENDING
    await desk.cancel(number)
    await desk.wait(number)

    await host_policy(desk, yolo_allow=["push"])
    second = await desk.start_job(REPO, "wait", agent_command=agent("sleep:60"))
    await working(desk, second)
    pushed = await ask(desk, second, "Bash", PUSH, wait=30)
    assert pushed.verdict == HoldVerdict.APPROVED and "yolo mode" in pushed.by
    await desk.cancel(second)
    report = await desk.wait(second)
    assert [call.summary for call in report.yolo_approved] == ["Run: git push origin main"]


async def test_a_job_whose_starter_is_no_owner_follows_neither_mode(
    desk: DeskClient, origin: Path
) -> None:
    """The seed's rule for both modes: they act only when an owner started the job."""
    await desk.add_repo(REPO, str(origin))
    await host_policy(desk, long_running_check=timedelta(seconds=1))
    await modes(desk).switch("yolo", "on", by=owner(desk))
    await modes(desk).switch("long-running", "on", by=owner(desk))
    number = await desk.submit_job(
        REPO,
        "wait",
        agent_command=agent("sleep:120"),
        starter="discord:666",
        budget=timedelta(seconds=3),
    )
    await working(desk, number.number)
    await following(desk, number.number, [])
    _, status = await desk.status(number.number)
    said = modes_said(status.modes, status.following)
    assert said.count("not followed: the job's starter is no owner") == 2, said
    held = await ask(desk, number.number, "Bash", DESTRUCTIVE, wait=0.5)
    assert held.verdict == HoldVerdict.PENDING
    report = await awaited(desk.wait(number.number), f"job {number.number}'s report")
    # Long-running is on, and the job still stopped at its budget: it did not follow it.
    assert report.outcome == JobOutcome.TIMED_OUT, report.reason
    assert report.extended_by == timedelta(0)


async def test_a_non_owners_switch_changes_nothing_and_is_recorded(
    desk: DeskClient, origin: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "wait", agent_command=agent("sleep:60"))
    await working(desk, number)
    mallory = Principal(id="local:mallory", name="mallory")

    with pytest.raises(ModeRefusedError, match="mallory is not an owner"):
        await modes(desk).switch("yolo", "on", by=mallory)

    view = await modes(desk).view()
    assert view.desk == {} and view.switches == []
    assert view.jobs[number].yolo is None
    [refusal] = view.refusals
    assert refusal.request.by == mallory and refusal.at is not None
    assert (await desk.status(number))[1].following == []
    await desk.cancel(number)
    await desk.wait(number)


async def test_a_job_scope_wins_over_the_desk_and_a_finished_job_says_so(
    desk: DeskClient, origin: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "wait", agent_command=agent("sleep:60"))
    await working(desk, number)
    client = modes(desk)
    await client.switch("yolo", "on", by=owner(desk))
    switched = await client.switch(
        "yolo", "off", by=owner(desk), scope=ScopeKind.JOB, target=str(number)
    )
    assert switched.jobs == [number]
    await following(desk, number, [])
    show = await run_cli(settings_env(desk.settings), "show", str(number), cwd=origin.parent)
    assert f"modes: yolo off (job {number}, by alice); long-running off" in show.stdout, shown(show)
    view = await client.view()
    assert view.desk[Mode.YOLO].on and view.jobs[number].yolo == switched.switch

    await desk.cancel(number)
    await desk.wait(number)
    with pytest.raises(JobFinishedError, match=f"Job {number} is finished"):
        await client.switch("yolo", "on", by=owner(desk), scope=ScopeKind.JOB, target=str(number))
    with pytest.raises(JobNotFoundError, match="There is no job 99"):
        await client.switch("yolo", "on", by=owner(desk), scope=ScopeKind.JOB, target="99")


async def _timers_after_switch_off(desk: DeskClient, number: int) -> list[timedelta]:
    """The work-clock timers the job started after it was told long-running is off."""
    told = False
    timers: list[timedelta] = []
    async for event in desk.job(number).fetch_history_events():
        kind = event.event_type
        if kind == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
            told = event.workflow_execution_signaled_event_attributes.signal_name == (
                "modes_changed"
            )
        elif kind == EventType.EVENT_TYPE_TIMER_STARTED and told:
            timeout = event.timer_started_event_attributes.start_to_fire_timeout
            timers.append(timeout.ToTimedelta())
        elif kind == EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED:
            break
    return timers


async def test_long_running_works_past_the_budget_and_stops_within_a_check_of_switching_off(
    desk: DeskClient, origin: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    check = timedelta(seconds=1)
    await host_policy(desk, long_running_check=check)
    await modes(desk).switch("long-running", "on", by=owner(desk))
    number = await desk.start_job(
        REPO,
        "long",
        agent_command=agent("sleep:5", "say:past the budget", "sleep:120"),
        budget=timedelta(seconds=3),
    )
    await until(
        lambda: agent_said(desk.settings.home, number, "past the budget"),
        "the agent to work past its 3 s budget",
    )
    _, status = await desk.status(number)
    assert status.report is None and status.following == ["long-running"]

    await modes(desk).switch(
        "long-running", "off", by=owner(desk), scope=ScopeKind.JOB, target=str(number)
    )
    report = await awaited(desk.wait(number), f"job {number}'s report")
    assert report.outcome == JobOutcome.TIMED_OUT, report.reason
    assert report.extended_by >= timedelta(seconds=2)
    assert "Long-running mode extended the budget by" in report_reason(report)
    # Switched off, it stopped at the end of the check interval it was in: at most one timer
    # of at most one interval ran after the job heard of it.
    timers = await _timers_after_switch_off(desk, number)
    assert len(timers) <= 1 and all(timer <= check for timer in timers), timers


async def test_long_running_never_goes_past_its_ceiling(desk: DeskClient, origin: Path) -> None:
    await desk.add_repo(REPO, str(origin))
    await host_policy(
        desk, long_running_check=timedelta(seconds=1), long_running_max=timedelta(seconds=5)
    )
    await modes(desk).switch("long-running", "on", by=owner(desk))
    number = await desk.start_job(
        REPO, "long", agent_command=agent("sleep:120"), budget=timedelta(seconds=2)
    )
    report = await awaited(desk.wait(number), f"job {number}'s report")
    assert report.outcome == JobOutcome.TIMED_OUT, report.reason
    assert report.extended_by >= timedelta(seconds=3)
    assert report.budget_ceiling == timedelta(seconds=5)
    assert "extended the budget by 3.0s, up to its ceiling of 5.0s." in report_reason(report)


async def test_a_job_past_its_budget_with_long_running_off_claims_no_extension(
    desk: DeskClient, origin: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(
        REPO, "long", agent_command=agent("sleep:120"), budget=timedelta(seconds=1)
    )
    report = await awaited(desk.wait(number), f"job {number}'s report")
    assert report.outcome == JobOutcome.TIMED_OUT, report.reason
    # The clock overran the budget by its timer's lateness; long-running mode was never on.
    assert report.extended_by == timedelta(0)
    said = report_reason(report)
    assert said == "The agent ran past the work-time budget of 1.0s and was stopped.", said
    assert report.budget_ceiling is None
    assert not any("long-running" in row for row in plain(job_report(report)))


async def test_mode_cli_shows_switches_and_refuses_bad_input(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path
) -> None:
    env = settings_env(settings)
    switched = await run_cli(env, "mode", "yolo", "on", cwd=tmp_path)
    assert switched.returncode == 0, shown(switched)
    assert "Switched yolo on (desk, by " in switched.stdout
    listed = await run_cli(env, "mode", cwd=tmp_path)
    assert listed.returncode == 0, shown(listed)
    assert "desk: yolo on (desk, by" in listed.stdout
    assert f"host policy (host {settings.host}): only its owners switch modes" in listed.stdout
    assert "yolo still cards push unless allowed (none)" in listed.stdout
    as_json = await run_cli(env, "mode", "--json", cwd=tmp_path)
    assert '"yolo"' in as_json.stdout, shown(as_json)

    assert_refused(await run_cli(env, "mode", "fast", "on", cwd=tmp_path), "no mode 'fast'")
    assert_refused(await run_cli(env, "mode", "yolo", "maybe", cwd=tmp_path), "'on' or 'off'")
    assert_refused(await run_cli(env, "mode", "yolo", cwd=tmp_path), "Say on or off")
    assert_refused(
        await run_cli(env, "mode", "yolo", "on", "--job", "1", "--channel", "2", cwd=tmp_path),
        "not both",
    )
    assert_refused(
        await run_cli(env, "mode", "yolo", "off", "--job", "7", cwd=tmp_path), "no job 7"
    )
    inside = dict(env, CODEDESK_JOB="3")
    assert_refused(await run_cli(inside, "mode", "yolo", "off", cwd=tmp_path), "CODEDESK_JOB")
    stranger = dict(env, CODEDESK_OWNER_ID="local:mallory", CODEDESK_OWNERS="local:alice")
    assert_refused(await run_cli(stranger, "mode", "yolo", "off", cwd=tmp_path), "not an owner")
    view = await modes(desk).view()
    assert [switch.on for switch in view.switches] == [True] and len(view.refusals) == 1


def test_the_report_lists_yolo_approvals_and_the_extension_in_every_target() -> None:
    note = "yolo mode, switched on by alice"
    calls = [
        HeldCall(tool="Bash", summary=f"rm {n}", verdict=HoldVerdict.APPROVED, note=note)
        for n in range(2)
    ]
    report = JobReport(
        number=5,
        repo="acme/api",
        outcome=JobOutcome.TIMED_OUT,
        yolo_approved=calls,
        yolo_approved_omitted=3,
        extended_by=timedelta(minutes=5),
    )
    lines = plain(job_report(report))
    assert "  Approved by yolo mode (5):" in lines
    assert f"    Bash approved: rm 0 ({note})" in lines
    assert "    … and 3 more" in lines
    assert "  long-running: the budget was extended by 5m00s (long-running mode)" in lines
    markdown = report_text(report)
    assert "**Approved by yolo mode (5)**:" in markdown
    assert report.model_dump(mode="json")["yolo_approved"][0]["note"] == note
