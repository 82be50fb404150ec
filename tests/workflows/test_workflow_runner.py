"""New workflow sandboxes import none of our workflow modules again, and those keep no state."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

TOP = Path(__file__).parents[2]

SANDBOXES = """
import asyncio, sys
from temporalio import workflow
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner
from workers.workflow_runner import WORKFLOW_RUNNER
from workflows.approval import Approval
from workflows.job.coding_job import CodingJob

runner = WORKFLOW_RUNNER if sys.argv[1] == "ours" else SandboxedWorkflowRunner()
imported = []
sys.addaudithook(
    lambda event, args: event == "exec" and "/workflows/" in args[0].co_filename
    and imported.append(args[0].co_filename)
)

async def main():
    for started in (CodingJob, Approval):
        runner.prepare_workflow(workflow._Definition.from_class(started))
    imported.clear()
    for started in (CodingJob, Approval, CodingJob):
        runner.prepare_workflow(workflow._Definition.from_class(started))
    print(len(imported))

asyncio.run(main())
"""


def imports_after_the_first(runner: str) -> int:
    """How many `workflows` modules three more sandboxes run, after one of each kind."""
    done = subprocess.run(
        [sys.executable, "-c", SANDBOXES, runner],
        cwd=TOP,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout.split()[-1])


def test_a_new_job_or_approval_imports_no_workflow_module_again() -> None:
    assert imports_after_the_first("default") > 0, "the check sees no import"
    assert imports_after_the_first("ours") == 0


MUTABLE_CALLS = {"list", "dict", "set", "defaultdict", "deque", "Counter", "OrderedDict"}
MUTABLE_LITERALS = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)


def module_state(tree: ast.Module) -> list[int]:
    """Lines of `tree` that make state every workflow of the process would share."""
    lines = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Global)]
    for node in tree.body:
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        if isinstance(value, MUTABLE_LITERALS):
            lines.append(node.lineno)
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            if value.func.id in MUTABLE_CALLS:
                lines.append(node.lineno)
    return lines


WORKFLOW_MODULES = sorted((TOP / "workflows").rglob("*.py"))


@pytest.mark.parametrize("module", WORKFLOW_MODULES, ids=lambda path: path.stem)
def test_a_shared_workflow_module_keeps_no_state(module: Path) -> None:
    # Passed through the sandbox, a module is one object for every workflow in the process: a
    # list or dict at its top would be shared by all jobs, and differ between a replay and the
    # run it replays.
    assert module_state(ast.parse(module.read_text())) == []


def test_the_state_check_sees_shared_state() -> None:
    shared = ast.parse(
        "import x\nSEEN = []\nBY_JOB: dict[str, int] = dict()\ndef f():\n global SEEN\n"
    )
    assert module_state(shared) == [5, 2, 3]
