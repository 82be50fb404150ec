"""What a worker's host is asked before a job or by `codedesk doctor`: the admission checks, the
host's checks, each agent preset's program and whether its sandbox starts (above the agent)."""
