"""The few settings a listing needs (home, server, namespace, task queue, list limit, card
width, time zone), read without pydantic; anything unusual is left to `desk.config.settings`.

`desk.config.settings.DeskSettings` stays the one definition and the one parser of every setting.
Both take the sources, these settings' defaults, their least values and the plain rules from
`desk.config.basics.defaults`, and `read_reach` answers only when the environment and the TOML
file give them as plain values it reads exactly as DeskSettings would (tests/config/test_reach.py
holds the two equal); otherwise it asks `load_settings`, which also names a bad value. Every
other setting the environment or the TOML file gives is judged too (desk/config/plain_values.py):
a bad value of any setting stops a listing as it stops every command. Importing pydantic and
pydantic-settings costs a listing about three times what the rest of its start does.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desk.config.basics.dates import zone_of
from desk.config.basics.defaults import (
    CARD_VALUE_CHARS_MIN,
    DEFAULT_CARD_VALUE_CHARS,
    DEFAULT_HOME,
    DEFAULT_LIST_LIMIT,
    DEFAULT_NAMESPACE,
    DEFAULT_TASK_QUEUE,
    ENV_PREFIX,
    LIST_LIMIT_MIN,
    NOT_BLANK,
    TLS_SETTINGS,
    blank,
    config_file,
    not_a_directory,
)
from desk.config.basics.setting_names import SETTING_NAMES
from desk.config.plain_values import surely_valid
from desk.errors import SettingsError

if TYPE_CHECKING:
    from desk.config.settings import DeskSettings

DEFAULTS: dict[str, Any] = {
    "home": DEFAULT_HOME,
    "temporal_address": "",
    "namespace": DEFAULT_NAMESPACE,
    "task_queue": DEFAULT_TASK_QUEUE,
    "list_limit": DEFAULT_LIST_LIMIT,
    "card_value_chars": DEFAULT_CARD_VALUE_CHARS,
    "time_zone": "",
}
"""The settings `Reach` holds and their defaults, as DeskSettings declares them."""

MINIMUMS = {"list_limit": LIST_LIMIT_MIN, "card_value_chars": CARD_VALUE_CHARS_MIN}
"""The integer settings among them, each with its least value."""


@dataclass(frozen=True)
class Reach:
    """What a command needs to reach the desk's server and list what it holds."""

    home: Path
    temporal_address: str
    namespace: str
    task_queue: str
    list_limit: int
    card_value_chars: int
    time_zone: str
    settings: DeskSettings | None = field(default=None, compare=False)
    """Every setting, when they had to be read in full (a frontend behind TLS needs them)."""


def read_reach() -> Reach:
    """These settings, read plainly when that is exact, else by `load_settings`.

    Raises SettingsError (from `load_settings`) for a bad value, as every command does.
    """
    plain = plain_reach()
    if plain is not None:
        return plain
    from desk.config.settings import load_settings

    return reach_of(load_settings())


def reach_of(settings: DeskSettings) -> Reach:
    """The `Reach` part of settings read in full."""
    return Reach(**{name: getattr(settings, name) for name in DEFAULTS}, settings=settings)


def plain_reach() -> Reach | None:
    """These settings from the environment, the TOML file and the defaults; None when any
    setting is given in a way only DeskSettings can judge (a different case, an odd value)."""
    given = _from_toml()
    if given is None:
        return None
    tls = {ENV_PREFIX + name.upper() for name in TLS_SETTINGS}
    if any(key.upper() in tls for key in os.environ):
        return None  # the frontend is behind TLS: its settings are read in full
    for name in SETTING_NAMES:
        variable = ENV_PREFIX + name.upper()
        spellings = [key for key in os.environ if key.upper() == variable]
        if spellings not in ([], [variable]):
            return None  # pydantic-settings reads names in any case: it decides
        if spellings:
            given[name] = os.environ[variable]
    others = {name: value for name, value in given.items() if name not in DEFAULTS}
    if not surely_valid(others):
        return None
    values = {name: _plain(name, given.get(name, default)) for name, default in DEFAULTS.items()}
    if any(value is None for value in values.values()):
        return None
    return Reach(**values)


def _from_toml() -> dict[str, Any] | None:
    """The settings the TOML file gives ({} without a file); None if it is not plain."""
    path = config_file()
    if path is None:
        return {}
    try:
        with path.open("rb") as toml:
            document = tomllib.load(toml)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None  # a missing or broken file: load_settings says what is wrong
    for key in document:
        if key.lower() in SETTING_NAMES and key != key.lower():
            return None
        if key.lower() in TLS_SETTINGS:
            return None
    return {name: document[name] for name in SETTING_NAMES if name in document}


def _plain(name: str, value: Any) -> Any:
    """The value DeskSettings makes of `value` for setting `name`, or None when unsure."""
    if name in MINIMUMS:
        if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 10:
            value = int(value)
        if type(value) is not int or value < MINIMUMS[name]:
            return None
        return value
    if type(value) is not str:
        return None
    if name == "home":
        if blank(value) or not_a_directory(Path(value)):
            return None
        return Path(value).expanduser()
    if name in NOT_BLANK and blank(value):
        return None
    if name == "time_zone":
        try:
            zone_of(value)
        except SettingsError:
            return None
    return value
