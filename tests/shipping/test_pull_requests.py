"""Shipping as a pull request (`codedesk push --pr`): the exact SHA on a new branch of a bare
origin, the pull request opened through a fake `gh` on the worker's PATH, behind the approval."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from desk.config.settings import DeskSettings
from desk.holds.approvals import Decision
from desk.payloads.ship_payloads import PushStatus
from desk.records.repo_setup import SetRepoSetup
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.repo_setup_client import RepoSetupClient
from surfaces.clients.ship_client import ShippingClient
from surfaces.render.words.setup_lines import setup_lines
from tests.helpers.forge import fake_gh
from tests.helpers.jobs.shipping import (
    REPO,
    answer,
    approval_started,
    commit,
    owner_client,
    refs,
    result_of,
    withdraw,
)
from tests.helpers.repos import git
from tests.helpers.waiting import until


@pytest.fixture
def gh_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake `gh` first on the worker's PATH (the worker runs in this process); its state."""
    bin_dir, state = fake_gh(tmp_path)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return state


def calls(state: Path) -> list[dict[str, object]]:
    path = state / "calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def creates(state: Path) -> list[dict[str, object]]:
    return [call for call in calls(state) if call["args"][:2] == ["pr", "create"]]  # type: ignore[index]


async def test_an_approved_pull_request_pushes_the_sha_to_a_new_branch_and_opens_it(
    shipping: ShippingClient,
    settings: DeskSettings,
    clone: Path,
    origin: Path,
    gh_state: Path,
) -> None:
    head = commit(clone, "a.txt", "a\n", "add the a file")
    report = await shipping.change_report(REPO)
    handle, approval = await shipping.request_push(REPO, head, pull_request=True)
    await until(lambda: approval_started(shipping.client, approval), "the approval")
    [state] = [s for s in await ApprovalsClient(shipping.client).open_approvals()]
    branch = f"codedesk/{head[:12]}"
    assert state.request.tool == "pull request"
    assert state.request.input["pull_request_branch"] == branch
    assert (state.request.input["base"], state.request.input["title"]) == ("main", "add the a file")
    assert branch in state.request.action and "onto main" in state.request.action
    assert calls(gh_state) == [], "nothing is asked of the forge before the approval"
    await answer(shipping.client, approval, Decision.APPROVE, settings.owner)
    result = await result_of(handle)
    assert result.status == PushStatus.PUSHED, result
    assert (result.sha, result.branch) == (head, branch)
    assert result.pull_request_url == "https://github.com/acme/api/pull/1"
    assert refs(origin) == {
        "refs/heads/main": report.remote_tip,
        f"refs/heads/{branch}": head,
        "HEAD": "refs/heads/main",
    }
    [created] = creates(gh_state)
    args = created["args"]
    assert isinstance(args, list)
    assert args[args.index("--head") + 1] == branch and args[args.index("--base") + 1] == "main"
    assert created["head_sha"] == head and created["cwd"] == str(clone)
    body = created["body"]
    assert isinstance(body, str) and head in body and "add the a file" in body and "a.txt" in body
    assert not any("token" in str(arg).lower() for call in calls(gh_state) for arg in call["args"])  # type: ignore[union-attr]


@pytest.mark.parametrize("how", ["declined", "withdrawn"])
async def test_a_declined_or_withdrawn_pull_request_pushes_nothing_and_opens_nothing(
    shipping: ShippingClient,
    settings: DeskSettings,
    clone: Path,
    origin: Path,
    gh_state: Path,
    how: str,
) -> None:
    head = commit(clone, "a.txt", "a\n", "a")
    await shipping.change_report(REPO)
    before = refs(origin)
    handle, approval = await shipping.request_push(REPO, head, pull_request=True)
    if how == "declined":
        await answer(shipping.client, approval, Decision.DECLINE, settings.owner)
    else:
        await withdraw(shipping.client, approval)
    result = await result_of(handle)
    assert result.status == PushStatus(how) and "nothing was pushed" in result.reason
    assert refs(origin) == before
    assert calls(gh_state) == []


