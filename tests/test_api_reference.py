"""The API page (docs/reference/api.md) has an entry for every name ``import probestats`` exports: the
names are read from the package when the test runs, so a new export without an entry fails here."""

from __future__ import annotations

import re
from pathlib import Path

import probestats

PAGE = Path(__file__).resolve().parents[1] / "docs" / "reference" / "api.md"


def entries(text: str) -> set[str]:
    """The objects the page renders (its ``::: path`` lines)."""
    return set(re.findall(r"^::: ([\w.]+)\s*$", text, re.M))


def test_every_exported_name_has_an_entry():
    rendered = entries(PAGE.read_text(encoding="utf-8"))
    missing = [name for name, module in probestats._EXPORTS.items()
               if f"probestats{module}.{name}" not in rendered and f"probestats.{name}" not in rendered]
    assert not missing, f"docs/reference/api.md renders no entry for: {', '.join(missing)}"


def test_every_entry_names_an_object_that_exists():
    from importlib import import_module

    stale = []
    for path in entries(PAGE.read_text(encoding="utf-8")):
        module, _, name = path.rpartition(".")
        try:
            getattr(import_module(module), name)
        except (ImportError, AttributeError):
            try:
                import_module(path)
            except ImportError:
                stale.append(path)
    assert not stale, stale


def test_the_reader_sees_a_missing_entry():
    assert entries("::: probestats.io.read.read_log\n\n:::probestats.x\n::: probestats.a.B  \n") == \
        {"probestats.io.read.read_log", "probestats.a.B"}
    assert "Analysis" in probestats._EXPORTS


def test_the_page_lists_every_result_type_with_the_protocol():
    """The table of result types names each exported class that follows the shared protocol, and no other."""
    from probestats.result import Result

    text = PAGE.read_text(encoding="utf-8")
    section = text.split("### The result types and their protocol", 1)[1].split("\n::: ", 1)[0]
    listed = set(re.findall(r"^\| \[`(\w+)`\]\(#probestats\.[\w.]+\)", section, re.M))
    protocol = {name for name in probestats.__all__
                if isinstance(getattr(probestats, name), type) and issubclass(getattr(probestats, name), Result)
                and getattr(probestats, name) is not Result}
    assert listed == protocol
    assert len(protocol) >= 11 and "probestats.result.Result" in entries(text)
    for name in protocol:   # each row links to the class's own entry on the page
        assert f"#probestats{probestats._EXPORTS[name]}.{name})" in section, name
