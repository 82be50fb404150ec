"""Stand-ins that hold or record: an integration held, a workflow task held at one message, a
local HTTP server."""
