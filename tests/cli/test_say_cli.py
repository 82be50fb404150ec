"""`codedesk say`: a message to a running job's agent, its answer in words, refusals that exit
non-zero with the reason, and the conversation in `show`, `show --json` and `watch`."""

from __future__ import annotations

import json
from pathlib import Path

from activities.agent.session.log import AGENT_LOG
from activities.shelf_paths import job_dir
from desk.config.settings import DeskSettings
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import Cli, shown, started_number
from tests.helpers.surfaces.cli_desk import REPO
from tests.helpers.waiting import eventually


async def test_say_answers_in_words_refuses_with_reasons_and_show_and_watch_tell_it(
    cli: Cli, clone: Path, settings: DeskSettings
) -> None:
    started = await cli("task", REPO, "obey", "--agent-command", agent("obey:1", "commit:Asked"))
    assert started.returncode == 0, shown(started)
    number = started_number(started)
    log = job_dir(settings, number) / AGENT_LOG
    await eventually(
        lambda: log.read_text() if log.is_file() else "",
        lambda text: "scripted agent: waiting for" in text,
        "the agent to wait for its messages",
    )

    stranger = await cli("say", str(number), "hi", CODEDESK_OWNER_ID="local:mallory")
    assert stranger.returncode == 1, shown(stranger)
    assert f"mallory may not talk to job {number}'s agent" in stranger.stderr, shown(stranger)
    empty = await cli("say", str(number), " ")
    assert empty.returncode == 1 and "The message is empty" in empty.stderr, shown(empty)

    said = await cli("say", str(number), "write:ASKED.md=yes")
    assert said.returncode == 0, shown(said)
    assert said.stdout.startswith(f"message 1 to job {number}: delivered to the running agent")

    async def ended() -> bool:
        shown_job = await cli("show", str(number), "--json")
        return json.loads(shown_job.stdout)["job"]["report"] is not None

    await eventually(ended, bool, "the job's report")
    as_json = json.loads((await cli("show", str(number), "--json")).stdout)
    [message] = as_json["job"]["report"]["messages"]
    assert (message["seq"], message["text"], message["delivered"]["seam"]) == (
        1,
        "write:ASKED.md=yes",
        "file",
    )
    as_text = await cli("show", str(number))
    assert "messages (1)" in as_text.stdout, shown(as_text)
    assert "write:ASKED.md=yes (delivered at run 1, in its messages file)" in as_text.stdout
    watched = await cli("watch", str(number))
    assert watched.returncode == 0, shown(watched)
    assert "message from" in watched.stdout and "write:ASKED.md=yes" in watched.stdout
    assert f"message 1 to job {number}: delivered to the running agent" in watched.stdout

    # After the report, a message continues the job in a new one (a command agent keeps no
    # session: it starts anew with the task and the message).
    late = await cli("say", str(number), "write:MORE.md=yes")
    assert late.returncode == 0, shown(late)
    assert late.stdout.startswith(f"job {number} has ended: job {number + 1} continues it")
    assert "starts a new session" in late.stdout, shown(late)

    async def continued() -> dict[str, object] | None:
        document = json.loads((await cli("show", str(number + 1), "--json")).stdout)
        report: dict[str, object] | None = document["job"]["report"]
        return report

    report = await eventually(continued, bool, "the continuation's report")
    assert (report["outcome"], report["continues"]) == ("integrated", number), report
    assert f"continues: job {number}" in (await cli("show", str(number + 1))).stdout
    assert f"continued by job {number + 1}" in (await cli("show", str(number))).stdout
    listed = json.loads((await cli("jobs", "--json")).stdout)
    rows = listed if isinstance(listed, list) else listed["jobs"]
    assert [row["continues"] for row in rows if row["number"] == number + 1] == [number]
