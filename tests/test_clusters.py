"""Items nested in clusters: the tests flip whole clusters, the interval resamples them, and a column that
groups the items in clusters of alike gaps is suggested.

References are computed here from the rows: the item gaps by numpy, the cluster-level t on the cluster means
by scipy's t quantile, the cluster bootstrap and the cluster sign-flip by hand (numpy loops with their own generator), the exact p of a small design by brute force over
every pattern of cluster signs, the ICC by the one-way ANOVA written out.
"""

from __future__ import annotations

import io
import itertools
import json

import numpy as np
import polars as pl
import pytest
from rich.console import Console

from probestats import Probe
from probestats import analyze
from probestats.analyses.clusters import intra_cluster_correlation
from probestats.cli import main
from probestats.errors import OptionError
from probestats.present.report.document import render_report
from probestats.present.terminal.render import render_terminal


def last_caveat(verdict):
    """The verdict's last caveat besides ``borderline`` (which, when p is near alpha, comes last of all)."""
    return [c for c in verdict.caveats if c.id != "borderline"][-1]


def clustered_rows(clusters: int = 40, per: int = 10, effect_sd: float = 0.5, gap: float = 0.1, runs: int = 2,
                   seed: int = 3) -> list[dict]:
    """Items in ``clusters`` clusters of ``per`` items; each cluster shifts its items' gap by a normal draw of SD
    ``effect_sd`` (a cluster effect on the gap); ``runs`` normal runs per item and value."""
    rng = np.random.default_rng(seed)
    rows = []
    for c in range(clusters):
        shift = rng.normal(0, effect_sd)
        for j in range(per):
            level = rng.normal(0, 1)
            for v in ("a", "b"):
                for s in range(runs):
                    y = level + rng.normal(0, 1) + ((gap + shift) if v == "a" else 0.0)
                    rows.append({"item": f"{c}-{j}", "variant": v, "seed": s, "y": y, "doc": f"d{c}"})
    return rows


def hand_gaps(rows) -> tuple[np.ndarray, np.ndarray]:
    """Each item's gap (mean under a − mean under b) and its cluster, from the rows."""
    sums: dict = {}
    for r in rows:
        key = (r["item"], r["variant"])
        total, n = sums.get(key, (0.0, 0))
        sums[key] = (total + r["y"], n + 1)
    items = sorted({r["item"] for r in rows}, key=lambda x: tuple(int(p) for p in x.split("-")))
    doc = {r["item"]: r["doc"] for r in rows}
    gaps = np.array([sums[(i, "a")][0] / sums[(i, "a")][1] - sums[(i, "b")][0] / sums[(i, "b")][1] for i in items])
    return gaps, np.array([doc[i] for i in items])


def hand_cluster_bootstrap(gaps, docs, draws: int = 20_000, seed: int = 12345, confidence: float = 0.95):
    rng = np.random.default_rng(seed)
    names = sorted(set(docs))
    members = [gaps[docs == n] for n in names]
    stats = []
    for _ in range(draws):
        pick = rng.integers(0, len(names), len(names))
        chosen = np.concatenate([members[k] for k in pick])
        stats.append(chosen.mean())
    return np.quantile(stats, [(1 - confidence) / 2, (1 + confidence) / 2])


