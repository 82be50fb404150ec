"""Tests of the Discord surface: commands, buttons, rendering, the surface."""
