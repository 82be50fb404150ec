"""Set-up shared by the tests of jobs at the desk: its queue, and what a job ships."""
