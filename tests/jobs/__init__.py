"""Tests of jobs at the desk: admission, the queue, slots, outcomes and their reasons."""
