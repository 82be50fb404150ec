"""The job's messages in its agent's run: asked of the job, handed to the CLI, told back.

`run_agent` keeps one `Conversation` per attempt. It knows each message's tag (a keyed digest
the agent cannot make: desk/agents/message_seams.py) under the job's key, kept in the job's folder
where a confined agent cannot read it. Before the agent starts it finds the messages an earlier
attempt already delivered, in the CLI's own session file or the messages file, and tells the
job; the run delivers only the others. While the agent runs, a live seam (Claude Code's
streaming input, a command agent's file) gets each new message as the job's `agent_inbox`
Update hands it over; the job is told by `messages_delivered` once the message is in the agent's
conversation (Claude Code says so as it takes it, `--replay-user-messages`; a file line is read
when the agent likes).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from pathlib import Path

from temporalio.client import (
    Client,
    WorkflowUpdateFailedError,
    WorkflowUpdateRPCTimeoutOrCancelledError,
)
from temporalio.service import RPCError, RPCStatusCode

from activities.agent.session.session import json_objects, session_files
from desk.agents.message_seams import message_tag, message_text, tags_found
from desk.names import JOB_AGENT_INBOX_UPDATE, JOB_MESSAGES_DELIVERED_SIGNAL, job_workflow_id
from desk.payloads.message_payloads import (
    Inbox,
    InboxAsk,
    JobMessage,
    MessagesDelivered,
    MessageSeam,
)

MESSAGES_FILE = "messages.jsonl"
"""In the job's folder: a command agent's messages, one JSON object a line (`CODEDESK_MESSAGES`)."""
KEY_FILE = "message-key"
"""In the job's folder (mode 0600): the key of the job's message tags."""
INBOX_PAUSE = 1.0
"""Seconds before the inbox is asked again after the server could not answer."""
TELL_TRIES = 5

log = logging.getLogger(__name__)


def message_key(folder: Path) -> bytes:
    """The job's key for its message tags, made once (the job's attempts share it)."""
    path = folder / KEY_FILE
    try:
        return bytes.fromhex(path.read_text().strip())
    except (OSError, ValueError):
        pass
    folder.mkdir(parents=True, exist_ok=True)
    fresh = secrets.token_hex(32)
    partial = folder / f".{KEY_FILE}.{os.getpid()}"
    partial.write_text(fresh)
    partial.chmod(0o600)
    try:
        os.link(partial, path)  # the first attempt to make it wins; a racing one reads it
    except FileExistsError:
        pass
    finally:
        partial.unlink(missing_ok=True)
    return bytes.fromhex(path.read_text().strip())


def file_line(message: JobMessage) -> str:
    """One message as a line of the messages file."""
    said = {
        "seq": message.seq,
        "from": message.by.name or message.by.id,
        "sender_id": message.by.id,
        "at": message.at.isoformat(),
        "text": message.text,
    }
    return json.dumps(said, ensure_ascii=False) + "\n"


def in_file(path: Path) -> set[int]:
    """The numbers of the messages the messages file holds."""
    return {said["seq"] for said in json_objects(path) if isinstance(said.get("seq"), int)}


Tell = Callable[[MessagesDelivered], Awaitable[None]]
"""How an attempt tells its job which messages reached the agent (`job_teller`)."""


def job_teller(client: Client, number: int) -> Tell:
    """Tell job `number` by its `messages_delivered` signal, tried a few times: the run's
    result says it again, should every try fail."""
    handle = client.get_workflow_handle(job_workflow_id(number))

    async def tell(told: MessagesDelivered) -> None:
        for trial in range(TELL_TRIES):
            try:
                await handle.signal(JOB_MESSAGES_DELIVERED_SIGNAL, told)
                return
            except RPCError as error:
                log.info("Job %s was not told of messages %s: %s", number, told.seqs, error)
                await asyncio.sleep(INBOX_PAUSE * (trial + 1))

    return tell


class Conversation:
    """One attempt's view of the job's messages: their tags, which reached the agent, and the
    job told so (in order, each once)."""

    def __init__(
        self,
        tell: Tell,
        number: int,
        run: int,
        attempt: int,
        key: bytes,
        seam: MessageSeam,
    ) -> None:
        self.tell = tell
        self.number = number
        self.run = run
        self.attempt = attempt
        self.key = key
        self.seam = seam
        self.tags: dict[int, str] = {}
        self.delivered: list[int] = []
        """The messages this attempt delivered, or found delivered, in order."""
        self._told: asyncio.Queue[MessagesDelivered | None] = asyncio.Queue()
        self._telling: asyncio.Task[None] | None = None

    def learn(self, messages: Iterable[JobMessage]) -> None:
        """Know these messages' tags."""
        for message in messages:
            self.tags.setdefault(message.seq, message_tag(self.key, self.number, message))

    def text(self, message: JobMessage) -> str:
        """The message as the agent reads it (its header and tag, then its text)."""
        self.learn([message])
        return message_text(message, self.tags[message.seq])

    def found_in(self, text: str, messages: Sequence[JobMessage]) -> set[int]:
        """Which of `messages` `text` (a session's) holds, by their tags."""
        self.learn(messages)
        return tags_found(text, {message.seq: self.tags[message.seq] for message in messages})

    def reached(self, seqs: Iterable[int], seam: MessageSeam | None = None) -> list[int]:
        """These messages reached the agent: noted, and the job told (in the background)."""
        fresh = [seq for seq in dict.fromkeys(seqs) if seq not in self.delivered]
        if fresh:
            self.delivered += fresh
            self._send(fresh, seam or self.seam, taken=True)
        return fresh

    def handed(self, seqs: Iterable[int]) -> None:
        """The live seam has these messages (the agent takes them at its next step): the job
        is told, so its `say` can answer that the running agent has them."""
        fresh = [seq for seq in seqs if seq not in self.delivered]
        if fresh:
            self._send(fresh, self.seam, taken=False)

    def _send(self, seqs: list[int], seam: MessageSeam, taken: bool) -> None:
        told = MessagesDelivered(
            seqs=seqs, run=self.run, attempt=self.attempt, seam=seam, taken=taken
        )
        self._told.put_nowait(told)
        if self._telling is None:
            self._telling = asyncio.create_task(self._tell())

    async def _tell(self) -> None:
        while (told := await self._told.get()) is not None:
            await self.tell(told)

    async def close(self) -> None:
        """Tell the job what is left to tell, then stop."""
        if self._telling is None:
            return
        self._told.put_nowait(None)
        await self._telling


