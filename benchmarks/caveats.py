"""Each caveat's level and power: how often it speaks where nothing is wrong, how often it catches what it is for.

For every caveat below the script generates logs of two kinds, analyses each with ``probestats.analyze`` as a
user would, and counts the logs where the caveat fires:

- a null, where nothing is wrong: the false-alarm rate, which should be at most alpha (0.05) within two Monte
  Carlo standard errors;
- a problem the caveat exists for: its power, at the stated size.

Caveats and their logs:

``clustered_items`` (the cluster suggestion)
    null: 150 items, 2 runs, four columns of random labels constant within items (10, 15, 30 and 50 levels)
    and no cluster effect. Problem: the same items nested in 15 scenarios of 10 items each, the scenarios
    shifting their items' gaps (SD 0.5 against an item-gap noise SD of 1), beside the four random columns; a
    firing counts as power only when it names the scenario column.
``constant_arm``
    null: a rare 0/1 outcome drawn at rate 0.05 under both values, 250 items, 1 run. Problem: the same log with
    one value 0 by design.
``one_answer`` (a model that gave one number in every run under both values)
    null: 4 models, a 0/1 outcome at rate 0.5 under 'a' and 0.3 under 'b', 20 items x 2 runs. Problem: the same
    with one model giving 1 in every run. The caveat states a fact of the runs, read exactly: it fires on a
    model of few runs of a rare outcome that happened to give 0 in all of them (at rate 0.02, 5 items x 1 run
    per value: 322 of 400 models over 100 logs named, against 0.98 ** 10 = 0.817 expected), and says only that
    those runs gave 0, so that this model cannot show a gap in this log. Many values (3 values 'a', 'b', 'c'):
    null, 4 models, a 0/1 outcome at rate 0.5, 0.4 and 0.3, 20 items x 2 runs; problem, the same with one model
    giving 1 in every run. And read exactly on rare outcomes: at rate 0.02 under every value, 5 items x 1 run
    per value, each model named is checked against its rows (every run one number, under every value).
``likely_block``
    nulls: a setting drawn at random per call (two styles, 4 runs per cell), a finish_reason outcome column
    (4 runs per cell), a trial index numbered 11 to 20 (10 runs per cell). Problem: a strategy crossed with the
    cells in equal shares (2 runs of each of 2 strategies per cell).
``blocks_disagree``
    null: 4 models answering every item that share one gap (0.5) and differ only in their noise SD (0.5 to 2).
    Problem: the same with one model's gap the opposite (−0.5).
``blocks_disagree_by`` (``blocks_disagree`` with ``--by`` groups of different items)
    null: ``--by source`` over 4 sources of 30, 20, 10 and 5 items, a rare 0/1 outcome (4 runs per value) at
    rate 0.2 to 0.02 under 'b' and 0.08 more under 'a': one mean gap, each source's spread and skew its own.
    Problem: the 30-item source's 'a' rate 0.2 higher still.
``random_setting`` (the refusal of a setting declared drawn per call, ``confounded_setting``)
    null: a temperature drawn from U(0, 1.5) under both values, 12 items x 4 runs. Problem: drawn from
    U(0, 0.75) under 'a' (it tracks the value).

And the heterogeneity test of ``blocks_disagree`` alone (``heterogeneity``), before and after it was
studentized, on the same 60 x 4 matrices of item gaps: its level under a spread difference and its power where
one block's gap differs (the noisiest block or the least noisy one).

And the between-groups test of ``blocks_disagree`` alone (``between``), where each item is in one group, before
(a null bootstrap within groups, groups of fewer than 5 items left out) and after (groups under the skewness
floor left out too); with ``--permuted``, the permutation test it replaced beside them: its level on normal and
skewed gaps (exponential, lognormal, rare 0/1 outcomes) with small, unequal and many groups, and its power where
one group's gap moves.

And the effect sizes' intervals with a cluster (``coverage``): 40 clusters of 10 items, 2 runs per value,
each cluster shifting its items' gap (SD 0.5), a true gap of 0.3: the share of 95% d_z and d_av intervals
that hold the true value, item level (as without ``--cluster``) and cluster level (the BCa bootstrap of whole
clusters ``--cluster`` gives them).

Run: python benchmarks/caveats.py [--logs 300] [--only NAME ...] [--seed 0]

Measured (a shared machine; each section run alone, ``--only NAME``, seed 0; rate ± its Monte Carlo SE):

=================  ============================================  =============  ==================================  =============
caveat             null                                          false alarms   problem                             power
=================  ============================================  =============  ==================================  =============
clustered_items    random labels, no cluster effect (300 logs)   0.010 ± 0.006  15 scenarios x 10 items, SD 0.5     0.733 ± 0.026
constant_arm       0/1 at 0.05 under both, 250 items (300 logs)  0.033 ± 0.010  'b' 0 by design, 'a' at 0.05       0.963 ± 0.011
one_answer         4 models none constant (300 logs)             0.000          one model gives 1 in every run      1.000
one_answer         many values: 4 models none constant (300)     0.000          one model gives 1 in every run      1.000
likely_block       a style drawn per call (300 logs)             0.000          2 strategies in equal shares        1.000
likely_block       a finish_reason outcome column (300 logs)     0.000          2 strategies in equal shares        1.000
likely_block       a trial index 11 to 20 (300 logs)             0.000          2 strategies in equal shares        1.000
blocks_disagree    4 models share a gap, noise SD 0.5 to 2       0.033 ± 0.010  one of 4 models at -0.5             0.920 ± 0.016
blocks_disagree    --by 4 sources of 30-5 items, rare 0/1        0.063 ± 0.014  30-item source's gap 0.2 higher     0.377 ± 0.028
random_setting     a temperature drawn alike (300 logs)          0.013 ± 0.007  drawn from half the range under a   1.000
=================  ============================================  =============  ==================================  =============

(blocks_disagree, 300 logs: about 9 minutes of CPU. one_answer, 300 logs, a pair and many values: about 5
minutes. Its null cannot fire, no model's 40 (a pair) or 120 (three values) runs of an outcome at 0.3 to 0.5
being all one number but with probability below 1e-6, and the caveat is read exactly from the runs: on the
rare outcomes of many values, 558 of the 884 models of the 221 logs where some run gave 1 were named, about the
555 expected (0.98 ** 15 = 0.739 a model, given that not all four gave 0), and not one named where its rows
hold two numbers or left out where they hold one.)

(blocks_disagree_by, 300 logs each, seed 0: before, with the groups' labels permuted across items and no floor
on a group's items, the same logs drawn alike gave 0.080 ± 0.016 false alarms and power 0.520 ± 0.029; with the bootstrap and its 5-item
floor, 0.063 and power 0.370; with the skewness floor too, 0.063 ± 0.014 and 0.377 ± 0.028, 424 s: rare 0/1 gaps
are near symmetric, and the floor left their groups in.)

(random_setting: refused as ``confounded_setting`` only when its balance test gives p <= alpha and a
standardized difference of at least 0.5; refused at p <= alpha alone, an honest draw was turned away at the
test's level, 4 of 100 logs.)

(blocks_disagree, 300 logs each of :func:`model_log` analysed as above, the null's and the problem's each drawn
from its own generator seeded 0: since its heterogeneity test reads each block's mean gap against
its own standard error. Before, the raw spread of the block means permuted within items: 0.079 ± 0.023 over
140 logs and 0.088 ± 0.013 over 500, above alpha, with power 0.986 ± 0.010 over 140; the power given up is
where the model that differs is the noisiest, whose difference the old test read without its noise.)

The heterogeneity test alone, on the same 60 items x 4 blocks of item gaps (300 logs, 999 resamples; share at
p <= 0.05), before (raw spread) and after (studentized):

==========================================  =============  =============
gap matrices                                before         after
==========================================  =============  =============
null: one gap 0.5, noise SD 0.5 to 2        0.060 ± 0.014  0.047 ± 0.012
null: one gap 0.5, noise SD 1               0.047 ± 0.012  0.057 ± 0.013
noisiest at -0.5 (size 1.0), SD 0.5 to 2    0.947 ± 0.013  0.937 ± 0.014
noisiest at 0 (size 0.5), SD 0.5 to 2       0.413 ± 0.028  0.370 ± 0.028
least noisy at 0 (size 0.5), SD 2 to 0.5    0.490 ± 0.029  0.837 ± 0.021
one at 0 (size 0.5), SD 1                   0.817 ± 0.022  0.797 ± 0.023
==========================================  =============  =============

The between-groups test alone (each item in one group, as with ``--by language`` over different items;
``nice -n 10 python benchmarks/caveats.py --logs 300 --only between``; 999 resamples, seed 0; share at
p <= 0.05), before (the null bootstrap within groups, every group centred at one mean, groups of fewer than 5
items left out) and after (groups under the skewness floor left out too: a group's mean is compared only where
its skewness G1 / sqrt(n) is at most 1/3, n >= 9 G1**2, G1 the skewness of the groups' pooled standardized
deviations, ``skew_floor``), with the share of logs where fewer than two groups were left (no test: the caveat
stays silent and its reason names them as too few for gaps this skewed). Gaps: normal; exponential (skewness
2); lognormal (sigma 1, skewness 6.2); rare 0/1 outcomes (4 runs per value, at a rate of .02 to .2 under 'b'
and 0.08 more under 'a', every group's mean gap 0.08); the smallest group the noisiest (SD 0.5 to 2):

==================================================  =============  =============  ========
group gaps                                          before         after          untested
==================================================  =============  =============  ========
null: normal, 30, 20, 10, 5 items                   0.023 ± 0.009  0.023 ± 0.009  0.00
null: normal, 40 and 5 items                        0.010 ± 0.006  0.010 ± 0.006  0.04
null: normal, 15 items each                         0.037 ± 0.011  0.037 ± 0.011  0.00
null: normal, 8 groups of 10                        0.020 ± 0.008  0.020 ± 0.008  0.00
null: exponential, 30, 20, 10, 5 items              0.063 ± 0.014  0.067 ± 0.014  0.22
null: exponential, 40 and 5 items                   0.050 ± 0.013  0.003 ± 0.003  0.92
null: exponential, 15 items each                    0.053 ± 0.013  0.050 ± 0.013  0.38
null: exponential, 8 groups of 10                   0.020 ± 0.008  0.017 ± 0.007  0.36
null: lognormal, 30, 20, 10, 5 items                0.093 ± 0.017  0.017 ± 0.007  0.72
null: lognormal, 40 and 5 items                     0.090 ± 0.017  0.000          0.99
null: lognormal, 15 items each                      0.067 ± 0.014  0.037 ± 0.011  0.78
null: lognormal, 8 groups of 10                     0.030 ± 0.010  0.017 ± 0.007  0.79
null: rare 0/1, 30, 20, 10, 5 items                 0.047 ± 0.012  0.047 ± 0.012  0.00
null: rare 0/1, 40 and 5 items                      0.063 ± 0.014  0.063 ± 0.014  0.03
null: rare 0/1, 15 items each                       0.037 ± 0.011  0.037 ± 0.011  0.01
null: rare 0/1, 8 groups of 10                      0.020 ± 0.008  0.020 ± 0.008  0.00
null: rare 0/1, 30, 20, 10, 3, rates .2 to .02      0.060 ± 0.014  0.060 ± 0.014  0.00
null: rare 0/1, 30 groups of 20, rates .2 to .02    0.013 ± 0.007  0.013 ± 0.007  0.00
15 each, SD 0.5 to 2, the noisiest at -1            0.290 ± 0.026  0.290 ± 0.026  0.00
30, 20, 10, 5, SD 1, the 10 at +1                   0.373 ± 0.028  0.370 ± 0.028  0.00
exponential, 4 groups of 20, SD 1, one at +1        0.890 ± 0.018  0.673 ± 0.027  0.27
lognormal, 4 groups of 40, SD 1, one at +1          0.967 ± 0.010  0.257 ± 0.025  0.74
normal, 30 groups of 20, SD 1, one at +1            0.490 ± 0.029  0.490 ± 0.029  0.00
==================================================  =============  =============  ========

(146 s on a loaded machine.) Every null after is within alpha + 2 SE (0.075 at 300 logs). Over 1,000 logs
each (another seed, 299 resamples, ``skew_floor`` applied as here): 30, 20, 10 and 5 items, exponential 0.070
before, 0.050 ± 0.007 after; lognormal 0.095 before, 0.038 ± 0.006 after; normal 0.022 and rare 0/1 0.050
to 0.051 unchanged. 40 and 5 items: lognormal 0.112 before, 0.001 after; exponential 0.047 and 0.001; rare 0/1
0.063 and 0.062 ± 0.008 (the floor does not move it: a gap of two rare counts is near symmetric; within
0.05 + 2 SE = 0.064, the borderline row); normal 0.025. 15 items each: lognormal 0.070 and 0.037 ± 0.006,
exponential 0.047 and 0.037, rare 0/1 0.043, normal 0.046. (Tried and not kept, same logs: each group's draws
scaled from the pooled standardized deviations, 0.107 on the lognormal null; deviations inflated by
sqrt(n / (n - 1)), 0.083.) The cost is power where the gaps are skewed and the groups small: four
exponential groups of 20 items fall below the floor on 0.27 of logs (G1 estimated near 1.5, so about 20 items
are asked), and lognormal groups of 40 on 0.74 (0.967 to 0.257): there the caveat does not speak, and its
reason says the groups' gaps are too skewed to compare with so few items and names them. The floor is read in
one pass over the items (3.6 ms for 1,000 groups of 20 items, beside the test's 4 s at 10,000 resamples), and
a group it leaves out is not resampled. Before the bootstrap, the permutation of Welch's F (``--permuted``)
spoke on 0.117 to 0.250 of the skewed nulls of 30, 20, 10 and 5 items; the raw spread of the group means
permuted on 0.270 of the normal one. Where the groups are many and small the bootstrap is conservative (8
groups of 5 items: 0.001 of 1,000 null logs, normal or exponential).

Effect sizes' 95% intervals with a cluster (300 logs, 2,000 resamples): item level d_z 0.790 ± 0.024 and d_av
0.797 ± 0.023; the BCa bootstrap of whole clusters d_z 0.950 ± 0.013 and d_av 0.940 ± 0.014. Seeds 1, 2 and 3
(300 logs each): cluster level d_z 0.930, 0.953, 0.933 and d_av 0.927, 0.947, 0.933; over the 1,200 logs of
the four seeds d_z 0.942 ± 0.007 and d_av 0.937 ± 0.007 (item level 0.69 to 0.80).
"""

