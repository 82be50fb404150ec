"""Recorded histories still replay: a workflow change that breaks in-flight jobs fails here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from workers.worker import WORKFLOWS

FOLDER = Path(__file__).parent / "histories"
HISTORIES = sorted(path for path in FOLDER.glob("*.json") if path.name != "workflow_ids.json")
WORKFLOW_IDS: dict[str, str] = json.loads((FOLDER / "workflow_ids.json").read_text())


@pytest.mark.parametrize("path", HISTORIES, ids=[path.stem for path in HISTORIES])
async def test_recorded_history_replays(path: Path) -> None:
    replayer = Replayer(workflows=list(WORKFLOWS), data_converter=pydantic_data_converter)
    history = WorkflowHistory.from_json(WORKFLOW_IDS[path.stem], path.read_text())
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    assert result.replay_failure is None, f"{path.name}: {result.replay_failure}"


def test_there_are_histories_to_replay() -> None:
    assert len(HISTORIES) >= 9
