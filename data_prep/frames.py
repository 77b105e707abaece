"""From the store to pandas DataFrames: the exact frame every benchmark writes and compares against."""

from . import nyc_taxi
from .store import open_dataset


def _decode(values):
    # Object arrays of str, as pandas builds them when it reads text.
    return values.astype("U").astype(object)


def month_columns(dataset, partition, variant):
    """``{column: array}`` for one partition and variant, in schema order."""
    if variant not in nyc_taxi.VARIANTS:
        raise ValueError("unknown variant %r; variants are %s" % (variant, ", ".join(nyc_taxi.VARIANTS)))
    columns = dict((name, dataset.load(partition, name)) for name in nyc_taxi.COLUMNS)
    if variant == "str":
        columns[nyc_taxi.STRING_COLUMN] = _decode(dataset.load(partition, nyc_taxi.HIGH_ENTROPY))
    elif variant == "cat":
        columns[nyc_taxi.STRING_COLUMN] = _decode(dataset.load(partition, nyc_taxi.LOW_ENTROPY))
    return columns


def frame_from_columns(columns, variant):
    import pandas as pd

    names = list(nyc_taxi.COLUMNS)
    if variant != "plain":
        names.append(nyc_taxi.STRING_COLUMN)
    data = dict((name, columns[name]) for name in names)
    if variant == "cat":
        data[nyc_taxi.STRING_COLUMN] = pd.Categorical(data[nyc_taxi.STRING_COLUMN])
    return pd.DataFrame(data, columns=names)


def load_frame(profile, variant="plain", partition=None, data_dir=None, dataset=None):
    """The DataFrame of one month (the first by default) at ``profile``, verified against its checksums."""
    dataset = dataset or open_dataset(nyc_taxi.DATASET, profile, data_dir)
    partition = partition or dataset.partitions[0]
    return frame_from_columns(month_columns(dataset, partition, variant), variant)


def read_hints(variant):
    """What a reader must be told to return the frame of ``variant``: its datetime and categorical columns."""
    categoricals = (nyc_taxi.STRING_COLUMN,) if variant == "cat" else ()
    return {"datetimes": nyc_taxi.DATETIME_COLUMNS, "categoricals": categoricals}


def frame_nbytes(frame):
    """In-memory size of a frame, counting the characters of object strings."""
    return int(frame.memory_usage(index=True, deep=True).sum())


__all__ = ["load_frame", "frame_from_columns", "month_columns", "read_hints", "frame_nbytes"]
