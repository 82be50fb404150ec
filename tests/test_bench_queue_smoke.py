"""The queue-throughput bench runs end to end and reports its figures (never its speed)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).parent.parent / "bench" / "queue_throughput.py"


def test_queue_throughput_bench_runs_and_reports_figures(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--jobs", "2", "--json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=100,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    figures = json.loads(done.stdout)
    assert figures["ok"] is True, figures
    assert figures["problems"] == []
    assert figures["jobs"] == 2
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
