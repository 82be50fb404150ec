"""The display's settings: how much a listing, a card or a failure shows, and in which zone."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field, field_validator

from desk.config.basics.dates import zone_of
from desk.config.basics.defaults import (
    CARD_VALUE_CHARS_MIN,
    DEFAULT_CARD_VALUE_CHARS,
    DEFAULT_LIST_LIMIT,
    LIST_LIMIT_MIN,
)
from desk.config.basics.section_base import SettingsSection
from desk.errors import SettingsError
from desk.scrub import DIAGNOSTIC_CHARS


class DisplaySettings(SettingsSection):
    """What a person is shown: the entries a listing shows, the commits `repo list` shows, the
    characters of a card's value and of a failure's quoted output, and the time zone of every
    date."""

    heading: ClassVar[str] = "What a person is shown"

    list_limit: int = Field(
        default=DEFAULT_LIST_LIMIT,
        ge=LIST_LIMIT_MIN,
        description="Entries `codedesk jobs` and `codedesk approvals` show, newest first.",
    )
    repo_list_commits: int = Field(
        default=3, ge=1, le=50, description="Last commits of each clone that `repo list` shows."
    )
    card_value_chars: int = Field(
        default=DEFAULT_CARD_VALUE_CHARS,
        ge=CARD_VALUE_CHARS_MIN,
        description="Characters of one value a terminal approval card shows; the rest is counted.",
    )
    diagnostic_chars: int = Field(
        default=DIAGNOSTIC_CHARS,
        ge=80,
        description="Characters of a failed command's (scrubbed) words a failure quotes: "
        "git's, gh's and the agent CLI's.",
    )
    time_zone: str = Field(
        default="",
        description="IANA time zone of every date a person reads (e.g. Europe/Berlin); "
        "empty: the machine's.",
    )

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            zone_of(value)
        except SettingsError as error:
            raise ValueError(str(error).rstrip(".")) from None
        return value