def test_a_cluster_effect_widens_the_interval_and_the_p_as_a_cluster_bootstrap_does():
    rows = clustered_rows()
    gaps, docs = hand_gaps(rows)
    plain = analyze(rows, metric="y")
    clustered = analyze(rows, metric="y", probe=Probe(cluster="doc"))
    # the average gap is the same unweighted mean of the 400 item gaps either way
    assert clustered.average_gap == pytest.approx(gaps.mean(), abs=1e-12)
    assert plain.average_gap == pytest.approx(gaps.mean(), abs=1e-12)
    # the interval: with equal clusters, the Student t interval on the 40 cluster means (scipy's t quantile)
    from scipy import stats

    names = sorted(set(docs))
    means = np.array([gaps[docs == n].mean() for n in names])
    half = stats.t.ppf(0.975, len(names) - 1) * means.std(ddof=1) / np.sqrt(len(names))
    iv = clustered.main.interval
    assert (iv.low, iv.high) == (pytest.approx(means.mean() - half, abs=1e-12),
                                 pytest.approx(means.mean() + half, abs=1e-12))
    assert "cluster-level t on 40 clusters" in iv.method
    # it widens the item-level t interval as much as a cluster bootstrap computed here does (own draws; the
    # bootstrap's percentile ends are a little narrower, by about sqrt((G - 1) / G) and the t quantile)
    low, high = hand_cluster_bootstrap(gaps, docs)
    item_width = plain.main.interval.high - plain.main.interval.low
    assert (iv.high - iv.low) / item_width == pytest.approx((high - low) / item_width, rel=0.08)
    assert (high - low) / item_width > 1.4
    # the p: whole clusters flipped (a hand Monte Carlo over 100,000 patterns of cluster signs)
    sums = np.array([gaps[docs == n].sum() for n in names])
    rng = np.random.default_rng(7)
    signs = rng.choice([-1.0, 1.0], size=(100_000, len(names)))
    hand_p = np.mean(np.abs(signs @ sums) >= abs(sums.sum()) - 1e-9)
    assert clustered.pvalue == pytest.approx(hand_p, abs=4 * np.sqrt(hand_p * (1 - hand_p) / 100_000) + 1e-4)
    assert clustered.pvalue > plain.pvalue
    assert clustered.clusters.item_pvalue == plain.pvalue
    assert clustered.clusters.n_clusters == 40 and clustered.clusters.sizes == (10, 10, 10.0)
    assert clustered.verdict.pvalue == clustered.pvalue
    assert "whole clusters" in clustered.verdict.test


def test_unequal_clusters_take_the_cluster_robust_standard_error_written_out():
    rows = clustered_rows(clusters=9, per=4, seed=11)
    rows = [r for r in rows if not (r["doc"] in ("d0", "d1") and r["item"].endswith(("-2", "-3")))]
    gaps, docs = hand_gaps(rows)
    names = sorted(set(docs))
    mean = gaps.mean()
    resid = np.array([gaps[docs == n].sum() - (docs == n).sum() * mean for n in names])
    se = np.sqrt(len(names) / (len(names) - 1) * np.sum(resid ** 2) / len(gaps) ** 2)
    from scipy import stats

    q = stats.t.ppf(0.975, len(names) - 1)
    iv = analyze(rows, metric="y", probe=Probe(cluster="doc")).main.interval
    assert (iv.low, iv.high) == (pytest.approx(mean - q * se, abs=1e-12), pytest.approx(mean + q * se, abs=1e-12))


def test_the_icc_is_the_one_way_anova_written_out():
    rows = clustered_rows(clusters=12, per=5, seed=1)
    gaps, docs = hand_gaps(rows)
    names = sorted(set(docs))
    big_n, big_g = len(gaps), len(names)
    grand = gaps.mean()
    ssb = sum(len(gaps[docs == n]) * (gaps[docs == n].mean() - grand) ** 2 for n in names)
    ssw = sum(((gaps[docs == n] - gaps[docs == n].mean()) ** 2).sum() for n in names)
    msb, msw = ssb / (big_g - 1), ssw / (big_n - big_g)
    m = big_n / big_g   # equal clusters: m0 is the cluster size
    icc = (msb - msw) / (msb + (m - 1) * msw)
    got, p, deff = intra_cluster_correlation(gaps, docs)
    assert got == pytest.approx(icc, abs=1e-12)
    assert deff == pytest.approx(1 + (m - 1) * icc, abs=1e-12)
    from scipy.stats import f_oneway   # the same F test, by scipy

    assert p == pytest.approx(f_oneway(*[gaps[docs == n] for n in names]).pvalue, rel=1e-9)


def test_without_cluster_validation_suggests_it_with_the_icc():
    rows = clustered_rows()
    gaps, docs = hand_gaps(rows)
    icc, _, _ = intra_cluster_correlation(gaps, docs)
    result = analyze(rows, metric="y")
    hints = [p for p in result.problems if p.code == "clustered_items"]
    assert len(hints) == 1 and hints[0].severity == "warning"
    assert f"intra-cluster correlation {icc:.3g}" in hints[0].message
    assert hints[0].message.endswith("declare the clusters with cluster='doc'")
    assert any("nested in clusters" in c.sentence for c in result.verdict.caveats)
    # with the clusters declared, no suggestion is left
    assert not [p for p in analyze(rows, metric="y", probe=Probe(cluster="doc")).problems if p.code == "clustered_items"]


