"""msgpack: dsib's column-wise layout, and pandas' own to_msgpack where pandas still has it."""

from ..fidelity import is_nullable
from ..registry import Format, Needs
from . import _io


def _write(frame):
    """Column-wise: fixed-width columns as raw buffers with their dtype, text as lists."""
    import msgpack
    import numpy as np

    columns = []
    for name in frame.columns:
        series = frame[name]
        dtype = series.dtype
        if getattr(dtype, "name", "") == "category":
            codes = np.asarray(series.cat.codes)
            columns.append(
                [
                    name,
                    "category",
                    codes.dtype.str,
                    codes.tobytes(),
                    [str(v) for v in series.cat.categories],
                    bool(series.cat.ordered),
                ]
            )
        elif getattr(dtype, "tz", None) is not None:
            values = np.asarray(series.dt.tz_convert(None)).astype("M8[ns]")
            columns.append([name, "datetimetz", str(dtype.tz), values.view("i8").tobytes()])
        elif isinstance(dtype, np.dtype) and dtype.kind in "biufM":
            values = np.ascontiguousarray(np.asarray(series))
            columns.append([name, "array", values.dtype.str, values.tobytes()])
        elif is_nullable(dtype):  # pandas' nullable integers and booleans: None for <NA>
            values = series.astype(object).where(series.notna(), None).tolist()
            columns.append([name, "list", str(dtype), values])
        else:
            columns.append([name, "list", str(dtype), [None if v != v else v for v in series.tolist()]])
    # Any other object (a Decimal) as its text, which a reader told the column's type makes it again.
    return msgpack.packb({"columns": columns, "rows": len(frame)}, use_bin_type=True, default=str)


def _read(source, datetimes=(), categoricals=(), texts=(), dtypes=()):
    import msgpack
    import numpy as np
    import pandas as pd

    packed = msgpack.unpackb(_io.payload(source), raw=False)
    data, names = {}, []
    for column in packed["columns"]:
        name, kind = column[0], column[1]
        names.append(name)
        if kind == "category":
            codes = np.frombuffer(column[3], dtype=column[2])
            data[name] = pd.Categorical.from_codes(codes, column[4], ordered=column[5])
        elif kind == "datetimetz":
            data[name] = (
                pd.DatetimeIndex(np.frombuffer(column[3], dtype="M8[ns]")).tz_localize("UTC").tz_convert(column[2])
            )
        elif kind == "array":
            data[name] = np.frombuffer(column[3], dtype=column[2])
        elif is_nullable(column[2]):
            data[name] = pd.array(column[3], dtype=column[2])
        else:
            data[name] = pd.Series(column[3], dtype=object if column[2] == "object" else None)
    frame = pd.DataFrame(data, columns=names)
    return _io.as_told(frame, dtypes) if dtypes else frame


def _pandas_write(frame):
    return frame.to_msgpack()


def _pandas_read(source, datetimes=(), categoricals=(), texts=(), dtypes=()):
    import pandas as pd

    return pd.read_msgpack(_io.payload(source))


FORMATS = [
    Format(
        "msgpack",
        "msgpack (columns)",
        ".msgpack",
        _write,
        _read,
        "msgpack",
        needs=(Needs("pandas"), Needs("msgpack")),
        description="numeric columns as raw buffers, text as lists",
    ),
    Format(
        "pandas-msgpack",
        "pandas to_msgpack",
        ".msgpack",
        _pandas_write,
        _pandas_read,
        "msgpack",
        needs=(Needs("pandas", below="1.0", why="pandas {have} has no to_msgpack (removed in 1.0)"),),
        description="pandas' own msgpack, removed in pandas 1.0",
    ),
]
