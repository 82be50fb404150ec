"""A protocol-level Discord: REST and the gateway over real sockets, for the real bot process."""
