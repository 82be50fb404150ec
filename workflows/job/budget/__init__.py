"""The job's budget pause: a person decides whether an agent past its budget goes on."""
