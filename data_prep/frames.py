"""From the store to pandas DataFrames: the exact frame every benchmark writes and compares against."""

from .datasets import DATASETS, get_dataset
from .own_table import OwnTable, open_table
from .store import open_dataset


def _decode(values):
    # Object arrays of str, as pandas builds them when it reads text.
    return values.astype("U").astype(object)


def frame_from_store(store, spec, partition, variant, rows=None):
    if hasattr(spec, "frame"):  # a table a user brought (data_prep.own)
        return spec.frame(store, partition, variant, rows)
    import pandas as pd

    data = {}
    for column in spec.columns(variant):
        values = store.load(partition, column.stored, rows)
        if column.kind in ("text", "category"):
            values = _decode(values)
        if column.kind == "category":
            values = pd.Categorical(values)
        elif column.kind == "utc":
            values = pd.DatetimeIndex(values).tz_localize("UTC")
        data[column.name] = values
    return pd.DataFrame(data, columns=[c.name for c in spec.columns(variant)])


def load_frame(profile, variant="plain", partition=None, data_dir=None, store=None, dataset="nyc_taxi", rows=None):
    """The DataFrame of one partition (the first by default; its first ``rows`` rows if given),
    verified against its checksums."""
    if dataset not in DATASETS:  # a table a user brought (names of built-in datasets are refused)
        spec, store = open_table(dataset, data_dir) if store is None else (OwnTable(dataset, store.manifest), store)
    else:
        spec = get_dataset(dataset)
        store = store or open_dataset(spec.name, profile, data_dir)
    return frame_from_store(store, spec, partition or store.partitions[0], variant, rows)


def read_hints(variant, dataset="nyc_taxi", data_dir=None):
    """What a reader must be told to return the frame of ``variant``: its datetime and categorical columns."""
    if dataset not in DATASETS:
        return open_table(dataset, data_dir)[0].read_hints(variant)
    return get_dataset(dataset).read_hints(variant)


def frame_nbytes(frame):
    """In-memory size of a frame, counting the characters of object strings."""
    return int(frame.memory_usage(index=True, deep=True).sum())


__all__ = ["load_frame", "frame_from_store", "read_hints", "frame_nbytes"]
