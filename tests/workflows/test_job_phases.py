"""The job's phase table on its own: its moves, what each phase takes, a new phase. No server."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from temporalio import workflow

from desk.names import JOB_FINISH_UPDATE, JOB_HOLD_UPDATE, JOB_INTEGRATION_FINISHED_SIGNAL
from desk.payloads.jobs import JobPhase
from workflows.job.coding_job import CodingJob
from workflows.job.record.phases import JOB_PHASES, Phase, PhaseMoveError, PhaseTable

STORY = [
    (JobPhase.STARTING, JobPhase.PREPARING),
    (JobPhase.STARTING, JobPhase.QUEUED),
    (JobPhase.QUEUED, JobPhase.PREPARING),
    (JobPhase.QUEUED, JobPhase.DONE),
    (JobPhase.PREPARING, JobPhase.WORKING),
    (JobPhase.PREPARING, JobPhase.CLEANING),
    (JobPhase.PREPARING, JobPhase.DONE),
    (JobPhase.WORKING, JobPhase.SUSPENDED),
    (JobPhase.SUSPENDED, JobPhase.QUEUED),
    (JobPhase.QUEUED, JobPhase.WORKING),
    (JobPhase.SUSPENDED, JobPhase.CLEANING),
    (JobPhase.QUEUED, JobPhase.CLEANING),
    (JobPhase.WORKING, JobPhase.CLEANING),
    (JobPhase.WORKING, JobPhase.INTEGRATING),
    (JobPhase.INTEGRATING, JobPhase.CLEANING),
    (JobPhase.INTEGRATING, JobPhase.DONE),
    (JobPhase.CLEANING, JobPhase.DONE),
    (JobPhase.WORKING, JobPhase.BUDGET_PAUSED),
    (JobPhase.BUDGET_PAUSED, JobPhase.QUEUED),
    (JobPhase.BUDGET_PAUSED, JobPhase.INTEGRATING),
    (JobPhase.BUDGET_PAUSED, JobPhase.CLEANING),
    (JobPhase.BUDGET_PAUSED, JobPhase.REVIEW),
    (JobPhase.WORKING, JobPhase.REVIEW),
    (JobPhase.REVIEW, JobPhase.QUEUED),
    (JobPhase.REVIEW, JobPhase.INTEGRATING),
    (JobPhase.REVIEW, JobPhase.CLEANING),
    (JobPhase.STARTING, JobPhase.ATTEMPTS),
    (JobPhase.ATTEMPTS, JobPhase.REVIEW),
    (JobPhase.REVIEW, JobPhase.ATTEMPTS),
    (JobPhase.ATTEMPTS, JobPhase.INTEGRATING),
    (JobPhase.ATTEMPTS, JobPhase.CLEANING),
    (JobPhase.ATTEMPTS, JobPhase.DONE),
]
"""Every move `CodingJob` makes: queued or not, cut, set up, worked, suspended and resumed,
checked, reviewed (revised, integrated, discarded), integrated, cancelled at each step, cleaned
up."""


def test_the_table_is_whole() -> None:
    assert JOB_PHASES.problems() == []
    assert {phase.name for phase in JOB_PHASES.rows} == set(JobPhase)


@pytest.mark.parametrize(("before", "after"), STORY)
def test_every_move_of_the_job_is_in_the_table(before: JobPhase, after: JobPhase) -> None:
    JOB_PHASES.check_move(before, after)


def test_the_table_has_no_move_the_job_does_not_make() -> None:
    moves = {
        (phase.name, after) for phase in JOB_PHASES.rows for after in JOB_PHASES.follows(phase.name)
    }
    assert moves == set(STORY)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (JobPhase.DONE, JobPhase.WORKING),
        (JobPhase.STARTING, JobPhase.WORKING),
        (JobPhase.CLEANING, JobPhase.INTEGRATING),
        (JobPhase.SUSPENDED, JobPhase.WORKING),
    ],
)
def test_a_move_the_table_does_not_have_is_refused(before: JobPhase, after: JobPhase) -> None:
    with pytest.raises(PhaseMoveError, match=f"not to '{after.value}'"):
        JOB_PHASES.check_move(before, after)


def test_only_a_working_job_answers_a_hold() -> None:
    answering = {phase.name for phase in JOB_PHASES.rows if JOB_PHASES.answers(phase.name, "hold")}
    assert answering == {JobPhase.WORKING}


def test_a_message_is_taken_until_the_agents_work_is_over() -> None:
    """`say` before the agent starts, while it works, while it is suspended and in review (a
    revision); never once the job integrates (the job also refuses it while it checks the
    agent's work: its state says)."""
    answering = {phase.name for phase in JOB_PHASES.rows if JOB_PHASES.answers(phase.name, "say")}
    assert answering == {
        JobPhase.STARTING,
        JobPhase.QUEUED,
        JobPhase.PREPARING,
        JobPhase.WORKING,
        JobPhase.SUSPENDED,
        JobPhase.BUDGET_PAUSED,
        JobPhase.REVIEW,
    }
    inbox = {
        phase.name for phase in JOB_PHASES.rows if JOB_PHASES.answers(phase.name, "agent_inbox")
    }
    assert inbox == {JobPhase.WORKING}


def test_a_budget_pause_joins_after_working_and_only_it_takes_finish() -> None:
    """Its row says the working job leads into it (`after`): the working row is as it was."""
    JOB_PHASES.check_move(JobPhase.WORKING, JobPhase.BUDGET_PAUSED)
    assert JobPhase.BUDGET_PAUSED not in JOB_PHASES.row(JobPhase.WORKING).next
    finishing = {
        phase.name for phase in JOB_PHASES.rows if JOB_PHASES.answers(phase.name, JOB_FINISH_UPDATE)
    }
    assert finishing == {JobPhase.BUDGET_PAUSED}


def test_the_table_names_every_message_the_job_takes_and_no_other() -> None:
    """A handler added to `CodingJob` needs its place in the table, and the table names no
    message the job does not declare."""
    job = workflow._Definition.must_from_class(CodingJob)
    declared = {*job.signals, *job.updates, *job.queries} - {None}
    assert JOB_PHASES.messages() == declared


def test_the_review_is_one_row() -> None:
    """A review before the work lands (issue 46): its row says where it comes from (`after`)
    and where it goes; no other row names it but a paused budget's (its "finish here" goes on
    to the review) and the attempts' (their comparison waits there), and only it answers a
    reviewer."""
    others = [
        phase
        for phase in JOB_PHASES.rows
        if phase.name not in (JobPhase.REVIEW, JobPhase.BUDGET_PAUSED, JobPhase.ATTEMPTS)
    ]
    assert not any(JobPhase.REVIEW in phase.next | phase.after for phase in others)
    JOB_PHASES.check_move(JobPhase.WORKING, JobPhase.REVIEW)
    JOB_PHASES.check_move(JobPhase.REVIEW, JobPhase.INTEGRATING)
    answering = {
        phase.name for phase in JOB_PHASES.rows if JOB_PHASES.answers(phase.name, "review")
    }
    assert answering == {JobPhase.REVIEW}
    with pytest.raises(PhaseMoveError):
        JOB_PHASES.check_move(JobPhase.REVIEW, JobPhase.WORKING)


def test_the_attempts_are_one_row() -> None:
    """Several attempts (issue 48): a job of attempts works in its own row, whose comparison
    waits in review, the only phase that answers a pick; no agent phase leads into it."""
    attempts = JOB_PHASES.row(JobPhase.ATTEMPTS)
    assert attempts.after == {JobPhase.STARTING, JobPhase.REVIEW}
    answering = {phase.name for phase in JOB_PHASES.rows if JOB_PHASES.answers(phase.name, "pick")}
    assert answering == {JobPhase.REVIEW}
    for agent_phase in (JobPhase.WORKING, JobPhase.QUEUED, JobPhase.PREPARING):
        with pytest.raises(PhaseMoveError):
            JOB_PHASES.check_move(agent_phase, JobPhase.ATTEMPTS)


def test_a_paused_budget_is_one_row_too() -> None:
    paused = Phase(
        "paused",
        waits_for="an owner: go on within the host's ceilings, finish with what is committed, stop",
        next=frozenset({JobPhase.WORKING, JobPhase.CLEANING}),
        after=frozenset({JobPhase.WORKING}),
    )
    grown = JOB_PHASES.with_row(paused)
    assert grown.problems() == []
    assert grown.follows(JobPhase.WORKING) == JOB_PHASES.follows(JobPhase.WORKING) | {"paused"}


def test_the_table_finds_its_own_faults() -> None:
    table = PhaseTable(
        first=frozenset({"a"}),
        rows=(
            Phase("a", "", next=frozenset({"b", "ghost"})),
            Phase("b", "", next=frozenset({"b"})),
            Phase("c", "", next=frozenset()),
            Phase("c", ""),
        ),
    )
    assert table.problems() == ["'c' has two rows", "'a' names 'ghost', which has no row"]
    table = PhaseTable(
        first=frozenset({"a"}),
        rows=(
            Phase("a", "", next=frozenset({"b", "end"})),
            Phase("b", "", next=frozenset({"b"})),
            Phase("lost", "", next=frozenset({"end"})),
            Phase("end", ""),
        ),
    )
    assert table.problems() == ["nothing reaches 'lost'", "no end is reached from 'b'"]


def test_an_update_is_answered_where_its_row_says() -> None:
    assert JOB_PHASES.answers(JobPhase.WORKING, JOB_HOLD_UPDATE)
    assert not JOB_PHASES.answers(JobPhase.INTEGRATING, JOB_HOLD_UPDATE)
    assert JOB_INTEGRATION_FINISHED_SIGNAL in JOB_PHASES.row(JobPhase.INTEGRATING).hears


def test_the_internals_page_shows_the_table_as_it_is() -> None:
    """docs/internals.md's table of a job's phases: each row's next phases, signals and
    Updates as the table has them."""
    page = (Path(__file__).parents[2] / "docs" / "internals.md").read_text()
    shown = {}
    for line in page.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0].strip("`") in set(JobPhase):
            name, *named = cells[0].strip("`"), *cells[1:4]
            shown[name] = tuple(frozenset(re.findall(r"`(\w+)`", cell)) for cell in named)
    assert shown == {
        phase.name: (JOB_PHASES.follows(phase.name), phase.hears, phase.answers)
        for phase in JOB_PHASES.rows
    }
