"""The `CodingJob` workflow, whole: its story and handlers, its state, its phase table, and each
step (worktree, agent, holds, modes, slot, check, integration, report) as functions of its state."""
