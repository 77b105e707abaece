"""The step caller: a change is called at a step only where it beats both its samples' spread and
the environments' own noise, measured on the cells the step's library does not touch."""

import math
import random

from dsib_tools import chains, steps


def _env(**req):
    pins = dict({"numpy": "1.23.5", "pandas": "2.2.3", "pyarrow": "14.0.2"}, **req)
    return {"python": "3.11", "req": pins}


# A pyarrow step, then a pandas step: pyarrow 14.0.2 → 17.0.0, then pandas 2.2.3 → 2.3.3.
ENTRIES = [_env(), _env(pyarrow="17.0.0"), _env(pyarrow="17.0.0", pandas="2.3.3")]
CONTROLS = ["csv-%d" % i for i in range(40)]  # formats without pyarrow (CSV, pickle, JSON, HDF5)
ARROW = ["parquet-%d" % i for i in range(20)]


def _touches(cell, library, pins):
    return library == "pandas" or cell.startswith("parquet")


def _samples(env_noise, arrow_change, seed=7, spread=0.02, per_env=6, arrow_noise=(1.0, 1.0), envs=3):
    """Six samples a cell an environment (two processes of three), a level of 5-50 ms each; each
    environment moves each control cell by a factor drawn from ``env_noise`` (its own noise), and
    each pyarrow cell by a factor drawn from ``arrow_noise``, times ``arrow_change`` after the
    first environment."""
    rng = random.Random(seed)
    found = {}
    for cell in CONTROLS + ARROW:
        level = rng.uniform(0.005, 0.05)
        per = []
        for index in range(envs):
            factor = rng.uniform(*env_noise)
            if cell in ARROW:
                factor = (arrow_change if index else 1.0) * rng.uniform(*arrow_noise)
            per.append([level * factor * rng.lognormvariate(0, spread) for _ in range(per_env)])
        found[cell] = per
    return found


def test_a_change_smaller_than_the_control_cells_spread_is_no_step():
    # the environments move the control cells by up to ±8 %, the pyarrow cells by 0-6 %
    samples = _samples(env_noise=(0.92, 1.08), arrow_change=1.03, arrow_noise=(0.97, 1.03), envs=2)
    judged = steps.judge(ENTRIES[:2], samples, _touches)
    assert steps.called(judged) == []
    pyarrow_step = judged[0]
    assert pyarrow_step.step.library == "pyarrow" and pyarrow_step.band.source == "own"
    assert pyarrow_step.band.controls == len(CONTROLS)
    assert pyarrow_step.band.low < 0.95 and pyarrow_step.band.high > 1.05
    # the samples alone would have called many of them: the band is what holds them back
    tight = [c for c in pyarrow_step.cells.values() if c.cell in ARROW and (c.low > 1 or c.high < 1)]
    assert tight


def test_a_1_5x_change_of_one_librarys_cells_with_flat_controls_is_exactly_that_step_named():
    samples = _samples(env_noise=(1.0, 1.0), arrow_change=1.5)
    judged = steps.judge(ENTRIES, samples, _touches)
    found = steps.called(judged)
    assert sorted(c.cell for _, c in found) == sorted(ARROW)
    assert set(j.label for j, _ in found) == {"pyarrow 14.0.2 → 17.0.0 at pandas 2.2.3, Python 3.11"}
    assert set(j.step.library for j, _ in found) == {"pyarrow"}
    for judged_step, call in found:
        assert call.way == "slower" and 1.4 < call.ratio < 1.6 and call.low > judged_step.band.high
    # the pandas step touches every cell: no control of its own, the pooled band of the chains'
    assert judged[1].step.library == "pandas" and judged[1].band.source == "pooled" and not judged[1].cells["csv-0"].way
    text = steps.describe_call(*found[0])
    assert text.startswith("pyarrow 14.0.2 → 17.0.0 at pandas 2.2.3, Python 3.11: parquet-") and "x slower (" in text


