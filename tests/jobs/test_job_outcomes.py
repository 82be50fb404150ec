"""Every way a coding job can end, as the user sees it in the report and on disk."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome, ReasonKind
from surfaces.clients.desk_client import DeskClient, JobRow
from surfaces.render.layout.report_reasons import report_reason
from tests.helpers.agent_pids import agent_pids, agent_tag, grandchild_pids, tagged_pids
from tests.helpers.agents import agent, agent_script
from tests.helpers.cli_helpers import pid_dead
from tests.helpers.desks import host_policy
from tests.helpers.job_waits import scheduled_activities
from tests.helpers.repos import git
from tests.helpers.waiting import awaited, eventually, until

REPO = "acme/api"
GITHUB_TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123"


@pytest.fixture
async def clone(desk: DeskClient, origin: Path) -> Path:
    """The origin added to the shelf as acme/api."""
    info = await desk.add_repo(REPO, str(origin))
    return Path(info.path)


async def until_exists(path: Path) -> None:
    await until(
        lambda: path.exists() and (not path.is_file() or path.read_text().strip()),
        f"{path} to appear",
    )


async def until_dead(pid: int) -> None:
    await until(lambda: pid_dead(pid), f"process {pid} to die")


def worker_branches(clone: Path) -> list[str]:
    return git(clone, "branch", "--list", "--format=%(refname:short)", "worker/*").split()


def mid_rebase(checkout: Path) -> bool:
    git_dir = Path(git(checkout, "rev-parse", "--absolute-git-dir"))
    return (git_dir / "rebase-merge").exists() or (git_dir / "rebase-apply").exists()


def commit_in(clone: Path, path: str, text: str, message: str) -> str:
    (clone / path).write_text(text)
    git(clone, "add", path)
    git(clone, "commit", "--quiet", "-m", message)
    return git(clone, "rev-parse", "HEAD")


async def test_two_concurrent_jobs_on_one_repo_both_land(desk: DeskClient, clone: Path) -> None:
    first = await desk.start_job(
        REPO, "one", agent_command=agent("sleep:0.5", "write:one.txt=1", "commit:add one")
    )
    second = await desk.start_job(
        REPO, "two", agent_command=agent("sleep:0.5", "write:two.txt=2", "commit:add two")
    )
    reports = await asyncio.gather(desk.wait(first), desk.wait(second))
    for report in reports:
        assert report.outcome == JobOutcome.INTEGRATED, report
        assert not Path(report.worktree).exists()
    assert (clone / "one.txt").read_text() == "1"
    assert (clone / "two.txt").read_text() == "2"
    subjects = git(clone, "log", "--format=%s").splitlines()
    assert sorted(subjects[:2]) == ["add one", "add two"]
    assert subjects[2:] == ["initial"]
    assert git(clone, "rev-list", "--merges", "HEAD") == ""  # linear: rebased, never merged
    assert git(clone, "rev-parse", "HEAD") in {report.head for report in reports}
    assert git(clone, "status", "--porcelain") == ""
    assert worker_branches(clone) == []


async def test_a_branch_in_one_line_on_an_unmoved_clone_lands_as_the_agent_made_it(
    desk: DeskClient, clone: Path
) -> None:
    number = await desk.start_job(
        REPO,
        "two",
        agent_command=agent("write:a.txt=a", "commit:add a", "write:b.txt=b", "commit:add b"),
    )
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert [commit.subject for commit in report.commits] == ["add a", "add b"]
    made = git(clone, "log", "--reverse", "--format=%H", "HEAD~2..HEAD").split()
    assert [commit.sha for commit in report.commits] == made
    assert report.head == made[-1] == git(clone, "rev-parse", "HEAD")


async def test_a_merge_the_agent_made_is_rebased_into_one_line_on_an_unmoved_clone(
    desk: DeskClient, clone: Path
) -> None:
    # The clone stays where the job's branch was cut, but the branch is no single line:
    # the integration rebases it all the same, as it does on a clone that moved.
    side = agent("write:x.txt=x", "commit:side x")
    main = agent("write:y.txt=y", "commit:main y")
    merging = (
        f'sh -c "git checkout --quiet -b worker/side && {side} && git checkout --quiet - && '
        f'{main} && git merge --quiet --no-ff worker/side -m merged"'
    )
    report = await desk.wait(await desk.start_job(REPO, "merge", agent_command=merging))
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert git(clone, "rev-list", "--merges", "HEAD") == ""
    subjects = git(clone, "log", "--format=%s").splitlines()
    assert sorted(subjects[:2]) == ["main y", "side x"] and subjects[2:] == ["initial"]
    assert (clone / "x.txt").read_text() == "x" and (clone / "y.txt").read_text() == "y"


async def test_a_branch_the_agent_reset_below_its_base_is_rebased_onto_the_base(
    desk: DeskClient, clone: Path
) -> None:
    base = commit_in(clone, "base.txt", "base\n", "second")
    redo = agent("write:redo.txt=r", "commit:redo")
    report = await desk.wait(
        await desk.start_job(
            REPO, "redo", agent_command=f'sh -c "git reset --quiet --hard HEAD~1 && {redo}"'
        )
    )
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert [commit.subject for commit in report.commits] == ["redo"]
    assert git(clone, "log", "--format=%s").splitlines() == ["redo", "second", "initial"]
    assert git(clone, "rev-parse", "HEAD~1") == base
    assert (clone / "base.txt").read_text() == "base\n"


async def test_a_conflict_is_kept_and_the_clone_left_alone(
    desk: DeskClient, clone: Path, tmp_path: Path, gates: Path
) -> None:
    go = gates / "go"  # the agent goes on once a person has committed in the clone
    number = await desk.start_job(
        REPO,
        "rewrite the readme",
        agent_command=agent(f"wait:{go}", "write:README.md=# agent\\n", "commit:agent readme"),
    )
    worktree_git = clone.parent.parent / ".worktrees" / "acme" / "api" / str(number) / ".git"
    await until_exists(worktree_git)
    ours = commit_in(clone, "README.md", "# person\n", "person readme")
    go.touch()

    report = await desk.wait(number)
    assert report.outcome == JobOutcome.CONFLICT, report
    assert report.conflict_files == ["README.md"]
    assert report.branch_kept
    assert report.branch == f"worker/{number}"
    assert report.branch in report.reason and report.worktree in report.reason
    assert [commit.subject for commit in report.commits] == ["agent readme"]
    worktree = Path(report.worktree)
    assert worktree.is_dir()
    assert worker_branches(clone) == [report.branch]
    assert not mid_rebase(worktree)
    assert (worktree / "README.md").read_text() == "# agent\n"
    assert not mid_rebase(clone)
    assert git(clone, "rev-parse", "HEAD") == ours
    assert git(clone, "status", "--porcelain") == ""
    assert (clone / "README.md").read_text() == "# person\n"


async def test_a_dirty_clone_is_not_touched(desk: DeskClient, clone: Path) -> None:
    (clone / "notes.txt").write_text("mine, not committed\n")
    head = git(clone, "rev-parse", "HEAD")
    number = await desk.start_job(
        REPO, "greet", agent_command=agent("write:hello.txt=hi", "commit:greet")
    )
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.REFUSED, report
    assert "notes.txt" in report.reason
    assert "uncommitted" in report.reason
    assert (clone / "notes.txt").read_text() == "mine, not committed\n"
    assert git(clone, "rev-parse", "HEAD") == head
    assert not (clone / "hello.txt").exists()
    assert report.branch_kept
    assert worker_branches(clone) == [report.branch]
    assert Path(report.worktree).is_dir()


def leave_mid_rebase(clone: Path) -> None:
    """A rebase stopped at a `break`: the tree clean, HEAD detached, the rebase's state kept."""
    commit_in(clone, "mine.txt", "mine\n", "Mine")
    git(clone, "-c", "sequence.editor=sed -i '1i break'", "rebase", "--interactive", "HEAD~1")


