"""The agent's lines as surfaces show them: the last few, scrubbed and capped; new ones once."""

from __future__ import annotations

from datetime import timedelta

from temporalio.client import Client

from activities.agent.run import heartbeat_interval
from desk.config.settings import DeskSettings
from desk.payloads.agent_progress import RUN_AGENT, shown_lines
from surfaces.clients.agent_lines import AgentLines, NewLines
from workers.worker import build_worker

TOKEN = "ghp_Zq8vR2mK7pL4nW9xT3bY6cJ1hF5dG0sA2eU4"


def test_shown_lines_are_the_last_that_show_something_scrubbed_and_cut() -> None:
    lines = ["one", "", "   ", f"two {TOKEN}", "three " + "x" * 50]
    assert shown_lines(lines, 2, 20) == ["two ghp_***", "three " + "x" * 13 + "…"]
    assert shown_lines(lines, 0, 20) == []


def test_the_agent_activity_is_found_by_its_registered_name() -> None:
    from temporalio.activity import _Definition

    from activities.agent.run import AgentActivities

    assert _Definition.must_from_callable(AgentActivities.run_agent).name == RUN_AGENT


def working(total: int, *lines: str, attempt: int = 1) -> AgentLines:
    return AgentLines(True, True, lines, total, attempt)


def test_a_follower_takes_each_new_line_once_and_counts_what_it_missed() -> None:
    follower = NewLines()
    assert follower.take(working(2, "a", "b")) == (0, ["a", "b"])
    assert follower.take(working(2, "a", "b")) == (0, [])
    assert follower.take(working(3, "a", "b", "c")) == (0, ["c"])
    assert follower.take(working(10, "h", "i", "j")) == (4, ["h", "i", "j"])
    assert follower.take(AgentLines(True, False)) == (0, [])
    # A retried agent counts its lines from zero again.
    assert follower.take(working(1, "again", attempt=2)) == (0, ["again"])


async def test_the_agents_lines_reach_temporal_at_the_progress_pace(
    client: Client, settings: DeskSettings
) -> None:
    """A heartbeat timeout of 30 s would send the lines every 24 s; the setting paces them."""
    paced = settings.model_copy(
        update={
            "heartbeat_timeout": timedelta(seconds=30),
            "agent_progress_interval": timedelta(seconds=2),
        }
    )
    async with build_worker(client, paced) as workers:
        throttles = {w.config()["max_heartbeat_throttle_interval"] for w in workers.workers}
    assert throttles == {timedelta(seconds=2)}
    assert heartbeat_interval(paced.heartbeat_timeout, paced.agent_progress_interval) == 2.0
    assert heartbeat_interval(timedelta(seconds=3), paced.agent_progress_interval) == 1.0
