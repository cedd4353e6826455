"""Files as studies publish them: compressed files, R's data files, a folder of one JSON record per file, and
pandas frames on a machine without pyarrow.

- **Compressed files** (``.gz``, ``.zst``) of every format: ``log.csv.gz``, ``runs.jsonl.zst``, ... are
  decompressed into a temporary folder (removed when the process ends) and read by the format of
  the name left (``.csv``, ``.jsonl``, ...). ``.zst`` needs the ``zstandard`` package
  (``pip install 'probestats[frameworks]'``).
- **R's data files** (``.RData``/``.rda``: the one data frame they hold, or the one ``--read
  records=NAME`` names; ``.rds``: its data frame) through ``pyreadr`` (``pip install 'probestats[r]'``).
  Factors are read as text.
- **A folder of one JSON record per file**: each file one object (one run, with a plain value at its
  top level), read as one log with a ``file`` column, each file's record numbered 1.
- **A pandas DataFrame** is converted column by column when pyarrow (which polars' own conversion
  needs) is not installed.

Examples
--------
>>> import gzip, tempfile
>>> path = Path(tempfile.mkdtemp()) / "log.csv.gz"
>>> _ = path.write_bytes(gzip.compress(b"item,variant,steps\\n1,a,3\\n"))
>>> inner = decompressed(path)
>>> inner.name, inner.read_text()
('log.csv', 'item,variant,steps\\n1,a,3\\n')
"""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from pathlib import Path

import polars as pl

from probestats.errors import ReadError, opt

__all__ = ["COMPRESSED", "R_SUFFIXES", "decompressed", "frame_from_pandas", "read_r", "read_record_files"]

#: suffixes of compressed files, and the compression
COMPRESSED = {".gz": "gzip", ".zst": "zstd"}
#: suffixes of R's data files
R_SUFFIXES = (".rdata", ".rda", ".rds")
_CHUNK = 1 << 20
_FOLDER: list[Path] = []


def _temporary_folder() -> Path:
    if not _FOLDER:
        folder = Path(tempfile.mkdtemp(prefix="probestats-"))
        atexit.register(shutil.rmtree, folder, True)
        _FOLDER.append(folder)
    return _FOLDER[0]


def decompressed(path: Path) -> Path:
    """The file ``path`` decompresses to, in a temporary folder, named as ``path`` without its last suffix.

    Raises
    ------
    ReadError
        The file is not what its suffix says (or zstandard, for ``.zst``, is not installed).
    """
    kind = COMPRESSED[path.suffix.lower()]
    folder = Path(tempfile.mkdtemp(dir=_temporary_folder()))
    target = folder / path.stem
    try:
        with _opened(path, kind) as source, open(target, "wb") as out:
            shutil.copyfileobj(source, out, _CHUNK)
    except ReadError:
        raise
    except Exception as exc:   # gzip.BadGzipFile, zstandard.ZstdError, EOFError, OSError
        raise ReadError(f"cannot decompress '{path.name}' as {kind} ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__}); "
                        f"is it really a {path.suffix} file?") from None
    return target


def _opened(path: Path, kind: str):
    if kind == "gzip":
        import gzip

        return gzip.open(path, "rb")
    try:
        import zstandard
    except ImportError:
        raise ReadError(f"reading '{path.name}' (zstd-compressed) needs the zstandard package: "
                        "pip install 'probestats[frameworks]'") from None
    return zstandard.ZstdDecompressor().stream_reader(open(path, "rb"), closefd=True)


