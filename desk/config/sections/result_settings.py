"""The results' settings: what a job's report lists, and where reports and pushes' results go."""

from __future__ import annotations

from datetime import timedelta
from typing import ClassVar

from pydantic import Field, SecretStr, field_validator

from desk.config.basics.section_base import Duration, SettingsSection
from desk.policy.result_hooks import webhook_url_problem


class ResultSettings(SettingsSection):
    """Reports and their delivery: how much of the agent's output, the commits, the files and
    the held calls a report lists, and the webhook or command each report and push's result is
    delivered to."""

    heading: ClassVar[str] = "Reports and where results go"

    report_output_chars: int = Field(
        default=20_000, ge=100, description="Characters of the agent's final output in a report."
    )
    report_commits: int = Field(default=50, ge=1, description="Commits listed in a report.")
    report_files: int = Field(default=100, ge=1, description="Files listed in a report.")
    report_held_calls: int = Field(
        default=10, ge=1, description="Declined or unanswered calls listed in a report."
    )
    report_held_chars: int = Field(
        default=1000, ge=20, description="Characters of each held call in a report."
    )
    result_webhook: str = Field(
        default="",
        description="An http(s) URL that gets each job's report and push's result as JSON.",
    )
    result_webhook_secret: SecretStr = Field(
        default=SecretStr(""),
        description="Key of the webhook's HMAC-SHA256 signature (X-Codedesk-Signature).",
    )
    result_command: str = Field(
        default="",
        description="A command run with each job's report and push's result as JSON on stdin.",
    )
    result_hook_timeout: Duration = Field(
        default=timedelta(seconds=30), description="How long one delivery of a result may take."
    )
    result_hook_window: Duration = Field(
        default=timedelta(days=1),
        description="How long a result's delivery is tried again before it is given up.",
    )

    @field_validator("result_webhook")
    @classmethod
    def _webhook_url(cls, value: str) -> str:
        problem = webhook_url_problem(value) if value else ""
        if problem:
            raise ValueError(problem)
        return value
