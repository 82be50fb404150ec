"""Tests of reaching Temporal: transport, TLS, the dev server."""
