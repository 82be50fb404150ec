"""What surfaces ask of shipping: a change report, a push request, and its result."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from temporalio.client import (
    Client,
    WithStartWorkflowOperation,
    WorkflowExecutionStatus,
    WorkflowHandle,
    WorkflowQueryFailedError,
    WorkflowUpdateFailedError,
)
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import ApplicationError, WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode

from desk.config.settings import DeskSettings
from desk.decisions.host_slots import repo_host
from desk.decisions.pull_request_plans import pull_request_plan
from desk.errors import (
    CloneMissingError,
    DeskError,
    RepoBusyError,
    ServerError,
    ShipRefusal,
)
from desk.failures import error_of
from desk.holds.approvals import SurfacePlace, approval_id
from desk.names import (
    DESK_WORKFLOW_ID,
    push_approval_scope,
    push_workflow_id,
    pushing_memo,
    repo_workflow_id,
)
from desk.nearest import nearest
from desk.payloads.jobs import DeskState
from desk.payloads.repo_state import ReceiptQuery, RepoState
from desk.payloads.ship_payloads import (
    ChangeReport,
    PushResult,
    PushStatus,
    ReportInput,
    ShipAsked,
    ShipInput,
    full_sha,
    push_call,
    ship_tool,
)
from desk.repo_names import parse_repo_name
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.listings.worker_check import require_worker
from workflows.desk.desk_entity import Desk
from workflows.reasons import reason_of
from workflows.repo.repo_entity import RepoEntity
from workflows.shipping.ship import Ship

QUERY_TIMEOUT = timedelta(seconds=5)


def repo_entity_start(
    name: str, host: str, task_queue: str
) -> WithStartWorkflowOperation[RepoEntity, None]:
    """Start `name`'s `Repo` entity with an update if it does not run yet (on `host`'s clone)."""
    return WithStartWorkflowOperation(
        RepoEntity.run,
        RepoState(repo=name, host=host),
        id=repo_workflow_id(name),
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        task_queue=task_queue,
        memo=pushing_memo(),
    )


class ShippingClient:
    def __init__(self, client: Client, settings: DeskSettings) -> None:
        self.client = client
        self.settings = settings

    async def change_report(self, repo: str) -> ChangeReport:
        """Make a change report under the repository's lock; the entity keeps it as a receipt.

        A repository on no shelf is refused before its entity could start (it would wait for
        nothing, for ever)."""
        name = str(parse_repo_name(repo))
        await require_worker(self.client, self.settings.task_queue)
        missing = await not_on_shelf(self.client, self.settings, name, "Nothing was reported.")
        if missing is not None:
            raise missing
        host = await self._host_of(name)
        start = repo_entity_start(name, host, self.settings.task_queue)
        request = ReportInput(
            repo=name,
            max_commits=self.settings.report_commits,
            max_files=self.settings.report_files,
            host=host,
        )
        try:
            return await self.client.execute_update_with_start_workflow(
                RepoEntity.change_report, request, start_workflow_operation=start
            )
        except WorkflowUpdateFailedError as error:
            cause = error.cause
            if (refused := error_of(cause)) is not None:
                raise refused from None
            if isinstance(cause, ApplicationError):  # a failure of no desk error's name
                raise DeskError(cause.message) from None
            raise ShipRefusal(f"The report failed: {reason_of(cause or error)}") from None

    async def _desk(self) -> DeskState | None:
        handle = self.client.get_workflow_handle_for(Desk.run, DESK_WORKFLOW_ID)
        try:
            return await handle.query(Desk.current, rpc_timeout=QUERY_TIMEOUT)
        except (RPCError, WorkflowQueryFailedError):
            return None

    async def _host_of(self, repo: str) -> str:
        """The host the desk records for `repo` (its only host when it has one), else ""."""
        desk = await self._desk()
        return repo_host(desk, repo) if desk is not None else ""

    async def request_push(
        self,
        repo: str,
        sha: str,
        place: SurfacePlace | None = None,
        *,
        hold: bool = False,
        pull_request: bool = False,
    ) -> tuple[WorkflowHandle[Ship, PushResult], str]:
        """Start the push of exactly `sha`; returns its handle and the approval id it waits on.

        Whether it waits for an owner is the desk's host policy, which the `Ship` reads itself;
        the id returned here is read from the same policy, to tell the person. `hold` asks to
        wait for an owner even where the host exempts the repository; `pull_request` ships the
        SHA as a pull request (a new branch and a pull request onto the default branch).
        """
        name = str(parse_repo_name(repo))
        sha = full_sha(sha)
        await require_worker(self.client, self.settings.task_queue)
        receipt = await self.receipt(name, sha)
        pull_request = pull_request or await self.ships_pull_requests(name)
        desk = await self._desk()
        exempt = desk is not None and desk.policy is not None and desk.policy.exempt(name)
        exempt = exempt and not hold
        host = repo_host(desk, name) if desk is not None else ""
        ident = push_workflow_id(name, sha)
        try:
            handle = await self.client.start_workflow(
                Ship.run,
                ShipInput(
                    receipt=receipt,
                    hold=hold,
                    requester=self.settings.owner,
                    place=place,
                    pull_request=pull_request,
                    host=host,
                ),
                id=ident,
                task_queue=self.settings.task_queue,
                id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE,
            )
        except WorkflowAlreadyStartedError:
            raise RepoBusyError(
                f"A push of {sha} to {name} was already requested and has not finished "
                f"(workflow {ident}): answer its approval (`codedesk approvals`) or wait for it."
            ) from None
        plan = pull_request_plan(receipt) if pull_request else None
        scope = push_approval_scope(name)
        waits_on = "" if exempt else approval_id(scope, ship_tool(plan), push_call(receipt, plan))
        return handle, waits_on

    async def asked(
        self, push: WorkflowHandle[Ship, PushResult], wait: timedelta
    ) -> ShipAsked | None:
        """What a push just requested did first: asked for its approval (or pushes), or ended
        without asking anyone (`result`: the SHA is not the clone's HEAD). None when it did not
        say within `wait` (its host is slow to answer, say)."""
        try:
            async with asyncio.timeout(wait.total_seconds()):
                try:
                    return await push.execute_update(Ship.asked)
                except (RPCError, WorkflowUpdateFailedError):  # it ended before it was asked
                    return ShipAsked(result=await push.result())
        except TimeoutError:
            return None

    async def finished_push(self, repo: str, sha: str) -> PushResult | None:
        """The result of a push of exactly `sha` that already reached the remote, if any: asking
        again shows it instead of opening a new approval for a push that is done."""
        name = str(parse_repo_name(repo))
        handle = self.client.get_workflow_handle_for(
            Ship.run, push_workflow_id(name, full_sha(sha))
        )
        try:
            described = await handle.describe()
        except RPCError as error:
            if error.status == RPCStatusCode.NOT_FOUND:
                return None
            raise ServerError(f"The pushes of {name} could not be read ({error}).") from None
        if described.status != WorkflowExecutionStatus.COMPLETED:
            return None
        result = await handle.result()
        return result if result.status == PushStatus.PUSHED else None

    async def receipt(self, repo: str, sha: str) -> ChangeReport:
        """The kept change report of exactly `sha`; without one a push is refused."""
        try:
            found = await self.client.get_workflow_handle_for(
                RepoEntity.run, repo_workflow_id(repo)
            ).query(RepoEntity.receipt, ReceiptQuery(sha=sha), rpc_timeout=QUERY_TIMEOUT)
        except RPCError as error:
            if error.status != RPCStatusCode.NOT_FOUND:
                raise ServerError(
                    f"The receipts of {repo} could not be read ({error}); is a worker running "
                    "(`codedesk up`)? Nothing was pushed."
                ) from None
            found = None
        except WorkflowQueryFailedError as error:
            raise ServerError(f"The receipts of {repo} could not be read: {error}.") from None
        if found is None:
            raise await not_on_shelf(
                self.client, self.settings, repo, "Nothing was pushed."
            ) or ShipRefusal(
                f"There is no change report of {sha} for {repo}: run `codedesk report {repo}` "
                "and push the SHA it names."
            )
        return found

    async def ships_pull_requests(self, repo: str) -> bool:
        """Whether the owner set `repo` to ship as pull requests (`codedesk repo set --pr`)."""
        try:
            state = await self.client.get_workflow_handle_for(
                RepoEntity.run, repo_workflow_id(repo)
            ).query(RepoEntity.current, rpc_timeout=QUERY_TIMEOUT)
        except (RPCError, WorkflowQueryFailedError) as error:
            raise ServerError(
                f"The settings of {repo} could not be read ({error}); is a worker running "
                "(`codedesk up`)? Nothing was pushed."
            ) from None
        return state.setup.pull_requests

    async def push_running(self, repo: str) -> str:
        """The SHA a push of `repo` is pushing now, or empty (also when nobody can tell)."""
        try:
            state = await self.client.get_workflow_handle_for(
                RepoEntity.run, repo_workflow_id(repo)
            ).query(RepoEntity.current, rpc_timeout=QUERY_TIMEOUT)
        except (RPCError, WorkflowQueryFailedError):
            return ""
        return state.pushing.receipt.head if state.pushing else ""


async def not_on_shelf(
    client: Client, settings: DeskSettings, repo: str, nothing_done: str
) -> CloneMissingError | None:
    """Why `repo` can have no receipt, report or set-up: it is on no shelf (the nearest name on
    one named, then `nothing_done`); None when it is, or when a host did not answer and it may
    be there."""
    try:
        shelves = await DeskClient(client, settings).shelves()
    except DeskError:
        return None
    names = [clone.repo for clone in shelves.clones]
    if repo in names or shelves.silent:
        return None
    near = nearest(repo, names)
    hint = f"did you mean {near}? " if near else ""
    return CloneMissingError(
        f"Repository {repo!r} is not on the shelf: {hint}`codedesk repo list` shows the "
        f"shelf, `codedesk repo add {repo}` adds it. {nothing_done}"
    )
