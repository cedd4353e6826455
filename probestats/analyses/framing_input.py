"""Reading a dual-framing log's input: the two framings under their many spellings
(:func:`normalize_framing`), BiasLab's wide export turned long (:func:`is_wide`, :func:`melt_wide`), and
the polarity mapping, per topic the target each framing's prompt asserts (:func:`read_targets`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

import polars as pl

from probestats.errors import ColumnError, OptionError
from probestats.io.formulas import restored_cell


AFFIRMATIVE = "affirmative"


REVERSE = "reverse"


#: Spellings of the two framings (compared after trimming and folding case).
FRAMING_ALIASES = {
    AFFIRMATIVE: ("affirmative", "aff", "affirm", "affirmed", "forward", "fwd", "original", "orig",
                  "straight", "direct", "pro", "positive", "pos"),
    REVERSE: ("reverse", "rev", "reversed", "mirrored", "mirror", "backward", "backwards", "inverse",
              "inverted", "flipped", "opposite", "counter", "con", "negative", "neg"),
}


_FRAMING_LOOKUP = {alias: canonical for canonical, aliases in FRAMING_ALIASES.items() for alias in aliases}


def normalize_framing(values) -> tuple[pl.Series, list[str]]:
    """Map framing spellings to ``"affirmative"``/``"reverse"``; return unknown values too.

    Parameters
    ----------
    values : polars.Series or iterable of str

    Returns
    -------
    (polars.Series, list of str)
        The normalized framings (null where unknown or missing) and the distinct values
        that were not recognized.

    Examples
    --------
    >>> s, unknown = normalize_framing(["Affirmative", "rev", "Mirrored", "forward", "sideways"])
    >>> s.to_list(), unknown
    (['affirmative', 'reverse', 'reverse', 'affirmative', None], ['sideways'])
    """
    series = values if isinstance(values, pl.Series) else pl.Series("framing", list(values), strict=False)
    text = series.cast(pl.String)
    key = text.str.strip_chars().str.to_lowercase()
    out = key.replace_strict(_FRAMING_LOOKUP, default=None, return_dtype=pl.String)
    unknown = text.filter(out.is_null() & text.is_not_null()).unique(maintain_order=True).to_list()
    return out.alias("framing"), unknown


_WIDE_KINDS = {"raw": "reply", "response": "reply", "cat": "label", "category": "label", "label": "label",
               "score": "score"}


def _wide_columns(columns: Sequence[str]) -> dict[str, dict[str, str]]:
    """``{model: {"reply"|"label"|"score": header}}`` for headers like ``gpt-x_Raw``."""
    import re

    found: dict[str, dict[str, str]] = {}
    for col in columns:
        m = re.fullmatch(r"(.+?)[ _.](raw|response|cat|category|label|score)", str(col).strip(), re.I)
        if m:
            found.setdefault(m.group(1), {})[_WIDE_KINDS[m.group(2).lower()]] = col
    return {model: kinds for model, kinds in found.items() if "reply" in kinds and "label" in kinds}


def is_wide(frame: pl.DataFrame) -> bool:
    """True when a frame is a wide BiasLab export: no model column, ``{model}_Raw``/``{model}_Cat`` pairs.

    >>> is_wide(pl.DataFrame({"framing": ["aff"], "m1_Raw": ["Agree"], "m1_Cat": ["Agree"]}))
    True
    """
    return "model" not in frame.columns and bool(_wide_columns(frame.columns))


def melt_wide(frame: pl.DataFrame) -> pl.DataFrame:
    """Turn BiasLab's wide export into the long layout: one row per response.

    The wide sheet has one row per language, framing, question and iteration, and a
    ``{model}_Raw`` and ``{model}_Cat`` column pair (optionally ``{model}_Score``) per
    model. Each model's pair becomes rows with ``model`` taken from the column names,
    ``reply`` from ``_Raw``, ``label`` from ``_Cat`` (and ``score``); every other column is
    repeated.

    Examples
    --------
    >>> wide = pl.DataFrame({"framing": ["aff", "rev"], "gpt_Raw": ["I agree", "No"],
    ...                      "gpt_Cat": ["Agree", "Disagree"], "glm_Raw": ["Neutral.", "Agree"],
    ...                      "glm_Cat": ["Neutral", "Agree"]})
    >>> melt_wide(wide).to_dicts()[:2]
    [{'framing': 'aff', 'model': 'gpt', 'reply': 'I agree', 'label': 'Agree'}, {'framing': 'rev', 'model': 'gpt', 'reply': 'No', 'label': 'Disagree'}]
    >>> melt_wide(wide).height
    4
    """
    models = _wide_columns(frame.columns)
    if not models:
        raise ColumnError(
            "no {model}_Raw and {model}_Cat column pairs found; the wide layout needs one pair per model"
        )
    melted_cols = {c for kinds in models.values() for c in kinds.values()}
    keep = [c for c in frame.columns if c not in melted_cols]
    for name in ("model", "reply", "label", "score"):
        if name in keep:
            raise ColumnError(
                f"the wide layout already has a '{name}' column next to the {{model}}_Raw/_Cat pairs; "
                "rename it or give the long layout"
            )
    has_score = any("score" in kinds for kinds in models.values())
    parts = []
    for model, kinds in models.items():
        cols = [pl.col(c) for c in keep] + [
            pl.lit(str(model), dtype=pl.String).alias("model"),
            pl.col(kinds["reply"]).cast(pl.String).alias("reply"),
            pl.col(kinds["label"]).cast(pl.String).alias("label"),
        ]
        if has_score:
            score = pl.col(kinds["score"]) if "score" in kinds else pl.lit(None)
            cols.append(score.cast(pl.String).alias("score"))
        parts.append(frame.select(cols))
    return pl.concat(parts, how="vertical")


def read_targets(targets) -> dict[str, tuple[str, str]]:
    """Read the polarity mapping: per topic, the target the affirmative and the reverse prompt assert.

    Parameters
    ----------
    targets : path, DataFrame, list of dicts or mapping
        A file (CSV or any format :func:`probestats.io.read_log` reads) or a frame with
        columns ``topic``, ``affirmative``, ``reverse``; or a mapping
        ``{topic: (affirmative_target, reverse_target)}``.

    Examples
    --------
    >>> read_targets([{"topic": "leadership", "affirmative": "female", "reverse": "male"}])
    {'leadership': ('female', 'male')}
    """
    if isinstance(targets, Mapping):
        out = {}
        for topic, pair in targets.items():
            if isinstance(pair, Mapping):
                pair = (pair.get(AFFIRMATIVE), pair.get(REVERSE))
            a, r = pair
            out[str(topic)] = (str(a).strip(), str(r).strip())
        return _check_targets(out, "the targets")
    # lazy: looked up when called, so a test's replacement of it on its module is seen
    from probestats.io.read import read_log

    source = targets if isinstance(targets, (str, Path)) else "the targets"
    frame = read_log(targets).frame
    lower = {str(c).strip().lower(): c for c in frame.columns}
    missing = [c for c in ("topic", AFFIRMATIVE, REVERSE) if c not in lower]
    if missing:
        raise ColumnError(
            f"the targets file {source} needs columns topic, affirmative, reverse; missing "
            f"{', '.join(missing)} (headers seen: {', '.join(c for c in frame.columns if c != '_row')})"
        )
    out: dict[str, tuple[str, str]] = {}

    for row in frame.select(lower["topic"], lower[AFFIRMATIVE], lower[REVERSE]).iter_rows():
        # a targets file probestats wrote (the page's) neutralized what would start a formula: undone here
        topic, a, r = ("" if v is None else restored_cell(str(v)).strip() for v in row)
        if not (a and r):
            raise OptionError(f"the targets file {source} gives no target for topic '{topic}'; fill both columns")
        if topic in out and out[topic] != (a, r):
            raise OptionError(f"the targets file {source} lists topic '{topic}' twice with different targets")
        out[topic] = (a, r)
    return _check_targets(out, source)


def _check_targets(out, source):
    for topic, (a, r) in out.items():
        if a == r:
            raise OptionError(
                f"{source}: topic '{topic}' has the same target '{a}' for both framings; "
                "the reverse prompt must assert the other target"
            )
    return out


