"""data_prep: schema, realism, determinism, string entropy, and every way a dataset can be bad."""

import json
import os
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from data_prep import DATASETS, DatasetError, load_frame, nyc_taxi, open_dataset
from data_prep.build import TLC_BYTES_PER_ROW, csv_bytes_per_row, ingest_csv, prepare
from data_prep.profiles import MONTHS_2016_H1, PROFILES
from dsib.fidelity import assert_same_frame

from .conftest import ROOT

TLC_COLUMNS = [
    "VendorID",
    "tpep_pickup_datetime",
    "tpep_dropoff_datetime",
    "passenger_count",
    "trip_distance",
    "pickup_longitude",
    "pickup_latitude",
    "RatecodeID",
    "store_and_fwd_flag",
    "dropoff_longitude",
    "dropoff_latitude",
    "payment_type",
    "fare_amount",
    "extra",
    "mta_tax",
    "tip_amount",
    "tolls_amount",
    "improvement_surcharge",
    "total_amount",
]


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "data_prep"] + list(args),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )


def test_schema_is_the_2016_layout(tiny_data_dir):
    frame = load_frame("tiny", "plain", data_dir=tiny_data_dir)
    assert list(frame.columns) == TLC_COLUMNS
    assert len(frame) == PROFILES["tiny"].rows_per_month
    kinds = {name: frame[name].dtype.kind for name in frame.columns}
    assert [n for n, k in kinds.items() if k == "M"] == ["tpep_pickup_datetime", "tpep_dropoff_datetime"]
    assert [n for n, k in kinds.items() if k == "b"] == ["store_and_fwd_flag"]
    assert [n for n, k in kinds.items() if k == "i"] == ["VendorID", "passenger_count", "RatecodeID", "payment_type"]
    assert str(frame["tpep_pickup_datetime"].dtype) == "datetime64[ns]"
    for variant in ("str", "cat"):
        assert list(load_frame("tiny", variant, data_dir=tiny_data_dir).columns) == TLC_COLUMNS + ["str"]
    assert open_dataset("nyc_taxi", "tiny", tiny_data_dir).partitions == list(MONTHS_2016_H1)


def test_values_are_realistic(tiny_data_dir):
    frame = load_frame("tiny", "plain", partition="2016-02", data_dir=tiny_data_dir)
    pickup, dropoff = frame["tpep_pickup_datetime"], frame["tpep_dropoff_datetime"]
    assert (dropoff > pickup).all()
    assert (pickup.dt.month == 2).all() and (pickup.dt.year == 2016).all()
    for column in (pickup, dropoff):
        assert (column.values.astype("int64") % 10**9 == 0).all(), "second resolution"
    assert pickup.is_monotonic_increasing

    minutes = (dropoff - pickup).dt.total_seconds() / 60
    assert 8 < minutes.median() < 16
    moving = frame["trip_distance"] > 0
    assert np.corrcoef(minutes[moving], frame["trip_distance"][moving])[0, 1] > 0.5

    for prefix in ("pickup", "dropoff"):
        lon, lat = frame[prefix + "_longitude"], frame[prefix + "_latitude"]
        zero = (lon == 0) & (lat == 0)
        assert 0.005 < zero.mean() < 0.03, "some GPS fixes are missing, as in the TLC files"
        assert lon[~zero].between(-74.3, -73.6).mean() > 0.99
        assert lat[~zero].between(40.45, 41.0).mean() > 0.99
        digits = lon[~zero].map(lambda v: len(repr(v).split(".")[1]))
        assert digits.median() >= 12, "coordinates carry full float precision"

    cents = {
        c: np.round(frame[c] * 100).astype(int)
        for c in (
            "fare_amount",
            "extra",
            "mta_tax",
            "tip_amount",
            "tolls_amount",
            "improvement_surcharge",
            "total_amount",
        )
    }
    for name, column in cents.items():
        assert np.allclose(column / 100.0, frame[name], rtol=0, atol=1e-9), "%s is in cents" % name
    parts = sum(cents[c] for c in cents if c != "total_amount")
    assert (parts == cents["total_amount"]).all()
    assert (frame["fare_amount"] >= 2.5).all()
    assert (frame.loc[frame["payment_type"] == 2, "tip_amount"] == 0).all()
    assert set(frame["VendorID"]) == {1, 2}
    assert set(frame["payment_type"]) <= {1, 2, 3, 4}
    assert 0 < frame["store_and_fwd_flag"].mean() < 0.02


