"""The exact engines of the sign-flip test: every sign pattern enumerated, or the lattice convolution.

Both count, exactly, the sign patterns of the gaps whose sum is at least as extreme as the observed
one (the rule of :mod:`probestats.stats.hypotests`):

* **enumeration** visits every pattern of up to 44 non-zero gaps by meet-in-the-middle (the sums
  of each half are enumerated and the pairs counted with a sorted search);
* **lattice convolution** handles any number of gaps that are multiples of a common step (the
  gaps of means of integer metrics): each gap becomes an integer, and the law of the signed sum is
  built by convolving the per-value binomial laws after an exponential tilt toward the observed
  sum, directly or by FFT, with a bound on its relative error.

:func:`probestats.stats.hypotests.sign_flip_test` chooses between them (and the certified bounds of
:mod:`probestats.stats.fourier`); the functions here are its parts.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

#: Relative tie tolerance of the sign-flip test (see the module docstring).
TIE_RTOL = 1e-9
#: A gap counts as a multiple of a step when it is within this share of the largest gap.
SNAP_RTOL = 1e-11
#: Largest denominator tried for one gap when looking for a common step.
MAX_DENOMINATOR = 10**5
#: Largest common denominator (1/step) accepted.
MAX_LATTICE_L = 10**12
#: Mass below this is trimmed in the lattice convolution (its total enters the error bound).
TRIM_EPS = 1e-35
#: Direct convolutions up to this cost are used even when the FFT would be cheaper.
DIRECT_PREFERRED = 3e7
#: Mass allowed outside each Hoeffding window of the FFT convolution.
FFT_DELTA = 1e-30
#: The FFT convolution's answer is used when its relative error bound is below this.
FFT_RTOL = 1e-6
#: Largest relative error accepted from the lattice convolution before recomputing untrimmed.
LATTICE_RTOL = 1e-13


# --------------------------------------------------------------------------- enumeration


@lru_cache(maxsize=64)
def sign_matrix(k: int) -> np.ndarray:
    """All 2**k sign patterns as a (2**k, k) matrix of +-1.0 (read-only)."""
    idx = np.arange(2**k, dtype=np.int64)[:, None]
    bits = (idx >> np.arange(k, dtype=np.int64)) & 1
    out = 1.0 - 2.0 * bits.astype(float)
    out.setflags(write=False)
    return out


def pattern_sums(G: np.ndarray) -> np.ndarray:
    """Per row of ``G`` (rows x k), the sums ``s . G[r]`` of all 2**k sign patterns ``s`` (rows x 2**k).

    Built by doubling, one column of ``G`` at a time (the sums so far plus it, then minus it): elementwise
    work of about 2 * 2**k per row, where the product with :func:`sign_matrix` costs k * 2**k and goes through
    the BLAS, whose threads spin on a busy machine (they doubled a plan's CPU time). The patterns come in
    another order than :func:`sign_matrix`'s; the enumerations here count them, so the order does not matter.

    >>> G = np.array([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]])
    >>> bool(np.all(np.sort(pattern_sums(G), axis=1) == np.sort(G @ sign_matrix(3).T, axis=1)))
    True
    """
    rows, k = G.shape
    out = np.empty((rows, 2**k))
    out[:, 0] = 0.0
    for j in range(k):
        m = 2 ** j
        col = G[:, j:j + 1]
        np.subtract(out[:, :m], col, out=out[:, m:2 * m])
        out[:, :m] += col
    return out


#: Gaps per row up to which the meet-in-the-middle counts are merged for all rows at once (one sort of each
#: row's half sums and queries); beyond, each row's queries are searched in its sorted half sums.
MERGE_MAX_N = 14


def count_at_least(G: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Per row r of G, the number of sign patterns s with sum(s * G[r]) >= x[r].

    Meet in the middle: the 2**n1 sums of the first half and the 2**n2 sums of the
    second half are enumerated; for each first-half sum a the second-half sums b with
    b >= x - a are counted. Up to :data:`MERGE_MAX_N` gaps the queries ``x - a`` and the sums ``b`` of
    every row are sorted together (stably, queries first, so a ``b`` equal to a query counts as at least
    it), and the ``b`` below each query are counted from the merged order: the same counts as a binary
    search per row, without a loop over rows. Beyond, a binary search in the sorted second half per row.
    """
    rows, n = G.shape
    n1 = n // 2
    if n <= MERGE_MAX_N:
        A = pattern_sums(G[:, :n1])
        B = pattern_sums(G[:, n1:])
        n_a = A.shape[1]
        order = np.argsort(np.concatenate([x[:, None] - A, B], axis=1), axis=1, kind="stable")
        is_b = order >= n_a
        below = np.where(is_b, 0, np.cumsum(is_b, axis=1)).sum(axis=1)
        return (n_a * B.shape[1] - below).astype(np.int64)
    # A sorted in descending order makes the queries x - a ascending, which searchsorted
    # answers faster.
    A = -np.sort(-pattern_sums(G[:, :n1]), axis=1)
    B = np.sort(pattern_sums(G[:, n1:]), axis=1)
    total = A.shape[1] * B.shape[1]
    out = np.empty(rows, dtype=np.int64)
    for r in range(rows):
        out[r] = total - int(np.searchsorted(B[r], x[r] - A[r], side="left").sum())
    return out


