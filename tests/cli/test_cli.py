"""The `codedesk` console script as a user runs it: real subprocesses, real server, real git."""

from __future__ import annotations

import asyncio
import json
import subprocess
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import typer

from desk.config.settings import DeskSettings
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agent_pids import agent_tag, running_agent
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import (
    CODEDESK,
    Cli,
    assert_refused,
    cli_env,
    pid_dead,
    run_cli,
    settings_env,
    shown,
    started_number,
)
from tests.helpers.repos import git
from tests.helpers.surfaces.cli_desk import REPO
from tests.helpers.waiting import eventually, until


async def test_repo_add_then_list_json(
    desk: DeskClient, cli: Cli, origin: Path, settings: DeskSettings
) -> None:
    added = await cli("repo", "add", REPO, "--from", str(origin))
    assert added.returncode == 0, shown(added)
    path = settings.shelf_dir / "acme" / "api"
    assert f"Added {REPO} at {path}" in added.stdout

    listed = await cli("repo", "list", "--json")
    assert listed.returncode == 0, shown(listed)
    clones = json.loads(listed.stdout)
    assert [entry["repo"] for entry in clones] == [REPO]
    entry = clones[0]
    assert entry["path"] == str(path)
    assert entry["branch"] == "main"
    assert entry["upstream"] == "origin/main"
    assert (entry["ahead"], entry["behind"], entry["dirty"]) == (0, 0, [])
    assert entry["head"] == git(path, "rev-parse", "HEAD")
    assert entry["last_commit"] == "initial"
    assert entry["last_commit_at"]
    assert entry["error"] == ""


async def test_task_wait_integrated_prints_report(cli: Cli, clone: Path) -> None:
    command = agent("say:working on it", "write:hello.txt=hi", "commit:greet")
    done = await cli("task", REPO, "add a greeting", "--agent-command", command, "--wait")
    assert done.returncode == 0, shown(done)
    number = started_number(done)
    assert f"job {number} on {REPO}: integrated" in done.stdout
    assert "activity run_agent started" in done.stdout  # it followed the history
    assert "greet" in done.stdout
    assert "working on it" in done.stdout
    assert git(clone, "log", "-1", "--format=%s") == "greet"
    assert (clone / "hello.txt").read_text() == "hi"


async def test_task_wait_failed_agent_exits_non_zero(cli: Cli, clone: Path) -> None:
    command = agent("say:cannot do this", "exit:3")
    done = await cli("task", REPO, "try and fail", "--agent-command", command, "--wait")
    assert done.returncode != 0, shown(done)
    assert done.returncode not in (134, 139), shown(done)
    assert "Traceback" not in done.stderr, shown(done)
    number = started_number(done)
    assert f"job {number} on {REPO}: failed" in done.stdout, shown(done)
    assert "exit code 3" in done.stdout, shown(done)
    assert "cannot do this" in done.stdout, shown(done)
    assert git(clone, "log", "-1", "--format=%s") == "initial"


