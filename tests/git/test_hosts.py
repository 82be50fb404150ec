"""Many hosts, one desk: each clone lives on a host, and every shelf step of its jobs runs there."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from pathlib import Path

import pytest
from temporalio.client import Client

from desk.config.settings import DeskSettings, load_settings
from desk.errors import HostError, SettingsError
from desk.hosts import normalise_host_name
from desk.payloads.jobs import JobOutcome, RepoPlacement
from surfaces.clients.desk_client import DeskClient
from tests.helpers.cli_helpers import run_cli, settings_env, shown, started_number
from tests.helpers.waiting import awaited, eventually, until
from workers.desk_handle import configure_desk
from workers.host_queues import host_polled
from workers.worker import build_worker


async def test_bad_hosts_are_refused_and_nothing_is_cloned(
    desk: DeskClient, client: Client, settings: DeskSettings, origin: Path, tmp_path: Path
) -> None:
    with pytest.raises(HostError, match="'nosuch' is unknown"):
        await desk.add_repo("acme/api", str(origin), host="nosuch")
    with pytest.raises(HostError, match="not usable"):
        await desk.add_repo("acme/api", str(origin), host="bad name!")
    # A host the desk heard of once, whose worker is gone.
    await configure_desk(client, settings.model_copy(update={"host": "ghost"}))
    with pytest.raises(HostError, match="'ghost' has no worker polling"):
        await desk.add_repo("acme/api", str(origin), host="ghost")
    assert not (settings.shelf_dir / "acme").exists()
    # Two hosts with workers: no default; and one repository lives on one host only.
    second = settings.model_copy(update={"host": "second", "shelf": tmp_path / "second"})
    # Another client: one client may not run two workers of one task queue.
    own = await Client.connect(
        settings.temporal_address,
        namespace=settings.namespace,
        data_converter=client.data_converter,
    )
    async with build_worker(own, second):
        await configure_desk(own, second)
        await until(
            lambda: host_polled(client, settings.task_queue, "second"), "host second's worker"
        )
        with pytest.raises(HostError, match="choose one with --host"):
            await desk.add_repo("acme/api", str(origin))
        added = await desk.add_repo("acme/api", str(origin), host=settings.host)
        assert added.host == settings.host
        with pytest.raises(HostError, match=f"already on host {settings.host}"):
            await desk.add_repo("acme/api", str(origin), host="second")
    assert not (tmp_path / "second" / "acme").exists()


async def test_repo_add_on_a_host_whose_worker_just_started_waits_for_its_first_poll(
    desk: DeskClient, client: Client, settings: DeskSettings, origin: Path, tmp_path: Path
) -> None:
    """A worker tells the desk of its host before its first poll reaches the server: a
    `repo add` for that host in between clones there once it polls, instead of refusing."""
    late = settings.model_copy(update={"host": "late", "shelf": tmp_path / "late"})
    await configure_desk(client, late)  # the desk knows the host; no worker polls its queue yet
    adding = asyncio.create_task(desk.add_repo("acme/api", str(origin), host="late"))
    await asyncio.sleep(0.3)
    assert not adding.done(), adding
    own = await Client.connect(
        settings.temporal_address,
        namespace=settings.namespace,
        data_converter=client.data_converter,
    )
    async with build_worker(own, late):
        added = await awaited(adding, "the clone on host late")
    assert added.host == "late"
    assert (tmp_path / "late" / "acme" / "api" / ".git").exists()


async def test_a_second_worker_of_a_live_host_with_another_shelf_is_refused(
    desk: DeskClient, client: Client, settings: DeskSettings, tmp_path: Path
) -> None:
    other = settings.model_copy(update={"shelf": tmp_path / "elsewhere"})
    with pytest.raises(HostError, match="already has a worker with its shelf at"):
        await configure_desk(client, other, others_polling=True)
    state = await desk.desk_state()
    assert state is not None and state.hosts[settings.host].shelf == str(settings.shelf_dir)


def test_host_names_follow_the_owner_rules(no_env_settings: None) -> None:
    assert normalise_host_name("Build Box.example.com") == "Build-Box"
    assert normalise_host_name("-.odd") == "host"
    with pytest.raises(SettingsError, match="CODEDESK_HOST"):
        load_settings(host="bad/name")
    assert load_settings(host="gpu-1").host == "gpu-1"


async def test_a_task_for_a_host_without_a_worker_warns_at_once_and_the_job_waits(
    desk: DeskClient, client: Client, settings: DeskSettings, tmp_path: Path
) -> None:
    await configure_desk(client, settings.model_copy(update={"host": "ghost"}))
    await desk.place_repo(RepoPlacement(repo="acme/gone", host="ghost"))
    env = settings_env(settings, CODEDESK_HOST_WAIT="1s")
    started = await run_cli(env, "task", "acme/gone", "anything", cwd=tmp_path)
    assert started.returncode == 0, shown(started)
    assert "host ghost" in started.stderr and "no worker polling" in started.stderr
    number = started_number(started)
    await eventually(
        lambda: desk.status(number), lambda s: s[1].waiting_for_host == "ghost", "waiting"
    )
    shown_job = await run_cli(env, "show", str(number), cwd=tmp_path)
    assert "waiting for host ghost" in shown_job.stdout, shown(shown_job)
    listed = await run_cli(env, "jobs", "--json", cwd=tmp_path)
    [row] = json.loads(listed.stdout)
    assert row["waiting_for_host"] == "ghost", shown(listed)
    await desk.cancel(number)
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.CANCELLED


async def test_a_job_from_a_chat_thread_says_there_that_it_waits_for_its_host(
    desk: DeskClient, client: Client, settings: DeskSettings
) -> None:
    import uuid

    from temporalio.worker import Worker

    from activities.surface import SurfaceActivities
    from desk.holds.approvals import SurfacePlace
    from tests.surfaces.fake_surface import FakeSurface

    await configure_desk(client, settings.model_copy(update={"host": "ghost"}))
    await desk.place_repo(RepoPlacement(repo="acme/gone", host="ghost"))
    hasty = DeskClient(client, settings.model_copy(update={"host_wait": timedelta(seconds=1)}))
    queue = f"fake-surface-{uuid.uuid4().hex[:8]}"
    surface = FakeSurface()
    async with Worker(client, task_queue=queue, activities=SurfaceActivities(surface).all()):
        admission = await hasty.submit_job(
            "acme/gone", "anything", place=SurfacePlace(queue=queue, channel="thread-9")
        )
        await eventually(
            lambda: surface.progress.get("thread-9", ""),
            lambda text: "Waiting for host ghost" in text,
            "the thread's progress",
        )
        await desk.cancel(admission.number)
        report = await desk.wait(admission.number)
    assert report.outcome == JobOutcome.CANCELLED
