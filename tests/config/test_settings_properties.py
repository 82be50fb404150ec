"""Property tests of the settings: any value of any setting is taken or named in a SettingsError.

Whatever a `CODEDESK_*` variable holds, `load_settings` either reads it or raises a
SettingsError that names the setting and its variable (never another exception, which a
command would show as a traceback), and the error never shows a credential the value held.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from hypothesis import example, given
from hypothesis import strategies as st

from desk.config.settings import CONFIG_ENV, ENV_PREFIX, DeskSettings, load_settings
from desk.errors import SettingsError

NAMES = sorted(DeskSettings.model_fields)
SECRET = "Zq8Secret"
TOKEN = "ghp_" + "Zq8" * 12
ODD = [
    "",
    " ",
    "-1",
    "0",
    "1e309",
    "nan",
    "inf",
    "9" * 400,
    "99999999999999999999d",
    "P1Y",
    "PT",
    "1h1h",
    "true",
    "yes",
    "[",
    "{",
    '["a"]',
    "a,,b",
    "*",
    "*:*",
    "host:99999",
    "{repo}",
    "/etc/passwd",
    "~nobody-here/x",
    "\udcff",
    "é",
    "\t\n",
]
CREDENTIALS = [
    f"https://user:{SECRET}@example.com/x.git",
    f"https://user:{SECRET}@example.com/{{repo}}.git",
    f"{TOKEN}",
    f"Authorization: Bearer {SECRET}",
]
values = st.one_of(
    st.sampled_from(ODD + CREDENTIALS),
    st.text(st.characters(blacklist_characters="\x00", blacklist_categories=["Cs"]), max_size=40),
    st.lists(st.sampled_from(ODD + CREDENTIALS), min_size=1, max_size=3).map(",".join),
)


@contextmanager
def environment(name: str, value: str) -> Iterator[None]:
    """Only `CODEDESK_<NAME>=value` of codedesk's variables, for the block; then as it was."""
    saved = {key: os.environ.pop(key) for key in list(os.environ) if key.startswith(ENV_PREFIX)}
    os.environ[f"{ENV_PREFIX}{name.upper()}"] = value
    try:
        yield
    finally:
        for key in [key for key in os.environ if key.startswith(ENV_PREFIX)]:
            del os.environ[key]
        os.environ.update(saved)


@given(st.sampled_from(NAMES), values)
@example("clone_source", f"https://user:{SECRET}@example.com/x.git")  # no {repo}: refused
@example("sandbox_egress", "*:*")
@example("work_budget", "99999999999999999999d")
@example("port", "9" * 5000)
def test_any_value_of_any_setting_is_read_or_named_in_a_settings_error(
    name: str, value: str
) -> None:
    assert CONFIG_ENV not in os.environ or name == "config"
    variable = f"{ENV_PREFIX}{name.upper()}"
    with environment(name, value):
        try:
            load_settings()
        except SettingsError as error:
            message = str(error)
        else:
            return
    assert name in message and variable in message, message
    assert SECRET not in message and TOKEN[4:] not in message, message
    assert len(message) < 2000, message  # a huge value is cut, not echoed whole
