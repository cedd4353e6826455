"""Presenting results: terminal tables, JSON, the Markdown and HTML report, plots.

One formatting module (``present.fmt``) and one Jinja environment (``present.templates``).
"""