def test_generation_is_deterministic(tmp_path):
    first = prepare("tiny", str(tmp_path / "a"), partitions=MONTHS_2016_H1[:2], progress=False)
    second = prepare("tiny", str(tmp_path / "b"), partitions=MONTHS_2016_H1[:2], progress=False)
    other_seed = prepare("tiny", str(tmp_path / "c"), partitions=MONTHS_2016_H1[:2], progress=False, seed=7)

    def checksums(summary):
        with open(os.path.join(summary["path"], "manifest.json")) as f:
            manifest = json.load(f)
        return [(p["name"], c, m["sha256"]) for p in manifest["partitions"] for c, m in sorted(p["files"].items())]

    assert checksums(first) == checksums(second)
    assert checksums(first) != checksums(other_seed)
    jan, feb = nyc_taxi.generate_month("2016-01", 1000, 2016), nyc_taxi.generate_month("2016-02", 1000, 2016)
    assert not np.array_equal(jan["fare_amount"], feb["fare_amount"])


def test_string_variants_have_the_posts_entropy(tiny_data_dir):
    high = load_frame("tiny", "str", data_dir=tiny_data_dir)["str"]
    low = load_frame("tiny", "cat", data_dir=tiny_data_dir)["str"]
    rows = PROFILES["tiny"].rows_per_month
    assert high.map(len).eq(64).all()
    assert high.str.fullmatch(r"[0-9a-f]{64}").all()
    assert high.nunique() == rows
    assert str(low.dtype) == "category"
    values = low.astype(str)
    assert values.str.fullmatch(r"[0-9a-f]-[0-9a-f]-[0-9a-f]").all()
    assert (values == high.str[0] + "-" + high.str[1] + "-" + high.str[2]).all()
    # 10,000 draws from 4,096 values: about 3,740 distinct are expected.
    assert 3500 < low.nunique() <= 4096


def test_csv_in_tlc_layout_is_within_15_percent_of_the_real_file(tiny_data_dir):
    per_row = csv_bytes_per_row(open_dataset("nyc_taxi", "tiny", tiny_data_dir))
    assert abs(per_row / TLC_BYTES_PER_ROW - 1) <= 0.15


