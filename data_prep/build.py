"""Build datasets into the store: generated at a profile's scale, or ingested from TLC CSV files."""

import os
import time

import numpy as np

from . import nyc_taxi
from .datasets import get_dataset
from .frames import frame_from_store
from .profiles import PROFILES, get_profile
from .progress import progress_bar
from .store import default_data_dir, file_sha256, rebuild_command, write_dataset

# The real January 2016 CSV: 1.71 GB over 10,906,858 rows.
TLC_BYTES_PER_ROW = 1.71e9 / 10906858
CSV_SAMPLE_ROWS = 100000


def _metadata(spec, source, rebuild):
    return {"source": source, "rebuild": rebuild, "numpy": np.__version__, "description": spec.description}


def prepare(profile_name, data_dir=None, partitions=None, progress=True, seed=None, dataset="nyc_taxi"):
    """Generate one dataset at a profile's scale. Returns a summary dict (also printed by the CLI)."""
    profile = get_profile(profile_name)
    spec = get_dataset(dataset)
    partitions = tuple(partitions or spec.partitions)
    seed = profile.seed if seed is None else seed
    data_dir = data_dir or default_data_dir()
    rows = profile.rows_for(spec.name)
    bar = progress_bar(rows * len(partitions), "%s %s" % (spec.name, profile.name), progress)
    timings = {"generate": 0.0, "derive": 0.0}

    def generated():
        for partition in partitions:
            t0 = time.perf_counter()
            columns = spec.generate(partition, rows, seed)
            t1 = time.perf_counter()
            columns.update(spec.derive(columns))
            timings["generate"] += t1 - t0
            timings["derive"] += time.perf_counter() - t1
            yield partition, columns
            if bar is not None:
                bar.update(rows)

    source = {
        "kind": "generated",
        "generator": "%s/%d" % (spec.name, spec.generator_version),
        "seed": seed,
        "rows_per_partition": rows,
    }
    start = time.perf_counter()
    try:
        path = write_dataset(
            data_dir,
            spec.name,
            profile.name,
            generated(),
            _metadata(spec, source, rebuild_command(spec.name, profile.name)),
        )
    finally:
        if bar is not None:
            bar.close()
    total_rows = rows * len(partitions)
    return {
        "path": path,
        "rows": total_rows,
        "seconds": time.perf_counter() - start,
        "plain_rows_per_second": total_rows / max(timings["generate"], 1e-9),
    }


def csv_bytes_per_row(store, partition=None, sample_rows=CSV_SAMPLE_ROWS):
    """Bytes per row of NYC taxi data written in the TLC file's own CSV layout, over a sample."""
    frame = frame_from_store(store, get_dataset(nyc_taxi.DATASET), partition or store.partitions[0], "plain")
    text = nyc_taxi.to_tlc_csv(frame.iloc[:sample_rows])
    header = text.index("\n") + 1
    return (len(text.encode("ascii")) - header) / float(min(sample_rows, len(frame)))


def ingest_csv(paths, profile_name="tlc", data_dir=None, progress=True):
    """Load real TLC yellow-taxi CSV files (one month each) into the store under ``profile_name``."""
    if profile_name in PROFILES:
        raise ValueError(
            "profile %r is reserved for generated data, so that real and synthetic trips "
            "never share a result series; ingest under another name, e.g. --profile tlc" % profile_name
        )
    spec = get_dataset(nyc_taxi.DATASET)
    data_dir = data_dir or default_data_dir()
    for path in paths:
        if not os.path.isfile(path):
            raise ValueError("no such CSV file: %s" % path)
    bar = progress_bar(len(paths), "ingest", progress)
    seen = {}

    def partitions():
        for path in paths:
            columns = nyc_taxi.read_tlc_csv(path)
            month = nyc_taxi.month_of(path, columns)
            if month in seen:
                raise ValueError("%s and %s are both month %s" % (seen[month], path, month))
            seen[month] = path
            columns.update(spec.derive(columns))
            yield month, columns
            if bar is not None:
                bar.update(1)

    source = {"kind": "csv", "files": [{"name": os.path.basename(p), "sha256": file_sha256(p)} for p in paths]}
    rebuild = "python -m data_prep prepare --profile %s --from-csv %s" % (
        profile_name,
        " ".join(os.path.abspath(p) for p in paths),
    )
    try:
        return write_dataset(data_dir, spec.name, profile_name, partitions(), _metadata(spec, source, rebuild))
    finally:
        if bar is not None:
            bar.close()
