"""A job's thread as its conversation: people's messages there reach the job's agent (`say`)."""
