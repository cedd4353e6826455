"""probestats.result.dumps writes exactly the text of json.dumps(indent=2, ensure_ascii=False, allow_nan=False)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from probestats.result import dumps

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(10**20), 10**20),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8))
KEYS = st.one_of(st.text(max_size=6), st.integers(-5, 5), st.booleans(), st.none(),
                 st.floats(allow_nan=False, allow_infinity=False))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=5),
                                                       st.dictionaries(KEYS, inner, max_size=5)), max_leaves=40)


def reference(value, indent=2):
    return json.dumps(value, ensure_ascii=False, indent=indent, allow_nan=False)


@given(VALUES)
def test_dumps_is_the_standard_librarys_text(value):
    assert dumps(value) == reference(value)


@given(VALUES, st.integers(0, 4))
def test_any_indent(value, indent):
    assert dumps(value, indent=indent) == reference(value, indent)


ROW_KEYS = st.lists(KEYS, min_size=1, max_size=5, unique_by=lambda k: json.dumps({k: 0}))


@st.composite
def _tables(draw):
    """Lists of objects with the same keys (item tables), now and then one that breaks the pattern
    (keys in another order, a key missing, a nested value), each with text that holds controls and %."""
    keys = draw(ROW_KEYS)
    text = st.text(alphabet=st.sampled_from(["a", "%", "s", "\x00", "\x1f", "\u202e", "\"", "é", "{", "\n"]), max_size=4)
    cell = st.one_of(SCALARS, text)
    rows = draw(st.lists(st.fixed_dictionaries({k: cell for k in keys}), min_size=1, max_size=8))
    odd = draw(st.sampled_from(["none", "order", "missing", "nested", "not a dict"]))
    if odd == "order" and len(keys) > 1:
        rows.append({k: rows[0][k] for k in reversed(keys)})
    elif odd == "missing" and len(keys) > 1:
        rows.append({k: rows[0][k] for k in keys[1:]})
    elif odd == "nested":
        rows.append({**rows[0], keys[0]: [1, {"x": 2}]})
    elif odd == "not a dict":
        rows.append([1, 2])
    return {"items": rows, "table": [rows]}


@given(_tables(), st.integers(0, 3))
def test_tables_are_the_standard_librarys_text(doc, indent):
    assert dumps(doc, indent=indent) == reference(doc, indent)


class _Shouting(dict):
    def __getitem__(self, key):
        return "X"


@pytest.mark.parametrize("rows", [[{1: 0}, {1.0: 0}], [{True: 0}, {1: 0}], [{0: 0}, {False: 0}, {0.0: 1}],
                                  [{0.0: 0}, {-0.0: 0}], [_Shouting(a=1), _Shouting(a=2)]])
def test_rows_whose_keys_are_equal_but_written_otherwise(rows):
    # equal keys of other types (1, 1.0, True; 0.0 and -0.0) and a dict that reads its members
    # otherwise are written as json writes them, not as the first row's
    assert dumps(rows) == reference(rows)


def test_rows_of_a_large_document_and_controls_in_text():
    doc = {"schema_version": 1, "items": [{"item": f"i\u202e{k}\x1b", "gap": k / 7, "n": k, "ok": k % 2 == 0,
                                           "sd": None} for k in range(500)],
           "nested": {"a": [[1, 2], [], {}], "b": [{"c": [1.5, "é"]}]}, "t": (1, 2)}
    assert dumps(doc) == reference(doc)


@pytest.mark.parametrize("bad", [math.nan, math.inf, [1, -math.inf], {"x": {"y": math.nan}}])
def test_nan_is_refused_as_json_refuses_it(bad):
    with pytest.raises(ValueError):
        reference(bad)
    with pytest.raises(ValueError):
        dumps(bad)
