"""Several attempts at one task (issue 48): each an ordinary job with a desk slot of its own, in
its own worktree and branch, checked with the repository's check; the job compares them in
review and a person picks one, which integrates, while the others leave no branch behind.

The attempts' agents are scripted commands that write different files, so what landed says
which attempt was picked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from desk.config.settings import DeskSettings
from desk.errors import PickError, PolicyError, ReviewError
from desk.holds.approvals import Principal
from desk.payloads.conversation.attempt_payloads import AttemptState, attempt_specs
from desk.payloads.conversation.review_payloads import ReviewVerdict
from desk.payloads.jobs import JobOutcome, JobPhase, JobStatus
from desk.records.repo_setup import CheckStatus, SetRepoSetup
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.repo_setup_client import RepoSetupClient
from surfaces.render.layout.report_layout import job_report
from surfaces.render.terminal.block_lines import plain
from surfaces.render.words.history_lines import history_lines
from tests.helpers.agents import agent
from tests.helpers.job_waits import status_until
from tests.helpers.jobs.one_shot import one_shot_command
from tests.helpers.repos import git
from tests.helpers.waiting import awaited, eventually

REPO = "acme/api"


@pytest.fixture
def settings(settings: DeskSettings) -> DeskSettings:
    """One slot: the attempts beyond it wait in the desk's queue."""
    return settings.model_copy(update={"max_workers": 1})


def writes(name: str, gate: Path | None = None) -> tuple[str, str]:
    """An attempt whose agent (after `gate` exists, if given) commits file `name`."""
    steps = [f"wait:{gate}"] if gate is not None else []
    return ("", agent(*steps, f"write:{name}=from {name}", f"commit:add {name}"))


async def compared(desk: DeskClient, number: int) -> JobStatus:
    """Until job `number`'s comparison waits for the pick."""
    return await status_until(
        desk, number, lambda now: now.phase == JobPhase.REVIEW, f"job {number}'s comparison"
    )


def worker_branches(clone: Path) -> list[str]:
    names = git(clone, "branch", "--format=%(refname:short)").split()
    return [name for name in names if name.startswith("worker")]


