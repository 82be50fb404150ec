"""Fixtures of the CLI tests: `start_up`, `codedesk up` subprocesses stopped at the end (the
crash suite's too, tests/crash/conftest.py)."""

from __future__ import annotations

from tests.helpers.surfaces.cli_up import start_up  # noqa: F401  (a fixture)
