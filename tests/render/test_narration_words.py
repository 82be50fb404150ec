"""Narration is data from the job and words at the surface: the words users have always seen."""

from __future__ import annotations

import pytest

from desk.payloads.narration import Narration
from desk.payloads.surfaces import ThreadProgress
from surfaces.render.narration import narration_text


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
