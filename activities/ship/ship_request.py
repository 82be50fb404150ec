"""The ship request: an agent's approved push to the default branch, carried out by codedesk.

After its job integrated, the job asks for the push of exactly its integrated SHA, the way
`codedesk push` does: a change report under the repository's lock (the receipt), then the `Ship`
of that SHA, which waits for an owner's approval of the exact commit and pushes with the host's
own credentials. Safe to run twice: the `Ship`'s id is the SHA's, so a retry after a crash finds
the push already asked for (or done) and starts nothing.
"""

from __future__ import annotations

from temporalio import activity
from temporalio.client import Client, WorkflowUpdateFailedError
from temporalio.common import WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError

from activities.setup.steps import repo_setup_of
from desk.config.settings import DeskSettings
from desk.decisions.pull_request_plans import pull_request_plan
from desk.errors import DeskError, RepoBusyError, RepoBusyWaitError
from desk.failures import error_of, failure_of
from desk.holds.approvals import approval_id
from desk.names import (
    REPO_CHANGE_REPORT_UPDATE,
    SHIP_WORKFLOW_TYPE,
    push_approval_scope,
    push_workflow_id,
    repo_workflow_id,
)
from desk.payloads.ship_payloads import (
    ChangeReport,
    ReportInput,
    ShipInput,
    push_call,
    ship_tool,
)
from desk.payloads.ship_requests import ShipRequestInput, ShipRequestResult, ShipRequestStatus


class ShipRequestActivities:
    """Built by the worker with its client: asks the `Repo` entity and starts a `Ship`."""

    def __init__(self, client: Client, settings: DeskSettings) -> None:
        self.client = client
        self.settings = settings

    @activity.defn
    async def request_ship(self, request: ShipRequestInput) -> ShipRequestResult:
        """Report, check the report names exactly the job's SHA, and ask for its push."""
        ask = request.asks[0]
        result = ShipRequestResult(
            status=ShipRequestStatus.NOT_REQUESTED,
            branch=ask.branch,
            sha=request.sha,
            agent_approvals=[each.approval_id for each in request.asks],
        )
        ident = push_workflow_id(request.repo, request.sha)
        try:
            receipt = await self._report(request)
        except RepoBusyWaitError as busy:
            raise failure_of(busy) from None  # Temporal asks again (retryable)
        except DeskError as refused:
            return result.model_copy(update={"reason": str(refused)})
        if receipt.head != request.sha:
            why = (
                f"The clone moved on past {request.sha[:12]} (it is at {receipt.head[:12]}) "
                "before codedesk could ask for the push: run `codedesk report` and push the "
                "SHA it names."
            )
            return result.model_copy(update={"reason": why})
        if receipt.default_branch != ask.branch:
            why = (
                f"origin's default branch is {receipt.default_branch}, not {ask.branch}: "
                "nothing was asked for."
            )
            return result.model_copy(update={"reason": why})
        pull_request = (await repo_setup_of(self.client, request.repo)).pull_requests
        ship = ShipInput(
            receipt=receipt,
            hold=True,  # an owner approves the exact commit, whatever the repository's exemption
            requester=request.requester,
            place=request.place,
            agent_ship=ask,
            pull_request=pull_request,
            host=request.host,
        )
        plan = pull_request_plan(receipt, ask.job) if pull_request else None
        try:
            await self.client.start_workflow(
                SHIP_WORKFLOW_TYPE,
                ship,
                id=ident,
                task_queue=self.settings.task_queue,
                id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            )
        except WorkflowAlreadyStartedError:
            activity.logger.info("The push %s was asked for already.", ident)
        scope = push_approval_scope(request.repo)
        return result.model_copy(
            update={
                "status": ShipRequestStatus.REQUESTED,
                "push_workflow_id": ident,
                "push_approval_id": approval_id(scope, ship_tool(plan), push_call(receipt, plan)),
            }
        )

    async def _report(self, request: ShipRequestInput) -> ChangeReport:
        """The entity's change report; a busy repository is retried by Temporal."""
        handle = self.client.get_workflow_handle(repo_workflow_id(request.repo))
        ask = ReportInput(
            repo=request.repo,
            max_commits=request.max_commits,
            max_files=request.max_files,
            host=request.host,
        )
        try:
            report: ChangeReport = await handle.execute_update(
                REPO_CHANGE_REPORT_UPDATE, ask, result_type=ChangeReport
            )
            return report
        except WorkflowUpdateFailedError as error:
            refused = error_of(error.cause)
            if isinstance(refused, RepoBusyError):
                # Not a refusal: another job's integration or a push runs; ask again shortly.
                raise RepoBusyWaitError(str(refused)) from None
            if refused is not None:
                raise refused from None
            raise DeskError(f"The change report failed: {error.cause or error}") from None
