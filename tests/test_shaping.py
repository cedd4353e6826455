"""Shaping a log the way studies publish theirs: code books, lookups, lists as rows, fields by path, and one
order of steps in which every step sees the columns the earlier ones made."""

from __future__ import annotations

import json
import random
from pathlib import Path

import polars as pl
import pytest

from probestats.cli import main
from probestats.errors import ColumnError, OptionError
from probestats.shape.codebook import builtin, load_book, read_book
from probestats.shape.probe import STEPS, Probe


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "unexpected" not in err
    return code, out, err


def run_json(capsys, *args):
    code, out, err = run(capsys, *args, "--json")
    assert code == 0, err
    return json.loads(out)


# ------------------------------------------------------------------ the political compass, end to end

LEVELS = ("strongly disagree", "disagree", "agree", "strongly agree")
# the wordings a model uses for each level, in the varied forms completions take
WORDINGS = {
    "strongly agree": ["I strongly agree with this proposition.", "**Strongly agree**", "Strongly Agree.",
                       "ＳＴＲＯＮＧＬＹ ＡＧＲＥＥ", "I agree strongly: it is right.", "Answer: strongly agree"],
    "agree": ["I agree.", "Agree", "**Agree** - mostly.", "I tend to agree with it.", "agree, with caveats"],
    "disagree": ["I disagree.", "Disagree", "I tend to  disagree.", "**DISAGREE**", "Answer: disagree (mostly)"],
    "strongly disagree": ["I strongly disagree.", "Strongly disagree!", "I disagree strongly with this.",
                          "*strongly  disagree*", "Strongly Disagree (a.ree with none of it)"],
}
# 6 rules: the strong forms first (first match wins), then the plain ones; 'disagree' before 'agree'
COMPASS_BOOK = """pattern,label
strongly\\s+disagree|disagree\\s+strongly,strongly disagree
strongly\\s+agree|agree\\s+strongly,strongly agree
disagree,disagree
agree,agree
"""


def compass_log(tmp_path):
    rng = random.Random(39)
    truth, rows = {}, []
    for template in range(10):
        for prop in range(62):
            level = rng.choice(LEVELS)
            truth[(template, prop)] = level
            rows.append({"proposition": f"p{prop:02d}", "template": f"t{template}",
                         "completion": rng.choice(WORDINGS[level])})
    weights, table = {}, []
    for prop in range(62):
        axis = "econ" if prop < 30 else "soc"
        for k, level in enumerate(LEVELS):
            w = {"econ": 0.0, "soc": 0.0}
            w[axis] = rng.choice([-1, 1]) * (k - 1.5) * rng.choice([1.0, 2.0, 3.5])
            weights[(prop, level)] = w
            table.append({"proposition": f"p{prop:02d}", "stance_label": level, **w})
    pl.DataFrame(rows).write_csv(tmp_path / "compass.csv")
    pl.DataFrame(table).write_csv(tmp_path / "weights.csv")
    (tmp_path / "compass_book.csv").write_text(COMPASS_BOOK, encoding="utf-8")
    return truth, weights


def test_political_compass_coordinates_from_a_code_book_and_a_lookup(tmp_path, capsys):
    truth, weights = compass_log(tmp_path)
    assert len(COMPASS_BOOK.strip().splitlines()) - 1 <= 15
    common = [tmp_path / "compass.csv", "--column", "reply=completion", "--column", "item=proposition",
              "--column", "variant=template", "--code", f"stance={tmp_path / 'compass_book.csv'}",
              "--lookup", tmp_path / "weights.csv", "item,stance_label"]
    coords = {}
    for axis in ("econ", "soc"):
        data = run_json(capsys, "describe", *common, "--metric", axis)
        for v in data["values"]:
            # the published coordinate: the sum of the weights over the 62 propositions, scaled
            coords.setdefault(v["value"], {})[axis] = v["mean"] * v["n_runs"] / 8.0
        assert all(v["n_runs"] == 62 and v["n_blank"] == 0 for v in data["values"])
        assert {(c["coded"], c["unparsed"]) for c in data["coverage"]} == {(62, 0)}
    for template in range(10):   # by hand: each completion's true level, its proposition's weight
        for axis in ("econ", "soc"):
            by_hand = sum(weights[(p, truth[(template, p)])][axis] for p in range(62)) / 8.0
            assert coords[f"t{template}"][axis] == pytest.approx(by_hand, abs=1e-9)


