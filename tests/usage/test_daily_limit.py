"""The desk's daily spend limit (CODEDESK_DAILY_SPEND_LIMIT, issue 29): each job tells its desk
what it spent when it ends, the desk keeps the UTC day's total in its state, and once the total
reaches the limit a new task is queued for the next UTC day or refused, as the host says; a job
may spend at most what is left of the day. The total survives a restarted worker and server.

These tests never wait for a real day. A test whose UTC day turns while it runs (its total
starts again at $0) is skipped, not failed: `one_utc_day`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from desk.config.settings import DeskSettings, load_settings
from desk.errors import DailySpendLimitError, SettingsError
from desk.names import DESK_WORKFLOW_ID
from desk.payloads.jobs import JobOutcome
from desk.policy.daily import DailyLimitAction, DaySpend, refusal, stricter
from desk.policy.utc_days import next_utc_day, utc_day
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.listings.job_listing import day_view
from tests.crash.crashes import restart_server
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import run_cli, settings_env, shown
from tests.helpers.desks import configured, host_policy
from tests.helpers.waiting import awaited
from workers.devserver import DevServer
from workers.worker import build_worker

REPO = "acme/api"


def step(**fields: object) -> str:
    return "usage:" + json.dumps(fields)


@contextmanager
def one_utc_day() -> Iterator[date]:
    """The UTC day the test runs on; skip the test when it turned meanwhile (and it failed)."""
    day = utc_day(datetime.now(UTC))
    try:
        yield day
    except AssertionError:
        if utc_day(datetime.now(UTC)) != day:
            pytest.skip("the UTC day turned during the test: the desk's total began again")
        raise


def daily_settings(settings: DeskSettings, action: str, **more: object) -> DeskSettings:
    """The test's settings with a daily limit of $1 and `action` once it is reached."""
    values = {**settings.model_dump(), "daily_spend_limit": "1", "daily_limit_action": action}
    return load_settings(**{**values, **more})


@pytest.fixture
async def refusing(settings: DeskSettings, client: Client) -> AsyncIterator[DeskClient]:
    """A desk whose jobs may spend $1 a day; past it, new tasks are refused."""
    strict = daily_settings(settings, "refuse")
    async with build_worker(client, strict):
        await configured(client, strict)
        yield DeskClient(client, strict)


@pytest.fixture
async def queueing(settings: DeskSettings, client: Client) -> AsyncIterator[DeskClient]:
    """A desk whose jobs may spend $1 a day; past it, new tasks wait for the next UTC day."""
    strict = daily_settings(settings, "queue")
    async with build_worker(client, strict):
        await configured(client, strict)
        yield DeskClient(client, strict)


async def spend_the_day(desk: DeskClient, origin: Path) -> None:
    """One job whose agent reports $1.20 at once: the day's $1 is spent (the job, limited to
    what was left of the day, is stopped by it)."""
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "spend", agent_command=agent(step(cost="1.2")))
    report = await awaited(desk.wait(number), f"job {number}'s report")
    assert report.usage is not None and report.usage.cost == Decimal("1.2"), report


async def test_past_the_days_limit_a_new_task_is_refused(
    refusing: DeskClient, origin: Path
) -> None:
    with one_utc_day():
        await spend_the_day(refusing, origin)
        with pytest.raises(DailySpendLimitError) as refused:
            await refusing.start_job(REPO, "more", agent_command=agent("say:hi"))
        said = str(refused.value)
        assert "daily spend limit of $1 (CODEDESK_DAILY_SPEND_LIMIT" in said, said
        assert "spent $1.2 today (UTC)" in said, said
        resets = next_utc_day(datetime.now(UTC))
        assert f"It resets at {resets:%Y-%m-%d} 00:00 UTC" in said, said
        assert "Nothing was started" in said, said
        assert [row.number for row in await refusing.jobs()] == [1], "a refused task has no job"


