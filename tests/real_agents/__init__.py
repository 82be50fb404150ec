"""Tests that run the real agent CLIs against scripted fakes of their model APIs."""
