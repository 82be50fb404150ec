"""The live seams: messages handed to a running agent, on its standard input or in its file.

Claude Code with streaming input (`StdinFeed`) reads one JSON user message a line: the first
holds the task (or the prompt of a resumed session) and the messages it starts with; each later
one is a message the job handed over, which the CLI reads at the model's next step (after the
tool that runs now) or, once a turn has ended, as a turn of its own. It says each message it
takes into its conversation (`--replay-user-messages`): only then has the message reached the
agent. Two rules keep its deferred calls sound (a suspension resumes the call the hook
deferred, and a message the CLI holds unread when a turn defers would be answered first, in the
turn that should resume the call): no message is written while a held call waits (it may be
deferred; the message goes after it), and the hold channel defers no call while a written
message is unread (`unread`). At a turn's end the input is closed, which ends the CLI once it
has answered whatever it holds, unless messages wait to be written: they start another turn.

A command agent (`FileFeed`) reads its messages from the file `CODEDESK_MESSAGES` names, one
JSON object a line, appended as they come; a line written is a message delivered.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from temporalio.client import Client

from activities.agent.session.agent_messages import Conversation, file_line, in_file, inbox
from desk.agents.message_seams import sender
from desk.payloads.message_payloads import InboxAsk, JobMessage

HOLD_LOOK = 0.1
"""Seconds between two looks at whether a held call still waits, while a message waits for it."""


def user_event(texts: list[str]) -> bytes:
    """One user message of Claude Code's streaming input, a text block each."""
    content = [{"type": "text", "text": text} for text in texts]
    event = {"type": "user", "message": {"role": "user", "content": content}}
    return (json.dumps(event, ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class StdinFeed:
    """Claude Code's streaming input, written by the worker."""

    def __init__(
        self,
        fd: int,
        talk: Conversation,
        holds_waiting: Callable[[], int],
        note: Callable[[str], None],
    ) -> None:
        self.fd = fd
        self.talk = talk
        self.holds_waiting = holds_waiting
        self.note = note
        self.waiting: list[JobMessage] = []
        """Handed over by the job, not written yet."""
        self.unread: dict[int, JobMessage] = {}
        """Written, not taken into the conversation yet."""
        self.closed = False
        self.until_turn_end = False
        """Write nothing before the first turn ends (a resumed deferral: its turn resumes the
        deferred call first)."""
        self._ended = False
        self._lock = asyncio.Lock()
        self._wake = asyncio.Event()
        self._pump = asyncio.create_task(self._pumping())

    async def open_with(self, texts: list[str], messages: list[JobMessage]) -> None:
        """The first user message: `texts` (the task, or a resumed session's prompt) and
        `messages`; none at all when both are empty."""
        if texts or messages:
            async with self._lock:
                await self._write([*texts, *map(self.talk.text, messages)], messages)

    def offer(self, messages: list[JobMessage]) -> None:
        """Messages the job handed over: written as soon as the CLI may have them."""
        known = {*self.unread, *(message.seq for message in self.waiting), *self.talk.delivered}
        self.waiting += [message for message in messages if message.seq not in known]
        self._wake.set()

    def closing(self) -> None:
        """The CLI has ended: write nothing more (a process it left may hold the pipe open)."""
        self.until_turn_end = True
        self._ended = True

    def may_defer(self) -> bool:
        """Whether a held call may be deferred now: no written message is unread."""
        return not self.unread

    def taken(self, texts: list[str]) -> None:
        """The CLI took these user texts into its conversation."""
        for text in texts:
            for seq in self.talk.found_in(text, list(self.unread.values())):
                message = self.unread.pop(seq)
                if self.talk.reached([seq]):
                    self.note(f"codedesk: message {seq} from {sender(message)} reached the agent")

    async def turn_ended(self, deferred: bool) -> None:
        """A turn ended (a `result`): close the input, unless messages wait to be written and
        the turn did not defer a call (then they start a turn of their own)."""
        self.until_turn_end = False
        async with self._lock:
            if self.waiting and not deferred and not self.closed:
                batch, self.waiting = self.waiting, []
                await self._write([self.talk.text(message) for message in batch], batch)
                return
            self._close()

    async def close(self) -> None:
        """Close the input (the CLI ends once it has answered what it holds)."""
        self._pump.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._pump
        async with self._lock:
            self._close()

    async def _pumping(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self.waiting and not self.closed and not self.until_turn_end:
                if self.holds_waiting():  # it may be deferred: the message goes after it
                    await asyncio.sleep(HOLD_LOOK)
                    continue
                async with self._lock:
                    batch, self.waiting = self.waiting, []
                    await self._write([self.talk.text(message) for message in batch], batch)

    async def _write(self, texts: list[str], messages: list[JobMessage]) -> None:
        """Write one user message (under the lock); a closed input leaves them undelivered."""
        if self.closed or self._ended:
            return
        try:
            await asyncio.to_thread(_write_all, self.fd, user_event(texts))
        except OSError:  # the CLI has gone: what it did not take stays for the job's next run
            self._close()
            return
        for message in messages:
            self.unread[message.seq] = message
        self.talk.handed(message.seq for message in messages)

    def _close(self) -> None:
        if not self.closed:
            self.closed = True
            os.close(self.fd)


class FileFeed:
    """A command agent's messages file: each message a line, appended once."""

    def __init__(self, path: Path, talk: Conversation, note: Callable[[str], None]) -> None:
        self.path = path
        self.talk = talk
        self.note = note
        self.ended = False

    def closing(self) -> None:
        """The agent has ended: a line appended now would be read by nobody."""
        self.ended = True

    def offer(self, messages: list[JobMessage]) -> None:
        """Append the messages the file does not hold yet; each is delivered then."""
        if self.ended:
            return
        present = in_file(self.path)
        with self.path.open("a", encoding="utf-8") as file:
            for message in messages:
                if message.seq not in present:
                    file.write(file_line(message))
        for message in messages:
            if self.talk.reached([message.seq]):
                self.note(f"codedesk: message {message.seq} from {sender(message)} is in the file")


Feed = StdinFeed | FileFeed


@contextlib.asynccontextmanager
async def following(
    client: Client,
    number: int,
    ask: InboxAsk,
    feed: Feed,
    keep: Callable[[list[JobMessage]], list[JobMessage]],
) -> AsyncIterator[asyncio.Task[None]]:
    """Hand the feed each message the job gives the run (its inbox) that `keep` keeps, for the
    block's duration."""

    async def follow() -> None:
        async for messages in inbox(client, number, ask):
            feed.talk.learn(messages)
            feed.offer(keep(messages))

    task = asyncio.create_task(follow())
    try:
        yield task
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
