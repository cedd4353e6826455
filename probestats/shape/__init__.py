"""Shaping: what a log means. Column mapping, ``where``, ``derive``, groups of values, case folding,
the design file and the parsing of Likert labels, applied the same way to every log a command reads.
"""
