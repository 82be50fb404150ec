"""Set-up shared by the tests of holds: asking one, the approval workflow, the hook's channel,
the commands that hold, an approval across a crash."""
