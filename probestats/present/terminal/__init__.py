"""Results on the terminal: rich tables per analysis family, progress, the start-up warm-up."""
