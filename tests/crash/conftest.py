"""The crash suite's fixtures and its summary of resume times; its tools (kill, restart, check
what a crash left behind) are tests/crash/crashes.py. `mode` (each sandbox mode) and `start_up`
(`codedesk up` subprocesses) are shared with tests/agent and tests/cli, from tests/helpers."""

from __future__ import annotations

import pytest

from desk.config.settings import DeskSettings
from tests.crash.big_repos import Template, make_template
from tests.crash.crashes import (
    GIT_HEARTBEAT_TIMEOUT,
    RESUME_FIGURES,
    STICKY_TIMEOUT,
    ResumeClock,
)
from tests.helpers.agent_runs.agent_processes import mode  # noqa: F401  (a fixture)
from tests.helpers.surfaces.cli_up import start_up  # noqa: F401  (a fixture)


@pytest.fixture(scope="session")
def big_template(tmp_path_factory: pytest.TempPathFactory) -> Template:
    """60,000 files: the fast-forward that the issue saw cut halfway, a kept worktree's clean."""
    return make_template(tmp_path_factory.mktemp("big") / "template.git", 60_000)


@pytest.fixture(scope="session")
def wide_template(tmp_path_factory: pytest.TempPathFactory) -> Template:
    """20,000 files, for the other steps: each as big as a test's time allows."""
    return make_template(tmp_path_factory.mktemp("wide") / "template.git", 20_000)


@pytest.fixture
def settings(settings: DeskSettings) -> DeskSettings:
    """The crash suite's workers (in this process, or started with `settings_env`) wait less
    for a killed worker's git steps and workflows than the host's defaults."""
    return settings.model_copy(
        update={"git_heartbeat_timeout": GIT_HEARTBEAT_TIMEOUT, "sticky_timeout": STICKY_TIMEOUT}
    )


@pytest.fixture
def resume_clock(request: pytest.FixtureRequest) -> ResumeClock:
    return ResumeClock(case=request.node.name)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if RESUME_FIGURES:
        terminalreporter.section("crash suite: time to resume after a restart")
        for figure in RESUME_FIGURES:
            terminalreporter.write_line(figure)
