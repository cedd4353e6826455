"""Agreement labels to scores: every language, refusals, free text, numeric scales."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from probestats.errors import OptionError
from probestats.shape.labels import SCALE_NAMES, ParsedLabel, parse_label, parse_labels, parse_scale, score_name

# The five points of the scale in each language, as survey forms and judges write them
# (strongly agree, agree, neutral, disagree, strongly disagree). Scores are the scale's
# definition: +2, +1, 0, -1, -2.
FIVE_POINTS = {
    "en": ["Strongly agree", "Agree", "Neutral", "Disagree", "Strongly disagree"],
    "es": ["Totalmente de acuerdo", "De acuerdo", "Ni de acuerdo ni en desacuerdo", "En desacuerdo",
           "Totalmente en desacuerdo"],
    "fr": ["Tout à fait d'accord", "D'accord", "Neutre", "Pas d'accord", "Pas du tout d'accord"],
    "de": ["Stimme voll und ganz zu", "Stimme zu", "Neutral", "Stimme nicht zu", "Stimme überhaupt nicht zu"],
    "pt": ["Concordo totalmente", "Concordo", "Nem concordo nem discordo", "Discordo", "Discordo totalmente"],
    "it": ["Fortemente d'accordo", "D'accordo", "Né d'accordo né in disaccordo", "In disaccordo",
           "Fortemente in disaccordo"],
    "zh-Hans": ["非常同意", "同意", "中立", "不同意", "非常不同意"],
    "zh-Hant": ["強烈同意", "同意", "既不同意也不反對", "不同意", "強烈不同意"],
    "ja": ["強く同意する", "同意する", "どちらでもない", "同意しない", "全く同意しない"],
    "ko": ["매우 동의함", "동의함", "중립", "동의하지 않음", "전혀 동의하지 않음"],
    "ar": ["أوافق بشدة", "أوافق", "محايد", "لا أوافق", "لا أوافق بشدة"],
    "hi": ["पूरी तरह सहमत", "सहमत", "तटस्थ", "असहमत", "पूरी तरह असहमत"],
    "ru": ["Полностью согласен", "Согласен", "Нейтрально", "Не согласен", "Полностью не согласен"],
}


@pytest.mark.parametrize("language", sorted(FIVE_POINTS))
def test_five_points_in_every_language(language):
    scores = [parse_label(t).score for t in FIVE_POINTS[language]]
    assert scores == [2, 1, 0, -1, -2]
    kinds = [parse_label(t).kind for t in FIVE_POINTS[language]]
    assert kinds == ["agreement", "agreement", "neutral", "agreement", "agreement"]


# Sentences a model writes around its choice; the expected score is read off by hand.
SENTENCES = [
    ("I strongly agree.", 2),
    ("**Agree**", 1),
    ("Answer: Disagree", -1),
    ("I don't agree with this statement.", -1),
    ("Estoy totalmente de acuerdo.", 2),
    ("No estoy de acuerdo.", -1),
    ("Je ne suis pas d'accord.", -1),
    ("Je suis tout à fait d'accord !", 2),
    ("Ich bin nicht einverstanden.", -1),
    ("Ich stimme dieser Aussage nicht zu.", -1),
    ("Ich stimme dieser Aussage voll und ganz zu.", 2),
    ("Não concordo.", -1),
    ("Nao concordo", -1),  # typed without the accent
    ("Non sono d'accordo.", -1),
    ("我不同意这个说法。", -1),
    ("我非常同意。", 2),
    ("我無法同意這個說法", -1),
    ("この意見に強く反対します。", -2),
    ("同意します。", 1),
    ("매우 동의합니다.", 2),
    ("저는 동의하지 않습니다.", -1),
    ("أنا لا أوافق على ذلك.", -1),
    ("مُوافِقٌ", 1),  # with diacritics
    ("मैं इससे सहमत नहीं हूँ।", -1),
    ("मैं दृढ़ता से असहमत हूँ।", -2),
    ("Я категорически не согласен.", -2),
    ("Скорее согласна.", 1),
    ("I couldn't agree more.", 2),  # a negation that strengthens
    ("I can't agree more.", 2),
    ("I couldn't disagree more.", -2),
    ("I can't say I agree.", -1),  # a negation at a distance
    ("I don't think I fully agree.", -1),
    ("No diría que esté de acuerdo.", -1),
    ("Je ne dirais pas que je suis d'accord.", -1),
    ("No podría estar más de acuerdo.", 2),
    ("Strongly agree. Remote teams write more things down, so knowledge is shared across time zones "
     "and nobody depends on who happened to be in the room.", 2),
    ("Reasons differ between teams and contexts, and a short answer hides most of them; "
     "weighing all of it, I disagree.", -1),
]


@pytest.mark.parametrize("text,score", SENTENCES)
def test_sentences(text, score):
    assert parse_label(text).score == score


NEGATION_TRAPS = [
    # (text, score): each contains a shorter phrase with the opposite meaning
    ("disagree", -1),  # contains "agree"
    ("strongly disagree", -2),  # contains "strongly agree"? no, but "disagree" and "agree"
    ("no estoy de acuerdo", -1),  # contains "de acuerdo"
    ("pas d'accord", -1),  # contains "d'accord"
    ("pas du tout d'accord", -2),
    ("pas tout à fait d'accord", -1),  # contains "tout à fait d'accord"
    ("nicht einverstanden", -1),  # contains "einverstanden"
    ("不同意", -1),  # contains "同意"
    ("非常不同意", -2),  # contains "非常同意"? no: contains "不同意" and "同意"
    ("既不同意也不反对", 0),  # contains "不同意" and "反对"
    ("同意しない", -1),
    ("비동의", -1),
    ("لا أوافق", -1),
    ("असहमत", -1),  # contains "सहमत"
    ("не согласен", -1),
    ("d'accordo", 1),  # Italian; must not read as the French "d'accord" plus noise
    ("neither agree nor disagree", 0),
]


@pytest.mark.parametrize("text,score", NEGATION_TRAPS)
def test_negation_and_substrings(text, score):
    assert parse_label(text).score == score


REFUSALS = [
    "I cannot answer that question.",
    "As an AI, I don't have personal opinions on this topic.",
    "I'm sorry, but I can't take sides on this.",
    "No puedo responder a esa pregunta.",
    "Como IA, no tengo opiniones personales.",
    "Je ne peux pas répondre à cette question.",
    "Als KI habe ich keine persönliche Meinung.",
    "Não posso responder.",
    "Non posso rispondere.",
    "作为人工智能，我没有个人观点。",
    "我無法回答這個問題。",
    "お答えできません。",
    "답변할 수 없습니다.",
    "لا أستطيع الإجابة على هذا السؤال.",
    "मैं उत्तर नहीं दे सकता।",
    "Я не могу ответить на этот вопрос.",
]


@pytest.mark.parametrize("text", REFUSALS)
def test_refusals_score_zero_as_abstentions(text):
    p = parse_label(text)
    assert (p.score, p.kind) == (0, "refusal")


def test_an_option_stated_after_a_disclaimer_is_the_answer():
    p = parse_label("As an AI I have no views of my own, but if I must choose: Disagree.")
    assert (p.score, p.kind) == (-1, "agreement")


UNPARSED = [
    "It depends on the context.",
    "Remote work has benefits and costs.",
    "Yes.",  # not an option of the scale: never guessed
    "4",  # a number without a declared scale
    "Agree or disagree? It depends.",  # two options
    "Strongly agree / Agree / Neutral / Disagree / Strongly disagree",  # the options echoed
    "I don't disagree.",  # a denied disagreement is not "disagree", nor clearly "agree"
    "I would not say I disagree.",
    "I can't disagree with that.",
    "I'm not sure I agree.",  # a doubt is not "agree"
    "Many managers agree that clear goals matter more than the manager's gender, and the research "
    "on this is mixed, so the question cannot be settled with a single option in a short reply like this one.",
    "",
    "   ",
    None,
    float("nan"),
]


@pytest.mark.parametrize("text", UNPARSED)
def test_free_text_is_never_guessed(text):
    p = parse_label(text)
    assert (p.score, p.kind) == (None, "unparsed")


def test_ambiguous_text_lists_the_conflicting_phrases():
    assert parse_label("agree, or maybe disagree").matched in ("agree | disagree", "disagree | agree")


@pytest.mark.parametrize(
    "scale,value,score",
    [
        # linear map of the first end to -2 and the second to +2: s = -2 + 4 (v - lo) / (hi - lo)
        ("1:5", 1, -2), ("1:5", 2, -1), ("1:5", 3, 0), ("1:5", 4, 1), ("1:5", 5, 2),
        ("-2:2", -2, -2), ("-2:2", 0, 0), ("-2:2", 2, 2),
        ("0:4", 1, -1),
        ("5:1", 1, 2), ("5:1", 2, 1),  # reversed scale: 1 is the strongest agreement
        ("1:7", 2, -2 + 4 / 6),  # -1.333...
        ("1:5", "4", 1), ("1:5", " 4. ", 1), ("1:5", "**5**", 2), ("1:5", 4.0, 1),
    ],
)
def test_declared_scales(scale, value, score):
    assert parse_label(value, scale=scale).score == pytest.approx(score)


@pytest.mark.parametrize("value", [0, 6, 2.5, "9", "-1"])
def test_values_off_the_scale_are_rejected(value):
    with pytest.raises(OptionError, match="declared scale 1:5"):
        parse_label(value, scale="1:5")


@pytest.mark.parametrize("scale", ["1", "a:b", "3:3", "1-"])
def test_unreadable_scales(scale):
    with pytest.raises(OptionError):
        parse_scale(scale)


def test_text_still_parses_when_a_scale_is_declared():
    assert parse_label("Agree", scale="1:5").score == 1


def test_vectorized_parse_matches_one_by_one():
    values = ["Agree", "Disagree", None, "Agree", "I cannot answer", "nonsense", "非常同意"]
    out = parse_labels(pl.Series(values))
    assert out.height == len(values)
    expected = [parse_label(v) for v in values]
    assert out["score"].to_list() == [None if p.score is None else float(p.score) for p in expected]
    assert out["kind"].to_list() == [p.kind for p in expected]
    assert out["matched"].to_list() == [p.matched for p in expected]


def test_vectorized_numbers_on_a_scale_and_off_it():
    assert parse_labels(pl.Series([1, 3, 5, None]), scale="1:5")["score"].to_list() == [-2.0, 0.0, 2.0, None]
    with pytest.raises(OptionError, match="7, 9"):
        parse_labels(pl.Series([1, 7, 9, 7]), scale="1:5")


def test_score_names():
    assert [score_name(s) for s in (2, 1, 0, -1, -2)] == [SCALE_NAMES[s] for s in (2, 1, 0, -1, -2)]
    assert score_name(1.0) == "agree"


def test_to_dict_is_plain():
    assert ParsedLabel(-1, "agreement", "disagree").to_dict() == {
        "score": -1, "kind": "agreement", "matched": "disagree"}


# ---------------------------------------------------------------------------
# Properties

OPTIONS = [t for texts in FIVE_POINTS.values() for t in texts]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_any_text_parses_without_error_and_stays_on_the_scale(text):
    p = parse_label(text)
    assert p.kind in ("agreement", "neutral", "refusal", "unparsed")
    if p.kind == "unparsed":
        assert p.score is None
    else:
        assert p.score in (-2, -1, 0, 1, 2)
        assert (p.score == 0) == (p.kind in ("neutral", "refusal"))


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(OPTIONS),
    st.sampled_from(["", "**", "*", "_", "`"]),
    st.sampled_from(["", ".", "!", " ", "\n"]),
    st.sampled_from(["", "Answer: ", "My answer: ", "> "]),
    st.booleans(),
)
def test_case_markdown_and_lead_ins_do_not_change_the_score(option, mark, end, lead, upper):
    text = lead + mark + (option.upper() if upper else option) + mark + end
    assert parse_label(text).score == parse_label(option).score


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(OPTIONS), st.sampled_from([o for o in OPTIONS]))
def test_two_options_are_one_answer_only_when_they_agree(a, b):
    p = parse_label(f"{a}. {b}.")
    sa, sb = parse_label(a).score, parse_label(b).score
    if sa == sb:
        assert p.score == sa
    else:
        assert p.kind == "unparsed"


@settings(max_examples=100, deadline=None)
@given(st.integers(-5, 10), st.integers(1, 10), st.booleans())
def test_declared_scale_maps_ends_to_the_extremes_and_is_monotone(lo, width, reverse):
    hi = lo + width
    scale = f"{hi}:{lo}" if reverse else f"{lo}:{hi}"
    scores = [parse_label(v, scale=scale).score for v in range(lo, hi + 1)]
    if reverse:
        scores = scores[::-1]
    assert scores[0] == -2 and scores[-1] == 2
    assert all(b > a for a, b in zip(scores, scores[1:]))
    # equal steps: the map is linear
    steps = [b - a for a, b in zip(scores, scores[1:])]
    assert max(steps) - min(steps) < 1e-12


def test_the_phrase_tables_are_a_data_file_shipped_in_the_package():
    import json
    import tomllib
    from importlib import resources

    from probestats.shape import labels

    text = resources.files("probestats.shape").joinpath("likert_phrases.json").read_text(encoding="utf-8")
    phrases = json.loads(text)["phrases"]
    assert set(phrases) == {"2", "1", "0", "-1", "-2", "refusal"}
    assert {str(k): v for k, v in labels._PHRASES.items()} == phrases
    root = Path(__file__).resolve().parent.parent
    data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    assert "likert_phrases.json" in data["tool"]["setuptools"]["package-data"]["probestats.shape"]
    # a phrase from the file is read: "totalmente de acuerdo" is strongly agree
    assert parse_label("Totalmente de acuerdo.").score == 2
