"""Threads closed to the bot: archived and locked where it may not reopen them.

Discord archives an idle thread, and a moderator may lock one; reopening a locked thread takes
Manage Threads. A bot without it cannot edit the job's progress there any more, nor post its
report. `ClosedThreads` remembers each such thread (in this bot process) until the job's report,
which then says so. A report the thread itself refuses goes to the direct messages of the person
who asked for the job, saying why, and never to another channel, where people the requester did
not choose would read their repository's work; when they cannot be reached either, it is not
shown on Discord, and the bot's log says why (`codedesk show N` has it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

CLOSED_NOTE = (
    "codedesk could not reopen this job's thread (archived and locked): it lacks Manage "
    "Threads there, so the thread stopped showing the job's progress. Give the bot Manage "
    "Threads (`codedesk doctor` checks its permissions)."
)


def direct_note(thread_id: int) -> str:
    """What a report sent to its requester's direct messages says: why it is not in <#thread>."""
    return (
        f"This is the report of the job you asked for in <#{thread_id}>, which refused it: the "
        "thread is locked and the bot lacks Manage Threads, or it lacks Send Messages in "
        "Threads there. It comes to you here, never to another channel. Give the bot both "
        "(`codedesk doctor` checks its permissions)."
    )


@dataclass
class ClosedThreads:
    """The threads this bot found closed to it, by channel id."""

    closed: set[int] = field(default_factory=set)

    def note(self, channel_id: int) -> None:
        self.closed.add(channel_id)

    def note_of(self, channel_id: int) -> str:
        """What the job's report says of its thread: the note, or nothing."""
        return CLOSED_NOTE if channel_id in self.closed else ""

    def forget(self, channel_id: int) -> None:
        """The report is posted: a retried report step must not lose the note before."""
        self.closed.discard(channel_id)
