"""The job's review (issue 46): waiting in phase `review`, and a reviewer's answers."""
