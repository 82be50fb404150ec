"""Tests that run the real agent CLIs against scripted fakes of their model APIs."""

from desk.config.settings import DeskSettings

HEARTBEAT_TIMEOUT = DeskSettings.model_fields["heartbeat_timeout"].default
"""The product's agent heartbeat timeout, not the suite's 2 s (made for crash tests): these tests
run each real CLI once and count its model calls, and at 2 s a busy moment (node starting on two
loaded cores) expired the agent's attempt and ran the CLI again (seen once for opencode: the job
integrated once, but the second run's tool result was "nothing to commit")."""
