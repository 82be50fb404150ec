"""The `Desk` entity: job numbers, slots per host, the FIFO queue, modes."""
