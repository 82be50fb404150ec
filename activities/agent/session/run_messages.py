"""One attempt's messages, from before the agent starts to its end (for `run_agent`).

Before the start: which of the run's messages the CLI's session (or a command agent's file)
holds already, from an earlier attempt (the job is told they were delivered), and the task with
the others after it for a CLI that takes them in its first prompt. At the start: what the
opening delivers. While the agent runs: its live seam, fed from the job's inbox. At its end:
the job told the rest, and the run's result says which messages it delivered and how.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from temporalio.client import Client, WorkflowQueryFailedError
from temporalio.service import RPCError

from activities.agent.session.agent_messages import (
    MESSAGES_FILE,
    Conversation,
    in_file,
    job_teller,
    message_key,
    session_text,
)
from activities.agent.session.live_messages import Feed, FileFeed, StdinFeed, following
from activities.agent.session.opening import Opening, Start, opening
from activities.agent.streams.stream import ClaudeStream, OutputTranslator
from activities.holds.channel import HoldChannel
from desk.agents.message_seams import live, task_with_messages
from desk.names import JOB_STATE_QUERY, job_workflow_id
from desk.payloads.jobs import JobStatus, RunAgentInput
from desk.payloads.message_payloads import InboxAsk, JobMessage, MessageSeam

REPLAY = "--replay-user-messages"
STATE_WAIT = timedelta(seconds=10)
"""How long the run waits for its job to say which messages came since it was scheduled."""


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
        tell = job_teller(client, request.number)
        self.talk = Conversation(tell, request.number, request.message_run, attempt, key, seam)
        self.file = folder / MESSAGES_FILE if seam == MessageSeam.FILE else None
        self.session = ""
        """What the resumed session held when the attempt began."""
        self.unseen: list[JobMessage] = list(request.messages)
        self.after = request.messages_through
        """The last message the run knows of when it starts: the inbox hands over later ones."""
        self.opened: Opening | None = None
        self.feed: Feed | None = None
        self._following: contextlib.AsyncExitStack | None = None
        self._follow_task: asyncio.Task[None] | None = None

    async def look_back(self, home: Path, session_id: str) -> None:
        """The run's messages: those it was given, and those that came since it was scheduled
        (asked of the job: a retried attempt has its first attempt's input). Those an earlier
        attempt delivered (the session or the file holds them) are told to the job; the run
        delivers the others.

        A first attempt on a live seam does not ask: the job's inbox, which the run follows
        from its start, hands over every message after those it was given, and the question
        was a round trip to the job's worker before every agent started (8 ms of a small
        job, `bench/profile_job.py`, issue 49)."""
        if not self.talking:
            self.unseen = []
            return
        asks = self.talk.attempt > 1 or not live(self.seam)
        since = await self._since(self.request.messages_through) if asks else []
        messages = [*self.request.messages, *since]
        self.after = max([self.request.messages_through, *(m.seq for m in messages)])
        if self.file is not None:
            found = await asyncio.to_thread(in_file, self.file)
        else:
            if session_id:
                self.session = await asyncio.to_thread(session_text, home, session_id)
            found = self.talk.found_in(self.session, messages)
        self.talk.learn(messages)
        self.talk.reached(message.seq for message in messages if message.seq in found)
        self.unseen = [message for message in messages if message.seq not in found]

    async def _since(self, after: int) -> list[JobMessage]:
        """The job's messages after `after` that have not reached the agent (none when the job
        cannot be asked: the inbox hands them over then)."""
        handle = self.client.get_workflow_handle(job_workflow_id(self.request.number))
        try:
            status: JobStatus = await handle.query(
                JOB_STATE_QUERY, result_type=JobStatus, rpc_timeout=STATE_WAIT
            )
        except (RPCError, WorkflowQueryFailedError):
            return []
        return [m for m in status.messages if m.seq > after and m.delivered is None]

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
        """How this attempt starts (see activities/agent/session/opening.py)."""
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
                after_seq=self.after,
                attempt=self.talk.attempt,
            )
            self._follow_task = await stack.enter_async_context(
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

    def agent_ended(self) -> None:
        """The agent's process has ended: hand its seam nothing more (what came since stays
        with the job, for its next run)."""
        if self.feed is not None:
            self.feed.closing()
        if self._follow_task is not None:
            self._follow_task.cancel()

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
