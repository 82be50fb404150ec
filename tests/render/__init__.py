"""Tests of renderers: reports, cards and histories for a terminal and for Discord."""
