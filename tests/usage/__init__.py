"""Tests of usage: what each agent CLI says it used, the price table, the usage message."""
