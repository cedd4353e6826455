"""Presenting results: terminal tables, JSON, the Markdown and HTML report, plots.

One formatting module (``present.words.fmt``) and one Jinja environment (``present.report.environment``).
"""