def test_no_suggestion_without_a_cluster_effect():
    rows = clustered_rows(effect_sd=0.0, seed=5)
    assert not [p for p in analyze(rows, metric="y").problems if p.code == "clustered_items"]


def test_a_small_design_is_exact_over_every_pattern_of_cluster_signs():
    rows = clustered_rows(clusters=6, per=3, effect_sd=1.0, gap=0.8, runs=1, seed=2)
    rows = [r for r in rows if not (r["doc"] == "d5" and r["item"] != "5-0")]   # one cluster of one item
    gaps, docs = hand_gaps(rows)
    names = sorted(set(docs))
    sums = np.array([gaps[docs == n].sum() for n in names])
    hits = sum(abs(np.dot(s, sums)) >= abs(sums.sum()) * (1 - 1e-9)
               for s in itertools.product([-1, 1], repeat=len(names)))
    result = analyze(rows, metric="y", probe=Probe(cluster="doc"))
    assert result.pvalue == pytest.approx(hits / 2 ** len(names), rel=1e-12)
    assert result.main.min_attainable_p == pytest.approx(2 / 2 ** 6)
    assert result.clusters.singletons == 1
    text = last_caveat(result.verdict).sentence
    assert "1 cluster holds one item only" in text and "smallest attainable p is 0.0312" in text


def hand_cluster_p(rows) -> float:
    """The two-sided p of flipping whole clusters, by brute force over every pattern of cluster signs."""
    gaps, docs = hand_gaps(rows)
    names = sorted(set(docs))
    sums = np.array([gaps[docs == n].sum() for n in names])
    hits = sum(abs(np.dot(s, sums)) >= abs(sums.sum()) * (1 - 1e-9)
               for s in itertools.product([-1, 1], repeat=len(names)))
    return hits / 2 ** len(names)


def test_unequal_runs_by_design_are_tested_at_the_clusters_level():
    # 1 run of 'a' against 3 of 'b' in every item: the headline was the item-level permutation, which ignored
    # the clusters; it is now the flip of whole clusters, as for balanced runs
    rows = clustered_rows(clusters=8, per=3, effect_sd=1.0, gap=0.3, runs=3, seed=4)
    rows = [r for r in rows if not (r["variant"] == "a" and r["seed"] > 0)]
    result = analyze(rows, metric="y", probe=Probe(cluster="doc"))
    assert result.main.permutation is None
    assert result.pvalue == pytest.approx(hand_cluster_p(rows), rel=1e-12)
    assert "whole clusters flipped" in result.main.headline_test.method
    assert "within-item permutation, which treats the items as independent, gave p" in result.main.sign_flip.method
    unequal = [c for c in result.verdict.caveats if c.id == "unequal_runs"]
    assert unequal and "the verdict rests on flipping whole clusters" in unequal[0].sentence
    assert result.to_dict()["headline_test"] == "sign_flip"


def test_one_missing_run_leaves_the_cluster_test_in_the_headline():
    rows = clustered_rows(clusters=8, per=3, effect_sd=1.0, gap=0.3, runs=4, seed=6)
    whole = analyze(rows, metric="y", probe=Probe(cluster="doc"))
    short = analyze(rows[1:], metric="y", probe=Probe(cluster="doc"))   # item 0-0 loses one run of 'a'
    assert whole.main.headline_test.method.split(";")[0] == short.main.headline_test.method.split(";")[0]
    assert short.pvalue == pytest.approx(hand_cluster_p(rows[1:]), rel=1e-12)
    assert whole.verdict.conclusion == short.verdict.conclusion


