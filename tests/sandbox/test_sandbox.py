"""The agent in its bubblewrap sandbox, tried by a hostile agent and checked from the outside."""

from __future__ import annotations

import json
import shlex
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.client import Client

from activities.sandbox.bubblewrap import BWRAP
from activities.shelf_paths import job_dir, worktree_path
from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome
from surfaces.clients.approval_client import ApprovalsClient
from tests.helpers.agent_runs.sandboxes import (
    REPO,
    SECRET,
    Sandboxed,
    hostile_command,
    needs_bwrap,
    open_victim_approval,
    outside,
    sandboxed_desk,
)
from tests.helpers.agents import agent
from tests.helpers.repos import git, make_origin
from tests.helpers.waiting import until

__all__ = ["outside"]  # a fixture
pytestmark = needs_bwrap


@pytest.fixture
async def offline(
    client: Client, settings: DeskSettings, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Sandboxed]:
    async for sandboxed in sandboxed_desk(client, settings, outside, monkeypatch, False):
        yield sandboxed


@pytest.fixture
async def online(
    client: Client, settings: DeskSettings, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Sandboxed]:
    async for sandboxed in sandboxed_desk(client, settings, outside, monkeypatch, True):
        yield sandboxed


async def test_an_ordinary_job_integrates_in_the_sandbox(online: Sandboxed) -> None:
    number = await online.desk.start_job(
        REPO, "edit", agent_command=agent("write:notes.txt=hello", "commit:add notes", "env-all")
    )
    report = await online.desk.wait(number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.confinement == BWRAP
    assert [commit.subject for commit in report.commits] == ["add notes"]
    assert (online.clone / "notes.txt").read_text() == "hello"
    assert git(online.clone, "log", "--format=%s", "main").splitlines() == ["add notes", "initial"]
    shown = json.loads(report.output.split("scripted agent: env ", 1)[1].splitlines()[0])
    assert shown["PWD"] == report.worktree
    assert "CODEDESK_HOLD_SOCKET" in shown["names"]
    # The agent's objects are in the clone, and no per-job git state is left behind.
    assert not (online.settings.jobs_dir / str(number) / "git" / "objects").exists()


async def test_a_hostile_agent_changes_nothing_it_must_not(offline: Sandboxed) -> None:
    box = offline
    approvals = ApprovalsClient(box.desk.client)
    ident = await open_victim_approval(box)
    config_before = (box.clone / ".git" / "config").read_bytes()
    origin_main = git(box.origin, "rev-parse", "main")
    command = hostile_command(box, ident)

    number = await box.desk.start_job(REPO, "be hostile", agent_command=command)
    report = await box.desk.wait(number)

    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.confinement == BWRAP
    assert "hostile agent: done" in report.output, report.output
    assert not (box.outside / "written-from-inside").exists()
    log = Path(report.log_path).read_text()
    clone_files = sorted(path.name for path in box.clone.iterdir())
    assert clone_files == [".git", "README.md", "ordinary.txt"], clone_files
    for text in (report.output, log, (box.clone / "README.md").read_text()):
        assert SECRET not in text
    assert (box.clone / ".git" / "config").read_bytes() == config_before
    assert git(box.clone, "log", "--format=%s", "main").splitlines() == ["ordinary", "initial"]
    assert git(box.clone, "branch", "--list", "hostile") == ""
    assert git(box.origin, "rev-parse", "main") == origin_main
    assert ident in [state.approval_id for state in await approvals.open_approvals()]
    for attack in ("codedesk approve", "direct Temporal call", "git push origin", "git push clone"):
        assert f"attack {attack}: failed" in report.output, report.output
    await approvals.withdraw(ident, "test over", by="test")


async def test_an_agent_cannot_stop_other_jobs_cutting_worktrees_while_it_runs(
    offline: Sandboxed,
) -> None:
    """Every `git worktree add` on the clone reads each worktree's admin dir: its `commondir`
    and `gitdir` are read-only inside, so the running agent can break neither for others."""
    box = offline
    pointers = ["block other jobs' worktrees", "point gitdir elsewhere"]
    command = hostile_command(box, "", only=pointers, pause=True)
    number = await box.desk.start_job(REPO, "block the clone", agent_command=command)
    worktree = worktree_path(box.settings, REPO, number)
    await until(lambda: (worktree / "attacked").is_file(), "the agent to make its attempts")
    admin = Path((worktree / ".git").read_text().removeprefix("gitdir: ").strip())
    assert (admin / "commondir").read_text() == "../..\n"
    assert (admin / "gitdir").read_text() == f"{worktree / '.git'}\n"
    probe = box.outside / "probe"
    git(box.clone, "worktree", "add", "--quiet", "-b", "probe", str(probe))
    git(box.clone, "worktree", "remove", str(probe))
    (worktree / "attacked").unlink()
    report = await box.desk.wait(number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    for attack in pointers:
        assert f"attack {attack}: failed" in report.output, report.output


async def test_an_agent_installed_in_the_hidden_home_still_runs(online: Sandboxed) -> None:
    # The owner's home is hidden, but the agent's own program (here ~/tools/bin/agent) is
    # bound back read-only, with its install root; the owner's ~/.ssh stays hidden.
    owner = Path.home()
    program = owner / "tools" / "bin" / "agent"
    program.parent.mkdir(parents=True)
    program.write_text(
        "#!/bin/sh\n"
        f"cat {owner}/.ssh/id_ed25519 >stolen.txt 2>/dev/null || rm -f stolen.txt\n"
        "echo from-home >home.txt\n"
        "git add -A && git -c user.name=a -c user.email=a@codedesk.invalid commit -qm home\n"
    )
    program.chmod(0o755)
    number = await online.desk.start_job(REPO, "run from home", agent_command=str(program))
    report = await online.desk.wait(number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert (online.clone / "home.txt").read_text() == "from-home\n"
    assert not (online.clone / "stolen.txt").exists()


async def test_a_cancelled_sandboxed_agent_keeps_its_commit_on_the_branch(
    online: Sandboxed,
) -> None:
    command = agent("write:draft.txt=1", "commit:draft", "sleep:600")
    number = await online.desk.start_job(REPO, "draft, then dawdle", agent_command=command)
    log = online.settings.jobs_dir / str(number) / "agent.log"
    await until(lambda: log.is_file() and "sleep 600s" in log.read_text(), "the draft's commit")
    await online.desk.cancel(number)
    report = await online.desk.wait(number)
    assert report.outcome == JobOutcome.CANCELLED, report
    assert report.branch_kept, report
    # The commit was made in the sandbox's own ref and objects; the host took it back.
    assert git(online.clone, "log", "--format=%s", report.branch).splitlines() == [
        "draft",
        "initial",
    ]
    assert git(online.clone, "log", "--format=%s", "main").splitlines() == ["initial"]


async def test_a_worker_whose_home_does_not_exist_still_runs_sandboxed_agents(
    online: Sandboxed, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A service user's HOME often does not exist; there is nothing to hide there then.
    monkeypatch.setenv("HOME", str(online.outside / "no-such-home"))
    number = await online.desk.start_job(
        REPO, "edit", agent_command=agent("write-home:a.txt=1", "write:a.txt=1", "commit:a")
    )
    report = await online.desk.wait(number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.confinement == BWRAP
    # Its home is the job's own (kept after the job for a continuation, then removed).
    home = job_dir(online.settings, number) / "agent-home"
    assert f"scripted agent: write {home / 'a.txt'}" in report.output, report.output
    assert (home / "a.txt").is_file() and report.session_kept_until is not None


SMUGGLERS = {
    "alternates": 'mkdir -p "$OBJECTS/info" && echo "$VICTIM" >"$OBJECTS/info/alternates"',
    "links": 'for d in "$VICTIM"/??; do ln -s "$d" "$OBJECTS/${d##*/}"; done',
}


@pytest.mark.parametrize("how", sorted(SMUGGLERS))
async def test_the_agent_cannot_smuggle_another_repositorys_commit_into_the_clone(
    online: Sandboxed, how: str
) -> None:
    # The agent knows a commit of another repository on the host and makes its own objects
    # reach it (alternates, symbolic links): the host must not import through them.
    victim = make_origin(online.outside / "victim" / "secret.git", {"secret.txt": SECRET})
    sha = git(victim, "rev-parse", "main")
    script = (
        f'OBJECTS="$GIT_OBJECT_DIRECTORY" VICTIM={victim}/objects; {SMUGGLERS[how]} && '
        f"git update-ref $(git symbolic-ref HEAD) {sha}"
    )
    command = f"sh -c {shlex.quote(script)}"
    number = await online.desk.start_job(REPO, "smuggle", agent_command=command)
    report = await online.desk.wait(number)
    assert report.outcome != JobOutcome.INTEGRATED, report
    assert subprocess.run(["git", "-C", str(online.clone), "cat-file", "-e", sha]).returncode != 0
    assert git(online.clone, "log", "--format=%s", "main").splitlines() == ["initial"]
