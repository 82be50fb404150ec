"""Typed errors of codedesk, one tree under DeskError.

DeskError
├── SettingsError           a setting has a bad value (names the setting)
├── RepoNameError           not owner/repo, a dot-leading owner, a path escape
├── RemoteUrlError          a clone source with user info, a query, a fragment or a bad scheme
├── ShelfError              the shelf cannot do what was asked
│   ├── CloneExistsError    the clone is already on the shelf
│   ├── CloneMissingError   no clone of that repository on the shelf
│   ├── WorktreeDiscardedError  the job was cancelled: its worktree is not cut any more
│   └── GitError            git failed; its message is scrubbed of credentials
│       └── GitBusyError    git failed for a reason that passes (a held lock, a busy file,
│                           a dropped connection): retried, unlike every other desk error
├── AgentCommandError       the agent command is empty or cannot be split
├── SandboxError            the agent's sandbox cannot be set up as the settings ask
├── DurationError           a duration like "10m" could not be read
├── ServerError             the Temporal server cannot be reached or started
│   ├── NoWorkerError       the server answers, but no codedesk worker polls the task queue
│   └── DeskSilentError     the desk gave no answer to a submission, asked again and again
├── JobNotFoundError        no job with that number
├── QueueFullError          the desk runs and queues all the jobs it may
├── ApprovalNotFoundError   no open approval matches the id given
├── HoldError               `codedesk hold` cannot decide (bad request, no job, no server)
├── ShaError                not a full commit SHA
├── ShipRefusal             the clone or remote is not fit to report or push; nothing changed
├── RepoBusyError           the repository is integrating, reporting or pushing now
├── HostError               a host name is bad, unknown, has no worker, or is claimed twice
└── ModeError               a mode, value or scope that does not exist; nothing was switched
    ├── ModeRefusedError    the switch's asker is not an owner (the refusal is recorded)
    └── JobFinishedError    the switch names a job that has finished

Every message is a full sentence that says what went wrong and what to do. Activities turn
these into `ApplicationError`s whose `type` is the class name, so a surface can show the message
as it is; all are non-retryable except `GitBusyError`, which Temporal retries.
"""

from __future__ import annotations


class DeskError(Exception):
    """Root of every error codedesk raises on purpose."""


class SettingsError(DeskError):
    """A setting has a value codedesk cannot use."""


class RepoNameError(DeskError):
    """A repository name is not a safe owner/repo."""


class RemoteUrlError(DeskError):
    """A clone source is not a URL or path codedesk will use."""


class ShelfError(DeskError):
    """The shelf cannot do what was asked."""


class CloneExistsError(ShelfError):
    """The repository is already cloned on the shelf."""


class CloneMissingError(ShelfError):
    """The repository is not on the shelf."""


class WorktreeDiscardedError(ShelfError):
    """The job was cancelled while its worktree was being cut: no worktree is cut for it now."""


class GitError(ShelfError):
    """A git command failed."""


class GitBusyError(GitError):
    """A git command failed for a passing reason (a held lock, a busy file); a retry may pass."""


class AgentCommandError(DeskError):
    """The agent command cannot be run as given."""


class SandboxError(DeskError):
    """The agent's sandbox cannot be set up as the settings ask."""


class DurationError(DeskError):
    """A duration could not be read."""


class ServerError(DeskError):
    """The Temporal server cannot be reached or started."""


class NoWorkerError(ServerError):
    """The server answers, but no codedesk worker polls the desk's task queue."""


class DeskSilentError(ServerError):
    """The desk gave a submission no answer in time, though it was asked again with its id."""


class JobNotFoundError(DeskError):
    """No job has that number."""


class QueueFullError(DeskError):
    """The desk's slots and queue are full."""


class ApprovalNotFoundError(DeskError):
    """No open approval matches what was given."""


class HoldError(DeskError):
    """`codedesk hold` cannot decide, so the call may not run."""


class ShaError(DeskError):
    """Not a full commit SHA."""


class ShipRefusal(DeskError):
    """The clone or its remote is not fit to report or push; nothing was changed."""


class RepoBusyError(DeskError):
    """The repository's clone is busy with an integration, a report or a push."""


class HostError(DeskError):
    """A host name is not usable, is unknown, has no worker polling, or is claimed twice."""


class PolicyError(DeskError):
    """A request asks for something looser than the host's policy allows; nothing was done."""


class ModeError(DeskError):
    """A mode switch names a mode, value or scope that does not exist; nothing was switched."""


class ModeRefusedError(ModeError):
    """Only owners switch modes; the refused switch is recorded at the desk."""


class JobFinishedError(ModeError):
    """A mode switch names a job that has finished."""


NON_RETRYABLE_ERROR_TYPES: tuple[str, ...] = (
    "SettingsError",
    "RepoNameError",
    "RemoteUrlError",
    "ShelfError",
    "CloneExistsError",
    "CloneMissingError",
    "GitError",
    "AgentCommandError",
    "ShipRefusal",
    "PolicyError",
)
"""Error types an activity raises that a retry cannot fix; named in every RetryPolicy."""


EXPECTED_REFUSALS: tuple[type[DeskError], ...] = (
    SettingsError,
    RepoNameError,
    RemoteUrlError,
    CloneExistsError,
    CloneMissingError,
    WorktreeDiscardedError,
    AgentCommandError,
    ShipRefusal,
    RepoBusyError,
    PolicyError,
)
"""Refusals that answer a request as designed: logged as benign, never as a fault."""


def desk_error(type_name: str | None, message: str) -> DeskError:
    """Rebuild the desk error an activity raised from its failure's type name and message."""
    known: dict[str, type[DeskError]] = {DeskError.__name__: DeskError}
    pending: list[type[DeskError]] = [DeskError]
    while pending:
        for subclass in pending.pop().__subclasses__():
            known[subclass.__name__] = subclass
            pending.append(subclass)
    return known.get(type_name or "", DeskError)(message)
