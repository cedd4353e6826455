"""The report as a document (Markdown, HTML, JSON): its Jinja environment, its sections, its files."""
