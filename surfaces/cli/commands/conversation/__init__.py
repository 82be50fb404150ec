"""The commands of a job's conversation: messages, the review's answers, the pick among attempts."""
