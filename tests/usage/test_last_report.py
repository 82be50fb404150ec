"""A usage report an agent sends as its last act, ending before the worker's loop has even
accepted the connection, is counted: the hold channel takes in what is pending before it closes.
Closing at once dropped it, and a job's whole cost was lost (seen under load in CI:
tests/usage/test_daily_limit.py, a job reporting $1.20 whose report said no cost)."""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

from temporalio.client import Client

from activities.holds.channel import ChannelRules, serve_holds
from desk.holds.protocol import connect

JOB = 7


async def test_a_report_still_pending_when_the_agent_ends_is_counted(
    client: Client, tmp_path: Path
) -> None:
    rules = ChannelRules(
        worktree=str(tmp_path),
        hold_classes=(),
        hold_tools=(),
        wait=timedelta(seconds=5),
        preview_chars=200,
        max_request_bytes=65536,
    )
    path = tmp_path / "hold.sock"
    report = {"kind": "usage", "job": JOB, "output_tokens": 30, "cost": "1.2"}
    async with serve_holds(path, JOB, client, rules) as channel:
        # Sent from the loop's own thread, which runs nothing meanwhile: when the block ends, the
        # connection is still waiting in the socket's backlog, as an agent's that exited at once.
        with connect(str(path)) as agent:
            agent.sendall(json.dumps(report).encode() + b"\n")
    assert channel.usage.cost == Decimal("1.2"), channel.usage
    assert channel.usage.output_tokens == 30
