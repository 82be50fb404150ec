"""What a job knows of itself and shows: its state, work clock, phase table, progress and report.

The steps in workflows/job read and write this record; nothing here imports them.
"""
