"""The patch ledger as an operator sees it: which running workflows may still need a patch's old
branch, and which this version cannot replay.

A run that asked a patch on its new branch recorded a marker, and the Temporal SDK's core put
the patch's name in the run's `TemporalChangeVersion` search attribute (a keyword list) with
it. So a running workflow of a type that asks a patch, without the name there, may be on the old
branch: it passed the patch's point before the patch came, or it has not reached the point yet,
or its marker went unlisted (a list too long for the attribute). The listing cannot tell these
apart, so it lists them all: a patch retires only once no deployment lists any (one listing
call, however many patches). For a retired patch a listed run is a risk, so each is replayed
against this version's workflows: a run that fails is on the retired old branch (or another
change this version cannot replay) and will stop with a nondeterminism error on these workers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from temporalio.client import Client, WorkflowHistory
from temporalio.common import SearchAttributeKey
from temporalio.runtime import Runtime, TelemetryConfig
from temporalio.worker import Replayer

from workers.temporal.client import DATA_CONVERTER
from workers.worker import WORKFLOWS
from workers.workflow_runner import WORKFLOW_RUNNER
from workflows.patches import PATCHES, Patch, PatchState

CHANGE_VERSION = SearchAttributeKey.for_keyword_list("TemporalChangeVersion")
"""The patches a run asked on their new branch, as the SDK's core lists them."""


@dataclass(frozen=True)
class RunningWorkflow:
    """One running workflow, with the patches it has recorded."""

    workflow_id: str
    run_id: str
    kind: str
    recorded: frozenset[str]


@dataclass
class PatchStanding:
    """What the running workflows say of one patch."""

    patch: Patch
    may_need: list[RunningWorkflow] = field(default_factory=list)
    """Running workflows of a type that asks it, without its marker."""
    stuck: dict[str, str] = field(default_factory=dict)
    """For a retired patch: the workflow ids among `may_need` this version cannot replay, and
    why (the replay's failure)."""

    @property
    def can_retire(self) -> bool:
        """Whether no running workflow here may still need the old branch."""
        return not self.may_need


async def running_workflows(client: Client) -> list[RunningWorkflow]:
    """Every running workflow of a type that asks a patch, with the patches it recorded."""
    kinds = sorted({kind for patch in PATCHES for kind in patch.asked_by})
    listed = ", ".join(f"'{kind}'" for kind in kinds)
    query = f"ExecutionStatus = 'Running' AND WorkflowType IN ({listed})"
    found = []
    async for execution in client.list_workflows(query):
        recorded = execution.typed_search_attributes.get(CHANGE_VERSION) or []
        found.append(
            RunningWorkflow(
                workflow_id=execution.id,
                run_id=execution.run_id,
                kind=execution.workflow_type,
                recorded=frozenset(recorded),
            )
        )
    return sorted(found, key=lambda running: running.workflow_id)


async def patch_standings(client: Client) -> list[PatchStanding]:
    """Each patch of the ledger, oldest first, with the running workflows that may still need
    its old branch; a retired patch's are replayed against this version."""
    running = await running_workflows(client)
    standings = [PatchStanding(patch, _without(running, patch)) for patch in PATCHES]
    retired = {
        run.workflow_id: run
        for standing in standings
        if standing.patch.state == PatchState.DEPRECATED
        for run in standing.may_need
    }
    failures = await _replay_failures(client, list(retired.values()))
    for standing in standings:
        if standing.patch.state == PatchState.DEPRECATED:
            standing.stuck = {
                run.workflow_id: failures[run.workflow_id]
                for run in standing.may_need
                if run.workflow_id in failures
            }
    return standings


def _without(running: list[RunningWorkflow], patch: Patch) -> list[RunningWorkflow]:
    """The runs of a type that asks `patch` that have not recorded it."""
    return [run for run in running if run.kind in patch.asked_by and patch.name not in run.recorded]


async def _replay_failures(client: Client, runs: list[RunningWorkflow]) -> dict[str, str]:
    """The runs this version's workflows cannot replay, and why."""
    if not runs:
        return {}
    replayer = Replayer(
        workflows=list(WORKFLOWS),
        data_converter=DATA_CONVERTER,
        workflow_runner=WORKFLOW_RUNNER,
        # The core logs each failed replay as a warning on standard output; the failure is in
        # the answer, and `codedesk patches --json` prints nothing else there.
        runtime=Runtime(telemetry=TelemetryConfig(logging=None)),
    )
    failures = {}
    for run in runs:
        handle = client.get_workflow_handle(run.workflow_id, run_id=run.run_id)
        history: WorkflowHistory = await handle.fetch_history()
        result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
        if result.replay_failure is not None:
            failures[run.workflow_id] = str(result.replay_failure)
    return failures
