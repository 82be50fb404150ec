"""Host-side git: commands, locks, worktrees, the job's branch, the fast-forward."""
