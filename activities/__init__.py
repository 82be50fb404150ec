"""Every side effect of codedesk: git, processes and files, as Temporal activities."""
