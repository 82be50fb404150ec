"""The `Repo` entity: one clone's integrations, change reports and pushes, one at a time."""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError, FailureError
from temporalio.workflow import ActivityConfig

with workflow.unsafe.imports_passed_through():
    from activities.jobs.worktrees import WorktreeActivities
    from activities.shelf.clones import ShelfActivities
    from activities.ship.ship_activities import ShipActivities
    from desk.errors import DeskError, HostError, RepoBusyError, ShipFailedError, ShipRefusal
    from desk.failures import error_of, failure_of
    from desk.names import (
        JOB_INTEGRATION_FINISHED_SIGNAL,
        REPO_LOOK_AT_SHELF_SIGNAL,
        REPO_REQUEST_PUSH_SIGNAL,
        REPO_STATE_QUERY,
        REPO_WORKFLOW_TYPE,
        REQUEST_INTEGRATION_SIGNAL,
        SETUP_MEMO,
        SHIP_PUSH_FINISHED_SIGNAL,
        SHIP_SUPERSEDED_SIGNAL,
        WITHDRAW_INTEGRATION_SIGNAL,
        push_workflow_id,
        pushing_memo,
    )
    from desk.payloads.jobs import (
        IntegrationRequest,
        IntegrationResult,
        IntegrationStatus,
        ReasonKind,
        ShelfLook,
        WithdrawIntegration,
    )
    from desk.payloads.repo_state import ReceiptQuery, RepoState
    from desk.payloads.ship_payloads import (
        ChangeReport,
        PushInput,
        PushRequest,
        PushResult,
        PushStatus,
        PushSuperseded,
        ReportInput,
    )
    from desk.records.repo_setup import RepoSetup, SetRepoSetup
    from workflows.policies import GIT_STEP, HOST_WAIT, SHELF_LOOK_STEP, git_step

from workflows import patches
from workflows.host.host_routes import host_missing, host_route, on_host
from workflows.reasons import reason_of


