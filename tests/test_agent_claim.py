"""The agent's claim: a stale attempt never starts an agent once a later attempt has."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from temporalio.exceptions import ApplicationError

from activities.agent_claim import AgentClaim
from tests.waiting import awaited


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
