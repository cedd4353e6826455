"""promptfoo results (``promptfoo eval -o results.json``, results version 3).

One row per result:

- every test variable is a column ``vars.<name>``; the attribute is the one a column mapping
  for ``variant`` names (``columns={'variant': 'vars.style'}``), else the first variable the alias table reads as a
  variant (``variant``, ``value``, ``condition``, ``arm``, ``style``);
- the item is a variable the alias table reads as an item (``item``, ``pair``, ``question_id``,
  ...) when there is one, else the set of the other variables and the prompt: results sharing
  them are one item, numbered in the order of their first ``testIdx`` (``item_vars`` shows the
  variables);
- runs are rebuilt from repeats: results with the same item, attribute value, prompt and provider
  are numbered 1, 2, ... in ``testIdx`` order (``run``, the canonical ``seed``);
- ``score``, ``success`` (1 or 0) and each of ``namedScores`` (a column per name) are metrics;
- ``provider`` (its label, else its id) is the model; ``prompt`` the rendered prompt, ``reply``
  the response's output; ``cached`` is true for a response promptfoo took from its cache, which
  is not a new draw: a warning names those results, and ``where="NOT cached"`` leaves them out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from probestats.errors import Problem, ReadError, opt
from probestats.io.tool_log import ToolLog, as_text, first_alias, listing, load_json, mapping, table


def read_promptfoo(path: Path, columns: Mapping[str, str]) -> ToolLog:
    """Read promptfoo results into one row per result (see the module's description)."""
    data = load_json(path, "promptfoo results")
    block = data.get("results") if isinstance(data, dict) else None
    results = block.get("results") if isinstance(block, dict) else None
    if not isinstance(results, list):
        raise ReadError(f"'{path.name}' has no list of results under 'results'; write it with promptfoo eval -o FILE.json")
    version = block.get("version")
    if version != 3:
        raise ReadError(f"'{path.name}' holds promptfoo results of version {version}; probestats reads version 3 "
                        "(write them again with a current promptfoo)")
    results = sorted((r for r in results if isinstance(r, dict)),
                     key=lambda r: (_int(r.get("testIdx")), _int(r.get("promptIdx"))))
    var_keys: dict[str, None] = {}
    for r in results:
        var_keys.update(dict.fromkeys(_vars(r)))
    attribute = _attribute(columns, var_keys)
    item_var = None if "item" in columns else first_alias([k for k in var_keys if k != attribute], "item")
    records, items, runs, cached = [], {}, {}, []
    for r in results:
        variables = _vars(r)
        row: dict[str, Any] = {"test_idx": _index(r.get("testIdx")), "prompt_idx": _index(r.get("promptIdx"))}
        row.update({f"vars.{k}": (v if isinstance(v, (str, int, float, bool)) or v is None else as_text(v))
                    for k, v in variables.items()})
        provider = r.get("provider")
        row["provider"] = as_text(provider.get("label") or provider.get("id")) if isinstance(provider, dict) \
            else as_text(provider)
        prompt = r.get("prompt")
        row["prompt"] = as_text(prompt.get("raw")) if isinstance(prompt, dict) else as_text(prompt)
        response = mapping(r.get("response"))
        row["reply"] = as_text(response.get("output"))
        row["cached"] = bool(response.get("cached"))
        row["score"] = _number(r.get("score"))
        row["success"] = None if r.get("success") is None else int(bool(r.get("success")))
        row["error"] = as_text(r.get("error")) or None
        row["latency_ms"] = _number(r.get("latencyMs"))
        named = mapping(r.get("namedScores")) or mapping(mapping(r.get("gradingResult")).get("namedScores"))
        for name, value in named.items():
            row[name if name not in row and name not in _OWN else f"named.{name}"] = _number(value)
        if attribute is not None:
            others = {k: v for k, v in variables.items() if k != attribute}
            key = json.dumps([others, row["prompt_idx"]], sort_keys=True, default=str)
            items.setdefault(key, len(items) + 1)
            row["item_vars"] = ", ".join(f"{k}={as_text(v)}" for k, v in sorted(others.items()))
            if item_var is None:
                row["item"] = items[key]
            cell = (key, as_text(variables.get(attribute)), row["provider"])
            runs[cell] = runs.get(cell, 0) + 1
            row["run"] = runs[cell]
        if row["cached"]:
            cached.append(f"testIdx {row['test_idx']}" + (f" ({attribute}={as_text(variables.get(attribute))}, "
                                                         f"run {row.get('run')})" if attribute else ""))
        records.append(row)
    if not records:
        raise ReadError(f"'{path.name}' holds no results")
    defaults = {"model": "provider"}
    if attribute is not None:
        defaults.update({"variant": f"vars.{attribute}", "seed": "run",
                         "item": f"vars.{item_var}" if item_var else "item"})
    problems = []
    if cached:
        problems.append(Problem(
            "warning", "cached_response",
            f"{len(cached)} of {len(records)} results in '{path.name}' came from promptfoo's cache, so they repeat an "
            f"earlier response instead of drawing a new one: {listing(cached)}; leave them out with "
            f"{opt('where', 'NOT cached')}, or run again with promptfoo eval --no-cache", (), "cached"))
    return ToolLog("promptfoo", table(records), defaults, tuple(problems))


def _vars(result: dict) -> dict:
    return mapping(result.get("vars")) or mapping(mapping(result.get("testCase")).get("vars"))


def _attribute(columns: Mapping[str, str], keys: Mapping[str, None]) -> str | None:
    """The test variable that holds the attribute: named by the column mapping variant=vars.X, else found by its name."""
    given = columns.get("variant")
    if given is not None:
        name = given[5:] if given.startswith("vars.") else given
        return name if name in keys else None
    return first_alias(keys, "variant")


#: columns of every row, which a named score does not take (it becomes named.<name>)
_OWN = ("test_idx", "prompt_idx", "provider", "prompt", "reply", "cached", "score", "success", "error",
        "latency_ms", "item", "item_vars", "run")


def _index(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: Any) -> Any:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    return value


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 1 << 62