def session_text(home: Path, session_id: str) -> str:
    """What the CLI's session `session_id` holds (Claude Code's or codex's file), as text."""
    texts = []
    for path in session_files(home, session_id):
        try:
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
    return "\n".join(texts)


async def inbox(client: Client, number: int, ask: InboxAsk) -> AsyncIterator[list[JobMessage]]:
    """The job's messages for this run as they come (the `agent_inbox` long poll), until the
    job says the run is over or will not answer it (the run ended, or the job did)."""
    handle = client.get_workflow_handle(job_workflow_id(number))
    after = ask.after_seq
    while True:
        asked = ask.model_copy(update={"after_seq": after})
        try:
            answer: Inbox = await handle.execute_update(
                JOB_AGENT_INBOX_UPDATE, asked, result_type=Inbox
            )
        except WorkflowUpdateFailedError:
            return  # the job refused: the run is over
        except (RPCError, WorkflowUpdateRPCTimeoutOrCancelledError) as error:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                # The SDK turns the poll's cancel into its own error: the run is over.
                raise asyncio.CancelledError from None
            if isinstance(error, RPCError) and (
                error.status == RPCStatusCode.NOT_FOUND or "completed" in str(error).lower()
            ):
                return  # the job has ended
            await asyncio.sleep(INBOX_PAUSE)
            continue
        if answer.over:
            return
        if answer.messages:
            after = max(message.seq for message in answer.messages)
            yield answer.messages
