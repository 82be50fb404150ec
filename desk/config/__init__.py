"""Configuration: settings from the environment and codedesk.toml, durations and dates."""
