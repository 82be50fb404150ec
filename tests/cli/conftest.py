"""Fixtures of the CLI tests: `start_up`, `codedesk up` subprocesses stopped at the end (the
crash suite's too, tests/crash/conftest.py); `cli`, the console script against the test's desk,
and `clone`, acme/api added through it."""

from __future__ import annotations

from tests.helpers.surfaces.cli_desk import cli, clone  # noqa: F401  (fixtures)
from tests.helpers.surfaces.cli_up import start_up  # noqa: F401  (a fixture)
