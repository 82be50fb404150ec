"""Slash commands: owners only, deferred answers, /task's thread, and a job run from Discord."""

from __future__ import annotations

import re
import uuid
from pathlib import Path
from typing import Any
from unittest.mock import MagicMock

import pytest
from temporalio.client import Client

from desk.config.settings import DeskSettings, load_settings
from desk.errors import SettingsError
from desk.holds.approvals import ApprovalRequest, OutcomeKind, approval_id
from desk.payloads.jobs import CloneInfo, JobOutcome
from desk.payloads.ship_payloads import PushStatus
from surfaces.cli.main import invoke
from surfaces.clients.desk_client import DeskClient
from surfaces.discord.common.access import REFUSAL
from surfaces.discord.common.services import Services
from surfaces.discord.interactions.custom_ids import parse
from tests.helpers.agents import agent
from tests.helpers.repos import git
from tests.helpers.waiting import until
from tests.surfaces.discord_driver import (
    GUILD_ID,
    OWNER_ID,
    OWNER_ROLE_ID,
    STRANGER_ID,
    FakeDiscord,
    allowed_mentions_everywhere,
    custom_ids,
    deliver,
    discord_settings,
    enabled,
    start_bot,
)
from workers import hosting
from workers.desk_handle import configure_desk
from workflows.shipping.approval import Approval

NAMES = {"task", "repos", "jobs", "job", "cancel", "report", "push", "approvals", "mode"}


def offline(tmp_path: Path) -> tuple[DeskSettings, MagicMock]:
    """Settings with owners, and a Temporal client that must never be used."""
    return discord_settings(load_settings(home=str(tmp_path))), MagicMock(spec=Client)


async def test_the_commands_and_their_options_as_discord_receives_them(tmp_path: Path) -> None:
    settings, temporal = offline(tmp_path)
    fake = FakeDiscord()
    bot = await start_bot(fake, settings, temporal, sync=True)
    await bot.close()
    synced = {command["name"]: command for command in fake.synced[GUILD_ID]}
    assert set(synced) == NAMES
    options = synced["task"]["options"]
    repo, task, agent, budget, spend_limit, review, agents, attempts, first_passing = options
    assert (repo["name"], repo["autocomplete"], repo["max_length"]) == ("repo", True, 201)
    assert (task["name"], task["max_length"]) == ("task", 4000)
    assert (agent["name"], agent["autocomplete"], agent["required"]) == ("agent", True, False)
    assert (budget["name"], budget["required"]) == ("budget", False)
    assert (spend_limit["name"], spend_limit["required"]) == ("spend_limit", False)
    assert (review["name"], review["type"], review["required"]) == ("review", 5, False)
    assert (agents["name"], agents["type"], agents["required"]) == ("agents", 3, False)
    assert (attempts["name"], attempts["type"], attempts["required"]) == ("attempts", 4, False)
    assert (first_passing["name"], first_passing["type"]) == ("pick_first_passing", 5)
    [number] = synced["job"]["options"]
    assert (number["type"], number["min_value"]) == (4, 1)
    [_, sha] = synced["push"]["options"]
    assert (sha["min_length"], sha["max_length"]) == (40, 40)


async def test_commands_are_synced_only_on_request(tmp_path: Path) -> None:
    settings, temporal = offline(tmp_path)
    fake = FakeDiscord()
    bot = await start_bot(fake, settings, temporal)
    await bot.close()
    assert fake.synced == {}
    assert not [sent for sent in fake.sent if "/commands" in sent.path]


async def test_a_stranger_is_refused_ephemerally_and_nothing_runs(tmp_path: Path) -> None:
    settings, temporal = offline(tmp_path)
    fake = FakeDiscord()
    channel = fake.text_channel()
    bot = await start_bot(fake, settings, temporal)
    before = len(fake.sent)
    command = fake.command("task", STRANGER_ID, channel, repo="acme/api", task="rm -rf /")
    await deliver(bot, command)
    typed = fake.command("task", STRANGER_ID, channel, autocomplete=True, repo="ac", task="")
    await deliver(bot, typed)
    await bot.close()
    refusal, choices = fake.sent[before:]
    assert refusal.json == {
        "type": 4,
        "data": {
            "tts": False,
            "content": REFUSAL,
            "flags": 64,
            "allowed_mentions": {"parse": []},
        },
    }
    assert choices.json == {"type": 8, "data": {"choices": []}}
    assert temporal.method_calls == []  # no job, no listing: nothing reached the desk
    assert fake.in_channel(channel) == []