async def test_past_the_days_limit_a_new_task_waits_for_the_next_day(
    queueing: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path
) -> None:
    with one_utc_day() as today:
        await spend_the_day(queueing, origin)
        admission = await queueing.submit_job(REPO, "tomorrow", agent_command=agent("say:hi"))
        number = admission.number
        day = admission.day_limit
        assert day is not None, admission
        assert (day.limit, day.spent) == (Decimal("1"), Decimal("1.2")), day
        assert day.resets_at == datetime.combine(
            today + timedelta(days=1), datetime.min.time(), UTC
        )
        assert admission.position == 1, admission

        # Its status says it waits, and why: the listing, `show` and `show --json`.
        (row,) = [row for row in await queueing.jobs() if row.number == number]
        assert row.phase == "queued" and row.waiting_for_day == day.resets_at, row
        env = settings_env(settings)
        shown_text = await run_cli(env, "show", str(number), cwd=tmp_path)
        assert shown_text.returncode == 0, shown(shown_text)
        assert "waiting: the desk's daily spend limit of $1.00 is reached " in (
            shown_text.stdout
        ), shown(shown_text)
        assert "($1.20 spent today, UTC)" in shown_text.stdout, shown(shown_text)
        as_json = await run_cli(env, "show", str(number), "--json", cwd=tmp_path)
        document: dict[str, Any] = json.loads(as_json.stdout)
        assert document["waiting_for_day"]["spent"] == "1.2", document
        listed = await run_cli(env, "jobs", cwd=tmp_path)
        assert "queued #1, daily spend limit reached: until" in listed.stdout, shown(listed)

        # `codedesk spend` says today's total against the limit.
        spent = await run_cli(env, "spend", cwd=tmp_path)
        assert "Today (UTC): $1.20 of the desk's daily spend limit of $1.00: reached. New " in (
            spent.stdout
        ), shown(spent)
        spent_json = json.loads((await run_cli(env, "spend", "--json", cwd=tmp_path)).stdout)
        assert spent_json["daily_limit"]["spent_today_usd"] == 1.2, spent_json
        assert spent_json["daily_limit"]["reached"] is True, spent_json

        # It is still queued (nothing lets it run before the day turns); cancelled, it ends.
        assert (await queueing.status(number))[1].phase == "queued"
        await queueing.cancel(number)
        report = await awaited(queueing.wait(number), f"job {number}'s report")
        assert report.outcome == JobOutcome.CANCELLED, report


async def test_a_queued_task_runs_once_the_day_has_some_left_and_only_that(
    queueing: DeskClient, origin: Path
) -> None:
    """The host raises the day's limit to $2 (as the next UTC day would start it at $0): the
    waiting job runs, limited to the $0.80 left."""
    with one_utc_day():
        await spend_the_day(queueing, origin)
        steps = (step(cost="0.6"), step(cost="0.6"), "sleep:300")  # only the limit ends it
        admission = await queueing.submit_job(REPO, "later", agent_command=agent(*steps))
        assert admission.day_limit is not None, admission
        await host_policy(queueing, daily_spend_limit=Decimal("2"))
        report = await awaited(queueing.wait(admission.number), "the queued job's report")
        assert report.outcome == JobOutcome.FAILED, report
        assert "spent 1.2 USD, at the job's spend limit $0.8 " in report.reason, report


async def test_a_job_may_spend_only_what_is_left_of_the_day(
    refusing: DeskClient, origin: Path
) -> None:
    """$0.60 of the day's $1 spent: the next job is stopped at the $0.40 left, though it has no
    spend limit of its own."""
    with one_utc_day():
        await refusing.add_repo(REPO, str(origin))
        first = await refusing.start_job(
            REPO, "some", agent_command=agent(step(cost="0.6"), "write:a.txt=a", "commit:a")
        )
        report = await awaited(refusing.wait(first), f"job {first}'s report")
        assert report.outcome == JobOutcome.INTEGRATED, report
        steps = (step(cost="0.3"), step(cost="0.3"), "sleep:300")  # only the limit ends it
        second = await refusing.start_job(REPO, "more", agent_command=agent(*steps))
        report = await awaited(refusing.wait(second), f"job {second}'s report")
        assert report.outcome == JobOutcome.FAILED, report
        assert "spent 0.6 USD, at the job's spend limit $0.4 " in report.reason, report


async def test_the_days_total_survives_a_restarted_worker_and_server(
    own_server: list[DevServer], origin: Path, tmp_path: Path
) -> None:
    """The total is the desk's workflow state: a new worker on a restarted server (on its
    SQLite file) still holds new tasks back. The desk continues as new on the way, too."""
    settings = load_settings(
        home=tmp_path / "home",
        temporal_address=own_server[0].address,
        heartbeat_timeout="5s",
        daily_spend_limit="1",
        daily_limit_action=DailyLimitAction.QUEUE,
        desk_history_limit=30,
    )
    with one_utc_day():
        client = await Client.connect(
            settings.temporal_address, data_converter=pydantic_data_converter
        )
        async with build_worker(client, settings):
            await configured(client, settings)
            first_run = (await client.get_workflow_handle(DESK_WORKFLOW_ID).describe()).run_id
            await spend_the_day(DeskClient(client, settings), origin)

        again = await restart_server(own_server)
        client = await Client.connect(again.address, data_converter=pydantic_data_converter)
        async with build_worker(client, settings):
            await configured(client, settings)
            desk = DeskClient(client, settings)
            admission = await desk.submit_job(REPO, "tomorrow", agent_command=agent("say:hi"))
            assert admission.day_limit is not None, admission
            assert admission.day_limit.spent == Decimal("1.2"), admission
            state = await desk.desk_state()
            assert state is not None
            assert state.day_spend.spent_on(datetime.now(UTC)) == Decimal("1.2"), state
            described = await client.get_workflow_handle(DESK_WORKFLOW_ID).describe()
            assert described.run_id != first_run, "the desk never continued as new"
            await desk.cancel(admission.number)
            await awaited(desk.wait(admission.number), "the queued job's report")


