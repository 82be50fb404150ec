"""Tests of host-side git: clones, worktrees, the job's branch, the fast-forward, hosts."""
