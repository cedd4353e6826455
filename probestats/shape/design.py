"""The design file: what a log cannot say about its own probe.

A log shows which items, values and settings were run; it cannot show why the values
matter, how the metric was defined before the first run, what could not be held fixed,
which attributes were never tested, or what mitigation was applied. A report asks for
these as one :class:`Design` (``design=Design(...)``), or from a small TOML file (``design='probe.toml'``;
on the command line ``--design probe.toml``, with ``--set KEY=VALUE`` for one fact at a time, over the
file's). Nothing is invented: a field left out becomes a visible placeholder in the report.

Example file::

    attribute = "writing style of a debugging request"
    values_why = "students write both ways; a tutor should help both equally"
    metric_definition = "number of numbered steps in the reply (lines starting '1.', '2.', ...), fixed before the first run"
    metric_cannot_see = ["whether the steps are correct", "tone"]
    held_fixed = ["the request's content", "model version stand-in-v1"]
    not_fixed = ["server-side model updates during the two days of runs"]
    not_tested = ["names", "dialect", "language"]
    run_dates = "2025-03-10 to 2025-03-11"
    mitigation = "none"
    selection = true    # the metric says whether a candidate was selected (selection rates, impact ratios)
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path

from probestats.errors import OptionError, ReadError, opt

__all__ = ["Design", "as_design", "load_design", "design_from", "KNOWN_KEYS"]

#: Fields that hold a list (a string is taken as a one-element list).
LIST_FIELDS = ("metric_cannot_see", "held_fixed", "not_fixed", "not_tested")


@dataclass(frozen=True)
class Design:
    """What the person who ran the probe says about it (all optional).

    Attributes
    ----------
    attribute : str or None
        The attribute probed (writing style, a name, a dialect marker).
    values_why : str or None
        Why the compared values matter.
    metric_definition : str or None
        The metric's definition, written before the run.
    metric_cannot_see : tuple of str
        What the metric cannot see.
    held_fixed : tuple of str
        What was held fixed beyond what the log shows.
    not_fixed : tuple of str
        What could not be held fixed.
    not_tested : tuple of str
        Attributes not tested.
    run_dates : str or None
        When the runs were made (default: read from the log's time column).
    mitigation : str or None
        Mitigation applied before the runs, if any.
    gap_of_interest : float or None
        A gap worth detecting, in metric units (used for the power plot).
    selection : bool or None
        The metric says whether a candidate was selected (``selection = true``; ``--set selection=yes``):
        only then do selection rates, impact ratios and the four-fifths reference appear. A 0/1 metric
        alone (an agree share, a correct answer) is not a selection.

    Examples
    --------
    >>> d = Design(attribute="style", not_tested=("names",))
    >>> d.merged(attribute="writing style", not_tested=()).attribute
    'writing style'
    >>> d.merged(not_tested=()).not_tested     # an empty option keeps the file's value
    ('names',)
    >>> d.missing()[:2]
    ['values_why', 'metric_definition']
    """

    attribute: str | None = None
    values_why: str | None = None
    metric_definition: str | None = None
    metric_cannot_see: tuple[str, ...] = ()
    held_fixed: tuple[str, ...] = ()
    not_fixed: tuple[str, ...] = ()
    not_tested: tuple[str, ...] = ()
    run_dates: str | None = None
    mitigation: str | None = None
    gap_of_interest: float | None = None
    selection: bool | None = None

    def merged(self, **options) -> Design:
        """A copy with the given options in place of the file's values (None or empty: keep)."""
        known = {f.name for f in fields(self)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise OptionError(f"unknown design field {unknown[0]!r}; known fields: {', '.join(KNOWN_KEYS)}")
        given = {}
        for key, value in options.items():
            if value is None or (key in LIST_FIELDS and not value):
                continue
            given[key] = _coerce(key, value, "option")
        return replace(self, **given)

    def missing(self) -> list[str]:
        """Names of the fields left empty (the report shows placeholders for them)."""
        return [f.name for f in fields(self) if f.name not in ("gap_of_interest", "selection")
                and not getattr(self, f.name)]

    def to_dict(self) -> dict:
        return {f.name: (list(v) if isinstance(v := getattr(self, f.name), tuple) else v) for f in fields(self)}


KNOWN_KEYS: tuple[str, ...] = tuple(f.name for f in fields(Design))

def _coerce(key: str, value, where: str):
    if key in LIST_FIELDS:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise OptionError(f"{where} {key}: expected text or a list of texts, e.g. {key} = [\"...\", \"...\"]")
        return tuple(v.strip() for v in value if v.strip())
    if key == "selection":
        return yes_no(key, value, where)
    if key == "gap_of_interest":
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise OptionError(f"{where} {key}: expected a number, e.g. {key} = 0.5")
        try:
            number = float(value)
        except ValueError:
            raise OptionError(f"{where} {key}: expected a number, not {value!r}") from None
        if not number > 0 or number == float("inf"):
            raise OptionError(f"{where} {key}: expected a positive number, not {value!r}")
        return number
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        # TOML dates arrive as datetime.date; keep them as written
        if hasattr(value, "isoformat"):
            return value.isoformat()
        raise OptionError(f"{where} {key}: expected text, e.g. {key} = \"...\"")
    return str(value).strip() or None


def yes_no(key: str, value, where: str) -> bool:
    """A yes/no fact: TOML's true or false, or the words yes, no, true, false.

    >>> yes_no("selection", "Yes", "option"), yes_no("selection", False, "option")
    (True, False)
    """
    if isinstance(value, bool):
        return value
    words = {"yes": True, "true": True, "no": False, "false": False}
    if isinstance(value, str) and value.strip().lower() in words:
        return words[value.strip().lower()]
    raise OptionError(f"{where} {key}: expected yes or no (true or false in a design file), not {value!r}")


def load_design(path) -> Design:
    """Read a design file (TOML); unknown keys are an error that lists the known ones.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = pathlib.Path(d, "probe.toml")
    ...     _ = p.write_text('attribute = "style"\\nnot_tested = ["names", "dialect"]\\n')
    ...     load_design(p).not_tested
    ('names', 'dialect')
    """
    path = Path(path)
    if not path.exists():
        raise ReadError(f"cannot read design file '{path}': no such file; check the path given to {opt('design')}")
    if path.is_dir():
        raise ReadError(f"cannot read design file '{path}': it is a folder; give a .toml file")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ReadError(f"cannot read design file '{path}': not UTF-8 text; save it as UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise ReadError(f"design file '{path}' is not valid TOML ({exc}); "
                        "write lines such as attribute = \"writing style\"") from None
    except OSError as exc:
        raise ReadError(f"cannot read design file '{path}': {exc.strerror or exc}") from None
    except RecursionError:
        raise ReadError(f"design file '{path}' nests tables or arrays too deeply to read; a design file "
                        "holds plain keys and lists of text") from None
    except ValueError as exc:  # an integer of more digits than Python converts (4,300)
        raise ReadError(f"design file '{path}' holds a number too long to read ({str(exc).split(';')[0]})") from None
    unknown = [k for k in data if k not in KNOWN_KEYS]
    if unknown:
        raise OptionError(f"design file '{path}': unknown key {unknown[0]!r}; a design file holds the design facts "
                          f"only: {', '.join(KNOWN_KEYS)}")
    return Design(**{k: _coerce(k, v, f"design file '{path}':") for k, v in data.items()})


def design_from(path=None, **options) -> Design:
    """The design from a file (optional) with options overriding it.

    Examples
    --------
    >>> design_from(None, attribute="style", held_fixed=["prompt wording"]).held_fixed
    ('prompt wording',)
    """
    base = load_design(path) if path is not None else Design()
    return base.merged(**options)


def as_design(design) -> Design:
    """The design a job was given: a :class:`Design` as it is, a path as the design file it names, None as no
    facts stated.

    Examples
    --------
    >>> as_design(None) == Design(), as_design(Design(attribute="style")).attribute
    (True, 'style')
    >>> as_design(Design(selection="no")).selection, as_design(Design(not_tested="names")).not_tested
    (False, ('names',))
    >>> as_design({"attribute": "style"})
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: design: expected a Design or the path of a design file (TOML), not a dict; write design=Design(attribute=...)
    """
    if design is None:
        return Design()
    if isinstance(design, Design):   # checked as a design file's facts are: Design(selection="no") is no selection
        return Design().merged(**{f.name: getattr(design, f.name) for f in fields(design)})
    if isinstance(design, (str, Path)):
        return load_design(design)
    raise OptionError(f"{opt('design')}: expected a Design or the path of a design file (TOML), not a "
                      f"{type(design).__name__}; write design=Design(attribute=...)")
