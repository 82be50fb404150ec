"""The work clock beside a waiting hold: it stops only while the agent is blocked on its holds.

Real jobs on the real dev server, confined by bubblewrap and unconfined. Each test asserts the
job's outcome and what the job's own clock was charged (its `agent_worked` signals), never how
long anything took.
"""

from __future__ import annotations

import json
import shlex
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from activities.sandbox.bubblewrap import BWRAP, choose_sandbox
from desk.config.settings import DeskSettings, load_settings
from desk.holds.approvals import Decision, Principal
from desk.payloads.jobs import JobOutcome
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agent_runs.sandboxes import REPO, Sandboxed, outside, sandboxed_desk
from tests.helpers.agents import SCRIPTED_AGENT, agent
from tests.helpers.job_waits import open_ids
from tests.helpers.waiting import awaited, until
from workflows.shipping.approval import Approval

__all__ = ["outside"]

SANDBOXED = choose_sandbox("auto").mode == BWRAP
needs_bwrap = pytest.mark.skipif(not SANDBOXED, reason="bubblewrap does not work on this host")
MODES = [pytest.param(BWRAP, marks=needs_bwrap), "none"]
PUSH = {"tool": "Bash", "input": {"command": "git push origin main"}}


@pytest.fixture
def hold_wait() -> str:
    """How long a hook waits for a person (a test parametrizes it to ask again and again)."""
    return "10m"


@pytest.fixture(params=MODES)
async def box(
    request: pytest.FixtureRequest,
    client: Client,
    settings: DeskSettings,
    outside: Path,
    monkeypatch: pytest.MonkeyPatch,
    hold_wait: str,
) -> AsyncIterator[Sandboxed]:
    """A desk whose agents run in the sandbox (with its egress proxy) or unconfined."""
    local = load_settings(**{**settings.model_dump(), "hold_wait": hold_wait})
    async for found in sandboxed_desk(
        client, local, outside, monkeypatch, True, mode=request.param
    ):
        yield found


async def charged(desk: DeskClient, number: int) -> tuple[float, set[str]]:
    """The seconds the hold channel charged to the job's clock, and the signs it saw."""
    seconds, signs = 0.0, set()
    async for event in desk.job(number).fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
            signalled = event.workflow_execution_signaled_event_attributes
            if signalled.signal_name == "agent_worked":
                worked = json.loads(signalled.input.payloads[0].data)
                seconds += worked["seconds"]
                signs.update(worked["signs"])
    return seconds, signs


def dodging_agent() -> str:
    """A shell agent that keeps asking a hold nobody answers in the background, sleeps in the
    foreground (no CPU), then commits: the attack of issue 25."""
    python = shlex.quote(sys.executable)
    script = (
        f"(while :; do printf %s {shlex.quote(json.dumps(PUSH))} | "
        f"{python} -I -m surfaces.hook >/dev/null 2>&1; done) & "
        "sleep 40; "
        f"exec {python} {shlex.quote(str(SCRIPTED_AGENT))} write:dodged.txt=1 commit:dodged"
    )
    return f"sh -c {shlex.quote(script)}"


# One hook waits all along; or each gives up after a second, and the loop asks again.
@pytest.mark.parametrize("hold_wait", ["10m", "1s"])
async def test_an_agent_sleeping_beside_a_waiting_hold_is_stopped_at_its_budget(
    box: Sandboxed,
) -> None:
    desk = box.desk
    number = await desk.start_job(
        REPO, "dodge the clock", agent_command=dodging_agent(), budget=timedelta(seconds=4)
    )
    await open_ids(ApprovalsClient(desk.client))  # the hold waits: only the channel can charge
    report = await awaited(desk.wait(number), f"job {number}'s report")
    # Before: the clock stood still for the whole sleep and the job was integrated.
    assert report.outcome == JobOutcome.TIMED_OUT, report
    assert report.commits == [], report.commits
    seconds, signs = await charged(desk, number)
    assert seconds > 0 and "processes" in signs, (seconds, signs)


