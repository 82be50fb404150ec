"""The coding agent's activity: its launch, its output, its claim and its git."""
