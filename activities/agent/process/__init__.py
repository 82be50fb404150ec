"""The agent CLI's process: its launch without the owner's authority, its confinement and spawn,
its own home and hook settings, its files kept out of git, and the git it leaves behind."""
