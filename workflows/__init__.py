"""Deterministic Temporal workflows of codedesk: no I/O, clocks or randomness."""
