"""The `codedesk` command line."""
