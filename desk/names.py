"""Task queue names, workflow-id formats and search attributes: the only place they are spelled.

The shared task queue is also a setting's default, so its spelling is in
desk/config/basics/defaults.py (which a listing reads without the SDK's modules that this one
loads); this module, like every loose module of desk/, imports none of desk's folders.
"""

from __future__ import annotations

from collections.abc import Iterator

from temporalio.common import SearchAttributeKey

from desk.errors import JobNotFoundError

DISCORD_TASK_QUEUE = "codedesk-discord"
"""The Discord bot's own task queue: it hosts the surface activities."""
DESK_WORKFLOW_ID = "desk"
JOB_ID_PREFIX = "job-"
REPO_ID_PREFIX = "repo-"
PUSH_ID_PREFIX = "push-"
OUTBOX_ID_PREFIX = "outbox-"
SHELF_ADD_PREFIX = "shelf-add-"
SHELF_LIST_PREFIX = "shelf-list-"
JOB_DIFF_PREFIX = "job-diff-"
HOST_CHECK_PREFIX = "host-check-"
RESULT_ID_PREFIX = "result-"
SESSION_ID_PREFIX = "session-"

JOB_WORKFLOW_TYPE = "CodingJob"
APPROVAL_WORKFLOW_TYPE = "Approval"
"""Workflow type names, for what reads Temporal's visibility without the workflow definitions
(`codedesk jobs`); tests/cli/test_job_listing.py holds them equal to the definitions'."""
DESK_WORKFLOW_TYPE = "Desk"
REPO_WORKFLOW_TYPE = "Repo"
SHIP_WORKFLOW_TYPE = "Ship"
OUTBOX_WORKFLOW_TYPE = "Outbox"
RESULT_DELIVERY_WORKFLOW_TYPE = "ResultDelivery"
SESSION_KEEP_WORKFLOW_TYPE = "SessionKeep"
ADD_REPO_WORKFLOW_TYPE = "AddRepo"
LIST_REPOS_WORKFLOW_TYPE = "ListRepos"
JOB_DIFF_WORKFLOW_TYPE = "JobDiff"
REQUEST_INTEGRATION_SIGNAL = "request_integration"
WITHDRAW_INTEGRATION_SIGNAL = "withdraw_integration"
OUTBOX_ENQUEUE_SIGNAL = "enqueue"
APPROVAL_WITHDRAW_SIGNAL = "withdraw"
"""Names a workflow uses to start or signal another without importing its definition: the
sandbox built every workflow module a new workflow imported afresh, so a job that imported the
`Repo`, `Outbox` and `Approval` classes paid for building them in its first task (issue 13).
The `workflows` package is shared by the sandboxes now (workers/workflow_runner.py), but the
names keep a workflow's module free of the others'. The definitions use these same names."""
DESK_STATE_QUERY = "current"
"""The `Desk` entity's query of its state (`Desk.current`)."""
APPROVAL_STATE_QUERY = "current"
"""An approval's query of its state (`Approval.current`)."""
JOB_STATE_QUERY = "current"
"""A job's query of its status (`CodingJob.current`)."""
REPO_STATE_QUERY = "current"
"""A `Repo` entity's query of its state (`RepoEntity.current`)."""
REPO_CHANGE_REPORT_UPDATE = "change_report"
"""A `Repo` entity's Update that makes a change report (`RepoEntity.change_report`)."""
APPROVAL_OUTCOME_UPDATE = "outcome"
"""An approval's Update that waits for its outcome (`Approval.outcome`)."""
JOB_HOLD_UPDATE = "hold"
"""A job's Update that answers whether a held call may run (`CodingJob.hold`)."""
JOB_AGENT_INBOX_UPDATE = "agent_inbox"
"""A job's Update that hands its running agent the messages after a number, once there are
some or the run is over (`CodingJob.agent_inbox`)."""
JOB_MESSAGES_DELIVERED_SIGNAL = "messages_delivered"
"""A job's signal that messages reached its agent (`CodingJob.messages_delivered`)."""
JOB_WITHDRAW_CALL_UPDATE = "withdraw_call"
"""A job's Update that withdraws one of its calls whose approval is no longer open
(`CodingJob.withdraw_call`): `codedesk withdraw` sends it."""
JOB_AGENT_WORKED_SIGNAL = "agent_worked"
"""A job's signal of time its agent worked beside a waiting hold (`CodingJob.agent_worked`).

Queries, Updates and signals above are what activities (Temporal clients: the hold channel,
admission, the desk's policy) send by name, so that no activity imports a workflow module (the
layer rule, tests/project/test_layers.py); the definitions are declared with these same names."""
JOB_FINISH_UPDATE = "finish"
"""A person ends a job's agent at its budget pause (`CodingJob.finish`): `codedesk finish`
sends it; the job checks and integrates what is committed."""
JOB_SAY_UPDATE = "say"
"""A person's message to a job's agent (`CodingJob.say`): every surface sends it by name."""
JOB_REVIEW_UPDATE = "review"
"""A reviewer's `integrate` or `discard` of a job waiting in review (`CodingJob.review`)."""
JOB_PICK_UPDATE = "pick"
"""A person's pick among a job's attempts (`CodingJob.pick`): `codedesk pick N b`."""
JOB_ATTEMPT_NEWS_SIGNAL = "attempt_news"
"""An attempt's job tells the job it belongs to where it is (`CodingJob.attempt_news`)."""
JOB_ATTEMPT_VERDICT_SIGNAL = "attempt_verdict"
"""The job of several attempts tells one of them the pick (`CodingJob.attempt_verdict`)."""
JOB_ADMIT_SIGNAL = "admit"
"""The desk lets a queued job run (`CodingJob.admit`)."""
JOB_MODES_CHANGED_SIGNAL = "modes_changed"
"""The desk tells a job the modes its scopes have now (`CodingJob.modes_changed`)."""
JOB_INTEGRATION_FINISHED_SIGNAL = "integration_finished"
"""A `Repo` entity answers a job's integration request (`CodingJob.integration_finished`)."""
DESK_JOB_ENDED_SIGNAL = "job_ended"
"""A job tells its desk it has ended, whatever ended it (`Desk.job_ended`)."""
DESK_JOB_SUSPENDS_SIGNAL = "job_suspends"
"""A job tells its desk its agent is suspended, its slot free (`Desk.job_suspends`)."""
DESK_JOB_RESUMES_SIGNAL = "job_resumes"
"""A suspended job asks its desk for a slot again (`Desk.job_resumes`)."""
REPO_REQUEST_PUSH_SIGNAL = "request_push"
"""A `Ship` asks the repository's entity to push (`RepoEntity.request_push`)."""
SHIP_PUSH_FINISHED_SIGNAL = "push_finished"
"""The repository's entity answers a `Ship`'s push (`Ship.push_finished`)."""
REPO_LOOK_AT_SHELF_SIGNAL = "look_at_shelf"
"""A worker that starts asks each `Repo` entity whose clone it lacks to look at its shelf
(`RepoEntity.look_at_shelf`): one whose clone is on no shelf, with nothing to do, ends."""
SHIP_SUPERSEDED_SIGNAL = "superseded"
"""The repository's entity tells a waiting `Ship` the clone moved on (`Ship.superseded`).

The signals above are what one workflow sends another (the desk its jobs, a job its desk, the
repository's entity its jobs and pushes, a push the entity): each is declared with its name and
sent by it, so no workflow module imports another's (tests/workflows/test_message_names.py holds
the names to the definitions)."""
REQUESTER_MEMO = "requester"
TASK_MEMO = "task"
CONTINUES_MEMO = "continues"
"""A job that continues a finished one: that job's number (absent on any other job)."""
ATTEMPT_LABELS = "abcdefghijklmnopqrstuvwxyz"
"""An attempt's label is its place in its job: `a`, `b`, `c`, ..."""
ATTEMPT_OF_MEMO = "attempt_of"
"""An attempt: the number of the job it belongs to (absent on any other job)."""
ATTEMPTS_MEMO = "attempts"
"""A job of several attempts: their numbers (absent on any other job)."""
"""The memo keys the desk gives each job it starts (who asked, the task's start)."""
IGNORED_MEMO = "ignored"
"""An approval's memo: the answers it ignored (from someone who may not approve)."""
PUSHING_MEMO = "pushing"
"""A `Repo` entity's memo: the SHA its running push sends, empty when none runs. Read by
describing the entity, which asks the server only, not a worker as a query would."""
SETUP_MEMO = "setup"
"""A `Repo` entity's memo: the set-up in force (a `RepoSetup` as JSON), read by describing the
entity when a job decides which of its set-up and check steps to run (issue 32)."""

