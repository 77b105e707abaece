"""``python -m dsib_tools compare versions``: asv's compare table between two environments, through the CLI."""

import json
import re
import subprocess
import sys

import pytest

from .conftest import ROOT
from .results_copy import MACHINE, copy_results, current_benchmarks, current_keys, pose_as, reference_file

POSED = "pyarrow=9999.0.0"  # no real release: the filter can only select the posed copy


def _compare(results_dir, *args):
    return subprocess.run(
        [sys.executable, "-m", "dsib_tools", "compare", "versions", "--results-dir", results_dir, "--machine", MACHINE]
        + list(args),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )


def _filter(d):
    """A filter that selects exactly the reference file's environment: all its versions."""
    keys = ("python", "pyarrow", "pandas", "numpy", "fastparquet", "tables", "msgpack")
    return ",".join("%s=%s" % (k, d["params"][k]) for k in keys if d["params"].get(k))


def _ratio(cell):
    # tabulate prints a column of numbers as numbers ("2"), one with "n/a" or "~" as text ("2.00")
    return cell if cell == "n/a" or cell.startswith("~") else "%.2f" % float(cell)


def _rows(stdout):
    """{benchmark(params): (mark, ratio as "%.2f")} from the table asv prints."""
    rows = {}
    for line in stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[4] and not cells[4].startswith(("Benchmark", "-")):
            rows[cells[4]] = (cells[0], _ratio(cells[3]))
    return rows


def _decidable(row, columns):
    """Whether asv can call a 2x change significant in every measured case of a result row.

    Result files store no samples here, so asv falls back to its 99% confidence intervals: a
    change counts once the intervals stop overlapping, or always where there is one repeat."""

    def column(name):
        i = columns.index(name)
        return row[i] if i < len(row) and row[i] is not None else [None] * len(row[0])

    for value, low, high, repeat in zip(
        row[0], column("stats_ci_99_a"), column("stats_ci_99_b"), column("stats_repeat")
    ):
        if value is not None and value == value and repeat not in (None, 1) and not high < 2 * low:
            return False
    return True


@pytest.fixture
def posed(tmp_path):
    """results/ plus the reference file posing as another pyarrow, one benchmark twice as slow."""
    results_dir = copy_results(tmp_path)
    reference = reference_file(results_dir)
    with open(reference) as f:
        d = json.load(f)
    benchmarks = current_benchmarks(results_dir)
    clear = [k for k in current_keys(d, benchmarks) if _decidable(d["results"][k], d["result_columns"])]
    assert clear, "the reference file has no benchmark at benchmarks.json's versions with a decidable 2x"
    # A timing if one is clear, the post's read first.
    slower = sorted(clear, key=lambda k: (k != "file_formats.Read.time_read", benchmarks[k]["unit"] != "seconds"))[0]
    pose_as(reference, results_dir, scale={slower: 2.0}, pyarrow="9999.0.0")
    return results_dir, _filter(d), slower


def test_a_twice_slower_benchmark_is_marked_slower_with_ratio_2(posed):
    results_dir, reference, slower = posed
    out = _compare(results_dir, reference, POSED)
    assert out.returncode == 0, out.stderr
    rows = _rows(out.stdout)
    assert rows, out.stdout
    scaled = dict((name, row) for name, row in rows.items() if name.split("(")[0] == slower)
    measured = dict((name, row) for name, row in scaled.items() if row[1] != "n/a")
    assert measured, out.stdout
    for name, (mark, ratio) in measured.items():
        assert (mark, ratio) == ("+", "2.00"), name
    for name, (mark, ratio) in rows.items():
        if name not in scaled:
            assert (mark, ratio) in ((" ", "1.00"), ("", "1.00"), ("", "n/a")), name
    only = _rows(_compare(results_dir, reference, POSED, "--only-changed").stdout)
    assert set(only) == set(measured)
    counts = [
        line.split(": ", 1)[1]
        for line in out.stdout.splitlines()
        if line.startswith(("before: ", "after: ")) and "figures of" in line
    ]
    assert len(counts) == 2 and counts[0] == counts[1], "the posed copy has the reference's samples: %s" % counts
    assert re.match(r"\d+ figures of \d+(–\d+)? samples each \(± is half their interquartile range\)", counts[0])


