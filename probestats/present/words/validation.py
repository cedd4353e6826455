"""The words of a hand-checked sample: the coded metric's agreement with the hand labels and the corrected gap,
shared by the terminal and the report (no statistics here)."""

from __future__ import annotations

from probestats.present.words.fmt import fmt_gap, fmt_num

__all__ = ["validation_lines"]


def _share(p) -> str:
    if p is None or p.estimate is None:
        return "n/a (no run)"
    return (f"{p.successes}/{p.n} = {fmt_num(p.estimate, 3)} ({p.confidence:.0%} exact interval "
            f"{fmt_num(p.low, 3)} to {fmt_num(p.high, 3)})")


def _kappa(k) -> str:
    if k.statistic is None:
        return f"raw agreement {fmt_num(k.agreement, 3)} over {k.n} runs (kappa undefined: one label only)"
    return (f"Cohen's kappa {fmt_num(k.statistic, 3)} ({k.confidence:.0%} interval {fmt_num(k.low, 3)} to "
            f"{fmt_num(k.high, 3)}, asymptotic), raw agreement {fmt_num(k.agreement, 3)} over {k.n} runs")


def _confusion(g) -> str:
    cells = [f"coded {c}: " + ", ".join(f"{n} truly {h}" for h, n in sorted(row.items()))
             for c, row in sorted(g.confusion.items())]
    return "; ".join(cells)


def validation_lines(check) -> list[str]:
    """The agreement of the coded metric with the hand labels, per value, then the corrected gap."""
    out = [f"hand labels ({check.source}) for {check.n} of {check.n_runs} runs, matched on "
           f"{', '.join(check.keys)}: {_kappa(check.kappa)}"]
    for g in check.values[1:]:
        line = f"  {g.value}: {_confusion(g) or 'no validated run'}; {_kappa(g.kappa)}"
        out.append(line)
        if check.binary:
            out.append(f"    sensitivity {_share(g.sensitivity)}; specificity {_share(g.specificity)}")
            out.append(f"    of the runs coded 1, truly 1: {_share(g.ppv)}; of those coded 0, truly 0: {_share(g.npv)}")
    c = check.corrected
    if c is not None:
        rates = "; ".join(f"{v}: {fmt_num(r['observed'], 4)} coded, {fmt_num(r['corrected'], 4)} corrected"
                          for v, r in c.rates.items())
        out.append(f"corrected for the coder's error: average gap {fmt_gap(c.average_gap)} "
                   f"({c.confidence:.0%} interval {fmt_gap(c.low)} to {fmt_gap(c.high)}), against "
                   f"{fmt_gap(c.observed_gap)} as coded, over {c.n_items} items; rates {rates}")
        out.append(f"  method: {c.method}")
    return out
