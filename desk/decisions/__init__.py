"""What the desk decides from its payloads, with no I/O: a job as it is admitted (the host's
policy in place of what the request asked), a host's job slots and queue, a pull request's plan
from a change report. Above desk/payloads, which they read."""
