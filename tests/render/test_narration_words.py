"""Narration is data from the job and words at the surface: the words users have always seen."""

from __future__ import annotations

import pytest

from desk.holds.approvals import Principal
from desk.payloads.surfaces import ThreadProgress, ThreadText
from desk.policy.modes import JobModes, Mode, ModeSwitch, ScopeKind
from desk.records.narration import Narration
from surfaces.render.words.narration_words import narration_text, thread_text


@pytest.mark.parametrize(
    ("said", "words"),
    [
        (Narration.CUTTING, "Cutting a worktree from the clone's HEAD…"),
        (Narration.WORKING, "The agent works on branch worker/3…"),
        (Narration.INTEGRATING, "The agent is done; integrating its commits into the clone…"),
        (
            Narration.WAITING_FOR_HOST,
            "Waiting for host ghost: no worker of that host polls now; "
            "the job goes on when one does.",
        ),
        (Narration.HOST_BACK, "Host ghost is back; the job goes on."),
        (
            Narration.REVIEW,
            "Waiting for review: the work on branch worker/3 waits (no process, no slot). Write "
            "in this thread to ask for changes; `codedesk diff`, `codedesk integrate` or "
            "`codedesk discard` with the job's number see, land or drop it.",
        ),
        (Narration.REVISING, "Changes were asked; the agent resumes on branch worker/3…"),
        (
            Narration.ATTEMPTS,
            "The attempts work side by side, each in its own worktree; the job compares them "
            "once every one is in.",
        ),
        (
            Narration.COMPARING,
            "Every attempt is in: compare them with `codedesk show` and the job's number, then "
            "pick one (`codedesk pick`) or drop them all (`codedesk discard`).",
        ),
    ],
)
def test_each_narration_has_its_words(said: Narration, words: str) -> None:
    progress = ThreadProgress(channel="t", narration=said, branch="worker/3", host="ghost")
    assert narration_text(progress) == words


def test_a_narration_an_earlier_job_sent_in_words_is_shown_as_it_was() -> None:
    """An outbox that outlived an upgrade still holds `text` items."""
    old = ThreadProgress.model_validate({"kind": "progress", "channel": "t", "text": "Integrating"})
    assert old.narration is None
    assert narration_text(old) == "Integrating"


def test_a_modes_switch_is_told_in_words_and_older_text_as_it_was_sent() -> None:
    modes = JobModes(
        yolo=ModeSwitch(
            mode=Mode.YOLO, on=True, scope=ScopeKind.CHANNEL, target="42", by=Principal(id="alice")
        )
    )
    told = ThreadText(channel="t", job=4, modes=modes, following=["yolo"])
    assert thread_text(told) == "Job 4: modes now yolo on (channel 42, by alice); long-running off."
    earlier = ThreadText(channel="t", text="Job 4: modes now yolo off; long-running off.")
    assert thread_text(earlier) == earlier.text