async def test_a_missing_gh_is_refused_before_anything_is_pushed(
    desk: DeskClient,
    settings: DeskSettings,
    clone: Path,
    origin: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without_gh = [d for d in os.environ["PATH"].split(os.pathsep) if not (Path(d) / "gh").exists()]
    monkeypatch.setenv("PATH", os.pathsep.join(without_gh))
    shipping = await owner_client(desk, settings, REPO)
    head = commit(clone, "a.txt", "a\n", "a")
    await shipping.change_report(REPO)
    before = refs(origin)
    handle, _ = await shipping.request_push(REPO, head, pull_request=True)
    result = await result_of(handle)
    assert result.status == PushStatus.REFUSED, result
    assert "gh (the GitHub CLI) is not on this worker's PATH" in result.reason
    assert "Nothing was pushed" in result.reason
    assert refs(origin) == before


async def test_a_logged_out_gh_is_refused_before_anything_is_pushed(
    desk: DeskClient, settings: DeskSettings, clone: Path, origin: Path, gh_state: Path
) -> None:
    (gh_state / "logged-out").touch()
    shipping = await owner_client(desk, settings, REPO)
    head = commit(clone, "a.txt", "a\n", "a")
    await shipping.change_report(REPO)
    before = refs(origin)
    handle, _ = await shipping.request_push(REPO, head, pull_request=True)
    result = await result_of(handle)
    assert result.status == PushStatus.REFUSED, result
    assert "gh is not logged in" in result.reason and "gh auth login" in result.reason
    assert refs(origin) == before
    assert creates(gh_state) == []


async def test_a_gh_that_dies_after_opening_the_pull_request_opens_it_once(
    desk: DeskClient, settings: DeskSettings, clone: Path, origin: Path, gh_state: Path
) -> None:
    (gh_state / "die-after-create").touch()
    shipping = await owner_client(desk, settings, REPO)
    head = commit(clone, "a.txt", "a\n", "a")
    await shipping.change_report(REPO)
    handle, _ = await shipping.request_push(REPO, head, pull_request=True)
    result = await result_of(handle)
    assert result.status == PushStatus.PUSHED, result
    assert result.pull_request_url == "https://github.com/acme/api/pull/1"
    assert result.already, "the retry found the branch pushed by the attempt before"
    assert len(creates(gh_state)) == 1
    assert json.loads((gh_state / "prs.json").read_text()).keys() == {f"codedesk/{head[:12]}"}


async def test_a_branch_of_that_name_at_another_commit_is_refused(
    desk: DeskClient, settings: DeskSettings, clone: Path, origin: Path, gh_state: Path
) -> None:
    shipping = await owner_client(desk, settings, REPO)
    head = commit(clone, "a.txt", "a\n", "a")
    await shipping.change_report(REPO)
    base = git(origin, "rev-parse", "main")
    git(origin, "update-ref", f"refs/heads/codedesk/{head[:12]}", base)
    handle, _ = await shipping.request_push(REPO, head, pull_request=True)
    result = await result_of(handle)
    assert result.status == PushStatus.REFUSED, result
    assert f"at {base[:12]}, not at {head[:12]}" in result.reason
    assert git(origin, "rev-parse", f"codedesk/{head[:12]}") == base
    assert creates(gh_state) == []


async def test_a_repository_set_to_ship_by_pull_request_ships_each_push_as_one(
    desk: DeskClient, settings: DeskSettings, clone: Path, origin: Path, gh_state: Path
) -> None:
    shipping = await owner_client(desk, settings, REPO)
    setups = RepoSetupClient(desk.client, settings)
    done = await setups.configure(SetRepoSetup(repo=REPO, pull_requests=True))
    assert done.pull_requests and "  ships:  as a pull request" in setup_lines(REPO, done)
    head = commit(clone, "a.txt", "a\n", "a")
    report = await shipping.change_report(REPO)
    handle, _ = await shipping.request_push(REPO, head)  # no --pr: the repository's setting
    result = await result_of(handle)
    assert result.status == PushStatus.PUSHED and result.pull_request_url, result
    assert git(origin, "rev-parse", "main") == report.remote_tip, "main is not pushed to"
    assert git(origin, "rev-parse", f"codedesk/{head[:12]}") == head
    undone = await setups.configure(SetRepoSetup(repo=REPO, pull_requests=False))
    assert not undone.pull_requests
