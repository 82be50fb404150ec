"""Tests of the shell rule (desk/shell_rule, desk/shell)."""
