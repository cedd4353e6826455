"""Checks: validation of a probe log, every problem collected with the rows a person would look at."""
