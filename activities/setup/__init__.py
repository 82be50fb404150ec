"""A repository's worktree set-up: the owner's files copied into each worktree, kept out of git."""
