"""A job's conversation from outside it: a person's message to its agent, sent and answered."""
