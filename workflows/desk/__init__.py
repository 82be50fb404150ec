"""The `Desk` entity, whole: job numbers, admission, slots per host, the FIFO queue, modes and the
day's spend, its handlers in the class and its steps as functions of its state."""
