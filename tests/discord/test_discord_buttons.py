"""Approval buttons: custom ids within 100 characters that reach the approval after a restart."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from temporalio.client import Client

from desk.config.settings import DeskSettings
from desk.holds.approvals import (
    AnswerInput,
    ApprovalRequest,
    Decision,
    OutcomeKind,
    Principal,
    approval_id,
)
from desk.payloads.surfaces import PostCard
from surfaces.clients.desk_client import DeskClient
from surfaces.discord.interactions.buttons import card_view
from surfaces.discord.interactions.custom_ids import (
    CUSTOM_ID_CHARS,
    TEMPLATE,
    CardKey,
    parse,
    resolve,
)
from surfaces.discord.interactions.press import MAY_NOT, NO_LONGER_ACTIVE
from tests.surfaces.discord_driver import (
    OWNER_ID,
    STRANGER_ID,
    FakeDiscord,
    allowed_mentions_everywhere,
    deliver,
    discord_settings,
    enabled,
    start_bot,
)
from workflows.shipping.approval import Approval

LONG_REPO = "acme/" + "r" * 201


def test_a_job_approval_id_is_carried_whole_and_matches_in_full() -> None:
    ident = approval_id("job-12", "Bash", {"command": "git push"})
    custom = CardKey.of(ident).custom_id(Decision.APPROVE)
    assert custom == f"codedesk:approve:{ident}"
    assert len(custom) <= CUSTOM_ID_CHARS
    assert TEMPLATE.fullmatch(custom)
    assert parse(custom) == (Decision.APPROVE, CardKey(approval_id=ident))


def test_a_push_approval_of_a_long_repository_carries_a_digest_within_100_chars() -> None:
    ident = approval_id(f"push-{LONG_REPO}", "git push", {"sha": "a" * 40})
    key = CardKey.of(ident)
    assert key.approval_id == "" and len(key.digest) == 32
    for decision in Decision:
        custom = key.custom_id(decision)
        assert len(custom) <= CUSTOM_ID_CHARS and TEMPLATE.fullmatch(custom)
        parsed = parse(custom)
        assert parsed is not None and parsed[0] == decision and parsed[1].matches(ident)
    assert not key.matches(ident + "x")


def test_the_longest_id_that_fits_is_carried_and_one_more_character_is_not() -> None:
    head = len("codedesk:decline:")
    fits = "approval-" + "x" * (CUSTOM_ID_CHARS - head - len("approval-"))
    assert CardKey.of(fits).approval_id == fits
    assert len(CardKey.of(fits).custom_id(Decision.DECLINE)) == CUSTOM_ID_CHARS
    assert CardKey.of(fits + "x").digest


@pytest.mark.parametrize(
    "custom",
    [
        "codedesk:maybe:approval-job-1-0123456789abcdef",
        "xcodedesk:approve:approval-job-1-0123456789abcdef",
        "codedesk:approve:approval-job-1-0123456789abcdef ",
        "codedesk:approve:job-1-0123456789abcdef",
        "codedesk:approve:#" + "a" * 31,
        "codedesk:approve:#" + "a" * 33,
        "codedesk:approve:approval-" + "x" * 80,
        "codedesk:approve:approval-job 1",
    ],
)
def test_the_template_refuses_anything_else(custom: str) -> None:
    assert TEMPLATE.fullmatch(custom) is None
    assert parse(custom) is None


async def test_the_card_view_is_two_dynamic_buttons_that_turn_off_when_closed() -> None:
    ident = approval_id("job-3", "Bash", {"command": "ls"})
    [row] = card_view(ident).to_components()
    assert [(b["label"], b["style"], b["custom_id"], b["disabled"]) for b in row["components"]] == [
        ("Approve", 3, f"codedesk:approve:{ident}", False),
        ("Decline", 4, f"codedesk:decline:{ident}", False),
    ]
    [closed] = card_view(ident, disabled=True).to_components()
    assert all(button["disabled"] for button in closed["components"])


# Presses on a real Approval workflow


async def open_approval(client: Client, settings: DeskSettings, *, scope: str = "") -> str:
    call = {"command": f"git push {uuid.uuid4().hex}"}
    scope = scope or f"job-{uuid.uuid4().int % 10_000}"
    ident = approval_id(scope, "Bash", call)
    request = ApprovalRequest(
        tool="Bash", input=call, scope=scope, owners=[f"discord:{OWNER_ID}"], title="A card"
    )
    await client.start_workflow(Approval.run, request, id=ident, task_queue=settings.task_queue)
    return ident


async def post(bot: Any, client: Client, ident: str, channel: int) -> int:
    state = await client.get_workflow_handle_for(Approval.run, ident).query(Approval.current)
    ref = await bot.surface.post_card(
        PostCard(approval_id=ident, request=state.request, channel=str(channel))
    )
    return int(ref.message)


@pytest.mark.parametrize("scope", ["", f"push-{LONG_REPO}"], ids=["carried", "digest"])
async def test_a_press_after_a_restart_reaches_the_right_approval(
    desk: DeskClient, settings: DeskSettings, scope: str
) -> None:
    config = discord_settings(settings)
    fake = FakeDiscord()
    channel = fake.text_channel()
    other = await open_approval(desk.client, config)
    ident = await open_approval(desk.client, config, scope=scope)
    first = await start_bot(fake, config, desk.client)
    await post(first, desk.client, other, channel)
    message = await post(first, desk.client, ident, channel)
    await first.close()

    again = await start_bot(fake, config, desk.client)  # a new process: it kept nothing
    press = fake.press(message, CardKey.of(ident).custom_id(Decision.APPROVE), OWNER_ID)
    await deliver(again, press)
    await again.close()

    assert fake.told(press["token"]) == ["Approved."]
    outcome = await desk.client.get_workflow_handle_for(Approval.run, ident).result()
    assert outcome.kind == OutcomeKind.APPROVED
    assert outcome.by is not None and outcome.by.id == f"discord:{OWNER_ID}"
    # The card the answer came from (the seed's approvedPrompt), not the CLI's `cli:<id>`.
    assert outcome.card_id == f"discord:{message}"
    still = await desk.client.get_workflow_handle_for(Approval.run, other).query(Approval.current)
    assert still.outcome is None
    card = fake.messages[message]
    assert not enabled(card)
    footer = card["embeds"][0]["footer"]["text"]
    assert footer.startswith(f"Approved by user{OWNER_ID} (discord:{OWNER_ID}) · ")
    callback = next(s for s in fake.sent if s.path.endswith(f"{press['token']}/callback"))
    assert callback.json == {"type": 6}  # acknowledged first, inside Discord's 3 seconds
    told = [m for m in fake.messages.values() if m.get("_token") == press["token"]]
    assert all(m["flags"] & 64 for m in told)  # only the presser sees the answer
    allowed_mentions_everywhere(fake)


async def test_a_strangers_press_is_refused_and_changes_nothing(
    desk: DeskClient, settings: DeskSettings
) -> None:
    config = discord_settings(settings)
    fake = FakeDiscord()
    channel = fake.text_channel()
    ident = await open_approval(desk.client, config)
    bot = await start_bot(fake, config, desk.client)
    message = await post(bot, desk.client, ident, channel)
    press = fake.press(message, CardKey.of(ident).custom_id(Decision.APPROVE), STRANGER_ID)
    await deliver(bot, press)
    await bot.close()

    assert fake.told(press["token"]) == [MAY_NOT]
    state = await desk.client.get_workflow_handle_for(Approval.run, ident).query(Approval.current)
    assert state.outcome is None
    assert [ignored.by.id for ignored in state.ignored] == [f"discord:{STRANGER_ID}"]
    assert enabled(fake.messages[message])
    allowed_mentions_everywhere(fake)


async def test_a_press_on_a_settled_card_says_it_is_no_longer_active_and_closes_it(
    desk: DeskClient, settings: DeskSettings
) -> None:
    config = discord_settings(settings)
    fake = FakeDiscord()
    channel = fake.text_channel()
    ident = await open_approval(desk.client, config)
    bot = await start_bot(fake, config, desk.client)
    message = await post(bot, desk.client, ident, channel)
    handle = desk.client.get_workflow_handle_for(Approval.run, ident)
    cli = Principal(id=f"discord:{OWNER_ID}", name="from the CLI")
    await handle.signal(Approval.decline, AnswerInput(by=cli))
    assert (await handle.result()).kind == OutcomeKind.DECLINED

    press = fake.press(message, CardKey.of(ident).custom_id(Decision.APPROVE), OWNER_ID)
    await deliver(bot, press)
    await bot.close()

    [told] = fake.told(press["token"])
    assert told == f"{NO_LONGER_ACTIVE}: it was declined by from the CLI."
    assert (await handle.result()).kind == OutcomeKind.DECLINED
    card = fake.messages[message]
    assert not enabled(card)
    assert card["embeds"][0]["footer"]["text"].startswith("Declined by from the CLI")


async def test_a_press_naming_no_approval_is_no_longer_active(
    client: Client, settings: DeskSettings
) -> None:
    config = discord_settings(settings)
    fake = FakeDiscord()
    channel = fake.text_channel()
    ident = approval_id(f"push-{LONG_REPO}", "git push", {"sha": "b" * 40})
    assert await resolve(CardKey.of(ident), client) is None
    bot = await start_bot(fake, config, client)
    message = fake.message(channel, components=card_view(ident).to_components())
    press = fake.press(message, CardKey.of(ident).custom_id(Decision.DECLINE), OWNER_ID)
    await deliver(bot, press)
    await bot.close()
    assert fake.told(press["token"]) == [f"{NO_LONGER_ACTIVE}."]
    assert not enabled(fake.messages[message])


async def test_a_press_on_someone_elses_button_is_not_ours(
    client: Client, settings: DeskSettings
) -> None:
    fake = FakeDiscord()
    channel = fake.text_channel()
    bot = await start_bot(fake, discord_settings(settings), client)
    button = {"type": 2, "style": 1, "label": "x", "custom_id": "someone:else:approve"}
    message = fake.message(channel, components=[{"type": 1, "components": [button]}])
    before = len(fake.sent)
    await deliver(bot, fake.press(message, "someone:else:approve", OWNER_ID))
    await bot.close()
    assert fake.sent[before:] == []
