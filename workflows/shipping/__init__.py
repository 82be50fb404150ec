"""Shipping a reported SHA: the `Ship` workflow, and the `Approval` wait a person answers.

An approval is a push's or a job's held call's; both wait in the same workflow.
"""
