"""The words of a description: its test in one sentence and its coverage lines, shared by the terminal and the
report (no statistics here)."""

from __future__ import annotations

from probestats.errors import count_of
from probestats.present.words.fmt import fmt_num, fmt_p

__all__ = ["coverage_lines", "test_sentence", "kind_phrase", "rate_lines"]


def kind_phrase(d) -> str:
    """How the metric was read, in words."""
    if d.metric is None:
        return "runs and items per value"
    return {"label": f"{d.metric}: a label of {count_of(len(d.levels), 'level')}",
            "binary": f"{d.metric}: 0 or 1",
            "levels": f"{d.metric}: a whole number of {count_of(len(d.levels), 'value')}",
            "binned": f"{d.metric}: cut into {count_of(len(d.levels), 'bin')}",
            "numeric": f"{d.metric}: a number (give bins to count its levels)"}[d.kind]


def test_sentence(d) -> str | None:
    """Whether the distributions differ, with the test named (None without a test)."""
    t = d.test
    if t is None:
        return None
    within = (f"the values arranged at random within each of {count_of(t.n_blocks, 'item')} that have runs under "
              "two values or more" if t.matched else "the values arranged at random across all runs")
    if t.method == "exact":
        how = f"exact permutation test ({within}; every arrangement counted)"
    else:
        how = (f"Monte Carlo permutation test ({within}; {t.n_resamples:,} arrangements drawn, "
               f"standard error of p {fmt_num(t.error, 2)})")
    return (f"Do the distributions differ between values? Pearson's chi-square {fmt_num(t.statistic)}, "
            f"p = {fmt_p(t.pvalue)} by an {how}, over {count_of(t.n, 'run')} with a level.")


def coverage_lines(d) -> list[str]:
    """One line per code book and value: replies coded, refused, hedged, unparsed and blank, with examples."""
    out = []
    for c in d.coverage:
        total = c.coded + c.refusal + c.hedge + c.unparsed + c.blank
        where = f" under {c.value}" if c.value is not None else ""
        line = (f"code book {c.book} ({c.column}){where}: {c.coded} of {total} replies coded, {c.refusal} refused, "
                f"{c.hedge} hedged, {c.unparsed} unparsed, {c.blank} blank")
        if c.examples:
            line += "; unparsed, for example: " + "; ".join(repr(e[:60]) for e in c.examples)
        out.append(line)
    return out


def rate_lines(d) -> list[str]:
    """A 0/1 metric: per value, its rate of 1 with its exact interval and the exact binomial test against chance
    (empty for any other metric)."""
    rates = [(s.value, s.rate) for s in d.values if getattr(s, "rate", None) is not None]
    if not rates:
        return []
    first = rates[0][1]
    out = [f"Rate of 1 per value against chance {first.chance:g} (exact binomial test, Clopper-Pearson interval; "
           "every run counted as independent):"]
    for value, r in rates:
        if r.value is None:
            out.append(f"  {value}: no run with a value")
            continue
        out.append(f"  {value}: {r.k} of {r.n} = {100 * r.value:.1f}% ({100 * r.confidence:g}% exact interval "
                   f"{100 * r.low:.1f}% to {100 * r.high:.1f}%), exact binomial p = {fmt_p(r.p)}")
    return out
