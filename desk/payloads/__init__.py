"""Payloads that cross process boundaries: workflow, activity, signal and query models."""
