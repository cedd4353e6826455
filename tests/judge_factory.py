"""Make pairwise-judge logs with a known position behaviour, for tests.

Each item is judged in two orders, ``AB`` (answer X first) and ``BA`` (answer Y first).
Per judge and item: with probability ``consistency`` the judge prefers the same answer in
both orders (a tie twice with probability ``ties``, else X or Y with even odds);
otherwise it picks a slot whatever the answers: the first slot both times with
probability ``primacy``, the second both times otherwise. So the planted position
consistency is ``consistency`` and, among inconsistent items, the share of primacy is
``primacy``.

Examples
--------
>>> log = make_judge_log(items=3, judges={"j": Judge(0.5, 0.9)}, seed=1)
>>> log.columns
['judge', 'item', 'order', 'reply', 'choice']
>>> log.height
6
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

TAGS = {"first": "[[A]]", "second": "[[B]]", "tie": "[[C]]"}
RULES = ["first=[[A]]", "second=[[B]]", "tie=[[C]]"]


@dataclass(frozen=True)
class Judge:
    consistency: float
    primacy: float
    ties: float = 0.0


def draw_pairs(rng, n: int, judge: Judge) -> list[tuple[str, str]]:
    """``n`` pairs of verdicts (order AB, order BA) from the judge's planted behaviour."""
    consistent = rng.random(n) < judge.consistency
    tie = rng.random(n) < judge.ties
    x_better = rng.random(n) < 0.5
    first_both = rng.random(n) < judge.primacy
    out = []
    for c, t, x, f in zip(consistent, tie, x_better, first_both):
        if c:
            out.append(("tie", "tie") if t else (("first", "second") if x else ("second", "first")))
        else:
            out.append(("first", "first") if f else ("second", "second"))
    return out


def make_judge_log(items: int = 40, judges: dict[str, Judge] | None = None, seed: int = 0,
                   repetitions: int = 0, reply_noise: bool = True) -> pl.DataFrame:
    """A log with one row per verdict: judge, item, order, the judge's reply and the slot it chose.

    With ``repetitions`` > 0 a ``repetition`` column is added and every repetition is drawn
    afresh. Replies wrap the verdict tag in varying prose when ``reply_noise``.
    """
    rng = np.random.default_rng(seed)
    judges = judges or {"judge": Judge(0.7, 0.5)}
    rows = []
    for name, judge in judges.items():
        for rep in range(max(1, repetitions)):
            for i, (v1, v2) in enumerate(draw_pairs(rng, items, judge)):
                for order, v in (("AB", v1), ("BA", v2)):
                    lead = ["", "After weighing both, ", "Assistant A is clearer. "][int(rng.integers(3))] \
                        if reply_noise else ""
                    row = {"judge": name, "item": f"q{i:03d}", "order": order,
                           "reply": f"{lead}Final verdict: {TAGS[v]}", "choice": v}
                    if repetitions:
                        row["repetition"] = rep + 1
                    rows.append(row)
    return pl.DataFrame(rows)


def pairs_log(pairs, *, orders=("AB", "BA")) -> pl.DataFrame:
    """A one-judge log from written-out pairs of verdicts (None: an unreadable reply)."""
    rows = []
    for i, (v1, v2) in enumerate(pairs):
        for order, v in zip(orders, (v1, v2)):
            rows.append({"item": f"i{i}", "order": order,
                         "reply": "no verdict given" if v is None else f"Verdict: {TAGS[v]}",
                         "choice": v})
    return pl.DataFrame(rows, schema={"item": pl.String, "order": pl.String, "reply": pl.String,
                                      "choice": pl.String})
