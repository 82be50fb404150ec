"""Record workflow histories for the replay test: run after adding a workflow path worth keeping.

Old recordings are never re-recorded: they are what in-flight workflows look like, and the
replay test proves today's code still replays them (use `workflow.patched` when it does not).
Run from the repository's top: `.venv/bin/python -m tests.histories.record [SCENARIO ...]`
(no names: every scenario; see SCENARIOS). A scenario that cannot run on this machine (the
sandboxed job where bubblewrap does not work) says so and records nothing; the JSON files in
the repository replay everywhere.
"""

import asyncio
import contextlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

from temporalio.client import Client, WorkflowHistory, WorkflowUpdateStage
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from activities.sandbox.bubblewrap import BWRAP, choose_sandbox
from activities.surface import SurfaceActivities
from desk.config.settings import DeskSettings, load_settings
from desk.errors import DeskError, ModeRefusedError
from desk.holds.approvals import (
    ApprovalRequest,
    Decision,
    HoldRequest,
    OutcomeWatch,
    Principal,
    SurfacePlace,
    approval_id,
)
from desk.names import (
    DESK_WORKFLOW_ID,
    SEARCH_ATTRIBUTES,
    SHELF_ADD_PREFIX,
    host_task_queue,
    outbox_workflow_id,
    repo_workflow_id,
    result_delivery_workflow_id,
    session_keep_workflow_id,
)
from desk.payloads.conversation.review_payloads import JobDiffInput, ReviewVerdict
from desk.payloads.jobs import AdmitInput, HostReportInput, JobInput, JobPhase
from desk.policy.modes import ScopeKind
from desk.records.repo_setup import SetRepoSetup
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.mode_client import ModesClient
from surfaces.clients.repo_setup_client import RepoSetupClient
from surfaces.clients.ship_client import ShippingClient
from tests.helpers.agents import agent
from tests.helpers.forge import fake_gh
from tests.helpers.repos import git, make_origin
from tests.surfaces.fake_surface import FakeSurface
from workers.desk_handle import configure_desk, desk_start
from workers.devserver import temporal_binary
from workers.shelf_look import ask_entities_to_look
from workers.worker import build_worker, shelf_activities_for
from workflows.desk.desk_entity import Desk
from workflows.host.host_check_workflow import HostCheck
from workflows.host.shelf import JobDiffer
from workflows.job.coding_job import CodingJob
from workflows.shipping.approval import Approval

IDS = "workflow_ids.json"
"""Which workflow id each recording ran under: replay needs it (ids are part of the logic)."""


def keep(path: Path, history: WorkflowHistory) -> None:
    """Write a new recording; an existing one stays as it was recorded."""
    if path.exists():
        return
    path.write_text(history.to_json())
    ids_file = path.parent / IDS
    ids = json.loads(ids_file.read_text()) if ids_file.exists() else {}
    ids[path.stem] = history.workflow_id
    ids_file.write_text(json.dumps(ids, indent=2, sort_keys=True) + "\n")


async def local_server() -> WorkflowEnvironment:
    """A dev server of the scenario's own, so that its settings and hosts are its own."""
    return await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_binary(),
        data_converter=pydantic_data_converter,
        search_attributes=SEARCH_ATTRIBUTES,
        ui=False,
    )


async def _desk(client: Client, settings: DeskSettings) -> DeskClient:
    """A desk client once the desk has this worker's limits and host policy (as a worker's
    start gives them): without a policy the desk admits no job."""
    await configure_desk(client, settings)
    return DeskClient(client, settings)


async def record_basic(tmp: Path, out: Path) -> None:
    """Jobs that integrate, fail and are cancelled; holds, a push, the entities, a host check."""
    env = await local_server()
    settings = load_settings(
        home=tmp / "home",
        temporal_address=env.client.service_client.config.target_host,
        task_queue="rec",
        heartbeat_timeout="2s",
    )
    origin = make_origin(tmp / "o" / "acme" / "api.git")
    async with build_worker(env.client, settings):
        desk = await _desk(env.client, settings)
        await desk.add_repo("acme/api", str(origin))
        n1 = await desk.start_job(
            "acme/api", "greet", agent_command=agent("write:a.txt=1", "commit:a")
        )
        n2 = await desk.start_job("acme/api", "fail", agent_command=agent("exit:3"))
        n3 = await desk.start_job("acme/api", "sleep", agent_command=agent("sleep:30"))
        await asyncio.sleep(2)
        await desk.job(n3).cancel()
        for n in (n1, n2, n3):
            r = await desk.wait(n)
            print(n, r.outcome)
        for n, name in (
            (n1, "coding_job_integrated"),
            (n1, "coding_job_slot_back_early"),
            (n2, "coding_job_agent_failed"),
            (n3, "coding_job_cancelled"),
        ):
            h = await desk.job(n).fetch_history()
            keep(out / f"{name}.json", h)
        await record_holds_and_shipping(desk, settings, out)
        h = await env.client.get_workflow_handle(repo_workflow_id("acme/api")).fetch_history()
        keep(out / "repo_entity.json", h)
        h = await env.client.get_workflow_handle(DESK_WORKFLOW_ID).fetch_history()
        keep(out / "desk.json", h)
        keep(out / "desk_admission_checked.json", h)
        check = await env.client.start_workflow(
            HostCheck.run, HostReportInput(), id="host-check-rec", task_queue=settings.task_queue
        )
        await check.result()
        keep(out / "host_check.json", await check.fetch_history())
    await env.shutdown()


async def record_holds_and_shipping(desk: DeskClient, settings: DeskSettings, out: Path) -> None:
    """A job from a (fake) chat thread whose hold is approved, then a report and a push."""
    queue = "rec-surface"
    place = SurfacePlace(queue=queue, channel="thread-1")
    push = json.dumps({"tool": "Bash", "input": {"command": "git push origin main"}})
    approvals = ApprovalsClient(desk.client)
    owner = Principal(id=settings.owner)
    surface = SurfaceActivities(FakeSurface()).all()
    async with Worker(desk.client, task_queue=queue, activities=surface):
        admission = await desk.submit_job(
            "acme/api",
            "held",
            agent_command=agent(f"hold:{push}", "write:b.txt=2", "commit:b"),
            place=place,
        )
        ident = await _first_open(approvals)
        await approvals.answer(ident, Decision.APPROVE, owner)
        await desk.wait(admission.number)
        h = await desk.job(admission.number).fetch_history()
        keep(out / "coding_job_hold_approved.json", h)
        h = await desk.client.get_workflow_handle(ident).fetch_history()
        keep(out / "approval_approved.json", h)
        shipping = ShippingClient(desk.client, settings)
        report = await shipping.change_report("acme/api")
        handle, approval = await shipping.request_push("acme/api", report.head)
        await _first_open(approvals)
        await approvals.answer(approval, Decision.APPROVE, owner)
        await handle.result()
        keep(out / "ship_pushed.json", await handle.fetch_history())
        await asyncio.sleep(1)
        outbox = desk.client.get_workflow_handle(outbox_workflow_id(queue, "thread-1"))
        keep(out / "outbox_thread.json", await outbox.fetch_history())


