"""A repository's worktree set-up and check, set by the owner, in jobs run in the sandbox."""

from __future__ import annotations

from pathlib import Path

from activities.sandbox.bubblewrap import choose_sandbox
from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome
from desk.payloads.repo_setup import CheckStatus, SetRepoSetup
from surfaces.clients.desk import DeskClient
from surfaces.clients.repo_setup import RepoSetupClient
from tests.helpers.agents import agent
from tests.helpers.repos import git, make_origin

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
