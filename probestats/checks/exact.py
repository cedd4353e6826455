"""One exact rule for a cell's mean and standard deviation, from exact sums.

A cell (one item and value, and ``by`` group) is summarized by its number of runs with
a value ``n``, and the exact sums ``S = sum(x)`` and ``Q = sum(x**2)``. With the metric's
values written in at most ``places`` decimal places (see
:func:`probestats.checks.schema.decimal_places`) these are whole numbers of units of
``10**-places``, summed without rounding (128-bit integers in polars, DECIMAL(38, 0) in
SQL engines, Python integers here).

* mean = ``S / (n * 10**places)``, correctly rounded to the nearest float;
* sd = the square root (correctly rounded) of the sample variance
  ``(n Q - S**2) / (n (n - 1) 10**(2 places))`` correctly rounded to the nearest float.

Both are functions of the exact rational numbers only, so the row log, a cell table
written by ``probestats cells`` and one built by a warehouse give the same bits, and the
choice of ``places`` (any number at least the fewest needed) does not change them.
"""

from __future__ import annotations

import math

import polars as pl

__all__ = ["units", "mean_sd", "moments", "with_exact_moments"]


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