@workflow.defn(name=REPO_WORKFLOW_TYPE)
class RepoEntity:
    """Id `repo-<owner>/<repo>`: nothing changes the clone while something else does.

    Integrations queue and run in order. A change report or a push is refused while an
    integration, a report or a push runs, and integrations wait while a report or push runs.
    Agents working in their worktrees are not affected. Receipts of reports are kept durably,
    and so is the owner's set-up of the repository's worktrees: both survive continue-as-new.
    Jobs and pushes are answered by their signals' names (desk/names.py).

    An entity whose clone is on no shelf (a mistyped name an older codedesk started it for, a
    clone removed by hand) ends once it has nothing queued or running: it looks at each run's
    start, and when a starting worker asks it to (`look_at_shelf`).
    """

    @workflow.init
    def __init__(self, state: RepoState) -> None:
        self.state = state
        self.running: IntegrationRequest | None = None
        self.reporting = False
        self.shelf_look = False
        """Asked to look whether the clone is on its host's shelf (and not looked yet)."""
        self.off_shelf = False
        """The last look found no clone: the entity ends once it is idle."""

    @workflow.run
    async def run(self, state: RepoState) -> None:
        self._say_setup()  # an entity from before the memo has it from its next run on
        if workflow.patched(patches.REPO_ENDS_OFF_SHELF):
            self.shelf_look = True
        while True:
            await workflow.wait_condition(
                lambda: (
                    self.state.pushing is not None
                    or self._may_integrate()
                    or self.shelf_look
                    or self._ends()
                    or workflow.info().is_continue_as_new_suggested()
                )
            )
            if self.state.pushing is not None:
                await self._push(self.state.pushing)
            elif self._may_integrate():
                await self._next_integration()
            elif self.shelf_look:
                self.shelf_look = False
                self.off_shelf = await self._clone_missing()
            else:
                break
        await workflow.wait_condition(workflow.all_handlers_finished)
        if self._ends():
            workflow.logger.info(
                "%s is on no shelf and has nothing to do: its entity ends.", self.state.repo
            )
            return
        workflow.continue_as_new(self.state)

    @workflow.signal(name=REPO_LOOK_AT_SHELF_SIGNAL)
    def look_at_shelf(self) -> None:
        """A worker that starts: look whether the clone is on the shelf (end if it is not)."""
        self.shelf_look = True

    @workflow.signal(name=REQUEST_INTEGRATION_SIGNAL)
    def request_integration(self, request: IntegrationRequest) -> None:
        """Queue a job's branch for integration (a repeated request is not queued twice)."""
        self._learn_host(request.host)
        waiting = {queued.job_workflow_id for queued in self.state.queue}
        if self.running is not None:
            waiting.add(self.running.job_workflow_id)
        if request.job_workflow_id not in waiting:
            self.state.queue.append(request)

    @workflow.signal(name=WITHDRAW_INTEGRATION_SIGNAL)
    async def withdraw_integration(self, request: WithdrawIntegration) -> None:
        """Take a waiting job out of the queue; a running integration finishes and is answered.

        A job this entity does not know is answered withdrawn too: its request never came (its
        cancel made the core drop it), or was answered already, and a job keeps the first
        answer it hears.
        """
        before = len(self.state.queue)
        self.state.queue = [
            queued
            for queued in self.state.queue
            if queued.job_workflow_id != request.job_workflow_id
        ]
        queued = len(self.state.queue) < before
        integrating = self.running is not None and (
            self.running.job_workflow_id == request.job_workflow_id
        )
        if queued or (not integrating and workflow.patched(patches.WITHDRAW_UNKNOWN)):
            withdrawn = IntegrationResult(
                status=IntegrationStatus.WITHDRAWN,
                reason="The job withdrew before integrating.",
                reason_kind=ReasonKind.INTEGRATION_WITHDRAWN,
                branch_kept=True,  # its worktree and branch stay, as the report says
            )
            await self._answer_job(request.job_workflow_id, withdrawn)

    @workflow.update
    async def change_report(self, request: ReportInput) -> ChangeReport:
        """Describe what a push would ship, and keep it as the receipt of its SHA."""
        self.reporting = True
        self._learn_host(request.host)
        try:
            report = await workflow.execute_activity_method(
                ShipActivities.change_report,
                request,
                **(
                    GIT_STEP
                    | host_route(self.state.host, HOST_WAIT)
                    | ActivityConfig(summary=f"writing the change report of {request.repo}")
                ),
            )
        except ActivityError as error:
            if host_missing(error):
                raise failure_of(
                    HostError(
                        f"No report of {self.state.repo} now: its host {self.state.host} has no "
                        "worker. Start `codedesk worker` there and try again."
                    )
                ) from None
            raise failure_of(_refusal(error)) from None
        finally:
            self.reporting = False
        self.state.keep_receipt(report)
        self.off_shelf = False  # the clone is there
        await self._supersede(report.head, f"a newer change report names {report.head}")
        return report

    @change_report.validator
    def _free_for_report(self, request: ReportInput) -> None:
        busy = self.busy()
        if busy:
            raise failure_of(
                RepoBusyError(
                    f"No report of {self.state.repo} now: {busy}. Try again when it is done."
                )
            )

    @workflow.signal(name=REPO_REQUEST_PUSH_SIGNAL)
    async def request_push(self, request: PushRequest) -> None:
        """Push under the clone's lock; refused at once while anything else changes the clone."""
        busy = self.busy()
        if busy:
            await self._answer_ship(
                request.ship_workflow_id,
                _result(request, PushStatus.REFUSED, f"{self.state.repo} is busy: {busy}."),
            )
            return
        self.state.pushing = request
        self._say_pushing(request.receipt.head)

    @workflow.update
    def configure_setup(self, change: SetRepoSetup) -> RepoSetup:
        """Apply the owner's change to the set-up and return the set-up now in force."""
        self.state.setup = change.applied_to(self.state.setup)
        self.off_shelf = False  # an owner set it up: it stays until the next look
        self._say_setup()
        return self.state.setup

    @configure_setup.validator
    def _valid_setup(self, change: SetRepoSetup) -> None:
        try:
            change.applied_to(self.state.setup)
        except DeskError as error:
            raise failure_of(error) from None

    @workflow.query(name=REPO_STATE_QUERY)
    def current(self) -> RepoState:
        return self.state

    @workflow.query
    def receipt(self, query: ReceiptQuery) -> ChangeReport | None:
        """The kept change report of exactly this SHA, if any."""
        return self.state.receipts.get(query.sha)

    def busy(self) -> str:
        """What is changing or reading the clone now, or empty when nothing is."""
        if self.running is not None:
            return f"the integration of {self.running.job_workflow_id} is changing the clone"
        if self.reporting:
            return "a change report is being made"
        if self.state.pushing is not None:
            return f"a push of {self.state.pushing.receipt.head[:12]} runs"
        return ""

    def _say_setup(self) -> None:
        """Keep the memo jobs read in step with the set-up (a describe, which the server
        answers alone, where the state's query needs a worker)."""
        if workflow.patched(patches.SETUP_MEMO):
            workflow.upsert_memo({SETUP_MEMO: self.state.setup.model_dump(mode="json")})

    def _say_pushing(self, head: str) -> None:
        """Keep the memo the desk's admission check reads in step with `state.pushing`."""
        if workflow.patched(patches.PUSH_MEMO):
            workflow.upsert_memo(pushing_memo(head))

    def _learn_host(self, host: str) -> None:
        """An entity started before its host was known learns it from the first request."""
        if host and not self.state.host:
            self.state.host = host

    def _ends(self) -> bool:
        """Whether the entity ends now: its clone is on no shelf, and it has nothing to do."""
        return self.off_shelf and not (
            self.state.queue or self.running or self.reporting or self.state.pushing
        )

    async def _clone_missing(self) -> bool:
        """Whether the clone's host says it has no clone of the repository. A host that does
        not answer (no worker, an older worker) says nothing: the entity stays."""
        try:
            present = await workflow.execute_activity_method(
                ShelfActivities.clone_on_shelf,
                ShelfLook(repo=self.state.repo),
                **(
                    SHELF_LOOK_STEP
                    | host_route(self.state.host, HOST_WAIT)
                    | ActivityConfig(summary=f"looking for {self.state.repo} on the shelf")
                ),
            )
        except ActivityError as error:
            workflow.logger.info("No look at the shelf of %s: %s", self.state.repo, error)
            return False
        return not present

    def _may_integrate(self) -> bool:
        return bool(self.state.queue) and not self.reporting and self.state.pushing is None

    async def _next_integration(self) -> None:
        self.running = self.state.queue.pop(0)
        try:
            running = self.running
            result = await on_host(
                lambda route: workflow.execute_activity_method(
                    WorktreeActivities.integrate,
                    running,
                    **(
                        git_step(running.git_heartbeat_timeout)
                        | route
                        | ActivityConfig(
                            summary=f"integrating {running.worktree.branch} into {running.repo}"
                        )
                    ),
                ),
                self.state.host,
                HOST_WAIT,
            )
        except ActivityError as error:
            result = IntegrationResult(
                status=IntegrationStatus.FAILED,
                reason=f"Integration failed: {reason_of(error)}",
                branch_kept=True,
            )
        self.state.integrations += 1
        self.off_shelf = self.off_shelf and result.status == IntegrationStatus.FAILED
        # Free before the answer: the job may end on it, and a report asked for then must not
        # find the clone still "changing" while the signal is in flight.
        self.running = None
        await self._answer_job(running.job_workflow_id, result)
        if result.status == IntegrationStatus.INTEGRATED and result.head:
            number = running.number
            await self._supersede(
                result.head, f"job {number} integrated, the clone is at {result.head}"
            )

    async def _push(self, request: PushRequest) -> None:
        try:
            result = await on_host(
                lambda route: workflow.execute_activity_method(
                    ShipActivities.push,
                    PushInput(receipt=request.receipt, pull_request=request.pull_request),
                    **(
                        GIT_STEP
                        | route
                        | ActivityConfig(
                            summary=f"pushing {request.receipt.head[:12]} of {request.receipt.repo}"
                        )
                    ),
                ),
                self.state.host,
                HOST_WAIT,
            )
        except ActivityError as error:
            result = _result(request, PushStatus.REFUSED, str(_refusal(error)))
        self.state.pushes += 1
        self.state.pushing = None
        self._say_pushing("")
        await self._answer_ship(request.ship_workflow_id, result)

    async def _supersede(self, head: str, why: str) -> None:
        """Tell the pushes of older receipts that may wait for an owner that the clone is at
        `head` now: approving one could only be refused, so each withdraws its approval."""
        if not workflow.patched(patches.SUPERSEDE_PUSHES):
            return
        for sha in self.state.stale_receipts(head):
            ship = workflow.get_external_workflow_handle(push_workflow_id(self.state.repo, sha))
            try:
                await ship.signal(SHIP_SUPERSEDED_SIGNAL, PushSuperseded(head=head, reason=why))
            except FailureError:  # no push of that receipt waits (none asked, or it ended)
                continue

    async def _answer_job(self, job_workflow_id: str, result: IntegrationResult) -> None:
        job = workflow.get_external_workflow_handle(job_workflow_id)
        try:
            await job.signal(JOB_INTEGRATION_FINISHED_SIGNAL, result)
        except FailureError:  # the job is gone (terminated): nobody waits for this answer
            workflow.logger.warning("Job %s is gone; its answer is dropped.", job_workflow_id)

    async def _answer_ship(self, ship_workflow_id: str, result: PushResult) -> None:
        ship = workflow.get_external_workflow_handle(ship_workflow_id)
        try:
            await ship.signal(SHIP_PUSH_FINISHED_SIGNAL, result)
        except FailureError:  # the ship is gone: its result stays in this history
            workflow.logger.warning("Ship %s is gone; its answer is dropped.", ship_workflow_id)


def _refusal(error: ActivityError) -> DeskError:
    """A failed report or push step as the desk error it raised.

    A failure of another type keeps its message (as a `ShipRefusal` when it has no type at
    all); one that carries no message of the activity (a timeout, a lost worker) is
    `ShipFailedError`.
    """
    if (refused := error_of(error)) is not None:
        return refused
    cause = error.cause
    if isinstance(cause, ApplicationError):
        return (DeskError if cause.type else ShipRefusal)(cause.message)
    return ShipFailedError(f"The git step failed: {reason_of(error)}")


def _result(request: PushRequest, status: PushStatus, reason: str) -> PushResult:
    receipt = request.receipt
    return PushResult(
        status=status,
        repo=receipt.repo,
        sha=receipt.head,
        branch=request.pull_request.branch if request.pull_request else receipt.default_branch,
        destination=receipt.destination,
        reason=reason,
    )
