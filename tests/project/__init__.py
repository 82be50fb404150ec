"""Tests of the project itself: the README and docs against the code, the layers, bench."""