def test_the_code_book_reads_every_wording_as_its_level():
    book = read_book([dict(zip(("pattern", "label"), line.split(",")))
                      for line in COMPASS_BOOK.strip().splitlines()[1:]], name="compass")
    for level, wordings in WORDINGS.items():
        assert book.code(wordings)["label"].to_list() == [level] * len(wordings), level


# ------------------------------------------------------------------ code books


def test_a_toml_book_names_its_column_and_reads_leading_characters(tmp_path):
    path = tmp_path / "book.toml"
    path.write_text('column = "answer"\nfirst_chars = 20\n'
                    '[[rules]]\npattern = "^yes\\\\b"\nlabel = "yes"\nscore = 1\n'
                    '[[rules]]\npattern = "\\\\bno\\\\b"\nlabel = "no"\nscore = 0\n'
                    '[[rules]]\npattern = "cannot answer"\nlabel = "refusal"\n', encoding="utf-8")
    book = load_book(str(path))
    assert (book.column, book.first_chars, book.scored) == ("answer", 20, True)
    got = book.code(["Yes, sure", "not yes but no", "I cannot answer that", "Well... later on, yes", "  ", None])
    assert got.rows() == [("yes", 1.0, "coded"), ("no", 0.0, "coded"), ("refusal", None, "refusal"),
                          (None, None, "unparsed"), (None, None, "blank"), (None, None, "blank")]


def test_folding_case_accents_width_and_spaces():
    book = read_book([{"pattern": "^tres bien$", "label": "ok"}])
    assert book.code(["Très   bien", "ＴＲＥＳ ＢＩＥＮ", "  TRÈS\nBIEN "])["label"].to_list() == ["ok"] * 3
    assert not book.scored


def test_a_pattern_that_is_not_a_regular_expression_names_its_rule():
    with pytest.raises(OptionError, match=r"the pattern of rule 2 \('a\)'\) is not a regular expression"):
        read_book([{"pattern": "x", "label": "x"}, {"pattern": "a)", "label": "y"}])
    with pytest.raises(OptionError, match="rule 1 has the key 'weight'"):
        read_book([{"pattern": "x", "label": "x", "weight": 2}])
    with pytest.raises(OptionError, match=r"the score of rule 1 \('high'\) is not a number"):
        read_book([{"pattern": "x", "label": "x", "score": "high"}])


def test_a_bracketed_verdict_in_a_book_is_matched_as_written_and_never_warns(tmp_path, capsys):
    # [[A]] as a regular expression is a set of [ and A, then ]: it matches "A]" as well, and Python warns the set
    # may change meaning; the book refuses it with the escaped pattern, which matches the text [[A]] alone
    with pytest.raises(OptionError) as refused:
        read_book([{"pattern": "[[A]]", "label": "first"}, {"pattern": "[[B]]", "label": "second"}])
    fix = "\\[\\[A\\]\\]"
    assert f"the pattern of rule 1 ('[[A]]') is ambiguous" in str(refused.value)
    assert f"write {fix} to match the text [[A]] as written" in str(refused.value)
    book = read_book([{"pattern": fix, "label": "first"}, {"pattern": "\\[\\[B\\]\\]", "label": "second"}])
    replies = ["Final verdict: [[A]]", "[[a]]", "[A]", "A]", "[[B]]", "[[A]] then [[B]]"]
    assert book.code(replies)["label"].to_list() == ["first", "first", None, None, "second", "first"]
    # on the command line, one line naming the escaped pattern (the suite turns any warning into an error)
    path = tmp_path / "book.csv"
    path.write_text("pattern,label\n[[A]],first\n", encoding="utf-8")
    log = tmp_path / "log.csv"
    log.write_text("item,variant,reply\n1,a,[[A]]\n1,b,[[B]]\n", encoding="utf-8")
    code = main(["validate", str(log), "--metric", "m", "--code", f"m={path}"])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and f"write {fix} to match the text [[A]] as written" in err, err


@pytest.mark.parametrize("reply, label", [("a", "A"), ("(B)", "B"), ("Option 2", "2"), ("2)", "2"), ("**C.** Because", "C"),
                                          ("Answer: D", "D"), ("[b]", "B"), ("a good question", None), ("2.5 stars", None),
                                          ("I think so", None)])
def test_the_choice_book(reply, label):
    assert builtin("choice").code([reply])["label"].to_list() == [label]


