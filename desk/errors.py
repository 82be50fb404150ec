"""Typed errors of codedesk, one tree under DeskError, each with its name on the wire.

DeskError
├── SettingsError           a setting has a bad value (names the setting)
├── RepoNameError           not owner/repo, a dot-leading owner, a path escape             ~
├── RemoteUrlError          a clone source that is no URL or path, or has user info       ~
├── ShelfError              the shelf cannot do what was asked
│   ├── CloneExistsError    the clone is already on the shelf                              ~
│   ├── CloneMissingError   no clone of that repository on the shelf                       ~
│   ├── AdoptionError       a folder cannot be taken onto the shelf as is: nothing moved   ~
│   ├── WorktreeDiscardedError  the job was cancelled: its worktree is not cut any more    ~
│   ├── SetupError          a worktree set-up file escapes the clone, is a symlink or missing ~
│   ├── GitDirEscapeError   a clone's git directory is outside the clone                   ~
│   └── GitError            git failed; its message is scrubbed of credentials
│       └── GitBusyError    git failed for a reason that passes (a held lock, a busy file,   R
│                           a dropped connection)
├── AgentCommandError       the agent command is empty or cannot be split                  ~
├── InstructionsError       the owner's agent instructions are unreadable or lack a required part
├── StaleAgentAttemptError  "StaleAgentAttempt": a later attempt already started the agent  R
├── SandboxError            the agent's sandbox cannot be set up as the settings ask
├── DurationError           a duration like "10m" could not be read                        ~
├── ServerError             the Temporal server cannot be reached or started               R
│   ├── NoWorkerError       the server answers, but no codedesk worker polls the task queue R
│   └── DeskSilentError     the desk gave no answer to a submission, asked again and again R
├── JobNotFoundError        no job with that number                                        ~
├── JobExistsError          "JobExists": the job's workflow id is taken (numbering reset)
├── QueueFullError          "QueueFull": the desk runs and queues all the jobs it may       ~
├── AdmissionCheckFailedError  "AdmissionCheckFailed": no worker could check a new job
├── ApprovalNotFoundError   no open approval matches the id given                          ~
├── ApprovalSettledError    "ApprovalSettled": the approval was answered or withdrawn     ~
├── HoldError               `codedesk hold` cannot decide (bad request, no job, no server)
├── ShaError                not a full commit SHA                                          ~
├── ShipRefusal             the clone or remote is not fit to report or push; nothing changed ~
├── ShipFailedError         "ShipFailed": a report's or push's git step failed, not refused
├── ForgeError              the forge CLI (gh) is missing or not logged in; nothing pushed ~
├── ForgeCallError          "ForgeCall": a gh call failed or gave no answer; tried again   R
├── ResultHookError         a result hook did not take a result; tried again for a while   R
├── RepoBusyError           the repository is integrating, reporting or pushing now        ~
│                           (read also as "RepoBusy", its name from a repository entity)
├── RepoBusyWaitError       "RepoBusyWait": the same, while a job's ship request waits     R
├── HostError               a host name is bad, unknown, has no worker, or is claimed twice
├── PolicyError             an ask looser than the host's policy allows; nothing was done  ~
│   └── DailySpendLimitError  the desk's jobs spent the day's limit; new tasks refused     ~
├── ChatPlaceError          a chat command came from where codedesk cannot post; no job    ~
├── ModeError               a mode, value or scope that does not exist; nothing switched   ~
│   ├── ModeRefusedError    the switch's asker is not an owner (the refusal is recorded)   ~
│   └── JobFinishedError    the switch names a job that has finished                       ~
├── MessageError            a message the job cannot take (empty); nothing was kept        ~
│   ├── MessageSenderError  its sender is neither the job's requester nor an owner         ~
│   ├── MessageTooLongError  it is longer than the host's cap (the limit named)            ~
│   └── AgentDoneError      the job's agent has finished its work: what to do instead      ~
├── ReviewError             a review answer the job does not take: not in review, a sender ~
│   │                       who may not, or an integration a blocking check forbids
│   ├── ReviewAnsweredError  another answer came first (it is named)                       ~
│   └── PickError           a pick among attempts the job does not take (why, what to pick)  ~
├── BudgetPauseError        a `finish` for a job not at its budget card, or from someone who ~
│                           may not answer it
└── InboxClosedError        an agent run's step asked for messages once its run was over   ~

R: retryable, Temporal retries it; every other desk error fails at once. ~: an expected
refusal (a person's mistake or a state that refuses them), sent as benign: the worker logs it
in one line, without a traceback (workers/refusal_log.py). A name in quotes is the
error's wire name; every other error's wire name is its class name.

Each class declares these in its header (`class GitBusyError(GitError, retryable=True)`), and
subclasses inherit retryable and benign. The wire name is the `type` of the `ApplicationError`
that carries the error through Temporal, from an activity or a workflow alike
(`desk.failures.failure_of`); a surface turns it back into the class by that name
(`desk.failures.error_of`). Wire names are never renamed: recorded histories and running
deployments carry them; a name the class once had stays readable in `also`.

Every message is a full sentence that says what went wrong and what to do, so a surface can
show it as it is.
"""

