"""Shipping: the change report and the push of exactly its SHA, a job's branch pushed for its pull
request, and an agent's approved ship request (above git, the forge and the set-up)."""
