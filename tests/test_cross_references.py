"""Every cross-reference in a docstring (``:mod:``, ``:func:``, ``:class:``, ...) names something that exists.

A reference to a module that moved reads as documentation but leads nowhere; this test resolves each
fully qualified ``probestats.`` reference by importing its module and walking its attributes.
"""

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = re.compile(r":(?:mod|func|class|meth|attr|data|exc|obj):`~?(probestats(?:\.\w+)+)`")


def references():
    for path in sorted((ROOT / "probestats").rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for target in REFERENCE.findall(line):
                yield f"{path.relative_to(ROOT)}:{number}", target


def resolves(target: str) -> bool:
    parts = target.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


def test_there_are_references_to_check():
    assert len(list(references())) > 20


@pytest.mark.parametrize("where, target", list(references()))
def test_every_cross_reference_resolves(where, target):
    assert resolves(target), f"{where}: {target} does not exist"


def test_the_check_rejects_a_moved_module():
    assert not resolves("probestats.hypotests.sign_flip_test")
    assert resolves("probestats.stats.hypotests.sign_flip_test")
