"""docs/performance.md's table, made from the benches' JSON output so the two cannot drift.

Usage: python bench/report.py [PAGE [RESULTS_DIR]] (PAGE: docs/performance.md by default)

Every `*.json` in RESULTS_DIR (default bench/results, where `make bench` writes them) must
carry `comparisons` (see `common.report`). The table between `<!-- performance:start -->` and
`<!-- performance:end -->` is replaced by one row per comparison, under a line with the date,
the machine's core count and its load average during each run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

START, END = "<!-- performance:start -->", "<!-- performance:end -->"
ORDER = ("job_overhead", "big_repo", "cli_start", "load", "queue_throughput", "hold_latency")
"""Benches in the order the table shows them; others follow by name."""


def load_results(folder: Path) -> list[dict[str, Any]]:
    results = []
    for path in sorted(folder.glob("*.json")):
        document = json.loads(path.read_text())
        if not isinstance(document.get("comparisons"), list):
            raise SystemExit(f"{path} has no comparisons: write it with bench/common.py's report")
        results.append(document)
    if not results:
        raise SystemExit(f"No bench results in {folder}: run `make bench` first.")
    rank = {name: k for k, name in enumerate(ORDER)}
    return sorted(results, key=lambda doc: (rank.get(doc["bench"], len(ORDER)), doc["bench"]))


def amount(value: float, unit: str) -> str:
    return f"{value:.0f} {unit}" if value >= 10 else f"{value:.1f} {unit}"


def table(results: list[dict[str, Any]]) -> str:
    dates = sorted(doc["date"] for doc in results)
    cores = sorted({doc["cores"] for doc in results})
    loads = [doc["load"][0] for doc in results]
    lines = [
        f"Measured {dates[0][:16].replace('T', ' ')} to {dates[-1][:16].replace('T', ' ')} UTC "
        f"on a machine with {', '.join(map(str, cores))} cores, in one run of each bench; the "
        f"1-minute load average at the end of the runs was {min(loads):.1f} to {max(loads):.1f}.",
        "",
        "| bench | figure | baseline (same run) | ratio | target |",
        "| --- | --- | --- | --- | --- |",
    ]
    for doc in results:
        for row in doc["comparisons"]:
            target = row["target"]
            if target and row["met"] is not None:
                target += " (met)" if row["met"] else " (**not met**)"
            lines.append(
                f"| `{doc['bench']}.py` | {row['what']}: {amount(row['figure'], row['unit'])} "
                f"| {row['baseline_what']}: {amount(row['baseline'], row['unit'])} "
                f"| {row['ratio']:.2f}x | {target} |"
            )
    return "\n".join(lines)


def with_table(page: str, results: list[dict[str, Any]]) -> str:
    if START not in page or END not in page:
        raise SystemExit(f"The page has no {START} … {END} markers.")
    before, _, rest = page.partition(START)
    _, _, after = rest.partition(END)
    return f"{before}{START}\n{table(results)}\n{END}{after}"


if __name__ == "__main__":
    top = Path(__file__).parent.parent
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else top / "docs" / "performance.md"
    folder = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).parent / "results"
    target.write_text(with_table(target.read_text(), load_results(folder)))