async def record_watched(tmp: Path, out: Path) -> None:
    """An approval the hold channel watches, on a server of its own."""
    env = await local_server()
    settings = load_settings(
        home=tmp / "home",
        temporal_address=env.client.service_client.config.target_host,
        task_queue="rec-watched",
    )
    async with build_worker(env.client, settings):
        await record_watched_approval(env.client, settings, out)
    await env.shutdown()


async def record_watched_approval(client: Client, settings: DeskSettings, out: Path) -> None:
    """An approval the hold channel watches (its `outcome` Update), then approved by Update."""
    command = {"command": "git push origin main"}
    ask = ApprovalRequest(
        tool="Bash",
        input=command,
        action="Run: git push origin main",
        scope="job-99",
        owners=[settings.owner],
        origin="cli",
        classes=["push"],
    )
    ident = approval_id(ask.scope, ask.tool, ask.input)
    handle = await client.start_workflow(
        Approval.run, ask, id=ident, task_queue=settings.task_queue
    )
    watch = await handle.start_update(
        Approval.outcome,
        OutcomeWatch(watcher="the hold channel of job 99"),
        wait_for_stage=WorkflowUpdateStage.ACCEPTED,
    )
    await ApprovalsClient(client).answer(ident, Decision.APPROVE, Principal(id=settings.owner))
    await watch.result()
    await handle.result()
    keep(out / "approval_watched.json", await handle.fetch_history())


async def record_late_approval(tmp: Path, out: Path) -> None:
    """Holds through the hold channel: one gives up, is approved late, and the same call uses it.

    A server of its own, so that its desk's worker has a short hold wait.
    """
    env = await local_server()
    client = env.client
    settings = load_settings(
        home=tmp / "late-home",
        temporal_address=client.service_client.config.target_host,
        task_queue="rec-late",
        heartbeat_timeout="2s",
        hold_wait="1s",
    )
    origin = make_origin(tmp / "late" / "acme" / "late.git")
    push = json.dumps({"tool": "Bash", "input": {"command": "git push origin main"}})
    go_on = tmp / "late-go-on"
    steps = (f"hold:{push}", "say:gave up", f"wait-file:{go_on}", f"hold:{push}", "commit:c")
    async with build_worker(client, settings):
        desk = await _desk(client, settings)
        await desk.add_repo("acme/late", str(origin))
        number = await desk.start_job("acme/late", "late", agent_command=agent(*steps))
        approvals = ApprovalsClient(client)
        ident = await _first_open(approvals)
        log = settings.jobs_dir / str(number) / "agent.log"
        while "hold refused" not in (log.read_text() if log.exists() else ""):
            await asyncio.sleep(0.1)
        await approvals.answer(ident, Decision.APPROVE, Principal(id=settings.owner))
        await client.get_workflow_handle(ident).result()
        go_on.touch()
        await desk.wait(number)
        keep(out / "coding_job_hold_late_approved.json", await desk.job(number).fetch_history())
    await env.shutdown()


async def record_host_wait(tmp: Path, out: Path) -> None:
    """Two hosts: a repository added on host beta, listed, and a job that waits for beta.

    The job's first shelf step finds no worker of beta (gone after the clone), says it waits
    for the host, and runs there once a worker of beta polls again.
    """
    env = await local_server()
    client = env.client
    queue = "rec-hosts"

    def host_settings(host: str) -> DeskSettings:
        return load_settings(
            home=tmp / host,
            temporal_address=client.service_client.config.target_host,
            task_queue=queue,
            heartbeat_timeout="2s",
            host=host,
            host_wait="1s",
        )

    alpha, beta = host_settings("alpha"), host_settings("beta")

    def beta_worker() -> Worker:
        return Worker(
            client,
            task_queue=host_task_queue(queue, "beta"),
            activities=shelf_activities_for(client, beta),
        )

    origin = make_origin(tmp / "o" / "acme" / "web.git")
    async with build_worker(client, alpha):
        await configure_desk(client, alpha)
        desk = DeskClient(client, alpha)
        async with beta_worker():
            await configure_desk(client, beta)
            await desk.add_repo("acme/web", str(origin), host="beta")
            await desk.list_repos()
        number = await desk.start_job(
            "acme/web", "greet", agent_command=agent("write:w.txt=1", "commit:w")
        )
        while (await desk.status(number))[1].waiting_for_host != "beta":
            await asyncio.sleep(0.2)
        async with beta_worker():
            report = await desk.wait(number)
        print(number, report.outcome)
        keep(out / "coding_job_host_waited.json", await desk.job(number).fetch_history())
        added = client.get_workflow_handle(f"{SHELF_ADD_PREFIX}acme/web")
        keep(out / "add_repo_on_host.json", await added.fetch_history())
        async for listed in client.list_workflows("WorkflowType = 'ListRepos'"):
            history = await client.get_workflow_handle(listed.id).fetch_history()
            keep(out / "list_repos_on_host.json", history)
        repo = client.get_workflow_handle(repo_workflow_id("acme/web"))
        keep(out / "repo_entity_on_host.json", await repo.fetch_history())
        keep(
            out / "desk_two_hosts.json",
            await client.get_workflow_handle(DESK_WORKFLOW_ID).fetch_history(),
        )
    await env.shutdown()


