"""The host decides: a requester whose environment says the opposite of the host's policy.

The worker (the `desk` fixture) runs with the host's policy; every request comes from the real
console script whose own environment names itself owner, exempts the repository, drops hold
classes, allows yolo pushes and lifts the long-running ceiling. Each is refused or judged by the
host's policy, and the origin never receives an unapproved push.
"""

from __future__ import annotations

import json
import re
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest

from desk.config.settings import DeskSettings
from desk.errors import PolicyError
from desk.holds.approvals import HoldVerdict
from desk.payloads.jobs import JobOutcome
from desk.policy.host import HostPolicy, JobAsk, asked_budget, judged_budget
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import Cli, run_cli, settings_env, shown
from tests.helpers.desks import host_policy
from tests.helpers.holds.asked_holds import ask
from tests.helpers.job_waits import open_ids, working
from tests.helpers.jobs.shipping import commit, refs
from tests.helpers.repos import git
from tests.helpers.waiting import awaited

REPO = "acme/api"
PUSH = {"command": "git push origin main"}

HOSTILE = {
    "CODEDESK_OWNER_REPOS": REPO,
    "CODEDESK_OWNERS": "local:mallory",
    "CODEDESK_OWNER_ID": "local:mallory",
    "CODEDESK_HOLD_CLASSES": "destructive",
    "CODEDESK_YOLO_ALLOW": "push",
    "CODEDESK_YOLO_CARDED_CLASSES": "",
    "CODEDESK_LONG_RUNNING_MAX": "8s",
    "CODEDESK_WORK_BUDGET": "1d",
    "CODEDESK_WORK_BUDGET_MAX": "20d",
    "CODEDESK_REPORT_OUTPUT_CHARS": "100000",
}
"""What the requester's own environment says: the opposite of the host's policy, each."""


