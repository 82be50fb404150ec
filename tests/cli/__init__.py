"""Tests of the `codedesk` command line as a user runs it."""
