"""Tests of settings: reading, naming, the light path a listing takes, durations."""
