"""Tests of confinement: bubblewrap and the reaper, the launch gate, egress, /proc walks."""
