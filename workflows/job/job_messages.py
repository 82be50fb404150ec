"""A job's conversation: people's messages (`say`), its running agent's inbox, what reached it.

A message is kept in the job's state (with its number, sender and time) in the same workflow
task that accepts the `say` Update, before it is answered. The agent's run reads the messages
by the `agent_inbox` Update, a long poll answered as soon as there is a message it has not had
(or its run is over), and says which reached the agent by `messages_delivered`; the run's own
result says so too, in case that signal was lost. A message that has not reached the agent when
its run ends makes the job run it again (`for_messages`); once the agent's work is over, a
message is refused, and the refusal says what to do.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from desk.agents.message_seams import command_seam, live
    from desk.decisions.message_rules import sender_refusal, text_refusal
    from desk.errors import (
        AgentDoneError,
        DeskError,
        InboxClosedError,
        ReviewAnsweredError,
    )
    from desk.failures import failure_of
    from desk.holds.approvals import Principal
    from desk.names import JOB_SAY_UPDATE
    from desk.payloads.jobs import AgentEnd, AgentResult, JobPhase
    from desk.payloads.message_payloads import (
        Delivered,
        Inbox,
        InboxAsk,
        JobMessage,
        MessageDelivery,
        MessagesDelivered,
        MessageSeam,
        SayAnswer,
        SayInput,
    )

from workflows import patches
from workflows.job.record.phases import JOB_PHASES
from workflows.job.record.state import JobState

REPORT_MESSAGES = 100
"""Messages a report lists (the job keeps them all, and `show` during the job lists them)."""
HANDOFF_WAIT = timedelta(seconds=5)
"""How long `say` waits for a running agent's live seam to say it has the message."""


def refusal(state: JobState, said: SayInput) -> DeskError | None:
    """Why the job does not take `said` (None: it does), for the `say` validator: a refusal
    leaves nothing in the job's history."""
    job, phase = state.job, state.status.phase
    in_review = phase == JobPhase.REVIEW
    stranger = sender_refusal(job, said.by, f"talk to job {job.number}'s agent")
    if stranger is not None and not (in_review and said.by.id in state.review_owners):
        return stranger  # in review, the host's owners as the round opened may revise too
    answer = state.review_answer
    if in_review and answer is not None:
        return ReviewAnsweredError(
            f"Job {job.number}'s review was answered first by {answer.by.name or answer.by.id}:"
            f" {answer.verdict}. `codedesk show {job.number}` shows where it is."
        )
    if (state.agent_done and not in_review) or not JOB_PHASES.answers(phase, JOB_SAY_UPDATE):
        now = "checking its work" if phase == JobPhase.WORKING else phase
        return AgentDoneError(
            f"Job {job.number}'s agent has finished its work (the job is {now}): a message "
            f"cannot reach it now. `codedesk show {job.number}` shows what it did; once it has "
            f"ended, `codedesk say {job.number}` again continues it in a new job."
        )
    return text_refusal(said.text, job.message_chars)


def refuse(state: JobState, said: SayInput) -> None:
    """The `say` validator: raise the refusal, if any, as its failure."""
    refused = refusal(state, said)
    if refused is not None:
        raise failure_of(refused)


def keep(state: JobState, said: SayInput) -> JobMessage:
    """Keep a message for the agent, numbered after the others: the running agent's inbox
    hands it over, or the job's next run of the agent delivers it (`for_messages` resumes its
    session with the messages that have not reached it). A step that has words for the agent
    itself (a reviewer's request, leave to go on) keeps them so, as a sender of its own."""
    messages = state.status.messages
    message = JobMessage(
        seq=len(messages) + 1,
        text=said.text,
        by=said.by,
        surface=said.surface,
        at=workflow.now(),
    )
    messages.append(message)
    return message


async def take(state: JobState, said: SayInput) -> SayAnswer:
    """Keep the message and say what became of it: a running agent that reads its messages
    takes it in this same workflow task (its inbox waits for one)."""
    if state.status.phase == JobPhase.REVIEW:
        refuse(state, said)  # an answer validated in the same workflow task came first
    seq = keep(state, said).seq
    seam = command_seam(state.job.agent_command)
    number = state.job.number
    if state.status.phase == JobPhase.SUSPENDED:
        return SayAnswer(number=number, seq=seq, delivery=MessageDelivery.RESUME, seam=seam)
    if not state.agent_runs:
        first = seam if live(seam) else MessageSeam.PROMPT
        return SayAnswer(number=number, seq=seq, delivery=MessageDelivery.AGENT_START, seam=first)
    if not state.agent_running:
        return SayAnswer(number=number, seq=seq, delivery=MessageDelivery.RESUME, seam=seam)
    if not live(seam):
        return SayAnswer(number=number, seq=seq, delivery=MessageDelivery.TURN_END, seam=seam)
    run = state.agent_runs

    def settled() -> bool:
        if state.inbox_handed >= seq or not running(state, run):
            return True
        return state.inbox_taken < seq and not state.inbox_waiting  # nobody reads just now

    try:
        await workflow.wait_condition(
            settled, timeout=HANDOFF_WAIT, timeout_summary="the agent's seam takes the message"
        )
    except TimeoutError:
        pass  # its step took it and has not said it wrote it: it gets it shortly
    handed = state.inbox_handed >= seq
    delivery = MessageDelivery.DELIVERED if handed else MessageDelivery.SHORTLY
    return SayAnswer(number=number, seq=seq, delivery=delivery, seam=seam)