async def record_sandboxed(tmp: Path, out: Path) -> None:
    """A job in bubblewrap whose held calls are declined, then approved; skipped without bwrap."""
    if choose_sandbox("auto").mode != BWRAP:
        print("bubblewrap does not work here: the sandboxed job is not recorded")
        return
    base = Path(
        tempfile.mkdtemp(prefix="record-sandbox-", dir="/var/tmp")
    )  # the sandbox hides /tmp
    env = await local_server()
    client = env.client
    settings = load_settings(
        home=base / "home",
        temporal_address=client.service_client.config.target_host,
        task_queue="rec-sandbox",
        heartbeat_timeout="2s",
        sandbox=BWRAP,
        sandbox_network=False,
    )
    origin = make_origin(base / "o" / "acme" / "box.git")
    refused = json.dumps({"tool": "Bash", "input": {"command": "git push origin main"}})
    allowed = json.dumps({"tool": "Bash", "input": {"command": "git push origin feature"}})
    steps = (f"hold:{refused}", "say:not run", f"hold:{allowed}", "write:s.txt=1", "commit:s")
    async with build_worker(client, settings):
        desk = await _desk(client, settings)
        await desk.add_repo("acme/box", str(origin))
        number = await desk.start_job("acme/box", "boxed", agent_command=agent(*steps))
        approvals = ApprovalsClient(client)
        owner = Principal(id=settings.owner)
        declined = await _first_open(approvals)
        await approvals.answer(declined, Decision.DECLINE, owner)
        await client.get_workflow_handle(declined).result()
        approved = await _first_open(approvals)
        await approvals.answer(approved, Decision.APPROVE, owner)
        report = await desk.wait(number)
        print(number, report.outcome, report.confinement)
        keep(out / "coding_job_sandboxed.json", await desk.job(number).fetch_history())
        keep(
            out / "approval_declined.json",
            await client.get_workflow_handle(declined).fetch_history(),
        )
    await env.shutdown()
    shutil.rmtree(base, ignore_errors=True)


async def record_modes(tmp: Path, out: Path) -> None:
    """A job whose modes change while it runs: yolo releases its waiting hold, long-running
    takes it past its budget until it is switched off; and the desk's switches, one refused.

    A server of its own, so that its desk's worker has a short long-running check.
    """
    env = await local_server()
    client = env.client
    settings = load_settings(
        home=tmp / "modes-home",
        temporal_address=client.service_client.config.target_host,
        task_queue="rec-modes",
        heartbeat_timeout="2s",
        long_running_check="1s",
        sandbox="none",  # the agent marks a file outside its worktree when past its budget
    )
    origin = make_origin(tmp / "modes" / "acme" / "modes.git")
    update_ref = json.dumps({"tool": "Bash", "input": {"command": "git update-ref -d refs/x"}})
    past = tmp / "modes-past-budget"
    steps = (f"hold:{update_ref}", "sleep:4", f"pidfile:{past}", "sleep:60")
    owner = Principal(id=settings.owner, name="owner")
    async with build_worker(client, settings):
        desk = await _desk(client, settings)
        modes = ModesClient(client, settings)
        await desk.add_repo("acme/modes", str(origin))
        await modes.switch("long-running", "on", by=owner)
        number = await desk.start_job(
            "acme/modes", "modes", agent_command=agent(*steps), budget=timedelta(seconds=2)
        )
        await _first_open(ApprovalsClient(client))
        await modes.switch("yolo", "on", by=owner)
        with contextlib.suppress(ModeRefusedError):
            await modes.switch("yolo", "off", by=Principal(id="local:stranger"))
        while not past.exists():
            await asyncio.sleep(0.1)
        await modes.switch("long-running", "off", by=owner, scope=ScopeKind.JOB, target=str(number))
        print(number, (await desk.wait(number)).outcome)
        keep(out / "coding_job_modes_changed.json", await desk.job(number).fetch_history())
        h = await client.get_workflow_handle(DESK_WORKFLOW_ID).fetch_history()
        keep(out / "desk_modes.json", h)
    await env.shutdown()


def _settings_for(env: WorkflowEnvironment, tmp: Path, name: str) -> DeskSettings:
    """Settings of a scenario's own home and task queue on `env`'s server."""
    return load_settings(
        home=tmp / f"{name}-home",
        temporal_address=env.client.service_client.config.target_host,
        task_queue=f"rec-{name}",
    )


async def _desk_with_clone(
    env: WorkflowEnvironment, settings: DeskSettings, origins: Path
) -> DeskClient:
    """A desk client whose shelf holds acme/api, cloned from a fresh origin under `origins`."""
    desk = await _desk(env.client, settings)
    await desk.add_repo("acme/api", str(make_origin(origins / "acme" / "api.git")))
    return desk


async def record_repeated_admission(tmp: Path, out: Path) -> None:
    """A submission the desk admits, then gets again (another Update id, the same request id):
    the desk answers with the first number and starts nothing."""
    env = await local_server()
    settings = _settings_for(env, tmp, "repeat")
    async with build_worker(env.client, settings):
        desk = await _desk_with_clone(env, settings, tmp / "repeat")
        job = JobInput(number=0, repo="acme/api", task="once", agent_command=agent("say:hi"))
        request = AdmitInput(job=job, request_id="request-1")
        for update_id in ("try-1", "try-2"):
            admission = await env.client.execute_update_with_start_workflow(
                Desk.admit, request, id=update_id, start_workflow_operation=desk_start(settings)
            )
            print(update_id, admission.number)
        print(admission.number, (await desk.wait(admission.number)).outcome)
        h = await env.client.get_workflow_handle(DESK_WORKFLOW_ID).fetch_history()
        keep(out / "desk_admission_repeated.json", h)
    await env.shutdown()


async def record_admission_activity(tmp: Path, out: Path) -> None:
    """The desk checks each submission with an activity (no longer a local one): one is
    admitted and runs, one names a repository not on the shelf and is refused."""
    env = await local_server()
    settings = _settings_for(env, tmp, "check-activity")
    async with build_worker(env.client, settings):
        desk = await _desk_with_clone(env, settings, tmp / "activity")
        number = await desk.start_job("acme/api", "checked", agent_command=agent("say:hi"))
        print(number, (await desk.wait(number)).outcome)
        try:
            await desk.start_job("acme/missing", "refused", agent_command=agent("say:hi"))
        except DeskError as refusal:
            print("refused:", refusal)
        h = await env.client.get_workflow_handle(DESK_WORKFLOW_ID).fetch_history()
        keep(out / "desk_admission_activity.json", h)
    await env.shutdown()


async def record_push_memo(tmp: Path, out: Path) -> None:
    """A job asks its repository's entity by name (started as the job integrates), then a
    report and a push of the owner's repository: the entity's memo says which push runs, and
    then that none does."""
    env = await local_server()
    settings = _settings_for(env, tmp, "push-memo")
    settings = settings.model_copy(update={"owner_repos": ["acme/api"]})
    async with build_worker(env.client, settings):
        desk = await _desk_with_clone(env, settings, tmp / "push-memo")
        number = await desk.start_job(
            "acme/api", "named", agent_command=agent("write:n.txt=n", "commit:n")
        )
        print(number, (await desk.wait(number)).outcome)
        shipping = ShippingClient(desk.client, settings)
        report = await shipping.change_report("acme/api")
        handle, _ = await shipping.request_push("acme/api", report.head)  # an owner's repo
        print((await handle.result()).status)
        entity = env.client.get_workflow_handle(repo_workflow_id("acme/api"))
        print(await (await entity.describe()).memo())
        keep(out / "repo_entity_push_memo.json", await entity.fetch_history())
    await env.shutdown()


