"""inspect_ai logs: ``.eval`` zip archives (members zstd-compressed in current versions) and ``.json``.

One row per sample and epoch, in the order inspect_ai's own reader gives them (by epoch, then sample id;
a record number in a message counts in that order):

- ``item`` and ``variant`` come from the sample's metadata: the first key the alias table reads as
  each (``item``, ``item_id``, ``pair``, ``pair_id``, ``question_id``, ``prompt_id``, ``sample``,
  ``case``, ``case_id``; ``variant``, ``value``, ``condition``, ``arm``, ``style``). Every metadata
  key is kept as ``metadata.<key>`` (nested ones as ``metadata.<key>.<key>``), so a column
  mapping can name another: ``columns={'variant': 'metadata.dialect'}``.
- ``epoch`` is the run (the canonical ``seed``); ``sample_id`` is the sample's id, kept to find a
  row in the log again.
- ``model`` and the generation config (``temperature``, and the rest as ``generate.<key>``) are
  the held-fixed settings.
- each scorer's value is a metric column named by the scorer (a scorer giving several values:
  ``<scorer>.<key>``); the letters inspect_ai scorers give map to numbers as
  :data:`LETTER_VALUES` says (C = 1, I = 0, P = 0.5, N = 0), booleans to 1 and 0.
- ``prompt`` is the sample's input (its last user message), ``reply`` the output's completion,
  ``sample_target`` its target.

A log still running (status ``started``, or an ``.eval`` without its header yet) is read with
the samples it holds, and a warning says so; a sample that failed (its ``error`` set) is read
with no scores and named in a warning.

Examples
--------
>>> score_value("C"), score_value("P"), score_value(True), score_value("0.25"), score_value("maybe")
(1.0, 0.5, 1.0, 0.25, 'maybe')
"""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path
from typing import Any

from probestats.errors import Problem, ReadError, opt
from probestats.io.json_text import loads
from probestats.io.tool_log import ToolLog, as_text, first_alias, flatten, listing, load_json, mapping, table

#: inspect_ai's letter scores as numbers: correct, incorrect, partially correct, no answer
LETTER_VALUES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
#: zip compression method number of zstandard
ZIP_ZSTANDARD = 93
#: largest member of an .eval archive read (its uncompressed size, from the archive's directory)
MAX_MEMBER_BYTES = 1 << 30


#: the columns every row has besides the metadata and the scores
_OWN = ("sample_id", "epoch", "model", "task", "temperature", "prompt", "reply", "sample_target", "error")


def score_value(value: Any) -> Any:
    """A scorer's value as a number where it has one (letters by :data:`LETTER_VALUES`)."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        if value in LETTER_VALUES:
            return LETTER_VALUES[value]
        try:
            return float(value)
        except ValueError:
            return value
    return value


def read_inspect(path: Path, kind: str) -> ToolLog:
    """Read an inspect_ai log into one row per sample and epoch (see the module's description)."""
    if kind == "inspect_eval":
        header, samples = _read_eval(path)
    else:
        data = load_json(path, "an inspect_ai log")
        if not isinstance(data, dict) or not isinstance(data.get("eval"), dict):
            raise ReadError(f"'{path.name}' is not an inspect_ai log: it has no 'eval' object")
        header, samples = data, list(data.get("samples") or [])
    return _rows(path, header, samples, kind)


def _read_eval(path: Path) -> tuple[dict, list[dict]]:
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise ReadError(f"cannot read '{path.name}': the inspect_ai .eval archive is truncated or corrupt ({exc}); "
                        "copy the whole file again, or wait until the run has finished writing it") from None
    with archive, path.open("rb") as raw:
        names = {i.filename: i for i in archive.infolist()}
        if "header.json" in names:
            header = _member(raw, names["header.json"], path)
        elif "_journal/start.json" in names:   # still running: the header is written at the end
            start = _member(raw, names["_journal/start.json"], path)
            start = mapping(start)
            header = {"status": "started", "eval": start.get("eval") or {}, "plan": start.get("plan") or {}}
        else:
            raise ReadError(f"'{path.name}' holds neither header.json nor _journal/start.json; it is not an inspect_ai log")
        members = sorted((n for n in names if n.startswith("samples/") and n.endswith(".json")),
                         key=lambda n: names[n].header_offset)
        samples = [_member(raw, names[n], path) for n in members]
    return header, samples


def _member(raw, info: zipfile.ZipInfo, path: Path) -> Any:
    """One JSON member of the archive, decompressed (stored, deflate or zstandard)."""
    if info.file_size > MAX_MEMBER_BYTES:
        raise ReadError(f"'{path.name}': the member {info.filename} expands to {info.file_size:,} bytes, more than "
                        f"the {MAX_MEMBER_BYTES:,} read")
    raw.seek(info.header_offset)
    local = raw.read(30)
    if len(local) < 30 or local[:4] != b"PK\x03\x04":
        raise ReadError(f"'{path.name}' is damaged: the member {info.filename} has no local header")
    name_len, extra_len = struct.unpack("<HH", local[26:30])
    raw.seek(info.header_offset + 30 + name_len + extra_len)
    data = raw.read(info.compress_size)
    try:
        if info.compress_type == ZIP_ZSTANDARD:
            data = _unzstd(data, info.file_size)
        elif info.compress_type == zipfile.ZIP_DEFLATED:
            import zlib

            data = zlib.decompressobj(-15).decompress(data, info.file_size + 1)
        elif info.compress_type != zipfile.ZIP_STORED:
            raise ReadError(f"'{path.name}': the member {info.filename} uses compression method "
                            f"{info.compress_type}, which probestats does not read")
        return loads(data.decode("utf-8"), f"the member {info.filename} of '{path.name}'")
    except ReadError:
        raise
    except Exception as exc:   # a damaged stream or member
        raise ReadError(f"'{path.name}' is damaged: the member {info.filename} cannot be read "
                        f"({type(exc).__name__}); is the file complete?") from None


def _unzstd(data: bytes, size: int) -> bytes:
    try:
        import zstandard
    except ImportError:
        raise ReadError("this inspect_ai log is zstd-compressed; install zstandard "
                        "(pip install 'probestats[frameworks]')") from None
    reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data), read_across_frames=True)
    out = reader.read(size + 1)
    if len(out) > size:
        raise ValueError("member larger than the archive says")
    return out


