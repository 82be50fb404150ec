"""The job's work clock on its own: budget used and left, holds, long-running mode. No server."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from workflows.job.record.clock import MAX_WORKED, WorkClock

T0 = datetime(2026, 1, 1, tzinfo=UTC)
MINUTE = timedelta(minutes=1)


def clock(budget: int = 10, ceiling: int = 30, check: int = 5) -> WorkClock:
    return WorkClock(budget=budget * MINUTE, ceiling=ceiling * MINUTE, check=check * MINUTE)


def work(on: WorkClock, start: int, stop: int) -> None:
    """The agent worked from minute `start` to minute `stop` with no hold waiting."""
    on.start(T0 + start * MINUTE)
    on.stop(T0 + stop * MINUTE)


def test_a_new_clock_has_its_whole_budget_left() -> None:
    fresh = clock()
    assert fresh.left(long_running=False) == 10 * MINUTE
    assert fresh.worked == timedelta(0)
    assert fresh.limit == 30 * MINUTE


def test_working_time_is_used_and_the_rest_is_left() -> None:
    running = clock()
    work(running, 0, 4)
    assert running.worked == 4 * MINUTE
    assert running.left(long_running=False) == 6 * MINUTE


def test_the_clock_stands_still_between_stop_and_start() -> None:
    """A hold waiting for a person from minute 3 to 50 costs nothing."""
    held = clock()
    work(held, 0, 3)
    work(held, 50, 52)
    assert held.worked == 5 * MINUTE


def test_stop_without_start_changes_nothing() -> None:
    idle = clock()
    idle.stop(T0 + MINUTE)
    assert idle.worked == timedelta(0)


def test_work_beside_a_waiting_hold_counts_when_the_clock_is_next_looked_at() -> None:
    beside = clock()
    beside.charge_beside_holds(90)
    assert beside.beside_holds == timedelta(seconds=90)
    assert beside.worked == timedelta(0)
    assert beside.left(long_running=False) == 10 * MINUTE - timedelta(seconds=90)
    assert beside.beside_holds == timedelta(0)
    assert beside.worked == timedelta(seconds=90)


def test_a_signal_outside_its_bounds_charges_nothing() -> None:
    bounded = clock()
    for seconds in (0, -5, MAX_WORKED.total_seconds(), 10 * MAX_WORKED.total_seconds()):
        bounded.charge_beside_holds(seconds)
    assert bounded.beside_holds == timedelta(0)


def test_the_budget_runs_out() -> None:
    spent = clock()
    work(spent, 0, 10)
    assert spent.left(long_running=False) <= timedelta(0)
    assert spent.extended_by == timedelta(0)


def test_long_running_mode_allows_one_check_interval_at_a_time_up_to_the_ceiling() -> None:
    long = clock(budget=10, ceiling=18, check=5)
    work(long, 0, 10)
    assert long.left(long_running=True) == 5 * MINUTE
    work(long, 10, 15)
    assert long.left(long_running=True) == 3 * MINUTE  # 15 + 5 is past the ceiling of 18
    assert long.extended_by == 5 * MINUTE
    work(long, 15, 18)
    assert long.left(long_running=True) <= timedelta(0)
    assert long.extended_by == 8 * MINUTE
    assert long.extended_to_ceiling


def test_a_timer_late_past_the_budget_with_the_mode_off_is_no_extension() -> None:
    late = clock()
    work(late, 0, 11)
    assert late.left(long_running=False) < timedelta(0)
    assert late.extended_by == timedelta(0)
    assert not late.extended_to_ceiling


def test_the_interval_finished_after_the_mode_was_switched_off_was_extended() -> None:
    switched = clock(budget=10, ceiling=60, check=5)
    work(switched, 0, 10)
    assert switched.left(long_running=True) == 5 * MINUTE
    work(switched, 10, 15)
    assert switched.left(long_running=False) < timedelta(0)  # back to the budget: out of time
    assert switched.extended_by == 5 * MINUTE
    assert not switched.extended_to_ceiling


def test_a_restarted_step_counts_anew_but_keeps_what_it_was_allowed() -> None:
    """The agent's step is started again after its host was gone (so it never ran)."""
    again = clock(budget=10, ceiling=60, check=5)
    work(again, 0, 12)
    assert again.left(long_running=True) == 5 * MINUTE
    again.start(T0 + 12 * MINUTE)
    again.restart()
    assert again.worked == timedelta(0)
    assert again.running_since is None
    assert again.allowed == 17 * MINUTE
