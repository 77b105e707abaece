"""The reads real work needs (benchmarks/batches.py): every format's projection and batch reader
gives back its part of the frame on real files, the checks that say so can fail, and a batch
pass holds one batch, not the file (peak RSS of real processes; memory, not time)."""

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from data_prep import DATASETS, VARIANTS, load_frame, read_hints
from dsib import catalog
from dsib.fidelity import FrameMismatch
from dsib.formats import FORMATS
from dsib.registry import Reader, installed_versions
from dsib.roundtrip import check_batches, check_columns, concat_batches, hints_for, write_and_check

READERS = [
    (f.name, reader, v)
    for f in FORMATS.values()
    for reader in ("columns", "batches")
    if getattr(f, reader) is not None
    for v in VARIANTS
    if v in f.variants
]


def _cell(tiny_data_dir, tmp_path, name, variant, dataset="nyc_taxi"):
    fmt = FORMATS[name]
    reason = fmt.unavailable(installed_versions(fmt.packages))
    if reason:
        pytest.skip(reason)
    frame = load_frame("tiny", variant, data_dir=tiny_data_dir, dataset=dataset)
    hints = read_hints(variant, dataset)
    outcome = write_and_check(fmt, frame, hints, str(tmp_path / ("cell" + fmt.suffix)), from_bytes=False)
    assert outcome["error"] is None and outcome["skip"] is None, outcome
    return fmt, frame, hints, outcome["path"]


# The taxi frame has every kind of the built-in datasets' columns (a brought table's every kind:
# tests/test_own_table_grid.py runs the grid on one).
@pytest.mark.parametrize("dataset", ["nyc_taxi"])
@pytest.mark.parametrize("name,reader,variant", READERS)
def test_reader_gives_back_its_part_of_the_frame(tiny_data_dir, tmp_path, dataset, name, reader, variant):
    if variant not in DATASETS[dataset].variants:
        pytest.skip("%s has no %s variant" % (dataset, variant))
    fmt, frame, hints, path = _cell(tiny_data_dir, tmp_path, name, variant, dataset)
    unmet = getattr(fmt, reader).unavailable(installed_versions(fmt.packages))
    if unmet:
        pytest.skip(unmet)
    if reader == "columns":
        names = catalog.projection(frame.columns)
        assert len(names) == min(3, len(frame.columns)) and names[-1] == frame.columns[-1]
        check_columns(fmt, frame, hints, path, names)
        got = fmt.columns(path, names, **hints_for(hints, names))
        assert list(got.columns) == names
    else:
        size = catalog.batch_size(len(frame), os.path.getsize(path))
        if fmt.batches.writes is not None:  # the file written for batches (row groups, record batches)
            path = str(tmp_path / ("batches" + fmt.suffix))
            with open(path, "wb") as f:
                f.write(fmt.batches.writes(frame, size))
        batches = list(fmt.batches(path, size, **hints))
        # a tenth of the rows (or of the bytes: a CSV's rows are not all one length)
        assert 8 <= len(batches) <= 12, [len(b) for b in batches]
        assert max(len(b) for b in batches) <= 1.5 * size.rows
        check_batches(fmt, frame, hints, path, size)


def test_a_reader_that_drops_or_changes_rows_is_caught(tiny_data_dir, tmp_path, monkeypatch):
    fmt, frame, hints, path = _cell(tiny_data_dir, tmp_path, "csv", "cat")
    size = catalog.batch_size(len(frame), os.path.getsize(path))
    names = catalog.projection(frame.columns)
    check_batches(fmt, frame, hints, path, size)
    check_columns(fmt, frame, hints, path, names)
    batches, columns = fmt.batches, fmt.columns

    def all_but_the_last(path, size, **hints):
        return list(batches(path, size, **hints))[:-1]

    def one_value_off(path, size, **hints):
        for i, batch in enumerate(batches(path, size, **hints)):
            if i == 3:
                batch.iloc[0, 0] += 1
            yield batch

    for broken in (all_but_the_last, one_value_off):
        monkeypatch.setattr(fmt, "batches", Reader(broken))
        with pytest.raises(FrameMismatch):
            check_batches(fmt, frame, hints, path, size)

    def another_column(path, names, **hints):
        got = columns(path, names, **hints)
        got[names[0]] = got[names[0]].iloc[::-1].values
        return got

    monkeypatch.setattr(fmt, "columns", Reader(another_column))
    with pytest.raises(FrameMismatch):
        check_columns(fmt, frame, hints, path, names)


def test_the_categories_of_batches_are_put_together_not_lost():
    batches = [pd.DataFrame({"s": pd.Categorical(["a", "b"])}), pd.DataFrame({"s": pd.Categorical(["c", "a"])})]
    combined = concat_batches(batches)
    assert str(combined["s"].dtype) == "category"
    assert sorted(combined["s"].cat.categories) == ["a", "b", "c"]
    assert list(combined["s"]) == ["a", "b", "c", "a"]
    with pytest.raises(FrameMismatch):
        concat_batches([])


