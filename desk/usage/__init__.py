"""What an agent used: tokens and money read from each agent CLI's own output, priced by the
owner's table where a CLI reports tokens but no money (no I/O: the agent's activity feeds it)."""
