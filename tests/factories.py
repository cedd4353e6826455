"""Make probe logs for tests, so that each test states only what it cares about.

``make_log`` draws a matched probe with a known gap; ``write_log`` saves any frame in the
format its file name asks for, so a test can exercise every reader with the same data.

Examples
--------
>>> log = make_log(items=3, runs=2, gap=1.0, seed=0)
>>> log.shape
(12, 6)
>>> log.columns
['item', 'variant', 'seed', 'model', 'temperature', 'steps']
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np
import polars as pl

FORMATS = (".csv", ".tsv", ".json", ".jsonl", ".xlsx", ".ods", ".parquet")


def make_log(
    items: int = 8,
    runs: int = 20,
    gap: float = 1.0,
    seed: int = 0,
    values: tuple[str, ...] = ("formal", "casual"),
    metric: str = "steps",
    sd: float = 1.5,
    integer: bool = True,
    model: str = "stand-in-v1",
    heterogeneity: float = 0.0,
    as_frame: bool = True,
    *,
    base: float = 5.0,
    temperature: float = 0.8,
):
    """Draw a matched probe log with a planted gap.

    Every item is run ``runs`` times under every value, with seeds 1..runs for each value,
    in the order a careful probe would run them (item by item, seed by seed, values
    alternating). Item ``i`` has a baseline ``base + N(0, 0.5)`` and a true gap
    ``gap + N(0, heterogeneity)``; a run of the first value draws
    ``baseline + true gap + N(0, sd)``, a run of any other value ``baseline + N(0, sd)``.
    So for two values the expected gap (first minus second) of every item is ``gap`` when
    ``heterogeneity`` is 0.

    Parameters
    ----------
    items, runs : int
        Number of matched items, and runs per item and value.
    gap : float
        The planted average gap, first value minus the others.
    seed : int
        Seed of ``numpy.random.default_rng``; the same arguments give the same log.
    values : tuple of str
        The values of the attribute; the first one gets the gap.
    metric : str
        Name of the metric column.
    sd : float
        Run-to-run standard deviation of the metric.
    integer : bool
        Round the metric to a count (Int64) clipped at 0; otherwise leave it as a float.
    model : str
        The model tag written in every row.
    heterogeneity : float
        Standard deviation of the true item gaps around ``gap``.
    as_frame : bool
        Return a polars DataFrame (default) or a list of dicts.
    base : float
        Mean of the item baselines.
    temperature : float
        The temperature written in every row.

    Returns
    -------
    polars.DataFrame or list of dict
        Columns item (str), variant, seed (int), model, temperature, and the metric.

    Examples
    --------
    >>> log = make_log(items=2, runs=1, gap=0.0, sd=0.0, base=4.0)
    >>> log.select("item", "variant", "seed", "steps").rows()
    [('0', 'formal', 1, 4), ('0', 'casual', 1, 4), ('1', 'formal', 1, 4), ('1', 'casual', 1, 4)]
    >>> formal, casual = make_log(items=1, runs=1, gap=2.5, sd=0.0, integer=False)["steps"]
    >>> round(formal - casual, 12)
    2.5
    >>> make_log(items=1, runs=1, values=("a", "b", "c"), as_frame=False)[2]["variant"]
    'c'
    >>> make_log(seed=3).equals(make_log(seed=3))
    True
    """
    if items < 1 or runs < 1 or len(values) < 2:
        raise ValueError("make_log needs items >= 1, runs >= 1 and at least two values")
    rng = np.random.default_rng(seed)
    baselines = base + 0.5 * rng.standard_normal(items)
    true_gaps = gap + heterogeneity * rng.standard_normal(items)
    noise = sd * rng.standard_normal((items, runs, len(values)))

    rows = []
    for i in range(items):
        for r in range(runs):
            for v, value in enumerate(values):
                x = baselines[i] + (true_gaps[i] if v == 0 else 0.0) + noise[i, r, v]
                x = max(0, int(np.rint(x))) if integer else float(x)
                rows.append({
                    "item": str(i), "variant": value, "seed": r + 1, "model": model,
                    "temperature": float(temperature), metric: x,
                })
    if not as_frame:
        return rows
    schema = {"item": pl.String, "variant": pl.String, "seed": pl.Int64, "model": pl.String,
              "temperature": pl.Float64, metric: pl.Int64 if integer else pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row")


def write_log(frame, path) -> Path:
    """Write a log (polars DataFrame or list of dicts) in the format named by the file suffix.

    .csv and .tsv (comma and tab separated), .json (an array of records), .jsonl (one record a
    line), .xlsx (one sheet named "runs"), .ods (through pandas and odfpy) and .parquet.

    Examples
    --------
    >>> import tempfile
    >>> log = make_log(items=2, runs=2)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     back = pl.read_csv(write_log(log, Path(folder) / "log.tsv"), separator="\\t",
    ...                        schema_overrides={"item": pl.String})
    >>> back.equals(log)
    True
    """
    if not isinstance(frame, pl.DataFrame):
        frame = pl.DataFrame(frame)
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".csv":
        frame.write_csv(path)
    elif suffix == ".tsv":
        frame.write_csv(path, separator="\t")
    elif suffix == ".json":
        frame.write_json(path)
    elif suffix == ".jsonl":
        frame.write_ndjson(path)
    elif suffix == ".xlsx":
        frame.write_excel(path, worksheet="runs", autofit=False)
    elif suffix == ".ods":
        frame.to_pandas().to_excel(path, engine="odf", index=False, sheet_name="runs")
    elif suffix == ".parquet":
        frame.write_parquet(path)
    else:
        raise ValueError(f"write_log cannot write {path.name!r}; use one of {', '.join(FORMATS)}")
    return path


def splitmix(x: int) -> int:
    """The splitmix64 finalizer written out in plain integers (the reference for the rule of the draw)."""
    m = (1 << 64) - 1
    x = (x + 0x9E3779B97F4A7C15) & m
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & m
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & m
    return x ^ (x >> 31)


def halves_over_every_split(cells: dict) -> tuple[dict, float]:
    """The log's own halves read over every split, by brute force: ``cells`` maps each item to its cells' runs
    (a list of lists: one list per block, or one list). Every split of every cell into ``n // 2`` runs and the
    rest is enumerated, with exact means (Fraction); an item's halves gap is the mean of its cells' gaps, and
    its mean square over every split is found by enumerating the cells' splits together. Returns each item's
    root mean square and that of the average gap over the items (the items split independently, so its mean
    square is the sum of theirs over the items squared)."""
    import itertools
    import math
    from fractions import Fraction

    def gaps(runs):
        runs = [Fraction(x) for x in runs]
        k = len(runs) // 2
        return [sum(runs[j] for j in first) / k - sum(runs[j] for j in range(len(runs)) if j not in first)
                / (len(runs) - k) for first in itertools.combinations(range(len(runs)), k)]

    squares = {}
    for item, blocks in cells.items():
        every = [sum(combo) / len(combo) for combo in itertools.product(*(gaps(runs) for runs in blocks))]
        squares[item] = sum(g * g for g in every) / len(every)
    return ({item: math.sqrt(q) for item, q in squares.items()},
            math.sqrt(sum(squares.values())) / len(squares))


def halves_by_hand(values, item: str, seed: int):
    """The rule of the draw of probestats.analyses.halves, by hand: key the j-th run of value x (j counting
    the earlier runs of the same value) by mix(mix(cell ^ bits(x)) + j), bits(x) the IEEE-754 pattern of
    float(x), cell = mix(mix(mix(seed) ^ crc32(item)) ^ H), H the sum mod 2**64 over the distinct values
    of mix(mix(bits(x) ^ W) + count); the counted // 2 smallest keys are the first half."""
    m = (1 << 64) - 1

    def bits(x):
        return struct.unpack("<Q", struct.pack("<d", float(x) + 0.0))[0]

    counts: dict = {}
    for x in values:
        counts[float(x)] = counts.get(float(x), 0) + 1
    whole = sum(splitmix((splitmix(bits(x) ^ 0xD6E8FEB86659FD93) + c) & m) for x, c in counts.items()) & m
    cell = splitmix(splitmix(splitmix(seed & m) ^ zlib.crc32(item.encode())) ^ whole)
    seen: dict = {}
    keyed = []
    for x in values:
        j = seen.get(float(x), 0)
        seen[float(x)] = j + 1
        keyed.append((splitmix((splitmix(cell ^ bits(x)) + j) & m), x))
    keyed.sort(key=lambda kx: kx[0])
    first = sorted(x for _, x in keyed[: len(values) // 2])
    second = sorted(x for _, x in keyed[len(values) // 2:])
    return first, second
