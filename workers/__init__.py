"""Composition: the Temporal client, workers and the embedded dev server."""
