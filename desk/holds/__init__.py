"""Holds: which tool calls wait for a person, the hook's wire protocol, approval payloads."""
