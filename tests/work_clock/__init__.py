"""Tests of the work clock: the budget, and the signs of work beside a waiting hold."""
