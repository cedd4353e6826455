"""lm-evaluation-harness samples (``lm_eval --log_samples``: ``samples_<task>_<date>.jsonl``).

One row per document (and filter, when a task applies several):

- every field of the document is a column ``doc.<field>``; ``item`` and ``variant`` are the first
  fields the alias table reads as each (``item``, ``item_id``, ``pair``, ``question_id``, ...;
  ``variant``, ``value``, ``condition``, ``arm``, ``style``), and a column mapping can name another
  (``columns={'variant': 'doc.dialect'}``);
- each key the record lists under ``metrics`` (``acc``, ``exact_match``, ...) is a metric column;
- the model is read from ``results_<date>.json`` beside the samples (the same date, else the
  newest): its ``model_args`` ``pretrained`` when given, else its ``model``; without that file,
  from the folder lm-eval wrote the samples in (named after the model);
- ``prompt`` is the first request's context, ``reply`` the filtered response; ``doc_id``,
  ``task`` and ``filter`` are kept.

A document appears once: lm-eval runs each once, so each item and value has one run.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from probestats.errors import ReadError
from probestats.io.json_text import loads
from probestats.io.tool_log import ToolLog, as_text, first_alias, flatten, mapping, table

_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[\d\-.]+)\.jsonl$")


def read_lm_eval(path: Path) -> ToolLog:
    """Read lm-eval samples into one row per document (see the module's description)."""
    match = _NAME.match(path.name)
    task = match.group("task") if match else None
    model = _model(path, match.group("date") if match else None)
    records, doc_keys = [], {}
    text = path.read_bytes().decode("utf-8-sig", errors="replace")
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = loads(line, f"line {number} of {path.name}")
        except json.JSONDecodeError as exc:
            raise ReadError(f"line {number} of {path.name} is not JSON ({exc.msg} at column {exc.colno}); "
                            "is the file complete?") from None
        if not isinstance(record, dict):
            raise ReadError(f"line {number} of {path.name} is not an lm-eval sample record")
        doc = mapping(record.get("doc"))
        doc_keys.update(dict.fromkeys(doc))
        row: dict[str, Any] = {"doc_id": as_text(record.get("doc_id")), "task": task,
                               "filter": as_text(record.get("filter")), "model": model}
        row.update(flatten(doc, "doc"))
        metrics = record.get("metrics")
        for name in metrics if isinstance(metrics, list) else ():
            if not isinstance(name, str) or name in row:
                continue
            value = record.get(name)
            row[name] = float(value) if isinstance(value, (bool, int, float)) else as_text(value)
        row["prompt"] = _prompt(record.get("arguments"))
        row["reply"] = _reply(record.get("filtered_resps"))
        row["sample_target"] = as_text(record.get("target"))
        records.append(row)
    if not records:
        raise ReadError(f"'{path.name}' holds no samples")
    defaults = {}
    for canonical in ("item", "variant"):
        key = first_alias(doc_keys, canonical)
        if key is not None:
            defaults[canonical] = f"doc.{key}"
    return ToolLog("lm_eval", table(records), defaults)


def _model(path: Path, date: str | None) -> str:
    """The model, from the results file beside the samples, else the folder's name."""
    results = sorted(path.parent.glob("results_*.json"))
    same = [p for p in results if date and p.name == f"results_{date}.json"]
    for candidate in same or results[::-1]:
        try:
            config = mapping(mapping(json.loads(candidate.read_text(encoding="utf-8"))).get("config"))
        except (OSError, ValueError, RecursionError):
            continue
        args = config.get("model_args")
        if isinstance(args, dict) and args.get("pretrained"):
            return str(args["pretrained"])
        if isinstance(args, str):
            found = re.search(r"pretrained=([^,]+)", args)
            if found:
                return found.group(1)
        if config.get("model"):
            return str(config["model"])
    return path.parent.name


def _prompt(arguments: Any) -> str | None:
    if isinstance(arguments, dict) and arguments:   # {"gen_args_0": {"arg_0": context, "arg_1": ...}, ...}
        first = next(iter(arguments.values()))
        return as_text(first.get("arg_0")) if isinstance(first, dict) else as_text(first)
    if isinstance(arguments, list) and arguments:   # older versions: [[context, continuation], ...]
        first = arguments[0]
        return as_text(first[0] if isinstance(first, list) and first else (None if first == [] else first))
    return None


def _reply(filtered: Any) -> str | None:
    if isinstance(filtered, list) and len(filtered) == 1 and isinstance(filtered[0], str):
        return filtered[0]
    if isinstance(filtered, str):
        return filtered
    return as_text(filtered)
