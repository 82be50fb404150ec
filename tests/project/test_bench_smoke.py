"""Each bench runs end to end and reports its figures (never its speed)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.waiting import PATIENCE

BENCH = Path(__file__).parents[2] / "bench"


def job_overhead_figures(figures: dict[str, Any]) -> None:
    assert figures["integrated"] == 2
    assert figures["outcomes"] == ["integrated", "integrated"]
    for key in ("codedesk_median_ms", "raw_git_median_ms", "ratio", "floor_median_ms"):
        assert isinstance(figures[key], int | float) and figures[key] > 0, key
    runs = ("codedesk_runs_ms", "raw_git_runs_ms", "agent_runs_ms", "floor_runs_ms")
    assert [len(figures[key]) for key in runs] == [2, 2, 2, 2]


def big_repo_figures(figures: dict[str, Any]) -> None:
    assert figures["files"] == 300
    assert figures["outcomes"] == ["integrated", "integrated"]
    assert [len(figures[key]) for key in ("codedesk_runs_ms", "floor_runs_ms")] == [2, 2]
    assert figures["codedesk_first_ms"] == figures["codedesk_runs_ms"][0]
    assert [row["met"] for row in figures["comparisons"]] == [None, None]  # judged at 60,000
    assert figures["comparisons"][0]["target"] == "ratio <= 0.25x at 60,000 files"


def queue_throughput_figures(figures: dict[str, Any]) -> None:
    rows = figures["rows"]
    assert [(row["mode"], row["max_workers"]) for row in rows] == [
        ("desk", 1),
        ("desk", 2),
        ("desk", 4),
        ("direct", None),
    ]
    for row in rows:
        assert row["outcomes"] == {"nothing": 2}, row
        for key in ("seconds", "jobs_per_minute"):
            assert isinstance(row[key], int | float) and row[key] > 0, (row, key)
    assert figures["direct_jobs_per_minute"] == rows[-1]["jobs_per_minute"]
    assert set(figures["ratios"]) == {"1", "2", "4"}
    for ratio in figures["ratios"].values():
        assert isinstance(ratio, int | float) and ratio > 0


def hold_latency_figures(figures: dict[str, Any]) -> None:
    for key in (
        "bare_start_p50_ms",
        "harmless_hook_p50_ms",
        "bare_update_p50_ms",
        "held_unblock_p50_ms",
        "held_over_update_ratio",
    ):
        assert isinstance(figures[key], int | float) and figures[key] > 0, key
    assert figures["tool_calls_counted"] == 4  # two harmless and two held calls
    assert len(figures["runs_ms"]["harmless"]) == len(figures["runs_ms"]["held"]) == 2


def cli_start_figures(figures: dict[str, Any]) -> None:
    assert set(figures["medians_ms"]) == {"baseline", "help", "usage error", "jobs"}
    assert set(figures["cpu_medians_ms"]) == set(figures["medians_ms"])
    assert all(len(runs) == 1 for runs in figures["runs_ms"].values()), figures["runs_ms"]
    assert all(len(runs) == 1 for runs in figures["cpu_runs_ms"].values()), figures
    assert [row["target"] for row in figures["comparisons"]] == [
        "<= baseline + 60 ms",
        "",
        "<= baseline + 100 ms",
        "",
        "<= 300 ms",
        "",
    ]
    assert all(row["figure"] > 0 for row in figures["comparisons"]), figures["comparisons"]


def load_figures(figures: dict[str, Any]) -> None:
    # Two finished jobs, then the queued one and the running one that held it back.
    assert figures["outcomes"] == {"nothing": 2 + 1 + 1}, figures
    assert figures["approvals"] == 3
    assert 0 < figures["idle_rss_mb"] and 0 < figures["loaded_rss_mb"] <= figures["peak_rss_mb"]
    assert [row["unit"] for row in figures["comparisons"]] == ["ms", "ms", "ms", "ms", "MB"]
    assert figures["listed_jobs"] == 2 + 1 + 1
    assert isinstance(figures["unanswered_tries"], int)


def suspension_figures(figures: dict[str, Any]) -> None:
    assert figures["rounds"] == 1 and len(figures["runs"]) == 1
    assert figures["suspended_processes"] == 0 and figures["live_processes"] > 0
    assert (figures["suspended_slots"], figures["live_slots"]) == (0, 1)
    assert figures["listed_suspended"] is True
    for key in ("approve_to_result_ms", "cli_start_ms", "resumed_bytes", "restarted_bytes"):
        assert isinstance(figures[key], int | float) and figures[key] > 0, key


def conversation_figures(figures: dict[str, Any]) -> None:
    assert figures["rounds"] == 1 and figures["jobs"] == 2
    assert {sandbox: len(runs) for sandbox, runs in figures["runs"].items()} == {
        "none": 1,
        "bwrap": 1,
    }
    for key in (
        "say_returned_to_request_ms",
        "say_to_request_ms",
        "cli_write_to_request_ms",
        "sandboxed_say_returned_to_request_ms",
        "sandboxed_cli_write_to_request_ms",
    ):
        assert isinstance(figures[key], int | float) and figures[key] > 0, key
    assert [row["target"] for row in figures["comparisons"]] == ["<= 1.3x", "", ""]


def answer_to_model_figures(figures: dict[str, Any]) -> None:
    assert figures["rounds"] == 1 and len(figures["runs"]) == 1 and figures["jobs"] == 5
    kinds = ("held", "review", "budget", "continuation")
    for baseline in ("bare_resume_ms", "bare_deferred_ms", "bare_message_ms", "bare_go_on_ms"):
        assert isinstance(figures[baseline], int | float) and figures[baseline] > 0, baseline
    for kind in kinds:
        parts = [figures[f"{kind}_{part}"] for part in ("to_scheduled_ms", "to_started_ms")]
        assert 0 < parts[0] <= parts[1] < figures[f"{kind}_ms"], (kind, figures)
        assert 0 < figures[f"{kind}_to_sandbox_ms"] <= figures[f"{kind}_to_cli_ms"], figures
    assert [row["target"] for row in figures["comparisons"]] == ["<= 1.3x baseline"] * 4


SMALL = {
    "job_overhead.py": ["--jobs", "2"],
    "big_repo.py": ["--jobs", "2", "--files", "300"],
    "queue_throughput.py": ["--jobs", "2"],
    "hold_latency.py": ["--jobs", "2"],
    "cli_start.py": ["--jobs", "2", "--runs", "1"],
    "suspension.py": ["--rounds", "1"],
    "conversation.py": ["--rounds", "1"],
    "answer_to_model.py": ["--rounds", "1"],
    "load.py": [
        "--jobs",
        "2",
        "--approvals",
        "3",
        "--queued",
        "1",
        "--workers",
        "1",
        "--runs",
        "1",
    ],
}


@pytest.mark.parametrize(
    ("script", "check"),
    [
        ("job_overhead.py", job_overhead_figures),
        ("big_repo.py", big_repo_figures),
        ("queue_throughput.py", queue_throughput_figures),
        ("cli_start.py", cli_start_figures),
        ("load.py", load_figures),
        ("hold_latency.py", hold_latency_figures),
        pytest.param(
            "suspension.py",
            suspension_figures,
            marks=pytest.mark.skipif(shutil.which("bwrap") is None, reason="no bubblewrap here"),
        ),
        pytest.param(
            "conversation.py",
            conversation_figures,
            marks=pytest.mark.skipif(shutil.which("bwrap") is None, reason="no bubblewrap here"),
        ),
        pytest.param(
            "answer_to_model.py",
            answer_to_model_figures,
            marks=pytest.mark.skipif(shutil.which("bwrap") is None, reason="no bubblewrap here"),
        ),
    ],
    ids=[
        "job_overhead",
        "big_repo",
        "queue_throughput",
        "cli_start",
        "load",
        "hold_latency",
        "suspension",
        "conversation",
        "answer_to_model",
    ],
)
def test_bench_runs_and_reports_figures(
    script: str, check: Callable[[dict[str, Any]], None], tmp_path: Path
) -> None:
    written = tmp_path / "results" / "figures.json"
    done = subprocess.run(
        [sys.executable, str(BENCH / script), *SMALL[script], "--json", "--out", str(written)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=4 * PATIENCE,  # a safety net for a hung bench, never a measure of its speed
    )
    assert done.returncode == 0, done.stdout + done.stderr
    figures = json.loads(done.stdout)
    if "skipped" in figures:  # the real agent CLI cannot run here (suspension.py)
        pytest.skip(figures["skipped"])
    assert json.loads(written.read_text()) == figures
    assert figures["ok"] is True, figures
    assert figures["problems"] == []
    assert figures["jobs"] == 2 or script in (
        "load.py",
        "suspension.py",
        "conversation.py",
        "answer_to_model.py",
    )
    assert figures["bench"] == script.removesuffix(".py")
    assert figures["cores"] >= 1 and len(figures["load"]) == 3
    for row in figures["comparisons"]:
        if row["target"] == "0":  # a count that must be none (suspension.py's processes)
            assert row["figure"] == 0 and row["baseline"] > 0, row
            continue
        assert row["figure"] > 0 and row["baseline"] > 0 and row["ratio"] > 0, row
    check(figures)