def test_clusters_compose_with_by_groups_each_tested_at_its_clusters_level():
    rows = [dict(r, model=m) for m, seed in (("m1", 7), ("m2", 8))
            for r in clustered_rows(clusters=6, per=3, effect_sd=1.0, gap=0.5, runs=1, seed=seed)]
    result = analyze(rows, metric="y", probe=Probe(cluster="doc"), by=["model"])
    assert result.pvalue == pytest.approx(hand_cluster_p(rows), rel=1e-12)   # the pooled items, over both models
    ps = []
    for g in result.groups:
        mine = [r for r in rows if r["model"] == g.by["model"]]
        assert g.headline_test.pvalue == pytest.approx(hand_cluster_p(mine), rel=1e-12)
        ps.append(g.headline_test.pvalue)
    holm = sorted(ps)
    expected = [min(1.0, max(2 * holm[0], 0)), min(1.0, max(2 * holm[0], holm[1]))]
    assert sorted(g.p_adjusted for g in result.groups) == pytest.approx(expected)


def test_an_item_in_two_clusters_and_options_that_cannot_go_together_are_refused():
    rows = clustered_rows(clusters=4, per=3)
    rows[0] = dict(rows[0], doc="elsewhere")
    with pytest.raises(OptionError, match=r"cluster='doc': item 0-0 lies in several clusters"):
        analyze(rows, metric="y", probe=Probe(cluster="doc"))
    good = clustered_rows(clusters=4, per=3)
    three = good + [dict(r, variant="c") for r in good if r["variant"] == "b"]
    with pytest.raises(OptionError, match="^cluster='doc' flips whole clusters of items in a comparison of two values; with more than two values the analysis does not use it"):
        analyze(three, metric="y", probe=Probe(cluster="doc"))
    with pytest.raises(OptionError, match="cluster=.doc. applies to a comparison of two values of one metric; drop factor"):
        analyze(good, metric="y", probe=Probe(cluster="doc"), factor=["variant", "doc"])


