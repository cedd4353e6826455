"""Every number and every piece of logged text, formatted one way for people.

p-values (never rounded across or onto alpha), numbers, signed gaps, percentages, counts,
and escaping of untrusted text for Markdown and for the terminal (rich markup). The
terminal printers, the report, and the framing and compare sections all use these.
"""

from __future__ import annotations

import math
import re

from rich.markup import escape as _rich_escape

from probestats.errors import count_of, numbers_for_people
from probestats.present.words.sanitize import visible

__all__ = ["tidy_p", "TINY_P", "fmt_p", "fmt_num", "fmt_gap", "fmt_signed", "fmt_pct", "fmt_ci", "fmt_interval", "short_method", "count_of", "escape", "md_escape",
           "MdSafe", "md_finalize"]


#: p-values below this are written ``p < 1e-300``: a float near the bottom of its range has lost its digits
TINY_P = 1e-300


def tidy_p(text: str) -> str:
    """``p = < 1e-300`` written as ``p < 1e-300`` (a bound from :func:`fmt_p` after an equals sign).

    >>> tidy_p("sign test: p = < 1e-300 (n = 9)")
    'sign test: p < 1e-300 (n = 9)'
    """
    return text.replace(f"= < {TINY_P:g}", f"< {TINY_P:g}")


def fmt_p(p: float | None, alpha: float | None = None) -> str:
    """A p-value for people: four significant digits, never rounded to zero, and, given
    ``alpha``, enough digits that rounding never moves it across (or onto) alpha.

    Examples
    --------
    >>> fmt_p(0.0234375), fmt_p(1.0), fmt_p(3.2e-12)
    ('0.02344', '1', '3.2e-12')
    >>> fmt_p(0.0502, 0.05), fmt_p(0.049996, 0.05), fmt_p(0.05, 0.05), fmt_p(0.0500001, 0.05)
    ('0.0502', '0.049996', '0.05', '0.0500001')
    >>> fmt_p(0.0499996, 0.05)
    '0.0499996'
    >>> fmt_p(0.0), fmt_p(2.2e-308)
    ('< 1e-300', '< 1e-300')
    """
    if p is None:
        return "n/a"
    if getattr(p, "exact", True) is False:  # a smallest attainable p below the float range
        return f"2^{p.log2} (about 10^{p.log10:.0f})"
    if p < TINY_P:  # below what a float holds with its digits (0 included): a bound, never "0"
        return f"< {TINY_P:g}"
    text = f"{p:.2g}" if p < 1e-4 else f"{p:.4g}"
    if alpha is None or not math.isfinite(p):
        return _for_people(text)
    digits = 4
    while digits < 17:
        shown = float(text)
        if (shown < alpha) == (p < alpha) and (shown == alpha) == (p == alpha):
            return _for_people(text)
        digits += 1
        text = f"{p:.{digits}g}"
    return repr(float(p))


#: p-values below this show as "p < 1e-300": near the float floor a printed figure is not exact.
P_FLOOR = 1e-300


#: the smallest p written out in decimals for people (``0.00000012``); below it, the bound
PEOPLE_P_DIGITS = 12


def _for_people(text: str) -> str:
    """A p written for people who do not code (in a plain report): in decimals, never ``1.2e-07`` (a bound below
    10^-12).

    >>> from probestats.errors import plain_numbers
    >>> with plain_numbers():
    ...     _for_people("1.2e-07"), _for_people("0.0312"), _for_people("3e-20")
    ('0.00000012', '0.0312', '< 0.000000000001')
    >>> _for_people("1.2e-07")
    '1.2e-07'
    """
    return decimals(text) if numbers_for_people() else text


def decimals(text: str) -> str:
    """A number written in decimals (``1.2e-07`` as ``0.00000012``; below 10^-12, the bound).

    >>> decimals("1.2e-07"), decimals("0.5"), decimals("3e-20")
    ('0.00000012', '0.5', '< 0.000000000001')
    """
    from decimal import Decimal

    if "e" not in text:
        return text
    value = Decimal(text)
    if value < Decimal(10) ** -PEOPLE_P_DIGITS:
        return f"< {Decimal(10) ** -PEOPLE_P_DIGITS:f}"
    return f"{value:f}"