async def test_three_attempts_are_compared_and_the_pick_integrates_only_its_work(
    desk: DeskClient, origin: Path, gates: Path
) -> None:
    info = await desk.add_repo(REPO, str(origin))
    clone = Path(info.path)
    await RepoSetupClient(desk.client, desk.settings).configure(
        SetRepoSetup(repo=REPO, check="test ! -f c.txt", check_retries=0)
    )
    gate = gates / "gate"
    specs = attempt_specs([writes("a.txt", gate), writes("b.txt"), writes("c.txt")])
    admission = await desk.submit_job(REPO, "add a file", attempts=specs)
    number = admission.number
    _, status = await desk.status(number)
    assert status.attempts is not None
    rows = status.attempts.rows
    assert [row.label for row in rows] == ["a", "b", "c"]
    assert [row.number for row in rows] == [number + 1, number + 2, number + 3]
    # One slot: the first attempt runs, the others wait in the desk's queue; the job itself
    # holds no slot.
    desk_state = await desk.desk_state()
    assert desk_state is not None
    assert desk_state.running == [number + 1], desk_state
    assert desk_state.queue == [number + 2, number + 3], desk_state
    # No pick before every attempt is in.
    with pytest.raises(PickError, match="not all in yet"):
        await desk.pick(number, "a")
    gate.touch()

    status = await compared(desk, number)
    assert status.attempts is not None
    rows = status.attempts.rows
    assert [row.state for row in rows] == [AttemptState.READY] * 3
    assert [row.check for row in rows] == [
        CheckStatus.PASSED,
        CheckStatus.PASSED,
        CheckStatus.FAILED,
    ]
    assert all(row.stat == "1 file changed, 1 insertion(+)" for row in rows), rows
    assert [row.commits for row in rows] == [["add a.txt"], ["add b.txt"], ["add c.txt"]]
    # Each in its own worktree, on a branch named by the job and its label.
    assert [row.branch for row in rows] == [f"worker/{number}-{label}" for label in "abc"]
    assert len({row.worktree for row in rows}) == 3
    assert (clone / "a.txt").exists() is False
    # `diff --attempt b` is attempt b's own job's diff.
    found = await desk.diff(await desk.attempt_number(number, "b"))
    assert "b.txt" in found.stat and "a.txt" not in found.stat
    # Who may pick, and what.
    stranger = Principal(id="local:mallory", name="mallory")
    with pytest.raises(PickError, match="may not pick"):
        await desk.pick(number, "b", by=stranger)
    with pytest.raises(PickError, match="no attempt 'z'.*a, b, c"):
        await desk.pick(number, "z")
    # An attempt answers only its job's pick.
    with pytest.raises(ReviewError, match=f"pick {number} b"):
        await desk.answer_review(number + 2, ReviewVerdict.INTEGRATE)

    picked = await desk.pick(number, "b")
    assert (picked.label, picked.attempt) == ("b", number + 2)
    with pytest.raises(PickError, match="made first by"):
        await desk.pick(number, "a")
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.attempts is not None and report.attempts.picked == "b"
    assert [row.state for row in report.attempts.rows] == [AttemptState.ENDED] * 3
    outcomes = [row.outcome for row in report.attempts.rows]
    assert outcomes == [JobOutcome.DISCARDED, JobOutcome.INTEGRATED, JobOutcome.DISCARDED]
    assert (clone / "b.txt").read_text() == "from b.txt"
    assert not (clone / "a.txt").exists() and not (clone / "c.txt").exists()
    assert worker_branches(clone) == []
    assert report.head == git(clone, "rev-parse", "HEAD")
    # `jobs` lists the job once: its attempts are in its row, not rows of their own.
    # `show`: a row per attempt, and the pick.
    shown = "\n".join(plain(job_report(report)))
    assert "attempts (3): attempt b picked by" in shown, shown
    assert f"b (picked): job {number + 2}, python; integrated; check passed" in shown, shown
    assert f"c: job {number + 3}, python; discarded; check failed; 1 file changed" in shown
    # `watch` and `show` tell the attempts' news and the pick in words.
    lines = [line.text for line in history_lines(await desk.history(number))]
    assert "attempt c: ready for the pick (check failed; 1 file changed, 1 insertion(+))" in lines
    assert "attempt b: ended integrated" in lines, lines
    told = [line.text for line in history_lines(await desk.history(number + 2))]
    assert any(line.startswith("the pick: integrate (by ") for line in told), told
    [listed] = await desk.jobs()
    assert (listed.number, listed.attempts) == (number, (number + 1, number + 2, number + 3))
    assert listed.attempt_phases == ("done",) * 3
    # One job in all: a page counts no attempt as a job it left off (`codedesk jobs` says
    # "... and N more jobs" from it).
    page = await desk.job_page(2)
    assert ([row.number for row in page.items], page.total, page.more) == ([number], 1, 0)


async def test_the_first_passing_check_integrates_and_stops_the_rest(
    desk: DeskClient, origin: Path, gates: Path
) -> None:
    info = await desk.add_repo(REPO, str(origin))
    clone = Path(info.path)
    await RepoSetupClient(desk.client, desk.settings).configure(
        SetRepoSetup(repo=REPO, check="test ! -f a.txt", check_retries=0)
    )
    never = gates / "never"
    specs = attempt_specs([writes("a.txt"), writes("b.txt"), writes("c.txt", never)])
    number = (
        await desk.submit_job(REPO, "add a file", attempts=specs, pick_first_passing=True)
    ).number
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.attempts is not None and report.attempts.picked == "b"
    assert report.attempts.picked_by == "the first passing check"
    by_label = {row.label: row for row in report.attempts.rows}
    assert by_label["a"].check == CheckStatus.FAILED
    assert by_label["a"].outcome == JobOutcome.DISCARDED
    assert by_label["c"].outcome == JobOutcome.CANCELLED  # its agent was stopped
    assert (clone / "b.txt").exists() and not (clone / "a.txt").exists()
    assert worker_branches(clone) == []


async def test_the_host_caps_the_attempts(desk: DeskClient, origin: Path) -> None:
    await desk.add_repo(REPO, str(origin))
    specs = attempt_specs([writes(f"{n}.txt") for n in range(5)])
    with pytest.raises(PolicyError, match="at most 4 .*CODEDESK_ATTEMPTS_MAX"):
        await desk.submit_job(REPO, "too many", attempts=specs)


