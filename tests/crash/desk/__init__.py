"""Crashes of the desk's other parts: the queue, shipping, the bot, everything at once."""