def test_the_built_in_books():
    yn = builtin("yes-no").code(["Sí, claro", "Nein.", "是", "As an AI, I cannot answer.", "peut-être"])
    assert yn.rows() == [("yes", 1.0, "coded"), ("no", 0.0, "coded"), ("yes", 1.0, "coded"),
                         ("refusal", None, "refusal"), ("hedge", None, "hedge")]
    five = builtin("agree-5").code(["Strongly agree", "Neutral", "No estoy de acuerdo"])
    assert five["score"].to_list() == [2.0, 0.0, -1.0]
    four = builtin("agree-4").code(["Strongly agree", "Neutral"])
    assert four["kind"].to_list() == ["coded", "unparsed"]
    assert builtin("scale:1:5").code(["Rating: 4/5", "6", "about 3.5"])["score"].to_list() == [4.0, None, 3.5]
    with pytest.raises(OptionError, match="no built-in code book 'yesno'"):
        builtin("yesno")


def test_code_coverage_per_value_is_stated_in_validation(tmp_path, capsys):
    rows = [{"item": i, "variant": v, "reply": r} for i, (v, r) in enumerate(
        [("a", "Yes"), ("a", "No"), ("a", "hmm, who knows"), ("b", "Yes"), ("b", ""), ("b", "I cannot answer that")])]
    path = tmp_path / "log.csv"
    pl.DataFrame(rows).write_csv(path)
    data = run_json(capsys, "describe", path, "--code", "said=yes-no", "--metric", "said")
    cov = {c["value"]: c for c in data["coverage"]}
    assert (cov["a"]["coded"], cov["a"]["unparsed"], cov["a"]["examples"]) == (2, 1, ["hmm, who knows"])
    assert (cov["b"]["coded"], cov["b"]["blank"], cov["b"]["refusal"]) == (1, 1, 1)
    code, out, err = run(capsys, "validate", path, "--code", "said=yes-no", "--metric", "said")
    assert "code_coverage" in out and "said" in out


# ------------------------------------------------------------------ lookups


def test_lookup_errors_name_the_fix(tmp_path):
    log = [{"item": i, "variant": v, "x": 1} for i in (1, 2, 3) for v in ("a", "b")]
    table = tmp_path / "w.csv"
    pl.DataFrame({"item": [1, 2], "w": [0.5, 2.0]}).write_csv(table)
    with pytest.raises(OptionError, match=r"1 key of the log is not in w.csv: '3'; add it to the table"):
        Probe(lookup=((str(table), "item"),)).apply(log)
    pl.DataFrame({"item": [1, 1, 2, 3], "w": [0.5, 1, 2.0, 3]}).write_csv(table)
    with pytest.raises(OptionError, match="holds the key '1' 2 times"):
        Probe(lookup=((str(table), "item"),)).apply(log)
    pl.DataFrame({"item": [1, 2, 3], "x": [0.5, 1, 2.0]}).write_csv(table)
    with pytest.raises(ColumnError, match="the table's column 'x' is a column of the log already"):
        Probe(lookup=((str(table), "item"),)).apply(log)
    with pytest.raises(ColumnError, match="the table has no column 'variant'"):
        Probe(lookup=((str(table), "item,variant"),)).apply(log)


def test_lookup_keys_match_as_trimmed_text_and_blank_keys_stay_blank():
    log = [{"item": "03", "variant": "a"}, {"item": " 4", "variant": "b"}, {"item": None, "variant": "a"}]
    table = [{"item": "03", "cluster": "c1"}, {"item": "4", "cluster": "c2"}]
    got = Probe(lookup=((table, ("item",)),)).apply(log).frame
    assert got["cluster"].to_list() == ["c1", "c2", None]


# ------------------------------------------------------------------ lists as rows, fields by path


def rounds_log(tmp_path):
    rng = random.Random(7)
    records = []
    for k in range(40):
        records.append({"id": f"c{k}", "model": "m", "pressure_rounds": [
            {"flip_type": rng.choice(["flip", "hold", "hold"]), "said": rng.choice(["yes", "no"])}
            for _ in range(3)]})
    path = tmp_path / "rounds.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    return records, path


