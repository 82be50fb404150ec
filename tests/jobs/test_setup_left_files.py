"""Files a repository's set-up leaves untracked are the set-up's, not the agent's: they block no
job, and the report lists them as the set-up's; the agent can neither change one of them nor
the record of them to pass its own uncommitted work off as the set-up's."""

from __future__ import annotations

import hashlib
import json
import shlex
from pathlib import Path

import pytest

from activities.sandbox.bubblewrap import BWRAP, choose_sandbox
from activities.setup.left_files import SETUP_FILES, git_unquoted
from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome
from desk.records.repo_setup import SetRepoSetup
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.repo_setup_client import RepoSetupClient
from surfaces.render.layout.report_layout import job_report
from surfaces.render.terminal.block_lines import plain
from tests.helpers.repos import git

REPO = "acme/api"
SETUP = "touch setup-ran.flag && mkdir -p cache && echo warm > cache/one"


def shell_agent(*commands: str) -> str:
    """An agent command running `commands` with `sh -c`: it commits only the files it names, as
    a careful agent does (`git add -A` would commit the set-up's files too)."""
    return f"sh -c {shlex.quote(' && '.join(commands))}"


COMMIT_NOTES = ("echo hi > notes.txt", "git add notes.txt", "git commit --quiet -m notes")


async def _with_setup(desk: DeskClient, settings: DeskSettings, origin: Path) -> Path:
    clone = Path((await desk.add_repo(REPO, str(origin))).path)
    await RepoSetupClient(desk.client, settings).configure(SetRepoSetup(repo=REPO, setup=SETUP))
    return clone


async def test_a_set_ups_untracked_files_block_no_job_and_are_reported_as_its_own(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    clone = await _with_setup(desk, settings, origin)
    number = await desk.start_job(
        REPO,
        "notes",
        agent_command=shell_agent("test -f setup-ran.flag", *COMMIT_NOTES),
    )
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.uncommitted == []
    assert report.setup_files == ["cache/one", "setup-ran.flag"]
    shown = "\n".join(plain(job_report(report)))
    assert "files the set-up left (not the agent's, not integrated)" in shown, shown
    assert git(clone, "show", "--name-only", "--format=", "HEAD").splitlines() == ["notes.txt"]
    assert not (clone / "setup-ran.flag").exists()


async def test_a_set_up_file_the_agent_changed_is_the_agents_uncommitted_work(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    await _with_setup(desk, settings, origin)
    number = await desk.start_job(
        REPO,
        "notes",
        agent_command=shell_agent(*COMMIT_NOTES, "echo mine > setup-ran.flag"),
    )
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.REFUSED, report
    assert "uncommitted changes" in report.reason
    assert report.uncommitted == ["setup-ran.flag"]
    assert report.setup_files == ["cache/one"]


@pytest.mark.skipif(
    choose_sandbox("auto").mode != BWRAP, reason="unconfined, an agent can write anywhere"
)
async def test_the_agent_cannot_rewrite_the_record_of_the_set_ups_files(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    await _with_setup(desk, settings, origin)
    mine = "the agent's own\n"
    forged = {
        "files": {
            "mine.txt": "sha256:" + hashlib.sha256(mine.encode()).hexdigest(),
            "setup-ran.flag": "sha256:" + hashlib.sha256(b"").hexdigest(),
        }
    }
    record = f"{settings.jobs_dir}/$CODEDESK_JOB/{SETUP_FILES}"
    script = (
        f"printf %s {shlex.quote(mine)} > mine.txt; "
        # Inside the sandbox the job's folder is not the host's: a write lands nowhere it counts.
        f"printf %s {shlex.quote(json.dumps(forged))} > {record}; "
        "exit 0"
    )
    number = await desk.start_job(REPO, "forge", agent_command=shell_agent(script))
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.REFUSED, report
    assert report.uncommitted == ["mine.txt"]
    kept = json.loads((settings.jobs_dir / str(number) / SETUP_FILES).read_text())
    assert sorted(kept["files"]) == ["cache/one", "setup-ran.flag"]


def test_a_quoted_path_reads_as_the_file_it_names() -> None:
    assert git_unquoted("plain name.txt") == "plain name.txt"
    assert git_unquoted('"tab\\there"') == "tab\there"
    assert git_unquoted('"caf\\303\\251.txt"') == "café.txt"
    assert git_unquoted('"quote\\"and\\\\slash"') == 'quote"and\\slash'