async def test_task_without_wait_then_jobs_show_logs(
    cli: Cli, clone: Path, tmp_path: Path, gates: Path
) -> None:
    # The agent waits for the test's go-ahead: `task` must answer while the job still runs.
    go = gates / "go"
    command = agent(f"wait:{go}", "say:hello from the agent", "write:a.txt=a", "commit:add a")
    started = await cli("task", REPO, "add a", "--agent-command", command)
    assert started.returncode == 0, shown(started)
    number = started_number(started)
    assert f"codedesk show {number}" in started.stdout
    running = await cli("show", str(number), "--json")
    assert running.returncode == 0, shown(running)
    assert json.loads(running.stdout)["job"]["report"] is None, shown(running)
    go.touch()

    # Visibility lags behind the workflow: poll until the listing shows the finished job.
    async def listed_row() -> dict[str, Any] | None:
        result = await cli("jobs", "--json")
        assert result.returncode == 0, shown(result)
        row: dict[str, Any] | None = {r["number"]: r for r in json.loads(result.stdout)}.get(number)
        return row

    row = await eventually(
        listed_row,
        lambda row: row is not None and row["outcome"] == "integrated",
        f"job {number} listed as integrated",
    )
    assert row["repo"] == REPO
    assert row["status"] == "completed"
    assert row["phase"] == "done"
    assert row["task"] == "add a"
    assert row["started"]

    as_json = await cli("show", str(number), "--json")
    assert as_json.returncode == 0, shown(as_json)
    document = json.loads(as_json.stdout)
    assert document["number"] == number
    assert document["status"] == "completed"
    assert document["job"]["report"]["outcome"] == "integrated"
    assert [c["subject"] for c in document["job"]["report"]["commits"]] == ["add a"]
    texts = [line["text"] for line in document["history"]]
    assert any(text.startswith("activity run_agent") for text in texts), texts
    assert "workflow completed" in texts
    assert "ui_url" in document

    as_text = await cli("show", str(number))
    assert as_text.returncode == 0, shown(as_text)
    assert f"job {number} {REPO}: completed, phase done" in as_text.stdout
    assert f"job {number} on {REPO}: integrated" in as_text.stdout
    assert "history:" in as_text.stdout
    assert "activity run_agent completed" in as_text.stdout

    logs = await cli("logs", str(number))
    assert logs.returncode == 0, shown(logs)
    assert "hello from the agent" in logs.stdout
    assert "scripted agent: commit 'add a'" in logs.stdout


async def test_dates_are_shown_in_the_time_zone_setting(cli: Cli, clone: Path) -> None:
    done = await cli("task", REPO, "greet", "--agent-command", agent("write:a=a", "commit:a"))
    assert done.returncode == 0, shown(done)
    number = started_number(done)
    document = await desk_report(cli, number)
    started = datetime.fromisoformat(document["job"]["report"]["started_at"])
    # The workflow's start event comes before the report's start (the job's first workflow
    # task), maybe in an earlier second: each is checked against its own instant.
    first_event = datetime.fromisoformat(document["history"][0]["at"])

    for zone, abbreviation in (("UTC", "UTC"), ("Asia/Tokyo", "JST")):
        local = started.astimezone(ZoneInfo(zone))
        date = f"{local:%Y-%m-%d %H:%M:%S} {abbreviation}"
        event_date = f"{first_event.astimezone(ZoneInfo(zone)):%Y-%m-%d %H:%M:%S} {abbreviation}"
        as_text = await cli("show", str(number), CODEDESK_TIME_ZONE=zone)
        assert as_text.returncode == 0, shown(as_text)
        assert f"  started: {date}\n" in as_text.stdout, shown(as_text)
        after = as_text.stdout.split("history:\n", 1)[1].splitlines()
        history = [line for line in after if line.startswith("  ")]
        assert history[0].startswith(f"  {event_date}  workflow CodingJob started"), history
        assert all(line.split("  ")[1].endswith(f" {abbreviation}") for line in history), history

        async def listed(zone: str = zone) -> str:
            listing = await cli("jobs", CODEDESK_TIME_ZONE=zone)
            assert listing.returncode == 0, shown(listing)
            return listing.stdout

        # The listing's start is visibility's: the workflow's start event, not the report's.
        await eventually(
            listed,
            lambda stdout, date=event_date: date in stdout,
            f"listed at {event_date}",
        )


async def desk_report(cli: Cli, number: int) -> dict[str, Any]:
    """`codedesk show N --json` once the job has its report."""

    async def shown_json() -> dict[str, Any]:
        result = await cli("show", str(number), "--json")
        assert result.returncode == 0, shown(result)
        document: dict[str, Any] = json.loads(result.stdout)
        return document

    return await eventually(
        shown_json, lambda document: document["job"]["report"] is not None, "the report"
    )