def test_explode_gives_one_row_per_round_and_the_flip_rate_per_round(tmp_path, capsys):
    records, path = rounds_log(tmp_path)
    data = run_json(capsys, "describe", path, "--explode", "round=pressure_rounds", "--column", "item=id",
                    "--column", "variant=round", "--derive",
                    "flipped = CASE WHEN \"pressure_rounds.flip_type\" = 'flip' THEN 1 ELSE 0 END", "--metric", "flipped")
    assert [v["value"] for v in data["values"]] == ["1", "2", "3"]
    for v in data["values"]:
        k = int(v["value"])
        flips = sum(r["pressure_rounds"][k - 1]["flip_type"] == "flip" for r in records)   # by hand
        assert (v["n_runs"], v["counts"]["1"], v["mean"]) == (40, flips, pytest.approx(flips / 40))
    log = Probe(explode=("round=pressure_rounds",)).apply(str(path))
    assert log.frame.height == 120 and log.frame["round"].to_list()[:4] == [1, 2, 3, 1]
    assert log.rows(log.frame["_row"].to_list()[:4]) == [1, 1, 1, 2]   # every round points at its record


def test_fields_by_path_in_column_and_derive(tmp_path):
    records, path = rounds_log(tmp_path)
    probe = Probe(columns=(("item", "id"), ("variant", "pressure_rounds.2.said")),
                  derive=('second = "pressure_rounds[2].flip_type"',))
    frame = probe.apply(str(path)).frame
    assert frame["variant"].to_list() == [r["pressure_rounds"][1]["said"] for r in records]
    assert frame["second"].to_list() == [r["pressure_rounds"][1]["flip_type"] for r in records]


def test_explode_refuses_what_is_not_a_list(tmp_path):
    _, path = rounds_log(tmp_path)
    with pytest.raises(OptionError, match="'model' holds String, not a list"):
        Probe(explode=("model",)).apply(str(path))
    with pytest.raises(ColumnError, match="no column or field 'rounds'"):
        Probe(explode=("rounds",)).apply(str(path))


# ------------------------------------------------------------------ one order, every step seeing the earlier ones


def test_the_order_is_the_documented_one():
    assert STEPS == ("read", "explode", "code", "lookup", "derive", "wide", "framing columns", "columns", "where",
                     "complete")
    text = (Path(__file__).resolve().parents[1] / "docs" / "reference" / "shaping.md").read_text(encoding="utf-8")
    assert " → ".join(STEPS) in text


def test_wide_sees_a_derived_column(tmp_path, capsys):
    rows = [{"item": i, "seed": s, "formal_steps": 4 + i % 3 + s % 2} for i in range(8) for s in range(3)]
    path = tmp_path / "one_arm.csv"
    pl.DataFrame(rows).write_csv(path)
    data = run_json(capsys, "analyze", path, "--derive", "casual_steps = formal_steps - 1", "--wide",
                    "formal_steps,casual_steps", "--metric", "steps")
    assert data["average_gap"] == pytest.approx(1.0)


def test_wide_of_named_values_names_its_measure(tmp_path, capsys):
    rows = [{"item": i, "prompt$m/A_1$chosen": i % 2, "prompt$m/B_2$chosen": 1} for i in range(6)]
    path = tmp_path / "w.csv"
    pl.DataFrame(rows).write_csv(path)
    log = Probe(wide=("a=prompt$m/A_1$chosen", "b=prompt$m/B_2$chosen")).apply(str(path))
    assert "score" in log.frame.columns
    assert [p.code for p in log.problems] == ["wide_measure_named"]
    named = Probe(wide=("a=prompt$m/A_1$chosen", "b=prompt$m/B_2$chosen")).apply(str(path), metric="chosen")
    assert "chosen" in named.frame.columns and not named.problems


# ------------------------------------------------------------------ SQL that behaves as documented


def test_strpos_is_literal_and_counts_characters():
    rows = [{"item": 1, "variant": "a", "c": c} for c in ("I agree", "a.ree", "é (agree)", "日本 agree")]
    got = Probe(derive=("p = STRPOS(c, 'a.ree')", "q = STRPOS(c, 'agree')", "r = STRPOS(c, ')')",
                        "s = POSITION('.' IN c)")).apply(rows).frame
    assert got["p"].to_list() == [0, 1, 0, 0]
    assert got["q"].to_list() == [3, 0, 4, 4]     # characters, as 'é' and '日本' are written
    assert got["r"].to_list() == [0, 0, 9, 0]
    assert got["s"].to_list() == [0, 2, 0, 0]
    regex = Probe(derive=("m = regexp_like(c, 'a.ree')",)).apply(rows).frame["m"].to_list()
    assert regex == [True, True, True, True]


