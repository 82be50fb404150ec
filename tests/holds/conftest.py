"""Fixtures of the holds tests: a task queue of its own for each test's approval worker."""

from __future__ import annotations

import uuid

import pytest


@pytest.fixture
def queue() -> str:
    return f"approval-{uuid.uuid4().hex[:8]}"
