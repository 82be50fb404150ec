"""The `codedesk` commands, one module per group."""
