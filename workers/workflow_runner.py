"""How this worker runs workflow code: in Temporal's sandbox, with our own workflow modules shared.

The sandbox imports every module a new workflow uses afresh, unless it is passed through. Our
`workflows` package was the bulk of that: a new job's sandbox spent about 68 ms importing it
(and building the workflow definitions in it) on every job, an approval or an outbox as much
again. Passed through, the package is imported once per process and each new workflow's
sandbox costs about 1 ms (issue 32).

What that gives up: inside a passed-through module, the sandbox no longer intercepts a
non-deterministic call (reading the clock, the files, the environment) at run time. Our
workflow modules hold no state at module level and make no such call; the replay tests hold
them to that, replaying every recorded history under the strict, default sandbox. Everything
else a workflow imports, third-party or standard, stays behind the sandbox's restrictions.
"""

from __future__ import annotations

from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

SHARED_PACKAGES = ("workflows",)
"""Imported once per worker process and shared by every workflow's sandbox."""

WORKFLOW_RUNNER = SandboxedWorkflowRunner(
    restrictions=SandboxRestrictions.default.with_passthrough_modules(*SHARED_PACKAGES)
)