def test_a_parse_error_names_the_character_it_failed_at():
    with pytest.raises(OptionError, match=r"at character 6 \(after 'a \+ \('\)"):
        Probe(derive=("x = a + (b",)).apply([{"item": 1, "variant": "a", "a": 1, "b": 2}])


def test_a_bad_regular_expression_is_named_as_one():
    with pytest.raises(OptionError, match="a pattern is not a regular expression"):
        Probe(derive=("m = regexp_like(c, ')')",)).apply([{"item": 1, "variant": "a", "c": "x"}])


def test_a_canonical_name_never_shadows_a_header_silently(capsys, tmp_path):
    rows = [{"item": 1, "variant": "mine", "axis": "x"}, {"item": 1, "variant": "mine", "axis": "y"}]
    probe = Probe(columns=(("variant", "axis"),), derive=("v2 = variant || '!'",))
    with pytest.raises(OptionError, match=r"'variant' names two columns here.*write axis for the first or "
                                          r"\"variant \(original\)\" for the second"):
        probe.apply(rows)
    ok = Probe(columns=(("variant", "axis"),), derive=("a = axis || '!'", 'o = "variant (original)"')).apply(rows)
    assert ok.frame["a"].to_list() == ["x!", "y!"] and ok.frame["o"].to_list() == ["mine", "mine"]


def test_a_reverse_column_coded_1_for_no_is_recoded_by_one_derive_and_read_by_the_framing_columns(tmp_path, capsys):
    from tests.framing_factory import make_yes_no_log

    log = make_yes_no_log(models={"m1": {"yes_affirmative": 0.8, "yes_reverse": 0.35}}, claims=16, seed=4)
    long = tmp_path / "long.csv"
    log.drop("reply").write_csv(long)                      # score: 1 = yes, in both framings
    wide = log.pivot(on="framing", index=["model", "topic", "language", "item", "iteration"], values="score")
    wide = wide.rename({"affirmative": "aff_yes"}).with_columns((1 - pl.col("reverse")).alias("rev_no")).drop("reverse")
    columns = tmp_path / "columns.csv"
    wide.write_csv(columns)                                # the reverse column coded 1 = "no"
    expected = run_json(capsys, "framing", long, "--answers", "yes-no")
    got = run_json(capsys, "framing", columns, "--derive", "rev_yes = 1 - rev_no", "--framing-columns",
                   "score:affirmative=aff_yes,reverse=rev_yes", "--answers", "yes-no")
    figures = ("n", "n_items", "bias", "acquiescence", "bias_p", "acquiescence_p", "pattern")
    assert [{k: c[k] for k in figures} for c in got["cells"]] == [{k: c[k] for k in figures} for c in expected["cells"]]
    # read as it is, the reverse column swaps lean and acquiescence: the recoding is what makes them right
    swapped = run_json(capsys, "framing", columns, "--framing-columns", "score:affirmative=aff_yes,reverse=rev_no",
                       "--answers", "yes-no")
    assert swapped["cells"][0]["bias"] == pytest.approx(expected["cells"][0]["acquiescence"])


def test_the_framing_analysis_reads_answers_with_the_same_books(tmp_path, capsys):
    sample = Path(__file__).resolve().parents[1] / "sample_logs"
    common = [sample / "framing_long.csv", "--targets", sample / "framing_targets.csv"]
    own = run_json(capsys, "framing", *common, "--score-from", "response", "--response", "Raw")   # its own parse
    figures = ("n", "n_items", "bias", "acquiescence", "bias_p", "pattern")
    coded = run_json(capsys, "framing", *common, "--column", "reply=Raw", "--code", "coded=agree-5",
                     "--column", "score=coded")
    assert [{k: c[k] for k in figures} for c in coded["cells"]] == [{k: c[k] for k in figures} for c in own["cells"]]


