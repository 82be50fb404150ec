"""The hold channel a worker serves while its agent runs, and the work clock beside it."""
