"""A job's review card on Discord: its buttons, the Revise… modal, posting and closing it."""
