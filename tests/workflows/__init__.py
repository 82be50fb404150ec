"""Tests of workflow code itself: replay of recorded histories, and the sandbox that runs it."""