def test_a_faster_step_and_a_link_are_judged_and_a_link_names_no_library():
    entries = ENTRIES + [dict(ENTRIES[-1], python="3.12")]
    link = chains.Link("Python 3.12", {"python": ("3.11", "3.12")})
    rng = random.Random(3)
    samples = dict(
        (cell, [[0.01 * f * rng.lognormvariate(0, 0.01) for _ in range(6)] for f in (1.0, 1.0, 1.0, 0.5)])
        for cell in CONTROLS + ARROW
    )
    judged = steps.judge(entries, samples, _touches, links=(link,))
    found = steps.called(judged)
    assert set(j.label for j, _ in found) == {"link: Python 3.12, at pyarrow 17.0.0, pandas 2.3.3"}
    assert all(c.way == "faster" and j.step.library is None for j, c in found) and len(found) == 60
    assert 1.9 < 1 / found[0][1].ratio < 2.1 and "x faster (" in steps.describe_call(*found[0])


# Six pyarrow steps, then a pandas step: the CSV and pickle cells are controls at six steps.
HISTORY = [_env(pyarrow=v) for v in ("14.0.2", "15.0.2", "16.1.0", "17.0.0", "18.1.0", "19.0.1", "20.0.0")]
HISTORY.append(_env(pyarrow="20.0.0", pandas="2.3.3"))
FAMILIES = ["%s-%d" % (f, i) for f in ("csv", "pickle", "parquet") for i in range(10)]


def _family(cell):
    return cell.split("-")[0]


def _history(pandas_change, anomaly=None, env_noise=(1.0, 1.0), seed=11):
    """Six samples a cell of FAMILIES in each of HISTORY's environments, each environment moving
    each cell by a factor drawn from ``env_noise``, every cell by ``pandas_change`` at the pandas
    step, and ``anomaly``: (cell, environment, factor), one environment that moves one cell alone."""
    rng = random.Random(seed)
    found = {}
    for cell in FAMILIES:
        level = rng.uniform(0.005, 0.05)
        per = []
        for index in range(len(HISTORY)):
            factor = rng.uniform(*env_noise) * (pandas_change if index == len(HISTORY) - 1 else 1.0)
            if anomaly and anomaly[:2] == (cell, index):
                factor *= anomaly[2]
            per.append([level * factor * rng.lognormvariate(0, 0.01) for _ in range(6)])
        found[cell] = per
    return found


def test_a_pandas_step_judges_each_cell_against_its_formats_noise_at_the_other_steps():
    # pickle-0's fourth environment reads it 3x faster: the steps into and out of it move it alone
    samples = _history(pandas_change=1.5, anomaly=("pickle-0", 3, 1 / 3.0))
    judged = steps.judge(HISTORY, samples, _touches, family=_family)
    pandas_step = judged[-1]
    assert pandas_step.step.library == "pandas" and pandas_step.band.source == "pooled"
    # pooled, pickle-0's 3x would hide every cell's 1.5x: CSV is judged on CSV's noise
    assert pandas_step.band.low < 1 / 2.5 and pandas_step.band.high > 2.5
    csv = [c for c in pandas_step.cells.values() if c.cell.startswith("csv")]
    assert all(c.band.source == "format" and c.band.controls == 10 * 6 for c in csv)
    assert all(c.way == "slower" and 1.4 < c.ratio < 1.6 for c in csv)
    assert "the format's, 60 control ratios" in steps.describe_call(pandas_step, csv[0])
    # pickle moved 3x at the steps around its odd environment, either way: its 1.5x is within
    pickle = [c for c in pandas_step.cells.values() if c.cell.startswith("pickle")]
    assert all(c.band.low < 0.35 and c.band.high > 2.9 and c.way is None for c in pickle)
    # the parquet cells were never a control (every step here touches them): the pooled band
    assert pandas_step.cells["parquet-0"].band.source == "pooled" and not pandas_step.cells["parquet-0"].way
    # the pyarrow steps keep their own band, whichever cell moved
    assert all(j.band.source == "own" and all(c.band is j.band for c in j.cells.values()) for j in judged[:-1])


