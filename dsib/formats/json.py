"""JSON through pandas: orients split and records, and Rocklin's split without the index."""

from .. import compat
from ..registry import Format, Loss, Needs
from . import _io

PANDAS = Needs("pandas")
LOSSES = (
    Loss("float_digits"),  # to_json writes 15 digits at most
    Loss("datetime_unit", since=("pandas", "3.0")),
    # read_json drops UTC (< 0.24) or adds it to naive times (< 1.5)
    Loss("timezone", below=("pandas", "1.5")),
)


def _writer(orient, index=True):
    def write(frame):
        kwargs = {} if index else {"index": False}
        # ISO dates keep time zones; 15 digits is the most to_json writes.
        return frame.to_json(orient=orient, date_format="iso", date_unit="ns", double_precision=15, **kwargs).encode(
            "utf-8"
        )

    return write


def _reader(orient):
    def read(source, datetimes=(), categoricals=(), texts=(), dtypes=()):
        import pandas as pd

        after = {}
        if dtypes:  # a table a user brought: every column's type
            if compat.pandas_version() >= (3, 0):
                dtype = _io.pandas_dtypes(categoricals, texts, dtypes)
            else:
                # read_json's dtype= went through numpy's before pandas 3 ("None" for a null in str
                # text, no nullable dtype): text kept as read, nullables converted after reading.
                after = _io.nullable_dtypes(dtypes)
                dtype = _io.pandas_dtypes(categoricals, texts, [d for d in dtypes if d[0] not in after], text=object)
        else:
            dtype = _io.text_dtypes(categoricals, texts) if categoricals or texts else True
        named_dates = {"convert_dates": list(datetimes)} if compat.read_json_parses_named_dates() else {}
        with _io.buffer(source) as f:
            frame = pd.read_json(f, orient=orient, precise_float=True, dtype=dtype, **named_dates)
        if not named_dates:
            # What pandas >= 3.1 asks for instead: the date columns parsed after reading (those
            # its default date detection has not parsed already, such as TSBS' "timestamp").
            frame = frame.assign(**dict((c, pd.to_datetime(frame[c])) for c in datetimes if frame[c].dtype.kind != "M"))
        if after:
            frame = frame.astype(after)
        if dtypes:  # its decimals from their text, its zoned timestamps (read as UTC) in their zone
            frame = _io.as_told(frame, dtypes)
        return _io.categorize(frame, categoricals)

    return read


FORMATS = [
    Format(
        "json-split", "JSON split", ".json", _writer("split"), _reader("split"), "json", needs=(PANDAS,), losses=LOSSES
    ),
    Format(
        "json-records",
        "JSON records",
        ".json",
        _writer("records"),
        _reader("records"),
        "json",
        needs=(PANDAS,),
        # DataFrame(list of dicts) sorted the keys before pandas 0.25
        losses=LOSSES + (Loss("column_order", below=("pandas", "0.25")),),
    ),
    Format(
        "json-split-noindex",
        "JSON split, no index",
        ".json",
        _writer("split", index=False),
        _reader("split"),
        "json",
        needs=(Needs("pandas", "0.23", why="to_json(index=False) arrived in pandas 0.23"),),
        losses=LOSSES,
        description="Rocklin's json-no-index: values only",
    ),
]
