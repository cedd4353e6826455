"""Exact means: the mean of a cell's runs, rounded once, whatever the digits of its values.

The rule, the same for one list of numbers (:func:`exact_mean`) and for every cell of a frame
(:func:`mean_aggs` with :func:`finish_means`, or :func:`cell_means`):

- **Short decimals**: when every value of the cell is the float of a decimal with at most 6 places
  (``3``, ``3.31``, ``-0.05``, as a log writes them), the mean is the exact mean of those decimals,
  rounded once to the nearest float. So 0.1 and 0.2 have the mean 0.15 (the mean of the binary
  floats nearest 0.1 and 0.2 would round to 0.15000000000000002), and a mean is the one a person
  computes from the file.
- **Any other float** (``113.99999999999989``, ``1/3``, ``1e-300``): the exact mean of the binary
  values, rounded once (what ``float(sum(map(Fraction, values)) / len(values))`` gives).

Either way the mean does not depend on the order of the runs, so an item whose values gave the same
runs has a gap of exactly 0; no sum overflows (two runs of 1e308 have the mean 1e308); and the common
case costs one pass of sums in polars: whole numbers are summed exactly in 53 bits, short decimals as
whole multiples of 10^-places. Only the cells that need more (other floats, sums beyond 2^50) are
finished in Python with :func:`exact_mean`.

From exact sums
---------------
A cell table (one item and value, and ``by`` group, per row) holds the same rule as sums: a cell's
number of runs with a value ``n``, and the exact sums ``S = sum(x)`` and ``Q = sum(x**2)``. With the
metric's values written in at most ``places`` decimal places (see
:func:`probestats.checks.schema.decimal_places`) these are whole numbers of units of ``10**-places``
(:func:`units`), summed without rounding (128-bit integers in polars, DECIMAL(38, 0) in SQL engines,
Python integers here).

* mean = ``S / (n * 10**places)``, correctly rounded to the nearest float: the short decimals' mean above;
* sd = the square root (correctly rounded) of the sample variance
  ``(n Q - S**2) / (n (n - 1) 10**(2 places))`` correctly rounded to the nearest float
  (:func:`mean_sd`, :func:`moments` for whole columns, :func:`with_exact_moments` for a frame).

Both are functions of the exact rational numbers only, so the row log, a cell table
written by ``probestats cells`` and one built by a warehouse give the same bits, and the
choice of ``places`` (any number at least the fewest needed) does not change them.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Iterable, Sequence

import polars as pl

MAX_PLACES = 6
_FAST = 2.0**50  # below it a scaled value rounds to its whole number exactly, and their sums stay exact
_FLAG = "__exact_pending"


def exact_mean(values: Iterable[float]) -> float:
    """The mean of ``values``, rounded once to the nearest float (the rule in the module's docstring).

    Parameters
    ----------
    values : iterable of float
        At least one number; blanks must be dropped first.

    Examples
    --------
    >>> exact_mean([113.99999999999989, 1.0])  # the float sum 114.99999999999989 halves to 57.49999999999994
    57.49999999999994
    >>> exact_mean([0.1, 0.2]), exact_mean([1e308, 1e308]), exact_mean([3, 4])
    (0.15, 1e+308, 3.5)
    """
    values = list(values)
    n = len(values)
    if not n:
        raise ValueError("exact_mean needs at least one value in values")
    if all(isinstance(v, int) for v in values):  # whole numbers of any size, as Python holds them
        return sum(values) / n
    xs = [float(v) for v in values]
    if not all(map(math.isfinite, xs)):
        return sum(xs) / n  # nan, or the infinity: what IEEE arithmetic says
    places = [_places(x) for x in xs]
    if None not in places:
        scale = 10 ** max(places)
        # whole multiples of 10^-places, summed as Python integers; int / int is rounded once
        return sum(_whole(x, scale) for x in xs) / (n * scale)
    return _binary_mean(xs)


def fraction_mean(values: Iterable[float]) -> Fraction:
    """The exact mean that :func:`exact_mean` rounds, as a fraction: of the decimals when every value is a
    short decimal (at most 6 places), else of the binary values. Differences and sums of such means are
    exact, so two means of the same numbers differ by exactly 0, whatever the order of their runs.

    Examples
    --------
    >>> fraction_mean([0.1, 0.2]), fraction_mean([1, 2, 2])
    (Fraction(3, 20), Fraction(5, 3))
    >>> fraction_mean([0.1, 0.2, 0.7]) * 3 == fraction_mean([1.0, 0.0, 0.0]) * 3   # both sum to exactly 1
    True
    """
    values = list(values)
    n = len(values)
    if not n:
        raise ValueError("fraction_mean needs at least one value in values")
    if all(isinstance(v, int) for v in values):
        return Fraction(sum(values), n)
    xs = [float(v) for v in values]
    if not all(map(math.isfinite, xs)):
        raise ValueError("fraction_mean needs finite values")
    places = [_places(x) for x in xs]
    if None not in places:
        scale = 10 ** max(places)
        return Fraction(sum(_whole(x, scale) for x in xs), n * scale)
    return sum(map(Fraction, xs), Fraction(0)) / n


def mean_of_combination(terms: Sequence[tuple[float, Sequence[float]]]) -> float:
    """The mean over items of ``sum(coef * column)``, computed exactly from the columns' floats and rounded once.

    A gap of item means (``[(1, mean_a), (-1, mean_b)]``) is the difference of the exact sums of the two
    columns over the items, divided by their number: the rule behind every printed gap of exact means. Two
    columns holding the same numbers (in any order) have a gap of exactly 0, where the mean of the float
    item gaps ``mean_a - mean_b`` (each rounded) can leave a residue such as ``4.6e-18``.

    Examples
    --------
    >>> a, b = [0.4, 0.7, 0.1, 0.3], [0.1, 0.4, 0.3, 0.7]
    >>> sum(x - y for x, y in zip(a, b)) / 4   # the float item gaps, each rounded, leave a residue
    1.3877787807814457e-17
    >>> mean_of_combination([(1, a), (-1, b)])
    0.0
    >>> mean_of_combination([(0.5, [1.0, 2.0]), (0.5, [3.0, 5.0])])
    2.75
    """
    columns = [(Fraction(c), list(xs)) for c, xs in terms]
    n = len(columns[0][1]) if columns else 0
    if not n:
        return float("nan")
    values = [x for _, xs in columns for x in xs]
    if not all(math.isfinite(float(x)) for x in values):
        return sum(float(c) * sum(map(float, xs)) for c, xs in columns) / n
    return float(sum((c * binary_sum(xs) for c, xs in columns), Fraction(0)) / n)


def binary_sum(values: Sequence[float]) -> Fraction:
    """The exact sum of finite floats (``sum(map(Fraction, map(float, values)))``), from integer sums on the
    binary lattice: each float is a 53-bit whole number times a power of two; the whole numbers of each power
    are summed in 64-bit integers (in halves of 26 and 27 bits, so no sum of fewer than 2**36 values
    overflows), and the few powers' sums are shifted onto the smallest one in Python integers.

    >>> binary_sum([0.1, 0.2, -0.3]) == Fraction(0.1) + Fraction(0.2) - Fraction(0.3)
    True
    >>> binary_sum([1e308, 1e308, 5e-324]) == 2 * Fraction(1e308) + Fraction(5e-324)
    True
    """
    import numpy as np

    x = np.fromiter(map(float, values), dtype=np.float64, count=len(values))
    if not x.size:
        return Fraction(0)
    mantissa, exponent = np.frexp(x)   # x = mantissa * 2**exponent, 0.5 <= |mantissa| < 1 (or 0)
    whole = (mantissa * 2.0**53).astype(np.int64)   # exact: |whole| < 2**53
    power = exponent.astype(np.int64) - 53
    order = np.argsort(power, kind="stable")
    power, whole = power[order], whole[order]
    starts = np.flatnonzero(np.r_[True, power[1:] != power[:-1]])
    high = whole >> 26                    # whole = high * 2**26 + low, 0 <= low < 2**26
    low = whole - (high << 26)
    highs, lows = np.add.reduceat(high, starts), np.add.reduceat(low, starts)
    least = int(power[0])
    total = sum(((int(h) << 26) + int(lo)) << (int(p) - least) for h, lo, p in zip(highs, lows, power[starts]))
    return Fraction(total << least) if least >= 0 else Fraction(total, 1 << -least)


def _places(x: float) -> int | None:
    """The fewest places (0 to 6) of a decimal whose nearest float is ``x``; None when it has more."""
    if x == math.floor(x):
        return 0
    exact = Fraction(x) if abs(x) * 10**MAX_PLACES >= _FAST else None
    for p in range(1, MAX_PLACES + 1):
        scale = 10**p
        whole = round(x * scale) if exact is None else round(exact * scale)
        if whole / scale == x:  # int / int is correctly rounded: the float nearest the decimal
            return p
    return None


def _whole(x: float, scale: int) -> int:
    """``x`` (a decimal with at most log10(scale) places) as a whole number of 1/scale."""
    if x == math.floor(x):
        return int(x) * scale
    return round(x * scale) if abs(x) * scale < _FAST else round(Fraction(x) * scale)


def _binary_mean(xs: list[float]) -> float:
    """The exact mean of floats, rounded once: their sum as a short sum of floats that do not overlap
    (``fsum`` is rounded once, so what it leaves out is found by summing again with it subtracted)."""
    n = len(xs)
    try:
        parts = [math.fsum(xs)]
        while math.isfinite(parts[-1]):
            rest = math.fsum([*xs, *(-p for p in parts)])
            if rest == 0:
                # one part: the sum is exact, and float / float is rounded once
                return parts[0] / n if len(parts) == 1 else float(sum(map(Fraction, parts)) / n)
            parts.append(rest)
    except OverflowError:  # a sum beyond the largest float on the way
        pass
    return float(sum(map(Fraction, xs)) / n)


def row_places(values: pl.Series) -> pl.Series:
    """Per value, the fewest places (0 to 6) of a decimal whose nearest float it is; null when it has
    more, or is too large to tell in floats (then :func:`exact_mean` tells, with fractions).

    >>> row_places(pl.Series([3.0, 3.31, -0.05, 113.99999999999989, None])).to_list()
    [0, 2, 2, None, 0]
    """
    x = pl.col("v")
    # x.round(p) is (x * 10^p).round() / 10^p: x is the float nearest a decimal with p places when it
    # gives x back (exact below 2^50). Written so rather than with x * 10.0**p: polars 2.1's common
    # subexpression elimination mixed up seven such products and took 3.0000000000000004 for 5 places.
    places = pl.when(x.is_null()).then(0).when(x == x.round()).then(0)
    for p in range(1, MAX_PLACES + 1):
        places = places.when((x.abs() < _FAST / 10**p) & (x.round(p) == x)).then(p)
    return values.cast(pl.Float64).to_frame("v").select(places.otherwise(None).cast(pl.Int8).alias("places"))["places"]


def mean_aggs(values: pl.Series, column: str, name: str = "mean") -> list[pl.Expr]:
    """Aggregations for a ``group_by`` over rows whose ``column`` holds ``values``: the cell's exact
    mean where one pass of sums gives it, and a flag for the cells :func:`finish_means` must finish.

    ``values`` (the whole column) chooses the expressions: whole numbers are summed as they are
    (exact below 2^53); short decimals as whole multiples of 10^-places (the most any value has:
    the decimals' mean is the same whatever common places they are written with); other floats
    are left to :func:`finish_means`.
    """
    x = pl.col(column)
    count = x.count()
    if values.dtype.is_integer():  # two reductions, no copy of the column
        n, whole, finite = values.count(), True, True
        top = float(max(abs(values.min() or 0), abs(values.max() or 0)))
    else:
        v = pl.col("v")
        top, n, whole, finite = values.cast(pl.Float64).to_frame("v").select(
            v.abs().max().alias("top"), v.count().alias("n"), (v == v.round()).all().alias("whole"),
            v.is_finite().all().alias("finite")).row(0)
    flag = f"{name}{_FLAG}"
    if not n:
        return [pl.lit(None, pl.Float64).alias(name), pl.lit(False).alias(flag)]
    if not finite:
        return [pl.lit(None, pl.Float64).alias(name), (count > 0).alias(flag)]
    if whole:
        if top * n < 2.0**53:  # every partial sum of every cell is a whole number below 2^53: exact
            return [pl.when(count > 0).then(x.sum() / count).alias(name), pl.lit(False).alias(flag)]
        pending = x.abs().max().cast(pl.Float64) * count >= 2.0**53
        return [pl.when((count > 0) & ~pending).then(x.sum() / count).alias(name), ((count > 0) & pending).alias(flag)]
    places = row_places(values)
    if places.null_count():  # some run is not a short decimal: those cells are finished in Python
        return [pl.lit(None, pl.Float64).alias(name), (count > 0).alias(flag)]
    scale = 10.0 ** int(places.max())
    mean = (x * scale).round().sum() / (count * scale)
    if top * scale * n < _FAST:
        return [pl.when(count > 0).then(mean).alias(name), pl.lit(False).alias(flag)]
    pending = x.abs().max() * scale * count >= _FAST
    return [pl.when((count > 0) & ~pending).then(mean).alias(name), ((count > 0) & pending).alias(flag)]


def finish_means(per: pl.DataFrame, rows: pl.DataFrame | pl.LazyFrame, cell: Sequence[str], column: str,
                 name: str = "mean") -> pl.DataFrame:
    """The cells of ``per`` (aggregated with :func:`mean_aggs`) with every mean filled in: the flagged
    cells get :func:`exact_mean` of their runs in ``rows``; the flag column is dropped."""
    flag = f"{name}{_FLAG}"
    cell = list(cell)
    pending = per.filter(pl.col(flag)).select(cell)
    per = per.drop(flag)
    if not pending.height:
        return per
    runs = (rows.lazy().join(pending.lazy(), on=cell, how="semi", nulls_equal=True)
            .filter(pl.col(column).is_not_null()).select(*cell, column).collect())
    if runs.schema[column].is_integer():  # whole numbers of any size: exact as Python integers
        lists = runs.group_by(cell).agg(pl.col(column))
        exact = lists.select(cell).with_columns(
            pl.Series("__exact", [exact_mean(xs) for xs in lists[column].to_list()], dtype=pl.Float64))
        return (per.join(exact, on=cell, how="left", nulls_equal=True, maintain_order="left")
                .with_columns(pl.coalesce(name, "__exact").alias(name)).drop("__exact"))
    runs = runs.with_columns(pl.col(column).cast(pl.Float64))
    runs = runs.with_columns(row_places(runs[column]).alias("__places"))
    lists = runs.group_by(cell).agg(pl.col(column), pl.col("__places"))
    means = pl.Series("__exact", [_mean_with_places(xs, ps) for xs, ps in
                                  zip(lists[column].to_list(), lists["__places"].to_list())], dtype=pl.Float64)
    exact = lists.select(cell).with_columns(means)
    return (per.join(exact, on=cell, how="left", nulls_equal=True, maintain_order="left")
            .with_columns(pl.coalesce(name, "__exact").alias(name)).drop("__exact"))


def _mean_with_places(xs: list[float], places: list[int | None]) -> float:
    """:func:`exact_mean` with the places :func:`row_places` found (None: more, or too large to tell)."""
    if None not in places:
        scale = 10 ** max(places)
        return sum(_whole(x, scale) for x in xs) / (len(xs) * scale)
    if all(abs(x) < _FAST / 10**MAX_PLACES for x, p in zip(xs, places) if p is None):
        return _binary_mean(xs)  # each run without places has none: the row check was exact there
    return exact_mean(xs)


def cell_means(rows: pl.DataFrame, cell: Sequence[str], column: str, name: str = "mean") -> pl.DataFrame:
    """One row per cell (the ``cell`` columns) with the exact mean of ``column`` over its runs.

    Examples
    --------
    >>> rows = pl.DataFrame({"item": ["1", "1", "2", "2"], "steps": [113.99999999999989, 1.0, 0.1, 0.2]})
    >>> cell_means(rows, ["item"], "steps").sort("item").rows()
    [('1', 57.49999999999994), ('2', 0.15)]
    """
    per = rows.lazy().group_by(list(cell)).agg(mean_aggs(rows[column], column, name)).collect()
    return finish_means(per, rows, cell, column, name)


# From exact sums: the rule on a cell's runs, exact sum and exact sum of squares
def units(value: pl.Expr, places: int) -> pl.Expr:
    """The metric as whole units of ``10**-places`` in 128-bit integers (exact sums, exact squares).

    >>> pl.DataFrame({"x": [0.1, 0.25]}).select(units(pl.col("x"), 2)).to_series().to_list()
    [10, 25]
    """
    whole = value if places == 0 else (value * 10**places).round()
    return whole.cast(pl.Int64).cast(pl.Int128)


def mean_sd(n: int, s: int, q: int, places: int) -> tuple[float | None, float | None]:
    """Mean and sample standard deviation from exact sums of units (None where undefined).

    >>> mean_sd(3, 1 + 2 + 4, 1 + 4 + 16, 0)  # 7/3, and sd of 1, 2, 4: sqrt(7/3)
    (2.3333333333333335, 1.5275252316519468)
    >>> a, b = 11399999999999989, 100000000000000  # 113.99999999999989 and 1 in units of 1e-14
    >>> mean_sd(2, a + b, a * a + b * b, 14)[0]
    57.49999999999994
    """
    n = int(n)
    if n <= 0:
        return None, None
    scale = 10 ** int(places)
    s = int(s)
    # int / int is correctly rounded in Python (what float(Fraction(a, b)) computes, without the gcd)
    mean = s / (n * scale)
    if n < 2:
        return mean, None
    var = (n * int(q) - s * s) / (n * (n - 1) * scale * scale)
    return mean, math.sqrt(var)


def with_exact_moments(frame: pl.DataFrame, places: int, suffix: str = "") -> pl.DataFrame:
    """Replace ``mean``/``sd`` (with ``suffix``) by the exact rule, from ``counted``, ``__s``, ``__q``.

    >>> f = pl.DataFrame({"counted": [3], "__s": [7], "__q": [21], "mean": [0.0], "sd": [0.0]},
    ...                  schema_overrides={"__s": pl.Int128, "__q": pl.Int128})
    >>> with_exact_moments(f, 0).row(0)
    (3, 2.3333333333333335, 1.5275252316519468)
    """
    n, s, q = f"counted{suffix}", f"__s{suffix}", f"__q{suffix}"
    mean, sd = moments(frame[n], frame[s], frame[q], places)
    return frame.with_columns(mean.alias(f"mean{suffix}"), sd.alias(f"sd{suffix}")).drop(s, q)


def moments(n: pl.Series, s: pl.Series, q: pl.Series, places: int) -> tuple[pl.Series, pl.Series]:
    """:func:`mean_sd` of every row of the runs ``n`` and exact sums ``s``, ``q`` (null where undefined).

    Where every numerator and denominator is a whole number of at most 53 bits, a float holds each
    exactly and one float division is the correctly rounded quotient, as ``int / int`` is: the
    columns are divided at once; other rows take :func:`mean_sd` one by one. The bits are the same.

    >>> n, s, q = pl.Series([3, 1, 0]), pl.Series([7, 5, 0]), pl.Series([21, 25, 0])
    >>> [x.to_list() for x in moments(n, s, q, 0)]
    [[2.3333333333333335, 5.0, None], [1.5275252316519468, None, None]]
    """
    scale = 10 ** int(places)
    wide = pl.DataFrame([n.cast(pl.Int128).alias("n"), s.cast(pl.Int128).alias("s"), q.cast(pl.Int128).alias("q")])
    top = wide.select(pl.col("n").max(), pl.col("s").abs().max(), pl.col("q").abs().max()).row(0)
    small = all(x is None or x < 2**53 for x in top) and (top[0] or 0) * scale < 2**53 and scale < 2**53
    if small:   # then n q < 2**106 and s**2 < 2**106: the numerator of the variance is exact in 128 bits
        cells = wide.select(
            pl.col("n"), pl.col("s"), (pl.col("n") * pl.col("q") - pl.col("s") * pl.col("s")).alias("num"),
            (pl.col("n") * (pl.col("n") - 1) * pl.lit(scale * scale, pl.Int128)).alias("den"))
        big = cells.select(pl.col("num").abs().max(), pl.col("den").max()).row(0)
        small = all(x is None or x <= 2**53 for x in big)
    if not small:
        pairs = [mean_sd(a, b, c, places) if a else (None, None)
                 for a, b, c in zip(n.to_list(), s.to_list(), q.to_list())]
        return (pl.Series("mean", [m for m, _ in pairs], dtype=pl.Float64),
                pl.Series("sd", [d for _, d in pairs], dtype=pl.Float64))
    f = pl.col("n").cast(pl.Float64)
    out = cells.select(
        pl.when(pl.col("n") > 0).then(pl.col("s").cast(pl.Float64) / (f * scale)).alias("mean"),
        pl.when(pl.col("n") > 1).then((pl.col("num").cast(pl.Float64) / pl.col("den").cast(pl.Float64)).sqrt())
        .alias("sd"))
    return out["mean"], out["sd"]
