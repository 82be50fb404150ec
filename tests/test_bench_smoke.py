"""The job-overhead bench runs end to end and reports its figures (never its speed)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).parent.parent / "bench" / "job_overhead.py"


def test_job_overhead_bench_runs_and_reports_figures(tmp_path: Path) -> None:
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
    assert figures["integrated"] == 2
    assert figures["outcomes"] == ["integrated", "integrated"]
    for key in ("codedesk_median_ms", "raw_git_median_ms", "ratio"):
        assert isinstance(figures[key], int | float) and figures[key] > 0, key
    assert len(figures["codedesk_runs_ms"]) == len(figures["raw_git_runs_ms"]) == 2
