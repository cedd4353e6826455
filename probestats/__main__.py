"""``python -m probestats``: the same command as ``probestats``."""

from probestats.cli import run

run()
