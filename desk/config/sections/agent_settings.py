"""The agent's settings: its command, instructions and environment, and how long it may work."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Annotated, ClassVar

from pydantic import BeforeValidator, Field, model_validator

from desk.agents.presets import PRESETS
from desk.config.basics.defaults import DEFAULT_WORK_BUDGET, DEFAULT_WORK_BUDGET_MAX
from desk.config.basics.durations import format_duration
from desk.config.basics.section_base import CommaList, Duration, SettingsSection, blank_is_none

AGENT_ENV_DEFAULT = (
    "PATH", "LANG", "LANGUAGE", "LC_*", "TERM", "COLORTERM", "NO_COLOR", "TZ",
    "ANTHROPIC_*", "CLAUDE_CODE_*", "OPENAI_*", "AZURE_OPENAI_*", "GEMINI_API_KEY",
    "OPENROUTER_API_KEY", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
    "http_proxy", "https_proxy", "no_proxy",
)  # fmt: skip
"""What the agent's CLI needs of the worker's environment: locale, terminal, model APIs."""


class AgentSettings(SettingsSection):
    """The coding agent: the command it runs as, its standing instructions, the environment it
    gets, its work budget (and the long-running mode's), how its liveness and latest lines
    reach Temporal, and the longest message a person may send it."""

    heading: ClassVar[str] = "The agent"

    agent_command: str = Field(
        default=PRESETS["claude"],
        description=(
            "The coding agent's command; `{task}` is replaced by the task text (the default"
            " takes it on its streaming input)."
        ),
    )
    agent_instructions: Annotated[Path | None, BeforeValidator(blank_is_none)] = Field(
        default=None,
        description=(
            "A file of standing instructions that replaces codedesk's own for every agent; "
            "it must keep their required sentences. Empty: codedesk's own."
        ),
    )
    agent_env: CommaList = Field(
        default_factory=lambda: list(AGENT_ENV_DEFAULT),
        description="Variables of the worker's environment the agent gets (names, `*` globs).",
    )
    work_budget: Duration = Field(
        default=DEFAULT_WORK_BUDGET,
        description="How long a job's agent may work before it is stopped (e.g. 90s, 10m, 1h).",
    )
    work_budget_max: Duration = Field(
        default=DEFAULT_WORK_BUDGET_MAX,
        description="The longest work budget a job may ask for (`task --timeout`); host policy.",
    )
    budget_asks: bool = Field(
        default=True,
        description=(
            "Whether a job whose work budget or spend limit is reached pauses and asks (a card: "
            "go on, finish here, stop) when its agent can resume; off: it ends as it always "
            "did. Host policy."
        ),
    )
    budget_asks_max: int = Field(
        default=3,
        ge=0,
        description=(
            "How many times one job may ask to go on past its budget; after the last, the "
            "budget ends the job. Host policy."
        ),
    )
    attempts_max: int = Field(
        default=4,
        ge=1,
        description=(
            "The most attempts one task may ask for (`task --agents`, `--attempts`), each an "
            "agent run with a desk slot of its own. Host policy."
        ),
    )
    long_running_check: Duration = Field(
        default=timedelta(seconds=60),
        description="How often a job past its budget in long-running mode looks at the mode.",
    )
    long_running_max: Duration = Field(
        default=timedelta(hours=4),
        description="Hard ceiling of a job's work time in long-running mode, whatever it says.",
    )
    heartbeat_timeout: Duration = Field(
        default=timedelta(seconds=30),
        description="How long a silent agent activity lives before a crashed worker's job moves.",
    )
    agent_progress_interval: Duration = Field(
        default=timedelta(seconds=5),
        description=(
            "How often a working agent's latest lines reach Temporal (its heartbeat), where "
            "a job's Discord thread and `codedesk watch` read them."
        ),
    )
    message_chars: int = Field(
        default=8000,
        ge=1,
        description="The longest message a job's agent may be sent, in characters; host policy.",
    )
    session_keep: Duration = Field(
        default=timedelta(days=7),
        description=(
            "How long a finished job's agent session is kept for a continuation (`codedesk say` "
            "to the job), before the desk removes it; host policy."
        ),
    )

    @model_validator(mode="after")
    def _budget_within_its_bound(self) -> AgentSettings:
        if self.work_budget > self.work_budget_max:
            raise ValueError(
                f"work_budget (CODEDESK_WORK_BUDGET, {format_duration(self.work_budget)}) is "
                f"above work_budget_max (CODEDESK_WORK_BUDGET_MAX, "
                f"{format_duration(self.work_budget_max)}): every job would ask for more than "
                "it may. Lower the budget or raise the bound"
            )
        return self
