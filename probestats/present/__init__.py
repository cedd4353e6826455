"""Presenting results, laid out by one rule: by output kind, then by analysis family.

Every module lives in the room of the output it makes, and is named by its analysis family or idea alone
(no ``_report``, ``_section``, ``_text``, ``terminal_`` or ``plots_`` in a name: the room says the kind):

- ``present.words``: what every output shares: number formats (``words.fmt``), the sanitizer, and the
  sentences of each family (verdict, effects, control, describe, validation, plan, metrics, runs);
- ``present.plots``: figures, one module per family; they import ``words`` only;
- ``present.report``: the report as a document (Markdown, HTML, JSON): the one Jinja environment
  (``report.environment``), its sections and its files; it imports ``words`` and ``plots``;
- ``present.terminal``: rich tables on the terminal and progress; it imports ``words``.

``words`` imports no other room, so the report and the terminal never import each other.
"""
