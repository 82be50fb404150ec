"""`codedesk report|push`: shipping the exact commit a person reviewed."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import typer

from surfaces.cli.runner import out, run, settings

if TYPE_CHECKING:
    from desk.shipping import ChangeReport, PushResult

REPO = typer.Argument(..., metavar="OWNER/REPO", help="A repository on the shelf.")


def report(repo: str = REPO, as_json: bool = typer.Option(False, "--json")) -> None:
    """Fetch, check and describe what a push of the clone's HEAD would ship (keeps a receipt)."""
    from surfaces.shipping_client import ShippingClient
    from workers.client import connect

    config = settings()

    async def body() -> None:
        made = await ShippingClient(await connect(config), config).change_report(repo)
        if as_json:
            typer.echo(made.model_dump_json(indent=2))
            return
        for line in report_lines(made):
            out.print(line, markup=False)
        out.print(f"\nTo ship it: codedesk push {made.repo} {made.head}", markup=False)

    run(body())


def push(
    repo: str = REPO,
    sha: str = typer.Argument(..., metavar="SHA", help="The full SHA `codedesk report` named."),
    wait: bool = typer.Option(False, "--wait", help="Wait for the approval and the push."),
    as_json: bool = typer.Option(False, "--json", help="With --wait: print the result as JSON."),
) -> None:
    """Ask to push exactly SHA to the default branch; an owner approves it first."""
    from desk.shipping import PushStatus
    from surfaces.shipping_client import ShippingClient
    from workers.client import connect

    config = settings()

    async def body() -> int:
        client = ShippingClient(await connect(config), config)
        handle, approval = await client.request_push(repo, sha)
        if approval:
            out.print(
                f"The push of {sha} waits for an owner's approval: {approval}\n"
                f"  approve it: codedesk approve {approval}",
                markup=False,
            )
        else:
            out.print(f"{repo} is an owner repository: the push runs without a hold.")
        if not wait:
            out.print(f"Push workflow: {handle.id}", markup=False)
            return 0
        result = await handle.result()
        if as_json:
            typer.echo(json.dumps(result.model_dump(mode="json"), indent=2))
        else:
            out.print(push_line(result), markup=False)
        return 0 if result.status == PushStatus.PUSHED else 1

    raise typer.Exit(run(body()))


def report_lines(made: ChangeReport) -> list[str]:
    """A change report for a terminal."""
    total = len(made.commits) + made.commits_omitted
    lines = [
        f"{made.repo}: {total} commit(s) ahead of origin/{made.default_branch}",
        f"  HEAD:        {made.head}",
        f"  branch:      {made.default_branch} (remote at {made.remote_tip[:12]})",
        f"  destination: {made.destination}",
        "  commits:",
        *(f"    {commit.sha[:12]} {commit.subject}" for commit in made.commits),
    ]
    if made.commits_omitted:
        lines.append(f"    … and {made.commits_omitted} more")
    lines.append("  files:")
    lines += [f"    +{f.added} -{f.deleted}  {f.path}" for f in made.files]
    if made.files_omitted:
        lines.append(f"    … and {made.files_omitted} more")
    return lines


def push_line(result: PushResult) -> str:
    from desk.shipping import PushStatus

    if result.status == PushStatus.PUSHED:
        again = " (the remote already had it)" if result.already else ""
        by = f", approved by {result.approved_by}" if result.approved_by else ""
        return f"Pushed {result.sha} to {result.branch} at {result.destination}{again}{by}."
    return f"Not pushed ({result.status.value}): {result.reason}"
