"""Tests of workflow code itself: replay of recorded histories, compiled once per worker."""