from __future__ import annotations

from typing import ClassVar


class DeskError(Exception):
    """Root of every error codedesk raises on purpose.

    Class keywords: `wire` (the `ApplicationError` type; default the class name), `retryable`
    (Temporal may retry it; inherited, default False), `benign` (an expected refusal, logged
    without a traceback; inherited, default False), `also` (older wire names still read).
    """

    wire: ClassVar[str] = "DeskError"
    retryable: ClassVar[bool] = False
    benign: ClassVar[bool] = False
    also: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(
        cls,
        *,
        wire: str = "",
        retryable: bool | None = None,
        benign: bool | None = None,
        also: tuple[str, ...] = (),
    ) -> None:
        super().__init_subclass__()
        cls.wire = wire or cls.__name__
        cls.also = also
        if retryable is not None:
            cls.retryable = retryable
        if benign is not None:
            cls.benign = benign


class SettingsError(DeskError):
    """A setting has a value codedesk cannot use."""


class RepoNameError(DeskError, benign=True):
    """A repository name is not a safe owner/repo."""


class RemoteUrlError(DeskError, benign=True):
    """A clone source is not a URL or path codedesk will use."""


class ShelfError(DeskError):
    """The shelf cannot do what was asked."""


class CloneExistsError(ShelfError, benign=True):
    """The repository is already cloned on the shelf."""


class CloneMissingError(ShelfError, benign=True):
    """The repository is not on the shelf."""


class AdoptionError(ShelfError, benign=True):
    """A folder cannot be adopted onto the shelf as it is: nothing was moved."""


class WorktreeDiscardedError(ShelfError, benign=True):
    """The job was cancelled while its worktree was being cut: no worktree is cut for it now."""


class SetupError(ShelfError, benign=True):
    """A repository's worktree set-up names a file that cannot be copied: nothing was copied."""


class GitDirEscapeError(ShelfError, benign=True):
    """A clone's git directory (its `.git` a symlink or a `gitdir:` file) is outside the clone:
    codedesk does not work on it."""


class GitError(ShelfError):
    """A git command failed."""


class GitBusyError(GitError, retryable=True):
    """A git command failed for a passing reason (a held lock, a busy file); a retry may pass."""


class AgentCommandError(DeskError, benign=True):
    """The agent command cannot be run as given."""


class InstructionsError(DeskError):
    """The owner's standing instructions for the agent cannot be used: unreadable, empty, too
    long, or without a part codedesk's guards rely on (desk/agents/standing_instructions.py)."""


class StaleAgentAttemptError(DeskError, wire="StaleAgentAttempt", retryable=True):
    """A later attempt of the agent's step has started the agent already: this one does not.

    Retryable: Temporal has already moved on from the stale attempt, so nothing sees it fail.
    """


class SandboxError(DeskError):
    """The agent's sandbox cannot be set up as the settings ask."""


class DurationError(DeskError, benign=True):
    """A duration could not be read."""


class ServerError(DeskError, retryable=True):
    """The Temporal server cannot be reached or started (a passing state: retryable)."""


class NoWorkerError(ServerError):
    """The server answers, but no codedesk worker polls the desk's task queue."""


class DeskSilentError(ServerError):
    """The desk gave a submission no answer in time, though it was asked again with its id."""


class JobNotFoundError(DeskError, benign=True):
    """No job has that number."""


class JobExistsError(DeskError, wire="JobExists"):
    """The workflow id of the job's number is taken (the desk's numbering was reset)."""


class QueueFullError(DeskError, wire="QueueFull", benign=True):
    """The desk's slots and queue are full."""


class AdmissionCheckFailedError(DeskError, wire="AdmissionCheckFailed"):
    """No worker could check a new job (its shelf, its agent, a running push): it is refused."""