async def record_usage(tmp: Path, out: Path) -> None:
    """A job whose agent reports its usage on the hold channel: its report carries the total,
    and the job's search attributes its cost. (Its recording from before the cost attribute,
    `coding_job_usage`, went when the patch `job-cost-attribute` retired.)"""
    env = await local_server()
    settings = _settings_for(env, tmp, "usage")
    async with build_worker(env.client, settings):
        desk = await _desk_with_clone(env, settings, tmp / "usage")
        usage = 'usage:{"input_tokens": 10, "output_tokens": 2, "cost": "0.001"}'
        steps = (usage, usage, "write:u.txt=u", "commit:u")
        number = await desk.start_job("acme/api", "spent", agent_command=agent(*steps))
        print(number, (await desk.wait(number)).usage)
        keep(out / "coding_job_cost_attribute.json", await desk.job(number).fetch_history())
    await env.shutdown()


async def record_host_policy(tmp: Path, out: Path) -> None:
    """The desk judges jobs, mode switches and pushes by its host policy: a job admitted under
    it, a switch by an owner and one refused, an exempt repository's push, and a push that
    waits for an owner until a newer report supersedes it (its approval withdrawn)."""
    env = await local_server()
    settings = _settings_for(env, tmp, "policy")
    async with build_worker(env.client, settings):
        desk = await _desk_with_clone(env, settings, tmp / "policy")
        clone = settings.shelf_dir / "acme" / "api"
        number = await desk.start_job(
            "acme/api", "judged", agent_command=agent("write:p.txt=p", "commit:p")
        )
        print(number, (await desk.wait(number)).outcome)
        modes = ModesClient(env.client, settings)
        await modes.switch("yolo", "on", by=Principal(id=settings.owner))
        with contextlib.suppress(ModeRefusedError):
            await modes.switch("yolo", "off", by=Principal(id="local:mallory"))
        shipping = ShippingClient(desk.client, settings)
        older = await shipping.change_report("acme/api")
        waiting, _ = await shipping.request_push("acme/api", older.head)
        await _first_open(ApprovalsClient(env.client))
        _commit(clone, "q.txt")
        newer = await shipping.change_report("acme/api")
        print((await waiting.result()).status)
        keep(out / "ship_superseded.json", await waiting.fetch_history())
        await configure_desk(env.client, settings.model_copy(update={"owner_repos": ["acme/api"]}))
        exempt, _ = await shipping.request_push("acme/api", newer.head)
        print((await exempt.result()).status)
        keep(out / "ship_host_policy.json", await exempt.fetch_history())
        entity = env.client.get_workflow_handle(repo_workflow_id("acme/api"))
        keep(out / "repo_entity_superseded.json", await entity.fetch_history())
        keep(out / "coding_job_host_policy.json", await desk.job(number).fetch_history())
        h = await env.client.get_workflow_handle(DESK_WORKFLOW_ID).fetch_history()
        keep(out / "desk_host_policy.json", h)
    await env.shutdown()


async def record_result_hooks(tmp: Path, out: Path) -> None:
    """Results handed to the host's hooks: a job's report and a push's result delivered to a
    command, and a delivery whose command keeps failing given up at the end of its window."""
    env = await local_server()
    settings = _settings_for(env, tmp, "results").model_copy(
        update={"result_command": "sh -c 'cat >/dev/null'"}
    )
    async with build_worker(env.client, settings):
        desk = await _desk_with_clone(env, settings, tmp / "results")
        clone = settings.shelf_dir / "acme" / "api"
        number = await desk.start_job(
            "acme/api", "hooked", agent_command=agent("write:h.txt=h", "commit:h")
        )
        print(number, (await desk.wait(number)).outcome)
        delivery = env.client.get_workflow_handle(result_delivery_workflow_id("job", str(number)))
        print((await delivery.result())["deliveries"])
        keep(out / "coding_job_result_hooks.json", await desk.job(number).fetch_history())
        keep(out / "result_delivery_job.json", await delivery.fetch_history())
        await configure_desk(env.client, settings.model_copy(update={"owner_repos": ["acme/api"]}))
        shipping = ShippingClient(desk.client, settings)
        report = await shipping.change_report("acme/api")
        pushed, _ = await shipping.request_push("acme/api", report.head)
        print((await pushed.result()).status)
        keep(out / "ship_result_hooks.json", await pushed.fetch_history())
    failing = settings.model_copy(
        update={
            "result_command": "sh -c 'exit 3'",
            "result_hook_timeout": timedelta(seconds=1),
            "result_hook_window": timedelta(seconds=3),
        }
    )
    async with build_worker(env.client, failing):
        await configure_desk(env.client, failing)
        _commit(clone, "g.txt")
        number = await desk.start_job(
            "acme/api", "given up", agent_command=agent("write:g2.txt=g", "commit:g")
        )
        print(number, (await desk.wait(number)).outcome)
        delivery = env.client.get_workflow_handle(result_delivery_workflow_id("job", str(number)))
        print((await delivery.result())["deliveries"])
        keep(out / "result_delivery_gave_up.json", await delivery.fetch_history())
    await env.shutdown()


async def record_agent_push(tmp: Path, out: Path) -> None:
    """An agent's plain push to main, approved: the job answers that codedesk ships it, and after
    integrating asks for the push of its integrated SHA, whose `Ship` links the agent's call."""
    env = await local_server()
    settings = _settings_for(env, tmp, "agent-push")
    push = json.dumps({"tool": "Bash", "input": {"command": "git push origin HEAD:main"}})
    async with build_worker(env.client, settings):
        desk = await _desk_with_clone(env, settings, tmp / "agent-push")
        number = await desk.start_job(
            "acme/api",
            "push it",
            agent_command=agent("write:s.txt=s", "commit:s", f"hold:{push}", "say:held"),
        )
        approvals = ApprovalsClient(env.client)
        owner = Principal(id=settings.owner)
        await approvals.answer(await _first_open(approvals), Decision.APPROVE, owner)
        report = await desk.wait(number)
        [shipped] = report.ship_requests
        print(number, report.outcome, shipped.status)
        await approvals.answer(await _first_open(approvals), Decision.APPROVE, owner)
        ship = env.client.get_workflow_handle(shipped.push_workflow_id)
        print(await ship.result())
        keep(out / "coding_job_ship_requested.json", await desk.job(number).fetch_history())
        keep(out / "ship_agent_request.json", await ship.fetch_history())
    await env.shutdown()