def fmt_p_floor(p: float | None, log10_p: float | None = None, alpha: float | None = None, *,
                prefix: bool = True) -> str:
    """``p = 0.02344`` or, for a p at the float floor, ``p < 1e-300`` (``prefix=False``: without "p ").

    ``log10_p``, when known, decides: a p whose exact log10 is below −300 shows as the bound
    even when the float holds the floor 2.2e-308.

    >>> fmt_p_floor(0.0234375), fmt_p_floor(2.2e-308, -331.1), fmt_p_floor(3e-5, prefix=False)
    ('p = 0.02344', 'p < 1e-300', '3e-05')
    """
    below = p is not None and (p < P_FLOOR or (log10_p is not None and log10_p < -300))
    text = "< 1e-300" if below else fmt_p(p, alpha)
    if not prefix:
        return text
    return "p " + text if below else "p = " + text


def p_is(test, alpha: float | None = None) -> str:
    """``p = 0.02``, or ``p < 1/10001`` when the test's p is a bound (a Monte Carlo p at its floor
    1/(n_resamples + 1): no resample was as extreme as the data), or ``p <= 0.0463`` when the
    test certified bounds on p and reports their upper end.

    >>> from probestats.stats.hypotests import TestResult
    >>> p_is(TestResult(0.5, 1 / 10_001, "monte carlo", "two-sided", 40, pvalue_bound="upper"))
    'p < 1/10001'
    >>> p_is(TestResult(0.5, 0.25, "exact", "two-sided", 3))
    'p = 0.25'
    >>> p_is(TestResult(0.5, 0.0463, "certified bounds", "two-sided", 900, pvalue_bounds=(0.0459, 0.0463)))
    'p <= 0.0463 (certified: at least 0.0459)'
    """
    p = test.pvalue
    if getattr(test, "pvalue_bound", None) == "upper":
        return f"p < 1/{round(1 / p)}"
    bounds = getattr(test, "pvalue_bounds", None)
    if bounds is not None and getattr(test, "pvalue_se", None) is None and bounds[0] < bounds[1]:
        return f"p <= {_outward(p, alpha, up=True)} (certified: at least {_outward(bounds[0], alpha, up=False)})"
    return f"p = {fmt_p(p, alpha)}"


def _outward(p: float, alpha: float | None, *, up: bool) -> str:
    """``fmt_p`` with digits added until the shown figure is on the safe side of p (not below an
    upper bound, not above a lower one).

    >>> _outward(8.84e-05, None, up=True), _outward(8.86e-05, None, up=False)
    ('8.84e-05', '8.86e-05')
    """
    text = fmt_p(p, alpha)
    digits = 2
    while (float(text) < p if up else float(text) > p) and digits < 17:
        digits += 1
        text = f"{p:.{digits}g}"
    return text


def fmt_num(x: float | None, digits: int = 4) -> str:
    """A number with a few significant digits (``n/a`` for missing).

    >>> fmt_num(0.6375), fmt_num(None), fmt_num(-0.25, 2), fmt_num(4.05)
    ('0.6375', 'n/a', '-0.25', '4.05')
    """
    if x is None or x != x:
        return "n/a"
    return f"{float(x):.{digits}g}"


def fmt_gap(x: float | None, digits: int = 4) -> str:
    """A gap with its sign.

    >>> fmt_gap(0.6375), fmt_gap(-0.25), fmt_gap(0.0), fmt_gap(None)
    ('+0.6375', '-0.25', '0', 'n/a')
    """
    if x is None or x != x:
        return "n/a"
    x = float(x)
    return "0" if x == 0 else f"{x:+.{digits}g}"


def fmt_signed(x: float | None, decimals: int = 2, missing: str = "–") -> str:
    """A number with its sign and fixed decimals (framing's scale of −2..+2).

    >>> fmt_signed(1.0), fmt_signed(-0.123), fmt_signed(None)
    ('+1.00', '-0.12', '–')
    """
    return missing if x is None else f"{x:+.{decimals}f}"


def fmt_pct(x: float | None, missing: str = "–") -> str:
    """A share as a whole percentage.

    >>> fmt_pct(0.256), fmt_pct(None), fmt_pct(None, "n/a")
    ('26%', '–', 'n/a')
    """
    return missing if x is None else f"{100 * x:.0f}%"


def fmt_ci(ci, decimals: int = 2, missing: str = "–") -> str:
    """An interval given as ``{"low", "high"}``.

    >>> fmt_ci({"low": -0.5, "high": 1.25}), fmt_ci(None), fmt_ci({"low": None, "high": 1})
    ('[-0.50, +1.25]', '–', '–')
    """
    if not ci or ci.get("low") is None or ci.get("high") is None:
        return missing
    return f"[{ci['low']:+.{decimals}f}, {ci['high']:+.{decimals}f}]"