def test_the_clusters_are_shown_in_the_terminal_the_report_and_json(tmp_path, capsys):
    rows = clustered_rows()
    result = analyze(rows, metric="y", probe=Probe(cluster="doc"))
    buffer = io.StringIO()
    render_terminal(result, Console(file=buffer, width=200))
    assert "The 400 items are nested in 40 clusters of doc (10 items each" in buffer.getvalue()
    md = render_report(result, format="md")
    summary = md.split("## Summary", 1)[1].split("\n## ", 1)[0]
    assert "nested in 40 clusters of doc" in summary
    path = tmp_path / "log.csv"
    import polars as pl

    pl.DataFrame(rows).write_csv(path)
    assert main(["analyze", str(path), "--metric", "y", "--cluster", "doc", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["clusters"]["n_clusters"] == 40 and out["clusters"]["column"] == "doc"
    assert out["sign_flip"]["p"] == pytest.approx(result.pvalue)
    assert out["clusters"]["item_p"] == pytest.approx(result.clusters.item_pvalue)
    assert main(["analyze", str(path), "--metric", "y", "--cluster", "nope"]) == 1
    assert capsys.readouterr().err.startswith("Error: ")
    report = tmp_path / "r.md"
    assert main(["report", str(path), "--metric", "y", "--cluster", "doc", "-o", str(report)]) == 0
    assert "nested in 40 clusters of doc" in report.read_text(encoding="utf-8")


def story_rows(seed: int = 0, drop: int = 43, cut: int | None = None) -> list[dict]:
    """Four models rate three stories under three stated authors, 100 runs per cell; the item is model x story,
    its cluster the story (a story's effect on author A shared by the models); ``drop`` runs deleted at random,
    or every cell cut to its first ``cut`` runs."""
    rng = np.random.default_rng(seed)
    rows = []
    for m in range(4):
        for s in range(3):
            story = rng.normal(0, 1)
            for v in ("A", "B", "C"):
                for r in range(100):
                    score = float(np.clip(np.round(5 + (story if v == "A" else 0) + rng.normal(0, 1.5)), 1, 10))
                    rows.append({"model": f"m{m}", "story": f"s{s}", "item": f"m{m}-s{s}", "author": v, "seed": r,
                                 "score": score})
    if drop:
        gone = set(rng.choice(len(rows), drop, replace=False).tolist())
        rows = [r for k, r in enumerate(rows) if k not in gone]
    if cut:
        rows = [r for r in rows if r["seed"] < cut]
    return rows


def test_the_story_study_concludes_alike_with_and_without_its_missing_runs(tmp_path, capsys):
    # 43 runs dropped made the headline an item-level permutation that ignored --cluster story; now both logs
    # flip whole stories, and say so in the terminal, the report and JSON
    outputs = {}
    for name, rows in (("missing", story_rows()), ("cut", story_rows(drop=0, cut=91))):
        path = tmp_path / f"{name}.csv"
        pl.DataFrame(rows).write_csv(path)
        args = [str(path), "--metric", "score", "--column", "variant=author", "--a", "A", "--b", "B",
                "--cluster", "story"]
        assert main(["analyze", *args, "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert main(["analyze", *args]) == 0
        terminal = " ".join(capsys.readouterr().out.split())
        assert main(["report", *args, "-o", str(tmp_path / f"{name}.md")]) == 0
        capsys.readouterr()
        report = (tmp_path / f"{name}.md").read_text()
        assert data["headline_test"] == "sign_flip" and "whole clusters flipped" in data["sign_flip"]["method"]
        assert data["clusters"]["n_clusters"] == 3 and data["min_attainable_p"] == 0.25
        assert "the tests flip whole clusters" in terminal and "nested in 3 clusters of story" in terminal
        assert "nested in 3 clusters of story" in report
        outputs[name] = data["verdict"]["conclusion"]
    assert outputs["missing"] == outputs["cut"] == "not_detected"


def test_clusters_of_one_item_with_unequal_runs_keep_the_within_item_permutation():
    # every cluster holds one item: the clusters are the items, so the exact within-item permutation the unequal runs
    # need stays the headline (the flip of single-item clusters is the item sign-flip, which they do not allow);
    # it was the flip, and a log of 15 items moved from p = 0.0404 ("a gap") to 0.0557 ("no gap") with the column
    rows = clustered_rows(clusters=12, per=1, effect_sd=1.0, gap=0.6, runs=3, seed=2)
    rows = [r for r in rows if not (r["variant"] == "a" and r["seed"] > 0)]
    alone = analyze(rows, metric="y")
    one = analyze(rows, metric="y", probe=Probe(cluster="doc"))
    assert alone.main.permutation is not None and one.main.permutation is not None
    assert one.pvalue == alone.pvalue == alone.main.permutation.pvalue
    assert one.verdict.conclusion == alone.verdict.conclusion and one.verdict.test == alone.verdict.test
    assert one.clusters.singletons == one.clusters.n_clusters == 12
    assert "the clusters are the items" in next(c.sentence for c in one.verdict.caveats if c.id == "clusters")
    unequal = next(c.sentence for c in one.verdict.caveats if c.id == "unequal_runs")
    assert "flipping whole clusters" not in unequal
    assert one.to_dict()["headline_test"] == "permutation"
    # one cluster of two items: the clusters are not the items, and whole clusters flip
    rows = [dict(r, doc="d0") if r["doc"] == "d1" else r for r in rows]
    paired = analyze(rows, metric="y", probe=Probe(cluster="doc"))
    assert paired.main.permutation is None and "whole clusters flipped" in paired.main.headline_test.method


def nested_rows(scenarios: int = 30, models: int = 5, scenario_sd: float = 0.6, model_gaps=(0.0, 0.5, 1.0, 1.5, 2.0),
                seed: int = 9, crossing_block: bool = False) -> list[dict]:
    """Items nested in ``scenarios`` (each shifts its items' gaps by a normal draw of SD ``scenario_sd``), one item
    per scenario and model with the model part of the item id (so the model column is constant within items and
    crosses the scenarios), the models' gaps ``model_gaps``; 2 runs per item and value. With ``crossing_block``
    every model answers one shared item per scenario instead (the model varies within items: a block)."""
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(scenarios):
        shift = rng.normal(0, scenario_sd)
        for m in range(models):
            item = f"s{s}" if crossing_block else f"s{s}-m{m}"
            for k in range(2 if crossing_block else 1):
                level = rng.normal()
                for v in ("a", "b"):
                    for r in range(2):
                        y = level + rng.normal(0, 0.3) + ((shift + model_gaps[m]) if v == "a" else 0.0)
                        rows.append({"item": f"{item}-{k}" if crossing_block else item, "variant": v,
                                     "seed": r, "y": y, "scenario": f"sc{s}", "model": f"m{m}"})
    return rows


def anova_icc(gaps, groups) -> float:
    """ICC(1) of ``gaps`` by ``groups``, the one-way ANOVA written out (equal or unequal groups)."""
    names = sorted(set(groups))
    n, g = len(gaps), len(names)
    sizes = np.array([(groups == x).sum() for x in names])
    means = np.array([gaps[groups == x].mean() for x in names])
    msb = np.sum(sizes * (means - gaps.mean()) ** 2) / (g - 1)
    msw = sum(((gaps[groups == x] - gaps[groups == x].mean()) ** 2).sum() for x in names) / (n - g)
    m0 = (n - np.sum(sizes ** 2) / n) / (g - 1)
    return (msb - msw) / (msb + (m0 - 1) * msw)


def item_gaps(rows, column: str):
    """Each item's gap and its ``column`` value, from the rows."""
    cells: dict = {}
    for r in rows:
        cells.setdefault((r["item"], r["variant"]), []).append(r["y"])
    items = sorted({r["item"] for r in rows})
    label = {r["item"]: r[column] for r in rows}
    return (np.array([np.mean(cells[(i, "a")]) - np.mean(cells[(i, "b")]) for i in items]),
            np.array([label[i] for i in items]))


def test_the_suggestion_is_the_nesting_column_not_a_model_that_crosses_it():
    # the model is part of the item id, so its column is constant within items and its 5 levels have the larger
    # ICC (their gaps differ by design): the items nest in the 30 scenarios, which the suggestion names
    rows = nested_rows()
    gaps, models = item_gaps(rows, "model")
    assert anova_icc(gaps, models) > 0.5
    hints = [p for p in analyze(rows, metric="y").problems if p.code == "clustered_items"]
    assert len(hints) == 1 and hints[0].message.endswith("declare the clusters with cluster='scenario'")
    gaps, scenarios = item_gaps(rows, "scenario")
    assert f"intra-cluster correlation {anova_icc(gaps, scenarios):.3g}" in hints[0].message
    assert "the 30 clusters of scenario (5 items each on average)" in hints[0].message
    assert f"can reach p = {2 / 2 ** 30:.2g}" in hints[0].message
    # the same column under a name that is no setting's (a judge study's other_source, whose 5 levels crossed the
    # articles and gave "design effect 883"): 5 clusters are never suggested, whatever their ICC, and the
    # nesting column is
    renamed = [dict({k: v for k, v in r.items() if k != "model"}, other_source=r["model"]) for r in rows]
    hints = [p for p in analyze(renamed, metric="y").problems if p.code == "clustered_items"]
    assert len(hints) == 1 and hints[0].message.endswith("cluster='scenario'")
    alone = [{k: v for k, v in r.items() if k != "scenario"} for r in renamed]
    assert not [p for p in analyze(alone, metric="y").problems if p.code == "clustered_items"]


def test_a_model_that_answers_every_item_is_a_block_and_never_a_cluster():
    rows = nested_rows(scenario_sd=0.0, crossing_block=True)
    result = analyze(rows, metric="y")
    assert not [p for p in result.problems if p.code == "clustered_items"]


def test_a_few_clusters_are_not_suggested_whatever_their_icc():
    rows = clustered_rows(clusters=6, per=40, effect_sd=1.0, seed=8)
    gaps, docs = hand_gaps(rows)
    assert anova_icc(gaps, docs) > 0.3   # alike gaps, but with 6 clusters the smallest p is 2 / 64
    assert not [p for p in analyze(rows, metric="y").problems if p.code == "clustered_items"]


def hand_flip_p(x) -> float:
    """Two-sided p of flipping the signs of ``x``, over every pattern (brute force)."""
    hits = sum(abs(np.dot(s, x)) >= abs(np.sum(x)) * (1 - 1e-12) - 1e-12
               for s in itertools.product([-1, 1], repeat=len(x)))
    return hits / 2 ** len(x)


def test_interval_is_honoured_at_the_clusters_level():
    from probestats import Tests

    rows = clustered_rows(clusters=9, per=4, seed=11)
    rows = [r for r in rows if not (r["doc"] in ("d0", "d1") and r["item"].endswith(("-2", "-3")))]   # unequal
    gaps, docs = hand_gaps(rows)
    names = sorted(set(docs))
    sums = np.array([gaps[docs == n].sum() for n in names])
    counts = np.array([(docs == n).sum() for n in names], dtype=float)
    # sign-flip: the ends are where the brute-force p of the shifted cluster sums S_c - n_c d crosses alpha
    iv = analyze(rows, metric="y", probe=Probe(cluster="doc"), tests=Tests(interval="sign-flip")).main.interval
    assert iv.method.startswith("sign-flip test inversion at the clusters' level")
    eps = 1e-6
    for end, outward in ((iv.low, -1), (iv.high, 1)):
        assert hand_flip_p(sums - counts * (end - outward * eps)) > 0.05
        assert hand_flip_p(sums - counts * (end + outward * eps)) <= 0.05
    # percentile: a bootstrap of whole clusters, as the hand one (own draws) gives it
    iv = analyze(rows, metric="y", probe=Probe(cluster="doc"), tests=Tests(interval="percentile")).main.interval
    low, high = hand_cluster_bootstrap(gaps, docs)
    assert "cluster bootstrap, percentile" in iv.method
    assert (iv.low, iv.high) == (pytest.approx(low, abs=0.03), pytest.approx(high, abs=0.03))
    result = analyze(rows, metric="y", probe=Probe(cluster="doc"), tests=Tests(interval="bootstrap"))
    assert "cluster bootstrap, BCa" in result.main.interval.method
    assert "a BCa bootstrap of whole clusters" in last_caveat(result.verdict).sentence


def hand_cluster_bca_dz(a, b, docs, draws: int = 4000, seed: int = 99, confidence: float = 0.95):
    """The BCa cluster bootstrap of d_z written out: resample clusters, d_z of the drawn items; bias correction
    from the share below the estimate, acceleration from the leave-one-cluster-out jackknife."""
    from scipy.stats import norm

    names = sorted(set(docs))
    parts = [(a - b)[docs == n] for n in names]

    def dz(g):
        return g.mean() / g.std(ddof=1)

    est = dz(a - b)
    rng = np.random.default_rng(seed)
    boot = np.array([dz(np.concatenate([parts[k] for k in rng.integers(0, len(names), len(names))]))
                     for _ in range(draws)])
    z0 = norm.ppf(np.mean(boot < est))
    jack = np.array([dz(np.concatenate([p for j, p in enumerate(parts) if j != i])) for i in range(len(names))])
    d = jack.mean() - jack
    acc = np.sum(d ** 3) / (6 * np.sum(d ** 2) ** 1.5)
    z = norm.ppf([(1 - confidence) / 2, (1 + confidence) / 2])
    return np.quantile(boot, norm.cdf(z0 + (z0 + z) / (1 - acc * (z0 + z))))


def test_effect_size_intervals_resample_whole_clusters():
    rows = clustered_rows(clusters=30, per=6, effect_sd=0.6, gap=0.4, seed=21)
    plain = analyze(rows, metric="y")
    result = analyze(rows, metric="y", probe=Probe(cluster="doc"))
    dz = result.main.effects.d_z
    assert dz.value == pytest.approx(plain.main.effects.d_z.value, abs=1e-12)   # the estimate stays
    assert "cluster bootstrap, BCa" in dz.interval_method
    cells: dict = {}
    for r in rows:
        cells.setdefault((r["item"], r["variant"]), []).append(r["y"])
    items = sorted({r["item"] for r in rows})
    a = np.array([np.mean(cells[(i, "a")]) for i in items])
    b = np.array([np.mean(cells[(i, "b")]) for i in items])
    docs = np.array([{r["item"]: r["doc"] for r in rows}[i] for i in items])
    low, high = hand_cluster_bca_dz(a, b, docs)
    assert (dz.low, dz.high) == (pytest.approx(low, abs=0.04), pytest.approx(high, abs=0.04))
    # wider than the item-level interval, which treats the items as independent
    item = plain.main.effects.d_z
    assert dz.high - dz.low > 1.3 * (item.high - item.low)
    assert "resample whole clusters" in last_caveat(result.verdict).sentence
    dav = result.main.effects.d_av
    assert "cluster bootstrap, BCa" in dav.interval_method and dav.low < dav.value < dav.high
