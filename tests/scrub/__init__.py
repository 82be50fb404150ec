"""Tests that no credential reaches a place a person can see."""
