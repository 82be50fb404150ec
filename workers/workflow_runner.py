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
"""

from __future__ import annotations

from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

SHARED_PACKAGES = ("workflows",)
"""Imported once per worker process and shared by every workflow's sandbox."""

WORKFLOW_RUNNER = SandboxedWorkflowRunner(
    restrictions=SandboxRestrictions.default.with_passthrough_modules(*SHARED_PACKAGES)
)
