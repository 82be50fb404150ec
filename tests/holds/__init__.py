"""Tests of holds: the hook, the hold channel, approvals, the work clock beside a hold."""
