"""A repository's worktree set-up and check, set by the owner, in jobs run in the sandbox."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType

from activities.sandbox.bubblewrap import choose_sandbox
from activities.setup.steps import setup_now
from desk.config.settings import DeskSettings
from desk.holds.approvals import Decision, Principal
from desk.names import SETUP_MEMO, repo_workflow_id
from desk.payloads.jobs import JobOutcome, JobReport
from desk.payloads.ship_payloads import PushStatus
from desk.records.repo_setup import CheckStatus, RepoSetup, SetRepoSetup
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.repo_setup_client import RepoSetupClient
from surfaces.render.layout.approval_layout import approval_card
from surfaces.render.layout.report_reasons import report_reason
from surfaces.render.terminal.block_lines import plain
from tests.helpers.agents import agent
from tests.helpers.forge import fake_gh
from tests.helpers.job_waits import open_ids, scheduled_activities
from tests.helpers.repos import git, make_origin
from tests.helpers.waiting import eventually

REPO = "acme/api"
ENV_TEXT = "API_URL=http://localhost:8080\\n"


async def repo_with_setup(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path, change: SetRepoSetup
) -> Path:
    origin = make_origin(
        tmp_path / "origins" / "api.git", {"README.md": "# api\n", ".gitignore": "build/\n"}
    )
    clone = Path((await desk.add_repo(REPO, str(origin))).path)
    if change.copy_files:  # an untracked file not yet excluded would make the clone unclean
        (clone / ".env").write_text(ENV_TEXT.replace("\\n", "\n"))
        (clone / "config").mkdir()
        (clone / "config" / "local.toml").write_text("port = 1\n")
    await RepoSetupClient(desk.client, settings).configure(change)
    return clone


async def test_the_agent_gets_the_copied_files_and_the_set_ups_work(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path
) -> None:
    change = SetRepoSetup(
        repo=REPO,
        setup="mkdir -p build && cat .env > build/from-setup && echo set-up ran",
        copy_files=[".env", "config/local.toml"],
        check="test -f notes.txt && echo check passed",
    )
    clone = await repo_with_setup(desk, settings, tmp_path, change)
    number = await desk.start_job(
        REPO,
        "edit",
        agent_command=agent(
            f"require:.env={ENV_TEXT}",
            "require:config/local.toml=port = 1\\n",
            f"require:build/from-setup={ENV_TEXT}",
            "write:notes.txt=hello",
            "commit:add notes",
        ),
    )
    report = await desk.wait(number)

    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.confinement == choose_sandbox("auto").mode
    assert git(clone, "show", "--name-only", "--format=", "HEAD").splitlines() == ["notes.txt"]
    assert report.check is not None
    assert report.check.status == CheckStatus.PASSED, report.check
    assert "check passed" in report.check.output
    log = Path(report.log_path).read_text()
    assert "set-up ran" in log and "check passed" in log
    exclude = Path(git(clone, "rev-parse", "--git-path", "info/exclude"))
    assert {"/.env", "/config/local.toml"} <= set((clone / exclude).read_text().splitlines())


async def test_a_failed_check_blocks_integration_and_is_in_the_report(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path
) -> None:
    change = SetRepoSetup(repo=REPO, check="echo 'tests: 1 failed'; exit 3")
    clone = await repo_with_setup(desk, settings, tmp_path, change)
    number = await desk.start_job(
        REPO, "edit", agent_command=agent("write:notes.txt=hello", "commit:add notes")
    )
    report = await desk.wait(number)

    assert report.outcome == JobOutcome.FAILED, report
    assert report.check is not None
    assert report.check.status == CheckStatus.FAILED
    assert report.check.exit_code == 3
    assert "tests: 1 failed" in report.check.output
    assert "The check" in report.reason
    assert git(clone, "log", "--format=%s", "main").splitlines() == ["initial"]
    assert report.branch_kept


async def test_a_failed_check_that_does_not_block_is_reported_and_integrated(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path
) -> None:
    change = SetRepoSetup(repo=REPO, check="echo flaky; exit 1", check_blocks=False)
    clone = await repo_with_setup(desk, settings, tmp_path, change)
    number = await desk.start_job(
        REPO, "edit", agent_command=agent("write:notes.txt=hello", "commit:add notes")
    )
    report = await desk.wait(number)

    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.check is not None and report.check.status == CheckStatus.FAILED
    assert "flaky" in report.check.output
    assert git(clone, "log", "-1", "--format=%s", "main") == "add notes"


async def test_a_failing_set_up_ends_the_job_before_the_agent(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path, gates: Path
) -> None:
    change = SetRepoSetup(repo=REPO, setup="echo 'npm ERR! missing lockfile'; exit 9")
    await repo_with_setup(desk, settings, tmp_path, change)
    number = await desk.start_job(REPO, "edit", agent_command=agent("say:agent-started"))
    report = await desk.wait(number)

    assert report.outcome == JobOutcome.FAILED, report
    assert "exit 9" in report.reason and "npm ERR! missing lockfile" in report.reason
    assert "agent-started" not in Path(report.log_path).read_text()


async def test_a_set_up_file_that_is_a_symlink_is_refused(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path
) -> None:
    change = SetRepoSetup(repo=REPO, copy_files=["secrets.env"])
    clone = await repo_with_setup(desk, settings, tmp_path, change)
    (tmp_path / "outside.env").write_text("TOKEN=outside\n")
    (clone / "secrets.env").symlink_to(tmp_path / "outside.env")
    number = await desk.start_job(REPO, "edit", agent_command=agent("say:agent-started"))
    report = await desk.wait(number)

    assert report.outcome == JobOutcome.FAILED, report
    assert "secrets.env is a symlink" in report.reason


async def test_a_failed_check_is_on_the_card_of_the_push_of_that_work_and_it_ships_as_a_pr(
    desk: DeskClient,
    settings: DeskSettings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """End to end: a check that fails without blocking, an agent's approved `git push origin
    HEAD:main`, and a repository set to ship by pull request (`repo set --no-check-blocks
    --pr`): the push codedesk asks for names the failed check on its card, and ships as a pull
    request of exactly the integrated SHA through the host's gh (a fake on PATH)."""
    bin_dir, gh_state = fake_gh(tmp_path / "forge")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    change = SetRepoSetup(
        repo=REPO, check="echo lint says no && exit 3", check_blocks=False, pull_requests=True
    )
    await repo_with_setup(desk, settings, tmp_path, change)
    push = json.dumps({"tool": "Bash", "input": {"command": "git push origin HEAD:main"}})
    number = await desk.start_job(
        REPO,
        "edit and push",
        agent_command=agent("write:notes.txt=hi", "commit:notes", f"hold:{push}", "say:x"),
    )
    approvals = ApprovalsClient(desk.client)
    owner = Principal(id=settings.owner)
    [ident] = await open_ids(approvals)
    assert (await approvals.answer(ident, Decision.APPROVE, owner))[0].counted
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.check is not None and report.check.status == CheckStatus.FAILED
    [shipped] = report.ship_requests
    [card_state] = await eventually(
        approvals.open_approvals,
        lambda states: [s for s in states if s.approval_id == shipped.push_approval_id],
        f"the push approval {shipped.push_approval_id} to open",
    )
    assert card_state.request.tool == "pull request"
    assert card_state.request.input["pull_request_branch"] == f"codedesk/job-{number}"
    card = "\n".join(plain(approval_card(card_state, value_chars=200)))
    assert "check `echo lint says no && exit 3` failed (exit code 3)" in card, card
    assert (await approvals.answer(shipped.push_approval_id, Decision.APPROVE, owner))[0].counted
    pushed = await desk.client.get_workflow_handle(shipped.push_workflow_id).result()
    assert pushed["status"] == PushStatus.PUSHED.value, pushed
    assert pushed["pull_request_url"].startswith("https://github.com/acme/api/pull/"), pushed
    origin = tmp_path / "origins" / "api.git"
    assert git(origin, "rev-parse", f"codedesk/job-{number}") == report.head
    assert (gh_state / "prs.json").exists()


async def worktree_of(desk: DeskClient, number: int) -> Path:
    status = await eventually(
        lambda: desk.status(number), lambda got: got[1].worktree, f"job {number}'s worktree"
    )
    return Path(status[1].worktree)


async def job_in_its(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path, step: str, command: str, made: str
) -> tuple[Path, int, Path]:
    """A job whose set-up or check (`step`) runs `command`, once that made the worktree's file
    `made`: the clone, the job's number and its worktree."""
    change = SetRepoSetup.model_validate({"repo": REPO, step: command})
    clone = await repo_with_setup(desk, settings, tmp_path, change)
    number = await desk.start_job(
        REPO, "edit", agent_command=agent("write:notes.txt=hello", "commit:add notes")
    )
    worktree = await worktree_of(desk, number)
    await eventually(lambda: (worktree / made).exists(), bool, f"the {step} command to start")
    return clone, number, worktree


def assert_cancelled_in(step: str, report: JobReport, clone: Path) -> None:
    """The job ended cancelled with nothing integrated; its branch kept once its agent ran."""
    assert report.outcome == JobOutcome.CANCELLED, report
    assert git(clone, "log", "--format=%s", "main").splitlines() == ["initial"]
    if step == "setup":
        assert report_reason(report) == "Cancelled before the agent ran."
    else:
        assert report.branch_kept, report
        assert "add notes" in git(clone, "log", "--format=%s", report.branch)


@pytest.mark.parametrize("step", ["setup", "check"])
async def test_a_job_cancelled_during_its_set_up_or_check_ends_cancelled_with_a_report(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path, step: str
) -> None:
    """The cancel reaches the command (its process group is killed) and the job reports it."""
    command = f"touch .{step}-started && sleep 600"
    clone, number, _ = await job_in_its(desk, settings, tmp_path, step, command, f".{step}-started")
    await desk.cancel(number)

    assert_cancelled_in(step, await desk.wait(number), clone)


@pytest.mark.parametrize("step", ["setup", "check"])
async def test_a_job_cancelled_as_its_set_up_or_check_ends_is_cancelled_not_integrated(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path, step: str
) -> None:
    """A cancel reaches a running command only at its step's next heartbeat (seconds apart): a
    command that ends before it gives the job its result, and the SDK, which waits for a
    cancelled step's end, clears the cancel as it returns. The job must still end cancelled,
    with nothing integrated. The moment is made: the command waits on a gate the test opens
    once the job has asked the step to stop."""
    gate = "build/may-end"  # ignored: the worktree stays clean for its integration
    command = f"mkdir -p build && touch build/started && while [ ! -e {gate} ]; do sleep 0.02; done"
    clone, number, worktree = await job_in_its(
        desk, settings, tmp_path, step, command, "build/started"
    )
    await desk.cancel(number)
    await eventually(
        lambda: desk.history(number),
        lambda events: any(
            event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED
            for event in events
        ),
        f"the job to ask its {step} to stop",
    )
    (worktree / gate).touch()

    assert_cancelled_in(step, await desk.wait(number), clone)


async def test_a_job_skips_the_steps_it_has_nothing_for_and_a_check_set_mid_job_still_runs(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path, gates: Path
) -> None:
    """A repository with no set-up costs a job no set-up or check step (issue 32); a check the
    owner sets while an agent works still keeps that agent's failing work out."""
    clone = await repo_with_setup(desk, settings, tmp_path, SetRepoSetup(repo=REPO))
    plain = await desk.start_job(REPO, "edit", agent_command=agent("write:one.txt=1", "commit:one"))
    done = await desk.wait(plain)
    watched = await desk.start_job(
        REPO,
        "edit",
        agent_command=agent(f"wait:{gates / 'go'}", "write:two.txt=2", "commit:two"),
    )
    await worktree_of(desk, watched)
    check = "echo check ran; exit 1"
    await RepoSetupClient(desk.client, settings).configure(SetRepoSetup(repo=REPO, check=check))
    (gates / "go").touch()
    blocked = await desk.wait(watched)

    assert done.outcome == JobOutcome.INTEGRATED and done.check is None, done
    steps = await scheduled_activities(desk, plain)
    assert "prepare_worktree" in steps and "run_agent" in steps, steps
    assert not {"set_up_worktree", "check_worktree"} & set(steps), steps
    assert blocked.outcome == JobOutcome.FAILED, blocked
    assert blocked.check is not None and "check ran" in blocked.check.output
    steps = await scheduled_activities(desk, watched)
    assert "check_worktree" in steps and "set_up_worktree" not in steps, steps
    assert git(clone, "log", "--format=%s", "main").splitlines() == ["one", "initial"]


async def test_a_job_reads_the_set_up_from_the_entitys_memo_and_none_without_an_entity(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path
) -> None:
    change = SetRepoSetup(repo=REPO, setup="echo set up", check="echo checked")
    await repo_with_setup(desk, settings, tmp_path, change)
    described = await desk.client.get_workflow_handle(repo_workflow_id(REPO)).describe()

    memo = await described.memo()
    assert RepoSetup.model_validate(memo[SETUP_MEMO]) == change.applied_to(RepoSetup())
    assert await setup_now(desk.client, REPO) == change.applied_to(RepoSetup())
    assert await setup_now(desk.client, "acme/never-added") == RepoSetup()
