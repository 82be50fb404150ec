"""The patch ledger (workflows/patches.py) against the code, git and the recorded histories.

Every `workflow.patched` and `workflow.deprecate_patch` in the workflows names a ledger entry,
by its constant, and every entry is asked, as its state says. Each entry's day and commit are
git's; each recording it names exists and, replayed, takes the patch's old branch; and no
recording takes an old branch the ledger does not know of.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from temporalio import workflow
from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from workers.worker import WORKFLOWS
from workers.workflow_runner import WORKFLOW_RUNNER
from workflows import patches
from workflows.patches import PATCHES, Patch, PatchState

TOP = Path(__file__).parents[2]
HISTORIES = TOP / "tests" / "histories"
WORKFLOW_IDS: dict[str, str] = json.loads((HISTORIES / "workflow_ids.json").read_text())
ASKS = {"patched": PatchState.ACTIVE, "deprecate_patch": PatchState.DEPRECATED}
PRODUCT = ("desk", "activities", "workflows", "workers", "surfaces")


@dataclass(frozen=True)
class Ask:
    """One `workflow.patched(...)` or `workflow.deprecate_patch(...)` in the code."""

    where: str
    how: str
    name: str


def asks_in_code() -> Iterator[Ask]:
    for path in sorted((TOP / "workflows").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            if node.func.attr not in ASKS or ast.unparse(node.func.value) != "workflow":
                continue
            where = f"{path.relative_to(TOP)}:{node.lineno}"
            argument = node.args[0] if node.args else None
            spelled = isinstance(argument, ast.Attribute) and ast.unparse(argument.value)
            if not isinstance(argument, ast.Attribute) or spelled != "patches":
                shown = ast.unparse(argument) if argument else "nothing"
                yield Ask(where, node.func.attr, f"<{shown}: not a constant of the ledger>")
                continue
            yield Ask(where, node.func.attr, getattr(patches, argument.attr, argument.attr))


def test_the_code_asks_patches_by_the_ledgers_constants() -> None:
    asks = list(asks_in_code())
    assert len(asks) > 20, "the check sees the asks"
    unknown = [ask for ask in asks if ask.name not in patches.BY_NAME]
    assert unknown == [], "asked, and not in workflows/patches.py"


def test_every_entry_is_asked_as_its_state_says() -> None:
    asks = list(asks_in_code())
    for patch in PATCHES:
        hows = {ask.how for ask in asks if ask.name == patch.name}
        assert hows, f"{patch.name} is in the ledger and asked nowhere: remove its entry"
        assert {ASKS[how] for how in hows} == {patch.state}, (patch.name, hows)


def test_no_patch_name_is_spelled_twice() -> None:
    """The ledger spells each name; every other module of the product takes its constant."""
    names = {patch.name for patch in PATCHES}
    ledger = TOP / "workflows" / "patches.py"
    spelled = [
        f"{path.relative_to(TOP)}:{node.lineno} {node.value}"
        for layer in PRODUCT
        for path in sorted((TOP / layer).rglob("*.py"))
        if path != ledger
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and node.value in names
    ]
    assert spelled == []
    assert len(names) == len(PATCHES), "an entry twice"


@pytest.mark.parametrize("patch", PATCHES, ids=lambda patch: patch.name)
def test_an_entry_says_what_it_guards_and_why_no_recording_or_why_retired(patch: Patch) -> None:
    assert patch.guards and patch.asked_by
    assert bool(patch.old_branch) != bool(patch.unrecorded), "a recording, or why there is none"
    if patch.state == PatchState.DEPRECATED:
        assert patch.retired and not patch.old_branch
    else:
        assert not patch.retired


def git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=TOP, capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 else ""


@pytest.mark.skipif(
    shutil.which("git") is None
    or not (TOP / ".git").exists()
    or git("rev-parse", "--is-shallow-repository") != "false",
    reason="the ledger's days and commits need the repository's whole history",
)
@pytest.mark.parametrize("patch", PATCHES, ids=lambda patch: patch.name)
def test_an_entry_came_when_git_says(patch: Patch) -> None:
    first = git(
        "log",
        f'-S"{patch.name}"',
        "--reverse",
        "--format=%h %ad",
        "--date=short",
        "--",
        "workflows",
    )
    commit, _, day = first.splitlines()[0].partition(" ") if first else ("", "", "")
    assert (patch.commit, patch.came) == (commit[: len(patch.commit)], day)


@dataclass
class Asked:
    """What one recording's replay asked: each patch, its answers, and the workflow type."""

    kind: str
    answers: dict[str, set[bool | None]]
    failure: str


