"""A job's worktree set-up (before the agent) and check (after it, before integration).

A failed check goes back to the agent: when the repository's blocking check fails and the
owner's `check_retries` (kept in the `Repo` entity with the set-up, never the requester's) allow
another round, the check's scrubbed tail is kept as a message of the job's conversation (`keep`,
as a `say` is) and the job runs its agent again for it, resuming its session (the path of the
messages that came as its run ended); then the check runs again. Each run of the check is then
a round in the job's status and report.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from temporalio import workflow
from temporalio.workflow import ActivityConfig

with workflow.unsafe.imports_passed_through():
    from activities.setup.steps import SetupActivities
    from desk.agents.check_fixes import CHECK_SENDER, CHECK_SURFACE, check_fix_message
    from desk.holds.budget_cards import BudgetAnswer
    from desk.payloads.jobs import AgentResult, CutWorktree, JobInput, Worktree
    from desk.payloads.message_payloads import SayInput
    from desk.records.repo_setup import CheckRound, CommandRun, RepoSetup, WorktreeStepInput
    from workflows.policies import SETUP_STEP

from workflows import patches
from workflows.host.host_routes import Route
from workflows.in_flight import heeding_cancel
from workflows.job.job_messages import keep
from workflows.job.record.progress import on_the_clones_host
from workflows.job.record.state import JobState
from workflows.summaries import phase_details

R = TypeVar("R")


def _known(setup: RepoSetup | None) -> RepoSetup | None:
    """`setup`, where this job may act on it; None to run the step."""
    if setup is None or not workflow.patched(patches.SETUP_READ_AT_THE_CUT):
        return None
    return setup


def _step(job: JobInput, worktree: Worktree) -> WorktreeStepInput:
    return WorktreeStepInput(
        number=job.number, repo=job.repo, worktree=worktree.path, output_chars=job.output_chars
    )


def _sandbox_step(
    method: Callable[[SetupActivities, WorktreeStepInput], Awaitable[R]],
    job: JobInput,
    worktree: Worktree,
    route: Route,
    doing: str,
) -> Awaitable[R]:
    """The set-up's or the check's step on the clone's host. Its cancel waits for the command's
    end, and a command that ends before its heartbeat carries the cancel returns its result
    with the cancel cleared: it is awaited through `heeding_cancel`, which raises it."""
    return heeding_cancel(
        workflow.execute_activity_method(
            method,
            _step(job, worktree),
            **(SETUP_STEP | route | ActivityConfig(summary=f"{doing} {worktree.branch}")),
        )
    )


async def set_up_worktree(state: JobState, worktree: CutWorktree) -> str:
    """Copy the owner's files and run the set-up; why the job cannot go on, or empty."""
    job = state.job
    if not workflow.patched(patches.WORKTREE_SETUP):
        return ""
    known = _known(worktree.setup)
    if known is not None and not known.sets_up():
        return ""

    async def call(route: Route) -> str:
        step = _sandbox_step(SetupActivities.set_up_worktree, job, worktree, route, "setting up")
        return (await step).failed()

    return await on_the_clones_host(state, call)


async def check_worktree(
    state: JobState, worktree: Worktree, agent: AgentResult
) -> CommandRun | None:
    """Run the owner's check after the agent; None when the repository has none.

    Whether there is one was read as the agent ended: a check the owner sets while the agent
    works applies to this job.
    """
    if not workflow.patched(patches.WORKTREE_SETUP):
        return None
    known = _known(agent.setup)
    if known is not None and not known.check:
        return None
    job = state.job
    return await on_the_clones_host(
        state,
        lambda route: _sandbox_step(
            SetupActivities.check_worktree, job, worktree, route, "checking"
        ),
    )


def check_failure(check: CommandRun) -> str:
    """The reason a blocking check gives for keeping the work out of the clone."""
    how = "timed out" if check.status.value == "timed_out" else "failed"
    code = f" (exit {check.exit_code})" if check.exit_code is not None else ""
    return f"The check `{check.command}` {how}{code}; the work was not integrated."


def goes_back(state: JobState, check: CommandRun | None) -> bool:
    """Whether `check` failed and goes back to the agent for another round: never after a
    person said "finish here" at a budget card (the job goes on without its agent)."""
    if check is None or not check.blocking():
        return False
    if any(pause.answer == BudgetAnswer.FINISH for pause in state.status.budget_pauses):
        return False
    if len(state.status.check_rounds) >= check.retries:
        return False
    return workflow.patched(patches.CHECK_GOES_BACK)


def send_back(state: JobState, check: CommandRun) -> None:
    """Keep the failed check's tail as a message for the agent, and note the round."""
    text = check_fix_message(check)
    message = keep(state, SayInput(text=text, by=CHECK_SENDER, surface=CHECK_SURFACE))
    rounds = state.status.check_rounds
    rounds.append(_round(len(rounds) + 1, check, text, message.seq))
    said = f"fixing the failed check, round {len(rounds)} of {check.retries}"
    workflow.set_current_details(phase_details(state.job, said))


def last_round(state: JobState, check: CommandRun | None) -> None:
    """Note the check that ended the rounds, once a failed check went back to the agent."""
    rounds = state.status.check_rounds
    if rounds and check is not None:
        rounds.append(_round(len(rounds) + 1, check))


def _round(number: int, check: CommandRun, sent: str = "", seq: int = 0) -> CheckRound:
    return CheckRound(
        round=number,
        command=check.command,
        status=check.status,
        exit_code=check.exit_code,
        sent=sent,
        message_seq=seq,
    )