async def test_an_agent_blocked_on_its_one_hold_is_not_charged(box: Sandboxed) -> None:
    desk = box.desk
    # Room for the agent's own work on a busy machine (its start, the hook's, the commit);
    # what shows that the wait was not charged is the job's clock itself, asserted below.
    budget = timedelta(seconds=8)
    number = await desk.start_job(
        REPO,
        "push, then finish",
        agent_command=agent(f"hold:{json.dumps(PUSH)}", "write:done.txt=ok", "commit:finished"),
        budget=budget,
    )
    approvals = ApprovalsClient(desk.client)
    [ident] = await open_ids(approvals)
    approval = desk.client.get_workflow_handle_for(Approval.run, ident)
    opened_at = (await approval.query(Approval.current)).opened_at
    assert opened_at is not None
    # The person answers half the budget after the budget, by the clock the server stamps
    # history with: the channel looks at the agent every second of that wait.
    late = opened_at + budget * 1.5
    await until(lambda: datetime.now(UTC) > late, "the budget and a half since it opened")
    result, _ = await approvals.answer(ident, Decision.APPROVE, Principal(id=desk.settings.owner))
    assert result.counted, result
    report = await awaited(desk.wait(number), f"job {number}'s report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert [commit.subject for commit in report.commits] == ["finished"]
    assert await charged(desk, number) == (0.0, set())


@pytest.fixture
def trickle() -> Iterator[str]:
    """A model API that streams its answer a byte at a time (at most 600 of them), like a
    model thinking aloud: traffic that costs next to no CPU. Its URL."""
    done = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the http.server name)
            self.send_response(200)
            self.end_headers()
            for _ in range(600):
                if done.wait(0.1):
                    return
                self.wfile.write(b".")
                self.wfile.flush()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1/messages"
    finally:
        done.set()
        server.shutdown()
        server.server_close()


async def test_an_agent_talking_to_its_model_beside_a_waiting_hold_is_charged(
    client: Client,
    settings: DeskSettings,
    outside: Path,
    monkeypatch: pytest.MonkeyPatch,
    trickle: str,
) -> None:
    if not SANDBOXED:
        pytest.skip("bubblewrap does not work on this host")
    port = trickle.split(":")[2].split("/")[0]
    allow = ["*", f"127.0.0.1:{port}"]
    async for box in sandboxed_desk(client, settings, outside, monkeypatch, True, egress=allow):
        desk = box.desk
        # The agent itself reads the stream: as the hook's parent it is no process "beside"
        # the hook, prints nothing meanwhile and uses next to no CPU, so only its traffic
        # through the egress proxy shows that it works.
        number = await desk.start_job(
            REPO,
            "ask the model while a push waits",
            agent_command=agent(
                f"hold-bg:{json.dumps(PUSH)}", f"fetch:{trickle}", "write:a.txt=1", "commit:a"
            ),
            budget=timedelta(seconds=4),
        )
        report = await awaited(desk.wait(number), f"job {number}'s report")
        assert report.outcome == JobOutcome.TIMED_OUT, report
        assert report.commits == [], report.commits
        seconds, signs = await charged(desk, number)
        assert seconds > 0 and "egress" in signs, (seconds, signs)


async def test_an_agent_writing_output_beside_a_waiting_hold_is_charged(
    desk: DeskClient, origin: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    # The agent itself prints between its own sleeps: as the hook's parent it is no process
    # "beside" the hook and it uses next to no CPU, so only its output shows that it works.
    talk = [step for _ in range(40) for step in ("say:thinking", "sleep:0.5")]
    number = await desk.start_job(
        REPO,
        "think aloud while a push waits",
        agent_command=agent(f"hold-bg:{json.dumps(PUSH)}", *talk, "write:a.txt=1", "commit:a"),
        budget=timedelta(seconds=4),
    )
    report = await awaited(desk.wait(number), f"job {number}'s report")
    assert report.outcome == JobOutcome.TIMED_OUT, report
    assert report.commits == [], report.commits
    seconds, signs = await charged(desk, number)
    assert seconds > 0 and "output" in signs, (seconds, signs)