REPO_ATTRIBUTE = SearchAttributeKey.for_keyword("CodedeskRepo")
PHASE_ATTRIBUTE = SearchAttributeKey.for_keyword("CodedeskPhase")
OUTCOME_ATTRIBUTE = SearchAttributeKey.for_keyword("CodedeskOutcome")
WAITING_HOST_ATTRIBUTE = SearchAttributeKey.for_keyword("CodedeskWaitingHost")
"""Set while a job waits for its host's worker; `codedesk jobs` shows it."""
COST_ATTRIBUTE = SearchAttributeKey.for_float("CodedeskCostUsd")
"""What a finished job cost in US dollars, where its agent said or the price table knew."""
SUMMARY_ATTRIBUTE = SearchAttributeKey.for_text("CodedeskSummary")
"""The job's one-line summary (its workflow's static summary): the Temporal UI's job list
shows it as a column, which its list of summaries-less ids otherwise lacks."""
SEARCH_ATTRIBUTES = (
    REPO_ATTRIBUTE,
    PHASE_ATTRIBUTE,
    OUTCOME_ATTRIBUTE,
    WAITING_HOST_ATTRIBUTE,
    COST_ATTRIBUTE,
    SUMMARY_ATTRIBUTE,
)
"""Custom search attributes every server that runs codedesk registers."""


