"""Set-up shared by the tests of the real agent CLIs (tests/real_agents): Claude Code's binary and
environment, and the codex, aider and opencode releases with their fake model and settings."""
