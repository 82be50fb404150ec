"""Threads closed to the bot: archived and locked where it may not reopen them.

Discord archives an idle thread, and a moderator may lock one; reopening a locked thread takes
Manage Threads. A bot without it cannot edit the job's progress there any more, nor post its
report. `ClosedThreads` remembers each such thread (in this bot process) until the job's report,
which then says so, and which is posted in the thread's parent channel when the thread itself
refuses it, so the job's end is never silent.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CLOSED_NOTE = (
    "codedesk could not reopen this job's thread (archived and locked): it lacks Manage "
    "Threads there, so the thread stopped showing the job's progress. Give the bot Manage "
    "Threads (`codedesk doctor` checks its permissions)."
)


@dataclass
class ClosedThreads:
    """The threads this bot found closed to it, by channel id."""

    closed: set[int] = field(default_factory=set)

    def note(self, channel_id: int) -> None:
        self.closed.add(channel_id)

    def take(self, channel_id: int) -> str:
        """What the job's report says of its thread: the note once, or nothing."""
        if channel_id in self.closed:
            self.closed.discard(channel_id)
            return CLOSED_NOTE
        return ""
