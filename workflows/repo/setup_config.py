"""The `Repo` entity's Update that keeps the owner's worktree set-up and check."""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from desk.errors import DeskError
    from desk.failures import failure_of
    from desk.names import SETUP_MEMO
    from desk.payloads.repo_setup import RepoSetup, SetRepoSetup
    from desk.payloads.repo_state import RepoState


SETUP_MEMO_PATCH = "setup-memo"
"""Patch: the entity's memo carries its set-up (`SETUP_MEMO`), for jobs to read cheaply."""


class KeepsSetup:
    """Mixed into `RepoEntity`: the set-up lives in its state, so it survives continue-as-new."""

    state: RepoState

    @workflow.update
    def configure_setup(self, change: SetRepoSetup) -> RepoSetup:
        """Apply the owner's change and return the set-up now in force."""
        self.state.setup = change.applied_to(self.state.setup)
        self._say_setup()
        return self.state.setup

    def _say_setup(self) -> None:
        """Keep the memo jobs read in step with the set-up (a describe, which the server
        answers alone, where the state's query needs a worker)."""
        if workflow.patched(SETUP_MEMO_PATCH):
            workflow.upsert_memo({SETUP_MEMO: self.state.setup.model_dump(mode="json")})

    @configure_setup.validator
    def _valid_setup(self, change: SetRepoSetup) -> None:
        try:
            change.applied_to(self.state.setup)
        except DeskError as error:
            raise failure_of(error) from None
