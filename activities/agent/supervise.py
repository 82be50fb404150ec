"""The agent's process while it runs: its output to the log, its heartbeats, its end.

`supervise` copies the agent's output (scrubbed as a stream, translated for people) to the
job's log and the heartbeat's last lines, heartbeats the session id as soon as the CLI names
it, hands what the output says of the agent's input to its messages (turns ended, messages
taken), ends an agent that cannot defer a held call once its hook was told to stop (its
session kept, for the job to resume with the answer), and returns how the agent ended once its
own process exits or the job stops it.
"""

from __future__ import annotations

import asyncio
import codecs
from collections import deque
from typing import TextIO

from temporalio import activity

from activities.agent.session.run_messages import RunMessages
from activities.agent.session.session import SessionWatch
from activities.agent.streams.stream import OutputTranslator
from activities.agent.streams.texts import AgentTexts
from activities.agent.streams.usage import UsageWatch
from activities.holds.channel import HoldChannel
from activities.sandbox.processes import kill_group
from desk.payloads.agent_progress import AgentHeartbeat
from desk.payloads.jobs import AgentEnd
from desk.scrub import StreamScrubber, scrub

TAIL_LINES = 20
SUSPEND_GRACE = 2.0
"""Seconds a CLI ended for a suspension has to write its session out before SIGKILL."""
READ_CHUNK = 1 << 16


class Tail:
    """The last `limit` characters of the output, and how many earlier ones were cut."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.chunks: deque[str] = deque()
        self.size = 0
        self.cut = 0
        self.lines: deque[str] = deque(maxlen=TAIL_LINES)
        self.lines_total = 0

    def add(self, text: str) -> None:
        self.chunks.append(text)
        self.size += len(text)
        lines = text.rstrip("\n").split("\n")
        self.lines.extend(lines)
        self.lines_total += len(lines)
        while self.size - len(self.chunks[0]) >= self.limit:
            dropped = self.chunks.popleft()
            self.size -= len(dropped)
            self.cut += len(dropped)

    def text(self) -> str:
        whole = "".join(self.chunks)
        extra = max(0, len(whole) - self.limit)
        self.cut += extra
        return whole[extra:]


async def supervise(
    process: asyncio.subprocess.Process,
    log: TextIO,
    tail: Tail,
    every: float,
    readers: tuple[OutputTranslator, SessionWatch, RunMessages],
    channel: HoldChannel,
    usage: UsageWatch,
    confined: bool,
    texts: AgentTexts,
) -> AgentEnd:
    """Copy output to the log and heartbeat until the agent's own process exits.

    The agent runs under bubblewrap (as the last process of its PID namespace) or the reaper,
    so what it left behind dies when it exits: a background process holding its output
    cannot keep the job running. Cancellation kills the whole group.
    """
    assert process.stdout is not None

    # The log and the tail get the output scrubbed as a stream (a key block or a wrapped token
    # held back until it is whole), before the cap cuts it, so no cut keeps part of a secret.
    scrubber = StreamScrubber()
    translator, session, talking = readers

    def details() -> AgentHeartbeat:
        return AgentHeartbeat(
            pgid=process.pid,
            last_lines=[scrub(x) for x in tail.lines],
            tool_calls=channel.calls,
            lines_total=tail.lines_total,
            session_id=session.session_id,
            resumed=session.resumed,
            started_over=session.started_over,
            texts=list(texts.kept),
            texts_total=texts.total,
            usage=usage.total(channel.usage),
        )

    def show(text: str) -> None:
        if text:
            log.write(text)
            log.flush()
            tail.add(text)

    def emit(text: str, end: bool = False) -> None:
        usage.feed(text)
        if session.feed(text):
            activity.heartbeat(details())  # at once: a crash from now on resumes the session
        for line in translator.finish() if end else translator.feed(text):
            show(scrubber.feed(line))
        # Claude Code says it can defer; a CLI that cannot (codex) is ended instead, once its
        # session is known, so that the answer can resume it.
        ending = channel.rules.ends_to_suspend and bool(session.session_id)
        channel.can_defer = translator.defers or ending
        texts.take(translator.texts)
        if end:
            show(scrubber.flush())

    async def pump() -> None:
        # Read chunks, not readline(): a line longer than the stream limit (64 KiB) would end
        # the pump, and the agent would block on a full pipe until its budget ran out.
        assert process.stdout is not None
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        pending = ""
        while chunk := await process.stdout.read(READ_CHUNK):
            channel.heard(len(chunk))  # output is a sign of work beside a waiting hold
            pending += decoder.decode(chunk)
            *complete, pending = pending.split("\n")
            for line in complete:
                emit(line + "\n")
            await talking.heard(translator)
            if translator.give_up or usage.stop_reason(channel.usage):
                await kill_group(process.pid, grace=0.2)
            if len(pending) >= READ_CHUNK:
                # A very long line goes out in pieces, cut at whitespace where it can be so a
                # credential (which has none) stays whole for the scrubber.
                cut = max(pending.rfind(" "), pending.rfind("\t")) + 1 or len(pending)
                emit(pending[:cut])
                pending = pending[cut:]
        pending += decoder.decode(b"", final=True)
        if pending:
            emit(pending)
        emit("", end=True)
        await talking.heard(translator)

    async def beat() -> None:
        # One at once: the heartbeat timeout runs from the activity's start, and a sandboxed
        # start (the job's git prepared, bwrap bound to the worker) can take most of a short
        # one on a loaded machine; the agent ran again beside a stale attempt when it did.
        while True:
            if usage.stop_reason(channel.usage):  # a report on the hold channel reached it
                await kill_group(process.pid, grace=0.2)
            activity.heartbeat(details())
            await asyncio.sleep(every)

    async def suspend() -> None:
        # A held call of a CLI that cannot defer was refused with a note to stop: end it, its
        # session kept (SIGTERM first, so that it writes its session out).
        await channel.suspending.wait()
        log.write(
            f"codedesk: ending the agent for held call {channel.deferred}, its session kept\n"
        )
        log.flush()
        await kill_group(process.pid, grace=SUSPEND_GRACE)

    pumping = asyncio.create_task(pump())
    beating = asyncio.create_task(beat())
    suspending = asyncio.create_task(suspend())
    end = AgentEnd.EXITED
    try:
        await process.wait()
    except asyncio.CancelledError:
        await kill_group(process.pid)
        await process.wait()
        if not _stopped_by_its_job():
            pumping.cancel()
            raise
        # The job stopped it (its budget ran out, or the job was cancelled): the run ends with
        # a result, so what the agent said and spent until then reaches the job's report.
        end = AgentEnd.TIMED_OUT
    finally:
        beating.cancel()
        suspending.cancel()
        talking.agent_ended()  # no message is handed to an agent that has ended
    # Whatever the agent left running in its group (a grandchild) dies with it. Confined, that
    # is done: bwrap exits only once its PID namespace is empty (its init's exit waits for
    # every process of it), and the group holds at most bwrap's own zombie, whose look would
    # cost a walk of /proc in a thread at every job's end (issue 13).
    if not confined:
        await kill_group(process.pid, grace=0.2)
    try:
        await asyncio.wait_for(pumping, timeout=5)
    except TimeoutError:
        pumping.cancel()
    return end


def _stopped_by_its_job() -> bool:
    """Whether this activity was cancelled because its job asked (not a worker shutting down,
    a timeout or a lost activity: those must stay cancellations so the attempt is retried)."""
    details = activity.cancellation_details()
    return details is not None and details.cancel_requested and not details.worker_shutdown
