"""Files as studies publish them: compressed files, R's data files, a folder of one JSON record per file, and
pandas frames on a machine without pyarrow.

- **Compressed files** (``.gz``, ``.zst``) of every format: ``log.csv.gz``, ``runs.jsonl.zst``, ... are
  decompressed into a temporary folder (removed when the process ends) and read by the format of
  the name left (``.csv``, ``.jsonl``, ...). ``.zst`` needs the ``zstandard`` package
  (``pip install 'probestats[frameworks]'``).
- **R's data files** (``.RData``/``.rda``: the one data frame they hold, or the one ``--read
  records=NAME`` names; ``.rds``: its data frame) through ``pyreadr`` (``pip install 'probestats[r]'``).
  Factors are read as text. The reader, a C library, runs in a child process: a hostile file that crashes
  it is one error here. ``--read max-cells=N`` bounds the data frame's rows x columns, ``max-columns`` its
  columns, before it is loaded; the other read options (sheet, skip-rows, encoding) do not apply and warn.
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
import os
import shutil
import tempfile
from pathlib import Path

import polars as pl

from probestats.errors import ReadError, opt
from probestats.io.columns import check_columns
from probestats.io.json_text import is_columns, is_records
from probestats.limits import MAX_COLUMNS

__all__ = ["COMPRESSED", "R_SUFFIXES", "RFile", "decompressed", "frame_from_pandas", "read_r", "read_r_file",
           "read_record_files"]

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


#: what the child process that runs R's reader does: read the file, keep its data frames (pickled to the file
#: named second), and say on its standard output their names and shapes and what the reader warned
_R_CHILD = """
import json, pickle, sys, warnings
path, out = sys.argv[1], sys.argv[2]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        import pyreadr
        objects = pyreadr.read_r(path)
    except Exception as exc:
        text = str(exc).splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(json.dumps({"error": text}))
        sys.exit(0)
frames = {str(k): v for k, v in objects.items() if v is not None and hasattr(v, "columns")}
with open(out, "wb") as f:
    pickle.dump(frames, f)
print(json.dumps({"shapes": {k: list(v.shape) for k, v in frames.items()},
                  "warnings": [" ".join(str(w.message).split()) for w in caught]}))
"""


class RFile:
    """What R's reader found in a file: its data frames' names and shapes, its warnings, and the frames
    themselves, loaded into this process only when :meth:`frame` asks for one."""

    def __init__(self, shapes: dict, warned: list, store: Path):
        self.shapes, self.warnings, self._store = shapes, warned, store

    def frame(self, name: str):
        import pickle

        with open(self._store, "rb") as f:   # written by this process's own child, in its private folder
            return pickle.load(f)[name]

    def discard(self) -> None:
        """Remove the frames the child wrote."""
        shutil.rmtree(self._store.parent, ignore_errors=True)


def read_r_file(path: Path) -> RFile:
    """Run R's reader (pyreadr, a C library) on ``path`` in a child process: a hostile file that crashes it
    (100,000 nested lists overflow its stack) ends the child, and becomes one :class:`ReadError` here.

    Raises
    ------
    ReadError
        pyreadr is not installed, the reader failed, or it crashed.
    """
    import importlib.util
    import subprocess
    import sys

    if importlib.util.find_spec("pyreadr") is None:
        raise ReadError(f"reading '{path.name}' (an R data file) needs the pyreadr package: "
                        "pip install 'probestats[r]'")
    folder = Path(tempfile.mkdtemp(dir=_temporary_folder()))
    store = folder / "frames.pickle"
    # the child's program is read from its standard input ("-"), its arguments follow
    done = subprocess.run([sys.executable, "-", os.path.abspath(path), str(store)],
                          capture_output=True, input=_R_CHILD.encode("utf-8"))
    said = done.stdout.decode("utf-8", "replace").strip().splitlines()
    if done.returncode != 0 or not said or '"error"' in said[-1]:
        shutil.rmtree(folder, ignore_errors=True)
    if done.returncode != 0 or not said:
        how = _ended(done.returncode)
        raise ReadError(f"the R reader crashed on '{path.name}' ({how}): the file is damaged, or holds a "
                        "structure the reader cannot read (lists nested thousands deep); save the data frame "
                        "alone again from R, saveRDS(as.data.frame(x), 'log.rds'), or write it as CSV")
    told = json.loads(said[-1])
    if "error" in told:
        raise ReadError(f"cannot read '{path.name}' as an R data file ({told['error']}); "
                        f"is it really a {path.suffix} file?")
    return RFile(told["shapes"], told["warnings"], store)


def _ended(code: int) -> str:
    """How a child process ended, in words: ``a segmentation fault``, ``exit status 3``."""
    import signal

    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return {"SIGSEGV": "a segmentation fault", "SIGABRT": "an abort", "SIGKILL": "killed, out of memory?",
                "SIGBUS": "a bus error"}.get(name, name)
    return f"exit status {code}" if code else "no answer"


def read_r(path: Path, records: str | None = None, max_columns: int | None = None,
           max_cells: int | None = None) -> tuple[pl.DataFrame, list[str]]:
    """The data frame an ``.RData``/``.rda`` or ``.rds`` file holds (the one ``records`` names, when several),
    and what R's reader warned of it. The reader runs in a child process (:func:`read_r_file`); the frame's
    columns (``max_columns``, and the memory this process may take) and cells (``max_cells``) are checked
    before it is loaded here.

    Raises
    ------
    ReadError
        pyreadr is not installed, the file is not an R data file (or crashes its reader), it holds no data
        frame, several without ``records``, or one beyond the limits.
    """
    found = _r_frames(path)
    try:
        return _chosen_frame(path, found, records, max_columns, max_cells)
    finally:   # the child's pickled frames: a long-running page reads many files
        found.discard()


def _chosen_frame(path: Path, found: "RFile", records, max_columns, max_cells) -> tuple[pl.DataFrame, list[str]]:
    shapes = found.shapes
    if records is not None:
        if records not in shapes:
            raise ReadError(f"{opt('records', records)}: '{path.name}' holds no data frame of that name; it holds "
                            f"{', '.join(shapes) or 'none'}")
        name = records
    elif not shapes:
        said = f" (the R reader says: {found.warnings[0]})" if found.warnings else ""
        raise ReadError(f"'{path.name}' holds no data frame (R objects other than data frames are not read){said}; "
                        "save the data frame itself from R, saveRDS(as.data.frame(x), 'log.rds')")
    elif len(shapes) > 1:
        names = list(shapes)
        raise ReadError(f"'{path.name}' holds {len(shapes)} data frames ({', '.join(names[:6])}); name one with "
                        f"{opt('records', names[0])}")
    else:
        name = next(iter(shapes))
    rows, cols = shapes[name]

    check_columns(cols, path.name, MAX_COLUMNS if max_columns is None else int(max_columns))
    if max_cells is not None and rows * cols > int(max_cells):
        raise ReadError(f"'{path.name}' holds a data frame of {rows:,} rows x {cols:,} columns ({rows * cols:,} "
                        f"cells), more than {opt('max_cells', max_cells)}; raise the limit with "
                        f"{opt('max_cells', rows * cols)} if it is really that large")
    return frame_from_pandas(found.frame(name)), list(found.warnings)


def _r_frames(path: Path) -> RFile:
    return read_r_file(path)


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