def test_formats_without_a_reader_skip_saying_so():
    versions = installed_versions(FORMATS.packages())
    assert (
        catalog.BUILT_IN.skip_reason("iterate_batches", "nyc_taxi", "pickle-2", "plain", "tiny", versions)
        == "pickle protocol 2 has no reader of batches of a size asked: it is read whole"
    )
    assert (
        catalog.BUILT_IN.skip_reason("read_columns", "nyc_taxi", "json-split", "plain", "tiny", versions)
        == "JSON split reads every column: it has no reader of some columns"
    )
    old = dict(versions, pyarrow="2.0.0")
    assert (
        catalog.BUILT_IN.skip_reason("iterate_batches", "nyc_taxi", "parquet", "plain", "tiny", old)
        == "Parquet: ParquetFile.iter_batches arrived in pyarrow 3.0"
    )
    # only formats with the reader are parameters of the case
    assert "pickle-2" not in catalog.BUILT_IN.params("iterate_batches")[1]
    assert "parquet" in catalog.BUILT_IN.params("iterate_batches")[1]


# The process's own peak (VmHWM): ru_maxrss would start at the forking parent's (pytest's) RSS.
PEAK = r"""
import json, os, sys
from dsib.catalog import batch_size
from dsib.formats import FORMATS


def peak():
    with open("/proc/self/status") as f:
        return int([line for line in f if line.startswith("VmHWM:")][0].split()[1]) * 1024


fmt, how, path = FORMATS[sys.argv[1]], sys.argv[2], sys.argv[3]
batch_rows, hints = int(sys.argv[4]), json.loads(sys.argv[5])
fmt.warm_up()
before = peak()
if how == "whole":
    frame = fmt.read(path, **hints)
    del frame
else:
    for frame in fmt.batches(path, batch_size(batch_rows * 10, os.path.getsize(path)), **hints):
        frame.sum(numeric_only=True)
        del frame
print(peak() - before)
"""


def _peak_above_start(name, how, path, rows, hints):
    out = subprocess.run(
        [sys.executable, "-c", PEAK, name, how, path, str(rows), json.dumps(hints)],
        check=True,
        stdout=subprocess.PIPE,
        universal_newlines=True,
        cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    ).stdout
    return int(out.split()[-1])


def _numbers(rows):
    rng = np.random.RandomState(0)
    frame = pd.DataFrame(dict(("x%d" % i, rng.standard_normal(rows)) for i in range(12)))
    frame["t"] = pd.Timestamp("2016-01-01") + pd.to_timedelta(rng.randint(0, 10**6, rows), unit="s")
    return frame


# Fresh processes a figure of test_a_batch_pass_holds_a_batch_not_the_file takes the least of.
PROCESSES = 3


# One of each kind of bound: chunks of a text file, of an HDF5 table, row groups, record batches.
@pytest.mark.slow
@pytest.mark.parametrize("name", ["csv", "hdf-table", "parquet", "arrow-file"])
def test_a_batch_pass_holds_a_batch_not_the_file(tmp_path, name):
    """Peak RSS of a fresh process above what it had before reading (the least of ``PROCESSES``:
    pyarrow's allocator keeps freed pages a while, by thread, which only adds), for a file and for
    one four times as long, read in batches of the same rows: the longer file's pass may hold no
    more than a quarter of what its extra rows are as a frame, where a whole read holds them all
    (which shows the measure sees them). Parquet's and Arrow IPC's files are written for batches
    (row groups, record batches of a batch: ``Reader.writes``), as a user who iterates would write
    them. Measured here: CSV, HDF5 and Arrow IPC +0 MB, Parquet +0 to +7 MB (in one process, 0 to
    15 MB, and 21 MB once beside a test run), whole reads +80 to +170 MB, for 62 MB more frame."""
    fmt = FORMATS[name]
    versions = installed_versions(fmt.packages)
    reason = fmt.unavailable(versions) or fmt.batches.unavailable(versions)
    if reason:
        pytest.skip(reason)
    rows, peaks = 200000, {}
    hints = {"datetimes": ["t"], "categoricals": [], "texts": []}
    for scale in (1, 4):
        frame = _numbers(rows * scale)
        path = str(tmp_path / ("x%d%s" % (scale, fmt.suffix)))
        with open(path, "wb") as f:
            write = fmt.batches.writes or (lambda frame, size: fmt.write(frame))
            f.write(write(frame, catalog.batch_size(rows, 0)))  # batches of a tenth of the shorter file
        for how in ("whole", "batches"):
            peaks[how, scale] = min(_peak_above_start(name, how, path, rows // 10, hints) for _ in range(PROCESSES))
    extra = 3 * int(_numbers(rows).memory_usage(deep=True).sum())
    grew = dict((how, peaks[how, 4] - peaks[how, 1]) for how in ("whole", "batches"))
    print(
        "%s: %.0f MB more rows as a frame; whole read grew %.0f MB, pass in batches %.0f MB (%s)"
        % (
            name,
            extra / 1e6,
            grew["whole"] / 1e6,
            grew["batches"] / 1e6,
            ", ".join("%s x%d +%.0f MB" % (k[0], k[1], v / 1e6) for k, v in sorted(peaks.items())),
        )
    )
    assert grew["whole"] > 0.8 * extra
    assert grew["batches"] < 0.25 * extra
