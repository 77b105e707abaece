"""The gate's verdict on timed cells: how much slower the head is than the base, the bounds of that
slowdown, and whether its lower bound clears the factor, the error rate held over every cell of the
comparison together.

A timed cell's samples are one call a process, the processes of the two sides interleaved
(``compare.SAMPLING``), so that each sample is an independent draw. The slowdown's estimate is the
Hodges-Lehmann ratio: the median of head / base over every pair of a base and a head sample. Its
bounds invert the Mann-Whitney test (asv's own exact distribution): the true ratio is above the
``u``-th largest pair ratio with the confidence the distribution gives ``u``. A cell is slower when
that lower bound exceeds the factor (faster: the upper bound below its inverse), each direction of
each cell one hypothesis, and Holm's step-down procedure holds the chance of any false call, over all
of them, at ``ALPHA``. Ties with the factor count against a call.
"""

import collections
import functools

# The chance, over every cell of one comparison and both directions, that an unchanged cell is called.
ALPHA = 0.05

Judgement = collections.namedtuple("Judgement", "ratio low high levels verdict")
Judgement.__doc__ = """A timed cell's verdict: the Hodges-Lehmann ratio head / base; its lower bound, at
the level Holm's procedure tested the cell's slowdown, and its upper bound, at the level it tested its
speed-up (``levels``: both; a bound is None where the samples are too few for its level); and
"slower", "faster" or "same"."""

_MEMO = {}


@functools.lru_cache(maxsize=None)
def _at_least(m, n, u):
    """P(U >= u) for Mann-Whitney's U of samples of sizes ``m`` and ``n`` with no difference."""
    from asv._stats import mann_whitney_u_cdf

    if u <= 0:
        return 1.0
    if u > m * n:
        return 0.0
    return mann_whitney_u_cdf(m, n, m * n - u, _MEMO)  # U is symmetric about m * n / 2


def pair_ratios(base, head):
    """head / base of every pair of samples, ascending."""
    return sorted(h / b for b in base for h in head)


def _critical(m, n, level):
    """The fewest pairs out of ``m * n`` that must lie beyond a ratio for the bound to pass it at
    ``level``; None where even all of them would not."""
    if _at_least(m, n, m * n) > level:
        return None
    low, high = 1, m * n  # P(U >= u) falls as u grows: the first u at or below the level
    while low < high:
        middle = (low + high) // 2
        if _at_least(m, n, middle) <= level:
            high = middle
        else:
            low = middle + 1
    return low


def bounds(base, head, level):
    """(lower, upper) bound of head / base, each one-sided at ``level``; None where too few samples."""
    ratios = pair_ratios(base, head)
    u = _critical(len(base), len(head), level)
    if u is None:
        return None, None
    return ratios[len(ratios) - u], ratios[u - 1]


def p_slower(base, head, factor):
    """The chance of this many pairs beyond ``factor`` were head no more than ``factor`` slower."""
    return _at_least(len(base), len(head), sum(1 for b in base for h in head if h > factor * b))


def p_faster(base, head, factor):
    return _at_least(len(base), len(head), sum(1 for b in base for h in head if h * factor < b))


def holm(pvalues, alpha=ALPHA):
    """Holm's step-down over ``pvalues`` (key -> p): key -> (level it was tested at, called)."""
    ordered = sorted(pvalues, key=lambda key: (pvalues[key], str(key)))
    tested, calling = {}, True
    for rank, key in enumerate(ordered):
        level = alpha / (len(ordered) - rank)
        calling = calling and pvalues[key] <= level
        tested[key] = (level, calling)
        if not calling:  # the rest are tested no further: each keeps the level the procedure stopped at
            for rest in ordered[rank + 1 :]:
                tested[rest] = (level, False)
            break
    return tested


def judge(samples, factor, alpha=ALPHA):
    """``samples``: cell -> (base samples, head samples). cell -> ``Judgement``."""
    pvalues = {}
    for cell, (base, head) in samples.items():
        pvalues[cell, "slower"] = p_slower(base, head, factor)
        pvalues[cell, "faster"] = p_faster(base, head, factor)
    tested = holm(pvalues, alpha)
    judged = {}
    for cell, (base, head) in samples.items():
        ratios = pair_ratios(base, head)
        middle = len(ratios) // 2
        ratio = ratios[middle] if len(ratios) % 2 else (ratios[middle - 1] + ratios[middle]) / 2
        levels = (tested[cell, "slower"][0], tested[cell, "faster"][0])
        low, high = bounds(base, head, levels[0])[0], bounds(base, head, levels[1])[1]
        verdict = "slower" if tested[cell, "slower"][1] else "faster" if tested[cell, "faster"][1] else "same"
        judged[cell] = Judgement(ratio, low, high, levels, verdict)
    return judged


def smallest_detected(base, head, factor, level):
    """The smallest slowdown of the head that these samples would have called at ``level``: the
    factor over the lower bound of the pair ratios (a slowdown scales every one); None where the
    samples are too few."""
    low, _ = bounds(base, head, level)
    return None if low is None else factor / low