def test_the_reverse_direction_is_faster(posed):
    results_dir, reference, slower = posed
    rows = _rows(_compare(results_dir, POSED, reference, "--only-changed").stdout)
    assert rows and all(row == ("-", "0.50") for row in rows.values())


@pytest.mark.parametrize(
    "selection, message",
    [
        ("pyarrow=0.0.1", "selects no environment; the candidates are"),
        ("DSIB_PROFILE=default", "is ambiguous"),
        ("pyarrow", "is not a key=value"),
    ],
)
def test_an_empty_or_ambiguous_selection_lists_the_candidates(posed, selection, message):
    results_dir, reference, _ = posed
    out = _compare(results_dir, selection, POSED)
    assert out.returncode != 0 and message in out.stderr, out.stderr
    if "pyarrow=" in selection or "DSIB_PROFILE" in selection:
        assert "pyarrow=26.0.1" in out.stderr and "pyarrow=9999.0.0" in out.stderr


def test_text_variants_across_pandas_3_are_said_to_compare_two_different_frames():
    """The committed matrix holds pandas 0.23.4 to 3.1.1: comparing across pandas 3 says the str and
    cat frames differ in kind; comparing two pyarrow releases on one pandas says nothing."""
    from .results_copy import RESULTS

    across = _compare(RESULTS, "pandas=2.2.3", "pandas=3.1.1")
    assert across.returncode == 0, across.stderr
    assert (
        "not like with like: the str and cat variants' text: Python objects → Arrow-backed str "
        "(pandas 2.2.3 → 3.1.1)" in across.stdout
    )
    alike = _compare(RESULTS, "pyarrow=0.11.1", "pyarrow=0.15.1")
    assert alike.returncode == 0 and "not like with like" not in alike.stdout, alike.stderr


def test_the_text_kind_rule_is_what_this_pandas_builds(tiny_data_dir):
    """The rule the reports apply to every environment's pins, against the frame data_prep builds here."""
    import pandas as pd
    import pyarrow as pa

    from data_prep import load_frame
    from dsib_tools.chains import text_kind

    frame = load_frame("tiny", "str", data_dir=tiny_data_dir, rows=10)
    text = [c for c in frame.columns if frame[c].dtype.kind not in "biufcmM"]
    assert text, frame.dtypes
    kind = text_kind({"pandas": pd.__version__, "pyarrow": pa.__version__})
    for column in text:
        dtype = frame[column].dtype
        built = (
            ("Arrow-backed str" if getattr(dtype, "storage", None) == "pyarrow" else "Python-backed str")
            if isinstance(dtype, pd.StringDtype)
            else "Python objects"
            if dtype == object  # noqa: E721 (a numpy dtype equals the type object)
            else str(dtype)
        )
        assert built == kind, (column, dtype)
    assert text_kind({"pandas": "2.2.3", "pyarrow": "17.0.0"}) == "Python objects"


def test_two_neighbours_of_the_chains_get_the_step_callers_verdict_and_others_are_credited_to_no_library():
    """compare versions reads the same steps as the release view: between neighbours of the chains,
    the steps the step caller calls (dsib_tools.steps); between any other pair, that no change is
    one library's."""
    import os

    from dsib_tools import steps

    from .results_copy import RESULTS as results

    out = _compare(results, "pyarrow=0.11.1", "pyarrow=0.15.1")
    assert out.returncode == 0, out.stderr
    judged, _, _ = steps.judge_results(results, MACHINE, os.path.join(ROOT, "asv.conf.json"))
    (pair,) = [j for j in judged if j.label == "pyarrow 0.11.1 → 0.15.1 at pandas 0.23.4, Python 3.7"]
    said = [line[2:] for line in out.stdout.splitlines() if line.startswith("- ")]
    assert said == [steps.describe_call(pair, c) for c in pair.cells.values() if c.way] and said
    assert "A step of the chains: %s (in chain order)" % pair.label in out.stdout
    apart = _compare(results, "pyarrow=0.11.1", "pandas=1.3.5")
    assert apart.returncode == 0, apart.stderr
    assert "Not neighbours in the chains of asv.conf.json" in apart.stdout and "pyarrow 0.11.1 → 10.0.1" in apart.stdout
