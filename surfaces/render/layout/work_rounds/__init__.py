"""How the rounds of a job's work read: the check's, the review's and the budget's, and what
it spent."""
