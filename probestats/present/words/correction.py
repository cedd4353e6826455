"""A multiple-comparison correction as a reader knows it, in every output."""

from __future__ import annotations

__all__ = ["CORRECTION_NAMES", "correction_name"]

#: How each ``--correction`` is named in a report.
CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini–Hochberg",
                    "none": "no correction"}

def correction_name(method: str | None) -> str:
    """The correction as a reader knows it.

    >>> correction_name("holm"), correction_name("bh"), correction_name("none")
    ('Holm', 'Benjamini–Hochberg', 'no correction')
    """
    return CORRECTION_NAMES.get(str(method), str(method))
