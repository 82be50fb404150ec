"""The chat's settings: the Discord bot, who may use it, and what a job's progress shows."""

from __future__ import annotations

from datetime import timedelta
from typing import ClassVar

from pydantic import Field, SecretStr, field_validator

from desk.config.basics.section_base import CommaList, Duration, SettingsSection


class ChatSettings(SettingsSection):
    """Discord and a job's progress: the bot's token, whose ids may use its commands and where
    they are registered, and how often and how much a job's progress message shows of the
    agent's lines and texts."""

    heading: ClassVar[str] = "Discord and a job's progress"

    discord_token: SecretStr = Field(
        default=SecretStr(""),
        description="The Discord bot's token: give it in the environment; never logged or shown.",
    )
    discord_owner_ids: CommaList = Field(
        default_factory=list,
        description="Discord user ids who may use the bot's commands (comma-separated).",
    )
    discord_owner_role_ids: CommaList = Field(
        default_factory=list,
        description="Discord role ids whose members may use the bot's commands (comma list).",
    )
    discord_guild_ids: CommaList = Field(
        default_factory=list,
        description="Discord servers (guild ids) `codedesk discord --sync` registers commands in.",
    )
    discord_progress_interval: Duration = Field(
        default=timedelta(seconds=5),
        description="At most one edit of a job thread's progress message per this interval.",
    )
    progress_agent_lines: int = Field(
        default=5,
        ge=0,
        le=20,
        description="The agent's latest lines a job's progress message shows (0: none).",
    )
    progress_line_chars: int = Field(
        default=160,
        ge=20,
        le=400,
        description="Characters of each agent line in a job's progress message.",
    )
    progress_text_chars: int = Field(
        default=400,
        ge=0,
        le=4000,
        description=(
            "An agent's own text this long, or with a heading, list, table or code fence, is "
            "posted in the job's thread as a message of its own and printed by `codedesk "
            "watch` (0: never)."
        ),
    )
    progress_text_max: int = Field(
        default=4000,
        ge=200,
        le=20000,
        description="Characters of one such agent text shown; a longer one is cut.",
    )

    @field_validator("discord_owner_ids", "discord_owner_role_ids", "discord_guild_ids")
    @classmethod
    def _snowflakes(cls, value: list[str]) -> list[str]:
        bad = [item for item in value if not item.isdigit()]
        if bad:
            raise ValueError(
                f"has ids that are not Discord ids {bad}: use the numbers Discord's "
                "developer mode copies (right-click, Copy ID)"
            )
        return value
