"""Shipping against temporary bare origins: reports, pushes, refusals and the clone's lock."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from temporalio import activity
from temporalio.client import Client
from temporalio.worker import Worker

from desk.config.settings import DeskSettings
from desk.errors import CloneMissingError, RemoteUrlError, RepoBusyError, ShaError, ShipRefusal
from desk.holds.approvals import Decision, Principal
from desk.names import host_task_queue, repo_workflow_id
from desk.payloads.jobs import IntegrationRequest, IntegrationResult, IntegrationStatus, Worktree
from desk.payloads.repo_state import RepoState
from desk.payloads.ship_payloads import ChangeReport, PushResult, PushStatus
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.ship_client import ShippingClient
from tests.helpers.jobs.shipping import (
    REPO,
    TOKEN,
    answer,
    approval_started,
    commit,
    owner_client,
    refs,
    result_of,
    slow_origin,
    withdraw,
)
from tests.helpers.repos import git
from tests.helpers.waiting import awaited, until
from workers.desk_handle import configure_desk
from workers.worker import WORKFLOWS, activities_for
from workers.workflow_runner import WORKFLOW_RUNNER
from workflows.repo.repo_entity import RepoEntity


@contextlib.contextmanager
def listener() -> Iterator[tuple[int, list[object]]]:
    """A TCP port on 127.0.0.1 that counts every connection made to it (read on exit)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    accepted: list[object] = []
    try:
        yield server.getsockname()[1], accepted
    finally:
        with contextlib.suppress(BlockingIOError):
            while True:
                conn, peer = server.accept()
                accepted.append(peer)
                conn.close()
        server.close()


# --- the change report ----------------------------------------------------------------------


async def test_report_names_head_branch_destination_commits_and_files(
    shipping: ShippingClient, clone: Path, origin: Path
) -> None:
    before = git(origin, "rev-parse", "main")
    (clone / "README.md").write_text("# sample\nmore\nlines\n")
    first = commit(clone, "src/app.py", "a\nb\n", "add app")
    head = commit(clone, "README.md", "# changed\n", "edit readme")
    report = await shipping.change_report(REPO)
    assert report.repo == REPO
    assert report.head == head and len(report.head) == 40
    assert report.default_branch == "main"
    assert report.destination == str(origin)
    assert "@" not in report.destination
    assert report.remote_tip == before
    assert [(c.sha, c.subject) for c in report.commits] == [
        (first, "add app"),
        (head, "edit readme"),
    ]
    files = {f.path: (f.added, f.deleted) for f in report.files}
    assert files == {"src/app.py": (2, 0), "README.md": (1, 1)}
    assert report.commits_omitted == 0 and report.files_omitted == 0
    kept = await shipping.receipt(REPO, head)
    assert kept == report
    assert git(origin, "rev-parse", "main") == before, "a report pushes nothing"


async def test_report_caps_commits_and_files(
    desk: DeskClient, settings: DeskSettings, clone: Path
) -> None:
    for number in range(3):
        commit(clone, f"f{number}.txt", "x\n", f"c{number}")
    capped = settings.model_copy(update={"report_commits": 2, "report_files": 1})
    report = await ShippingClient(desk.client, capped).change_report(REPO)
    assert [c.subject for c in report.commits] == ["c0", "c1"]
    assert report.commits_omitted == 1
    assert len(report.files) == 1 and report.files_omitted == 2


async def test_report_refuses_a_dirty_clone(shipping: ShippingClient, clone: Path) -> None:
    commit(clone, "a.txt", "a\n", "a")
    (clone / "stray.txt").write_text("not committed\n")
    with pytest.raises(ShipRefusal, match=r"uncommitted changes \(stray.txt\)"):
        await shipping.change_report(REPO)


async def test_report_refuses_nothing_ahead(shipping: ShippingClient, clone: Path) -> None:
    with pytest.raises(ShipRefusal, match="Nothing to ship"):
        await shipping.change_report(REPO)