# --------------------------------------------------------------------------- lattice


def _unique_counts(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct values of a 1-D array and their counts (``np.unique`` without its lazy imports).

    >>> [v.tolist() for v in _unique_counts(np.array([3, 1, 3]))]
    [[1, 3], [1, 2]]
    """
    srt = np.sort(a, kind="stable")
    start = np.flatnonzero(np.concatenate(([True], srt[1:] != srt[:-1])))
    return srt[start], np.diff(np.append(start, srt.size))


def find_lattice(g: np.ndarray) -> int | None:
    """Smallest integer L such that every gap times L is (within SNAP_RTOL) an integer.

    Returns None when no such L up to MAX_LATTICE_L exists.
    """
    u = _unique_counts(np.abs(g))[0]
    gmax = float(u[-1])
    L = 1
    for _ in range(200):
        r = u * L
        bad = np.abs(r - np.rint(r)) > SNAP_RTOL * gmax * L
        if not bad.any():
            return L if gmax * L < 2.0**50 else None
        v = float(u[int(np.argmax(bad))])
        q = Fraction(v).limit_denominator(MAX_DENOMINATOR).denominator
        new = L * q // math.gcd(L, q)
        if new == L or new > MAX_LATTICE_L:
            return None
        L = new
    return None


def exact_gaps(gaps) -> np.ndarray:
    """The gaps without the rounding residue of their means, for the tests that compare gaps (signs, ties, ranks).

    When every gap is a multiple of a common step ``1/L`` (the gaps of means of integer metrics, such as
    thirds, or of metrics with a fixed number of decimals), each becomes ``round(g * L) / L``: gaps equal as
    fractions are the same float, and a gap that is zero as a fraction is 0. Otherwise gaps whose absolute
    values are within ``TIE_RTOL`` times the largest of each other are made equal (to the smallest of them),
    and gaps within it of zero are 0: the tie tolerance of the sign-flip test.

    Examples
    --------
    ``0.3 - 0.1`` is 0.19999999999999998 and ``1.0 - 1.2`` is -0.19999999999999996; both are a fifth:

    >>> exact_gaps([0.3 - 0.1, 1.0 - 1.2, 0.1 + 0.2 - 0.3, 2 / 3 - 1 / 3, 1 / 3]).tolist()
    [0.2, -0.2, 0.0, 0.3333333333333333, 0.3333333333333333]

    Gaps on no common step are tied within the tolerance:

    >>> g = [math.pi, -math.pi * (1 + 1e-12), math.e, 1e-13]
    >>> exact_gaps(g).tolist() == [math.pi, -math.pi, math.e, 0.0]
    True
    """
    g = np.asarray(gaps, dtype=float)
    if g.size == 0 or not np.any(g):
        return np.zeros_like(g)
    L = find_lattice(g)
    if L is not None:
        return np.rint(g * L) / L + 0.0   # + 0.0: no negative zero
    a = np.abs(g)
    tol = TIE_RTOL * float(a.max())
    order = np.argsort(a, kind="stable")
    srt = a[order]
    start = np.concatenate(([True], np.diff(srt) > tol))
    rep = srt[np.flatnonzero(start)][np.cumsum(start) - 1]   # each value's smallest tied neighbour
    out = np.empty_like(a)
    out[order] = np.where(rep <= tol, 0.0, rep)
    return np.sign(g) * out + 0.0


def lattice_cost(m_abs: np.ndarray, trim: bool = True) -> float:
    """Rough number of array element operations of lattice_tail for these integer gaps.

    With ``trim`` the cheaper of the direct and the FFT convolution.
    """
    vals, cnts = _unique_counts(m_abs)
    sd = math.sqrt(float(np.sum(m_abs.astype(float) ** 2)))
    if trim:
        return min(_direct_cost(vals, cnts, m_abs, sd), _fft_cost(vals, cnts))
    width = 2.0 * float(m_abs.sum()) + 1.0
    return width * float((cnts + 1.0).sum())


def _direct_cost(vals, cnts, m_abs, sd) -> float:
    width = min(2.0 * float(m_abs.sum()), 26.0 * sd) + 2.0 * float(vals[-1])
    taps = np.minimum(cnts + 1.0, 13.0 * np.sqrt(cnts) + 1.0)
    # a Python-level step per tap: count each as a few thousand element operations
    return width * float(taps.sum()) + 5e3 * float(taps.sum())


def _fft_cost(vals, cnts) -> float:
    """Element operations of the FFT tree: kernel lengths summed over the tree's levels."""
    lengths = vals.astype(float) * np.minimum(cnts + 1.0, 13.0 * np.sqrt(cnts) + 1.0)
    total = float(lengths.sum())
    levels = math.ceil(math.log2(vals.size + 1))
    return 3.0 * total * max(1.0, math.log2(total + 1)) * levels / 2 + 2e4 * vals.size


def log_cosh(x: np.ndarray) -> np.ndarray:
    """``log(cosh(x))`` computed without overflow for large ``|x|``."""
    x = np.abs(x)
    return x + np.log1p(np.exp(-2.0 * x)) - math.log(2.0)


def _sparse_convolve(acc: np.ndarray, w: np.ndarray, step: int) -> np.ndarray:
    """out[i + step*t] = sum acc[i] * w[t] (direct; every term a non-negative product)."""
    A, K = acc.size, w.size
    out = np.zeros(A + step * (K - 1))
    if K <= A:
        for t in range(K):
            out[step * t : step * t + A] += w[t] * acc
    else:
        span = step * (K - 1) + 1
        for i in range(A):
            out[i : i + span : step] += acc[i] * w
    return out


def _binom_pmf_ratio(cnt: int, x: float) -> np.ndarray:
    """P(K = k), k = 0..cnt, for K ~ Binomial(cnt, r) with r = 1 / (1 + e^x) and x >= 0.

    Built outward from the mode by the ratio recurrence
    ``P(k+1) / P(k) = (cnt - k) / (k + 1) * e^-x`` (a cumulative product, so each value
    carries at most 3 roundings per step from the mode) and normalized by its sum: every
    value has a relative error below ``(3 * cnt + 2)`` units in the last place, tiny
    values included (values below the float range become 0). Pure numpy, so the
    lattice path needs no scipy import.

    >>> _binom_pmf_ratio(3, 0.0).round(12).tolist()
    [0.125, 0.375, 0.375, 0.125]
    """
    cnt = int(cnt)
    odds = math.exp(-x)  # r / (1 - r)
    r = 1.0 / (1.0 + math.exp(x)) if x < 700 else 0.0
    mode = min(cnt, int(math.floor((cnt + 1) * r)))
    out = np.empty(cnt + 1)
    out[mode] = 1.0
    if mode < cnt:
        k = np.arange(mode, cnt, dtype=float)
        out[mode + 1 :] = np.cumprod((cnt - k) / (k + 1.0) * odds)
    if mode > 0:
        k = np.arange(mode, 0, -1, dtype=float)
        out[mode - 1 :: -1] = np.cumprod(k / (cnt - k + 1.0) / odds)
    return out / float(np.sum(out))


def _norm2(a: np.ndarray) -> float:
    """Euclidean norm, rounded up by a relative 1e-12 (no BLAS call)."""
    return math.sqrt(float(np.sum(a * a))) * (1 + 1e-12)


def _fast_len(n: int) -> int:
    """Smallest 2^a 3^b 5^c >= n (the sizes pocketfft transforms fastest).

    >>> _fast_len(1000), _fast_len(1025), _fast_len(1)
    (1000, 1080, 1)
    """
    best = 1 << max(0, (n - 1).bit_length())
    p5 = 1
    while p5 < best:
        p35 = p5
        while p35 < best:
            m = p35
            while m < n:
                m *= 2
            best = min(best, m)
            p35 *= 3
        p5 *= 5
    return best


def _fft_convolve(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, int]:
    """Linear convolution of a and b by real FFTs of a power-of-two length (no wrap-around)."""
    n = a.size + b.size - 1
    nfft = _fast_len(n)
    out = np.fft.irfft(np.fft.rfft(a, nfft) * np.fft.rfft(b, nfft), nfft)[:n]
    return out, nfft


def _lattice_tail_fft(vals: np.ndarray, cnts: np.ndarray, theta: float, c: int) -> tuple[float, float]:
    """Natural log of P(M >= c) and a bound on its relative error, by FFT convolution.

    The same tilted law as :func:`lattice_tail`, written for X = (M + T) / 2 (the sum of
    the gaps given a plus sign; T = sum of all gaps), which lives on every integer rather
    than every other one. One tilted binomial kernel per distinct gap value is built
    exactly (:func:`_binom_pmf_ratio`), and the kernels are multiplied pairwise, shortest
    first, by FFT convolution. After each product the tilted law is cut to its Hoeffding
    window ``mean +- sqrt(s2 * log(2 / FFT_DELTA) / 2)`` (``s2`` the sum of squared
    ranges of the parts), outside which it holds at most ``FFT_DELTA`` of mass.

    Error bound: an FFT convolution of a and b has an absolute error, in every entry, of
    at most ``(log2(N) * 10 * eps + eps) * (|a|_2 + |b|_2 + |a*b|_2)`` to first order
    (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., Thm. 24.2, with
    eta = 10 eps covering the twiddle factors); errors of the inputs pass through a
    convolution with a probability vector without growth in the max norm, so the bounds
    add up the tree. The tail sum weights each entry by at most 1, so its absolute error
    is at most (max-norm error) * (sum of weights) + (mass cut off anywhere).
    """
    import heapq

    ulp = float(np.finfo(float).eps)
    lam = 2.0 * theta
    T = int(np.dot(vals.astype(object), cnts.astype(object))) if vals.size else 0
    xc = -((-(c + T)) // 2)  # ceil((c + T) / 2): M >= c  <=>  X >= xc
    log_cut = math.log(2.0 / FFT_DELTA)
    dropped = 0.0
    heap = []
    for idx, (val, cnt) in enumerate(zip(vals.tolist(), cnts.tolist())):
        x = lam * val
        pmf = _binom_pmf_ratio(cnt, x)[::-1]  # P(J = j) for the number J of plus signs
        keep = np.flatnonzero(pmf >= TRIM_EPS)
        if keep.size == 0:
            keep = np.array([int(np.argmax(pmf))])
        j0, j1 = int(keep[0]), int(keep[-1])
        dropped += float(pmf[:j0].sum() + pmf[j1 + 1 :].sum()) * (1 + 1e-10)
        part = pmf[j0 : j1 + 1]
        if val == 1:
            arr = part.copy()
        else:
            arr = np.zeros(val * (j1 - j0) + 1)
            arr[::val] = part
        p_plus = 1.0 / (1.0 + math.exp(-x)) if x > -700 else 0.0
        err = (3 * cnt + 2) * ulp * float(part.max())
        heapq.heappush(heap, (arr.size, idx, arr, val * j0, cnt * val * p_plus, cnt * val * val, err,
                              _norm2(part)))
    counter = vals.size
    while len(heap) > 1:
        _, _, a, oa, ma, sa, ea, na = heapq.heappop(heap)
        _, _, b, ob, mb, sb, eb, nb = heapq.heappop(heap)
        conv, nfft = _fft_convolve(a, b)
        # |a*b|_2 <= |a|_2 |b|_1 (Young), and |b|_1 is 1 up to rounding
        local = (math.log2(nfft) * 10 * ulp + ulp) * (na + nb + min(na, nb) * 1.001)
        np.maximum(conv, 0.0, out=conv)  # the true values are >= 0: clipping only moves toward them
        err = ea * float(b.sum()) + eb * float(a.sum()) + local
        off, mean, s2 = oa + ob, ma + mb, sa + sb
        half = math.sqrt(s2 * log_cut / 2.0)
        lo = max(0, math.floor(mean - half) - off)
        hi = min(conv.size - 1, math.ceil(mean + half) - off)
        if lo > 0 or hi < conv.size - 1:
            dropped += FFT_DELTA
            conv = conv[lo : hi + 1]
            off += lo
        counter += 1
        heapq.heappush(heap, (conv.size, counter, conv, off, mean, s2, err, _norm2(conv)))
    _, _, q, off, _, _, err, _ = heap[0]
    first = max(0, xc - off)
    tail = q[first:]
    w = np.exp(-lam * (np.arange(tail.size, dtype=float) + float(off + first - xc)))
    bracket = float(np.sum(tail * w))
    if not bracket > 0.0:
        return -math.inf, math.inf
    abs_err = err * float(w.sum()) + dropped
    cf, v = cnts.astype(float), vals.astype(float)
    log_norm = float(np.sum(cf * (lam * v + np.log1p(np.exp(-lam * v)) - math.log(2.0))))
    rel_err = abs_err / bracket + 4 * ulp * (10 * vals.size + abs(log_norm) + lam * abs(xc) + 10)
    return log_norm - lam * xc + math.log(bracket), rel_err


def lattice_tail(m_abs: np.ndarray, c: int, trim: bool = True) -> tuple[float, float]:
    """Natural log of P(M >= c) and a bound on its relative error.

    M = sum_i s_i * m_i with independent fair signs s_i and positive integers m_i.
    The law of M is built by direct convolution of one binomial law per distinct
    value of m (the values with multiplicity c_j contribute v_j * (2 J - c_j) with
    J ~ Binomial(c_j, 1/2)), after an exponential tilt by theta chosen so that the
    tilted mean is c: P(M = s) = Q(s) * prod cosh(theta m_i) * exp(-theta s). The
    tilt makes the region around c carry most of the (tilted) mass, so trimming
    negligible mass and float64 arithmetic keep the tail relative-accurate.
    """
    c = int(c)
    m_abs = np.asarray(m_abs, dtype=np.int64)
    n = m_abs.size
    total = int(m_abs.sum())
    if c > total:
        return -math.inf, 0.0
    if c <= -total:
        return 0.0, 0.0
    if c <= 0:
        # P(M >= c) = 1 - P(M <= c - 1) = 1 - P(M >= 1 - c) by symmetry of M.
        logq, err = lattice_tail(m_abs, 1 - c, trim)
        q = math.exp(logq)
        return math.log1p(-q), err * q / (1.0 - q)
    if c == total:
        return -n * math.log(2.0), 0.0  # only the all-plus pattern

    vals, cnts = _unique_counts(m_abs)
    v = vals.astype(float)
    cf = cnts.astype(float)

    def tilted_mean(theta: float) -> float:
        return float(np.sum(cf * v * np.tanh(theta * v)))

    lo, hi = 0.0, 1.0 / float(vals[-1])
    while tilted_mean(hi) < c and hi < 1e6:
        lo, hi = hi, hi * 2.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if tilted_mean(mid) < c:
            lo = mid
        else:
            hi = mid
    theta = 0.5 * (lo + hi)

    direct = _direct_cost(vals, cnts, m_abs, math.sqrt(float(np.sum(v * v * cf))))
    # the direct convolution has the tighter error bound: the FFT only when the direct one is slow
    if trim and direct > DIRECT_PREFERRED and _fft_cost(vals, cnts) < direct:
        logp, rel = _lattice_tail_fft(vals, cnts, theta, c)
        if rel <= FFT_RTOL:
            return logp, rel

    eps = TRIM_EPS if trim else 0.0
    dropped = 0.0
    taps = 0
    acc = np.ones(1)
    base = 0
    # Largest values first: the accumulator is short while the widest kernels go in.
    for j in range(vals.size - 1, -1, -1):
        val, cnt = int(vals[j]), int(cnts[j])
        x = 2.0 * theta * val
        # the binomial law of the minus signs, with the smaller of P(+), P(-) (computed without
        # cancellation) as its success probability when P(+) > 1/2
        pmf = _binom_pmf_ratio(cnt, x)[::-1]
        taps += 4 * (cnt + 1)  # the pmf recurrence: 3 roundings per step from the mode
        keep = np.flatnonzero(pmf >= eps) if eps > 0 else np.arange(cnt + 1)
        if keep.size == 0:
            keep = np.array([int(np.argmax(pmf))])
        j0, j1 = int(keep[0]), int(keep[-1])
        if eps > 0:
            dropped += float(pmf[:j0].sum() + pmf[j1 + 1 :].sum())
        acc = _sparse_convolve(acc, pmf[j0 : j1 + 1], 2 * val)
        base += val * (2 * j0 - cnt)
        if eps > 0:
            nz = np.flatnonzero(acc >= eps)
            a0, a1 = int(nz[0]), int(nz[-1])
            dropped += float(acc[:a0].sum() + acc[a1 + 1 :].sum())
            acc = acc[a0 : a1 + 1]
            base += a0

    first = max(0, c - base)
    tail = acc[first:]
    offsets = np.arange(tail.size, dtype=float) + (base + first - c)
    bracket = float(np.sum(tail * np.exp(-theta * offsets)))
    if bracket <= 0.0 or (trim and dropped > LATTICE_RTOL * bracket):
        if trim:
            return lattice_tail(m_abs, c, trim=False)
        raise ArithmeticError("lattice convolution lost the tail")  # pragma: no cover
    log_mgf = float(np.sum(cf * log_cosh(theta * v)))
    # rounding: a few ulp per pmf value and per product summed in the convolutions, and the
    # absolute error of the log-scale terms (log_mgf and theta * c cancel in part)
    ulp = np.finfo(float).eps
    rel_err = dropped / bracket + 4 * ulp * (taps + 10 * vals.size + abs(log_mgf) + theta * c + 10)
    return log_mgf - theta * c + math.log(bracket), rel_err


def lattice_pvalue(m: np.ndarray, alternative: str) -> tuple[float, float]:
    """(log p, relative error bound) of the sign-flip test for integer gaps m (non-zero)."""
    m_obs = int(m.sum())
    m_abs = np.abs(m)
    tol = int(math.floor(TIE_RTOL * max(abs(m_obs), int(m_abs.max()))))
    d = int(np.gcd.reduce(m_abs))
    m_abs = m_abs // d
    if alternative == "greater":
        c = m_obs - tol
    elif alternative == "less":
        c = -m_obs - tol
    else:
        c = abs(m_obs) - tol
        if c <= 0:
            return 0.0, 0.0
    c_red = -((-c) // d)  # ceil(c / d): M = d * M'
    logp, err = lattice_tail(m_abs, c_red)
    if alternative == "two-sided":
        logp = min(0.0, logp + math.log(2.0))
    return logp, err
