"""Tests of the host's policy and the autonomy modes."""
