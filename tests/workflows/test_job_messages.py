"""Who may talk to a job, what it takes and when: the `say` validator's rules, without a server."""

from __future__ import annotations

import pytest

from desk.errors import AgentDoneError, MessageError, MessageSenderError, MessageTooLongError
from desk.holds.approvals import Principal
from desk.payloads.jobs import JobInput, JobPhase
from desk.payloads.message_payloads import SayInput
from workflows.job.job_messages import refusal
from workflows.job.record.state import JobState

STARTER = Principal(id="local:alice", name="alice")
OWNER = Principal(id="discord:42", name="olga")


def state(phase: JobPhase = JobPhase.WORKING, chars: int = 10) -> JobState:
    job = JobInput(
        number=7,
        repo="acme/api",
        task="t",
        agent_command="x",
        starter=STARTER.id,
        owners=[OWNER.id],
        message_chars=chars,
    )
    made = JobState.of(job)
    made.status.phase = phase
    return made


def said(text: str = "hi", by: Principal = STARTER) -> SayInput:
    return SayInput(text=text, by=by, surface="cli")


def test_the_starter_and_an_owner_may_talk_to_the_job_and_nobody_else() -> None:
    assert refusal(state(), said()) is None
    assert refusal(state(), said(by=OWNER)) is None
    refused = refusal(state(), said(by=Principal(id="local:mallory", name="mallory")))
    assert isinstance(refused, MessageSenderError)
    assert str(refused).startswith("mallory may not talk to job 7's agent")


def test_a_message_is_refused_empty_or_past_the_hosts_cap_which_it_names() -> None:
    assert isinstance(refusal(state(), said(" \n ")), MessageError)
    assert refusal(state(chars=10), said("x" * 10)) is None
    refused = refusal(state(chars=10), said("x" * 11))
    assert isinstance(refused, MessageTooLongError)
    assert "11 characters, longer than the host's limit of 10 (CODEDESK_MESSAGE_CHARS)" in str(
        refused
    )


@pytest.mark.parametrize(
    "phase", [JobPhase.STARTING, JobPhase.QUEUED, JobPhase.PREPARING, JobPhase.SUSPENDED]
)
def test_a_message_is_taken_before_the_agent_starts_and_while_it_is_suspended(
    phase: JobPhase,
) -> None:
    assert refusal(state(phase), said()) is None


@pytest.mark.parametrize(
    ("phase", "now"),
    [
        (JobPhase.INTEGRATING, "integrating"),
        (JobPhase.CLEANING, "cleaning"),
        (JobPhase.DONE, "done"),
        (JobPhase.WORKING, "checking its work"),
    ],
)
def test_once_the_agents_work_is_over_a_message_is_refused_with_what_to_do(
    phase: JobPhase, now: str
) -> None:
    over = state(phase)
    over.agent_done = True
    refused = refusal(over, said())
    assert isinstance(refused, AgentDoneError)
    assert f"(the job is {now})" in str(refused)
    assert "`codedesk say 7` again continues it in a new job" in str(refused)
    # A stranger learns no more than that they may not talk to it.
    assert isinstance(refusal(over, said(by=Principal(id="x"))), MessageSenderError)
