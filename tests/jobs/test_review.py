"""Review before it lands (issue 46): a job asked for review waits in phase `review` with no agent
process and no slot; `integrate` lands the work, `discard` removes it, a message (`say`) makes
the agent work again on it (the conversation's own path) and brings it back to review.

The agent is a one-shot agent codedesk takes for aider: each run takes the task and the
messages as its prompt and commits what its steps did, so a revision's words are steps it runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.api.sdk.v1 import WorkflowMetadata

from desk.config.settings import DeskSettings
from desk.errors import AgentDoneError, ReviewAnsweredError, ReviewError, ShelfError
from desk.holds.approvals import Principal
from desk.names import job_workflow_id
from desk.payloads.conversation.review_payloads import ReviewVerdict
from desk.payloads.jobs import JobOutcome, JobPhase, JobStatus
from desk.records.repo_setup import CheckStatus, SetRepoSetup
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.repo_setup_client import RepoSetupClient
from surfaces.render.words.history_lines import history_lines
from tests.helpers.agents import agent
from tests.helpers.desks import host_policy
from tests.helpers.job_waits import status_until
from tests.helpers.jobs.one_shot import one_shot_command
from tests.helpers.repos import git
from tests.helpers.waiting import awaited, eventually

REPO = "acme/api"


@pytest.fixture
def settings(settings: DeskSettings) -> DeskSettings:
    """One slot: a job waiting in review must not hold it."""
    return settings.model_copy(update={"max_workers": 1})


@pytest.fixture
def one_shot(tmp_path: Path) -> str:
    return one_shot_command(tmp_path / "one-shot-bin")


async def in_review(desk: DeskClient, number: int, rounds: int = 1) -> JobStatus:
    """Until job `number` waits in review for its round `rounds`."""
    return await status_until(
        desk,
        number,
        lambda now: now.phase == JobPhase.REVIEW and len(now.review_rounds) == rounds,
        f"job {number} to wait in review (round {rounds})",
    )


def branches(clone: Path) -> list[str]:
    return git(clone, "branch", "--format=%(refname:short)").split()


async def test_a_reviewed_job_waits_without_its_slot_then_integrate_lands_it(
    desk: DeskClient, origin: Path, one_shot: str
) -> None:
    info = await desk.add_repo(REPO, str(origin))
    clone = Path(info.path)
    head = git(clone, "rev-parse", "HEAD")
    number = await desk.start_job(REPO, "write:a.txt=1", agent_command=one_shot, review=True)
    status = await in_review(desk, number)
    assert git(clone, "rev-parse", "HEAD") == head  # nothing landed
    assert status.review_rounds[0].verdict is None
    # The Temporal UI's current details say so.
    handle = desk.client.get_workflow_handle(job_workflow_id(number))
    metadata = await handle.query("__temporal_workflow_metadata", result_type=WorkflowMetadata)
    assert metadata.current_details.endswith(": waiting for review"), metadata.current_details
    # `codedesk diff`: the job's commit against the clone's HEAD, asked of the clone's host.
    found = await desk.diff(number)
    assert found.head == head and "a.txt" in found.stat and "+1" in found.diff, found
    assert (await desk.diff(number, stat_only=True)).diff == ""
    cut = await desk.diff(number, max_chars=10)
    assert len(cut.diff) == 10 and cut.diff_cut > 0
    # `codedesk jobs` lists it in review.
    await eventually(
        desk.jobs,
        lambda rows: any(row.number == number and row.phase == JobPhase.REVIEW for row in rows),
        "`jobs` to list the job in review",
    )
    # The slot is free: another job (one slot in all) runs to its end meanwhile.
    other = await desk.start_job(REPO, "other", agent_command=agent("write:b.txt=2", "commit:b"))
    assert (await awaited(desk.wait(other), "the other job")).outcome == JobOutcome.INTEGRATED
    assert (await desk.status(number))[1].phase == JobPhase.REVIEW

    answered = await desk.answer_review(number, ReviewVerdict.INTEGRATE)
    assert answered.verdict == ReviewVerdict.INTEGRATE
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert (clone / "a.txt").read_text() == "1"
    [round] = report.review_rounds
    assert (round.round, round.verdict, round.check) == (1, ReviewVerdict.INTEGRATE, None)
    assert round.by and round.answered_at is not None
    # First answer wins: a later one is told the job is no longer in review.
    with pytest.raises(ReviewError, match="has ended"):
        await desk.answer_review(number, ReviewVerdict.DISCARD)
    with pytest.raises(ShelfError, match="integrated or discarded"):
        await desk.diff(number)


async def test_a_message_in_review_revises_the_work_and_the_check_runs_again(
    desk: DeskClient, origin: Path, one_shot: str
) -> None:
    info = await desk.add_repo(REPO, str(origin))
    clone = Path(info.path)
    await RepoSetupClient(desk.client, desk.settings).configure(
        SetRepoSetup(repo=REPO, check="test -f a.txt", review=True)
    )
    number = await desk.start_job(REPO, "write:a.txt=1", agent_command=one_shot)
    first = await in_review(desk, number)
    assert first.check is not None and first.check.status == CheckStatus.PASSED

    await desk.say(number, "write:b.txt=2")
    second = await in_review(desk, number, rounds=2)
    assert second.review_rounds[0].verdict == ReviewVerdict.REVISE
    assert second.review_rounds[0].feedback == "write:b.txt=2"
    assert not (clone / "b.txt").exists()  # still nothing landed

    await desk.answer_review(number, ReviewVerdict.INTEGRATE)
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert (clone / "a.txt").read_text() == "1" and (clone / "b.txt").read_text() == "2"
    assert [round.verdict for round in report.review_rounds] == [
        ReviewVerdict.REVISE,
        ReviewVerdict.INTEGRATE,
    ]
    assert [round.check for round in report.review_rounds] == [CheckStatus.PASSED] * 2
    assert len(report.commits) == 2, report.commits
    # `codedesk watch` tells the rounds: the revision's message, then the answer.
    lines = [line.text for line in history_lines(await desk.history(number))]
    owner = desk.settings.owner.removeprefix("local:")
    assert f"message from {owner} (cli): write:b.txt=2" in lines, lines
    assert f"review answered by {owner} (cli): integrate" in lines, lines
    assert f"review answer taken: job {number} will integrate" in lines, lines


async def test_discard_removes_the_branch_and_leaves_the_clone_as_it_was(
    desk: DeskClient, origin: Path, one_shot: str
) -> None:
    info = await desk.add_repo(REPO, str(origin))
    clone = Path(info.path)
    head = git(clone, "rev-parse", "HEAD")
    number = await desk.start_job(REPO, "write:a.txt=1", agent_command=one_shot, review=True)
    status = await in_review(desk, number)
    assert status.branch in branches(clone)

    await desk.answer_review(number, ReviewVerdict.DISCARD)
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.DISCARDED, report
    assert [commit.subject for commit in report.commits] == ["one-shot agent: work"]
    assert git(clone, "rev-parse", "HEAD") == head
    assert status.branch not in branches(clone)
    assert not Path(status.worktree).exists() or not (Path(status.worktree) / "a.txt").exists()
    assert report.review_rounds[0].verdict == ReviewVerdict.DISCARD


async def test_who_may_answer_and_a_failed_blocking_check(
    desk: DeskClient, origin: Path, one_shot: str
) -> None:
    await desk.add_repo(REPO, str(origin))
    await RepoSetupClient(desk.client, desk.settings).configure(
        SetRepoSetup(repo=REPO, check="false")
    )
    number = await desk.start_job(REPO, "write:a.txt=1", agent_command=one_shot, review=True)
    status = await in_review(desk, number)
    assert status.check is not None and status.check.status == CheckStatus.FAILED
    stranger = Principal(id="local:mallory", name="mallory")
    with pytest.raises(ReviewError, match="mallory may not answer"):
        await desk.answer_review(number, ReviewVerdict.DISCARD, by=stranger)
    with pytest.raises(ReviewError, match="blocks integration"):
        await desk.answer_review(number, ReviewVerdict.INTEGRATE)
    await desk.answer_review(number, ReviewVerdict.DISCARD)
    with pytest.raises((ReviewAnsweredError, AgentDoneError)):  # discarding, or ended
        await desk.say(number, "write:c.txt=3")
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.DISCARDED, report
    assert report.check is not None and report.check.status == CheckStatus.FAILED


async def test_the_hosts_owners_as_the_round_opens_may_answer_it(
    desk: DeskClient, origin: Path, gates: Path
) -> None:
    """An owner the host gained after the job started may revise and answer its review: the
    round reads the host's owners as it opens, not only the ones the job recorded."""
    await host_policy(desk, owners=["alice"], discord_owner_ids=[])
    info = await desk.add_repo(REPO, str(origin))
    gate = gates / "may-commit"
    number = await desk.start_job(
        REPO,
        "gated",
        agent_command=agent(f"wait:{gate}", "write:a.txt=1", "commit:a"),
        review=True,
    )
    carol = Principal(id="carol", name="carol")
    await host_policy(desk, owners=["carol"], discord_owner_ids=[])
    gate.touch()
    await in_review(desk, number)
    await desk.say(number, "once more", by=carol)  # a revision
    await in_review(desk, number, rounds=2)
    await desk.answer_review(number, ReviewVerdict.INTEGRATE, by=carol)
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert [round.by for round in report.review_rounds] == ["carol", "carol"]
    assert (Path(info.path) / "a.txt").read_text() == "1"


async def test_a_job_not_asked_for_review_is_not_answered_as_one(
    desk: DeskClient, origin: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "gate", agent_command=agent("sleep:30"))
    await eventually(
        lambda: desk.status(number),
        lambda found: found[1].phase == JobPhase.WORKING,
        "the job to work",
    )
    with pytest.raises(ReviewError, match="not waiting for review") as refused:
        await desk.answer_review(number, ReviewVerdict.INTEGRATE)
    assert not isinstance(refused.value, ReviewAnsweredError)
    await desk.cancel(number)
    await awaited(desk.wait(number), "the cancelled job")