async def record_worktree_setup(tmp: Path, out: Path) -> None:
    """A repository with a set-up (a copied file and a command) and a check: the job sets its
    worktree up before the agent and checks it after, then integrates."""
    env = await local_server()
    settings = _settings_for(env, tmp, "setup")
    async with build_worker(env.client, settings):
        desk = await _desk_with_clone(env, settings, tmp / "setup")
        clone = settings.shelf_dir / "acme" / "api"
        (clone / ".env").write_text("A=1\n")
        change = SetRepoSetup(
            repo="acme/api", setup="echo set up", copy_files=[".env"], check="echo checked"
        )
        await RepoSetupClient(desk.client, settings).configure(change)
        number = await desk.start_job(
            "acme/api",
            "set up",
            agent_command=agent("require:.env=A=1\\n", "write:s.txt=s", "commit:s"),
        )
        print(number, (await desk.wait(number)).outcome)
        keep(out / "coding_job_worktree_setup.json", await desk.job(number).fetch_history())
    await env.shutdown()


async def record_cancel_in_setup(tmp: Path, out: Path) -> None:
    """A job cancelled while its repository's set-up command runs: it ends with a report
    (patch `job-cancel-reported-at-every-step`), its worktree released."""
    env = await local_server()
    settings = _settings_for(env, tmp, "cancel-setup")
    async with build_worker(env.client, settings):
        desk = await _desk_with_clone(env, settings, tmp / "cancel-setup")
        change = SetRepoSetup(repo="acme/api", setup="touch .started && sleep 600")
        await RepoSetupClient(desk.client, settings).configure(change)
        number = await desk.start_job("acme/api", "never", agent_command=agent("say:never"))
        while not (worktree := (await desk.status(number))[1].worktree):
            await asyncio.sleep(0.1)
        while not (Path(worktree) / ".started").exists():
            await asyncio.sleep(0.1)
        await desk.cancel(number)
        print(number, (await desk.wait(number)).outcome)
        keep(out / "coding_job_cancelled_in_setup.json", await desk.job(number).fetch_history())
    await env.shutdown()


async def record_setup_at_cut(tmp: Path, out: Path) -> None:
    """A repository with a check and no set-up: the job reads that at its cut (patch
    `setup-read-at-the-cut`), skips the set-up step, runs the check, then integrates; then one
    with a set-up and no check, which the job reads as its agent ends and skips the check."""
    env = await local_server()
    settings = _settings_for(env, tmp, "setup-at-cut")
    async with build_worker(env.client, settings):
        desk = await _desk_with_clone(env, settings, tmp / "setup-at-cut")
        change = SetRepoSetup(repo="acme/api", check="echo checked")
        await RepoSetupClient(desk.client, settings).configure(change)
        number = await desk.start_job(
            "acme/api", "checked", agent_command=agent("write:c.txt=c", "commit:c")
        )
        print(number, (await desk.wait(number)).outcome)
        keep(out / "coding_job_setup_at_cut.json", await desk.job(number).fetch_history())
        # Then a set-up and no check, read as the agent ends: the check step is skipped.
        change = SetRepoSetup(repo="acme/api", clear=True, setup="echo set up")
        await RepoSetupClient(desk.client, settings).configure(change)
        number = await desk.start_job(
            "acme/api", "set up", agent_command=agent("write:d.txt=d", "commit:d")
        )
        print(number, (await desk.wait(number)).outcome)
        keep(out / "coding_job_check_skipped.json", await desk.job(number).fetch_history())
        entity = desk.client.get_workflow_handle(repo_workflow_id("acme/api"))
        keep(out / "repo_entity_setup_memo.json", await entity.fetch_history())
    await env.shutdown()


def _commit(clone: Path, name: str) -> None:
    (clone / name).write_text(name)
    git(clone, "add", name)
    git(clone, "commit", "-q", "-m", name)


async def _first_open(approvals: ApprovalsClient) -> str:
    for _ in range(300):
        states = await approvals.open_approvals()
        if states:
            return states[0].approval_id
        await asyncio.sleep(0.1)
    raise RuntimeError("no approval opened")


async def record_pull_request(tmp: Path, out: Path) -> None:
    """An exempt repository's push shipped as a pull request, through the fake `gh` on PATH."""
    bin_dir, _ = fake_gh(tmp / "forge")
    os.environ["PATH"] = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    env = await local_server()
    settings = _settings_for(env, tmp, "pr")
    async with build_worker(env.client, settings):
        desk = await _desk_with_clone(env, settings, tmp / "pr")
        _commit(settings.shelf_dir / "acme" / "api", "r.txt")
        await configure_desk(env.client, settings.model_copy(update={"owner_repos": ["acme/api"]}))
        shipping = ShippingClient(desk.client, settings)
        report = await shipping.change_report("acme/api")
        ship, _ = await shipping.request_push("acme/api", report.head, pull_request=True)
        print((await ship.result()).pull_request_url)
        keep(out / "ship_pull_request.json", await ship.fetch_history())
        entity = env.client.get_workflow_handle(repo_workflow_id("acme/api"))
        keep(out / "repo_entity_pull_request.json", await entity.fetch_history())
    await env.shutdown()


async def record_yolo_told(tmp: Path, out: Path) -> None:
    """A job from a (fake) chat thread under yolo: its held call is approved by the mode, and
    the thread is told so (patch `yolo-approvals-told`)."""
    env = await local_server()
    settings = _settings_for(env, tmp, "yolo")
    queue = "rec-yolo-surface"
    # yolo still cards a push: a destructive call is what it approves itself.
    update_ref = json.dumps({"tool": "Bash", "input": {"command": "git update-ref -d refs/x"}})
    surface = SurfaceActivities(FakeSurface()).all()
    async with (
        build_worker(env.client, settings),
        Worker(env.client, task_queue=queue, activities=surface),
    ):
        desk = await _desk_with_clone(env, settings, tmp / "yolo")
        await ModesClient(env.client, settings).switch(
            "yolo", "on", by=Principal(id=settings.owner, name="owner")
        )
        admission = await desk.submit_job(
            "acme/api",
            "yolo",
            agent_command=agent(f"hold:{update_ref}", "write:y.txt=1", "commit:y"),
            place=SurfacePlace(queue=queue, channel="thread-9"),
        )
        print(admission.number, (await desk.wait(admission.number)).outcome)
        keep(out / "coding_job_yolo_told.json", await desk.job(admission.number).fetch_history())
    await env.shutdown()