async def test_cancel_kills_the_agent_and_reports_cancelled(
    cli: Cli, clone: Path, settings: DeskSettings
) -> None:
    tag = agent_tag()  # finds the agent on the host (a sandboxed one's own pid is not)
    command = agent(tag, "sleep:60", "write:late.txt=x", "commit:late")
    started = await cli("task", REPO, "sleep a while", "--agent-command", command)
    assert started.returncode == 0, shown(started)
    number = started_number(started)
    pid = await running_agent(settings.home, number, tag)

    cancelled = await cli("cancel", str(number))
    assert cancelled.returncode == 0, shown(cancelled)
    assert f"job {number} on {REPO}: cancelled" in cancelled.stdout, shown(cancelled)
    await until(lambda: pid_dead(pid), "the agent to die")
    assert git(clone, "log", "-1", "--format=%s") == "initial"
    # --json keeps the reason in words beside the data it is worded from.
    report = (await desk_report(cli, number))["job"]["report"]
    assert (report["reason_kind"], report["reason"]) == ("cancelled", "Cancelled."), report

    again = await cli("cancel", str(number))
    assert_refused(again, "not running")


async def test_bad_repo_name_is_one_line_reason(
    desk: DeskClient, cli: Cli, settings: DeskSettings
) -> None:
    result = await cli("repo", "add", "../x", "--from", "/nonexistent")
    assert_refused(result, "../x", "owner/repo")
    assert not (settings.shelf_dir / "x").exists()


async def test_show_unknown_job(desk: DeskClient, cli: Cli) -> None:
    result = await cli("show", "999")
    assert_refused(result, "no job 999")


async def test_unknown_server_address_is_clear(settings: DeskSettings, tmp_path: Path) -> None:
    env = settings_env(settings, CODEDESK_TEMPORAL_ADDRESS="127.0.0.1:1")
    result = await run_cli(env, "jobs", "--json", cwd=tmp_path)
    assert_refused(result, "Cannot reach the Temporal server at 127.0.0.1:1")


async def test_no_server_known_says_how_to_start_one(tmp_path: Path) -> None:
    env = cli_env(CODEDESK_HOME=str(tmp_path / "empty-home"))
    result = await run_cli(env, "jobs", cwd=tmp_path)
    assert_refused(result, "codedesk up")


@pytest.mark.parametrize(
    ("command", "setting", "value"),
    [
        (["show", "1"], "work_budget", "banana"),
        # A listing reads only the settings it uses (desk/config/reach.py): a bad one of those is
        # named.
        (["jobs"], "list_limit", "banana"),
        (["approvals"], "card_value_chars", "12"),
        (["jobs"], "time_zone", "Mars/Olympus"),
    ],
)
async def test_bad_setting_names_the_setting(
    settings: DeskSettings, tmp_path: Path, command: list[str], setting: str, value: str
) -> None:
    env = settings_env(settings, **{f"CODEDESK_{setting.upper()}": value})
    result = await run_cli(env, *command, cwd=tmp_path)
    assert_refused(result, setting, f"CODEDESK_{setting.upper()}", value)


async def test_bad_timeout_is_refused(cli: Cli, clone: Path, settings: DeskSettings) -> None:
    result = await cli("task", REPO, "anything", "--timeout", "banana")
    assert_refused(result, "banana")
    assert not (settings.jobs_dir / "1").exists()


RUNS, AT_ONCE = 15, 5
"""The console scripts a test runs, and how many of them run at once (they mostly start up)."""


