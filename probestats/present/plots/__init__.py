"""Figures (matplotlib on the Agg canvas, no pyplot), one module per analysis family."""
