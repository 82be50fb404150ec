"""Tests of the agent's activity: launch, output, claim, git hand-back, presets."""
