"""One failure vocabulary: every desk error has one wire name, its retryability is its class's,
the retry policies and the surfaces read them from the tree, and workflows catch by type."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from temporalio.client import WorkflowUpdateFailedError
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError, ApplicationErrorCategory

# Bound once, when the test is imported: a workflow sandbox (the replay tests in this process)
# may leave its own copy of desk.errors as the `desk` package's `errors` attribute.
import desk.errors as desk_errors
from desk.errors import (
    NON_RETRYABLE_ERROR_TYPES,
    DeskError,
    GitBusyError,
    RepoBusyError,
    desk_error_types,
    error_types,
)
from desk.failures import desk_failures, error_of, failure_of
from workflows.policies import AGENT_RETRY, GIT_RETRY, POLICY_READ_RETRY

TOP = Path(__file__).parents[2]

WIRE_NAMES_BEFORE = {
    # Sent by workflows before the tree named them; recorded histories and running deployments
    # carry them, so they are never renamed.
    "QueueFull": "QueueFullError",
    "JobExists": "JobExistsError",
    "ApprovalSettled": "ApprovalSettledError",
    "AdmissionCheckFailed": "AdmissionCheckFailedError",
    "ShipFailed": "ShipFailedError",
    "RepoBusy": "RepoBusyError",
    "RepoBusyWait": "RepoBusyWaitError",
    "StaleAgentAttempt": "StaleAgentAttemptError",
    "HostError": "HostError",
    "PolicyError": "PolicyError",
    "ModeRefusedError": "ModeRefusedError",
    # Sent by activities as their class names.
    "RepoBusyError": "RepoBusyError",
    "CloneMissingError": "CloneMissingError",
    "CloneExistsError": "CloneExistsError",
    "WorktreeDiscardedError": "WorktreeDiscardedError",
    "SandboxError": "SandboxError",
    "GitError": "GitError",
    "GitBusyError": "GitBusyError",
    "ShipRefusal": "ShipRefusal",
}

RETRYABLE = {
    "GitBusyError",
    "ForgeCallError",
    "ResultHookError",
    "RepoBusyWaitError",
    "StaleAgentAttemptError",
    "ServerError",
    "NoWorkerError",
    "DeskSilentError",
}


def test_every_desk_error_has_its_own_wire_names() -> None:
    names = [name for kind in desk_error_types() for name in (kind.wire, *kind.also)]
    assert len(names) == len(set(names)), sorted(names)
    assert set(error_types()) == set(names)
    assert {kind.__name__ for kind in desk_error_types()} == {
        name
        for name, value in vars(desk_errors).items()
        if isinstance(value, type) and issubclass(value, DeskError)
    }


def test_the_wire_names_sent_before_are_read_as_their_errors() -> None:
    known = error_types()
    assert {name: known[name].__name__ for name in WIRE_NAMES_BEFORE} == WIRE_NAMES_BEFORE


def test_the_retryable_errors_are_the_passing_ones() -> None:
    retried = {kind.__name__ for kind in desk_error_types() if kind.retryable}
    assert retried == RETRYABLE


@pytest.mark.parametrize("policy", [GIT_RETRY, AGENT_RETRY, POLICY_READ_RETRY])
def test_every_retry_policy_names_the_trees_non_retryable_errors(policy: RetryPolicy) -> None:
    names = {
        name
        for kind in desk_error_types()
        if not kind.retryable
        for name in (kind.wire, *kind.also)
    }
    assert set(NON_RETRYABLE_ERROR_TYPES) == names
    assert policy.non_retryable_error_types == list(NON_RETRYABLE_ERROR_TYPES)
    assert {"WorktreeDiscardedError", "SandboxError", "QueueFull", "RepoBusy"} <= names
    assert "GitBusyError" not in names


@pytest.mark.parametrize("kind", desk_error_types(), ids=lambda kind: kind.__name__)
def test_a_desk_error_crosses_the_wire_and_comes_back_as_itself(kind: type[DeskError]) -> None:
    failure = failure_of(kind("Something went wrong: do this instead."))
    assert failure.type == kind.wire
    assert failure.message == "Something went wrong: do this instead."
    assert failure.non_retryable is not kind.retryable
    benign = ApplicationErrorCategory.BENIGN
    assert (failure.category == benign) is kind.benign
    for name in (kind.wire, *kind.also):
        back = error_of(_update_failed(ApplicationError("msg", type=name)))
        assert type(back) is kind and str(back) == "msg"


def test_a_failure_of_no_desk_error_is_none_at_the_surface() -> None:
    assert error_of(ApplicationError("boom", type="ValueError")) is None
    assert error_of(ApplicationError("boom")) is None
    assert error_of(None) is None
    assert error_of(RuntimeError("no failure")) is None


def test_an_activity_boundary_sends_the_class_retryability() -> None:
    with pytest.raises(ApplicationError) as busy, desk_failures():
        raise GitBusyError("index.lock is held: retry.")
    assert busy.value.type == "GitBusyError" and not busy.value.non_retryable
    with pytest.raises(ApplicationError) as refused, desk_failures():
        raise RepoBusyError("A push runs.")
    assert refused.value.type == "RepoBusyError" and refused.value.non_retryable
    assert refused.value.category == ApplicationErrorCategory.BENIGN
    with pytest.raises(ValueError), desk_failures():
        raise ValueError("not a desk error: left to the retry policy")


def test_the_tree_drawn_in_the_docstring_is_the_tree() -> None:
    doc = desk_errors.__doc__ or ""
    drawn: dict[str, str] = {}
    for line in doc.splitlines():
        found = re.match(r"^[│├└─\s]*([A-Z]\w+)\s{2,}(.*?)\s*$", line)
        if found and found.group(1).endswith(("Error", "Refusal")):
            drawn[found.group(1)] = found.group(2)
    assert "\nDeskError\n├── " in doc
    kinds = {kind.__name__: kind for kind in desk_error_types() if kind is not DeskError}
    assert set(drawn) == set(kinds)
    for name, text in drawn.items():
        kind = kinds[name]
        assert text.endswith(" R") is kind.retryable, name
        assert text.endswith(" ~") is kind.benign, name
        if kind.wire != name:
            assert f'"{kind.wire}"' in text, name


def test_every_type_in_the_recorded_histories_is_a_desk_error() -> None:
    types: set[str] = set()
    for path in (TOP / "tests" / "histories").glob("*.json"):
        types |= set(_failure_types(json.loads(path.read_text())))
    assert types, "no recorded failure to check"
    assert types <= set(error_types()), types - set(error_types())


def _failure_types(node: object) -> Iterator[str]:
    if isinstance(node, dict):
        info = node.get("applicationFailureInfo")
        if isinstance(info, dict) and info.get("type"):
            yield str(info["type"])
        for value in node.values():
            yield from _failure_types(value)
    elif isinstance(node, list):
        for value in node:
            yield from _failure_types(value)


def _modules(*packages: str) -> Iterator[tuple[Path, ast.Module]]:
    for package in packages:
        for path in sorted((TOP / package).rglob("*.py")):
            yield path, ast.parse(path.read_text(), filename=str(path))


def test_no_workflow_catches_every_exception() -> None:
    broad = {"Exception", "BaseException"}
    found = []
    for path, tree in _modules("workflows"):
        for node in ast.walk(tree):
            if not isinstance(node, ast.ExceptHandler):
                continue
            caught = node.type
            names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
            if caught is None or any(isinstance(n, ast.Name) and n.id in broad for n in names):
                found.append(f"{path.relative_to(TOP)}:{node.lineno}")
    assert not found


def test_only_the_boundary_builds_application_errors() -> None:
    """A workflow or activity raises a desk error through `failure_of`, never a string type."""
    found = []
    for path, tree in _modules("workflows", "activities", "desk", "workers", "surfaces"):
        if path == TOP / "desk" / "failures.py":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "ApplicationError":
                found.append(f"{path.relative_to(TOP)}:{node.lineno}")
    assert not found


def _update_failed(cause: ApplicationError) -> WorkflowUpdateFailedError:
    """How a surface meets a refused Update: the desk's failure is the error's cause."""
    wrapper = ActivityError(
        "Activity task failed",
        scheduled_event_id=5,
        started_event_id=6,
        identity="worker",
        activity_type="change_report",
        activity_id="1",
        retry_state=None,
    )
    wrapper.__cause__ = cause
    return WorkflowUpdateFailedError(wrapper)
