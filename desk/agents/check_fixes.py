"""What the agent reads when the repository's check failed on its work and goes back to it."""

from __future__ import annotations

from desk.holds.approvals import Principal
from desk.records.repo_setup import CheckStatus, CommandRun

CHECK_SENDER = Principal(id="codedesk:check", name="codedesk check")
"""Who sends a failed check to the agent, in the job's conversation."""
CHECK_SURFACE = "check"
"""Where such a message comes from, as a message's `surface` says."""


def check_fix_message(check: CommandRun) -> str:
    """The message that sends a failed check's tail to the agent."""
    if check.status == CheckStatus.TIMED_OUT:
        how = "timed out"
    else:
        how = "failed" + (f" (exit {check.exit_code})" if check.exit_code is not None else "")
    return f"The repository's check `{check.command}` {how}:\n{check.tail}\nFix it and commit."