def running(state: JobState, run: int) -> bool:
    """Whether the agent's run `run` is the one running now."""
    return state.agent_running and state.agent_runs == run


def check_inbox(state: JobState, ask: InboxAsk) -> None:
    """The `agent_inbox` validator: only the running run's step is answered."""
    if not running(state, ask.run):
        raise failure_of(
            InboxClosedError(
                f"Run {ask.run} of job {state.job.number}'s agent is over: it takes no messages."
            )
        )


async def inbox(state: JobState, ask: InboxAsk) -> Inbox:
    """The messages after `ask.after_seq` that have not reached the agent, once there is one;
    `over` (and none) once the run is over."""

    def fresh() -> list[JobMessage]:
        return [
            message
            for message in state.status.messages
            if message.seq > ask.after_seq and message.delivered is None
        ]

    state.inbox_waiting += 1
    try:
        await workflow.wait_condition(lambda: bool(fresh()) or not running(state, ask.run))
    finally:
        state.inbox_waiting -= 1
    if not running(state, ask.run):
        return Inbox(over=True)
    given = fresh()
    state.inbox_taken = max([state.inbox_taken, *(message.seq for message in given)])
    return Inbox(messages=given)


def delivered(state: JobState, told: MessagesDelivered) -> None:
    """Note the messages the running agent's seam has, and those that reached the agent (the
    first time each did counts)."""
    if told.run == state.agent_runs and told.seqs:
        state.inbox_handed = max(state.inbox_handed, *told.seqs)
    if not told.taken:
        return
    seqs = set(told.seqs)
    for message in state.status.messages:
        if message.seq in seqs and message.delivered is None:
            message.delivered = Delivered(
                run=told.run, attempt=told.attempt, at=workflow.now(), seam=told.seam
            )


def delivered_by(state: JobState, run: int, agent: AgentResult) -> None:
    """What the run's result says it delivered (its signals may not all have come)."""
    if agent.messages_delivered and agent.message_seam is not None:
        told = MessagesDelivered(
            seqs=agent.messages_delivered,
            run=run,
            attempt=agent.attempts,
            seam=agent.message_seam,
        )
        delivered(state, told)


def pending(state: JobState) -> list[JobMessage]:
    """The messages that have not reached the agent, oldest first."""
    return state.undelivered()


def for_messages(state: JobState, agent: AgentResult) -> bool:
    """Whether the agent runs again for messages that did not reach it before its run ended
    (it ended well: a failed or stopped agent's messages stay undelivered, in its report)."""
    if agent.end != AgentEnd.EXITED or agent.exit_code != 0 or not pending(state):
        return False
    return workflow.patched(patches.MESSAGES_AFTER_THE_RUN)


def open_continuation(state: JobState) -> None:
    """A continuation (a message to a finished job) starts with that message: it is the job's
    first, from whoever sent it, and its first run resumes the finished job's session with it
    (`state.continuing`, read by `agent._run_agent`)."""
    job = state.job
    if job.continues is None or not workflow.patched(patches.CONTINUATION):
        return
    sender = Principal(id=job.starter, name=job.requester or job.starter.removeprefix("local:"))
    surface = "discord" if job.place is not None else "cli"
    keep(state, SayInput(text=job.task, by=sender, surface=surface))
    state.continuing = job.continues


def for_report(state: JobState) -> tuple[list[JobMessage], int]:
    """The messages a report lists, each text cut to the host's `report_held_chars`, and how
    many more there were."""
    chars = state.job.report_held_chars
    listed = [
        message.model_copy(
            update={
                "text": message.text[:chars],
                "text_cut": max(0, len(message.text) - chars),
            }
        )
        for message in state.status.messages[:REPORT_MESSAGES]
    ]
    return listed, max(0, len(state.status.messages) - REPORT_MESSAGES)
