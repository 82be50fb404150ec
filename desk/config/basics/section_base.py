"""What every section of the settings shares: where settings come from, and the kinds of value
several sections take (comma lists, durations, a blank that means none).

Each section (desk/config/sections/) is a `SettingsSection`; `DeskSettings` composes them, so
every setting keeps its flat name: the environment variable `CODEDESK_<NAME>` and the
codedesk.toml key `<name>`, whichever section it is in.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any, ClassVar

from pydantic import BeforeValidator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from desk.config.basics.defaults import ENV_PREFIX, blank, config_file
from desk.config.basics.durations import MAX_DURATION, format_duration, parse_duration
from desk.errors import DeskError


class SettingsSection(BaseSettings):
    """A group of settings by what they configure, read from the environment and the TOML file.

    Precedence, highest first: values passed in code (CLI options), environment variables, the
    TOML file (`$CODEDESK_CONFIG`, else `./codedesk.toml` when it exists), defaults.
    """

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore", defer_build=True)

    heading: ClassVar[str]
    """What the section configures, as the settings reference heads its table."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        toml = config_file()
        if toml is not None:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=toml))
        return tuple(sources)


def comma_list(value: Any) -> Any:
    """A comma-separated text as its items, spaces and empty items dropped; a list as it is."""
    if isinstance(value, str):
        return [item.strip() for item in value.split(",") if item.strip()]
    return value


def read_duration(value: Any) -> timedelta:
    """A duration as settings write it (`90s`, `1h30m`, `PT1H`, seconds), longer than zero and
    no longer than Temporal takes."""
    try:
        duration = parse_duration(value)
    except DeskError as error:
        raise ValueError(str(error)) from None
    if duration <= timedelta(0):
        raise ValueError("must be longer than zero")
    if duration > MAX_DURATION:
        raise ValueError(
            f"is longer than the longest duration codedesk takes "
            f"({format_duration(MAX_DURATION)}, 2,147,483,647 ms)"
        )
    return duration


def blank_is_none(value: Any) -> Any:
    """An empty setting as no value: codedesk's own instructions (not a file named "."), no
    limit."""
    return None if isinstance(value, str) and blank(value) else value


CommaList = Annotated[list[str], NoDecode, BeforeValidator(comma_list)]
"""A list setting: comma-separated in the environment, a list or a comma text in TOML."""
Duration = Annotated[timedelta, BeforeValidator(read_duration)]
"""A duration setting (desk/config/basics/durations.py says which forms it takes)."""
