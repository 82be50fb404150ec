"""Custom ids of a review card's buttons: they carry the job and the round, so a press
outlives the bot.

`codedesk:review:<verdict>:<job>:<round>` (well under Discord's 100 characters). The template
is matched in full (discord.py uses `fullmatch`), so no other custom id passes for one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from desk.payloads.conversation.review_payloads import ReviewVerdict

PREFIX = "codedesk:review"
TEMPLATE = re.compile(
    rf"{PREFIX}:(?P<verdict>integrate|revise|discard):(?P<job>[0-9]{{1,12}}):(?P<round>[0-9]{{1,6}})"
)
MODAL_PREFIX = f"{PREFIX}-feedback"
MODAL_TEMPLATE = re.compile(rf"{MODAL_PREFIX}:(?P<job>[0-9]{{1,12}}):(?P<round>[0-9]{{1,6}})")
VERDICTS = (ReviewVerdict.INTEGRATE, ReviewVerdict.REVISE, ReviewVerdict.DISCARD)
"""The card's buttons, in order."""


@dataclass(frozen=True)
class ReviewKey:
    """What a review button carries: the job, and the round of review it answers."""

    job: int
    round: int

    def custom_id(self, verdict: ReviewVerdict) -> str:
        return f"{PREFIX}:{verdict.value}:{self.job}:{self.round}"

    def modal_id(self) -> str:
        """The Revise… modal's custom id (the same key, so its submit names what it answers)."""
        return f"{MODAL_PREFIX}:{self.job}:{self.round}"


def parse(custom_id: str) -> tuple[ReviewVerdict, ReviewKey] | None:
    """The verdict and key of a review button's custom id, or None for anything else."""
    found = TEMPLATE.fullmatch(custom_id)
    if found is None:
        return None
    return ReviewVerdict(found["verdict"]), ReviewKey(int(found["job"]), int(found["round"]))


def of_job(custom_id: str, job: int) -> bool:
    """Whether `custom_id` is a review button of job `job` (any round)."""
    parsed = parse(custom_id)
    return parsed is not None and parsed[1].job == job


def parse_modal(custom_id: str) -> ReviewKey | None:
    """The key of a Revise… modal's custom id, or None for anything else."""
    found = MODAL_TEMPLATE.fullmatch(custom_id)
    return ReviewKey(int(found["job"]), int(found["round"])) if found else None
