"""Make dual-framing logs with a planted lean and acquiescence, for tests.

Each item (a claim in one language) has a true lean ``b_i = lean + U_i`` and a true
acquiescence ``a_i = acquiescence + V_i``, with ``U_i, V_i`` uniform with mean 0 and sd
``spread`` (bounded, so every expected score stays on the scale). The affirmative prompt asserts
the first target (the reference), the reverse prompt the second, so the expected raw
score is ``a_i + b_i`` under the affirmative framing and ``a_i - b_i`` under the reverse
one: the expected aligned score is ``b_i`` in both framings and the expected raw score
``a_i`` on average. Every response is drawn so that its expectation is exactly that
value: with probability ``noise`` a uniform draw from −2..2 (mean 0), otherwise a
randomized rounding of ``mu / (1 - noise)`` (``floor`` plus a Bernoulli of the
fraction). So the population bias of a cell is exactly ``lean`` and its acquiescence
exactly ``acquiescence``.

Examples
--------
>>> log = make_framing_log(claims=2, languages=("en", "es"), iterations=3, seed=1)
>>> log.height   # 1 model x 1 topic x 2 claims x 2 languages x 2 framings x 3 iterations
24
>>> sorted(set(log["framing"]))
['affirmative', 'reverse']
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

LABELS = {
    "en": ["Strongly disagree", "Disagree", "Neutral", "Agree", "Strongly agree"],
    "es": ["Totalmente en desacuerdo", "En desacuerdo", "Neutral", "De acuerdo", "Totalmente de acuerdo"],
    "fr": ["Pas du tout d'accord", "Pas d'accord", "Neutre", "D'accord", "Tout à fait d'accord"],
    "de": ["Stimme überhaupt nicht zu", "Stimme nicht zu", "Neutral", "Stimme zu", "Stimme voll und ganz zu"],
    "zh": ["非常不同意", "不同意", "中立", "同意", "非常同意"],
    "ja": ["全く同意しない", "同意しない", "どちらでもない", "同意する", "強く同意する"],
    "ru": ["Полностью не согласен", "Не согласен", "Нейтрально", "Согласен", "Полностью согласен"],
}
REFUSALS = {
    "en": "As an AI, I do not hold opinions on this.",
    "es": "Como IA, no tengo opiniones sobre esto.",
    "fr": "Je ne peux pas répondre à cette question.",
    "de": "Als KI habe ich keine persönliche Meinung.",
    "zh": "作为人工智能，我没有个人观点。",
    "ja": "お答えできません。",
    "ru": "Я не могу ответить на этот вопрос.",
}
PREFIXES = ("Answer honestly.", "Think it over, then answer.", "Give your own view.")
SUFFIXES = ("Reply with one option of the five-point scale.", "Use one option only.")


def _draw(rng, mu: float, noise: float, size: int) -> np.ndarray:
    target = mu / (1.0 - noise)
    if abs(target) > 2:
        raise ValueError(f"mean {mu} with noise {noise} cannot be drawn on -2..2")
    lo = np.floor(target)
    rounded = lo + (rng.random(size) < (target - lo))
    uniform = rng.integers(-2, 3, size)
    return np.where(rng.random(size) < noise, uniform, rounded).astype(int)


def make_framing_log(
    models: dict | None = None,
    topics: dict | None = None,
    languages=("en", "es", "fr", "de"),
    claims: int = 3,
    iterations: int = 10,
    noise: float = 0.2,
    spread: float = 0.1,
    refusal_rate: float = 0.0,
    prefix_effect: float = 0.0,
    seed: int = 0,
) -> pl.DataFrame:
    """Draw a long-layout framing log.

    Parameters
    ----------
    models : dict
        ``{model: {"lean": float, "acquiescence": float}}`` (default one model "m" with
        lean 0.8 and acquiescence −0.4: a protective lean toward the first target).
    topics : dict
        ``{topic: (affirmative_target, reverse_target)}``; default ``{"t": ("A", "B")}``.
    refusal_rate : float
        Share of responses replaced by a refusal (score 0), which shrinks the expected
        bias and acquiescence by ``1 - refusal_rate``.
    prefix_effect : float
        Added to the expected aligned score of responses given the first prefix.
    """
    rng = np.random.default_rng(seed)
    models = models or {"m": {"lean": 0.8, "acquiescence": -0.4}}
    topics = topics or {"t": ("A", "B")}
    rows = []
    # the wrappers of a prompt are drawn once and sent to every model, as a probe does
    wrappers = {
        (topic, lang, claim, framing): (rng.integers(0, len(PREFIXES), iterations),
                                        rng.integers(0, len(SUFFIXES), iterations))
        for topic in topics for lang in languages for claim in range(claims)
        for framing in ("affirmative", "reverse")
    }
    for model, plant in models.items():
        for topic, (ta, tb) in topics.items():
            for lang in languages:
                for claim in range(claims):
                    half = spread * math.sqrt(3)  # uniform heterogeneity with sd = spread
                    b = plant["lean"] + rng.uniform(-half, half)
                    a = plant["acquiescence"] + rng.uniform(-half, half)
                    for framing, target, other in (("affirmative", ta, tb), ("reverse", tb, ta)):
                        sign = 1 if framing == "affirmative" else -1
                        prefixes, suffixes = wrappers[(topic, lang, claim, framing)]
                        for it in range(iterations):
                            bump = prefix_effect if prefixes[it] == 0 else 0.0
                            mu = a + sign * (b + bump)
                            score = int(_draw(rng, mu, noise, 1)[0])
                            refused = rng.random() < refusal_rate
                            if refused:
                                score, reply, label = 0, REFUSALS[lang], LABELS[lang][2]
                            else:
                                label = LABELS[lang][score + 2]
                                reply = f"{label}."
                            rows.append({
                                "model": model, "topic": topic, "language": lang, "claim": f"c{claim}",
                                "framing": framing, "iteration": it + 1,
                                "prompt": f"[{lang}] claim {claim}: {target} is better than {other}.",
                                "prefix": PREFIXES[prefixes[it]], "suffix": SUFFIXES[suffixes[it]],
                                "response": reply, "label": label, "score": score, "refusal": refused,
                            })
    return pl.DataFrame(rows)


def to_wide(long: pl.DataFrame) -> pl.DataFrame:
    """BiasLab's wide export of a long log: one row per language, framing, question and
    iteration, and a ``{model}_Raw``/``{model}_Cat`` column pair per model.

    >>> wide = to_wide(make_framing_log(models={"x": {"lean": 0, "acquiescence": 0}}, claims=1,
    ...                                 languages=("en",), iterations=2))
    >>> wide.columns
    ['Language', 'Framing', 'Question', 'Prefix', 'Suffix', 'Iteration', 'Topic', 'x_Raw', 'x_Cat']
    """
    index = ["language", "framing", "prompt", "prefix", "suffix", "iteration", "topic"]
    out = None
    for model in long["model"].unique(maintain_order=True).to_list():
        part = long.filter(pl.col("model") == model).select(
            *index, pl.col("response").alias(f"{model}_Raw"), pl.col("label").alias(f"{model}_Cat"))
        out = part if out is None else out.join(part, on=index, how="full", coalesce=True)
    return out.rename({"language": "Language", "framing": "Framing", "prompt": "Question", "prefix": "Prefix",
                       "suffix": "Suffix", "iteration": "Iteration", "topic": "Topic"})


YES_NO_WORDS = {
    "en": ("Yes", "No"), "es": ("Sí", "No"), "fr": ("Oui", "Non"), "de": ("Ja", "Nein"), "pt": ("Sim", "Não"),
    "it": ("Sì", "No"), "zh": ("是", "否"), "ja": ("はい", "いいえ"), "ko": ("네", "아니요"), "ar": ("نعم", "لا"),
    "hi": ("हाँ", "नहीं"), "ru": ("Да", "Нет"), "pl": ("Tak", "Nie"), "nl": ("Ja", "Nee"),
}


def make_yes_no_log(
    models: dict | None = None,
    languages=("en", "de", "pl"),
    claims: int = 20,
    iterations: int = 1,
    refusal_rate: float = 0.0,
    seed: int = 0,
) -> pl.DataFrame:
    """Draw a yes/no framing log: each model says yes to a claim with probability
    ``yes_affirmative`` and to its mirror with probability ``yes_reverse``.

    So the population acquiescence is ``yes_affirmative + yes_reverse - 1`` and the lean
    toward the affirmative target ``yes_affirmative - yes_reverse``. ``score`` is 1/0,
    ``reply`` the word of the item's language; a refused reply has no score.

    >>> log = make_yes_no_log(claims=2, languages=("en",), seed=1)
    >>> log.height, sorted(set(log["score"].drop_nulls()))
    (4, [0, 1])
    """
    rng = np.random.default_rng(seed)
    models = models or {"m": {"yes_affirmative": 0.3, "yes_reverse": 0.3}}
    rows = []
    for model, plant in models.items():
        for lang in languages:
            for claim in range(claims):
                for framing, asserts, p in (("affirmative", "A", plant["yes_affirmative"]),
                                            ("reverse", "B", plant["yes_reverse"])):
                    for it in range(iterations):
                        yes = bool(rng.random() < p)
                        refused = bool(rng.random() < refusal_rate)
                        reply = (REFUSALS.get(lang, "I cannot answer.") if refused
                                 else YES_NO_WORDS[lang][0 if yes else 1] + ".")
                        rows.append({"model": model, "topic": "t", "language": lang, "item": f"c{claim}",
                                     "framing": framing, "asserts": asserts, "iteration": it + 1,
                                     "reply": reply, "score": None if refused else int(yes)})
    return pl.DataFrame(rows, schema_overrides={"score": pl.Int64})
