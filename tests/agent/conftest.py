"""Fixtures of the agent tests: `mode`, each sandbox mode an agent runs in (the crash suite's
too, tests/crash/conftest.py)."""

from __future__ import annotations

from tests.helpers.agent_runs.agent_processes import mode  # noqa: F401  (a fixture)
