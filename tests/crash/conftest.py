"""The crash suite's fixtures and its summary of resume times; its tools (kill, restart, check
what a crash left behind) are tests/crash/crashes.py. `mode` (each sandbox mode) and `start_up`
(`codedesk up` subprocesses) are shared with tests/agent and tests/cli, from tests/helpers."""

from __future__ import annotations

import pytest

from tests.crash.crashes import (
    RESUME_FIGURES,
    ResumeClock,
)
from tests.helpers.agent_runs.agent_processes import mode  # noqa: F401  (a fixture)
from tests.helpers.surfaces.cli_up import start_up  # noqa: F401  (a fixture)


@pytest.fixture
def resume_clock(request: pytest.FixtureRequest) -> ResumeClock:
    return ResumeClock(case=request.node.name)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if RESUME_FIGURES:
        terminalreporter.section("crash suite: time to resume after a restart")
        for figure in RESUME_FIGURES:
            terminalreporter.write_line(figure)
