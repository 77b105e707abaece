"""The gate's verdict on timed cells (dsib_tools.time_verdict): a slowdown is called when its lower
bound exceeds the factor, the chance of any false call held over every cell of the comparison."""

import random

import pytest

from dsib_tools import compare, time_verdict

FACTOR = compare.FACTOR


def _noisy(rng, n, spread, scale=1.0):
    """``n`` samples of a call of 10 ms: log-normal with ``spread``, about one in five 30-100 %
    slower (an Arrow case's processes on the project's 2-core VMs)."""
    samples = []
    for _ in range(n):
        x = 0.010 * scale * rng.lognormvariate(0, spread)
        samples.append(x * rng.uniform(1.3, 2.0) if rng.random() < 0.2 else x)
    return samples


def test_two_hundred_unchanged_cells_are_called_nothing_though_each_alone_would_be_called_often():
    rng = random.Random(20261127)
    samples = dict(("cell %d" % i, (_noisy(rng, 10, 0.15), _noisy(rng, 10, 0.15))) for i in range(200))
    judged = time_verdict.judge(samples, FACTOR)
    assert [c for c, j in judged.items() if j.verdict != "same"] == []
    # the same samples, each cell tested alone at 5 %: the error rate held over them all is what
    # keeps an A/A comparison clean
    alone = [
        c
        for c, (a, b) in samples.items()
        if min(time_verdict.p_slower(a, b, 1.0), time_verdict.p_faster(a, b, 1.0)) <= 0.05
    ]
    assert len(alone) >= 5, alone


def test_a_real_slowdown_among_unchanged_cells_is_called_with_bounds_around_it():
    rng = random.Random(7)
    samples = dict(("cell %d" % i, (_noisy(rng, 10, 0.05), _noisy(rng, 10, 0.05))) for i in range(100))
    samples["slower"] = (_noisy(rng, 10, 0.05), _noisy(rng, 10, 0.05, scale=3.0))
    samples["faster"] = (_noisy(rng, 10, 0.05), _noisy(rng, 10, 0.05, scale=1 / 3.0))
    judged = time_verdict.judge(samples, FACTOR)
    assert sorted(c for c, j in judged.items() if j.verdict != "same") == ["faster", "slower"]
    slower, faster = judged["slower"], judged["faster"]
    assert slower.verdict == "slower" and FACTOR < slower.low < slower.ratio < slower.high
    assert faster.verdict == "faster" and faster.low < faster.ratio < faster.high < 1 / FACTOR
    assert 2.0 < slower.ratio < 4.5 and 1 / 4.5 < faster.ratio < 0.5


def test_a_cell_is_called_exactly_when_its_bound_clears_the_factor():
    rng = random.Random(3)
    samples = {}
    for i in range(300):
        scale = rng.choice([1.0, 1.05, 1.15, 1.3, 1.6, 1 / 1.3, 1 / 1.6])
        samples["cell %d" % i] = (_noisy(rng, 10, 0.1), _noisy(rng, 10, 0.1, scale))
    judged = time_verdict.judge(samples, FACTOR)
    assert {j.verdict for j in judged.values()} == {"same", "slower", "faster"}
    for cell, j in judged.items():
        assert (j.verdict == "slower") == (j.low > FACTOR), (cell, j)
        assert (j.verdict == "faster") == (j.high < 1 / FACTOR), (cell, j)


def test_the_bounds_are_order_statistics_of_the_pair_ratios():
    base = [1.0 + i / 100 for i in range(10)]
    head = [2.0 + i / 50 for i in range(10)]
    ratios = time_verdict.pair_ratios(base, head)
    assert len(ratios) == 100 and ratios == sorted(ratios)
    # 10 against 10: P(U >= 96) = 12 / 184756 <= 1e-4 < P(U >= 95) = 19 / 184756
    assert time_verdict._at_least(10, 10, 96) == pytest.approx(12 / 184756)
    assert time_verdict._at_least(10, 10, 95) == pytest.approx(19 / 184756)
    low, high = time_verdict.bounds(base, head, 1e-4)
    assert (low, high) == (ratios[4], ratios[95])
    assert time_verdict.bounds(base[:2], head[:2], 0.01) == (None, None), "4 orderings: no bound at 1 %"


def test_ties_with_the_factor_count_against_a_call():
    base = [1.0] * 10
    head = [FACTOR] * 10
    assert time_verdict.p_slower(base, head, FACTOR) == 1.0
    assert time_verdict.judge({"tied": (base, head)}, FACTOR)["tied"].verdict == "same"


def test_holm_steps_down_where_bonferroni_would_stop():
    tested = time_verdict.holm({"a": 0.02, "b": 0.03}, alpha=0.05)
    assert tested == {"a": (0.025, True), "b": (0.05, True)}, "Bonferroni (0.025 each) would call a only"
    tested = time_verdict.holm({"a": 0.01, "b": 0.04, "c": 0.03, "d": 0.2}, alpha=0.05)
    assert tested["a"] == (0.0125, True) and not any(tested[k][1] for k in "bcd")
    assert tested["c"] == (0.05 / 3, False) and tested["b"] == tested["d"] == (0.05 / 3, False)


def test_the_smallest_slowdown_called_is_the_factor_over_the_lower_bound():
    rng = random.Random(11)
    base, head = _noisy(rng, 10, 0.1), _noisy(rng, 10, 0.1)
    level = time_verdict.ALPHA / 200
    least = time_verdict.smallest_detected(base, head, FACTOR, level)
    assert least > FACTOR
    assert time_verdict.p_slower(base, [x * least * 1.001 for x in head], FACTOR) <= level
    assert time_verdict.p_slower(base, [x * least * 0.999 for x in head], FACTOR) > level


def test_the_gates_sampling_can_call_a_cell_of_the_gate_with_one_unlucky_process():
    """Ten one-call samples a side (compare.SAMPLING): at the strictest level of a comparison of
    every timed cell of the gate, both ways, a cell is called with five of its 100 pairs out of
    order, so one base process slower than half the head's does not hide a change."""
    sampling = dict(compare.SAMPLING)
    rounds = sampling["rounds"]
    assert sampling["repeat"] == 1, "samples of one process are not independent"
    from dsib_tools import compare_gate

    timed = [c for c in compare_gate.gate_cells() if compare.sampled(c)]
    level = time_verdict.ALPHA / (2 * len(timed))
    base = [1.0] * rounds
    head = [2.0 + i / 100 for i in range(rounds)]
    base[-1] = (head[4] + head[5]) / 2 / FACTOR  # slower than half the head's, beyond the factor
    assert time_verdict.p_slower(base, head, FACTOR) <= level, (len(timed), level)
