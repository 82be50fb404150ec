"""`codedesk show` reads a job's local activities and hides the SDK's patch bookkeeping."""

from __future__ import annotations

import json
from pathlib import Path

from temporalio.client import WorkflowHistory

from surfaces.history import history_lines

HISTORIES = Path(__file__).parent / "histories"


def lines_of(name: str) -> list[str]:
    ids = json.loads((HISTORIES / "workflow_ids.json").read_text())
    history = WorkflowHistory.from_json(ids[name], (HISTORIES / f"{name}.json").read_text())
    return [line.text for line in history_lines(list(history.events))]


def test_a_local_activity_reads_as_a_line_with_its_duration() -> None:
    lines = lines_of("coding_job_integrated_local_worktree")
    [worktree] = [text for text in lines if "prepare_worktree" in text]
    assert worktree.startswith("local activity prepare_worktree completed in "), lines
    assert lines.index(worktree) < lines.index("activity run_agent scheduled"), lines


def test_patches_are_not_shown_and_a_refused_signal_is() -> None:
    lines = lines_of("coding_job_integrated_local_worktree")
    assert not [text for text in lines if "temporalchangeversion" in text.lower()], lines
    assert "repo-acme/api does not run: the signal was not sent" in lines, lines
    assert lines[-2:] == ["now outcome=integrated, phase=done", "workflow completed"], lines
