"""The holds' settings: which calls wait for a person, who may answer, and how long a call
waits."""

from __future__ import annotations

import getpass
from datetime import timedelta
from typing import ClassVar

from pydantic import Field, field_validator, model_validator

from desk.config.basics.defaults import DEFAULT_HOLD_WAIT, DEFAULT_HOOK_TIMEOUT
from desk.config.basics.durations import format_duration
from desk.config.basics.section_base import CommaList, Duration, SettingsSection
from desk.holds.protocol import HOOK_MARGIN_SECONDS
from desk.policy.host import HOLD_CLASS_NAMES


class HoldSettings(SettingsSection):
    """Holds and their answers: who answers, which hold classes and tools wait for a person
    (yolo mode's too), whose pushes need no approval, how long a held call waits live and in
    all, and how much of it the hold channel takes and a card previews."""

    heading: ClassVar[str] = "Holds and who answers them"

    owner_id: str = Field(
        default="",
        description="Who the CLI answers approvals as; empty means `local:<your user name>`.",
    )
    owners: CommaList = Field(
        default_factory=list,
        description="Principal ids who may answer approvals (comma-separated); empty = owner_id.",
    )
    owner_repos: CommaList = Field(
        default_factory=list,
        description="Exact owner/repo names whose pushes need no owner's approval (comma list).",
    )
    hold_classes: CommaList = Field(
        default_factory=list,
        description="Hold classes that wait for a person (comma-separated); empty = all four.",
    )
    hold_tools: CommaList = Field(
        default_factory=list,
        description="Agent tools that always wait for a person (comma-separated).",
    )
    yolo_carded_classes: CommaList = Field(
        default_factory=lambda: ["push"],
        description="Hold classes that stop on a card even in yolo mode (comma-separated).",
    )
    yolo_allow: CommaList = Field(
        default_factory=list,
        description="Carded hold classes yolo mode approves after all (comma-separated).",
    )
    hold_wait: Duration = Field(
        default=DEFAULT_HOLD_WAIT,
        description="How long `codedesk hold` waits for an answer before refusing the call.",
    )
    hold_live_wait: Duration = Field(
        default=timedelta(seconds=60),
        description=(
            "How long a held call waits live before the agent is suspended (the `claude`"
            " preset defers the call; the `codex` preset is ended, its thread kept): the job"
            " waits for the approval with no process, no slot and no deadline, then resumes"
            " the session. 0: never suspend; other CLIs wait `hold_wait` as before."
        ),
    )
    hook_timeout: Duration = Field(
        default=DEFAULT_HOOK_TIMEOUT,
        description="The agent's hook timeout (Claude Code's); must exceed hold_wait by 30s.",
    )
    hold_preview_chars: int = Field(
        default=2000,
        ge=100,
        description="Characters of a held call's input its approval card shows (a preview).",
    )
    hold_request_bytes: int = Field(
        default=8 << 20,
        ge=1024,
        description="Largest held call (bytes of JSON) the hold channel takes; larger: refused.",
    )

    @field_validator("hold_classes", "yolo_carded_classes", "yolo_allow")
    @classmethod
    def _known_classes(cls, value: list[str]) -> list[str]:
        unknown = sorted(set(value) - set(HOLD_CLASS_NAMES))
        if unknown:
            raise ValueError(
                f"has unknown hold classes {unknown}: use {', '.join(HOLD_CLASS_NAMES)}"
            )
        return value

    @model_validator(mode="after")
    def _hold_wait_fits_the_hook(self) -> HoldSettings:
        # A hook that times out does not block: the call would run unapproved.
        margin = timedelta(seconds=HOOK_MARGIN_SECONDS)
        if self.hold_wait + margin > self.hook_timeout:
            raise ValueError(
                f"hold_wait (CODEDESK_HOLD_WAIT, {format_duration(self.hold_wait)}) does not fit "
                f"in the agent's hook timeout (CODEDESK_HOOK_TIMEOUT, "
                f"{format_duration(self.hook_timeout)}) with {HOOK_MARGIN_SECONDS}s to spare: a "
                "hook that times out lets the call run, so codedesk starts no job like this. "
                "Shorten the wait or lengthen the hook timeout"
            )
        return self

    @property
    def owner(self) -> str:
        """The principal id the CLI answers as."""
        if self.owner_id:
            return self.owner_id
        try:
            return f"local:{getpass.getuser()}"
        except (KeyError, OSError):
            return "local:owner"