def read_r(path: Path, records: str | None = None) -> pl.DataFrame:
    """The data frame an ``.RData``/``.rda`` or ``.rds`` file holds (the one ``records`` names, when several).

    Raises
    ------
    ReadError
        pyreadr is not installed, the file is not an R data file, it holds no data frame, or several
        without ``records``.
    """
    try:
        import pyreadr
    except ImportError:
        raise ReadError(f"reading '{path.name}' (an R data file) needs the pyreadr package: "
                        "pip install 'probestats[r]'") from None
    try:
        objects = pyreadr.read_r(str(path))
    except Exception as exc:   # pyreadr.custom_errors.PyreadrError, LibrdataError
        raise ReadError(f"cannot read '{path.name}' as an R data file ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__}); "
                        f"is it really a {path.suffix} file?") from None
    frames = {str(k): v for k, v in objects.items() if v is not None and hasattr(v, "columns")}
    if records is not None:
        if records not in frames:
            raise ReadError(f"{opt('records', records)}: '{path.name}' holds no data frame of that name; it holds "
                            f"{', '.join(frames) or 'none'}")
        return frame_from_pandas(frames[records])
    if not frames:
        raise ReadError(f"'{path.name}' holds no data frame (R objects other than data frames are not read)")
    if len(frames) > 1:
        names = list(frames)
        raise ReadError(f"'{path.name}' holds {len(frames)} data frames ({', '.join(names[:6])}); name one with "
                        f"{opt('records', names[0])}")
    return frame_from_pandas(next(iter(frames.values())))


def frame_from_pandas(frame) -> pl.DataFrame:
    """A pandas DataFrame as a polars one: by polars when pyarrow is installed, else column by column.

    Missing values (NaN, None, NaT, pandas' NA) become nulls; categories become text; the index is
    not a column (as polars' own conversion leaves it).
    """
    try:
        import pyarrow  # noqa: F401   (polars' conversion needs it)
    except ImportError:
        return _column_by_column(frame)
    try:
        return pl.from_pandas(frame)
    except Exception:   # a column pyarrow cannot convert: try each column on its own
        return _column_by_column(frame)


def _column_by_column(frame) -> pl.DataFrame:
    import numpy as np

    columns = []
    for name in frame.columns:
        col = frame[name]
        dtype = col.dtype
        try:
            if getattr(dtype, "kind", None) in "biuf" and type(dtype).__module__.startswith("numpy"):
                series = pl.Series(str(name), col.to_numpy())
                if series.dtype.is_float():
                    series = series.fill_nan(None)
            elif getattr(dtype, "kind", None) == "M" and type(dtype).__module__.startswith("numpy"):
                series = pl.Series(str(name), col.to_numpy())
            else:
                values = col.astype(object).where(col.notna(), None).tolist()
                values = [v.item() if isinstance(v, np.generic) else v for v in values]
                series = pl.Series(str(name), values, strict=False)
        except Exception as exc:
            raise ReadError(f"cannot convert the pandas column {str(name)!r} ({exc}); convert it to text or numbers, "
                            "or install pyarrow") from None
        columns.append(series)
    return pl.DataFrame(columns)


def read_record_files(files: list[Path]) -> pl.DataFrame | None:
    """Every file of ``files`` as one record (a row), or None when some file is not a lone JSON object.

    A record has a plain value (text, a number, true/false or null) at its top level, or nested objects and
    no list of records there (``{"input": {...}, "response": {"score": 7}}``, whose fields are read by path,
    ``response.score``); an object without a plain value that holds a list of records
    (``{"meta": {...}, "runs": [...]}``) or of lists only (column-oriented) is a table of its own.
    """
    from probestats.io.json_text import is_columns, is_records

    if len(files) < 2 or not all(f.suffix.lower() == ".json" for f in files):
        return None
    rows = []
    for f in files:
        try:
            value = json.loads(f.read_bytes())
        except (ValueError, UnicodeDecodeError):
            return None
        if not isinstance(value, dict) or is_columns(value):
            return None
        plain = any(v is None or isinstance(v, (str, int, float, bool)) for v in value.values())
        nested = any(isinstance(v, dict) for v in value.values()) and not any(is_records(v) for v in value.values())
        if not (plain or nested):
            return None
        rows.append(value)
    try:
        return pl.from_dicts(rows, infer_schema_length=None)
    except Exception as exc:
        raise ReadError(f"cannot make one table of the {len(files)} JSON records ({str(exc).splitlines()[0]}); "
                        "give each key one type in every file") from None
