"""Random access (benchmarks/batches.py RandomAccess): every format with a reader of rows gives
back exactly the rows asked for, on real files of the taxi frame; a reader that gives other rows
is caught; Parquet reads only the row groups that hold them."""

import numpy as np
import pytest

from data_prep import DATASETS, VARIANTS, load_frame, read_hints
from dsib import catalog
from dsib.fidelity import FrameMismatch, assert_same_frame
from dsib.formats import FORMATS
from dsib.registry import Reader, installed_versions
from dsib.roundtrip import check_take, write_atomic

TAKERS = [(f.name, v) for f in FORMATS.values() if f.take is not None for v in VARIANTS if v in f.variants]


def _file(tiny_data_dir, tmp_path, name, variant):
    """The file the case's reader reads (its own, or the one written for it), and the frame."""
    fmt = FORMATS[name]
    versions = installed_versions(fmt.packages)
    reason = fmt.unavailable(versions) or fmt.take.unavailable(versions)
    if reason:
        pytest.skip(reason)
    frame = load_frame("tiny", variant, data_dir=tiny_data_dir, dataset="nyc_taxi")
    path = str(tmp_path / ("take" + fmt.suffix))
    write = fmt.take.writes
    write_atomic(path, write(frame, catalog.batch_size(len(frame), 1)) if write else fmt.write(frame))
    return fmt, frame, read_hints(variant, "nyc_taxi"), path


def test_the_positions_are_seeded_ascending_and_distinct():
    positions = catalog.take_positions(100000)
    assert len(positions) == catalog.TAKE_ROWS == 1000
    assert list(positions) == sorted(set(positions)) and positions[-1] < 100000
    assert list(positions) == list(catalog.take_positions(100000)), "the same rows in every run"
    assert len(catalog.take_positions(1200)) == 600, "a small file gives half of its rows"


@pytest.mark.parametrize("name,variant", TAKERS)
def test_a_reader_of_rows_gives_back_the_rows_asked_for(tiny_data_dir, tmp_path, name, variant):
    if variant not in DATASETS["nyc_taxi"].variants:
        pytest.skip("nyc_taxi has no %s variant" % variant)
    fmt, frame, hints, path = _file(tiny_data_dir, tmp_path, name, variant)
    positions = catalog.take_positions(len(frame))
    got = fmt.take(path, positions, **hints)
    assert len(got) == len(positions) and list(got.index) == list(range(len(positions)))
    wanted = frame.iloc[positions].reset_index(drop=True)
    assert_same_frame(wanted, got, fmt.losses(), context=name)
    check_take(fmt, frame, hints, path, positions)


def test_a_reader_that_gives_other_rows_is_caught(tiny_data_dir, tmp_path, monkeypatch):
    fmt, frame, hints, path = _file(tiny_data_dir, tmp_path, "parquet", "str")
    positions = catalog.take_positions(len(frame))
    take = fmt.take

    def the_next_rows(path, positions, **hints):
        return take(path, np.minimum(positions + 1, len(frame) - 1), **hints)

    def one_row_short(path, positions, **hints):
        return take(path, positions[:-1], **hints)

    for broken in (the_next_rows, one_row_short):
        monkeypatch.setattr(fmt, "take", Reader(broken))
        with pytest.raises(FrameMismatch):
            check_take(fmt, frame, hints, path, positions)


def test_parquet_reads_only_the_row_groups_that_hold_the_rows(tiny_data_dir, tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    fmt, frame, hints, path = _file(tiny_data_dir, tmp_path, "parquet", "plain")
    groups = pq.ParquetFile(path).num_row_groups
    assert groups >= 8, "the file is in row groups of a tenth"
    read = []
    original = pq.ParquetFile.read_row_groups

    def counted(self, row_groups, *args, **kwargs):
        read.append(list(row_groups))
        return original(self, row_groups, *args, **kwargs)

    monkeypatch.setattr(pq.ParquetFile, "read_row_groups", counted)
    tenth = -(-len(frame) // 10)
    positions = np.array([tenth * 3 + 1, tenth * 3 + 5, tenth * 7])  # rows of the fourth and eighth groups
    got = fmt.take(path, positions, **hints)
    assert read == [[3, 7]]
    assert_same_frame(frame.iloc[positions].reset_index(drop=True), got, fmt.losses(), context="parquet")


def test_formats_without_a_reader_of_rows_are_not_parameters():
    formats = catalog.BUILT_IN.params("random_access")[1]
    assert {"parquet", "feather", "arrow-file", "npy", "hdf-table"} <= set(formats)
    assert not {"csv", "pickle-2", "hdf-fixed", "fastparquet"} & set(formats)
    versions = installed_versions(FORMATS.packages())
    assert (
        catalog.BUILT_IN.skip_reason("random_access", "nyc_taxi", "csv", "plain", "tiny", versions)
        == "CSV has no reader of rows at positions asked: it is read whole"
    )
    old = dict(versions, pyarrow="0.17.1")
    assert catalog.BUILT_IN.skip_reason("random_access", "nyc_taxi", "arrow-file", "plain", "tiny", old) == (
        "Arrow IPC file: Table.take arrived in pyarrow 1.0"
    )