def pushing_memo(head: str = "") -> dict[str, str]:
    """A `Repo` entity's memo while a push of `head` runs (empty: none runs), as its starters
    set it and the entity keeps it."""
    return {PUSHING_MEMO: head}


def job_workflow_id(number: int) -> str:
    """The workflow id of job `number`: `job-<n>`."""
    return f"{JOB_ID_PREFIX}{number}"


def job_number(workflow_id: str) -> int:
    """The job number of a `job-<n>` workflow id."""
    digits = workflow_id.removeprefix(JOB_ID_PREFIX)
    if not workflow_id.startswith(JOB_ID_PREFIX) or not digits.isdigit():
        raise JobNotFoundError(f"Workflow id {workflow_id!r} is not a codedesk job id (job-<n>).")
    return int(digits)


def repo_workflow_id(repo: str) -> str:
    """The workflow id of the `Repo` entity of `owner/repo`."""
    return f"{REPO_ID_PREFIX}{repo}"


def push_workflow_id(repo: str, sha: str) -> str:
    """The workflow id of the push of `sha` to `owner/repo`: `push-<owner>/<repo>-<sha>`."""
    return f"{PUSH_ID_PREFIX}{repo}-{sha}"


def push_approval_scope(repo: str) -> str:
    """The approval scope of a push to `owner/repo` (its approval ids start with it)."""
    return f"{PUSH_ID_PREFIX}{repo}"


def outbox_workflow_id(queue: str, channel: str) -> str:
    """The workflow id of the ordered outbox of one surface channel or thread."""
    return f"{OUTBOX_ID_PREFIX}{queue}-{channel}"


def host_task_queue(task_queue: str, host: str) -> str:
    """The task queue of one host's shelf activities: `<shared queue>@<host>`."""
    return f"{task_queue}@{host}"


def job_branch_names(number: int, tries: int, name: str = "") -> Iterator[str]:
    """Branch names job `number` may work on, in order of preference.

    `worker/<n>`, then `worker/<n>-1`, `-2`, ... when kept branches hold those names; then
    `worker-<n>`, `worker-<n>-1`, ... for when a branch named `worker` (or `worker/<n>/x`)
    blocks the whole `worker/<n>` family. `name` replaces `<n>` (an attempt's `<job>-<label>`).
    """
    name = name or str(number)
    for stem in (f"worker/{name}", f"worker-{name}"):
        yield stem
        for suffix in range(1, tries):
            yield f"{stem}-{suffix}"


def result_delivery_workflow_id(event: str, subject: str) -> str:
    """The `ResultDelivery` of a job's report (`job`, its number) or a push's result (`push`,
    its Ship workflow's id)."""
    return f"{RESULT_ID_PREFIX}{event}-{subject}"


def session_keep_workflow_id(number: int) -> str:
    """The `SessionKeep` that removes job `number`'s agent session once its time is up."""
    return f"{SESSION_ID_PREFIX}{number}"