async def replay_asking(paths: list[Path]) -> dict[str, Asked]:
    """Replay `paths` as the worker runs workflows, noting every patch asked and its answer
    (None: `deprecate_patch`, which has no answer). The worker's sandbox, not the strict one:
    tests/workflows/test_replay.py replays each recording under that already, and here the
    strict sandbox's fresh imports of our workflow modules cost half a second a recording."""
    heard: list[tuple[str, bool | None]] = []
    asked_patched: Callable[[str], bool] = workflow.patched
    deprecated: Callable[[str], None] = workflow.deprecate_patch

    def patched(name: str) -> bool:
        answer = asked_patched(name)
        heard.append((name, answer))
        return answer

    def deprecate_patch(name: str) -> None:
        heard.append((name, None))
        deprecated(name)

    found = {}
    # The workflows look both up on the module at each call, in the sandbox too.
    workflow.patched = patched
    workflow.deprecate_patch = deprecate_patch
    replayer = Replayer(
        workflows=list(WORKFLOWS),
        data_converter=pydantic_data_converter,
        workflow_runner=WORKFLOW_RUNNER,
    )
    try:
        for path in paths:
            heard.clear()
            history = WorkflowHistory.from_json(WORKFLOW_IDS[path.stem], path.read_text())
            result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
            started = json.loads(path.read_text())["events"][0]
            kind = started["workflowExecutionStartedEventAttributes"]["workflowType"]["name"]
            answers: dict[str, set[bool | None]] = {}
            for name, answer in heard:
                answers.setdefault(name, set()).add(answer)
            found[path.stem] = Asked(kind, answers, str(result.replay_failure or ""))
    finally:
        workflow.patched = asked_patched
        workflow.deprecate_patch = deprecated
    return found


@pytest.fixture(scope="module")
async def corpus() -> dict[str, Asked]:
    paths = sorted(path for path in HISTORIES.glob("*.json") if path.name != "workflow_ids.json")
    return await replay_asking(paths)


def test_each_named_recording_takes_its_patchs_old_branch(corpus: dict[str, Asked]) -> None:
    for patch in PATCHES:
        if patch.old_branch:
            asked = corpus.get(patch.old_branch)
            assert asked is not None, f"{patch.name}: no recording {patch.old_branch}"
            assert asked.failure == "", asked.failure
            assert asked.answers.get(patch.name) == {False}, (patch.name, asked.answers)


def test_no_recording_takes_an_old_branch_the_ledger_does_not_name(
    corpus: dict[str, Asked],
) -> None:
    """A recording that takes an old branch proves it replays: the entry names a recording (a
    deprecated patch can have none left that does, or they would fail)."""
    for stem, asked in corpus.items():
        for name, answers in asked.answers.items():
            patch = patches.BY_NAME[name]
            if False in answers:
                assert patch.state == PatchState.ACTIVE and patch.old_branch, (stem, name)


def test_each_patch_is_asked_only_by_the_workflows_its_entry_names(
    corpus: dict[str, Asked],
) -> None:
    """`codedesk patches` looks for a patch's old branch among these types only."""
    for stem, asked in corpus.items():
        for name in asked.answers:
            assert asked.kind in patches.BY_NAME[name].asked_by, (stem, name)


async def test_the_spy_sees_an_old_branch() -> None:
    """The check above is not vacuous: a recording from before a patch answers it False."""
    found = await replay_asking([HISTORIES / "desk.json"])
    assert found["desk"].answers[patches.ADMISSION_CHECK] == {False}
