"""`codedesk repo add|list|set|show`: the shelf of clones and their worktree set-up."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from desk.decisions.host_slots import repo_host
from surfaces.cli.common.options import DeskTyper
from surfaces.cli.common.runner import with_desk
from surfaces.render.terminal.console import err, out

if TYPE_CHECKING:
    from surfaces.clients.desk_client import DeskClient

repo_app = DeskTyper(
    help="The shelf: the clones codedesk works on.", no_args_is_help=True, rich_markup_mode=None
)


@repo_app.command("add")
def add(
    repo: str = typer.Argument(..., metavar="OWNER/REPO", help="The repository's name."),
    source: str = typer.Option(
        "", "--from", help="Clone from this URL or path instead of the clone-source template."
    ),
    host: str = typer.Option(
        "", "--host", help="The host whose shelf gets the clone (default: the only live host)."
    ),
    adopt: str = typer.Option(
        "",
        "--adopt",
        metavar="PATH",
        help="Move this existing clone onto the shelf as it is instead of cloning (a clean, "
        "whole clone with an origin, on the shelf's filesystem).",
    ),
) -> None:
    """Clone OWNER/REPO onto a host's shelf, or adopt your clone; its jobs run on that host."""
    folder = str(Path(adopt).expanduser().absolute()) if adopt else ""

    async def body(desk: DeskClient) -> None:
        clone = await desk.add_repo(repo, source, host, adopt=folder)
        where = f" on host {clone.host}" if clone.host else ""
        verb = f"Adopted {folder} as" if folder else "Added"
        out.print(
            f"{verb} {clone.repo} at {clone.path}{where} (branch {clone.branch}).", markup=False
        )

    with_desk(body)


@repo_app.command("list")
def list_(
    fetch: bool = typer.Option(False, "--fetch", help="Fetch each clone's origin first."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """List every host's clones: git state, last commits, README line, instruction files, CI."""
    from surfaces.render.terminal.printing import clone_cells, clone_details
    from surfaces.render.terminal.tables import print_table

    async def body(desk: DeskClient) -> None:
        shelves = await desk.shelves(fetch=fetch)
        clones = shelves.clones
        if as_json:
            typer.echo(json.dumps([clone.model_dump(mode="json") for clone in clones], indent=2))
        elif not clones:
            out.print("The shelf is empty: add a repository with `codedesk repo add OWNER/REPO`.")
        else:
            print_table(*clone_cells(clones))
            for clone in clones:
                for line in clone_details(clone):
                    out.print(line, markup=False)
        if shelves.silent:
            err.print(
                f"Hosts that did not answer: {', '.join(shelves.silent)} (no worker polls "
                "there now; their clones are not listed).",
                markup=False,
            )

    with_desk(body)


@repo_app.command("set")
def set_(
    repo: str = typer.Argument(..., metavar="OWNER/REPO", help="A repository on the shelf."),
    setup: str | None = typer.Option(
        None, "--setup", help="Run this in each new worktree, in the sandbox, before the agent."
    ),
    copy: Annotated[
        list[str] | None,
        typer.Option(
            "--copy",
            metavar="PATH",
            help="Copy this file of the clone into each new worktree, kept out of git (repeat "
            "it; an empty PATH copies none).",
        ),
    ] = None,
    check: str | None = typer.Option(
        None, "--check", help="Run this in the worktree, in the sandbox, after the agent."
    ),
    check_blocks: bool | None = typer.Option(
        None,
        "--check-blocks/--no-check-blocks",
        help="Whether a failed check keeps the work from being integrated (default: it does).",
    ),
    check_retries: int | None = typer.Option(
        None,
        "--check-retries",
        metavar="K",
        help="How many times a failed check goes back to the agent, whose session gets its "
        "tail and works again, before the job reports it (0 to 10; default 2; 0: at once).",
    ),
    pull_requests: bool | None = typer.Option(
        None,
        "--pr/--no-pr",
        help="Ship this repository's pushes as pull requests (as `codedesk push --pr`), or not.",
    ),
    review: bool | None = typer.Option(
        None,
        "--review/--no-review",
        help="Every job's work waits for a person's review before it lands (a task may ask "
        "for review on its own; it cannot switch this off).",
    ),
    clear: bool = typer.Option(
        False, "--clear", help="Forget the set-up and check first (alone: clear them all)."
    ),
) -> None:
    """Set a repository's worktree set-up and check (the owner's, never the repository's)."""
    from desk.records.repo_setup import SetRepoSetup
    from surfaces.cli.common.runner import refuse_inside_a_job
    from surfaces.clients.repo_setup_client import RepoSetupClient
    from surfaces.render.words.setup_lines import setup_lines

    refuse_inside_a_job("repo set")
    change = SetRepoSetup(
        repo=repo,
        setup=setup,
        copy_files=None if copy is None else [path for path in copy if path],
        check=check,
        check_blocks=check_blocks,
        check_retries=check_retries,
        pull_requests=pull_requests,
        review=review,
        clear=clear,
    )

    async def body(desk: DeskClient) -> None:
        state = await desk.desk_state()
        host = repo_host(state, repo) if state is not None else ""
        done = await RepoSetupClient(desk.client, desk.settings).configure(change, host)
        for line in setup_lines(repo, done):
            out.print(line, markup=False)

    with_desk(body)


@repo_app.command("show")
def show(
    repo: str = typer.Argument(..., metavar="OWNER/REPO", help="A repository on the shelf."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of lines."),
) -> None:
    """Show a repository's worktree set-up and check."""
    from surfaces.clients.repo_setup_client import RepoSetupClient
    from surfaces.render.words.setup_lines import setup_lines

    async def body(desk: DeskClient) -> None:
        found = await RepoSetupClient(desk.client, desk.settings).setup_of(repo)
        if as_json:
            typer.echo(json.dumps(found.model_dump(mode="json"), indent=2))
        else:
            for line in setup_lines(repo, found):
                out.print(line, markup=False)

    with_desk(body)
