"""Fixtures of the jobs' tests: `one_slot`, a desk of one slot whose integrations last until the
test lets go."""

from __future__ import annotations

from tests.helpers.jobs.one_slot import one_slot  # noqa: F401  (a fixture)
