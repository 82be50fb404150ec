"""The shell rule: which hold classes a shell command an agent wants to run falls in."""
