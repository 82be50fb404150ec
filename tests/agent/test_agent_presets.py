"""Agent presets around the agent: a task is text, the CLIs' own files stay out of git, a CLI
that turns its own guards off runs only inside codedesk's sandbox (or by the owner's choice),
and a CLI that exits 0 without working is a failed job."""

from __future__ import annotations

import asyncio
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from activities.checks.preset_checks import check_preset, preset_checks
from activities.sandbox.bubblewrap import BWRAP, choose_sandbox
from desk.agents.message_seams import seam_of, takes_stream
from desk.agents.presets import AGENT_PRESETS, PRESETS, guards_off_refusal
from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome
from desk.payloads.message_payloads import MessageSeam
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agent_pids import agent_tag, codedesk_environment, running_agent
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import CODEDESK, settings_env, shown, started_number
from tests.helpers.repos import git

REPO = "acme/api"


def test_every_preset_passes_the_task_where_it_cannot_be_an_option() -> None:
    """After `--`, glued to its option, or (Claude Code's streaming input) on standard input,
    where the command names no task at all."""
    for name, command in PRESETS.items():
        parts = shlex.split(command)
        task = [part for part in parts if "{task}" in part]
        if seam_of(parts) == MessageSeam.STDIN:
            assert task == [] and takes_stream(parts), name
            continue
        assert len(task) == 1, name
        glued = task[0] != "{task}" and task[0].startswith("--") and task[0].endswith("={task}")
        after_dashes = parts[-2:] == ["--", "{task}"]
        assert glued or after_dashes, (name, command)


def test_a_guards_off_command_is_refused_unconfined_and_the_refusal_names_the_setting() -> None:
    codex = shlex.split(PRESETS["codex"])
    reason = guards_off_refusal(codex, confined=False, allowed=False)
    assert reason is not None
    assert "--dangerously-bypass-approvals-and-sandbox" in reason
    assert "CODEDESK_UNCONFINED_GUARDS_OFF=true" in reason and "CODEDESK_SANDBOX" in reason
    assert guards_off_refusal(codex, confined=True, allowed=False) is None
    assert guards_off_refusal(codex, confined=False, allowed=True) is None
    assert guards_off_refusal(["claude", "--dangerously-skip-permissions"], False, False)
    assert guards_off_refusal(shlex.split(PRESETS["claude"]), False, False) is None
    assert [p.name for p in AGENT_PRESETS.values() if p.guards_off] == ["codex"]


def test_preset_checks_find_programs_and_compare_versions(tmp_path: Path) -> None:
    def fake_program(name: str, version_line: str) -> None:
        path = tmp_path / name
        path.write_text(f"#!/bin/sh\necho '{version_line}'\n")
        path.chmod(path.stat().st_mode | stat.S_IEXEC)

    fake_program("claude", "2.1.197 (Claude Code)")
    fake_program("codex", "codex-cli 0.100.0")
    checks = {check.name: check for check in preset_checks(str(tmp_path))}
    assert checks["claude"].ok and checks["claude"].version == "2.1.197", checks["claude"]
    assert checks["claude"].path == str(tmp_path / "claude")
    assert "older than 0.171.0" in checks["codex"].problem, checks["codex"]
    assert checks["aider"].path is None and "PyPI aider-chat" in checks["aider"].problem
    goose = check_preset(AGENT_PRESETS["goose"], str(tmp_path))
    assert not goose.ok and goose.proven_version == ""