def leave_mid_merge(clone: Path) -> None:
    """A merge whose commit is still to be made (what `git merge --no-commit` of a change
    that is already in leaves)."""
    (Path(git(clone, "rev-parse", "--absolute-git-dir")) / "MERGE_HEAD").write_text(
        git(clone, "rev-parse", "HEAD") + "\n"
    )


def leave_detached(clone: Path) -> None:
    git(clone, "checkout", "--quiet", "--detach")


@pytest.mark.parametrize(
    ("leave", "said"),
    [
        (leave_mid_rebase, "in the middle of a rebase; finish or abort it"),
        (leave_mid_merge, "in the middle of a merge; finish or abort it"),
        (leave_detached, "has a detached HEAD; check out its branch"),
    ],
    ids=["mid-rebase", "mid-merge", "detached"],
)
async def test_a_clone_in_the_middle_of_something_is_not_touched(
    desk: DeskClient, clone: Path, leave: Callable[[Path], None], said: str
) -> None:
    leave(clone)
    head = git(clone, "rev-parse", "HEAD")
    number = await desk.start_job(
        REPO, "greet", agent_command=agent("write:hello.txt=hi", "commit:greet")
    )
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.REFUSED, report
    assert said in report.reason
    assert git(clone, "rev-parse", "HEAD") == head
    assert report.branch_kept
    assert worker_branches(clone) == [report.branch]


