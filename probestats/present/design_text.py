"""The words of the design behind a paired verdict: the clusters the items are nested in (``cluster=``) and the
settings drawn at random per call (``random_settings=``), as the terminal, the report's Summary and its tests
section print them.

The facts are computed once, in the analysis (``analysis.clusters``, ``analysis.drawn``, and the same
sentences among ``verdict.caveats``); this module only picks them out.

Examples
--------
>>> from types import SimpleNamespace as NS
>>> design_caveats(NS(clusters=None, drawn=()))
[]
"""

from __future__ import annotations

__all__ = ["design_caveats"]


def design_caveats(analysis) -> list[str]:
    """The clusters' sentence and one sentence per randomized setting (empty without either)."""
    from probestats.analyses.clusters import cluster_caveat
    from probestats.analyses.drawn import drawn_caveat

    out = []
    clusters = getattr(analysis, "clusters", None)
    if clusters is not None:
        out.append(cluster_caveat(clusters))
    main = getattr(analysis, "main", None)
    for drawn in getattr(analysis, "drawn", ()) or ():
        out.append(drawn_caveat(drawn, main.a, main.b))
    return out
