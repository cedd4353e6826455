"""Options that cannot go together are refused before the log is read: a missing file beside a wrong
combination shows the combination's error, in Python and on the command line (analyze and report)."""

import pytest

import probestats
from probestats.cli import main
from probestats.errors import OptionError
from probestats.shape.probe import Probe

MISSING = "no/such/log.csv"

# (Python keywords, command-line arguments, words the error must hold)
CASES = [
    (dict(metric=["x", "y"], probe=Probe(cluster="story")), ["--metric", "x", "--metric", "y", "--cluster", "story"],
     "applies to a comparison of two values of one metric"),
    (dict(metric=["x", "y"], validation="labels.csv"), ["--metric", "x", "--metric", "y", "--validation", "l.csv"],
     "checks one coded metric"),
    (dict(metric=["x", "y"], probe=Probe(random_settings=["temperature"])),
     ["--metric", "x", "--metric", "y", "--random-setting", "temperature"],
     "applies to a comparison of two values of one metric"),
    (dict(metric="x", probe=Probe(random_settings=["variant"])), ["--metric", "x", "--random-setting", "variant"],
     "is the value column"),
    (dict(metric=["x", "y"], probe=Probe(settings=["seed"])), ["--metric", "x", "--metric", "y", "--setting", "seed"],
     "a table of several metrics does not read it"),
]


@pytest.mark.parametrize("keywords, _args, words", CASES)
def test_python_refuses_before_reading(keywords, _args, words):
    with pytest.raises(OptionError, match=words):
        probestats.analyze(MISSING, **keywords)


@pytest.mark.parametrize("command", ["analyze", "report"])
@pytest.mark.parametrize("_keywords, args, words", CASES)
def test_command_refuses_before_reading(command, _keywords, args, words, capsys, tmp_path):
    out = ["-o", str(tmp_path / "r.md")] if command == "report" else []
    code = main([command, MISSING, *args, *out])
    err = capsys.readouterr().err
    assert code == 1
    assert words in err and "no such file" not in err
    assert not (tmp_path / "r.md").exists()
