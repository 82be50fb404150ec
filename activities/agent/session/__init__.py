"""The agent's session across attempts: the CLI session it resumes, how an attempt opens, the
messages a person sends it, which attempt may start, and its log."""
