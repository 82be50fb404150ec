"""The host's policy: what the desk's own workers decide for every job, mode and push."""
