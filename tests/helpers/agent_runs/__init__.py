"""Set-up shared by the tests of an agent's run: its processes, its git, its sandbox, a
session resumed."""
