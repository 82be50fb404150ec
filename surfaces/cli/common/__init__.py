"""What every command of the `codedesk` CLI uses: running against the server, and the options.

Below both the app (surfaces/cli/app.py) and its command groups (surfaces/cli/commands/), so the
commands import it and never the app that gathers them.
"""
