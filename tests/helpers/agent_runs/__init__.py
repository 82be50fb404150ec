"""Set-up shared by the tests of an agent's run: its processes, its git, its sandbox, a
session resumed."""

from datetime import timedelta

CRASH_HEARTBEAT_TIMEOUT = timedelta(seconds=10)
"""The agent heartbeat timeout of a worker running a real CLI in a crash test: how long the
killed worker's attempt lives before the next one starts, so most of such a test's wait. Not
the suite's 2 s, which a sandboxed CLI's start on two loaded cores has outlasted (the CLI then
ran twice), nor the product's 30 s (tests/real_agents), which each crash only waited out. The
benches that kill such a worker take it from here (bench/suspension.py)."""
