"""The coding agent's activity: its run and its supervision, over the folders below.

Bottom up: process/ (how its CLI is started and confined, its home and hook settings, its git),
streams/ (its output read as events, texts and usage), session/ (its session, messages, claim and
log), setup/ (what it is given before it starts); the run and the supervision sit on top.
"""