def test_a_format_band_seldom_calls_a_step_where_the_environments_alone_move_the_cells():
    # every environment moves every cell by up to ±8 %, and the pandas step changes nothing: of the
    # 800 CSV and pickle cells judged there, the format's band calls 2 (its 60 ratios' range is
    # passed by chance about once in 61, and a call needs the whole interval beyond it); a cell's
    # own six control ratios would be a narrower band, and call 67
    judgments = called = own = 0
    for seed in range(40):
        samples = _history(pandas_change=1.0, env_noise=(0.92, 1.08), seed=seed)
        judged = steps.judge(HISTORY, samples, _touches, family=_family)
        for cell, call in judged[-1].cells.items():
            if not cell.startswith("parquet"):
                judgments += 1
                called += call.way is not None
                band = steps.reach_band([j.cells[cell].ratio for j in judged[:-1]], "format")
                own += call.low > band.high or call.high < band.low
    assert judgments == 800 and called <= judgments // 100 and own >= 10 * max(called, 1)


def test_a_format_with_fewer_control_ratios_than_the_minimum_takes_the_pooled_band():
    short = HISTORY[-3:]  # two pyarrow steps and the pandas step: 10 ratios a format
    samples = dict((c, per[-3:]) for c, per in _history(pandas_change=1.5).items())
    judged = steps.judge(short, samples, _touches, family=_family)
    assert judged[-1].cells["csv-1"].band.source == "pooled"


def test_a_cells_noise_is_shared_with_its_formats_cells_that_measure_the_same():
    time = "reads.ReadFromPageCache.time_read('rocklin', 'csv', 'str')"
    memory = "writes.WriteToBytes.peakmem_write('rocklin', 'csv', 'str')"
    count = "instructions.ReadFromPageCache.track_read('nyc_taxi', 'csv', 'cat')"
    assert steps.family_of(time, {"format": "csv"}) == steps.family_of("writes.X.time_write()", {"format": "csv"})
    assert steps.family_of(memory, {"format": "csv"}) == ("peakmem", "csv")
    assert steps.family_of(count, {"format": "csv"}) == ("instructions", "csv")
    assert steps.family_of(time, {"format": "pickle-2"}) != steps.family_of(time, {"format": "csv"})
    assert steps.family_of("sizes.Sizes.track_data_bytes('nyc_taxi')", {"source": "nyc_taxi"}).startswith("sizes.")


def test_a_cell_with_too_few_samples_on_either_side_is_not_judged():
    samples = _samples(env_noise=(1.0, 1.0), arrow_change=1.5)
    samples["parquet-0"][1] = [0.01]
    samples["parquet-1"][0] = None
    judged = steps.judge(ENTRIES, samples, _touches)
    assert "parquet-0" not in judged[0].cells and "parquet-1" not in judged[0].cells
    assert "parquet-2" in judged[0].cells


def test_what_a_cell_touches_follows_its_formats_libraries():
    at_2 = {"pandas": "2.2.3", "pyarrow": "17.0.0"}
    at_3 = {"pandas": "3.1.1", "pyarrow": "26.0.1"}
    assert steps.touches({"format": "parquet", "variant": "plain"}, "pyarrow", at_2)
    assert not steps.touches({"format": "csv", "variant": "str"}, "pyarrow", at_2)
    assert not steps.touches({"format": "pickle-2", "variant": "plain"}, "msgpack", at_2)
    assert steps.touches({"format": "msgpack", "variant": "plain"}, "msgpack", at_2)
    # pandas 3 keeps the str frame's text in pyarrow's arrays: every format's text touches pyarrow
    assert steps.touches({"format": "csv", "variant": "str"}, "pyarrow", at_3)
    assert not steps.touches({"format": "csv", "variant": "plain"}, "pyarrow", at_3)
    assert steps.touches({"source": "nyc_taxi"}, "pyarrow", at_2)  # no format: not a control


