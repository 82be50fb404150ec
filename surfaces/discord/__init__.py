"""The Discord surface: slash commands, approval cards with durable buttons, a thread per job.

`bot.py` is the process (a discord.py client that is also a Temporal worker on its own task
queue); `surface.py` implements `desk.surface.Surface`; `buttons.py` and `press.py` carry
an approval's id through a button and answer it; `commands.py` holds the slash commands.
"""
