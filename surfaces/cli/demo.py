"""`codedesk demo`: the main job, offline: a sample repository, two jobs, then shipping them."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

from desk.agents.presets import preset_command
from desk.config.settings import DeskSettings
from desk.errors import ServerError
from desk.holds.approvals import ApprovalState, Decision, Principal
from desk.names import job_workflow_id
from desk.payloads.jobs import JobOutcome
from desk.payloads.ship_payloads import PushStatus
from surfaces.cli.commands.approval_commands import print_card
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.ship_client import ShippingClient
from surfaces.render.layout.report_layout import change_report, job_report
from surfaces.render.terminal.console import out
from surfaces.render.terminal.printing import print_blocks
from surfaces.render.words.history_lines import history_lines
from surfaces.render.words.push_words import push_result
from workers.desk_handle import configure_desk
from workers.devserver import DevServer, free_port, port_is_free
from workers.hosting import prepare_directories
from workers.search_attributes import ensure_search_attributes
from workers.temporal.client import connect, workflow_url
from workers.temporal.runtime import read_runtime
from workers.worker import build_worker

DEMO_AGENT = preset_command("demo")
DEMO_TASKS = (
    "Add a note on how to run the sample service",
    "Add a note listing the sample's open questions",
)
SEED_FILES = {
    "README.md": "# sample\n\nA small repository the codedesk demo works on.\n",
    "service.py": 'def greet(name: str) -> str:\n    return f"hello, {name}"\n',
}


async def run_demo(settings: DeskSettings) -> int:
    """Run the demo end to end; returns the exit code (0 when both jobs integrated)."""
    prepare_directories(settings)
    server, address, ui = await _server(settings)
    try:
        client = await connect(settings, address)
        await ensure_search_attributes(client)
        async with build_worker(client, settings):
            await configure_desk(client, settings)
            return await _jobs(DeskClient(client, settings), ui)
    finally:
        if server is not None:
            server.stop()


async def _server(settings: DeskSettings) -> tuple[DevServer | None, str, str]:
    if settings.temporal_address:
        out.print(f"Using the Temporal server at {settings.temporal_address}.")
        return None, settings.temporal_address, ""
    record = read_runtime(settings.home)
    if record is not None:
        out.print(f"Using the server `codedesk up` runs at {record.address}.")
        return None, record.address, record.ui_url
    port, ui_port = settings.port, settings.ui_port
    if not (port_is_free(port) and port_is_free(ui_port)):
        port, ui_port = free_port(), free_port()
        out.print(f"Ports {settings.port}/{settings.ui_port} are taken; using {port}/{ui_port}.")
    server = DevServer(settings.home, port, ui_port, sync=settings.server_sync)
    await server.start()
    await server.register_search_attributes(settings.namespace)
    out.print(f"Started the embedded Temporal server at {server.address} (UI {server.ui_url}).")
    out.print(f"Its state lives in {settings.home / 'temporal.db'}, so jobs survive a restart.")
    return server, server.address, server.ui_url


async def _jobs(desk: DeskClient, ui: str) -> int:
    settings = desk.settings
    repo, origin = _sample_origin(settings.home, {c.repo for c in await desk.list_repos()})
    out.print(f"\n[bold]1.[/] A sample origin repository: {origin}", markup=True)
    clone = await desk.add_repo(repo, str(origin))
    out.print(f"[bold]2.[/] Added [cyan]{repo}[/] to the shelf at {clone.path}", markup=True)
    out.print(
        "[bold]3.[/] Two jobs on it, run by the built-in [yellow]demo agent[/] — a deterministic "
        "script that commits a note from the task text, [bold]not an AI[/].",
        markup=True,
    )
    numbers = [
        await desk.start_job(repo, text, agent_command=DEMO_AGENT, requester="demo")
        for text in DEMO_TASKS
    ]
    reports = await asyncio.gather(*(desk.wait(number) for number in numbers))
    for report in reports:
        out.print()
        print_blocks(job_report(report, settings.time_zone))
    first = numbers[0]
    out.print(f"\n[bold]4.[/] The history of job {first}:", markup=True)
    for entry in history_lines(await desk.history(first)):
        out.print(f"  {entry.render(settings.time_zone)}", markup=False)
    link = workflow_url(ui, settings.namespace, job_workflow_id(first))
    if link:
        out.print(f"\nTemporal UI for job {first}: {link}", markup=False)
    if not all(report.outcome == JobOutcome.INTEGRATED for report in reports):
        return 1
    shipped = await _ship(desk, repo, origin)
    out.print(
        "\n[bold]With a real agent:[/] `codedesk up` in one terminal, then\n"
        f'  codedesk task {repo} "your task" --agent claude --wait\n'
        "(any command works as the agent: --agent-command; it runs in the job's worktree and "
        "commits its work).",
        markup=True,
    )
    return 0 if shipped else 1


async def _ship(desk: DeskClient, repo: str, origin: Path) -> bool:
    """Report, ask to push, show the card, approve it as the demo's owner, and push."""
    settings = desk.settings
    shipping = ShippingClient(desk.client, settings)
    report = await shipping.change_report(repo)
    out.print("\n[bold]5.[/] The change report (`codedesk report`):", markup=True)
    print_blocks(change_report(report))
    handle, approval = await shipping.request_push(repo, report.head)
    out.print(
        f"\n[bold]6.[/] `codedesk push {repo} {report.head}` waits for an owner. "
        "The card an owner sees (`codedesk approvals`):",
        markup=True,
    )
    approvals = ApprovalsClient(desk.client)
    state = await _opened(approvals, approval)
    print_card(state, settings.card_value_chars)
    owner = Principal(id=settings.owner, name="the demo's owner")
    out.print(
        f"\n[bold]7.[/] The demo approves it [bold]as its owner ({settings.owner})[/], through "
        f"the same path as `codedesk approve {approval}`.",
        markup=True,
    )
    answered, _ = await approvals.answer(approval, Decision.APPROVE, owner)
    result = await handle.result()
    print_blocks(push_result(result))
    shipped = answered.counted and result.status == PushStatus.PUSHED
    if shipped:
        out.print(f"\nThe origin has the commits: `git -C {origin} log --oneline main`.")
    return shipped


async def _opened(approvals: ApprovalsClient, approval: str) -> ApprovalState:
    for _ in range(300):
        for state in await approvals.open_approvals():
            if state.approval_id == approval:
                return state
        await asyncio.sleep(0.1)
    raise ServerError(f"The push approval {approval} did not open; is the worker running?")


def _sample_origin(home: Path, on_shelf: set[str]) -> tuple[str, Path]:
    """A new bare origin `demo/sample[-k]` under `<home>/demo/`, with two seed files."""
    k = 1
    while True:
        name = "sample" if k == 1 else f"sample-{k}"
        origin = home / "demo" / "origins" / f"{name}.git"
        if f"demo/{name}" not in on_shelf and not origin.exists():
            break
        k += 1
    seed = home / "demo" / "seeds" / name
    seed.mkdir(parents=True, exist_ok=True)
    for file, text in SEED_FILES.items():
        (seed / file).write_text(text)
    identity = ["-c", "user.name=codedesk demo", "-c", "user.email=demo@codedesk.invalid"]
    for args in (
        ["init", "--quiet", "--initial-branch=main"],
        ["add", "-A"],
        [*identity, "commit", "--quiet", "-m", "Sample service"],
    ):
        subprocess.run(["git", "-c", "core.hooksPath=/dev/null", *args], cwd=seed, check=True)
    subprocess.run(["git", "clone", "--quiet", "--bare", str(seed), str(origin)], check=True)
    return f"demo/{name}", origin