class ApprovalNotFoundError(DeskError, benign=True):
    """No open approval matches what was given."""


class ApprovalSettledError(DeskError, wire="ApprovalSettled", benign=True):
    """The approval was answered or withdrawn already: the first answer won."""


class HoldError(DeskError):
    """`codedesk hold` cannot decide, so the call may not run."""


class ShaError(DeskError, benign=True):
    """Not a full commit SHA."""


class ShipRefusal(DeskError, benign=True):
    """The clone or its remote is not fit to report or push; nothing was changed."""


class ResultHookError(DeskError, retryable=True):
    """A result hook did not take a result: it is tried again until the host's window ends."""


class ShipFailedError(DeskError, wire="ShipFailed"):
    """A report's or push's git step failed (it did not refuse): its reason says why."""


class ForgeError(DeskError, benign=True):
    """The forge's CLI (gh) is missing on the clone's host or not logged in: no pull request
    can be opened, and nothing was pushed."""


class ForgeCallError(DeskError, retryable=True, wire="ForgeCall"):
    """A gh call failed or gave no answer: the step is tried again (it finds what it did)."""


class RepoBusyWaitError(DeskError, retryable=True, wire="RepoBusyWait"):
    """The repository is integrating or pushing another job's work: a job's request to ship
    asks for its change report again shortly."""


class RepoBusyError(DeskError, benign=True, also=("RepoBusy",)):
    """The repository's clone is busy with an integration, a report or a push."""


class HostError(DeskError):
    """A host name is not usable, is unknown, has no worker polling, or is claimed twice."""


class PolicyError(DeskError, benign=True):
    """A request asks for something looser than the host's policy allows; nothing was done."""


class DailySpendLimitError(PolicyError):
    """The desk's jobs have spent its daily limit; new tasks are refused until the UTC day ends."""


class ChatPlaceError(DeskError, benign=True):
    """A chat command came from a place codedesk cannot post in: no job was started."""


class ModeError(DeskError, benign=True):
    """A mode switch names a mode, value or scope that does not exist; nothing was switched."""


class ModeRefusedError(ModeError, benign=True):
    """Only owners switch modes; the refused switch is recorded at the desk."""


class JobFinishedError(ModeError):
    """A mode switch names a job that has finished."""


class MessageError(DeskError, benign=True):
    """A message to a job's agent that the job does not take: nothing of it was kept."""


class MessageSenderError(MessageError):
    """Only the job's requester and the host's owners talk to its agent."""


class MessageTooLongError(MessageError):
    """A message longer than the host's `CODEDESK_MESSAGE_CHARS`."""


class AgentDoneError(MessageError):
    """The job's agent has finished its work (the job checks, integrates or has ended): a
    message can no longer reach it."""


class BudgetPauseError(DeskError, benign=True):
    """A `finish` for a job that does not wait at a budget card, or from someone who may not
    answer it."""


class ReviewError(DeskError, benign=True):
    """A review answer the job does not take: nothing was done."""


class ReviewAnsweredError(ReviewError):
    """Another answer to the review came first: first answer wins."""


class PickError(ReviewError):
    """A pick among a job's attempts the job does not take: nothing was done."""


class InboxClosedError(DeskError, benign=True):
    """An agent run's step asked its job for messages once that run was over (an attempt that
    was left behind): it gets none, and stops asking."""


def desk_error_types() -> list[type[DeskError]]:
    """Every class of the tree, the root first, parents before their subclasses."""
    found: list[type[DeskError]] = [DeskError]
    for kind in found:
        found.extend(sub for sub in kind.__subclasses__() if sub not in found)
    return found


def error_types() -> dict[str, type[DeskError]]:
    """Every desk error by each name it has on the wire: its wire name and its older ones."""
    return {name: kind for kind in desk_error_types() for name in (kind.wire, *kind.also)}


def desk_error(type_name: str | None, message: str) -> DeskError:
    """The desk error a failure of `type_name` carried; the root `DeskError` for another type."""
    return error_types().get(type_name or "", DeskError)(message)


NON_RETRYABLE_ERROR_TYPES: tuple[str, ...] = tuple(
    sorted(name for name, kind in error_types().items() if not kind.retryable)
)
"""The wire names a retry cannot fix, from the tree: named in every RetryPolicy that runs desk
code, so a desk error fails at once even where no `desk_failures` boundary marked it."""
