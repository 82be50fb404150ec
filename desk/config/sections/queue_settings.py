"""The desk's settings: its job slots and queue, and how long a command waits for its answer."""

from __future__ import annotations

from datetime import timedelta
from typing import ClassVar

from pydantic import Field

from desk.config.basics.section_base import Duration, SettingsSection


class QueueSettings(SettingsSection):
    """The desk: how many jobs run and wait, how many idle worktrees a clone keeps for them, how
    it keeps its slots and its history, and how long a submission, a push or an answer waits to
    hear what came of it."""

    heading: ClassVar[str] = "The desk: slots, queue and answers"

    max_workers: int = Field(
        default=4,
        ge=1,
        description="Job slots of this worker's host: how many jobs' agents run there at once.",
    )
    max_queued: int = Field(
        default=16, ge=0, description="Jobs that may wait for a slot; one more is refused."
    )
    kept_worktrees: int = Field(
        default=4,
        ge=0,
        description=(
            "Idle worktrees kept per clone for later jobs, at most max_workers; a job takes one "
            "and makes it clean at the clone's HEAD instead of checking out every file "
            "(0: every job cuts a new worktree)."
        ),
    )
    desk_reclaim_interval: Duration = Field(
        default=timedelta(seconds=30),
        description="While jobs wait, how often the desk reclaims slots of jobs no longer running.",
    )
    admit_wait: Duration = Field(
        default=timedelta(minutes=2),
        description="How long a submission waits for the desk's answer, asking again meanwhile.",
    )
    outcome_wait: Duration = Field(
        default=timedelta(seconds=10),
        description=(
            "How long `codedesk push`, `approve` and `decline` wait to say what came of them "
            "(a push refused before its card, pushed or declined) before saying where to see it."
        ),
    )
    desk_history_limit: int = Field(
        default=0,
        ge=0,
        description="History events before the desk continues as new (0: when Temporal suggests).",
    )
