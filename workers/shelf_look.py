"""A worker that starts asks the `Repo` entities whose clone it lacks to look at their shelf.

An entity whose clone is on no shelf (one an older codedesk started for a mistyped name, or a
clone removed by hand) waits for nothing that will come: asked, it looks on its clone's host
and ends when it finds no clone and has nothing to do (`RepoEntity.look_at_shelf`). An entity
of a clone on another host's shelf looks, finds it, and goes on.
"""

from __future__ import annotations

import logging

from temporalio.client import Client
from temporalio.service import RPCError

from activities.shelf_paths import clone_path
from desk.config.settings import DeskSettings
from desk.errors import DeskError
from desk.names import REPO_ID_PREFIX, REPO_LOOK_AT_SHELF_SIGNAL, REPO_WORKFLOW_TYPE

log = logging.getLogger(__name__)


async def ask_entities_to_look(client: Client, settings: DeskSettings) -> list[str]:
    """Signal each running `Repo` entity of this desk whose clone this host's shelf lacks;
    returns their workflow ids. A server that cannot be asked asks nobody: the worker runs."""
    query = (
        f"WorkflowType = '{REPO_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running' "
        f"AND TaskQueue = '{settings.task_queue}'"
    )
    asked = []
    try:
        async for entity in client.list_workflows(query):
            if _on_this_shelf(settings, entity.id.removeprefix(REPO_ID_PREFIX)):
                continue
            await client.get_workflow_handle(entity.id).signal(REPO_LOOK_AT_SHELF_SIGNAL)
            asked.append(entity.id)
    except RPCError as error:
        log.warning("The repositories' entities were not asked to look at the shelf: %s", error)
    return asked


def _on_this_shelf(settings: DeskSettings, repo: str) -> bool:
    try:
        return (clone_path(settings, repo) / ".git").exists()
    except DeskError:  # a name no clone can have
        return False