async def test_a_member_with_an_owner_role_may_use_the_commands(
    desk: DeskClient, settings: DeskSettings
) -> None:
    fake = FakeDiscord()
    channel = fake.text_channel()
    bot = await start_bot(fake, discord_settings(settings), desk.client)
    member = fake.command("jobs", STRANGER_ID, channel, roles=[OWNER_ROLE_ID])
    await deliver(bot, member)
    await bot.close()
    assert fake.told(member["token"]) == ["No jobs yet: start one with `/task`."]
    defer = fake.sent[-2] if len(fake.sent) > 1 else None
    assert defer is not None and defer.json == {"type": 5}  # deferred first: Discord's 3 s


async def test_task_opens_a_thread_that_follows_the_job_to_its_report(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    config = discord_settings(settings, agent_command=agent("write:a.txt=1", "commit:one"))
    queue = f"discord-{uuid.uuid4().hex[:8]}"
    await desk.add_repo("acme/api", str(origin))
    fake = FakeDiscord()
    channel = fake.text_channel()
    bot = await start_bot(fake, config, desk.client, queue=queue, host_activities=True)
    try:
        typed = fake.command("task", OWNER_ID, channel, autocomplete=True, repo="api", task="")
        await deliver(bot, typed)
        command = fake.command("task", OWNER_ID, channel, repo="acme/api", task="Say @everyone")
        await deliver(bot, command)
        [answer] = fake.in_channel(channel)
        thread = int(answer["id"])  # a thread started from a message has the message's id
        assert thread in fake.channels and fake.channels[thread]["parent_id"] == str(channel)
        assert fake.channels[thread]["name"] == "acme/api: Say @everyone"
        found = re.search(r"Job \*\*(\d+)\*\* is running", answer["content"])
        assert found, answer["content"]
        assert "@everyone" not in answer["content"]
        number = int(found[1])
        report = await desk.wait(number)
        assert report.outcome == JobOutcome.INTEGRATED
        await until(lambda: fake.archived(thread), "the report and the archived thread")
    finally:
        await bot.close()
    [choices] = [s.json for s in fake.sent if s.json and s.json.get("type") == 8]
    assert choices["data"]["choices"] == [{"name": "acme/api", "value": "acme/api"}]
    progress, *texts = fake.in_channel(thread)
    assert progress["embeds"][0]["footer"]["text"] == "codedesk · progress"
    assert texts[0]["content"].startswith(f"## Job {number} on `acme/api`: integrated")
    allowed_mentions_everywhere(fake)


async def test_task_revalidates_the_repository_and_starts_nothing_unknown(
    desk: DeskClient, settings: DeskSettings
) -> None:
    fake = FakeDiscord()
    channel = fake.text_channel()
    bot = await start_bot(fake, discord_settings(settings), desk.client)
    command = fake.command("task", OWNER_ID, channel, repo="acme/nope", task="anything")
    await deliver(bot, command)
    await bot.close()
    assert fake.told(command["token"]) == [
        "`acme/nope` is not on the shelf: `/repos` lists what is."
    ]
    assert await desk.jobs() == []
    assert [c for c in fake.channels.values() if c["type"] == 11] == []


async def test_repos_jobs_job_and_cancel_answer_by_follow_up(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    await desk.add_repo("acme/api", str(origin))
    number = await desk.start_job("acme/api", "wait", agent_command=agent("sleep:30"))
    fake = FakeDiscord()
    channel = fake.text_channel()
    bot = await start_bot(fake, discord_settings(settings), desk.client)

    async def run(name: str, **options: Any) -> str:
        command = fake.command(name, OWNER_ID, channel, **options)
        await deliver(bot, command)
        return "\n".join(fake.told(command["token"]))

    try:
        assert "`acme/api` · on `main`" in await run("repos")
        assert f"- **{number}** `acme/api`" in await run("jobs")
        assert f"## Job {number} on `acme/api`: running" in await run("job", number=number)
        assert "cancellation requested" in await run("cancel", number=number)
        assert (await desk.wait(number)).outcome == JobOutcome.CANCELLED
        assert "not running" in await run("cancel", number=number)
        assert "There is no job 999" in await run("job", number=999)
    finally:
        await bot.close()
    allowed_mentions_everywhere(fake)


async def test_report_push_and_an_approval_pressed_in_discord_ship_the_sha(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    config = discord_settings(settings)
    # The desk's worker runs with the bot's environment: its host policy names the same owners.
    await configure_desk(desk.client, config)
    queue = f"discord-{uuid.uuid4().hex[:8]}"
    await desk.add_repo("acme/api", str(origin))
    job = await desk.start_job(
        "acme/api", "greet", agent_command=agent("write:hello.txt=hi", "commit:greet")
    )
    assert (await desk.wait(job)).outcome == JobOutcome.INTEGRATED
    fake = FakeDiscord()
    channel = fake.text_channel()
    bot = await start_bot(fake, config, desk.client, queue=queue, host_activities=True)
    try:
        report = fake.command("report", OWNER_ID, channel, repo="acme/api")
        await deliver(bot, report)
        [told] = fake.told(report["token"])
        found = re.search(r"`/push repo:acme/api sha:([0-9a-f]{40})`", told)
        assert found, told
        sha = found[1]
        push = fake.command("push", OWNER_ID, channel, repo="acme/api", sha=sha)
        await deliver(bot, push)
        assert "waits for an owner's approval" in fake.told(push["token"])[0]

        def cards() -> list[dict[str, Any]]:
            return [m for m in fake.in_channel(channel) if custom_ids(m)]

        await until(lambda: bool(cards()), "the push's card in the channel")
        [posted] = cards()
        assert git(origin, "rev-parse", "main") != sha
        [approve, _] = custom_ids(posted)
        parsed = parse(approve)
        assert parsed is not None and parsed[1].approval_id.startswith("approval-push-acme/api-")
        assert posted["embeds"][0]["title"].startswith("Push acme/api")
        press = fake.press(int(posted["id"]), approve, OWNER_ID)
        await deliver(bot, press)
        assert fake.told(press["token"]) == ["Approved."]
        await until(lambda: git(origin, "rev-parse", "main") == sha, "the push")
        await until(
            lambda: any(m["content"].startswith("Pushed") for m in fake.in_channel(channel)),
            "the bot to say the push is done",
        )
    finally:
        await bot.close()
    assert not enabled(fake.messages[int(posted["id"])])
    result = await desk.client.get_workflow_handle(f"push-acme/api-{sha}").result()
    assert result["status"] == PushStatus.PUSHED.value
    allowed_mentions_everywhere(fake)


async def test_autocomplete_offers_at_most_25_repositories_from_the_shelf(
    tmp_path: Path,
) -> None:
    settings, temporal = offline(tmp_path)
    fake = FakeDiscord()
    channel = fake.text_channel()
    bot = await start_bot(fake, settings, temporal)
    services: Services = bot.codedesk
    names = [f"acme/repo-{i:02d}" for i in range(40)] + ["other/" + "x" * 150]
    listed = []

    async def list_repos(fetch: bool = False) -> list[CloneInfo]:
        listed.append(fetch)
        return [CloneInfo(repo=name, path=f"/shelf/{name}") for name in names]

    services.desk.list_repos = list_repos  # type: ignore[method-assign]
    typed = fake.command("task", OWNER_ID, channel, autocomplete=True, repo="", task="")
    await deliver(bot, typed)
    narrowed = fake.command("task", OWNER_ID, channel, autocomplete=True, repo="REPO-3", task="")
    await deliver(bot, narrowed)
    await bot.close()
    answers = [s.json for s in fake.sent if s.json and s.json["type"] == 8]
    first, second = [answer["data"]["choices"] for answer in answers]
    assert len(first) == 25 and all(len(choice["value"]) <= 100 for choice in first)
    assert [choice["value"] for choice in second] == [f"acme/repo-3{i}" for i in range(10)]
    assert listed == [False]  # the second keystroke reused the listing


# Settings and the command line


def test_discord_owners_may_approve_and_ids_must_be_discord_ids(tmp_path: Path) -> None:
    settings = load_settings(home=str(tmp_path), owners="local:ann", discord_owner_ids="1,22")
    assert settings.owner_ids == ["local:ann", "discord:1", "discord:22"]
    with pytest.raises(SettingsError, match="not Discord ids"):
        load_settings(home=str(tmp_path), discord_guild_ids="my-server")


def test_the_token_is_never_shown(tmp_path: Path) -> None:
    settings = load_settings(home=str(tmp_path), discord_token="very-secret-token")
    assert settings.discord_token.get_secret_value() == "very-secret-token"
    for shown in (repr(settings), str(settings), settings.model_dump_json()):
        assert "very-secret-token" not in shown
    with pytest.raises(SettingsError) as caught:
        load_settings(home=str(tmp_path), discord_token=["very-secret-token"])
    assert "very-secret-token" not in str(caught.value)


@pytest.fixture
def quiet_cli(no_env_settings: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CODEDESK_HOME", str(tmp_path / "home"))


def test_discord_without_a_token_is_a_clear_error(
    quiet_cli: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert invoke(["discord"]) == 2
    assert "No Discord token: set CODEDESK_DISCORD_TOKEN" in capsys.readouterr().err


def test_up_runs_the_bot_beside_the_worker_only_with_a_token(
    quiet_cli: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[object] = []

    async def serve_up(settings: DeskSettings, say: object, **options: object) -> None:
        seen.append(options["also"])

    monkeypatch.setattr(hosting, "serve_up", serve_up)  # `up` imports it when it runs
    assert invoke(["up"]) == 0
    monkeypatch.setenv("CODEDESK_DISCORD_TOKEN", "very-secret-token")
    assert invoke(["up"]) == 0
    assert seen[0] is None and callable(seen[1])


async def test_approvals_lists_the_open_ones_with_cards_only_the_owner_sees(
    desk: DeskClient, settings: DeskSettings
) -> None:
    config = discord_settings(settings)
    call = {"command": "git push --force"}
    ident = approval_id("job-5", "Bash", call)
    request = ApprovalRequest(
        tool="Bash", input=call, scope="job-5", owners=[f"discord:{OWNER_ID}"], title="Force?"
    )
    await desk.client.start_workflow(Approval.run, request, id=ident, task_queue=config.task_queue)
    await until(lambda: _listed(desk, ident), "the approval to be listed")
    fake = FakeDiscord()
    channel = fake.text_channel()
    bot = await start_bot(fake, config, desk.client)
    command = fake.command("approvals", OWNER_ID, channel)
    await deliver(bot, command)
    answers = [m for m in fake.messages.values() if m.get("_token") == command["token"]]
    assert all(m["flags"] & 64 for m in answers) and fake.in_channel(channel) == []
    listing, card = answers
    assert f"`{ident}`: Force?" in listing["content"]
    press = fake.press(int(card["id"]), custom_ids(card)[1], OWNER_ID)  # Decline
    await deliver(bot, press)
    await bot.close()
    assert fake.told(press["token"]) == ["Declined."]
    outcome = await desk.client.get_workflow_handle_for(Approval.run, ident).result()
    assert outcome.kind == OutcomeKind.DECLINED
    assert not enabled(fake.messages[int(card["id"])])


async def _listed(desk: DeskClient, ident: str) -> bool:
    return ident in [
        state.approval_id
        for state in await Services(desk.settings, desk.client).approvals.open_approvals()
    ]