# The pure parts: the UTC day, the day's total, the bound on a job, the settings.


@pytest.mark.parametrize(
    ("at", "day", "next_day"),
    [
        (datetime(2026, 12, 2, 23, 59, 59, 999_999, UTC), date(2026, 12, 2), date(2026, 12, 3)),
        (datetime(2026, 12, 3, 0, 0, tzinfo=UTC), date(2026, 12, 3), date(2026, 12, 4)),
        # 01:30 in Berlin is still the evening before in UTC.
        (
            datetime(2026, 12, 3, 0, 30, tzinfo=timezone(timedelta(hours=1))),
            date(2026, 12, 2),
            date(2026, 12, 3),
        ),
        (datetime(2028, 2, 28, 12, tzinfo=UTC), date(2028, 2, 28), date(2028, 2, 29)),
        (datetime(2026, 12, 31, 12, tzinfo=UTC), date(2026, 12, 31), date(2027, 1, 1)),
    ],
)
def test_the_day_is_the_utc_day_and_the_next_begins_at_its_midnight(
    at: datetime, day: date, next_day: date
) -> None:
    assert utc_day(at) == day
    begins = next_utc_day(at)
    assert begins == datetime.combine(next_day, datetime.min.time(), UTC)
    assert begins > at


def test_the_days_total_keeps_only_the_newest_day() -> None:
    spend = DaySpend()
    evening = datetime(2026, 12, 2, 23, 0, tzinfo=UTC)
    spend.add(evening, Decimal("0.7"))
    spend.add(evening + timedelta(minutes=30), Decimal("0.5"))
    assert spend.spent_on(evening) == Decimal("1.2")
    assert spend.reached(Decimal("1"), evening) is not None
    assert spend.left(Decimal("1"), evening) == 0
    morning = evening + timedelta(hours=2)
    assert spend.spent_on(morning) == 0 and spend.reached(Decimal("1"), morning) is None
    spend.add(morning, Decimal("0.25"))
    assert spend.totals == {date(2026, 12, 3): Decimal("0.25")}
    assert spend.left(Decimal("1"), morning) == Decimal("0.75")
    assert spend.left(None, morning) is None and spend.reached(None, morning) is None


def test_a_days_limit_is_reached_at_its_amount_and_says_when_it_resets() -> None:
    spend = DaySpend()
    at = datetime(2026, 12, 2, 15, 0, tzinfo=UTC)
    spend.add(at, Decimal("1"))
    reached = spend.reached(Decimal("1"), at)
    assert reached is not None and reached.resets_at == datetime(2026, 12, 3, tzinfo=UTC)
    said = str(refusal(reached))
    assert "spent $1 today (UTC). It resets at 2026-12-03 00:00 UTC" in said, said


def test_the_days_remainder_bounds_a_job_only_downwards() -> None:
    assert stricter(None, Decimal("0.4")) == Decimal("0.4")
    assert stricter(Decimal("0.2"), Decimal("0.4")) == Decimal("0.2")
    assert stricter(Decimal("2"), Decimal("0.4")) == Decimal("0.4")
    assert stricter(Decimal("2"), None) == Decimal("2")


def test_a_listing_reads_the_day_from_the_desks_state_json() -> None:
    at = datetime(2026, 12, 2, 15, 0, tzinfo=UTC)
    state = {
        "policy": {"daily_spend_limit": "1", "daily_limit_action": "refuse"},
        "day_spend": {"totals": {"2026-12-02": "1.2"}},
    }
    view = day_view(state, at)
    assert view is not None and view.reached and view.action == "refuse", view
    assert view.as_json()["resets_at"] == "2026-12-03T00:00:00Z"
    assert day_view(state, at + timedelta(days=1)) == view.__class__(
        limit=Decimal("1"),
        spent=Decimal("0"),
        resets_at=datetime(2026, 12, 4, tzinfo=UTC),
        action="refuse",
    )
    assert day_view({"policy": {"daily_spend_limit": None}}, at) is None


def test_the_daily_limit_settings_are_host_policy(no_env_settings: None) -> None:
    assert load_settings(daily_spend_limit="").daily_spend_limit is None
    settings = load_settings(daily_spend_limit="5", daily_limit_action="refuse")
    policy = settings.host_policy
    assert policy.daily_spend_limit == Decimal("5"), policy
    assert policy.daily_limit_action == DailyLimitAction.REFUSE, policy
    assert load_settings().daily_limit_action == DailyLimitAction.QUEUE
    with pytest.raises(SettingsError, match="CODEDESK_DAILY_SPEND_LIMIT"):
        load_settings(daily_spend_limit="-1")
    with pytest.raises(SettingsError, match="CODEDESK_DAILY_LIMIT_ACTION"):
        load_settings(daily_limit_action="wait")
