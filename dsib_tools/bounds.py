"""How much slower, and how sure: the gate's verdict on its timed cells.

Each side of a timed cell is a handful of samples, one call in each of its own processes. The
change is the ratio head / base, estimated as Hodges and Lehmann do: the median of the ratios of
every head sample to every base sample. Its confidence bounds invert the Mann-Whitney test: the
bound at a level is the order statistic of those ratios beyond which the test would reject, so it
assumes nothing of the samples' distribution, only that the processes are independent.

A cell is flagged slower when the test of "the ratio is at most the factor" rejects, faster when
the test of "the ratio is at least 1 / factor" rejects. Holm's step-down procedure holds the chance
of any false flag, over every timed cell and both directions of one comparison, at ``ALPHA``: a
comparison whose every cell moved by less than the factor flags nothing, save with probability
``ALPHA`` (that its processes are independent being the one assumption). A real change must
therefore stand clear of the factor by the samples' spread; ``smallest_flagged`` says by how much.

The exact distribution of Mann-Whitney's U is asv's (``asv._stats``; asv is pinned), the
distribution asv's own rule uses.
"""

import functools
import math
import statistics

from asv._stats import mann_whitney_u_cdf

ALPHA = 0.05


def _log_ratios(base, head):
    """log(head / base) of every pair of samples, ascending."""
    return sorted(math.log(b) - math.log(a) for a in base for b in head)


@functools.lru_cache(maxsize=None)
def _cdf(m, n, u):
    return mann_whitney_u_cdf(m, n, u, _COUNTS) if u >= 0 else 0.0


_COUNTS = {}  # asv's memo of the numbers of orderings, kept across calls


def p_slower(base, head, factor):
    """The exact one-sided p-value of "head / base is at most ``factor``" against "it is more":
    how often so few of the pairs' ratios would be at or below the factor if the true ratio were
    the factor. A pair exactly at the factor counts against the change."""
    limit = math.log(factor)
    at_or_below = sum(1 for r in _log_ratios(base, head) if r <= limit)
    return _cdf(len(base), len(head), at_or_below)


@functools.lru_cache(maxsize=None)
def _rank(m, n, level):
    """The largest k whose P(U <= k) is at most ``level``; -1 where even U = 0 is likelier."""
    k = -1
    while k + 1 < m * n and _cdf(m, n, k + 1) <= level:
        k += 1
    return k


def estimate(base, head, level):
    """(ratio, low, high): the Hodges-Lehmann ratio head / base and its lower and upper bounds,
    each one-sided at ``level``; 0 and infinity where the samples are too few for that level."""
    ratios = _log_ratios(base, head)
    k = _rank(len(base), len(head), level)
    low, high = (math.exp(ratios[k]), math.exp(ratios[-1 - k])) if k >= 0 else (0.0, math.inf)
    return math.exp(statistics.median(ratios)), low, high


def holm(pvalues, alpha=ALPHA):
    """The keys of ``pvalues`` that Holm's step-down procedure rejects at family-wise error ``alpha``."""
    ordered = sorted(pvalues.items(), key=lambda item: item[1])
    rejected = []
    for i, (key, p) in enumerate(ordered):
        if p > alpha / (len(ordered) - i):
            break
        rejected.append(key)
    return rejected


def level(cells, alpha=ALPHA):
    """The one-sided level of each bound shown for ``cells`` timed cells: Holm's first step over both
    directions of each (Bonferroni's), so that the bounds of a comparison hold together."""
    return alpha / (2 * max(cells, 1))


def judge(pairs, factor, alpha=ALPHA):
    """``pairs``: cell -> (base samples, head samples). Returns (slower, faster, estimates): the
    cells flagged each way, sorted, and each cell's (ratio, low, high) at ``level``."""
    pvalues = {}
    for name, (base, head) in pairs.items():
        pvalues[(name, "slower")] = p_slower(base, head, factor)
        pvalues[(name, "faster")] = p_slower(head, base, factor)
    flagged = holm(pvalues, alpha)
    shown = level(len(pairs), alpha)
    estimates = dict((name, estimate(base, head, shown)) for name, (base, head) in pairs.items())
    return (
        sorted(name for name, way in flagged if way == "slower"),
        sorted(name for name, way in flagged if way == "faster"),
        estimates,
    )


def smallest_flagged(base, head, factor, cells, alpha=ALPHA):
    """The smallest slowdown of ``head`` that the gate flags in a comparison of ``cells`` timed cells
    with no other change (Holm's first step): every head sample multiplied by it, the lower bound
    of the ratio clears the factor. Infinite where the samples are too few to flag anything."""
    _, low, _ = estimate(base, head, level(cells, alpha))
    return factor / low if low > 0 else math.inf
