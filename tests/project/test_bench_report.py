"""docs/performance.md's table is the one bench/report.py makes from bench/results/."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).parents[2]


def report_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_report", ROOT / "bench" / "report.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_performance_table_is_made_from_the_bench_results() -> None:
    report = report_module()
    results = report.load_results(ROOT / "bench" / "results")
    page = (ROOT / "docs" / "performance.md").read_text()
    assert report.with_table(page, results) == page, (
        "docs/performance.md's table differs from bench/results: "
        "run `python bench/report.py docs/performance.md`."
    )
    benches = {doc["bench"] for doc in results}
    assert {"job_overhead", "cli_start", "load", "queue_throughput"} <= benches, benches


def test_a_result_without_comparisons_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "old.json").write_text(json.dumps({"bench": "old", "ratio": 2.0}))
    with pytest.raises(SystemExit, match="old.json has no comparisons"):
        report_module().load_results(tmp_path)