def _input_text(value: Any) -> str | None:
    if isinstance(value, str) or value is None:
        return value
    if isinstance(value, list):
        users = [m for m in value if isinstance(m, dict) and m.get("role") == "user"]
        if users:
            return _content_text(users[-1].get("content"))
    return as_text(value)


def _content_text(content: Any) -> str | None:
    if isinstance(content, list):
        return "".join(c.get("text", "") for c in content if isinstance(c, dict) and c.get("type") == "text")
    return as_text(content)


def _reply(sample: dict) -> str | None:
    output = mapping(sample.get("output"))
    if isinstance(output.get("completion"), str):
        return output["completion"]
    choices = output.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        return _content_text(mapping(choices[0].get("message")).get("content"))
    return None


def _rows(path: Path, header: dict, samples: list[dict], kind: str) -> ToolLog:
    header = mapping(header)
    spec = mapping(header.get("eval"))
    config = dict(mapping(spec.get("model_generate_config")))
    config.update({k: v for k, v in mapping(mapping(header.get("plan")).get("config")).items() if v is not None})
    settings: dict[str, Any] = {"model": as_text(spec.get("model")), "task": as_text(spec.get("task"))}
    if "temperature" in config:
        settings["temperature"] = config.pop("temperature")
    for key, value in sorted(config.items()):
        if value is not None:
            settings[f"generate.{key}"] = as_text(value) if isinstance(value, (dict, list)) else value
    records, failed, meta_keys = [], [], {}
    for sample in sorted((s for s in samples if isinstance(s, dict)), key=_order):
        meta = sample.get("metadata") if isinstance(sample.get("metadata"), dict) else {}
        meta_keys.update(dict.fromkeys(meta))
        epoch = sample.get("epoch")
        row: dict[str, Any] = {"sample_id": as_text(sample.get("id")),
                               "epoch": epoch if isinstance(epoch, int) and not isinstance(epoch, bool) else None}
        row.update(flatten(meta, "metadata"))
        scores = {}
        for scorer, score in mapping(sample.get("scores")).items():
            value = score.get("value") if isinstance(score, dict) else score
            if isinstance(value, dict):
                scores.update({f"{scorer}.{k}": score_value(v) for k, v in value.items()})
            else:
                scores[scorer] = score_value(value)
        row.update(settings)
        # a scorer named like one of the columns above keeps its value under score.<name>
        row.update({(f"score.{k}" if k in row or k in _OWN else k): v for k, v in scores.items()})
        row["prompt"] = _input_text(sample.get("input"))
        row["reply"] = _reply(sample)
        row["sample_target"] = as_text(sample.get("target"))
        error = sample.get("error")
        row["error"] = (error.get("message") if isinstance(error, dict) else as_text(error)) if error else None
        if error:
            failed.append(_label(row))
        records.append(row)
    if not records:
        raise ReadError(f"'{path.name}' holds no samples yet; an inspect_ai log needs at least one finished sample "
                        "(run the eval with log_samples on)")
    problems = []
    status = header.get("status")
    if status == "started":
        problems.append(Problem("warning", "log_incomplete",
                                f"'{path.name}' is an inspect_ai log still running (or stopped before it finished): "
                                f"it holds {len(records)} samples of "
                                f"{_planned(spec)} ({listing([_label(r) for r in records])}); analyze it again "
                                "when the eval is done"))
    elif status in ("error", "cancelled"):
        problems.append(Problem("warning", "log_incomplete",
                                f"the eval that wrote '{path.name}' ended with status '{status}'; "
                                f"it holds {len(records)} samples of {_planned(spec)} "
                                f"({listing([_label(r) for r in records])})"))
    if failed:
        problems.append(Problem("warning", "errored_samples",
                                f"{len(failed)} sample{'s' if len(failed) != 1 else ''} of '{path.name}' failed and {'have' if len(failed) != 1 else 'has'} no scores: "
                                f"{listing(failed)}; each is kept, its error in the 'error' column "
                                f"(leave them out with {opt('where', 'error IS NULL')})", (), "error"))
    defaults = {"seed": "epoch"}
    for canonical in ("item", "variant"):
        key = first_alias(meta_keys, canonical)
        if key is not None:
            defaults[canonical] = f"metadata.{key}"
    return ToolLog(kind, table(records), defaults, tuple(problems))


def _order(sample: dict) -> tuple:
    """inspect_ai's own order of samples: by epoch, then id (a number compared as zero-padded text)."""
    epoch, ident = sample.get("epoch"), sample.get("id")
    return (epoch if isinstance(epoch, int) else 1 << 62,
            ident if isinstance(ident, str) else str(as_text(ident)).zfill(20))


def _label(row: dict) -> str:
    return f"{row['sample_id']} (epoch {row['epoch']})"


def _planned(spec: dict) -> str:
    samples = mapping(spec.get("dataset")).get("samples")
    epochs = mapping(spec.get("config")).get("epochs") or 1
    if isinstance(samples, int) and isinstance(epochs, int):
        return f"the {samples * epochs} planned ({samples} samples x {epochs} epochs)"
    return "those planned"
