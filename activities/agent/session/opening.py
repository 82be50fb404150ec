"""How one attempt of the agent's step starts: afresh, or resuming the CLI's own session, and
what it is first told (the task, a resumed session's prompt, the messages it starts with).

Four starts, first match wins:

- **after a suspension** (the run's first attempt, `resume_session`): the session resumes with
  no prompt, so Claude Code asks its hook again for the call it deferred; Claude Code with
  streaming input gets the messages once that turn has ended (`until_turn_end`); a CLI that
  cannot defer and was ended for its held call (codex, `held_answer`) resumes with the
  person's answer as its prompt (desk/agents/held.py), and the messages after it;
- **after a crash** (a later attempt, or a run after the host came back): the session resumes
  with a short prompt (`RESUME_PROMPT`), and the messages the session does not hold yet;
- **for messages** (the run's first attempt, `for_messages`): the session resumes with the
  messages that had not reached the agent when its last run ended as its prompt;
- **afresh**: the task, and the messages that came before the agent started.

A start that cannot resume (no session kept, a CLI that resumes nothing) is afresh, with the
messages after the task, so nothing is lost.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from activities.agent.session.session import (
    RESUME_PROMPT,
    continue_argv,
    deferral_resume_argv,
    resume_argv,
    stream_resume_argv,
)
from desk.agents.held import held_prompt
from desk.agents.message_seams import RESUME_FOR_MESSAGES, live, messages_prompt
from desk.payloads.jobs import RunAgentInput
from desk.payloads.message_payloads import JobMessage, MessageSeam

AFRESH = "afresh"
AFTER_SUSPENSION = "after a suspension"
AFTER_CRASH = "after a crash"
FOR_MESSAGES = "for messages"


@dataclass(frozen=True)
class Opening:
    """An attempt's start: its command, what its standard input opens with, which messages
    the start itself delivers and how."""

    argv: list[str]
    start: str = AFRESH
    resumed: bool = False
    """It resumes the CLI's session."""
    first_input: list[str] = field(default_factory=list)
    """Claude Code with streaming input: the texts of its first user message, before the
    messages (empty: it gets none, or only the messages)."""
    messages: list[JobMessage] = field(default_factory=list)
    """The messages this start delivers (in its prompt, its first input or, for a command
    agent, its file)."""
    until_turn_end: bool = False
    """The messages wait for the first turn's end (a resumed deferral)."""
    seam: MessageSeam | None = None
    """How the start delivers `messages`."""
    interrupted: bool = False
    """An earlier attempt (or run, on a host that was gone) of this step started the agent: the
    attempt follows a crash, resumed or started over."""


@dataclass(frozen=True)
class Start:
    """What decides an attempt's start."""

    request: RunAgentInput
    attempt: int
    """The activity's attempt."""
    run: int
    """Which agent of the job the claim counts this one (more than 1 after any earlier)."""
    session: str
    """The CLI's session an earlier attempt or run named (empty: none)."""
    home: Path
    seam: MessageSeam
    unseen: Sequence[JobMessage]
    """The messages to deliver that the session (or file) does not hold yet."""
    tags: Mapping[int, str]


def opening(argv: list[str], start: Start) -> Opening:
    """The start of an attempt whose command (afresh) is `argv`."""
    found = _opening(argv, start)
    request = start.request
    first = request.execution == 1 and start.attempt == 1
    planned = first and bool(request.resume_session or request.for_messages)
    return replace(found, interrupted=start.run > 1 and not planned)


def _opening(argv: list[str], start: Start) -> Opening:
    request = start.request
    first = request.execution == 1 and start.attempt == 1
    stream = start.seam == MessageSeam.STDIN
    unseen = list(start.unseen)
    if first and request.resume_session and request.held_answer is not None and not stream:
        told = _told_the_answer(argv, start)
        if told is not None:
            return told
    elif first and request.resume_session:
        if stream:
            resumed = stream_resume_argv(argv, request.resume_session, start.home)
        else:
            resumed = deferral_resume_argv(argv, request.resume_session, start.home)
        if resumed is not None:
            # A CLI without streaming input takes the messages in a run of their own after it.
            return Opening(
                resumed,
                AFTER_SUSPENSION,
                resumed=True,
                messages=unseen if stream else [],
                until_turn_end=stream,
                seam=start.seam if stream else None,
            )
    elif first and request.for_messages:
        resumed_with = _resumed(argv, request.continue_session, start, FOR_MESSAGES)
        if resumed_with is not None:
            return resumed_with
    elif start.run > 1:
        resumed_with = _resumed(argv, start.session, start, AFTER_CRASH)
        if resumed_with is not None:
            return resumed_with
    if stream:
        return Opening(argv, first_input=[request.task], messages=unseen, seam=start.seam)
    if live(start.seam):
        return Opening(argv, messages=unseen, seam=start.seam)
    # The task in `argv` has the messages after it (run_agent filled it so).
    first_run = request.message_run <= 1
    return Opening(
        argv,
        messages=unseen,
        seam=MessageSeam.PROMPT if first_run else MessageSeam.START_OVER,
    )


def _told_the_answer(argv: list[str], start: Start) -> Opening | None:
    """`argv` resuming the session of a CLI that codedesk ended for a held call (codex) with
    the person's answer as its prompt, and the messages it lacks after it; None when it cannot
    be resumed (the run starts afresh: the approved call is still allowed once)."""
    request, unseen = start.request, list(start.unseen)
    assert request.held_answer is not None
    prompt = held_prompt(request.held_action, request.held_answer)
    if unseen:
        prompt = f"{prompt}\n\n{messages_prompt(unseen, start.tags)}"
    resumed = resume_argv(argv, request.resume_session, start.home, prompt)
    if resumed is None:
        return None
    seam = MessageSeam.RESUME if unseen else None
    return Opening(resumed, AFTER_SUSPENSION, resumed=True, messages=unseen, seam=seam)


def _resumed(argv: list[str], session: str, start: Start, why: str) -> Opening | None:
    """`argv` resuming `session` after a crash or for messages, with the messages the session
    lacks; None when it cannot be resumed."""
    unseen = list(start.unseen)
    crash = why == AFTER_CRASH
    if start.seam == MessageSeam.STDIN:
        resumed = stream_resume_argv(argv, session, start.home)
        if resumed is None:
            return None
        intro = RESUME_PROMPT if crash else RESUME_FOR_MESSAGES
        return Opening(
            resumed, why, resumed=True, first_input=[intro], messages=unseen, seam=start.seam
        )
    if live(start.seam):
        return None  # a command agent resumes nothing: it starts again, its file as it is
    if crash:
        prompt = RESUME_PROMPT
        if unseen:
            prompt = f"{RESUME_PROMPT}\n\n{messages_prompt(unseen, start.tags)}"
    else:
        prompt = messages_prompt(unseen, start.tags)
    resumed = resume_argv(argv, session, start.home, prompt)
    if resumed is None and not crash:
        resumed = continue_argv(argv, start.home, prompt)
    if resumed is None:
        return None
    return Opening(resumed, why, resumed=True, messages=unseen, seam=MessageSeam.RESUME)