def test_errors_of_the_new_options_are_one_line_in_the_users_spelling(tmp_path, capsys):
    log = tmp_path / "log.csv"
    pl.DataFrame([{"item": i, "variant": v, "reply": "yes"} for i in (1, 2) for v in "ab"]).write_csv(log)
    table = tmp_path / "t.csv"
    pl.DataFrame({"item": [1], "w": [2.0]}).write_csv(table)
    cases = [
        (["--lookup", table, "item"], f"Error: --lookup '{table} item': 1 key of the log is not in t.csv: '2'; add it "
                                      "to the table, or leave those rows out with --where"),
        (["--code", "x=nobook"], "Error: --code: no code book 'nobook': give a .csv or .toml file, or a built-in book "
                                 "(yes-no, agree-5, agree-4, choice, scale:LOW:HIGH)"),
        (["--code", "bad"], "Error: --code bad: expected NAME=BOOK (a column name, then a .csv or .toml code book or a "
                            "built-in one: yes-no, agree-5, agree-4, choice, scale:LOW:HIGH), for example --code "
                            "stance=agree-4"),
        (["--explode", "reply"], "Error: --explode reply: 'reply' holds String, not a list; name a field that holds a "
                                 "list of values or records"),
    ]
    for extra, line in cases:
        code, out, err = run(capsys, "describe", log, *extra)
        assert (code, err.strip()) == (1, line)


def test_an_ambiguous_code_book_pattern_is_refused_even_when_compiled_before_elsewhere():
    # re caches what it compiled; a copy compiled earlier in the process with its warning unseen must not let
    # the ambiguous pattern through
    import re
    import warnings

    from probestats.shape.codebook import AmbiguousPattern, compile_pattern

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        re.compile("[[B]]")
    with pytest.raises(AmbiguousPattern):
        compile_pattern("[[B]]")


def test_patterns_compiled_in_many_threads_at_once_are_each_judged_alone():
    # the local page compiles code books in threads: without one lock around the warning filter, a thread's
    # ambiguous [[A]] went through unrefused and the process's filters were left changed (seen: 2 of 16,000
    # compiles), and so did another block changing the filters beside them
    import sys
    import threading
    import warnings

    from probestats.shape.codebook import AmbiguousPattern, compile_pattern

    before, wrong = list(warnings.filters), []

    def compile_many(thread):
        for j in range(1_000):
            ambiguous = bool(j % 2)
            try:
                compile_pattern(f"[[A{thread}_{j}]]" if ambiguous else f"x{thread}_{j}y")
                refused = False
            except AmbiguousPattern:
                refused = True
            if refused != ambiguous:
                wrong.append((thread, j))

    def quiet_blocks():   # the package's other blocks that change the filters (factorial, published tests, plots)
        from probestats.errors import caught_warnings

        for _ in range(3_000):
            with caught_warnings():
                warnings.simplefilter("ignore")

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)   # switch threads as often as possible
    try:
        threads = [threading.Thread(target=compile_many, args=(t,)) for t in range(8)]
        threads.append(threading.Thread(target=quiet_blocks))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert wrong == [] and warnings.filters == before


# ------------------------------------------------------------------ one column map for every column


def _llm_log(tmp_path) -> tuple[Path, pl.DataFrame]:
    """A log whose 'LLM' header varies within every cell and a 'grader' header; steps = item + 2 for 'a', the
    answer held to be known, plus a spread per LLM."""
    rows = [{"item": i, "variant": v, "LLM": m, "grader": "g1", "batch": i % 2,
             "steps": i + (2 if v == "a" else 0) + (1 if m == "m2" else 0) + (k % 3)}
            for i in range(6) for v in ("a", "b") for m in ("m1", "m2") for k in range(2)]
    frame = pl.DataFrame(rows)
    path = tmp_path / "llm.csv"
    frame.write_csv(path)
    return path, frame


def _gap(frame: pl.DataFrame) -> float:
    means = frame.group_by("item", "variant").agg(pl.col("steps").cast(pl.Float64).mean())
    wide = means.pivot(on="variant", index="item", values="steps")
    return float((wide["a"] - wide["b"]).mean())


def test_llm_and_grader_headers_are_the_model_and_the_judge(tmp_path):
    path, _ = _llm_log(tmp_path)
    log = Probe().apply(path, metric="steps")
    assert log.columns["model"] == "LLM" and log.columns["judge"] == "grader"
    assert log.frame["model"].unique().sort().to_list() == ["m1", "m2"]


