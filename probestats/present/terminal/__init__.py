"""Results on the terminal: rich tables per analysis family and progress."""