async def test_uncommitted_work_of_the_agent_is_refused_and_kept(
    desk: DeskClient, clone: Path
) -> None:
    head = git(clone, "rev-parse", "HEAD")
    number = await desk.start_job(REPO, "draft", agent_command=agent("write:draft.txt=wip"))
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.REFUSED, report
    assert report.uncommitted == ["draft.txt"]
    assert "uncommitted" in report.reason
    assert report.branch_kept
    assert worker_branches(clone) == [report.branch]
    assert (Path(report.worktree) / "draft.txt").read_text() == "wip"
    assert git(clone, "rev-parse", "HEAD") == head
    assert not (clone / "draft.txt").exists()


async def test_nothing_committed_leaves_nothing_behind(desk: DeskClient, clone: Path) -> None:
    head = git(clone, "rev-parse", "HEAD")
    number = await desk.start_job(REPO, "look around", agent_command=agent("say:nothing to do"))
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.NOTHING, report
    assert report.commits == []
    assert not Path(report.worktree).exists()
    assert worker_branches(clone) == []
    # The worktree waits, detached and on no branch, among the clone's kept ones.
    listed = git(clone, "worktree", "list", "--porcelain").split("\n\n")
    kept = Path(report.worktree).with_name(".kept") / str(number)
    assert listed[1:] == [f"worktree {kept}\nHEAD {head}\ndetached"]
    assert git(clone, "rev-parse", "HEAD") == head


async def test_an_agent_exit_code_is_reported(desk: DeskClient, clone: Path) -> None:
    number = await desk.start_job(REPO, "fail", agent_command=agent("say:trying", "exit:3"))
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.FAILED, report
    assert report.exit_code == 3
    assert report.failure_category == "exit"
    assert report.reason_kind == ReasonKind.EXITED
    assert report_reason(report) == "The agent exited with code 3."
    assert "trying" in report.output
    assert not report.branch_kept  # nothing was done, so nothing is kept
    assert worker_branches(clone) == []
    # Where git was at the end is said all the same: the branch, clean, at its base.
    assert f"## {report.branch}" in report.git_state, report.git_state


async def test_an_agent_command_that_does_not_exist_fails_clearly(
    desk: DeskClient, clone: Path, tmp_path: Path
) -> None:
    # A path relative to the worktree: the desk cannot check it before the worktree exists.
    missing = "./no-such-agent"
    number = await desk.start_job(REPO, "anything", agent_command=f"{missing} --go")
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.FAILED, report
    assert missing in report.reason
    assert "could not be started" in report.reason
    assert report.failure_category == "not_started"
    assert worker_branches(clone) == []


async def test_an_agent_past_its_budget_is_stopped_with_its_grandchild(
    desk: DeskClient, clone: Path
) -> None:
    tag = agent_tag()  # finds the agent, its grandchild and its sandbox on the host
    number = await desk.start_job(
        REPO,
        "never ends",
        agent_command=agent(tag, "grandchild:60", "sleep:60"),
        budget=timedelta(seconds=3),
    )
    report = await awaited(desk.wait(number), f"job {number}'s report")
    assert report.outcome == JobOutcome.TIMED_OUT, report
    assert report.reason_kind == ReasonKind.OUT_OF_TIME and report.budget == timedelta(seconds=3)
    assert "budget" in report_reason(report)
    assert "scripted agent: grandchild " in Path(report.log_path).read_text(), "never started"
    await until(lambda: not tagged_pids(tag), "the agent and its grandchild to die")


async def test_cancel_kills_the_agent_and_reports_cancelled(desk: DeskClient, clone: Path) -> None:
    tag = agent_tag()  # finds the agent, its grandchild and its sandbox on the host
    number = await desk.start_job(
        REPO, "wait forever", agent_command=agent(tag, "grandchild:60", "sleep:60")
    )
    [agent_pid] = await until(lambda: agent_pids(tag), "the agent")
    [grandchild] = await until(lambda: grandchild_pids(tag), "the agent's grandchild")
    await desk.cancel(number)
    report = await awaited(desk.wait(number), f"job {number}'s report")
    assert report.outcome == JobOutcome.CANCELLED, report
    await until_dead(agent_pid)
    await until_dead(grandchild)
    await until(lambda: not tagged_pids(tag), "the agent's whole tree to die")
    assert worker_branches(clone) == []


