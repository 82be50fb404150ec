"""Reaching another workflow from a workflow by its names only (desk/names.py).

The child entity started once and used by everyone after, and the calls to a channel's `Outbox`,
a repository's `Repo` and a result's `ResultDelivery`.
"""
