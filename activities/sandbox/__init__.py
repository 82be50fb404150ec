"""Confinement of an agent: bubblewrap or the reaper, the launch gate, egress, its tree."""
