"""Configuration: settings from the environment and codedesk.toml and their light path, over
their sections (desk/config/sections) and what both are made of (desk/config/basics)."""
