"""Agents to try codedesk with, no model needed: the `demo` preset, and the guide's command
agent that asks for a hold (its script and its command line are read from docs/guide.md)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from desk.agents.presets import preset_command
from desk.config.settings import DeskSettings
from desk.holds.approvals import Decision, HoldVerdict, Principal
from desk.payloads.jobs import JobOutcome
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from tests.helpers.job_waits import open_ids
from tests.helpers.repos import git

REPO = "acme/api"
GUIDE = Path(__file__).parents[2] / "docs" / "guide.md"
DOCUMENTED_PATH = "/opt/agents/ask-first.sh"


def documented_agent() -> tuple[str, str, str]:
    """The guide's hold example: the script, the task and the `--agent-command` it is run by."""
    text = GUIDE.read_text()
    [script] = [
        block
        for block in re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL)
        if block.startswith("#!/bin/sh\n# ask-first.sh")
    ]
    [line] = [line for line in text.splitlines() if DOCUMENTED_PATH in line]
    words = shlex.split(line.split("#")[0])
    assert words[:3] == ["codedesk", "task", REPO], line
    return script, words[3], words[words.index("--agent-command") + 1]


async def test_the_demo_preset_commits_a_note_of_the_task(desk: DeskClient, origin: Path) -> None:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "Say hello", agent_command=preset_command("demo"))
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert "codedesk demo agent: a deterministic script, not an AI." in report.output
    clone = Path((await desk.list_repos())[0].path)
    assert (clone / "notes" / "say-hello.md").read_text().startswith("# Say hello\n")
    assert git(clone, "log", "-1", "--format=%s") == "Say hello"


async def test_the_guides_command_agent_asks_for_a_hold_and_does_what_a_person_answers(
    desk: DeskClient, settings: DeskSettings, origin: Path, gates: Path
) -> None:
    script, task, command = documented_agent()
    saved = gates / "ask-first.sh"  # a folder the sandbox reads (the tests' settings)
    saved.write_text(script)
    command = command.replace(DOCUMENTED_PATH, str(saved))
    await desk.add_repo(REPO, str(origin))
    approvals = ApprovalsClient(desk.client)
    owner = Principal(id=settings.owner)
    reports = {}
    # Two tasks: the script commits a note of each, and a second note of the same text would be
    # nothing to commit.
    tasks = {Decision.APPROVE: task, Decision.DECLINE: f"{task}, to decline"}
    for decision, text in tasks.items():
        number = await desk.start_job(REPO, text, agent_command=command)
        [ident] = await open_ids(approvals)
        [state] = [s for s in await approvals.open_approvals() if s.approval_id == ident]
        assert state.request.input == {"command": "git clean -fd"}, state.request
        answered, _ = await approvals.answer(ident, decision, owner)
        assert answered.counted, answered
        reports[decision] = await desk.wait(number)
    approved, declined = reports[Decision.APPROVE], reports[Decision.DECLINE]
    assert approved.outcome == JobOutcome.INTEGRATED, approved
    assert "Cleaned, as approved." in approved.output, approved.output
    assert approved.held_calls == []
    assert declined.outcome == JobOutcome.INTEGRATED, declined
    assert "Not cleaned: the call was not approved." in declined.output, declined.output
    assert [call.verdict for call in declined.held_calls] == [HoldVerdict.DECLINED]
    clone = Path((await desk.list_repos())[0].path)
    assert (clone / "NOTE.md").read_text() == f"{tasks[Decision.DECLINE]}\n"
    assert git(clone, "log", "--format=%s", "-2").splitlines() == ["Note the task"] * 2


MESSAGES_PATH = "/opt/agents/follow-messages.sh"


async def test_the_guides_command_agent_does_what_its_first_message_says(
    desk: DeskClient, settings: DeskSettings, origin: Path, gates: Path
) -> None:
    """The guide's messages example, read from docs/guide.md: run as documented, it waits for
    the job's first message in `CODEDESK_MESSAGES` and commits what it says."""
    text = GUIDE.read_text()
    [script] = [
        block
        for block in re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL)
        if block.startswith("#!/bin/sh\n# follow-messages.sh")
    ]
    [line] = [line for line in text.splitlines() if MESSAGES_PATH in line]
    words = shlex.split(line.split("#")[0])
    assert words[:3] == ["codedesk", "task", REPO], line
    [said] = [line for line in text.splitlines() if line.startswith('codedesk say 1 "Ship it')]
    message = shlex.split(said.split("#")[0])[3]
    saved = gates / "follow-messages.sh"
    saved.write_text(script)
    command = words[words.index("--agent-command") + 1].replace(MESSAGES_PATH, str(saved))
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, words[3], agent_command=command)
    answer = await desk.say(number, message)
    assert answer.seq == 1, answer
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert f"Done: {message}" in report.output, report.output
    clone = Path((await desk.list_repos())[0].path)
    assert (clone / "MESSAGE.md").read_text() == f"{message}\n"
    assert git(clone, "log", "-1", "--format=%s") == "Do as the message says"
