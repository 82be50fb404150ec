"""What every surface asks of the desk: shelf, jobs, status and history, as typed calls."""

from __future__ import annotations

import asyncio
import logging
import random
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from datetime import timedelta
from decimal import Decimal

from pydantic import BaseModel, Field
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import (
    Client,
    WithStartWorkflowOperation,
    WorkflowExecutionStatus,
    WorkflowFailureError,
    WorkflowHandle,
    WorkflowQueryFailedError,
    WorkflowUpdateFailedError,
    WorkflowUpdateRPCTimeoutOrCancelledError,
)
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError, RPCStatusCode

from activities.checks.started_jobs import started_as
from desk.config.basics.durations import format_duration
from desk.config.settings import DeskSettings
from desk.errors import (
    AdoptionError,
    AgentCommandError,
    AgentDoneError,
    DeskError,
    DeskSilentError,
    HostError,
    JobNotFoundError,
    ShelfError,
)
from desk.failures import error_of
from desk.holds.approvals import Principal, SurfacePlace
from desk.holds.budget_cards import FinishAnswer, FinishInput
from desk.names import (
    DESK_WORKFLOW_ID,
    JOB_DIFF_PREFIX,
    PHASE_ATTRIBUTE,
    REPO_ATTRIBUTE,
    SHELF_ADD_PREFIX,
    SHELF_LIST_PREFIX,
    WAITING_HOST_ATTRIBUTE,
    job_workflow_id,
)
from desk.payloads.conversation.attempt_payloads import (
    Attempts,
    AttemptSpec,
    AttemptState,
    PickAnswer,
    PickInput,
)
from desk.payloads.conversation.review_payloads import (
    JobDiff,
    JobDiffInput,
    ReviewAnswer,
    ReviewAnswered,
    ReviewVerdict,
)
from desk.payloads.conversation.session_payloads import Continuation
from desk.payloads.jobs import (
    AddRepoInput,
    Admission,
    AdmitInput,
    CloneInfo,
    DeskState,
    JobInput,
    JobPhase,
    JobReport,
    JobStatus,
    ListReposInput,
    RepoPlacement,
    ShelfListing,
)
from desk.payloads.message_payloads import MessageDelivery, SayAnswer, SayInput
from desk.policy.host import HostPolicy, JobAsk
from desk.repo_names import check_clone_source, parse_repo_name
from desk.scrub import scrub
from surfaces.clients.conversation.continuation import continuation_of, refusal
from surfaces.clients.conversation.finish_client import finish
from surfaces.clients.conversation.message_client import cli_sender, say
from surfaces.clients.conversation.pick_client import pick_attempt
from surfaces.clients.conversation.review_client import answer_review
from surfaces.clients.conversation.session_keeps import with_session_state
from surfaces.clients.host_client import host_for_new_repo
from surfaces.clients.listings.job_listing import JobRow as JobRow
from surfaces.clients.listings.job_listing import job_page
from surfaces.clients.listings.page import Page
from surfaces.clients.listings.worker_check import live_pollers, require_worker
from surfaces.clients.ship_outcomes import with_ship_outcomes
from workers.desk_handle import desk_start
from workers.host_queues import polled_hosts
from workflows.desk.desk_entity import Desk
from workflows.host.host_routes import host_missing
from workflows.host.shelf import AddRepo, JobDiffer, ListRepos
from workflows.job.coding_job import CodingJob
from workflows.reasons import reason_of

ADMIT_TRY = timedelta(seconds=20)
"""How long one try of a submission waits for the desk's answer before it asks again (with the
same request id, so a try the desk did answer is never admitted twice)."""

DESK_BUSY = {
    RPCStatusCode.FAILED_PRECONDITION,
    RPCStatusCode.ABORTED,
    RPCStatusCode.RESOURCE_EXHAUSTED,
    RPCStatusCode.UNAVAILABLE,
}
"""How the server says the desk cannot take an update just now: a task being retried, the
limit of updates in flight on one workflow (10 by default) reached by people submitting at
once, or "workflow update was aborted" (UNAVAILABLE) for those that were waiting then. None of
them admitted the job, and a retry carries the same update id."""

QUERY_TIMEOUT = timedelta(seconds=5)
"""How long `status` waits for a worker to answer before describing the job from visibility."""