async def test_the_reported_output_is_capped(
    desk: DeskClient, settings: DeskSettings, clone: Path
) -> None:
    await host_policy(desk, report_output_chars=200)
    number = await desk.start_job(REPO, "talk a lot", agent_command=agent("say-many:2000"))
    report = await desk.wait(number)
    printed = "".join(f"line {n}\n" for n in range(1, 2001)) + "scripted agent: done\n"
    assert 0 < len(report.output) <= 200
    assert report.output_cut > 0
    assert report.output_cut + len(report.output) == len(printed)
    assert printed.endswith(report.output)  # the tail is kept: the agent's final answer
    assert Path(report.log_path).read_text().count("line 1\n") == 1  # the log has it all


async def test_credentials_in_the_agent_output_are_scrubbed(
    desk: DeskClient, clone: Path, tmp_path: Path, gates: Path
) -> None:
    url = f"https://user:{GITHUB_TOKEN}@github.com/x"
    command = agent_script(gates, f"say:{url}", f"say:token {GITHUB_TOKEN}")
    number = await desk.start_job(REPO, "leak", agent_command=command)
    report = await desk.wait(number)
    assert GITHUB_TOKEN not in report.output
    assert GITHUB_TOKEN[4:] not in report.output
    assert "user:" not in report.output
    assert "https://***@github.com/x" in report.output
    assert "token ghp_***" in report.output


async def test_the_cap_never_keeps_part_of_a_credential(
    desk: DeskClient, settings: DeskSettings, clone: Path, tmp_path: Path, gates: Path
) -> None:
    await host_policy(desk, report_output_chars=200)
    # The last 200 characters start ten characters into the token: a tail cut before scrubbing
    # would keep the rest of it, which no rule recognises any more.
    url = f"https://user:{GITHUB_TOKEN}@github.com/x"
    command = agent_script(gates, "say-many:20", f"say:{url}", "say:" + "p" * 140)
    number = await desk.start_job(REPO, "leak", agent_command=command)
    report = await desk.wait(number)
    assert report.output_cut > 0
    assert GITHUB_TOKEN[10:] not in report.output
    assert GITHUB_TOKEN[-8:] not in report.output


async def test_a_very_long_output_line_does_not_stall_the_agent(
    desk: DeskClient, clone: Path
) -> None:
    long_line = "x" * 70_000  # longer than a stream reader's default line limit (64 KiB)
    number = await desk.start_job(
        REPO,
        "print a lot",
        agent_command=agent(f"say:{long_line}", "write:a.txt=1", "commit:after the long line"),
        budget=timedelta(seconds=10),
    )
    report = await awaited(desk.wait(number), f"job {number}'s report")
    assert report.outcome == JobOutcome.INTEGRATED, report.reason
    assert report.output.endswith("scripted agent: done\n")
    assert Path(report.log_path).read_text().count("x" * 70_000) == 1


async def test_a_kept_branch_of_the_same_name_gets_a_suffix(desk: DeskClient, clone: Path) -> None:
    git(clone, "branch", "worker/1")
    kept = git(clone, "rev-parse", "worker/1")
    number = await desk.start_job(
        REPO, "greet", agent_command=agent("write:hello.txt=hi", "commit:greet")
    )
    assert number == 1
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.branch == "worker/1-1"
    assert worker_branches(clone) == ["worker/1"]
    assert git(clone, "rev-parse", "worker/1") == kept
    assert (clone / "hello.txt").read_text() == "hi"


async def test_the_history_shows_the_activities(desk: DeskClient, clone: Path) -> None:
    number = await desk.start_job(
        REPO, "greet", agent_command=agent("write:hello.txt=hi", "commit:greet")
    )
    await desk.wait(number)
    scheduled = await scheduled_activities(desk, number)
    assert "prepare_worktree" in scheduled
    assert "run_agent" in scheduled
    assert scheduled.index("prepare_worktree") < scheduled.index("run_agent")


async def test_jobs_lists_a_finished_job(desk: DeskClient, clone: Path) -> None:
    number = await desk.start_job(
        REPO, "greet", agent_command=agent("write:hello.txt=hi", "commit:greet")
    )
    await desk.wait(number)

    async def listed() -> list[JobRow]:
        return [row for row in await desk.jobs() if row.number == number]

    [row] = await eventually(
        listed,
        lambda rows: rows and rows[0].outcome and rows[0].status == "completed",
        "the job to show in the listing as completed",
    )
    assert row.repo == REPO
    assert row.outcome == JobOutcome.INTEGRATED.value
    assert row.phase == "done"
    assert row.status == "completed"
    assert row.task == "greet"
