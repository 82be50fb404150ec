"""One attempt's messages, from before the agent starts to its end (for `run_agent`).

Before the start: which of the run's messages the CLI's session (or a command agent's file)
holds already, from an earlier attempt (the job is told they were delivered), and the task with
the others after it for a CLI that takes them in its first prompt. At the start: what the
opening delivers. While the agent runs: its live seam, fed from the job's inbox. At its end:
the job told the rest, and the run's result says which messages it delivered and how.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

from temporalio.client import Client

from activities.agent.live_messages import Feed, FileFeed, StdinFeed, following
from activities.agent.messages import (
    MESSAGES_FILE,
    Conversation,
    in_file,
    message_key,
    session_text,
)
from activities.agent.opening import Opening, Start, opening
from activities.agent.stream import ClaudeStream, OutputTranslator
from activities.holds.channel import HoldChannel
from desk.agents.messages import live, task_with_messages
from desk.payloads.jobs import RunAgentInput
from desk.payloads.messages import InboxAsk, JobMessage, MessageSeam

REPLAY = "--replay-user-messages"


class RunMessages:
    """The messages of one attempt of the agent's step."""

    def __init__(
        self,
        client: Client,
        request: RunAgentInput,
        attempt: int,
        folder: Path,
        seam: MessageSeam,
    ) -> None:
        self.client = client
        self.request = request
        self.seam = seam
        self.talking = request.message_run > 0
        key = message_key(folder) if self.talking else b""
        self.talk = Conversation(client, request.number, request.message_run, attempt, key, seam)
        self.file = folder / MESSAGES_FILE if seam == MessageSeam.FILE else None
        self.session = ""
        """What the resumed session held when the attempt began."""
        self.unseen: list[JobMessage] = list(request.messages)
        self.opened: Opening | None = None
        self.feed: Feed | None = None
        self._following: contextlib.AsyncExitStack | None = None

    def look_back(self, home: Path, session_id: str) -> None:
        """Find the run's messages an earlier attempt delivered (the session or the file holds
        them): the job is told, and the run delivers only the others."""
        if not self.talking:
            self.unseen = []
            return
        messages = self.request.messages
        if self.file is not None:
            found = in_file(self.file)
        else:
            self.session = session_text(home, session_id) if session_id else ""
            found = self.talk.found_in(self.session, messages)
        self.talk.learn(messages)
        self.talk.reached(message.seq for message in messages if message.seq in found)
        self.unseen = [message for message in messages if message.seq not in found]

    def task(self) -> str:
        """The task as the CLI's first prompt has it: with the messages after it for a CLI
        that takes no message while it runs."""
        if live(self.seam) or not self.unseen:
            return self.request.task
        return task_with_messages(self.request.task, self.unseen, self.talk.tags)

    def argv(self, argv: list[str]) -> list[str]:
        """Claude Code with streaming input says each message it takes (`REPLAY`)."""
        if self.seam != MessageSeam.STDIN or REPLAY in argv or "-p" not in argv:
            return argv
        cut = argv.index("-p") + 1
        return [*argv[:cut], REPLAY, *argv[cut:]]

    def open(self, argv: list[str], attempt: int, run: int, session: str, home: Path) -> Opening:
        """How this attempt starts (see activities/agent/opening.py)."""
        start = Start(
            self.request, attempt, run, session, home, self.seam, self.unseen, self.talk.tags
        )
        self.opened = opening(argv, start)
        if self.file is not None:
            self.file.touch()
            feed = FileFeed(self.file, self.talk, lambda line: None)
            feed.offer(self.opened.messages)
        return self.opened

    @property
    def takes_input(self) -> bool:
        """Whether the agent's standard input is the worker's to write."""
        return self.seam == MessageSeam.STDIN

    async def started(
        self, input_fd: int | None, channel: HoldChannel, note: Callable[[str], None]
    ) -> None:
        """The agent started: the start's messages delivered or written, its seam fed."""
        opened = self.opened
        assert opened is not None
        feed: Feed
        if input_fd is not None:
            stdin = StdinFeed(input_fd, self.talk, lambda: channel.waiting, note)
            channel.may_defer = stdin.may_defer
            if opened.until_turn_end:
                stdin.until_turn_end = True
                stdin.offer(opened.messages)
                await stdin.open_with(opened.first_input, [])
            else:
                await stdin.open_with(opened.first_input, opened.messages)
            feed = stdin
        elif self.file is not None:
            feed = FileFeed(self.file, self.talk, note)
        else:
            if opened.messages and opened.seam is not None:
                self.talk.reached((message.seq for message in opened.messages), opened.seam)
            return
        self.feed = feed
        if self.talking:
            stack = contextlib.AsyncExitStack()
            ask = InboxAsk(
                run=self.request.message_run,
                after_seq=self.request.messages_through,
                attempt=self.talk.attempt,
            )
            await stack.enter_async_context(
                following(self.client, self.request.number, ask, feed, self._already)
            )
            self._following = stack

    def _already(self, messages: list[JobMessage]) -> list[JobMessage]:
        """Of messages the inbox handed over, those the resumed session does not hold (it
        took the others in an earlier attempt, which could not tell the job)."""
        held = self.talk.found_in(self.session, messages) if self.session else set()
        self.talk.reached(sorted(held))
        return [message for message in messages if message.seq not in held]

    async def heard(self, translator: OutputTranslator) -> None:
        """What the agent's output says of its input: messages taken, turns ended."""
        feed = self.feed
        if not isinstance(translator, ClaudeStream) or not isinstance(feed, StdinFeed):
            return
        taken, translator.taken = translator.taken, []
        feed.taken(taken)
        ended, translator.turns_ended = translator.turns_ended, []
        for deferred in ended:
            await feed.turn_ended(deferred)

    async def ended(self) -> None:
        """The agent has ended: stop following the inbox, close its input, tell the job."""
        if self._following is not None:
            await self._following.aclose()
        if isinstance(self.feed, StdinFeed):
            await self.feed.close()
        await self.talk.close()

    @property
    def delivered(self) -> list[int]:
        return list(self.talk.delivered)

    @property
    def delivered_by(self) -> MessageSeam | None:
        """How this run delivered its messages (None: it delivered none)."""
        if not self.talk.delivered:
            return None
        opened = self.opened
        if opened is not None and opened.seam is not None and not live(self.seam):
            return opened.seam
        return self.seam
