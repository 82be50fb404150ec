"""What every part of the bot uses, below them all: posting under Discord's limits (delivery,
closed threads), the desk's services the bot reaches, who may act (access), and which job a
thread follows (the thread book)."""
