"""The gate's time rule (dsib_tools.bounds): exact p-values, bounds that contain the change, Holm,
and what the gate's sampling can and cannot flag."""

import itertools
import math
import random

from dsib_tools import bounds, compare, compare_gate

from .conftest import ROOT


def _p_by_enumeration(base, head, factor):
    """The one-sided p-value from every way of splitting the pooled, shifted samples in two."""
    shifted = [math.log(b) - math.log(factor) for b in head]
    logs = [math.log(a) for a in base]
    pooled = logs + shifted

    def at_or_below(xs, ys):
        return sum(1 for x in xs for y in ys if y <= x)

    observed = at_or_below(logs, shifted)
    count = total = 0
    for chosen in itertools.combinations(range(len(pooled)), len(shifted)):
        ys = [pooled[i] for i in chosen]
        xs = [pooled[i] for i in range(len(pooled)) if i not in chosen]
        total += 1
        count += at_or_below(xs, ys) <= observed
    return count / total


def test_the_p_value_is_the_exact_permutation_probability_in_the_slower_direction():
    rng = random.Random(7)
    for _ in range(20):
        base = [rng.lognormvariate(0, 0.1) for _ in range(5)]
        head = [rng.lognormvariate(0.2, 0.1) for _ in range(6)]
        for factor in (1.0, 1.1, 1.3):
            assert math.isclose(bounds.p_slower(base, head, factor), _p_by_enumeration(base, head, factor))
    base = [1.0, 1.01, 0.99, 1.02, 0.98]
    assert bounds.p_slower(base, [x * 2 for x in base], 1.1) < bounds.p_slower([x * 2 for x in base], base, 1.1)


def test_the_estimate_is_the_median_ratio_and_its_bounds_contain_a_known_change():
    rng = random.Random(11)
    missed = 0
    for _ in range(200):
        base = [rng.lognormvariate(0, 0.1) for _ in range(10)]
        head = [rng.lognormvariate(math.log(1.3), 0.1) for _ in range(10)]
        ratio, low, high = bounds.estimate(base, head, 0.025)
        assert low <= ratio <= high
        missed += not low <= 1.3 <= high
    # each bound fails at most 2.5 % of the time: a 95 % interval, about 10 misses in 200
    assert missed <= 20, missed
    ratio, low, high = bounds.estimate([1.0] * 3, [2.0] * 3, 0.01)
    assert ratio == 2.0 and (low, high) == (0.0, math.inf), "three a side cannot bound at 1 %"


def test_holm_steps_down_and_stops_at_the_first_p_value_it_keeps():
    pvalues = {"a": 0.001, "b": 0.012, "c": 0.02, "d": 0.04}
    # thresholds 0.05/4, 0.05/3, 0.05/2, 0.05/1: a and b pass, c (0.02 <= 0.025) passes, d (0.04 <= 0.05) too
    assert bounds.holm(pvalues) == ["a", "b", "c", "d"]
    assert bounds.holm(dict(pvalues, b=0.016)) == ["a", "b", "c", "d"]
    assert bounds.holm(dict(pvalues, b=0.0175)) == ["a"], "0.0175 > 0.05/3 stops the steps"
    assert bounds.holm({}) == []


def _timed_gate_cells():
    return [c for c in compare_gate.committed_cells(ROOT, "HEAD") if compare.sampled(c)]


def test_an_aa_comparison_of_noisy_independent_processes_flags_nothing():
    """Every timed cell of the gate, ten processes a side from the same distribution, one process
    in five 30-100 % slower (as an Arrow case's on the reference VM): twenty comparisons, no flag."""
    rng = random.Random(3)
    cells = _timed_gate_cells()

    def process():
        return rng.lognormvariate(0, 0.08) * (rng.uniform(1.3, 2.0) if rng.random() < 0.2 else 1.0)

    rounds = dict(compare.SAMPLING)["rounds"]
    for _ in range(20):
        pairs = dict((c, ([process() for _ in range(rounds)], [process() for _ in range(rounds)])) for c in cells)
        slower, faster, _ = bounds.judge(pairs, compare.FACTOR)
        assert slower == [] and faster == []


def test_the_rounds_let_the_rule_flag_a_change_that_one_unlucky_process_overlaps():
    """The first step of Holm over the gate's timed cells asks p < 2e-4: six samples a side can
    never get there, so a gate at six rounds would flag nothing whatever changed. The gate's
    rounds flag a change when one unlucky base process is within the factor of six of the head's
    processes (their ratio to it at most the factor), not of seven or more (docs/comparing.md)."""
    cells = len(_timed_gate_cells())
    sampling = dict(compare.SAMPLING)
    rounds = sampling["rounds"]
    assert sampling["repeat"] == 1, "samples of one process are not independent"
    six = [1.0 + i / 100 for i in range(6)]
    assert bounds.smallest_flagged(six, six, compare.FACTOR, cells) == math.inf
    base = [1.0 + i / 100 for i in range(rounds)]
    head = [2.0 + i / 100 for i in range(rounds)]
    base[-1] = head[5] / compare.FACTOR + 0.001  # one unlucky base process: six pairs at most the factor
    assert bounds.p_slower(base, head, compare.FACTOR) < bounds.level(cells), rounds
    base[-1] = head[6] / compare.FACTOR + 0.001  # seven
    assert bounds.p_slower(base, head, compare.FACTOR) > bounds.level(cells), "seven pairs: hidden"


def test_only_a_cell_whose_lower_bound_clears_the_factor_is_flagged():
    rng = random.Random(5)
    base = [rng.lognormvariate(0, 0.05) for _ in range(10)]
    pairs = {
        "clear": (base, [x * 1.6 for x in base[::-1]]),
        "inside": (base, [x * 1.08 for x in base[::-1]]),
        "faster": (base, [x / 1.6 for x in base[::-1]]),
    }
    slower, faster, estimates = bounds.judge(pairs, 1.10)
    assert slower == ["clear"] and faster == ["faster"]
    assert estimates["clear"][1] > 1.10 and estimates["inside"][1] < 1.10 < estimates["clear"][0]
    # the smallest slowdown flagged is a threshold: just above it the first step of Holm rejects, just below not
    least = bounds.smallest_flagged(base, base[::-1], 1.10, len(pairs))
    assert bounds.p_slower(base, [x * least * 1.001 for x in base[::-1]], 1.10) <= bounds.level(len(pairs))
    assert bounds.p_slower(base, [x * least * 0.999 for x in base[::-1]], 1.10) > bounds.level(len(pairs))