def test_model_none_works_beside_derive_and_lookup(tmp_path, capsys):
    path, frame = _llm_log(tmp_path)
    table = tmp_path / "weights.csv"
    pl.DataFrame({"item": range(6), "weight": [1.5 * i for i in range(6)]}).write_csv(table)
    probe = Probe(columns=(("model", ""),), derive=("double = steps * 2",), lookup=((str(table), "item"),))
    log = probe.apply(path, metric="steps")
    assert "model" not in log.frame.columns and "model" not in log.columns
    assert log.frame["LLM"].to_list() == frame["LLM"].to_list()   # the header kept as a column of its own
    assert log.frame["weight"].to_list() == [1.5 * i for i in frame["item"]]
    result = run_json(capsys, "analyze", path, "--metric", "steps", "--column", "model=", "--derive",
                      "double = steps * 2", "--lookup", table, "item")
    assert result["average_gap"] == pytest.approx(_gap(frame))


def test_a_mapping_onto_a_derived_column_finds_it_as_headers_are_found(tmp_path, capsys):
    path, frame = _llm_log(tmp_path)
    for name in ("pool", "Pool"):   # spelled as derived, or in another case: as a header would be matched
        log = Probe(columns=(("file", "pool"),), derive=(f"{name} = 'p' || batch",)).apply(path, metric="steps")
        assert log.frame["file"].to_list() == [f"p{b}" for b in frame["batch"]]
        assert log.columns["file"] == "pool"
    result = run_json(capsys, "analyze", path, "--metric", "steps", "--derive", "Pool = 'p' || batch",
                      "--column", "file=pool")
    assert result["average_gap"] == pytest.approx(_gap(frame))
    code, out, err = run(capsys, "validate", path, "--derive", "pool = 1", "--column", "file=nope")
    assert code == 1 and "no header 'nope'" in err and "pool" in err


def test_a_lookup_keeps_its_headers_joins_by_one_key_and_reads_numbers_as_numbers(tmp_path, capsys):
    # the log's model is model_name; the table has a model_name of its own (who scored), which no alias renames
    rows = [{"response_id": f"r{i}{v}", "prompt_id": i, "condition": v, "model_name": "gpt"}
            for i in range(6) for v in ("a", "b")]
    log = tmp_path / "responses.json"
    log.write_text(json.dumps(rows), encoding="utf-8")
    scores = {r["response_id"]: (3 * r["prompt_id"] + (4 if r["condition"] == "a" else 0)) % 7 for r in rows}
    table = tmp_path / "scores.csv"
    pl.DataFrame({"response_id": list(scores), "model_name": ["rater-1"] * len(scores),
                  "score_x": list(scores.values()), "weight": [0.5] * len(scores)}).write_csv(table)
    got = Probe(lookup=((str(table), "response_id"),)).apply(log, metric="score_x")
    assert got.frame["model"].unique().to_list() == ["gpt"] and got.frame["model_name"].unique().to_list() == ["rater-1"]
    assert got.frame.schema["score_x"] == pl.Int64 and got.frame.schema["weight"] == pl.Float64
    assert got.frame["score_x"].to_list() == [scores[r["response_id"]] for r in rows]
    data = run_json(capsys, "validate", log, "--metric", "score_x", "--lookup", table, "response_id")
    assert not [p for p in data["problems"] if p["code"] == "numbers_as_text"]
    expected = pl.DataFrame([{"item": r["prompt_id"], "variant": r["condition"], "steps": scores[r["response_id"]]}
                             for r in rows])
    result = run_json(capsys, "analyze", log, "--metric", "score_x", "--lookup", table, "response_id")
    assert result["average_gap"] == pytest.approx(_gap(expected))


def test_a_lookup_key_that_repeats_names_the_smallest_key_and_a_shared_column_that_agrees_is_the_same(tmp_path):
    log = [{"item": i, "variant": v, "x": 1} for i in (1, 2) for v in ("a", "b")]
    table = tmp_path / "w.csv"
    pl.DataFrame({"item": [1, 1, 2, 2], "variant": ["a", "b", "a", "b"], "x": [1, 1, 1, 1],
                  "w": [0.5, 1.0, 2.0, 3.0]}).write_csv(table)
    with pytest.raises(OptionError, match=r"holds the key '1' 2 times; give each key one row; the columns it shares "
                                          r"with the log that name each row once are item, variant: lookup='.*w.csv "
                                          r"item,variant'"):
        Probe(lookup=((str(table), "item"),)).apply(log)
    got = Probe(lookup=((str(table), "item,variant"),)).apply(log).frame   # x agrees with the log: not added again
    assert got["w"].to_list() == [0.5, 1.0, 2.0, 3.0] and got["x"].to_list() == [1, 1, 1, 1]
