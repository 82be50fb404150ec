"""Payloads that cross process boundaries: workflow, activity, signal and query models.

Readers are tolerant: every model ignores unknown fields and gives new fields defaults, so an
older and a newer worker or surface can talk during an upgrade.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from enum import StrEnum

from pydantic import Field

from desk.holds.approvals import HeldCall, HoldAnswer, SurfacePlace
from desk.holds.budget_cards import BudgetPause
from desk.payloads.conversation.attempt_payloads import Attempts, AttemptSpec
from desk.payloads.conversation.review_payloads import ReviewRound
from desk.payloads.conversation.session_payloads import Continuation
from desk.payloads.message_payloads import JobMessage, MessageSeam
from desk.payloads.ship_requests import BranchPushResult, ShipRequestResult
from desk.policy.daily import DayLimitReached, DaySpend
from desk.policy.host import HostPolicy, JobAsk
from desk.policy.modes import JobModes, ModeBoard
from desk.policy.result_hooks import ResultHooks
from desk.records.base import Payload, ScrubbedText
from desk.records.job_states import JobOutcome as JobOutcome
from desk.records.job_states import JobPhase as JobPhase
from desk.records.job_states import ReasonKind as ReasonKind
from desk.records.repo_setup import CheckRound, CommandRun, RepoSetup
from desk.usage.tally import Usage


class FailureKind(StrEnum):
    """What failed when a job failed (a report's `failure_category`; empty when nothing did)."""

    NONE = ""
    ACTIVITY = "activity"
    """The agent's activity failed (its worker, Temporal), not the agent."""
    NOT_STARTED = "not_started"
    """The agent's program could not be started."""
    AGENT = "agent"
    """The agent exited 0, but its output says it could not work."""
    EXIT = "exit"
    """The agent exited with a code other than 0."""
    SIGNAL = "signal"
    """The agent was killed by a signal."""
    INTEGRATION = "integration"
    """The agent's commits could not be integrated into the clone."""


class CommitInfo(Payload):
    """One commit as a report lists it."""

    sha: str
    subject: ScrubbedText = ""


# Shelf


class AddRepoInput(Payload):
    repo: str
    source: str = ""
    adopt: str = ""
    """A clone on the host to move onto the shelf as it is, instead of cloning `source`."""
    host: str = ""
    """The host whose shelf gets the clone (empty: any worker of the shared queue)."""
    host_wait: timedelta = timedelta(minutes=1)


class CloneInfo(Payload):
    """The state of one clone on the shelf."""

    repo: str
    path: str
    branch: str = ""
    upstream: str = ""
    ahead: int = 0
    behind: int = 0
    dirty: list[ScrubbedText] = Field(default_factory=list)
    head: str = ""
    last_commit: ScrubbedText = ""
    last_commit_at: datetime | None = None
    error: ScrubbedText = ""
    """Why `repo list --fetch` could not fetch it."""
    refusal: ScrubbedText = ""
    """Why codedesk does not work on this clone (its git directory is outside it); nothing
    else is read of a refused clone."""
    host: str = ""
    """The host whose shelf holds the clone (empty when not known)."""
    recent_commits: list[CommitInfo] = Field(default_factory=list)
    """The clone's last commits, newest first (`repo_list_commits` of them)."""
    summary: ScrubbedText = ""
    """One line of its README that says what the repository is."""
    instruction_files: list[ScrubbedText] = Field(default_factory=list)
    """The repository's instruction files an agent will read (CLAUDE.md, AGENTS.md, ...)."""
    ci_hints: list[ScrubbedText] = Field(default_factory=list)
    """Its CI configuration files (the workflows of `.github/workflows`, `.gitlab-ci.yml`, ...)."""
    refused_folders: list[ScrubbedText] = Field(default_factory=list)
    """CI folders not read because they are, or lie under, a symlink."""


class ListReposInput(Payload):
    fetch: bool = False
    host: str = ""
    host_wait: timedelta = timedelta(seconds=10)


class ShelfListing(Payload):
    clones: list[CloneInfo] = Field(default_factory=list)


class ShelfLook(Payload):
    """A `Repo` entity asks its clone's host whether the clone is on the shelf."""

    repo: str


# The job


class JobInput(Payload):
    """Everything a coding job needs, fixed when it starts."""

    number: int
    repo: str
    task: ScrubbedText
    agent_command: str
    requester: str = ""
    budget: timedelta = timedelta(hours=1)
    spend_limit: Decimal | None = None
    """What the job's agent may spend in US dollars: the host's limit, or a stricter ask."""
    heartbeat_timeout: timedelta = timedelta(seconds=30)
    output_chars: int = 20_000
    report_commits: int = 50
    report_files: int = 100
    integration_wait: timedelta = timedelta(hours=1)
    owners: list[str] = Field(default_factory=list)
    """Principal ids who may answer the job's approvals."""
    hold_classes: list[str] = Field(default_factory=list)
    """Hold classes that wait for a person (empty: all of them)."""
    hold_tools: list[str] = Field(default_factory=list)
    """Tools that always wait for a person."""
    report_held_calls: int = 10
    report_held_chars: int = 1000
    place: SurfacePlace | None = None
    """The chat thread that follows the job (a `/task` from Discord), if any."""
    desk_id: str = ""
    """The `Desk` workflow that admitted the job and is told when it ends (empty: none)."""
    admitted: bool = True
    """False when the job starts queued and waits for the desk's `admit` signal."""
    host: str = ""
    """The host that holds the clone; every shelf step runs on its queue (empty: shared queue)."""
    host_wait: timedelta = timedelta(minutes=1)
    """How long a step waits for the host's worker before the job says it waits for the host."""
    origin_channel: str = ""
    """The chat channel or thread the job was started from (a scope of its modes)."""
    starter: str = ""
    """The principal id of who started the job: a job whose starter is no owner follows no mode."""
    modes: JobModes = Field(default_factory=JobModes)
    """The modes the job follows when it starts (the desk signals it every later switch)."""
    yolo_carded_classes: list[str] = Field(default_factory=lambda: ["push"])
    yolo_allow: list[str] = Field(default_factory=list)
    long_running_check: timedelta = timedelta(seconds=60)
    long_running_max: timedelta = timedelta(hours=4)
    budget_asks: int = 0
    """How many times the job may pause at its budget and ask to go on (host policy:
    CODEDESK_BUDGET_ASKS_MAX, 0 when CODEDESK_BUDGET_ASKS is off; 0: never, as before)."""
    work_budget_max: timedelta = timedelta(days=1)
    """The host's CODEDESK_WORK_BUDGET_MAX: a budget pause's "go on" never passes it."""
    host_spend_limit: Decimal | None = None
    """The host's CODEDESK_JOB_SPEND_LIMIT: a budget pause's "go on" never passes it."""
    policy_source: str = ""
    """The host whose policy the desk judged the job by (empty: a job the requester's settings
    judged, admitted before host policy)."""
    result_hooks: ResultHooks | None = None
    """Where the host sends the job's report when it ends (None: nowhere but the surfaces)."""
    message_chars: int = 8000
    """The longest message a person may send the job's agent (the host's policy)."""
    session_keep: timedelta = timedelta(days=7)
    """How long the agent's session is kept once the job has ended (the host's policy)."""
    continues: Continuation | None = None
    """The finished job this one continues, whose agent session it resumes (None: none)."""
    review: bool = False
    """The requester asked for a review (`task --review`): the work waits for a person before
    it lands. The owner's `repo set --review` asks it of every job of the repository, whatever
    this says."""
    attempts: list[AttemptSpec] = Field(default_factory=list)
    """Several attempts at the task (`task --agents`, `--attempts`): the job runs none itself,
    its attempts (jobs of their own, numbered by the desk) run side by side (empty: none)."""
    pick_first_passing: bool = False
    """With attempts: the first whose check passes integrates without a person."""
    attempt_of: int = 0
    """This job is an attempt of job `attempt_of`: it waits for that job's pick, not a review
    (0: an ordinary job)."""
    attempt_label: str = ""
    """Its label among the attempts (`a`, `b`, ...)."""
    git_heartbeat_timeout: timedelta = timedelta(seconds=10)
    """How soon a silent git step of the job (its worktree, integration, release, branch push)
    is tried again: the host's CODEDESK_GIT_HEARTBEAT_TIMEOUT."""


class PrepareWorktreeInput(Payload):
    number: int
    repo: str
    start_from: str = ""
    """A branch the new branch starts from (a continuation of a job that kept its branch);
    empty: the clone's HEAD."""
    branch_name: str = ""
    """What the branch is named by in place of the job's number (an attempt's `<job>-<label>`:
    `worker/9-b`); empty: the number."""


class DiscardWorktreeInput(Payload):
    """A job cancelled while its worktree was being cut: remove whatever the cut left."""

    number: int
    repo: str


class Worktree(Payload):
    """A job's worktree: where it is, its branch and the commit it was cut from."""

    path: str
    branch: str
    base: str


class SoFarInput(Payload):
    """At a budget pause: read what the job's branch holds (`branch_so_far`)."""

    number: int
    worktree: Worktree
    report_commits: int = 50


class CutWorktree(Worktree):
    """A worktree just cut, with the repository's set-up in force at the cut.

    `setup` decides whether the job runs its set-up step. None when the cut could not read it (or
    was recorded before it did): the job runs the step, which reads it itself.
    """

    setup: RepoSetup | None = None


class RunAgentInput(Payload):
    number: int
    repo: str
    task: ScrubbedText
    agent_command: str
    worktree: str
    hold_classes: list[str] = Field(default_factory=list)
    hold_tools: list[str] = Field(default_factory=list)
    output_chars: int = 20_000
    execution: int = 1
    """Which run of the agent's step: the job starts it again (2, 3, …) after its host was gone."""
    spend_limit: Decimal | None = None
    """The job's spend limit (the worker's own CODEDESK_JOB_SPEND_LIMIT applies as well)."""
    may_defer: bool = False
    """The job can suspend: a held call nobody answers within the live window is deferred
    (where the CLI can), the agent ends, and the job waits for the approval without it."""
    resume_session: str = ""
    """Resume this session of the agent's CLI (after a suspension) instead of sending the task:
    its hook is asked again for the deferred call."""
    spent_before: Usage | None = None
    """What the job's agent spent in its runs before this one (before a suspension)."""
    message_run: int = 0
    """Which of the job's agent runs this is, for its messages (0: a job of an older version,
    which takes none)."""
    messages: list[JobMessage] = Field(default_factory=list)
    """The job's messages that had not reached the agent when this run was scheduled."""
    messages_through: int = 0
    """The job's last message number then: later ones come by the `agent_inbox` Update."""
    for_messages: bool = False
    """A run for `messages`, which came as (or after) the agent's last run ended: it resumes
    `continue_session` with them as its prompt, or starts over with the task and them."""
    continue_session: str = ""
    """The session of the agent's last run (empty: its CLI named none)."""
    session_from: int = 0
    """The finished job whose agent session `continue_session` is (a continuation's first run:
    the session is copied from that job's folder into this job's home first); 0: this job's."""
    ends_to_suspend: bool = False
    """The job can suspend a CLI that cannot defer a call but resumes its session (codex): a
    held call nobody answers within the live window is refused with a note to stop, the CLI
    is ended with its session kept, and the answer resumes it as a message."""
    held_answer: HoldAnswer | None = None
    """After such a suspension: the settled answer to the call it was ended for, which the
    resumed session reads as its prompt (`held_action` names the call)."""
    held_action: ScrubbedText = ""


class AgentEnd(StrEnum):
    EXITED = "exited"
    TIMED_OUT = "timed_out"
    NOT_STARTED = "not_started"
    FAILED = "failed"
    """It exited 0, but its output says it could not work (e.g. its model was unreachable)."""
    SUSPENDED = "suspended"
    """A held call nobody answered within the live window was deferred: the CLI ended, and its
    session (`session_id`) resumes once approval `deferred_approval` settles."""


class InstructionsUsed(Payload):
    """Which standing instructions the agent had: a name and the text's digest, never the text."""

    name: str
    digest: str
    """`sha256:<hex>` of the text (desk/agents/standing_instructions.py)."""


class AgentResult(Payload):
    """How the agent process ended and the tail of what it printed."""

    end: AgentEnd
    exit_code: int | None = None
    output: ScrubbedText = ""
    output_cut: int = 0
    log_path: str = ""
    attempts: int = 1
    resumed: int = 0
    """Attempts after a crash that resumed the agent CLI's session
    (activities/agent/session/session.py)."""
    started_over: int = 0
    """Attempts after a crash that had no session to resume and ran the task afresh."""
    reason: ScrubbedText = ""
    tool_calls: int = 0
    """Tool calls the agent's hook reported (held or not), counted by the hold channel."""
    confinement: str = ""
    """How the agent ran: "bwrap" (sandboxed) or "none" (unconfined); empty before it ran."""
    instructions: InstructionsUsed | None = None
    """The standing instructions its command was given; None: none (or an older worker)."""
    deferred_approval: str = ""
    """The approval its deferred call waits for (`end` SUSPENDED)."""
    session_id: str = ""
    """The CLI's session: to resume after a suspension (`end` SUSPENDED), and once the job has
    ended, by a continuation."""
    ended_to_suspend: bool = False
    """`end` SUSPENDED by codedesk ending a CLI that cannot defer (codex): its resumed session
    is told the answer as a message, not asked by its hook again."""
    usage: Usage | None = None
    """Tokens and money the agent used, its earlier attempts included; None: an older worker."""
    setup: RepoSetup | None = None
    """The repository's set-up as the agent ended: whether the job runs its check step. None
    when it could not be read (or an older worker): the job runs the step, which reads it."""
    messages_delivered: list[int] = Field(default_factory=list)
    """The numbers of the job's messages this run delivered (also signalled as it did)."""
    message_seam: MessageSeam | None = None
    """How this run delivered them."""
    spend_reached: bool = False
    """codedesk stopped the agent because its spend reached the job's limit (`end` FAILED)."""


class IntegrationStatus(StrEnum):
    INTEGRATED = "integrated"
    NOTHING = "nothing"
    CONFLICT = "conflict"
    REFUSED = "refused"
    WITHDRAWN = "withdrawn"
    FAILED = "failed"


class IntegrationRequest(Payload):
    """A job asks its repository's `Repo` entity to integrate its branch."""

    job_workflow_id: str
    number: int
    repo: str
    worktree: Worktree
    report_commits: int = 50
    report_files: int = 100
    host: str = ""
    """The host that holds the clone, for a `Repo` entity that does not know it yet."""
    git_heartbeat_timeout: timedelta = timedelta(seconds=10)
    """How soon the integration, silent, is tried again (the job's host policy)."""


class WithdrawIntegration(Payload):
    job_workflow_id: str


class IntegrationResult(Payload):
    """What integrating a job's branch did to the clone."""

    status: IntegrationStatus
    reason: ScrubbedText = ""
    reason_kind: ReasonKind | None = None
    """The job's own word when it gave up waiting for the repository (else `reason` says why)."""
    head: str = ""
    commits: list[CommitInfo] = Field(default_factory=list)
    commits_omitted: int = 0
    uncommitted: list[ScrubbedText] = Field(default_factory=list)
    """The agent's uncommitted changes (none of `setup_files`)."""
    setup_files: list[ScrubbedText] = Field(default_factory=list)
    """Untracked files the repository's set-up left, unchanged: not the agent's, not integrated."""
    conflict_files: list[ScrubbedText] = Field(default_factory=list)
    branch_kept: bool = False
    git_state: ScrubbedText = ""


class ReleaseResult(Payload):
    """What became of a job's worktree after it failed, timed out or was cancelled."""

    kept: bool
    output: ScrubbedText = ""
    """The tail of the agent's log, for a report whose agent was stopped before it returned."""
    output_cut: int = 0
    log_path: str = ""
    commits: list[CommitInfo] = Field(default_factory=list)
    commits_omitted: int = 0
    uncommitted: list[ScrubbedText] = Field(default_factory=list)
    git_state: ScrubbedText = ""


class ReleaseWorktreeInput(Payload):
    number: int
    repo: str
    worktree: Worktree
    output_chars: int = 20_000
    report_commits: int = 50
    report_files: int = 100

    @classmethod
    def of(cls, job: JobInput, worktree: Worktree) -> ReleaseWorktreeInput:
        """For the step that releases or discards job `job`'s `worktree`: where, and how much of
        its commits, files and output the report may say."""
        return cls(
            number=job.number,
            repo=job.repo,
            worktree=worktree,
            report_commits=job.report_commits,
            report_files=job.report_files,
            output_chars=job.output_chars,
        )


class JobReport(Payload):
    """The end of a coding job, as every surface renders it."""

    number: int
    repo: str
    task: ScrubbedText = ""
    outcome: JobOutcome
    reason: ScrubbedText = ""
    """Words a step gave (an activity's error, the agent's or the repository's account), or the
    whole reason of a report of an earlier version; every surface shows `report_reason`."""
    reason_kind: ReasonKind | None = None
    """Why the job ended, as data (with `exit_code`, `budget`, `extended_by`, `budget_ceiling`,
    `integration_wait`): surfaces/render/layout/report_reasons.py words it."""
    failure_category: FailureKind = FailureKind.NONE
    exit_code: int | None = None
    budget: timedelta | None = None
    """The work-time budget, in a report of a job stopped past it."""
    budget_ceiling: timedelta | None = None
    """The ceiling long-running mode may extend the budget to, when it extended it."""
    integration_wait: timedelta | None = None
    """How long the job waited for the repository, when it gave up waiting."""
    check: CommandRun | None = None
    """The repository's check after the agent (passed, failed with its tail, timed out)."""
    check_rounds: list[CheckRound] = Field(default_factory=list)
    """When a failed check went back to the agent: each run of the check, and what was sent."""
    branch: str = ""
    worktree: str = ""
    branch_kept: bool = False
    base: str = ""
    head: str = ""
    commits: list[CommitInfo] = Field(default_factory=list)
    commits_omitted: int = 0
    uncommitted: list[ScrubbedText] = Field(default_factory=list)
    setup_files: list[ScrubbedText] = Field(default_factory=list)
    """Untracked files the repository's set-up left in the worktree (not the agent's)."""
    conflict_files: list[ScrubbedText] = Field(default_factory=list)
    output: ScrubbedText = ""
    output_cut: int = 0
    log_path: str = ""
    git_state: ScrubbedText = ""
    agent_attempts: int = 0
    agent_resumed: int = 0
    """Agent attempts after a crash that resumed the CLI's session."""
    agent_started_over: int = 0
    """Agent attempts after a crash that had no session to resume and ran the task afresh."""
    agent_suspended: int = 0
    """Times the agent was suspended for an approval (a deferred held call) and resumed."""
    budget_pauses: list[BudgetPause] = Field(default_factory=list)
    """Each time the job paused at its budget: when, why (time or money), who answered what."""
    tool_calls: int = 0
    """Tool calls the agent's hook reported in its last attempt."""
    confinement: str = ""
    """"bwrap" when the agent ran sandboxed, "none" when it ran unconfined."""
    instructions: InstructionsUsed | None = None
    """The standing instructions the agent had; None when its command took none."""
    usage: Usage | None = None
    """Tokens and money the agent used, every attempt added; None: not known."""
    held_calls: list[HeldCall] = Field(default_factory=list)
    """Calls a person declined or withdrew, or that nobody answered."""
    held_calls_omitted: int = 0
    yolo_approved: list[HeldCall] = Field(default_factory=list)
    """Held calls yolo mode approved without a card."""
    yolo_approved_omitted: int = 0
    extended_by: timedelta = timedelta(0)
    """Work past the budget that long-running mode allowed."""
    ship_requests: list[ShipRequestResult] = Field(default_factory=list)
    """The agent's approved pushes to the default branch: the push asked for, or why not."""
    branch_pushes: list[BranchPushResult] = Field(default_factory=list)
    """The agent's approved pushes to other branches, which codedesk made (or why not)."""
    started_at: datetime | None = None
    finished_at: datetime | None = None
    session_id: str = ""
    """The agent CLI's session (empty: its CLI named none), which a continuation resumes."""
    session_kept_until: datetime | None = None
    """When the desk removes the agent's session (`SessionKeep`); None: nothing was kept."""
    continues: int = 0
    """The finished job this one continues (0: none)."""
    continued_anew: bool = False
    """The job it continues had no session left: its agent started a new one, with that job's
    task and the message."""
    session_removed_at: datetime | None = None
    """When its `SessionKeep` removed the session: filled in by the surfaces that read it
    (surfaces/clients/conversation/session_keeps.py), never by the job."""
    messages: list[JobMessage] = Field(default_factory=list)
    """The messages people sent the agent, in order, with when and how each reached it (a
    report keeps the first REPORT_MESSAGES, each text cut to `report_held_chars`)."""
    messages_omitted: int = 0
    review_rounds: list[ReviewRound] = Field(default_factory=list)
    """The job's review (issue 46), round by round: the check, who answered, what they asked."""
    attempts: Attempts | None = None
    """A job of several attempts (issue 48): each attempt's row, and the pick."""
    attempt_of: int = 0
    """This job was an attempt of job `attempt_of` (0: an ordinary job)."""


class JobStatus(Payload):
    """What a job's `status` query answers while it runs and after."""

    number: int
    repo: str
    task: ScrubbedText = ""
    requester: str = ""
    phase: JobPhase = JobPhase.STARTING
    branch: str = ""
    worktree: str = ""
    report: JobReport | None = None
    host: str = ""
    waiting_for_host: str = ""
    """The host whose worker the job waits for now (empty while it has one)."""
    modes: JobModes = Field(default_factory=JobModes)
    """What the job's scopes say now (its own switch, else its channel's, else the desk's)."""
    following: list[str] = Field(default_factory=list)
    """The modes the job follows now (none unless its starter is an owner)."""
    suspended_for: ScrubbedText = ""
    """While the job is suspended: the held call whose approval it waits for (one line)."""
    suspensions: int = 0
    """How many times the job's agent was suspended for an approval, and resumed."""
    budget_pauses: list[BudgetPause] = Field(default_factory=list)
    """Each time the job paused at its budget and asked a person, and the answer."""
    messages: list[JobMessage] = Field(default_factory=list)
    """The job's conversation so far: every message people sent its agent, whole."""
    late_approvals: list[str] = Field(default_factory=list)
    """Approvals approved after the hook that asked gave up, not used yet by an identical call
    (`codedesk withdraw` finds them here)."""
    check_rounds: list[CheckRound] = Field(default_factory=list)
    """The runs of the repository's check so far, once a failed one went back to the agent."""
    review_rounds: list[ReviewRound] = Field(default_factory=list)
    """The job's review so far (the last round waits while the phase is `review`)."""
    check: CommandRun | None = None
    """The check's end on the work waiting for review (None: none ran yet, or no check)."""
    attempts: Attempts | None = None
    """A job of several attempts: each attempt's row as its news came, and the pick."""


# The desk


class DeskLimits(Payload):
    """How many jobs run and wait; sent by each worker when it starts."""

    max_workers: int = 4
    max_queued: int = 16
    reclaim_interval: timedelta = timedelta(seconds=30)
    history_limit: int = 0
    """Continue as new past this many history events (0: when Temporal suggests it)."""
    host: str = ""
    """The host of the worker that sent these limits (empty: an older worker)."""
    shelf: str = ""
    others_polling: bool = False
    """Another worker of this host polled when this one started (so they must share a shelf)."""
    policy: HostPolicy | None = None
    """The worker's host policy (None: an older worker, which leaves the desk's as it is)."""


class HostRecord(Payload):
    """A host as the desk knows it: what its workers said when they started."""

    name: str
    shelf: str = ""
    slots: int = 4
    seen_at: datetime | None = None


class DeskState(Payload):
    """The `Desk` entity's state, carried across continue-as-new."""

    last_number: int = 0
    limits: DeskLimits = Field(default_factory=DeskLimits)
    running: list[int] = Field(default_factory=list)
    queue: list[int] = Field(default_factory=list)
    reclaimed: int = 0
    hosts: dict[str, HostRecord] = Field(default_factory=dict)
    repo_hosts: dict[str, str] = Field(default_factory=dict)
    """Which host holds each repository's clone."""
    job_hosts: dict[int, str] = Field(default_factory=dict)
    """The host of each running or waiting job: slots are counted per host."""
    suspended: list[int] = Field(default_factory=list)
    """Jobs whose agent is suspended for an approval: they hold no slot until they resume, and
    then go to the head of their host's queue."""
    modes: ModeBoard = Field(default_factory=ModeBoard)
    """Every scope's yolo and long-running switches, and who made them."""
    admitted: dict[str, int] = Field(default_factory=dict)
    """The job number given to each recent submission's request id, oldest first (bounded):
    a submission asked again, also after a continue-as-new, gets its first number back."""
    policy: HostPolicy | None = None
    """The host policy every job is judged by: the newest a worker sent (None: none yet)."""
    day_spend: DaySpend = Field(default_factory=DaySpend)
    """What the desk's finished jobs spent today (UTC), as each job's `job_ended` said."""


class RepoPlacement(Payload):
    """`repo add` asks the desk to record that `repo`'s clone is on `host`."""

    repo: str
    host: str


class AdmitInput(Payload):
    """A job to number and admit; `job.number` is filled in by the desk."""

    job: JobInput
    request_id: str = ""
    """The submission's own id, the same on each try: a repeat gets the first admission."""
    ask: JobAsk = Field(default_factory=JobAsk)
    """What the requester asks of the host's policy (stricter only); `job`'s own policy fields
    are replaced by the host's."""


class Admission(Payload):
    """The desk's answer: the job's number and, when it waits, its place in the queue."""

    number: int
    position: int = 0
    """0 when the job runs now; 1 for the head of the queue."""
    running: int = 0
    queued: int = 0
    host: str = ""
    """The host the job runs on (empty when the desk knows no hosts)."""
    day_limit: DayLimitReached | None = None
    """Why the job waits although a slot may be free: the desk's daily spend limit is reached,
    and it starts on the next UTC day (None: it does not wait for that)."""


class AdmissionCheck(Payload):
    """What the desk asks the worker's host before it numbers a job."""

    repo: str
    agent_command: str
    host: str = ""
    """The host the desk records for the repository; another host's shelf is not checked here."""
    continues: int = 0
    """The finished job this one continues (0: none): only its starter or an owner may."""
    starter: str = ""
    """Who submits the job (a principal id)."""
    owners: list[str] = Field(default_factory=list)
    """The host's owners now (the desk's host policy): they may continue any job, as the
    owners the continued job recorded may."""


class AdmissionVerdict(Payload):
    """Empty when the job may run; else why not, and the wire name of the error that says so."""

    refusal: str = ""
    kind: str = ""


class HostReportInput(Payload):
    """`codedesk doctor`'s question to a worker's host."""

    agent_command: str = ""
    """The configured agent command, whose program must be on the host's PATH."""


class HostReport(Payload):
    """A worker's host as `codedesk doctor` shows it."""

    host: str = ""
    git: str = ""
    git_problem: str = ""
    agent_program: str = ""
    agent_path: str = ""
    programs: dict[str, str] = Field(default_factory=dict)
    """Each preset's program and where it is on the host's PATH ("" when missing)."""
    preset_versions: dict[str, str] = Field(default_factory=dict)
    """Each installed preset's version, as its program says (`--version`)."""
    preset_problems: dict[str, str] = Field(default_factory=dict)
    """What is wrong with each preset on the host: missing, untested, older than proven."""
    preset_sandbox: dict[str, str] = Field(default_factory=dict)
    """What each installed preset lacks to start (`--version`) in the agent's sandbox ("":
    nothing), for the presets checked there (none where agents run unconfined)."""
    sandbox: str = ""
    sandbox_status: str = "skip"
    """ok (confined), warn (agents run unconfined), fail (the probe refuses), skip (no probe)."""
    imports: dict[str, str] = Field(default_factory=dict)
    """Each of codedesk's top-level packages and the folder it is imported from."""


class JobEnded(Payload):
    number: int
    cost: Decimal | None = None
    """What the job's agent spent in US dollars, every run added (None: not known, or none ran);
    the desk adds it to the day's total."""


class JobSuspends(Payload):
    """A job's agent is suspended for an approval: its slot is free until it resumes."""

    number: int


class JobResumes(Payload):
    """A suspended job's approval settled: it wants a slot again, ahead of the queue."""

    number: int


class JobAdmitted(Payload):
    number: int
    day_left: Decimal | None = None
    """What is left of the desk's daily spend limit: the job's own limit is at most this (None:
    the desk has no daily limit)."""


class RunningJobsInput(Payload):
    numbers: list[int] = Field(default_factory=list)


class HostPolicyQuery(Payload):
    """A workflow asks for the desk's host policy (see `DeskActivities.host_policy`)."""

    purpose: str = ""


class RunningJobs(Payload):
    """Which of the asked-about jobs still have a running workflow."""

    numbers: list[int] = Field(default_factory=list)
