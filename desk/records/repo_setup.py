"""A repository's worktree set-up and check, set by the owner and kept in its `Repo` entity."""

from __future__ import annotations

from enum import StrEnum
from pathlib import PurePosixPath

from pydantic import Field

from desk.errors import SetupError
from desk.records.base import Payload, ScrubbedText

CHECK_RETRIES = 2
"""How many times a failed check goes back to the agent unless the owner says otherwise."""
CHECK_RETRIES_MAX = 10
"""The most an owner may set (`repo set --check-retries`)."""


class RepoSetup(Payload):
    """Host policy: never read from the repository's own files.

    `copy` names files of the clone (relative to its top) copied into each new worktree and
    kept out of git; `setup` runs in the worktree before the agent, `check` after it.
    """

    setup: str = ""
    copy_files: list[str] = Field(default_factory=list)
    check: str = ""
    check_blocks: bool = True
    """Whether a failed or timed-out check keeps the work from being integrated."""
    pull_requests: bool = False
    """Ship every push of this repository as a pull request (`codedesk push --pr` for each)."""
    check_retries: int = CHECK_RETRIES
    """How many times a blocking check that failed goes back to the agent (its tail sent to the
    agent's session, the agent works again, the check runs again) before the job reports it."""
    review: bool = False
    """Every job's work waits for a person's review before it lands (`repo set --review`)."""

    def empty(self) -> bool:
        return not (
            self.setup or self.copy_files or self.check or self.pull_requests or self.review
        )

    def sets_up(self) -> bool:
        """Whether a new worktree gets anything before the agent: files or a command."""
        return bool(self.setup or self.copy_files)


class SetRepoSetup(Payload):
    """The owner's change: fields left None keep their value; `clear` empties all first."""

    repo: str
    setup: str | None = None
    copy_files: list[str] | None = None
    check: str | None = None
    check_blocks: bool | None = None
    pull_requests: bool | None = None
    check_retries: int | None = None
    review: bool | None = None
    clear: bool = False

    def applied_to(self, current: RepoSetup) -> RepoSetup:
        """The set-up after this change, its copied paths checked (`SetupError` if bad)."""
        base = RepoSetup() if self.clear else current
        copied = base.copy_files if self.copy_files is None else self.copy_files
        return RepoSetup(
            setup=base.setup if self.setup is None else self.setup.strip(),
            copy_files=[copy_path(path) for path in copied],
            check=base.check if self.check is None else self.check.strip(),
            check_blocks=base.check_blocks if self.check_blocks is None else self.check_blocks,
            pull_requests=base.pull_requests if self.pull_requests is None else self.pull_requests,
            check_retries=(
                base.check_retries
                if self.check_retries is None
                else check_retries(self.check_retries)
            ),
            review=base.review if self.review is None else self.review,
        )


def check_retries(rounds: int) -> int:
    """`rounds` as the times a failed check goes back to the agent, or `SetupError` when it is
    out of range."""
    if not 0 <= rounds <= CHECK_RETRIES_MAX:
        raise SetupError(
            f"--check-retries {rounds} is out of range: give 0 to {CHECK_RETRIES_MAX} (how many "
            f"times a failed check goes back to the agent; 0 reports it at once, the default is "
            f"{CHECK_RETRIES})."
        )
    return rounds


def copy_path(path: str) -> str:
    """`path` as a clean path inside the clone, or `SetupError` when it could escape it."""
    pure = PurePosixPath(path)
    if not path or pure.is_absolute() or ".." in pure.parts or pure.parts[:1] == (".git",):
        raise SetupError(
            f"Cannot copy {path!r} into worktrees: name a file inside the clone, relative to "
            "its top, without '..' and outside .git (for example `--copy .env`)."
        )
    return str(pure)


class CheckStatus(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    TIMED_OUT = "timed_out"


class WorktreeStepInput(Payload):
    """One set-up or check step of a job's worktree."""

    number: int
    repo: str
    worktree: str
    clone: str = ""
    output_chars: int = 2000


class CommandRun(Payload):
    """A set-up or check command's end in the sandbox: its tail, scrubbed and capped."""

    command: str
    status: CheckStatus
    exit_code: int | None = None
    output: ScrubbedText = ""
    output_cut: int = 0
    blocks: bool = True
    """A check's: whether its failure keeps the work from being integrated (owner's setting)."""
    retries: int = 0
    """A check's: how many times its failure goes back to the agent (owner's setting)."""
    tail: ScrubbedText = ""
    """A failed check's words for its agent: its output scrubbed and cut as a failure quotes a
    command's words (CODEDESK_DIAGNOSTIC_CHARS)."""

    def blocking(self) -> bool:
        """Whether this check's end keeps the work from being integrated."""
        return self.blocks and self.status != CheckStatus.PASSED


class CheckRound(Payload):
    """One run of the repository's check in a job whose failed check went back to its agent."""

    round: int
    """1 for the check after the agent's first run, one more after each fix."""
    command: str
    status: CheckStatus
    exit_code: int | None = None
    sent: ScrubbedText = ""
    """The message the agent's session was sent to fix it; empty for the last round."""
    message_seq: int = 0
    """That message's number in the job's conversation (0: none was sent)."""


class WorktreeSetUp(Payload):
    """What the set-up step did: the set-up in force, the files copied, the command's end."""

    setup: RepoSetup = Field(default_factory=RepoSetup)
    copied: list[str] = Field(default_factory=list)
    ran: CommandRun | None = None
    refusal: ScrubbedText = ""
    """Why nothing more was done (a file that cannot be copied); empty when all was done."""
    left: list[ScrubbedText] = Field(default_factory=list)
    """Untracked files the set-up command left in the worktree (activities/setup/left_files.py):
    not the agent's uncommitted changes."""

    def failed(self) -> str:
        """Why the job cannot go on, or empty."""
        if self.refusal:
            return self.refusal
        if self.ran is not None and self.ran.status != CheckStatus.PASSED:
            how = "timed out" if self.ran.status == CheckStatus.TIMED_OUT else "failed"
            code = f" (exit {self.ran.exit_code})" if self.ran.exit_code is not None else ""
            return f"The worktree set-up `{self.ran.command}` {how}{code}: {self.ran.output}"
        return ""
