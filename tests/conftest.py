"""Shared fixtures: one real Temporal dev server per session, a fresh namespace per test."""

from __future__ import annotations

import itertools
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from hypothesis import settings as hypothesis_settings
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from activities.sandbox.bubblewrap import UNCONFINED
from desk.config.settings import DeskSettings, load_settings
from desk.names import SEARCH_ATTRIBUTES
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.ship_client import ShippingClient
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import unconfined_scripts
from tests.helpers.desks import configured
from tests.helpers.repos import make_origin
from workers.devserver import temporal_binary, tuning_arguments
from workers.temporal.client import DATA_CONVERTER
from workers.worker import build_worker

pytest_plugins = ["tests.helpers.processes"]

# Property tests run the same examples on every machine and in CI: derandomized, no database.
hypothesis_settings.register_profile(
    "codedesk", derandomize=True, max_examples=200, deadline=None, database=None
)
hypothesis_settings.load_profile("codedesk")

NAMESPACES = 600
_namespace_numbers = itertools.count(1)
NO_NAMESPACE_WORKERS = ["--dynamic-config-value", "worker.perNamespaceWorkerCount=0"]
"""The server runs no system worker per namespace (they serve Temporal's schedules and batch
jobs, which codedesk does not use): with 600 namespaces an idle dev server spent a quarter of a
core on them (1.6% without), which each pytest process's server took from the suite's two."""


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def temporal_env() -> AsyncIterator[WorkflowEnvironment]:
    extra = tuning_arguments() + NO_NAMESPACE_WORKERS
    for number in range(1, NAMESPACES + 1):
        extra += ["--namespace", f"test-{number}"]
    env = await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_binary(),
        data_converter=DATA_CONVERTER,
        search_attributes=SEARCH_ATTRIBUTES,
        ui=False,
        dev_server_log_level="error",
        dev_server_extra_args=extra,
    )
    yield env
    await env.shutdown()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def namespace() -> str:
    number = next(_namespace_numbers)
    assert number <= NAMESPACES, "raise NAMESPACES in tests/conftest.py"
    return f"test-{number}"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "unconfined(why): this test's agents run without the sandbox (CODEDESK_SANDBOX=none), "
        "for the reason given; every other test's agents run as users' do (auto: bubblewrap "
        "where it works)",
    )


def unconfined_reason(item: pytest.Item) -> str | None:
    """Why the test's agents run unconfined, or None: they run in the product's default."""
    marker = item.get_closest_marker("unconfined")
    if marker is None:
        return None
    why = marker.args[0] if marker.args else marker.kwargs.get("why", "")
    if not isinstance(why, str) or not why.strip():
        raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.unconfined needs a reason")
    return why


@pytest.fixture(autouse=True)
def confinement(request: pytest.FixtureRequest) -> Iterator[str | None]:
    """The test's `unconfined` reason, also told to `cli_env` (console scripts, workers)."""
    why = unconfined_reason(request.node)
    with unconfined_scripts(why):
        yield why


@pytest.fixture
def gates(tmp_path: Path) -> Path:
    """The folder for files a test creates to let its agents go on (`wait:PATH`): the settings
    give it to the sandbox as a read path (`sandbox_read_paths`), as an owner gives one, so a
    confined agent sees a gate open. Agents write nothing here: the folder is read-only."""
    folder = tmp_path / "gates"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture
def settings(
    home: Path,
    namespace: str,
    temporal_env: WorkflowEnvironment,
    confinement: str | None,
    gates: Path,
) -> DeskSettings:
    address = temporal_env.client.service_client.config.target_host
    return load_settings(
        home=home,
        temporal_address=address,
        namespace=namespace,
        task_queue=f"codedesk-{uuid.uuid4().hex[:8]}",
        # Short, so a lost attempt moves on soon; not so short that a sandboxed agent's start
        # (its git layout, the proxy, bwrap's mounts) outlasts it on a loaded machine and the
        # agent runs again. The crash suite's worker processes keep 2 s (settings_env).
        heartbeat_timeout="5s",
        agent_command=agent("say:hello"),
        # The product's default (auto: bubblewrap where it works) unless the test is marked
        # `unconfined`, with its reason.
        sandbox=UNCONFINED if confinement is not None else None,
        sandbox_read_paths=[str(gates)],
    )


@pytest.fixture
async def client(settings: DeskSettings) -> Client:
    return await Client.connect(
        settings.temporal_address,
        namespace=settings.namespace,
        data_converter=DATA_CONVERTER,
    )


@pytest.fixture
async def desk(client: Client, settings: DeskSettings) -> AsyncIterator[DeskClient]:
    """A desk with a worker running in this process."""
    async with build_worker(client, settings):
        await configured(client, settings)
        yield DeskClient(client, settings)


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    return make_origin(tmp_path / "origins" / "acme" / "api.git")


@pytest.fixture
async def clone(desk: DeskClient, origin: Path) -> Path:
    """The origin on the desk's shelf as acme/api; the clone's path."""
    return Path((await desk.add_repo("acme/api", str(origin))).path)


@pytest.fixture
def shipping(desk: DeskClient, settings: DeskSettings) -> ShippingClient:
    return ShippingClient(desk.client, settings)


@pytest.fixture
def no_env_settings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Tests of settings start from an environment without CODEDESK_* variables."""
    for name in list(os.environ):
        if name.startswith("CODEDESK_"):
            monkeypatch.delenv(name)
    yield
