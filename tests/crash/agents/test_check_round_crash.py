"""A worker SIGKILLed while the agent fixes a failed check (issue 46): the agent of the fix
round dies with it, the next worker's attempt finds the check's message already in the agent's
messages file (delivered once), the fix is committed once, the check passes and the job
integrates, ending exactly once."""

from __future__ import annotations

from pathlib import Path

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from desk.config.settings import DeskSettings
from desk.names import job_workflow_id
from desk.payloads.jobs import JobOutcome
from desk.records.repo_setup import CheckStatus
from surfaces.clients.desk_client import DeskClient
from tests.crash.crashes import REPO, assert_no_leftovers, kill
from tests.helpers.agent_pids import agent_pid, agent_said, agent_tag
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import pid_dead, run_cli, settings_env, shown, started_number
from tests.helpers.processes import StartWorker
from tests.helpers.repos import git
from tests.helpers.waiting import awaited, until

TOLD = "scripted agent: told 1 by codedesk check"


async def test_a_worker_killed_during_the_fix_round_ends_the_job_once(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    start_worker: StartWorker,
    gates: Path,
) -> None:
    env = settings_env(settings)
    first = start_worker(env)
    for args in (
        ("repo", "add", REPO, "--from", str(origin)),
        ("repo", "set", REPO, "--check", "test -f fixed.txt || { echo red; exit 3; }"),
    ):
        done = await run_cli(env, *args, cwd=tmp_path)
        assert done.returncode == 0, shown(done)
    tag = agent_tag()
    go_on = gates / "fix-may-end"
    command = agent(
        "write:notes.txt=hello",
        "commit:add notes",
        tag,
        f"if-told:wait:{go_on}",
        "if-told:write:fixed.txt=ok",
        "if-told:commit:fix",
    )
    started = await run_cli(env, "task", REPO, "notes", "--agent-command", command, cwd=tmp_path)
    assert started.returncode == 0, shown(started)
    number = started_number(started)

    # The fix round's agent is told the check's tail and waits: kill its worker then.
    await until(
        lambda: agent_said(settings.home, number, f"wait for {go_on}"), "the fix round's agent"
    )
    assert agent_said(settings.home, number, TOLD)
    fixing = await until(lambda: agent_pid(tag), "the fix round's agent on the host")
    await kill(first)
    await until(lambda: pid_dead(fixing), "the agent to die with its worker")
    start_worker(env)
    go_on.touch()

    report = await awaited(DeskClient(client, settings).wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert [(r.round, r.status) for r in report.check_rounds] == [
        (1, CheckStatus.FAILED),
        (2, CheckStatus.PASSED),
    ]
    [message] = report.messages
    assert message.delivered is not None and message.delivered.run == 2, message
    clone = settings.shelf_dir / "acme" / "api"
    assert git(clone, "log", "--format=%s").splitlines() == ["fix", "add notes", "initial"]
    handle = client.get_workflow_handle(job_workflow_id(number))
    ends = [
        event
        async for event in handle.fetch_history_events()
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED
    ]
    assert len(ends) == 1
    assert_no_leftovers(clone, fixing)
