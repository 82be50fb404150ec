"""The Discord surface: slash commands, approval cards with durable buttons, a thread per job.

`bot.py` is the process (a discord.py client that is also a Temporal worker on its own task
queue); `discord_surface.py` implements `desk.payloads.surface_contract.Surface`;
`progress_boards.py` keeps a job thread's progress message; `interactions/` holds the slash
commands (`slash_commands.py`) and the buttons (`buttons.py`, `press.py`) that carry an approval's
id and answer it. What the bot shows is rendered in `surfaces.render.discord`.
"""
