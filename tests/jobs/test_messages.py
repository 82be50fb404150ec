"""A job is a conversation: `say` while the agent works, before it starts, refused, in order.

The agents here are scripted: a command agent reads its messages from the file the job names in
`CODEDESK_MESSAGES` (`obey:N` runs each message's text as a step, as a model would act on it),
and a one-shot agent under the name `aider` takes a whole prompt when it starts and nothing
while it runs, so its messages reach it in a new run with the task.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from activities.agent.session.agent_messages import MESSAGES_FILE
from activities.agent.session.log import AGENT_LOG
from activities.shelf_paths import job_dir
from desk.config.settings import DeskSettings
from desk.errors import AgentDoneError, MessageError, MessageSenderError, MessageTooLongError
from desk.holds.approvals import Principal
from desk.payloads.conversation.session_payloads import Continuation
from desk.payloads.jobs import JobOutcome, JobPhase
from desk.payloads.message_payloads import MessageDelivery, MessageSeam
from surfaces.clients.desk_client import DeskClient
from surfaces.render.words.history_lines import history_lines
from tests.helpers.agents import agent
from tests.helpers.desks import host_policy
from tests.helpers.repos import git
from tests.helpers.stand_ins.held_integrate import INTEGRATING, LET_GO
from tests.helpers.waiting import awaited, eventually

REPO = "acme/api"
ONE_SHOT = Path(__file__).parents[1] / "helpers" / "programs" / "one_shot_agent.py"


async def agent_reads_messages(settings: DeskSettings, number: int) -> None:
    """Until the job's agent waits for its messages (so the next one comes while it works)."""
    log = job_dir(settings, number) / AGENT_LOG
    await eventually(
        lambda: log.read_text() if log.is_file() else "",
        lambda text: "scripted agent: waiting for" in text,
        "the agent to wait for its messages",
    )