async def record_daily_limit(tmp: Path, out: Path) -> None:
    """A desk with a daily spend limit of $1: a job spends $1.20 (stopped at the day's $1), the
    next task waits for the next UTC day (patch `daily-spend-limit`: the desk's timer), then the
    host raises the limit to $2 and it runs, limited to the $0.80 left (`JobAdmitted.day_left`)."""
    env = await local_server()
    settings = _settings_for(env, tmp, "daily").model_copy(
        update={"daily_spend_limit": Decimal("1")}
    )
    async with build_worker(env.client, settings):
        desk = await _desk_with_clone(env, settings, tmp / "daily")
        spent = agent('usage:{"output_tokens": 5, "cost": "1.2"}')
        first = await desk.start_job("acme/api", "spend the day", agent_command=spent)
        print(first, (await desk.wait(first)).reason)
        steps = ('usage:{"cost": "0.6"}', 'usage:{"cost": "0.6"}', "sleep:300")
        admission = await desk.submit_job("acme/api", "tomorrow", agent_command=agent(*steps))
        print(admission.number, admission.day_limit)
        raised = settings.model_copy(update={"daily_spend_limit": Decimal("2")})
        await configure_desk(env.client, raised)
        print(admission.number, (await desk.wait(admission.number)).reason)
        keep(out / "coding_job_day_left.json", await desk.job(admission.number).fetch_history())
        h = await env.client.get_workflow_handle(DESK_WORKFLOW_ID).fetch_history()
        keep(out / "desk_daily_limit.json", h)
    await env.shutdown()


async def record_head_check(tmp: Path, out: Path) -> None:
    """Pushes that read the clone's HEAD on its host before asking anyone (patch
    `ship-head-check`): one at HEAD, asked by `codedesk push` (its `asked` Update), approved and
    pushed; one of a SHA the clone moved on from, refused before any approval opened."""
    env = await local_server()
    settings = _settings_for(env, tmp, "head")
    async with build_worker(env.client, settings):
        desk = await _desk_with_clone(env, settings, tmp / "head")
        clone = settings.shelf_dir / "acme" / "api"
        shipping = ShippingClient(desk.client, settings)
        _commit(clone, "h.txt")
        report = await shipping.change_report("acme/api")
        pushed, approval = await shipping.request_push("acme/api", report.head)
        print(await shipping.asked(pushed, timedelta(seconds=30)))
        await ApprovalsClient(env.client).answer(
            approval, Decision.APPROVE, Principal(id=settings.owner)
        )
        print((await pushed.result()).status)
        keep(out / "ship_head_checked.json", await pushed.fetch_history())
        _commit(clone, "i.txt")
        stale = await shipping.change_report("acme/api")
        _commit(clone, "j.txt")
        refused, _ = await shipping.request_push("acme/api", stale.head)
        print(await refused.result())
        keep(out / "ship_head_moved.json", await refused.fetch_history())
    await env.shutdown()


async def record_stranger_modes(tmp: Path, out: Path) -> None:
    """A job a stranger started under long-running mode (patch `modes-need-an-owner-starter`):
    it follows no mode, and stops at its budget."""
    env = await local_server()
    settings = _settings_for(env, tmp, "stranger-modes")
    async with build_worker(env.client, settings):
        desk = await _desk_with_clone(env, settings, tmp / "stranger-modes")
        owner = Principal(id=settings.owner, name="owner")
        await ModesClient(env.client, settings).switch("long-running", "on", by=owner)
        admission = await desk.submit_job(
            "acme/api",
            "long",
            agent_command=agent("sleep:60"),
            starter="discord:666",
            budget=timedelta(seconds=2),
        )
        print(admission.number, (await desk.wait(admission.number)).outcome)
        h = await desk.job(admission.number).fetch_history()
        keep(out / "coding_job_stranger_modes.json", h)
    await env.shutdown()


async def record_off_shelf(tmp: Path, out: Path) -> None:
    """A repository's entity that looks at its shelf as it starts (patch
    `repo-entity-ends-off-shelf`), finds its clone and makes a report; the clone is then
    removed by hand, a starting worker asks it to look again (`look_at_shelf`), and it ends."""
    env = await local_server()
    settings = _settings_for(env, tmp, "off-shelf")
    async with build_worker(env.client, settings):
        desk = await _desk_with_clone(env, settings, tmp / "off-shelf")
        clone = settings.shelf_dir / "acme" / "api"
        _commit(clone, "o.txt")
        print((await ShippingClient(desk.client, settings).change_report("acme/api")).head)
        shutil.move(clone, tmp / "moved-away")
        print(await ask_entities_to_look(env.client, settings))
        entity = env.client.get_workflow_handle(repo_workflow_id("acme/api"))
        await entity.result()
        keep(out / "repo_entity_off_shelf.json", await entity.fetch_history())
    await env.shutdown()


async def record_ship_told(tmp: Path, out: Path) -> None:
    """An agent's approved push from a job in a (fake) chat thread: the `Ship` of its integrated
    SHA, approved and pushed, tells the job's thread how it ended (patch `ship-outcome-told`)."""
    env = await local_server()
    settings = _settings_for(env, tmp, "ship-told")
    queue = "rec-ship-told-surface"
    push = json.dumps({"tool": "Bash", "input": {"command": "git push origin HEAD:main"}})
    surface = FakeSurface()
    async with (
        build_worker(env.client, settings),
        Worker(env.client, task_queue=queue, activities=SurfaceActivities(surface).all()),
    ):
        desk = await _desk_with_clone(env, settings, tmp / "ship-told")
        admission = await desk.submit_job(
            "acme/api",
            "push it",
            agent_command=agent("write:t.txt=t", "commit:t", f"hold:{push}", "say:held"),
            place=SurfacePlace(queue=queue, channel="thread-7"),
        )
        approvals = ApprovalsClient(env.client)
        owner = Principal(id=settings.owner)
        await approvals.answer(await _first_open(approvals), Decision.APPROVE, owner)
        report = await desk.wait(admission.number)
        [shipped] = report.ship_requests
        await approvals.answer(await _first_open(approvals), Decision.APPROVE, owner)
        ship = env.client.get_workflow_handle(shipped.push_workflow_id)
        print(await ship.result())
        while not any("Pushed" in text for _, text in surface.posts):
            await asyncio.sleep(0.1)
        keep(out / "ship_outcome_told.json", await ship.fetch_history())
    await env.shutdown()


