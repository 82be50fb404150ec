"""Reaching Temporal: the SDK client, the service client alone, the transport."""
