"""The console script imports only what a command uses: help and usage errors stay light.

Each case runs the real `codedesk` script with Python's import profiler on and reads which
modules it loaded; nothing here measures time.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from desk.config.settings import DeskSettings
from surfaces.clients.desk_client import DeskClient
from tests.helpers.cli_helpers import (
    HEAVY,
    imported,
    profiled,
    run_cli,
    settings_env,
    shown,
)


def test_help_lists_every_command_without_heavy_imports(tmp_path: Path) -> None:
    """Not even typer: the top-level help is printed from its stored page
    (tests/cli/test_help_page.py checks that it is the app's)."""
    from surfaces.cli.app import app

    done, names = imported(["--help"], tmp_path)
    assert done.returncode == 0, shown(done)
    assert "surfaces" in names, "the import profiler saw nothing: the check would pass vacuously"
    listed = [
        info.name or (info.callback.__name__ if info.callback else "")
        for info in app.registered_commands
    ]
    for command in [*listed, "repo"]:
        assert f"  {command} " in done.stdout, (command, done.stdout)
    heavy = {*HEAVY, "pydantic", "typer"}
    assert not names & heavy, sorted(names & heavy)


@pytest.mark.parametrize(
    ("args", "problem", "heavy"),
    [
        (["task"], "Missing argument 'OWNER/REPO'", {*HEAVY, "pydantic"}),
        (
            ["task", "acme/api", "x", "--timeout"],
            "Option '--timeout' requires an argument",
            {*HEAVY, "pydantic"},
        ),
        (["jobs", "--bogus"], "No such option: --bogus", {*HEAVY, "pydantic"}),
        (["approve"], "Missing argument 'ID'", {*HEAVY, "pydantic"}),
        (["no-such-command"], "No such command 'no-such-command'", {*HEAVY, "pydantic"}),
        # A value that is wrong is checked by typer itself, which says why in pydantic's words.
        (["show", "x"], "Invalid value for 'N': Input should be a valid integer", set(HEAVY)),
        (["jobs", "--limit", "0"], "Input should be greater than or equal to 1", set(HEAVY)),
    ],
    ids=[
        "missing-argument",
        "missing-value",
        "unknown-option",
        "approve",
        "unknown-command",
        "bad-integer",
        "below-minimum",
    ],
)
def test_usage_error_names_the_problem_without_heavy_imports(
    args: list[str], problem: str, heavy: set[str], tmp_path: Path
) -> None:
    done, names = imported(args, tmp_path)
    assert done.returncode == 2, shown(done)
    assert "typer" in names, "the import profiler saw nothing: the check would pass vacuously"
    assert problem in done.stderr, shown(done)
    assert not names & heavy, sorted(names & heavy)


def test_a_command_that_runs_loads_the_sdk_but_not_discord(tmp_path: Path) -> None:
    """`codedesk jobs` with no server known: it gets as far as connecting, without discord.py
    or GitPython (a listing runs no git)."""
    done, names = imported(["jobs"], tmp_path)
    assert done.returncode == 1, shown(done)
    assert "No Temporal server is known" in done.stderr, shown(done)
    assert "temporalio" in names, sorted(names)
    assert not names & {"discord", "git"}, sorted(names & {"discord", "git"})


LISTING_NEVER = {
    "pydantic",
    "pydantic_settings",
    "rich",
    "workflows",
    "activities",
    "discord",
    "git",
    "aiohttp",
}
"""What `codedesk jobs` never loads: settings, workflow definitions, a data converter or a
terminal renderer (piped, it prints plain text)."""

LISTING_SDK_NEVER = ("temporalio.client", "temporalio.worker", "temporalio.converter")
"""The parts of the Temporal SDK a listing does without: it asks the workflow service itself."""


async def test_jobs_lists_from_the_workflow_service_alone(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path
) -> None:
    await desk.add_repo("acme/api", str(origin))
    number = await desk.start_job("acme/api", "list me")
    await desk.wait(number)
    env = settings_env(settings, PYTHONPROFILEIMPORTTIME="1")
    done = await run_cli(env, "jobs", cwd=tmp_path)
    assert done.returncode == 0, shown(done)
    assert done.stdout.splitlines()[1].split()[:4] == [str(number), "acme/api", "done", "nothing"]
    modules = profiled(done.stderr)
    assert "temporalio.service" in modules, "the import profiler saw no connection"
    assert not {name.split(".")[0] for name in modules} & LISTING_NEVER, sorted(modules)
    assert not [name for name in modules if name.startswith(LISTING_SDK_NEVER)], sorted(modules)

    # Approvals are cards of pydantic models, but still no SDK client, settings or workflows.
    done = await run_cli(env, "approvals", cwd=tmp_path)
    assert done.returncode == 0 and "No open approvals." in done.stdout, shown(done)
    modules = profiled(done.stderr)
    assert "desk.holds.approvals" in modules, "the import profiler saw no approval model"
    never = LISTING_NEVER - {"pydantic", "rich"}
    assert not {name.split(".")[0] for name in modules} & never, sorted(modules)
    assert not [name for name in modules if name.startswith(LISTING_SDK_NEVER)], sorted(modules)