async def test_cancelling_the_job_cancels_every_attempt(
    desk: DeskClient, origin: Path, gates: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    never = gates / "never"
    specs = attempt_specs([writes("a.txt", never), writes("b.txt", never)])
    number = (await desk.submit_job(REPO, "add a file", attempts=specs)).number
    await eventually(
        lambda: desk.status(number + 1),
        lambda found: found[1].phase == JobPhase.WORKING,
        "the first attempt to work",
    )
    await desk.cancel(number)
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.CANCELLED, report
    assert report.attempts is not None
    assert [row.outcome for row in report.attempts.rows] == [JobOutcome.CANCELLED] * 2
    for attempt in (number + 1, number + 2):
        assert (await awaited(desk.wait(attempt), "an attempt")).outcome == JobOutcome.CANCELLED


async def test_a_message_during_the_comparison_revises_every_attempt(
    desk: DeskClient, origin: Path, tmp_path: Path
) -> None:
    info = await desk.add_repo(REPO, str(origin))
    clone = Path(info.path)
    await RepoSetupClient(desk.client, desk.settings).configure(
        SetRepoSetup(repo=REPO, check="test -f b.txt", check_retries=0)
    )
    one_shot = one_shot_command(tmp_path / "one-shot-bin")
    specs = attempt_specs([("", one_shot), ("", one_shot)])
    number = (await desk.submit_job(REPO, "write:a.txt=1", attempts=specs)).number
    first = await compared(desk, number)
    assert first.attempts is not None
    assert [row.check_blocks for row in first.attempts.rows] == [True, True]
    with pytest.raises(PickError, match="check did not pass"):
        await desk.pick(number, "a")
    answer = await desk.say(number, "write:b.txt=2")
    assert answer.number == number + 1  # the first attempt's answer; each has its own

    status = await status_until(
        desk,
        number,
        lambda now: (
            now.phase == JobPhase.REVIEW
            and now.attempts is not None
            and all(len(row.commits) == 2 for row in now.attempts.rows)
        ),
        "both attempts revised, back in the comparison",
    )
    assert status.attempts is not None
    assert [row.check for row in status.attempts.rows] == [CheckStatus.PASSED] * 2
    for row in status.attempts.rows:
        _, attempt = await desk.status(row.number)
        assert [r.verdict for r in attempt.review_rounds] == ["revise", None], attempt
    await desk.pick(number, "a")
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert (clone / "a.txt").read_text() == "1" and (clone / "b.txt").read_text() == "2"
    assert worker_branches(clone) == []


async def test_a_reviewed_job_s_picked_attempt_waits_for_its_own_review(
    desk: DeskClient, origin: Path
) -> None:
    info = await desk.add_repo(REPO, str(origin))
    clone = Path(info.path)
    head = git(clone, "rev-parse", "HEAD")
    specs = attempt_specs([writes("a.txt"), writes("b.txt")])
    number = (await desk.submit_job(REPO, "add a file", attempts=specs, review=True)).number
    await compared(desk, number)
    await desk.pick(number, "b")
    picked = number + 2
    # The picked attempt is reviewed as any job asked for review: it does not land by itself.
    await eventually(
        lambda: desk.history(picked),
        lambda events: any(
            event.workflow_execution_signaled_event_attributes.signal_name == "attempt_verdict"
            for event in events
        ),
        "the pick to reach the attempt",
    )
    _, status = await desk.status(picked)  # answered once the signal's task is done
    assert status.phase == JobPhase.REVIEW, status
    other = await awaited(desk.wait(number + 1), "the other attempt")
    assert other.outcome == JobOutcome.DISCARDED
    assert git(clone, "rev-parse", "HEAD") == head
    assert status.review_rounds[-1].verdict is None
    assert (await desk.status(number))[1].report is None  # the job waits for it
    answered = await desk.answer_review(picked, ReviewVerdict.INTEGRATE)
    assert answered.verdict == ReviewVerdict.INTEGRATE
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert (clone / "b.txt").exists() and not (clone / "a.txt").exists()
    assert worker_branches(clone) == []
