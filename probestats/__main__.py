"""``python -m probestats``: the same command as ``probestats``."""

from .cli import run

run()
