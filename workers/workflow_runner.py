"""How this worker runs workflow code: in Temporal's sandbox, with our own workflow modules shared.

The sandbox imports every module a new workflow uses afresh, unless it is passed through. Our
`workflows` package was the bulk of that: a new job's sandbox spent about 68 ms importing it
(and building the workflow definitions in it) on every job, an approval or an outbox as much
again. Passed through, the package is imported once per process and each new workflow's
sandbox costs about 1 ms (issue 32).

What that gives up: every workflow class lives in a passed-through module, so at run time
the sandbox refuses almost nothing in workflow code: the `datetime`, `os`, `random` and `open`
it reaches are the real ones. Two things hold our workflow code to determinism instead. The
replay tests replay every recorded history under the strict, default sandbox, which imports
the modules afresh and refuses such calls on every path a recording takes; and a test keeps
the shared modules free of module-level state (tests/workflows/test_workflow_runner.py).

A codec-free worker asks its sandboxes nothing about payloads (`CodecFreeSandboxedRunner`).
"""

from __future__ import annotations

from dataclasses import dataclass

from temporalio.bridge.proto.workflow_activation import WorkflowActivation
from temporalio.bridge.proto.workflow_completion import WorkflowActivationCompletion
from temporalio.converter import DataConverter, SerializationContext, StorageDriverStoreContext
from temporalio.worker import WorkflowInstance, WorkflowInstanceDetails, WorkflowRunner
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions
from temporalio.workflow import Info

from workers.temporal.client import DATA_CONVERTER

SHARED_PACKAGES = ("workflows",)
"""Imported once per worker process and shared by every workflow's sandbox."""
RESTRICTIONS = SandboxRestrictions.default.with_passthrough_modules(*SHARED_PACKAGES)


class _NoPayloadContexts(WorkflowInstance):
    """A sandboxed workflow whose payloads need no serialization or storage context.

    Around every workflow task the worker passes each payload of the task and of its answer
    through the data converter's codec and external storage, six passes, and for each payload
    asks the workflow which context to encode it in. A sandboxed workflow answers by compiling
    and running a snippet of code inside its sandbox: about 40 ms of the worker's event loop per
    small job on this machine (`py-spy` over `bench/profile_job.py`, 2026-12-07), for payloads
    that a converter with neither a codec nor external storage returns as they are whatever the
    context. Asked of this instance, the context is none, without entering the sandbox; the
    workflow's own conversion of its arguments and results, inside the sandbox, is untouched.
    """

    def __init__(self, sandboxed: WorkflowInstance) -> None:
        self.sandboxed = sandboxed

    def activate(self, act: WorkflowActivation) -> WorkflowActivationCompletion:
        return self.sandboxed.activate(act)

    def get_serialization_context(self, command_info: object) -> SerializationContext | None:
        return None

    def get_external_store_context(self, command_info: object) -> StorageDriverStoreContext:
        return StorageDriverStoreContext()

    def get_info(self) -> Info:
        return self.sandboxed.get_info()

    def get_thread_id(self) -> int | None:
        return self.sandboxed.get_thread_id()


@dataclass(frozen=True)
class CodecFreeSandboxedRunner(SandboxedWorkflowRunner):
    """The sandbox, for a worker whose data converter has no codec and no external storage:
    its workflows are asked no payload contexts (`_NoPayloadContexts`)."""

    def create_instance(self, det: WorkflowInstanceDetails) -> WorkflowInstance:
        return _NoPayloadContexts(super().create_instance(det))


def runner_for(converter: DataConverter) -> WorkflowRunner:
    """The sandbox for workers of a client with `converter`: asked no payload contexts only
    where the contexts cannot change a payload (no codec, no external storage)."""
    if converter.payload_codec is None and converter.external_storage is None:
        return CodecFreeSandboxedRunner(restrictions=RESTRICTIONS)
    return SandboxedWorkflowRunner(restrictions=RESTRICTIONS)


WORKFLOW_RUNNER = runner_for(DATA_CONVERTER)
