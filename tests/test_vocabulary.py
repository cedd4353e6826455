"""One vocabulary: the same bad ``alternative``, ``alpha``, ``correction``, ``n_resamples`` or ``seed``
gives the same message from every public function, and every default is the vocabulary's."""

from __future__ import annotations

import inspect
import math

import pytest

from probestats import Tests
import probestats
from probestats import vocabulary
from probestats.errors import OptionError, cli_spelling
from probestats.analyses.paired import analyze_pair
from probestats.analyses.question import Question
from probestats.stats import effects, published

PROBE = "sample_logs/style_probe.csv"
NOISE = "sample_logs/style_noise.csv"
FRAMING = "sample_logs/framing_long.csv"


def _judge_log(tmp_path):
    import sys

    sys.path.insert(0, "tests")
    from judge_factory import Judge, make_judge_log

    path = tmp_path / "judge.csv"
    make_judge_log(items=6, judges={"j": Judge(0.8, 0.5)}, seed=1).write_csv(path)
    return path


def _calls(tmp_path):
    """Every public function taking one of the shared words, as ``name -> call(**word)``."""
    judge = _judge_log(tmp_path)
    verdicts = ["first=[[A]]", "second=[[B]]", "tie=[[C]]"]
    return {
        "analyze": lambda **kw: probestats.analyze(PROBE, metric="steps", tests=Tests(**kw)),
        "analyze_pair": lambda **kw: analyze_pair(PROBE, Question("steps"), tests=Tests(**kw)),
        "analyze_many": lambda **kw: probestats.analyze_many(PROBE, metric="steps", **kw),
        "report": lambda **kw: probestats.report(PROBE, metric="steps", format="md", tests=Tests(**kw)),
        "plan": lambda **kw: probestats.plan(NOISE, metric="steps", items=[6], runs=[5], sims=20, tests=Tests(**kw)),
        "framing": lambda **kw: probestats.framing(FRAMING, tests=Tests(**kw)),
        "judge": lambda **kw: probestats.judge(judge, order="order", response="reply", verdicts=verdicts,
                                               tests=Tests(**kw)),
        "compare": lambda **kw: probestats.compare(PROBE, PROBE, metric="steps", tests=Tests(**kw)),
        "describe": lambda **kw: probestats.describe(PROBE, metric="steps", tests=Tests(**kw)),
        "compare_runs": lambda **kw: probestats.compare_runs(PROBE, PROBE, metric="steps", **kw),
        "analyze_framing": lambda **kw: probestats.analyze_framing(FRAMING, **kw),
        "analyze_order": lambda **kw: probestats.analyze_order(judge, order="order", response="reply",
                                                              verdicts=verdicts, **kw),
        "sign_flip_test": lambda **kw: probestats.sign_flip_test([1.0, 2.0, -0.5], **kw),
        "sign_flip_pvalues": lambda **kw: probestats.sign_flip_pvalues([[1.0, 2.0, -0.5]], **kw),
        "sign_test": lambda **kw: probestats.sign_test([1.0, 2.0, -0.5], **kw),
        "min_attainable_p": lambda **kw: probestats.min_attainable_p(5, **kw),
        "gap_interval": lambda **kw: probestats.gap_interval([1.0, 2.0, -0.5, 0.3], method="bootstrap", **kw),
        "paired_t": lambda **kw: published.paired_t([1.0, 2.0, 3.0], [0.5, 2.5, 1.0], **kw),
        "wilcoxon_signed_rank": lambda **kw: published.wilcoxon_signed_rank([1.0, 2.0, -0.5], **kw),
        "effect_sizes": lambda **kw: effects.effect_sizes([1.0, 2.0, 3.0, 2.0], [0.5, 2.5, 1.0, 1.0], **kw),
        "power_sign_flip": lambda **kw: probestats.power_sign_flip(
            0.5, 6, 5, noise=probestats.noise_model(NOISE, "steps"), sizing=probestats.Sizing(sims=20),
            tests=Tests(**kw)),
        "adjust": lambda correction=None, **kw: probestats.adjust([0.01, 0.2], correction),
    }


BAD = {"alternative": "up", "alpha": 1.5, "correction": "sidak", "n_resamples": 0, "seed": -1}
#: What each word says, once, from every function (built here by hand, not by the module under test).
EXPECTED = {
    "alternative": "alternative='up': expected one of two-sided, greater, less",
    "alpha": "alpha=1.5: expected a number between 0 and 1, for example 0.05",
    "correction": "correction='sidak': expected one of holm, bonferroni, bh, none",
    "n_resamples": "n_resamples=0: expected a whole number of 1 or more, for example 10000",
    "seed": "seed=-1: expected a whole number of 0 or more, for example 0",
}
CLI_EXPECTED = {
    "alternative": "--alternative up: expected one of two-sided, greater, less",
    "alpha": "--alpha 1.5: expected a number between 0 and 1, for example 0.05",
}


#: the jobs, which take the shared words as one Tests, and the words each has a use for (it refuses the others)
JOBS = {"analyze": set(BAD), "report": set(BAD), "plan": {"alternative", "alpha", "seed"},
        "framing": {"alpha", "correction"}, "judge": {"alpha", "correction"}, "compare": {"alternative", "alpha"},
        "describe": {"n_resamples", "seed"},
        # the planner's power calculation, which takes them as one Tests as the jobs do
        "power_sign_flip": {"alternative", "alpha", "seed"}}


