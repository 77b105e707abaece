"""NumPy .npy: one structured array, so fixed-width columns only."""

import io

from ..registry import Format, Loss, Needs
from . import _io


def _write(frame):
    import numpy as np

    zoned = [c for c in frame.columns if getattr(frame[c].dtype, "tz", None) is not None]
    if zoned:  # a structured array holds naive datetimes only: UTC instants
        frame = frame.assign(**dict((c, frame[c].dt.tz_convert(None)) for c in zoned))
    # Nor pandas' nullable types, nor decimals: float64, NaN for a null (their declared losses).
    frame = _io.decimals_as_float(_io.nullables_as_float(frame))
    buf = io.BytesIO()
    np.save(buf, frame.to_records(index=False), allow_pickle=False)
    return buf.getvalue()


def _read(source, datetimes=(), categoricals=(), texts=(), dtypes=()):
    import numpy as np
    import pandas as pd

    with _io.buffer(source) as f:
        return pd.DataFrame(np.load(f, allow_pickle=False))


def _take(path, positions, datetimes=(), categoricals=(), texts=(), dtypes=()):
    """The rows at ``positions`` of the array memory-mapped: only their pages are read."""
    import numpy as np
    import pandas as pd

    return pd.DataFrame(np.load(path, mmap_mode="r", allow_pickle=False)[positions])


FORMATS = [
    Format(
        "npy",
        "NumPy .npy",
        ".npy",
        _write,
        _read,
        "numpy",
        needs=(Needs("pandas"), Needs("numpy")),
        variants=("plain",),
        losses=(Loss("timezone"), Loss("nullable_float"), Loss("decimal_float")),
        description="one structured array: fixed-width columns only",
        take=_take,
    ),
]