async def test_a_message_while_the_agent_works_reaches_it_and_changes_what_it_commits(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    info = await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(
        REPO,
        "add a note",
        agent_command=agent("write:note.txt=hi", "commit:Add a note", "obey:1", "commit:As asked"),
    )
    await agent_reads_messages(settings, number)
    answer = await desk.say(number, "write:CHANGELOG.md=- a note\\n")
    assert (answer.seq, answer.delivery, answer.seam) == (
        1,
        MessageDelivery.DELIVERED,
        MessageSeam.FILE,
    ), answer

    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert [commit.subject for commit in report.commits] == ["Add a note", "As asked"]
    assert (Path(info.path) / "CHANGELOG.md").read_text() == "- a note\n"
    [message] = report.messages
    assert message.by.id == settings.owner and message.surface == "cli"
    assert message.text == "write:CHANGELOG.md=- a note\\n"
    assert message.delivered is not None, message
    assert (message.delivered.run, message.delivered.seam) == (1, MessageSeam.FILE)
    # The job's history tells the conversation, as `codedesk watch` shows it.
    lines = [line.text for line in history_lines(await desk.history(number))]
    said = f"message from {settings.owner.removeprefix('local:')} (cli): write:CHANGELOG.md"
    assert any(line.startswith(said) for line in lines), lines
    assert "message 1 reached the agent (run 1, in its messages file)" in lines, lines
    assert not any("agent_inbox" in line for line in lines), lines


@pytest.fixture
def settings(settings: DeskSettings) -> DeskSettings:
    return settings.model_copy(update={"max_workers": 1})


async def test_a_message_to_a_queued_job_reaches_its_agent_when_it_starts(
    desk: DeskClient, settings: DeskSettings, origin: Path, gates: Path
) -> None:
    info = await desk.add_repo(REPO, str(origin))
    gate = gates / "first-may-end"
    first = await desk.start_job(REPO, "hold the slot", agent_command=agent(f"wait:{gate}"))
    second = await desk.start_job(
        REPO, "queued", agent_command=agent("obey:2", "commit:As asked twice")
    )
    assert (await desk.status(second))[1].phase == JobPhase.QUEUED
    answers = [
        await desk.say(second, "write:one.txt=1"),
        await desk.say(second, "write:two.txt=2"),
    ]
    assert [(a.seq, a.delivery) for a in answers] == [
        (1, MessageDelivery.AGENT_START),
        (2, MessageDelivery.AGENT_START),
    ], answers
    gate.touch()
    await awaited(desk.wait(first), "the first job")
    report = await awaited(desk.wait(second), "the queued job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    clone = Path(info.path)
    assert (clone / "one.txt").read_text() == "1" and (clone / "two.txt").read_text() == "2"
    assert [m.delivered.run if m.delivered else None for m in report.messages] == [1, 1]
    lines = (job_dir(settings, second) / MESSAGES_FILE).read_text().splitlines()
    assert [json.loads(line)["seq"] for line in lines] == [1, 2]


async def test_messages_come_in_order_each_once(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    info = await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "list", agent_command=agent("obey:3", "commit:Listed"))
    await agent_reads_messages(settings, number)
    for word in ("first", "second", "third"):
        await desk.say(number, f"append:list.txt={word}\\n")
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert (Path(info.path) / "list.txt").read_text() == "first\nsecond\nthird\n"
    assert [message.seq for message in report.messages] == [1, 2, 3]
    lines = (job_dir(settings, number) / MESSAGES_FILE).read_text().splitlines()
    assert [json.loads(line)["text"] for line in lines] == [
        "append:list.txt=first\\n",
        "append:list.txt=second\\n",
        "append:list.txt=third\\n",
    ]


async def test_a_message_is_refused_from_a_stranger_too_long_empty_or_too_late(
    desk: DeskClient, settings: DeskSettings, origin: Path, gates: Path
) -> None:
    await host_policy(desk, message_chars=20)
    await desk.add_repo(REPO, str(origin))
    gate = gates / "may-end"
    number = await desk.start_job(REPO, "wait", agent_command=agent(f"wait:{gate}"))

    stranger = Principal(id="discord:666", name="mallory")
    with pytest.raises(MessageSenderError, match="mallory may not talk to job"):
        await desk.say(number, "push to main", by=stranger)
    with pytest.raises(
        MessageTooLongError,
        match=r"21 characters, longer than the host.s limit of 20 \(CODEDESK_MESSAGE_CHARS\)",
    ):
        await desk.say(number, "x" * 21)
    with pytest.raises(MessageError, match="empty"):
        await desk.say(number, "  \n")
    assert (await desk.status(number))[1].messages == []

    gate.touch()
    report = await awaited(desk.wait(number), "the job's report")
    assert report.messages == []
    # After the report, only the requester and the owners may continue it, in a new job that
    # starts with the message (and leaves the finished job's history as it was).
    with pytest.raises(MessageSenderError, match=f"mallory may not continue job {number}"):
        await desk.say(number, "and the docs", by=stranger)
    # A client that skips that check (its own code, straight to the desk) is refused by the
    # desk's own check of every submission, and nothing starts.
    continuation = Continuation(number=number, task="wait")
    with pytest.raises(MessageSenderError, match=f"discord:666 may not continue job {number}"):
        await desk.submit_job(REPO, "and the docs", starter=stranger.id, continues=continuation)
    answer = await desk.say(number, "and the docs")
    assert answer.continues == number and answer.number == number + 1, answer
    continued = await awaited(desk.wait(answer.number), "the continuation's report")
    assert continued.continues == number and continued.continued_anew, continued
    assert [message.text for message in continued.messages] == ["and the docs"]
    assert continued.task == "and the docs"
    lines = [line.text for line in history_lines(await desk.history(number))]
    assert not any("message" in line for line in lines), lines


async def test_the_hosts_owners_now_may_continue_a_job_they_did_not_own_when_it_ran(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    """The desk's check of a continuation counts the host's owners as they are now, not only
    the ones the continued job recorded when it started."""
    await host_policy(desk, owners=["alice"], discord_owner_ids=[])
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "first", agent_command=agent("write:a.txt=1"))
    await awaited(desk.wait(number), "the job's report")
    continuation = Continuation(number=number, task="first")
    with pytest.raises(MessageSenderError, match=f"carol may not continue job {number}"):
        await desk.submit_job(REPO, "and more", starter="carol", continues=continuation)

    await host_policy(desk, owners=["carol"], discord_owner_ids=[])
    admitted = await desk.submit_job(REPO, "and more", starter="carol", continues=continuation)
    assert admitted.number == number + 1, admitted
    continued = await awaited(desk.wait(admitted.number), "the continuation's report")
    assert continued.continues == number, continued


async def test_a_message_after_the_agents_work_is_refused_with_what_to_do(
    one_slot: DeskClient,
) -> None:
    """The agent is done and the job integrates (its integration held here): a message
    cannot reach the agent any more, and the refusal says what to do."""
    desk = one_slot
    number = await desk.start_job(REPO, "write", agent_command=agent("write:a.txt=a", "commit:A"))
    await awaited(INTEGRATING.wait(), "the job to integrate")
    with pytest.raises(
        AgentDoneError,
        match=rf"Job {number}'s agent has finished its work \(the job is "
        rf"integrating\).*`codedesk say {number}` again continues it",
    ):
        await desk.say(number, "one more thing")
    LET_GO.set()
    report = await awaited(desk.wait(number), "the job's report")
    assert report.messages == []


@pytest.fixture
def one_shot(tmp_path: Path) -> str:
    """The command of a one-shot agent that codedesk takes for aider (by its program's name)."""
    folder = tmp_path / "one-shot-bin"
    folder.mkdir()
    program = folder / "aider"
    program.write_text(f'#!/bin/sh\nexec {sys.executable} {ONE_SHOT} "$@"\n')
    program.chmod(0o755)
    return f"{program} --message={{task}}"


async def test_a_message_to_an_agent_that_takes_none_while_it_runs_starts_it_again(
    desk: DeskClient, settings: DeskSettings, origin: Path, gates: Path, one_shot: str
) -> None:
    info = await desk.add_repo(REPO, str(origin))
    gate = gates / "one-shot-may-end"
    number = await desk.start_job(REPO, f"wait-file:{gate}", agent_command=one_shot)

    async def working() -> bool:
        log = job_dir(settings, number) / AGENT_LOG
        return log.is_file() and "scripted agent: waiting for" in log.read_text()

    await eventually(working, bool, "the one-shot agent to work")
    answer = await desk.say(number, "write:CHANGED.md=yes")
    assert (answer.delivery, answer.seam) == (MessageDelivery.TURN_END, MessageSeam.START_OVER)
    gate.touch()

    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert (Path(info.path) / "CHANGED.md").read_text() == "yes"
    [message] = report.messages
    assert message.delivered is not None, message
    assert (message.delivered.run, message.delivered.seam) == (2, MessageSeam.START_OVER)
    assert git(Path(info.path), "log", "-1", "--format=%s") == "one-shot agent: work"


async def test_a_continuation_of_a_job_that_kept_its_branch_goes_on_from_its_work(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    """Job N failed with its work kept on its branch: the job that continues it is cut from
    that branch, so its agent finds N's commits and goes on from them."""
    await desk.add_repo(REPO, str(origin))
    command = agent("obey:1", "commit:As asked", "exit:3")
    number = await desk.start_job(REPO, "write what is asked", agent_command=command)
    await agent_reads_messages(settings, number)
    await desk.say(number, "write:first.txt=1")
    report = await awaited(desk.wait(number), "the job's report")
    assert (report.outcome, report.branch_kept) == (JobOutcome.FAILED, True), report

    answer = await desk.say(number, "write:second.txt=2")
    assert answer.continues == number, answer
    continued = await awaited(desk.wait(answer.number), "the continuation's report")
    assert (continued.outcome, continued.continues) == (JobOutcome.FAILED, number), continued
    worktree = Path(continued.worktree)
    assert (worktree / "first.txt").read_text() == "1" and (worktree / "second.txt").is_file()
    assert git(worktree, "log", "--format=%s", f"{continued.base}..HEAD").splitlines() == [
        "As asked",
        "As asked",
    ]
