"""What finished jobs cost, where jobs are listed: `codedesk jobs` (a cost column, `--sort
cost`, `--json`) and `codedesk spend`, read from the jobs' `CodedeskCostUsd` search attribute."""

from __future__ import annotations

import json
from pathlib import Path

from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agents import agent, usage_step
from tests.helpers.cli_helpers import run_cli, settings_env, shown
from tests.helpers.waiting import awaited, until

REPO = "acme/api"


async def _job(desk: DeskClient, name: str, *usage: str, requester: str = "ann") -> int:
    number = await desk.start_job(
        REPO,
        f"spend on {name}",
        agent_command=agent(*usage, f"write:{name}=x", f"commit:{name}"),
        requester=requester,
    )
    report = await awaited(desk.wait(number), f"job {number}'s report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    return number


async def test_jobs_and_spend_show_what_finished_jobs_cost(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    cheap = await _job(desk, "a.txt", usage_step(input_tokens=10, output_tokens=5, cost="0.25"))
    dear = await _job(
        desk, "b.txt", usage_step(input_tokens=900, output_tokens=90, cost="1.50"), requester="bo"
    )
    unknown = await _job(
        desk, "c.txt", usage_step(input_tokens=100, output_tokens=10, model="nope")
    )
    env = settings_env(settings)

    async def listed() -> list[dict[str, object]] | None:
        result = await run_cli(env, "jobs", "--json", "--sort", "cost", cwd=tmp_path)
        assert result.returncode == 0, shown(result)
        rows: list[dict[str, object]] = json.loads(result.stdout)
        costs = {row["number"]: row["cost_usd"] for row in rows}
        # Visibility catches up with the jobs' last search attributes a moment after they end.
        return rows if costs.get(cheap) == 0.25 and costs.get(dear) == 1.5 else None

    rows = await until(listed, "the jobs' costs in the listing")
    assert [row["number"] for row in rows] == [dear, cheap, unknown]
    assert rows[2]["cost_usd"] is None, "an unknown cost is never 0"

    table = await run_cli(env, "jobs", cwd=tmp_path)
    assert table.returncode == 0, shown(table)
    header, *lines = table.stdout.splitlines()
    assert header.split()[:5] == ["job", "repo", "phase", "outcome", "cost"]
    assert any(line.startswith(str(dear)) and "$1.50" in line for line in lines), table.stdout

    spent = await run_cli(env, "spend", "--json", cwd=tmp_path)
    assert spent.returncode == 0, shown(spent)
    found = json.loads(spent.stdout)
    assert found["total_usd"] == 1.75 and found["jobs"] == 2
    assert found["jobs_cost_unknown"] == 1 and found["jobs_running"] == 0
    assert found["by_repo"] == {REPO: 1.75}
    assert found["by_requester"] == {"ann": 0.25, "bo": 1.5}
    assert sum(found["by_day"].values()) == 1.75
    said = await run_cli(env, "spend", cwd=tmp_path)
    assert said.returncode == 0, shown(said)
    assert said.stdout.startswith(
        "Spent $1.75 on 2 jobs (1 finished with their cost unknown: not counted)."
    ), said.stdout