async def record_withdrawn_calls(tmp: Path, out: Path) -> None:
    """A job whose held call is withdrawn, then asked again and refused without a card; and a
    call approved after its hook gave up, withdrawn by `codedesk withdraw` before any call used
    it (the job's `withdraw_call`), then refused too (patch `withdrawn-calls-stay-withdrawn`)."""
    env = await local_server()
    settings = _settings_for(env, tmp, "withdrawn")
    async with build_worker(env.client, settings):
        desk = await _desk_with_clone(env, settings, tmp / "withdrawn")
        number = await desk.start_job("acme/api", "wait", agent_command=agent("sleep:60"))
        while (await desk.status(number))[1].phase != "working":
            await asyncio.sleep(0.1)
        job = desk.job(number)
        approvals = ApprovalsClient(env.client, settings.task_queue)

        async def hold(command: str, wait: float) -> str:
            request = HoldRequest(tool="Bash", input={"command": command}, wait_seconds=wait)
            return (await job.execute_update(CodingJob.hold, request)).verdict.value

        print(await hold("git push origin main", 0.5))
        withdrawn = await approvals.withdraw_call(f"job-{number}", "not this way", settings.owner)
        print(await env.client.get_workflow_handle(withdrawn.approval_id).result())
        print(await hold("git push origin main", 5))
        print(await hold("git push origin feature", 0.5))
        late = await _first_open(approvals)
        await approvals.answer(late, Decision.APPROVE, Principal(id=settings.owner))
        while (await desk.status(number))[1].late_approvals != [late]:
            await asyncio.sleep(0.1)
        print(await approvals.withdraw_call(late, "not any more", settings.owner))
        print(await hold("git push origin feature", 5))
        await desk.cancel(number)
        print(number, (await desk.wait(number)).outcome)
        keep(out / "coding_job_withdrawn_calls.json", await job.fetch_history())
    await env.shutdown()


async def _agent_waits(settings: DeskSettings, number: int, line: str) -> None:
    """Until job `number`'s agent log has `line` (its agent reached that step)."""
    log = settings.jobs_dir / str(number) / "agent.log"
    for _ in range(600):
        if log.is_file() and line in log.read_text():
            return
        await asyncio.sleep(0.1)
    raise SystemExit(f"job {number}'s agent never logged {line!r}")


async def record_messages(tmp: Path, out: Path) -> None:
    """The conversation (issue 45): a message to a command agent while it works, delivered
    through its messages file at once (the `say` Update, the agent's `agent_inbox`, the
    `messages_delivered` signal); and one to an agent that takes none while it runs (a one-shot
    agent taken for aider), delivered by running it again with the task (patch
    `agent-runs-again-for-messages`)."""
    env = await local_server()
    gates = tmp / "gates"  # the sandboxed agent reads its gate there
    gates.mkdir()
    settings = _settings_for(env, tmp, "messages").model_copy(
        update={"sandbox_read_paths": [str(gates)]}
    )
    async with build_worker(env.client, settings):
        desk = await _desk_with_clone(env, settings, tmp / "messages")
        live = await desk.start_job(
            "acme/api", "obey", agent_command=agent("obey:1", "commit:As asked")
        )
        await _agent_waits(settings, live, "scripted agent: waiting for")
        print(await desk.say(live, "write:CHANGELOG.md=- asked"))
        print((await desk.wait(live)).outcome)
        keep(out / "coding_job_messages.json", await desk.job(live).fetch_history())

        gate = gates / "one-shot-may-end"
        program = tmp / "one-shot-bin" / "aider"
        program.parent.mkdir()
        one_shot = Path(__file__).parents[1] / "helpers" / "programs" / "one_shot_agent.py"
        program.write_text(f'#!/bin/sh\nexec {sys.executable} {one_shot} "$@"\n')
        program.chmod(0o755)
        again = await desk.start_job(
            "acme/api", f"wait-file:{gate}", agent_command=f"{program} --message={{task}}"
        )
        await _agent_waits(settings, again, "scripted agent: waiting for")
        print(await desk.say(again, "write:AGAIN.md=yes"))
        gate.touch()
        print((await desk.wait(again)).outcome)
        keep(out / "coding_job_messages_rerun.json", await desk.job(again).fetch_history())
    await env.shutdown()


async def record_check_fixed(tmp: Path, out: Path) -> None:
    """A failed check goes back to the agent (issue 46): the check fails, its tail is a message
    to the agent, whose second run fixes it; the check passes and the work integrates (patch
    `failed-check-goes-back-to-the-agent`)."""
    env = await local_server()
    settings = _settings_for(env, tmp, "check-fixed")
    async with build_worker(env.client, settings):
        desk = await _desk_with_clone(env, settings, tmp / "check-fixed")
        change = SetRepoSetup(repo="acme/api", check="test -f fixed.txt || exit 3")
        await RepoSetupClient(desk.client, settings).configure(change)
        number = await desk.start_job(
            "acme/api",
            "fix",
            agent_command=agent(
                "write:s.txt=s", "commit:s", "if-told:write:fixed.txt=ok", "if-told:commit:fix"
            ),
        )
        print(number, (await desk.wait(number)).outcome)
        keep(out / "coding_job_check_fixed.json", await desk.job(number).fetch_history())
    await env.shutdown()


async def record_budget_pause(tmp: Path, out: Path) -> None:
    """Budgets that pause and ask (issue 47, patch `budget-pauses-and-asks`): an agent that
    names its session runs out of its budget twice; the first card is approved (the agent goes
    on, the note in the conversation), the second finished here (the check and integration of
    what it committed)."""
    env = await local_server()
    gates = tmp / "gates"
    gates.mkdir()
    settings = _settings_for(env, tmp, "budget").model_copy(
        update={"sandbox_read_paths": [str(gates)]}
    )
    session = '{"type": "system", "subtype": "init", "session_id": "budget-session-1"}'
    async with build_worker(env.client, settings):
        desk = await _desk_with_clone(env, settings, tmp / "budget")
        approvals = ApprovalsClient(env.client)
        number = await desk.start_job(
            "acme/api",
            "work",
            agent_command=agent(
                f"say:{session}", "write:NOTES.md=notes", "commit:Notes", f"wait:{gates / 'x'}"
            ),
            budget=timedelta(seconds=3),
        )
        by = Principal(id=settings.owner, name="alice")
        first = await _first_open(approvals)
        await approvals.answer(first, Decision.APPROVE, by)
        for _ in range(600):
            still = await approvals.open_approvals()
            if still and still[0].approval_id != first:
                break
            await asyncio.sleep(0.1)
        await desk.finish(number)
        print((await desk.wait(number)).outcome)
        keep(out / "coding_job_budget_paused.json", await desk.job(number).fetch_history())
    await env.shutdown()


