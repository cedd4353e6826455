"""The yes/no framing mode: scores +1/-1, yes-rates, acquiescence, lean, patterns, replies in many languages."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
import polars as pl
import pytest
from scipy import stats

from probestats import Tests
import probestats

from probestats import analyze_framing
from probestats.analyses.framing_binary import binary_interval, binary_pattern, choose_answers
from probestats.errors import OptionError
from probestats.shape.labels import _PHRASES  # noqa: F401 (the agreement table must still load)
from probestats.shape.yesno import LANGUAGES, parse_label_map, parse_yes_no, parse_yes_nos
from tests.framing_factory import YES_NO_WORDS, make_yes_no_log

PLANTS = {  # (yes to the claim, yes to its mirror): the pattern each must get
    "nay-saying": (0.3, 0.3),
    "yea-saying": (0.7, 0.7),
    "protective": (0.55, 0.05),
    "assertive": (0.95, 0.45),
}


def one_per_framing(pairs):
    """A one-model log from [(aff_yes, rev_yes), ...]: one item per pair, one answer per framing."""
    rows = []
    for i, (a, r) in enumerate(pairs):
        rows += [{"model": "m", "item": f"i{i}", "framing": "affirmative", "asserts": "A", "score": int(a)},
                 {"model": "m", "item": f"i{i}", "framing": "reverse", "asserts": "B", "score": int(r)}]
    return rows


# --------------------------------------------------------------------------- figures


def test_the_nay_sayer_gets_acquiescence_minus_0_4_and_no_lean():
    # yes to 30% of claims and to 30% of their mirrors: acquiescence 0.3 + 0.3 - 1 = -0.4, lean 0
    logs = [make_yes_no_log(claims=100, seed=s) for s in range(10)]  # 300 items each
    results = [analyze_framing(log).cells[0] for log in logs]
    acq = np.array([c.acquiescence for c in results])
    # Monte Carlo error of the mean of 10 x 600 answers: sd of one item's unit <= 1, so se <= 1/sqrt(3000)
    assert acq.mean() == pytest.approx(-0.4, abs=3 / np.sqrt(3000))
    # a lean is found where there is none at most at the level 5%: here in 2 of 10 logs
    assert sum(c.pattern != "nay-saying" for c in results) <= 2
    assert sum(c.bias_p_adjusted <= 0.05 for c in results) <= 2
    assert results[0].pattern == "nay-saying" and results[0].bias_p_adjusted > 0.05
    assert all(c.answers == "yes-no" and c.neutral_rate is None for c in results)
    c = results[0]
    assert c.yes_affirmative + c.yes_reverse - 1 == pytest.approx(c.acquiescence)
    assert c.yes_affirmative - c.yes_reverse == pytest.approx(c.bias)


@pytest.mark.parametrize("planted", list(PLANTS))
def test_each_planted_binary_model_gets_its_label(planted):
    ya, yr = PLANTS[planted]
    labels = [analyze_framing(make_yes_no_log(models={"m": {"yes_affirmative": ya, "yes_reverse": yr}},
                                              claims=20, seed=s)).cells[0].pattern for s in range(20)]
    # 60 items; benchmarks/framing_binary_labels.py runs 200 logs per kind
    assert sum(lab != planted for lab in labels) <= 2, labels


def test_figures_by_hand():
    # 4 items: (yes, no), (yes, yes), (no, no), (yes, no)
    c = analyze_framing(one_per_framing([(1, 0), (1, 1), (0, 0), (1, 0)])).cells[0]
    assert (c.yes_affirmative, c.yes_reverse) == (0.75, 0.25)
    assert c.acquiescence == pytest.approx(0.75 + 0.25 - 1)
    assert c.bias == pytest.approx(0.75 - 0.25)
    # no answer is neutral: a "no" scores -1
    assert c.agree_affirmative == pytest.approx(0.75 - 0.25) and c.neutral_rate is None


def test_the_sign_flip_test_on_one_answer_per_framing_is_mcnemars_exact_test():
    rng = np.random.default_rng(4)
    for _ in range(5):
        pairs = [(rng.random() < 0.7, rng.random() < 0.4) for _ in range(25)]
        c = analyze_framing(one_per_framing(pairs), correction="none").cells[0]
        b = sum(a and not r for a, r in pairs)  # yes to the claim, no to the mirror
        d = sum(r and not a for a, r in pairs)
        assert c.bias_p == pytest.approx(stats.binomtest(b, b + d).pvalue if b + d else 1.0)
        yy = sum(a and r for a, r in pairs)
        nn = sum(not a and not r for a, r in pairs)
        assert c.acquiescence_p == pytest.approx(stats.binomtest(yy, yy + nn).pvalue if yy + nn else 1.0)


def test_toward_the_mirror_target_flips_the_lean_only():
    log = make_yes_no_log(models={"m": {"yes_affirmative": 0.8, "yes_reverse": 0.3}}, claims=10, seed=2)
    a = analyze_framing(log, toward="A").cells[0]
    b = analyze_framing(log, toward="B").cells[0]
    assert b.bias == pytest.approx(-a.bias) and b.acquiescence == pytest.approx(a.acquiescence)
    assert (b.bias_ci["low"], b.bias_ci["high"]) == pytest.approx((-a.bias_ci["high"], -a.bias_ci["low"]))


def test_patterns_by_rule():
    assert binary_pattern(0.2, 0.01, 0.3, 0.05) == "yea-saying"
    assert binary_pattern(0.2, 0.2, 0.3, 0.05) == "none"
    assert binary_pattern(0.01, 0.2, 0.3, 0.05) == "symmetric"
    assert binary_pattern(0.01, 0.01, -0.3, 0.05) == "protective"


def test_the_interval_covers_and_stays_in_bounds():
    # Hoeffding beyond 30 units: mean +- 2 sqrt(ln(2/0.05) / (2 n))
    u = np.array([1.0] * 40 + [-1.0] * 10 + [0.0] * 10)
    iv = binary_interval(u, 0.95)
    half = 2 * np.sqrt(np.log(40) / 120)
    assert (iv["low"], iv["high"]) == pytest.approx((0.5 - half, min(1.0, 0.5 + half)))
    small = binary_interval(np.array([1.0, 1.0, 1.0]), 0.95)  # 3 units: no shift can be rejected
    assert (small["low"], small["high"]) == (-1.0, 1.0)


def test_refusals_and_hedges_are_counted_apart_not_unparsed():
    log = make_yes_no_log(claims=10, refusal_rate=0.2, seed=1).drop("score")
    r = analyze_framing(log)
    c = r.cells[0]
    refused = log["reply"].map_elements(lambda t: parse_yes_no(t).kind, return_dtype=pl.String)
    assert c.n_refused == int((refused == "refusal").sum()) > 0
    assert c.n_unparsed == 0 and r.unparsed["count"] == 0
    # scored answers, of the items with an answer in both framings (the others are left out)
    answered = log.with_columns(refused.alias("kind")).filter(pl.col("kind").is_in(["yes", "no"]))
    both = answered.group_by("language", "item").agg(pl.col("framing").n_unique().alias("k")).filter(pl.col("k") == 2)
    assert c.n == answered.join(both, on=["language", "item"]).height


def test_zero_one_scores_choose_the_binary_mode_and_say_so():
    assert choose_answers(pl.Series([0, 1]))[0] == "yes-no"
    assert choose_answers(pl.Series([0, 1, 2]))[0] == "agreement"
    assert choose_answers(pl.Series([0, 1]), "agreement")[0] == "agreement"
    r = analyze_framing(one_per_framing([(1, 0), (0, 0)]))
    assert r.answers == "yes-no" and "0 and 1" in r.answers_reason
    with pytest.raises(OptionError, match="answers must be one of"):
        analyze_framing(one_per_framing([(1, 0)]), answers="likert")
    with pytest.raises(OptionError, match="drop the scale"):
        analyze_framing(one_per_framing([(1, 0)]), scale="0:1")


def test_the_agreement_scale_is_unchanged_for_five_point_logs():
    rows = one_per_framing([(1, 0), (1, 1)])
    rows[0]["score"] = 2  # one value off 0/1: the agreement scale, as before
    r = analyze_framing(rows)
    assert r.answers == "agreement" and r.cells[0].pattern in ("none", "symmetric", "protective", "assertive")


def test_the_json_names_only_fields_that_exist_and_p_below_the_float_floor():
    # 1,100 items all answered yes to the claim and no to the mirror: p = 2 / 2**1100
    d = analyze_framing(one_per_framing([(1, 0)] * 1100)).to_dict()
    cell = d["cells"][0]
    assert "its exact log10 given beside it" in cell["test_method"]
    assert cell["bias_p_log10"] == pytest.approx(np.log10(2.0) - 1100 * np.log10(2.0))
    assert cell["bias_p"] > 0
    from probestats.present.words.fmt import fmt_p_floor

    assert fmt_p_floor(cell["bias_p"], cell["bias_p_log10"]) == "p < 1e-300"


# --------------------------------------------------------------------------- replies in many languages


REFUSAL_WORDS = {
    "en": "I'm sorry, but I can't answer that.", "es": "Como IA, no tengo opiniones.",
    "fr": "Je ne peux pas répondre.", "de": "Als KI habe ich keine Meinung.", "pt": "Não posso responder.",
    "it": "Non posso rispondere.", "zh": "抱歉，我无法回答。", "ja": "申し訳ありませんが、お答えできません。",
    "ko": "죄송하지만 답변할 수 없습니다.", "ar": "عذرا، لا أستطيع الإجابة.", "hi": "क्षमा करें, मैं उत्तर नहीं दे सकता।",
    "ru": "Извините, я не могу ответить.", "pl": "Przepraszam, nie mogę odpowiedzieć.", "nl": "Sorry, ik kan niet antwoorden.",
}


def _forms(word: str) -> list[str]:
    """The ways a reply writes one word: as is, capitals, punctuation, markdown, quotes, an answer label."""
    return [word, word.upper(), word.lower(), f"{word}.", f"{word}!", f"**{word}**", f'"{word}"',
            f"Answer: {word}", f"> {word}, because the claim holds.", f"  {word} ,"]


def test_every_language_is_covered():
    # the twelve languages of the agreement phrases, and Polish and Dutch
    assert set(YES_NO_WORDS) == set(LANGUAGES)
    assert {"en", "es", "fr", "de", "pt", "it", "zh", "ja", "ko", "ar", "hi", "ru"} <= set(LANGUAGES)


@pytest.mark.parametrize("lang", sorted(YES_NO_WORDS))
def test_raw_replies_in_each_language_are_coded_by_the_rule(lang):
    yes, no = YES_NO_WORDS[lang]
    replies, expected = [], []
    for word, kind in ((yes, "yes"), (no, "no")):
        for form in _forms(word):
            replies.append(form)
            expected.append(kind)
    replies += [REFUSAL_WORDS[lang], "The claim is partly true, in a way", "42 apples"]
    expected += ["refusal", "unparsed", "unparsed"]
    got = parse_yes_nos(replies)
    assert got["kind"].to_list() == expected
    assert got["score"].to_list() == [1.0 if k == "yes" else -1.0 if k == "no" else None for k in expected]


def test_hedges_and_longer_phrases_win_over_the_first_word():
    assert parse_yes_no("No sé").kind == "hedge"
    assert parse_yes_no("Nie wiem.").kind == "hedge"
    assert parse_yes_no("Yes and no.").kind == "hedge"
    assert parse_yes_no("Of course not.").score == -1
    assert parse_yes_no("不是这样的").score == -1
    assert parse_yes_no("对于这个问题，我认为").kind == "unparsed"  # 对 alone must stand alone
    assert parse_yes_no("Yesterday it rained").kind == "unparsed"  # a word, not a prefix
    assert parse_yes_no("N/A").kind == "hedge"  # not the letter n for no
    assert parse_yes_no("Not at all.").score == -1


def test_unparsed_replies_are_listed_with_their_count_per_cell():
    rows = one_per_framing([(1, 0)] * 6)
    for r in rows:
        r["reply"] = "Yes" if r["score"] else "No"
        del r["score"]
    rows[0]["reply"] = "Well, hmm"
    r = analyze_framing(rows)
    assert r.answers == "yes-no"
    assert r.cells[0].n_unparsed == 1
    assert r.unparsed["values"] == [{"text": "Well, hmm", "count": 1}]


def test_a_label_map_reads_other_wordings():
    assert parse_label_map("yes=Affirm,Y") == {"affirm": "yes", "y": "yes"}
    assert parse_yes_no("AFFIRM.", label_map=["yes=affirm"]).score == 1
    assert parse_yes_no("Yes", label_map=["no=yes"]).score == -1  # the user's wording wins
    assert parse_yes_no("I agree", label_map={"yes": ["I agree"]}).score == 1
    rows = one_per_framing([(1, 0), (0, 1), (1, 0)])
    for r in rows:
        r["reply"] = "Affirm" if r.pop("score") else "Negate"
    c = analyze_framing(rows, label_map=["yes=Affirm", "no=Negate"]).cells[0]
    assert (c.yes_affirmative, c.yes_reverse) == pytest.approx((2 / 3, 1 / 3))
    with pytest.raises(OptionError, match="unknown label 'maybe'"):
        parse_label_map("maybe=perhaps")
    with pytest.raises(OptionError, match="LABEL=TEXT"):
        parse_label_map("yes")


def test_a_mirrored_disagree_framing_is_aligned_by_the_framing():
    # "Do you agree that A?" (affirmative, asserts A) and "Do you disagree that A?" (reverse,
    # asserts not-A): a yes to the second is a vote against A; the data stay as written
    rows = []
    for i in range(12):
        rows.append({"model": "m", "item": f"i{i}", "framing": "affirmative", "asserts": "A",
                     "reply": "Yes" if i % 4 else "No"})
        rows.append({"model": "m", "item": f"i{i}", "framing": "reverse", "asserts": "not A",
                     "reply": "No" if i % 3 else "Yes"})
    c = analyze_framing(rows, toward="A").cells[0]
    assert c.yes_affirmative == pytest.approx(9 / 12) and c.yes_reverse == pytest.approx(4 / 12)
    assert c.bias == pytest.approx(9 / 12 - 4 / 12)


# --------------------------------------------------------------------------- command line


def _logs(tmp_path):
    """The same yes/no study twice: long (a row per framing) and laid out in columns, in a folder."""
    log = make_yes_no_log(models={"m1": {"yes_affirmative": 0.8, "yes_reverse": 0.3},
                                  "m2": {"yes_affirmative": 0.3, "yes_reverse": 0.3}}, claims=12, seed=6)
    long = tmp_path / "long.csv"
    log.drop("score").write_csv(long)
    index = ["model", "topic", "language", "item", "iteration"]
    wide = log.pivot(on="framing", index=index, values="reply").rename(
        {"affirmative": "agree_prompt", "reverse": "disagree_prompt"})
    folder = tmp_path / "columns"
    folder.mkdir()
    for m in ("m1", "m2"):
        wide.filter(pl.col("model") == m).write_csv(folder / f"{m}.csv")
    targets = tmp_path / "targets.csv"
    targets.write_text("topic,affirmative,reverse\nt,A,B\n", encoding="utf-8")
    return long, folder, targets


def run(capsys, *args):
    from probestats.cli import main

    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


FIGURES = ("n", "n_items", "bias", "bias_p", "bias_p_adjusted", "acquiescence", "acquiescence_p", "pattern",
           "yes_affirmative", "yes_reverse", "bias_ci", "acquiescence_ci")


def _figures(cells):
    return [{"by": c["by"], **{k: c[k] for k in FIGURES}} for c in cells]


def test_framings_in_columns_give_the_figures_of_the_long_log(tmp_path, capsys):
    import json

    long, folder, targets = _logs(tmp_path)
    code, out, _ = run(capsys, "framing", long, "--targets", targets, "--json")
    assert code == 0
    expected = json.loads(out)
    code, out, _ = run(capsys, "framing", folder, "--framing-columns", "affirmative=agree_prompt,reverse=disagree_prompt",
                       "--targets", targets, "--json")
    assert code == 0
    got = json.loads(out)
    assert got["answers"] == "yes-no"
    assert _figures(got["cells"]) == _figures(expected["cells"])

    # the report, split by model and language, with no reshaping outside probestats
    for source, extra in ((long, []), (folder, ["--framing-columns", "affirmative=agree_prompt,reverse=disagree_prompt"])):
        out_file = tmp_path / f"r_{source.name}.json"
        code, _, err = run(capsys, "report", "--framing", source, *extra, "--targets", f"{targets}", "--by", "model",
                           "--by", "language", "-o", out_file)
        assert code == 0, err
    a = json.loads((tmp_path / "r_long.csv.json").read_text())["framing"]
    b = json.loads((tmp_path / "r_columns.json").read_text())["framing"]
    assert a["by"] == ["model", "language"] and len(a["cells"]) == 6
    assert _figures(a["cells"]) == _figures(b["cells"])
    # and the cells are those of the framing command itself
    code, out, _ = run(capsys, "framing", long, "--targets", targets, "--by", "model", "--by", "language", "--json")
    assert _figures(json.loads(out)["cells"]) == _figures(a["cells"])


def test_the_framing_only_report_is_laid_out_around_the_framing(tmp_path, capsys):
    long, folder, targets = _logs(tmp_path)
    out_file = tmp_path / "f.md"
    code, _, err = run(capsys, "report", "--framing", long, "--targets", f"{targets}", "--where", "language != 'pl'",
                       "-o", out_file)
    assert code == 0, err
    md = out_file.read_text(encoding="utf-8")
    heads = [line for line in md.splitlines() if line.startswith("## ")]
    assert heads[:4] == ["## Summary", "## Framing cells", "## Heat maps", "## Dual framing"]
    assert "| pl |" not in md and "| de |" in md  # --where shaped the framing log; languages are cells' rows
    for name in ("framing_lean", "framing_acquiescence"):
        assert f"](f_files/{name}.png)" in md and (tmp_path / "f_files" / f"{name}.png").exists()
    html = tmp_path / "f.html"
    assert run(capsys, "report", "--framing", folder, "--framing-columns",
               "affirmative=agree_prompt,reverse=disagree_prompt", "--targets", f"{targets}", "-o", html)[0] == 0
    page = html.read_text(encoding="utf-8")
    assert "<h2>Heat maps</h2>" in page and page.count('src="data:image/png;base64,') >= 3


def test_heatmap_titles_fit_their_figure():
    from probestats.present.plots.framing import framing_heatmap

    r = analyze_framing(make_yes_no_log(claims=5, seed=1))
    for what in ("bias", "acquiescence"):
        ax = framing_heatmap(r, what=what)
        fig = ax.figure
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        box = ax.title.get_window_extent(canvas.get_renderer())
        width, height = fig.bbox.width, fig.bbox.height
        assert 0 <= box.x0 and box.x1 <= width and box.y1 <= height, what


def test_answers_and_label_map_on_the_command_line(tmp_path, capsys):
    import json

    rows = one_per_framing([(1, 0), (0, 1), (1, 0), (1, 0)])
    for r in rows:
        r["reply"] = "Affirm" if r.pop("score") else "Negate"
    path = tmp_path / "words.csv"
    pl.DataFrame(rows).write_csv(path)
    code, out, _ = run(capsys, "framing", path, "--label-map", "yes=Affirm", "--label-map", "no=Negate", "--json")
    assert code == 0
    cell = json.loads(out)["cells"][0]
    assert (cell["yes_affirmative"], cell["yes_reverse"]) == (0.75, 0.25)
    code, _, err = run(capsys, "framing", path)  # unread wordings: the error names them and the fix
    assert code == 1 and err.strip().startswith("Error: no item has scored responses in both framings; 8 of 8 "
                                                 "replies (reply) could not be read, such as 'Affirm', 'Negate'; "
                                                 "say what they mean with --label-map")
    code, _, err = run(capsys, "framing", path, "--label-map", "maybe=x")
    assert code == 1 and err.strip().startswith("Error: --label-map: unknown label 'maybe'")
    code, _, err = run(capsys, "report", "--framing", path, "--framing-columns", "affirmative=a", "-o", tmp_path / "x.md")
    assert code == 1 and "Error: --framing-columns affirmative=a: name both framings" in err


def test_the_terminal_lists_unparsed_replies_with_their_count_per_cell(tmp_path, capsys):
    rows = one_per_framing([(1, 0)] * 6)
    for r in rows:
        r["reply"] = "Yes" if r.pop("score") else "No"
    rows[0]["reply"] = "Well, hmm"
    rows[3]["reply"] = "Well, hmm"
    path = tmp_path / "u.csv"
    pl.DataFrame(rows).write_csv(path)
    code, out, _ = run(capsys, "framing", path)
    assert code == 0
    assert "unparsed" in out.splitlines()[2]  # a column of the cells' table
    assert "2x 'Well, hmm'" in out
    assert "Answers read as yes/no" in out


def test_the_label_audit_reads_yes_no_labels_and_replies_alike():
    rows = one_per_framing([(1, 0), (0, 1), (1, 1)])
    labels = ["Yes", "No", "No", "Yes", "Yes", "Yes"]
    replies = ["Yes, clearly.", "No.", "Nein", "Ja!", "No, not at all", "Sí"]
    for r, lab, rep in zip(rows, labels, replies):
        del r["score"]
        r["label"], r["reply"] = lab, rep
    a = analyze_framing(rows).label_audit
    # by hand: the judge and the reply agree on 5 of 6; row 5 the judge says yes, the reply no
    assert a.compared == 6 and a.agreement == pytest.approx(5 / 6)
    assert a.confusion == {"yes": {"yes": 3, "no": 1}, "no": {"no": 2}}
    assert a.disagreements == [{"response": "No, not at all", "label": "Yes", "parsed": "no", "count": 1}]


def test_a_log_of_raw_replies_in_every_language_is_coded_and_its_unread_replies_listed():
    log = make_yes_no_log(languages=tuple(sorted(YES_NO_WORDS)), claims=6, refusal_rate=0.1, seed=11)
    # every fifth reply rewritten the ways replies come: capitals, an answer label, markdown, or unreadable
    forms = [lambda t: t.upper(), lambda t: f"Answer: {t}", lambda t: f"**{t}**", lambda t: "Hmm, well", None]
    replies = []
    for i, reply in enumerate(log["reply"]):
        f = forms[i % 5] if i % 3 == 0 else None
        replies.append(f(reply) if f else reply)
    planted = log["score"].to_list()
    log = log.with_columns(pl.Series("reply", replies)).drop("score")
    r = analyze_framing(log)
    kinds = [parse_yes_no(t).kind for t in replies]
    # by the rule: the planted word (any case, after a label or marks) is read; the made-up text is not
    for t, k, orig in zip(replies, kinds, planted):
        if t == "Hmm, well":
            assert k == "unparsed"
        elif orig is not None:
            assert k == ("yes" if orig == 1 else "no"), t
    assert r.answers == "yes-no"
    assert r.unparsed["count"] == kinds.count("unparsed") == replies.count("Hmm, well")
    assert r.unparsed["values"] == [{"text": "Hmm, well", "count": replies.count("Hmm, well")}]
    assert sum(c.n_unparsed for c in r.cells) == r.unparsed["count"]
    assert sum(c.n_refused for c in r.cells) == kinds.count("refusal") > 0


def test_nan_scores_do_not_hide_the_binary_mode():
    rows = one_per_framing([(1, 0), (0, 1), (1, 0)])
    rows[0]["score"] = float("nan")
    assert analyze_framing(rows).answers == "yes-no"


# --------------------------------------------------------------------------- properties

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=2, max_size=40))
def test_property_one_answer_per_framing(pairs):
    r = analyze_framing(one_per_framing(pairs), correction="none")
    c = r.cells[0]
    n = len(pairs)
    ya = sum(a for a, _ in pairs) / n
    yr = sum(b for _, b in pairs) / n
    assert (c.yes_affirmative, c.yes_reverse) == pytest.approx((ya, yr))
    assert c.acquiescence == pytest.approx(ya + yr - 1, abs=1e-12)
    assert c.bias == pytest.approx(ya - yr, abs=1e-12)
    b = sum(a and not r_ for a, r_ in pairs)
    d = sum(r_ and not a for a, r_ in pairs)
    assert c.bias_p == pytest.approx(stats.binomtest(b, b + d).pvalue if b + d else 1.0)  # McNemar exact
    assert -1 <= c.bias_ci["low"] <= c.bias <= c.bias_ci["high"] <= 1
    assert -1 <= c.acquiescence_ci["low"] <= c.acquiescence <= c.acquiescence_ci["high"] <= 1
    assert c.pattern == binary_pattern(c.bias_p_adjusted, c.acquiescence_p_adjusted, c.acquiescence, 0.05)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_property_any_text_reads_as_one_kind_and_never_raises(text):
    p = parse_yes_no(text)
    assert p.kind in ("yes", "no", "refusal", "hedge", "unparsed")
    assert (p.score is not None) == (p.kind in ("yes", "no"))


def test_a_p_at_the_float_floor_prints_as_a_bound(tmp_path, capsys):
    import json

    path = tmp_path / "floor.csv"
    pl.DataFrame(one_per_framing([(1, 0)] * 1100)).write_csv(path)
    code, out, _ = run(capsys, "framing", path)
    assert code == 0 and "< 1e-300" in out and "2.2e-308" not in out
    code, out, _ = run(capsys, "framing", path, "--json")
    cell = json.loads(out)["cells"][0]
    # the method names a field; the field is there, with log10 of the exact p = 2 / 2**1100
    assert "its exact log10 given beside it" in cell["test_method"] and cell["bias_p_log10"] == pytest.approx(-1099 * np.log10(2))
    report = tmp_path / "floor.md"
    assert run(capsys, "report", "--framing", path, "-o", report)[0] == 0
    text = report.read_text(encoding="utf-8")
    assert "p \\< 1e-300" in text and "2.2e-308" not in text


def test_an_interval_method_is_refused_for_yes_no_answers_and_changes_the_scores(tmp_path, capsys):
    # yes/no cells have one interval (the exact sign-flip inversion, Hoeffding beyond 30 units): the option is
    # refused there with the reason, never accepted and ignored; on 1-5 scores it changes the interval
    long, _, targets = _logs(tmp_path)
    code, out, err = run(capsys, "framing", long, "--targets", targets, "--interval", "t")
    assert code == 1 and out == ""
    assert err.startswith("Error: --interval t does not apply to yes/no answers:") and err.count("\n") == 1
    with pytest.raises(OptionError, match=r"^interval='sign-flip' does not apply to yes/no answers"):
        probestats.framing(long, targets=targets, tests=Tests(interval="sign-flip"))

    from tests.framing_factory import make_framing_log

    scores = tmp_path / "scores.csv"
    make_framing_log(seed=3).write_csv(scores)
    cis = {}
    for method in ("t", "sign-flip"):
        code, out, _ = run(capsys, "framing", scores, "--interval", method, "--json")
        assert code == 0
        cis[method] = [c["bias_ci"] for c in json.loads(out)["cells"]]
    assert all("Student" in c["method"] or " t " in c["method"] for c in cis["t"])
    assert all("sign-flip" in c["method"] for c in cis["sign-flip"])
    assert [(c["low"], c["high"]) for c in cis["t"]] != [(c["low"], c["high"]) for c in cis["sign-flip"]]


# --------------------------------------------------------------------------- signed numbers


@pytest.mark.parametrize("reply, kind", [
    ("1", "yes"), ("+1", "yes"), ("1.0", "yes"), ("**+1**", "yes"), ("Answer: 1", "yes"),
    ("0", "no"), ("-1", "no"), ("\u22121", "no"), ("\uff0d1", "no"), ("**-1**", "no"), ('"-1"', "no"),
    ("`-1`.", "no"), ("> -1", "no"), ("Answer: -1", "no"), ("(-1)", "no"),
    ("- 1", "unparsed"), ("> 1", "unparsed"), ("~1", "unparsed"), ("-0", "unparsed"), ("Answer -1", "unparsed"),
    ("2", "unparsed"), ("-2", "unparsed"), ("0.5", "unparsed"),
    (1, "yes"), (-1, "no"), (0, "no"), (-0.0, "unparsed"), (2, "unparsed"),
])
def test_a_number_keeps_its_sign(reply, kind):
    # the stated rule (probestats.shape.yesno, rule 4): +1 and 1 yes, -1 (any minus sign) and 0 no; a sign
    # apart from its digit, a comparison, -0 and other numbers unparsed; a Markdown mark never eats a sign
    assert parse_yes_no(reply).kind == kind


def test_a_judge_that_writes_plus_minus_one_is_read_as_it_means():
    # every 'no' written -1 was read as yes: yes_affirmative 1.0 on a log whose affirmative yes rate is 0.3
    log = make_yes_no_log(models={"m": {"yes_affirmative": 0.5, "yes_reverse": 0.0}}, claims=10, languages=("en",))
    judge = log.with_columns(reply=pl.when(pl.col("score") == 1).then(pl.lit("+1")).otherwise(pl.lit("-1"))).drop("score")
    truth = log.group_by("framing").agg(pl.col("score").mean()).sort("framing")["score"].to_list()   # affirmative, reverse
    c = analyze_framing(judge, answers="yes-no").cells[0]
    assert (c.yes_affirmative, c.yes_reverse) == pytest.approx(tuple(truth)) and truth[1] == 0.0
    chosen = analyze_framing(judge)   # a column of only -1 and +1 is read as yes/no without being told
    assert (chosen.cells[0].yes_affirmative, chosen.cells[0].yes_reverse) == pytest.approx(tuple(truth))
    assert chosen.cells[0].answers == "yes-no"


def _phrases(category):
    """Every phrase of one category in the phrase file, read with json (not through the module under test)."""
    import json
    from importlib import resources

    data = json.loads(resources.files("probestats.shape").joinpath("yes_no_phrases.json").read_text(encoding="utf-8"))
    return sorted({p for phrases in data[category].values() for p in phrases})


_BEFORE = ["", "**", "*", "_", "`", "> ", "- ", "# ", "• ", '"', "“", "«", "「", "(", "Answer: ", "**Answer:** ",
           "Réponse : ", "答案：", "Ответ - ", "  "]
_AFTER = ["", ".", "!", ",", "**", '"', "”", "»", "」", ")", "。", "！", " because the claim holds.", ", I think", "\n"]
_SIGNED = {"no": ["-1", "\u22121", "\uff0d1", "\ufe631", "0", "0.0", "-1.0", "-1."], "yes": ["1", "+1", "1.0", "+1.0", "1."]}


@pytest.mark.parametrize("meaning, opposite", [("no", "yes"), ("yes", "no")])
@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_no_reply_reads_as_the_opposite_answer(meaning, opposite, data):
    word = data.draw(st.sampled_from(_phrases(meaning) + _SIGNED[meaning]), label="word")
    case = data.draw(st.sampled_from([str, str.upper, str.title, str.capitalize]), label="case")
    before = data.draw(st.lists(st.sampled_from(_BEFORE), max_size=2), label="before")
    after = data.draw(st.lists(st.sampled_from(_AFTER), max_size=2), label="after")
    reply = "".join(before) + case(word) + "".join(after)
    assert parse_yes_no(reply).kind != opposite, reply
