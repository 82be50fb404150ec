"""A shell lexer and shell words, as the shell rule reads a command (standard library only)."""
