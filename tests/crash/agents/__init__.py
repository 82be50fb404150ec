"""Crashes while an agent runs or a hold waits: the agent's tree, open approvals."""
