"""What surfaces ask of a repository's worktree set-up: change it (the owner) and read it."""

from __future__ import annotations

from temporalio.client import (
    Client,
    WorkflowQueryFailedError,
    WorkflowUpdateFailedError,
)
from temporalio.service import RPCError, RPCStatusCode

from desk.config.settings import DeskSettings
from desk.errors import DeskError, ServerError
from desk.failures import error_of
from desk.names import repo_workflow_id
from desk.records.repo_setup import RepoSetup, SetRepoSetup
from desk.repo_names import parse_repo_name
from surfaces.clients.ship_client import QUERY_TIMEOUT, not_on_shelf, repo_entity_start
from workflows.repo.repo_entity import RepoEntity


class RepoSetupClient:
    def __init__(self, client: Client, settings: DeskSettings) -> None:
        self.client = client
        self.settings = settings

    async def configure(self, change: SetRepoSetup, host: str = "") -> RepoSetup:
        """Change the set-up in the repository's entity (started if it does not run yet); a
        repository on no shelf is refused before its entity could start."""
        name = str(parse_repo_name(change.repo))
        missing = await not_on_shelf(self.client, self.settings, name, "Nothing was set.")
        if missing is not None:
            raise missing
        start = repo_entity_start(name, host, self.settings.task_queue)
        try:
            return await self.client.execute_update_with_start_workflow(
                RepoEntity.configure_setup,
                change.model_copy(update={"repo": name}),
                start_workflow_operation=start,
            )
        except WorkflowUpdateFailedError as error:
            if (refused := error_of(error.cause)) is not None:
                raise refused from None
            raise DeskError(f"The set-up of {name} was not changed: {error.cause}.") from None

    async def setup_of(self, repo: str) -> RepoSetup:
        """The set-up in force for `repo` (empty when its entity never ran)."""
        name = str(parse_repo_name(repo))
        handle = self.client.get_workflow_handle_for(RepoEntity.run, repo_workflow_id(name))
        try:
            state = await handle.query(RepoEntity.current, rpc_timeout=QUERY_TIMEOUT)
        except RPCError as error:
            if error.status == RPCStatusCode.NOT_FOUND:
                return RepoSetup()
            raise ServerError(
                f"The set-up of {name} could not be read ({error}); is a worker running "
                "(`codedesk up`)?"
            ) from None
        except WorkflowQueryFailedError as error:
            raise ServerError(f"The set-up of {name} could not be read: {error}.") from None
        return state.setup