from __future__ import annotations

import argparse
import math
import time
import warnings

import numpy as np

ALPHA = 0.05


# --- clustered_items -------------------------------------------------------------------------------------------

def cluster_log(rng, *, effect: bool, items: int = 150, per: int = 10, effect_sd: float = 0.5) -> list[dict]:
    """Items with four random label columns constant within them; with ``effect``, nested in scenarios of
    ``per`` items each that shift their items' gaps."""
    tags = {f"tag{k}": rng.integers(0, k, items) for k in (10, 15, 30, 50)}
    scenario = np.arange(items) // per
    shift = rng.normal(0, effect_sd, items // per + 1)[scenario] if effect else np.zeros(items)
    rows = []
    for i in range(items):
        level = rng.normal()
        labels = {c: f"L{v[i]}" for c, v in tags.items()}
        if effect:
            labels["scenario"] = f"sc{scenario[i]}"
        for v in ("a", "b"):
            for s in range(2):
                y = level + rng.normal() + (shift[i] if v == "a" else 0.0)
                rows.append({"item": f"i{i}", "variant": v, "seed": s, "y": y, **labels})
    return rows


def suggested(result) -> str | None:
    hint = next((p for p in result.problems if p.code == "clustered_items"), None)
    return None if hint is None else hint.message.rsplit("cluster=", 1)[-1].strip("'")


# --- constant_arm ----------------------------------------------------------------------------------------------

def rare_log(rng, *, by_design: bool, items: int = 250, rate: float = 0.05) -> list[dict]:
    """A rare 0/1 outcome, one run per item and value; with ``by_design`` value 'b' is 0 in every run."""
    return [{"item": f"i{i}", "variant": v, "seed": 0,
             "flag": 0 if (by_design and v == "b") else int(rng.random() < rate)}
            for i in range(items) for v in ("a", "b")]


def has_caveat(result, name: str) -> bool:
    return any(c.id == name for c in result.verdict.caveats)


def fired(n: int, make, name: str, **options) -> int:
    """How many of ``n`` logs from ``make()`` the caveat ``name`` fires on, each analyzed with ``options``."""
    from probestats import analyze

    return sum(has_caveat(analyze(make(), **options), name) for _ in range(n))


# --- one_answer ------------------------------------------------------------------------------------------------

def answer_log(rng, *, constant: bool, items: int = 20, runs: int = 2) -> list[dict]:
    """4 models, a 0/1 outcome at rate 0.5 under 'a' and 0.3 under 'b'; with ``constant`` model m3 gives 1 in
    every run."""
    return [{"item": f"i{i}", "variant": v, "seed": s, "model": f"m{m}",
             "y": 1 if (constant and m == 3) else int(rng.random() < (0.5 if v == "a" else 0.3))}
            for i in range(items) for m in range(4) for v in ("a", "b") for s in range(runs)]


def many_answer_log(rng, *, constant: bool, items: int = 20, runs: int = 2,
                    rates: tuple = (0.5, 0.4, 0.3)) -> list[dict]:
    """4 models, a 0/1 outcome at ``rates`` under 'a', 'b' and 'c' (many values); with ``constant`` model m3 gives
    1 in every run."""
    return [{"item": f"i{i}", "variant": v, "seed": s, "model": f"m{m}",
             "y": 1 if (constant and m == 3) else int(rng.random() < rates[k])}
            for i in range(items) for m in range(4) for k, v in enumerate(("a", "b", "c")) for s in range(runs)]


def one_answer_misread(rows, result) -> tuple[int, int]:
    """The models the ``one_answer`` caveat names that the rows do not show giving one number under every value,
    and those it leaves out that they do: both 0 when it is read exactly."""
    values = {r["variant"] for r in rows}
    seen: dict = {}
    for r in rows:
        numbers, under = seen.setdefault(r["model"], (set(), set()))
        numbers.add(r["y"])
        under.add(r["variant"])
    truth = {m for m, (numbers, under) in seen.items() if len(numbers) == 1 and under == values}
    caveat = next((c for c in result.verdict.caveats if c.id == "one_answer"), None)
    named = set() if caveat is None else {g["by"]["model"] for g in caveat.figures["groups"]}
    return len(named - truth), len(truth - named)


# --- likely_block ----------------------------------------------------------------------------------------------

def block_log(rng, kind: str, items: int = 60) -> list[dict]:
    """``kind``: 'drawn' (a style drawn per call), 'outcome' (a finish_reason), 'trial' (an index 11 to 20), or
    'crossed' (a strategy in equal shares within every cell)."""
    rows = []
    runs = 10 if kind == "trial" else 4
    for i in range(items):
        level = rng.normal()
        for v in ("a", "b"):
            for s in range(runs):
                y = level + rng.normal() + (0.3 if v == "a" else 0.0)
                row = {"item": f"i{i}", "variant": v, "seed": s, "y": y}
                if kind == "drawn":
                    row["style"] = str(rng.choice(["terse", "verbose"]))
                elif kind == "outcome":
                    row["finish_reason"] = "length" if y + rng.normal() > 1.5 else "stop"
                elif kind == "trial":
                    row = {k: w for k, w in row.items() if k != "seed"} | {"trial": 11 + s}
                else:
                    row["strategy"] = ("cot", "plain")[s % 2]
                rows.append(row)
    return rows


# --- blocks_disagree -------------------------------------------------------------------------------------------

def model_log(rng, *, opposite: bool, items: int = 60, gap: float = 0.5) -> list[dict]:
    """4 models answering every item, 2 runs per cell; they share ``gap`` and differ in their noise SD, or
    (``opposite``) the last model's gap is ``-gap``."""
    sds = (0.5, 1.0, 1.5, 2.0)
    rows = []
    for i in range(items):
        level = rng.normal()
        for m, sd in enumerate(sds):
            g = -gap if (opposite and m == len(sds) - 1) else gap
            for v in ("a", "b"):
                for s in range(2):
                    rows.append({"item": f"i{i}", "variant": v, "seed": s, "model": f"m{m}",
                                 "y": level + rng.normal(0, sd) + (g if v == "a" else 0.0)})
    return rows


def by_log(rng, *, shifted: bool, sizes=(30, 20, 10, 5), rates=(0.2, 0.1, 0.05, 0.02), runs: int = 4) -> list[dict]:
    """``--by source`` over sources of different items (30, 20, 10 and 5), a rare 0/1 outcome at rate ``rates[g]``
    under 'b' and 0.08 more under 'a' (every source's mean gap 0.08, its spread and skew its own), ``runs`` runs
    per value; with ``shifted`` the first source's 'a' rate 0.2 higher still."""
    rows = []
    for g, (k, r) in enumerate(zip(sizes, rates)):
        for i in range(k):
            for v in ("a", "b"):
                p = r + (0.08 if v == "a" else 0.0) + (0.2 if shifted and g == 0 and v == "a" else 0.0)
                rows += [{"item": f"g{g}-{i}", "variant": v, "seed": s, "source": f"s{g}", "flag": int(rng.random() < p)}
                         for s in range(runs)]
    return rows


# --- random_setting (a setting drawn per call, refused as a confound) ---------------------------------------------

def drawn_log(rng, *, tracks: bool, items: int = 12, runs: int = 4) -> list[dict]:
    """A temperature drawn per call from U(0, 1.5) under both values, or (``tracks``) from U(0, 0.75) under 'a'."""
    rows = []
    for i in range(items):
        level = rng.normal()
        for v in ("a", "b"):
            for s in range(runs):
                t = float(rng.uniform(0, 1.5)) * (0.5 if (tracks and v == "a") else 1.0)
                rows.append({"item": f"i{i}", "variant": v, "seed": s, "temperature": round(t, 2),
                             "y": level + 2 * t + (0.3 if v == "a" else 0.0) + rng.normal()})
    return rows


def refused(rows) -> bool:
    from probestats import Probe, Tests, analyze
    from probestats.errors import ValidationError

    try:
        analyze(rows, metric="y", probe=Probe(random_settings=["temperature"]), tests=Tests(n_resamples=2000))
    except ValidationError as exc:
        return any(p.code == "confounded_setting" for p in exc.problems)
    return False


# --- the table -------------------------------------------------------------------------------------------------

def rate(hits: int, n: int) -> str:
    r = hits / n if n else float("nan")
    return f"{r:.3f} ± {math.sqrt(r * (1 - r) / n):.3f}" if n else "n/a"


def caveat_rows(n: int, rng, only) -> list[tuple]:
    from probestats import analyze

    out = []

    def want(name):
        return not only or name in only

    if want("clustered_items"):
        null = sum(suggested(analyze(cluster_log(rng, effect=False), metric="y")) is not None for _ in range(n))
        right = sum(suggested(analyze(cluster_log(rng, effect=True), metric="y")) == "scenario" for _ in range(n))
        out.append(("clustered_items", "random labels, no cluster effect", null,
                    "15 scenarios x 10 items, scenario SD 0.5 (names 'scenario')", right))
    if want("constant_arm"):
        null = fired(n, lambda: rare_log(rng, by_design=False), "constant_arm", metric="flag")
        hit = fired(n, lambda: rare_log(rng, by_design=True), "constant_arm", metric="flag")
        out.append(("constant_arm", "0/1 at rate 0.05 under both, 250 items, 1 run", null,
                    "'b' 0 by design, 'a' at rate 0.05", hit))
    if want("one_answer"):
        null = fired(n, lambda: answer_log(rng, constant=False), "one_answer", metric="y")
        hit = fired(n, lambda: answer_log(rng, constant=True), "one_answer", metric="y")
        out.append(("one_answer", "4 models, 0/1 at 0.5 and 0.3, 20 items x 2 runs", null,
                    "one model gives 1 in every run", hit))
        null = fired(n, lambda: many_answer_log(rng, constant=False), "one_answer", metric="y")
        hit = fired(n, lambda: many_answer_log(rng, constant=True), "one_answer", metric="y")
        out.append(("one_answer", "many values: 4 models, 0/1 at 0.5/0.4/0.3", null,
                    "many values: one model gives 1 in every run", hit))
        wrong = missed = named = read = 0
        for _ in range(n):   # rare outcomes, few runs: named exactly where every run of a model gave one number
            rows = many_answer_log(rng, constant=False, items=5, runs=1, rates=(0.02,) * 3)
            if len({r["y"] for r in rows}) == 1:
                continue   # nothing varies: no model stands apart
            result = analyze(rows, metric="y")
            read += 1
            w, m = one_answer_misread(rows, result)
            wrong, missed = wrong + w, missed + m
            named += sum(len(c.figures["groups"]) for c in result.verdict.caveats if c.id == "one_answer")
        print(f"one_answer, many values, 0/1 at 0.02, 5 items x 1 run x 3 values: {named} of {4 * read} models "
              f"named in the {read} of {n} logs where some run gave 1 (all 15 runs of a model give 0 with "
              f"probability 0.98 ** 15 = {0.98 ** 15:.3f}); named where the rows hold two numbers: {wrong}; left "
              f"out where they hold one: {missed}")
    if want("likely_block"):
        hit = sum(any(p.code == "likely_block" for p in analyze(block_log(rng, "crossed"), metric="y").problems)
                  for _ in range(n))
        for kind, what in (("drawn", "a style drawn per call"), ("outcome", "a finish_reason outcome column"),
                           ("trial", "a trial index 11 to 20")):
            null = sum(any(p.code == "likely_block" for p in analyze(block_log(rng, kind), metric="y").problems)
                       for _ in range(n))
            out.append(("likely_block", what, null, "2 strategies in equal shares per cell", hit))
    if want("blocks_disagree"):
        null = fired(n, lambda: model_log(rng, opposite=False), "blocks_disagree", metric="y")
        hit = fired(n, lambda: model_log(rng, opposite=True), "blocks_disagree", metric="y")
        out.append(("blocks_disagree", "4 models, one gap 0.5, noise SD 0.5 to 2", null,
                    "one of 4 models at -0.5", hit))
    if want("blocks_disagree_by"):
        null = fired(n, lambda: by_log(rng, shifted=False), "blocks_disagree", metric="flag", by=["source"])
        hit = fired(n, lambda: by_log(rng, shifted=True), "blocks_disagree", metric="flag", by=["source"])
        out.append(("blocks_disagree", "--by 4 sources of 30-5 items, rare 0/1, one gap", null,
                    "the 30-item source's gap 0.2 higher", hit))
    if want("random_setting"):
        null = sum(refused(drawn_log(rng, tracks=False)) for _ in range(n))
        hit = sum(refused(drawn_log(rng, tracks=True)) for _ in range(n))
        out.append(("random_setting", "temperature drawn alike, 12 items x 4 runs", null,
                    "drawn from half the range under 'a' (refused)", hit))
    return out


def heterogeneity(n: int, rng, resamples: int = 999) -> list[tuple]:
    """The blocks_disagree heterogeneity test alone, before (the raw spread of the block means permuted within
    items) and after (each block against its own standard error), on 60 items x 4 blocks of item gaps (the gap
    of 2 runs per value, so its SD is the run noise SD): the share of logs at p <= alpha."""
    from probestats.analyses.blocks import heterogeneity_test
    from probestats.analyses.omnibus import omnibus_test

    sds = np.array([0.5, 1.0, 1.5, 2.0])
    cases = [("null: one gap 0.5, noise SD 0.5 to 2", [0.5] * 4, sds),
             ("null: one gap 0.5, noise SD 1", [0.5] * 4, np.ones(4)),
             ("noisiest at -0.5 (size 1.0), SD 0.5 to 2", [0.5, 0.5, 0.5, -0.5], sds),
             ("noisiest at 0 (size 0.5), SD 0.5 to 2", [0.5, 0.5, 0.5, 0.0], sds),
             ("least noisy at 0 (size 0.5), SD 2 to 0.5", [0.5, 0.5, 0.5, 0.0], sds[::-1]),
             ("one at 0 (size 0.5), SD 1", [0.5, 0.5, 0.5, 0.0], np.ones(4))]
    out = []
    for what, gaps, sd in cases:
        before = after = 0
        for rep in range(n):
            m = np.asarray(gaps) + rng.normal(0, 1, (60, 4)) * sd
            before += omnibus_test(m, n_resamples=resamples, seed=rep).pvalue <= ALPHA
            after += heterogeneity_test(m, n_resamples=resamples, seed=rep).pvalue <= ALPHA
        out.append((what, before, after))
    return out


def permuted_welch(gaps, codes, sizes, n_resamples: int, rng) -> float:
    """The between-groups test before the bootstrap: Welch's F read through its F distribution, the groups'
    labels permuted across items."""
    from probestats.analyses.blocks import _welch_evidence

    k = len(sizes)
    x = gaps - gaps.mean()
    scale = float(np.max(np.abs(x)))

    def evidence(rows):
        lab = (rows + (np.arange(len(rows)) * k)[:, None]).ravel()
        sums = np.bincount(lab, weights=np.tile(x, len(rows)), minlength=len(rows) * k).reshape(-1, k)
        squares = np.bincount(lab, weights=np.tile(x * x, len(rows)), minlength=len(rows) * k).reshape(-1, k)
        return _welch_evidence(sums, squares, sizes, scale)

    observed = evidence(codes[None, :])[0]
    draws = evidence(np.stack([rng.permutation(codes) for _ in range(n_resamples)]))
    return (np.count_nonzero(draws >= observed - 1e-9 * max(abs(observed), 1.0)) + 1) / (n_resamples + 1)


def group_gaps(rng, kind: str, sizes, spreads, shifts) -> np.ndarray:
    """Item gaps of groups of ``sizes`` items: ``normal``, ``exp`` (exponential noise, skewness 2),
    ``lognormal`` (sigma 1, skewness 6.2), each of mean 0 and SD ``spreads[g]``; or ``rare`` (a 0/1 outcome, 4
    runs per value, at rate ``spreads[g]`` under 'b' and 0.08 more under 'a': every group's mean gap is 0.08,
    its spread and skew its own). Each group's gap moved by ``shifts[g]``."""
    out = []
    for k, sd, shift in zip(sizes, spreads, shifts):
        if kind == "rare":
            e = (rng.random((k, 4)) < sd + 0.08).mean(axis=1) - (rng.random((k, 4)) < sd).mean(axis=1)
        else:
            e = {"normal": lambda: rng.normal(0, 1, k), "exp": lambda: rng.exponential(1, k) - 1,
                 "lognormal": lambda: (rng.lognormal(0, 1, k) - math.exp(0.5)) / math.sqrt((math.e - 1) * math.e)}[kind]()
            e = e * sd
        out.append(e + shift)
    return np.concatenate(out)


#: the between-groups layouts: (name, sizes, spreads, rare 0/1 rates), every null drawn on each of them
LAYOUTS = (("30, 20, 10, 5 items", [30, 20, 10, 5], [0.5, 1, 1.5, 2], [0.2, 0.1, 0.05, 0.02]),
           ("40 and 5 items", [40, 5], [0.5, 2], [0.2, 0.02]),
           ("15 items each", [15] * 4, [0.5, 1, 1.5, 2], [0.2, 0.1, 0.05, 0.02]),
           ("8 groups of 10", [10] * 8, list(np.linspace(0.5, 2, 8)), list(np.linspace(0.2, 0.02, 8))))
_KINDS = {"normal": "normal", "exp": "exponential", "lognormal": "lognormal", "rare": "rare 0/1"}

#: the between-groups cases: (what, kind, sizes, spreads, shifts); nulls first (each kind of gaps on each
#: layout, the smallest group the noisiest), then problems it must catch
BETWEEN = ([(f"null: {_KINDS[kind]}, {name}", kind, sizes, rates if kind == "rare" else spreads, [0] * len(sizes))
            for kind in _KINDS for name, sizes, spreads, rates in LAYOUTS]
           + [("null: rare 0/1, 30, 20, 10, 3, rates .2 to .02", "rare", [30, 20, 10, 3], [0.2, 0.1, 0.05, 0.02],
               [0] * 4),
              ("null: rare 0/1, 30 groups of 20, rates .2 to .02", "rare", [20] * 30, list(np.linspace(0.2, 0.02, 30)),
               [0] * 30),
              ("15 each, SD 0.5 to 2, the noisiest at -1", "normal", [15] * 4, [0.5, 1, 1.5, 2], [0, 0, 0, -1]),
              ("30, 20, 10, 5, SD 1, the 10 at +1", "normal", [30, 20, 10, 5], [1] * 4, [0, 0, 1, 0]),
              ("exponential, 4 groups of 20, SD 1, one at +1", "exp", [20] * 4, [1] * 4, [1, 0, 0, 0]),
              ("lognormal, 4 groups of 40, SD 1, one at +1", "lognormal", [40] * 4, [1] * 4, [1, 0, 0, 0]),
              ("normal, 30 groups of 20, SD 1, one at +1", "normal", [20] * 30, [1] * 30, [1] + [0] * 29)])


def between(n: int, rng, resamples: int = 999, permuted: bool = False) -> list[tuple]:
    """The between-groups test of ``blocks_disagree`` (each item in one group: languages, sources) alone, on the
    cases of :data:`BETWEEN`: the share of logs at p <= alpha, before (the bootstrap within groups, every group
    centred at one mean, groups of fewer than ``MIN_GROUP_ITEMS`` items left out) and after (groups below the
    skewness floor of :func:`~probestats.analyses.blocks.skew_floor` left out too, as :func:`block_agreement`
    leaves them), with the share of logs where fewer than two groups were left to test (no test: the caveat
    names them and stays silent); with ``permuted``, also the permutation test of Welch's F (the first
    version). Rows ``(what, permuted or None, before, after, untested)``."""
    from probestats.analyses.blocks import MIN_GROUP_ITEMS, between_groups_test, skew_floor

    out = []
    for what, kind, sizes, spreads, shifts in BETWEEN:
        codes = np.repeat(np.arange(len(sizes)), sizes)
        kept = np.isin(codes, [g for g, k in enumerate(sizes) if k >= MIN_GROUP_ITEMS])
        labels = [f"g{c}" for c in codes[kept]]
        first = before = after = untested = 0
        for rep in range(n):
            x = group_gaps(rng, kind, sizes, spreads, shifts)
            if permuted:
                first += permuted_welch(x, codes, np.array(sizes, float), resamples, rng) <= ALPHA
            p = between_groups_test(x[kept], labels, n_resamples=resamples, seed=rep).pvalue
            before += p <= ALPHA
            floor, _ = skew_floor(x[kept], labels)
            big = [g for g, k in enumerate(sizes) if k >= floor]
            if len(big) < 2:
                untested += 1
                continue
            if len(big) < len(set(codes[kept].tolist())):
                on = np.isin(codes, big)
                p = between_groups_test(x[on], [f"g{c}" for c in codes[on]], n_resamples=resamples, seed=rep).pvalue
            after += p <= ALPHA
        out.append((what, first if permuted else None, before, after, untested))
    return out


def coverage(n: int, rng, resamples: int) -> list[tuple]:
    """The share of 95% d_z and d_av intervals holding the true value, item level and cluster level."""
    from probestats.analyses.clusters import cluster_effect_sizes
    from probestats.stats.effects import effect_sizes

    clusters, per, runs, sd_c, gap = 40, 10, 2, 0.5, 0.3
    true = {"d_z": gap / math.sqrt(sd_c ** 2 + 2 / runs),
            "d_av": gap / math.sqrt(((1 + sd_c ** 2 + 1 / runs) + (1 + 1 / runs)) / 2)}
    held = {(name, level): 0 for name in true for level in ("items", "clusters")}
    ids = np.repeat(np.arange(clusters), per)
    for rep in range(n):
        level = rng.normal(0, 1, clusters * per)
        shift = np.repeat(rng.normal(0, sd_c, clusters), per)
        a = level + shift + gap + rng.normal(0, 1, (clusters * per, runs)).mean(axis=1)
        b = level + rng.normal(0, 1, (clusters * per, runs)).mean(axis=1)
        items = effect_sizes(a, b, n_resamples=resamples, seed=rep)
        clustered = cluster_effect_sizes(items, a, b, ids, n_resamples=resamples, seed=rep)
        for name, value in true.items():
            for lev, eff in (("items", items.get(name)), ("clusters", clustered.get(name))):
                held[(name, lev)] += eff.low <= value <= eff.high
    return [(name, lev, held[(name, lev)]) for (name, lev) in held]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=int, default=300, help="logs per null and per problem (default 300)")
    parser.add_argument("--only", nargs="*", default=(), help="sections to run: clustered_items constant_arm "
                        "one_answer likely_block blocks_disagree blocks_disagree_by random_setting heterogeneity between "
                        "coverage")
    parser.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples in the coverage section")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--permuted", action="store_true", help="the between-groups section also runs the "
                        "permutation test it replaced (slow)")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(args.seed)
    n = args.logs
    start = time.time()
    rows = (caveat_rows(n, rng, set(args.only) - {"coverage", "heterogeneity", "between"})
            if set(args.only) - {"coverage", "heterogeneity", "between"} or not args.only else [])
    if rows:
        print(f"{n} logs per null and per problem; alpha {ALPHA}")
        print(f"{'caveat':<17}{'null (must stay silent)':<48}{'false alarms':>15}{'<= alpha + 2 SE':>17}   "
              f"{'problem (must fire)':<58}{'power':>14}")
        for name, null_what, null, hit_what, hit in rows:
            r = null / n
            ok = "yes" if r <= ALPHA + 2 * math.sqrt(ALPHA * (1 - ALPHA) / n) else "NO"
            print(f"{name:<17}{null_what:<48}{rate(null, n):>15}{ok:>17}   {hit_what:<58}{rate(hit, n):>14}")
    if not args.only or "heterogeneity" in args.only:
        print(f"\nblocks_disagree's heterogeneity test alone, 60 items x 4 blocks; {n} logs, 999 resamples; share at "
              f"p <= {ALPHA}")
        print(f"{'gap matrices':<44}{'raw spread (before)':>22}{'studentized (after)':>22}")
        for what, before, after in heterogeneity(n, rng):
            print(f"{what:<44}{rate(before, n):>22}{rate(after, n):>22}", flush=True)
    if not args.only or "between" in args.only:
        print(f"\nblocks_disagree's between-groups test alone (each item in one group); {n} logs, 999 "
              f"resamples; share at p <= {ALPHA}")
        print(f"{'group gaps':<52}{'permuted' if args.permuted else '':>16}{'5-item floor (before)':>24}"
              f"{'skew floor (after)':>20}{'untested':>10}")
        for what, first, before, after, untested in between(n, rng, permuted=args.permuted):
            print(f"{what:<52}{'' if first is None else rate(first, n):>16}{rate(before, n):>24}"
                  f"{rate(after, n):>20}{untested / n:>10.2f}", flush=True)
    if not args.only or "coverage" in args.only:
        print(f"\neffect sizes' 95% intervals, 40 clusters x 10 items, cluster SD 0.5, gap 0.3; {n} logs, "
              f"{args.resamples} resamples")
        print(f"{'effect':<8}{'intervals':<40}{'coverage':>16}")
        for name, lev, held in coverage(n, rng, args.resamples):
            label = ("items independent (no --cluster)" if lev == "items"
                     else "BCa bootstrap of clusters (--cluster)")
            print(f"{name:<8}{label:<40}{rate(held, n):>16}")
    print(f"({time.time() - start:.0f} s)")


if __name__ == "__main__":
    main()
