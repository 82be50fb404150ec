"""What a job tells its thread as it goes: data the surfaces turn into words."""

from __future__ import annotations

from enum import StrEnum


class Narration(StrEnum):
    """One step of a job's story, as its progress message shows it."""

    CUTTING = "cutting"
    """The worktree is being cut from the clone's HEAD."""
    WORKING = "working"
    """The agent works on the job's branch (`branch`)."""
    INTEGRATING = "integrating"
    """The agent is done; its commits are being integrated into the clone."""
    WAITING_FOR_HOST = "waiting_for_host"
    """No worker of the clone's host (`host`) polls: the job waits for one."""
    HOST_BACK = "host_back"
    """The clone's host (`host`) has a worker again."""
    SUSPENDED = "suspended"
    """Nobody answered a held call (`held`) in its live window: the agent is suspended, with no
    process and no slot, until the approval settles."""
    RESUMED = "resumed"
    """The approval settled: the agent's session resumes on branch `branch`."""
    REVIEW = "review"
    """The agent's work on branch `branch` (and its check) waits for a person's review: no
    process, no slot."""
    REVISING = "revising"
    """A reviewer asked for changes: the agent's session resumes on branch `branch`."""
    ATTEMPTS = "attempts"
    """A job of several attempts: its attempts (jobs of their own) work side by side."""
    COMPARING = "comparing"
    """Every attempt's work waits for the pick (or the attempt ended): a person picks one."""
