"""The agent's claim: a stale attempt never starts an agent once a later attempt has."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from temporalio.exceptions import ApplicationError

from activities.agent.session.claim import AgentClaim
from tests.helpers.waiting import awaited


async def test_an_earlier_attempt_after_a_later_one_does_not_start(tmp_path: Path) -> None:
    claim = await AgentClaim.take(tmp_path, 3)
    claim.close()
    with pytest.raises(ApplicationError) as refused:
        await AgentClaim.take(tmp_path, 2)
    assert refused.value.type == "StaleAgentAttempt"
    assert not refused.value.non_retryable
    assert "attempt 3" in refused.value.message
    again = await AgentClaim.take(tmp_path, 3)  # the same attempt may take it again
    again.close()


async def test_a_second_attempt_waits_until_the_first_has_started_its_agent(
    tmp_path: Path,
) -> None:
    first = await AgentClaim.take(tmp_path, 2)
    waiting = asyncio.create_task(AgentClaim.take(tmp_path, 3))
    await asyncio.sleep(0.3)
    assert not waiting.done(), "the later attempt must wait while the claim is held"
    first.close()
    (await awaited(waiting, "the later attempt's claim")).close()
    with pytest.raises(ApplicationError):
        await AgentClaim.take(tmp_path, 2)


async def test_a_run_after_the_host_came_back_beats_every_attempt_before_and_counts_on(
    tmp_path: Path,
) -> None:
    # The first run of the agent's step got to attempt 2; the host went, the job started the
    # step again (execution 2), whose attempts count from 1 again.
    for attempt in (1, 2):
        (await AgentClaim.take(tmp_path, attempt)).close()
    again = await AgentClaim.take(tmp_path, 1, execution=2)
    again.close()
    assert again.run == 3, "the third agent of the job: told it was interrupted, counted"
    with pytest.raises(ApplicationError) as refused:
        await AgentClaim.take(tmp_path, 2)  # a stale attempt of the first run, come back
    assert refused.value.type == "StaleAgentAttempt"


async def test_a_claim_written_before_runs_were_counted_is_the_first_runs(tmp_path: Path) -> None:
    (tmp_path / "agent-claim").write_text("2")
    claim = await AgentClaim.take(tmp_path, 3)
    claim.close()
    assert claim.run == 3
    with pytest.raises(ApplicationError):
        await AgentClaim.take(tmp_path, 1)


async def test_only_the_latest_attempt_may_hand_the_agents_branch_back(tmp_path: Path) -> None:
    (await AgentClaim.take(tmp_path, 1)).close()
    held = await AgentClaim.latest(tmp_path, 1)
    assert held is not None, "attempt 1 is the latest: it hands its agent's branch back"
    waiting = asyncio.create_task(AgentClaim.take(tmp_path, 2))
    await asyncio.sleep(0.3)
    assert not waiting.done(), "a later attempt waits while the hand-back runs"
    held.close()
    (await awaited(waiting, "the later attempt's claim")).close()
    assert await AgentClaim.latest(tmp_path, 1) is None, "stale: it must leave the folders alone"
    again = await AgentClaim.latest(tmp_path, 2)
    assert again is not None
    again.close()
