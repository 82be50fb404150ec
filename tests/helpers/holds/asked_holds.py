"""Asking a job for a hold as its agent's hook does, and the runs of an approval's workflow."""

from __future__ import annotations

import json
from typing import Any

from temporalio.client import Client, WorkflowExecutionStatus

from desk.holds.approvals import HoldAnswer, HoldRequest
from surfaces.clients.desk_client import DeskClient
from workflows.job.coding_job import CodingJob

REPO = "acme/api"


def hold_step(tool: str, input: dict[str, Any]) -> str:
    return "hold:" + json.dumps({"tool": tool, "input": input})


async def ask(
    desk: DeskClient, number: int, tool: str, input: dict[str, Any], wait: float = 60
) -> HoldAnswer:
    request = HoldRequest(tool=tool, input=input, wait_seconds=wait)
    return await desk.job(number).execute_update(CodingJob.hold, request)


async def runs_of(client: Client, ident: str) -> list[tuple[str, WorkflowExecutionStatus | None]]:
    query = f"WorkflowId = '{ident}'"
    return [(item.run_id, item.status) async for item in client.list_workflows(query)]