async def test_a_task_is_text_from_the_argument_stdin_or_a_file(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path, gates: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    env = settings_env(settings)
    task_file = tmp_path / "task.md"
    task_file.write_text("--version\n\nthen fix it\n")
    told = []
    for index, (args, stdin) in enumerate(
        [
            (["-v fix it"], ""),
            (["--version"], ""),
            (["-"], "-rf from stdin\n"),
            (["--task-file", str(task_file)], ""),
        ]
    ):
        # The agent waits while the test reads its environment from outside (it may be
        # sandboxed: it cannot write a file for the test).
        tag, go = agent_tag(), gates / f"go-{index}"
        command = agent(tag, f"wait:{go}")
        # In a thread: the worker of this test runs on this event loop.
        started = await asyncio.to_thread(
            subprocess.run,
            [CODEDESK, "task", REPO, *args, "--agent-command", command],
            env=env,
            cwd=tmp_path,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=90,
            check=False,
        )
        assert started.returncode == 0, shown(started)
        number = started_number(started)
        pid = await running_agent(settings.home, number, tag)
        told.append(codedesk_environment(pid)["CODEDESK_TASK"])
        go.touch()
        report = await desk.wait(number)
        assert report.outcome == JobOutcome.NOTHING, report
    assert told == ["-v fix it", "--version", "-rf from stdin", "--version\n\nthen fix it"]


def test_a_task_given_twice_or_not_at_all_or_empty_is_a_usage_error(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "CODEDESK_HOME": str(tmp_path)}
    for args, stdin, words in [
        ([], "", "Give the task"),
        (["fix", "--task-file", str(tmp_path / "t")], "", "Give the task"),
        (["-"], "  \n", "The task is empty"),
        (["--task-file", str(tmp_path / "missing")], "", "cannot be read"),
    ]:
        done = subprocess.run(
            [CODEDESK, "task", REPO, *args],
            env=env,
            cwd=tmp_path,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 2, shown(done)
        assert words in " ".join(done.stderr.split()).replace("│", ""), shown(done)


async def test_files_an_agent_cli_writes_for_itself_are_kept_out_of_git(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(
        REPO,
        "notes",
        agent_command=agent(
            "write:.aider.tags.cache.v4/cache.db=map",
            "write:NOTES.md=notes",
            "commit:notes",
            "write:.aider.chat.history.md=after the commit",
        ),
    )
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    clone = settings.shelf_dir / "acme" / "api"
    assert git(clone, "show", "--name-only", "--format=", "HEAD") == "NOTES.md"
    assert git(clone, "status", "--porcelain") == ""
    exclude = (clone / ".git" / "info" / "exclude").read_text()
    assert exclude.count(".aider*") == 1
    again = await desk.start_job(REPO, "again", agent_command=agent("say:hi"))
    assert (await desk.wait(again)).outcome == JobOutcome.NOTHING
    assert (clone / ".git" / "info" / "exclude").read_text() == exclude


@pytest.mark.unconfined("proves the refusal of a guards-off agent where nothing confines it")
async def test_a_guards_off_agent_does_not_start_unconfined_unless_the_owner_opts_in(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    command = "sh -c 'echo the agent ran' --dangerously-bypass-approvals-and-sandbox"
    number = await desk.start_job(REPO, "anything", agent_command=command)
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.FAILED, report
    assert "CODEDESK_UNCONFINED_GUARDS_OFF=true" in report.reason, report
    assert "the agent ran" not in Path(report.log_path).read_text()


@pytest.fixture
def opted_in(settings: DeskSettings) -> DeskSettings:
    return settings.model_copy(update={"unconfined_guards_off": True})


@pytest.mark.unconfined("proves the owner's opt-in for a guards-off agent that nothing confines")
async def test_an_owner_may_let_a_guards_off_agent_run_unconfined(
    opted_in: DeskSettings, client: object, origin: Path
) -> None:
    from temporalio.client import Client

    from workers.desk_handle import configure_desk
    from workers.worker import build_worker

    assert isinstance(client, Client)
    async with build_worker(client, opted_in):
        await configure_desk(client, opted_in)
        desk = DeskClient(client, opted_in)
        await desk.add_repo(REPO, str(origin))
        command = "sh -c 'echo the agent ran' --dangerously-bypass-approvals-and-sandbox"
        report = await desk.wait(await desk.start_job(REPO, "anything", agent_command=command))
    assert report.outcome == JobOutcome.NOTHING, report
    assert "the agent ran" in report.output


@pytest.mark.skipif(
    choose_sandbox("auto").mode != BWRAP, reason="bubblewrap does not work on this host"
)
async def test_a_guards_off_agent_runs_in_the_sandbox_without_an_opt_in(
    desk: DeskClient, origin: Path
) -> None:
    # The sandbox stands in for the guards the agent's CLI turned off.
    await desk.add_repo(REPO, str(origin))
    command = "sh -c 'echo the agent ran' --dangerously-bypass-approvals-and-sandbox"
    report = await desk.wait(await desk.start_job(REPO, "anything", agent_command=command))
    assert report.outcome == JobOutcome.NOTHING, report
    assert report.confinement == BWRAP, report
    assert "the agent ran" in report.output


async def test_a_preset_cli_that_exits_0_without_working_fails_the_job_with_its_reason(
    desk: DeskClient, origin: Path, tmp_path: Path
) -> None:
    fake_aider = tmp_path / "bin" / "aider"
    fake_aider.parent.mkdir()
    fake_aider.write_text(
        "#!/bin/sh\necho 'Aider v0.86.2'\n"
        "echo 'litellm.APIConnectionError: OpenAIException - Connection error.'\nexit 0\n"
    )
    fake_aider.chmod(0o755)
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "fix", agent_command=f"{fake_aider} --message={{task}}")
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.FAILED, report
    assert report.reason == (
        "aider could not work: litellm.APIConnectionError: OpenAIException - Connection error."
    )
    assert report.failure_category == "agent"
    assert report.exit_code == 0


def test_the_python_running_the_tests_is_not_a_preset() -> None:
    assert Path(sys.executable).name not in {p.program for p in AGENT_PRESETS.values()}


def test_the_exclude_file_keeps_what_it_had_and_gets_each_pattern_once(tmp_path: Path) -> None:
    from activities.agent.process.files import MARK, exclude_agent_files
    from desk.agents.presets import all_own_files

    exclude = tmp_path / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True)
    exclude.write_text("# mine\n*.local")
    exclude_agent_files(tmp_path)
    exclude_agent_files(tmp_path)
    lines = exclude.read_text().splitlines()
    assert lines == ["# mine", "*.local", MARK, *all_own_files()]
    fresh = tmp_path / "fresh"
    (fresh / ".git").mkdir(parents=True)
    exclude_agent_files(fresh)
    assert (fresh / ".git" / "info" / "exclude").read_text().splitlines() == [
        MARK,
        *all_own_files(),
    ]
