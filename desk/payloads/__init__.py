"""Payloads that cross process boundaries: workflow, activity, signal and query models, and the
surface contract over the surfaces' payloads. They build on desk/records, holds and policy."""
