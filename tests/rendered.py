"""Every text an analysis is rendered to: the terminal and the report of its kind (Markdown, HTML, JSON)."""

from __future__ import annotations

import io

from rich.console import Console

from probestats.present.report.document import render_report
from probestats.present.terminal.render import render_terminal


def terminal_text(result) -> str:
    """What the terminal prints for ``result``, 300 columns wide."""
    buf = io.StringIO()
    render_terminal(result, Console(file=buf, width=300))
    return buf.getvalue()


def report_renderer(result):
    """The function that renders the report of ``result``'s kind (several metrics, a factorial, else a pair's)."""
    from probestats.analyses.factors_many_levels import FactorialAnalysis
    from probestats.analyses.metrics import MetricsAnalysis

    if isinstance(result, MetricsAnalysis):
        from probestats.present.report.metrics import render_metrics_report
        return render_metrics_report
    if isinstance(result, FactorialAnalysis):
        from probestats.present.report.factorial import render_factorial_report
        return render_factorial_report
    return render_report
