"""New workflow sandboxes import none of our workflow modules again, and those keep no state."""

from __future__ import annotations

import ast
import dataclasses
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from temporalio.api.common.v1 import Payload
from temporalio.client import Client
from temporalio.converter import PayloadCodec
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner

from desk.config.settings import DeskSettings
from workers.temporal.client import DATA_CONVERTER
from workers.worker import build_worker
from workers.workflow_runner import WORKFLOW_RUNNER, CodecFreeSandboxedRunner, runner_for

TOP = Path(__file__).parents[2]

SANDBOXES = """
import asyncio, sys
from temporalio import workflow
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner
from workers.workflow_runner import WORKFLOW_RUNNER
from workflows.shipping.approval import Approval
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


MUTABLE_LITERALS = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)
IMMUTABLE_CALLS = {
    "timedelta",
    "TypeVar",
    "MappingProxyType",
    "frozenset",
    "tuple",
    "field",
    "PhaseTable",
}
"""What a module or class may hold made by a call: immutable values (`PhaseTable` is a frozen
dataclass of tuples and frozensets, workflows/job/record/phases.py), and `field` (a dataclass's
default, made again for each instance)."""
READ_ONLY_CONFIGS = {"ActivityConfig", "LocalActivityConfig", "RetryPolicy"}
"""Step options (workflows/policies.py): a dict or a dataclass, but only ever read, merged into
a new dict with `|` (the mutation check below fails for any write to them)."""
CACHES = {"cache", "lru_cache"}
MUTATORS = {"append", "extend", "insert", "pop", "popitem", "remove", "clear", "update", "add"}


def _top_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements run once per process: at module and class level, in any block there."""
    for node in body:
        if isinstance(node, ast.With | ast.If | ast.Try):
            yield from _top_statements(node.body)
            yield from _top_statements(node.orelse if not isinstance(node, ast.With) else [])
            for handler in node.handlers if isinstance(node, ast.Try) else []:
                yield from _top_statements(handler.body)
            yield from _top_statements(node.finalbody if isinstance(node, ast.Try) else [])
        elif isinstance(node, ast.ClassDef):
            yield from _top_statements(node.body)
        else:
            yield node


def _called(call: ast.Call) -> str:
    return call.func.id if isinstance(call.func, ast.Name) else ast.unparse(call.func)


def _shared_name(node: ast.expr) -> str:
    """The UPPER_CASE name a subscript or attribute chain starts from, or empty."""
    while isinstance(node, ast.Subscript | ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) and node.id.isupper() else ""


def module_state(tree: ast.Module) -> list[int]:
    """Lines of `tree` that make or change state every workflow of the process would share."""
    lines = []
    for node in _top_statements(tree.body):
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        if isinstance(node, ast.AugAssign) or isinstance(value, MUTABLE_LITERALS):
            lines.append(node.lineno)
        elif isinstance(value, ast.Call) and _called(value) not in IMMUTABLE_CALLS:
            if _called(value) not in READ_ONLY_CONFIGS:
                lines.append(node.lineno)
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            lines.append(node.lineno)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            defaults = [*node.args.defaults, *node.args.kw_defaults]
            if any(isinstance(default, MUTABLE_LITERALS) for default in defaults):
                lines.append(node.lineno)
            for decorator in node.decorator_list:
                called = decorator.func if isinstance(decorator, ast.Call) else decorator
                if ast.unparse(called).split(".")[-1] in CACHES:
                    lines.append(node.lineno)
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(
                isinstance(t, ast.Subscript | ast.Attribute) and _shared_name(t) for t in targets
            ):
                lines.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in MUTATORS and _shared_name(node.func.value):
                lines.append(node.lineno)
    return sorted(lines)


WORKFLOW_MODULES = sorted((TOP / "workflows").rglob("*.py"))


@pytest.mark.parametrize("module", WORKFLOW_MODULES, ids=lambda path: path.stem)
def test_a_shared_workflow_module_keeps_no_state(module: Path) -> None:
    # Passed through the sandbox, a module is one object for every workflow in the process: a
    # list or dict at its top would be shared by all jobs, and differ between a replay and the
    # run it replays.
    assert module_state(ast.parse(module.read_text())) == []


SHARED_STATE = """
import collections
SEEN = []
BY_JOB: dict[str, int] = dict()
with context():
    WAITING = collections.defaultdict(list)
class Job:
    runs = set()
def f(calls=[]):
    global SEEN
@functools.cache
def g():
    GIT_STEP["retry_policy"] = None
    GIT_RETRY.maximum_attempts = 1
    TABLE.update(a=1)
COUNT += 1
"""

QUIET = """
from types import MappingProxyType
STEP = ActivityConfig(start_to_close_timeout=timedelta(seconds=1))
TABLE = MappingProxyType({"a": 1})
T = TypeVar("T")
@dataclass
class State:
    calls: list[str] = field(default_factory=list)
    def add(self, call: str) -> None:
        self.calls.append(call)
        merged = STEP | {"summary": call}
"""


def test_the_state_check_sees_shared_state() -> None:
    assert module_state(ast.parse(SHARED_STATE)) == [3, 4, 6, 8, 9, 10, 12, 13, 14, 15, 16]
    assert module_state(ast.parse(QUIET)) == []


async def test_the_desk_worker_runs_its_workflows_with_the_shared_modules(
    client: Client, settings: DeskSettings
) -> None:
    workflows = build_worker(client, settings).workers[0]
    assert workflows.config()["workflow_runner"] is WORKFLOW_RUNNER


class Reversing(PayloadCodec):
    """A codec whose encoding a payload's context could change (this one ignores it)."""

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [Payload(metadata=p.metadata, data=p.data[::-1]) for p in payloads]

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return await self.encode(payloads)


def test_payload_contexts_are_skipped_only_where_nothing_would_read_them() -> None:
    """Without a codec or external storage a payload's context changes nothing, and the
    workflows are not asked it; with a codec they are, as Temporal's own sandbox asks."""
    assert isinstance(WORKFLOW_RUNNER, CodecFreeSandboxedRunner)
    coded = runner_for(dataclasses.replace(DATA_CONVERTER, payload_codec=Reversing()))
    assert type(coded) is SandboxedWorkflowRunner
    assert coded.restrictions == WORKFLOW_RUNNER.restrictions
