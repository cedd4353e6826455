"""Analyses: paired, many values, factors, framing, judges, before/after and planning.

Each takes a checked log (or numbers) and returns a frozen result with ``to_dict()``; none prints
or formats text for a terminal or a report.
"""
