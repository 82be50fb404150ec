"""Tests of codedesk."""
