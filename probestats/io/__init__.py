"""Reading: every supported format to a frame, with row numbers as a person sees them; no meaning.

``read_log`` is the one entry point (CSV, TSV, JSON, JSONL, xlsx/xlsm, ods, Parquet, and Python
objects: a list of dicts, a polars or pandas DataFrame).
"""

from probestats.io.log import Log
from probestats.io.read import read_log

__all__ = ["Log", "read_log"]
