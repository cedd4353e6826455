"""The before/after comparison as a Markdown report section (``compare.md.j2``)."""

from __future__ import annotations

from probestats.analyses.compare import Comparison
from probestats.present.report.environment import environment

__all__ = ["render_compare"]


def render_compare(comparison: Comparison) -> str:
    """The Markdown report section for a before/after comparison (``compare.md.j2``).

    Everything taken from the logs (names, values, items) is escaped for Markdown.
    """
    data = comparison.to_dict()
    before, after = comparison.before, comparison.after
    ctx = {
        "names": data["names"], "metric": data["metric"], "a": data["a"], "b": data["b"],
        "before": {"n_items": before.main.n_items, "runs": before.main.runs_per_value(),
                   "average_gap": before.main.average_gap, "p": before.main.sign_flip.pvalue,
                   "method": before.main.sign_flip.method},
        "after": {"n_items": after.main.n_items, "runs": after.main.runs_per_value(),
                  "average_gap": after.main.average_gap, "p": after.main.sign_flip.pvalue,
                  "method": after.main.sign_flip.method},
        "change": data["change"], "alpha": before.alpha, "seeds_checked": comparison.seeds_checked,
        "problems": data["problems"],
        # decided once, in the analysis (probestats.analyses.verdict.decide_change): the template only words it
        "verdict": {"changed": comparison.verdict.changed, "after_detected": comparison.verdict.after_detected},
    }
    return environment("md").get_template("compare.md.j2").render(**ctx)