HOST_LIST_WAIT = timedelta(seconds=10)
"""How long `repo list` waits for one host's worker before naming it as not answering."""


log = logging.getLogger(__name__)


class Shelves(BaseModel):
    """`repo list` across hosts: every clone, and the hosts that did not answer."""

    clones: list[CloneInfo] = Field(default_factory=list)
    silent: list[str] = Field(default_factory=list)


def _desk_failure(error: WorkflowFailureError) -> DeskError:
    """The desk error an activity raised inside a shelf workflow, with its type and message."""
    cause: BaseException | None = error.cause
    while cause is not None and not isinstance(cause, ApplicationError):
        cause = cause.__cause__
    if isinstance(cause, ApplicationError):
        return error_of(cause) or DeskError(cause.message)
    return ShelfError(reason_of(error))


def _seen(start: WithStartWorkflowOperation[Desk, None]) -> None:
    """Take the start's failure, if any, from a try that failed: the try's own error says it,
    and asyncio would print it again as "Future exception was never retrieved"."""
    started = start._workflow_handle
    if started.done() and not started.cancelled():
        started.exception()


class DeskClient:
    """A surface's handle on the desk: one Temporal client and the settings it runs under."""

    def __init__(self, client: Client, settings: DeskSettings) -> None:
        self.client = client
        self.settings = settings
        self.admit_try = ADMIT_TRY

    async def add_repo(
        self, repo: str, source: str = "", host: str = "", adopt: str = ""
    ) -> CloneInfo:
        """Clone `repo` on `host` (default: the only host with a worker), or move the clone at
        `adopt` (an absolute path on that host) onto its shelf, and record it there."""
        name = parse_repo_name(repo)
        if source and adopt:
            raise AdoptionError(
                "Give a clone source (--from) or a clone to adopt (--adopt), not both."
            )
        if source:
            check_clone_source(source)  # refused here, so a token never reaches the history
        await require_worker(self.client, self.settings.task_queue)
        queue = self.settings.task_queue
        chosen = await host_for_new_repo(
            self.client, queue, await self.desk_state(), str(name), host
        )
        try:
            clone: CloneInfo = await self.client.execute_workflow(
                AddRepo.run,
                AddRepoInput(
                    repo=str(name),
                    source=source,
                    adopt=adopt,
                    host=chosen,
                    host_wait=self.settings.host_wait,
                ),
                id=f"{SHELF_ADD_PREFIX}{name}",
                task_queue=queue,
            )
        except WorkflowFailureError as error:
            raise _desk_failure(error) from None
        if chosen:
            await self.place_repo(RepoPlacement(repo=str(name), host=chosen))
        return clone.model_copy(update={"host": chosen})

    async def place_repo(self, placement: RepoPlacement) -> None:
        """Record on the desk that a repository's clone is on a host (refused if elsewhere)."""
        try:
            await self.client.execute_update_with_start_workflow(
                Desk.place_repo, placement, start_workflow_operation=desk_start(self.settings)
            )
        except WorkflowUpdateFailedError as error:
            cause = error.cause
            message = cause.message if isinstance(cause, ApplicationError) else str(error)
            raise HostError(message) from None

    async def list_repos(self, fetch: bool = False) -> list[CloneInfo]:
        """Every live host's clones in one list (hosts that did not answer are left out)."""
        return (await self.shelves(fetch)).clones

    async def shelves(self, fetch: bool = False) -> Shelves:
        """Ask each host with a worker for its clones; name the hosts that did not answer."""
        await require_worker(self.client, self.settings.task_queue)
        desk = await self.desk_state()
        hosts = sorted(desk.hosts) if desk is not None and desk.hosts else [""]
        polling = await polled_hosts(self.client, self.settings.task_queue, [h for h in hosts if h])
        view = Shelves()
        for host in hosts:
            if host and not polling[host]:
                view.silent.append(host)
                continue
            try:
                clones = await self._list_host(host, fetch)
            except HostError:
                view.silent.append(host)
                continue
            view.clones += [clone.model_copy(update={"host": host}) for clone in clones]
        return view

    async def _list_host(self, host: str, fetch: bool) -> list[CloneInfo]:
        wait = min(self.settings.host_wait, HOST_LIST_WAIT)
        try:
            listing: ShelfListing = await self.client.execute_workflow(
                ListRepos.run,
                ListReposInput(fetch=fetch, host=host, host_wait=wait),
                id=f"{SHELF_LIST_PREFIX}{uuid.uuid4()}",
                task_queue=self.settings.task_queue,
            )
        except WorkflowFailureError as error:
            if host and host_missing(error.cause):
                raise HostError(f"Host {host} did not answer.") from None
            raise _desk_failure(error) from None
        return listing.clones

    async def submit_job(
        self,
        repo: str,
        task: str,
        *,
        agent_command: str | None = None,
        budget: timedelta | None = None,
        requester: str = "",
        place: SurfacePlace | None = None,
        starter: str = "",
        origin_channel: str = "",
        hold_classes: Sequence[str] = (),
        spend_limit: Decimal | None = None,
        review: bool = False,
        continues: Continuation | None = None,
        request_id: str = "",
        attempts: Sequence[AttemptSpec] = (),
        pick_first_passing: bool = False,
    ) -> Admission:
        """Hand a job to the desk: it runs now or waits in the queue; answered at once.

        The desk judges it by its host's policy, never by this process's settings: `budget`
        (default: the host's), `spend_limit` (US dollars, default: the host's) and
        `hold_classes` (held on top of the host's) may only ask for something stricter, and a
        looser ask is refused with a `PolicyError`.
        `place` is a chat thread that follows the job (its progress, cards and report).
        `starter` is the principal id of who starts it (default: the CLI's owner), and
        `origin_channel` the chat channel it was started from: both decide its modes.
        `review`: the work waits for a person's review before it lands.
        `continues` is the finished job it continues (`say`), and `request_id` names the
        submission once for all its sends (default: a new one). `attempts`: several agents at
        the task side by side, a person picks one (`pick_first_passing`: the first whose check
        passes); each attempt's command replaces `agent_command`.
        """
        name = parse_repo_name(repo)
        if not task.strip():
            raise DeskError("The task is empty: say what the agent should do.")
        command = agent_command or self.settings.agent_command
        for given in [command, *(attempt.agent_command for attempt in attempts)]:
            if scrub(given) != given:
                raise AgentCommandError(
                    f"The agent command holds a credential ({scrub(given)}); it would be kept in "
                    "the job's history as given. Put it in the worker's environment instead (for "
                    "example ANTHROPIC_API_KEY), where the agent finds it."
                )
        if pick_first_passing and not attempts:
            raise DeskError(
                "--pick-first-passing picks among attempts: give --agents or --attempts too."
            )
        await require_worker(self.client, self.settings.task_queue)
        job = JobInput(
            number=0,
            repo=str(name),
            task=task,
            agent_command=command,
            requester=requester,
            heartbeat_timeout=self.settings.heartbeat_timeout,
            place=place,
            host_wait=self.settings.host_wait,
            starter=starter or self.settings.owner,
            origin_channel=origin_channel,
            review=review,
            continues=continues,
            attempts=list(attempts),
            pick_first_passing=pick_first_passing,
        )
        ask = JobAsk(budget=budget, hold_classes=list(hold_classes), spend_limit=spend_limit)
        try:
            return await self._admit(AdmitInput(job=job, ask=ask, request_id=request_id))
        except WorkflowUpdateFailedError as error:
            # Whatever the desk refused it for (a full queue, a host, its check, the host's
            # policy), raised again as the desk error it was, matched by its wire name.
            if (refused := error_of(error)) is not None:
                raise refused from None
            reason = reason_of(error.cause or error)
            raise DeskError(f"The desk refused the job: {reason}") from None

    async def _admit(self, request: AdmitInput) -> Admission:
        """Ask the desk to admit; ask again while it is busy or slow to answer.

        While the desk continues as new, a signal that lands during that workflow task makes
        the server reject the task, and for that moment it refuses updates as "Workflow Task
        in failed state"; when many people submit at once, the server refuses updates past its
        limit in flight and aborts some that wait; under load a try may get no answer before
        its RPC times out. Each is tried again, up to `admit_wait`, with the same request id
        (also the Update id): the desk gives a request it admitted before its first number.
        """
        if not request.request_id:
            request = request.model_copy(update={"request_id": str(uuid.uuid4())})
        patience = self.settings.admit_wait.total_seconds()
        deadline = time.monotonic() + patience
        pause, tries = 0.1, 0
        while True:
            tries += 1
            start = desk_start(self.settings)
            wait = min(self.admit_try.total_seconds(), max(deadline - time.monotonic(), 0.1))
            try:
                # The SDK's own RPC timeout ends a try; the outer one is the backstop, for the
                # SDK keeps polling an Update the server has not answered.
                async with asyncio.timeout(2 * wait):
                    return await self.client.execute_update_with_start_workflow(
                        Desk.admit,
                        request,
                        id=request.request_id,
                        start_workflow_operation=start,
                        rpc_timeout=timedelta(seconds=wait),
                    )
            except (TimeoutError, WorkflowUpdateRPCTimeoutOrCancelledError):
                log.info("The desk did not answer try %d of request %s.", tries, request.request_id)
            except RPCError as error:
                if error.status not in DESK_BUSY:
                    raise
            finally:
                _seen(start)
            if time.monotonic() + pause > deadline:
                raise DeskSilentError(
                    f"The desk gave no answer to this submission in "
                    f"{format_duration(self.settings.admit_wait)} (asked "
                    f"{tries} times, as request {request.request_id}): its worker may be "
                    "overloaded or stuck. The job may still be admitted: check `codedesk jobs` "
                    "before you submit it again, and `codedesk worker` on the desk's host."
                )
            await asyncio.sleep(pause * random.uniform(0.5, 1.5))
            pause = min(pause * 2, 1.0)

    async def start_job(
        self,
        repo: str,
        task: str,
        *,
        agent_command: str | None = None,
        budget: timedelta | None = None,
        requester: str = "",
        spend_limit: Decimal | None = None,
        review: bool = False,
    ) -> int:
        """Submit a job and return its number (running or queued)."""
        admission = await self.submit_job(
            repo,
            task,
            agent_command=agent_command,
            budget=budget,
            requester=requester,
            spend_limit=spend_limit,
            review=review,
        )
        return admission.number

    async def worker_polling(self) -> bool:
        """Whether a codedesk worker polls the desk's task queue now (asked of Temporal)."""
        return bool(await live_pollers(self.client, self.settings.task_queue))

    async def desk_state(self) -> DeskState | None:
        """The desk's running jobs and queue; None at once when no worker polls or answers."""
        if not await self.worker_polling():
            return None
        handle = self.client.get_workflow_handle_for(Desk.run, DESK_WORKFLOW_ID)
        try:
            return await handle.query(Desk.current, rpc_timeout=QUERY_TIMEOUT)
        except (RPCError, WorkflowQueryFailedError):
            return None

    async def host_policy(self) -> HostPolicy | None:
        """The policy the desk judges jobs by (None when no worker answers or none was sent)."""
        state = await self.desk_state()
        return state.policy if state is not None else None

    def job(self, number: int) -> WorkflowHandle[CodingJob, JobReport]:
        return self.client.get_workflow_handle_for(CodingJob.run, job_workflow_id(number))

    async def status(self, number: int) -> tuple[WorkflowExecutionStatus, JobStatus]:
        """The job's Temporal status and its own account of where it is.

        A closed job is read from its result, which needs no worker; a running one is asked by
        a query, and described from its search attributes when no worker answers in time.
        """
        handle = self.job(number)
        try:
            described = await handle.describe()
        except RPCError as error:
            if error.status == RPCStatusCode.NOT_FOUND:
                raise JobNotFoundError(
                    f"There is no job {number}: `codedesk jobs` lists the jobs."
                ) from None
            raise
        state = described.status or WorkflowExecutionStatus.RUNNING
        attributes = described.typed_search_attributes
        fallback = JobStatus(
            number=number,
            repo=attributes.get(REPO_ATTRIBUTE) or "",
            waiting_for_host=attributes.get(WAITING_HOST_ATTRIBUTE) or "",
            phase=JobPhase(attributes.get(PHASE_ATTRIBUTE) or JobPhase.STARTING.value),
        )
        if state == WorkflowExecutionStatus.COMPLETED:
            report = await with_ship_outcomes(self.client, await handle.result())
            report = await with_session_state(self.client, report)
            fallback.report, fallback.phase = report, JobPhase.DONE
            fallback.task, fallback.branch, fallback.worktree = (
                report.task,
                report.branch,
                report.worktree,
            )
            return state, fallback
        if state != WorkflowExecutionStatus.RUNNING or not await self.worker_polling():
            return state, fallback
        try:
            current = await handle.query(CodingJob.current, rpc_timeout=QUERY_TIMEOUT)
        except (RPCError, WorkflowQueryFailedError):
            return state, fallback
        return state, current

    async def wait(self, number: int) -> JobReport:
        return await self.job(number).result()

    async def say(
        self,
        number: int,
        text: str,
        by: Principal | None = None,
        surface: str = "cli",
        update_id: str | None = None,
    ) -> SayAnswer:
        """Send job `number`'s agent a message as `by` (default: this CLI's owner); the job's
        answer says whether it reached the running agent or when it will (surfaces/clients/
        conversation/message_client.py). `update_id` makes a send asked twice one message."""
        said = SayInput(text=text, by=by or cli_sender(self.settings.owner), surface=surface)
        state, current = await self.status(number)
        if current.attempts is not None and current.report is None:
            return await self._say_to_attempts(current.attempts, said, update_id)
        if state != WorkflowExecutionStatus.COMPLETED or current.report is None:
            try:  # a finished job is continued at once: no Update for the server to refuse
                return await say(self.client, self.settings.task_queue, number, said, update_id)
            except AgentDoneError:
                state, current = await self.status(number)
                if state != WorkflowExecutionStatus.COMPLETED or current.report is None:
                    raise
        return await self.continue_job(current.report, said, update_id or "")

    async def _say_to_attempts(
        self, attempts: Attempts, said: SayInput, update_id: str | None
    ) -> SayAnswer:
        """A message to a job of attempts goes to every attempt still at work or waiting for
        the pick; the answer is the first attempt's (each is in its own job's history)."""
        answers: list[SayAnswer] = []
        for row in attempts.rows:
            if row.state == AttemptState.ENDED:
                continue
            one = f"{update_id}-{row.label}" if update_id else None
            answers.append(await say(self.client, self.settings.task_queue, row.number, said, one))
        if not answers:
            raise AgentDoneError("Every attempt of the job has ended: nobody is left to tell.")
        return answers[0]

    async def continue_job(self, report: JobReport, said: SayInput, request_id: str) -> SayAnswer:
        """A new job that continues the finished one of `report` (as `status` reads it) with the
        message `said` (surfaces/clients/conversation/continuation.py); the answer names it."""
        job = await started_as(self.client, report.number)
        refused = refusal(job, said)
        if refused is not None:
            raise refused
        continues = continuation_of(job, report)
        admission = await self.submit_job(
            job.repo,
            said.text,
            agent_command=job.agent_command,
            requester=said.by.name,
            place=job.place,
            starter=said.by.id,
            origin_channel=job.origin_channel,
            continues=continues,
            request_id=request_id,
        )
        return SayAnswer(
            number=admission.number,
            seq=1,
            delivery=MessageDelivery.AGENT_START,
            continues=report.number,
            continued_anew=not continues.session_id,
        )

    async def finish(self, number: int, by: Principal | None = None) -> FinishAnswer:
        """End job `number`'s agent at its budget card as `by` (default: this CLI's owner): the
        job checks and integrates what is committed."""
        who = by or cli_sender(self.settings.owner)
        ask = FinishInput(by=who.id, by_name=who.name)
        return await finish(self.client, self.settings.task_queue, number, ask)

    async def answer_review(
        self,
        number: int,
        verdict: ReviewVerdict,
        by: Principal | None = None,
        surface: str = "cli",
    ) -> ReviewAnswered:
        """Integrate or discard job `number`'s work waiting in review, as `by` (default: this
        CLI's owner); a revision is a message (`say`)."""
        answer = ReviewAnswer(
            verdict=verdict, by=by or cli_sender(self.settings.owner), surface=surface
        )
        return await answer_review(self.client, self.settings.task_queue, number, answer)

    async def pick(
        self, number: int, label: str, by: Principal | None = None, surface: str = "cli"
    ) -> PickAnswer:
        """Pick attempt `label` of job `number` to integrate (an empty label discards them
        all), as `by` (default: this CLI's owner)."""
        pick = PickInput(label=label, by=by or cli_sender(self.settings.owner), surface=surface)
        return await pick_attempt(self.client, self.settings.task_queue, number, pick)

    async def attempt_number(self, number: int, label: str) -> int:
        """The job number of attempt `label` of job `number`."""
        _, current = await self.status(number)
        attempts = current.attempts
        if attempts is None:
            raise DeskError(f"Job {number} has no attempts: leave --attempt out.")
        for row in attempts.rows:
            if row.label == label:
                return row.number
        labels = ", ".join(row.label for row in attempts.rows)
        raise DeskError(f"Job {number} has no attempt {label!r}: its attempts are {labels}.")

    async def diff(
        self, number: int, stat_only: bool = False, max_chars: int = 1_000_000
    ) -> JobDiff:
        """Job `number`'s commits against the clone's HEAD, asked of the clone's host (a
        `JobDiff` workflow runs the git step there)."""
        _, current = await self.status(number)
        if current.attempts is not None and not current.branch:
            labels = ", ".join(row.label for row in current.attempts.rows)
            raise DeskError(
                f"Job {number} has attempts ({labels}): name one with `--attempt LABEL`."
            )
        request = JobDiffInput(
            number=number,
            repo=current.repo,
            branch=current.branch,
            host=current.host,
            host_wait=min(self.settings.host_wait, HOST_LIST_WAIT),
            stat_only=stat_only,
            max_chars=max_chars,
        )
        try:
            found: JobDiff = await self.client.execute_workflow(
                JobDiffer.run,
                request,
                id=f"{JOB_DIFF_PREFIX}{uuid.uuid4()}",
                task_queue=self.settings.task_queue,
            )
        except WorkflowFailureError as error:
            if current.host and host_missing(error.cause):
                raise HostError(
                    f"Host {current.host}, where job {number}'s clone lives, did not answer: "
                    f"start `codedesk worker` there (CODEDESK_HOST={current.host})."
                ) from None
            raise _desk_failure(error) from None
        return found

    async def cancel(self, number: int) -> None:
        state, _ = await self.status(number)
        if state != WorkflowExecutionStatus.RUNNING:
            raise DeskError(
                f"Job {number} is not running ({state.name.lower()}); nothing to cancel."
            )
        await self.job(number).cancel()

    async def jobs(self, limit: int = 100) -> list[JobRow]:
        """Up to `limit` jobs, oldest first."""
        page = await self.job_page(limit)
        return sorted(page.items, key=lambda row: row.number)

    async def job_page(self, limit: int) -> Page[JobRow]:
        """The `limit` newest jobs, newest first, and how many jobs there are in all."""
        listing = await job_page(
            self.client.workflow_service, self.client.namespace, self.settings.task_queue, limit
        )
        return listing.page

    async def history(self, number: int) -> list[HistoryEvent]:
        await self.status(number)
        return [event async for event in self.job(number).fetch_history_events()]

    async def follow(self, number: int) -> AsyncIterator[HistoryEvent]:
        """The job's history events as they happen, until the job closes.

        The server's long poll of a history answers "current branch changed" when the
        workflow's transitions moved under it (an Update's speculative workflow task was
        dropped meanwhile): the history is read again, past the events already given.
        """
        await self.status(number)
        given = 0
        while True:
            try:
                async for event in self.job(number).fetch_history_events(wait_new_event=True):
                    if event.event_id <= given:
                        continue
                    given = event.event_id
                    yield event
                    if event.event_type in CLOSING_EVENTS:
                        return
                return
            except RPCError as error:
                if not branch_changed(error):
                    raise


def branch_changed(error: RPCError) -> bool:
    """Whether the server refused a history read because the workflow's branch (or its
    versioned transitions) changed under the read: reading again from the start answers."""
    named = any("CurrentBranchChanged" in detail.type_url for detail in error.grpc_status.details)
    return named or "branch tokens" in error.message


CLOSING_EVENTS = {
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
}
