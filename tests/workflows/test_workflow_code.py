"""A worker compiles each workflow module once, however many workflows its sandbox starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from temporalio.client import Client

from desk.config.settings import DeskSettings
from workers.worker import build_worker
from workers.workflow_code import WorkflowModules

TOP = Path(__file__).parents[2]

SANDBOXES = """
import asyncio, sys
from temporalio import workflow
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner
from workers.workflow_code import keep_workflow_code
if sys.argv[1] == "keep":
    keep_workflow_code()
from workflows.job.coding_job import CodingJob

compiled = []
sys.addaudithook(
    lambda event, args: event == "compile" and "workflows" in str(args[1]) and compiled.append(1)
)

async def main():
    runner = SandboxedWorkflowRunner()
    definition = workflow._Definition.from_class(CodingJob)
    runner.prepare_workflow(definition)  # the first sandbox compiles what it imports
    compiled.clear()
    runner.prepare_workflow(definition)
    runner.prepare_workflow(definition)
    print(len(compiled))

asyncio.run(main())
"""


def compiles_after_the_first(mode: str, cache: Path) -> int:
    """Workflow-module compilations of two more sandboxes, with no bytecode on disk to read."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", SANDBOXES, mode],
        cwd=TOP,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout.split()[-1])


def test_new_workflow_sandboxes_compile_no_workflow_module_again(tmp_path: Path) -> None:
    assert compiles_after_the_first("plain", tmp_path) > 0, "the check sees no compilation"
    assert compiles_after_the_first("keep", tmp_path) == 0


async def test_a_desk_worker_keeps_its_workflow_code(
    client: Client, settings: DeskSettings
) -> None:
    build_worker(client, settings)
    assert any(isinstance(finder, WorkflowModules) for finder in sys.meta_path)


DEFINITIONS = """
import asyncio
from temporalio import workflow
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner
from workflows.approval import Approval
from workflows.job.coding_job import CodingJob

built = []
apply_to_class = workflow._Definition._apply_to_class

def counted(cls, **options):
    built.append(cls.__name__)
    return apply_to_class(cls, **options)

async def main():
    workflow._Definition._apply_to_class = staticmethod(counted)
    runner = SandboxedWorkflowRunner()
    for started in (CodingJob, Approval):
        runner.prepare_workflow(workflow._Definition.from_class(started))
        print(started.__name__, *built)
        built.clear()

asyncio.run(main())
"""


def test_a_new_job_or_approval_builds_no_other_workflows_definition() -> None:
    # The sandbox runs every workflow module a new workflow imports afresh, and building a
    # definition is the dearest part: a job that imported `Repo`, `Outbox` and `Approval`
    # built all four in its first task (issue 13). They are asked by name instead.
    done = subprocess.run(
        [sys.executable, "-c", DEFINITIONS], cwd=TOP, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["CodingJob CodingJob", "Approval Approval"]