def fmt_interval(iv) -> str:
    """An :class:`~probestats.stats.hypotests.Interval`'s ends as a table shows them (``open`` for an
    interval without finite ends, such as one item's).

    >>> from probestats.stats.hypotests import Interval
    >>> fmt_interval(Interval(0.15581, 1.11918, 0.95, "t")), fmt_interval(Interval(-math.inf, math.inf, 0.95, "none"))
    ('[0.1558, 1.119]', 'open')
    >>> fmt_interval(Interval(-math.inf, 2.0, 0.95, "sign-flip"))
    '[-inf, 2]'
    """
    low, high = float(iv.low), float(iv.high)
    if math.isinf(low) and math.isinf(high):
        return "open"
    return f"[{fmt_num(low) if math.isfinite(low) else '-inf'}, {fmt_num(high) if math.isfinite(high) else 'inf'}]"


#: The longest method a terminal table shows whole; a longer one is cut to its first clause
SHORT_METHOD = 60


def short_method(text: str, limit: int = SHORT_METHOD) -> str:
    """A method in words, short enough for a table cell: whole up to ``limit`` characters, else its first clause
    (up to the first parenthesis or semicolon) with the resamples and seed it names; the whole text is in
    ``--json`` and the report.

    >>> short_method("exact (enumeration of all 256 sign patterns)")
    'exact (enumeration of all 256 sign patterns)'
    >>> short_method("paired t-test on the item means (Student's t, n − 1 degrees of freedom); assumes normal gaps")
    'paired t-test on the item means'
    >>> short_method("BCa bootstrap over the 8 items (both means of an item resampled together; 10,000 resamples, "
    ...              "seed 0); an approximation: d_av has no exact interval")
    'BCa bootstrap over the 8 items (10,000 resamples, seed 0)'
    """
    text = str(text or "")
    if len(text) <= limit:
        return text
    cut = re.split(r" \(|; ", text, maxsplit=1)[0]
    if len(cut) > limit:
        cut = cut[:limit - 1].rstrip() + "…"
    draws = re.search(r"([\d,]+ resamples(?: of [^,;)]+)?, seed \w+)", text)
    if draws and draws.group(1) not in cut:
        cut += f" ({draws.group(1)})"
    return cut


# ---------------------------------------------------------------------------- escaping


def escape(text) -> str:
    r"""Text from a log made safe to print with rich: a ``[`` that would open a tag is escaped.

    rich's own ``escape`` also doubles a single backslash at the end, in case a tag follows it;
    no tag follows a logged value here, and the doubled backslash would show.

    >>> escape("[bold]x") == "\\[bold]x", escape("C:\\temp\\") == "C:\\temp\\"
    (True, True)
    """
    text = visible(str(text))  # controls shown as escapes, never written raw to a terminal
    escaped = _rich_escape(text)
    if text.endswith("\\") and not text.endswith("\\\\"):
        return escaped[:-1]  # the backslash rich added
    return escaped


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|#~$])")  # $ too: some viewers render $...$ as math


def md_escape(text) -> str:
    r"""Escape text for Markdown: punctuation that starts markup gets a backslash, newlines become spaces.

    Safe inside table cells (``|`` is escaped, no line break survives).

    Examples
    --------
    >>> md_escape("<script>alert(1)</script>")
    '\\<script\\>alert(1)\\</script\\>'
    >>> md_escape("a|b\nc")
    'a\\|b c'
    >>> md_escape("**bold** _it_ [x](y) `code` # h")
    '\\*\\*bold\\*\\* \\_it\\_ \\[x\\](y) \\`code\\` \\# h'
    >>> md_escape("costs $5 and $x^2$")
    'costs \\$5 and \\$x^2\\$'
    >>> md_escape("see http://example.com or www.example.com")
    'see http:\\/\\/example.com or www\\.example.com'
    """
    text = re.sub(r"[\r\n\u2028\u2029\x85\x0b\x0c]+", " ", str(text))
    text = visible(text)  # ESC, C1 and bidi controls shown as escapes, never written raw
    text = _MD_SPECIAL.sub(r"\\\1", text)
    # keep Markdown viewers from turning logged addresses into links (renders the same)
    return re.sub(r"(?i)://", r":\\/\\/", re.sub(r"(?i)\b(www)\.", r"\1\\.", text))


class MdSafe(str):
    """Markdown that is already escaped (printed as is by the Markdown templates)."""


def md_finalize(value):
    """What a Markdown template prints for ``{{ value }}``: escaped unless already :class:`MdSafe`.

    >>> md_finalize("a|b"), md_finalize(MdSafe("**b**")), md_finalize(None)
    ('a\\\\|b', '**b**', '')
    """
    if isinstance(value, MdSafe):
        return value
    if value is None:
        return ""
    return md_escape(value)
