"""The workflows that deliver what others produced, durably and in order.

A channel's `Outbox`, and a result's `ResultDelivery` to the host's result hooks.
"""