def test_cli_prepare_reports_speed_and_csv_size(tmp_path):
    result = run_cli("prepare", "--profile", "tiny", "--quiet", "--data-dir", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert re.search(r"wrote 60,000 rows .* \(plain columns generated at [\d.]+ M rows/s\)", result.stdout)
    assert re.search(r"TLC-layout CSV: [\d.]+ bytes/row \(real January 2016: 156.8; [+-][\d.]+ %\)", result.stdout)
    verify = run_cli("verify", "--profile", "tiny", "--data-dir", str(tmp_path))
    assert verify.returncode == 0 and "checksums verified" in verify.stdout


def test_missing_dataset_names_the_rebuild_command(tmp_path):
    with pytest.raises(DatasetError) as info:
        open_dataset("nyc_taxi", "default", str(tmp_path))
    assert "it is missing" in str(info.value)
    assert "python -m data_prep prepare --dataset nyc_taxi --profile default" in str(info.value)
    result = run_cli("verify", "--profile", "default", "--data-dir", str(tmp_path))
    assert result.returncode == 1
    assert "python -m data_prep prepare" in result.stderr and "Traceback" not in result.stderr


def test_corrupt_file_fails_its_checksum(tiny_copy):
    path = os.path.join(tiny_copy, "tiny", "nyc_taxi", "2016-03", "fare_amount.npy")
    with open(path, "r+b") as f:
        f.seek(-8, os.SEEK_END)
        last = f.read(8)
        f.seek(-8, os.SEEK_END)
        f.write(bytes(b ^ 0xFF for b in last))
    with pytest.raises(DatasetError) as info:
        open_dataset("nyc_taxi", "tiny", tiny_copy)
    message = str(info.value)
    assert "corrupt" in message and "2016-03/fare_amount.npy" in message
    assert "python -m data_prep prepare --dataset nyc_taxi --profile tiny" in message
    result = run_cli("verify", "--profile", "tiny", "--data-dir", tiny_copy)
    assert result.returncode == 1 and "corrupt" in result.stderr


def test_truncated_or_deleted_file_is_reported(tiny_copy):
    dataset_dir = os.path.join(tiny_copy, "tiny", "nyc_taxi")
    os.remove(os.path.join(dataset_dir, "2016-05", "str_sha256.npy"))
    with pytest.raises(DatasetError) as info:
        open_dataset("nyc_taxi", "tiny", tiny_copy)
    assert "incomplete" in str(info.value) and "python -m data_prep prepare" in str(info.value)


def test_interrupted_preparation_keeps_the_old_dataset(tiny_copy, monkeypatch):
    manifest = os.path.join(tiny_copy, "tiny", "nyc_taxi", "manifest.json")
    with open(manifest) as f:
        before = f.read()
    spec = DATASETS["nyc_taxi"]
    real = spec.generate

    def dies_in_march(month, rows, seed):
        if month == "2016-03":
            raise KeyboardInterrupt("interrupted")
        return real(month, rows, seed)

    monkeypatch.setattr(spec, "generate", dies_in_march)
    with pytest.raises(KeyboardInterrupt):
        prepare("tiny", tiny_copy, progress=False)
    with open(manifest) as f:
        assert f.read() == before, "the complete old dataset is untouched"
    open_dataset("nyc_taxi", "tiny", tiny_copy)  # still verifies
    leftovers = [n for n in os.listdir(os.path.join(tiny_copy, "tiny")) if n.startswith(".tmp-")]
    assert leftovers, "the partial copy stays out of the way, under a temporary name"

    # Where no complete dataset existed, the error says the preparation was interrupted.
    with pytest.raises(KeyboardInterrupt):
        prepare("tiny", os.path.join(tiny_copy, "fresh"), progress=False)
    with pytest.raises(DatasetError) as info:
        open_dataset("nyc_taxi", "tiny", os.path.join(tiny_copy, "fresh"))
    assert "interrupted preparation" in str(info.value)

    monkeypatch.setattr(spec, "generate", real)
    prepare("tiny", tiny_copy, progress=False, partitions=MONTHS_2016_H1[:1])
    assert not [n for n in os.listdir(os.path.join(tiny_copy, "tiny")) if n.startswith(".tmp-")]


def test_unknown_profile_is_a_clear_error(tmp_path):
    result = run_cli("prepare", "--profile", "huge", "--data-dir", str(tmp_path))
    assert result.returncode == 1
    assert "unknown profile 'huge'" in result.stderr and "default, full, pr, tiny" in result.stderr


def _write_tlc_fixture(tiny_data_dir, directory, months):
    paths = []
    for month in months:
        frame = load_frame("tiny", "plain", partition=month, data_dir=tiny_data_dir)
        path = os.path.join(directory, "yellow_tripdata_%s.csv" % month)
        nyc_taxi.to_tlc_csv(frame, path)
        paths.append(path)
    return paths


def test_csv_ingest_loads_tlc_files_into_the_same_store(tiny_data_dir, tmp_path):
    paths = _write_tlc_fixture(tiny_data_dir, str(tmp_path), ["2016-01", "2016-02"])
    with open(paths[0]) as f:
        header, first = f.readline().strip(), f.readline()
    assert header.split(",") == TLC_COLUMNS
    assert re.match(r"[12],2016-01-01 \d\d:\d\d:\d\d,2016-01-01 ", first)
    assert ",N," in first or ",Y," in first, "the flag is written as in the TLC files"

    store = str(tmp_path / "store")
    result = run_cli("prepare", "--profile", "tlc", "--quiet", "--data-dir", store, "--from-csv", *paths)
    assert result.returncode == 0, result.stderr
    ingested = open_dataset("nyc_taxi", "tlc", store)
    assert ingested.partitions == ["2016-01", "2016-02"]
    assert ingested.manifest["source"]["kind"] == "csv"
    for month in ingested.partitions:
        for variant in ("plain", "str", "cat"):
            assert_same_frame(
                load_frame("tiny", variant, month, tiny_data_dir), load_frame("tlc", variant, month, store)
            )


def test_csv_ingest_rejects_bad_input(tiny_data_dir, tmp_path):
    paths = _write_tlc_fixture(tiny_data_dir, str(tmp_path), ["2016-01"])
    with pytest.raises(ValueError, match="reserved for generated data"):
        ingest_csv(paths, "default", str(tmp_path / "s"), progress=False)
    frame = pd.read_csv(paths[0]).drop(columns=["pickup_longitude"])
    later_layout = str(tmp_path / "yellow_tripdata_2016-07.csv")
    frame.to_csv(later_layout, index=False)
    result = run_cli(
        "prepare", "--profile", "tlc", "--quiet", "--data-dir", str(tmp_path / "s"), "--from-csv", later_layout
    )
    assert result.returncode == 1 and "lacks columns pickup_longitude" in result.stderr
    assert not os.path.exists(os.path.join(str(tmp_path / "s"), "tlc", "nyc_taxi"))


def test_a_prefix_of_rows_is_the_head_of_the_full_frame(tiny_data_dir):
    full = load_frame("tiny", "cat", data_dir=tiny_data_dir, dataset="tsbs_cpu")
    head = load_frame("tiny", "cat", data_dir=tiny_data_dir, dataset="tsbs_cpu", rows=2500)
    assert len(head) == 2500
    for column in head.columns:
        assert (head[column].astype(object).values == full[column].iloc[:2500].astype(object).values).all()
