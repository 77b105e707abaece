"""NumPy .npy: one structured array, so fixed-width columns only."""

import io

from ..registry import Format, Loss, Needs
from . import _io


def _write(frame):
    import numpy as np

    zoned = [c for c in frame.columns if getattr(frame[c].dtype, "tz", None) is not None]
    if zoned:  # a structured array holds naive datetimes only: UTC instants
        frame = frame.assign(**dict((c, frame[c].dt.tz_convert(None)) for c in zoned))
    buf = io.BytesIO()
    np.save(buf, frame.to_records(index=False), allow_pickle=False)
    return buf.getvalue()


def _read(source, datetimes=(), categoricals=(), texts=(), dtypes=()):
    import numpy as np
    import pandas as pd

    with _io.buffer(source) as f:
        return pd.DataFrame(np.load(f, allow_pickle=False))


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
        losses=(Loss("timezone"),),
        description="one structured array: fixed-width columns only",
    ),
]