@pytest.fixture
def cli(settings: DeskSettings, tmp_path: Path) -> Cli:
    env = settings_env(settings, **HOSTILE)

    async def call(*args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return await run_cli({**env, **extra}, *args, cwd=tmp_path)

    return call


@pytest.fixture(autouse=True)
async def bounded(desk: DeskClient) -> None:
    """The host bounds a job's budget at two hours."""
    await host_policy(desk, work_budget_max=timedelta(hours=2))


def started(result: subprocess.CompletedProcess[str]) -> int:
    found = re.search(r"job (\d+) started", result.stdout)
    assert found, shown(result)
    return int(found.group(1))


async def test_a_job_from_a_hostile_requester_is_judged_by_the_host(
    cli: Cli, desk: DeskClient, settings: DeskSettings, clone: Path
) -> None:
    submitted = await cli("task", REPO, "push it", "--agent-command", agent("sleep:60"))
    number = started(submitted)
    await working(desk, number)
    # What the job holds it to is the host's: all hold classes, its owners, its ceiling.
    pushed = await ask(desk, number, "Bash", PUSH, wait=0.5)
    assert pushed.verdict == HoldVerdict.PENDING and pushed.classes == ["push"]
    [ident] = await open_ids(ApprovalsClient(desk.client))
    [approval] = [
        state
        for state in await ApprovalsClient(desk.client).open_approvals()
        if state.approval_id == ident
    ]
    assert approval.request.owners == settings.owner_ids
    assert "local:mallory" not in approval.request.owners
    inputs = await _job_input(desk, number)
    assert inputs["budget"] == "PT1H"  # the host's default, not the requester's "1d"
    assert inputs["long_running_max"] == "PT4H"
    assert inputs["yolo_allow"] == [] and inputs["yolo_carded_classes"] == ["push"]
    assert inputs["output_chars"] == settings.report_output_chars
    assert inputs["policy_source"] == settings.host
    await desk.cancel(number)
    assert (await awaited(desk.wait(number), "the report")).outcome == JobOutcome.CANCELLED


async def _job_input(desk: DeskClient, number: int) -> dict[str, object]:
    history = await desk.job(number).fetch_history()
    started = history.events[0].workflow_execution_started_event_attributes
    payload = started.input.payloads[0].data
    document: dict[str, object] = json.loads(payload)
    return document


async def test_a_budget_above_the_hosts_bound_is_refused_naming_the_setting(
    cli: Cli, desk: DeskClient, clone: Path
) -> None:
    refused = await cli("task", REPO, "work long", "--timeout", "3h")
    assert refused.returncode != 0
    assert "above the host's bound of 2h00m" in refused.stderr, shown(refused)
    assert "CODEDESK_WORK_BUDGET_MAX" in refused.stderr
    assert await desk.jobs() == []
    within = await cli("task", REPO, "work", "--timeout", "90m", "--agent-command", agent("say:x"))
    number = started(within)
    inputs = await _job_input(desk, number)
    assert inputs["budget"] == "PT1H30M"
    await awaited(desk.wait(number), "the report")


async def test_a_request_may_hold_more_classes_than_the_host(
    desk: DeskClient, settings: DeskSettings, clone: Path
) -> None:
    await host_policy(desk, hold_classes=["push"], work_budget_max=timedelta(hours=2))
    number = (
        await desk.submit_job(
            REPO, "clean", agent_command=agent("sleep:60"), hold_classes=["destructive"]
        )
    ).number
    await working(desk, number)
    inputs = await _job_input(desk, number)
    assert inputs["hold_classes"] == ["push", "destructive"]
    await desk.cancel(number)
    await desk.wait(number)


async def test_an_unknown_hold_class_asked_for_is_refused(desk: DeskClient, clone: Path) -> None:
    with pytest.raises(PolicyError, match="Unknown hold classes nope"):
        await desk.submit_job(REPO, "x", agent_command=agent("say:x"), hold_classes=["nope"])


async def test_a_hostile_requester_cannot_switch_a_mode(cli: Cli) -> None:
    refused = await cli("mode", "yolo", "on")
    assert refused.returncode != 0
    assert "mallory is not an owner" in refused.stderr, shown(refused)


async def test_a_hostile_push_waits_for_an_owner_and_never_reaches_the_origin(
    cli: Cli, desk: DeskClient, clone: Path, origin: Path
) -> None:
    before = refs(origin)
    head = commit(clone, "a.txt", "a\n", "a")
    assert (await cli("report", REPO)).returncode == 0
    asked = await cli("push", REPO, head)
    assert asked.returncode == 0, shown(asked)
    assert "waits for an owner's approval" in asked.stdout
    [ident] = await open_ids(ApprovalsClient(desk.client))
    # The requester calls itself an owner; the approval's owners are the host's.
    answered = await cli("approve", ident)
    assert "did not count. mallory may not answer" in answered.stdout, shown(answered)
    assert refs(origin) == before
    assert git(origin, "rev-parse", "main") != head
    withdrawn = await cli("withdraw", ident, "--reason", "test over")
    assert withdrawn.returncode == 0, shown(withdrawn)
    assert refs(origin) == before


@pytest.mark.parametrize("text", ["0", "0s", "100000d", "25d"])
def test_a_budget_typed_out_of_bounds_is_refused(text: str) -> None:
    with pytest.raises(Exception, match="work budget of"):
        asked_budget(text)


def test_a_budget_within_bounds_is_taken() -> None:
    assert asked_budget("24d") == timedelta(days=24)
    policy = HostPolicy(work_budget=timedelta(minutes=5), work_budget_max=timedelta(hours=1))
    assert judged_budget(JobAsk(), policy) == timedelta(minutes=5)
    assert judged_budget(JobAsk(budget=timedelta(hours=1)), policy) == timedelta(hours=1)
    with pytest.raises(PolicyError, match="above the host's bound of 1h00m"):
        judged_budget(JobAsk(budget=timedelta(hours=1, seconds=1)), policy)
