"""The job's agent: run on the clone's host under the work clock, resumed after a suspension."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError
from temporalio.workflow import ActivityConfig

with workflow.unsafe.imports_passed_through():
    from activities.agent.run import AgentActivities
    from desk.payloads.jobs import AgentResult, RunAgentInput, Worktree
    from desk.policy.modes import Mode
    from workflows.policies import agent_step

from workflows import patches
from workflows.host.host_routes import Route
from workflows.in_flight import cancelled
from workflows.job.job_messages import delivered_by, pending
from workflows.job.job_modes import follows
from workflows.job.record.progress import on_the_clones_host
from workflows.job.record.state import JobState
from workflows.summaries import agent_summary


async def run_agent_on_host(
    state: JobState,
    worktree: Worktree,
    suspended: AgentResult | None = None,
    continued: AgentResult | None = None,
) -> AgentResult | None:
    """Run the agent on the clone's host, starting it again whenever the host was gone;
    after a suspension (`suspended`), resume its session; after a run (`continued`) that ended
    before every message reached it, resume its session with them. None when the budget ran
    out."""
    execution = 0

    async def run(route: Route) -> AgentResult | None:
        nonlocal execution
        execution += 1  # the agent is told which run of its step this is
        return await _run_agent(state, worktree, route, execution, suspended, continued)

    return await on_the_clones_host(state, run)


async def _run_agent(
    state: JobState,
    worktree: Worktree,
    route: Route,
    execution: int = 1,
    suspended: AgentResult | None = None,
    continued: AgentResult | None = None,
) -> AgentResult | None:
    """Run the agent under the job's work clock; None when the budget ran out.

    The clock stands still while a hold waits for a person, so the budget counts only
    the agent's own working time; time the agent kept working beside a waiting hold is
    signalled by the hold channel (`agent_worked`) and counts. When the budget runs out
    the activity is cancelled, which kills the agent's process group.
    """
    job, clock = state.job, state.clock
    state.agent_runs += 1
    run = state.agent_runs
    # A continuation's first run (every run but a suspension's or messages' resume) resumes
    # the finished job's session.
    resumed = state.continuing if suspended is None and continued is None else None
    waiting = pending(state)
    may_defer = workflow.patched(patches.AGENT_SUSPENDS)
    told = state.told_answer if suspended is not None else None
    state.told_answer = None
    handle = workflow.start_activity_method(
        AgentActivities.run_agent,
        RunAgentInput(
            number=job.number,
            repo=job.repo,
            task=resumed.task if resumed is not None else job.task,
            agent_command=job.agent_command,
            worktree=worktree.path,
            output_chars=job.output_chars,
            hold_classes=job.hold_classes,
            hold_tools=job.hold_tools,
            execution=execution,
            spend_limit=job.spend_limit,
            may_defer=may_defer,
            ends_to_suspend=may_defer and workflow.patched(patches.RESUMABLE_CLI_SUSPENDS),
            held_action=told[0] if told else "",
            held_answer=told[1] if told else None,
            resume_session=suspended.session_id if suspended else "",
            spent_before=state.spent if suspended or continued else None,
            message_run=run,
            messages=waiting,
            messages_through=len(state.status.messages),
            for_messages=continued is not None or resumed is not None,
            continue_session=(
                continued.session_id if continued else resumed.session_id if resumed else ""
            ),
            session_from=resumed.number if resumed is not None and resumed.session_id else 0,
        ),
        **(
            agent_step(clock.limit, job.heartbeat_timeout)
            | route
            | ActivityConfig(summary=agent_summary(job.agent_command, execution))
        ),
    )
    if suspended is None and continued is None:  # a resumed session goes on with its work
        clock.restart()
    state.agent_running = True
    try:
        agent = await _under_the_clock(state, handle)
    finally:
        state.agent_running = False  # its inbox's waits end: the run takes no more messages
    if agent is not None:
        delivered_by(state, run, agent)
    return agent


async def _under_the_clock(
    state: JobState, handle: asyncio.Task[AgentResult]
) -> AgentResult | None:
    """Wait for the agent's step while its work clock runs; None when the budget ran out."""
    clock = state.clock
    out_of_time = False
    try:
        while not handle.done() and not out_of_time:
            left = clock.left(follows(state, Mode.LONG_RUNNING))
            if left <= timedelta(0):
                out_of_time = True
                handle.cancel()
                break
            if state.waiting_holds:
                await workflow.wait_condition(
                    lambda: handle.done() or not state.waiting_holds or bool(clock.beside_holds)
                )
                continue
            clock.start(workflow.now())
            try:
                await workflow.wait_condition(
                    lambda: handle.done() or state.waiting_holds > 0 or bool(clock.beside_holds),
                    timeout=max(left, timedelta(milliseconds=1)),
                    timeout_summary="the work budget runs out",
                )
            except TimeoutError:
                pass  # the clock is looked at again at the top: long-running may go on
            clock.stop(workflow.now())
    except asyncio.CancelledError:
        handle.cancel()
        await workflow.wait_condition(handle.done)
        _note_spent(state, handle)
        raise
    try:
        agent = await handle
    except ActivityError as error:
        if out_of_time and cancelled(error):
            return None
        raise
    state.spent = agent.usage
    return agent


def _note_spent(state: JobState, handle: asyncio.Task[AgentResult]) -> None:
    """Keep what a cancelled job's agent spent: its run, stopped, still says so."""
    if not handle.cancelled() and handle.exception() is None:
        state.spent = handle.result().usage
