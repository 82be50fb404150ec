"""What an agent is given before it starts: its hold hook wired into its CLI (Claude Code's
settings, codex's hooks, opencode's plugin) and its standing instructions."""
