"""The job's review (issue 46): after the agent and the check, the work waits for a person.

A job asked for review (`task --review`, or the owner's `repo set --review`, read from the `Repo`
entity as the agent ended) does not integrate at once: it enters phase `review` and (the job's
`_reviewed`) lends its desk slot, with no agent process and no deadline, its work clock still
(as a suspended job waits). The first answer wins: the `review` Update's `integrate` or
`discard`, or a message (`say`) that asks for a revision, which the agent's resumed session
takes as its prompt (the conversation's own path: `for_messages`); the check runs again and the
job is back in review.
Each round is kept in the job's status and report (`review_rounds`).
"""

from __future__ import annotations

from temporalio import workflow
from temporalio.workflow import ActivityConfig

with workflow.unsafe.imports_passed_through():
    from activities.jobs.worktrees import WorktreeActivities
    from desk.payloads.conversation.review_payloads import ReviewRound, ReviewVerdict
    from desk.payloads.jobs import (
        AgentResult,
        CutWorktree,
        IntegrationResult,
        IntegrationStatus,
        JobOutcome,
        JobPhase,
        JobReport,
        ReleaseWorktreeInput,
        Worktree,
    )
    from desk.records.repo_setup import CommandRun
    from workflows.policies import git_step

from workflows import patches
from workflows.job.attempts.attempt_news import apply_verdict
from workflows.job.record.progress import on_the_clones_host, set_phase
from workflows.job.record.report import build_report
from workflows.job.record.state import JobState
from workflows.summaries import phase_details

WAITING = "waiting for review"
"""The job's current details in the Temporal UI while it waits in review."""


def reviews(state: JobState, worktree: Worktree, agent: AgentResult) -> bool:
    """Whether the work waits for review: its requester asked, or the repository's owner did
    (the set-up the `Repo` entity had as the agent ended, else at the cut), or it is an attempt,
    whose work waits for its job's pick. A set-up neither read could tell fails closed: the
    work waits for a person. The patch is asked only then."""
    cut = worktree.setup if isinstance(worktree, CutWorktree) else None
    setup = agent.setup or cut
    if state.job.attempt_of:  # an attempt waits for its job's pick, then maybe for a review
        # The pick is a person's (or the check the requester named): only a review asked for
        # outright follows it; a set-up that could not be read asks for none more.
        state.review_after_pick = state.job.review or (setup is not None and setup.review)
        return True
    asked = state.job.review or setup is None or setup.review
    return asked and workflow.patched(patches.REVIEW_STEP)


def open_round(state: JobState, check: CommandRun | None) -> None:
    """A new round of review: the work (and its check) waits for a person."""
    rounds = state.status.review_rounds
    rounds.append(
        ReviewRound(
            round=len(rounds) + 1,
            check=check.status if check is not None else None,
            waited_from=workflow.now(),
        )
    )
    state.status.check = check
    state.review_answer = None
    if state.pending_verdict is not None:  # an attempt's pick came while it worked
        apply_verdict(state, state.pending_verdict)
        state.pending_verdict = None
    set_phase(state, JobPhase.REVIEW)
    workflow.set_current_details(phase_details(state.job, WAITING))


def answered_review(state: JobState) -> bool:
    """Whether the round waiting has its answer: the `review` Update's, or a revision's words."""
    return state.review_answer is not None or bool(state.undelivered())


def close_round(state: JobState) -> ReviewVerdict:
    """The round's answer, kept in it: a revision's feedback is the messages pending."""
    this = state.status.review_rounds[-1]
    this.answered_at = workflow.now()
    answer = state.review_answer
    if answer is not None:
        this.verdict, this.by = answer.verdict, answer.by.name or answer.by.id
        return answer.verdict
    feedback = state.undelivered()
    this.verdict = ReviewVerdict.REVISE
    this.by = feedback[0].by.name or feedback[0].by.id
    this.feedback = "\n\n".join(message.text for message in feedback)
    return ReviewVerdict.REVISE


async def discarded(
    state: JobState, worktree: Worktree, agent: AgentResult, check: CommandRun | None
) -> JobReport:
    """The reviewer discarded the work: its worktree and branch removed, the clone untouched."""
    set_phase(state, JobPhase.CLEANING)
    job = state.job
    gone = await on_the_clones_host(
        state,
        lambda route: workflow.execute_activity_method(
            WorktreeActivities.discard_reviewed,
            ReleaseWorktreeInput.of(job, worktree),
            **(
                git_step(job.git_heartbeat_timeout)
                | route
                | ActivityConfig(summary=f"discarding {worktree.branch}")
            ),
        ),
    )
    dropped = IntegrationResult(
        status=IntegrationStatus.FAILED, commits=gone.commits, commits_omitted=gone.commits_omitted
    )
    report = build_report(
        job, JobOutcome.DISCARDED, worktree=worktree, agent=agent, integration=dropped
    )
    report.check = check
    return report


def reviewed_rounds(state: JobState) -> list[ReviewRound]:
    """The review's rounds for the report, each feedback cut to the host's
    `report_held_chars`."""
    chars = state.job.report_held_chars
    return [
        round.model_copy(update={"feedback": round.feedback[:chars]})
        for round in state.status.review_rounds
    ]
