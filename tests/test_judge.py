"""Order probes on pairwise judges: verdict extraction, the figures, their tests, the command and the report."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import binom, binomtest

from probestats.analyses.judge import analyze_order
from probestats.errors import OptionError, ValidationError
from probestats.shape.verdicts import Verdict, choice_rules, extract, parse_rules
from probestats.stats.proportion import share
from tests.judge_factory import RULES, Judge, make_judge_log, pairs_log

# ---------------------------------------------------------------- verdict extraction

AB = parse_rules(["first=[[A]]", "second=[[B]]", "tie=[[C]]"])


@pytest.mark.parametrize("reply, expected", [
    # both [[A]] and [[B]]: two labels match -> unparsed, never guessed
    ("I considered [[A]] but my final verdict is [[B]]", Verdict(None, "several_labels")),
    # neither
    ("Both answers are fine.", Verdict(None, "no_match")),
    # lowercase: literal rules are case-sensitive, so [[a]] names nothing
    ("Final verdict: [[a]]", Verdict(None, "no_match")),
    # the pattern inside a quoted passage matches like anywhere else (no special treatment of quotes) ...
    ('My verdict: "[[A]]"', Verdict("first")),
    # ... so a reply quoting the instruction that lists both tags is unparsed, even with a verdict after it
    ('You asked me to "output [[A]] or [[B]]". Verdict: [[A]]', Verdict(None, "several_labels")),
    # a tag quoted from the other answer's text while giving the tie tag: two labels
    ('Answer 2 says "[[B]] is best"; verdict [[C]]', Verdict(None, "several_labels")),
    # the same label several times is one label
    ("[[A]] ... again, [[A]]", Verdict("first")),
    ("   ", Verdict(None, "blank")),
    (None, Verdict(None, "blank")),
])
def test_extraction_follows_the_declared_rule(reply, expected):
    assert extract(reply, AB) == expected


def test_a_regular_expression_can_opt_into_case_folding():
    rules = parse_rules([r"first=re:(?i)\[\[a\]\]", r"second=re:(?i)\[\[b\]\]"])
    assert extract("verdict: [[a]]", rules) == Verdict("first")
    assert extract("verdict: [[B]]", rules) == Verdict("second")
    assert extract("[[a]] vs [[b]]", rules) == Verdict(None, "several_labels")


def test_choice_cells_match_whole_trimmed_values():
    rules = choice_rules(["first=A", "second=B", "tie=C"])
    assert extract(" A ", rules, whole=True) == Verdict("first")
    assert extract("AB", rules, whole=True) == Verdict(None, "no_match")  # not a substring search
    assert extract("a", rules, whole=True) == Verdict(None, "no_match")  # case-sensitive
    assert extract("first", choice_rules(), whole=True) == Verdict("first")


@pytest.mark.parametrize("rule, fragment", [
    ("first", "expected LABEL=PATTERN"),
    ("winner=[[A]]", "the label must be first, second or tie"),
    ("first=", "the pattern is empty"),
    ("first=re:[", "not a regular expression"),
    ("first=re:x*", "matches an empty reply"),
    ("first=re:[[A]]", "the expression is ambiguous: a set of characters [...] in it may change meaning"),
])
def test_bad_rules_are_refused_with_the_fix(rule, fragment):
    with pytest.raises(OptionError, match=fragment.replace("[", r"\[")):
        parse_rules([rule, "second=B"])


def test_one_label_is_not_enough():
    with pytest.raises(OptionError, match="at least the first and second"):
        parse_rules(["first=A", "first=B"])


# ---------------------------------------------------------------- a hand-worked example

HAND = [
    ("first", "second"),   # 1 consistent: X preferred in both orders      d = 1 + 0 - 1 = 0
    ("second", "first"),   # 2 consistent: Y preferred                      d = 0 + 1 - 1 = 0
    ("first", "first"),    # 3 primacy                                      d = 1 + 1 - 1 = +1
    ("first", "first"),    # 4 primacy                                      d = +1
    ("tie", "tie"),        # 5 consistent tie                               d = .5 + .5 - 1 = 0
    ("second", "second"),  # 6 recency                                      d = -1
    ("first", "first"),    # 7 primacy                                      d = +1
    ("first", "tie"),      # 8 inconsistent tie                             d = 1 + .5 - 1 = +.5
    ("first", "second"),   # 9 consistent                                   d = 0
    (None, "second"),      # 10 one verdict unparsed: out of the main figure
]


def test_the_hand_worked_example():
    # Items with both verdicts parsed: 1-9, n = 9. Consistent: 1, 2, 5, 9 -> 4 of 9.
    # Primacy: 3, 4, 7 -> 3; recency: 6 -> 1; ties: 1 consistent (5), 1 inconsistent (8).
    # Preference score (3 - 1) / (3 + 1) = 0.5.
    # Binomial test, k = 3 of n = 4: 2 * P(X >= 3) = 2 * (4 + 1) / 16 = 0.625.
    # Unparsed as consistent: (4 + 1) / (9 + 1) = 0.5.
    # Sign-flip on d = 0, 0, 1, 1, 0, -1, 1, .5, 0: the five non-zero values 1, 1, -1, 1, .5 give
    # |sum| >= 2.5 in 12 of 32 sign patterns (four signs summing to +-4: 2 patterns each; to +-2: the 4
    # patterns where the .5 has the same sign), so p = 12 / 32 = 0.375; mean d = 2.5 / 9.
    # Extraction: 19 of 20 replies read = 0.95.
    g = analyze_order(pairs_log(HAND), order="order", verdicts=RULES).groups[0]
    assert (g.n_items, g.consistency.k) == (9, 4)
    assert g.consistency.value == pytest.approx(4 / 9)
    assert (g.primacy, g.recency, g.ties_consistent, g.ties_inconsistent) == (3, 1, 1, 1)
    assert g.preference_score == 0.5
    assert g.order_test_p == pytest.approx(0.625)
    assert g.consistency_unparsed_as_consistent == 0.5
    assert (g.one_unparsed, g.both_unparsed) == (1, 0)
    assert g.sign_flip.pvalue == pytest.approx(0.375)
    assert g.order_effect == pytest.approx(2.5 / 9)
    assert g.extraction_rate == 0.95
    assert g.unparsed["count"] == 1 and g.unparsed["replies"][0]["text"] == "no verdict given"
    # the interval is scipy's exact one for 4 of 9
    ci = binomtest(4, 9).proportion_ci(0.95, method="exact")
    assert (g.consistency.low, g.consistency.high) == (pytest.approx(ci.low), pytest.approx(ci.high))


def test_choice_column_gives_the_same_figures_as_the_replies():
    log = pairs_log(HAND)
    by_reply = analyze_order(log, order="order", verdicts=RULES).groups[0].to_dict()
    by_choice = analyze_order(log, order="order", choice="choice").groups[0].to_dict()
    for key in ("n_items", "consistency", "primacy", "recency", "ties", "preference_score", "order_test",
                "sign_flip", "extraction_rate"):
        assert by_reply[key] == by_choice[key], key


# ---------------------------------------------------------------- planted preferences

def test_a_planted_primacy_preference_is_detected_and_an_even_judge_is_not():
    judges = {"first-lover": Judge(consistency=0.5, primacy=0.9), "even": Judge(consistency=0.5, primacy=0.5)}
    result = analyze_order(make_judge_log(items=60, judges=judges, seed=3), order="order", verdicts=RULES,
                           by=["judge"])
    assert result.correction == "holm"
    lover, even = result.groups
    assert lover.by == {"judge": "first-lover"} and even.by == {"judge": "even"}
    assert lover.order_test_p_adjusted < 0.05 and lover.sign_flip_p_adjusted < 0.05
    assert lover.preference_score > 0.5 and lover.order_effect > 0
    assert even.order_test_p_adjusted > 0.05 and even.sign_flip_p_adjusted > 0.05
    # Holm over two groups: the smaller p doubled, the larger kept (never below the smaller adjusted)
    for name in ("order_test_p", "sign_flip"):
        raw = [g.order_test_p if name == "order_test_p" else g.sign_flip.pvalue for g in result.groups]
        adj = [getattr(g, name + ("_adjusted" if name == "order_test_p" else "_p_adjusted")) for g in result.groups]
        lo = int(np.argmin(raw))
        assert adj[lo] == pytest.approx(min(1, 2 * raw[lo]))
        assert adj[1 - lo] == pytest.approx(max(adj[lo], raw[1 - lo]))


def test_exact_intervals_cover_the_planted_consistency():
    # 500 simulated judges of 30 items each, one log with a --by group per simulated judge. The
    # Clopper-Pearson interval is exact (conservative): its coverage is at least 95% at every true
    # share, so the observed coverage must not fall below 95% by more than Monte Carlo error
    # (2 standard errors of 500 draws: 0.0195).
    c = 0.7
    judges = {f"j{i:03d}": Judge(consistency=c, primacy=0.6, ties=0.2) for i in range(500)}
    result = analyze_order(make_judge_log(items=30, judges=judges, seed=11, reply_noise=False), order="order",
                           choice="choice", by=["judge"], correction="none")
    covered = [g.consistency.low <= c <= g.consistency.high for g in result.groups]
    assert len(covered) == 500
    assert np.mean(covered) >= 0.95 - 0.0195
    # and the guarantee itself, computed exactly for n = 30 at this share: sum of Binomial(30, c) over the
    # counts whose interval covers c
    exact = sum(binom.pmf(k, 30, c) for k in range(31)
                if share(k, 30).low <= c <= share(k, 30).high)
    assert exact >= 0.95


# ---------------------------------------------------------------- repetitions

def test_repetitions_side_by_side_and_their_stability():
    # repetition 1: items a, b consistent, c primacy; repetition 2: a consistent, b flipped to recency,
    # c primacy again. Stable items (same verdict in each order in both repetitions): a and c -> 2 of 3.
    rows = []
    verdicts = {1: {"a": ("first", "second"), "b": ("second", "first"), "c": ("first", "first")},
                2: {"a": ("first", "second"), "b": ("second", "second"), "c": ("first", "first")}}
    for rep, items in verdicts.items():
        for item, (v1, v2) in items.items():
            rows += [{"item": item, "order": "AB", "choice": v1, "rep": rep},
                     {"item": item, "order": "BA", "choice": v2, "rep": rep}]
    g = analyze_order(rows, order="order", choice="choice", repetition="rep").groups[0]
    assert [(r.repetition, r.consistency.k, r.consistency.n) for r in g.repetitions] == [("1", 2, 3), ("2", 1, 3)]
    assert (g.stability.k, g.stability.n) == (2, 3)
    assert (g.consistency.k, g.n_items) == (3, 6)  # pooled over item x repetition pairs
    # the sign-flip keeps the item as unit: d per item averaged over repetitions: a 0, b (0 - 1) / 2, c 1
    assert g.sign_flip.n == 3 and g.order_effect == pytest.approx((0 - 0.5 + 1) / 3)


def test_a_second_verdict_for_the_same_item_and_order_is_an_error_naming_repetition():
    rows = [{"item": 1, "order": "AB", "choice": "first"}, {"item": 1, "order": "AB", "choice": "second"},
            {"item": 1, "order": "BA", "choice": "first"}]
    with pytest.raises(ValidationError, match="tells them apart with repetition='COL' or by='COL'"):
        analyze_order(rows, order="order", choice="choice")


def test_an_order_column_needs_two_values():
    rows = [{"item": 1, "order": o, "choice": "first"} for o in ("AB", "BA", "CA")]
    with pytest.raises(ValidationError, match="exactly two"):
        analyze_order(rows, order="order", choice="choice")


def test_items_judged_in_one_order_are_left_out_with_a_warning():
    rows = pairs_log([("first", "second")]).to_dicts() + [{"item": "x", "order": "AB", "reply": "[[A]]",
                                                           "choice": "first"}]
    result = analyze_order(rows, order="order", choice="choice")
    assert result.groups[0].n_items == 1 and result.groups[0].missing_order == 1
    assert [p.code for p in result.problems] == ["missing_order"]


def test_a_blank_verdict_does_not_stop_the_analysis():
    g = analyze_order(pairs_log([("first", "second"), (None, None), ("first", "first")]), order="order",
                      choice="choice").groups[0]
    assert (g.n_items, g.both_unparsed, g.unparsed["count"]) == (2, 1, 2)
    assert g.unparsed["reasons"] == {"blank": 2}


# ---------------------------------------------------------------- properties

VERDICT = st.sampled_from(["first", "second", "tie", None])
PAIRS = st.lists(st.tuples(VERDICT, VERDICT), min_size=1, max_size=25)
MIRROR = {"first": "second", "second": "first", "tie": "tie", None: None}


def _run(pairs):
    return analyze_order(pairs_log(pairs), order="order", choice="choice").groups[0]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PAIRS)
def test_counts_agree_with_a_direct_classification(pairs):
    g = _run(pairs)
    both = [(a, b) for a, b in pairs if a is not None and b is not None]
    consistent = sum((a, b) in {("first", "second"), ("second", "first"), ("tie", "tie")} for a, b in both)
    assert (g.n_items, g.consistency.k) == (len(both), consistent)
    assert g.primacy == both.count(("first", "first")) and g.recency == both.count(("second", "second"))
    assert g.n_items - consistent == g.primacy + g.recency + g.ties_inconsistent
    if g.consistency.value is not None:
        assert 0 <= g.consistency.low <= g.consistency.value <= g.consistency.high <= 1
    if g.preference_score is not None:
        assert -1 <= g.preference_score <= 1
    n = g.primacy + g.recency
    if n:  # the binomial p is scipy's
        assert g.order_test_p == binomtest(g.primacy, n, 0.5).pvalue
    else:
        assert g.order_test_p is None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PAIRS)
def test_mirroring_the_slots_swaps_primacy_and_recency(pairs):
    g, m = _run(pairs), _run([(MIRROR[a], MIRROR[b]) for a, b in pairs])
    assert (m.primacy, m.recency) == (g.recency, g.primacy)
    assert m.consistency == g.consistency
    if g.preference_score is None:
        assert m.preference_score is None
    else:
        assert m.preference_score == -g.preference_score
    if g.sign_flip is not None:
        assert m.order_effect == pytest.approx(-g.order_effect)
        assert m.sign_flip.pvalue == pytest.approx(g.sign_flip.pvalue)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PAIRS)
def test_which_order_is_called_first_changes_nothing(pairs):
    g, s = _run(pairs), _run([(b, a) for a, b in pairs])
    assert (s.primacy, s.recency, s.consistency, s.preference_score, s.order_test_p) == \
        (g.primacy, g.recency, g.consistency, g.preference_score, g.order_test_p)
    if g.sign_flip is not None:
        assert s.order_effect == pytest.approx(g.order_effect)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 60).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
       st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_the_share_interval_is_scipys_and_holds_its_estimate(kn, confidence):
    k, n = kn
    s = share(k, n, confidence=confidence)
    if n == 0:
        assert s.value is None
        return
    ci = binomtest(k, n).proportion_ci(confidence, method="exact")
    assert (s.low, s.high) == (pytest.approx(ci.low, abs=1e-10), pytest.approx(ci.high, abs=1e-10))
    assert s.low <= s.value <= s.high
    # Clopper-Pearson by its definition: at the lower end P(X >= k) = (1 - confidence) / 2
    if 0 < k:
        assert binom.sf(k - 1, n, s.low) == pytest.approx((1 - confidence) / 2, rel=1e-6)
    if k < n:
        assert binom.cdf(k, n, s.high) == pytest.approx((1 - confidence) / 2, rel=1e-6)


def test_the_result_json_has_the_documented_fields():
    d = analyze_order(make_judge_log(items=10, seed=2), order="order", verdicts=RULES, by=["judge"]).to_dict()
    assert d["schema_version"] == 2 and d["correction"] == "holm"
    g = d["groups"][0]
    for key in ("by", "n_items", "consistency", "consistency_unparsed_as_consistent", "primacy", "recency", "ties",
                "preference_score", "order_test", "sign_flip", "extraction_rate", "unparsed"):
        assert key in g, key
    assert set(g["consistency"]) >= {"value", "low", "high"}
    assert set(g["order_test"]) >= {"p", "method"} and "p" in g["sign_flip"]
    assert math.isclose(g["consistency"]["value"], g["consistency"]["k"] / g["consistency"]["n"])


# ---------------------------------------------------------------- the command and the report

import json  # noqa: E402
import re  # noqa: E402
from html.parser import HTMLParser  # noqa: E402
from pathlib import Path  # noqa: E402

from probestats.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
VERDICT_ARGS = ["--verdict", "first=[[A]]", "--verdict", "second=[[B]]", "--verdict", "tie=[[C]]"]
REPORT_VERDICTS = ["--verdict", "first=[[A]]", "--verdict", "second=[[B]]",
                   "--verdict", "tie=[[C]]"]   # VERDICT_ARGS as a report's settings


def run_cli(args, capsys):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_judge_json_per_judge(tmp_path, capsys):
    path = tmp_path / "verdicts.csv"
    judges = {"first-lover": Judge(0.5, 0.9), "even": Judge(0.5, 0.5)}
    make_judge_log(items=60, judges=judges, seed=3).rename({"order": "position"}).write_csv(path)
    code, out, err = run_cli(["judge", path, "--order", "position", "--response", "reply", *VERDICT_ARGS,
                              "--by", "judge", "--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert data["schema_version"] == 2 and data["correction"] == "holm"
    direct = analyze_order(path.as_posix(), order="position", response="reply", verdicts=RULES, by=["judge"])
    assert data == json.loads(json.dumps(direct.to_dict()))
    code, out, err = run_cli(["judge", path, "--order", "position", "--response", "reply", *VERDICT_ARGS,
                              "--by", "judge"], capsys)
    assert code == 0 and "first-lover" in out and "consistency" in out


def test_judge_scored_routes_to_the_paired_analysis(tmp_path, capsys):
    # one score per answer and order; answer x gains one point when shown first, in 6 of 6 items
    rows = [{"item": f"{q}-{ans}", "position": pos, "score": 5 + (ans == "x") + (pos == "x-first" and ans == "x")}
            for q in range(6) for ans in ("x", "y") for pos in ("x-first", "y-first")]
    path = tmp_path / "scores.csv"
    pl.DataFrame(rows).write_csv(path)
    code, out, err = run_cli(["judge", path, "--order", "position", "--score", "score", "--scale", "1:10", "--json"],
                             capsys)
    assert code == 0, err
    data = json.loads(out)
    assert (data["a"], data["b"]) == ("x-first", "y-first")
    # gaps: +1 for the six x items, 0 for the six y items; the exact sign-flip over the six non-zero gaps
    # (all positive) is 2 / 2^6
    assert data["average_gap"] == pytest.approx(0.5)
    assert data["sign_flip"]["p"] == pytest.approx(2 / 64)


@pytest.mark.parametrize("args, code, fragment", [
    (["--order", "position"], 2, "say how verdicts are read"),
    (["--order", "position", "--choice", "choice", "--response", "reply"], 2, "not --response and --choice"),
    (["--order", "position", "--response", "reply", "--verdict", "best=[[A]]", "--verdict", "second=[[B]]"], 1,
     "Error: --verdict 'best=[[A]]': the label must be first, second or tie"),
    (["--order", "nowhere", "--choice", "choice"], 1, "Error: --order nowhere: no such column"),
    (["--order", "position", "--choice", "choice", "--scale", "1:10"], 2, "--scale belongs to a scored judge"),
])
def test_judge_refuses_with_one_line(tmp_path, capsys, args, code, fragment):
    path = tmp_path / "verdicts.csv"
    make_judge_log(items=5, seed=1).rename({"order": "position"}).write_csv(path)
    got, out, err = run_cli(["judge", path, *args], capsys)
    assert got == code and fragment in err
    assert "Traceback" not in err
    if code == 1:
        assert err.count("\n") == 1


HOSTILE_REPLY = '<script>alert(1)</script> **bold** | [x](http://evil.example) $x$ \x1b]52;c;cHdu\x07'


def _hostile_judge_log(path: Path) -> None:
    rows = []
    for i, (v1, v2) in enumerate([("first", "second"), ("first", "first"), (None, "second"), ("tie", "tie")]):
        for pos, v in (("AB", v1), ("BA", v2)):
            tag = {"first": "[[A]]", "second": "[[B]]", "tie": "[[C]]"}.get(v)
            reply = HOSTILE_REPLY if v is None else f"<b>{i}</b> {HOSTILE_REPLY} verdict: {tag}"
            rows.append({"judge": "<i>judge</i>|x", "item": f"<img src=x onerror=alert(1)>{i}", "position": pos,
                         "reply": reply})
    pl.DataFrame(rows).write_csv(path)


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_report_with_order_renders_the_judge_section_escaped(tmp_path, capsys, fmt):
    log = tmp_path / "verdicts.csv"
    _hostile_judge_log(log)
    out = tmp_path / f"r.{fmt}"
    code, _, err = run_cli(["report", log, "--order", "position", "--response", "reply", *REPORT_VERDICTS,
                            "--by", "judge", "-o", out], capsys)
    assert code == 0, err
    text = out.read_text(encoding="utf-8")
    assert "\x1b" not in text or fmt == "json"
    if fmt == "json":
        data = json.loads(text)
        assert data["groups"][0]["unparsed"]["count"] == 1
        return
    if fmt == "html":
        assert 'id="judge"' in text and "Order probe of a judge" in text
        page = _Tags()
        page.feed(text)
        tags = {t for t, _ in page.tags}
        assert not tags & {"script", "b", "i", "a"}
        assert all(a["src"].startswith("data:image/png;base64,") for t, a in page.tags if t == "img")
        assert not any(k.startswith("on") for _, a in page.tags for k in a)
        assert "&lt;script&gt;" in text  # the unparsed reply is listed, escaped
    else:
        assert "## Order probe of a judge" in text
        assert not re.search(r"(?<!\\)<", text)
        assert "\\<script\\>" in text and "\\*\\*bold\\*\\*" in text
        for block in text.split("\n\n"):  # every table row keeps its column count
            rows = [line for line in block.splitlines() if line.startswith("|")]
            widths = {len(re.findall(r"(?<!\\)\|", r)) for r in rows}
            assert len(widths) <= 1, block


def test_report_needs_a_metric_or_an_order(tmp_path, capsys):
    log = tmp_path / "verdicts.csv"
    _hostile_judge_log(log)
    code, _, err = run_cli(["report", log, "-o", tmp_path / "r.md"], capsys)
    assert code == 2 and "--metric" in err
    code, _, err = run_cli(["report", log, "--verdict", "first=A", "-o", tmp_path / "r.md"], capsys)
    assert code == 2 and "add --order COL" in err


def test_the_judge_section_beside_a_probe_report():
    from probestats import analyze
    from probestats.present.report.document import Beside, render_report

    judge = analyze_order(pairs_log(HAND), order="order", verdicts=RULES)
    probe = analyze(ROOT / "sample_logs" / "style_probe.csv", metric="steps")
    text = render_report(probe, format="md", beside=Beside(judge=judge))
    assert "## Order probe of a judge" in text and "## Tests" in text
    alone = render_report(probe, format="md", sections=["judge"], beside=Beside(judge=judge))
    assert alone.startswith("## Order probe of a judge") and alone.count("\n## ") == 0
    with pytest.raises(OptionError) as refused:
        render_report(probe, format="md", sections=["judge"])
    assert str(refused.value) == ("sections='judge': not in this report: no order probe was given; add "
                                  "judge={order: COL, ...} and the verdict settings")


def test_the_terminal_table_shows_log_controls_as_escapes(tmp_path, capsys):
    log = tmp_path / "verdicts.csv"
    _hostile_judge_log(log)
    code, out, err = run_cli(["judge", log, "--order", "position", "--response", "reply", *VERDICT_ARGS,
                              "--by", "judge"], capsys)
    assert code == 0, err
    assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b]52;c;cHdu\\x07" in out  # the unparsed reply is listed, its escape sequence visible


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.tuples(VERDICT, VERDICT), st.tuples(VERDICT, VERDICT)), min_size=1, max_size=12))
def test_repetitions_agree_with_a_direct_count(items):
    # items[i] = ((v1, v2) in repetition 1, (v1, v2) in repetition 2)
    rows = [{"item": f"i{i}", "order": o, "choice": v, "rep": r + 1}
            for i, reps in enumerate(items) for r, pair in enumerate(reps) for o, v in zip(("AB", "BA"), pair)]
    schema = {"item": pl.String, "order": pl.String, "choice": pl.String, "rep": pl.Int64}
    g = analyze_order(pl.DataFrame(rows, schema=schema), order="order", choice="choice", repetition="rep").groups[0]
    mirrored = {("first", "second"), ("second", "first"), ("tie", "tie")}
    for r, rep in enumerate(g.repetitions):
        both = [reps[r] for reps in items if None not in reps[r]]
        assert (rep.consistency.k, rep.consistency.n) == (sum(p in mirrored for p in both), len(both))
    assert g.consistency.k == sum(r.consistency.k for r in g.repetitions)
    assert g.n_items == sum(r.consistency.n for r in g.repetitions)
    usable = [reps for reps in items if None not in reps[0] + reps[1]]
    assert (g.stability.k, g.stability.n) == (sum(a == b for a, b in usable), len(usable))


@pytest.mark.parametrize("n, heading", [(1, "1 problem"), (2, "2 problems")])
def test_the_terminal_counts_the_problems_with_their_noun(n, heading):
    import dataclasses
    import io

    from rich.console import Console

    from probestats.errors import Problem
    from probestats.present.terminal.judge import print_judge

    rows = [{"item": i, "order": o, "choice": c} for i, pair in enumerate([("first", "second"), ("first", "first")])
            for o, c in zip(("AB", "BA"), pair)]
    result = dataclasses.replace(analyze_order(rows, order="order", choice="choice"),
                                 problems=tuple(Problem("warning", "few_items", f"note {k}") for k in range(n)))
    out = io.StringIO()
    print_judge(result, Console(file=out, width=200))
    lines = out.getvalue().splitlines()
    assert lines[-n - 1:] == [heading] + [f"  warning  few_items            note {k}" for k in range(n)]