def test_the_published_history_s_steps_are_judged_along_the_curated_chains():
    """The committed results of the reference machine, read through the one loader: the pairs of
    neighbours of asv.conf.json that both ran are judged, their control cells are the formats
    without the step's library, and every call names its step."""
    import os
    import subprocess
    import sys

    from dsib_tools import matrix
    from dsib_tools.publish import REFERENCE_MACHINE

    from .conftest import ROOT, committed

    config = os.path.join(ROOT, matrix.CURATED_CONFIG)
    judged, ran, _ = steps.judge_results(str(committed("results")), REFERENCE_MACHINE, config)
    pairs = [j for j in judged if j.step.before in ran and j.step.after in ran]
    assert pairs, "the history holds two neighbours of the chains"
    for j in pairs:
        assert j.cells and j.band is not None
        if j.step.library == "pyarrow":
            assert j.band.source == "own" and j.band.controls >= steps.MIN_CONTROLS
    for j, call in steps.called(pairs):
        assert call.way in ("slower", "faster") and (call.low > call.band.high or call.high < call.band.low)
        assert call.band is j.band or (j.band.source == "pooled" and call.band.source == "format")
    out = subprocess.run(
        [sys.executable, "-m", "dsib_tools", "table", "steps", "--machine", REFERENCE_MACHINE],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        universal_newlines=True,
        check=True,
    ).stdout
    assert "%d of their %d pairs of neighbours ran both" % (len(pairs), len(judged)) in out
    rows = [line for line in out.splitlines() if line.startswith("| ") and not line.startswith("| step ")]
    assert len(rows) == len(steps.called(pairs))


def test_the_whole_range_of_the_controls_calls_no_step_where_the_central_95_percent_would(monkeypatch):
    """60 simulated steps whose pyarrow cells move less than the controls spread: the band of the
    controls' whole range calls none; the central 95 % calls about one in six (docs/release-view.md)."""

    def steps_with_a_call(band):
        monkeypatch.setattr(steps, "BAND", band)
        found = 0
        for seed in range(1, 61):
            samples = _samples(env_noise=(0.92, 1.08), arrow_change=1.03, arrow_noise=(0.97, 1.03), envs=2, seed=seed)
            found += bool(steps.called(steps.judge(ENTRIES[:2], samples, _touches)))
        return found

    assert steps_with_a_call((0.0, 1.0)) == 0
    assert 5 <= steps_with_a_call((0.025, 0.975)) <= 15


def test_two_processes_counts_are_judged_by_the_range_of_their_ratios():
    """Two counts a cell an environment (one a process, 0.2 % apart): too few for Mann-Whitney's
    interval at the cell's level, so the interval is the range of the four ratios; a 1.38x change
    of the pyarrow cells' instructions, the controls' within 0.5 %, is called, and nothing else."""
    rng = random.Random(11)
    samples = {}
    for cell in ["instructions." + c for c in CONTROLS + ARROW]:
        level = rng.uniform(1e8, 1e9)
        per = []
        for index in range(2):
            factor = 1.38 if "parquet" in cell and index else rng.uniform(0.995, 1.005)
            per.append([level * factor * rng.uniform(0.999, 1.001) for _ in range(2)])
        samples[cell] = per
    (judged,) = steps.judge(ENTRIES[:2], samples, lambda cell, lib, pins: "parquet" in cell)
    found = steps.called([judged])
    assert sorted(c.cell for _, c in found) == sorted("instructions." + c for c in ARROW)
    for _, call in found:
        assert call.way == "slower" and 1.37 < call.low <= call.ratio <= call.high < 1.40
    # two samples of a time are too few for an interval: no step, whatever the ratio
    times = dict((cell[len("instructions.") :], per) for cell, per in samples.items())
    (judged,) = steps.judge(ENTRIES[:2], times, _touches)
    assert not steps.called([judged]) and all(math.isinf(c.high) for c in judged.cells.values())
