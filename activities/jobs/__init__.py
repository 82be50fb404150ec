"""A job's worktree activities: cut it, integrate its branch, release what is left.

Above git, the set-up and the agent's session and process (which they use); below the agent's
run, which reads their receipt.
"""
