"""What the tests share: scripted agents, waits, processes, the CLI run as users run it."""
