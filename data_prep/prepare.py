"""Build datasets into the store: generated at a profile's scale, or ingested from TLC CSV files."""
import os
import time

import numpy as np

from . import nyc_taxi
from .frames import frame_from_columns
from .profiles import MONTHS_2016_H1, PROFILES, get_profile
from .store import default_data_dir, rebuild_command, write_dataset

# The real January 2016 CSV: 1.71 GB over 10,906,858 rows.
TLC_BYTES_PER_ROW = 1.71e9 / 10906858
CSV_SAMPLE_ROWS = 100000


def _metadata(source, rebuild):
    return {"source": source, "rebuild": rebuild, "numpy": np.__version__,
            "schema": [list(c) for c in nyc_taxi.SCHEMA],
            "string_columns": {nyc_taxi.HIGH_ENTROPY: "sha256 hex of the row",
                               nyc_taxi.LOW_ENTROPY: "a-b-c from the first three hex digits"}}


def _progress_bar(total, desc, enabled):
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="rows", unit_scale=True)


def prepare(profile_name, data_dir=None, months=MONTHS_2016_H1, progress=True, seed=None):
    """Generate ``months`` at a profile's scale. Returns a summary dict (also printed by the CLI)."""
    profile = get_profile(profile_name)
    seed = profile.seed if seed is None else seed
    data_dir = data_dir or default_data_dir()
    rows = profile.rows_per_month
    bar = _progress_bar(rows * len(months), "nyc_taxi %s" % profile.name, progress)
    timings = {"generate_plain": 0.0, "strings": 0.0}

    def partitions():
        for month in months:
            t0 = time.perf_counter()
            columns = nyc_taxi.generate_month(month, rows, seed)
            t1 = time.perf_counter()
            columns.update(nyc_taxi.string_columns(columns))
            timings["generate_plain"] += t1 - t0
            timings["strings"] += time.perf_counter() - t1
            yield month, columns
            if bar is not None:
                bar.update(rows)

    source = {"kind": "generated", "generator": "%s/%d" % (nyc_taxi.DATASET, nyc_taxi.GENERATOR_VERSION),
              "seed": seed, "rows_per_month": rows}
    start = time.perf_counter()
    try:
        path = write_dataset(data_dir, nyc_taxi.DATASET, profile.name, partitions(),
                             _metadata(source, rebuild_command(nyc_taxi.DATASET, profile.name)))
    finally:
        if bar is not None:
            bar.close()
    total_rows = rows * len(months)
    return {"path": path, "rows": total_rows, "seconds": time.perf_counter() - start,
            "plain_rows_per_second": total_rows / max(timings["generate_plain"], 1e-9),
            "string_rows_per_second": total_rows / max(timings["strings"], 1e-9)}


def csv_bytes_per_row(dataset, partition=None, sample_rows=CSV_SAMPLE_ROWS):
    """Bytes per row of the dataset written in the TLC file's own CSV layout, over a sample."""
    partition = partition or dataset.partitions[0]
    columns = dict((name, dataset.load(partition, name)[:sample_rows]) for name in nyc_taxi.COLUMNS)
    text = nyc_taxi.to_tlc_csv(frame_from_columns(columns, "plain"))
    header = text.index("\n") + 1
    return (len(text.encode("ascii")) - header) / float(len(columns[nyc_taxi.COLUMNS[0]]))


def ingest_csv(paths, profile_name="tlc", data_dir=None, progress=True):
    """Load real TLC yellow-taxi CSV files (one month each) into the store under ``profile_name``."""
    if profile_name in PROFILES:
        raise ValueError("profile %r is reserved for generated data, so that real and synthetic trips "
                         "never share a result series; ingest under another name, e.g. --profile tlc"
                         % profile_name)
    data_dir = data_dir or default_data_dir()
    for path in paths:
        if not os.path.isfile(path):
            raise ValueError("no such CSV file: %s" % path)
    bar = _progress_bar(len(paths), "ingest", progress)
    seen = {}

    def partitions():
        for path in paths:
            columns = nyc_taxi.read_tlc_csv(path)
            month = nyc_taxi.month_of(path, columns)
            if month in seen:
                raise ValueError("%s and %s are both month %s" % (seen[month], path, month))
            seen[month] = path
            columns.update(nyc_taxi.string_columns(columns))
            yield month, columns
            if bar is not None:
                bar.update(1)

    from .store import file_sha256

    source = {"kind": "csv", "files": [{"name": os.path.basename(p), "sha256": file_sha256(p)} for p in paths]}
    rebuild = "python -m data_prep prepare --profile %s --from-csv %s" % (
        profile_name, " ".join(os.path.abspath(p) for p in paths))
    try:
        return write_dataset(data_dir, nyc_taxi.DATASET, profile_name, partitions(), _metadata(source, rebuild))
    finally:
        if bar is not None:
            bar.close()
