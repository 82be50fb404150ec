"""Who may answer a job's person-facing wait as it opens: the owners the job recorded when it
started, and the host's owners now (the desk's host policy), read once per wait."""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import ActivityError
from temporalio.workflow import ActivityConfig

with workflow.unsafe.imports_passed_through():
    from activities.desk import DeskActivities
    from desk.payloads.jobs import HostPolicyQuery
    from workflows.policies import POLICY_READ_STEP

from workflows import patches
from workflows.job.record.state import JobState


async def read_owners_now(state: JobState) -> None:
    """The host's owners as the round opens (the desk's host policy), who may answer it as the
    owners the job recorded may. A policy that cannot be read adds nobody (fails closed)."""
    if not workflow.patched(patches.REVIEW_OWNERS_NOW):
        return
    state.review_owners = []
    try:
        policy = await workflow.execute_activity_method(
            DeskActivities.host_policy,
            HostPolicyQuery(purpose=f"the review of job {state.job.number}"),
            **(POLICY_READ_STEP | ActivityConfig(summary="reading the host's owners")),
        )
    except ActivityError as error:
        workflow.logger.warning(
            "Job %s's review counts the owners it recorded only: %s", state.job.number, error
        )
        return
    state.review_owners = list(policy.owners)


def may_answer(state: JobState, principal: str) -> bool:
    """Whether `principal` may answer the wait open now: the job's starter, an owner it
    recorded, or an owner of the host's as the wait opened."""
    owners = {*state.job.owners, *state.review_owners}
    return principal == state.job.starter or principal in owners
