"""The surface contract: every surface shows, answers and closes approval cards the same way.

Each driver (tests/surfaces/contract/drivers.py) runs the same cases on a real Approval
workflow: the fake surface, the CLI, and the Discord surface.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
from temporalio.client import Client
from temporalio.worker import Worker

from activities.surface import SurfaceActivities
from desk.config.settings import DeskSettings
from desk.holds.approvals import (
    ApprovalOutcome,
    ApprovalRequest,
    Decision,
    OutcomeKind,
    WithdrawInput,
    approval_id,
)
from surfaces.clients.desk_client import DeskClient
from tests.helpers.waiting import until
from tests.surfaces.contract.drivers import CliDriver, FakeDriver, SurfaceDriver
from tests.surfaces.discord_driver import discord_driver, discord_settings
from tests.surfaces.fake_surface import FakeSurface
from workflows.shipping.approval import Approval


@pytest.fixture(params=["fake", "cli", "discord"])
async def driver(
    request: pytest.FixtureRequest, desk: DeskClient, settings: DeskSettings
) -> AsyncIterator[SurfaceDriver]:
    queue = f"surface-{uuid.uuid4().hex[:8]}"
    if request.param == "cli":
        yield CliDriver(settings, desk.client)
    elif request.param == "discord":
        async with discord_driver(desk.client, discord_settings(settings), queue) as driver:
            yield driver
    else:
        surface = FakeSurface()
        activities = SurfaceActivities(surface).all()
        async with Worker(desk.client, task_queue=queue, activities=activities):
            yield FakeDriver(surface, queue, desk.client, settings.owner)


async def open_card(
    client: Client, settings: DeskSettings, driver: SurfaceDriver, *, withdrawn: bool = False
) -> str:
    call = {"command": f"git push {uuid.uuid4().hex}"}
    scope = f"contract-{uuid.uuid4().hex[:6]}"
    ident = approval_id(scope, "Bash", call)
    request = ApprovalRequest(
        tool="Bash",
        input=call,
        scope=scope,
        owners=[driver.owner.id],
        place=driver.place(),
        title="A contract card",
    )
    if withdrawn:
        await client.start_workflow(
            Approval.run,
            request,
            id=ident,
            task_queue=settings.task_queue,
            start_signal="withdraw",
            start_signal_args=[WithdrawInput(reason="changed my mind")],
        )
    else:
        await client.start_workflow(Approval.run, request, id=ident, task_queue=settings.task_queue)
    return ident


async def outcome_of(client: Client, ident: str) -> ApprovalOutcome:
    return await client.get_workflow_handle_for(Approval.run, ident).result()


@pytest.mark.parametrize("decision", [Decision.APPROVE, Decision.DECLINE])
async def test_a_card_opens_and_resolves_as_answered(
    driver: SurfaceDriver, desk: DeskClient, settings: DeskSettings, decision: Decision
) -> None:
    ident = await open_card(desk.client, settings, driver)
    await until(lambda: driver.shown(ident), "the card to show")
    told = await driver.press(ident, decision, driver.owner)
    assert told == "counted", told
    expected = OutcomeKind.APPROVED if decision == Decision.APPROVE else OutcomeKind.DECLINED
    assert (await outcome_of(desk.client, ident)).kind == expected

    async def closed() -> bool:
        return await driver.closed_as(ident) == expected.value

    await until(closed, "the card to close with the outcome")


async def test_a_withdrawal_closes_the_card_and_resolves_withdrawn(
    driver: SurfaceDriver, desk: DeskClient, settings: DeskSettings
) -> None:
    ident = await open_card(desk.client, settings, driver)
    await until(lambda: driver.shown(ident), "the card to show")
    await desk.client.get_workflow_handle_for(Approval.run, ident).signal(
        Approval.withdraw, WithdrawInput(reason="not needed")
    )
    outcome = await outcome_of(desk.client, ident)
    assert (outcome.kind, outcome.note) == (OutcomeKind.WITHDRAWN, "not needed")

    async def closed() -> bool:
        return await driver.closed_as(ident) == OutcomeKind.WITHDRAWN.value

    await until(closed, "the card to close as withdrawn")


async def test_an_answer_first_stays_answered(
    driver: SurfaceDriver, desk: DeskClient, settings: DeskSettings
) -> None:
    ident = await open_card(desk.client, settings, driver)
    await until(lambda: driver.shown(ident), "the card to show")
    assert await driver.press(ident, Decision.APPROVE, driver.owner) == "counted"
    handle = desk.client.get_workflow_handle_for(Approval.run, ident)
    outcome = await handle.result()
    late = await driver.press(ident, Decision.DECLINE, driver.owner)
    assert late != "counted"
    assert outcome.kind == OutcomeKind.APPROVED
    assert (await handle.result()).kind == OutcomeKind.APPROVED


async def test_a_card_withdrawn_before_it_opens_is_never_shown(
    driver: SurfaceDriver, desk: DeskClient, settings: DeskSettings
) -> None:
    ident = await open_card(desk.client, settings, driver, withdrawn=True)
    outcome = await outcome_of(desk.client, ident)
    assert outcome.kind == OutcomeKind.WITHDRAWN
    await asyncio.sleep(0.5)
    assert not await driver.shown(ident)
    assert await driver.closed_as(ident) is None


async def test_a_strangers_answer_leaves_the_card_open(
    driver: SurfaceDriver, desk: DeskClient, settings: DeskSettings
) -> None:
    ident = await open_card(desk.client, settings, driver)
    await until(lambda: driver.shown(ident), "the card to show")
    told = await driver.press(ident, Decision.APPROVE, driver.stranger)
    assert told != "counted"
    assert await driver.shown(ident)
    state = await desk.client.get_workflow_handle_for(Approval.run, ident).query(Approval.current)
    assert state.outcome is None
    assert len(state.ignored) == 1 and state.ignored[0].by.id != driver.owner.id
