"""The instruction counts beside the timed cases (benchmarks.instructions): one counting class a
timed class, which counts exactly what the timed methods call and nothing else of the class, and
skips in its setup, before anything is loaded, where the machine has no counter.

Where this machine exposes a PMU, the counts are taken for real; where it does not (a VM without
one), the count tests skip with dsib.counters' own reason, and the skip tests run.
"""

import inspect

import pytest

import benchmarks
from benchmarks import instructions, reads, writes
from dsib import counters
from dsib.cells import Cells
from dsib_tools import compare, matrix, suite


@pytest.fixture
def tiny_run(tiny_data_dir, tmp_path, monkeypatch):
    monkeypatch.setattr(benchmarks, "DATA_DIR", tiny_data_dir)
    cells = Cells("tiny", tiny_data_dir, str(tmp_path / "cache"))
    for module in (benchmarks, reads, writes):
        monkeypatch.setattr(module, "CELLS", cells)
    monkeypatch.chdir(tmp_path)
    return cells


def _counting_classes():
    return [
        cls for _, cls in inspect.getmembers(instructions, inspect.isclass) if cls.__module__ == instructions.__name__
    ]


def test_each_counting_class_counts_its_timed_methods_and_shows_nothing_else():
    found = _counting_classes()
    assert found and all(suite.counted(cls.__bases__[0]) is cls for cls in found)
    for cls in found:
        timed = cls.__bases__[0]
        assert suite.methods(cls) == sorted(
            suite.counted_method(m) for m in suite.methods(timed) if suite.counted_method(m)
        ), cls
        assert all(getattr(cls, m).unit == "instructions" for m in suite.methods(cls))
    names = [cls.__name__ for cls in found]
    assert "ReadCold" not in names and "WriteDurable" not in names, "the device's cases are not counted"
    assert not [c for c in suite.classes() if c.__module__.endswith(".engines") and suite.counted(c)]


def test_without_counters_a_count_skips_in_setup_with_the_reason_and_loads_nothing(monkeypatch, tmp_path):
    monkeypatch.setenv("DSIB_COUNTERS", "off")
    # a data directory that does not exist: a setup that loaded anything would fail otherwise
    monkeypatch.setattr(benchmarks, "DATA_DIR", str(tmp_path / "absent"))
    for cls in _counting_classes():
        case = cls()
        params = [p[0] for p in cls.params] if getattr(cls, "params", None) else []
        with pytest.raises(NotImplementedError, match="^counters switched off by DSIB_COUNTERS=off$"):
            case.setup(*params)


@pytest.mark.skipif(counters.available() is not None, reason=str(counters.available()))
def test_a_count_is_a_positive_number_the_same_call_after_call(tiny_run):
    case = instructions.ReadFromBytes()
    counts = {}
    for source in ("nyc_taxi_month",):
        case.setup(source, "parquet", "plain")
        counts[source] = [case.track_read(source, "parquet", "plain") for _ in range(3)]
    for values in counts.values():
        assert all(isinstance(v, int) and v > 0 for v in values)
        assert max(values) / min(values) < 1.05, counts


def test_the_gate_and_the_release_selection_count_every_timed_cell_they_time():
    from dsib_tools.compare_gate import BENCHMARKS, counted_patterns, gate_cells

    timed = [c for c in gate_cells() if ".time_" in c]
    assert not [c for c in gate_cells() if c.startswith("instructions.")], "the gate's list holds the times"
    counted = gate_cells(BENCHMARKS + counted_patterns(BENCHMARKS))
    for cell in timed:
        twin = compare.counted_twin(cell)
        if getattr(instructions, cell.split(".")[1], None) is not None and "ReadCold" not in cell:
            assert twin in counted or "WriteDurable" in cell, cell
    cell = "instructions.ReadFromBytes.track_read"
    assert matrix.in_release(cell, ["nyc_taxi_month", "parquet", "str"])
    assert not matrix.in_release(cell, ["nyc_taxi", "orc", "str"]), "as its timed twin: not in the release selection"


def test_the_gate_says_it_judges_by_time_only_where_nothing_counts(monkeypatch):
    from dsib_tools import compare

    monkeypatch.setenv("DSIB_COUNTERS", "off")
    assert compare.counting() == "time only (counters switched off by DSIB_COUNTERS=off)"
    verdict = {"worse": [], "better": [], "failed": [], "compared": [], "dropped": []}
    said = compare.summary_markdown("", verdict, "a" * 40, "b" * 40, compare.FACTOR)
    assert "Judged by: time only (counters switched off by DSIB_COUNTERS=off)." in said
    count = "instructions.ReadFromBytes.track_read('nyc_taxi_month', 'csv', 'plain')"
    assert compare.counts_instructions(count) and not compare.counts_instructions(
        count.replace("instructions.", "reads.")
    )
    assert compare.threshold(count) == compare.INSTRUCTIONS_FACTOR <= 1.02
    monkeypatch.delenv("DSIB_COUNTERS")
    assert compare.counting() == (
        "instructions and time" if counters.available() is None else "time only (%s)" % counters.available()
    )