def _takes(name, call, word) -> bool:
    if name in JOBS:
        return word in JOBS[name]
    if name == "analyze_pair":   # the paired engine takes every word in one Tests
        return True
    target = {"paired_t": published.paired_t, "wilcoxon_signed_rank": published.wilcoxon_signed_rank,
              "analyze_pair": analyze_pair,
              "effect_sizes": effects.effect_sizes, "adjust": None}.get(name) or getattr(probestats, name)
    if name == "adjust":
        return word == "correction"
    return word in inspect.signature(target).parameters


@pytest.mark.parametrize("word", list(BAD))
def test_same_bad_word_same_message_everywhere(word, tmp_path):
    calls = _calls(tmp_path)
    taking = [name for name, call in calls.items() if _takes(name, call, word)]
    assert len(taking) >= {"alternative": 12, "alpha": 8, "correction": 7, "n_resamples": 8, "seed": 8}[word]
    for name in taking:
        with pytest.raises(OptionError) as info:
            calls[name](**{word: BAD[word]})
        assert str(info.value) == EXPECTED[word], name


#: a value other than the default for every shared word, each valid
OTHER = {"alternative": "greater", "alpha": 0.01, "correction": "bonferroni", "n_resamples": 500, "seed": 3}


@pytest.mark.parametrize("job", list(JOBS))
def test_a_job_refuses_a_test_choice_it_has_no_use_for(job, tmp_path):
    """A Tests choice a job has no use for is refused, naming it, never ignored."""
    calls = _calls(tmp_path)
    unused = [word for word in BAD if word not in JOBS[job]]
    for word in unused:
        with pytest.raises(OptionError, match=f"^{word}=.* does not apply to .*: leave it out$"):
            calls[job](**{word: OTHER[word]})
    assert job in ("analyze", "report") or unused


@pytest.mark.parametrize("word", list(CLI_EXPECTED))
def test_the_command_line_spelling_is_the_same_message_with_flags(word, tmp_path):
    calls = _calls(tmp_path)
    for name in ("analyze", "report", "plan", "compare_runs", "sign_test"):
        if not _takes(name, calls[name], word):
            continue
        with cli_spelling(), pytest.raises(OptionError) as info:
            calls[name](**{word: BAD[word]})
        assert str(info.value) == CLI_EXPECTED[word], name


@pytest.mark.parametrize("value", [0, 1, -0.1, math.nan, "0.05", True])
def test_alpha_outside_the_open_interval_is_refused(value):
    with pytest.raises(OptionError, match="expected a number between 0 and 1"):
        probestats.analyze(PROBE, metric="steps", tests=Tests(alpha=value))


@pytest.mark.parametrize("value", [1.5, -3, math.inf, "10", None])
def test_n_resamples_must_be_a_whole_positive_number(value):
    with pytest.raises(OptionError, match="expected a whole number of 1 or more"):
        vocabulary.check_n_resamples(value)


def test_every_default_is_the_vocabularys():
    """A public function's default for a shared word is the vocabulary's constant (the sign-flip test's
    Monte Carlo path is the one named exception, SIGN_FLIP_RESAMPLES; its ``alpha=None`` means no level is
    read, so its bounds are not tightened toward one)."""
    want = {"alternative": "two-sided", "alpha": vocabulary.ALPHA, "correction": vocabulary.CORRECTION,
            "n_resamples": vocabulary.N_RESAMPLES, "seed": vocabulary.SEED}
    assert want == {"alternative": "two-sided", "alpha": 0.05, "correction": "holm", "n_resamples": 10_000, "seed": 0}
    functions = [getattr(probestats, n) for n in probestats.__all__ if inspect.isfunction(getattr(probestats, n))]
    functions += [published.paired_t, published.wilcoxon_signed_rank, published.welch_t, effects.effect_sizes,
                  analyze_pair]
    # the jobs' defaults are the Tests' own, field by field
    from dataclasses import fields

    assert {f.name: f.default for f in fields(Tests) if f.name in want} == want
    seen = 0
    for f in functions:
        for name, p in inspect.signature(f).parameters.items():
            if name not in want or p.default is inspect.Parameter.empty:
                continue
            expected = want[name]
            if f.__name__ in ("sign_flip_test", "sign_flip_pvalues") and name == "n_resamples":
                expected = vocabulary.SIGN_FLIP_RESAMPLES
            if f.__name__ == "sign_flip_test" and name == "alpha":
                expected = None
            assert p.default == expected, f"{f.__name__}({name}={p.default!r})"
            seen += 1
    # 45 seen before the planner's power_sign_flip and mdg_for_design took their alpha, alternative and seed as
    # one Tests (whose defaults are checked above): 39 now
    assert seen >= 35


def test_the_log_argument_has_one_name():
    """Every analysis and job reading a log takes it first, as ``log`` (the reader names its ``source``)."""
    assert next(iter(inspect.signature(analyze_pair).parameters)) == "log"
    for name in ("analyze", "analyze_many", "analyze_factors", "analyze_judge", "analyze_framing",
                 "analyze_order", "validate", "report", "noise_model"):
        first = next(iter(inspect.signature(getattr(probestats, name)).parameters))
        assert first == "log", name


def test_framing_takes_every_correction():
    """The framing cells are corrected by the shared helper, so every correction it names applies."""
    holm = probestats.analyze_framing(FRAMING, correction="holm")
    bonf = probestats.analyze_framing(FRAMING, correction="bonferroni")
    raw = [c.bias_p for c in bonf.cells]
    n = sum(p is not None for p in raw)
    assert n >= 2
    # Bonferroni by hand: n times the raw p, capped at 1
    assert [c.bias_p_adjusted for c in bonf.cells] == pytest.approx([min(1.0, n * p) for p in raw])
    assert [c.bias_p for c in holm.cells] == raw