async def test_report_refuses_a_clone_missing_origin_commits(
    shipping: ShippingClient, clone: Path, origin: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    git(tmp_path, "clone", "--quiet", str(origin), str(other))
    commit(other, "theirs.txt", "theirs\n", "theirs")
    git(other, "push", "--quiet", "origin", "HEAD:main")
    commit(clone, "ours.txt", "ours\n", "ours")
    with pytest.raises(ShipRefusal, match=r"missing 1 commit\(s\) of origin/main"):
        await shipping.change_report(REPO)


@pytest.mark.parametrize(
    ("url", "words"),
    [
        (f"https://user:{TOKEN}@127.0.0.1:{{port}}/x.git", "password in its user info"),
        (f"https://{TOKEN}@127.0.0.1:{{port}}/x.git", "has user info"),
        (f"https://127.0.0.1:{{port}}/x.git?access_token={TOKEN}", "query"),
        (f"https://127.0.0.1:{{port}}/x.git#{TOKEN}", "fragment"),
    ],
    ids=["password", "user", "query", "fragment"],
)
async def test_report_refuses_a_credential_url_before_any_fetch(
    shipping: ShippingClient, clone: Path, url: str, words: str
) -> None:
    commit(clone, "a.txt", "a\n", "a")
    with listener() as (port, accepted):
        git(clone, "remote", "set-url", "origin", url.format(port=port))
        with pytest.raises(RemoteUrlError) as refused:
            await shipping.change_report(REPO)
    message = str(refused.value)
    assert words in message, message
    assert TOKEN not in message, message
    assert message.startswith("The clone's origin URL"), message
    assert accepted == [], "git reached the network before the URL was checked"
    history = await shipping.client.get_workflow_handle(repo_workflow_id(REPO)).fetch_history()
    assert TOKEN not in history.to_json()


async def test_report_refuses_a_second_push_url(
    shipping: ShippingClient, clone: Path, origin: Path, tmp_path: Path
) -> None:
    commit(clone, "a.txt", "a\n", "a")
    mirror = tmp_path / "mirror.git"
    git(tmp_path, "clone", "--quiet", "--bare", str(origin), str(mirror))
    git(clone, "remote", "set-url", "--add", "--push", "origin", str(origin))
    git(clone, "remote", "set-url", "--add", "--push", "origin", str(mirror))
    with pytest.raises(ShipRefusal, match="origin has 2 push URLs"):
        await shipping.change_report(REPO)


async def test_report_of_a_repository_not_on_the_shelf(
    desk: DeskClient, shipping: ShippingClient
) -> None:
    with pytest.raises(CloneMissingError) as refused:
        await shipping.change_report("acme/none")
    assert "codedesk repo add acme/none" in str(refused.value)


# --- the push -------------------------------------------------------------------------------


async def test_approved_push_lands_exactly_the_reported_sha(
    shipping: ShippingClient, settings: DeskSettings, clone: Path, origin: Path
) -> None:
    head = commit(clone, "a.txt", "a\n", "a")
    report = await shipping.change_report(REPO)
    commit(clone, "b.txt", "b\n", "b")
    git(clone, "reset", "--quiet", "--hard", head)  # HEAD is back at the reported SHA
    handle, approval = await shipping.request_push(REPO, report.head.upper())
    assert approval.startswith("approval-")
    await until(lambda: approval_started(shipping.client, approval), "the approval")
    assert git(origin, "rev-parse", "main") == report.remote_tip, "nothing before approval"
    await answer(shipping.client, approval, Decision.APPROVE, settings.owner)
    result = await result_of(handle)
    assert result.status == PushStatus.PUSHED, result
    assert (result.sha, result.branch, result.destination) == (head, "main", str(origin))
    assert result.approval_id == approval and not result.already
    assert result.approved_by == settings.owner
    assert refs(origin) == {"refs/heads/main": head, "HEAD": "refs/heads/main"}
    assert await shipping.push_running(REPO) == ""


@pytest.mark.parametrize("how", ["declined", "withdrawn"])
async def test_declined_or_withdrawn_push_changes_nothing(
    shipping: ShippingClient, settings: DeskSettings, clone: Path, origin: Path, how: str
) -> None:
    head = commit(clone, "a.txt", "a\n", "a")
    await shipping.change_report(REPO)
    before = refs(origin)
    handle, approval = await shipping.request_push(REPO, head)
    if how == "declined":
        await answer(shipping.client, approval, Decision.DECLINE, settings.owner)
    else:
        await withdraw(shipping.client, approval)
    result = await result_of(handle)
    assert result.status == PushStatus(how), result
    assert "nothing was pushed" in result.reason
    assert refs(origin) == before
    assert git(clone, "rev-parse", "HEAD") == head


async def test_someone_who_may_not_approve_changes_nothing(
    shipping: ShippingClient, settings: DeskSettings, clone: Path, origin: Path
) -> None:
    head = commit(clone, "a.txt", "a\n", "a")
    await shipping.change_report(REPO)
    before = refs(origin)
    handle, approval = await shipping.request_push(REPO, head)
    await until(lambda: approval_started(shipping.client, approval), "the approval")
    approvals = ApprovalsClient(shipping.client)
    result, _ = await approvals.answer(approval, Decision.APPROVE, Principal(id="local:mallory"))
    assert not result.counted, result
    await approvals.withdraw(approval, "test over", "test")
    assert (await result_of(handle)).status == PushStatus.WITHDRAWN
    assert refs(origin) == before


async def test_owner_repository_skips_the_hold(
    desk: DeskClient, settings: DeskSettings, clone: Path, origin: Path
) -> None:
    shipping = await owner_client(desk, settings, REPO)
    head = commit(clone, "a.txt", "a\n", "a")
    await shipping.change_report(REPO)
    handle, approval = await shipping.request_push(REPO, head)
    assert approval == ""
    result = await result_of(handle)
    assert result.status == PushStatus.PUSHED, result
    assert result.approval_id == "" and result.approved_by == ""
    assert git(origin, "rev-parse", "main") == head


@pytest.mark.parametrize(
    "listed",
    [["acme/api2"], ["acme"], ["acme/"], ["acme/ap"], ["acme/*"], ["*"], ["other/api"]],
    ids=str,
)
async def test_only_the_exact_owner_repository_skips_the_hold(
    desk: DeskClient, settings: DeskSettings, clone: Path, origin: Path, listed: list[str]
) -> None:
    shipping = await owner_client(desk, settings, *listed)
    head = commit(clone, "a.txt", "a\n", "a")
    await shipping.change_report(REPO)
    before = refs(origin)
    handle, approval = await shipping.request_push(REPO, head)
    assert approval.startswith("approval-"), listed
    await withdraw(shipping.client, approval)
    assert (await result_of(handle)).status == PushStatus.WITHDRAWN
    assert refs(origin) == before


async def test_short_or_malformed_sha_is_refused(shipping: ShippingClient, clone: Path) -> None:
    head = commit(clone, "a.txt", "a\n", "a")
    await shipping.change_report(REPO)
    for given in (head[:7], head[:39], head + "0", "g" * 40, ""):
        with pytest.raises(ShaError, match="full commit SHA"):
            await shipping.request_push(REPO, given)
    assert await _no_ships(shipping.client)


async def _no_ships(client: Client) -> bool:
    return [item.id async for item in client.list_workflows("WorkflowType = 'Ship'")] == []


async def test_push_without_a_receipt_is_refused(
    shipping: ShippingClient, clone: Path, origin: Path
) -> None:
    reported = commit(clone, "a.txt", "a\n", "a")
    with pytest.raises(ShipRefusal, match="no change report"):
        await shipping.request_push(REPO, reported)  # the entity does not exist yet
    await shipping.change_report(REPO)
    unreported = commit(clone, "b.txt", "b\n", "b")
    with pytest.raises(ShipRefusal, match=f"no change report of {unreported}"):
        await shipping.request_push(REPO, unreported)
    assert await _no_ships(shipping.client)
    assert git(origin, "rev-parse", "main") != reported


async def _push_refused(
    shipping: ShippingClient, head: str, origin: Path, before: dict[str, str]
) -> PushResult:
    handle, approval = await shipping.request_push(REPO, head)
    assert approval == "", "these tests use an owner repository"
    result = await result_of(handle)
    assert result.status == PushStatus.REFUSED, result
    assert refs(origin) == before
    return result


@pytest.fixture
async def owner_shipping(desk: DeskClient, settings: DeskSettings) -> ShippingClient:
    return await owner_client(desk, settings, REPO)


async def test_push_refused_when_head_moved_after_the_report(
    owner_shipping: ShippingClient, clone: Path, origin: Path
) -> None:
    head = commit(clone, "a.txt", "a\n", "a")
    await owner_shipping.change_report(REPO)
    moved = commit(clone, "b.txt", "b\n", "b")
    result = await _push_refused(owner_shipping, head, origin, refs(origin))
    # Read before anything else: the clone's HEAD is not the SHA (the push's own check under
    # the lock says "HEAD is no longer": tests/shipping/test_ship_cli.py, approved late).
    assert f"The clone of {REPO} is at {moved}, not {head}" in result.reason, result


async def test_push_refused_when_the_clone_is_dirty(
    owner_shipping: ShippingClient, clone: Path, origin: Path
) -> None:
    head = commit(clone, "a.txt", "a\n", "a")
    await owner_shipping.change_report(REPO)
    (clone / "a.txt").write_text("changed\n")
    result = await _push_refused(owner_shipping, head, origin, refs(origin))
    assert "uncommitted changes" in result.reason


async def test_push_refused_when_the_remote_default_branch_changed(
    owner_shipping: ShippingClient, clone: Path, origin: Path
) -> None:
    head = commit(clone, "a.txt", "a\n", "a")
    await owner_shipping.change_report(REPO)
    git(origin, "branch", "trunk", "main")
    git(origin, "symbolic-ref", "HEAD", "refs/heads/trunk")
    result = await _push_refused(owner_shipping, head, origin, refs(origin))
    assert "default branch is no longer main" in result.reason


async def test_report_follows_the_remote_default_branch(
    owner_shipping: ShippingClient, clone: Path, origin: Path
) -> None:
    commit(clone, "a.txt", "a\n", "a")
    git(origin, "branch", "trunk", "main")
    git(origin, "symbolic-ref", "HEAD", "refs/heads/trunk")
    report = await owner_shipping.change_report(REPO)
    assert report.default_branch == "trunk"


async def test_push_refused_when_the_destination_changed(
    owner_shipping: ShippingClient, clone: Path, origin: Path, tmp_path: Path
) -> None:
    head = commit(clone, "a.txt", "a\n", "a")
    await owner_shipping.change_report(REPO)
    elsewhere = tmp_path / "elsewhere.git"
    git(tmp_path, "clone", "--quiet", "--bare", str(origin), str(elsewhere))
    git(clone, "remote", "set-url", "origin", str(elsewhere))
    before = refs(elsewhere)
    result = await _push_refused(owner_shipping, head, origin, refs(origin))
    assert f"destination changed from {origin} to {elsewhere}" in result.reason
    assert refs(elsewhere) == before


async def test_push_refused_when_a_new_destination_already_has_the_sha(
    owner_shipping: ShippingClient, clone: Path, origin: Path, tmp_path: Path
) -> None:
    """Not 'pushed (the remote already had it)': the reported destination does not have it."""
    head = commit(clone, "a.txt", "a\n", "a")
    await owner_shipping.change_report(REPO)
    elsewhere = tmp_path / "elsewhere.git"
    git(tmp_path, "clone", "--quiet", "--bare", str(origin), str(elsewhere))
    git(clone, "push", "--quiet", str(elsewhere), "HEAD:main")
    git(clone, "remote", "set-url", "origin", str(elsewhere))
    result = await _push_refused(owner_shipping, head, origin, refs(origin))
    assert "destination changed" in result.reason


@pytest.mark.parametrize("pushurls", [1, 2])
async def test_push_refused_when_push_urls_were_added(
    owner_shipping: ShippingClient, clone: Path, origin: Path, tmp_path: Path, pushurls: int
) -> None:
    head = commit(clone, "a.txt", "a\n", "a")
    await owner_shipping.change_report(REPO)
    mirror = tmp_path / "mirror.git"
    git(tmp_path, "clone", "--quiet", "--bare", str(origin), str(mirror))
    if pushurls == 2:
        git(clone, "remote", "set-url", "--add", "--push", "origin", str(origin))
    git(clone, "remote", "set-url", "--add", "--push", "origin", str(mirror))
    before = refs(mirror)
    result = await _push_refused(owner_shipping, head, origin, refs(origin))
    expected = "destination changed" if pushurls == 1 else "origin has 2 push URLs"
    assert expected in result.reason, result
    assert refs(mirror) == before


async def test_push_refused_when_the_url_gained_credentials(
    owner_shipping: ShippingClient, clone: Path, origin: Path
) -> None:
    head = commit(clone, "a.txt", "a\n", "a")
    await owner_shipping.change_report(REPO)
    with listener() as (port, accepted):
        git(clone, "remote", "set-url", "origin", f"https://u:{TOKEN}@127.0.0.1:{port}/x.git")
        result = await _push_refused(owner_shipping, head, origin, refs(origin))
    assert "user info" in result.reason and TOKEN not in result.reason, result
    assert result.reason.startswith("The clone's origin URL"), result.reason
    assert "Clone source" not in result.reason and "git remote set-url" in result.reason
    assert accepted == []


async def test_push_refused_as_non_fast_forward_when_the_remote_moved(
    owner_shipping: ShippingClient, clone: Path, origin: Path, tmp_path: Path
) -> None:
    head = commit(clone, "a.txt", "a\n", "a")
    await owner_shipping.change_report(REPO)
    other = tmp_path / "other"
    git(tmp_path, "clone", "--quiet", str(origin), str(other))
    theirs = commit(other, "theirs.txt", "theirs\n", "theirs")
    git(other, "push", "--quiet", "origin", "HEAD:main")
    result = await _push_refused(owner_shipping, head, origin, refs(origin))
    assert "fast-forward" in result.reason
    assert git(origin, "rev-parse", "main") == theirs


async def test_push_refused_after_approval_when_head_moved_meanwhile(
    shipping: ShippingClient, settings: DeskSettings, clone: Path, origin: Path
) -> None:
    """The checks run after the approval: what the owner approved must still be what ships."""
    head = commit(clone, "a.txt", "a\n", "a")
    await shipping.change_report(REPO)
    before = refs(origin)
    handle, approval = await shipping.request_push(REPO, head)
    await until(lambda: approval_started(shipping.client, approval), "the approval")
    commit(clone, "b.txt", "b\n", "b")
    await answer(shipping.client, approval, Decision.APPROVE, settings.owner)
    result = await result_of(handle)
    assert result.status == PushStatus.REFUSED and "HEAD is no longer" in result.reason
    assert refs(origin) == before


async def test_a_refused_push_can_be_retried_once_fixed(
    owner_shipping: ShippingClient, clone: Path, origin: Path
) -> None:
    head = commit(clone, "a.txt", "a\n", "a")
    await owner_shipping.change_report(REPO)
    (clone / "stray.txt").write_text("x")
    await _push_refused(owner_shipping, head, origin, refs(origin))
    (clone / "stray.txt").unlink()
    handle, _ = await owner_shipping.request_push(REPO, head)
    assert (await result_of(handle)).status == PushStatus.PUSHED
    assert git(origin, "rev-parse", "main") == head


# --- serialization --------------------------------------------------------------------------


async def test_concurrent_reports_one_is_refused_as_busy(
    shipping: ShippingClient, clone: Path, tmp_path: Path
) -> None:
    """A report asked while another is being made is refused as busy. The moment is made: the
    clone fetches through an upload-pack that waits for a gate, so the first report is still
    being made when the second is asked."""
    commit(clone, "a.txt", "a\n", "a")
    await shipping.change_report(REPO)  # the entity exists: both updates reach one run
    fetching, gate = tmp_path / "fetching", tmp_path / "gate"
    upload_pack = tmp_path / "gated-upload-pack"
    upload_pack.write_text(
        "#!/bin/sh\n"
        f"touch '{fetching}'\n"
        f"while [ ! -e '{gate}' ]; do sleep 0.05; done\n"
        'exec git upload-pack "$@"\n'
    )
    upload_pack.chmod(0o755)
    git(clone, "config", "remote.origin.uploadpack", str(upload_pack))
    for _ in range(2):
        fetching.unlink(missing_ok=True)
        gate.unlink(missing_ok=True)
        first = asyncio.create_task(shipping.change_report(REPO))
        await until(fetching.exists, "the first report's fetch")
        with pytest.raises(RepoBusyError, match="a change report is being made"):
            await shipping.change_report(REPO)
        gate.touch()
        made = await awaited(first, "the first report")
        assert isinstance(made, ChangeReport) and made.head == git(clone, "rev-parse", "HEAD")


@pytest.fixture
def gated_push(clone: Path, origin: Path, tmp_path: Path) -> tuple[Path, Path]:
    marker, gate = tmp_path / "pushes.log", tmp_path / "gate"
    slow_origin(origin, marker, gate)
    return marker, gate


async def test_while_a_push_runs_reports_pushes_and_new_tasks_are_refused(
    desk: DeskClient,
    owner_shipping: ShippingClient,
    clone: Path,
    origin: Path,
    gated_push: tuple[Path, Path],
) -> None:
    marker, gate = gated_push
    first = commit(clone, "a.txt", "a\n", "a")
    await owner_shipping.change_report(REPO)
    second = commit(clone, "b.txt", "b\n", "b")
    await owner_shipping.change_report(REPO)
    git(clone, "reset", "--quiet", "--hard", first)
    handle, _ = await owner_shipping.request_push(REPO, first)
    try:
        await until(marker.exists, "the push to reach the origin")
        assert await owner_shipping.push_running(REPO) == first

        with pytest.raises(RepoBusyError, match=f"a push of {first[:12]} runs"):
            await owner_shipping.change_report(REPO)

        with pytest.raises(RepoBusyError, match=f"A push of {first[:12]} to {REPO} runs"):
            await desk.submit_job(REPO, "more work")

        git(clone, "reset", "--quiet", "--hard", second)
        other, _ = await owner_shipping.request_push(REPO, second)
        refused = await result_of(other)
        assert refused.status == PushStatus.REFUSED, refused
        assert f"{REPO} is busy: a push of {first[:12]} runs" in refused.reason

        with pytest.raises(RepoBusyError, match=f"A push of {first} to {REPO} was already"):
            await owner_shipping.request_push(REPO, first)  # the same push, again
    finally:
        gate.touch()
    result = await result_of(handle)
    assert result.status == PushStatus.PUSHED, result
    assert marker.read_text().splitlines() == ["pushed"]
    assert git(origin, "rev-parse", "main") == first
    assert await owner_shipping.push_running(REPO) == ""


SLOW_INTEGRATION = asyncio.Event()
INTEGRATING = asyncio.Event()


@activity.defn(name="integrate")
async def slow_integrate(request: IntegrationRequest) -> IntegrationResult:
    """Stands in for the real integration: holds the clone's lock until the test lets go."""
    INTEGRATING.set()
    await SLOW_INTEGRATION.wait()
    return IntegrationResult(status=IntegrationStatus.NOTHING)


@pytest.fixture
async def slow_integrations(
    client: Client, settings: DeskSettings, origin: Path
) -> AsyncIterator[DeskClient]:
    """A desk whose `integrate` activity waits for SLOW_INTEGRATION."""
    SLOW_INTEGRATION.clear()
    INTEGRATING.clear()
    real = [a for a in activities_for(client, settings) if a.__name__ != "integrate"]
    host_queue = host_task_queue(settings.task_queue, settings.host)
    async with (
        Worker(
            client,
            task_queue=settings.task_queue,
            workflows=list(WORKFLOWS),
            workflow_runner=WORKFLOW_RUNNER,
            activities=[*real, slow_integrate],
        ),
        Worker(client, task_queue=host_queue, activities=[*real, slow_integrate]),
    ):
        await configure_desk(client, settings)
        desk = DeskClient(client, settings)
        await desk.add_repo(REPO, str(origin))
        yield desk
        SLOW_INTEGRATION.set()


async def test_reports_and_pushes_refused_while_an_integration_changes_the_clone(
    slow_integrations: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    desk = slow_integrations
    clone = settings.shelf_dir / "acme" / "api"
    shipping = await owner_client(desk, settings, REPO)
    head = commit(clone, "a.txt", "a\n", "a")
    await shipping.change_report(REPO)
    entity = desk.client.get_workflow_handle_for(RepoEntity.run, repo_workflow_id(REPO))
    job = f"job-gone-{uuid.uuid4().hex[:6]}"
    await entity.signal(
        RepoEntity.request_integration,
        IntegrationRequest(
            job_workflow_id=job,
            number=999,
            repo=REPO,
            worktree=Worktree(path=str(clone), branch="worker/999", base=head),
        ),
    )
    await awaited(INTEGRATING.wait(), "the integration to begin")

    with pytest.raises(RepoBusyError, match=f"the integration of {job} is changing the clone"):
        await shipping.change_report(REPO)
    handle, _ = await shipping.request_push(REPO, head)
    refused = await result_of(handle)
    assert refused.status == PushStatus.REFUSED, refused
    assert f"the integration of {job}" in refused.reason
    assert git(origin, "rev-parse", "main") != head

    SLOW_INTEGRATION.set()

    async def integrated() -> bool:
        state: RepoState = await entity.query(RepoEntity.current)
        return state.integrations == 1

    await until(integrated, "the integration to finish")
    again, _ = await shipping.request_push(REPO, head)
    assert (await result_of(again)).status == PushStatus.PUSHED
    assert git(origin, "rev-parse", "main") == head