async def record_session_kept(tmp: Path, out: Path) -> None:
    """A finished job's agent session kept for the host's CODEDESK_SESSION_KEEP (a few seconds
    here), then removed by its `SessionKeep` (issue 46, patch `session-kept-after-the-job`)."""
    env = await local_server()
    settings = _settings_for(env, tmp, "session").model_copy(
        update={"session_keep": timedelta(seconds=3)}
    )
    async with build_worker(env.client, settings):
        desk = await _desk_with_clone(env, settings, tmp / "session")
        number = await desk.start_job(
            "acme/api", "greet", agent_command=agent("write:a.txt=1", "commit:a")
        )
        print((await desk.wait(number)).outcome)
        kept = env.client.get_workflow_handle(session_keep_workflow_id(number))
        print(await kept.result())
        keep(out / "coding_job_session_kept.json", await desk.job(number).fetch_history())
        keep(out / "session_keep.json", await kept.fetch_history())
    await env.shutdown()


async def record_continuation(tmp: Path, out: Path) -> None:
    """A message to a finished job continues it in a new job, which starts with that message
    and resumes the finished job's session (issue 46, patch
    `continuation-resumes-a-finished-session`; a command agent keeps none: it starts anew)."""
    env = await local_server()
    settings = _settings_for(env, tmp, "continuation")
    async with build_worker(env.client, settings):
        desk = await _desk_with_clone(env, settings, tmp / "continuation")
        number = await desk.start_job(
            "acme/api", "greet", agent_command=agent("obey:1", "commit:As asked")
        )
        await _agent_waits(settings, number, "scripted agent: waiting for")
        print(await desk.say(number, "write:a.txt=1"))
        print((await desk.wait(number)).outcome)
        answer = await desk.say(number, "write:b.txt=2")
        print(answer, (await desk.wait(answer.number)).outcome)
        keep(out / "coding_job_continuation.json", await desk.job(answer.number).fetch_history())
    await env.shutdown()


async def _in_review(desk: DeskClient, number: int, rounds: int) -> None:
    """Until job `number` waits in review for its round `rounds`."""
    for _ in range(1200):
        _, status = await desk.status(number)
        if status.phase == JobPhase.REVIEW and len(status.review_rounds) == rounds:
            return
        await asyncio.sleep(0.1)
    raise SystemExit(f"job {number} never waited in review (round {rounds})")


async def record_review(tmp: Path, out: Path) -> None:
    """Review before it lands (issue 46, patch `review-before-it-lands`): a job asked for review
    waits in review, a message asks for a revision (the agent's session resumed with it), the
    check runs again, and `integrate` lands both rounds; another is discarded."""
    env = await local_server()
    settings = _settings_for(env, tmp, "review")
    async with build_worker(env.client, settings):
        desk = await _desk_with_clone(env, settings, tmp / "review")
        change = SetRepoSetup(repo="acme/api", check="test -f a.txt")
        await RepoSetupClient(desk.client, settings).configure(change)
        program = tmp / "one-shot-bin" / "aider"
        program.parent.mkdir()
        one_shot = Path(__file__).parents[1] / "helpers" / "programs" / "one_shot_agent.py"
        program.write_text(f'#!/bin/sh\nexec {sys.executable} {one_shot} "$@"\n')
        program.chmod(0o755)
        command = f"{program} --message={{task}}"
        revised = await desk.start_job(
            "acme/api", "write:a.txt=1", agent_command=command, review=True
        )
        await _in_review(desk, revised, 1)
        _, status = await desk.status(revised)
        asked = JobDiffInput(number=revised, repo="acme/api", branch=status.branch)
        differ = await env.client.start_workflow(
            JobDiffer.run, asked, id="job-diff-rec", task_queue=settings.task_queue
        )
        print((await differ.result()).stat)
        keep(out / "job_diff.json", await differ.fetch_history())
        print(await desk.say(revised, "write:b.txt=2"))
        await _in_review(desk, revised, 2)
        print(await desk.answer_review(revised, ReviewVerdict.INTEGRATE))
        print((await desk.wait(revised)).outcome)
        keep(out / "coding_job_reviewed.json", await desk.job(revised).fetch_history())
        dropped = await desk.start_job(
            "acme/api", "write:c.txt=3", agent_command=command, review=True
        )
        await _in_review(desk, dropped, 1)
        print(await desk.answer_review(dropped, ReviewVerdict.DISCARD))
        print((await desk.wait(dropped)).outcome)
        keep(out / "coding_job_review_discarded.json", await desk.job(dropped).fetch_history())
    await env.shutdown()


SCENARIOS: dict[str, Callable[[Path, Path], Awaitable[None]]] = {
    "basic": record_basic,
    "watched": record_watched,
    "late": record_late_approval,
    "hosts": record_host_wait,
    "sandbox": record_sandboxed,
    "modes": record_modes,
    "repeat": record_repeated_admission,
    "check": record_admission_activity,
    "push-memo": record_push_memo,
    "usage": record_usage,
    "policy": record_host_policy,
    "results": record_result_hooks,
    "agent-push": record_agent_push,
    "pull-request": record_pull_request,
    "setup": record_worktree_setup,
    "cancel-in-setup": record_cancel_in_setup,
    "setup-at-cut": record_setup_at_cut,
    "yolo": record_yolo_told,
    "daily-limit": record_daily_limit,
    "head-check": record_head_check,
    "stranger-modes": record_stranger_modes,
    "off-shelf": record_off_shelf,
    "ship-told": record_ship_told,
    "withdrawn": record_withdrawn_calls,
    "messages": record_messages,
    "check-fixed": record_check_fixed,
    "budget": record_budget_pause,
    "session-kept": record_session_kept,
    "continuation": record_continuation,
    "review": record_review,
}
"""Each scenario runs on a server of its own and keeps the histories it has not kept yet."""


async def main(names: list[str]) -> None:
    unknown = sorted(set(names) - set(SCENARIOS))
    if unknown:
        raise SystemExit(f"Unknown scenarios {unknown}: choose from {', '.join(SCENARIOS)}.")
    out = Path(__file__).resolve().parent
    for name in names or list(SCENARIOS):
        print(f"== {name}")
        await SCENARIOS[name](Path(tempfile.mkdtemp(prefix=f"record-{name}-")), out)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
    os._exit(0)  # the SDK can crash at interpreter exit (TEMPORAL-NOTES.md)
