"""Several attempts at one task (issue 48): an attempt's news to its job, and the job's
comparison and pick."""
