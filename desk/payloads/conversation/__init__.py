"""What the conversation after the agent's work carries: a review's rounds and answers, a kept
session and the job that continues it."""
