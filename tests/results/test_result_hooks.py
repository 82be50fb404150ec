"""Result hooks: each job's report and push's result reaches the host's webhook (signed) and
command, once per delivery id across a worker SIGKILL; a receiver that stays down never fails
the job and is said in `show` and `doctor`."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr
from temporalio.client import Client

from desk.config.settings import DeskSettings
from desk.holds.approvals import Decision, SurfacePlace
from desk.payloads.conversation.attempt_payloads import attempt_specs
from desk.payloads.jobs import JobOutcome
from desk.payloads.ship_payloads import PushStatus
from desk.records.repo_setup import SetRepoSetup
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.repo_setup_client import RepoSetupClient
from surfaces.clients.ship_client import ShippingClient
from tests.crash.crashes import kill_group
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import run_cli, settings_env, shown
from tests.helpers.jobs.shipping import answer, commit
from tests.helpers.processes import StartWorker
from tests.helpers.waiting import awaited, until

REPO = "acme/api"
SECRET = "hook-signing-key"
INTEGRATES = agent("write:notes.txt=notes", "commit:Add notes")


@dataclass
class Delivery:
    headers: dict[str, str]
    body: bytes

    @property
    def document(self) -> dict[str, Any]:
        return dict(json.loads(self.body))


@dataclass
class Receiver:
    """A webhook receiver on 127.0.0.1 that records every POST; with `hold_first`, the first
    one is held unanswered until `release` (so a test can kill its sender mid-delivery)."""

    port: int = 0
    deliveries: list[Delivery] = field(default_factory=list)
    arrived: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    hold_first: bool = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks/codedesk"

    def ids(self) -> list[str]:
        return [delivery.headers["X-Codedesk-Delivery"] for delivery in self.deliveries]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    got = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (the http.server name)
            body = self.rfile.read(int(self.headers["Content-Length"]))
            got.deliveries.append(Delivery(dict(self.headers), body))
            first = len(got.deliveries) == 1
            got.arrived.set()
            if first and got.hold_first:
                got.release.wait()
                return
            self.send_response(204)
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    got.port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield got
    finally:
        got.release.set()
        server.shutdown()
        server.server_close()


def hooked(settings: DeskSettings, url: str, **more: object) -> DeskSettings:
    return settings.model_copy(
        update={
            "result_webhook": url,
            "result_webhook_secret": SecretStr(SECRET),
            "result_hook_timeout": timedelta(seconds=3),
            **more,
        }
    )


def assert_signed(delivery: Delivery) -> None:
    expected = hmac.new(SECRET.encode(), delivery.body, hashlib.sha256).hexdigest()
    assert delivery.headers["X-Codedesk-Signature"] == f"sha256={expected}"


class TestDelivered:
    @pytest.fixture
    def settings(self, settings: DeskSettings, receiver: Receiver, tmp_path: Path) -> DeskSettings:
        log = tmp_path / "results.jsonl"
        command = f"sh -c 'cat >> {log}; echo >> {log}'"
        return hooked(settings, receiver.url, result_command=command)

    async def test_a_jobs_report_reaches_the_webhook_signed_and_the_command(
        self, desk: DeskClient, clone: Path, receiver: Receiver, tmp_path: Path
    ) -> None:
        number = await desk.start_job(
            REPO, "add notes", agent_command=INTEGRATES, requester="alice"
        )
        report = await desk.wait(number)
        assert report.outcome == JobOutcome.INTEGRATED, report
        await until(lambda: len(receiver.deliveries) == 1, "the webhook's delivery")
        [delivery] = receiver.deliveries
        assert_signed(delivery)
        document = delivery.document
        assert document["event"] == "job"
        # Who asked and where: a hook can answer them there (the CLI has no channel).
        asked = {key: document[key] for key in ("requester", "surface", "channel", "thread")}
        assert asked == {"requester": "alice", "surface": "cli", "channel": "", "thread": ""}
        assert document["delivery_id"] == delivery.headers["X-Codedesk-Delivery"]
        assert document["delivery_id"].startswith(f"job-{number}/")
        assert (document["job"]["number"], document["job"]["outcome"]) == (number, "integrated")
        assert document["job"]["head"] == report.head
        log = tmp_path / "results.jsonl"
        await until(log.exists, "the command's delivery")
        [line] = await until(lambda: log.read_text().splitlines(), "the command's line")
        assert json.loads(line) == document

    async def test_a_jobs_check_rounds_reach_the_webhook(
        self, desk: DeskClient, settings: DeskSettings, clone: Path, receiver: Receiver
    ) -> None:
        """A failed check that went back to the agent: the hooks carry every round."""
        check = SetRepoSetup(repo=REPO, check="test -f fixed.txt || { echo red; exit 3; }")
        await RepoSetupClient(desk.client, settings).configure(check)
        fixes = agent(
            "write:notes.txt=notes",
            "commit:Add notes",
            "if-told:write:fixed.txt=ok",
            "if-told:commit:Fix",
        )
        number = await desk.start_job(REPO, "add notes", agent_command=fixes)
        report = await desk.wait(number)
        assert report.outcome == JobOutcome.INTEGRATED, report
        await until(lambda: len(receiver.deliveries) == 1, "the webhook's delivery")
        rounds = receiver.deliveries[0].document["job"]["check_rounds"]
        assert [(r["round"], r["status"], r["exit_code"]) for r in rounds] == [
            (1, "failed", 3),
            (2, "passed", 0),
        ]
        assert "red" in rounds[0]["sent"] and rounds[1]["sent"] == ""

    async def test_a_job_of_attempts_delivers_once_with_its_attempts_and_pick(
        self, desk: DeskClient, clone: Path, receiver: Receiver
    ) -> None:
        """Several attempts (issue 48): the hooks hear the job once (its attempts are jobs of
        their own, whose reports reach no hook), with each attempt and the pick."""
        await RepoSetupClient(desk.client, desk.settings).configure(
            SetRepoSetup(repo=REPO, check="true")
        )
        specs = attempt_specs([("", INTEGRATES), ("", INTEGRATES)])
        number = (
            await desk.submit_job(REPO, "add notes", attempts=specs, pick_first_passing=True)
        ).number
        report = await awaited(desk.wait(number), "the job's report")
        assert report.outcome == JobOutcome.INTEGRATED, report
        await until(lambda: len(receiver.deliveries) == 1, "the webhook's delivery")
        job = receiver.deliveries[0].document["job"]
        assert job["number"] == number
        assert job["attempts"]["picked"] in ("a", "b")
        assert [row["label"] for row in job["attempts"]["rows"]] == ["a", "b"]
        await awaited(desk.wait(number + 1), "attempt a")
        await awaited(desk.wait(number + 2), "attempt b")
        assert len(receiver.deliveries) == 1, receiver.deliveries

    async def test_a_pushs_result_reaches_the_webhook(
        self,
        desk: DeskClient,
        client: Client,
        settings: DeskSettings,
        clone: Path,
        receiver: Receiver,
    ) -> None:
        head = commit(clone, "a.txt", "a\n", "ship me")
        shipping = ShippingClient(client, settings)
        await shipping.change_report(REPO)
        handle, approval = await shipping.request_push(REPO, head)
        await answer(client, approval, Decision.APPROVE, settings.owner)
        result = await awaited(handle.result(), "the push")
        assert result.status == PushStatus.PUSHED, result
        await until(lambda: len(receiver.deliveries) == 1, "the push's delivery")
        document = receiver.deliveries[0].document
        assert document["event"] == "push"
        assert (document["push"]["status"], document["push"]["sha"]) == ("pushed", head)
        assert (document["requester"], document["surface"]) == (settings.owner, "cli")

    async def test_a_job_asked_on_discord_names_its_requester_channel_and_thread(
        self, desk: DeskClient, clone: Path, receiver: Receiver
    ) -> None:
        # A `/task` in channel 444 followed in a thread of its own, 555 (its surface is not
        # served here: the thread's outbox waits, the hooks do not).
        admission = await desk.submit_job(
            REPO,
            "add notes",
            agent_command=INTEGRATES,
            requester="discord:1001",
            starter="discord:1001",
            place=SurfacePlace(queue="codedesk-discord-nobody", channel="555"),
            origin_channel="444",
        )
        report = await desk.wait(admission.number)
        assert report.outcome == JobOutcome.INTEGRATED, report
        await until(lambda: len(receiver.deliveries) == 1, "the webhook's delivery")
        document = receiver.deliveries[0].document
        asked = {key: document[key] for key in ("requester", "surface", "channel", "thread")}
        assert asked == {
            "requester": "discord:1001",
            "surface": "discord",
            "channel": "444",
            "thread": "555",
        }


async def test_a_worker_killed_mid_delivery_delivers_again_with_the_same_id(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    receiver: Receiver,
    start_worker: StartWorker,
) -> None:
    receiver.hold_first = True
    env = settings_env(
        settings,
        CODEDESK_RESULT_WEBHOOK=receiver.url,
        CODEDESK_RESULT_WEBHOOK_SECRET=SECRET,
        CODEDESK_RESULT_HOOK_TIMEOUT="3s",
    )
    first = start_worker(env)
    desk = DeskClient(client, settings)
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "add notes", agent_command=INTEGRATES)
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    await until(receiver.arrived.is_set, "the first delivery to arrive")
    await kill_group(first)  # the delivering worker dies with its POST unanswered
    start_worker(env)
    await until(lambda: len(receiver.deliveries) >= 2, "the delivery made again")
    ids = receiver.ids()
    assert len(set(ids)) == 1, ids
    assert ids[0].startswith(f"job-{number}/")
    assert len({delivery.body for delivery in receiver.deliveries}) == 1
    for delivery in receiver.deliveries:
        assert_signed(delivery)


def closed_port() -> int:
    """A port of 127.0.0.1 that nothing listens on: every connection is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class TestReceiverDown:
    @pytest.fixture
    def settings(self, settings: DeskSettings) -> DeskSettings:
        return hooked(settings, f"http://127.0.0.1:{closed_port()}/hook")

    async def test_the_job_integrates_and_show_and_doctor_say_the_receiver_refuses(
        self, desk: DeskClient, settings: DeskSettings, clone: Path, tmp_path: Path
    ) -> None:
        number = await desk.start_job(REPO, "add notes", agent_command=INTEGRATES)
        report = await desk.wait(number)
        assert report.outcome == JobOutcome.INTEGRATED, report
        env = settings_env(settings)

        async def trying_again() -> str | None:
            shown_job = await run_cli(env, "show", str(number), cwd=tmp_path)
            assert shown_job.returncode == 0, shown(shown_job)
            return shown_job.stdout if "result webhook: trying again" in shown_job.stdout else None

        said = await until(trying_again, "show to say the webhook is tried again")
        assert "cannot be reached" in said, said
        doctor = await run_cli(env, "doctor", "--json", cwd=tmp_path)
        checks = {check["name"]: check for check in json.loads(doctor.stdout)}
        assert checks["result hooks"]["status"] == "warn", checks["result hooks"]
        assert f"result-job-{number}" in checks["result hooks"]["detail"]
