"""Reaching Temporal: the SDK client, the service client alone, the transport, and the runtime
record that says where a running `codedesk up` serves it."""
