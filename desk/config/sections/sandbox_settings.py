"""The sandbox's settings: which sandbox an agent runs in, what it may read and where it may
connect."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field, field_validator

from desk.config.basics.defaults import SANDBOX_MODES, one_of
from desk.config.basics.section_base import CommaList, SettingsSection
from desk.policy.egress_policy import parse_patterns


class SandboxSettings(SettingsSection):
    """The agent's sandbox: bwrap or none, its network through the egress proxy and where that
    proxy lets it connect, the extra paths it may read, and the one way to run without it."""

    heading: ClassVar[str] = "The sandbox"

    sandbox: str = Field(
        default="auto",
        description="Agent sandbox: bwrap, none, or auto (bwrap when it works on this host).",
    )
    sandbox_network: bool = Field(
        default=True,
        description="Whether a sandboxed agent has the network (via the egress proxy; false: no).",
    )
    sandbox_read_paths: CommaList = Field(
        default_factory=list,
        description="Extra paths a sandboxed agent may read, e.g. ~/.claude (comma-separated).",
    )
    sandbox_egress: CommaList = Field(
        default_factory=lambda: ["*"],
        description=(
            "Where a sandboxed agent may connect through the egress proxy: `*` (anywhere "
            "public) or host[:port] patterns; a named loopback host:port is allowed too."
        ),
    )
    sandbox_egress_deny: CommaList = Field(
        default_factory=list,
        description="Destinations (host[:port] patterns) the egress proxy always refuses.",
    )
    unconfined_guards_off: bool = Field(
        default=False,
        description=(
            "Let an agent command that turns its CLI's own guards off (codex "
            "--dangerously-bypass-approvals-and-sandbox) run without codedesk's sandbox."
        ),
    )

    @field_validator("sandbox")
    @classmethod
    def _sandbox_mode(cls, value: str) -> str:
        return one_of(value, SANDBOX_MODES)

    @field_validator("sandbox_egress", "sandbox_egress_deny")
    @classmethod
    def _egress_patterns(cls, value: list[str]) -> list[str]:
        parse_patterns(value)
        return value
