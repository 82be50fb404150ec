"""Short workflows that run a shelf activity on the host that owns the shelf."""

from __future__ import annotations

from temporalio import workflow
from temporalio.workflow import ActivityConfig

with workflow.unsafe.imports_passed_through():
    from activities.jobs.worktrees import WorktreeActivities
    from activities.shelf.clones import ShelfActivities
    from desk.names import ADD_REPO_WORKFLOW_TYPE, JOB_DIFF_WORKFLOW_TYPE, LIST_REPOS_WORKFLOW_TYPE
    from desk.payloads.conversation.review_payloads import JobDiff, JobDiffInput
    from desk.payloads.jobs import AddRepoInput, CloneInfo, ListReposInput, ShelfListing
    from workflows.policies import CLONE_STEP, GIT_STEP

from workflows.host.host_routes import host_route


@workflow.defn(name=ADD_REPO_WORKFLOW_TYPE)
class AddRepo:
    """Id `shelf-add-<owner>/<repo>`: clone one repository onto its host's shelf."""

    @workflow.run
    async def run(self, request: AddRepoInput) -> CloneInfo:
        return await workflow.execute_activity_method(
            ShelfActivities.add_repo,
            request,
            **(
                CLONE_STEP
                | host_route(request.host, request.host_wait)
                | ActivityConfig(summary=f"adding {request.repo} to the shelf")
            ),
        )


@workflow.defn(name=LIST_REPOS_WORKFLOW_TYPE)
class ListRepos:
    """Id `shelf-list-<uuid>`: describe every clone on one host's shelf."""

    @workflow.run
    async def run(self, request: ListReposInput) -> ShelfListing:
        return await workflow.execute_activity_method(
            ShelfActivities.list_repos,
            request,
            **(
                GIT_STEP
                | host_route(request.host, request.host_wait)
                | ActivityConfig(summary="listing the shelf")
            ),
        )


@workflow.defn(name=JOB_DIFF_WORKFLOW_TYPE)
class JobDiffer:
    """Id `job-diff-<uuid>`: a job's commits against the clone's HEAD, on the clone's host."""

    @workflow.run
    async def run(self, request: JobDiffInput) -> JobDiff:
        return await workflow.execute_activity_method(
            WorktreeActivities.job_diff,
            request,
            **(
                GIT_STEP
                | host_route(request.host, request.host_wait)
                | ActivityConfig(summary=f"diff of job {request.number}")
            ),
        )
