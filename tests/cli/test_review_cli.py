"""`codedesk task --review`, `diff`, `show`, `say` and `integrate` / `discard` as a person types
them (issue 46): the job waits in review, `diff` shows its commit (a stat, then the diff;
`--stat` alone), `show` says what to do, the answer is told in words, and a refusal exits
non-zero with its reason."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers.cli_helpers import Cli, shown, started_number
from tests.helpers.jobs.one_shot import one_shot_command
from tests.helpers.surfaces.cli_desk import REPO
from tests.helpers.waiting import eventually


async def phase_of(cli: Cli, number: int) -> str:
    shown_job = await cli("show", str(number), "--json")
    found: str = json.loads(shown_job.stdout)["job"]["phase"] if shown_job.returncode == 0 else ""
    return found


async def test_a_review_by_the_cli(cli: Cli, clone: Path, tmp_path: Path) -> None:
    command = one_shot_command(tmp_path / "one-shot-bin")
    started = await cli("task", REPO, "write:a.txt=1", "--agent-command", command, "--review")
    assert started.returncode == 0, shown(started)
    number = started_number(started)
    await eventually(lambda: phase_of(cli, number), lambda phase: phase == "review", "review")

    diffed = await cli("diff", str(number))
    assert diffed.returncode == 0, shown(diffed)
    assert "a.txt | 1 +" in diffed.stdout and "+1" in diffed.stdout, shown(diffed)
    stat = await cli("diff", str(number), "--stat")
    assert "a.txt | 1 +" in stat.stdout and "+1\n" not in stat.stdout, shown(stat)
    as_text = await cli("show", str(number))
    assert "waiting for review (no process, no slot)" in as_text.stdout, shown(as_text)
    assert f"`codedesk integrate {number}`" in as_text.stdout, shown(as_text)
    assert "round 1 (no check): waiting for review" in as_text.stdout, shown(as_text)

    stranger = await cli("discard", str(number), CODEDESK_OWNER_ID="local:mallory")
    assert stranger.returncode == 1, shown(stranger)
    assert f"mallory may not answer job {number}'s review" in stranger.stderr, shown(stranger)
    landed = await cli("integrate", str(number))
    assert landed.returncode == 0, shown(landed)
    assert f"job {number} integrates its work now" in landed.stdout, shown(landed)
    await eventually(lambda: phase_of(cli, number), lambda phase: phase == "done", "the report")
    assert (clone / "a.txt").read_text() == "1"
    report = await cli("show", str(number))
    assert "review (1 round)" in report.stdout, shown(report)
    again = await cli("discard", str(number))
    assert again.returncode == 1 and "has ended" in again.stderr, shown(again)
