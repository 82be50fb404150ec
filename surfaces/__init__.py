"""How people reach the desk: the command line, chat and the agent hook."""
