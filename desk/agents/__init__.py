"""The agent CLIs codedesk knows: their presets, their homes in the sandbox, and the standing
instructions every agent is given."""