async def test_exit_code_is_stable_over_many_runs(cli: Cli, clone: Path) -> None:
    """The SDK can crash at interpreter exit (sdk-python#300); success must stay exit 0."""
    codes = []
    for _ in range(RUNS // AT_ONCE):  # a few at once: each exit is its own, the suite's time less
        for result in await asyncio.gather(
            *(cli("repo", "list", "--json") for _ in range(AT_ONCE))
        ):
            codes.append(result.returncode)
            assert result.returncode == 0, shown(result)
            assert json.loads(result.stdout)[0]["repo"] == REPO
    assert codes == [0] * RUNS


async def test_version_and_short_help(tmp_path: Path) -> None:
    from importlib.metadata import version

    from surfaces.cli.app import app
    from tests.helpers.cli_helpers import HEAVY, imported

    done, names = imported(["--version"], tmp_path)
    assert done.returncode == 0, shown(done)
    assert done.stdout == f"codedesk {version('codedesk')}\n"
    assert not names & {*HEAVY, "pydantic"}, sorted(names & {*HEAVY, "pydantic"})

    env = cli_env(CODEDESK_HOME=str(tmp_path))
    group = typer.main.get_command(app)
    commands = [[]] + [
        [name, *([sub] if sub else [])]
        for name, command in group.commands.items()
        for sub in (getattr(command, "commands", None) or [""])
    ]

    async def both_helps(command: list[str]) -> None:
        short = await run_cli(env, *command, "-h", cwd=tmp_path)
        long = await run_cli(env, *command, "--help", cwd=tmp_path)
        assert short.returncode == 0 and short.stdout == long.stdout, (command, shown(short))
        assert "-h, --help" in short.stdout, command

    for start in range(0, len(commands), AT_ONCE):
        await asyncio.gather(
            *(both_helps(command) for command in commands[start : start + AT_ONCE])
        )


ARGUMENTS = {
    "task": ["acme/api", "x"],
    "show": ["1"],
    "watch": ["1"],
    "say": ["1", "hi"],
    "logs": ["1"],
    "cancel": ["1"],
    "diff": ["1"],
    "integrate": ["1"],
    "discard": ["1"],
    "pick": ["1", "a"],
    "finish": ["1"],
    "approve": ["job-1"],
    "decline": ["job-1"],
    "withdraw": ["job-1"],
    "report": ["acme/api"],
    "push": ["acme/api", "a" * 40],
    "repo add": ["acme/api"],
    "repo set": ["acme/api", "--check", "true"],
    "repo show": ["acme/api"],
}
"""What each command needs to get past its usage check (the rest run without arguments)."""

READS_NO_SETTINGS = {"hold"}
"""The hold hook reads its job's own configuration, never the settings: it runs in the agent's
sandbox, on the standard library alone, and fails closed (surfaces/hook.py)."""


def every_command() -> list[str]:
    """Each command the console script runs, as its words (`repo add`)."""
    from surfaces.cli.app import app

    def walk(command: object, words: list[str]) -> list[str]:
        subcommands = getattr(command, "commands", None)
        if subcommands is None:
            return [" ".join(words)]
        return [name for key, sub in subcommands.items() for name in walk(sub, [*words, key])]

    return walk(typer.main.get_command(app), [])


LIGHT_READS = ["jobs", "approvals", "spend"]
"""The commands that read their settings plainly (desk/config/reach.py)."""


@pytest.mark.parametrize("config", ["environment", "toml"])
def test_a_bad_setting_stops_every_command_with_the_message_task_gives(
    config: str, tmp_path: Path
) -> None:
    """`CODEDESK_MAX_WORKERS=lots codedesk jobs` once listed jobs: each command says what
    `task` says, word for word, and runs nothing (no server is needed to say it). A bad value
    in the TOML file is tried on the listings, which read it without the settings' parser."""
    env = cli_env(CODEDESK_HOME=str(tmp_path / "home"))
    if config == "environment":
        env["CODEDESK_MAX_WORKERS"] = "lots"
        commands = sorted(set(every_command()) - READS_NO_SETTINGS)
        assert {*LIGHT_READS, "repo list", "task"} <= set(commands), commands
    else:
        (tmp_path / "codedesk.toml").write_text('work_budget = "forever"\n')
        commands = LIGHT_READS

    def stderr_of(command: str) -> str:
        done = subprocess.run(
            [CODEDESK, *command.split(), *ARGUMENTS.get(command, [])],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 1, (command, shown(done))
        return done.stderr

    said = stderr_of("task")
    assert "Bad setting" in said and ("CODEDESK_MAX_WORKERS" in said or "work_budget" in said)
    with ThreadPoolExecutor(AT_ONCE) as pool:
        told = dict(zip(commands, pool.map(stderr_of, commands), strict=True))
    assert {command: text for command, text in told.items() if text != said} == {}
